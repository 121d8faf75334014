/* tui_cmdline.c — the command line at the bottom: line editing (arrows,
 * Home/End, Backspace/Delete, Ctrl-A/E/U/K/W), history (Up/Down) and Tab
 * completion from the command table (cs_complete, as in the REPL). */
#include <stdlib.h>
#include <string.h>

#include "cs_complete.h"
#include "tui_internal.h"

static void set_line(tui_cmdline *c, const char *s)
{
    snprintf(c->buf, sizeof c->buf, "%s", s);
    c->len = c->cur = strlen(c->buf);
}

static void put_text(tui_cmdline *c, const char *s, size_t n)
{
    if (c->len + n >= sizeof c->buf)
        return;
    memmove(c->buf + c->cur + n, c->buf + c->cur, c->len - c->cur + 1);
    memcpy(c->buf + c->cur, s, n);
    c->cur += n;
    c->len += n;
}

static void cut(tui_cmdline *c, size_t from, size_t to)
{
    memmove(c->buf + from, c->buf + to, c->len - to + 1);
    c->len -= to - from;
    c->cur = from;
}

static void remember(tui_cmdline *c, const char *line)
{
    if (!line[0] || (c->nhist && !strcmp(c->hist[c->nhist - 1], line)))
        return;
    size_t cap = sizeof c->hist / sizeof c->hist[0];
    if (c->nhist == cap) {
        free(c->hist[0]);
        memmove(c->hist, c->hist + 1, (cap - 1) * sizeof c->hist[0]);
        c->nhist--;
    }
    char *copy = strdup(line);
    if (copy)
        c->hist[c->nhist++] = copy;
}

static void history(tui_cmdline *c, int dir)
{
    if (dir < 0 && c->hpos > 0) {
        if (c->hpos == c->nhist)
            snprintf(c->saved, sizeof c->saved, "%s", c->buf);
        c->hpos--;
        set_line(c, c->hist[c->hpos]);
    } else if (dir > 0 && c->hpos < c->nhist) {
        c->hpos++;
        set_line(c, c->hpos == c->nhist ? c->saved : c->hist[c->hpos]);
    }
}

/* Tab: complete the word before the cursor; several candidates extend it
 * to their common prefix and are listed in c->cands. */
static void complete(tui_cmdline *c)
{
    size_t start = c->cur;
    while (start > 0 && c->buf[start - 1] != ' ')
        start--;
    char line[sizeof c->buf];
    memcpy(line, c->buf, c->cur);
    line[c->cur] = '\0';
    char **cands = cs_complete(line, start, c->cur);
    c->cands[0] = '\0';
    if (!cands || !cands[0]) {
        cs_complete_free(cands);
        snprintf(c->cands, sizeof c->cands, "(no completion)");
        return;
    }
    size_t common = strlen(cands[0]);
    size_t n = 0;
    for (; cands[n]; n++) {
        size_t k = 0;
        while (k < common && cands[n][k] == cands[0][k])
            k++;
        common = k;
    }
    size_t typed = c->cur - start;
    if (common > typed)
        put_text(c, cands[0] + typed, common - typed);
    if (n == 1) {
        char last = cands[0][strlen(cands[0]) - 1];
        if (last != '=' && last != '/' && c->buf[c->cur] != ' ')
            put_text(c, " ", 1);
    } else {
        size_t used = 0;
        for (size_t i = 0; cands[i] && used + 2 < sizeof c->cands; i++)
            used += (size_t)snprintf(c->cands + used, sizeof c->cands - used, "%s%s",
                                     i ? "  " : "", cands[i]);
    }
    cs_complete_free(cands);
}

int tui_cmdline_key(tui_cmdline *c, int key, char *out, size_t len)
{
    switch (key) {
    case '\n':
    case '\r':
    case KEY_ENTER:
        snprintf(out, len, "%s", c->buf);
        remember(c, c->buf);
        c->hpos = c->nhist;
        set_line(c, "");
        c->cands[0] = '\0';
        return 1;
    case 27:  /* Esc */
        set_line(c, "");
        c->hpos = c->nhist;
        c->cands[0] = '\0';
        return -1;
    case '\t':
        complete(c);
        return 0;
    case KEY_LEFT:
        if (c->cur)
            c->cur--;
        return 0;
    case KEY_RIGHT:
        if (c->cur < c->len)
            c->cur++;
        return 0;
    case KEY_HOME:
    case 1:  /* Ctrl-A */
        c->cur = 0;
        return 0;
    case KEY_END:
    case 5:  /* Ctrl-E */
        c->cur = c->len;
        return 0;
    case KEY_BACKSPACE:
    case 127:
    case 8:
        if (c->cur)
            cut(c, c->cur - 1, c->cur);
        else if (c->len == 0)
            return -1;  /* Backspace on an empty line leaves it, as in vim */
        return 0;
    case KEY_DC:
    case 4:  /* Ctrl-D */
        if (c->cur < c->len)
            cut(c, c->cur, c->cur + 1);
        return 0;
    case 21:  /* Ctrl-U */
        cut(c, 0, c->cur);
        return 0;
    case 11:  /* Ctrl-K */
        c->buf[c->cur] = '\0';
        c->len = c->cur;
        return 0;
    case 23: {  /* Ctrl-W */
        size_t p = c->cur;
        while (p && c->buf[p - 1] == ' ')
            p--;
        while (p && c->buf[p - 1] != ' ')
            p--;
        cut(c, p, c->cur);
        return 0;
    }
    case KEY_UP:
        history(c, -1);
        return 0;
    case KEY_DOWN:
        history(c, 1);
        return 0;
    default:
        if (key >= 32 && key < 127) {
            char ch = (char)key;
            put_text(c, &ch, 1);
        }
        return 0;
    }
}

void tui_cmdline_draw(tui_cmdline *c, WINDOW *w, const char *prompt, int focused)
{
    int wd = getmaxx(w);
    werase(w);
    if (!focused) {
        wattron(w, tui_cap.color ? COLOR_PAIR(TUI_PAIR_DIM) : A_DIM);
        tui_put(w, 0, 0, ":  command line (press : to type a command, Tab completes)");
        wattroff(w, tui_cap.color ? COLOR_PAIR(TUI_PAIR_DIM) : A_DIM);
        return;
    }
    int pl = (int)strlen(prompt);
    wattron(w, A_BOLD);
    tui_put(w, 0, 0, prompt);
    wattroff(w, A_BOLD);
    int room = wd - pl - 1;
    if (room < 1)
        return;
    /* scroll horizontally so the cursor stays visible */
    size_t off = c->cur > (size_t)room ? c->cur - (size_t)room : 0;
    tui_putn(w, 0, pl, room, c->buf + off);
    wmove(w, 0, pl + (int)(c->cur - off));
}

void tui_cmdline_free(tui_cmdline *c)
{
    for (size_t i = 0; i < c->nhist; i++)
        free(c->hist[i]);
    c->nhist = 0;
}
