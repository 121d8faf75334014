/* cs_simd.h — the hot loops of the solvers come in a generic and an AVX2
 * version (same source, compiled twice); which one runs is decided once, at
 * run time, from the CPU. */
#ifndef CS_SIMD_H
#define CS_SIMD_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
#define CS_AVX2_CLONE 1
#define CS_AVX2_FN __attribute__((target("avx2")))
/* the clone of loops that use vfma: run it where cs_cpu_avx2_fma() */
#define CS_AVX2_FMA_FN __attribute__((target("avx2,fma")))
#endif

/* 1 when this CPU runs AVX2 code; cached after the first call. */
int cs_cpu_avx2(void);
/* 1 when it runs AVX2 and FMA code. */
int cs_cpu_avx2_fma(void);
/* 1 when it also runs AVX-512F code (SLEEF's 8-wide functions, vmath.c). */
int cs_cpu_avx512f(void);

/* The loops are written once on 4-wide double vectors (GCC vector
 * extensions); these helpers are always inlined, so they take the ISA of the
 * function they are used in (the AVX2 clone or the baseline one). */
#include <math.h>
#include <string.h>

typedef double v4d __attribute__((vector_size(32)));
typedef long long v4l __attribute__((vector_size(32)));
#define CS_AI static inline __attribute__((always_inline))
CS_AI v4d ld4(const double *p)
{
    v4d v;
    memcpy(&v, p, sizeof v);
    return v;
}
CS_AI void st4(double *p, v4d v) { memcpy(p, &v, sizeof v); }
CS_AI v4d splat(double a) { return (v4d){a, a, a, a}; }
CS_AI v4d z4(void) { return (v4d){0, 0, 0, 0}; }
/* (v0 + v2) + (v1 + v3): the one summation order of every 4-wide reduction */
CS_AI double hsum(v4d v) { return (v[0] + v[2]) + (v[1] + v[3]); }
/* a where m, else b (m from a comparison) */
CS_AI v4d vsel(v4l m, v4d a, v4d b) { return (v4d)(((v4l)a & m) | ((v4l)b & ~m)); }
/* sign(v): 1, -1, or 0 for ±0 and NaN */
CS_AI v4d vsgn(v4d v)
{
    v4d z = z4();
    return vsel(v > z, splat(1.0), vsel(v < z, splat(-1.0), z));
}
/* a·b + c with one rounding, lane by lane: one vector instruction in a
 * function compiled for FMA (CS_AVX2_FMA_FN), libm's fma elsewhere */
CS_AI v4d vfma(v4d a, v4d b, v4d c)
{
    v4d r;
    for (int i = 0; i < 4; i++)
        r[i] = __builtin_fma(a[i], b[i], c[i]);
    return r;
}
CS_AI v4d vabs(v4d v)
{
    return (v4d)((v4l)v & (v4l){0x7fffffffffffffffLL, 0x7fffffffffffffffLL,
                                0x7fffffffffffffffLL, 0x7fffffffffffffffLL});
}

/* The two proximal maps entry by entry (proj.c's prox functions and DR's
 * fused step use these, so both give the same bits): clip to [lo, hi] (NaN
 * passes through) and soft thresholding sign(v)·max(|v| − t, 0). */
CS_AI v4d vclip(v4d v, v4d lo, v4d hi)
{
    v4l mh = v > hi, ml = v < lo;
    return (v4d)(((v4l)v & ~(mh | ml)) | ((v4l)hi & mh) | ((v4l)lo & ml));
}
CS_AI double clip1(double v, double lo, double hi) { return v > hi ? hi : (v < lo ? lo : v); }
CS_AI v4d vsoft(v4d v, v4d t)
{
    v4d m = vabs(v) - t, zero = {0, 0, 0, 0};
    v4l sign = (v4l)v & (v4l)splat(-0.0);
    return (v4d)(((v4l)m | sign) & (m > zero));
}
CS_AI double soft1(double v, double t)
{
    double m = fabs(v) - t;
    return m > 0.0 ? copysign(m, v) : 0.0;
}

#endif
