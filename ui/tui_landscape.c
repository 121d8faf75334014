/* tui_landscape.c — the Landscape panel: the current regularizer over the
 * view box as a heat map, log scale (or, after `view map=basins`, the
 * problem's basin map: a colour per class of end point). With 256 colours
 * and UTF-8 each cell holds two pixels (upper half block ▀: foreground is
 * the upper pixel, background the lower one); otherwise an ASCII density
 * ramp, one value per cell. The colours, the canvas and the geometry come
 * from plots/heatmap.h, shared with `landscape` in a terminal.
 *
 * On top, as lines of pixels: the target set, the feasible set Ax = b, the
 * paths of the starts (the successful or current one highlighted). As
 * glyphs, each in a black cell that outlines it on any colour: x* ★, the
 * current start's point ○ (from iteration 0 on, under the path), the
 * iterate ◆, the ends of a basin map ●, `reg analyze`'s spurious points ×.
 * A run of another method than the current regularizer is not drawn (its
 * path lies on another landscape). Axis ticks on the left and below, and a
 * legend that names every colour and glyph shown, wrapped over as many rows
 * as the width needs (nothing of it is cut).
 *
 * Split (a narration's split=REG): two maps side by side on the same box
 * and problem, the current regularizer with its run at the left, REG at the
 * right with the point REG recovers (linf: the feasible point of smallest
 * infinity norm, ■). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

enum { LABEL_W = 7, MAP_X = 1 + LABEL_W + 1, MAP_Y = 2, GAP = 3, MAX_LEGEND = 4 };

/* ---- the legend: entries flowed over rows -------------------------------------- */

typedef struct entry {
    int colour;          /* a heat colour sample (-1: none) */
    int glyph;           /* a glyph (-1: none) */
    char text[48];
} entry;

static int text_cols(const char *s)
{
    int c = 0;
    for (; *s; s++)
        c += ((unsigned char)*s & 0xc0) != 0x80;
    return c;
}

static int entry_cols(const entry *e) { return 1 + text_cols(e->text) + 2; }

/* Rows the entries take at this width after `first` columns of row 0. */
static int flow_rows(const entry *e, size_t n, int first, int width)
{
    int rows = 1, x = first;
    for (size_t k = 0; k < n; k++) {
        int c = entry_cols(&e[k]);
        if (x > 0 && x + c > width) {
            rows++;
            x = 0;
        }
        x += c;
    }
    return rows;
}

static size_t add(entry *e, size_t n, int colour, int glyph, const char *text)
{
    e[n].colour = colour;
    e[n].glyph = glyph;
    snprintf(e[n].text, sizeof e[n].text, "%s", text);
    return n + 1;
}

/* The widest legend a map can have, to size the map before it exists. */
static int worst_rows(int width, int split)
{
    entry e[12];
    size_t n = 0;
    n = add(e, n, CS_HEAT_TARGET, -1, "target");
    n = add(e, n, CS_HEAT_CONSTRAINT, -1, "Ax=b");
    n = add(e, n, -1, TUI_GLYPH_XSTAR, "x*");
    n = add(e, n, -1, TUI_GLYPH_START, "start");
    n = add(e, n, CS_HEAT_MAIN_PATH, -1, "path");
    n = add(e, n, CS_HEAT_PATH, -1, "other starts");
    n = add(e, n, -1, TUI_GLYPH_ITERATE, "iterate");
    n = add(e, n, -1, TUI_GLYPH_MARK, "spurious");
    if (split)
        n = add(e, n, -1, TUI_GLYPH_SPLIT, "linf answer");
    int r = flow_rows(e, n, 26, width);
    return r < MAX_LEGEND ? r : MAX_LEGEND;
}

/* ---- sizes ---------------------------------------------------------------------- */

void tui_landscape_pixels(int h, int w, double xspan, double yspan, int split, size_t *nx,
                          size_t *ny)
{
    int foot = 1 + worst_rows(w - 2, split);
    int cw = w - MAP_X - 1, ch = h - MAP_Y - foot - 1;
    if (split)
        cw = (cw - GAP) / 2;
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

/* ---- the map ---------------------------------------------------------------------- */

/* The geometry a map shows: a stale run (another method's) left out. */
static cs_plot_geometry shown_geo(const tui_snap *sn, int with_run)
{
    cs_plot_geometry g = sn->map->geo;
    if (!with_run || tui_snap_run_stale(sn)) {
        g.npaths = 0;
        g.has_iterate = 0;
    }
    return g;
}

static void fill_canvas(const tui_snap *sn, cs_heat_canvas *c, const cs_heat_scale *s,
                        const double *z, const cs_plot_geometry *g)
{
    const cs_view_map *m = sn->map;
    if (m->cls)
        cs_heat_fill_classes(c, m->cls, m->nx, m->ny);
    else
        cs_heat_fill(c, z, m->nx, m->ny, s);
    if (z == m->z || m->cls)
        for (size_t k = 0; k < m->ntarget; k++) {
            const cs_view_curve *cv = &m->target[k];
            cs_heat_line(c, cv->x[0], cv->y[0], cv->x[cv->n - 1], cv->y[cv->n - 1],
                         CS_HEAT_TARGET);
        }
    /* the path of a slice (N > 2) is the worker's record of the iterate */
    const tui_path *path = sn->path;
    for (size_t k = 1; g->has_iterate && !g->npaths && !m->cls && path && k < path->len; k++) {
        double xa, ya, xb, yb;
        tui_path_at(path, k - 1, &xa, &ya);
        tui_path_at(path, k, &xb, &yb);
        cs_heat_line(c, xa, ya, xb, yb, CS_HEAT_MAIN_PATH);
    }
    cs_heat_geometry(c, g, 0);
}

static void draw_cells(WINDOW *w, const cs_heat_canvas *c, int x0)
{
    if (tui_cap.rich) {
        for (int r = 0; r < (c->ny + 1) / 2; r++)
            for (int i = 0; i < c->nx; i++) {
                int top = c->pix[2 * r * c->nx + i];
                int bot = 2 * r + 1 < c->ny ? c->pix[(2 * r + 1) * c->nx + i] : -1;
                wcolor_set(w, tui_pair_pixels(top, bot), NULL);
                mvwaddstr(w, MAP_Y + r, x0 + i, "▀");
            }
        wcolor_set(w, 0, NULL);
        return;
    }
    for (int r = 0; r < c->ny; r++)
        for (int i = 0; i < c->nx; i++)
            mvwaddch(w, MAP_Y + r, x0 + i,
                     (chtype)(unsigned char)cs_heat_ascii(c->pix[r * c->nx + i]));
}

/* A glyph at (x, y) of the box, when inside; 1 when drawn. */
static int glyph_at(WINDOW *w, const cs_heat_canvas *c, int x0, double x, double y, int g)
{
    int i, j;
    if (!isfinite(x) || !isfinite(y) || !cs_heat_to_px(c, x, y, &i, &j))
        return 0;
    tui_glyph(w, MAP_Y + (tui_cap.rich ? j / 2 : j), x0 + i, g);
    return 1;
}

/* The glyphs of the left map: ends, spurious points, the current start,
 * the iterate, x* (last: a run that reached it shows the star). */
static void draw_glyphs(const tui_snap *sn, WINDOW *w, const cs_heat_canvas *c,
                        const cs_plot_geometry *g)
{
    const cs_view_map *m = sn->map;
    for (size_t k = 0; k < m->nends; k++)
        glyph_at(w, c, MAP_X, m->ends[k][0], m->ends[k][1], TUI_GLYPH_END);
    for (size_t k = 0; k < sn->nmarks && !m->cls; k++)
        glyph_at(w, c, MAP_X, sn->mark[k][0], sn->mark[k][1], TUI_GLYPH_MARK);
    /* the current start's point, then the iterate; at iteration 0 they are
     * one point and the start shows (the narration says where it begins) */
    const cs_plot_path *cur = NULL;
    for (size_t k = 0; k < g->npaths; k++)
        if (g->paths[k].start == sn->start && g->paths[k].n)
            cur = &g->paths[k];
    if (g->has_iterate && !(cur && sn->iter == 0))
        glyph_at(w, c, MAP_X, g->iterate[0], g->iterate[1], TUI_GLYPH_ITERATE);
    if (cur)
        glyph_at(w, c, MAP_X, cur->xy[0], cur->xy[1], TUI_GLYPH_START);
    if (g->has_xstar)
        glyph_at(w, c, MAP_X, g->xstar[0], g->xstar[1], TUI_GLYPH_XSTAR);
}

static void draw_axes(WINDOW *w, const cs_view_map *m, int x0, int nx, int ny, int left)
{
    const char *tick = tui_cap.utf8 ? "┤" : "+";
    int px[3] = {0, (ny - 1) / 2, ny - 1};
    for (int k = 0; left && k < 3; k++) {
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
    tui_put(w, row, x0, a);
    int bx = x0 + (nx - 1) / 2 - bl / 2;
    if (bx > x0 + al && bx + bl < x0 + nx - cl)
        tui_put(w, row, bx, b);
    tui_put(w, row, x0 + nx - cl, c);
    int lx = x0 + (nx - 1) / 4;
    if (lx > x0 + al + 1 && lx + 4 < bx)
        tui_putf(w, row, lx, "x%d", m->dims[0]);
    if (left)
        tui_putf(w, 1, 2, "x%d", m->dims[1]);
}

/* ---- the legend ---------------------------------------------------------------------- */

/* The colour bar "log₁₀ℓ -4.2 ▀▀▀ 1.2" at (row, x); returns the next x. */
static int draw_bar(WINDOW *w, const cs_heat_scale *s, int row, int x, int width)
{
    if (s->flat) {
        tui_putn(w, row, x, width - x, "value 0 everywhere");
        return x + 20;
    }
    char lo[32], hi[32];
    snprintf(lo, sizeof lo, "%.1f", fabs(s->l0) < 0.05 ? 0.0 : s->l0);   /* no "-0.0" */
    snprintf(hi, sizeof hi, "%.1f", fabs(s->l1) < 0.05 ? 0.0 : s->l1);
    tui_put(w, row, x, tui_cap.utf8 ? "log₁₀ℓ" : "log10");
    x += tui_cap.utf8 ? 7 : 6;
    tui_put(w, row, x, lo);
    x += (int)strlen(lo) + 1;
    int bar = 8;
    for (int k = 0; k < bar; k++) {
        int level = (k * (TUI_RAMP - 1) + (bar - 1) / 2) / (bar - 1);
        if (tui_cap.rich) {
            wcolor_set(w, tui_pair_pixels(level, level), NULL);
            mvwaddstr(w, row, x + k, "▀");
            wcolor_set(w, 0, NULL);
        } else {
            mvwaddch(w, row, x + k, (chtype)(unsigned char)cs_heat_ascii(level));
        }
    }
    x += bar + 1;
    tui_put(w, row, x, hi);
    return x + (int)strlen(hi) + 2;
}

static void draw_entries(WINDOW *w, const entry *e, size_t n, int row, int x, int width,
                         int last_row)
{
    for (size_t k = 0; k < n && row <= last_row; k++) {
        int c = entry_cols(&e[k]);
        if (x > 1 && x + c > width) {
            row++;
            x = 1;
            if (row > last_row)
                return;
        }
        if (e[k].glyph >= 0) {
            tui_glyph(w, row, x, e[k].glyph);
        } else if (tui_cap.rich) {
            wcolor_set(w, tui_pair_pixels(e[k].colour, e[k].colour), NULL);
            mvwaddstr(w, row, x, "▀");
            wcolor_set(w, 0, NULL);
        } else {
            mvwaddch(w, row, x, (chtype)(unsigned char)cs_heat_ascii(e[k].colour));
        }
        tui_putn(w, row, x + 1, width - x - 1, e[k].text);
        x += c;
    }
}

/* What the map shows, as legend entries. */
static size_t legend_entries(const tui_snap *sn, const cs_plot_geometry *g, entry *e)
{
    const cs_view_map *m = sn->map;
    size_t n = 0;
    if (m->cls) {
        static const char *const names[CS_PLOT_BASIN_CLASSES] = {"success", "other", "spurious",
                                                                 "not conv."};
        for (int k = 0; k < CS_PLOT_BASIN_CLASSES; k++) {
            char text[48];
            snprintf(text, sizeof text, "%s %zu", names[k], m->counts[k]);
            n = add(e, n, CS_HEAT_BASIN + k, -1, text);
        }
        if (m->nends)
            n = add(e, n, -1, TUI_GLYPH_END, "ends");
    }
    if (m->ntarget)
        n = add(e, n, CS_HEAT_TARGET, -1, "target");
    if (g->constraint_n)
        n = add(e, n, CS_HEAT_CONSTRAINT, -1, "Ax=b");
    if (g->has_xstar)
        n = add(e, n, -1, TUI_GLYPH_XSTAR, "x*");
    if (g->npaths) {
        n = add(e, n, -1, TUI_GLYPH_START, "start");
        n = add(e, n, CS_HEAT_MAIN_PATH, -1, "path");
        if (g->npaths > 1)
            n = add(e, n, CS_HEAT_PATH, -1, "other starts");
    }
    if (g->has_iterate)
        n = add(e, n, -1, TUI_GLYPH_ITERATE, "iterate");
    if (sn->nmarks && !m->cls)
        n = add(e, n, -1, TUI_GLYPH_MARK, "spurious");
    if (sn->z2 && sn->has_split_pt) {
        char text[48];
        snprintf(text, sizeof text, "%s answer", sn->split);
        n = add(e, n, -1, TUI_GLYPH_SPLIT, text);
    }
    return n;
}

/* ---- the panel ------------------------------------------------------------------------ */

void tui_landscape_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    const tui_snap *sn = t->snap;
    const cs_view_map *m = sn ? sn->map : NULL;
    int split = sn && sn->z2 && m && !m->cls;
    size_t nx, ny;
    tui_landscape_pixels(h, wd, m ? m->x1 - m->x0 : 1, m ? m->y1 - m->y0 : 1, t->split[0] != 0,
                         &nx, &ny);
    if (!sn || nx == 0) {
        tui_put(w, 1, 2, nx ? "computing..." : "(too small)");
        return;
    }
    if (!m) {
        tui_putn(w, 1, 2, wd - 3, sn->map_err[0] ? sn->map_err : "computing...");
        return;
    }
    char info[256];
    int roomy = wd >= 50, stale = tui_snap_run_stale(sn);
    char ran[80] = "";
    if (stale)
        snprintf(ran, sizeof ran, " (%.*s's run not drawn)", (int)strcspn(sn->method, ":"),
                 sn->method);
    if (m->cls)
        snprintf(info, sizeof info, "basins of %s%s, m: landscape", m->basins_method,
                 m->slice ? ", slice through x*" : "");
    else if (m->slice)
        snprintf(info, sizeof info, "%s, slice x%d,x%d through %s (N=%zu)%s", sn->reg,
                 m->dims[0], m->dims[1], roomy ? "the iterate" : "x", sn->n, ran);
    else if (split)
        snprintf(info, sizeof info, "%s, its run", sn->reg);
    else
        snprintf(info, sizeof info, "%s, plane x%d,x%d%s%s", sn->reg, m->dims[0], m->dims[1],
                 sn->have_problem && roomy && !stale ? " with the problem" : "", ran);
    int half = split ? (int)nx : wd - LABEL_W - 3;
    tui_putn_clauses(w, 1, LABEL_W + 2, half, info);
    int ch = tui_cap.rich ? ((int)ny + 1) / 2 : (int)ny;
    cs_heat_canvas c;
    if (cs_heat_canvas_init(&c, (int)nx, (int)ny, m->x0, m->x1, m->y0, m->y1))
        return;
    cs_heat_scale s = m->z ? cs_heat_scale_of(m->z, m->nx * m->ny) : (cs_heat_scale){0, 1, 1};
    cs_plot_geometry g = shown_geo(sn, 1);
    fill_canvas(sn, &c, &s, m->z, &g);
    draw_cells(w, &c, MAP_X);
    draw_glyphs(sn, w, &c, &g);
    draw_axes(w, m, MAP_X, (int)nx, (int)ny, 1);
    int row = MAP_Y + ch + 1, x = 1;
    if (!m->cls)
        x = draw_bar(w, &s, row, x, wd - 1);
    if (split) {   /* the other regularizer on the same box and problem */
        int x2 = MAP_X + (int)nx + GAP;
        cs_heat_canvas c2;
        if (cs_heat_canvas_init(&c2, (int)nx, (int)ny, m->x0, m->x1, m->y0, m->y1) == 0) {
            cs_heat_scale s2 = cs_heat_scale_of(sn->z2, m->nx * m->ny);
            cs_plot_geometry g2 = shown_geo(sn, 0);
            fill_canvas(sn, &c2, &s2, sn->z2, &g2);
            draw_cells(w, &c2, x2);
            if (g2.has_xstar)
                glyph_at(w, &c2, x2, g2.xstar[0], g2.xstar[1], TUI_GLYPH_XSTAR);
            if (sn->has_split_pt)
                glyph_at(w, &c2, x2, sn->split_pt[0], sn->split_pt[1], TUI_GLYPH_SPLIT);
            draw_axes(w, m, x2, (int)nx, (int)ny, 0);
            char title[80];
            snprintf(title, sizeof title, "%s, same problem", sn->split);
            tui_putn_clauses(w, 1, x2, (int)nx, title);
            cs_heat_canvas_free(&c2);
        }
    }
    entry e[16];
    size_t n = legend_entries(sn, &g, e);
    draw_entries(w, e, n, row, x, wd - 1, h - 2);
    cs_heat_canvas_free(&c);
}

int tui_landscape_point(const tui *t, int y, int x, double *px, double *py)
{
    WINDOW *w = t->win[TUI_PANEL_LAND];
    const cs_view_map *m = t->snap ? t->snap->map : NULL;
    if (!w || !m || m->cls)
        return 0;
    int h, wd, by, bx;
    getmaxyx(w, h, wd);
    getbegyx(w, by, bx);
    size_t nx, ny;
    tui_landscape_pixels(h, wd, m->x1 - m->x0, m->y1 - m->y0, t->split[0] != 0, &nx, &ny);
    int i = x - bx - MAP_X, r = y - by - MAP_Y;
    double j = tui_cap.rich ? 2.0 * r + 0.5 : r;
    if (nx < 2 || ny < 2 || i < 0 || i >= (int)nx || r < 0 || j > (double)ny - 1)
        return 0;
    *px = m->x0 + (double)i / (double)(nx - 1) * (m->x1 - m->x0);
    *py = m->y1 - j / (double)(ny - 1) * (m->y1 - m->y0);
    return 1;
}
