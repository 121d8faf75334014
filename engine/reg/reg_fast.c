/* reg_fast.c — the solver's fused kernels (cs_reg_fast.h): which one an
 * instance gets, the dispatch, and the hand-written kernels of bin, osb and
 * ter without parameters (the others: reg_fast_flat.c, reg_fast_holder.c). */
#include "cs_reg_fast.h"

#include <math.h>
#include <stddef.h>

#include "cs_simd.h"
#include "reg_fast_internal.h"

/* Fast paths for bin, osb and ter without parameters: the same Lemma-1 form
 * as the regularizer library (ℓ = ‖h‖²‖g − βh‖², β = ⟨g,h⟩/‖h‖²) in two or
 * three fused passes with split accumulators; the library's general kernel
 * costs 3–5× more at N = 100 and FISTA evaluates ℓ twice per iteration.
 * tests/test_reg_fast.c and tests/test_fista.c check both agree. */

/* The kernels are written once on 4-wide vectors (GCC vector extensions)
 * and compiled twice: for AVX2 (picked at run time when the CPU has it)
 * and for the baseline ISA. Each run uses one of them throughout, so a
 * result does not depend on the thread count. `gbad` collects g·0 over the
 * gradient: 0 exactly when every entry is finite (no separate check pass). */

/* gn (with grad): ‖grad‖ in the summation order of the FISTA stepper's norm
 * (two 4-wide accumulators over blocks of 8, then the scalar tail; osb and
 * ter likewise). */
CS_AI int
bin_body(const double *restrict x, size_t n, double *f, double *restrict grad, double *gn)
{
    v4d a0 = {0, 0, 0, 0}, a1 = a0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        v4d u = ld4(x + i), w = ld4(x + i + 4);
        a0 += u * u;
        a1 += w * w;
    }
    double s = hsum(a0 + a1);
    for (; i < n; i++)
        s += x[i] * x[i];
    double nn = (double)n, beta = s / nn, c = 4.0 * nn;
    v4d r0 = {0, 0, 0, 0}, r1 = r0, bad = r0, n0 = r0, n1 = r0;
    v4d bv = {beta, beta, beta, beta}, cv = {c, c, c, c}, zero = r0;
    for (i = 0; i + 8 <= n; i += 8) {
        v4d u = ld4(x + i), w = ld4(x + i + 4);
        v4d p = u * u - bv, q = w * w - bv;
        r0 += p * p;
        r1 += q * q;
        if (grad) {
            v4d gu = cv * u * p, gw = cv * w * q;
            st4(grad + i, gu);
            st4(grad + i + 4, gw);
            bad += gu * zero + gw * zero;
            if (gn) {
                n0 += gu * gu;
                n1 += gw * gw;
            }
        }
    }
    double r = hsum(r0 + r1), gb = hsum(bad), gg = gn ? hsum(n0 + n1) : 0.0;
    for (; i < n; i++) {
        double p = x[i] * x[i] - beta;
        r += p * p;
        if (grad) {
            grad[i] = c * x[i] * p;
            gb += grad[i] * 0.0;
            if (gn)
                gg += grad[i] * grad[i];
        }
    }
    if (gn)
        *gn = sqrt(gg);
    *f = nn * r;
    return isfinite(*f) && gb == 0.0 ? CS_OK : CS_ENONFINITE;
}

/* osb/ter's gradient at entries i..i+3 (see below), stored and returned */
CS_AI v4d osb_ter_grad(const double *restrict x, size_t i, int p3, v4d bv, v4d K1, v4d K2, v4d K3,
                       v4d *bad, double *restrict grad)
{
    v4d two = {2, 2, 2, 2}, three = {3, 3, 3, 3}, zero = {0, 0, 0, 0};
    v4d a = ld4(x + i);
    v4d r = (p3 ? a * a * a : a * a) - bv * a;
    v4d gp = p3 ? three * a * a : two * a;
    v4d g = K1 * gp * r + (K2 * a - K3 * r);
    st4(grad + i, g);
    *bad += g * zero;
    return g;
}

/* osb (p = 2: g = x², h = x) and ter (p = 3: g = x³, h = x):
 * ℓ = ‖h‖²‖g − βh‖², β = ⟨g,h⟩/‖h‖²;
 * ∂ℓ/∂x = 2‖h‖² g' r + 2 (‖r‖² x − β‖h‖² r), r = g − βx. */
CS_AI int
osb_ter_body(const double *restrict x, size_t n, int p3, double *f, double *restrict grad,
             double *gn)
{
    v4d h0 = {0, 0, 0, 0}, h1 = h0, q0 = h0, q1 = h0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        v4d u = ld4(x + i), w = ld4(x + i + 4);
        v4d uu = u * u, ww = w * w;
        h0 += uu;
        h1 += ww;
        q0 += p3 ? uu * uu : uu * u;
        q1 += p3 ? ww * ww : ww * w;
    }
    double hh = hsum(h0 + h1), gh = hsum(q0 + q1);
    for (; i < n; i++) {
        double a = x[i] * x[i];
        hh += a;
        gh += p3 ? a * a : a * x[i];
    }
    double beta = hh > 0.0 ? gh / hh : 0.0;
    v4d bv = {beta, beta, beta, beta}, r0 = {0, 0, 0, 0}, r1 = r0;
    for (i = 0; i + 8 <= n; i += 8) {
        v4d u = ld4(x + i), w = ld4(x + i + 4);
        v4d ru = (p3 ? u * u * u : u * u) - bv * u, rw = (p3 ? w * w * w : w * w) - bv * w;
        r0 += ru * ru;
        r1 += rw * rw;
    }
    double rr = hsum(r0 + r1);
    for (; i < n; i++) {
        double a = x[i];
        double ra = (p3 ? a * a * a : a * a) - beta * a;
        rr += ra * ra;
    }
    *f = hh * rr;
    double gb = 0.0;
    if (grad) {
        double k1 = 2.0 * hh, k2 = 2.0 * rr, k3 = 2.0 * beta * hh;
        v4d K1 = {k1, k1, k1, k1}, K2 = {k2, k2, k2, k2}, K3 = {k3, k3, k3, k3};
        v4d bad = {0, 0, 0, 0}, n0 = bad, n1 = bad;
        for (i = 0; i + 8 <= n; i += 8) {
            v4d u = osb_ter_grad(x, i, p3, bv, K1, K2, K3, &bad, grad);
            v4d w = osb_ter_grad(x, i + 4, p3, bv, K1, K2, K3, &bad, grad);
            if (gn) {
                n0 += u * u;
                n1 += w * w;
            }
        }
        for (; i + 4 <= n; i += 4)
            osb_ter_grad(x, i, p3, bv, K1, K2, K3, &bad, grad);
        gb = hsum(bad);
        for (; i < n; i++) {
            double a = x[i];
            double r = (p3 ? a * a * a : a * a) - beta * a;
            double gp = p3 ? 3.0 * a * a : 2.0 * a;
            grad[i] = k1 * gp * r + (k2 * a - k3 * r);
            gb += grad[i] * 0.0;
        }
        if (gn)
            *gn = gn_finish(n0, n1, grad, n);
    }
    return isfinite(*f) && gb == 0.0 ? CS_OK : CS_ENONFINITE;
}

#ifdef CS_AVX2_CLONE
static CS_AVX2_FN int bin_avx2(const double *x, size_t n, double *f, double *grad, double *gn)
{
    return bin_body(x, n, f, grad, gn);
}
static CS_AVX2_FN int osb_ter_avx2(const double *x, size_t n, int p3, double *f, double *grad,
                                   double *gn)
{
    return osb_ter_body(x, n, p3, f, grad, gn);
}
#endif
static int bin_base(const double *x, size_t n, double *f, double *grad, double *gn)
{
    return bin_body(x, n, f, grad, gn);
}
static int osb_ter_base(const double *x, size_t n, int p3, double *f, double *grad, double *gn)
{
    return osb_ter_body(x, n, p3, f, grad, gn);
}

static int fast_bin(const double *x, size_t n, double *f, double *grad, double *gn)
{
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2())
        return bin_avx2(x, n, f, grad, gn);
#endif
    return bin_base(x, n, f, grad, gn);
}

static int fast_osb_ter(const double *x, size_t n, int p3, double *f, double *grad, double *gn)
{
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2())
        return osb_ter_avx2(x, n, p3, f, grad, gn);
#endif
    return osb_ter_base(x, n, p3, f, grad, gn);
}

/* The fused kernel of an instance, from its table entry (kernel, form) and
 * parameters: the entry's kernel when the instance has no parameters, and
 * fixed with any alpha; holder and si built on bin, osb or ter at
 * p = q = 2 (any r and eps); defined entries in the CS form (the Hölder
 * forms of defined entries take the library's path). */
int cs_reg_fast_pick(const cs_reg *reg)
{
    const cs_reg_info *info = reg->info;
    if (cs_reg_info_defined(info))
        return info->form == CS_FORM_NONE ? CS_FAST_DEFINED : CS_FAST_NONE;
    if (info->form != CS_FORM_NONE) {
        if (reg->p != 2.0 || reg->q != 2.0)
            return CS_FAST_NONE;
        return info->form == CS_FORM_HOLDER ? CS_FAST_HOLDER : CS_FAST_SI;
    }
    /* fixed has a parameter (alpha) and still its kernel */
    cs_reg_kernel k = info->kernel == CS_REG_KERNEL_FIXED ? info->kernel : cs_reg_kernel_of(reg);
    switch (cs_reg_kernel_class(k)) {
    case CS_KC_POLY:
        return k == CS_REG_KERNEL_BIN ? CS_FAST_BIN : k == CS_REG_KERNEL_OSB ? CS_FAST_OSB
                                                                            : CS_FAST_TER;
    case CS_KC_FLAT: return CS_FAST_FLAT;
    case CS_KC_HOLDER: return CS_FAST_KHOLDER;
    default: return CS_FAST_NONE;
    }
}

int cs_reg_fast_has(const cs_reg *reg) { return reg->fast != CS_FAST_NONE; }

int cs_reg_fast_eval(cs_reg *reg, const double *x, size_t n, double *f, double *grad,
                     double *gnorm)
{
    if (!grad)
        gnorm = NULL;
    switch (reg->fast) {
    case CS_FAST_BIN: return fast_bin(x, n, f, grad, gnorm);
    case CS_FAST_OSB:
    case CS_FAST_TER: return fast_osb_ter(x, n, reg->fast == CS_FAST_TER, f, grad, gnorm);
    case CS_FAST_FLAT: return cs_fast_flat(reg, x, n, f, grad, gnorm);
    case CS_FAST_KHOLDER:
    case CS_FAST_HOLDER:
    case CS_FAST_SI: return cs_fast_holder(reg, x, n, f, grad, gnorm);
    case CS_FAST_DEFINED: return cs_fast_defined(reg, x, n, f, grad, gnorm);
    default: return CS_EUNSUPPORTED;
    }
}
