/* cuda/nn_ops.cu — the CUDA backend of the network code. The same
 * functions, in the same order, as the CPU reference engine/nn/cpu/nn_ops.c
 * (the regularizer's and quantized weights' ops in nn_reg_ops.cu, the
 * watch ops in nn_watch_ops.cu): cuBLAS sgemm for the dense layers,
 * cuDNN for the convolutions and batch norms where one is installed
 * (nn_cudnn.cu, loaded at init; else im2col and sgemm, and own kernels),
 * kernels for the rest. Sums that decide a
 * value are reduced in double.
 * Built only with CUDA=1, as the shared module libcsreg_cuda.so that the
 * engine loads with dlopen (nn_cuda_load.c); the table is used only when
 * device=cuda and cs_nn_cuda_init found a GPU. Every op checks its
 * launches and cuBLAS calls (nn_cuda.cuh, nn_cuda_err.cu); the engine
 * fetches the first error through the table's `error`. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nn_backend.h"
#include "nn_cuda.cuh"
#include "nn_cudnn.h"

static cublasHandle_t g_blas;
static int g_ready, g_device;
static void *g_scratch;   /* copies between overlapping regions; bn's ReLU mask */
static size_t g_scratch_cap;

/* ------------------------------------------------------------------ the device */

__global__ void probe_kernel(int *p)
{
    *p = 42;
}

/* cudaGetLastError also clears the error the runtime keeps */
static int init_fail(cudaError_t e, const char *step, char *why, size_t len)
{
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
        snprintf(why, len, "no NVIDIA driver/GPU found (%s: %s)", step, cudaGetErrorString(e));
    else
        snprintf(why, len, "CUDA device %d: %s failed (%s)", g_device, step,
                 cudaGetErrorString(e));
    cudaGetLastError();
    return -1;
}

/* The device, cuBLAS, and a trivial kernel that must run: a build without
 * code for this GPU (no sm_XX, PTX newer than the driver) fails here, not
 * at the first training step. */
static int init(int device, int sync_ops, char *why, size_t len)
{
    if (g_ready) {
        if (device == g_device)
            return 0;
        snprintf(why, len, "CUDA device %d is in use already (CSREG_CUDA_DEVICE=%d now)",
                 g_device, device);
        return -1;
    }
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess)
        return init_fail(e, "cudaGetDeviceCount", why, len);
    if (n == 0) {
        snprintf(why, len, "no NVIDIA driver/GPU found (0 CUDA devices)");
        return -1;
    }
    if (device < 0 || device >= n) {
        snprintf(why, len, "CSREG_CUDA_DEVICE=%d is out of range: %d CUDA device%s (0..%d)",
                 device, n, n == 1 ? "" : "s", n - 1);
        return -1;
    }
    g_device = device;
    if ((e = cudaSetDevice(device)) != cudaSuccess)
        return init_fail(e, "cudaSetDevice", why, len);
    int *d = NULL, h = 0;
    if ((e = cudaMalloc(&d, sizeof *d)) != cudaSuccess)
        return init_fail(e, "cudaMalloc", why, len);
    probe_kernel<<<1, 1>>>(d);
    e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaFree(d);
    if (e != cudaSuccess || h != 42) {
        cudaDeviceProp p;
        int cc = cudaGetDeviceProperties(&p, device) == cudaSuccess ? p.major * 10 + p.minor : 0;
        int rt = 0, drv = 0;
        cudaRuntimeGetVersion(&rt);
        cudaDriverGetVersion(&drv);
        snprintf(why, len,
                 "CUDA device %d (sm_%d): a test kernel did not run (%s): this build has no "
                 "code for this GPU, or its PTX is newer than the driver (runtime %d.%d, driver "
                 "%d.%d); rebuild with this machine's nvcc",
                 device, cc, e != cudaSuccess ? cudaGetErrorString(e) : "wrong result",
                 rt / 1000, rt % 1000 / 10, drv / 1000, drv % 1000 / 10);
        cudaGetLastError();
        return -1;
    }
    cublasStatus_t s = cublasCreate(&g_blas);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, len, "CUDA device %d: cuBLAS could not be initialized (%s)", device,
                 cublasGetStatusString(s));
        return -1;
    }
    cublasSetMathMode(g_blas, CUBLAS_DEFAULT_MATH);   /* plain fp32, no TF32 */
    cuda_err_reset(sync_ops);
    if (cuda_stream_init(why, len) || cuda_graph_init(sync_ops, cuda_prof_init(), why, len)) {
        cublasDestroy(g_blas);
        cuda_stream_shutdown();
        return -1;
    }
    if ((s = cublasSetStream(g_blas, nn_stream)) != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, len, "CUDA device %d: cublasSetStream failed (%s)", device,
                 cublasGetStatusString(s));
        cublasDestroy(g_blas);
        cuda_graph_shutdown();
        cuda_stream_shutdown();
        return -1;
    }
    cudnn_init();   /* never fails: without cuDNN the built-in kernels run */
    g_ready = 1;
    return 0;
}

/* the GPU, and what runs the convolutions ("NVIDIA H100 80GB HBM3, cuDNN
 * 9.1.0 from /usr/...") */
static void device_name(char *name, size_t len)
{
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, g_device) != cudaSuccess) {
        cudaGetLastError();
        snprintf(name, len, "CUDA device %d, %s", g_device, cudnn_status());
        return;
    }
    snprintf(name, len, "%s, %s", p.name, cudnn_status());
}

/* what init made: the cuBLAS and cuDNN handles, the copy scratch */
static void module_shutdown(void)
{
    if (!g_ready)
        return;
    char name[512];
    device_name(name, sizeof name);
    cuda_prof_report(name);
    cudnn_shutdown();
    cublasDestroy(g_blas);
    cuda_graph_shutdown();
    cuda_stream_shutdown();
    if (g_scratch)
        cudaFree(g_scratch);
    g_scratch = NULL;
    g_scratch_cap = 0;
    g_ready = 0;
}

/* ------------------------------------------------------------------ memory */

static void *alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError();   /* out of memory is answered by NULL, not kept */
        return NULL;
    }
    if (!cuda_ok(cudaMemset(p, 0, bytes ? bytes : 1), "alloc")) {
        cudaFree(p);
        return NULL;
    }
    return p;
}

static void release(void *p)
{
    if (p)
        cuda_ok(cudaFree(p), "release");
}

static int upload(void *dst, const void *src, size_t bytes)
{
    if (bytes && !cuda_ok(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "upload"))
        return -1;
    cuda_prof_op("upload");
    return 0;
}

static int download(void *dst, const void *src, size_t bytes)
{
    if (bytes && !cuda_ok(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "download"))
        return -1;
    cuda_prof_op("download");
    return 0;
}

static void zero(void *p, size_t bytes)
{
    if (bytes)
        cuda_ok(cudaMemsetAsync(p, 0, bytes, nn_stream), "zero");
}

/* as memmove: cudaMemcpy only between regions apart, else through a scratch
 * buffer (kept for the next time, freed at shutdown) */
static void copy(void *dst, const void *src, size_t bytes)
{
    if (!bytes || dst == src)
        return;
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    if (d + bytes <= s || s + bytes <= d) {
        cuda_ok(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, nn_stream), "copy");
        return;
    }
    if (bytes > g_scratch_cap) {
        if (g_scratch)
            cudaFree(g_scratch);
        g_scratch = NULL;
        g_scratch_cap = 0;
        cuda_graph_stale();
        if (!cuda_ok(cudaMalloc(&g_scratch, bytes), "copy (overlapping regions)"))
            return;
        g_scratch_cap = bytes;
    }
    if (cuda_ok(cudaMemcpyAsync(g_scratch, src, bytes, cudaMemcpyDeviceToDevice, nn_stream), "copy"))
        cuda_ok(cudaMemcpyAsync(dst, g_scratch, bytes, cudaMemcpyDeviceToDevice, nn_stream), "copy");
}

/* ------------------------------------------------------------------ dense */

__global__ void bias_add_kernel(float *out, const float *bias, int B, int OC)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i < (size_t)B * OC; i += (size_t)gridDim.x * blockDim.x)
        out[i] += bias[i % OC];
}

__global__ void bias_grad_kernel(float *dbias, const float *dout, int B, int OC)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= OC)
        return;
    float s = 0.0f;
    for (int b = 0; b < B; b++)
        s += dout[(size_t)b * OC + j];
    dbias[j] = s;
}

static void matmul_forward(float *out, const float *inp, const float *w, const float *bias, int B,
                           int C, int OC)
{
    const float one = 1.0f, zero0 = 0.0f;
    blas_ok(cublasSgemm(g_blas, CUBLAS_OP_T, CUBLAS_OP_N, OC, B, C, &one, w, C, inp, C, &zero0,
                        out, OC),
            "matmul_forward");
    if (bias)
        bias_add_kernel<<<nblocks((size_t)B * OC), NT, 0, nn_stream>>>(out, bias, B, OC);
    op_done("matmul_forward");
}

static void matmul_backward(float *dinp, float *dw, float *dbias, const float *dout,
                            const float *inp, const float *w, int B, int C, int OC)
{
    const float one = 1.0f, zero0 = 0.0f;
    if (dinp)
        blas_ok(cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, C, B, OC, &one, w, C, dout, OC,
                            &zero0, dinp, C),
                "matmul_backward");
    blas_ok(cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_T, C, OC, B, &one, inp, C, dout, OC,
                        &zero0, dw, C),
            "matmul_backward");
    if (dbias)
        bias_grad_kernel<<<(OC + NT - 1) / NT, NT, 0, nn_stream>>>(dbias, dout, B, OC);
    op_done("matmul_backward");
}

/* out = max(out + bias, 0): bias_add_kernel then relu_forward_kernel in one pass */
__global__ void bias_relu_kernel(float *out, const float *bias, int B, int OC)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i < (size_t)B * OC; i += (size_t)gridDim.x * blockDim.x) {
        float y = bias ? out[i] + bias[i % OC] : out[i];
        out[i] = y > 0.0f ? y : 0.0f;
    }
}

/* column j: dmask = dout where out > 0 (relu_backward_kernel's test) and
 * dbias[j] = Σ_b dmask in bias_grad_kernel's order */
__global__ void relu_mask_bias_grad_kernel(float *dmask, float *dbias, const float *dout,
                                           const float *out, int B, int OC)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= OC)
        return;
    float s = 0.0f;
    for (int b = 0; b < B; b++) {
        size_t k = (size_t)b * OC + j;
        float d = out[k] > 0.0f ? dout[k] : 0.0f;
        dmask[k] = d;
        s += d;
    }
    if (dbias)
        dbias[j] = s;
}

static void matmul_relu_forward(float *out, const float *inp, const float *w, const float *bias,
                                int B, int C, int OC)
{
    const float one = 1.0f, zero0 = 0.0f;
    blas_ok(cublasSgemm(g_blas, CUBLAS_OP_T, CUBLAS_OP_N, OC, B, C, &one, w, C, inp, C, &zero0,
                        out, OC),
            "matmul_relu_forward");
    bias_relu_kernel<<<nblocks((size_t)B * OC), NT, 0, nn_stream>>>(out, bias, B, OC);
    op_done("matmul_relu_forward");
}

static void matmul_relu_backward(float *dinp, float *dw, float *dbias, float *dmask,
                                 const float *dout, const float *out, const float *inp,
                                 const float *w, int B, int C, int OC)
{
    relu_mask_bias_grad_kernel<<<(OC + NT - 1) / NT, NT, 0, nn_stream>>>(dmask, dbias, dout, out, B, OC);
    matmul_backward(dinp, dw, NULL, dmask, inp, w, B, C, OC);
}

/* ------------------------------------------------------------------ convolution */

__global__ void im2col_kernel(float *col, const float *inp, int C, int H, int W)
{
    size_t HW = (size_t)H * W, n = (size_t)C * 9 * HW;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t r = i / HW, p = i % HW;
        int c = (int)(r / 9), k = (int)(r % 9), ky = k / 3, kx = k % 3;
        int y = (int)(p / W) + ky - 1, x = (int)(p % W) + kx - 1;
        col[i] = (y >= 0 && y < H && x >= 0 && x < W) ? inp[(size_t)c * HW + (size_t)y * W + x]
                                                      : 0.0f;
    }
}

/* dinp = col2im(col): gather, no atomics */
__global__ void col2im_kernel(float *dinp, const float *col, int C, int H, int W)
{
    size_t HW = (size_t)H * W, n = (size_t)C * HW;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int c = (int)(i / HW), y = (int)((i % HW) / W), x = (int)(i % W);
        float s = 0.0f;
        for (int ky = 0; ky < 3; ky++) {
            int oy = y - ky + 1;
            if (oy < 0 || oy >= H)
                continue;
            for (int kx = 0; kx < 3; kx++) {
                int ox = x - kx + 1;
                if (ox < 0 || ox >= W)
                    continue;
                s += col[((size_t)c * 9 + ky * 3 + kx) * HW + (size_t)oy * W + ox];
            }
        }
        dinp[i] = s;
    }
}

static void conv_forward(float *out, const float *inp, const float *w, float *scratch, int B,
                         int C, int H, int W, int OC)
{
    if (cudnn_conv_forward(out, inp, w, B, C, H, W, OC, 3, 1, "conv_forward")) {
        op_done("conv_forward");
        return;
    }
    const float one = 1.0f, zero0 = 0.0f;
    int HW = H * W, K = C * 9;
    for (int b = 0; b < B; b++) {
        im2col_kernel<<<nblocks((size_t)K * HW), NT, 0, nn_stream>>>(scratch, inp + (size_t)b * C * HW, C, H, W);
        if (!blas_ok(cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, HW, OC, K, &one, scratch, HW,
                                 w, K, &zero0, out + (size_t)b * OC * HW, HW),
                     "conv_forward"))
            break;
    }
    op_done("conv_forward");
}

static void conv_backward(float *dinp, float *dw, const float *dout, const float *inp,
                          const float *w, float *scratch, int B, int C, int H, int W, int OC)
{
    if (cudnn_conv_backward(dinp, dw, dout, inp, w, B, C, H, W, OC, 3, 1, "conv_backward")) {
        op_done("conv_backward");
        return;
    }
    const float one = 1.0f, zero0 = 0.0f;
    int HW = H * W, K = C * 9;
    if (!cuda_ok(cudaMemsetAsync(dw, 0, (size_t)OC * K * sizeof(float), nn_stream), "conv_backward"))
        return;
    for (int b = 0; b < B; b++) {
        const float *db = dout + (size_t)b * OC * HW;
        im2col_kernel<<<nblocks((size_t)K * HW), NT, 0, nn_stream>>>(scratch, inp + (size_t)b * C * HW, C, H, W);
        if (!blas_ok(cublasSgemm(g_blas, CUBLAS_OP_T, CUBLAS_OP_N, K, OC, HW, &one, scratch, HW,
                                 db, HW, &one, dw, K),
                     "conv_backward"))
            break;
        if (dinp) {
            if (!blas_ok(cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_T, HW, K, OC, &one, db, HW, w,
                                     K, &zero0, scratch, HW),
                         "conv_backward"))
                break;
            col2im_kernel<<<nblocks((size_t)C * HW), NT, 0, nn_stream>>>(dinp + (size_t)b * C * HW, scratch, C,
                                                           H, W);
        }
    }
    op_done("conv_backward");
}

/* ------------------------------------------------------------------ convolution, any size */

/* k×k (k odd, padding k/2), stride s: the same scheme as above with an
 * OH × OW output (k = 3, stride 1 is conv_forward/conv_backward) */
__global__ void im2col_k_kernel(float *col, const float *inp, int C, int H, int W, int k, int s,
                                int OH, int OW)
{
    size_t OHW = (size_t)OH * OW, n = (size_t)C * k * k * OHW;
    int p = k / 2;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t r = i / OHW, o = i % OHW;
        int c = (int)(r / (k * k)), q = (int)(r % (k * k)), ky = q / k, kx = q % k;
        int y = (int)(o / OW) * s + ky - p, x = (int)(o % OW) * s + kx - p;
        col[i] = (y >= 0 && y < H && x >= 0 && x < W) ? inp[(size_t)c * H * W + (size_t)y * W + x]
                                                      : 0.0f;
    }
}

/* dinp = col2im(col): each input pixel gathers the entries that read it */
__global__ void col2im_k_kernel(float *dinp, const float *col, int C, int H, int W, int k, int s,
                                int OH, int OW)
{
    size_t HW = (size_t)H * W, OHW = (size_t)OH * OW, n = (size_t)C * HW;
    int p = k / 2;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int c = (int)(i / HW), y = (int)((i % HW) / W), x = (int)(i % W);
        float sum = 0.0f;
        for (int ky = 0; ky < k; ky++) {
            int ty = y - ky + p;
            if (ty < 0 || ty % s || ty / s >= OH)
                continue;
            for (int kx = 0; kx < k; kx++) {
                int tx = x - kx + p;
                if (tx < 0 || tx % s || tx / s >= OW)
                    continue;
                sum += col[((size_t)(c * k + ky) * k + kx) * OHW + (size_t)(ty / s) * OW + tx / s];
            }
        }
        dinp[i] = sum;
    }
}

static void convk_forward(float *out, const float *inp, const float *w, float *scratch, int B,
                          int C, int H, int W, int OC, int k, int stride)
{
    if (k == 3 && stride == 1) {
        conv_forward(out, inp, w, scratch, B, C, H, W, OC);
        return;
    }
    if (cudnn_conv_forward(out, inp, w, B, C, H, W, OC, k, stride, "convk_forward")) {
        op_done("convk_forward");
        return;
    }
    const float one = 1.0f, zero0 = 0.0f;
    int OH = (H - 1) / stride + 1, OW = (W - 1) / stride + 1, OHW = OH * OW, K = C * k * k;
    for (int b = 0; b < B; b++) {
        im2col_k_kernel<<<nblocks((size_t)K * OHW), NT, 0, nn_stream>>>(scratch, inp + (size_t)b * C * H * W,
                                                          C, H, W, k, stride, OH, OW);
        if (!blas_ok(cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, OHW, OC, K, &one, scratch, OHW,
                                 w, K, &zero0, out + (size_t)b * OC * OHW, OHW),
                     "convk_forward"))
            break;
    }
    op_done("convk_forward");
}

static void convk_backward(float *dinp, float *dw, const float *dout, const float *inp,
                           const float *w, float *scratch, int B, int C, int H, int W, int OC,
                           int k, int stride)
{
    if (k == 3 && stride == 1) {
        conv_backward(dinp, dw, dout, inp, w, scratch, B, C, H, W, OC);
        return;
    }
    if (cudnn_conv_backward(dinp, dw, dout, inp, w, B, C, H, W, OC, k, stride,
                            "convk_backward")) {
        op_done("convk_backward");
        return;
    }
    const float one = 1.0f, zero0 = 0.0f;
    int OH = (H - 1) / stride + 1, OW = (W - 1) / stride + 1, OHW = OH * OW, K = C * k * k;
    if (!cuda_ok(cudaMemsetAsync(dw, 0, (size_t)OC * K * sizeof(float), nn_stream), "convk_backward"))
        return;
    for (int b = 0; b < B; b++) {
        const float *db = dout + (size_t)b * OC * OHW;
        im2col_k_kernel<<<nblocks((size_t)K * OHW), NT, 0, nn_stream>>>(scratch, inp + (size_t)b * C * H * W,
                                                          C, H, W, k, stride, OH, OW);
        if (!blas_ok(cublasSgemm(g_blas, CUBLAS_OP_T, CUBLAS_OP_N, K, OC, OHW, &one, scratch, OHW,
                                 db, OHW, &one, dw, K),
                     "convk_backward"))
            break;
        if (dinp) {
            if (!blas_ok(cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_T, OHW, K, OC, &one, db, OHW,
                                     w, K, &zero0, scratch, OHW),
                         "convk_backward"))
                break;
            col2im_k_kernel<<<nblocks((size_t)C * H * W), NT, 0, nn_stream>>>(dinp + (size_t)b * C * H * W,
                                                                scratch, C, H, W, k, stride, OH,
                                                                OW);
        }
    }
    op_done("convk_backward");
}

/* ------------------------------------------------------------------ batch norm */

/* Through cuDNN where nn_cudnn.cu has it (CUDNN_BATCHNORM_SPATIAL: the
 * statistics over the whole GPU), else the kernels below (one block per
 * channel). A ReLU after it stays an element-wise pass of ours: forward,
 * cuDNN's batch norm into out then the ReLU in place; backward, the ReLU's
 * mask of dout into a scratch then cuDNN's backward from it. Without dinp
 * the kernels run (cuDNN's backward always writes dx). */

#define BN_EPS 1e-5
#define BN_MOMENTUM 0.1

/* y = max(y, 0) in place */
__global__ void bn_relu_inplace_kernel(float *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = y[i] > 0.0f ? y[i] : 0.0f;
}

/* dst = dout where the ReLU's output was positive, else 0 */
__global__ void bn_relu_mask_kernel(float *dst, const float *dout, const float *relu_out,
                                    size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = relu_out[i] > 0.0f ? dout[i] : 0.0f;
}

/* the module's scratch (copy's) of at least bytes, kept; NULL: none */
static float *bn_scratch(size_t bytes)
{
    if (bytes > g_scratch_cap) {
        if (g_scratch)
            cudaFree(g_scratch);
        g_scratch = NULL;
        g_scratch_cap = 0;
        cuda_graph_stale();
        if (cudaMalloc(&g_scratch, bytes) != cudaSuccess) {
            cudaGetLastError();   /* not kept: the kernels run instead */
            g_scratch = NULL;
            return NULL;
        }
        g_scratch_cap = bytes;
    }
    return (float *)g_scratch;
}

/* one block per channel */
__global__ void bn_stats_kernel(const float *inp, float *mean, float *rstd, float *run_mean,
                                float *run_var, int B, int C, int HW)
{
    __shared__ double sh[NT];
    int c = blockIdx.x;
    size_t n = (size_t)B * HW;
    double s = 0;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
        s += inp[((i / HW) * C + c) * HW + i % HW];
    double m = block_sum(s, sh) / (double)n;
    double s2 = 0;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
        double d = inp[((i / HW) * C + c) * HW + i % HW] - m;
        s2 += d * d;
    }
    double var = block_sum(s2, sh) / (double)n;
    if (threadIdx.x == 0) {
        mean[c] = (float)m;
        rstd[c] = (float)(1.0 / sqrt(var + BN_EPS));
        run_mean[c] = (float)((1 - BN_MOMENTUM) * run_mean[c] + BN_MOMENTUM * m);
        run_var[c] = (float)((1 - BN_MOMENTUM) * run_var[c] +
                             BN_MOMENTUM * (n > 1 ? var * (double)n / (double)(n - 1) : var));
    }
}

__global__ void bn_norm_kernel(float *out, const float *inp, const float *gamma,
                               const float *beta, const float *mean, const float *rstd,
                               const float *run_mean, const float *run_var, int B, int C,
                               int HW, int train, int relu)
{
    size_t n = (size_t)B * C * HW;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int c = (int)((i / HW) % C);
        float mu = train ? mean[c] : run_mean[c];
        float rs = train ? rstd[c] : (float)(1.0 / sqrt((double)run_var[c] + BN_EPS));
        float g = gamma[c] * rs, sh = beta[c] - mu * g;
        float y = inp[i] * g + sh;
        out[i] = relu ? (y > 0.0f ? y : 0.0f) : y;
    }
}

static void bn_forward_relu(float *out, const float *inp, const float *gamma,
                            const float *beta, float *mean, float *rstd, float *run_mean,
                            float *run_var, int B, int C, int HW, int train, int relu)
{
    const char *op = relu ? "bn_relu_forward" : "bn_forward";
    if (cudnn_bn_forward(out, inp, gamma, beta, mean, rstd, run_mean, run_var, B, C, HW, train,
                         op)) {
        if (relu)
            bn_relu_inplace_kernel<<<nblocks((size_t)B * C * HW), NT, 0, nn_stream>>>(out, (size_t)B * C * HW);
        op_done(op);
        return;
    }
    if (train)
        bn_stats_kernel<<<C, NT, 0, nn_stream>>>(inp, mean, rstd, run_mean, run_var, B, C, HW);
    bn_norm_kernel<<<nblocks((size_t)B * C * HW), NT, 0, nn_stream>>>(out, inp, gamma, beta, mean, rstd,
                                                        run_mean, run_var, B, C, HW, train,
                                                        relu);
    op_done(op);
}

static void bn_forward(float *out, const float *inp, const float *gamma, const float *beta,
                       float *mean, float *rstd, float *run_mean, float *run_var, int B, int C,
                       int HW, int train)
{
    bn_forward_relu(out, inp, gamma, beta, mean, rstd, run_mean, run_var, B, C, HW, train, 0);
}

static void bn_relu_forward(float *out, const float *inp, const float *gamma, const float *beta,
                            float *mean, float *rstd, float *run_mean, float *run_var, int B,
                            int C, int HW, int train)
{
    bn_forward_relu(out, inp, gamma, beta, mean, rstd, run_mean, run_var, B, C, HW, train, 1);
}

/* dout[k], or 0 where a ReLU after the batch norm (its output relu_out) was not positive */
__device__ static inline float masked(const float *dout, const float *relu_out, size_t k)
{
    return !relu_out || relu_out[k] > 0.0f ? dout[k] : 0.0f;
}

/* One block per channel: the sums Σ dout and Σ dout·x̂ in double, then dx
 * with them, in the same block (no buffer between two kernels). */
__global__ void bn_backward_kernel(float *dinp, float *dgamma, float *dbeta, const float *dout,
                                   const float *relu_out, const float *inp, const float *gamma,
                                   const float *mean, const float *rstd, int B, int C, int HW)
{
    __shared__ double sh[NT];
    int c = blockIdx.x;
    size_t n = (size_t)B * HW;
    float mu = mean[c], rs = rstd[c];
    double sd = 0, sdx = 0;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
        size_t k = ((i / HW) * C + c) * HW + i % HW;
        float d = masked(dout, relu_out, k);
        sd += d;
        sdx += (double)d * ((inp[k] - mu) * rs);
    }
    sd = block_sum(sd, sh);
    sdx = block_sum(sdx, sh);
    if (threadIdx.x == 0) {
        dgamma[c] = (float)sdx;
        dbeta[c] = (float)sd;
    }
    if (!dinp)
        return;
    float m0 = (float)(sd / (double)n), m1 = (float)(sdx / (double)n), g = gamma[c] * rs;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
        size_t k = ((i / HW) * C + c) * HW + i % HW;
        dinp[k] = g * (masked(dout, relu_out, k) - m0 - (inp[k] - mu) * rs * m1);
    }
}

static void bn_backward(float *dinp, float *dgamma, float *dbeta, const float *dout,
                        const float *inp, const float *gamma, const float *mean,
                        const float *rstd, int B, int C, int HW)
{
    if (cudnn_bn_backward(dinp, dgamma, dbeta, dout, inp, gamma, mean, rstd, B, C, HW,
                          "bn_backward")) {
        op_done("bn_backward");
        return;
    }
    const float *no_relu = NULL;
    bn_backward_kernel<<<C, NT, 0, nn_stream>>>(dinp, dgamma, dbeta, dout, no_relu, inp, gamma, mean, rstd, B,
                                  C, HW);
    op_done("bn_backward");
}

static void bn_relu_backward(float *dinp, float *dgamma, float *dbeta, const float *dout,
                             const float *out, const float *inp, const float *gamma,
                             const float *beta, const float *mean, const float *rstd, int B,
                             int C, int HW)
{
    (void)beta;
    size_t n = (size_t)B * C * HW;
    float *dm = dinp ? bn_scratch(n * sizeof(float)) : NULL;
    if (dm) {
        bn_relu_mask_kernel<<<nblocks(n), NT, 0, nn_stream>>>(dm, dout, out, n);
        if (cudnn_bn_backward(dinp, dgamma, dbeta, dm, inp, gamma, mean, rstd, B, C, HW,
                              "bn_relu_backward")) {
            op_done("bn_relu_backward");
            return;
        }
    }
    bn_backward_kernel<<<C, NT, 0, nn_stream>>>(dinp, dgamma, dbeta, dout, out, inp, gamma, mean, rstd, B, C,
                                  HW);
    op_done("bn_relu_backward");
}

/* out = max(out + shortcut(sc), 0) in place: residual_forward_kernel's
 * sum (the identity, or option A), then the ReLU: the same float ops */
__global__ void bn_add_relu_kernel(float *out, const float *sc, int B, int C, int H, int W,
                                   int SC, int SH, int SW)
{
    size_t HW = (size_t)H * W, n = (size_t)B * C * HW;
    int same = SC == C && SH == H && SW == W, cp = (C - SC) / 2, sy = SH / H, sx = SW / W;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float y = out[i];
        if (same) {
            y = y + sc[i];
        } else {
            size_t b = i / ((size_t)C * HW);
            int c = (int)((i / HW) % C), yy = (int)((i % HW) / W), x = (int)(i % W), q = c - cp;
            if (q >= 0 && q < SC)
                y = y + sc[((b * SC + q) * SH + (size_t)yy * sy) * SW + (size_t)x * sx];
        }
        out[i] = y > 0.0f ? y : 0.0f;
    }
}

/* dres = dout (+ dadd) where out > 0, else 0; dres may be dout or dadd */
__global__ void bn_add_relu_mask_kernel(float *dres, const float *dout, const float *dadd,
                                        const float *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float d = dadd ? dout[i] + dadd[i] : dout[i];
        dres[i] = out[i] > 0.0f ? d : 0.0f;
    }
}

/* the batch norm (cuDNN's, or the kernels') into out, then the residual
 * add and ReLU in place */
static void bn_add_relu_forward(float *out, const float *inp, const float *sc,
                                const float *gamma, const float *beta, float *mean, float *rstd,
                                float *run_mean, float *run_var, int B, int C, int H, int W,
                                int SC, int SH, int SW, int train)
{
    int HW = H * W;
    if (!cudnn_bn_forward(out, inp, gamma, beta, mean, rstd, run_mean, run_var, B, C, HW, train,
                          "bn_add_relu_forward")) {
        if (train)
            bn_stats_kernel<<<C, NT, 0, nn_stream>>>(inp, mean, rstd, run_mean, run_var, B, C, HW);
        bn_norm_kernel<<<nblocks((size_t)B * C * HW), NT, 0, nn_stream>>>(out, inp, gamma, beta, mean, rstd,
                                                            run_mean, run_var, B, C, HW, train,
                                                            0);
    }
    bn_add_relu_kernel<<<nblocks((size_t)B * C * HW), NT, 0, nn_stream>>>(out, sc, B, C, H, W, SC, SH, SW);
    op_done("bn_add_relu_forward");
}

/* the ReLU's mask of dout (+ dadd) into dres, then the batch norm's
 * backward from it (cuDNN's, or the kernel) */
static void bn_add_relu_backward(float *dinp, float *dgamma, float *dbeta, float *dres,
                                 const float *dout, const float *dadd, const float *out,
                                 const float *inp, const float *gamma, const float *mean,
                                 const float *rstd, int B, int C, int HW)
{
    size_t n = (size_t)B * C * HW;
    bn_add_relu_mask_kernel<<<nblocks(n), NT, 0, nn_stream>>>(dres, dout, dadd, out, n);
    if (!cudnn_bn_backward(dinp, dgamma, dbeta, dres, inp, gamma, mean, rstd, B, C, HW,
                           "bn_add_relu_backward")) {
        const float *no_relu = NULL;
        bn_backward_kernel<<<C, NT, 0, nn_stream>>>(dinp, dgamma, dbeta, dres, no_relu, inp, gamma, mean, rstd,
                                      B, C, HW);
    }
    op_done("bn_add_relu_backward");
}

/* ------------------------------------------------------------------ activations, pooling */

__global__ void relu_forward_kernel(float *out, const float *inp, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}

__global__ void relu_backward_kernel(float *dinp, const float *dout, const float *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dinp[i] = out[i] > 0.0f ? dout[i] : 0.0f;
}

static void relu_forward(float *out, const float *inp, size_t n)
{
    relu_forward_kernel<<<nblocks(n), NT, 0, nn_stream>>>(out, inp, n);
    op_done("relu_forward");
}

static void relu_backward(float *dinp, const float *dout, const float *out, size_t n)
{
    relu_backward_kernel<<<nblocks(n), NT, 0, nn_stream>>>(dinp, dout, out, n);
    op_done("relu_backward");
}

__global__ void maxpool_forward_kernel(float *out, int32_t *idx, const float *inp, int BC, int H,
                                       int W)
{
    int OH = H / 2, OW = W / 2;
    size_t n = (size_t)BC * OH * OW;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t bc = i / ((size_t)OH * OW);
        int o = (int)(i % ((size_t)OH * OW)), oy = o / OW, ox = o % OW;
        const float *p = inp + bc * H * W + (size_t)(2 * oy) * W + 2 * ox;
        float v[4] = {p[0], p[1], p[W], p[W + 1]};
        int k = 0;
        for (int j = 1; j < 4; j++)
            if (v[j] > v[k])
                k = j;
        out[i] = v[k];
        idx[i] = k;
    }
}

/* gather: each input pixel looks at its window's argmax (an odd side's
 * last row or column is in no window: 0) */
__global__ void maxpool_backward_kernel(float *dinp, const float *dout, const int32_t *idx, int BC,
                                        int H, int W)
{
    int OH = H / 2, OW = W / 2;
    size_t n = (size_t)BC * H * W;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t bc = i / ((size_t)H * W);
        int p = (int)(i % ((size_t)H * W)), y = p / W, x = p % W;
        if (y / 2 >= OH || x / 2 >= OW) {
            dinp[i] = 0.0f;
            continue;
        }
        size_t o = bc * OH * OW + (size_t)(y / 2) * OW + x / 2;
        dinp[i] = idx[o] == ((y & 1) << 1 | (x & 1)) ? dout[o] : 0.0f;
    }
}

static void maxpool_forward(float *out, int32_t *idx, const float *inp, int B, int C, int H,
                            int W)
{
    maxpool_forward_kernel<<<nblocks((size_t)B * C * (H / 2) * (W / 2)), NT, 0, nn_stream>>>(out, idx, inp,
                                                                              B * C, H, W);
    op_done("maxpool_forward");
}

static void maxpool_backward(float *dinp, const float *dout, const int32_t *idx, int B, int C,
                             int H, int W)
{
    maxpool_backward_kernel<<<nblocks((size_t)B * C * H * W), NT, 0, nn_stream>>>(dinp, dout, idx, B * C, H, W);
    op_done("maxpool_backward");
}

/* ------------------------------------------------------------------ residual, average pooling */

/* out = inp + shortcut(sc): the identity, or option A (every st-th pixel,
 * the channels placed from cp = (C − SC)/2; inp alone outside them) */
__global__ void residual_forward_kernel(float *out, const float *inp, const float *sc, int B,
                                        int C, int H, int W, int SC, int SH, int SW)
{
    size_t HW = (size_t)H * W, n = (size_t)B * C * HW;
    int same = SC == C && SH == H && SW == W, cp = (C - SC) / 2, sy = SH / H, sx = SW / W;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (same) {
            out[i] = inp[i] + sc[i];
            continue;
        }
        size_t b = i / ((size_t)C * HW);
        int c = (int)((i / HW) % C), y = (int)((i % HW) / W), x = (int)(i % W), q = c - cp;
        out[i] = q >= 0 && q < SC
                     ? inp[i] + sc[((b * SC + q) * SH + (size_t)y * sy) * SW + (size_t)x * sx]
                     : inp[i];
    }
}

/* dsc = shortcutᵀ(dout): one thread per element of dsc */
__global__ void residual_backward_kernel(float *dsc, const float *dout, int B, int C, int H,
                                         int W, int SC, int SH, int SW)
{
    size_t SHW = (size_t)SH * SW, n = (size_t)B * SC * SHW;
    int same = SC == C && SH == H && SW == W, cp = (C - SC) / 2, sy = SH / H, sx = SW / W;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (same) {
            dsc[i] = dout[i];
            continue;
        }
        size_t b = i / ((size_t)SC * SHW);
        int q = (int)((i / SHW) % SC), y = (int)((i % SHW) / SW), x = (int)(i % SW);
        int taken = y % sy == 0 && x % sx == 0 && y / sy < H && x / sx < W;
        dsc[i] = taken ? dout[((b * C + q + cp) * H + (size_t)(y / sy)) * W + x / sx] : 0.0f;
    }
}

static void residual_forward(float *out, const float *inp, const float *sc, int B, int C, int H,
                             int W, int SC, int SH, int SW)
{
    residual_forward_kernel<<<nblocks((size_t)B * C * H * W), NT, 0, nn_stream>>>(out, inp, sc, B, C, H, W, SC,
                                                                    SH, SW);
    op_done("residual_forward");
}

static void residual_backward(float *dsc, const float *dout, int B, int C, int H, int W, int SC,
                              int SH, int SW)
{
    residual_backward_kernel<<<nblocks((size_t)B * SC * SH * SW), NT, 0, nn_stream>>>(dsc, dout, B, C, H, W,
                                                                        SC, SH, SW);
    op_done("residual_backward");
}

/* one thread per (image, channel): the mean in double, in pixel order (as
 * on the CPU) */
__global__ void avgpool_forward_kernel(float *out, const float *inp, int BC, int HW)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= BC)
        return;
    const float *x = inp + (size_t)i * HW;
    double s = 0;
    for (int k = 0; k < HW; k++)
        s += x[k];
    out[i] = (float)(s / HW);
}

__global__ void avgpool_backward_kernel(float *dinp, const float *dout, int BC, int HW)
{
    size_t n = (size_t)BC * HW;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dinp[i] = dout[i / HW] / (float)HW;
}

static void avgpool_forward(float *out, const float *inp, int B, int C, int HW)
{
    avgpool_forward_kernel<<<(B * C + NT - 1) / NT, NT, 0, nn_stream>>>(out, inp, B * C, HW);
    op_done("avgpool_forward");
}

static void avgpool_backward(float *dinp, const float *dout, int B, int C, int HW)
{
    avgpool_backward_kernel<<<nblocks((size_t)B * C * HW), NT, 0, nn_stream>>>(dinp, dout, B * C, HW);
    op_done("avgpool_backward");
}

/* ------------------------------------------------------------------ loss */

__global__ void softmax_ce_forward_kernel(float *probs, float *losses, const float *logits,
                                          const int32_t *labels, int B, int K)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= B)
        return;
    const float *z = logits + (size_t)b * K;
    float *p = probs + (size_t)b * K;
    float mx = z[0];
    for (int k = 1; k < K; k++)
        if (z[k] > mx)
            mx = z[k];
    double s = 0;
    for (int k = 0; k < K; k++)
        s += exp((double)z[k] - mx);
    for (int k = 0; k < K; k++)
        p[k] = (float)(exp((double)z[k] - mx) / s);
    losses[b] = (float)(log(s) + mx - z[labels[b]]);
}

__global__ void softmax_ce_backward_kernel(float *dlogits, const float *probs,
                                           const int32_t *labels, int B, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * K)
        return;
    int b = i / K, k = i % K;
    dlogits[i] = (probs[i] - (k == labels[b] ? 1.0f : 0.0f)) * (1.0f / (float)B);
}

static void softmax_ce_forward(float *probs, float *losses, const float *logits,
                               const int32_t *labels, int B, int K)
{
    softmax_ce_forward_kernel<<<(B + NT - 1) / NT, NT, 0, nn_stream>>>(probs, losses, logits, labels, B, K);
    op_done("softmax_ce_forward");
}

static void softmax_ce_backward(float *dlogits, const float *probs, const int32_t *labels, int B,
                                int K)
{
    softmax_ce_backward_kernel<<<(B * K + NT - 1) / NT, NT, 0, nn_stream>>>(dlogits, probs, labels, B, K);
    op_done("softmax_ce_backward");
}

/* ------------------------------------------------------------------ optimizer */

#define ADAM_TINY 1e-30f

__device__ static inline void adam_one(float *p, const float *g, float *m, float *v, size_t i,
                                       float lr, float beta1, float beta2, float eps, float c1,
                                       float c2)
{
    float mi = __fadd_rn(__fmul_rn(beta1, m[i]), __fmul_rn(1.0f - beta1, g[i]));
    float vi = __fadd_rn(__fmul_rn(beta2, v[i]), __fmul_rn(1.0f - beta2, __fmul_rn(g[i], g[i])));
    mi = fabsf(mi) < ADAM_TINY ? 0.0f : mi;
    vi = vi < ADAM_TINY ? 0.0f : vi;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i] - __fdiv_rn(__fmul_rn(lr, __fdiv_rn(mi, c1)),
                            __fadd_rn(__fsqrt_rn(__fdiv_rn(vi, c2)), eps));
}

__global__ void adam_kernel(float *p, const float *g, float *m, float *v, size_t n, float lr,
                            float beta1, float beta2, float eps, float c1, float c2)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        adam_one(p, g, m, v, i, lr, beta1, beta2, eps, c1, c2);
}

/* in a step's graph: lr, c1, c2 from sc[0..3), written before each launch */
__global__ void adam_graph_kernel(float *p, const float *g, float *m, float *v, size_t n,
                                  float beta1, float beta2, float eps, const float *sc)
{
    float lr = sc[0], c1 = sc[1], c2 = sc[2];
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        adam_one(p, g, m, v, i, lr, beta1, beta2, eps, c1, c2);
}

static void adam_update(float *p, const float *g, float *m, float *v, size_t n, float lr,
                        float beta1, float beta2, float eps, int t)
{
    const float *sc = cuda_graph_adam(beta1, beta2);
    if (sc)
        adam_graph_kernel<<<nblocks(n), NT, 0, nn_stream>>>(p, g, m, v, n, beta1, beta2, eps,
                                                             sc);
    else
        adam_kernel<<<nblocks(n), NT, 0, nn_stream>>>(p, g, m, v, n, lr, beta1, beta2, eps,
                                                       adam_corr(beta1, t), adam_corr(beta2, t));
    op_done("adam_update");
}

/* ------------------------------------------------------------------ vectors */

__global__ void axpy_kernel(float *y, const float *x, float a, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] += a * x[i];
}

static void axpy(float *y, const float *x, float a, size_t n)
{
    axpy_kernel<<<nblocks(n), NT, 0, nn_stream>>>(y, x, a, n);
    op_done("axpy");
}

/* named so as not to shadow unistd.h's sync(2) */
static void device_sync(void)
{
    cuda_ok(cudaDeviceSynchronize(), "sync");
}

static cs_nn_ops make_ops(void)
{
    cs_nn_ops o;
    memset(&o, 0, sizeof o);
    o.name = "cuda";
    o.alloc = alloc;
    o.release = release;
    o.upload = upload;
    o.download = download;
    o.zero = zero;
    o.copy = copy;
    o.matmul_forward = matmul_forward;
    o.matmul_backward = matmul_backward;
    o.conv_forward = conv_forward;
    o.conv_backward = conv_backward;
    o.bn_forward = bn_forward;
    o.bn_backward = bn_backward;
    o.bn_relu_forward = bn_relu_forward;
    o.bn_relu_backward = bn_relu_backward;
    o.bn_add_relu_forward = bn_add_relu_forward;
    o.bn_add_relu_backward = bn_add_relu_backward;
    o.relu_forward = relu_forward;
    o.relu_backward = relu_backward;
    o.maxpool_forward = maxpool_forward;
    o.maxpool_backward = maxpool_backward;
    o.softmax_ce_forward = softmax_ce_forward;
    o.softmax_ce_backward = softmax_ce_backward;
    o.adam_update = adam_update;
    o.reg = &cs_nn_cuda_reg_ops;
    o.axpy = axpy;
    o.watch = &cs_nn_cuda_watch_ops;
    o.sync = device_sync;
    o.error = cuda_take_error;
    o.convk_forward = convk_forward;
    o.convk_backward = convk_backward;
    o.residual_forward = residual_forward;
    o.residual_backward = residual_backward;
    o.avgpool_forward = avgpool_forward;
    o.avgpool_backward = avgpool_backward;
    o.matmul_relu_forward = matmul_relu_forward;
    o.matmul_relu_backward = matmul_relu_backward;
    cuda_graph_ops(&o);
    return o;
}

static const cs_nn_ops g_ops = make_ops();

static cs_nn_cuda_module make_module(void)
{
    cs_nn_cuda_module m;
    memset(&m, 0, sizeof m);
    m.abi = CS_NN_CUDA_ABI;
    m.ops_size = sizeof(cs_nn_ops);
    m.init = init;
    m.name = device_name;
    m.shutdown = module_shutdown;
    m.ops = &g_ops;
    return m;
}

static const cs_nn_cuda_module g_module = make_module();

/* the module's one export (built with -fvisibility=hidden) */
extern "C" __attribute__((visibility("default"))) const cs_nn_cuda_module *
cs_nn_cuda_module_get(void)
{
    return &g_module;
}
