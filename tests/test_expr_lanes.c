/* test_expr_lanes.c — what fuzz_expr found: an entry's value must not
 * depend on its neighbours in the call (cs_expr.h: the same bits whatever
 * the length, offset or chunking). SLEEF's sin, cos and tan choose one
 * argument reduction per vector by its largest lane, so cos(4.36e-8) came
 * out 1 ULP off (0.99999999999999911 instead of 0.999999999999999) when a
 * NaN, an Inf or a 1e15 sat in the same group of four, and sin's
 * derivative with it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cs_expr.h"

/* The same bits, or both NaN (its sign and payload are no value: SLEEF's
 * AVX-512 and AVX2 log of a negative number differ there). */
static int same(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void check_alone(const char *text, const double *x, size_t n)
{
    cs_expr *e;
    cs_err err;
    assert_int_equal(cs_expr_parse(&e, text, NULL, 0, NULL, &err), CS_OK);
    double f[80], d[80], f1, d1;
    assert_true(n <= 80);
    cs_expr_eval_unchecked(e, x, n, f, d, &err);
    for (size_t i = 0; i < n; i++) {
        cs_expr_eval_unchecked(e, x + i, 1, &f1, &d1, &err);
        if (!same(f1, f[i]) || !same(d1, d[i]))
            fail_msg("%s at x[%zu] = %.17g: %.17g (d %.17g) beside others, %.17g (d %.17g) "
                     "alone", text, i, x[i], f[i], d[i], f1, d1);
    }
    cs_expr_free(e);
}

static void test_trig_neighbours(void **state)
{
    (void)state;
    static const char *const texts[] = {"sin(x)", "cos(x)", "tan(x)", "sin(x)*cos(2*x)",
                                        "exp(x)", "tanh(x)", "log(x)", "x^0.7"};
    const double nb[] = {NAN, INFINITY, -INFINITY, 1e15, -3e20, 20.0, 1e6, 14.999};
    const double small[] = {4.359320098278569e-08, 0.1, 1.3, -2.9, 1e-5, 3.0};
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++)
        for (size_t i = 0; i < sizeof small / sizeof *small; i++)
            for (size_t j = 0; j < sizeof nb / sizeof *nb; j++) {
                /* the neighbour in each lane of the group, and an array over
                 * two chunks with neighbours scattered */
                for (size_t lane = 1; lane < 4; lane++) {
                    double x[4] = {small[i], small[i], small[i], small[i]};
                    x[lane] = nb[j];
                    check_alone(texts[t], x, 4);
                }
                double x[80];
                for (size_t k = 0; k < 80; k++)
                    x[k] = k % 7 == 3 ? nb[(j + k) % 8] : small[(i + k) % 6] * (1.0 + k);
                check_alone(texts[t], x, 80);
            }
    /* the case the fuzzer found: cos beside a NaN */
    cs_expr *e;
    cs_err err;
    assert_int_equal(cs_expr_parse(&e, "cos(x)", NULL, 0, NULL, &err), CS_OK);
    double x[4] = {4.359320098278569e-08, NAN, NAN, NAN}, f[4];
    cs_expr_eval_unchecked(e, x, 4, f, NULL, &err);
    assert_true(f[0] == 0.999999999999999);
    cs_expr_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trig_neighbours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
