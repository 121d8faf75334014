/* cs_reg_gram.h — eig, mu and ns in the coordinates of an affine set.
 *
 * On the affine set x = xp + Zz (Z: N×r with orthonormal columns, xp ⊥ Z,
 * the minimum-norm solution) these regularizers see x only through ‖x‖²,
 * xᵀCx and ‖Cx‖², which are quadratic forms of w = (1, z):
 *   ‖x‖² = ‖xp‖² + ‖z‖²,  xᵀCx = wᵀSw,  ‖Cx‖² = wᵀTw,
 *   S = Bᵀ·(C + Cᵀ)/2·B,  T = (CB)ᵀ(CB),  B = [xp Z]  ((r+1)×(r+1) each).
 * A value and its gradient in z (Zᵀ∇ℓ; mu: and ∂ℓ/∂μ) then cost two
 * (r+1)² products, where the same in x costs three N×N products and FISTA's
 * projection: the recovery solver runs these regularizers on z.
 *
 * Equal to cs_reg_eval at x = xp + Zz to rounding (tests/test_reg_gram.c);
 * values that round below zero are taken as 0 (ℓ ≥ 0). */
#ifndef CS_REG_GRAM_H
#define CS_REG_GRAM_H

#include <stddef.h>

#include "cs_reg.h"

typedef struct cs_reg_gram cs_reg_gram;

/* 1 when the instance's entry is eig, mu or ns. */
int cs_reg_gram_has(const cs_reg *reg);

/* The forms of reg (its C, drawn now for C=random) on x = xp + Zz: xp has N
 * entries, Z is N×r row-major. Errors: not eig/mu/ns, C of the wrong width,
 * out of memory. */
int cs_reg_gram_new(cs_reg_gram **out, cs_reg *reg, const double *xp, const double *Z,
                    size_t N, size_t r, cs_err *err);
void cs_reg_gram_free(cs_reg_gram *g);

/* Entries of the reduced variable: r, and mu's μ after them. */
size_t cs_reg_gram_len(const cs_reg_gram *g);

/* f = ℓ(xp + Zz) and grad (may be NULL) its gradient in v = (z, μ).
 * CS_ENONFINITE when either is not finite. Not thread-safe on one object. */
int cs_reg_gram_eval(cs_reg_gram *g, const double *v, double *f, double *grad);

#endif
