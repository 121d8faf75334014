/* tui_landscape.c — the Landscape panel: the current regularizer over the
 * view box as a heat map, log scale (or, after `view map=basins`, the
 * problem's basin map: a colour per class of end point). With 256 colours
 * and UTF-8 each cell holds two pixels (upper half block ▀: foreground is
 * the upper pixel, background the lower one); otherwise an ASCII density
 * ramp, one value per cell. The colours, the canvas and the geometry come
 * from plots/heatmap.h, shared with `landscape` in a terminal. On top: the
 * target set, the feasible set Ax = b, every start and its path (the
 * successful or running one highlighted), x*, and the iterate (◆); axis
 * ticks on the left and below, a legend at the bottom. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

enum { LABEL_W = 7, MAP_X = 1 + LABEL_W + 1, MAP_Y = 2, FOOT_ROWS = 2 };

void tui_landscape_pixels(int h, int w, double xspan, double yspan, size_t *nx, size_t *ny)
{
    int cw = w - MAP_X - 1, ch = h - MAP_Y - FOOT_ROWS - 1;
    if (cw < 3 || ch < 2) {
        *nx = *ny = 0;
        return;
    }
    /* square cells: a character is about twice as tall as wide, so a text
     * row is two widths high (two half-block pixels, or one ASCII cell);
     * the map takes the box's aspect, as large as the panel allows, so that
     * |x1| = |x2| runs at 45 degrees */
    double aspect = xspan > 0 && yspan > 0 && isfinite(yspan / xspan) ? yspan / xspan : 1.0;
    double tall = 2.0 * ch;   /* the panel's height in character widths */
    if (cw * aspect > tall)
        cw = (int)(tall / aspect);
    else
        ch = (int)ceil(cw * aspect / 2.0);
    cw = cw < 3 ? 3 : cw;
    ch = ch < 2 ? 2 : ch;
    /* odd pixel counts: a box symmetric about 0 then has a row and a
     * column of pixels exactly on the axes */
    cw -= cw % 2 == 0;
    int py = tui_cap.rich ? (int)lround(cw * aspect) : (int)lround(cw * aspect / 2.0);
    int pmax = tui_cap.rich ? 2 * ch : ch;
    py = py > pmax ? pmax : py < 3 ? 3 : py;
    py -= py % 2 == 0;
    *nx = (size_t)cw;
    *ny = (size_t)py;
}

/* The map, the target set, and the geometry into the canvas. */
static void fill_canvas(tui *t, cs_heat_canvas *c, const cs_heat_scale *s)
{
    const cs_view_map *m = t->snap->map;
    if (m->cls)
        cs_heat_fill_classes(c, m->cls, m->nx, m->ny);
    else
        cs_heat_fill(c, m->z, m->nx, m->ny, s);
    for (size_t k = 0; k < m->ntarget; k++) {
        const cs_view_curve *cv = &m->target[k];
        cs_heat_line(c, cv->x[0], cv->y[0], cv->x[cv->n - 1], cv->y[cv->n - 1], CS_HEAT_TARGET);
    }
    /* the path of a slice (N > 2) is the worker's record of the iterate */
    const tui_path *path = t->snap->path;
    for (size_t k = 1; !m->geo.npaths && !m->cls && path && k < path->len; k++) {
        double xa, ya, xb, yb;
        tui_path_at(path, k - 1, &xa, &ya);
        tui_path_at(path, k, &xb, &yb);
        cs_heat_line(c, xa, ya, xb, yb, CS_HEAT_MAIN_PATH);
    }
    cs_heat_geometry(c, &m->geo, 0);
    for (size_t k = 0; k < m->nends; k++)
        cs_heat_point(c, m->ends[k][0], m->ends[k][1], CS_HEAT_START);
}

static void draw_cells(WINDOW *w, const cs_heat_canvas *c)
{
    if (tui_cap.rich) {
        for (int r = 0; r < (c->ny + 1) / 2; r++)
            for (int i = 0; i < c->nx; i++) {
                int top = c->pix[2 * r * c->nx + i];
                int bot = 2 * r + 1 < c->ny ? c->pix[(2 * r + 1) * c->nx + i] : -1;
                wcolor_set(w, tui_pair_pixels(top, bot), NULL);
                mvwaddstr(w, MAP_Y + r, MAP_X + i, "▀");
            }
        wcolor_set(w, 0, NULL);
        return;
    }
    for (int r = 0; r < c->ny; r++)
        for (int i = 0; i < c->nx; i++)
            mvwaddch(w, MAP_Y + r, MAP_X + i,
                     (chtype)(unsigned char)cs_heat_ascii(c->pix[r * c->nx + i]));
}

/* The iterate: a glyph over its cell. */
static void draw_iterate(tui *t, WINDOW *w, const cs_heat_canvas *c)
{
    const cs_view_map *m = t->snap->map;
    int i, j;
    if (!m->geo.has_iterate || !cs_heat_to_px(c, m->geo.iterate[0], m->geo.iterate[1], &i, &j))
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

/* One key entry: a sample of the colour and its text; returns the next x. */
static int key_entry(WINDOW *w, int row, int x, int width, int colour, const char *text)
{
    int len = (int)strlen(text);
    if (x + 2 + len > width)
        return x;
    if (tui_cap.rich) {
        wcolor_set(w, tui_pair_pixels(colour, colour), NULL);
        mvwaddstr(w, row, x, "▀");
        wcolor_set(w, 0, NULL);
    } else {
        mvwaddch(w, row, x, (chtype)(unsigned char)cs_heat_ascii(colour));
    }
    tui_putn(w, row, x + 1, width - x - 1, text);
    return x + 2 + len;
}

/* The marker key: what the map shows. */
static void draw_marker_key(WINDOW *w, const cs_view_map *m, int row, int x, int width)
{
    if (m->ntarget)
        x = key_entry(w, row, x, width, CS_HEAT_TARGET, "target ");
    if (m->geo.constraint_n)
        x = key_entry(w, row, x, width, CS_HEAT_CONSTRAINT, "Ax=b ");
    if (m->geo.has_xstar)
        x = key_entry(w, row, x, width, CS_HEAT_XSTAR, "x* ");
    if (m->geo.npaths) {
        x = key_entry(w, row, x, width, CS_HEAT_START, "start ");
        x = key_entry(w, row, x, width, CS_HEAT_MAIN_PATH, "path ");
        if (m->geo.npaths > 1)
            x = key_entry(w, row, x, width, CS_HEAT_PATH, "other starts ");
    }
    if (m->geo.has_iterate && x + 10 < width)
        tui_putn(w, row, x, width - x, tui_cap.utf8 ? "◆ iterate" : "X iterate");
}

static void draw_legend(WINDOW *w, const cs_view_map *m, const cs_heat_scale *s, int row,
                        int width)
{
    int x = 1;
    if (m->cls) {
        static const char *const names[CS_PLOT_BASIN_CLASSES] = {"success", "other", "spurious",
                                                                 "not conv."};
        for (int k = 0; k < CS_PLOT_BASIN_CLASSES; k++) {
            char text[48];
            snprintf(text, sizeof text, "%s %zu ", names[k], m->counts[k]);
            x = key_entry(w, row, x, width, CS_HEAT_BASIN + k, text);
        }
        x = key_entry(w, row, x, width, CS_HEAT_START, "ends ");
        draw_marker_key(w, m, row, x, width);
        return;
    }
    if (s->flat) {
        tui_putn(w, row, 1, width - 1, "value 0 everywhere");
        return;
    }
    char lo[32], hi[32];
    snprintf(lo, sizeof lo, "%.1f", s->l0);
    snprintf(hi, sizeof hi, "%.1f", s->l1);
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
    bar = bar > TUI_RAMP / 2 ? TUI_RAMP / 2 : bar;
    for (int k = 0; k < bar; k++) {
        int level = bar > 1 ? (k * (TUI_RAMP - 1) + (bar - 1) / 2) / (bar - 1) : 0;
        if (tui_cap.rich) {
            wcolor_set(w, tui_pair_pixels(level, level), NULL);
            mvwaddstr(w, row, x + k, "▀");
            wcolor_set(w, 0, NULL);
        } else {
            mvwaddch(w, row, x + k, (chtype)(unsigned char)cs_heat_ascii(level));
        }
    }
    x += (bar > 0 ? bar : 0) + 1;
    tui_putn(w, row, x, width - x, hi);
    x += (int)strlen(hi) + 2;
    draw_marker_key(w, m, row, x, width);
}

void tui_landscape_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    const tui_snap *sn = t->snap;
    size_t nx, ny;
    const cs_view_map *mp = sn ? sn->map : NULL;
    tui_landscape_pixels(h, wd, mp ? mp->x1 - mp->x0 : 1, mp ? mp->y1 - mp->y0 : 1, &nx, &ny);
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
    if (m->cls)
        snprintf(info, sizeof info, "basins of %s%s (m: landscape)", m->basins_method,
                 m->slice ? ", slice through x*" : "");
    else if (m->slice)
        snprintf(info, sizeof info, "%s, slice x%d,x%d through %s (N=%zu)", sn->reg, m->dims[0],
                 m->dims[1], roomy ? "the iterate" : "x", sn->n);
    else
        snprintf(info, sizeof info, "%s, plane x%d,x%d%s", sn->reg, m->dims[0], m->dims[1],
                 sn->have_problem && roomy ? " with the problem" : "");
    tui_putn(w, 1, LABEL_W + 2, wd - LABEL_W - 3, info);
    int ch = tui_cap.rich ? ((int)ny + 1) / 2 : (int)ny;
    cs_heat_canvas c;
    if (cs_heat_canvas_init(&c, (int)nx, (int)ny, m->x0, m->x1, m->y0, m->y1))
        return;
    cs_heat_scale s = m->z ? cs_heat_scale_of(m->z, m->nx * m->ny) : (cs_heat_scale){0, 1, 1};
    fill_canvas(t, &c, &s);
    draw_cells(w, &c);
    draw_iterate(t, w, &c);
    draw_axes(w, m, (int)nx, (int)ny);
    draw_legend(w, m, &s, MAP_Y + ch + 1, wd - 1);
    cs_heat_canvas_free(&c);
}
