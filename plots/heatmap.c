/* heatmap.c — terminal heat maps (heatmap.h). */
#include "heatmap.h"

#include <math.h>
#include <stdlib.h>

/* xterm-256 indices: black through purple, red and orange to pale yellow
 * (an "inferno"-like ramp), then the markers: cyan target set, magenta
 * feasible set, grey and green paths, yellow starts, sky-blue x*, blue
 * iterate; the basin
 * classes green, blue, orange, grey (as cs_plot_basin_colours). */
static const short xterm[CS_HEAT_NCOLORS] = {
    16, 17, 53, 54, 90, 126, 132, 167, 166, 202, 208, 214, 220, 227, 229, 231,
    51, 201, 250, 46, 226, 39, 21,
    35, 25, 214, 245};
static const char ramp_ascii[] = " .,:;=%#@";
static const char mark_ascii[CS_HEAT_NCOLORS - CS_HEAT_RAMP] = {'o', '~', 'x', '+', 'S', '*',
                                                                 'X', '#', 'o', '!', '.'};

short cs_heat_xterm(int colour)
{
    return colour >= 0 && colour < CS_HEAT_NCOLORS ? xterm[colour] : 16;
}

char cs_heat_ascii(int colour)
{
    if (colour >= CS_HEAT_RAMP && colour < CS_HEAT_NCOLORS)
        return mark_ascii[colour - CS_HEAT_RAMP];
    if (colour < 0)
        colour = 0;
    if (colour >= CS_HEAT_RAMP)
        colour = CS_HEAT_RAMP - 1;
    return ramp_ascii[(colour * (int)(sizeof ramp_ascii - 2) + (CS_HEAT_RAMP - 1) / 2) /
                      (CS_HEAT_RAMP - 1)];
}

cs_heat_scale cs_heat_scale_of(const double *z, size_t n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < n; k++)
        if (isfinite(z[k]) && z[k] > 0) {
            lo = fmin(lo, z[k]);
            hi = fmax(hi, z[k]);
        }
    cs_heat_scale s = {0, 1, 0};
    if (!(hi > 0)) {
        s.flat = 1;
        return s;
    }
    double floor = fmax(lo, hi * 1e-6);
    s.l0 = log10(floor);
    s.l1 = log10(hi);
    if (s.l1 - s.l0 < 1e-9)
        s.l0 = s.l1 - 1;
    return s;
}

double cs_heat_level(const cs_heat_scale *s, double z)
{
    if (s->flat || !(z > 0))
        return 0;
    if (!isfinite(z))
        return 1;
    double t = (log10(z) - s->l0) / (s->l1 - s->l0);
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

int cs_heat_ramp_index(double level) { return (int)lround(level * (CS_HEAT_RAMP - 1)); }

int cs_heat_canvas_init(cs_heat_canvas *c, int nx, int ny, double x0, double x1, double y0,
                        double y1)
{
    *c = (cs_heat_canvas){.nx = nx, .ny = ny, .x0 = x0, .x1 = x1, .y0 = y0, .y1 = y1};
    if (nx < 2 || ny < 2)
        return -1;
    c->pix = calloc((size_t)nx * (size_t)ny, sizeof *c->pix);
    return c->pix ? 0 : -1;
}

void cs_heat_canvas_free(cs_heat_canvas *c)
{
    free(c->pix);
    c->pix = NULL;
}

int cs_heat_to_px(const cs_heat_canvas *c, double x, double y, int *i, int *j)
{
    double fx = (x - c->x0) / (c->x1 - c->x0) * (c->nx - 1);
    double fy = (y - c->y0) / (c->y1 - c->y0) * (c->ny - 1);
    if (!isfinite(fx) || !isfinite(fy) || fx < -0.5 || fy < -0.5 || fx > c->nx - 0.5 ||
        fy > c->ny - 0.5)
        return 0;
    *i = (int)lround(fx);
    *j = c->ny - 1 - (int)lround(fy);
    return 1;
}

void cs_heat_point(cs_heat_canvas *c, double x, double y, int colour)
{
    int i, j;
    if (cs_heat_to_px(c, x, y, &i, &j))
        c->pix[j * c->nx + i] = colour;
}

void cs_heat_line(cs_heat_canvas *c, double xa, double ya, double xb, double yb, int colour)
{
    double dx = (xb - xa) / (c->x1 - c->x0) * c->nx, dy = (yb - ya) / (c->y1 - c->y0) * c->ny;
    double len = sqrt(dx * dx + dy * dy);
    if (!isfinite(len))
        return;
    int steps = len > 4096 ? 8192 : (int)(2 * len) + 1;
    for (int k = 0; k <= steps; k++) {
        double t = (double)k / steps;
        cs_heat_point(c, xa + t * (xb - xa), ya + t * (yb - ya), colour);
    }
}

/* The grid point nearest to pixel (i, j) of the canvas (the grid may have
 * another size than the canvas). */
static size_t nearest(const cs_heat_canvas *c, size_t znx, size_t zny, int i, int j)
{
    size_t mj = zny - 1 - (size_t)lround((double)j * (double)(zny - 1) / (c->ny - 1));
    size_t mi = (size_t)lround((double)i * (double)(znx - 1) / (c->nx - 1));
    return mj * znx + mi;
}

void cs_heat_fill(cs_heat_canvas *c, const double *z, size_t znx, size_t zny,
                  const cs_heat_scale *s)
{
    for (int j = 0; j < c->ny; j++)
        for (int i = 0; i < c->nx; i++)
            c->pix[j * c->nx + i] = cs_heat_ramp_index(cs_heat_level(s, z[nearest(c, znx, zny,
                                                                                  i, j)]));
}

void cs_heat_fill_classes(cs_heat_canvas *c, const int *cls, size_t znx, size_t zny)
{
    for (int j = 0; j < c->ny; j++)
        for (int i = 0; i < c->nx; i++) {
            int k = cls[nearest(c, znx, zny, i, j)];
            c->pix[j * c->nx + i] = CS_HEAT_BASIN + (k >= 0 && k < CS_PLOT_BASIN_CLASSES ? k : 3);
        }
}

static void draw_path(cs_heat_canvas *c, const cs_plot_path *p, int colour)
{
    for (size_t k = 1; k < p->n; k++)
        cs_heat_line(c, p->xy[2 * k - 2], p->xy[2 * k - 1], p->xy[2 * k], p->xy[2 * k + 1],
                     colour);
}

int cs_heat_layer_colour(unsigned layer)
{
    switch (layer) {
    case CS_LAYER_TARGET: return CS_HEAT_TARGET;
    case CS_LAYER_CONSTRAINT: return CS_HEAT_CONSTRAINT;
    case CS_LAYER_XSTAR: return CS_HEAT_XSTAR;
    case CS_LAYER_START: return CS_HEAT_START;
    case CS_LAYER_TRAJECTORY: return CS_HEAT_MAIN_PATH;
    case CS_LAYER_ITERATE: return CS_HEAT_ITERATE;
    default: return -1;
    }
}

void cs_heat_geometry(cs_heat_canvas *c, const cs_plot_geometry *g, int iterate)
{
    if (!g)
        return;
    if (g->constraint_n == 2)
        cs_heat_line(c, g->constraint_x[0], g->constraint_y[0], g->constraint_x[1],
                     g->constraint_y[1], CS_HEAT_CONSTRAINT);
    else if (g->constraint_n == 1)
        cs_heat_point(c, g->constraint_x[0], g->constraint_y[0], CS_HEAT_CONSTRAINT);
    for (size_t k = 0; k < g->npaths; k++)
        if (!g->paths[k].success)
            draw_path(c, &g->paths[k], CS_HEAT_PATH);
    for (size_t k = 0; k < g->npaths; k++)
        if (g->paths[k].success)
            draw_path(c, &g->paths[k], CS_HEAT_MAIN_PATH);
    for (size_t k = 0; k < g->npaths; k++)
        if (g->paths[k].n)
            cs_heat_point(c, g->paths[k].xy[0], g->paths[k].xy[1], CS_HEAT_START);
    if (g->has_xstar)
        cs_heat_point(c, g->xstar[0], g->xstar[1], CS_HEAT_XSTAR);
    if (iterate && g->has_iterate)
        cs_heat_point(c, g->iterate[0], g->iterate[1], CS_HEAT_ITERATE);
}

void cs_heat_print(const cs_heat_canvas *c, FILE *out, int rich)
{
    if (!rich) {
        for (int j = 0; j < c->ny; j++) {
            for (int i = 0; i < c->nx; i++)
                fputc(cs_heat_ascii(c->pix[j * c->nx + i]), out);
            fputc('\n', out);
        }
        return;
    }
    for (int r = 0; 2 * r < c->ny; r++) {
        for (int i = 0; i < c->nx; i++) {
            int top = c->pix[2 * r * c->nx + i];
            if (2 * r + 1 < c->ny)
                fprintf(out, "\033[38;5;%d;48;5;%dm\u2580", cs_heat_xterm(top),
                        cs_heat_xterm(c->pix[(2 * r + 1) * c->nx + i]));
            else
                fprintf(out, "\033[38;5;%d;49m\u2580", cs_heat_xterm(top));
        }
        fputs("\033[0m\n", out);
    }
}
