/* tui_solver.c — the Solver panel: `iter N` and the start, the method the
 * run uses (and the next solve's when it differs), objective, residual,
 * τ and backtracks, the last iteration's backtracking ledger, the error to
 * x*, success or how the run stopped, and sparklines of log objective and
 * log error from ring buffers. Values that are not known read n/a. */
#include <math.h>
#include <string.h>

#include "tui_internal.h"

static void field(WINDOW *w, int row, int width, const char *name, const char *value)
{
    int cols = 0;  /* display columns of name (UTF-8 continuation bytes take none) */
    for (const char *c = name; *c; c++)
        cols += ((unsigned char)*c & 0xc0) != 0x80;
    char line[256];
    snprintf(line, sizeof line, "%s%*s%s", name, cols < 11 ? 11 - cols : 1, "", value);
    tui_putn(w, row, 2, width, line);
}

/* The method line: the run's, and the next solve's when it differs. */
static void method_text(const tui_snap *s, char *buf, size_t len)
{
    const char *run = s->method[0] ? s->method : s->next_method;
    size_t n = strcspn(run, ":"), m = strcspn(s->next_method, ":");
    if (s->method[0] && (n != m || strncmp(run, s->next_method, n)))
        snprintf(buf, len, "%.*s (next: %.*s)", (int)n, run, (int)m, s->next_method);
    else if (s->method[0])
        snprintf(buf, len, "%.*s, stop %s", (int)n, run, s->stop);
    else
        snprintf(buf, len, "%.*s (no run yet)", (int)n, run);
}

/* The last iteration's trial steps: τ and ✓ (taken) or ✗ (f above the bound). */
static void ledger_text(const tui_snap *s, char *buf, size_t len)
{
    size_t used = 0, shown = s->nledger < 8 ? s->nledger : 8;
    buf[0] = '\0';
    for (size_t k = 0; k < shown && used + 1 < len; k++) {
        const cs_trial_rec *t = &s->ledger[k];
        used += (size_t)snprintf(buf + used, len - used, "%s%.2g%s", k ? " " : "", t->tau,
                                 t->accepted ? (tui_cap.utf8 ? "✓" : "+")
                                             : (tui_cap.utf8 ? "✗" : "x"));
    }
    if (s->nledger > shown && used + 1 < len)
        snprintf(buf + used, len - used, " +%zu", s->nledger - shown);
    if (!s->nledger)
        snprintf(buf, len, "n/a");
}

void tui_solver_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    int width = wd - 3;
    const tui_snap *s = t->snap;
    if (!s || !s->have_problem) {
        tui_putn(w, 1, 2, width, "no problem set up");
        tui_putn(w, 2, 2, width, "try  :problem bin N=2 M=1");
        tui_putn(w, 3, 2, width, "then s (step) or space (run)");
        return;
    }
    char buf[160], num[64];
    int row = 1;
    snprintf(buf, sizeof buf, "iter %ld  start %d/%d  %s N=%zu M=%zu", s->iter, s->start,
             s->max_starts, s->kind, s->N, s->M);
    wattron(w, A_BOLD);
    tui_putn(w, row++, 2, width, buf);
    wattroff(w, A_BOLD);
    method_text(s, buf, sizeof buf);
    field(w, row++, width, "method", buf);
    tui_num(num, sizeof num, s->objective);
    field(w, row++, width, "objective", num);
    tui_num(num, sizeof num, s->residual);
    field(w, row++, width, "residual", num);
    if (isfinite(s->tau))
        snprintf(buf, sizeof buf, "%.3g, %d backtrack%s", s->tau, s->backtracks,
                 s->backtracks == 1 ? "" : "s");
    else
        snprintf(buf, sizeof buf, "n/a");
    field(w, row++, width, tui_cap.utf8 ? "τ (step)" : "tau (step)", buf);
    if (row < h - 4) {
        ledger_text(s, buf, sizeof buf);
        field(w, row++, width, tui_cap.utf8 ? "trials τ" : "trials tau", buf);
    }
    tui_num(num, sizeof num, s->rel_err);
    field(w, row++, width, "err to x*", num);
    int attr = tui_cap.color ? COLOR_PAIR(s->success ? TUI_PAIR_OK : TUI_PAIR_CMD) : A_BOLD;
    const char *verdict = s->success ? "yes" : s->done ? "no (done)" : "not yet";
    if (!isfinite(s->rel_err) && !s->success)
        verdict = s->done ? "n/a (done)" : "n/a";
    if (s->done) {
        /* short (the start is in the first line): the message area has
         * the whole sentence */
        snprintf(buf, sizeof buf, "%s at %ld: %s",
                 !strcmp(s->end, "tolerance") ? s->stop : s->end, s->iter,
                 s->success ? "success" : "failed");
        verdict = buf;
    }
    wattron(w, attr);
    field(w, row++, width, s->done ? "stopped" : "success", verdict);
    wattroff(w, attr);
    int spark_w = width - 11;
    if (row < h - 1) {
        tui_putn(w, row, 2, width, "log obj");
        tui_sparkline(w, row++, 13, spark_w, &t->robj, 1);
    }
    if (row < h - 1) {
        tui_putn(w, row, 2, width, "log err");
        tui_sparkline(w, row++, 13, spark_w, &t->rerr, 1);
    }
}
