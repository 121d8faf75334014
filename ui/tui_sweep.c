/* tui_sweep.c — the sweep view. While `sweep` runs (typed at `:` or from a
 * script) the screen follows it without a key, as it follows training: the
 * Success panel draws each method's success rate at every grid point as it
 * fills in, with its Wilson 95% interval as a vertical bar (it shrinks as
 * trials arrive; a point with no trial yet stays empty), and the Points
 * table gives each point's trials done of its total and the rates. The
 * counts come from the sweep's worker threads through the TUI worker's lock
 * (tui_worker.c); the UI draws its own copy a few times a second. When the
 * sweep ends the view stays on its final state; t returns to the solver
 * view (and back), Esc cancels as for any command. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_clock.h"
#include "cs_stats.h"
#include "tui_internal.h"

/* ---- pace: trials done, rate, ETA --------------------------------------------- */

void tui_clock_text(double seconds, char *buf, size_t len)
{
    if (!isfinite(seconds) || seconds < 0) {
        snprintf(buf, len, "--");
        return;
    }
    long t = (long)(seconds + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

typedef struct pace {
    long total, done, ran;   /* ran: by this run (not from the journal) */
    size_t whole;            /* points with all their trials */
    double seconds, rate, eta;
} pace;

static void pace_of(const tui_sweep_state *s, pace *p)
{
    p->total = (long)s->np * s->trials;
    p->done = s->total_done;
    p->ran = s->total_done - s->preloaded;
    p->whole = 0;
    for (size_t i = 0; i < s->np; i++)
        p->whole += s->done[i] >= s->trials;
    p->seconds = (s->end == TUI_SWEEP_RUNNING ? cs_now() : s->ended) - s->started;
    p->rate = p->ran > 0 && p->seconds > 0 ? (double)p->ran / p->seconds : NAN;
    /* the rate of the first half second says little */
    p->eta = p->done >= p->total ? 0 : p->ran > 0 && p->seconds > 0.5
                                           ? (double)(p->total - p->done) / p->rate
                                           : NAN;
}

static void rate_text(double rate, char *buf, size_t len)
{
    if (!isfinite(rate))
        snprintf(buf, len, "--");
    else if (rate >= 1000)
        snprintf(buf, len, "%.0f", rate);
    else
        snprintf(buf, len, "%.3g", rate);
}

/* "trials 340/1400 24%  52.1 trials/s  ETA 0:20" while it runs, else how
 * it ended. The rate and the ETA count the trials this run ran, not those
 * from the journal. */
static void pace_line(const tui_sweep_state *s, char *buf, size_t len)
{
    pace p;
    pace_of(s, &p);
    char rate[32], eta[32], spent[32];
    rate_text(p.rate, rate, sizeof rate);
    tui_clock_text(p.eta, eta, sizeof eta);
    tui_clock_text(p.seconds, spent, sizeof spent);
    int pct = p.total ? (int)(100 * p.done / p.total) : 0;
    if (s->end == TUI_SWEEP_RUNNING)
        snprintf(buf, len, "trials %ld/%ld %d%%  %s trials/s  ETA %s", p.done, p.total, pct,
                 rate, eta);
    else if (s->end == CS_SWEEP_LIVE_DONE)
        snprintf(buf, len, "done: %ld/%ld trials in %s, %s trials/s", p.done, p.total, spent,
                 rate);
    else if (s->end == CS_SWEEP_LIVE_INTERRUPTED)
        snprintf(buf, len, "cancelled: %ld/%ld trials, %zu/%zu points whole", p.done, p.total,
                 p.whole, s->np);
    else
        snprintf(buf, len, "failed after %ld/%ld trials", p.done, p.total);
}

/* ---- the head line --------------------------------------------------------------- */

void tui_sweep_head(const tui *t, char *buf, size_t len)
{
    const tui_sweep_state *s = t->sv;
    if (!s || !t->sv_run || !s->np) {
        snprintf(buf, len, "sweep");
        return;
    }
    const char *bar = tui_cap.utf8 ? "│" : "|";
    char methods[256] = "";
    size_t n = 0;
    for (size_t m = 0; m < s->nm && n + 2 < sizeof methods; m++)
        n += (size_t)snprintf(methods + n, sizeof methods - n, "%s%s", m ? "," : "",
                              s->method[m]);
    snprintf(buf, len, "sweep %s N=%zu %s=%g..%g %s %s %s %zu points x %ld trials", s->kind,
             s->N, s->axis, s->values[0], s->values[s->np - 1], bar, methods, bar, s->np,
             s->trials);
}

/* ---- the Success panel ------------------------------------------------------------ */

/* Each method's marker and colour (then cycled). */
static const char *marker(size_t m)
{
    static const char *const ascii[] = {"o", "x", "+", "*", "#", "@", "%", "&"};
    static const char *const utf8[] = {"●", "▲", "■", "◆", "▼", "★", "✚", "✖"};
    return (tui_cap.utf8 ? utf8 : ascii)[m % 8];
}

static short method_pair(size_t m)
{
    static const short pairs[] = {TUI_PAIR_SPARK, TUI_PAIR_CMD, TUI_PAIR_HIST, TUI_PAIR_ERR,
                                  TUI_PAIR_DIM};
    return pairs[m % (sizeof pairs / sizeof *pairs)];
}

static void method_on(WINDOW *w, size_t m)
{
    if (tui_cap.color)
        wattron(w, COLOR_PAIR(method_pair(m)));
}

static void method_off(WINDOW *w, size_t m)
{
    if (tui_cap.color)
        wattroff(w, COLOR_PAIR(method_pair(m)));
}

/* Columns text takes (UTF-8 continuation bytes take none). */
static int text_cols(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* The plot's geometry: rows top..top+ph-1 for success 1..0, columns
 * left..left+pw-1 for the grid points, one slot each. */
typedef struct plot {
    int top, ph, left, pw;
    size_t np, nm;
} plot;

static double row_of(const plot *g, double v) { return g->top + (1.0 - v) * (g->ph - 1); }

static int col_of(const plot *g, size_t i, size_t m)
{
    int c = g->left + (int)(((double)i + 0.5) * g->pw / (double)g->np);
    /* methods side by side when the slot has room, else on one column */
    if ((double)g->pw / (double)g->np >= (double)g->nm + 1)
        c += (int)m - (int)(g->nm - 1) / 2;
    return c < g->left ? g->left : c > g->left + g->pw - 1 ? g->left + g->pw - 1 : c;
}

static void y_axis(WINDOW *w, const plot *g)
{
    static const double at[] = {1, 0.75, 0.5, 0.25, 0};
    static const char *const label[] = {"1.0", "0.75", "0.5", "0.25", "0.0"};
    for (int r = g->top; r < g->top + g->ph; r++)
        mvwaddstr(w, r, g->left - 1, tui_cap.utf8 ? "│" : "|");
    for (int k = 0; k < 5; k++) {
        if (g->ph < 9 && (k == 1 || k == 3))
            continue;
        int r = (int)lround(row_of(g, at[k]));
        tui_putf(w, r, 1, "%4s", label[k]);
        mvwaddstr(w, r, g->left - 1, tui_cap.utf8 ? "┤" : "+");
    }
}

/* The axis under the plot, ticks at the labelled points, their values
 * under it (as many as fit, evenly), the variable's name at the left. */
static void x_axis(WINDOW *w, const plot *g, const tui_sweep_state *s, int wd)
{
    int ra = g->top + g->ph, rl = ra + 1;
    mvwaddstr(w, ra, g->left - 1, tui_cap.utf8 ? "└" : "+");
    for (int c = g->left; c < g->left + g->pw; c++)
        mvwaddstr(w, ra, c, tui_cap.utf8 ? "─" : "-");
    tui_putn(w, rl, 1, g->left - 1, s->axis);
    char lab[32];
    int lw = 1;
    for (size_t i = 0; i < s->np; i++) {
        int n = snprintf(lab, sizeof lab, "%g", s->values[i]);
        lw = n > lw ? n : lw;
    }
    double slot = (double)g->pw / (double)s->np;
    size_t stride = 1;
    while ((double)stride * slot < lw + 1 && stride < s->np)
        stride++;
    /* the first label moves right of the name rather than going */
    int last = (int)strlen(s->axis) + 1;   /* the column after the last text */
    for (size_t i = 0; i < s->np; i += stride) {
        int n = snprintf(lab, sizeof lab, "%g", s->values[i]);
        int c = col_of(&(plot){g->top, g->ph, g->left, g->pw, g->np, 1}, i, 0);
        int x = c - n / 2;
        if (x + n > wd - 1)
            x = wd - 1 - n;
        if (x <= last)
            x = last + 1;
        if (x + n > wd - 1)
            continue;
        mvwaddstr(w, ra, c, tui_cap.utf8 ? "┬" : "+");
        tui_put(w, rl, x, lab);
        last = x + n;
    }
}

/* Dots from each point's rate to the next one's (the curve), under the
 * bars and markers drawn after them. */
static void curve(WINDOW *w, const plot *g, const tui_sweep_state *s, size_t m)
{
    method_on(w, m);
    for (size_t i = 0; i + 1 < s->np; i++) {
        if (!s->done[i] || !s->done[i + 1])
            continue;
        int x0 = col_of(g, i, m), x1 = col_of(g, i + 1, m);
        double y0 = row_of(g, (double)s->succ[i * s->nm + m] / (double)s->done[i]);
        double y1 = row_of(g, (double)s->succ[(i + 1) * s->nm + m] / (double)s->done[i + 1]);
        for (int x = x0 + 1; x < x1; x++)
            mvwaddstr(w, (int)lround(y0 + (y1 - y0) * (x - x0) / (x1 - x0)), x,
                      tui_cap.utf8 ? "·" : ".");
    }
    method_off(w, m);
}

/* Point i of method m: the Wilson interval as a bar, the rate's marker on it. */
static void point(WINDOW *w, const plot *g, const tui_sweep_state *s, size_t i, size_t m,
                  int bar)
{
    long n = s->done[i], k = s->succ[i * s->nm + m];
    if (n <= 0)
        return;   /* no trial yet: nothing to draw */
    int x = col_of(g, i, m);
    method_on(w, m);
    if (bar) {
        double lo, hi;
        cs_wilson95(k, n, &lo, &hi);
        for (int r = (int)lround(row_of(g, hi)); r <= (int)lround(row_of(g, lo)); r++)
            mvwaddstr(w, r, x, tui_cap.utf8 ? "│" : "|");
    } else {
        wattron(w, A_BOLD);
        mvwaddstr(w, (int)lround(row_of(g, (double)k / (double)n)), x, marker(m));
        wattroff(w, A_BOLD);
    }
    method_off(w, m);
}

/* "● bin  ▲ linf   bars: Wilson 95%", as much as fits. */
static void legend(WINDOW *w, int y, int wd, const tui_sweep_state *s)
{
    int x = 1;
    for (size_t m = 0; m < s->nm; m++) {
        char name[40];
        snprintf(name, sizeof name, "%.30s", s->method[m]);
        int need = 2 + text_cols(name) + 2;
        if (x + need > wd - 1) {
            tui_putf(w, y, x, "+%zu", s->nm - m);
            return;
        }
        method_on(w, m);
        wattron(w, A_BOLD);
        mvwaddstr(w, y, x, marker(m));
        wattroff(w, A_BOLD);
        method_off(w, m);
        tui_put(w, y, x + 2, name);
        x += need;
    }
    static const char note[] = "bars: Wilson 95%";
    if (x + 1 + (int)sizeof note - 1 <= wd - 1)
        tui_put(w, y, wd - 1 - ((int)sizeof note - 1), note);
}

void tui_sweep_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    const tui_sweep_state *s = t->sv;
    if (!s || !t->sv_run || !s->np)
        return;
    char line[256];
    snprintf(line, sizeof line, " %s N=%zu, %ld trials/point ", s->kind, s->N, s->trials);
    if ((int)strlen(line) + 12 < wd)
        tui_put(w, 0, wd - (int)strlen(line) - 2, line);
    pace_line(s, line, sizeof line);
    wattron(w, A_BOLD);
    tui_putn_clauses(w, 1, 1, wd - 2, line);
    wattroff(w, A_BOLD);
    if (s->preloaded) {   /* resume=on: in the frame, where 80 columns have room */
        snprintf(line, sizeof line, " %ld trials from the journal ", s->preloaded);
        if ((int)strlen(line) + 4 < wd)
            tui_put(w, h - 1, wd - (int)strlen(line) - 2, line);
    }
    if (h < 4)
        return;
    legend(w, 2, wd, s);
    plot g = {.top = 3, .ph = h - 6, .left = 6, .pw = wd - 7, .np = s->np, .nm = s->nm};
    if (g.ph < 3 || g.pw < 4)
        return;
    y_axis(w, &g);
    x_axis(w, &g, s, wd);
    /* the curves, then every bar, then the markers over them */
    for (size_t m = 0; m < s->nm; m++)
        curve(w, &g, s, m);
    for (int bar = 1; bar >= 0; bar--)
        for (size_t m = 0; m < s->nm; m++)
            for (size_t i = 0; i < s->np; i++)
                point(w, &g, s, i, m, bar);
}

/* ---- the Points panel ------------------------------------------------------------- */

/* The point the sweep is on: the first not whole (the last one when all are). */
static size_t current_point(const tui_sweep_state *s)
{
    for (size_t i = 0; i < s->np; i++)
        if (s->done[i] < s->trials)
            return i;
    return s->np - 1;
}

/* The point the detail lines show: the one in progress, else the last one
 * with trials. */
static size_t detail_point(const tui_sweep_state *s)
{
    size_t cur = current_point(s);
    if (s->done[cur] > 0)
        return cur;
    while (cur > 0 && s->done[cur] == 0)
        cur--;
    return cur;
}

/* Method m's rate at point i, "0.935" ("-" without trials). */
static void rate_at(const tui_sweep_state *s, size_t i, size_t m, char *buf, size_t len)
{
    if (s->done[i] <= 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.3f", (double)s->succ[i * s->nm + m] / (double)s->done[i]);
}

void tui_points_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    const tui_sweep_state *s = t->sv;
    if (!s || !t->sv_run || !s->np || h < 4)
        return;
    char lab[32];
    int vw = (int)strlen(s->axis);
    for (size_t i = 0; i < s->np; i++) {
        int n = snprintf(lab, sizeof lab, "%g", s->values[i]);
        vw = n > vw ? n : vw;
    }
    int dw = snprintf(lab, sizeof lab, "%ld/%ld", s->trials, s->trials);
    dw = dw < 6 ? 6 : dw;
    int fit = (wd - 1 - (2 + vw + 1 + dw)) / 6;
    size_t shown = fit < 0 ? 0 : (size_t)fit < s->nm ? (size_t)fit : s->nm;
    /* header: the variable, "trials", the methods (markers in the Success panel) */
    char line[512];
    int n = snprintf(line, sizeof line, " %-*s %*s", vw, s->axis, dw, "trials");
    for (size_t m = 0; m < shown && n > 0 && (size_t)n < sizeof line; m++)
        n += snprintf(line + n, sizeof line - (size_t)n, " %5.5s", s->method[m]);
    wattron(w, A_BOLD);
    tui_putn(w, 1, 1, wd - 2, line);
    wattroff(w, A_BOLD);
    /* room for the points, and under them the detail of one point */
    int avail = h - 3;
    int detail = (int)s->nm + 2;
    int min_rows = s->np < 4 ? (int)s->np : 4;
    if (avail - detail < min_rows)
        detail = 0;
    int rows = avail - detail;
    size_t cur = current_point(s), first = 0;
    if ((size_t)rows < s->np) {   /* scrolled to keep the current point in sight */
        size_t half = (size_t)rows / 2;
        first = cur > half ? cur - half : 0;
        if (first + (size_t)rows > s->np)
            first = s->np - (size_t)rows;
    }
    for (int r = 0; r < rows && first + (size_t)r < s->np; r++) {
        size_t i = first + (size_t)r;
        int going = s->done[i] > 0 && s->done[i] < s->trials;
        char done[40], v[32];
        snprintf(done, sizeof done, "%ld/%ld", s->done[i], s->trials);
        snprintf(v, sizeof v, "%g", s->values[i]);
        n = snprintf(line, sizeof line, "%c%-*s %*s", going ? '>' : ' ', vw, v, dw, done);
        for (size_t m = 0; m < shown && n > 0 && (size_t)n < sizeof line; m++) {
            char p[16];
            rate_at(s, i, m, p, sizeof p);
            n += snprintf(line + n, sizeof line - (size_t)n, " %5s", p);
        }
        if (s->done[i] == 0)
            wattron(w, A_DIM);
        if (going)
            wattron(w, A_BOLD);
        tui_putn(w, 2 + r, 1, wd - 2, line);
        wattroff(w, A_DIM | A_BOLD);
    }
    if (!detail)
        return;
    /* "gamma=0.5: 120 trials, 95% CI" then "● 0.930 [0.889,0.957] bin" */
    size_t d = detail_point(s);
    int y = 2 + rows + 1;
    snprintf(line, sizeof line, "%s=%g: %ld trials, 95%% CI", s->axis, s->values[d],
             s->done[d]);
    tui_putn_clauses(w, y++, 1, wd - 2, line);
    for (size_t m = 0; m < s->nm && y < h - 1; m++, y++) {
        double lo, hi;
        char p[16];
        rate_at(s, d, m, p, sizeof p);
        method_on(w, m);
        wattron(w, A_BOLD);
        mvwaddstr(w, y, 1, marker(m));
        wattroff(w, A_BOLD);
        method_off(w, m);
        if (cs_wilson95(s->succ[d * s->nm + m], s->done[d], &lo, &hi) == 0)
            snprintf(line, sizeof line, "%5s [%.3f,%.3f] %s", p, lo, hi, s->method[m]);
        else
            snprintf(line, sizeof line, "%5s %s", p, s->method[m]);
        tui_putn(w, y, 3, wd - 4, line);
    }
}

/* ---- the status line, new sweeps and their end ---------------------------------------- */

/* " sweep kind=bin…  trials 340/1400 24% 52.1 trials/s ETA 0:20  Esc cancels":
 * the numbers whole, then the hint, then as much of the command as fits. */
int tui_sweep_status(tui *t, WINDOW *w, const char *line)
{
    const tui_sweep_state *s = t->sv;
    if (!s || !t->sv_run || !s->np || s->end != TUI_SWEEP_RUNNING)
        return 0;
    pace p;
    pace_of(s, &p);
    char nums[160], rate[32], eta[32];
    rate_text(p.rate, rate, sizeof rate);
    tui_clock_text(p.eta, eta, sizeof eta);
    snprintf(nums, sizeof nums, "trials %ld/%ld %d%% %s trials/s ETA %s", p.done, p.total,
             p.total ? (int)(100 * p.done / p.total) : 0, rate, eta);
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

void tui_sweep_update(tui *t)
{
    if (!t->sv->run || t->sv->run == t->sv_run)
        return;
    t->sv_run = t->sv->run;   /* a new sweep: follow it */
    t->sv_told = 0;
    t->live_view = TUI_VIEW_SWEEP;
    t->view = TUI_VIEW_SWEEP;
    tui_layout(t);
}

void tui_sweep_finished(tui *t)
{
    const tui_sweep_state *s = t->sv;
    if (!s || !t->sv_run || s->run != t->sv_run || s->end == TUI_SWEEP_RUNNING || t->sv_told)
        return;
    t->sv_told = 1;
    if (s->end == CS_SWEEP_LIVE_FAILED && s->total_done == 0) {   /* nothing to look at */
        t->live_view = t->tv_run ? TUI_VIEW_TRAIN : TUI_VIEW_SOLVER;
        if (t->view == TUI_VIEW_SWEEP)
            tui_set_view(t, TUI_VIEW_SOLVER);
        return;
    }
    char line[256], msg[320];
    pace_line(s, line, sizeof line);
    snprintf(msg, sizeof msg, "sweep %s; t: solver view", line);
    tui_log_add(&t->log, TUI_MSG_INFO, msg);
}
