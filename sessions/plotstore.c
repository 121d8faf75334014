/* plotstore.c — the last data of each plot kind (deep copies kept in the
 * interpreter's CS_EXT_PLOT slot), drawing it, and the plot= key. */
#include "cs_plotstore.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cs_args.h"
#include "cs_file.h"
#include "cs_parse.h"
#include "cs_provenance.h"
#include "interp_internal.h"

/* ---- memory: every copy of one kind lives in one pool ---------------------- */

typedef struct pool {
    void **p;
    size_t n, cap;
    int failed;
} pool;

static void pool_free(pool *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        free(pl->p[i]);
    free(pl->p);
    memset(pl, 0, sizeof *pl);
}

static void *pool_keep(pool *pl, void *q)
{
    if (!q) {
        pl->failed = 1;
        return NULL;
    }
    if (pl->n == pl->cap) {
        size_t cap = pl->cap ? 2 * pl->cap : 16;
        void **np = realloc(pl->p, cap * sizeof *np);
        if (!np) {
            free(q);
            pl->failed = 1;
            return NULL;
        }
        pl->p = np;
        pl->cap = cap;
    }
    pl->p[pl->n++] = q;
    return q;
}

/* Copy count items of size bytes (NULL stays NULL; zero items give NULL). */
static void *pool_dup(pool *pl, const void *src, size_t count, size_t size)
{
    if (!src || count == 0)
        return NULL;
    if (count > SIZE_MAX / size) {
        pl->failed = 1;
        return NULL;
    }
    void *q = pool_keep(pl, malloc(count * size));
    if (q)
        memcpy(q, src, count * size);
    return q;
}

static const char *pool_str(pool *pl, const char *s)
{
    return s ? pool_keep(pl, strdup(s)) : NULL;
}

static const double *dup_vec(pool *pl, const double *v, size_t n)
{
    return pool_dup(pl, v, n, sizeof *v);
}

/* ---- the store ---------------------------------------------------------------- */

enum { K_LANDSCAPE, K_TRAJECTORY, K_SUCCESS, K_TRACE, K_HIST, K_MAXCUT, K_BASINS, K_COUNT };

static const char *const kind_names[K_COUNT] = {"landscape", "trajectory", "success",
                                                "trace", "hist", "maxcut", "basins"};
/* What makes the data: "nothing to plot: run ... first". */
static const char *const kind_source[K_COUNT] = {
    "landscape", "solve on a 2-dimensional problem", "sweep", "solve or step", "hist",
    "maxcut", "basins"};

typedef struct slot {
    int has;
    pool mem;
    const char *title;   /* landscape: title given with the data (NULL: default) */
    union {
        cs_plot_landscape_data land;
        cs_plot_trajectory_data traj;
        cs_plot_success_data success;
        cs_plot_trace_data trace;
        cs_plot_hist_data hist;
        cs_plot_maxcut_data maxcut;
        cs_plot_basins_data basins;
    } d;
} slot;

typedef struct plotstore {
    slot s[K_COUNT];
} plotstore;

static void store_free(void *data)
{
    plotstore *ps = data;
    for (int k = 0; k < K_COUNT; k++)
        pool_free(&ps->s[k].mem);
    free(ps);
}

static plotstore *store_get(cs_interp *in, cs_err *err)
{
    return cs_interp_ext_get(in, CS_EXT_PLOT, sizeof(plotstore), NULL, store_free, NULL, err);
}

static int kind_index(const char *kind)
{
    for (int k = 0; kind && k < K_COUNT; k++)
        if (!strcmp(kind, kind_names[k]))
            return k;
    return -1;
}

/* Start replacing slot k: a fresh pool (the old data is dropped when the
 * copy is complete, so a failed copy leaves the previous data in place). */
typedef struct pending {
    plotstore *ps;
    int k;
    slot next;
} pending;

static int begin(cs_interp *in, int k, const void *d, pending *p, cs_err *err)
{
    memset(p, 0, sizeof *p);
    if (!d)
        return cs_fail(err, CS_EINVAL, "%s: no data to store", kind_names[k]);
    p->ps = store_get(in, err);
    if (!p->ps)
        return CS_ENOMEM;
    p->k = k;
    return CS_OK;
}

static int commit(pending *p, cs_err *err)
{
    if (p->next.mem.failed) {
        pool_free(&p->next.mem);
        return cs_fail(err, CS_ENOMEM, "out of memory storing the %s data", kind_names[p->k]);
    }
    slot *s = &p->ps->s[p->k];
    pool_free(&s->mem);
    *s = p->next;
    s->has = 1;
    return CS_OK;
}

static const cs_plot_curve *copy_curves(pool *pl, const cs_plot_curve *src, size_t n)
{
    cs_plot_curve *t = pool_dup(pl, src, n, sizeof *t);
    for (size_t i = 0; t && i < n; i++) {
        t[i].x = dup_vec(pl, src[i].x, src[i].n);
        t[i].y = dup_vec(pl, src[i].y, src[i].n);
    }
    return t;
}

static const cs_plot_geometry *copy_geo(pool *pl, const cs_plot_geometry *g)
{
    if (!g)
        return NULL;
    cs_plot_geometry *c = pool_dup(pl, g, 1, sizeof *c);
    if (!c)
        return NULL;
    cs_plot_path *p = pool_dup(pl, g->paths, g->npaths, sizeof *p);
    for (size_t i = 0; p && i < g->npaths; i++)
        p[i].xy = g->paths[i].n <= SIZE_MAX / 2 ? dup_vec(pl, g->paths[i].xy, 2 * g->paths[i].n)
                                                : NULL;
    c->paths = p;
    c->npaths = p ? g->npaths : 0;
    return c;
}

static cs_plot_landscape_data copy_land(pool *pl, const cs_plot_landscape_data *d)
{
    cs_plot_landscape_data c = *d;
    c.reg = pool_str(pl, d->reg);
    c.xlabel = pool_str(pl, d->xlabel);
    c.ylabel = pool_str(pl, d->ylabel);
    if (d->nx && d->ny > SIZE_MAX / d->nx)
        pl->failed = 1;
    else
        c.z = dup_vec(pl, d->z, d->nx * d->ny);
    c.target = copy_curves(pl, d->target, d->ntarget);
    c.ntarget = c.target ? d->ntarget : 0;
    c.geo = copy_geo(pl, d->geo);
    c.mark_x = dup_vec(pl, d->mark_x, d->nmarks);
    c.mark_y = dup_vec(pl, d->mark_y, d->nmarks);
    c.mark_label = pool_str(pl, d->mark_label);
    return c;
}

static const cs_plot_series *copy_series(pool *pl, const cs_plot_series *src, size_t n)
{
    cs_plot_series *s = pool_dup(pl, src, n, sizeof *s);
    for (size_t i = 0; s && i < n; i++) {
        s[i].name = pool_str(pl, src[i].name);
        s[i].x = dup_vec(pl, src[i].x, src[i].n);
        s[i].y = dup_vec(pl, src[i].y, src[i].n);
        s[i].err = dup_vec(pl, src[i].err, src[i].n);
    }
    return s;
}

int cs_plotstore_landscape(cs_interp *in, const cs_plot_landscape_data *d, const char *title,
                           cs_err *err)
{
    pending p;
    int rc = begin(in, K_LANDSCAPE, d, &p, err);
    if (rc)
        return rc;
    p.next.d.land = copy_land(&p.next.mem, d);
    p.next.title = pool_str(&p.next.mem, title);
    return commit(&p, err);
}

#define MAX_DRAWN 1001   /* grid points per axis sent to gnuplot */

/* The step (a divisor of n-1) that brings an axis to at most MAX_DRAWN
 * points with both ends kept; 1 when there is none. */
static size_t draw_step(size_t n)
{
    if (n <= MAX_DRAWN)
        return 1;
    for (size_t k = 2; k < n; k++)
        if ((n - 1) % k == 0 && (n - 1) / k + 1 <= MAX_DRAWN)
            return k;
    return 1;
}

/* Deposit the landscape's drawing data in the plot store; *layers (may be
 * NULL) gets what a drawing of it shows. */
int cs_plotstore_landscape_of(cs_interp *in, const char *reg, const cs_landscape *l,
                              const size_t dims[2], int log_scale, int surface, const char *title,
                              const cs_plot_geometry *geo, const double *mark_x,
                              const double *mark_y, size_t nmarks, unsigned *layers, cs_err *err)
{
    size_t sx = draw_step(l->nx), sy = draw_step(l->ny);
    size_t nx = (l->nx - 1) / sx + 1, ny = (l->ny - 1) / sy + 1;
    double *z = l->z;
    if (sx > 1 || sy > 1) {
        z = malloc(nx * ny * sizeof *z);
        if (!z)
            return cs_fail(err, CS_ENOMEM, "out of memory");
        for (size_t j = 0; j < ny; j++)
            for (size_t i = 0; i < nx; i++)
                z[j * nx + i] = l->z[j * sy * l->nx + i * sx];
    }
    cs_plot_curve tc[CS_LANDSCAPE_MAX_TARGETS];
    for (size_t k = 0; k < l->ntarget; k++)
        tc[k] = (cs_plot_curve){l->target[k].x, l->target[k].y, l->target[k].n};
    cs_plot_landscape_data d = {
        .reg = reg,
        .nx = nx, .ny = ny, .x0 = l->x0, .x1 = l->x1, .y0 = l->y0, .y1 = l->y1, .z = z,
        .log_scale = log_scale, .surface = surface,
        .dims = {(int)dims[0], (int)dims[1]},
        .target = l->ntarget ? tc : NULL, .ntarget = l->ntarget, .geo = geo,
        .mark_x = mark_x, .mark_y = mark_y, .nmarks = nmarks};
    if (layers)
        *layers = cs_plot_layers(&d);
    int rc = cs_plotstore_landscape(in, &d, title, err);
    if (z != l->z)
        free(z);
    return rc;
}

int cs_plotstore_trajectory(cs_interp *in, const cs_plot_trajectory_data *d, cs_err *err)
{
    pending p;
    int rc = begin(in, K_TRAJECTORY, d, &p, err);
    if (rc)
        return rc;
    cs_plot_trajectory_data *c = &p.next.d.traj;
    *c = *d;
    c->land = copy_land(&p.next.mem, &d->land);
    c->name = pool_str(&p.next.mem, d->name);
    return commit(&p, err);
}

int cs_plotstore_success(cs_interp *in, const cs_plot_success_data *d, cs_err *err)
{
    pending p;
    int rc = begin(in, K_SUCCESS, d, &p, err);
    if (rc)
        return rc;
    cs_plot_success_data *c = &p.next.d.success;
    *c = *d;
    c->xvar = pool_str(&p.next.mem, d->xvar);
    c->xlabel = pool_str(&p.next.mem, d->xlabel);
    c->title = pool_str(&p.next.mem, d->title);
    c->series = copy_series(&p.next.mem, d->series, d->nseries);
    return commit(&p, err);
}

int cs_plotstore_trace(cs_interp *in, const cs_plot_trace_data *d, cs_err *err)
{
    pending p;
    int rc = begin(in, K_TRACE, d, &p, err);
    if (rc)
        return rc;
    cs_plot_trace_data *c = &p.next.d.trace;
    pool *pl = &p.next.mem;
    *c = *d;
    c->iter = dup_vec(pl, d->iter, d->n);
    c->objective = dup_vec(pl, d->objective, d->n);
    c->residual = dup_vec(pl, d->residual, d->n);
    c->tau = dup_vec(pl, d->tau, d->n);
    c->err_xstar = dup_vec(pl, d->err_xstar, d->n);
    c->name = pool_str(pl, d->name);
    c->mark_iter = dup_vec(pl, d->mark_iter, d->nmarks);
    const char **labels = pool_dup(pl, d->mark_label, d->nmarks, sizeof *labels);
    for (size_t i = 0; labels && i < d->nmarks; i++)
        labels[i] = pool_str(pl, d->mark_label[i]);
    c->mark_label = labels;
    c->start_iter = dup_vec(pl, d->start_iter, d->nstarts);
    return commit(&p, err);
}

int cs_plotstore_hist(cs_interp *in, const cs_plot_hist_data *d, cs_err *err)
{
    pending p;
    int rc = begin(in, K_HIST, d, &p, err);
    if (rc)
        return rc;
    cs_plot_hist_data *c = &p.next.d.hist;
    pool *pl = &p.next.mem;
    *c = *d;
    cs_plot_hist_frame *f = pool_dup(pl, d->frames, d->nframes, sizeof *f);
    for (size_t i = 0; f && i < d->nframes; i++) {
        f[i].v = dup_vec(pl, d->frames[i].v, d->frames[i].n);
        f[i].name = pool_str(pl, d->frames[i].name);
    }
    c->frames = f;
    c->marks = dup_vec(pl, d->marks, d->nmarks);
    c->xlabel = pool_str(pl, d->xlabel);
    return commit(&p, err);
}

int cs_plotstore_maxcut(cs_interp *in, const cs_plot_maxcut_data *d, cs_err *err)
{
    pending p;
    int rc = begin(in, K_MAXCUT, d, &p, err);
    if (rc)
        return rc;
    cs_plot_maxcut_data *c = &p.next.d.maxcut;
    *c = *d;
    c->series = copy_series(&p.next.mem, d->series, d->nseries);
    c->graph = pool_str(&p.next.mem, d->graph);
    return commit(&p, err);
}

int cs_plotstore_basins(cs_interp *in, const cs_plot_basins_data *d, cs_err *err)
{
    pending p;
    int rc = begin(in, K_BASINS, d, &p, err);
    if (rc)
        return rc;
    cs_plot_basins_data *c = &p.next.d.basins;
    pool *pl = &p.next.mem;
    *c = *d;
    if (d->nx && d->ny > SIZE_MAX / d->nx / sizeof(int))
        pl->failed = 1;
    else
        c->cls = pool_dup(pl, d->cls, d->nx * d->ny, sizeof *d->cls);
    c->ends = d->nends <= SIZE_MAX / 2 ? dup_vec(pl, d->ends, 2 * d->nends) : NULL;
    c->end_cls = pool_dup(pl, d->end_cls, d->nends, sizeof *d->end_cls);
    c->counts = pool_dup(pl, d->counts, d->counts ? CS_PLOT_BASIN_CLASSES : 0, sizeof *d->counts);
    c->target = copy_curves(pl, d->target, d->ntarget);
    c->ntarget = c->target ? d->ntarget : 0;
    c->geo = copy_geo(pl, d->geo);
    c->name = pool_str(pl, d->name);
    return commit(&p, err);
}

int cs_plotstore_has(cs_interp *in, const char *kind)
{
    plotstore *ps = cs_interp_ext(in, CS_EXT_PLOT);
    int k = kind_index(kind);
    return ps && k >= 0 && ps->s[k].has;
}

const void *cs_plotstore_data(cs_interp *in, const char *kind)
{
    plotstore *ps = cs_interp_ext(in, CS_EXT_PLOT);
    int k = kind_index(kind);
    return ps && k >= 0 && ps->s[k].has ? (const void *)&ps->s[k].d : NULL;
}

void cs_plotstore_clear(cs_interp *in)
{
    cs_interp_set_ext(in, CS_EXT_PLOT, NULL, NULL, NULL);
}

/* ---- drawing ------------------------------------------------------------------------ */

static int draw_slot(const slot *s, int k, const cs_plot_opts *o, cs_err *err)
{
    switch (k) {
    case K_LANDSCAPE: return cs_plot_landscape(&s->d.land, o, err);
    case K_TRAJECTORY: return cs_plot_trajectory(&s->d.traj, o, err);
    case K_SUCCESS: return cs_plot_success(&s->d.success, o, err);
    case K_TRACE: return cs_plot_trace(&s->d.trace, o, err);
    case K_HIST: return cs_plot_hist(&s->d.hist, o, err);
    case K_BASINS: return cs_plot_basins(&s->d.basins, o, err);
    default: return cs_plot_maxcut(&s->d.maxcut, o, err);
    }
}

/* The layers a drawing of slot k shows (0 for kinds without a plane). */
static unsigned slot_layers(const slot *s, int k)
{
    switch (k) {
    case K_LANDSCAPE: return cs_plot_layers(&s->d.land);
    case K_TRAJECTORY: return cs_plot_layers(&s->d.traj.land);
    case K_BASINS: return cs_plot_basins_layers(&s->d.basins);
    default: return 0;
    }
}

void cs_plot_put_layers(cs_result *res, unsigned layers)
{
    const char *names[CS_PLOT_NLAYERS];
    size_t n = 0;
    for (unsigned bit = 1; bit < (1u << CS_PLOT_NLAYERS); bit <<= 1)
        if (layers & bit)
            names[n++] = cs_plot_layer_name(bit);
    cs_result_strs(res, "layers", names, n);
}

/* ---- the figure keys: size= font= script= -------------------------------------- */

static const char *const figure_keys[] = {"size", "font", "script"};

/* How messages name a format. */
static const char *term_name(cs_plot_term t)
{
    switch (t) {
    case CS_PLOT_TERM_PNG: return ".png";
    case CS_PLOT_TERM_SVG: return ".svg";
    case CS_PLOT_TERM_PDF: return ".pdf";
    case CS_PLOT_TERM_GIF: return ".gif";
    case CS_PLOT_TERM_DUMB: return "term=dumb";
    default: return "window";
    }
}

/* size=WxH for a drawing on terminal t, into o: inches (.pdf .svg), whole
 * pixels (.png .gif, a window) or characters (term=dumb). */
static int parse_size(const char *v, cs_plot_term t, cs_plot_opts *o, cs_err *err)
{
    const char *x = strpbrk(v, "xX");
    char w[64], h[64];
    double a, b;
    cs_err sub;
    if (!x || (size_t)(x - v) >= sizeof w || strlen(x + 1) >= sizeof h)
        return cs_fail(err, CS_EINVAL, "expected WxH: size=3.5x2.5 (inches, .pdf .svg) or "
                       "size=800x600 (pixels, .png .gif)");
    snprintf(w, sizeof w, "%.*s", (int)(x - v), v);
    snprintf(h, sizeof h, "%s", x + 1);
    if (cs_parse_double(w, &a, &sub) || cs_parse_double(h, &b, &sub))
        return cs_fail(err, CS_EINVAL, "expected WxH: size=3.5x2.5 (inches, .pdf .svg) or "
                       "size=800x600 (pixels, .png .gif)");
    if (t == CS_PLOT_TERM_PDF || t == CS_PLOT_TERM_SVG) {
        if (!(a >= CS_PLOT_MIN_IN && a <= CS_PLOT_MAX_IN && b >= CS_PLOT_MIN_IN &&
              b <= CS_PLOT_MAX_IN))
            return cs_fail(err, CS_EINVAL, "a %s is sized in inches, %g to %g each (e.g. "
                           "size=3.5x2.5)", term_name(t), CS_PLOT_MIN_IN, CS_PLOT_MAX_IN);
        o->width_in = a;
        o->height_in = b;
        return CS_OK;
    }
    int dumb = t == CS_PLOT_TERM_DUMB;
    double wmin = dumb ? 20 : 100, hmin = dumb ? 10 : 100, most = dumb ? 1000 : 20000;
    if (a != floor(a) || b != floor(b) || a < wmin || b < hmin || a > most || b > most)
        return cs_fail(err, CS_EINVAL, "%s%s is sized in whole %s, %gx%g to %gx%g (e.g. "
                       "size=%s)", dumb ? "" : "a ", term_name(t),
                       dumb ? "characters" : "pixels", wmin, hmin, most, most,
                       dumb ? "120x40" : "800x600");
    o->width = (int)a;
    o->height = (int)b;
    return CS_OK;
}

/* A drawing a command line asks for: the key that names it, its terminal. */
typedef struct fig_target {
    const char *key;   /* "plot", "out" or "term" */
    cs_plot_term t;
} fig_target;

/* The drawings of cl, in the order the script goes to the first: plot=,
 * an image out=, term=dumb|window, or with `screen` (a command that draws
 * on the screen when it writes no file) a window of `set plot window`. */
static size_t fig_targets(cs_interp *in, const cs_cmdline *cl, int screen, fig_target tg[3])
{
    static const char *const files[] = {"plot", "out"};
    size_t n = 0;
    cs_err sub;
    for (size_t i = 0; i < 2; i++) {
        const cs_arg *a = cs_cmdline_key(cl, files[i]);
        cs_plot_term t;
        if (a && cs_plot_term_from_path(a->value, &t, &sub) == CS_OK)
            tg[n++] = (fig_target){files[i], t};
    }
    const char *term = cs_arg_text(cl, "term", "auto");
    if (!strcmp(term, "dumb"))
        tg[n++] = (fig_target){"term", CS_PLOT_TERM_DUMB};
    else if (!strcmp(term, "window") ||
             (screen && !n && !strcmp(term, "auto") && !cs_cmdline_key(cl, "out") &&
              in->plot_window))
        tg[n++] = (fig_target){"term", CS_PLOT_TERM_WINDOW};
    return n;
}

static int fig_fail(cs_interp *in, const cs_arg *a, cs_err *err, const char *why)
{
    in->err_col = a->col;
    return cs_fail(err, CS_EINVAL, "%s=%s: %s", a->key, a->value, why);
}

/* size=, font= and script= against the drawings of cl. */
static int fig_check(cs_interp *in, const cs_cmdline *cl, int screen, cs_err *err)
{
    const cs_arg *k[3];
    const cs_arg *first = NULL;
    for (size_t i = 0; i < 3; i++)
        if ((k[i] = cs_cmdline_key(cl, figure_keys[i])) && (!first || k[i]->col < first->col))
            first = k[i];
    if (!first)
        return CS_OK;
    fig_target tg[3];
    size_t n = fig_targets(in, cl, screen, tg);
    if (!n)
        return fig_fail(in, first, err, "nothing is drawn here to apply it to (give plot=F.png"
                        "|svg|pdf|gif, or where the command has them an image out= or "
                        "term=dumb|window)");
    cs_err sub;
    for (size_t i = 0; i < n && k[0]; i++) {
        cs_plot_opts o = {0};
        if (parse_size(k[0]->value, tg[i].t, &o, &sub))
            return fig_fail(in, k[0], err, sub.msg);
    }
    if (k[1]) {
        if (cs_plot_check_font(k[1]->value, &sub))
            return fig_fail(in, k[1], err, sub.msg);
        for (size_t i = 0; i < n; i++)
            if (tg[i].t == CS_PLOT_TERM_DUMB)
                return fig_fail(in, k[1], err, "term=dumb draws text, without fonts");
    }
    if (k[2]) {
        const char *v = k[2]->value, *dot = strrchr(v, '.');
        cs_plot_term t;
        char path[4096];
        if (cs_plot_term_from_path(v, &t, &sub) == CS_OK ||
            (dot && (!strcasecmp(dot, ".csv") || !strcasecmp(dot, ".txt"))))
            return fig_fail(in, k[2], err, "the script is gnuplot text: name it F.gp (its "
                            "output is the drawing's own file)");
        for (size_t i = 0; i < n; i++) {
            const cs_arg *a = cs_cmdline_key(cl, tg[i].key);
            if (strcmp(tg[i].key, "term") && a && !strcmp(a->value, v))
                return fig_fail(in, k[2], err, "the same file as the drawing");
        }
        if (cs_interp_path(in, v, path, sizeof path, &sub))
            return fig_fail(in, k[2], err, sub.msg);
        if (path[strlen(path) - 1] == '/')
            return fig_fail(in, k[2], err, "names a folder, not a file");
    }
    return CS_OK;
}

/* The figure keys of cl for the drawing of `key` on terminal t, into o;
 * the script (when cl has one and this drawing is its target) needs the
 * buffers script (its path), output (the name it draws to) and note. */
typedef struct fig_bufs {
    char script[4096];
    char output[4096];
    char note[8192];
} fig_bufs;

static int fig_opts(cs_interp *in, const cs_cmdline *cl, const char *key, cs_plot_term t,
                    cs_plot_opts *o, fig_bufs *fb, cs_err *err)
{
    if (!cl || !key)
        return CS_OK;
    int screen = !strcmp(key, "term");   /* this drawing is the screen's */
    int rc = fig_check(in, cl, screen, err);
    if (rc)
        return rc;
    const cs_arg *size = cs_cmdline_key(cl, "size");
    cs_err sub;
    if (size && parse_size(size->value, t, o, &sub))
        return fig_fail(in, size, err, sub.msg);
    o->font = cs_arg_text(cl, "font", NULL);
    const cs_arg *script = cs_cmdline_key(cl, "script");
    fig_target tg[3];
    if (!script || !fig_targets(in, cl, screen, tg) || strcmp(tg[0].key, key))
        return CS_OK;
    if (cs_interp_path(in, script->value, fb->script, sizeof fb->script, &sub))
        return fig_fail(in, script, err, sub.msg);
    const cs_arg *target = cs_cmdline_key(cl, key);
    if (strcmp(key, "term") && target) {
        /* as given; in a sandbox both files land in one folder, so by its
         * base name */
        const char *name = target->value, *slash = strrchr(name, '/');
        snprintf(fb->output, sizeof fb->output, "%s",
                 in->opts.sandbox_dir && slash ? slash + 1 : name);
        o->script_output = fb->output;
    }
    cs_provenance(in, cl, 0, fb->note, sizeof fb->note);
    o->script_note = fb->note;
    o->save_script = fb->script;
    return CS_OK;
}

/* ---- drawing -------------------------------------------------------------------------- */

/* Draw kind k into `out` (user's name, mapped) or the terminal `term`;
 * the file written goes into res as `field`. cl (may be NULL): the
 * command line whose figure keys apply, `key` the one naming this drawing;
 * save_only: write its script= only (gnuplot is missing). */
static int draw(cs_interp *in, const cs_cmdline *cl, const char *key, const char *kind,
                const char *out, const char *term, const char *title, const char *field,
                int save_only, cs_result *res, cs_err *err)
{
    int k = kind_index(kind);
    if (k < 0)
        return cs_fail(err, CS_EINVAL, "unknown plot kind '%s' (one of %s)", kind ? kind : "",
                       CS_PLOT_KINDS);
    plotstore *ps = cs_interp_ext(in, CS_EXT_PLOT);
    if (!ps || !ps->s[k].has)
        return cs_fail(err, CS_ESTATE, "nothing to plot: run %s first", kind_source[k]);
    cs_plot_opts o = {.title = title ? title : ps->s[k].title,
                      .cancel = cs_interp_cancel_flag(in)};
    if (term && !strcmp(term, "auto"))
        term = NULL;
    char path[4096];
    cs_plot_term t = CS_PLOT_TERM_WINDOW;
    if (term && !strcmp(term, "dumb")) {
        if (out)
            return cs_fail(err, CS_EINVAL, "term=dumb draws in the terminal: leave out the file "
                           "name '%s'", out);
        o.term = t = CS_PLOT_TERM_DUMB;
    } else if (term && !strcmp(term, "window")) {
        if (out)
            return cs_fail(err, CS_EINVAL, "term=window draws in a window: leave out the file "
                           "name '%s'", out);
        o.term = CS_PLOT_TERM_WINDOW;
    } else if (term) {
        return cs_fail(err, CS_EINVAL, "term=%s: expected auto, dumb or window", term);
    } else if (!out && in->plot_window) {
        o.term = CS_PLOT_TERM_WINDOW;  /* set plot window */
    } else {
        if (!out)
            return cs_fail(err, CS_EINVAL, "%s: give a file (out=FILE.png|svg|pdf|gif), "
                           "term=dumb, or set plot window", kind);
        int rc = cs_plot_term_from_path(out, &t, err);
        if (!rc)
            rc = cs_interp_path(in, out, path, sizeof path, err);
        if (rc)
            return rc;
        o.out = path;
    }
    fig_bufs *fb = cl && cs_cmdline_key(cl, "script") ? malloc(sizeof *fb) : NULL;
    if (cl && cs_cmdline_key(cl, "script") && !fb)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    int rc = fig_opts(in, cl, key, t, &o, fb, err);
    o.save_only = save_only;
    char *text = NULL;
    size_t len = 0;
    if (!rc && o.term == CS_PLOT_TERM_DUMB && !save_only) {
        o.text = open_memstream(&text, &len);
        if (!o.text)
            rc = cs_fail(err, CS_ENOMEM, "out of memory");
    }
    if (!rc)
        rc = draw_slot(&ps->s[k], k, &o, err);
    if (o.text) {
        fclose(o.text);
        const char *tx = text;
        while (tx && *tx == '\f')   /* the dumb terminal starts a page */
            tx++;
        if (!rc && tx)
            cs_result_text(res, "%s", tx);
        free(text);
    }
    if (!rc && o.out && !save_only)
        cs_result_str(res, field, o.out);
    if (!rc && o.save_script)
        cs_result_str(res, "script", o.save_script);
    free(fb);
    if (!rc && (k == K_LANDSCAPE || k == K_TRAJECTORY || k == K_BASINS))
        cs_plot_put_layers(res, slot_layers(&ps->s[k], k));
    return rc;
}

int cs_plotstore_draw(cs_interp *in, const char *kind, const char *out, const char *term,
                      const char *title, cs_result *res, cs_err *err)
{
    return draw(in, NULL, NULL, kind, out, term, title, "out", 0, res, err);
}

int cs_plotstore_draw_cl(cs_interp *in, const cs_cmdline *cl, const char *kind, const char *out,
                         const char *term, cs_result *res, cs_err *err)
{
    return draw(in, cl, out ? "out" : "term", kind, out, term, cs_arg_text(cl, "title", NULL),
                "out", 0, res, err);
}

/* ---- numbers -------------------------------------------------------------------------- */

static int csv_slot(const slot *s, int k, FILE *f, cs_err *err)
{
    switch (k) {
    case K_LANDSCAPE: return cs_plot_landscape_csv(&s->d.land, f, err);
    case K_TRAJECTORY: return cs_plot_trajectory_csv(&s->d.traj, f, err);
    case K_SUCCESS: return cs_plot_success_csv(&s->d.success, f, err);
    case K_TRACE: return cs_plot_trace_csv(&s->d.trace, f, err);
    case K_HIST: return cs_plot_hist_csv(&s->d.hist, f, err);
    case K_BASINS: return cs_plot_basins_csv(&s->d.basins, f, err);
    default: return cs_plot_maxcut_csv(&s->d.maxcut, f, err);
    }
}

int cs_plotstore_csv(cs_interp *in, const cs_cmdline *cl, const char *kind, const char *out,
                     cs_result *res, cs_err *err)
{
    int k = kind_index(kind);
    if (k < 0)
        return cs_fail(err, CS_EINVAL, "unknown plot kind '%s' (one of %s)", kind ? kind : "",
                       CS_PLOT_KINDS);
    plotstore *ps = cs_interp_ext(in, CS_EXT_PLOT);
    if (!ps || !ps->s[k].has)
        return cs_fail(err, CS_ESTATE, "nothing to plot: run %s first", kind_source[k]);
    char path[4096], note[8192];
    int rc = cs_interp_path(in, out, path, sizeof path, err);
    if (rc)
        return rc;
    size_t nn = cs_provenance(in, cl, 0, note, sizeof note);
    cs_afile af;
    if ((rc = cs_afile_open(&af, path, 0, err)))
        return rc;
    af.cancel = cs_interp_cancel_flag(in);
    /* the header, then how it was made (as every csreg CSV: cs_provenance.h) */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    if (!rc && (rc = csv_slot(&ps->s[k], k, mem, err)) == CS_OK && fflush(mem))
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    if (mem)
        fclose(mem);
    size_t head = text ? strcspn(text, "\n") + (text[strcspn(text, "\n")] == '\n') : 0;
    if (!rc && (fwrite(text, 1, head, af.f) != head || fwrite(note, 1, nn, af.f) != nn ||
                fwrite(text + head, 1, len - head, af.f) != len - head))
        rc = cs_fail(err, CS_EIO, "cannot write '%s'", out);
    free(text);
    if (!rc)
        rc = cs_afile_commit(&af, err);
    if (rc)
        cs_afile_abort(&af);
    else
        cs_result_str(res, "out", path);
    return rc;
}

static int key_check(cs_interp *in, const cs_cmdline *cl, const char *key, int screen,
                     cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, key);
    if (!a)
        return fig_check(in, cl, screen, err);
    cs_plot_term t;
    cs_err sub;
    char path[4096];
    int rc = cs_plot_term_from_path(a->value, &t, &sub);
    if (!rc)
        rc = cs_interp_path(in, a->value, path, sizeof path, &sub);
    if (rc) {
        in->err_col = a->col;
        return cs_fail(err, rc, "%s=%s: %s", key, a->value, sub.msg);
    }
    return fig_check(in, cl, screen, err);
}

int cs_plot_key_check(cs_interp *in, const cs_cmdline *cl, const char *key, cs_err *err)
{
    return key_check(in, cl, key, 0, err);
}

int cs_plot_key_check_screen(cs_interp *in, const cs_cmdline *cl, const char *key, cs_err *err)
{
    return key_check(in, cl, key, 1, err);
}

static int plot_key(cs_interp *in, const cs_cmdline *cl, const char *kind, int save_only,
                    cs_result *res, cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, "plot");
    if (!a)
        return CS_OK;
    int rc = cs_plot_key_check(in, cl, "plot", err);   /* blames the key at fault */
    if (rc)
        return rc;
    rc = draw(in, cl, "plot", kind, a->value, NULL, cs_arg_text(cl, "title", NULL), "plot",
              save_only, res, err);
    if (rc)
        in->err_col = a->col;
    return rc;
}

int cs_plot_key(cs_interp *in, const cs_cmdline *cl, const char *kind, cs_result *res,
                cs_err *err)
{
    return plot_key(in, cl, kind, 0, res, err);
}

int cs_plot_after(cs_interp *in, const cs_cmdline *cl, const char *kind, cs_result *res,
                  cs_err *err)
{
    if (!cs_cmdline_key(cl, "plot"))
        return CS_OK;
    cs_err sub;
    if (cs_plot_available(&sub) != CS_OK) {
        cs_result_str(res, "plot_skipped", sub.msg);
        /* the script needs no gnuplot: it draws the figure elsewhere */
        return cs_cmdline_key(cl, "script") ? plot_key(in, cl, kind, 1, res, err) : CS_OK;
    }
    return cs_plot_key(in, cl, kind, res, err);
}
