/* nn_backend.h — the backend interface of the network code (engine only).
 *
 * One op table per device, in the spirit of ggml's backend table and of
 * llm.c's CPU reference beside the CUDA file: engine/nn/cpu/nn_ops.c and
 * engine/nn/cuda/nn_ops.cu define the same static functions (matmul_forward,
 * conv_backward, adam_update, ...) in the same order, each exporting its
 * table; so do the two files of the regularizer's ops (nn_reg_ops) and of
 * the watch ops (nn_watch_ops), whose tables the main one points to. Every
 * pointer argument is device memory of that backend (host memory for the
 * CPU); shapes are per batch, row-major, NCHW.
 * Bad shapes are programmer errors. The allocation and copy ops return
 * status; the others return nothing and a device that can fail (CUDA: a
 * launch, a cuBLAS call) keeps its first error, which `error` hands over
 * (and clears): the engine asks after each training step and before it
 * trusts a download (nn_device_check in nn_device.c). Included from C and
 * from CUDA C++. */
#ifndef CS_NN_BACKEND_H
#define CS_NN_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "cs_reg_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Regularizers with a float kernel on every backend: the kernels of
 * reg_builtins.def (cs_reg_kernel.h) of class POLY, FLAT or HOLDER, without
 * a TAIL; the `kind` of the row ops is their id. Others run through
 * cs_reg_eval in double on the host (see nn_pass.c). */
/* The ops of watching a run (nn_watch.c) and of the histograms of `hist`:
 * engine/nn/cpu/nn_watch_ops.c and engine/nn/cuda/nn_watch_ops.cu define
 * the same functions in the same order. Only counts and per-row numbers
 * leave the device. */
typedef struct cs_nn_watch_ops {
    /* counts[k] = #{i : e_k <= x_i < e_k+1} for the edges e_k = lo + (hi − lo)·k/bins
     * in double (the last bin closed, values outside not counted) */
    void (*hist)(uint32_t *counts, const float *x, size_t n, float lo, float hi, int bins);
    /* alpha[r] = Σ_j |w_rj| / cols (the binary scale, as cs_quant_binary) */
    void (*row_abs_mean)(float *alpha, const float *w, int rows, int cols);
    /* alpha[r], tau[r]: the exact ternary scale and threshold of row r, as
     * cs_quant_ternary */
    void (*row_ternary)(float *alpha, float *tau, const float *w, int rows, int cols);
    /* near[r] = #{j : w_rj within 0.01·alpha[r] of a level}: levels ±alpha[r],
     * and 0 when ternary (distances in double) */
    void (*near_count)(uint32_t *near, const float *w, const float *alpha, int rows, int cols,
                       int ternary);
    /* flips[0] = #{i : (x_i < 0) differs from bit i of bits}; then bits holds
     * the signs of x (bit i%32 of word i/32: x_i < 0) */
    void (*sign_flips)(uint32_t *flips, uint32_t *bits, const float *x, size_t n);
} cs_nn_watch_ops;

/* The ops of the regularizer term (nn_pass.c) and of quantized weights
 * (nn_quant.c, nn_train.c): engine/nn/cpu/nn_reg_ops.c and
 * engine/nn/cuda/nn_reg_ops.cu define the same functions in the same
 * order. */
typedef struct cs_nn_reg_ops {
    /* per row r of w (rows×cols): val[r] = ℓ(w_r) (double), and
     * dw_r += scale·∇ℓ(w_r) for kind (a cs_reg_kernel id); sums in double */
    void (*rows)(float *dw, double *val, const float *w, int rows, int cols, int kind,
                 float scale);
    /* w = α_r · s (quantized weights from signs s ∈ {−1,0,1}) */
    void (*quant_apply)(float *w, const float *sign, const float *alpha, int rows, int cols);
    /* dα_r = Σ_j dw_rj s_rj */
    void (*quant_scale_grad)(float *dalpha, const float *dw, const float *sign, int rows,
                             int cols);
} cs_nn_reg_ops;

/* The scratch of a convolution: an im2col block (of the input, or of dout
 * for dinp) for each of up to CS_NN_CONV_SLOTS images in flight, the
 * flipped weights of dinp's product, and the CPU's dW partial sums, one
 * per CS_NN_CONV_CHUNK images (fixed, so dW never depends on the thread
 * count). */
#define CS_NN_CONV_SLOTS 64
#define CS_NN_CONV_CHUNK 8
#define CS_NN_CONV_SCRATCH(B, C, H, W, OC)                                                 \
    ((size_t)((B) < CS_NN_CONV_SLOTS ? (B) : CS_NN_CONV_SLOTS) *                           \
         ((C) > (OC) ? (C) : (OC)) * 9 * (H) * (W) +                                       \
     (size_t)(C) * (OC) * 9 * (1 + ((B) + CS_NN_CONV_CHUNK - 1) / CS_NN_CONV_CHUNK))

/* The scratch of convk_forward/backward: per image in flight (up to
 * CS_NN_CONV_SLOTS) an im2col block of C·k²·OH·OW floats and one of the
 * same size for dout's side (OC·k²·H·W when stride 1), the flipped
 * weights, and the dW partial sums per CS_NN_CONV_CHUNK images. */
#define CS_NN_CONVK_SCRATCH(B, C, H, W, OC, k)                                             \
    ((size_t)((B) < CS_NN_CONV_SLOTS ? (B) : CS_NN_CONV_SLOTS) *                           \
         ((C) > (OC) ? (C) : (OC)) * (k) * (k) * (H) * (W) +                               \
     (size_t)(C) * (OC) * (k) * (k) * (1 + ((B) + CS_NN_CONV_CHUNK - 1) / CS_NN_CONV_CHUNK))

typedef struct cs_nn_ops {
    const char *name;
    /* memory (zeroed on allocation); 0 ok, <0 failure */
    void *(*alloc)(size_t bytes);
    void (*release)(void *p);
    int (*upload)(void *dst, const void *src, size_t bytes);
    int (*download)(void *dst, const void *src, size_t bytes);
    void (*zero)(void *p, size_t bytes);
    void (*copy)(void *dst, const void *src, size_t bytes);
    /* out[B×OC] = inp[B×C]·wᵀ + bias (bias may be NULL) */
    void (*matmul_forward)(float *out, const float *inp, const float *w, const float *bias,
                           int B, int C, int OC);
    /* dinp = dout·w (dinp may be NULL), dw = doutᵀ·inp, dbias = Σ_b dout (may be NULL) */
    void (*matmul_backward)(float *dinp, float *dw, float *dbias, const float *dout,
                            const float *inp, const float *w, int B, int C, int OC);
    /* 3×3 convolution, stride 1, zero padding 1, no bias; w is OC × C·9;
     * scratch holds CS_NN_CONV_SCRATCH(B, C, H, W, OC) floats */
    void (*conv_forward)(float *out, const float *inp, const float *w, float *scratch, int B,
                         int C, int H, int W, int OC);
    void (*conv_backward)(float *dinp, float *dw, const float *dout, const float *inp,
                          const float *w, float *scratch, int B, int C, int H, int W, int OC);
    /* batch norm over (B, HW) per channel; train: batch statistics, saves
     * mean/rstd and updates the running statistics (momentum 0.1, unbiased
     * variance); else uses the running ones. eps = 1e-5. */
    void (*bn_forward)(float *out, const float *inp, const float *gamma, const float *beta,
                       float *mean, float *rstd, float *run_mean, float *run_var, int B, int C,
                       int HW, int train);
    void (*bn_backward)(float *dinp, float *dgamma, float *dbeta, const float *dout,
                        const float *inp, const float *gamma, const float *mean,
                        const float *rstd, int B, int C, int HW);
    /* bn_forward then relu_forward in one pass (out: the ReLU's output), and
     * relu_backward then bn_backward (the mask out > 0, which is also
     * inp·γ·rstd + β − mean·γ·rstd > 0 in float): the same values as the
     * two ops apart */
    void (*bn_relu_forward)(float *out, const float *inp, const float *gamma, const float *beta,
                            float *mean, float *rstd, float *run_mean, float *run_var, int B,
                            int C, int HW, int train);
    void (*bn_relu_backward)(float *dinp, float *dgamma, float *dbeta, const float *dout,
                             const float *out, const float *inp, const float *gamma,
                             const float *beta, const float *mean, const float *rstd, int B,
                             int C, int HW);
    void (*relu_forward)(float *out, const float *inp, size_t n);
    void (*relu_backward)(float *dinp, const float *dout, const float *out, size_t n);
    /* 2×2 max pooling, stride 2, out H/2 × W/2 (rounded down: an odd side's
     * last row or column is in no window and gets dinp 0); idx: argmax
     * within the window */
    void (*maxpool_forward)(float *out, int32_t *idx, const float *inp, int B, int C, int H,
                            int W);
    void (*maxpool_backward)(float *dinp, const float *dout, const int32_t *idx, int B, int C,
                             int H, int W);
    /* probs = softmax(logits), losses[b] = −log probs[b, label[b]] */
    void (*softmax_ce_forward)(float *probs, float *losses, const float *logits,
                               const int32_t *labels, int B, int K);
    /* dlogits = (probs − onehot) / B */
    void (*softmax_ce_backward)(float *dlogits, const float *probs, const int32_t *labels,
                                int B, int K);
    /* Adam with bias correction, step t >= 1 */
    void (*adam_update)(float *p, const float *g, float *m, float *v, size_t n, float lr,
                        float beta1, float beta2, float eps, int t);
    /* the regularizer's rows and quantized weights (nn_reg_ops) */
    const struct cs_nn_reg_ops *reg;
    /* y += a·x */
    void (*axpy)(float *y, const float *x, float a, size_t n);
    /* watching a run and the histograms of `hist` (nn_watch_ops) */
    const struct cs_nn_watch_ops *watch;
    /* synchronize (timing); may be NULL */
    void (*sync)(void);
    /* the first error since the last call ("conv_forward: cuBLAS sgemm:
     * CUBLAS_STATUS_EXECUTION_FAILED"), cleared: <0 with msg, 0 none; may be
     * NULL (the CPU's ops do not fail) */
    int (*error)(char *msg, size_t len);
    /* --- the ops of resnet20 and of the cnn's other kernel sizes --- */
    /* k×k convolution (k odd), zero padding k/2, stride 1 or 2: out is B ×
     * OC × OH × OW with OH = (H − 1)/stride + 1; no bias; w is OC × C·k²;
     * scratch holds CS_NN_CONVK_SCRATCH(B, C, H, W, OC, k) floats. k = 3,
     * stride 1 is conv_forward/conv_backward, bit for bit. */
    void (*convk_forward)(float *out, const float *inp, const float *w, float *scratch, int B,
                          int C, int H, int W, int OC, int k, int stride);
    void (*convk_backward)(float *dinp, float *dw, const float *dout, const float *inp,
                           const float *w, float *scratch, int B, int C, int H, int W, int OC,
                           int k, int stride);
    /* The residual sum of a basic block: out = inp + shortcut(sc), inp and
     * out B × C × H × W, sc B × SC × SH × SW. The shortcut is the identity
     * when the shapes agree, else option A: sc's every (SH/H)-th pixel, its
     * SC channels placed at (C − SC)/2 .. (C − SC)/2 + SC − 1, zeros around. */
    void (*residual_forward)(float *out, const float *inp, const float *sc, int B, int C, int H,
                             int W, int SC, int SH, int SW);
    /* dsc = shortcutᵀ(dout): dout's channels (C − SC)/2.. at the sampled
     * pixels, 0 elsewhere (the residual's other input gets dout itself) */
    void (*residual_backward)(float *dsc, const float *dout, int B, int C, int H, int W, int SC,
                              int SH, int SW);
    /* global average pooling: out[b, c] = mean of inp[b, c, ·] over HW */
    void (*avgpool_forward)(float *out, const float *inp, int B, int C, int HW);
    void (*avgpool_backward)(float *dinp, const float *dout, int B, int C, int HW);
    /* --- optional fusions (NULL: nn_pass.c runs the ops apart) --- */
    /* the end of a basic block, bn_forward, residual_forward and
     * relu_forward in one pass: out = max(bn(inp) + shortcut(sc), 0), inp
     * B × C × H × W, sc as residual_forward's; the same bits as the three */
    void (*bn_add_relu_forward)(float *out, const float *inp, const float *sc,
                                const float *gamma, const float *beta, float *mean, float *rstd,
                                float *run_mean, float *run_var, int B, int C, int H, int W,
                                int SC, int SH, int SW, int train);
    /* its backward: dres = (dout + dadd) where out > 0, else 0 (dadd: a
     * shortcut's gradient still to add, as axpy(dout, dadd, 1); may be
     * NULL), the gradient of both the residual and the batch norm's
     * output; then bn_backward from dres. dres may be dout or dadd. */
    void (*bn_add_relu_backward)(float *dinp, float *dgamma, float *dbeta, float *dres,
                                 const float *dout, const float *dadd, const float *out,
                                 const float *inp, const float *gamma, const float *mean,
                                 const float *rstd, int B, int C, int HW);
    /* a dense layer and the ReLU after it: matmul_forward then relu_forward
     * in one pass over out (the ReLU's output); the same bits as the two */
    void (*matmul_relu_forward)(float *out, const float *inp, const float *w, const float *bias,
                                int B, int C, int OC);
    /* their backward: dmask (B × OC, not dout) = dout where out > 0, else 0,
     * and dbias = Σ_b dmask in the same pass, then matmul_backward's dinp
     * (may be NULL) and dw from dmask; the same bits as relu_backward then
     * matmul_backward */
    void (*matmul_relu_backward)(float *dinp, float *dw, float *dbias, float *dmask,
                                 const float *dout, const float *out, const float *inp,
                                 const float *w, int B, int C, int OC);
    /* --- a training step as one launch (NULL: the ops run one by one) ---
     * graph_begin: the ops called until graph_end are recorded, not run;
     * adam_update's lr and t become parameters of the recording. 0, or <0
     * with why (turned off: CSREG_CUDA_GRAPH=off, ...). Only ops on device
     * memory the network keeps may be recorded: no upload or download.
     * graph_end: 0 and the recording is the step's graph; <0 with why (an op
     * a recording does not allow), and nothing recorded ran.
     * graph_launch: runs the graph with Adam's lr and step t; 0, 1 when there
     * is none (never recorded, or a buffer it uses was reallocated since:
     * record again), <0 a failure (kept for `error`).
     * graph_drop: forgets it (before the network's buffers go). */
    int (*graph_begin)(char *why, size_t len);
    int (*graph_end)(char *why, size_t len);
    int (*graph_launch)(float lr, int t);
    void (*graph_drop)(void);
} cs_nn_ops;

extern const cs_nn_ops cs_nn_cpu_ops;
extern const cs_nn_reg_ops cs_nn_cpu_reg_ops;
extern const cs_nn_watch_ops cs_nn_cpu_watch_ops;

/* The bin of v ∈ [lo, hi] among `bins` uniform bins with the edges
 * e_k = lo + (hi − lo)·k/bins (computed in double, the last bin closed).
 * A float quotient decides when it is clearly inside a bin (its error is
 * below bins·3e-7, the margin bins·1e-5), the edges themselves otherwise,
 * so the counts are exact for those edges on every backend. finv =
 * bins/(hi − lo) in float. */
#ifdef __CUDACC__
#define NN_HOST_DEVICE __host__ __device__
#else
#define NN_HOST_DEVICE
#endif
NN_HOST_DEVICE static inline int nn_hist_bin(float v, float lo, float hi, int bins, float finv)
{
    float q = (v - lo) * finv;
    int k = (int)q;
    float f = q - (float)k, margin = 1e-5f * (float)bins;
    if (k < bins && f > margin && f < 1 - margin)
        return k;
    double l = lo, h = hi;
    k = k >= bins ? bins - 1 : k;
    while (k > 0 && v < l + (h - l) * (double)k / bins)
        k--;
    while (k + 1 < bins && v >= l + (h - l) * (double)(k + 1) / bins)
        k++;
    return k;
}

/* The CUDA backend is a shared module (libcsreg_cuda.so, built from
 * engine/nn/cuda/ with nvcc, linked to cuBLAS and the CUDA runtime) that the
 * engine loads with dlopen when device=cuda or auto asks for it (as ggml
 * loads its backends), so ./csreg itself links no CUDA library and runs on
 * the CPU where there is none. The module exports one function,
 * cs_nn_cuda_module_get (CS_NN_CUDA_MODULE_SYM), that returns this table. */
#define CS_NN_CUDA_ABI 5
#define CS_NN_CUDA_MODULE_SYM "cs_nn_cuda_module_get"
typedef struct cs_nn_cuda_module {
    int abi;               /* CS_NN_CUDA_ABI */
    size_t ops_size;       /* sizeof(cs_nn_ops) as the module was built */
    /* select CUDA device `device`, create the cuBLAS handle, run a trivial
     * kernel; sync_ops: synchronize and check after every op (debugging).
     * 0 ok, <0 with the reason in why */
    int (*init)(int device, int sync_ops, char *why, size_t len);
    void (*name)(char *name, size_t len);   /* after init */
    void (*shutdown)(void);                 /* frees the cuBLAS handle and scratch */
    const cs_nn_ops *ops;
} cs_nn_cuda_module;
typedef const cs_nn_cuda_module *(*cs_nn_cuda_module_fn)(void);

#ifdef CSREG_HAVE_CUDA
/* 0 when a CUDA device is usable: the module loaded, the device of
 * CSREG_CUDA_DEVICE selected, cuBLAS initialized and a test kernel ran;
 * else <0 with the reason in why ("no NVIDIA driver/GPU found (...)", "the
 * CUDA module ... could not be loaded: ..."). A success is kept; a failure
 * is tried again on the next call. */
int cs_nn_cuda_init(char *why, size_t len);
/* The name of the CUDA device in use ("NVIDIA H100 80GB HBM3"); call after
 * cs_nn_cuda_init succeeded. */
void cs_nn_cuda_name(char *name, size_t len);
/* The CUDA ops, NULL before cs_nn_cuda_init succeeded. */
const cs_nn_ops *cs_nn_cuda_ops(void);
#endif

#ifdef __cplusplus
}
#endif

#endif
