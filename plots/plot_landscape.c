/* plot_landscape.c — landscape (heatmap + contours, or 3D surface) and
 * trajectory (iterates drawn over a landscape). */
#include "plot_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GRID_POINTS 4000000u  /* 2000 x 2000 */
#define SURFACE_MAX 121           /* a 3D surface is drawn on at most 121 x 121 points */

/* matplotlib's viridis, sampled at 9 stops. */
static const char *const viridis[] = {
    "#440154", "#472C7A", "#3B518B", "#2C718E", "#21908D",
    "#27AD81", "#5CC863", "#AADC32", "#FDE725",
};

static const char target_colour[] = "#D55E00";   /* vermillion: stands out on viridis */
static const char contour_colour[] = "#70FFFFFF"; /* white, partly transparent */
static const char mark_colour[] = "#FF2A2A";      /* red stars: spurious stationary points */

static int check_landscape(const cs_plot_landscape_data *d, const char *kind, cs_err *err)
{
    if (!d || !d->z)
        return cs_fail(err, CS_EINVAL, "%s: no grid values", kind);
    if (d->nx < 2 || d->ny < 2)
        return cs_fail(err, CS_EDIM, "%s: grid %zu x %zu too small (need at least 2 x 2)",
                       kind, d->nx, d->ny);
    if (d->nx > MAX_GRID_POINTS / d->ny)
        return cs_fail(err, CS_EDIM, "%s: grid %zu x %zu too large to plot (at most %u points)",
                       kind, d->nx, d->ny, MAX_GRID_POINTS);
    if (!isfinite(d->x0) || !isfinite(d->x1) || !isfinite(d->y0) || !isfinite(d->y1) ||
        !(d->x0 < d->x1) || !(d->y0 < d->y1))
        return cs_fail(err, CS_EINVAL, "%s: box [%g,%g] x [%g,%g] is empty or not finite", kind,
                       d->x0, d->x1, d->y0, d->y1);
    if (d->dims[0] < 0 || d->dims[1] < 0)
        return cs_fail(err, CS_EINVAL, "%s: negative coordinate index", kind);
    if (d->log_scale && !(d->log_floor <= 0 || isfinite(d->log_floor)))
        return cs_fail(err, CS_EINVAL, "%s: log floor is not finite", kind);
    int rc = plot_check_finite(d->z, d->nx * d->ny, kind, "z", err);
    if (rc != CS_OK)
        return rc;
    if ((rc = plot_check_geometry(d->geo, kind, err)) != CS_OK)
        return rc;
    if (d->nmarks && (!d->mark_x || !d->mark_y))
        return cs_fail(err, CS_EINVAL, "%s: %zu marks but no data", kind, d->nmarks);
    if ((rc = plot_check_finite(d->mark_x, d->nmarks, kind, "mark x", err)) != CS_OK ||
        (rc = plot_check_finite(d->mark_y, d->nmarks, kind, "mark y", err)) != CS_OK)
        return rc;
    if (d->ntarget && !d->target)
        return cs_fail(err, CS_EINVAL, "%s: %zu target curves but no data", kind, d->ntarget);
    for (size_t k = 0; k < d->ntarget; k++) {
        const cs_plot_curve *t = &d->target[k];
        if (t->n && (!t->x || !t->y))
            return cs_fail(err, CS_EINVAL, "%s: target curve %zu has no data", kind, k);
        char what[48];
        snprintf(what, sizeof what, "target[%zu].x", k);
        if ((rc = plot_check_finite(t->x, t->n, kind, what, err)) != CS_OK)
            return rc;
        snprintf(what, sizeof what, "target[%zu].y", k);
        if ((rc = plot_check_finite(t->y, t->n, kind, what, err)) != CS_OK)
            return rc;
    }
    return CS_OK;
}

/* Grid indices drawn along one axis: all, or a subsample that keeps both ends. */
static size_t axis_step(size_t n, int surface)
{
    if (!surface || n <= SURFACE_MAX)
        return 1;
    return (n - 1 + (SURFACE_MAX - 2)) / (SURFACE_MAX - 1);
}

static int next_index(size_t i, size_t step, size_t n)
{
    if (i + 1 >= n)
        return -1;
    return (int)(i + step < n - 1 ? i + step : n - 1);
}

/* The value drawn at grid index k (log10 of z clamped at floor). */
static double grid_value(const cs_plot_landscape_data *d, double floor_v, size_t k)
{
    double z = d->z[k];
    return d->log_scale ? log10(z > floor_v ? z : floor_v) : z;
}

/* A round step giving about `levels` contour levels over range. */
static double nice_step(double range, int levels)
{
    double raw = range / levels, p = pow(10, floor(log10(raw))), m = raw / p;
    return p * (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10);
}

static void seg_point(const double *px, const double *py, const double *pv, int e0, int e1,
                      double level, double out[2])
{
    double t = (level - pv[e0]) / (pv[e1] - pv[e0]);
    out[0] = px[e0] + t * (px[e1] - px[e0]);
    out[1] = py[e0] + t * (py[e1] - py[e0]);
}

/* $C: contour segments "x y dx dy" (drawn `with vectors nohead`), by
 * marching squares over the full grid, at round levels strictly inside
 * (vmin, vmax). Saddles are resolved by the cell's mean value. The dumb
 * terminal does not draw vectors shorter than a character, so there each
 * segment is a two-point line ("x0 y0", "x1 y1", blank line). */
static void contour_block(plot_ctx *c, const cs_plot_landscape_data *d, double floor_v,
                          double vmin, double vmax, int levels)
{
    cs_gpbuf *b = &c->body;
    if (levels <= 0 || !(vmax > vmin)) {
        cs_gpbuf_printf(b, "$C << EOD\nEOD\n");
        return;
    }
    double step = nice_step(vmax - vmin, levels);
    double first = ceil(vmin / step) * step;
    if (first <= vmin)
        first += step;
    cs_gpbuf_printf(b, "# contour levels: every ");
    cs_gpbuf_num(b, step);
    cs_gpbuf_printf(b, " from ");
    cs_gpbuf_num(b, first);
    cs_gpbuf_printf(b, "\n");
    plot_datablock_begin(c, "$C");
    double dx = (d->x1 - d->x0) / (double)(d->nx - 1), dy = (d->y1 - d->y0) / (double)(d->ny - 1);
    for (int l = 0;; l++) {
        double level = first + l * step;
        if (level >= vmax || l > 1000)
            break;
        for (size_t j = 0; j + 1 < d->ny; j++) {
            for (size_t i = 0; i + 1 < d->nx; i++) {
                /* corners a, b, c, d counter-clockwise from (i, j) */
                size_t k0 = j * d->nx + i;
                double pv[4] = {grid_value(d, floor_v, k0), grid_value(d, floor_v, k0 + 1),
                                grid_value(d, floor_v, k0 + 1 + d->nx),
                                grid_value(d, floor_v, k0 + d->nx)};
                int s[4], n_in = 0;
                for (int q = 0; q < 4; q++)
                    n_in += s[q] = pv[q] >= level;
                if (n_in == 0 || n_in == 4)
                    continue;
                double xa = d->x0 + (double)i * dx, ya = d->y0 + (double)j * dy;
                double px[4] = {xa, xa + dx, xa + dx, xa}, py[4] = {ya, ya, ya + dy, ya + dy};
                /* crossing edges e: corner e to corner e+1 */
                int edges[4], ne = 0;
                for (int e = 0; e < 4; e++)
                    if (s[e] != s[(e + 1) % 4])
                        edges[ne++] = e;
                int pairs[2][2], np = 0;
                if (ne == 2) {
                    pairs[0][0] = edges[0], pairs[0][1] = edges[1], np = 1;
                } else { /* saddle: s0 == s2 != s1 == s3 */
                    int centre = (pv[0] + pv[1] + pv[2] + pv[3]) / 4 >= level;
                    if (centre == s[0]) { /* a and c joined: cut off b and d */
                        pairs[0][0] = 0, pairs[0][1] = 1, pairs[1][0] = 2, pairs[1][1] = 3;
                    } else {              /* cut off a and c */
                        pairs[0][0] = 3, pairs[0][1] = 0, pairs[1][0] = 1, pairs[1][1] = 2;
                    }
                    np = 2;
                }
                for (int q = 0; q < np; q++) {
                    double p0[2], p1[2];
                    int e = pairs[q][0], f = pairs[q][1];
                    seg_point(px, py, pv, e, (e + 1) % 4, level, p0);
                    seg_point(px, py, pv, f, (f + 1) % 4, level, p1);
                    if (p0[0] == p1[0] && p0[1] == p1[1])
                        continue;
                    if (c->term == CS_PLOT_TERM_DUMB) {
                        plot_row(c, p0, 2);
                        plot_row(c, p1, 2);
                        cs_gpbuf_printf(b, "\n");
                    } else {
                        plot_row(c, (double[4]){p0[0], p0[1], p1[0] - p0[0], p1[1] - p0[1]}, 4);
                    }
                }
            }
        }
    }
    plot_datablock_end(c);
}

/* What the plot elements of a landscape need to know. */
typedef struct land_info {
    int surface;      /* drawn with splot */
    int image;        /* heatmap drawn (not on dumb) */
    int has_lines, has_points;
    double vmin, vmax;
    size_t nmarks;
    const char *mark_label;
} land_info;

/* Data blocks and settings of a landscape; the plot command comes later. */
static void landscape_setup(plot_ctx *c, const cs_plot_landscape_data *d, int traj,
                            land_info *li)
{
    cs_gpbuf *b = &c->body;
    li->surface = d->surface != 0;
    li->image = c->term != CS_PLOT_TERM_DUMB;
    if (c->term == CS_PLOT_TERM_DUMB)
        li->surface = 0;

    double floor_v = d->log_floor;
    if (d->log_scale && !(floor_v > 0)) {
        double zmax = 0;
        for (size_t k = 0; k < d->nx * d->ny; k++)
            if (d->z[k] > zmax)
                zmax = d->z[k];
        floor_v = zmax > 0 ? 1e-6 * zmax : 1.0;
    }
    size_t sx = axis_step(d->nx, li->surface), sy = axis_step(d->ny, li->surface);
    double dx = (d->x1 - d->x0) / (double)(d->nx - 1), dy = (d->y1 - d->y0) / (double)(d->ny - 1);

    cs_gpbuf_printf(b, "# landscape: %zu x %zu grid%s\n", d->nx, d->ny,
                    d->log_scale ? ", colour = log10(max(z, floor))" : "");
    if (d->log_scale) {
        cs_gpbuf_printf(b, "# floor = ");
        cs_gpbuf_num(b, floor_v);
        cs_gpbuf_printf(b, "\n");
    }
    plot_datablock_begin(c, "$Z");
    li->vmin = INFINITY;
    li->vmax = -INFINITY;
    for (int j = 0; j >= 0; j = next_index((size_t)j, sy, d->ny)) {
        for (int i = 0; i >= 0; i = next_index((size_t)i, sx, d->nx)) {
            double v = grid_value(d, floor_v, (size_t)j * d->nx + (size_t)i);
            double row[3] = {i == (int)d->nx - 1 ? d->x1 : d->x0 + i * dx,
                             j == (int)d->ny - 1 ? d->y1 : d->y0 + j * dy, v};
            plot_row(c, row, 3);
            if (v < li->vmin)
                li->vmin = v;
            if (v > li->vmax)
                li->vmax = v;
        }
        cs_gpbuf_printf(b, "\n");
    }
    plot_datablock_end(c);

    plot_target_blocks(c, d->target, d->ntarget, &li->has_lines, &li->has_points);

    li->nmarks = d->nmarks;
    li->mark_label = d->mark_label ? d->mark_label : "spurious stationary points";
    if (d->nmarks) {
        plot_datablock_begin(c, "$SP");
        for (size_t k = 0; k < d->nmarks; k++)
            plot_row(c, (double[2]){d->mark_x[k], d->mark_y[k]}, 2);
        plot_datablock_end(c);
    }

    int levels = d->contours == 0 ? 10 : d->contours;
    contour_block(c, d, floor_v, li->vmin, li->vmax, levels);

    int lit;
    const char *rl = plot_method_label(c, d->reg, NULL, &lit);
    char title[600], cbl[600];
    const char *pre = traj ? "iterates on the " : "";
    if (!rl) {
        snprintf(title, sizeof title, "%slandscape%s", pre,
                 !d->log_scale ? "" : c->enhanced ? " (log_{10} scale)" : " (log10 scale)");
        snprintf(cbl, sizeof cbl, "%s", !d->log_scale ? "value" : c->enhanced ? "log_{10} value"
                                                                              : "log10 value");
        lit = 0;
    } else if (lit || !c->enhanced) {
        snprintf(title, sizeof title, "%s%.500s landscape%s", pre, rl,
                 d->log_scale ? " (log10 scale)" : "");
        snprintf(cbl, sizeof cbl, "%s%.500s(x)", d->log_scale ? "log10 " : "", rl);
    } else {
        snprintf(title, sizeof title, "%s%s landscape%s", pre, rl,
                 d->log_scale ? " (log_{10} scale)" : "");
        snprintf(cbl, sizeof cbl, "%s%s(x)", d->log_scale ? "log_{10} " : "", rl);
    }
    plot_title(c, title, lit);

    char xl[32], yl[32];
    snprintf(xl, sizeof xl, c->enhanced ? "x_{%d}" : "x%d", d->dims[0] + 1);
    snprintf(yl, sizeof yl, c->enhanced ? "x_{%d}" : "x%d", d->dims[0] == d->dims[1] &&
             d->dims[0] == 0 ? 2 : d->dims[1] + 1);
    plot_set_text(c, "xlabel", d->xlabel ? d->xlabel : xl, d->xlabel != NULL);
    plot_set_text(c, "ylabel", d->ylabel ? d->ylabel : yl, d->ylabel != NULL);

    cs_gpbuf_printf(b, "set xrange [");
    cs_gpbuf_num(b, d->x0);
    cs_gpbuf_printf(b, ":");
    cs_gpbuf_num(b, d->x1);
    cs_gpbuf_printf(b, "] noextend\nset yrange [");
    cs_gpbuf_num(b, d->y0);
    cs_gpbuf_printf(b, ":");
    cs_gpbuf_num(b, d->y1);
    /* target lines may run from outside the box to outside the box */
    cs_gpbuf_printf(b, "] noextend\nset clip two\n");

    if (c->term != CS_PLOT_TERM_DUMB) {
        cs_gpbuf_printf(b, "set palette defined (");
        for (size_t i = 0; i < sizeof viridis / sizeof viridis[0]; i++)
            cs_gpbuf_printf(b, "%s%zu '%s'", i ? ", " : "", i, viridis[i]);
        cs_gpbuf_printf(b, ")\n");
        plot_set_text(c, "cblabel", cbl, lit);
    }
    if (li->surface) {
        cs_gpbuf_printf(b, "set view 55, 35, 1, 1\nset xyplane relative 0\n"
                           "set pm3d at s depthorder lighting primary 0.5 specular 0.2\n"
                           "set zrange [");
        cs_gpbuf_num(b, li->vmin);
        cs_gpbuf_printf(b, ":");
        cs_gpbuf_num(b, li->vmax > li->vmin ? li->vmax : li->vmin + 1);
        cs_gpbuf_printf(b, "]\n");
        plot_set_text(c, "zlabel", cbl, lit);
        cs_gpbuf_printf(b, "set zlabel rotate parallel\n"
                           "set key at screen 0.5, screen 0.04 center bottom horizontal\n");
    } else {
        double ratio = (d->y1 - d->y0) / (d->x1 - d->x0);
        if (c->term != CS_PLOT_TERM_DUMB && ratio > 0.2 && ratio < 5)
            cs_gpbuf_printf(b, "set size ratio -1\n");
        cs_gpbuf_printf(b, "set key outside top center horizontal\n");
    }
}

/* The landscape's plot elements, starting with "plot"/"splot" (no newline). */
static void landscape_elems(plot_ctx *c, const land_info *li)
{
    cs_gpbuf *b = &c->body;
    int titled = 0;
    if (li->surface) {
        char zb[64];
        cs_gp_fmt_num(zb, sizeof zb, li->vmin);
        cs_gpbuf_printf(b, "splot $Z using 1:2:3 with pm3d notitle");
        cs_gpbuf_printf(b, ", $C using 1:2:(%s):3:4:(0) with vectors nohead lc rgb '#60000000'"
                           " lw 1 notitle", zb);
        if (li->has_lines) {
            cs_gpbuf_printf(b, ", $TL using 1:2:(%s) with lines lc rgb '%s' lw 3 dt 2", zb,
                            target_colour);
            plot_elem_title(c, "target set", 1);
            titled = 1;
        }
        if (li->has_points) {
            cs_gpbuf_printf(b, ", $TP using 1:2:(%s) with points pt 7 ps 1.8 lc rgb '%s'", zb,
                            target_colour);
            if (titled)
                cs_gpbuf_printf(b, " notitle");
            else
                plot_elem_title(c, "target set", 1);
        }
        if (li->nmarks) {
            cs_gpbuf_printf(b, ", $SP using 1:2:(%s) with points pt 3 ps 2 lw 2 lc rgb '%s'", zb,
                            mark_colour);
            plot_elem_title(c, li->mark_label, 1);
        }
        return;
    }
    if (li->image)
        cs_gpbuf_printf(b, "plot $Z using 1:2:3 with image notitle, "
                           "$C using 1:2:3:4 with vectors nohead lc rgb '%s' lw 1 notitle",
                        contour_colour);
    else
        cs_gpbuf_printf(b, "plot $C using 1:2 with lines lt 1 lw 1 notitle");
    plot_target_elems(c, li->has_lines, li->has_points);
    if (li->nmarks) {
        cs_gpbuf_printf(b, ", $SP using 1:2 with points pt 3 ps 2 lw 2 lc rgb '%s'", mark_colour);
        plot_elem_title(c, li->mark_label, 1);
    }
}

void plot_target_blocks(plot_ctx *c, const cs_plot_curve *target, size_t ntarget,
                        int *has_lines, int *has_points)
{
    *has_lines = *has_points = 0;
    for (size_t k = 0; k < ntarget; k++) {
        if (target[k].n >= 2)
            *has_lines = 1;
        else if (target[k].n == 1)
            *has_points = 1;
    }
    if (*has_lines) {
        plot_datablock_begin(c, "$TL");
        for (size_t k = 0; k < ntarget; k++) {
            if (target[k].n < 2)
                continue;
            for (size_t i = 0; i < target[k].n; i++)
                plot_row(c, (double[2]){target[k].x[i], target[k].y[i]}, 2);
            cs_gpbuf_printf(&c->body, "\n");
        }
        plot_datablock_end(c);
    }
    if (*has_points) {
        plot_datablock_begin(c, "$TP");
        for (size_t k = 0; k < ntarget; k++)
            if (target[k].n == 1)
                plot_row(c, (double[2]){target[k].x[0], target[k].y[0]}, 2);
        plot_datablock_end(c);
    }
}

void plot_target_elems(plot_ctx *c, int has_lines, int has_points)
{
    cs_gpbuf *b = &c->body;
    int titled = 0;
    if (has_lines) {
        cs_gpbuf_printf(b, ", $TL using 1:2 with lines lc rgb '%s' lw 2.5 dt 2", target_colour);
        plot_elem_title(c, "target set", 1);
        titled = 1;
    }
    if (has_points) {
        cs_gpbuf_printf(b, ", $TP using 1:2 with points pt 7 ps 1.8 lc rgb '%s'", target_colour);
        if (titled)
            cs_gpbuf_printf(b, " notitle");
        else
            plot_elem_title(c, "target set", 1);
    }
}

/* The landscape with its geometry; name: the method of the paths. */
static int draw_landscape(const cs_plot_landscape_data *d, const cs_plot_opts *o, int traj,
                          const char *name, const char *kind, cs_err *err)
{
    plot_ctx c;
    int rc = plot_begin(&c, o, 1, kind, err);
    if (rc != CS_OK) {
        plot_abort(&c);
        return rc;
    }
    land_info li;
    plot_geo_info gi;
    landscape_setup(&c, d, traj, &li);
    plot_geometry_blocks(&c, d->geo, &gi);
    landscape_elems(&c, &li);
    char zb[64] = "";
    if (li.surface) {
        char num[48];
        cs_gp_fmt_num(num, sizeof num, li.vmin);
        snprintf(zb, sizeof zb, ":(%s)", num);
    }
    plot_geometry_elems(&c, d->geo, &gi, zb, name);
    cs_gpbuf_printf(&c.body, "\n");
    return plot_finish(&c, err);
}

int cs_plot_landscape(const cs_plot_landscape_data *d, const cs_plot_opts *o, cs_err *err)
{
    int rc = check_landscape(d, "landscape", err);
    if (rc != CS_OK)
        return rc;
    return draw_landscape(d, o, 0, NULL, "landscape", err);
}

int cs_plot_trajectory(const cs_plot_trajectory_data *d, const cs_plot_opts *o, cs_err *err)
{
    if (!d)
        return cs_fail(err, CS_EINVAL, "trajectory: no data");
    int rc = check_landscape(&d->land, "trajectory", err);
    if (rc != CS_OK)
        return rc;
    if (!d->land.geo || d->land.geo->npaths == 0)
        return cs_fail(err, CS_EINVAL, "trajectory: no iterates");
    return draw_landscape(&d->land, o, 1, d->name, "trajectory", err);
}
