/* cuda/sweep_expr_check.cu — the check kernel of sweep_expr_check.h: the
 * device's defined regularizer (sweep_expr.cuh) at given points, one
 * block, a thread an entry, the sums by a plain block reduction. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sweep_expr.cuh"
#include "sweep_expr_check.h"

/* sums (maxima) over the block through shared memory, thread 0 taking
 * them in entry order; every thread gets them */
struct check_sum {
    double *buf;   /* blockDim.x × CS_DX_NM */
    __device__ void reduce(double *v, int k, int mx)
    {
        int t = (int)threadIdx.x, nt = (int)blockDim.x;
        __syncthreads();   /* the last sum's results are read */
        for (int j = 0; j < k; j++)
            buf[j * nt + t] = v[j];
        __syncthreads();
        if (t == 0)
            for (int j = 0; j < k; j++) {
                double s = mx ? buf[j * nt] : 0.0;
                for (int i = mx; i < nt; i++)
                    s = mx ? fmax(s, buf[j * nt + i]) : s + buf[j * nt + i];
                buf[j * nt] = s;
            }
        __syncthreads();
        for (int j = 0; j < k; j++)
            v[j] = buf[j * nt];
    }
    __device__ void operator()(double *v, int k) { reduce(v, k, 0); }
    __device__ void max(double *v, int k) { reduce(v, k, 1); }
};

__global__ void expr_check_kernel(const cs_expr_reg_code *rc, const double *x, int n,
                                  double *out)
{
    __shared__ double buf[CS_DX_NM * CS_SWEEP_EXPR_CHECK_MAX_N];
    check_sum sum = {buf};
    int t = (int)threadIdx.x, on = t < n;
    cs_dx_gh e;
    double xt = on ? x[t] : 0.0;
    cs_dx_fill(rc, xt, 1, &e);   /* g, h at x itself (the value's may be rescaled) */
    double m[CS_DX_NM], g;
    int pq = cs_dx_pq(rc), finite;
    if (pq)
        cs_dx_moments<1>(rc, sum, xt, on, m);
    else
        cs_dx_moments<0>(rc, sum, xt, on, m);
    sum(m, CS_DX_NSUM);
    double f = pq ? cs_dx_value<1>(rc, sum, xt, on, m, &g, &finite)
                  : cs_dx_value<0>(rc, sum, xt, on, m, &g, &finite);
    if (on) {
        out[t] = e.g;
        out[n + t] = e.dg;
        out[2 * n + t] = e.h;
        out[3 * n + t] = e.dh;
        out[4 * n + 1 + t] = g;
    }
    if (t == 0)
        out[4 * n] = finite ? f : NAN;
}

static int fail(char *why, size_t len, const char *step, cudaError_t e)
{
    snprintf(why, len, "expression check: %s: %s", step, cudaGetErrorString(e));
    cudaGetLastError();
    return -1;
}

extern "C" __attribute__((visibility("default"))) int
cs_sweep_expr_check_run(const cs_expr_reg_code *rc, const double *x, int n, double *out,
                        char *why, size_t len)
{
    if (n < 1 || n > CS_SWEEP_EXPR_CHECK_MAX_N) {
        snprintf(why, len, "expression check: n=%d is out of range (1..%d)", n,
                 CS_SWEEP_EXPR_CHECK_MAX_N);
        return -1;
    }
    if (!cs_dx_reg_valid(rc)) {
        snprintf(why, len, "expression check: the code is malformed");
        return -1;
    }
    cs_expr_reg_code *drc = NULL;
    double *dx = NULL, *dout = NULL;
    size_t nout = 5 * (size_t)n + 1;
    cudaError_t e;
    int rc_ = 0;
    if ((e = cudaMalloc(&drc, sizeof *drc)) || (e = cudaMalloc(&dx, (size_t)n * sizeof *dx)) ||
        (e = cudaMalloc(&dout, nout * sizeof *dout)) ||
        (e = cudaMemcpy(drc, rc, sizeof *drc, cudaMemcpyHostToDevice)) ||
        (e = cudaMemcpy(dx, x, (size_t)n * sizeof *dx, cudaMemcpyHostToDevice))) {
        rc_ = fail(why, len, "cudaMalloc/cudaMemcpy", e);
    } else {
        unsigned threads = (unsigned)((n + 31) / 32 * 32);
        expr_check_kernel<<<1, threads>>>(drc, dx, n, dout);
        if ((e = cudaGetLastError()) || (e = cudaDeviceSynchronize()))
            rc_ = fail(why, len, "the check kernel", e);
        else if ((e = cudaMemcpy(out, dout, nout * sizeof *out, cudaMemcpyDeviceToHost)))
            rc_ = fail(why, len, "cudaMemcpy", e);
    }
    cudaFree(drc);
    cudaFree(dx);
    cudaFree(dout);
    return rc_;
}
