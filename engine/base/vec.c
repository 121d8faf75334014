/* vec.c — vector helpers of the hot loops (cs_vec.h). */
#include "cs_vec.h"

#include "cs_simd.h"

/* ‖x − x*‖² */
CS_AI double dist2_body(const double *restrict x, const double *restrict y, size_t n)
{
    v4d a0 = {0, 0, 0, 0}, a1 = a0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        v4d d = ld4(x + i) - ld4(y + i), e = ld4(x + i + 4) - ld4(y + i + 4);
        a0 += d * d;
        a1 += e * e;
    }
    double s = hsum(a0 + a1);
    for (; i < n; i++)
        s += (x[i] - y[i]) * (x[i] - y[i]);
    return s;
}

#ifdef CS_AVX2_CLONE
static CS_AVX2_FN double dist2_avx2(const double *x, const double *y, size_t n)
{
    return dist2_body(x, y, n);
}
#endif
static double dist2_base(const double *x, const double *y, size_t n)
{
    return dist2_body(x, y, n);
}

double cs_vec_dist2(const double *x, const double *y, size_t n)
{
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2())
        return dist2_avx2(x, y, n);
#endif
    return dist2_base(x, y, n);
}
