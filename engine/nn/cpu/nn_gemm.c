/* cpu/nn_gemm.c — the products of the 3×3 convolutions (nn_ops.c) without
 * OpenBLAS's packing. At resnet20's shapes sgemm spent a third of its time
 * copying the im2col block into its panels; these loops read it in place
 * (16 pixels of a row a vector, 16 rows of the small operand broadcast) and
 * run 1.2–1.7 times faster.
 * The same bits as the sgemm they replace: OpenBLAS's SkylakeX sgemm sums
 * every element as one FMA chain over k from 0, per block of k, and adds
 * the blocks to C in order. Its blocks: all of K below 2·448 when
 * M·N·K <= 10⁶ (the small-matrix kernel, whose chains match only for N a
 * multiple of 16), else blocks of Q = 448 while 2·Q remain, then two halves
 * (the first rounded up to 16). nn_gemm_*_ok admits only shapes inside
 * that rule, with a margin around 10⁶, and the loops below make exactly
 * those chains. AVX-512 only: elsewhere the callers keep cblas_sgemm. */
#include "nn_gemm.h"

#include <string.h>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define NN_GEMM_AVX512 1
#include <immintrin.h>
#endif

#define GEMM_Q 448

/* OpenBLAS's path: 1 the blocked one, 0 the small-matrix kernel, −1 too
 * close to its threshold to tell */
static int blocked(int M, int N, int K)
{
    double mnk = (double)M * N * K;
    return mnk > 1.01e6 ? 1 : mnk < 0.99e6 ? 0 : -1;
}

/* the length of the k block starting at k0 */
static int kblock(int K, int k0, int big)
{
    int r = K - k0;
    if (!big || r <= GEMM_Q)
        return r;
    if (r >= 2 * GEMM_Q)
        return GEMM_Q;
    return (r / 2 + 15) / 16 * 16;
}

static int have_avx512(void)
{
#ifdef NN_GEMM_AVX512
    return __builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}

int nn_gemm_nn_ok(int M, int N, int K)
{
    int b = blocked(M, N, K);
    return have_avx512() && M % 16 == 0 && K >= 32 && (b == 1 || (b == 0 && N % 16 == 0));
}

int nn_gemm_conv3_ok(int M, int C, int H, int W)
{
    return W % 16 == 0 && nn_gemm_nn_ok(M, H * W, C * 9);
}

int nn_gemm_nt_ok(int M, int N, int K)
{
    return have_avx512() && M % 16 == 0 && K >= 32 && blocked(M, N, K) == 1;
}

void nn_gemm_pack(float *Ap, const float *A, int M, int K)
{
    for (int mb = 0; mb < M / 16; mb++)
        for (int k = 0; k < K; k++)
            for (int i = 0; i < 16; i++)
                Ap[((size_t)mb * K + k) * 16 + i] = A[((size_t)mb * 16 + i) * K + k];
}

void nn_gemm_pack_tn(float *Ap, const float *A, int M, int K)
{
    for (int mb = 0; mb < M / 16; mb++)
        for (int k = 0; k < K; k++)
            memcpy(Ap + ((size_t)mb * K + k) * 16, A + (size_t)k * M + (size_t)mb * 16,
                   16 * sizeof *Ap);
}

/* rows r of B (0 at and past N), k from k0 */
static void pack_t_rest(float *Bt, const float *B, size_t ldb, int N, int K, int cb, int k0)
{
    for (int i = 0; i < 16; i++) {
        float *d = Bt + (size_t)cb * K * 16 + i;
        int r = cb * 16 + i;
        const float *s = B + (size_t)r * ldb;
        for (int k = k0; k < K; k++)
            d[(size_t)k * 16] = r < N ? s[k] : 0.0f;
    }
}

#ifdef NN_GEMM_AVX512
/* 16 × 16 blocks transposed in registers (the scalar loop, a store 64
 * bytes from the last, was 5% of a resnet20 step) */
__attribute__((target("avx512f"))) static void pack_t_16(float *Bt, const float *B, size_t ldb,
                                                          int N, int K, int cb, int k0)
{
    __m512 r[16], t[16], u[16];
    for (int i = 0; i < 16; i++)
        r[i] = cb * 16 + i < N ? _mm512_loadu_ps(B + (size_t)(cb * 16 + i) * ldb + k0)
                               : _mm512_setzero_ps();
    for (int j = 0; j < 4; j++) {
        t[4 * j] = _mm512_unpacklo_ps(r[4 * j], r[4 * j + 1]);
        t[4 * j + 1] = _mm512_unpackhi_ps(r[4 * j], r[4 * j + 1]);
        t[4 * j + 2] = _mm512_unpacklo_ps(r[4 * j + 2], r[4 * j + 3]);
        t[4 * j + 3] = _mm512_unpackhi_ps(r[4 * j + 2], r[4 * j + 3]);
    }
    for (int j = 0; j < 4; j++) {
        __m512d a = _mm512_castps_pd(t[4 * j]), b = _mm512_castps_pd(t[4 * j + 1]);
        __m512d c = _mm512_castps_pd(t[4 * j + 2]), d = _mm512_castps_pd(t[4 * j + 3]);
        u[4 * j] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
        u[4 * j + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
        u[4 * j + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
        u[4 * j + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
    }
    /* u[4j + c]: its lane L holds column 4L + c of rows 4j..4j+3 */
    float *d = Bt + ((size_t)cb * K + k0) * 16;
    for (int c = 0; c < 4; c++) {
        __m512 x = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);
        __m512 y = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);
        __m512 z = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
        __m512 w = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
        _mm512_storeu_ps(d + (size_t)c * 16, _mm512_shuffle_f32x4(x, z, 0x88));
        _mm512_storeu_ps(d + (size_t)(8 + c) * 16, _mm512_shuffle_f32x4(x, z, 0xDD));
        _mm512_storeu_ps(d + (size_t)(4 + c) * 16, _mm512_shuffle_f32x4(y, w, 0x88));
        _mm512_storeu_ps(d + (size_t)(12 + c) * 16, _mm512_shuffle_f32x4(y, w, 0xDD));
    }
}
#endif

void nn_gemm_pack_t(float *Bt, const float *B, size_t ldb, int N, int K)
{
    for (int cb = 0; cb < (N + 15) / 16; cb++) {
        int k0 = 0;
#ifdef NN_GEMM_AVX512
        if (have_avx512())
            for (; k0 + 16 <= K; k0 += 16)
                pack_t_16(Bt, B, ldb, N, K, cb, k0);
#endif
        pack_t_rest(Bt, B, ldb, N, K, cb, k0);
    }
}

#ifdef NN_GEMM_AVX512

#define NN_T __attribute__((target("avx512f")))
#define ACC_DECL                                                                            \
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0,  \
           a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0, a12 = a0, a13 = a0, a14 = a0,     \
           a15 = a0
#define FMA16(S)                                                                            \
    a0 = _mm512_fmadd_ps(_mm512_set1_ps(S(0)), b, a0);                                      \
    a1 = _mm512_fmadd_ps(_mm512_set1_ps(S(1)), b, a1);                                      \
    a2 = _mm512_fmadd_ps(_mm512_set1_ps(S(2)), b, a2);                                      \
    a3 = _mm512_fmadd_ps(_mm512_set1_ps(S(3)), b, a3);                                      \
    a4 = _mm512_fmadd_ps(_mm512_set1_ps(S(4)), b, a4);                                      \
    a5 = _mm512_fmadd_ps(_mm512_set1_ps(S(5)), b, a5);                                      \
    a6 = _mm512_fmadd_ps(_mm512_set1_ps(S(6)), b, a6);                                      \
    a7 = _mm512_fmadd_ps(_mm512_set1_ps(S(7)), b, a7);                                      \
    a8 = _mm512_fmadd_ps(_mm512_set1_ps(S(8)), b, a8);                                      \
    a9 = _mm512_fmadd_ps(_mm512_set1_ps(S(9)), b, a9);                                      \
    a10 = _mm512_fmadd_ps(_mm512_set1_ps(S(10)), b, a10);                                   \
    a11 = _mm512_fmadd_ps(_mm512_set1_ps(S(11)), b, a11);                                   \
    a12 = _mm512_fmadd_ps(_mm512_set1_ps(S(12)), b, a12);                                   \
    a13 = _mm512_fmadd_ps(_mm512_set1_ps(S(13)), b, a13);                                   \
    a14 = _mm512_fmadd_ps(_mm512_set1_ps(S(14)), b, a14);                                   \
    a15 = _mm512_fmadd_ps(_mm512_set1_ps(S(15)), b, a15)

/* rows 0..15 of C (ldc apart), the lanes of mask: the block's sums, or
 * added to C's (the blocks after the first, as OpenBLAS adds them) */
NN_T static inline __attribute__((always_inline)) void
store16(float *C, size_t ldc, __m512 *acc, int add, __mmask16 mask)
{
    for (int i = 0; i < 16; i++) {
        float *c = C + (size_t)i * ldc;
        __m512 r = add ? _mm512_add_ps(_mm512_maskz_loadu_ps(mask, c), acc[i]) : acc[i];
        _mm512_mask_storeu_ps(c, mask, r);
    }
}

/* 16 rows × 16 columns (mask) of C over n values of k: a = the packed A's
 * 16 values a row of k, b = B's row k */
NN_T static void tile_nn(float *C, size_t ldc, const float *a, const float *B, size_t ldb, int n,
                         int add, __mmask16 mask)
{
    ACC_DECL;
#define NN_A(i) a[i]
    for (int k = 0; k < n; k++, a += 16, B += ldb) {
        __m512 b = _mm512_maskz_loadu_ps(mask, B);
        FMA16(NN_A);
    }
#undef NN_A
    __m512 acc[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
    store16(C, ldc, acc, add, mask);
}

NN_T void nn_gemm_nn(float *C, size_t ldc, const float *Ap, const float *B, size_t ldb, int M,
                     int N, int K)
{
    int big = blocked(M, N, K) == 1;
    for (int mb = 0; mb < M / 16; mb++)
        for (int p = 0; p < N; p += 16) {
            int w = N - p < 16 ? N - p : 16;
            __mmask16 mask = (__mmask16)((1u << w) - 1);
            for (int k0 = 0, n; k0 < K; k0 += n) {
                n = kblock(K, k0, big);
                tile_nn(C + (size_t)mb * 16 * ldc + p, ldc, Ap + ((size_t)mb * K + k0) * 16,
                        B + (size_t)k0 * ldb + p, ldb, n, k0 > 0, mask);
            }
        }
}

/* tile_nn with B the im2col of one image's C × H × W input (3×3, padding
 * 1) read in place: the tile is 16 pixels x0.. of row y (W a multiple of
 * 16), k = c·9 + ky·3 + kx reads row y + ky − 1 shifted by kx − 1, the
 * lanes outside the image masked to 0 (the values im2col writes) */
NN_T static void tile_conv3(float *C, size_t ldc, const float *a, const float *inp, int H, int W,
                            int y, int x0, int k0, int n, int add)
{
    ptrdiff_t off[9];
    __mmask16 msk[9];
    for (int t = 0; t < 9; t++) {
        int ky = t / 3, kx = t % 3, row = y + ky - 1;
        unsigned m = 0xffffu;
        if (kx == 0 && x0 == 0)
            m &= 0xfffeu;
        if (kx == 2 && x0 + 16 == W)
            m &= 0x7fffu;
        msk[t] = (__mmask16)(row >= 0 && row < H ? m : 0u);
        off[t] = (ptrdiff_t)row * W + x0 + kx - 1;
    }
    size_t HW = (size_t)H * W;
    const float *img = inp + (size_t)(k0 / 9) * HW;
    int t = k0 % 9;
    ACC_DECL;
#define NN_A(i) a[i]
    for (int k = 0; k < n; k++, a += 16) {
        __m512 b = _mm512_maskz_loadu_ps(msk[t], img + off[t]);
        FMA16(NN_A);
        if (++t == 9) {
            t = 0;
            img += HW;
        }
    }
#undef NN_A
    __m512 acc[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
    store16(C, ldc, acc, add, _cvtu32_mask16(0xffffu));
}

NN_T void nn_gemm_conv3(float *C, const float *Ap, const float *inp, int M, int Cin, int H, int W)
{
    int HW = H * W, K = Cin * 9, big = blocked(M, HW, K) == 1;
    for (int mb = 0; mb < M / 16; mb++)
        for (int y = 0; y < H; y++)
            for (int x0 = 0; x0 < W; x0 += 16)
                for (int k0 = 0, n; k0 < K; k0 += n) {
                    n = kblock(K, k0, big);
                    tile_conv3(C + (size_t)mb * 16 * HW + (size_t)y * W + x0, (size_t)HW,
                               Ap + ((size_t)mb * K + k0) * 16, inp, H, W, y, x0, k0, n, k0 > 0);
                }
}

/* 16 rows of C (A's rows, lda apart, broadcast) × 16 columns (mask) over n
 * values of k: bt = the packed Bᵀ's 16 values a k */
NN_T static void tile_nt(float *C, size_t ldc, const float *a, size_t lda, const float *bt, int n,
                         int add, __mmask16 mask)
{
    ACC_DECL;
#define NT_A(i) a[(size_t)(i) * lda]
    for (int k = 0; k < n; k++, a++, bt += 16) {
        __m512 b = _mm512_loadu_ps(bt);
        FMA16(NT_A);
    }
#undef NT_A
    __m512 acc[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
    store16(C, ldc, acc, add, mask);
}

NN_T void nn_gemm_nt(float *C, const float *A, size_t lda, const float *Bt, int M, int N, int K,
                     int acc)
{
    int big = blocked(M, N, K) == 1;
    for (int cb = 0; cb < (N + 15) / 16; cb++) {
        int w = N - cb * 16 < 16 ? N - cb * 16 : 16;
        __mmask16 mask = (__mmask16)((1u << w) - 1);
        for (int m = 0; m < M; m += 16)
            for (int k0 = 0, n; k0 < K; k0 += n) {
                n = kblock(K, k0, big);
                tile_nt(C + (size_t)m * N + cb * 16, (size_t)N, A + (size_t)m * lda + k0, lda,
                        Bt + ((size_t)cb * K + k0) * 16, n, acc || k0 > 0, mask);
            }
    }
}

#else   /* no AVX-512 build: nn_gemm_*_ok says no, these are never called */

void nn_gemm_conv3(float *C, const float *Ap, const float *inp, int M, int Cin, int H, int W)
{
    (void)C, (void)Ap, (void)inp, (void)M, (void)Cin, (void)H, (void)W;
}

void nn_gemm_nn(float *C, size_t ldc, const float *Ap, const float *B, size_t ldb, int M, int N,
                int K)
{
    (void)C, (void)ldc, (void)Ap, (void)B, (void)ldb, (void)M, (void)N, (void)K;
}

void nn_gemm_nt(float *C, const float *A, size_t lda, const float *Bt, int M, int N, int K,
                int acc)
{
    (void)C, (void)A, (void)lda, (void)Bt, (void)M, (void)N, (void)K, (void)acc;
}

#endif
