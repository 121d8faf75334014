/* test_reg_values.c — regularizer values and gradients computed by hand,
 * cross-checks between entries (holder and si against the CS forms, l2l1
 * as a variance, om against LAPACK's singular values), homogeneity, and
 * the range: overflow to a clean error, exact values at |x| = 1e30. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "cs_reg.h"
#include "cs_rng.h"
#include "reg_naive_util.h"
#include "reg_util.h"

/* ----------------------------------------------- hand-computed values */

static void check_hand(const char *spec, const double *x, size_t rows, size_t cols, double want,
                       const double *want_grad)
{
    cs_reg *reg = reg_ok(spec);
    double grad[64];
    double v = eval_ok(reg, x, rows, cols, grad);
    assert_close(v, want, 1e-12 * (1.0 + fabs(want)), spec);
    if (want_grad)
        assert_vec_close(grad, want_grad, rows * cols, 1e-12, spec);
    cs_reg_free(reg);
}

static void test_bin_hand(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3}, g[] = {-44, -16, 156};
    check_hand("bin", x, 3, 1, 98, g);
    check_hand("bin", x, 1, 3, 98, g);
}

static void test_osb_hand(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3}, g[] = {36, -24, 156};
    check_hand("osb", x, 3, 1, 76, g);
}

static void test_ter_hand(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3}, g[] = {888, -408, 4008};
    check_hand("ter", x, 3, 1, 1512, g);
}

static void test_bbin_binexp_hand(void **state)
{
    (void)state;
    const double x[] = {0, 1};
    const double gb[] = {0, 0.5};
    check_hand("bbin", x, 2, 1, 0.25, gb);
    double e = exp(-1.0);
    const double ge[] = {0, 4 * e * (1 - e)};
    check_hand("binexp", x, 2, 1, (1 - e) * (1 - e), ge);
}

static void test_l2l1_hand(void **state)
{
    (void)state;
    const double x[] = {1, -2, 3}, g[] = {-6, 0, 6};
    check_hand("l2l1", x, 3, 1, 6, g);
    const double z[] = {0, 1, -1}, gz[] = {0, 2, -2}; /* sign(0) = 0 */
    check_hand("l2l1", z, 3, 1, 2, gz);
    double nx = sqrt(14.0);
    const double gh[] = {sqrt(3.0) / nx - 1, -2 * sqrt(3.0) / nx + 1, 3 * sqrt(3.0) / nx - 1};
    check_hand("l2l1h", x, 3, 1, sqrt(42.0) - 6, gh);
    const double zero[] = {0, 0}, gzero[] = {0, 0};
    check_hand("l2l1h", zero, 2, 1, 0, gzero);
}

static void test_linf_l1_hand(void **state)
{
    (void)state;
    const double x[] = {1, -3, 3}, g[] = {0, -1, 0};
    check_hand("linf", x, 3, 1, 3, g);
    const double y[] = {1, -2, 0}, gy[] = {1, -1, 0};
    check_hand("l1", y, 3, 1, 3, gy);
}

static void test_fixed_beta_hand(void **state)
{
    (void)state;
    const double x[] = {1, 2}, g[] = {-12, 48};
    check_hand("fixed", x, 2, 1, 18, g);
    check_hand("fixed alpha=-1", x, 2, 1, 18, g);
    const double gb[] = {0, 24};
    check_hand("beta", x, 2, 1, 9, gb);
    const double xl[] = {1, 2, 2}, gl[] = {-4, 16, -2};
    check_hand("beta beta=learn", xl, 3, 1, 5, gl);
}

static void test_eig_hand(void **state)
{
    (void)state;
    const double x[] = {1, 1}, g[] = {72, -8};
    check_hand("eig C=1,2;3,4", x, 2, 1, 16, g);
    const double xm[] = {1, 1, 2}, gm[] = {28, 24, -12};
    check_hand("mu C=1,2;3,4", xm, 3, 1, 26, gm);
    const double xn[] = {1, 0}, gn[] = {70, 88};
    check_hand("ns C=1,2;3,4;5,6", xn, 2, 1, 35, gn);
}

static void test_om_hand(void **state)
{
    (void)state;
    const double X[] = {1, 2, 3, 4, 5, 6};
    const double g[] = {620, 520, 1156, 1392, 1692, 2264};
    check_hand("om", X, 3, 2, 8185, g);
    /* the same data as a 2×3 matrix: K = 3 > N = 2 */
    const double Y[] = {1, 2, 3, 4, 5, 6};
    ld terms;
    tcase c = {.name = "om", .rows = 2, .cols = 3};
    double want = (double)naive_d(&c, Y, 6, &terms);
    check_hand("om", Y, 2, 3, want, NULL);
}

static void test_equ_hand(void **state)
{
    (void)state;
    const double on[] = {1, 2}, zero[] = {0, 0};
    check_hand("equ", on, 2, 1, 0, zero);
    const double y[] = {1, 1}, g[] = {48, -12};
    check_hand("equ", y, 2, 1, 9, g);
    check_hand("equ B=1", y, 2, 1, 0, zero); /* B=1 is bin */
}

static void test_holder_si_hand(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3};
    check_hand("holder", x, 3, 1, sqrt(294.0) - 14, NULL);
    check_hand("si", x, 3, 1, sqrt(294.0) / 14 - 1, NULL);
    const double y[] = {1, 2};
    check_hand("holder p=3 q=1.5 r=2", y, 2, 1, cbrt(67600.0) - 25, NULL);
    check_hand("si p=3 q=1.5 r=2 eps=5", y, 2, 1, (cbrt(67600.0) + 5) / 30 - 1, NULL);
}

/* ------------------------------------------------ cross-checks between entries */

/* holder with p = q = r = 2 is the CS regularizer of its base. */
static void test_holder_r2_is_cs(void **state)
{
    (void)state;
    const char *pairs[][2] = {{"holder r=2", "bin"},
                              {"holder r=2 base=osb", "osb"},
                              {"holder r=2 base=ter", "ter"}};
    cs_rng rng;
    cs_rng_init(&rng, 7, 0);
    for (size_t k = 0; k < 3; k++) {
        cs_reg *a = reg_ok(pairs[k][0]), *b = reg_ok(pairs[k][1]);
        double x[12], ga[12], gb[12];
        for (int t = 0; t < 10; t++) {
            fill_normal(&rng, x, 12);
            double va = eval_ok(a, x, 12, 1, ga), vb = eval_ok(b, x, 12, 1, gb);
            assert_close(va, vb, 1e-12 * vb, pairs[k][0]);
            assert_vec_close(ga, gb, 12, 1e-10 * maxabs(gb, 12), pairs[k][0]);
        }
        cs_reg_free(a);
        cs_reg_free(b);
    }
}

/* si (r = 2, eps = 0) = bin / (Σx²)²; si eps=0 r=1 = holder / Σx². */
static void test_si_is_ratio(void **state)
{
    (void)state;
    cs_reg *si2 = reg_ok("si r=2"), *si1 = reg_ok("si"), *bin = reg_ok("bin"),
           *hol = reg_ok("holder");
    cs_rng rng;
    cs_rng_init(&rng, 8, 0);
    double x[9];
    for (int t = 0; t < 20; t++) {
        fill_normal(&rng, x, 9);
        ld s2 = 0;
        for (int i = 0; i < 9; i++)
            s2 += (ld)x[i] * x[i];
        double b = eval_ok(bin, x, 9, 1, NULL), h = eval_ok(hol, x, 9, 1, NULL);
        assert_close(eval_ok(si2, x, 9, 1, NULL), (double)(b / (s2 * s2)), 1e-12, "si r=2");
        assert_close(eval_ok(si1, x, 9, 1, NULL), (double)(h / s2), 1e-12, "si r=1");
    }
    cs_reg_free(si2);
    cs_reg_free(si1);
    cs_reg_free(bin);
    cs_reg_free(hol);
}

/* l2l1 = N²·Var(|x|) (app. B.4). */
static void test_l2l1_is_variance(void **state)
{
    (void)state;
    cs_reg *reg = reg_ok("l2l1");
    cs_rng rng;
    cs_rng_init(&rng, 9, 0);
    double x[11];
    for (int t = 0; t < 20; t++) {
        fill_normal(&rng, x, 11);
        ld mean = 0, var = 0;
        for (int i = 0; i < 11; i++)
            mean += fabsl((ld)x[i]) / 11;
        for (int i = 0; i < 11; i++)
            var += (fabsl((ld)x[i]) - mean) * (fabsl((ld)x[i]) - mean) / 11;
        assert_close(eval_ok(reg, x, 11, 1, NULL), (double)(121 * var), 1e-12 * 121 * var,
                     "l2l1");
    }
    cs_reg_free(reg);
}

/* om is bin applied to the singular values of X (Regularizer 5), with
 * K − min(N, K) zero singular values when K > N. */
static void test_om_singular_values(void **state)
{
    (void)state;
    cs_reg *reg = reg_ok("om");
    cs_rng rng;
    cs_rng_init(&rng, 10, 0);
    const size_t shapes[][2] = {{8, 3}, {5, 5}, {3, 6}, {10, 1}, {1, 4}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t N = shapes[s][0], K = shapes[s][1], d = N < K ? N : K;
        double X[64], A[64], S[16], superb[16];
        fill_normal(&rng, X, N * K);
        memcpy(A, X, sizeof X);
        lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', (lapack_int)N,
                                         (lapack_int)K, A, (lapack_int)K, S, NULL, 1, NULL, 1,
                                         superb);
        assert_int_equal(info, 0);
        ld s2 = 0, s4 = 0;
        for (size_t k = 0; k < d; k++) {
            s2 += (ld)S[k] * S[k];
            s4 += (ld)S[k] * S[k] * S[k] * S[k];
        }
        ld want = (ld)K * s4 - s2 * s2;
        double got = eval_ok(reg, X, N, K, NULL);
        assert_close(got, (double)want, 1e-12 * (double)((ld)K * s4), "om vs svd");
    }
    cs_reg_free(reg);
}

/* ---------------------------------------------------------- homogeneity */

typedef struct homog {
    const char *spec;
    double degree;
} homog;

static void test_homogeneity(void **state)
{
    (void)state;
    const homog hs[] = {{"bin", 4},   {"osb", 6},   {"ter", 8},   {"l2l1", 2},
                        {"l2l1h", 1}, {"linf", 1},  {"l1", 1},    {"equ", 4},
                        {"equ B=3", 4}, {"eig C=random", 4},
                        {"holder", 2}, {"holder base=osb", 3}, {"holder r=1.5 base=ter", 6},
                        {"holder p=3 q=1.5 r=0.7 base=osb", 2.1}, {"si", 0},
                        {"si p=3 q=1.5 r=2 base=ter", 0}};
    cs_rng rng;
    cs_rng_init(&rng, 18, 0);
    const double alphas[] = {0.37, 2.9, -1.7, 0x1p40, 0x1p-40, 1e25, 3e-25};
    for (size_t k = 0; k < sizeof hs / sizeof hs[0]; k++) {
        cs_reg *reg = reg_ok(hs[k].spec);
        double x[12], y[12], gx[12], gy[12];
        fill_normal(&rng, x, 12);
        double v = eval_ok(reg, x, 12, 1, gx);
        for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; a++) {
            double al = alphas[a];
            for (int i = 0; i < 12; i++)
                y[i] = al * x[i];
            double w = eval_ok(reg, y, 12, 1, gy);
            double f = pow(fabs(al), hs[k].degree);
            if (!(fabs(w - f * v) <= 1e-12 * f * v))
                fail_msg("%s: l(%g x) = %.17g, %g^%g l(x) = %.17g", hs[k].spec, al, w, al,
                         hs[k].degree, f * v);
            /* ∇ℓ(αx) = α^(d−1)·sign(α)^d... = α^(d-1) ∇ℓ(x) for even functions */
            double fg = f / al;
            for (int i = 0; i < 12; i++)
                if (!(fabs(gy[i] - fg * gx[i]) <= 1e-11 * fabs(fg) * maxabs(gx, 12)))
                    fail_msg("%s: gradient at %g x, entry %d: %.17g vs %.17g", hs[k].spec, al,
                             i, gy[i], fg * gx[i]);
        }
        cs_reg_free(reg);
    }
}

/* om is homogeneous in the matrix argument as well. */
static void test_homogeneity_om(void **state)
{
    (void)state;
    cs_reg *reg = reg_ok("om");
    cs_rng rng;
    cs_rng_init(&rng, 19, 0);
    double X[12], Y[12];
    fill_normal(&rng, X, 12);
    double v = eval_ok(reg, X, 4, 3, NULL);
    const double alphas[] = {0.5, 3.3, 1e40, 1e-40};
    for (int a = 0; a < 4; a++) {
        for (int i = 0; i < 12; i++)
            Y[i] = alphas[a] * X[i];
        double f = pow(alphas[a], 4);
        assert_close(eval_ok(reg, Y, 4, 3, NULL), f * v, 1e-12 * f * v, "om homogeneity");
    }
    cs_reg_free(reg);
}

/* --------------------------------------------------- range and overflow */

/* Entries of 1e200: the value of a degree-8 regularizer is 1e1600, a clean
 * error; degree-0 and degree-1 ones stay exact. */
static void test_huge_values(void **state)
{
    (void)state;
    double x[] = {1e200, -3e200, 2e200};
    const char *too_big[] = {"ter", "bin", "osb", "holder", "eig C=random", "fixed"};
    for (size_t k = 0; k < sizeof too_big / sizeof too_big[0]; k++) {
        cs_reg *reg = reg_ok(too_big[k]);
        eval_fails(reg, x, 3, 1, CS_ENONFINITE, "not representable");
        cs_reg_free(reg);
    }
    cs_reg *si = reg_ok("si"), *l1 = reg_ok("l1"), *linf = reg_ok("linf");
    const double u[] = {1, -3, 2};
    assert_close(eval_ok(si, x, 3, 1, NULL), eval_ok(si, u, 3, 1, NULL), 1e-15, "si 1e200");
    assert_close(eval_ok(l1, x, 3, 1, NULL), 6e200, 1e186, "l1 1e200");
    assert_close(eval_ok(linf, x, 3, 1, NULL), 3e200, 0, "linf 1e200");
    double big[] = {1e308, 1.5e308};
    eval_fails(l1, big, 2, 1, CS_ENONFINITE, "not representable");
    cs_reg_free(si);
    cs_reg_free(l1);
    cs_reg_free(linf);
}

/* Values with |x| = 1e30 computed by the wrapper's rescaling, checked
 * against exact hand values: bin(1e30·[1,2,3]) = 98e120. */
static void test_1e30_exact(void **state)
{
    (void)state;
    const double x[] = {1e30, 2e30, 3e30};
    cs_reg *bin = reg_ok("bin"), *ter = reg_ok("ter");
    double g[3];
    assert_close(eval_ok(bin, x, 3, 1, g), 98e120, 1e-14 * 98e120, "bin 1e30");
    assert_close(g[2], 156e90, 1e-14 * 156e90, "bin grad 1e30");
    assert_close(eval_ok(ter, x, 3, 1, g), 1512e240, 1e-14 * 1512e240, "ter 1e30");
    assert_close(g[0], 888e210, 1e-14 * 888e210, "ter grad 1e30");
    const double tiny[] = {1e-60, 2e-60, 3e-60};
    assert_close(eval_ok(bin, tiny, 3, 1, g), 98e-240, 1e-14 * 98e-240, "bin 1e-60");
    cs_reg_free(bin);
    cs_reg_free(ter);
}

/* Bounded regularizers stay finite anywhere. */
static void test_bounded_range(void **state)
{
    (void)state;
    cs_reg *b = reg_ok("bbin"), *e = reg_ok("binexp");
    const double x[] = {1e300, -1e-300, 0, 5};
    double g[4];
    double vb = eval_ok(b, x, 4, 1, g), ve = eval_ok(e, x, 4, 1, g);
    assert_true(vb > 0 && vb <= 16 && ve > 0 && ve <= 16);
    cs_reg_free(b);
    cs_reg_free(e);
}

/* ----------------------------------------------------------------- main */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bin_hand),
        cmocka_unit_test(test_osb_hand),
        cmocka_unit_test(test_ter_hand),
        cmocka_unit_test(test_bbin_binexp_hand),
        cmocka_unit_test(test_l2l1_hand),
        cmocka_unit_test(test_linf_l1_hand),
        cmocka_unit_test(test_fixed_beta_hand),
        cmocka_unit_test(test_eig_hand),
        cmocka_unit_test(test_om_hand),
        cmocka_unit_test(test_equ_hand),
        cmocka_unit_test(test_holder_si_hand),
        cmocka_unit_test(test_holder_r2_is_cs),
        cmocka_unit_test(test_si_is_ratio),
        cmocka_unit_test(test_l2l1_is_variance),
        cmocka_unit_test(test_om_singular_values),
        cmocka_unit_test(test_homogeneity),
        cmocka_unit_test(test_homogeneity_om),
        cmocka_unit_test(test_huge_values),
        cmocka_unit_test(test_1e30_exact),
        cmocka_unit_test(test_bounded_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
