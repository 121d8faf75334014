/* plot_curves.c — line plots: success curves, solver traces, MAX-CUT. */
#include "plot_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_SERIES 64

static int check_series(const cs_plot_series *s, size_t ns, const char *kind, cs_err *err)
{
    if (ns == 0 || !s)
        return cs_fail(err, CS_EINVAL, "%s: no data to plot", kind);
    if (ns > MAX_SERIES)
        return cs_fail(err, CS_EDIM, "%s: %zu curves are too many (at most %d)", kind, ns,
                       MAX_SERIES);
    for (size_t k = 0; k < ns; k++) {
        char what[48];
        if (s[k].n == 0 || !s[k].x || !s[k].y)
            return cs_fail(err, CS_EINVAL, "%s: curve %zu (%.40s) has no points", kind, k + 1,
                           s[k].name ? s[k].name : "unnamed");
        int rc;
        snprintf(what, sizeof what, "curve %zu x", k + 1);
        if ((rc = plot_check_finite(s[k].x, s[k].n, kind, what, err)) != CS_OK)
            return rc;
        snprintf(what, sizeof what, "curve %zu y", k + 1);
        if ((rc = plot_check_finite(s[k].y, s[k].n, kind, what, err)) != CS_OK)
            return rc;
        if (s[k].err) {
            snprintf(what, sizeof what, "curve %zu stderr", k + 1);
            if ((rc = plot_check_finite(s[k].err, s[k].n, kind, what, err)) != CS_OK)
                return rc;
        }
    }
    return CS_OK;
}

/* $S1, $S2, ...: x y [err] per series. */
/* Series k's x shift: the error bars of several series at the same x are
 * drawn side by side, 0.6% of the x range apart, so that none hides behind
 * another. 0 for a series without error bars, or when only one has them. */
static double series_dodge(const cs_plot_series *s, size_t ns, size_t k)
{
    size_t bars = 0, rank = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t j = 0; j < ns; j++) {
        if (!s[j].err)
            continue;
        rank = j == k ? bars : rank;
        bars++;
        for (size_t i = 0; i < s[j].n; i++) {
            lo = fmin(lo, s[j].x[i]);
            hi = fmax(hi, s[j].x[i]);
        }
    }
    if (!s[k].err || bars < 2 || !(hi > lo))
        return 0.0;
    return ((double)rank - 0.5 * (double)(bars - 1)) * 0.006 * (hi - lo);
}

static void series_blocks(plot_ctx *c, const cs_plot_series *s, size_t ns)
{
    for (size_t k = 0; k < ns; k++) {
        char name[24];
        snprintf(name, sizeof name, "$S%zu", k + 1);
        plot_datablock_begin(c, name);
        double dx = series_dodge(s, ns, k);
        for (size_t i = 0; i < s[k].n; i++) {
            double row[3] = {s[k].x[i] + dx, s[k].y[i], s[k].err ? s[k].err[i] : 0};
            plot_row(c, row, s[k].err ? 3 : 2);
        }
        plot_datablock_end(c);
    }
}

static void series_title(plot_ctx *c, const cs_plot_series *s, size_t k)
{
    char fallback[32];
    snprintf(fallback, sizeof fallback, "curve %zu", k + 1);
    int lit;
    const char *label = plot_method_label(c, s->name, fallback, &lit);
    plot_elem_title(c, label, lit);
}

/* ---- success ------------------------------------------------------------ */

int cs_plot_success(const cs_plot_success_data *d, const cs_plot_opts *o, cs_err *err)
{
    if (!d)
        return cs_fail(err, CS_EINVAL, "success: no data");
    int rc = check_series(d->series, d->nseries, "success", err);
    if (rc != CS_OK)
        return rc;
    plot_ctx c;
    if ((rc = plot_begin(&c, o, 1, "success", err)) != CS_OK) {
        plot_abort(&c);
        return rc;
    }
    cs_gpbuf *b = &c.body;
    series_blocks(&c, d->series, d->nseries);

    const char *xvar = d->xvar ? d->xvar : "gamma";
    const char *xl = NULL;
    int xlit = 0;
    if (d->xlabel)
        xl = d->xlabel, xlit = 1;
    else if (strcmp(xvar, "gamma") == 0)
        xl = c.enhanced ? "undersampling ratio γ = M/N" : "undersampling ratio gamma = M/N";
    else if (strcmp(xvar, "K") == 0)
        xl = "K";
    else if (strcmp(xvar, "M") == 0)
        xl = "number of measurements M";
    else if (strcmp(xvar, "N") == 0)
        xl = "dimension N";
    else
        xl = xvar, xlit = 1;
    char title[128];
    snprintf(title, sizeof title, "success rate vs %s",
             strcmp(xvar, "gamma") == 0 ? (c.enhanced ? "γ" : "gamma") : "");
    if (strcmp(xvar, "gamma") != 0)
        snprintf(title, sizeof title, "success rate");
    plot_title(&c, d->title ? d->title : title, d->title != NULL);
    plot_set_text(&c, "xlabel", xl, xlit);
    plot_set_text(&c, "ylabel", "success rate", 0);
    cs_gpbuf_printf(b, "set yrange [-0.02:1.02]\nset ytics 0,0.2,1\nset grid back ls 100\n"
                       "set key outside top center horizontal\n"
                       "set offsets graph 0.02, graph 0.02, 0, 0\n");
    cs_gpbuf_printf(b, "plot ");
    for (size_t k = 0; k < d->nseries; k++) {
        const cs_plot_series *s = &d->series[k];
        cs_gpbuf_printf(b, "%s$S%zu using 1:2%s with %s lt %zu", k ? ", " : "", k + 1,
                        s->err ? ":3" : "", s->err ? "yerrorlines" : "linespoints",
                        k % PLOT_LINECOLOURS + 1);
        series_title(&c, s, k);
    }
    cs_gpbuf_printf(b, "\n");
    return plot_finish(&c, err);
}

/* ---- trace -------------------------------------------------------------- */

/* A dashed line at each marked iteration (in every panel), the labels of
 * the marks there joined, on the first panel, one under the other (marks
 * often fall close together); a log iteration axis shows the early ones. */
static void trace_marks(plot_ctx *c, const cs_plot_trace_data *d)
{
    cs_gpbuf *b = &c->body;
    int label = 0;
    if (d->nmarks)
        cs_gpbuf_printf(b, "set logscale x\n");
    for (size_t k = 0; k < d->nmarks; k++) {
        size_t first = 0;
        while (first < k && d->mark_iter[first] != d->mark_iter[k])
            first++;
        if (first < k)
            continue;   /* drawn with its first mark */
        char text[512] = "";
        size_t used = 0;
        for (size_t m = k; m < d->nmarks; m++)
            if (d->mark_iter[m] == d->mark_iter[k] && used < sizeof text)
                used += (size_t)snprintf(text + used, sizeof text - used, "%s%s",
                                         used ? ", " : "", d->mark_label[m] ? d->mark_label[m] : "");
        char x[48];
        cs_gp_fmt_num(x, sizeof x, d->mark_iter[k]);
        cs_gpbuf_printf(b, "set arrow from %s, graph 0 to %s, graph 1 nohead dt 2 lw 1.2 "
                           "lc rgb '#555555' back\n", x, x);
        cs_gpbuf_printf(b, "set label %d ", ++label);
        cs_gpbuf_quote(b, text);
        cs_gpbuf_printf(b, " at %s, graph %.2f left offset 0.4,0 font ',8' noenhanced front\n", x,
                        0.94 - 0.075 * (label - 1));
    }
}

/* A dotted line where each restart begins, with its number on top. */
static void trace_starts(plot_ctx *c, const cs_plot_trace_data *d)
{
    for (size_t k = 0; k < d->nstarts; k++) {
        cs_gpbuf_printf(&c->body, "set arrow from ");
        cs_gpbuf_num(&c->body, d->start_iter[k]);
        cs_gpbuf_printf(&c->body, ", graph 0 to ");
        cs_gpbuf_num(&c->body, d->start_iter[k]);
        cs_gpbuf_printf(&c->body, ", graph 1 nohead dt 3 lc rgb '#707070' back\n");
        cs_gpbuf_printf(&c->body, "set label 'start %zu' at ", k + 2);
        cs_gpbuf_num(&c->body, d->start_iter[k]);
        cs_gpbuf_printf(&c->body, ", graph 1 offset 0.3,-0.8 left font ',8' tc rgb '#707070'\n");
    }
}

int cs_plot_trace(const cs_plot_trace_data *d, const cs_plot_opts *o, cs_err *err)
{
    if (!d)
        return cs_fail(err, CS_EINVAL, "trace: no data");
    const double *cols[4] = {d->objective, d->residual, d->tau, d->err_xstar};
    static const char *const names[4] = {"objective", "residual", "tau", "error to x*"};
    const char *enh[4] = {"objective", "residual", "step size τ", "error to x^{*}"};
    size_t npanels = 0;
    for (int k = 0; k < 4; k++)
        npanels += cols[k] != NULL;
    if (d->n == 0 || npanels == 0)
        return cs_fail(err, CS_EINVAL, "trace: no iterations recorded");
    int rc;
    if (d->iter && (rc = plot_check_finite(d->iter, d->n, "trace", "iteration", err)) != CS_OK)
        return rc;
    for (int k = 0; k < 4; k++)
        if (cols[k] && (rc = plot_check_finite(cols[k], d->n, "trace", names[k], err)) != CS_OK)
            return rc;
    if (d->nmarks && (!d->mark_iter || !d->mark_label))
        return cs_fail(err, CS_EINVAL, "trace: marks without data");
    if ((rc = plot_check_finite(d->mark_iter, d->nmarks, "trace", "mark", err)) != CS_OK)
        return rc;
    if (d->nstarts && !d->start_iter)
        return cs_fail(err, CS_EINVAL, "trace: starts without data");
    if ((rc = plot_check_finite(d->start_iter, d->nstarts, "trace", "start", err)) != CS_OK)
        return rc;
    plot_ctx c;
    if ((rc = plot_begin(&c, o, 1, "trace", err)) != CS_OK) {
        plot_abort(&c);
        return rc;
    }
    cs_gpbuf *b = &c.body;
    cs_gpbuf_printf(b, "# columns: iteration");
    for (int k = 0; k < 4; k++)
        if (cols[k])
            cs_gpbuf_printf(b, ", %s", names[k]);
    cs_gpbuf_printf(b, "\n");
    plot_datablock_begin(&c, "$T");
    for (size_t i = 0; i < d->n; i++) {
        double row[5];
        size_t m = 0;
        row[m++] = d->iter ? d->iter[i] : (double)(i + 1);
        for (int k = 0; k < 4; k++)
            if (cols[k])
                row[m++] = cols[k][i];
        plot_row(&c, row, m);
    }
    plot_datablock_end(&c);

    int lit;
    const char *ml = plot_method_label(&c, d->name, NULL, &lit);
    char title[600];
    if (ml)
        snprintf(title, sizeof title, "%.500s: solver trace", ml);
    else
        snprintf(title, sizeof title, "solver trace");
    const char *t = o->title ? o->title : title;
    if (o->title)
        lit = 1;
    else if (!ml)
        lit = 0;
    size_t ncols = npanels == 1 ? 1 : 2, nrows = (npanels + ncols - 1) / ncols;
    cs_gpbuf_printf(b, "set multiplot layout %zu,%zu", nrows, ncols);
    if (*t) {
        cs_gpbuf_printf(b, " title ");
        cs_gpbuf_quote(b, t);
        cs_gpbuf_printf(b, " %s", lit || !c.enhanced ? "noenhanced" : "enhanced");
    }
    cs_gpbuf_printf(b, "\nset grid back ls 100\nunset key\n");
    trace_marks(&c, d);
    trace_starts(&c, d);
    plot_set_text(&c, "xlabel", d->nstarts ? "iteration (all starts, one after another)"
                                           : "iteration", 0);
    size_t col = 2;
    for (int k = 0; k < 4; k++) {
        if (!cols[k])
            continue;
        int positive = 1;
        for (size_t i = 0; i < d->n && positive; i++)
            positive = cols[k][i] > 0;
        const char *label = c.enhanced ? enh[k] : names[k];
        plot_set_text(&c, "ylabel", label, 0);
        if (positive)
            cs_gpbuf_printf(b, "set logscale y\nset format y '%s'\n",
                            c.enhanced ? "10^{%L}" : "1e%L");
        else
            cs_gpbuf_printf(b, "unset logscale y\nset format y '%% h'\n");
        int bound = k == 3 && d->err_line > 0 && positive;
        if (bound) {  /* the oracle's success bound on the error panel */
            cs_gpbuf_printf(b, "set label 99 'success: error %s ", c.enhanced ? "≤" : "<=");
            cs_gpbuf_num(b, d->err_line);
            cs_gpbuf_printf(b, "' at graph 0.02, first ");
            cs_gpbuf_num(b, d->err_line);
            cs_gpbuf_printf(b, " offset 0,0.6 left font ',8' tc rgb '#b03030'\n");
        }
        cs_gpbuf_printf(b, "plot $T using 1:%zu with lines lt %d notitle", col++, k + 1);
        if (bound) {
            cs_gpbuf_printf(b, ", ");
            cs_gpbuf_num(b, d->err_line);
            cs_gpbuf_printf(b, " with lines dt 2 lc rgb '#b03030' notitle\nunset label 99");
        }
        cs_gpbuf_printf(b, "\n");
        if ((d->nmarks || d->nstarts) && col == 3)
            cs_gpbuf_printf(b, "unset label\n");   /* the labels go on the first panel */
    }
    cs_gpbuf_printf(b, "unset multiplot\n");
    return plot_finish(&c, err);
}

/* ---- maxcut ------------------------------------------------------------- */

int cs_plot_maxcut(const cs_plot_maxcut_data *d, const cs_plot_opts *o, cs_err *err)
{
    if (!d)
        return cs_fail(err, CS_EINVAL, "maxcut: no data");
    int rc = check_series(d->series, d->nseries, "maxcut", err);
    if (rc != CS_OK)
        return rc;
    if (d->has_best && !isfinite(d->best))
        return cs_fail(err, CS_ENONFINITE, "maxcut: best known cut is not finite");
    plot_ctx c;
    if ((rc = plot_begin(&c, o, 1, "maxcut", err)) != CS_OK) {
        plot_abort(&c);
        return rc;
    }
    cs_gpbuf *b = &c.body;
    series_blocks(&c, d->series, d->nseries);
    char title[600];
    if (d->graph)
        snprintf(title, sizeof title, "MAX-CUT on %.500s", d->graph);
    else
        snprintf(title, sizeof title, "MAX-CUT");
    plot_title(&c, title, 1);
    plot_set_text(&c, "xlabel", "iteration", 0);
    plot_set_text(&c, "ylabel", "cut value (total weight of cut edges)", 0);
    cs_gpbuf_printf(b, "set grid back ls 100\nset key outside top center horizontal\nplot ");
    for (size_t k = 0; k < d->nseries; k++) {
        cs_gpbuf_printf(b, "%s$S%zu using 1:2 with lines lt %zu", k ? ", " : "", k + 1,
                        k % PLOT_LINECOLOURS + 1);
        series_title(&c, &d->series[k], k);
    }
    if (d->has_best) {
        char label[96], num[48];
        cs_gp_fmt_num(num, sizeof num, d->best);
        snprintf(label, sizeof label, "best known cut (%s)", num);
        cs_gpbuf_printf(b, ", %.17g with lines dt 2 lw 2 lc rgb '#000000'", d->best);
        plot_elem_title(&c, label, 1);
    }
    cs_gpbuf_printf(b, "\n");
    return plot_finish(&c, err);
}
