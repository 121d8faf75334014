/* tui_regs.c — the Regularizers panel: every regularizer with its short
 * formula; the current one is marked, the highlighted one is what Enter or
 * `p` selects (by issuing `reg NAME`). Wide panels add the target set; a
 * narrow one lists the names and shows the highlighted entry's whole
 * formula and target set, wrapped, under the list. Focused, it takes
 * Up/Down and PgUp/PgDn for its list; not focused, the highlight follows
 * the current regularizer (so the detail is of the one in use). */
#include <string.h>

#include "tui_internal.h"

/* The highlighted entry below the list: a rule with its name, then its
 * formula and target set wrapped into the rows from `top` to the frame. */
static void draw_detail(WINDOW *w, int top, int h, int wd, const cs_view_reg *r)
{
    char rule[64];
    snprintf(rule, sizeof rule, "%s %s ", tui_cap.utf8 ? "─" : "-", r->name);
    tui_putn(w, top, 1, wd - 2, rule);
    char text[512];
    snprintf(text, sizeof text, "%s; zero on %s", r->formula, r->target);
    size_t st[16], ln[16];
    int n = tui_wrap(text, wd - 3, st, ln, 16);
    for (int k = 0; k < n && top + 1 + k < h - 1; k++) {
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(ln[k] < sizeof line ? ln[k] : sizeof line - 1),
                 text + st[k]);
        tui_putn(w, top + 1 + k, 2, wd - 3, line);
    }
}

void tui_regs_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    int focused = t->focus == TUI_FOCUS_REGS;
    int rows = h - 2;
    int n = (int)cs_view_reg_count();
    if (rows <= 0 || n == 0)
        return;
    const char *cur = t->snap ? t->snap->reg : "";
    for (int i = 0; !focused && i < n; i++) {
        cs_view_reg info;
        if (!cs_view_reg_at((size_t)i, &info) && !strcmp(info.name, cur))
            t->reg_sel = i;
    }
    if (t->reg_sel < 0)
        t->reg_sel = 0;
    if (t->reg_sel >= n)
        t->reg_sel = n - 1;
    /* narrow: names only, the highlighted one's formula below, whole (the
     * list gives it the rows it needs and scrolls; at least 3 rows stay) */
    int narrow = wd < 40, detail = 0;
    cs_view_reg sel;
    if (narrow && rows >= 8 && !cs_view_reg_at((size_t)t->reg_sel, &sel)) {
        char text[512];
        size_t st[16], ln[16];
        snprintf(text, sizeof text, "%s; zero on %s", sel.formula, sel.target);
        detail = 1 + tui_wrap(text, wd - 3, st, ln, 16);
        detail = detail > rows - 3 ? rows - 3 : detail;
    }
    rows -= detail;
    if (t->reg_sel < t->reg_top)
        t->reg_top = t->reg_sel;
    if (t->reg_sel >= t->reg_top + rows)
        t->reg_top = t->reg_sel - rows + 1;
    if (t->reg_top > n - rows)
        t->reg_top = n - rows > 0 ? n - rows : 0;
    for (int r = 0; r < rows && t->reg_top + r < n; r++) {
        int i = t->reg_top + r;
        cs_view_reg info;
        if (cs_view_reg_at((size_t)i, &info))
            break;
        int is_cur = strcmp(info.name, cur) == 0;
        int attr = 0;
        if (i == t->reg_sel && focused)
            attr = A_REVERSE;
        else if (i == t->reg_sel)
            attr = A_UNDERLINE;
        if (is_cur)
            attr |= A_BOLD;
        wattron(w, attr);
        char line[512];
        const char *mark = is_cur ? (tui_cap.utf8 ? "●" : "*") : " ";
        if (wd >= 70)
            snprintf(line, sizeof line, "%s %-7s %-34.34s %s", mark, info.name, info.formula,
                     info.target);
        else if (detail)
            snprintf(line, sizeof line, "%s %s", mark, info.name);
        else
            snprintf(line, sizeof line, "%s %-7s %s", mark, info.name, info.formula);
        /* pad so the highlight spans the panel */
        size_t len = strlen(line);
        while (len + 1 < sizeof line && (int)len < wd)
            line[len++] = ' ';
        line[len] = '\0';
        tui_putn(w, 1 + r, 1, wd - 2, line);
        wattroff(w, attr);
    }
    if (detail)
        draw_detail(w, 1 + rows, h, wd, &sel);
    if (n > rows) {  /* scroll marks (the lower one on the detail's rule) */
        if (t->reg_top > 0)
            tui_put(w, 0, wd - 3, tui_cap.utf8 ? "▲" : "^");
        if (t->reg_top + rows < n)
            tui_put(w, detail ? 1 + rows : h - 1, wd - 3, tui_cap.utf8 ? "▼" : "v");
    }
}

int tui_regs_key(tui *t, int ch)
{
    int n = (int)cs_view_reg_count(), sel = t->reg_sel;
    switch (ch) {
    case KEY_UP: sel--; break;
    case KEY_DOWN: sel++; break;
    case KEY_PPAGE: sel -= 8; break;
    case KEY_NPAGE: sel += 8; break;
    default: return 0;
    }
    t->reg_sel = sel < 0 ? 0 : sel >= n ? n - 1 : sel;
    return 1;
}
