/* sweep_report.h — what `sweep` shows (sessions/ only): the caption naming
 * the setting (plot title and the table's first line), the summary table on
 * the terminal, one JSON object per CSV row. */
#ifndef SWEEP_REPORT_H
#define SWEEP_REPORT_H

#include <stddef.h>

#include "cs_plotstore.h"
#include "cs_result.h"
#include "cs_sweep.h"

typedef struct sweep_setting {
    const char *kind;     /* bin osb ... */
    long N;
    int axis;             /* 0 gamma, 1 M, 2 K */
    size_t M;             /* a K sweep's fixed M (0: from gamma) */
    double gamma;         /* a K sweep's fixed gamma */
    long trials;
    long starts;          /* most starts of the CS methods (resolved, not 0) */
    long maxit;           /* iterations per start (resolved) */
    const char *stop;
} sweep_setting;

/* "bin recovery, N = 100, 1000 trials per point, up to 10 starts, 10000 iterations,
 * stop oracle" (a K sweep adds M or gamma). */
void sweep_caption(const sweep_setting *s, char *buf, size_t len);
/* The x axis of the success plot: what the swept value is. */
void sweep_xlabel(const sweep_setting *s, char *buf, size_t len);
/* The terminal's table (success ± stderr per method and grid point, the
 * caption above it; JSON leaves it out) and the field "rows": the CSV's rows
 * as objects. */
void sweep_report(cs_result *res, const cs_sweep_result *r, const sweep_setting *s,
                  const char *const *methods, size_t nm);

/* The success curves of a result (rows method-major; with r->vary, in
 * blocks of one value each): one curve per method, named as it; with vary=
 * over a grid of one point, x is vary's values (xvar its name), over a
 * larger grid one curve per method and value ("bin noise=0.1"). */
typedef struct sweep_curves {
    const char *xvar;         /* "gamma" "M" "K" or r->vary */
    cs_plot_series *series;
    size_t nseries;
    double *mem;              /* the x, y and err arrays */
    char *names;
} sweep_curves;

int sweep_curves_make(const cs_sweep_result *r, const char *const *methods, size_t nm,
                      int axis, sweep_curves *c, cs_err *err);
void sweep_curves_free(sweep_curves *c);

#endif
