/* reg_matrix.c — regularizers built on matrix products (CBLAS):
 *   eig  ‖Cx‖²‖x‖² − (xᵀCx)²   (Regularizer 4), in the Lemma-1 form
 *        ‖x‖²‖Cx − βx‖², β = xᵀCx/‖x‖²
 *   ns   ‖Cx‖² + (‖x‖² − 1)²    (nullspace vectors, C is M×N)
 *   mu   ‖Cx − μx‖², μ the last coordinate (baseline of sec. 3.2)
 *   om   K‖XᵀX‖_F² − ‖X‖_F⁴     (Regularizer 5), in the form
 *        K‖XᵀX − βI‖_F², β = ‖X‖_F²/K */
#include <cblas.h>
#include <math.h>
#include <stddef.h>

#include "reg_evals.h"
#include "reg_internal.h"

/* y = C·x (trans = 0) or y = Cᵀ·x (trans = 1). */
static void matvec(const cs_reg *reg, int trans, const double *x, double *y)
{
    cblas_dgemv(CblasRowMajor, trans ? CblasTrans : CblasNoTrans, (int)reg->Crows,
                (int)reg->Ccols, 1.0, reg->C, (int)reg->Ccols, x, 1, 0.0, y, 1);
}

/* BLAS takes int sizes. */
static int check_blas_size(size_t a, size_t b, cs_err *err)
{
    if (a > 2147483647u || b > 2147483647u)
        return cs_fail(err, CS_ENOMEM, "matrix dimension too large for BLAS");
    return CS_OK;
}

/* Vector argument of length n + extra, C resolved for the n coordinates of x. */
static int prepare(cs_reg *reg, size_t rows, size_t cols, size_t extra, size_t *n, cs_err *err)
{
    size_t len;
    int rc = cs_reg_vector_len(reg, rows, cols, &len, err);
    if (rc)
        return rc;
    if (len <= extra)
        return cs_fail(err, CS_EDIM, "%s needs at least %zu entries, got %zu", reg->info->name,
                       extra + 1, len);
    *n = len - extra;
    rc = cs_reg_need_matrix(reg, *n, err);
    if (rc)
        return rc;
    return check_blas_size(reg->Crows, reg->Ccols, err);
}

static int need_square(const cs_reg *reg, cs_err *err)
{
    if (reg->Crows != reg->Ccols)
        return cs_fail(err, CS_EDIM, "%s needs a square C, got %zux%zu", reg->info->name,
                       reg->Crows, reg->Ccols);
    return CS_OK;
}

CS_REG_EVAL_DECL(eig)
{
    size_t n;
    int rc = prepare(reg, rows, cols, 0, &n, err);
    if (!rc)
        rc = need_square(reg, err);
    if (rc)
        return rc;
    double *w = cs_reg_work(reg, 2 * n, err);
    if (!w)
        return CS_ENOMEM;
    double *r = w, *ctr = w + n;
    matvec(reg, 0, x, r);
    double hh = cblas_ddot((int)n, x, 1, x, 1);
    double c = cblas_ddot((int)n, x, 1, r, 1);
    double beta = hh > 0.0 ? c / hh : 0.0;
    cblas_daxpy((int)n, -beta, x, 1, r, 1);   /* r = Cx − βx */
    double rr = cblas_ddot((int)n, r, 1, r, 1);
    *value = hh * rr;
    if (!grad)
        return CS_OK;
    /* ∇ = 2‖r‖²x + 2‖x‖²(Cᵀr − βr), β held at its optimum (envelope theorem) */
    matvec(reg, 1, r, ctr);
    for (size_t i = 0; i < n; i++)
        grad[i] = 2.0 * rr * x[i] + 2.0 * hh * (ctr[i] - beta * r[i]);
    return CS_OK;
}

CS_REG_EVAL_DECL(ns)
{
    size_t n;
    int rc = prepare(reg, rows, cols, 0, &n, err);
    if (rc)
        return rc;
    size_t m = reg->Crows;
    double *cx = cs_reg_work(reg, m, err);
    if (!cx)
        return CS_ENOMEM;
    matvec(reg, 0, x, cx);
    double t = cblas_ddot((int)n, x, 1, x, 1) - 1.0;
    *value = cblas_ddot((int)m, cx, 1, cx, 1) + t * t;
    if (!grad)
        return CS_OK;
    /* ∇ = 2CᵀCx + 4(‖x‖² − 1)x */
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)m, (int)n, 2.0, reg->C, (int)n, cx, 1, 0.0, grad,
                1);
    cblas_daxpy((int)n, 4.0 * t, x, 1, grad, 1);
    return CS_OK;
}

CS_REG_EVAL_DECL(mu)
{
    size_t n;
    int rc = prepare(reg, rows, cols, 1, &n, err);
    if (!rc)
        rc = need_square(reg, err);
    if (rc)
        return rc;
    double m = x[n];
    double *w = cs_reg_work(reg, 2 * n, err);
    if (!w)
        return CS_ENOMEM;
    double *r = w, *ctr = w + n;
    matvec(reg, 0, x, r);
    cblas_daxpy((int)n, -m, x, 1, r, 1);   /* r = Cx − μx */
    *value = cblas_ddot((int)n, r, 1, r, 1);
    if (!grad)
        return CS_OK;
    /* ∇_x = 2(C − μI)ᵀr, ∂/∂μ = −2xᵀr */
    matvec(reg, 1, r, ctr);
    for (size_t i = 0; i < n; i++)
        grad[i] = 2.0 * (ctr[i] - m * r[i]);
    grad[n] = -2.0 * cblas_ddot((int)n, x, 1, r, 1);
    return CS_OK;
}

/* om with X ∈ R^{N×K} (row-major, N rows). The Gram matrix is taken on the
 * smaller side, d = min(N, K): for K ≤ N, G = XᵀX and ℓ = K‖G − βI_K‖²;
 * for K > N, G = XXᵀ and ‖XᵀX − βI_K‖² = ‖XXᵀ − βI_N‖² + (K − N)β²
 * (both have the same nonzero spectrum), so scratch is d² and every term
 * stays a sum of squares. The gradient is 4K·X(XᵀX − βI) = 4K(XXᵀ − βI)X. */
CS_REG_EVAL_DECL(om)
{
    size_t N = rows, K = cols;
    int rc = check_blas_size(N, K, err);
    if (rc)
        return rc;
    int tall = K <= N;
    size_t d = tall ? K : N;
    double *G = cs_reg_work(reg, d * d, err);
    if (!G)
        return CS_ENOMEM;
    cblas_dsyrk(CblasRowMajor, CblasUpper, tall ? CblasTrans : CblasNoTrans, (int)d,
                (int)(tall ? N : K), 1.0, x, (int)K, 0.0, G, (int)d);
    double F = 0.0;
    for (size_t i = 0; i < d; i++)
        F += G[i * d + i];
    double beta = F / (double)K, diag = 0.0, off = 0.0;
    for (size_t i = 0; i < d; i++) {
        G[i * d + i] -= beta;
        diag += G[i * d + i] * G[i * d + i];
        for (size_t j = i + 1; j < d; j++)
            off += G[i * d + j] * G[i * d + j];
    }
    double rr = diag + 2.0 * off + (double)(K - d) * beta * beta;
    *value = (double)K * rr;
    if (!grad)
        return CS_OK;
    cblas_dsymm(CblasRowMajor, tall ? CblasRight : CblasLeft, CblasUpper, (int)N, (int)K,
                4.0 * (double)K, G, (int)d, x, (int)K, 0.0, grad, (int)K);
    return CS_OK;
}
