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

/* g·0 is 0 for every finite g and NaN otherwise: no branch per entry;
 * four sums over blocks of 16, so the additions overlap */
CS_AI int finite_body(const double *x, size_t n)
{
    v4d b0 = z4(), b1 = b0, b2 = b0, b3 = b0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        b0 += ld4(x + i) * 0.0;
        b1 += ld4(x + i + 4) * 0.0;
        b2 += ld4(x + i + 8) * 0.0;
        b3 += ld4(x + i + 12) * 0.0;
    }
    for (; i + 4 <= n; i += 4)
        b0 += ld4(x + i) * 0.0;
    double b = hsum((b0 + b1) + (b2 + b3));
    for (; i < n; i++)
        b += x[i] * 0.0;
    return b == 0.0;
}

#ifdef CS_AVX2_CLONE
static CS_AVX2_FN int finite_avx2(const double *x, size_t n) { return finite_body(x, n); }
#endif
static int finite_base(const double *x, size_t n) { return finite_body(x, n); }

int cs_vec_finite(const double *x, size_t n)
{
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2())
        return finite_avx2(x, n);
#endif
    return finite_base(x, n);
}

/* max |x_i| (NaN entries are passed over); the same in any order. Four
 * running maxima over blocks of 16: the compare-and-blend chains overlap. */
CS_AI v4d vmax_nan(v4d a, v4d m) { return vsel(a > m, a, m); }
CS_AI double maxabs_body(const double *x, size_t n)
{
    v4d m0 = z4(), m1 = m0, m2 = m0, m3 = m0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        m0 = vmax_nan(vabs(ld4(x + i)), m0);
        m1 = vmax_nan(vabs(ld4(x + i + 4)), m1);
        m2 = vmax_nan(vabs(ld4(x + i + 8)), m2);
        m3 = vmax_nan(vabs(ld4(x + i + 12)), m3);
    }
    for (; i + 4 <= n; i += 4)
        m0 = vmax_nan(vabs(ld4(x + i)), m0);
    m0 = vmax_nan(vmax_nan(m1, m0), vmax_nan(m3, m2));
    double m = 0.0;
    for (int k = 0; k < 4; k++)
        m = m0[k] > m ? m0[k] : m;
    for (; i < n; i++)
        m = fabs(x[i]) > m ? fabs(x[i]) : m;
    return m;
}

#ifdef CS_AVX2_CLONE
static CS_AVX2_FN double maxabs_avx2(const double *x, size_t n) { return maxabs_body(x, n); }
#endif
static double maxabs_base(const double *x, size_t n) { return maxabs_body(x, n); }

double cs_vec_maxabs(const double *x, size_t n)
{
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2())
        return maxabs_avx2(x, n);
#endif
    return maxabs_base(x, n);
}
