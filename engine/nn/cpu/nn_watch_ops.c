/* cpu/nn_watch_ops.c — the CPU backend's ops for watching a run
 * (nn_watch.c) and for the histograms of `hist`: the reference for
 * engine/nn/cuda/nn_watch_ops.cu, which has the same functions in the same
 * order. Exact: counts for the edges lo + (hi − lo)·k/bins, the scales of
 * the quantizers themselves (cs_quant_binary, cs_quant_ternary), the
 * readiness decided in double (a float pass settles all but borderline
 * rows). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_nn.h"
#include "nn_backend.h"
#include "nn_cpu.h"

/* ------------------------------------------------------------------ histograms */

/* The bins of x[0..8): k[i] >= 0 where the float quotient decides
 * (nn_hist_bin's fast path, eight at a time), -1 outside [lo, hi], -2
 * where nn_hist_bin must look at the edges. */
CS_VEC static void hist_bins8(int32_t *restrict k, const float *restrict x, float lo, float hi,
                              int bins, float finv)
{
    float margin = 1e-5f * (float)bins;
    v8f X, L = {lo, lo, lo, lo, lo, lo, lo, lo}, H = {hi, hi, hi, hi, hi, hi, hi, hi};
    v8f F = {finv, finv, finv, finv, finv, finv, finv, finv};
    v8f M0 = {margin, margin, margin, margin, margin, margin, margin, margin};
    v8f M1 = 1 - M0;
    v8i NB = {bins, bins, bins, bins, bins, bins, bins, bins};
    memcpy(&X, x, sizeof X);
    v8i in = (X >= L) & (X <= H);
    v8f q = (X - L) * F;
    v8i K = __builtin_convertvector(q, v8i);
    v8f f = q - __builtin_convertvector(K, v8f);
    v8i sure = in & (K < NB) & (f > M0) & (f < M1);
    v8i out = (v8i){-1, -1, -1, -1, -1, -1, -1, -1} & ~in;
    v8i res = (K & sure) | ((v8i){-2, -2, -2, -2, -2, -2, -2, -2} & in & ~sure) | out;
    memcpy(k, &res, sizeof res);
}

/* Eight interleaved sub-counts (when the bins fit on the stack): weights
 * cluster, and one counter bumped again and again waits on its own store. */
static void hist(uint32_t *counts, const float *x, size_t n, float lo, float hi, int bins)
{
    enum { SPLIT = 8, STACK_BINS = 512 };
    uint32_t sub[SPLIT][STACK_BINS];
    int split = bins <= STACK_BINS ? SPLIT : 1;
    memset(counts, 0, (size_t)bins * sizeof *counts);
    if (split > 1)
        memset(sub, 0, sizeof sub[0] * SPLIT);
    float finv = (float)(bins / ((double)hi - lo));
    int32_t k[8];
    for (size_t i = 0; i < n; i += 8) {
        size_t m = n - i < 8 ? n - i : 8;
        if (m == 8) {
            hist_bins8(k, x + i, lo, hi, bins, finv);
        } else {
            for (size_t j = 0; j < m; j++)
                k[j] = x[i + j] >= lo && x[i + j] <= hi ? -2 : -1;
        }
        for (size_t j = 0; j < m; j++) {
            int b = k[j];
            if (b == -1)
                continue;
            if (b == -2)
                b = nn_hist_bin(x[i + j], lo, hi, bins, finv);
            if (split > 1)
                sub[j % SPLIT][b]++;
            else
                counts[b]++;
        }
    }
    for (int s = 0; s < SPLIT && split > 1; s++)
        for (int b = 0; b < bins; b++)
            counts[b] += sub[s][b];
}

/* ------------------------------------------------------------------ scales, readiness, signs */

/* The quantizers themselves (nn_quant_math.c), one row at a time. */
static void row_abs_mean(float *alpha, const float *w, int rows, int cols)
{
    for (int r = 0; r < rows; r++)
        alpha[r] = cs_quant_binary(w + (size_t)r * cols, (size_t)cols, NULL);
}

static void row_ternary(float *alpha, float *tau, const float *w, int rows, int cols)
{
    float *scratch = malloc(2 * (size_t)cols * sizeof *scratch);
    for (int r = 0; r < rows; r++)   /* without scratch, each row allocates its own */
        alpha[r] = cs_quant_ternary(w + (size_t)r * cols, (size_t)cols, NULL, &tau[r], scratch);
    free(scratch);
}

/* The distance of |x| to the nearest level (α, and 0 when ternary) within
 * 0.01·α, decided in double as in nn_quant.c; a float pass counts the sure
 * ones and the few within a relative 1e-4 of the bound (float's error is
 * 1e-7), and only a row with such borderline weights is counted again in
 * double. */
CS_VEC static void near_float(const float *restrict x, int n, float a, int ternary, uint32_t *sure,
                              uint32_t *border)
{
    float lo = 0.01f * a * (1 - 1e-4f), hi = 0.01f * a * (1 + 1e-4f);
    const v8i absmask = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff,
                         0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff};
    const v8f A = {a, a, a, a, a, a, a, a}, LO = {lo, lo, lo, lo, lo, lo, lo, lo},
              HI = {hi, hi, hi, hi, hi, hi, hi, hi};
    v8i S = {0}, B = {0};
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        v8f X;
        memcpy(&X, x + j, sizeof X);
        v8f ax = (v8f)((v8i)X & absmask), d = (v8f)((v8i)(ax - A) & absmask);
        if (ternary) {
            v8i m = ax < d;
            d = (v8f)(((v8i)ax & m) | ((v8i)d & ~m));
        }
        S -= d <= LO;
        B -= (d > LO) & (d <= HI);
    }
    uint32_t s = 0, b = 0;
    for (int k = 0; k < 8; k++) {
        s += (uint32_t)S[k];
        b += (uint32_t)B[k];
    }
    for (; j < n; j++) {
        float ax = fabsf(x[j]), d = fabsf(ax - a);
        if (ternary && ax < d)
            d = ax;
        s += d <= lo;
        b += d > lo && d <= hi;
    }
    *sure = s;
    *border = b;
}

static void near_count(uint32_t *near, const float *w, const float *alpha, int rows, int cols,
                       int ternary)
{
    for (int r = 0; r < rows; r++) {
        const float *x = w + (size_t)r * cols;
        uint32_t sure, border;
        near_float(x, cols, alpha[r], ternary, &sure, &border);
        if (!border) {
            near[r] = sure;
            continue;
        }
        double a = alpha[r], tol = 0.01 * a;
        uint32_t c = 0;
        for (int j = 0; j < cols; j++) {
            double ax = fabs((double)x[j]), d = fabs(ax - a);
            if (ternary && ax < d)
                d = ax;
            c += d <= tol;
        }
        near[r] = c;
    }
}

/* bit i of the word: x_i < 0 (false for -0 and NaN) */
#ifdef CS_HAVE_AVX2_PATH
__attribute__((target("avx2"))) static uint32_t sign_word_avx2(const float *v)
{
    const __m256 zero = _mm256_setzero_ps();
    uint32_t b = 0;
    for (int k = 0; k < 4; k++)
        b |= (uint32_t)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(v + 8 * k), zero,
                                                        _CMP_LT_OQ))
             << (8 * k);
    return b;
}
#endif

static uint32_t sign_word(const float *v, size_t m)
{
#ifdef CS_HAVE_AVX2_PATH
    if (m == 32 && __builtin_cpu_supports("avx2"))
        return sign_word_avx2(v);
#endif
    uint32_t b = 0;
    for (size_t i = 0; i < m; i++)
        b |= (uint32_t)(v[i] < 0.0f) << i;
    return b;
}

static void sign_flips(uint32_t *flips, uint32_t *bits, const float *x, size_t n)
{
    uint32_t f = 0;
    for (size_t k = 0; 32 * k < n; k++) {
        uint32_t b = sign_word(x + 32 * k, n - 32 * k < 32 ? n - 32 * k : 32);
        f += (uint32_t)__builtin_popcount(b ^ bits[k]);
        bits[k] = b;
    }
    *flips = f;
}

const cs_nn_watch_ops cs_nn_cpu_watch_ops = {
    .hist = hist,
    .row_abs_mean = row_abs_mean,
    .row_ternary = row_ternary,
    .near_count = near_count,
    .sign_flips = sign_flips,
};
