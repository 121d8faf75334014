/* plot_util.c — see plot_util.h. */
#include "plot_util.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gp.h"

int have_gnuplot;

int plot_group_setup(void **state)
{
    (void)state;
    cs_err err = {0};
    have_gnuplot = cs_gp_detect(NULL, &err) == CS_OK;
    if (!have_gnuplot)
        print_message("gnuplot not usable (%s): rendering tests skipped\n", err.msg);
    return 0;
}

/* ---- helpers --------------------------------------------------------------- */

char *make_tmpdir(void)
{
    char *d = strdup("/tmp/csreg-plots-XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

void remove_tmpdir(char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
    free(dir);
}

/* ---- fixed small data sets ---------------------------------------------------- */

double lbin2(double x, double y)
{
    return 2 * (x * x * x * x + y * y * y * y) - (x * x + y * y) * (x * x + y * y);
}

#define LNX 6
#define LNY 5
double land_z[LNX * LNY];
static const double diag_x[2] = {-2, 2}, diag_y1[2] = {-2, 2}, diag_y2[2] = {2, -2};
static const double pt_x[1] = {0}, pt_y[1] = {0};
static cs_plot_curve land_targets[3];

cs_plot_landscape_data land_data(void)
{
    for (int j = 0; j < LNY; j++)
        for (int i = 0; i < LNX; i++)
            land_z[j * LNX + i] = lbin2(-2 + 4.0 * i / (LNX - 1), -1 + 2.0 * j / (LNY - 1));
    land_targets[0] = (cs_plot_curve){diag_x, diag_y1, 2};
    land_targets[1] = (cs_plot_curve){diag_x, diag_y2, 2};
    land_targets[2] = (cs_plot_curve){pt_x, pt_y, 1};
    return (cs_plot_landscape_data){
        .reg = "bin", .nx = LNX, .ny = LNY, .x0 = -2, .x1 = 2, .y0 = -1, .y1 = 1,
        .z = land_z, .log_scale = 1, .target = land_targets, .ntarget = 3,
    };
}

static const double traj_xy[] = {1.5, 0.3, 1.2, 0.5, 1.0, 0.8, 0.9, 0.9};
static const double traj_failed[] = {-1.5, -0.2, -1.0, 0.4, -0.6, 0.6};
static cs_plot_path traj_paths[2];
static cs_plot_geometry traj_geo;

/* Two starts (the first failed), the feasible set x + y = 1.8 (through the
 * successful end point), x*, the iterate. */
cs_plot_trajectory_data traj_data(void)
{
    traj_paths[0] = (cs_plot_path){.xy = traj_failed, .n = 3, .start = 1};
    traj_paths[1] = (cs_plot_path){.xy = traj_xy, .n = 4, .start = 2, .success = 1};
    traj_geo = (cs_plot_geometry){.constraint_x = {0.8, 2}, .constraint_y = {1, -0.2},
                                  .constraint_n = 2, .has_xstar = 1, .xstar = {0.9, 0.9},
                                  .paths = traj_paths, .npaths = 2, .has_iterate = 1,
                                  .iterate = {0.9, 0.9}};
    cs_plot_trajectory_data d = {.land = land_data(), .name = "fista"};
    d.land.geo = &traj_geo;
    return d;
}

static const double g_x[5] = {0.3, 0.4, 0.5, 0.6, 0.7};
static const double g_bin[5] = {0.1, 0.35, 0.8, 0.95, 1.0};
static const double g_bin_e[5] = {0.03, 0.048, 0.04, 0.022, 0.0};
static const double g_linf[5] = {0.0, 0.05, 0.4, 0.85, 1.0};
static const double g_linf_e[5] = {0.0, 0.022, 0.049, 0.036, 0.0};
static const double g_other[5] = {0.05, 0.2, 0.5, 0.7, 0.9};
cs_plot_series succ_series[3];

cs_plot_success_data success_data(void)
{
    succ_series[0] = (cs_plot_series){"bin", g_x, g_bin, g_bin_e, 5};
    succ_series[1] = (cs_plot_series){"linf", g_x, g_linf, g_linf_e, 5};
    succ_series[2] = (cs_plot_series){"my_method{x}", g_x, g_other, NULL, 5};
    return (cs_plot_success_data){.xvar = "gamma", .series = succ_series, .nseries = 3};
}

static const double tr_obj[5] = {10, 3, 1, 0.5, 0.45};
static const double tr_res[5] = {1, 0.1, 0.01, 1e-3, 1e-5};
static const double tr_tau[5] = {0.5, 0.5, 0.25, 0.25, 0.25};
static const double tr_err[5] = {1, 0.5, 0.1, 0.0, 0.0};

cs_plot_trace_data trace_data(void)
{
    return (cs_plot_trace_data){.n = 5, .objective = tr_obj, .residual = tr_res,
                                .tau = tr_tau, .err_xstar = tr_err, .name = "fista"};
}

static const double h0[12] = {-1.2, -0.9, -0.5, -0.1, 0.0, 0.2, 0.3, 0.6, 0.8, 1.0, 1.1, 0.05};
static const double h1[12] = {-1.1, -1.0, -0.95, -0.9, 0.1, 0.9, 0.95, 1.0, 1.0, 1.05, -1.0, 1.0};
static const double h2[12] = {-1, -1, -1, -1, -1, 1, 1, 1, 1, 1, 1, -1};
static const double marks[2] = {-1, 1};
cs_plot_hist_frame hist_frames[3];

cs_plot_hist_data hist_data(size_t nframes)
{
    hist_frames[0] = (cs_plot_hist_frame){h0, 12, "epoch 0"};
    hist_frames[1] = (cs_plot_hist_frame){h1, 12, "epoch 5"};
    hist_frames[2] = (cs_plot_hist_frame){h2, 12, "epoch 20"};
    return (cs_plot_hist_data){.frames = hist_frames, .nframes = nframes, .bins = 8,
                               .marks = marks, .nmarks = 2, .xlabel = "weight"};
}

static const double mc_it[6] = {1, 2, 3, 4, 5, 6};
static const double mc_a[6] = {100, 150, 170, 180, 181, 181};
static const double mc_b[6] = {90, 140, 175, 178, 184, 185};
static cs_plot_series mc_series[2];

cs_plot_maxcut_data maxcut_data(void)
{
    mc_series[0] = (cs_plot_series){"trial 1", mc_it, mc_a, NULL, 6};
    mc_series[1] = (cs_plot_series){"trial 2", mc_it, mc_b, NULL, 6};
    return (cs_plot_maxcut_data){.series = mc_series, .nseries = 2, .best = 190, .has_best = 1,
                                 .graph = "G10"};
}

int call_plot(const plot_call *p, const cs_plot_opts *o, cs_err *err)
{
    switch (p->kind) {
    case K_LAND: return cs_plot_landscape(&p->land, o, err);
    case K_TRAJ: return cs_plot_trajectory(&p->traj, o, err);
    case K_SUCCESS: return cs_plot_success(&p->succ, o, err);
    case K_TRACE: return cs_plot_trace(&p->trace, o, err);
    case K_HIST: return cs_plot_hist(&p->hist, o, err);
    default: return cs_plot_maxcut(&p->mc, o, err);
    }
}

char *script_of(const plot_call *p, cs_plot_opts o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    o.script = f;
    cs_err err = {0};
    int rc = call_plot(p, &o, &err);
    fclose(f);
    if (rc != CS_OK)
        fail_msg("script-only plot failed: %s", err.msg);
    return buf;
}
