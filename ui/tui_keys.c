/* tui_keys.c — the workbench's keys: one table says for each key what it
 * does, how ? lists it (in the pager) and what the hint line at the bottom
 * says in which view. Adding a key is a row and its handler.
 *
 * Every key that changes state sends a command line to the interpreter,
 * so the session journal records it and `save session` replays it. The
 * focused panel sees a key first (tui.c's panel table), the tour's player
 * next, this table last. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_clock.h"
#include "tui_internal.h"

/* ---- what the keys do ---------------------------------------------------------- */

static void issue(tui *t, const char *line, int flags)
{
    tui_worker_submit(t->worker, line, flags);
}

static void issue_view(tui *t)
{
    char line[256];
    snprintf(line, sizeof line, "view x=%.6g:%.6g y=%.6g:%.6g", t->box.x0, t->box.x1, t->box.y0,
             t->box.y1);
    issue(t, line, TUI_ECHO);
}

/* The box changed otherwise than by a zoom: zooming back starts afresh. */
static void zoom_forget(tui *t) { t->nzoom = 0; }

/* A finished run takes no more steps: say so and how it stopped, and send
 * nothing (nothing is journaled). Returns 1 when it has stopped. */
static int run_has_stopped(tui *t)
{
    const tui_snap *s = t->snap;
    if (!s || !s->have_problem || !s->done)
        return 0;
    char how[256], line[400];
    tui_stop_text(s, how, sizeof how);
    snprintf(line, sizeof line, "the solver has %s; r resets it", how);
    tui_log_add(&t->log, TUI_MSG_INFO, line);
    t->running = 0;
    return 1;
}

/* s / S: n steps. */
static int key_step(tui *t, int n)
{
    if (!run_has_stopped(t))
        issue(t, n == 10 ? "step n=10" : "step", TUI_ECHO);
    return 0;
}

/* space: run or pause; the loop sends a step every tick. */
static int key_run(tui *t, int arg)
{
    (void)arg;
    if (!t->running && (!t->snap || !t->snap->have_problem)) {
        tui_log_add(&t->log, TUI_MSG_INFO, "space runs the solver: no problem set up (try "
                                           ":problem bin N=2 M=1)");
        return 0;
    }
    if (!t->running && run_has_stopped(t))
        return 0;
    t->running = !t->running;
    t->next_tick = cs_now();
    tui_log_add(&t->log, TUI_MSG_INFO,
                t->running ? "running: a step every 0.12 s (space pauses)" : "paused");
    return 0;
}

static int key_reset(tui *t, int arg)
{
    (void)arg;
    t->running = 0;
    issue(t, "reset", TUI_ECHO);
    return 0;
}

/* b / B: rewind the current start by `back` iterations. */
static int key_back(tui *t, int back)
{
    const tui_snap *s = t->snap;
    t->running = 0;
    if (!s || !s->have_problem || !s->method[0] || s->start == 0) {
        tui_log_add(&t->log, TUI_MSG_INFO, "nothing to go back to: step first (s)");
        return 0;
    }
    if (s->iter == 0) {
        tui_log_add(&t->log, TUI_MSG_INFO, "at the start point of this start: r resets the run");
        return 0;
    }
    char line[64];
    snprintf(line, sizeof line, "rewind %ld", s->iter > back ? s->iter - back : 0);
    issue(t, line, TUI_ECHO);
    return 0;
}

/* m: the landscape or the basin map. */
static int key_map(tui *t, int arg)
{
    (void)arg;
    int basins = t->snap && t->snap->map && t->snap->map->cls;
    issue(t, basins ? "view map=landscape" : "view map=basins", TUI_ECHO | TUI_SHOW_OUTPUT);
    return 0;
}

static void focus_regs(tui *t)
{
    t->prev_focus = t->focus;
    t->focus = TUI_FOCUS_REGS;
    const char *cur = t->snap ? t->snap->reg : "";
    for (size_t i = 0; i < cs_view_reg_count(); i++) {
        cs_view_reg r;
        if (!cs_view_reg_at(i, &r) && !strcmp(r.name, cur))
            t->reg_sel = (int)i;
    }
}

/* p / Enter: the first press focuses Regularizers, the second picks. */
static int key_pick(tui *t, int arg)
{
    (void)arg;
    if (t->focus != TUI_FOCUS_REGS) {
        focus_regs(t);
        tui_log_add(&t->log, TUI_MSG_INFO, "Regularizers: Up/Down choose, p or Enter picks "
                                           "one, Tab leaves");
        return 0;
    }
    cs_view_reg r;
    if (cs_view_reg_at((size_t)t->reg_sel, &r))
        return 0;
    char line[64];
    snprintf(line, sizeof line, "reg %s", r.name);
    issue(t, line, TUI_ECHO | TUI_SHOW_OUTPUT);
    t->focus = t->prev_focus == TUI_FOCUS_REGS || t->prev_focus == TUI_FOCUS_CMD
                   ? TUI_FOCUS_LAND
                   : t->prev_focus;
    return 0;
}

/* + / -: dir 1 zooms in by 1.5, -1 out. */
static int key_zoom(tui *t, int dir)
{
    double f = dir > 0 ? 1 / 1.5 : 1.5;
    /* the inverse of the last zoom: back to the box it came from */
    if (t->nzoom > 0 && fabs(f * t->zoom_f[t->nzoom - 1] - 1) < 1e-9) {
        t->box = t->zoom_from[--t->nzoom];
        issue_view(t);
        return 0;
    }
    double cx = 0.5 * (t->box.x0 + t->box.x1), cy = 0.5 * (t->box.y0 + t->box.y1);
    double hx = 0.5 * (t->box.x1 - t->box.x0) * f, hy = 0.5 * (t->box.y1 - t->box.y0) * f;
    if (hx < 1e-4 || hy < 1e-4 || hx > 1e6 || hy > 1e6) {
        tui_log_add(&t->log, TUI_MSG_INFO, "zoom limit");
        return 0;
    }
    if (t->nzoom == (int)(sizeof t->zoom_f / sizeof *t->zoom_f)) {
        memmove(t->zoom_from, t->zoom_from + 1, (size_t)(t->nzoom - 1) * sizeof *t->zoom_from);
        memmove(t->zoom_f, t->zoom_f + 1, (size_t)(t->nzoom - 1) * sizeof *t->zoom_f);
        t->nzoom--;
    }
    t->zoom_from[t->nzoom] = t->box;
    t->zoom_f[t->nzoom++] = f;
    t->box.x0 = cx - hx;
    t->box.x1 = cx + hx;
    t->box.y0 = cy - hy;
    t->box.y1 = cy + hy;
    issue_view(t);
    return 0;
}

/* arrows: a tenth of the box left, right, up or down. */
enum { PAN_LEFT, PAN_RIGHT, PAN_UP, PAN_DOWN };
static int key_pan(tui *t, int dir)
{
    static const double step[][2] = {
        [PAN_LEFT] = {-0.1, 0}, [PAN_RIGHT] = {0.1, 0}, [PAN_UP] = {0, 0.1}, [PAN_DOWN] = {0, -0.1}};
    if ((dir == PAN_LEFT || dir == PAN_RIGHT) && t->view == TUI_VIEW_TRAIN &&
        tui_folder_scrub(t, dir == PAN_LEFT ? -1 : 1))
        return 0;   /* a run folder's snapshots (tui_folder.c) */
    double dx = step[dir][0] * (t->box.x1 - t->box.x0), dy = step[dir][1] * (t->box.y1 - t->box.y0);
    zoom_forget(t);
    t->box.x0 += dx;
    t->box.x1 += dx;
    t->box.y0 += dy;
    t->box.y1 += dy;
    issue_view(t);
    return 0;
}

/* ---- touch: the start and the problem under the keys and the mouse ---- */

/* A new run whose first start is (x, y), run to its end at once (2
 * unknowns: the start is a point of the map). */
static void start_at(tui *t, double x, double y)
{
    const tui_snap *s = t->snap;
    if (!s || !s->have_problem || s->n != 2) {
        tui_log_add(&t->log, TUI_MSG_INFO, "moving the start needs a problem with 2 unknowns "
                                           "(:problem bin N=2 M=1)");
        return;
    }
    t->running = 0;
    char line[128];
    snprintf(line, sizeof line, "step until=end x0=%.4g,%.4g", x, y);
    tui_worker_submit(t->worker, line, TUI_ECHO | TUI_COALESCE);
}

/* Shift+arrows: the start a twentieth of the box left, right, up, down. */
enum { MOVE_LEFT, MOVE_RIGHT, MOVE_UP, MOVE_DOWN };
static int key_move_start(tui *t, int dir)
{
    const tui_snap *s = t->snap;
    double x = 0.5 * (t->box.x0 + t->box.x1), y = 0.5 * (t->box.y0 + t->box.y1);
    const cs_plot_geometry *g = s && s->map ? &s->map->geo : NULL;
    for (size_t k = 0; g && k < g->npaths; k++)
        if (g->paths[k].start == 1 && g->paths[k].n && !tui_snap_run_stale(s)) {
            x = g->paths[k].xy[0];
            y = g->paths[k].xy[1];
        }
    double dx = (t->box.x1 - t->box.x0) / 20, dy = (t->box.y1 - t->box.y0) / 20;
    x += dir == MOVE_LEFT ? -dx : dir == MOVE_RIGHT ? dx : 0;
    y += dir == MOVE_DOWN ? -dy : dir == MOVE_UP ? dy : 0;
    start_at(t, x, y);
    return 0;
}

/* A click on the map: the start there. */
static int key_mouse(tui *t, int arg)
{
    (void)arg;
    MEVENT ev;
    double x, y;
    if (getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
        return 0;
    if (tui_landscape_point(t, ev.y, ev.x, &x, &y))
        start_at(t, x, y);
    return 0;
}

/* The problem loaded, drawn again with M equations and x* scaled by
 * `scale` (its K and noise kept): the command < > ( ) send. */
static void redraw_problem(tui *t, size_t m, double scale)
{
    const tui_snap *s = t->snap;
    char line[256];
    int n = snprintf(line, sizeof line, "problem %s N=%zu M=%zu", s->kind, s->N, m);
    if (s->K)
        n += snprintf(line + n, sizeof line - (size_t)n, " K=%zu", s->K);
    if (s->noise > 0)
        n += snprintf(line + n, sizeof line - (size_t)n, " noise=%.6g", s->noise);
    if (scale != 1)
        snprintf(line + n, sizeof line - (size_t)n, " scale=%.6g", scale);
    t->running = 0;
    tui_worker_submit(t->worker, line, TUI_ECHO);
}

/* < / >: one equation fewer or more (a new problem of the same kind and N). */
static int key_equations(tui *t, int dir)
{
    const tui_snap *s = t->snap;
    if (!s || !s->have_problem || !strcmp(s->kind, "maxcut")) {
        tui_log_add(&t->log, TUI_MSG_INFO, "< and > change M: no problem set up");
        return 0;
    }
    long m = (long)s->M + dir;
    if (m < 1 || m > (long)s->N) {
        tui_log_add(&t->log, TUI_MSG_INFO, "M stays between 1 and N");
        return 0;
    }
    redraw_problem(t, (size_t)m, s->scale);
    return 0;
}

/* ( / ): x* half or twice as large, the same draw otherwise: a CS
 * regularizer is zero on {-a,+a}^N for every a, so it needs no scale (the
 * box grows with x* when x* would leave it). */
static int key_scale(tui *t, int dir)
{
    const tui_snap *s = t->snap;
    if (!s || !s->have_problem || (strcmp(s->kind, "bin") && strcmp(s->kind, "osb") &&
                                   strcmp(s->kind, "ter"))) {
        tui_log_add(&t->log, TUI_MSG_INFO, "( and ) scale x* of a bin, osb or ter problem "
                                           "(:problem bin N=2 M=1)");
        return 0;
    }
    double scale = s->scale * (dir > 0 ? 2 : 0.5);
    if (scale < 0.124 || scale > 8.01) {
        tui_log_add(&t->log, TUI_MSG_INFO, "the scale of x* stays between 1/8 and 8");
        return 0;
    }
    redraw_problem(t, s->M, scale);
    double h = 1.25 * scale;   /* x* in {-scale, 0, scale}^N, with a margin */
    if (h > t->box.x1 || -h < t->box.x0 || h > t->box.y1 || -h < t->box.y0) {
        zoom_forget(t);
        double r = 2 * scale > 2 ? 2 * scale : 2;
        t->box.x0 = t->box.y0 = -r;
        t->box.x1 = t->box.y1 = r;
        issue_view(t);
    }
    return 0;
}

/* { / }: the run's λ divided or multiplied by 10, the run from the first
 * start again at once (step until=end lambda=); λ weighs the regularizer
 * against the fit to b in solve fit=ls, and in 2bit and maxcut. */
static int key_lambda(tui *t, int dir)
{
    const tui_snap *s = t->snap;
    if (!s || !s->have_problem) {
        tui_log_add(&t->log, TUI_MSG_INFO, "{ and } change lambda: no problem set up");
        return 0;
    }
    if (!s->method[0]) {
        tui_log_add(&t->log, TUI_MSG_INFO, "{ and } change the run's lambda: no run yet (s "
                                           "steps; a noisy b: :solve fit=ls lambda=0.1)");
        return 0;
    }
    if (!isfinite(s->lambda) || s->lambda <= 0) {
        char line[320];
        size_t n = strcspn(s->method, ":");
        snprintf(line, sizeof line, "lambda does not apply to %.*s on %s (fit affine): it weighs "
                 "the regularizer in solve fit=ls (a noisy b: :problem bin N=2 M=1 noise=0.1, "
                 "then :solve fit=ls) and in 2bit and maxcut", (int)n, s->method, s->kind);
        tui_log_add(&t->log, TUI_MSG_INFO, line);
        return 0;
    }
    char line[128];
    snprintf(line, sizeof line, "step until=end lambda=%.3g", s->lambda * (dir > 0 ? 10 : 0.1));
    t->running = 0;
    tui_worker_submit(t->worker, line, TUI_ECHO);
    return 0;
}

/* x / y: the next coordinate for axis k of the slice (wrapping, skipping
 * the other). */
static int key_dim(tui *t, int k)
{
    size_t n = t->snap && t->snap->have_problem ? t->snap->n : 2;
    if (n <= 2) {
        tui_log_add(&t->log, TUI_MSG_INFO, "x / y choose the slice's coordinates when N > 2");
        return 0;
    }
    int d[2] = {t->box.dims[0], t->box.dims[1]};
    do
        d[k] = d[k] % (int)n + 1;
    while (d[k] == d[1 - k]);
    t->box.dims[0] = d[0];
    t->box.dims[1] = d[1];
    char line[64];
    snprintf(line, sizeof line, "view dims=%d,%d", d[0], d[1]);
    issue(t, line, TUI_ECHO);
    return 0;
}

static int key_home(tui *t, int arg)
{
    (void)arg;
    zoom_forget(t);
    t->box.x0 = t->box.y0 = -2;
    t->box.x1 = t->box.y1 = 2;
    issue_view(t);
    return 0;
}

/* Tab / Shift-Tab: the next or previous panel (the command line is : ). */
static int key_focus(tui *t, int dir)
{
    t->focus = (t->focus + TUI_FOCUS_CMD + dir) % TUI_FOCUS_CMD;
    if (t->focus == TUI_FOCUS_REGS)
        focus_regs(t);
    return 0;
}

static int key_cmdline(tui *t, int arg)
{
    (void)arg;
    t->prev_focus = t->focus;
    t->focus = TUI_FOCUS_CMD;
    return 0;
}

static int key_help(tui *t, int arg)
{
    (void)arg;
    tui_keys_help_open(t);
    return 0;
}

/* o: the last long output again. */
static int key_pager(tui *t, int arg)
{
    (void)arg;
    if (t->last_page)
        tui_pager_open(t, t->last_page, t->last_page_line);
    else
        tui_log_add(&t->log, TUI_MSG_INFO, "o shows the last output taller than the messages "
                                           "(help, regs, nnreport...): none yet");
    return 0;
}

void tui_cancel(tui *t)
{
    tui_progress p;
    tui_worker_progress(t->worker, &p);
    if (p.busy || p.queued)
        tui_log_add(&t->log, TUI_MSG_INFO, "cancelling...");
    tui_worker_cancel(t->worker);
    if (t->running)
        tui_log_add(&t->log, TUI_MSG_INFO, "run paused");
    t->running = 0;
}

static int key_cancel(tui *t, int arg)
{
    (void)arg;
    tui_cancel(t);
    return 0;
}

static int key_redraw(tui *t, int arg)
{
    (void)t;
    (void)arg;
    clearok(curscr, TRUE);
    return 0;
}

/* PgUp / PgDn: a page of the messages (Regularizers pages its list itself). */
static int key_page(tui *t, int dir)
{
    WINDOW *msg = t->win[TUI_PANEL_MSG];
    size_t rows = msg ? (size_t)getmaxy(msg) : 2;
    if (dir < 0)
        t->msg_scroll += rows;
    else
        t->msg_scroll = t->msg_scroll > rows ? t->msg_scroll - rows : 0;
    return 0;
}

static int key_layer(tui *t, int dir)
{
    tui_train_cycle(t, dir);
    return 0;
}

/* Home (-2), End (2): the snapshots of a run folder in the training view
 * (tui_folder.c; <- and ->, the arrows row's, also come here: key_pan);
 * c (3): the second run's histogram beside the first's (watch dir=A vs=B). */
static int key_scrub(tui *t, int how)
{
    if (how == 3) {
        tui_folder_compare(t);
        return 0;
    }
    if (t->view == TUI_VIEW_TRAIN && tui_folder_scrub(t, how))
        return 0;
    if (how == -1 || how == 1)
        return key_pan(t, how < 0 ? PAN_LEFT : PAN_RIGHT);
    tui_log_add(&t->log, TUI_MSG_INFO, "Home, End and the arrows <- -> go through the snapshots "
                                       "of a run folder (:watch dir=DIR)");
    return 0;
}

static int key_log_counts(tui *t, int arg)
{
    (void)arg;
    t->hist_log = !t->hist_log;
    return 0;
}

/* t: the solver view, or back to the last live one. */
static int key_view(tui *t, int arg)
{
    (void)arg;
    if (t->view != TUI_VIEW_SOLVER)
        tui_set_view(t, TUI_VIEW_SOLVER);
    else if (t->live_view != TUI_VIEW_SOLVER)
        tui_set_view(t, t->live_view);
    else
        tui_log_add(&t->log, TUI_MSG_INFO,
                    "t shows a training run or a sweep: none yet (:train ..., :sweep ...)");
    return 0;
}

static int key_quit(tui *t, int arg)
{
    (void)t;
    (void)arg;
    return 1;
}

/* ---- the table ------------------------------------------------------------------ */

enum { MAX_KEYS = 5 };
enum { SOLVER = 1 << TUI_VIEW_SOLVER, TRAIN = 1 << TUI_VIEW_TRAIN, SWEEP = 1 << TUI_VIEW_SWEEP,
       ALL = SOLVER | TRAIN | SWEEP };
enum { TO_SOLVER = 1 };   /* the solver's keys bring its view back first */

typedef struct key_row {
    const char *name, *help;    /* the line ? shows, in the table's order */
    int (*run)(tui *t, int arg); /* 1: quit */
    struct {
        int ch, arg;            /* a key and what the handler is told (ch 0: none) */
    } keys[MAX_KEYS];
    int flags;                  /* TO_SOLVER */
    const char *hint;           /* its item in the hint line (NULL: none) */
    int hint_views;             /* the views whose hint line shows it */
    int hint_rank;              /* its place there: the ways out first, a narrow
                                   terminal cuts the end */
} key_row;

static const key_row key_table[] = {
    {"s", "one solver step (step)", key_step, {{'s', 1}}, TO_SOLVER, "s step", SOLVER, 10},
    {"S", "ten steps (step n=10)", key_step, {{'S', 10}}, TO_SOLVER, "S x10", SOLVER, 11},
    {"space", "run / pause: a step every 0.12 s", key_run, {{' ', 0}}, TO_SOLVER, "space run",
     SOLVER, 12},
    {"r", "reset the solver (reset)", key_reset, {{'r', 0}}, TO_SOLVER, "r reset", SOLVER, 14},
    {"b / B", "back one / ten iterations of the start (rewind K)", key_back,
     {{'b', 1}, {'B', 10}}, 0, "b back", SOLVER, 13},
    {"m", "the landscape or the basin map (view map=basins)", key_map, {{'m', 0}}, 0, "m map",
     SOLVER, 15},
    {"p / Enter", "pick the highlighted regularizer (reg NAME)", key_pick,
     {{'p', 0}, {'\n', 0}, {'\r', 0}, {KEY_ENTER, 0}}, TO_SOLVER, "p pick", SOLVER, 16},
    {"+ / -", "zoom the landscape in / out (view x=.. y=..)", key_zoom,
     {{'+', 1}, {'=', 1}, {'-', -1}}, 0, "+/- zoom", SOLVER, 17},
    {"arrows", "pan the landscape (Up/Down move in Regularizers)", key_pan,
     {{KEY_LEFT, PAN_LEFT}, {KEY_RIGHT, PAN_RIGHT}, {KEY_UP, PAN_UP}, {KEY_DOWN, PAN_DOWN}}, 0,
     "arrows pan", SOLVER, 18},
    {"Shift+arrows", "move the start; the run from it at once (step until=end x0=X,Y)",
     key_move_start, {{KEY_SLEFT, MOVE_LEFT}, {KEY_SRIGHT, MOVE_RIGHT}, {KEY_SR, MOVE_UP},
                      {KEY_SF, MOVE_DOWN}}, TO_SOLVER, NULL, 0, 0},
    {"click", "on the map: the start there, and its run", key_mouse, {{KEY_MOUSE, 0}}, 0, NULL,
     0, 0},
    {"< / >", "one equation fewer / more: M-1 / M+1 (problem KIND N= M=)", key_equations,
     {{'<', -1}, {'>', 1}}, TO_SOLVER, NULL, 0, 0},
    {"( / )", "x* half / twice as large, the same draw (problem KIND N= M= scale=)", key_scale,
     {{'(', -1}, {')', 1}}, TO_SOLVER, NULL, 0, 0},
    {"{ / }", "lambda / 10, x 10: fit=ls, 2bit, maxcut; the run again (step until=end lambda=)",
     key_lambda, {{'{', -1}, {'}', 1}}, TO_SOLVER, NULL, 0, 0},
    {"x / y", "next coordinate on the slice's x / y axis (view dims=)", key_dim,
     {{'x', 0}, {'y', 1}}, 0, NULL, 0, 0},
    {"0", "back to the box -2:2 x -2:2", key_home, {{'0', 0}}, 0, NULL, 0, 0},
    {"Tab", "cycle the focus between panels", key_focus, {{'\t', 1}, {KEY_BTAB, -1}}, 0, NULL,
     0, 0},
    {":", "command line: every command, history, Tab completion", key_cmdline, {{':', 0}}, 0,
     ": command", ALL, 3},
    {"?", "this help", key_help, {{'?', 0}}, 0, "? help", ALL, 1},
    {"Esc / Ctrl-C", "cancel the running command, pause", key_cancel, {{27, 0}, {3, 0}}, 0,
     "Esc cancels", TRAIN | SWEEP, 23},
    {"Ctrl-L", "redraw", key_redraw, {{12, 0}}, 0, NULL, 0, 0},
    {"PgUp / PgDn", "scroll the messages (page the list in Regularizers)", key_page,
     {{KEY_PPAGE, -1}, {KEY_NPAGE, 1}}, 0, NULL, 0, 0},
    {"o", "the last long output again, in the pager (/ finds)", key_pager, {{'o', 0}}, 0, NULL,
     0, 0},
    {"[ / ]", "training: previous / next layer (hist layer=NAME)", key_layer,
     {{'[', -1}, {']', 1}}, 0, "[ ] layer", TRAIN, 21},
    {"l", "training: log / linear counts in the Histogram", key_log_counts, {{'l', 0}}, 0,
     "l log counts", TRAIN, 22},
    {"t", "the training or sweep view / the solver view", key_view, {{'t', 0}}, 0,
     "t solver view", TRAIN | SWEEP, 20},
    {"q", "quit", key_quit, {{'q', 0}}, 0, "q quit", ALL, 2},
    /* last: the run folders' keys, after the workbench's */
    {"<- -> Home End", "the snapshots of a run folder; c compares two runs", key_scrub,
     {{KEY_LEFT, -1}, {KEY_RIGHT, 1}, {KEY_HOME, -2}, {KEY_END, 2}, {'c', 3}}, 0,
     "<- -> snapshots", TRAIN, 24},
};
enum { NROWS = sizeof key_table / sizeof *key_table };

int tui_keys_run(tui *t, int ch)
{
    for (size_t i = 0; i < NROWS; i++)
        for (size_t k = 0; k < MAX_KEYS && key_table[i].keys[k].ch; k++)
            if (key_table[i].keys[k].ch == ch) {
                if (key_table[i].flags & TO_SOLVER)
                    tui_set_view(t, TUI_VIEW_SOLVER);
                return key_table[i].run(t, key_table[i].keys[k].arg);
            }
    return 0;
}

void tui_keys_hint(int view, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    /* the view's hints by rank: pick the next higher rank each time */
    for (int last = 0;;) {
        const key_row *next = NULL;
        for (size_t i = 0; i < NROWS; i++) {
            const key_row *r = &key_table[i];
            if (r->hint && (r->hint_views & (1 << view)) && r->hint_rank > last &&
                (!next || r->hint_rank < next->hint_rank))
                next = r;
        }
        if (!next)
            break;
        last = next->hint_rank;
        int n = snprintf(buf + used, len - used, "%s%s", used ? "  " : "", next->hint);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
}

/* The markers on the map, for the help: each glyph's meaning (its colour
 * is added from tui_draw.c's table). */
static const char *const glyph_help[TUI_NGLYPHS] = {
    [TUI_GLYPH_XSTAR] = "x*, the solution",
    [TUI_GLYPH_START] = "the current start's point (drawn from iteration 0)",
    [TUI_GLYPH_ITERATE] = "the iterate",
    [TUI_GLYPH_END] = "where the runs of a basin map end",
    [TUI_GLYPH_MARK] = "a spurious stationary point found by reg analyze",
    [TUI_GLYPH_SPLIT] = "a split map's answer (linf: the feasible point of smallest max-norm)",
};

void tui_keys_help_open(tui *t)
{
    size_t cap = 8192, used = 0;
    char *text = malloc(cap);
    if (!text)
        return;
#define ADD(...) used += (size_t)snprintf(text + used, used < cap ? cap - used : 0, __VA_ARGS__)
    ADD("Every key runs a command: save session FILE.csr replays them.\n");
    for (size_t i = 0; i < NROWS; i++)
        ADD("%-15s %s\n", key_table[i].name, key_table[i].help);
    ADD("\n");
    ADD("On the map, each marker in a black cell:\n");
    for (int g = 0; g < TUI_NGLYPHS; g++)
        ADD("%s  %s (%s)\n", tui_glyph_text(g), glyph_help[g], tui_glyph_colour(g));
    ADD("Lines: cyan the target set, magenta Ax = b, green the current start's path, grey "
        "the other starts'.\n\n");
    ADD("The tour: %s (every other key keeps its meaning).\n", tui_play_keys());
    ADD("This pager: arrows, PgUp/PgDn, Home/End scroll; / finds, n and N go to the next and "
        "previous match; q or Esc closes.\n");
#undef ADD
    if (used < cap)
        tui_pager_open(t, text, "Keys");
    free(text);
    if (t->pager)
        t->pager->glyphs = 1;
}
