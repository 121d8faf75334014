/* reg_baseline.c — the non-CS baselines the paper compares against:
 *   beta  Σ(x² − β)², β fixed or learned as the last coordinate (app. C.2)
 *   linf  ‖x‖∞  (ℓ∞-norm minimization for binary recovery, sec. 3.1)
 *   l1    ‖x‖₁  (ℓ1-norm minimization for sparse recovery, app. C.4)
 * linf and l1 return a subgradient, with sign(0) = 0. */
#include <math.h>
#include <stddef.h>

#include "cs_simd.h"
#include "reg_evals.h"
#include "reg_internal.h"

static inline double sgn(double v) { return (v > 0.0) - (v < 0.0); }

CS_REG_EVAL_DECL(beta)
{
    size_t len;
    int rc = cs_reg_vector_len(reg, rows, cols, &len, err);
    if (rc)
        return rc;
    size_t n = len;
    double b = reg->beta;
    if (reg->learn_beta) {
        if (len < 2)
            return cs_fail(err, CS_EDIM,
                           "beta=learn takes x followed by beta: at least 2 entries, got %zu",
                           len);
        n = len - 1;
        b = x[n];
    }
    /* the library's sums entry by entry; cs_reg_eval_fast's 4-wide first */
    size_t i = 0, nv = reg->vector ? n & ~(size_t)3 : 0;
    v4d V = z4(), DB = z4(), bv = splat(b);
    for (; i < nv; i += 4) {
        v4d u = ld4(x + i), t = u * u - bv;
        V += t * t;
        DB += t;
        if (grad)
            st4(grad + i, 4.0 * u * t);
    }
    double v = hsum(V), db = hsum(DB);
    for (; i < n; i++) {
        double t = x[i] * x[i] - b;
        v += t * t;
        db += t;
        if (grad)
            grad[i] = 4.0 * x[i] * t;
    }
    *value = v;
    if (grad && reg->learn_beta)
        grad[n] = -2.0 * db;
    return CS_OK;
}

CS_REG_EVAL_DECL(linf)
{
    size_t n;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    size_t arg = 0;
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (fabs(x[i]) > m) {
            m = fabs(x[i]);
            arg = i;
        }
    }
    *value = m;
    if (grad) {
        /* sign(x_k)·e_k at the first index attaining the maximum */
        for (size_t i = 0; i < n; i++)
            grad[i] = 0.0;
        grad[arg] = sgn(x[arg]);
    }
    return CS_OK;
}

CS_REG_EVAL_DECL(l1)
{
    size_t n;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        s += fabs(x[i]);
        if (grad)
            grad[i] = sgn(x[i]);
    }
    *value = s;
    return CS_OK;
}
