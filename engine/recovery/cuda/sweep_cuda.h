/* cuda/sweep_cuda.h — the batched GPU sweep (`sweep ... device=cuda`): the
 * interface between the engine (sweep.c, C) and the kernels
 * (sweep_kernels.cu, built into the CUDA module libcsreg_cuda.so), so it
 * is plain C with fixed-size types. Included from C and from CUDA C++.
 *
 * One job is one grid point of one method: `trials` recovery problems of
 * kind bin, osb or ter (A M×N Gaussian, b = Ax*; x* ∈ {±1}^N, {0,1}^N or
 * {−1,0,1}^N, or exactly K nonzeros) or 2bit (below), each drawn on the
 * GPU from its problem stream with the engine's generator (xoshiro256**
 * and Marsaglia's polar method, ported) as cs_problem_new draws it, then
 * solved as the CPU solves it:
 *   FISTA  projected FISTA with backtracking (cs_fista.h, the accelerated
 *          mode with restart, window 10, 20 halvings) on ℓbin, ℓosb, ℓter
 *          (reg_fast.c's kernels), the FLAT kernels bbin, binexp, l2l1,
 *          fixed (reg_fast_flat.c), the Hölder forms holder, si at
 *          p = q = 2 and l2l1h (reg_fast_holder.c), holder and si at other
 *          p, q (reg_holder.c's rescaled path), beta (reg_baseline.c;
 *          beta=learn: β is one more coordinate, free of the projection,
 *          started at mean(randn²)), or a regularizer made by reg define
 *          (the CS form, holder and si at p = q = 2: g and h by an
 *          interpreter of the exported bytecode, sweep_expr.cuh);
 *          x0 = P(randn), except the first start
 *          of osb and ter: randn, unprojected (first_start_raw); up to
 *          max_starts starts, each ended by the stopping rule `stop`;
 *   DR     Douglas–Rachford for min ‖x‖∞ or ‖x‖1 s.t. Ax = b (cs_dr.h),
 *          t = dr_t, x0 = randn, z0 = 0, one start ended by `stop`;
 *   FISTA_2BIT  kind 2bit (x* = y1 + y2, y1 ∈ {±1}^N, y2 ∈ {±2}^N):
 *          ‖A(y1 + y2) − b‖² + λℓequ(y) by FISTA's adaptive mode
 *          (Barzilai–Borwein steps, backtracking ×0.2, no projection),
 *          y0 = randn (2N), up to max_starts starts, each ended by `stop`;
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

#include "cs_expr_code.h"

#ifdef __cplusplus
extern "C" {
#endif

enum cs_sweep_cuda_method { CS_SWEEP_CUDA_FISTA = 0, CS_SWEEP_CUDA_DR = 1,
                            CS_SWEEP_CUDA_FISTA_2BIT = 2 };
/* the problem's kind (cs_problem.h's draw) */
enum cs_sweep_cuda_kind { CS_SWEEP_CUDA_BIN = 0, CS_SWEEP_CUDA_OSB = 1, CS_SWEEP_CUDA_TER = 2,
                          CS_SWEEP_CUDA_2BIT = 3 };
/* FISTA's regularizer (fn, with method FISTA): the solver's fused kernels
 * (reg_fast*.c) and beta; BIN, OSB, TER also name holder's and si's base */
enum cs_sweep_cuda_reg { CS_SWEEP_CUDA_REG_BIN = 0, CS_SWEEP_CUDA_REG_OSB = 1,
                         CS_SWEEP_CUDA_REG_TER = 2, CS_SWEEP_CUDA_REG_BBIN = 3,
                         CS_SWEEP_CUDA_REG_BINEXP = 4, CS_SWEEP_CUDA_REG_L2L1 = 5,
                         CS_SWEEP_CUDA_REG_FIXED = 6, CS_SWEEP_CUDA_REG_HOLDER = 7,
                         CS_SWEEP_CUDA_REG_SI = 8, CS_SWEEP_CUDA_REG_L2L1H = 9,
                         CS_SWEEP_CUDA_REG_BETA = 10, CS_SWEEP_CUDA_REG_DEFINED = 11,
                         CS_SWEEP_CUDA_REG_COUNT = 12 };
/* a start's stopping rule, with cs_stop's values (cs_fista.h; fista.c's
 * and dr.c's cs_stop_fires), every method */
enum cs_sweep_cuda_stop { CS_SWEEP_CUDA_STOP_ORACLE = 0, CS_SWEEP_CUDA_STOP_HYBRID = 1,
                          CS_SWEEP_CUDA_STOP_RESIDUAL = 2, CS_SWEEP_CUDA_STOP_NORMALIZED = 3,
                          CS_SWEEP_CUDA_STOP_MAXIT = 4, CS_SWEEP_CUDA_STOP_RATIO = 5 };
/* Douglas–Rachford's prox (fn, with method DR) */
enum cs_sweep_cuda_prox { CS_SWEEP_CUDA_PROX_LINF = 0, CS_SWEEP_CUDA_PROX_L1 = 1 };

/* the largest N (the block has one thread per entry) */
#define CS_SWEEP_CUDA_MAX_N 1024

typedef struct cs_sweep_cuda_job {
    int method;                     /* enum cs_sweep_cuda_method */
    int fn;                         /* enum cs_sweep_cuda_reg (FISTA), _prox (DR) */
    int kind;                       /* enum cs_sweep_cuda_kind */
    int N, M;                       /* 1 <= M <= N; N (2bit: 2N) <= CS_SWEEP_CUDA_MAX_N */
    int K;                          /* osb, ter: exactly K nonzeros (0: dense) */
    long trials;
    uint64_t seed;
    const uint64_t *problem_stream; /* per trial, host memory */
    const uint64_t *method_stream;  /* per trial, host memory */
    long maxit;
    int max_starts;                 /* FISTA; DR: 1 */
    int first_start_raw;            /* FISTA: the first start unprojected (osb, ter) */
    int stop;                       /* enum cs_sweep_cuda_stop; ORACLE: a start ends
                                       when ‖x − x*‖/‖x*‖ < success_tol */
    double tol;                     /* the residual rules' tolerance (1e-8) */
    double success_tol;             /* 1e-2 */
    /* the regularizer's parameters (FISTA), as the CPU's instance has them */
    int base;                       /* holder, si: enum cs_sweep_cuda_reg BIN, OSB or TER */
    int learn_beta;                 /* beta=learn: β is coordinate N (N + 1 in all) */
    double r, eps;                  /* holder, si: the power r > 0; si's ε >= 0 */
    double p, q;                    /* holder, si: the norms' exponents >= 1 (2, 2: the
                                       fused kernel's path; else the rescaled one) */
    double alpha;                   /* fixed: the scale α */
    double beta;                    /* beta: β (without learn_beta) */
    double dr_t;                    /* DR's t (10 for ℓ∞, 1 for ℓ1) */
    double lambda;                  /* FISTA_2BIT: ℓequ's weight λ (1e-5) */
    /* DEFINED: a regularizer made by reg define, its g, h and form
     * (cs_expr_export.h: the CS form, holder and si at p = q = 2), host
     * memory; evaluated by the device's interpreter (sweep_expr.cuh) */
    const cs_expr_reg_code *defined;
    /* out, per trial, host memory */
    unsigned char *success;
    long *iters;                    /* iterations over all starts */
    int *starts;                    /* starts used */
} cs_sweep_cuda_job;

#define CS_SWEEP_CUDA_ABI 7
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
