/* tui_draw.c — the workbench's drawing kit: ring buffers, the message log,
 * colours (a 256-colour heat-map palette when the terminal has it), panel
 * frames, clipped text, sparklines and bar glyphs with ASCII fallbacks. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

tui_caps tui_cap;

/* ---- ring buffers ------------------------------------------------------- */

void tui_ring_clear(tui_ring *r) { r->head = r->len = 0; }

void tui_ring_push(tui_ring *r, double v)
{
    r->v[r->head] = v;
    r->head = (r->head + 1) % TUI_RING_CAP;
    if (r->len < TUI_RING_CAP)
        r->len++;
}

double tui_ring_at(const tui_ring *r, size_t i)
{
    return r->v[(r->head + TUI_RING_CAP - r->len + i) % TUI_RING_CAP];
}

void tui_path_clear(tui_path *p) { p->head = p->len = 0; }

void tui_path_push(tui_path *p, double x, double y)
{
    p->x[p->head] = x;
    p->y[p->head] = y;
    p->head = (p->head + 1) % TUI_PATH_CAP;
    if (p->len < TUI_PATH_CAP)
        p->len++;
}

void tui_path_at(const tui_path *p, size_t i, double *x, double *y)
{
    size_t k = (p->head + TUI_PATH_CAP - p->len + i) % TUI_PATH_CAP;
    *x = p->x[k];
    *y = p->y[k];
}

/* ---- the message log ---------------------------------------------------- */

static void log_push(tui_log *l, int kind, const char *s, size_t n)
{
    char *copy = strndup(s, n);
    if (!copy)
        return;
    for (char *c = copy; *c; c++)  /* tabs and control bytes would break the layout */
        if ((unsigned char)*c < 32)
            *c = ' ';
    size_t slot = (l->head + l->len) % TUI_LOG_CAP;
    if (l->len == TUI_LOG_CAP) {
        free(l->line[l->head]);
        slot = l->head;
        l->head = (l->head + 1) % TUI_LOG_CAP;
    } else {
        l->len++;
    }
    l->line[slot] = copy;
    l->kind[slot] = kind;
    l->total++;
}

void tui_log_add(tui_log *l, int kind, const char *text)
{
    const char *s = text;
    while (*s) {
        size_t n = strcspn(s, "\n");
        log_push(l, kind, s, n);
        s += n;
        if (*s == '\n')
            s++;
    }
}

void tui_log_free(tui_log *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->line[(l->head + i) % TUI_LOG_CAP]);
    l->head = l->len = 0;
}

const char *tui_log_at(const tui_log *l, size_t i, int *kind)
{
    size_t k = (l->head + i) % TUI_LOG_CAP;
    *kind = l->kind[k];
    return l->line[k];
}

/* ---- colours -------------------------------------------------------------- */

/* The glyph markers: shape, ASCII shape, colours (xterm-256 and basic), the
 * colour's name. */
static const struct {
    const char *utf8, *ascii;
    short xterm, basic;
    const char *colour;
} glyphs[TUI_NGLYPHS] = {
    [TUI_GLYPH_XSTAR] = {"★", "*", 39, COLOR_CYAN, "sky blue"},
    [TUI_GLYPH_START] = {"○", "o", 226, COLOR_YELLOW, "yellow"},
    [TUI_GLYPH_ITERATE] = {"◆", "X", 46, COLOR_GREEN, "green"},
    [TUI_GLYPH_END] = {"●", "#", 231, COLOR_WHITE, "white"},
    [TUI_GLYPH_MARK] = {"×", "x", 196, COLOR_RED, "red"},
    [TUI_GLYPH_SPLIT] = {"■", "L", 208, COLOR_MAGENTA, "orange"},
};

const char *tui_glyph_text(int g) { return tui_cap.utf8 ? glyphs[g].utf8 : glyphs[g].ascii; }
const char *tui_glyph_colour(int g) { return glyphs[g].colour; }

void tui_glyph(WINDOW *w, int y, int x, int g)
{
    int attr = A_BOLD | (tui_cap.color ? COLOR_PAIR(TUI_PAIR_GLYPH + g) : A_REVERSE);
    wattron(w, attr);
    mvwaddstr(w, y, x, tui_glyph_text(g));
    wattroff(w, attr);
}

void tui_colors_init(void)
{
    tui_cap.color = has_colors();
    if (!tui_cap.color)
        return;
    start_color();
    use_default_colors();
    init_pair(TUI_PAIR_TITLE, COLOR_CYAN, -1);
    init_pair(TUI_PAIR_FOCUS, COLOR_BLACK, COLOR_CYAN);
    init_pair(TUI_PAIR_ERR, COLOR_RED, -1);
    init_pair(TUI_PAIR_CMD, COLOR_YELLOW, -1);
    init_pair(TUI_PAIR_DIM, COLOR_BLUE, -1);
    init_pair(TUI_PAIR_OK, COLOR_GREEN, -1);
    init_pair(TUI_PAIR_BAR, COLOR_BLACK, COLOR_GREEN);
    init_pair(TUI_PAIR_HIST, COLOR_CYAN, -1);
    init_pair(TUI_PAIR_HINT, COLOR_BLACK, COLOR_WHITE);
    init_pair(TUI_PAIR_SPARK, COLOR_GREEN, -1);
    for (int g = 0; g < TUI_NGLYPHS; g++)
        init_pair((short)(TUI_PAIR_GLYPH + g),
                  COLORS >= 256 ? glyphs[g].xterm : glyphs[g].basic, COLOR_BLACK);
    if (COLORS < 256 || COLOR_PAIRS < TUI_PAIR_BASE_COUNT + TUI_NCOLORS * (TUI_NCOLORS + 1) ||
        getenv("CSREG_TUI_ASCII"))
        return;
    for (int top = 0; top < TUI_NCOLORS; top++)
        for (int bot = 0; bot < TUI_NCOLORS; bot++)
            init_pair(tui_pair_pixels(top, bot), cs_heat_xterm(top), cs_heat_xterm(bot));
    for (int top = 0; top < TUI_NCOLORS; top++)
        init_pair(tui_pair_pixels(top, -1), cs_heat_xterm(top), -1);
    tui_cap.rich = tui_cap.utf8;
}

short tui_pair_pixels(int top, int bottom)
{
    if (bottom < 0)
        return (short)(TUI_PAIR_BASE_COUNT + TUI_NCOLORS * TUI_NCOLORS + top);
    return (short)(TUI_PAIR_BASE_COUNT + top * TUI_NCOLORS + bottom);
}

/* ---- text ------------------------------------------------------------------ */

void tui_put(WINDOW *w, int y, int x, const char *text) { tui_putn(w, y, x, 1 << 20, text); }

void tui_putn(WINDOW *w, int y, int x, int width, const char *text)
{
    int maxy, maxx;
    getmaxyx(w, maxy, maxx);
    if (y < 0 || y >= maxy || x >= maxx || x < 0 || width <= 0)
        return;
    /* count display columns (UTF-8 continuation bytes take none) */
    int room = maxx - x < width ? maxx - x : width;
    size_t n = 0;
    int cols = 0;
    while (text[n]) {
        unsigned char c = (unsigned char)text[n];
        size_t len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        if (cols + 1 > room)
            break;
        for (size_t k = 1; k < len; k++)
            if (!text[n + k])
                len = k;
        n += len;
        cols++;
    }
    mvwaddnstr(w, y, x, text, (int)n);
}

void tui_putf(WINDOW *w, int y, int x, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tui_put(w, y, x, buf);
}

void tui_shorten_words(const char *text, int cols, char *out, size_t len)
{
    int n = 0;   /* display columns */
    for (const char *c = text; *c; c++)
        n += ((unsigned char)*c & 0xc0) != 0x80;
    if (n <= cols) {
        snprintf(out, len, "%s", text);
        return;
    }
    /* the words that fit with room for the ellipsis */
    size_t cut = 0, i = 0;
    for (int c = 0; text[i] && c < cols - 1; i++) {
        c += ((unsigned char)text[i] & 0xc0) != 0x80;
        if (text[i] == ' ')
            cut = i;
    }
    if (!cut)
        cut = i;
    snprintf(out, len, "%.*s%s", (int)cut, text, tui_cap.utf8 ? "…" : "~");
}

void tui_num(char *buf, size_t len, double v)
{
    if (isfinite(v))
        snprintf(buf, len, "%.6g", v);
    else
        snprintf(buf, len, "n/a");
}

void tui_panel_box(WINDOW *w, const char *title, int focused)
{
    werase(w);
    if (focused && tui_cap.color)
        wattron(w, COLOR_PAIR(TUI_PAIR_TITLE));
    if (tui_cap.utf8) {  /* Unicode lines: ACS would need the terminal's charset switch */
        int h, wd;
        getmaxyx(w, h, wd);
        for (int x = 1; x < wd - 1; x++) {
            mvwaddstr(w, 0, x, "─");
            mvwaddstr(w, h - 1, x, "─");
        }
        for (int y = 1; y < h - 1; y++) {
            mvwaddstr(w, y, 0, "│");
            mvwaddstr(w, y, wd - 1, "│");
        }
        mvwaddstr(w, 0, 0, "┌");
        mvwaddstr(w, 0, wd - 1, "┐");
        mvwaddstr(w, h - 1, 0, "└");
        mvwaddstr(w, h - 1, wd - 1, "┘");
    } else {
        box(w, 0, 0);
    }
    if (focused && tui_cap.color)
        wattroff(w, COLOR_PAIR(TUI_PAIR_TITLE));
    int attr = focused ? (tui_cap.color ? COLOR_PAIR(TUI_PAIR_FOCUS) : A_REVERSE) | A_BOLD
                       : A_BOLD;
    wattron(w, attr);
    tui_putf(w, 0, 2, " %s ", title);
    wattroff(w, attr);
}

/* ---- glyphs --------------------------------------------------------------- */

const char *tui_vbar(double frac)
{
    static const char *const utf[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    static const char *const ascii[] = {" ", " ", ".", ".", "o", "o", "O", "O", "#"};
    if (!(frac > 0))
        frac = 0;
    if (frac > 1)
        frac = 1;
    int k = (int)lround(frac * 8);
    return tui_cap.utf8 ? utf[k] : ascii[k];
}

void tui_sparkline(WINDOW *w, int y, int x, int width, const tui_ring *r, int logscale)
{
    if (width <= 0)
        return;
    size_t n = r->len < (size_t)width ? r->len : (size_t)width;
    size_t first = r->len - n;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v = tui_ring_at(r, first + i);
        if (logscale)
            v = v > 0 ? log10(v) : NAN;
        if (isfinite(v)) {
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
    }
    if (tui_cap.color)
        wattron(w, COLOR_PAIR(TUI_PAIR_SPARK));
    for (size_t i = 0; i < n; i++) {
        double v = tui_ring_at(r, first + i);
        if (logscale)
            v = v > 0 ? log10(v) : NAN;
        const char *g;
        if (!isfinite(v))
            g = tui_cap.utf8 ? "·" : "?";
        else
            g = tui_vbar(hi > lo ? 0.125 + 0.875 * (v - lo) / (hi - lo) : 0.5);
        mvwaddstr(w, y, x + (int)i, g);
    }
    if (tui_cap.color)
        wattroff(w, COLOR_PAIR(TUI_PAIR_SPARK));
}
