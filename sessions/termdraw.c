/* termdraw.c — maps drawn into the terminal by commands (termdraw.h). */
#include "termdraw.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "interp_internal.h"

enum { LABEL_W = 8, MAX_COLS = 81, MIN_COLS = 21 };

/* The locale's character set is UTF-8 (LC_ALL, else LC_CTYPE, else LANG,
 * the first one set: the program does not switch locales outside the
 * workbench). */
static int utf8_locale(void)
{
    static const char *const vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
    }
    return 0;
}

int term_rich(const cs_interp *in)
{
    FILE *out = in->opts.out ? in->opts.out : stdout;
    const char *term = getenv("TERM");
    return !in->opts.json && isatty(fileno(out)) && term && strcmp(term, "dumb") &&
           utf8_locale() && !getenv("CSREG_TUI_ASCII");
}

int term_canvas(const cs_interp *in, double x0, double x1, double y0, double y1,
                cs_heat_canvas *c)
{
    int cols = 61;
    FILE *out = in->opts.out ? in->opts.out : stdout;
    struct winsize ws;
    if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        cols = ws.ws_col - LABEL_W - 2;
    cols = cols > MAX_COLS ? MAX_COLS : cols < MIN_COLS ? MIN_COLS : cols;
    cols -= cols % 2 == 0;
    /* about square cells: a character is twice as tall as wide */
    int rows = (cols + 1) / 2;
    int ny = term_rich(in) ? 2 * rows - 1 : rows - (rows % 2 == 0);
    return cs_heat_canvas_init(c, cols, ny, x0, x1, y0, y1);
}

void term_print(const cs_interp *in, cs_result *res, const cs_heat_canvas *c,
                const char *const *legend, size_t nlegend)
{
    int rich = term_rich(in);
    char *rows = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&rows, &len);
    if (!m)
        return;
    cs_heat_print(c, m, rich);
    fclose(m);
    int nrows = rich ? (c->ny + 1) / 2 : c->ny;
    const char *line = rows;
    for (int r = 0; r < nrows && line && *line; r++) {
        const char *eol = strchr(line, '\n');
        int n = eol ? (int)(eol - line) : (int)strlen(line);
        char label[32] = "";
        if (r == 0 || r == nrows - 1 || r == (nrows - 1) / 2) {
            /* the y of the row's (upper) pixel */
            int px = rich ? 2 * r : r;
            double y = c->y1 - (double)px / (c->ny - 1) * (c->y1 - c->y0);
            snprintf(label, sizeof label, "%.3g", y == 0 ? 0.0 : y);
        }
        cs_result_text(res, "%*s %s%.*s\n", LABEL_W - 2, label, rich ? "\u2502" : "|", n, line);
        line = eol ? eol + 1 : NULL;
    }
    free(rows);
    char a[32], b[32], mid[32];
    snprintf(a, sizeof a, "%.3g", c->x0);
    snprintf(b, sizeof b, "%.3g", c->x1);
    double xm = 0.5 * (c->x0 + c->x1);
    snprintf(mid, sizeof mid, "%.3g", xm == 0 ? 0.0 : xm);
    int w = c->nx, pm = (w - 1) / 2 - (int)strlen(mid) / 2, pb = w - (int)strlen(b);
    char axis[256];
    memset(axis, ' ', sizeof axis);
    memcpy(axis, a, strlen(a));
    if (pm > (int)strlen(a) && pm + (int)strlen(mid) < pb)
        memcpy(axis + pm, mid, strlen(mid));
    memcpy(axis + pb, b, strlen(b));
    axis[w] = '\0';
    cs_result_text(res, "%*s  %s\n", LABEL_W - 2, "", axis);
    for (size_t k = 0; k < nlegend; k++)
        cs_result_text(res, "%s\n", legend[k]);
}

void term_legend_add(const cs_interp *in, int colour, const char *text, char *buf, size_t len)
{
    size_t used = strlen(buf);
    if (used >= len)
        return;
    if (term_rich(in))
        snprintf(buf + used, len - used, "%s\033[38;5;%dm\u2580\033[0m %s", used ? "  " : "",
                 cs_heat_xterm(colour), text);
    else
        snprintf(buf + used, len - used, "%s%c %s", used ? "  " : "", cs_heat_ascii(colour),
                 text);
}

void term_layer_legend(const cs_interp *in, unsigned layers, char *buf, size_t len)
{
    static const char *const text[CS_PLOT_NLAYERS] = {
        "target set", "feasible set Ax=b", "x*", "start", "path", "iterate"};
    buf[0] = '\0';
    for (unsigned k = 0; k < CS_PLOT_NLAYERS; k++)
        if (layers & (1u << k))
            term_legend_add(in, cs_heat_layer_colour(1u << k), text[k], buf, len);
}
