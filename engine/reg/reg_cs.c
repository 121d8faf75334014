/* reg_cs.c — the built-in CS regularizers with elementwise g and h:
 * ℓ(x) = ‖g(x)‖²‖h(x)‖² − ⟨g(x),h(x)⟩². Each fills g, g', h, h' (reg_gh.h)
 * and hands them to the one COMBINE step of the CS form (reg_combine.c: the
 * Lemma-1 residual, accurate near the zero set, exact on integers: bin at
 * 1,2,3 is 98 with gradient -44,-16,156, to the last digit). */
#include <math.h>
#include <stddef.h>

#include "cs_simd.h"
#include "reg_evals.h"
#include "reg_gh.h"
#include "reg_gh4.h"
#include "reg_internal.h"
#include "vmath.h"

/* Each fill runs 4-wide over the entries; a last partial group goes
 * through the same code, padded with the last entry, so an entry's g, g',
 * h, h' do not depend on where it stands (and are the bits of the formulas
 * entry by entry: the same IEEE operations). */
#define FILL_LOOP(FORMULA)                                                                         \
    for (size_t i = 0; i < n; i += 4) {                                                            \
        size_t m = n - i < 4 ? n - i : 4;                                                          \
        gh4 r = FORMULA(ld_pad(x + i, m));                                                         \
        store(a, i, m, &r, d);                                                                     \
    }

CS_AI void put(double *dst, size_t i, size_t m, v4d v)
{
    if (m == 4)
        st4(dst + i, v);
    else
        for (size_t k = 0; k < m; k++)
            dst[i + k] = v[k];
}

CS_AI void store(cs_gh *a, size_t i, size_t m, const gh4 *r, int d)
{
    put(a->g, i, m, r->g);
    put(a->h, i, m, r->h);
    if (d) {
        put(a->dg, i, m, r->dg);
        if (!a->flat_h)
            put(a->dh, i, m, r->dh);
    }
}

/* An EXP kernel after its lanes: g = e^(lanes) (SLEEF, 1 ULP; 0 where
 * subnormal), then g' from x and g */
CS_AI void exp_finish(int k, const double *x, size_t n, cs_gh *a, int d)
{
    cs_vm_exp_any(a->g, a->g, n, cs_cpu_avx2_fma());
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4d xv = ld4(x + i), g = exp_zero(lane_e(k, xv), ld4(a->g + i));
        st4(a->g + i, g);
        if (d)
            st4(a->dg + i, lane_dg(k, xv, g));
    }
    for (; i < n; i++) {
        a->g[i] = exp_zero1(lane_e(k, splat(x[i]))[0], a->g[i]);
        if (d)
            a->dg[i] = lane_dg1(k, x[i], a->g[i]);
    }
}

/* The fill of kernel k (flat_h set by the caller); one case per kernel, so
 * each loop is that kernel's own. */
CS_AI void fill_body(cs_reg_kernel k, const double *x, size_t n, cs_gh *a, int d)
{
    switch (k) {
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH)                                            \
    case CS_REG_KERNEL_##ID:                                                                       \
        FILL_LOOP(lane_##name);                                                                    \
        if ((FLAGS) & CS_KF_EXP)                                                                   \
            exp_finish(k, x, n, a, d);                                                             \
        break;
#include "reg_builtins.def"
    default: FILL_LOOP(lane_bin); break;
    }
}

#ifdef CS_AVX2_CLONE
static CS_AVX2_FN void fill_avx2(cs_reg_kernel k, const double *x, size_t n, cs_gh *a, int d)
{
    fill_body(k, x, n, a, d);
}
#endif
static void fill_base(cs_reg_kernel k, const double *x, size_t n, cs_gh *a, int d)
{
    fill_body(k, x, n, a, d);
}

void cs_fill_builtin(cs_reg_kernel k, const double *x, size_t n, cs_gh *a, int d)
{
    a->flat_h = !(cs_reg_kernel_flags(k) & CS_KF_H);
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2())
        fill_avx2(k, x, n, a, d);
    else
#endif
        fill_base(k, x, n, a, d);
}

/* equ: g = y², h = 4^(b−1) for y in block b (blocks of length seg) */
static void fill_equ(const double *x, size_t n, size_t seg, cs_gh *a, int d)
{
    cs_fill_builtin(CS_REG_KERNEL_BIN, x, n, a, d);
    for (size_t i = 0; i < n; i++)
        a->h[i] = (double)(1ull << (2 * (i / seg)));
}

/* Most entries take a plain vector and nothing else. */
static int plain(cs_reg *reg, const double *x, size_t rows, size_t cols, cs_reg_kernel k,
                 double *value, double *grad, cs_err *err)
{
    size_t n;
    cs_gh a;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (!rc)
        rc = cs_gh_scratch(reg, n, 0, &a, NULL, err);
    if (rc)
        return rc;
    cs_fill_builtin(k, x, n, &a, grad != NULL);
    cs_combine_cs(&a, n, NULL, value, grad, !reg->vector);
    return CS_OK;
}

/* every entry with an elementwise kernel of the CS form (bin, osb, ...) */
CS_REG_EVAL_DECL(elem)
{
    return plain(reg, x, rows, cols, reg->info->kernel, value, grad, err);
}

/* fixed: g = [x², α²], h = 1_{N+1}; the constant pair is the tail. */
CS_REG_EVAL_DECL(fixed)
{
    size_t n;
    cs_gh a;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    double a2 = reg->alpha * reg->alpha;
    if (!isfinite(a2 * a2))
        return cs_fail(err, CS_ENONFINITE, "fixed: alpha=%g is too large", reg->alpha);
    if ((rc = cs_gh_scratch(reg, n, 0, &a, NULL, err)))
        return rc;
    cs_fill_builtin(CS_REG_KERNEL_BIN, x, n, &a, grad != NULL);
    cs_combine_cs(&a, n, &a2, value, grad, !reg->vector);
    return CS_OK;
}

/* equ: the argument is y_1, ..., y_B stacked, each of length N. */
CS_REG_EVAL_DECL(equ)
{
    size_t len;
    cs_gh a;
    int rc = cs_reg_vector_len(reg, rows, cols, &len, err);
    if (rc)
        return rc;
    size_t B = (size_t)reg->B;
    if (B == 0 || len % B != 0)
        return cs_fail(err, CS_EDIM, "equ B=%zu: argument length %zu is not a multiple of %zu",
                       B, len, B);
    rc = cs_gh_scratch(reg, len, 0, &a, NULL, err);
    if (rc)
        return rc;
    fill_equ(x, len, len / B, &a, grad != NULL);
    cs_combine_cs(&a, len, NULL, value, grad, !reg->vector);
    return CS_OK;
}
