/* plot_common.c — terminals, text, labels and data blocks shared by the
 * plot kinds. */
#include "plot_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cs_reg.h"

/* Okabe & Ito (2008), colour-blind safe; yellow left out (unreadable on
 * white), grey added last. */
const char *const plot_okabe_ito[PLOT_LINECOLOURS] = {
    "#0072B2", "#D55E00", "#009E73", "#E69F00",
    "#CC79A7", "#56B4E9", "#000000", "#999999",
};
/* Point types: filled circle, square, triangle up/down, diamond, open... */
static const int line_pt[PLOT_LINECOLOURS] = {7, 5, 9, 11, 13, 6, 4, 8};

/* Legend labels in the paper's notation (appendix figures: ℓ_{bin,H},
 * ℓ_{bin,si}, ℓ̃_{bin}, ℓ_{bin,exp}, ℓ_μ, ...): the regularizer table's
 * label fields, and these for the names that are not regularizers. */
typedef struct method_label {
    const char *enh, *plain;   /* gnuplot enhanced text, and plain */
    int has_base;              /* holder, si: base=bin|osb|ter goes in the subscript */
} method_label;

static const struct {
    const char *name, *enh, *plain;
} other_labels[] = {
    {"custom", "custom", "custom"},
    {"none", "no regularizer", "no regularizer"},
    {"fista", "FISTA", "FISTA"},
    {"dr", "Douglas–Rachford", "Douglas–Rachford"},
};

static int find_label(const char *name, size_t len, method_label *out)
{
    char key[64];
    if (len >= sizeof key)
        return -1;
    memcpy(key, name, len);
    key[len] = '\0';
    const cs_reg_info *info = cs_reg_lookup(key);
    if (info && info->label) {
        *out = (method_label){info->label, info->label_plain, info->form != CS_FORM_NONE};
        return 0;
    }
    for (size_t i = 0; i < sizeof other_labels / sizeof other_labels[0]; i++)
        if (!strcmp(other_labels[i].name, key)) {
            *out = (method_label){other_labels[i].enh, other_labels[i].plain, 0};
            return 0;
        }
    return -1;
}

/* Text that means the same in enhanced and plain text (no markup
 * characters ^ _ { } @ & ~ \ and nothing a reader would not expect). */
static int safe_word(const char *s, size_t len)
{
    if (len == 0 || len > 32)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-",
                    s[i]))
            return 0;
    return 1;
}

static const char *key_symbol(const char *key, size_t len)
{
    static const struct { const char *key, *sym; } syms[] = {
        {"beta", "β"}, {"alpha", "α"}, {"eps", "ε"}, {"lambda", "λ"}, {"mu", "μ"},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        if (strlen(syms[i].key) == len && !strncmp(syms[i].key, key, len))
            return syms[i].sym;
    return NULL;
}

/* The label of a method with keys, "NAME:k=v[:k=v...]" as sweeps write
 * them (methods=beta:beta=learn,holder:base=ter:p=3): the base label, with
 * base=osb|ter of holder/si in the subscript, then ", k=v" per other key
 * (Greek letters for beta, alpha, eps; "learned β" for beta=learn). 0 and
 * the label in buf, or -1 when NAME is unknown or a key or value is not a
 * plain word (the caller then shows the text literally). */
static int keyed_label(const char *name, int enhanced, char *buf, size_t cap)
{
    const char *colon = strchr(name, ':');
    if (!colon)
        return -1;
    method_label ml;
    if (find_label(name, (size_t)(colon - name), &ml) < 0)
        return -1;
    int hs = ml.has_base;
    char base[64];
    snprintf(base, sizeof base, "%s", enhanced ? ml.enh : ml.plain);
    char tail[256] = "";
    size_t used = 0;
    for (const char *p = colon + 1; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq)
            return -1;
        size_t kl = (size_t)(eq - p), vl = len - kl - 1;
        const char *v = eq + 1;
        if (!safe_word(p, kl) || !safe_word(v, vl))
            return -1;
        if (hs && kl == 4 && !strncmp(p, "base", 4)) {
            method_label bl;
            if (vl != 3 || find_label(v, vl, &bl) < 0 || bl.has_base)
                return -1;   /* a base is a plain regularizer named in three letters */
            /* "ℓ_{bin,H}" -> "ℓ_{ter,H}": the base sits right after "_{" or "_" */
            char *b = strstr(base, "bin");
            if (b)
                memcpy(b, v, 3);
        } else {
            const char *sym = key_symbol(p, kl);
            int n;
            if (sym && !strcmp(sym, "β") && vl == 5 && !strncmp(v, "learn", 5))
                n = snprintf(tail + used, sizeof tail - used, ", learned β");
            else if (sym)
                n = snprintf(tail + used, sizeof tail - used, ", %s=%.*s", sym, (int)vl, v);
            else
                n = snprintf(tail + used, sizeof tail - used, ", %.*s=%.*s", (int)kl, p,
                             (int)vl, v);
            if (n < 0 || (size_t)n >= sizeof tail - used)
                return -1;
            used += (size_t)n;
        }
        if (!end)
            break;
        p = end + 1;
    }
    if ((size_t)snprintf(buf, cap, "%s%s", base, tail) >= cap)
        return -1;
    return 0;
}

/* Labels with keys are built per call: the text lives in a per-thread
 * buffer until the next call on the same thread. */
static _Thread_local char keyed_buf[384];

const char *cs_plot_method_label(const char *name)
{
    if (!name)
        return NULL;
    method_label ml;
    if (find_label(name, strlen(name), &ml) == 0)
        return ml.enh;
    if (keyed_label(name, 1, keyed_buf, sizeof keyed_buf) == 0)
        return keyed_buf;
    return NULL;
}

const char *plot_method_label(const plot_ctx *c, const char *name, const char *fallback,
                              int *literal)
{
    if (!name) {
        *literal = 1;
        return fallback;
    }
    method_label ml;
    if (find_label(name, strlen(name), &ml) == 0) {
        *literal = 0;
        return c->enhanced ? ml.enh : ml.plain;
    }
    if (keyed_label(name, c->enhanced, keyed_buf, sizeof keyed_buf) == 0) {
        *literal = 0;
        return keyed_buf;
    }
    *literal = 1;
    return name;
}

int cs_plot_term_from_path(const char *path, cs_plot_term *term, cs_err *err)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (dot && (!slash || dot > slash)) {
        static const struct { const char *ext; cs_plot_term t; } exts[] = {
            {".png", CS_PLOT_TERM_PNG}, {".svg", CS_PLOT_TERM_SVG},
            {".pdf", CS_PLOT_TERM_PDF}, {".gif", CS_PLOT_TERM_GIF},
        };
        for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
            if (strcasecmp(dot, exts[i].ext) == 0) {
                *term = exts[i].t;
                return CS_OK;
            }
    }
    return cs_fail(err, CS_EINVAL,
                   "cannot tell the plot format from '%s': use .png, .svg, .pdf or .gif",
                   path ? path : "");
}

int cs_plot_available(cs_err *err)
{
    return cs_gp_detect(NULL, err);
}

/* ---- begin / finish ---------------------------------------------------- */

/* An SVG's inch: the CSS one. Its fonts are scaled by 96/72 so that their
 * sizes are points of that inch, as in a PDF. */
#define SVG_PX_PER_IN 96

/* Sizes in inches: for PDF and SVG only, each 0.5 to 100 inches. */
static int plot_size_inches(plot_ctx *c, const cs_plot_opts *o, const char *kind, cs_err *err)
{
    if (o->width_in == 0 && o->height_in == 0)
        return CS_OK;
    if (c->term != CS_PLOT_TERM_PDF && c->term != CS_PLOT_TERM_SVG)
        return cs_fail(err, CS_EINVAL, "%s: a size in inches is for .pdf and .svg only", kind);
    if (!(o->width_in >= CS_PLOT_MIN_IN && o->width_in <= CS_PLOT_MAX_IN &&
          o->height_in >= CS_PLOT_MIN_IN && o->height_in <= CS_PLOT_MAX_IN))
        return cs_fail(err, CS_EINVAL, "%s: plot size %g x %g in out of range (%g to %g inches)",
                       kind, o->width_in, o->height_in, CS_PLOT_MIN_IN, CS_PLOT_MAX_IN);
    c->win = o->width_in;
    c->hin = o->height_in;
    if (c->term == CS_PLOT_TERM_SVG) {
        c->w = (int)(c->win * SVG_PX_PER_IN + 0.5);
        c->h = (int)(c->hin * SVG_PX_PER_IN + 0.5);
    }
    return CS_OK;
}

int cs_plot_check_font(const char *font, cs_err *err)
{
    if (!font)
        return CS_OK;
    size_t n = strlen(font);
    if (n == 0 || n > 200 || !strcmp(font, ","))
        return cs_fail(err, CS_EINVAL, "expected NAME,SIZE (e.g. Helvetica,10)");
    for (const unsigned char *p = (const unsigned char *)font; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return cs_fail(err, CS_EINVAL, "the font name holds a control character");
    const char *comma = strrchr(font, ',');
    if (comma) {
        char *end;
        double pt = strtod(comma + 1, &end);
        /* plain decimals only: strtod would take hex, inf and nan */
        if (end == comma + 1 || *end || strpbrk(comma + 1, "xXnNiI") || !(pt >= 1 && pt <= 200))
            return cs_fail(err, CS_EINVAL, "the size after the comma must be 1 to 200 points "
                           "(e.g. Helvetica,10)");
    }
    return CS_OK;
}

int plot_begin(plot_ctx *c, const cs_plot_opts *o, size_t frames, const char *kind,
               cs_err *err)
{
    memset(c, 0, sizeof *c);
    cs_gpbuf_init(&c->body);
    if (!o)
        return cs_fail(err, CS_EINVAL, "%s: no plot options", kind);
    c->o = o;
    c->term = o->term;
    if (c->term == CS_PLOT_TERM_AUTO) {
        if (!o->out)
            return cs_fail(err, CS_EINVAL, "%s: no output file (out=FILE.png|svg|pdf|gif)",
                           kind);
        int rc = cs_plot_term_from_path(o->out, &c->term, err);
        if (rc != CS_OK)
            return rc;
    }
    int text_term = c->term == CS_PLOT_TERM_DUMB;
    if (c->term != CS_PLOT_TERM_DUMB && c->term != CS_PLOT_TERM_WINDOW) {
        if (!o->out)
            return cs_fail(err, CS_EINVAL, "%s: no output file", kind);
        int rc = o->script || o->save_only ? cs_gp_check_name(o->out, err)
                                           : cs_gp_check_path(o->out, err);
        if (rc != CS_OK)
            return rc;
    }
    if (text_term && !o->text && !o->script && !o->save_only)
        return cs_fail(err, CS_EINVAL, "%s: term=dumb needs a text stream", kind);
    if (o->width < 0 || o->height < 0 || o->width > 20000 || o->height > 20000)
        return cs_fail(err, CS_EINVAL, "%s: plot size %d x %d out of range", kind, o->width,
                       o->height);
    c->w = o->width ? o->width : (text_term ? 100 : 1000);
    c->h = o->height ? o->height : (text_term ? 32 : 700);
    if (text_term && (c->w < 20 || c->h < 10))
        return cs_fail(err, CS_EINVAL, "%s: text plot size %d x %d too small (min 20 x 10)",
                       kind, c->w, c->h);
    if (!text_term && (c->w < 100 || c->h < 100))
        return cs_fail(err, CS_EINVAL, "%s: plot size %d x %d too small (min 100 x 100)",
                       kind, c->w, c->h);
    int rc = plot_size_inches(c, o, kind, err);
    if (rc != CS_OK)
        return rc;
    cs_err sub;
    if (cs_plot_check_font(o->font, &sub) != CS_OK)
        return cs_fail(err, CS_EINVAL, "%s: font '%s': %s", kind, o->font, sub.msg);
    c->enhanced = !text_term;
    c->animate = c->term == CS_PLOT_TERM_GIF && frames > 1;
    if (c->term == CS_PLOT_TERM_WINDOW && !o->script && !o->save_only) {
        const char *d = getenv("DISPLAY");
        if (!d || !*d)
            return cs_fail(err, CS_EUNSUPPORTED, "%s: no live window: DISPLAY is not set", kind);
    }
    if (!o->script && !o->save_only) {
        cs_gp_info info;
        rc = cs_gp_detect(&info, err);
        if (rc != CS_OK)
            return rc;
        unsigned need = 0;
        const char *name = "";
        switch (c->term) {
        case CS_PLOT_TERM_PNG: need = CS_GP_TERM_PNGCAIRO | CS_GP_TERM_PNG; name = "pngcairo"; break;
        case CS_PLOT_TERM_SVG: need = CS_GP_TERM_SVG; name = "svg"; break;
        case CS_PLOT_TERM_PDF: need = CS_GP_TERM_PDFCAIRO; name = "pdfcairo"; break;
        case CS_PLOT_TERM_GIF: need = CS_GP_TERM_GIF; name = "gif"; break;
        case CS_PLOT_TERM_DUMB: need = CS_GP_TERM_DUMB; name = "dumb"; break;
        default:
            need = CS_GP_TERM_QT | CS_GP_TERM_WXT | CS_GP_TERM_X11;
            name = "qt, wxt or x11 (install gnuplot-qt)";
            break;
        }
        if (!(info.terms & need))
            return cs_fail(err, CS_EUNSUPPORTED, "%s: this gnuplot has no %s terminal", kind,
                           name);
    }
    return CS_OK;
}

static void prologue(const plot_ctx *c, cs_gpbuf *p)
{
    unsigned terms = CS_GP_TERM_PNGCAIRO | CS_GP_TERM_QT;
    if (!c->o->script && !c->o->save_only) {
        cs_gp_info info;
        if (cs_gp_detect(&info, NULL) == CS_OK)
            terms = info.terms;
    }
    cs_gpbuf_printf(p, "# drawn by csreg\nset encoding utf8\n");
    cs_gpbuf fb;   /* the font option: the user's text quoted */
    cs_gpbuf_init(&fb);
    cs_gpbuf_printf(&fb, "font ");
    cs_gpbuf_quote(&fb, c->o->font ? c->o->font : "sans,12");
    if (fb.failed)
        p->failed = 1;
    const char *font = cs_gpbuf_str(&fb);
    switch (c->term) {
    case CS_PLOT_TERM_PNG:
        cs_gpbuf_printf(p, "set terminal %s size %d,%d enhanced %s background '#ffffff'\n",
                        (terms & CS_GP_TERM_PNGCAIRO) ? "pngcairo" : "png", c->w, c->h, font);
        break;
    case CS_PLOT_TERM_SVG:
        cs_gpbuf_printf(p, "set terminal svg size %d,%d enhanced %s%s background '#ffffff'\n",
                        c->w, c->h, font, c->win > 0 ? " fontscale 1.333333" : "");
        break;
    case CS_PLOT_TERM_PDF:
        if (c->win > 0)
            cs_gpbuf_printf(p, "set terminal pdfcairo size %gin,%gin enhanced %s\n", c->win,
                            c->hin, font);
        else
            cs_gpbuf_printf(p, "set terminal pdfcairo size %.2fin,%.2fin enhanced %s\n",
                            c->w / 100.0, c->h / 100.0, font);
        break;
    case CS_PLOT_TERM_GIF:
        if (c->animate)
            cs_gpbuf_printf(p, "set terminal gif animate delay %d loop 0 size %d,%d enhanced %s"
                            " background '#ffffff'\n",
                            c->o->frame_delay > 0 ? c->o->frame_delay : 80, c->w, c->h, font);
        else
            cs_gpbuf_printf(p, "set terminal gif size %d,%d enhanced %s background '#ffffff'\n",
                            c->w, c->h, font);
        break;
    case CS_PLOT_TERM_DUMB:
        cs_gpbuf_printf(p, "set terminal dumb size %d,%d\n", c->w, c->h);
        break;
    default: {
        const char *t = (terms & CS_GP_TERM_QT) ? "qt" : (terms & CS_GP_TERM_WXT) ? "wxt" : "x11";
        cs_gpbuf_printf(p, "set terminal %s size %d,%d enhanced %s persist\n", t, c->w, c->h,
                        strcmp(t, "x11") == 0 ? "" : font);
        break;
    }
    }
    cs_gpbuf_free(&fb);
    for (int i = 0; i < PLOT_LINECOLOURS; i++)
        cs_gpbuf_printf(p, "set linetype %d lc rgb '%s' lw 2 pt %d ps 1.2\n", i + 1,
                        plot_okabe_ito[i], line_pt[i]);
    cs_gpbuf_printf(p, "set linetype cycle %d\n", PLOT_LINECOLOURS);
    cs_gpbuf_printf(p, "set style line 100 lc rgb '#c8c8c8' lw 1 dt 3\n"
                       "set border lw 1.2\nset tics out nomirror\n");
}

int plot_finish(plot_ctx *c, cs_err *err)
{
    cs_gpbuf pro, text;
    cs_gpbuf_init(&pro);
    cs_gpbuf_init(&text);
    prologue(c, &pro);
    int rc = CS_OK;
    if (pro.failed || c->body.failed) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory building the plot");
    } else {
        const char *path = (c->term == CS_PLOT_TERM_DUMB || c->term == CS_PLOT_TERM_WINDOW)
                               ? NULL : c->o->out;
        if (!c->o->save_only)
            rc = cs_gp_render(cs_gpbuf_str(&pro), cs_gpbuf_str(&c->body), path,
                              c->term == CS_PLOT_TERM_DUMB ? &text : NULL, c->o->script,
                              c->o->cancel, err);
        if (rc == CS_OK && c->term == CS_PLOT_TERM_DUMB && !c->o->script && !c->o->save_only &&
            text.len > 0 && fwrite(text.s, 1, text.len, c->o->text) != text.len)
            rc = cs_fail(err, CS_EIO, "cannot write the text plot");
        /* the script that redraws what was just drawn (or would be) */
        if (rc == CS_OK && c->o->save_script && !c->o->script)
            rc = cs_gp_save_script(c->o->save_script, c->o->script_note, cs_gpbuf_str(&pro),
                                   cs_gpbuf_str(&c->body),
                                   path && c->o->script_output ? c->o->script_output : path,
                                   err);
    }
    cs_gpbuf_free(&pro);
    cs_gpbuf_free(&text);
    cs_gpbuf_free(&c->body);
    return rc;
}

void plot_abort(plot_ctx *c)
{
    cs_gpbuf_free(&c->body);
}

/* ---- text ------------------------------------------------------------------ */

void plot_set_text(plot_ctx *c, const char *what, const char *text, int literal)
{
    if (!text) {
        cs_gpbuf_printf(&c->body, "unset %s\n", what);
        return;
    }
    cs_gpbuf_printf(&c->body, "set %s ", what);
    cs_gpbuf_quote(&c->body, text);
    cs_gpbuf_printf(&c->body, " %s\n", literal || !c->enhanced ? "noenhanced" : "enhanced");
}

void plot_elem_title(plot_ctx *c, const char *text, int literal)
{
    cs_gpbuf_printf(&c->body, " title ");
    cs_gpbuf_quote(&c->body, text);
    cs_gpbuf_printf(&c->body, " %s", literal || !c->enhanced ? "noenhanced" : "enhanced");
}

void plot_title(plot_ctx *c, const char *def, int def_literal)
{
    const char *t = c->o->title ? c->o->title : def;
    int literal = c->o->title ? 1 : def_literal;
    plot_set_text(c, "title", (t && *t) ? t : NULL, literal);
}

/* ---- data ------------------------------------------------------------------- */

void plot_datablock_begin(plot_ctx *c, const char *name)
{
    cs_gpbuf_printf(&c->body, "%s << EOD\n", name);
}

void plot_datablock_end(plot_ctx *c)
{
    cs_gpbuf_printf(&c->body, "EOD\n");
}

void plot_row(plot_ctx *c, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            cs_gpbuf_append(&c->body, " ", 1);
        cs_gpbuf_num(&c->body, v[i]);
    }
    cs_gpbuf_append(&c->body, "\n", 1);
}

int plot_check_finite(const double *v, size_t n, const char *kind, const char *what,
                      cs_err *err)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return cs_fail(err, CS_ENONFINITE, "%s: %s[%zu] is %s", kind, what, i,
                           isnan(v[i]) ? "NaN" : "infinite");
    return CS_OK;
}
