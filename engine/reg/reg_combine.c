/* reg_combine.c — the COMBINE step of the CS form (reg_gh.h): value and
 * gradient of ℓ = ‖g‖²‖h‖² − ⟨g,h⟩² from the arrays g, g', h, h'. */
#include <math.h>
#include <stddef.h>

#include "cs_simd.h"
#include "reg_gh.h"
#include "reg_gh4.h"
#include "reg_internal.h"

/* The CS form over a. seq: every sum entry by entry in index order (the
 * library's order, what cs_reg_eval has always given); else 4-wide, the
 * remainder entry by entry: (v0 + v2) + (v1 + v3) of the 4-wide partial
 * sums first. */
CS_AI void cs_body(const cs_gh *a, size_t n, const double *tail, double *value, double *grad,
                   int seq)
{
    const double *g = a->g, *dg = a->dg, *h = a->h, *dh = a->dh;
    const int flat = a->flat_h;
    size_t nv = seq ? 0 : n & ~(size_t)3, i;
    v4d H = splat(0.0), G = H, Q = H;
    for (i = 0; i < nv; i += 4) {
        v4d hv = ld4(h + i), gv = ld4(g + i);
        H += hv * hv;
        G += gv * hv;
        if (!flat)
            Q += gv * gv;
    }
    double hh = hsum(H), gh = hsum(G), gg = hsum(Q);
    for (; i < n; i++) {
        hh += h[i] * h[i];
        gh += g[i] * h[i];
        if (!flat)
            gg += g[i] * g[i];
    }
    if (tail) {
        hh += 1.0;
        gh += *tail;
    }
    v4d HH = splat(hh), GH = splat(gh), R2 = splat(0.0), two = splat(2.0);
    for (i = 0; i < nv; i += 4) {
        v4d R = vdiff_of_products(HH, ld4(g + i), GH, ld4(h + i));
        R2 += R * R;
        if (grad)
            st4(grad + i, two * ld4(dg + i) * R);
    }
    double RR = hsum(R2);
    for (; i < n; i++) {
        double R = diff_of_products(hh, g[i], gh, h[i]);
        RR += R * R;
        if (grad)
            grad[i] = 2.0 * dg[i] * R;
    }
    if (tail) {
        double Rt = hh * *tail - gh;
        RR += Rt * Rt;
    }
    *value = hh == 0.0 ? 0.0 : RR / hh;   /* a NaN in h reaches the value */
    if (!grad || flat)
        return;
    v4d GG = splat(gg), zero = splat(0.0);
    for (i = 0; i < nv; i += 4) {
        v4d d = ld4(dh + i), t = two * d * vdiff_of_products(GG, ld4(h + i), GH, ld4(g + i));
        st4(grad + i, ld4(grad + i) + vsel(d != zero, t, zero));
    }
    for (; i < n; i++)
        if (dh[i] != 0.0)
            grad[i] += 2.0 * dh[i] * diff_of_products(gg, h[i], gh, g[i]);
}

#ifdef CS_AVX2_CLONE
static CS_AVX2_FMA_FN void cs_avx2(const cs_gh *a, size_t n, const double *tail, double *value,
                                   double *grad)
{
    cs_body(a, n, tail, value, grad, 0);
}
#endif
static void cs_vec(const cs_gh *a, size_t n, const double *tail, double *value, double *grad)
{
    cs_body(a, n, tail, value, grad, 0);
}
static void cs_seq(const cs_gh *a, size_t n, const double *tail, double *value, double *grad)
{
    cs_body(a, n, tail, value, grad, 1);
}

void cs_combine_cs(const cs_gh *a, size_t n, const double *tail, double *value, double *grad,
                   int seq)
{
    if (seq) {
        cs_seq(a, n, tail, value, grad);
        return;
    }
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2_fma()) {
        cs_avx2(a, n, tail, value, grad);
        return;
    }
#endif
    cs_vec(a, n, tail, value, grad);
}

/* Σ (g_i − β h_i)²: seq, entry by entry; else 4-wide first. */
CS_AI double residual2_body(const double *g, const double *h, double beta, size_t n, int seq)
{
    size_t i = 0, nv = seq ? 0 : n & ~(size_t)3;
    v4d acc = z4(), B = splat(beta);
    for (; i < nv; i += 4) {
        v4d r = ld4(g + i) - B * ld4(h + i);
        acc += r * r;
    }
    double s = hsum(acc);
    for (; i < n; i++)
        s += (g[i] - beta * h[i]) * (g[i] - beta * h[i]);
    return s;
}

#ifdef CS_AVX2_CLONE
static CS_AVX2_FN double residual2_avx2(const double *g, const double *h, double beta, size_t n)
{
    return residual2_body(g, h, beta, n, 0);
}
#endif
static double residual2_base(const double *g, const double *h, double beta, size_t n, int seq)
{
    return residual2_body(g, h, beta, n, seq);
}

double cs_residual2(const double *g, const double *h, double beta, size_t n, int seq)
{
#ifdef CS_AVX2_CLONE
    if (!seq && cs_cpu_avx2())
        return residual2_avx2(g, h, beta, n);
#endif
    return residual2_base(g, h, beta, n, seq);
}

int cs_gh_scratch(cs_reg *reg, size_t n, size_t more, cs_gh *a, double **more_out,
                  cs_err *err)
{
    double *w = cs_reg_work(reg, 4 * n + more, err);
    if (!w)
        return CS_ENOMEM;
    *a = (cs_gh){w, w + n, w + 2 * n, w + 3 * n, 0};
    if (more_out)
        *more_out = w + 4 * n;
    return CS_OK;
}
