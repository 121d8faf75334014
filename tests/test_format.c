/* test_format.c — cs_format_double, now libdouble-conversion's shortest
 * digits laid out as printf's %g lays them out, writes what the former
 * search (the first of %.1g .. %.17g that reads back) wrote: the same bytes
 * for 10 million doubles of every kind (random bit patterns, decimal-like
 * values and their neighbours, integers, subnormals, dyadic fractions where
 * the two nearest shortest strings tie, every power of two), so no output
 * of csreg changed. The former function is kept here as the reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_parse.h"
#include "format_util.h"
#include "sanitized.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t next_u64(void)   /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double from_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

static long mismatches;

static void check(double v)
{
    char want[40], got[40];
    format_former(want, sizeof want, v);
    cs_format_double(got, sizeof got, v);
    if (strcmp(want, got) != 0) {
        if (mismatches < 10) {
            uint64_t b;
            memcpy(&b, &v, sizeof b);
            print_error("0x%016llx: former '%s', now '%s'\n", (unsigned long long)b, want, got);
        }
        mismatches++;
    }
}

/* A decimal-like value: up to 17 random digits times a power of ten. */
static double decimal_like(void)
{
    int digits = 1 + (int)(next_u64() % 17);
    uint64_t m = next_u64() % 100000000000000000ULL;
    for (int i = digits; i < 17; i++)
        m /= 10;
    int e = (int)(next_u64() % 660) - 340;
    char text[48];
    snprintf(text, sizeof text, "%s%llue%d", next_u64() % 2 ? "-" : "", (unsigned long long)m, e);
    return strtod(text, NULL);
}

/* A dyadic fraction odd / 2^k with few bits: exactly halfway between two
 * shortest candidates more often than not (1 + 2^-17 = 1.00000762939453125
 * prints as ...312, printf's even digit). */
static double dyadic(void)
{
    int bits = 1 + (int)(next_u64() % 53);
    uint64_t odd = (next_u64() >> (64 - bits)) | 1;
    int k = (int)(next_u64() % 200) - 60;
    return ldexp((double)odd, -k) * (next_u64() % 2 ? -1.0 : 1.0);
}

static double integer_like(void)
{
    int bits = 1 + (int)(next_u64() % 64);
    uint64_t u = next_u64() >> (64 - bits);
    double v = (double)u;
    if (next_u64() % 4 == 0)
        v += 0.5;
    return next_u64() % 2 ? -v : v;
}

static double one_of_each_kind(long i)
{
    switch (i % 8) {
    case 0:
    case 1:
        return from_bits(next_u64());                              /* anything, NaNs too */
    case 2:
        return decimal_like();
    case 3:                                                        /* a decimal's neighbours */
        return nextafter(decimal_like(), next_u64() % 2 ? INFINITY : -INFINITY);
    case 4:
        return integer_like();
    case 5:                                                        /* subnormals */
        return from_bits((next_u64() & 0x800FFFFFFFFFFFFFULL));
    case 6:
        return dyadic();
    default:                                                       /* landscape-like values */
        return exp((double)(next_u64() % 2000000) / 1e5 - 10.0) *
               (next_u64() % 3 == 0 ? -1.0 : 1.0);
    }
}

static void test_random_doubles_match(void **state)
{
    (void)state;
    /* 10M doubles in make test; 1M under ASan and in make check (CSREG_TEST_UNIT) */
    long n = SANITIZED || getenv("CSREG_TEST_UNIT") ? 1000000 : 10000000;
    mismatches = 0;
    for (long i = 0; i < n; i++)
        check(one_of_each_kind(i));
    print_message("%ld doubles compared, %ld mismatches\n", n, mismatches);
    assert_int_equal(mismatches, 0);
}

/* Every double whose significand is a power of two (their rounding
 * interval is lopsided), both signs, and the edges of the layout. */
static void test_edges_match(void **state)
{
    (void)state;
    mismatches = 0;
    long n = 0;
    for (uint64_t e = 0; e < 2048; e++)
        for (int s = 0; s < 2; s++, n++)
            check(from_bits(((uint64_t)s << 63) | (e << 52)));
    const double edges[] = {
        0.0, -0.0, NAN, -NAN, INFINITY, -INFINITY, DBL_MIN, DBL_MAX, -DBL_MAX, DBL_TRUE_MIN,
        1e15, 1e15 - 1, 1e15 + 2, 999999999999999.9, 1e16, 1e17, 1e21, 1e22, 1e23,
        0.0001, 0.00001, 0.000123, 0.0000999, 9.999999999999999e-5, 1e-5, 1e-4,
        0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 5e-324, 2.2250738585072009e-308, 123456.789,
        1.0 + 1.0 / 131072, 562949953421312.25, 9007199254740993.0, 4.35, 0.15, 1.5, 2.5,
        12345678901234567890.0, 1234567890123456.7, 0.000123456789012345678};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++, n++) {
        check(edges[i]);
        check(-edges[i]);
        check(nextafter(edges[i], INFINITY));
        check(nextafter(edges[i], -INFINITY));
    }
    /* every power of ten and its neighbours */
    for (int e = -324; e <= 308; e++, n++) {
        char t[16];
        snprintf(t, sizeof t, "1e%d", e);
        double v = strtod(t, NULL);
        check(v);
        check(nextafter(v, INFINITY));
        check(nextafter(v, 0.0));
    }
    print_message("%ld edge doubles compared, %ld mismatches\n", n, mismatches);
    assert_int_equal(mismatches, 0);
}

/* The spellings, one by one. */
static void test_spellings(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {0.0, "0"}, {-0.0, "0"}, {120.0, "120"}, {-7.0, "-7"}, {0.1, "0.1"},
        {1e15, "1e+15"}, {999999999999999.0, "999999999999999"}, {1e-5, "1e-05"},
        {0.0001, "0.0001"}, {1.0 / 3, "0.3333333333333333"}, {5e-324, "5e-324"},
        {DBL_MAX, "1.7976931348623157e+308"}, {1e100, "1e+100"}, {-2.5e-7, "-2.5e-07"},
        {1.0 + 1.0 / 131072, "1.0000076293945312"}, {562949953421312.25, "562949953421312.2"},
        {1234567890123456.7, "1234567890123456.8"}, {INFINITY, "inf"}, {-INFINITY, "-inf"},
        {NAN, "nan"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char got[40];
        cs_format_double(got, sizeof got, cases[i].v);
        assert_string_equal(got, cases[i].text);
    }
    /* a short buffer is cut as snprintf cuts */
    char small[6];
    cs_format_double(small, sizeof small, 0.123456);
    assert_string_equal(small, "0.123");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spellings),
        cmocka_unit_test(test_edges_match),
        cmocka_unit_test(test_random_doubles_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
