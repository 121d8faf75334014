/* cs_solver.h — a problem bound to a method: what `solve`, `step`, `reset`
 * and `trace` drive, and what a sweep runs per trial.
 *
 * A method is a regularizer with its parameters (cs_method.h: parsed once
 * from `bin`, `beta:beta=learn`, `holder p=2 q=2 r=1`, ...).
 * `linf` and `l1` run Douglas–Rachford (algo AUTO), everything else FISTA.
 * The objective per problem kind:
 *   bin osb ter eig   min ℓ(x) s.t. Ax = b      (extra coordinates — β, μ — free)
 *   orth              min ℓ_om(X) s.t. AX = B  (default method `om`)
 *   2bit              min ‖A(y1 + y2) − b‖² + λ·ℓequ(y1, y2), λ = 1e-5, unconstrained
 *   maxcut            min −ℓ_MC(x) + λ·ℓ(x) s.t. |x_i| ≤ 1 (default `bin`; λ = 1e-7,
 *                     1 for the built-in toy graphs)
 * Defaults follow the paper's code: accelerated FISTA with restart (adaptive
 * BB steps for 2bit and maxcut), 1e4 iterations (1e3 for 2bit and orth), up
 * to 10 starts for bin, eig and 2bit, one for osb, ter, orth, maxcut and DR.
 * Starts: x0 = P(randn) (extra coordinates start at mean(r²)); osb and ter
 * take their first start unprojected; 2bit randn; orth the singular vectors
 * of a Gaussian matrix; maxcut sign(randn); DR x0 = randn, z0 = 0.
 *
 * eig, mu and ns on bin and eig problems run FISTA on the affine set's
 * coordinates z (x = xp + Zz; solver_gram.c) unless a trace, a path, a
 * start point of the caller's, adaptive steps or a stop rule normalized by
 * ‖∇f‖ asks for x: the same points to rounding, at a fraction of the cost.
 *
 * `solve` is a loop of `step`s; a failed start is followed by the next one
 * until success or the start budget is spent. All randomness comes from the
 * stream (seed, stream): reset + solve reproduces a run exactly.
 *
 * fit (bin osb ter eig): AFFINE, the default, is the above: min ℓ(x) s.t.
 * Ax = b. LS is for a noisy b, where Ax = b is the wrong constraint:
 * min ½‖Ax − b‖² + λ·ℓ(x) by FISTA without a projection (λ = opts.lambda,
 * default CS_FIT_LS_LAMBDA; the same start points, L estimate and
 * backtracking). Douglas–Rachford (linf, l1) fits only AFFINE.
 *
 * A problem without x* (cs_problem_new_arrays): the oracle cannot judge,
 * so stop=oracle (the default) means normalized (fit=affine) or hybrid
 * (fit=ls: an unconstrained step's normalized residual stays near 1 until
 * the gradient vanishes), and a start succeeds when its solution is on the
 * target set: target_dist <= success_tol and (fit=affine) residual <= 1e-6.
 * Every result reports what is measured: the residual, the distance to the
 * target set and the scale of its nearest point. */
#ifndef CS_SOLVER_H
#define CS_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "cs_cancel.h"
#include "cs_error.h"
#include "cs_fista.h"
#include "cs_method.h"
#include "cs_problem.h"
#include "cs_reg.h"

typedef enum cs_algo { CS_ALGO_AUTO = 0, CS_ALGO_FISTA, CS_ALGO_DR } cs_algo;
typedef enum cs_mode { CS_MODE_DEFAULT = 0, CS_MODE_ACCEL, CS_MODE_ADAPTIVE, CS_MODE_PLAIN } cs_mode;
typedef enum cs_fit { CS_FIT_AFFINE = 0, CS_FIT_LS } cs_fit;
/* λ of fit=ls when opts.lambda is 0 */
#define CS_FIT_LS_LAMBDA 0.1

const char *cs_algo_name(cs_algo algo);                 /* "auto", "fista", "dr" */
int cs_algo_parse(const char *name, cs_algo *algo, cs_err *err);
const char *cs_mode_name(cs_mode mode);                 /* "default", "accel", ... */
int cs_mode_parse(const char *name, cs_mode *mode, cs_err *err);
const char *cs_fit_name(cs_fit fit);                    /* "affine", "ls" */
int cs_fit_parse(const char *name, cs_fit *fit, cs_err *err);

/* Per problem kind, as the paper's code runs it: the one table the solver,
 * the sweeps and the commands read. */
typedef struct cs_kind_defaults {
    const char *method;  /* the regularizer (method text) */
    long maxit;
    int starts;          /* at most this many starts (Douglas–Rachford: always 1) */
    double lambda;       /* 2bit, maxcut: the weight of ℓ (a graph may carry its own); NaN: none */
    cs_mode mode;        /* the FISTA variant */
    cs_stop stop;
    size_t N;            /* `problem` without N= */
} cs_kind_defaults;
const cs_kind_defaults *cs_kind_defaults_of(cs_kind kind);
/* The kind's default method (its `method` text) as a value. */
void cs_kind_method(cs_kind kind, cs_method *out);

typedef struct cs_solve_opts {
    cs_algo algo;
    cs_mode mode;       /* FISTA variant (default per problem) */
    long maxit;         /* 0: problem default */
    cs_stop stop;       /* 0 = oracle */
    double tol;         /* 0: 1e-8 */
    int restarts;       /* maximum starts; 0: problem default (DR always 1) */
    double lambda;      /* 2bit / maxcut / fit=ls weight of ℓ; 0: default */
    double dr_t;        /* 0: 10 for linf, 1 for l1 */
    double success_tol; /* 0: 1e-2 */
    int trace;          /* keep every step's record, and (FISTA) every trial step's */
    int path;           /* keep the x part of every start point and iterate */
    int sequential_starts; /* 1: restarts one after another, never in lockstep
                              (same results; for tests and benchmarks) */
    int generic_reg;    /* 1: always evaluate through cs_reg_eval (no built-in
                           fast kernel for bin/osb/ter, no cs_reg_eval_fast,
                           eig/mu/ns on x) */
    const cs_cancel *cancel; /* solve returns CS_ECANCEL when set */
    cs_fit fit;         /* AFFINE (0): min ℓ s.t. Ax = b; LS: min ½‖Ax − b‖² + λℓ */
} cs_solve_opts;

typedef struct cs_solve_result {
    int done;           /* the run has ended (success or starts spent) */
    int success;        /* judged against x*; without x*: on the target set (above) */
    double rel_err;     /* ‖x̂ − x*‖/‖x*‖ (2bit: x̂ = y1 + y2); NaN for maxcut and without x* */
    double orth_err;    /* orth: ‖X̂ᵀX̂ − I‖_F/√K; NaN otherwise */
    double objective;   /* FISTA: best objective; DR: ‖x̂‖∞ or ‖x̂‖₁ */
    double cut;         /* maxcut: ℓ_MC(x̂) (the paper's number); NaN otherwise */
    double cut_rounded; /* maxcut: ℓ_MC(sign(x̂)) */
    double cut_start;   /* maxcut: ℓ_MC at the start point */
    long iters;         /* iterations over all starts */
    long last_iters;    /* iterations of the last start */
    long best_iter;     /* FISTA: the iteration of the last start whose iterate is returned
                           (the best objective); DR: the last iteration */
    int starts;         /* starts used */
    cs_end end;         /* of the last start */
    double seconds;     /* time spent stepping */
    /* measured on x̂, with or without x* (NaN before a start has finished): */
    double residual;    /* ‖Ax̂ − b‖/‖b‖ (orth: Frobenius); NaN for maxcut */
    double target_dist; /* ‖x̂ − q‖/‖x̂‖, q the nearest point of the regularizer's target
                           set (bin osb ter: cs_target_distance; eig: ‖Cx − ρx‖/(‖C‖‖x‖);
                           2bit and other level sets: the least-squares fit below);
                           NaN where the set has no such measure */
    double scale;       /* the scale a of q (bin: mean |x̂_i|; eig: ‖x̂‖): the
                           least-squares scale of the nearest level point */
} cs_solve_result;

typedef struct cs_solver cs_solver;

/* The problem must outlive the solver and is used by one thread at a time.
 * method (parsed, cs_method_parse; copied) NULL: the problem's default
 * (bin osb ter eig 2bit→equ orth→om maxcut→bin). */
int cs_solver_new(cs_solver **out, cs_problem *prob, const cs_method *method,
                  const cs_solve_opts *opts, uint64_t seed, uint64_t stream, cs_err *err);
void cs_solver_free(cs_solver *s);

/* Back to before the first start (same random stream, trace cleared). */
int cs_solver_reset(cs_solver *s, cs_err *err);
/* Up to n iterations (a new start begins as needed). *done_steps (may be
 * NULL) gets the count; returns 0, or <0 on error. */
int cs_solver_step(cs_solver *s, long n, long *done_steps, cs_err *err);
/* Step until done; fills res (may be NULL). */
int cs_solver_solve(cs_solver *s, cs_solve_result *res, cs_err *err);
int cs_solver_done(const cs_solver *s);
void cs_solver_result(const cs_solver *s, cs_solve_result *res);

/* The solution x̂ (N×cols; for a run in progress, the best iterate of the
 * current start; for 2bit, y1 + y2). */
const double *cs_solver_x(cs_solver *s, size_t *n);
/* The full variable of the current start's latest iterate (with extras; 2bit y1,y2). */
const double *cs_solver_iterate(const cs_solver *s, size_t *n);
/* The point the current start began from (same layout and length as
 * cs_solver_iterate, before any projection FISTA makes on its first step);
 * NULL before the first start. For drawing trajectories. */
const double *cs_solver_start_point(const cs_solver *s, size_t *n);
const cs_trace_rec *cs_solver_trace(const cs_solver *s, size_t *len);
/* Every trial step of the backtracking line search of the iterations so
 * far (opts.trace; FISTA only: Douglas–Rachford has none), oldest first. */
const cs_trial_rec *cs_solver_ledger(const cs_solver *s, size_t *len);
/* opts.path: every start point and iterate of the run so far, nx entries
 * each (the x part: 2bit y1 + y2, no extra coordinates), in order; a start
 * point first for every start; (*start_of)[i] is the 1-based start of
 * point i. NULL (0 points) without opts.path. */
const double *cs_solver_path(const cs_solver *s, size_t *npoints, const int **start_of);
/* The largest residual of the current start so far (the ratio rule's
 * denominator); NaN before the first start. */
double cs_solver_max_residual(const cs_solver *s);

/* Begin the first start at x (len entries: the variable's n, or for all
 * kinds but 2bit its x part, the extra coordinates then set as for a random
 * start) instead of a random point; FISTA's first step projects it, as any
 * start off the feasible set. Later starts are random. x NULL: random
 * again. Takes effect at the next first start (after reset). */
int cs_solver_set_start(cs_solver *s, const double *x, size_t len, cs_err *err);
/* Begin the next start now, when none is running and the run is not done
 * (a step would begin it): its start point becomes visible. */
int cs_solver_begin(cs_solver *s, cs_err *err);
/* Back to iteration k (0 <= k <= its iterations) of the current start: a
 * reset and a replay of the iterations before it (the solver is a
 * deterministic stepper, so the next step continues bit for bit as the
 * first time); at k = 0 the start is begun. */
int cs_solver_rewind(cs_solver *s, long k, cs_err *err);
/* Change maxit, the stopping rule and tol of the run in place (maxit <= 0:
 * the problem's default; tol <= 0: 1e-8): the next step of the current
 * start tests the new rule (a start that has ended stays ended). */
int cs_solver_set_stop(cs_solver *s, long maxit, cs_stop stop, double tol, cs_err *err);

const char *cs_solver_method(const cs_solver *s);   /* canonical method text */
cs_algo cs_solver_algo(const cs_solver *s);          /* FISTA or DR */
long cs_solver_maxit(const cs_solver *s);
int cs_solver_max_starts(const cs_solver *s);
double cs_solver_lambda(const cs_solver *s);         /* 2bit / maxcut / fit=ls; NaN otherwise */
cs_fit cs_solver_fit(const cs_solver *s);
cs_stop cs_solver_stop(const cs_solver *s);
double cs_solver_tol(const cs_solver *s);
const cs_problem *cs_solver_problem(const cs_solver *s);

#endif
