/* cmd_solve.c — the recovery experiments as commands: `problem`, `solve`,
 * `step`, `reset`, `trace`, `sweep` and `maxcut`.
 *
 * State (slot CS_EXT_SOLVE): the current problem and a solver bound to it.
 * `problem KIND ... trial=T` draws exactly the instance a `sweep` draws for
 * its trial T at the same (N, M, K) and seed, and `solve` starts from the
 * same random stream as the sweep's method, so a single sweep trial can be
 * replayed and stepped through interactively. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_args.h"
#include "cs_file.h"
#include "cs_landscape.h"
#include "cs_parse.h"
#include "cs_plotstore.h"
#include "cs_solve_view.h"
#include "interp_internal.h"

#include "cs_sweep.h"

#define GSET_DIR "../shared/data/gset"
/* Memory for one problem (A, the projection basis, scratch): refuse above this. */
#define MAX_PROBLEM_BYTES (4.0 * 1024 * 1024 * 1024)

typedef struct solve_state {
    cs_problem *prob;
    char kind[16];
    size_t N, M, K;
    long trial;             /* 1-based trial the problem was drawn as */
    uint64_t stream;        /* the problem's trial stream */
    char reg_at_problem[1024];
    char graph[256];        /* maxcut: the graph name (for display) */
    cs_solver *solver;
    char sig[1536];         /* method + options the solver was made with */
    char method[1024];
    /* scratch for the view */
    double *view_x, *view_obj, *view_err;
    size_t view_cap, hist_cap;
    /* 2-dimensional problems: the iterates of the current start, its start
     * point first, interleaved x,y (ntraj points); traj_start is the start
     * they belong to (0: none yet) */
    double *traj;
    size_t ntraj, captraj;
    int traj_start;
    long seq;               /* when it last changed, for front ends (cs_solve_view.h) */
} solve_state;

/* A stamp comparable with the network's (cmd_train.c): one more than the
 * commands journaled before this one. */
static long stamp(const cs_interp *in) { return (long)in->njournal + 1; }

static void state_free(void *p)
{
    solve_state *st = p;
    if (!st)
        return;
    cs_solver_free(st->solver);
    cs_problem_free(st->prob);
    free(st->view_x);
    free(st->view_obj);
    free(st->view_err);
    free(st->traj);
    free(st);
}

static void state_describe(const void *p, char *buf, size_t len)
{
    const solve_state *st = p;
    if (!st->prob) {
        snprintf(buf, len, "%s", "");
        return;
    }
    if (!strcmp(st->kind, "maxcut"))
        snprintf(buf, len, " maxcut %s", st->graph);
    else if (st->K)
        snprintf(buf, len, " %s N=%zu M=%zu K=%zu", st->kind, st->N, st->M, st->K);
    else
        snprintf(buf, len, " %s N=%zu M=%zu", st->kind, st->N, st->M);
}

static solve_state *state_get(cs_interp *in, cs_err *err)
{
    return cs_interp_ext_get(in, CS_EXT_SOLVE, sizeof(solve_state), NULL, state_free,
                             state_describe, err);
}

/* ------------------------------------------------------------ helpers */

/* Map a file name for writing (sandbox), creating a missing parent folder
 * (one level: `out/fig1a.csv` works in a fresh checkout). */
static int out_path(cs_interp *in, const cs_cmdline *cl, const char *key, char *buf,
                    size_t len, cs_err *err)
{
    const char *v = cs_arg_text(cl, key, NULL);
    int rc = cs_interp_path(in, v, buf, len, err);
    if (rc) {
        cs_arg_blame(in, cl, key, 0);
        return rc;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", buf);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        struct stat sb;
        if (stat(dir, &sb) != 0 && mkdir(dir, 0777) != 0 && errno != EEXIST) {
            cs_arg_blame(in, cl, key, 0);
            return cs_fail(err, CS_EIO, "%s=%s: cannot create folder '%s': %s", key, v, dir,
                           strerror(errno));
        }
    }
    return CS_OK;
}

/* plot=FILE after the data was stored: draws, or notes why it could not
 * (gnuplot missing) without failing the command, whose files are written. */
static int plot_after(cs_interp *in, const cs_cmdline *cl, const char *kind, cs_result *res,
                      cs_err *err)
{
    if (!cs_cmdline_key(cl, "plot"))
        return CS_OK;
    cs_err sub;
    if (cs_plot_available(&sub) != CS_OK) {
        cs_result_str(res, "plot_skipped", sub.msg);
        return CS_OK;
    }
    return cs_plot_key(in, cl, kind, res, err);
}

/* A graph name: toy5/toy4, a file, or a G-set name looked up in ../shared/data/gset. */
static int resolve_graph(cs_interp *in, const char *name, char *buf, size_t len, cs_err *err)
{
    if (!strcmp(name, "toy5") || !strcmp(name, "toy4")) {
        snprintf(buf, len, "%s", name);
        return CS_OK;
    }
    int rc = cs_interp_path(in, name, buf, len, err);
    if (rc)
        return rc;
    if (access(buf, R_OK) == 0 || strchr(name, '/'))
        return CS_OK;
    /* G10 or G10.txt: the shared G-set folder */
    const char *dirs[] = {getenv("CSREG_GSET_DIR"), GSET_DIR};
    for (size_t d = 0; d < 2; d++) {
        if (!dirs[d] || !*dirs[d])
            continue;
        char cand[4096];
        for (int ext = 0; ext < 2; ext++) {
            snprintf(cand, sizeof cand, "%s/%s%s", dirs[d], name, ext ? ".txt" : "");
            char mapped[4096];
            if (cs_interp_path(in, cand, mapped, sizeof mapped, err) == CS_OK &&
                access(mapped, R_OK) == 0) {
                snprintf(buf, len, "%s", mapped);
                return CS_OK;
            }
        }
    }
    return cs_fail(err, CS_ENOTFOUND,
                   "graph '%s': no such file (give a path, toy5, toy4, or a G-set name found in "
                   GSET_DIR ")", name);
}

static const char *kind_default_method(const char *kind)
{
    if (!strcmp(kind, "osb") || !strcmp(kind, "ter") || !strcmp(kind, "eig"))
        return kind;
    if (!strcmp(kind, "2bit"))
        return "equ";
    if (!strcmp(kind, "orth"))
        return "om";
    return "bin";
}

/* ------------------------------------------------------------ problem */

static int cmd_problem(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *ka = cs_cmdline_pos(cl, 0);
    int kind;
    cs_err sub;
    if (cs_problem_kind_parse(ka->value, &kind, &sub)) {
        in->err_col = ka->col;
        return cs_fail(err, CS_EINVAL, "unknown problem kind '%s' (bin osb ter 2bit eig orth "
                       "maxcut)", ka->value);
    }
    solve_state *st = state_get(in, err);
    if (!st)
        return CS_ENOMEM;
    long trial;
    int rc = cs_arg_long(in, cl, "trial", 1, 1, 1000000000L, &trial, err);
    if (rc)
        return rc;
    cs_problem *prob = NULL;
    size_t N = 0, M = 0, K = 0;
    uint64_t ts;
    char graph[4096] = "";
    if (kind == CS_PROB_MAXCUT) {
        static const char *const not_for_maxcut[] = {"N", "M", "K", "gamma"};
        for (size_t i = 0; i < 4; i++)
            if (cs_cmdline_key(cl, not_for_maxcut[i])) {
                cs_arg_blame(in, cl, not_for_maxcut[i], 0);
                return cs_fail(err, CS_EINVAL,
                               "problem maxcut takes graph=FILE, not %s= (the graph sets N)",
                               not_for_maxcut[i]);
            }
        const char *g = cs_arg_text(cl, "graph", NULL);
        if (!g) {
            in->err_col = ka->col;
            return cs_fail(err, CS_EINVAL, "problem maxcut needs graph=FILE (or toy5, toy4, G10)");
        }
        rc = resolve_graph(in, g, graph, sizeof graph, err);
        cs_problem_spec sp = {.kind = "maxcut", .graph = graph};
        if (!rc)
            rc = cs_problem_new(&prob, &sp, cs_interp_seed(in), 0, err);
        if (rc) {
            cs_arg_blame(in, cl, "graph", 0);
            return rc;
        }
        const cs_graph *gr = cs_problem_graph(prob);
        N = cs_graph_nodes(gr);
        ts = cs_sweep_trial_stream(N, cs_graph_edges(gr), 0, trial - 1);
        const char *base = strrchr(g, '/');
        snprintf(graph, sizeof graph, "%s", base ? base + 1 : g);
    } else {
        if (cs_cmdline_key(cl, "graph")) {
            cs_arg_blame(in, cl, "graph", 0);
            return cs_fail(err, CS_EINVAL, "graph= is for problem maxcut, not %s", ka->value);
        }
        long n, m, k;
        double gamma;
        long defN = kind == CS_PROB_2BIT ? 10 : 100;
        if ((rc = cs_arg_long(in, cl, "N", defN, 1, 100000000L, &n, err)))
            return rc;
        if (cs_cmdline_key(cl, "M") && cs_cmdline_key(cl, "gamma")) {
            cs_arg_blame(in, cl, "gamma", 0);
            return cs_fail(err, CS_EINVAL, "give M= or gamma=, not both");
        }
        if ((rc = cs_arg_double(in, cl, "gamma", 0.5, 1e-9, 1.0, &gamma, err)))
            return rc;
        long defM = (long)floor(gamma * (double)n + 0.5);
        if (defM < 1)
            defM = 1;
        if ((rc = cs_arg_long(in, cl, "M", defM, 1, 100000000L, &m, err)))
            return rc;
        if (m > n) {
            cs_arg_blame(in, cl, "M", 0);
            return cs_fail(err, CS_EDIM,
                           "M=%ld exceeds N=%ld: the system Ax = b must be underdetermined "
                           "(M <= N)", m, n);
        }
        if ((rc = cs_arg_long(in, cl, "K", 0, 0, 100000000L, &k, err)))
            return rc;
        if (k > n) {
            cs_arg_blame(in, cl, "K", 0);
            return cs_fail(err, CS_EDIM, "K=%ld exceeds N=%ld", k, n);
        }
        if (k && kind != CS_PROB_OSB && kind != CS_PROB_TER && kind != CS_PROB_ORTH) {
            cs_arg_blame(in, cl, "K", 0);
            return cs_fail(err, CS_EINVAL,
                           "K= applies to osb and ter (nonzeros) and orth (columns), not %s",
                           ka->value);
        }
        /* memory: A (M×N), the basis (N×min(M, N−M)), eig's C (N×N), orth's N×N draws */
        double dn = (double)n, dm = (double)m, cols = kind == CS_PROB_ORTH ? (k ? k : dn) : 1;
        double bytes = 8.0 * (2.0 * dm * dn + dn * fmin(dm, dn - dm) + 4.0 * dn * cols);
        if (kind == CS_PROB_EIG || kind == CS_PROB_ORTH)
            bytes += 8.0 * 3.0 * dn * dn;
        if (bytes > MAX_PROBLEM_BYTES) {
            cs_arg_blame(in, cl, "N", 0);
            return cs_fail(err, CS_ENOMEM,
                           "N=%ld M=%ld is too large: the problem needs %.1f GiB of memory "
                           "(limit %.0f GiB)", n, m, bytes / (1024.0 * 1024 * 1024),
                           MAX_PROBLEM_BYTES / (1024.0 * 1024 * 1024));
        }
        N = (size_t)n;
        M = (size_t)m;
        K = (size_t)k;
        ts = cs_sweep_trial_stream(N, M, K, trial - 1);
        cs_problem_spec sp = {.kind = cs_problem_kind_name(kind), .N = N, .M = M, .K = K};
        rc = cs_problem_new(&prob, &sp, cs_interp_seed(in), ts, err);
        if (rc) {
            in->err_col = ka->col;
            return rc;
        }
    }
    cs_solver_free(st->solver);
    st->solver = NULL;
    st->ntraj = 0;
    st->traj_start = 0;
    st->sig[0] = '\0';
    cs_problem_free(st->prob);
    st->prob = prob;
    snprintf(st->kind, sizeof st->kind, "%s", cs_problem_kind_name(kind));
    st->N = cs_problem_N(prob);
    st->M = cs_problem_M(prob);
    st->K = cs_problem_K(prob);
    st->trial = trial;
    st->stream = ts;
    snprintf(st->graph, sizeof st->graph, "%.255s", graph);
    snprintf(st->reg_at_problem, sizeof st->reg_at_problem, "%s", in->reg_line);

    cs_result_str(res, "kind", st->kind);
    if (kind == CS_PROB_MAXCUT) {
        const cs_graph *gr = cs_problem_graph(prob);
        cs_result_str(res, "graph", st->graph);
        cs_result_int(res, "N", (long long)cs_graph_nodes(gr));
        cs_result_int(res, "edges", (long long)cs_graph_edges(gr));
        cs_result_num(res, "known_best", cs_graph_known_best(gr));
    } else {
        cs_result_int(res, "N", (long long)st->N);
        cs_result_int(res, "M", (long long)st->M);
        cs_result_num(res, "gamma", (double)st->M / (double)st->N);
        if (st->K)
            cs_result_int(res, "K", (long long)st->K);
        cs_result_num(res, "xstar_norm", cs_problem_xstar_norm(prob));
    }
    cs_result_int(res, "trial", trial);
    cs_result_str(res, "method", kind_default_method(st->kind));
    st->seq = stamp(in);
    return CS_OK;
}

static int need_problem(cs_interp *in, const cs_cmdline *cl, solve_state **out, cs_err *err)
{
    solve_state *st = cs_interp_ext(in, CS_EXT_SOLVE);
    if (!st || !st->prob) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_ESTATE, "%s: no problem yet (e.g. problem bin N=100 M=50)",
                       cl->name);
    }
    *out = st;
    return CS_OK;
}

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
        snprintf(a->method, sizeof a->method, "%s", kind_default_method(st->kind));
    if (!strcmp(st->kind, "eig")) {
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
    cs_algo_parse(algo, &a->o.algo, err);
    long maxit, restarts;
    if ((rc = cs_arg_long(in, cl, "maxit", 0, 0, 100000000L, &maxit, err)))
        return rc;
    const char *stop;
    if ((rc = cs_arg_choice(in, cl, "stop", "oracle|hybrid|residual|normalized|maxit", "oracle",
                            &stop, err)))
        return rc;
    cs_stop_parse(stop, &a->o.stop, err);
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
        a->o.mode = !strcmp(mode, "accel")      ? CS_MODE_ACCEL
                    : !strcmp(mode, "adaptive") ? CS_MODE_ADAPTIVE
                    : !strcmp(mode, "plain")    ? CS_MODE_PLAIN
                                                : CS_MODE_DEFAULT;
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
    return st->prob && strcmp(st->kind, "maxcut") != 0 &&
           st->N * cs_problem_cols(st->prob) == 2;
}

/* The 2-vector x of a full variable v (2bit: y1 + y2; extras left out). */
static void traj_xy(const solve_state *st, const double *v, double xy[2])
{
    int two = !strcmp(st->kind, "2bit");
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
    volatile int *cancel = cs_interp_cancel_flag(in);
    while (until_done ? !cs_solver_done(s) : *done_steps < n) {
        if (until_done && *cancel)
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
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", cs_solver_method(st->solver));
    char *save = NULL, *name = strtok_r(buf, " :\t", &save);
    cs_param params[16];
    size_t np = 0;
    for (char *tok; name && (tok = strtok_r(NULL, " :\t", &save));) {
        char *eq = strchr(tok, '=');
        if (!eq || np == 16)
            return NULL;
        *eq = '\0';
        params[np++] = (cs_param){.key = tok, .text = eq + 1};
    }
    const cs_reg_info *li = name ? cs_reg_lookup(name) : NULL;
    if (!li || li->matrix_arg)
        return NULL;
    int takes_c = 0, gives_c = 0;
    for (size_t i = 0; i < li->nparams; i++)
        takes_c |= !strcmp(li->params[i].key, "C");
    for (size_t i = 0; i < np; i++)
        gives_c |= !strcmp(params[i].key, "C");
    /* eig/ns on an eig problem: the problem's C, as the solver uses */
    int problem_c = takes_c && !gives_c && !strcmp(st->kind, "eig") && np < 16;
    if (problem_c)
        params[np++] = (cs_param){.key = "C", .text = "random"};
    cs_reg *reg = NULL;
    cs_err sub;
    if (cs_reg_new(&reg, name, params, np, cs_interp_seed(in), &sub))
        return NULL;
    if (cs_reg_extra(reg) ||
        (problem_c && cs_reg_set_matrix(reg, cs_problem_C(st->prob), 2, 2, &sub))) {
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
    return plot_after(in, cl, kind, res, err);
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
    if (!strcmp(st->kind, "orth"))
        cs_result_num(res, "orth_err", r.orth_err);
    if (!strcmp(st->kind, "maxcut")) {
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
    if ((rc = need_problem(in, cl, &st, err)) || (rc = read_solve_args(in, cl, st, &a, err)))
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
    st->seq = stamp(in);
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
    if ((rc = need_problem(in, cl, &st, err)) || (rc = read_solve_args(in, cl, st, &a, err)))
        return rc;
    if ((rc = cs_arg_long(in, cl, "n", 1, 1, 100000000L, &n, err)))
        return rc;
    if ((rc = cs_plot_key_check(in, cl, "plot", err)))
        return rc;
    if ((rc = ensure_solver(in, st, &a, &fresh, err)))
        return rc;
    long done = 0;
    st->seq = stamp(in);
    rc = run_steps(in, st, n, 0, &done, err);
    if (rc)
        return rc;
    put_last(res, st, done);
    return store_run(in, cl, st, res, err);
}

static int cmd_reset(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    solve_state *st = NULL;
    int rc = need_problem(in, cl, &st, err);
    if (rc)
        return rc;
    if (st->solver && (rc = cs_solver_reset(st->solver, err)))
        return rc;
    st->ntraj = 0;
    st->traj_start = 0;
    st->seq = stamp(in);
    cs_result_str(res, "kind", st->kind);
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
    int rc = need_problem(in, cl, &st, err);
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
        if ((rc = out_path(in, cl, "out", path, sizeof path, err)))
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
    return plot_after(in, cl, "trace", res, err);
}

/* ------------------------------------------------------------ sweep */

typedef struct progress_ctx {
    cs_interp *in;
    const char *what;
} progress_ctx;

static void on_progress(void *user, size_t done, size_t total)
{
    progress_ctx *p = user;
    cs_interp_progress(p->in, (double)done, (double)total, p->what);
}

static int is_grid_text(const char *v) { return v && (strchr(v, ':') || strchr(v, ',')); }

/* Split methods=a,b,c (commas; a method's own keys use ':'). */
static int split_methods(char *text, const char **out, size_t cap, size_t *n)
{
    *n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == cap)
            return -1;
        out[(*n)++] = tok;
    }
    return 0;
}

static int cmd_sweep(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const char *kind;
    int rc = cs_arg_choice(in, cl, "kind", "bin|osb|ter|2bit|eig|orth", NULL, &kind, err);
    if (rc)
        return rc;
    if (!kind) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "sweep needs kind= (bin osb ter 2bit eig orth)");
    }
    long N, trials, restarts, maxit, threads;
    int timing;
    if ((rc = cs_arg_long(in, cl, "N", !strcmp(kind, "2bit") ? 10 : 100, 1, 100000000L, &N,
                          err)) ||
        (rc = cs_arg_long(in, cl, "trials", 100, 1, 100000000L, &trials, err)) ||
        (rc = cs_arg_long(in, cl, "restarts", 0, 0, 100000, &restarts, err)) ||
        (rc = cs_arg_long(in, cl, "maxit", 0, 0, 100000000L, &maxit, err)) ||
        (rc = cs_arg_long(in, cl, "threads", cs_interp_threads(in), 0, 1024, &threads, err)) ||
        (rc = cs_arg_bool(in, cl, "timing", 0, &timing, err)))
        return rc;
    const char *stop;
    double tol;
    if ((rc = cs_arg_choice(in, cl, "stop", "oracle|hybrid|residual|normalized|maxit", "oracle",
                            &stop, err)) ||
        (rc = cs_arg_double(in, cl, "tol", 1e-8, 1e-300, 1.0, &tol, err)))
        return rc;
    /* methods */
    const char *mtext = cs_arg_text(cl, "methods", NULL);
    if (!mtext)
        mtext = kind_default_method(kind);
    char mbuf[2048];
    if (strlen(mtext) >= sizeof mbuf) {
        cs_arg_blame(in, cl, "methods", 0);
        return cs_fail(err, CS_EINVAL, "methods= is too long");
    }
    snprintf(mbuf, sizeof mbuf, "%s", mtext);
    const char *methods[32];
    size_t nm;
    if (split_methods(mbuf, methods, 32, &nm) || nm == 0) {
        cs_arg_blame(in, cl, "methods", 0);
        return cs_fail(err, CS_EINVAL, "methods=%s: give 1 to 32 methods, a,b,c", mtext);
    }
    for (size_t i = 0; i < nm; i++) {
        cs_err sub;
        if (cs_method_check(methods[i], &sub)) {
            cs_arg_blame(in, cl, "methods", 0);
            return cs_fail(err, CS_EINVAL, "methods: %s", sub.msg);
        }
        for (size_t j = 0; j < i; j++)
            if (!strcmp(methods[i], methods[j])) {
                cs_arg_blame(in, cl, "methods", 0);
                return cs_fail(err, CS_EINVAL, "methods: '%s' is listed twice", methods[i]);
            }
    }
    /* the axis: the one of gamma/M/K given as a range or list */
    const char *axes[] = {"gamma", "M", "K"};
    int axis = -1, nranges = 0;
    for (int i = 0; i < 3; i++)
        if (is_grid_text(cs_arg_text(cl, axes[i], NULL))) {
            if (nranges++) {
                cs_arg_blame(in, cl, axes[i], 0);
                return cs_fail(err, CS_EINVAL, "sweep over one of gamma=, M=, K= at a time "
                               "(%s= and %s= are both ranges)", axes[axis], axes[i]);
            }
            axis = i;
        }
    if (axis < 0) /* one point: gamma, else M, else K */
        axis = cs_cmdline_key(cl, "gamma") ? 0 : cs_cmdline_key(cl, "M") ? 1
               : cs_cmdline_key(cl, "K") ? 2 : -1;
    if (axis < 0) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "sweep needs a grid: gamma=a:s:b, M=a:s:b or K=a:s:b");
    }
    if (axis != 2 && cs_cmdline_key(cl, "M") && cs_cmdline_key(cl, "gamma")) {
        cs_arg_blame(in, cl, axis == 0 ? "M" : "gamma", 0);
        return cs_fail(err, CS_EINVAL, "give gamma= or M=, not both");
    }
    double *vals;
    size_t nv;
    if ((rc = cs_arg_grid(in, cl, axes[axis], NULL, &vals, &nv, err)))
        return rc;
    cs_sweep_spec sp = {.kind = kind, .N = (size_t)N, .axis = axis == 0 ? CS_AXIS_GAMMA
                                                           : axis == 1 ? CS_AXIS_M
                                                                       : CS_AXIS_K,
                        .values = vals, .nvalues = nv, .methods = methods, .nmethods = nm,
                        .trials = trials, .threads = (int)threads, .seed = cs_interp_seed(in),
                        .timing = timing, .cancel = cs_interp_cancel_flag(in)};
    /* grid values in range */
    for (size_t i = 0; i < nv; i++) {
        double v = vals[i];
        int bad = axis == 0 ? !(v > 0.0 && v <= 1.0)
                            : !(v >= 1.0 && v <= (double)N && v == floor(v));
        if (bad) {
            free(vals);
            cs_arg_blame(in, cl, axes[axis], 0);
            if (axis == 0)
                return cs_fail(err, CS_EINVAL, "gamma=%g is out of range (0, 1]", v);
            return cs_fail(err, CS_EINVAL, "%s=%g must be a whole number in [1, N=%ld]",
                           axes[axis], v, N);
        }
    }
    if (axis == 2) {
        long M = 0;
        double g = 0.0;
        if (cs_cmdline_key(cl, "M"))
            rc = cs_arg_long(in, cl, "M", 0, 1, N, &M, err);
        else
            rc = cs_arg_double(in, cl, "gamma", 0.75, 1e-9, 1.0, &g, err);
        if (rc) {
            free(vals);
            return rc;
        }
        sp.M = (size_t)M;
        sp.gamma = g;
    } else if (cs_cmdline_key(cl, "K")) {
        long K;
        if ((rc = cs_arg_long(in, cl, "K", 0, 0, N, &K, err))) {
            free(vals);
            return rc;
        }
        sp.K = (size_t)K;
    }
    sp.solve.maxit = maxit;
    sp.solve.restarts = (int)restarts;
    sp.solve.tol = tol;
    cs_stop_parse(stop, &sp.solve.stop, err);
    if (cs_cmdline_key(cl, "lambda") &&
        (rc = cs_arg_double(in, cl, "lambda", 0.0, 1e-300, 1e300, &sp.solve.lambda, err))) {
        free(vals);
        return rc;
    }
    char path[4096] = "";
    if ((cs_cmdline_key(cl, "out") && (rc = out_path(in, cl, "out", path, sizeof path, err))) ||
        (rc = cs_plot_key_check(in, cl, "plot", err))) {
        free(vals);
        return rc;
    }
    progress_ctx pc = {in, "sweep"};
    sp.progress = on_progress;
    sp.progress_user = &pc;
    cs_sweep_result *r = NULL;
    rc = cs_sweep_run(&sp, &r, err);
    free(vals);
    if (rc) {
        in->err_col = cl->name_col;
        return rc;
    }
    if (path[0] && (rc = cs_sweep_write_csv(r, path, err))) {
        cs_arg_blame(in, cl, "out", 0);
        cs_sweep_result_free(r);
        return rc;
    }
    if (r->partial) {
        rc = cs_fail(err, CS_ECANCEL,
                     "sweep interrupted: %zu of %zu grid points finished%s%s (marked partial)",
                     r->points_done, r->points_total, path[0] ? ", written to " : "",
                     path[0] ? cs_arg_text(cl, "out", "") : "");
        cs_sweep_result_free(r);
        return rc;
    }
    /* result: the table, and per method the success curve */
    cs_result_str(res, "kind", kind);
    cs_result_int(res, "N", N);
    cs_result_str(res, "axis", axes[axis]);
    cs_result_int(res, "points", (long long)r->points_done);
    cs_result_int(res, "trials", trials);
    cs_result_str(res, "stop", stop);
    size_t np = r->points_done;
    double *xs = malloc((np ? np : 1) * sizeof *xs);
    double *ys = malloc((nm * (np ? np : 1)) * sizeof *ys);
    double *es = malloc((nm * (np ? np : 1)) * sizeof *es);
    cs_plot_series *series = calloc(nm, sizeof *series);
    if (!xs || !ys || !es || !series) {
        free(xs), free(ys), free(es), free(series);
        cs_sweep_result_free(r);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    for (size_t p = 0; p < np; p++) {
        const cs_sweep_row *row = &r->rows[p];
        xs[p] = axis == 0 ? row->gamma : axis == 1 ? (double)row->M : (double)row->K;
    }
    cs_result_vec(res, axes[axis], xs, np);
    for (size_t m = 0; m < nm; m++) {
        for (size_t p = 0; p < np; p++) {
            ys[m * np + p] = r->rows[m * np + p].success;
            es[m * np + p] = r->rows[m * np + p].stderr_;
        }
        char key[160];
        snprintf(key, sizeof key, "success_%s", methods[m]);
        cs_result_vec(res, key, ys + m * np, np);
        series[m] = (cs_plot_series){.name = methods[m], .x = xs, .y = ys + m * np,
                                     .err = es + m * np, .n = np};
    }
    {
        char *text = NULL;
        size_t len = 0;
        FILE *mf = open_memstream(&text, &len);
        if (mf) {
            cs_sweep_print_csv(r, mf);
            fclose(mf);
            cs_result_text(res, "%s", text);
            free(text);
        }
    }
    if (path[0])
        cs_result_str(res, "out", cs_arg_text(cl, "out", ""));
    cs_result_num(res, "_wall_seconds", r->wall_seconds);
    cs_plot_success_data d = {.xvar = axes[axis], .series = series, .nseries = nm};
    rc = np ? cs_plotstore_success(in, &d, err) : CS_OK;
    free(xs), free(ys), free(es), free(series);
    cs_sweep_result_free(r);
    if (rc)
        return rc;
    return plot_after(in, cl, "success", res, err);
}

/* ------------------------------------------------------------ maxcut */

#define MAXCUT_CSV_HEADER                                                                      \
    "graph,nodes,edges,trials,lambda,mean_cut,std_cut,best_cut,known_best,mean_rounded,"        \
    "std_rounded,best_rounded,mean_start,std_start,mean_iters,partial"

static int write_maxcut_csv(const char *path, int append, const char *gname, const cs_graph *g,
                            const cs_maxcut_result *r, cs_err *err)
{
    /* append keeps the earlier rows (copied into the new file, then renamed) */
    char *old = NULL;
    size_t oldlen = 0;
    if (append) {
        FILE *f = fopen(path, "r");
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
                return cs_fail(err, CS_EINVAL, "append: %s is not a maxcut CSV", path);
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
    double v[13] = {r->lambda,      r->mean_cut,    r->std_cut,     r->best_cut,
                    r->known_best,  r->mean_rounded, r->std_rounded, r->best_rounded,
                    r->mean_start,  r->std_start,   r->mean_iters};
    char s[13][40];
    for (int i = 0; i < 11; i++)
        cs_format_double(s[i], sizeof s[i], v[i]);
    fprintf(af.f, "%s,%zu,%zu,%ld,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d\n", gname,
            cs_graph_nodes(g), cs_graph_edges(g), r->trials, s[0], s[1], s[2], s[3], s[4], s[5],
            s[6], s[7], s[8], s[9], s[10], r->partial);
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
    rc = cs_solver_new(&s, prob, "bin", &so, ms->seed, cs_sweep_method_stream(ts, "bin"), err);
    if (rc) {
        cs_problem_free(prob);
        return rc;
    }
    long maxit = cs_solver_maxit(s);
    size_t cap = (size_t)maxit + 1, n = 0;
    double *x = malloc(cap * sizeof *x), *y = malloc(cap * sizeof *y);
    if (!x || !y)
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    volatile int *cancel = cs_interp_cancel_flag(in);
    while (!rc && !cs_solver_done(s) && n < cap && !*cancel) {
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
    if (!rc && n >= 1) {
        cs_plot_series ser = {.name = "bin", .x = x, .y = y, .n = n};
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
    if (!gtext && !(st && st->prob && !strcmp(st->kind, "maxcut"))) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "maxcut needs graph=FILE (or toy5, toy4, G10..G13)");
    }
    long trials, maxit, threads;
    int rc, append;
    if ((rc = cs_arg_long(in, cl, "trials", 10, 1, 10000000L, &trials, err)) ||
        (rc = cs_arg_long(in, cl, "maxit", 0, 0, 100000000L, &maxit, err)) ||
        (rc = cs_arg_long(in, cl, "threads", cs_interp_threads(in), 0, 1024, &threads, err)) ||
        (rc = cs_arg_bool(in, cl, "append", 0, &append, err)))
        return rc;
    cs_maxcut_spec ms = {.trials = trials, .threads = (int)threads, .seed = cs_interp_seed(in),
                         .cancel = cs_interp_cancel_flag(in)};
    ms.solve.maxit = maxit;
    if (cs_cmdline_key(cl, "lambda") &&
        (rc = cs_arg_double(in, cl, "lambda", 0.0, 1e-300, 1e300, &ms.solve.lambda, err)))
        return rc;
    char path[4096] = "";
    if ((cs_cmdline_key(cl, "out") && (rc = out_path(in, cl, "out", path, sizeof path, err))) ||
        (rc = cs_plot_key_check(in, cl, "plot", err)))
        return rc;
    cs_graph *owned = NULL;
    const cs_graph *g;
    char gname[256];
    if (gtext) {
        char file[4096];
        rc = resolve_graph(in, gtext, file, sizeof file, err);
        if (!rc)
            rc = (!strcmp(file, "toy5") || !strcmp(file, "toy4"))
                     ? cs_graph_builtin(&owned, file, err)
                     : cs_graph_read(&owned, file, err);
        if (rc) {
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
    progress_ctx pc = {in, "maxcut"};
    ms.progress = on_progress;
    ms.progress_user = &pc;
    cs_maxcut_result r;
    rc = cs_maxcut_run(&ms, &r, err);
    if (rc) {
        in->err_col = cl->name_col;
        cs_graph_free(owned);
        return rc;
    }
    if (path[0] && (rc = write_maxcut_csv(path, append, gname, g, &r, err)))
        cs_arg_blame(in, cl, "out", 0);
    if (!rc && r.partial)
        rc = cs_fail(err, CS_ECANCEL, "maxcut interrupted after %ld of %ld trials%s", r.trials,
                     trials, path[0] ? " (written, marked partial)" : "");
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
        cs_result_num(res, "mean_iters", r.mean_iters);
        if (path[0])
            cs_result_str(res, "out", cs_arg_text(cl, "out", ""));
        cs_result_num(res, "_wall_seconds", r.wall_seconds);
        cs_result_text(res, "MAX-CUT %s: cut %.1f ± %.1f over %ld trials (best %.0f; known "
                            "best %.0f; start %.1f ± %.1f)\n",
                       gname, r.mean_cut, r.std_cut, r.trials, r.best_cut, r.known_best,
                       r.mean_start, r.std_start);
        if (cs_cmdline_key(cl, "plot"))
            rc = maxcut_curve(in, g, &ms, gname, err);
        if (!rc)
            rc = plot_after(in, cl, "maxcut", res, err);
    }
    cs_maxcut_result_clear(&r);
    cs_graph_free(owned);
    return rc;
}

/* ------------------------------------------------------------ the view */

int cs_interp_solve_view(cs_interp *in, cs_solve_view *v)
{
    memset(v, 0, sizeof *v);
    v->rel_err = v->objective = v->residual = v->tau = NAN;
    solve_state *st = cs_interp_ext(in, CS_EXT_SOLVE);
    if (!st || !st->prob)
        return -1;
    v->kind = st->kind;
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
        if (!strcmp(st->kind, "2bit"))
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

static const cs_key_spec problem_keys[] = {
    {"N", "100", "unknowns (2bit: 10); maxcut takes it from the graph", NULL, CS_KEY_INT},
    {"M", "gamma*N", "measurements, 1 <= M <= N", NULL, CS_KEY_INT},
    {"gamma", "0.5", "M = round(gamma*N), instead of M=", NULL, CS_KEY_NUM},
    {"K", "0", "osb/ter: exactly K nonzeros (0: dense); orth: columns (0: N)", NULL,
     CS_KEY_INT},
    {"graph", NULL, "maxcut: a G-set file, toy5, toy4, or G10..G13 (from " GSET_DIR ")", NULL,
     CS_KEY_FILE},
    {"trial", "1", "draw the instance of this sweep trial (same seed, N, M, K)", NULL,
     CS_KEY_INT},
    {0}};

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

static const cs_key_spec sweep_keys[] = {
    {"kind", NULL, "problem kind", "bin|osb|ter|2bit|eig|orth", CS_KEY_WORD},
    {"methods", "kind's own", "methods, comma-separated (a method's keys with ':', e.g. "
     "beta:beta=learn); linf and l1 run Douglas-Rachford", NULL, CS_KEY_LIST},
    {"N", "100", "unknowns (2bit: 10)", NULL, CS_KEY_INT},
    {"gamma", NULL, "grid of M/N, a:s:b or a,b,c (or the fixed gamma of a K sweep)", NULL,
     CS_KEY_RANGE},
    {"M", NULL, "grid of M (or the fixed M of a K sweep)", NULL, CS_KEY_RANGE},
    {"K", "0", "grid of nonzeros (osb/ter; orth: columns), or a fixed K", NULL, CS_KEY_RANGE},
    {"trials", "100", "Monte-Carlo trials per grid point (the paper: 1000)", NULL, CS_KEY_INT},
    {"restarts", "0", "most starts of the CS methods (0: 10 for bin eig 2bit, else 1)", NULL,
     CS_KEY_INT},
    {"maxit", "0", "iterations per start (0: 1e4; 1e3 for 2bit and orth)", NULL, CS_KEY_INT},
    {"stop", "oracle", "stopping rule (recorded in the CSV)",
     "oracle|hybrid|residual|normalized|maxit", CS_KEY_WORD},
    {"tol", "1e-8", "tolerance of the residual rules", NULL, CS_KEY_NUM},
    {"lambda", "default", "2bit weight (1e-5)", NULL, CS_KEY_NUM},
    {"threads", "session", "worker threads (0: all cores); results do not depend on it", NULL,
     CS_KEY_INT},
    {"timing", "off", "write measured seconds per trial (not reproducible)", "on|off",
     CS_KEY_WORD},
    {"out", NULL, "CSV: " CS_SWEEP_CSV_HEADER, NULL, CS_KEY_FILE},
    {"plot", NULL, "draw the success curves into this image (.png .svg .pdf .gif)", NULL,
     CS_KEY_FILE},
    {"title", NULL, "plot title", NULL, CS_KEY_TEXT},
    {0}};

static const cs_key_spec maxcut_keys[] = {
    {"graph", "problem's", "G-set file, toy5, toy4, or G10..G13 (from " GSET_DIR ")", NULL,
     CS_KEY_FILE},
    {"lambda", "default", "weight of l_bin (1e-7; 1 for toy5, toy4)", NULL, CS_KEY_NUM},
    {"trials", "10", "random starts sign(randn)", NULL, CS_KEY_INT},
    {"maxit", "0", "iterations per trial (0: 1e4)", NULL, CS_KEY_INT},
    {"threads", "session", "worker threads (0: all cores)", NULL, CS_KEY_INT},
    {"out", NULL, "CSV (one row per graph): " MAXCUT_CSV_HEADER, NULL, CS_KEY_FILE},
    {"append", "off", "add the row to an existing maxcut CSV", "on|off", CS_KEY_WORD},
    {"plot", NULL, "draw the cut over the iterations of trial 1", NULL, CS_KEY_FILE},
    {"title", NULL, "plot title", NULL, CS_KEY_TEXT},
    {0}};

static const cs_cmd_spec solve_commands[] = {
    {.name = "problem", .topic = "problems",
     .usage = "problem KIND [N=100] [M=.. | gamma=0.5] [K=..] [graph=FILE] [trial=1]",
     .summary = "draw a recovery problem (bin osb ter 2bit eig orth) or load a MAX-CUT graph",
     .example = "problem bin N=100 M=50", .min_pos = 1, .max_pos = 1, .keys = problem_keys,
     .run = cmd_problem, .journal = 1},
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
    {.name = "sweep", .topic = "experiments",
     .usage = "sweep kind=KIND methods=LIST N=.. gamma=a:s:b (or M=a:s:b, K=a:s:b) trials=.. "
              "restarts=.. [threads=..] [stop=..] [out=FILE.csv] [plot=FILE.png]",
     .summary = "Monte-Carlo success rates over a grid (trials in parallel, byte-identical "
                "for any thread count)",
     .example = "sweep kind=bin methods=bin,linf N=100 gamma=0.3:0.02:0.9 trials=100 "
                "restarts=10 out=fig1a.csv plot=fig1a.png",
     .keys = sweep_keys, .run = cmd_sweep, .journal = 1},
    {.name = "maxcut", .topic = "experiments",
     .usage = "maxcut graph=FILE|toy5|toy4|G10 [lambda=..] [trials=10] [out=FILE.csv] "
              "[plot=FILE]",
     .summary = "MAX-CUT by -cut + lambda*l_bin over |x|<=1: mean and std of the cut against "
                "the best known",
     .example = "maxcut graph=../shared/data/gset/G10.txt trials=10", .keys = maxcut_keys,
     .run = cmd_maxcut, .journal = 1},
};

CS_CMD_GROUP(cs_group_solve, solve_commands);
