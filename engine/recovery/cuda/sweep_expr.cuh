/* cuda/sweep_expr.cuh — a defined regularizer (reg define NAME g=EXPR
 * h=EXPR [form=...]) on the device: its g and h by an interpreter of the
 * exported bytecode (cs_expr_code.h), then the form's value and this
 * entry's gradient from block sums, for a thread that holds one entry of x.
 *
 * The interpreter is cs_expr_step1 (engine/reg/expr_eval.c) op for op, the
 * same operations in the same order, so everything but the transcendentals
 * gives the CPU's bits (+ − * / and sqrt are correctly rounded on both;
 * nvcc builds with --fmad=false). exp log pow sin cos tan tanh are CUDA's
 * (libm's on the emulator), the CPU's SLEEF's u10: each within a few ulp
 * of the other (CUDA: 1 ulp exp log tanh, 2 ulp pow sin cos tan; SLEEF
 * 1 ulp), so those terms agree to rounding (tests/test_cuda_emu_expr.c).
 * The slots live in the thread's local memory (CS_EXPR_CODE_MAX_SLOTS
 * values and derivatives); every thread runs the same instruction at a
 * time, so the dispatch never diverges.
 *
 * The forms follow the solver's CPU path: the CS form as
 * reg_fast_defined.c (ℓ = ΣR²/‖h‖², R = fma(‖h‖², g, −⟨g,h⟩h),
 * ∂ℓ/∂x = 2(g'R + h'·fma(‖g‖², h, −⟨g,h⟩g))), holder and si at p = q = 2
 * as reg_holder.c's plain path (cs_reg_eval_fast: no rescaling; the
 * Lemma-1 residual; cs_holder_coefs and holder_lane1's gradient), at other
 * p, q as its rescaled path (x·2^-e when g, h are homogeneous; the sums of
 * (|g|/max|g|)^p, (|h|/max|h|)^q; D = P − Q; the value and gradient scaled
 * back), shared with the built-in holder and si (cs_dx_holder_pq). The
 * sums and maxima over the entries are the caller's (block reductions: RED
 * below), so the sums' order, and only that, differs from the CPU's
 * 4-wide order. */
#ifndef CS_SWEEP_EXPR_CUH
#define CS_SWEEP_EXPR_CUH

#include <float.h>
#include <math.h>

#include "cs_expr_code.h"

/* The host's check of a code before a launch (the interpreter trusts it):
 * counts within the limits, known opcodes, every operand slot inside the
 * slots used; the form known, r > 0, ε >= 0, p, q >= 1 and a finite
 * degree for the Hölder forms. */
static inline int cs_dx_code_valid(const cs_expr_code *c)
{
    if (c->n < 1 || c->n > CS_EXPR_CODE_MAX_INS || c->nslots < 1 ||
        c->nslots > CS_EXPR_CODE_MAX_SLOTS)
        return 0;
    for (int i = 0; i < c->n; i++) {
        int op = c->ins[i].op, s = c->ins[i].s;
        int two = (op >= CS_EXPR_OP_ADD && op <= CS_EXPR_OP_DIV) || op == CS_EXPR_OP_POW ||
                  op == CS_EXPR_OP_MIN || op == CS_EXPR_OP_MAX;
        if (op < 0 || op >= CS_EXPR_OP_COUNT || s < 0 || s + two >= c->nslots)
            return 0;
    }
    return 1;
}

static inline int cs_dx_reg_valid(const cs_expr_reg_code *rc)
{
    return cs_dx_code_valid(&rc->g) && cs_dx_code_valid(&rc->h) &&
           (rc->form == CS_EXPR_REG_CS ||
            ((rc->form == CS_EXPR_REG_HOLDER || rc->form == CS_EXPR_REG_SI) && rc->r > 0.0 &&
             rc->eps >= 0.0 && rc->p >= 1.0 && rc->q >= 1.0 && isfinite(rc->deg)));
}

/* the Hölder forms at p, q other than 2: reg_holder.c's rescaled path */
__host__ __device__ static inline int cs_dx_pq(const cs_expr_reg_code *rc)
{
    return rc->form != CS_EXPR_REG_CS && (rc->p != 2.0 || rc->q != 2.0);
}

/* a^(|k|−1) by squaring (expr_eval.c's s_powk: the same products) */
__device__ static inline double cs_dx_powk(double a, int k)
{
    unsigned u = (unsigned)(k < 0 ? -k : k) - 1;
    double r = 1.0, b = a;
    while (u) {
        if (u & 1)
            r *= b;
        u >>= 1;
        if (u)
            b *= b;
    }
    return r;
}

/* One copy of the interpreter, called (its slots in its own frame), rather
 * than one inlined at each call of FISTA's kernel, whose registers it would
 * take */
#ifdef CS_CUDA_EMU
#define CS_DX_NOINLINE
#else
#define CS_DX_NOINLINE __noinline__
#endif

/* e at x; with df, its derivative into *df (without, the derivative's
 * extra work is skipped: the value's bits are the same) */
__device__ static CS_DX_NOINLINE double cs_dx_eval(const cs_expr_code *e, double x, double *df)
{
    double V[CS_EXPR_CODE_MAX_SLOTS], D[CS_EXPR_CODE_MAX_SLOTS];
    const int n = e->n, nd = df != NULL;
    for (int pc = 0; pc < n; pc++) {
        const cs_expr_code_ins *in = &e->ins[pc];
        const int s = in->s, op = in->op;
        const double c = in->c;
        double v, d = 0.0;
        if (op == CS_EXPR_OP_X) {
            V[s] = x;
            D[s] = 1.0;
            continue;
        }
        if (op == CS_EXPR_OP_C) {
            V[s] = c;
            D[s] = 0.0;
            continue;
        }
        const double a = V[s], da = D[s];
        switch (op) {
        case CS_EXPR_OP_NEG: v = -a, d = -da; break;
        case CS_EXPR_OP_ADD: v = a + V[s + 1], d = da + D[s + 1]; break;
        case CS_EXPR_OP_SUB: v = a - V[s + 1], d = da - D[s + 1]; break;
        case CS_EXPR_OP_MUL: {
            double b = V[s + 1];
            v = a * b;
            d = da * b + a * D[s + 1];
            break;
        }
        case CS_EXPR_OP_DIV: {
            double b = V[s + 1];
            v = a / b;
            d = (da - v * D[s + 1]) / b;
            break;
        }
        case CS_EXPR_OP_ADDC: v = a + c, d = da; break;
        case CS_EXPR_OP_RSUBC: v = c - a, d = -da; break;
        case CS_EXPR_OP_MULC: v = c * a, d = c * da; break;
        case CS_EXPR_OP_DIVC: v = a / c, d = da / c; break;
        case CS_EXPR_OP_RDIVC: v = c / a, d = -(v / a) * da; break;
        case CS_EXPR_OP_POWK: {
            const int k = in->k;
            double p = cs_dx_powk(a, k), pa = p * a;
            if (k > 0) {
                v = pa;
                d = (k * p) * da;
            } else {
                v = 1.0 / pa;
                d = k * da / (pa * a);
            }
            break;
        }
        case CS_EXPR_OP_POWC:
            v = pow(a, c);
            if (nd)
                d = c * pow(a, in->c2) * da;
            break;
        case CS_EXPR_OP_CPOW: v = pow(c, a), d = v * in->c2 * da; break;
        case CS_EXPR_OP_POW: {
            double b = V[s + 1];
            v = pow(a, b);
            if (nd)
                d = v * (D[s + 1] * log(a) + b * da / a);
            break;
        }
        case CS_EXPR_OP_EXP: v = exp(a), d = v * da; break;
        case CS_EXPR_OP_LOG: v = log(a), d = da / a; break;
        case CS_EXPR_OP_SQRT: v = sqrt(a), d = da / (v + v); break;
        case CS_EXPR_OP_ABS: v = fabs(a), d = a > 0 ? da : (a < 0 ? -da : 0.0); break;
        case CS_EXPR_OP_SIN:
            v = sin(a);
            if (nd)
                d = cos(a) * da;
            break;
        case CS_EXPR_OP_COS:
            v = cos(a);
            if (nd)
                d = -sin(a) * da;
            break;
        case CS_EXPR_OP_TAN: v = tan(a), d = (1.0 + v * v) * da; break;
        case CS_EXPR_OP_TANH: v = tanh(a), d = (1.0 - v * v) * da; break;
        case CS_EXPR_OP_SIGN: v = a > 0 ? 1.0 : (a < 0 ? -1.0 : a + a), d = 0.0; break;
        case CS_EXPR_OP_MIN:
        case CS_EXPR_OP_MAX: {
            double b = V[s + 1];
            int first = op == CS_EXPR_OP_MIN ? a <= b : a >= b;
            v = (isnan(a) || isnan(b)) ? a + b : (first ? a : b);
            d = first ? da : D[s + 1];
            break;
        }
        default: v = d = NAN; break;
        }
        V[s] = v;
        D[s] = d;
    }
    if (df)
        *df = D[0];
    return V[0];
}

/* one entry's g, g', h, h' (the derivatives with nd; h' = 0 for a
 * constant h, as the CPU's flat_h) */
struct cs_dx_gh {
    double g, dg, h, dh;
};

__device__ static inline void cs_dx_fill(const cs_expr_reg_code *rc, double x, int nd,
                                         cs_dx_gh *o)
{
    o->dg = o->dh = 0.0;
    o->g = cs_dx_eval(&rc->g, x, nd ? &o->dg : NULL);
    o->h = cs_dx_eval(&rc->h, x, nd && !rc->flat ? &o->dh : NULL);
}

__device__ static inline double cs_dx_sgn(double v) { return (double)((v > 0.0) - (v < 0.0)); }

/* a^r − b^r for a ≥ b ≥ 0 from d = a − b (reg_holder.c's pow_diff) */
__device__ static inline double cs_dx_pow_diff(double a, double b, double d, double r)
{
    if (r == 1.0)
        return d;
    if (d > b)
        return pow(a, r) - pow(b, r);
    return pow(b, r) * expm1(r * log1p(d / b));
}

/* The Hölder forms' tail (cs_holder_coefs, holder_lane1), shared by the
 * built-in holder/si family (sweep_kernels.cu) and the defined ones: from
 * D = ‖g‖_p^r‖h‖_q^r − |⟨g,h⟩|^r, P, Q (its two terms), A = ‖g‖, B = ‖h‖
 * and c = ⟨g,h⟩, the value (si: scaled by 1/(Q + ε)) and, with grad, this
 * entry's gradient from (g, g', h, h'); on: the thread holds an entry. */
__device__ static inline double cs_dx_holder_tail(double D, double P, double Q, double A,
                                                  double B, double c, double r, int si,
                                                  double eps, int on, double g, double dg,
                                                  double h, double dh, double *grad,
                                                  int *finite)
{
    double f = D, kp = 1.0, kq = 1.0;
    if (si) {
        double den = Q + eps;
        if (!(den > 0.0)) {   /* ⟨g,h⟩ = 0 and ε = 0: undefined */
            *finite = 0;
            if (grad)
                *grad = 0.0;
            return NAN;
        }
        f = D / den;
        kp = 1.0 / den;
        kq = (1.0 + f) / den;
    }
    *finite = isfinite(f);
    if (grad) {
        double cg = A > 0.0 ? kp * r * P / A : 0.0, ch = B > 0.0 ? kp * r * P / B : 0.0;
        double cq = c != 0.0 ? kq * r * Q / c : 0.0;
        double iA = A > 0.0 ? 1.0 / A : 0.0, iB = B > 0.0 ? 1.0 / B : 0.0;
        double d = 0.0;
        if (cg != 0.0 && g != 0.0)
            d += cg * (fabs(g) * iA) * cs_dx_sgn(g) * dg;
        if (ch != 0.0 && h != 0.0)
            d += ch * (fabs(h) * iB) * cs_dx_sgn(h) * dh;
        d -= cq * (dg * h + g * dh);
        *grad = on ? d : 0.0;
    }
    return f;
}

/* reg_holder.c's rescaling: e with max|x|·2^-e in [0.5, 1) (find_scale;
 * e = 0: not rescaled), x·2^-e, and scale2 for the value's way back */
struct cs_dx_scale {
    int e;
    double s, top;   /* 2^-e (0: use ldexp); max|x|·2^-e */
};

__device__ static inline cs_dx_scale cs_dx_scale_of(double mx)
{
    cs_dx_scale sc = {0, 1.0, 0.0};
    if (mx > 0.0) {
        frexp(mx, &sc.e);
        sc.s = (sc.e > -1000 && sc.e < 1000) ? ldexp(1.0, -sc.e) : 0.0;
        sc.top = ldexp(mx, -sc.e);
    }
    return sc;
}

__device__ static inline double cs_dx_at(const cs_dx_scale &sc, double x)
{
    return sc.s != 0.0 ? x * sc.s : ldexp(x, -sc.e);
}

/* v·2^k for real k */
__device__ static inline double cs_dx_scale2(double v, double k)
{
    if (v == 0.0)
        return 0.0;
    double fk = floor(k);
    fk = fk > 100000.0 ? 100000.0 : (fk < -100000.0 ? -100000.0 : fk);
    double frac = k - fk;
    return ldexp(frac != 0.0 ? v * exp2(frac) : v, (int)fk);
}

/* w^p as abs_pow and sums_body take it (p = 2: a product) */
__device__ static inline double cs_dx_pw(double w, double p)
{
    return p == 2.0 ? w * w : (p == 1.0 ? w : pow(w, p));
}

/* This entry's terms of the sums at other p, q (on: it holds one), from
 * its g, h and the block's mg = max|g|, mh = max|h|: m[0] = (|g|/mg)^p,
 * m[1] = gh, m[2] = (|h|/mh)^q */
__device__ static inline void cs_dx_pq_terms(int on, double g, double h, double mg, double mh,
                                             double p, double q, double *m)
{
    double img = mg > 0.0 ? 1.0 / mg : 0.0, imh = mh > 0.0 ? 1.0 / mh : 0.0;
    m[0] = on ? cs_dx_pw(fabs(g) * img, p) : 0.0;
    m[1] = on ? g * h : 0.0;
    m[2] = on ? cs_dx_pw(fabs(h) * imh, q) : 0.0;
}

/* The Hölder forms at other p, q from their sums (reg_holder.c at the
 * rescaled x·2^-e): sg = Σ(|g|/mg)^p, sh = Σ(|h|/mh)^q, c = ⟨g,h⟩, mg =
 * max|g|, mh = max|h|; deg: P's and Q's degree (0 where x is not
 * rescaled); zero: x = 0 rescaled, the zero set (nothing summed). */
struct cs_dx_hpq {
    double sg, sh, c, mg, mh;
    double p, q, r, eps, deg;
    int e, si, zero;
};

/* cs_holder_norms, D = P − Q, holder_eval's and si_eval's scaling back, and
 * with grad this entry's gradient (cs_holder_coefs, combine_grad,
 * holder_lane1) from g, g', h, h' at x·2^-e; on: the thread holds an
 * entry. *finite as cs_dx_holder_tail's (si: Q + ε·2^(−e·deg) = 0 is not
 * finite, gradient 0). Shared by the built-in holder and si at other p, q
 * (sweep_kernels.cu) and the defined forms (cs_dx_value). */
__device__ static inline double cs_dx_holder_pq(const cs_dx_hpq *s, int on, double gv,
                                                double dg, double hv, double dh, double *grad,
                                                int *finite)
{
    const double r = s->r, p = s->p, q = s->q;
    double A = 0.0, B = 0.0, P = 0.0, Q = 0.0, c = 0.0, D = 0.0;
    if (!s->zero) {
        A = s->mg * (p == 2.0 ? sqrt(s->sg) : pow(s->sg, 1.0 / p));
        B = s->mh * (q == 2.0 ? sqrt(s->sh) : pow(s->sh, 1.0 / q));
        c = s->c;
        double aa = A * B, bq = fabs(c);
        P = r == 1.0 ? aa : pow(aa, r);
        Q = r == 1.0 ? bq : pow(bq, r);
        D = P > Q ? P - Q : 0.0;
    }
    double f, kp = 1.0, kq = 1.0, out;
    if (s->si) {   /* (P − Q)/(Q + ε·2^(−e·deg)) */
        double den = Q + cs_dx_scale2(s->eps, -s->deg * s->e);
        if (!(den > 0.0)) {   /* undefined or out of range: not finite */
            *finite = 0;
            if (grad)
                *grad = 0.0;
            return NAN;
        }
        f = D / den;
        kp = 1.0 / den;
        kq = (1.0 + f) / den;
        out = cs_dx_scale2(1.0, -(double)s->e);
    } else {
        f = cs_dx_scale2(D, s->deg * s->e);
        out = cs_dx_scale2(1.0, (s->deg - 1.0) * s->e);
    }
    *finite = isfinite(f);
    if (grad) {
        double d = 0.0;
        if (!s->zero) {
            double cg = A > 0.0 ? kp * r * P / A : 0.0, ch = B > 0.0 ? kp * r * P / B : 0.0;
            double cq = c != 0.0 ? kq * r * Q / c : 0.0;
            double iA = A > 0.0 ? 1.0 / A : 0.0, iB = B > 0.0 ? 1.0 / B : 0.0;
            double wg = p == 2.0 ? fabs(gv) * iA : pow(fabs(gv) * iA, p - 1.0);
            double wh = q == 2.0 ? fabs(hv) * iB : pow(fabs(hv) * iB, q - 1.0);
            if (cg != 0.0 && gv != 0.0)
                d += cg * wg * cs_dx_sgn(gv) * dg;
            if (ch != 0.0 && hv != 0.0)
                d += ch * wh * cs_dx_sgn(hv) * dh;
            d -= cq * (dg * hv + gv * dh);
            d *= out;
        }
        *grad = on ? d : 0.0;
    }
    return f;
}

/* The moments: CS_DX_NM values, the first CS_DX_NSUM summed over the block
 * by the caller (between cs_dx_moments and cs_dx_value), the others
 * block-wide already. The CS form and the Hölder forms at p = q = 2:
 * m[0] = h², m[1] = g·h, m[2] = g² (at p = q = 2 the Hölder forms' Σ|h|²
 * is Σh², the same bits); at other p, q: m[0] = (|g|/max|g|)^p, m[1] =
 * g·h, m[2] = (|h|/max|h|)^q at x·2^-e, m[3] = max|x| (hom), m[4] =
 * max|g|, m[5] = max|h| (Inf when some g or h is not finite: the CPU's
 * checked evaluation refuses them). */
#define CS_DX_NM 6
#define CS_DX_NSUM 3

/* |v|, Inf for NaN too (a maximum keeps it) */
__device__ static inline double cs_dx_mag(double v)
{
    double a = fabs(v);
    return a <= DBL_MAX ? a : INFINITY;
}

/* RED: red(v, k) sums v[0..k) over the block, red.max(v, k) takes the
 * largest of each, both in place in every thread (called by every thread:
 * uniform). x: this thread's entry (on: it holds one). PQ: cs_dx_pq(rc),
 * the caller's (FISTA's kernel has one instance each, so that the CS form
 * keeps its registers). */
template <int PQ, class RED>
__device__ static inline void cs_dx_moments(const cs_expr_reg_code *rc, RED &red, double x,
                                            int on, double *m)
{
    cs_dx_gh e;
    m[3] = m[4] = m[5] = 0.0;
    if (!PQ) {
        cs_dx_fill(rc, x, 0, &e);
        m[0] = on ? e.h * e.h : 0.0;
        m[1] = on ? e.g * e.h : 0.0;
        m[2] = on ? e.g * e.g : 0.0;
        return;
    }
    cs_dx_scale sc = {0, 1.0, 0.0};
    if (rc->hom) {
        double mx = on ? fabs(x) : 0.0;
        red.max(&mx, 1);
        m[3] = mx;
        if (!(mx > 0.0)) {   /* the zero set: nothing filled (uniform) */
            m[0] = m[1] = m[2] = 0.0;
            return;
        }
        sc = cs_dx_scale_of(mx);
    }
    cs_dx_fill(rc, cs_dx_at(sc, x), 0, &e);
    double mm[2] = {on ? cs_dx_mag(e.g) : 0.0, on ? cs_dx_mag(e.h) : 0.0};
    red.max(mm, 2);   /* compute_sums' max|g|, max|h| */
    cs_dx_pq_terms(on, e.g, e.h, mm[0], mm[1], rc->p, rc->q, m);
    m[4] = mm[0];
    m[5] = mm[1];
}

/* ℓ at x from the moments m (cs_dx_moments, the first CS_DX_NSUM summed)
 * and this entry's gradient into *grad (NULL: the value alone). *finite: ℓ
 * is finite (si: Q + ε > 0, else ℓ is NaN; at other p, q also every g, h);
 * the gradient's entries are the caller's to check (at other p, q an entry
 * whose g' or h' is not finite is NaN, where the CPU refuses it). */
template <int PQ, class RED>
__device__ static inline double cs_dx_value(const cs_expr_reg_code *rc, RED &red, double x,
                                            int on, const double *m, double *grad,
                                            int *finite)
{
    cs_dx_gh e;
    if (PQ) {
        cs_dx_hpq s = {m[0], m[2], m[1], m[4], m[5], rc->p, rc->q, rc->r, rc->eps,
                       rc->hom ? rc->deg : 0.0, 0, rc->form == CS_EXPR_REG_SI, 0};
        s.zero = rc->hom && !(m[3] > 0.0);
        e.g = e.dg = e.h = e.dh = 0.0;
        if (!s.zero) {
            cs_dx_scale sc = rc->hom ? cs_dx_scale_of(m[3]) : cs_dx_scale{0, 1.0, 0.0};
            s.e = sc.e;
            cs_dx_fill(rc, cs_dx_at(sc, x), grad != NULL, &e);
        }
        double f = cs_dx_holder_pq(&s, on, e.g, e.dg, e.h, e.dh, grad, finite);
        if (!s.zero && !(s.mg <= DBL_MAX && s.mh <= DBL_MAX))
            *finite = 0;
        if (grad && on && !s.zero && !(isfinite(e.dg) && isfinite(e.dh)))
            *grad = NAN;
        return f;
    }
    cs_dx_fill(rc, x, grad != NULL, &e);
    const double hh = m[0], c = m[1], gg = m[2];
    if (rc->form == CS_EXPR_REG_CS) {
        double R = on ? fma(hh, e.g, -(c * e.h)) : 0.0, RR = R * R;
        red(&RR, 1);
        double f = hh == 0.0 ? 0.0 : RR / hh;
        *finite = isfinite(f);
        if (grad) {
            double t = e.dg * R;
            if (!rc->flat)
                t = fma(e.dh, fma(gg, e.h, -(c * e.g)), t);
            *grad = on ? 2.0 * t : 0.0;
        }
        return f;
    }
    /* holder, si at p = q = 2: cs_holder_norms, cs_holder_lemma1 */
    const double r = rc->r;
    double A = sqrt(gg), B = sqrt(hh), aa = A * B, bq = fabs(c);
    double P = r == 1.0 ? aa : pow(aa, r), Q = r == 1.0 ? bq : pow(bq, r), D;
    double beta = hh > 0.0 ? c / hh : 0.0, res = on ? e.g - beta * e.h : 0.0, e2 = res * res;
    red(&e2, 1);   /* by every thread, also where hh = 0: uniform */
    if (hh > 0.0) {
        double d2 = hh * e2;
        D = r == 2.0 ? d2 : cs_dx_pow_diff(aa, bq, aa + bq == 0.0 ? 0.0 : d2 / (aa + bq), r);
    } else {
        D = P > Q ? P - Q : 0.0;
    }
    return cs_dx_holder_tail(D, P, Q, A, B, c, r, rc->form == CS_EXPR_REG_SI, rc->eps, on,
                             e.g, e.dg, e.h, e.dh, grad, finite);
}

#endif
