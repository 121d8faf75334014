/* test_reg_fast.c — the solver's paths to the regularizers against the
 * library's (cs_reg_eval, entry-by-entry sums):
 *   cs_reg_eval_fast (the entries' own evaluation with 4-wide sums, no
 *   argument scan, no rescaling): the same value and gradient to 1e-12
 *   relative (the terms' size where ℓ is at the level of rounding), for
 *   every regularizer the solver takes, built-in and defined, at lengths
 *   that exercise the 4-wide blocks and the remainder; non-finite results
 *   reported as such;
 *   the fused kernels (cs_reg_fast_eval): picked from the instance's data;
 *   the bits of cs_reg_eval_fast where they share its arithmetic (all but
 *   bin, osb, ter), the gradient's norm in the FISTA stepper's order; the
 *   library's value and gradient to 1e-12; on the target set and 1e-8 from
 *   it, the library's relative accuracy (a long-double reference);
 *   defined entries in the CS form (Horner's rule for polynomials, else the
 *   interpreter): the library's value and gradient to 1e-12, central
 *   differences, exact zeros on the target set, NaN and overflow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_reg_fast.h"
#include "reg_util.h"

/* |a − b| ≤ rel·(|b| + floor) */
static void close_to(double a, double b, double rel, double floor, const char *what, size_t n,
                     size_t i)
{
    if (!(fabs(a - b) <= rel * (fabs(b) + floor)))
        fail_msg("%s (n = %zu) entry %zu: fast %.17g, library %.17g", what, n, i, a, b);
}

static void compare(const char *spec, const double *x, size_t n, double rel)
{
    cs_reg *a = reg_ok(spec), *b = reg_ok(spec);
    double *ga = malloc(n * sizeof *ga), *gb = malloc(n * sizeof *gb), va, vb;
    cs_err err;
    if (cs_reg_eval_fast(a, x, 1, n, &va, ga, &err))
        fail_msg("%s: %s", spec, err.msg);
    if (cs_reg_eval(b, x, 1, n, &vb, gb, &err))
        fail_msg("%s: %s", spec, err.msg);
    close_to(va, vb, rel, 0.0, spec, n, (size_t)-1);
    double gmax = maxabs(gb, n);
    for (size_t i = 0; i < n; i++)
        close_to(ga[i], gb[i], rel, gmax, spec, n, i);
    /* value only: the same value */
    double v2;
    if (cs_reg_eval_fast(a, x, 1, n, &v2, NULL, &err))
        fail_msg("%s: %s", spec, err.msg);
    assert_memory_equal(&v2, &va, sizeof va);
    free(ga);
    free(gb);
    cs_reg_free(a);
    cs_reg_free(b);
}

static void test_every_method(void **state)
{
    (void)state;
    define_ok("fmyter", "x", "x^3");
    define_ok("fwave", "exp(-x^2) + 0.1*sin(3*x)", "1 + x^2/4");
    cs_reg_def_spec d;
    cs_reg_def_spec_init(&d);
    d.name = "fhold", d.g = "abs(x)^1.5", d.h = "1 + tanh(x)", d.form = CS_FORM_HOLDER;
    d.p = 3, d.q = 1.5, d.r = 2;
    cs_err err;
    assert_int_equal(cs_reg_define(&d, NULL, NULL, &err), 0);
    d.name = "fsi", d.g = "x^2", d.h = "x", d.form = CS_FORM_SI, d.p = d.q = 2, d.r = 1;
    d.eps = 0.1;
    assert_int_equal(cs_reg_define(&d, NULL, NULL, &err), 0);
    static const char *const specs[] = {
        "bin", "osb", "ter", "bbin", "binexp", "l2l1", "l2l1h", "fixed", "fixed alpha=0.3",
        "holder", "holder base=osb", "holder base=ter r=2", "holder p=3 q=1.5 r=0.5",
        "si", "si base=ter eps=0.1", "si p=1.5 q=3 r=2", "beta", "beta beta=learn",
        "fmyter", "fwave", "fhold", "fsi", "eig C=random", "ns C=random", "mu C=random",
    };
    cs_rng rng;
    cs_rng_init(&rng, 11, 3);
    double x[203];
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++)
        for (size_t n = 2; n <= 203; n += (n < 12 ? 1 : 47)) {
            fill_normal(&rng, x, n);
            compare(specs[k], x, n, 1e-12);
        }
}

/* Near the zero set (x_n = ±0.7 + 1e-9·noise): R_n = ‖h‖²g_n − ⟨g,h⟩h_n is
 * ~1e-7 there while the sums are ~50, so their last bits (summed in another
 * order) move R_n by ~1e-13: agreement to 1e-5, not 1e-12; the value, a
 * sum of R_n², keeps that too. */
static void test_near_zero_set(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 12, 3);
    double x[100];
    fill_normal(&rng, x, 100);
    for (size_t i = 0; i < 100; i++)
        x[i] = (x[i] > 0 ? 0.7 : -0.7) + 1e-9 * x[i];
    static const char *const specs[] = {"bin", "bbin", "binexp", "fixed alpha=0.7"};
    for (size_t k = 0; k < 4; k++)
        compare(specs[k], x, 100, 1e-5);
}

/* Not finite: the solver reads CS_ENONFINITE as divergence. */
static void test_nonfinite(void **state)
{
    (void)state;
    cs_reg *r = reg_ok("bbin");
    double x[6] = {1, 2, NAN, 3, 4, 5}, v, g[6];
    cs_err err;
    assert_int_equal(cs_reg_eval_fast(r, x, 1, 6, &v, g, &err), CS_ENONFINITE);
    cs_reg_free(r);
    r = reg_ok("ter");
    double big[5] = {1e60, 1, 2, 3, 4};
    assert_int_equal(cs_reg_eval_fast(r, big, 1, 5, &v, g, &err), CS_ENONFINITE);
    assert_non_null(strstr(err.msg, "ter: value or gradient is not finite"));
    cs_reg_free(r);
}

/* ---------------------------------------------------- the fused kernels */

/* The instances with a fused kernel that shares cs_reg_eval_fast's
 * arithmetic (bin, osb and ter have their own). */
static const char *const fused[] = {
    "l2l1", "l2l1h", "bbin", "binexp", "fixed", "fixed alpha=0.3", "holder", "holder base=osb",
    "holder base=ter r=2", "holder r=0.5", "holder r=3", "si", "si base=osb", "si base=ter eps=0.1",
    "si r=2",
};
#define NFUSED (sizeof fused / sizeof *fused)

/* ‖g‖ as the FISTA stepper sums it (cs_fista.h, fg_gnorm): two 4-wide
 * accumulators over blocks of 8, (v0 + v2) + (v1 + v3) of their sum, then
 * the remaining entries one by one. */
static double stepper_norm(const double *g, size_t n)
{
    double a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0}, c[4];
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (size_t k = 0; k < 4; k++) {
            a[k] += g[i + k] * g[i + k];
            b[k] += g[i + 4 + k] * g[i + 4 + k];
        }
    for (size_t k = 0; k < 4; k++)
        c[k] = a[k] + b[k];
    double s = (c[0] + c[2]) + (c[1] + c[3]);
    for (; i < n; i++)
        s += g[i] * g[i];
    return sqrt(s);
}

static void fused_ok(cs_reg *r, const char *spec, const double *x, size_t n, double *f,
                     double *g, double *gn)
{
    int rc = cs_reg_fast_eval(r, x, n, f, g, gn);
    if (rc)
        fail_msg("%s (n = %zu): fused kernel failed (%d)", spec, n, rc);
}

/* The kernel's norm is that of its own gradient in the stepper's order, and
 * its value alone is the bits of its value with the gradient. */
static void check_norm_value(cs_reg *a, const char *spec, const double *x, size_t n,
                             const double *ga, double va, double gn)
{
    double want = stepper_norm(ga, n), vc;
    if (memcmp(&gn, &want, sizeof gn))
        fail_msg("%s (n = %zu): norm %.17g, the stepper's %.17g", spec, n, gn, want);
    fused_ok(a, spec, x, n, &vc, NULL, NULL);
    assert_memory_equal(&vc, &va, sizeof va);
}

/* The bits of cs_reg_eval_fast: value, gradient, value alone; the norm in
 * the stepper's order. Points: normal, scaled by 3, on the target set. */
static void test_fused_bits(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 21, 3);
    double x[203], ga[203], gb[203];
    for (size_t k = 0; k < NFUSED; k++) {
        cs_reg *a = reg_ok(fused[k]), *b = reg_ok(fused[k]);
        if (!cs_reg_fast_has(a))
            fail_msg("%s has no fused kernel", fused[k]);
        for (size_t n = 1; n <= 203; n += (n < 20 ? 1 : 23))
            for (int t = 0; t < 3; t++) {
                fill_normal(&rng, x, n);
                for (size_t i = 0; i < n; i++)
                    x[i] = t == 0 ? x[i] : t == 1 ? 3.0 * x[i] : (x[i] > 0 ? 1.5 : -1.5);
                double va, vb, gn;
                cs_err err;
                int ra = cs_reg_fast_eval(a, x, n, &va, ga, &gn);
                int rb = cs_reg_eval_fast(b, x, 1, n, &vb, gb, &err);
                if (ra != rb)
                    fail_msg("%s (n = %zu, t = %d): fused %d, cs_reg_eval_fast %d", fused[k], n,
                             t, ra, rb);
                if (ra)   /* si on {-a,a}: ⟨g,h⟩ = 0 for osb's g, h */
                    continue;
                if (memcmp(&va, &vb, sizeof va) || memcmp(ga, gb, n * sizeof *ga))
                    fail_msg("%s (n = %zu, t = %d): not the bits of cs_reg_eval_fast "
                             "(%.17g vs %.17g)", fused[k], n, t, va, vb);
                check_norm_value(a, fused[k], x, n, ga, va, gn);
            }
        cs_reg_free(a);
        cs_reg_free(b);
    }
}

/* Every fused kernel, bin, osb and ter included, against the library. */
static void test_fused_library(void **state)
{
    (void)state;
    static const char *const own[] = {"bin", "osb", "ter"};
    cs_rng rng;
    cs_rng_init(&rng, 22, 3);
    double x[203], ga[203], gb[203];
    for (size_t k = 0; k < NFUSED + 3; k++) {
        const char *spec = k < 3 ? own[k] : fused[k - 3];
        cs_reg *a = reg_ok(spec), *b = reg_ok(spec);
        for (size_t n = 2; n <= 203; n += (n < 12 ? 1 : 47)) {
            fill_normal(&rng, x, n);
            double va, vb, gn;
            fused_ok(a, spec, x, n, &va, ga, &gn);
            vb = eval_ok(b, x, 1, n, gb);
            close_to(va, vb, 1e-12, 0.0, spec, n, (size_t)-1);
            double gmax = maxabs(gb, n);
            for (size_t i = 0; i < n; i++)
                close_to(ga[i], gb[i], 1e-12, gmax, spec, n, i);
            close_to(gn, stepper_norm(gb, n), 1e-12, 0.0, spec, n, (size_t)-1);
        }
        cs_reg_free(a);
        cs_reg_free(b);
    }
}

/* The kernel is picked from the instance's data: not for other exponents,
 * defined entries in a Hölder form, or regularizers without one. */
static void test_fused_pick(void **state)
{
    (void)state;
    cs_reg_def_spec d;
    cs_reg_def_spec_init(&d);
    d.name = "fphold", d.g = "x^2", d.h = "1", d.form = CS_FORM_HOLDER, d.r = 2;
    cs_err err;
    assert_int_equal(cs_reg_define(&d, NULL, NULL, &err), 0);
    static const char *const none[] = {"holder p=3 q=1.5", "si p=1.5 q=3 base=osb", "beta",
                                       "beta beta=learn", "eig C=random", "fphold", "linf"};
    double x[4] = {1, -2, 0.5, 3}, v, g[4];
    for (size_t k = 0; k < sizeof none / sizeof *none; k++) {
        cs_reg *r = reg_ok(none[k]);
        if (cs_reg_fast_has(r))
            fail_msg("%s has a fused kernel", none[k]);
        assert_int_equal(cs_reg_fast_eval(r, x, 4, &v, g, NULL), CS_EUNSUPPORTED);
        cs_reg_free(r);
    }
}

/* Non-finite results, si's undefined value at ⟨g,h⟩ = 0 (eps = 0), a
 * fixed alpha too large. */
static void test_fused_nonfinite(void **state)
{
    (void)state;
    static const char *const specs[] = {"l2l1", "bbin", "binexp", "holder", "si", "l2l1h",
                                        "fixed"};
    double x[9] = {1, 2, NAN, 3, 4, 5, 6, 7, 8}, v, g[9], gn;
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        cs_reg *r = reg_ok(specs[k]);
        assert_int_equal(cs_reg_fast_eval(r, x, 9, &v, g, &gn), CS_ENONFINITE);
        assert_int_equal(cs_reg_fast_eval(r, x, 9, &v, NULL, NULL), CS_ENONFINITE);
        cs_reg_free(r);
    }
    double big[5] = {1e200, 1, 2, 3, 4}, zero[5] = {0, 0, 0, 0, 0};
    cs_reg *r = reg_ok("holder");
    assert_int_equal(cs_reg_fast_eval(r, big, 5, &v, g, &gn), CS_ENONFINITE);
    cs_reg_free(r);
    r = reg_ok("si");
    assert_int_equal(cs_reg_fast_eval(r, zero, 5, &v, g, &gn), CS_ENONFINITE);
    cs_reg_free(r);
    r = reg_ok("si eps=0.5");
    assert_int_equal(cs_reg_fast_eval(r, zero, 5, &v, g, &gn), CS_OK);
    assert_true(v == 0.0 && gn == 0.0);
    cs_reg_free(r);
    r = reg_ok("fixed alpha=1e100");
    assert_int_equal(cs_reg_fast_eval(r, big + 1, 4, &v, g, &gn), CS_ENONFINITE);
    cs_reg_free(r);
}

/* ---- near the zero set: a long-double reference ----
 * g and h of each family at one entry. */
typedef enum { G_SQ, G_OSB, G_TER, G_ABS, G_BBIN, G_EXP } gfam;
static void gh_ld(gfam f, long double x, long double *g, long double *h)
{
    *h = 1.0L;
    switch (f) {
    case G_SQ: *g = x * x; break;
    case G_OSB: *g = x * x, *h = x; break;
    case G_TER: *g = x * x * x, *h = x; break;
    case G_ABS: *g = fabsl(x); break;
    case G_BBIN: *g = 1.0L / (1.0L + x * x); break;
    case G_EXP: *g = expl(-x * x); break;
    }
}

typedef struct zcase {
    const char *spec;
    gfam fam;
    int form;            /* 0: CS form (tail: fixed's α²), 1: holder, 2: si */
    double r, eps, tail; /* tail: fixed's α (0: none) */
    int levels;          /* target set: 2 {-a,a}, 1 {0,a}, 3 {-a,0,a} */
} zcase;

/* ℓ in long double, every form by its residual (Lemma 1). */
static long double ref_value(const zcase *c, const double *x, size_t n)
{
    long double hh = 0, gh = 0, gg = 0, g[101], h[101];
    for (size_t i = 0; i < n; i++) {
        gh_ld(c->fam, x[i], &g[i], &h[i]);
        hh += h[i] * h[i], gh += g[i] * h[i], gg += g[i] * g[i];
    }
    long double t = (long double)c->tail * c->tail;
    if (c->tail != 0.0)
        hh += 1, gh += t, gg += t * t;
    long double beta = gh / hh, res = 0;
    for (size_t i = 0; i < n; i++)
        res += (g[i] - beta * h[i]) * (g[i] - beta * h[i]);
    if (c->tail != 0.0)
        res += (t - beta) * (t - beta);
    long double d2 = hh * res;   /* ‖g‖²‖h‖² − ⟨g,h⟩² */
    if (c->form == 0)
        return d2;
    long double ab = sqrtl(gg * hh), b = fabsl(gh), d1 = d2 / (ab + b);
    long double D = c->r == 1.0 ? d1 : powl(b, c->r) * expm1l(c->r * log1pl(d1 / b));
    return c->form == 1 ? D : D / (powl(b, c->r) + c->eps);
}

/* On the target set (a = 1.5: exact squares, so the exact families give 0)
 * and 1e-8 from it, where ℓ ~ 1e-11..1e-14 sits far below the rounding of
 * its two terms (the form P − Q would lose every digit): the fused kernel
 * and the library within 1e-6 of the reference, and of each other. */
static void test_fused_near_zero_set(void **state)
{
    (void)state;
    static const zcase cases[] = {
        {"holder", G_SQ, 1, 1, 0, 0, 2},         {"holder r=2", G_SQ, 1, 2, 0, 0, 2},
        {"holder r=0.5", G_SQ, 1, 0.5, 0, 0, 2}, {"holder base=osb", G_OSB, 1, 1, 0, 0, 1},
        {"holder base=ter", G_TER, 1, 1, 0, 0, 3}, {"si", G_SQ, 2, 1, 0, 0, 2},
        {"si base=ter eps=0.1", G_TER, 2, 1, 0.1, 0, 3}, {"l2l1h", G_ABS, 1, 1, 0, 0, 2},
        {"l2l1", G_ABS, 0, 1, 0, 0, 2},          {"fixed alpha=1.5", G_SQ, 0, 1, 0, 1.5, 2},
        {"bbin", G_BBIN, 0, 1, 0, 0, 2},         {"binexp", G_EXP, 0, 1, 0, 0, 2},
    };
    cs_rng rng;
    cs_rng_init(&rng, 23, 3);
    double x[101], noise[101], g[101];
    const size_t n = 101;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const zcase *c = &cases[k];
        cs_reg *a = reg_ok(c->spec), *b = reg_ok(c->spec);
        fill_normal(&rng, noise, n);
        for (size_t i = 0; i < n; i++) {
            double u = noise[i];
            x[i] = c->levels == 1 ? (u > 0 ? 1.5 : 0.0)
                 : c->levels == 3 ? (u > 0.5 ? 1.5 : u < -0.5 ? -1.5 : 0.0)
                                  : (u > 0 ? 1.5 : -1.5);
        }
        double va, vb, gn;
        fused_ok(a, c->spec, x, n, &va, g, &gn);
        vb = eval_ok(b, x, 1, n, g);
        int exact = c->fam != G_BBIN && c->fam != G_EXP;
        if (exact ? (va != 0.0 || vb != 0.0) : (fabs(va) > 1e-26 || fabs(vb) > 1e-26))
            fail_msg("%s on the target set: fused %.17g, library %.17g", c->spec, va, vb);
        fill_normal(&rng, noise, n);
        for (size_t i = 0; i < n; i++)
            x[i] += 1e-8 * noise[i];
        fused_ok(a, c->spec, x, n, &va, g, &gn);
        vb = eval_ok(b, x, 1, n, g);
        double want = (double)ref_value(c, x, n);
        if (!(want > 0.0 && want < 1e-9))
            fail_msg("%s: the reference %.17g is not small and positive", c->spec, want);
        close_to(va, want, 1e-6, 0.0, c->spec, n, (size_t)-1);
        close_to(vb, want, 1e-6, 0.0, c->spec, n, (size_t)-1);
        close_to(va, vb, 1e-6, 0.0, c->spec, n, (size_t)-1);
        cs_reg_free(a);
        cs_reg_free(b);
    }
}

/* ---- defined entries in the CS form (reg_fast_defined.c) ----
 * Polynomial g and h by Horner's rule (h constant or not, degree up to 16),
 * the others by the interpreter (h constant or not). */
static const char *const defd[] = {"fdter", "fdbin", "fdpoly", "fd16", "fdwave", "fdflat",
                                   "fdcos"};
#define NDEFD (sizeof defd / sizeof *defd)

static void define_fd(void)
{
    define_ok("fdter", "x", "x^3");
    define_ok("fdbin", "x^2", "1");
    define_ok("fdpoly", "x*(x^2 - 1)", "x^2 + 0.5");
    define_ok("fd16", "(x^2 + 1)^8/1000", "x");
    define_ok("fdwave", "exp(-x^2) + 0.1*sin(3*x)", "1 + x^2/4");
    define_ok("fdflat", "exp(-x^2)", "2");
    define_ok("fdcos", "cos(x)", "x");
}

/* The library's value and gradient to 1e-12; the norm is that of the
 * kernel's own gradient in the stepper's order; the value alone is the
 * same bits. */
static void test_fused_defined(void **state)
{
    (void)state;
    define_fd();
    cs_rng rng;
    cs_rng_init(&rng, 24, 3);
    double x[203], ga[203], gb[203];
    for (size_t k = 0; k < NDEFD; k++) {
        cs_reg *a = reg_ok(defd[k]), *b = reg_ok(defd[k]);
        if (!cs_reg_fast_has(a))
            fail_msg("%s has no fused kernel", defd[k]);
        for (size_t n = 2; n <= 203; n += (n < 20 ? 1 : 23)) {   /* n = 1: ℓ = 0 */
            fill_normal(&rng, x, n);
            double va, vb, gn;
            fused_ok(a, defd[k], x, n, &va, ga, &gn);
            vb = eval_ok(b, x, 1, n, gb);
            close_to(va, vb, 1e-12, 0.0, defd[k], n, (size_t)-1);
            double gmax = maxabs(gb, n);
            for (size_t i = 0; i < n; i++)
                close_to(ga[i], gb[i], 1e-12, gmax, defd[k], n, i);
            check_norm_value(a, defd[k], x, n, ga, va, gn);
        }
        cs_reg_free(a);
        cs_reg_free(b);
    }
}

/* The gradient against central differences of the kernel's own value. */
static void test_fused_defined_fd(void **state)
{
    (void)state;
    define_fd();
    cs_rng rng;
    cs_rng_init(&rng, 25, 3);
    double x[13], g[13];
    const size_t n = 13;
    for (size_t k = 0; k < NDEFD; k++) {
        cs_reg *r = reg_ok(defd[k]);
        fill_normal(&rng, x, n);
        double v, gn;
        fused_ok(r, defd[k], x, n, &v, g, &gn);
        double gmax = maxabs(g, n);
        for (size_t i = 0; i < n; i++) {
            double h = 1e-6 * fmax(1.0, fabs(x[i])), xi = x[i], vp, vm;
            x[i] = xi + h;
            fused_ok(r, defd[k], x, n, &vp, NULL, NULL);
            x[i] = xi - h;
            fused_ok(r, defd[k], x, n, &vm, NULL, NULL);
            x[i] = xi;
            double fd = (vp - vm) / (2.0 * h);
            if (fabs(fd - g[i]) > 1e-6 * (gmax + fabs(v)))
                fail_msg("%s entry %zu: gradient %.12g, central difference %.12g", defd[k], i,
                         g[i], fd);
        }
        cs_reg_free(r);
    }
}

/* On the target set ℓ and ∇ℓ are exactly 0 (the levels ±1.5, 0 and their
 * powers are exact, and so are the sums); NaN, and overflow to Inf, are
 * reported. */
static void test_fused_defined_edges(void **state)
{
    (void)state;
    define_fd();
    cs_rng rng;
    cs_rng_init(&rng, 26, 3);
    double x[101], g[101], u[101], v, gn;
    fill_normal(&rng, u, 101);
    for (int ter = 0; ter < 2; ter++) {
        const char *spec = ter ? "fdter" : "fdbin";
        for (size_t i = 0; i < 101; i++)
            x[i] = u[i] > 0.5 ? 1.5 : (u[i] < -0.5 || !ter) ? -1.5 : 0.0;
        cs_reg *r = reg_ok(spec);
        fused_ok(r, spec, x, 101, &v, g, &gn);
        if (v != 0.0 || gn != 0.0 || maxabs(g, 101) != 0.0)
            fail_msg("%s on the target set: value %.17g, gradient norm %.17g", spec, v, gn);
        cs_reg_free(r);
    }
    double bad[9] = {1, 2, NAN, 3, 4, 5, 6, 7, 8}, huge[5] = {1, 2, 1e200, 3, 4};
    for (size_t k = 0; k < NDEFD; k++) {
        cs_reg *r = reg_ok(defd[k]);
        assert_int_equal(cs_reg_fast_eval(r, bad, 9, &v, g, &gn), CS_ENONFINITE);
        assert_int_equal(cs_reg_fast_eval(r, bad, 9, &v, NULL, NULL), CS_ENONFINITE);
        cs_reg_free(r);
    }
    cs_reg *r = reg_ok("fdter");   /* h = x^3 overflows */
    assert_int_equal(cs_reg_fast_eval(r, huge, 5, &v, g, &gn), CS_ENONFINITE);
    cs_reg_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_method),
        cmocka_unit_test(test_near_zero_set),
        cmocka_unit_test(test_nonfinite),
        cmocka_unit_test(test_fused_bits),
        cmocka_unit_test(test_fused_library),
        cmocka_unit_test(test_fused_pick),
        cmocka_unit_test(test_fused_nonfinite),
        cmocka_unit_test(test_fused_near_zero_set),
        cmocka_unit_test(test_fused_defined),
        cmocka_unit_test(test_fused_defined_fd),
        cmocka_unit_test(test_fused_defined_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
