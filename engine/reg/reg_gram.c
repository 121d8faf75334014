/* reg_gram.c — eig, mu and ns on z, through their Gram forms (cs_reg_gram.h). */
#include "cs_reg_gram.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_simd.h"
#include "cs_vec.h"
#include "reg_evals.h"
#include "reg_internal.h"

enum gram_kind { GRAM_EIG, GRAM_MU, GRAM_NS };

struct cs_reg_gram {
    enum gram_kind kind;
    size_t r, R, Rp;  /* z entries; R = r + 1 (w = (1, z)); Rp = R rounded up to 4 */
    double xx0;       /* ‖xp‖² */
    double *S, *T;    /* R×Rp row-major, symmetric, zero padding (S: not for ns) */
    double *w, *a, *c; /* Rp each: w = (1, z, 0…), a = Sw, c = Tw */
};

static enum gram_kind kind_of(const cs_reg *reg)
{
    cs_reg_eval_fn e = reg->info->eval;
    return e == cs_reg_eval_eig ? GRAM_EIG : e == cs_reg_eval_mu ? GRAM_MU : GRAM_NS;
}

int cs_reg_gram_has(const cs_reg *reg)
{
    cs_reg_eval_fn e = reg->info->eval;
    return e == cs_reg_eval_eig || e == cs_reg_eval_mu || e == cs_reg_eval_ns;
}

void cs_reg_gram_free(cs_reg_gram *g)
{
    if (!g)
        return;
    free(g->S);
    free(g->T);
    free(g->w);
    free(g->a);
    free(g->c);
    free(g);
}

size_t cs_reg_gram_len(const cs_reg_gram *g) { return g->r + (g->kind == GRAM_MU); }

/* M (R×Rp, padded) from the R×R product P: (P + Pᵀ)/2 when sym, else P. */
static void store_padded(double *M, const double *P, size_t R, size_t Rp, int sym)
{
    for (size_t i = 0; i < R; i++)
        for (size_t j = 0; j < R; j++)
            M[i * Rp + j] = sym ? 0.5 * (P[i * R + j] + P[j * R + i]) : P[i * R + j];
}

/* S and T from C (m×N) and B = [xp Z] (N×R); P: R×R scratch. */
static int build_forms(cs_reg_gram *g, const cs_reg *reg, const double *xp, const double *Z,
                       size_t N, cs_err *err)
{
    size_t m = reg->Crows, R = g->R, r = g->r;
    double *B = malloc(N * R * sizeof *B), *CB = malloc(m * R * sizeof *CB),
           *P = malloc(R * R * sizeof *P);
    int rc = CS_OK;
    if (!B || !CB || !P) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < N; i++) {
        B[i * R] = xp[i];
        memcpy(B + i * R + 1, Z + i * r, r * sizeof *Z);
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)R, (int)N, 1.0, reg->C,
                (int)N, B, (int)R, 0.0, CB, (int)R);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)R, (int)R, (int)m, 1.0, CB, (int)R,
                CB, (int)R, 0.0, P, (int)R);
    store_padded(g->T, P, R, g->Rp, 1);
    if (g->kind != GRAM_NS) {
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)R, (int)R, (int)N, 1.0, B,
                    (int)R, CB, (int)R, 0.0, P, (int)R);
        store_padded(g->S, P, R, g->Rp, 1);
    }
    g->xx0 = cblas_ddot((int)N, xp, 1, xp, 1);
out:
    free(B);
    free(CB);
    free(P);
    return rc;
}

int cs_reg_gram_new(cs_reg_gram **out, cs_reg *reg, const double *xp, const double *Z,
                    size_t N, size_t r, cs_err *err)
{
    *out = NULL;
    if (!cs_reg_gram_has(reg))
        return cs_fail(err, CS_EUNSUPPORTED, "%s has no Gram form", reg->info->name);
    if (N > 2147483647u || r >= N)
        return cs_fail(err, CS_EDIM, "Gram form: %zu basis columns for %zu entries", r, N);
    int rc = cs_reg_need_matrix(reg, N, err);
    if (rc)
        return rc;
    if (kind_of(reg) != GRAM_NS && reg->Crows != N)
        return cs_fail(err, CS_EDIM, "%s needs a square C, got %zux%zu", reg->info->name,
                       reg->Crows, reg->Ccols);
    cs_reg_gram *g = calloc(1, sizeof *g);
    if (!g)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    g->kind = kind_of(reg);
    g->r = r;
    g->R = r + 1;
    g->Rp = (g->R + 3) & ~(size_t)3;
    size_t mat = g->R * g->Rp;
    g->T = calloc(mat, sizeof *g->T);
    g->S = g->kind == GRAM_NS ? NULL : calloc(mat, sizeof *g->S);
    g->w = calloc(g->Rp, sizeof *g->w);
    g->a = calloc(g->Rp, sizeof *g->a);
    g->c = calloc(g->Rp, sizeof *g->c);
    if (!g->T || (g->kind != GRAM_NS && !g->S) || !g->w || !g->a || !g->c) {
        cs_reg_gram_free(g);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    rc = build_forms(g, reg, xp, Z, N, err);
    if (rc) {
        cs_reg_gram_free(g);
        return rc;
    }
    *out = g;
    return CS_OK;
}

/* a = S·w and c = T·w (S may be NULL) for symmetric R×Rp matrices, read
 * column by column (row j is column j): the 4-entry chunks of the outputs
 * go in blocks of 1–6 (as even as possible, at least 4 when there are 4),
 * both matrices in the same pass over j, so that up to 12 FMA chains run
 * side by side. Every output is one chain over j in order, whatever the
 * blocks or the ISA: the AVX2 kernel and the scalar one give the same bits. */
static void forms_scalar(const double *S, const double *T, size_t R, size_t Rp,
                         const double *w, double *a, double *c)
{
    for (size_t i = 0; i < Rp; i++) {
        double sa = 0.0, sc = 0.0;
        for (size_t j = 0; j < R; j++) {
            if (S)
                sa = fma(w[j], S[j * Rp + i], sa);
            sc = fma(w[j], T[j * Rp + i], sc);
        }
        if (S)
            a[i] = sa;
        c[i] = sc;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GRAM_AVX2 __attribute__((target("avx2,fma")))

#define GRAM_BLOCK(B)                                                                       \
    GRAM_AVX2 static void block##B(const double *S, const double *T, size_t R, size_t Rp,   \
                                   const double *w, double *a, double *c, size_t i0)        \
    {                                                                                       \
        __m256d as[B], at[B];                                                               \
        _Pragma("GCC unroll 6") for (int q = 0; q < B; q++) as[q] = at[q] =                 \
            _mm256_setzero_pd();                                                            \
        for (size_t j = 0; j < R; j++) {                                                    \
            __m256d wj = _mm256_broadcast_sd(w + j);                                        \
            const double *ts = T + j * Rp + i0;                                             \
            _Pragma("GCC unroll 6") for (int q = 0; q < B; q++) at[q] =                     \
                _mm256_fmadd_pd(wj, _mm256_loadu_pd(ts + 4 * q), at[q]);                    \
            if (S) {                                                                        \
                const double *ss = S + j * Rp + i0;                                         \
                _Pragma("GCC unroll 6") for (int q = 0; q < B; q++) as[q] =                 \
                    _mm256_fmadd_pd(wj, _mm256_loadu_pd(ss + 4 * q), as[q]);                \
            }                                                                               \
        }                                                                                   \
        _Pragma("GCC unroll 6") for (int q = 0; q < B; q++)                                 \
        {                                                                                   \
            _mm256_storeu_pd(c + i0 + 4 * q, at[q]);                                        \
            if (S)                                                                          \
                _mm256_storeu_pd(a + i0 + 4 * q, as[q]);                                    \
        }                                                                                   \
    }
GRAM_BLOCK(1)
GRAM_BLOCK(2)
GRAM_BLOCK(3)
GRAM_BLOCK(4)
GRAM_BLOCK(5)
GRAM_BLOCK(6)

static void forms_avx2(const double *S, const double *T, size_t R, size_t Rp, const double *w,
                       double *a, double *c)
{
    size_t nch = Rp / 4, nb = (nch + 5) / 6, i0 = 0;
    for (size_t k = 0; k < nb; k++) {
        size_t left = (Rp - i0) / 4, b = (left + (nb - k) - 1) / (nb - k);
        switch (b) {
        case 1: block1(S, T, R, Rp, w, a, c, i0); break;
        case 2: block2(S, T, R, Rp, w, a, c, i0); break;
        case 3: block3(S, T, R, Rp, w, a, c, i0); break;
        case 4: block4(S, T, R, Rp, w, a, c, i0); break;
        case 5: block5(S, T, R, Rp, w, a, c, i0); break;
        default: block6(S, T, R, Rp, w, a, c, i0); break;
        }
        i0 += 4 * b;
    }
}
#endif

static void forms(const double *S, const double *T, size_t R, size_t Rp, const double *w,
                  double *a, double *c)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (cs_cpu_avx2_fma()) {
        forms_avx2(S, T, R, Rp, w, a, c);
        return;
    }
#endif
    forms_scalar(S, T, R, Rp, w, a, c);
}

/* Σ a_i·b_i in 4-wide order (two accumulators over blocks of 8, the rest
 * one by one), the same in both builds */
CS_AI double dot4(const double *a, const double *b, size_t n)
{
    v4d s0 = z4(), s1 = z4();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        s0 += ld4(a + i) * ld4(b + i);
        s1 += ld4(a + i + 4) * ld4(b + i + 4);
    }
    double s = hsum(s0 + s1);
    for (; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* grad_i = p·z_i + q·c_i + t·a_i for i < r (a NULL: no a term) */
CS_AI void combine(double *restrict grad, const double *z, const double *c, const double *a,
                   double p, double q, double t, size_t r)
{
    size_t i = 0;
    v4d pv = splat(p), qv = splat(q), tv = splat(t);
    for (; i + 4 <= r; i += 4) {
        v4d gv = pv * ld4(z + i) + qv * ld4(c + i);
        if (a)
            gv += tv * ld4(a + i);
        st4(grad + i, gv);
    }
    for (; i < r; i++)
        grad[i] = p * z[i] + q * c[i] + (a ? t * a[i] : 0.0);
}

/* The value and gradient from the products (see cs_reg_gram.h). */
CS_AI void finish_body(const cs_reg_gram *g, const double *v, double X, double U, double s,
                       double *f, double *grad)
{
    size_t r = g->r;
    const double *z = v, *a = g->a + 1, *c = g->c + 1;
    switch (g->kind) {
    case GRAM_EIG: {
        /* the Lemma-1 form ‖x‖²‖Cx − βx‖², β = xᵀCx/‖x‖² (as reg_matrix.c):
         * ∇ = 2‖r‖²z + 2‖x‖²(c − 2βa + β²z) */
        double beta = X > 0.0 ? s / X : 0.0, rr = fmax(U - beta * s, 0.0);
        *f = X * rr;
        if (grad)
            combine(grad, z, c, a, 2.0 * rr + 2.0 * X * beta * beta, 2.0 * X, -4.0 * X * beta, r);
        break;
    }
    case GRAM_MU: {
        /* ‖Cx − μx‖²: ∇_z = 2(c − 2μa + μ²z), ∂/∂μ = −2(s − μ‖x‖²) */
        double mu = v[r];
        *f = fmax(U - 2.0 * mu * s + mu * mu * X, 0.0);
        if (grad) {
            combine(grad, z, c, a, 2.0 * mu * mu, 2.0, -4.0 * mu, r);
            grad[r] = -2.0 * (s - mu * X);
        }
        break;
    }
    case GRAM_NS: {
        /* ‖Cx‖² + (‖x‖² − 1)²: ∇ = 2c + 4(‖x‖² − 1)z */
        double t = X - 1.0;
        *f = fmax(U, 0.0) + t * t;
        if (grad)
            combine(grad, z, c, NULL, 4.0 * t, 2.0, 0.0, r);
        break;
    }
    }
}

CS_AI void eval_body(cs_reg_gram *g, const double *v, double *f, double *grad)
{
    size_t r = g->r, R = g->R;
    double *w = g->w;
    w[0] = 1.0;
    memcpy(w + 1, v, r * sizeof *v);
    double X = g->xx0 + dot4(v, v, r);
    forms(g->S, g->T, R, g->Rp, w, g->a, g->c);
    double U = dot4(w, g->c, R), s = g->S ? dot4(w, g->a, R) : 0.0;
    finish_body(g, v, X, U, s, f, grad);
}

static void eval_base(cs_reg_gram *g, const double *v, double *f, double *grad)
{
    eval_body(g, v, f, grad);
}
#ifdef CS_AVX2_CLONE
static CS_AVX2_FN void eval_avx2(cs_reg_gram *g, const double *v, double *f, double *grad)
{
    eval_body(g, v, f, grad);
}
#endif

int cs_reg_gram_eval(cs_reg_gram *g, const double *v, double *f, double *grad)
{
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2())
        eval_avx2(g, v, f, grad);
    else
#endif
        eval_base(g, v, f, grad);
    if (!isfinite(*f))
        return CS_ENONFINITE;
    if (grad && !cs_vec_finite(grad, cs_reg_gram_len(g)))
        return CS_ENONFINITE;
    return CS_OK;
}
