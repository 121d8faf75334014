/* plot_hist.c — histograms: one, a grid of snapshots, or an animated GIF.
 * Counting happens here, so only bin counts travel to gnuplot (a network
 * layer may have millions of weights). */
#include "plot_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_csv.h"
#include "cs_parse.h"

#define MAX_BINS 10000
#define MAX_GRID_FRAMES 64
#define MAX_GIF_FRAMES 2000

static int check_hist(const cs_plot_hist_data *d, cs_err *err)
{
    if (!d || !d->frames || d->nframes == 0)
        return cs_fail(err, CS_EINVAL, "hist: no data");
    if (d->bins > MAX_BINS)
        return cs_fail(err, CS_EINVAL, "hist: %zu bins are too many (at most %d)", d->bins,
                       MAX_BINS);
    if (d->nframes > MAX_GIF_FRAMES)
        return cs_fail(err, CS_EDIM, "hist: %zu snapshots are too many (at most %d)",
                       d->nframes, MAX_GIF_FRAMES);
    for (size_t f = 0; f < d->nframes; f++) {
        if (d->frames[f].n == 0 || !d->frames[f].v)
            return cs_fail(err, CS_EINVAL, "hist: snapshot %zu is empty", f + 1);
        char what[48];
        snprintf(what, sizeof what, "snapshot %zu value", f + 1);
        int rc = plot_check_finite(d->frames[f].v, d->frames[f].n, "hist", what, err);
        if (rc != CS_OK)
            return rc;
    }
    if (d->nmarks && !d->marks)
        return cs_fail(err, CS_EINVAL, "hist: %zu marks but no values", d->nmarks);
    if (!isfinite(d->lo) || !isfinite(d->hi))
        return cs_fail(err, CS_ENONFINITE, "hist: range is not finite");
    return d->marks ? plot_check_finite(d->marks, d->nmarks, "hist", "mark", err) : CS_OK;
}

/* The range: given, or from all snapshots (widened when they are constant). */
static void hist_range(const cs_plot_hist_data *d, double *lo, double *hi)
{
    if (d->lo < d->hi) {
        *lo = d->lo;
        *hi = d->hi;
        return;
    }
    double a = INFINITY, b = -INFINITY;
    for (size_t f = 0; f < d->nframes; f++)
        for (size_t i = 0; i < d->frames[f].n; i++) {
            double v = d->frames[f].v[i];
            a = v < a ? v : a;
            b = v > b ? v : b;
        }
    if (!(a < b)) {
        double w = fabs(a) > 0 ? 0.1 * fabs(a) : 0.5;
        a -= w;
        b += w;
    }
    *lo = a;
    *hi = b;
}

/* Count one snapshot into bins; values outside [lo, hi] are left out. */
static void count(const cs_plot_hist_frame *f, double lo, double hi, size_t bins, double *cnt)
{
    memset(cnt, 0, bins * sizeof *cnt);
    double scale = (double)bins / (hi - lo);
    for (size_t i = 0; i < f->n; i++) {
        double v = f->v[i];
        if (v < lo || v > hi)
            continue;
        size_t k = (size_t)((v - lo) * scale);
        cnt[k < bins ? k : bins - 1] += 1;
    }
}

static void frame_title(plot_ctx *c, const cs_plot_hist_frame *f, size_t idx, const char *main)
{
    char t[700];
    char fallback[32];
    snprintf(fallback, sizeof fallback, "snapshot %zu", idx + 1);
    const char *name = f->name ? f->name : fallback;
    if (main && *main)
        snprintf(t, sizeof t, "%.300s: %.300s", main, name);
    else
        snprintf(t, sizeof t, "%.600s", name);
    plot_set_text(c, "title", t, 1);
}

int cs_plot_hist(const cs_plot_hist_data *d, const cs_plot_opts *o, cs_err *err)
{
    int rc = check_hist(d, err);
    if (rc != CS_OK)
        return rc;
    plot_ctx c;
    if ((rc = plot_begin(&c, o, d->nframes, "hist", err)) != CS_OK) {
        plot_abort(&c);
        return rc;
    }
    if (d->nframes > MAX_GRID_FRAMES && !c.animate) {
        plot_abort(&c);
        return cs_fail(err, CS_EDIM,
                       "hist: %zu snapshots are too many for a grid (at most %d; use a .gif)",
                       d->nframes, MAX_GRID_FRAMES);
    }
    size_t bins = d->bins ? d->bins : 60;
    double lo, hi;
    hist_range(d, &lo, &hi);
    double *cnt = malloc(bins * sizeof *cnt);
    if (!cnt) {
        plot_abort(&c);
        return cs_fail(err, CS_ENOMEM, "hist: out of memory");
    }
    cs_gpbuf *b = &c.body;
    double width = (hi - lo) / (double)bins, top = 0;
    for (size_t f = 0; f < d->nframes; f++) {
        char name[24];
        snprintf(name, sizeof name, "$H%zu", f + 1);
        cs_gpbuf_printf(b, "# snapshot %zu: %zu values\n", f + 1, d->frames[f].n);
        plot_datablock_begin(&c, name);
        count(&d->frames[f], lo, hi, bins, cnt);
        for (size_t k = 0; k < bins; k++) {
            plot_row(&c, (double[2]){lo + (k + 0.5) * width, cnt[k]}, 2);
            top = cnt[k] > top ? cnt[k] : top;
        }
        plot_datablock_end(&c);
    }
    free(cnt);

    cs_gpbuf_printf(b, "set boxwidth ");
    cs_gpbuf_num(b, width);
    cs_gpbuf_printf(b, " absolute\nset style fill solid 0.75 border lc rgb '#004B75'\n"
                       "set xrange [");
    cs_gpbuf_num(b, lo);
    cs_gpbuf_printf(b, ":");
    cs_gpbuf_num(b, hi);
    /* the frames of an animation share one count axis, so it does not jump */
    if (c.animate) {
        cs_gpbuf_printf(b, "]\nset yrange [0:");
        cs_gpbuf_num(b, ceil(top * 1.05));
        cs_gpbuf_printf(b, "]");
    } else {
        cs_gpbuf_printf(b, "]\nset yrange [0:*]\nset offsets 0, 0, graph 0.05, 0");
    }
    cs_gpbuf_printf(b, "\nset grid back ls 100\nunset key\n");
    for (size_t m = 0; m < d->nmarks; m++) {
        if (d->marks[m] < lo || d->marks[m] > hi)
            continue;
        cs_gpbuf_printf(b, "set arrow from ");
        cs_gpbuf_num(b, d->marks[m]);
        cs_gpbuf_printf(b, ", graph 0 to ");
        cs_gpbuf_num(b, d->marks[m]);
        cs_gpbuf_printf(b, ", graph 1 nohead front lc rgb '#D55E00' lw 1.5 dt 2\n");
    }
    /* a dense grid (more than 2×2) keeps its panels readable: three x tics,
     * no count axis or axis labels (the panels share the x range) */
    int dense = d->nframes > 4 && !c.animate;
    if (dense) {
        double a = fmax(fabs(lo), fabs(hi)) / 2;
        char t[64];
        snprintf(t, sizeof t, "%.2g", a);
        a = atof(t);
        cs_gpbuf_printf(b, "set xtics (");
        cs_gpbuf_num(b, -a);
        cs_gpbuf_printf(b, ", 0, ");
        cs_gpbuf_num(b, a);
        cs_gpbuf_printf(b, ") font ',9'\nunset ytics\nset title font ',10'\n");
    } else {
        plot_set_text(&c, "xlabel", d->xlabel ? d->xlabel : "value", d->xlabel != NULL);
        plot_set_text(&c, "ylabel", "count", 0);
    }

    const char *main = o->title;
    if (d->nframes == 1) {
        const char *def = d->frames[0].name ? d->frames[0].name : "histogram";
        plot_title(&c, def, 1);
        cs_gpbuf_printf(b, "plot $H1 using 1:2 with boxes lt 1 notitle\n");
    } else if (c.animate) {
        for (size_t f = 0; f < d->nframes; f++) {
            frame_title(&c, &d->frames[f], f, main);
            cs_gpbuf_printf(b, "plot $H%zu using 1:2 with boxes lt 1 notitle\n", f + 1);
        }
    } else {
        size_t cols = 1;
        while (cols * cols < d->nframes)
            cols++;
        size_t rows = (d->nframes + cols - 1) / cols;
        cs_gpbuf_printf(b, "set multiplot layout %zu,%zu", rows, cols);
        const char *t = main ? main : "histograms over time";
        if (*t) {
            cs_gpbuf_printf(b, " title ");
            cs_gpbuf_quote(b, t);
            cs_gpbuf_printf(b, " noenhanced");
        }
        cs_gpbuf_printf(b, "\n");
        for (size_t f = 0; f < d->nframes; f++) {
            frame_title(&c, &d->frames[f], f, NULL);
            cs_gpbuf_printf(b, "plot $H%zu using 1:2 with boxes lt 1 notitle\n", f + 1);
        }
        cs_gpbuf_printf(b, "unset multiplot\n");
    }
    return plot_finish(&c, err);
}

int cs_plot_hist_csv(const cs_plot_hist_data *d, FILE *f, cs_err *err)
{
    int rc = check_hist(d, err);
    if (rc != CS_OK)
        return rc;
    size_t bins = d->bins ? d->bins : 60;
    double lo, hi;
    hist_range(d, &lo, &hi);
    double *cnt = malloc(bins * sizeof *cnt);
    if (!cnt)
        return cs_fail(err, CS_ENOMEM, "hist: out of memory");
    fputs("snapshot,lo,hi,count\n", f);
    for (size_t s = 0; s < d->nframes; s++) {
        char fallback[32];
        snprintf(fallback, sizeof fallback, "snapshot %zu", s + 1);
        count(&d->frames[s], lo, hi, bins, cnt);
        for (size_t k = 0; k < bins; k++) {
            /* the edges as `hist` computes them; the last one exactly hi */
            char a[40], b[40], n[40];
            cs_format_double(a, sizeof a, lo + (hi - lo) * (double)k / (double)bins);
            cs_format_double(b, sizeof b,
                             k + 1 == bins ? hi : lo + (hi - lo) * (double)(k + 1) / (double)bins);
            cs_format_double(n, sizeof n, cnt[k]);
            cs_csv_field(f, d->frames[s].name ? d->frames[s].name : fallback);
            fprintf(f, ",%s,%s,%s\n", a, b, n);
        }
    }
    free(cnt);
    if (fflush(f) != 0 || ferror(f))
        return cs_fail(err, CS_EIO, "hist: cannot write the CSV: %s", strerror(errno));
    return CS_OK;
}
