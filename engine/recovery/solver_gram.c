/* solver_gram.c — eig, mu and ns solved on the coordinates of the affine set.
 *
 * Every point FISTA visits on a bin or eig problem lies on {Ax = b}, so it
 * is x = xp + Zz (Z an orthonormal basis of null(A)), and FISTA on z
 * without a projection visits the same points: steps, inner products and
 * distances are those of x. On z these regularizers cost two (r+1)²
 * products per value (cs_reg_gram.h) instead of three N×N products and the
 * projection. What stays in x: the start points, the L estimate (the same
 * draws at the same unprojected points), and everything reported (the
 * solution, the iterate, the error against x*).
 *
 * Used when the run needs nothing that z does not give: no trace, ledger or
 * path, no start point of the caller's (it may lie off the set), FISTA's
 * accelerated or plain mode (adaptive steps measure the unprojected
 * gradient), and a stopping rule that does not normalize by the gradient. */
#include "solver_internal.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_proj.h"
#include "cs_reg_gram.h"
#include "cs_vec.h"

struct solver_gram {
    cs_affine *null;    /* the null-space factorization of the problem's A */
    const double *Z;    /* N×r, orthonormal columns */
    cs_reg_gram *forms;
    size_t r, len;      /* z entries; the variable on z: r + extras */
    double *zstar;      /* Zᵀx* (the oracle: ‖x − x*‖ = ‖z − z*‖) */
    double *v0;         /* a start point on z */
    double *var;        /* a variable mapped back to x (n entries) */
    double *lw[4];      /* the L estimate's points and gradients (n each) */
};

void solver_gram_free(solver_gram *g)
{
    if (!g)
        return;
    cs_affine_free(g->null);
    cs_reg_gram_free(g->forms);
    free(g->zstar);
    free(g->v0);
    free(g->var);
    for (int k = 0; k < 4; k++)
        free(g->lw[k]);
    free(g);
}

int solver_gram_eligible(const cs_solver *s, cs_mode mode)
{
    cs_stop st = s->o.stop;
    return s->algo == CS_ALGO_FISTA && s->o.fit == CS_FIT_AFFINE && !s->fast && s->reg &&
           cs_reg_gram_has(s->reg) &&
           (s->kind == CS_PROB_BIN || s->kind == CS_PROB_EIG) && s->cols == 1 &&
           !s->o.trace && !s->o.path && !s->o.generic_reg && !s->start_x &&
           mode != CS_MODE_ADAPTIVE && !solver_gram_stop_needs_x(st);
}

int solver_gram_stop_needs_x(cs_stop stop)
{
    return stop == CS_STOP_HYBRID || stop == CS_STOP_NORMALIZED;
}

int solver_gram_new(solver_gram **out, cs_solver *s, cs_err *err)
{
    *out = NULL;
    cs_problem *p = s->prob;
    size_t N = s->N, M;
    const double *b, *A = cs_problem_system(p, &b, &M);
    /* per value: 2(r+1)² multiply-adds on z, against 3N² and the projection's
     * 2N·min(M, r) per iteration on x: z wins unless M is a sliver of N
     * (and M = N leaves a single point) */
    if (M >= N)
        return CS_OK;
    double R = (double)(N - M + 1), n = (double)N, rank = (double)(M < N - M ? M : N - M);
    if (4.0 * R * R > 3.0 * n * n + 2.0 * n * rank)
        return CS_OK;
    solver_gram *g = calloc(1, sizeof *g);
    if (!g)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    int rc = cs_affine_new(&g->null, A, M, N, b, 1, CS_AFFINE_NULL, err);
    if (rc)
        goto fail;
    g->r = cs_affine_rank(g->null);
    g->Z = cs_affine_basis(g->null);
    rc = cs_reg_gram_new(&g->forms, s->reg, cs_affine_particular(g->null), g->Z, N, g->r, err);
    if (rc)
        goto fail;
    g->len = g->r + s->extra;
    g->zstar = calloc(g->r, sizeof *g->zstar);
    g->v0 = calloc(g->len, sizeof *g->v0);
    g->var = calloc(s->n, sizeof *g->var);
    for (int k = 0; k < 4; k++)
        g->lw[k] = malloc(s->n * sizeof *g->lw[k]);
    if (!g->zstar || !g->v0 || !g->var || !g->lw[0] || !g->lw[1] || !g->lw[2] || !g->lw[3]) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto fail;
    }
    if (s->xstar)
        cblas_dgemv(CblasRowMajor, CblasTrans, (int)N, (int)g->r, 1.0, g->Z, (int)g->r, s->xstar,
                    1, 0.0, g->zstar, 1);
    *out = g;
    return CS_OK;
fail:
    solver_gram_free(g);
    return rc;
}

size_t solver_gram_len(const solver_gram *g) { return g->len; }

/* A start on z from the projected x0 (n entries): z = Zᵀx0, the extras as
 * they are; L estimated on x as the stepper on x would (same draws). */
int solver_gram_start(cs_solver *s, const double *x0, cs_err *err)
{
    solver_gram *g = s->gram;
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)s->N, (int)g->r, 1.0, g->Z, (int)g->r, x0, 1,
                0.0, g->v0, 1);
    memcpy(g->v0 + g->r, x0 + s->nx, s->extra * sizeof *x0);
    double L = 1.0;
    int rc = CS_OK;
    if (!(s->fopts.tau0 > 0.0)) {
        cs_fista_fns xf = {.ctx = s, .fg = solver_fg_reg};
        rc = cs_fista_estimate_L(&xf, s->n, &s->rng, g->lw, &L, err);
    }
    return rc ? rc : cs_fista_start_L(s->fista, g->v0, 1, L, err);
}

int solver_fg_gram(void *ctx, const double *v, double *f, double *grad, cs_err *err)
{
    cs_solver *s = ctx;
    if (cs_reg_gram_eval(s->gram->forms, v, f, grad))
        return cs_fail(err, CS_ENONFINITE, "%s: value or gradient is not finite", s->m.canon);
    return CS_OK;
}

int solver_oracle_gram(void *ctx, const double *v, double *metric)
{
    cs_solver *s = ctx;
    if (!s->xstar) {
        *metric = cs_problem_rel_err(s->prob, solver_gram_var(s, v));
        return *metric < s->tol_ok;
    }
    double d = sqrt(cs_vec_dist2(v, s->gram->zstar, s->gram->r));
    *metric = s->xstar_norm > 0.0 ? d / s->xstar_norm : d;
    return *metric < s->tol_ok;
}

const double *solver_gram_var(const cs_solver *s, const double *v)
{
    solver_gram *g = s->gram;
    memcpy(g->var, cs_affine_particular(g->null), s->N * sizeof *g->var);
    cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)s->N, (int)g->r, 1.0, g->Z, (int)g->r, v, 1,
                1.0, g->var, 1);
    memcpy(g->var + s->nx, v + g->r, s->extra * sizeof *v);
    return g->var;
}
