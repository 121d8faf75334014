/* reg_fast_flat.c — the solver's fused kernels of the CS regularizers with
 * h = 1: the FLAT kernels of reg_builtins.def (g = |x|, 1/(1+x²), e^(−x²),
 * and fixed's g = x² with the constant pair (α², 1)).
 *
 * ℓ = Σ R_n²/‖h‖², R_n = ‖h‖²g_n − ⟨g,h⟩ = N·g_n − Σg (one rounding: fma),
 * ∂ℓ/∂x_n = 2g'_n R_n, in two passes over x: Σg, then R, ΣR², the gradient
 * and its norm in the FISTA stepper's order. The arithmetic is that of the
 * FILL/COMBINE path (reg_cs.c, reg_combine.c: the same lane formulas, the
 * same 4-wide sums in the same order), so the results are the bits of
 * cs_reg_eval_fast; gone are the four arrays, the passes over them and the
 * stepper's separate pass for the norm. l2l1 and fixed compute g again in
 * the second pass; STORED kernels (a division, an exponential per entry)
 * keep it in the instance's scratch. k, the kernel's id, is a constant in
 * each instance of flat_body (FLAT_FNS), so its switches fold. */
#include "reg_fast_internal.h"
#include "reg_gh4.h"
#include "vmath.h"

#define STORED(k) ((cs_reg_kernel_flags(k) & CS_KF_STORED) != 0)
#define IS_EXP(k) ((cs_reg_kernel_flags(k) & CS_KF_EXP) != 0)

/* g at 4 entries (not for an EXP kernel, whose exponential runs over the array) */
CS_AI v4d flat_g(int k, v4d x) { return lane_gh(k, x).g; }
/* g' at 4 entries, from x and g */
CS_AI v4d flat_dg(int k, v4d x, v4d g) { return lane_dg(k, x, g); }

/* An EXP kernel's g into w: e^(e) by SLEEF over the array (reg_cs.c's
 * fill), with e clamped; the zeroing where it was clamped comes in pass 1. */
CS_AI void flat_exp(int k, const double *x, size_t n, double *w)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        st4(w + i, lane_gh(k, ld4(x + i)).g);
    if (i < n) {
        v4d t = lane_gh(k, ld_pad(x + i, n - i)).g;
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

/* tail: the fixed pair (α², 1) or NULL; w: n doubles (STORED kernels) */
CS_AI void flat_body(int k, const double *restrict x, size_t n, const double *tail,
                     double *restrict w, double *f, double *restrict grad, double *gn)
{
    size_t nv = n & ~(size_t)3, n8 = n & ~(size_t)7, i;
    if (IS_EXP(k))
        flat_exp(k, x, n, w);
    /* pass 1: Σg (Σ g·h: h = 1, and ‖h‖² = n exactly) */
    v4d G = z4();
    for (i = 0; i < nv; i += 4) {
        v4d xv = ld4(x + i), g;
        if (IS_EXP(k))
            g = exp_zero(lane_e(k, xv), ld4(w + i));
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
        v4d g = IS_EXP(k) ? exp_zero(lane_e(k, xv), ld_pad(w + i, m)) : flat_g(k, xv);
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
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH) FLAT_FNS_##CLASS(name, CS_REG_KERNEL_##ID)
#define FLAT_FNS_FLAT(name, K) FLAT_FNS(name, K)
#define FLAT_FNS_POLY(name, K)
#define FLAT_FNS_HOLDER(name, K)
#include "reg_builtins.def"

int cs_fast_flat(cs_reg *reg, const double *x, size_t n, double *f, double *grad, double *gn)
{
    flat_fn fn;
    double a2 = 0.0, *w = NULL;
    int k = reg->info->kernel, tail = (cs_reg_kernel_flags(k) & CS_KF_TAIL) != 0;
    switch (k) {
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH) PICK_##CLASS(name, CS_REG_KERNEL_##ID)
#define PICK_FLAT(name, K)                                                                         \
    case K: fn = PICK(name); break;
#define PICK_POLY(name, K)
#define PICK_HOLDER(name, K)
#include "reg_builtins.def"
    default: return CS_EUNSUPPORTED;
    }
    if (tail) {
        a2 = reg->alpha * reg->alpha;
        if (!isfinite(a2 * a2))
            return CS_ENONFINITE;
    }
    if (STORED(k)) {
        cs_err err;
        if (!(w = cs_reg_work(reg, n, &err)))
            return CS_ENOMEM;
    }
    fn(x, n, tail ? &a2 : NULL, w, f, grad, gn);
    return fast_status(*f, grad, n, gn);
}
