/* cuda/sweep_matrix_cuda.h — the batched GPU sweep of kinds eig and orth
 * (`sweep kind=eig|orth ... device=cuda`): the interface between the
 * engine (sweep_gpu_matrix.c, C) and the kernels (sweep_matrix_kernels.cu,
 * in the CUDA module libcsreg_cuda.so), so plain C with fixed-size types.
 * Included from C and from CUDA C++.
 *
 * Unlike bin, osb and ter (sweep_cuda.h), these problems are drawn on the
 * host by the engine itself (cs_problem_new: LAPACK's eigenvectors, SVDs),
 * and so are the starts (the method stream's draws in the CPU's order: x0
 * projected for eig, a random orthonormal X0 for orth, then the two random
 * points of FISTA's L estimate). The job hands the kernel, per trial, the
 * problem's own projection (cs_affine's orthonormal basis V, N×r, RANGE or
 * NULL, and its shift), C, x* and those draws; the kernel runs the CPU's
 * FISTA (cs_fista.h: the accelerated mode with restart, window 10, 20
 * halvings of τ, τ0 = 2/(10L)) on ℓeig, ℓμ, ℓns (C: the problem's) or ℓom
 * with the affine direction P₀(∇ℓ), each column of X projected with the
 * same basis, each start ended by the job's stopping rule (every cs_stop:
 * the oracle, maxit, and the residual rules on ‖Δx‖/τ). The CPU runs eig,
 * mu and ns on the affine set's coordinates where that is cheaper
 * (solver_gram.c: the same iterates to rounding), so outcomes agree with
 * the CPU's up to rounding: per trial the same except on borderline trials
 * (tests/test_cuda_emu_matrix.c).
 * One thread block per trial (a queue hands out the next one), its vectors
 * in a work area of global memory (orth N=100 has 10⁴ entries). */
#ifndef CS_SWEEP_MATRIX_CUDA_H
#define CS_SWEEP_MATRIX_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the regularizer (reg_matrix.c) */
enum cs_sweep_matrix_cuda_reg { CS_SWEEP_MATRIX_CUDA_EIG = 0, CS_SWEEP_MATRIX_CUDA_MU = 1,
                                CS_SWEEP_MATRIX_CUDA_NS = 2, CS_SWEEP_MATRIX_CUDA_OM = 3 };
/* the projection's basis (cs_proj.h): RANGE P(z) = z − V(Vᵀz − c),
 * NULL P(z) = xp + VVᵀz */
enum cs_sweep_matrix_cuda_basis { CS_SWEEP_MATRIX_CUDA_RANGE = 0,
                                  CS_SWEEP_MATRIX_CUDA_NULL = 1 };

/* the largest N (C is N×N) and the largest variable (N·K + extra) */
#define CS_SWEEP_MATRIX_CUDA_MAX_N 1024
#define CS_SWEEP_MATRIX_CUDA_MAX_ENTRIES 65536

typedef struct cs_sweep_matrix_cuda_job {
    int reg;                  /* enum cs_sweep_matrix_cuda_reg */
    int N, K;                 /* x is N×K row-major (K = 1 but for om) */
    int extra;                /* entries after x: 1 for mu (μ), else 0 */
    int basis;                /* enum cs_sweep_matrix_cuda_basis */
    int r;                    /* columns of V: M (RANGE) or N − M (NULL; 0 when M = N) */
    long trials;
    long maxit;
    int max_starts;
    int start_feasible;       /* 1: x0 lies on Ax = b (eig); 0: the first step projects it */
    int stop;                 /* enum cs_sweep_cuda_stop (sweep_cuda.h: cs_stop's values);
                                 ORACLE: a start ends when its measure < success_tol */
    double tol;               /* the residual rules' tolerance (1e-8) */
    int orth;                 /* measure ‖XᵀX − I‖_F/√K (orth), else ‖x − x*‖/‖x*‖ */
    double success_tol;       /* 1e-2 */
    /* in, host memory, trial t's block at t × its size */
    const double *V;          /* N×r (NULL when r = 0) */
    const double *shift;      /* RANGE: c = Vᵀxp (r×K); NULL: xp (N×K) */
    const double *C;          /* N×N symmetric (eig, mu, ns; read by columns), NULL for om */
    const double *xstar;      /* N×K */
    const double *xstar_norm; /* ‖x*‖ (0: the error is not divided) */
    const double *starts;     /* max_starts × {x0, r1, r2}, n = N·K + extra each */
    /* out, per trial, host memory */
    unsigned char *success;
    long *iters;              /* iterations over all starts */
    int *starts_used;
} cs_sweep_matrix_cuda_job;

#define CS_SWEEP_MATRIX_CUDA_ABI 2
#define CS_SWEEP_MATRIX_CUDA_SYM "cs_sweep_matrix_cuda_module_get"
typedef struct cs_sweep_matrix_cuda_module {
    int abi;
    size_t job_size;          /* sizeof(cs_sweep_matrix_cuda_job) as the module was built */
    /* run the jobs on CUDA device `device`, one after another: 0, or <0
     * with the reason in why */
    int (*run)(int device, const cs_sweep_matrix_cuda_job *jobs, size_t njobs, char *why,
               size_t len);
} cs_sweep_matrix_cuda_module;
typedef const cs_sweep_matrix_cuda_module *(*cs_sweep_matrix_cuda_module_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
