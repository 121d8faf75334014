/* heatmap.h — values over a 2D box as coloured cells of a terminal: the
 * log colour scale and the 16-level ramp that the workbench's Landscape
 * panel and `landscape` without out= share, a pixel canvas with the target
 * set and the recovery geometry drawn in, basin maps, and text output
 * (256-colour half blocks, or an ASCII ramp). Colours are indices: ramp
 * levels 0..CS_HEAT_RAMP-1, then the markers. */
#ifndef CS_HEATMAP_H
#define CS_HEATMAP_H

#include <stddef.h>
#include <stdio.h>

#include "plot.h"

enum { CS_HEAT_RAMP = 16 };
enum cs_heat_colour {
    CS_HEAT_TARGET = CS_HEAT_RAMP,  /* the target set */
    CS_HEAT_CONSTRAINT,             /* the feasible set Ax = b */
    CS_HEAT_PATH,                   /* the paths of other starts */
    CS_HEAT_MAIN_PATH,              /* the highlighted (successful or current) path */
    CS_HEAT_START,                  /* start points */
    CS_HEAT_XSTAR,                  /* x* */
    CS_HEAT_ITERATE,                /* the iterate (where no glyph marks it) */
    CS_HEAT_BASIN,                  /* basin classes: success, other, spurious, not converged */
    CS_HEAT_NCOLORS = CS_HEAT_BASIN + CS_PLOT_BASIN_CLASSES
};
/* The xterm-256 colour and the ASCII glyph of a colour index. */
short cs_heat_xterm(int colour);
char cs_heat_ascii(int colour);

/* Log scale over six decades below the largest finite positive value
 * (zeros, the target set, get the lowest colour). */
typedef struct cs_heat_scale {
    double l0, l1;       /* log10 of the lowest and highest value shown */
    int flat;            /* no positive value */
} cs_heat_scale;
cs_heat_scale cs_heat_scale_of(const double *z, size_t n);
double cs_heat_level(const cs_heat_scale *s, double z);   /* 0..1 */
int cs_heat_ramp_index(double level);                      /* 0..CS_HEAT_RAMP-1 */

/* nx × ny pixels over the box; pixel row 0 is the top (largest y). */
typedef struct cs_heat_canvas {
    int nx, ny;
    int *pix;            /* colour indices */
    double x0, x1, y0, y1;
} cs_heat_canvas;
int cs_heat_canvas_init(cs_heat_canvas *c, int nx, int ny, double x0, double x1, double y0,
                        double y1);
void cs_heat_canvas_free(cs_heat_canvas *c);
/* The pixel of (x, y): 1 when inside the canvas. */
int cs_heat_to_px(const cs_heat_canvas *c, double x, double y, int *i, int *j);
void cs_heat_point(cs_heat_canvas *c, double x, double y, int colour);
void cs_heat_line(cs_heat_canvas *c, double xa, double ya, double xb, double yb, int colour);
/* The ramp colours of z (znx × zny, z[j*znx + i] at row j from the bottom),
 * sampled at the nearest grid point of each pixel. */
void cs_heat_fill(cs_heat_canvas *c, const double *z, size_t znx, size_t zny,
                  const cs_heat_scale *s);
/* Basin classes (0..3) the same way. */
void cs_heat_fill_classes(cs_heat_canvas *c, const int *cls, size_t znx, size_t zny);
/* The geometry on top: feasible set, other paths, the highlighted path,
 * starts, x*, and with `iterate` the iterate (else the caller marks it,
 * e.g. with a glyph). */
void cs_heat_geometry(cs_heat_canvas *c, const cs_plot_geometry *g, int iterate);
/* The marker colour of each layer bit (enum cs_plot_layer); -1: none. */
int cs_heat_layer_colour(unsigned layer);
/* Text, one line per two pixel rows (upper half blocks, 256 colours) when
 * rich, else one line per pixel row of ASCII glyphs. */
void cs_heat_print(const cs_heat_canvas *c, FILE *out, int rich);

#endif
