/* cmd_problem.c — `problem`: draw a recovery problem or load a MAX-CUT
 * graph into the session (slot CS_EXT_SOLVE, solve_state.h, kept by
 * solve_state.c).
 *
 * `problem KIND ... trial=T` draws exactly the instance a `sweep` draws for
 * its trial T at the same (N, M, K) and seed, and `solve` starts from the
 * same random stream as the sweep's method, so a single sweep trial can be
 * replayed and stepped through interactively. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_sweep_stream.h"
#include "interp_internal.h"
#include "solve_state.h"

/* ------------------------------------------------------------ problem */

static int maxcut_problem(cs_interp *in, const cs_cmdline *cl, cs_problem **prob,
                          char *graph, size_t glen, uint64_t *ts, long trial, cs_err *err)
{
    static const char *const not_for_maxcut[] = {"N", "M", "K", "gamma"};
    for (size_t i = 0; i < 4; i++)
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
    double gamma, noise;
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
        (rc = cs_arg_double(in, cl, "noise", 0.0, 0.0, 1e300, &noise, err)))
        return rc;
    *ts = cs_sweep_trial_stream((size_t)n, (size_t)m, (size_t)k, trial - 1);
    cs_problem_spec sp = {.kind = kind, .N = (size_t)n, .M = (size_t)m, .K = (size_t)k,
                          .noise = noise};
    rc = cs_problem_new(prob, &sp, cs_interp_seed(in), *ts, err);
    if (rc && !err->key[0])
        in->err_col = cs_cmdline_pos(cl, 0)->col;
    return rc;
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
        cs_result_num(res, "xstar_norm", cs_problem_xstar_norm(st->prob));
        if (cs_problem_noise(st->prob) > 0.0)
            cs_result_num(res, "noise", cs_problem_noise(st->prob));
    }
    cs_result_int(res, "trial", st->trial);
    cs_result_str(res, "method", cs_kind_defaults_of(st->kind)->method);
}

static int cmd_problem(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *ka = cs_cmdline_pos(cl, 0);
    cs_kind kind;
    cs_err sub;
    if (cs_problem_kind_parse(ka->value, &kind, &sub)) {
        in->err_col = ka->col;
        return cs_fail(err, CS_EINVAL, "unknown problem kind '%s' (bin osb ter 2bit eig orth "
                       "maxcut)", ka->value);
    }
    solve_state *st = solve_state_get(in, err);
    if (!st)
        return CS_ENOMEM;
    long trial;
    int rc = cs_arg_long(in, cl, "trial", 1, 1, 1000000000L, &trial, err);
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
    cs_solver_free(st->solver);
    st->solver = NULL;
    st->rewound = 0;
    cs_basins_free(st->basins);
    st->basins = NULL;
    cs_problem_free(st->prob);
    st->prob = prob;
    st->kind = kind;
    st->N = cs_problem_N(prob);
    st->M = cs_problem_M(prob);
    st->K = cs_problem_K(prob);
    st->trial = trial;
    st->stream = ts;
    snprintf(st->graph, sizeof st->graph, "%.255s", graph);
    snprintf(st->reg_at_problem, sizeof st->reg_at_problem, "%s", in->reg_line);
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
    {0}};

static const cs_cmd_spec problem_commands[] = {
    {.name = "problem", .topic = "problems",
     .usage = "problem KIND [{N}] [M=.. | {gamma}] [{K}] [{noise}] [graph=FILE] [{trial}]",
     .summary = "draw a recovery problem (bin osb ter 2bit eig orth) or load a MAX-CUT graph",
     .example = "problem bin N=100 M=50", .min_pos = 1, .max_pos = 1, .keys = problem_keys,
     .run = cmd_problem, .journal = 1},
};

CS_CMD_GROUP(cs_group_problem, problem_commands);
