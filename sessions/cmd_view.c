/* cmd_view.c — `view`: the box and slice coordinates the TUI's Landscape
 * panel shows (its zoom, pan and dims keys issue this command, so a saved
 * session replays them; in a script it only sets state), and the accessors
 * the TUI reads the regularizer table and its heat map through. */
#include "cs_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_landscape.h"
#include "cs_parse.h"
#include "cs_solve_view.h"
#include "interp_internal.h"
#include "solve_state.h"

static int cmd_view(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);

static const cs_key_spec view_keys[] = {
    {"x", "-2:2", "range lo:hi of the first coordinate", NULL, CS_KEY_RANGE},
    {"y", "-2:2", "range lo:hi of the second coordinate", NULL, CS_KEY_RANGE},
    {"dims", "1,2", "coordinates of the iterate a slice varies when N > 2 (1-based)", NULL,
     CS_KEY_LIST},
    {"map", "landscape", "what the panel shows: the regularizer's landscape, or the last basin "
     "map of the problem (basins)", "landscape|basins", CS_KEY_WORD},
    {0}};

static const cs_cmd_spec view_commands[] = {
    {.name = "view", .topic = "plots",
     .usage = "view [x=lo:hi] [y=lo:hi] [dims=i,j] [map=landscape|basins]",
     .summary = "the box (and slice coordinates) the workbench's Landscape panel shows",
     .example = "view x=-1.5:1.5 y=-1.5:1.5 dims=1,2", .keys = view_keys, .run = cmd_view,
     .journal = 1},
};

CS_CMD_GROUP(cs_group_view, view_commands);

enum { VIEW_MAX_DIM = 1 << 30 };
#define VIEW_MAX_ABS 1e12
#define VIEW_MIN_WIDTH 1e-9

static void view_free(void *p) { free(p); }

void cs_view_get(cs_interp *in, cs_view_box *box)
{
    const cs_view_box *v = cs_interp_ext(in, CS_EXT_VIEW);
    *box = v ? *v : CS_VIEW_DEFAULT_BOX;
}

/* key=lo:hi with lo < hi, finite, not absurdly large or narrow. */
static int arg_span(cs_interp *in, const cs_cmdline *cl, const char *key, double *lo,
                    double *hi, cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, key);
    if (!a)
        return CS_OK;
    const char *colon = strchr(a->value, ':');
    char part[2][128];
    cs_err sub;
    int rc = CS_OK;
    if (!colon || strchr(colon + 1, ':'))
        rc = cs_fail(&sub, CS_EINVAL, "expected lo:hi");
    else if ((size_t)(colon - a->value) >= sizeof part[0] || strlen(colon + 1) >= sizeof part[1])
        rc = cs_fail(&sub, CS_EINVAL, "number too long");
    if (!rc) {
        memcpy(part[0], a->value, (size_t)(colon - a->value));
        part[0][colon - a->value] = '\0';
        snprintf(part[1], sizeof part[1], "%s", colon + 1);
        rc = cs_parse_double(part[0], lo, &sub);
        if (!rc)
            rc = cs_parse_double(part[1], hi, &sub);
    }
    if (!rc && !(*lo < *hi))
        rc = cs_fail(&sub, CS_EINVAL, "lo must be less than hi");
    if (!rc && (fabs(*lo) > VIEW_MAX_ABS || fabs(*hi) > VIEW_MAX_ABS))
        rc = cs_fail(&sub, CS_EINVAL, "the box must lie within ±%g", VIEW_MAX_ABS);
    if (!rc && *hi - *lo < VIEW_MIN_WIDTH * fmax(1.0, fmax(fabs(*lo), fabs(*hi))))
        rc = cs_fail(&sub, CS_EINVAL, "the range is too narrow to draw");
    if (rc) {
        in->err_col = a->col;
        return cs_fail(err, rc, "%s=%s: %s", key, a->value, sub.msg);
    }
    return CS_OK;
}

/* dims=i,j: two distinct 1-based coordinates. */
static int arg_dims(cs_interp *in, const cs_cmdline *cl, int dims[2], cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, "dims");
    if (!a)
        return CS_OK;
    const char *comma = strchr(a->value, ',');
    cs_err sub;
    int rc = CS_OK;
    long d[2];
    char first[64];
    if (!comma || strchr(comma + 1, ',') || (size_t)(comma - a->value) >= sizeof first) {
        rc = cs_fail(&sub, CS_EINVAL, "expected two coordinates i,j");
    } else {
        memcpy(first, a->value, (size_t)(comma - a->value));
        first[comma - a->value] = '\0';
        rc = cs_parse_long(first, 1, VIEW_MAX_DIM, &d[0], &sub);
        if (!rc)
            rc = cs_parse_long(comma + 1, 1, VIEW_MAX_DIM, &d[1], &sub);
        if (!rc && d[0] == d[1])
            rc = cs_fail(&sub, CS_EINVAL, "the two coordinates must differ");
    }
    if (rc) {
        in->err_col = a->col;
        return cs_fail(err, rc, "dims=%s: %s", a->value, sub.msg);
    }
    dims[0] = (int)d[0];
    dims[1] = (int)d[1];
    return CS_OK;
}

static void span_text(char *buf, size_t len, double lo, double hi)
{
    snprintf(buf, len, "%.6g:%.6g", lo, hi);
}

static int cmd_view(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    cs_view_box box;
    cs_view_get(in, &box);
    int rc = arg_span(in, cl, "x", &box.x0, &box.x1, err);
    if (!rc)
        rc = arg_span(in, cl, "y", &box.y0, &box.y1, err);
    if (!rc)
        rc = arg_dims(in, cl, box.dims, err);
    const char *map;
    if (!rc)
        rc = cs_arg_choice(in, cl, "map", "landscape|basins", box.basins ? "basins" : "landscape",
                           &map, err);
    if (rc)
        return rc;
    box.basins = !strcmp(map, "basins");
    cs_view_box *keep = malloc(sizeof *keep);
    if (!keep)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    *keep = box;
    cs_interp_set_ext(in, CS_EXT_VIEW, keep, view_free, NULL);
    char text[128];
    span_text(text, sizeof text, box.x0, box.x1);
    cs_result_str(res, "x", text);
    span_text(text, sizeof text, box.y0, box.y1);
    cs_result_str(res, "y", text);
    snprintf(text, sizeof text, "%d,%d", box.dims[0], box.dims[1]);
    cs_result_str(res, "dims", text);
    cs_result_str(res, "map", map);
    if (box.basins) {
        solve_state *st = cs_interp_ext(in, CS_EXT_SOLVE);
        if (!st || !st->basins)
            cs_result_str(res, "note", "no basin map yet: run basins (the panel shows the "
                          "landscape until then)");
    }
    return CS_OK;
}

size_t cs_view_reg_count(void) { return cs_reg_count(); }

int cs_view_reg_at(size_t i, cs_view_reg *out)
{
    const cs_reg_info *info = cs_reg_info_at(i);
    if (i >= cs_reg_count() || !info)
        return -1;
    *out = (cs_view_reg){info->name, info->title, info->formula, info->target};
    return 0;
}

const char *cs_view_reg_name(cs_interp *in) { return cs_reg_get_info(in->reg)->name; }

void cs_view_map_free(cs_view_map *m)
{
    if (!m)
        return;
    free(m->z);
    free(m->cls);
    for (size_t k = 0; k < m->geo.npaths; k++)
        free((void *)m->geo.paths[k].xy);
    free((void *)m->geo.paths);
    free(m);
}

static int map_fill(cs_view_map *m, const cs_landscape *l, cs_err *err)
{
    size_t cells = l->nx * l->ny;
    m->z = malloc(cells * sizeof *m->z);
    if (!m->z)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    memcpy(m->z, l->z, cells * sizeof *m->z);
    m->nx = l->nx;
    m->ny = l->ny;
    m->x0 = l->x0;
    m->x1 = l->x1;
    m->y0 = l->y0;
    m->y1 = l->y1;
    m->zmin = l->zmin;
    m->zmax = l->zmax;
    m->ntarget = l->ntarget < CS_VIEW_MAX_TARGETS ? l->ntarget : CS_VIEW_MAX_TARGETS;
    for (size_t k = 0; k < m->ntarget; k++) {
        const cs_landscape_curve *c = &l->target[k];
        m->target[k] = (cs_view_curve){{c->x[0], c->x[1]}, {c->y[0], c->y[1]}, c->n};
    }
    return CS_OK;
}

/* The geometry of the session's problem on the map, copied into it. */
static int map_geometry(cs_interp *in, cs_view_map *m, const double *at, size_t n,
                        const size_t dims[2], cs_err *err)
{
    solve_geo g;
    int rc = solve_geo_make(cs_interp_ext(in, CS_EXT_SOLVE), at, n, dims, m->x0, m->x1, m->y0,
                            m->y1, &g, err);
    if (rc)
        return rc;
    m->geo = g.g;
    m->geo.paths = NULL;
    m->geo.npaths = 0;
    cs_plot_path *p = g.g.npaths ? calloc(g.g.npaths, sizeof *p) : NULL;
    for (size_t k = 0; p && k < g.g.npaths; k++) {
        p[k] = g.g.paths[k];
        double *xy = malloc(2 * p[k].n * sizeof *xy);
        if (xy)
            memcpy(xy, p[k].xy, 2 * p[k].n * sizeof *xy);
        p[k].xy = xy;
        p[k].n = xy ? p[k].n : 0;
    }
    m->geo.paths = p;
    m->geo.npaths = p ? g.g.npaths : 0;
    solve_geo_free(&g);
    return CS_OK;
}

/* The problem's last basin map (its own box and grid), when asked for. */
static int map_basins(cs_interp *in, const cs_view_box *box, cs_view_map *m)
{
    solve_state *st = cs_interp_ext(in, CS_EXT_SOLVE);
    if (!box->basins || !st || !st->basins)
        return 0;
    const cs_basins *b = st->basins;
    m->cls = malloc(b->res * b->res * sizeof *m->cls);
    if (!m->cls)
        return 0;
    memcpy(m->cls, b->cls, b->res * b->res * sizeof *m->cls);
    m->nx = m->ny = b->res;
    m->x0 = b->x0, m->x1 = b->x1, m->y0 = b->y0, m->y1 = b->y1;
    m->dims[0] = (int)b->dims[0] + 1;
    m->dims[1] = (int)b->dims[1] + 1;
    m->slice = b->N > 2;
    for (int k = 0; k < CS_PLOT_BASIN_CLASSES; k++)
        m->counts[k] = b->counts[k];
    for (; m->nends < 16 && m->nends < b->nclusters; m->nends++) {
        m->ends[m->nends][0] = b->clusters[m->nends].xy[0];
        m->ends[m->nends][1] = b->clusters[m->nends].xy[1];
    }
    snprintf(m->basins_method, sizeof m->basins_method, "%.63s", st->basins_method.text);
    return 1;
}

int cs_view_map_new(cs_interp *in, size_t nx, size_t ny, cs_view_map **out, cs_err *err)
{
    *out = NULL;
    cs_view_box box;
    cs_view_get(in, &box);
    cs_view_map *m = calloc(1, sizeof *m);
    if (!m)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    cs_landscape_spec spec = {.x0 = box.x0, .x1 = box.x1, .y0 = box.y0, .y1 = box.y1,
                              .nx = nx, .ny = ny, .cancel = cs_interp_cancel_flag(in)};
    m->dims[0] = box.dims[0];
    m->dims[1] = box.dims[1];
    cs_solve_view v;
    if (cs_interp_solve_view(in, &v) == 0 && v.x && v.n > 2) {
        size_t d0 = (size_t)box.dims[0] - 1, d1 = (size_t)box.dims[1] - 1;
        if (d0 >= v.n || d1 >= v.n) {  /* dims beyond this problem: the first two */
            d0 = 0;
            d1 = 1;
        }
        spec.at = v.x;
        spec.n = v.n;
        spec.dims[0] = d0;
        spec.dims[1] = d1;
        m->slice = 1;
        m->dims[0] = (int)d0 + 1;
        m->dims[1] = (int)d1 + 1;
    }
    int rc = CS_OK;
    if (map_basins(in, &box, m)) {
        /* the geometry on the basin map's plane: through x* on a slice */
        solve_state *st = cs_interp_ext(in, CS_EXT_SOLVE);
        size_t dims[2] = {st->basins->dims[0], st->basins->dims[1]};
        rc = map_geometry(in, m, cs_problem_xstar(st->prob), st->N, dims, err);
    } else {
        cs_landscape *l;
        rc = cs_landscape_new(&l, in->reg, &spec, err);
        if (!rc) {
            rc = map_fill(m, l, err);
            cs_landscape_free(l);
        }
        if (!rc)
            rc = map_geometry(in, m, spec.at, spec.n, spec.dims, err);
    }
    if (rc) {
        cs_view_map_free(m);
        return rc;
    }
    *out = m;
    return CS_OK;
}
