/* tui_play.c — the workbench's script player: `csreg --tour` and
 * `:play FILE`. It sends a script to the worker one line at a time, so the
 * panels follow every command, shows `say` in the narration rows (their
 * own rows of the screen: nothing they talk about is under them) and stops
 * at `pause` until n, with the whole workbench usable in between.
 *
 * The narration is bound to the state it was written for:
 * - the text shown is what `say` printed, its {values} filled from the
 *   live results;
 * - at a pause the player notes the state (regularizer, problem, run,
 *   view); when n is pressed and the student has changed it, the player
 *   puts it back by running the chapter's lines again up to this stop
 *   before it goes on (chapters set up their own state: seed, reg,
 *   problem), so the next narration meets the screen it describes;
 * - the keys that move the tour (n, N, q) are none that a narration asks
 *   for: s, space, b, arrows... keep their workbench meaning.
 * `pause try=KEY=VALUE` is an invitation: the player says when the student
 * got there. N goes back a chapter (to its first line, which sets its state
 * up). The lines go through the interpreter like any other command, so the
 * journal holds the tour as it was played. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_text.h"
#include "tui_internal.h"

enum { FP_LEN = 400 };

struct tui_play {
    char **line;
    size_t n, next;       /* lines, and the next one to send */
    size_t *chapter_at;   /* line index of each `chapter` */
    size_t nchapters;
    int chapter;          /* 1-based number of the current chapter (0: none yet) */
    int waiting;          /* a `pause` was sent: wait for n */
    size_t pause_line;    /* its line */
    long restore_until;   /* >= 0: send silently up to this line (putting state back) */
    int resync;           /* a jump: take the worker's error count when it is idle */
    int stopped;          /* a command failed: the player stops */
    size_t errors;        /* the worker's error count when the line was sent */
    long sent_seq;        /* the snapshot sequence when the pause was sent */
    int fp_taken;
    char fp[FP_LEN];      /* the state at the pause */
    char try_[128];       /* the pause's invitation (try=), "" none */
    int try_met;
    long say_seen;        /* the worker's narration count */
    char say[2048];
    char title[256];
    char path[1024];
};

void tui_play_free(tui_play *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->line[i]);
    free(p->line);
    free(p->chapter_at);
    free(p);
}

/* The first word of a line (the command name), lowercase, into buf. */
static void command_name(const char *line, char *buf, size_t len)
{
    while (isspace((unsigned char)*line))
        line++;
    size_t k = 0;
    while (line[k] && !isspace((unsigned char)line[k]) && k + 1 < len) {
        buf[k] = line[k];
        k++;
    }
    buf[k] = '\0';
}

static int add_line(tui_play *p, const char *text, size_t *cap)
{
    if (p->n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        char **l = realloc(p->line, c * sizeof *l);
        if (!l)
            return -1;
        p->line = l;
        *cap = c;
    }
    p->line[p->n] = strdup(text);
    return p->line[p->n++] ? 0 : -1;
}

int tui_play_open(tui_play **out, const char *path, char *msg, size_t len)
{
    *out = NULL;
    FILE *f;
    cs_err err;
    if (cs_text_open(path, NULL, &f, &err)) {
        snprintf(msg, len, "%s", err.msg);
        return -1;
    }
    tui_play *p = calloc(1, sizeof *p);
    size_t cap = 0, bcap = 0, blen;
    char *buf = NULL;
    int rc = p ? 0 : -1, got, col, lineno = 0;
    while (!rc && (got = cs_text_line(f, &buf, &bcap, &blen, &col, &err)) != 0) {
        lineno++;
        if (got < 0) {
            fclose(f);
            free(buf);
            tui_play_free(p);
            snprintf(msg, len, "%s:%d: %s", path, lineno, err.msg);
            return -1;
        }
        const char *s = buf + strspn(buf, " \t");
        if (*s && *s != '#')
            rc = add_line(p, s, &cap);
    }
    free(buf);
    fclose(f);
    if (!rc) {
        p->chapter_at = calloc(p->n ? p->n : 1, sizeof *p->chapter_at);
        rc = p->chapter_at ? 0 : -1;
    }
    for (size_t i = 0; !rc && i < p->n; i++) {
        char name[32];
        command_name(p->line[i], name, sizeof name);
        if (!strcmp(name, "chapter"))
            p->chapter_at[p->nchapters++] = i;
    }
    if (rc) {
        tui_play_free(p);
        snprintf(msg, len, "out of memory reading '%s'", path);
        return -1;
    }
    snprintf(p->path, sizeof p->path, "%s", path);
    p->restore_until = -1;
    *out = p;
    return 0;
}

/* The words after the command name, as the interpreter reads them, and
 * the value of `key` (buf "" / kv "" when none). */
static void words_after_name(const char *line, char *buf, size_t len, const char *key, char *kv,
                             size_t kvlen)
{
    cs_cmdline cl;
    int col;
    cs_err err;
    buf[0] = '\0';
    if (kv)
        kv[0] = '\0';
    if (cs_cmdline_parse(line, &cl, &col, &err))
        return;
    size_t used = 0;
    for (size_t i = 0; i < cs_cmdline_npos(&cl) && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "",
                                 cs_cmdline_pos(&cl, i)->value);
    if (key && kv)
        snprintf(kv, kvlen, "%s", cs_arg_text(&cl, key, ""));
    cs_cmdline_free(&cl);
}

/* ---- the state a narration was written for ---------------------------------------- */

/* What the narrations talk about: the regularizer, the problem, the run, the
 * view (not the focus, the pager or the messages). */
static void fingerprint(const tui *t, char *buf, size_t len)
{
    const tui_snap *s = t->snap;
    if (!s) {
        snprintf(buf, len, "-");
        return;
    }
    snprintf(buf, len, "%s|%d %s %zu %zu|%s %d %ld %ld %d|%.6g %.6g %.6g %.6g %d %d %d", s->reg,
             s->have_problem, s->kind, s->N, s->M, s->method, s->start, s->iter, s->iters,
             s->done, s->box.x0, s->box.x1, s->box.y0, s->box.y1, s->box.dims[0],
             s->box.dims[1], s->box.basins);
}

/* The first field that differs between two fingerprints, for the message. */
static const char *what_changed(const char *a, const char *b)
{
    static const char *const part[] = {"the regularizer", "the problem", "the run", "the view"};
    int k = 0;
    for (; *a && *a == *b; a++, b++)
        k += *a == '|';
    return part[k < 4 ? k : 3];
}

/* Does the state meet the invitation "KEY=VALUE[,KEY=VALUE]"? */
static int try_met(const tui *t, const char *cond)
{
    const tui_snap *s = t->snap;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", cond);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq || !s)
            return 0;
        *eq++ = '\0';
        long num = strtol(eq, NULL, 10);
        int ok;
        if (!strcmp(kv, "reg"))
            ok = !strcmp(s->reg, eq);
        else if (!strcmp(kv, "N"))
            ok = s->have_problem && (long)s->N == num;
        else if (!strcmp(kv, "M"))
            ok = s->have_problem && (long)s->M == num;
        else if (!strcmp(kv, "method"))
            ok = !strncmp(s->method, eq, strlen(eq)) && s->method[0];
        else if (!strcmp(kv, "success"))
            ok = s->have_problem && s->success == !strcmp(eq, "yes");
        else if (!strcmp(kv, "start"))
            ok = s->have_problem && s->start == num;
        else if (!strcmp(kv, "layer"))   /* the training view's histogram */
            ok = !strcmp(t->tv_layer, eq);
        else
            ok = 0;
        if (!ok)
            return 0;
    }
    return 1;
}

static void set_split(tui *t, const char *reg)
{
    if (!strcmp(t->split, reg))
        return;
    snprintf(t->split, sizeof t->split, "%s", reg);
    tui_worker_set_split(t->worker, reg);
    tui_layout(t);   /* a split Landscape takes the Regularizers' columns */
}

/* ---- sending the script ------------------------------------------------------------ */

void tui_play_tick(tui *t)
{
    tui_play *p = t->play;
    if (!p)
        return;
    char said[2048];
    if (tui_worker_take_say(t->worker, said, sizeof said, &p->say_seen))
        snprintf(p->say, sizeof p->say, "%s", said);
    if (!tui_worker_idle(t->worker))
        return;
    if (p->resync) {   /* after a jump: what was cancelled is no error of the script */
        p->errors = tui_worker_errors(t->worker);
        p->resync = 0;
    }
    if (p->waiting) {
        if (!p->fp_taken && t->snap && t->snap->seq >= p->sent_seq) {
            fingerprint(t, p->fp, sizeof p->fp);
            p->fp_taken = 1;
        }
        if (p->try_[0] && !p->try_met && p->fp_taken && try_met(t, p->try_)) {
            p->try_met = 1;
            char msg[200];
            snprintf(msg, sizeof msg, "Tour: well done, %s holds. n goes on.", p->try_);
            tui_log_add(&t->log, TUI_MSG_INFO, msg);
        }
        return;
    }
    if (p->stopped)
        return;
    if (p->next > 0 && tui_worker_errors(t->worker) != p->errors) {
        p->stopped = 1;
        tui_log_add(&t->log, TUI_MSG_ERR, "the script stopped at the error above (N goes back "
                                          "a chapter, q quits)");
        return;
    }
    if (p->next >= p->n)
        return;
    size_t at = p->next++;
    const char *line = p->line[at];
    char name[32];
    command_name(line, name, sizeof name);
    int narration = !strcmp(name, "say") || !strcmp(name, "chapter") || !strcmp(name, "pause");
    p->errors = tui_worker_errors(t->worker);
    if (p->restore_until >= 0) {   /* putting the state back: the commands only */
        if ((long)at >= p->restore_until)
            p->restore_until = -1;
        if (!narration)
            tui_worker_submit(t->worker, line, TUI_SCRIPT);
        return;
    }
    if (!strcmp(name, "chapter")) {
        p->chapter++;
        tui_set_view(t, TUI_VIEW_SOLVER);   /* a chapter starts on the solver's panels */
        words_after_name(line, p->title, sizeof p->title, NULL, NULL, 0);
        p->say[0] = '\0';
        set_split(t, "");
        tui_worker_submit(t->worker, line, TUI_SCRIPT);
    } else if (!strcmp(name, "say")) {
        char text[2048], split[32];
        words_after_name(line, text, sizeof text, "split", split, sizeof split);
        set_split(t, split);
        tui_worker_submit(t->worker, line, TUI_NARRATE | TUI_SCRIPT);
    } else if (!strcmp(name, "pause")) {
        char none[8];
        words_after_name(line, none, sizeof none, "try", p->try_, sizeof p->try_);
        p->waiting = 1;
        p->pause_line = at;
        p->fp_taken = 0;
        p->try_met = 0;
        p->sent_seq = (t->snap ? t->snap->seq : 0) + 1;
        tui_worker_submit(t->worker, line, TUI_SCRIPT);
    } else {
        tui_worker_submit(t->worker, line, TUI_ECHO | TUI_SHOW_OUTPUT | TUI_SCRIPT | TUI_PAGE);
    }
}

/* Back to the first line of chapter k (1-based): the chapter sets its own
 * state up; whatever runs is cancelled. */
static void back_to(tui *t, int k)
{
    tui_play *p = t->play;
    if (!p->nchapters)
        return;
    k = k < 1 ? 1 : k > (int)p->nchapters ? (int)p->nchapters : k;
    tui_worker_cancel(t->worker);
    p->next = p->chapter_at[k - 1];
    p->chapter = k - 1;
    p->waiting = p->stopped = 0;
    p->restore_until = -1;
    p->resync = 1;
    p->say[0] = '\0';
    t->running = 0;
    char msg[120];
    snprintf(msg, sizeof msg, "Tour: back to the start of chapter %d", k);
    tui_log_add(&t->log, TUI_MSG_INFO, msg);
}

/* n at a pause: on, after putting back the state it was written for. */
static void go_on(tui *t)
{
    tui_play *p = t->play;
    char now[FP_LEN];
    fingerprint(t, now, sizeof now);
    p->waiting = 0;
    if (!p->fp_taken || p->try_[0] || !strcmp(now, p->fp) || p->chapter < 1)
        return;
    char msg[240];
    snprintf(msg, sizeof msg, "Tour: you changed %s since this stop; putting back the state the "
             "next narration was written for (the chapter's commands again)",
             what_changed(p->fp, now));
    tui_log_add(&t->log, TUI_MSG_INFO, msg);
    t->running = 0;
    tui_worker_cancel(t->worker);
    p->resync = 1;
    p->next = p->chapter_at[p->chapter - 1] + 1;
    p->restore_until = (long)p->pause_line;
}

int tui_play_key(tui *t, int ch)
{
    tui_play *p = t->play;
    if (!p)
        return 0;
    switch (ch) {
    case 'n':
        if (p->waiting)
            go_on(t);
        else if (p->next >= p->n || p->stopped)
            tui_log_add(&t->log, TUI_MSG_INFO, "the script has ended: q quits");
        else
            tui_log_add(&t->log, TUI_MSG_INFO, "Tour: running the chapter's commands; n goes "
                                               "on at the next stop");
        return 1;
    case 'N':
        back_to(t, p->chapter > 1 ? p->chapter - 1 : 1);
        return 1;
    case 'q':
        return 2;
    default:
        return 0;
    }
}

const char *tui_play_keys(void) { return "n next  N back a chapter  q quit"; }

/* ---- the narration rows ------------------------------------------------------------- */

/* A narration's text with each {value} counted as 8 columns, as shown. */
static void estimate(const char *text, char *out, size_t len)
{
    size_t o = 0;
    for (const char *s = text; *s && o + 9 < len; s++) {
        if (*s == '{' && s[1] != '{' && strchr(s, '}')) {
            memcpy(out + o, "00000000", 8);
            o += 8;
            s = strchr(s, '}');
        } else {
            out[o++] = *s;
        }
    }
    out[o] = '\0';
}

enum { MAX_TEXT_ROWS = 8 };

int tui_play_rows(const tui *t, int width)
{
    const tui_play *p = t->play;
    if (!p)
        return 0;
    int most = 1;
    for (size_t i = 0; i < p->n; i++) {
        char name[32], text[2048], shown[2048];
        command_name(p->line[i], name, sizeof name);
        if (strcmp(name, "say"))
            continue;
        words_after_name(p->line[i], text, sizeof text, NULL, NULL, 0);
        estimate(text, shown, sizeof shown);
        size_t st[MAX_TEXT_ROWS + 1], ln[MAX_TEXT_ROWS + 1];
        int r = tui_wrap(shown, width - 2, st, ln, MAX_TEXT_ROWS + 1);
        most = r > most ? r : most;
    }
    return 1 + (most < MAX_TEXT_ROWS ? most : MAX_TEXT_ROWS);
}

enum { MAX_SIDE_ROWS = 64 };

void tui_play_draw(tui *t, WINDOW *w)
{
    tui_play *p = t->play;
    int h, wd;
    getmaxyx(w, h, wd);
    werase(w);
    /* a side column (tui_layout.c): the chapter and the keys on a row each,
     * the text below at the column's width, a rule at its left */
    int side = wd < t->cols, x0 = side ? 2 : 1, top = side ? 2 : 1;
    char head[320];
    if (p->chapter > 0)
        snprintf(head, sizeof head, " Chapter %d/%zu: %s ", p->chapter, p->nchapters, p->title);
    else
        snprintf(head, sizeof head, " Tour ");
    char foot[200];
    if (p->stopped)
        snprintf(foot, sizeof foot, " stopped at an error: N back, q quit ");
    else if (p->waiting && p->try_[0])   /* narrow: the status line has every tour key */
        snprintf(foot, sizeof foot, " %s%s  n next%s ", p->try_met ? "done " : "try ",
                 p->try_met ? (tui_cap.utf8 ? "✓" : "ok") : p->try_,
                 wd >= 100 || side ? "  N back  q quit" : "");
    else if (p->waiting)
        snprintf(foot, sizeof foot, " %s ", wd >= 100 || side ? tui_play_keys() : "n next  N back");
    else if (p->restore_until >= 0)
        snprintf(foot, sizeof foot, " putting the state back... ");
    else if (p->next >= p->n)
        snprintf(foot, sizeof foot, " the end: q quits ");
    else
        snprintf(foot, sizeof foot, " running... ");
    /* the title row: the chapter at the left, what the keys do at the right
     * (the chapter's name gives way first) */
    int fl = (int)strlen(foot);
    wattron(w, A_REVERSE | A_BOLD);
    for (int y = 0; y < top; y++)
        for (int x = 0; x < wd; x++)
            mvwaddch(w, y, x, ' ');
    if (side) {   /* the name on its row (whole clauses), the keys on the next */
        tui_putn_clauses(w, 0, 0, wd, head);
        tui_putn(w, 1, 0, wd, foot);
    } else {
        tui_putn_clauses(w, 0, 0, wd - fl - 1, head);   /* the name loses whole clauses */
        tui_put(w, 0, wd - fl > 0 ? wd - fl : 0, foot);
    }
    wattroff(w, A_REVERSE | A_BOLD);
    if (side)
        for (int y = top; y < h; y++)
            mvwaddstr(w, y, 0, tui_cap.utf8 ? "│" : "|");
    const char *text = p->say[0] ? p->say : p->next < p->n ? "..." : "";
    size_t st[MAX_SIDE_ROWS], ln[MAX_SIDE_ROWS];
    int n = tui_wrap(text, wd - x0 - 1, st, ln, side ? MAX_SIDE_ROWS : MAX_TEXT_ROWS);
    for (int i = 0; i < n && top + i < h; i++) {
        char row[1024];
        snprintf(row, sizeof row, "%.*s", (int)(ln[i] < sizeof row ? ln[i] : sizeof row - 1),
                 text + st[i]);
        tui_putn(w, top + i, x0, wd - x0 - 1, row);
    }
}

int tui_play_waiting(const tui *t) { return t->play && t->play->waiting; }
