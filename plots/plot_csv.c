/* plot_csv.c — the numbers behind each kind of plot as CSV (plot.h), for
 * figures restyled outside csreg. The hist kind's is in plot_hist.c, next
 * to the binning it shares with the drawing. */
#include "plot_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cs_csv.h"
#include "cs_landscape.h"
#include "cs_parse.h"

/* One number, shortest round-trip form, after sep (0: none). */
static void num(FILE *f, char sep, double v)
{
    char t[40];
    cs_format_double(t, sizeof t, v);
    if (sep)
        fputc(sep, f);
    fputs(t, f);
}

static int done(FILE *f, const char *kind, cs_err *err)
{
    if (fflush(f) != 0 || ferror(f))
        return cs_fail(err, CS_EIO, "%s: cannot write the CSV: %s", kind, strerror(errno));
    return CS_OK;
}

/* The grid axis as the commands compute it (cs_grid_axis), malloc'd. */
static int axis(double lo, double hi, size_t n, const char *name, double **out, cs_err *err)
{
    *out = NULL;
    double *v = malloc(n * sizeof *v);
    if (!v)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    int rc = cs_grid_axis(name, lo, hi, n, v, err);
    if (rc)
        free(v);
    else
        *out = v;
    return rc;
}

/* x,y,<cell> rows over an nx x ny grid (n >= 2 each), y outer, x inner:
 * cell(f, d, j*nx + i) writes the last field. */
typedef void (*cell_fn)(FILE *f, const void *d, size_t k);

static int grid_csv(FILE *f, const char *kind, const char *header, size_t nx, size_t ny,
                    double x0, double x1, double y0, double y1, cell_fn cell, const void *d,
                    cs_err *err)
{
    double *xs, *ys = NULL;
    int rc = axis(x0, x1, nx, "x", &xs, err);
    if (!rc)
        rc = axis(y0, y1, ny, "y", &ys, err);
    if (!rc) {
        fputs(header, f);
        for (size_t j = 0; j < ny; j++)
            for (size_t i = 0; i < nx; i++) {
                num(f, 0, xs[i]);
                num(f, ',', ys[j]);
                fputc(',', f);
                cell(f, d, j * nx + i);
                fputc('\n', f);
            }
        rc = done(f, kind, err);
    }
    free(xs);
    free(ys);
    return rc;
}

static void land_cell(FILE *f, const void *d, size_t k)
{
    num(f, 0, ((const cs_plot_landscape_data *)d)->z[k]);
}

int cs_plot_landscape_csv(const cs_plot_landscape_data *d, FILE *f, cs_err *err)
{
    if (!d || !d->z || d->nx < 2 || d->ny < 2)
        return cs_fail(err, CS_EINVAL, "landscape: no data");
    return grid_csv(f, "landscape", "x,y,value\n", d->nx, d->ny, d->x0, d->x1, d->y0, d->y1,
                    land_cell, d, err);
}

int cs_plot_trajectory_csv(const cs_plot_trajectory_data *d, FILE *f, cs_err *err)
{
    const cs_plot_geometry *g = d ? d->land.geo : NULL;
    if (!g || !g->npaths)
        return cs_fail(err, CS_EINVAL, "trajectory: no path");
    fputs("start,point,x,y\n", f);
    for (size_t p = 0; p < g->npaths; p++)
        for (size_t i = 0; i < g->paths[p].n; i++) {
            fprintf(f, "%d,%zu", g->paths[p].start, i);
            num(f, ',', g->paths[p].xy[2 * i]);
            num(f, ',', g->paths[p].xy[2 * i + 1]);
            fputc('\n', f);
        }
    return done(f, "trajectory", err);
}

/* name,x,y[,err] rows of every series; the name field literal, quoted. */
static int series_csv(FILE *f, const char *kind, const char *header, const cs_plot_series *s,
                      size_t ns, int with_err, cs_err *err)
{
    if (!s || !ns)
        return cs_fail(err, CS_EINVAL, "%s: no data", kind);
    fputs(header, f);
    for (size_t k = 0; k < ns; k++)
        for (size_t i = 0; i < s[k].n; i++) {
            cs_csv_field(f, s[k].name ? s[k].name : "");
            num(f, ',', s[k].x[i]);
            num(f, ',', s[k].y[i]);
            if (with_err) {
                fputc(',', f);
                if (s[k].err)
                    num(f, 0, s[k].err[i]);
            }
            fputc('\n', f);
        }
    return done(f, kind, err);
}

int cs_plot_success_csv(const cs_plot_success_data *d, FILE *f, cs_err *err)
{
    if (!d)
        return cs_fail(err, CS_EINVAL, "success: no data");
    int with_err = 0;
    for (size_t k = 0; k < d->nseries; k++)
        with_err |= d->series[k].err != NULL;
    /* the axis' name is a word of csreg's (gamma, K, M, noise...); anything
     * else would not make a column name */
    const char *x = d->xvar && *d->xvar && !strpbrk(d->xvar, ",\"\r\n") ? d->xvar : "gamma";
    char header[160];
    snprintf(header, sizeof header, "method,%.64s,success%s\n", x, with_err ? ",stderr" : "");
    return series_csv(f, "success", header, d->series, d->nseries, with_err, err);
}

int cs_plot_maxcut_csv(const cs_plot_maxcut_data *d, FILE *f, cs_err *err)
{
    if (!d)
        return cs_fail(err, CS_EINVAL, "maxcut: no data");
    return series_csv(f, "maxcut", "method,iter,cut\n", d->series, d->nseries, 0, err);
}

int cs_plot_trace_csv(const cs_plot_trace_data *d, FILE *f, cs_err *err)
{
    if (!d || !d->n)
        return cs_fail(err, CS_EINVAL, "trace: no data");
    const double *col[4] = {d->objective, d->residual, d->tau, d->err_xstar};
    static const char *const name[4] = {"objective", "residual", "tau", "rel_err"};
    fputs("iter,start", f);
    for (int c = 0; c < 4; c++)
        if (col[c])
            fprintf(f, ",%s", name[c]);
    fputc('\n', f);
    size_t start = 1;   /* start_iter: the first iteration of starts 2, 3, ... */
    for (size_t i = 0; i < d->n; i++) {
        double it = d->iter ? d->iter[i] : (double)(i + 1);
        while (d->start_iter && start - 1 < d->nstarts && d->start_iter[start - 1] <= it)
            start++;
        num(f, 0, it);
        fprintf(f, ",%zu", start);
        for (int c = 0; c < 4; c++)
            if (col[c])
                num(f, ',', col[c][i]);
        fputc('\n', f);
    }
    return done(f, "trace", err);
}

static const char *const basin_class[CS_PLOT_BASIN_CLASSES] = {"success", "other", "spurious",
                                                               "not_converged"};

static void basin_cell(FILE *f, const void *d, size_t k)
{
    int c = ((const cs_plot_basins_data *)d)->cls[k];
    fputs(c >= 0 && c < CS_PLOT_BASIN_CLASSES ? basin_class[c] : "unknown", f);
}

int cs_plot_basins_csv(const cs_plot_basins_data *d, FILE *f, cs_err *err)
{
    if (!d || !d->cls || d->nx < 2 || d->ny < 2)
        return cs_fail(err, CS_EINVAL, "basins: no data");
    return grid_csv(f, "basins", "x,y,class\n", d->nx, d->ny, d->x0, d->x1, d->y0, d->y1,
                    basin_cell, d, err);
}
