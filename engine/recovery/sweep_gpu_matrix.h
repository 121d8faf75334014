/* sweep_gpu_matrix.h — `sweep kind=eig|orth ... device=cuda` (engine only):
 * the problems and the starts drawn on the host by the engine's own
 * generator, FISTA on the GPU (cuda/sweep_matrix_cuda.h), one job per grid
 * point and method, through the CUDA module. sweep_gpu.c hands these kinds
 * here. */
#ifndef CS_SWEEP_GPU_MATRIX_H
#define CS_SWEEP_GPU_MATRIX_H

#include <stddef.h>

#include "cs_sweep.h"
#include "sweep_gpu.h"

/* Whether the GPU runs this sweep of kind eig (methods eig, mu, ns with
 * the problem's C) or orth (method om), FISTA's accelerated mode, every
 * stop rule; else an error that says what it takes. */
int cs_sweep_gpu_matrix_check(const cs_sweep_spec *sp, cs_err *err);

/* As cs_sweep_gpu_run: the items (point × trials + trial, ascending) on
 * the GPU, outcomes into succ, iters, starts (item × nmethods + method),
 * secs NaN; done after each grid point's items. Cancel is checked between
 * grid points. */
int cs_sweep_gpu_matrix_run(const cs_sweep_spec *sp, const size_t *Ms, const size_t *Ks,
                            const size_t *items, size_t nitems, unsigned char *succ,
                            long *iters, int *starts, double *secs, cs_sweep_gpu_done_fn done,
                            void *user, cs_err *err);

/* Tests: use this module table (a cs_sweep_matrix_cuda_module, e.g. the
 * CUDA emulator's) instead of the one in libcsreg_cuda.so; NULL: back to it. */
void cs_sweep_gpu_matrix_use_module(const void *module);

#endif
