/* tui_regs.c — the Regularizers panel: every regularizer with its short
 * formula; the current one is marked, the highlighted one is what Enter or
 * `p` selects (by issuing `reg NAME`). Wide panels add the target set. */
#include <string.h>

#include "tui_internal.h"

void tui_regs_draw(tui *t, WINDOW *w)
{
    int h, wd;
    getmaxyx(w, h, wd);
    int focused = t->focus == TUI_FOCUS_REGS;
    tui_panel_box(w, "Regularizers", focused);
    int rows = h - 2;
    int n = (int)cs_view_reg_count();
    if (rows <= 0 || n == 0)
        return;
    if (t->reg_sel < 0)
        t->reg_sel = 0;
    if (t->reg_sel >= n)
        t->reg_sel = n - 1;
    if (t->reg_sel < t->reg_top)
        t->reg_top = t->reg_sel;
    if (t->reg_sel >= t->reg_top + rows)
        t->reg_top = t->reg_sel - rows + 1;
    if (t->reg_top > n - rows)
        t->reg_top = n - rows > 0 ? n - rows : 0;
    const char *cur = t->snap ? t->snap->reg : "";
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
    if (n > rows) {  /* scroll marks */
        if (t->reg_top > 0)
            tui_put(w, 0, wd - 3, tui_cap.utf8 ? "▲" : "^");
        if (t->reg_top + rows < n)
            tui_put(w, h - 1, wd - 3, tui_cap.utf8 ? "▼" : "v");
    }
}
