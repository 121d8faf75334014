/* cs_reg_analyze.h — what a regularizer's g and h make of it (`reg
 * analyze`): the level structure of its target set, its scale behaviour,
 * and the stationary points off the target set (spurious) on a 2D slice.
 *
 * The engine computes; it prints nothing. Functions return 0 or a negative
 * CS_E* code and fill err. */
#ifndef CS_REG_ANALYZE_H
#define CS_REG_ANALYZE_H

#include <stddef.h>

#include "cs_cancel.h"
#include "cs_error.h"
#include "cs_expr.h"
#include "cs_reg.h"

#define CS_LEVELS_MAX 16

/* The level structure of elementwise g and h: ℓ(x) = 0 iff g(x) ∥ h(x), so
 * every entry x_n lies in one set {t : g(t) = c·h(t)} (for one c, or h = 0).
 * scale_free: those sets are scaled copies of one another, and levels are
 * the copy whose largest |level| is +1 (ter: -1, 0, 1): the target set is
 * {a·l : l ∈ levels}^N for any a. Otherwise levels are the set of the ratio
 * c = g(t0)/h(t0), within [-window, window] (more: roots left out). */
typedef struct cs_reg_levels {
    int found;          /* 0: no level set found (or no elementwise g, h) */
    int intervals;      /* the level set of t0 contains intervals (g = sign(x), h = 1) */
    int scale_free;
    double levels[CS_LEVELS_MAX];   /* ascending */
    size_t nlevels, more;
    double t0, window;  /* not scale_free: the example set */
} cs_reg_levels;

/* The level structure of g and h (roots searched numerically on fine grids
 * for several t0 of both signs). CS_ENOTFOUND when no t0 gives one. */
int cs_reg_levels_of(const cs_expr *g, const cs_expr *h, cs_reg_levels *out);
/* "{-a,0,+a}^N for any a" (scale free), or the example set in words. */
void cs_reg_levels_text(const cs_reg_levels *lv, char *buf, size_t len);

/* The 2D slice scanned for spurious stationary points: the plane (at ==
 * NULL, a 2-vector argument) or the slice through at (n entries) along
 * coordinates dims[0] and dims[1] (0-based); res grid points per axis. */
typedef struct cs_reg_analyze_spec {
    double x0, x1, y0, y1;
    size_t res;
    const double *at;
    size_t n;
    size_t dims[2];
    const cs_cancel *cancel;   /* polled once per grid row (may be NULL) */
} cs_reg_analyze_spec;

typedef enum cs_stat_kind {
    CS_STAT_MIN = 0,    /* a local minimum off the target set */
    CS_STAT_MAX,
    CS_STAT_SADDLE,
    CS_STAT_FLAT        /* the Hessian on the slice is singular (lines of such points) */
} cs_stat_kind;
const char *cs_stat_kind_name(cs_stat_kind k);   /* "minimum", "maximum", ... */

/* A point of the slice where ∇ℓ vanishes (every coordinate) while ℓ does
 * not: a spurious stationary point of ℓ that lies on the slice. kind is
 * that of ℓ restricted to the slice. */
typedef struct cs_reg_stationary {
    double x, y;        /* slice coordinates */
    double value;       /* ℓ there */
    double ratio;       /* |∇ℓ|·|x| / ℓ: 0 at a stationary point */
    cs_stat_kind kind;
} cs_reg_stationary;

#define CS_ANALYZE_MAX_POINTS 64

typedef struct cs_reg_analysis {
    cs_reg_levels levels;   /* found = 0 when the entry has no elementwise g, h */
    /* scale behaviour: ℓ(αx) = α^k ℓ(x) */
    int degree_claimed;     /* the table (built-ins) or the homogeneity of g and h says so */
    double k_claimed;
    int homogeneous;        /* measured: log(ℓ(αx)/ℓ(x))/log α agrees for α = 2, 1/2, 3
                               at random points */
    double k_measured;      /* that exponent (NaN when not measured) */
    double k_spread;        /* the largest disagreement between the measurements */
    char scale_note[128];   /* why not measured, when not */
    /* the scan */
    size_t ncandidates;     /* grid minima of |∇ℓ| refined */
    size_t nundefined;      /* grid points where ℓ is not defined (si at ⟨g,h⟩ = 0), skipped */
    size_t nspurious;       /* kept in spurious[] (at most CS_ANALYZE_MAX_POINTS) */
    size_t nfound;          /* distinct spurious points found */
    cs_reg_stationary spurious[CS_ANALYZE_MAX_POINTS];
} cs_reg_analysis;

/* Analyse reg (its own instance: it is evaluated). The levels come from a
 * defined entry's g and h, from the table's g and h of a built-in (holder,
 * si: those of their base). Errors: a slice spec as cs_landscape's, an
 * evaluation that fails on the grid, CS_ECANCEL. */
int cs_reg_analyze(cs_reg *reg, const cs_reg_analyze_spec *spec, cs_reg_analysis *out,
                   cs_err *err);

#endif
