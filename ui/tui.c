/* tui.c — the workbench: the panel table, the event loop, and keeping the
 * terminal sane on every way out. Where the panels go is tui_layout.c,
 * what the keys do tui_keys.c.
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
#include "cs_run_folder.h"

/* ---- drawing ----------------------------------------------------------------- */

static void draw_head(tui *t, WINDOW *w)
{
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
        return;
    }
    if (t->view == TUI_VIEW_SWEEP) {
        char what[400];
        tui_sweep_head(t, what, sizeof what);
        snprintf(line, sizeof line, " csreg %s %s %s%s", CSREG_VERSION, bar, what,
                 tui_worker_idle(t->worker) ? "" : "  [running]");
        tui_put(w, 0, 0, line);
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
}

/* A line of items parted by two blanks, cut after the last item that fits
 * `cols` columns (no key's hint is cut in the middle). */
static void whole_items(char *line, int cols)
{
    int c = 0;
    char *cut = NULL;
    for (char *p = line; *p; p++) {
        if (p[0] == ' ' && p[1] == ' ')
            cut = p;
        c += ((unsigned char)*p & 0xc0) != 0x80;
        if (c > cols) {
            if (cut)
                *cut = '\0';
            return;
        }
    }
}

static void draw_status(tui *t, WINDOW *w)
{
    werase(w);
    tui_progress p;
    tui_worker_progress(t->worker, &p);
    int wd = getmaxx(w);
    if (p.busy && (tui_train_status(t, w, p.line) || tui_sweep_status(t, w, p.line)))
        return;
    if (p.busy && p.seconds > 0.3) {
        char head[200], cmd[64];
        tui_shorten_words(p.line, wd / 2 > 20 ? wd / 2 : 20, cmd, sizeof cmd);
        snprintf(head, sizeof head, " %s  %.1fs ", cmd, p.seconds);
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
        char line[512], hint[400];
        tui_keys_hint(t->view, hint, sizeof hint);
        char *q = strstr(hint, "q quit  ");   /* the tour's keys say it */
        if (tui_play_waiting(t) && q)
            memmove(q, q + 8, strlen(q + 8) + 1);
        if (tui_play_waiting(t))
            snprintf(line, sizeof line, " Tour: %s  %s", tui_play_keys(), hint);
        else
            snprintf(line, sizeof line, " %s%s",
                     t->demo ? "Demo: press s to step, space to run. " : "", hint);
        whole_items(line, wd);
        size_t len = strlen(line);
        while (len + 1 < sizeof line && (int)len < wd)
            line[len++] = ' ';
        line[len] = '\0';
        tui_put(w, 0, 0, line);
        wattroff(w, tui_cap.color ? COLOR_PAIR(TUI_PAIR_HINT) : A_REVERSE);
    }
}

static void draw_cmd(tui *t, WINDOW *w)
{
    char prompt[200];
    snprintf(prompt, sizeof prompt, "%s", t->snap ? t->snap->prompt : "csreg> ");
    tui_cmdline_draw(&t->cmd, w, prompt, t->focus == TUI_FOCUS_CMD);
    curs_set(t->focus == TUI_FOCUS_CMD && !t->pager ? 1 : 0);
}

/* The command line focused takes every key: a line runs on Enter, Esc
 * leaves, Ctrl-C cancels as everywhere. */
static int cmd_key(tui *t, int ch)
{
    if (ch == 3) {
        tui_cancel(t);
        return 1;
    }
    char line[512];
    int rc = tui_cmdline_key(&t->cmd, ch, line, sizeof line);
    if (rc != 0)
        t->focus = t->prev_focus == TUI_FOCUS_CMD ? TUI_FOCUS_LAND : t->prev_focus;
    /* `watch dir=DIR`: the UI follows the folder itself (tui_folder.c) */
    if (rc == 1 && line[strspn(line, " ")] && !tui_folder_line(t, line))
        tui_worker_submit(t->worker, line, TUI_ECHO | TUI_SHOW_OUTPUT | TUI_PAGE);
    return 1;
}

/* ---- the panel table ------------------------------------------------------------ */

/* Every panel in drawing order: later ones over earlier ones, the command
 * line last among the windows (the cursor stays there), the pager over
 * everything. A panel draws when the view's layout gave it a window
 * (tui_layout.c); an overlay (no window) draws in every view and makes its
 * own. */
enum { OVERLAY = -1, NO_FOCUS = -1 };
static const struct tui_panel_row {
    int id;              /* TUI_PANEL_* (its window t->win[id]), or OVERLAY */
    const char *name;    /* the title on its box (NULL: no box; an overlay boxes itself) */
    int focus;           /* the TUI_FOCUS_* that highlights it and gives it the keys */
    void (*draw)(tui *t, WINDOW *w);
    int (*key)(tui *t, int ch);   /* its keys when focused (1: taken), or NULL */
} panels[] = {
    {TUI_PANEL_HEAD, NULL, NO_FOCUS, draw_head, NULL},
    {TUI_PANEL_REGS, "Regularizers", TUI_FOCUS_REGS, tui_regs_draw, tui_regs_key},
    {TUI_PANEL_LAND, "Landscape", TUI_FOCUS_LAND, tui_landscape_draw, NULL},
    {TUI_PANEL_SOLVER, "Solver", TUI_FOCUS_SOLVER, tui_solver_draw, NULL},
    {TUI_PANEL_CHART, "Curves", NO_FOCUS, tui_chart_draw, NULL},
    {TUI_PANEL_TRAIN, "Training", NO_FOCUS, tui_train_draw, NULL},
    {TUI_PANEL_SWEEP, "Success", NO_FOCUS, tui_sweep_draw, NULL},
    {TUI_PANEL_POINTS, "Points", NO_FOCUS, tui_points_draw, NULL},
    {TUI_PANEL_HIST, "Histogram", TUI_FOCUS_HIST, tui_hist_draw, NULL},
    {TUI_PANEL_MSG, NULL, NO_FOCUS, tui_msg_draw, NULL},
    {TUI_PANEL_NARR, NULL, NO_FOCUS, tui_play_draw, NULL},
    {TUI_PANEL_STATUS, NULL, NO_FOCUS, draw_status, NULL},
    {TUI_PANEL_CMD, NULL, TUI_FOCUS_CMD, draw_cmd, cmd_key},
    {OVERLAY, "Pager", NO_FOCUS, tui_pager_draw, NULL},
};
enum { NPANELS = sizeof panels / sizeof *panels };

static void draw(tui *t)
{
    if (t->rows < TUI_MIN_ROWS || t->cols < TUI_MIN_COLS || !t->win[TUI_PANEL_HEAD]) {
        erase();
        mvprintw(0, 0, "terminal too small: %dx%d (need %dx%d); q quits", t->cols, t->rows,
                 TUI_MIN_COLS, TUI_MIN_ROWS);
        wnoutrefresh(stdscr);
        doupdate();
        return;
    }
    for (size_t i = 0; i < NPANELS; i++) {
        const struct tui_panel_row *p = &panels[i];
        if (p->id == OVERLAY) {
            p->draw(t, NULL);
            continue;
        }
        WINDOW *w = t->win[p->id];
        if (!w)
            continue;   /* not in this view */
        if (p->name)
            tui_panel_box(w, p->name, t->focus == p->focus);
        p->draw(t, w);
        wnoutrefresh(w);
    }
    doupdate();
}

/* ---- snapshots --------------------------------------------------------------- */

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
            t->nzoom = 0;   /* zooming back starts afresh */
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

/* Output taller than the message area opens the pager (o opens it again). */
static void take_page(tui *t)
{
    WINDOW *msg = t->win[TUI_PANEL_MSG];
    char line[160];
    int followed = 0;
    char *text = tui_worker_take_page(t->worker, msg ? (size_t)getmaxy(msg) : 2, line,
                                      sizeof line, &t->page_seen, &followed);
    if (!text)
        return;
    free(t->last_page);
    t->last_page = text;
    snprintf(t->last_page_line, sizeof t->last_page_line, "%s", line);
    /* a run or sweep has its own view on the screen, a script its own
     * lines: their tables wait for o */
    static const char *const own_view[] = {"sweep", "train", "finetune", "run", "source", NULL};
    size_t n = strcspn(line, " ");
    int own = 0;
    for (size_t k = 0; own_view[k]; k++)
        own |= n == strlen(own_view[k]) && !strncmp(line, own_view[k], n);
    /* nor when more was typed after it: the pager would hide what comes */
    if (own || followed)
        tui_log_add(&t->log, TUI_MSG_INFO, "o shows this output whole, in the pager");
    else
        tui_pager_open(t, text, line);
}

/* Returns 1 to quit. */
static int on_key(tui *t, int ch)
{
    if (ch == KEY_RESIZE) {
        tui_layout(t);
        return 0;
    }
    if (t->pager && t->focus != TUI_FOCUS_CMD) {   /* open, it has the keys but : */
        if (ch != ':' || t->pager->typing) {
            tui_pager_key(t, ch);
            return 0;
        }
        tui_pager_close(t);
    }
    for (size_t i = 0; i < NPANELS; i++)   /* the focused panel first */
        if (panels[i].key && panels[i].focus == t->focus && panels[i].key(t, ch))
            return 0;
    int played = tui_play_key(t, ch);
    if (played)
        return played == 2;
    return tui_keys_run(t, ch);
}

/* ---- the loop ------------------------------------------------------------------- */

/* A running start that has settled away from x* is cut short: the rest of
 * it in one command (step until=end), said in the messages, instead of
 * seconds of steps that change nothing. 1 when it did. */
static int cut_stalled(tui *t)
{
    const tui_snap *s = t->snap;
    if (!s || !s->have_problem || s->success || s->settled < 0 || strcmp(s->end, "running") ||
        s->iter - s->settled < 3)
        return 0;
    char msg[256];
    snprintf(msg, sizeof msg, "start %d settled at iteration %ld on a point that is not x* "
             "(error %.2g): the rest of it is skipped (step until=end)", s->start, s->settled,
             s->rel_err);
    tui_log_add(&t->log, TUI_MSG_INFO, msg);
    tui_worker_submit(t->worker, "step until=end", TUI_ECHO);
    return 1;
}

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
        take_page(t);
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
            if (t->running && !cut_stalled(t))
                tui_worker_submit(t->worker, "step", 0);
            t->next_tick = now + TICK_MS / 1000.0;
        }
        int folder_ms = tui_folder_tick(t);   /* a run folder: its next look (-1: none) */
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
        if (folder_ms >= 0 && folder_ms < timeout)
            timeout = folder_ms;
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
                "FISTA starts at the yellow circle, x* is the star. Press space to run (a step "
                "every 0.12 s), s to step, b to step back, r to reset, Shift+arrows or a click "
                "to move the start, m for the basin map after :basins, ? for all keys.");
    for (size_t i = 0; i < sizeof demo_lines / sizeof *demo_lines; i++)
        tui_worker_submit(t->worker, demo_lines[i], TUI_ECHO);
}

/* The workbench: on the demo, playing a script, or following a run folder
 * (watch_dir; watch_vs may be NULL). */
static int workbench(const cs_interp_opts *opts, int demo, const char *script,
                     const char *watch_dir, const char *watch_vs)
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
    t->play_rows = tui_play_rows;   /* 0 rows until a script plays */
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
        else if (watch_dir)
            tui_folder_open(t, watch_dir, watch_vs);
        else if (t->play)
            tui_log_add(&t->log, TUI_MSG_INFO,
                        tui_layout_narr_side(t)
                            ? "The tour: read the narration at the right, press n to go on, N "
                              "to go back a chapter, q to quit. Between stops every key of the "
                              "workbench works."
                            : "The tour: read the narration above, press n to go on, N to go "
                              "back a chapter, q to quit. Between stops every key of the "
                              "workbench works.");
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
    tui_layout_drop(t);
    tui_snap_free(t->snap);
    tui_play_free(t->play);
    tui_pager_close(t);
    free(t->last_page);
    tui_folder_close(t);
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

int cs_tui_main(const cs_interp_opts *opts, int demo, const char *script)
{
    return workbench(opts, demo, script, NULL, NULL);
}

int cs_tui_watch(const cs_interp_opts *opts, const char *dir, const char *vs)
{
    /* a folder that is not there: said before the screen is taken */
    for (const char *d = dir; d; d = d == dir ? vs : NULL) {
        cs_run_folder *rf;
        cs_err err;
        if (cs_run_folder_open(&rf, d, &err)) {
            fprintf(stderr, "error: %s\n", err.msg);
            return 1;
        }
        cs_run_folder_free(rf);
    }
    return workbench(opts, 0, NULL, dir, vs);
}
