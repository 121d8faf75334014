/* test_reg_props.c — every regularizer of a table of cases (all entries,
 * with several parameter sets) against the naive long-double formulas of
 * reg_naive_util.c: the value, the gradient against central finite
 * differences (of the naive formula and of the engine's value), value > 0
 * at random points, ∇ℓ ≠ 0 there for the regularizers proven free of
 * spurious stationary points, extreme scales; and one long vector. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cs_reg.h"
#include "cs_rng.h"
#include "reg_naive_util.h"
#include "reg_util.h"

#define NPOINTS 20

/* ---------------------------------------------------------- the test cases */

static const tcase cases[] = {
    {.name = "bin"},
    {.name = "osb"},
    {.name = "ter"},
    {.name = "bbin"},
    {.name = "binexp"},
    {.name = "l2l1"},
    {.name = "l2l1h"},
    {.name = "linf"},
    {.name = "l1"},
    {.name = "fixed", .alpha = 1.0},
    {.name = "fixed", .alpha = 0.7},
    {.name = "beta", .beta = 1.0},
    {.name = "beta", .beta = 2.5},
    {.name = "beta", .learn = 1},
    {.name = "equ", .B = 1},
    {.name = "equ", .B = 2},
    {.name = "equ", .B = 3},
    {.name = "eig"},
    {.name = "mu"},
    {.name = "ns"},
    {.name = "om", .rows = 6, .cols = 3},
    {.name = "om", .rows = 3, .cols = 5},
    {.name = "om", .rows = 4, .cols = 4},
    HOLDER(2, 2, 1, B_BIN),
    HOLDER(2, 2, 1, B_OSB),
    HOLDER(2, 2, 1, B_TER),
    HOLDER(2, 2, 2, B_BIN),
    HOLDER(2, 2, 0.5, B_OSB),
    HOLDER(3, 1.5, 2, B_BIN),
    HOLDER(3, 1.5, 2, B_OSB),
    HOLDER(1.5, 3, 0.7, B_TER),
    HOLDER(4, 4.0 / 3.0, 1, B_BIN),
    SI(2, 2, 1, B_BIN, 0),
    SI(2, 2, 1, B_OSB, 0.1),
    SI(3, 1.5, 2, B_TER, 0),
    SI(1.5, 3, 0.5, B_BIN, 2),
    SI(2, 2, 2, B_TER, 0),
};
#define NCASES (sizeof cases / sizeof cases[0])

/* A random argument for case c: returns its length; rows×cols its shape. */
static size_t rand_point(cs_rng *rng, const tcase *c, double *x, size_t *rows, size_t *cols)
{
    size_t len;
    if (is(c, "om")) {
        *rows = c->rows;
        *cols = c->cols;
        len = c->rows * c->cols;
    } else {
        size_t n = (is(c, "eig") || is(c, "mu") || is(c, "ns")) ? CN : 2 + cs_rng_below(rng, 11);
        if (is(c, "equ"))
            n *= (size_t)c->B;
        len = n + case_extra(c);
        /* both orientations of a vector are accepted */
        *rows = cs_rng_below(rng, 2) ? len : 1;
        *cols = len / *rows;
    }
    fill_normal(rng, x, len);
    return len;
}

/* Central differences of the naive formula, Richardson-extrapolated
 * (error O(h⁴)), in long double. */
static ld fd_naive(const tcase *c, const double *x, size_t len, size_t i, ld h)
{
    static ld xl[MAXN + 1];
    ld d[2], t;
    for (int k = 0; k < 2; k++) {
        ld hk = k ? h / 2 : h;
        for (size_t j = 0; j < len; j++)
            xl[j] = x[j];
        xl[i] = (ld)x[i] + hk;
        ld fp = naive(c, xl, len, &t);
        xl[i] = (ld)x[i] - hk;
        ld fm = naive(c, xl, len, &t);
        d[k] = (fp - fm) / (2 * hk);
    }
    return (4 * d[1] - d[0]) / 3;
}

/* The same on the engine's own value (double). */
static double fd_engine(cs_reg *reg, const double *x, size_t rows, size_t cols, size_t i,
                        double h)
{
    static double xd[MAXN + 1];
    double d[2];
    size_t len = rows * cols;
    for (int k = 0; k < 2; k++) {
        double hk = k ? h / 2 : h;
        memcpy(xd, x, len * sizeof *xd);
        xd[i] = x[i] + hk;
        double fp = eval_ok(reg, xd, rows, cols, NULL);
        xd[i] = x[i] - hk;
        double fm = eval_ok(reg, xd, rows, cols, NULL);
        d[k] = (fp - fm) / (2 * hk);
    }
    return (4 * d[1] - d[0]) / 3;
}

/* ------------------------------------------------ properties, per case */

static const tcase *case_of(void **state) { return (const tcase *)*state; }

static uint64_t case_seed(const tcase *c) { return (uint64_t)(c - cases) + 1000; }

/* Engine value equals the naive formula to 1e-9 of the terms' magnitude. */
static void test_matches_naive(void **state)
{
    const tcase *c = case_of(state);
    cs_reg *reg = case_reg(c);
    cs_rng rng;
    cs_rng_init(&rng, case_seed(c), 1);
    double x[64], grad[64];
    for (int k = 0; k < 50; k++) {
        size_t rows, cols, len = rand_point(&rng, c, x, &rows, &cols);
        ld terms, want = naive_d(c, x, len, &terms);
        double got = eval_ok(reg, x, rows, cols, grad);
        double got_nograd = eval_ok(reg, x, rows, cols, NULL);
        assert_close(got, (double)want, 1e-9 * (double)terms, c->name);
        assert_true(got == got_nograd);
    }
    cs_reg_free(reg);
}

/* Gradient against central differences of the naive formula and of the
 * engine's value, at 20 random points. */
static void test_gradient_fd(void **state)
{
    const tcase *c = case_of(state);
    cs_reg *reg = case_reg(c);
    cs_rng rng;
    cs_rng_init(&rng, case_seed(c), 2);
    double x[64], grad[64];
    for (int k = 0; k < NPOINTS; k++) {
        size_t rows, cols, len = rand_point(&rng, c, x, &rows, &cols);
        ld terms;
        naive_d(c, x, len, &terms);
        eval_ok(reg, x, rows, cols, grad);
        double xm = maxabs(x, len), worst = 0.0, scale = (double)terms / xm;
        for (size_t i = 0; i < len; i++) {
            double h = fmax(1e-3 * fabs(x[i]), 1e-6 * xm);
            double dn = (double)fd_naive(c, x, len, i, h);
            double de = fd_engine(reg, x, rows, cols, i, h);
            scale = fmax(scale, fabs(dn));
            worst = fmax(worst, fmax(fabs(grad[i] - dn), fabs(grad[i] - de)));
        }
        if (!(worst <= 1e-6 * scale))
            fail_msg("%s point %d: gradient off by %.3g (scale %.3g)", c->name, k, worst,
                     scale);
    }
    cs_reg_free(reg);
}

/* Random points are off every target set: value > 0. */
static void test_positive_off_target(void **state)
{
    const tcase *c = case_of(state);
    cs_reg *reg = case_reg(c);
    cs_rng rng;
    cs_rng_init(&rng, case_seed(c), 3);
    double x[64];
    for (int k = 0; k < 30; k++) {
        size_t rows, cols, len = rand_point(&rng, c, x, &rows, &cols);
        ld terms;
        naive_d(c, x, len, &terms);
        double v = eval_ok(reg, x, rows, cols, NULL);
        if (!(v > 1e-12 * (double)terms))
            fail_msg("%s: value %g at a random point (terms %g)", c->name, v, (double)terms);
    }
    cs_reg_free(reg);
}

/* Regularizers proven free of spurious stationary points: ∇ℓ ≠ 0 off the
 * target set (registered only for those cases). */
static void test_nonzero_gradient(void **state)
{
    const tcase *c = case_of(state);
    cs_reg *reg = case_reg(c);
    assert_true(cs_reg_get_info(reg)->spurious_free);
    cs_rng rng;
    cs_rng_init(&rng, case_seed(c), 4);
    double x[64], grad[64];
    for (int k = 0; k < NPOINTS; k++) {
        size_t rows, cols, len = rand_point(&rng, c, x, &rows, &cols);
        ld terms;
        naive_d(c, x, len, &terms);
        eval_ok(reg, x, rows, cols, grad);
        double gm = maxabs(grad, len);
        if (!(gm > 1e-6 * (double)terms / maxabs(x, len)))
            fail_msg("%s: |grad| = %g at a random point", c->name, gm);
    }
    cs_reg_free(reg);
}

/* |x| around 1e30 and 1e-30: finite, and the naive value (long double has
 * the range) to 1e-9. */
static void test_extreme_scale(void **state)
{
    const tcase *c = case_of(state);
    cs_reg *reg = case_reg(c);
    cs_rng rng;
    cs_rng_init(&rng, case_seed(c), 5);
    double x[64], grad[64];
    const double scales[] = {1e30, 3.7e-30};
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < 5; k++) {
            size_t rows, cols, len = rand_point(&rng, c, x, &rows, &cols);
            for (size_t i = 0; i < len - case_extra(c); i++)
                x[i] *= scales[s];
            ld terms, want = naive_d(c, x, len, &terms);
            double got = eval_ok(reg, x, rows, cols, grad);
            assert_true(isfinite(got));
            if (!(fabsl((ld)got - want) <= 1e-9L * terms))
                fail_msg("%s at scale %g: got %.17g want %.17Lg (terms %Lg)", c->name,
                         scales[s], got, want, terms);
        }
    }
    cs_reg_free(reg);
}

/* A long vector: the kernel agrees with the naive formula at N = 4000. */
static void test_large_n(void **state)
{
    (void)state;
    static double x[4000], g[4000];
    cs_rng rng;
    cs_rng_init(&rng, 20, 0);
    fill_normal(&rng, x, 4000);
    const tcase cs[] = {{.name = "bin"}, {.name = "ter"}, HOLDER(3, 1.5, 2, B_OSB),
                        {.name = "equ", .B = 4}};
    for (size_t k = 0; k < 4; k++) {
        cs_reg *reg = case_reg(&cs[k]);
        ld terms, want = naive_d(&cs[k], x, 4000, &terms);
        assert_close(eval_ok(reg, x, 4000, 1, g), (double)want, 1e-9 * (double)terms,
                     cs[k].name);
        cs_reg_free(reg);
    }
}

/* ----------------------------------------------------------------- main */

static int group_setup(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 2024, 0);
    cs_rng_normal_fill(&rng, C_sq, CN * CN);
    cs_rng_normal_fill(&rng, C_tall, CM * CN);
    matrix_text(C_sq, CN, CN, C_sq_text, sizeof C_sq_text);
    matrix_text(C_tall, CM, CN, C_tall_text, sizeof C_tall_text);
    return 0;
}

#define T(f) cmocka_unit_test(f)

static const struct CMUnitTest fixed_tests[] = {
    T(test_large_n),
};

#define NFIXED (sizeof fixed_tests / sizeof fixed_tests[0])
#define NPROPS 5

int main(void)
{
    static struct CMUnitTest tests[NFIXED + NPROPS * NCASES];
    static char names[NPROPS * NCASES][160];
    static const struct {
        const char *what;
        CMUnitTestFunction fn;
    } props[NPROPS] = {{"matches_naive", test_matches_naive},
                       {"gradient_fd", test_gradient_fd},
                       {"positive_off_target", test_positive_off_target},
                       {"nonzero_gradient", test_nonzero_gradient},
                       {"extreme_scale", test_extreme_scale}};
    group_setup(NULL);
    size_t nt = 0;
    for (size_t i = 0; i < NFIXED; i++)
        tests[nt++] = fixed_tests[i];
    for (size_t p = 0; p < NPROPS; p++)
        for (size_t c = 0; c < NCASES; c++) {
            char spec[64];
            const tcase *tc = &cases[c];
            if (props[p].fn == test_nonzero_gradient && !cs_reg_lookup(tc->name)->spurious_free)
                continue;
            if (is(tc, "eig") || is(tc, "mu") || is(tc, "ns"))
                snprintf(spec, sizeof spec, "%s C=%s", tc->name,
                         is(tc, "ns") ? "7x5" : "5x5");
            else if (is(tc, "om"))
                snprintf(spec, sizeof spec, "om %zux%zu", tc->rows, tc->cols);
            else
                case_spec(tc, spec, sizeof spec);
            char *nm = names[p * NCASES + c];
            snprintf(nm, sizeof names[0], "%s/%s", props[p].what, spec);
            tests[nt++] = (struct CMUnitTest){nm, props[p].fn, NULL, NULL, (void *)tc};
        }
    return _cmocka_run_group_tests("reg", tests, nt, NULL, NULL);
}
