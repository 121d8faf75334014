/* cs_reg_fast.h — the recovery solver's fused kernels: value, gradient and
 * the gradient's norm of a regularizer instance in two or three passes over
 * x with 4-wide sums, no scratch arrays where the sums allow it, instead of
 * the FILL/COMBINE path's arrays and passes (FISTA evaluates ℓ twice per
 * iteration). Which kernel an instance gets is read from its data, once, at
 * cs_reg_new: its table entry's kernel and form, its parameters.
 *
 *   POLY kernels    hand-written (reg_fast.c: bin, osb, ter): their own
 *                   order of the sums
 *   FLAT kernels,   the CS form with h = 1 (reg_fast_flat.c) and the
 *   HOLDER kernels, Hölder forms at p = q = 2 (reg_fast_holder.c): the
 *   holder, si      arithmetic of cs_reg_eval_fast, so the same bits
 *                   (the kernels' families: reg_builtins.def)
 *   defined         in the CS form (reg_fast_defined.c): g, g', h, h' by
 *                   Horner's rule when g and h are polynomials, else by the
 *                   interpreter, then one fused pass; the library's values
 *                   to rounding
 *
 * Written once on 4-wide vectors and compiled for AVX2 (picked at run time)
 * and the baseline ISA; one process uses one of them throughout, so results
 * do not depend on the thread count. tests/test_reg_fast.c checks them
 * against cs_reg_eval. */
#ifndef CS_REG_FAST_H
#define CS_REG_FAST_H

#include <stddef.h>

#include "cs_reg.h"

/* 1 when the instance has a fused kernel: every built-in with a kernel row
 * in reg_builtins.def (without parameters; fixed with any alpha), holder
 * and si built on bin, osb or ter with p = q = 2 (any r, eps), and defined
 * entries in the CS form. */
int cs_reg_fast_has(const cs_reg *reg);
/* f = ℓ(x) (n entries), grad (may be NULL) = ∇ℓ(x), gnorm (may be NULL; with
 * grad only) = ‖∇ℓ(x)‖ in the summation order of the FISTA stepper's norm
 * (two 4-wide accumulators over blocks of 8, then the scalar tail: the bits
 * the stepper would compute). CS_ENONFINITE when f or the gradient is not
 * finite (si: also where Q + ε = 0); CS_EUNSUPPORTED without a kernel.
 * Not thread-safe on one instance (STORED kernels and the defined entries
 * use its scratch). */
int cs_reg_fast_eval(cs_reg *reg, const double *x, size_t n, double *f, double *grad,
                     double *gnorm);

#endif
