/* basins.c — the basin explorer (cs_basins.h). */
#include "cs_basins.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_dist.h"
#include "cs_file.h"
#include "cs_landscape.h"
#include "cs_parse.h"
#include "cs_proj.h"
#include "solver_internal.h"

#define ON_TARGET_TOL 1e-2     /* relative distance to the target set */
#define STATIONARY_TOL 1e-3    /* ‖P₀∇f‖ / ‖∇f‖ */
#define FEASIBLE_TOL 1e-6      /* ‖Ax − b‖ / max(‖b‖, 1) */
#define CLUSTER_TOL 2e-2       /* relative to ‖x*‖: the successes are one cluster */

const char *cs_basin_class_name(int cls)
{
    static const char *const names[CS_BASIN_CLASSES] = {"success", "other", "spurious",
                                                        "not_converged"};
    return cls >= 0 && cls < CS_BASIN_CLASSES ? names[cls] : "?";
}

void cs_basins_free(cs_basins *b)
{
    if (!b)
        return;
    free(b->xs);
    free(b->ys);
    free(b->cls);
    free(b->cluster);
    free(b->end);
    free(b->iters);
    free(b->rel_err);
    free(b->endx);
    free(b->centre);
    free(b->clusters);
    free(b);
}

typedef struct job {
    const cs_problem *prob;
    const cs_basins_spec *sp;
    cs_solve_opts opts;
    cs_basins *b;
    double *endx;       /* nx per point: the end points, for clustering */
    size_t nx;
} job;

/* The class of the end of a finished run (v: its full variable). */
static int classify(cs_solver *s, const cs_solve_result *r, const double *v, double *g,
                    double *d)
{
    if (r->success)
        return CS_BASIN_SUCCESS;
    const double *x = solver_x_part(s, v);
    const double *C = cs_problem_C(s->prob);
    double dist = cs_reg_family(s->reg) != CS_TARGET_EIG ? cs_reg_target_distance(s->reg, x, s->nx)
                  : C                                    ? solver_eig_distance(C, x, s->nx, 0)
                                                         : NAN;
    const double *b = cs_problem_b(s->prob);
    double bn = 0.0;
    for (size_t i = 0; i < cs_problem_M(s->prob); i++)
        bn += b[i] * b[i];
    double res = cs_affine_residual(cs_problem_affine(s->prob), x);
    int feasible = res <= FEASIBLE_TOL * fmax(sqrt(bn), 1.0);
    if (feasible && dist <= ON_TARGET_TOL)
        return CS_BASIN_OTHER;
    double f;
    cs_err sub;
    if (solver_fg_reg(s, v, &f, g, &sub))
        return CS_BASIN_NOT_CONVERGED;
    solver_dir_affine(s, g, d);
    double gg = 0.0, dd = 0.0;
    for (size_t i = 0; i < s->n; i++) {
        gg += g[i] * g[i];
        dd += d[i] * d[i];
    }
    if (feasible && sqrt(dd) <= STATIONARY_TOL * sqrt(gg))
        return CS_BASIN_SPURIOUS;
    return CS_BASIN_NOT_CONVERGED;
}

/* The start of point (i, j): (x, y) in the plane, or the centre (x*
 * unless given) with coordinates dims replaced. */
static void start_point(const job *jb, size_t i, size_t j, double *x0)
{
    const cs_basins *b = jb->b;
    if (b->N > 2)
        memcpy(x0, b->centre, jb->nx * sizeof *x0);
    x0[b->dims[0]] = b->xs[i];
    x0[b->dims[1]] = b->ys[j];
}

/* Row j of the grid, on its own copy of the problem: 0, 1 when cancelled. */
static int run_row(void *ctx, size_t j, cs_err *err)
{
    job *jb = ctx;
    cs_basins *b = jb->b;
    cs_problem *p = NULL;
    cs_solver *s = NULL;
    double *x0 = malloc(jb->nx * sizeof *x0);
    int rc = x0 ? cs_problem_clone(&p, jb->prob, err) : cs_fail(err, CS_ENOMEM, "out of memory");
    if (!rc)
        rc = cs_solver_new(&s, p, jb->sp->method, &jb->opts, jb->sp->seed, jb->sp->stream, err);
    double *g = s ? malloc(s->n * sizeof *g) : NULL, *d = s ? malloc(s->n * sizeof *d) : NULL;
    if (!rc && (!g || !d))
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < b->res; i++) {
        size_t k = j * b->res + i;
        cs_solve_result r;
        start_point(jb, i, j, x0);
        if ((rc = cs_solver_set_start(s, x0, jb->nx, err)) || (rc = cs_solver_reset(s, err)))
            break;
        rc = cs_solver_solve(s, &r, err);
        if (rc == CS_ECANCEL)
            rc = 1;
        if (rc == CS_ENONFINITE) {
            /* the objective cannot be evaluated at this start (si at 0): it goes nowhere */
            rc = CS_OK;
            memcpy(jb->endx + k * jb->nx, x0, jb->nx * sizeof *x0);
            b->end[2 * k] = x0[b->dims[0]];
            b->end[2 * k + 1] = x0[b->dims[1]];
            b->iters[k] = 0;
            b->rel_err[k] = cs_problem_rel_err(p, x0);
            b->cls[k] = CS_BASIN_NOT_CONVERGED;
            continue;
        }
        if (rc)
            break;
        const double *v = cs_fista_best(s->fista);
        const double *xe = cs_solver_x(s, NULL);
        memcpy(jb->endx + k * jb->nx, xe, jb->nx * sizeof *xe);
        b->end[2 * k] = xe[b->dims[0]];
        b->end[2 * k + 1] = xe[b->dims[1]];
        b->iters[k] = r.iters;
        b->rel_err[k] = r.rel_err;
        b->cls[k] = classify(s, &r, v, g, d);
    }
    free(x0);
    free(g);
    free(d);
    cs_solver_free(s);
    cs_problem_free(p);
    return rc;
}

static int cmp_cluster(const void *a, const void *b)
{
    const cs_basin_cluster *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Clusters in point order: a point joins the first cluster of its class
 * whose first member lies within the tolerance. */
static int cluster(const job *jb, cs_err *err)
{
    cs_basins *b = jb->b;
    size_t np = b->res * b->res, nx = jb->nx;
    /* without x* (a problem from files) the scale is 1 */
    double scale = cs_problem_xstar(jb->prob) ? cs_problem_xstar_norm(jb->prob) : 1.0;
    double tol = CLUSTER_TOL * fmax(scale, 1e-12), tol2 = tol * tol;
    b->clusters = calloc(CS_BASINS_MAX_CLUSTERS, sizeof *b->clusters);
    if (!b->clusters)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    for (size_t k = 0; k < np; k++) {
        const double *x = jb->endx + k * nx;
        b->counts[b->cls[k]]++;
        b->cluster[k] = -1;
        for (size_t c = 0; c < b->nclusters && b->cluster[k] < 0; c++) {
            cs_basin_cluster *cl = &b->clusters[c];
            const double *y = jb->endx + cl->first * nx;
            double d2 = 0.0;
            for (size_t i = 0; i < nx; i++)
                d2 += (x[i] - y[i]) * (x[i] - y[i]);
            if (cl->cls == b->cls[k] && d2 <= tol2) {
                cl->count++;
                b->cluster[k] = (int)c;
            }
        }
        if (b->cluster[k] < 0 && b->nclusters < CS_BASINS_MAX_CLUSTERS) {
            b->clusters[b->nclusters] = (cs_basin_cluster){
                .cls = b->cls[k], .count = 1, .first = k,
                .xy = {b->end[2 * k], b->end[2 * k + 1]}, .rel_err = b->rel_err[k]};
            b->cluster[k] = (int)b->nclusters++;
        }
    }
    /* largest first (ties: in point order); renumber the points' indices */
    cs_basin_cluster sorted[CS_BASINS_MAX_CLUSTERS];
    int map[CS_BASINS_MAX_CLUSTERS];
    memcpy(sorted, b->clusters, b->nclusters * sizeof *sorted);
    qsort(sorted, b->nclusters, sizeof *sorted, cmp_cluster);
    for (size_t c = 0; c < b->nclusters; c++)
        for (size_t o = 0; o < b->nclusters; o++)
            if (b->clusters[o].first == sorted[c].first)
                map[o] = (int)c;
    memcpy(b->clusters, sorted, b->nclusters * sizeof *sorted);
    for (size_t k = 0; k < np; k++)
        if (b->cluster[k] >= 0)
            b->cluster[k] = map[b->cluster[k]];
    return CS_OK;
}

static int check_spec(const cs_problem *prob, const cs_basins_spec *sp, cs_err *err)
{
    cs_kind kind = cs_problem_kind(prob);
    if (kind != CS_PROB_BIN && kind != CS_PROB_OSB && kind != CS_PROB_TER && kind != CS_PROB_EIG)
        return cs_fail(err, CS_EUNSUPPORTED, "basins: for bin, osb, ter and eig problems, not %s",
                       cs_problem_kind_name(kind));
    if (sp->res < 2 || sp->res > CS_BASINS_MAX_RES)
        return cs_fail_key(err, CS_EINVAL, "res", "res=%zu: expected 2 to %d", sp->res,
                           CS_BASINS_MAX_RES);
    size_t N = cs_problem_N(prob);
    if (N > 2 && (sp->dims[0] >= N || sp->dims[1] >= N || sp->dims[0] == sp->dims[1]))
        return cs_fail_key(err, CS_EINVAL, "dims", "dims: two different coordinates in 1..%zu",
                           N);
    /* N > 2: the slice goes through x* or the centre given; a problem from
     * files may have no x* */
    if (N > 2 && !sp->centre && !cs_problem_xstar(prob))
        return cs_fail(err, CS_EUNSUPPORTED, "basins: N = %zu > 2 and the problem has no x*: "
                       "give the centre of the slice (at=v1,...,vN or at=FILE), or problem "
                       "file xstar=PATH", N);
    return CS_OK;
}

static cs_basins *alloc_basins(const cs_problem *prob, const cs_basins_spec *sp)
{
    cs_basins *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    size_t np = sp->res * sp->res;
    b->res = sp->res;
    b->N = cs_problem_N(prob);
    b->x0 = sp->x0, b->x1 = sp->x1, b->y0 = sp->y0, b->y1 = sp->y1;
    b->dims[0] = b->N > 2 ? sp->dims[0] : 0;
    b->dims[1] = b->N > 2 ? sp->dims[1] : 1;
    b->xs = malloc(sp->res * sizeof *b->xs);
    b->ys = malloc(sp->res * sizeof *b->ys);
    b->cls = malloc(np * sizeof *b->cls);
    b->cluster = malloc(np * sizeof *b->cluster);
    b->end = malloc(2 * np * sizeof *b->end);
    b->iters = malloc(np * sizeof *b->iters);
    b->rel_err = malloc(np * sizeof *b->rel_err);
    if (b->N > 2 && (b->centre = malloc(b->N * sizeof *b->centre)))
        memcpy(b->centre, sp->centre ? sp->centre : cs_problem_xstar(prob),
               b->N * sizeof *b->centre);
    if (!b->xs || !b->ys || !b->cls || !b->cluster || !b->end || !b->iters || !b->rel_err ||
        (b->N > 2 && !b->centre)) {
        cs_basins_free(b);
        return NULL;
    }
    return b;
}

int cs_basins_run(cs_basins **out, const cs_problem *prob, const cs_basins_spec *sp,
                  cs_err *err)
{
    *out = NULL;
    int rc = check_spec(prob, sp, err);
    if (rc)
        return rc;
    job jb = {.prob = prob, .sp = sp, .opts = sp->opts, .nx = cs_problem_N(prob)};
    jb.opts.restarts = 1;
    jb.opts.trace = 0;
    jb.opts.path = 0;
    jb.opts.maxit = sp->opts.maxit > 0 ? sp->opts.maxit : 2000;
    jb.opts.cancel = sp->cancel;
    /* the method must be one FISTA runs */
    cs_problem *probe = NULL;
    cs_solver *s = NULL;
    rc = cs_problem_clone(&probe, prob, err);
    if (!rc)
        rc = cs_solver_new(&s, probe, sp->method, &jb.opts, sp->seed, sp->stream, err);
    if (!rc && cs_solver_algo(s) == CS_ALGO_DR)
        rc = cs_fail_key(err, CS_EUNSUPPORTED, "reg", "basins: %s runs Douglas-Rachford on a "
                         "convex problem (one basin); take a CS regularizer",
                         cs_solver_method(s));
    cs_solver_free(s);
    cs_problem_free(probe);
    if (rc)
        return rc;
    cs_basins *b = alloc_basins(prob, sp);
    jb.endx = malloc(sp->res * sp->res * jb.nx * sizeof *jb.endx);
    if (!b || !jb.endx) {
        free(jb.endx);
        cs_basins_free(b);
        return cs_fail(err, CS_ENOMEM, "basins: out of memory for %zu x %zu starts", sp->res,
                       sp->res);
    }
    b->maxit = jb.opts.maxit;
    jb.b = b;
    rc = cs_grid_axis("x", sp->x0, sp->x1, sp->res, b->xs, err);
    if (!rc)
        rc = cs_grid_axis("y", sp->y0, sp->y1, sp->res, b->ys, err);
    if (!rc)
        rc = cs_dist_pool_run(sp->res, sp->threads, run_row, &jb, sp->cancel, sp->progress,
                              sp->progress_user, err);
    /* rows run on several ranks: every rank gets every row, in order */
    size_t R = sp->res;
    if (!rc)
        rc = cs_dist_gather_items(b->cls, R * sizeof *b->cls, R, err);
    if (!rc)
        rc = cs_dist_gather_items(b->end, 2 * R * sizeof *b->end, R, err);
    if (!rc)
        rc = cs_dist_gather_items(b->iters, R * sizeof *b->iters, R, err);
    if (!rc)
        rc = cs_dist_gather_items(b->rel_err, R * sizeof *b->rel_err, R, err);
    if (!rc)
        rc = cs_dist_gather_items(jb.endx, R * jb.nx * sizeof *jb.endx, R, err);
    if (!rc && cs_cancelled(sp->cancel))
        rc = cs_fail(err, CS_ECANCEL, "basins: interrupted");
    if (!rc)
        rc = cluster(&jb, err);
    b->endx = jb.endx;   /* kept for basins ends= */
    if (rc) {
        cs_basins_free(b);
        return rc;
    }
    *out = b;
    return CS_OK;
}

int cs_basins_write_csv(const cs_basins *b, const char *path, const char *preamble,
                        const cs_cancel *cancel, cs_err *err)
{
    cs_afile af;
    int rc = cs_afile_open(&af, path, 0, err);
    if (rc)
        return rc;
    af.cancel = cancel;
    fprintf(af.f, "%s\n", CS_BASINS_CSV_HEADER);
    if (preamble)
        fputs(preamble, af.f);
    char num[6][40];
    for (size_t j = 0; j < b->res && !(rc = cs_afile_poll(&af, err)); j++)
        for (size_t i = 0; i < b->res; i++) {
            size_t k = j * b->res + i;
            cs_format_double(num[0], sizeof num[0], b->xs[i]);
            cs_format_double(num[1], sizeof num[1], b->ys[j]);
            cs_format_double(num[2], sizeof num[2], b->end[2 * k]);
            cs_format_double(num[3], sizeof num[3], b->end[2 * k + 1]);
            cs_format_double(num[4], sizeof num[4], b->rel_err[k]);
            fprintf(af.f, "%zu,%zu,%s,%s,%s,%d,%s,%s,%ld,%s\n", i, j, num[0], num[1],
                    cs_basin_class_name(b->cls[k]), b->cluster[k], num[2], num[3], b->iters[k],
                    num[4]);
        }
    if (!rc)
        rc = cs_afile_commit(&af, err);
    if (rc)
        cs_afile_abort(&af);
    return rc;
}
