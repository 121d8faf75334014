/* test_reg_targets.c — the target sets of the regularizers, built from
 * the paper's characterizations (sign patterns, equal-norm orthogonal
 * columns, eigenvectors of a symmetric C from LAPACK, a nullspace): the
 * value vanishes there, to far below rounding for the residual forms, and
 * is positive one step off; and the distance to those sets that basins
 * classifies by (cs_reg_target_distance), negative scales included. */
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

/* ------------------------------------------- distances to the target set */

/* cs_reg_target_distance against each entry's `help reg` target statement:
 * a point of the set (at a negative scale where the set has one) is at
 * distance 0 and ℓ vanishes there; a point off it is at the distance worked
 * out by hand. */

static double dist(const char *spec, const double *x, size_t n)
{
    cs_reg *reg = reg_ok(spec);
    double d = cs_reg_target_distance(reg, x, n);
    cs_reg_free(reg);
    return d;
}

static void on_set(const char *spec, const double *x, size_t n)
{
    double d = dist(spec, x, n);
    if (!(d >= 0 && d <= 1e-12))
        fail_msg("%s: distance %.3g on its target set", spec, d);
}

/* bin: {-a,+a}^N, a of either sign the same set. */
static void test_distance_bin(void **state)
{
    (void)state;
    const tcase c = {.name = "bin"};
    double x[5], a = -0.7;
    const double l[5] = {1, -1, -1, 1, 1};
    for (int i = 0; i < 5; i++)
        x[i] = a * l[i];
    on_set("bin", x, 5);
    check_target(&c, x, 5, 1, TIGHT);
    on_set("holder base=bin p=3 q=1.5", x, 5);
    /* a = mean|x| = 2: ‖(1,3) − (2,2)‖/‖(1,3)‖ = √2/√10 */
    const double y[2] = {1, 3}, ym[2] = {-1, -3};
    assert_close(dist("bin", y, 2), sqrt(0.2), 1e-15, "bin (1,3)");
    assert_close(dist("l2l1", ym, 2), sqrt(0.2), 1e-15, "l2l1 (-1,-3)");
    assert_true(dist("bin", (double[2]){0, 0}, 2) == 0.0);
}

/* osb: {0,a}^N for any real a, negative a included. */
static void test_distance_osb(void **state)
{
    (void)state;
    const tcase c = {.name = "osb"};
    double x[5], a = -0.37;
    const double l[5] = {0, 1, 1, 0, 1};
    for (int i = 0; i < 5; i++)
        x[i] = a * l[i];
    on_set("osb", x, 5);
    check_target(&c, x, 5, 1, TIGHT);
    on_set("holder base=osb p=3 q=1.5", x, 5);
    on_set("si base=osb", x, 5);
    /* (-1,-3,0): a = -3 leaves (-1,0,0): √1/√10 */
    const double y[3] = {-1, -3, 0};
    assert_close(dist("osb", y, 3), sqrt(0.1), 1e-15, "osb (-1,-3,0)");
    /* (-1,2): a = 2 leaves 1, a = -1 leaves 2: √1/√5 */
    const double z[2] = {-1, 2};
    assert_close(dist("osb", z, 2), sqrt(0.2), 1e-15, "osb (-1,2)");
    /* the negative half-axis of the basins check: exactly on the set */
    const double h[2] = {-0.0741, 0.0};
    assert_true(dist("osb", h, 2) == 0.0);
    cs_reg *reg = reg_ok("osb");
    assert_true(fabs(eval_ok(reg, h, 2, 1, NULL)) <= TIGHT * pow(0.0741, 6));
    cs_reg_free(reg);
}

/* ter: {-a,0,+a}^N, symmetric. */
static void test_distance_ter(void **state)
{
    (void)state;
    const tcase c = {.name = "ter"};
    double x[4], a = -1.3;
    const double l[4] = {-1, 0, 1, 1};
    for (int i = 0; i < 4; i++)
        x[i] = a * l[i];
    on_set("ter", x, 4);
    check_target(&c, x, 4, 1, TIGHT);
    /* (0,1,2): a = 1.5 on the last two leaves (0,-0.5,0.5): √0.5/√5 */
    const double y[3] = {0, 1, 2};
    assert_close(dist("ter", y, 3), sqrt(0.1), 1e-15, "ter (0,1,2)");
}

/* fixed: {-alpha,+alpha}^N, alpha fixed (its sign does not matter). */
static void test_distance_fixed(void **state)
{
    (void)state;
    const tcase c = {.name = "fixed", .alpha = -0.8};
    const double x[3] = {0.8, -0.8, -0.8};
    on_set("fixed alpha=-0.8", x, 3);
    on_set("fixed alpha=0.8", x, 3);
    check_target(&c, x, 3, 1, TIGHT);
    /* (1,-0.5) to (0.8,-0.8): √(0.04 + 0.09)/√1.25; 2x is off the set */
    const double y[2] = {1, -0.5}, x2[3] = {1.6, -1.6, -1.6};
    assert_close(dist("fixed alpha=0.8", y, 2), sqrt(0.13 / 1.25), 1e-15, "fixed (1,-0.5)");
    assert_close(dist("fixed alpha=0.8", x2, 3), 0.5, 1e-15, "fixed 2x");
    assert_true(isinf(dist("fixed alpha=0.8", (double[2]){0, 0}, 2)));
}

/* equ: y_b ∈ {±2^(b-1) a}^N, the B blocks stacked. */
static void test_distance_equ(void **state)
{
    (void)state;
    const tcase c = {.name = "equ", .B = 2};
    const double y[4] = {-0.6, 0.6, -1.2, 1.2};   /* a = -0.6 */
    on_set("equ B=2", y, 4);
    check_target(&c, y, 4, 1, TIGHT);
    /* (1,1 | 1,3): a = (2 + 2·4)/(2·(1 + 4)) = 1 leaves (0,0 | -1,1): √2/√12 */
    const double z[4] = {1, 1, 1, 3};
    assert_close(dist("equ B=2", z, 4), sqrt(1.0 / 6.0), 1e-15, "equ (1,1,1,3)");
    assert_true(isnan(dist("equ B=3", z, 4)));   /* 4 is no multiple of 3 */
}

/* min over a > 0 and every assignment of ‖x − a·l‖², by enumeration. */
static double brute_distance(const double *x, size_t n, const double *lv, size_t nl)
{
    double xx = 0, best = 0;
    for (size_t i = 0; i < n; i++)
        xx += x[i] * x[i];
    size_t total = 1;
    for (size_t i = 0; i < n; i++)
        total *= nl;
    for (size_t code = 0; code < total; code++) {
        double sxl = 0, sll = 0;
        for (size_t i = 0, c = code; i < n; i++, c /= nl) {
            sxl += x[i] * lv[c % nl];
            sll += lv[c % nl] * lv[c % nl];
        }
        if (sxl > 0 && sll > 0 && sxl * sxl / sll > best)
            best = sxl * sxl / sll;
    }
    return sqrt(fmax(xx - best, 0.0) / xx);
}

/* A defined regularizer's scale-free level set {a·l}: a < 0 belongs to it
 * when −levels is a level set of its g and h too (ℓ = 0 iff g ∥ h). */
static void test_distance_scaled(void **state)
{
    (void)state;
    /* g = x³, h = 1: {+a}^N, every x_n equal, a of either sign */
    define_ok("tgt_cube", "x^3", "1");
    cs_reg *reg = reg_ok("tgt_cube");
    assert_int_equal(cs_reg_family(reg), CS_TARGET_SCALED);
    const double x[3] = {-0.5, -0.5, -0.5};
    on_set("tgt_cube", x, 3);
    assert_true(eval_ok(reg, x, 3, 1, NULL) <= 1e-30);
    /* (1,2) and (-1,-2): a = ±1.5 leaves (∓0.5, ±0.5): √0.5/√5 */
    const double y[2] = {1, 2}, ym[2] = {-1, -2};
    assert_close(dist("tgt_cube", y, 2), sqrt(0.1), 1e-15, "cube (1,2)");
    assert_close(dist("tgt_cube", ym, 2), sqrt(0.1), 1e-15, "cube (-1,-2)");
    cs_rng rng;
    cs_rng_init(&rng, 18, 0);
    for (int t = 0; t < 20; t++) {   /* ‖x − mean(x)‖/‖x‖ */
        double v[9], m = 0, r = 0, xx = 0;
        size_t n = 2 + cs_rng_below(&rng, 8);
        fill_normal(&rng, v, n);
        for (size_t i = 0; i < n; i++)
            m += v[i] / (double)n;
        for (size_t i = 0; i < n; i++) {
            r += (v[i] - m) * (v[i] - m);
            xx += v[i] * v[i];
        }
        assert_close(cs_reg_target_distance(reg, v, n), sqrt(r / xx), 1e-14, "cube random");
    }
    cs_reg_free(reg);
    /* g = 1.5|x| − 0.5x, h = 1: g = x for x > 0, −2x for x < 0, so the
     * level sets are {−c/2, c} for c > 0 only: {−a/2, +a}^N for a > 0 */
    define_ok("tgt_skew", "1.5*abs(x)-0.5*x", "1");
    reg = reg_ok("tgt_skew");
    size_t nl;
    const double *lv = cs_reg_target_levels(reg, &nl);
    assert_int_equal(nl, 2);
    assert_close(lv[0], -0.5, 1e-9, "skew level");
    const double p[3] = {-1, 2, 2}, q[3] = {1, -2, -2};   /* a = 2 and a = -2 */
    on_set("tgt_skew", p, 3);
    assert_true(eval_ok(reg, p, 3, 1, NULL) <= 1e-12);
    /* a = -2 is no zero: g = (1,4,4), ℓ = 3·33 − 9² = 18; the nearest point
     * is (2,-1,-1) (a = 2), ‖(−1,−1,−1)‖/‖q‖ = 1/√3 */
    assert_close(eval_ok(reg, q, 3, 1, NULL), 18.0, 1e-6, "skew at a = -2");
    assert_close(cs_reg_target_distance(reg, q, 3), 1 / sqrt(3.0), 1e-6, "skew a = -2");
    const double L[2] = {lv[0], lv[1]};
    for (int t = 0; t < 40; t++) {   /* the sweep against every assignment */
        double v[8];
        size_t n = 1 + cs_rng_below(&rng, 8);
        fill_normal(&rng, v, n);
        assert_close(cs_reg_target_distance(reg, v, n), brute_distance(v, n, L, 2), 1e-12,
                     "skew random");
    }
    cs_reg_free(reg);
    /* families with no distance */
    assert_true(isnan(dist("linf", y, 2)));
    assert_true(isnan(dist("beta", y, 2)));
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
        cmocka_unit_test(test_distance_bin),
        cmocka_unit_test(test_distance_osb),
        cmocka_unit_test(test_distance_ter),
        cmocka_unit_test(test_distance_fixed),
        cmocka_unit_test(test_distance_equ),
        cmocka_unit_test(test_distance_scaled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
