/* cs_landscape.h — a regularizer's value on a regular grid over a 2D box,
 * either in the plane (the argument is the 2-vector (x, y)) or on a 2D slice
 * through an N-dimensional point X (coordinates dims[0] and dims[1] of X are
 * replaced by (x, y), the others stay fixed); plus the target set of the
 * known regularizers on that plane, as lines and points to mark.
 *
 * Grid: x_i = x0 + i (x1 - x0)/(nx - 1), i = 0..nx-1, the same for y; the
 * ends are exactly x0 and x1, and a box symmetric about 0 gives a grid
 * symmetric to the last bit (so x_i = -x_{n-1-i} and the diagonal x = y is
 * hit exactly where the box allows). Values: z[j*nx + i] at (x_i, y_j).
 *
 * The engine computes; it prints nothing. Functions return 0 or a negative
 * CS_E* code and fill err. */
#ifndef CS_LANDSCAPE_H
#define CS_LANDSCAPE_H

#include <stddef.h>

#include "cs_cancel.h"
#include "cs_error.h"
#include "cs_reg.h"

#define CS_LANDSCAPE_MIN_RES 3
#define CS_LANDSCAPE_MAX_RES 2001
#define CS_LANDSCAPE_MAX_TARGETS 32

typedef struct cs_landscape_spec {
    double x0, x1, y0, y1;    /* the box; x0 < x1, y0 < y1, finite */
    size_t nx, ny;            /* grid points per axis, in [MIN_RES, MAX_RES] */
    const double *at;         /* NULL: the plane; else the point X (n entries) */
    size_t n;
    size_t dims[2];           /* with at: the coordinates varied (0-based, distinct) */
    const cs_cancel *cancel;  /* polled once per grid row (may be NULL) */
} cs_landscape_spec;

/* A target-set piece: a segment (n == 2) from (x[0], y[0]) to (x[1], y[1]),
 * clipped to the box, or a single point (n == 1). */
typedef struct cs_landscape_curve {
    double x[2], y[2];
    size_t n;
} cs_landscape_curve;


/* A computed landscape. Plain data: read the fields, free with
 * cs_landscape_free. */
typedef struct cs_landscape {
    size_t nx, ny;
    double x0, x1, y0, y1;
    double *xs, *ys;          /* the grid coordinates (nx and ny entries) */
    double *z;                /* ny*nx values */
    double zmin, zmax;
    double argmin[2];         /* (x, y) of the first smallest value */
    cs_target_family family;
    cs_landscape_curve target[CS_LANDSCAPE_MAX_TARGETS];
    size_t ntarget;
} cs_landscape;

/* Evaluate `reg` on the grid. Errors: box empty or not finite, resolution
 * out of range, a grid too fine to tell neighbouring points apart, dims out
 * of range or equal, X with NaN/Inf, a regularizer that needs a matrix
 * argument together with at=, the regularizer's own error at the first
 * point where it fails (named by its coordinates), CS_ECANCEL. */
int cs_landscape_new(cs_landscape **out, cs_reg *reg, const cs_landscape_spec *spec,
                     cs_err *err);
void cs_landscape_free(cs_landscape *l);

/* The family of the target set of `reg` when this module can draw it (a
 * scale-free level set: BIN, OSB, TER, SCALED), else CS_TARGET_NONE (eig,
 * om, linf, a regularizer with auxiliary coordinates, ...). */
cs_target_family cs_landscape_family(const cs_reg *reg);

/* The target set {a·l : l ∈ levels}^n (any scale a) on the slice of the
 * box: with at == NULL (or n == 2) the plane, that is the lines through the
 * origin along (l_i, l_j) for every pair of levels (x = 0 and y = 0 first,
 * then by slope, steepest first); else the points of the target set whose
 * coordinates other than dims equal those of at. Lines are clipped to the
 * box, points outside it are left out. Fills at most
 * CS_LANDSCAPE_MAX_TARGETS pieces; none without levels. */
size_t cs_landscape_targets(const double *levels, size_t nlevels, const double *at, size_t n,
                            const size_t dims[2], double x0, double x1, double y0, double y1,
                            cs_landscape_curve out[CS_LANDSCAPE_MAX_TARGETS]);

/* The target set on the plane (x, y) of the regularizers that are not
 * level sets of g and h: eig with a 2×2 C (its real eigenvector lines and
 * the origin), fixed (the points (±α, ±α)), equ (B = 2: y2 = ±2 y1; B = 1:
 * y = ±x); 0 pieces for the others. */
size_t cs_landscape_targets_special(const cs_reg *reg, double x0, double x1, double y0,
                                    double y1, cs_landscape_curve out[CS_LANDSCAPE_MAX_TARGETS]);

/* The line through (px, py) along (dx, dy) clipped to the box: 1 and the
 * segment in c, or 0 when it misses the box (or the direction is 0). */
int cs_landscape_clip(double px, double py, double dx, double dy, double x0, double x1,
                      double y0, double y1, cs_landscape_curve *c);

/* The n grid coordinates from lo to hi the landscape uses (symmetric about
 * the middle to the last bit, the ends exact); an error naming `name` when
 * neighbouring points coincide. */
int cs_grid_axis(const char *name, double lo, double hi, size_t n, double *v, cs_err *err);

/* Write the landscape atomically: CSV with the header `x,y,value`, the
 * `preamble` (comment lines saying how it was made, each "# ...\n"; NULL:
 * none) and one row per grid point (y outer, x inner), or a whitespace
 * matrix (one row per y_j, one column per x_i, after a `#` comment line
 * naming the axes). cancel (may be NULL) is polled every grid row:
 * CS_ECANCEL, the old file kept. */
int cs_landscape_write_csv(const cs_landscape *l, const char *path, const char *preamble,
                           const cs_cancel *cancel, cs_err *err);
int cs_landscape_write_matrix(const cs_landscape *l, const char *path, const cs_cancel *cancel,
                              cs_err *err);

#endif
