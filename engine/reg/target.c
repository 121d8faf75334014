/* target.c — how far a point is from a regularizer's target set. */
#include "cs_reg.h"

#include <math.h>
#include <stdlib.h>

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* max over k of (sum of the k largest v)² / k, v sorted in place: the most
 * of ‖v‖² that k entries at a common level a (their mean) can explain. */
static double best_prefix(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_desc);
    double best = 0.0, prefix = 0.0;
    for (size_t k = 0; k < n; k++) {
        prefix += v[k];
        double gain = prefix > 0 ? prefix * prefix / (double)(k + 1) : 0.0;
        if (gain > best)
            best = gain;
    }
    return best;
}

double cs_target_distance(cs_target_family family, const double *x, size_t n)
{
    double xx = 0.0, s1 = 0.0;
    for (size_t i = 0; i < n; i++) {
        xx += x[i] * x[i];
        s1 += fabs(x[i]);
    }
    if (n == 0 || !isfinite(xx))
        return NAN;
    double d2;
    switch (family) {
    case CS_TARGET_BIN:
        d2 = xx - s1 * s1 / (double)n;   /* a = mean |x| */
        break;
    case CS_TARGET_OSB:
    case CS_TARGET_TER: {
        double *v = malloc(n * sizeof *v);
        if (!v)
            return NAN;
        for (size_t i = 0; i < n; i++)
            v[i] = family == CS_TARGET_TER ? fabs(x[i]) : x[i];
        d2 = xx - best_prefix(v, n);
        free(v);
        break;
    }
    default:
        return NAN;
    }
    if (xx == 0.0)
        return 0.0;
    return sqrt(fmax(d2, 0.0) / xx);
}
