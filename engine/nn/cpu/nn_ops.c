/* cpu/nn_ops.c — the CPU backend of the network code: the reference for
 * engine/nn/cuda/nn_ops.cu, which has the same functions in the same order
 * (the regularizer's and quantized weights' ops are in nn_reg_ops.c, the
 * watch ops in nn_watch_ops.c).
 * Matrix products go to OpenBLAS sgemm on one thread (convolutions through
 * im2col, one image at a time), or, for the convolutions where it gives
 * the same bits (AVX-512), to nn_gemm.c's loops, which skip sgemm's
 * packing; the rest are plain loops. Every op is split
 * into tasks that do not depend on the thread count (images, channels, fixed
 * blocks) and run by cs_par_for on `--threads` threads; sums across tasks
 * are taken in task order, so training gives the same bits on any count.
 * Sums that decide a value (batch-norm statistics, regularizer sums) are
 * accumulated in double. */
#include <cblas.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cs_par.h"
#include "nn_backend.h"
#include "nn_cpu.h"
#include "nn_gemm.h"


/* ------------------------------------------------------------------ memory */

static void *alloc(size_t bytes)
{
    return calloc(1, bytes ? bytes : 1);
}

static void release(void *p)
{
    free(p);
}

static int upload(void *dst, const void *src, size_t bytes)
{
    if (bytes)
        memcpy(dst, src, bytes);
    return 0;
}

static int download(void *dst, const void *src, size_t bytes)
{
    if (bytes)
        memcpy(dst, src, bytes);
    return 0;
}

static void zero(void *p, size_t bytes)
{
    if (bytes)
        memset(p, 0, bytes);
}

static void copy(void *dst, const void *src, size_t bytes)
{
    if (bytes)
        memmove(dst, src, bytes);
}

/* ------------------------------------------------------------------ dense */

/* Fixed blocks of DENSE_COLS columns of the result a task, each one sgemm
 * (OpenBLAS on one thread, so every element's sum is the same whatever the
 * thread count). Columns, not rows: sgemm packs both operands on every
 * call, and the operand a column block repeats is the small one (the batch
 * for out, dout for dinp and dw). 128: with 64 the repeated packing cost a
 * one-thread mlp epoch 7%; the results are the same bits for any width. */
#define DENSE_COLS 128

typedef struct dense_job {
    float *out, *dinp, *dw;
    const float *inp, *dout, *w, *bias;
    int B, C, OC, dinp_tasks;
} dense_job;

/* out[:, o0 : o0+n] = inp · w[o0 : o0+n]ᵀ + bias */
static void dense_forward_cols(void *ctx, int t, int worker)
{
    (void)worker;
    const dense_job *j = ctx;
    int C = j->C, OC = j->OC, o0 = t * DENSE_COLS, no = block_len(OC, DENSE_COLS, t);
    float *out = j->out + o0;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, j->B, no, C, 1.0f, j->inp, C,
                j->w + (size_t)o0 * C, C, 0.0f, out, OC);
    if (j->bias)
        for (int b = 0; b < j->B; b++)
            for (int k = 0; k < no; k++)
                out[(size_t)b * OC + k] += j->bias[o0 + k];
}

static void matmul_forward(float *out, const float *inp, const float *w, const float *bias, int B,
                           int C, int OC)
{
    dense_job j = {.out = out, .inp = inp, .w = w, .bias = bias, .B = B, .C = C, .OC = OC};
    cs_par_for(blocks(OC, DENSE_COLS), dense_forward_cols, &j);
}

/* tasks 0..dinp_tasks−1: columns c0.. of dinp = dout·w; then columns of
 * dw = doutᵀ·inp */
static void dense_backward_cols(void *ctx, int t, int worker)
{
    (void)worker;
    const dense_job *j = ctx;
    int B = j->B, C = j->C, OC = j->OC;
    int d = t < j->dinp_tasks, k = d ? t : t - j->dinp_tasks;
    int c0 = k * DENSE_COLS, nc = block_len(C, DENSE_COLS, k);
    if (d)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, nc, OC, 1.0f, j->dout, OC,
                    j->w + c0, C, 0.0f, j->dinp + c0, C);
    else
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, OC, nc, B, 1.0f, j->dout, OC,
                    j->inp + c0, C, 0.0f, j->dw + c0, C);
}

static void matmul_backward(float *dinp, float *dw, float *dbias, const float *dout,
                            const float *inp, const float *w, int B, int C, int OC)
{
    dense_job j = {.dinp = dinp, .dw = dw, .dout = dout, .inp = inp, .w = w, .B = B, .C = C,
                   .OC = OC, .dinp_tasks = dinp ? blocks(C, DENSE_COLS) : 0};
    cs_par_for(j.dinp_tasks + blocks(C, DENSE_COLS), dense_backward_cols, &j);
    if (dbias) {
        memset(dbias, 0, (size_t)OC * sizeof *dbias);
        for (int b = 0; b < B; b++) {
            const float *g = dout + (size_t)b * OC;
            for (int k = 0; k < OC; k++)
                dbias[k] += g[k];
        }
    }
}

/* ------------------------------------------------------------------ convolution */

/* col[(c·9 + ky·3 + kx)·ld + y·W + x] = inp[c, y+ky−1, x+kx−1] (0 outside;
 * ld >= HW). Each shifted plane is one copy of the plane at offset
 * (ky−1)·W + kx−1, then the rows and the column that fell outside are
 * zeroed. */
static void im2col(float *col, size_t ld, const float *inp, int C, int H, int W)
{
    size_t HW = (size_t)H * W;
    for (int c = 0; c < C; c++)
        for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
                float *dst = col + ((size_t)c * 9 + ky * 3 + kx) * ld;
                const float *src = inp + (size_t)c * HW;
                ptrdiff_t shift = (ptrdiff_t)(ky - 1) * W + (kx - 1);
                int y0 = ky == 0, y1 = ky == 2 ? H - 1 : H;
                size_t lo = (size_t)y0 * W + (kx == 0), hi = (size_t)y1 * W - (kx == 2);
                memset(dst, 0, (size_t)y0 * W * sizeof *dst);
                memcpy(dst + lo, src + lo + shift, (hi - lo) * sizeof *dst);
                memset(dst + (size_t)y1 * W, 0, (size_t)(H - y1) * W * sizeof *dst);
                if (kx != 1)
                    for (int y = y0; y < y1; y++)
                        dst[(size_t)y * W + (kx == 0 ? 0 : W - 1)] = 0.0f;
            }
}

/* The scratch of one convolution (CS_NN_CONV_SCRATCH): per-worker im2col
 * slots of max(C, OC)·9·HW floats, the flipped weights, the dW partials.
 * fast: the products through nn_gemm (the same bits as sgemm, packed
 * weights in wflip; forward: 2 without the im2col block, nn_gemm_conv3);
 * backward then gives each worker two slots, dout's
 * im2col with rows ld = HW + 16 apart (16 rows HW·4 bytes apart would
 * share a set of L1 lines) and the input transposed for dW. */
typedef struct conv_job {
    float *out, *dinp, *dw;
    const float *inp, *dout, *w;
    float *slots, *wflip, *partial;
    int B, C, H, W, OC, fast;
    size_t slot;
} conv_job;

#define CONV_LD_PAD 16

static conv_job conv_plan(float *scratch, int B, int C, int H, int W, int OC)
{
    conv_job j = {.B = B, .C = C, .H = H, .W = W, .OC = OC};
    int slots = B < CS_NN_CONV_SLOTS ? B : CS_NN_CONV_SLOTS;
    j.slot = (size_t)(C > OC ? C : OC) * 9 * H * W;
    j.slots = scratch;
    j.wflip = scratch + (size_t)slots * j.slot;
    j.partial = j.wflip + (size_t)C * OC * 9;
    return j;
}

/* One image: its K × HW im2col block stays in L2 and the OC × HW product is
 * already the image's NCHW output. */
static void conv_forward_image(void *ctx, int b, int worker)
{
    const conv_job *j = ctx;
    size_t HW = (size_t)j->H * j->W;
    int K = j->C * 9;
    float *col = j->slots + (size_t)worker * j->slot, *out = j->out + (size_t)b * j->OC * HW;
    const float *in = j->inp + (size_t)b * j->C * HW;
    if (j->fast == 2) {   /* no im2col block */
        nn_gemm_conv3(out, j->wflip, in, j->OC, j->C, j->H, j->W);
        return;
    }
    im2col(col, HW, in, j->C, j->H, j->W);
    if (j->fast)
        nn_gemm_nn(out, HW, j->wflip, col, HW, j->OC, (int)HW, K);
    else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, j->OC, (int)HW, K, 1.0f, j->w, K,
                    col, (int)HW, 0.0f, out, (int)HW);
}

static void conv_forward(float *out, const float *inp, const float *w, float *scratch, int B,
                         int C, int H, int W, int OC)
{
    conv_job j = conv_plan(scratch, B, C, H, W, OC);
    j.out = out;
    j.inp = inp;
    j.w = w;
    j.fast = nn_gemm_conv3_ok(OC, C, H, W) ? 2 : nn_gemm_nn_ok(OC, H * W, C * 9);
    if (j.fast)   /* wflip is free in the forward */
        nn_gemm_pack(j.wflip, w, OC, C * 9);
    cs_par_for(B, conv_forward_image, &j);
}

/* wflip[c, oc·9 + k] = w[oc, c·9 + 8 − k]: dinp = wflip · im2col(dout), the
 * convolution of dout with the flipped kernel (C × HW, a product as
 * efficient as the forward one; wᵀ·dout was K × HW with a sum of OC terms
 * and a col2im after it). packed: in nn_gemm_pack's layout. */
static void flip_weights(float *wflip, const float *w, int C, int OC, int packed)
{
    size_t K = (size_t)OC * 9;
    for (int c = 0; c < C; c++)
        for (int oc = 0; oc < OC; oc++)
            for (int k = 0; k < 9; k++) {
                size_t m = (size_t)oc * 9 + k;
                size_t at = packed ? ((size_t)(c / 16) * K + m) * 16 + c % 16 : c * K + m;
                wflip[at] = w[((size_t)oc * C + c) * 9 + 8 - k];
            }
}

/* Whether the backward runs fast: nn_gemm takes both products, and every
 * worker (at most one a chunk) has two slots, whatever the thread count */
static int conv_backward_fast(const conv_job *j)
{
    int HW = j->H * j->W, chunks = (j->B + CS_NN_CONV_CHUNK - 1) / CS_NN_CONV_CHUNK;
    int slots = j->B < CS_NN_CONV_SLOTS ? j->B : CS_NN_CONV_SLOTS;
    int workers = chunks < CS_PAR_MAX_THREADS ? chunks : CS_PAR_MAX_THREADS;
    size_t need = (size_t)j->OC * 9 * (HW + CONV_LD_PAD) + (size_t)(j->C + 15) / 16 * 16 * HW;
    return j->dinp && slots >= 2 * workers && need <= 2 * j->slot &&
           nn_gemm_nn_ok(j->C, HW, j->OC * 9) && nn_gemm_nt_ok(j->OC * 9, j->C, HW);
}

/* A chunk of CS_NN_CONV_CHUNK images: their dW summed in image order into
 * the chunk's partial, and each image's dinp. With dinp, one im2col of dout
 * serves both: dinp = wflip·dcol, and dW from dcol·inpᵀ (OC·9 × C), since
 * Σ_p inp[c, p + s]·dout[oc, p] = Σ_q inp[c, q]·dout[oc, q − s]. Without
 * (the first layer: C = 1, a small im2col of the input), dWᵀ = col·doutᵀ
 * (K × OC). These orientations run 25–35% faster in OpenBLAS than
 * dout·colᵀ at the cnn's shapes. */
static void conv_backward_chunk(void *ctx, int chunk, int worker)
{
    const conv_job *j = ctx;
    size_t HW = (size_t)j->H * j->W, ld = j->fast ? HW + CONV_LD_PAD : HW;
    int C = j->C, OC = j->OC, K = C * 9, b0 = chunk * CS_NN_CONV_CHUNK;
    int b1 = b0 + CS_NN_CONV_CHUNK < j->B ? b0 + CS_NN_CONV_CHUNK : j->B;
    float *col = j->slots + (size_t)worker * (j->fast ? 2 : 1) * j->slot;
    float *inT = col + (size_t)OC * 9 * ld;
    float *part = j->partial + (size_t)chunk * OC * K;
    for (int b = b0; b < b1; b++) {
        const float *db = j->dout + (size_t)b * OC * HW, *in = j->inp + (size_t)b * C * HW;
        float beta = b > b0 ? 1.0f : 0.0f;
        if (!j->dinp) {
            im2col(col, HW, in, C, j->H, j->W);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, K, OC, (int)HW, 1.0f, col,
                        (int)HW, db, (int)HW, beta, part, OC);
            continue;
        }
        im2col(col, ld, db, OC, j->H, j->W);
        float *dinp = j->dinp + (size_t)b * C * HW;
        if (j->fast) {
            nn_gemm_pack_t(inT, in, HW, C, (int)HW);
            nn_gemm_nt(part, col, ld, inT, OC * 9, C, (int)HW, b > b0);
            nn_gemm_nn(dinp, HW, j->wflip, col, ld, C, (int)HW, OC * 9);
            continue;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, OC * 9, C, (int)HW, 1.0f, col,
                    (int)HW, in, (int)HW, beta, part, C);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, C, (int)HW, OC * 9, 1.0f, j->wflip,
                    OC * 9, col, (int)HW, 0.0f, dinp, (int)HW);
    }
}

/* part[0..n) += the partials 1.. (stride `stride`) in chunk order */
CS_VEC static void sum_partial_block(float *restrict part, size_t n, size_t stride, int chunks)
{
    for (int c = 1; c < chunks; c++)
        for (size_t i = 0; i < n; i++)
            part[i] += part[(size_t)c * stride + i];
}

/* blocks of PART_BLOCK elements a task: each element's sum keeps the chunk
 * order (it ran on one thread, 2% of a two-thread resnet20 step) */
#define PART_BLOCK 4096

typedef struct part_job {
    float *part;
    size_t n;
    int chunks;
} part_job;

static void sum_partials_block(void *ctx, int t, int worker)
{
    (void)worker;
    const part_job *j = ctx;
    size_t o = (size_t)t * PART_BLOCK, len = j->n - o < PART_BLOCK ? j->n - o : PART_BLOCK;
    sum_partial_block(j->part + o, len, j->n, j->chunks);
}

/* part[0] = Σ of the partials in chunk order */
static void sum_partials(float *part, size_t n, int chunks)
{
    part_job j = {part, n, chunks};
    cs_par_for((int)((n + PART_BLOCK - 1) / PART_BLOCK), sum_partials_block, &j);
}

/* dw[oc, c·9 + k] from the summed partial: dcol·inpᵀ's [(oc·9 + 8 − k), c]
 * (flipped), or col·doutᵀ's [c·9 + k, oc] */
static void dw_from_partial(float *dw, const float *t, int C, int OC, int from_dcol)
{
    for (int oc = 0; oc < OC; oc++)
        for (int c = 0; c < C; c++)
            for (int k = 0; k < 9; k++)
                dw[((size_t)oc * C + c) * 9 + k] =
                    from_dcol ? t[((size_t)oc * 9 + 8 - k) * C + c]
                              : t[((size_t)c * 9 + k) * OC + oc];
}

static void conv_backward(float *dinp, float *dw, const float *dout, const float *inp,
                          const float *w, float *scratch, int B, int C, int H, int W, int OC)
{
    conv_job j = conv_plan(scratch, B, C, H, W, OC);
    j.dinp = dinp;
    j.dout = dout;
    j.inp = inp;
    j.w = w;
    j.fast = conv_backward_fast(&j);
    if (dinp)
        flip_weights(j.wflip, w, C, OC, j.fast);
    int chunks = (B + CS_NN_CONV_CHUNK - 1) / CS_NN_CONV_CHUNK;
    cs_par_for(chunks, conv_backward_chunk, &j);
    sum_partials(j.partial, (size_t)OC * C * 9, chunks);
    dw_from_partial(dw, j.partial, C, OC, dinp != NULL);
}

/* ------------------------------------------------------------------ convolution, any size */

/* The k×k convolutions (k odd, padding k/2) of stride 1 or 2: resnet20's
 * downsampling and the cnn's kernel=. k = 3, stride 1 is the code above.
 * Stride 1 uses its scheme (one im2col of dout gives dinp through the
 * flipped weights and dW); stride 2 takes dW = col·doutᵀ and dinp as the
 * col2im of wᵀ·dout (each image's own, so no sums across tasks). */
typedef struct convk_job {
    conv_job c;
    int k, stride, OH, OW;
} convk_job;

static convk_job convk_plan(float *scratch, int B, int C, int H, int W, int OC, int k,
                            int stride)
{
    convk_job j = {.k = k, .stride = stride, .OH = (H - 1) / stride + 1,
                   .OW = (W - 1) / stride + 1};
    j.c.B = B;
    j.c.C = C;
    j.c.H = H;
    j.c.W = W;
    j.c.OC = OC;
    int slots = B < CS_NN_CONV_SLOTS ? B : CS_NN_CONV_SLOTS;
    j.c.slot = (size_t)(C > OC ? C : OC) * k * k * H * W;
    j.c.slots = scratch;
    j.c.wflip = scratch + (size_t)slots * j.c.slot;
    j.c.partial = j.c.wflip + (size_t)C * OC * k * k;
    return j;
}

/* col[((c·k + ky)·k + kx)·OH·OW + oy·OW + ox] = inp[c, oy·s + ky − k/2, ox·s + kx − k/2]
 * (0 outside) */
static void im2col_k(float *col, const float *inp, int C, int H, int W, int k, int s, int OH,
                     int OW)
{
    int p = k / 2;
    for (int c = 0; c < C; c++)
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
                float *dst = col + ((size_t)(c * k + ky) * k + kx) * OH * OW;
                const float *src = inp + (size_t)c * H * W;
                for (int oy = 0; oy < OH; oy++, dst += OW) {
                    int iy = oy * s + ky - p;
                    if (iy < 0 || iy >= H) {
                        memset(dst, 0, (size_t)OW * sizeof *dst);
                        continue;
                    }
                    const float *row = src + (size_t)iy * W;
                    for (int ox = 0; ox < OW; ox++) {
                        int ix = ox * s + kx - p;
                        dst[ox] = ix >= 0 && ix < W ? row[ix] : 0.0f;
                    }
                }
            }
}

/* dinp[c] += the col block's values back at their pixels (col2im), one
 * image, in a fixed order */
static void col2im_k(float *dinp, const float *col, int C, int H, int W, int k, int s, int OH,
                     int OW)
{
    int p = k / 2;
    memset(dinp, 0, (size_t)C * H * W * sizeof *dinp);
    for (int c = 0; c < C; c++)
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
                const float *src = col + ((size_t)(c * k + ky) * k + kx) * OH * OW;
                float *dst = dinp + (size_t)c * H * W;
                for (int oy = 0; oy < OH; oy++, src += OW) {
                    int iy = oy * s + ky - p;
                    if (iy < 0 || iy >= H)
                        continue;
                    for (int ox = 0; ox < OW; ox++) {
                        int ix = ox * s + kx - p;
                        if (ix >= 0 && ix < W)
                            dst[(size_t)iy * W + ix] += src[ox];
                    }
                }
            }
}

static void convk_forward_image(void *ctx, int b, int worker)
{
    const convk_job *j = ctx;
    const conv_job *c = &j->c;
    size_t HW = (size_t)c->H * c->W, OHW = (size_t)j->OH * j->OW;
    int K = c->C * j->k * j->k;
    float *col = c->slots + (size_t)worker * c->slot, *out = c->out + (size_t)b * c->OC * OHW;
    im2col_k(col, c->inp + (size_t)b * c->C * HW, c->C, c->H, c->W, j->k, j->stride, j->OH,
             j->OW);
    if (c->fast)
        nn_gemm_nn(out, OHW, c->wflip, col, OHW, c->OC, (int)OHW, K);
    else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, c->OC, (int)OHW, K, 1.0f, c->w, K,
                    col, (int)OHW, 0.0f, out, (int)OHW);
}

static void convk_forward(float *out, const float *inp, const float *w, float *scratch, int B,
                          int C, int H, int W, int OC, int k, int stride)
{
    if (k == 3 && stride == 1) {
        conv_forward(out, inp, w, scratch, B, C, H, W, OC);
        return;
    }
    convk_job j = convk_plan(scratch, B, C, H, W, OC, k, stride);
    j.c.out = out;
    j.c.inp = inp;
    j.c.w = w;
    j.c.fast = nn_gemm_nn_ok(OC, j.OH * j.OW, C * k * k);
    if (j.c.fast)   /* wflip is free in the forward */
        nn_gemm_pack(j.c.wflip, w, OC, C * k * k);
    cs_par_for(B, convk_forward_image, &j);
}

/* conv_backward_chunk for any k: stride 1 as there; stride 2 with the
 * partial K × OC = col·doutᵀ and dinp = col2im(wᵀ·dout) */
static void convk_backward_chunk(void *ctx, int chunk, int worker)
{
    const convk_job *j = ctx;
    const conv_job *c = &j->c;
    int k = j->k, kk = k * k, s = j->stride;
    size_t HW = (size_t)c->H * c->W, OHW = (size_t)j->OH * j->OW;
    int C = c->C, OC = c->OC, K = C * kk, b0 = chunk * CS_NN_CONV_CHUNK;
    int b1 = b0 + CS_NN_CONV_CHUNK < c->B ? b0 + CS_NN_CONV_CHUNK : c->B;
    float *col = c->slots + (size_t)worker * c->slot;
    float *part = c->partial + (size_t)chunk * OC * K;
    for (int b = b0; b < b1; b++) {
        const float *db = c->dout + (size_t)b * OC * OHW, *in = c->inp + (size_t)b * C * HW;
        float beta = b > b0 ? 1.0f : 0.0f;
        if (c->fast) {   /* stride 2 through nn_gemm: doutᵀ packed after dcol */
            float *dcol = col + (size_t)K * OHW, *doutT = dcol + (size_t)K * OHW;
            im2col_k(col, in, C, c->H, c->W, k, s, j->OH, j->OW);
            nn_gemm_pack_t(doutT, db, OHW, OC, (int)OHW);
            nn_gemm_nt(part, col, OHW, doutT, K, OC, (int)OHW, b > b0);
            nn_gemm_nn(dcol, OHW, c->wflip, db, OHW, K, (int)OHW, OC);
            col2im_k(c->dinp + (size_t)b * C * HW, dcol, C, c->H, c->W, k, s, j->OH, j->OW);
            continue;
        }
        if (!c->dinp || s != 1) {
            im2col_k(col, in, C, c->H, c->W, k, s, j->OH, j->OW);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, K, OC, (int)OHW, 1.0f, col,
                        (int)OHW, db, (int)OHW, beta, part, OC);
            if (!c->dinp)
                continue;
            float *dcol = col + (size_t)K * OHW;
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K, (int)OHW, OC, 1.0f, c->w, K,
                        db, (int)OHW, 0.0f, dcol, (int)OHW);
            col2im_k(c->dinp + (size_t)b * C * HW, dcol, C, c->H, c->W, k, s, j->OH, j->OW);
            continue;
        }
        im2col_k(col, db, OC, c->H, c->W, k, 1, c->H, c->W);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, OC * kk, C, (int)HW, 1.0f, col,
                    (int)HW, in, (int)HW, beta, part, C);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, C, (int)HW, OC * kk, 1.0f,
                    c->wflip, OC * kk, col, (int)HW, 0.0f, c->dinp + (size_t)b * C * HW, (int)HW);
    }
}

static void convk_backward(float *dinp, float *dw, const float *dout, const float *inp,
                           const float *w, float *scratch, int B, int C, int H, int W, int OC,
                           int k, int stride)
{
    if (k == 3 && stride == 1) {
        conv_backward(dinp, dw, dout, inp, w, scratch, B, C, H, W, OC);
        return;
    }
    convk_job j = convk_plan(scratch, B, C, H, W, OC, k, stride);
    j.c.dinp = dinp;
    j.c.dout = dout;
    j.c.inp = inp;
    j.c.w = w;
    int kk = k * k, from_dcol = dinp && stride == 1, K = C * kk, OHW = j.OH * j.OW;
    /* stride 2 through nn_gemm: col·doutᵀ, and wᵀ·dout with wᵀ packed in wflip */
    j.c.fast = dinp && stride != 1 && nn_gemm_nt_ok(K, OC, OHW) && nn_gemm_nt_ok(K, OHW, OC) &&
               (size_t)2 * K * OHW + (size_t)(OC + 15) / 16 * 16 * OHW <= j.c.slot;
    if (j.c.fast)
        nn_gemm_pack_tn(j.c.wflip, w, K, OC);
    if (from_dcol)   /* wflip[c, oc·k² + j] = w[oc, c·k² + k² − 1 − j] */
        for (int c = 0; c < C; c++)
            for (int oc = 0; oc < OC; oc++)
                for (int q = 0; q < kk; q++)
                    j.c.wflip[((size_t)c * OC + oc) * kk + q] =
                        w[((size_t)oc * C + c) * kk + kk - 1 - q];
    int chunks = (B + CS_NN_CONV_CHUNK - 1) / CS_NN_CONV_CHUNK;
    cs_par_for(chunks, convk_backward_chunk, &j);
    sum_partials(j.c.partial, (size_t)OC * C * kk, chunks);
    const float *t = j.c.partial;
    for (int oc = 0; oc < OC; oc++)
        for (int c = 0; c < C; c++)
            for (int q = 0; q < kk; q++)
                dw[((size_t)oc * C + c) * kk + q] =
                    from_dcol ? t[((size_t)oc * kk + kk - 1 - q) * C + c]
                              : t[((size_t)c * kk + q) * OC + oc];
}

/* ------------------------------------------------------------------ batch norm */

#define BN_EPS 1e-5
#define BN_MOMENTUM 0.1

/* Σx and Σx·y of one row: eight float lanes, combined in double. */
CS_VEC static void row_sums(const float *restrict x, const float *restrict y, int n, double *sx,
                            double *sxy)
{
    float a[8] = {0}, b[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++) {
            a[k] += x[i + k];
            b[k] += x[i + k] * y[i + k];
        }
    double s = 0, t = 0;
    for (int k = 0; k < 8; k++) {
        s += a[k];
        t += b[k];
    }
    for (; i < n; i++) {
        s += x[i];
        t += (double)x[i] * y[i];
    }
    *sx += s;
    *sxy += t;
}

CS_VEC static void scale_shift(float *restrict y, const float *restrict x, int n, float g,
                               float sh)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i] * g + sh;
}

/* The fused batch norm + ReLU: the same IEEE operations as scale_shift
 * then relu_select, and as relu_select then row_sums / bn_dx, in one pass.
 * Backward recomputes the ReLU's test y = x·g + sh > 0 from the batch norm's
 * input (the forward's very operations), so it reads no extra array. */
CS_VEC static void scale_shift_relu(float *restrict y, const float *restrict x, int n, float g,
                                    float sh)
{
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        v8f v;
        memcpy(&v, x + i, sizeof v);
        v = v * g + sh;
        v = (v8f)((v8i)v & (v > (v8f){0}));
        memcpy(y + i, &v, sizeof v);
    }
    for (; i < n; i++) {
        float v = x[i] * g + sh;
        y[i] = v > 0.0f ? v : 0.0f;
    }
}

/* d[i..i+8) where x·g + sh > 0, else 0 (the ReLU's mask); x[i..i+8) in *X */
static inline __attribute__((always_inline)) v8f relu_masked8(const float *d, const float *x,
                                                              int i, float g, float sh, v8f *X)
{
    v8f D;
    memcpy(&D, d + i, sizeof D);
    memcpy(X, x + i, sizeof *X);
    return (v8f)((v8i)D & (*X * g + sh > (v8f){0}));
}

/* row_sums(d masked, x): d_i where x_i·g + sh > 0, else 0 */
CS_VEC static void row_sums_relu(const float *restrict d, const float *restrict x, int n, float g,
                                 float sh, double *sd, double *sdx)
{
    v8f a = {0}, b = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        v8f X, D = relu_masked8(d, x, i, g, sh, &X);
        a += D;
        b += D * X;
    }
    double s = 0, t = 0;
    for (int k = 0; k < 8; k++) {
        s += a[k];
        t += b[k];
    }
    for (; i < n; i++) {
        float dm = x[i] * g + sh > 0.0f ? d[i] : 0.0f;
        s += dm;
        t += (double)dm * x[i];
    }
    *sd += s;
    *sdx += t;
}

/* y = max(x·g + sh + s, 0): scale_shift, add_rows and relu_select's
 * operations in their order, one pass */
CS_VEC static void scale_shift_add_relu(float *restrict y, const float *restrict x,
                                        const float *restrict s, int n, float g, float sh)
{
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        v8f v, S;
        memcpy(&v, x + i, sizeof v);
        memcpy(&S, s + i, sizeof S);
        v = v * g + sh;
        v = v + S;
        v = (v8f)((v8i)v & (v > (v8f){0}));
        memcpy(y + i, &v, sizeof v);
    }
    for (; i < n; i++) {
        float v = x[i] * g + sh;
        v = v + s[i];
        y[i] = v > 0.0f ? v : 0.0f;
    }
}

/* The backward of ReLU(· + shortcut) before a batch norm: dres = (d + e)
 * where r > 0, else 0 (e: a pending shortcut gradient, the axpy's d + 1·e,
 * or none), and row_sums(dres, x). dres may be d or e (element by element). */
CS_VEC static void row_sums_mask(float *dres, const float *d, const float *e,
                                 const float *restrict r, const float *restrict x, int n,
                                 double *sd, double *sdx)
{
    v8f a = {0}, b = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        v8f D, R, X;
        memcpy(&D, d + i, sizeof D);
        if (e) {
            v8f E;
            memcpy(&E, e + i, sizeof E);
            D = D + E;
        }
        memcpy(&R, r + i, sizeof R);
        memcpy(&X, x + i, sizeof X);
        D = (v8f)((v8i)D & (R > (v8f){0}));
        memcpy(dres + i, &D, sizeof D);
        a += D;
        b += D * X;
    }
    double s = 0, t = 0;
    for (int k = 0; k < 8; k++) {
        s += a[k];
        t += b[k];
    }
    for (; i < n; i++) {
        float dv = e ? d[i] + e[i] : d[i];
        float dm = r[i] > 0.0f ? dv : 0.0f;
        dres[i] = dm;
        s += dm;
        t += (double)dm * x[i];
    }
    *sd += s;
    *sdx += t;
}

/* One task per channel: its sums run over the batch in image order, as on
 * one thread. */
typedef struct bn_job {
    float *out, *mean, *rstd, *run_mean, *run_var, *dinp, *dgamma, *dbeta, *dres;
    const float *inp, *dout, *gamma, *beta, *cmean, *crstd, *sc, *dadd, *rout;
    int B, C, HW, train, relu;
    int H, W, SC, SH, SW;   /* the residual's shapes (bn_add_relu_forward) */
} bn_job;

/* Channel c of max(bn(x) + shortcut(sc), 0): residual_forward_image's
 * shortcut (the identity, or option A: sampled pixels, channels padded) */
static void bn_add_relu_channel(const bn_job *j, int c, float g, float sh)
{
    int B = j->B, C = j->C, HW = j->HW;
    int ident = j->SC == C && j->SH == j->H && j->SW == j->W;
    int q = c - (C - j->SC) / 2, sy = j->SH / j->H, sx = j->SW / j->W;
    for (int b = 0; b < B; b++) {
        size_t o = ((size_t)b * C + c) * HW;
        if (ident) {
            scale_shift_add_relu(j->out + o, j->inp + o, j->sc + o, HW, g, sh);
            continue;
        }
        if (q < 0 || q >= j->SC) {   /* no shortcut here: as scale_shift_relu */
            scale_shift_relu(j->out + o, j->inp + o, HW, g, sh);
            continue;
        }
        const float *s = j->sc + ((size_t)b * j->SC + q) * j->SH * j->SW;
        float row[64];   /* the sampled shortcut pixels of a row, 64 at a time */
        for (int y = 0; y < j->H; y++)
            for (int x0 = 0; x0 < j->W; x0 += 64) {
                int n = j->W - x0 < 64 ? j->W - x0 : 64;
                const float *sr = s + ((size_t)y * sy) * j->SW + (size_t)x0 * sx;
                for (int x = 0; x < n; x++)
                    row[x] = sr[(size_t)x * sx];
                size_t p = o + (size_t)y * j->W + x0;
                scale_shift_add_relu(j->out + p, j->inp + p, row, n, g, sh);
            }
    }
}

static void bn_forward_channel(void *ctx, int c, int worker)
{
    (void)worker;
    const bn_job *j = ctx;
    int B = j->B, C = j->C, HW = j->HW;
    float mu, rs;
    if (j->train) {
        double s = 0, s2 = 0;
        for (int b = 0; b < B; b++) {
            const float *x = j->inp + ((size_t)b * C + c) * HW;
            row_sums(x, x, HW, &s, &s2);
        }
        double n = (double)B * HW, m = s / n;
        double var = s2 / n - m * m;
        if (var < 0)
            var = 0;
        mu = (float)m;
        rs = (float)(1.0 / sqrt(var + BN_EPS));
        j->mean[c] = mu;
        j->rstd[c] = rs;
        j->run_mean[c] = (float)((1 - BN_MOMENTUM) * j->run_mean[c] + BN_MOMENTUM * m);
        j->run_var[c] = (float)((1 - BN_MOMENTUM) * j->run_var[c] +
                                BN_MOMENTUM * (n > 1 ? var * n / (n - 1) : var));
    } else {
        mu = j->run_mean[c];
        rs = (float)(1.0 / sqrt((double)j->run_var[c] + BN_EPS));
    }
    float g = j->gamma[c] * rs, sh = j->beta[c] - mu * g;
    if (j->sc) {
        bn_add_relu_channel(j, c, g, sh);
        return;
    }
    for (int b = 0; b < B; b++) {
        size_t o = ((size_t)b * C + c) * HW;
        if (j->relu)
            scale_shift_relu(j->out + o, j->inp + o, HW, g, sh);
        else
            scale_shift(j->out + o, j->inp + o, HW, g, sh);
    }
}

static void bn_forward(float *out, const float *inp, const float *gamma, const float *beta,
                       float *mean, float *rstd, float *run_mean, float *run_var, int B, int C,
                       int HW, int train)
{
    bn_job j = {.out = out, .inp = inp, .gamma = gamma, .beta = beta, .mean = mean,
                .rstd = rstd, .run_mean = run_mean, .run_var = run_var, .B = B, .C = C,
                .HW = HW, .train = train};
    cs_par_for(C, bn_forward_channel, &j);
}

static void bn_relu_forward(float *out, const float *inp, const float *gamma, const float *beta,
                            float *mean, float *rstd, float *run_mean, float *run_var, int B,
                            int C, int HW, int train)
{
    bn_job j = {.out = out, .inp = inp, .gamma = gamma, .beta = beta, .mean = mean,
                .rstd = rstd, .run_mean = run_mean, .run_var = run_var, .B = B, .C = C,
                .HW = HW, .train = train, .relu = 1};
    cs_par_for(C, bn_forward_channel, &j);
}

CS_VEC static void bn_dx(float *restrict dx, const float *restrict d, const float *restrict x,
                         int n, float g, float a, float mu, float rs, float bq)
{
    for (int i = 0; i < n; i++)
        dx[i] = g * (d[i] - a - (x[i] - mu) * rs * bq);
}

/* bn_dx of d masked as in row_sums_relu (g = γ·rstd is also the mask's scale) */
CS_VEC static void bn_dx_relu(float *restrict dx, const float *restrict d,
                              const float *restrict x, int n, float g, float a, float mu, float rs,
                              float bq, float sh)
{
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        v8f X, D = relu_masked8(d, x, i, g, sh, &X);
        v8f R = g * (D - a - (X - mu) * rs * bq);
        memcpy(dx + i, &R, sizeof R);
    }
    for (; i < n; i++) {
        float dm = x[i] * g + sh > 0.0f ? d[i] : 0.0f;
        dx[i] = g * (dm - a - (x[i] - mu) * rs * bq);
    }
}

static void bn_backward_channel(void *ctx, int c, int worker)
{
    (void)worker;
    const bn_job *j = ctx;
    int B = j->B, C = j->C, HW = j->HW;
    double sd = 0, sdx = 0;
    float mu = j->cmean[c], rs = j->crstd[c];
    float gs = j->gamma[c] * rs, sh = j->relu ? j->beta[c] - mu * gs : 0.0f;   /* the forward's */
    const float *dsrc = j->dres ? j->dres : j->dout;   /* what bn_dx reads */
    for (int b = 0; b < B; b++) {
        size_t o = ((size_t)b * C + c) * HW;
        if (j->dres)
            row_sums_mask(j->dres + o, j->dout + o, j->dadd ? j->dadd + o : NULL, j->rout + o,
                          j->inp + o, HW, &sd, &sdx);
        else if (j->relu)
            row_sums_relu(j->dout + o, j->inp + o, HW, gs, sh, &sd, &sdx);
        else
            row_sums(j->dout + o, j->inp + o, HW, &sd, &sdx);
    }
    sdx = rs * (sdx - (double)mu * sd);   /* Σ d·(x − μ)·rstd */
    j->dgamma[c] = (float)sdx;
    j->dbeta[c] = (float)sd;
    if (!j->dinp)
        return;
    double n = (double)B * HW;
    float a = (float)(sd / n), bq = (float)(sdx / n), g = j->gamma[c] * rs;
    for (int b = 0; b < B; b++) {
        size_t o = ((size_t)b * C + c) * HW;
        if (j->relu)
            bn_dx_relu(j->dinp + o, j->dout + o, j->inp + o, HW, g, a, mu, rs, bq, sh);
        else
            bn_dx(j->dinp + o, dsrc + o, j->inp + o, HW, g, a, mu, rs, bq);
    }
}

static void bn_backward(float *dinp, float *dgamma, float *dbeta, const float *dout,
                        const float *inp, const float *gamma, const float *mean,
                        const float *rstd, int B, int C, int HW)
{
    bn_job j = {.dinp = dinp, .dgamma = dgamma, .dbeta = dbeta, .dout = dout, .inp = inp,
                .gamma = gamma, .cmean = mean, .crstd = rstd, .B = B, .C = C, .HW = HW};
    cs_par_for(C, bn_backward_channel, &j);
}

static void bn_relu_backward(float *dinp, float *dgamma, float *dbeta, const float *dout,
                             const float *out, const float *inp, const float *gamma,
                             const float *beta, const float *mean, const float *rstd, int B,
                             int C, int HW)
{
    (void)out;   /* out > 0 ⇔ inp·g + sh > 0, recomputed */
    bn_job j = {.dinp = dinp, .dgamma = dgamma, .dbeta = dbeta, .dout = dout, .inp = inp,
                .gamma = gamma, .beta = beta, .cmean = mean, .crstd = rstd, .B = B, .C = C,
                .HW = HW, .relu = 1};
    cs_par_for(C, bn_backward_channel, &j);
}

static void bn_add_relu_forward(float *out, const float *inp, const float *sc,
                                const float *gamma, const float *beta, float *mean, float *rstd,
                                float *run_mean, float *run_var, int B, int C, int H, int W,
                                int SC, int SH, int SW, int train)
{
    bn_job j = {.out = out, .inp = inp, .sc = sc, .gamma = gamma, .beta = beta, .mean = mean,
                .rstd = rstd, .run_mean = run_mean, .run_var = run_var, .B = B, .C = C,
                .HW = H * W, .train = train, .H = H, .W = W, .SC = SC, .SH = SH, .SW = SW};
    cs_par_for(C, bn_forward_channel, &j);
}

static void bn_add_relu_backward(float *dinp, float *dgamma, float *dbeta, float *dres,
                                 const float *dout, const float *dadd, const float *out,
                                 const float *inp, const float *gamma, const float *mean,
                                 const float *rstd, int B, int C, int HW)
{
    bn_job j = {.dinp = dinp, .dgamma = dgamma, .dbeta = dbeta, .dres = dres, .dout = dout,
                .dadd = dadd, .rout = out, .inp = inp, .gamma = gamma, .cmean = mean,
                .crstd = rstd, .B = B, .C = C, .HW = HW};
    cs_par_for(C, bn_backward_channel, &j);
}

/* ------------------------------------------------------------------ activations, pooling */

/* dst = test > 0 ? val : 0, as an 8-lane select (at -O2 GCC leaves this loop
 * scalar; the branchy form mispredicted on every other unit and cost 8% of an
 * mlp epoch). Only dst is written, and it overlaps neither input. */
CS_VEC static void relu_select(float *restrict dst, const float *restrict val,
                               const float *restrict test, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        v8f v, t;
        memcpy(&v, val + i, sizeof v);
        memcpy(&t, test + i, sizeof t);
        v8i keep = t > (v8f){0};
        v = (v8f)((v8i)v & keep);
        memcpy(dst + i, &v, sizeof v);
    }
    for (; i < n; i++)
        dst[i] = test[i] > 0.0f ? val[i] : 0.0f;
}

/* Elementwise ops in fixed blocks of ELEM_BLOCK elements (a multiple of
 * the vector width), one task each. */
#define ELEM_BLOCK 16384

static int elem_tasks(size_t n) { return (int)((n + ELEM_BLOCK - 1) / ELEM_BLOCK); }

static size_t elem_len(size_t n, int t)
{
    size_t o = (size_t)t * ELEM_BLOCK;
    return n - o < ELEM_BLOCK ? n - o : ELEM_BLOCK;
}

typedef struct relu_job {
    float *dst;
    const float *val, *test;
    size_t n;
} relu_job;

static void relu_block(void *ctx, int t, int worker)
{
    (void)worker;
    const relu_job *j = ctx;
    size_t o = (size_t)t * ELEM_BLOCK;
    relu_select(j->dst + o, j->val + o, j->test + o, elem_len(j->n, t));
}

static void relu_forward(float *out, const float *inp, size_t n)
{
    relu_job j = {out, inp, inp, n};
    cs_par_for(elem_tasks(n), relu_block, &j);
}

static void relu_backward(float *dinp, const float *dout, const float *out, size_t n)
{
    relu_job j = {dinp, dout, out, n};
    cs_par_for(elem_tasks(n), relu_block, &j);
}

/* one task per image */
typedef struct pool_job {
    float *out, *dinp;
    int32_t *idx;
    const int32_t *cidx;
    const float *inp, *dout;
    int C, H, W;
} pool_job;

/* m, k = v, i where v > m (blends: GCC's C has no vector ?:) */
#define POOL_TAKE(m, k, v, i)                                                               \
    do {                                                                                    \
        v8i gt_ = (v) > (m);                                                                \
        (m) = (v8f)(((v8i)(v) & gt_) | ((v8i)(m) & ~gt_));                                  \
        (k) = ((v8i){i, i, i, i, i, i, i, i} & gt_) | ((k) & ~gt_);                         \
    } while (0)

/* One row of 2×2 windows (rows r0, r1 of the input): the maximum and its
 * index in the window (0, 1 top; 2, 3 bottom), the first of equals: the
 * values compared in that order with >, eight windows at a time (the
 * branchy loop mispredicted on every other window). */
CS_VEC static void pool_row(float *restrict y, int32_t *restrict ix, const float *restrict r0,
                            const float *restrict r1, int OW)
{
    int ox = 0;
    for (; ox + 8 <= OW; ox += 8) {
        v8f t0, t1, b0, b1;
        memcpy(&t0, r0 + 2 * ox, sizeof t0);
        memcpy(&t1, r0 + 2 * ox + 8, sizeof t1);
        memcpy(&b0, r1 + 2 * ox, sizeof b0);
        memcpy(&b1, r1 + 2 * ox + 8, sizeof b1);
        v8f m = v8f_even(t0, t1);
        v8i k = {0};
        POOL_TAKE(m, k, v8f_odd(t0, t1), 1);
        POOL_TAKE(m, k, v8f_even(b0, b1), 2);
        POOL_TAKE(m, k, v8f_odd(b0, b1), 3);
        memcpy(y + ox, &m, sizeof m);
        memcpy(ix + ox, &k, sizeof k);
    }
    for (; ox < OW; ox++) {
        float v[4] = {r0[2 * ox], r0[2 * ox + 1], r1[2 * ox], r1[2 * ox + 1]};
        int k = 0;
        k = v[1] > v[k] ? 1 : k;
        k = v[2] > v[k] ? 2 : k;
        k = v[3] > v[k] ? 3 : k;
        y[ox] = v[k];
        ix[ox] = k;
    }
}
#undef POOL_TAKE

static void maxpool_forward_image(void *ctx, int b, int worker)
{
    (void)worker;
    const pool_job *j = ctx;
    int H = j->H, W = j->W, OH = H / 2, OW = W / 2;
    for (size_t bc = (size_t)b * j->C; bc < (size_t)(b + 1) * j->C; bc++) {
        const float *x = j->inp + bc * H * W;
        for (int oy = 0; oy < OH; oy++)
            pool_row(j->out + (bc * OH + oy) * OW, j->idx + (bc * OH + oy) * OW,
                     x + (size_t)(2 * oy) * W, x + (size_t)(2 * oy + 1) * W, OW);
    }
}

static void maxpool_forward(float *out, int32_t *idx, const float *inp, int B, int C, int H,
                            int W)
{
    pool_job j = {.out = out, .idx = idx, .inp = inp, .C = C, .H = H, .W = W};
    cs_par_for(B, maxpool_forward_image, &j);
}

static void maxpool_backward_image(void *ctx, int b, int worker)
{
    (void)worker;
    const pool_job *j = ctx;
    int H = j->H, W = j->W, OH = H / 2, OW = W / 2;
    memset(j->dinp + (size_t)b * j->C * H * W, 0, (size_t)j->C * H * W * sizeof(float));
    for (size_t bc = (size_t)b * j->C; bc < (size_t)(b + 1) * j->C; bc++) {
        float *dx = j->dinp + bc * H * W;
        const float *dy = j->dout + bc * OH * OW;
        const int32_t *ix = j->cidx + bc * OH * OW;
        for (int oy = 0; oy < OH; oy++)
            for (int ox = 0; ox < OW; ox++) {
                int k = ix[oy * OW + ox];
                dx[(size_t)(2 * oy + (k >> 1)) * W + 2 * ox + (k & 1)] = dy[oy * OW + ox];
            }
    }
}

static void maxpool_backward(float *dinp, const float *dout, const int32_t *idx, int B, int C,
                             int H, int W)
{
    pool_job j = {.dinp = dinp, .dout = dout, .cidx = idx, .C = C, .H = H, .W = W};
    cs_par_for(B, maxpool_backward_image, &j);
}

/* ------------------------------------------------------------------ residual, average pooling */

typedef struct res_job {
    float *out;
    const float *inp, *sc;
    int C, H, W, SC, SH, SW;
} res_job;

/* out = a + b (at -O2 GCC left the loop scalar: out might alias) */
CS_VEC static void add_rows(float *restrict out, const float *restrict a, const float *restrict b,
                            size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = a[i] + b[i];
}

/* one image: out = inp + shortcut(sc) */
static void residual_forward_image(void *ctx, int b, int worker)
{
    (void)worker;
    const res_job *j = ctx;
    size_t HW = (size_t)j->H * j->W, n = (size_t)j->C * HW;
    float *out = j->out + (size_t)b * n;
    const float *in = j->inp + (size_t)b * n;
    if (j->SC == j->C && j->SH == j->H && j->SW == j->W) {
        add_rows(out, in, j->sc + (size_t)b * n, n);
        return;
    }
    int cp = (j->C - j->SC) / 2, sy = j->SH / j->H, sx = j->SW / j->W;
    const float *sc = j->sc + (size_t)b * j->SC * j->SH * j->SW;
    for (int c = 0; c < j->C; c++) {
        int q = c - cp;
        for (int y = 0; y < j->H; y++)
            for (int x = 0; x < j->W; x++) {
                size_t o = (size_t)c * HW + (size_t)y * j->W + x;
                out[o] = q >= 0 && q < j->SC
                             ? in[o] + sc[((size_t)q * j->SH + (size_t)y * sy) * j->SW + x * sx]
                             : in[o];
            }
    }
}

static void residual_forward(float *out, const float *inp, const float *sc, int B, int C, int H,
                             int W, int SC, int SH, int SW)
{
    res_job j = {.out = out, .inp = inp, .sc = sc, .C = C, .H = H, .W = W, .SC = SC, .SH = SH,
                 .SW = SW};
    cs_par_for(B, residual_forward_image, &j);
}

/* one image: dsc = shortcutᵀ(dout) */
static void residual_backward_image(void *ctx, int b, int worker)
{
    (void)worker;
    const res_job *j = ctx;
    size_t HW = (size_t)j->H * j->W, sn = (size_t)j->SC * j->SH * j->SW;
    const float *dout = j->inp + (size_t)b * j->C * HW;
    float *dsc = j->out + (size_t)b * sn;
    if (j->SC == j->C && j->SH == j->H && j->SW == j->W) {
        memcpy(dsc, dout, sn * sizeof *dsc);
        return;
    }
    int cp = (j->C - j->SC) / 2, sy = j->SH / j->H, sx = j->SW / j->W;
    memset(dsc, 0, sn * sizeof *dsc);
    for (int q = 0; q < j->SC; q++)
        for (int y = 0; y < j->H; y++)
            for (int x = 0; x < j->W; x++)
                dsc[((size_t)q * j->SH + (size_t)y * sy) * j->SW + x * sx] =
                    dout[(size_t)(q + cp) * HW + (size_t)y * j->W + x];
}

static void residual_backward(float *dsc, const float *dout, int B, int C, int H, int W, int SC,
                              int SH, int SW)
{
    res_job j = {.out = dsc, .inp = dout, .C = C, .H = H, .W = W, .SC = SC, .SH = SH, .SW = SW};
    cs_par_for(B, residual_backward_image, &j);
}

typedef struct gap_job {
    float *out;
    const float *inp;
    int C, HW;
} gap_job;

/* one image: the means of its channels, summed in double */
static void avgpool_forward_image(void *ctx, int b, int worker)
{
    (void)worker;
    const gap_job *j = ctx;
    for (int c = 0; c < j->C; c++) {
        const float *x = j->inp + ((size_t)b * j->C + c) * j->HW;
        double s = 0;
        for (int i = 0; i < j->HW; i++)
            s += x[i];
        j->out[(size_t)b * j->C + c] = (float)(s / j->HW);
    }
}

static void avgpool_forward(float *out, const float *inp, int B, int C, int HW)
{
    gap_job j = {.out = out, .inp = inp, .C = C, .HW = HW};
    cs_par_for(B, avgpool_forward_image, &j);
}

static void avgpool_backward_image(void *ctx, int b, int worker)
{
    (void)worker;
    const gap_job *j = ctx;
    for (int c = 0; c < j->C; c++) {
        float *dx = j->out + ((size_t)b * j->C + c) * j->HW;
        float g = j->inp[(size_t)b * j->C + c] / (float)j->HW;
        for (int i = 0; i < j->HW; i++)
            dx[i] = g;
    }
}

static void avgpool_backward(float *dinp, const float *dout, int B, int C, int HW)
{
    gap_job j = {.out = dinp, .inp = dout, .C = C, .HW = HW};
    cs_par_for(B, avgpool_backward_image, &j);
}

/* ------------------------------------------------------------------ loss */

static void softmax_ce_forward(float *probs, float *losses, const float *logits,
                               const int32_t *labels, int B, int K)
{
    for (int b = 0; b < B; b++) {
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
}

static void softmax_ce_backward(float *dlogits, const float *probs, const int32_t *labels, int B,
                                int K)
{
    float inv = 1.0f / (float)B;
    for (int b = 0; b < B; b++) {
        const float *p = probs + (size_t)b * K;
        float *d = dlogits + (size_t)b * K;
        for (int k = 0; k < K; k++)
            d[k] = (p[k] - (k == labels[b] ? 1.0f : 0.0f)) * inv;
    }
}

/* ------------------------------------------------------------------ optimizer */

#define ADAM_TINY 1e-30f

/* One Adam element; the AVX2 path below performs the same IEEE operations
 * in the same order (no FMA contraction in C11 mode), so both agree bit
 * for bit. Tiny moments are flushed to 0 (denormals are slow). */
static inline float adam_one(float *p, float g, float *m, float *v, float lr, float beta1,
                             float beta2, float eps, float c1, float c2)
{
    float mi = beta1 * *m + (1.0f - beta1) * g;
    float vi = beta2 * *v + (1.0f - beta2) * (g * g);
    mi = fabsf(mi) < ADAM_TINY ? 0.0f : mi;
    vi = vi < ADAM_TINY ? 0.0f : vi;
    *m = mi;
    *v = vi;
    return *p - lr * (mi / c1) / (sqrtf(vi / c2) + eps);
}

#ifdef CS_HAVE_AVX2_PATH
__attribute__((target("avx2"))) static size_t adam_avx2(float *p, const float *g, float *m,
                                                         float *v, size_t n, float lr,
                                                         float beta1, float beta2, float eps,
                                                         float c1, float c2)
{
    const __m256 b1 = _mm256_set1_ps(beta1), b1c = _mm256_set1_ps(1.0f - beta1);
    const __m256 b2 = _mm256_set1_ps(beta2), b2c = _mm256_set1_ps(1.0f - beta2);
    const __m256 vlr = _mm256_set1_ps(lr), ve = _mm256_set1_ps(eps);
    const __m256 vc1 = _mm256_set1_ps(c1), vc2 = _mm256_set1_ps(c2);
    const __m256 tiny = _mm256_set1_ps(ADAM_TINY), zero = _mm256_setzero_ps();
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 gi = _mm256_loadu_ps(g + i);
        __m256 mi = _mm256_add_ps(_mm256_mul_ps(b1, _mm256_loadu_ps(m + i)),
                                  _mm256_mul_ps(b1c, gi));
        __m256 vi = _mm256_add_ps(_mm256_mul_ps(b2, _mm256_loadu_ps(v + i)),
                                  _mm256_mul_ps(b2c, _mm256_mul_ps(gi, gi)));
        mi = _mm256_blendv_ps(mi, zero,
                              _mm256_cmp_ps(_mm256_and_ps(mi, absmask), tiny, _CMP_LT_OQ));
        vi = _mm256_blendv_ps(vi, zero, _mm256_cmp_ps(vi, tiny, _CMP_LT_OQ));
        _mm256_storeu_ps(m + i, mi);
        _mm256_storeu_ps(v + i, vi);
        __m256 den = _mm256_add_ps(_mm256_sqrt_ps(_mm256_div_ps(vi, vc2)), ve);
        __m256 step = _mm256_div_ps(_mm256_mul_ps(vlr, _mm256_div_ps(mi, vc1)), den);
        _mm256_storeu_ps(p + i, _mm256_sub_ps(_mm256_loadu_ps(p + i), step));
    }
    return i;
}
#endif

typedef struct adam_job {
    float *p, *m, *v;
    const float *g;
    size_t n;
    float lr, beta1, beta2, eps, c1, c2;
} adam_job;

static void adam_block(void *ctx, int t, int worker)
{
    (void)worker;
    const adam_job *j = ctx;
    size_t o = (size_t)t * ELEM_BLOCK, n = elem_len(j->n, t), i = 0;
    float *p = j->p + o, *m = j->m + o, *v = j->v + o;
    const float *g = j->g + o;
#ifdef CS_HAVE_AVX2_PATH
    if (__builtin_cpu_supports("avx2"))
        i = adam_avx2(p, g, m, v, n, j->lr, j->beta1, j->beta2, j->eps, j->c1, j->c2);
#endif
    for (; i < n; i++)
        p[i] = adam_one(&p[i], g[i], &m[i], &v[i], j->lr, j->beta1, j->beta2, j->eps, j->c1,
                        j->c2);
}

static void adam_update(float *p, const float *g, float *m, float *v, size_t n, float lr,
                        float beta1, float beta2, float eps, int t)
{
    adam_job j = {.p = p, .g = g, .m = m, .v = v, .n = n, .lr = lr, .beta1 = beta1,
                  .beta2 = beta2, .eps = eps, .c1 = 1.0f - powf(beta1, (float)t),
                  .c2 = 1.0f - powf(beta2, (float)t)};
    cs_par_for(elem_tasks(n), adam_block, &j);
}

/* ------------------------------------------------------------------ vectors */

CS_VEC static void axpy(float *y, const float *x, float a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] += a * x[i];
}

const cs_nn_ops cs_nn_cpu_ops = {
    .name = "cpu",
    .alloc = alloc,
    .release = release,
    .upload = upload,
    .download = download,
    .zero = zero,
    .copy = copy,
    .matmul_forward = matmul_forward,
    .matmul_backward = matmul_backward,
    .conv_forward = conv_forward,
    .conv_backward = conv_backward,
    .bn_forward = bn_forward,
    .bn_backward = bn_backward,
    .bn_relu_forward = bn_relu_forward,
    .bn_relu_backward = bn_relu_backward,
    .bn_add_relu_forward = bn_add_relu_forward,
    .bn_add_relu_backward = bn_add_relu_backward,
    .relu_forward = relu_forward,
    .relu_backward = relu_backward,
    .maxpool_forward = maxpool_forward,
    .maxpool_backward = maxpool_backward,
    .softmax_ce_forward = softmax_ce_forward,
    .softmax_ce_backward = softmax_ce_backward,
    .adam_update = adam_update,
    .reg = &cs_nn_cpu_reg_ops,
    .axpy = axpy,
    .watch = &cs_nn_cpu_watch_ops,
    .sync = NULL,
    .convk_forward = convk_forward,
    .convk_backward = convk_backward,
    .residual_forward = residual_forward,
    .residual_backward = residual_backward,
    .avgpool_forward = avgpool_forward,
    .avgpool_backward = avgpool_backward,
};
