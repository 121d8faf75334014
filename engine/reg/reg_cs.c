/* reg_cs.c — CS regularizers built from elementwise g and h:
 * ℓ(x) = ‖g(x)‖²‖h(x)‖² − ⟨g(x),h(x)⟩².
 * All of them go through one kernel that evaluates the Lemma-1 form
 * ‖h‖²‖g − βh‖² = Σ R_n² / ‖h‖² with R_n = ‖h‖²g_n − ⟨g,h⟩h_n (= ‖h‖²r_n,
 * r = g − βh, β = ⟨g,h⟩/‖h‖²). Every R_n vanishes on the zero set and the
 * value is quadratic in them, so values near it keep full relative accuracy
 * (the textbook difference of two large sums would cancel); and R_n needs no
 * division, so integer arguments give exact integers (bin at 1,2,3 is 98
 * with gradient -44,-16,156, to the last digit). */
#include <math.h>
#include <stddef.h>

#include "reg_evals.h"
#include "reg_internal.h"

/* g, g', h, h' of element i at value v; ctx is the regularizer's own data. */
typedef void (*gh_fn)(double v, size_t i, const void *ctx, double out[4]);

/* a·b − c·d with one rounding error in total (Kahan's fma trick). */
static inline double diff_of_products(double a, double b, double c, double d)
{
    double w = c * d;
    double e = fma(c, d, -w);
    return fma(a, b, -w) - e;
}

/* The kernel. `tail` appends one constant pair (g, h) = (tail_g, 1) with no
 * gradient (the fixed-scale regularizer). `const_h`: h' ≡ 0, which saves
 * ‖g‖² and the third pass. Static inline so each regularizer gets its own
 * copy with g and h inlined.
 *   ∂ℓ/∂x_n = 2g'_n R_n + 2h'_n (‖g‖²h_n − ⟨g,h⟩g_n) */
static inline void cs_elementwise(const double *x, size_t n, gh_fn gh, const void *ctx,
                                  int const_h, int has_tail, double tail_g, double *value,
                                  double *grad)
{
    double f[4];
    double hh = 0.0, gh_sum = 0.0, gg = 0.0;
    for (size_t i = 0; i < n; i++) {
        gh(x[i], i, ctx, f);
        hh += f[2] * f[2];
        gh_sum += f[0] * f[2];
        if (!const_h)
            gg += f[0] * f[0];
    }
    if (has_tail) {
        hh += 1.0;
        gh_sum += tail_g;
    }
    double RR = 0.0;
    for (size_t i = 0; i < n; i++) {
        gh(x[i], i, ctx, f);
        double R = diff_of_products(hh, f[0], gh_sum, f[2]);
        RR += R * R;
        if (grad)
            grad[i] = 2.0 * f[1] * R;
    }
    if (has_tail) {
        double Rt = hh * tail_g - gh_sum;
        RR += Rt * Rt;
    }
    *value = hh > 0.0 ? RR / hh : 0.0;
    if (!grad || const_h)
        return;
    for (size_t i = 0; i < n; i++) {
        gh(x[i], i, ctx, f);
        if (f[3] != 0.0)
            grad[i] += 2.0 * f[3] * diff_of_products(gg, f[2], gh_sum, f[0]);
    }
}

/* Most entries take a plain vector and nothing else. */
static inline int plain(cs_reg *reg, const double *x, size_t rows, size_t cols, gh_fn gh,
                        int const_h, double *value, double *grad, cs_err *err)
{
    size_t n;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    cs_elementwise(x, n, gh, NULL, const_h, 0, 0.0, value, grad);
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

CS_REG_EVAL_DECL(bin) { return plain(reg, x, rows, cols, gh_bin, 1, value, grad, err); }
CS_REG_EVAL_DECL(osb) { return plain(reg, x, rows, cols, gh_osb, 0, value, grad, err); }
CS_REG_EVAL_DECL(ter) { return plain(reg, x, rows, cols, gh_ter, 0, value, grad, err); }
CS_REG_EVAL_DECL(bbin) { return plain(reg, x, rows, cols, gh_bbin, 1, value, grad, err); }
CS_REG_EVAL_DECL(binexp) { return plain(reg, x, rows, cols, gh_binexp, 1, value, grad, err); }
CS_REG_EVAL_DECL(l2l1) { return plain(reg, x, rows, cols, gh_l2l1, 1, value, grad, err); }

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
    cs_elementwise(x, n, gh_bin, NULL, 1, 1, a2, value, grad);
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
    cs_elementwise(x, len, gh_equ, &seg, 1, 0, 0.0, value, grad);
    return CS_OK;
}
