/* cpu/nn_ops.c — the CPU backend of the network code: the reference for
 * engine/nn/cuda/nn_ops.cu, which has the same functions in the same order.
 * Matrix products go to OpenBLAS sgemm (convolutions through im2col, one
 * image at a time); the rest are plain loops. Sums that decide a value
 * (batch-norm statistics, regularizer sums) are accumulated in double. */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn_backend.h"
#include "nn_cpu.h"


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

static void matmul_forward(float *out, const float *inp, const float *w, const float *bias, int B,
                           int C, int OC)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, OC, C, 1.0f, inp, C, w, C, 0.0f, out,
                OC);
    if (bias)
        for (int b = 0; b < B; b++) {
            float *o = out + (size_t)b * OC;
            for (int j = 0; j < OC; j++)
                o[j] += bias[j];
        }
}

static void matmul_backward(float *dinp, float *dw, float *dbias, const float *dout,
                            const float *inp, const float *w, int B, int C, int OC)
{
    if (dinp)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, C, OC, 1.0f, dout, OC, w, C,
                    0.0f, dinp, C);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, OC, C, B, 1.0f, dout, OC, inp, C, 0.0f,
                dw, C);
    if (dbias) {
        memset(dbias, 0, (size_t)OC * sizeof *dbias);
        for (int b = 0; b < B; b++) {
            const float *d = dout + (size_t)b * OC;
            for (int j = 0; j < OC; j++)
                dbias[j] += d[j];
        }
    }
}

/* ------------------------------------------------------------------ convolution */

/* col[(c·9 + ky·3 + kx)·HW + y·W + x] = inp[c, y+ky−1, x+kx−1] (0 outside).
 * Each row of a shifted plane is a memcpy of the valid span plus zeros. */
static void im2col(float *col, size_t ld, const float *inp, int C, int H, int W)
{
    size_t HW = (size_t)H * W;
    for (int c = 0; c < C; c++)
        for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
                float *dst = col + ((size_t)c * 9 + ky * 3 + kx) * ld;
                const float *src = inp + (size_t)c * HW;
                int dx = kx - 1, x0 = dx < 0 ? 1 : 0, x1 = dx > 0 ? W - 1 : W;
                for (int y = 0; y < H; y++) {
                    int sy = y + ky - 1;
                    float *d = dst + (size_t)y * W;
                    if (sy < 0 || sy >= H) {
                        memset(d, 0, (size_t)W * sizeof *d);
                        continue;
                    }
                    if (x0)
                        d[0] = 0.0f;
                    if (x1 < W)
                        d[W - 1] = 0.0f;
                    memcpy(d + x0, src + (size_t)sy * W + x0 + dx, (size_t)(x1 - x0) * sizeof *d);
                }
            }
}

/* inp += col2im(col) */
CS_VEC static void col2im(float *restrict inp, const float *restrict col, size_t ld, int C, int H,
                          int W)
{
    size_t HW = (size_t)H * W;
    for (int c = 0; c < C; c++)
        for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
                const float *src = col + ((size_t)c * 9 + ky * 3 + kx) * ld;
                float *dst = inp + (size_t)c * HW;
                int dx = kx - 1, x0 = dx < 0 ? 1 : 0, x1 = dx > 0 ? W - 1 : W;
                for (int y = 0; y < H; y++) {
                    int sy = y + ky - 1;
                    if (sy < 0 || sy >= H)
                        continue;
                    const float *s = src + (size_t)y * W;
                    float *d = dst + (size_t)sy * W + dx;
                    for (int x = x0; x < x1; x++)
                        d[x] += s[x];
                }
            }
}

/* One image at a time: its K × HW im2col block stays in L2 and the
 * OC × HW product is already the image's NCHW output, so nothing is copied
 * (one sgemm over the whole batch streamed ~60 MB through memory per layer
 * and spent as long in copies as in sgemm). scratch holds K·HW floats. */
static void conv_forward(float *out, const float *inp, const float *w, float *scratch, int B,
                         int C, int H, int W, int OC)
{
    size_t HW = (size_t)H * W;
    int K = C * 9;
    for (int b = 0; b < B; b++) {
        im2col(scratch, HW, inp + (size_t)b * C * HW, C, H, W);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, OC, (int)HW, K, 1.0f, w, K,
                    scratch, (int)HW, 0.0f, out + (size_t)b * OC * HW, (int)HW);
    }
}

static void conv_backward(float *dinp, float *dw, const float *dout, const float *inp,
                          const float *w, float *scratch, int B, int C, int H, int W, int OC)
{
    size_t HW = (size_t)H * W;
    int K = C * 9;
    for (int b = 0; b < B; b++) {
        const float *db = dout + (size_t)b * OC * HW;
        im2col(scratch, HW, inp + (size_t)b * C * HW, C, H, W);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, OC, K, (int)HW, 1.0f, db, (int)HW,
                    scratch, (int)HW, b ? 1.0f : 0.0f, dw, K);
        if (!dinp)
            continue;
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K, (int)HW, OC, 1.0f, w, K, db,
                    (int)HW, 0.0f, scratch, (int)HW);
        float *di = dinp + (size_t)b * C * HW;
        memset(di, 0, (size_t)C * HW * sizeof *di);
        col2im(di, scratch, HW, C, H, W);
    }
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

static void bn_forward(float *out, const float *inp, const float *gamma, const float *beta,
                       float *mean, float *rstd, float *run_mean, float *run_var, int B, int C,
                       int HW, int train)
{
    for (int c = 0; c < C; c++) {
        float mu, rs;
        if (train) {
            double s = 0, s2 = 0;
            for (int b = 0; b < B; b++) {
                const float *x = inp + ((size_t)b * C + c) * HW;
                row_sums(x, x, HW, &s, &s2);
            }
            double n = (double)B * HW, m = s / n;
            double var = s2 / n - m * m;
            if (var < 0)
                var = 0;
            mu = (float)m;
            rs = (float)(1.0 / sqrt(var + BN_EPS));
            mean[c] = mu;
            rstd[c] = rs;
            run_mean[c] = (float)((1 - BN_MOMENTUM) * run_mean[c] + BN_MOMENTUM * m);
            run_var[c] = (float)((1 - BN_MOMENTUM) * run_var[c] +
                                 BN_MOMENTUM * (n > 1 ? var * n / (n - 1) : var));
        } else {
            mu = run_mean[c];
            rs = (float)(1.0 / sqrt((double)run_var[c] + BN_EPS));
        }
        float g = gamma[c] * rs, sh = beta[c] - mu * g;
        for (int b = 0; b < B; b++)
            scale_shift(out + ((size_t)b * C + c) * HW, inp + ((size_t)b * C + c) * HW, HW, g,
                        sh);
    }
}

CS_VEC static void bn_dx(float *restrict dx, const float *restrict d, const float *restrict x,
                         int n, float g, float a, float mu, float rs, float bq)
{
    for (int i = 0; i < n; i++)
        dx[i] = g * (d[i] - a - (x[i] - mu) * rs * bq);
}

static void bn_backward(float *dinp, float *dgamma, float *dbeta, const float *dout,
                        const float *inp, const float *gamma, const float *mean,
                        const float *rstd, int B, int C, int HW)
{
    for (int c = 0; c < C; c++) {
        double sd = 0, sdx = 0;
        float mu = mean[c], rs = rstd[c];
        for (int b = 0; b < B; b++)
            row_sums(dout + ((size_t)b * C + c) * HW, inp + ((size_t)b * C + c) * HW, HW, &sd,
                     &sdx);
        sdx = rs * (sdx - (double)mu * sd);   /* Σ d·(x − μ)·rstd */
        dgamma[c] = (float)sdx;
        dbeta[c] = (float)sd;
        if (!dinp)
            continue;
        double n = (double)B * HW;
        float a = (float)(sd / n), bq = (float)(sdx / n), g = gamma[c] * rs;
        for (int b = 0; b < B; b++) {
            size_t o = ((size_t)b * C + c) * HW;
            bn_dx(dinp + o, dout + o, inp + o, HW, g, a, mu, rs, bq);
        }
    }
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

static void relu_forward(float *out, const float *inp, size_t n)
{
    relu_select(out, inp, inp, n);
}

static void relu_backward(float *dinp, const float *dout, const float *out, size_t n)
{
    relu_select(dinp, dout, out, n);
}

static void maxpool_forward(float *out, int32_t *idx, const float *inp, int B, int C, int H,
                            int W)
{
    int OH = H / 2, OW = W / 2;
    for (size_t bc = 0; bc < (size_t)B * C; bc++) {
        const float *x = inp + bc * H * W;
        float *y = out + bc * OH * OW;
        int32_t *ix = idx + bc * OH * OW;
        for (int oy = 0; oy < OH; oy++)
            for (int ox = 0; ox < OW; ox++) {
                const float *p = x + (size_t)(2 * oy) * W + 2 * ox;
                float v[4] = {p[0], p[1], p[W], p[W + 1]};
                int k = 0;
                for (int j = 1; j < 4; j++)
                    if (v[j] > v[k])
                        k = j;
                y[oy * OW + ox] = v[k];
                ix[oy * OW + ox] = k;
            }
    }
}

static void maxpool_backward(float *dinp, const float *dout, const int32_t *idx, int B, int C,
                             int H, int W)
{
    int OH = H / 2, OW = W / 2;
    memset(dinp, 0, (size_t)B * C * H * W * sizeof *dinp);
    for (size_t bc = 0; bc < (size_t)B * C; bc++) {
        float *dx = dinp + bc * H * W;
        const float *dy = dout + bc * OH * OW;
        const int32_t *ix = idx + bc * OH * OW;
        for (int oy = 0; oy < OH; oy++)
            for (int ox = 0; ox < OW; ox++) {
                int k = ix[oy * OW + ox];
                dx[(size_t)(2 * oy + (k >> 1)) * W + 2 * ox + (k & 1)] = dy[oy * OW + ox];
            }
    }
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

static void adam_update(float *p, const float *g, float *m, float *v, size_t n, float lr,
                        float beta1, float beta2, float eps, int t)
{
    float c1 = 1.0f - powf(beta1, (float)t), c2 = 1.0f - powf(beta2, (float)t);
    size_t i = 0;
#ifdef CS_HAVE_AVX2_PATH
    if (__builtin_cpu_supports("avx2"))
        i = adam_avx2(p, g, m, v, n, lr, beta1, beta2, eps, c1, c2);
#endif
    for (; i < n; i++)
        p[i] = adam_one(&p[i], g[i], &m[i], &v[i], lr, beta1, beta2, eps, c1, c2);
}

/* ------------------------------------------------------------------ regularizers */

/* Σx², Σx³, Σx⁴, Σx⁶ of one row in double, two sets of four-lane partial sums
 * (the adds' latency, not the loads, bounds the loop): the polynomial
 * regularizers' only reduction, and it must not dominate an epoch. Only the
 * powers a regularizer uses are summed (bin: x², x⁴; osb: x², x³, x⁴; ter:
 * x², x⁴, x⁶); each sum's order is the same in every variant and in both
 * builds. Named accumulators, not an array: GCC kept an indexed s[h][k] in
 * memory and every add waited on a store. */

/* lanes[k] = the two sets of partial sums of power k added; reduces them and
 * adds the elements from i on */
static inline __attribute__((always_inline)) void
pow_sums_finish(const double lanes[4][4], const float *x, int i, int n, double out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = (lanes[k][0] + lanes[k][1]) + (lanes[k][2] + lanes[k][3]);
    for (; i < n; i++) {
        double a = x[i], a2 = a * a;
        out[0] += a2;
        out[1] += a2 * a;
        out[2] += a2 * a2;
        out[3] += a2 * a2 * a2;
    }
}

typedef double v4d __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
static void pow_sums_generic(const float *x, int n, int use3, int use6, double out[4])
{
    v4d p2 = {0}, p3 = {0}, p4 = {0}, p6 = {0}, q2 = {0}, q3 = {0}, q4 = {0}, q6 = {0};
    int i = 0;
#define POW_SUMS_HALF(S, OFF)                                                                  \
    do {                                                                                       \
        v4f f;                                                                                 \
        memcpy(&f, x + i + (OFF), sizeof f);                                                   \
        v4d a = __builtin_convertvector(f, v4d), a2 = a * a, a4 = a2 * a2;                     \
        S##2 += a2;                                                                            \
        if (use3)                                                                              \
            S##3 += a2 * a;                                                                    \
        S##4 += a4;                                                                            \
        if (use6)                                                                              \
            S##6 += a4 * a2;                                                                   \
    } while (0)
    for (; i + 8 <= n; i += 8) {
        POW_SUMS_HALF(p, 0);
        POW_SUMS_HALF(q, 4);
    }
#undef POW_SUMS_HALF
    v4d t[4] = {p2 + q2, p3 + q3, p4 + q4, p6 + q6};
    double lanes[4][4];
    memcpy(lanes, t, sizeof lanes);
    pow_sums_finish(lanes, x, i, n, out);
}

#ifdef CS_HAVE_AVX2_PATH
/* The same with intrinsics, inlined with constant flags: GCC 12 converts a v4f
 * to v4d as two halves and an insert, twice the loop's uops; vcvtps2pd ymm
 * takes the four floats from memory in one. */
static inline __attribute__((always_inline, target("avx2"))) void
pow_sums_avx2_body(const float *x, int n, int use3, int use6, double out[4])
{
    __m256d p2 = _mm256_setzero_pd(), p3 = p2, p4 = p2, p6 = p2, q2 = p2, q3 = p2, q4 = p2, q6 = p2;
    int i = 0;
#define POW_SUMS_HALF(S, OFF)                                                                  \
    do {                                                                                       \
        __m256d a = _mm256_cvtps_pd(_mm_loadu_ps(x + i + (OFF))), a2 = _mm256_mul_pd(a, a);    \
        __m256d a4 = _mm256_mul_pd(a2, a2);                                                    \
        S##2 = _mm256_add_pd(S##2, a2);                                                        \
        if (use3)                                                                              \
            S##3 = _mm256_add_pd(S##3, _mm256_mul_pd(a2, a));                                  \
        S##4 = _mm256_add_pd(S##4, a4);                                                        \
        if (use6)                                                                              \
            S##6 = _mm256_add_pd(S##6, _mm256_mul_pd(a4, a2));                                 \
    } while (0)
    for (; i + 8 <= n; i += 8) {
        POW_SUMS_HALF(p, 0);
        POW_SUMS_HALF(q, 4);
    }
#undef POW_SUMS_HALF
    double lanes[4][4];
    _mm256_storeu_pd(lanes[0], _mm256_add_pd(p2, q2));
    _mm256_storeu_pd(lanes[1], _mm256_add_pd(p3, q3));
    _mm256_storeu_pd(lanes[2], _mm256_add_pd(p4, q4));
    _mm256_storeu_pd(lanes[3], _mm256_add_pd(p6, q6));
    pow_sums_finish((const double(*)[4])lanes, x, i, n, out);
}

__attribute__((target("avx2"))) static void pow_sums_avx2(const float *x, int n, int use3,
                                                          int use6, double out[4])
{
    if (use3)
        pow_sums_avx2_body(x, n, 1, 0, out);
    else if (use6)
        pow_sums_avx2_body(x, n, 0, 1, out);
    else
        pow_sums_avx2_body(x, n, 0, 0, out);
}
#endif

static void pow_sums(const float *x, int n, int kind, double out[4])
{
    int use3 = kind == CS_NN_REGK_OSB, use6 = kind == CS_NN_REGK_TER;
#ifdef CS_HAVE_AVX2_PATH
    if (__builtin_cpu_supports("avx2")) {
        pow_sums_avx2(x, n, use3, use6, out);
        return;
    }
#endif
    pow_sums_generic(x, n, use3, use6, out);
}

/* The polynomial regularizers' gradient rows: g += x·(b·x² − c) (bin),
 * x·(a + x·(b·x − c)) (osb), x·(a + q·(b·q − c)) with q = x² (ter). */
#define POLY_GRAD_LOOP(EXPR)                                                                \
    do {                                                                                    \
        int i = 0;                                                                          \
        for (; i + 8 <= n; i += 8) {                                                        \
            v8f X, G;                                                                       \
            memcpy(&X, x + i, sizeof X);                                                    \
            memcpy(&G, g + i, sizeof G);                                                    \
            G += (EXPR);                                                                    \
            memcpy(g + i, &G, sizeof G);                                                    \
        }                                                                                   \
        for (; i < n; i++) {                                                                \
            float X = x[i];                                                                 \
            g[i] += (EXPR);                                                                 \
        }                                                                                   \
    } while (0)

CS_VEC static void poly_grad(float *restrict g, const float *restrict x, int n, int kind,
                             float a, float b, float c)
{
    if (kind == CS_NN_REGK_BIN)
        POLY_GRAD_LOOP(X * (b * X * X - c));
    else if (kind == CS_NN_REGK_OSB)
        POLY_GRAD_LOOP(X * (a + X * (b * X - c)));
    else
        POLY_GRAD_LOOP(X * (a + (X * X) * (b * (X * X) - c)));
}

static void reg_rows(float *dw, double *val, const float *w, int rows, int cols, int kind,
                     float scale)
{
    double N = cols;
    for (int r = 0; r < rows; r++) {
        const float *x = w + (size_t)r * cols;
        float *g = dw + (size_t)r * cols;
        double s1 = 0, s2 = 0, s3 = 0, s4 = 0, s6 = 0;
        switch (kind) {
        case CS_NN_REGK_BIN:
        case CS_NN_REGK_OSB:
        case CS_NN_REGK_TER: {
            double p[4];
            pow_sums(x, cols, kind, p);
            s2 = p[0], s3 = p[1], s4 = p[2], s6 = p[3];
            break;
        }
        case CS_NN_REGK_BBIN:
            for (int i = 0; i < cols; i++) {
                double u = 1.0 / (1.0 + (double)x[i] * x[i]);
                s1 += u;
                s2 += u * u;
            }
            break;
        case CS_NN_REGK_BINEXP:
            for (int i = 0; i < cols; i++) {
                double e = exp(-(double)x[i] * x[i]);
                s1 += e;
                s2 += e * e;
            }
            break;
        default: /* l2l1, l2l1h */
            for (int i = 0; i < cols; i++) {
                s1 += fabs((double)x[i]);
                s2 += (double)x[i] * x[i];
            }
            break;
        }
        switch (kind) {
        case CS_NN_REGK_BIN: {
            val[r] = N * s4 - s2 * s2;
            float a = (float)(4 * N) * scale, c = (float)(4 * s2) * scale;
            poly_grad(g, x, cols, kind, 0.0f, a, c);
            break;
        }
        case CS_NN_REGK_OSB: {
            val[r] = s2 * s4 - s3 * s3;
            float a = (float)(2 * s4) * scale, b = (float)(4 * s2) * scale,
                  c = (float)(6 * s3) * scale;
            poly_grad(g, x, cols, kind, a, b, c);
            break;
        }
        case CS_NN_REGK_TER: {
            val[r] = s2 * s6 - s4 * s4;
            float a = (float)(2 * s6) * scale, b = (float)(6 * s2) * scale,
                  c = (float)(8 * s4) * scale;
            poly_grad(g, x, cols, kind, a, b, c);
            break;
        }
        case CS_NN_REGK_BBIN: {
            val[r] = N * s2 - s1 * s1;
            for (int i = 0; i < cols; i++) {
                float u = 1.0f / (1.0f + x[i] * x[i]);
                float du = -2.0f * x[i] * u * u;
                g[i] += scale * du * (2.0f * (float)N * u - 2.0f * (float)s1);
            }
            break;
        }
        case CS_NN_REGK_BINEXP: {
            val[r] = N * s2 - s1 * s1;
            for (int i = 0; i < cols; i++) {
                float e = expf(-x[i] * x[i]);
                g[i] += scale * -4.0f * x[i] * e * ((float)N * e - (float)s1);
            }
            break;
        }
        case CS_NN_REGK_L2L1: {
            val[r] = N * s2 - s1 * s1;
            float a = (float)(2 * N) * scale, c = (float)(2 * s1) * scale;
            for (int i = 0; i < cols; i++)
                g[i] += a * x[i] - c * (float)((x[i] > 0) - (x[i] < 0));
            break;
        }
        case CS_NN_REGK_L2L1H: {
            double nrm = sqrt(s2);
            val[r] = sqrt(N) * nrm - s1;
            float a = nrm > 0 ? (float)(sqrt(N) / nrm) * scale : 0.0f;
            for (int i = 0; i < cols; i++)
                g[i] += a * x[i] - scale * (float)((x[i] > 0) - (x[i] < 0));
            break;
        }
        default:
            val[r] = 0;
            break;
        }
    }
}

/* ------------------------------------------------------------------ quantized weights */

CS_VEC static void quant_apply(float *w, const float *sign, const float *alpha, int rows, int cols)
{
    for (int r = 0; r < rows; r++)
        for (int i = 0; i < cols; i++)
            w[(size_t)r * cols + i] = alpha[r] * sign[(size_t)r * cols + i];
}

static void quant_scale_grad(float *dalpha, const float *dw, const float *sign, int rows,
                             int cols)
{
    for (int r = 0; r < rows; r++) {
        double s = 0;
        for (int i = 0; i < cols; i++)
            s += (double)dw[(size_t)r * cols + i] * sign[(size_t)r * cols + i];
        dalpha[r] = (float)s;
    }
}

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
    .relu_forward = relu_forward,
    .relu_backward = relu_backward,
    .maxpool_forward = maxpool_forward,
    .maxpool_backward = maxpool_backward,
    .softmax_ce_forward = softmax_ce_forward,
    .softmax_ce_backward = softmax_ce_backward,
    .adam_update = adam_update,
    .reg_rows = reg_rows,
    .quant_apply = quant_apply,
    .quant_scale_grad = quant_scale_grad,
    .axpy = axpy,
    .watch = &cs_nn_cpu_watch_ops,
    .sync = NULL,
};
