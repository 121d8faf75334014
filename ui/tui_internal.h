/* tui_internal.h — what the workbench's files share: the state snapshot the
 * worker builds, the worker that owns the interpreter, ring buffers, the
 * drawing kit, and one draw function per panel. */
#ifndef CS_TUI_INTERNAL_H
#define CS_TUI_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include <curses.h>

#include "cs_interp.h"
#include "cs_solve_view.h"
#include "cs_sweep_view.h"
#include "cs_train_view.h"
#include "cs_view.h"
#include "heatmap.h"

/* ---- ring buffers (sparklines, the trajectory, the message log) ---------- */

enum { TUI_RING_CAP = 512, TUI_PATH_CAP = 4096, TUI_LOG_CAP = 400 };

typedef struct tui_ring {
    double v[TUI_RING_CAP];
    size_t head, len;  /* head: next write */
} tui_ring;
void tui_ring_clear(tui_ring *r);
void tui_ring_push(tui_ring *r, double v);
double tui_ring_at(const tui_ring *r, size_t i);  /* 0 = oldest */

typedef struct tui_path {
    double x[TUI_PATH_CAP], y[TUI_PATH_CAP];
    size_t head, len;
} tui_path;
void tui_path_clear(tui_path *p);
void tui_path_push(tui_path *p, double x, double y);
void tui_path_at(const tui_path *p, size_t i, double *x, double *y);

enum tui_msg_kind { TUI_MSG_CMD, TUI_MSG_OUT, TUI_MSG_ERR, TUI_MSG_INFO };
typedef struct tui_log {
    char *line[TUI_LOG_CAP];
    int kind[TUI_LOG_CAP];
    size_t head, len;
    size_t total;  /* lines ever added */
} tui_log;
void tui_log_add(tui_log *l, int kind, const char *text);  /* splits lines */
void tui_log_free(tui_log *l);
const char *tui_log_at(const tui_log *l, size_t i, int *kind);  /* 0 = oldest */

/* ---- the training view: a run's frames and curves (tui_chart.c) -------- */

enum { TUI_SERIES_CAP = 2048 };
/* Points of a whole run in order; when full, every other one is dropped. */
typedef struct tui_series {
    double x[TUI_SERIES_CAP], y[TUI_SERIES_CAP];
    size_t n;
} tui_series;
void tui_series_clear(tui_series *s);
void tui_series_push(tui_series *s, double x, double y);

/* What the training view shows: the newest frame of the newest run and its
 * curves (loss and regularizer value at every frame, test accuracy when
 * measured), x in steps of the run. */
typedef struct tui_train_state {
    cs_train_frame f;
    tui_series loss, reg, acc;
    size_t acc_step;       /* run step of the last accuracy point */
    /* each layer's latest histogram in this run (bins 0: none yet) and its step */
    cs_nn_watch_layer hist[CS_NN_WATCH_LAYERS];
    size_t hist_step[CS_NN_WATCH_LAYERS];
    /* a run folder compared with another (tui_folder.c, key c): the other
     * run's histogram of the shown layer beside it, on the same range
     * (cmp.bins 0: no comparison) */
    cs_nn_watch_layer cmp;
    size_t cmp_step;
    char tag[2][24];          /* the two runs' names over the histograms */
} tui_train_state;
/* Take frame f: a new run starts new curves. */
void tui_train_state_add(tui_train_state *s, const cs_train_frame *f);

/* ---- the sweep view: a running sweep's counts (tui_sweep.c) ------------- */

enum { TUI_SWEEP_RUNNING = 2 };   /* else how it ended: CS_SWEEP_LIVE_* */
/* Finished trials and successes per grid point and method of the newest
 * sweep. The worker's copy is updated under its lock by the sweep's threads;
 * the UI draws its own copy (tui_worker_take_sweep). */
typedef struct tui_sweep_state {
    long run;              /* the sweep's number (cs_sweep_live.run); 0: none */
    char kind[16], axis[8];
    size_t N, np, nm;
    long trials;           /* per grid point */
    double *values;        /* np grid values */
    char (*method)[128];   /* nm method texts */
    long *done;            /* np: trials finished, those from the journal included */
    long *succ;            /* np × nm successes, point-major */
    long total_done;       /* all finished trials */
    long preloaded;        /* of them, read from the journal (resume=on) */
    double started, ended; /* cs_now() at the start and the end (0: running) */
    int end;               /* TUI_SWEEP_RUNNING or CS_SWEEP_LIVE_* */
} tui_sweep_state;
/* A new sweep: its grid and methods, no trials yet. 0, or -1 out of memory
 * (then s->run is 0: nothing to show). */
int tui_sweep_state_start(tui_sweep_state *s, const cs_sweep_live *l);
void tui_sweep_state_trial(tui_sweep_state *s, size_t point, const unsigned char *success,
                           int preloaded);
/* dst becomes a copy of src (dst's arrays reused or reallocated); 0 or -1. */
int tui_sweep_state_copy(tui_sweep_state *dst, const tui_sweep_state *src);
void tui_sweep_state_free(tui_sweep_state *s);   /* the arrays; s stays */

/* ---- the state the panels draw, built by the worker after each command -- */

typedef struct tui_snap {
    long seq;              /* commands run so far */
    char reg[32];
    char prompt[160];
    cs_view_box box;
    int have_problem;
    char kind[16];
    size_t N, M, K, n;
    double scale;          /* x*'s scale (problem scale=) */
    double noise;          /* σ of the noise in b (problem noise=) */
    double lambda;         /* the run's λ (2bit, maxcut, fit=ls); NaN: none */
    int fit_ls;            /* the run fits a noisy b (solve fit=ls) */
    double *x, *xstar;     /* copies, n entries (xstar may be NULL) */
    long iter;
    int start, max_starts;
    double objective, residual, tau, rel_err;
    int backtracks, success, done;
    char method[64];       /* the run's method ("" before the first step) */
    char next_method[64];  /* the one the next solve or step uses */
    char end[16];          /* how the last start ended (running, oracle, ...) */
    char stop[16];         /* the run's stopping rule */
    long iters;            /* over all starts */
    double final_rel_err;  /* of the returned point, when done */
    cs_trial_rec ledger[8];  /* the last iteration's trial steps (the first 8) */
    size_t nledger;          /* how many there were */
    size_t hist_len;       /* length of the full history */
    size_t hist_from;      /* index of hobj[0]/herr[0] in it */
    double *hobj, *herr;   /* the tail: hist_len - hist_from entries */
    cs_view_map *map;      /* NULL when it could not be computed */
    tui_path *path;        /* the iterate's trajectory in the map's coordinates */
    char map_err[CS_ERR_MAX];
    /* the network's weights, shown by the Histogram panel instead of the
     * iterate when the network changed after the problem/run did */
    int show_weights;
    char wlayer[64], wmodel[128];
    long wrow;             /* -1: all rows */
    double *w;             /* nw values */
    size_t nw;
    double wepoch;
    size_t wsnapshots;
    /* the current start settled (stays within 1e-3 of one point) from this
     * iteration on: its trajectory's (N = 2), else the iterates seen one by
     * one (cs_solve_settle); -1: not settled, or not known */
    long settled;
    /* `reg analyze`'s spurious stationary points of the current
     * regularizer on the plane shown (nmarks 0: none stored) */
    double (*mark)[2];
    size_t nmarks;
    /* the split landscape (tui_split): `split`'s values over the same box,
     * its colour scale, and the point it recovers from the feasible set
     * (linf: the feasible point of smallest infinity norm) */
    char split[32];
    double *z2;            /* map->nx × map->ny, NULL: no split */
    int has_split_pt;
    double split_pt[2];
} tui_snap;
void tui_snap_free(tui_snap *s);
/* The run shown is not the current regularizer's (reg changed after it):
 * its path, iterate and numbers belong to another method. */
int tui_snap_run_stale(const tui_snap *s);
/* How a finished run stopped, one line: "stopped: oracle success at iter
 * 57 (start 2)". */
void tui_stop_text(const tui_snap *s, char *buf, size_t len);

/* ---- the worker thread: it owns the interpreter while commands run ------- */

/* TUI_RESET: the job's line is ignored; the interpreter is reset
 * (cs_interp_reset), e.g. to replay a script from its start.
 * TUI_COALESCE: replaces the last line queued with this flag when it has
 * not started (keys that choose a state: only the last choice runs). */
/* TUI_NARRATE: the output is narration (tui_worker_take_say), not a message.
 * TUI_PAGE: output taller than the message area opens the pager (a line
 * the user typed or keyed; the tour's go to the messages). */
/* TUI_SCRIPT: a line of the script player; only its failures stop the script
 * (tui_worker_errors), not those of keys pressed meanwhile. */
enum { TUI_ECHO = 1, TUI_SHOW_OUTPUT = 2, TUI_RESET = 4, TUI_COALESCE = 8, TUI_NARRATE = 16,
       TUI_PAGE = 32, TUI_SCRIPT = 64 };

typedef struct tui_worker tui_worker;
typedef struct tui_progress {
    int busy;
    size_t queued;
    char line[128];        /* the command running */
    double done, total;    /* total 0: no progress reported */
    char what[64];
    double seconds;        /* since it started */
} tui_progress;

/* wake_fd: written to (one byte) whenever there is something new to show. */
int tui_worker_start(tui_worker **out, cs_interp *in, FILE *capture, int wake_fd);
void tui_worker_stop(tui_worker *w);  /* cancels, joins, frees */
void tui_worker_submit(tui_worker *w, const char *line, int flags);
void tui_worker_refresh(tui_worker *w, size_t nx, size_t ny);
void tui_worker_cancel(tui_worker *w);  /* the running command and the queue */
int tui_worker_idle(tui_worker *w);     /* nothing running, nothing queued */
tui_snap *tui_worker_take_snap(tui_worker *w);  /* newest unseen, or NULL */
void tui_worker_take_log(tui_worker *w, tui_log *into);
void tui_worker_progress(tui_worker *w, tui_progress *p);
int tui_worker_quit_requested(tui_worker *w);
/* TUI_SCRIPT commands that failed so far (the script player stops at a new one). */
size_t tui_worker_errors(tui_worker *w);
/* The capture file of stderr (fd), shown in the message area; -1: none. */
void tui_worker_set_stderr(tui_worker *w, int fd);
/* The training view's state into dst when a frame came since *seen (then
 * 1; *seen updated), else 0. */
int tui_worker_take_train(tui_worker *w, tui_train_state *dst, long *seen);
/* The histogram wanted in the frames to come: bins (0: as before), the
 * layer (NULL: as before; "" the run's first choice). */
void tui_worker_set_want(tui_worker *w, int bins, const char *layer);
/* The sweep view's state into dst when it changed since *seen (then 1;
 * *seen updated), else 0. */
int tui_worker_take_sweep(tui_worker *w, tui_sweep_state *dst, long *seen);
/* The newest narration (a TUI_NARRATE job's output) into buf when one came
 * since *seen (then 1), else 0. */
int tui_worker_take_say(tui_worker *w, char *buf, size_t len, long *seen);
/* The newest output of a TUI_PAGE job with more than `rows` lines of text:
 * its text (malloc'd, the caller frees), the line that made it and whether
 * it should wait for o (*followed: more commands were queued behind it, or
 * a script ran it), when new since *seen; else NULL. */
char *tui_worker_take_page(tui_worker *w, size_t rows, char *line, size_t len, long *seen,
                           int *followed);
/* The regularizer drawn beside the current one in the Landscape ("": none). */
void tui_worker_set_split(tui_worker *w, const char *reg);
/* A command's text output made easier to read: numbers with more than six
 * significant digits rounded to four (0.1361888139997518 -> 0.1362). */
void tui_round_numbers(const char *in, char *out, size_t len);

/* ---- drawing kit ---------------------------------------------------------- */

/* The markers drawn as glyphs over the map, each in a black cell: an
 * outline that stands out on every colour of the ramp. */
enum tui_glyph { TUI_GLYPH_XSTAR, TUI_GLYPH_START, TUI_GLYPH_ITERATE, TUI_GLYPH_END,
                 TUI_GLYPH_MARK, TUI_GLYPH_SPLIT, TUI_NGLYPHS };
enum tui_pair {
    TUI_PAIR_TITLE = 1, TUI_PAIR_FOCUS, TUI_PAIR_ERR, TUI_PAIR_CMD, TUI_PAIR_DIM, TUI_PAIR_OK,
    TUI_PAIR_BAR, TUI_PAIR_HIST, TUI_PAIR_HINT, TUI_PAIR_SPARK, TUI_PAIR_GLYPH,
    TUI_PAIR_BASE_COUNT = TUI_PAIR_GLYPH + TUI_NGLYPHS
};
/* Heat-map colours: the ramp levels and marker colours of heatmap.h. */
enum { TUI_RAMP = CS_HEAT_RAMP, TUI_NCOLORS = CS_HEAT_NCOLORS };

typedef struct tui_caps {
    int color;      /* basic colours */
    int rich;       /* 256 colours and enough pairs: the half-block heat map */
    int utf8;
} tui_caps;
extern tui_caps tui_cap;

void tui_colors_init(void);
/* The pair drawing pixel colour `top` over `bottom` (TUI_NCOLORS indices;
 * bottom -1: the terminal's background). */
short tui_pair_pixels(int top, int bottom);
void tui_panel_box(WINDOW *w, const char *title, int focused);
/* Text clipped to the window's width from (y, x). */
void tui_put(WINDOW *w, int y, int x, const char *text);
/* The same within `width` columns. */
void tui_putn(WINDOW *w, int y, int x, int width, const char *text);
void tui_putf(WINDOW *w, int y, int x, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same as tui_putn, but a text too long loses whole trailing clauses
 * (", peak 40"), else whole words: never a number cut in the middle
 * (tui_msg.c). */
void tui_putn_clauses(WINDOW *w, int y, int x, int width, const char *text);
/* Split text into at most max rows of `width` columns, breaking at spaces
 * (and at newlines): row k is text[start[k] .. start[k] + len[k]); returns
 * the number of rows. */
int tui_wrap(const char *text, int width, size_t *start, size_t *len, int max);
/* A sparkline of the ring's last `width` values (log10 when logscale). */
void tui_sparkline(WINDOW *w, int y, int x, int width, const tui_ring *r, int logscale);
/* A marker glyph at (y, x) of w in its black cell (tui_glyph_text: its
 * shape, ASCII without UTF-8; tui_glyph_colour: the colour's name, for
 * the ? help). */
void tui_glyph(WINDOW *w, int y, int x, int g);
const char *tui_glyph_text(int g);
const char *tui_glyph_colour(int g);
/* A command line shortened to `cols` columns at a word, with an ellipsis. */
void tui_shorten_words(const char *text, int cols, char *out, size_t len);
/* Block glyph for a fraction in [0, 1] of one cell's height (eighths). */
const char *tui_vbar(double frac);
/* A number, or "n/a" when it is not finite. */
void tui_num(char *buf, size_t len, double v);

/* ---- the terminal (tui_term.c) ------------------------------------------- */

int tui_term_start(void);     /* initscr and modes; sets tui_cap */
void tui_term_guard(void);    /* signal handlers and atexit restore the terminal */
void tui_term_restore(void);  /* endwin, stderr back; safe to call twice */
/* Send stderr to fd until restore (0, or -1 when it could not). */
int tui_term_capture_stderr(int fd);

/* ---- panels --------------------------------------------------------------- */

enum tui_focus { TUI_FOCUS_REGS, TUI_FOCUS_LAND, TUI_FOCUS_SOLVER, TUI_FOCUS_HIST,
                 TUI_FOCUS_CMD, TUI_FOCUS_COUNT };
/* The solver view (Regularizers, Landscape, Solver, Histogram), the
 * training view (Curves, Training, Histogram of the frames) or the sweep
 * view (Success curves, Points). Which panels each shows, and where, is
 * the layout table of tui_layout.c. */
enum tui_view { TUI_VIEW_SOLVER, TUI_VIEW_TRAIN, TUI_VIEW_SWEEP, TUI_VIEW_COUNT };
/* The panels with a window: t->win[TUI_PANEL_*] (NULL when the view has
 * none). What each draws is the panel table of tui.c. */
enum tui_panel {
    TUI_PANEL_HEAD, TUI_PANEL_STATUS, TUI_PANEL_CMD, TUI_PANEL_MSG,
    TUI_PANEL_REGS, TUI_PANEL_LAND, TUI_PANEL_SOLVER, TUI_PANEL_HIST,
    TUI_PANEL_CHART, TUI_PANEL_TRAIN, TUI_PANEL_SWEEP, TUI_PANEL_POINTS, TUI_PANEL_NARR,
    TUI_PANEL_COUNT
};
enum { TUI_MIN_COLS = 60, TUI_MIN_ROWS = 16 };   /* smaller: no panels, a note */

typedef struct tui_cmdline {
    char buf[512];
    size_t len, cur;
    char *hist[200];
    size_t nhist;
    size_t hpos;          /* nhist: the line being typed */
    char saved[512];
    char cands[256];      /* the last completion candidates, for the message area */
} tui_cmdline;

typedef struct tui_play tui_play;

/* The pager (tui_pager.c): long output over the panels, scrolled and
 * searched; lines point into text. */
typedef struct tui_pager {
    char *text;
    char **line;
    size_t n, top;
    char title[160];
    char find[64];        /* the search term ("": none) */
    int typing;           /* / pressed: the term is being typed */
    size_t hit;           /* the line of the current match (n: none) */
    int glyphs;           /* lines that begin with a marker glyph draw it in colour */
} tui_pager;

typedef struct tui {
    tui_worker *worker;
    tui_play *play;       /* the script player (--tour), NULL when none */
    /* the narration's rows at a width (tui_play_rows), set by tui.c with the
     * player: the layout asks through it instead of calling up into
     * tui_play.c, which calls the layout */
    int (*play_rows)(const struct tui *t, int width);
    int wake[2];
    tui_snap *snap;
    tui_ring robj, rerr;
    size_t ring_seen;     /* history entries already pushed into the rings */
    cs_view_box box;      /* the box as the keys left it (may lead the snapshot) */
    /* + and -: the boxes zoomed from and each zoom's factor, so that a zoom
     * back returns to the very box it came from (view x=-2:2, not
     * x=-1.99999:1.99999); emptied by any other change of the box */
    cs_view_box zoom_from[16];
    double zoom_f[16];
    int nzoom;
    int focus, prev_focus;
    int reg_sel, reg_top;
    int running;
    double next_tick;
    int demo;
    tui_cmdline cmd;
    tui_log log;
    WINDOW *win[TUI_PANEL_COUNT];  /* the view's panels (tui_layout) */
    int view;             /* enum tui_view */
    int live_view;        /* the view t returns to: TUI_VIEW_TRAIN or _SWEEP, the one
                             shown last; TUI_VIEW_SOLVER: none yet */
    tui_train_state *tv;  /* the latest run's frames (NULL before the first) */
    struct tui_folder *folder;   /* the run folder the training view follows
                                    (tui_folder.c), NULL: none */
    long tv_seen;         /* the worker's frame count when taken */
    long tv_run;          /* the run the view follows */
    int tv_told;          /* its end was reported in the messages */
    char tv_layer[16];    /* the layer the Histogram shows */
    tui_sweep_state *sv;  /* the latest sweep's counts (NULL: out of memory) */
    long sv_seen;         /* the worker's change count when taken */
    long sv_run;          /* the sweep the view follows */
    int sv_told;          /* its end was reported in the messages */
    int hist_log;         /* log counts in the Histogram */
    int rows, cols;
    size_t map_nx, map_ny;
    size_t msg_scroll;    /* message lines scrolled back from the newest */
    size_t log_seen;      /* log length when last drawn: new output scrolls to it */
    tui_pager *pager;     /* open over the panels (NULL: closed) */
    char *last_page;      /* the last long output (o opens it again), its line */
    char last_page_line[160];
    long page_seen;       /* the worker's count of long outputs taken */
    char split[32];       /* the Landscape split with this regularizer ("": one map) */
} tui;

/* ---- layout (tui_layout.c): each view's panels as a table of cuts ------- */

/* Lay the windows out for the terminal's size and the view. */
void tui_layout(tui *t);
/* A script's narration is a column at the right (a wide terminal), not rows. */
int tui_layout_narr_side(const tui *t);
/* Switch between the solver's panels and the training or sweep view. */
void tui_set_view(tui *t, int view);
void tui_layout_drop(tui *t);   /* every window gone */
/* The map's pixels for the Landscape window and the box (t->box); asks the
 * worker for a map of that size when it changed. */
void tui_map_resize(tui *t);

/* ---- keys (tui_keys.c): one table makes the keys, the hint line and ? ---- */

/* A key outside the command line: 1 to quit. */
int tui_keys_run(tui *t, int ch);
/* The hint line of a view: its keys' hints, the ways out first. */
void tui_keys_hint(int view, char *buf, size_t len);
/* ? : the keys and the map's markers in the pager, made from the key table. */
void tui_keys_help_open(tui *t);
/* Esc / Ctrl-C: cancel the running command and the queue, pause a run. */
void tui_cancel(tui *t);

/* The training view (tui_train.c): the Training panel, the status line
 * while a run goes, a new frame taken, the end of a run, the layer keys [
 * and ] (each a journaled `hist layer=NAME`). */
void tui_train_draw(tui *t, WINDOW *w);
int tui_train_status(tui *t, WINDOW *w, const char *line);
void tui_train_update(tui *t);
/* Once the command that ran it is done: the run's end in the messages. */
void tui_train_finished(tui *t);
void tui_train_cycle(tui *t, int dir);
/* The sweep view (tui_sweep.c): the Success curves (each method's success
 * rate at the grid points with its Wilson 95% interval) and the Points
 * table, the status line while the sweep runs (0: none running, the caller
 * draws its own), the head line's text, a change taken (a new sweep: the
 * view follows it), its end once the command is done. */
void tui_sweep_draw(tui *t, WINDOW *w);
void tui_points_draw(tui *t, WINDOW *w);
int tui_sweep_status(tui *t, WINDOW *w, const char *line);
void tui_sweep_head(const tui *t, char *buf, size_t len);
void tui_sweep_update(tui *t);
void tui_sweep_finished(tui *t);
/* "0:12", "1:02:03"; "--" when not finite. */
void tui_clock_text(double seconds, char *buf, size_t len);

/* A run folder in the training view (tui_folder.c: csreg watch DIR [DIR2],
 * :watch dir=DIR [vs=DIR2]): its snapshots as the frames of a run, the
 * folder followed while it grows. Open and close (a message says why
 * not: -1); a typed line that is `watch ...` (1: taken, not for the
 * worker); the poll and the view's state, when due (the milliseconds to
 * the next one, -1 without a folder); ←/→ (how -1, 1), Home (-2), End
 * (2: the newest, followed) and c (compare the two runs): 1 when taken. */
int tui_folder_open(tui *t, const char *dir, const char *vs);
void tui_folder_close(tui *t);
int tui_folder_line(tui *t, const char *line);
int tui_folder_tick(tui *t);
int tui_folder_scrub(tui *t, int how);
int tui_folder_compare(tui *t);

/* The pager (tui_pager.c): open over the panels with text (copied; title:
 * the command), close, draw (when open), its keys (1: taken; every key is
 * while it is open). */
void tui_pager_open(tui *t, const char *text, const char *title);
void tui_pager_close(tui *t);
void tui_pager_draw(tui *t, WINDOW *w);
int tui_pager_key(tui *t, int ch);

/* The Curves panel: loss, regularizer and test accuracy (tui_chart.c). */
void tui_chart_draw(tui *t, WINDOW *w);

/* The panels' draw functions: the panel table (tui.c) has drawn the box
 * and title of the boxed ones. */
void tui_regs_draw(tui *t, WINDOW *w);
/* Regularizers focused: Up/Down move, PgUp/PgDn page the list (1: taken). */
int tui_regs_key(tui *t, int ch);
/* Pixels the Landscape panel of this size wants (nx × ny); split: each of
 * its two maps side by side. */
void tui_landscape_pixels(int h, int w, double xspan, double yspan, int split, size_t *nx,
                          size_t *ny);
void tui_landscape_draw(tui *t, WINDOW *w);
/* The point of the (left) map under the screen cell (y, x): 1, or 0 when
 * the cell is off the map. */
int tui_landscape_point(const tui *t, int y, int x, double *px, double *py);
void tui_solver_draw(tui *t, WINDOW *w);
void tui_hist_draw(tui *t, WINDOW *w);
void tui_msg_draw(tui *t, WINDOW *w);

/* ---- the script player (tui_play.c) ---------------------------------------- */

int tui_play_open(tui_play **out, const char *path, char *msg, size_t len);
void tui_play_free(tui_play *p);
void tui_play_tick(tui *t);          /* send the next line when the worker is idle */
int tui_play_key(tui *t, int ch);    /* 0: not the player's key, 1: taken, 2: quit */
void tui_play_draw(tui *t, WINDOW *w);  /* the narration rows (TUI_PANEL_NARR) */
int tui_play_waiting(const tui *t);  /* stopped at a `pause` */
/* Rows the narration needs at this width: its title row and the longest
 * narration of the script wrapped (0 without a script). */
int tui_play_rows(const tui *t, int width);
/* The keys that move the tour, for the hint line ("n next  N back  q quit"). */
const char *tui_play_keys(void);

/* The command line: returns 1 when a line is ready in out, -1 when the
 * user left it (Esc), 0 otherwise. */
int tui_cmdline_key(tui_cmdline *c, int key, char *out, size_t len);
void tui_cmdline_draw(tui_cmdline *c, WINDOW *w, const char *prompt, int focused);
void tui_cmdline_free(tui_cmdline *c);

#endif
