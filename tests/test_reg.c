/* test_reg.c — the regularizer library against independent computations:
 * naive long-double implementations of every formula (written here from
 * the paper, not from the engine), hand-computed values, central finite
 * differences of the naive formulas, target sets built from the paper's
 * characterizations, LAPACK (singular values, eigenvectors), and error
 * handling. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_reg.h"
#include "cs_rng.h"

typedef long double ld;

#define MAXN 4096
#define NPOINTS 20
#define CN 5    /* dimension of x for the regularizers with a matrix C */
#define CM 7    /* rows of the tall C of ns */

/* ------------------------------------------------------------------ helpers */

/* Create an instance from "name key=value key=value ...". */
static int reg_from(cs_reg **out, const char *spec, uint64_t seed, cs_err *err)
{
    static char buf[1 << 16];
    cs_param params[16];
    size_t np = 0;
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    char *name = strtok_r(buf, " ", &save);
    for (char *tok; (tok = strtok_r(NULL, " ", &save)) && np < 16;) {
        char *eq = strchr(tok, '=');
        assert_non_null(eq);
        *eq = '\0';
        params[np].key = tok;
        params[np].text = eq + 1;
        np++;
    }
    return cs_reg_new(out, name, params, np, seed, err);
}

static cs_reg *reg_ok(const char *spec)
{
    cs_reg *reg = NULL;
    cs_err err = {0};
    int rc = reg_from(&reg, spec, 42, &err);
    if (rc)
        fail_msg("cs_reg_new(%s): %s", spec, err.msg);
    return reg;
}

/* Expect creation to fail with `code` and a message containing `needle`. */
static void reg_fails(const char *spec, int code, const char *needle)
{
    cs_reg *reg = NULL;
    cs_err err = {0};
    int rc = reg_from(&reg, spec, 42, &err);
    if (rc == CS_OK) {
        cs_reg_free(reg);
        fail_msg("'%s' was accepted", spec);
    }
    assert_int_equal(rc, code);
    assert_null(reg);
    if (needle && !strstr(err.msg, needle))
        fail_msg("'%s': message '%s' lacks '%s'", spec, err.msg, needle);
}

static double eval_ok(cs_reg *reg, const double *x, size_t rows, size_t cols, double *grad)
{
    double v = NAN;
    cs_err err = {0};
    int rc = cs_reg_eval(reg, x, rows, cols, &v, grad, &err);
    if (rc)
        fail_msg("eval: %s", err.msg);
    return v;
}

static void eval_fails(cs_reg *reg, const double *x, size_t rows, size_t cols, int code,
                       const char *needle)
{
    double v, g[64];
    cs_err err = {0};
    int rc = cs_reg_eval(reg, x, rows, cols, &v, rows * cols <= 64 ? g : NULL, &err);
    if (rc == CS_OK)
        fail_msg("eval succeeded with value %g", v);
    assert_int_equal(rc, code);
    if (needle && !strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

static void assert_close(double got, double want, double tol_abs, const char *what)
{
    if (!(fabs(got - want) <= tol_abs))
        fail_msg("%s: got %.17g, want %.17g (|diff| %.3g > %.3g)", what, got, want,
                 fabs(got - want), tol_abs);
}

static void assert_vec_close(const double *got, const double *want, size_t n, double tol,
                             const char *what)
{
    for (size_t i = 0; i < n; i++) {
        char buf[96];
        snprintf(buf, sizeof buf, "%s[%zu]", what, i);
        assert_close(got[i], want[i], tol * (1.0 + fabs(want[i])), buf);
    }
}

static double maxabs(const double *x, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

static void fill_normal(cs_rng *rng, double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = cs_rng_normal(rng);
}

/* ---------------------------------------------------------- the test cases */

enum { B_BIN, B_OSB, B_TER };
static const char *base_names[] = {"bin", "osb", "ter"};

/* One regularizer with its parameters; the naive formula reads the fields,
 * the engine gets them as text (case_spec). */
typedef struct tcase {
    const char *name;
    double p, q, r, eps;
    int base;
    double alpha, beta;
    int learn, B;
    size_t rows, cols; /* om: the shape of X */
} tcase;

/* Shared matrices for eig, mu (CN×CN) and ns (CM×CN), drawn once. */
static double C_sq[CN * CN], C_tall[CM * CN];
static char C_sq_text[4096], C_tall_text[4096];

static void matrix_text(const double *C, size_t m, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            used += (size_t)snprintf(buf + used, len - used, "%.17g%s", C[i * n + j],
                                     j + 1 < n ? "," : (i + 1 < m ? ";" : ""));
}

static int is(const tcase *c, const char *name) { return strcmp(c->name, name) == 0; }

static size_t case_extra(const tcase *c) { return (is(c, "beta") && c->learn) || is(c, "mu"); }

static void case_spec(const tcase *c, char *buf, size_t len)
{
    if (is(c, "holder"))
        snprintf(buf, len, "holder p=%.17g q=%.17g r=%.17g base=%s", c->p, c->q, c->r,
                 base_names[c->base]);
    else if (is(c, "si"))
        snprintf(buf, len, "si p=%.17g q=%.17g r=%.17g base=%s eps=%.17g", c->p, c->q, c->r,
                 base_names[c->base], c->eps);
    else if (is(c, "fixed"))
        snprintf(buf, len, "fixed alpha=%.17g", c->alpha);
    else if (is(c, "beta") && c->learn)
        snprintf(buf, len, "beta beta=learn");
    else if (is(c, "beta"))
        snprintf(buf, len, "beta beta=%.17g", c->beta);
    else if (is(c, "equ"))
        snprintf(buf, len, "equ B=%d", c->B);
    else if (is(c, "eig") || is(c, "mu"))
        snprintf(buf, len, "%s C=%s", c->name, C_sq_text);
    else if (is(c, "ns"))
        snprintf(buf, len, "ns C=%s", C_tall_text);
    else
        snprintf(buf, len, "%s", c->name);
}

static cs_reg *case_reg(const tcase *c)
{
    static char spec[1 << 15];
    case_spec(c, spec, sizeof spec);
    return reg_ok(spec);
}

#define HOLDER(P, Q, R, BASE) {.name = "holder", .p = P, .q = Q, .r = R, .base = BASE}
#define SI(P, Q, R, BASE, EPS) {.name = "si", .p = P, .q = Q, .r = R, .base = BASE, .eps = EPS}

static const tcase cases[] = {
    {.name = "bin"},
    {.name = "osb"},
    {.name = "ter"},
    {.name = "bbin"},
    {.name = "binexp"},
    {.name = "l2l1"},
    {.name = "l2l1h"},
    {.name = "linf"},
    {.name = "l1"},
    {.name = "fixed", .alpha = 1.0},
    {.name = "fixed", .alpha = 0.7},
    {.name = "beta", .beta = 1.0},
    {.name = "beta", .beta = 2.5},
    {.name = "beta", .learn = 1},
    {.name = "equ", .B = 1},
    {.name = "equ", .B = 2},
    {.name = "equ", .B = 3},
    {.name = "eig"},
    {.name = "mu"},
    {.name = "ns"},
    {.name = "om", .rows = 6, .cols = 3},
    {.name = "om", .rows = 3, .cols = 5},
    {.name = "om", .rows = 4, .cols = 4},
    HOLDER(2, 2, 1, B_BIN),
    HOLDER(2, 2, 1, B_OSB),
    HOLDER(2, 2, 1, B_TER),
    HOLDER(2, 2, 2, B_BIN),
    HOLDER(2, 2, 0.5, B_OSB),
    HOLDER(3, 1.5, 2, B_BIN),
    HOLDER(3, 1.5, 2, B_OSB),
    HOLDER(1.5, 3, 0.7, B_TER),
    HOLDER(4, 4.0 / 3.0, 1, B_BIN),
    SI(2, 2, 1, B_BIN, 0),
    SI(2, 2, 1, B_OSB, 0.1),
    SI(3, 1.5, 2, B_TER, 0),
    SI(1.5, 3, 0.5, B_BIN, 2),
    SI(2, 2, 2, B_TER, 0),
};
#define NCASES (sizeof cases / sizeof cases[0])

/* ----------------------------------------------------- naive formulas (ld) */

/* ‖g‖²‖h‖² − ⟨g,h⟩², the textbook form; *terms = ‖g‖²‖h‖². */
static ld cs_form(const ld *g, const ld *h, size_t m, ld *terms)
{
    ld gg = 0, hh = 0, gh = 0;
    for (size_t i = 0; i < m; i++) {
        gg += g[i] * g[i];
        hh += h[i] * h[i];
        gh += g[i] * h[i];
    }
    *terms = gg * hh;
    return gg * hh - gh * gh;
}

static void base_gh(int base, ld v, ld *g, ld *h)
{
    *g = base == B_TER ? v * v * v : v * v;
    *h = base == B_BIN ? 1.0L : v;
}

static ld pnorm(const ld *v, size_t n, ld p)
{
    ld s = 0;
    for (size_t i = 0; i < n; i++)
        s += powl(fabsl(v[i]), p);
    return powl(s, 1.0L / p);
}

static ld naive_holder(const tcase *c, const ld *x, size_t n, ld *P, ld *Q)
{
    static ld g[MAXN], h[MAXN];
    ld dot = 0;
    for (size_t i = 0; i < n; i++) {
        base_gh(c->base, x[i], &g[i], &h[i]);
        dot += g[i] * h[i];
    }
    *P = powl(pnorm(g, n, c->p) * pnorm(h, n, c->q), c->r);
    *Q = powl(fabsl(dot), c->r);
    return *P - *Q;
}

static void matvec_ld(const double *C, size_t m, size_t n, const ld *x, ld *y)
{
    for (size_t i = 0; i < m; i++) {
        y[i] = 0;
        for (size_t j = 0; j < n; j++)
            y[i] += (ld)C[i * n + j] * x[j];
    }
}

static ld sumsq(const ld *v, size_t n)
{
    ld s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i] * v[i];
    return s;
}

static ld naive_om(const ld *X, size_t N, size_t K, ld *terms)
{
    ld gg = 0, F = 0;
    for (size_t a = 0; a < K; a++)
        for (size_t b = 0; b < K; b++) {
            ld s = 0;
            for (size_t i = 0; i < N; i++)
                s += X[i * K + a] * X[i * K + b];
            gg += s * s;
        }
    F = sumsq(X, N * K);
    *terms = (ld)K * gg;
    return (ld)K * gg - F * F;
}

/* The value of case c at x (len entries); *terms is the magnitude of the
 * terms whose difference the formula takes, the scale for tolerances. */
static ld naive(const tcase *c, const ld *x, size_t len, ld *terms)
{
    static ld g[MAXN + 1], h[MAXN + 1];
    size_t n = len;
    if (is(c, "bin") || is(c, "osb") || is(c, "ter")) {
        int base = is(c, "bin") ? B_BIN : is(c, "osb") ? B_OSB : B_TER;
        for (size_t i = 0; i < n; i++)
            base_gh(base, x[i], &g[i], &h[i]);
        return cs_form(g, h, n, terms);
    }
    if (is(c, "bbin") || is(c, "binexp") || is(c, "l2l1")) {
        for (size_t i = 0; i < n; i++) {
            g[i] = is(c, "bbin") ? 1.0L / (1.0L + x[i] * x[i])
                   : is(c, "binexp") ? expl(-x[i] * x[i]) : fabsl(x[i]);
            h[i] = 1.0L;
        }
        return cs_form(g, h, n, terms);
    }
    if (is(c, "fixed")) {
        for (size_t i = 0; i < n; i++)
            g[i] = x[i] * x[i], h[i] = 1.0L;
        g[n] = (ld)c->alpha * c->alpha, h[n] = 1.0L;
        return cs_form(g, h, n + 1, terms);
    }
    if (is(c, "equ")) {
        size_t N = n / (size_t)c->B;
        for (size_t i = 0; i < n; i++)
            g[i] = x[i] * x[i], h[i] = powl(4.0L, (ld)(i / N));
        return cs_form(g, h, n, terms);
    }
    if (is(c, "eig")) {
        matvec_ld(C_sq, CN, CN, x, g);
        return cs_form(g, x, CN, terms);
    }
    if (is(c, "mu")) {
        matvec_ld(C_sq, CN, CN, x, g);
        ld m = x[CN], cx = sqrtl(sumsq(g, CN)), nx = sqrtl(sumsq(x, CN));
        for (size_t i = 0; i < CN; i++)
            g[i] -= m * x[i];
        *terms = (cx + fabsl(m) * nx) * (cx + fabsl(m) * nx);
        return sumsq(g, CN);
    }
    if (is(c, "ns")) {
        matvec_ld(C_tall, CM, CN, x, g);
        ld t = sumsq(x, CN);
        *terms = sumsq(g, CM) + t * t + 1.0L;
        return sumsq(g, CM) + (t - 1.0L) * (t - 1.0L);
    }
    if (is(c, "om"))
        return naive_om(x, c->rows, c->cols, terms);
    if (is(c, "beta")) {
        ld b = c->learn ? x[--n] : (ld)c->beta, v = 0;
        *terms = 0;
        for (size_t i = 0; i < n; i++) {
            v += (x[i] * x[i] - b) * (x[i] * x[i] - b);
            *terms += x[i] * x[i] * x[i] * x[i] + b * b;
        }
        return v;
    }
    if (is(c, "linf") || is(c, "l1")) {
        ld v = 0;
        for (size_t i = 0; i < n; i++)
            v = is(c, "l1") ? v + fabsl(x[i]) : fmaxl(v, fabsl(x[i]));
        *terms = v;
        return v;
    }
    if (is(c, "l2l1h")) {
        ld s1 = 0;
        for (size_t i = 0; i < n; i++)
            s1 += fabsl(x[i]);
        *terms = sqrtl((ld)n) * sqrtl(sumsq(x, n));
        return *terms - s1;
    }
    if (is(c, "holder")) {
        ld P, Q, v = naive_holder(c, x, n, &P, &Q);
        *terms = P;
        return v;
    }
    if (is(c, "si")) {
        ld P, Q;
        naive_holder(c, x, n, &P, &Q);
        *terms = (P + c->eps) / (Q + c->eps);
        return *terms - 1.0L;
    }
    fail_msg("no naive formula for %s", c->name);
    return 0;
}

static ld naive_d(const tcase *c, const double *x, size_t len, ld *terms)
{
    static ld xl[MAXN + 1];
    for (size_t i = 0; i < len; i++)
        xl[i] = x[i];
    return naive(c, xl, len, terms);
}

/* A random argument for case c: returns its length; rows×cols its shape. */
static size_t rand_point(cs_rng *rng, const tcase *c, double *x, size_t *rows, size_t *cols)
{
    size_t len;
    if (is(c, "om")) {
        *rows = c->rows;
        *cols = c->cols;
        len = c->rows * c->cols;
    } else {
        size_t n = (is(c, "eig") || is(c, "mu") || is(c, "ns")) ? CN : 2 + cs_rng_below(rng, 11);
        if (is(c, "equ"))
            n *= (size_t)c->B;
        len = n + case_extra(c);
        /* both orientations of a vector are accepted */
        *rows = cs_rng_below(rng, 2) ? len : 1;
        *cols = len / *rows;
    }
    fill_normal(rng, x, len);
    return len;
}

/* Central differences of the naive formula, Richardson-extrapolated
 * (error O(h⁴)), in long double. */
static ld fd_naive(const tcase *c, const double *x, size_t len, size_t i, ld h)
{
    static ld xl[MAXN + 1];
    ld d[2], t;
    for (int k = 0; k < 2; k++) {
        ld hk = k ? h / 2 : h;
        for (size_t j = 0; j < len; j++)
            xl[j] = x[j];
        xl[i] = (ld)x[i] + hk;
        ld fp = naive(c, xl, len, &t);
        xl[i] = (ld)x[i] - hk;
        ld fm = naive(c, xl, len, &t);
        d[k] = (fp - fm) / (2 * hk);
    }
    return (4 * d[1] - d[0]) / 3;
}

/* The same on the engine's own value (double). */
static double fd_engine(cs_reg *reg, const double *x, size_t rows, size_t cols, size_t i,
                        double h)
{
    static double xd[MAXN + 1];
    double d[2];
    size_t len = rows * cols;
    for (int k = 0; k < 2; k++) {
        double hk = k ? h / 2 : h;
        memcpy(xd, x, len * sizeof *xd);
        xd[i] = x[i] + hk;
        double fp = eval_ok(reg, xd, rows, cols, NULL);
        xd[i] = x[i] - hk;
        double fm = eval_ok(reg, xd, rows, cols, NULL);
        d[k] = (fp - fm) / (2 * hk);
    }
    return (4 * d[1] - d[0]) / 3;
}

/* ------------------------------------------------ properties, per case */

static const tcase *case_of(void **state) { return (const tcase *)*state; }

static uint64_t case_seed(const tcase *c) { return (uint64_t)(c - cases) + 1000; }

/* Engine value equals the naive formula to 1e-9 of the terms' magnitude. */
static void test_matches_naive(void **state)
{
    const tcase *c = case_of(state);
    cs_reg *reg = case_reg(c);
    cs_rng rng;
    cs_rng_init(&rng, case_seed(c), 1);
    double x[64], grad[64];
    for (int k = 0; k < 50; k++) {
        size_t rows, cols, len = rand_point(&rng, c, x, &rows, &cols);
        ld terms, want = naive_d(c, x, len, &terms);
        double got = eval_ok(reg, x, rows, cols, grad);
        double got_nograd = eval_ok(reg, x, rows, cols, NULL);
        assert_close(got, (double)want, 1e-9 * (double)terms, c->name);
        assert_true(got == got_nograd);
    }
    cs_reg_free(reg);
}

/* Gradient against central differences of the naive formula and of the
 * engine's value, at 20 random points. */
static void test_gradient_fd(void **state)
{
    const tcase *c = case_of(state);
    cs_reg *reg = case_reg(c);
    cs_rng rng;
    cs_rng_init(&rng, case_seed(c), 2);
    double x[64], grad[64];
    for (int k = 0; k < NPOINTS; k++) {
        size_t rows, cols, len = rand_point(&rng, c, x, &rows, &cols);
        ld terms;
        naive_d(c, x, len, &terms);
        eval_ok(reg, x, rows, cols, grad);
        double xm = maxabs(x, len), worst = 0.0, scale = (double)terms / xm;
        for (size_t i = 0; i < len; i++) {
            double h = fmax(1e-3 * fabs(x[i]), 1e-6 * xm);
            double dn = (double)fd_naive(c, x, len, i, h);
            double de = fd_engine(reg, x, rows, cols, i, h);
            scale = fmax(scale, fabs(dn));
            worst = fmax(worst, fmax(fabs(grad[i] - dn), fabs(grad[i] - de)));
        }
        if (!(worst <= 1e-6 * scale))
            fail_msg("%s point %d: gradient off by %.3g (scale %.3g)", c->name, k, worst,
                     scale);
    }
    cs_reg_free(reg);
}

/* Random points are off every target set: value > 0. */
static void test_positive_off_target(void **state)
{
    const tcase *c = case_of(state);
    cs_reg *reg = case_reg(c);
    cs_rng rng;
    cs_rng_init(&rng, case_seed(c), 3);
    double x[64];
    for (int k = 0; k < 30; k++) {
        size_t rows, cols, len = rand_point(&rng, c, x, &rows, &cols);
        ld terms;
        naive_d(c, x, len, &terms);
        double v = eval_ok(reg, x, rows, cols, NULL);
        if (!(v > 1e-12 * (double)terms))
            fail_msg("%s: value %g at a random point (terms %g)", c->name, v, (double)terms);
    }
    cs_reg_free(reg);
}

/* Regularizers proven free of spurious stationary points: ∇ℓ ≠ 0 off the
 * target set (registered only for those cases). */
static void test_nonzero_gradient(void **state)
{
    const tcase *c = case_of(state);
    cs_reg *reg = case_reg(c);
    assert_true(cs_reg_get_info(reg)->spurious_free);
    cs_rng rng;
    cs_rng_init(&rng, case_seed(c), 4);
    double x[64], grad[64];
    for (int k = 0; k < NPOINTS; k++) {
        size_t rows, cols, len = rand_point(&rng, c, x, &rows, &cols);
        ld terms;
        naive_d(c, x, len, &terms);
        eval_ok(reg, x, rows, cols, grad);
        double gm = maxabs(grad, len);
        if (!(gm > 1e-6 * (double)terms / maxabs(x, len)))
            fail_msg("%s: |grad| = %g at a random point", c->name, gm);
    }
    cs_reg_free(reg);
}

/* |x| around 1e30 and 1e-30: finite, and the naive value (long double has
 * the range) to 1e-9. */
static void test_extreme_scale(void **state)
{
    const tcase *c = case_of(state);
    cs_reg *reg = case_reg(c);
    cs_rng rng;
    cs_rng_init(&rng, case_seed(c), 5);
    double x[64], grad[64];
    const double scales[] = {1e30, 3.7e-30};
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < 5; k++) {
            size_t rows, cols, len = rand_point(&rng, c, x, &rows, &cols);
            for (size_t i = 0; i < len - case_extra(c); i++)
                x[i] *= scales[s];
            ld terms, want = naive_d(c, x, len, &terms);
            double got = eval_ok(reg, x, rows, cols, grad);
            assert_true(isfinite(got));
            if (!(fabsl((ld)got - want) <= 1e-9L * terms))
                fail_msg("%s at scale %g: got %.17g want %.17Lg (terms %Lg)", c->name,
                         scales[s], got, want, terms);
        }
    }
    cs_reg_free(reg);
}

/* ----------------------------------------------- hand-computed values */

static void check_hand(const char *spec, const double *x, size_t rows, size_t cols, double want,
                       const double *want_grad)
{
    cs_reg *reg = reg_ok(spec);
    double grad[64];
    double v = eval_ok(reg, x, rows, cols, grad);
    assert_close(v, want, 1e-12 * (1.0 + fabs(want)), spec);
    if (want_grad)
        assert_vec_close(grad, want_grad, rows * cols, 1e-12, spec);
    cs_reg_free(reg);
}

static void test_bin_hand(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3}, g[] = {-44, -16, 156};
    check_hand("bin", x, 3, 1, 98, g);
    check_hand("bin", x, 1, 3, 98, g);
}

static void test_osb_hand(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3}, g[] = {36, -24, 156};
    check_hand("osb", x, 3, 1, 76, g);
}

static void test_ter_hand(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3}, g[] = {888, -408, 4008};
    check_hand("ter", x, 3, 1, 1512, g);
}

static void test_bbin_binexp_hand(void **state)
{
    (void)state;
    const double x[] = {0, 1};
    const double gb[] = {0, 0.5};
    check_hand("bbin", x, 2, 1, 0.25, gb);
    double e = exp(-1.0);
    const double ge[] = {0, 4 * e * (1 - e)};
    check_hand("binexp", x, 2, 1, (1 - e) * (1 - e), ge);
}

static void test_l2l1_hand(void **state)
{
    (void)state;
    const double x[] = {1, -2, 3}, g[] = {-6, 0, 6};
    check_hand("l2l1", x, 3, 1, 6, g);
    const double z[] = {0, 1, -1}, gz[] = {0, 2, -2}; /* sign(0) = 0 */
    check_hand("l2l1", z, 3, 1, 2, gz);
    double nx = sqrt(14.0);
    const double gh[] = {sqrt(3.0) / nx - 1, -2 * sqrt(3.0) / nx + 1, 3 * sqrt(3.0) / nx - 1};
    check_hand("l2l1h", x, 3, 1, sqrt(42.0) - 6, gh);
    const double zero[] = {0, 0}, gzero[] = {0, 0};
    check_hand("l2l1h", zero, 2, 1, 0, gzero);
}

static void test_linf_l1_hand(void **state)
{
    (void)state;
    const double x[] = {1, -3, 3}, g[] = {0, -1, 0};
    check_hand("linf", x, 3, 1, 3, g);
    const double y[] = {1, -2, 0}, gy[] = {1, -1, 0};
    check_hand("l1", y, 3, 1, 3, gy);
}

static void test_fixed_beta_hand(void **state)
{
    (void)state;
    const double x[] = {1, 2}, g[] = {-12, 48};
    check_hand("fixed", x, 2, 1, 18, g);
    check_hand("fixed alpha=-1", x, 2, 1, 18, g);
    const double gb[] = {0, 24};
    check_hand("beta", x, 2, 1, 9, gb);
    const double xl[] = {1, 2, 2}, gl[] = {-4, 16, -2};
    check_hand("beta beta=learn", xl, 3, 1, 5, gl);
}

static void test_eig_hand(void **state)
{
    (void)state;
    const double x[] = {1, 1}, g[] = {72, -8};
    check_hand("eig C=1,2;3,4", x, 2, 1, 16, g);
    const double xm[] = {1, 1, 2}, gm[] = {28, 24, -12};
    check_hand("mu C=1,2;3,4", xm, 3, 1, 26, gm);
    const double xn[] = {1, 0}, gn[] = {70, 88};
    check_hand("ns C=1,2;3,4;5,6", xn, 2, 1, 35, gn);
}

static void test_om_hand(void **state)
{
    (void)state;
    const double X[] = {1, 2, 3, 4, 5, 6};
    const double g[] = {620, 520, 1156, 1392, 1692, 2264};
    check_hand("om", X, 3, 2, 8185, g);
    /* the same data as a 2×3 matrix: K = 3 > N = 2 */
    const double Y[] = {1, 2, 3, 4, 5, 6};
    ld terms;
    tcase c = {.name = "om", .rows = 2, .cols = 3};
    double want = (double)naive_d(&c, Y, 6, &terms);
    check_hand("om", Y, 2, 3, want, NULL);
}

static void test_equ_hand(void **state)
{
    (void)state;
    const double on[] = {1, 2}, zero[] = {0, 0};
    check_hand("equ", on, 2, 1, 0, zero);
    const double y[] = {1, 1}, g[] = {48, -12};
    check_hand("equ", y, 2, 1, 9, g);
    check_hand("equ B=1", y, 2, 1, 0, zero); /* B=1 is bin */
}

static void test_holder_si_hand(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3};
    check_hand("holder", x, 3, 1, sqrt(294.0) - 14, NULL);
    check_hand("si", x, 3, 1, sqrt(294.0) / 14 - 1, NULL);
    const double y[] = {1, 2};
    check_hand("holder p=3 q=1.5 r=2", y, 2, 1, cbrt(67600.0) - 25, NULL);
    check_hand("si p=3 q=1.5 r=2 eps=5", y, 2, 1, (cbrt(67600.0) + 5) / 30 - 1, NULL);
}

/* ------------------------------------------------ cross-checks between entries */

/* holder with p = q = r = 2 is the CS regularizer of its base. */
static void test_holder_r2_is_cs(void **state)
{
    (void)state;
    const char *pairs[][2] = {{"holder r=2", "bin"},
                              {"holder r=2 base=osb", "osb"},
                              {"holder r=2 base=ter", "ter"}};
    cs_rng rng;
    cs_rng_init(&rng, 7, 0);
    for (size_t k = 0; k < 3; k++) {
        cs_reg *a = reg_ok(pairs[k][0]), *b = reg_ok(pairs[k][1]);
        double x[12], ga[12], gb[12];
        for (int t = 0; t < 10; t++) {
            fill_normal(&rng, x, 12);
            double va = eval_ok(a, x, 12, 1, ga), vb = eval_ok(b, x, 12, 1, gb);
            assert_close(va, vb, 1e-12 * vb, pairs[k][0]);
            assert_vec_close(ga, gb, 12, 1e-10 * maxabs(gb, 12), pairs[k][0]);
        }
        cs_reg_free(a);
        cs_reg_free(b);
    }
}

/* si (r = 2, eps = 0) = bin / (Σx²)²; si eps=0 r=1 = holder / Σx². */
static void test_si_is_ratio(void **state)
{
    (void)state;
    cs_reg *si2 = reg_ok("si r=2"), *si1 = reg_ok("si"), *bin = reg_ok("bin"),
           *hol = reg_ok("holder");
    cs_rng rng;
    cs_rng_init(&rng, 8, 0);
    double x[9];
    for (int t = 0; t < 20; t++) {
        fill_normal(&rng, x, 9);
        ld s2 = 0;
        for (int i = 0; i < 9; i++)
            s2 += (ld)x[i] * x[i];
        double b = eval_ok(bin, x, 9, 1, NULL), h = eval_ok(hol, x, 9, 1, NULL);
        assert_close(eval_ok(si2, x, 9, 1, NULL), (double)(b / (s2 * s2)), 1e-12, "si r=2");
        assert_close(eval_ok(si1, x, 9, 1, NULL), (double)(h / s2), 1e-12, "si r=1");
    }
    cs_reg_free(si2);
    cs_reg_free(si1);
    cs_reg_free(bin);
    cs_reg_free(hol);
}

/* l2l1 = N²·Var(|x|) (app. B.4). */
static void test_l2l1_is_variance(void **state)
{
    (void)state;
    cs_reg *reg = reg_ok("l2l1");
    cs_rng rng;
    cs_rng_init(&rng, 9, 0);
    double x[11];
    for (int t = 0; t < 20; t++) {
        fill_normal(&rng, x, 11);
        ld mean = 0, var = 0;
        for (int i = 0; i < 11; i++)
            mean += fabsl((ld)x[i]) / 11;
        for (int i = 0; i < 11; i++)
            var += (fabsl((ld)x[i]) - mean) * (fabsl((ld)x[i]) - mean) / 11;
        assert_close(eval_ok(reg, x, 11, 1, NULL), (double)(121 * var), 1e-12 * 121 * var,
                     "l2l1");
    }
    cs_reg_free(reg);
}

/* om is bin applied to the singular values of X (Regularizer 5), with
 * K − min(N, K) zero singular values when K > N. */
static void test_om_singular_values(void **state)
{
    (void)state;
    cs_reg *reg = reg_ok("om");
    cs_rng rng;
    cs_rng_init(&rng, 10, 0);
    const size_t shapes[][2] = {{8, 3}, {5, 5}, {3, 6}, {10, 1}, {1, 4}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t N = shapes[s][0], K = shapes[s][1], d = N < K ? N : K;
        double X[64], A[64], S[16], superb[16];
        fill_normal(&rng, X, N * K);
        memcpy(A, X, sizeof X);
        lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', (lapack_int)N,
                                         (lapack_int)K, A, (lapack_int)K, S, NULL, 1, NULL, 1,
                                         superb);
        assert_int_equal(info, 0);
        ld s2 = 0, s4 = 0;
        for (size_t k = 0; k < d; k++) {
            s2 += (ld)S[k] * S[k];
            s4 += (ld)S[k] * S[k] * S[k] * S[k];
        }
        ld want = (ld)K * s4 - s2 * s2;
        double got = eval_ok(reg, X, N, K, NULL);
        assert_close(got, (double)want, 1e-12 * (double)((ld)K * s4), "om vs svd");
    }
    cs_reg_free(reg);
}

/* ------------------------------------------------------- target sets */

/* A random scale α (either sign) and a random pattern from `levels`. */
static double rand_alpha(cs_rng *rng)
{
    double a = exp(4.0 * cs_rng_uniform(rng) - 2.0);
    return cs_rng_below(rng, 2) ? a : -a;
}

static void pattern(cs_rng *rng, double *x, size_t n, const double *levels, size_t nl,
                    double alpha)
{
    for (size_t i = 0; i < n; i++)
        x[i] = alpha * levels[cs_rng_below(rng, nl)];
    x[0] = alpha * levels[nl - 1]; /* not all zero */
}

/* value ≤ tol·terms on the target set; > 1e-10·terms one entry off it. */
static void check_target(const tcase *c, const double *x, size_t rows, size_t cols, double tol)
{
    cs_reg *reg = case_reg(c);
    size_t len = rows * cols;
    ld terms;
    naive_d(c, x, len, &terms);
    double v = eval_ok(reg, x, rows, cols, NULL);
    if (!(v >= 0.0 && v <= tol * (double)terms))
        fail_msg("%s: value %.3g on the target set (terms %.3g)", c->name, v, (double)terms);
    double y[64];
    memcpy(y, x, len * sizeof *y);
    /* step off the set by a fair fraction of its scale */
    y[1] = 1.37 * y[1] + 0.3 * maxabs(x, len - case_extra(c));
    naive_d(c, y, len, &terms);
    v = eval_ok(reg, y, rows, cols, NULL);
    if (!(v > 1e-10 * (double)terms))   /* far above the on-set tolerance */
        fail_msg("%s: value %.3g next to the target set (terms %.3g)", c->name, v,
                 (double)terms);
    cs_reg_free(reg);
}

static const double SYM_BIN[] = {-1, 1}, OSB_LV[] = {0, 1}, TER_LV[] = {-1, 0, 1};

/* The residual form keeps relative accuracy on the zero set: far below
 * the 1e-16 that the textbook difference of sums would leave. */
#define TIGHT 1e-24

static void run_targets(const tcase *c, const double *levels, size_t nl, double tol)
{
    cs_rng rng;
    cs_rng_init(&rng, 11, (uint64_t)nl);
    double x[64];
    for (int t = 0; t < 20; t++) {
        size_t n = 2 + cs_rng_below(&rng, 30);
        pattern(&rng, x, n, levels, nl, rand_alpha(&rng));
        check_target(c, x, n, 1, tol);
    }
}

static void test_target_bin(void **state)
{
    (void)state;
    const tcase c = {.name = "bin"};
    run_targets(&c, SYM_BIN, 2, TIGHT);
}

static void test_target_osb(void **state)
{
    (void)state;
    const tcase c = {.name = "osb"};
    run_targets(&c, OSB_LV, 2, TIGHT);
}

static void test_target_ter(void **state)
{
    (void)state;
    const tcase c = {.name = "ter"};
    run_targets(&c, TER_LV, 3, TIGHT);
}

static void test_target_bounded(void **state)
{
    (void)state;
    const tcase b = {.name = "bbin"}, e = {.name = "binexp"};
    run_targets(&b, SYM_BIN, 2, TIGHT);
    run_targets(&e, SYM_BIN, 2, TIGHT);
}

static void test_target_l2l1(void **state)
{
    (void)state;
    const tcase a = {.name = "l2l1"}, b = {.name = "l2l1h"};
    run_targets(&a, SYM_BIN, 2, TIGHT);
    run_targets(&b, SYM_BIN, 2, TIGHT);
}

static void test_target_holder(void **state)
{
    (void)state;
    const double *lv[] = {SYM_BIN, OSB_LV, TER_LV};
    const size_t nl[] = {2, 2, 3};
    for (int base = 0; base < 3; base++) {
        tcase c2 = HOLDER(2, 2, 1, base), c3 = HOLDER(3, 1.5, 2, base),
              c4 = HOLDER(2, 2, 0.5, base);
        run_targets(&c2, lv[base], nl[base], TIGHT); /* residual form */
        run_targets(&c4, lv[base], nl[base], TIGHT);
        run_targets(&c3, lv[base], nl[base], 1e-13); /* P − Q: no residual form */
    }
}

static void test_target_si(void **state)
{
    (void)state;
    const double *lv[] = {SYM_BIN, OSB_LV, TER_LV};
    const size_t nl[] = {2, 2, 3};
    for (int base = 0; base < 3; base++) {
        tcase c0 = SI(2, 2, 1, base, 0), c1 = SI(3, 1.5, 2, base, 0.5);
        run_targets(&c0, lv[base], nl[base], TIGHT);
        run_targets(&c1, lv[base], nl[base], 1e-13);
    }
}

static void test_target_fixed(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 12, 0);
    double x[32];
    for (int t = 0; t < 20; t++) {
        double a = fabs(rand_alpha(&rng));
        tcase c = {.name = "fixed", .alpha = a};
        size_t n = 2 + cs_rng_below(&rng, 20);
        pattern(&rng, x, n, SYM_BIN, 2, a);
        check_target(&c, x, n, 1, TIGHT);
        /* the scale is fixed: ±2α is off the target set */
        for (size_t i = 0; i < n; i++)
            x[i] *= 2.0;
        cs_reg *reg = case_reg(&c);
        assert_true(eval_ok(reg, x, n, 1, NULL) > 0.1 * pow(a, 4));
        cs_reg_free(reg);
    }
}

static void test_target_beta(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 13, 0);
    double x[33];
    for (int t = 0; t < 20; t++) {
        double a = fabs(rand_alpha(&rng));
        size_t n = 2 + cs_rng_below(&rng, 20);
        pattern(&rng, x, n, SYM_BIN, 2, a);
        tcase c = {.name = "beta", .beta = a * a};
        check_target(&c, x, n, 1, 1e-28);
        x[n] = a * a;
        tcase l = {.name = "beta", .learn = 1};
        check_target(&l, x, n + 1, 1, 1e-28);
    }
}

static void test_target_equ(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 14, 0);
    double y[64];
    for (int t = 0; t < 20; t++) {
        int B = 1 + (int)cs_rng_below(&rng, 4);
        size_t N = 1 + cs_rng_below(&rng, 10);
        double a = rand_alpha(&rng);
        for (int b = 0; b < B; b++)
            for (size_t i = 0; i < N; i++)
                y[(size_t)b * N + i] = (cs_rng_below(&rng, 2) ? 1 : -1) * ldexp(a, b);
        tcase c = {.name = "equ", .B = B};
        check_target(&c, y, (size_t)B * N, 1, TIGHT);
        /* the sum of the y_b takes odd multiples of α */
        for (size_t i = 0; i < N; i++) {
            double s = 0;
            for (int b = 0; b < B; b++)
                s += y[(size_t)b * N + i];
            double q = fabs(s / a), k = nearbyint(q);
            assert_true(fabs(q - k) <= 1e-12 * k);
            assert_true(fmod(k, 2.0) == 1.0 && k <= ldexp(1.0, B) - 1);
        }
    }
    /* The paper's set also lists y_b = 0 blocks: those are not zeros of ℓ. */
    cs_reg *reg = reg_ok("equ");
    const double yz[] = {0, 0, 2, -2};
    assert_true(eval_ok(reg, yz, 4, 1, NULL) > 1.0);
    cs_reg_free(reg);
}

/* eig and mu at eigenvectors of a symmetric C (LAPACK dsyev), ns at a unit
 * vector of C's nullspace. */
static void test_target_eig_mu(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 15, 0);
    double A[CN * CN], C[CN * CN], w[CN], x[CN + 1];
    fill_normal(&rng, A, CN * CN);
    for (size_t i = 0; i < CN; i++)
        for (size_t j = 0; j < CN; j++)
            C[i * CN + j] = A[i * CN + j] + A[j * CN + i];
    memcpy(A, C, sizeof C);
    assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', CN, A, CN, w), 0);
    cs_reg *eig = reg_ok("eig C=random"), *mu = reg_ok("mu C=random");
    cs_err err;
    assert_int_equal(cs_reg_set_matrix(eig, C, CN, CN, &err), 0);
    assert_int_equal(cs_reg_set_matrix(mu, C, CN, CN, &err), 0);
    for (size_t k = 0; k < CN; k++) {
        double a = rand_alpha(&rng), nrm = 0;
        for (size_t i = 0; i < CN; i++) {
            x[i] = a * A[i * CN + k];
            nrm += x[i] * x[i];
        }
        double Cn = 0;
        for (size_t i = 0; i < CN * CN; i++)
            Cn += C[i] * C[i];
        double terms = Cn * nrm * nrm; /* ≥ ‖Cx‖²‖x‖² */
        double v = eval_ok(eig, x, CN, 1, NULL);
        if (!(v >= 0 && v <= TIGHT * terms))
            fail_msg("eig at eigenvector %zu: %g (terms %g)", k, v, terms);
        x[CN] = w[k];
        v = eval_ok(mu, x, CN + 1, 1, NULL);
        if (!(v >= 0 && v <= TIGHT * Cn * nrm))
            fail_msg("mu at eigenpair %zu: %g", k, v);
        x[CN] = w[k] + 0.5;
        assert_true(eval_ok(mu, x, CN + 1, 1, NULL) > 0.1 * nrm);
        x[0] += 0.3 * a;
        assert_true(eval_ok(eig, x, CN, 1, NULL) > 1e-6 * terms);
    }
    cs_reg_free(eig);
    cs_reg_free(mu);
}

static void test_target_ns(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 16, 0);
    double C[CM * CN], P[CM * CN], v[CN], nv = 0;
    fill_normal(&rng, C, CM * CN);
    fill_normal(&rng, v, CN);
    for (size_t i = 0; i < CN; i++)
        nv += v[i] * v[i];
    for (size_t i = 0; i < CN; i++)
        v[i] /= sqrt(nv);
    /* P = C(I − vvᵀ): v spans its nullspace */
    for (size_t i = 0; i < CM; i++)
        for (size_t j = 0; j < CN; j++) {
            double s = C[i * CN + j];
            for (size_t k = 0; k < CN; k++)
                s -= C[i * CN + k] * v[k] * v[j];
            P[i * CN + j] = s;
        }
    cs_reg *reg = reg_ok("ns C=random");
    cs_err err;
    assert_int_equal(cs_reg_set_matrix(reg, P, CM, CN, &err), 0);
    assert_true(eval_ok(reg, v, CN, 1, NULL) <= 1e-24);
    double x[CN];
    for (size_t i = 0; i < CN; i++)
        x[i] = 2 * v[i]; /* right direction, wrong norm: (4 − 1)² = 9 */
    assert_close(eval_ok(reg, x, CN, 1, NULL), 9.0, 1e-12, "ns at 2v");
    cs_reg_free(reg);
}

/* X with orthogonal columns of equal norm (Gram–Schmidt in long double). */
static void test_target_om(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 17, 0);
    cs_reg *reg = reg_ok("om");
    for (int t = 0; t < 20; t++) {
        size_t N = 2 + cs_rng_below(&rng, 8), K = 1 + cs_rng_below(&rng, N);
        ld Q[64];
        double X[64];
        for (size_t i = 0; i < N * K; i++)
            Q[i] = cs_rng_normal(&rng);
        for (size_t k = 0; k < K; k++) {
            for (size_t j = 0; j < k; j++) {
                ld d = 0;
                for (size_t i = 0; i < N; i++)
                    d += Q[i * K + k] * Q[i * K + j];
                for (size_t i = 0; i < N; i++)
                    Q[i * K + k] -= d * Q[i * K + j];
            }
            ld nr = 0;
            for (size_t i = 0; i < N; i++)
                nr += Q[i * K + k] * Q[i * K + k];
            for (size_t i = 0; i < N; i++)
                Q[i * K + k] /= sqrtl(nr);
        }
        double a = rand_alpha(&rng);
        for (size_t i = 0; i < N * K; i++)
            X[i] = (double)(a * Q[i]);
        tcase c = {.name = "om", .rows = N, .cols = K};
        if (K >= 2) {
            check_target(&c, X, N, K, TIGHT);
        } else { /* one column is always "orthogonal" */
            assert_true(eval_ok(reg, X, N, K, NULL) == 0.0);
        }
    }
    cs_reg_free(reg);
}

/* ---------------------------------------------------------- homogeneity */

typedef struct homog {
    const char *spec;
    double degree;
} homog;

static void test_homogeneity(void **state)
{
    (void)state;
    const homog hs[] = {{"bin", 4},   {"osb", 6},   {"ter", 8},   {"l2l1", 2},
                        {"l2l1h", 1}, {"linf", 1},  {"l1", 1},    {"equ", 4},
                        {"equ B=3", 4}, {"eig C=random", 4},
                        {"holder", 2}, {"holder base=osb", 3}, {"holder r=1.5 base=ter", 6},
                        {"holder p=3 q=1.5 r=0.7 base=osb", 2.1}, {"si", 0},
                        {"si p=3 q=1.5 r=2 base=ter", 0}};
    cs_rng rng;
    cs_rng_init(&rng, 18, 0);
    const double alphas[] = {0.37, 2.9, -1.7, 0x1p40, 0x1p-40, 1e25, 3e-25};
    for (size_t k = 0; k < sizeof hs / sizeof hs[0]; k++) {
        cs_reg *reg = reg_ok(hs[k].spec);
        double x[12], y[12], gx[12], gy[12];
        fill_normal(&rng, x, 12);
        double v = eval_ok(reg, x, 12, 1, gx);
        for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; a++) {
            double al = alphas[a];
            for (int i = 0; i < 12; i++)
                y[i] = al * x[i];
            double w = eval_ok(reg, y, 12, 1, gy);
            double f = pow(fabs(al), hs[k].degree);
            if (!(fabs(w - f * v) <= 1e-12 * f * v))
                fail_msg("%s: l(%g x) = %.17g, %g^%g l(x) = %.17g", hs[k].spec, al, w, al,
                         hs[k].degree, f * v);
            /* ∇ℓ(αx) = α^(d−1)·sign(α)^d... = α^(d-1) ∇ℓ(x) for even functions */
            double fg = f / al;
            for (int i = 0; i < 12; i++)
                if (!(fabs(gy[i] - fg * gx[i]) <= 1e-11 * fabs(fg) * maxabs(gx, 12)))
                    fail_msg("%s: gradient at %g x, entry %d: %.17g vs %.17g", hs[k].spec, al,
                             i, gy[i], fg * gx[i]);
        }
        cs_reg_free(reg);
    }
}

/* om is homogeneous in the matrix argument as well. */
static void test_homogeneity_om(void **state)
{
    (void)state;
    cs_reg *reg = reg_ok("om");
    cs_rng rng;
    cs_rng_init(&rng, 19, 0);
    double X[12], Y[12];
    fill_normal(&rng, X, 12);
    double v = eval_ok(reg, X, 4, 3, NULL);
    const double alphas[] = {0.5, 3.3, 1e40, 1e-40};
    for (int a = 0; a < 4; a++) {
        for (int i = 0; i < 12; i++)
            Y[i] = alphas[a] * X[i];
        double f = pow(alphas[a], 4);
        assert_close(eval_ok(reg, Y, 4, 3, NULL), f * v, 1e-12 * f * v, "om homogeneity");
    }
    cs_reg_free(reg);
}

/* --------------------------------------------------- range and overflow */

/* Entries of 1e200: the value of a degree-8 regularizer is 1e1600, a clean
 * error; degree-0 and degree-1 ones stay exact. */
static void test_huge_values(void **state)
{
    (void)state;
    double x[] = {1e200, -3e200, 2e200};
    const char *too_big[] = {"ter", "bin", "osb", "holder", "eig C=random", "fixed"};
    for (size_t k = 0; k < sizeof too_big / sizeof too_big[0]; k++) {
        cs_reg *reg = reg_ok(too_big[k]);
        eval_fails(reg, x, 3, 1, CS_ENONFINITE, "not representable");
        cs_reg_free(reg);
    }
    cs_reg *si = reg_ok("si"), *l1 = reg_ok("l1"), *linf = reg_ok("linf");
    const double u[] = {1, -3, 2};
    assert_close(eval_ok(si, x, 3, 1, NULL), eval_ok(si, u, 3, 1, NULL), 1e-15, "si 1e200");
    assert_close(eval_ok(l1, x, 3, 1, NULL), 6e200, 1e186, "l1 1e200");
    assert_close(eval_ok(linf, x, 3, 1, NULL), 3e200, 0, "linf 1e200");
    double big[] = {1e308, 1.5e308};
    eval_fails(l1, big, 2, 1, CS_ENONFINITE, "not representable");
    cs_reg_free(si);
    cs_reg_free(l1);
    cs_reg_free(linf);
}

/* Values with |x| = 1e30 computed by the wrapper's rescaling, checked
 * against exact hand values: bin(1e30·[1,2,3]) = 98e120. */
static void test_1e30_exact(void **state)
{
    (void)state;
    const double x[] = {1e30, 2e30, 3e30};
    cs_reg *bin = reg_ok("bin"), *ter = reg_ok("ter");
    double g[3];
    assert_close(eval_ok(bin, x, 3, 1, g), 98e120, 1e-14 * 98e120, "bin 1e30");
    assert_close(g[2], 156e90, 1e-14 * 156e90, "bin grad 1e30");
    assert_close(eval_ok(ter, x, 3, 1, g), 1512e240, 1e-14 * 1512e240, "ter 1e30");
    assert_close(g[0], 888e210, 1e-14 * 888e210, "ter grad 1e30");
    const double tiny[] = {1e-60, 2e-60, 3e-60};
    assert_close(eval_ok(bin, tiny, 3, 1, g), 98e-240, 1e-14 * 98e-240, "bin 1e-60");
    cs_reg_free(bin);
    cs_reg_free(ter);
}

/* Bounded regularizers stay finite anywhere. */
static void test_bounded_range(void **state)
{
    (void)state;
    cs_reg *b = reg_ok("bbin"), *e = reg_ok("binexp");
    const double x[] = {1e300, -1e-300, 0, 5};
    double g[4];
    double vb = eval_ok(b, x, 4, 1, g), ve = eval_ok(e, x, 4, 1, g);
    assert_true(vb > 0 && vb <= 16 && ve > 0 && ve <= 16);
    cs_reg_free(b);
    cs_reg_free(e);
}

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

/* A long vector: the kernel agrees with the naive formula at N = 4000. */
static void test_large_n(void **state)
{
    (void)state;
    static double x[4000], g[4000];
    cs_rng rng;
    cs_rng_init(&rng, 20, 0);
    fill_normal(&rng, x, 4000);
    const tcase cs[] = {{.name = "bin"}, {.name = "ter"}, HOLDER(3, 1.5, 2, B_OSB),
                        {.name = "equ", .B = 4}};
    for (size_t k = 0; k < 4; k++) {
        cs_reg *reg = case_reg(&cs[k]);
        ld terms, want = naive_d(&cs[k], x, 4000, &terms);
        assert_close(eval_ok(reg, x, 4000, 1, g), (double)want, 1e-9 * (double)terms,
                     cs[k].name);
        cs_reg_free(reg);
    }
}

/* ----------------------------------------------------------------- main */

static int group_setup(void **state)
{
    (void)state;
    cs_rng rng;
    cs_rng_init(&rng, 2024, 0);
    cs_rng_normal_fill(&rng, C_sq, CN * CN);
    cs_rng_normal_fill(&rng, C_tall, CM * CN);
    matrix_text(C_sq, CN, CN, C_sq_text, sizeof C_sq_text);
    matrix_text(C_tall, CM, CN, C_tall_text, sizeof C_tall_text);
    return 0;
}

#define T(f) cmocka_unit_test(f)

static const struct CMUnitTest fixed_tests[] = {
    T(test_bin_hand),          T(test_osb_hand),          T(test_ter_hand),
    T(test_bbin_binexp_hand),  T(test_l2l1_hand),         T(test_linf_l1_hand),
    T(test_fixed_beta_hand),   T(test_eig_hand),          T(test_om_hand),
    T(test_equ_hand),          T(test_holder_si_hand),    T(test_holder_r2_is_cs),
    T(test_si_is_ratio),       T(test_l2l1_is_variance),  T(test_om_singular_values),
    T(test_target_bin),        T(test_target_osb),        T(test_target_ter),
    T(test_target_bounded),    T(test_target_l2l1),       T(test_target_holder),
    T(test_target_si),         T(test_target_fixed),      T(test_target_beta),
    T(test_target_equ),        T(test_target_eig_mu),     T(test_target_ns),
    T(test_target_om),         T(test_homogeneity),       T(test_homogeneity_om),
    T(test_huge_values),       T(test_1e30_exact),        T(test_bounded_range),
    T(test_err_nonfinite),     T(test_err_unknown),       T(test_err_bad_values),
    T(test_err_matrix_params), T(test_err_dimensions),    T(test_err_equ_length),
    T(test_err_si_undefined),  T(test_err_recovery),      T(test_c_random),
    T(test_c_csv),             T(test_table_complete),    T(test_table_flags),
    T(test_describe_and_extra), T(test_large_n),
};

#define NFIXED (sizeof fixed_tests / sizeof fixed_tests[0])
#define NPROPS 5

int main(void)
{
    static struct CMUnitTest tests[NFIXED + NPROPS * NCASES];
    static char names[NPROPS * NCASES][160];
    static const struct {
        const char *what;
        CMUnitTestFunction fn;
    } props[NPROPS] = {{"matches_naive", test_matches_naive},
                       {"gradient_fd", test_gradient_fd},
                       {"positive_off_target", test_positive_off_target},
                       {"nonzero_gradient", test_nonzero_gradient},
                       {"extreme_scale", test_extreme_scale}};
    group_setup(NULL);
    size_t nt = 0;
    for (size_t i = 0; i < NFIXED; i++)
        tests[nt++] = fixed_tests[i];
    for (size_t p = 0; p < NPROPS; p++)
        for (size_t c = 0; c < NCASES; c++) {
            char spec[64];
            const tcase *tc = &cases[c];
            if (props[p].fn == test_nonzero_gradient && !cs_reg_lookup(tc->name)->spurious_free)
                continue;
            if (is(tc, "eig") || is(tc, "mu") || is(tc, "ns"))
                snprintf(spec, sizeof spec, "%s C=%s", tc->name,
                         is(tc, "ns") ? "7x5" : "5x5");
            else if (is(tc, "om"))
                snprintf(spec, sizeof spec, "om %zux%zu", tc->rows, tc->cols);
            else
                case_spec(tc, spec, sizeof spec);
            char *nm = names[p * NCASES + c];
            snprintf(nm, sizeof names[0], "%s/%s", props[p].what, spec);
            tests[nt++] = (struct CMUnitTest){nm, props[p].fn, NULL, NULL, (void *)tc};
        }
    return _cmocka_run_group_tests("reg", tests, nt, NULL, NULL);
}
