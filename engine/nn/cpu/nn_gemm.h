/* cpu/nn_gemm.h — the 3×3 convolutions' matrix products without
 * OpenBLAS's packing (nn_gemm.c): the same bits as cblas_sgemm on the
 * SkylakeX kernel, read in place. */
#ifndef CS_NN_GEMM_H
#define CS_NN_GEMM_H

#include <stddef.h>

/* Whether nn_gemm_nn (M × N result, sums of K) and nn_gemm_nt can stand
 * for cblas_sgemm here: AVX-512, M a multiple of 16, K >= 32, and a shape
 * whose OpenBLAS blocking is the one nn_gemm.c repeats. */
int nn_gemm_nn_ok(int M, int N, int K);
int nn_gemm_nt_ok(int M, int N, int K);   /* also for A packed by nn_gemm_pack_tn */

/* Ap[(mb·K + k)·16 + i] = A[(16·mb + i)·K + k]: A (M × K, row-major) by
 * blocks of 16 rows, k-major (M a multiple of 16) */
void nn_gemm_pack(float *Ap, const float *A, int M, int K);

/* Ap as nn_gemm_pack's for Aᵀ, A K × M (row-major): the A of
 * cblas_sgemm(RowMajor, Trans, NoTrans, ...) */
void nn_gemm_pack_tn(float *Ap, const float *A, int M, int K);

/* C (M × N, row-major, ldc) = A·B, A packed by nn_gemm_pack, B K × N
 * (ldb): cblas_sgemm(RowMajor, NoTrans, NoTrans, M, N, K, 1, A, K, B, ldb,
 * 0, C, ldc) */
void nn_gemm_nn(float *C, size_t ldc, const float *Ap, const float *B, size_t ldb, int M, int N,
                int K);

/* C (M × H·W) = A·im2col(inp) for a 3×3 convolution (padding 1) of the
 * C × H × W image inp, A packed by nn_gemm_pack (M × C·9), without the
 * im2col block: nn_gemm_nn's bits. W a multiple of 16. */
int nn_gemm_conv3_ok(int M, int C, int H, int W);
void nn_gemm_conv3(float *C, const float *Ap, const float *inp, int M, int Cin, int H, int W);

/* Bt[(cb·K + k)·16 + i] = B[(16·cb + i)·ldb + k] (0 past N rows): B (N × K)
 * transposed by blocks of 16 rows, the B of nn_gemm_nt */
void nn_gemm_pack_t(float *Bt, const float *B, size_t ldb, int N, int K);

/* C (M × N, ldc = N) = A (M × K, lda)·Bᵀ + (acc ? C : 0), B packed by
 * nn_gemm_pack_t: cblas_sgemm(RowMajor, NoTrans, Trans, M, N, K, 1, A,
 * lda, B, ldb, acc, C, N) */
void nn_gemm_nt(float *C, const float *A, size_t lda, const float *Bt, int M, int N, int K,
                int acc);

#endif
