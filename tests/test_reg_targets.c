/* test_reg_targets.c — the target sets of the regularizers, built from
 * the paper's characterizations (sign patterns, equal-norm orthogonal
 * columns, eigenvectors of a symmetric C from LAPACK, a nullspace): the
 * value vanishes there, to far below rounding for the residual forms, and
 * is positive one step off. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cs_reg.h"
#include "cs_rng.h"
#include "reg_naive_util.h"
#include "reg_util.h"

/* ------------------------------------------------------- target sets */

/* A random scale α (either sign) and a random pattern from `levels`. */
static double rand_alpha(cs_rng *rng)
{
    double a = exp(4.0 * cs_rng_uniform(rng) - 2.0);
    return cs_rng_below(rng, 2) ? a : -a;
}

static void pattern(cs_rng *rng, double *x, size_t n, const double *levels, size_t nl,
                    double alpha)
{
    for (size_t i = 0; i < n; i++)
        x[i] = alpha * levels[cs_rng_below(rng, nl)];
    x[0] = alpha * levels[nl - 1]; /* not all zero */
}

/* value ≤ tol·terms on the target set; > 1e-10·terms one entry off it. */
static void check_target(const tcase *c, const double *x, size_t rows, size_t cols, double tol)
{
    cs_reg *reg = case_reg(c);
    size_t len = rows * cols;
    ld terms;
    naive_d(c, x, len, &terms);
    double v = eval_ok(reg, x, rows, cols, NULL);
    if (!(v >= 0.0 && v <= tol * (double)terms))
        fail_msg("%s: value %.3g on the target set (terms %.3g)", c->name, v, (double)terms);
    double y[64];
    memcpy(y, x, len * sizeof *y);
    /* step off the set by a fair fraction of its scale */
    y[1] = 1.37 * y[1] + 0.3 * maxabs(x, len - case_extra(c));
    naive_d(c, y, len, &terms);
    v = eval_ok(reg, y, rows, cols, NULL);
    if (!(v > 1e-10 * (double)terms))   /* far above the on-set tolerance */
        fail_msg("%s: value %.3g next to the target set (terms %.3g)", c->name, v,
                 (double)terms);
    cs_reg_free(reg);
}

static const double SYM_BIN[] = {-1, 1}, OSB_LV[] = {0, 1}, TER_LV[] = {-1, 0, 1};

/* The residual form keeps relative accuracy on the zero set: far below
 * the 1e-16 that the textbook difference of sums would leave. */
#define TIGHT 1e-24

static void run_targets(const tcase *c, const double *levels, size_t nl, double tol)
{
    cs_rng rng;
    cs_rng_init(&rng, 11, (uint64_t)nl);
    double x[64];
    for (int t = 0; t < 20; t++) {
        size_t n = 2 + cs_rng_below(&rng, 30);
        pattern(&rng, x, n, levels, nl, rand_alpha(&rng));
        check_target(c, x, n, 1, tol);
    }
}

static void test_target_bin(void **state)
{
    (void)state;
    const tcase c = {.name = "bin"};
    run_targets(&c, SYM_BIN, 2, TIGHT);
}

static void test_target_osb(void **state)
{
    (void)state;
    const tcase c = {.name = "osb"};
    run_targets(&c, OSB_LV, 2, TIGHT);
}

static void test_target_ter(void **state)
{
    (void)state;
    const tcase c = {.name = "ter"};
    run_targets(&c, TER_LV, 3, TIGHT);
}

static void test_target_bounded(void **state)
{
    (void)state;
    const tcase b = {.name = "bbin"}, e = {.name = "binexp"};
    run_targets(&b, SYM_BIN, 2, TIGHT);
    run_targets(&e, SYM_BIN, 2, TIGHT);
}

static void test_target_l2l1(void **state)
{
    (void)state;
    const tcase a = {.name = "l2l1"}, b = {.name = "l2l1h"};
    run_targets(&a, SYM_BIN, 2, TIGHT);
    run_targets(&b, SYM_BIN, 2, TIGHT);
}

static void test_target_holder(void **state)
{
    (void)state;
    const double *lv[] = {SYM_BIN, OSB_LV, TER_LV};
    const size_t nl[] = {2, 2, 3};
    for (int base = 0; base < 3; base++) {
        tcase c2 = HOLDER(2, 2, 1, base), c3 = HOLDER(3, 1.5, 2, base),
              c4 = HOLDER(2, 2, 0.5, base);
        run_targets(&c2, lv[base], nl[base], TIGHT); /* residual form */
        run_targets(&c4, lv[base], nl[base], TIGHT);
        run_targets(&c3, lv[base], nl[base], 1e-13); /* P − Q: no residual form */
    }
}

static void test_target_si(void **state)
{
    (void)state;
    const double *lv[] = {SYM_BIN, OSB_LV, TER_LV};
    const size_t nl[] = {2, 2, 3};
    for (int base = 0; base < 3; base++) {
        tcase c0 = SI(2, 2, 1, base, 0), c1 = SI(3, 1.5, 2, base, 0.5);
        run_targets(&c0, lv[base], nl[base], TIGHT);
        run_targets(&c1, lv[base], nl[base], 1e-13);
    }
}

static void test_target_fixed(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 12, 0);
    double x[32];
    for (int t = 0; t < 20; t++) {
        double a = fabs(rand_alpha(&rng));
        tcase c = {.name = "fixed", .alpha = a};
        size_t n = 2 + cs_rng_below(&rng, 20);
        pattern(&rng, x, n, SYM_BIN, 2, a);
        check_target(&c, x, n, 1, TIGHT);
        /* the scale is fixed: ±2α is off the target set */
        for (size_t i = 0; i < n; i++)
            x[i] *= 2.0;
        cs_reg *reg = case_reg(&c);
        assert_true(eval_ok(reg, x, n, 1, NULL) > 0.1 * pow(a, 4));
        cs_reg_free(reg);
    }
}

static void test_target_beta(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 13, 0);
    double x[33];
    for (int t = 0; t < 20; t++) {
        double a = fabs(rand_alpha(&rng));
        size_t n = 2 + cs_rng_below(&rng, 20);
        pattern(&rng, x, n, SYM_BIN, 2, a);
        tcase c = {.name = "beta", .beta = a * a};
        check_target(&c, x, n, 1, 1e-28);
        x[n] = a * a;
        tcase l = {.name = "beta", .learn = 1};
        check_target(&l, x, n + 1, 1, 1e-28);
    }
}

static void test_target_equ(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 14, 0);
    double y[64];
    for (int t = 0; t < 20; t++) {
        int B = 1 + (int)cs_rng_below(&rng, 4);
        size_t N = 1 + cs_rng_below(&rng, 10);
        double a = rand_alpha(&rng);
        for (int b = 0; b < B; b++)
            for (size_t i = 0; i < N; i++)
                y[(size_t)b * N + i] = (cs_rng_below(&rng, 2) ? 1 : -1) * ldexp(a, b);
        tcase c = {.name = "equ", .B = B};
        check_target(&c, y, (size_t)B * N, 1, TIGHT);
        /* the sum of the y_b takes odd multiples of α */
        for (size_t i = 0; i < N; i++) {
            double s = 0;
            for (int b = 0; b < B; b++)
                s += y[(size_t)b * N + i];
            double q = fabs(s / a), k = nearbyint(q);
            assert_true(fabs(q - k) <= 1e-12 * k);
            assert_true(fmod(k, 2.0) == 1.0 && k <= ldexp(1.0, B) - 1);
        }
    }
    /* The paper's set also lists y_b = 0 blocks: those are not zeros of ℓ. */
    cs_reg *reg = reg_ok("equ");
    const double yz[] = {0, 0, 2, -2};
    assert_true(eval_ok(reg, yz, 4, 1, NULL) > 1.0);
    cs_reg_free(reg);
}

/* eig and mu at eigenvectors of a symmetric C (LAPACK dsyev), ns at a unit
 * vector of C's nullspace. */
static void test_target_eig_mu(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 15, 0);
    double A[CN * CN], C[CN * CN], w[CN], x[CN + 1];
    fill_normal(&rng, A, CN * CN);
    for (size_t i = 0; i < CN; i++)
        for (size_t j = 0; j < CN; j++)
            C[i * CN + j] = A[i * CN + j] + A[j * CN + i];
    memcpy(A, C, sizeof C);
    assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', CN, A, CN, w), 0);
    cs_reg *eig = reg_ok("eig C=random"), *mu = reg_ok("mu C=random");
    cs_err err;
    assert_int_equal(cs_reg_set_matrix(eig, C, CN, CN, &err), 0);
    assert_int_equal(cs_reg_set_matrix(mu, C, CN, CN, &err), 0);
    for (size_t k = 0; k < CN; k++) {
        double a = rand_alpha(&rng), nrm = 0;
        for (size_t i = 0; i < CN; i++) {
            x[i] = a * A[i * CN + k];
            nrm += x[i] * x[i];
        }
        double Cn = 0;
        for (size_t i = 0; i < CN * CN; i++)
            Cn += C[i] * C[i];
        double terms = Cn * nrm * nrm; /* ≥ ‖Cx‖²‖x‖² */
        double v = eval_ok(eig, x, CN, 1, NULL);
        if (!(v >= 0 && v <= TIGHT * terms))
            fail_msg("eig at eigenvector %zu: %g (terms %g)", k, v, terms);
        x[CN] = w[k];
        v = eval_ok(mu, x, CN + 1, 1, NULL);
        if (!(v >= 0 && v <= TIGHT * Cn * nrm))
            fail_msg("mu at eigenpair %zu: %g", k, v);
        x[CN] = w[k] + 0.5;
        assert_true(eval_ok(mu, x, CN + 1, 1, NULL) > 0.1 * nrm);
        x[0] += 0.3 * a;
        assert_true(eval_ok(eig, x, CN, 1, NULL) > 1e-6 * terms);
    }
    cs_reg_free(eig);
    cs_reg_free(mu);
}

static void test_target_ns(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 16, 0);
    double C[CM * CN], P[CM * CN], v[CN], nv = 0;
    fill_normal(&rng, C, CM * CN);
    fill_normal(&rng, v, CN);
    for (size_t i = 0; i < CN; i++)
        nv += v[i] * v[i];
    for (size_t i = 0; i < CN; i++)
        v[i] /= sqrt(nv);
    /* P = C(I − vvᵀ): v spans its nullspace */
    for (size_t i = 0; i < CM; i++)
        for (size_t j = 0; j < CN; j++) {
            double s = C[i * CN + j];
            for (size_t k = 0; k < CN; k++)
                s -= C[i * CN + k] * v[k] * v[j];
            P[i * CN + j] = s;
        }
    cs_reg *reg = reg_ok("ns C=random");
    cs_err err;
    assert_int_equal(cs_reg_set_matrix(reg, P, CM, CN, &err), 0);
    assert_true(eval_ok(reg, v, CN, 1, NULL) <= 1e-24);
    double x[CN];
    for (size_t i = 0; i < CN; i++)
        x[i] = 2 * v[i]; /* right direction, wrong norm: (4 − 1)² = 9 */
    assert_close(eval_ok(reg, x, CN, 1, NULL), 9.0, 1e-12, "ns at 2v");
    cs_reg_free(reg);
}

/* X with orthogonal columns of equal norm (Gram–Schmidt in long double). */
static void test_target_om(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 17, 0);
    cs_reg *reg = reg_ok("om");
    for (int t = 0; t < 20; t++) {
        size_t N = 2 + cs_rng_below(&rng, 8), K = 1 + cs_rng_below(&rng, N);
        ld Q[64];
        double X[64];
        for (size_t i = 0; i < N * K; i++)
            Q[i] = cs_rng_normal(&rng);
        for (size_t k = 0; k < K; k++) {
            for (size_t j = 0; j < k; j++) {
                ld d = 0;
                for (size_t i = 0; i < N; i++)
                    d += Q[i * K + k] * Q[i * K + j];
                for (size_t i = 0; i < N; i++)
                    Q[i * K + k] -= d * Q[i * K + j];
            }
            ld nr = 0;
            for (size_t i = 0; i < N; i++)
                nr += Q[i * K + k] * Q[i * K + k];
            for (size_t i = 0; i < N; i++)
                Q[i * K + k] /= sqrtl(nr);
        }
        double a = rand_alpha(&rng);
        for (size_t i = 0; i < N * K; i++)
            X[i] = (double)(a * Q[i]);
        tcase c = {.name = "om", .rows = N, .cols = K};
        if (K >= 2) {
            check_target(&c, X, N, K, TIGHT);
        } else { /* one column is always "orthogonal" */
            assert_true(eval_ok(reg, X, N, K, NULL) == 0.0);
        }
    }
    cs_reg_free(reg);
}

/* ----------------------------------------------------------------- main */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_target_bin),
        cmocka_unit_test(test_target_osb),
        cmocka_unit_test(test_target_ter),
        cmocka_unit_test(test_target_bounded),
        cmocka_unit_test(test_target_l2l1),
        cmocka_unit_test(test_target_holder),
        cmocka_unit_test(test_target_si),
        cmocka_unit_test(test_target_fixed),
        cmocka_unit_test(test_target_beta),
        cmocka_unit_test(test_target_equ),
        cmocka_unit_test(test_target_eig_mu),
        cmocka_unit_test(test_target_ns),
        cmocka_unit_test(test_target_om),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
