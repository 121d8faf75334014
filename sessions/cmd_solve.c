/* cmd_solve.c — the solver as commands: `solve`, `step`, `reset`, `rewind`
 * and `x` on the session's problem (solve_state.h), and the plots a run
 * deposits (its trace; the paths of every start over the landscape on a
 * 2-dimensional problem). `trace` is in cmd_trace.c, the view front ends
 * read in solve_view.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_array_io.h"
#include "cs_landscape.h"
#include "cs_parse.h"
#include "cs_plotstore.h"
#include "cs_solve_view.h"
#include "cs_sweep_stream.h"
#include "interp_internal.h"
#include "solve_state.h"

/* ------------------------------------------------------------ solver options */

/* The method: reg= when given; else the current regularizer when it was
 * chosen after `problem`; else the problem's own (bin osb ter eig om equ).
 * Keys not given take their defaults, or with `inherit` (step on a run)
 * the run's values: a step continues the run it is given. */
static int read_solve_args(cs_interp *in, const cs_cmdline *cl, solve_state *st,
                           const solve_args *inherit, solve_args *a, cs_err *err)
{
    memset(a, 0, sizeof *a);
    const cs_solve_opts *h = inherit ? &inherit->o : NULL;
    const char *reg = cs_arg_text(cl, "reg", NULL);
    char text[1024];
    if (reg)
        snprintf(text, sizeof text, "%s", reg);
    else
        solve_next_method(in, st, text, sizeof text, NULL);
    if (st->kind == CS_PROB_EIG) {
        /* eig/mu/ns on an eig problem use the problem's C: drop a C= of the reg */
        char *c = strstr(text, " C=");
        if (!c)
            c = strstr(text, ":C=");
        if (c) {
            size_t len = strcspn(c + 1, " :\t");
            memmove(c, c + 1 + len, strlen(c + 1 + len) + 1);
        }
    }
    const char *algo;
    int rc = cs_arg_choice(in, cl, "method", "auto|fista|dr", h ? cs_algo_name(h->algo) : "auto",
                           &algo, err);
    if (rc)
        return rc;
    cs_algo_parse(algo, &a->o.algo, NULL);
    long maxit, restarts;
    if ((rc = cs_arg_long(in, cl, "maxit", h ? h->maxit : 0, 0, 100000000L, &maxit, err)))
        return rc;
    const char *stop;
    if ((rc = cs_arg_choice(in, cl, "stop", "oracle|hybrid|residual|normalized|ratio|maxit",
                            h ? cs_stop_name(h->stop) : "oracle", &stop, err)))
        return rc;
    cs_stop_parse(stop, &a->o.stop, NULL);
    if ((rc = cs_arg_double(in, cl, "tol", h ? h->tol : 1e-8, 1e-300, 1.0, &a->o.tol, err)))
        return rc;
    if ((rc = cs_arg_long(in, cl, "restarts", h ? h->restarts : 0, 0, 100000, &restarts, err)))
        return rc;
    const char *fit;
    if ((rc = cs_arg_choice(in, cl, "fit", "affine|ls", h ? cs_fit_name(h->fit) : "affine", &fit,
                            err)))
        return rc;
    cs_fit_parse(fit, &a->o.fit, NULL);
    a->o.lambda = h ? h->lambda : 0.0;
    if (cs_cmdline_key(cl, "lambda") &&
        (rc = cs_arg_double(in, cl, "lambda", 0.0, 1e-300, 1e300, &a->o.lambda, err)))
        return rc;
    a->o.mode = h ? h->mode : CS_MODE_DEFAULT;
    const char *mode;
    /* only commands whose keys include mode= get one past the key check */
    if (cs_cmdline_key(cl, "mode")) {
        if ((rc = cs_arg_choice(in, cl, "mode", "default|accel|adaptive|plain",
                                cs_mode_name(a->o.mode), &mode, err)))
            return rc;
        cs_mode_parse(mode, &a->o.mode, NULL);
    }
    a->o.maxit = maxit;
    a->o.restarts = (int)restarts;
    a->o.trace = 1;
    a->o.path = solve_traj_wanted(st);
    a->o.cancel = cs_interp_cancel_flag(in);
    cs_err sub;
    if (cs_method_parse(&a->method, text, &sub) || cs_method_check(&a->method, &sub)) {
        cs_arg_blame(in, cl, reg ? "reg" : NULL, 0);
        if (!reg)
            in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "%s%s", reg ? "reg=: " : "", sub.msg);
    }
    return CS_OK;
}

/* Same run: everything but the stop keys (maxit, stop, tol) agrees. The
 * entry too: `reg define` of the same name makes a new one, and the old
 * solver would go on minimizing the old definition. */
static int same_run(const solve_args *a, const solve_args *b)
{
    return !strcmp(a->method.text, b->method.text) && a->method.info == b->method.info &&
           a->o.algo == b->o.algo &&
           a->o.mode == b->o.mode && a->o.restarts == b->o.restarts && a->o.lambda == b->o.lambda &&
           a->o.fit == b->o.fit;
}

static int same_stop(const solve_args *a, const solve_args *b)
{
    return a->o.maxit == b->o.maxit && a->o.stop == b->o.stop && a->o.tol == b->o.tol;
}

/* A new solver asked for (solve x0=, solve start=): its seed and its
 * first start (x: n entries). */
typedef struct fresh_start {
    uint64_t seed;
    double *x;
    size_t n;
} fresh_start;

/* The solver for these arguments: the existing one when they match (*fresh
 * 0); after a rewind, while the run goes on, the existing one with the new
 * stop keys when only they differ (*forked 1: the run forks there); else a
 * new one from the problem's trial stream. fs (may be NULL) forces a new
 * one, with its seed and start. */
static int ensure_solver(cs_interp *in, solve_state *st, const solve_args *a,
                         const fresh_start *fs, int *fresh, int *forked, cs_err *err)
{
    *fresh = *forked = 0;
    if (!fs && st->solver && same_run(a, &st->args)) {
        if (same_stop(a, &st->args))
            return CS_OK;
        if (st->rewound && !cs_solver_done(st->solver)) {
            int rc = cs_solver_set_stop(st->solver, a->o.maxit, a->o.stop, a->o.tol, err);
            if (rc)
                return rc;
            st->args.o.maxit = a->o.maxit;
            st->args.o.stop = a->o.stop;
            st->args.o.tol = a->o.tol;
            *forked = 1;
            return CS_OK;
        }
    }
    cs_solver *s;
    uint64_t seed = fs ? fs->seed : cs_interp_seed(in);
    int rc = cs_solver_new(&s, st->prob, &a->method, &a->o, seed,
                           cs_sweep_method_stream(st->stream, &a->method), err);
    if (rc)
        return rc;
    /* the first start: the one asked for, else problem file x0= */
    const double *x0 = fs ? fs->x : st->x0;
    size_t nx0 = fs ? fs->n : st->nx0;
    if (x0 && (rc = cs_solver_set_start(s, x0, nx0, err))) {
        cs_solver_free(s);
        return rc;
    }
    cs_solver_free(st->solver);
    st->solver = s;
    st->args = *a;
    st->solver_seed = seed;
    st->rewound = 0;
    *fresh = 1;
    return CS_OK;
}

/* ------------------------------------------------------------ plots of a run */

/* The regularizer the run minimizes, when it is one the landscape can show
 * in the plane (no auxiliary coordinates, not a matrix); else NULL. */
static cs_reg *traj_reg(cs_interp *in, solve_state *st)
{
    cs_reg *reg = NULL;
    cs_err sub;
    /* st->args: what the solver was made from */
    if (cs_method_reg_new(&reg, &st->args.method, st->prob, cs_interp_seed(in), &sub))
        return NULL;
    if (cs_reg_extra(reg) || cs_reg_get_info(reg)->matrix_arg) {
        cs_reg_free(reg);
        return NULL;
    }
    return reg;
}

/* A square box about 0 that holds every path and x*. */
static int traj_box(const solve_state *st, double *r, cs_err *err)
{
    size_t n;
    const double *xy = cs_solver_path(st->solver, &n, NULL);
    *r = 0.0;
    for (size_t i = 0; i < 2 * n; i++)
        if (isfinite(xy[i]) && fabs(xy[i]) > *r)
            *r = fabs(xy[i]);
    const double *xs = cs_problem_xstar(st->prob);
    for (size_t k = 0; xs && k < 2; k++)
        if (isfinite(xs[k]) && fabs(xs[k]) > *r)
            *r = fabs(xs[k]);
    *r = *r > 0.0 ? 1.15 * *r : 1.0;
    if (!(*r < 1e150))
        return cs_fail(err, CS_ENONFINITE, "trajectory: the iterates are too large to draw");
    return CS_OK;
}

/* Deposit every start's path over the landscape of the run's regularizer
 * (the current one when the run's cannot be drawn in the plane), with the
 * feasible set, x* and the iterate. */
static int store_trajectory(cs_interp *in, solve_state *st, cs_err *err)
{
    double r;
    int rc = traj_box(st, &r, err);
    if (rc)
        return rc;
    cs_landscape_spec spec = {.x0 = -r, .x1 = r, .y0 = -r, .y1 = r, .nx = 201, .ny = 201,
                              .cancel = cs_interp_cancel_flag(in)};
    cs_reg *own = traj_reg(in, st);
    cs_reg *reg = own ? own : in->reg;
    cs_landscape *l = NULL;
    rc = cs_landscape_new(&l, reg, &spec, err);
    if (rc && own) {   /* fall back to the current regularizer */
        cs_reg_free(own);
        own = NULL;
        reg = in->reg;
        rc = cs_landscape_new(&l, reg, &spec, err);
    }
    solve_geo geo;
    if (!rc)
        rc = solve_geo_make(st, NULL, 0, NULL, -r, r, -r, r, &geo, err);
    if (rc) {
        cs_landscape_free(l);
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
                 .target = l->ntarget ? tc : NULL, .ntarget = l->ntarget, .geo = &geo.g},
        .name = cs_solver_method(st->solver)};
    rc = cs_plotstore_trajectory(in, &d, err);
    solve_geo_free(&geo);
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
    int rc = solve_store_trace(in, st->solver, NULL, NULL, 0, err);
    if (rc)
        return rc;
    const char *kind = "trace";
    cs_solve_result r;
    cs_solver_result(st->solver, &r);
    size_t npath;
    if (solve_path_of(st, r.starts, &npath)) {
        cs_result_int(res, "trajectory", (long long)npath);
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
    /* what is measured instead of (or, fitting a noisy b, besides) the error to x* */
    int ls = cs_solver_fit(st->solver) == CS_FIT_LS;
    if (ls) {
        cs_result_str(res, "fit", "ls");
        cs_result_num(res, "lambda", cs_solver_lambda(st->solver));
    }
    if (ls || (st->kind != CS_PROB_MAXCUT && !cs_problem_xstar(st->prob))) {
        cs_result_str(res, "stop", cs_stop_name(cs_solver_stop(st->solver)));
        cs_result_num(res, "residual", r.residual);
        cs_result_num(res, "target_dist", r.target_dist);
        cs_result_num(res, "scale", r.scale);
    }
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

/* out=PATH: the solution x (N entries; 2bit y1 + y2) into a file. */
static int write_out(cs_interp *in, const cs_cmdline *cl, solve_state *st, cs_result *res,
                     cs_err *err)
{
    if (!cs_cmdline_key(cl, "out"))
        return CS_OK;
    char path[4096];
    size_t n;
    const double *x = cs_solver_x(st->solver, &n);
    int rc = cs_arg_path(in, cl, "out", path, sizeof path, err);
    if (!rc)
        rc = solve_write_x(path, x, n, err);
    if (rc) {
        cs_arg_blame(in, cl, "out", 0);
        return rc;
    }
    cs_result_str(res, "out", cs_arg_text(cl, "out", ""));
    return CS_OK;
}

/* x0=PATH: the first start of a new solver (N entries as n x 1 or 1 x n;
 * 2bit also 2N), read and checked before anything changes. fs->x NULL:
 * no x0= given. */
static int read_x0(cs_interp *in, const cs_cmdline *cl, const solve_state *st, fresh_start *fs,
                   cs_err *err)
{
    *fs = (fresh_start){.seed = cs_interp_seed(in)};
    if (!cs_cmdline_key(cl, "x0"))
        return CS_OK;
    const char *spec = cs_arg_text(cl, "x0", "");
    double *lit;   /* x0=-1.2,0.5: the vector itself (the workbench's moved start) */
    size_t lr, lc, nlit;
    cs_err sub;
    if (cs_parse_matrix(spec, &lit, &lr, &lc, &sub) == 0) {
        nlit = lr * lc;
        if (lr != 1 || (nlit != st->N && nlit != (st->kind == CS_PROB_2BIT ? 2 * st->N : st->N))) {
            free(lit);
            cs_arg_blame(in, cl, "x0", 0);
            return cs_fail(err, CS_EINVAL, "x0 has %zu entries, the problem has N = %zu", nlit,
                           st->N);
        }
        fs->x = lit;
        fs->n = nlit;
        return CS_OK;
    }
    char path[4096];
    cs_array arr = {0};
    in->err_col = 0;
    int rc = cs_arg_path(in, cl, "x0", path, sizeof path, err);
    /* its digest in the journal: a replay refuses a file that changed */
    if (!rc)
        rc = cs_interp_input_file(in, cl, spec, path, err);
    if (!rc)
        rc = cs_array_read(path, &arr, err);
    size_t len = arr.rows * arr.cols, nx = st->kind == CS_PROB_2BIT ? 2 * st->N : st->N;
    if (!rc && ((arr.rows != 1 && arr.cols != 1) || (len != st->N && len != nx)))
        rc = cs_fail(err, CS_EINVAL, "x0 is %zux%zu, the problem has N = %zu (give N entries)",
                     arr.rows, arr.cols, st->N);
    if (rc) {
        cs_array_free(&arr);
        if (strncmp(err->msg, spec, strlen(spec)) != 0) {   /* the readers name it already */
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%.200s: %.300s", spec, err->msg);
            snprintf(err->msg, sizeof err->msg, "%s", msg);
        }
        if (!in->err_col)   /* (a digest that differs: at sha256=) */
            cs_arg_blame(in, cl, "x0", 0);
        return rc;
    }
    fs->x = arr.data;
    fs->n = len;
    return CS_OK;
}

/* start=i,j: cell (i, j) of the last basins map (0-based, row j*res + i of
 * its ends=): the map's method, maxit, seed and stream, one start from the
 * cell's point (N > 2: x* with the map's dims set), so the run ends where
 * the map says, bit for bit. fs->x is malloc'd. */
static int replay_args(cs_interp *in, const cs_cmdline *cl, solve_state *st, solve_args *a,
                       fresh_start *fs, size_t cell[2], cs_err *err)
{
    static const char *const run_keys[] = {"method", "reg", "maxit", "stop", "tol", "restarts",
                                           "lambda", "fit", "mode", "x0"};
    const cs_basins *b = st->basins;
    for (size_t k = 0; k < sizeof run_keys / sizeof *run_keys; k++)
        if (cs_cmdline_key(cl, run_keys[k])) {
            cs_arg_blame(in, cl, run_keys[k], 0);
            return cs_fail(err, CS_EINVAL, "%s=: start= replays the basins map's run as it was "
                           "(its method and maxit)", run_keys[k]);
        }
    if (!b) {
        cs_arg_blame(in, cl, "start", 0);
        return cs_fail(err, CS_ESTATE, "start=: no basins map of this problem yet (e.g. basins "
                       "res=21)");
    }
    const char *t = cs_arg_text(cl, "start", "");
    char *e1 = NULL, *e2 = NULL;
    long i = strtol(t, &e1, 10), j = e1 && *e1 == ',' ? strtol(e1 + 1, &e2, 10) : -1;
    if (!e2 || e2 == e1 + 1 || *e2 || i < 0 || j < 0 || (size_t)i >= b->res ||
        (size_t)j >= b->res) {
        cs_arg_blame(in, cl, "start", 0);
        return cs_fail(err, CS_EINVAL, "start=%s: a cell i,j of the basins map, each 0 to %zu",
                       t, b->res - 1);
    }
    const double *xs = cs_problem_xstar(st->prob);
    fs->x = calloc(b->N, sizeof *fs->x);
    if (!fs->x)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    if (b->N > 2 && xs)
        memcpy(fs->x, xs, b->N * sizeof *fs->x);
    fs->x[b->dims[0]] = b->xs[i];
    fs->x[b->dims[1]] = b->ys[j];
    fs->n = b->N;
    fs->seed = st->basins_seed;
    cell[0] = (size_t)i;
    cell[1] = (size_t)j;
    /* the options cs_basins_run gives each start */
    memset(a, 0, sizeof *a);
    a->method = st->basins_method;
    a->o.maxit = b->maxit;
    a->o.restarts = 1;
    a->o.trace = 1;
    a->o.path = solve_traj_wanted(st);
    a->o.cancel = cs_interp_cancel_flag(in);
    return CS_OK;
}

static int cmd_solve(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    solve_state *st = NULL;
    solve_args a;
    fresh_start fs = {0};
    size_t cell[2] = {0, 0};
    int rc, fresh, forked, replay = cs_cmdline_key(cl, "start") != NULL;
    long stop_after = -1;
    if ((rc = solve_need_problem(in, cl, &st, err)) ||
        (cs_cmdline_key(cl, "stop_after") &&
         (rc = cs_arg_long(in, cl, "stop_after", 0, 0, 2000000000L, &stop_after, err))))
        return rc;
    if (replay)
        rc = replay_args(in, cl, st, &a, &fs, cell, err);
    else if (!(rc = read_solve_args(in, cl, st, NULL, &a, err)))
        rc = read_x0(in, cl, st, &fs, err);
    if (!rc)
        rc = cs_plot_key_check(in, cl, "plot", err);
    if (!rc)
        rc = ensure_solver(in, st, &a, fs.x ? &fs : NULL, &fresh, &forked, err);
    free(fs.x);
    if (rc)
        return rc;
    /* a finished run is solved again from its start (same stream, same result) */
    if (!fresh && !forked && cs_solver_done(st->solver)) {
        if ((rc = cs_solver_reset(st->solver, err)))
            return rc;
        st->rewound = 0;
    }
    st->seq = cs_interp_stamp(in);
    cs_solve_result r0, r1;
    cs_solver_result(st->solver, &r0);
    if (stop_after >= 0) {
        /* the replay of an interrupted solve: its iterations, then nothing
         * more (no out=, no plot), as the interrupted one */
        if ((rc = cs_solver_step(st->solver, stop_after, NULL, err)))
            return rc;
        put_run(res, st);
        cs_result_int(res, "stopped_after", stop_after);
        return CS_OK;
    }
    rc = cs_solver_solve(st->solver, NULL, err);
    if (rc == CS_ECANCEL) {
        /* the run keeps its iterations: the journal says how many */
        char kv[48];
        cs_solver_result(st->solver, &r1);
        snprintf(kv, sizeof kv, "stop_after=%ld", r1.iters - r0.iters);
        cs_interp_journal_stopped(in, kv);
        return cs_fail(err, CS_ECANCEL, "solve interrupted after %ld iterations (step or solve "
                       "continues the run)", r1.iters - r0.iters);
    }
    if (rc)
        return rc;
    put_run(res, st);
    if (forked)
        cs_result_bool(res, "forked", 1);
    if (replay)
        cs_result_vec(res, "cell", (double[2]){(double)cell[0], (double)cell[1]}, 2);
    if ((rc = write_out(in, cl, st, res, err)))
        return rc;
    return store_run(in, cl, st, res, err);
}

/* The last step's record and the run's state. */
static void put_last(cs_result *res, solve_state *st, long steps)
{
    size_t n;
    const cs_trace_rec *t = cs_solver_trace(st->solver, &n);
    cs_solve_result r;
    cs_solver_result(st->solver, &r);
    cs_result_int(res, "steps", steps);
    cs_result_str(res, "method", cs_solver_method(st->solver));
    if (n && t[n - 1].start == r.starts) {
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
        cs_result_int(res, "start", r.starts);
    }
    cs_result_int(res, "iters", r.iters);
    cs_result_bool(res, "done", r.done);
    cs_result_bool(res, "success", r.success);
}

/* step until=: one step at a time until the start running (or the next)
 * ends, the next start has begun (restart), or the run is done. */
static int step_until(cs_solver *s, const char *until, long cap, const cs_cancel *cancel,
                      long *done, cs_err *err)
{
    cs_solve_result r;
    cs_solver_result(s, &r);
    int restart = !strcmp(until, "restart");
    int target = r.end == CS_END_RUNNING || restart ? r.starts : r.starts + 1;
    int rc = CS_OK;
    for (*done = 0; !rc && !r.done && *done < cap; (*done)++) {
        if (strcmp(until, "done") && r.starts >= target && r.end != CS_END_RUNNING)
            break;
        if ((*done & 255) == 255 && cs_cancelled(cancel))
            return cs_fail(err, CS_ECANCEL, "step interrupted after %ld iterations", *done);
        rc = cs_solver_step(s, 1, NULL, err);
        cs_solver_result(s, &r);
    }
    if (!rc && restart && !r.done)
        rc = cs_solver_begin(s, err);   /* the next start's point, iteration 0 */
    return rc;
}

static int cmd_step(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    solve_state *st = NULL;
    solve_args a;
    fresh_start fs = {0};
    int rc, fresh, forked;
    long n;
    if ((rc = solve_need_problem(in, cl, &st, err)) ||
        (rc = read_solve_args(in, cl, st, st->solver ? &st->args : NULL, &a, err)))
        return rc;
    if ((rc = cs_arg_long(in, cl, "n", 1, 0, 100000000L, &n, err)))
        return rc;
    if ((rc = cs_plot_key_check(in, cl, "plot", err)))
        return rc;
    if ((rc = read_x0(in, cl, st, &fs, err)))
        return rc;
    rc = ensure_solver(in, st, &a, fs.x ? &fs : NULL, &fresh, &forked, err);
    free(fs.x);
    if (rc)
        return rc;
    int was_done = cs_solver_done(st->solver);
    long done = 0;
    st->seq = cs_interp_stamp(in);
    const char *until = NULL;
    if (cs_cmdline_key(cl, "until") &&
        (rc = cs_arg_choice(in, cl, "until", "end|restart|done", "end", &until, err)))
        return rc;
    if (!until)
        rc = n ? cs_solver_step(st->solver, n, &done, err) : cs_solver_begin(st->solver, err);
    else   /* a state, not a count: n (given) only caps the steps */
        rc = step_until(st->solver, until, cs_cmdline_key(cl, "n") ? n : 100000000L,
                        cs_interp_cancel_flag(in), &done, err);
    if (until && rc == CS_ECANCEL) {   /* the replay stops where this one did */
        char kv[48];
        snprintf(kv, sizeof kv, "n=%ld", done);
        cs_interp_journal_stopped(in, kv);
    }
    if (rc)
        return rc;
    put_last(res, st, done);
    if (forked)
        cs_result_bool(res, "forked", 1);
    if (was_done)
        cs_result_str(res, "note", "the run has ended: reset starts it again");
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
    st->rewound = 0;
    st->seq = cs_interp_stamp(in);
    cs_result_str(res, "kind", cs_problem_kind_name(st->kind));
    if (st->solver)
        cs_result_str(res, "method", cs_solver_method(st->solver));
    cs_result_int(res, "iter", 0);
    return CS_OK;
}

/* The run's solver, or an error at the command's name. */
static int need_solver(cs_interp *in, const cs_cmdline *cl, solve_state **st, cs_err *err)
{
    int rc = solve_need_problem(in, cl, st, err);
    if (rc)
        return rc;
    if (!(*st)->solver || !cs_solver_iterate((*st)->solver, NULL)) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_ESTATE, "%s: nothing solved yet (run solve or step)", cl->name);
    }
    return CS_OK;
}

static int cmd_rewind(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    solve_state *st = NULL;
    const cs_arg *ka = cs_cmdline_pos(cl, 0);
    long k;
    int rc = need_solver(in, cl, &st, err);
    if (rc)
        return rc;
    if (cs_parse_long(ka->value, 0, 100000000L, &k, err)) {
        in->err_col = ka->col;
        return cs_fail(err, CS_EINVAL, "rewind %s: K is an iteration number, 0 or more",
                       ka->value);
    }
    if ((rc = cs_solver_rewind(st->solver, k, err))) {
        in->err_col = ka->col;
        return rc;
    }
    st->rewound = 1;
    st->seq = cs_interp_stamp(in);
    put_last(res, st, 0);
    return store_run(in, cl, st, res, err);
}

static int cmd_x(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    solve_state *st = NULL;
    int rc = need_solver(in, cl, &st, err);
    if (rc)
        return rc;
    cs_solve_view v;   /* its x is the iterate's x part (2bit: y1 + y2) */
    if (cs_interp_solve_view(in, &v) || !v.x)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    size_t n;
    const double *var = cs_solver_iterate(st->solver, &n);
    cs_result_vec(res, "x", v.x, v.n);
    if (n > v.n)
        cs_result_vec(res, "variable", var, n);
    cs_result_int(res, "iter", v.iter);
    cs_result_int(res, "start", v.start);
    if (cs_cmdline_key(cl, "out")) {
        char path[4096];
        if ((rc = cs_arg_path(in, cl, "out", path, sizeof path, err)) ||
            (rc = solve_write_x(path, v.x, v.n, err))) {
            cs_arg_blame(in, cl, "out", 0);
            return rc;
        }
        cs_result_str(res, "out", cs_arg_text(cl, "out", ""));
    }
    return CS_OK;
}

/* ------------------------------------------------------------ the table */

#define SOLVE_KEYS                                                                             \
    {"method", "auto", "algorithm: fista, or dr (Douglas-Rachford, for linf and l1); auto "    \
     "picks dr for linf/l1", "auto|fista|dr", CS_KEY_WORD},                                    \
    {"reg", "current", "method text (bin, beta:beta=learn, linf...); default: the current "   \
     "reg if chosen after problem, else the problem's own", NULL, CS_KEY_TEXT},               \
    {"maxit", "1e4 (2bit, orth: 1e3)", "iterations per start (0: that default)", NULL,        \
     CS_KEY_INT},                                                                              \
    {"stop", "oracle", "oracle (rel. error < 1e-2, the paper's), hybrid (FASTA), residual, "   \
     "normalized, ratio, maxit",                                                               \
     "oracle|hybrid|residual|normalized|ratio|maxit", CS_KEY_WORD},                           \
    {"tol", "1e-8", "tolerance of the residual rules", NULL, CS_KEY_NUM},                      \
    {"restarts", "10 (bin eig 2bit), else 1", "most starts (0: that default; DR always 1)", \
     NULL, CS_KEY_INT},                                                                        \
    {"lambda", "by kind", "2bit/maxcut weight (2bit 1e-5; maxcut 1e-7, toy graphs 1); fit=ls: " \
     "the weight of the regularizer (0.1)", NULL, CS_KEY_NUM},                                 \
    {"fit", "affine", "affine: min reg(x) s.t. Ax = b; ls: min 0.5*|Ax - b|^2 + lambda*reg(x) " \
     "by FISTA without a projection, for a noisy b (bin osb ter eig)", "affine|ls",           \
     CS_KEY_WORD},                                                                             \
    {"mode", "default", "FISTA variant: accel, adaptive (BB steps), plain",                    \
     "default|accel|adaptive|plain", CS_KEY_WORD},                                            \
    {"x0", NULL, "a new run whose first start is this vector: a file (N entries; .npy .csv "   \
     ".mtx .mat) or the entries themselves (x0=-1.2,0.5)", \
     NULL, CS_KEY_FILE},                                                                       \
    {"sha256", NULL, "the x0= file's SHA-256 digest (the journal records it; a replay whose "  \
     "file differs is refused)", NULL, CS_KEY_LIST}

static const cs_key_spec solve_keys[] = {
    SOLVE_KEYS,
    {"start", NULL, "i,j: replay the run of cell (i, j) of the last basins map (0-based; row "
     "j*res + i of basins ends=), bit for bit", NULL, CS_KEY_LIST},
    {"stop_after", NULL, "stop after N iterations, as Esc or Ctrl-C there would (the journal "
     "records it for an interrupted solve, so that a replay reaches the same iterate; no out= "
     "or plot then)", NULL, CS_KEY_INT},
    {"out", NULL, "write the solution x to this file (.csv .npy .json)", NULL, CS_KEY_FILE},
    {"plot", NULL, "draw into this image (.png .svg .pdf .gif): the iterates over the "
     "landscape for a 2-dimensional problem, else the trace", NULL, CS_KEY_FILE},
    CS_PLOT_FIGURE_KEYS,
    {"title", NULL, "plot title", NULL, CS_KEY_TEXT},
    {0}};

static const cs_key_spec step_keys[] = {
    {"n", "1", "iterations to take (a new start begins as needed; 0: begin the start only)", NULL,
     CS_KEY_INT},
    {"until", NULL, "step until a state instead of n times (n, when given, caps the steps): "
     "end (the running start, or the next, ends), restart (then the next start begins), done "
     "(the run stops)", "end|restart|done", CS_KEY_WORD},
    SOLVE_KEYS,
    {"plot", NULL, "draw into this image (.png .svg .pdf .gif): the iterates over the "
     "landscape for a 2-dimensional problem, else the trace", NULL, CS_KEY_FILE},
    CS_PLOT_FIGURE_KEYS,
    {"title", NULL, "plot title", NULL, CS_KEY_TEXT},
    {0}};

static const cs_key_spec no_keys[] = {{0}};
static const cs_key_spec x_keys[] = {
    {"out", NULL, "write the iterate's x to this file (.csv .npy .json: {\"x\": [...]})", NULL,
     CS_KEY_FILE},
    {0}};

static const cs_cmd_spec solve_commands[] = {
    {.name = "solve", .topic = "solvers",
     .usage = "solve [{method}] [{maxit}] [{stop}] [{tol}] [{restarts}] [reg=..] [plot=FILE]",
     .summary = "solve the problem with the current regularizer (linf/l1: Douglas-Rachford)",
     .example = "solve restarts=10", .keys = solve_keys, .run = cmd_solve, .journal = 1},
    {.name = "step", .topic = "solvers", .usage = "step [{n}] [{until}] [solve keys]",
     .summary = "take n solver iterations (continues the run; keys not given keep the run's)",
     .example = "step n=10", .keys = step_keys, .run = cmd_step, .journal = 1},
    {.name = "reset", .topic = "solvers", .usage = "reset",
     .summary = "put the solver back before its first start (same random stream)",
     .example = "reset", .keys = no_keys, .run = cmd_reset, .journal = 1},
    {.name = "rewind", .topic = "solvers", .usage = "rewind K",
     .summary = "back to iteration K of the current start (a replay: step then continues bit "
                "for bit; changing maxit, stop or tol after it forks the run)",
     .example = "rewind 10", .min_pos = 1, .max_pos = 1, .keys = no_keys, .run = cmd_rewind,
     .journal = 1},
    {.name = "x", .topic = "solvers", .usage = "x [out=F.csv|F.npy|F.json]",
     .summary = "the current iterate (JSON: \"x\":[...]); out= writes it to a file",
     .example = "x", .keys = x_keys,
     .run = cmd_x},
};

CS_CMD_GROUP(cs_group_solve, solve_commands);
