/* cmd_sweep.c — `sweep`: Monte-Carlo success rates over a grid of γ, M or K,
 * trials in parallel in the engine (cs_sweep.h); results do not depend on the
 * thread count. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_csv.h"
#include "cs_file.h"
#include "cs_limits.h"
#include "cs_nn.h"
#include "cs_parse.h"
#include "cs_plotstore.h"
#include "cs_provenance.h"
#include "cs_sweep.h"
#include "cs_dist.h"
#include "cs_sweep_journal.h"
#include "interp_internal.h"
#include "solve_state.h"
#include "sweep_problems.h"
#include "sweep_report.h"

/* ------------------------------------------------------------ sweep */

static int is_grid_text(const char *v) { return v && (strchr(v, ':') || strchr(v, ',')); }

/* The progress line names the grid point: "sweep  gamma=0.46 (9/31)". */
typedef struct sweep_progress {
    cs_progress_to to;        /* first: cs_interp_progress_engine's user */
    char what[160];
    char vary[64];            /* "noise=0.1 " with vary=, else "" */
    const char *axis;
    const double *values;
} sweep_progress;

static void sweep_point(void *user, size_t point, size_t npoints)
{
    sweep_progress *p = user;
    snprintf(p->what, sizeof p->what, "sweep  %s%s=%g (%zu/%zu)", p->vary, p->axis,
             p->values[point], point + 1, npoints);
}

/* Each finished trial to the front end watching (cs_sweep_view.h); from
 * the sweep's worker threads. */
static void sweep_trial(void *user, const cs_sweep_trial *t, int preloaded)
{
    const cs_sweep_watch *w = user;
    if (w->trial)
        w->trial(w->ctx, t->point, t->success, preloaded);
}

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

/* ------------------------------------------------------------ vary= */

/* vary=KEY:LIST: the keys a sweep can run once per value of, besides its
 * grid; each sets one field of the spec. */
typedef struct sweep_vary {
    char name[24];
    double *values;
    size_t n;
} sweep_vary;

typedef enum vary_kind { V_REAL, V_POSITIVE, V_WHOLE, V_FRACTION } vary_kind;

static const struct vary_key {
    const char *name;
    vary_kind kind;
    double lo;           /* smallest value (V_WHOLE) */
} vary_keys[] = {
    {"noise", V_REAL, 0},      {"lambda", V_POSITIVE, 0}, {"tol", V_FRACTION, 0},
    {"maxit", V_WHOLE, 0},     {"restarts", V_WHOLE, 0},  {"trials", V_WHOLE, 1},
    {"N", V_WHOLE, 1},         {"K", V_WHOLE, 0},         {"M", V_WHOLE, 1},
    {"gamma", V_FRACTION, 0},
};

static const struct vary_key *vary_key_of(const char *name)
{
    for (size_t i = 0; i < sizeof vary_keys / sizeof *vary_keys; i++)
        if (!strcmp(vary_keys[i].name, name))
            return &vary_keys[i];
    return NULL;
}

static void vary_apply(cs_sweep_spec *sp, const sweep_vary *v, double x)
{
    const char *k = v->name;
    if (!strcmp(k, "noise"))
        sp->noise = x;
    else if (!strcmp(k, "lambda"))
        sp->solve.lambda = x;
    else if (!strcmp(k, "tol"))
        sp->solve.tol = x;
    else if (!strcmp(k, "maxit"))
        sp->solve.maxit = (long)x;
    else if (!strcmp(k, "restarts"))
        sp->solve.restarts = (int)x;
    else if (!strcmp(k, "trials"))
        sp->trials = (long)x;
    else if (!strcmp(k, "N"))
        sp->N = (size_t)x;
    else if (!strcmp(k, "K"))
        sp->K = (size_t)x;
    else if (!strcmp(k, "M"))
        sp->M = (size_t)x, sp->gamma = 0.0;
    else if (!strcmp(k, "gamma"))
        sp->gamma = x, sp->M = 0;
}

/* The key is one vary takes, not the grid itself nor a key also given,
 * and its values are in range (whole numbers where they count, N at least
 * the grid's M or K, no value twice). */
static int vary_check(cs_interp *in, const cs_cmdline *cl, const cs_sweep_spec *sp, int axis,
                      const double *grid, size_t ngrid, const sweep_vary *v, cs_err *err)
{
    static const char *const axes[] = {"gamma", "M", "K"};
    const struct vary_key *k = vary_key_of(v->name);
    cs_arg_blame(in, cl, "vary", 0);
    if (!k)
        return cs_fail(err, CS_EINVAL, "vary=%s: not a key sweep can vary (noise lambda tol "
                       "maxit restarts trials N, and K, M or gamma where it is not the grid)",
                       v->name);
    if (!strcmp(v->name, axes[axis]))
        return cs_fail(err, CS_EINVAL, "vary=%s: %s= is already the grid", v->name, v->name);
    if ((axis != 2 && (!strcmp(v->name, "M") || !strcmp(v->name, "gamma"))) ||
        (axis == 2 && !strcmp(v->name, "K")))
        return cs_fail(err, CS_EINVAL, "vary=%s: the grid is %s=; vary K over a gamma or M "
                       "grid, or M or gamma over a K grid", v->name, axes[axis]);
    if (cs_cmdline_key(cl, v->name))
        return cs_fail(err, CS_EINVAL, "vary=%s: %s= is also given; give one of them",
                       v->name, v->name);
    double gmax = 0.0;
    for (size_t i = 0; axis != 0 && i < ngrid; i++)
        gmax = grid[i] > gmax ? grid[i] : gmax;
    for (size_t i = 0; i < v->n; i++) {
        double x = v->values[i];
        const char *why = NULL;
        if (!isfinite(x) || (k->kind == V_REAL && x < 0.0) ||
            (k->kind == V_POSITIVE && !(x > 0.0)))
            why = k->kind == V_REAL ? "must be >= 0" : "must be > 0";
        else if (k->kind == V_FRACTION && !(x > 0.0 && x <= 1.0))
            why = "must be in (0, 1]";
        else if (k->kind == V_WHOLE && (x != floor(x) || x < k->lo || x > 1e8))
            why = k->lo ? "must be a whole number >= 1" : "must be a whole number >= 0";
        else if (!strcmp(v->name, "N") && x < gmax)
            why = "is below the grid's largest value";
        else if ((!strcmp(v->name, "K") || !strcmp(v->name, "M")) && x > (double)sp->N)
            why = "is above N";
        for (size_t j = 0; !why && j < i; j++)
            if (v->values[j] == x)
                why = "is listed twice";
        if (why)
            return cs_fail(err, CS_EINVAL, "vary=%s: %s=%g %s", v->name, v->name, x, why);
    }
    in->err_col = 0;
    return CS_OK;
}

/* The journal of one run beside out=: FILE.csv.journal, with vary= one a
 * value (FILE.csv.journal.vI), under mpirun one a rank (... .rR). */
static int journal_path(const char *out, long v, char *buf, size_t cap, cs_err *err)
{
    int rc = cs_sweep_journal_name(out, buf, cap - 40, err);
    if (rc)
        return rc;
    if (v >= 0)
        snprintf(buf + strlen(buf), 24, ".v%ld", v);
    if (cs_dist_size() > 1)
        snprintf(buf + strlen(buf), 24, ".r%d", cs_dist_rank());
    return CS_OK;
}

/* The journals beside out= that this run does not use: of another number
 * of MPI ranks (or of a serial run), or of another vary= list. A resume
 * cannot take their trials (refused, naming the first); a fresh run
 * replaces them with its own (removed). Rank 0 looks. */
/* "", ".vI", ".rR" or ".vI.rR": a journal's name after F.csv.journal
 * (not a temporary file or the user's F.csv.journal.bak). */
static int journal_suffix(const char *rest)
{
    for (const char *tag = ".v"; *tag; tag = tag[1] == 'v' ? ".r" : "") {
        if (!strncmp(rest, tag, 2) && isdigit((unsigned char)rest[2])) {
            rest += 2;
            while (isdigit((unsigned char)*rest))
                rest++;
        }
    }
    return *rest == '\0';
}

static int other_journals(const char *out, size_t nv, int remove_them, char *first, size_t cap)
{
    char dir[4096], prefix[4096 + 16];
    const char *slash = strrchr(out, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) : 1, slash ? out : ".");
    if (slash && slash == out)
        snprintf(dir, sizeof dir, "/");
    snprintf(prefix, sizeof prefix, "%s.journal", slash ? slash + 1 : out);
    size_t plen = strlen(prefix);
    int size = cs_dist_size(), n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, plen))
            continue;
        const char *rest = e->d_name + plen;
        int ours = 0;
        for (size_t v = 0; v < (nv ? nv : 1) && !ours; v++)
            for (int r = 0; r < size && !ours; r++) {
                char want[64] = "";
                if (nv)
                    snprintf(want, sizeof want, ".v%zu", v);
                if (size > 1)
                    snprintf(want + strlen(want), sizeof want - strlen(want), ".r%d", r);
                ours = !strcmp(rest, want);
            }
        if (ours || !journal_suffix(rest))
            continue;
        char path[4096 + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n++ == 0)
            snprintf(first, cap, "%s", e->d_name);
        if (remove_them)
            remove(path);
    }
    if (d)
        closedir(d);
    return n;
}

/* Every journal of this run's layout, removed by this process alone (no
 * collective call: rank 0 makes room for the CSV it writes). */
static void journals_drop_here(const char *out, size_t nv)
{
    char base[4096], jpath[4096 + 64];
    cs_err err;
    if (cs_sweep_journal_name(out, base, sizeof base, &err))
        return;
    for (size_t v = 0; v < (nv ? nv : 1); v++)
        for (int k = 0; k < cs_dist_size(); k++) {
            snprintf(jpath, sizeof jpath, "%s", base);
            if (nv)
                snprintf(jpath + strlen(jpath), 24, ".v%zu", v);
            if (cs_dist_size() > 1)
                snprintf(jpath + strlen(jpath), 24, ".r%d", k);
            remove(jpath);
        }
}

/* The CSV is written: the journals of its runs go (vary= with nv values:
 * one each; else the one). */
static int sweep_journals_remove(const char *out, size_t nv, cs_err *err)
{
    char jpath[4096 + 64];
    for (size_t v = 0; v < (nv ? nv : 1); v++) {
        int rc = journal_path(out, nv ? (long)v : -1, jpath, sizeof jpath, err);
        if (rc)
            return rc;
        if (remove(jpath) && errno != ENOENT)
            return cs_dist_all(cs_fail(err, CS_EIO, "cannot remove %s: %s", jpath,
                                       strerror(errno)), err);
        if ((rc = cs_dist_all(CS_OK, err)))
            return rc;
    }
    return CS_OK;
}

/* device=: typed, else the session's (set device, --device). Typed cuda
 * runs on the GPU or fails saying what it takes. The session's cuda, and
 * auto, run the sweep on the GPU where it takes the sweep (every value of
 * vary=) and, for auto, a GPU answers; else on the CPU, saying why. What
 * was chosen is journaled, so that a replay runs where this run did. */
static void sweep_device(cs_interp *in, const cs_cmdline *cl, const sweep_vary *vary,
                         const char *requested, cs_sweep_spec *sp, cs_result *res)
{
    int typed = cs_cmdline_key(cl, "device") != NULL;
    cs_device_parse(requested, &sp->device, NULL);   /* one of the choices */
    if (sp->device == CS_DEVICE_CPU || (typed && sp->device == CS_DEVICE_CUDA))
        return;
    char why[sizeof ((cs_err *)0)->msg + 32] = "";
    int gpu = 1;
    sp->device = CS_DEVICE_CUDA;
    for (size_t v = 0; gpu && v < (vary->values ? vary->n : 1); v++) {
        cs_sweep_spec one = *sp;
        cs_err sub;
        if (vary->values)
            vary_apply(&one, vary, vary->values[v]);
        if (cs_sweep_gpu_takes(&one, &sub)) {
            gpu = 0;
            snprintf(why, sizeof why, "%s%s: cpu (%s)", typed ? "" : "set device ", requested,
                     sub.msg);
        }
    }
    if (gpu && !strcmp(requested, "auto")) {
        char chosen[16], said[400];   /* "auto: cpu (no GPU: ...)" */
        cs_nn_device_resolve("auto", chosen, sizeof chosen, said, sizeof said, NULL);
        gpu = !strcmp(chosen, "cuda");
        snprintf(why, sizeof why, "%s%s", typed ? "" : "set device ", said);
    }
    sp->device = gpu ? CS_DEVICE_CUDA : CS_DEVICE_CPU;
    char kv[32];
    snprintf(kv, sizeof kv, "device=%s", cs_device_name(sp->device));
    cs_interp_journal_key(in, kv);
    cs_result_str(res, "device", cs_device_name(sp->device));
    if (why[0])
        cs_result_str(res, "device_reason", why);
}

/* One run of the engine for spec sp (a value of vary=, index v; -1: none):
 * its journal beside out= (kept for resume=on), the front end watching. */
static int sweep_once(cs_interp *in, cs_sweep_spec *sp, const char *out, int resume, long v,
                      sweep_progress *pc, const char *kind, const char *const *methods,
                      cs_sweep_result **res, cs_err *err)
{
    cs_sweep_journal *jr = NULL;
    cs_sweep_store store;
    char jpath[4096 + 64];
    int rc;
    *res = NULL;
    if (out[0]) {
        /* each rank opens its own journal; all go on, or all stop with the
         * first failure (a rank left behind would hang the others) */
        rc = journal_path(out, v, jpath, sizeof jpath, err);
        if (!rc)
            rc = cs_sweep_journal_open(&jr, jpath, sp, resume, err);
        if ((rc = cs_dist_all(rc, err))) {
            cs_sweep_journal_close(jr, NULL);
            return rc;
        }
        cs_sweep_journal_store(jr, &store);
        sp->store = &store;
    }
    sp->progress = cs_interp_progress_engine;
    sp->point = sweep_point;
    sp->progress_user = pc;
    /* a front end watching: the grid first, then each trial as it ends */
    cs_sweep_watch watch = in->sweep_watch;
    if (watch.start) {
        cs_sweep_live live = {.run = ++in->sweep_runs, .kind = kind, .axis = pc->axis,
                              .N = sp->N, .values = sp->values, .npoints = sp->nvalues,
                              .methods = methods, .nmethods = sp->nmethods,
                              .trials = sp->trials, .threads = sp->threads};
        watch.start(watch.ctx, &live);
        sp->on_trial = sweep_trial;
        sp->trial_user = &watch;
    }
    rc = cs_sweep_run(sp, res, err);
    if (watch.start && watch.end)
        watch.end(watch.ctx, rc ? CS_SWEEP_LIVE_FAILED
                             : (*res)->partial ? CS_SWEEP_LIVE_INTERRUPTED
                                               : CS_SWEEP_LIVE_DONE);
    /* kept until the CSV is written; one that stopped the run has said why */
    int stopped = !rc && (*res)->stopped[0];
    int crc = cs_sweep_journal_close(jr, rc || stopped ? NULL : err);
    if (!rc)
        crc = cs_dist_all(stopped ? CS_OK : crc, err);
    if (!rc && crc) {
        cs_sweep_result_free(*res);
        *res = NULL;
        rc = crc;
    }
    return rc;
}

/* Append run `one` (taken) to *all, its rows tagged vary=x when name is
 * set; nruns: the runs planned, for the count of grid points. */
static int sweep_merge(cs_sweep_result **all, cs_sweep_result *one, const char *name, double x,
                       size_t nruns, cs_err *err)
{
    for (size_t i = 0; i < one->nrows; i++)
        one->rows[i].vary = x;
    snprintf(one->vary, sizeof one->vary, "%s", name);
    if (!*all) {
        one->points_total *= nruns;
        one->trials_total *= (long)nruns;
        *all = one;
        return CS_OK;
    }
    cs_sweep_result *a = *all;
    cs_sweep_row *rows = realloc(a->rows, (a->nrows + one->nrows + 1) * sizeof *rows);
    if (!rows) {
        cs_sweep_result_free(one);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    memcpy(rows + a->nrows, one->rows, one->nrows * sizeof *rows);
    a->rows = rows;
    a->nrows += one->nrows;
    a->points_done += one->points_done;
    a->trials_done += one->trials_done;
    a->partial = one->partial;
    a->wall_seconds += one->wall_seconds;
    memcpy(a->stopped, one->stopped, sizeof a->stopped);
    cs_sweep_result_free(one);
    return CS_OK;
}

static int cmd_sweep(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    if (cs_cmdline_key(cl, "problems"))   /* folders of saved problems: sweep_problems.c */
        return sweep_problems_run(in, cl, res, err);
    const char *kind;
    int rc = cs_arg_choice(in, cl, "kind", "bin|osb|ter|2bit|eig|orth", NULL, &kind, err);
    if (rc)
        return rc;
    if (!kind) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "sweep needs kind= (bin osb ter 2bit eig orth)");
    }
    cs_kind k;
    cs_problem_kind_parse(kind, &k, NULL);
    const cs_kind_defaults *kd = cs_kind_defaults_of(k);
    long N, trials, restarts, maxit, threads;
    int timing;
    if ((rc = cs_arg_long(in, cl, "N", (long)kd->N, 1, 100000000L, &N, err)) ||
        (rc = cs_arg_long(in, cl, "trials", 100, 1, 100000000L, &trials, err)) ||
        (rc = cs_arg_long(in, cl, "restarts", 0, 0, 100000, &restarts, err)) ||
        (rc = cs_arg_long(in, cl, "maxit", 0, 0, 100000000L, &maxit, err)) ||
        (rc = cs_arg_long(in, cl, "threads", cs_interp_threads(in), 0, CS_MAX_THREADS, &threads,
                                err)) ||
        (rc = cs_arg_bool(in, cl, "timing", 0, &timing, err)))
        return rc;
    const char *stop, *device, *fit;
    double tol, noise;
    if ((rc = cs_arg_choice(in, cl, "stop", "oracle|hybrid|residual|normalized|maxit", "oracle",
                            &stop, err)) ||
        (rc = cs_arg_choice(in, cl, "device", "cpu|cuda|auto", cs_device_name(in->device),
                            &device, err)) ||
        (rc = cs_arg_double(in, cl, "tol", 1e-8, 1e-300, 1.0, &tol, err)) ||
        (rc = cs_arg_double(in, cl, "noise", 0.0, 0.0, 1e300, &noise, err)) ||
        (rc = cs_arg_choice(in, cl, "fit", "affine|ls", "affine", &fit, err)))
        return rc;
    /* methods */
    const char *mtext = cs_arg_text(cl, "methods", NULL);
    if (!mtext)
        mtext = kd->method;
    char mbuf[2048];
    if (strlen(mtext) >= sizeof mbuf) {
        cs_arg_blame(in, cl, "methods", 0);
        return cs_fail(err, CS_EINVAL, "methods= is too long");
    }
    snprintf(mbuf, sizeof mbuf, "%s", mtext);
    const char *methods[32];
    cs_method mvals[32];   /* parsed once, here: the engine takes the values */
    size_t nm;
    if (split_methods(mbuf, methods, 32, &nm) || nm == 0) {
        cs_arg_blame(in, cl, "methods", 0);
        return cs_fail(err, CS_EINVAL, "methods=%s: give 1 to 32 methods, a,b,c", mtext);
    }
    for (size_t i = 0; i < nm; i++) {
        cs_err sub;
        if (cs_method_parse(&mvals[i], methods[i], &sub) || cs_method_check(&mvals[i], &sub)) {
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
    cs_sweep_spec sp = {.kind = k, .N = (size_t)N, .axis = axis == 0 ? CS_AXIS_GAMMA
                                                           : axis == 1 ? CS_AXIS_M
                                                                       : CS_AXIS_K,
                        .values = vals, .nvalues = nv, .methods = mvals, .nmethods = nm,
                        .trials = trials, .threads = (int)threads, .seed = cs_interp_seed(in),
                        .timing = timing, .cancel = cs_interp_cancel_flag(in),
                        .noise = noise};
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
    cs_stop_parse(stop, &sp.solve.stop, NULL);
    cs_fit_parse(fit, &sp.solve.fit, NULL);
    if (cs_cmdline_key(cl, "lambda") &&
        (rc = cs_arg_double(in, cl, "lambda", 0.0, 1e-300, 1e300, &sp.solve.lambda, err))) {
        free(vals);
        return rc;
    }
    char path[4096] = "";
    const char *pmode;
    int resume;
    if ((cs_cmdline_key(cl, "out") && (rc = cs_arg_path(in, cl, "out", path, sizeof path, err))) ||
        (rc = cs_plot_key_check(in, cl, "plot", err)) ||
        (rc = cs_arg_choice(in, cl, "partial", "beside|out", "beside", &pmode, err)) ||
        (rc = cs_arg_bool(in, cl, "resume", 0, &resume, err))) {
        free(vals);
        return rc;
    }
    if (resume && !path[0]) {
        free(vals);
        cs_arg_blame(in, cl, "resume", 0);
        return cs_fail(err, CS_EINVAL, "resume=on needs out=FILE.csv (the journal of finished "
                       "trials is FILE.csv.journal)");
    }
    /* vary=KEY:LIST: the sweep once per value, each row tagged with it */
    sweep_vary vary = {.name = ""};
    if ((rc = cs_arg_named_grid(in, cl, "vary", vary.name, sizeof vary.name, &vary.values,
                                &vary.n, err)) ||
        (vary.values && (rc = vary_check(in, cl, &sp, axis, vals, nv, &vary, err)))) {
        free(vals);
        free(vary.values);
        return rc;
    }
    sweep_device(in, cl, &vary, device, &sp, res);
    /* stop_after=K: an interrupted run replayed, its first K grid points */
    long stop_after = -1;
    if (cs_cmdline_key(cl, "stop_after") &&
        (rc = cs_arg_long(in, cl, "stop_after", 0, 1, 100000000L, &stop_after, err))) {
        free(vals);
        free(vary.values);
        return rc;
    }
    size_t left = stop_after > 0 ? (size_t)stop_after : (size_t)-1;
    /* journals of another layout (rank count, vary=): a resume cannot take
     * them; a fresh run replaces them */
    if (path[0] && stop_after <= 0) {
        char other[256] = "";
        rc = CS_OK;
        if (cs_dist_rank() == 0 && other_journals(path, vary.values ? vary.n : 0, !resume,
                                                  other, sizeof other) && resume) {
            const char *why = strstr(strstr(other, ".journal"), ".r")
                                  ? "another number of MPI ranks"
                                  : cs_dist_size() > 1 ? "a run without MPI"
                                                       : "another vary= list";
            rc = cs_fail(err, CS_EINVAL, "resume: %s is the journal of another run layout (%s); "
                         "resume with the rank count and vary= it was written with, or remove "
                         "it", other, why);
        }
        if ((rc = cs_dist_all(rc, err))) {
            free(vals);
            free(vary.values);
            cs_arg_blame(in, cl, "resume", 0);
            return rc;
        }
    }
    sweep_progress pc = {.to = {in, pc.what}, .what = "sweep", .axis = axes[axis],
                         .values = vals};
    cs_sweep_result *r = NULL;
    for (size_t v = 0; v < (vary.values ? vary.n : 1) && left; v++) {
        cs_sweep_spec spv = sp;
        spv.nvalues = left < nv ? left : nv;
        if (vary.values) {
            vary_apply(&spv, &vary, vary.values[v]);
            snprintf(pc.vary, sizeof pc.vary, "%s=%g ", vary.name, vary.values[v]);
        }
        cs_sweep_result *one = NULL;
        /* (a replay of an interrupted run keeps no journal: resume=on continues
         * the run recorded, from its own) */
        rc = sweep_once(in, &spv, stop_after > 0 ? "" : path, resume,
                        vary.values ? (long)v : -1, &pc, kind, methods, &one, err);
        if (!rc && spv.nvalues < nv) {   /* stopped where the recorded run was */
            one->partial = 1;
            one->points_total = nv;
        }
        if (!rc) {
            left -= one->points_done;
            rc = sweep_merge(&r, one, vary.name, vary.values ? vary.values[v] : 0.0,
                             vary.values ? vary.n : 1, err);
        }
        if (rc || r->partial)
            break;
    }
    free(vals);
    free(vary.values);
    if (rc) {
        in->err_col = cl->name_col;
        cs_sweep_result_free(r);
        return rc;
    }
    char shown[4096], journals[4096];   /* journals: beside out= as given */
    snprintf(shown, sizeof shown, "%s", cs_arg_text(cl, "out", ""));
    snprintf(journals, sizeof journals, "%s", path);
    if (path[0] && r->partial &&
        (rc = cs_arg_partial_target(in, cl, path, sizeof path, shown, sizeof shown, err))) {
        cs_sweep_result_free(r);
        return rc;
    }
    /* an interrupted run: its CSV says how the journal replays it */
    char prov[2048], how[64];
    snprintf(how, sizeof how, "stop_after=%zu", r->points_done);
    int record = r->partial && stop_after <= 0 && r->points_done > 0;
    cs_provenance_with(in, cl, record ? how : NULL, 0, prov, sizeof prov);
    rc = path[0] ? cs_sweep_write_csv(r, path, prov, err) : CS_OK;
    int dropped = 0;
    if (rc && r->stopped[0]) {
        /* the disk that stopped the journal: its space for what finished */
        journals_drop_here(journals, vary.values ? vary.n : 0);
        dropped = 1;
        rc = cs_sweep_write_csv(r, path, prov, err);
    }
    if (rc) {
        cs_arg_blame(in, cl, "out", 0);
        cs_sweep_result_free(r);
        return rc;
    }
    /* the CSV is complete: the journals go */
    if (path[0] && !r->partial &&
        (rc = sweep_journals_remove(path, vary.values ? vary.n : 0, err))) {
        cs_sweep_result_free(r);
        return rc;
    }
    /* interrupted: journaled with how far it got, so that a replay writes
     * the same rows (stop_after=); a replay of it goes on to the report */
    if (r->partial && stop_after > 0)
        cs_interp_note_stop(in, "sweep stopped after %zu of %zu grid points, as recorded",
                            r->points_done, r->points_total);
    else if (record)
        cs_interp_journal_stopped(in, how);
    if (r->partial && stop_after <= 0) {
        int beside = strcmp(shown, cs_arg_text(cl, "out", "")) != 0;
        rc = cs_fail(err, r->stopped[0] ? CS_EIO : CS_ECANCEL,
                     "sweep %s%s: %zu of %zu grid points finished%s%s%s%s%s",
                     r->stopped[0] ? "stopped, " : "interrupted", r->stopped, r->points_done,
                     r->points_total, path[0] ? ", written to " : "", shown,
                     path[0] ? " (marked partial)" : "", beside ? "; " : "",
                     beside ? cs_arg_text(cl, "out", "") : "");
        if (beside)
            snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg),
                     " is left as it was");
        if (path[0] && !dropped)
            snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg),
                     "; resume=on continues it");
        cs_sweep_result_free(r);
        return rc;
    }
    /* result: the table on the terminal, the rows and the success curves in
     * JSON (the CSV goes only into out=) */
    /* a noisy b or the least-squares fit, named after the stop rule in the caption */
    char stop_text[96];
    snprintf(stop_text, sizeof stop_text, "%s", stop);
    int varied = !strcmp(r->vary, "noise");
    if (varied || noise != 0.0 || sp.solve.fit != CS_FIT_AFFINE) {
        if (!varied)
            snprintf(stop_text + strlen(stop_text), sizeof stop_text - strlen(stop_text),
                     "; noise %g", noise);
        snprintf(stop_text + strlen(stop_text), sizeof stop_text - strlen(stop_text),
                 "%s fit %s", varied ? ";" : ",", fit);
        if (sp.solve.fit == CS_FIT_LS)
            snprintf(stop_text + strlen(stop_text), sizeof stop_text - strlen(stop_text),
                     " lambda %g", sp.solve.lambda > 0 ? sp.solve.lambda : CS_FIT_LS_LAMBDA);
        if (!varied)
            cs_result_num(res, "_noise", noise);
        cs_result_str(res, "_fit", fit);
    }
    sweep_setting set = {.kind = kind, .N = N, .axis = axis, .M = sp.M, .gamma = sp.gamma,
                         .trials = trials, .starts = restarts ? restarts : kd->starts,
                         .maxit = maxit ? maxit : kd->maxit, .stop = stop_text};
    cs_result_str(res, "_kind", kind);
    cs_result_int(res, "_N", N);
    cs_result_str(res, "_axis", axes[axis]);
    cs_result_int(res, "_points", (long long)r->points_done);
    cs_result_int(res, "_trials", trials);
    cs_result_str(res, "_stop", stop);
    /* the curves: one per method, or with vary= one per method and value;
     * over a one-point grid, vary's values are the x axis */
    sweep_curves cv;
    if ((rc = sweep_curves_make(r, methods, nm, axis, &cv, err))) {
        cs_sweep_result_free(r);
        return rc;
    }
    char key[160];
    snprintf(key, sizeof key, "_%s", cv.xvar);
    cs_result_vec(res, key, cv.series[0].x, cv.series[0].n);
    for (size_t m = 0; m < nm && cv.nseries == nm; m++) {
        snprintf(key, sizeof key, "_success_%s", methods[m]);
        cs_result_vec(res, key, cv.series[m].y, cv.series[m].n);
    }
    if (path[0])
        cs_result_str(res, "out", shown);   /* NAME.partial.csv when stopped */
    cs_result_num(res, "_wall_seconds", r->wall_seconds);
    sweep_report(res, r, &set, methods, nm);
    char title[256], xlabel[128];
    sweep_caption(&set, title, sizeof title);
    sweep_xlabel(&set, xlabel, sizeof xlabel);
    if (strcmp(cv.xvar, axes[axis]))
        snprintf(xlabel, sizeof xlabel, "%s", cv.xvar);
    cs_plot_success_data d = {.xvar = cv.xvar, .xlabel = xlabel, .title = title,
                              .series = cv.series, .nseries = cv.nseries};
    rc = r->points_done ? cs_plotstore_success(in, &d, err) : CS_OK;
    sweep_curves_free(&cv);
    cs_sweep_result_free(r);
    if (rc)
        return rc;
    return cs_plot_after(in, cl, "success", res, err);
}

/* ------------------------------------------------------------ the table */

static const cs_key_spec sweep_keys[] = {
    {"kind", CS_REQUIRED, "problem kind", "bin|osb|ter|2bit|eig|orth", CS_KEY_WORD},
    {"methods", "kind's own", "methods, comma-separated (a method's keys with ':', e.g. "
     "beta:beta=learn); linf and l1 run Douglas-Rachford", NULL, CS_KEY_LIST},
    {"N", "100", "unknowns (2bit: 10)", NULL, CS_KEY_INT},
    {"gamma", NULL, "grid of M/N, a:s:b or a,b,c (or the fixed gamma of a K sweep, default "
     "0.75); one of gamma, M, K is the grid", NULL, CS_KEY_RANGE},
    {"M", NULL, "grid of M (or the fixed M of a K sweep)", NULL, CS_KEY_RANGE},
    {"K", "0", "grid of nonzeros (osb/ter; orth: columns), or a fixed K (0: dense; orth: N)",
     NULL, CS_KEY_RANGE},
    {"trials", "100", "Monte-Carlo trials per grid point (the paper: 1000)", NULL, CS_KEY_INT},
    {"restarts", "10 (bin eig 2bit), else 1", "most starts of the CS methods (0: that default)",
     NULL, CS_KEY_INT},
    {"maxit", "1e4 (2bit, orth: 1e3)", "iterations per start (0: that default)", NULL,
     CS_KEY_INT},
    {"stop", "oracle", "stopping rule (recorded in the CSV)",
     "oracle|hybrid|residual|normalized|maxit", CS_KEY_WORD},
    {"tol", "1e-8", "tolerance of the residual rules", NULL, CS_KEY_NUM},
    {"lambda", "1e-5", "2bit weight; fit=ls: the weight of the regularizer (0.1)", NULL,
     CS_KEY_NUM},
    {"noise", "0", "sigma of the Gaussian noise added to b = Ax* (as problem noise=)", NULL,
     CS_KEY_NUM},
    {"fit", "affine", "affine: min reg(x) s.t. Ax = b; ls: min 0.5*|Ax - b|^2 + lambda*reg(x) "
     "(as solve fit=)", "affine|ls", CS_KEY_WORD},
    {"vary", NULL, "KEY:LIST: the sweep once per value of KEY (noise lambda tol maxit restarts "
     "trials N, K over a gamma or M grid, M or gamma over a K grid), e.g. vary=noise:0,0.05,0.1 "
     "or vary=lambda:0.05:0.05:0.2; the CSV gains the column KEY first; over a grid of one "
     "point the plot's x axis is KEY", NULL, CS_KEY_TEXT},
    {"threads", "session", "worker threads (0: all cores); results do not depend on it", NULL,
     CS_KEY_INT},
    {"timing", "off", "write measured seconds per trial (not reproducible)", "on|off",
     CS_KEY_WORD},
    {"device", "session", "cuda: every trial on the GPU, one per thread block (sweep "
     "device=cuda on a kind it does not run says which it runs); per trial the same outcome "
     "as on the CPU up to rounding, which can flip a borderline trial. auto, and cuda from "
     "set device or --device: the GPU where it runs the sweep (auto: and a GPU answers), else "
     "the CPU, saying why (default: set device, else cpu)", "cpu|cuda|auto", CS_KEY_WORD},
    {"out", NULL, "CSV: " CS_SWEEP_CSV_HEADER, NULL, CS_KEY_FILE},
    {"stop_after", NULL, "K: run the first K grid points only (over all values of vary=) and "
     "end as an interrupted run: how the journal records a sweep interrupted there, so that "
     "a replay writes the same rows", NULL, CS_KEY_INT},
    {"partial", "beside", "an interrupted run's results: beside out= as NAME.partial.csv (out= "
     "stays as it was), or out: into out= itself", "beside|out", CS_KEY_WORD},
    {"resume", "off", "on: continue an interrupted sweep (Ctrl-C, kill, lost node) from the "
     "journal beside out= (FILE.csv.journal; under mpirun one per rank, FILE.csv.journal.rR), "
     "running only the missing trials; the CSV is the one an uninterrupted run writes. off: "
     "an existing journal is replaced. The journal is removed once the CSV is written",
     "on|off", CS_KEY_WORD},
    {"plot", NULL, "draw the success curves into this image (.png .svg .pdf .gif)", NULL,
     CS_KEY_FILE},
    CS_PLOT_FIGURE_KEYS,
    {"title", NULL, "plot title", NULL, CS_KEY_TEXT},
    {"sha256", NULL, "problems=: the SHA-256 digests of the files read, in the order read (the "
     "journal records them; a replay refuses a file that changed)", NULL, CS_KEY_LIST},
    {"problems", NULL, "DIR/*: instead of a grid, every folder holding A, b [, xstar] as problem "
     "save writes them, solved once per method (kind= methods= maxit= restarts= out=; CSV: "
     SWEEP_PROBLEMS_CSV_HEADER ")", NULL, CS_KEY_TEXT},
    {0}};


static const cs_cmd_spec sweep_commands[] = {
    {.name = "sweep", .topic = "experiments",
     .usage = "sweep kind=KIND gamma=a:s:b|M=a:s:b|K=a:s:b [methods=LIST] [{N}] [{trials}] "
              "[{restarts}] [{stop}] [vary=KEY:LIST] [threads=..] [device=cpu|cuda|auto] "
              "[out=FILE.csv] "
              "[resume=on|off] [plot=FILE.png]",
     .summary = "Monte-Carlo success rates over a grid (trials in parallel, byte-identical "
                "for any thread count)",
     .example = "sweep kind=bin methods=bin,linf N=100 gamma=0.3:0.02:0.9 trials=100 "
                "restarts=10 out=fig1a.csv plot=fig1a.png",
     .keys = sweep_keys, .run = cmd_sweep, .journal = 1},
};

CS_CMD_GROUP(cs_group_sweep, sweep_commands);
