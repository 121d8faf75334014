/* reg_fast_defined.c — the solver's fused kernel of a regularizer defined
 * in the CS form (reg define NAME g=EXPR h=EXPR): g, g', h, h' into the
 * instance's scratch, then one fused pass for the value, the gradient and
 * its norm, where the library's path (reg_define.c) runs the CS form's
 * three passes over the arrays (reg_combine.c) and the stepper a fourth.
 *
 * The fill: polynomial g and h (x^3, x*(x^2-1), ...) by Horner's rule on 4
 * lanes from the expanded coefficients (expr_poly.c), the sums of pass 1 in
 * the same loop; any other g and h by the interpreter (expr_eval.c), then
 * the sums. Horner's rule on the expanded polynomial errs by at most 2·deg
 * ulps of Σ|c_k||x|^k, which the expression's own rounding bound is at
 * least (the expansion can only cancel terms of it); the values differ from
 * the interpreter's at the level of rounding.
 *
 * ℓ = Σ R_n²/‖h‖², R_n = ‖h‖²g_n − ⟨g,h⟩h_n;
 * ∂ℓ/∂x_n = 2g'_n R_n + 2h'_n (‖g‖²h_n − ⟨g,h⟩g_n). */
#include "reg_fast_internal.h"
#include "reg_gh4.h"

enum { PG, PDG, PH, PDH };

/* out[j] = Σ c_k x[j]^k by Horner's rule, for B vectors at once (the loop
 * over the coefficients, whose count is known only at run time, is paid
 * once for B vectors) */
CS_AI void horner(const cs_poly *p, const v4d *x, v4d *out, int B)
{
#pragma GCC unroll 4
    for (int j = 0; j < B; j++)
        out[j] = splat(p->c[p->deg]);
    for (int k = p->deg - 1; k >= 0; k--) {
        v4d c = splat(p->c[k]);
#pragma GCC unroll 4
        for (int j = 0; j < B; j++)
            out[j] = vfma(out[j], x[j], c);
    }
}

/* Pass 1 over B vectors of entries from i: g, h (and g', h' with d) into
 * w (4 arrays, stride m); ‖h‖², ⟨g,h⟩ and ‖g‖² summed 4-wide in order. */
CS_AI void poly_fill(const cs_poly *P, int flat, const v4d *x, double *w, size_t m, size_t i,
                     int d, int B, v4d *H, v4d *G, v4d *Q)
{
    v4d g[4], h[4], t[4];
    horner(&P[PG], x, g, B);
    horner(&P[PH], x, h, B);
#pragma GCC unroll 4
    for (int j = 0; j < B; j++) {
        st4(w + i + 4 * j, g[j]);
        st4(w + m + i + 4 * j, h[j]);
        *H += h[j] * h[j];
        *G += g[j] * h[j];
        if (!flat)
            *Q += g[j] * g[j];
    }
    if (!d)
        return;
    horner(&P[PDG], x, t, B);
#pragma GCC unroll 4
    for (int j = 0; j < B; j++)
        st4(w + 2 * m + i + 4 * j, t[j]);
    if (flat)
        return;
    horner(&P[PDH], x, t, B);
#pragma GCC unroll 4
    for (int j = 0; j < B; j++)
        st4(w + 3 * m + i + 4 * j, t[j]);
}

/* Pass 2 at entries i..i+3: R = ‖h‖²g − ⟨g,h⟩h, ΣR², and (out) the
 * gradient 2g'R + 2h'(‖g‖²h − ⟨g,h⟩g), stored at out and returned. */
CS_AI v4d cs_lane(const double *w, size_t m, size_t i, int flat, v4d HH, v4d GH, v4d GG,
                  v4d *R2, double *out)
{
    v4d g = ld4(w + i), h = ld4(w + m + i);
    v4d R = vfma(HH, g, -(GH * h));
    *R2 += R * R;
    if (!out)
        return z4();
    v4d t = ld4(w + 2 * m + i) * R;
    if (!flat)
        t = vfma(ld4(w + 3 * m + i), vfma(GG, h, -(GH * g)), t);
    t = splat(2.0) * t;
    st4(out, t);
    return t;
}

/* Pass 1 by Horner's rule: the sums in *hh, *gh, *gg. */
CS_AI void poly_pass1(const cs_poly *P, int flat, const double *restrict x, size_t n,
                      double *restrict w, size_t m, int d, double s[3])
{
    size_t nv = n & ~(size_t)3, n16 = n & ~(size_t)15, i;
    v4d H = z4(), G = H, Q = H, xs[4];
    for (i = 0; i < n16; i += 16) {
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++)
            xs[j] = ld4(x + i + 4 * j);
        poly_fill(P, flat, xs, w, m, i, d, 4, &H, &G, &Q);
    }
    for (; i < nv; i += 4) {
        xs[0] = ld4(x + i);
        poly_fill(P, flat, xs, w, m, i, d, 1, &H, &G, &Q);
    }
    s[0] = hsum(H), s[1] = hsum(G), s[2] = hsum(Q);
    if (i < n) {
        v4d h1 = z4(), g1 = h1, q1 = h1;   /* lane q: that entry's terms */
        xs[0] = ld_pad(x + i, n - i);
        poly_fill(P, flat, xs, w, m, i, d, 1, &h1, &g1, &q1);
        for (size_t q = 0; q < n - i; q++) {
            s[0] += h1[q];
            s[1] += g1[q];
            s[2] += q1[q];
        }
    }
}

/* Pass 1 over arrays the interpreter filled (zero past n): the sums. */
CS_AI void sums_pass1(const double *w, size_t m, size_t n, int flat, double s[3])
{
    v4d H = z4(), G = H, Q = H;
    for (size_t i = 0; i < n; i += 4) {
        v4d g = ld4(w + i), h = ld4(w + m + i);
        H += h * h;
        G += g * h;
        if (!flat)
            Q += g * g;
    }
    s[0] = hsum(H), s[1] = hsum(G), s[2] = hsum(Q);
}

/* Pass 2 over w: ℓ, the gradient and its norm in the stepper's order. */
CS_AI void cs_pass2(const double *restrict w, size_t m, size_t n, int flat, const double s[3],
                    double *f, double *restrict grad, double *gn)
{
    size_t nv = n & ~(size_t)3, n8 = n & ~(size_t)7, i;
    v4d HH = splat(s[0]), GH = splat(s[1]), GG = splat(s[2]), R2 = z4(), N0 = z4(), N1 = z4();
    for (i = 0; i < n8; i += 8) {
        v4d a = cs_lane(w, m, i, flat, HH, GH, GG, &R2, grad ? grad + i : NULL);
        v4d b = cs_lane(w, m, i + 4, flat, HH, GH, GG, &R2, grad ? grad + i + 4 : NULL);
        N0 += a * a;
        N1 += b * b;
    }
    for (; i < nv; i += 4)
        cs_lane(w, m, i, flat, HH, GH, GG, &R2, grad ? grad + i : NULL);
    double RR = hsum(R2);
    if (i < n) {
        double t[4];
        v4d r2 = z4();   /* lane q: R_q² */
        cs_lane(w, m, i, flat, HH, GH, GG, &r2, grad ? t : NULL);
        for (size_t q = 0; q < n - i; q++) {
            RR += r2[q];
            if (grad)
                grad[i + q] = t[q];
        }
    }
    *f = s[0] == 0.0 ? 0.0 : RR / s[0];   /* a NaN in h reaches the value */
    if (gn)
        *gn = gn_finish(N0, N1, grad, n);
}

/* w: 4 arrays of stride m = n + 4; P: NULL when the interpreter has filled them */
CS_AI void defined_body(const cs_poly *P, int flat, const double *restrict x, size_t n,
                        double *restrict w, double *f, double *restrict grad, double *gn)
{
    double s[3];
    if (P)
        poly_pass1(P, flat, x, n, w, n + 4, grad != NULL, s);
    else
        sums_pass1(w, n + 4, n, flat, s);
    cs_pass2(w, n + 4, n, flat, s, f, grad, gn);
}

static void defined_base(const cs_poly *P, int flat, const double *x, size_t n, double *w,
                         double *f, double *grad, double *gn)
{
    defined_body(P, flat, x, n, w, f, grad, gn);
}
#ifdef CS_AVX2_CLONE
static CS_AVX2_FMA_FN void defined_avx2(const cs_poly *P, int flat, const double *x, size_t n,
                                        double *w, double *f, double *grad, double *gn)
{
    defined_body(P, flat, x, n, w, f, grad, gn);
}
#endif

/* g, g' (d), h, h' (d, h not constant) by the interpreter into w (stride
 * m), zero from n up to m: the vector passes read whole groups of 4. */
static int interp_fill(cs_reg *reg, const double *x, size_t n, double *w, size_t m, int d,
                       int flat)
{
    cs_err err;
    if (cs_expr_eval_unchecked(reg->ge, x, n, w, d ? w + 2 * m : NULL, &err) ||
        cs_expr_eval_unchecked(reg->he, x, n, w + m, d && !flat ? w + 3 * m : NULL, &err))
        return CS_EINVAL;
    for (size_t k = 0; k < 4; k++)
        for (size_t i = n; i < m; i++)
            w[k * m + i] = 0.0;
    return CS_OK;
}

int cs_reg_poly_of(const cs_expr *g, const cs_expr *h, cs_poly out[4])
{
    if (!cs_expr_poly(g, &out[PG]) || !cs_expr_poly(h, &out[PH]))
        return 0;
    cs_poly_deriv(&out[PG], &out[PDG]);
    cs_poly_deriv(&out[PH], &out[PDH]);
    for (int k = 0; k < 4; k++)   /* the kernels read up to the larger degree */
        for (int j = out[k].deg + 1; j <= CS_POLY_MAX; j++)
            out[k].c[j] = 0.0;
    return 1;
}

int cs_fast_defined(cs_reg *reg, const double *x, size_t n, double *f, double *grad, double *gn)
{
    cs_err err;
    size_t m = n + 4;
    double *w = cs_reg_work(reg, 4 * m, &err);
    if (!w)
        return CS_ENOMEM;
    const cs_poly *P = reg->poly;
    int flat = P ? P[PH].deg == 0 : !cs_expr_uses_x(reg->he);
    if (!P && interp_fill(reg, x, n, w, m, grad != NULL, flat))
        return CS_EINVAL;
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2_fma())
        defined_avx2(P, flat, x, n, w, f, grad, gn);
    else
#endif
        defined_base(P, flat, x, n, w, f, grad, gn);
    return fast_status(*f, grad, n, gn);
}
