/* test_reg_builtins.c — every built-in written once (reg_builtins.def) is
 * the regularizer its formula text says: for each table entry with a
 * kernel and g/h text,
 *   - the text compiled by the designer (cs_expr) gives g, g', h, h' equal
 *     to the kernel's functions (cs_reg_kernel.h, double and float) at
 *     random points;
 *   - `reg define` of that text (in the entry's form: CS, or Hölder at
 *     p = q = 2, r = 1 for a HOLDER kernel) gives the built-in's value and
 *     gradient at random vectors;
 * and every kernel row has a table entry that names it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cs_expr.h"
#include "cs_reg.h"
#include "cs_rng.h"

/* |a − b| <= rel·max(|a|, |b|, floor) */
static void near(double a, double b, double rel, double floor, const char *what, const char *name,
                 double x)
{
    double m = fmax(fmax(fabs(a), fabs(b)), floor);
    if (!(fabs(a - b) <= rel * m))
        fail_msg("%s %s at x=%.17g: %.17g vs %.17g", name, what, x, a, b);
}

static cs_expr *compile(const char *text)
{
    cs_expr *e = NULL;
    cs_err err = {0};
    int col = 0;
    if (cs_expr_parse(&e, text, NULL, 0, &col, &err))
        fail_msg("'%s' does not compile: %s", text, err.msg);
    return e;
}

/* random x in [-3, 3], away from 0 (|x| and sign(x) have no derivative there) */
static double draw(cs_rng *rng)
{
    double x = 6.0 * cs_rng_uniform(rng) - 3.0;
    return fabs(x) < 1e-3 ? 0.5 : x;
}

static void formulas_match_kernels(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 7, 1);
    size_t checked = 0;
    for (size_t i = 0; i < cs_reg_count(); i++) {
        const cs_reg_info *info = cs_reg_info_at(i);
        if (cs_reg_info_defined(info) || info->kernel == CS_REG_KERNEL_NONE || !info->g)
            continue;
        cs_expr *g = compile(info->g), *h = compile(info->h);
        int k = info->kernel;
        for (int t = 0; t < 200; t++) {
            double x = draw(&rng), dge, dhe;
            double ge = cs_expr_eval1(g, x, &dge), he = cs_expr_eval1(h, x, &dhe);
            double gk = cs_reg_kernel_g(k, x);
            near(gk, ge, 1e-15, 1e-300, "g", info->name, x);
            near(cs_reg_kernel_dg(k, x, gk), dge, 1e-14, 1e-300, "g'", info->name, x);
            near(cs_reg_kernel_h(k, x), he, 0, 0, "h", info->name, x);
            near(cs_reg_kernel_dh(k, x), dhe, 0, 0, "h'", info->name, x);
            /* float: the same formula in float arithmetic, at x rounded to float */
            float xf = (float)x, gf = cs_reg_kernel_gf(k, xf);
            double dgx, gx = cs_expr_eval1(g, xf, &dgx);
            near(gf, gx, 1e-6, 1e-30, "g (float)", info->name, x);
            near(cs_reg_kernel_dgf(k, xf, gf), dgx, 2e-6, 1e-30, "g' (float)", info->name, x);
        }
        cs_expr_free(g);
        cs_expr_free(h);
        checked++;
    }
    /* bin osb ter bbin binexp l2l1 l2l1h */
    assert_int_equal(checked, 7);
}

static void eval(cs_reg *r, const double *x, size_t n, double *v, double *grad)
{
    cs_err err = {0};
    if (cs_reg_eval(r, x, 1, n, v, grad, &err))
        fail_msg("%s: %s", cs_reg_get_info(r)->name, err.msg);
}

static void defined_equals_builtin(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 11, 2);
    size_t checked = 0;
    for (size_t i = 0; i < cs_reg_count(); i++) {
        const cs_reg_info *info = cs_reg_info_at(i);
        if (cs_reg_info_defined(info) || info->kernel == CS_REG_KERNEL_NONE || !info->g)
            continue;
        char name[CS_REG_NAME_MAX + 1];
        snprintf(name, sizeof name, "def_%s", info->name);
        cs_reg_def_spec spec;
        cs_reg_def_spec_init(&spec);
        spec.name = name;
        spec.g = info->g;
        spec.h = info->h;
        if (cs_reg_kernel_class(info->kernel) == CS_KC_HOLDER)
            spec.form = CS_FORM_HOLDER;   /* p = q = 2, r = 1: the init's */
        cs_err err = {0};
        if (cs_reg_define(&spec, NULL, NULL, &err))
            fail_msg("define %s: %s", name, err.msg);
        cs_reg *a = NULL, *b = NULL;
        assert_int_equal(cs_reg_new(&a, info->name, NULL, 0, 1, &err), CS_OK);
        assert_int_equal(cs_reg_new(&b, name, NULL, 0, 1, &err), CS_OK);
        for (int t = 0; t < 20; t++) {
            size_t n = 1 + (size_t)(cs_rng_uniform(&rng) * 40);
            double x[41], ga[41], gb[41], va, vb;
            for (size_t j = 0; j < n; j++)
                x[j] = draw(&rng);
            eval(a, x, n, &va, ga);
            eval(b, x, n, &vb, gb);
            double scale = 0;
            for (size_t j = 0; j < n; j++)
                scale = fmax(scale, fabs(ga[j]));
            near(va, vb, 1e-11, 1e-12, "value", info->name, x[0]);
            for (size_t j = 0; j < n; j++)
                near(ga[j], gb[j], 1e-10, scale * 1e-3 + 1e-12, "gradient", info->name, x[j]);
        }
        cs_reg_free(a);
        cs_reg_free(b);
        checked++;
    }
    assert_int_equal(checked, 7);
}

/* every kernel id but NONE belongs to exactly one table entry */
static void every_kernel_has_one_entry(void **state)
{
    (void)state;
    for (int k = CS_REG_KERNEL_NONE + 1; k < CS_REG_KERNEL_COUNT; k++) {
        int owners = 0;
        for (size_t i = 0; i < cs_reg_count(); i++)
            owners += cs_reg_info_at(i)->kernel == (cs_reg_kernel)k;
        if (owners != 1)
            fail_msg("kernel %d has %d table entries", k, owners);
        assert_int_not_equal(cs_reg_kernel_class(k), CS_KC_NONE);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formulas_match_kernels),
        cmocka_unit_test(defined_equals_builtin),
        cmocka_unit_test(every_kernel_has_one_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
