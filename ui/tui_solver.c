/* tui_solver.c — the Solver panel: `iter N` and the start, the method the
 * run uses, objective, residual, τ and backtracks, the last iteration's
 * backtracking ledger, the error to x*, success or how the run stopped,
 * and sparklines of log objective and log error from ring buffers. Values
 * that are not known read n/a. When the regularizer changed after the run
 * the panel says so and shows none of the old run's numbers (they are
 * another method's). Lines too long for the panel lose whole clauses. */
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
    tui_putn_clauses(w, row, 2, width, line);
}

/* The problem: "bin N=2 M=1", and x*'s scale when it is not 1. */
static void problem_text(const tui_snap *s, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s N=%zu M=%zu", s->kind, s->N, s->M);
    if (s->scale != 1 && s->scale > 0 && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " scale=%.3g", s->scale);
}

/* The method line: the run's (with its λ when it has one), or the next's
 * before any run; then x*'s scale when it is not 1 (the keys ( ) { }
 * change them: their values come before the stopping rule, which a narrow
 * panel drops first). */
static void method_text(const tui_snap *s, char *buf, size_t len)
{
    const char *run = s->method[0] ? s->method : s->next_method;
    size_t n = strcspn(run, ":");
    char lam[48] = "", scale[48] = "";
    if (s->method[0] && isfinite(s->lambda) && s->lambda > 0)
        snprintf(lam, sizeof lam, ", %s=%.3g", tui_cap.utf8 ? "λ" : "lambda", s->lambda);
    if (s->scale != 1 && s->scale > 0)
        snprintf(scale, sizeof scale, ", x* scale=%.3g", s->scale);
    if (s->method[0])
        snprintf(buf, len, "%.*s%s%s%s, stop %s", (int)n, run, s->fit_ls ? " fit=ls" : "", lam,
                 scale, s->stop);
    else
        snprintf(buf, len, "%.*s%s, no run yet", (int)n, run, scale);
}

/* The regularizer changed after the run: what is loaded, and the old run
 * named only. */
static void draw_stale(const tui_snap *s, WINDOW *w, int width)
{
    char buf[200], prob[96];
    size_t n = strcspn(s->method, ":"), m = strcspn(s->next_method, ":");
    problem_text(s, prob, sizeof prob);
    snprintf(buf, sizeof buf, "%s, reg %.*s", prob, (int)m, s->next_method);
    wattron(w, A_BOLD);
    tui_putn_clauses(w, 1, 2, width, buf);
    wattroff(w, A_BOLD);
    snprintf(buf, sizeof buf, "no %.*s run yet, s steps it", (int)m, s->next_method);
    tui_putn_clauses(w, 2, 2, width, buf);
    snprintf(buf, sizeof buf, "last run %.*s, %s, %s at %ld", (int)n, s->method,
             s->success ? "success" : "not x*", s->done ? s->end : "stopped", s->iter);
    wattron(w, A_DIM);
    tui_putn_clauses(w, 3, 2, width, buf);
    wattroff(w, A_DIM);
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

/* The rows in the order shown, each with its rank: a short panel keeps the
 * lowest ranks (what the run is, how it stands), the rest give way. */
enum { R_HEAD, R_METHOD, R_OBJ, R_RES, R_TAU, R_TRIALS, R_ERR, R_VERDICT, R_SPARK_OBJ,
       R_SPARK_ERR, R_COUNT };
static const int rank[R_COUNT] = {
    [R_HEAD] = 0, [R_VERDICT] = 1, [R_ERR] = 2, [R_METHOD] = 3, [R_OBJ] = 4, [R_RES] = 5,
    [R_TAU] = 6, [R_SPARK_ERR] = 7, [R_SPARK_OBJ] = 8, [R_TRIALS] = 9};

void tui_solver_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    int width = wd - 3, room = h - 2;
    const tui_snap *s = t->snap;
    if (!s || !s->have_problem) {
        tui_putn(w, 1, 2, width, "no problem set up");
        tui_putn_clauses(w, 2, 2, width, "try :problem bin N=2 M=1, then s (step), space (run)");
        return;
    }
    if (tui_snap_run_stale(s)) {
        draw_stale(s, w, width);
        return;
    }
    char buf[160], num[64], prob[96];
    problem_text(s, prob, sizeof prob);
    int row = 1;
    for (int r = 0; r < R_COUNT; r++) {
        if (rank[r] >= room)
            continue;
        switch (r) {
        case R_HEAD:
            if (s->method[0])
                snprintf(buf, sizeof buf, "iter %ld, start %d/%d, %s N=%zu M=%zu", s->iter,
                         s->start, s->max_starts, s->kind, s->N, s->M);
            else   /* a new problem: nothing run on it */
                snprintf(buf, sizeof buf, "%s, no run yet", prob);
            wattron(w, A_BOLD);
            tui_putn_clauses(w, row++, 2, width, buf);
            wattroff(w, A_BOLD);
            break;
        case R_METHOD:
            method_text(s, buf, sizeof buf);
            field(w, row++, width, "method", buf);
            break;
        case R_OBJ:
            tui_num(num, sizeof num, s->objective);
            field(w, row++, width, "objective", num);
            break;
        case R_RES:
            tui_num(num, sizeof num, s->residual);
            field(w, row++, width, "residual", num);
            break;
        case R_TAU:
            if (isfinite(s->tau))
                snprintf(buf, sizeof buf, "%.3g, %d backtrack%s", s->tau, s->backtracks,
                         s->backtracks == 1 ? "" : "s");
            else
                snprintf(buf, sizeof buf, "n/a");
            field(w, row++, width, tui_cap.utf8 ? "τ (step)" : "tau (step)", buf);
            break;
        case R_TRIALS:
            ledger_text(s, buf, sizeof buf);
            field(w, row++, width, tui_cap.utf8 ? "trials τ" : "trials tau", buf);
            break;
        case R_ERR:
            tui_num(num, sizeof num, s->rel_err);
            field(w, row++, width, "err to x*", num);
            break;
        case R_VERDICT: {
            int attr = tui_cap.color ? COLOR_PAIR(s->success ? TUI_PAIR_OK : TUI_PAIR_CMD) : A_BOLD;
            const char *verdict = s->success ? "yes" : s->done ? "no (done)" : "not yet";
            if (!isfinite(s->rel_err) && !s->success)
                verdict = s->done ? "n/a (done)" : "n/a";
            if (s->done) {
                /* short (the start is in the first line): the message area has
                 * the whole sentence */
                snprintf(buf, sizeof buf, "%s, %s at %ld", s->success ? "success" : "failed",
                         !strcmp(s->end, "tolerance") ? s->stop : s->end, s->iter);
                verdict = buf;
            }
            wattron(w, attr);
            field(w, row++, width, s->done ? "stopped" : "success", verdict);
            wattroff(w, attr);
            break;
        }
        default:
            tui_putn(w, row, 2, width, r == R_SPARK_OBJ ? "log obj" : "log err");
            tui_sparkline(w, row++, 13, width - 11, r == R_SPARK_OBJ ? &t->robj : &t->rerr, 1);
            break;
        }
    }
}
