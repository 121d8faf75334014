/* cuda/sweep_cuda.h — the batched GPU sweep (`sweep ... device=cuda`): the
 * interface between the engine (sweep.c, C) and the kernels
 * (sweep_kernels.cu, built into the CUDA module libcsreg_cuda.so), so it
 * is plain C with fixed-size types. Included from C and from CUDA C++.
 *
 * One job is one grid point of one method: `trials` recovery problems of
 * kind bin (A M×N Gaussian, x* ∈ {±1}^N, b = Ax*), each drawn on the GPU
 * from its problem stream with the engine's generator (xoshiro256** and
 * Marsaglia's polar method, ported), then solved as the CPU solves it:
 *   FISTA_BIN  projected FISTA with backtracking on ℓbin (cs_fista.h, the
 *              accelerated mode with restart, window 10, 20 halvings),
 *              x0 = P(randn), up to max_starts starts;
 *   DR_LINF    Douglas–Rachford for min ‖x‖∞ s.t. Ax = b (cs_dr.h), t = dr_t,
 *              x0 = randn, z0 = 0, one start;
 * each start's random numbers from the method stream in the CPU's order.
 * The affine projection uses an orthonormal basis of range(Aᵀ) made by
 * Gram–Schmidt twice (the CPU: Householder QR), so results agree with the
 * CPU's up to rounding: per trial, success is the same except on
 * borderline trials (tests/test_cuda_emu.c, tests/gpu/run.sh).
 * One thread block per trial (A and the basis in its shared memory), a
 * queue hands the next trial to the block that finished. */
#ifndef CS_SWEEP_CUDA_H
#define CS_SWEEP_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum cs_sweep_cuda_method { CS_SWEEP_CUDA_FISTA_BIN = 0, CS_SWEEP_CUDA_DR_LINF = 1 };

/* the largest N (the block has one thread per entry) */
#define CS_SWEEP_CUDA_MAX_N 1024

typedef struct cs_sweep_cuda_job {
    int method;                     /* enum cs_sweep_cuda_method */
    int N, M;                       /* 1 <= M <= N <= CS_SWEEP_CUDA_MAX_N */
    long trials;
    uint64_t seed;
    const uint64_t *problem_stream; /* per trial, host memory */
    const uint64_t *method_stream;  /* per trial, host memory */
    long maxit;
    int max_starts;                 /* FISTA; DR: 1 */
    int oracle_stop;                /* 1: a start ends when ‖x − x*‖/‖x*‖ < success_tol */
    double success_tol;             /* 1e-2 */
    double dr_t;                    /* DR's t (10 for ℓ∞) */
    /* out, per trial, host memory */
    unsigned char *success;
    long *iters;                    /* iterations over all starts */
    int *starts;                    /* starts used */
} cs_sweep_cuda_job;

#define CS_SWEEP_CUDA_ABI 2
#define CS_SWEEP_CUDA_SYM "cs_sweep_cuda_module_get"
typedef struct cs_sweep_cuda_module {
    int abi;
    size_t job_size;                /* sizeof(cs_sweep_cuda_job) as the module was built */
    /* run the jobs on CUDA device `device`, all at once (a stream each, so
     * one job's last trials overlap the next one's first): 0, or <0 with
     * the reason in why */
    int (*run)(int device, const cs_sweep_cuda_job *jobs, size_t njobs, char *why, size_t len);
} cs_sweep_cuda_module;
typedef const cs_sweep_cuda_module *(*cs_sweep_cuda_module_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
