/* expr.c — the expression language of user-defined g and h (cs_expr.h).
 *
 * text --parse--> tree (constant subtrees folded as they are built, spans
 * and homogeneity degree kept per node) --compile--> stack bytecode; each
 * instruction knows its output slot at compile time (binary operations read
 * slots s and s+1 and write s). A slot holds a chunk of 64 values and 64
 * derivatives (forward-mode dual numbers), so the interpreter dispatches once
 * per instruction and chunk, and the loops over the chunk are straight 4-wide
 * vector code without branches on the data. The loops are written once
 * (run_body) and compiled twice, AVX2 and baseline, like the solvers' loops;
 * the transcendentals are SLEEF u10 functions over the chunk, AVX2 ones in
 * the AVX2 build and SSE2 ones in the baseline build.
 *
 * When an output is NaN or Inf, the failing chunk is run again one
 * instruction at a time, following the bad coordinate: the first instruction
 * whose output went non-finite from finite inputs, and whose non-finite value
 * reached the result, names the term (its span of the source text). */
#include "cs_expr.h"
#include "cs_parse.h"
#include "cs_simd.h"

#include <math.h>
#include <sleef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CH 64           /* chunk: entries per slot */
#define MAX_SLOTS 256   /* stack slots (more than the nesting limit allows) */
#define MAX_POWI 64     /* x^k by multiplication for integer |k| <= this */

/* ------------------------------------------------------------ bytecode */

enum {
    OP_X,      /* push x                   (v, d) = (x, 1) */
    OP_C,      /* push c                   (c, 0) */
    OP_NEG,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV,
    OP_ADDC,   /* a + c  (also a - c as a + (-c): the same bits) */
    OP_RSUBC,  /* c - a */
    OP_MULC,   /* c * a */
    OP_DIVC,   /* a / c */
    OP_RDIVC,  /* c / a */
    OP_POWK,   /* a^k, k integer, 2 <= |k| <= 64 or k = -1: multiplications */
    OP_POWC,   /* a^c, c constant: pow(a, c); c2 = c - 1 */
    OP_CPOW,   /* c^a, c constant: pow(c, a); c2 = log(c) */
    OP_POW,    /* a^b: pow(a, b) */
    OP_EXP, OP_LOG, OP_SQRT, OP_ABS, OP_SIN, OP_COS, OP_TAN, OP_TANH, OP_SIGN,
    OP_MIN, OP_MAX,
    OP_COUNT
};

/* operands popped */
static const unsigned char op_arity[OP_COUNT] = {
    [OP_X] = 0,    [OP_C] = 0,     [OP_NEG] = 1,   [OP_ADD] = 2,   [OP_SUB] = 2,
    [OP_MUL] = 2,  [OP_DIV] = 2,   [OP_ADDC] = 1,  [OP_RSUBC] = 1, [OP_MULC] = 1,
    [OP_DIVC] = 1, [OP_RDIVC] = 1, [OP_POWK] = 1,  [OP_POWC] = 1,  [OP_CPOW] = 1,
    [OP_POW] = 2,  [OP_EXP] = 1,   [OP_LOG] = 1,   [OP_SQRT] = 1,  [OP_ABS] = 1,
    [OP_SIN] = 1,  [OP_COS] = 1,   [OP_TAN] = 1,   [OP_TANH] = 1,  [OP_SIGN] = 1,
    [OP_MIN] = 2,  [OP_MAX] = 2,
};

typedef struct ins {
    int op;
    int s;            /* output slot; operands in s (and s+1) */
    int k;            /* OP_POWK exponent */
    double c, c2;     /* constants (see the opcodes) */
    int span0, span1; /* [span0, span1): the term in the source text */
} ins;

struct cs_expr {
    char *text;
    ins *code;
    int ncode;
    int nslots;
    int uses_x;
    double cval;      /* the value when !uses_x */
    int hom;
    double hk;
    int avx;          /* run the AVX2 build (AVX2 and FMA: SLEEF's avx2 functions need both) */
    double *scr;      /* nslots × (values, derivatives), then tmp, then the padded x */
};

/* ------------------------------------------------------------ scalar path */

static double s_powk(double a, int k)
{
    /* a^(|k|-1) by squaring and multiplying, then one more factor a: the
     * same operations, in the same order, as the vector path */
    unsigned u = (unsigned)(k < 0 ? -k : k) - 1;
    double r = 1.0, b = a;
    while (u) {
        if (u & 1)
            r *= b;
        u >>= 1;
        if (u)
            b *= b;
    }
    return r;
}

static double s_sign(double a) { return a > 0 ? 1.0 : (a < 0 ? -1.0 : a + a); }

/* One instruction on scalar slots V[], D[]. */
static void step1(const ins *in, double *V, double *D, double x)
{
    int s = in->s;
    double a = V[s], da = D[s], b = V[s + 1], db = D[s + 1], c = in->c;
    double v, d;
    switch (in->op) {
    case OP_X: v = x; d = 1.0; break;
    case OP_C: v = c; d = 0.0; break;
    case OP_NEG: v = -a; d = -da; break;
    case OP_ADD: v = a + b; d = da + db; break;
    case OP_SUB: v = a - b; d = da - db; break;
    case OP_MUL: v = a * b; d = da * b + a * db; break;
    case OP_DIV: v = a / b; d = (da - v * db) / b; break;
    case OP_ADDC: v = a + c; d = da; break;
    case OP_RSUBC: v = c - a; d = -da; break;
    case OP_MULC: v = c * a; d = c * da; break;
    case OP_DIVC: v = a / c; d = da / c; break;
    case OP_RDIVC: v = c / a; d = -(v / a) * da; break;
    case OP_POWK: {
        double p = s_powk(a, in->k), pa = p * a;
        if (in->k > 0) {
            v = pa;
            d = (in->k * p) * da;
        } else {
            v = 1.0 / pa;
            d = in->k * da / (pa * a);
        }
        break;
    }
    case OP_POWC: v = Sleef_pow_u10(a, c); d = c * Sleef_pow_u10(a, in->c2) * da; break;
    case OP_CPOW: v = Sleef_pow_u10(c, a); d = v * in->c2 * da; break;
    case OP_POW: {
        double l = Sleef_log_u10(a);
        v = Sleef_pow_u10(a, b);
        d = v * (db * l + b * da / a);
        break;
    }
    case OP_EXP: v = Sleef_exp_u10(a); d = v * da; break;
    case OP_LOG: v = Sleef_log_u10(a); d = da / a; break;
    case OP_SQRT: v = sqrt(a); d = da / (v + v); break;
    case OP_ABS: v = fabs(a); d = a > 0 ? da : (a < 0 ? -da : 0.0); break;
    case OP_SIN: v = Sleef_sin_u10(a); d = Sleef_cos_u10(a) * da; break;
    case OP_COS: v = Sleef_cos_u10(a); d = -Sleef_sin_u10(a) * da; break;
    case OP_TAN: v = Sleef_tan_u10(a); d = (1.0 + v * v) * da; break;
    case OP_TANH: v = Sleef_tanh_u10(a); d = (1.0 - v * v) * da; break;
    case OP_SIGN: v = s_sign(a); d = 0.0; break;
    case OP_MIN:
    case OP_MAX: {
        int first = in->op == OP_MIN ? a <= b : a >= b;
        v = (isnan(a) || isnan(b)) ? a + b : (first ? a : b);
        d = first ? da : db;
        break;
    }
    default: v = d = NAN; break;
    }
    V[s] = v;
    D[s] = d;
}

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

/* SL(fn, avx, args): the chunk function of the build run_body is compiled for */
#ifdef CS_AVX2_CLONE
#define SL(fn, avx, ...) ((avx) ? fn##_avx2(__VA_ARGS__) : fn##_base(__VA_ARGS__))
#else
#define SL(fn, avx, ...) fn##_base(__VA_ARGS__)
#endif

/* ------------------------------------------------------------ vector path */

CS_AI v4d vsel(v4l m, v4d a, v4d b) { return (v4d)(((v4l)a & m) | ((v4l)b & ~m)); }

/* a^(|k|-1), as s_powk */
CS_AI v4d vpowk(v4d a, unsigned u)
{
    v4d r = splat(1.0), b = a;
    while (u) {
        if (u & 1)
            r *= b;
        u >>= 1;
        if (u)
            b *= b;
    }
    return r;
}

#define LOOP for (size_t i = 0; i < m; i += 4)

/* Instructions [pc0, pc1) over a chunk of m entries (a multiple of 4) of x.
 * Slot s: values scr + 2s·CH, derivatives scr + (2s+1)·CH; tmp: one more
 * chunk. nd: compute derivatives. */
CS_AI void run_body(const ins *code, int pc0, int pc1, double *scr, double *tmp,
                    const double *x, size_t m, int nd, int avx)
{
    (void)avx;
    for (int pc = pc0; pc < pc1; pc++) {
        const ins *in = &code[pc];
        double *restrict V = scr + (size_t)(2 * in->s) * CH;
        double *restrict D = V + CH;
        double *restrict V2 = V + 2 * CH;
        double *restrict D2 = V + 3 * CH;
        double *restrict T = tmp;
        const v4d c = splat(in->c);
        switch (in->op) {
        case OP_X:
            LOOP st4(V + i, ld4(x + i));
            if (nd)
                LOOP st4(D + i, splat(1.0));
            break;
        case OP_C:
            LOOP st4(V + i, c);
            if (nd)
                LOOP st4(D + i, splat(0.0));
            break;
        case OP_NEG:
            LOOP st4(V + i, -ld4(V + i));
            if (nd)
                LOOP st4(D + i, -ld4(D + i));
            break;
        case OP_ADD:
            LOOP st4(V + i, ld4(V + i) + ld4(V2 + i));
            if (nd)
                LOOP st4(D + i, ld4(D + i) + ld4(D2 + i));
            break;
        case OP_SUB:
            LOOP st4(V + i, ld4(V + i) - ld4(V2 + i));
            if (nd)
                LOOP st4(D + i, ld4(D + i) - ld4(D2 + i));
            break;
        case OP_MUL:
            if (nd)
                LOOP {
                    v4d a = ld4(V + i), b = ld4(V2 + i);
                    st4(D + i, ld4(D + i) * b + a * ld4(D2 + i));
                }
            LOOP st4(V + i, ld4(V + i) * ld4(V2 + i));
            break;
        case OP_DIV:
            LOOP {
                v4d b = ld4(V2 + i), q = ld4(V + i) / b;
                st4(V + i, q);
                if (nd)
                    st4(D + i, (ld4(D + i) - q * ld4(D2 + i)) / b);
            }
            break;
        case OP_ADDC:
            LOOP st4(V + i, ld4(V + i) + c);
            break;
        case OP_RSUBC:
            LOOP st4(V + i, c - ld4(V + i));
            if (nd)
                LOOP st4(D + i, -ld4(D + i));
            break;
        case OP_MULC:
            LOOP st4(V + i, c * ld4(V + i));
            if (nd)
                LOOP st4(D + i, c * ld4(D + i));
            break;
        case OP_DIVC:
            LOOP st4(V + i, ld4(V + i) / c);
            if (nd)
                LOOP st4(D + i, ld4(D + i) / c);
            break;
        case OP_RDIVC:
            LOOP {
                v4d a = ld4(V + i), q = c / a;
                st4(V + i, q);
                if (nd)
                    st4(D + i, -(q / a) * ld4(D + i));
            }
            break;
        case OP_POWK: {
            int k = in->k;
            v4d kk = splat((double)k);
            if (k == 2) {
                LOOP {
                    v4d a = ld4(V + i);
                    st4(V + i, a * a);
                    if (nd)
                        st4(D + i, (kk * a) * ld4(D + i));
                }
            } else if (k == 3) {
                LOOP {
                    v4d a = ld4(V + i), p = a * a;
                    st4(V + i, p * a);
                    if (nd)
                        st4(D + i, (kk * p) * ld4(D + i));
                }
            } else if (k > 0) {
                unsigned u = (unsigned)k - 1;
                LOOP {
                    v4d a = ld4(V + i), p = vpowk(a, u);
                    st4(V + i, p * a);
                    if (nd)
                        st4(D + i, (kk * p) * ld4(D + i));
                }
            } else {
                unsigned u = (unsigned)(-k) - 1;
                LOOP {
                    v4d a = ld4(V + i), pa = vpowk(a, u) * a;
                    st4(V + i, splat(1.0) / pa);
                    if (nd)
                        st4(D + i, kk * ld4(D + i) / (pa * a));
                }
            }
            break;
        }
        case OP_POWC:
            if (nd) {
                SL(pow, avx, T, V, 0.0, NULL, in->c2, m);
                LOOP st4(D + i, c * ld4(T + i) * ld4(D + i));
            }
            SL(pow, avx, V, V, 0.0, NULL, in->c, m);
            break;
        case OP_CPOW:
            SL(pow, avx, V, NULL, in->c, V, 0.0, m);
            if (nd) {
                v4d l = splat(in->c2);
                LOOP st4(D + i, ld4(V + i) * l * ld4(D + i));
            }
            break;
        case OP_POW:
            /* d = a^b (b' log a + b a'/a): the bracket first, while a is there */
            if (nd) {
                SL(log, avx, T, V, m);
                LOOP {
                    v4d a = ld4(V + i), b = ld4(V2 + i);
                    st4(D + i, ld4(D2 + i) * ld4(T + i) + b * ld4(D + i) / a);
                }
            }
            SL(pow, avx, V, V, 0.0, V2, 0.0, m);
            if (nd)
                LOOP st4(D + i, ld4(V + i) * ld4(D + i));
            break;
        case OP_EXP:
            SL(exp, avx, V, V, m);
            if (nd)
                LOOP st4(D + i, ld4(V + i) * ld4(D + i));
            break;
        case OP_LOG:
            if (nd)
                LOOP st4(D + i, ld4(D + i) / ld4(V + i));
            SL(log, avx, V, V, m);
            break;
        case OP_SQRT:
            SL(sqrt, avx, V, V, m);
            if (nd)
                LOOP {
                    v4d r = ld4(V + i);
                    st4(D + i, ld4(D + i) / (r + r));
                }
            break;
        case OP_ABS:
            if (nd)
                LOOP {
                    v4d a = ld4(V + i), d = ld4(D + i), z = splat(0.0);
                    st4(D + i, vsel(a > z, d, vsel(a < z, -d, z)));
                }
            LOOP st4(V + i, vabs(ld4(V + i)));
            break;
        case OP_SIN:
            if (nd)
                SL(cos, avx, T, V, m);
            SL(sin, avx, V, V, m);
            if (nd)
                LOOP st4(D + i, ld4(T + i) * ld4(D + i));
            break;
        case OP_COS:
            if (nd)
                SL(sin, avx, T, V, m);
            SL(cos, avx, V, V, m);
            if (nd)
                LOOP st4(D + i, -ld4(T + i) * ld4(D + i));
            break;
        case OP_TAN:
            SL(tan, avx, V, V, m);
            if (nd)
                LOOP {
                    v4d t = ld4(V + i);
                    st4(D + i, (splat(1.0) + t * t) * ld4(D + i));
                }
            break;
        case OP_TANH:
            SL(tanh, avx, V, V, m);
            if (nd)
                LOOP {
                    v4d t = ld4(V + i);
                    st4(D + i, (splat(1.0) - t * t) * ld4(D + i));
                }
            break;
        case OP_SIGN:
            LOOP {
                v4d a = ld4(V + i), z = splat(0.0);
                v4d r = vsel(a > z, splat(1.0), vsel(a < z, splat(-1.0), a + a));
                st4(V + i, r);
            }
            if (nd)
                LOOP st4(D + i, splat(0.0));
            break;
        case OP_MIN:
        case OP_MAX:
            LOOP {
                v4d a = ld4(V + i), b = ld4(V2 + i);
                v4l first = in->op == OP_MAX ? (a >= b) : (a <= b);
                v4l nan = (a != a) | (b != b);
                st4(V + i, vsel(nan, a + b, vsel(first, a, b)));
                if (nd)
                    st4(D + i, vsel(first, ld4(D + i), ld4(D2 + i)));
            }
            break;
        default: break;
        }
    }
}

#ifdef CS_AVX2_CLONE
static CS_AVX2_FN void run_avx2(const ins *code, int pc0, int pc1, double *scr, double *tmp,
                                const double *x, size_t m, int nd)
{
    run_body(code, pc0, pc1, scr, tmp, x, m, nd, 1);
}
#endif
static void run_base(const ins *code, int pc0, int pc1, double *scr, double *tmp,
                     const double *x, size_t m, int nd)
{
    run_body(code, pc0, pc1, scr, tmp, x, m, nd, 0);
}

static void run(const cs_expr *e, int pc0, int pc1, const double *x, size_t m, int nd)
{
    double *tmp = e->scr + (size_t)(2 * e->nslots) * CH;
#ifdef CS_AVX2_CLONE
    if (e->avx) {
        run_avx2(e->code, pc0, pc1, e->scr, tmp, x, m, nd);
        return;
    }
#endif
    run_base(e->code, pc0, pc1, e->scr, tmp, x, m, nd);
}

/* ------------------------------------------------------------ the tree */

enum { N_NUM, N_X, N_NEG, N_ADD, N_SUB, N_MUL, N_DIV, N_POW, N_FN };
enum { F_EXP, F_LOG, F_SQRT, F_ABS, F_SIN, F_COS, F_TAN, F_TANH, F_SIGN, F_MIN, F_MAX, F_COUNT };

static const struct {
    const char *name;
    int nargs;
    int op;
} fn_table[F_COUNT] = {
    [F_EXP] = {"exp", 1, OP_EXP},   [F_LOG] = {"log", 1, OP_LOG},
    [F_SQRT] = {"sqrt", 1, OP_SQRT}, [F_ABS] = {"abs", 1, OP_ABS},
    [F_SIN] = {"sin", 1, OP_SIN},   [F_COS] = {"cos", 1, OP_COS},
    [F_TAN] = {"tan", 1, OP_TAN},   [F_TANH] = {"tanh", 1, OP_TANH},
    [F_SIGN] = {"sign", 1, OP_SIGN}, [F_MIN] = {"min", 2, OP_MIN},
    [F_MAX] = {"max", 2, OP_MAX},
};
#define FN_LIST "exp log sqrt abs sin cos tan tanh sign min max"

typedef struct node {
    int kind, fn;
    double c;         /* N_NUM */
    int a, b;         /* children (node indices), -1 when absent */
    int s0, s1;       /* the term's own span [s0, s1), 0-based offsets */
    int e0, e1;       /* with the parentheses around it */
    int hom, any;     /* homogeneous of degree k; any: identically zero (every degree) */
    double k;
} node;

typedef struct parser {
    const char *s;
    int len, pos;
    node *nodes;
    int nn, cap;
    const cs_expr_const *consts;
    size_t nconsts;
    int depth;
    int failed;       /* 0, or the CS_E* code of the error recorded */
    int *col;
    cs_err *err;
} parser;

typedef struct prog {
    ins *code;
    int n, cap;
    int nslots;
} prog;

static int perr(parser *p, int pos, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int perr(parser *p, int pos, int code, const char *fmt, ...)
{
    char buf[CS_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (p->col)
        *p->col = pos + 1;
    p->failed = code;
    cs_fail(p->err, code, "column %d: %s", pos + 1, buf);
    return -1;
}

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alnum(int c) { return is_alpha(c) || is_digit(c); }

static void skip_ws(parser *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

static int peek(parser *p)
{
    skip_ws(p);
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

/* The token at pos for messages: 'name', '1.5', '*', or a byte code. */
static void tok_desc(const parser *p, int pos, char *buf, size_t len)
{
    if (pos >= p->len) {
        snprintf(buf, len, "end of expression");
        return;
    }
    unsigned char c = (unsigned char)p->s[pos];
    int end = pos + 1;
    if (is_alnum(c) || c == '.')
        while (end < p->len && end - pos < 40 && (is_alnum(p->s[end]) || p->s[end] == '.'))
            end++;
    if (c < 32 || c >= 127)
        snprintf(buf, len, "character (byte 0x%02x)", c);
    else
        snprintf(buf, len, "'%.*s'", end - pos, p->s + pos);
}

/* Text of [a, b) for messages, shortened in the middle when long. */
static void span_text(const char *s, int a, int b, char *buf, size_t len)
{
    int n = b - a;
    if (n <= 60)
        snprintf(buf, len, "%.*s", n, s + a);
    else
        snprintf(buf, len, "%.*s...%.*s", 28, s + a, 28, s + b - 28);
}

static int new_node(parser *p, int kind, int s0, int s1)
{
    if (p->nn >= p->cap)
        return perr(p, s0, CS_EINVAL, "expression too complex");
    node *n = &p->nodes[p->nn];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->a = n->b = -1;
    n->s0 = n->e0 = s0;
    n->s1 = n->e1 = s1;
    return p->nn++;
}

static int new_num(parser *p, double c, int s0, int s1)
{
    int i = new_node(p, N_NUM, s0, s1);
    if (i >= 0) {
        p->nodes[i].c = c;
        p->nodes[i].hom = 1;
        p->nodes[i].any = c == 0.0;
    }
    return i;
}

static int is_num(const parser *p, int i) { return p->nodes[i].kind == N_NUM; }

static int compile_node(const node *nodes, int i, int sp, prog *pg);

/* Degree of homogeneity from the children's (see cs_expr_homogeneous). */
static void homogeneity(node *n, const node *a, const node *b)
{
    n->hom = 0;
    n->any = 0;
    n->k = 0.0;
    if (!a->hom || (b && !b->hom))
        return;
    /* sums and min/max: the same degree; an identically zero side takes any */
    int same = b && (a->any || b->any || a->k == b->k);
    double ks = b ? (a->any ? b->k : a->k) : 0.0;
    switch (n->kind) {
    case N_NEG:
        n->hom = 1;
        n->any = a->any;
        n->k = a->k;
        return;
    case N_ADD:
    case N_SUB:
        n->hom = same;
        n->any = a->any && b->any;
        n->k = ks;
        return;
    case N_MUL:
        n->hom = 1;
        n->any = a->any || b->any;
        n->k = a->k + b->k;
        return;
    case N_DIV:
        n->hom = 1;
        n->any = a->any;
        n->k = a->k - b->k;
        return;
    case N_POW:
        if (b->kind == N_NUM) {   /* (t^k f)^c = t^(kc) f^c for t > 0 */
            n->hom = 1;
            n->any = a->any && b->c > 0;
            n->k = a->k * b->c;
        } else if ((a->any || a->k == 0.0) && (b->any || b->k == 0.0)) {
            n->hom = 1;
        }
        return;
    case N_FN:
        switch (n->fn) {
        case F_ABS: n->hom = 1; n->any = a->any; n->k = a->k; return;
        case F_SQRT: n->hom = 1; n->any = a->any; n->k = a->k / 2; return;
        case F_SIGN: n->hom = 1; n->any = a->any; return;
        case F_MIN:
        case F_MAX:
            n->hom = same;
            n->any = a->any && b->any;
            n->k = ks;
            return;
        default:   /* f(t^0 g) = f(g): degree 0; f(0) is a constant */
            n->hom = a->any || a->k == 0.0;
            return;
        }
    default: return;
    }
}

/* Finish node i built from children a, b: homogeneity, then folding when
 * every child is a constant (by the scalar path, so folded and unfolded
 * constants agree with cs_expr_eval1). */
static int finish(parser *p, int i)
{
    if (i < 0)
        return -1;
    node *n = &p->nodes[i];
    const node *a = n->a >= 0 ? &p->nodes[n->a] : NULL;
    const node *b = n->b >= 0 ? &p->nodes[n->b] : NULL;
    int s0 = n->s0, s1 = n->s1;
    homogeneity(n, a, b);
    if ((a && !is_num(p, n->a)) || (b && !is_num(p, n->b)))
        return i;
    ins buf[4];
    prog pg = {buf, 0, 4, 0};
    double V[4] = {0}, D[4] = {0};
    if (compile_node(p->nodes, i, 0, &pg) < 0)
        return perr(p, s0, CS_EINVAL, "expression too complex");
    for (int j = 0; j < pg.n; j++)
        step1(&pg.code[j], V, D, 0.0);
    if (!isfinite(V[0])) {
        char t[160];
        span_text(p->s, s0, s1, t, sizeof t);
        return perr(p, s0, CS_EINVAL, "%s is %s (a constant term must be finite)", t,
                    isnan(V[0]) ? "NaN" : "Inf");
    }
    n->kind = N_NUM;
    n->c = V[0];
    n->a = n->b = -1;
    n->hom = 1;
    n->any = V[0] == 0.0;
    n->k = 0.0;
    return i;
}

static int mk(parser *p, int kind, int a, int b, int s0, int s1)
{
    if (a < 0 || (kind >= N_ADD && kind <= N_POW && b < 0))
        return -1;
    int i = new_node(p, kind, s0, s1);
    if (i < 0)
        return -1;
    p->nodes[i].a = a;
    p->nodes[i].b = b;
    return finish(p, i);
}

static int parse_expr(parser *p);
static int parse_unary(parser *p);

static int enter(parser *p, int pos)
{
    if (++p->depth > CS_EXPR_MAX_DEPTH)
        return perr(p, pos, CS_EINVAL,
                    "expression nested too deeply (more than %d levels of parentheses, "
                    "function calls, signs and powers)",
                    CS_EXPR_MAX_DEPTH);
    return 0;
}

static int parse_number(parser *p)
{
    int st = p->pos, i = st, digits = 0;
    while (i < p->len && is_digit(p->s[i]))
        i++, digits++;
    if (i < p->len && p->s[i] == '.') {
        i++;
        while (i < p->len && is_digit(p->s[i]))
            i++, digits++;
    }
    if (!digits)
        return perr(p, st, CS_EINVAL, "malformed number '.' (a digit is expected)");
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        int j = i + 1;
        if (j < p->len && (p->s[j] == '+' || p->s[j] == '-'))
            j++;
        if (j >= p->len || !is_digit(p->s[j])) {
            int end = j;
            while (end < p->len && (is_alnum(p->s[end]) || p->s[end] == '.'))
                end++;
            return perr(p, st, CS_EINVAL, "malformed number '%.*s' (exponent digits expected)",
                        end - st, p->s + st);
        }
        while (j < p->len && is_digit(p->s[j]))
            j++;
        i = j;
    }
    char buf[CS_EXPR_MAX_LEN + 1];
    memcpy(buf, p->s + st, (size_t)(i - st));
    buf[i - st] = '\0';
    double v = strtod(buf, NULL);
    if (!isfinite(v))
        return perr(p, st, CS_EINVAL, "number '%s' is out of range", buf);
    p->pos = i;
    return new_num(p, v, st, i);
}

static int lookup_fn(const char *s, int n)
{
    for (int f = 0; f < F_COUNT; f++)
        if ((int)strlen(fn_table[f].name) == n && memcmp(fn_table[f].name, s, (size_t)n) == 0)
            return f;
    return -1;
}

/* name -> value: pi, e, the user constants; 0 when not a constant name */
static int lookup_const(const parser *p, const char *s, int n, double *v)
{
    if (n == 2 && memcmp(s, "pi", 2) == 0) {
        *v = M_PI;
        return 1;
    }
    if (n == 1 && s[0] == 'e') {
        *v = M_E;
        return 1;
    }
    for (size_t i = 0; i < p->nconsts; i++)
        if ((int)strlen(p->consts[i].name) == n && memcmp(p->consts[i].name, s, (size_t)n) == 0) {
            *v = p->consts[i].value;
            return 1;
        }
    return 0;
}

static int parse_call(parser *p, int f, int st)
{
    if (enter(p, st))
        return -1;
    p->pos++; /* '(' */
    int args[2] = {-1, -1}, nargs = 0;
    if (peek(p) != ')') {
        for (;;) {
            int a = parse_expr(p);
            if (a < 0)
                return -1;
            if (nargs < 2)
                args[nargs] = a;
            nargs++;
            int c = peek(p);
            if (c == ',') {
                p->pos++;
                continue;
            }
            if (c == ')')
                break;
            char t[64];
            tok_desc(p, p->pos, t, sizeof t);
            return perr(p, p->pos, CS_EINVAL, "',' or ')' expected in the arguments of %s, not %s",
                        fn_table[f].name, t);
        }
    }
    p->pos++; /* ')' */
    p->depth--;
    int want = fn_table[f].nargs;
    if (nargs != want)
        return perr(p, st, CS_EINVAL, "%s takes %d argument%s (got %d)", fn_table[f].name, want,
                    want == 1 ? "" : "s", nargs);
    int i = new_node(p, N_FN, st, p->pos);
    if (i < 0)
        return -1;
    p->nodes[i].fn = f;
    p->nodes[i].a = args[0];
    p->nodes[i].b = args[1];
    return finish(p, i);
}

static int parse_name(parser *p)
{
    int st = p->pos, end = st;
    while (end < p->len && is_alnum(p->s[end]))
        end++;
    const char *nm = p->s + st;
    int n = end - st;
    p->pos = end;
    int f = lookup_fn(nm, n);
    double v;
    int isx = n == 1 && nm[0] == 'x';
    if (peek(p) == '(') {
        if (f >= 0)
            return parse_call(p, f, st);
        if (isx || lookup_const(p, nm, n, &v))
            return perr(p, st, CS_EINVAL,
                        "'%.*s' is not a function (write %.*s*(...) to multiply)", n, nm, n, nm);
        return perr(p, st, CS_EINVAL, "unknown function '%.*s' (functions: " FN_LIST ")", n, nm);
    }
    if (f >= 0)
        return perr(p, st, CS_EINVAL, "function %s needs its argument%s in parentheses: %s(...)",
                    fn_table[f].name, fn_table[f].nargs == 1 ? "" : "s", fn_table[f].name);
    if (isx) {
        int i = new_node(p, N_X, st, end);
        if (i >= 0) {
            p->nodes[i].hom = 1;
            p->nodes[i].k = 1.0;
        }
        return i;
    }
    if (lookup_const(p, nm, n, &v))
        return new_num(p, v, st, end);
    char names[300];
    size_t w = (size_t)snprintf(names, sizeof names, "x, pi, e");
    for (size_t i = 0; i < p->nconsts && w < sizeof names; i++) {
        if (w + strlen(p->consts[i].name) + 8 >= sizeof names) {
            snprintf(names + w, sizeof names - w, ", ...");
            break;
        }
        w += (size_t)snprintf(names + w, sizeof names - w, ", %s", p->consts[i].name);
    }
    return perr(p, st, CS_EINVAL, "unknown name '%.*s' (names: %s)", n > 60 ? 60 : n, nm, names);
}

static int parse_primary(parser *p)
{
    int c = peek(p), st = p->pos;
    if (c < 0)
        return perr(p, st, CS_EINVAL, "unexpected end of expression (an operand is expected)");
    if (is_digit(c) || c == '.')
        return parse_number(p);
    if (is_alpha(c))
        return parse_name(p);
    if (c == '(') {
        if (enter(p, st))
            return -1;
        p->pos++;
        int a = parse_expr(p);
        if (a < 0)
            return -1;
        if (peek(p) != ')') {
            if (p->pos >= p->len)
                return perr(p, p->pos, CS_EINVAL, "')' expected (to close the '(' at column %d)",
                            st + 1);
            char t[64];
            tok_desc(p, p->pos, t, sizeof t);
            return perr(p, p->pos, CS_EINVAL,
                        "')' expected, not %s (to close the '(' at column %d)", t, st + 1);
        }
        p->pos++;
        p->depth--;
        p->nodes[a].e0 = st;
        p->nodes[a].e1 = p->pos;
        return a;
    }
    char t[64];
    tok_desc(p, st, t, sizeof t);
    return perr(p, st, CS_EINVAL, "unexpected %s (an operand is expected)", t);
}

static int parse_power(parser *p)
{
    int a = parse_primary(p);
    if (a < 0)
        return -1;
    if (peek(p) != '^')
        return a;
    int op = p->pos;
    if (enter(p, op))
        return -1;
    p->pos++;
    int b = parse_unary(p);
    if (b < 0)
        return -1;
    p->depth--;
    node *bn = &p->nodes[b], *an = &p->nodes[a];
    /* x^1 is x; x^0 is 1 (as pow: also at 0, Inf and NaN) */
    if (bn->kind == N_NUM && bn->c == 1.0) {
        an->s1 = an->e1 = bn->e1;
        an->s0 = an->e0;
        return a;
    }
    if (bn->kind == N_NUM && bn->c == 0.0)
        return new_num(p, 1.0, an->e0, bn->e1);
    return mk(p, N_POW, a, b, an->e0, bn->e1);
}

static int parse_unary(parser *p)
{
    int c = peek(p), st = p->pos;
    if (c != '-' && c != '+')
        return parse_power(p);
    if (enter(p, st))
        return -1;
    p->pos++;
    int a = parse_unary(p);
    if (a < 0)
        return -1;
    p->depth--;
    if (c == '+') {
        p->nodes[a].e0 = st;
        return a;
    }
    return mk(p, N_NEG, a, -1, st, p->nodes[a].e1);
}

static int parse_term(parser *p)
{
    int a = parse_unary(p);
    while (a >= 0) {
        int c = peek(p);
        if (c != '*' && c != '/')
            break;
        p->pos++;
        int b = parse_unary(p);
        if (b < 0)
            return -1;
        a = mk(p, c == '*' ? N_MUL : N_DIV, a, b, p->nodes[a].e0, p->nodes[b].e1);
    }
    return a;
}

static int parse_expr(parser *p)
{
    int a = parse_term(p);
    while (a >= 0) {
        int c = peek(p);
        if (c != '+' && c != '-')
            break;
        p->pos++;
        int b = parse_term(p);
        if (b < 0)
            return -1;
        a = mk(p, c == '+' ? N_ADD : N_SUB, a, b, p->nodes[a].e0, p->nodes[b].e1);
    }
    return a;
}

/* ------------------------------------------------------------ compile */

static int emit(prog *pg, const node *n, int op, int s)
{
    if (pg->n >= pg->cap || s >= MAX_SLOTS)
        return -1;
    ins *in = &pg->code[pg->n++];
    memset(in, 0, sizeof *in);
    in->op = op;
    in->s = s;
    in->span0 = n->s0;
    in->span1 = n->s1;
    if (s + 1 > pg->nslots)
        pg->nslots = s + 1;
    return pg->n - 1;
}

/* Code for node i with its result in slot sp; -1 when too large. */
static int compile_node(const node *nodes, int i, int sp, prog *pg)
{
    const node *n = &nodes[i];
    const node *a = n->a >= 0 ? &nodes[n->a] : NULL;
    const node *b = n->b >= 0 ? &nodes[n->b] : NULL;
    int j;
    switch (n->kind) {
    case N_NUM:
        if ((j = emit(pg, n, OP_C, sp)) < 0)
            return -1;
        pg->code[j].c = n->c;
        return 0;
    case N_X: return emit(pg, n, OP_X, sp) < 0 ? -1 : 0;
    case N_NEG:
        if (compile_node(nodes, n->a, sp, pg) < 0)
            return -1;
        return emit(pg, n, OP_NEG, sp) < 0 ? -1 : 0;
    case N_ADD:
    case N_SUB:
    case N_MUL:
    case N_DIV:
    case N_POW:
        break;
    case N_FN:
        if (compile_node(nodes, n->a, sp, pg) < 0)
            return -1;
        if (b && compile_node(nodes, n->b, sp + 1, pg) < 0)
            return -1;
        return emit(pg, n, fn_table[n->fn].op, sp) < 0 ? -1 : 0;
    default: return -1;
    }
    /* binary: a constant operand goes into the instruction when one exists */
    int op = -1, from = -1, k = 0;
    double c = 0.0, c2 = 0.0;
    int anum = a->kind == N_NUM, bnum = b->kind == N_NUM;
    switch (n->kind) {
    case N_ADD:
        if (anum != bnum)
            op = OP_ADDC, from = anum ? n->b : n->a, c = anum ? a->c : b->c;
        break;
    case N_SUB:
        if (bnum && !anum)
            op = OP_ADDC, from = n->a, c = -b->c;
        else if (anum && !bnum)
            op = OP_RSUBC, from = n->b, c = a->c;
        break;
    case N_MUL:
        if (anum != bnum)
            op = OP_MULC, from = anum ? n->b : n->a, c = anum ? a->c : b->c;
        break;
    case N_DIV:
        if (bnum && !anum)
            op = OP_DIVC, from = n->a, c = b->c;
        else if (anum && !bnum)
            op = OP_RDIVC, from = n->b, c = a->c;
        break;
    case N_POW:
        if (bnum) {
            double e = b->c;
            if (e == floor(e) && fabs(e) <= MAX_POWI)
                op = OP_POWK, k = (int)e;
            else
                op = OP_POWC, c = e, c2 = e - 1.0;
            from = n->a;
        } else if (anum) {
            from = n->b;
            if (a->c == M_E) {
                op = OP_EXP;
            } else {
                op = OP_CPOW, c = a->c, c2 = Sleef_log_u10(a->c);
            }
        } else {
            op = OP_POW;
        }
        break;
    default: break;
    }
    if (from >= 0) {
        if (compile_node(nodes, from, sp, pg) < 0 || (j = emit(pg, n, op, sp)) < 0)
            return -1;
        pg->code[j].c = c;
        pg->code[j].c2 = c2;
        pg->code[j].k = k;
        return 0;
    }
    if (op < 0)
        op = n->kind == N_ADD ? OP_ADD : n->kind == N_SUB ? OP_SUB : n->kind == N_MUL ? OP_MUL
                                                                                      : OP_DIV;
    if (compile_node(nodes, n->a, sp, pg) < 0 || compile_node(nodes, n->b, sp + 1, pg) < 0)
        return -1;
    return emit(pg, n, op, sp) < 0 ? -1 : 0;
}

/* ------------------------------------------------------------ the API */

static int check_consts(const cs_expr_const *consts, size_t nconsts, int *col, cs_err *err)
{
    for (size_t i = 0; i < nconsts; i++) {
        const char *nm = consts[i].name;
        if (col)
            *col = 0;
        if (!nm || !is_alpha((unsigned char)nm[0]))
            return cs_fail(err, CS_EINVAL, "constant name '%s' is not a name (letters, digits, _)",
                           nm ? nm : "");
        for (const char *q = nm; *q; q++)
            if (!is_alnum((unsigned char)*q))
                return cs_fail(err, CS_EINVAL,
                               "constant name '%s' is not a name (letters, digits, _)", nm);
        if (strlen(nm) > 64)
            return cs_fail(err, CS_EINVAL, "constant name '%.20s...' is too long", nm);
        if (!strcmp(nm, "x") || !strcmp(nm, "pi") || !strcmp(nm, "e") ||
            lookup_fn(nm, (int)strlen(nm)) >= 0)
            return cs_fail(err, CS_EINVAL,
                           "constant name '%s' is reserved (x, pi, e and the functions " FN_LIST
                           ")",
                           nm);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(consts[j].name, nm))
                return cs_fail(err, CS_EINVAL, "constant '%s' is given twice", nm);
        if (!isfinite(consts[i].value))
            return cs_fail(err, CS_EINVAL, "constant %s = %g is not finite", nm, consts[i].value);
    }
    return CS_OK;
}

static int alloc_scratch(cs_expr *e)
{
    size_t nd = (size_t)(2 * e->nslots + 2) * CH;
    e->scr = aligned_alloc(64, nd * sizeof(double));
    if (!e->scr)
        return -1;
    memset(e->scr, 0, nd * sizeof(double));
    return 0;
}

void cs_expr_free(cs_expr *e)
{
    if (!e)
        return;
    free(e->text);
    free(e->code);
    free(e->scr);
    free(e);
}

int cs_expr_parse(cs_expr **out, const char *text, const cs_expr_const *consts, size_t nconsts,
                  int *col, cs_err *err)
{
    if (out)
        *out = NULL;
    if (col)
        *col = 0;
    if (!out || !text)
        return cs_fail(err, CS_EINVAL, "no expression");
    if (nconsts && !consts)
        return cs_fail(err, CS_EINVAL, "constants missing");
    int rc = check_consts(consts, nconsts, col, err);
    if (rc)
        return rc;
    size_t len = strlen(text);
    if (len > CS_EXPR_MAX_LEN) {
        if (col)
            *col = CS_EXPR_MAX_LEN + 1;
        return cs_fail(err, CS_EINVAL,
                       "column %d: expression too long (%zu characters; the limit is %d)",
                       CS_EXPR_MAX_LEN + 1, len, CS_EXPR_MAX_LEN);
    }
    parser p = {.s = text, .len = (int)len, .consts = consts, .nconsts = nconsts, .col = col,
                .err = err};
    p.cap = (int)len + 8;
    p.nodes = malloc((size_t)p.cap * sizeof *p.nodes);
    if (!p.nodes)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    int root;
    if (peek(&p) < 0) {
        root = perr(&p, 0, CS_EINVAL, "empty expression");
    } else {
        root = parse_expr(&p);
        if (root >= 0 && peek(&p) >= 0) {
            char t[64];
            tok_desc(&p, p.pos, t, sizeof t);
            root = perr(&p, p.pos, CS_EINVAL,
                        p.s[p.pos] == ')' ? "unexpected %s (no '(' to close)"
                                          : "unexpected %s (an operator is expected)",
                        t);
        }
    }
    if (root < 0) {
        free(p.nodes);
        return p.failed ? p.failed : cs_fail(err, CS_EINVAL, "column 1: malformed expression");
    }
    /* every node emits at most one instruction */
    prog pg = {.cap = p.nn + 1};
    cs_expr *e = calloc(1, sizeof *e);
    if (e) {
        e->text = malloc(len + 1);
        e->code = pg.code = malloc((size_t)pg.cap * sizeof *pg.code);
    }
    if (!e || !e->text || !e->code) {
        free(p.nodes);
        cs_expr_free(e);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    memcpy(e->text, text, len + 1);
    const node *r = &p.nodes[root];
    e->hom = r->hom;
    e->hk = r->any ? 0.0 : r->k + 0.0;
    e->uses_x = r->kind != N_NUM;
    e->cval = e->uses_x ? NAN : r->c;
    e->avx = cs_cpu_avx2_fma();
    if (e->uses_x && compile_node(p.nodes, root, 0, &pg) < 0) {
        free(p.nodes);
        cs_expr_free(e);
        if (col)
            *col = 1;
        return cs_fail(err, CS_EINVAL, "column 1: expression too complex");
    }
    free(p.nodes);
    e->ncode = pg.n;
    e->nslots = pg.nslots;
    if (alloc_scratch(e)) {
        cs_expr_free(e);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    *out = e;
    return CS_OK;
}

int cs_expr_clone(const cs_expr *e, cs_expr **out, cs_err *err)
{
    *out = NULL;
    if (!e)
        return cs_fail(err, CS_EINVAL, "no expression");
    cs_expr *c = calloc(1, sizeof *c);
    if (!c)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    *c = *e;
    c->text = NULL;
    c->code = NULL;
    c->scr = NULL;
    size_t len = strlen(e->text);
    c->text = malloc(len + 1);
    c->code = malloc((size_t)(e->ncode ? e->ncode : 1) * sizeof *c->code);
    if (!c->text || !c->code || alloc_scratch(c)) {
        cs_expr_free(c);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    memcpy(c->text, e->text, len + 1);
    if (e->ncode)
        memcpy(c->code, e->code, (size_t)e->ncode * sizeof *c->code);
    *out = c;
    return CS_OK;
}

const char *cs_expr_text(const cs_expr *e) { return e ? e->text : ""; }
int cs_expr_uses_x(const cs_expr *e) { return e && e->uses_x; }
double cs_expr_const_value(const cs_expr *e) { return e && !e->uses_x ? e->cval : NAN; }

int cs_expr_homogeneous(const cs_expr *e, double *k)
{
    if (!e || !e->hom)
        return 0;
    if (k)
        *k = e->hk;
    return 1;
}

double cs_expr_eval1(const cs_expr *e, double x, double *df)
{
    if (!e->uses_x) {
        if (df)
            *df = 0.0;
        return e->cval;
    }
    double V[MAX_SLOTS + 1], D[MAX_SLOTS + 1];
    for (int pc = 0; pc < e->ncode; pc++)
        step1(&e->code[pc], V, D, x);
    if (df)
        *df = D[0];
    return V[0];
}

static int finite_lane(const cs_expr *e, int s, size_t lane, int nd)
{
    const double *V = e->scr + (size_t)(2 * s) * CH;
    return isfinite(V[lane]) && (!nd || isfinite(V[CH + lane]));
}

/* The chunk at x (m4 entries) gave a non-finite output at lane: run it
 * again one instruction at a time and follow where that lane's non-finite
 * value came from. */
static int report(const cs_expr *e, const double *xs, size_t m4, size_t lane, size_t coord,
                  double xv, int nd, cs_err *err)
{
    struct {
        int pc, deriv, nan;
    } origin[MAX_SLOTS];
    for (int s = 0; s < e->nslots; s++)
        origin[s].pc = -1;
    for (int pc = 0; pc < e->ncode; pc++) {
        const ins *in = &e->code[pc];
        int s = in->s, bad_in = -1;
        for (int j = 0; j < op_arity[in->op]; j++)
            if (!finite_lane(e, s + j, lane, nd)) {
                bad_in = s + j;
                break;
            }
        run(e, pc, pc + 1, xs, m4, nd);
        if (finite_lane(e, s, lane, nd)) {
            origin[s].pc = -1;
        } else if (bad_in >= 0) {
            origin[s] = origin[bad_in];
        } else {
            const double *V = e->scr + (size_t)(2 * s) * CH;
            int vbad = !isfinite(V[lane]);
            origin[s].pc = pc;
            origin[s].deriv = !vbad;
            origin[s].nan = isnan(vbad ? V[lane] : V[CH + lane]);
        }
    }
    char xt[64], term[160];
    cs_format_double(xt, sizeof xt, xv);
    int pc = origin[0].pc;
    if (pc < 0)   /* not reached: the output lane was non-finite */
        return cs_fail(err, CS_ENONFINITE, "%s is not finite at coordinate %zu (x = %s)", e->text,
                       coord, xt);
    const ins *in = &e->code[pc];
    const char *what = origin[0].nan ? "NaN" : "Inf";
    if (in->op == OP_X)
        return cs_fail(err, CS_ENONFINITE, "x is %s at coordinate %zu (the input)", what, coord);
    span_text(e->text, in->span0, in->span1, term, sizeof term);
    return cs_fail(err, CS_ENONFINITE, "%s%s is %s at coordinate %zu (x = %s)",
                   origin[0].deriv ? "the derivative of " : "", term, what, coord, xt);
}

int cs_expr_eval(const cs_expr *e, const double *x, size_t n, double *f, double *df, cs_err *err)
{
    if (!e)
        return cs_fail(err, CS_EINVAL, "no expression");
    if (n == 0)
        return CS_OK;
    if (!x || !f)
        return cs_fail(err, CS_EINVAL, "expression evaluation needs x and f");
    if (!e->uses_x) {
        for (size_t i = 0; i < n; i++)
            f[i] = e->cval;
        if (df)
            memset(df, 0, n * sizeof *df);
        return CS_OK;
    }
    int nd = df != NULL;
    double *xpad = e->scr + (size_t)(2 * e->nslots + 1) * CH;
    const double *V = e->scr, *D = e->scr + CH;
    for (size_t off = 0; off < n; off += CH) {
        size_t m = n - off < CH ? n - off : CH, m4 = (m + 3) & ~(size_t)3;
        const double *xs = x + off;
        if (m4 != m) {   /* pad with the last entry: same code path for every entry */
            memcpy(xpad, xs, m * sizeof *xs);
            for (size_t i = m; i < m4; i++)
                xpad[i] = xs[m - 1];
            xs = xpad;
        }
        run(e, 0, e->ncode, xs, m4, nd);
        /* v·0 is ±0 for finite v and NaN otherwise; the sums keep a NaN */
        v4d acc = splat(0.0);
        for (size_t i = 0; i < m4; i += 4) {
            acc += ld4(V + i) * 0.0;
            if (nd)
                acc += ld4(D + i) * 0.0;
        }
        int bad = hsum(acc) != 0.0;
        size_t lane = 0;
        double xv = 0.0;
        if (bad) {
            while (lane < m && isfinite(V[lane]) && (!nd || isfinite(D[lane])))
                lane++;
            xv = xs[lane];
            if (xs != xpad) {   /* keep the input: f or df may alias x */
                memcpy(xpad, xs, m4 * sizeof *xs);
                xs = xpad;
            }
        }
        memcpy(f + off, V, m * sizeof *f);
        if (nd)
            memcpy(df + off, D, m * sizeof *df);
        if (bad)
            return report(e, xs, m4, lane, off + lane, xv, nd, err);
    }
    return CS_OK;
}
