/* test_reg_define.c — regularizers defined at run time (cs_reg_define):
 * the same value and gradient as the built-ins they spell out (myter, mybin,
 * the Hölder and si forms), gradients of transcendental ones against
 * central differences, the registry (lookup, count, replacement, instances
 * that outlive a redefinition, threads), degrees and target sets from the
 * analysis, and every refusal with its key and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_reg.h"
#include "cs_rng.h"
#include "reg_util.h"

/* A definition must fail with code, key, a message containing needle, and col. */
static void define_fails(const cs_reg_def_spec *s, int code, const char *key, const char *needle,
                         int want_col)
{
    cs_err err = {0};
    int col = -1, replaced = -1;
    int rc = cs_reg_define(s, &replaced, &col, &err);
    if (rc == CS_OK)
        fail_msg("'%s' g=%s h=%s was accepted", s->name, s->g, s->h);
    assert_int_equal(rc, code);
    if (strcmp(err.key, key))
        fail_msg("'%s': key '%s', want '%s' (%s)", s->name, err.key, key, err.msg);
    if (!strstr(err.msg, needle))
        fail_msg("'%s': message '%s' lacks '%s'", s->name, err.msg, needle);
    assert_int_equal(col, want_col);
}

/* Agreement of value and gradient: relative rel, the value also within
 * rel·floor (floor: the size of the terms whose difference ℓ is, where ℓ
 * itself is at the level of rounding). */
static void same_eval(cs_reg *a, cs_reg *b, const double *x, size_t n, double rel, double floor,
                      const char *what)
{
    double *ga = malloc(n * sizeof *ga), *gb = malloc(n * sizeof *gb);
    double va = eval_ok(a, x, 1, n, ga), vb = eval_ok(b, x, 1, n, gb);
    if (!(fabs(va - vb) <= rel * (fabs(vb) + floor)))
        fail_msg("%s (n = %zu): value %.17g vs %.17g", what, n, va, vb);
    double gmax = maxabs(gb, n) + floor / (maxabs(x, n) + 1e-300);
    for (size_t i = 0; i < n; i++)
        if (!(fabs(ga[i] - gb[i]) <= rel * gmax))
            fail_msg("%s (n = %zu): grad[%zu] %.17g vs %.17g", what, n, i, ga[i], gb[i]);
    free(ga);
    free(gb);
}

/* ‖g‖²‖h‖² of the built-in named, at x: the size of the terms of ℓ. */
static double terms(const char *name, const double *x, size_t n)
{
    double s2 = 0, s4 = 0, s6 = 0;
    for (size_t i = 0; i < n; i++) {
        double q = x[i] * x[i];
        s2 += q, s4 += q * q, s6 += q * q * q;
    }
    return !strcmp(name, "bin") ? (double)n * s4 : s2 * s6;
}

/* myter = ter and mybin = bin at random points of many lengths and scales
 * (relative 1e-10, the bar; mybin in fact bit for bit: the same
 * operations in the same order, while myter has g and h swapped). */
static void test_defined_equals_builtin(void **state)
{
    (void)state;
    define_ok("myter", "x", "x^3");
    define_ok("mybin", "x^2", "1");
    const char *pairs[][2] = {{"myter", "ter"}, {"mybin", "bin"}};
    cs_rng rng;
    cs_rng_init(&rng, 5, 1);
    double x[200];
    for (size_t p = 0; p < 2; p++) {
        cs_reg *d = reg_ok(pairs[p][0]), *b = reg_ok(pairs[p][1]);
        for (size_t n = 1; n <= 200; n += 13) {
            for (int s = -3; s <= 3; s += 3) {
                fill_normal(&rng, x, n);
                for (size_t i = 0; i < n; i++)
                    x[i] *= pow(10.0, s);
                same_eval(d, b, x, n, 1e-10, 1e-6 * terms(pairs[p][1], x, n), pairs[p][0]);
            }
        }
        /* near the zero set, where the plain difference of sums would cancel */
        for (size_t i = 0; i < 50; i++)
            x[i] = (i % 3 == 0 ? 0.0 : (i % 2 ? 1.0 : -1.0)) * 0.7 + 1e-9 * (double)i;
        same_eval(d, b, x, 50, 1e-10, 0.0, pairs[p][0]);
        if (p == 1) {   /* mybin: bit for bit */
            double gd[50], gb[50];
            double vd = eval_ok(d, x, 1, 50, gd), vb = eval_ok(b, x, 1, 50, gb);
            assert_memory_equal(&vd, &vb, sizeof vd);
            assert_memory_equal(gd, gb, sizeof gd);
        }
        cs_reg_free(d);
        cs_reg_free(b);
    }
}

/* Hölder and si forms of defined g, h = the built-in forms of their base. */
static void test_forms_equal_builtin(void **state)
{
    (void)state;
    struct {
        cs_reg_form form;
        const char *g, *h, *builtin;
        double p, q, r, eps;
    } cases[] = {
        {CS_FORM_HOLDER, "x^2", "1", "holder p=3 q=1.5 r=1 base=bin", 3, 1.5, 1, 0},
        {CS_FORM_HOLDER, "x^2", "x", "holder p=2 q=2 r=0.5 base=osb", 2, 2, 0.5, 0},
        {CS_FORM_HOLDER, "x^3", "x", "holder p=2 q=2 r=2 base=ter", 2, 2, 2, 0},
        {CS_FORM_SI, "x^3", "x", "si p=2 q=2 r=1 base=ter eps=0.1", 2, 2, 1, 0.1},
        {CS_FORM_SI, "x^2", "1", "si p=1.5 q=3 r=2 base=bin eps=0", 1.5, 3, 2, 0},
    };
    cs_rng rng;
    cs_rng_init(&rng, 6, 1);
    double x[64];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cs_reg_def_spec s;
        cs_reg_def_spec_init(&s);
        s.name = "myform", s.g = cases[c].g, s.h = cases[c].h, s.form = cases[c].form;
        s.p = cases[c].p, s.q = cases[c].q, s.r = cases[c].r, s.eps = cases[c].eps;
        cs_err err;
        int replaced;
        if (cs_reg_define(&s, &replaced, NULL, &err))
            fail_msg("%s: %s", cases[c].builtin, err.msg);
        assert_int_equal(replaced, c > 0);   /* the same name, redefined */
        cs_reg *d = reg_ok("myform"), *b = reg_ok(cases[c].builtin);
        assert_int_equal(cs_reg_get_info(d)->form, cases[c].form);
        for (size_t n = 2; n <= 64; n += 31) {
            fill_normal(&rng, x, n);
            same_eval(d, b, x, n, 1e-12, 0.0, cases[c].builtin);
        }
        cs_reg_free(d);
        cs_reg_free(b);
    }
}

/* Value and gradient of transcendental definitions against central
 * differences of the value, in every form. */
static void test_gradient_fd(void **state)
{
    (void)state;
    static const char *const forms[] = {"cs", "holder", "si"};
    cs_rng rng;
    cs_rng_init(&rng, 7, 1);
    for (int f = 0; f < 3; f++) {
        cs_reg_def_spec s;
        cs_reg_def_spec_init(&s);
        cs_expr_const k[] = {{"w", 0.5}};
        s.name = "wavy", s.g = "sin(pi*x) + w*x", s.h = "exp(-x^2) + tanh(x)/4";
        s.consts = k, s.nconsts = 1;
        s.form = f == 0 ? CS_FORM_NONE : f == 1 ? CS_FORM_HOLDER : CS_FORM_SI;
        s.p = 3, s.q = 1.5, s.r = 1.5, s.eps = 0.5;
        if (f == 0)
            s.p = s.q = 2, s.r = 1, s.eps = 0;
        cs_err err;
        assert_int_equal(cs_reg_define(&s, NULL, NULL, &err), 0);
        cs_reg *r = reg_ok("wavy");
        double x[7], g[7], xp[7];
        fill_normal(&rng, x, 7);
        eval_ok(r, x, 1, 7, g);
        for (size_t i = 0; i < 7; i++) {
            double h = 1e-6;
            memcpy(xp, x, sizeof xp);
            xp[i] = x[i] + h;
            double fp = eval_ok(r, xp, 1, 7, NULL);
            xp[i] = x[i] - h;
            double fm = eval_ok(r, xp, 1, 7, NULL);
            double fd = (fp - fm) / (2 * h);
            if (!(fabs(fd - g[i]) <= 1e-6 * (1 + fabs(g[i]))))
                fail_msg("%s: d/dx%zu %.12g, central difference %.12g", forms[f], i, g[i], fd);
        }
        cs_reg_free(r);
    }
}

/* The table sees defined entries next to the built-ins; a redefinition
 * replaces the entry under its name, instances made before keep theirs. */
static void test_registry(void **state)
{
    (void)state;
    size_t before = cs_reg_count();
    define_ok("regA", "x^2", "1");
    assert_int_equal(cs_reg_count(), before + 1);
    const cs_reg_info *a = cs_reg_lookup("regA");
    assert_non_null(a);
    assert_true(cs_reg_info_defined(a));
    assert_false(cs_reg_info_defined(cs_reg_lookup("bin")));
    assert_ptr_equal(cs_reg_info_at(before), a);
    assert_null(cs_reg_info_at(before + 1));
    assert_string_equal(a->g, "x^2");
    assert_string_equal(a->h, "1");
    assert_non_null(strstr(a->formula, "g = x^2, h = 1"));
    assert_int_equal(a->family, CS_TARGET_BIN);
    assert_int_equal(a->degree, 4);
    cs_reg *old = reg_ok("regA");
    double x[3] = {1, 2, 3}, g[3];
    assert_true(eval_ok(old, x, 1, 3, g) == 98);   /* bin at 1,2,3: 98 exactly */
    assert_true(g[0] == -44 && g[1] == -16 && g[2] == 156);
    define_ok("regA", "x", "x^3");   /* now ter */
    assert_int_equal(cs_reg_count(), before + 1);
    assert_ptr_not_equal(cs_reg_lookup("regA"), a);
    assert_int_equal(cs_reg_lookup("regA")->family, CS_TARGET_TER);
    cs_reg *new = reg_ok("regA"), *ter = reg_ok("ter");
    assert_true(eval_ok(old, x, 1, 3, NULL) == 98);
    assert_true(eval_ok(new, x, 1, 3, NULL) == eval_ok(ter, x, 1, 3, NULL));
    cs_reg_free(old);
    cs_reg_free(new);
    cs_reg_free(ter);
    /* a defined entry takes no keys */
    reg_fails("regA p=2", CS_EINVAL, "unknown key 'p' for regularizer regA (valid: none)");
}

/* Degrees from the homogeneity of g and h; target sets from their levels. */
static void test_degree_and_target(void **state)
{
    (void)state;
    struct {
        const char *g, *h;
        int degree;
        cs_target_family family;
        const char *target;
    } cases[] = {
        {"x", "x^3", 8, CS_TARGET_TER, "{-a,0,+a}^N for any a"},
        {"x^2", "x", 6, CS_TARGET_OSB, "{0,+a}^N for any a"},
        {"abs(x)", "1", 2, CS_TARGET_BIN, "{-a,+a}^N for any a"},
        {"sqrt(abs(x))", "1", 1, CS_TARGET_BIN, "{-a,+a}^N for any a"},
        {"x*abs(x)", "1", 4, CS_TARGET_SCALED, "{+a}^N for any a"},
        {"exp(-x^2)", "1", 0, CS_TARGET_BIN, "{-a,+a}^N for any a"},
        {"x", "x^3-x", 0, CS_TARGET_TER, "{-a,0,+a}^N for any a"},
        {"x^3-x", "1", 0, CS_TARGET_NONE, "c = g(1)/h(1) gives {-1,0,1} within [-4, 4]"},
        {"sign(x)", "1", -1, CS_TARGET_NONE, "gives a set with intervals"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        define_ok("deg", cases[c].g, cases[c].h);
        const cs_reg_info *i = cs_reg_lookup("deg");
        if (i->degree != cases[c].degree || i->family != cases[c].family ||
            !strstr(i->target, cases[c].target))
            fail_msg("g=%s h=%s: degree %d family %d target '%s'", cases[c].g, cases[c].h,
                     i->degree, i->family, i->target);
    }
}

static void test_refusals(void **state)
{
    (void)state;
    cs_reg_def_spec s;
    cs_reg_def_spec_init(&s);
    s.g = "x", s.h = "x^3";
    s.name = "ter";
    define_fails(&s, CS_EINVAL, "name", "'ter' is a built-in regularizer", 0);
    s.name = "define";
    define_fails(&s, CS_EINVAL, "name", "reserved", 0);
    s.name = "2x";
    define_fails(&s, CS_EINVAL, "name", "is not a name", 0);
    s.name = "";
    define_fails(&s, CS_EINVAL, "name", "needs a name", 0);
    s.name = "x012345678901234567890123456789012";
    define_fails(&s, CS_EINVAL, "name", "too long", 0);
    s.name = "ok1";
    s.g = "x +* 2";
    define_fails(&s, CS_EINVAL, "g", "g: column 4: unexpected '*'", 4);
    s.g = "x";
    s.h = "foo(x)";
    define_fails(&s, CS_EINVAL, "h", "unknown function 'foo'", 1);
    s.h = "x^3 + b";
    define_fails(&s, CS_EINVAL, "h", "unknown name 'b'", 7);
    s.h = NULL;
    define_fails(&s, CS_EINVAL, "h", "needs h=EXPR", 0);
    s.h = "2*x";
    define_fails(&s, CS_EINVAL, "h", "proportional", 0);
    s.g = "1", s.h = "2";
    define_fails(&s, CS_EINVAL, "h", "proportional", 0);
    s.g = "x", s.h = "x^3";
    cs_expr_const bad[] = {{"pi", 3}};
    s.consts = bad, s.nconsts = 1;
    define_fails(&s, CS_EINVAL, "pi", "reserved", 0);
    s.nconsts = 0;
    s.form = CS_FORM_HOLDER, s.p = 3, s.q = 2;
    define_fails(&s, CS_EINVAL, "q", "1/p + 1/q = 1 (with p=3 use q=1.5)", 0);
    s.q = 1.5, s.r = 0;
    define_fails(&s, CS_EINVAL, "r", "r=0 must be in (0, 1e6]", 0);
    s.r = 1, s.p = 0.5;
    define_fails(&s, CS_EINVAL, "p", "out of range", 0);
    s.p = 3, s.form = CS_FORM_SI, s.eps = -1;
    define_fails(&s, CS_EINVAL, "eps", "eps=-1", 0);
    assert_null(cs_reg_lookup("ok1"));   /* nothing was defined */
}

/* NaN or Inf during evaluation names the function, the term and the
 * (1-based) coordinate. */
static void test_nonfinite(void **state)
{
    (void)state;
    define_ok("mylog", "log(x)", "1");
    cs_reg *r = reg_ok("mylog");
    double x[3] = {1, -0.5, 2};
    eval_fails(r, x, 1, 3, CS_ENONFINITE, "mylog: in g: log(x) is NaN at coordinate 2 (x = -0.5)");
    double y[2] = {1, 0};
    eval_fails(r, y, 1, 2, CS_ENONFINITE, "log(x) is Inf at coordinate 2 (x = 0)");
    cs_reg_free(r);
    define_ok("myinv", "x", "1/x");
    r = reg_ok("myinv");
    eval_fails(r, y, 1, 2, CS_ENONFINITE, "myinv: in h: 1/x is Inf at coordinate 2 (x = 0)");
    cs_reg_free(r);
}

/* Instances in threads while another thread defines: each thread's own
 * copies of g and h, the same bits as alone. */
typedef struct job {
    double value;
    int rc;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    double x[40];
    for (size_t i = 0; i < 40; i++)
        x[i] = sin(1.0 + (double)i);
    j->rc = 0;
    for (int k = 0; k < 200 && !j->rc; k++) {
        cs_reg *r;
        cs_err err;
        j->rc = cs_reg_new(&r, "thr", NULL, 0, 1, &err);
        if (!j->rc)
            j->rc = cs_reg_eval(r, x, 1, 40, &j->value, NULL, &err);
        cs_reg_free(r);
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    define_ok("thr", "exp(-x^2)", "1");
    pthread_t t[2];
    job j[2];
    for (int k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, worker, &j[k]);
    for (int k = 0; k < 50; k++) {
        char name[16];
        snprintf(name, sizeof name, "other%d", k % 5);
        define_ok(name, "x^2", "x");
    }
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    job alone;
    worker(&alone);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(j[k].rc, 0);
        assert_memory_equal(&j[k].value, &alone.value, sizeof alone.value);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defined_equals_builtin),
        cmocka_unit_test(test_forms_equal_builtin),
        cmocka_unit_test(test_gradient_fd),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_degree_and_target),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_nonfinite),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
