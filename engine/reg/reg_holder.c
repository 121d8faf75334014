/* reg_holder.c — Hölder regularizers (Prop. 2), their scale-invariant
 * variant (Prop. 3) and the non-differentiable √N‖x‖₂ − ‖x‖₁ (app. B.4):
 *   holder  P − Q,            P = ‖g‖_p^r ‖h‖_q^r,  Q = |⟨g,h⟩|^r
 *   si      (P + ε)/(Q + ε) − 1
 * with elementwise g, h of a base (bin, osb, ter, or |x| for l2l1h).
 *
 * Every evaluation first rescales x by a power of two so that max|x| is in
 * [0.5, 1): then |g|, |h| ≤ 1, the norms need no overflow guard for any p,
 * and the result is scaled back by 2^(e·degree), exactly when the degree is
 * an integer. For p = q = 2 the difference P − Q is computed from the
 * Lemma-1 residual, so it keeps relative accuracy near the zero set. */
#include <math.h>
#include <stddef.h>

#include "reg_evals.h"
#include "reg_internal.h"

enum { BASE_ABS = 3 };   /* g = |x|, h = 1 (l2l1h); extends enum cs_reg_base */

typedef struct hcfg {
    int base;
    double p, q, r;
} hcfg;

/* Sums over the (rescaled) argument. */
typedef struct hsums {
    double A, B, c;   /* ‖g‖_p, ‖h‖_q, ⟨g,h⟩ */
    double P, Q, D;   /* (AB)^r, |c|^r, P − Q */
} hsums;

static const int deg_g[] = {2, 2, 3, 1}, deg_h[] = {0, 1, 1, 0};

static inline void base_gh(int base, double v, double f[4])
{
    switch (base) {
    case CS_BASE_BIN:
        f[0] = v * v, f[1] = 2.0 * v, f[2] = 1.0, f[3] = 0.0;
        break;
    case CS_BASE_OSB:
        f[0] = v * v, f[1] = 2.0 * v, f[2] = v, f[3] = 1.0;
        break;
    case CS_BASE_TER:
        f[0] = v * v * v, f[1] = 3.0 * v * v, f[2] = v, f[3] = 1.0;
        break;
    default:
        f[0] = fabs(v), f[1] = (v > 0.0) - (v < 0.0), f[2] = 1.0, f[3] = 0.0;
        break;
    }
}

/* w^p without pow() for the common exponents. */
static inline double powe(double w, double p)
{
    if (p == 2.0)
        return w * w;
    if (p == 1.0)
        return w;
    return pow(w, p);
}

static inline double sgn(double v) { return (v > 0.0) - (v < 0.0); }

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

/* The x_n·2^-e, read through this so no copy of x is needed. */
typedef struct hscale {
    int e;
    double s;   /* 2^-e when representable, else 0: use ldexp */
} hscale;

static inline double xs_at(const double *x, size_t i, hscale sc)
{
    return sc.s != 0.0 ? x[i] * sc.s : ldexp(x[i], -sc.e);
}

static void compute_sums(const hcfg *cf, const double *x, size_t n, hscale sc, double M,
                         hsums *s)
{
    /* |g| and |h| grow with |x|, so their maxima are g(M), h(M), M = max|x'|. */
    double sg = 0.0, sh = 0.0, c = 0.0, hh = 0.0, f[4];
    base_gh(cf->base, M, f);
    double mg = fabs(f[0]), mh = fabs(f[2]), img = 1.0 / mg, imh = 1.0 / mh;
    for (size_t i = 0; i < n; i++) {
        base_gh(cf->base, xs_at(x, i, sc), f);
        sg += powe(fabs(f[0]) * img, cf->p);
        sh += powe(fabs(f[2]) * imh, cf->q);
        c += f[0] * f[2];
        hh += f[2] * f[2];
    }
    s->A = mg * (cf->p == 2.0 ? sqrt(sg) : pow(sg, 1.0 / cf->p));
    s->B = mh * (cf->q == 2.0 ? sqrt(sh) : pow(sh, 1.0 / cf->q));
    s->c = c;
    double a = s->A * s->B, b = fabs(c);
    s->P = pow(a, cf->r);
    s->Q = pow(b, cf->r);
    if (cf->p == 2.0 && cf->q == 2.0 && hh > 0.0) {
        /* a² − b² = ‖h‖²‖g − βh‖² (Lemma 1), then a − b = (a² − b²)/(a + b). */
        double beta = c / hh, rr = 0.0;
        for (size_t i = 0; i < n; i++) {
            base_gh(cf->base, xs_at(x, i, sc), f);
            double res = f[0] - beta * f[2];
            rr += res * res;
        }
        double d2 = hh * rr;
        s->D = cf->r == 2.0 ? d2 : pow_diff(a, b, a + b > 0.0 ? d2 / (a + b) : 0.0, cf->r);
    } else {
        s->D = s->P > s->Q ? s->P - s->Q : 0.0;
    }
}

/* grad_n = kp·∂P/∂x_n − kq·∂Q/∂x_n (at the rescaled point), times `out_scale`. */
static void combine_grad(const hcfg *cf, const double *x, size_t n, hscale sc, const hsums *s,
                         double kp, double kq, double out_scale, double *grad)
{
    /* ∂A^r/∂x_n = r A^r (|g_n|/A)^(p−1) sign(g_n) g'_n / A, likewise for B and Q. */
    double cg = s->A > 0.0 ? kp * cf->r * s->P / s->A : 0.0;
    double ch = s->B > 0.0 ? kp * cf->r * s->P / s->B : 0.0;
    double cq = s->c != 0.0 ? kq * cf->r * s->Q / s->c : 0.0;
    double iA = s->A > 0.0 ? 1.0 / s->A : 0.0, iB = s->B > 0.0 ? 1.0 / s->B : 0.0;
    double f[4];
    for (size_t i = 0; i < n; i++) {
        base_gh(cf->base, xs_at(x, i, sc), f);
        double d = 0.0;
        if (cg != 0.0 && f[0] != 0.0)
            d += cg * powe(fabs(f[0]) * iA, cf->p - 1.0) * sgn(f[0]) * f[1];
        if (ch != 0.0 && f[2] != 0.0)
            d += ch * powe(fabs(f[2]) * iB, cf->q - 1.0) * sgn(f[2]) * f[3];
        d -= cq * (f[1] * f[2] + f[0] * f[3]);
        grad[i] = d * out_scale;
    }
}

/* Power-of-two exponent e with max|x|·2^-e in [0.5, 1); M gets that maximum. */
static hscale find_scale(const double *x, size_t n, double *M)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        if (fabs(x[i]) > m)
            m = fabs(x[i]);
    hscale sc = {0, 1.0};
    if (m > 0.0) {
        frexp(m, &sc.e);
        sc.s = (sc.e > -1000 && sc.e < 1000) ? ldexp(1.0, -sc.e) : 0.0;
    }
    *M = m > 0.0 ? ldexp(m, -sc.e) : 0.0;
    return sc;
}

static double degree_of(const hcfg *cf)
{
    return cf->r * (deg_g[cf->base] + deg_h[cf->base]);
}

static int holder_eval(const hcfg *cf, const double *x, size_t n, double *value,
                       double *grad)
{
    double M;
    hscale sc = find_scale(x, n, &M);
    if (M == 0.0) {   /* g = 0 (and h = 0 unless bin): the zero set */
        *value = 0.0;
        for (size_t i = 0; grad && i < n; i++)
            grad[i] = 0.0;
        return CS_OK;
    }
    hsums s;
    compute_sums(cf, x, n, sc, M, &s);
    double deg = degree_of(cf);
    *value = scale2(s.D, deg * sc.e);
    if (grad)
        combine_grad(cf, x, n, sc, &s, 1.0, 1.0, scale2(1.0, (deg - 1.0) * sc.e), grad);
    return CS_OK;
}

static int si_eval(const hcfg *cf, double eps, const double *x, size_t n, double *value,
                   double *grad, cs_err *err)
{
    double M;
    hscale sc = find_scale(x, n, &M);
    hsums s = {0};
    if (M > 0.0)
        compute_sums(cf, x, n, sc, M, &s);
    /* (2^(eD)P' + ε)/(2^(eD)Q' + ε) − 1 = (P' − Q')/(Q' + ε·2^(−eD)) */
    double deg = degree_of(cf);
    double epsp = scale2(eps, -deg * sc.e);
    double den = s.Q + epsp;
    if (!(den > 0.0))
        return cs_fail(err, CS_ENONFINITE,
                       "si: <g,h> = 0 here, so the value is undefined (use eps > 0)");
    double v = s.D / den;
    *value = v;
    if (!grad)
        return CS_OK;
    if (M == 0.0) {
        for (size_t i = 0; i < n; i++)
            grad[i] = 0.0;
        return CS_OK;
    }
    /* ∇ = (∇P − (1 + v)∇Q)/(Q + ε), then the chain rule for x' = x·2^-e */
    combine_grad(cf, x, n, sc, &s, 1.0 / den, (1.0 + v) / den, scale2(1.0, -(double)sc.e),
                 grad);
    return CS_OK;
}

static hcfg cfg_of(const cs_reg *reg)
{
    hcfg cf = {reg->base, reg->p, reg->q, reg->r};
    return cf;
}

CS_REG_EVAL_DECL(holder)
{
    size_t n;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    hcfg cf = cfg_of(reg);
    return holder_eval(&cf, x, n, value, grad);
}

CS_REG_EVAL_DECL(si)
{
    size_t n;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    hcfg cf = cfg_of(reg);
    return si_eval(&cf, reg->eps, x, n, value, grad, err);
}

/* l2l1h: √N‖x‖₂ − ‖x‖₁ is the Hölder form with g = |x|, h = 1, p = q = 2, r = 1. */
CS_REG_EVAL_DECL(l2l1h)
{
    size_t n;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    hcfg cf = {BASE_ABS, 2.0, 2.0, 1.0};
    return holder_eval(&cf, x, n, value, grad);
}
