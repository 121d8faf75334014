/* cmd_maxcut.c — `maxcut`: MAX-CUT of a G-set or toy graph by −cut + λ·ℓ_bin
 * over |x| <= 1 (the paper's app. C.6), trials in parallel in the engine
 * (cs_sweep.h). It reports the cuts against the known best and the cuts at
 * the starts, how the trials stopped (maxit, diverged, ...) and at which
 * iteration the returned iterate (the best objective) was found. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_args.h"
#include "cs_csv.h"
#include "cs_file.h"
#include "cs_limits.h"
#include "cs_parse.h"
#include "cs_plotstore.h"
#include "cs_provenance.h"
#include "cs_sweep.h"
#include "interp_internal.h"
#include "solve_state.h"

#define MAXCUT_CSV_HEADER                                                                      \
    "graph,nodes,edges,trials,lambda,mean_cut,std_cut,best_cut,known_best,mean_rounded,"        \
    "std_rounded,best_rounded,mean_start,std_start,stops,mean_best_iter,max_best_iter,partial"

/* How the trials stopped: "maxit=8;diverged=2" (no commas: one CSV field). */
static void stops_text(const cs_maxcut_result *r, const char *sep, const char *eq, char *buf,
                       size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int e = CS_END_ORACLE; e <= CS_END_DIVERGED && used < len; e++)
        if (r->ends[e])
            used += (size_t)snprintf(buf + used, len - used, "%s%s%s%ld", used ? sep : "",
                                     cs_end_name((cs_end)e), eq, r->ends[e]);
}

/* The row of r into `path`, after `prov` (the lines saying how it was
 * made); with append, after the rows of the CSV `from` (copied into the new
 * file, then renamed: `from` is path, or out= when the row of an
 * interrupted run goes beside it): each row follows its own lines. */
static int write_maxcut_csv(const char *path, const char *from, int append, const char *prov,
                            const char *gname, const cs_graph *g, const cs_maxcut_result *r,
                            cs_err *err)
{
    char *old = NULL;
    size_t oldlen = 0;
    if (append) {
        FILE *f = fopen(from, "r");
        if (f) {
            FILE *m = open_memstream(&old, &oldlen);
            char buf[4096];
            size_t k;
            while (m && (k = fread(buf, 1, sizeof buf, f)) > 0)
                fwrite(buf, 1, k, m);
            if (m)
                fclose(m);
            fclose(f);
            if (old && strncmp(old, MAXCUT_CSV_HEADER "\n", strlen(MAXCUT_CSV_HEADER) + 1)) {
                free(old);
                return cs_fail(err, CS_EINVAL, "append: %s is not a maxcut CSV", from);
            }
        }
    }
    cs_afile af;
    int rc = cs_afile_open(&af, path, 0, err);
    if (rc) {
        free(old);
        return rc;
    }
    if (old && oldlen)
        fwrite(old, 1, oldlen, af.f);
    else
        fprintf(af.f, "%s\n", MAXCUT_CSV_HEADER);
    free(old);
    fputs(prov, af.f);
    double v[12] = {r->lambda,     r->mean_cut,     r->std_cut,     r->best_cut,
                    r->known_best, r->mean_rounded, r->std_rounded, r->best_rounded,
                    r->mean_start, r->std_start,    r->mean_best_iter, r->max_best_iter};
    char s[12][40], stops[128];
    for (int i = 0; i < 12; i++)
        cs_format_double(s[i], sizeof s[i], v[i]);
    stops_text(r, ";", "=", stops, sizeof stops);
    cs_csv_field(af.f, gname);
    fprintf(af.f, ",%zu,%zu,%ld,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d\n", cs_graph_nodes(g), cs_graph_edges(g), r->trials, s[0], s[1], s[2], s[3], s[4], s[5],
            s[6], s[7], s[8], s[9], stops, s[10], s[11], r->partial);
    return cs_afile_commit(&af, err);
}

/* The cut over the iterations of trial 1 (for the maxcut plot). */
static int maxcut_curve(cs_interp *in, const cs_graph *g, const cs_maxcut_spec *ms,
                        const char *gname, cs_err *err)
{
    cs_problem *prob;
    int rc = cs_problem_new_maxcut(&prob, g, err);
    if (rc)
        return rc;
    cs_solve_opts so = ms->solve;
    so.trace = 0;
    uint64_t ts = cs_sweep_trial_stream(cs_graph_nodes(g), cs_graph_edges(g), 0, 0);
    cs_solver *s;
    cs_method method;
    cs_kind_method(CS_PROB_MAXCUT, &method);
    rc = cs_solver_new(&s, prob, &method, &so, ms->seed, cs_sweep_method_stream(ts, &method),
                       err);
    if (rc) {
        cs_problem_free(prob);
        return rc;
    }
    long maxit = cs_solver_maxit(s);
    size_t cap = (size_t)maxit + 1, n = 0;
    double *x = malloc(cap * sizeof *x), *y = malloc(cap * sizeof *y);
    if (!x || !y)
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    cs_cancel *cancel = cs_interp_cancel_flag(in);
    while (!rc && !cs_solver_done(s) && n < cap && !cs_cancelled(cancel)) {
        long done;
        rc = cs_solver_step(s, 1, &done, err);
        if (rc || done == 0)
            break;
        size_t len;
        /* the iterate while running; the solution once the run has ended */
        const double *it = cs_solver_done(s) ? cs_solver_x(s, &len) : cs_solver_iterate(s, &len);
        double cut = it ? cs_graph_cut(g, it) : NAN;
        if (!isfinite(cut))
            continue;
        x[n] = (double)(n + 1);
        y[n] = cut;
        n++;
    }
    if (!rc && n == 0 && !cs_cancelled(cancel))
        rc = cs_fail(err, CS_ENONFINITE, "maxcut plot: trial 1 has no iteration with a finite "
                     "cut to draw");
    if (!rc && n >= 1) {
        cs_plot_series ser = {.name = method.text, .x = x, .y = y, .n = n};
        double kb = cs_graph_known_best(g);
        cs_plot_maxcut_data d = {.series = &ser, .nseries = 1, .best = isfinite(kb) ? kb : 0,
                                 .has_best = isfinite(kb), .graph = gname};
        rc = cs_plotstore_maxcut(in, &d, err);
    }
    free(x);
    free(y);
    cs_solver_free(s);
    cs_problem_free(prob);
    return rc;
}

static int cmd_maxcut(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const char *gtext = cs_arg_text(cl, "graph", NULL);
    solve_state *st = cs_interp_ext(in, CS_EXT_SOLVE);
    if (!gtext && !(st && st->prob && st->kind == CS_PROB_MAXCUT)) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "maxcut needs graph=FILE (or toy5, toy4, G10..G13)");
    }
    long trials, maxit, threads;
    int rc, append;
    if ((rc = cs_arg_long(in, cl, "trials", 10, 1, 10000000L, &trials, err)) ||
        (rc = cs_arg_long(in, cl, "maxit", 0, 0, 100000000L, &maxit, err)) ||
        (rc = cs_arg_long(in, cl, "threads", cs_interp_threads(in), 0, CS_MAX_THREADS, &threads,
                                err)) ||
        (rc = cs_arg_bool(in, cl, "append", 0, &append, err)))
        return rc;
    cs_maxcut_spec ms = {.trials = trials, .threads = (int)threads, .seed = cs_interp_seed(in),
                         .cancel = cs_interp_cancel_flag(in)};
    ms.solve.maxit = maxit;
    if (cs_cmdline_key(cl, "lambda") &&
        (rc = cs_arg_double(in, cl, "lambda", 0.0, 1e-300, 1e300, &ms.solve.lambda, err)))
        return rc;
    char path[4096] = "";
    const char *pmode;
    if ((cs_cmdline_key(cl, "out") && (rc = cs_arg_path(in, cl, "out", path, sizeof path, err))) ||
        (rc = cs_plot_key_check(in, cl, "plot", err)) ||
        (rc = cs_arg_choice(in, cl, "partial", "beside|out", "beside", &pmode, err)))
        return rc;
    cs_graph *owned = NULL;
    const cs_graph *g;
    char gname[256];
    if (gtext) {
        char file[4096];
        rc = solve_resolve_graph(in, gtext, file, sizeof file, err);
        if (!rc)
            rc = cs_graph_is_builtin(file) ? cs_graph_builtin(&owned, file, err)
                                           : cs_graph_read(&owned, file, err);
        /* the user's graph file: its digest in the journal */
        in->err_col = 0;
        if (!rc && !cs_graph_is_builtin(file))
            rc = cs_interp_input_named(in, cl, gtext, file, err);
        if (rc) {
            cs_graph_free(owned);
            if (!in->err_col)
                cs_arg_blame(in, cl, "graph", 0);
            return rc;
        }
        g = owned;
        const char *base = strrchr(gtext, '/');
        snprintf(gname, sizeof gname, "%s", base ? base + 1 : gtext);
    } else {
        g = cs_problem_graph(st->prob);
        snprintf(gname, sizeof gname, "%s", st->graph);
    }
    char *dot = strrchr(gname, '.');
    if (dot && !strcmp(dot, ".txt"))
        *dot = '\0';
    ms.graph = g;
    /* append=on reads the rows out= has: their digest in the journal (a
     * replay whose file is another is refused) */
    if (append && path[0] && access(path, R_OK) == 0 &&
        (rc = cs_interp_input_file(in, cl, cs_arg_text(cl, "out", ""), path, err))) {
        cs_graph_free(owned);
        return rc;
    }
    cs_progress_to pc = {in, "maxcut"};
    ms.progress = cs_interp_progress_engine;
    ms.progress_user = &pc;
    cs_maxcut_result r;
    rc = cs_maxcut_run(&ms, &r, err);
    if (rc) {
        in->err_col = cl->name_col;
        cs_graph_free(owned);
        return rc;
    }
    char dest[4096], shown[4096];
    snprintf(dest, sizeof dest, "%s", path);
    snprintf(shown, sizeof shown, "%s", cs_arg_text(cl, "out", ""));
    if (path[0] && r.partial)
        rc = cs_arg_partial_target(in, cl, dest, sizeof dest, shown, sizeof shown, err);
    char prov[4096];
    cs_provenance(in, cl, 0, prov, sizeof prov);
    if (!rc && path[0] && (rc = write_maxcut_csv(dest, path, append, prov, gname, g, &r, err)))
        cs_arg_blame(in, cl, "out", 0);
    if (!rc && r.partial)
        rc = cs_fail(err, CS_ECANCEL, "maxcut interrupted after %ld of %ld trials%s%s%s", r.trials,
                     trials, path[0] ? "; written to " : "", shown,
                     path[0] ? " (marked partial)" : "");
    if (!rc) {
        cs_result_str(res, "graph", gname);
        cs_result_int(res, "trials", r.trials);
        cs_result_num(res, "mean_cut", r.mean_cut);
        cs_result_num(res, "std_cut", r.std_cut);
        cs_result_num(res, "best_cut", r.best_cut);
        cs_result_num(res, "known_best", r.known_best);
        cs_result_num(res, "mean_start", r.mean_start);
        cs_result_num(res, "std_start", r.std_start);
        cs_result_num(res, "mean_rounded", r.mean_rounded);
        cs_result_num(res, "best_rounded", r.best_rounded);
        cs_result_int(res, "successes", r.successes);
        cs_result_num(res, "lambda", r.lambda);
        char stops[128], stops_json[160];
        stops_text(&r, ", ", " ", stops, sizeof stops);
        stops_text(&r, ",\"", "\":", stops_json + 2, sizeof stops_json - 4);
        stops_json[0] = '{';
        stops_json[1] = '"';
        strcat(stops_json, "}");
        cs_result_json(res, "stops", stops_json, stops);
        cs_result_num(res, "mean_best_iter", r.mean_best_iter);
        cs_result_num(res, "min_best_iter", r.min_best_iter);
        cs_result_num(res, "max_best_iter", r.max_best_iter);
        if (path[0])
            cs_result_str(res, "out", cs_arg_text(cl, "out", ""));
        cs_result_num(res, "_wall_seconds", r.wall_seconds);
        cs_result_text(res, "MAX-CUT %s: cut %.1f ± %.1f over %ld trial%s (best %.0f; known "
                            "best %.0f; start %.1f ± %.1f)\n",
                       gname, r.mean_cut, r.std_cut, r.trials, r.trials == 1 ? "" : "s",
                       r.best_cut, r.known_best, r.mean_start, r.std_start);
        cs_result_text(res, "stopped: %s; the returned iterate (the best objective) came at "
                            "iteration %.0f on average (%.0f to %.0f)\n",
                       stops, r.mean_best_iter, r.min_best_iter, r.max_best_iter);
        if (cs_cmdline_key(cl, "plot"))
            rc = maxcut_curve(in, g, &ms, gname, err);
        if (!rc)
            rc = cs_plot_after(in, cl, "maxcut", res, err);
    }
    cs_maxcut_result_clear(&r);
    cs_graph_free(owned);
    return rc;
}

/* ------------------------------------------------------------ the table */

static const cs_key_spec maxcut_keys[] = {
    {"graph", "problem's", "G-set file, toy5, toy4, or G10..G13 (from " SOLVE_GSET_DIR ")", NULL,
     CS_KEY_FILE},
    {"lambda", "1e-7 (toy: 1)", "weight of l_bin (1 for toy5 and toy4)", NULL, CS_KEY_NUM},
    {"trials", "10", "random starts sign(randn)", NULL, CS_KEY_INT},
    {"maxit", "10000", "iterations per trial (0: 1e4)", NULL, CS_KEY_INT},
    {"threads", "session", "worker threads (0: all cores)", NULL, CS_KEY_INT},
    {"out", NULL, "CSV (one row per graph): " MAXCUT_CSV_HEADER
     " (stops: how the trials ended, e.g. maxit=8;diverged=2; best_iter: the iteration of "
     "the returned iterate)", NULL, CS_KEY_FILE},
    {"append", "off", "add the row to an existing maxcut CSV", "on|off", CS_KEY_WORD},
    {"sha256", NULL, "SHA-256 digests of the files read: graph= given by path, then out= "
     "with append=on (the journal records them; a replay whose file differs is refused)",
     NULL, CS_KEY_LIST},
    {"partial", "beside", "an interrupted run's row: beside out= as NAME.partial.csv (out= "
     "stays as it was), or out: into out= itself", "beside|out", CS_KEY_WORD},
    {"plot", NULL, "draw the cut over the iterations of trial 1", NULL, CS_KEY_FILE},
    CS_PLOT_FIGURE_KEYS,
    {"title", NULL, "plot title", NULL, CS_KEY_TEXT},
    {0}};

static const cs_cmd_spec maxcut_commands[] = {
    {.name = "maxcut", .topic = "experiments",
     .usage = "maxcut graph=FILE|toy5|toy4|G10 [{lambda}] [{trials}] [{maxit}] [out=FILE.csv] "
              "[plot=FILE]",
     .summary = "MAX-CUT by -cut + lambda*l_bin over |x|<=1: mean and std of the cut against "
                "the best known",
     .example = "maxcut graph=G11 trials=10", .keys = maxcut_keys,
     .run = cmd_maxcut, .journal = 1},
};

CS_CMD_GROUP(cs_group_maxcut, maxcut_commands);
