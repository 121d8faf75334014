/* reg_holder.c — Hölder regularizers (Prop. 2), their scale-invariant
 * variant (Prop. 3) and the non-differentiable √N‖x‖₂ − ‖x‖₁ (app. B.4):
 *   holder  P − Q,            P = ‖g‖_p^r ‖h‖_q^r,  Q = |⟨g,h⟩|^r
 *   si      (P + ε)/(Q + ε) − 1
 * with elementwise g, h of a base (bin, osb, ter, or |x| for l2l1h).
 *
 * Every evaluation of the library first rescales x by a power of two so
 * that max|x| is in [0.5, 1): then |g|, |h| ≤ 1, the norms need no overflow
 * guard for any p, and the result is scaled back by 2^(e·degree), exactly
 * when the degree is an integer (the solver's path skips that at p = q = 2). For p = q = 2 the difference P − Q is computed from the
 * Lemma-1 residual, so it keeps relative accuracy near the zero set. */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "cs_simd.h"
#include "cs_vec.h"
#include "reg_evals.h"
#include "reg_gh.h"
#include "reg_gh4.h"
#include "reg_internal.h"
#include "vmath.h"

typedef struct hcfg {
    double p, q, r;
} hcfg;


/* v·2^k for real k, without overflowing in the factor alone. */
static double scale2(double v, double k)
{
    if (v == 0.0)
        return 0.0;
    double fk = floor(k);
    if (fk > 100000.0)
        fk = 100000.0;
    else if (fk < -100000.0)
        fk = -100000.0;
    double frac = k - fk;
    return ldexp(frac != 0.0 ? v * exp2(frac) : v, (int)fk);
}

/* a^r − b^r for a ≥ b ≥ 0, given d = a − b accurately: b^r·(e^(r·log(1 + d/b)) − 1)
 * keeps that accuracy when a and b are close. */
static double pow_diff(double a, double b, double d, double r)
{
    if (r == 1.0)
        return d;
    if (d > b)   /* far apart: no cancellation to fear */
        return pow(a, r) - pow(b, r);
    return pow(b, r) * expm1(r * log1p(d / b));
}

/* The x_n·2^-e the form is evaluated at. */
typedef struct hscale {
    int e;
    double s;   /* 2^-e when representable, else 0: use ldexp */
} hscale;

/* w[i] = (|v[i]|·scale)^p for p other than 1 and 2: libm's pow (seq: the
 * library) or SLEEF's (the solver). */
static void abs_pow(double *w, const double *v, double scale, double p, size_t n, int seq)
{
    for (size_t i = 0; i < n; i++)
        w[i] = fabs(v[i]) * scale;
    if (p == 1.0)
        return;
    if (seq)
        for (size_t i = 0; i < n; i++)
            w[i] = pow(w[i], p);
    else
        cs_vm_pow_any(w, w, p, n, cs_cpu_avx2_fma());
}

/* Σ(|g|·img)^p, Σ(|h|·imh)^q, ⟨g,h⟩, ‖h‖² (out[0..3]): the powers inline
 * for exponent 2 (p2, q2), else read from tg, th. seq: entry by entry (the
 * library's order); else 4-wide first. */
CS_AI void sums_body(const cs_gh *a, size_t n, double img, double imh, int p2, int q2,
                     const double *tg, const double *th, int seq, double out[4])
{
    const double *g = a->g, *h = a->h;
    size_t i = 0, nv = seq ? 0 : n & ~(size_t)3;
    v4d SG = z4(), SH = z4(), C = z4(), HH = z4(), IG = splat(img), IH = splat(imh);
    for (; i < nv; i += 4) {
        v4d gv = ld4(g + i), hv = ld4(h + i), wg = vabs(gv) * IG, wh = vabs(hv) * IH;
        SG += p2 ? wg * wg : ld4(tg + i);
        SH += q2 ? wh * wh : ld4(th + i);
        C += gv * hv;
        HH += hv * hv;
    }
    double sg = hsum(SG), sh = hsum(SH), c = hsum(C), hh = hsum(HH);
    for (; i < n; i++) {
        double wg = fabs(g[i]) * img, wh = fabs(h[i]) * imh;
        sg += p2 ? wg * wg : tg[i];
        sh += q2 ? wh * wh : th[i];
        c += g[i] * h[i];
        hh += h[i] * h[i];
    }
    out[0] = sg, out[1] = sh, out[2] = c, out[3] = hh;
}

/* grad_n = (cg·|g_n|^(p−1) sgn(g_n) g'_n + ch·|h_n|^(q−1) sgn(h_n) h'_n
 * − cq·(g'_n h_n + g_n h'_n))·out_scale, |g_n|^(p−1) = |g_n|·iA for p = 2
 * (p2), else pg[n]; likewise for h (the lane formula of reg_gh4.h). */
CS_AI void grad_body(const cs_gh *a, size_t n, const hcoef *kp, int p2, int q2, const double *pg,
                     const double *ph, double out_scale, int seq, double *grad)
{
    const hcoef kc = *kp, *k = &kc;   /* a local copy: the stores cannot alias it */
    size_t i = 0, nv = seq ? 0 : n & ~(size_t)3;
    v4d IA = splat(k->iA), IB = splat(k->iB), S = splat(out_scale), z = z4();
    for (; i < nv; i += 4) {
        v4d g = ld4(a->g + i), dg = ld4(a->dg + i), h = ld4(a->h + i);
        v4d dh = a->flat_h ? z : ld4(a->dh + i);
        v4d wg = p2 ? vabs(g) * IA : ld4(pg + i), wh = q2 ? vabs(h) * IB : ld4(ph + i);
        st4(grad + i, holder_lane4(g, dg, h, dh, wg, wh, k) * S);
    }
    for (; i < n; i++) {
        double g = a->g[i], dg = a->dg[i], h = a->h[i], dh = a->flat_h ? 0.0 : a->dh[i];
        double wg = p2 ? fabs(g) * k->iA : pg[i], wh = q2 ? fabs(h) * k->iB : ph[i];
        grad[i] = holder_lane1(g, dg, h, dh, wg, wh, k) * out_scale;
    }
}

#ifdef CS_AVX2_CLONE
static CS_AVX2_FN void sums_avx2(const cs_gh *a, size_t n, double img, double imh, int p2,
                                 int q2, const double *tg, const double *th, double out[4])
{
    sums_body(a, n, img, imh, p2, q2, tg, th, 0, out);
}
static CS_AVX2_FN void grad_avx2(const cs_gh *a, size_t n, const hcoef *k, int p2, int q2,
                                 const double *pg, const double *ph, double out_scale,
                                 double *grad)
{
    grad_body(a, n, k, p2, q2, pg, ph, out_scale, 0, grad);
}
#endif
static void sums_base(const cs_gh *a, size_t n, double img, double imh, int p2, int q2,
                      const double *tg, const double *th, int seq, double out[4])
{
    sums_body(a, n, img, imh, p2, q2, tg, th, seq, out);
}
static void grad_base(const cs_gh *a, size_t n, const hcoef *k, int p2, int q2,
                      const double *pg, const double *ph, double out_scale, int seq,
                      double *grad)
{
    grad_body(a, n, k, p2, q2, pg, ph, out_scale, seq, grad);
}

/* The sums of g and h in a; the norms are taken relative to max|g| and
 * max|h| (no overflow for any p) unless `plain`. t: 2n doubles of scratch. */
static void compute_sums(const hcfg *cf, const cs_gh *a, size_t n, double *t, int seq,
                         int plain, cs_hsums *s)
{
    double mg = plain ? 1.0 : cs_vec_maxabs(a->g, n), mh = plain ? 1.0 : cs_vec_maxabs(a->h, n);
    double img = mg > 0.0 ? 1.0 / mg : 0.0, imh = mh > 0.0 ? 1.0 / mh : 0.0;
    int p2 = cf->p == 2.0, q2 = cf->q == 2.0;
    if (!p2)
        abs_pow(t, a->g, img, cf->p, n, seq);
    if (!q2)
        abs_pow(t + n, a->h, imh, cf->q, n, seq);
    double sum[4];
#ifdef CS_AVX2_CLONE
    if (!seq && cs_cpu_avx2())
        sums_avx2(a, n, img, imh, p2, q2, t, t + n, sum);
    else
#endif
        sums_base(a, n, img, imh, p2, q2, t, t + n, seq, sum);
    double hh = sum[3];
    cs_holder_norms(cf->p, cf->q, cf->r, mg, mh, sum[0], sum[1], sum[2], s);
    if (p2 && q2 && hh > 0.0)
        cs_holder_lemma1(cf->r, hh * cs_residual2(a->g, a->h, s->c / hh, n, seq), s);
    else
        s->D = s->P > s->Q ? s->P - s->Q : 0.0;
}

/* A, B, c, P and Q of the form (reg_gh.h). */
void cs_holder_norms(double p, double q, double r, double mg, double mh, double sg, double sh,
                     double c, cs_hsums *s)
{
    s->A = mg * (p == 2.0 ? sqrt(sg) : pow(sg, 1.0 / p));
    s->B = mh * (q == 2.0 ? sqrt(sh) : pow(sh, 1.0 / q));
    s->c = c;
    double aa = s->A * s->B, b = fabs(c);
    s->P = r == 1.0 ? aa : pow(aa, r);   /* pow(v, 1) is v */
    s->Q = r == 1.0 ? b : pow(b, r);
}

/* a² − b² = ‖h‖²‖g − βh‖² = d2 (Lemma 1), then a − b = (a² − b²)/(a + b)
 * (0 at a = b = 0; NaN stays NaN). */
void cs_holder_lemma1(double r, double d2, cs_hsums *s)
{
    double aa = s->A * s->B, b = fabs(s->c);
    s->D = r == 2.0 ? d2 : pow_diff(aa, b, aa + b == 0.0 ? 0.0 : d2 / (aa + b), r);
}

/* ∂A^r/∂x_n = r A^r (|g_n|/A)^(p−1) sign(g_n) g'_n / A, likewise for B and Q. */
void cs_holder_coefs(double r, const cs_hsums *s, double kp, double kq, hcoef *k)
{
    k->cg = s->A > 0.0 ? kp * r * s->P / s->A : 0.0;
    k->ch = s->B > 0.0 ? kp * r * s->P / s->B : 0.0;
    k->cq = s->c != 0.0 ? kq * r * s->Q / s->c : 0.0;
    k->iA = s->A > 0.0 ? 1.0 / s->A : 0.0;
    k->iB = s->B > 0.0 ? 1.0 / s->B : 0.0;
}

/* grad_n = kp·∂P/∂x_n − kq·∂Q/∂x_n (at the rescaled point), times
 * `out_scale`. t: 2n doubles of scratch. */
static void combine_grad(const hcfg *cf, const cs_gh *a, size_t n, const cs_hsums *s, double kp,
                         double kq, double out_scale, double *t, int seq, double *grad)
{
    hcoef k;
    cs_holder_coefs(cf->r, s, kp, kq, &k);
    int p2 = cf->p == 2.0, q2 = cf->q == 2.0;
    if (!p2)
        abs_pow(t, a->g, k.iA, cf->p - 1.0, n, seq);
    if (!q2)
        abs_pow(t + n, a->h, k.iB, cf->q - 1.0, n, seq);
#ifdef CS_AVX2_CLONE
    if (!seq && cs_cpu_avx2()) {
        grad_avx2(a, n, &k, p2, q2, t, t + n, out_scale, grad);
        return;
    }
#endif
    grad_base(a, n, &k, p2, q2, t, t + n, out_scale, seq, grad);
}

/* Power-of-two exponent e with max|x|·2^-e in [0.5, 1); M gets that maximum. */
static hscale find_scale(const double *x, size_t n, double *M)
{
    double m = cs_vec_maxabs(x, n);
    hscale sc = {0, 1.0};
    if (m > 0.0) {
        frexp(m, &sc.e);
        sc.s = (sc.e > -1000 && sc.e < 1000) ? ldexp(1.0, -sc.e) : 0.0;
    }
    *M = m > 0.0 ? ldexp(m, -sc.e) : 0.0;
    return sc;
}

/* The form's sums at x: rescaled when g and h are homogeneous (then *deg is
 * the degree of P and Q, else 0), filled, summed; *t: 2n doubles of
 * scratch. *zero: the argument is 0 and g, h homogeneous: the zero set,
 * nothing filled. */
static int prepare(cs_reg *reg, const cs_holder_gh *gh, const hcfg *cf, const double *x,
                   size_t n, int need_d, cs_gh *a, double **t, hscale *sc, double *deg,
                   int *zero, cs_hsums *s, cs_err *err)
{
    double *xs;
    int rc = cs_gh_scratch(reg, n, 3 * n, a, &xs, err);
    if (rc)
        return rc;
    *t = xs + n;   /* 2n for the powers */
    *sc = (hscale){0, 1.0};
    *deg = 0.0;
    *zero = 0;
    const double *at = x;
    /* The solver's path at p = q = 2 (cs_reg_eval_fast): no rescaling and no
     * normalization, which guard pow against overflow; a value that
     * overflows there is not finite, and the solver calls that divergence. */
    int plain = reg->vector && cf->p == 2.0 && cf->q == 2.0;
    if (gh->homogeneous && !plain) {
        double M;
        *sc = find_scale(x, n, &M);
        *deg = cf->r * (gh->kg + gh->kh);
        if (M == 0.0) {   /* g = 0 (and h = 0 unless h is constant): the zero set */
            *zero = 1;
            return CS_OK;
        }
        if (sc->s != 0.0)
            for (size_t i = 0; i < n; i++)
                xs[i] = x[i] * sc->s;
        else
            for (size_t i = 0; i < n; i++)
                xs[i] = ldexp(x[i], -sc->e);
        at = xs;
    }
    rc = gh->fill(reg, at, n, a, need_d, err);
    if (rc)
        return rc;
    compute_sums(cf, a, n, *t, !reg->vector, plain, s);
    return CS_OK;
}

static int holder_eval(cs_reg *reg, const cs_holder_gh *gh, const hcfg *cf, const double *x,
                       size_t n, double *value, double *grad, cs_err *err)
{
    cs_gh a;
    hscale sc;
    double deg, *t;
    int zero;
    cs_hsums s;
    int rc = prepare(reg, gh, cf, x, n, grad != NULL, &a, &t, &sc, &deg, &zero, &s, err);
    if (rc)
        return rc;
    if (zero) {
        *value = 0.0;
        for (size_t i = 0; grad && i < n; i++)
            grad[i] = 0.0;
        return CS_OK;
    }
    *value = scale2(s.D, deg * sc.e);
    if (grad)
        combine_grad(cf, &a, n, &s, 1.0, 1.0, scale2(1.0, (deg - 1.0) * sc.e), t,
                     !reg->vector, grad);
    return CS_OK;
}

/* log10(10^a + 10^b), either may be -inf */
static double log10_add(double a, double b)
{
    double m = fmax(a, b);
    return isinf(m) ? m : m + log10(pow(10.0, a - m) + pow(10.0, b - m));
}

/* Q + ε came out 0 at the rescaled point (ε there is eps·2^-shift): ⟨g,h⟩
 * = 0 with eps = 0, where the value is undefined, or |⟨g,h⟩|^r and ε both
 * underflow at a large r, where the value, (P − Q)/(Q + ε), overflows. */
static int si_undefined(const cs_reg *reg, const hcfg *cf, const cs_hsums *s, double eps,
                        double shift, cs_err *err)
{
    const char *name = reg->info->name;
    if (s->c == 0.0 && eps == 0.0)
        return cs_fail(err, CS_ENONFINITE, "%s: <g,h> = 0 here, so the value is undefined "
                       "(use eps > 0)", name);
    double lp = cf->r * (log10(s->A) + log10(s->B)), lq = cf->r * log10(fabs(s->c));
    double le = eps > 0.0 ? log10(eps) - shift * log10(2.0) : -INFINITY;
    double lnum = lq < lp ? lp + log10(-expm1((lq - lp) * log(10.0))) : -INFINITY;
    double lv = lnum - log10_add(lq, le);
    if (lv > log10(DBL_MAX))
        return cs_fail(err, CS_ENONFINITE, "%s: the value overflows a double here (about "
                       "10^%.0f at r=%g: ||g||^r*||h||^r against |<g,h>|^r + eps); use a "
                       "smaller r", name, lv, cf->r);
    return cs_fail(err, CS_ENONFINITE, "%s: |<g,h>|^r + eps underflows to 0 here at r=%g, so "
                   "the value cannot be computed in doubles; use a smaller r", name, cf->r);
}

static int si_eval(cs_reg *reg, const cs_holder_gh *gh, const hcfg *cf, double eps,
                   const double *x, size_t n, double *value, double *grad, cs_err *err)
{
    cs_gh a;
    hscale sc;
    double deg, *t;
    int zero;
    cs_hsums s = {0};
    int rc = prepare(reg, gh, cf, x, n, grad != NULL, &a, &t, &sc, &deg, &zero, &s, err);
    if (rc)
        return rc;
    /* (2^(eD)P' + ε)/(2^(eD)Q' + ε) − 1 = (P' − Q')/(Q' + ε·2^(−eD)) */
    double epsp = scale2(eps, -deg * sc.e);
    double den = s.Q + epsp;
    if (!(den > 0.0))
        return si_undefined(reg, cf, &s, eps, deg * sc.e, err);
    double v = s.D / den;
    *value = v;
    if (!grad)
        return CS_OK;
    if (zero) {
        for (size_t i = 0; i < n; i++)
            grad[i] = 0.0;
        return CS_OK;
    }
    /* ∇ = (∇P − (1 + v)∇Q)/(Q + ε), then the chain rule for x' = x·2^-e */
    combine_grad(cf, &a, n, &s, 1.0 / den, (1.0 + v) / den, scale2(1.0, -(double)sc.e),
                 t, !reg->vector, grad);
    return CS_OK;
}

int cs_holder_form(cs_reg *reg, const cs_holder_gh *gh, const double *x, size_t n,
                   double *value, double *grad, cs_err *err)
{
    hcfg cf = {reg->p, reg->q, reg->r};
    if (reg->info->form == CS_FORM_SI)
        return si_eval(reg, gh, &cf, reg->eps, x, n, value, grad, err);
    return holder_eval(reg, gh, &cf, x, n, value, grad, err);
}

/* The bases' g and h: those of bin, osb, ter (key base=) and |x| (l2l1h). */
static const cs_reg_kernel base_kernel[CS_BASE_COUNT] = {CS_REG_KERNEL_BIN, CS_REG_KERNEL_OSB,
                                                         CS_REG_KERNEL_TER};
static const int deg_g[] = {2, 2, 3}, deg_h[] = {0, 1, 1};

static int fill_base(cs_reg *reg, const double *x, size_t n, cs_gh *a, int d, cs_err *err)
{
    (void)err;
    cs_fill_builtin(base_kernel[reg->base], x, n, a, d);
    return CS_OK;
}

static int fill_abs(cs_reg *reg, const double *x, size_t n, cs_gh *a, int d, cs_err *err)
{
    (void)reg;
    (void)err;
    cs_fill_builtin(CS_REG_KERNEL_L2L1, x, n, a, d);
    return CS_OK;
}

static int base_form(cs_reg *reg, const double *x, size_t rows, size_t cols, double *value,
                     double *grad, cs_err *err)
{
    size_t n;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    cs_holder_gh gh = {fill_base, 1, deg_g[reg->base], deg_h[reg->base]};
    return cs_holder_form(reg, &gh, x, n, value, grad, err);
}

CS_REG_EVAL_DECL(holder) { return base_form(reg, x, rows, cols, value, grad, err); }
CS_REG_EVAL_DECL(si) { return base_form(reg, x, rows, cols, value, grad, err); }

/* l2l1h: √N‖x‖₂ − ‖x‖₁ is the Hölder form with g = |x|, h = 1, p = q = 2, r = 1. */
CS_REG_EVAL_DECL(l2l1h)
{
    size_t n;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    cs_holder_gh gh = {fill_abs, 1, 1.0, 0.0};
    hcfg cf = {2.0, 2.0, 1.0};
    return holder_eval(reg, &gh, &cf, x, n, value, grad, err);
}
