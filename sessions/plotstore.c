/* plotstore.c — the last data of each plot kind (deep copies kept in the
 * interpreter's CS_EXT_PLOT slot), drawing it, and the plot= key. */
#include "cs_plotstore.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
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

/* Draw kind k into `out` (user's name, mapped) or the terminal `term`;
 * the file written goes into res as `field`. */
static int draw(cs_interp *in, const char *kind, const char *out, const char *term,
                const char *title, const char *field, cs_result *res, cs_err *err)
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
    if (term && !strcmp(term, "dumb")) {
        if (out)
            return cs_fail(err, CS_EINVAL, "term=dumb draws in the terminal: leave out the file "
                           "name '%s'", out);
        o.term = CS_PLOT_TERM_DUMB;
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
        cs_plot_term t;
        int rc = cs_plot_term_from_path(out, &t, err);
        if (!rc)
            rc = cs_interp_path(in, out, path, sizeof path, err);
        if (rc)
            return rc;
        o.out = path;
    }
    char *text = NULL;
    size_t len = 0;
    if (o.term == CS_PLOT_TERM_DUMB) {
        o.text = open_memstream(&text, &len);
        if (!o.text)
            return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    int rc = draw_slot(&ps->s[k], k, &o, err);
    if (o.text) {
        fclose(o.text);
        const char *t = text;
        while (t && *t == '\f')   /* the dumb terminal starts a page */
            t++;
        if (!rc && t)
            cs_result_text(res, "%s", t);
        free(text);
    }
    if (!rc && o.out)
        cs_result_str(res, field, o.out);
    if (!rc && (k == K_LANDSCAPE || k == K_TRAJECTORY || k == K_BASINS))
        cs_plot_put_layers(res, slot_layers(&ps->s[k], k));
    return rc;
}

int cs_plotstore_draw(cs_interp *in, const char *kind, const char *out, const char *term,
                      const char *title, cs_result *res, cs_err *err)
{
    return draw(in, kind, out, term, title, "out", res, err);
}

int cs_plot_key_check(cs_interp *in, const cs_cmdline *cl, const char *key, cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, key);
    if (!a)
        return CS_OK;
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
    return CS_OK;
}

int cs_plot_key(cs_interp *in, const cs_cmdline *cl, const char *kind, cs_result *res,
                cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, "plot");
    if (!a)
        return CS_OK;
    int rc = cs_plot_key_check(in, cl, "plot", err);
    if (!rc)
        rc = draw(in, kind, a->value, NULL, cs_arg_text(cl, "title", NULL), "plot", res, err);
    if (rc)
        in->err_col = a->col;
    return rc;
}

int cs_plot_after(cs_interp *in, const cs_cmdline *cl, const char *kind, cs_result *res,
                  cs_err *err)
{
    if (!cs_cmdline_key(cl, "plot"))
        return CS_OK;
    cs_err sub;
    if (cs_plot_available(&sub) != CS_OK) {
        cs_result_str(res, "plot_skipped", sub.msg);
        return CS_OK;
    }
    return cs_plot_key(in, cl, kind, res, err);
}
