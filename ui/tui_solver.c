/* tui_solver.c — the Solver panel: `iter N`, objective, residual, τ,
 * backtracks, error to x*, success, and sparklines of log objective and log
 * error from ring buffers. Values that are not known read n/a. */
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

void tui_solver_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    tui_panel_box(w, "Solver", t->focus == TUI_FOCUS_SOLVER);
    int width = wd - 3;
    const tui_snap *s = t->snap;
    if (!s || !s->have_problem) {
        tui_putn(w, 1, 2, width, "no problem set up");
        tui_putn(w, 2, 2, width, "try  :problem bin N=2 M=1");
        tui_putn(w, 3, 2, width, "then s (step) or space (run)");
        return;
    }
    char buf[128], num[64];
    int row = 1;
    snprintf(buf, sizeof buf, "iter %ld  start %d  %s N=%zu M=%zu", s->iter, s->start, s->kind,
             s->N, s->M);
    wattron(w, A_BOLD);
    tui_putn(w, row++, 2, width, buf);
    wattroff(w, A_BOLD);
    tui_num(num, sizeof num, s->objective);
    field(w, row++, width, "objective", num);
    tui_num(num, sizeof num, s->residual);
    field(w, row++, width, "residual", num);
    tui_num(num, sizeof num, s->tau);
    field(w, row++, width, tui_cap.utf8 ? "τ (step)" : "tau (step)", num);
    snprintf(num, sizeof num, "%d", s->backtracks);
    field(w, row++, width, "backtracks", num);
    tui_num(num, sizeof num, s->rel_err);
    field(w, row++, width, "err to x*", num);
    int attr = tui_cap.color ? COLOR_PAIR(s->success ? TUI_PAIR_OK : TUI_PAIR_CMD) : A_BOLD;
    const char *verdict = s->success ? "yes" : s->done ? "no (done)" : "not yet";
    if (!isfinite(s->rel_err) && !s->success)
        verdict = s->done ? "n/a (done)" : "n/a";
    wattron(w, attr);
    field(w, row++, width, "success", verdict);
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
