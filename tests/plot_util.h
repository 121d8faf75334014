/* plot_util.h — shared by the plots/ tests (test_plots_*.c): fixed small
 * data sets for every kind of plot, one call for any kind (plot_call) and
 * the gnuplot text it would send, temporary folders, and whether gnuplot
 * is usable (tests that need it are skipped when it is not installed). */
#ifndef CS_PLOT_UTIL_H
#define CS_PLOT_UTIL_H

#include <stddef.h>

#include "plot.h"

/* Set by plot_group_setup: gnuplot was found and runs. */
extern int have_gnuplot;
/* cmocka group setup of the plots suites: detects gnuplot. */
int plot_group_setup(void **state);

/* A fresh folder under /tmp (malloc'd name); its entries but . and ..;
 * removing it with the files in it (and freeing the name). */
char *make_tmpdir(void);
int count_entries(const char *dir);
void remove_tmpdir(char *dir);

/* ℓ_bin of (x, y); land_data's z holds it on a LNX×LNY grid. */
double lbin2(double x, double y);
#define LNX 6
#define LNY 5
extern double land_z[LNX * LNY];
/* The arrays behind success_data's series and hist_data's frames. */
extern cs_plot_series succ_series[3];
extern cs_plot_hist_frame hist_frames[3];

/* The fixed data sets, one per kind of plot. */
cs_plot_landscape_data land_data(void);
cs_plot_trajectory_data traj_data(void);
cs_plot_success_data success_data(void);
cs_plot_trace_data trace_data(void);
cs_plot_hist_data hist_data(size_t nframes);
cs_plot_maxcut_data maxcut_data(void);

/* One plot call of any kind: `kind` says which member is drawn. */
typedef enum { K_LAND, K_TRAJ, K_SUCCESS, K_TRACE, K_HIST, K_MAXCUT } kind_t;

typedef struct plot_call {
    kind_t kind;
    cs_plot_landscape_data land;
    cs_plot_trajectory_data traj;
    cs_plot_success_data succ;
    cs_plot_trace_data trace;
    cs_plot_hist_data hist;
    cs_plot_maxcut_data mc;
} plot_call;

/* Draw p with options o. */
int call_plot(const plot_call *p, const cs_plot_opts *o, cs_err *err);
/* The gnuplot text p would send with o (script-only mode), malloc'd. */
char *script_of(const plot_call *p, cs_plot_opts o);

#endif
