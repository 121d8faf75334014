/* cs_view.h — what the TUI shows, reached through the session: the `view`
 * command's box (the TUI's zoom and pan, kept in the interpreter so a saved
 * session replays it), the regularizer table, and the Landscape panel's
 * heat map (the current regularizer over the box, or a 2D slice through the
 * current iterate). Front ends include this instead of engine headers. */
#ifndef CS_VIEW_H
#define CS_VIEW_H

#include <stddef.h>

#include "cs_interp.h"
#include "plot.h"

/* The view box: x in [x0, x1], y in [y0, y1]; dims are the 1-based
 * coordinates of the iterate a slice varies (used when N > 2). */
typedef struct cs_view_box {
    double x0, x1, y0, y1;
    int dims[2];
    int basins;     /* 1: the panel shows the last basin map (view map=basins) */
} cs_view_box;

#define CS_VIEW_DEFAULT_BOX ((cs_view_box){-2, 2, -2, 2, {1, 2}, 0})
#define CS_VIEW_MAX_TARGETS 9

/* The box set by `view` (the default -2:2 × -2:2, dims 1,2, before any). */
void cs_view_get(cs_interp *in, cs_view_box *box);

/* The regularizer table, for the Regularizers panel. */
typedef struct cs_view_reg {
    const char *name, *title, *formula, *target;
} cs_view_reg;
size_t cs_view_reg_count(void);
int cs_view_reg_at(size_t i, cs_view_reg *out);   /* -1 past the end */
/* Name of the current regularizer, e.g. "bin". */
const char *cs_view_reg_name(cs_interp *in);

/* A target-set piece on the map: a segment (n == 2) or a point (n == 1). */
typedef struct cs_view_curve {
    double x[2], y[2];
    size_t n;
} cs_view_curve;

/* A heat map: z[j*nx + i] is the value at (x0 + i (x1-x0)/(nx-1),
 * y0 + j (y1-y0)/(ny-1)); j = 0 is the bottom row. */
typedef struct cs_view_map {
    size_t nx, ny;
    double x0, x1, y0, y1;
    double *z;
    double zmin, zmax;
    int slice;          /* 1: a slice through the iterate along dims */
    int dims[2];        /* 1-based, as used (clamped to the iterate's length) */
    cs_view_curve target[CS_VIEW_MAX_TARGETS];
    size_t ntarget;
    /* the recovery geometry on the map (a copy, owned by the map): the
     * feasible set, x*, every start's path (2-dimensional problems), the
     * iterate */
    cs_plot_geometry geo;
    /* a basin map instead of the heat map (view map=basins): classes 0..3
     * (success, other, spurious, not converged) on its own nx × ny grid
     * over the box above, counts per class; z is NULL then */
    int *cls;
    size_t counts[CS_PLOT_BASIN_CLASSES];
    double ends[16][2];   /* where the largest clusters of runs end */
    size_t nends;
    char basins_method[64];
} cs_view_map;

/* Evaluate the current regularizer on an nx×ny grid over the view box: the
 * plane when no problem is set up or its iterate has 2 entries, else the
 * slice through the current iterate. Long grids poll the cancel flag. With
 * view map=basins and a basin map of the problem: that map instead. */
int cs_view_map_new(cs_interp *in, size_t nx, size_t ny, cs_view_map **out, cs_err *err);
void cs_view_map_free(cs_view_map *m);

#endif
