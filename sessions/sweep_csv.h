/* sweep_csv.h — success curves read back from sweep CSVs (`plot success
 * from=A.csv,B.csv`): the runs of several sweeps (an affine and a
 * least-squares fit, two machines, two days) in one figure. */
#ifndef SWEEP_CSV_H
#define SWEEP_CSV_H

#include <stddef.h>

#include "cs_error.h"
#include "cs_plotstore.h"

typedef struct sweep_csv_curves {
    cs_plot_series *series;
    size_t nseries;
    char xvar[32];           /* the x column's name */
    double *mem;             /* x, y, err of every series */
    char *names;             /* the series' names, 128 bytes each */
} sweep_csv_curves;

/* One curve per file and method: x from column `x` (NULL: the first column
 * when it is not `method`, as `sweep vary=` writes it, else gamma, M or K:
 * the first of them that varies), y from success, error bars from stderr;
 * '#' lines skipped. A curve is named by its method, with the file's label
 * in parentheses when several files are read (labels[i], else the file's
 * base name less .csv). Errors name the file and line. */
int sweep_csv_read(const char *const *paths, const char *const *labels, size_t nfiles,
                   const char *x, sweep_csv_curves *c, cs_err *err);
void sweep_csv_free(sweep_csv_curves *c);

#endif
