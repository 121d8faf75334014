/* tui_hist.c — the Histogram panel: the entries of the current iterate (or,
 * after training, the weights of the selected layer/row) as vertical bars
 * (eighth-block tops), over a range symmetric about 0, redrawn after every
 * command so clusters forming at the target values show live. */
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
    tui_putn(w, 1, 2, wd - 3, head);
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

void tui_hist_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    tui_panel_box(w, "Histogram", t->focus == TUI_FOCUS_HIST);
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
