/* cs_solve_view.h — a read-only look at the solver state of a session, for
 * front ends that draw it (the TUI's Solver, Landscape and Histogram
 * panels). Pointers stay valid until the next command runs. */
#ifndef CS_SOLVE_VIEW_H
#define CS_SOLVE_VIEW_H

#include <stddef.h>

#include "cs_interp.h"

typedef struct cs_solve_view {
    const char *kind;        /* problem kind: bin osb ter 2bit eig orth maxcut */
    size_t N, M, K;
    const double *x;         /* current iterate (length n) */
    size_t n;
    const double *xstar;     /* ground truth (length n), NULL when unknown */
    long iter;               /* iterations of the current start */
    int start;               /* 1-based start (restart) number */
    double objective, residual, tau, rel_err;  /* rel_err NaN when unknown */
    int backtracks;
    int success, done;
    /* history of the current run, oldest first, for sparklines */
    const double *hist_objective, *hist_rel_err;
    size_t hist_len;
    /* 2-dimensional problems: the iterates of the current start recorded by
     * solve and step, its start point first, interleaved x,y (traj_len
     * points); NULL otherwise */
    const double *traj_xy;
    size_t traj_len;
    /* when the problem or run last changed (problem, solve, step, reset):
     * comparable with cs_train_view.seq, the larger is the more recent */
    long seq;
} cs_solve_view;

/* Fill v; returns 0 when a problem is set up, -1 otherwise. */
int cs_interp_solve_view(cs_interp *in, cs_solve_view *v);

#endif
