/* reg_gh4.h — the elementwise built-ins on 4 lanes (engine/reg only): g,
 * g', h, h' of every kernel of reg_builtins.def, and the lane formula of
 * the Hölder gradient. The FILL step (reg_cs.c), the Hölder
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

/* Every kernel of reg_builtins.def on 4 lanes: lane_NAME(v) = g, g', h, h'
 * (lane_dg_NAME(x, g): g' from x and g). An EXP kernel's lanes hold the
 * exponent e, clamped below at NEGSQ_MIN (below it the exponential is
 * subnormal: no precision left, and a hundred cycles per operation that
 * meets it), and g' is left for after the exponential (exp_finish,
 * reg_cs.c; the fused kernels likewise); lane_e_NAME(v) gives e unclamped,
 * where the result is set to 0 (exp_zero). */
#define NEGSQ_MIN -708.25
CS_AI v4d exp_clamp(v4d e) { return vsel(e < splat(NEGSQ_MIN), splat(NEGSQ_MIN), e); }
CS_AI v4d exp_zero(v4d e, v4d g) { return vsel(e < splat(NEGSQ_MIN), z4(), g); }
CS_AI double exp_zero1(double e, double g) { return e < NEGSQ_MIN ? 0.0 : g; }

#define K(c) splat(c)
#define ABS(v) vabs(v)
#define SGN(v) vsgn(v)
#define EXP(v) (v)
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH)                                            \
    CS_AI v4d lane_e_##name(v4d x) { return G; }                                                  \
    CS_AI v4d lane_dg_##name(v4d x, v4d g) { (void)g; return DG; }                                 \
    CS_AI gh4 lane_##name(v4d x)                                                                   \
    {                                                                                              \
        if ((FLAGS) & CS_KF_EXP)                                                                   \
            return (gh4){exp_clamp(G), z4(), H, DH};                                               \
        v4d g = G;                                                                                 \
        return (gh4){g, DG, H, DH};                                                                \
    }
#include "reg_builtins.def"
#undef K
#undef ABS
#undef SGN
#undef EXP

/* The lanes of kernel k (a constant where it is used: the switch folds). */
CS_AI gh4 lane_gh(int k, v4d x)
{
    switch (k) {
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH)                                            \
    case CS_REG_KERNEL_##ID: return lane_##name(x);
#include "reg_builtins.def"
    default: return lane_bin(x);
    }
}
CS_AI v4d lane_dg(int k, v4d x, v4d g)
{
    switch (k) {
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH)                                            \
    case CS_REG_KERNEL_##ID: return lane_dg_##name(x, g);
#include "reg_builtins.def"
    default: return lane_dg_bin(x, g);
    }
}
/* e of an EXP kernel, unclamped */
CS_AI v4d lane_e(int k, v4d x)
{
    switch (k) {
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH)                                            \
    case CS_REG_KERNEL_##ID: return lane_e_##name(x);
#include "reg_builtins.def"
    default: return x;
    }
}
CS_AI double lane_dg1(int k, double x, double g) { return cs_reg_kernel_dg(k, x, g); }

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
