/* plot_basins.c — the basin map: a colour per class of end point over the
 * grid of starts, the end points marked, the target set and the feasible
 * set on top. */
#include "plot_internal.h"

#include <math.h>
#include <stdio.h>

const char *const cs_plot_basin_colours[CS_PLOT_BASIN_CLASSES] = {
    "#009E73",  /* success: bluish green */
    "#0072B2",  /* other: blue */
    "#E69F00",  /* spurious: orange */
    "#999999",  /* not converged: grey */
};
static const char *const class_names[CS_PLOT_BASIN_CLASSES] = {"success", "other", "spurious",
                                                               "not converged"};
static const char class_glyph[CS_PLOT_BASIN_CLASSES] = {'S', 'o', '!', '.'};

static int check_basins(const cs_plot_basins_data *d, cs_err *err)
{
    if (!d || !d->cls)
        return cs_fail(err, CS_EINVAL, "basins: no classes");
    if (d->nx < 2 || d->ny < 2 || d->nx > 2000 || d->ny > 2000)
        return cs_fail(err, CS_EDIM, "basins: grid %zu x %zu (2 to 2000 per axis)", d->nx,
                       d->ny);
    if (!isfinite(d->x0) || !isfinite(d->x1) || !isfinite(d->y0) || !isfinite(d->y1) ||
        !(d->x0 < d->x1) || !(d->y0 < d->y1))
        return cs_fail(err, CS_EINVAL, "basins: box [%g,%g] x [%g,%g] is empty or not finite",
                       d->x0, d->x1, d->y0, d->y1);
    for (size_t k = 0; k < d->nx * d->ny; k++)
        if (d->cls[k] < 0 || d->cls[k] >= CS_PLOT_BASIN_CLASSES)
            return cs_fail(err, CS_EINVAL, "basins: class %d at start %zu", d->cls[k], k + 1);
    if (d->nends && (!d->ends || !d->end_cls))
        return cs_fail(err, CS_EINVAL, "basins: end points without data");
    int rc = plot_check_finite(d->ends, 2 * d->nends, "basins", "end points", err);
    if (rc)
        return rc;
    return plot_check_geometry(d->geo, "basins", err);
}

unsigned cs_plot_basins_layers(const cs_plot_basins_data *d)
{
    cs_plot_landscape_data l = {.x0 = d->x0, .x1 = d->x1, .y0 = d->y0, .y1 = d->y1,
                                .ntarget = d->ntarget, .geo = d->geo};
    return cs_plot_layers(&l);
}

static void class_blocks(plot_ctx *c, const cs_plot_basins_data *d)
{
    plot_datablock_begin(c, "$B");
    for (size_t j = 0; j < d->ny; j++) {
        double y = j + 1 == d->ny ? d->y1 : d->y0 + (double)j * (d->y1 - d->y0) / (double)(d->ny - 1);
        for (size_t i = 0; i < d->nx; i++) {
            double x = i + 1 == d->nx ? d->x1
                                      : d->x0 + (double)i * (d->x1 - d->x0) / (double)(d->nx - 1);
            plot_row(c, (double[3]){x, y, d->cls[j * d->nx + i]}, 3);
        }
        cs_gpbuf_printf(&c->body, "\n");
    }
    plot_datablock_end(c);
    if (d->nends) {
        plot_datablock_begin(c, "$E");
        for (size_t k = 0; k < d->nends; k++)
            plot_row(c, (double[3]){d->ends[2 * k], d->ends[2 * k + 1], d->end_cls[k]}, 3);
        plot_datablock_end(c);
    }
}

static void class_label(const cs_plot_basins_data *d, int k, char *buf, size_t len)
{
    if (d->counts)
        snprintf(buf, len, "%s (%zu)", class_names[k], d->counts[k]);
    else
        snprintf(buf, len, "%s", class_names[k]);
}

int cs_plot_basins(const cs_plot_basins_data *d, const cs_plot_opts *o, cs_err *err)
{
    int rc = check_basins(d, err);
    if (rc)
        return rc;
    plot_ctx c;
    if ((rc = plot_begin(&c, o, 1, "basins", err)) != CS_OK) {
        plot_abort(&c);
        return rc;
    }
    cs_gpbuf *b = &c.body;
    int dumb = c.term == CS_PLOT_TERM_DUMB;
    class_blocks(&c, d);
    int has_lines, has_points;
    plot_target_blocks(&c, d->target, d->ntarget, &has_lines, &has_points);
    plot_geo_info gi;
    plot_geometry_blocks(&c, d->geo, &gi);
    int lit;
    const char *ml = plot_method_label(&c, d->name, NULL, &lit);
    char title[700];
    snprintf(title, sizeof title, "basins%s%.500s: where each start ends", ml ? " of " : "",
             ml ? ml : "");
    plot_title(&c, title, ml ? lit : 1);
    char xl[32], yl[32];
    snprintf(xl, sizeof xl, c.enhanced ? "start x_{%d}" : "start x%d", d->dims[0] + 1);
    snprintf(yl, sizeof yl, c.enhanced ? "start x_{%d}" : "start x%d",
             d->dims[0] == d->dims[1] && d->dims[0] == 0 ? 2 : d->dims[1] + 1);
    plot_set_text(&c, "xlabel", xl, 0);
    plot_set_text(&c, "ylabel", yl, 0);
    double hx = 0.5 * (d->x1 - d->x0) / (double)(d->nx - 1);
    double hy = 0.5 * (d->y1 - d->y0) / (double)(d->ny - 1);
    cs_gpbuf_printf(b, "set xrange [%.17g:%.17g] noextend\nset yrange [%.17g:%.17g] noextend\n"
                       "set clip two\nset key outside top center horizontal\n",
                    d->x0 - hx, d->x1 + hx, d->y0 - hy, d->y1 + hy);
    if (!dumb) {
        /* one flat colour per class: class k fills [k - 0.5, k + 0.5] */
        cs_gpbuf_printf(b, "set palette defined (");
        for (int k = 0; k < CS_PLOT_BASIN_CLASSES; k++)
            cs_gpbuf_printf(b, "%s%g '%s', %g '%s'", k ? ", " : "", k - 0.5,
                            cs_plot_basin_colours[k], k + 0.5, cs_plot_basin_colours[k]);
        cs_gpbuf_printf(b, ")\nset cbrange [-0.5:3.5]\nunset colorbox\n");
        double ratio = (d->y1 - d->y0) / (d->x1 - d->x0);
        if (ratio > 0.2 && ratio < 5)
            cs_gpbuf_printf(b, "set size ratio -1\n");
        cs_gpbuf_printf(b, "plot $B using 1:2:3 with image notitle");
    } else {
        cs_gpbuf_printf(b, "plot NaN notitle");
    }
    for (int k = 0; k < CS_PLOT_BASIN_CLASSES; k++) {
        if (d->counts && d->counts[k] == 0)
            continue;
        char label[80];
        class_label(d, k, label, sizeof label);
        if (dumb)
            cs_gpbuf_printf(b, ", $B using 1:($3==%d?$2:NaN) with points pt '%c'", k,
                            class_glyph[k]);
        else
            cs_gpbuf_printf(b, ", NaN with boxes fs solid 1.0 fc rgb '%s'",
                            cs_plot_basin_colours[k]);
        plot_elem_title(&c, label, 1);
    }
    plot_target_elems(&c, has_lines, has_points);
    plot_geometry_elems(&c, d->geo, &gi, "", d->name);
    if (d->nends) {
        if (!dumb)
            cs_gpbuf_printf(b, ", $E using 1:2 with points pt 9 ps 2.2 lc rgb '#FFFFFF' notitle");
        cs_gpbuf_printf(b, ", $E using 1:2 with points pt 8 ps 2.2 lw 2 lc rgb '#000000'");
        plot_elem_title(&c, "end points", 1);
    }
    cs_gpbuf_printf(b, "\n");
    return plot_finish(&c, err);
}
