/* test_reg_fast.c — the solver's path to the regularizers (cs_reg_eval_fast:
 * the entries' own evaluation with 4-wide sums, no argument scan, no
 * rescaling) against the library's (cs_reg_eval, entry-by-entry sums): the
 * same value and gradient to 1e-12 relative (the terms' size where ℓ is at
 * the level of rounding), for every regularizer the solver takes, built-in
 * and defined, at lengths that exercise the 4-wide blocks and the
 * remainder; the library's bin, osb and ter exact on integers; non-finite
 * results reported as such. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reg_util.h"

/* |a − b| ≤ rel·(|b| + floor) */
static void close_to(double a, double b, double rel, double floor, const char *what, size_t n,
                     size_t i)
{
    if (!(fabs(a - b) <= rel * (fabs(b) + floor)))
        fail_msg("%s (n = %zu) entry %zu: fast %.17g, library %.17g", what, n, i, a, b);
}

static void compare(const char *spec, const double *x, size_t n, double rel)
{
    cs_reg *a = reg_ok(spec), *b = reg_ok(spec);
    double *ga = malloc(n * sizeof *ga), *gb = malloc(n * sizeof *gb), va, vb;
    cs_err err;
    if (cs_reg_eval_fast(a, x, 1, n, &va, ga, &err))
        fail_msg("%s: %s", spec, err.msg);
    if (cs_reg_eval(b, x, 1, n, &vb, gb, &err))
        fail_msg("%s: %s", spec, err.msg);
    close_to(va, vb, rel, 0.0, spec, n, (size_t)-1);
    double gmax = maxabs(gb, n);
    for (size_t i = 0; i < n; i++)
        close_to(ga[i], gb[i], rel, gmax, spec, n, i);
    /* value only: the same value */
    double v2;
    if (cs_reg_eval_fast(a, x, 1, n, &v2, NULL, &err))
        fail_msg("%s: %s", spec, err.msg);
    assert_memory_equal(&v2, &va, sizeof va);
    free(ga);
    free(gb);
    cs_reg_free(a);
    cs_reg_free(b);
}

static void test_every_method(void **state)
{
    (void)state;
    define_ok("fmyter", "x", "x^3");
    define_ok("fwave", "exp(-x^2) + 0.1*sin(3*x)", "1 + x^2/4");
    cs_reg_def_spec d;
    cs_reg_def_spec_init(&d);
    d.name = "fhold", d.g = "abs(x)^1.5", d.h = "1 + tanh(x)", d.form = CS_FORM_HOLDER;
    d.p = 3, d.q = 1.5, d.r = 2;
    cs_err err;
    assert_int_equal(cs_reg_define(&d, NULL, NULL, &err), 0);
    d.name = "fsi", d.g = "x^2", d.h = "x", d.form = CS_FORM_SI, d.p = d.q = 2, d.r = 1;
    d.eps = 0.1;
    assert_int_equal(cs_reg_define(&d, NULL, NULL, &err), 0);
    static const char *const specs[] = {
        "bin", "osb", "ter", "bbin", "binexp", "l2l1", "l2l1h", "fixed", "fixed alpha=0.3",
        "holder", "holder base=osb", "holder base=ter r=2", "holder p=3 q=1.5 r=0.5",
        "si", "si base=ter eps=0.1", "si p=1.5 q=3 r=2", "beta", "beta beta=learn",
        "fmyter", "fwave", "fhold", "fsi", "eig C=random", "ns C=random", "mu C=random",
    };
    cs_rng rng;
    cs_rng_init(&rng, 11, 3);
    double x[203];
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++)
        for (size_t n = 2; n <= 203; n += (n < 12 ? 1 : 47)) {
            fill_normal(&rng, x, n);
            compare(specs[k], x, n, 1e-12);
        }
}

/* Near the zero set (x_n = ±0.7 + 1e-9·noise): R_n = ‖h‖²g_n − ⟨g,h⟩h_n is
 * ~1e-7 there while the sums are ~50, so their last bits (summed in another
 * order) move R_n by ~1e-13: agreement to 1e-5, not 1e-12; the value, a
 * sum of R_n², keeps that too. */
static void test_near_zero_set(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 12, 3);
    double x[100];
    fill_normal(&rng, x, 100);
    for (size_t i = 0; i < 100; i++)
        x[i] = (x[i] > 0 ? 0.7 : -0.7) + 1e-9 * x[i];
    static const char *const specs[] = {"bin", "bbin", "binexp", "fixed alpha=0.7"};
    for (size_t k = 0; k < 4; k++)
        compare(specs[k], x, 100, 1e-5);
}

/* Not finite: the solver reads CS_ENONFINITE as divergence. */
static void test_nonfinite(void **state)
{
    (void)state;
    cs_reg *r = reg_ok("bbin");
    double x[6] = {1, 2, NAN, 3, 4, 5}, v, g[6];
    cs_err err;
    assert_int_equal(cs_reg_eval_fast(r, x, 1, 6, &v, g, &err), CS_ENONFINITE);
    cs_reg_free(r);
    r = reg_ok("ter");
    double big[5] = {1e60, 1, 2, 3, 4};
    assert_int_equal(cs_reg_eval_fast(r, big, 1, 5, &v, g, &err), CS_ENONFINITE);
    assert_non_null(strstr(err.msg, "ter: value or gradient is not finite"));
    cs_reg_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_method),
        cmocka_unit_test(test_near_zero_set),
        cmocka_unit_test(test_nonfinite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
