/* proj.c — affine projector (Cholesky / range basis / null-space basis),
 * box projection and the proximal operators of ‖·‖∞ and ‖·‖₁. */
#include "cs_proj.h"
#include "cs_simd.h"

#include <cblas.h>
#include <lapacke.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cs_affine {
    size_t M, N, K;
    int method;
    size_t r;      /* basis columns: RANGE M, NULL N−M, CHOL 0 */
    double *A;     /* M×N row-major */
    double *b;     /* M×K row-major */
    double *L;     /* CHOL: Cholesky factor of AAᵀ, M×M row-major, lower */
    double *U;     /* RANGE/NULL: basis, N×r row-major */
    double *c;     /* RANGE: Qᵀx = c on the affine set, r×K */
    double *xp;    /* minimum-norm solution, N×K */
    double *work;  /* max(M, N)×K */
    /* AVX2 path (K = 1, CPUs with AVX2+FMA): the basis transposed and padded,
     * Vt[j·Np + i] = U[i·r + j], Np = N rounded up to 4, 32-byte aligned. */
    int simd;
    size_t Np;
    double *Vt, *gp, *dp, *xpp, *tp;
    double *gb, *db, *tb; /* four padded vectors and their t's (batched P₀) */
};

#if defined(__x86_64__) && defined(__GNUC__)
#define CS_SIMD_FN __attribute__((target("avx2,fma")))

CS_SIMD_FN static inline double hsum4(__m256d v)
{
    __m128d lo = _mm256_castpd256_pd128(v), hi = _mm256_extractf128_pd(v, 1);
    lo = _mm_add_pd(lo, hi);
    return _mm_cvtsd_f64(_mm_add_sd(lo, _mm_unpackhi_pd(lo, lo)));
}

/* The two passes of P₀ over the basis Vt (r rows of Np, padded, aligned),
 * for V vectors at once:
 *   T:     t_k[j] = Σ_i Vt[j·Np + i]·g_k[i]          (g_k padded with zeros)
 *   APPLY: out_k = base_k + s·Σ_j t_k[j]·Vt[j]      (base_k NULL: 0)
 * Each value has one FMA chain (T: over i in steps of 4, then hsum4; APPLY:
 * over j per 4 entries, then ·s + base), whatever the blocking, so a
 * vector's result does not depend on how many came with it. The blocks
 * (R rows or C chunks × V vectors) keep ≥ 8 chains in flight to cover the
 * FMA latency; batches share each load of Vt. */
#define U _Pragma("GCC unroll 16")
#define T_BLOCK(R, V)                                                                      \
    do {                                                                                   \
        __m256d acc[R][V];                                                                 \
        U for (int q = 0; q < R; q++) U for (int k = 0; k < V; k++) acc[q][k] =            \
            _mm256_setzero_pd();                                                           \
        for (size_t i = 0; i < Np; i += 4) {                                               \
            __m256d x[R];                                                                  \
            U for (int q = 0; q < R; q++) x[q] = _mm256_load_pd(Vt + (j + q) * Np + i);    \
            U for (int k = 0; k < V; k++) {                                                \
                __m256d h = _mm256_loadu_pd(g[k] + i);                                     \
                U for (int q = 0; q < R; q++) acc[q][k] = _mm256_fmadd_pd(x[q], h, acc[q][k]); \
            }                                                                              \
        }                                                                                  \
        U for (int q = 0; q < R; q++) U for (int k = 0; k < V; k++) t[k][j + q] =          \
            hsum4(acc[q][k]);                                                              \
        j += R;                                                                            \
    } while (0)

#define APPLY_BLOCK(C, V)                                                                  \
    do {                                                                                   \
        __m256d acc[C][V];                                                                 \
        U for (int c = 0; c < C; c++) U for (int k = 0; k < V; k++) acc[c][k] = zero;     \
        const double *v = Vt + i;                                                          \
        for (size_t j = 0; j < r; j++, v += Np) {                                          \
            __m256d x[C];                                                                  \
            U for (int c = 0; c < C; c++) x[c] = _mm256_load_pd(v + 4 * c);                \
            U for (int k = 0; k < V; k++) {                                                \
                __m256d h = _mm256_broadcast_sd(t[k] + j);                                 \
                U for (int c = 0; c < C; c++) acc[c][k] = _mm256_fmadd_pd(x[c], h, acc[c][k]); \
            }                                                                              \
        }                                                                                  \
        U for (int k = 0; k < V; k++) U for (int c = 0; c < C; c++) {                      \
            __m256d bv = base[k] ? _mm256_loadu_pd(base[k] + i + 4 * c) : zero;            \
            _mm256_storeu_pd(out[k] + i + 4 * c, _mm256_fmadd_pd(acc[c][k], sv, bv));      \
        }                                                                                  \
        i += 4 * C;                                                                        \
    } while (0)

/* Near-equal blocks of at most `most` rows (T) or 4-entry chunks (APPLY):
 * r = 36 with most = 10 is 9+9+9+9, not 10+10+10+4+1+1, so that no block
 * is left with one or two chains waiting on the FMA latency. */
#define SPLIT(total, most, SWITCH)                                                         \
    do {                                                                                   \
        size_t t_ = (total), nb_ = (t_ + (most)-1) / (most);                               \
        for (size_t k_ = 0; k_ < nb_; k_++) {                                              \
            size_t n_ = t_ / nb_ + (k_ < t_ % nb_);                                        \
            switch (n_) { SWITCH }                                                         \
        }                                                                                  \
    } while (0)
#define CASE(OP, n, V) \
    case n: OP(n, V); break;
#define UPTO3(OP, V) CASE(OP, 1, V) CASE(OP, 2, V) CASE(OP, 3, V)
#define UPTO4(OP, V) UPTO3(OP, V) CASE(OP, 4, V)
#define UPTO5(OP, V) UPTO4(OP, V) CASE(OP, 5, V)
#define UPTO10(OP, V) \
    UPTO5(OP, V) CASE(OP, 6, V) CASE(OP, 7, V) CASE(OP, 8, V) CASE(OP, 9, V) CASE(OP, 10, V)

/* V = 1..4 vectors: up to 10 rows or chunks for one, 5, 4, 3 for more (10–12 chains) */
CS_SIMD_FN static void simd_tv(const double *Vt, size_t Np, size_t r, size_t V,
                               const double *const *g, double *const *t)
{
    size_t j = 0;
    switch (V) {
    case 1: SPLIT(r, 10, UPTO10(T_BLOCK, 1)); break;
    case 2: SPLIT(r, 5, UPTO5(T_BLOCK, 2)); break;
    case 3: SPLIT(r, 4, UPTO4(T_BLOCK, 3)); break;
    default: SPLIT(r, 3, UPTO3(T_BLOCK, 4));
    }
}

CS_SIMD_FN static void simd_applyv(const double *Vt, size_t Np, size_t r, size_t V,
                                   const double *const *t, double s, const double *const *base,
                                   double *const *out)
{
    __m256d sv = _mm256_set1_pd(s), zero = _mm256_setzero_pd();
    size_t i = 0, chunks = Np / 4;
    switch (V) {
    case 1: SPLIT(chunks, 10, UPTO10(APPLY_BLOCK, 1)); break;
    case 2: SPLIT(chunks, 5, UPTO5(APPLY_BLOCK, 2)); break;
    case 3: SPLIT(chunks, 4, UPTO4(APPLY_BLOCK, 3)); break;
    default: SPLIT(chunks, 3, UPTO3(APPLY_BLOCK, 4));
    }
}

CS_SIMD_FN static void simd_t(const double *Vt, size_t Np, size_t r, const double *g, double *t)
{
    simd_tv(Vt, Np, r, 1, &g, &t);
}

CS_SIMD_FN static void simd_apply(const double *Vt, size_t Np, size_t r, const double *t,
                                  double s, const double *base, double *out)
{
    simd_applyv(Vt, Np, r, 1, &t, s, &base, &out);
}
#undef SPLIT
#undef CASE
#undef UPTO3
#undef UPTO4
#undef UPTO5
#undef UPTO10
#undef U
#else
static void simd_t(const double *Vt, size_t Np, size_t r, const double *g, double *t)
{
    (void)Vt, (void)Np, (void)r, (void)g, (void)t;
}
static void simd_apply(const double *Vt, size_t Np, size_t r, const double *t, double s,
                       const double *base, double *out)
{
    (void)Vt, (void)Np, (void)r, (void)t, (void)s, (void)base, (void)out;
}
static void simd_tv(const double *Vt, size_t Np, size_t r, size_t V, const double *const *g,
                    double *const *t)
{
    (void)Vt, (void)Np, (void)r, (void)V, (void)g, (void)t;
}
static void simd_applyv(const double *Vt, size_t Np, size_t r, size_t V, const double *const *t,
                        double s, const double *const *base, double *const *out)
{
    (void)Vt, (void)Np, (void)r, (void)V, (void)t, (void)s, (void)base, (void)out;
}
#endif

/* SIMD forms of P and P₀ for K = 1 (range and null bases). */
static void simd_project(cs_affine *P, const double *z, double *x, int dir)
{
    size_t N = P->N, r = P->r, Np = P->Np;
    /* in place (x may alias z: each entry is read before it is written)
     * unless N needs padding */
    int pad = Np != N;
    const double *in = z;
    double *out = pad ? P->dp : x;
    if (pad) {
        memcpy(P->gp, z, N * sizeof *z);
        in = P->gp;
    }
    simd_t(P->Vt, Np, r, in, P->tp);
    if (P->method == CS_AFFINE_RANGE) {
        if (!dir)
            for (size_t j = 0; j < r; j++)
                P->tp[j] -= P->c[j];
        simd_apply(P->Vt, Np, r, P->tp, -1.0, in, out);
    } else {
        simd_apply(P->Vt, Np, r, P->tp, 1.0, dir ? NULL : P->xpp, out);
    }
    if (pad)
        memcpy(x, P->dp, N * sizeof *x);
}

void cs_affine_set_simd(cs_affine *P, int on) { P->simd = on && P->Vt != NULL; }
int cs_affine_simd(const cs_affine *P) { return P->simd; }

const char *cs_affine_method_name(int method)
{
    switch (method) {
    case CS_AFFINE_AUTO: return "auto";
    case CS_AFFINE_CHOL: return "chol";
    case CS_AFFINE_RANGE: return "range";
    case CS_AFFINE_NULL: return "null";
    default: return "?";
    }
}

int cs_affine_method(const cs_affine *P) { return P->method; }
size_t cs_affine_rank(const cs_affine *P) { return P->method == CS_AFFINE_CHOL ? P->M : P->r; }
const double *cs_affine_basis(const cs_affine *P) { return P->U; }

const double *cs_affine_particular(const cs_affine *P) { return P->xp; }

void cs_affine_free(cs_affine *P)
{
    if (!P)
        return;
    free(P->A);
    free(P->b);
    free(P->L);
    free(P->U);
    free(P->c);
    free(P->xp);
    free(P->work);
    free(P->Vt);
    free(P->gp);
    free(P->dp);
    free(P->xpp);
    free(P->tp);
    free(P->gb);
    free(P->db);
    free(P->tb);
    free(P);
}

/* T = UᵀZ for N×K Z. OpenBLAS gemv/gemm: at N = 100 its kernels beat
 * plain C loops (compiled for baseline x86-64) by 3–4×. */
static void basis_T(const cs_affine *P, const double *Z, double *T)
{
    if (P->K == 1)
        cblas_dgemv(CblasRowMajor, CblasTrans, (int)P->N, (int)P->r, 1.0, P->U, (int)P->r, Z, 1,
                    0.0, T, 1);
    else
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)P->r, (int)P->K, (int)P->N,
                    1.0, P->U, (int)P->r, Z, (int)P->K, 0.0, T, (int)P->K);
}

/* X = base + s·U·T (base may alias X). */
static void basis_apply(const cs_affine *P, const double *base, double s, const double *T,
                        double *X)
{
    size_t N = P->N, r = P->r, K = P->K;
    if (X != base)
        memcpy(X, base, N * K * sizeof *X);
    if (K == 1)
        cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)N, (int)r, s, P->U, (int)r, T, 1, 1.0, X,
                    1);
    else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)N, (int)K, (int)r, s, P->U,
                    (int)r, T, (int)K, 1.0, X, (int)K);
}

/* CHOL: y = (AAᵀ)⁻¹ R for M×K R, in place. */
static void chol_solve(const cs_affine *P, double *R)
{
    int M = (int)P->M, K = (int)P->K;
    if (K == 1) {
        cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, M, P->L, M, R, 1);
        cblas_dtrsv(CblasRowMajor, CblasLower, CblasTrans, CblasNonUnit, M, P->L, M, R, 1);
    } else {
        cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, M, K, 1.0,
                    P->L, M, R, K);
        cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, M, K, 1.0,
                    P->L, M, R, K);
    }
}

/* CHOL: X = Z − Aᵀ(AAᵀ)⁻¹(AZ − sb), s = 1 for P, 0 for P₀. */
static void chol_apply(cs_affine *P, const double *Z, double *X, double s)
{
    int M = (int)P->M, N = (int)P->N, K = (int)P->K;
    double *R = P->work;
    if (K == 1) {
        for (int i = 0; i < M; i++)
            R[i] = -s * P->b[i];
        cblas_dgemv(CblasRowMajor, CblasNoTrans, M, N, 1.0, P->A, N, Z, 1, 1.0, R, 1);
        chol_solve(P, R);
        if (X != Z)
            memcpy(X, Z, (size_t)N * sizeof *X);
        cblas_dgemv(CblasRowMajor, CblasTrans, M, N, -1.0, P->A, N, R, 1, 1.0, X, 1);
        return;
    }
    for (size_t i = 0; i < (size_t)M * (size_t)K; i++)
        R[i] = -s * P->b[i];
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, K, N, 1.0, P->A, N, Z, K, 1.0, R,
                K);
    chol_solve(P, R);
    if (X != Z)
        memcpy(X, Z, (size_t)N * (size_t)K * sizeof *X);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, N, K, M, -1.0, P->A, N, R, K, 1.0, X, K);
}

void cs_affine_project(cs_affine *P, const double *z, double *x)
{
    if (P->simd) {
        simd_project(P, z, x, 0);
        return;
    }
    size_t n = P->N * P->K;
    double *T = P->work;
    switch (P->method) {
    case CS_AFFINE_CHOL:
        chol_apply(P, z, x, 1.0);
        break;
    case CS_AFFINE_RANGE: /* x = z − Q(Qᵀz − c) */
        basis_T(P, z, T);
        for (size_t i = 0; i < P->r * P->K; i++)
            T[i] -= P->c[i];
        basis_apply(P, z, -1.0, T, x);
        break;
    default: /* NULL: x = x_p + ZZᵀz */
        if (P->r == 0) {
            memcpy(x, P->xp, n * sizeof *x);
            break;
        }
        basis_T(P, z, T);
        basis_apply(P, P->xp, 1.0, T, x);
        break;
    }
}

void cs_affine_project_dir(cs_affine *P, const double *g, double *d)
{
    if (P->simd) {
        simd_project(P, g, d, 1);
        return;
    }
    size_t n = P->N * P->K;
    double *T = P->work;
    switch (P->method) {
    case CS_AFFINE_CHOL:
        chol_apply(P, g, d, 0.0);
        break;
    case CS_AFFINE_RANGE: /* d = g − QQᵀg */
        basis_T(P, g, T);
        basis_apply(P, g, -1.0, T, d);
        break;
    default: /* d = ZZᵀg */
        if (P->r == 0) {
            memset(d, 0, n * sizeof *d);
            break;
        }
        basis_T(P, g, T);
        if (P->K == 1)
            cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)P->N, (int)P->r, 1.0, P->U,
                        (int)P->r, T, 1, 0.0, d, 1);
        else
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)P->N, (int)P->K,
                        (int)P->r, 1.0, P->U, (int)P->r, T, (int)P->K, 0.0, d, (int)P->K);
        break;
    }
}

/* V ≤ 4 directions through the basis once (simd_tv / simd_applyv); the
 * vectors are used in place unless N needs padding to a multiple of 4. */
static void simd_dirv(cs_affine *P, size_t V, const double *const *g, double *const *d)
{
    size_t N = P->N, r = P->r, Np = P->Np;
    const double *gk[4], *tk_c[4], *base[4];
    double *tk[4], *dk[4];
    int pad = Np != N;
    for (size_t k = 0; k < V; k++) {
        const double *gp = g[k];
        if (pad) {
            double *buf = P->gb + k * Np;
            memcpy(buf, g[k], N * sizeof *buf);
            gp = buf;
        }
        gk[k] = gp;
        tk[k] = P->tb + k * r;
        tk_c[k] = tk[k];
        dk[k] = pad ? P->db + k * Np : d[k];
        base[k] = P->method == CS_AFFINE_RANGE ? gp : NULL;
    }
    simd_tv(P->Vt, Np, r, V, gk, tk);
    simd_applyv(P->Vt, Np, r, V, tk_c, P->method == CS_AFFINE_RANGE ? -1.0 : 1.0, base, dk);
    if (pad)
        for (size_t k = 0; k < V; k++)
            memcpy(d[k], dk[k], N * sizeof *d[k]);
}

void cs_affine_project_dir_many(cs_affine *P, size_t nv, const double *const *g,
                                double *const *d)
{
    if (!P->simd || P->r == 0 || nv < 2) {
        for (size_t k = 0; k < nv; k++)
            cs_affine_project_dir(P, g[k], d[k]);
        return;
    }
    /* batches of 2–4, as even as possible (a lone vector is the slowest) */
    size_t nb = (nv + 3) / 4, k = 0;
    for (size_t b = 0; b < nb; b++) {
        size_t V = (nv - k) / (nb - b);
        simd_dirv(P, V, g + k, d + k);
        k += V;
    }
}

double cs_affine_residual(cs_affine *P, const double *x)
{
    size_t M = P->M, N = P->N, K = P->K;
    double s = 0.0;
    for (size_t i = 0; i < M; i++)
        for (size_t k = 0; k < K; k++) {
            double v = -P->b[i * K + k];
            for (size_t j = 0; j < N; j++)
                v += P->A[i * N + j] * x[j * K + k];
            s += v * v;
        }
    return sqrt(s);
}

/* QR of Aᵀ (N×M column-major, which is A row-major as stored): fills
 * R-solve c = R⁻ᵀb, x_p = Q₁c, and the requested basis. */
static int factor_qr(cs_affine *P, cs_err *err)
{
    size_t M = P->M, N = P->N, K = P->K;
    int full = P->method == CS_AFFINE_NULL;
    size_t cols = full ? N : M;
    double *W = malloc(N * cols * sizeof *W);
    double *tau = malloc(M * sizeof *tau);
    double *c = malloc(M * K * sizeof *c);
    int rc = CS_OK;
    if (!W || !tau || !c) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory factoring a %zux%zu matrix", M, N);
        goto out;
    }
    memcpy(W, P->A, M * N * sizeof *W); /* column-major N×M = Aᵀ */
    lapack_int info = LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (lapack_int)N, (lapack_int)M, W,
                                     (lapack_int)N, tau);
    if (info != 0) {
        rc = cs_fail(err, CS_EINVAL, "QR factorization failed (info %d)", (int)info);
        goto out;
    }
    double rmax = 0.0;
    for (size_t i = 0; i < M; i++)
        rmax = fmax(rmax, fabs(W[i + i * N]));
    for (size_t i = 0; i < M; i++)
        if (!(fabs(W[i + i * N]) > 1e-12 * rmax * (double)N)) {
            rc = cs_fail(err, CS_EINVAL, "A is rank deficient (rank < M = %zu)", M);
            goto out;
        }
    /* Rᵀc = b, forward substitution; R(j,i) = W[j + i·N] for j ≤ i. */
    for (size_t k = 0; k < K; k++)
        for (size_t i = 0; i < M; i++) {
            double s = P->b[i * K + k];
            for (size_t j = 0; j < i; j++)
                s -= W[j + i * N] * c[j * K + k];
            c[i * K + k] = s / W[i + i * N];
        }
    if (full)
        for (size_t j = M; j < N; j++)
            memset(W + j * N, 0, N * sizeof *W);
    info = LAPACKE_dorgqr(LAPACK_COL_MAJOR, (lapack_int)N, (lapack_int)cols, (lapack_int)M, W,
                          (lapack_int)N, tau);
    if (info != 0) {
        rc = cs_fail(err, CS_EINVAL, "forming Q failed (info %d)", (int)info);
        goto out;
    }
    /* x_p = Q₁c */
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < K; k++) {
            double s = 0.0;
            for (size_t j = 0; j < M; j++)
                s += W[i + j * N] * c[j * K + k];
            P->xp[i * K + k] = s;
        }
    size_t off = full ? M : 0;
    P->r = full ? N - M : M;
    if (P->r > 0) {
        P->U = malloc(N * P->r * sizeof *P->U);
        if (!P->U) {
            rc = cs_fail(err, CS_ENOMEM, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < P->r; j++)
                P->U[i * P->r + j] = W[i + (off + j) * N];
    }
    if (!full) {
        P->c = c;
        c = NULL;
    }
out:
    free(W);
    free(tau);
    free(c);
    return rc;
}

static int factor_chol(cs_affine *P, cs_err *err)
{
    size_t M = P->M, N = P->N, K = P->K;
    P->L = calloc(M * M, sizeof *P->L);
    if (!P->L)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)M, (int)N, 1.0, P->A, (int)N, 0.0,
                P->L, (int)M);
    lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)M, P->L, (lapack_int)M);
    if (info != 0)
        return cs_fail(err, CS_EINVAL, "A is rank deficient (AAᵀ not positive definite)");
    for (size_t i = 0; i < M; i++)
        for (size_t j = i + 1; j < M; j++)
            P->L[i * M + j] = 0.0;
    /* x_p = Aᵀ(AAᵀ)⁻¹b */
    memcpy(P->work, P->b, M * K * sizeof *P->work);
    chol_solve(P, P->work);
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < K; k++) {
            double s = 0.0;
            for (size_t j = 0; j < M; j++)
                s += P->A[j * N + i] * P->work[j * K + k];
            P->xp[i * K + k] = s;
        }
    return CS_OK;
}

static double *alloc_aligned(size_t n)
{
    size_t bytes = ((n * sizeof(double) + 31) / 32) * 32;
    double *p = aligned_alloc(32, bytes ? bytes : 32);
    if (p)
        memset(p, 0, bytes);
    return p;
}

static int setup_simd(cs_affine *P, cs_err *err)
{
    size_t N = P->N, r = P->r, Np = (N + 3) / 4 * 4;
    P->Np = Np;
    P->Vt = alloc_aligned(r * Np);
    P->gp = alloc_aligned(Np);
    P->dp = alloc_aligned(Np);
    P->xpp = alloc_aligned(Np);
    P->tp = alloc_aligned(r);
    P->gb = alloc_aligned(4 * Np);
    P->db = alloc_aligned(4 * Np);
    P->tb = alloc_aligned(4 * r);
    if (!P->Vt || !P->gp || !P->dp || !P->xpp || !P->tp || !P->gb || !P->db || !P->tb)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < r; j++)
            P->Vt[j * Np + i] = P->U[i * r + j];
    memcpy(P->xpp, P->xp, N * sizeof *P->xpp);
    P->simd = 1;
    return CS_OK;
}

int cs_affine_new(cs_affine **out, const double *A, size_t M, size_t N, const double *b,
                  size_t K, int method, cs_err *err)
{
    *out = NULL;
    if (M == 0 || N == 0 || K == 0)
        return cs_fail(err, CS_EDIM, "empty system (M=%zu, N=%zu, K=%zu)", M, N, K);
    if (M > N)
        return cs_fail(err, CS_EDIM, "M=%zu exceeds N=%zu: the system must be underdetermined",
                       M, N);
    if (N > ((size_t)1 << 26) / (M < 64 ? 64 : M) || K > 1u << 20)
        return cs_fail(err, CS_ENOMEM, "system %zux%zu is too large", M, N);
    if (method < CS_AFFINE_AUTO || method > CS_AFFINE_NULL)
        return cs_fail(err, CS_EINVAL, "unknown projection method %d", method);
    for (size_t i = 0; i < M * N; i++)
        if (!isfinite(A[i]))
            return cs_fail(err, CS_ENONFINITE, "A(%zu,%zu) is not finite", i / N + 1,
                           i % N + 1);
    for (size_t i = 0; i < M * K; i++)
        if (!isfinite(b[i]))
            return cs_fail(err, CS_ENONFINITE, "b entry %zu is not finite", i + 1);
    cs_affine *P = calloc(1, sizeof *P);
    if (!P)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    P->M = M;
    P->N = N;
    P->K = K;
    P->method = method == CS_AFFINE_AUTO ? (M <= N - M ? CS_AFFINE_RANGE : CS_AFFINE_NULL)
                                         : method;
    /* The null basis needs an N×N workspace while it is formed. */
    if (P->method == CS_AFFINE_NULL && N > 8192) {
        if (method == CS_AFFINE_NULL) {
            free(P);
            return cs_fail(err, CS_ENOMEM, "null-space basis of N=%zu is too large", N);
        }
        P->method = CS_AFFINE_RANGE;
    }
    P->A = malloc(M * N * sizeof *P->A);
    P->b = malloc(M * K * sizeof *P->b);
    P->xp = calloc(N * K, sizeof *P->xp);
    P->work = malloc(N * K * sizeof *P->work); /* N ≥ M */
    if (!P->A || !P->b || !P->xp || !P->work) {
        cs_affine_free(P);
        return cs_fail(err, CS_ENOMEM, "out of memory for a %zux%zu system", M, N);
    }
    memcpy(P->A, A, M * N * sizeof *P->A);
    memcpy(P->b, b, M * K * sizeof *P->b);
    int rc = P->method == CS_AFFINE_CHOL ? factor_chol(P, err) : factor_qr(P, err);
    if (!rc && K == 1 && P->method != CS_AFFINE_CHOL && P->r > 0 && cs_cpu_avx2_fma())
        rc = setup_simd(P, err);
    if (rc) {
        cs_affine_free(P);
        return rc;
    }
    *out = P;
    return CS_OK;
}

void cs_proj_box(double *x, size_t n, double lo, double hi)
{
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
}

/* Vector forms (GCC vector extensions; an AVX2 build picked at run time):
 * |w| sums over the active set and the clip. */

/* Σ |w_i| over |w_i| > theta, and their count */
CS_AI double active_body(const double *restrict w, size_t n, double theta, size_t *cnt)
{
    v4d S = {0, 0, 0, 0}, C = S, th = {theta, theta, theta, theta};
    v4d one = {1, 1, 1, 1};
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4d a = vabs(ld4(w + i));
        v4l m = a > th;
        S += (v4d)((v4l)a & m);
        C += (v4d)((v4l)one & m);
    }
    double s = (S[0] + S[2]) + (S[1] + S[3]), c = (C[0] + C[2]) + (C[1] + C[3]);
    for (; i < n; i++) {
        double a = fabs(w[i]);
        if (a > theta) {
            s += a;
            c += 1;
        }
    }
    *cnt = (size_t)c;
    return s;
}

/* out = clip(w, −α, α) (= copysign(α, w) where |w| > α) */
CS_AI void clip_body(const double *restrict w, size_t n, double alpha, double *restrict out)
{
    v4d hi = splat(alpha), lo = -hi;
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        st4(out + i, vclip(ld4(w + i), lo, hi));
    for (; i < n; i++)
        out[i] = clip1(w[i], -alpha, alpha);
}

/* out = sign(w)·max(|w| − t, 0) */
CS_AI void soft_body(const double *restrict w, size_t n, double t, double *restrict out)
{
    v4d tv = splat(t);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        st4(out + i, vsoft(ld4(w + i), tv));
    for (; i < n; i++)
        out[i] = soft1(w[i], t);
}

#ifdef CS_AVX2_CLONE
CS_AVX2_FN static double active_avx2(const double *w, size_t n,
                                                          double theta, size_t *cnt)
{
    return active_body(w, n, theta, cnt);
}
CS_AVX2_FN static void clip_avx2(const double *w, size_t n, double alpha,
                                                      double *out)
{
    clip_body(w, n, alpha, out);
}
CS_AVX2_FN static void soft_avx2(const double *w, size_t n, double t, double *out)
{
    soft_body(w, n, t, out);
}
#endif

static double active_sum(const double *w, size_t n, double theta, size_t *cnt)
{
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2())
        return active_avx2(w, n, theta, cnt);
#endif
    return active_body(w, n, theta, cnt);
}

static void clip_to(const double *w, size_t n, double alpha, double *out)
{
    if (!(alpha > 0.0)) {
        memset(out, 0, n * sizeof *out);
        return;
    }
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2()) {
        clip_avx2(w, n, alpha, out);
        return;
    }
#endif
    clip_body(w, n, alpha, out);
}

void cs_prox_l1(const double *w, size_t n, double t, double *out)
{
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2()) {
        soft_avx2(w, n, t, out);
        return;
    }
#endif
    soft_body(w, n, t, out);
}

double cs_linf_threshold(const double *w, size_t n, double t, double hint)
{
    /* Michelot: θ ← (Σ_{|w|>θ} |w| − t)/#{|w|>θ} is nondecreasing from any θ
     * below the answer and stops when the active set is stable. A hint above
     * the answer gives a subset of the final active set, whose first θ is
     * then below it; either way the last θ is computed from the final active
     * set, summed in the same order, so a hint changes no bit of the result. */
    size_t cnt = 0;
    double s = 0.0;
    if (hint > 0.0)
        s = active_sum(w, n, hint, &cnt);
    if (cnt == 0) {
        s = active_sum(w, n, -1.0, &cnt);
        if (!(s > t) || n == 0)
            return 0.0;
        cnt = n;
    }
    double theta = (s - t) / (double)cnt;
    for (size_t pass = 0; pass < n; pass++) {
        size_t c2;
        double s2 = active_sum(w, n, theta, &c2);
        if (c2 == cnt || c2 == 0)
            break;
        cnt = c2;
        theta = (s2 - t) / (double)c2;
    }
    return theta > 0.0 ? theta : 0.0;
}

void cs_prox_linf(const double *w, size_t n, double t, double *out)
{
    clip_to(w, n, cs_linf_threshold(w, n, t, 0.0), out);
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

int cs_prox_linf_sort(const double *w, size_t n, double t, double *out, double *scratch)
{
    double *s = scratch ? scratch : malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return CS_ENOMEM;
    for (size_t i = 0; i < n; i++)
        s[i] = fabs(w[i]);
    qsort(s, n, sizeof *s, cmp_desc);
    double cum = 0.0, alpha = -INFINITY;
    for (size_t k = 0; k < n; k++) {
        cum += s[k];
        double v = (cum - t) / (double)(k + 1);
        if (v > alpha)
            alpha = v;
    }
    if (!scratch)
        free(s);
    clip_to(w, n, alpha, out);
    return CS_OK;
}
