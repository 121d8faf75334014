/* plot.h — the plot kinds of csreg, drawn by gnuplot (see gp.h).
 *
 * Each kind takes plain data (arrays of doubles, names) and a cs_plot_opts
 * saying where the drawing goes:
 *   - a file, the terminal picked by its extension: .png (pngcairo),
 *     .svg, .pdf (pdfcairo), .gif (animated where the kind has frames);
 *   - term=CS_PLOT_TERM_DUMB: text art written to opts->text;
 *   - term=CS_PLOT_TERM_WINDOW: a live window (DISPLAY set and a qt/wxt/x11
 *     gnuplot; the window stays open after the call returns).
 * With opts->script set, nothing runs: the gnuplot command text is written
 * there (golden tests, debugging). With opts->save_script set, the figure
 * is drawn and the same text, with the output named as opts->script_output
 * says, is also saved to that file: `gnuplot FILE` redraws the figure (the
 * data travels inline, as datablocks).
 *
 * Size: width x height in pixels (.png .gif, a window), characters (dumb),
 * or inches (.pdf .svg: width_in x height_in; an SVG is laid out at 96
 * pixels an inch, the CSS inch, its fonts scaled so that their sizes are
 * points). font: "NAME,SIZE" in gnuplot's syntax (",10", "Helvetica").
 *
 * Text: opts->title, the `name` of series and frames that are not known
 * method names, and any *label given, are shown literally (never as gnuplot
 * markup or commands). Known method/regularizer names (bin, osb, ter, linf,
 * l1, ...) are drawn in math notation: ℓ_{bin}, ℓ^∞, ℓ^1, ...
 *
 * Data must be finite (CS_ENONFINITE names the first bad value). All
 * functions return 0 or a negative CS_E* code and fill err; nothing prints. */
#ifndef CS_PLOT_H
#define CS_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "cs_cancel.h"
#include "cs_error.h"

typedef enum cs_plot_term {
    CS_PLOT_TERM_AUTO = 0,   /* from the extension of opts->out */
    CS_PLOT_TERM_PNG,
    CS_PLOT_TERM_SVG,
    CS_PLOT_TERM_PDF,
    CS_PLOT_TERM_GIF,
    CS_PLOT_TERM_DUMB,       /* text, to opts->text; out is ignored */
    CS_PLOT_TERM_WINDOW      /* live window; out is ignored */
} cs_plot_term;

/* Sizes in inches (PDF, SVG) run from 0.5 to 100. */
#define CS_PLOT_MIN_IN 0.5
#define CS_PLOT_MAX_IN 100.0

typedef struct cs_plot_opts {
    const char *out;      /* output file (AUTO/PNG/SVG/PDF/GIF) */
    cs_plot_term term;
    FILE *text;           /* DUMB: where the drawing goes */
    FILE *script;         /* non-NULL: write the gnuplot commands here, run nothing */
    int width, height;    /* pixels (0: 1000 x 700); DUMB: characters (0: 100 x 32) */
    double width_in, height_in; /* PDF, SVG: inches (0: from width and height: a PDF
                                   of 10 x 7 in, an SVG of 1000 x 700 pixels) */
    const char *font;     /* gnuplot font "NAME,SIZE", literal (NULL: sans,12) */
    const char *save_script;   /* also save the gnuplot script here (atomically, once
                                  the drawing succeeded); NULL: none */
    const char *script_output; /* the output that saved script names (NULL: out) */
    const char *script_note;   /* '#' comment lines it begins with (may be NULL) */
    int save_only;        /* with save_script: only save it, draw nothing (no gnuplot
                             needed; a .png's script then names pngcairo) */
    const char *title;    /* literal; NULL: a default title; "" : none */
    int frame_delay;      /* animated GIF: 1/100 s per frame (0: 80) */
    const cs_cancel *cancel; /* polled while gnuplot draws (may be NULL): CS_ECANCEL */
} cs_plot_opts;

/* A polyline (n >= 2) or a single marked point (n == 1). */
typedef struct cs_plot_curve {
    const double *x, *y;
    size_t n;
} cs_plot_curve;

/* One start's path: its start point first, then its iterates. */
typedef struct cs_plot_path {
    const double *xy;         /* n points, interleaved x0,y0,x1,y1,... (n >= 1) */
    size_t n;
    int start;                /* its 1-based start number */
    int success;              /* the start that succeeded: highlighted */
} cs_plot_path;

/* The recovery geometry drawn over a landscape: the feasible set, x*, the
 * start and path of every start, the current (or final) iterate. Points
 * outside the box are left out. */
typedef struct cs_plot_geometry {
    double constraint_x[2], constraint_y[2];
    size_t constraint_n;      /* 2: a segment of {Ax = b}, 1: its only point, 0: none */
    int has_xstar;
    double xstar[2];
    const cs_plot_path *paths;
    size_t npaths;
    int has_iterate;
    double iterate[2];
} cs_plot_geometry;

/* What a 2D view drew, as bits; their names (cs_plot_layer_name) are the
 * `layers` of plot commands in --json. */
enum cs_plot_layer {
    CS_LAYER_TARGET = 1,      /* "target": the target set */
    CS_LAYER_CONSTRAINT = 2,  /* "constraint": the feasible set */
    CS_LAYER_XSTAR = 4,       /* "xstar" */
    CS_LAYER_START = 8,       /* "start": every start point */
    CS_LAYER_TRAJECTORY = 16, /* "trajectory": every start's path */
    CS_LAYER_ITERATE = 32     /* "iterate": the current or final iterate */
};
#define CS_PLOT_NLAYERS 6
const char *cs_plot_layer_name(unsigned layer);

/* landscape: values z of a function on a regular grid over a 2D box. */
typedef struct cs_plot_landscape_data {
    const char *reg;          /* regularizer name (title, colour-bar label); may be NULL */
    size_t nx, ny;            /* grid points along x and y (>= 2 each) */
    double x0, x1, y0, y1;    /* box: x_i = x0 + i (x1-x0)/(nx-1), same for y */
    const double *z;          /* ny*nx values: z[j*nx + i] at (x_i, y_j) */
    int log_scale;            /* colour = log10(max(z, floor)) */
    double log_floor;         /* <= 0: 1e-6 times the largest value */
    int surface;              /* 1: 3D surface (style=surface) instead of a heatmap */
    int contours;             /* number of contour levels (0: 10; < 0: none) */
    int dims[2];              /* coordinate indices drawn (0-based), for the axis labels
                                 x_{i+1}; {0, 0} (zeroed) means x_1, x_2 */
    const char *xlabel, *ylabel;  /* literal overrides of the axis labels (NULL: x_{i}) */
    const cs_plot_curve *target;  /* target set: curves and points (may be NULL) */
    size_t ntarget;
    const cs_plot_geometry *geo;  /* drawn on top (may be NULL) */
    const double *mark_x, *mark_y;  /* points marked on top (spurious stationary points of
                                       `reg analyze`); may be NULL when nmarks is 0 */
    size_t nmarks;
    const char *mark_label;   /* their legend entry, literal; NULL: "spurious stationary points" */
} cs_plot_landscape_data;

/* trajectory: the paths of a run over a landscape (land.geo, with at least
 * one path). */
typedef struct cs_plot_trajectory_data {
    cs_plot_landscape_data land;
    const char *name;         /* method name for the legend (may be NULL) */
} cs_plot_trajectory_data;

/* The layers a landscape (or trajectory) drawing of d shows. */
unsigned cs_plot_layers(const cs_plot_landscape_data *d);

/* basins: where the solver ends from each start of a grid. */
typedef struct cs_plot_basins_data {
    size_t nx, ny;            /* grid of starts (>= 2 each) */
    double x0, x1, y0, y1;    /* the box of starts */
    const int *cls;           /* ny*nx classes 0..3 (success, other, spurious,
                                 not_converged): cls[j*nx + i] */
    int dims[2];              /* coordinates drawn (0-based) for the axis labels */
    const double *ends;       /* nends end points (cluster representatives), interleaved */
    const int *end_cls;       /* their classes */
    size_t nends;
    const size_t *counts;     /* 4 counts for the legend (may be NULL) */
    const cs_plot_curve *target;
    size_t ntarget;
    const cs_plot_geometry *geo;  /* constraint and x* (may be NULL) */
    const char *name;         /* method name for the title (may be NULL) */
} cs_plot_basins_data;
#define CS_PLOT_BASIN_CLASSES 4
/* The class colours ("#RRGGBB") of basin maps, in class order. */
extern const char *const cs_plot_basin_colours[CS_PLOT_BASIN_CLASSES];
unsigned cs_plot_basins_layers(const cs_plot_basins_data *d);

/* One curve: y against x, with optional standard errors. */
typedef struct cs_plot_series {
    const char *name;         /* method name (math label when known) */
    const double *x, *y;
    const double *err;        /* standard errors or NULL */
    size_t n;
} cs_plot_series;

/* success: success rate against gamma (or K, M, ...), one curve per method. */
typedef struct cs_plot_success_data {
    const char *xvar;         /* "gamma", "K", "M", "N" (sets the axis label); NULL: gamma */
    const char *xlabel;       /* literal override */
    const char *title;        /* literal default title (the sweep's setting); NULL: generic */
    const cs_plot_series *series;
    size_t nseries;
} cs_plot_success_data;

/* trace: solver history; any of the arrays may be NULL (panel left out). */
typedef struct cs_plot_trace_data {
    size_t n;                 /* iterations recorded */
    const double *iter;       /* iteration numbers, or NULL: 1..n */
    const double *objective, *residual, *tau, *err_xstar;
    const char *name;         /* method name (title); may be NULL */
    const double *mark_iter;  /* iterations to mark with a dashed line (may be NULL) */
    const char *const *mark_label;  /* their labels, literal; equal iterations share a line */
    size_t nmarks;
    const double *start_iter; /* the first iteration of starts 2, 3, ... (dotted lines) */
    size_t nstarts;
    double err_line;          /* > 0: a line at this error (the oracle's success bound) */
} cs_plot_trace_data;

/* hist: one histogram per frame (a snapshot in time). */
typedef struct cs_plot_hist_frame {
    const double *v;
    size_t n;
    const char *name;         /* literal frame label ("epoch 5"); may be NULL */
} cs_plot_hist_frame;

typedef struct cs_plot_hist_data {
    const cs_plot_hist_frame *frames;
    size_t nframes;           /* 1: one histogram; >1: a grid, or frames of a .gif */
    size_t bins;              /* 0: 60 */
    double lo, hi;            /* range; lo >= hi: from the data (all frames) */
    const double *marks;      /* values to mark (e.g. -1, 0, 1); may be NULL */
    size_t nmarks;
    const char *xlabel;       /* literal; NULL: "value" */
} cs_plot_hist_data;

/* maxcut: cut value over iterations, with the best known cut. */
typedef struct cs_plot_maxcut_data {
    const cs_plot_series *series;   /* x: iteration, y: cut value */
    size_t nseries;
    double best;                    /* best known cut */
    int has_best;
    const char *graph;              /* graph name for the title (literal); may be NULL */
} cs_plot_maxcut_data;

int cs_plot_landscape(const cs_plot_landscape_data *d, const cs_plot_opts *o, cs_err *err);
int cs_plot_trajectory(const cs_plot_trajectory_data *d, const cs_plot_opts *o, cs_err *err);
int cs_plot_success(const cs_plot_success_data *d, const cs_plot_opts *o, cs_err *err);
int cs_plot_trace(const cs_plot_trace_data *d, const cs_plot_opts *o, cs_err *err);
int cs_plot_hist(const cs_plot_hist_data *d, const cs_plot_opts *o, cs_err *err);
int cs_plot_maxcut(const cs_plot_maxcut_data *d, const cs_plot_opts *o, cs_err *err);
int cs_plot_basins(const cs_plot_basins_data *d, const cs_plot_opts *o, cs_err *err);

/* The numbers of a plot as CSV, to f: a header line, then one row per
 * point, numbers in the shortest form that reads back exactly
 * (cs_format_double), text fields quoted as RFC 4180 has them:
 *   landscape:  x,y,value                       (y outer, x inner)
 *   trajectory: start,point,x,y                 (point 0: the start point)
 *   success:    method,XVAR,success[,stderr]    (XVAR: gamma, K, M, ...)
 *   trace:      iter,start,objective,residual,tau[,rel_err]  (the arrays given)
 *   hist:       snapshot,lo,hi,count            (the bins drawn)
 *   maxcut:     method,iter,cut
 *   basins:     x,y,class                       (success other spurious not_converged)
 * The landscape and basins grids are those of cs_grid_axis (the commands'
 * own). CS_EINVAL without data, CS_EIO when f fails. */
int cs_plot_landscape_csv(const cs_plot_landscape_data *d, FILE *f, cs_err *err);
int cs_plot_trajectory_csv(const cs_plot_trajectory_data *d, FILE *f, cs_err *err);
int cs_plot_success_csv(const cs_plot_success_data *d, FILE *f, cs_err *err);
int cs_plot_trace_csv(const cs_plot_trace_data *d, FILE *f, cs_err *err);
int cs_plot_hist_csv(const cs_plot_hist_data *d, FILE *f, cs_err *err);
int cs_plot_maxcut_csv(const cs_plot_maxcut_data *d, FILE *f, cs_err *err);
int cs_plot_basins_csv(const cs_plot_basins_data *d, FILE *f, cs_err *err);

/* A font text as the plots take it: "NAME", "NAME,SIZE" or ",SIZE", the
 * size 1 to 200 points, no control characters; CS_EINVAL saying why. */
int cs_plot_check_font(const char *font, cs_err *err);

/* The terminal an output name asks for (.png .svg .pdf .gif, any case). */
int cs_plot_term_from_path(const char *path, cs_plot_term *term, cs_err *err);

/* The gnuplot enhanced-text label of a method/regularizer name ("bin" ->
 * "ℓ_{bin}", "linf" -> "ℓ^∞", "holder" -> "ℓ_{bin,H}"), also with keys as
 * sweeps write them ("beta:beta=learn" -> "ℓ_{β}, learned β"), or NULL when
 * the name is not known. A label with keys lives in a per-thread buffer
 * until the next call. */
const char *cs_plot_method_label(const char *name);

/* 0 when plots can be drawn; else CS_ENOTFOUND with the install hint. */
int cs_plot_available(cs_err *err);

#endif
