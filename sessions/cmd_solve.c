/* cmd_solve.c — the solver as commands: `solve`, `step`, `reset` and
 * `trace` on the session's problem (solve_state.h), the trajectory of
 * 2-dimensional problems, and the read-only view front ends draw. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_file.h"
#include "cs_landscape.h"
#include "cs_parse.h"
#include "cs_plotstore.h"
#include "cs_solve_view.h"
#include "cs_sweep.h"
#include "interp_internal.h"
#include "solve_state.h"

/* ------------------------------------------------------------ solver options */

typedef struct solve_args {
    char method[1024];
    cs_solve_opts o;
} solve_args;

/* The method: reg= when given; else the current regularizer when it was
 * chosen after `problem`; else the problem's own (bin osb ter eig om equ). */
static int read_solve_args(cs_interp *in, const cs_cmdline *cl, solve_state *st, solve_args *a,
                           cs_err *err)
{
    memset(a, 0, sizeof *a);
    const char *reg = cs_arg_text(cl, "reg", NULL);
    if (reg)
        snprintf(a->method, sizeof a->method, "%s", reg);
    else if (strcmp(in->reg_line, st->reg_at_problem) != 0)
        snprintf(a->method, sizeof a->method, "%s", in->reg_line);
    else
        snprintf(a->method, sizeof a->method, "%s", cs_kind_defaults_of(st->kind)->method);
    if (st->kind == CS_PROB_EIG) {
        /* eig/mu/ns on an eig problem use the problem's C: drop a C= of the reg */
        char *c = strstr(a->method, " C=");
        if (!c)
            c = strstr(a->method, ":C=");
        if (c) {
            size_t len = strcspn(c + 1, " :\t");
            memmove(c, c + 1 + len, strlen(c + 1 + len) + 1);
        }
    }
    const char *algo;
    int rc = cs_arg_choice(in, cl, "method", "auto|fista|dr", "auto", &algo, err);
    if (rc)
        return rc;
    cs_algo_parse(algo, &a->o.algo, NULL);
    long maxit, restarts;
    if ((rc = cs_arg_long(in, cl, "maxit", 0, 0, 100000000L, &maxit, err)))
        return rc;
    const char *stop;
    if ((rc = cs_arg_choice(in, cl, "stop", "oracle|hybrid|residual|normalized|maxit", "oracle",
                            &stop, err)))
        return rc;
    cs_stop_parse(stop, &a->o.stop, NULL);
    if ((rc = cs_arg_double(in, cl, "tol", 1e-8, 1e-300, 1.0, &a->o.tol, err)))
        return rc;
    if ((rc = cs_arg_long(in, cl, "restarts", 0, 0, 100000, &restarts, err)))
        return rc;
    if (cs_cmdline_key(cl, "lambda") &&
        (rc = cs_arg_double(in, cl, "lambda", 0.0, 1e-300, 1e300, &a->o.lambda, err)))
        return rc;
    const char *mode;
    if (cs_command_key(cs_command_find(cl->name), "mode")) {
        if ((rc = cs_arg_choice(in, cl, "mode", "default|accel|adaptive|plain", "default",
                                &mode, err)))
            return rc;
        cs_mode_parse(mode, &a->o.mode, NULL);
    }
    a->o.maxit = maxit;
    a->o.restarts = (int)restarts;
    a->o.trace = 1;
    a->o.cancel = cs_interp_cancel_flag(in);
    cs_err sub;
    if (cs_method_check(a->method, &sub)) {
        cs_arg_blame(in, cl, reg ? "reg" : NULL, 0);
        if (!reg)
            in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "%s%s", reg ? "reg=: " : "", sub.msg);
    }
    return CS_OK;
}

static void args_sig(const solve_args *a, char *buf, size_t len)
{
    snprintf(buf, len, "%s|%d|%d|%ld|%d|%.17g|%d|%.17g", a->method, a->o.algo, a->o.mode,
             a->o.maxit, a->o.stop, a->o.tol, a->o.restarts, a->o.lambda);
}

/* The solver for these arguments: the existing one when they match (fresh: 0
 * when it was kept), else a new one from the problem's trial stream. */
static int ensure_solver(cs_interp *in, solve_state *st, const solve_args *a, int *fresh,
                         cs_err *err)
{
    char sig[sizeof st->sig];
    args_sig(a, sig, sizeof sig);
    if (st->solver && !strcmp(sig, st->sig)) {
        *fresh = 0;
        return CS_OK;
    }
    cs_solver *s;
    int rc = cs_solver_new(&s, st->prob, a->method, &a->o, cs_interp_seed(in),
                           cs_sweep_method_stream(st->stream, a->method), err);
    if (rc)
        return rc;
    cs_solver_free(st->solver);
    st->solver = s;
    st->ntraj = 0;
    st->traj_start = 0;
    snprintf(st->sig, sizeof st->sig, "%s", sig);
    snprintf(st->method, sizeof st->method, "%s", a->method);
    *fresh = 1;
    return CS_OK;
}

/* ------------------------------------------------------------ plots of a run */

static int store_trace(cs_interp *in, solve_state *st, cs_err *err)
{
    size_t n;
    const cs_trace_rec *t = cs_solver_trace(st->solver, &n);
    if (n == 0)
        return CS_OK;
    double *buf = malloc(5 * n * sizeof *buf);
    if (!buf)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    double *it = buf, *obj = buf + n, *resid = buf + 2 * n, *tau = buf + 3 * n,
           *rel = buf + 4 * n;
    int have_rel = 0;
    for (size_t i = 0; i < n; i++) {
        it[i] = (double)(i + 1);
        obj[i] = isfinite(t[i].objective) ? t[i].objective : 0.0;
        resid[i] = isfinite(t[i].residual) ? t[i].residual : 0.0;
        tau[i] = isfinite(t[i].tau) ? t[i].tau : 0.0;
        rel[i] = isfinite(t[i].rel_err) ? t[i].rel_err : 0.0;
        have_rel |= isfinite(t[i].rel_err);
    }
    cs_plot_trace_data d = {.n = n, .iter = it, .objective = obj, .residual = resid,
                            .tau = tau, .err_xstar = have_rel ? rel : NULL,
                            .name = cs_solver_method(st->solver)};
    int rc = cs_plotstore_trace(in, &d, err);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------ trajectory (N = 2) */

/* Iterates are recorded when x is a 2-vector: the landscape then shows the
 * whole problem. */
static int traj_wanted(const solve_state *st)
{
    return st->prob && st->kind != CS_PROB_MAXCUT && st->N * cs_problem_cols(st->prob) == 2;
}

/* The 2-vector x of a full variable v (2bit: y1 + y2; extras left out). */
static void traj_xy(const solve_state *st, const double *v, double xy[2])
{
    int two = st->kind == CS_PROB_2BIT;
    for (int k = 0; k < 2; k++)
        xy[k] = two ? v[k] + v[2 + k] : v[k];
}

static int traj_push(solve_state *st, const double *v, cs_err *err)
{
    if (!v)
        return CS_OK;
    if (st->ntraj == st->captraj) {
        size_t cap = st->captraj ? 2 * st->captraj : 256;
        double *t = realloc(st->traj, 2 * cap * sizeof *t);
        if (!t)
            return cs_fail(err, CS_ENOMEM, "out of memory");
        st->traj = t;
        st->captraj = cap;
    }
    traj_xy(st, v, st->traj + 2 * st->ntraj);
    st->ntraj++;
    return CS_OK;
}

/* Up to n steps (solve: until done), one at a time when the trajectory is
 * recorded (the same iterations as one call: the solver is a stepper);
 * polls the cancel flag. *done_steps gets the count. */
static int run_steps(cs_interp *in, solve_state *st, long n, int until_done, long *done_steps,
                     cs_err *err)
{
    cs_solver *s = st->solver;
    *done_steps = 0;
    if (!traj_wanted(st)) {
        if (until_done)
            return cs_solver_solve(s, NULL, err);
        return cs_solver_step(s, n, done_steps, err);
    }
    cs_cancel *cancel = cs_interp_cancel_flag(in);
    while (until_done ? !cs_solver_done(s) : *done_steps < n) {
        if (until_done && cs_cancelled(cancel))
            return cs_fail(err, CS_ECANCEL, "interrupted");
        long d = 0;
        int rc = cs_solver_step(s, 1, &d, err);
        if (rc)
            return rc;
        if (d == 0)
            break;   /* done */
        (*done_steps)++;
        cs_solve_result r;
        cs_solver_result(s, &r);
        if (r.starts != st->traj_start) {   /* a new start: a new path */
            st->ntraj = 0;
            st->traj_start = r.starts;
            if ((rc = traj_push(st, cs_solver_start_point(s, NULL), err)))
                return rc;
        }
        if ((rc = traj_push(st, cs_solver_iterate(s, NULL), err)))
            return rc;
    }
    return CS_OK;
}

/* The regularizer the run minimizes, when it is one the landscape can show
 * in the plane (no auxiliary coordinates, not a matrix); else NULL. */
static cs_reg *traj_reg(cs_interp *in, solve_state *st)
{
    cs_reg *reg = NULL;
    cs_err sub;
    if (cs_method_reg_new(&reg, cs_solver_method(st->solver), st->prob, cs_interp_seed(in),
                          &sub))
        return NULL;
    if (cs_reg_extra(reg) || cs_reg_get_info(reg)->matrix_arg) {
        cs_reg_free(reg);
        return NULL;
    }
    return reg;
}

/* Deposit the recorded path over the landscape of the run's regularizer
 * (the current one when the run's cannot be drawn in the plane), on a
 * square box about 0 that holds the path and x*. */
static int store_trajectory(cs_interp *in, solve_state *st, cs_err *err)
{
    if (!traj_wanted(st) || st->ntraj == 0)
        return CS_OK;
    double r = 0.0;
    for (size_t i = 0; i < 2 * st->ntraj; i++)
        if (isfinite(st->traj[i]) && fabs(st->traj[i]) > r)
            r = fabs(st->traj[i]);
    const double *xs = cs_problem_xstar(st->prob);
    for (size_t k = 0; xs && k < 2; k++)
        if (isfinite(xs[k]) && fabs(xs[k]) > r)
            r = fabs(xs[k]);
    r = r > 0.0 ? 1.15 * r : 1.0;
    if (!(r < 1e150))
        return cs_fail(err, CS_ENONFINITE, "trajectory: the iterates are too large to draw");
    cs_landscape_spec spec = {.x0 = -r, .x1 = r, .y0 = -r, .y1 = r, .nx = 201, .ny = 201,
                              .cancel = cs_interp_cancel_flag(in)};
    cs_reg *own = traj_reg(in, st);
    cs_reg *reg = own ? own : in->reg;
    cs_landscape *l = NULL;
    int rc = cs_landscape_new(&l, reg, &spec, err);
    if (rc && own) {   /* fall back to the current regularizer */
        cs_reg_free(own);
        own = NULL;
        reg = in->reg;
        rc = cs_landscape_new(&l, reg, &spec, err);
    }
    if (rc) {
        cs_reg_free(own);
        return rc;
    }
    cs_plot_curve tc[CS_LANDSCAPE_MAX_TARGETS];
    for (size_t k = 0; k < l->ntarget; k++)
        tc[k] = (cs_plot_curve){l->target[k].x, l->target[k].y, l->target[k].n};
    cs_plot_trajectory_data d = {
        .land = {.reg = cs_reg_get_info(reg)->name, .nx = l->nx, .ny = l->ny, .x0 = l->x0,
                 .x1 = l->x1, .y0 = l->y0, .y1 = l->y1, .z = l->z,
                 .log_scale = l->zmax > 0 && l->zmin >= 0,
                 .target = l->ntarget ? tc : NULL, .ntarget = l->ntarget},
        .xy = st->traj, .n = st->ntraj, .name = cs_solver_method(st->solver)};
    rc = cs_plotstore_trajectory(in, &d, err);
    cs_landscape_free(l);
    cs_reg_free(own);
    return rc;
}

/* After solve/step: the trace, and on a 2-dimensional problem the
 * trajectory (a failure to compute its landscape only matters when plot=
 * asks for the drawing); then plot= draws the trajectory (N = 2) or the
 * trace. */
static int store_run(cs_interp *in, const cs_cmdline *cl, solve_state *st, cs_result *res,
                     cs_err *err)
{
    int rc = store_trace(in, st, err);
    if (rc)
        return rc;
    const char *kind = "trace";
    if (traj_wanted(st) && st->ntraj > 0) {
        cs_result_int(res, "trajectory", (long long)st->ntraj);
        rc = store_trajectory(in, st, err);
        if (rc) {
            if (cs_cmdline_key(cl, "plot"))
                return rc;
            cs_result_str(res, "trajectory_skipped", err->msg);
            cs_err_clear(err);
        } else {
            kind = "trajectory";
        }
    }
    return cs_plot_after(in, cl, kind, res, err);
}

static void put_run(cs_result *res, solve_state *st)
{
    cs_solve_result r;
    cs_solver_result(st->solver, &r);
    cs_result_str(res, "method", cs_solver_method(st->solver));
    cs_result_str(res, "algo", cs_algo_name(cs_solver_algo(st->solver)));
    cs_result_bool(res, "success", r.success);
    cs_result_num(res, "rel_err", r.rel_err);
    cs_result_int(res, "iters", r.iters);
    cs_result_int(res, "restarts", r.starts);
    cs_result_num(res, "seconds", r.seconds);
    cs_result_num(res, "objective", r.objective);
    cs_result_bool(res, "done", r.done);
    cs_result_str(res, "end", cs_end_name(r.end));
    if (st->kind == CS_PROB_ORTH)
        cs_result_num(res, "orth_err", r.orth_err);
    if (st->kind == CS_PROB_MAXCUT) {
        cs_result_num(res, "cut", r.cut);
        cs_result_num(res, "cut_rounded", r.cut_rounded);
        cs_result_num(res, "cut_start", r.cut_start);
        cs_result_num(res, "known_best", cs_graph_known_best(cs_problem_graph(st->prob)));
    }
}

/* ------------------------------------------------------------ solve / step / reset */

static int cmd_solve(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    solve_state *st = NULL;
    solve_args a;
    int rc, fresh;
    if ((rc = solve_need_problem(in, cl, &st, err)) || (rc = read_solve_args(in, cl, st, &a, err)))
        return rc;
    if ((rc = cs_plot_key_check(in, cl, "plot", err)))
        return rc;
    if ((rc = ensure_solver(in, st, &a, &fresh, err)))
        return rc;
    /* a finished run is solved again from its start (same stream, same result) */
    if (!fresh && cs_solver_done(st->solver)) {
        if ((rc = cs_solver_reset(st->solver, err)))
            return rc;
        st->ntraj = 0;
        st->traj_start = 0;
    }
    long steps;
    st->seq = solve_stamp(in);
    rc = run_steps(in, st, 0, 1, &steps, err);
    if (rc == CS_ECANCEL)
        return cs_fail(err, CS_ECANCEL, "solve interrupted (step or solve continues the run)");
    if (rc)
        return rc;
    put_run(res, st);
    return store_run(in, cl, st, res, err);
}

static void put_last(cs_result *res, solve_state *st, long steps)
{
    size_t n;
    const cs_trace_rec *t = cs_solver_trace(st->solver, &n);
    cs_solve_result r;
    cs_solver_result(st->solver, &r);
    cs_result_int(res, "steps", steps);
    cs_result_str(res, "method", cs_solver_method(st->solver));
    if (n) {
        const cs_trace_rec *l = &t[n - 1];
        cs_result_int(res, "iter", l->iter);
        cs_result_int(res, "start", l->start);
        cs_result_num(res, "objective", l->objective);
        cs_result_num(res, "residual", l->residual);
        cs_result_num(res, "tau", l->tau);
        cs_result_int(res, "backtracks", l->backtracks);
        cs_result_num(res, "rel_err", l->rel_err);
    } else {
        cs_result_int(res, "iter", 0);
        cs_result_int(res, "start", 0);
    }
    cs_result_int(res, "iters", r.iters);
    cs_result_bool(res, "done", r.done);
    cs_result_bool(res, "success", r.success);
}

static int cmd_step(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    solve_state *st = NULL;
    solve_args a;
    int rc, fresh;
    long n;
    if ((rc = solve_need_problem(in, cl, &st, err)) || (rc = read_solve_args(in, cl, st, &a, err)))
        return rc;
    if ((rc = cs_arg_long(in, cl, "n", 1, 1, 100000000L, &n, err)))
        return rc;
    if ((rc = cs_plot_key_check(in, cl, "plot", err)))
        return rc;
    if ((rc = ensure_solver(in, st, &a, &fresh, err)))
        return rc;
    long done = 0;
    st->seq = solve_stamp(in);
    rc = run_steps(in, st, n, 0, &done, err);
    if (rc)
        return rc;
    put_last(res, st, done);
    return store_run(in, cl, st, res, err);
}

static int cmd_reset(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    solve_state *st = NULL;
    int rc = solve_need_problem(in, cl, &st, err);
    if (rc)
        return rc;
    if (st->solver && (rc = cs_solver_reset(st->solver, err)))
        return rc;
    st->ntraj = 0;
    st->traj_start = 0;
    st->seq = solve_stamp(in);
    cs_result_str(res, "kind", cs_problem_kind_name(st->kind));
    if (st->solver)
        cs_result_str(res, "method", cs_solver_method(st->solver));
    cs_result_int(res, "iter", 0);
    return CS_OK;
}

/* ------------------------------------------------------------ trace */

#define TRACE_CSV_HEADER "iter,start,objective,residual,norm_residual,tau,backtracks,rel_err"


static void trace_row(FILE *f, const cs_trace_rec *r)
{
    char a[40], b[40], c[40], d[40], e[40];
    cs_format_double(a, sizeof a, r->objective);
    cs_format_double(b, sizeof b, r->residual);
    cs_format_double(c, sizeof c, r->norm_residual);
    cs_format_double(d, sizeof d, r->tau);
    cs_format_double(e, sizeof e, r->rel_err);
    fprintf(f, "%ld,%d,%s,%s,%s,%s,%d,%s\n", r->iter, r->start, a, b, c, d, r->backtracks, e);
}

static int cmd_trace(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    solve_state *st = NULL;
    int rc = solve_need_problem(in, cl, &st, err);
    if (rc)
        return rc;
    if (!st->solver) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_ESTATE, "trace: nothing solved yet (run solve or step)");
    }
    if ((rc = cs_plot_key_check(in, cl, "plot", err)))
        return rc;
    size_t n;
    const cs_trace_rec *t = cs_solver_trace(st->solver, &n);
    cs_result_str(res, "method", cs_solver_method(st->solver));
    cs_result_int(res, "records", (long long)n);
    if (cs_cmdline_key(cl, "out")) {
        char path[4096];
        cs_afile af;
        if ((rc = cs_arg_path(in, cl, "out", path, sizeof path, err)))
            return rc;
        if ((rc = cs_afile_open(&af, path, 0, err))) {
            cs_arg_blame(in, cl, "out", 0);
            return rc;
        }
        fprintf(af.f, "%s\n", TRACE_CSV_HEADER);
        for (size_t i = 0; i < n; i++)
            trace_row(af.f, &t[i]);
        if ((rc = cs_afile_commit(&af, err))) {
            cs_arg_blame(in, cl, "out", 0);
            return rc;
        }
        cs_result_str(res, "out", cs_arg_text(cl, "out", ""));
    } else if (n) {
        /* the last records, for reading at the prompt */
        size_t from = n > 10 ? n - 10 : 0;
        cs_result_text(res, "%s\n", TRACE_CSV_HEADER);
        for (size_t i = from; i < n; i++) {
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
    if (n) {
        cs_result_num(res, "objective", t[n - 1].objective);
        cs_result_num(res, "rel_err", t[n - 1].rel_err);
    }
    if ((rc = store_trace(in, st, err)))
        return rc;
    return cs_plot_after(in, cl, "trace", res, err);
}

/* ------------------------------------------------------------ the view */

int cs_interp_solve_view(cs_interp *in, cs_solve_view *v)
{
    memset(v, 0, sizeof *v);
    v->rel_err = v->objective = v->residual = v->tau = NAN;
    solve_state *st = cs_interp_ext(in, CS_EXT_SOLVE);
    if (!st || !st->prob)
        return -1;
    v->kind = cs_problem_kind_name(st->kind);
    v->seq = st->seq;
    v->N = st->N;
    v->M = st->M;
    v->K = st->K;
    size_t nx = st->N * cs_problem_cols(st->prob);
    v->xstar = cs_problem_xstar(st->prob);
    if (!st->solver)
        return 0;
    if (traj_wanted(st) && st->ntraj) {
        v->traj_xy = st->traj;
        v->traj_len = st->ntraj;
    }
    size_t n;
    const double *it = cs_solver_iterate(st->solver, &n);
    if (it) {
        if (st->view_cap < nx) {
            double *b = realloc(st->view_x, nx * sizeof *b);
            if (!b)
                return 0;
            st->view_x = b;
            st->view_cap = nx;
        }
        if (st->kind == CS_PROB_2BIT)
            for (size_t i = 0; i < nx; i++)
                st->view_x[i] = it[i] + it[nx + i];
        else
            memcpy(st->view_x, it, nx * sizeof *it);
        v->x = st->view_x;
        v->n = nx;
    }
    cs_solve_result r;
    cs_solver_result(st->solver, &r);
    v->success = r.success;
    v->done = r.done;
    size_t len;
    const cs_trace_rec *t = cs_solver_trace(st->solver, &len);
    if (len) {
        const cs_trace_rec *l = &t[len - 1];
        v->iter = l->iter;
        v->start = l->start;
        v->objective = l->objective;
        v->residual = l->residual;
        v->tau = l->tau;
        v->rel_err = l->rel_err;
        v->backtracks = l->backtracks;
        size_t from = len;
        while (from > 0 && t[from - 1].start == l->start)
            from--;
        size_t h = len - from;
        if (st->hist_cap < h) {
            double *a = realloc(st->view_obj, h * sizeof *a);
            if (a)
                st->view_obj = a;
            double *b = realloc(st->view_err, h * sizeof *b);
            if (b)
                st->view_err = b;
            if (!a || !b)
                return 0;
            st->hist_cap = h;
        }
        for (size_t i = 0; i < h; i++) {
            st->view_obj[i] = t[from + i].objective;
            st->view_err[i] = t[from + i].rel_err;
        }
        v->hist_objective = st->view_obj;
        v->hist_rel_err = st->view_err;
        v->hist_len = h;
    }
    return 0;
}

/* ------------------------------------------------------------ the table */

#define SOLVE_KEYS                                                                             \
    {"method", "auto", "algorithm: fista, or dr (Douglas-Rachford, for linf and l1); auto "    \
     "picks dr for linf/l1", "auto|fista|dr", CS_KEY_WORD},                                    \
    {"reg", "current", "method text (bin, beta:beta=learn, linf...); default: the current "   \
     "reg if chosen after problem, else the problem's own", NULL, CS_KEY_TEXT},               \
    {"maxit", "0", "iterations per start (0: 1e4; 1e3 for 2bit and orth)", NULL, CS_KEY_INT},  \
    {"stop", "oracle", "oracle (rel. error < 1e-2, the paper's), hybrid (FASTA), residual",    \
     "oracle|hybrid|residual|normalized|maxit", CS_KEY_WORD},                                 \
    {"tol", "1e-8", "tolerance of the residual rules", NULL, CS_KEY_NUM},                      \
    {"restarts", "0", "most starts (0: 10 for bin eig 2bit, else 1; DR always 1)", NULL,       \
     CS_KEY_INT},                                                                              \
    {"lambda", "default", "2bit/maxcut weight (1e-5; maxcut 1e-7, toy graphs 1)", NULL,        \
     CS_KEY_NUM},                                                                              \
    {"mode", "default", "FISTA variant: accel, adaptive (BB steps), plain",                    \
     "default|accel|adaptive|plain", CS_KEY_WORD}

static const cs_key_spec solve_keys[] = {
    SOLVE_KEYS,
    {"plot", NULL, "draw into this image (.png .svg .pdf .gif): the iterates over the "
     "landscape for a 2-dimensional problem, else the trace", NULL, CS_KEY_FILE},
    {"title", NULL, "plot title", NULL, CS_KEY_TEXT},
    {0}};

static const cs_key_spec step_keys[] = {
    {"n", "1", "iterations to take (a new start begins as needed)", NULL, CS_KEY_INT},
    SOLVE_KEYS,
    {"plot", NULL, "draw into this image (.png .svg .pdf .gif): the iterates over the "
     "landscape for a 2-dimensional problem, else the trace", NULL, CS_KEY_FILE},
    {"title", NULL, "plot title", NULL, CS_KEY_TEXT},
    {0}};

static const cs_key_spec no_keys[] = {{0}};

static const cs_key_spec trace_keys[] = {
    {"out", NULL, "CSV file: " TRACE_CSV_HEADER, NULL, CS_KEY_FILE},
    {"plot", NULL, "draw objective, residual, step and error into this image", NULL,
     CS_KEY_FILE},
    {"title", NULL, "plot title", NULL, CS_KEY_TEXT},
    {0}};

static const cs_cmd_spec solve_commands[] = {
    {.name = "solve", .topic = "solvers",
     .usage = "solve [method=fista|dr] [maxit=10000] [stop=oracle|hybrid|residual] [tol=1e-8] "
              "[restarts=1] [reg=..] [plot=FILE]",
     .summary = "solve the problem with the current regularizer (linf/l1: Douglas-Rachford)",
     .example = "solve restarts=10", .keys = solve_keys, .run = cmd_solve, .journal = 1},
    {.name = "step", .topic = "solvers", .usage = "step [n=1] [solve keys]",
     .summary = "take n solver iterations (continues the run; solve keys as for solve)",
     .example = "step n=10", .keys = step_keys, .run = cmd_step, .journal = 1},
    {.name = "reset", .topic = "solvers", .usage = "reset",
     .summary = "put the solver back before its first start (same random stream)",
     .example = "reset", .keys = no_keys, .run = cmd_reset, .journal = 1},
    {.name = "trace", .topic = "solvers", .usage = "trace [out=FILE] [plot=FILE]",
     .summary = "the solver's per-iteration records (objective, residual, step, error)",
     .example = "trace out=trace.csv", .keys = trace_keys, .run = cmd_trace, .journal = 1},
};

CS_CMD_GROUP(cs_group_solve, solve_commands);
