/* fuzz_expr.c — libFuzzer harness over the expression parser and evaluator
 * (cs_expr.h, what `reg define` compiles). An input is the expression text
 * up to its first newline, then raw bytes read as the doubles to evaluate
 * at (8 each, up to 150: more than two 64-entry chunks; a fixed set when
 * there are none). The constants a = 0.5 and b = -2 are defined.
 *
 * Besides "no crash, no sanitizer report", it checks what cs_expr.h
 * promises:
 *   - a parse error names a column inside the text (or 0, a constant);
 *   - the vector path gives the same bits (any NaN for a NaN) for an entry
 *     whatever the length, offset or chunking of the call and its other
 *     entries, with or without derivatives, and in a clone (it found sin
 *     and cos 1 ULP off beside a NaN: tests/test_expr_lanes.c);
 *   - cs_expr_eval fails exactly when a value or derivative is NaN or Inf,
 *     and fills what cs_expr_eval_unchecked fills up to there;
 *   - a claimed degree k of homogeneity holds: f(2x) = 2^k f(x) (to 1e-9
 *     relative, at 0.5 <= |x| <= 2 where both are normal doubles);
 *   - a constant expression evaluates to its cs_expr_const_value. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_expr.h"

#define MAXN 150

static const double fixed[] = {-3.0, -1.5, -1.0, -0.5, -1e-3, 0.0, 1e-300, 0.25, 0.5,
                               1.0,  1.5,  2.0,  3.0,  7.25, 1e10, -1e-10, 0.75};

/* The same bits, or both NaN: a NaN's sign and payload are no value (SLEEF's
 * AVX-512 and AVX2 log of a negative number differ there). */
static int same_bits(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void fail(const char *what, const char *text, size_t i, double x)
{
    fprintf(stderr, "fuzz_expr: %s: '%s' at entry %zu (x = %.17g)\n", what, text, i, x);
    abort();
}

/* Normal and far from the ends of the range: a check of f(2x) = 2^k f(x)
 * that over/underflow cannot spoil. */
static int plain(double v) { return isfinite(v) && fabs(v) > 1e-250 && fabs(v) < 1e250; }

static void check_values(const cs_expr *e, const char *text, const double *x, size_t n)
{
    static double f[MAXN], df[MAXN], f1[1], d1[1], fu[MAXN], du[MAXN], f2[MAXN], x2[MAXN];
    cs_err err;
    int rc = cs_expr_eval(e, x, n, f, df, &err);
    int rcu = cs_expr_eval_unchecked(e, x, n, fu, du, &err);
    if (rcu != 0)
        fail("unchecked evaluation failed", text, 0, 0.0);
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++)
        if (!isfinite(fu[i]) || !isfinite(du[i]))
            bad = i;
    if ((rc != 0) != (bad < n))
        fail(rc ? "an error without a NaN or Inf" : "a NaN or Inf without an error", text, bad,
             bad < n ? x[bad] : 0.0);
    for (size_t i = 0; i < n && i < bad; i++)
        if (!same_bits(f[i], fu[i]) || !same_bits(df[i], du[i]))
            fail("checked and unchecked differ", text, i, x[i]);
    /* entry by entry (length 1), and from an offset: the same bits */
    for (size_t i = 0; i < n; i++) {
        cs_expr_eval_unchecked(e, x + i, 1, f1, d1, &err);
        if (!same_bits(f1[0], fu[i]) || !same_bits(d1[0], du[i]))
            fail("a value depends on the call's length", text, i, x[i]);
    }
    if (n > 3) {
        cs_expr_eval_unchecked(e, x + 3, n - 3, f2, NULL, &err);
        for (size_t i = 3; i < n; i++)
            if (!same_bits(f2[i - 3], fu[i]))
                fail("a value depends on the offset or on derivatives", text, i, x[i]);
    }
    /* a clone computes the same */
    cs_expr *c;
    if (cs_expr_clone(e, &c, &err))
        return;
    cs_expr_eval_unchecked(c, x, n, f2, NULL, &err);
    for (size_t i = 0; i < n; i++)
        if (!same_bits(f2[i], fu[i]))
            fail("a clone computes other bits", text, i, x[i]);
    cs_expr_free(c);
    if (!cs_expr_uses_x(e)) {
        double v = cs_expr_const_value(e);
        for (size_t i = 0; i < n; i++)
            if (!same_bits(fu[i], v))
                fail("a constant evaluates to another value", text, i, x[i]);
    }
    double k;
    if (!cs_expr_homogeneous(e, &k) || !(fabs(k) <= 64.0))
        return;
    for (size_t i = 0; i < n; i++)
        x2[i] = 2.0 * x[i];
    cs_expr_eval_unchecked(e, x2, n, f2, NULL, &err);
    for (size_t i = 0; i < n; i++) {
        double want = fu[i] * pow(2.0, k);
        /* x near 1: intermediate terms (x^30) neither overflow nor underflow
         * at x and 2x unless constants make them, which plain() mostly sees */
        if (fabs(x[i]) >= 0.5 && fabs(x[i]) <= 2.0 && plain(fu[i]) && plain(want) &&
            plain(f2[i]) && !(fabs(f2[i] - want) <= 1e-9 * fabs(want)))
            fail("a claimed degree of homogeneity does not hold", text, i, x[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 2 * CS_EXPR_MAX_LEN + 8 * MAXN)
        return 0;
    const uint8_t *nl = memchr(data, '\n', size);
    size_t tl = nl ? (size_t)(nl - data) : size;
    char *text = malloc(tl + 1);
    if (!text)
        return 0;
    memcpy(text, data, tl);
    text[tl] = '\0';
    static double x[MAXN];
    size_t n = 0;
    if (nl) {
        const uint8_t *p = nl + 1, *end = data + size;
        for (; end - p >= 8 && n < MAXN; p += 8)
            memcpy(&x[n++], p, 8);
    }
    if (n == 0) {
        n = sizeof fixed / sizeof fixed[0];
        memcpy(x, fixed, sizeof fixed);
    }
    static const cs_expr_const consts[] = {{"a", 0.5}, {"b", -2.0}};
    cs_expr *e;
    cs_err err;
    int col = -1;
    if (cs_expr_parse(&e, text, consts, 2, &col, &err)) {
        if (col < 0 || (size_t)col > tl + 1)
            fail("a parse error outside the text", text, 0, (double)col);
        free(text);
        return 0;
    }
    check_values(e, text, x, n);
    char why[256];
    cs_expr_why1(e, x[0], why, sizeof why);
    cs_poly p, d;
    if (cs_expr_poly(e, &p))
        cs_poly_deriv(&p, &d);
    cs_expr_free(e);
    free(text);
    return 0;
}
