/* vmath.c — SLEEF's vector functions over arrays (vmath.h): the AVX2
 * versions (Sleef_*d4_u10avx2, which need AVX2 and FMA; their AVX-512F
 * twins, the same bits, where the CPU has them) or the baseline ones
 * (Sleef_*d2_u10sse2; scalar Sleef_*_u10 off x86-64), chosen by the caller
 * once per process (cs_cpu_avx2_fma()). */
#include "vmath.h"

#include <math.h>
#include <sleef.h>
#include <stddef.h>
#include <string.h>

#include "cs_simd.h"

/* ------------------------------------------------------------ chunk math
 * SLEEF over a chunk of m entries (m a multiple of 4), dst may be src. One
 * AVX2 version (for the AVX2 build of run_body) and one baseline version. */

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
#define BASE_AVX2 1   /* the whole program is built for AVX2: baseline = AVX2 */
#elif defined(__x86_64__)
#define BASE_SSE2 1
#endif

#define SL_UNARY_AVX2(NAME, F4, ATTR)                                                             \
    static ATTR void NAME(double *dst, const double *src, size_t m)                              \
    {                                                                                             \
        for (size_t i = 0; i < m; i += 4)                                                         \
            _mm256_storeu_pd(dst + i, F4(_mm256_loadu_pd(src + i)));                              \
    }
#define SL_UNARY_SSE2(NAME, F2)                                                                   \
    static void NAME(double *dst, const double *src, size_t m)                                   \
    {                                                                                             \
        for (size_t i = 0; i < m; i += 2)                                                         \
            _mm_storeu_pd(dst + i, F2(_mm_loadu_pd(src + i)));                                    \
    }
#define SL_UNARY_SCALAR(NAME, F1)                                                                 \
    static void NAME(double *dst, const double *src, size_t m)                                   \
    {                                                                                             \
        for (size_t i = 0; i < m; i++)                                                            \
            dst[i] = F1(src[i]);                                                                  \
    }

/* sleef.h declares its AVX2 functions only when the whole file is compiled
 * for AVX; the AVX2 clone needs them in a baseline file: the same
 * declarations as SLEEF 3.5's header, with the clone's target so that the
 * __m256d arguments travel in ymm registers. Clang lowers __m256d arguments
 * by the file's ISA whatever the function's target (it would pass them in
 * memory, which SLEEF does not read): built with clang, the AVX2 clone calls
 * the baseline chunk functions below instead. */
#if defined(CS_AVX2_CLONE) && !defined(__clang__)
#define SLEEF_AVX2_CLONE 1
#if !defined(__AVX__)
CS_AVX2_FN __attribute__((const)) __m256d Sleef_expd4_u10avx2(__m256d);
CS_AVX2_FN __attribute__((const)) __m256d Sleef_logd4_u10avx2(__m256d);
CS_AVX2_FN __attribute__((const)) __m256d Sleef_sind4_u10avx2(__m256d);
CS_AVX2_FN __attribute__((const)) __m256d Sleef_cosd4_u10avx2(__m256d);
CS_AVX2_FN __attribute__((const)) __m256d Sleef_tand4_u10avx2(__m256d);
CS_AVX2_FN __attribute__((const)) __m256d Sleef_tanhd4_u10avx2(__m256d);
CS_AVX2_FN __attribute__((const)) __m256d Sleef_powd4_u10avx2(__m256d, __m256d);
#endif
#endif

#define sqrt4 _mm256_sqrt_pd   /* correctly rounded, like sqrt() */
#define sqrt2 _mm_sqrt_pd

/* pow(a[i], b[i]); a or b NULL: the constant ac or bc */
#define SL_POW(NAME, ATTR, W, VT, LOAD, SET1, STORE, F)                                            \
    static ATTR void NAME(double *dst, const double *a, double ac, const double *b, double bc,  \
                          size_t m)                                                             \
    {                                                                                           \
        VT A = SET1(ac), B = SET1(bc);                                                          \
        for (size_t i = 0; i < m; i += W) {                                                     \
            if (a)                                                                              \
                A = LOAD(a + i);                                                                \
            if (b)                                                                              \
                B = LOAD(b + i);                                                                \
            STORE(dst + i, F(A, B));                                                            \
        }                                                                                       \
    }

#ifdef SLEEF_AVX2_CLONE
SL_UNARY_AVX2(exp_avx2, Sleef_expd4_u10avx2, CS_AVX2_FN)
SL_UNARY_AVX2(log_avx2, Sleef_logd4_u10avx2, CS_AVX2_FN)
SL_UNARY_AVX2(sin_avx2, Sleef_sind4_u10avx2, CS_AVX2_FN)
SL_UNARY_AVX2(cos_avx2, Sleef_cosd4_u10avx2, CS_AVX2_FN)
SL_UNARY_AVX2(tan_avx2, Sleef_tand4_u10avx2, CS_AVX2_FN)
SL_UNARY_AVX2(tanh_avx2, Sleef_tanhd4_u10avx2, CS_AVX2_FN)
SL_UNARY_AVX2(sqrt_avx2, sqrt4, CS_AVX2_FN)
SL_POW(pow_avx2, CS_AVX2_FN, 4, __m256d, _mm256_loadu_pd, _mm256_set1_pd, _mm256_storeu_pd,
       Sleef_powd4_u10avx2)
/* AVX-512F: the same SLEEF algorithm 8 lanes wide, bit for bit the AVX2
 * results (checked over 4M arguments of exp and pow), twice the throughput
 * where the CPU has it; the last 4 of a chunk go through the AVX2 function. */
#define CS_AVX512_FN __attribute__((target("avx512f,avx2,fma")))
#if !defined(__AVX512F__)
CS_AVX512_FN __attribute__((const)) __m512d Sleef_expd8_u10avx512f(__m512d);
CS_AVX512_FN __attribute__((const)) __m512d Sleef_logd8_u10avx512f(__m512d);
CS_AVX512_FN __attribute__((const)) __m512d Sleef_sind8_u10avx512f(__m512d);
CS_AVX512_FN __attribute__((const)) __m512d Sleef_cosd8_u10avx512f(__m512d);
CS_AVX512_FN __attribute__((const)) __m512d Sleef_tand8_u10avx512f(__m512d);
CS_AVX512_FN __attribute__((const)) __m512d Sleef_tanhd8_u10avx512f(__m512d);
CS_AVX512_FN __attribute__((const)) __m512d Sleef_powd8_u10avx512f(__m512d, __m512d);
#endif
#define SL_UNARY_AVX512(NAME, F8, F4)                                                             \
    static CS_AVX512_FN void NAME(double *dst, const double *src, size_t m)                      \
    {                                                                                             \
        size_t i = 0;                                                                             \
        for (; i + 8 <= m; i += 8)                                                                \
            _mm512_storeu_pd(dst + i, F8(_mm512_loadu_pd(src + i)));                              \
        if (i < m)                                                                                \
            _mm256_storeu_pd(dst + i, F4(_mm256_loadu_pd(src + i)));                              \
    }
SL_UNARY_AVX512(exp_avx512, Sleef_expd8_u10avx512f, Sleef_expd4_u10avx2)
SL_UNARY_AVX512(log_avx512, Sleef_logd8_u10avx512f, Sleef_logd4_u10avx2)
SL_UNARY_AVX512(sin_avx512, Sleef_sind8_u10avx512f, Sleef_sind4_u10avx2)
SL_UNARY_AVX512(cos_avx512, Sleef_cosd8_u10avx512f, Sleef_cosd4_u10avx2)
SL_UNARY_AVX512(tan_avx512, Sleef_tand8_u10avx512f, Sleef_tand4_u10avx2)
SL_UNARY_AVX512(tanh_avx512, Sleef_tanhd8_u10avx512f, Sleef_tanhd4_u10avx2)
#define sqrt_avx512 sqrt_avx2
static CS_AVX512_FN void pow_avx512(double *dst, const double *a, double ac, const double *b,
                                    double bc, size_t m)
{
    size_t i = 0;
    __m512d A = _mm512_set1_pd(ac), B = _mm512_set1_pd(bc);
    for (; i + 8 <= m; i += 8) {
        if (a)
            A = _mm512_loadu_pd(a + i);
        if (b)
            B = _mm512_loadu_pd(b + i);
        _mm512_storeu_pd(dst + i, Sleef_powd8_u10avx512f(A, B));
    }
    if (i < m)
        pow_avx2(dst + i, a ? a + i : NULL, ac, b ? b + i : NULL, bc, m - i);
}
#define HAVE_AVX512 1
#elif defined(CS_AVX2_CLONE)
#define exp_avx2 exp_base
#define log_avx2 log_base
#define sin_avx2 sin_base
#define cos_avx2 cos_base
#define tan_avx2 tan_base
#define tanh_avx2 tanh_base
#define sqrt_avx2 sqrt_base
#define pow_avx2 pow_base
#endif

#if defined(BASE_AVX2)
SL_UNARY_AVX2(exp_base, Sleef_expd4_u10avx2, )
SL_UNARY_AVX2(log_base, Sleef_logd4_u10avx2, )
SL_UNARY_AVX2(sin_base, Sleef_sind4_u10avx2, )
SL_UNARY_AVX2(cos_base, Sleef_cosd4_u10avx2, )
SL_UNARY_AVX2(tan_base, Sleef_tand4_u10avx2, )
SL_UNARY_AVX2(tanh_base, Sleef_tanhd4_u10avx2, )
SL_UNARY_AVX2(sqrt_base, sqrt4, )
SL_POW(pow_base, , 4, __m256d, _mm256_loadu_pd, _mm256_set1_pd, _mm256_storeu_pd,
       Sleef_powd4_u10avx2)
#elif defined(BASE_SSE2)
SL_UNARY_SSE2(exp_base, Sleef_expd2_u10sse2)
SL_UNARY_SSE2(log_base, Sleef_logd2_u10sse2)
SL_UNARY_SSE2(sin_base, Sleef_sind2_u10sse2)
SL_UNARY_SSE2(cos_base, Sleef_cosd2_u10sse2)
SL_UNARY_SSE2(tan_base, Sleef_tand2_u10sse2)
SL_UNARY_SSE2(tanh_base, Sleef_tanhd2_u10sse2)
SL_UNARY_SSE2(sqrt_base, sqrt2)
SL_POW(pow_base, , 2, __m128d, _mm_loadu_pd, _mm_set1_pd, _mm_storeu_pd, Sleef_powd2_u10sse2)
#else
SL_UNARY_SCALAR(exp_base, Sleef_exp_u10)
SL_UNARY_SCALAR(log_base, Sleef_log_u10)
SL_UNARY_SCALAR(sin_base, Sleef_sin_u10)
SL_UNARY_SCALAR(cos_base, Sleef_cos_u10)
SL_UNARY_SCALAR(tan_base, Sleef_tan_u10)
SL_UNARY_SCALAR(tanh_base, Sleef_tanh_u10)
SL_UNARY_SCALAR(sqrt_base, sqrt)
static void pow_base(double *dst, const double *a, double ac, const double *b, double bc,
                     size_t m)
{
    for (size_t i = 0; i < m; i++)
        dst[i] = Sleef_pow_u10(a ? a[i] : ac, b ? b[i] : bc);
}
#endif

#ifndef CS_AVX2_CLONE
#define exp_avx2 exp_base
#define log_avx2 log_base
#define sin_avx2 sin_base
#define cos_avx2 cos_base
#define tan_avx2 tan_base
#define tanh_avx2 tanh_base
#define sqrt_avx2 sqrt_base
#define pow_avx2 pow_base
#endif

#ifdef HAVE_AVX512
#define WIDE(avx) ((avx) && cs_cpu_avx512f())
#else
#define WIDE(avx) 0
#define exp_avx512 exp_avx2
#define log_avx512 log_avx2
#define sin_avx512 sin_avx2
#define cos_avx512 cos_avx2
#define tan_avx512 tan_avx2
#define tanh_avx512 tanh_avx2
#define sqrt_avx512 sqrt_avx2
#define pow_avx512 pow_avx2
#endif

#define VM_UNARY(fn)                                                                               \
    void cs_vm_##fn(double *dst, const double *src, size_t m, int avx)                            \
    {                                                                                              \
        if (WIDE(avx))                                                                             \
            fn##_avx512(dst, src, m);                                                              \
        else if (avx)                                                                              \
            fn##_avx2(dst, src, m);                                                                \
        else                                                                                       \
            fn##_base(dst, src, m);                                                                \
    }
VM_UNARY(exp)
VM_UNARY(log)
VM_UNARY(tanh)
VM_UNARY(sqrt)

#undef VM_UNARY
#define VM_UNARY(fn)                                                                               \
    static void fn##_any_lanes(double *dst, const double *src, size_t m, int avx)                \
    {                                                                                              \
        if (WIDE(avx))                                                                             \
            fn##_avx512(dst, src, m);                                                              \
        else if (avx)                                                                              \
            fn##_avx2(dst, src, m);                                                                \
        else                                                                                       \
            fn##_base(dst, src, m);                                                                \
    }
VM_UNARY(sin)
VM_UNARY(cos)
VM_UNARY(tan)

/* SLEEF's sin, cos and tan reduce the argument in one of three ways, for
 * |x| < 15, for |x| < 1e14, else (NaN and Inf too), chosen once per vector
 * by its largest lane: an entry's result would depend on its neighbours
 * (cos(4.4e-8) is 1 ULP off beside a NaN or a 1e15). So every vector holds
 * entries of one range: the whole array when all share one (the usual
 * case), else each range's entries gathered, padded with their last. */
static int trig_range(double x)
{
    double a = fabs(x);
    return a < 15.0 ? 0 : (a < 1e14 ? 1 : 2);
}

typedef void (*lanes_fn)(double *, const double *, size_t, int);

static void by_range(lanes_fn fn, double *dst, const double *src, size_t m, int avx)
{
    size_t same = 0;
    int r0 = m ? trig_range(src[0]) : 0;
    while (same < m && trig_range(src[same]) == r0)
        same++;
    if (same == m) {
        fn(dst, src, m, avx);
        return;
    }
    enum { B = 64 };
    double xin[B], in[B], out[B];
    unsigned char rng[B];
    size_t idx[B];
    for (size_t off = 0; off < m; off += B) {
        size_t b = m - off < B ? m - off : B;
        for (size_t j = 0; j < b; j++) {   /* copied first: dst may be src */
            xin[j] = src[off + j];
            rng[j] = (unsigned char)trig_range(xin[j]);
        }
        for (int r = 0; r < 3; r++) {
            size_t k = 0;
            for (size_t j = 0; j < b; j++)
                if (rng[j] == r) {
                    idx[k] = off + j;
                    in[k++] = xin[j];
                }
            if (!k)
                continue;
            size_t k4 = (k + 3) & ~(size_t)3;
            for (size_t t = k; t < k4; t++)
                in[t] = in[k - 1];
            fn(out, in, k4, avx);
            for (size_t t = 0; t < k; t++)
                dst[idx[t]] = out[t];
        }
    }
}

void cs_vm_sin(double *dst, const double *src, size_t m, int avx)
{
    by_range(sin_any_lanes, dst, src, m, avx);
}

void cs_vm_cos(double *dst, const double *src, size_t m, int avx)
{
    by_range(cos_any_lanes, dst, src, m, avx);
}

void cs_vm_tan(double *dst, const double *src, size_t m, int avx)
{
    by_range(tan_any_lanes, dst, src, m, avx);
}

void cs_vm_pow(double *dst, const double *a, double ac, const double *b, double bc, size_t m,
               int avx)
{
    if (WIDE(avx))
        pow_avx512(dst, a, ac, b, bc, m);
    else if (avx)
        pow_avx2(dst, a, ac, b, bc, m);
    else
        pow_base(dst, a, ac, b, bc, m);
}

void cs_vm_exp_any(double *dst, const double *src, size_t n, int avx)
{
    size_t m = n & ~(size_t)3;
    cs_vm_exp(dst, src, m, avx);
    if (m == n)
        return;
    double pad[4];
    for (size_t i = 0; i < 4; i++)   /* the tail through the same vector code */
        pad[i] = src[m + (i < n - m ? i : n - m - 1)];
    cs_vm_exp(pad, pad, 4, avx);
    memcpy(dst + m, pad, (n - m) * sizeof *pad);
}

void cs_vm_pow_any(double *dst, const double *a, double bc, size_t n, int avx)
{
    size_t m = n & ~(size_t)3;
    cs_vm_pow(dst, a, 0.0, NULL, bc, m, avx);
    if (m == n)
        return;
    double pad[4];
    for (size_t i = 0; i < 4; i++)
        pad[i] = a[m + (i < n - m ? i : n - m - 1)];
    cs_vm_pow(pad, pad, 0.0, NULL, bc, 4, avx);
    memcpy(dst + m, pad, (n - m) * sizeof *pad);
}
