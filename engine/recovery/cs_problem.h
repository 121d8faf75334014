/* cs_problem.h — the recovery problems of the paper (`problem KIND ...`) and
 * the MAX-CUT graphs.
 *
 * Generators, as the paper's code sets them up (A is M×N i.i.d. N(0,1),
 * b = Ax*, drawn in this order from the stream (seed, stream)):
 *   bin   x* ∈ {±1}^N uniform
 *   osb   x* ∈ {0,1}^N uniform;        K=: exactly K entries +1, the rest 0
 *   ter   x* ∈ {−1,0,1}^N, p = .25/.5/.25;  K=: exactly K entries ±1 (uniform)
 *   2bit  x* = y1 + y2, y1 ∈ {±1}^N, y2 ∈ {±2}^N (variable: y1 then y2, 2N entries)
 *   eig   C = (T + Tᵀ)/2, T i.i.d. N(0,1); x* a uniformly chosen unit
 *         eigenvector of C (drawn before A)
 *   orth  X* (N×K, K = N unless given) = first K left singular vectors of an
 *         N×N Gaussian matrix (drawn before A); B = AX*
 *   maxcut  a graph (G-set file or built-in `toy5`, `toy4`), no A
 * noise = σ > 0: b = Ax* + σn, n ~ N(0, I) drawn from the same stream after
 * everything else (σ = 0 draws nothing: the problem of before, bit for bit).
 * Matrices are row-major. */
#ifndef CS_PROBLEM_H
#define CS_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "cs_error.h"
#include "cs_proj.h"
#include "cs_rng.h"

typedef enum cs_problem_kind {
    CS_PROB_BIN = 0,
    CS_PROB_OSB,
    CS_PROB_TER,
    CS_PROB_2BIT,
    CS_PROB_EIG,
    CS_PROB_ORTH,
    CS_PROB_MAXCUT,
    CS_PROB_COUNT
} cs_kind;

const char *cs_problem_kind_name(cs_kind kind);   /* "bin", ... */
int cs_problem_kind_parse(const char *name, cs_kind *kind, cs_err *err);

/* ---- graphs (MAX-CUT) ---- */

typedef struct cs_graph cs_graph;

/* G-set text: first line `nodes edges best_known_cut`, then `i j w` per edge,
 * 1-based. Errors name the line. */
int cs_graph_read(cs_graph **out, const char *path, cs_err *err);
/* Built-in graphs of appendix C.6: `toy5` (N=5, E=7, best cut 3, the paper's
 * λ = 1) and `toy4` (N=4, E=5, weights 10..50, best cut 120). */
int cs_graph_builtin(cs_graph **out, const char *name, cs_err *err);
int cs_graph_is_builtin(const char *name);
/* From 0-based edge lists; known_best may be NAN. */
int cs_graph_new(cs_graph **out, const char *name, size_t nodes, const size_t *ei,
                 const size_t *ej, const double *w, size_t edges, double known_best,
                 cs_err *err);
void cs_graph_free(cs_graph *g);
size_t cs_graph_nodes(const cs_graph *g);
size_t cs_graph_edges(const cs_graph *g);
double cs_graph_known_best(const cs_graph *g);
/* The weight λ of ℓ the paper used on this graph (1 for the built-in toy
 * graphs); NaN: the maxcut default. */
double cs_graph_lambda(const cs_graph *g);
const char *cs_graph_name(const cs_graph *g);
/* ℓ_MC(x) = ½ Σ_{edges} w_ij (1 − x_i x_j) (the cut when x ∈ {±1}^N). */
double cs_graph_cut(const cs_graph *g, const double *x);
/* ∇ℓ_MC(x) = −½ W x (sparse, W symmetric). */
void cs_graph_cut_grad(const cs_graph *g, const double *x, double *grad);

/* ---- problems ---- */

typedef struct cs_problem_spec {
    cs_kind kind;
    size_t N, M;           /* N ignored for maxcut (the graph's node count) */
    size_t K;              /* 0: default. osb/ter: nonzeros; orth: columns */
    const char *graph;     /* maxcut: file or built-in name */
    int proj_method;       /* enum cs_affine_method (0: auto) */
    double noise;          /* σ of the Gaussian noise added to b (0: none); not maxcut */
    double scale;          /* bin osb ter: x* times this (0 or 1: none), drawn the same */
} cs_problem_spec;

typedef struct cs_problem cs_problem;

/* Errors name the key at fault (N, M, K, graph) in err->key. */
int cs_problem_new(cs_problem **out, const cs_problem_spec *spec, uint64_t seed,
                   uint64_t stream, cs_err *err);
/* A MAX-CUT problem on a graph the caller keeps alive (not copied). */
int cs_problem_new_maxcut(cs_problem **out, const cs_graph *g, cs_err *err);
/* A problem from the caller's arrays (all copied; row-major): A is M×N, b has
 * M entries, xstar (N entries) and C (eig: N×N symmetric, needed) may be
 * NULL. Kinds bin, osb, ter, 2bit (x = y1 + y2), eig; orth (B is M×K) and
 * maxcut are refused. The problem holds what a drawn one holds (the same
 * projection, factored the same way: a drawn problem rebuilt from its
 * arrays gives the same iterates bit for bit), except x* when not given:
 * then cs_problem_xstar is NULL, rel_err NaN, and the solver judges a run
 * by what it measures (cs_solver.h). Errors name what is wrong: non-finite
 * entries (row and column), an asymmetric C, and Ax = b without a solution
 * ("A has rank 28 < M = 30 and b is not in its range: residual 3e-2"; the
 * rank as numpy's matrix_rank, tolerance max(M, N)·eps·σ_max; b counts as
 * in the range when the least-squares residual ‖Ax − b‖/‖b‖ <= 1e-10).
 * Dependent rows with a consistent b are accepted (M > N too): the
 * projection then uses a maximal set of independent rows (chosen by QR
 * with column pivoting of Aᵀ), the same affine set. */
int cs_problem_new_arrays(cs_problem **out, cs_kind kind, const double *A, size_t M, size_t N,
                          const double *b, const double *xstar, const double *C, cs_err *err);
/* The shapes a loader read, checked before the arrays are (0 for an array
 * not given; b_cols and the C sizes as the file had them): "A is 30x60, b
 * has 29 entries", "x* has 59 entries, A has N = 60 columns", "C is 60x59:
 * eig needs C of N×N = 60x60", "C is for eig, not bin". */
int cs_problem_check_shapes(cs_kind kind, size_t M, size_t N, size_t b_len, size_t xstar_len,
                            size_t C_rows, size_t C_cols, cs_err *err);
void cs_problem_free(cs_problem *p);
/* An independent copy (its own projection: for another thread), the same
 * operator bit for bit; a MAX-CUT copy shares the graph of src. */
int cs_problem_clone(cs_problem **out, const cs_problem *src, cs_err *err);

cs_kind cs_problem_kind(const cs_problem *p);
size_t cs_problem_N(const cs_problem *p);
size_t cs_problem_M(const cs_problem *p);
size_t cs_problem_K(const cs_problem *p);      /* nonzeros (osb/ter sparse), columns (orth), 0 */
size_t cs_problem_cols(const cs_problem *p);   /* columns of x*: K for orth, else 1 */
const double *cs_problem_A(const cs_problem *p);      /* M×N, NULL for maxcut */
const double *cs_problem_b(const cs_problem *p);      /* M×(K for orth, else 1) */
/* N×(K for orth, else 1); NULL for maxcut and for a problem from arrays
 * without x* */
const double *cs_problem_xstar(const cs_problem *p);
double cs_problem_xstar_norm(const cs_problem *p);   /* NaN without x* */
const double *cs_problem_C(const cs_problem *p);      /* eig: N×N symmetric */
cs_affine *cs_problem_affine(cs_problem *p);          /* NULL for 2bit and maxcut */
const cs_graph *cs_problem_graph(const cs_problem *p);
double cs_problem_noise(const cs_problem *p);         /* σ of the drawn noise (0: none) */
double cs_problem_scale(const cs_problem *p);         /* x*'s scale (1: as drawn) */
/* The system {Ax = b} the projection factors: A's independent rows (A itself
 * unless it has dependent rows), *rows of them, and their b (*b, may be NULL). */
const double *cs_problem_system(const cs_problem *p, const double **b, size_t *rows);
/* The rank of A (M unless the problem came from arrays with dependent rows). */
size_t cs_problem_rank(const cs_problem *p);
/* ‖Ax − b‖_F/‖b‖_F for an N×cols x (‖Ax − b‖_F when b = 0); NaN for maxcut. */
double cs_problem_residual(const cs_problem *p, const double *x);

/* ‖x − x*‖/‖x*‖ for an N×cols x (2bit: pass x = y1 + y2); ‖x − x*‖ when
 * x* = 0; NaN for maxcut. */
double cs_problem_rel_err(const cs_problem *p, const double *x);
/* orth: ‖XᵀX − I‖_F/√K; NaN otherwise. */
double cs_problem_orth_err(const cs_problem *p, const double *X);

/* The first K left singular vectors of an N×N matrix drawn from rng (N×K,
 * row-major): the orth generator's X* and the orth solver's start. */
int cs_random_orthonormal(cs_rng *rng, size_t N, size_t K, double *X, cs_err *err);

#endif
