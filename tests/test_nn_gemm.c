/* test_nn_gemm.c — the CPU convolutions' own products (engine/nn/cpu/
 * nn_gemm.c) against their definition, bit for bit: every element one FMA
 * chain over k per block of k (OpenBLAS's SkylakeX blocking), the blocks
 * added in order. Skipped where nn_gemm does not run (no AVX-512). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/nn_gemm.h"
#include "cs_rng.h"

/* OpenBLAS's k blocks (nn_gemm.c): one when M·N·K <= 10⁶, else 448 while
 * 2·448 remain, then two halves, the first rounded up to 16 */
static int kblock(int K, int k0, int big)
{
    int r = K - k0;
    if (!big || r <= 448)
        return r;
    return r >= 896 ? 448 : (r / 2 + 15) / 16 * 16;
}

/* C[m, n] = Σ_blocks (FMA chain of a(m, k)·b(k, n)) (+ C when acc) */
static float chain(const float *A, size_t ams, size_t aks, const float *B, size_t bks,
                   size_t bns, int m, int n, int M, int N, int K, float c0)
{
    int big = (double)M * N * K > 1e6;
    float c = c0;
    for (int k0 = 0, len; k0 < K; k0 += len) {
        len = kblock(K, k0, big);
        float a = 0.0f;
        for (int k = k0; k < k0 + len; k++)
            a = fmaf(A[m * ams + k * aks], B[k * bks + n * bns], a);
        c = k0 == 0 && c0 == 0.0f ? a : c + a;
    }
    return c;
}

static void fill(float *x, size_t n, cs_rng *r)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(cs_rng_uniform(r) * 2 - 1);
}

static size_t differ(const float *x, const float *y, size_t n)
{
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += memcmp(&x[i], &y[i], sizeof *x) != 0;
    return d;
}

/* the shapes of resnet20's and the cnn's convolutions (forward, dinp) and
 * one with two k blocks */
static void test_nn(void **state)
{
    (void)state;
    int shapes[][3] = {{16, 1024, 144}, {32, 256, 288}, {64, 64, 576}, {32, 784, 144},
                       {32, 196, 288},  {16, 96, 500},  {32, 64, 1000}};
    cs_rng r;
    cs_rng_init(&r, 7, 0);
    int ran = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        if (!nn_gemm_nn_ok(M, N, K))
            continue;
        ran++;
        size_t ldb = (size_t)N + 16;
        float *A = malloc(sizeof(float) * M * K), *Ap = malloc(sizeof(float) * M * K);
        float *B = malloc(sizeof(float) * K * ldb), *C = malloc(sizeof(float) * M * N);
        float *R = malloc(sizeof(float) * M * N), *At = malloc(sizeof(float) * M * K);
        fill(A, (size_t)M * K, &r);
        fill(B, (size_t)K * ldb, &r);
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++)
                R[m * N + n] = chain(A, K, 1, B, ldb, 1, m, n, M, N, K, 0.0f);
        nn_gemm_pack(Ap, A, M, K);
        nn_gemm_nn(C, N, Ap, B, ldb, M, N, K);
        assert_int_equal(differ(C, R, (size_t)M * N), 0);
        for (int m = 0; m < M; m++)   /* the same through Aᵀ (K × M) */
            for (int k = 0; k < K; k++)
                At[k * M + m] = A[m * K + k];
        memset(Ap, 0, sizeof(float) * M * K);
        nn_gemm_pack_tn(Ap, At, M, K);
        nn_gemm_nn(C, N, Ap, B, ldb, M, N, K);
        assert_int_equal(differ(C, R, (size_t)M * N), 0);
        free(A), free(Ap), free(B), free(C), free(R), free(At);
    }
    if (!ran)
        skip();
}

/* dW's shapes: C (M × N) = A (M × K, lda)·Bᵀ, then + C */
static void test_nt(void **state)
{
    (void)state;
    int shapes[][3] = {{144, 16, 1024}, {288, 32, 256}, {576, 64, 64}, {288, 32, 196},
                       {144, 20, 784}};
    cs_rng r;
    cs_rng_init(&r, 8, 0);
    int ran = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        if (!nn_gemm_nt_ok(M, N, K))
            continue;
        ran++;
        size_t lda = (size_t)K + 16, nb = ((size_t)N + 15) / 16 * 16;
        float *A = malloc(sizeof(float) * M * lda), *B = malloc(sizeof(float) * N * K);
        float *Bt = malloc(sizeof(float) * nb * K), *C = malloc(sizeof(float) * M * N);
        float *R = malloc(sizeof(float) * M * N);
        fill(A, (size_t)M * lda, &r);
        fill(B, (size_t)N * K, &r);
        nn_gemm_pack_t(Bt, B, K, N, K);
        for (int k = 0; k < K; k++)
            for (int i = 0; i < (int)nb; i++)
                assert_true(Bt[((size_t)(i / 16) * K + k) * 16 + i % 16] ==
                            (i < N ? B[(size_t)i * K + k] : 0.0f));
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++)
                R[m * N + n] = chain(A, lda, 1, B, 1, K, m, n, M, N, K, 0.0f);
        nn_gemm_nt(C, A, lda, Bt, M, N, K, 0);
        assert_int_equal(differ(C, R, (size_t)M * N), 0);
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++)
                R[m * N + n] = chain(A, lda, 1, B, 1, K, m, n, M, N, K, R[m * N + n]);
        nn_gemm_nt(C, A, lda, Bt, M, N, K, 1);
        assert_int_equal(differ(C, R, (size_t)M * N), 0);
        free(A), free(B), free(Bt), free(C), free(R);
    }
    if (!ran)
        skip();
}

/* the 3×3 convolution without an im2col block: nn_gemm_nn of the im2col */
static void test_conv3(void **state)
{
    (void)state;
    int shapes[][4] = {{16, 16, 32, 32}, {32, 32, 16, 16}, {16, 5, 8, 32}};   /* M, C, H, W */
    cs_rng r;
    cs_rng_init(&r, 9, 0);
    int ran = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int M = shapes[s][0], Cin = shapes[s][1], H = shapes[s][2], W = shapes[s][3];
        int HW = H * W, K = Cin * 9;
        if (!nn_gemm_conv3_ok(M, Cin, H, W))
            continue;
        ran++;
        float *A = malloc(sizeof(float) * M * K), *Ap = malloc(sizeof(float) * M * K);
        float *in = malloc(sizeof(float) * Cin * HW), *col = calloc((size_t)K * HW, sizeof *col);
        float *C = malloc(sizeof(float) * M * HW), *R = malloc(sizeof(float) * M * HW);
        fill(A, (size_t)M * K, &r);
        fill(in, (size_t)Cin * HW, &r);
        for (int c = 0; c < Cin; c++)
            for (int t = 0; t < 9; t++)
                for (int y = 0; y < H; y++)
                    for (int x = 0; x < W; x++) {
                        int iy = y + t / 3 - 1, ix = x + t % 3 - 1;
                        col[(size_t)(c * 9 + t) * HW + y * W + x] =
                            iy >= 0 && iy < H && ix >= 0 && ix < W ? in[(c * H + iy) * W + ix]
                                                                   : 0.0f;
                    }
        nn_gemm_pack(Ap, A, M, K);
        nn_gemm_nn(R, HW, Ap, col, HW, M, HW, K);
        nn_gemm_conv3(C, Ap, in, M, Cin, H, W);
        assert_int_equal(differ(C, R, (size_t)M * HW), 0);
        free(A), free(Ap), free(in), free(col), free(C), free(R);
    }
    if (!ran)
        skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nn),
        cmocka_unit_test(test_nt),
        cmocka_unit_test(test_conv3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
