/* tui_hist.c — the Histogram panel: the entries of the current iterate (or,
 * after training, the weights of the selected layer/row) as vertical bars
 * (eighth-block tops), over a range symmetric about 0, redrawn after every
 * command so clusters forming at the target values show live; in the
 * training view, the frames of a run: the exact counts of every weight of
 * the selected layer over the run's fixed range, the levels ±α (and 0 and
 * the threshold ±τ for ternary) marked, linear or log counts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

/* Bars of the values v (n of them) below a header line. */
static void draw_bars(WINDOW *w, int h, int wd, const double *v, size_t n, const char *what)
{
    int width = wd - 2, rows = h - 4;
    if (width < 3 || rows < 1)
        return;
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            m = fmax(m, fabs(v[i]));
    m = m > 0 ? 1.05 * m : 1;
    int bins = width;
    int *count = calloc((size_t)bins, sizeof *count);
    if (!count)
        return;
    int top = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            continue;
        int b = (int)floor((v[i] + m) / (2 * m) * bins);
        b = b < 0 ? 0 : b >= bins ? bins - 1 : b;
        if (++count[b] > top)
            top = count[b];
    }
    char head[256];
    snprintf(head, sizeof head, "%s%zu %s, peak %d", what, n, what[0] ? "values" : "entries",
             top);
    tui_putn_clauses(w, 1, 2, wd - 3, head);   /* never "..., peak" without its number */
    if (tui_cap.color)
        wattron(w, COLOR_PAIR(TUI_PAIR_HIST));
    for (int b = 0; b < bins; b++) {
        double height = top ? (double)count[b] / top * rows : 0;
        for (int r = 0; r < rows; r++) {
            double fill = height - r;  /* r = 0 is the bottom row */
            if (fill <= 0)
                break;
            mvwaddstr(w, 1 + rows - r, 1 + b, tui_vbar(fill >= 1 ? 1 : fill));
        }
    }
    if (tui_cap.color)
        wattroff(w, COLOR_PAIR(TUI_PAIR_HIST));
    free(count);
    char lo[32], hi[32];
    snprintf(lo, sizeof lo, "%.3g", -m);
    snprintf(hi, sizeof hi, "%.3g", m);
    tui_put(w, h - 2, 1, lo);
    if (width > (int)(strlen(lo) + strlen(hi)) + 3)
        tui_put(w, h - 2, 1 + width / 2, "0");
    tui_put(w, h - 2, 1 + width - (int)strlen(hi), hi);
}

/* ---- frames of a run ----------------------------------------------------- */

typedef struct hist_cols {
    int n, group;         /* columns, bins per column */
    uint32_t count[CS_NN_WATCH_BINS];
    uint32_t peak;
} hist_cols;

/* The layer's bins in at most `width` columns (whole bins per column). */
static void frame_columns(const cs_nn_watch_layer *l, int width, hist_cols *c)
{
    c->group = (l->bins + width - 1) / width;
    c->n = (l->bins + c->group - 1) / c->group;
    c->peak = 0;
    for (int k = 0; k < c->n; k++) {
        uint32_t s = 0;
        for (int b = k * c->group; b < (k + 1) * c->group && b < l->bins; b++)
            s += l->counts[b];
        c->count[k] = s;
        if (s > c->peak)
            c->peak = s;
    }
}

/* The column of value v, -1 outside. */
static int value_column(const cs_nn_watch_layer *l, const hist_cols *c, double v)
{
    if (!isfinite(v) || v < l->lo || v > l->hi)
        return -1;
    int b = (int)((v - l->lo) / (l->hi - l->lo) * l->bins);
    b = b >= l->bins ? l->bins - 1 : b;
    return b / c->group;
}

static void frame_levels(const cs_nn_watch_layer *l, double lv[5], int *nlv, double tv[2],
                         int *ntv)
{
    *nlv = *ntv = 0;
    lv[(*nlv)++] = -l->alpha_mean;
    lv[(*nlv)++] = l->alpha_mean;
    if (l->levels == 3) {
        lv[(*nlv)++] = 0;
        if (isfinite(l->tau_mean)) {
            tv[(*ntv)++] = -l->tau_mean;
            tv[(*ntv)++] = l->tau_mean;
        }
    }
}

/* Layer l's latest histogram (taken at `step`), or its name alone; tag
 * (NULL: none) names the run when two are compared. */
static void draw_frame(tui *t, WINDOW *w, const char *name, const cs_nn_watch_layer *l,
                       size_t step, const char *tag)
{
    int h, wd;
    getmaxyx(w, h, wd);
    char line[256];
    if (l->bins == 0) {   /* just chosen: the next frame has it */
        tui_putn(w, 1, 2, wd - 3, name);
        tui_putn(w, 2, 2, wd - 3, "(its histogram comes with the next frame)");
        return;
    }
    snprintf(line, sizeof line, "%s%s%s step %zu", tag ? tag : "", tag ? ": " : "", l->name,
             step);   /* tests read this line */
    wattron(w, A_BOLD);
    tui_putn(w, 1, 2, wd - 3, line);
    wattroff(w, A_BOLD);
    hist_cols c;
    frame_columns(l, wd - 2, &c);
    snprintf(line, sizeof line, "%zu weights, peak %u, %zu outside%s", l->rows * l->cols, c.peak,
             l->outside, t->hist_log ? ", log" : "");
    tui_putn_clauses(w, 2, 2, wd - 3, line);
    int rows = h - 6, x0 = 1 + (wd - 2 - c.n) / 2;
    if (rows < 1)
        return;
    double lv[5], tv[2];
    int nlv, ntv;
    frame_levels(l, lv, &nlv, tv, &ntv);
    double top = t->hist_log ? log1p((double)c.peak) : (double)c.peak;
    if (tui_cap.color)
        wattron(w, COLOR_PAIR(TUI_PAIR_HIST));
    for (int k = 0; k < c.n; k++) {
        double v = t->hist_log ? log1p((double)c.count[k]) : (double)c.count[k];
        double height = top > 0 ? v / top * rows : 0;
        for (int r = 0; r < rows && height - r > 0; r++)
            mvwaddstr(w, 2 + rows - r, x0 + k, tui_vbar(height - r >= 1 ? 1 : height - r));
    }
    if (tui_cap.color)
        wattroff(w, COLOR_PAIR(TUI_PAIR_HIST));
    /* the axis: ▲ at the levels, ┊ at the thresholds */
    int axis = h - 3;
    for (int k = 0; k < c.n; k++)
        mvwaddstr(w, axis, x0 + k, tui_cap.utf8 ? "─" : "-");
    if (tui_cap.color)
        wattron(w, COLOR_PAIR(TUI_PAIR_CMD) | A_BOLD);
    for (int i = 0; i < ntv; i++) {
        int k = value_column(l, &c, tv[i]);
        if (k >= 0)
            mvwaddstr(w, axis, x0 + k, tui_cap.utf8 ? "┊" : ":");
    }
    for (int i = 0; i < nlv; i++) {
        int k = value_column(l, &c, lv[i]);
        if (k >= 0)
            mvwaddstr(w, axis, x0 + k, tui_cap.utf8 ? "▲" : "^");
    }
    if (tui_cap.color)
        wattroff(w, COLOR_PAIR(TUI_PAIR_CMD) | A_BOLD);
    char lo[32], hi[32], mid[96];
    snprintf(lo, sizeof lo, "%.3g", l->lo);
    snprintf(hi, sizeof hi, "%.3g", l->hi);
    if (ntv)
        snprintf(mid, sizeof mid, "%s %.3g %s %.3g", tui_cap.utf8 ? "α" : "a", l->alpha_mean,
                 tui_cap.utf8 ? "τ" : "t", l->tau_mean);
    else
        snprintf(mid, sizeof mid, "%s%s %.3g", tui_cap.utf8 ? "±α" : "+-a",
                 l->levels == 3 ? ",0" : "", l->alpha_mean);
    tui_put(w, h - 2, x0, lo);
    tui_put(w, h - 2, x0 + c.n - (int)strlen(hi), hi);
    int room = c.n - (int)strlen(lo) - (int)strlen(hi) - 2;
    int mlen = 0;   /* columns: UTF-8 continuation bytes take none */
    for (const char *p = mid; *p; p++)
        mlen += ((unsigned char)*p & 0xc0) != 0x80;
    if (mlen <= room)
        tui_put(w, h - 2, x0 + (c.n - mlen) / 2, mid);
}

/* The selected layer's latest histogram (the training view). */
static int draw_training(tui *t, WINDOW *w)
{
    if (t->view != TUI_VIEW_TRAIN || !t->tv || !t->tv_run || t->tv->f.nlayers == 0)
        return 0;
    const tui_train_state *s = t->tv;
    size_t k = (size_t)s->f.sel;
    for (size_t i = 0; i < s->f.nlayers; i++)
        if (!strcmp(s->f.layer[i].name, t->tv_layer))
            k = i;
    if (!s->cmp.bins) {
        draw_frame(t, w, s->f.layer[k].name, &s->hist[k], s->hist_step[k], NULL);
        return 1;
    }
    /* two runs (a run folder compared, tui_folder.c): side by side */
    int h, wd;
    getmaxyx(w, h, wd);
    WINDOW *half[2] = {derwin(w, h, wd / 2, 0, 0), derwin(w, h, wd - wd / 2, 0, wd / 2)};
    if (half[0] && half[1]) {
        draw_frame(t, half[0], s->f.layer[k].name, &s->hist[k], s->hist_step[k], s->tag[0]);
        draw_frame(t, half[1], s->cmp.name, &s->cmp, s->cmp_step, s->tag[1]);
    }
    for (int i = 0; i < 2; i++)
        if (half[i])
            delwin(half[i]);
    return 1;
}

void tui_hist_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    if (draw_training(t, w))
        return;
    const tui_snap *s = t->snap;
    if (s && s->show_weights && s->w && s->nw) {
        /* "weights fc1 row 3: 784 values, peak 40" */
        char what[128];
        if (s->wrow >= 0)
            snprintf(what, sizeof what, "weights %.40s row %ld: ", s->wlayer, s->wrow);
        else
            snprintf(what, sizeof what, "weights %.40s: ", s->wlayer);
        draw_bars(w, h, wd, s->w, s->nw, what);
        return;
    }
    if (!s || !s->have_problem || !s->x || s->n == 0) {
        tui_putn(w, 1, 2, wd - 3, "entries of the iterate");
        return;
    }
    draw_bars(w, h, wd, s->x, s->n, "");
}
