/* cuda/sweep_stop.cuh — a start's stopping rule on the device, for both
 * batched sweeps (sweep_kernels.cu, sweep_matrix_kernels.cu): fista.c's
 * and dr.c's cs_stop_fires with FISTA's eps_r = 1e-8, on the job's stop
 * (enum cs_sweep_cuda_stop, cs_stop's values). Static: each .cu includes
 * it once. */
#ifndef CS_SWEEP_STOP_CUH
#define CS_SWEEP_STOP_CUH

#include "sweep_cuda.h"

/* cs_stop_fires: whether the start's stopping rule ends it here */
__device__ static int stop_fires(int stop, int hit, double resid, double max_resid, double nres,
                                 double tol)
{
    switch (stop) {
    case CS_SWEEP_CUDA_STOP_ORACLE: return hit;
    case CS_SWEEP_CUDA_STOP_HYBRID: return resid / (max_resid + 1e-8) < tol || nres < tol;
    case CS_SWEEP_CUDA_STOP_RATIO: return resid / (max_resid + 1e-8) < tol;
    case CS_SWEEP_CUDA_STOP_RESIDUAL: return resid < tol;
    case CS_SWEEP_CUDA_STOP_NORMALIZED: return nres < tol;
    default: return 0;
    }
}

/* the rules that normalize by ‖∇f(x0)‖ (a reduction more per iteration) */
__device__ static int needs_gnorm(int stop)
{
    return stop == CS_SWEEP_CUDA_STOP_NORMALIZED || stop == CS_SWEEP_CUDA_STOP_HYBRID;
}

#endif
