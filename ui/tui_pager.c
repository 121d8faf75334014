/* tui_pager.c — long output over the panels: `help`, `regs`, `nnreport`,
 * `trace rules` and every other command whose output is taller than the
 * message area open here by themselves (o opens the last one again).
 * Up/Down, PgUp/PgDn, Home/End scroll; / types a term, Enter finds it,
 * n and N go to the next and previous line holding it; q or Esc closes.
 * Numbers are rounded for reading as in the messages. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tui_internal.h"

void tui_pager_close(tui *t)
{
    if (!t->pager)
        return;
    free(t->pager->text);
    free(t->pager->line);
    free(t->pager);
    t->pager = NULL;
}

void tui_pager_open(tui *t, const char *text, const char *title)
{
    tui_pager_close(t);
    tui_pager *p = calloc(1, sizeof *p);
    size_t len = strlen(text);
    char *copy = p ? malloc(2 * len + 1) : NULL;
    if (!copy) {
        free(p);
        return;
    }
    tui_round_numbers(text, copy, 2 * len + 1);
    size_t n = 1;
    for (const char *c = copy; *c; c++)
        n += *c == '\n';
    p->line = malloc(n * sizeof *p->line);
    if (!p->line) {
        free(copy);
        free(p);
        return;
    }
    p->text = copy;
    for (char *c = copy, *eol; c; c = eol ? eol + 1 : NULL) {
        eol = strchr(c, '\n');
        if (eol)
            *eol = '\0';
        if (*c || eol)   /* no empty last line after the final newline */
            p->line[p->n++] = c;
    }
    while (p->n && !p->line[p->n - 1][0])
        p->n--;
    snprintf(p->title, sizeof p->title, "%s", title);
    p->hit = p->n;
    t->pager = p;
}

/* The window's text rows (the frame and the foot line are not). */
static int page_rows(void) { return LINES - 5 > 1 ? LINES - 5 : 1; }

static int contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n))
            return 1;
    return 0;
}

/* The next (dir 1) or previous (-1) line holding the term, from `from`. */
static void find(tui_pager *p, size_t from, int dir)
{
    if (!p->find[0] || !p->n)
        return;
    for (size_t k = 0; k < p->n; k++) {
        size_t i = (from + p->n + (size_t)dir * k) % p->n;
        if (contains(p->line[i], p->find)) {
            p->hit = i;
            size_t rows = (size_t)page_rows();
            if (i < p->top || i >= p->top + rows)
                p->top = i > rows / 3 ? i - rows / 3 : 0;
            return;
        }
    }
    p->hit = p->n;
}

int tui_pager_key(tui *t, int ch)
{
    tui_pager *p = t->pager;
    if (!p)
        return 0;
    size_t rows = (size_t)page_rows(), last = p->n > rows ? p->n - rows : 0;
    if (p->typing) {
        size_t len = strlen(p->find);
        if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
            p->typing = 0;
            find(p, p->top, 1);
        } else if (ch == 27) {
            p->typing = 0;
            p->find[0] = '\0';
        } else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len) {
            p->find[len - 1] = '\0';
        } else if (ch >= 32 && ch < 127 && len + 1 < sizeof p->find) {
            p->find[len] = (char)ch;
            p->find[len + 1] = '\0';
        }
        return 1;
    }
    switch (ch) {
    case 'q': case 27: case 3: tui_pager_close(t); return 1;
    case KEY_UP: case 'k': p->top = p->top ? p->top - 1 : 0; break;
    case KEY_DOWN: case 'j': case '\n': case '\r': p->top = p->top < last ? p->top + 1 : last; break;
    case KEY_PPAGE: case 'b': p->top = p->top > rows ? p->top - rows : 0; break;
    case KEY_NPAGE: case ' ': p->top = p->top + rows < last ? p->top + rows : last; break;
    case KEY_HOME: case 'g': p->top = 0; break;
    case KEY_END: case 'G': p->top = last; break;
    case '/': p->typing = 1; p->find[0] = '\0'; break;
    case 'n': find(p, p->hit < p->n ? p->hit + 1 : p->top, 1); break;
    case 'N': find(p, p->hit < p->n ? p->hit + p->n - 1 : p->top, -1); break;
    default: break;
    }
    if (p->top > last)
        p->top = last;
    return 1;   /* the pager has every key while it is open */
}

void tui_pager_draw(tui *t, WINDOW *unused)
{
    (void)unused;
    tui_pager *p = t->pager;
    if (!p)
        return;
    int h = LINES - 2, w = COLS;
    if (h < 4 || w < 20)
        return;
    WINDOW *win = newwin(h, w, 1, 0);
    if (!win)
        return;
    char title[220];
    snprintf(title, sizeof title, "%s (%zu lines)", p->title, p->n);
    tui_panel_box(win, title, 1);
    int rows = h - 3;
    for (int r = 0; r < rows && p->top + (size_t)r < p->n; r++) {
        size_t i = p->top + (size_t)r;
        int attr = i == p->hit ? A_REVERSE : 0;
        const char *text = p->line[i];
        for (int g = 0; p->glyphs && g < TUI_NGLYPHS && text == p->line[i]; g++) {
            size_t gl = strlen(tui_glyph_text(g));
            if (!strncmp(text, tui_glyph_text(g), gl) && text[gl] == ' ') {
                tui_glyph(win, 1 + r, 1, g);   /* as on the map */
                text += gl;
            }
        }
        int x = 1 + (text != p->line[i]);
        wattron(win, attr);
        tui_putn(win, 1 + r, x, w - 1 - x, text);
        wattroff(win, attr);
    }
    char foot[200];
    size_t end = p->top + (size_t)rows < p->n ? p->top + (size_t)rows : p->n;
    if (p->typing)
        snprintf(foot, sizeof foot, " find: %s_ (Enter finds, Esc drops) ", p->find);
    else
        snprintf(foot, sizeof foot, " lines %zu-%zu of %zu%s%s  arrows PgUp PgDn scroll  / find"
                 "%s  q closes ", p->n ? p->top + 1 : 0, end, p->n,
                 p->find[0] && p->hit == p->n ? "  not found: " : "",
                 p->find[0] && p->hit == p->n ? p->find : "", p->find[0] ? "  n/N next/prev" : "");
    wattron(win, A_REVERSE);
    tui_putn(win, h - 2, 1, w - 2, foot);
    wattroff(win, A_REVERSE);
    wnoutrefresh(win);
    delwin(win);
}
