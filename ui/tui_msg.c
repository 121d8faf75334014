/* tui_msg.c — the message area: the log of commands, their output and the
 * workbench's notes, newest at the bottom; a long entry wraps at word
 * boundaries (nothing is cut mid-sentence at 80 columns); PgUp/PgDn scroll
 * by entries. Numbers of a command's output are rounded for reading here
 * (--json and scripts keep every digit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

/* Display columns of text[0..n) (UTF-8 continuation bytes take none). */
static int columns(const char *text, size_t n)
{
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)text[i] & 0xc0) != 0x80;
    return c;
}

int tui_wrap(const char *text, int width, size_t *start, size_t *len, int max)
{
    int n = 0;
    size_t pos = 0, total = strlen(text);
    if (width < 8)
        width = 8;
    while (n < max) {
        while (pos < total && text[pos] == ' ' && n > 0)
            pos++;   /* a wrapped line starts at a word */
        size_t end = pos, brk = 0;
        int cols = 0;
        while (end < total && text[end] != '\n') {
            int w = ((unsigned char)text[end] & 0xc0) != 0x80;
            if (cols + w > width)
                break;
            cols += w;
            if (text[end] == ' ')
                brk = end;
            end++;
        }
        if (end < total && text[end] != '\n' && brk > pos)
            end = brk;   /* break at the last space that fits */
        start[n] = pos;
        len[n] = end - pos;
        n++;
        pos = end < total && text[end] == '\n' ? end + 1 : end;
        if (pos >= total)
            break;
    }
    return n;
}

void tui_putn_clauses(WINDOW *w, int y, int x, int width, const char *text)
{
    size_t n = strlen(text);
    if (columns(text, n) > width) {
        /* drop whole clauses (", ...") that do not fit, then whole words */
        size_t comma = 0, space = 0;
        for (size_t i = 0; i + 1 < n && columns(text, i) <= width; i++) {
            if (text[i] == ',' && text[i + 1] == ' ')
                comma = i;
            if (text[i] == ' ')
                space = i;
        }
        n = comma ? comma : space ? space : n;
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), text);
    tui_putn(w, y, x, width, buf);
}

enum { MAX_WRAP = 8 };   /* rows of one entry at most */

void tui_msg_draw(tui *t, WINDOW *w)
{
    int h = getmaxy(w), wd = getmaxx(w);
    werase(w);
    int nshow = h;
    int cands = t->cmd.cands[0] != '\0';
    if (cands)
        nshow--;
    if (nshow < 1)
        nshow = 1;
    size_t max_scroll = t->log.len > 1 ? t->log.len - 1 : 0;
    if (t->msg_scroll > max_scroll)
        t->msg_scroll = max_scroll;
    size_t end = t->log.len - t->msg_scroll;
    /* from the newest entry shown upwards, its wrapped rows bottom first */
    int row = nshow - 1, hidden = 0;
    size_t i;
    for (i = end; i > 0 && row >= 0; i--) {
        int kind;
        const char *text = tui_log_at(&t->log, i - 1, &kind);
        size_t st[MAX_WRAP], ln[MAX_WRAP];
        int nr = tui_wrap(text, wd - 2, st, ln, MAX_WRAP);
        int attr = 0;
        if (tui_cap.color)
            attr = kind == TUI_MSG_CMD    ? COLOR_PAIR(TUI_PAIR_CMD)
                   : kind == TUI_MSG_ERR  ? COLOR_PAIR(TUI_PAIR_ERR) | A_BOLD
                   : kind == TUI_MSG_INFO ? COLOR_PAIR(TUI_PAIR_TITLE)
                                          : 0;
        else if (kind == TUI_MSG_ERR)
            attr = A_BOLD;
        wattron(w, attr);
        hidden = row + 1 < nr;   /* this entry's first rows do not fit */
        for (int r = nr - 1; r >= 0 && row >= 0; r--, row--) {
            char line[1024];
            snprintf(line, sizeof line, "%.*s", (int)(ln[r] < sizeof line ? ln[r] : sizeof line - 1),
                     text + st[r]);
            tui_putn(w, row, 1, wd - 1, line);
        }
        wattroff(w, attr);
    }
    if (t->msg_scroll) {
        char more[64];
        snprintf(more, sizeof more, " [%zu newer: PgDn] ", t->msg_scroll);
        wattron(w, A_REVERSE);
        tui_put(w, 0, wd - (int)strlen(more) - 1, more);
        wattroff(w, A_REVERSE);
    } else if (hidden || i > 0) {
        tui_put(w, 0, wd - 18, " [PgUp: earlier] ");
    }
    if (cands) {
        wattron(w, A_DIM);
        tui_putn(w, h - 1, 1, wd - 1, t->cmd.cands);
        wattroff(w, A_DIM);
    }
}

/* ---- numbers for reading ------------------------------------------------------ */

/* Is c a byte that may stand next to a number (not part of a word or a
 * file name)? */
static int number_edge(char c)
{
    return c == '\0' || c == ' ' || c == ',' || c == '(' || c == ')' || c == '[' || c == ']' ||
           c == '=' || c == ':' || c == ';' || c == '\n' || c == '\t';
}

/* The length of a decimal number at s with a point or an exponent, and its
 * significant digits; 0 when s is no such number. */
static size_t number_at(const char *s, int *digits)
{
    size_t i = 0;
    int point = 0, expo = 0, lead = 1;
    *digits = 0;
    if (s[i] == '-' || s[i] == '+')
        i++;
    size_t first = i;
    for (; s[i]; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            lead = lead && s[i] == '0';
            *digits += !lead;
        } else if (s[i] == '.' && !point) {
            point = 1;
        } else {
            break;
        }
    }
    if (i == first || (i == first + 1 && point))
        return 0;
    if ((s[i] == 'e' || s[i] == 'E') && (s[i + 1] == '-' || s[i + 1] == '+' ||
                                         (s[i + 1] >= '0' && s[i + 1] <= '9'))) {
        size_t j = i + 1 + (s[i + 1] == '-' || s[i + 1] == '+');
        size_t k = j;
        while (s[k] >= '0' && s[k] <= '9')
            k++;
        if (k > j) {
            i = k;
            expo = 1;
        }
    }
    return point || expo ? i : 0;
}

void tui_round_numbers(const char *in, char *out, size_t len)
{
    size_t o = 0;
    if (!len)
        return;
    for (size_t i = 0; in[i] && o + 1 < len;) {
        int digits;
        size_t n = (i == 0 || number_edge(in[i - 1])) ? number_at(in + i, &digits) : 0;
        if (n && digits > 6 && number_edge(in[i + n])) {
            char num[64], buf[32];
            snprintf(num, sizeof num, "%.*s", (int)(n < 63 ? n : 63), in + i);
            snprintf(buf, sizeof buf, "%.4g", strtod(num, NULL));
            size_t bl = strlen(buf);
            if (o + bl + 1 > len)
                break;
            memcpy(out + o, buf, bl);
            o += bl;
            i += n;
            continue;
        }
        out[o++] = in[i++];
    }
    out[o] = '\0';
}
