/* cpu/nn_reg_ops.c — the CPU backend's ops of the regularizer term and of
 * quantized weights (nn_pass.c, nn_quant.c, nn_train.c): the reference for
 * engine/nn/cuda/nn_reg_ops.cu, which has the same functions in the same
 * order. Fixed blocks of rows a task (cs_par_for), each row's sums its own
 * and in double, so the values are the same bits on any thread count. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "cs_par.h"
#include "nn_backend.h"
#include "nn_cpu.h"

/* ------------------------------------------------------------------ regularizers */

/* Σx², Σx³, Σx⁴, Σx⁶ of one row in double, two sets of four-lane partial sums
 * (the adds' latency, not the loads, bounds the loop): the polynomial
 * regularizers' only reduction, and it must not dominate an epoch. Only the
 * powers a regularizer uses are summed (bin: x², x⁴; osb: x², x³, x⁴; ter:
 * x², x⁴, x⁶); each sum's order is the same in every variant and in both
 * builds. Named accumulators, not an array: GCC kept an indexed s[h][k] in
 * memory and every add waited on a store. */

/* lanes[k] = the two sets of partial sums of power k added; reduces them and
 * adds the elements from i on */
static inline __attribute__((always_inline)) void
pow_sums_finish(const double lanes[4][4], const float *x, int i, int n, double out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = (lanes[k][0] + lanes[k][1]) + (lanes[k][2] + lanes[k][3]);
    for (; i < n; i++) {
        double a = x[i], a2 = a * a;
        out[0] += a2;
        out[1] += a2 * a;
        out[2] += a2 * a2;
        out[3] += a2 * a2 * a2;
    }
}

typedef double v4d __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
static void pow_sums_generic(const float *x, int n, int use3, int use6, double out[4])
{
    v4d p2 = {0}, p3 = {0}, p4 = {0}, p6 = {0}, q2 = {0}, q3 = {0}, q4 = {0}, q6 = {0};
    int i = 0;
#define POW_SUMS_HALF(S, OFF)                                                                  \
    do {                                                                                       \
        v4f f;                                                                                 \
        memcpy(&f, x + i + (OFF), sizeof f);                                                   \
        v4d a = __builtin_convertvector(f, v4d), a2 = a * a, a4 = a2 * a2;                     \
        S##2 += a2;                                                                            \
        if (use3)                                                                              \
            S##3 += a2 * a;                                                                    \
        S##4 += a4;                                                                            \
        if (use6)                                                                              \
            S##6 += a4 * a2;                                                                   \
    } while (0)
    for (; i + 8 <= n; i += 8) {
        POW_SUMS_HALF(p, 0);
        POW_SUMS_HALF(q, 4);
    }
#undef POW_SUMS_HALF
    v4d t[4] = {p2 + q2, p3 + q3, p4 + q4, p6 + q6};
    double lanes[4][4];
    memcpy(lanes, t, sizeof lanes);
    pow_sums_finish(lanes, x, i, n, out);
}

#ifdef CS_HAVE_AVX2_PATH
/* The same with intrinsics, inlined with constant flags: GCC 12 converts a v4f
 * to v4d as two halves and an insert, twice the loop's uops; vcvtps2pd ymm
 * takes the four floats from memory in one. */
static inline __attribute__((always_inline, target("avx2"))) void
pow_sums_avx2_body(const float *x, int n, int use3, int use6, double out[4])
{
    __m256d p2 = _mm256_setzero_pd(), p3 = p2, p4 = p2, p6 = p2, q2 = p2, q3 = p2, q4 = p2, q6 = p2;
    int i = 0;
#define POW_SUMS_HALF(S, OFF)                                                                  \
    do {                                                                                       \
        __m256d a = _mm256_cvtps_pd(_mm_loadu_ps(x + i + (OFF))), a2 = _mm256_mul_pd(a, a);    \
        __m256d a4 = _mm256_mul_pd(a2, a2);                                                    \
        S##2 = _mm256_add_pd(S##2, a2);                                                        \
        if (use3)                                                                              \
            S##3 = _mm256_add_pd(S##3, _mm256_mul_pd(a2, a));                                  \
        S##4 = _mm256_add_pd(S##4, a4);                                                        \
        if (use6)                                                                              \
            S##6 = _mm256_add_pd(S##6, _mm256_mul_pd(a4, a2));                                 \
    } while (0)
    for (; i + 8 <= n; i += 8) {
        POW_SUMS_HALF(p, 0);
        POW_SUMS_HALF(q, 4);
    }
#undef POW_SUMS_HALF
    double lanes[4][4];
    _mm256_storeu_pd(lanes[0], _mm256_add_pd(p2, q2));
    _mm256_storeu_pd(lanes[1], _mm256_add_pd(p3, q3));
    _mm256_storeu_pd(lanes[2], _mm256_add_pd(p4, q4));
    _mm256_storeu_pd(lanes[3], _mm256_add_pd(p6, q6));
    pow_sums_finish((const double(*)[4])lanes, x, i, n, out);
}

__attribute__((target("avx2"))) static void pow_sums_avx2(const float *x, int n, int use3,
                                                          int use6, double out[4])
{
    if (use3)
        pow_sums_avx2_body(x, n, 1, 0, out);
    else if (use6)
        pow_sums_avx2_body(x, n, 0, 1, out);
    else
        pow_sums_avx2_body(x, n, 0, 0, out);
}
#endif

static void pow_sums(const float *x, int n, int kind, double out[4])
{
    int use3 = kind == CS_REG_KERNEL_OSB, use6 = kind == CS_REG_KERNEL_TER;
#ifdef CS_HAVE_AVX2_PATH
    if (__builtin_cpu_supports("avx2")) {
        pow_sums_avx2(x, n, use3, use6, out);
        return;
    }
#endif
    pow_sums_generic(x, n, use3, use6, out);
}

/* The polynomial regularizers' gradient rows: g += x·(b·x² − c) (bin),
 * x·(a + x·(b·x − c)) (osb), x·(a + q·(b·q − c)) with q = x² (ter). */
#define POLY_GRAD_LOOP(EXPR)                                                                \
    do {                                                                                    \
        int i = 0;                                                                          \
        for (; i + 8 <= n; i += 8) {                                                        \
            v8f X, G;                                                                       \
            memcpy(&X, x + i, sizeof X);                                                    \
            memcpy(&G, g + i, sizeof G);                                                    \
            G += (EXPR);                                                                    \
            memcpy(g + i, &G, sizeof G);                                                    \
        }                                                                                   \
        for (; i < n; i++) {                                                                \
            float X = x[i];                                                                 \
            g[i] += (EXPR);                                                                 \
        }                                                                                   \
    } while (0)

CS_VEC static void poly_grad(float *restrict g, const float *restrict x, int n, int kind,
                             float a, float b, float c)
{
    if (kind == CS_REG_KERNEL_BIN)
        POLY_GRAD_LOOP(X * (b * X * X - c));
    else if (kind == CS_REG_KERNEL_OSB)
        POLY_GRAD_LOOP(X * (a + X * (b * X - c)));
    else
        POLY_GRAD_LOOP(X * (a + (X * X) * (b * (X * X) - c)));
}

/* The rows of a FLAT or HOLDER kernel (reg_builtins.def): Σg and Σg² in
 * double, then the gradient in float from g and g' (cs_reg_kernel.h):
 *   FLAT    N·Σg² − (Σg)²,  ∂/∂x = 2g'(N·g − Σg)
 *   HOLDER  √N‖g‖ − Σg,     ∂/∂x = g'(√N·g/‖g‖ − 1)
 * One function per kernel, so its g and g' are inlined. */
#define ELEM_ROW(ID, name, CLASS)                                                                  \
    static void row_##name(float *g, double *val, const float *x, int cols, float scale)        \
    {                                                                                              \
        double N = cols, s1 = 0, s2 = 0;                                                           \
        for (int i = 0; i < cols; i++) {                                                           \
            double u = cs_g_##name((double)x[i]);                                                  \
            s1 += u;                                                                               \
            s2 += u * u;                                                                           \
        }                                                                                          \
        if (CS_KC_##CLASS == CS_KC_HOLDER) {                                                       \
            double nrm = sqrt(s2);                                                                 \
            *val = sqrt(N) * nrm - s1;                                                             \
            float a = nrm > 0 ? (float)(sqrt(N) / nrm) * scale : 0.0f;                             \
            for (int i = 0; i < cols; i++) {                                                       \
                float u = cs_g_##name##f(x[i]), du = cs_dg_##name##f(x[i], u);                     \
                g[i] += a * (u * du) - scale * du;                                                 \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        *val = N * s2 - s1 * s1;                                                                   \
        for (int i = 0; i < cols; i++) {                                                           \
            float u = cs_g_##name##f(x[i]), du = cs_dg_##name##f(x[i], u);                         \
            g[i] += scale * du * (2.0f * (float)N * u - 2.0f * (float)s1);                         \
        }                                                                                          \
    }
#define ELEM_ROW_POLY(ID, name)
#define ELEM_ROW_FLAT(ID, name) ELEM_ROW(ID, name, FLAT)
#define ELEM_ROW_HOLDER(ID, name) ELEM_ROW(ID, name, HOLDER)
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH) ELEM_ROW_##CLASS(ID, name)
#include "reg_builtins.def"

/* The rows of a POLY kernel: sums of powers (pow_sums), then poly_grad. */
static void poly_row(float *g, double *val, const float *x, int cols, int kind, float scale)
{
    double N = cols, p[4];
    pow_sums(x, cols, kind, p);
    double s2 = p[0], s3 = p[1], s4 = p[2], s6 = p[3];
    if (kind == CS_REG_KERNEL_BIN) {
        *val = N * s4 - s2 * s2;
        float a = (float)(4 * N) * scale, c = (float)(4 * s2) * scale;
        poly_grad(g, x, cols, kind, 0.0f, a, c);
    } else if (kind == CS_REG_KERNEL_OSB) {
        *val = s2 * s4 - s3 * s3;
        float a = (float)(2 * s4) * scale, b = (float)(4 * s2) * scale,
              c = (float)(6 * s3) * scale;
        poly_grad(g, x, cols, kind, a, b, c);
    } else {
        *val = s2 * s6 - s4 * s4;
        float a = (float)(2 * s6) * scale, b = (float)(6 * s2) * scale,
              c = (float)(8 * s4) * scale;
        poly_grad(g, x, cols, kind, a, b, c);
    }
}

static void reg_row_range(float *dw, double *val, const float *w, int r0, int r1, int cols,
                          int kind, float scale)
{
    for (int r = r0; r < r1; r++) {
        const float *x = w + (size_t)r * cols;
        float *g = dw + (size_t)r * cols;
        switch (kind) {
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH) ROW_CASE_##CLASS(ID, name)
#define ROW_CASE_POLY(ID, name)                                                                    \
    case CS_REG_KERNEL_##ID: poly_row(g, &val[r], x, cols, kind, scale); break;
#define ROW_CASE_FLAT(ID, name)                                                                    \
    case CS_REG_KERNEL_##ID: row_##name(g, &val[r], x, cols, scale); break;
#define ROW_CASE_HOLDER(ID, name) ROW_CASE_FLAT(ID, name)
#include "reg_builtins.def"
        default: val[r] = 0; break;
        }
    }
}

/* REG_ROWS rows a task: each row's sums are its own */
#define REG_ROWS 8

typedef struct reg_job {
    float *dw;
    double *val;
    const float *w;
    int rows, cols, kind;
    float scale;
} reg_job;

static void reg_block(void *ctx, int t, int worker)
{
    (void)worker;
    const reg_job *j = ctx;
    int r0 = t * REG_ROWS, r1 = r0 + block_len(j->rows, REG_ROWS, t);
    reg_row_range(j->dw, j->val, j->w, r0, r1, j->cols, j->kind, j->scale);
}

static void reg_rows(float *dw, double *val, const float *w, int rows, int cols, int kind,
                     float scale)
{
    reg_job j = {dw, val, w, rows, cols, kind, scale};
    cs_par_for(blocks(rows, REG_ROWS), reg_block, &j);
}

/* ------------------------------------------------------------------ quantized weights */

CS_VEC static void quant_apply(float *w, const float *sign, const float *alpha, int rows, int cols)
{
    for (int r = 0; r < rows; r++)
        for (int i = 0; i < cols; i++)
            w[(size_t)r * cols + i] = alpha[r] * sign[(size_t)r * cols + i];
}

static void quant_scale_grad(float *dalpha, const float *dw, const float *sign, int rows,
                             int cols)
{
    for (int r = 0; r < rows; r++) {
        double s = 0;
        for (int i = 0; i < cols; i++)
            s += (double)dw[(size_t)r * cols + i] * sign[(size_t)r * cols + i];
        dalpha[r] = (float)s;
    }
}

const cs_nn_reg_ops cs_nn_cpu_reg_ops = {
    .rows = reg_rows,
    .quant_apply = quant_apply,
    .quant_scale_grad = quant_scale_grad,
};
