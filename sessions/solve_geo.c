/* solve_geo.c — the recovery geometry of the session's problem on a 2D
 * view (solve_state.h): what the Landscape panel, `landscape` and
 * `plot trajectory` draw over the regularizer; and a run's trace as plot
 * data (`solve`, `trace`). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_geometry.h"
#include "cs_plotstore.h"
#include "solve_state.h"

int solve_traj_wanted(const solve_state *st)
{
    return st->prob && st->kind != CS_PROB_MAXCUT && st->N * cs_problem_cols(st->prob) == 2;
}

const double *solve_path_of(const solve_state *st, int start, size_t *npoints)
{
    *npoints = 0;
    if (!st->solver || !solve_traj_wanted(st))
        return NULL;
    size_t n;
    const int *of;
    const double *xy = cs_solver_path(st->solver, &n, &of);
    size_t from = 0;
    while (from < n && of[from] != start)
        from++;
    size_t to = from;
    while (to < n && of[to] == start)
        to++;
    *npoints = to - from;
    return to > from ? xy + 2 * from : NULL;
}

/* Every start's path; the successful one (or, while running, the current
 * one) highlighted. */
static int geo_paths(const solve_state *st, solve_geo *out, cs_err *err)
{
    size_t n;
    const int *of;
    cs_solver_path(st->solver, &n, &of);
    if (n == 0)
        return CS_OK;
    int last = of[n - 1];
    out->paths = calloc((size_t)last, sizeof *out->paths);
    if (!out->paths)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    cs_solve_result r;
    cs_solver_result(st->solver, &r);
    int hl = r.done ? (r.success ? r.starts : 0) : r.starts;
    size_t m = 0;
    for (int s = 1; s <= last; s++) {
        size_t np;
        const double *xy = solve_path_of(st, s, &np);
        if (xy)
            out->paths[m++] = (cs_plot_path){.xy = xy, .n = np, .start = s, .success = s == hl};
    }
    out->g.paths = out->paths;
    out->g.npaths = m;
    return CS_OK;
}

int solve_geo_make(const solve_state *st, const double *at, size_t n_at, const size_t dims[2],
                   double x0, double x1, double y0, double y1, solve_geo *out, cs_err *err)
{
    memset(out, 0, sizeof *out);
    if (!st || !st->prob || st->kind == CS_PROB_MAXCUT || cs_problem_cols(st->prob) != 1)
        return CS_OK;
    size_t N = st->N, d[2] = {0, 1};
    if (N > 2) {
        if (!at || n_at != N)
            return CS_OK;
        d[0] = dims[0];
        d[1] = dims[1];
    }
    cs_landscape_curve c;
    if (cs_problem_constraint_slice(st->prob, N > 2 ? at : NULL, d, x0, x1, y0, y1, &c)) {
        out->g.constraint_n = c.n;
        memcpy(out->g.constraint_x, c.x, sizeof c.x);
        memcpy(out->g.constraint_y, c.y, sizeof c.y);
    }
    const double *xs = cs_problem_xstar(st->prob);
    if (xs) {
        out->g.has_xstar = 1;
        out->g.xstar[0] = xs[d[0]];
        out->g.xstar[1] = xs[d[1]];
    }
    if (!st->solver)
        return CS_OK;
    size_t n;
    const double *v = cs_solver_iterate(st->solver, &n);
    if (v) {
        int two = st->kind == CS_PROB_2BIT;
        out->g.has_iterate = 1;
        for (int k = 0; k < 2; k++)
            out->g.iterate[k] = two ? v[d[k]] + v[N + d[k]] : v[d[k]];
    }
    return solve_traj_wanted(st) ? geo_paths(st, out, err) : CS_OK;
}

void solve_geo_free(solve_geo *geo)
{
    free(geo->paths);
    memset(geo, 0, sizeof *geo);
}

int solve_store_trace(cs_interp *in, const cs_solver *s, const double *mark_iter,
                      const char *const *mark_label, size_t nmarks, cs_err *err)
{
    size_t n;
    const cs_trace_rec *t = cs_solver_trace(s, &n);
    if (n == 0)
        return CS_OK;
    double *buf = malloc(6 * n * sizeof *buf);
    if (!buf)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    double *it = buf, *obj = buf + n, *resid = buf + 2 * n, *tau = buf + 3 * n,
           *rel = buf + 4 * n, *starts = buf + 5 * n;
    int have_rel = 0;
    size_t nstarts = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && t[i].start != t[i - 1].start)
            starts[nstarts++] = (double)(i + 1);
        it[i] = (double)(i + 1);
        obj[i] = isfinite(t[i].objective) ? t[i].objective : 0.0;
        resid[i] = isfinite(t[i].residual) ? t[i].residual : 0.0;
        tau[i] = isfinite(t[i].tau) ? t[i].tau : 0.0;
        rel[i] = isfinite(t[i].rel_err) ? t[i].rel_err : 0.0;
        have_rel |= isfinite(t[i].rel_err);
    }
    cs_plot_trace_data d = {.n = n, .iter = it, .objective = obj, .residual = resid,
                            .tau = tau, .err_xstar = have_rel ? rel : NULL,
                            .name = cs_solver_method(s), .mark_iter = mark_iter,
                            .mark_label = mark_label, .nmarks = nmarks, .start_iter = starts,
                            .nstarts = nstarts, .err_line = have_rel ? 1e-2 : 0.0};
    int rc = cs_plotstore_trace(in, &d, err);
    free(buf);
    return rc;
}
