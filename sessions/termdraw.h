/* termdraw.h — maps drawn into the terminal by commands (sessions/ only):
 * `landscape` and `basins` without out=. Coloured half blocks when the
 * results go to a terminal that takes them, an ASCII ramp otherwise (a
 * pipe, a file, --json, TERM=dumb). */
#ifndef CS_TERMDRAW_H
#define CS_TERMDRAW_H

#include "cs_interp.h"
#include "cs_result.h"
#include "heatmap.h"

/* 1 when results go to a terminal that takes 256 colours and UTF-8. */
int term_rich(const cs_interp *in);
/* The canvas for a map of the box: its width in characters and pixel rows
 * (rich: two per text row), odd so that a box symmetric about 0 has pixels
 * on the axes. */
int term_canvas(const cs_interp *in, double x0, double x1, double y0, double y1,
                cs_heat_canvas *c);
/* The canvas as text in res, with y ticks on the left, x ticks below, and
 * the legend lines (already worded) under it. */
void term_print(const cs_interp *in, cs_result *res, const cs_heat_canvas *c,
                const char *const *legend, size_t nlegend);

/* A legend line naming the markers of `layers` (bits of enum
 * cs_plot_layer): coloured samples when rich, the ASCII glyphs otherwise. */
void term_layer_legend(const cs_interp *in, unsigned layers, char *buf, size_t len);
/* One legend entry: a sample of colour index `colour` and its text. */
void term_legend_add(const cs_interp *in, int colour, const char *text, char *buf, size_t len);

#endif
