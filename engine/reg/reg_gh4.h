/* reg_gh4.h — the elementwise built-ins on 4 lanes (engine/reg only): g,
 * g', h, h' of bin, osb, ter, bbin, l2l1 and binexp's −x², and the lane
 * formula of the Hölder gradient. The FILL step (reg_cs.c), the Hölder
 * form (reg_holder.c) and the solver's fused kernels (reg_fast_*.c) all
 * use these, so the fused kernels give the bits of the FILL/COMBINE path. */
#ifndef CS_REG_GH4_H
#define CS_REG_GH4_H

#include <stddef.h>

#include "cs_simd.h"
#include "reg_gh.h"

typedef struct gh4 {
    v4d g, dg, h, dh;
} gh4;

/* bin: g = x², h = 1 */
CS_AI gh4 gh_bin(v4d v) { return (gh4){v * v, 2.0 * v, splat(1.0), z4()}; }
/* osb: g = x², h = x */
CS_AI gh4 gh_osb(v4d v) { return (gh4){v * v, 2.0 * v, v, splat(1.0)}; }
/* ter: g = x³, h = x */
CS_AI gh4 gh_ter(v4d v) { return (gh4){v * v * v, 3.0 * v * v, v, splat(1.0)}; }
/* bbin: g = 1/(1+x²), h = 1. For huge |x|, 1+x² is Inf and g, g' go to 0. */
CS_AI v4d g_bbin(v4d v) { return 1.0 / (1.0 + v * v); }
CS_AI v4d dg_bbin(v4d v, v4d b) { return -2.0 * v * b * b; }
CS_AI gh4 gh_bbin(v4d v)
{
    v4d b = g_bbin(v);
    return (gh4){b, dg_bbin(v, b), splat(1.0), z4()};
}
/* l2l1: g = |x|, h = 1; subgradient with sign(0) = 0 */
CS_AI gh4 gh_l2l1(v4d v) { return (gh4){vabs(v), vsgn(v), splat(1.0), z4()}; }
/* binexp before the exponential: g = −x², h = 1. Below −708.25 the
 * exponential is subnormal (no precision left, and a hundred cycles per
 * operation that meets it): the argument is clamped there and the result
 * set to 0 afterwards (negsq_zero). */
#define NEGSQ_MIN -708.25
CS_AI gh4 gh_negsq(v4d v)
{
    v4d t = -v * v, lo = splat(NEGSQ_MIN);
    return (gh4){vsel(t < lo, lo, t), z4(), splat(1.0), z4()};
}
/* binexp after the exponential g = e^(−x²): 0 where −x² was clamped */
CS_AI v4d negsq_zero(v4d x, v4d g) { return vsel(-x * x < splat(NEGSQ_MIN), z4(), g); }
CS_AI double negsq_zero1(double x, double g) { return -x * x < NEGSQ_MIN ? 0.0 : g; }
/* binexp's g' from x and g */
CS_AI v4d dg_binexp(v4d x, v4d g) { return -2.0 * x * g; }
CS_AI double dg_binexp1(double x, double g) { return -2.0 * x * g; }

/* a·b − c·d with one rounding error in total (Kahan's fma trick); the CS
 * form's R_n = ‖h‖²g_n − ⟨g,h⟩h_n (reg_combine.c, reg_fast_poly.c) */
CS_AI double diff_of_products(double a, double b, double c, double d)
{
    double w = c * d;
    double e = fma(c, d, -w);
    return fma(a, b, -w) - e;
}
CS_AI v4d vdiff_of_products(v4d a, v4d b, v4d c, v4d d)
{
    v4d w = c * d;
    v4d e = vfma(c, d, -w);
    return vfma(a, b, -w) - e;
}

/* The m <= 4 entries at p as 4 lanes, padded with the last one (a last
 * partial group goes through the lane formulas like a whole one). */
CS_AI v4d ld_pad(const double *p, size_t m)
{
    if (m >= 4)
        return ld4(p);
    v4d v;
    for (size_t q = 0; q < 4; q++)
        v[q] = p[q < m ? q : m - 1];
    return v;
}

/* The Hölder gradient at p = q = 2 (reg_holder.c, Prop. 2/3):
 *   ∂/∂x_n = cg·w_g·sgn(g_n)·g'_n + ch·w_h·sgn(h_n)·h'_n − cq·(g'_n h_n + g_n h'_n),
 * the first term only where g_n ≠ 0 (and cg ≠ 0), the second only where
 * h_n ≠ 0 (and ch ≠ 0); w_g = |g_n|^(p−1)/A^(p−1), w_h likewise (hcoef: reg_gh.h). */
CS_AI v4d holder_lane4(v4d g, v4d dg, v4d h, v4d dh, v4d wg, v4d wh, const hcoef *k)
{
    v4d z = z4(), d = z;
    if (k->cg != 0.0)
        d += vsel(g != z, splat(k->cg) * wg * vsgn(g) * dg, z);
    if (k->ch != 0.0)
        d += vsel(h != z, splat(k->ch) * wh * vsgn(h) * dh, z);
    d -= splat(k->cq) * (dg * h + g * dh);
    return d;
}

CS_AI double holder_lane1(double g, double dg, double h, double dh, double wg, double wh,
                          const hcoef *k)
{
    double d = 0.0;
    if (k->cg != 0.0 && g != 0.0)
        d += k->cg * wg * (double)((g > 0.0) - (g < 0.0)) * dg;
    if (k->ch != 0.0 && h != 0.0)
        d += k->ch * wh * (double)((h > 0.0) - (h < 0.0)) * dh;
    d -= k->cq * (dg * h + g * dh);
    return d;
}

#endif
