/* solver_fns.c — what the solver hands FISTA and Douglas–Rachford: the
 * objective of each problem kind (ℓ; 2bit's data term + λℓequ; MAX-CUT's
 * −cut + λℓ), the affine and box projections, and the oracle. */
#include "solver_internal.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "cs_proj.h"
#include "cs_vec.h"

int solver_fg_reg(void *ctx, const double *x, double *f, double *grad, cs_err *err)
{
    cs_solver *s = ctx;
    if (s->fast)
        return solver_fgn_fast(ctx, x, f, grad, NULL, err);
    if (s->kind == CS_PROB_ORTH)
        return cs_reg_eval(s->reg, x, s->N, s->cols, f, grad, err);
    if (s->o.generic_reg)
        return cs_reg_eval(s->reg, x, 1, s->n, f, grad, err);
    return cs_reg_eval_fast(s->reg, x, 1, s->n, f, grad, err);
}

/* The fused kernel, with the gradient's norm from the same pass when gnorm
 * is given (FISTA's fg_gnorm). */
int solver_fgn_fast(void *ctx, const double *x, double *f, double *grad, double *gnorm,
                    cs_err *err)
{
    cs_solver *s = ctx;
    int rc = cs_reg_fast_eval(s->reg, x, s->n, f, grad, gnorm);
    if (rc == CS_ENOMEM)
        return cs_fail(err, rc, "%s: out of memory", s->m.canon);
    if (rc)
        return cs_fail(err, rc, "%s: value or gradient is not finite", s->m.canon);
    return CS_OK;
}

/* ℓequ for B = 2 blocks y1, y2 (h = 1, 4): K·N·Σ y⁴ − (Σ_b 4^{b−1}‖y_b‖²)², K = 17. */
static void equ2(const double *y, size_t N, double *f, double *grad)
{
    const double K = 17.0;
    double s4 = 0.0, S = 0.0;
    for (size_t b = 0; b < 2; b++) {
        double h = b ? 4.0 : 1.0;
        for (size_t i = 0; i < N; i++) {
            double v = y[b * N + i], v2 = v * v;
            s4 += v2 * v2;
            S += h * v2;
        }
    }
    *f = K * (double)N * s4 - S * S;
    if (grad)
        for (size_t b = 0; b < 2; b++) {
            double h = b ? 4.0 : 1.0;
            for (size_t i = 0; i < N; i++) {
                double v = y[b * N + i];
                grad[b * N + i] = 4.0 * v * (K * (double)N * v * v - h * S);
            }
        }
}

int solver_fg_2bit(void *ctx, const double *y, double *f, double *grad, cs_err *err)
{
    cs_solver *s = ctx;
    size_t N = s->N, M = cs_problem_M(s->prob);
    const double *A = cs_problem_A(s->prob), *b = cs_problem_b(s->prob);
    double *x = s->xhat, *r = s->rtmp;
    for (size_t i = 0; i < N; i++)
        x[i] = y[i] + y[N + i];
    double rr = 0.0;
    for (size_t i = 0; i < M; i++) {
        double v = -b[i];
        for (size_t j = 0; j < N; j++)
            v += A[i * N + j] * x[j];
        r[i] = v;
        rr += v * v;
    }
    double fe;
    equ2(y, N, &fe, grad);
    *f = rr + s->lambda * fe;
    if (grad) {
        for (size_t i = 0; i < 2 * N; i++)
            grad[i] *= s->lambda;
        for (size_t j = 0; j < N; j++) {
            double g = 0.0;
            for (size_t i = 0; i < M; i++)
                g += A[i * N + j] * r[i];
            grad[j] += 2.0 * g;
            grad[N + j] += 2.0 * g;
        }
    }
    if (!isfinite(*f))
        return cs_fail(err, CS_ENONFINITE, "objective is not finite");
    return CS_OK;
}

int solver_fg_maxcut(void *ctx, const double *x, double *f, double *grad, cs_err *err)
{
    cs_solver *s = ctx;
    const cs_graph *g = cs_problem_graph(s->prob);
    double fr;
    int rc = cs_reg_eval(s->reg, x, 1, s->n, &fr, grad ? s->gtmp : NULL, err);
    if (rc)
        return rc;
    *f = -cs_graph_cut(g, x) + s->lambda * fr;
    if (!isfinite(*f))
        return cs_fail(err, CS_ENONFINITE, "MAX-CUT objective is not finite (%g): the edge "
                       "weights are too large", *f);
    if (grad) {
        cs_graph_cut_grad(g, x, grad);
        for (size_t i = 0; i < s->n; i++)
            grad[i] = -grad[i] + s->lambda * s->gtmp[i];
    }
    return CS_OK;
}

int solver_fg_ls(void *ctx, const double *x, double *f, double *grad, cs_err *err)
{
    cs_solver *s = ctx;
    size_t N = s->N, M = cs_problem_M(s->prob);
    const double *A = cs_problem_A(s->prob), *b = cs_problem_b(s->prob);
    double *r = s->rtmp, fl;
    int rc = solver_fg_reg(ctx, x, &fl, grad, err);
    if (rc)
        return rc;
    /* r = Ax − b, ∇ = λ∇ℓ + Aᵀr */
    for (size_t i = 0; i < M; i++)
        r[i] = -b[i];
    cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)M, (int)N, 1.0, A, (int)N, x, 1, 1.0, r, 1);
    double rr = 0.0;
    for (size_t i = 0; i < M; i++)
        rr += r[i] * r[i];
    *f = 0.5 * rr + s->lambda * fl;
    if (grad) {
        for (size_t i = 0; i < s->n; i++)
            grad[i] *= s->lambda;
        cblas_dgemv(CblasRowMajor, CblasTrans, (int)M, (int)N, 1.0, A, (int)N, r, 1, 1.0, grad,
                    1);
    }
    if (!isfinite(*f))
        return cs_fail(err, CS_ENONFINITE, "objective is not finite");
    return CS_OK;
}

void solver_prox_affine(void *ctx, const double *z, double *x, double t)
{
    (void)t;
    cs_solver *s = ctx;
    cs_affine_project(cs_problem_affine(s->prob), z, x);
    for (size_t i = s->nx; i < s->n; i++)
        x[i] = z[i];
}

void solver_dir_affine(void *ctx, const double *g, double *d)
{
    cs_solver *s = ctx;
    cs_affine_project_dir(cs_problem_affine(s->prob), g, d);
    for (size_t i = s->nx; i < s->n; i++)
        d[i] = g[i];
}

void solver_project_affine(void *ctx, const double *z, double *x)
{
    solver_prox_affine(ctx, z, x, 0);
}

void solver_prox_box(void *ctx, const double *z, double *x, double t)
{
    (void)t;
    cs_solver *s = ctx;
    memcpy(x, z, s->n * sizeof *x);
    cs_proj_box(x, s->n, -1.0, 1.0);
}

int solver_maxcut_hit(cs_solver *s, const double *x)
{
    const cs_graph *g = cs_problem_graph(s->prob);
    double best = cs_graph_known_best(g);
    if (isnan(best) || cs_graph_cut(g, x) < best)
        return 0;
    double dd = 0.0, xx = 0.0;
    for (size_t i = 0; i < s->n; i++) {
        double sg = x[i] > 0 ? 1.0 : (x[i] < 0 ? -1.0 : 0.0);
        dd += (x[i] - sg) * (x[i] - sg);
        xx += x[i] * x[i];
    }
    return xx > 0.0 && sqrt(dd / xx) < s->tol_ok;
}

/* x part of the variable (2bit: y1 + y2) into s->xhat; returns it. */
const double *solver_x_part(cs_solver *s, const double *v)
{
    if (s->kind == CS_PROB_2BIT) {
        for (size_t i = 0; i < s->N; i++)
            s->xhat[i] = v[i] + v[s->N + i];
        return s->xhat;
    }
    return v;
}

int solver_oracle(void *ctx, const double *x, double *metric)
{
    cs_solver *s = ctx;
    if (s->kind == CS_PROB_MAXCUT) {
        *metric = NAN;
        return solver_maxcut_hit(s, x);
    }
    if (s->xstar) {
        double d = sqrt(cs_vec_dist2(x, s->xstar, s->nx));
        *metric = s->xstar_norm > 0.0 ? d / s->xstar_norm : d;
        return *metric < s->tol_ok;
    }
    const double *xp = solver_x_part(s, x);
    *metric = cs_problem_rel_err(s->prob, xp);
    if (s->kind == CS_PROB_ORTH)
        return cs_problem_orth_err(s->prob, xp) < s->tol_ok;
    return *metric < s->tol_ok;
}

