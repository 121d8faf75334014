/* nn_quant_math.c — the quantizers of one weight vector (paper sec. 3.4,
 * step 2): pure functions on host memory, a leaf under nn_quant.c (the
 * network's layers) and the CPU backend's watch ops (the same scales). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cs_nn.h"

float cs_quant_binary(const float *w, size_t n, float *q)
{
    if (n == 0)
        return 0.0f;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += fabs((double)w[i]);
    float alpha = (float)(s / (double)n);
    if (q)
        for (size_t i = 0; i < n; i++)
            q[i] = w[i] < 0.0f ? -alpha : alpha;
    return alpha;
}

static inline uint32_t abs_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u & 0x7fffffffu;
}

static inline float from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The bit patterns of |w_i| in decreasing order into out: non-negative
 * floats order as their bits, so counting passes over the bytes of ~bits
 * (ascending; one pass counts all four bytes, a byte every key shares is
 * skipped) give the order a comparison sort gives, in O(n). tmp holds n
 * words. */
static void abs_sort_desc(const float *w, size_t n, uint32_t *out, uint32_t *tmp)
{
    size_t cnt[4][256] = {{0}};
    for (size_t i = 0; i < n; i++) {
        uint32_t k = ~abs_bits(w[i]);
        out[i] = k;
        for (int b = 0; b < 4; b++)
            cnt[b][(k >> (8 * b)) & 255u]++;
    }
    uint32_t *src = out, *dst = tmp;
    for (int b = 0; b < 4 && n > 0; b++) {
        size_t *c = cnt[b];
        if (c[(src[0] >> (8 * b)) & 255u] == n)
            continue;
        size_t pos = 0;
        for (int v = 0; v < 256; v++) {
            size_t m = c[v];
            c[v] = pos;
            pos += m;
        }
        for (size_t i = 0; i < n; i++)
            dst[c[(src[i] >> (8 * b)) & 255u]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = ~src[i];
}

float cs_quant_ternary(const float *w, size_t n, float *q, float *tau, float *scratch)
{
    *tau = 0.0f;
    if (n == 0)
        return 0.0f;
    /* malloc'd words (the caller's scratch is too: its floats are not read) */
    uint32_t *a = scratch ? (uint32_t *)(void *)scratch : malloc(2 * n * sizeof *a);
    if (!a)
        return -1.0f;
    abs_sort_desc(w, n, a, a + n);
    /* τ = a[k] keeps every |w_i| >= a[k]: the prefix through the last tie. */
    double best = -1, prefix = 0, best_sum = 0;
    size_t best_k = 0;
    for (size_t k = 0; k < n; k++) {
        prefix += from_bits(a[k]);
        if (k + 1 < n && a[k + 1] == a[k])
            continue;
        double obj = prefix * prefix / (double)(k + 1);
        if (obj > best) {
            best = obj;
            best_k = k + 1;
            best_sum = prefix;
        }
    }
    float t = from_bits(a[best_k - 1]);
    float alpha = (float)(best_sum / (double)best_k);
    if (!scratch)
        free(a);
    if (alpha == 0.0f)
        t = INFINITY;   /* w = 0: everything maps to 0 */
    *tau = t;
    if (q)
        for (size_t i = 0; i < n; i++)
            q[i] = fabsf(w[i]) >= t ? (w[i] < 0.0f ? -alpha : alpha) : 0.0f;
    return alpha;
}
