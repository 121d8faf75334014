/* nn_util.c — see nn_util.h. */
#include "nn_util.h"

#include <math.h>

const cs_nn_ops *cpu = &cs_nn_cpu_ops;

void fill(float *x, size_t n, cs_rng *r, double sd)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(sd * cs_rng_normal(r));
}

/* max |a-b| / max(max|b|, floor) */
double rel_err(const float *a, const float *b, size_t n, double floor)
{
    double e = 0, m = floor;
    for (size_t i = 0; i < n; i++) {
        if (fabs((double)a[i] - b[i]) > e)
            e = fabs((double)a[i] - b[i]);
        if (fabs((double)b[i]) > m)
            m = fabs((double)b[i]);
    }
    return e / m;
}
