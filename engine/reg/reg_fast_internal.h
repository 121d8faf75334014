/* reg_fast_internal.h — what the solver's fused kernels share (engine/reg
 * only; the interface is cs_reg_fast.h). */
#ifndef CS_REG_FAST_INTERNAL_H
#define CS_REG_FAST_INTERNAL_H

#include <math.h>
#include <stddef.h>

#include "cs_simd.h"
#include "cs_vec.h"
#include "reg_internal.h"

/* The fused kernel of an instance (struct cs_reg's `fast`, picked once by
 * cs_reg_fast_pick from its table entry and parameters). */
enum cs_fast_kind {
    CS_FAST_NONE = 0,
    CS_FAST_BIN,      /* reg_fast.c: bin, osb, ter without parameters */
    CS_FAST_OSB,
    CS_FAST_TER,
    CS_FAST_FLAT,     /* reg_fast_flat.c: a FLAT kernel (reg_builtins.def), by its id */
    CS_FAST_KHOLDER,  /* reg_fast_holder.c: a HOLDER kernel (l2l1h), and the */
    CS_FAST_HOLDER,   /* Hölder forms at p = q = 2 */
    CS_FAST_SI,
    CS_FAST_DEFINED   /* reg_fast_defined.c: defined in the CS form */
};

/* The kernels of a family: f, grad (may be NULL), gn (may be NULL; only
 * with grad); CS_ENONFINITE when f or the gradient is not finite. */
int cs_fast_flat(cs_reg *reg, const double *x, size_t n, double *f, double *grad, double *gn);
int cs_fast_holder(cs_reg *reg, const double *x, size_t n, double *f, double *grad,
                   double *gn);
int cs_fast_defined(cs_reg *reg, const double *x, size_t n, double *f, double *grad,
                    double *gn);

/* ‖grad‖ in the FISTA stepper's order (cs_fista.h, fg_gnorm): n0 and n1
 * have summed the squares of the first and second half of every whole
 * block of 8; the entries after the last whole block follow one by one. */
CS_AI double gn_finish(v4d n0, v4d n1, const double *grad, size_t n)
{
    double s = hsum(n0 + n1);
    for (size_t i = n & ~(size_t)7; i < n; i++)
        s += grad[i] * grad[i];
    return sqrt(s);
}

/* The status of a result: CS_ENONFINITE unless f and the gradient are
 * finite. gn (may be NULL): the gradient's norm, which is finite when every
 * entry is and not too large, so the entries are scanned only when it is
 * not. */
CS_AI int fast_status(double f, const double *grad, size_t n, const double *gn)
{
    if (!isfinite(f))
        return CS_ENONFINITE;
    if (grad && !(gn && isfinite(*gn)) && !cs_vec_finite(grad, n))
        return CS_ENONFINITE;
    return CS_OK;
}

#endif
