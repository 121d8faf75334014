/* cmd_plot.c — `landscape` (a regularizer over a 2D box, or a slice through
 * a point) and `plot WHAT` (redraw the last result of a kind). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cs_args.h"
#include "cs_landscape.h"
#include "cs_parse.h"
#include "cs_plotstore.h"
#include "sweep_csv.h"
#include "cs_provenance.h"
#include "interp_internal.h"
#include "solve_state.h"
#include "termdraw.h"

static int cmd_landscape(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);
static int cmd_plot(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);

static const cs_key_spec landscape_keys[] = {
    {"x", "-2:2", "range lo:hi of the first coordinate (lo:step:hi also works: its ends count)",
     NULL, CS_KEY_RANGE},
    {"y", "-2:2", "range lo:hi of the second coordinate", NULL, CS_KEY_RANGE},
    {"res", "201", "grid points per axis, 3 to 2001 (odd: 0 is on the grid of a symmetric box)",
     NULL, CS_KEY_INT},
    {"scale", "log", "colour scale (log: log10 of the value; lin when values are negative)",
     "log|lin", CS_KEY_WORD},
    {"at", NULL, "slice through the point X (1,2,3): the coordinates dims vary, the rest stay",
     NULL, CS_KEY_LIST},
    {"dims", "1,2", "with at=: the two coordinates varied (1-based)", NULL, CS_KEY_LIST},
    {"title", "default", "plot title, shown literally (\"\": none)", NULL, CS_KEY_TEXT},
    {"style", "heatmap", "heatmap with contour lines, or a 3D surface", "heatmap|surface",
     CS_KEY_WORD},
    {"out", NULL, "output: .png .svg .pdf .gif draw; .csv (x,y,value rows) and .txt (matrix) "
     "hold the numbers", NULL, CS_KEY_FILE},
    {"plot", NULL, "also draw into this image (.png .svg .pdf .gif)", NULL, CS_KEY_FILE},
    {"term", "auto", "auto: without out= a heat map in the terminal (colour half blocks on a "
     "terminal, an ASCII ramp otherwise); dumb: gnuplot's text rendering; window: a live "
     "window (DISPLAY)", "auto|dumb|window", CS_KEY_WORD},
    CS_PLOT_FIGURE_KEYS,
    {0}};

static const cs_key_spec plot_keys[] = {
    {"out", NULL, "the image: .png .svg .pdf or .gif (or term=dumb); .csv: its numbers, "
     "after '#' lines saying how they were made (landscape: x,y,value; trajectory: "
     "start,point,x,y; success: method,X,success[,stderr]; trace: iter,start,objective,"
     "residual,tau[,rel_err]; hist: snapshot,lo,hi,count; maxcut: method,iter,cut; basins: "
     "x,y,class)", NULL, CS_KEY_FILE},
    {"term", "auto", "dumb: draw in the terminal; window: a live window (DISPLAY)",
     "auto|dumb|window", CS_KEY_WORD},
    {"title", "default", "plot title, shown literally (\"\": none)", NULL, CS_KEY_TEXT},
    {"from", NULL, "plot success: draw the curves of these sweep CSVs (a,b,...) instead of the "
     "last sweep's: one curve per file and method", NULL, CS_KEY_LIST},
    {"labels", "file names", "from=: the files' names in the legend, a,b,...", NULL,
     CS_KEY_LIST},
    {"x", "vary= column, else gamma/M/K", "from=: the column on the x axis", NULL, CS_KEY_WORD},
    {"sha256", NULL, "from=: the files' SHA-256 digests (the journal records them; a replay "
     "whose file differs is refused)", NULL, CS_KEY_LIST},
    CS_PLOT_FIGURE_KEYS,
    {0}};

static const cs_cmd_spec plot_commands[] = {
    {.name = "landscape", .topic = "plots",
     .usage = "landscape [{x}] [{y}] [{res}] [scale=log|lin] [at=X dims=i,j] "
              "[title=..] [style=heatmap|surface] [out=FILE] [term=auto|dumb|window] "
              "[size=WxH] [font=..] [script=F.gp]",
     .summary = "the current regularizer over a 2D box (or a 2D slice through X), target set "
                "marked",
     .example = "landscape x=-2:2 y=-2:2 res=301 out=bin.png", .min_pos = 0, .max_pos = 0,
     .keys = landscape_keys, .run = cmd_landscape, .journal = 1},
    {.name = "plot", .topic = "plots",
     .usage = "plot WHAT out=FILE [term=auto|dumb|window] [title=..] [size=WxH] [font=..] "
              "[script=F.gp] | plot success from=A.csv,B.csv [labels=a,b] out=FILE",
     .summary = "redraw the last result of a kind, or write its numbers (out=F.csv): "
                CS_PLOT_KINDS,
     .example = "plot landscape out=land.svg", .min_pos = 1, .max_pos = 1, .keys = plot_keys,
     .run = cmd_plot, .journal = 1},
};

CS_CMD_GROUP(cs_group_plot, plot_commands);

/* ---- arguments ----------------------------------------------------------------- */

enum out_kind { OUT_NONE, OUT_CSV, OUT_TXT, OUT_IMAGE };

static int arg_out(cs_interp *in, const cs_cmdline *cl, int *kind, char *path, size_t len,
                   cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, "out");
    *kind = OUT_NONE;
    if (!a)
        return CS_OK;
    const char *dot = strrchr(a->value, '.'), *slash = strrchr(a->value, '/');
    if (dot && slash && dot < slash)
        dot = NULL;
    cs_err sub;
    int rc = CS_OK;
    cs_plot_term t;
    if (dot && !strcasecmp(dot, ".csv"))
        *kind = OUT_CSV;
    else if (dot && !strcasecmp(dot, ".txt"))
        *kind = OUT_TXT;
    else if (dot && cs_plot_term_from_path(a->value, &t, &sub) == CS_OK)
        *kind = OUT_IMAGE;
    else
        rc = cs_fail(&sub, CS_EINVAL, "unknown output format: use .png, .svg, .pdf, .gif "
                     "(drawings), .csv or .txt (numbers)");
    if (!rc)
        rc = cs_interp_path(in, a->value, path, len, &sub);
    if (rc) {
        in->err_col = a->col;
        return cs_fail(err, rc, "out=%s: %s", a->value, sub.msg);
    }
    return CS_OK;
}

static void report(cs_interp *in, const cs_landscape *l, const double *at, size_t n,
                   const size_t dims[2], int log_scale, const char *style, cs_result *res)
{
    cs_result_str(res, "reg", cs_reg_get_info(in->reg)->name);
    cs_result_str(res, "params", in->reg_line);
    cs_result_vec(res, "x", (double[2]){l->x0, l->x1}, 2);
    cs_result_vec(res, "y", (double[2]){l->y0, l->y1}, 2);
    cs_result_int(res, "res", (long long)l->nx);
    if (at) {
        cs_result_vec(res, "at", at, n);
        cs_result_vec(res, "dims", (double[2]){(double)dims[0] + 1, (double)dims[1] + 1}, 2);
    }
    cs_result_num(res, "min", l->zmin);
    cs_result_vec(res, "argmin", l->argmin, 2);
    /* honest about a minimum on the edge or shared by many grid points */
    size_t ties = 0;
    for (size_t k = 0; k < l->nx * l->ny; k++)
        ties += l->z[k] == l->zmin;
    int edge = l->argmin[0] == l->x0 || l->argmin[0] == l->x1 || l->argmin[1] == l->y0 ||
               l->argmin[1] == l->y1;
    char note[256] = "";
    if (edge)
        snprintf(note, sizeof note, "on the boundary of the box: the smallest value may lie "
                 "outside it");
    if (ties > 1)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "%sthe first of %zu grid points with this value%s", edge ? "; " : "", ties,
                 l->ntarget && l->zmin == 0 ? " (the target set)" : "");
    if (note[0])
        cs_result_str(res, "argmin_note", note);
    cs_result_num(res, "max", l->zmax);
    cs_result_str(res, "scale", log_scale ? "log" : "lin");
    cs_result_str(res, "style", style);
    cs_result_int(res, "targets", (long long)l->ntarget);
}

/* The landscape in the terminal: the heat map (log scale when the values
 * allow it), the target set and the recovery geometry, a legend. */
static void draw_terminal(cs_interp *in, const cs_landscape *l, int log_scale,
                          const cs_plot_geometry *geo, unsigned layers, cs_result *res)
{
    cs_heat_canvas c;
    if (term_canvas(in, l->x0, l->x1, l->y0, l->y1, &c))
        return;
    size_t n = l->nx * l->ny;
    cs_heat_scale s = cs_heat_scale_of(l->z, n);
    double *lin = NULL;
    if (!log_scale && (lin = malloc(n * sizeof *lin))) {
        /* a linear scale: map the values into [1, 10] and show them on the log ramp */
        double span = l->zmax > l->zmin ? l->zmax - l->zmin : 1.0;
        for (size_t k = 0; k < n; k++)
            lin[k] = pow(10.0, (l->z[k] - l->zmin) / span);
        s = cs_heat_scale_of(lin, n);
        s.l0 = 0;
        s.l1 = 1;
    }
    cs_heat_fill(&c, lin ? lin : l->z, l->nx, l->ny, &s);
    free(lin);
    for (size_t k = 0; k < l->ntarget; k++)
        cs_heat_line(&c, l->target[k].x[0], l->target[k].y[0], l->target[k].x[l->target[k].n - 1],
                     l->target[k].y[l->target[k].n - 1], CS_HEAT_TARGET);
    cs_heat_geometry(&c, geo, 1);
    char scale[160], marks[1024] = "";
    if (log_scale && !s.flat)
        snprintf(scale, sizeof scale, "%s, log10 scale: %.1f (dark) to %.1f (bright)%s",
                 cs_reg_get_info(in->reg)->name, s.l0, s.l1,
                 term_rich(in) ? "" : ", ramp ' .,:;=%#@'");
    else
        snprintf(scale, sizeof scale, "%s, linear scale: %.3g (dark) to %.3g (bright)%s",
                 cs_reg_get_info(in->reg)->name, l->zmin, l->zmax,
                 term_rich(in) ? "" : ", ramp ' .,:;=%#@'");
    term_layer_legend(in, layers, marks, sizeof marks);
    const char *legend[2] = {scale, marks};
    term_print(in, res, &c, legend, marks[0] ? 2 : 1);
    cs_heat_canvas_free(&c);
}

static int cmd_landscape(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    cs_landscape_spec spec = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2,
                              .cancel = cs_interp_cancel_flag(in)};
    long r;
    const char *scale, *style, *term;
    int out_kind;
    char out[4096];
    double *at = NULL;
    int rc;
    if ((rc = cs_arg_box(in, cl, "x", &spec.x0, &spec.x1, err)) ||
        (rc = cs_arg_box(in, cl, "y", &spec.y0, &spec.y1, err)) ||
        (rc = cs_arg_long(in, cl, "res", 201, CS_LANDSCAPE_MIN_RES, CS_LANDSCAPE_MAX_RES, &r,
                          err)) ||
        (rc = cs_arg_choice(in, cl, "scale", "log|lin", NULL, &scale, err)) ||
        (rc = cs_arg_choice(in, cl, "style", "heatmap|surface", "heatmap", &style, err)) ||
        (rc = cs_arg_choice(in, cl, "term", "auto|dumb|window", "auto", &term, err)) ||
        (rc = arg_out(in, cl, &out_kind, out, sizeof out, err)) ||
        (rc = cs_plot_key_check_screen(in, cl, "plot", err)))
        return rc;
    if (strcmp(term, "auto") && out_kind == OUT_IMAGE) {
        cs_arg_blame(in, cl, "term", 0);
        return cs_fail(err, CS_EINVAL, "term=%s draws on the screen, out=%s to a file: give one "
                       "of them", term, cs_arg_text(cl, "out", ""));
    }
    if ((rc = cs_arg_slice(in, cl, &at, &spec.n, spec.dims, err)))
        return rc;
    spec.at = at;
    spec.nx = spec.ny = (size_t)r;

    cs_landscape *l;
    rc = cs_landscape_new(&l, in->reg, &spec, err);
    if (rc) {
        if (at)
            cs_arg_blame(in, cl, "at", 0);
        free(at);
        return rc;
    }
    int log_scale = l->zmax > 0 && l->zmin >= 0;
    if (scale && !strcmp(scale, "log") && !log_scale) {
        cs_arg_blame(in, cl, "scale", 0);
        rc = cs_fail(err, CS_EINVAL, "scale=log: the values run from %g to %g; a log scale needs "
                     "them >= 0 and not all 0 (use scale=lin)", l->zmin, l->zmax);
    }
    if (scale && !strcmp(scale, "lin"))
        log_scale = 0;
    const char *title = cs_arg_text(cl, "title", NULL);
    solve_geo geo = {0};
    unsigned layers = 0;
    if (!rc)
        rc = solve_geo_make(cs_interp_ext(in, CS_EXT_SOLVE), at, spec.n, spec.dims, l->x0, l->x1,
                            l->y0, l->y1, &geo, err);
    if (!rc)
        rc = cs_plotstore_landscape_of(in, cs_reg_get_info(in->reg)->name, l, spec.dims,
                                       log_scale, !strcmp(style, "surface"), title, &geo.g, NULL,
                                       NULL, 0, &layers, err);
    if (!rc)
        report(in, l, at, spec.n, spec.dims, log_scale, style, res);
    /* the numbers first: they are written even when drawing fails */
    if (!rc && (out_kind == OUT_CSV || out_kind == OUT_TXT)) {
        const cs_cancel *cancel = cs_interp_cancel_flag(in);
        char prov[4096];
        cs_provenance(in, cl, CS_PROV_REG, prov, sizeof prov);
        rc = out_kind == OUT_CSV ? cs_landscape_write_csv(l, out, prov, cancel, err)
                                 : cs_landscape_write_matrix(l, out, cancel, err);
        if (rc)
            cs_arg_blame(in, cl, "out", 0);
        else
            cs_result_str(res, "out", out);
    }
    /* no file, no window, no plot=: the drawing goes to the terminal */
    int terminal = !rc && out_kind == OUT_NONE && !strcmp(term, "auto") && !in->plot_window &&
                   !cs_cmdline_key(cl, "plot");
    if (terminal) {
        draw_terminal(in, l, log_scale, &geo.g, layers, res);
        cs_plot_put_layers(res, layers);
    }
    solve_geo_free(&geo);
    cs_landscape_free(l);
    free(at);
    if (!rc && (out_kind == OUT_IMAGE || strcmp(term, "auto") ||
                (out_kind == OUT_NONE && in->plot_window && !cs_cmdline_key(cl, "plot")))) {
        const char *user_out = out_kind == OUT_IMAGE ? cs_arg_text(cl, "out", NULL) : NULL;
        rc = cs_plotstore_draw_cl(in, cl, "landscape", user_out, term, res, err);
        if (rc)
            cs_arg_blame(in, cl, user_out ? "out" : "term", 0);
    }
    if (!rc)
        rc = cs_plot_key(in, cl, "landscape", res, err);
    return rc;
}

/* out=F.csv: the numbers of a plot kind, not a drawing. */
static int is_csv(const char *out)
{
    const char *dot = out ? strrchr(out, '.') : NULL, *slash = out ? strrchr(out, '/') : NULL;
    return dot && (!slash || dot > slash) && !strcasecmp(dot, ".csv");
}

/* from=A.csv,B.csv [labels=a,b] [x=COL]: the success curves of sweep CSVs
 * become the plot's data (sweep_csv.h). */
static int success_from(cs_interp *in, const cs_cmdline *cl, const cs_arg *what, cs_err *err)
{
    const cs_arg *from = cs_cmdline_key(cl, "from");
    if (strcmp(what->value, "success") || !from) {
        cs_arg_blame(in, cl, from ? "from" : cs_cmdline_key(cl, "labels") ? "labels" : "x", 0);
        return cs_fail(err, CS_EINVAL, "from=, labels= and x= are for plot success from=A.csv,..");
    }
    enum { MAX_FILES = 16 };
    char files[2048], labs[2048], paths[MAX_FILES][4096];
    const char *pv[MAX_FILES], *lv[MAX_FILES] = {0};
    size_t nf = 0, nl = 0;
    snprintf(files, sizeof files, "%s", from->value);
    snprintf(labs, sizeof labs, "%s", cs_arg_text(cl, "labels", ""));
    char *save = NULL;
    for (char *t = strtok_r(files, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        cs_err sub;
        if (nf == MAX_FILES || cs_interp_path(in, t, paths[nf], sizeof paths[nf], &sub)) {
            cs_arg_blame(in, cl, "from", 0);
            return nf == MAX_FILES ? cs_fail(err, CS_EINVAL, "from=: at most %d files", MAX_FILES)
                                   : cs_fail(err, sub.code, "from=%s", sub.msg);
        }
        int rc = cs_interp_input_file(in, cl, t, paths[nf], err);   /* its digest */
        if (rc)
            return rc;
        pv[nf] = paths[nf];
        nf++;
    }
    for (char *t = strtok_r(labs, ",", &save); t && nl < MAX_FILES; t = strtok_r(NULL, ",", &save))
        lv[nl++] = t;
    if (nl && nl != nf) {
        cs_arg_blame(in, cl, "labels", 0);
        return cs_fail(err, CS_EINVAL, "labels=: %zu labels for %zu files", nl, nf);
    }
    sweep_csv_curves c;
    int rc = sweep_csv_read(pv, nl ? lv : NULL, nf, cs_arg_text(cl, "x", NULL), &c, err);
    if (rc) {
        cs_arg_blame(in, cl, "from", 0);
        return rc;
    }
    cs_plot_success_data d = {.xvar = c.xvar, .xlabel = c.xvar, .title = "success rate",
                              .series = c.series, .nseries = c.nseries};
    rc = cs_plotstore_success(in, &d, err);
    sweep_csv_free(&c);
    return rc;
}

static int cmd_plot(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *what = cs_cmdline_pos(cl, 0);
    const char *term;
    int rc = cs_arg_choice(in, cl, "term", "auto|dumb|window", "auto", &term, err);
    if (rc)
        return rc;
    const char *out = cs_arg_text(cl, "out", NULL);
    if (out && strcmp(term, "auto")) {
        cs_arg_blame(in, cl, "term", 0);
        return cs_fail(err, CS_EINVAL, "term=%s draws on the screen, out=%s to a file: give one "
                       "of them", term, out);
    }
    if ((cs_cmdline_key(cl, "from") || cs_cmdline_key(cl, "labels") ||
         cs_cmdline_key(cl, "x")) && (rc = success_from(in, cl, what, err)))
        return rc;
    if (is_csv(out)) {
        if (cs_cmdline_key(cl, "title")) {
            cs_arg_blame(in, cl, "title", 0);
            return cs_fail(err, CS_EINVAL, "title=: out=%s writes numbers, not a drawing", out);
        }
        if ((rc = cs_plot_key_check(in, cl, "plot", err)))   /* figure keys: refused */
            return rc;
        cs_result_str(res, "kind", what->value);
        rc = cs_plotstore_csv(in, cl, what->value, out, res, err);
        if (rc)
            cs_arg_blame(in, cl, rc == CS_ESTATE || strstr(err->msg, "unknown plot kind")
                                     ? NULL : "out", 0);
        return rc;
    }
    if ((rc = cs_plot_key_check_screen(in, cl, out ? "out" : "plot", err)))
        return rc;
    cs_result_str(res, "kind", what->value);
    rc = cs_plotstore_draw_cl(in, cl, what->value, out, term, res, err);
    if (rc) {
        /* point at what is wrong: the kind, or the output */
        if (rc == CS_ESTATE || strstr(err->msg, "unknown plot kind"))
            in->err_col = what->col;
        else if (!out && !strcmp(term, "auto"))
            in->err_col = what->col;
        else
            cs_arg_blame(in, cl, out ? "out" : "term", 0);
    }
    return rc;
}
