/* reg_cs.c — CS regularizers built from elementwise g and h:
 * ℓ(x) = ‖g(x)‖²‖h(x)‖² − ⟨g(x),h(x)⟩².
 * All of them go through one kernel that evaluates the Lemma-1 form
 * ‖h‖²‖g − βh‖², β = ⟨g,h⟩/‖h‖²: every term vanishes on the zero set, so
 * values near it keep full relative accuracy (the textbook difference of
 * two large sums would cancel). */
#include <math.h>
#include <stddef.h>

#include "reg_evals.h"
#include "reg_internal.h"

/* g, g', h, h' of element i at value v; ctx is the regularizer's own data. */
typedef void (*gh_fn)(double v, size_t i, const void *ctx, double out[4]);

/* The kernel. `tail` appends one constant pair (g, h) = (tail_g, 1) with no
 * gradient (the fixed-scale regularizer). Static inline so each regularizer
 * gets its own copy with g and h inlined. */
static inline void cs_elementwise(const double *x, size_t n, gh_fn gh, const void *ctx,
                                  int has_tail, double tail_g, double *value, double *grad)
{
    double f[4];
    double hh = 0.0, gh_sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        gh(x[i], i, ctx, f);
        hh += f[2] * f[2];
        gh_sum += f[0] * f[2];
    }
    if (has_tail) {
        hh += 1.0;
        gh_sum += tail_g;
    }
    double beta = hh > 0.0 ? gh_sum / hh : 0.0;
    double rr = 0.0;
    for (size_t i = 0; i < n; i++) {
        gh(x[i], i, ctx, f);
        double r = f[0] - beta * f[2];
        rr += r * r;
    }
    double rt = has_tail ? tail_g - beta : 0.0;
    rr += rt * rt;
    *value = hh * rr;
    if (!grad)
        return;
    /* ∂ℓ/∂x_n = 2‖h‖² g'_n r_n + 2 h'_n (‖r‖² h_n − β‖h‖² r_n), r = g − βh */
    for (size_t i = 0; i < n; i++) {
        gh(x[i], i, ctx, f);
        double r = f[0] - beta * f[2];
        grad[i] = 2.0 * hh * f[1] * r + 2.0 * f[3] * (rr * f[2] - beta * hh * r);
    }
}

/* Most entries take a plain vector and nothing else. */
static int plain(cs_reg *reg, const double *x, size_t rows, size_t cols, gh_fn gh,
                 double *value, double *grad, cs_err *err)
{
    size_t n;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    cs_elementwise(x, n, gh, NULL, 0, 0.0, value, grad);
    return CS_OK;
}

static inline void put(double out[4], double g, double dg, double h, double dh)
{
    out[0] = g;
    out[1] = dg;
    out[2] = h;
    out[3] = dh;
}

/* bin: g = x², h = 1 */
static void gh_bin(double v, size_t i, const void *ctx, double out[4])
{
    (void)i;
    (void)ctx;
    put(out, v * v, 2.0 * v, 1.0, 0.0);
}

/* osb: g = x², h = x */
static void gh_osb(double v, size_t i, const void *ctx, double out[4])
{
    (void)i;
    (void)ctx;
    put(out, v * v, 2.0 * v, v, 1.0);
}

/* ter: g = x³, h = x */
static void gh_ter(double v, size_t i, const void *ctx, double out[4])
{
    (void)i;
    (void)ctx;
    put(out, v * v * v, 3.0 * v * v, v, 1.0);
}

/* bbin: g = 1/(1+x²), h = 1. For huge |x|, 1+x² is Inf and g, g' go to 0. */
static void gh_bbin(double v, size_t i, const void *ctx, double out[4])
{
    (void)i;
    (void)ctx;
    double b = 1.0 / (1.0 + v * v);
    put(out, b, -2.0 * v * b * b, 1.0, 0.0);
}

/* binexp: g = e^(−x²), h = 1 */
static void gh_binexp(double v, size_t i, const void *ctx, double out[4])
{
    (void)i;
    (void)ctx;
    double b = exp(-v * v);
    put(out, b, -2.0 * v * b, 1.0, 0.0);
}

/* l2l1: g = |x|, h = 1; subgradient with sign(0) = 0 */
static void gh_l2l1(double v, size_t i, const void *ctx, double out[4])
{
    (void)i;
    (void)ctx;
    put(out, fabs(v), (v > 0.0) - (v < 0.0), 1.0, 0.0);
}

/* equ: g = y², h = 4^(b−1) for y in block b (blocks of length *ctx) */
static void gh_equ(double v, size_t i, const void *ctx, double out[4])
{
    size_t block = i / *(const size_t *)ctx;
    put(out, v * v, 2.0 * v, (double)(1ull << (2 * block)), 0.0);
}

CS_REG_EVAL_DECL(bin) { return plain(reg, x, rows, cols, gh_bin, value, grad, err); }
CS_REG_EVAL_DECL(osb) { return plain(reg, x, rows, cols, gh_osb, value, grad, err); }
CS_REG_EVAL_DECL(ter) { return plain(reg, x, rows, cols, gh_ter, value, grad, err); }
CS_REG_EVAL_DECL(bbin) { return plain(reg, x, rows, cols, gh_bbin, value, grad, err); }
CS_REG_EVAL_DECL(binexp) { return plain(reg, x, rows, cols, gh_binexp, value, grad, err); }
CS_REG_EVAL_DECL(l2l1) { return plain(reg, x, rows, cols, gh_l2l1, value, grad, err); }

/* fixed: g = [x², α²], h = 1_{N+1}; the constant pair is the kernel's tail. */
CS_REG_EVAL_DECL(fixed)
{
    size_t n;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    double a2 = reg->alpha * reg->alpha;
    if (!isfinite(a2 * a2))
        return cs_fail(err, CS_ENONFINITE, "fixed: alpha=%g is too large", reg->alpha);
    cs_elementwise(x, n, gh_bin, NULL, 1, a2, value, grad);
    return CS_OK;
}

/* equ: the argument is y_1, ..., y_B stacked, each of length N. */
CS_REG_EVAL_DECL(equ)
{
    size_t len;
    int rc = cs_reg_vector_len(reg, rows, cols, &len, err);
    if (rc)
        return rc;
    size_t B = (size_t)reg->B;
    if (B == 0 || len % B != 0)
        return cs_fail(err, CS_EDIM, "equ B=%zu: argument length %zu is not a multiple of %zu",
                       B, len, B);
    size_t seg = len / B;
    cs_elementwise(x, len, gh_equ, &seg, 0, 0.0, value, grad);
    return CS_OK;
}
