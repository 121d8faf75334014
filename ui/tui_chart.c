/* tui_chart.c — the training view's Curves panel: the run's training loss,
 * regularizer value and test accuracy against the run's step, one band
 * each, in braille dots (2×4 per cell; with an ASCII fallback of ' . : on
 * plain terminals), with the current value and the range beside each, and
 * x ticks in steps under them (the title's range, the Training panel's
 * step counter: the same steps); and the series behind them, which hold a
 * whole run (halving their density when full). The loss is a running mean
 * over the epoch: its first point stands for the steps from 0 to it, so its
 * curve begins at step 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

/* ---- series -------------------------------------------------------------- */

void tui_series_clear(tui_series *s) { s->n = 0; }

void tui_series_push(tui_series *s, double x, double y)
{
    if (!isfinite(y))
        return;
    if (s->n == TUI_SERIES_CAP) {   /* keep 1, 3, 5, ...: the newest stays */
        for (size_t i = 0; i < TUI_SERIES_CAP / 2; i++) {
            s->x[i] = s->x[2 * i + 1];
            s->y[i] = s->y[2 * i + 1];
        }
        s->n = TUI_SERIES_CAP / 2;
    }
    s->x[s->n] = x;
    s->y[s->n] = y;
    s->n++;
}

void tui_train_state_add(tui_train_state *s, const cs_train_frame *f)
{
    if (f->run != s->f.run) {
        tui_series_clear(&s->loss);
        tui_series_clear(&s->reg);
        tui_series_clear(&s->acc);
        s->acc_step = (size_t)-1;
        for (size_t i = 0; i < CS_NN_WATCH_LAYERS; i++)
            s->hist[i].bins = 0;
    }
    s->f = *f;
    for (size_t i = 0; i < f->nlayers; i++)
        if (f->layer[i].bins) {
            s->hist[i] = f->layer[i];
            s->hist_step[i] = f->step;
        }
    if (f->run_step > 0 && !f->final) {
        tui_series_push(&s->loss, (double)f->run_step, f->loss);
        if (strcmp(f->reg, "none"))
            tui_series_push(&s->reg, (double)f->run_step, f->reg_value);
    }
    if (isfinite(f->test_acc) && f->test_step != s->acc_step) {
        tui_series_push(&s->acc, (double)f->test_step, f->test_acc);
        s->acc_step = f->test_step;
    }
}

/* ---- a canvas of dots ----------------------------------------------------- */

enum { CANVAS_MAX_W = 256, CANVAS_MAX_H = 64 };
typedef struct canvas {
    int w, h;   /* cells */
    unsigned char dot[CANVAS_MAX_H][CANVAS_MAX_W];  /* braille bits per cell */
} canvas;

/* braille bit of dot (dx 0..1, dy 0..3) within a cell */
static unsigned char braille_bit(int dx, int dy)
{
    static const unsigned char bits[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
    return bits[dx][dy];
}

static void canvas_set(canvas *c, int px, int py)
{
    if (px < 0 || py < 0 || px >= 2 * c->w || py >= 4 * c->h)
        return;
    c->dot[py / 4][px / 2] |= braille_bit(px % 2, py % 4);
}

static void canvas_line(canvas *c, int x0, int y0, int x1, int y1)
{
    int n = abs(x1 - x0) > abs(y1 - y0) ? abs(x1 - x0) : abs(y1 - y0);
    for (int i = 0; i <= n; i++)
        canvas_set(c, n ? x0 + (x1 - x0) * i / n : x0, n ? y0 + (y1 - y0) * i / n : y0);
}

static void canvas_draw(const canvas *c, WINDOW *w, int y, int x)
{
    for (int r = 0; r < c->h; r++)
        for (int k = 0; k < c->w; k++) {
            unsigned char b = c->dot[r][k];
            if (tui_cap.utf8) {
                if (!b)
                    continue;
                char g[4] = {(char)0xe2, (char)(0xa0 | (b >> 6)), (char)(0x80 | (b & 0x3f)), 0};
                mvwaddstr(w, y + r, x + k, g);
            } else {
                int up = (b & 0x1b) != 0, down = (b & 0xe4) != 0;  /* rows 0-1, rows 2-3 */
                if (up || down)
                    mvwaddch(w, y + r, x + k, up && down ? ':' : up ? '\'' : '.');
            }
        }
}

/* ---- the bands ------------------------------------------------------------ */

/* Plot series s over x in [0, xmax] into a w×h canvas at (y, x) of the
 * window; log: log10 of the values (all positive). Returns the range. */
static void plot_series(WINDOW *win, int y, int x, int w, int h, const tui_series *s,
                        double xmax, int logy, int from0, double *lo, double *hi)
{
    static canvas c;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < s->n; i++) {
        *lo = fmin(*lo, s->y[i]);
        *hi = fmax(*hi, s->y[i]);
    }
    if (w < 1 || h < 1 || s->n == 0)
        return;
    c.w = w < CANVAS_MAX_W ? w : CANVAS_MAX_W;
    c.h = h < CANVAS_MAX_H ? h : CANVAS_MAX_H;
    memset(c.dot, 0, sizeof c.dot);
    double a = logy ? log10(*lo) : *lo, b = logy ? log10(*hi) : *hi;
    if (!(b > a)) {   /* one value: the middle row */
        a -= 0.5;
        b += 0.5;
    }
    int px0 = 0, py0 = 0;
    for (size_t i = 0; i < s->n; i++) {
        double v = logy ? log10(s->y[i]) : s->y[i];
        int px = (int)lround(xmax > 0 ? s->x[i] / xmax * (2 * c.w - 1) : 0);
        int py = (int)lround((b - v) / (b - a) * (4 * c.h - 1));
        if (i == 0 && from0)
            canvas_line(&c, 0, py, px, py);   /* the mean over steps 0..x[0] */
        else if (i == 0)
            canvas_set(&c, px, py);
        else
            canvas_line(&c, px0, py0, px, py);
        px0 = px;
        py0 = py;
    }
    if (tui_cap.color)
        wattron(win, COLOR_PAIR(TUI_PAIR_SPARK));
    canvas_draw(&c, win, y, x);
    if (tui_cap.color)
        wattroff(win, COLOR_PAIR(TUI_PAIR_SPARK));
}

/* One band: the label and value over the range at the left, the plot
 * right of them. */
enum { LABEL_W = 15 };

static void band(WINDOW *w, int y, int h, int wd, const char *label, double now,
                 const tui_series *s, double xmax, int allow_log, int from0, const char *note)
{
    double lo, hi;
    int logy = 0;
    if (allow_log && s->n) {
        double mn = INFINITY, mx = -INFINITY;
        for (size_t i = 0; i < s->n; i++) {
            mn = fmin(mn, s->y[i]);
            mx = fmax(mx, s->y[i]);
        }
        logy = mn > 0 && mx / mn > 50;
    }
    plot_series(w, y, 1 + LABEL_W, wd - 2 - LABEL_W, h, s, xmax, logy, from0, &lo, &hi);
    char v[32], line[64];
    if (!isfinite(now))
        snprintf(v, sizeof v, "%s", note ? note : "n/a");
    else
        snprintf(v, sizeof v, "%.4g", now);
    snprintf(line, sizeof line, "%s %s", label, v);
    wattron(w, A_BOLD);
    tui_putn(w, y, 1, LABEL_W - 1, line);
    wattroff(w, A_BOLD);
    if (h >= 2 && s->n) {
        snprintf(line, sizeof line, "%.3g..%.3g", lo, hi);
        tui_putn(w, y + 1, 1, LABEL_W - 1, line);
    }
    const char *third = logy ? "log scale" : isfinite(now) ? note : NULL;
    if (h >= 3 && third)
        tui_putn(w, y + 2, 1, LABEL_W - 1, third);
}

/* The step axis under the bands: 0, the middle and the last step at
 * their columns, "step" at the left. */
static void x_ticks(WINDOW *w, int row, int wd, size_t steps)
{
    int x0 = 1 + LABEL_W, width = wd - 2 - LABEL_W;
    if (width < 8 || !steps)
        return;
    tui_put(w, row, 1, "step");
    char a[24], b[24];
    snprintf(a, sizeof a, "%zu", steps / 2);
    snprintf(b, sizeof b, "%zu", steps);
    const char *tick = tui_cap.utf8 ? "╵" : "'";
    tui_put(w, row, x0, tick);
    tui_put(w, row, x0 + 1, "0");
    int mid = x0 + (width - 1) / 2, bl = (int)strlen(b), al = (int)strlen(a);
    if (mid + al + 1 < x0 + width - bl - 1) {
        tui_put(w, row, mid, tick);
        tui_put(w, row, mid + 1, a);
    }
    tui_put(w, row, x0 + width - 1 - bl, b);
    tui_put(w, row, x0 + width - 1, tick);
}

void tui_chart_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    const tui_train_state *s = t->tv;
    if (!s || !t->tv_run)
        return;
    const cs_train_frame *f = &s->f;
    char title[64];
    snprintf(title, sizeof title, " steps 0..%zu of this run ", f->run_steps);
    if (f->run_steps)
        tui_put(w, 0, wd - (int)strlen(title) - 2, title);
    int inner = h - 3, per = inner / 3, extra = inner - 3 * per;
    if (per < 1)
        return;
    x_ticks(w, h - 2, wd, f->run_steps);
    double xmax = f->run_steps ? (double)f->run_steps : 1;
    char acc_note[48];
    snprintf(acc_note, sizeof acc_note, "%zu test img", f->test_n);
    int y = 1;
    band(w, y, per + extra, wd, "loss", f->loss, &s->loss, xmax, 0, 1, NULL);
    y += per + extra;
    band(w, y, per, wd, "reg", strcmp(f->reg, "none") ? f->reg_value : NAN, &s->reg, xmax, 1, 0,
         strcmp(f->reg, "none") ? NULL : "none");
    y += per;
    band(w, y, per, wd, "test acc", f->test_acc, &s->acc, xmax, 0, 0,
         f->test_n ? acc_note : NULL);
}
