/* sweep_gpu.h — `sweep ... device=cuda` (engine only): the sweep's trials
 * as batched GPU jobs (cuda/sweep_cuda.h), one job per grid point and
 * method, through the CUDA module. */
#ifndef CS_SWEEP_GPU_H
#define CS_SWEEP_GPU_H

#include <stddef.h>

#include "cs_sweep.h"

/* Whether the GPU runs this sweep: kinds bin, osb and ter (dense or K
 * nonzeros) with the CS regularizers and their variants (FISTA) and linf,
 * l1 (Douglas–Rachford), every stop rule; kind 2bit with its method equ;
 * kinds eig and orth (handed to sweep_gpu_matrix.c); the kind's default
 * FISTA mode; else an error that says what it takes. */
int cs_sweep_gpu_check(const cs_sweep_spec *sp, cs_err *err);

/* Called after each item's methods all finished (in item order within a
 * grid point); nonzero stops the run with that code. */
typedef int (*cs_sweep_gpu_done_fn)(void *user, size_t item, cs_err *err);

/* The items (point × trials + trial, ascending) on the GPU: outcomes into
 * succ, iters, starts (item × nmethods + method, as sweep.c keeps them;
 * secs NaN). Ms, Ks: M and K per grid point. Cancel is checked between
 * jobs. */
int cs_sweep_gpu_run(const cs_sweep_spec *sp, const size_t *Ms, const size_t *Ks,
                     const size_t *items, size_t nitems, unsigned char *succ, long *iters,
                     int *starts, double *secs, cs_sweep_gpu_done_fn done, void *user,
                     cs_err *err);

/* Tests: use this module table (a cs_sweep_cuda_module, e.g. the CUDA
 * emulator's) instead of the one in libcsreg_cuda.so; NULL: back to it. */
void cs_sweep_gpu_use_module(const void *module);

#endif
