/* tui_worker.c — the thread that runs commands. While it runs one it owns
 * the interpreter; the UI thread never touches the interpreter, it only
 * queues lines, reads snapshots (private copies of what the panels show)
 * and the captured output, and may raise the cancel flag. Each finished
 * command or progress report writes one byte to the wake pipe, so the UI
 * sleeps in poll() instead of spinning. A running sweep's threads count
 * their trials into the sweep view's state under the same lock. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui_internal.h"
#include "cs_clock.h"
#include "cs_landscape.h"
#include "cs_plotstore.h"
#include "cs_train_view.h"

typedef struct job {
    char *line;
    int flags;
} job;

struct tui_worker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    cs_interp *in;
    FILE *capture;
    int err_fd;
    off_t err_seen;
    int wake_fd;
    cs_cancel *cancel;
    job *queue;
    size_t qhead, qlen, qcap;
    int refresh;
    size_t nx, ny;
    int stop, quit;
    size_t errors;         /* TUI_SCRIPT commands that failed */
    long seq;
    tui_progress prog;
    double started;        /* cs_now() when the running command began */
    double last_wake;
    tui_snap *fresh;
    tui_log log;
    /* the trajectory, recorded after every command (the UI may skip snapshots) */
    tui_path path;
    char path_key[64];
    long path_iter;
    int path_start;
    /* the run as last seen, to say when a start ends and the run stops */
    char run_key[160];
    long run_iters;
    int run_start;
    int run_noted;         /* the end of run_start was reported */
    /* where the current start settled when N > 2 (no trajectory): fed
     * after every command */
    cs_solve_settle settle;
    /* the training view: frames of the running train/finetune */
    tui_train_state *train;
    long train_seq;
    cs_train_want want;   /* the histogram the UI shows */
    long want_run;        /* the run want.layer was chosen in */
    /* the sweep view: counts of the running sweep, updated by its threads */
    tui_sweep_state *sweep;
    long sweep_seq;       /* changes so far */
    /* the newest narration, and the newest output of a TUI_PAGE job */
    char say[2048];
    long say_seq;
    char *page, page_line[160];
    size_t page_lines;
    int page_followed;    /* commands were queued behind it */
    long page_seq;
    char split[32];       /* the Landscape's second regularizer ("": none) */
};

static void wake(tui_worker *w)
{
    char b = 1;
    ssize_t r = write(w->wake_fd, &b, 1);  /* a full pipe already wakes the UI */
    (void)r;
}

void tui_snap_free(tui_snap *s)
{
    if (!s)
        return;
    free(s->x);
    free(s->xstar);
    free(s->hobj);
    free(s->herr);
    free(s->w);
    cs_view_map_free(s->map);
    free(s->path);
    free(s->mark);
    free(s->z2);
    free(s);
}

int tui_snap_run_stale(const tui_snap *s)
{
    if (!s->have_problem || !s->method[0] || !s->next_method[0])
        return 0;
    size_t n = strcspn(s->method, ":"), m = strcspn(s->next_method, ":");
    return n != m || strncmp(s->method, s->next_method, n) != 0;
}

static double *dup_vec(const double *v, size_t n)
{
    if (!v || n == 0)
        return NULL;
    double *c = malloc(n * sizeof *c);
    if (c)
        memcpy(c, v, n * sizeof *c);
    return c;
}

/* Extend the trajectory with the iterate's coordinates on the map's axes;
 * a new problem, other axes, a reset or a new start begin a new one. */
static void record_path(tui_worker *w, const tui_snap *s)
{
    int d0 = 0, d1 = 1;
    if (s->map) {
        d0 = s->map->dims[0] - 1;
        d1 = s->map->dims[1] - 1;
    }
    char key[64];
    snprintf(key, sizeof key, "%s/%zu/%zu/%d/%d", s->kind, s->N, s->M, d0, d1);
    if (!s->have_problem || strcmp(key, w->path_key) || s->iter < w->path_iter ||
        s->start != w->path_start) {
        tui_path_clear(&w->path);
        snprintf(w->path_key, sizeof w->path_key, "%s", key);
        w->path_iter = -1;
        w->path_start = s->start;
    }
    if (s->have_problem && s->x && (size_t)d0 < s->n && (size_t)d1 < s->n &&
        s->iter != w->path_iter) {
        tui_path_push(&w->path, s->x[d0], s->x[d1]);
        w->path_iter = s->iter;
    }
}

/* How the run stopped, as one line ("stopped: oracle success at iter 57
 * (start 2)"). */
void tui_stop_text(const tui_snap *s, char *buf, size_t len)
{
    char err[48] = "";
    if (isfinite(s->final_rel_err))
        snprintf(err, sizeof err, ", rel. error %.2g", s->final_rel_err);
    if (!strcmp(s->end, "oracle"))
        snprintf(buf, len, "stopped: oracle success at iter %ld (start %d)%s", s->iter, s->start,
                 err);
    else if (!strcmp(s->end, "tolerance"))
        snprintf(buf, len, "stopped: %s tolerance at iter %ld (start %d): %s%s", s->stop,
                 s->iter, s->start, s->success ? "success" : "not x*", err);
    else
        snprintf(buf, len, "stopped: %s at iter %ld (start %d of %d): %s%s", s->end, s->iter,
                 s->start, s->max_starts, s->success ? "success" : "no start reached x*", err);
}

static void note(tui_worker *w, const char *text)
{
    pthread_mutex_lock(&w->mu);
    tui_log_add(&w->log, TUI_MSG_INFO, text);
    pthread_mutex_unlock(&w->mu);
}

/* The iteration from which the current start stays within 1e-3
 * (relative) of one point: its trajectory's (2 unknowns), else what the
 * iterates seen one by one say (cs_solve_settle; fed here after every
 * command). -1 when it still moves or is not known. At least 3 iterations
 * in one place. */
static long settled_of(tui_worker *w, const cs_solve_view *v)
{
    long since = cs_solve_settle_feed(&w->settle, v);
    if (v->traj_xy) {
        long k = v->traj_len >= 4 ? cs_solve_view_settled(v) : -1;
        return k >= 0 && (long)v->traj_len - 1 - k >= 3 ? k : -1;
    }
    return since >= 0 && v->iter - since >= 3 ? since : -1;
}

/* Messages when a start ends, a restart begins and the run stops, once
 * each (a replay by rewind or a new run starts over silently). */
static void note_run(tui_worker *w, const tui_snap *s)
{
    char key[160];
    snprintf(key, sizeof key, "%s/%zu/%zu/%s", s->kind, s->N, s->M, s->method);
    if (!s->have_problem || !s->method[0] || strcmp(key, w->run_key) || s->iters < w->run_iters) {
        snprintf(w->run_key, sizeof w->run_key, "%s", key);
        w->run_start = s->start;
        w->run_iters = s->iters;
        w->run_noted = strcmp(s->end, "running") != 0;
        return;
    }
    char line[256];
    if (s->start > w->run_start && !w->run_noted) {
        snprintf(line, sizeof line, "start %d ended without reaching x*: restart, start %d of %d",
                 w->run_start, s->start, s->max_starts);
        note(w, line);
    } else if (s->start > w->run_start) {
        snprintf(line, sizeof line, "restart: start %d of %d", s->start, s->max_starts);
        note(w, line);
    }
    if (s->start != w->run_start)
        w->run_noted = 0;
    if (strcmp(s->end, "running") && !w->run_noted) {
        if (s->done)
            tui_stop_text(s, line, sizeof line);
        else if (s->settled >= 0 && s->settled < s->iter)
            snprintf(line, sizeof line, "start %d converged at iteration %ld to a point that is "
                     "not x* (error %.2g) and ended at %ld (%s); the next step begins start %d",
                     s->start, s->settled, s->rel_err, s->iter, s->end, s->start + 1);
        else
            snprintf(line, sizeof line, "start %d ended: %s at iter %ld, not x*; the next step "
                     "begins start %d", s->start, s->end, s->iter, s->start + 1);
        note(w, line);
        w->run_noted = 1;
    }
    w->run_start = s->start;
    w->run_iters = s->iters;
}

/* The point of smallest infinity norm on the line through a and b: the
 * minimum of max(|x|, |y|) along it is where |x| = |y| or one is 0. */
static int linf_point(const double a[2], const double b[2], double out[2])
{
    double dx = b[0] - a[0], dy = b[1] - a[1], best = INFINITY;
    double cand[4] = {dx - dy != 0 ? (a[1] - a[0]) / (dx - dy) : NAN,
                      dx + dy != 0 ? -(a[0] + a[1]) / (dx + dy) : NAN,
                      dx != 0 ? -a[0] / dx : NAN, dy != 0 ? -a[1] / dy : NAN};
    for (int k = 0; k < 4; k++) {
        double x = a[0] + cand[k] * dx, y = a[1] + cand[k] * dy, m = fmax(fabs(x), fabs(y));
        if (isfinite(m) && m < best - 1e-12) {
            best = m;
            out[0] = x;
            out[1] = y;
        }
    }
    return isfinite(best);
}

/* The split's values over the map's grid (the plane only), and its point. */
static void split_build(tui_snap *s, const char *name)
{
    const cs_view_map *m = s->map;
    if (!name[0] || !m || m->cls || m->slice || !m->z)
        return;
    cs_reg *reg;
    cs_err err;
    if (cs_reg_new(&reg, name, NULL, 0, 1, &err))
        return;
    cs_landscape *l;
    cs_landscape_spec sp = {.x0 = m->x0, .x1 = m->x1, .y0 = m->y0, .y1 = m->y1, .nx = m->nx,
                            .ny = m->ny};
    if (cs_landscape_new(&l, reg, &sp, &err) == 0) {
        s->z2 = malloc(m->nx * m->ny * sizeof *s->z2);
        if (s->z2) {
            memcpy(s->z2, l->z, m->nx * m->ny * sizeof *s->z2);
            snprintf(s->split, sizeof s->split, "%s", name);
        }
        cs_landscape_free(l);
    }
    cs_reg_free(reg);
    if (s->z2 && !strcmp(name, "linf") && m->geo.constraint_n == 2)
        s->has_split_pt = linf_point((double[2]){m->geo.constraint_x[0], m->geo.constraint_y[0]},
                                     (double[2]){m->geo.constraint_x[1], m->geo.constraint_y[1]},
                                     s->split_pt);
}

/* reg analyze's spurious points, when its landscape is of the current
 * regularizer on the plane. */
static void marks_build(tui_worker *w, tui_snap *s)
{
    const cs_plot_landscape_data *d = cs_plotstore_data(w->in, "landscape");
    if (!d || !d->nmarks || !d->reg || strcmp(d->reg, s->reg) || !s->map || s->map->slice)
        return;
    s->mark = malloc(d->nmarks * sizeof *s->mark);
    if (!s->mark)
        return;
    for (size_t k = 0; k < d->nmarks; k++) {
        s->mark[k][0] = d->mark_x[k];
        s->mark[k][1] = d->mark_y[k];
    }
    s->nmarks = d->nmarks;
}

/* Copy what the panels show out of the interpreter (worker thread only). */
static tui_snap *snap_build(tui_worker *w, long seq, size_t nx, size_t ny, const char *split)
{
    tui_snap *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->seq = seq;
    snprintf(s->reg, sizeof s->reg, "%s", cs_view_reg_name(w->in));
    cs_interp_prompt(w->in, s->prompt, sizeof s->prompt);
    cs_view_get(w->in, &s->box);
    cs_solve_view v;
    int have_view = cs_interp_solve_view(w->in, &v) == 0;
    /* the network's weights, when it changed after the problem or run did */
    cs_train_view tv;
    if (cs_interp_train_view(w->in, &tv) == 0 && tv.w && tv.n &&
        (!have_view || tv.seq > v.seq)) {
        s->w = malloc(tv.n * sizeof *s->w);
        if (s->w) {
            for (size_t i = 0; i < tv.n; i++)
                s->w[i] = tv.w[i];
            s->nw = tv.n;
            s->show_weights = 1;
            snprintf(s->wlayer, sizeof s->wlayer, "%s", tv.layer ? tv.layer : "?");
            snprintf(s->wmodel, sizeof s->wmodel, "%s", tv.model ? tv.model : "");
            s->wrow = tv.row;
            s->wepoch = tv.epoch;
            s->wsnapshots = tv.snapshots;
        }
    }
    if (have_view) {
        s->have_problem = 1;
        snprintf(s->kind, sizeof s->kind, "%s", v.kind ? v.kind : "?");
        s->N = v.N;
        s->M = v.M;
        s->K = v.K;
        s->scale = v.scale;
        s->noise = v.noise;
        s->lambda = v.lambda;
        s->fit_ls = v.fit_ls;
        s->n = v.n;
        s->x = dup_vec(v.x, v.n);
        s->xstar = dup_vec(v.xstar, v.n);
        s->iter = v.iter;
        s->start = v.start;
        s->max_starts = v.max_starts;
        snprintf(s->method, sizeof s->method, "%s", v.method ? v.method : "");
        snprintf(s->next_method, sizeof s->next_method, "%s", v.next_method ? v.next_method : "");
        snprintf(s->end, sizeof s->end, "%s", v.end ? v.end : "");
        snprintf(s->stop, sizeof s->stop, "%s", v.stop ? v.stop : "");
        s->iters = v.iters;
        s->final_rel_err = v.final_rel_err;
        s->nledger = v.nledger;
        for (size_t k = 0; k < v.nledger && k < sizeof s->ledger / sizeof *s->ledger; k++)
            s->ledger[k] = v.ledger[k];
        s->objective = v.objective;
        s->residual = v.residual;
        s->tau = v.tau;
        s->rel_err = v.rel_err;
        s->backtracks = v.backtracks;
        s->success = v.success;
        s->done = v.done;
        s->hist_len = v.hist_len;
        s->hist_from = v.hist_len > TUI_RING_CAP ? v.hist_len - TUI_RING_CAP : 0;
        size_t tail = v.hist_len - s->hist_from;
        if (tail && v.hist_objective && v.hist_rel_err) {
            s->hobj = dup_vec(v.hist_objective + s->hist_from, tail);
            s->herr = dup_vec(v.hist_rel_err + s->hist_from, tail);
        }
        if (!s->hobj || !s->herr) {  /* no history (or no memory): no sparkline */
            free(s->hobj);
            free(s->herr);
            s->hobj = s->herr = NULL;
            s->hist_len = s->hist_from = 0;
        }
        if (v.x && !s->x)
            s->n = 0;
        long settled = settled_of(w, &v);
        s->settled = strcmp(s->end, "running") && strcmp(s->end, "maxit") ? -1 : settled;
    } else {
        s->settled = -1;
        w->settle.last = -1;   /* no problem: the next run starts the count */
    }
    if (nx >= 3 && ny >= 3) {
        cs_err err;
        if (cs_view_map_new(w->in, nx, ny, &s->map, &err))
            snprintf(s->map_err, sizeof s->map_err, "%s", err.msg);
    }
    split_build(s, split);
    marks_build(w, s);
    record_path(w, s);
    note_run(w, s);
    s->path = malloc(sizeof *s->path);
    if (s->path)
        *s->path = w->path;
    return s;
}

/* New bytes of a capture file since `*seen`, into the log. */
static void drain_fd(tui_worker *w, int fd, off_t *seen, int kind)
{
    if (fd < 0)
        return;
    char buf[4096];
    size_t cap = 0, len = 0;
    char *all = NULL;
    ssize_t got;
    while ((got = pread(fd, buf, sizeof buf, *seen)) > 0) {
        *seen += got;
        if (len + (size_t)got + 1 > cap) {
            size_t ncap = 2 * (len + (size_t)got + 1);
            char *n = realloc(all, ncap);
            if (!n)
                break;
            all = n;
            cap = ncap;
        }
        memcpy(all + len, buf, (size_t)got);
        len += (size_t)got;
        all[len] = '\0';
        if (len > (1u << 20))  /* a megabyte is plenty for a message area */
            break;
    }
    if (all && len) {
        char *shown = kind == TUI_MSG_OUT ? malloc(2 * len + 1) : NULL;
        if (shown)
            tui_round_numbers(all, shown, 2 * len + 1);
        pthread_mutex_lock(&w->mu);
        tui_log_add(&w->log, kind, shown ? shown : all);
        pthread_mutex_unlock(&w->mu);
        free(shown);
    }
    free(all);
}

/* What the command printed to the capture file; then empty it. */
static void drain_capture(tui_worker *w, int show)
{
    fflush(w->capture);
    if (show) {
        off_t seen = 0;
        drain_fd(w, fileno(w->capture), &seen, TUI_MSG_OUT);
    }
    rewind(w->capture);
    if (ftruncate(fileno(w->capture), 0) != 0)
        clearerr(w->capture);
}

static void on_progress(void *ctx, double done, double total, const char *what)
{
    tui_worker *w = ctx;
    pthread_mutex_lock(&w->mu);
    w->prog.done = done;
    w->prog.total = total;
    snprintf(w->prog.what, sizeof w->prog.what, "%s", what ? what : "");
    double t = cs_now();
    int send = t - w->last_wake > 0.05;
    if (send)
        w->last_wake = t;
    pthread_mutex_unlock(&w->mu);
    if (send)
        wake(w);
}

/* A frame of a running train/finetune (the worker thread, between steps):
 * copied with its curves for the UI, which is woken. */
static void on_watch(void *ctx, const cs_train_frame *f, cs_train_want *want)
{
    tui_worker *w = ctx;
    pthread_mutex_lock(&w->mu);
    if (!w->train)
        w->train = calloc(1, sizeof *w->train);
    if (w->train) {
        tui_train_state_add(w->train, f);
        w->train_seq++;
    }
    if (w->want.bins > 0)
        want->bins = w->want.bins;
    if (f->run != w->want_run) {   /* a new run: its own choice first */
        w->want_run = f->run;
        w->want.layer[0] = '\0';
    }
    memcpy(want->layer, w->want.layer, sizeof want->layer);
    pthread_mutex_unlock(&w->mu);
    wake(w);
}

int tui_worker_take_train(tui_worker *w, tui_train_state *dst, long *seen)
{
    pthread_mutex_lock(&w->mu);
    int fresh = w->train && w->train_seq != *seen;
    if (fresh) {
        *dst = *w->train;
        *seen = w->train_seq;
    }
    pthread_mutex_unlock(&w->mu);
    return fresh;
}

/* A sweep starts (the worker thread, in the command): the view's grid. */
static void on_sweep_start(void *ctx, const cs_sweep_live *l)
{
    tui_worker *w = ctx;
    pthread_mutex_lock(&w->mu);
    if (!w->sweep)
        w->sweep = calloc(1, sizeof *w->sweep);
    if (w->sweep) {
        if (tui_sweep_state_start(w->sweep, l) != 0)
            w->sweep->run = 0;   /* out of memory: no view */
        w->sweep_seq++;
    }
    pthread_mutex_unlock(&w->mu);
    wake(w);
}

/* A trial ended (the sweep's threads, several at once): one lock, the
 * counts, a wake at most 20 times a second (the UI redraws on its tick). */
static void on_sweep_trial(void *ctx, size_t point, const unsigned char *success, int preloaded)
{
    tui_worker *w = ctx;
    pthread_mutex_lock(&w->mu);
    int send = 0;
    if (w->sweep && w->sweep->run) {
        tui_sweep_state_trial(w->sweep, point, success, preloaded);
        w->sweep_seq++;
        double t = cs_now();
        send = t - w->last_wake > 0.05;
        if (send)
            w->last_wake = t;
    }
    pthread_mutex_unlock(&w->mu);
    if (send)
        wake(w);
}

static void on_sweep_end(void *ctx, int how)
{
    tui_worker *w = ctx;
    pthread_mutex_lock(&w->mu);
    if (w->sweep && w->sweep->run) {
        w->sweep->end = how;
        w->sweep->ended = cs_now();
        w->sweep_seq++;
    }
    pthread_mutex_unlock(&w->mu);
    wake(w);
}

int tui_worker_take_sweep(tui_worker *w, tui_sweep_state *dst, long *seen)
{
    pthread_mutex_lock(&w->mu);
    int fresh = w->sweep && w->sweep_seq != *seen && tui_sweep_state_copy(dst, w->sweep) == 0;
    if (fresh)
        *seen = w->sweep_seq;
    pthread_mutex_unlock(&w->mu);
    return fresh;
}

void tui_worker_set_want(tui_worker *w, int bins, const char *layer)
{
    pthread_mutex_lock(&w->mu);
    if (bins > 0)
        w->want.bins = bins;
    if (layer)
        snprintf(w->want.layer, sizeof w->want.layer, "%s", layer);
    pthread_mutex_unlock(&w->mu);
}

/* The job's output kept whole: a narration, or a page for the pager. */
static void keep_output(tui_worker *w, const job *j)
{
    fflush(w->capture);
    off_t end = ftello(w->capture);
    if (end <= 0)
        return;
    size_t n = (size_t)end < (1u << 20) ? (size_t)end : (1u << 20);
    char *text = malloc(n + 1);
    if (!text)
        return;
    ssize_t got = pread(fileno(w->capture), text, n, 0);
    text[got > 0 ? got : 0] = '\0';
    pthread_mutex_lock(&w->mu);
    if (j->flags & TUI_NARRATE) {
        size_t len = strlen(text);
        while (len && text[len - 1] == '\n')
            text[--len] = '\0';
        snprintf(w->say, sizeof w->say, "%s", text);
        w->say_seq++;
        free(text);
    } else {
        /* the lines of text, not of `key: value` fields (a solve's
         * fields read well in the messages; a table or help does not) */
        size_t lines = 0;
        for (const char *c = text; *c; c = strchr(c, '\n') ? strchr(c, '\n') + 1 : "") {
            size_t word = strspn(c, "abcdefghijklmnopqrstuvwxyz_0123456789");
            lines += !(word && c[word] == ':' && c[word + 1] == ' ');
        }
        free(w->page);
        w->page = text;
        w->page_lines = lines;
        snprintf(w->page_line, sizeof w->page_line, "%s", j->line);
        /* the pager waits for o after a script's line or when more is queued */
        w->page_followed = w->qlen > 0 || (j->flags & TUI_SCRIPT);
        w->page_seq++;
    }
    pthread_mutex_unlock(&w->mu);
}

static void run_job(tui_worker *w, const job *j)
{
    cs_err err;
    int col = 0;
    if (j->flags & TUI_ECHO) {
        pthread_mutex_lock(&w->mu);
        char echo[600];
        snprintf(echo, sizeof echo, "> %s", j->line);
        tui_log_add(&w->log, TUI_MSG_CMD, echo);
        pthread_mutex_unlock(&w->mu);
    }
    int rc = (j->flags & TUI_RESET) ? cs_interp_reset(w->in, &err)
                                    : cs_interp_exec(w->in, j->line, &col, &err);
    if (j->flags & (TUI_NARRATE | TUI_PAGE))
        keep_output(w, j);
    drain_capture(w, (j->flags & TUI_SHOW_OUTPUT) != 0);
    drain_fd(w, w->err_fd, &w->err_seen, TUI_MSG_ERR);
    pthread_mutex_lock(&w->mu);
    if (rc < 0) {
        w->errors += (j->flags & TUI_SCRIPT) != 0;
        char msg[CS_ERR_MAX + 700];
        if (col > 0)
            snprintf(msg, sizeof msg, "error: %s (in '%s', column %d)", err.msg, j->line, col);
        else
            snprintf(msg, sizeof msg, "error: %s (in '%s')", err.msg, j->line);
        tui_log_add(&w->log, TUI_MSG_ERR, msg);
        if (rc == CS_ECANCEL)  /* a cancelled command drops what was queued behind it */
            for (; w->qlen; w->qlen--, w->qhead = (w->qhead + 1) % w->qcap)
                free(w->queue[w->qhead].line);
    }
    if (rc == 1)
        w->quit = 1;
    pthread_mutex_unlock(&w->mu);
}

static void *worker_main(void *arg)
{
    tui_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->stop && w->qlen == 0 && !w->refresh)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->stop)
            break;
        job j = {0};
        if (w->qlen) {
            j = w->queue[w->qhead];
            w->qhead = (w->qhead + 1) % w->qcap;
            w->qlen--;
            w->prog.busy = 1;
            w->prog.done = w->prog.total = 0;
            w->prog.what[0] = '\0';
            snprintf(w->prog.line, sizeof w->prog.line, "%s", j.line);
            w->started = cs_now();
            pthread_mutex_unlock(&w->mu);
            wake(w);
            run_job(w, &j);
            free(j.line);
            pthread_mutex_lock(&w->mu);
            w->seq++;
        }
        w->refresh = 0;
        int quit = w->quit;
        long seq = w->seq;
        size_t nx = w->nx, ny = w->ny;
        char split[32];
        snprintf(split, sizeof split, "%s", w->split);
        pthread_mutex_unlock(&w->mu);
        tui_snap *s = quit ? NULL : snap_build(w, seq, nx, ny, split);
        pthread_mutex_lock(&w->mu);
        if (s) {
            tui_snap_free(w->fresh);
            w->fresh = s;
        }
        w->prog.busy = 0;
        pthread_mutex_unlock(&w->mu);
        wake(w);
        pthread_mutex_lock(&w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int tui_worker_start(tui_worker **out, cs_interp *in, FILE *capture, int wake_fd)
{
    tui_worker *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    w->in = in;
    w->capture = capture;
    w->wake_fd = wake_fd;
    w->err_fd = -1;
    w->path_iter = -1;
    w->settle.last = -1;
    w->cancel = cs_interp_cancel_flag(in);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    cs_interp_set_progress(in, on_progress, w);
    cs_interp_set_watch(in, on_watch, w, 1);
    cs_interp_set_sweep_watch(in, &(cs_sweep_watch){.start = on_sweep_start,
                                                    .trial = on_sweep_trial,
                                                    .end = on_sweep_end, .ctx = w});
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
        cs_interp_set_progress(in, NULL, NULL);
        cs_interp_set_watch(in, NULL, NULL, 0);
        cs_interp_set_sweep_watch(in, NULL);
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return -1;
    }
    *out = w;
    return 0;
}

void tui_worker_set_stderr(tui_worker *w, int fd)
{
    pthread_mutex_lock(&w->mu);
    w->err_fd = fd;
    w->err_seen = fd >= 0 ? lseek(fd, 0, SEEK_END) : 0;
    pthread_mutex_unlock(&w->mu);
}

void tui_worker_stop(tui_worker *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    atomic_store(w->cancel, 1);
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    cs_interp_set_progress(w->in, NULL, NULL);
    cs_interp_set_watch(w->in, NULL, NULL, 0);
    cs_interp_set_sweep_watch(w->in, NULL);
    for (; w->qlen; w->qlen--, w->qhead = (w->qhead + 1) % w->qcap)
        free(w->queue[w->qhead].line);
    free(w->queue);
    free(w->train);
    if (w->sweep)
        tui_sweep_state_free(w->sweep);
    free(w->sweep);
    tui_snap_free(w->fresh);
    free(w->page);
    tui_log_free(&w->log);
    cs_solve_settle_free(&w->settle);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

void tui_worker_submit(tui_worker *w, const char *line, int flags)
{
    char *copy = strdup(line);
    if (!copy)
        return;
    pthread_mutex_lock(&w->mu);
    if ((flags & TUI_COALESCE) && w->qlen) {
        job *last = &w->queue[(w->qhead + w->qlen - 1) % w->qcap];
        if (last->flags & TUI_COALESCE) {
            free(last->line);
            *last = (job){copy, flags};
            pthread_mutex_unlock(&w->mu);
            return;
        }
    }
    if (w->qlen == w->qcap) {
        size_t cap = w->qcap ? 2 * w->qcap : 16;
        job *q = malloc(cap * sizeof *q);
        if (!q) {
            pthread_mutex_unlock(&w->mu);
            free(copy);
            return;
        }
        for (size_t i = 0; i < w->qlen; i++)
            q[i] = w->queue[(w->qhead + i) % w->qcap];
        free(w->queue);
        w->queue = q;
        w->qhead = 0;
        w->qcap = cap;
    }
    w->queue[(w->qhead + w->qlen) % w->qcap] = (job){copy, flags};
    w->qlen++;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void tui_worker_refresh(tui_worker *w, size_t nx, size_t ny)
{
    pthread_mutex_lock(&w->mu);
    w->nx = nx;
    w->ny = ny;
    w->refresh = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void tui_worker_cancel(tui_worker *w)
{
    pthread_mutex_lock(&w->mu);
    for (; w->qlen; w->qlen--, w->qhead = (w->qhead + 1) % w->qcap)
        free(w->queue[w->qhead].line);
    if (w->prog.busy)
        atomic_store(w->cancel, 1);
    pthread_mutex_unlock(&w->mu);
}

int tui_worker_idle(tui_worker *w)
{
    pthread_mutex_lock(&w->mu);
    int idle = !w->prog.busy && w->qlen == 0 && !w->refresh;
    pthread_mutex_unlock(&w->mu);
    return idle;
}

tui_snap *tui_worker_take_snap(tui_worker *w)
{
    pthread_mutex_lock(&w->mu);
    tui_snap *s = w->fresh;
    w->fresh = NULL;
    pthread_mutex_unlock(&w->mu);
    return s;
}

void tui_worker_take_log(tui_worker *w, tui_log *into)
{
    pthread_mutex_lock(&w->mu);
    for (size_t i = 0; i < w->log.len; i++) {
        int kind;
        const char *line = tui_log_at(&w->log, i, &kind);
        tui_log_add(into, kind, line[0] ? line : " ");
    }
    tui_log_free(&w->log);
    pthread_mutex_unlock(&w->mu);
}

void tui_worker_progress(tui_worker *w, tui_progress *p)
{
    pthread_mutex_lock(&w->mu);
    *p = w->prog;
    p->queued = w->qlen;
    if (p->busy)
        p->seconds = cs_now() - w->started;
    pthread_mutex_unlock(&w->mu);
}

int tui_worker_take_say(tui_worker *w, char *buf, size_t len, long *seen)
{
    pthread_mutex_lock(&w->mu);
    int fresh = w->say_seq != *seen;
    if (fresh) {
        snprintf(buf, len, "%s", w->say);
        *seen = w->say_seq;
    }
    pthread_mutex_unlock(&w->mu);
    return fresh;
}

char *tui_worker_take_page(tui_worker *w, size_t rows, char *line, size_t len, long *seen,
                           int *followed)
{
    char *text = NULL;
    pthread_mutex_lock(&w->mu);
    if (w->page_seq != *seen) {
        *seen = w->page_seq;
        if (w->page && w->page_lines > rows) {
            text = strdup(w->page);
            snprintf(line, len, "%s", w->page_line);
            *followed = w->page_followed;
        }
    }
    pthread_mutex_unlock(&w->mu);
    return text;
}

void tui_worker_set_split(tui_worker *w, const char *reg)
{
    pthread_mutex_lock(&w->mu);
    if (strcmp(w->split, reg)) {
        snprintf(w->split, sizeof w->split, "%s", reg);
        w->refresh = 1;   /* a snapshot with (or without) the second map */
        pthread_cond_signal(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
}

size_t tui_worker_errors(tui_worker *w)
{
    pthread_mutex_lock(&w->mu);
    size_t n = w->errors;
    pthread_mutex_unlock(&w->mu);
    return n;
}

int tui_worker_quit_requested(tui_worker *w)
{
    pthread_mutex_lock(&w->mu);
    int q = w->quit;
    pthread_mutex_unlock(&w->mu);
    return q;
}
