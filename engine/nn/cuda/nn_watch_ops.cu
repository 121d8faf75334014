/* cuda/nn_watch_ops.cu — the CUDA backend's ops for watching a run
 * (nn_watch.c) and for the histograms of `hist`: the same functions, in
 * the same order, as the CPU reference engine/nn/cpu/nn_watch_ops.c. One
 * block per row for the per-row numbers (sums in double), one thread per
 * value or bitmap word otherwise; only counts and per-row numbers go back
 * to the host. */
#include <cuda_runtime.h>
#include <math.h>
#include <string.h>

#include "nn_backend.h"
#include "nn_cuda.cuh"

/* ------------------------------------------------------------------ histograms */

__global__ void hist_kernel(uint32_t *counts, const float *x, size_t n, float lo, float hi,
                            int bins)
{
    float finv = (float)(bins / ((double)hi - lo));
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float v = x[i];
        if (v >= lo && v <= hi)
            atomicAdd(&counts[nn_hist_bin(v, lo, hi, bins, finv)], 1u);
    }
}

static void hist(uint32_t *counts, const float *x, size_t n, float lo, float hi, int bins)
{
    if (!cuda_ok(cudaMemsetAsync(counts, 0, (size_t)bins * sizeof *counts, nn_stream), "hist"))
        return;
    hist_kernel<<<nblocks(n), NT, 0, nn_stream>>>(counts, x, n, lo, hi, bins);
    op_done("watch hist");
}

/* ------------------------------------------------------------------ scales, readiness, signs */

/* one block per row; the sum of floats in double (exact for weights, so in
 * any order the same as cs_quant_binary's) */
__global__ void row_abs_mean_kernel(float *alpha, const float *w, int cols)
{
    __shared__ double sh[NT];
    const float *x = w + (size_t)blockIdx.x * cols;
    double s = 0;
    for (int i = threadIdx.x; i < cols; i += blockDim.x)
        s += fabs((double)x[i]);
    s = block_sum(s, sh);
    if (threadIdx.x == 0)
        alpha[blockIdx.x] = cols ? (float)(s / (double)cols) : 0.0f;
}

static void row_abs_mean(float *alpha, const float *w, int rows, int cols)
{
    row_abs_mean_kernel<<<rows, NT, 0, nn_stream>>>(alpha, w, cols);
    op_done("watch row_abs_mean");
}

/* One block per row, no sorting: every |x_j| is a candidate threshold τ
 * (the threads take turns), with S = Σ_{|x_i| >= τ} |x_i| and c its count;
 * the best S²/c wins, the largest τ among equals, as in cs_quant_ternary's
 * scan of the sorted row. O(cols²) per row, all in cache. */
__global__ void row_ternary_kernel(float *alpha, float *tau, const float *w, int cols)
{
    __shared__ double sobj[NT], ssum[NT];
    __shared__ float st[NT];
    __shared__ unsigned scnt[NT];
    const float *x = w + (size_t)blockIdx.x * cols;
    int t = threadIdx.x;
    double best = -1, bsum = 0;
    float bt = 0.0f;
    unsigned bc = 0;
    for (int j = t; j < cols; j += blockDim.x) {
        float cand = fabsf(x[j]);
        double s = 0;
        unsigned c = 0;
        for (int i = 0; i < cols; i++) {
            float a = fabsf(x[i]);
            if (a >= cand) {
                s += a;
                c++;
            }
        }
        double obj = s * s / (double)c;
        if (obj > best || (obj == best && cand > bt)) {
            best = obj;
            bsum = s;
            bt = cand;
            bc = c;
        }
    }
    sobj[t] = best;
    ssum[t] = bsum;
    st[t] = bt;
    scnt[t] = bc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k && (sobj[t + k] > sobj[t] || (sobj[t + k] == sobj[t] && st[t + k] > st[t]))) {
            sobj[t] = sobj[t + k];
            ssum[t] = ssum[t + k];
            st[t] = st[t + k];
            scnt[t] = scnt[t + k];
        }
        __syncthreads();
    }
    if (t == 0) {
        float a = scnt[0] ? (float)(ssum[0] / (double)scnt[0]) : 0.0f;
        alpha[blockIdx.x] = a;
        tau[blockIdx.x] = a == 0.0f ? INFINITY : st[0];
    }
}

static void row_ternary(float *alpha, float *tau, const float *w, int rows, int cols)
{
    row_ternary_kernel<<<rows, NT, 0, nn_stream>>>(alpha, tau, w, cols);
    op_done("watch row_ternary");
}

__global__ void near_count_kernel(uint32_t *near, const float *w, const float *alpha, int cols,
                                  int ternary)
{
    __shared__ double sh[NT];
    const float *x = w + (size_t)blockIdx.x * cols;
    double a = alpha[blockIdx.x], tol = 0.01 * a, c = 0;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) {
        double ax = fabs((double)x[i]), d = fabs(ax - a);
        if (ternary && ax < d)
            d = ax;
        c += d <= tol;
    }
    c = block_sum(c, sh);
    if (threadIdx.x == 0)
        near[blockIdx.x] = (uint32_t)c;
}

static void near_count(uint32_t *near, const float *w, const float *alpha, int rows, int cols,
                       int ternary)
{
    near_count_kernel<<<rows, NT, 0, nn_stream>>>(near, w, alpha, cols, ternary);
    op_done("watch near_count");
}

/* one thread per 32-bit word of the bitmap */
__global__ void sign_flips_kernel(uint32_t *flips, uint32_t *bits, const float *x, size_t n)
{
    size_t words = (n + 31) / 32;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < words;
         k += (size_t)gridDim.x * blockDim.x) {
        const float *v = x + 32 * k;
        size_t m = n - 32 * k < 32 ? n - 32 * k : 32;
        uint32_t b = 0;
        for (size_t i = 0; i < m; i++)
            b |= (uint32_t)(v[i] < 0.0f) << i;
        uint32_t d = (uint32_t)__popc(b ^ bits[k]);
        bits[k] = b;
        if (d)
            atomicAdd(flips, d);
    }
}

static void sign_flips(uint32_t *flips, uint32_t *bits, const float *x, size_t n)
{
    if (!cuda_ok(cudaMemsetAsync(flips, 0, sizeof *flips, nn_stream), "sign_flips"))
        return;
    sign_flips_kernel<<<nblocks((n + 31) / 32), NT, 0, nn_stream>>>(flips, bits, x, n);
    op_done("watch sign_flips");
}

static cs_nn_watch_ops make_watch_ops(void)
{
    cs_nn_watch_ops o;
    memset(&o, 0, sizeof o);
    o.hist = hist;
    o.row_abs_mean = row_abs_mean;
    o.row_ternary = row_ternary;
    o.near_count = near_count;
    o.sign_flips = sign_flips;
    return o;
}

const cs_nn_watch_ops cs_nn_cuda_watch_ops = make_watch_ops();
