/* test_reg_analyze.c — `reg analyze` in the engine (cs_reg_analyze.h)
 * against the paper's claims and hand computations: the levels of bin, osb
 * and ter ({-a,+a}, {0,a}, {-a,0,+a}) and of the bounded and
 * non-differentiable variants, the degrees of homogeneity, no spurious
 * stationary points for the regularizers the paper proves free of them,
 * and the ones that exist, at hand-computed places, for a defined
 * g = x³ − x, h = 1, for the fixed-scale regularizer and for the
 * scale-invariant Hölder one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_reg_analyze.h"
#include "reg_util.h"

static cs_reg_analysis *analyze(const char *spec, const cs_reg_analyze_spec *sp)
{
    cs_reg_analyze_spec plane = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .res = 61};
    cs_reg *r = reg_ok(spec);
    cs_reg_analysis *a = malloc(sizeof *a);
    cs_err err;
    if (cs_reg_analyze(r, sp ? sp : &plane, a, &err))
        fail_msg("analyze %s: %s", spec, err.msg);
    cs_reg_free(r);
    return a;
}

static void expect_levels(const char *spec, const double *want, size_t n)
{
    cs_reg_analysis *a = analyze(spec, NULL);
    if (!a->levels.found || !a->levels.scale_free || a->levels.nlevels != n)
        fail_msg("%s: found %d scale free %d, %zu levels", spec, a->levels.found,
                 a->levels.scale_free, a->levels.nlevels);
    for (size_t i = 0; i < n; i++)
        if (fabs(a->levels.levels[i] - want[i]) > 1e-9)
            fail_msg("%s: level %zu is %.17g, want %g", spec, i, a->levels.levels[i], want[i]);
    free(a);
}

/* The paper's target sets, found from g and h alone. */
static void test_levels_of_builtins(void **state)
{
    (void)state;
    static const double bin[] = {-1, 1}, osb[] = {0, 1}, ter[] = {-1, 0, 1};
    expect_levels("bin", bin, 2);
    expect_levels("osb", osb, 2);
    expect_levels("ter", ter, 3);
    expect_levels("bbin", bin, 2);
    expect_levels("binexp", bin, 2);
    expect_levels("l2l1", bin, 2);
    expect_levels("l2l1h", bin, 2);
    expect_levels("holder base=osb", osb, 2);
    expect_levels("si base=ter eps=0.1", ter, 3);
    /* the table's levels are the ones found */
    const char *names[] = {"bin", "osb", "ter", "bbin", "binexp", "l2l1", "l2l1h"};
    for (size_t k = 0; k < 7; k++) {
        cs_reg_analysis *a = analyze(names[k], NULL);
        const cs_reg_info *i = cs_reg_lookup(names[k]);
        assert_int_equal(a->levels.nlevels, i->nlevels);
        for (size_t j = 0; j < i->nlevels; j++)
            assert_true(fabs(a->levels.levels[j] - i->levels[j]) < 1e-9);
        free(a);
    }
    /* no elementwise g and h: nothing found */
    cs_reg_analysis *a = analyze("eig C=1,2;2,3", NULL);
    assert_false(a->levels.found);
    free(a);
}

/* Levels of expressions that are not scale free, and the text. */
static void test_levels_direct(void **state)
{
    (void)state;
    cs_expr *g, *h;
    cs_err err;
    assert_int_equal(cs_expr_parse(&g, "x^3 - x", NULL, 0, NULL, &err), 0);
    assert_int_equal(cs_expr_parse(&h, "1", NULL, 0, NULL, &err), 0);
    cs_reg_levels lv;
    assert_int_equal(cs_reg_levels_of(g, h, &lv), 0);
    assert_true(lv.found && !lv.scale_free && lv.t0 == 1 && lv.nlevels == 3);
    assert_true(fabs(lv.levels[0] + 1) < 1e-12 && lv.levels[1] == 0 &&
                fabs(lv.levels[2] - 1) < 1e-12);
    char text[400];
    cs_reg_levels_text(&lv, text, sizeof text);
    assert_string_equal(text, "x_n all in one level set {t : g(t) = c*h(t)}; c = g(1)/h(1) "
                              "gives {-1,0,1} within [-4, 4]");
    cs_expr_free(g);
    cs_expr_free(h);
    /* g = x, h = x³ − x: g/h = 1/(x² − 1) is even, so {-a, 0, a} for any a */
    assert_int_equal(cs_expr_parse(&g, "x", NULL, 0, NULL, &err), 0);
    assert_int_equal(cs_expr_parse(&h, "x^3 - x", NULL, 0, NULL, &err), 0);
    assert_int_equal(cs_reg_levels_of(g, h, &lv), 0);
    assert_true(lv.found && lv.scale_free && lv.nlevels == 3);
    cs_reg_levels_text(&lv, text, sizeof text);
    assert_string_equal(text, "{-a,0,+a}^N for any a");
    cs_expr_free(h);
    /* g = x, h = 1/x: the ratio x² is even, so {-a, +a}; g = x^2, h = 1/x:
     * the ratio x³ is one-to-one, one level per ratio */
    assert_int_equal(cs_expr_parse(&h, "1/x", NULL, 0, NULL, &err), 0);
    assert_int_equal(cs_reg_levels_of(g, h, &lv), 0);
    assert_true(lv.found && lv.scale_free && lv.nlevels == 2);
    cs_expr_free(g);
    assert_int_equal(cs_expr_parse(&g, "x^2", NULL, 0, NULL, &err), 0);
    assert_int_equal(cs_reg_levels_of(g, h, &lv), 0);
    assert_true(lv.found && lv.scale_free && lv.nlevels == 1 && lv.levels[0] == 1);
    cs_expr_free(g);
    cs_expr_free(h);
}

/* ℓ(αx) = α^k ℓ(x): claimed by the table, measured. */
static void test_scaling(void **state)
{
    (void)state;
    struct {
        const char *spec;
        int claimed;
        double k;
        int homogeneous;
    } cases[] = {
        {"bin", 1, 4, 1},   {"osb", 1, 6, 1},  {"ter", 1, 8, 1},
        {"holder", 1, 2, 1}, {"holder r=0.5 base=ter", 1, 2, 1},
        {"si", 1, 0, 1},    {"l2l1h", 1, 1, 1}, {"eig C=random", 1, 4, 1},
        {"bbin", 0, 0, 0},  {"binexp", 0, 0, 0}, {"fixed", 0, 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cs_reg_analysis *a = analyze(cases[c].spec, NULL);
        if (a->degree_claimed != cases[c].claimed || a->homogeneous != cases[c].homogeneous ||
            (cases[c].claimed && a->k_claimed != cases[c].k) ||
            (cases[c].homogeneous && fabs(a->k_measured - cases[c].k) > 1e-9))
            fail_msg("%s: claimed %d (%g), homogeneous %d (%g, spread %g)", cases[c].spec,
                     a->degree_claimed, a->k_claimed, a->homogeneous, a->k_measured,
                     a->k_spread);
        free(a);
    }
    cs_reg_analysis *a = analyze("beta beta=learn", NULL);
    assert_true(isnan(a->k_measured));
    assert_non_null(strstr(a->scale_note, "auxiliary"));
    free(a);
}

/* Proven free of spurious stationary points (bin, osb, ter: Regularizers
 * 1-3; bbin and binexp: app. B.2): none on the plane, nor on a slice. */
static void test_no_spurious_where_proven(void **state)
{
    (void)state;
    const char *names[] = {"bin", "osb", "ter", "bbin", "binexp", "holder"};
    for (size_t k = 0; k < 6; k++) {
        cs_reg_analysis *a = analyze(names[k], NULL);
        if (a->nfound)
            fail_msg("%s: %zu spurious points, the first at (%g, %g)", names[k], a->nfound,
                     a->spurious[0].x, a->spurious[0].y);
        free(a);
    }
    double X[4] = {0.3, 0, -0.8, 0};
    cs_reg_analyze_spec sl = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .res = 41, .at = X, .n = 4,
                              .dims = {1, 3}};
    cs_reg_analysis *a = analyze("ter", &sl);
    assert_int_equal(a->nfound, 0);
    free(a);
}

static const cs_reg_stationary *point_near(const cs_reg_analysis *a, double x, double y)
{
    for (size_t k = 0; k < a->nspurious; k++)
        if (fabs(a->spurious[k].x - x) < 1e-8 && fabs(a->spurious[k].y - y) < 1e-8)
            return &a->spurious[k];
    return NULL;
}

/* g = x³ − x, h = 1: on the plane ℓ = (g(x) − g(y))², stationary where
 * g'(x) = g'(y) = 0, i.e. x, y = ±1/√3; off the target set at (a, −a) and
 * (−a, a), a = 1/√3, where ℓ = (2g(a))² = 16/27, maxima (∇²ℓ = 2D∇²D with
 * D = g(x) − g(y) < 0 and ∇²D = diag(6x, −6y)). */
static void test_spurious_defined(void **state)
{
    (void)state;
    define_ok("cub", "x^3 - x", "1");
    cs_reg_analysis *an = analyze("cub", NULL);
    double a = 1 / sqrt(3.0);
    assert_int_equal(an->nfound, 2);
    const cs_reg_stationary *p = point_near(an, a, -a), *q = point_near(an, -a, a);
    assert_non_null(p);
    assert_non_null(q);
    assert_true(fabs(p->value - 16.0 / 27) < 1e-12 && p->kind == CS_STAT_MAX);
    assert_true(fabs(q->value - 16.0 / 27) < 1e-12 && q->kind == CS_STAT_MAX);
    free(an);
}

/* fixed (α = 1, app. B.3): ℓ = 3(x⁴ + y⁴ + 1) − (x² + y² + 1)², with the
 * auto-scale gone: a maximum at 0 (ℓ = 2) and saddles at (0, ±1/√2) and
 * (±1/√2, 0) (ℓ = 3/2). si with ε = 0 is scale invariant and depends on
 * the angle only: its maxima on the axes are rays of stationary points. */
static void test_spurious_builtins(void **state)
{
    (void)state;
    cs_reg_analysis *a = analyze("fixed", NULL);
    double r = 1 / sqrt(2.0);
    assert_int_equal(a->nfound, 5);
    const cs_reg_stationary *o = point_near(a, 0, 0);
    assert_true(o && o->kind == CS_STAT_MAX && fabs(o->value - 2) < 1e-12);
    double pts[4][2] = {{0, r}, {0, -r}, {r, 0}, {-r, 0}};
    for (int k = 0; k < 4; k++) {
        const cs_reg_stationary *p = point_near(a, pts[k][0], pts[k][1]);
        assert_true(p && p->kind == CS_STAT_SADDLE && fabs(p->value - 1.5) < 1e-12);
    }
    free(a);
    a = analyze("si", NULL);
    assert_true(a->nfound > 10 && a->nundefined == 1);   /* (0, 0): <g,h> = 0 */
    for (size_t k = 0; k < a->nspurious; k++)
        assert_true(fabs(a->spurious[k].x) < 1e-8 || fabs(a->spurious[k].y) < 1e-8);
    free(a);
}

static void test_errors(void **state)
{
    (void)state;
    cs_reg *r = reg_ok("bin");
    cs_reg_analysis a;
    cs_err err;
    cs_reg_analyze_spec sp = {.x0 = 1, .x1 = -1, .y0 = -1, .y1 = 1, .res = 11};
    assert_int_equal(cs_reg_analyze(r, &sp, &a, &err), CS_EINVAL);
    sp.x0 = -1, sp.x1 = 1, sp.res = 2;
    assert_int_equal(cs_reg_analyze(r, &sp, &a, &err), CS_EINVAL);
    assert_string_equal(err.key, "res");
    double X[3] = {1, 2, 3};
    sp.res = 11, sp.at = X, sp.n = 3, sp.dims[0] = 1, sp.dims[1] = 1;
    assert_int_equal(cs_reg_analyze(r, &sp, &a, &err), CS_EDIM);
    cs_reg_free(r);
    r = reg_ok("om");
    sp.at = NULL;
    assert_int_equal(cs_reg_analyze(r, &sp, &a, &err), CS_EUNSUPPORTED);
    cs_reg_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels_of_builtins),
        cmocka_unit_test(test_levels_direct),
        cmocka_unit_test(test_scaling),
        cmocka_unit_test(test_no_spurious_where_proven),
        cmocka_unit_test(test_spurious_defined),
        cmocka_unit_test(test_spurious_builtins),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
