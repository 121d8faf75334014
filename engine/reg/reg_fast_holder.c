/* reg_fast_holder.c — the solver's fused kernels of the Hölder forms at
 * p = q = 2 (reg_holder.c): holder and si over the g, h of bin, osb or ter
 * (any r, any eps), and l2l1h (holder with g = |x|, h = 1, r = 1):
 *
 *   holder  D = P − Q,   si  D/(Q + ε),   P = (‖g‖‖h‖)^r, Q = |⟨g,h⟩|^r,
 *
 * D from the Lemma-1 residual d2 = ‖h‖²‖g − βh‖² = (‖g‖‖h‖)² − ⟨g,h⟩²
 * (cs_holder_lemma1), so the value keeps its relative accuracy near the
 * zero set; r enters through pow of the scalars only. Passes over x: the
 * sums Σg², Σh², Σgh (bin and |x|: ‖h‖² = N); the residual, with the
 * gradient and its norm for holder (its coefficients need only the sums);
 * si's gradient needs the value, so a third pass. The arithmetic is that
 * of the FILL/COMBINE path (the same lane formulas, reg_gh4.h; the same
 * 4-wide sums in the same order; the scalars by the same functions), so
 * the results are the bits of cs_reg_eval_fast. */
#include "reg_fast_internal.h"
#include "reg_gh.h"
#include "reg_gh4.h"

/* The bases: bin, osb, ter (holder and si: key base=), |x| (l2l1h). */
enum { HB_BIN, HB_OSB, HB_TER, HB_ABS };
#define FLAT_H(b) ((b) == HB_BIN || (b) == HB_ABS)   /* h = 1 */

CS_AI gh4 base_gh(int b, v4d x)
{
    switch (b) {
    case HB_OSB: return lane_osb(x);
    case HB_TER: return lane_ter(x);
    case HB_ABS: return lane_l2l1h(x);
    default: return lane_bin(x);
    }
}

/* Pass 1: Σ|g|², Σ|h|², ⟨g,h⟩, ‖h‖² (out[0..3]; reg_holder.c's sums_body
 * at p = q = 2 without normalization). */
CS_AI void sums_pass(int b, const double *x, size_t n, double out[4])
{
    size_t i = 0, nv = n & ~(size_t)3;
    v4d SG = z4(), SH = z4(), C = z4(), HH = z4();
    for (; i < nv; i += 4) {
        gh4 t = base_gh(b, ld4(x + i));
        v4d wg = vabs(t.g);
        SG += wg * wg;
        C += t.g * t.h;
        if (!FLAT_H(b)) {
            v4d wh = vabs(t.h);
            SH += wh * wh;
            HH += t.h * t.h;
        }
    }
    double sg = hsum(SG), sh = hsum(SH), c = hsum(C), hh = hsum(HH);
    if (i < n) {
        gh4 t = base_gh(b, ld_pad(x + i, n - i));
        for (size_t q = 0; q < n - i; q++) {
            double wg = fabs(t.g[q]), wh = fabs(t.h[q]);
            sg += wg * wg;
            sh += wh * wh;
            c += t.g[q] * t.h[q];
            hh += t.h[q] * t.h[q];
        }
    }
    if (FLAT_H(b))
        sh = hh = (double)n;   /* a sum of ones: exact in any order */
    out[0] = sg, out[1] = sh, out[2] = c, out[3] = hh;
}

/* Pass 2 or 3 at entries i..i+3: (R2) the residual (g − βh)² summed,
 * (grad) the gradient, returned. */
CS_AI v4d grad_lane(int b, const double *x, size_t i, v4d B, v4d *R2, const hcoef *k,
                    double *grad)
{
    gh4 t = base_gh(b, ld4(x + i));
    if (R2) {
        v4d r = t.g - B * t.h;
        *R2 += r * r;
    }
    if (!grad)
        return z4();
    v4d wg = vabs(t.g) * splat(k->iA), wh = vabs(t.h) * splat(k->iB);
    v4d d = holder_lane4(t.g, t.dg, t.h, t.dh, wg, wh, k);
    st4(grad + i, d);
    return d;
}

/* A pass over x: with res, returns Σ(g − βh)² (cs_residual2's order);
 * with grad, the gradient by the coefficients k and (gn) its norm. */
CS_AI double grad_pass(int b, const double *x, size_t n, double beta, int res, const hcoef *k,
                       double *grad, double *gn)
{
    size_t i = 0, nv = n & ~(size_t)3, n8 = n & ~(size_t)7;
    v4d B = splat(beta), R2 = z4(), N0 = z4(), N1 = z4(), *pr = res ? &R2 : NULL;
    for (; i < n8; i += 8) {
        v4d u = grad_lane(b, x, i, B, pr, k, grad), w = grad_lane(b, x, i + 4, B, pr, k, grad);
        if (gn) {
            N0 += u * u;
            N1 += w * w;
        }
    }
    for (; i < nv; i += 4)
        grad_lane(b, x, i, B, pr, k, grad);
    double rr = hsum(R2);
    if (i < n) {
        gh4 t = base_gh(b, ld_pad(x + i, n - i));
        for (size_t q = 0; q < n - i; q++) {
            double g = t.g[q], h = t.h[q];
            if (res)
                rr += (g - beta * h) * (g - beta * h);
            if (grad)
                grad[i + q] = holder_lane1(g, t.dg[q], h, t.dh[q], fabs(g) * k->iA,
                                           fabs(h) * k->iB, k);
        }
    }
    if (gn)
        *gn = gn_finish(N0, N1, grad, n);
    return rr;
}

/* f (and grad, gn) of the form; CS_ENONFINITE where si's Q + ε is 0. */
CS_AI int holder_body(int b, const double *x, size_t n, double r, int si, double eps,
                      double *f, double *grad, double *gn)
{
    double sum[4];
    sums_pass(b, x, n, sum);
    double hh = sum[3];
    cs_hsums s;
    cs_holder_norms(2.0, 2.0, r, 1.0, 1.0, sum[0], sum[1], sum[2], &s);
    hcoef k = {0, 0, 0, 0, 0};
    /* holder: the gradient in the residual's pass */
    double *g2 = si ? NULL : grad, *gn2 = si ? NULL : gn;
    if (g2)
        cs_holder_coefs(r, &s, 1.0, 1.0, &k);
    if (hh > 0.0) {
        cs_holder_lemma1(r, hh * grad_pass(b, x, n, s.c / hh, 1, &k, g2, gn2), &s);
    } else {
        s.D = s.P > s.Q ? s.P - s.Q : 0.0;
        if (g2)
            grad_pass(b, x, n, 0.0, 0, &k, g2, gn2);
    }
    if (!si) {
        *f = s.D;
        return CS_OK;
    }
    double den = s.Q + eps;
    if (!(den > 0.0))
        return CS_ENONFINITE;   /* ⟨g,h⟩ = 0 and ε = 0: the value is undefined */
    double v = s.D / den;
    *f = v;
    if (grad) {
        cs_holder_coefs(r, &s, 1.0 / den, (1.0 + v) / den, &k);
        grad_pass(b, x, n, 0.0, 0, &k, grad, gn);
    }
    return CS_OK;
}

typedef int (*holder_fn)(const double *, size_t, double, int, double, double *, double *,
                         double *);
#define HOLDER_FNS(NAME, B)                                                                        \
    static int NAME##_base(const double *x, size_t n, double r, int si, double eps, double *f,   \
                           double *grad, double *gn)                                              \
    {                                                                                              \
        return holder_body(B, x, n, r, si, eps, f, grad, gn);                                      \
    }                                                                                              \
    HOLDER_AVX2(NAME, B)
#ifdef CS_AVX2_CLONE
#define HOLDER_AVX2(NAME, B)                                                                       \
    static CS_AVX2_FN int NAME##_avx2(const double *x, size_t n, double r, int si, double eps,   \
                                      double *f, double *grad, double *gn)                        \
    {                                                                                              \
        return holder_body(B, x, n, r, si, eps, f, grad, gn);                                      \
    }
#define HOLDER_ROW(NAME) {NAME##_base, NAME##_avx2}
#else
#define HOLDER_AVX2(NAME, B)
#define HOLDER_ROW(NAME) {NAME##_base, NAME##_base}
#endif
HOLDER_FNS(hbin, HB_BIN)
HOLDER_FNS(hosb, HB_OSB)
HOLDER_FNS(hter, HB_TER)
HOLDER_FNS(habs, HB_ABS)

/* by base (HB_*), then baseline / AVX2 */
static const holder_fn holder_fns[4][2] = {HOLDER_ROW(hbin), HOLDER_ROW(hosb), HOLDER_ROW(hter),
                                            HOLDER_ROW(habs)};
/* the bases of holder and si, by enum cs_reg_base */
static const int base_of[CS_BASE_COUNT] = {HB_BIN, HB_OSB, HB_TER};

int cs_fast_holder(cs_reg *reg, const double *x, size_t n, double *f, double *grad, double *gn)
{
    int b = reg->fast == CS_FAST_KHOLDER ? HB_ABS : base_of[reg->base];
    double r = reg->fast == CS_FAST_KHOLDER ? 1.0 : reg->r;
    int rc = holder_fns[b][cs_cpu_avx2() != 0](x, n, r, reg->fast == CS_FAST_SI, reg->eps, f,
                                                 grad, gn);
    return rc ? rc : fast_status(*f, grad, n, gn);
}
