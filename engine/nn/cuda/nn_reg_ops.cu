/* cuda/nn_reg_ops.cu — the CUDA backend's ops of the regularizer term and
 * of quantized weights (nn_pass.c, nn_quant.c, nn_train.c): the same
 * functions, in the same order, as the CPU reference
 * engine/nn/cpu/nn_reg_ops.c. One block per row for the per-row sums (in
 * double), one thread per weight otherwise. */
#include <cuda_runtime.h>
#include <math.h>
#include <string.h>

#include "nn_backend.h"
#include "nn_cuda.cuh"

/* ------------------------------------------------------------------ regularizers */

/* one block per row: the sums in double, then the gradient elementwise */
__global__ void reg_rows_kernel(float *dw, double *val, const float *w, int cols, int kind,
                                float scale)
{
    __shared__ double sh[NT];
    const float *x = w + (size_t)blockIdx.x * cols;
    float *g = dw + (size_t)blockIdx.x * cols;
    int poly = cs_reg_kernel_class(kind) == CS_KC_POLY;
    int holder = cs_reg_kernel_class(kind) == CS_KC_HOLDER;
    double N = cols, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s6 = 0;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) {
        double a = x[i], a2 = a * a;
        if (poly) {
            s2 += a2;
            s3 += a2 * a;
            s4 += a2 * a2;
            s6 += a2 * a2 * a2;
        } else {   /* FLAT, HOLDER: g of the kernel (cs_reg_kernel.h) */
            double u = cs_reg_kernel_g(kind, a);
            s1 += u;
            s2 += u * u;
        }
    }
    s1 = block_sum(s1, sh);
    s2 = block_sum(s2, sh);
    s3 = block_sum(s3, sh);
    s4 = block_sum(s4, sh);
    s6 = block_sum(s6, sh);
    double v;
    switch (kind) {
    case CS_REG_KERNEL_BIN: v = N * s4 - s2 * s2; break;
    case CS_REG_KERNEL_OSB: v = s2 * s4 - s3 * s3; break;
    case CS_REG_KERNEL_TER: v = s2 * s6 - s4 * s4; break;
    default: v = holder ? sqrt(N) * sqrt(s2) - s1 : N * s2 - s1 * s1; break;
    }
    if (threadIdx.x == 0)
        val[blockIdx.x] = v;
    double nrm = sqrt(s2);
    float ha = nrm > 0 ? (float)(sqrt(N) / nrm) * scale : 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) {
        float xi = x[i];
        switch (kind) {
        case CS_REG_KERNEL_BIN: {
            float a = (float)(4 * N) * scale, c = (float)(4 * s2) * scale;
            g[i] += xi * (a * xi * xi - c);
            break;
        }
        case CS_REG_KERNEL_OSB: {
            float a = (float)(2 * s4) * scale, b = (float)(4 * s2) * scale,
                  c = (float)(6 * s3) * scale;
            g[i] += xi * (a + xi * (b * xi - c));
            break;
        }
        case CS_REG_KERNEL_TER: {
            float a = (float)(2 * s6) * scale, b = (float)(6 * s2) * scale,
                  c = (float)(8 * s4) * scale, q = xi * xi;
            g[i] += xi * (a + q * (b * q - c));
            break;
        }
        default: {   /* as engine/nn/cpu/nn_reg_ops.c's row functions */
            float u = cs_reg_kernel_gf(kind, xi), du = cs_reg_kernel_dgf(kind, xi, u);
            if (holder)
                g[i] += ha * (u * du) - scale * du;
            else
                g[i] += scale * du * (2.0f * (float)N * u - 2.0f * (float)s1);
            break;
        }
        }
    }
}

static void reg_rows(float *dw, double *val, const float *w, int rows, int cols, int kind,
                     float scale)
{
    reg_rows_kernel<<<rows, NT, 0, nn_stream>>>(dw, val, w, cols, kind, scale);
    op_done("reg_rows");
}

/* ------------------------------------------------------------------ quantized weights */

__global__ void quant_apply_kernel(float *w, const float *sign, const float *alpha, int rows,
                                   int cols)
{
    size_t n = (size_t)rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        w[i] = alpha[i / cols] * sign[i];
}

__global__ void quant_scale_grad_kernel(float *dalpha, const float *dw, const float *sign,
                                        int cols)
{
    __shared__ double sh[NT];
    size_t r = blockIdx.x;
    double s = 0;
    for (int i = threadIdx.x; i < cols; i += blockDim.x)
        s += (double)dw[r * cols + i] * sign[r * cols + i];
    s = block_sum(s, sh);
    if (threadIdx.x == 0)
        dalpha[r] = (float)s;
}

static void quant_apply(float *w, const float *sign, const float *alpha, int rows, int cols)
{
    quant_apply_kernel<<<nblocks((size_t)rows * cols), NT, 0, nn_stream>>>(w, sign, alpha, rows, cols);
    op_done("quant_apply");
}

static void quant_scale_grad(float *dalpha, const float *dw, const float *sign, int rows,
                             int cols)
{
    quant_scale_grad_kernel<<<rows, NT, 0, nn_stream>>>(dalpha, dw, sign, cols);
    op_done("quant_scale_grad");
}

static cs_nn_reg_ops make_reg_ops(void)
{
    cs_nn_reg_ops o;
    memset(&o, 0, sizeof o);
    o.rows = reg_rows;
    o.quant_apply = quant_apply;
    o.quant_scale_grad = quant_scale_grad;
    return o;
}

const cs_nn_reg_ops cs_nn_cuda_reg_ops = make_reg_ops();
