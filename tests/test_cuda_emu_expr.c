/* test_cuda_emu_expr.c — regularizers defined with `reg define` on the
 * device (engine/recovery/cuda/sweep_expr.cuh), run on the CPU through the
 * CUDA emulator (tests/emu/cuda_emu.h) by the check kernel
 * (sweep_expr_check.cu), under ASan in `make test`:
 *  - the export of compiled expressions (engine/reg/expr_export.c) and of
 *    defined entries, and what it refuses (the device's limits, entries
 *    that are not defined);
 *  - the device's interpreter against cs_expr_eval1 on expressions that
 *    use every opcode, at points from 0 and ±1e-300 to ±1e150: the same
 *    bits where only + − * / sqrt abs sign min max and integer powers are
 *    involved, within a few ulp where a transcendental is (the emulator's
 *    are libm's, the CPU's SLEEF's u10; a GPU's are CUDA's);
 *  - the forms' value and gradient (CS, holder, si; at p = q = 2 and at
 *    other p, q, rescaled) against the CPU's solver path
 *    (cs_reg_fast_eval, cs_reg_eval_fast) and the library's (cs_reg_eval),
 *    within 1e-12 relative (the sums' order differs);
 *  - the sweep kernel with defined holder and si at other p, q, trial by
 *    trial against the CPU's solver, and `sweep device=cuda` against
 *    device=cpu (the CSV). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_expr.h"
#include "cs_expr_export.h"
#include "cs_reg.h"
#include "cs_reg_fast.h"
#include "cs_sweep.h"
#include "cs_sweep_stream.h"
#include "cuda/sweep_cuda.h"
#include "cuda/sweep_expr_check.h"
#include "method_util.h"
#include "sweep_gpu.h"
#include "sweep_util.h"

/* the emulated module (engine/recovery/cuda/sweep_kernels.cu) */
const cs_sweep_cuda_module *cs_sweep_cuda_module_get(void);

/* ------------------------------------------------------------------ helpers */

static cs_expr *parse(const char *text)
{
    cs_expr *e;
    cs_err err;
    int rc = cs_expr_parse(&e, text, NULL, 0, NULL, &err);
    if (rc)
        fail_msg("%s: %s", text, err.msg);
    return e;
}

/* the distance in ulps of two finite doubles of any signs (0 and −0: 0) */
static uint64_t ulps(double a, double b)
{
    int64_t ia, ib;
    memcpy(&ia, &a, sizeof ia);
    memcpy(&ib, &b, sizeof ib);
    if (ia < 0)
        ia = INT64_MIN - ia;
    if (ib < 0)
        ib = INT64_MIN - ib;
    return ia > ib ? (uint64_t)ia - (uint64_t)ib : (uint64_t)ib - (uint64_t)ia;
}

/* how far a device value is from the CPU's: 0 for the same bits (NaN and
 * NaN, Inf and Inf of one sign), else ulps; UINT64_MAX when one is finite
 * and the other not */
static uint64_t dist(double dev, double cpu)
{
    if (isnan(dev) && isnan(cpu))
        return 0;
    if (!isfinite(dev) || !isfinite(cpu))
        return dev == cpu ? 0 : UINT64_MAX;
    return ulps(dev, cpu);
}

/* the check kernel on rc at x[0..n): out as sweep_expr_check.h lays it out */
static double *run_check(const cs_expr_reg_code *rc, const double *x, int n)
{
    double *out = malloc((5 * (size_t)n + 1) * sizeof *out);
    assert_non_null(out);
    char why[256] = "";
    int r = cs_sweep_expr_check_run(rc, x, n, out, why, sizeof why);
    if (r)
        fail_msg("check kernel: %s", why);
    return out;
}

/* ------------------------------------------------------------------ export */

static void test_export(void **state)
{
    (void)state;
    cs_expr_code c;
    cs_err err;
    /* x*(x^2-1): x, x, x^2 (POWK), -1 (ADDC), * (MUL) on two slots */
    cs_expr *e = parse("x*(x^2-1)");
    assert_int_equal(cs_expr_export(e, &c, &err), 0);
    assert_int_equal(c.n, 5);
    assert_int_equal(c.nslots, 2);
    assert_int_equal(c.uses_x, 1);
    assert_int_equal(c.ins[2].op, CS_EXPR_OP_POWK);
    assert_int_equal(c.ins[2].k, 2);
    assert_int_equal(c.ins[3].op, CS_EXPR_OP_ADDC);
    assert_true(c.ins[3].c == -1.0);
    assert_int_equal(c.ins[4].op, CS_EXPR_OP_MUL);
    assert_int_equal(c.ins[4].s, 0);
    cs_expr_free(e);
    /* a constant (folded): one OP_C */
    e = parse("2*pi");
    assert_int_equal(cs_expr_export(e, &c, &err), 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.uses_x, 0);
    assert_int_equal(c.ins[0].op, CS_EXPR_OP_C);
    assert_true(c.ins[0].c == 2 * M_PI);
    cs_expr_free(e);
    /* 2^x: CPOW with log(2) compiled in */
    e = parse("2^x");
    assert_int_equal(cs_expr_export(e, &c, &err), 0);
    assert_int_equal(c.ins[1].op, CS_EXPR_OP_CPOW);
    assert_true(fabs(c.ins[1].c2 - log(2.0)) <= 1e-15);
    cs_expr_free(e);

    /* 17 slots: x+(x+(...)) nested 16 deep */
    char text[CS_EXPR_MAX_LEN];
    size_t w = 0;
    for (int i = 0; i < 16; i++)
        w += (size_t)snprintf(text + w, sizeof text - w, "x+(");
    w += (size_t)snprintf(text + w, sizeof text - w, "x");
    for (int i = 0; i < 16; i++)
        w += (size_t)snprintf(text + w, sizeof text - w, ")");
    e = parse(text);
    assert_int_equal(cs_expr_export(e, &c, &err), CS_EUNSUPPORTED);
    print_message("refused: %s\n", err.msg);
    assert_non_null(strstr(err.msg, "compiles to 33 instructions on 17 stack slots; the GPU "
                                    "evaluates at most 64 instructions on 16 slots"));
    cs_expr_free(e);
    /* 67 instructions: x + sin(x) + ... (two slots) */
    e = parse(expr_sines(text, sizeof text, "x", 22));
    assert_int_equal(cs_expr_export(e, &c, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "compiles to 67 instructions on 2 stack slots; the GPU "
                                    "evaluates at most 64 instructions on 16 slots"));
    cs_expr_free(e);
    assert_int_equal(cs_expr_export(NULL, &c, &err), CS_EINVAL);
}

static void define(const char *name, const char *g, const char *h, cs_reg_form form, double p,
                   double r, double eps)
{
    cs_reg_def_spec s;
    cs_reg_def_spec_init(&s);
    s.name = name;
    s.g = g;
    s.h = h;
    s.form = form;
    if (form != CS_FORM_NONE) {
        s.p = p;
        s.q = p / (p - 1.0);
        s.r = r;
        s.eps = eps;
    }
    cs_err err;
    int rc = cs_reg_define(&s, NULL, NULL, &err);
    if (rc)
        fail_msg("reg define %s: %s", name, err.msg);
}

static void test_export_reg(void **state)
{
    (void)state;
    cs_expr_reg_code rc;
    cs_err err;
    define("ex_quart", "x^4+9", "10*x^2", CS_FORM_NONE, 2, 1, 0);
    assert_int_equal(cs_reg_export(cs_reg_lookup("ex_quart"), &rc, &err), 0);
    assert_int_equal(rc.form, CS_EXPR_REG_CS);
    assert_int_equal(rc.flat, 0);
    assert_int_equal(rc.g.n, 3);   /* x, x^4, +9 */
    define("ex_flat", "exp(-x^2)", "2", CS_FORM_SI, 2, 0.5, 0.01);
    assert_int_equal(cs_reg_export(cs_reg_lookup("ex_flat"), &rc, &err), 0);
    assert_int_equal(rc.form, CS_EXPR_REG_SI);
    assert_int_equal(rc.flat, 1);
    assert_true(rc.r == 0.5 && rc.eps == 0.01);
    assert_int_equal(rc.h.n, 1);
    assert_true(rc.h.ins[0].c == 2.0);
    assert_true(rc.p == 2.0 && rc.q == 2.0);
    assert_int_equal(rc.hom, 0);   /* exp(-x^2) is not homogeneous */
    /* Hölder at p = 3: the rescaled path, x·2^-e (g, h homogeneous of
     * degrees 2 and 0: P's degree r·2) */
    define("ex_p3", "x^2", "1", CS_FORM_HOLDER, 3, 1.5, 0);
    assert_int_equal(cs_reg_export(cs_reg_lookup("ex_p3"), &rc, &err), 0);
    assert_int_equal(rc.form, CS_EXPR_REG_HOLDER);
    assert_true(rc.p == 3.0 && rc.q == 1.5 && rc.r == 1.5);
    assert_int_equal(rc.hom, 1);
    assert_true(rc.deg == 3.0);
    /* si at p = 1.5 with g = x^3, h = x: degree r·4 */
    define("ex_p15", "x^3", "x", CS_FORM_SI, 1.5, 0.5, 0.01);
    assert_int_equal(cs_reg_export(cs_reg_lookup("ex_p15"), &rc, &err), 0);
    assert_true(rc.p == 1.5 && rc.q == 3.0 && rc.eps == 0.01);
    assert_true(rc.hom == 1 && rc.deg == 2.0);
    /* still refused at p = 3: g beyond the limits */
    char big[CS_EXPR_MAX_LEN];
    define("ex_big3", expr_sines(big, sizeof big, "x^2", 30), "x", CS_FORM_HOLDER, 3, 1, 0);
    assert_int_equal(cs_reg_export(cs_reg_lookup("ex_big3"), &rc, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "ex_big3: g = x^2+sin(x)"));
    assert_non_null(strstr(err.msg, "the GPU evaluates at most 64 instructions on 16 slots"));
    /* g beyond the limits: named with the entry */
    char text[CS_EXPR_MAX_LEN];
    define("ex_big", expr_sines(text, sizeof text, "x^2", 30), "x", CS_FORM_NONE, 2, 1, 0);
    assert_int_equal(cs_reg_export(cs_reg_lookup("ex_big"), &rc, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "ex_big: g = x^2+sin(x)"));
    assert_non_null(strstr(err.msg, "the GPU evaluates at most 64 instructions on 16 slots"));
    /* a built-in is not defined */
    assert_int_equal(cs_reg_export(cs_reg_lookup("bin"), &rc, &err), CS_EINVAL);
    assert_string_equal(err.msg, "bin is not a regularizer made by reg define");
}

/* ------------------------------------------------------------------ the interpreter */

/* g and h of a case; the largest ulps allowed in g, g', h, h' (0: the same
 * bits) */
typedef struct expr_case {
    const char *g, *h;
    unsigned ulp_v, ulp_d;
} expr_case;

static const expr_case expr_cases[] = {
    /* exact: + − * /, constants, integer powers, abs, sign, min, max, sqrt */
    {"x^3", "x*(x^2-1)", 0, 0},
    {"1/(1+x^2)", "x^-2 - 3*x/7", 0, 0},
    {"abs(x)*sign(x) - x^-1", "min(x, x^2) + max(-x, 2*x)", 0, 0},
    {"sqrt(x^2+1)", "(x - 0.5)/(x^2 + 2) - 1.5", 0, 0},
    {"-x^5 + x^64/1e20", "4 - x", 0, 0},
    /* transcendentals */
    {"exp(-x^2)", "log(1+x^2)", 2, 2},
    {"sin(x)", "cos(x)", 2, 2},
    {"tan(x/4)", "tanh(x)", 2, 2},
    {"abs(x)^1.5", "(1+x^2)^0.25", 2, 2},
    {"2^x", "0.5^(x/3)", 2, 2},
    {"(1+x^2)^(x/4)", "(2+sin(x))^2.5", 3, 4},
    {"max(sin(x), cos(x))", "min(exp(x/10), 1 + x^2)", 2, 2},
};
#define NCASES (sizeof expr_cases / sizeof expr_cases[0])

/* points: 0, −0, tiny, the definitions' tried points, ±1, large */
static const double points[] = {0.0,   -0.0, 1e-300, -1e-300, 1e-8, -1e-8, 0.3,  -0.6, 0.8,
                                1.0,   -1.0, 1.7,    -1.7,    1.9,  2.9,   -2.9, 3.5,  -4.25,
                                10.0,  -10.0, 37.5,  -100.0,  1e3,  -1e3,  1e8,  -1e8, 1e150,
                                -1e150};
#define NPOINTS ((int)(sizeof points / sizeof points[0]))

static void test_interpreter(void **state)
{
    (void)state;
    enum { NR = 40 };
    int n = NPOINTS + NR;
    double x[NPOINTS + NR];
    memcpy(x, points, sizeof points);
    uint64_t s = 12345;
    for (int i = 0; i < NR; i++) {   /* uniform in (−6, 6) */
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[NPOINTS + i] = ((double)(s >> 11) * 0x1.0p-53 - 0.5) * 12.0;
    }
    for (size_t k = 0; k < NCASES; k++) {
        const expr_case *c = &expr_cases[k];
        cs_expr *e[2] = {parse(c->g), parse(c->h)};
        cs_expr_reg_code rc;
        memset(&rc, 0, sizeof rc);
        cs_err err;
        assert_int_equal(cs_expr_export(e[0], &rc.g, &err), 0);
        assert_int_equal(cs_expr_export(e[1], &rc.h, &err), 0);
        rc.flat = !cs_expr_uses_x(e[1]);
        double *out = run_check(&rc, x, n);
        uint64_t worst[2][2] = {{0, 0}, {0, 0}};   /* [g or h][value or derivative] */
        for (int q = 0; q < 2; q++)
            for (int i = 0; i < n; i++) {
                double d, v = cs_expr_eval1(e[q], x[i], &d);
                uint64_t uv = dist(out[2 * q * n + i], v), ud = dist(out[(2 * q + 1) * n + i], d);
                if (uv > c->ulp_v || ud > c->ulp_d)
                    print_message("  %s at x = %.17g: device %.17g, %.17g; CPU %.17g, %.17g\n",
                                  q ? c->h : c->g, x[i], out[2 * q * n + i],
                                  out[(2 * q + 1) * n + i], v, d);
                worst[q][0] = uv > worst[q][0] ? uv : worst[q][0];
                worst[q][1] = ud > worst[q][1] ? ud : worst[q][1];
            }
        print_message("interpreter: g = %s: %llu, %llu ulp; h = %s: %llu, %llu ulp (value, "
                      "derivative; %d points)\n", c->g, (unsigned long long)worst[0][0],
                      (unsigned long long)worst[0][1], c->h, (unsigned long long)worst[1][0],
                      (unsigned long long)worst[1][1], n);
        for (int q = 0; q < 2; q++) {
            assert_true(worst[q][0] <= c->ulp_v);
            assert_true(worst[q][1] <= c->ulp_d);
        }
        free(out);
        cs_expr_free(e[0]);
        cs_expr_free(e[1]);
    }
}

/* ------------------------------------------------------------------ the forms */

typedef struct reg_case {
    const char *name, *g, *h;
    cs_reg_form form;
    double r, eps;
    double p;   /* the Hölder forms' p (q = p/(p − 1)); 0: 2 */
} reg_case;

/* the largest relative difference of a's first n entries from b's (by
 * b's largest magnitude) */
static double rel_diff(const double *a, const double *b, int n)
{
    double m = 0.0, d = 0.0;
    for (int i = 0; i < n; i++) {
        m = fmax(m, fabs(b[i]));
        d = fmax(d, fabs(a[i] - b[i]));
    }
    return m > 0.0 ? d / m : d;
}

static void test_forms(void **state)
{
    (void)state;
    static const reg_case cases[] = {
        {"dq_quart", "x^4+9", "10*x^2", CS_FORM_NONE, 1, 0, 0},   /* the tour's chapter 4 */
        {"dq_cubic", "x^3", "x", CS_FORM_NONE, 1, 0, 0},        /* ℓter's g, h */
        {"dq_gauss", "exp(-x^2)", "1", CS_FORM_NONE, 1, 0, 0},  /* binexp's: flat */
        {"dq_bump", "x*(x^2-1)", "1/(1+x^2)", CS_FORM_NONE, 1, 0, 0},
        {"dq_trig", "sin(x)", "cos(x) + 2", CS_FORM_NONE, 1, 0, 0},
        {"dq_hold", "x^2", "x", CS_FORM_HOLDER, 1, 0, 0},
        {"dq_hold2", "exp(-x^2)", "1 + x^2", CS_FORM_HOLDER, 2, 0, 0},
        {"dq_hold3", "abs(x)^1.5", "1", CS_FORM_HOLDER, 0.75, 0, 0},
        {"dq_si", "x^3", "x", CS_FORM_SI, 1, 0.01, 0},
        {"dq_si2", "tanh(x)", "1", CS_FORM_SI, 0.5, 0, 0},
        /* other p, q: x rescaled (g, h homogeneous) or not, then the sums
         * relative to max|g|, max|h| */
        {"dq_hp3", "x^2", "1", CS_FORM_HOLDER, 1, 0, 3},
        {"dq_hp15", "x^2", "x", CS_FORM_HOLDER, 1.5, 0, 1.5},
        {"dq_hter", "x^3", "x", CS_FORM_HOLDER, 2, 0, 4},
        {"dq_hgauss", "exp(-x^2)", "1 + x^2", CS_FORM_HOLDER, 1, 0, 3},
        {"dq_sp3", "x^2", "1", CS_FORM_SI, 1, 0.01, 3},
        {"dq_sp125", "x^3", "x", CS_FORM_SI, 0.5, 0, 1.25},
        {"dq_strig", "sin(x)", "cos(x) + 2", CS_FORM_SI, 1, 0.1, 1.5},
    };
    static const int sizes[] = {2, 7, 33, 100};   /* n = 1: ℓ is 0 up to rounding */
    double worst_f = 0.0, worst_g = 0.0, worst_lib = 0.0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const reg_case *c = &cases[k];
        define(c->name, c->g, c->h, c->form, c->p > 0 ? c->p : 2, c->r, c->eps);
        cs_expr_reg_code rc;
        cs_err err;
        assert_int_equal(cs_reg_export(cs_reg_lookup(c->name), &rc, &err), 0);
        cs_reg *reg;
        assert_int_equal(cs_reg_new(&reg, c->name, NULL, 0, 1, &err), 0);
        double case_f = 0.0, case_g = 0.0;
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            int n = sizes[si];
            double x[100], grad[100], lgrad[100], f, lf;
            uint64_t s = 777 + (uint64_t)n;
            for (int i = 0; i < n; i++) {   /* normals (Box–Muller), as x0 = randn */
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                double u = ((double)(s >> 11) + 0.5) * 0x1.0p-53;
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                double v = (double)(s >> 11) * 0x1.0p-53;
                x[i] = sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
            }
            /* the solver's path: the fused kernel (CS form) or cs_reg_eval_fast */
            if (cs_reg_fast_has(reg))
                assert_int_equal(cs_reg_fast_eval(reg, x, (size_t)n, &f, grad, NULL), 0);
            else
                assert_int_equal(cs_reg_eval_fast(reg, x, 1, (size_t)n, &f, grad, &err), 0);
            assert_int_equal(cs_reg_eval(reg, x, 1, (size_t)n, &lf, lgrad, &err), 0);
            double *out = run_check(&rc, x, n);
            double df = fabs(out[4 * n] - f) / fabs(f), dg = rel_diff(out + 4 * n + 1, grad, n);
            double dl = fmax(fabs(out[4 * n] - lf) / fabs(lf), rel_diff(out + 4 * n + 1, lgrad, n));
            if (!(df <= 1e-12 && dg <= 1e-12 && dl <= 1e-12))
                print_message("  %s n=%d: device %.17g, solver %.17g, library %.17g; gradient "
                              "%.3g, %.3g relative\n", c->name, n, out[4 * n], f, lf, dg,
                              rel_diff(out + 4 * n + 1, lgrad, n));
            assert_true(isfinite(out[4 * n]) && f > 0.0);
            assert_true(df <= 1e-12);
            assert_true(dg <= 1e-12);
            assert_true(dl <= 1e-12);
            case_f = fmax(case_f, df);
            case_g = fmax(case_g, dg);
            worst_lib = fmax(worst_lib, dl);
            free(out);
        }
        char pq[48] = "";
        if (c->p > 0)
            snprintf(pq, sizeof pq, " p=%g q=%g", c->p, c->p / (c->p - 1.0));
        print_message("form: %s g=%s h=%s%s%s: value %.2g, gradient %.2g relative to the "
                      "solver's (n = 2, 7, 33, 100)\n", c->name, c->g, c->h,
                      c->form == CS_FORM_HOLDER ? " form=holder" : c->form == CS_FORM_SI ?
                      " form=si" : "", pq, case_f, case_g);
        worst_f = fmax(worst_f, case_f);
        worst_g = fmax(worst_g, case_g);
        cs_reg_free(reg);
    }
    print_message("forms: the device's value within %.2g, its gradient within %.2g of the "
                  "solver's; both within %.2g of the library's (relative; bound 1e-12)\n",
                  worst_f, worst_g, worst_lib);
}

/* si where ⟨g,h⟩ = 0 and ε = 0: not finite (the CPU refuses the value) */
static void test_si_undefined(void **state)
{
    (void)state;
    define("dq_siz", "x^3", "x", CS_FORM_SI, 2, 1, 0);
    cs_expr_reg_code rc;
    cs_err err;
    assert_int_equal(cs_reg_export(cs_reg_lookup("dq_siz"), &rc, &err), 0);
    double x[2] = {0.0, 0.0};
    double *out = run_check(&rc, x, 2);
    assert_true(isnan(out[8]));
    assert_true(out[9] == 0.0 && out[10] == 0.0);
    free(out);
    cs_reg *reg;
    assert_int_equal(cs_reg_new(&reg, "dq_siz", NULL, 0, 1, &err), 0);
    double f, g[2];
    assert_int_equal(cs_reg_eval_fast(reg, x, 1, 2, &f, g, &err), CS_ENONFINITE);
    cs_reg_free(reg);
}

/* at other p, q: x = 0 with g, h homogeneous is the zero set (nothing
 * evaluated: holder 0, si 0 with ε > 0, undefined without); g or h not
 * finite at an entry, which the CPU's checked evaluation refuses, is not
 * finite (g' not finite: the gradient's entry NaN) */
static void test_pq_edges(void **state)
{
    (void)state;
    static const struct {
        const char *name, *g, *h;
        cs_reg_form form;
        double eps;
        int zero, finite;   /* x = 0 or x with a pole; finite on the CPU */
    } cases[] = {
        {"de_h0", "x^2", "x", CS_FORM_HOLDER, 0, 1, 1},
        {"de_s0", "x^3", "x", CS_FORM_SI, 0.01, 1, 1},
        {"de_s00", "x^3", "x", CS_FORM_SI, 0, 1, 0},
        {"de_log", "log(abs(x))", "1", CS_FORM_HOLDER, 0, 0, 0},
        {"de_inv", "1/x", "x^2 + 1", CS_FORM_SI, 0.1, 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        define(cases[k].name, cases[k].g, cases[k].h, cases[k].form, 3, 1, cases[k].eps);
        cs_expr_reg_code rc;
        cs_err err;
        assert_int_equal(cs_reg_export(cs_reg_lookup(cases[k].name), &rc, &err), 0);
        double x[3] = {0.0, 0.0, 0.0};
        if (!cases[k].zero)
            x[1] = 0.5, x[2] = -2.0;
        double *out = run_check(&rc, x, 3), f, g[3];
        cs_reg *reg;
        assert_int_equal(cs_reg_new(&reg, cases[k].name, NULL, 0, 1, &err), 0);
        int rc_cpu = cs_reg_eval_fast(reg, x, 1, 3, &f, g, &err);
        cs_reg_free(reg);
        print_message("p=3 edge: %s g=%s h=%s at x = (%g, %g, %g): device %.17g, CPU %s\n",
                      cases[k].name, cases[k].g, cases[k].h, x[0], x[1], x[2], out[12],
                      rc_cpu ? err.msg : "finite");
        if (cases[k].finite) {
            assert_int_equal(rc_cpu, 0);
            assert_true(out[12] == f && f == 0.0);
            for (int i = 0; i < 3; i++)
                assert_true(out[13 + i] == 0.0 && g[i] == 0.0);
        } else {
            assert_int_equal(rc_cpu, CS_ENONFINITE);
            assert_true(isnan(out[12]));
        }
        free(out);
    }
}

/* the check refuses what the interpreter cannot run: a code out of its
 * limits or with a slot outside those used, and n out of range */
static void test_check_refuses(void **state)
{
    (void)state;
    cs_expr_reg_code rc;
    memset(&rc, 0, sizeof rc);
    cs_err err;
    cs_expr *e = parse("x*(x^2-1)");
    assert_int_equal(cs_expr_export(e, &rc.g, &err), 0);
    assert_int_equal(cs_expr_export(e, &rc.h, &err), 0);
    cs_expr_free(e);
    double x[2] = {1.0, 2.0}, out[11];
    char why[256];
    assert_int_equal(cs_sweep_expr_check_run(&rc, x, 2, out, why, sizeof why), 0);
    assert_true(out[0] == 0.0 && out[1] == 6.0 && out[2] == 2.0 && out[3] == 11.0);
    rc.g.ins[4].s = 1;   /* MUL reads slots 1 and 2 of 2 */
    assert_int_equal(cs_sweep_expr_check_run(&rc, x, 2, out, why, sizeof why), -1);
    assert_string_equal(why, "expression check: the code is malformed");
    rc.g.ins[4].s = 0;
    rc.h.n = CS_EXPR_CODE_MAX_INS + 1;
    assert_int_equal(cs_sweep_expr_check_run(&rc, x, 2, out, why, sizeof why), -1);
    rc.h.n = 5;
    rc.form = CS_EXPR_REG_SI;   /* r = 0 */
    assert_int_equal(cs_sweep_expr_check_run(&rc, x, 2, out, why, sizeof why), -1);
    rc.form = CS_EXPR_REG_CS;
    assert_int_equal(cs_sweep_expr_check_run(&rc, x, 0, out, why, sizeof why), -1);
    assert_string_equal(why, "expression check: n=0 is out of range (1..1024)");
    rc.form = CS_EXPR_REG_HOLDER;   /* p < 1 */
    rc.r = 1.0;
    rc.p = 0.5;
    rc.q = 2.0;
    assert_int_equal(cs_sweep_expr_check_run(&rc, x, 2, out, why, sizeof why), -1);
    assert_string_equal(why, "expression check: the code is malformed");
    rc.p = 3.0;
    rc.q = 1.5;
    assert_int_equal(cs_sweep_expr_check_run(&rc, x, 2, out, why, sizeof why), 0);
}

/* ------------------------------------------------------------------ the sweep kernel */

/* Defined holder and si at other p, q in the batched sweep kernel (its
 * fam_defined), trial by trial against the CPU's solver on the same
 * problems (as test_cuda_emu.c's "sweep kernel" lines): a trial is equal
 * when its success and starts are the CPU's; at most max_differ may
 * differ, and at least same_pct % take the same iterations. */
enum { KT = 6 };

typedef struct trial_case {
    const char *method;   /* made by reg define (define_pq) */
    cs_kind kind;
    int gkind;            /* enum cs_sweep_cuda_kind */
    size_t N, Ms[2], Ks[2];
    long maxit;
    int max_differ, same_pct;
} trial_case;

static void kernel_trials(const trial_case *c)
{
    const cs_sweep_cuda_module *mod = cs_sweep_cuda_module_get();
    assert_int_equal(mod->abi, CS_SWEEP_CUDA_ABI);
    cs_method mv = method_of(c->method);
    cs_expr_reg_code code;
    cs_err err;
    assert_int_equal(cs_reg_export(mv.info, &code, &err), 0);
    sweep_tally k = {0};
    for (int g = 0; g < 2; g++) {
        size_t M = c->Ms[g], K = c->Ks[g];
        uint64_t ps[KT], ms[KT];
        unsigned char succ[KT];
        long iters[KT];
        int starts[KT];
        sweep_trial_streams(c->N, M, K, KT, &mv, ps, ms);
        cs_sweep_cuda_job job = {
            .method = CS_SWEEP_CUDA_FISTA, .fn = CS_SWEEP_CUDA_REG_DEFINED, .kind = c->gkind,
            .N = (int)c->N, .M = (int)M, .K = (int)K, .trials = KT, .seed = 7,
            .problem_stream = ps, .method_stream = ms, .maxit = c->maxit, .max_starts = 2,
            .tol = 1e-8, .success_tol = 1e-2, .defined = &code,
            .first_start_raw = c->kind == CS_PROB_OSB || c->kind == CS_PROB_TER,
            .success = succ, .iters = iters, .starts = starts};
        char why[256];
        int rc = mod->run(0, &job, 1, why, sizeof why);
        if (rc)
            print_message("%s: %s\n", c->method, why);
        assert_int_equal(rc, 0);
        sweep_cpu_ref ref = {.ps = {.kind = c->kind, .N = c->N, .M = M, .K = K}, .seed = 7,
                             .mv = &mv, .nm = 1, .name_k = 1,
                             .so = {.maxit = c->maxit, .restarts = 2}};
        for (long t = 0; t < KT; t++)
            assert_int_equal(sweep_trial_vs_cpu(&ref, t, &succ[t], &iters[t], &starts[t], &k,
                                                &err), 0);
    }
    print_message("sweep kernel method=%s: %d trials equal to the CPU (of %d: %s at N=%zu, "
                  "kind %s, M=%zu and %zu; %d successes, %d restarted; %d differ by rounding, "
                  "at most %d allowed; %d with the same iterations)\n", c->method, k.equal,
                  k.total, mv.info->formula, c->N, cs_problem_kind_name(c->kind),
                  c->Ms[0], c->Ms[1], k.won, k.restarted, k.total - k.equal, c->max_differ,
                  k.same_iters);
    assert_true(k.won > 0);
    assert_true(k.total - k.equal <= c->max_differ);
    assert_true(k.same_iters * 100 >= k.total * c->same_pct);
}

/* the definitions of the kernel's and the engine's cases: g, h of bin
 * (x², 1), osb (x², x) and ter (x³, x), and a pair that is not
 * homogeneous (x not rescaled) */
static void define_pq(void)
{
    static int done;
    if (done++)
        return;
    define("dp_h3", "x^2", "1", CS_FORM_HOLDER, 3, 1, 0);
    define("dp_s15", "x^2", "1", CS_FORM_SI, 1.5, 1, 0.01);
    define("dp_hosb", "x^2", "x", CS_FORM_HOLDER, 1.5, 1, 0);
    define("dp_ster", "x^3", "x", CS_FORM_SI, 1.25, 0.5, 0);
    define("dp_hgauss", "1 - exp(-x^2)", "1", CS_FORM_HOLDER, 3, 1, 0);
}

static void test_sweep_pq(void **state)
{
    (void)state;
    define_pq();
    const trial_case cases[] = {
        {"dp_h3", CS_PROB_BIN, CS_SWEEP_CUDA_BIN, 24, {16, 19}, {0, 0}, 80, 0, 90},
        {"dp_s15", CS_PROB_BIN, CS_SWEEP_CUDA_BIN, 24, {16, 19}, {0, 0}, 80, 0, 90},
        {"dp_hgauss", CS_PROB_BIN, CS_SWEEP_CUDA_BIN, 24, {16, 19}, {0, 0}, 80, 0, 90},
        {"dp_hosb", CS_PROB_OSB, CS_SWEEP_CUDA_OSB, 24, {22, 20}, {0, 0}, 80, 0, 90},
        {"dp_ster", CS_PROB_TER, CS_SWEEP_CUDA_TER, 24, {20, 18}, {6, 6}, 80, 0, 90},
        /* N > 128: the kernel for any N (sweep_any) */
        {"dp_s15", CS_PROB_BIN, CS_SWEEP_CUDA_BIN, 160, {110, 128}, {0, 0}, 80, 0, 90},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        kernel_trials(&cases[k]);
}

/* `sweep ... device=cuda` with defined holder and si at other p, q (the
 * engine exports the code into the job) against device=cpu: every trial
 * and the CSV the same; then what is still refused, with why */
static void test_sweep_engine_pq(void **state)
{
    (void)state;
    define_pq();
    cs_sweep_gpu_use_module(cs_sweep_cuda_module_get());
    const char *texts[] = {"dp_h3", "dp_s15", "dp_hgauss", "dp_hosb"};
    cs_method mv[4];
    methods_of(texts, 4, mv);
    const double gammas[] = {0.6, 0.8};
    cs_sweep_spec sp = {.kind = CS_PROB_BIN, .N = 20, .axis = CS_AXIS_GAMMA, .values = gammas,
                        .nvalues = 2, .M = 12, .methods = mv, .nmethods = 4, .trials = 2,
                        .threads = 1, .seed = 3};
    sp.solve.maxit = 100;
    sp.solve.restarts = 2;
    sweep_vs v;
    cs_err err;
    assert_int_equal(sweep_cpu_vs_cuda(&sp, &v, &err), 0);
    print_message("sweep device=cuda kind=bin methods=dp_h3,dp_s15,dp_hgauss,dp_hosb: the CSV "
                  "of %zu rows %s the CPU's (%zu of %zu solves succeeded)\n", v.rows,
                  v.csv_equal ? "equals" : "differs from", v.won, v.solves);
    assert_true(v.won > 0);
    assert_true(v.same_success == 1.0 && v.same_iters == 1.0);
    assert_true(v.csv_equal);
    /* still refused: g beyond the interpreter's limits, named with why */
    char text[CS_EXPR_MAX_LEN];
    define("dp_long", expr_sines(text, sizeof text, "x^2", 22), "1", CS_FORM_HOLDER, 3, 1, 0);
    cs_method lm = method_of("dp_long");
    const double one[] = {0.5};
    cs_sweep_spec rs = {.kind = CS_PROB_BIN, .N = 20, .axis = CS_AXIS_GAMMA, .values = one,
                        .nvalues = 1, .methods = &lm, .nmethods = 1, .trials = 1,
                        .threads = 1, .seed = 3, .device = CS_DEVICE_CUDA};
    cs_sweep_result *res;
    assert_int_equal(cs_sweep_run(&rs, &res, &err), CS_EUNSUPPORTED);
    print_message("refused: %s\n", err.msg);
    assert_non_null(strstr(err.msg, "those made by reg define (FISTA)"));
    assert_non_null(strstr(err.msg, "not dp_long: dp_long: g = x^2+sin(x)"));
    assert_non_null(strstr(err.msg, "compiles to 68 instructions on 2 stack slots"));
    cs_sweep_gpu_use_module(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export),
        cmocka_unit_test(test_export_reg),
        cmocka_unit_test(test_interpreter),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_si_undefined),
        cmocka_unit_test(test_check_refuses),
        cmocka_unit_test(test_pq_edges),
        cmocka_unit_test(test_sweep_pq),
        cmocka_unit_test(test_sweep_engine_pq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
