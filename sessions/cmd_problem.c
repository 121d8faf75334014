/* cmd_problem.c — `problem`: draw a recovery problem or load a MAX-CUT
 * graph into the session (slot CS_EXT_SOLVE, solve_state.h, kept by
 * solve_state.c).
 *
 * `problem KIND ... trial=T` draws exactly the instance a `sweep` draws for
 * its trial T at the same (N, M, K) and seed, and `solve` starts from the
 * same random stream as the sweep's method, so a single sweep trial can be
 * replayed and stepped through interactively. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cs_args.h"
#include "cs_array_io.h"
#include "cs_sweep_stream.h"
#include "interp_internal.h"
#include "solve_state.h"

/* ------------------------------------------------------------ problem */

/* Keys of one form of `problem` given to another: an error at the key. */
static int refuse_keys(cs_interp *in, const cs_cmdline *cl, const char *form,
                       const char *const *keys, size_t n, cs_err *err)
{
    for (size_t i = 0; i < n; i++)
        if (cs_cmdline_key(cl, keys[i])) {
            cs_arg_blame(in, cl, keys[i], 0);
            return cs_fail(err, CS_EINVAL, "%s= is not a key of %s", keys[i], form);
        }
    return CS_OK;
}

static const char *const file_only_keys[] = {"A", "b", "xstar", "x0", "C", "reg", "kind",
                                             "dir", "format", "force", "sha256"};

static int maxcut_problem(cs_interp *in, const cs_cmdline *cl, cs_problem **prob,
                          char *graph, size_t glen, uint64_t *ts, long trial, cs_err *err)
{
    static const char *const not_for_maxcut[] = {"N", "M", "K", "gamma", "scale"};
    for (size_t i = 0; i < 5; i++)
        if (cs_cmdline_key(cl, not_for_maxcut[i])) {
            cs_arg_blame(in, cl, not_for_maxcut[i], 0);
            return cs_fail(err, CS_EINVAL,
                           "problem maxcut takes graph=FILE, not %s= (the graph sets N)",
                           not_for_maxcut[i]);
        }
    if (cs_cmdline_key(cl, "noise")) {
        cs_arg_blame(in, cl, "noise", 0);
        return cs_fail(err, CS_EINVAL, "noise= adds noise to b = Ax*; a maxcut problem has none");
    }
    const char *g = cs_arg_text(cl, "graph", NULL);
    if (!g) {
        in->err_col = cs_cmdline_pos(cl, 0)->col;
        return cs_fail(err, CS_EINVAL, "problem maxcut needs graph=FILE (or toy5, toy4, G10)");
    }
    int rc = solve_resolve_graph(in, g, graph, glen, err);
    cs_problem_spec sp = {.kind = CS_PROB_MAXCUT, .graph = graph};
    if (!rc)
        rc = cs_problem_new(prob, &sp, cs_interp_seed(in), 0, err);
    if (rc) {
        cs_arg_blame(in, cl, "graph", 0);
        return rc;
    }
    /* the user's graph file: its digest in the journal */
    if (!cs_graph_is_builtin(graph) && (rc = cs_interp_input_named(in, cl, g, graph, err))) {
        cs_problem_free(*prob);
        *prob = NULL;
        if (!in->err_col)
            cs_arg_blame(in, cl, "graph", 0);
        return rc;
    }
    const cs_graph *gr = cs_problem_graph(*prob);
    *ts = cs_sweep_trial_stream(cs_graph_nodes(gr), cs_graph_edges(gr), 0, trial - 1);
    const char *base = strrchr(g, '/');
    snprintf(graph, glen, "%s", base ? base + 1 : g);
    return CS_OK;
}

/* N, M (or gamma) and K of a recovery problem; the engine checks how they
 * fit together and names the key at fault. */
static int recovery_problem(cs_interp *in, const cs_cmdline *cl, cs_kind kind,
                            cs_problem **prob, uint64_t *ts, long trial, cs_err *err)
{
    if (cs_cmdline_key(cl, "graph")) {
        cs_arg_blame(in, cl, "graph", 0);
        return cs_fail(err, CS_EINVAL, "graph= is for problem maxcut, not %s",
                       cs_problem_kind_name(kind));
    }
    long n, m, k;
    double gamma, noise, scale;
    int rc;
    if ((rc = cs_arg_long(in, cl, "N", (long)cs_kind_defaults_of(kind)->N, 1, 100000000L, &n,
                          err)))
        return rc;
    if (cs_cmdline_key(cl, "M") && cs_cmdline_key(cl, "gamma")) {
        cs_arg_blame(in, cl, "gamma", 0);
        return cs_fail(err, CS_EINVAL, "give M= or gamma=, not both");
    }
    if ((rc = cs_arg_double(in, cl, "gamma", 0.5, 1e-9, 1.0, &gamma, err)))
        return rc;
    long defM = (long)floor(gamma * (double)n + 0.5);
    if ((rc = cs_arg_long(in, cl, "M", defM < 1 ? 1 : defM, 1, 100000000L, &m, err)) ||
        (rc = cs_arg_long(in, cl, "K", 0, 0, 100000000L, &k, err)) ||
        (rc = cs_arg_double(in, cl, "noise", 0.0, 0.0, 1e300, &noise, err)) ||
        (rc = cs_arg_double(in, cl, "scale", 1.0, 1e-6, 1e6, &scale, err)))
        return rc;
    *ts = cs_sweep_trial_stream((size_t)n, (size_t)m, (size_t)k, trial - 1);
    cs_problem_spec sp = {.kind = kind, .N = (size_t)n, .M = (size_t)m, .K = (size_t)k,
                          .noise = noise, .scale = scale};
    rc = cs_problem_new(prob, &sp, cs_interp_seed(in), *ts, err);
    if (rc && !err->key[0])
        in->err_col = cs_cmdline_pos(cl, 0)->col;
    return rc;
}

/* Make prob the session's problem (everything made from the old one goes). */
static void set_problem(cs_interp *in, solve_state *st, cs_problem *prob, cs_kind kind,
                        long trial, uint64_t ts)
{
    solve_state_set_problem(st, prob);
    st->kind = kind;
    st->N = cs_problem_N(prob);
    st->M = cs_problem_M(prob);
    st->K = cs_problem_K(prob);
    st->trial = trial;
    st->stream = ts;
    snprintf(st->reg_at_problem, sizeof st->reg_at_problem, "%s", in->reg_line);
}

/* ------------------------------------------------------------ problem file */

enum { F_A, F_B, F_XSTAR, F_X0, F_C, F_COUNT };
static const char *const file_keys[F_COUNT] = {"A", "b", "xstar", "x0", "C"};

/* The length of a vector read as n x 1 or 1 x n; 0 (and an error naming the
 * file) for anything else. */
static size_t vector_len(const cs_array *a, const char *spec, const char *what, cs_err *err)
{
    if (a->cols == 1 || a->rows == 1)
        return a->rows * a->cols;
    cs_fail(err, CS_EINVAL, "%s: %s is %zux%zu, expected a vector (n x 1 or 1 x n)", spec, what,
            a->rows, a->cols);
    return 0;
}

/* Prefix err's message with the file it is about. */
static int blame_file(cs_interp *in, const cs_cmdline *cl, int f, int rc, cs_err *err)
{
    char msg[sizeof err->msg];
    const char *spec = cs_arg_text(cl, file_keys[f], "");
    if (strncmp(err->msg, spec, strlen(spec)) != 0) {   /* the readers name it already */
        snprintf(msg, sizeof msg, "%.200s: %.300s", spec, err->msg);
        snprintf(err->msg, sizeof err->msg, "%s", msg);
    }
    cs_arg_blame(in, cl, file_keys[f], 0);
    return rc;
}

/* Read the files, check them together, make the problem: on any error
 * nothing is kept. */
static int load_problem(cs_interp *in, const cs_cmdline *cl, cs_kind kind, cs_array arr[F_COUNT],
                        cs_problem **prob, cs_err *err)
{
    int rc = CS_OK;
    for (int f = 0; f < F_COUNT && !rc; f++) {
        if (!cs_cmdline_key(cl, file_keys[f])) {
            if (f <= F_B) {
                in->err_col = cs_cmdline_pos(cl, 0)->col;
                rc = cs_fail(err, CS_EINVAL, "problem file needs A=PATH and b=PATH");
            }
            continue;
        }
        char path[4096];
        if ((rc = cs_arg_path(in, cl, file_keys[f], path, sizeof path, err)) ||
            (rc = cs_array_read(path, &arr[f], err)))
            rc = blame_file(in, cl, f, rc, err);
    }
    if (rc)
        return rc;
    size_t M = arr[F_A].rows, N = arr[F_A].cols, len[F_COUNT] = {0};
    for (int f = F_B; f <= F_X0; f++)
        if (arr[f].data && !(len[f] = vector_len(&arr[f], cs_arg_text(cl, file_keys[f], ""),
                                                 file_keys[f], err)))
            return blame_file(in, cl, f, CS_EINVAL, err);
    /* one array at a time, so the message names the file at fault (a C of
     * the right shape stands in for the one checked last) */
    size_t cn = kind == CS_PROB_EIG ? N : 0;
    if ((rc = cs_problem_check_shapes(kind, M, N, len[F_B], 0, cn, cn, err)))
        return blame_file(in, cl, F_B, rc, err);
    if (arr[F_XSTAR].data &&
        (rc = cs_problem_check_shapes(kind, M, N, len[F_B], len[F_XSTAR], cn, cn, err)))
        return blame_file(in, cl, F_XSTAR, rc, err);
    if ((rc = cs_problem_check_shapes(kind, M, N, len[F_B], len[F_XSTAR], arr[F_C].rows,
                                      arr[F_C].cols, err))) {
        if (arr[F_C].data)
            return blame_file(in, cl, F_C, rc, err);
        cs_arg_blame(in, cl, "kind", 0);
        return rc;
    }
    size_t nx = kind == CS_PROB_2BIT ? 2 * N : N;
    if (arr[F_X0].data && len[F_X0] != nx && len[F_X0] != N) {
        cs_fail(err, CS_EINVAL, "x0 has %zu entries, A has N = %zu columns", len[F_X0], N);
        return blame_file(in, cl, F_X0, CS_EINVAL, err);
    }
    if ((rc = cs_problem_new_arrays(prob, kind, arr[F_A].data, M, N, arr[F_B].data,
                                    arr[F_XSTAR].data, arr[F_C].data, err)))
        return blame_file(in, cl, F_A, rc, err);
    return CS_OK;
}

/* The SHA-256 of every file given, in the order of file_keys (A b xstar x0
 * C), for the journal's sha256=; a replay's file that changed since is
 * refused (cs_interp_input_file). A .mat file's, whichever variable is
 * named. */
static int hash_files(cs_interp *in, const cs_cmdline *cl, cs_err *err)
{
    for (int f = 0; f < F_COUNT; f++) {
        if (!cs_cmdline_key(cl, file_keys[f]))
            continue;
        char path[4096];
        int rc = cs_arg_path(in, cl, file_keys[f], path, sizeof path, err);
        char *colon = strrchr(path, ':');
        if (!rc && colon && colon - path >= 4 && !strncasecmp(colon - 4, ".mat", 4))
            *colon = '\0';
        if (rc)
            return blame_file(in, cl, f, rc, err);
        in->err_col = 0;
        rc = cs_interp_input_file(in, cl, cs_arg_text(cl, file_keys[f], ""), path, err);
        if (rc)   /* a digest that differs points at sha256= */
            return in->err_col ? rc : blame_file(in, cl, f, rc, err);
    }
    return CS_OK;
}

static void put_problem(cs_result *res, const solve_state *st);

static int cmd_problem_file(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    static const char *const not_file[] = {"N", "M", "gamma", "K", "graph", "noise", "scale",
                                           "dir", "format", "force"};
    int rc = refuse_keys(in, cl, "problem file", not_file, sizeof not_file / sizeof *not_file,
                         err);
    const char *kname;
    long trial;
    if (rc || (rc = cs_arg_choice(in, cl, "kind", "bin|osb|ter|eig|2bit", "bin", &kname, err)) ||
        (rc = cs_arg_long(in, cl, "trial", 1, 1, 1000000000L, &trial, err)))
        return rc;
    cs_kind kind;
    cs_problem_kind_parse(kname, &kind, NULL);
    const char *reg = cs_arg_text(cl, "reg", NULL);
    if (reg) {
        cs_method m;
        if (cs_method_parse(&m, reg, err) || cs_method_check(&m, err)) {
            cs_arg_blame(in, cl, "reg", 0);
            return CS_EINVAL;
        }
    }
    solve_state *st = solve_state_get(in, err);
    if (!st)
        return CS_ENOMEM;
    if ((rc = hash_files(in, cl, err)))
        return rc;
    cs_array arr[F_COUNT] = {{0}};
    cs_problem *prob = NULL;
    rc = load_problem(in, cl, kind, arr, &prob, err);
    double *x0 = NULL;
    size_t nx0 = arr[F_X0].rows * arr[F_X0].cols;
    if (!rc && arr[F_X0].data) {   /* keep x0 (take its buffer) */
        x0 = arr[F_X0].data;
        arr[F_X0].data = NULL;
    }
    for (int f = 0; f < F_COUNT; f++)
        cs_array_free(&arr[f]);
    if (rc)
        return rc;
    size_t N = cs_problem_N(prob), M = cs_problem_M(prob);
    set_problem(in, st, prob, kind, trial,
                cs_sweep_trial_stream(N, M, cs_problem_K(prob), trial - 1));
    st->x0 = x0;
    st->nx0 = x0 ? nx0 : 0;
    if (reg)
        snprintf(st->own_method, sizeof st->own_method, "%s", reg);
    for (int f = 0; f < F_COUNT; f++)
        snprintf(st->files[f], sizeof st->files[f], "%.255s", cs_arg_text(cl, file_keys[f], ""));
    put_problem(res, st);
    st->seq = cs_interp_stamp(in);
    return CS_OK;
}

/* ------------------------------------------------------------ problem save */

/* DIR/NAME as the session maps file names (cs_interp_path), its folder
 * made when missing. */
static int save_path(cs_interp *in, const char *dir, const char *name, char *buf, size_t len,
                     cs_err *err)
{
    char spec[4200];
    snprintf(spec, sizeof spec, "%.4000s/%s", dir, name);
    int rc = cs_interp_path(in, spec, buf, len, err);
    if (rc)
        return rc;
    char *slash = strrchr(buf, '/');
    if (slash && slash != buf) {
        *slash = '\0';
        int bad = mkdir(buf, 0777) && errno != EEXIST;
        int e = errno;
        *slash = '/';
        if (bad)
            return cs_fail(err, CS_EIO, "%s: cannot make its folder: %s", buf, strerror(e));
    }
    return CS_OK;
}

static int cmd_problem_save(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    static const char *const not_save[] = {"N", "M", "gamma", "K", "graph", "noise", "scale",
                                           "trial", "A", "b", "xstar", "x0", "C", "reg", "kind",
                                           "sha256"};
    solve_state *st = NULL;
    const char *fmt;
    int force;
    char dir[4096];
    int rc = refuse_keys(in, cl, "problem save", not_save, sizeof not_save / sizeof *not_save,
                         err);
    if (rc || (rc = solve_need_problem(in, cl, &st, err)) ||
        (rc = cs_arg_choice(in, cl, "format", "npy|csv|mat", "npy", &fmt, err)) ||
        (rc = cs_arg_bool(in, cl, "force", 0, &force, err)))
        return rc;
    if (!cs_cmdline_key(cl, "dir")) {
        in->err_col = cs_cmdline_pos(cl, 0)->col;
        return cs_fail(err, CS_EINVAL, "problem save needs dir=DIR");
    }
    snprintf(dir, sizeof dir, "%s", cs_arg_text(cl, "dir", ""));
    if (st->kind == CS_PROB_MAXCUT) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_EUNSUPPORTED, "problem save: a maxcut problem is its graph file");
    }
    const cs_problem *p = st->prob;
    size_t N = cs_problem_N(p), M = cs_problem_M(p), cols = cs_problem_cols(p);
    /* views of the problem's arrays (the writers only read them) */
    cs_array A = {M, N, (double *)cs_problem_A(p)}, b = {M, cols, (double *)cs_problem_b(p)},
             xs = {N, cols, (double *)cs_problem_xstar(p)}, C = {N, N, (double *)cs_problem_C(p)};
    const char *names[4] = {"A", "b", "xstar", "C"};
    const cs_array *arrs[4];
    size_t n = 0;
    arrs[n++] = &A;
    arrs[n++] = &b;
    if (xs.data)
        arrs[n++] = &xs;
    else
        names[2] = "C";
    if (C.data && st->kind == CS_PROB_EIG)
        arrs[n++] = &C;
    unsigned flags = force ? 0u : CS_ARRAY_NO_CLOBBER;
    char path[4096];
    if (!strcmp(fmt, "mat")) {
        rc = save_path(in, dir, "problem.mat", path, sizeof path, err);
        if (!rc)
            rc = cs_array_write_mat(path, n, names, arrs, flags, err);
        if (!rc)
            cs_result_str(res, "file", path);
    } else {
        char list[1024] = "";
        for (size_t k = 0; k < n && !rc; k++) {
            char name[16];
            snprintf(name, sizeof name, "%s.%s", names[k], fmt);
            rc = save_path(in, dir, name, path, sizeof path, err);
            if (!rc)
                rc = cs_array_write_opts(path, arrs[k], flags, err);
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s.%s", k ? " " : "",
                     names[k], fmt);
        }
        if (!rc)
            cs_result_str(res, "files", list);
    }
    if (rc) {
        cs_arg_blame(in, cl, "dir", 0);
        return rc;
    }
    cs_result_str(res, "dir", cs_arg_text(cl, "dir", ""));
    cs_result_str(res, "format", fmt);
    cs_result_int(res, "N", (long long)N);
    cs_result_int(res, "M", (long long)M);
    cs_result_bool(res, "has_xstar", xs.data != NULL);
    return CS_OK;
}

static void put_problem(cs_result *res, const solve_state *st)
{
    cs_result_str(res, "kind", cs_problem_kind_name(st->kind));
    if (st->kind == CS_PROB_MAXCUT) {
        const cs_graph *gr = cs_problem_graph(st->prob);
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
        if (st->files[0][0]) {   /* from files: which, and whether x* is known */
            for (int f = 0; f < F_COUNT; f++)
                if (st->files[f][0])
                    cs_result_str(res, file_keys[f], st->files[f]);
            cs_result_bool(res, "has_xstar", cs_problem_xstar(st->prob) != NULL);
        }
        if (cs_problem_xstar(st->prob))
            cs_result_num(res, "xstar_norm", cs_problem_xstar_norm(st->prob));
        if (cs_problem_noise(st->prob) > 0.0)
            cs_result_num(res, "noise", cs_problem_noise(st->prob));
        if (cs_problem_scale(st->prob) != 1.0)
            cs_result_num(res, "scale", cs_problem_scale(st->prob));
    }
    cs_result_int(res, "trial", st->trial);
    cs_result_str(res, "method", st->own_method[0] ? st->own_method
                                                    : cs_kind_defaults_of(st->kind)->method);
}

static int cmd_problem(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *ka = cs_cmdline_pos(cl, 0);
    cs_kind kind;
    cs_err sub;
    int rc;
    if (!strcmp(ka->value, "file"))
        return cmd_problem_file(in, cl, res, err);
    if (!strcmp(ka->value, "save"))
        return cmd_problem_save(in, cl, res, err);
    if (cs_problem_kind_parse(ka->value, &kind, &sub)) {
        in->err_col = ka->col;
        return cs_fail(err, CS_EINVAL, "unknown problem kind '%s' (bin osb ter 2bit eig orth "
                       "maxcut)", ka->value);
    }
    /* sha256 (the list's last) also goes with a maxcut graph file */
    size_t nrefuse = sizeof file_only_keys / sizeof *file_only_keys - (kind == CS_PROB_MAXCUT);
    if ((rc = refuse_keys(in, cl, "a drawn problem (problem file / problem save take it)",
                          file_only_keys, nrefuse, err)))
        return rc;
    solve_state *st = solve_state_get(in, err);
    if (!st)
        return CS_ENOMEM;
    long trial;
    rc = cs_arg_long(in, cl, "trial", 1, 1, 1000000000L, &trial, err);
    if (rc)
        return rc;
    cs_problem *prob = NULL;
    uint64_t ts = 0;
    char graph[4096] = "";
    rc = kind == CS_PROB_MAXCUT
             ? maxcut_problem(in, cl, &prob, graph, sizeof graph, &ts, trial, err)
             : recovery_problem(in, cl, kind, &prob, &ts, trial, err);
    if (rc)
        return rc;
    set_problem(in, st, prob, kind, trial, ts);
    snprintf(st->graph, sizeof st->graph, "%.255s", graph);
    put_problem(res, st);
    st->seq = cs_interp_stamp(in);
    return CS_OK;
}

/* ------------------------------------------------------------ the table */

static const cs_key_spec problem_keys[] = {
    {"N", "100", "unknowns (2bit: 10); maxcut takes it from the graph", NULL, CS_KEY_INT},
    {"M", "gamma*N", "measurements, 1 <= M <= N", NULL, CS_KEY_INT},
    {"gamma", "0.5", "M = round(gamma*N), instead of M=", NULL, CS_KEY_NUM},
    {"K", "0", "osb/ter: exactly K nonzeros (0: dense); orth: columns (0: N)", NULL,
     CS_KEY_INT},
    {"graph", NULL, "maxcut (needed there): a G-set file, toy5, toy4, or G10..G13 (from " SOLVE_GSET_DIR ")",
     NULL, CS_KEY_FILE},
    {"trial", "1", "draw the instance of this sweep trial (same seed, N, M, K, noise)", NULL,
     CS_KEY_INT},
    {"noise", "0", "sigma: b = Ax* + sigma*n, n ~ N(0, I) drawn after everything else (0: the "
     "noiseless problem, bit for bit); solve fit=ls fits such a b", NULL, CS_KEY_NUM},
    {"scale", "1", "bin osb ter: x* times this, the same draw otherwise (a CS regularizer "
     "finds the scale by itself)", NULL, CS_KEY_NUM},
    {"A", NULL, "problem file: the M x N matrix (.csv .npy .mtx .mat, F.mat:VAR)", NULL,
     CS_KEY_FILE},
    {"b", NULL, "problem file: the M measurements (n x 1 or 1 x n)", NULL, CS_KEY_FILE},
    {"xstar", NULL, "problem file: the solution, when known (without it success is judged by "
     "the residual and the distance to the target set)", NULL, CS_KEY_FILE},
    {"x0", NULL, "problem file: the first start point of solve (N entries)", NULL,
     CS_KEY_FILE},
    {"C", NULL, "problem file, kind=eig: the N x N symmetric matrix", NULL, CS_KEY_FILE},
    {"kind", "bin", "problem file: the kind of x* (bin osb ter eig 2bit), its method",
     "bin|osb|ter|eig|2bit", CS_KEY_WORD},
    {"reg", "the kind's", "problem file: the method solve uses (as solve reg=)", NULL,
     CS_KEY_TEXT},
    {"dir", NULL, "problem save: the folder for A, b, xstar (and C)", NULL, CS_KEY_FILE},
    {"format", "npy", "problem save: npy, csv, or mat (one DIR/problem.mat)", "npy|csv|mat",
     CS_KEY_WORD},
    {"force", "off", "problem save: replace existing files", NULL, CS_KEY_WORD},
    {"sha256", NULL, "problem file, maxcut graph=FILE: the files' SHA-256 digests in the "
     "order A b xstar x0 C (the journal records them; a file that differs is refused)", NULL,
     CS_KEY_LIST},
    {0}};

static const cs_cmd_spec problem_commands[] = {
    {.name = "problem", .topic = "problems",
     .usage = "problem KIND [{N}] [M=.. | {gamma}] [{K}] [{noise}] [{scale}] [graph=FILE] "
              "[{trial}] | "
              "problem file A=PATH b=PATH [xstar=PATH] [x0=PATH] [C=PATH] [{kind}] [reg=..] | "
              "problem save dir=DIR [{format}] [force=on]",
     .summary = "draw a recovery problem (bin osb ter 2bit eig orth), load a MAX-CUT graph, "
                "load your own (problem file) or write the current one (problem save)",
     .example = "problem bin N=100 M=50", .min_pos = 1, .max_pos = 1, .keys = problem_keys,
     .run = cmd_problem, .journal = 1},
};

CS_CMD_GROUP(cs_group_problem, problem_commands);
