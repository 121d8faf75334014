/* cuda/sweep_expr_check.h — a check of the device's defined regularizers
 * (sweep_expr.cuh): one block evaluates g, g', h, h' at every x and the
 * form's value and gradient, as FISTA's kernel would; the tests compare
 * them with the CPU's (tests/test_cuda_emu_expr.c on the emulator). Plain
 * C, included from C and CUDA C++. */
#ifndef CS_SWEEP_EXPR_CHECK_H
#define CS_SWEEP_EXPR_CHECK_H

#include <stddef.h>

#include "cs_expr_code.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the most entries a check takes (a thread each, one block) */
#define CS_SWEEP_EXPR_CHECK_MAX_N 1024

/* x[0..n) on the device (CUDA device 0): out[0..n) = g, out[n..2n) = g',
 * out[2n..3n) = h, out[3n..4n) = h', out[4n] = ℓ (NaN where not finite),
 * out[4n+1..5n+1) = ∇ℓ. Returns 0, or -1 with the reason in why. */
int cs_sweep_expr_check_run(const cs_expr_reg_code *rc, const double *x, int n, double *out,
                            char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
