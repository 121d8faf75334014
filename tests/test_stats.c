/* test_stats.c — the Wilson score interval (cs_stats.h) against values
 * computed by hand: p = k/n, c = (p + z²/2n)/(1 + z²/n),
 * h = z·sqrt(p(1−p)/n + z²/4n²)/(1 + z²/n), z = 1.96. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "cs_stats.h"

static void check(long k, long n, double want_lo, double want_hi)
{
    double lo = -1, hi = -1;
    assert_int_equal(cs_wilson95(k, n, &lo, &hi), 0);
    if (fabs(lo - want_lo) > 5e-5 || fabs(hi - want_hi) > 5e-5)
        fail_msg("%ld of %ld: [%.6f, %.6f], want [%.4f, %.4f]", k, n, lo, hi, want_lo, want_hi);
    assert_true(lo >= 0 && lo <= (double)k / (double)n && hi >= (double)k / (double)n && hi <= 1);
}

static void test_hand_values(void **state)
{
    (void)state;
    check(8, 10, 0.4902, 0.9433);
    check(0, 10, 0.0, 0.2775);
    check(10, 10, 0.7225, 1.0);
    check(5, 10, 0.2366, 0.7634);     /* symmetric about 1/2 */
    check(1, 1, 0.20654, 1.0);
    check(0, 1, 0.0, 0.79346);
    check(50, 100, 0.40383, 0.59617);
    check(95, 100, 0.88825, 0.97846);
    check(1, 300, 0.000589, 0.018637);
}

/* The ends are exact (no -1e-17 from rounding), the interval shrinks as
 * trials arrive at the same rate, and k and n − k mirror. */
static void test_properties(void **state)
{
    (void)state;
    double lo, hi, lo2, hi2;
    cs_wilson95(0, 1000, &lo, &hi);
    assert_true(lo == 0.0);
    cs_wilson95(1000, 1000, &lo, &hi);
    assert_true(hi == 1.0);
    double prev = 2;
    for (long n = 10; n <= 10000; n *= 10) {
        cs_wilson95(8 * n / 10, n, &lo, &hi);
        assert_true(hi - lo < prev);
        prev = hi - lo;
    }
    assert_true(prev < 0.02);
    cs_wilson95(3, 17, &lo, &hi);
    cs_wilson95(14, 17, &lo2, &hi2);
    assert_true(fabs(lo - (1 - hi2)) < 1e-12 && fabs(hi - (1 - lo2)) < 1e-12);
    /* another z: 90% is narrower than 95% */
    assert_int_equal(cs_wilson(8, 10, 1.6449, &lo2, &hi2), 0);
    cs_wilson95(8, 10, &lo, &hi);
    assert_true(lo2 > lo && hi2 < hi);
}

/* No trials: nothing known, [0, 1], and -1; so are nonsense counts. */
static void test_no_trials(void **state)
{
    (void)state;
    double lo = 5, hi = 5;
    assert_int_equal(cs_wilson95(0, 0, &lo, &hi), -1);
    assert_true(lo == 0.0 && hi == 1.0);
    lo = hi = 5;
    assert_int_equal(cs_wilson95(3, 2, &lo, &hi), -1);
    assert_true(lo == 0.0 && hi == 1.0);
    assert_int_equal(cs_wilson95(-1, 2, &lo, &hi), -1);
    assert_int_equal(cs_wilson(1, 2, 0.0, &lo, &hi), -1);
    assert_int_equal(cs_wilson(1, 2, NAN, &lo, &hi), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_values),
        cmocka_unit_test(test_properties),
        cmocka_unit_test(test_no_trials),
    };
    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
