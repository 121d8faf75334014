/* plot_internal.h — shared by the plot kinds (not a public header). */
#ifndef CS_PLOT_INTERNAL_H
#define CS_PLOT_INTERNAL_H

#include "gp.h"
#include "plot.h"

/* One drawing in the making: the resolved terminal and the command text. */
typedef struct plot_ctx {
    const cs_plot_opts *o;
    cs_plot_term term;   /* resolved: never AUTO */
    int enhanced;        /* terminal draws enhanced text (not dumb) */
    int animate;         /* GIF with several frames */
    int w, h;
    double win, hin;     /* PDF, SVG: the size in inches (0: from w, h) */
    cs_gpbuf body;
} plot_ctx;

/* Resolve the terminal, check the options, find gnuplot (unless script
 * only). frames > 1 makes a .gif animated. */
int plot_begin(plot_ctx *c, const cs_plot_opts *o, size_t frames, const char *kind,
               cs_err *err);
/* Send the body to gnuplot (or to o->script) and free it. */
int plot_finish(plot_ctx *c, cs_err *err);
/* Free without drawing (on an error path). */
void plot_abort(plot_ctx *c);

/* `set <what> '<text>' noenhanced` for literal (user) text, or with
 * `enhanced` for markup made by this layer. text NULL: `unset <what>`. */
void plot_set_text(plot_ctx *c, const char *what, const char *text, int literal);
/* ` title '<text>' noenhanced|enhanced` for a plot element. */
void plot_elem_title(plot_ctx *c, const char *text, int literal);
/* The title: opts->title (literal) if given, else def (enhanced markup by
 * this layer when def_literal is 0). "" hides it. */
void plot_title(plot_ctx *c, const char *def, int def_literal);

/* A method's label for the legend: math markup (enhanced terminals) or a
 * plain form; *literal tells how to emit it. Unknown names come back as
 * given, literal. NULL name: fallback. */
const char *plot_method_label(const plot_ctx *c, const char *name, const char *fallback,
                              int *literal);

void plot_datablock_begin(plot_ctx *c, const char *name);
void plot_datablock_end(plot_ctx *c);
void plot_row(plot_ctx *c, const double *v, size_t n);

/* CS_ENONFINITE naming the first NaN/Inf of v (what[i]). */
int plot_check_finite(const double *v, size_t n, const char *kind, const char *what,
                      cs_err *err);

/* The target set's curves ($TL) and points ($TP) as data blocks, and
 * their plot elements (plot_landscape.c). */
void plot_target_blocks(plot_ctx *c, const cs_plot_curve *target, size_t ntarget,
                        int *has_lines, int *has_points);
void plot_target_elems(plot_ctx *c, int has_lines, int has_points);

/* The recovery geometry (plot_geometry.c): data blocks first, then the
 * plot elements (", ..." each; zcol ":(z)" for splot, else ""). */
typedef struct plot_geo_info {
    int constraint;      /* points of the feasible set drawn (0..2) */
    int other_paths, main_path;
    size_t starts;
} plot_geo_info;
int plot_check_geometry(const cs_plot_geometry *g, const char *kind, cs_err *err);
void plot_geometry_blocks(plot_ctx *c, const cs_plot_geometry *g, plot_geo_info *gi);
void plot_geometry_elems(plot_ctx *c, const cs_plot_geometry *g, const plot_geo_info *gi,
                         const char *zcol, const char *name);

#define PLOT_LINECOLOURS 8
extern const char *const plot_okabe_ito[PLOT_LINECOLOURS];

#endif
