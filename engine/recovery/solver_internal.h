/* solver_internal.h — the solver's state, shared by its files, which call
 * down only: solver.c (setup, steps, accessors) → solver_lock.c (restarts
 * in lockstep) → solver_start.c (one start: its point, its judgement) →
 * solver_gram.c (eig, mu, ns on z) → solver_fns.c (the objectives,
 * projections and oracle handed to FISTA and Douglas–Rachford); and
 * solver_start.c → solver_measure.c (what a solution is measured by).
 * Not a public header. */
#ifndef CS_SOLVER_INTERNAL_H
#define CS_SOLVER_INTERNAL_H

#include "cs_dr.h"
#include "cs_reg_fast.h"
#include "cs_rng.h"
#include "cs_solver.h"

typedef struct solver_gram solver_gram;

struct cs_solver {
    cs_problem *prob;
    cs_kind kind;
    cs_solve_opts o;
    cs_algo algo;
    cs_method m;          /* the method (m.canon: its text NAME:k=v:...) */
    cs_reg *reg;
    size_t N, cols, nx;   /* x part: N×cols */
    size_t n;             /* variable length (extras; 2bit: 2N) */
    size_t extra;
    long maxit;
    int max_starts;
    double lambda, tol_ok;
    int fast;             /* the objective is the regularizer's fused kernel */
    const double *xstar;  /* oracle fast path: vector x* (cols = 1, not 2bit), else NULL */
    double xstar_norm;
    int blind;            /* no x* to judge by (a problem from arrays; not maxcut) */
    cs_fista *fista;      /* on x, or on z with gram */
    solver_gram *gram;    /* eig, mu, ns on the affine set's coordinates, else NULL */
    cs_fista **pool;      /* starts 2.. run in lockstep (lockstep_starts) */
    int npool;
    cs_fista_fns ffns;
    cs_fista_opts fopts;
    cs_dr *dr;
    uint64_t seed, stream;
    cs_rng rng;
    int start;            /* starts begun */
    int in_start;         /* a start is running */
    int done, success;
    long iters, last_iters;
    double seconds;
    cs_end end;
    double *x0, *xhat, *gtmp, *rtmp;
    int have_result;
    cs_solve_result res;  /* of the last finished start */
    cs_trace_rec *trace;
    size_t ntrace, captrace;
    cs_trial_rec *ledger;  /* every trial step (trace on, FISTA) */
    size_t nledger, capledger;
    double *path;         /* opts.path: x parts, start points first (nx each) */
    int *path_start;      /* the start of each point */
    size_t npath, cappath;
    double *start_x;      /* the first start's point when set (n entries), else NULL */
};

/* solver_fns.c: the callbacks FISTA and DR get (ctx = the solver). */
int solver_fg_reg(void *ctx, const double *x, double *f, double *grad, cs_err *err);
int solver_fgn_fast(void *ctx, const double *x, double *f, double *grad, double *gnorm,
                    cs_err *err);
int solver_fg_2bit(void *ctx, const double *y, double *f, double *grad, cs_err *err);
int solver_fg_maxcut(void *ctx, const double *x, double *f, double *grad, cs_err *err);
/* fit=ls: ½‖Ax − b‖² + λ·ℓ(x) (the data term on the x part only). */
int solver_fg_ls(void *ctx, const double *x, double *f, double *grad, cs_err *err);
void solver_prox_affine(void *ctx, const double *z, double *x, double t);
void solver_dir_affine(void *ctx, const double *g, double *d);
void solver_project_affine(void *ctx, const double *z, double *x);
void solver_prox_box(void *ctx, const double *z, double *x, double t);
int solver_oracle(void *ctx, const double *x, double *metric);
int solver_maxcut_hit(cs_solver *s, const double *x);
/* The x part of a full variable v (2bit: y1 + y2 into s->xhat). */
const double *solver_x_part(cs_solver *s, const double *v);

/* solver_measure.c: residual, target distance and scale of the x part x
 * of a solution into r (for every problem, with x* or without). */
void solver_measure(cs_solver *s, const double *x, cs_solve_result *r);
/* ‖Cx − ρx‖/(‖C‖_F‖x‖), ρ the Rayleigh quotient (nullspace: ρ = 0): 0 on
 * eigenvectors (solver_measure.c; basins classify with it too). */
double solver_eig_distance(const double *C, const double *x, size_t n, int nullspace);

/* solver_start.c: one start. */
int solver_begin_start(cs_solver *s, cs_err *err);
void solver_finish_start(cs_solver *s);
int solver_judge(cs_solver *s, const double *v, cs_solve_result *r);
/* A variable FISTA holds, on x (through z with gram). */
const double *solver_on_x(const cs_solver *s, const double *v);
/* opts.path: the x part of v as the next point of the current start. */
void solver_push_path(cs_solver *s, const double *v);

/* solver_gram.c: eig, mu and ns on z, where x = xp + Zz (see there). */
int solver_gram_eligible(const cs_solver *s, cs_mode mode);
int solver_gram_stop_needs_x(cs_stop stop);
/* *out NULL when the problem has no room to gain (M = N). */
int solver_gram_new(solver_gram **out, cs_solver *s, cs_err *err);
void solver_gram_free(solver_gram *g);
size_t solver_gram_len(const solver_gram *g);
int solver_gram_start(cs_solver *s, const double *x0, cs_err *err);
int solver_fg_gram(void *ctx, const double *v, double *f, double *grad, cs_err *err);
int solver_oracle_gram(void *ctx, const double *v, double *metric);
/* The variable v on z mapped to x (n entries, in the object's buffer). */
const double *solver_gram_var(const cs_solver *s, const double *v);

/* solver_lock.c: the remaining starts in lockstep, when allowed. */
int solver_lockstep_ok(const cs_solver *s);
int solver_lockstep_starts(cs_solver *s, cs_err *err);

#endif
