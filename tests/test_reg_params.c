/* test_reg_params.c — creating and evaluating regularizers with bad
 * input: unknown names and keys, bad values, matrices, dimensions,
 * non-finite entries, recovery after an error; the matrix sources
 * C=random and C=file.csv; the table of regularizers, its flags, and
 * describe/extra. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_reg.h"
#include "cs_rng.h"
#include "reg_naive_util.h"
#include "reg_util.h"

/* ---------------------------------------------------------------- errors */

static void test_err_nonfinite(void **state)
{
    (void)state;
    cs_reg *reg = reg_ok("bin");
    double x[] = {1, NAN, 3};
    eval_fails(reg, x, 3, 1, CS_ENONFINITE, "NaN");
    eval_fails(reg, x, 3, 1, CS_ENONFINITE, "position 2");
    x[1] = -INFINITY;
    eval_fails(reg, x, 3, 1, CS_ENONFINITE, "Inf");
    cs_reg_free(reg);
    cs_reg *mu = reg_ok("mu C=1,2;3,4");
    double y[] = {1, 2, NAN};
    eval_fails(mu, y, 3, 1, CS_ENONFINITE, "position 3");
    cs_reg_free(mu);
}

static void test_err_unknown(void **state)
{
    (void)state;
    reg_fails("nosuch", CS_ENOTFOUND, "nosuch");
    reg_fails("bin foo=1", CS_EINVAL, "foo");
    reg_fails("holder s=1", CS_EINVAL, "valid: p, q, r, base");
    reg_fails("eig C=1 B=2", CS_EINVAL, "B");
}

static void test_err_bad_values(void **state)
{
    (void)state;
    reg_fails("holder p=abc", CS_EINVAL, "p=abc");
    reg_fails("holder base=foo", CS_EINVAL, "base=foo");
    reg_fails("si base=", CS_EINVAL, "base");
    reg_fails("equ B=0", CS_EINVAL, "B=0");
    reg_fails("equ B=17", CS_EINVAL, "B=17");
    reg_fails("equ B=1.5", CS_EINVAL, "B=1.5");
    reg_fails("holder r=0", CS_EINVAL, "r=0");
    reg_fails("holder p=0.5 q=-1", CS_EINVAL, "p=0.5");
    reg_fails("si eps=-1", CS_EINVAL, "eps");
    reg_fails("fixed alpha=nan", CS_ENONFINITE, "alpha");
    reg_fails("beta beta=learnt", CS_EINVAL, "beta");
    reg_fails("holder p=3", CS_EINVAL, "q=1.5");  /* 1/p + 1/q must be 1 */
    reg_fails("si q=4", CS_EINVAL, "1/p + 1/q");
}

static void test_err_matrix_params(void **state)
{
    (void)state;
    reg_fails("eig", CS_EINVAL, "C=");
    reg_fails("mu", CS_EINVAL, "C=");
    reg_fails("ns", CS_EINVAL, "C=");
    reg_fails("eig C=1,2;3", CS_EDIM, "ragged");
    reg_fails("eig C=1,2,3;4,5,6", CS_EDIM, "square");
    reg_fails("mu C=1,2", CS_EDIM, "square");
    reg_fails("eig C=1,x;3,4", CS_EINVAL, "C");
    reg_fails("eig C=/nonexistent/c.csv", CS_EIO, "c.csv");
    /* ns takes a rectangular C */
    cs_reg *ns = reg_ok("ns C=1,2,3;4,5,6");
    cs_reg_free(ns);
    /* set_matrix checks the same */
    cs_reg *eig = reg_ok("eig C=1,0;0,1");
    cs_err err;
    const double R[] = {1, 2, 3, 4, 5, 6}, bad[] = {1, NAN, 0, 1};
    assert_int_equal(cs_reg_set_matrix(eig, R, 2, 3, &err), CS_EDIM);
    assert_int_equal(cs_reg_set_matrix(eig, bad, 2, 2, &err), CS_ENONFINITE);
    assert_int_equal(cs_reg_set_matrix(eig, R, 0, 3, &err), CS_EDIM);
    cs_reg_free(eig);
}

static void test_err_dimensions(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3, 4, 5, 6};
    cs_reg *eig = reg_ok("eig C=1,2;3,4");
    eval_fails(eig, x, 3, 1, CS_EDIM, "2x2");
    cs_reg_free(eig);
    cs_reg *mu = reg_ok("mu C=1,2;3,4");
    eval_fails(mu, x, 2, 1, CS_EDIM, "C is 2x2"); /* x has one entry + μ */
    eval_fails(mu, x, 1, 1, CS_EDIM, "at least 2");
    cs_reg_free(mu);
    cs_reg *ns = reg_ok("ns C=1,2,3;4,5,6");
    eval_fails(ns, x, 2, 1, CS_EDIM, "2x3");
    cs_reg_free(ns);
    cs_reg *bin = reg_ok("bin");
    eval_fails(bin, x, 2, 3, CS_EDIM, "2x3");
    eval_fails(bin, x, 0, 1, CS_EDIM, "empty");
    cs_reg_free(bin);
    cs_reg *bl = reg_ok("beta beta=learn");
    eval_fails(bl, x, 1, 1, CS_EDIM, "at least 2");
    cs_reg_free(bl);
}

static void test_err_equ_length(void **state)
{
    (void)state;
    const double y[] = {1, 2, 3, 4, 5, 6, 7};
    cs_reg *reg = reg_ok("equ B=3");
    eval_fails(reg, y, 4, 1, CS_EDIM, "not a multiple of 3");
    eval_fails(reg, y, 7, 1, CS_EDIM, "length 7");
    double v = eval_ok(reg, y, 6, 1, NULL);
    assert_true(v > 0);
    cs_reg_free(reg);
    cs_reg *r2 = reg_ok("equ");
    eval_fails(r2, y, 1, 3, CS_EDIM, "not a multiple of 2");
    cs_reg_free(r2);
}

/* si with eps = 0 where ⟨g,h⟩ = 0: no value; eps > 0 makes it finite. */
static void test_err_si_undefined(void **state)
{
    (void)state;
    const double x[] = {1, -1}, z[] = {0, 0, 0};
    cs_reg *si = reg_ok("si base=osb");
    eval_fails(si, x, 2, 1, CS_ENONFINITE, "eps");
    cs_reg_free(si);
    si = reg_ok("si");
    eval_fails(si, z, 3, 1, CS_ENONFINITE, "eps");
    cs_reg_free(si);
    si = reg_ok("si base=osb eps=0.1");
    /* (‖x²‖‖x‖ + ε)/ε − 1 = √2·√2/0.1 */
    assert_close(eval_ok(si, x, 2, 1, NULL), 20.0, 1e-13, "si eps");
    double g[3];
    assert_close(eval_ok(si, z, 3, 1, g), 0.0, 0, "si eps at 0");
    cs_reg_free(si);
}

/* A failed evaluation leaves the instance usable. */
static void test_err_recovery(void **state)
{
    (void)state;
    cs_reg *reg = reg_ok("ter");
    const double bad[] = {1e200, 1}, good[] = {1, 2, 3};
    eval_fails(reg, bad, 2, 1, CS_ENONFINITE, NULL);
    assert_close(eval_ok(reg, good, 3, 1, NULL), 1512, 1e-12, "ter after error");
    cs_reg_free(reg);
    cs_reg_free(NULL);
}

/* ------------------------------------------------------ matrix sources */

static void test_c_random(void **state)
{
    (void)state;
    cs_reg *a = NULL, *b = NULL, *c = NULL;
    cs_err err;
    assert_int_equal(reg_from(&a, "eig C=random", 5, &err), 0);
    assert_int_equal(reg_from(&b, "eig C=random", 5, &err), 0);
    assert_int_equal(reg_from(&c, "eig C=random", 6, &err), 0);
    double x[6] = {1, -2, 0.5, 3, 1, 2};
    double va = eval_ok(a, x, 4, 1, NULL);
    assert_true(va == eval_ok(b, x, 4, 1, NULL)); /* same seed, same C */
    assert_true(va != eval_ok(c, x, 4, 1, NULL));
    /* the size follows the argument; a new size draws a new C */
    assert_true(eval_ok(a, x, 6, 1, NULL) > 0);
    assert_true(eval_ok(a, x, 4, 1, NULL) == va);
    /* C=random is N(0,1) from (seed, stream 0xC0FFEE) */
    double C[16];
    cs_rng rng;
    cs_rng_init(&rng, 5, 0xC0FFEEull);
    cs_rng_normal_fill(&rng, C, 16);
    matrix_text(C, 4, 4, C_sq_text, sizeof C_sq_text);
    char spec[4200];
    snprintf(spec, sizeof spec, "eig C=%s", C_sq_text);
    cs_reg *d = reg_ok(spec);
    assert_close(eval_ok(d, x, 4, 1, NULL), va, 1e-13 * va, "C=random vs inline");
    cs_reg_free(a);
    cs_reg_free(b);
    cs_reg_free(c);
    cs_reg_free(d);
    /* restore the shared CN×CN text */
    matrix_text(C_sq, CN, CN, C_sq_text, sizeof C_sq_text);
}

static void test_c_csv(void **state)
{
    (void)state;
    char path[] = "/tmp/test_reg_XXXXXX.csv";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fprintf(f, "# a 3x3 matrix\n2,1,0\n1,3,1\n\n0,1,4\n");
    fclose(f);
    char spec[256];
    snprintf(spec, sizeof spec, "eig C=%s", path);
    cs_reg *a = reg_ok(spec), *b = reg_ok("eig C=2,1,0;1,3,1;0,1,4");
    const double x[] = {0.3, -1, 2};
    double ga[3], gb[3];
    assert_true(eval_ok(a, x, 3, 1, ga) == eval_ok(b, x, 3, 1, gb));
    assert_vec_close(ga, gb, 3, 0, "csv grad");
    cs_reg_free(a);
    cs_reg_free(b);
    unlink(path);
}

/* ---------------------------------------------------------- the table */

static void test_table_complete(void **state)
{
    (void)state;
    const char *names[] = {"bin",  "osb",    "ter",    "eig", "om",    "equ",
                           "bbin", "binexp", "holder", "si",  "l2l1",  "l2l1h",
                           "fixed", "beta",  "linf",   "l1",  "mu",    "ns"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const cs_reg_info *info = cs_reg_lookup(names[k]);
        if (!info)
            fail_msg("%s is not in the table", names[k]);
        assert_string_equal(info->name, names[k]);
        assert_true(info->title && *info->title && info->formula && *info->formula);
        assert_true(info->target && *info->target && info->section && *info->section);
        assert_non_null(info->eval);
        assert_true(info->nparams == 0 || info->params != NULL);
    }
    for (size_t i = 0; i < cs_reg_count(); i++) {
        const cs_reg_info *info = cs_reg_info_at(i);
        assert_ptr_equal(cs_reg_lookup(info->name), info);
        for (size_t j = 0; j < info->nparams; j++)
            assert_true(info->params[j].key && info->params[j].help);
    }
    assert_null(cs_reg_info_at(cs_reg_count()));
    assert_null(cs_reg_lookup(NULL));
}

static void test_table_flags(void **state)
{
    (void)state;
    const char *proven[] = {"bin", "osb", "ter", "om", "equ", "bbin"};
    const char *unproven[] = {"eig", "binexp", "beta", "linf", "l1", "mu", "fixed", "ns"};
    const char *nondiff[] = {"l2l1", "l2l1h", "linf", "l1"};
    for (size_t k = 0; k < 6; k++)
        assert_int_equal(cs_reg_lookup(proven[k])->spurious_free, 1);
    for (size_t k = 0; k < 8; k++)
        assert_int_equal(cs_reg_lookup(unproven[k])->spurious_free, 0);
    for (size_t k = 0; k < 4; k++)
        assert_int_equal(cs_reg_lookup(nondiff[k])->differentiable, 0);
    assert_int_equal(cs_reg_lookup("bin")->differentiable, 1);
    assert_int_equal(cs_reg_lookup("om")->matrix_arg, 1);
    assert_int_equal(cs_reg_lookup("bin")->matrix_arg, 0);
    assert_string_equal(cs_reg_lookup("osb")->section, "Regularizer 2 (sec. 2.2.2)");
}

static void test_describe_and_extra(void **state)
{
    (void)state;
    char buf[256];
    cs_reg *h = reg_ok("holder");
    cs_reg_describe(h, buf, sizeof buf);
    assert_string_equal(buf, "holder p=2 q=2 r=1 base=bin");
    assert_int_equal(cs_reg_extra(h), 0);
    cs_reg_free(h);
    cs_reg *s = reg_ok("si p=3 q=1.5 base=ter eps=0.25");
    cs_reg_describe(s, buf, sizeof buf);
    assert_string_equal(buf, "si p=3 q=1.5 r=1 base=ter eps=0.25");
    cs_reg_free(s);
    cs_reg *b = reg_ok("beta beta=learn"), *b2 = reg_ok("beta beta=2"), *m = reg_ok("mu C=1");
    assert_int_equal(cs_reg_extra(b), 1);
    assert_int_equal(cs_reg_extra(b2), 0);
    assert_int_equal(cs_reg_extra(m), 1);
    cs_reg_describe(b, buf, sizeof buf);
    assert_string_equal(buf, "beta beta=learn");
    cs_reg_describe(m, buf, sizeof buf);
    assert_string_equal(buf, "mu C=[1x1]");
    cs_reg_free(b);
    cs_reg_free(b2);
    cs_reg_free(m);
}

/* ----------------------------------------------------------------- main */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_err_nonfinite),
        cmocka_unit_test(test_err_unknown),
        cmocka_unit_test(test_err_bad_values),
        cmocka_unit_test(test_err_matrix_params),
        cmocka_unit_test(test_err_dimensions),
        cmocka_unit_test(test_err_equ_length),
        cmocka_unit_test(test_err_si_undefined),
        cmocka_unit_test(test_err_recovery),
        cmocka_unit_test(test_c_random),
        cmocka_unit_test(test_c_csv),
        cmocka_unit_test(test_table_complete),
        cmocka_unit_test(test_table_flags),
        cmocka_unit_test(test_describe_and_extra),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
