/* reg_naive_util.c — see reg_naive_util.h. */
#include "reg_naive_util.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reg_util.h"

static const char *base_names[] = {"bin", "osb", "ter"};

/* Shared matrices for eig, mu (CN×CN) and ns (CM×CN), drawn once. */
double C_sq[CN * CN], C_tall[CM * CN];
char C_sq_text[4096], C_tall_text[4096];

void matrix_text(const double *C, size_t m, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            used += (size_t)snprintf(buf + used, len - used, "%.17g%s", C[i * n + j],
                                     j + 1 < n ? "," : (i + 1 < m ? ";" : ""));
}

int is(const tcase *c, const char *name) { return strcmp(c->name, name) == 0; }

size_t case_extra(const tcase *c) { return (is(c, "beta") && c->learn) || is(c, "mu"); }

void case_spec(const tcase *c, char *buf, size_t len)
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

cs_reg *case_reg(const tcase *c)
{
    static char spec[1 << 15];
    case_spec(c, spec, sizeof spec);
    return reg_ok(spec);
}

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
ld naive(const tcase *c, const ld *x, size_t len, ld *terms)
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

ld naive_d(const tcase *c, const double *x, size_t len, ld *terms)
{
    static ld xl[MAXN + 1];
    for (size_t i = 0; i < len; i++)
        xl[i] = x[i];
    return naive(c, xl, len, terms);
}
