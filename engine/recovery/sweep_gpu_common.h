/* sweep_gpu_common.h — what every GPU sweep refuses alike (sweep_gpu.c
 * for bin, osb, ter and 2bit; sweep_gpu_matrix.c for eig and orth): a
 * FISTA mode other than the kind's default, and N above the kernel's
 * largest. Each caller names what it takes in the message. */
#ifndef CS_SWEEP_GPU_COMMON_H
#define CS_SWEEP_GPU_COMMON_H

#include <stddef.h>

#include "cs_sweep.h"

/* CS_OK, or CS_EUNSUPPORTED with "TAKES: FISTA's default mode (M), not
 * mode=X" or "TAKES: N <= MOST, not N=X". */
int cs_sweep_gpu_common_check(const cs_sweep_spec *sp, const char *takes, size_t most,
                              cs_err *err);

#endif
