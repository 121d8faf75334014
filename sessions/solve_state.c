/* solve_state.c — the recovery commands' state in the interpreter (slot
 * CS_EXT_SOLVE, solve_state.h): made on first use, described in the
 * prompt, and what `problem`, `solve`, `trace`, `basins`, `maxcut` and the
 * views all ask of it. Below every command that uses it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cs_array_io.h"
#include "cs_project.h"
#include "interp_internal.h"
#include "solve_state.h"

static void state_free(void *p)
{
    solve_state *st = p;
    if (!st)
        return;
    cs_solver_free(st->solver);
    cs_problem_free(st->prob);
    cs_basins_free(st->basins);
    free(st->x0);
    free(st->view_x);
    free(st->view_obj);
    free(st->view_err);
    free(st);
}

static void state_describe(const void *p, char *buf, size_t len)
{
    const solve_state *st = p;
    const char *kind = cs_problem_kind_name(st->kind);
    char method[1024];
    if (!st->prob) {
        snprintf(buf, len, "%s", "");
        return;
    }
    /* the method the next solve or step runs */
    solve_next_method(st->in, st, method, sizeof method, NULL);
    method[strcspn(method, " :")] = '\0';
    if (st->kind == CS_PROB_MAXCUT)
        snprintf(buf, len, " maxcut %s solver=%s", st->graph, method);
    else if (st->K)
        snprintf(buf, len, " %s N=%zu M=%zu K=%zu solver=%s", kind, st->N, st->M, st->K, method);
    else
        snprintf(buf, len, " %s N=%zu M=%zu solver=%s", kind, st->N, st->M, method);
}

void solve_state_set_problem(solve_state *st, cs_problem *prob)
{
    cs_solver_free(st->solver);
    st->solver = NULL;
    st->rewound = 0;
    cs_basins_free(st->basins);
    st->basins = NULL;
    if (st->prob != prob)
        cs_problem_free(st->prob);
    st->prob = prob;
    free(st->x0);
    st->x0 = NULL;
    st->nx0 = 0;
    memset(st->files, 0, sizeof st->files);
    st->own_method[0] = st->graph[0] = '\0';
}

solve_state *solve_state_get(cs_interp *in, cs_err *err)
{
    solve_state *st = cs_interp_ext_get(in, CS_EXT_SOLVE, sizeof(solve_state), NULL, state_free,
                                        state_describe, err);
    if (st)
        st->in = in;
    return st;
}

void solve_next_method(const cs_interp *in, const solve_state *st, char *buf, size_t len,
                       int *own)
{
    int o = strcmp(in->reg_line, st->reg_at_problem) == 0;
    const char *own_m = st->own_method[0] ? st->own_method : cs_kind_defaults_of(st->kind)->method;
    snprintf(buf, len, "%s", o ? own_m : in->reg_line);
    if (own)
        *own = o;
}

void solve_note_reg(cs_interp *in, cs_result *res)
{
    solve_state *st = cs_interp_ext(in, CS_EXT_SOLVE);
    if (!st || !st->prob)
        return;
    char method[1024], note[2600], prob[64];
    int own;
    solve_next_method(in, st, method, sizeof method, &own);
    snprintf(prob, sizeof prob, "%s N=%zu", cs_problem_kind_name(st->kind), st->N);
    const char *name = cs_reg_get_info(in->reg)->name;
    if (!own)
        snprintf(note, sizeof note, "the next solve of problem %s uses %s", prob, method);
    else if (!strcmp(method, name))
        snprintf(note, sizeof note, "the next solve of problem %s uses %s, the problem's own",
                 prob, method);
    else
        snprintf(note, sizeof note, "the next solve of problem %s uses %s, the problem's own: %s "
                 "was already current when the problem was drawn (solve reg=%s uses it)", prob,
                 method, name, name);
    cs_result_str(res, "solver", method);
    cs_result_str(res, "note", note);
}

int solve_need_problem(cs_interp *in, const cs_cmdline *cl, solve_state **out, cs_err *err)
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

/* Folders that may hold the G-set copies: $CSREG_GSET_DIR, then the
 * project's sessions/data/gset seen from here or from the program. */
static size_t gset_dirs(char dirs[][4096], size_t cap)
{
    size_t n = 0;
    const char *env = getenv("CSREG_GSET_DIR");
    if (env && *env && n < cap)
        snprintf(dirs[n++], 4096, "%.4000s", env);
    char top[CS_PROJECT_MAX_DIRS][4096];
    size_t nt = cs_project_dirs(top, CS_PROJECT_MAX_DIRS);
    for (size_t i = 0; i < nt && n < cap; i++)
        snprintf(dirs[n++], 4096, "%.4000s/%s", top[i], SOLVE_GSET_DIR);
    return n;
}

int solve_resolve_graph(cs_interp *in, const char *name, char *buf, size_t len, cs_err *err)
{
    if (cs_graph_is_builtin(name)) {
        snprintf(buf, len, "%s", name);
        return CS_OK;
    }
    int rc = cs_interp_path(in, name, buf, len, err);
    if (rc)
        return rc;
    if (access(buf, R_OK) == 0 || strchr(name, '/'))
        return CS_OK;
    char dirs[1 + CS_PROJECT_MAX_DIRS][4096];
    size_t nd = gset_dirs(dirs, 1 + CS_PROJECT_MAX_DIRS);
    for (size_t d = 0; d < nd; d++)
        for (int ext = 0; ext < 2; ext++) {
            char cand[4200], mapped[4096];
            snprintf(cand, sizeof cand, "%.4000s/%.150s%s", dirs[d], name, ext ? ".txt" : "");
            if (cs_interp_path(in, cand, mapped, sizeof mapped, err) == CS_OK &&
                access(mapped, R_OK) == 0) {
                snprintf(buf, len, "%s", mapped);
                return CS_OK;
            }
        }
    return cs_fail(err, CS_ENOTFOUND,
                   "graph '%s': no such file (give a path, toy5, toy4, or a G-set name found in "
                   SOLVE_GSET_DIR ")", name);
}

int solve_write_x(const char *path, const double *x, size_t n, cs_err *err)
{
    size_t len = strlen(path);
    if (len > 5 && !strcasecmp(path + len - 5, ".json")) {
        FILE *f = fopen(path, "w");
        if (!f)
            return cs_fail(err, CS_EIO, "%s: cannot write: %s", path, strerror(errno));
        fputs("{\"x\": [", f);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s%.17g", i ? ", " : "", x[i]);
        fputs("]}\n", f);
        if (fclose(f))
            return cs_fail(err, CS_EIO, "%s: cannot write: %s", path, strerror(errno));
        return CS_OK;
    }
    cs_array a = {n, 1, (double *)x};
    return cs_array_write(path, &a, err);
}
