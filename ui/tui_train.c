/* tui_train.c — the training view. While train or finetune runs (typed at
 * `:` or from a sourced script) the screen follows it without a key: the
 * Curves (tui_chart.c) and the Training panel take the place of the
 * Regularizers, Landscape and Solver, the Histogram (tui_hist.c) shows the
 * frames of the selected layer, and the status line the run's numbers.
 * When the run ends the view stays on its last frame; t returns to the
 * solver view. [ and ] cycle the layer: each sends `hist layer=NAME`, which
 * the journal keeps (it runs when the worker is free, after the run). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cs_progress.h"
#include "tui_internal.h"

/* ---- the Training panel ----------------------------------------------------- */

static void progress_line(const cs_train_frame *f, char *buf, size_t len)
{
    int pct = f->run_steps ? (int)(100 * f->run_step / f->run_steps) : 0;
    char eta[32];
    cs_progress_fmt_time(f->eta, eta, sizeof eta);
    if (!strcmp(f->what, "watch"))   /* a run folder: the snapshot shown */
        snprintf(buf, len, "snapshot %zu/%zu  step %zu%s", f->snapshot, f->snapshots, f->step,
                 f->final ? "  (the run ended)" : "");
    else if (f->final && f->stopped)
        snprintf(buf, len, "cancelled at step %zu (%d%%), which it keeps", f->step, pct);
    else if (f->final && f->failed)
        snprintf(buf, len, "failed after step %zu (%d%%)", f->step, pct);
    else if (f->final)
        snprintf(buf, len, "done: epoch %d/%d, step %zu/%zu, %.1fs", f->epoch, f->epochs,
                 f->run_step, f->run_steps, f->seconds);
    else
        snprintf(buf, len, "epoch %d/%d  step %zu/%zu  %d%%  ETA %s", f->epoch, f->epochs,
                 f->run_step, f->run_steps, pct, eta);
}

static void test_line(const cs_train_frame *f, char *buf, size_t len)
{
    if (!isfinite(f->test_acc)) {
        snprintf(buf, len, "test acc n/a%s", f->test_n ? "" : " (no test set)");
        return;
    }
    char when[32];
    if (f->test_epoch > 0)
        snprintf(when, sizeof when, "epoch %d", f->test_epoch);
    else
        snprintf(when, sizeof when, "before training");
    snprintf(buf, len, "test acc %.4f (%zu images, %s)", f->test_acc, f->test_n, when);
}

/* v with prec digits (%g: g, else %f) and a suffix, or "n/a" when it is
 * not a number */
static const char *num(char *buf, size_t len, double v, int prec, int g, const char *suffix)
{
    if (!isfinite(v))
        snprintf(buf, len, "n/a");
    else if (g)
        snprintf(buf, len, "%.*g%s", prec, v, suffix);
    else
        snprintf(buf, len, "%.*f%s", prec, v, suffix);
    return buf;
}

static void readiness_row(WINDOW *w, int y, const cs_nn_watch_layer *l, int shown, int namew)
{
    char tau[16] = "-", flips[16], near[16], alpha[16];
    if (isfinite(l->tau_mean))
        snprintf(tau, sizeof tau, "%.4g", l->tau_mean);
    num(flips, sizeof flips, 100 * l->flips, 3, 0, "%");
    num(near, sizeof near, 100 * l->near, 2, 0, "%");
    num(alpha, sizeof alpha, l->alpha_mean, 4, 1, "");
    tui_putf(w, y, 1, "%c%-*s %7s %8s %8s %7s", shown ? '>' : ' ', namew, l->name, near, alpha,
             tau, flips);
}

void tui_train_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    if (!t->tv || !t->tv_run)
        return;
    const cs_train_frame *f = &t->tv->f;
    char line[256], reg[64] = "";
    if (strcmp(f->reg, "none"))
        snprintf(reg, sizeof reg, ", reg %s %s=%g", f->reg, tui_cap.utf8 ? "λ" : "lambda",
                 f->lambda);
    /* regularized layers: a short panel keeps their table (what the
     * narration and the student watch) and folds the lines above it */
    int nreg = 0;
    for (size_t i = 0; i < f->nlayers; i++)
        nreg += f->layer[i].regularized;
    int compact = h < 8 + nreg && strcmp(f->what, "watch") != 0, row = 1;
    snprintf(line, sizeof line, "%s %s on %s%s", f->what, f->model, f->device, reg);
    if (!compact)
        tui_putn_clauses(w, row++, 1, wd - 2, line);
    progress_line(f, line, sizeof line);
    tui_putn_clauses(w, row++, 1, wd - 2, line);
    char regv[32] = "none", loss[32], ips[32];
    if (strcmp(f->reg, "none"))
        num(regv, sizeof regv, f->reg_value, 4, 1, "");
    snprintf(line, sizeof line, "loss %s  reg %s  %s img/s", num(loss, sizeof loss, f->loss, 4, 0, ""),
             regv, num(ips, sizeof ips, f->images_per_s, 0, 0, ""));
    if (compact)
        snprintf(line, sizeof line, "loss %s, reg %s, test acc %s", num(loss, sizeof loss, f->loss,
                 4, 0, ""), regv, num(ips, sizeof ips, f->test_acc, 4, 0, ""));
    if (!strcmp(f->what, "watch"))   /* a run folder says what it has (tui_folder.c) */
        snprintf(line, sizeof line, "%s", f->note[0]);
    tui_putn_clauses(w, row++, 1, wd - 2, line);
    test_line(f, line, sizeof line);
    if (!strcmp(f->what, "watch"))
        snprintf(line, sizeof line, "%s", f->note[1]);
    if (!compact)
        tui_putn_clauses(w, row++, 1, wd - 2, line);
    if (h - 1 - row < 2)
        return;
    /* the names' column as wide as the longest (a run folder's "layer1.0.conv1"); the
     * rows from one that keeps the shown layer's in view */
    int namew = 6, rows = 0, at = -1;
    for (size_t i = 0; i < f->nlayers; i++)
        if (f->layer[i].regularized) {
            int n = (int)strlen(f->layer[i].name);
            namew = n > namew ? n : namew;
            if (!strcmp(f->layer[i].name, t->tv_layer))
                at = rows;
            rows++;
        }
    int room = h - 2 - row, skip = at >= room && room > 0 ? at - room + 1 : 0;
    wattron(w, A_BOLD);   /* α and τ take two bytes, one column */
    tui_putf(w, row, 1, " %-*s %7s %*s %*s %7s", namew, "layer", "near1%", tui_cap.utf8 ? 9 : 8,
             tui_cap.utf8 ? "mean α" : "alpha", tui_cap.utf8 ? 9 : 8, tui_cap.utf8 ? "τ" : "tau",
             "flips");
    wattroff(w, A_BOLD);
    int y = row + 1;
    for (size_t i = 0; i < f->nlayers && y < h - 1; i++)
        if (f->layer[i].regularized && skip-- <= 0)
            readiness_row(w, y++, &f->layer[i], !strcmp(f->layer[i].name, t->tv_layer), namew);
    if (f->nlayers == 0)
        tui_putn(w, y, 1, wd - 2, strcmp(f->what, "watch") ? "no histograms: see watch_error in "
                 "the result" : "no snapshot yet: waiting for the writer");
}

/* ---- the status line ----------------------------------------------------------- */

/* " train model=mlp…  epoch 1/2 step 340 36% ETA 12s 31000 img/s loss 0.4123  Esc cancels":
 * the numbers whole, then the hint, then as much of the command as fits.
 * Returns 0 when no run is going (the caller draws its own line). */
int tui_train_status(tui *t, WINDOW *w, const char *line)
{
    if (!t->tv || !t->tv_run || t->tv->f.final || t->tv->f.run_steps == 0)
        return 0;
    const cs_train_frame *f = &t->tv->f;
    char eta[32], nums[200], ips[32], loss[32];
    cs_progress_fmt_time(f->eta, eta, sizeof eta);
    snprintf(nums, sizeof nums, "epoch %d/%d step %zu/%zu %d%% ETA %s %s img/s loss %s",
             f->epoch, f->epochs, f->run_step, f->run_steps,
             (int)(100 * f->run_step / f->run_steps), eta,
             num(ips, sizeof ips, f->images_per_s, 0, 0, ""), num(loss, sizeof loss, f->loss, 4, 0, ""));
    static const char esc[] = "  Esc cancels";
    int wd = getmaxx(w), room = wd - 2 - (int)strlen(nums);
    int show_esc = room >= (int)sizeof esc - 1;
    if (show_esc)
        room -= (int)sizeof esc - 1;
    int x = 1, cmd = room - 2;
    if (cmd >= 4) {
        char c[160];
        int n = (int)strlen(line);
        if (n > cmd)
            snprintf(c, sizeof c, "%.*s%s", cmd - 1, line, tui_cap.utf8 ? "…" : "~");
        else
            snprintf(c, sizeof c, "%s", line);
        tui_put(w, 0, x, c);
        x += (n > cmd ? cmd : n) + 2;
    }
    wattron(w, A_BOLD);
    tui_put(w, 0, x, nums);
    wattroff(w, A_BOLD);
    if (show_esc)
        tui_put(w, 0, x + (int)strlen(nums), esc);
    return 1;
}

/* ---- frames and keys -------------------------------------------------------------- */

/* One line that fits 80 columns. */
static void tell_end(tui *t, const cs_train_frame *f)
{
    char msg[512], loss[32], share[32];
    int pct = f->run_steps ? (int)(100 * f->run_step / f->run_steps) : 0;
    if (f->stopped)
        snprintf(msg, sizeof msg,
                 "%s cancelled at step %zu (%d%%); the network keeps that step (t: solver)",
                 f->what, f->step, pct);
    else if (f->failed)
        snprintf(msg, sizeof msg, "%s failed after step %zu (%d%%). t: solver view", f->what,
                 f->step, pct);
    else
        snprintf(msg, sizeof msg, "%s done at step %zu, loss %s, watching %s of the time; "
                 "t: solver view", f->what, f->step, num(loss, sizeof loss, f->loss, 4, 0, ""),
                 num(share, sizeof share, 100 * f->watch_share, 2, 0, "%"));
    tui_log_add(&t->log, TUI_MSG_INFO, msg);
}

void tui_train_update(tui *t)
{
    const cs_train_frame *f = &t->tv->f;
    int known = 0;
    for (size_t i = 0; i < f->nlayers; i++)
        known |= !strcmp(f->layer[i].name, t->tv_layer);
    if (!known && f->nlayers)
        snprintf(t->tv_layer, sizeof t->tv_layer, "%s", f->layer[f->sel].name);
    if (f->run != t->tv_run) {   /* a new run: follow it */
        t->tv_run = f->run;
        t->tv_told = 0;
        snprintf(t->tv_layer, sizeof t->tv_layer, "%s",
                 f->nlayers ? f->layer[f->sel].name : "");
        t->view = TUI_VIEW_TRAIN;
        t->live_view = TUI_VIEW_TRAIN;
        tui_layout(t);
    }
}

void tui_train_finished(tui *t)
{
    if (!t->tv || !t->tv_run || !t->tv->f.final || t->tv_told)
        return;
    const cs_train_frame *f = &t->tv->f;
    t->tv_told = 1;
    tell_end(t, f);
    if (f->failed && f->run_step == 0) {   /* nothing to look at */
        t->view = TUI_VIEW_SOLVER;
        tui_layout(t);
    }
}

void tui_train_cycle(tui *t, int dir)
{
    const cs_train_frame *f = t->tv && t->tv_run ? &t->tv->f : NULL;
    if (!f || f->nlayers == 0) {
        tui_log_add(&t->log, TUI_MSG_INFO,
                    "[ and ] choose the layer of a network in training (:train ... first)");
        return;
    }
    int n = (int)f->nlayers, cur = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(f->layer[i].name, t->tv_layer))
            cur = i;
    cur = (cur + dir + n) % n;
    snprintf(t->tv_layer, sizeof t->tv_layer, "%s", f->layer[cur].name);
    if (!strcmp(f->what, "watch"))   /* a run folder's layer: the view's own choice */
        return;
    tui_worker_set_want(t->worker, 0, t->tv_layer);
    char line[64];
    snprintf(line, sizeof line, "hist layer=%s", t->tv_layer);
    tui_worker_submit(t->worker, line, TUI_ECHO | TUI_COALESCE);
}
