/* reg_fast_flat.c — the solver's fused kernels of the CS regularizers with
 * h = 1: l2l1 (g = |x|), fixed (g = x² and the constant pair (α², 1)), bbin
 * (g = 1/(1+x²)) and binexp (g = e^(−x²)).
 *
 * ℓ = Σ R_n²/‖h‖², R_n = ‖h‖²g_n − ⟨g,h⟩ = N·g_n − Σg (one rounding: fma),
 * ∂ℓ/∂x_n = 2g'_n R_n, in two passes over x: Σg, then R, ΣR², the gradient
 * and its norm in the FISTA stepper's order. The arithmetic is that of the
 * FILL/COMBINE path (reg_cs.c, reg_combine.c: the same lane formulas, the
 * same 4-wide sums in the same order), so the results are the bits of
 * cs_reg_eval_fast; gone are the four arrays, the passes over them and the
 * stepper's separate pass for the norm. l2l1 and fixed compute g again in
 * the second pass; bbin and binexp (a division, an exponential per entry)
 * keep it in the instance's scratch. */
#include "reg_fast_internal.h"
#include "reg_gh4.h"
#include "vmath.h"

/* g stored by pass 1 (bbin, binexp), or computed from x in each pass */
#define STORED(k) ((k) == CS_FAST_BBIN || (k) == CS_FAST_BINEXP)

/* g at 4 entries (not for binexp, whose exponential runs over the array) */
CS_AI v4d flat_g(int k, v4d x)
{
    switch (k) {
    case CS_FAST_L2L1: return gh_l2l1(x).g;
    case CS_FAST_BBIN: return g_bbin(x);
    default: return gh_bin(x).g;
    }
}

/* g' at 4 entries, from x and g */
CS_AI v4d flat_dg(int k, v4d x, v4d g)
{
    switch (k) {
    case CS_FAST_L2L1: return gh_l2l1(x).dg;
    case CS_FAST_BBIN: return dg_bbin(x, g);
    case CS_FAST_BINEXP: return dg_binexp(x, g);
    default: return gh_bin(x).dg;
    }
}

/* binexp's g into w: e^(−x²) by SLEEF over the array (reg_cs.c's fill), 0
 * where −x² was clamped; the zeroing comes in pass 1. */
CS_AI void binexp_exp(const double *x, size_t n, double *w)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        st4(w + i, gh_negsq(ld4(x + i)).g);
    if (i < n) {
        v4d t = gh_negsq(ld_pad(x + i, n - i)).g;
        for (size_t q = 0; q < n - i; q++)
            w[i + q] = t[q];
    }
    cs_vm_exp_any(w, w, n, cs_cpu_avx2_fma());
}

/* Pass 2 at entries i..i+3: R, ΣR², and (grad) the gradient, returned. */
CS_AI v4d flat_lane(int k, const double *x, const double *w, size_t i, v4d HH, v4d GH, v4d *R2,
                    double *grad)
{
    v4d xv = ld4(x + i), g = STORED(k) ? ld4(w + i) : flat_g(k, xv);
    v4d R = vfma(HH, g, -GH);
    *R2 += R * R;
    if (!grad)
        return z4();
    v4d d = splat(2.0) * flat_dg(k, xv, g) * R;
    st4(grad + i, d);
    return d;
}

/* tail: the fixed pair (α², 1) or NULL; w: n doubles (bbin, binexp) */
CS_AI void flat_body(int k, const double *restrict x, size_t n, const double *tail,
                     double *restrict w, double *f, double *restrict grad, double *gn)
{
    size_t nv = n & ~(size_t)3, n8 = n & ~(size_t)7, i;
    if (k == CS_FAST_BINEXP)
        binexp_exp(x, n, w);
    /* pass 1: Σg (Σ g·h: h = 1, and ‖h‖² = n exactly) */
    v4d G = z4();
    for (i = 0; i < nv; i += 4) {
        v4d xv = ld4(x + i), g;
        if (k == CS_FAST_BINEXP)
            g = negsq_zero(xv, ld4(w + i));
        else
            g = flat_g(k, xv);
        if (STORED(k))
            st4(w + i, g);
        G += g;
    }
    double hh = (double)n, gh = hsum(G);
    if (i < n) {
        size_t m = n - i;
        v4d xv = ld_pad(x + i, m);
        v4d g = k == CS_FAST_BINEXP ? negsq_zero(xv, ld_pad(w + i, m)) : flat_g(k, xv);
        for (size_t q = 0; q < m; q++) {
            if (STORED(k))
                w[i + q] = g[q];
            gh += g[q];
        }
    }
    if (tail) {
        hh += 1.0;
        gh += *tail;
    }
    /* pass 2: R_n = fma(‖h‖², g_n, −⟨g,h⟩), ΣR², 2g'_n·R_n */
    v4d HH = splat(hh), GH = splat(gh), R2 = z4(), N0 = z4(), N1 = z4();
    for (i = 0; i < n8; i += 8) {
        v4d a = flat_lane(k, x, w, i, HH, GH, &R2, grad);
        v4d b = flat_lane(k, x, w, i + 4, HH, GH, &R2, grad);
        if (gn) {
            N0 += a * a;
            N1 += b * b;
        }
    }
    for (; i < nv; i += 4)
        flat_lane(k, x, w, i, HH, GH, &R2, grad);
    double RR = hsum(R2);
    if (i < n) {
        size_t m = n - i;
        v4d xv = ld_pad(x + i, m), g = STORED(k) ? ld_pad(w + i, m) : flat_g(k, xv);
        v4d dg = flat_dg(k, xv, g);
        for (size_t q = 0; q < m; q++) {
            double R = fma(hh, g[q], -gh);
            RR += R * R;
            if (grad)
                grad[i + q] = 2.0 * dg[q] * R;
        }
    }
    if (tail) {
        double Rt = hh * *tail - gh;
        RR += Rt * Rt;
    }
    *f = hh > 0.0 ? RR / hh : 0.0;
    if (gn)
        *gn = gn_finish(N0, N1, grad, n);
}

typedef void (*flat_fn)(const double *, size_t, const double *, double *, double *, double *,
                        double *);
#define FLAT_FNS(NAME, K)                                                                          \
    static void NAME##_base(const double *x, size_t n, const double *tail, double *w, double *f, \
                            double *grad, double *gn)                                             \
    {                                                                                              \
        flat_body(K, x, n, tail, w, f, grad, gn);                                                  \
    }                                                                                              \
    FLAT_AVX2(NAME, K)
#ifdef CS_AVX2_CLONE
#define FLAT_AVX2(NAME, K)                                                                         \
    static CS_AVX2_FMA_FN void NAME##_avx2(const double *x, size_t n, const double *tail,         \
                                           double *w, double *f, double *grad, double *gn)         \
    {                                                                                              \
        flat_body(K, x, n, tail, w, f, grad, gn);                                                  \
    }
#define PICK(NAME) (cs_cpu_avx2_fma() ? NAME##_avx2 : NAME##_base)
#else
#define FLAT_AVX2(NAME, K)
#define PICK(NAME) NAME##_base
#endif
FLAT_FNS(l2l1, CS_FAST_L2L1)
FLAT_FNS(fixed, CS_FAST_FIXED)
FLAT_FNS(bbin, CS_FAST_BBIN)
FLAT_FNS(binexp, CS_FAST_BINEXP)

int cs_fast_flat(cs_reg *reg, const double *x, size_t n, double *f, double *grad, double *gn)
{
    flat_fn fn;
    double a2 = 0.0, *w = NULL;
    switch (reg->fast) {
    case CS_FAST_L2L1: fn = PICK(l2l1); break;
    case CS_FAST_FIXED:
        a2 = reg->alpha * reg->alpha;
        if (!isfinite(a2 * a2))
            return CS_ENONFINITE;
        fn = PICK(fixed);
        break;
    case CS_FAST_BBIN: fn = PICK(bbin); break;
    case CS_FAST_BINEXP: fn = PICK(binexp); break;
    default: return CS_EUNSUPPORTED;
    }
    if (STORED(reg->fast)) {
        cs_err err;
        if (!(w = cs_reg_work(reg, n, &err)))
            return CS_ENOMEM;
    }
    fn(x, n, reg->fast == CS_FAST_FIXED ? &a2 : NULL, w, f, grad, gn);
    return fast_status(*f, grad, n, gn);
}
