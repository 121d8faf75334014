/* plot_geometry.c — the recovery geometry over a landscape: the feasible
 * set, x*, every start and its path (the highlighted one outlined), the
 * iterate; and which layers a drawing shows. */
#include "plot_internal.h"

#include <math.h>
#include <stdio.h>

static const char constraint_colour[] = "#CC79A7";  /* reddish purple */
static const char xstar_colour[] = "#56B4E9";       /* sky blue */

const char *cs_plot_layer_name(unsigned layer)
{
    switch (layer) {
    case CS_LAYER_TARGET: return "target";
    case CS_LAYER_CONSTRAINT: return "constraint";
    case CS_LAYER_XSTAR: return "xstar";
    case CS_LAYER_START: return "start";
    case CS_LAYER_TRAJECTORY: return "trajectory";
    case CS_LAYER_ITERATE: return "iterate";
    default: return "?";
    }
}

static int in_box(const cs_plot_landscape_data *d, double x, double y)
{
    return x >= d->x0 && x <= d->x1 && y >= d->y0 && y <= d->y1;
}

unsigned cs_plot_layers(const cs_plot_landscape_data *d)
{
    unsigned l = d->ntarget ? CS_LAYER_TARGET : 0;
    const cs_plot_geometry *g = d->geo;
    if (!g)
        return l;
    if (g->constraint_n)
        l |= CS_LAYER_CONSTRAINT;
    if (g->has_xstar && in_box(d, g->xstar[0], g->xstar[1]))
        l |= CS_LAYER_XSTAR;
    if (g->has_iterate && in_box(d, g->iterate[0], g->iterate[1]))
        l |= CS_LAYER_ITERATE;
    for (size_t k = 0; k < g->npaths; k++) {
        const cs_plot_path *p = &g->paths[k];
        if (p->n >= 1 && in_box(d, p->xy[0], p->xy[1]))
            l |= CS_LAYER_START;
        if (p->n >= 2)
            l |= CS_LAYER_TRAJECTORY;
    }
    return l;
}

int plot_check_geometry(const cs_plot_geometry *g, const char *kind, cs_err *err)
{
    if (!g)
        return CS_OK;
    int rc;
    if (g->constraint_n > 2)
        return cs_fail(err, CS_EINVAL, "%s: the feasible set has %zu points (at most 2)", kind,
                       g->constraint_n);
    if ((rc = plot_check_finite(g->constraint_x, g->constraint_n, kind, "constraint", err)) ||
        (rc = plot_check_finite(g->constraint_y, g->constraint_n, kind, "constraint", err)) ||
        (g->has_xstar && (rc = plot_check_finite(g->xstar, 2, kind, "x*", err))) ||
        (g->has_iterate && (rc = plot_check_finite(g->iterate, 2, kind, "iterate", err))))
        return rc;
    if (g->npaths && !g->paths)
        return cs_fail(err, CS_EINVAL, "%s: %zu paths but no data", kind, g->npaths);
    for (size_t k = 0; k < g->npaths; k++) {
        const cs_plot_path *p = &g->paths[k];
        if (p->n > 10000000)
            return cs_fail(err, CS_EDIM, "%s: %zu iterates are too many to plot", kind, p->n);
        if (p->n && !p->xy)
            return cs_fail(err, CS_EINVAL, "%s: path %zu has no data", kind, k + 1);
        if ((rc = plot_check_finite(p->xy, 2 * p->n, kind, "iterates", err)))
            return rc;
    }
    return CS_OK;
}

/* Rows of the paths with highlight `hl` (each path, then a blank line). */
static int path_block(plot_ctx *c, const cs_plot_geometry *g, const char *name, int hl)
{
    int any = 0;
    for (size_t k = 0; k < g->npaths; k++)
        any |= (g->paths[k].success != 0) == hl && g->paths[k].n > 0;
    if (!any)
        return 0;
    plot_datablock_begin(c, name);
    for (size_t k = 0; k < g->npaths; k++) {
        const cs_plot_path *p = &g->paths[k];
        if ((p->success != 0) != hl || p->n == 0)
            continue;
        for (size_t i = 0; i < p->n; i++)
            plot_row(c, p->xy + 2 * i, 2);
        cs_gpbuf_printf(&c->body, "\n");
    }
    plot_datablock_end(c);
    return 1;
}

void plot_geometry_blocks(plot_ctx *c, const cs_plot_geometry *g, plot_geo_info *gi)
{
    *gi = (plot_geo_info){0};
    if (!g)
        return;
    if (g->constraint_n) {
        plot_datablock_begin(c, "$GC");
        for (size_t i = 0; i < g->constraint_n; i++)
            plot_row(c, (double[2]){g->constraint_x[i], g->constraint_y[i]}, 2);
        plot_datablock_end(c);
        gi->constraint = (int)g->constraint_n;
    }
    gi->other_paths = path_block(c, g, "$GF", 0);
    gi->main_path = path_block(c, g, "$GS", 1);
    for (size_t k = 0; k < g->npaths; k++)
        gi->starts += g->paths[k].n > 0;
    if (gi->starts) {
        plot_datablock_begin(c, "$GT");
        for (size_t k = 0; k < g->npaths; k++)
            if (g->paths[k].n)
                plot_row(c, g->paths[k].xy, 2);
        plot_datablock_end(c);
    }
    if (g->has_xstar) {
        plot_datablock_begin(c, "$GX");
        plot_row(c, g->xstar, 2);
        plot_datablock_end(c);
    }
    if (g->has_iterate) {
        plot_datablock_begin(c, "$GI");
        plot_row(c, g->iterate, 2);
        plot_datablock_end(c);
    }
}

/* A marker with a white fill under a black outline (one legend entry). */
static void ringed(plot_ctx *c, const char *block, const char *zcol, int fill_pt, int ring_pt,
                   double ps, const char *title, int literal)
{
    cs_gpbuf *b = &c->body;
    if (c->term != CS_PLOT_TERM_DUMB)
        cs_gpbuf_printf(b, ", %s using 1:2%s with points pt %d ps %g lc rgb '#FFFFFF' notitle",
                        block, zcol, fill_pt, ps);
    cs_gpbuf_printf(b, ", %s using 1:2%s with points pt %d ps %g lw 2 lc rgb '#000000'", block,
                    zcol, ring_pt, ps);
    plot_elem_title(c, title, literal);
}

void plot_geometry_elems(plot_ctx *c, const cs_plot_geometry *g, const plot_geo_info *gi,
                         const char *zcol, const char *name)
{
    if (!g)
        return;
    cs_gpbuf *b = &c->body;
    int dumb = c->term == CS_PLOT_TERM_DUMB;
    if (gi->constraint == 2) {
        cs_gpbuf_printf(b, ", $GC using 1:2%s with lines lc rgb '%s' lw 2.5", zcol,
                        constraint_colour);
        plot_elem_title(c, "feasible set Ax = b", 1);
    } else if (gi->constraint == 1) {
        cs_gpbuf_printf(b, ", $GC using 1:2%s with points pt 13 ps 2.2 lc rgb '%s'", zcol,
                        constraint_colour);
        plot_elem_title(c, "feasible set Ax = b (a point)", 1);
    }
    if (gi->other_paths) {
        cs_gpbuf_printf(b, ", $GF using 1:2%s with linespoints lc rgb '#000000' lw 2 pt 7 ps 0.5",
                        zcol);
        plot_elem_title(c, "other starts", 1);
        if (!dumb)
            cs_gpbuf_printf(b, ", $GF using 1:2%s with linespoints lc rgb '#BBBBBB' lw 0.8 pt 7"
                               " ps 0.3 notitle", zcol);
    }
    if (gi->main_path) {
        int lit;
        const char *ml = plot_method_label(c, name, NULL, &lit);
        char label[600];
        if (ml)
            snprintf(label, sizeof label, "%.500s iterates", ml);
        else
            snprintf(label, sizeof label, "iterates");
        /* a white path outlined in black shows on every colour of the map;
         * the (black) outline carries the legend entry, which sits on white */
        cs_gpbuf_printf(b, ", $GS using 1:2%s with linespoints lc rgb '#000000' lw 4 pt 7 ps 0.8",
                        zcol);
        plot_elem_title(c, label, ml ? lit : 1);
        if (!dumb)
            cs_gpbuf_printf(b, ", $GS using 1:2%s with linespoints lc rgb '#FFFFFF' lw 1.5 pt 7"
                               " ps 0.5 notitle", zcol);
    }
    if (gi->starts)
        ringed(c, "$GT", zcol, 7, 6, 2.2, gi->starts > 1 ? "starts" : "start", 1);
    if (g->has_xstar) {
        cs_gpbuf_printf(b, ", $GX using 1:2%s with points pt 3 ps 2.6 lw 3 lc rgb '%s'", zcol,
                        xstar_colour);
        plot_elem_title(c, c->enhanced ? "x^{*}" : "x*", !c->enhanced);
    }
    if (g->has_iterate)
        ringed(c, "$GI", zcol, 5, 4, 2, "iterate", 1);
}
