/* test_cmd_regdef.c — `reg define` and `reg analyze` through the
 * interpreter: the JSON fields, a defined regularizer in eval, regs, help,
 * landscape (its target lines) and completion, NaN reports with the
 * coordinate, the analysis of the built-ins and of a defined regularizer
 * with spurious points drawn on the landscape; a redefinition reaches the
 * next solve. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_complete.h"
#include "cs_solve_view.h"
#include "interp_util.h"
#include "plot.h"


static void test_define_and_use(void **state)
{
    fixture *f = *state;
    const char *o = ok(f, "reg define myter g=x h=x^3");
    assert_non_null(strstr(o, "\"defined\":\"myter\",\"replaced\":false,\"g\":\"x\","
                              "\"h\":\"x^3\""));
    assert_non_null(strstr(o, "\"target\":\"{-a,0,+a}^N for any a\",\"levels\":[-1,0,1]"));
    o = ok(f, "reg define myter g=x h=x^3");
    assert_non_null(strstr(o, "\"replaced\":true"));
    o = ok(f, "reg myter");
    assert_non_null(strstr(o, "\"reg\":\"myter\""));
    /* integer data: the exact value of ter, Σx²Σx⁶ − (Σx⁴)² = 14·794 − 98² */
    o = ok(f, "eval 1,2,3");
    assert_non_null(strstr(o, "\"value\":1512,"));
    o = ok(f, "regs");
    assert_non_null(strstr(o, "myter"));
    o = ok(f, "help reg myter");
    assert_non_null(strstr(o, "g(x) = x, h(x) = x^3 (elementwise)"));
    o = ok(f, "help reg ter");
    assert_non_null(strstr(o, "g(x) = x^3, h(x) = x (elementwise)"));
    /* the landscape marks the target set from the levels: four lines, as ter */
    o = ok(f, "landscape res=11");
    assert_non_null(strstr(o, "\"targets\":4"));
    /* constants, quoted expressions, forms */
    o = ok(f, "reg define wave g=\"sin(pi*x) + w*x\" h='exp(-x^2)' w=0.5 form=holder p=3 "
              "q=1.5 r=2");
    assert_non_null(strstr(o, "||g||_3^2 * ||h||_1.5^2 - |<g,h>|^2 with g = sin(pi*x) + w*x, "
                              "h = exp(-x^2), w = 0.5"));
    ok(f, "reg wave");
    ok(f, "eval 0.3,-1.2,2");
}

static void test_nonfinite_names_coordinate(void **state)
{
    fixture *f = *state;
    ok(f, "reg define mysqrt g=sqrt(x) h=1");
    ok(f, "reg mysqrt");
    fails(f, "eval 4,1,-1", "mysqrt: in g: sqrt(x) is NaN at coordinate 3 (x = -1)", 6);
    fails(f, "eval 4,0,1", "the derivative of sqrt(x) is Inf at coordinate 2 (x = 0)", 6);
    ok(f, "eval 4,1,9");
}

static void test_analyze(void **state)
{
    fixture *f = *state;
    const char *o = ok(f, "reg analyze ter res=41");
    assert_non_null(strstr(o, "target set   {-a,0,+a}^N for any a"));
    assert_non_null(strstr(o, "\"levels\":[-1,0,1]"));
    assert_non_null(strstr(o, "\"k_claimed\":8"));
    assert_non_null(strstr(o, "\"spurious\":0"));
    o = ok(f, "reg analyze bin res=41");
    assert_non_null(strstr(o, "\"levels\":[-1,1]"));
    o = ok(f, "reg analyze osb res=41");
    assert_non_null(strstr(o, "\"levels\":[0,1]"));
    o = ok(f, "reg analyze holder base=osb p=3 q=1.5 res=41");
    assert_non_null(strstr(o, "\"levels\":[0,1]"));
    ok(f, "reg define cub g=x^3-x h=1");
    o = ok(f, "reg analyze cub res=41");
    assert_non_null(strstr(o, "\"spurious\":2"));
    assert_non_null(strstr(o, "maximum"));
    /* the current regularizer is not changed by analyze */
    ok(f, "reg bin");
    ok(f, "reg analyze cub res=21");
    o = ok(f, "eval 1,2,3");
    assert_non_null(strstr(o, "\"reg\":\"bin\",\"value\":98"));
    fails(f, "reg analyze", "reg analyze needs a name", 5);
    fails(f, "reg analyze cub at=1,2,3 dims=1,5", "out of range", 26);
}

/* The analysis drawn: the spurious points as a layer of marks. */
static void test_analyze_plot(void **state)
{
    fixture *f = *state;
    cs_err err;
    if (cs_plot_available(&err) != CS_OK)
        skip();
    ok(f, "reg define cub2 g=x^3-x h=1");
    const char *o = ok(f, "reg analyze cub2 res=31 plot=cub.svg");
    assert_non_null(strstr(o, "\"plot\":"));
    char path[128];
    snprintf(path, sizeof path, "%s/cub.svg", f->dir);
    char *svg = slurp(path, NULL);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "spurious stationary points"));
    free(svg);
    /* plot landscape redraws it, marks included */
    ok(f, "plot landscape out=again.svg");
    snprintf(path, sizeof path, "%s/again.svg", f->dir);
    svg = slurp(path, NULL);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "spurious stationary points"));
    free(svg);
    /* an ordinary landscape has none */
    ok(f, "reg bin");
    ok(f, "landscape res=11 out=bin.svg");
    snprintf(path, sizeof path, "%s/bin.svg", f->dir);
    svg = slurp(path, NULL);
    assert_null(strstr(svg, "spurious stationary points"));
    free(svg);
}

static void test_complete(void **state)
{
    fixture *f = *state;
    ok(f, "reg define zzmine g=x h=1+x^2");
    char *line = "reg zz";
    char **c = cs_complete(line, 4, strlen(line));
    assert_true(list_has(c, "zzmine"));
    cs_complete_free(c);
    line = "reg d";
    c = cs_complete(line, 4, strlen(line));
    assert_true(list_has(c, "define"));
    cs_complete_free(c);
    line = "reg analyze zz";
    c = cs_complete(line, 12, strlen(line));
    assert_true(list_has(c, "zzmine"));
    cs_complete_free(c);
    line = "reg define q g";
    c = cs_complete(line, 13, strlen(line));
    assert_true(list_has(c, "g="));
    cs_complete_free(c);
}

/* Σx²·Σx⁶ − (Σx⁴)² and Σx²·Σ(1+x²)² − (Σx(1+x²))²: ℓ for g = x with
 * h = x³ and with h = 1 + x², in long double. */
static double cs_value(const double *x, size_t n, int second)
{
    long double gg = 0, hh = 0, gh = 0;
    for (size_t i = 0; i < n; i++) {
        long double t = x[i], h = second ? 1 + t * t : t * t * t;
        gg += t * t;
        hh += h * h;
        gh += t * h;
    }
    return (double)(gg * hh - gh * gh);
}

/* A redefinition reaches solve: same_run() once compared only the method
 * text, so the second solve went on with the first definition's solver. */
static void test_redefine_solve(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 3, 2, 0);
    ok(f, "problem ter N=20 M=10");
    ok(f, "reg define redef_a g=x h=x^3");
    ok(f, "reg redef_a");
    double first = jnum(ok(f, "solve maxit=50"), "objective");
    ok(f, "reg define redef_a g=x h=1+x^2");
    ok(f, "reg redef_a");
    ok(f, "reset");
    double second = jnum(ok(f, "solve maxit=50"), "objective");
    /* the objective at the iterate is the new ℓ, not the old one */
    cs_solve_view v;
    assert_int_equal(cs_interp_solve_view(f->in, &v), 0);
    double now = cs_value(v.x, v.n, 1), old = cs_value(v.x, v.n, 0);
    if (!(fabs(v.objective - now) <= 1e-10 * now) || !(fabs(old - now) > 1e-3 * now))
        fail_msg("objective %.17g: new l %.17g, old l %.17g", v.objective, now, old);
    /* and the run is the one a session that only knew the second makes */
    fixture *g = fixture_new(1, 3, 2, 0);
    ok(g, "problem ter N=20 M=10");
    ok(g, "reg redef_a");
    double fresh = jnum(ok(g, "solve maxit=50"), "objective");
    assert_true(second == fresh);
    assert_true(fabs(second - first) > 1e-3 * fabs(first));
    /* the current regularizer follows a redefinition of its name: eval
     * gives the new value without `reg redef_a` again (x = (1,2): g = x,
     * h = x³ gives 5·65 − 17² = 36; h = 1 + x² gives 5·29 − 12² = 1) */
    ok(f, "reg define redef_a g=x h=x^3");
    assert_true(jnum(ok(f, "eval 1,2"), "value") == 36.0);
    ok(f, "reg define redef_a g=x h=1+x^2");
    assert_true(jnum(ok(f, "eval 1,2"), "value") == 1.0);
    ok(f, "reg define other_b g=x h=x^3");   /* another name: no change */
    assert_true(jnum(ok(f, "eval 1,2"), "value") == 1.0);
    /* the same without reset */
    ok(f, "reg define redef_a g=x h=x^3");
    ok(f, "reg redef_a");
    assert_true(jnum(ok(f, "solve maxit=50"), "objective") == first);
    fixture_free(g);
    fixture_free(f);
}

static int setup(void **state)
{
    *state = fixture_new(1, 1, 1, 1);
    return *state ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_define_and_use, setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_nonfinite_names_coordinate, setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_analyze, setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_analyze_plot, setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_complete, setup, fixture_teardown),
        cmocka_unit_test(test_redefine_solve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
