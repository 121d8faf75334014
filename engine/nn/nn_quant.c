/* nn_quant.c — the quantizers of one weight vector (paper sec. 3.4, step 2)
 * and exact histogram counts. Pure functions on host memory. */
#include <math.h>
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

static int cmp_desc(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x < y) - (x > y);
}

float cs_quant_ternary(const float *w, size_t n, float *q, float *tau, float *scratch)
{
    *tau = 0.0f;
    if (n == 0)
        return 0.0f;
    float *a = scratch ? scratch : malloc(n * sizeof *a);
    if (!a)
        return -1.0f;
    for (size_t i = 0; i < n; i++)
        a[i] = fabsf(w[i]);
    qsort(a, n, sizeof *a, cmp_desc);
    /* τ = a[k] keeps every |w_i| >= a[k]: the prefix through the last tie. */
    double best = -1, prefix = 0, best_sum = 0;
    size_t best_k = 0;
    for (size_t k = 0; k < n; k++) {
        prefix += a[k];
        if (k + 1 < n && a[k + 1] == a[k])
            continue;
        double obj = prefix * prefix / (double)(k + 1);
        if (obj > best) {
            best = obj;
            best_k = k + 1;
            best_sum = prefix;
        }
    }
    float t = a[best_k - 1];
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

void cs_nn_hist_counts(const float *x, size_t n, const double *edges, size_t nbins,
                       uint64_t *counts)
{
    memset(counts, 0, nbins * sizeof *counts);
    if (nbins == 0)
        return;
    double lo = edges[0], hi = edges[nbins];
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        if (!(v >= lo && v <= hi))
            continue;
        /* last edge <= v: binary search */
        size_t a = 0, b = nbins;   /* edges[a] <= v, answer in [a, b) */
        while (b - a > 1) {
            size_t m = (a + b) / 2;
            if (edges[m] <= v)
                a = m;
            else
                b = m;
        }
        counts[a]++;
    }
}
