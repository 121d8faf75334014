/* cs_reg_fast.h — value and gradient of the parameter-free bin, osb and
 * ter in two or three fused passes with split accumulators, for the hot
 * loop of the recovery solver: the same Lemma-1 form as the library
 * (ℓ = ‖h‖²‖g − βh‖², β = ⟨g,h⟩/‖h‖²), whose general kernel costs 3–5×
 * more at N = 100 (FISTA evaluates ℓ twice per iteration). Written once on
 * 4-wide vectors and compiled for AVX2 (picked at run time) and the
 * baseline ISA; one process uses one of them throughout, so results do
 * not depend on the thread count. tests/test_fista.c checks them against
 * cs_reg_eval. */
#ifndef CS_REG_FAST_H
#define CS_REG_FAST_H

#include <stddef.h>

#include "cs_reg.h"

/* 1 when kernel k has a fused version here. */
int cs_reg_fast_has(cs_reg_kernel k);
/* f = ℓ(x) and (grad != NULL) ∇ℓ(x); with gnorm (bin only) also ‖∇ℓ(x)‖ in
 * the summation order of the FISTA stepper's norm (two 4-wide accumulators
 * over blocks of 8, then the scalar tail). CS_ENONFINITE when f or the
 * gradient is not finite; CS_EUNSUPPORTED for other kernels. */
int cs_reg_fast_eval(cs_reg_kernel k, const double *x, size_t n, double *f, double *grad,
                     double *gnorm);

#endif
