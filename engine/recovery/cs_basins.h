/* cs_basins.h — the basin explorer: run a problem's method from every start
 * of a grid over a 2D box (N = 2: the plane; N > 2: the slice through x*
 * along two coordinates, the others at x*'s values) and say where each run
 * ends:
 *   success        the solver's verdict: within 1e-2 (relative) of x*;
 *   other          feasible and on the target set (relative distance
 *                  < 1e-2), but not x*;
 *   spurious       a stationary point off the target set: the gradient
 *                  mapping is small (‖P₀∇f‖ <= 1e-3·‖∇f‖);
 *   not_converged  none of these when maxit ran out (or f cannot be
 *                  evaluated at the start).
 * End points are clustered (same class, within 2e-2·‖x*‖ of the cluster's
 * first member: every success falls in one). Starts run on a
 * worker pool, a grid row per item, each row on its own copy of the
 * problem: the result does not depend on the thread count. For built-in
 * regularizers on small problems this is the paper's "no spurious
 * stationary points" claim made visible, and where it fails it shows. */
#ifndef CS_BASINS_H
#define CS_BASINS_H

#include <stddef.h>
#include <stdint.h>

#include "cs_pool.h"
#include "cs_solver.h"

typedef enum cs_basin_class {
    CS_BASIN_SUCCESS = 0,
    CS_BASIN_OTHER,
    CS_BASIN_SPURIOUS,
    CS_BASIN_NOT_CONVERGED,
    CS_BASIN_CLASSES
} cs_basin_class;
/* "success", "other", "spurious", "not_converged" */
const char *cs_basin_class_name(int cls);

#define CS_BASINS_MAX_RES 1001
#define CS_BASINS_MAX_CLUSTERS 256

typedef struct cs_basins_spec {
    double x0, x1, y0, y1;      /* the box of starts */
    size_t res;                 /* res × res starts, 2..CS_BASINS_MAX_RES */
    size_t dims[2];             /* N > 2: the coordinates varied (0-based, distinct) */
    const double *centre;       /* N > 2: the slice's point (N entries; the other
                                   coordinates stay at it); NULL: x* */
    const cs_method *method;    /* parsed (cs_method_parse); NULL: the problem's */
    cs_solve_opts opts;         /* algo, mode, lambda, maxit (0: 2000); one start each */
    uint64_t seed, stream;      /* the solver's stream (its L estimates) */
    int threads;                /* 0: all cores */
    const cs_cancel *cancel;
    cs_progress_fn progress;    /* rows done of res */
    void *progress_user;
} cs_basins_spec;

typedef struct cs_basin_cluster {
    int cls;
    size_t count;
    size_t first;               /* the start (j*res + i) of its first member */
    double xy[2];               /* its first member's end point along dims */
    double rel_err;             /* of that end point to x* */
} cs_basin_cluster;

/* Plain data; free with cs_basins_free. Point k = j*res + i starts at
 * (xs[i], ys[j]). */
typedef struct cs_basins {
    size_t res, N;
    double x0, x1, y0, y1;
    size_t dims[2];
    long maxit;
    double *xs, *ys;
    int *cls;                   /* res*res classes */
    int *cluster;               /* res*res cluster indices (-1: beyond the cap) */
    double *end;                /* 2 per point: the end point along dims */
    long *iters;                /* iterations each run took */
    double *rel_err;            /* each end point's error to x* */
    double *endx;               /* N per point: every end point, all its coordinates */
    double *centre;             /* N > 2: the slice's point (x* or the spec's centre);
                                   NULL for N <= 2 */
    size_t counts[CS_BASIN_CLASSES];
    cs_basin_cluster *clusters; /* largest first */
    size_t nclusters;
} cs_basins;

/* Errors: a problem kind other than bin osb ter eig, a Douglas–Rachford
 * method (linf, l1: convex, one basin), a bad box or resolution, dims out
 * of range, CS_ECANCEL (nothing is returned then). */
int cs_basins_run(cs_basins **out, const cs_problem *prob, const cs_basins_spec *spec,
                  cs_err *err);
void cs_basins_free(cs_basins *b);
/* CSV: i,j,x,y,class,cluster,end_x,end_y,iters,rel_err, the `preamble`
 * (comment lines saying how it was made, each "# ...\n"; NULL: none), one
 * row per start (j outer); written atomically; cancel (may be NULL) polled
 * every row. */
int cs_basins_write_csv(const cs_basins *b, const char *path, const char *preamble,
                        const cs_cancel *cancel, cs_err *err);
#define CS_BASINS_CSV_HEADER "i,j,x,y,class,cluster,end_x,end_y,iters,rel_err"

#endif
