/* solver_start.c — one start of a solve: its start point, and how it ended
 * (error, cut, success). Below solver.c (the step loop) and solver_lock.c
 * (the starts in lockstep), which both begin and finish starts here. */
#include "solver_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_proj.h"

/* A variable FISTA holds, on x. */
const double *solver_on_x(const cs_solver *s, const double *v)
{
    return s->gram && v ? solver_gram_var(s, v) : v;
}

/* The first start from the caller's point (cs_solver_set_start): taken
 * as it is (FISTA's first step projects it), extra coordinates as a random
 * start sets them. */
static int given_start(cs_solver *s)
{
    double *x0 = s->x0;
    memcpy(x0, s->start_x, s->n * sizeof *x0);
    if (s->algo == CS_ALGO_DR)
        return 1;
    return s->kind == CS_PROB_2BIT;
}

static int begin_start_point(cs_solver *s, cs_err *err)
{
    double *x0 = s->x0;
    size_t n = s->n, nx = s->nx;
    s->start++;
    s->last_iters = 0;
    int feasible = 1;
    if (s->start == 1 && s->start_x) {
        feasible = given_start(s);
        if (s->algo == CS_ALGO_DR)
            return cs_dr_start(s->dr, x0, err);
        if (s->kind == CS_PROB_MAXCUT)
            s->res.cut_start = cs_graph_cut(cs_problem_graph(s->prob), x0);
        return cs_fista_start(s->fista, x0, feasible, &s->rng, err);
    }
    if (s->algo == CS_ALGO_DR) {
        cs_rng_normal_fill(&s->rng, x0, n);
        return cs_dr_start(s->dr, x0, err);
    }
    switch (s->kind) {
    case CS_PROB_2BIT:
        cs_rng_normal_fill(&s->rng, x0, n);
        break;
    case CS_PROB_ORTH: {
        int rc = cs_random_orthonormal(&s->rng, s->N, s->cols, x0, err);
        if (rc)
            return rc;
        feasible = 0;
        break;
    }
    case CS_PROB_MAXCUT:
        cs_rng_normal_fill(&s->rng, x0, n);
        for (size_t i = 0; i < n; i++)
            x0[i] = x0[i] > 0 ? 1.0 : (x0[i] < 0 ? -1.0 : 0.0);
        break;
    default: {
        cs_rng_normal_fill(&s->rng, x0, nx);
        double r2 = 0.0;
        for (size_t i = 0; i < nx; i++)
            r2 += x0[i] * x0[i];
        for (size_t i = nx; i < n; i++)
            x0[i] = r2 / (double)nx;
        if ((s->kind == CS_PROB_OSB || s->kind == CS_PROB_TER) && s->start == 1) {
            feasible = 0;
        } else {
            cs_affine_project(cs_problem_affine(s->prob), x0, x0);
        }
        if (s->gram)
            return solver_gram_start(s, x0, err);
    }
    }
    if (s->kind == CS_PROB_MAXCUT)
        s->res.cut_start = cs_graph_cut(cs_problem_graph(s->prob), x0);
    return cs_fista_start(s->fista, x0, feasible, &s->rng, err);
}

/* opts.path: the x part of v as the next point, of the current start. */
void solver_push_path(cs_solver *s, const double *v)
{
    if (!s->o.path || !v)
        return;
    if (s->npath == s->cappath) {
        size_t c = s->cappath ? 2 * s->cappath : 1024;
        double *p = realloc(s->path, c * s->nx * sizeof *p);
        if (p)
            s->path = p;
        int *q = p ? realloc(s->path_start, c * sizeof *q) : NULL;
        if (q)
            s->path_start = q;
        if (!p || !q)
            return;
        s->cappath = c;
    }
    const double *xp = solver_x_part(s, v);
    memcpy(s->path + s->npath * s->nx, xp, s->nx * sizeof *xp);
    s->path_start[s->npath++] = s->start;
}

int solver_begin_start(cs_solver *s, cs_err *err)
{
    int rc = begin_start_point(s, err);
    if (!rc)
        solver_push_path(s, s->x0);
    return rc;
}

/* A solution on Ax = b: ‖Ax − b‖/‖b‖ at most this (as basins judge it) */
#define FEASIBLE_TOL 1e-6

/* Errors, measures, cuts and success of the solution v of a start, into r. */
int solver_judge(cs_solver *s, const double *v, cs_solve_result *r)
{
    const double *xp = solver_x_part(s, v);
    int ok;
    r->rel_err = cs_problem_rel_err(s->prob, xp);
    r->orth_err = cs_problem_orth_err(s->prob, xp);
    r->cut = r->cut_rounded = NAN;
    solver_measure(s, xp, r);
    if (s->blind) {
        /* no x*: on the target set (and on Ax = b unless fitted loosely) */
        ok = r->target_dist <= s->tol_ok &&
             (s->o.fit == CS_FIT_LS || r->residual <= FEASIBLE_TOL);
    } else if (s->kind == CS_PROB_MAXCUT) {
        const cs_graph *g = cs_problem_graph(s->prob);
        r->cut = cs_graph_cut(g, v);
        for (size_t i = 0; i < s->N; i++)
            s->gtmp[i] = v[i] > 0 ? 1.0 : (v[i] < 0 ? -1.0 : 0.0);
        r->cut_rounded = cs_graph_cut(g, s->gtmp);
        ok = solver_maxcut_hit(s, v);
    } else if (s->kind == CS_PROB_ORTH) {
        ok = r->orth_err <= s->tol_ok;
    } else {
        ok = r->rel_err <= s->tol_ok;
    }
    return ok;
}

/* The finished start's solution, success and result fields. */
void solver_finish_start(cs_solver *s)
{
    const double *v =
        s->algo == CS_ALGO_DR ? cs_dr_x(s->dr) : solver_on_x(s, cs_fista_best(s->fista));
    cs_solve_result *r = &s->res;
    s->success = solver_judge(s, v, r);
    if (s->algo == CS_ALGO_DR) {
        r->objective = cs_dr_last(s->dr)->objective;
        r->best_iter = cs_dr_iters(s->dr);
        s->end = cs_dr_end(s->dr);
    } else {
        r->objective = cs_fista_best_objective(s->fista);
        r->best_iter = cs_fista_best_iter(s->fista);
        s->end = cs_fista_end(s->fista);
    }
    s->have_result = 1;
    s->in_start = 0;
    if (s->success || s->start >= s->max_starts)
        s->done = 1;
}
