/* tui_folder.c — a run folder (docs/runfolder.md) in the training view:
 * `csreg watch DIR [DIR2]`, or `:watch dir=DIR [vs=DIR2]` typed in the
 * workbench. The UI thread polls the folder every POLL_S seconds (a few
 * stat calls; the loop sleeps in poll() in between, so an idle view costs
 * nothing) and, when something changed, makes the training view's state
 * (tui_train_state) out of the snapshot shown, as if a run of this session
 * had sent it: the Curves from metrics.jsonl, the Training panel's
 * readiness rows, the Histogram of the chosen layer (cs_run_watch.h: the
 * exact counts, the levels). ←/→, Home and End go through the snapshots
 * (End: the newest, followed as the folder grows); c puts the second
 * run's histogram of the same layer beside it, on the same range. A run of
 * this session that starts takes the view back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_clock.h"
#include "cs_cmdline.h"
#include "cs_run_watch.h"
#include "tui_internal.h"

#define POLL_S 0.25               /* the folder is looked at 4 times a second */
#define RUN_BASE 1000000000L      /* the frames' run numbers: never a session's run */

typedef struct folder_run {
    cs_run_folder *rf;
    cs_run_watch *w;
    char tag[24];                 /* the folder's last component */
    char error[CS_ERR_MAX];       /* the last poll's error, said once */
    int done;                     /* run.json said the run ended (told) */
} folder_run;

typedef struct tui_folder {
    folder_run run[2];
    int nruns;
    size_t cur;                   /* the good snapshot of run 0 shown */
    int follow;                   /* cur is the newest and stays so */
    int compare;
    int dirty;                    /* the view's state is to be made again */
    double next_poll;
    long run_no;
    size_t pushed;                /* points of run 0 in the curves */
    unsigned generation;
    int bins;                     /* of the histograms made last */
    char layer[16];               /* and their layer */
    size_t nlayers;               /* in the last frame (the layout depends on it) */
} tui_folder;

static long runs_opened;

/* ------------------------------------------------------------------ runs */

static void tag_of(const char *dir, char *out, size_t len)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && dir[b - 1] != '/')
        b--;
    snprintf(out, len, "%.*s", (int)(n - b), dir + b);
}

static void free_run(folder_run *r)
{
    cs_run_watch_free(r->w);
    cs_run_folder_free(r->rf);
    memset(r, 0, sizeof *r);
}

static int open_run(tui *t, folder_run *r, const char *dir)
{
    cs_err err;
    if (cs_run_folder_open(&r->rf, dir, &err) || cs_run_watch_new(&r->w, r->rf, &err)) {
        char msg[700];
        snprintf(msg, sizeof msg, "watch: %s", err.msg);
        tui_log_add(&t->log, TUI_MSG_ERR, msg);
        free_run(r);
        return -1;
    }
    tag_of(dir, r->tag, sizeof r->tag);
    return 0;
}

/* Take what the folders have; say what was skipped. */
static void poll_runs(tui *t, tui_folder *F)
{
    for (int i = 0; i < F->nruns; i++) {
        folder_run *r = &F->run[i];
        cs_err err;
        char msg[700];
        int rc = cs_run_watch_update(r->w, &err);
        if (rc < 0 && strcmp(err.msg, r->error)) {
            snprintf(r->error, sizeof r->error, "%s", err.msg);
            snprintf(msg, sizeof msg, "watch: %s", err.msg);
            tui_log_add(&t->log, TUI_MSG_ERR, msg);
        } else if (rc >= 0) {
            r->error[0] = '\0';
        }
        F->dirty |= rc > 0;
        char m[512];
        while (cs_run_watch_message(r->w, m, sizeof m)) {
            snprintf(msg, sizeof msg, "watch %s: %s", r->tag, m);
            tui_log_add(&t->log, TUI_MSG_ERR, msg);
        }
        const cs_run_info *info = cs_run_folder_info(r->rf);
        if (info->done && !r->done) {
            snprintf(msg, sizeof msg, "watch %s: the run ended (%zu snapshots)", r->tag,
                     cs_run_watch_count(r->w));
            tui_log_add(&t->log, TUI_MSG_INFO, msg);
            F->dirty = 1;
        }
        r->done = info->done;
    }
    unsigned g = cs_run_folder_generation(F->run[0].rf);
    if (g != F->generation) {   /* a new run in the folder: new curves */
        F->generation = g;
        F->pushed = 0;
        F->cur = 0;
        F->follow = 1;
        tui_series_clear(&t->tv->loss);
        tui_series_clear(&t->tv->reg);
        tui_series_clear(&t->tv->acc);
        F->dirty = 1;
    }
}

/* ------------------------------------------------------------------ the view's state */

static double metric(const cs_run_folder *rf, const cs_run_point *p, const char *name)
{
    int k = cs_run_folder_metric_find(rf, name);
    return k >= 0 ? p->val[k] : NAN;
}

/* A number as of point i: its own, else the latest line before it that has
 * one (a snapshot's line may carry none, e.g. the final weights'). */
static double metric_at(const cs_run_folder *rf, size_t i, const char *name)
{
    int k = cs_run_folder_metric_find(rf, name);
    for (size_t j = i + 1; k >= 0 && j-- > 0 && i - j < 1000;) {
        double v = cs_run_folder_point(rf, j)->val[k];
        if (!isnan(v))
            return v;
    }
    return NAN;
}

/* The test accuracy's name among the folder's metrics, NULL when none. */
static const char *acc_metric(const cs_run_folder *rf)
{
    static const char *const names[] = {"test_acc", "val_acc", "acc", "accuracy"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (cs_run_folder_metric_find(rf, names[i]) >= 0)
            return names[i];
    return NULL;
}

/* The curves: the points not pushed yet (x: the step). */
static void push_points(tui_train_state *s, tui_folder *F)
{
    const cs_run_folder *rf = F->run[0].rf;
    const char *acc = acc_metric(rf);
    size_t n = cs_run_folder_point_count(rf);
    for (; F->pushed < n; F->pushed++) {
        const cs_run_point *p = cs_run_folder_point(rf, F->pushed);
        tui_series_push(&s->loss, p->step, metric(rf, p, "loss"));
        tui_series_push(&s->reg, p->step, metric(rf, p, "reg"));
        if (acc)
            tui_series_push(&s->acc, p->step, metric(rf, p, acc));
    }
}

/* The histogram bins that fit the Histogram panel (half of it when two
 * runs share it). */
static int panel_bins(const tui *t, int compare)
{
    WINDOW *w = t->win[TUI_PANEL_HIST];
    int width = w ? getmaxx(w) : 40;
    int bins = compare ? width / 2 - 2 : width - 2;
    return bins < 1 ? 1 : bins > CS_NN_WATCH_BINS ? CS_NN_WATCH_BINS : bins;
}

/* Layer j of run r by the full name of layer `name_of` of run 0; -1. */
static long same_layer(const folder_run *r, const folder_run *a, size_t name_of)
{
    const char *name = cs_run_folder_layer(a->rf, name_of)->name;
    for (size_t j = 0; j < cs_run_folder_layer_count(r->rf); j++)
        if (!strcmp(cs_run_folder_layer(r->rf, j)->name, name))
            return (long)j;
    return -1;
}

static void say_error(tui *t, const cs_err *err)
{
    char msg[700];
    snprintf(msg, sizeof msg, "watch: %s", err->msg);
    tui_log_add(&t->log, TUI_MSG_ERR, msg);
}

/* The shown layer's histogram (and the second run's beside it), into s;
 * the second line of the Training panel says what was compared. */
static void make_histograms(tui *t, tui_folder *F, size_t k, char *note, size_t len)
{
    tui_train_state *s = t->tv;
    folder_run *A = &F->run[0], *B = &F->run[1];
    int cmp = F->compare && F->nruns == 2;
    int bins = panel_bins(t, cmp);
    cs_err err;
    double lo = 0, hi = 0;
    const cs_run_snap *sa = cs_run_watch_snap(A->w, F->cur);
    size_t kb = 0;
    long jb = cmp ? same_layer(B, A, k) : -1;
    cs_nn_watch_layer la, lb;
    s->cmp.bins = 0;
    if (cmp && jb < 0)
        snprintf(note, len, "%.23s has no layer %.100s", B->tag,
                 cs_run_folder_layer(A->rf, k)->name);
    else if (cmp && cs_run_watch_count(B->w) == 0)
        snprintf(note, len, "%s: no snapshot yet", B->tag);
    if (cmp && jb >= 0 && cs_run_watch_count(B->w)) {   /* one range for both */
        kb = cs_run_watch_at_step(B->w, sa->step);
        if (!cs_run_watch_layer(A->w, F->cur, k, &la, &err) &&
            !cs_run_watch_layer(B->w, kb, (size_t)jb, &lb, &err)) {
            lo = fmin(la.lo, lb.lo);
            hi = fmax(la.hi, lb.hi);
        }
    }
    int rc = cs_run_watch_hist(A->w, F->cur, k, bins, lo, hi, &s->hist[k], &err);
    if (rc) {
        s->hist[k].bins = 0;
        if (rc != CS_ENOTFOUND)
            say_error(t, &err);
    }
    s->hist_step[k] = (size_t)sa->step;
    if (!(hi > lo))
        return;
    if (cs_run_watch_hist(B->w, kb, (size_t)jb, bins, lo, hi, &s->cmp, &err)) {
        s->cmp.bins = 0;
        if (err.code != CS_ENOTFOUND)
            say_error(t, &err);
        snprintf(note, len, "%s has no %s at step %.0f", B->tag, s->cmp.name,
                 cs_run_watch_snap(B->w, kb)->step);
        return;
    }
    s->cmp_step = (size_t)cs_run_watch_snap(B->w, kb)->step;
    char fl[32] = "n/a";
    if (isfinite(s->cmp.flips))
        snprintf(fl, sizeof fl, "%.3f%%", 100 * s->cmp.flips);
    snprintf(note, len, "%s step %zu: near %.2f%%  %s %.4g  flips %s", B->tag, s->cmp_step,
             100 * s->cmp.near, tui_cap.utf8 ? "α" : "alpha", s->cmp.alpha_mean, fl);
}

/* The frame of the snapshot shown (its layers' numbers), the layer shown. */
static void make_frame(tui *t, tui_folder *F)
{
    tui_train_state *s = t->tv;
    cs_train_frame *f = &s->f;
    folder_run *A = &F->run[0];
    const cs_run_folder *rf = A->rf;
    const cs_run_info *info = cs_run_folder_info(rf);
    size_t n = cs_run_watch_count(A->w);
    if (F->follow || F->cur >= n)
        F->cur = n ? n - 1 : 0;
    memset(f, 0, sizeof *f);
    snprintf(f->what, sizeof f->what, "watch");
    f->run = F->run_no;
    snprintf(f->model, sizeof f->model, "%.*s", (int)sizeof f->model - 1,
             info->name[0] ? info->name : A->tag);
    snprintf(f->device, sizeof f->device, "%.*s", (int)sizeof f->device - 1,
             info->device[0] ? info->device : "-");
    snprintf(f->reg, sizeof f->reg, "%.*s", (int)sizeof f->reg - 1, info->reg);
    f->lambda = isfinite(info->lambda) ? info->lambda : 0;
    f->eta = f->images_per_s = f->loss = f->reg_value = f->lr = f->test_acc = NAN;
    f->watch_share = NAN;
    f->snapshots = n;
    f->snapshot = n ? F->cur + 1 : 0;
    size_t np = cs_run_folder_point_count(rf);
    double last = np ? cs_run_folder_point(rf, np - 1)->step : 0;
    f->run_steps = (size_t)fmax(isfinite(info->steps) ? info->steps : 0, last);
    f->epochs = isfinite(info->epochs) ? (int)info->epochs : 0;
    f->final = info->done && (n == 0 || F->cur + 1 == n);
    push_points(s, F);
    const cs_run_snap *sn = n ? cs_run_watch_snap(A->w, F->cur) : NULL;
    if (!sn) {
        snprintf(f->note[0], sizeof f->note[0], "no snapshot in %s yet", A->tag);
        snprintf(f->note[1], sizeof f->note[1], "%s", "(a writer appends them to metrics.jsonl)");
        return;
    }
    f->step = f->run_step = (size_t)sn->step;
    f->epoch = isfinite(sn->epoch) ? (int)ceil(sn->epoch) : 0;
    f->loss = metric_at(rf, sn->point, "loss");
    f->reg_value = metric_at(rf, sn->point, "reg");
    f->lr = metric_at(rf, sn->point, "lr");
    const char *acc = acc_metric(rf);
    f->test_acc = acc ? metric_at(rf, sn->point, acc) : NAN;
    size_t nl = cs_run_folder_layer_count(rf);
    f->nlayers = nl < CS_NN_WATCH_LAYERS ? nl : CS_NN_WATCH_LAYERS;
    f->sel = -1;
    for (size_t j = 0; j < f->nlayers; j++) {
        cs_err err;
        cs_run_watch_layer(A->w, F->cur, j, &f->layer[j], &err);
        if (f->sel < 0 && f->layer[j].regularized)
            f->sel = (int)j;
    }
    f->sel = f->sel < 0 ? 0 : f->sel;
    f->shown = f->sel;
    for (size_t j = 0; j < f->nlayers; j++)
        if (!strcmp(f->layer[j].name, t->tv_layer))
            f->shown = (int)j;
    snprintf(t->tv_layer, sizeof t->tv_layer, "%s", f->layer[f->shown].name);
    char line[160] = "", part[64];
    if (isfinite(f->loss))
        snprintf(line, sizeof line, "loss %.4f", f->loss);
    if (isfinite(f->reg_value)) {
        snprintf(part, sizeof part, "%sreg %.4g", line[0] ? "  " : "", f->reg_value);
        strncat(line, part, sizeof line - strlen(line) - 1);
    }
    if (isfinite(sn->epoch)) {
        snprintf(part, sizeof part, "%sepoch %.2f", line[0] ? "  " : "", sn->epoch);
        strncat(line, part, sizeof line - strlen(line) - 1);
    }
    snprintf(f->note[0], sizeof f->note[0], "%s", line[0] ? line : "(no numbers at this step)");
    snprintf(f->note[1], sizeof f->note[1], "%s",
             F->follow ? "<- -> Home End: snapshots (End follows)" : "End: back to the newest");
    make_histograms(t, F, (size_t)f->shown, f->note[1], sizeof f->note[1]);
    if (nl > CS_NN_WATCH_LAYERS)
        snprintf(f->note[1], sizeof f->note[1], "the first %d of %zu layers shown",
                 CS_NN_WATCH_LAYERS, nl);
}

/* ------------------------------------------------------------------ the interface */

int tui_folder_open(tui *t, const char *dir, const char *vs)
{
    if (!t->tv) {
        tui_log_add(&t->log, TUI_MSG_ERR, "watch: out of memory for the training view");
        return -1;
    }
    tui_folder *F = calloc(1, sizeof *F);
    if (!F) {
        tui_log_add(&t->log, TUI_MSG_ERR, "watch: out of memory");
        return -1;
    }
    if (open_run(t, &F->run[0], dir) || (vs && open_run(t, &F->run[1], vs))) {
        free_run(&F->run[0]);
        free(F);
        return -1;
    }
    tui_folder_close(t);   /* the one followed until now, if any */
    F->nruns = vs ? 2 : 1;
    F->follow = 1;
    F->dirty = 1;
    F->run_no = RUN_BASE + ++runs_opened;
    t->folder = F;
    memset(t->tv, 0, sizeof *t->tv);
    snprintf(t->tv->tag[0], sizeof t->tv->tag[0], "%s", F->run[0].tag);
    snprintf(t->tv->tag[1], sizeof t->tv->tag[1], "%s", F->run[1].tag);
    t->tv->f.run = F->run_no;
    t->tv_run = F->run_no;
    t->tv_told = 1;           /* its end is said here, not as a run's */
    t->tv_layer[0] = '\0';
    t->view = t->live_view = TUI_VIEW_TRAIN;
    tui_layout(t);
    char msg[600];
    snprintf(msg, sizeof msg, "watching %s%s%s: <- -> Home End go through its snapshots, "
             "[ ] the layer, l log counts%s, t the solver view, :watch off stops", dir,
             vs ? " vs " : "", vs ? vs : "", vs ? ", c compares the two runs" : "");
    tui_log_add(&t->log, TUI_MSG_INFO, msg);
    return 0;
}

void tui_folder_close(tui *t)
{
    tui_folder *F = t->folder;
    if (!F)
        return;
    for (int i = 0; i < 2; i++)
        free_run(&F->run[i]);
    free(F);
    t->folder = NULL;
    if (t->tv)
        t->tv->cmp.bins = 0;
}

int tui_folder_line(tui *t, const char *line)
{
    cs_cmdline cl;
    int col;
    cs_err err;
    if (cs_cmdline_parse(line, &cl, &col, &err))
        return 0;   /* the worker says what is wrong with it */
    if (!cl.name || strcmp(cl.name, "watch")) {
        cs_cmdline_free(&cl);
        return 0;
    }
    tui_log_add(&t->log, TUI_MSG_CMD, line);
    const cs_arg *dir = cs_cmdline_key(&cl, "dir"), *vs = cs_cmdline_key(&cl, "vs");
    const cs_arg *pos = cs_cmdline_pos(&cl, 0);
    if (dir)
        tui_folder_open(t, dir->value, vs ? vs->value : NULL);
    else if (pos && !strcmp(pos->value, "off") && t->folder) {
        tui_folder_close(t);
        tui_log_add(&t->log, TUI_MSG_INFO, "watch: stopped following the run folder");
    } else
        tui_log_add(&t->log, TUI_MSG_INFO, "usage: watch dir=DIR [vs=DIR2] (a run folder in "
                                           "the training view), watch off");
    cs_cmdline_free(&cl);
    return 1;
}

int tui_folder_tick(tui *t)
{
    tui_folder *F = t->folder;
    if (!F)
        return -1;
    if (t->tv->f.run != F->run_no) {   /* a run of this session took the view */
        tui_folder_close(t);
        tui_log_add(&t->log, TUI_MSG_INFO, "watch: the training view follows the new run "
                                           "(:watch dir=DIR to return to the folder)");
        return -1;
    }
    double now = cs_now();
    if (now >= F->next_poll) {
        poll_runs(t, F);
        F->next_poll = now + POLL_S;
    }
    int bins = panel_bins(t, F->compare && F->nruns == 2);
    if (bins != F->bins || strcmp(t->tv_layer, F->layer))
        F->dirty = 1;
    if (F->dirty) {
        make_frame(t, F);
        F->dirty = 0;
        F->bins = bins;
        snprintf(F->layer, sizeof F->layer, "%s", t->tv_layer);
        if (t->tv->f.nlayers != F->nlayers) {   /* the Training panel's height */
            F->nlayers = t->tv->f.nlayers;
            tui_layout(t);
        }
    }
    int ms = (int)ceil((F->next_poll - cs_now()) * 1000);
    return ms < 1 ? 1 : ms;
}

int tui_folder_scrub(tui *t, int how)
{
    tui_folder *F = t->folder;
    if (!F)
        return 0;
    size_t n = cs_run_watch_count(F->run[0].w);
    if (n == 0) {
        tui_log_add(&t->log, TUI_MSG_INFO, "watch: no snapshot yet");
        return 1;
    }
    if (how == -2 || (how == -1 && F->cur > 0)) {
        F->cur = how == -2 ? 0 : F->cur - 1;
        F->follow = 0;
    } else if (how == 2 || (how == 1 && F->cur + 1 < n)) {
        F->cur = how == 2 ? n - 1 : F->cur + 1;
        F->follow = F->cur + 1 == n;   /* the newest: followed again */
    }
    F->dirty = 1;
    return 1;
}

int tui_folder_compare(tui *t)
{
    tui_folder *F = t->folder;
    if (!F || F->nruns < 2) {
        tui_log_add(&t->log, TUI_MSG_INFO, "c compares two runs' histograms: csreg watch RUN_A "
                                           "RUN_B, or :watch dir=RUN_A vs=RUN_B");
        return F != NULL;
    }
    F->compare = !F->compare;
    F->dirty = 1;
    return 1;
}
