/* cs_plotstore.h — the data of the last result of each plot kind, kept in
 * the interpreter (slot CS_EXT_PLOT) so `plot WHAT out=FILE` can redraw it,
 * and the `plot=FILE` key of commands that make data.
 *
 * A command that makes plottable data deposits it here (the store copies
 * everything: arrays, names, titles), then calls cs_plot_key:
 *
 *     cs_plot_trace_data d = {.n = n, .objective = obj, ...};
 *     if ((rc = cs_plotstore_trace(in, &d, err)))
 *         return rc;
 *     ... write the CSV first ...
 *     return cs_plot_key(in, cl, "trace", res, err);
 *
 * Kinds: "landscape", "trajectory", "success", "trace", "hist", "maxcut", "basins".
 * Every function returns 0 or a negative CS_E* code and fills err. When
 * gnuplot is missing, drawing fails with CS_GP_NOT_FOUND_MSG (the data stays
 * stored, and whatever the command wrote before stays written). */
#ifndef CS_PLOTSTORE_H
#define CS_PLOTSTORE_H

#include "cs_cmdline.h"
#include "cs_landscape.h"
#include "cs_interp.h"
#include "cs_result.h"
#include "plot.h"

/* The kinds, in help order, separated by '|' (for choices and messages). */
#define CS_PLOT_KINDS "landscape|trajectory|success|trace|hist|maxcut|basins"

/* Deposit (replace) the last data of a kind. `title` on landscape: the
 * title given with the command that made it (NULL: the default title);
 * it is reused by `plot landscape` unless that gives its own. */
int cs_plotstore_landscape(cs_interp *in, const cs_plot_landscape_data *d, const char *title,
                           cs_err *err);
/* Deposit a computed landscape of the regularizer `reg` (the drawn grid
 * at most 1001 points per axis), with the recovery geometry (may be NULL)
 * and marks (may be none) on top; *layers (may be NULL) gets what a
 * drawing of it shows (enum cs_plot_layer bits). */
int cs_plotstore_landscape_of(cs_interp *in, const char *reg, const cs_landscape *l,
                              const size_t dims[2], int log_scale, int surface, const char *title,
                              const cs_plot_geometry *geo, const double *mark_x,
                              const double *mark_y, size_t nmarks, unsigned *layers,
                              cs_err *err);
int cs_plotstore_trajectory(cs_interp *in, const cs_plot_trajectory_data *d, cs_err *err);
int cs_plotstore_success(cs_interp *in, const cs_plot_success_data *d, cs_err *err);
int cs_plotstore_trace(cs_interp *in, const cs_plot_trace_data *d, cs_err *err);
int cs_plotstore_hist(cs_interp *in, const cs_plot_hist_data *d, cs_err *err);
int cs_plotstore_maxcut(cs_interp *in, const cs_plot_maxcut_data *d, cs_err *err);
int cs_plotstore_basins(cs_interp *in, const cs_plot_basins_data *d, cs_err *err);
/* The field "layers": the names of the layers set in `layers` (what a 2D
 * view drew: landscape, trajectory and basins drawings add it). */
void cs_plot_put_layers(cs_result *res, unsigned layers);

/* 1 when data of `kind` is stored. */
int cs_plotstore_has(cs_interp *in, const char *kind);
/* The stored data of `kind`, read-only until the next command (the
 * cs_plot_*_data of that kind; landscape and trajectory: the landscape
 * data first), NULL when none. For narration and front ends. */
const void *cs_plotstore_data(cs_interp *in, const char *kind);
/* Forget everything stored. */
void cs_plotstore_clear(cs_interp *in);

/* The keys every command that draws takes (its key table lists them,
 * after plot=): the figure's size and font, and the gnuplot script that
 * redraws it. They apply to the drawings of plot=, of an image out=, and
 * of term=dumb|window; given with none of those they are an error. */
#define CS_PLOT_FIGURE_KEYS                                                                 \
    {"size", NULL, "figure size WxH: inches for .pdf .svg (size=3.5x2.5), pixels for .png "  \
     ".gif and windows (size=800x600), characters for term=dumb (default 10x7 in, 1000x700 " \
     "pixels, 100x32 characters)", NULL, CS_KEY_TEXT},                                      \
    {"font", NULL, "figure font as gnuplot takes it, NAME,SIZE in points (font=\"Helvetica," \
     "10\"; font=,9: the size only; default sans,12)", NULL, CS_KEY_TEXT},                  \
    {"script", NULL, "also write F.gp: the gnuplot script that redraws this figure, its data " \
     "inline and its output named as given (gnuplot F.gp)", NULL, CS_KEY_FILE}

/* Draw the stored data of `kind`.
 *   out:   a file name (mapped through cs_interp_path); the terminal comes
 *          from its extension (.png .svg .pdf .gif); may be NULL with term;
 *   term:  NULL or "auto" (from out), "dumb" (the drawing goes into res as
 *          text), "window" (a live window);
 *   title: NULL: the stored/default title; "" none; else literal text.
 * On success the result gets the field "out" (the file written) or the
 * drawing as text. Unknown kind, no data ("nothing to plot: run landscape
 * first"), bad extension and gnuplot errors are errors. */
int cs_plotstore_draw(cs_interp *in, const char *kind, const char *out, const char *term,
                      const char *title, cs_result *res, cs_err *err);

/* The same for a command line `cl` that may hold title=, size=, font= and
 * script= (the figure keys): out != NULL is the value of its out= key,
 * else the drawing goes to the terminal `term`. */
int cs_plotstore_draw_cl(cs_interp *in, const cs_cmdline *cl, const char *kind, const char *out,
                         const char *term, cs_result *res, cs_err *err);

/* Write the numbers of the stored `kind` as CSV to `out` (mapped through
 * cs_interp_path; atomically): the provenance comment lines of cl
 * (cs_provenance.h), then the columns of cs_plot_*_csv (plot.h). On
 * success the result gets "out". Errors as cs_plotstore_draw's. */
int cs_plotstore_csv(cs_interp *in, const cs_cmdline *cl, const char *kind, const char *out,
                     cs_result *res, cs_err *err);

/* For commands that accept `plot=FILE` (and optionally `title=`): when
 * plot= was given, draw the just-stored `kind` into it and add the field
 * "plot" (the file written) to res; errors point at the plot= column.
 * Without plot= it does nothing and returns 0. */
int cs_plot_key(cs_interp *in, const cs_cmdline *cl, const char *kind, cs_result *res,
                cs_err *err);

/* The same after a command whose files are written: a missing gnuplot is
 * noted in the result ("plot_skipped") instead of failing the command;
 * script= is still written then (its figure drawn where gnuplot is). */
int cs_plot_after(cs_interp *in, const cs_cmdline *cl, const char *kind, cs_result *res,
                  cs_err *err);

/* Check a plot= / out= file name before the command does its work (so a
 * long sweep does not end with "unknown extension"): extension one of
 * .png .svg .pdf .gif; blames key's column. 0 when key is absent. Every
 * call also checks the figure keys of cl (size=, font=, script=) against
 * the drawings the line asks for: a bad value, or one with no drawing to
 * apply to, is an error naming the key, before anything is written. */
int cs_plot_key_check(cs_interp *in, const cs_cmdline *cl, const char *key, cs_err *err);
/* The same for a command that draws on the screen when it writes no file
 * (landscape, plot): there a window of `set plot window` is a drawing. */
int cs_plot_key_check_screen(cs_interp *in, const cs_cmdline *cl, const char *key, cs_err *err);

#endif
