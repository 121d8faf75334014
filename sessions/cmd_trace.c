/* cmd_trace.c — `trace`: the solver's per-iteration records (out=) and
 * its backtracking ledger, one row per trial step (ledger=); and
 * `trace rules`: where each stopping rule would have stopped the run's
 * first start, and with which error (a replay to maxit), marked on the
 * trace plot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_array_io.h"
#include "cs_file.h"
#include "cs_limits.h"
#include "cs_parse.h"
#include "cs_plotstore.h"
#include "cs_provenance.h"
#include "cs_rules.h"
#include "cs_sweep_stream.h"
#include "interp_internal.h"
#include "solve_state.h"

#define TRACE_CSV_HEADER "iter,start,objective,residual,norm_residual,tau,backtracks,rel_err"
#define LEDGER_CSV_HEADER "iter,start,trial,tau,f,bound,accepted"

static void trace_row(FILE *f, const void *rec)
{
    const cs_trace_rec *r = rec;
    char a[40], b[40], c[40], d[40], e[40];
    cs_format_double(a, sizeof a, r->objective);
    cs_format_double(b, sizeof b, r->residual);
    cs_format_double(c, sizeof c, r->norm_residual);
    cs_format_double(d, sizeof d, r->tau);
    cs_format_double(e, sizeof e, r->rel_err);
    fprintf(f, "%ld,%d,%s,%s,%s,%s,%d,%s\n", r->iter, r->start, a, b, c, d, r->backtracks, e);
}

static void ledger_row(FILE *f, const void *rec)
{
    const cs_trial_rec *r = rec;
    char a[40], b[40], c[40];
    cs_format_double(a, sizeof a, r->tau);
    cs_format_double(b, sizeof b, r->f);
    cs_format_double(c, sizeof c, r->bound);
    fprintf(f, "%ld,%d,%d,%s,%s,%s,%d\n", r->iter, r->start, r->trial, a, b, c, r->accepted);
}

/* Write n records (size bytes each) under header to the file of `key`,
 * after the lines saying how it was made (and the session's regularizer). */
static int write_csv(cs_interp *in, const cs_cmdline *cl, const char *key, const char *header,
                     const void *recs, size_t n, size_t size,
                     void (*row)(FILE *, const void *), cs_result *res, cs_err *err)
{
    char path[4096];
    cs_afile af;
    int rc = cs_arg_path(in, cl, key, path, sizeof path, err);
    if (rc)
        return rc;
    if ((rc = cs_afile_open(&af, path, 0, err))) {
        cs_arg_blame(in, cl, key, 0);
        return rc;
    }
    af.cancel = cs_interp_cancel_flag(in);
    char prov[4096];
    cs_provenance(in, cl, CS_PROV_REG, prov, sizeof prov);
    fprintf(af.f, "%s\n%s", header, prov);
    for (size_t i = 0; i < n && !rc; i++) {
        if (i % 4096 == 0)
            rc = cs_afile_poll(&af, err);
        if (!rc)
            row(af.f, (const char *)recs + i * size);
    }
    if (rc)
        cs_afile_abort(&af);
    if (rc || (rc = cs_afile_commit(&af, err))) {
        cs_arg_blame(in, cl, key, 0);
        return rc;
    }
    cs_result_str(res, key, cs_arg_text(cl, key, ""));
    return CS_OK;
}

/* The last records, for reading at the prompt. */
static void tail_text(cs_result *res, const cs_trace_rec *t, size_t n)
{
    cs_result_text(res, "%s\n", TRACE_CSV_HEADER);
    for (size_t i = n > 10 ? n - 10 : 0; i < n; i++) {
        char *line = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&line, &len);
        if (!m)
            break;
        trace_row(m, &t[i]);
        fclose(m);
        cs_result_text(res, "%s", line);
        free(line);
    }
}

static int need_run(cs_interp *in, const cs_cmdline *cl, solve_state **st, cs_err *err)
{
    int rc = solve_need_problem(in, cl, st, err);
    if (rc)
        return rc;
    if (!(*st)->solver) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_ESTATE, "trace: nothing solved yet (run solve or step)");
    }
    return CS_OK;
}

/* ------------------------------------------------------------ trace rules */

typedef struct rules_out {
    const cs_rule_result *r;
    size_t n;
} rules_out;

/* The rules' results as JSON and as a table. */
static void write_rules(FILE *j, FILE *t, const void *ctx)
{
    const rules_out *ro = ctx;
    fputc('[', j);
    fprintf(t, "\n%-18s %8s  %-6s %-12s %s\n", "rule", "iter", "fired", "rel_err", "success");
    for (size_t i = 0; i < ro->n; i++) {
        const cs_rule_result *r = &ro->r[i];
        char label[64], tol[40], err[40];
        cs_rule_label(&r->rule, label, sizeof label);
        int has_tol = r->rule.stop != CS_STOP_ORACLE && r->rule.stop != CS_STOP_MAXIT;
        cs_format_double(tol, sizeof tol, r->rule.tol);
        if (isfinite(r->rel_err))
            cs_format_double(err, sizeof err, r->rel_err);
        else
            snprintf(err, sizeof err, "null");
        fprintf(j, "%s{\"rule\":\"%s\",\"tol\":%s,\"iter\":%ld,\"fired\":%s,\"rel_err\":%s,"
                   "\"success\":%s}",
                i ? "," : "", cs_stop_name(r->rule.stop), has_tol ? tol : "null", r->iter,
                r->fired ? "true" : "false", err, r->success ? "true" : "false");
        fprintf(t, "%-18s %8ld  %-6s %-12.4g %s\n", label, r->iter, r->fired ? "yes" : "no",
                r->rel_err, r->success ? "yes" : "no");
    }
    fputc(']', j);
}

static int trace_rules(cs_interp *in, const cs_cmdline *cl, solve_state *st, cs_result *res,
                       cs_err *err)
{
    cs_solve_opts o = st->args.o;
    o.stop = CS_STOP_MAXIT;
    o.restarts = 1;
    o.maxit = cs_solver_maxit(st->solver);
    o.trace = 1;
    o.path = 0;
    cs_solver *replay;
    int rc = cs_solver_new(&replay, st->prob, &st->args.method, &o, st->solver_seed,
                           cs_sweep_method_stream(st->stream, &st->args.method), err);
    if (rc)
        return rc;
    cs_rule rules[CS_RULES_DEFAULT];
    cs_rule_result out[CS_RULES_DEFAULT];
    cs_rules_default(rules);
    rc = cs_solver_rules(replay, rules, CS_RULES_DEFAULT, out, err);
    if (rc == CS_ECANCEL)
        rc = cs_fail(err, CS_ECANCEL, "trace rules: interrupted");
    if (!rc) {
        cs_result_str(res, "method", cs_solver_method(replay));
        cs_result_int(res, "maxit", o.maxit);
        cs_result_int(res, "start", 1);
        rules_out ro = {out, CS_RULES_DEFAULT};
        cs_result_json_written(res, "rules", write_rules, &ro);
        /* the replay's trace with a mark where each rule fires */
        double marks[CS_RULES_DEFAULT];
        char names[CS_RULES_DEFAULT][64];
        const char *labels[CS_RULES_DEFAULT];
        size_t nm = 0;
        for (size_t i = 0; i < CS_RULES_DEFAULT; i++)
            if (out[i].fired) {
                cs_rule_label(&rules[i], names[nm], sizeof names[nm]);
                labels[nm] = names[nm];
                marks[nm++] = (double)out[i].iter;
            }
        rc = solve_store_trace(in, replay, marks, labels, nm, err);
    }
    cs_solver_free(replay);
    if (rc)
        return rc;
    return cs_plot_after(in, cl, "trace", res, err);
}

/* ------------------------------------------------------------ trace */

/* ------------------------------------------------------------ trace iterates= */

/* iterates=PATH: every iterate of the run so far (iterations x N, the x
 * part; one row per row of out=), from a replay of the run with its path
 * kept: the solver is deterministic, so the replay is the run. */
static int write_iterates(cs_interp *in, const cs_cmdline *cl, solve_state *st, size_t n,
                          cs_result *res, cs_err *err)
{
    cs_solve_result r;
    cs_solver_result(st->solver, &r);
    size_t nx = st->N * cs_problem_cols(st->prob);
    double bytes = ((double)n + (double)r.starts + 1.0) * (double)nx * 8.0;
    if (bytes > CS_MEMORY_BUDGET) {
        cs_arg_blame(in, cl, "iterates", 0);
        return cs_fail(err, CS_ENOMEM, "iterates=: %zu iterations x %zu = %.3g GB, above the "
                       "memory budget of %.3g GB (CS_MEMORY_BUDGET)", n, nx, bytes / 1e9,
                       CS_MEMORY_BUDGET / 1e9);
    }
    char path[4096];
    int rc = cs_arg_path(in, cl, "iterates", path, sizeof path, err);
    if (rc)
        return rc;
    cs_solve_opts o = st->args.o;
    o.path = 1;
    o.trace = 1;
    cs_solver *replay = NULL;
    cs_array a = {0};
    rc = cs_solver_new(&replay, st->prob, &st->args.method, &o, st->solver_seed,
                       cs_sweep_method_stream(st->stream, &st->args.method), err);
    if (!rc && st->x0)
        rc = cs_solver_set_start(replay, st->x0, st->nx0, err);
    if (!rc && n)
        rc = cs_solver_step(replay, (long)n, NULL, err);
    size_t np = 0, rows = 0;
    const int *start_of = NULL;
    const double *pts = rc ? NULL : cs_solver_path(replay, &np, &start_of);
    if (!rc)
        rc = cs_array_alloc(&a, np ? np : 1, nx, err);
    /* the start points are not iterates: skip the first point of each start */
    for (size_t i = 0; !rc && i < np; i++)
        if (i > 0 && start_of[i] == start_of[i - 1])
            memcpy(a.data + rows++ * nx, pts + i * nx, nx * sizeof *pts);
    a.rows = rows;
    if (!rc && !rows)
        rc = cs_fail(err, CS_ESTATE, "iterates=: no iterations yet");
    if (!rc)
        rc = cs_array_write(path, &a, err);
    cs_array_free(&a);
    cs_solver_free(replay);
    if (rc) {
        cs_arg_blame(in, cl, "iterates", 0);
        return rc;
    }
    cs_result_str(res, "iterates", cs_arg_text(cl, "iterates", ""));
    cs_result_int(res, "iterate_rows", (long long)rows);
    cs_result_int(res, "iterate_cols", (long long)nx);
    return CS_OK;
}

static int cmd_trace(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    solve_state *st = NULL;
    int rc = need_run(in, cl, &st, err);
    if (rc)
        return rc;
    if ((rc = cs_plot_key_check(in, cl, "plot", err)))
        return rc;
    const cs_arg *what = cs_cmdline_pos(cl, 0);
    if (what && strcmp(what->value, "rules")) {
        in->err_col = what->col;
        return cs_fail(err, CS_EINVAL, "trace %s: expected trace [out=..] [ledger=..] or "
                       "trace rules", what->value);
    }
    if (what) {
        static const char *const not_for_rules[] = {"out", "ledger", "iterates"};
        for (size_t i = 0; i < 3; i++)
            if (cs_cmdline_key(cl, not_for_rules[i])) {
                cs_arg_blame(in, cl, not_for_rules[i], 0);
                return cs_fail(err, CS_EINVAL, "trace rules takes plot=, not %s=",
                               not_for_rules[i]);
            }
        return trace_rules(in, cl, st, res, err);
    }
    size_t n, nl;
    const cs_trace_rec *t = cs_solver_trace(st->solver, &n);
    const cs_trial_rec *l = cs_solver_ledger(st->solver, &nl);
    cs_result_str(res, "method", cs_solver_method(st->solver));
    cs_result_int(res, "records", (long long)n);
    if (cs_cmdline_key(cl, "out") &&
        (rc = write_csv(in, cl, "out", TRACE_CSV_HEADER, t, n, sizeof *t, trace_row, res, err)))
        return rc;
    if (cs_cmdline_key(cl, "ledger")) {
        if ((rc = write_csv(in, cl, "ledger", LEDGER_CSV_HEADER, l, nl, sizeof *l, ledger_row,
                            res, err)))
            return rc;
        cs_result_int(res, "trials", (long long)nl);
    }
    if (cs_cmdline_key(cl, "iterates") && (rc = write_iterates(in, cl, st, n, res, err)))
        return rc;
    if (!cs_cmdline_key(cl, "out") && !cs_cmdline_key(cl, "ledger") &&
        !cs_cmdline_key(cl, "iterates") && n)
        tail_text(res, t, n);
    if (n) {
        cs_result_num(res, "objective", t[n - 1].objective);
        cs_result_num(res, "rel_err", t[n - 1].rel_err);
    }
    if ((rc = solve_store_trace(in, st->solver, NULL, NULL, 0, err)))
        return rc;
    return cs_plot_after(in, cl, "trace", res, err);
}

static const cs_key_spec trace_keys[] = {
    {"out", NULL, "CSV, one row per iteration: " TRACE_CSV_HEADER, NULL, CS_KEY_FILE},
    {"ledger", NULL, "CSV, one row per trial step of the backtracking line search (FISTA): "
     LEDGER_CSV_HEADER " (f must not exceed bound; accepted: the step taken)", NULL,
     CS_KEY_FILE},
    {"iterates", NULL, "every iterate's x (iterations x N, a row per row of out=; .npy .csv "
     ".mtx .mat), refused above the memory budget", NULL, CS_KEY_FILE},
    {"plot", NULL, "draw objective, residual, step and error into this image (trace rules: "
     "with a mark where each rule fires)", NULL, CS_KEY_FILE},
    CS_PLOT_FIGURE_KEYS,
    {"title", NULL, "plot title", NULL, CS_KEY_TEXT},
    {0}};

static const cs_cmd_spec trace_commands[] = {
    {.name = "trace", .topic = "solvers",
     .usage = "trace [out=FILE] [ledger=FILE] [iterates=F.npy] [plot=FILE] | trace rules "
              "[plot=FILE]",
     .summary = "the solver's records: out= per iteration, ledger= per trial step; `trace "
                "rules`: where each stopping rule (oracle; residual, normalized, ratio, hybrid "
                "at 1e-5 and 1e-8; maxit) would stop the first start, and its error",
     .example = "trace out=trace.csv ledger=steps.csv", .min_pos = 0, .max_pos = 1,
     .keys = trace_keys, .run = cmd_trace, .journal = 1},
};

CS_CMD_GROUP(cs_group_trace, trace_commands);
