/* tui.c — the workbench: layout, the key table, the event loop, and
 * keeping the terminal sane on every way out.
 *
 * Every key that changes state sends a command line to the interpreter (a
 * worker thread runs it, see tui_worker.c), so the session journal records
 * it and `save session` replays what was done here. The UI thread sleeps in
 * poll() on the terminal and the worker's wake pipe, answers keys while
 * long commands run, shows their progress and cancels them on Esc/Ctrl-C.
 * Screen updates are batched: wnoutrefresh per window, one doupdate. */
#include "tui.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui_internal.h"
#include "cs_clock.h"

/* ---- time ------------------------------------------------------------------ */

/* ---- the key table (behaviour as data) ------------------------------------ */

enum act {
    ACT_STEP, ACT_STEP10, ACT_RUN, ACT_RESET, ACT_BACK, ACT_BACK10, ACT_MAP, ACT_PICK, ACT_ZOOM_IN, ACT_ZOOM_OUT, ACT_PAN_LEFT,
    ACT_PAN_RIGHT, ACT_PAN_UP, ACT_PAN_DOWN, ACT_DIM_X, ACT_DIM_Y, ACT_VIEW_HOME, ACT_FOCUS,
    ACT_FOCUS_BACK, ACT_CMDLINE, ACT_HELP, ACT_CANCEL, ACT_REDRAW, ACT_PAGE_UP, ACT_PAGE_DOWN,
    ACT_LAYER_PREV, ACT_LAYER_NEXT, ACT_LOG_COUNTS, ACT_VIEW, ACT_QUIT
};

static const struct tui_key {
    int key;
    int act;
    const char *name;  /* shown by ?; NULL: an alias of the row above */
    const char *help;
} key_table[] = {
    {'s', ACT_STEP, "s", "one solver step (step)"},
    {'S', ACT_STEP10, "S", "ten steps (step n=10)"},
    {' ', ACT_RUN, "space", "run / pause: a step every 0.12 s"},
    {'r', ACT_RESET, "r", "reset the solver (reset)"},
    {'b', ACT_BACK, "b / B", "back one / ten iterations of the start (rewind K)"},
    {'B', ACT_BACK10, NULL, NULL},
    {'m', ACT_MAP, "m", "the landscape or the basin map (view map=basins)"},
    {'p', ACT_PICK, "p / Enter", "pick the highlighted regularizer (reg NAME)"},
    {'\n', ACT_PICK, NULL, NULL},
    {'\r', ACT_PICK, NULL, NULL},
    {KEY_ENTER, ACT_PICK, NULL, NULL},
    {'+', ACT_ZOOM_IN, "+ / -", "zoom the landscape in / out (view x=.. y=..)"},
    {'=', ACT_ZOOM_IN, NULL, NULL},
    {'-', ACT_ZOOM_OUT, NULL, NULL},
    {KEY_LEFT, ACT_PAN_LEFT, "arrows", "pan the landscape (Up/Down move in Regularizers)"},
    {KEY_RIGHT, ACT_PAN_RIGHT, NULL, NULL},
    {KEY_UP, ACT_PAN_UP, NULL, NULL},
    {KEY_DOWN, ACT_PAN_DOWN, NULL, NULL},
    {'x', ACT_DIM_X, "x / y", "next coordinate on the slice's x / y axis (view dims=)"},
    {'y', ACT_DIM_Y, NULL, NULL},
    {'0', ACT_VIEW_HOME, "0", "back to the box -2:2 x -2:2"},
    {'\t', ACT_FOCUS, "Tab", "cycle the focus between panels"},
    {KEY_BTAB, ACT_FOCUS_BACK, NULL, NULL},
    {':', ACT_CMDLINE, ":", "command line: every command, history, Tab completion"},
    {'?', ACT_HELP, "?", "this help"},
    {27, ACT_CANCEL, "Esc / Ctrl-C", "cancel the running command, pause"},
    {3, ACT_CANCEL, NULL, NULL},
    {12, ACT_REDRAW, "Ctrl-L", "redraw"},
    {KEY_PPAGE, ACT_PAGE_UP, "PgUp / PgDn", "scroll the messages (page the list in Regularizers)"},
    {KEY_NPAGE, ACT_PAGE_DOWN, NULL, NULL},
    {'[', ACT_LAYER_PREV, "[ / ]", "training: previous / next layer (hist layer=NAME)"},
    {']', ACT_LAYER_NEXT, NULL, NULL},
    {'l', ACT_LOG_COUNTS, "l", "training: log / linear counts in the Histogram"},
    {'t', ACT_VIEW, "t", "the training or sweep view / the solver view"},
    {'q', ACT_QUIT, "q", "quit"},
};

/* the ways out and to the rest first: a narrow terminal cuts the end */
static const char hint_text[] = "? help  q quit  : command  s step  S x10  space run  b back  "
                                "r reset  m map  p pick  +/- zoom  arrows pan";
static const char train_hint_text[] = "? help  q quit  : command  t solver view  [ ] layer  "
                                      "l log counts  Esc cancels";
static const char sweep_hint_text[] = "? help  q quit  : command  t solver view  Esc cancels";

/* ---- layout ----------------------------------------------------------------- */

enum { MIN_COLS = 60, MIN_ROWS = 16 };

static void drop_windows(tui *t)
{
    WINDOW **ws[] = {&t->w_head, &t->w_regs, &t->w_land, &t->w_solver, &t->w_hist,
                     &t->w_msg,  &t->w_cmd,  &t->w_status, &t->w_chart, &t->w_train,
                     &t->w_sweep, &t->w_points};
    for (size_t i = 0; i < sizeof ws / sizeof *ws; i++)
        if (*ws[i]) {
            delwin(*ws[i]);
            *ws[i] = NULL;
        }
}

void tui_layout(tui *t)
{
    drop_windows(t);
    getmaxyx(stdscr, t->rows, t->cols);
    if (t->rows < MIN_ROWS || t->cols < MIN_COLS)
        return;
    int rows = t->rows, cols = t->cols;
    int msg_h = rows >= 48 ? 6 : rows >= 36 ? 4 : rows >= 28 ? 3 : 2;
    int body_top = 1, body_h = rows - 1 - msg_h - 2;
    int left_w = cols >= 150 ? 34 : cols >= 110 ? 27 : 20;
    int right_w = cols >= 150 ? 46 : cols >= 110 ? 36 : 26;
    int land_w = cols - left_w - right_w;
    int solver_h = body_h >= 26 ? 13 : body_h >= 17 ? 11 : body_h / 2 + 1;
    t->w_head = newwin(1, cols, 0, 0);
    t->w_msg = newwin(msg_h, cols, body_top + body_h, 0);
    t->w_cmd = newwin(1, cols, rows - 2, 0);
    t->w_status = newwin(1, cols, rows - 1, 0);
    tui_train_want_bins(t);   /* for the frames of a run to come, too */
    if (t->view == TUI_VIEW_TRAIN) {
        tui_train_layout(t, body_top, body_h);
        return;
    }
    if (t->view == TUI_VIEW_SWEEP) {
        tui_sweep_layout(t, body_top, body_h);
        return;
    }
    t->w_regs = newwin(body_h, left_w, body_top, 0);
    t->w_land = newwin(body_h, land_w, body_top, left_w);
    t->w_solver = newwin(solver_h, right_w, body_top, left_w + land_w);
    t->w_hist = newwin(body_h - solver_h, right_w, body_top + solver_h, left_w + land_w);
    tui_map_resize(t);
}

void tui_map_resize(tui *t)
{
    if (!t->w_land)
        return;
    int h, w;
    getmaxyx(t->w_land, h, w);
    size_t nx, ny;
    tui_landscape_pixels(h, w, t->box.x1 - t->box.x0, t->box.y1 - t->box.y0, &nx, &ny);
    if (nx != t->map_nx || ny != t->map_ny) {
        t->map_nx = nx;
        t->map_ny = ny;
        tui_worker_refresh(t->worker, nx, ny);
    }
}

/* ---- drawing ----------------------------------------------------------------- */

static void draw_head(tui *t)
{
    WINDOW *w = t->w_head;
    werase(w);
    wbkgd(w, A_REVERSE);
    const tui_snap *s = t->snap;
    char line[512];
    const char *bar = tui_cap.utf8 ? "│" : "|";
    if (t->view == TUI_VIEW_TRAIN && t->tv) {
        const cs_train_frame *f = &t->tv->f;
        snprintf(line, sizeof line, " csreg %s %s %s %s on %s %s reg %s%s", CSREG_VERSION, bar,
                 f->what, f->model, f->device, bar, f->reg, t->running ? "  [running]" : "");
        tui_put(w, 0, 0, line);
        wnoutrefresh(w);
        return;
    }
    if (t->view == TUI_VIEW_SWEEP) {
        char what[400];
        tui_sweep_head(t, what, sizeof what);
        snprintf(line, sizeof line, " csreg %s %s %s%s", CSREG_VERSION, bar, what,
                 tui_worker_idle(t->worker) ? "" : "  [running]");
        tui_put(w, 0, 0, line);
        wnoutrefresh(w);
        return;
    }
    int n = snprintf(line, sizeof line, " csreg %s %s reg %s", CSREG_VERSION, bar,
                     s ? s->reg : "?");
    if (s && s->have_problem && n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, " %s problem %s N=%zu M=%zu",
                      tui_cap.utf8 ? "│" : "|", s->kind, s->N, s->M);
    if (n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, " %s view x=%.3g:%.3g y=%.3g:%.3g%s%s",
                 tui_cap.utf8 ? "│" : "|", t->box.x0, t->box.x1, t->box.y0, t->box.y1,
                 t->running ? "  [running]" : "", t->demo ? "  [demo]" : "");
    tui_put(w, 0, 0, line);
    wnoutrefresh(w);
}

static void draw_status(tui *t)
{
    WINDOW *w = t->w_status;
    werase(w);
    tui_progress p;
    tui_worker_progress(t->worker, &p);
    int wd = getmaxx(w);
    if (p.busy && (tui_train_status(t, w, p.line) || tui_sweep_status(t, w, p.line))) {
        wnoutrefresh(w);
        return;
    }
    if (p.busy && p.seconds > 0.3) {
        char head[200];
        snprintf(head, sizeof head, " %.40s  %.1fs ", p.line, p.seconds);
        wattron(w, A_BOLD);
        tui_put(w, 0, 0, head);
        wattroff(w, A_BOLD);
        int x = (int)strlen(head);
        if (p.total > 0) {
            int bar = wd - x - 40;
            bar = bar > 40 ? 40 : bar;
            double f = p.done / p.total;
            f = f < 0 ? 0 : f > 1 ? 1 : f;
            if (bar > 4) {
                int fill = (int)lround(f * bar);
                wattron(w, tui_cap.color ? COLOR_PAIR(TUI_PAIR_BAR) : A_REVERSE);
                for (int k = 0; k < fill; k++)
                    mvwaddch(w, 0, x + k, ' ');
                wattroff(w, tui_cap.color ? COLOR_PAIR(TUI_PAIR_BAR) : A_REVERSE);
                for (int k = fill; k < bar; k++)
                    mvwaddch(w, 0, x + k, tui_cap.utf8 ? '.' : '.');
                x += bar + 1;
            }
            tui_putf(w, 0, x, "%3.0f%% %.20s", 100 * f, p.what);
            x += 26;
        }
        tui_put(w, 0, x, " Esc cancels");
    } else {
        wattron(w, tui_cap.color ? COLOR_PAIR(TUI_PAIR_HINT) : A_REVERSE);
        char line[512];
        if (tui_play_waiting(t))
            snprintf(line, sizeof line, " Tour: n or space next  b back a chapter  q quit  "
                                        "(other keys work as usual)");
        else
            snprintf(line, sizeof line, " %s%s",
                     t->demo ? "Demo: press s to step, space to run. " : "",
                     t->view == TUI_VIEW_TRAIN   ? train_hint_text
                     : t->view == TUI_VIEW_SWEEP ? sweep_hint_text
                                                 : hint_text);
        size_t len = strlen(line);
        while (len + 1 < sizeof line && (int)len < wd)
            line[len++] = ' ';
        line[len] = '\0';
        tui_put(w, 0, 0, line);
        wattroff(w, tui_cap.color ? COLOR_PAIR(TUI_PAIR_HINT) : A_REVERSE);
    }
    wnoutrefresh(w);
}

static void draw_help(void)
{
    int n = 0;
    for (size_t i = 0; i < sizeof key_table / sizeof *key_table; i++)
        n += key_table[i].name != NULL;
    int h = n + 4, w = 74;
    if (h > LINES)
        h = LINES;
    if (w > COLS)
        w = COLS;
    WINDOW *win = newwin(h, w, (LINES - h) / 2, (COLS - w) / 2);
    if (!win)
        return;
    werase(win);
    tui_panel_box(win, "Keys", 1);
    int row = 1;
    for (size_t i = 0; i < sizeof key_table / sizeof *key_table && row < h - 2; i++) {
        if (!key_table[i].name)
            continue;
        char line[160];
        snprintf(line, sizeof line, "%-13s %s", key_table[i].name, key_table[i].help);
        tui_putn(win, row++, 2, w - 4, line);   /* inside the frame */
    }
    tui_putn(win, h - 2, 2, w - 4, "Every key runs a command: save session FILE.csr replays "
                                   "them.");
    wnoutrefresh(win);
    delwin(win);
}

static void draw(tui *t)
{
    if (t->rows < MIN_ROWS || t->cols < MIN_COLS || !t->w_head) {
        erase();
        mvprintw(0, 0, "terminal too small: %dx%d (need %dx%d); q quits", t->cols, t->rows,
                 MIN_COLS, MIN_ROWS);
        wnoutrefresh(stdscr);
        doupdate();
        return;
    }
    draw_head(t);
    if (t->view == TUI_VIEW_TRAIN) {
        tui_chart_draw(t, t->w_chart);
        wnoutrefresh(t->w_chart);
        tui_train_draw(t, t->w_train);
        wnoutrefresh(t->w_train);
    } else if (t->view == TUI_VIEW_SWEEP) {
        tui_sweep_draw(t, t->w_sweep);
        wnoutrefresh(t->w_sweep);
        tui_points_draw(t, t->w_points);
        wnoutrefresh(t->w_points);
    } else {
        tui_regs_draw(t, t->w_regs);
        wnoutrefresh(t->w_regs);
        tui_landscape_draw(t, t->w_land);
        wnoutrefresh(t->w_land);
        tui_solver_draw(t, t->w_solver);
        wnoutrefresh(t->w_solver);
    }
    if (t->w_hist) {   /* not in the sweep view */
        tui_hist_draw(t, t->w_hist);
        wnoutrefresh(t->w_hist);
    }
    tui_msg_draw(t, t->w_msg);
    wnoutrefresh(t->w_msg);
    tui_play_draw(t);
    draw_status(t);
    char prompt[200];
    snprintf(prompt, sizeof prompt, "%s", t->snap ? t->snap->prompt : "csreg> ");
    tui_cmdline_draw(&t->cmd, t->w_cmd, prompt, t->focus == TUI_FOCUS_CMD);
    curs_set(t->focus == TUI_FOCUS_CMD && !t->show_help ? 1 : 0);
    wnoutrefresh(t->w_cmd);  /* the cursor stays on the command line */
    if (t->show_help)
        draw_help();          /* over everything, the command line included */
    doupdate();
}

/* ---- snapshots --------------------------------------------------------------- */

/* The box changed otherwise than by a zoom: zooming back starts afresh. */
static void zoom_forget(tui *t) { t->nzoom = 0; }

static void apply_snap(tui *t, tui_snap *s)
{
    tui_snap_free(t->snap);
    t->snap = s;
    /* sparklines: push the history entries not seen yet */
    if (s->hist_len < t->ring_seen || !s->have_problem) {
        tui_ring_clear(&t->robj);
        tui_ring_clear(&t->rerr);
        t->ring_seen = 0;
    }
    size_t from = t->ring_seen > s->hist_from ? t->ring_seen : s->hist_from;
    for (size_t k = from; k < s->hist_len && s->hobj && s->herr; k++) {
        tui_ring_push(&t->robj, s->hobj[k - s->hist_from]);
        tui_ring_push(&t->rerr, s->herr[k - s->hist_from]);
    }
    t->ring_seen = s->hist_len;
    if (tui_worker_idle(t->worker)) {
        /* a box set elsewhere (a typed view, a script) ends the zoom history */
        double tol = 1e-5 * (fabs(t->box.x1 - t->box.x0) + fabs(t->box.y1 - t->box.y0));
        if (fabs(s->box.x0 - t->box.x0) > tol || fabs(s->box.x1 - t->box.x1) > tol ||
            fabs(s->box.y0 - t->box.y0) > tol || fabs(s->box.y1 - t->box.y1) > tol)
            zoom_forget(t);
        t->box = s->box;
        tui_map_resize(t);   /* a box of another shape: a map of that shape */
    }
    if (t->running && (!s->have_problem || s->done)) {
        t->running = 0;   /* the worker said how the run stopped */
        if (!s->have_problem)
            tui_log_add(&t->log, TUI_MSG_INFO,
                        "run stopped: no problem (try :problem bin N=2 M=1)");
    }
}

/* ---- actions ------------------------------------------------------------------ */

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

static void zoom(tui *t, double f)
{
    /* the inverse of the last zoom: back to the box it came from */
    if (t->nzoom > 0 && fabs(f * t->zoom_f[t->nzoom - 1] - 1) < 1e-9) {
        t->box = t->zoom_from[--t->nzoom];
        issue_view(t);
        return;
    }
    double cx = 0.5 * (t->box.x0 + t->box.x1), cy = 0.5 * (t->box.y0 + t->box.y1);
    double hx = 0.5 * (t->box.x1 - t->box.x0) * f, hy = 0.5 * (t->box.y1 - t->box.y0) * f;
    if (hx < 1e-4 || hy < 1e-4 || hx > 1e6 || hy > 1e6) {
        tui_log_add(&t->log, TUI_MSG_INFO, "zoom limit");
        return;
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
}

static void pan(tui *t, double fx, double fy)
{
    double dx = fx * (t->box.x1 - t->box.x0), dy = fy * (t->box.y1 - t->box.y0);
    zoom_forget(t);
    t->box.x0 += dx;
    t->box.x1 += dx;
    t->box.y0 += dy;
    t->box.y1 += dy;
    issue_view(t);
}

/* The next coordinate for axis k of the slice (wrapping, skipping the other). */
static void next_dim(tui *t, int k)
{
    size_t n = t->snap && t->snap->have_problem ? t->snap->n : 2;
    if (n <= 2) {
        tui_log_add(&t->log, TUI_MSG_INFO, "x / y choose the slice's coordinates when N > 2");
        return;
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

static void pick(tui *t)
{
    if (t->focus != TUI_FOCUS_REGS) {
        focus_regs(t);
        tui_log_add(&t->log, TUI_MSG_INFO, "Regularizers: Up/Down choose, p or Enter picks "
                                           "one, Tab leaves");
        return;
    }
    cs_view_reg r;
    if (cs_view_reg_at((size_t)t->reg_sel, &r))
        return;
    char line[64];
    snprintf(line, sizeof line, "reg %s", r.name);
    issue(t, line, TUI_ECHO | TUI_SHOW_OUTPUT);
    t->focus = t->prev_focus == TUI_FOCUS_REGS || t->prev_focus == TUI_FOCUS_CMD
                   ? TUI_FOCUS_LAND
                   : t->prev_focus;
}

static void cancel(tui *t)
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

/* PgUp/PgDn: a page of the list in Regularizers, else of the messages. */
static void page(tui *t, int dir)
{
    if (t->focus == TUI_FOCUS_REGS) {
        int n = (int)cs_view_reg_count();
        t->reg_sel += 8 * dir;
        t->reg_sel = t->reg_sel < 0 ? 0 : t->reg_sel >= n ? n - 1 : t->reg_sel;
        return;
    }
    size_t rows = t->w_msg ? (size_t)getmaxy(t->w_msg) : 2;
    if (dir < 0)
        t->msg_scroll += rows;
    else
        t->msg_scroll = t->msg_scroll > rows ? t->msg_scroll - rows : 0;
}

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

/* b / B: rewind the current start by `back` iterations. */
static void step_back(tui *t, long back)
{
    const tui_snap *s = t->snap;
    t->running = 0;
    if (!s || !s->have_problem || !s->method[0] || s->start == 0) {
        tui_log_add(&t->log, TUI_MSG_INFO, "nothing to go back to: step first (s)");
        return;
    }
    if (s->iter == 0) {
        tui_log_add(&t->log, TUI_MSG_INFO, "at the start point of this start: r resets the run");
        return;
    }
    char line[64];
    snprintf(line, sizeof line, "rewind %ld", s->iter > back ? s->iter - back : 0);
    issue(t, line, TUI_ECHO);
}

/* m: the landscape or the basin map. */
static void toggle_map(tui *t)
{
    int basins = t->snap && t->snap->map && t->snap->map->cls;
    issue(t, basins ? "view map=landscape" : "view map=basins", TUI_ECHO | TUI_SHOW_OUTPUT);
}

void tui_set_view(tui *t, int view)
{
    if (t->view == view)
        return;
    t->view = view;
    tui_layout(t);
}

/* Returns 1 to quit. */
static int do_action(tui *t, int act)
{
    int regs = t->focus == TUI_FOCUS_REGS;
    int n = (int)cs_view_reg_count();
    /* the solver's keys bring its view back */
    if (act == ACT_STEP || act == ACT_STEP10 || act == ACT_RUN || act == ACT_RESET ||
        act == ACT_PICK)
        tui_set_view(t, TUI_VIEW_SOLVER);
    switch (act) {
    case ACT_STEP:
        if (!run_has_stopped(t))
            issue(t, "step", TUI_ECHO);
        break;
    case ACT_STEP10:
        if (!run_has_stopped(t))
            issue(t, "step n=10", TUI_ECHO);
        break;
    case ACT_BACK: step_back(t, 1); break;
    case ACT_BACK10: step_back(t, 10); break;
    case ACT_MAP: toggle_map(t); break;
    case ACT_RUN:
        if (!t->running && run_has_stopped(t))
            break;
        t->running = !t->running;
        t->next_tick = cs_now();
        tui_log_add(&t->log, TUI_MSG_INFO,
                    t->running ? "running: a step every 0.12 s (space pauses)" : "paused");
        break;
    case ACT_RESET:
        t->running = 0;
        issue(t, "reset", TUI_ECHO);
        break;
    case ACT_PICK: pick(t); break;
    case ACT_ZOOM_IN: zoom(t, 1 / 1.5); break;
    case ACT_ZOOM_OUT: zoom(t, 1.5); break;
    case ACT_PAN_LEFT: pan(t, -0.1, 0); break;
    case ACT_PAN_RIGHT: pan(t, 0.1, 0); break;
    case ACT_PAN_UP:
        if (regs)
            t->reg_sel = t->reg_sel > 0 ? t->reg_sel - 1 : 0;
        else
            pan(t, 0, 0.1);
        break;
    case ACT_PAN_DOWN:
        if (regs)
            t->reg_sel = t->reg_sel + 1 < n ? t->reg_sel + 1 : n - 1;
        else
            pan(t, 0, -0.1);
        break;
    case ACT_DIM_X: next_dim(t, 0); break;
    case ACT_DIM_Y: next_dim(t, 1); break;
    case ACT_VIEW_HOME:
        zoom_forget(t);
        t->box.x0 = t->box.y0 = -2;
        t->box.x1 = t->box.y1 = 2;
        issue_view(t);
        break;
    case ACT_FOCUS:
        t->focus = (t->focus + 1) % TUI_FOCUS_CMD;
        if (t->focus == TUI_FOCUS_REGS)
            focus_regs(t);
        break;
    case ACT_FOCUS_BACK:
        t->focus = (t->focus + TUI_FOCUS_CMD - 1) % TUI_FOCUS_CMD;
        if (t->focus == TUI_FOCUS_REGS)
            focus_regs(t);
        break;
    case ACT_CMDLINE:
        t->prev_focus = t->focus;
        t->focus = TUI_FOCUS_CMD;
        break;
    case ACT_HELP: t->show_help = 1; break;
    case ACT_CANCEL: cancel(t); break;
    case ACT_REDRAW: clearok(curscr, TRUE); break;
    case ACT_PAGE_UP:
    case ACT_PAGE_DOWN: page(t, act == ACT_PAGE_UP ? -1 : 1); break;
    case ACT_LAYER_PREV:
    case ACT_LAYER_NEXT: tui_train_cycle(t, act == ACT_LAYER_NEXT ? 1 : -1); break;
    case ACT_LOG_COUNTS: t->hist_log = !t->hist_log; break;
    case ACT_VIEW:   /* the solver view, or back to the last live one */
        if (t->view != TUI_VIEW_SOLVER)
            tui_set_view(t, TUI_VIEW_SOLVER);
        else if (t->live_view != TUI_VIEW_SOLVER)
            tui_set_view(t, t->live_view);
        else
            tui_log_add(&t->log, TUI_MSG_INFO,
                        "t shows a training run or a sweep: none yet (:train ..., :sweep ...)");
        break;
    case ACT_QUIT: return 1;
    }
    return 0;
}

/* Returns 1 to quit. */
static int on_key(tui *t, int ch)
{
    if (ch == KEY_RESIZE) {
        tui_layout(t);
        return 0;
    }
    if (t->show_help) {
        t->show_help = 0;
        return ch == 'q' ? 0 : 0;
    }
    if (t->focus == TUI_FOCUS_CMD) {
        if (ch == 3) {  /* Ctrl-C: cancel as everywhere */
            cancel(t);
            return 0;
        }
        char line[512];
        int rc = tui_cmdline_key(&t->cmd, ch, line, sizeof line);
        if (rc != 0)
            t->focus = t->prev_focus == TUI_FOCUS_CMD ? TUI_FOCUS_LAND : t->prev_focus;
        if (rc == 1 && line[strspn(line, " ")])
            issue(t, line, TUI_ECHO | TUI_SHOW_OUTPUT);
        return 0;
    }
    int played = tui_play_key(t, ch);
    if (played)
        return played == 2;
    for (size_t i = 0; i < sizeof key_table / sizeof *key_table; i++)
        if (key_table[i].key == ch)
            return do_action(t, key_table[i].act);
    return 0;
}

/* ---- the loop ------------------------------------------------------------------- */

enum { TICK_MS = 120 };

static void run_loop(tui *t)
{
    int quit = 0;
    while (!quit) {
        tui_snap *s = tui_worker_take_snap(t->worker);
        if (s)
            apply_snap(t, s);
        if (t->tv && tui_worker_take_train(t->worker, t->tv, &t->tv_seen))
            tui_train_update(t);
        if (t->sv && tui_worker_take_sweep(t->worker, t->sv, &t->sv_seen))
            tui_sweep_update(t);
        tui_worker_take_log(t->worker, &t->log);
        if (tui_worker_idle(t->worker)) {   /* after the command's output */
            tui_train_finished(t);
            tui_sweep_finished(t);
        }
        if (t->log.total != t->log_seen) {  /* new output: back to the newest line */
            t->log_seen = t->log.total;
            t->msg_scroll = 0;
        }
        if (tui_worker_quit_requested(t->worker))
            break;
        tui_play_tick(t);
        double now = cs_now();
        if (t->running && now >= t->next_tick && tui_worker_idle(t->worker)) {
            /* idle: the last command's snapshot is in; a run that has
             * stopped takes no more steps */
            if ((s = tui_worker_take_snap(t->worker)))
                apply_snap(t, s);
            if (t->running) {
                issue(t, "step", 0);
                t->next_tick = now + TICK_MS / 1000.0;
            }
        }
        draw(t);
        tui_progress p;
        tui_worker_progress(t->worker, &p);
        int timeout = 1000;
        if (t->running)
            timeout = (int)fmax(5, (t->next_tick - cs_now()) * 1000);
        else if (p.busy || p.queued)
            timeout = 100;
        if (timeout > 1000)
            timeout = 1000;
        struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {t->wake[0], POLLIN, 0}};
        int rc = poll(fds, 2, timeout);
        if (rc < 0 && errno != EINTR)
            break;
        if (rc > 0 && (fds[1].revents & POLLIN)) {
            char buf[256];
            while (read(t->wake[0], buf, sizeof buf) > 0) {
            }
        }
        if (rc > 0 && (fds[0].revents & (POLLHUP | POLLERR)) && !(fds[0].revents & POLLIN))
            break;  /* the terminal went away */
        int ch;
        while (!quit && (ch = getch()) != ERR)
            quit = on_key(t, ch);
    }
}

/* The demo problem, found by trying seeds with this binary: the line
 * Ax = b crosses both diagonals (the target set of bin); the first start
 * runs to the crossing that is not x* and sits there until maxit, the
 * restart finds x*. About 80 steps: ten seconds of space-run. */
static const char *demo_lines[] = {
    "seed 26",
    "reg bin",
    "problem bin N=2 M=1",
    "view x=-2:2 y=-2:2",
    "step n=0 maxit=60",   /* the first start at its start point */
};

static void start_demo(tui *t)
{
    tui_log_add(&t->log, TUI_MSG_INFO,
                "Demo: bin on the plane, dark is small; its zero set {-a,+a}^2 is the two "
                "diagonals (target). The line Ax=b is a 1x2 recovery problem: x* is where it "
                "meets a diagonal at (+-1, +-1).");
    tui_log_add(&t->log, TUI_MSG_INFO,
                "FISTA starts at the yellow point. Press space to run (a step every 0.12 s), s "
                "to step, b to step back, r to reset, m for the basin map after :basins, ? for "
                "all keys.");
    for (size_t i = 0; i < sizeof demo_lines / sizeof *demo_lines; i++)
        issue(t, demo_lines[i], TUI_ECHO);
}

int cs_tui_main(const cs_interp_opts *opts, int demo, const char *script)
{
    setlocale(LC_ALL, "");
    FILE *capture = tmpfile();
    FILE *errcap = tmpfile();
    if (!capture || !errcap) {
        fprintf(stderr, "error: cannot create a temporary file for the workbench: %s\n",
                strerror(errno));
        if (capture)
            fclose(capture);
        if (errcap)
            fclose(errcap);
        return 1;
    }
    cs_interp_opts o = *opts;
    o.out = capture;
    o.json = 0;
    cs_interp *in;
    cs_err err;
    if (cs_interp_new(&in, &o, &err)) {
        fprintf(stderr, "error: %s\n", err.msg);
        fclose(capture);
        fclose(errcap);
        return 1;
    }
    tui *t = calloc(1, sizeof *t);
    int status = 0;
    if (!t || pipe(t->wake) != 0) {
        fprintf(stderr, "error: out of memory or pipes\n");
        free(t);
        cs_interp_free(in);
        fclose(capture);
        fclose(errcap);
        return 1;
    }
    fcntl(t->wake[0], F_SETFL, O_NONBLOCK);
    fcntl(t->wake[1], F_SETFL, O_NONBLOCK);
    t->box = CS_VIEW_DEFAULT_BOX;
    t->focus = t->prev_focus = TUI_FOCUS_LAND;
    t->tv = calloc(1, sizeof *t->tv);   /* NULL: no training view (out of memory) */
    t->sv = calloc(1, sizeof *t->sv);   /* NULL: no sweep view */
    t->demo = demo;
    char msg[300];
    if (script && tui_play_open(&t->play, script, msg, sizeof msg) != 0) {
        fprintf(stderr, "error: %s\n", msg);
        status = 1;
    } else if (tui_worker_start(&t->worker, in, capture, t->wake[1]) != 0) {
        fprintf(stderr, "error: cannot start the worker thread\n");
        status = 1;
    } else if (tui_term_start() != 0) {
        fprintf(stderr, "error: cannot set up the terminal (TERM=%s)\n",
                getenv("TERM") ? getenv("TERM") : "");
        status = 1;
    } else {
        tui_term_guard();
        /* stderr would scribble over the screen: capture it, show it as messages */
        if (tui_term_capture_stderr(fileno(errcap)) == 0)
            tui_worker_set_stderr(t->worker, fileno(errcap));
        tui_layout(t);
        if (demo)
            start_demo(t);
        else if (t->play)
            tui_log_add(&t->log, TUI_MSG_INFO,
                        "The tour: read the box, press n or space to go on, b to go back a "
                        "chapter, q to quit. Between steps every key of the workbench works.");
        else
            tui_log_add(&t->log, TUI_MSG_INFO,
                        "Welcome to csreg. Press : and type a command (problem bin N=2 M=1, "
                        "help), p to pick a regularizer, ? for the keys.");
        if (t->map_nx == 0)
            tui_worker_refresh(t->worker, 0, 0);
        run_loop(t);
    }
    if (t->worker)
        tui_worker_stop(t->worker);
    tui_term_restore();
    drop_windows(t);
    tui_snap_free(t->snap);
    tui_play_free(t->play);
    free(t->tv);
    if (t->sv)
        tui_sweep_state_free(t->sv);
    free(t->sv);
    tui_log_free(&t->log);
    tui_cmdline_free(&t->cmd);
    close(t->wake[0]);
    close(t->wake[1]);
    free(t);
    cs_interp_free(in);
    fclose(capture);
    fclose(errcap);
    return status;
}
