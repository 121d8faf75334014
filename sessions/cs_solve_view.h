/* cs_solve_view.h — a read-only look at the solver state of a session, for
 * front ends that draw it (the TUI's Solver, Landscape and Histogram
 * panels). Pointers stay valid until the next command runs. */
#ifndef CS_SOLVE_VIEW_H
#define CS_SOLVE_VIEW_H

#include <math.h>
#include <stddef.h>

#include "cs_fista.h"
#include "cs_interp.h"

typedef struct cs_solve_view {
    const char *kind;        /* problem kind: bin osb ter 2bit eig orth maxcut */
    size_t N, M, K;
    double scale;            /* x*'s scale (problem scale=; 1: as drawn) */
    double noise;            /* σ of the noise in b (problem noise=; 0: none) */
    double lambda;           /* the run's weight λ (2bit, maxcut, fit=ls); NaN: none */
    int fit_ls;              /* the run fits a noisy b (solve fit=ls) */
    const double *x;         /* current iterate (length n) */
    size_t n;
    const double *xstar;     /* ground truth (length n), NULL when unknown */
    long iter;               /* iterations of the current start */
    int start;               /* 1-based start (restart) number (0: none begun) */
    int max_starts;          /* the run's budget of starts */
    const char *method;      /* the method the run uses (NULL: no run yet) */
    const char *next_method; /* the one the next solve or step uses */
    const char *end;         /* how the last start ended: running, oracle, tolerance,
                                maxit, diverged */
    const char *stop;        /* the run's stopping rule (oracle, hybrid, ...) */
    long iters;              /* iterations over all starts */
    double final_rel_err;    /* the returned point's error when the run is done */
    /* the last iteration's trial steps (the Solver panel's ledger) */
    const cs_trial_rec *ledger;
    size_t nledger;
    double objective, residual, tau, rel_err;  /* rel_err NaN when unknown */
    int backtracks;
    int success, done;
    /* history of the current run, oldest first, for sparklines */
    const double *hist_objective, *hist_rel_err;
    size_t hist_len;
    /* 2-dimensional problems: the iterates of the current start recorded by
     * solve and step, its start point first, interleaved x,y (traj_len
     * points); NULL otherwise (every start's: cs_view_map's geometry) */
    const double *traj_xy;
    size_t traj_len;
    /* when the problem or run last changed (problem, solve, step, reset):
     * comparable with cs_train_view.seq, the larger is the more recent */
    long seq;
} cs_solve_view;

/* Fill v; returns 0 when a problem is set up, -1 otherwise. */
int cs_interp_solve_view(cs_interp *in, cs_solve_view *v);

/* The first point of the trajectory (point k is iteration k, point 0 the
 * start) from which it stays within 1e-3 (relative) of its last point:
 * where the current start settled; -1 without a trajectory. */
static inline long cs_solve_view_settled(const cs_solve_view *v)
{
    if (!v->traj_xy || v->traj_len < 2)
        return -1;
    const double *last = v->traj_xy + 2 * (v->traj_len - 1);
    double tol = 1e-3 * fmax(1.0, hypot(last[0], last[1]));
    long k = (long)v->traj_len - 1;
    while (k > 0 && hypot(v->traj_xy[2 * (k - 1)] - last[0],
                          v->traj_xy[2 * (k - 1) + 1] - last[1]) <= tol)
        k--;
    return k;
}

/* Where the current start settled for any N, from the iterates a front end
 * is shown one by one (cs_solve_view_settled needs the 2-D trajectory the
 * solver keeps): the iterate it first came within 1e-3 (relative) of and
 * stayed within since. Only consecutive iterations count: a jump of more
 * than one (step n=10, a rewind, a new start or run) starts it over, so
 * what it says holds for every iterate in between. */
typedef struct cs_solve_settle {
    double *at;    /* the iterate the later ones are compared with */
    size_t n, cap;
    int start;     /* the start and iteration it is from */
    long since;
    long last;     /* the iteration fed last (-1: none) */
} cs_solve_settle;

/* Feed the view after each command; returns the iteration since which the
 * iterate has stayed within 1e-3 (relative) of that iteration's point,
 * the current one when it moved, -1 without an iterate. */
long cs_solve_settle_feed(cs_solve_settle *s, const cs_solve_view *v);
void cs_solve_settle_free(cs_solve_settle *s);

#endif
