/* tui_layout.c — where the panels go: each view's layout is a table of
 * cuts, and one function turns the table into windows.
 *
 * A cut takes rows or columns from one side of an area (the screen, or an
 * area an earlier cut made) and gives them to a panel or to a new area;
 * TUI_REST gives what is left. Its size is chosen by the whole extent of
 * the area it cuts (before any cut), so a step table reads like the
 * breakpoints it is: "34 columns from 150 columns up, 27 from 110, else
 * 20". */
#include <curses.h>

#include "tui_internal.h"

/* Areas that only hold other cuts, numbered after the panels. */
enum { AREA_SCREEN = TUI_PANEL_COUNT, AREA_BODY, AREA_COLUMN, AREA_COUNT };
enum side { TOP, BOTTOM, LEFT, RIGHT, REST };

typedef struct rect {
    int y, x, h, w;
} rect;

typedef struct cut {
    int into;    /* a TUI_PANEL_* or an AREA_* */
    int from;    /* the area it is cut from */
    int side;    /* enum side */
    /* the first step whose `min` the area's whole extent reaches:
     * extent / div + add rows or columns (div 0: add) */
    struct { int min, div, add; } step[4];
    int (*size)(const tui *t, int extent);   /* instead of the steps */
} cut;

/* The Training panel: its header rows and one per regularized layer, at
 * most half the column. */
static int train_height(const tui *t, int extent)
{
    int n = 0;
    for (size_t i = 0; t->tv && i < t->tv->f.nlayers; i++)
        n += t->tv->f.layer[i].regularized;
    int h = 7 + (n > 0 ? n : 1);
    return h > extent / 2 ? extent / 2 : h;
}

/* A script's narration: its own rows above the messages, as many as its
 * longest text needs at this width (none without a script), at most a
 * third of the screen. */
static int narr_height(const tui *t, int extent)
{
    int h = t->play_rows ? t->play_rows(t, t->cols) : 0;
    return h > extent / 3 ? extent / 3 : h;
}

/* Every view: the head line, the command and status lines at the bottom,
 * the messages above them, a script's narration above those, the body in
 * between. */
static const cut frame_cuts[] = {
    {TUI_PANEL_HEAD, AREA_SCREEN, TOP, {{0, 0, 1}}, NULL},
    {TUI_PANEL_STATUS, AREA_SCREEN, BOTTOM, {{0, 0, 1}}, NULL},
    {TUI_PANEL_CMD, AREA_SCREEN, BOTTOM, {{0, 0, 1}}, NULL},
    {TUI_PANEL_MSG, AREA_SCREEN, BOTTOM, {{48, 0, 6}, {36, 0, 4}, {28, 0, 3}, {0, 0, 2}}, NULL},
    {TUI_PANEL_NARR, AREA_SCREEN, BOTTOM, {{0}}, narr_height},
    {AREA_BODY, AREA_SCREEN, REST, {{0}}, NULL},
};

/* From NARR_SIDE_COLS columns up a script's narration may be a column at
 * the right, from the head line down to the command line (the messages go
 * beside it): the maps keep every row. It is when that leaves the
 * Landscape's map at least as large as the rows would (a wide terminal; at
 * 120x40 the rows take less of it: tui_layout_narr_side). */
enum { NARR_SIDE_COLS = 120 };
static const cut frame_side_cuts[] = {
    {TUI_PANEL_HEAD, AREA_SCREEN, TOP, {{0, 0, 1}}, NULL},
    {TUI_PANEL_STATUS, AREA_SCREEN, BOTTOM, {{0, 0, 1}}, NULL},
    {TUI_PANEL_CMD, AREA_SCREEN, BOTTOM, {{0, 0, 1}}, NULL},
    {TUI_PANEL_NARR, AREA_SCREEN, RIGHT, {{150, 0, 40}, {0, 0, 36}}, NULL},
    {TUI_PANEL_MSG, AREA_SCREEN, BOTTOM, {{48, 0, 6}, {36, 0, 4}, {28, 0, 3}, {0, 0, 2}}, NULL},
    {AREA_BODY, AREA_SCREEN, REST, {{0}}, NULL},
};

static void rects_in(const tui *t, int view, int side, rect out[AREA_COUNT]);

/* The Landscape's map in pixels with the narration at the side or in rows. */
static size_t map_pixels(const tui *t, int side)
{
    rect r[AREA_COUNT];
    rects_in(t, TUI_VIEW_SOLVER, side, r);
    size_t nx, ny;
    tui_landscape_pixels(r[TUI_PANEL_LAND].h, r[TUI_PANEL_LAND].w, t->box.x1 - t->box.x0,
                         t->box.y1 - t->box.y0, t->split[0] != 0, &nx, &ny);
    return nx * ny;
}

int tui_layout_narr_side(const tui *t)
{
    return t->cols >= NARR_SIDE_COLS && t->play_rows && t->play_rows(t, t->cols) > 0 &&
           map_pixels(t, 1) >= map_pixels(t, 0);
}

/* Regularizers | Landscape | Solver over Histogram */
static const cut solver_cuts[] = {
    {TUI_PANEL_REGS, AREA_BODY, LEFT, {{150, 0, 34}, {110, 0, 27}, {0, 0, 20}}, NULL},
    {AREA_COLUMN, AREA_BODY, RIGHT, {{150, 0, 46}, {110, 0, 36}, {0, 0, 26}}, NULL},
    {TUI_PANEL_LAND, AREA_BODY, REST, {{0}}, NULL},
    {TUI_PANEL_SOLVER, AREA_COLUMN, TOP, {{26, 0, 13}, {17, 0, 11}, {0, 2, 1}}, NULL},
    {TUI_PANEL_HIST, AREA_COLUMN, REST, {{0}}, NULL},
};

/* A split Landscape (two regularizers side by side): it takes the
 * Regularizers' columns. */
static const cut solver_split_cuts[] = {
    {AREA_COLUMN, AREA_BODY, RIGHT, {{150, 0, 46}, {110, 0, 36}, {0, 0, 26}}, NULL},
    {TUI_PANEL_LAND, AREA_BODY, REST, {{0}}, NULL},
    {TUI_PANEL_SOLVER, AREA_COLUMN, TOP, {{26, 0, 13}, {17, 0, 11}, {0, 2, 1}}, NULL},
    {TUI_PANEL_HIST, AREA_COLUMN, REST, {{0}}, NULL},
};

/* Curves over Training | Histogram of the frames */
static const cut train_cuts[] = {
    {TUI_PANEL_HIST, AREA_BODY, RIGHT, {{150, 0, 64}, {110, 0, 50}, {0, 0, 36}}, NULL},
    {AREA_COLUMN, AREA_BODY, REST, {{0}}, NULL},
    {TUI_PANEL_TRAIN, AREA_COLUMN, BOTTOM, {{0}}, train_height},
    {TUI_PANEL_CHART, AREA_COLUMN, REST, {{0}}, NULL},
};

/* Success curves | Points */
static const cut sweep_cuts[] = {
    {TUI_PANEL_POINTS, AREA_BODY, RIGHT, {{150, 0, 48}, {110, 0, 40}, {80, 0, 30}, {0, 0, 26}},
     NULL},
    {TUI_PANEL_SWEEP, AREA_BODY, REST, {{0}}, NULL},
};

static const struct {
    const cut *cuts;
    size_t n;
} view_layout[TUI_VIEW_COUNT] = {
    [TUI_VIEW_SOLVER] = {solver_cuts, sizeof solver_cuts / sizeof *solver_cuts},
    [TUI_VIEW_TRAIN] = {train_cuts, sizeof train_cuts / sizeof *train_cuts},
    [TUI_VIEW_SWEEP] = {sweep_cuts, sizeof sweep_cuts / sizeof *sweep_cuts},
};

static int cut_size(const tui *t, const cut *c, int extent, int left)
{
    int n = left;
    if (c->size) {
        n = c->size(t, extent);
    } else if (c->side != REST) {
        for (size_t k = 0; k < sizeof c->step / sizeof *c->step; k++)
            if (extent >= c->step[k].min) {
                n = (c->step[k].div ? extent / c->step[k].div : 0) + c->step[k].add;
                break;
            }
    }
    return n < 0 ? 0 : n > left ? left : n;
}

/* Apply cuts to the areas: whole[a] is an area's rect as made, left[a]
 * what its cuts have not taken. */
static void apply(const tui *t, const cut *cuts, size_t n, rect whole[], rect left[])
{
    for (size_t i = 0; i < n; i++) {
        const cut *c = &cuts[i];
        rect *l = &left[c->from];
        int across = c->side == LEFT || c->side == RIGHT;
        int extent = across ? whole[c->from].w : whole[c->from].h;
        int size = cut_size(t, c, extent, across ? l->w : l->h);
        rect r = *l;
        switch (c->side) {
        case TOP: r.h = size; l->y += size; l->h -= size; break;
        case BOTTOM: r.y = l->y + l->h - size; r.h = size; l->h -= size; break;
        case LEFT: r.w = size; l->x += size; l->w -= size; break;
        case RIGHT: r.x = l->x + l->w - size; r.w = size; l->w -= size; break;
        default: l->h = l->w = 0; break;   /* REST: all of it */
        }
        whole[c->into] = left[c->into] = r;
    }
}

/* The rects of a view's panels at the terminal's size (h 0: not shown),
 * the narration at the side or in rows. */
static void rects_in(const tui *t, int view, int side, rect out[AREA_COUNT])
{
    rect left[AREA_COUNT] = {{0}};
    for (int a = 0; a < AREA_COUNT; a++)
        out[a] = (rect){0};
    out[AREA_SCREEN] = left[AREA_SCREEN] = (rect){0, 0, t->rows, t->cols};
    if (side)
        apply(t, frame_side_cuts, sizeof frame_side_cuts / sizeof *frame_side_cuts, out, left);
    else
        apply(t, frame_cuts, sizeof frame_cuts / sizeof *frame_cuts, out, left);
    if (view == TUI_VIEW_SOLVER && t->split[0])
        apply(t, solver_split_cuts, sizeof solver_split_cuts / sizeof *solver_split_cuts, out,
              left);
    else
        apply(t, view_layout[view].cuts, view_layout[view].n, out, left);
}

static void rects_of(const tui *t, int view, rect out[AREA_COUNT])
{
    rects_in(t, view, tui_layout_narr_side(t), out);
}

void tui_layout_drop(tui *t)
{
    for (int p = 0; p < TUI_PANEL_COUNT; p++)
        if (t->win[p]) {
            delwin(t->win[p]);
            t->win[p] = NULL;
        }
}

/* The histogram bins the training view's Histogram holds at this size,
 * for the frames of a run to come too. */
static void want_bins(tui *t)
{
    rect r[AREA_COUNT];
    rects_of(t, TUI_VIEW_TRAIN, r);
    int bins = r[TUI_PANEL_HIST].w - 2;
    tui_worker_set_want(t->worker, bins < CS_NN_WATCH_BINS ? bins : CS_NN_WATCH_BINS, NULL);
}

void tui_layout(tui *t)
{
    tui_layout_drop(t);
    getmaxyx(stdscr, t->rows, t->cols);
    if (t->rows < TUI_MIN_ROWS || t->cols < TUI_MIN_COLS)
        return;
    rect r[AREA_COUNT];
    rects_of(t, t->view, r);
    for (int p = 0; p < TUI_PANEL_COUNT; p++)
        if (r[p].h > 0 && r[p].w > 0)
            t->win[p] = newwin(r[p].h, r[p].w, r[p].y, r[p].x);
    want_bins(t);
    tui_map_resize(t);
}

void tui_set_view(tui *t, int view)
{
    if (t->view == view)
        return;
    t->view = view;
    tui_layout(t);
}

void tui_map_resize(tui *t)
{
    WINDOW *land = t->win[TUI_PANEL_LAND];
    if (!land)
        return;
    int h, w;
    getmaxyx(land, h, w);
    size_t nx, ny;
    tui_landscape_pixels(h, w, t->box.x1 - t->box.x0, t->box.y1 - t->box.y0, t->split[0] != 0,
                         &nx, &ny);
    if (nx != t->map_nx || ny != t->map_ny) {
        t->map_nx = nx;
        t->map_ny = ny;
        tui_worker_refresh(t->worker, nx, ny);
    }
}
