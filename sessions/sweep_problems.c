/* sweep_problems.c — `sweep problems='DIR/GLOB'`: every folder the pattern
 * matches holds A, b and optionally xstar as `problem save` writes them
 * (.npy, .csv or .mtx); each is solved once by every method, as `problem
 * file` then `solve reg=METHOD` would (the same trial stream and seed), and
 * gives one CSV row per folder and method. The journal's sha256= lists the
 * digests of every file read, folder by folder (A, b, xstar), once
 * `sha256` is among sweep's keys: a replay refuses a file that changed. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_args.h"
#include "cs_array_io.h"
#include "cs_provenance.h"
#include "cs_file.h"
#include "cs_solver.h"
#include "cs_sweep_stream.h"
#include "interp_internal.h"
#include "sweep_problems.h"

#define MAX_METHODS 16

/* DIR/NAME.npy, .csv or .mtx, whichever exists first; 0 when none. */
static int find_array(const char *dir, const char *name, char *buf, size_t len)
{
    static const char *const ext[] = {"npy", "csv", "mtx"};
    for (size_t e = 0; e < sizeof ext / sizeof *ext; e++) {
        snprintf(buf, len, "%s%s.%s", dir, name, ext[e]);
        if (access(buf, R_OK) == 0)
            return 1;
    }
    return 0;
}

/* The problem in folder dir (ending in '/'): A and b needed, xstar kept
 * when there. Errors name the folder. Each file's digest goes into the
 * journal (sweep_problems_record). */
static int load_folder(cs_interp *in, const cs_cmdline *cl, const char *dir, cs_kind kind,
                       cs_problem **prob, cs_err *err)
{
    char path[3][4200];
    const char *names[3] = {"A", "b", "xstar"};
    cs_array arr[3] = {{0}};
    int rc = CS_OK;
    for (int f = 0; f < 3 && !rc; f++) {
        if (!find_array(dir, names[f], path[f], sizeof path[f])) {
            if (f < 2)
                rc = cs_fail(err, CS_ENOTFOUND, "%s: no %s.npy, %s.csv or %s.mtx", dir, names[f],
                             names[f], names[f]);
            continue;
        }
        rc = cs_interp_input_file(in, cl, path[f], path[f], err);
        if (!rc)
            rc = cs_array_read(path[f], &arr[f], err);
    }
    if (!rc) {
        size_t M = arr[0].rows, N = arr[0].cols;
        size_t nb = arr[1].rows * arr[1].cols, nx = arr[2].rows * arr[2].cols;
        rc = cs_problem_check_shapes(kind, M, N, nb, nx, 0, 0, err);
        if (!rc)
            rc = cs_problem_new_arrays(prob, kind, arr[0].data, M, N, arr[1].data, arr[2].data,
                                       NULL, err);
        if (rc && strncmp(err->msg, dir, strlen(dir)) != 0) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%.200s: %.300s", dir, err->msg);
            snprintf(err->msg, sizeof err->msg, "%s", msg);
        }
    }
    for (int f = 0; f < 3; f++)
        cs_array_free(&arr[f]);
    return rc;
}

/* One folder: every method once, a row each. */
static int run_folder(cs_interp *in, const cs_cmdline *cl, const char *dir, cs_kind kind,
                      cs_method *methods, size_t nm, const cs_solve_opts *o, FILE *csv,
                      size_t *nsuccess, cs_err *err)
{
    cs_problem *prob = NULL;
    int rc = load_folder(in, cl, dir, kind, &prob, err);
    if (rc)
        return rc;
    size_t N = cs_problem_N(prob), M = cs_problem_M(prob);
    uint64_t stream = cs_sweep_trial_stream(N, M, cs_problem_K(prob), 0);   /* trial 1 */
    for (size_t m = 0; m < nm && !rc; m++) {
        cs_solver *s = NULL;
        cs_solve_result r;
        rc = cs_solver_new(&s, prob, &methods[m], o, cs_interp_seed(in),
                           cs_sweep_method_stream(stream, &methods[m]), err);
        if (!rc)
            rc = cs_solver_solve(s, &r, err);
        if (!rc) {
            *nsuccess += r.success != 0;
            /* the folder without its trailing '/' */
            fprintf(csv, "%.*s,%s,%zu,%zu,%d,%d,%.17g,%.17g,%ld\n", (int)(strlen(dir) - 1), dir,
                    cs_solver_method(s), N, M, cs_problem_xstar(prob) != NULL, r.success != 0,
                    r.rel_err, r.residual, (long)r.iters);
        }
        cs_solver_free(s);
    }
    cs_problem_free(prob);
    return rc;
}

int sweep_problems_run(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    if (in->opts.sandbox_dir) {
        cs_arg_blame(in, cl, "problems", 0);
        return cs_fail(err, CS_EINVAL, "problems=: folders cannot be read in a sandbox");
    }
    const char *kind_text, *pattern = cs_arg_text(cl, "problems", "");
    long maxit, restarts;
    int rc;
    if ((rc = cs_arg_choice(in, cl, "kind", "bin|osb|ter|2bit", "bin", &kind_text, err)) ||
        (rc = cs_arg_long(in, cl, "maxit", 0, 0, 100000000L, &maxit, err)) ||
        (rc = cs_arg_long(in, cl, "restarts", 0, 0, 100000, &restarts, err)))
        return rc;
    cs_kind kind;
    cs_problem_kind_parse(kind_text, &kind, NULL);
    if (!cs_cmdline_key(cl, "out")) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "sweep problems= needs out=FILE.csv");
    }
    /* methods=a,b (a method's own keys use ':'); default: the kind's */
    char text[1024];
    snprintf(text, sizeof text, "%s",
             cs_arg_text(cl, "methods", cs_kind_defaults_of(kind)->method));
    cs_method methods[MAX_METHODS];
    size_t nm = 0;
    char *save = NULL;
    for (char *tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (nm == MAX_METHODS || cs_method_parse(&methods[nm], tok, err) ||
            cs_method_check(&methods[nm], err)) {
            cs_arg_blame(in, cl, "methods", 0);
            return nm == MAX_METHODS ? cs_fail(err, CS_EINVAL, "methods=: at most %d",
                                               MAX_METHODS)
                                     : CS_EINVAL;
        }
        nm++;
    }
    glob_t g;
    if (glob(pattern, GLOB_MARK, NULL, &g) != 0) {
        cs_arg_blame(in, cl, "problems", 0);
        return cs_fail(err, CS_ENOTFOUND, "problems=%s: no folder matches", pattern);
    }
    char path[4096];
    /* written aside and renamed when complete: an interrupted sweep leaves
     * out= as it was (and so nothing a replay would have to make again) */
    cs_afile af;
    rc = cs_arg_path(in, cl, "out", path, sizeof path, err);
    if (!rc)
        rc = cs_afile_open(&af, path, 0, err);
    if (rc) {
        globfree(&g);
        cs_arg_blame(in, cl, "out", 0);
        return rc;
    }
    FILE *csv = af.f;
    char prov[4096];
    cs_provenance(in, cl, 0, prov, sizeof prov);
    fprintf(csv, "%s\n%s", SWEEP_PROBLEMS_CSV_HEADER, prov);
    cs_solve_opts o = {.maxit = maxit, .restarts = (int)restarts,
                       .cancel = cs_interp_cancel_flag(in)};
    size_t folders = 0, nsuccess = 0;
    for (size_t k = 0; k < g.gl_pathc && !rc; k++) {
        const char *dir = g.gl_pathv[k];
        if (dir[strlen(dir) - 1] != '/')   /* GLOB_MARK: folders end in '/' */
            continue;
        rc = run_folder(in, cl, dir, kind, methods, nm, &o, csv, &nsuccess, err);
        folders++;
    }
    globfree(&g);
    if (!rc && !folders) {
        cs_arg_blame(in, cl, "problems", 0);
        rc = cs_fail(err, CS_ENOTFOUND, "problems=%s: no folder matches", pattern);
    }
    if (!rc)   /* a replay: no folder of the recording gone */
        rc = cs_interp_inputs_done(in, cl, err);
    if (rc) {
        cs_afile_abort(&af);
        return rc;
    }
    if ((rc = cs_afile_commit(&af, err))) {
        cs_arg_blame(in, cl, "out", 0);
        return rc;
    }
    cs_result_int(res, "folders", (long long)folders);
    cs_result_int(res, "rows", (long long)(folders * nm));
    cs_result_int(res, "success", (long long)nsuccess);
    cs_result_str(res, "out", cs_arg_text(cl, "out", ""));
    return CS_OK;
}
