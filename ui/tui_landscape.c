/* tui_landscape.c — the Landscape panel: the current regularizer over the
 * view box as a heat map, log scale. With 256 colours and UTF-8 each cell
 * holds two pixels (upper half block ▀: foreground is the upper pixel,
 * background the lower one); otherwise an ASCII density ramp, one value per
 * cell. The target set, the iterate's trajectory, x* and the iterate are
 * drawn on top; axis ticks on the left and below, a legend at the bottom. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

enum { LABEL_W = 7, MAP_X = 1 + LABEL_W + 1, MAP_Y = 2, FOOT_ROWS = 2 };

static const char ascii_ramp[] = " .,:;=%#@";
enum { PIX_TARGET = -1, PIX_PATH = -2, PIX_XSTAR = -3 };

void tui_landscape_pixels(int h, int w, size_t *nx, size_t *ny)
{
    int cw = w - MAP_X - 1, ch = h - MAP_Y - FOOT_ROWS - 1;
    if (cw < 3 || ch < 2) {
        *nx = *ny = 0;
        return;
    }
    /* odd pixel counts: a box symmetric about 0 then has a row and a
     * column of pixels exactly on the axes */
    cw -= cw % 2 == 0;
    if (!tui_cap.rich)
        ch -= ch % 2 == 0;
    *nx = (size_t)cw;
    *ny = (size_t)(tui_cap.rich ? 2 * ch - 1 : ch);
}

typedef struct scale {
    double l0, l1;  /* log10 of the lowest and highest value shown */
    int flat;
} scale;

/* Log scale over six decades below the largest value (exact zeros, the
 * target set, get the lowest colour). */
static scale make_scale(const cs_view_map *m)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < m->nx * m->ny; k++) {
        double z = m->z[k];
        if (isfinite(z) && z > 0) {
            lo = fmin(lo, z);
            hi = fmax(hi, z);
        }
    }
    scale s = {0, 1, 0};
    if (!(hi > 0)) {
        s.flat = 1;
        return s;
    }
    double floor = fmax(lo, hi * 1e-6);
    s.l0 = log10(floor);
    s.l1 = log10(hi);
    if (s.l1 - s.l0 < 1e-9)
        s.l0 = s.l1 - 1;
    return s;
}

static double level(const scale *s, double z)
{
    if (s->flat || !(z > 0))
        return 0;
    if (!isfinite(z))
        return 1;
    double t = (log10(z) - s->l0) / (s->l1 - s->l0);
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

typedef struct canvas {
    int nx, ny;   /* pixels */
    int *pix;     /* level index (0..TUI_RAMP-1) or PIX_*; row 0 at the top */
    const cs_view_map *m;
} canvas;

static int to_px(const canvas *c, double x, double y, int *i, int *j)
{
    const cs_view_map *m = c->m;
    double fx = (x - m->x0) / (m->x1 - m->x0) * (c->nx - 1);
    double fy = (y - m->y0) / (m->y1 - m->y0) * (c->ny - 1);
    if (!isfinite(fx) || !isfinite(fy) || fx < -0.5 || fy < -0.5 || fx > c->nx - 0.5 ||
        fy > c->ny - 0.5)
        return 0;
    *i = (int)lround(fx);
    *j = c->ny - 1 - (int)lround(fy);
    return 1;
}

static void plot_px(canvas *c, double x, double y, int v)
{
    int i, j;
    if (to_px(c, x, y, &i, &j))
        c->pix[j * c->nx + i] = v;
}

static void plot_line(canvas *c, double xa, double ya, double xb, double yb, int v)
{
    const cs_view_map *m = c->m;
    double dx = (xb - xa) / (m->x1 - m->x0) * c->nx, dy = (yb - ya) / (m->y1 - m->y0) * c->ny;
    double len = sqrt(dx * dx + dy * dy);
    int steps = len > 4096 ? 8192 : (int)(2 * len) + 1;
    for (int k = 0; k <= steps; k++) {
        double t = (double)k / steps;
        plot_px(c, xa + t * (xb - xa), ya + t * (yb - ya), v);
    }
}

static void fill_canvas(tui *t, canvas *c, const scale *s)
{
    const cs_view_map *m = c->m;
    for (int j = 0; j < c->ny; j++) {
        /* nearest map row (the map may have another size until it is redone) */
        size_t mj = m->ny - 1 - (size_t)lround((double)j * (double)(m->ny - 1) / (c->ny - 1));
        for (int i = 0; i < c->nx; i++) {
            size_t mi = (size_t)lround((double)i * (double)(m->nx - 1) / (c->nx - 1));
            double lv = level(s, m->z[mj * m->nx + mi]);
            c->pix[j * c->nx + i] = (int)lround(lv * (TUI_RAMP - 1));
        }
    }
    for (size_t k = 0; k < m->ntarget; k++) {
        const cs_view_curve *cv = &m->target[k];
        if (cv->n == 2)
            plot_line(c, cv->x[0], cv->y[0], cv->x[1], cv->y[1], PIX_TARGET);
        else if (cv->n == 1)
            plot_px(c, cv->x[0], cv->y[0], PIX_TARGET);
    }
    const tui_snap *sn = t->snap;
    const tui_path *path = sn->path;
    for (size_t k = 1; path && k < path->len; k++) {
        double xa, ya, xb, yb;
        tui_path_at(path, k - 1, &xa, &ya);
        tui_path_at(path, k, &xb, &yb);
        plot_line(c, xa, ya, xb, yb, PIX_PATH);
    }
    int d0 = m->dims[0] - 1, d1 = m->dims[1] - 1;
    if (sn->have_problem && sn->xstar && (size_t)d1 < sn->n && (size_t)d0 < sn->n)
        plot_px(c, sn->xstar[d0], sn->xstar[d1], PIX_XSTAR);
}

static int pix_color(int v)
{
    switch (v) {
    case PIX_TARGET: return TUI_MARK_TARGET;
    case PIX_PATH: return TUI_MARK_PATH;
    case PIX_XSTAR: return TUI_MARK_XSTAR;
    default: return v;
    }
}

static char pix_char(int v)
{
    switch (v) {
    case PIX_TARGET: return 'o';
    case PIX_PATH: return '+';
    case PIX_XSTAR: return '*';
    default: return ascii_ramp[(v * (int)(sizeof ascii_ramp - 2) + (TUI_RAMP - 1) / 2) /
                               (TUI_RAMP - 1)];
    }
}

static void draw_cells(WINDOW *w, const canvas *c)
{
    if (tui_cap.rich) {
        for (int r = 0; r < (c->ny + 1) / 2; r++)
            for (int i = 0; i < c->nx; i++) {
                int top = pix_color(c->pix[2 * r * c->nx + i]);
                int bot = 2 * r + 1 < c->ny ? pix_color(c->pix[(2 * r + 1) * c->nx + i]) : -1;
                wcolor_set(w, tui_pair_pixels(top, bot), NULL);
                mvwaddstr(w, MAP_Y + r, MAP_X + i, "▀");
            }
        wcolor_set(w, 0, NULL);
        return;
    }
    for (int r = 0; r < c->ny; r++)
        for (int i = 0; i < c->nx; i++) {
            int v = c->pix[r * c->nx + i];
            mvwaddch(w, MAP_Y + r, MAP_X + i, (chtype)(unsigned char)pix_char(v));
        }
}

/* The iterate: a glyph over its cell. */
static void draw_iterate(tui *t, WINDOW *w, const canvas *c)
{
    const tui_snap *sn = t->snap;
    const cs_view_map *m = c->m;
    int d0 = m->dims[0] - 1, d1 = m->dims[1] - 1;
    if (!sn->have_problem || !sn->x || (size_t)d0 >= sn->n || (size_t)d1 >= sn->n)
        return;
    int i, j;
    if (!to_px(c, sn->x[d0], sn->x[d1], &i, &j))
        return;
    int row = tui_cap.rich ? j / 2 : j;
    int attr = A_BOLD | (tui_cap.color ? COLOR_PAIR(TUI_PAIR_OK) : A_REVERSE);
    wattron(w, attr);
    mvwaddstr(w, MAP_Y + row, MAP_X + i, tui_cap.utf8 ? "◆" : "X");
    wattroff(w, attr);
}

static void draw_axes(WINDOW *w, const cs_view_map *m, int nx, int ny)
{
    const char *tick = tui_cap.utf8 ? "┤" : "+";
    int px[3] = {0, (ny - 1) / 2, ny - 1};
    for (int k = 0; k < 3; k++) {
        double y = m->y1 - (double)px[k] / (ny - 1) * (m->y1 - m->y0);
        if (fabs(y) < 1e-12 * (m->y1 - m->y0))
            y = 0;
        int row = MAP_Y + (tui_cap.rich ? px[k] / 2 : px[k]);
        tui_putf(w, row, 1, "%*.*g", LABEL_W - 1, 3, y);
        tui_put(w, row, LABEL_W, tick);
    }
    int ch = tui_cap.rich ? (ny + 1) / 2 : ny;
    int row = MAP_Y + ch;
    char a[32], b[32], c[32];
    double mid = 0.5 * (m->x0 + m->x1);
    if (fabs(mid) < 1e-12 * (m->x1 - m->x0))
        mid = 0;
    snprintf(a, sizeof a, "%.3g", m->x0);
    snprintf(b, sizeof b, "%.3g", mid);
    snprintf(c, sizeof c, "%.3g", m->x1);
    int al = (int)strlen(a), bl = (int)strlen(b), cl = (int)strlen(c);
    tui_put(w, row, MAP_X, a);
    int bx = MAP_X + (nx - 1) / 2 - bl / 2;
    if (bx > MAP_X + al && bx + bl < MAP_X + nx - cl)
        tui_put(w, row, bx, b);
    tui_put(w, row, MAP_X + nx - cl, c);
    int lx = MAP_X + (nx - 1) / 4;
    if (lx > MAP_X + al + 1 && lx + 4 < bx)
        tui_putf(w, row, lx, "x%d", m->dims[0]);
    tui_putf(w, 1, 2, "x%d", m->dims[1]);
}

static void draw_legend(WINDOW *w, const scale *s, int row, int width)
{
    char lo[32], hi[32];
    if (s->flat) {
        tui_putn(w, row, 1, width - 1, "value 0 everywhere");
        return;
    }
    snprintf(lo, sizeof lo, "%.1f", s->l0);
    snprintf(hi, sizeof hi, "%.1f", s->l1);
    int x = 1;
    const char *label = tui_cap.utf8 ? "log₁₀ℓ " : "log10 ";
    int label_w = tui_cap.utf8 ? 7 : 6;
    int need = (int)strlen(lo) + (int)strlen(hi) + 2;
    if (width - x >= label_w + need + 8) {
        tui_putn(w, row, x, width - x, label);
        x += label_w;
    }
    tui_put(w, row, x, lo);
    x += (int)strlen(lo) + 1;
    int bar = width - x - (int)strlen(hi) - 1;
    bar = bar > TUI_RAMP ? TUI_RAMP : bar;
    for (int k = 0; k < bar; k++) {
        int level = bar > 1 ? (k * (TUI_RAMP - 1) + (bar - 1) / 2) / (bar - 1) : 0;
        if (tui_cap.rich) {
            wcolor_set(w, tui_pair_pixels(level, level), NULL);
            mvwaddstr(w, row, x + k, "▀");
            wcolor_set(w, 0, NULL);
        } else {
            mvwaddch(w, row, x + k, (chtype)(unsigned char)pix_char(level));
        }
    }
    x += (bar > 0 ? bar : 0) + 1;
    tui_putn(w, row, x, width - x, hi);
    x += (int)strlen(hi) + 2;
    /* marker key */
    if (!tui_cap.rich) {
        tui_putn(w, row, x, width - x, "o target  + path  * x*  X iterate");
        return;
    }
    static const struct { int color; const char *text; } marks[] = {
        {TUI_MARK_TARGET, " target  "}, {TUI_MARK_PATH, " path  "}, {TUI_MARK_XSTAR, " x*  "}};
    for (size_t k = 0; k < 3 && x + 10 < width; k++) {
        wcolor_set(w, tui_pair_pixels(marks[k].color, marks[k].color), NULL);
        mvwaddstr(w, row, x, "▀");
        wcolor_set(w, 0, NULL);
        tui_putn(w, row, x + 1, width - x - 1, marks[k].text);
        x += 1 + (int)strlen(marks[k].text);
    }
    if (x + 10 < width)
        tui_putn(w, row, x, width - x, "◆ iterate");
}

void tui_landscape_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    tui_panel_box(w, "Landscape", t->focus == TUI_FOCUS_LAND);
    const tui_snap *sn = t->snap;
    size_t nx, ny;
    tui_landscape_pixels(h, wd, &nx, &ny);
    if (!sn || nx == 0) {
        tui_put(w, 1, 2, nx ? "computing..." : "(too small)");
        return;
    }
    const cs_view_map *m = sn->map;
    if (!m) {
        tui_putn(w, 1, 2, wd - 3, sn->map_err[0] ? sn->map_err : "computing...");
        return;
    }
    char info[256];
    int roomy = wd >= 50;
    if (m->slice)
        snprintf(info, sizeof info, "%s, slice x%d,x%d through %s (N=%zu)", sn->reg, m->dims[0],
                 m->dims[1], roomy ? "the iterate" : "x", sn->n);
    else
        snprintf(info, sizeof info, "%s, plane x%d,x%d%s", sn->reg, m->dims[0], m->dims[1],
                 sn->have_problem && roomy ? " with the iterate" : "");
    tui_putn(w, 1, LABEL_W + 2, wd - LABEL_W - 3, info);
    int ch = tui_cap.rich ? ((int)ny + 1) / 2 : (int)ny;
    canvas c = {(int)nx, (int)ny, calloc(nx * ny, sizeof(int)), m};
    if (!c.pix)
        return;
    scale s = make_scale(m);
    fill_canvas(t, &c, &s);
    draw_cells(w, &c);
    draw_iterate(t, w, &c);
    draw_axes(w, m, (int)nx, (int)ny);
    draw_legend(w, &s, MAP_Y + ch + 1, wd - 1);
    free(c.pix);
}
