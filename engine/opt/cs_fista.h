/* cs_fista.h — FISTA with backtracking as a stepper, step-for-step the FASTA
 * solver (Goldstein, Studer, Baraniuk) that the paper's MATLAB code used:
 *
 *   x⁺ = prox(x − τ∇f(x), τ)                         forward–backward step
 *   non-monotone backtracking: shrink τ while
 *     f(x⁺) − 1e-12 > max(last `window` f values) + ⟨x⁺−x, ∇f(x)⟩ + ‖x⁺−x‖²/(2τ)
 *   at most `max_backtracks` shrinks (×0.5; ×0.2 in adaptive mode)
 *   accelerate: α⁺ = (1 + √(1+4α²))/2, y = x⁺ + (α−1)/α⁺ (x⁺ − x⁺_prev),
 *     momentum reset (α = 1) when (y_prev − x⁺)ᵀ(x⁺ − x⁺_prev) > 0
 *   adaptive (not accelerated): Barzilai–Borwein steps, FASTA's rule
 *   τ₀ = 2/(10·L), L = ‖∇f(r₁) − ∇f(r₂)‖/‖r₁ − r₂‖ at two random points
 *
 * The solution is the forward–backward iterate with the smallest objective
 * seen (strict improvement; the start point is not a candidate). The oracle
 * is tested on the forward–backward iterate, not the extrapolated point.
 *
 * When the prox is a projection onto an affine set and the current point is
 * feasible, prox(x − τg) = x − τ·P₀(g): the stepper projects the gradient
 * once per iteration and backtracking costs only evaluations of f.
 * No allocation happens in cs_fista_step. */
#ifndef CS_FISTA_H
#define CS_FISTA_H

#include <stddef.h>

#include "cs_error.h"
#include "cs_rng.h"

/* Stopping rules (shared with Douglas–Rachford). */
typedef enum cs_stop {
    CS_STOP_ORACLE = 0,  /* ‖x − x*‖/‖x*‖ < 1e-2 (or the problem's oracle), or maxit */
    CS_STOP_HYBRID,      /* FASTA default: ratio residual or normalized residual < tol */
    CS_STOP_RESIDUAL,    /* residual < tol */
    CS_STOP_NORMALIZED,  /* normalized residual < tol */
    CS_STOP_MAXIT,       /* run maxit iterations */
    CS_STOP_RATIO,       /* ratio residual (residual / (largest so far + eps_r)) < tol */
    CS_STOP_COUNT
} cs_stop;
const char *cs_stop_name(cs_stop stop);                /* "oracle", "hybrid", ... */
int cs_stop_parse(const char *name, cs_stop *stop, cs_err *err);
/* Whether rule `stop` fires on a step (FISTA and Douglas–Rachford ask this
 * after every iteration): hit is the oracle's verdict, resid the residual,
 * max_resid the largest residual of the start so far (this one included),
 * nres the normalized residual. CS_STOP_MAXIT never fires here. */
int cs_stop_fires(cs_stop stop, int hit, double resid, double max_resid, double nres,
                  double tol, double eps_r);
/* maxit >= 1, a known rule, tol >= 0 (the steppers' set_stop). */
int cs_stop_check(long maxit, cs_stop stop, double tol, cs_err *err);

/* Why a run ended. */
typedef enum cs_end {
    CS_END_RUNNING = 0,
    CS_END_ORACLE,    /* the oracle was satisfied */
    CS_END_TOL,       /* a residual rule was satisfied */
    CS_END_MAXIT,     /* maxit reached */
    CS_END_DIVERGED   /* f or ∇f became non-finite; the best iterate so far stands */
} cs_end;
const char *cs_end_name(cs_end end);

/* One step of a trace. */
typedef struct cs_trace_rec {
    long iter;             /* 1-based within its start */
    int start;             /* 1-based start (filled by the solver layer) */
    int backtracks;
    double objective;      /* f at the forward–backward iterate */
    double residual;       /* ‖x⁺ − x‖/τ */
    double norm_residual;  /* residual / (max(‖∇f(x)‖, ‖x⁺ − x̂⁺‖/τ) + eps_n) */
    double tau;
    double rel_err;        /* the oracle's metric (‖x − x*‖/‖x*‖); NaN when unknown */
    int hit;               /* the oracle was satisfied at this iterate */
} cs_trace_rec;

/* One trial step of the backtracking line search (the ledger): the step
 * size tried, f at the trial point, the non-monotone bound it was held to
 * (max of the last `window` f values + ⟨Δx, ∇f⟩ + ‖Δx‖²/(2τ); the trial
 * passes when f − 1e-12 <= bound), and whether the step was taken: the
 * last trial of an iteration, the first one that passes, or the one after
 * max_backtracks shrinks even when it does not. bound is NaN without
 * backtracking. */
typedef struct cs_trial_rec {
    long iter;             /* 1-based within its start */
    int start;             /* 1-based start (filled by the solver layer) */
    int trial;             /* 1-based within the iteration */
    double tau, f, bound;
    int accepted;
} cs_trial_rec;

typedef struct cs_fista_opts {
    long maxit;           /* 10000 */
    int accelerate;       /* 1: FISTA momentum */
    int restart;          /* 1: momentum restart (with accelerate) */
    int adaptive;         /* 0; 1: BB steps when not accelerated */
    int backtrack;        /* 1 */
    double shrink;        /* 0: 0.5, or 0.2 when adaptive and not accelerated */
    int window;           /* 10 */
    int max_backtracks;   /* 20 */
    double tau0;          /* 0: 2/(10·L) with L estimated at two random points */
    cs_stop stop;
    double tol;           /* 1e-8 */
    double eps_r, eps_n;  /* 1e-8 */
    int ledger;           /* 0; 1: keep the trial steps of the last iteration */
} cs_fista_opts;
void cs_fista_opts_default(cs_fista_opts *o);

typedef struct cs_fista_fns {
    void *ctx;
    /* f and ∇f at x (grad may be NULL). CS_ENONFINITE ends the run as diverged. */
    int (*fg)(void *ctx, const double *x, double *f, double *grad, cs_err *err);
    /* Optional: fg with a gradient that also returns *gnorm = ‖∇f(x)‖, saving
     * the stepper a pass over the gradient each iteration. It must give the
     * same bits as the stepper's own norm (two 4-wide accumulators over
     * blocks of 8, then the scalar tail), so results do not depend on it. */
    int (*fg_gnorm)(void *ctx, const double *x, double *f, double *grad, double *gnorm,
                    cs_err *err);
    /* x = prox_{t·g}(z) of the nonsmooth term (here always a projection, g = 0 on
     * its set); NULL: identity. x never aliases z. */
    void (*prox)(void *ctx, const double *z, double *x, double t);
    /* Optional, only when prox is an affine projection: d = P₀(g), its linear
     * part. d never aliases g. */
    void (*dir)(void *ctx, const double *g, double *d);
    /* Optional oracle: returns 1 when x is a success; *metric gets the error
     * shown in the trace (NaN when none). */
    int (*oracle)(void *ctx, const double *x, double *metric);
    /* Optional, with dir: the oracle as a distance, measured in the step's
     * candidate pass instead of calling `oracle` (one pass less):
     * metric = ‖x − xstar‖/xstar_norm over all n entries, a hit when
     * metric < oracle_tol. xstar_norm > 0. */
    const double *xstar;
    double xstar_norm, oracle_tol;
} cs_fista_fns;

typedef struct cs_fista cs_fista;

int cs_fista_new(cs_fista **out, size_t n, const cs_fista_fns *fns, const cs_fista_opts *opts,
                 cs_err *err);
void cs_fista_free(cs_fista *s);

/* Begin a run at x0 (n entries). x0_feasible: x0 already lies in the prox's
 * set (lets the affine fast path start at once). rng draws the two random
 * points of the L estimate (2n normals) unless opts.tau0 > 0. */
int cs_fista_start(cs_fista *s, const double *x0, int x0_feasible, cs_rng *rng, cs_err *err);
/* cs_fista_start with L given (> 0, finite; opts.tau0 still wins): draws
 * nothing. For a stepper on other coordinates that keeps the L estimate of
 * the original variable. */
int cs_fista_start_L(cs_fista *s, const double *x0, int x0_feasible, double L, cs_err *err);
/* FASTA's estimate of the Lipschitz constant of ∇f, as cs_fista_start makes
 * it: ‖∇f(r1) − ∇f(r2)‖/‖r1 − r2‖ at two random points (n normals each from
 * rng, r1 first), at least 1e-6; 1 where f overflows there. work: four
 * arrays of n doubles (r1, r2 and the two gradients). */
int cs_fista_estimate_L(const cs_fista_fns *fns, size_t n, cs_rng *rng, double *const work[4],
                        double *L, cs_err *err);

/* One iteration. Returns 0 while running, 1 when the run has ended (see
 * cs_fista_end), <0 on error. Stepping an ended run returns 1 again. */
int cs_fista_step(cs_fista *s, cs_err *err);
/* The same iteration in two halves, for stepping several runs in lockstep:
 * begin returns (0) in *g the gradient whose P₀ image the step needs and in
 * *d where it goes (both NULL without a `dir` function); the caller fills d
 * as fns.dir would, then calls end, which returns what cs_fista_step does.
 * begin returns 1 on an ended run, <0 on error. */
int cs_fista_step_begin(cs_fista *s, const double **g, double **d, cs_err *err);
int cs_fista_step_end(cs_fista *s, cs_err *err);

cs_end cs_fista_end(const cs_fista *s);
long cs_fista_iters(const cs_fista *s);
const double *cs_fista_best(const cs_fista *s);        /* best iterate (x0 before any step) */
double cs_fista_best_objective(const cs_fista *s);     /* +Inf before any step */
long cs_fista_best_iter(const cs_fista *s);            /* the best iterate's iteration (0: x0) */
const double *cs_fista_current(const cs_fista *s);     /* last forward–backward iterate */
double cs_fista_tau(const cs_fista *s);                /* current step size */
double cs_fista_L(const cs_fista *s);                  /* the L estimate (or 1/tau0) */
const cs_trace_rec *cs_fista_last(const cs_fista *s);  /* record of the last step */
int cs_fista_oracle_hit(const cs_fista *s);            /* last iterate satisfied the oracle */
long cs_fista_total_backtracks(const cs_fista *s);
double cs_fista_max_residual(const cs_fista *s);       /* largest residual of this start */
/* The trial steps of the last iteration (opts.ledger; else none), oldest
 * first; iter is filled, start is 0. */
const cs_trial_rec *cs_fista_trials(const cs_fista *s, size_t *n);
/* Change the stopping rule of a run in place (maxit >= 1, tol >= 0): the
 * next step tests the new rule; the iterations so far stay. */
int cs_fista_set_stop(cs_fista *s, long maxit, cs_stop stop, double tol, cs_err *err);

#endif
