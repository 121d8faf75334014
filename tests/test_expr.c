/* test_expr.c — the expression engine of user-defined g and h (cs_expr.h):
 * hand-computed values and exact polynomial derivatives, every function and
 * operator against libm and central finite differences (vector path at odd
 * lengths and the scalar path), determinism over lengths and offsets,
 * constants and folding, homogeneity degrees, every parse error with its
 * column, the NaN/Inf reports, and expressions as polynomials (the
 * coefficients by hand, their values against the interpreter's). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_expr.h"

/* ------------------------------------------------------------------ helpers */

static const cs_expr_const K[] = {{"a", 0.5}, {"b", -1.0}, {"beta2", 3.0}};
#define NK (sizeof K / sizeof K[0])

static cs_expr *parse_ok(const char *text)
{
    cs_expr *e = NULL;
    cs_err err = {0};
    int col = -1;
    int rc = cs_expr_parse(&e, text, K, NK, &col, &err);
    if (rc)
        fail_msg("cs_expr_parse(%s): %s", text, err.msg);
    assert_non_null(e);
    assert_string_equal(cs_expr_text(e), text);
    return e;
}

static int close_rel(double a, double b, double rel, double abs_tol)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b))
        return a == b;
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + abs_tol;
}

/* ------------------------------------------------------------------ hand values */

static void test_hand_values(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double x, f, df;
    } cases[] = {
        {"x^2", 3, 9, 6},
        {"x^3", -2, -8, 12},
        {"x^3", 2, 8, 12},
        {"3*x^3", 2, 24, 36},
        {"x^4", 3, 81, 108},
        {"x^5", -2, -32, 80},
        {"x^64", 2, 18446744073709551616.0, 64 * 9223372036854775808.0},
        {"x^-1", 4, 0.25, -0.0625},
        {"x^-2", 2, 0.25, -0.25},
        {"x^-64", 2, 0x1p-64, -64 * 0x1p-65},
        {"1/x", 4, 0.25, -0.0625},
        {"-x^2", 3, -9, -6},
        {"-x ^ 2", -3, -9, 6},
        {"(x+1)^2", 2, 9, 6},
        {"(1 - x)^3", 3, -8, -12},
        {"x*abs(x)", -3, -9, 6},
        {"abs(x)", -2, 2, -1},
        {"abs(x)", 0, 0, 0},
        {"sign(x)", -2, -1, 0},
        {"sign(x)", 0, 0, 0},
        {"sign(x)", 7, 1, 0},
        {"max(x, 1-x)", 0.25, 0.75, -1},
        {"max(x, 1-x)", 0.75, 0.75, 1},
        {"min(x, 2)", 3, 2, 0},
        {"min(x, 2)", 1, 1, 1},
        {"x/(x+1)", 1, 0.5, 0.25},
        {"sqrt(x)", 4, 2, 0.25},
        {"sqrt(x^2)", -3, 3, -1},
        {"x - 1/2", 1, 0.5, 1},
        {"2*x - x^2", 1, 1, 0},
        {"x/4", 3, 0.75, 0.25},
        {"6/x", 2, 3, -1.5},
        {"2 - x", 5, -3, -1},
        {"-(x - 3)", 5, -2, -1},
        {"+x", 5, 5, 1},
        {"--x", 5, 5, 1},
        {"x*x*x", 3, 27, 27},
        {"(x^2 - 1)*(x + 2)", 3, 40, 38},
        {"x^2^2", 3, 81, 108},          /* x^(2^2) */
        {"a*x^2 + b*x + beta2", 2, 3, 1}, /* 0.5·4 − 2 + 3, 2·0.5·2 − 1 */
        {"exp(0*x)", 5, 1, 0},
        {"log(x)", 1, 0, 1},
        {"exp(x)", 0, 1, 1},
        {"sin(x)", 0, 0, 1},
        {"cos(x)", 0, 1, 0},
        {"tan(x)", 0, 0, 1},
        {"tanh(x)", 0, 0, 1},
        {"e^x", 0, 1, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cs_expr *e = parse_ok(cases[c].text);
        double df = NAN, f = cs_expr_eval1(e, cases[c].x, &df);
        if (f != cases[c].f || df != cases[c].df)
            fail_msg("eval1 %s at %g: %.17g, %.17g; want %.17g, %.17g", cases[c].text, cases[c].x,
                     f, df, cases[c].f, cases[c].df);
        /* the vector path at every position of a chunk and across chunks */
        double x[70], fv[70], dv[70];
        for (size_t i = 0; i < 70; i++)
            x[i] = cases[c].x;
        cs_err err = {0};
        assert_int_equal(cs_expr_eval(e, x, 70, fv, dv, &err), CS_OK);
        for (size_t i = 0; i < 70; i++)
            if (fv[i] != cases[c].f || dv[i] != cases[c].df)
                fail_msg("eval %s at %g [%zu]: %.17g, %.17g; want %.17g, %.17g", cases[c].text,
                         cases[c].x, i, fv[i], dv[i], cases[c].f, cases[c].df);
        cs_expr_free(e);
    }
}

/* ------------------------------------------------------------------ functions vs libm */

static double r_neg(double x) { return -x; }
static double r_addx2(double x) { return x + x * x; }
static double r_subx2(double x) { return x - x * x; }
static double r_mulsin(double x) { return x * sin(x); }
static double r_div(double x) { return x / (1 + x * x); }
static double r_addc(double x) { return 2 + x; }
static double r_subc(double x) { return x - 2; }
static double r_rsubc(double x) { return 2 - x; }
static double r_mulc(double x) { return 2.5 * x; }
static double r_divc(double x) { return x / 3; }
static double r_rdivc(double x) { return 2 / x; }
static double r_x2(double x) { return x * x; }
static double r_x3(double x) { return x * x * x; }
static double r_x7(double x) { return pow(x, 7); }
static double r_xm3(double x) { return pow(x, -3); }
static double r_x25(double x) { return pow(x, 2.5); }
static double r_x13(double x) { return pow(x, 1.0 / 3); }
static double r_x100(double x) { return pow(x, 100); }
static double r_2x(double x) { return pow(2, x); }
static double r_ex(double x) { return exp(x); }
static double r_xx(double x) { return pow(x, x); }
static double r_xsin(double x) { return pow(x, sin(x)); }
static double r_sign(double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
static double r_min(double x) { return fmin(x, x * x); }
static double r_max(double x) { return fmax(x, 0.5); }
static double r_gauss(double x) { return exp(-x * x); }
static double r_sin2x(double x) { return sin(2 * x); }
static double r_logabs(double x) { return log(fabs(x)); }
static double r_mix(double x) { return sqrt(1 + x * x) * tanh(x) - cos(x) / (2 + sin(x)); }

enum { ANY, POS };
static const struct fcase {
    const char *text;
    double (*ref)(double);
    int domain;
    double tol;   /* relative, against libm and between the two paths; 0: 1e-15 */
} fcases[] = {
    {"exp(x)", exp, ANY, 0},     {"log(x)", log, POS, 0},        {"sqrt(x)", sqrt, POS, 0},
    {"abs(x)", fabs, ANY, 0},    {"sin(x)", sin, ANY, 0},        {"cos(x)", cos, ANY, 0},
    {"tan(x)", tan, ANY, 0},     {"tanh(x)", tanh, ANY, 0},      {"sign(x)", r_sign, ANY, 0},
    {"min(x, x^2)", r_min, ANY, 0}, {"max(x, 0.5)", r_max, ANY, 0}, {"-x", r_neg, ANY, 0},
    {"x + x^2", r_addx2, ANY, 0}, {"x - x^2", r_subx2, ANY, 0},  {"x*sin(x)", r_mulsin, ANY, 0},
    {"x/(1 + x^2)", r_div, ANY, 0}, {"2 + x", r_addc, ANY, 0},   {"x - 2", r_subc, ANY, 0},
    {"2 - x", r_rsubc, ANY, 0},  {"2.5*x", r_mulc, ANY, 0},      {"x/3", r_divc, ANY, 0},
    {"2/x", r_rdivc, ANY, 0},    {"x^2", r_x2, ANY, 0},          {"x^3", r_x3, ANY, 0},
    {"x^7", r_x7, ANY, 0},       {"x^-3", r_xm3, ANY, 0},        {"x^2.5", r_x25, POS, 0},
    {"x^(1/3)", r_x13, POS, 0},  {"x^100", r_x100, POS, 0},      {"2^x", r_2x, ANY, 0},
    {"e^x", r_ex, ANY, 0},       {"x^x", r_xx, POS, 0},          {"x^sin(x)", r_xsin, POS, 1e-13},
    {"exp(-x^2)", r_gauss, ANY, 0}, {"sin(2*x)", r_sin2x, ANY, 0},
    {"log(abs(x))", r_logabs, ANY, 0},
    {"sqrt(1 + x^2)*tanh(x) - cos(x)/(2 + sin(x))", r_mix, ANY, 1e-13},
};
#define NFC (sizeof fcases / sizeof fcases[0])

/* Points away from 0, kinks, ties and poles; varied a little per round. */
static double point(int domain, size_t i)
{
    static const double any[] = {-1.3, -0.7, -0.2, 0.3, 0.9, 1.2, 1.45};
    static const double pos[] = {0.2, 0.55, 0.9, 1.3, 2.1, 3.7, 7.5};
    double p = domain == POS ? pos[i % 7] : any[i % 7];
    return p * (1.0 + 0.013 * (double)((i / 7) % 5));
}

static double fd(double (*f)(double), double x)
{
    double h = 1e-6 * fmax(1.0, fabs(x));
    return (f(x + h) - f(x - h)) / (2 * h);
}

static void test_functions(void **state)
{
    (void)state;
    static const size_t lens[] = {1, 3, 7, 64, 65, 130};
    double x[130], f[130], df[130], f2[130];
    for (size_t c = 0; c < NFC; c++) {
        const struct fcase *fc = &fcases[c];
        double tol = fc->tol > 0 ? fc->tol : 1e-15;
        cs_expr *e = parse_ok(fc->text);
        assert_true(cs_expr_uses_x(e));
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
            size_t n = lens[l];
            for (size_t i = 0; i < n; i++)
                x[i] = point(fc->domain, i);
            cs_err err = {0};
            if (cs_expr_eval(e, x, n, f, df, &err))
                fail_msg("%s n=%zu: %s", fc->text, n, err.msg);
            for (size_t i = 0; i < n; i++) {
                double r = fc->ref(x[i]), d = fd(fc->ref, x[i]);
                if (!close_rel(f[i], r, tol, 1e-300))
                    fail_msg("%s at %.17g: %.17g, libm %.17g", fc->text, x[i], f[i], r);
                if (!close_rel(df[i], d, 1e-6, 1e-8))
                    fail_msg("%s' at %.17g: %.17g, finite differences %.17g", fc->text, x[i],
                             df[i], d);
                double d1, f1 = cs_expr_eval1(e, x[i], &d1);
                if (!close_rel(f1, f[i], tol, 1e-300) || !close_rel(d1, df[i], tol, 1e-300))
                    fail_msg("%s at %.17g: eval1 %.17g, %.17g; eval %.17g, %.17g", fc->text, x[i],
                             f1, d1, f[i], df[i]);
                assert_true(cs_expr_eval1(e, x[i], NULL) == f1);
            }
            /* without derivatives: the same values, bit for bit */
            assert_int_equal(cs_expr_eval(e, x, n, f2, NULL, &err), CS_OK);
            assert_memory_equal(f, f2, n * sizeof *f);
        }
        cs_expr_free(e);
    }
}

/* ------------------------------------------------------------------ determinism */

static void test_determinism(void **state)
{
    (void)state;
    const char *texts[] = {
        "sqrt(1 + x^2)*tanh(x) - cos(x)/(2 + sin(x))",
        "x^2.5*exp(-x) + log(1 + x^2) - tan(x/3)^2",
        "max(abs(x), a) * min(x^3, 2^x) + sign(x)",
    };
    enum { N = 300 };
    double x[N], f[N], df[N], g[N], dg[N];
    uint64_t s = 12345;
    for (size_t i = 0; i < N; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        x[i] = ((double)(s >> 11) * 0x1p-53 - 0.5) * 6.0;
        if (i % 17 == 0)
            x[i] = fabs(x[i]) + 0.1;
    }
    /* x^2.5 and log need x > 0 in the second text: use |x| there */
    double xp[N];
    for (size_t i = 0; i < N; i++)
        xp[i] = fabs(x[i]) + 1e-3;
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        cs_expr *e = parse_ok(texts[t]);
        const double *xs = t == 1 ? xp : x;
        cs_err err = {0};
        assert_int_equal(cs_expr_eval(e, xs, N, f, df, &err), CS_OK);
        assert_int_equal(cs_expr_eval(e, xs, N, g, dg, &err), CS_OK);
        assert_memory_equal(f, g, sizeof f);
        assert_memory_equal(df, dg, sizeof df);
        /* any length and offset: the same bits for the same entries */
        static const size_t offs[] = {0, 1, 3, 5, 63, 64, 65, 127, 200};
        static const size_t lens[] = {1, 2, 3, 5, 7, 33, 64, 65, 99};
        for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++)
            for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
                size_t off = offs[o], n = lens[l];
                if (off + n > N)
                    continue;
                assert_int_equal(cs_expr_eval(e, xs + off, n, g, dg, &err), CS_OK);
                assert_memory_equal(f + off, g, n * sizeof *g);
                assert_memory_equal(df + off, dg, n * sizeof *dg);
            }
        /* the scalar path agrees up to the transcendentals' last bits */
        for (size_t i = 0; i < N; i++) {
            double d1, f1 = cs_expr_eval1(e, xs[i], &d1);
            if (!close_rel(f1, f[i], 1e-13, 1e-12) || !close_rel(d1, df[i], 1e-13, 1e-12))
                fail_msg("%s at %.17g: eval1 %.17g, %.17g; eval %.17g, %.17g", texts[t], xs[i], f1,
                         d1, f[i], df[i]);
        }
        /* in place: f and df may be x */
        double y[N], dy[N];
        memcpy(y, xs, sizeof y);
        assert_int_equal(cs_expr_eval(e, y, N, y, dy, &err), CS_OK);
        assert_memory_equal(y, f, sizeof y);
        memcpy(y, xs, sizeof y);
        assert_int_equal(cs_expr_eval(e, y, N, g, y, &err), CS_OK);
        assert_memory_equal(y, df, sizeof y);
        /* a clone evaluates the same */
        cs_expr *c = NULL;
        assert_int_equal(cs_expr_clone(e, &c, &err), CS_OK);
        assert_string_equal(cs_expr_text(c), texts[t]);
        assert_int_equal(cs_expr_eval(c, xs, N, g, dg, &err), CS_OK);
        assert_memory_equal(f, g, sizeof f);
        assert_memory_equal(df, dg, sizeof df);
        cs_expr_free(c);
        cs_expr_free(e);
    }
}

static void test_misc_api(void **state)
{
    (void)state;
    cs_expr *e = parse_ok("x^2");
    cs_err err = {0};
    double x = 1, f = 0;
    assert_int_equal(cs_expr_eval(e, NULL, 0, NULL, NULL, &err), CS_OK);
    assert_int_equal(cs_expr_eval(e, NULL, 1, &f, NULL, &err), CS_EINVAL);
    assert_int_equal(cs_expr_eval(e, &x, 1, NULL, NULL, &err), CS_EINVAL);
    assert_int_equal(cs_expr_eval(e, &x, 1, &f, NULL, NULL), CS_OK);
    assert_true(f == 1.0);
    assert_true(isnan(cs_expr_const_value(e)));
    cs_expr_free(e);
    cs_expr_free(NULL);
    /* no constants at all; col may be NULL */
    assert_int_equal(cs_expr_parse(&e, "2*x + 1", NULL, 0, NULL, NULL), CS_OK);
    assert_true(cs_expr_eval1(e, 3, NULL) == 7);
    cs_expr_free(e);
    assert_int_equal(cs_expr_parse(&e, "a*x", NULL, 0, NULL, &err), CS_EINVAL);
    assert_null(e);
    assert_int_equal(cs_expr_parse(&e, NULL, NULL, 0, NULL, &err), CS_EINVAL);
    /* whitespace of every kind */
    e = parse_ok(" \t2 *\n x ^ 2\r ");
    assert_true(cs_expr_eval1(e, 3, NULL) == 18);
    cs_expr_free(e);
}

/* ------------------------------------------------------------------ constants */

static void test_constants(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double v;
    } consts[] = {
        {"pi", M_PI},         {"e", M_E},         {"2*pi", 2 * M_PI},  {"a", 0.5},
        {"a^2 + b", -0.75},   {"beta2*(1 + a)", 4.5}, {"1e-3", 1e-3}, {".5", 0.5},
        {"2.", 2.0},          {"2.5E+2", 250.0},  {"1", 1.0},          {"-2^2", -4.0},
        {"2^-1", 0.5},        {"x^0", 1.0},       {"(x - 1)^0", 1.0},  {"sqrt(4)", 2.0},
        {"max(2, 3) - min(2, 3)", 1.0}, {"abs(-3) * sign(-2)", -3.0}, {"log(1)", 0.0},
        {"exp(0) + cos(0) + tanh(0) + sin(0) + tan(0)", 2.0},
    };
    for (size_t c = 0; c < sizeof consts / sizeof consts[0]; c++) {
        cs_expr *e = parse_ok(consts[c].text);
        assert_false(cs_expr_uses_x(e));
        if (cs_expr_const_value(e) != consts[c].v)
            fail_msg("%s = %.17g, want %.17g", consts[c].text, cs_expr_const_value(e),
                     consts[c].v);
        double k = -1;
        assert_true(cs_expr_homogeneous(e, &k));
        assert_true(k == 0.0);
        double x[5] = {-1, 0, 1, NAN, INFINITY}, f[5], df[5] = {9, 9, 9, 9, 9}, d1 = 9;
        cs_err err = {0};
        /* a constant ignores x entirely (h=1: the kernel skips h') */
        assert_int_equal(cs_expr_eval(e, x, 5, f, df, &err), CS_OK);
        for (size_t i = 0; i < 5; i++)
            assert_true(f[i] == consts[c].v && df[i] == 0.0);
        assert_true(cs_expr_eval1(e, 7.0, &d1) == consts[c].v && d1 == 0.0);
        cs_expr_free(e);
    }
    /* folding: 2*pi*x is one multiplication by the folded 2π */
    cs_expr *e = parse_ok("2*pi*x"), *e2 = parse_ok("x*6.283185307179586");
    double x[3] = {0.1, 1.7, -3.3}, f[3], g[3], df[3];
    cs_err err = {0};
    assert_int_equal(cs_expr_eval(e, x, 3, f, df, &err), CS_OK);
    assert_int_equal(cs_expr_eval(e2, x, 3, g, NULL, &err), CS_OK);
    assert_memory_equal(f, g, sizeof f);
    for (size_t i = 0; i < 3; i++)
        assert_true(df[i] == 2 * M_PI);
    cs_expr_free(e);
    cs_expr_free(e2);
    /* e^x is exp(x) exactly; a user constant named like a prefix of others */
    e = parse_ok("e^x");
    e2 = parse_ok("exp(x)");
    assert_int_equal(cs_expr_eval(e, x, 3, f, NULL, &err), CS_OK);
    assert_int_equal(cs_expr_eval(e2, x, 3, g, NULL, &err), CS_OK);
    assert_memory_equal(f, g, sizeof f);
    cs_expr_free(e);
    cs_expr_free(e2);
    e = parse_ok("beta2*x + a");
    assert_true(cs_expr_eval1(e, 2, NULL) == 6.5);
    cs_expr_free(e);

    /* the constants themselves are checked */
    static const struct {
        cs_expr_const c;
        const char *msg;
    } bad[] = {
        {{"x", 1}, "reserved"},   {{"pi", 1}, "reserved"},  {{"e", 1}, "reserved"},
        {{"exp", 1}, "reserved"}, {{"max", 1}, "reserved"}, {{"1a", 1}, "not a name"},
        {{"a-b", 1}, "not a name"}, {{"", 1}, "not a name"}, {{"c", NAN}, "not finite"},
        {{"c", INFINITY}, "not finite"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int col = -1;
        cs_expr *out = (cs_expr *)1;
        assert_int_equal(cs_expr_parse(&out, "x", &bad[i].c, 1, &col, &err), CS_EINVAL);
        assert_null(out);
        assert_int_equal(col, 0);
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("constant '%s': \"%s\" lacks \"%s\"", bad[i].c.name, err.msg, bad[i].msg);
    }
    cs_expr_const twice[] = {{"c", 1}, {"c", 2}};
    assert_int_equal(cs_expr_parse(&e, "x", twice, 2, NULL, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "twice"));
}

/* ------------------------------------------------------------------ homogeneity */

static void test_homogeneity(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double k;
    } hom[] = {
        {"x^2", 2},          {"1", 0},              {"x*abs(x)", 2},     {"sqrt(x^2)", 1},
        {"3*x^3", 3},        {"x", 1},              {"-x", 1},           {"sqrt(x)", 0.5},
        {"abs(x)^1.5", 1.5}, {"x/abs(x)", 0},       {"sign(x)", 0},      {"x^2 + 3*x^2", 2},
        {"x^2 - a*x*x", 2},  {"max(x, 2*x)", 1},    {"min(abs(x), -x)", 1}, {"x^-1", -1},
        {"1/x^2", -2},       {"exp(x/abs(x))", 0},  {"x + 0", 1},        {"0*x + x^3", 3},
        {"(2*x)^(1/3)", 1.0 / 3}, {"x^4/x^2", 2},   {"2^sign(x)", 0},    {"cos(sign(x))*x", 1},
        {"e", 0},
    };
    for (size_t c = 0; c < sizeof hom / sizeof hom[0]; c++) {
        cs_expr *e = parse_ok(hom[c].text);
        double k = NAN;
        if (!cs_expr_homogeneous(e, &k) || k != hom[c].k)
            fail_msg("%s: homogeneous %d of degree %g, want degree %g", hom[c].text,
                     cs_expr_homogeneous(e, NULL), k, hom[c].k);
        /* and numerically: f(t x) = t^k f(x) */
        for (double t = 0.5; t < 4; t *= 2.5) {
            double xv = 1.37, f = cs_expr_eval1(e, xv, NULL), ft = cs_expr_eval1(e, t * xv, NULL);
            assert_true(close_rel(ft, pow(t, hom[c].k) * f, 1e-13, 1e-300));
        }
        cs_expr_free(e);
    }
    static const char *nothom[] = {"exp(x)", "x + 1", "sin(x)", "x^2 + x", "log(x)", "2^x",
                                   "x^x",    "max(x, 1)", "tanh(x)", "cos(x)*x", "abs(x) - 1",
                                   "sqrt(x + 1)"};
    for (size_t c = 0; c < sizeof nothom / sizeof nothom[0]; c++) {
        cs_expr *e = parse_ok(nothom[c]);
        double k = 123;
        if (cs_expr_homogeneous(e, &k))
            fail_msg("%s: homogeneous of degree %g", nothom[c], k);
        assert_true(k == 123);
        cs_expr_free(e);
    }
}

/* ------------------------------------------------------------------ parse errors */

static void expect_error(const char *text, int col, const char *msg)
{
    cs_expr *e = (cs_expr *)1;
    cs_err err = {0};
    int got = -1;
    int rc = cs_expr_parse(&e, text, K, NK, &got, &err);
    if (rc != CS_EINVAL)
        fail_msg("\"%.40s\": rc %d, want CS_EINVAL", text, rc);
    assert_null(e);
    if (got != col)
        fail_msg("\"%.40s\": column %d, want %d (%s)", text, got, col, err.msg);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "column %d: ", col);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, msg))
        fail_msg("\"%.40s\": \"%s\", want \"%s...%s...\"", text, err.msg, prefix, msg);
    /* col may be NULL */
    assert_int_equal(cs_expr_parse(&e, text, K, NK, NULL, NULL), CS_EINVAL);
}

static void test_parse_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int col;
        const char *msg;
    } cases[] = {
        {"x+", 3, "unexpected end of expression"},
        {"(x", 3, "')' expected"},
        {"(x y)", 4, "')' expected, not 'y'"},
        {"x)", 2, "unexpected ')'"},
        {"2**x", 3, "unexpected '*'"},
        {"", 1, "empty expression"},
        {"   ", 1, "empty expression"},
        {"x x", 3, "unexpected 'x'"},
        {"2x", 2, "unexpected 'x'"},
        {"x # 1", 3, "unexpected '#'"},
        {"x \x01", 3, "byte 0x01"},
        {"foo(x)", 1,
         "unknown function 'foo' (functions: exp log sqrt abs sin cos tan tanh sign min max)"},
        {"2 * foo(x)", 5, "unknown function 'foo'"},
        {"y", 1, "unknown name 'y' (names: x, pi, e, a, b, beta2)"},
        {"x + beta", 5, "unknown name 'beta'"},
        {"X", 1, "unknown name 'X'"},
        {"max(x)", 1, "max takes 2 arguments (got 1)"},
        {"1 + min(x, 1, 2)", 5, "min takes 2 arguments (got 3)"},
        {"exp(x, 1)", 1, "exp takes 1 argument (got 2)"},
        {"sqrt()", 1, "sqrt takes 1 argument (got 0)"},
        {"max(x 1)", 7, "',' or ')' expected"},
        {"exp", 1, "needs its argument in parentheses"},
        {"x*max", 3, "needs its arguments in parentheses"},
        {"x(2)", 1, "'x' is not a function"},
        {"a (x)", 1, "'a' is not a function"},
        {"x^", 3, "unexpected end of expression"},
        {"2 ^ * x", 5, "unexpected '*'"},
        {"x + .", 5, "malformed number"},
        {"1e", 1, "malformed number '1e'"},
        {"1e+x", 1, "malformed number"},
        {"1e999*x", 1, "out of range"},
        {"1/0", 1, "1/0 is Inf"},
        {"x + log(-1)", 5, "log(-1) is NaN"},
        {"x*(2 - 2)^-1", 3, "(2 - 2)^-1 is Inf"},
        {"(", 2, "unexpected end of expression"},
        {"()", 2, "unexpected ')'"},
        {"max(x,)", 7, "unexpected ')'"},
        {",", 1, "unexpected ','"},
        {"1.2.3", 4, "unexpected '.3'"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        expect_error(cases[c].text, cases[c].col, cases[c].msg);
}

/* open repeated k times, then mid, then close k times */
static void nest(char *buf, const char *open, int k, const char *mid, const char *close)
{
    size_t w = 0;
    for (int i = 0; i < k; i++)
        w += (size_t)sprintf(buf + w, "%s", open);
    w += (size_t)sprintf(buf + w, "%s", mid);
    for (int i = 0; i < k; i++)
        w += (size_t)sprintf(buf + w, "%s", close);
}

static void test_limits(void **state)
{
    (void)state;
    char buf[2 * CS_EXPR_MAX_LEN];
    /* nesting: 64 levels are fine, 65 are not, whatever nests */
    int d = CS_EXPR_MAX_DEPTH;
    nest(buf, "(", d, "x", ")");
    cs_expr *e = parse_ok(buf);
    assert_true(cs_expr_eval1(e, 2, NULL) == 2);
    cs_expr_free(e);
    nest(buf, "(", d + 1, "x", ")");
    expect_error(buf, d + 1, "nested too deeply");
    nest(buf, "sin(", d + 1, "x", ")");
    expect_error(buf, 4 * d + 1, "nested too deeply");
    memset(buf, '-', (size_t)d + 1);
    snprintf(buf + d + 1, sizeof buf - (size_t)d - 1, "x");
    expect_error(buf, d + 1, "nested too deeply");
    /* x^x^x^...: the powers nest */
    nest(buf, "x^", d + 1, "x", "");
    expect_error(buf, 2 * d + 2, "nested too deeply");
    /* deep but allowed: every kind mixed, evaluated against the scalar path */
    nest(buf, "x+x*max(x,-", d / 2, "x", ")");
    e = parse_ok(buf);
    double x[5] = {0.1, 0.2, 0.3, 0.4, 0.5}, f[5];
    cs_err err = {0};
    assert_int_equal(cs_expr_eval(e, x, 5, f, NULL, &err), CS_OK);
    for (int i = 0; i < 5; i++)
        assert_true(f[i] == cs_expr_eval1(e, x[i], NULL));
    cs_expr_free(e);

    /* length: 1000 characters are fine, 1001 are not */
    memset(buf, ' ', CS_EXPR_MAX_LEN);
    buf[0] = 'x';
    buf[CS_EXPR_MAX_LEN] = '\0';
    e = parse_ok(buf);
    cs_expr_free(e);
    size_t w = 0;
    while (w < CS_EXPR_MAX_LEN - 1)
        w += (size_t)snprintf(buf + w, sizeof buf - w, "x+");
    buf[w - 1] = '\0';   /* ends in x */
    e = parse_ok(buf);
    assert_true(cs_expr_eval1(e, 1.0, NULL) == (double)(w / 2));
    cs_expr_free(e);
    memset(buf, ' ', CS_EXPR_MAX_LEN + 1);
    buf[0] = 'x';
    buf[CS_EXPR_MAX_LEN + 1] = '\0';
    expect_error(buf, CS_EXPR_MAX_LEN + 1, "too long (1001 characters; the limit is 1000)");
}

/* ------------------------------------------------------------------ NaN / Inf */

static void expect_nonfinite(const char *text, const double *x, size_t n, int with_df,
                             const char *msg1, const char *msg2)
{
    cs_expr *e = parse_ok(text);
    double f[300], df[300];
    cs_err err = {0};
    int rc = cs_expr_eval(e, x, n, f, with_df ? df : NULL, &err);
    if (rc != CS_ENONFINITE)
        fail_msg("%s: rc %d, want CS_ENONFINITE", text, rc);
    if (!strstr(err.msg, msg1) || (msg2 && !strstr(err.msg, msg2)))
        fail_msg("%s: \"%s\" lacks \"%s\" or \"%s\"", text, err.msg, msg1, msg2 ? msg2 : "");
    cs_expr_free(e);
}

static void test_nonfinite(void **state)
{
    (void)state;
    double a[5] = {1, 2, 3, -0.5, 5};
    expect_nonfinite("log(x)", a, 5, 1, "log(x) is NaN at coordinate 4 (x = -0.5)", NULL);
    expect_nonfinite("log(x)", a, 5, 0, "log(x) is NaN at coordinate 4 (x = -0.5)", NULL);
    double b[3] = {1, 0, 2};
    expect_nonfinite("1/x", b, 3, 1, "1/x is Inf at coordinate 2 (x = 0)", NULL);
    expect_nonfinite("1/x", b, 3, 0, "1/x is Inf at coordinate 2 (x = 0)", NULL);
    double c[2] = {-1, 4};
    expect_nonfinite("sqrt(x)", c, 2, 1, "sqrt(x) is NaN at coordinate 1 (x = -1)", NULL);
    expect_nonfinite("2*sqrt(x) + 1", c, 2, 0, "sqrt(x) is NaN at coordinate 1", NULL);
    /* the term inside a larger expression, in a later chunk */
    double big[300];
    for (size_t i = 0; i < 300; i++)
        big[i] = 1.0 + (double)i;
    big[200] = -2.0;
    expect_nonfinite("x^2 + a*log(x)*exp(x/100)", big, 300, 1, "log(x) is NaN at coordinate 201",
                     "x = -2");
    expect_nonfinite("x^2 + a*log(x)*exp(x/100)", big + 137, 99, 1, "coordinate 64", "log(x)");
    /* derivative only: sqrt at 0 */
    double z[4] = {1, 2, 0, 3};
    expect_nonfinite("sqrt(x)", z, 4, 1, "the derivative of sqrt(x) is Inf at coordinate 3 (x = 0)",
                     NULL);
    {
        cs_expr *e = parse_ok("sqrt(x)");
        double f[4];
        cs_err err = {0};
        assert_int_equal(cs_expr_eval(e, z, 4, f, NULL, &err), CS_OK);   /* values are fine */
        assert_true(f[2] == 0.0);
        cs_expr_free(e);
    }
    /* where it came from: -1/x^2 is -Inf at 0 but exp absorbs it; log is the culprit */
    double zz[2] = {1, 0};
    expect_nonfinite("exp(-1/x^2) + log(x)", zz, 2, 0, "log(x) is Inf at coordinate 2", NULL);
    expect_nonfinite("x + tan(x)*0 + exp(x)", (double[]){1e300}, 1, 0, "exp(x) is Inf", NULL);
    expect_nonfinite("max(log(x), 0)", (double[]){1, -1}, 2, 0, "log(x) is NaN at coordinate 2",
                     NULL);
    expect_nonfinite("x^x", (double[]){2, 1, -0.5}, 3, 0, "x^x is NaN at coordinate 3", NULL);
    expect_nonfinite("x^2", (double[]){1e200}, 1, 0, "x^2 is Inf at coordinate 1 (x = 1e+200)",
                     NULL);
    /* the input itself */
    double n[3] = {1, 2, NAN};
    expect_nonfinite("x^2 + 1", n, 3, 1, "x is NaN at coordinate 3", NULL);
    double inf[2] = {INFINITY, 1};
    expect_nonfinite("sin(x)", inf, 2, 0, "x is Inf at coordinate 1", NULL);
    /* a long term is shortened in the message */
    char text[400];
    size_t w = (size_t)snprintf(text, sizeof text, "log(x");
    for (int i = 0; i < 40; i++)
        w += (size_t)snprintf(text + w, sizeof text - w, " + 0*x");
    snprintf(text + w, sizeof text - w, ")");
    expect_nonfinite(text, (double[]){-1}, 1, 0, "...", "is NaN at coordinate 1");
    /* eval1 returns NaN and Inf without complaint */
    cs_expr *e = parse_ok("log(x)");
    double d;
    assert_true(isnan(cs_expr_eval1(e, -1, &d)));
    assert_true(isinf(cs_expr_eval1(e, 0, &d)) && isinf(d));
    cs_expr_free(e);
}

/* ----------------------------------------------------------------- main */

/* ------------------------------------------------------------------ polynomials */

/* cs_expr_poly's coefficients, hand-expanded (want[k] of x^k, deg given). */
static void expect_poly(const char *text, int deg, const double *want)
{
    cs_expr *e = parse_ok(text);
    cs_poly p;
    memset(&p, 0x7f, sizeof p);
    if (!cs_expr_poly(e, &p))
        fail_msg("%s: not taken as a polynomial", text);
    if (p.deg != deg)
        fail_msg("%s: degree %d, want %d", text, p.deg, deg);
    for (int k = 0; k <= deg; k++)
        if (p.c[k] != want[k])
            fail_msg("%s: c[%d] = %.17g, want %.17g", text, k, p.c[k], want[k]);
    cs_expr_free(e);
}

static void expect_not_poly(const char *text)
{
    cs_expr *e = parse_ok(text);
    cs_poly p;
    if (cs_expr_poly(e, &p))
        fail_msg("%s: taken as a polynomial of degree %d", text, p.deg);
    cs_expr_free(e);
}

static void test_poly_coefficients(void **state)
{
    (void)state;
    expect_poly("x", 1, (double[]){0, 1});
    expect_poly("x^3", 3, (double[]){0, 0, 0, 1});
    expect_poly("x*(x^2 - 1)", 3, (double[]){0, -1, 0, 1});
    expect_poly("(x - 1)*(x + 1)", 2, (double[]){-1, 0, 1});
    expect_poly("2*x^2/4 - 3", 2, (double[]){-3, 0, 0.5});
    expect_poly("-(x - 2)^2", 2, (double[]){-4, 4, -1});
    expect_poly("3 - x", 1, (double[]){3, -1});
    expect_poly("a*x + b", 1, (double[]){-1, 0.5});   /* constants a = 0.5, b = -1 */
    expect_poly("5", 0, (double[]){5});
    expect_poly("x - x", 0, (double[]){0});
    expect_poly("x^2 - x^2 + x", 1, (double[]){0, 1});   /* the top cancels: degree 1 */
    expect_poly("(x^2 - 1)*(x^2 - 9)", 4, (double[]){9, 0, -10, 0, 1});
    expect_poly("x^0 + x^1", 1, (double[]){1, 1});
    /* degree 16 is the limit: binomial coefficients of (x^2 + 1)^8 */
    expect_poly("(x^2 + 1)^8", 16,
                (double[]){1, 0, 8, 0, 28, 0, 56, 0, 70, 0, 56, 0, 28, 0, 8, 0, 1});
    expect_not_poly("(x^2 + 1)^9");
    expect_not_poly("x^17");
    expect_not_poly("x^9*x^9 - x^18");   /* degree 18 on the way, though 0 at the end */
    expect_not_poly("exp(x)");
    expect_not_poly("1/x");
    expect_not_poly("x/x");
    expect_not_poly("x^-1");
    expect_not_poly("x^0.5");
    expect_not_poly("abs(x)");
    expect_not_poly("sqrt(x^2)");
    expect_not_poly("x^2 + sin(x)");
    expect_not_poly("min(x, 1)");
    expect_not_poly("2^x");
    cs_poly d, p = {.deg = 3, .c = {4, 1, 2, 3}};
    cs_poly_deriv(&p, &d);
    assert_int_equal(d.deg, 2);
    assert_true(d.c[0] == 1 && d.c[1] == 4 && d.c[2] == 9);
    p = (cs_poly){.deg = 0, .c = {7}};
    cs_poly_deriv(&p, &d);
    assert_true(d.deg == 0 && d.c[0] == 0);
}

/* The coefficients evaluate to the interpreter's values and derivatives,
 * to the rounding of Horner's rule: |p(x) − f(x)| <= 1e-13·Σ|c_k||x|^k. */
static void test_poly_values(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "x*(x^2 - 1)", "(x - 1)*(x + 1)^2 - 0.3*x", "(2*x - 0.1)^5 / 7", "-(x + a)^3*(x - b)",
        "(x^2 - 1)*(x^2 - 9)*x", "1 + x + x^2/2 + x^3/6 + x^4/24", "(x^2 + 1)^8 - x^16",
    };
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
        cs_expr *e = parse_ok(texts[k]);
        cs_poly p, dp;
        assert_true(cs_expr_poly(e, &p));
        cs_poly_deriv(&p, &dp);
        for (int i = 0; i <= 400; i++) {
            double x = -4.0 + 0.02 * i + 1e-3, df, f = cs_expr_eval1(e, x, &df);
            double v = 0, dv = 0, scale = 0, dscale = 0;
            for (int j = p.deg; j >= 0; j--) {
                v = v * x + p.c[j];
                scale = scale * fabs(x) + fabs(p.c[j]);
            }
            for (int j = dp.deg; j >= 0; j--) {
                dv = dv * x + dp.c[j];
                dscale = dscale * fabs(x) + fabs(dp.c[j]);
            }
            if (fabs(v - f) > 1e-13 * scale || fabs(dv - df) > 1e-13 * dscale)
                fail_msg("%s at x = %g: poly %.17g (%.17g), interpreter %.17g (%.17g)",
                         texts[k], x, v, dv, f, df);
        }
        cs_expr_free(e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_values),  cmocka_unit_test(test_functions),
        cmocka_unit_test(test_determinism),  cmocka_unit_test(test_misc_api),
        cmocka_unit_test(test_constants),    cmocka_unit_test(test_homogeneity),
        cmocka_unit_test(test_parse_errors), cmocka_unit_test(test_limits),
        cmocka_unit_test(test_nonfinite),    cmocka_unit_test(test_poly_coefficients),
        cmocka_unit_test(test_poly_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
