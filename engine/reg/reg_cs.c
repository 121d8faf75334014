/* reg_cs.c — the built-in CS regularizers with elementwise g and h:
 * ℓ(x) = ‖g(x)‖²‖h(x)‖² − ⟨g(x),h(x)⟩². Each fills g, g', h, h' (reg_gh.h)
 * and hands them to the one COMBINE step of the CS form (reg_combine.c: the
 * Lemma-1 residual, accurate near the zero set, exact on integers: bin at
 * 1,2,3 is 98 with gradient -44,-16,156, to the last digit). */
#include <math.h>
#include <stddef.h>

#include "reg_evals.h"
#include "reg_gh.h"
#include "reg_internal.h"

/* bin: g = x², h = 1 */
static void fill_bin(const double *x, size_t n, cs_gh *a, int d)
{
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        a->g[i] = v * v;
        a->h[i] = 1.0;
        if (d)
            a->dg[i] = 2.0 * v;
    }
    a->flat_h = 1;
}

/* osb: g = x², h = x */
static void fill_osb(const double *x, size_t n, cs_gh *a, int d)
{
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        a->g[i] = v * v;
        a->h[i] = v;
        if (d)
            a->dg[i] = 2.0 * v, a->dh[i] = 1.0;
    }
    a->flat_h = 0;
}

/* ter: g = x³, h = x */
static void fill_ter(const double *x, size_t n, cs_gh *a, int d)
{
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        a->g[i] = v * v * v;
        a->h[i] = v;
        if (d)
            a->dg[i] = 3.0 * v * v, a->dh[i] = 1.0;
    }
    a->flat_h = 0;
}

/* bbin: g = 1/(1+x²), h = 1. For huge |x|, 1+x² is Inf and g, g' go to 0. */
static void fill_bbin(const double *x, size_t n, cs_gh *a, int d)
{
    for (size_t i = 0; i < n; i++) {
        double v = x[i], b = 1.0 / (1.0 + v * v);
        a->g[i] = b;
        a->h[i] = 1.0;
        if (d)
            a->dg[i] = -2.0 * v * b * b;
    }
    a->flat_h = 1;
}

/* binexp: g = e^(−x²), h = 1 */
static void fill_binexp(const double *x, size_t n, cs_gh *a, int d)
{
    for (size_t i = 0; i < n; i++) {
        double v = x[i], b = exp(-v * v);
        a->g[i] = b;
        a->h[i] = 1.0;
        if (d)
            a->dg[i] = -2.0 * v * b;
    }
    a->flat_h = 1;
}

/* l2l1: g = |x|, h = 1; subgradient with sign(0) = 0 */
static void fill_l2l1(const double *x, size_t n, cs_gh *a, int d)
{
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        a->g[i] = fabs(v);
        a->h[i] = 1.0;
        if (d)
            a->dg[i] = (v > 0.0) - (v < 0.0);
    }
    a->flat_h = 1;
}

/* equ: g = y², h = 4^(b−1) for y in block b (blocks of length seg) */
static void fill_equ(const double *x, size_t n, size_t seg, cs_gh *a, int d)
{
    fill_bin(x, n, a, d);
    for (size_t i = 0; i < n; i++)
        a->h[i] = (double)(1ull << (2 * (i / seg)));
}

void cs_fill_builtin(cs_reg_kernel k, const double *x, size_t n, cs_gh *a, int d)
{
    switch (k) {
    case CS_REG_KERNEL_OSB: fill_osb(x, n, a, d); break;
    case CS_REG_KERNEL_TER: fill_ter(x, n, a, d); break;
    case CS_REG_KERNEL_BBIN: fill_bbin(x, n, a, d); break;
    case CS_REG_KERNEL_BINEXP: fill_binexp(x, n, a, d); break;
    case CS_REG_KERNEL_L2L1: fill_l2l1(x, n, a, d); break;
    default: fill_bin(x, n, a, d); break;
    }
}

/* Most entries take a plain vector and nothing else. */
static int plain(cs_reg *reg, const double *x, size_t rows, size_t cols, cs_reg_kernel k,
                 double *value, double *grad, cs_err *err)
{
    size_t n;
    cs_gh a;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (!rc)
        rc = cs_gh_scratch(reg, n, 0, &a, NULL, err);
    if (rc)
        return rc;
    cs_fill_builtin(k, x, n, &a, grad != NULL);
    cs_combine_cs(&a, n, NULL, value, grad);
    return CS_OK;
}

CS_REG_EVAL_DECL(bin) { return plain(reg, x, rows, cols, CS_REG_KERNEL_BIN, value, grad, err); }
CS_REG_EVAL_DECL(osb) { return plain(reg, x, rows, cols, CS_REG_KERNEL_OSB, value, grad, err); }
CS_REG_EVAL_DECL(ter) { return plain(reg, x, rows, cols, CS_REG_KERNEL_TER, value, grad, err); }
CS_REG_EVAL_DECL(bbin)
{
    return plain(reg, x, rows, cols, CS_REG_KERNEL_BBIN, value, grad, err);
}
CS_REG_EVAL_DECL(binexp)
{
    return plain(reg, x, rows, cols, CS_REG_KERNEL_BINEXP, value, grad, err);
}
CS_REG_EVAL_DECL(l2l1)
{
    return plain(reg, x, rows, cols, CS_REG_KERNEL_L2L1, value, grad, err);
}

/* fixed: g = [x², α²], h = 1_{N+1}; the constant pair is the tail. */
CS_REG_EVAL_DECL(fixed)
{
    size_t n;
    cs_gh a;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    double a2 = reg->alpha * reg->alpha;
    if (!isfinite(a2 * a2))
        return cs_fail(err, CS_ENONFINITE, "fixed: alpha=%g is too large", reg->alpha);
    if ((rc = cs_gh_scratch(reg, n, 0, &a, NULL, err)))
        return rc;
    fill_bin(x, n, &a, grad != NULL);
    cs_combine_cs(&a, n, &a2, value, grad);
    return CS_OK;
}

/* equ: the argument is y_1, ..., y_B stacked, each of length N. */
CS_REG_EVAL_DECL(equ)
{
    size_t len;
    cs_gh a;
    int rc = cs_reg_vector_len(reg, rows, cols, &len, err);
    if (rc)
        return rc;
    size_t B = (size_t)reg->B;
    if (B == 0 || len % B != 0)
        return cs_fail(err, CS_EDIM, "equ B=%zu: argument length %zu is not a multiple of %zu",
                       B, len, B);
    rc = cs_gh_scratch(reg, len, 0, &a, NULL, err);
    if (rc)
        return rc;
    fill_equ(x, len, len / B, &a, grad != NULL);
    cs_combine_cs(&a, len, NULL, value, grad);
    return CS_OK;
}
