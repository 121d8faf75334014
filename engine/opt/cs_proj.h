/* cs_proj.h — projections and proximal operators of the recovery experiments.
 *
 * The affine projector P(z) = argmin{‖x − z‖ : Ax = b} is factored once per
 * problem. Three factorizations give the same operator:
 *   CHOL   z − Aᵀ(AAᵀ)⁻¹(Az − b)          LAPACKE Cholesky of AAᵀ; 4MN + 2M² flops
 *   RANGE  z − Q(Qᵀz − c)                  Q: N×M orthonormal basis of range(Aᵀ); 4MN
 *   NULL   x_p + ZZᵀz                      Z: N×(N−M) orthonormal basis of null(A); 4N(N−M)
 * AUTO picks RANGE when M ≤ N − M, else NULL: an orthonormal basis of rank
 * min(M, N−M), which measured fastest for every size (see `make bench`) and
 * is better conditioned than the normal equations.
 *
 * The variable may be a matrix X (N×K, row-major) with B = AX (M×K): every
 * column is projected. Not thread-safe on one instance (owns scratch). */
#ifndef CS_PROJ_H
#define CS_PROJ_H

#include <stddef.h>

#include "cs_error.h"

enum cs_affine_method {
    CS_AFFINE_AUTO = 0,
    CS_AFFINE_CHOL = 1,
    CS_AFFINE_RANGE = 2,
    CS_AFFINE_NULL = 3
};

typedef struct cs_affine cs_affine;

/* A is M×N row-major (1 ≤ M ≤ N), b is M×K row-major. Both are copied.
 * Rank-deficient A and non-finite entries are errors. */
int cs_affine_new(cs_affine **out, const double *A, size_t M, size_t N, const double *b,
                  size_t K, int method, cs_err *err);
void cs_affine_free(cs_affine *P);

int cs_affine_method(const cs_affine *P);          /* the one chosen (never AUTO) */
const char *cs_affine_method_name(int method);      /* "auto", "chol", "range", "null" */
size_t cs_affine_rank(const cs_affine *P);          /* columns of the stored basis (M for CHOL) */

/* x = P(z) for the N×K variable; x may alias z. */
void cs_affine_project(cs_affine *P, const double *z, double *x);
/* d = P₀(g), the projection onto {Ax = 0} (the linear part of P):
 * P(x − τg) = x − τ·P₀(g) whenever Ax = b. d may alias g. */
void cs_affine_project_dir(cs_affine *P, const double *g, double *d);
/* d_k = P₀(g_k) for k < nv, bit for bit what cs_affine_project_dir gives
 * each one; the vectors go through the basis four at a time (one pass of
 * its memory for four directions: restarts run in lockstep). d_k must not
 * alias another g_j. */
void cs_affine_project_dir_many(cs_affine *P, size_t nv, const double *const *g,
                                double *const *d);
/* Vector kernels: on CPUs with AVX2+FMA, RANGE and NULL with K = 1 use a
 * built-in kernel (3× faster than OpenBLAS gemv at N = 100); off: OpenBLAS.
 * Results differ in the last bits between the two (FMA rounding). */
void cs_affine_set_simd(cs_affine *P, int on);
int cs_affine_simd(const cs_affine *P);
/* ‖Ax − b‖_F. */
double cs_affine_residual(cs_affine *P, const double *x);
/* The stored basis, N×rank row-major (NULL: the null space of A, orthonormal;
 * RANGE: of range(Aᵀ)); NULL for CHOL. */
const double *cs_affine_basis(const cs_affine *P);
/* The minimum-norm solution of Ax = b (N×K). */
const double *cs_affine_particular(const cs_affine *P);

/* Box projection x_i ← min(max(x_i, lo), hi). */
void cs_proj_box(double *x, size_t n, double lo, double hi);

/* prox_{t‖·‖∞}(w) = argmin_x t‖x‖∞ + ½‖x − w‖²: x = clip(w, −α, α) with α
 * the threshold where Σ max(|w_i| − α, 0) = t (0 when ‖w‖₁ ≤ t).
 * cs_prox_linf finds α by the finite active-set (Michelot) iteration, O(n)
 * per pass and a few passes; cs_prox_linf_sort is the textbook sort +
 * cumulative-sum formula α = max_k (S_k − t)/k (needs n doubles of scratch,
 * or NULL to allocate; returns CS_ENOMEM then). Both are exact; out may
 * alias w. */
void cs_prox_linf(const double *w, size_t n, double t, double *out);
/* Its α (0 when ‖w‖₁ ≤ t). hint > 0, a nearby α (the last step's, in a
 * solver), saves most of the passes; the result is the same to the bit. */
double cs_linf_threshold(const double *w, size_t n, double t, double hint);
int cs_prox_linf_sort(const double *w, size_t n, double t, double *out, double *scratch);
/* prox_{t‖·‖₁}(w): soft thresholding sign(w)·max(|w| − t, 0). out may alias w. */
void cs_prox_l1(const double *w, size_t n, double t, double *out);

#endif
