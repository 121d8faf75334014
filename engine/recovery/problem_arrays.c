/* problem_arrays.c — a recovery problem from the caller's arrays (A, b, x*,
 * C): checked (shapes, finite entries, a symmetric C, Ax = b solvable) and
 * set up as problem.c sets up a drawn one. */
#include "cs_problem.h"
#include "problem_internal.h"

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_limits.h"

/* b is in the range of A when the least-squares residual is below this,
 * relative to ‖b‖ */
#define RANGE_TOL 1e-10
/* C counts as symmetric when |C_ij − C_ji| <= this · max |C| */
#define SYM_TOL 1e-12

int cs_problem_check_shapes(cs_kind kind, size_t M, size_t N, size_t b_len, size_t xstar_len,
                            size_t C_rows, size_t C_cols, cs_err *err)
{
    const char *kname = cs_problem_kind_name(kind);
    if (M == 0 || N == 0)
        return cs_fail_key(err, CS_EDIM, "A", "A is %zux%zu: it has no entries", M, N);
    if (b_len != M)
        return cs_fail_key(err, CS_EDIM, "b", "A is %zux%zu, b has %zu entr%s", M, N, b_len,
                           b_len == 1 ? "y" : "ies");
    if (xstar_len && xstar_len != N)
        return cs_fail_key(err, CS_EDIM, "xstar", "x* has %zu entr%s, A has N = %zu columns",
                           xstar_len, xstar_len == 1 ? "y" : "ies", N);
    if (kind == CS_PROB_EIG && (C_rows == 0 || C_cols == 0))
        return cs_fail_key(err, CS_EINVAL, "C", "eig needs C (N×N = %zux%zu)", N, N);
    if (kind != CS_PROB_EIG && (C_rows || C_cols))
        return cs_fail_key(err, CS_EINVAL, "C", "C is for eig, not %s", kname);
    if (kind == CS_PROB_EIG && (C_rows != N || C_cols != N))
        return cs_fail_key(err, CS_EDIM, "C", "C is %zux%zu: eig needs C of N×N = %zux%zu",
                           C_rows, C_cols, N, N);
    return CS_OK;
}

static int kind_supported(cs_kind kind, cs_err *err)
{
    switch (kind) {
    case CS_PROB_BIN:
    case CS_PROB_OSB:
    case CS_PROB_TER:
    case CS_PROB_2BIT:
    case CS_PROB_EIG:
        return CS_OK;
    case CS_PROB_ORTH:
        return cs_fail(err, CS_EUNSUPPORTED, "orth problems (B = AX*, M×K) cannot be loaded: "
                       "only vector problems (bin osb ter 2bit eig)");
    case CS_PROB_MAXCUT:
        return cs_fail(err, CS_EUNSUPPORTED, "maxcut problems come from a graph "
                       "(problem maxcut graph=FILE), not from A and b");
    default:
        return cs_fail(err, CS_EINVAL, "unknown problem kind %d", (int)kind);
    }
}

/* Every entry finite; the first one that is not named (1-based row, column). */
static int check_finite(const char *name, const double *v, size_t rows, size_t cols,
                        cs_err *err)
{
    for (size_t i = 0; i < rows * cols; i++)
        if (!isfinite(v[i])) {
            if (cols == 1)
                return cs_fail_key(err, CS_ENONFINITE, name, "%s entry %zu is not finite (%g)",
                                   name, i + 1, v[i]);
            return cs_fail_key(err, CS_ENONFINITE, name, "%s(%zu,%zu) is not finite (%g)",
                               name, i / cols + 1, i % cols + 1, v[i]);
        }
    return CS_OK;
}

static int check_symmetric(const double *C, size_t N, cs_err *err)
{
    double cmax = 0.0;
    for (size_t i = 0; i < N * N; i++)
        cmax = fmax(cmax, fabs(C[i]));
    for (size_t i = 0; i < N; i++)
        for (size_t j = i + 1; j < N; j++)
            if (fabs(C[i * N + j] - C[j * N + i]) > SYM_TOL * cmax)
                return cs_fail_key(err, CS_EINVAL, "C", "C is not symmetric: C(%zu,%zu) = %g, "
                                   "C(%zu,%zu) = %g", i + 1, j + 1, C[i * N + j], j + 1, i + 1,
                                   C[j * N + i]);
    return CS_OK;
}

/* The rank of A as numpy's matrix_rank: singular values above
 * max(M, N)·eps·σ_max. */
static int rank_of(const double *A, size_t M, size_t N, size_t *rank, cs_err *err)
{
    size_t k = M < N ? M : N;
    double *W = malloc(M * N * sizeof *W), *s = malloc(k * sizeof *s);
    int rc = CS_OK;
    if (!W || !s) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory for the rank of a %zux%zu matrix", M, N);
        goto out;
    }
    memcpy(W, A, M * N * sizeof *W);
    lapack_int info = LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'N', (lapack_int)M, (lapack_int)N, W,
                                     (lapack_int)N, s, NULL, (lapack_int)M, NULL, (lapack_int)N);
    if (info != 0) {
        rc = cs_fail(err, CS_EINVAL, "the SVD of A failed (info %d)", (int)info);
        goto out;
    }
    double tol = (double)(M > N ? M : N) * DBL_EPSILON * s[0];
    *rank = 0;
    for (size_t i = 0; i < k; i++)
        if (s[i] > tol)
            (*rank)++;
out:
    free(W);
    free(s);
    return rc;
}

/* ‖A x_ls − b‖/‖b‖ for the least-squares (minimum-norm) solution x_ls. */
static int ls_residual(const double *A, size_t M, size_t N, const double *b, double *res,
                       cs_err *err)
{
    size_t L = M > N ? M : N;
    double *W = malloc(M * N * sizeof *W), *x = calloc(L, sizeof *x);
    double *s = malloc((M < N ? M : N) * sizeof *s);
    int rc = CS_OK;
    if (!W || !x || !s) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory for a least-squares solve");
        goto out;
    }
    memcpy(W, A, M * N * sizeof *W);
    memcpy(x, b, M * sizeof *x);
    lapack_int r;
    lapack_int info = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, (lapack_int)M, (lapack_int)N, 1, W,
                                     (lapack_int)N, x, 1, s, -1.0, &r);
    if (info != 0) {
        rc = cs_fail(err, CS_EINVAL, "the least-squares solve of Ax = b failed (info %d)",
                     (int)info);
        goto out;
    }
    double rr = 0.0, bb = 0.0;
    for (size_t i = 0; i < M; i++) {
        double v = -b[i];
        for (size_t j = 0; j < N; j++)
            v += A[i * N + j] * x[j];
        rr += v * v;
        bb += b[i] * b[i];
    }
    *res = bb > 0.0 ? sqrt(rr / bb) : 0.0;
out:
    free(W);
    free(x);
    free(s);
    return rc;
}

/* p->Ar, p->br: `rank` independent rows of A, in their order, picked by QR
 * with column pivoting of Aᵀ (A row-major is Aᵀ column-major). */
static int independent_rows(cs_problem *p, cs_err *err)
{
    size_t M = p->M, N = p->N, R = p->rank;
    double *W = malloc(M * N * sizeof *W), *tau = malloc((M < N ? M : N) * sizeof *tau);
    lapack_int *jpvt = calloc(M, sizeof *jpvt);
    unsigned char *keep = calloc(M, 1);
    int rc = CS_OK;
    p->Ar = malloc(R * N * sizeof *p->Ar);
    p->br = malloc(R * sizeof *p->br);
    if (!W || !tau || !jpvt || !keep || !p->Ar || !p->br) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto out;
    }
    memcpy(W, p->A, M * N * sizeof *W);
    lapack_int info = LAPACKE_dgeqp3(LAPACK_COL_MAJOR, (lapack_int)N, (lapack_int)M, W,
                                     (lapack_int)N, jpvt, tau);
    if (info != 0) {
        rc = cs_fail(err, CS_EINVAL, "QR with pivoting of A failed (info %d)", (int)info);
        goto out;
    }
    for (size_t k = 0; k < R; k++)
        keep[jpvt[k] - 1] = 1;
    for (size_t i = 0, r = 0; i < M; i++)
        if (keep[i]) {
            memcpy(p->Ar + r * N, p->A + i * N, N * sizeof *p->Ar);
            p->br[r++] = p->b[i];
        }
out:
    free(W);
    free(tau);
    free(jpvt);
    free(keep);
    return rc;
}

/* Whether Ax = b has a solution; the rank, and the independent rows when
 * A has dependent ones. */
static int check_system(cs_problem *p, cs_err *err)
{
    size_t M = p->M, N = p->N;
    int rc = rank_of(p->A, M, N, &p->rank, err);
    if (rc || p->rank == M)
        return rc;
    if (p->rank == 0)
        return cs_fail_key(err, CS_EINVAL, "A", "A is %zux%zu and zero: it has rank 0", M, N);
    if (p->kind == CS_PROB_2BIT)
        return CS_OK;   /* least squares, no constraint: dependent rows do no harm */
    double res = NAN;
    if ((rc = ls_residual(p->A, M, N, p->b, &res, err)))
        return rc;
    if (res > RANGE_TOL)
        return cs_fail_key(err, CS_EINVAL, "b", "A has rank %zu < M = %zu and b is not in its "
                           "range: residual %.1e", p->rank, M, res);
    return independent_rows(p, err);
}

int cs_problem_new_arrays(cs_problem **out, cs_kind kind, const double *A, size_t M, size_t N,
                          const double *b, const double *xstar, const double *C, cs_err *err)
{
    *out = NULL;
    int rc = kind_supported(kind, err);
    if (rc)
        return rc;
    if (!A || !b)
        return cs_fail(err, CS_EINVAL, "a problem needs A and b");
    if ((rc = cs_problem_check_shapes(kind, M, N, M, xstar ? N : 0, C ? N : 0, C ? N : 0, err)))
        return rc;
    if (N > 100000000 / M || (C && N > 4096))
        return cs_fail_key(err, CS_ENOMEM, "A", "A is %zux%zu: too large", M, N);
    double bytes = 8.0 * (3.0 * (double)M * (double)N + (C ? 3.0 * (double)N * (double)N : 0.0));
    if (bytes > CS_MEMORY_BUDGET)
        return cs_fail_key(err, CS_ENOMEM, "A", "A is %zux%zu: the problem needs %.1f GiB of "
                           "memory (limit %.0f GiB)", M, N, bytes / CS_GIB,
                           CS_MEMORY_BUDGET / CS_GIB);
    if ((rc = check_finite("A", A, M, N, err)) || (rc = check_finite("b", b, M, 1, err)) ||
        (xstar && (rc = check_finite("x*", xstar, N, 1, err))) ||
        (C && ((rc = check_finite("C", C, N, N, err)) || (rc = check_symmetric(C, N, err)))))
        return rc;
    cs_problem *p = calloc(1, sizeof *p);
    if (!p)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    p->kind = kind;
    p->N = N;
    p->M = M;
    p->cols = 1;
    p->xnorm = NAN;
    p->A = malloc(M * N * sizeof *p->A);
    p->b = malloc(M * sizeof *p->b);
    if (xstar)
        p->xstar = malloc(N * sizeof *p->xstar);
    if (C)
        p->C = malloc(N * N * sizeof *p->C);
    if (!p->A || !p->b || (xstar && !p->xstar) || (C && !p->C)) {
        cs_problem_free(p);
        return cs_fail(err, CS_ENOMEM, "out of memory for a %zux%zu problem", M, N);
    }
    memcpy(p->A, A, M * N * sizeof *p->A);
    memcpy(p->b, b, M * sizeof *p->b);
    if (C)
        memcpy(p->C, C, N * N * sizeof *p->C);
    if (xstar) {
        memcpy(p->xstar, xstar, N * sizeof *p->xstar);
        /* as cs_problem_new sums it: the same ‖x*‖ to the bit */
        double s = 0.0;
        for (size_t i = 0; i < N; i++)
            s += p->xstar[i] * p->xstar[i];
        p->xnorm = sqrt(s);
    }
    rc = check_system(p, err);
    if (!rc && kind != CS_PROB_2BIT)
        rc = problem_affine_new(p, CS_AFFINE_AUTO, err);
    if (rc) {
        cs_problem_free(p);
        return rc;
    }
    *out = p;
    return CS_OK;
}
