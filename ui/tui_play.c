/* tui_play.c — the workbench's script player: `csreg --tour` and
 * `:play FILE`. It sends a script to the worker one line at a time, so the
 * panels follow every command, shows `say` in a narration box and stops at
 * `pause` until n or space, with the whole workbench usable in between.
 * `b` goes back one chapter: the interpreter is reset and the script runs
 * again from its start to that chapter without stopping (each chapter is
 * built to take seconds). The lines go through the interpreter like any
 * other command, so the journal holds the tour as it was played. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_text.h"
#include "tui_internal.h"

struct tui_play {
    char **line;
    size_t n, next;       /* lines, and the next one to send */
    size_t *chapter_at;   /* line index of each `chapter` */
    size_t nchapters;
    int chapter;          /* chapters sent (1-based number of the current one) */
    int waiting;          /* a `pause` was sent: wait for n or space */
    int skip_to;          /* going back: send without stopping until this chapter */
    int stopped;          /* a command failed: the player stops */
    size_t errors;        /* the worker's error count when the line was sent */
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
    *out = p;
    return 0;
}

/* The words after the command name, as the interpreter reads them. */
static void words_after_name(const char *line, char *buf, size_t len)
{
    cs_cmdline cl;
    int col;
    cs_err err;
    buf[0] = '\0';
    if (cs_cmdline_parse(line, &cl, &col, &err))
        return;
    size_t used = 0;
    for (size_t i = 0; i < cs_cmdline_npos(&cl) && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "",
                                 cs_cmdline_pos(&cl, i)->value);
    cs_cmdline_free(&cl);
}

/* Send the next line when the worker is idle: one command per snapshot. */
void tui_play_tick(tui *t)
{
    tui_play *p = t->play;
    if (!p || p->waiting || p->stopped || !tui_worker_idle(t->worker))
        return;
    if (p->next > 0 && tui_worker_errors(t->worker) != p->errors) {
        p->stopped = 1;
        tui_log_add(&t->log, TUI_MSG_ERR, "the script stopped at the error above (q quits)");
        return;
    }
    if (p->next >= p->n)
        return;
    const char *line = p->line[p->next++];
    char name[32];
    command_name(line, name, sizeof name);
    if (!strcmp(name, "chapter")) {
        p->chapter++;
        tui_set_view(t, TUI_VIEW_SOLVER);   /* a chapter starts on the solver's panels */
        words_after_name(line, p->title, sizeof p->title);
        p->say[0] = '\0';
    } else if (!strcmp(name, "say")) {
        words_after_name(line, p->say, sizeof p->say);
    } else if (!strcmp(name, "pause") && p->chapter >= p->skip_to) {
        p->waiting = 1;
    }
    p->errors = tui_worker_errors(t->worker);
    /* the narration has its box; other commands show what they print */
    int quiet = !strcmp(name, "say") || !strcmp(name, "chapter") || !strcmp(name, "pause");
    tui_worker_submit(t->worker, line,
                      p->chapter < p->skip_to ? 0 : quiet ? TUI_ECHO : TUI_ECHO | TUI_SHOW_OUTPUT);
}

/* Reset the session and run again from the start to chapter k. */
static void back_to(tui *t, int k)
{
    tui_play *p = t->play;
    tui_worker_cancel(t->worker);
    tui_worker_submit(t->worker, "", TUI_RESET);
    p->next = 0;
    p->chapter = 0;
    p->waiting = 0;
    p->stopped = 0;
    p->skip_to = k < 1 ? 1 : k;
    p->say[0] = p->title[0] = '\0';
    p->errors = tui_worker_errors(t->worker);
    t->running = 0;
    tui_log_add(&t->log, TUI_MSG_INFO, "back to the start of the chapter (replaying the script)");
}

int tui_play_key(tui *t, int ch)
{
    tui_play *p = t->play;
    if (!p)
        return 0;
    switch (ch) {
    case 'n':
    case ' ':
        if (p->waiting) {
            p->waiting = 0;
        } else if (p->next >= p->n || p->stopped) {
            tui_log_add(&t->log, TUI_MSG_INFO, "the script has ended: q quits");
        }
        return 1;
    case 'b':
        back_to(t, p->chapter - 1 > 0 ? p->chapter - 1 : 1);
        return 1;
    case 'q':
        return 2;
    default:
        return 0;
    }
}

/* Words of text into lines of at most width columns (UTF-8 counted as one
 * column per code point); returns the number of lines written. */
static int wrap(const char *text, int width, char lines[][256], int maxlines)
{
    int n = 0;
    const char *s = text;
    while (*s && n < maxlines) {
        while (*s == ' ')
            s++;
        const char *cut = s, *end = s;
        int cols = 0;
        for (const char *q = s; *q; q++) {
            if ((*q & 0xC0) != 0x80)
                cols++;
            if (cols > width)
                break;
            if (*q == ' ')
                cut = q;
            end = q + 1;
        }
        if (*end && cut > s)
            end = cut;
        size_t len = (size_t)(end - s);
        if (len >= 256)
            len = 255;
        memcpy(lines[n], s, len);
        lines[n][len] = '\0';
        n++;
        s = end;
    }
    return n;
}

void tui_play_draw(tui *t, WINDOW *unused)
{
    (void)unused;
    tui_play *p = t->play;
    if (!p || t->cols < 40)
        return;
    /* above the messages; in the training view over the bottom of the
     * Curves, so that the Training panel's numbers stay in sight */
    WINDOW *chart = t->win[TUI_PANEL_CHART], *train_w = t->win[TUI_PANEL_TRAIN];
    int train = t->view == TUI_VIEW_TRAIN && train_w && chart;
    int w = train ? getmaxx(chart) - 2 : (t->cols - 4 > 100 ? 100 : t->cols - 4);
    char lines[8][256];
    int nl = wrap(p->say[0] ? p->say : "...", w - 4, lines, 6);
    int h = nl + 2;
    int top = train ? getbegy(train_w) - h
                    : t->rows - 3 - (t->rows >= 36 ? 4 : 2) - h;
    if (top < 1)
        top = 1;
    WINDOW *win = newwin(h, w, top, train ? 1 : (t->cols - w) / 2);
    if (!win)
        return;
    char head[320];
    if (p->chapter > 0)
        snprintf(head, sizeof head, "Chapter %d/%zu: %s", p->chapter, p->nchapters, p->title);
    else
        snprintf(head, sizeof head, "Tour");
    tui_panel_box(win, head, 1);
    for (int i = 0; i < nl; i++)
        tui_putn(win, 1 + i, 2, w - 4, lines[i]);
    const char *foot = p->stopped              ? " stopped at an error: b back, q quit "
                       : p->waiting            ? " n/space next  b back a chapter  q quit "
                       : p->next >= p->n       ? " the end: q quits "
                       : p->chapter < p->skip_to ? " replaying... "
                                               : " running... ";
    wattron(win, A_REVERSE);
    tui_put(win, h - 1, w - 2 - (int)strlen(foot), foot);
    wattroff(win, A_REVERSE);
    wnoutrefresh(win);
    delwin(win);
}

int tui_play_waiting(const tui *t) { return t->play && t->play->waiting; }
