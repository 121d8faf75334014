/* solve_view.c — the read-only look at the solver state front ends draw
 * (cs_solve_view.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_solve_view.h"
#include "interp_internal.h"
#include "solve_state.h"

/* The current iterate's x part into the view's scratch. */
static void view_iterate(solve_state *st, cs_solve_view *v)
{
    size_t n, nx = st->N * cs_problem_cols(st->prob);
    const double *it = cs_solver_iterate(st->solver, &n);
    if (!it)
        return;
    if (st->view_cap < nx) {
        double *b = realloc(st->view_x, nx * sizeof *b);
        if (!b)
            return;
        st->view_x = b;
        st->view_cap = nx;
    }
    if (st->kind == CS_PROB_2BIT)
        for (size_t i = 0; i < nx; i++)
            st->view_x[i] = it[i] + it[nx + i];
    else
        memcpy(st->view_x, it, nx * sizeof *it);
    v->x = st->view_x;
}

/* The last record's fields and the current start's history. */
static void view_history(solve_state *st, cs_solve_view *v)
{
    size_t len;
    const cs_trace_rec *t = cs_solver_trace(st->solver, &len);
    if (!len || t[len - 1].start != v->start)
        return;
    const cs_trace_rec *l = &t[len - 1];
    v->iter = l->iter;
    v->objective = l->objective;
    v->residual = l->residual;
    v->tau = l->tau;
    v->rel_err = l->rel_err;
    v->backtracks = l->backtracks;
    size_t from = len;
    while (from > 0 && t[from - 1].start == l->start)
        from--;
    size_t h = len - from;
    if (st->hist_cap < h) {
        double *a = realloc(st->view_obj, h * sizeof *a);
        if (a)
            st->view_obj = a;
        double *b = realloc(st->view_err, h * sizeof *b);
        if (b)
            st->view_err = b;
        if (!a || !b)
            return;
        st->hist_cap = h;
    }
    for (size_t i = 0; i < h; i++) {
        st->view_obj[i] = t[from + i].objective;
        st->view_err[i] = t[from + i].rel_err;
    }
    v->hist_objective = st->view_obj;
    v->hist_rel_err = st->view_err;
    v->hist_len = h;
    size_t nl;
    const cs_trial_rec *lg = cs_solver_ledger(st->solver, &nl);
    size_t k = nl;
    while (k > 0 && lg[k - 1].iter == l->iter && lg[k - 1].start == l->start)
        k--;
    v->ledger = nl > k ? lg + k : NULL;
    v->nledger = nl - k;
}

int cs_interp_solve_view(cs_interp *in, cs_solve_view *v)
{
    memset(v, 0, sizeof *v);
    v->rel_err = v->objective = v->residual = v->tau = v->final_rel_err = v->lambda = NAN;
    solve_state *st = cs_interp_ext(in, CS_EXT_SOLVE);
    if (!st || !st->prob)
        return -1;
    static char next[1024];
    solve_next_method(in, st, next, sizeof next, NULL);
    v->next_method = next;
    v->kind = cs_problem_kind_name(st->kind);
    v->seq = st->seq;
    v->N = st->N;
    v->M = st->M;
    v->K = st->K;
    v->scale = cs_problem_scale(st->prob);
    v->noise = cs_problem_noise(st->prob);
    v->n = st->N * cs_problem_cols(st->prob);
    v->xstar = cs_problem_xstar(st->prob);
    if (!st->solver)
        return 0;
    cs_solve_result r;
    cs_solver_result(st->solver, &r);
    v->method = cs_solver_method(st->solver);
    v->lambda = cs_solver_lambda(st->solver);
    v->fit_ls = cs_solver_fit(st->solver) == CS_FIT_LS;
    v->stop = cs_stop_name(cs_solver_stop(st->solver));
    v->max_starts = cs_solver_max_starts(st->solver);
    v->start = r.starts;
    v->iter = r.last_iters;
    v->iters = r.iters;
    v->end = cs_end_name(r.end);
    v->success = r.success;
    v->done = r.done;
    if (r.done)
        v->final_rel_err = r.rel_err;
    view_iterate(st, v);
    v->traj_xy = solve_path_of(st, r.starts, &v->traj_len);
    if (!v->traj_xy)
        v->traj_len = 0;
    view_history(st, v);
    return 0;
}

/* ---- settling, for any N --------------------------------------------------------- */

static long settle_restart(cs_solve_settle *s, const cs_solve_view *v)
{
    if (s->cap < v->n) {
        double *b = realloc(s->at, v->n * sizeof *b);
        if (!b) {
            s->last = -1;
            return -1;
        }
        s->at = b;
        s->cap = v->n;
    }
    memcpy(s->at, v->x, v->n * sizeof *s->at);
    s->n = v->n;
    s->start = v->start;
    s->since = s->last = v->iter;
    return v->iter;
}

long cs_solve_settle_feed(cs_solve_settle *s, const cs_solve_view *v)
{
    if (!v->x || !v->n || v->start == 0) {
        s->last = -1;
        return -1;
    }
    if (s->last < 0 || v->n != s->n || v->start != s->start || v->iter != s->last + 1) {
        /* the same iteration again (a command that did not step): no news */
        if (s->last >= 0 && v->n == s->n && v->start == s->start && v->iter == s->last)
            return s->since;
        return settle_restart(s, v);
    }
    double d = 0, a = 0;
    for (size_t i = 0; i < v->n; i++) {
        d += (v->x[i] - s->at[i]) * (v->x[i] - s->at[i]);
        a += s->at[i] * s->at[i];
    }
    s->last = v->iter;
    if (sqrt(d) > 1e-3 * fmax(1.0, sqrt(a)))
        return settle_restart(s, v);
    return s->since;
}

void cs_solve_settle_free(cs_solve_settle *s)
{
    free(s->at);
    memset(s, 0, sizeof *s);
    s->last = -1;
}
