/* test_proj.c — affine projector, box projection, prox of ℓ∞ and ℓ1,
 * checked against independent computations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_proj.h"
#include "cs_rng.h"

static void randn(cs_rng *r, double *x, size_t n) { cs_rng_normal_fill(r, x, n); }

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* Independent null-space projection: v = w − Aᵀy with (AAᵀ)y = Aw solved by
 * Gaussian elimination with partial pivoting. */
static void null_project_ref(const double *A, size_t M, size_t N, const double *w, double *v)
{
    double *G = calloc(M * (M + 1), sizeof *G);
    for (size_t i = 0; i < M; i++) {
        for (size_t j = 0; j < M; j++)
            G[i * (M + 1) + j] = dot(A + i * N, A + j * N, N);
        G[i * (M + 1) + M] = dot(A + i * N, w, N);
    }
    for (size_t c = 0; c < M; c++) {
        size_t p = c;
        for (size_t i = c + 1; i < M; i++)
            if (fabs(G[i * (M + 1) + c]) > fabs(G[p * (M + 1) + c]))
                p = i;
        for (size_t j = 0; j <= M; j++) {
            double t = G[c * (M + 1) + j];
            G[c * (M + 1) + j] = G[p * (M + 1) + j];
            G[p * (M + 1) + j] = t;
        }
        for (size_t i = c + 1; i < M; i++) {
            double f = G[i * (M + 1) + c] / G[c * (M + 1) + c];
            for (size_t j = c; j <= M; j++)
                G[i * (M + 1) + j] -= f * G[c * (M + 1) + j];
        }
    }
    double *y = calloc(M, sizeof *y);
    for (size_t i = M; i-- > 0;) {
        double s = G[i * (M + 1) + M];
        for (size_t j = i + 1; j < M; j++)
            s -= G[i * (M + 1) + j] * y[j];
        y[i] = s / G[i * (M + 1) + i];
    }
    for (size_t j = 0; j < N; j++) {
        double s = w[j];
        for (size_t i = 0; i < M; i++)
            s -= A[i * N + j] * y[i];
        v[j] = s;
    }
    free(G);
    free(y);
}

static void check_projector(size_t M, size_t N, int method, int simd)
{
    cs_rng r;
    cs_rng_init(&r, 42, M * 1000 + N);
    double *A = malloc(M * N * sizeof *A), *b = malloc(M * sizeof *b);
    double *z = malloc(N * sizeof *z), *x = malloc(N * sizeof *x), *x2 = malloc(N * sizeof *x2);
    double *v = malloc(N * sizeof *v), *w = malloc(N * sizeof *w), *d = malloc(N * sizeof *d);
    randn(&r, A, M * N);
    randn(&r, b, M);
    cs_affine *P;
    cs_err err;
    assert_int_equal(cs_affine_new(&P, A, M, N, b, 1, method, &err), 0);
    cs_affine_set_simd(P, simd);
    for (int rep = 0; rep < 5; rep++) {
        randn(&r, z, N);
        for (size_t i = 0; i < N; i++)
            z[i] *= 3.0;
        cs_affine_project(P, z, x);
        assert_true(cs_affine_residual(P, x) < 1e-10);
        /* idempotent */
        cs_affine_project(P, x, x2);
        for (size_t i = 0; i < N; i++)
            assert_true(fabs(x2[i] - x[i]) < 1e-10);
        /* in place gives the same */
        memcpy(x2, z, N * sizeof *z);
        cs_affine_project(P, x2, x2);
        for (size_t i = 0; i < N; i++)
            assert_true(fabs(x2[i] - x[i]) < 1e-12);
        /* z − P(z) ⊥ null(A): against independently computed null vectors */
        randn(&r, w, N);
        null_project_ref(A, M, N, w, v);
        for (size_t i = 0; i < N; i++)
            d[i] = z[i] - x[i];
        double nv = sqrt(dot(v, v, N)), nd = sqrt(dot(d, d, N));
        if (nv > 0 && nd > 0)
            assert_true(fabs(dot(d, v, N)) <= 1e-10 * nv * nd + 1e-12);
        /* P₀ equals the reference null projection */
        cs_affine_project_dir(P, w, d);
        for (size_t i = 0; i < N; i++)
            assert_true(fabs(d[i] - v[i]) < 1e-9 * (1.0 + fabs(v[i])));
        /* P(x − τg) = x − τP₀(g) for feasible x */
        for (size_t i = 0; i < N; i++)
            x2[i] = x[i] - 0.3 * w[i];
        cs_affine_project(P, x2, x2);
        for (size_t i = 0; i < N; i++)
            assert_true(fabs(x2[i] - (x[i] - 0.3 * d[i])) < 1e-10);
    }
    /* the particular solution is the minimum-norm one: orthogonal to null(A) */
    const double *xp = cs_affine_particular(P);
    assert_true(fabs(dot(xp, v, N)) < 1e-9 * sqrt(dot(v, v, N)) * sqrt(dot(xp, xp, N)) + 1e-12);
    cs_affine_free(P);
    free(A), free(b), free(z), free(x), free(x2), free(v), free(w), free(d);
}

static void test_affine_methods(void **state)
{
    (void)state;
    /* bases of 1 to 97 rows: every way the SIMD passes split rows and chunks */
    size_t sizes[][2] = {{30, 100}, {70, 100}, {1, 7},    {5, 9},     {25, 50},
                         {40, 41},  {36, 100}, {13, 100}, {97, 100}, {47, 101}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int m = CS_AFFINE_AUTO; m <= CS_AFFINE_NULL; m++)
            for (int simd = 0; simd <= 1; simd++)
                check_projector(sizes[k][0], sizes[k][1], m, simd);
}

/* P₀ of many directions at once is, bit for bit, P₀ of each one. */
static void test_affine_dir_many(void **state)
{
    (void)state;
    size_t sizes[][2] = {{30, 100}, {41, 100}, {70, 100}, {11, 37},
                         {26, 37},  {3, 5},    {36, 100}, {57, 103}};
    cs_rng r;
    cs_rng_init(&r, 7, 3);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int m = CS_AFFINE_CHOL; m <= CS_AFFINE_NULL; m++)
            for (int simd = 0; simd <= 1; simd++) {
                size_t M = sizes[s][0], N = sizes[s][1];
                double *A = malloc(M * N * sizeof *A), *b = malloc(M * sizeof *b);
                double *g = malloc(9 * N * sizeof *g), *d = malloc(9 * N * sizeof *d);
                double *e = malloc(N * sizeof *e);
                randn(&r, A, M * N);
                randn(&r, b, M);
                randn(&r, g, 9 * N);
                cs_affine *P;
                cs_err err;
                assert_int_equal(cs_affine_new(&P, A, M, N, b, 1, m, &err), 0);
                cs_affine_set_simd(P, simd);
                for (size_t nv = 1; nv <= 9; nv++) {
                    const double *gv[9];
                    double *dv[9];
                    for (size_t k = 0; k < nv; k++)
                        gv[k] = g + k * N, dv[k] = d + k * N;
                    cs_affine_project_dir_many(P, nv, gv, dv);
                    for (size_t k = 0; k < nv; k++) {
                        cs_affine_project_dir(P, gv[k], e);
                        assert_memory_equal(e, dv[k], N * sizeof *e);
                    }
                }
                cs_affine_free(P);
                free(A), free(b), free(g), free(d), free(e);
            }
}

static void test_affine_auto_choice(void **state)
{
    (void)state;
    cs_rng r;
    cs_rng_init(&r, 1, 2);
    double A[60 * 100], b[60];
    randn(&r, A, sizeof A / sizeof A[0]);
    randn(&r, b, 60);
    cs_affine *P;
    cs_err err;
    assert_int_equal(cs_affine_new(&P, A, 30, 100, b, 1, CS_AFFINE_AUTO, &err), 0);
    assert_int_equal(cs_affine_method(P), CS_AFFINE_RANGE);
    assert_int_equal(cs_affine_rank(P), 30);
    cs_affine_free(P);
    assert_int_equal(cs_affine_new(&P, A, 60, 100, b, 1, CS_AFFINE_AUTO, &err), 0);
    assert_int_equal(cs_affine_method(P), CS_AFFINE_NULL);
    assert_int_equal(cs_affine_rank(P), 40);
    cs_affine_free(P);
    assert_string_equal(cs_affine_method_name(CS_AFFINE_CHOL), "chol");
}

static void test_affine_matrix_and_square(void **state)
{
    (void)state;
    cs_rng r;
    cs_rng_init(&r, 3, 4);
    size_t M = 12, N = 20, K = 3;
    double A[12 * 20], B[12 * 3], Z[20 * 3], X[20 * 3], Y[20 * 3];
    randn(&r, A, M * N);
    randn(&r, B, M * K);
    randn(&r, Z, N * K);
    for (int m = CS_AFFINE_CHOL; m <= CS_AFFINE_NULL; m++) {
        cs_affine *P;
        cs_err err;
        assert_int_equal(cs_affine_new(&P, A, M, N, B, K, m, &err), 0);
        cs_affine_project(P, Z, m == CS_AFFINE_CHOL ? Y : X);
        assert_true(cs_affine_residual(P, m == CS_AFFINE_CHOL ? Y : X) < 1e-10);
        if (m != CS_AFFINE_CHOL)
            for (size_t i = 0; i < N * K; i++)
                assert_true(fabs(X[i] - Y[i]) < 1e-10);
        cs_affine_free(P);
    }
    /* M = N: the set is one point */
    double S[16], s[4], z[4], x[4];
    randn(&r, S, 16);
    randn(&r, s, 4);
    randn(&r, z, 4);
    cs_affine *P;
    cs_err err;
    assert_int_equal(cs_affine_new(&P, S, 4, 4, s, 1, CS_AFFINE_NULL, &err), 0);
    cs_affine_project(P, z, x);
    assert_true(cs_affine_residual(P, x) < 1e-10);
    cs_affine_free(P);
}

static void test_affine_errors(void **state)
{
    (void)state;
    cs_affine *P;
    cs_err err;
    double A[6] = {1, 2, 3, 2, 4, 6}, b[2] = {1, 2};
    assert_int_equal(cs_affine_new(&P, A, 2, 3, b, 1, CS_AFFINE_RANGE, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "rank"));
    assert_int_equal(cs_affine_new(&P, A, 2, 3, b, 1, CS_AFFINE_CHOL, &err), CS_EINVAL);
    assert_int_equal(cs_affine_new(&P, A, 3, 2, b, 1, 0, &err), CS_EDIM);
    double An[6] = {1, NAN, 0, 0, 1, 0};
    assert_int_equal(cs_affine_new(&P, An, 2, 3, b, 1, 0, &err), CS_ENONFINITE);
    assert_int_equal(cs_affine_new(&P, A, 0, 3, b, 1, 0, &err), CS_EDIM);
    assert_null(P);
}

/* Π onto {‖y‖₁ ≤ 1} by bisection on the soft threshold (independent of the
 * sort and active-set formulas). */
static void proj_l1_ball(const double *w, size_t n, double *y)
{
    double s = 0.0, hi = 0.0;
    for (size_t i = 0; i < n; i++) {
        s += fabs(w[i]);
        hi = fmax(hi, fabs(w[i]));
    }
    if (s <= 1.0) {
        memcpy(y, w, n * sizeof *w);
        return;
    }
    double lo = 0.0;
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi), t = 0.0;
        for (size_t i = 0; i < n; i++)
            t += fmax(fabs(w[i]) - mid, 0.0);
        if (t > 1.0)
            lo = mid;
        else
            hi = mid;
    }
    double th = 0.5 * (lo + hi);
    for (size_t i = 0; i < n; i++)
        y[i] = copysign(fmax(fabs(w[i]) - th, 0.0), w[i]);
}

static void test_prox_linf(void **state)
{
    (void)state;
    cs_rng r;
    cs_rng_init(&r, 5, 6);
    size_t ns[] = {1, 2, 5, 17, 100, 1000};
    double ts[] = {1e-3, 0.5, 1.0, 10.0, 1e4};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t c = 0; c < sizeof ts / sizeof ts[0]; c++) {
            size_t n = ns[a];
            double t = ts[c];
            double *w = malloc(n * sizeof *w), *x = malloc(n * sizeof *x);
            double *xs = malloc(n * sizeof *xs), *y = malloc(n * sizeof *y);
            double *ws = malloc(n * sizeof *ws);
            randn(&r, w, n);
            if (a % 2)
                w[0] = w[n - 1]; /* ties */
            cs_prox_linf(w, n, t, x);
            assert_int_equal(cs_prox_linf_sort(w, n, t, xs, NULL), 0);
            /* Moreau: prox_{t‖·‖∞}(w) = w − t·Π_{B1}(w/t) */
            for (size_t i = 0; i < n; i++)
                ws[i] = w[i] / t;
            proj_l1_ball(ws, n, y);
            for (size_t i = 0; i < n; i++) {
                double ref = w[i] - t * y[i];
                assert_true(fabs(x[i] - ref) < 1e-9 * (1.0 + fabs(ref)));
                assert_true(fabs(x[i] - xs[i]) < 1e-12 * (1.0 + fabs(xs[i])));
            }
            /* in place */
            memcpy(y, w, n * sizeof *w);
            cs_prox_linf(y, n, t, y);
            for (size_t i = 0; i < n; i++)
                assert_true(y[i] == x[i]);
            /* a hint (DR's last threshold) changes no bit of α, wherever it lies */
            double al = cs_linf_threshold(w, n, t, 0.0), wmax = 0.0;
            for (size_t i = 0; i < n; i++)
                wmax = fmax(wmax, fabs(w[i]));
            double hints[] = {al * 0.5, al * 0.999, al, al * 1.001, al * 2.0, wmax,
                              wmax * 10.0, 1e-300, al + 0.3 * (wmax - al)};
            for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++) {
                double ah = cs_linf_threshold(w, n, t, hints[h]);
                assert_memory_equal(&ah, &al, sizeof al);
            }
            /* α solves Σ max(|w| − α, 0) = t (or is 0 when ‖w‖₁ ≤ t) */
            double sum = 0.0, l1 = 0.0;
            for (size_t i = 0; i < n; i++)
                sum += fmax(fabs(w[i]) - al, 0.0), l1 += fabs(w[i]);
            if (l1 > t)
                assert_true(fabs(sum - t) < 1e-10 * (1.0 + t));
            else
                assert_true(al == 0.0);
            free(w), free(x), free(xs), free(y), free(ws);
        }
    /* ‖w‖₁ ≤ t gives 0; known closed form: w = (3, −1, 0.5), t = 1 → α = 2 */
    double w[3] = {0.2, -0.3, 0.1}, x[3];
    cs_prox_linf(w, 3, 1.0, x);
    assert_true(x[0] == 0.0 && x[1] == 0.0 && x[2] == 0.0);
    double w2[3] = {3, -1, 0.5};
    cs_prox_linf(w2, 3, 1.0, x);
    assert_true(fabs(x[0] - 2.0) < 1e-15 && x[1] == -1.0 && x[2] == 0.5);
}

static void test_prox_l1_and_box(void **state)
{
    (void)state;
    cs_rng r;
    cs_rng_init(&r, 7, 8);
    double w[200], x[200];
    randn(&r, w, 200);
    double t = 0.7;
    cs_prox_l1(w, 200, t, x);
    for (size_t i = 0; i < 200; i++) {
        /* Moreau: prox_{t‖·‖₁}(w) = w − Π_{[−t,t]}(w) */
        double clip = fmin(fmax(w[i], -t), t);
        assert_true(fabs(x[i] - (w[i] - clip)) < 1e-15);
    }
    double b[5] = {-3, -0.5, 0, 0.5, 3};
    cs_proj_box(b, 5, -1, 1);
    assert_true(b[0] == -1 && b[1] == -0.5 && b[2] == 0 && b[3] == 0.5 && b[4] == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_affine_methods),
        cmocka_unit_test(test_affine_dir_many),
        cmocka_unit_test(test_affine_auto_choice),
        cmocka_unit_test(test_affine_matrix_and_square),
        cmocka_unit_test(test_affine_errors),
        cmocka_unit_test(test_prox_linf),
        cmocka_unit_test(test_prox_l1_and_box),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
