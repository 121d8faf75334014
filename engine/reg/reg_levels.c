/* reg_levels.c — the level structure of elementwise g and h
 * (cs_reg_analyze.h): the zero set of ℓ is {x : g(x) ∥ h(x)}, so every
 * entry x_n lies in one level set {t : g(t)·h(t0) = h(t)·g(t0)} (the ratio
 * g/h of some t0; h = 0 and g = 0 included). The roots are found on a fine
 * grid (sign changes refined by bisection, touching roots by the extrema of
 * the function) for several t0 of both signs; when the sets found, each
 * divided by its root of largest magnitude, agree, the structure is scale
 * free: x ∈ {a·l : l ∈ levels}^N for any scale a. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_reg_analyze.h"

#define GRID 8000        /* intervals over [-window, window] */
#define MAX_ROOTS 64
#define SPAN 8.0         /* roots are searched within SPAN·|t0| */

/* φ(t) = g(t)·h0 − h(t)·g0 and its derivative. */
typedef struct phi {
    const cs_expr *g, *h;
    double g0, h0;
} phi;

static double phi_at(const phi *f, double t, double *dphi)
{
    double dg, dh;
    double g = cs_expr_eval1(f->g, t, &dg), h = cs_expr_eval1(f->h, t, &dh);
    if (dphi)
        *dphi = dg * f->h0 - dh * f->g0;
    return g * f->h0 - h * f->g0;
}

/* A zero of φ (want_d = 0) or of φ' (want_d = 1) in [a, b], whose ends
 * have values of opposite signs. */
static double bisect(const phi *f, double a, double b, int want_d)
{
    double d, fa = want_d ? (phi_at(f, a, &d), d) : phi_at(f, a, NULL);
    for (int it = 0; it < 200 && b - a > 0; it++) {
        double m = 0.5 * (a + b);
        if (m <= a || m >= b)
            break;
        double fm = want_d ? (phi_at(f, m, &d), d) : phi_at(f, m, NULL);
        if (fm == 0.0)
            return m;
        if ((fm < 0) == (fa < 0))
            a = m, fa = fm;
        else
            b = m;
    }
    return 0.5 * (a + b);
}

static void add_root(double *r, size_t *n, double t, double tol)
{
    for (size_t i = 0; i < *n; i++)
        if (fabs(r[i] - t) <= tol)
            return;
    if (*n < MAX_ROOTS)
        r[(*n)++] = t == 0.0 ? 0.0 : t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The roots of φ in [-w, w], ascending; their number (at most MAX_ROOTS).
 * *run: φ is 0 at two neighbouring grid points (an interval of roots). */
static size_t roots_of(const phi *f, double w, double *r, int *run)
{
    size_t n = 0;
    *run = 0;
    double tol = 1e-9 * w, scale = 0.0;
    double prev_t = -w, prev_v, prev_d;
    prev_v = phi_at(f, prev_t, &prev_d);
    static const int half = GRID / 2;
    /* the largest |φ| on the grid: "zero" for a touching root is relative to it */
    for (int i = 0; i <= GRID; i++) {
        double v = fabs(phi_at(f, (double)(i - half) / half * w, NULL));
        if (isfinite(v) && v > scale)
            scale = v;
    }
    for (int i = 0; i <= GRID; i++) {
        double t = (double)(i - half) / half * w, d, v = phi_at(f, t, &d);
        if (v == 0.0 || ((i == 0 || i == GRID) && fabs(v) <= 1e-12 * scale)) {
            *run |= i > 0 && prev_v == 0.0 && v == 0.0;
            add_root(r, &n, t, tol);
        } else if (i > 0 && isfinite(v) && isfinite(prev_v) && prev_v != 0.0 &&
                   (v < 0) != (prev_v < 0)) {
            double z = bisect(f, prev_t, t, 0), fz = fabs(phi_at(f, z, NULL));
            /* a sign change through a pole is no root */
            if (fz <= 1e-8 * fmax(fabs(v), fabs(prev_v)))
                add_root(r, &n, z, tol);
        } else if (i > 0 && isfinite(d) && isfinite(prev_d) && (d < 0) != (prev_d < 0) &&
                   d != 0.0 && prev_d != 0.0) {
            /* an extremum of φ: a root when φ touches 0 there */
            double z = bisect(f, prev_t, t, 1), fz = fabs(phi_at(f, z, NULL));
            if (fz <= 1e-12 * scale)
                add_root(r, &n, z, tol);
        }
        prev_t = t, prev_v = v, prev_d = d;
    }
    qsort(r, n, sizeof *r, cmp_double);
    return n;
}

/* Divide by the root of largest magnitude (the positive one on a tie). */
static void normalize(double *r, size_t n)
{
    double big = 0.0;
    for (size_t i = 0; i < n; i++)
        if (fabs(r[i]) > fabs(big) || (fabs(r[i]) == fabs(big) && r[i] > big))
            big = r[i];
    if (big == 0.0)
        return;
    for (size_t i = 0; i < n; i++) {
        double v = r[i] / big;
        r[i] = fabs(v) < 1e-9 ? 0.0 : v;
    }
    qsort(r, n, sizeof *r, cmp_double);
}

static int same_set(const double *a, size_t na, const double *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (fabs(a[i] - b[i]) > 1e-6)
            return 0;
    return 1;
}

/* φ for the level set of t0: g0 and h0 divided by the larger of their
 * magnitudes (the same roots; g·h0 of huge g and h, 1e200*x against
 * 1e200*x^2, would overflow). 0 when t0 gives no level set. */
static int phi_at_t0(phi *f, const cs_expr *g, const cs_expr *h, double t0)
{
    *f = (phi){g, h, cs_expr_eval1(g, t0, NULL), cs_expr_eval1(h, t0, NULL)};
    if (!isfinite(f->g0) || !isfinite(f->h0) || (f->g0 == 0.0 && f->h0 == 0.0))
        return 0;
    double s = fmax(fabs(f->g0), fabs(f->h0));
    f->g0 /= s;
    f->h0 /= s;
    return 1;
}

int cs_reg_levels_of(const cs_expr *g, const cs_expr *h, cs_reg_levels *out)
{
    static const double t0s[] = {1.0, -1.0, 0.37, -0.37, 0.73, -0.73, 1.61, -1.61, 2.3, -2.3};
    memset(out, 0, sizeof *out);
    double first[MAX_ROOTS];
    size_t nfirst = 0;
    int have = 0, scale_free = 1;
    for (size_t k = 0; k < sizeof t0s / sizeof t0s[0]; k++) {
        phi f;
        if (!phi_at_t0(&f, g, h, t0s[k]))
            continue;
        double r[MAX_ROOTS];
        int run;
        size_t n = roots_of(&f, SPAN * fabs(t0s[k]), r, &run);
        if (run) {   /* a level set with intervals: no discrete levels */
            out->found = out->intervals = 1;
            out->t0 = t0s[k];
            out->window = SPAN * fabs(t0s[k]);
            return CS_OK;
        }
        if (n == 0)
            continue;
        normalize(r, n);
        if (!have) {
            memcpy(first, r, n * sizeof *r);
            nfirst = n;
            have = 1;
        } else if (!same_set(first, nfirst, r, n)) {
            scale_free = 0;
            break;
        }
    }
    if (!have)
        return CS_ENOTFOUND;
    out->found = 1;
    out->scale_free = scale_free;
    if (scale_free) {
        out->nlevels = nfirst < CS_LEVELS_MAX ? nfirst : CS_LEVELS_MAX;
        memcpy(out->levels, first, out->nlevels * sizeof *first);
        return CS_OK;
    }
    /* an example: the level set of t0 = 1 (or the first usable one) in [-4, 4] */
    out->window = 4.0;
    for (size_t k = 0; k < sizeof t0s / sizeof t0s[0]; k++) {
        phi f;
        if (!phi_at_t0(&f, g, h, t0s[k]))
            continue;
        double r[MAX_ROOTS];
        int run;
        size_t n = roots_of(&f, out->window, r, &run);
        out->t0 = t0s[k];
        for (size_t i = 0; i < n; i++)
            r[i] = fabs(r[i]) < 1e-9 * out->window ? 0.0 : r[i];
        out->nlevels = n < CS_LEVELS_MAX ? n : CS_LEVELS_MAX;
        out->more = n - out->nlevels;
        memcpy(out->levels, r, out->nlevels * sizeof *r);
        break;
    }
    return CS_OK;
}

/* "{-a,0,+a}^N for any a", levels as multiples of a. */
void cs_reg_levels_text(const cs_reg_levels *lv, char *buf, size_t len)
{
    if (!lv->found) {
        snprintf(buf, len, "g(x) parallel to h(x)");
        return;
    }
    if (lv->intervals) {
        snprintf(buf, len, "x_n all in one level set {t : g(t) = c*h(t)}; c = g(%g)/h(%g) "
                 "gives a set with intervals (not discrete levels)", lv->t0, lv->t0);
        return;
    }
    size_t used = (size_t)snprintf(buf, len, "{");
    for (size_t i = 0; i < lv->nlevels && used < len; i++) {
        double l = lv->levels[i];
        const char *sep = i ? "," : "";
        if (!lv->scale_free)
            used += (size_t)snprintf(buf + used, len - used, "%s%.6g", sep, l);
        else if (l == 0.0)
            used += (size_t)snprintf(buf + used, len - used, "%s0", sep);
        else if (fabs(l) == 1.0)
            used += (size_t)snprintf(buf + used, len - used, "%s%ca", sep, l > 0 ? '+' : '-');
        else
            used += (size_t)snprintf(buf + used, len - used, "%s%+.6ga", sep, l);
    }
    if (used >= len)
        return;
    if (lv->scale_free) {
        snprintf(buf + used, len - used, "}^N for any a");
        return;
    }
    /* not scale free: say what the example set is */
    char set[400];
    snprintf(set, sizeof set, "%s%s}", buf, lv->more ? ",..." : "");
    snprintf(buf, len, "x_n all in one level set {t : g(t) = c*h(t)}; c = g(%g)/h(%g) gives "
             "%s within [%g, %g]", lv->t0, lv->t0, set, -lv->window, lv->window);
}
