/* target.c — how far a point is from a regularizer's target set.
 *
 * Every distance is computed as a residual ‖x − q‖ at the nearest q found,
 * not as ‖x‖² minus the part the set explains: on the set the difference
 * of squares would leave √eps (1e-8) where the residual leaves rounding. */
#include "reg_internal.h"

#include <math.h>

#include "cs_reg_analyze.h"
#include <stdlib.h>

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* max over k of (sum of the k largest v)² / k, v sorted in place: the most
 * of ‖v‖² that k entries at a common level a (their mean) can explain;
 * *best_k gets that k (0: none, a = 0). */
static double best_prefix(double *v, size_t n, size_t *best_k)
{
    qsort(v, n, sizeof *v, cmp_desc);
    double best = 0.0, prefix = 0.0;
    *best_k = 0;
    for (size_t k = 0; k < n; k++) {
        prefix += v[k];
        double gain = prefix > 0 ? prefix * prefix / (double)(k + 1) : 0.0;
        if (gain > best) {
            best = gain;
            *best_k = k + 1;
        }
    }
    return best;
}

/* ‖v − q‖² for v sorted descending, q: its first k entries at their mean,
 * the others at 0. */
static double prefix_residual(const double *v, size_t n, size_t k)
{
    double a = 0.0, d2 = 0.0;
    for (size_t i = 0; i < k; i++)
        a += v[i];
    a = k ? a / (double)k : 0.0;
    for (size_t i = 0; i < n; i++) {
        double r = i < k ? v[i] - a : v[i];
        d2 += r * r;
    }
    return d2;
}

/* ‖x − q‖² to {0,a}^N for a of either sign (osb) or to {-a,0,a}^N (ter:
 * the fit to |x|). */
static double prefix_distance2(const double *x, size_t n, int ter)
{
    double *buf = malloc(2 * n * sizeof *buf), *v = buf, *w = buf + n;
    if (!buf)
        return NAN;
    size_t k, kw = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = ter ? fabs(x[i]) : x[i];
        w[i] = -x[i];
    }
    double gain = best_prefix(v, n, &k);
    /* osb with a < 0: {0,a}^N is −{0,|a|}^N, the same fit to −x */
    if (!ter && best_prefix(w, n, &kw) > gain) {
        v = w;
        k = kw;
    }
    double d2 = prefix_residual(v, n, k);
    free(buf);
    return d2;
}

/* ‖x − q‖² to {-a,+a}^N: a = mean |x|, signs those of x. */
static double bin_distance2(const double *x, size_t n)
{
    double s1 = 0.0, d2 = 0.0;
    for (size_t i = 0; i < n; i++)
        s1 += fabs(x[i]);
    double a = s1 / (double)n;
    for (size_t i = 0; i < n; i++)
        d2 += (fabs(x[i]) - a) * (fabs(x[i]) - a);
    return d2;
}

double cs_target_distance(cs_target_family family, const double *x, size_t n)
{
    double xx = 0.0;
    for (size_t i = 0; i < n; i++)
        xx += x[i] * x[i];
    if (n == 0 || !isfinite(xx))
        return NAN;
    double d2;
    switch (family) {
    case CS_TARGET_BIN:
        d2 = bin_distance2(x, n);
        break;
    case CS_TARGET_OSB:
    case CS_TARGET_TER:
        d2 = prefix_distance2(x, n, family == CS_TARGET_TER);
        break;
    default:
        return NAN;
    }
    if (xx == 0.0)
        return 0.0;
    return sqrt(d2 / xx);
}

/* ---- scale-free level sets of defined regularizers ---------------------- */

typedef struct level_event {
    double u;          /* 1/a where entry i crosses a midpoint of the levels */
    size_t i;
    size_t to;         /* the level it takes from there on */
} level_event;

static int cmp_event(const void *a, const void *b)
{
    const level_event *x = a, *y = b;
    return (x->u > y->u) - (x->u < y->u);
}

/* The level of entry t as u = 1/a → 0+: the one nearest to 0 on t's side
 * (the midpoints that t·u has passed), nearest to 0 for t = 0. */
static size_t start_level(double t, const double *lv, size_t nl)
{
    size_t k = 0;
    for (size_t j = 0; j + 1 < nl; j++) {
        double m = 0.5 * (lv[j] + lv[j + 1]);
        if (t > 0 ? m <= 0 : m < 0)
            k = j + 1;
    }
    return k;
}

/* min over a > 0 and l ∈ lv^n of ‖x − a·l‖² (lv ascending, nl ≥ 1). The
 * nearest point for a given a takes each entry to its nearest level of a·lv;
 * as u = 1/a grows, entry i moves to the next level where x_i·u crosses a
 * midpoint, so the assignments that are nearest for some a are the states
 * of one sweep over those crossings, each fitted by a = ⟨x,l⟩/⟨l,l⟩. */
static double sweep_distance2(const double *x, size_t n, const double *lv, size_t nl)
{
    level_event *ev = malloc((n * (nl - 1) + 1) * sizeof *ev);
    size_t *at = malloc(n * sizeof *at), ne = 0;
    if (!ev || !at) {
        free(ev);
        free(at);
        return NAN;
    }
    double sxl = 0.0, sll = 0.0;
    for (size_t i = 0; i < n; i++) {
        at[i] = start_level(x[i], lv, nl);
        for (size_t j = 0; j + 1 < nl; j++) {
            double m = 0.5 * (lv[j] + lv[j + 1]);
            if (x[i] > 0 ? m > 0 : x[i] < 0 && m < 0)
                ev[ne++] = (level_event){m / x[i], i, x[i] > 0 ? j + 1 : j};
        }
        sxl += x[i] * lv[at[i]];
        sll += lv[at[i]] * lv[at[i]];
    }
    qsort(ev, ne, sizeof *ev, cmp_event);
    /* the best state: after `best` events (a = 0 when none explains any of x) */
    double best = 0.0;
    size_t best_e = 0;
    int any = 0;
    for (size_t e = 0; e <= ne; e++) {
        if (e) {
            size_t i = ev[e - 1].i;
            double lo = lv[at[i]], ln = lv[ev[e - 1].to];
            sxl += x[i] * (ln - lo);
            sll += ln * ln - lo * lo;
            at[i] = ev[e - 1].to;
        }
        double gain = sxl > 0 && sll > 0 ? sxl * sxl / sll : 0.0;
        if (gain > best) {
            best = gain;
            best_e = e;
            any = 1;
        }
    }
    /* replay to the best state and take its residual */
    double d2 = 0.0;
    if (any) {
        sxl = sll = 0.0;
        for (size_t i = 0; i < n; i++)
            at[i] = start_level(x[i], lv, nl);
        for (size_t e = 0; e < best_e; e++)
            at[ev[e].i] = ev[e].to;
        for (size_t i = 0; i < n; i++) {
            sxl += x[i] * lv[at[i]];
            sll += lv[at[i]] * lv[at[i]];
        }
        double a = sxl / sll;
        for (size_t i = 0; i < n; i++)
            d2 += (x[i] - a * lv[at[i]]) * (x[i] - a * lv[at[i]]);
    } else {
        for (size_t i = 0; i < n; i++)
            d2 += x[i] * x[i];
    }
    free(ev);
    free(at);
    return d2;
}

/* Whether −lv is one level set of g and h too (then a < 0 belongs to the
 * target set): g(−l) ∥ h(−l) over the levels, to well within the accuracy
 * of the levels' roots. The analysis samples t0 of both signs, so a
 * one-sided set such as {0, a} passes; one like {−a/2, a} from
 * g = 1.5|x| − 0.5x, h = 1 (a > 0 only) does not. */
static int negative_scale(const cs_reg *reg, const double *lv, size_t nl)
{
    if (!reg->ge || !reg->he)
        return 0;
    double gg = 0.0, hh = 0.0, gh = 0.0;
    for (size_t j = 0; j < nl; j++) {
        double g = cs_expr_eval1(reg->ge, -lv[j], NULL), h = cs_expr_eval1(reg->he, -lv[j], NULL);
        gg += g * g;
        hh += h * h;
        gh += g * h;
    }
    if (!isfinite(gg) || !isfinite(hh))
        return 0;
    return gg * hh - gh * gh <= 1e-12 * gg * hh;
}

/* ‖x − q‖² to {a·l : l ∈ lv}^N over the scales a the zero set holds. */
static double scaled_distance2(const cs_reg *reg, const double *x, size_t n, const double *lv,
                               size_t nl)
{
    double d2 = sweep_distance2(x, n, lv, nl);
    if (isnan(d2) || !negative_scale(reg, lv, nl))
        return d2;
    double neg[CS_LEVELS_MAX];
    for (size_t j = 0; j < nl; j++)
        neg[j] = -lv[nl - 1 - j];
    double dn = sweep_distance2(x, n, neg, nl);
    return isnan(dn) || dn >= d2 ? d2 : dn;
}

/* equ: y_b ∈ {±2^(b−1)·a}^N for the B stacked blocks y_b of length N. */
static double levels_distance2(const double *x, size_t n, int B)
{
    if (B < 1 || n % (size_t)B)
        return NAN;
    size_t N = n / (size_t)B;
    double num = 0.0, ww = 0.0, d2 = 0.0;
    for (int b = 0; b < B; b++) {
        double w = ldexp(1.0, b);
        for (size_t i = 0; i < N; i++)
            num += w * fabs(x[(size_t)b * N + i]);
        ww += w * w * (double)N;
    }
    double a = num / ww;
    for (int b = 0; b < B; b++)
        for (size_t i = 0; i < N; i++) {
            double r = fabs(x[(size_t)b * N + i]) - ldexp(a, b);
            d2 += r * r;
        }
    return d2;
}

double cs_reg_target_distance(const cs_reg *reg, const double *x, size_t n)
{
    double xx = 0.0;
    for (size_t i = 0; i < n; i++)
        xx += x[i] * x[i];
    if (!reg || n == 0 || !isfinite(xx))
        return NAN;
    double d2;
    switch (reg->family) {
    case CS_TARGET_BIN:
    case CS_TARGET_OSB:
    case CS_TARGET_TER:
        return cs_target_distance(reg->family, x, n);
    case CS_TARGET_FIXED: {
        /* {-alpha,+alpha}^N: no free scale, so x = 0 is not on it */
        double a = fabs(reg->alpha);
        d2 = 0.0;
        for (size_t i = 0; i < n; i++)
            d2 += (fabs(x[i]) - a) * (fabs(x[i]) - a);
        if (xx == 0.0)
            return a == 0.0 ? 0.0 : INFINITY;
        return sqrt(d2 / xx);
    }
    case CS_TARGET_LEVELS:
        d2 = levels_distance2(x, n, reg->B);
        break;
    case CS_TARGET_SCALED: {
        size_t nl = 0;
        const double *lv = cs_reg_target_levels(reg, &nl);
        if (!lv || nl == 0 || nl > CS_LEVELS_MAX)
            return NAN;
        d2 = scaled_distance2(reg, x, n, lv, nl);
        break;
    }
    default:
        return NAN;
    }
    if (isnan(d2))
        return NAN;
    if (xx == 0.0)
        return 0.0;
    return sqrt(d2 / xx);
}
