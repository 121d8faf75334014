/* cmd_basins.c — `basins`: run the current problem's method from every
 * start of a grid (N = 2: the plane; N > 2: a 2D slice through x*),
 * classify where each run ends, and draw the basin map (cs_basins.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_array_io.h"
#include "cs_geometry.h"
#include "cs_limits.h"
#include "cs_landscape.h"
#include "cs_parse.h"
#include "cs_plotstore.h"
#include "cs_provenance.h"
#include "cs_sweep_stream.h"
#include "interp_internal.h"
#include "solve_state.h"
#include "termdraw.h"

/* The clusters (largest first, at most 12) as a list and as lines. */
static void write_clusters(FILE *j, FILE *t, const void *ctx)
{
    const cs_basins *b = ctx;
    fputc('[', j);
    size_t shown = b->nclusters < 12 ? b->nclusters : 12;
    for (size_t k = 0; k < shown; k++) {
        const cs_basin_cluster *c = &b->clusters[k];
        char x[40], y[40], e[40];
        cs_format_double(x, sizeof x, c->xy[0]);
        cs_format_double(y, sizeof y, c->xy[1]);
        cs_format_double(e, sizeof e, c->rel_err);
        fprintf(j, "%s{\"class\":\"%s\",\"count\":%zu,\"x\":[%s,%s],\"rel_err\":%s}", k ? "," : "",
                cs_basin_class_name(c->cls), c->count, x, y, e);
        fprintf(t, "\n  %-13s %6zu starts end at (%.4g, %.4g), rel. error %.3g",
                cs_basin_class_name(c->cls), c->count, c->xy[0], c->xy[1], c->rel_err);
    }
    fputc(']', j);
}

/* counts as {"success":n,...} and the clusters (largest first) as a list. */
static void put_counts(cs_result *res, const cs_basins *b)
{
    char json[512], text[512];
    size_t jl = 0, tl = 0;
    json[jl++] = '{';
    for (int c = 0; c < CS_BASIN_CLASSES; c++) {
        jl += (size_t)snprintf(json + jl, sizeof json - jl, "%s\"%s\":%zu", c ? "," : "",
                               cs_basin_class_name(c), b->counts[c]);
        tl += (size_t)snprintf(text + tl, sizeof text - tl, "%s%s %zu", c ? ", " : "",
                               cs_basin_class_name(c), b->counts[c]);
    }
    snprintf(json + jl, sizeof json - jl, "}");
    cs_result_json(res, "counts", json, text);
    cs_result_json_written(res, "clusters", write_clusters, b);
    cs_result_int(res, "nclusters", (long long)b->nclusters);
}

/* The basin map's drawing data (classes, end points, target set, feasible
 * set and x*) into the plot store. */
static int store_basins(cs_interp *in, solve_state *st, const cs_basins *b, cs_err *err)
{
    double *ends = malloc((2 * b->nclusters + 1) * sizeof *ends);
    int *ecls = malloc((b->nclusters + 1) * sizeof *ecls);
    cs_reg *reg = NULL;
    cs_err sub;
    int rc = ends && ecls ? CS_OK : cs_fail(err, CS_ENOMEM, "out of memory");
    for (size_t k = 0; !rc && k < b->nclusters; k++) {
        ends[2 * k] = b->clusters[k].xy[0];
        ends[2 * k + 1] = b->clusters[k].xy[1];
        ecls[k] = b->clusters[k].cls;
    }
    cs_landscape_curve t[CS_LANDSCAPE_MAX_TARGETS];
    cs_plot_curve tc[CS_LANDSCAPE_MAX_TARGETS];
    size_t nt = 0;
    const double *xs = cs_problem_xstar(st->prob);
    const double *centre = b->centre ? b->centre : xs;   /* the slice's point */
    if (!rc && !cs_method_reg_new(&reg, &st->basins_method, st->prob, cs_interp_seed(in), &sub) &&
        cs_landscape_family(reg) != CS_TARGET_NONE) {
        size_t nlevels = 0;
        const double *levels = cs_reg_target_levels(reg, &nlevels);
        nt = cs_landscape_targets(levels, nlevels, centre, b->N, b->dims, b->x0, b->x1, b->y0,
                                  b->y1, t);
    }
    cs_reg_free(reg);
    for (size_t k = 0; k < nt; k++)
        tc[k] = (cs_plot_curve){t[k].x, t[k].y, t[k].n};
    /* the feasible set and x* on the slice through x* (the plane for N = 2) */
    cs_plot_geometry geo = {.has_xstar = xs != NULL,
                            .xstar = {xs ? xs[b->dims[0]] : 0.0, xs ? xs[b->dims[1]] : 0.0}};
    cs_landscape_curve c;
    if (cs_problem_constraint_slice(st->prob, b->N > 2 ? centre : NULL, b->dims, b->x0, b->x1, b->y0,
                                    b->y1, &c)) {
        geo.constraint_n = c.n;
        memcpy(geo.constraint_x, c.x, sizeof c.x);
        memcpy(geo.constraint_y, c.y, sizeof c.y);
    }
    cs_plot_basins_data d = {.nx = b->res, .ny = b->res, .x0 = b->x0, .x1 = b->x1,
                             .y0 = b->y0, .y1 = b->y1, .cls = b->cls,
                             .dims = {(int)b->dims[0], (int)b->dims[1]}, .ends = ends,
                             .end_cls = ecls, .nends = b->nclusters, .counts = b->counts,
                             .target = nt ? tc : NULL, .ntarget = nt, .geo = &geo,
                             .name = st->basins_method.text};
    if (!rc)
        rc = cs_plotstore_basins(in, &d, err);
    free(ends);
    free(ecls);
    return rc;
}

/* The basin map in the terminal. */
static void draw_terminal(cs_interp *in, const cs_basins *b, cs_result *res)
{
    cs_heat_canvas c;
    if (term_canvas(in, b->x0, b->x1, b->y0, b->y1, &c))
        return;
    cs_heat_fill_classes(&c, b->cls, b->res, b->res);
    for (size_t k = 0; k < b->nclusters; k++)
        cs_heat_point(&c, b->clusters[k].xy[0], b->clusters[k].xy[1], CS_HEAT_XSTAR);
    char legend[1024] = "";
    for (int k = 0; k < CS_BASIN_CLASSES; k++) {
        char text[64];
        snprintf(text, sizeof text, "%s %zu", cs_basin_class_name(k), b->counts[k]);
        term_legend_add(in, CS_HEAT_BASIN + k, text, legend, sizeof legend);
    }
    term_legend_add(in, CS_HEAT_XSTAR, "end points", legend, sizeof legend);
    const char *lines[1] = {legend};
    term_print(in, res, &c, lines, 1);
    cs_heat_canvas_free(&c);
}

/* at=v1,...,vN or at=FILE (a vector of N entries, any array format): the
 * point the slice of an N > 2 problem goes through. */
static int basins_centre(cs_interp *in, const cs_cmdline *cl, size_t N, double **out,
                         cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, "at");
    size_t rows = 0, cols = 0, fault = 0;
    cs_err sub;
    int rc;
    *out = NULL;
    if (strchr(a->value, ',') || strspn(a->value, "+-.0123456789eE") == strlen(a->value)) {
        if ((rc = cs_parse_matrix_at(a->value, out, &rows, &cols, &fault, &sub))) {
            in->err_col = cs_arg_value_col(a, fault);
            return cs_fail(err, rc, "at=%s: %s", a->value, sub.msg);
        }
    } else {
        char path[4096];
        cs_array arr;
        if ((rc = cs_arg_path(in, cl, "at", path, sizeof path, err)))
            return rc;
        if ((rc = cs_array_read(path, &arr, &sub))) {
            cs_arg_blame(in, cl, "at", 0);
            return cs_fail(err, rc, "at=%s", sub.msg);
        }
        /* the file's digest in the journal: a replay refuses a changed one */
        if ((rc = cs_interp_input_file(in, cl, a->value, path, err))) {
            cs_array_free(&arr);
            return rc;
        }
        *out = arr.data;
        rows = arr.rows, cols = arr.cols;
    }
    if (rows * cols != N || (rows != 1 && cols != 1)) {
        free(*out);
        *out = NULL;
        cs_arg_blame(in, cl, "at", 0);
        return cs_fail(err, CS_EINVAL, "at=: a vector of N = %zu entries (got %zux%zu)", N,
                       rows, cols);
    }
    if (N <= 2) {
        free(*out);
        *out = NULL;
    }
    return CS_OK;
}

static int cmd_basins(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    solve_state *st;
    int rc = solve_need_problem(in, cl, &st, err);
    if (rc)
        return rc;
    cs_basins_spec sp = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .dims = {0, 1},
                         .seed = cs_interp_seed(in), .cancel = cs_interp_cancel_flag(in)};
    long r, maxit, threads;
    char text[1024];
    const char *reg = cs_arg_text(cl, "reg", NULL);
    if ((rc = cs_arg_long(in, cl, "res", 101, 2, CS_BASINS_MAX_RES, &r, err)) ||
        (rc = cs_arg_long(in, cl, "maxit", 2000, 1, 100000000L, &maxit, err)) ||
        (rc = cs_arg_long(in, cl, "threads", cs_interp_threads(in), 0, CS_MAX_THREADS, &threads,
                                err)) ||
        (rc = cs_arg_box(in, cl, "x", &sp.x0, &sp.x1, err)) ||
        (rc = cs_arg_box(in, cl, "y", &sp.y0, &sp.y1, err)) ||
        (rc = cs_arg_dims(in, cl, "dims", st->N, sp.dims, err)) ||
        (rc = cs_plot_key_check(in, cl, "plot", err)))
        return rc;
    double *centre = NULL;   /* at=: the slice's point instead of x* */
    if (cs_cmdline_key(cl, "at") && (rc = basins_centre(in, cl, st->N, &centre, err)))
        return rc;
    sp.centre = centre;
    const char *out = cs_arg_text(cl, "out", NULL);
    int csv = out && strlen(out) > 4 && !strcmp(out + strlen(out) - 4, ".csv");
    if (out && !csv && (rc = cs_plot_key_check(in, cl, "out", err)))
        return rc;
    if (reg)
        snprintf(text, sizeof text, "%s", reg);
    else
        solve_next_method(in, st, text, sizeof text, NULL);
    cs_method method;
    cs_basins *b;
    rc = cs_method_parse(&method, text, err);
    sp.res = (size_t)r;
    sp.method = &method;
    sp.opts.maxit = maxit;
    sp.threads = (int)threads;
    sp.stream = rc ? 0 : cs_sweep_method_stream(st->stream, &method);
    cs_progress_to pc = {in, "basins (rows)"};
    sp.progress = cs_interp_progress_engine;
    sp.progress_user = &pc;
    if (!rc)
        rc = cs_basins_run(&b, st->prob, &sp, err);
    free(centre);
    if (rc) {
        if (err->key[0])
            cs_arg_blame(in, cl, err->key, 0);
        if (!in->err_col)
            in->err_col = cl->name_col;
        return rc;
    }
    cs_basins_free(st->basins);
    st->basins = b;
    st->basins_method = method;
    st->basins_seed = sp.seed;
    st->seq = cs_interp_stamp(in);
    cs_result_str(res, "method", method.text);
    cs_result_int(res, "res", (long long)b->res);
    cs_result_int(res, "starts", (long long)(b->res * b->res));
    cs_result_vec(res, "x", (double[2]){b->x0, b->x1}, 2);
    cs_result_vec(res, "y", (double[2]){b->y0, b->y1}, 2);
    if (b->N > 2)
        cs_result_vec(res, "dims", (double[2]){(double)b->dims[0] + 1, (double)b->dims[1] + 1},
                      2);
    cs_result_int(res, "maxit", b->maxit);
    put_counts(res, b);
    if ((rc = store_basins(in, st, b, err)))
        return rc;
    if (csv) {
        char path[4096], prov[4096];
        cs_provenance(in, cl, CS_PROV_REG, prov, sizeof prov);
        if ((rc = cs_arg_path(in, cl, "out", path, sizeof path, err)) ||
            (rc = cs_basins_write_csv(b, path, prov, cs_interp_cancel_flag(in), err))) {
            cs_arg_blame(in, cl, "out", 0);
            return rc;
        }
        cs_result_str(res, "out", out);
    } else if (out) {
        if ((rc = cs_plotstore_draw_cl(in, cl, "basins", out, NULL, res, err))) {
            cs_arg_blame(in, cl, "out", 0);
            return rc;
        }
    } else if (!cs_cmdline_key(cl, "plot") && !cs_cmdline_key(cl, "ends")) {
        draw_terminal(in, b, res);
    }
    if (cs_cmdline_key(cl, "ends")) {   /* every end point, all N coordinates */
        char path[4096];
        cs_array a = {b->res * b->res, b->N, b->endx};
        if ((rc = cs_arg_path(in, cl, "ends", path, sizeof path, err)) ||
            (rc = cs_array_write(path, &a, err))) {
            cs_arg_blame(in, cl, "ends", 0);
            return rc;
        }
        cs_result_str(res, "ends", cs_arg_text(cl, "ends", ""));
    }
    return cs_plot_key(in, cl, "basins", res, err);
}

static const cs_key_spec basins_keys[] = {
    {"res", "101", "res x res starts", NULL, CS_KEY_INT},
    {"x", "-2:2", "range lo:hi of the starts' first coordinate", NULL, CS_KEY_RANGE},
    {"y", "-2:2", "range lo:hi of the second", NULL, CS_KEY_RANGE},
    {"dims", "1,2", "N > 2: the coordinates of x* the starts vary (1-based); the others stay "
     "at x*", NULL, CS_KEY_LIST},
    {"at", "x*", "N > 2: the point the slice goes through instead of x* (a problem without "
     "x* needs it): v1,...,vN or a file holding the vector (.csv .npy .mtx .mat)", NULL,
     CS_KEY_TEXT},
    {"sha256", NULL, "the at= file's SHA-256 digest (the journal records it; a replay whose "
     "file differs is refused)", NULL, CS_KEY_LIST},
    {"maxit", "2000", "iterations per start", NULL, CS_KEY_INT},
    {"reg", "current", "method text (default: what the next solve uses)", NULL, CS_KEY_TEXT},
    {"threads", "session", "worker threads (0: all cores); the result does not depend on it",
     NULL, CS_KEY_INT},
    {"out", NULL, ".csv: one row per start (" CS_BASINS_CSV_HEADER "); .png .svg .pdf .gif: "
     "the map; none: the map in the terminal", NULL, CS_KEY_FILE},
    {"plot", NULL, "also draw the map into this image", NULL, CS_KEY_FILE},
    CS_PLOT_FIGURE_KEYS,
    {"ends", NULL, "every end point, all N coordinates: a (res*res) x N array, row j*res + i "
     "for the start (x_i, y_j) (.npy .csv .mtx .mat)", NULL, CS_KEY_FILE},
    {"title", NULL, "plot title", NULL, CS_KEY_TEXT},
    {0}};

static const cs_cmd_spec basins_commands[] = {
    {.name = "basins", .topic = "solvers",
     .usage = "basins [{res}] [{x}] [{y}] [dims=i,j] [at=CENTRE] [{maxit}] [reg=..] "
              "[out=F.png|F.csv] [plot=F] [ends=F.npy]",
     .summary = "run the problem's method from every start of a grid and map where each ends: "
                "success, other (on the target set, not x*), spurious (stationary off it), "
                "not_converged",
     .example = "basins res=61 out=basins.png", .keys = basins_keys, .run = cmd_basins,
     .journal = 1},
};

CS_CMD_GROUP(cs_group_basins, basins_commands);
