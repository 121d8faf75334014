/* csreg.c — the public interface (include/csreg.h) over the engine and the
 * interpreter: handles are the engine's own objects, errors go to a
 * per-thread message, and nothing else of the engine is exported from the
 * shared library (-fvisibility=hidden; CSREG_API marks what is). */
#include "csreg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_array_io.h"
#include "cs_interp.h"
#include "cs_method.h"
#include "cs_par.h"
#include "cs_problem.h"
#include "cs_reg.h"
#include "cs_reg_analyze.h"
#include "cs_solver.h"
#include "nn_backend.h"

/* ------------------------------------------------------------------ errors */

static _Thread_local char last_error[CS_ERR_MAX];
static _Thread_local char reg_text[512];

static int fail_err(const cs_err *e)
{
    snprintf(last_error, sizeof last_error, "%s", e->msg[0] ? e->msg : cs_strerror(e->code));
    return e->code < 0 ? e->code : CS_EINVAL;
}

static int fail_msg(int code, const char *msg)
{
    snprintf(last_error, sizeof last_error, "%s", msg);
    return code;
}

static int ok(void)
{
    last_error[0] = '\0';
    return 0;
}

CSREG_API const char *cs_version(void) { return CSREG_VERSION; }
CSREG_API const char *cs_version_commit(void) { return CSREG_COMMIT; }
CSREG_API const char *cs_last_error(void) { return last_error; }
CSREG_API void cs_set_threads(int n) { cs_par_set_threads(n); }
CSREG_API void cs_free(void *p) { free(p); }

/* ------------------------------------------------------------------ regularizers */

CSREG_API int cs_reg_open(cs_reg **out, const char *spec, uint64_t seed)
{
    cs_err err = {0};
    cs_method m = {0};
    *out = NULL;
    if (!spec)
        return fail_msg(CS_EINVAL, "no regularizer named");
    if (cs_method_parse(&m, spec, &err) || cs_method_reg_new(out, &m, NULL, seed, &err))
        return fail_err(&err);
    return ok();
}

/* A defined regularizer gets a name of its own per process (the registry
 * keeps it until the process ends: CS_REG_DEFINE_MAX in all). */
CSREG_API int cs_reg_open_gh(cs_reg **out, const char *g, const char *h, const char *form)
{
    static int next;
    cs_err err = {0};
    cs_reg_def_spec spec;
    char name[CS_REG_NAME_MAX + 1];
    *out = NULL;
    cs_reg_def_spec_init(&spec);
    if (!form || !strcmp(form, "cs"))
        spec.form = CS_FORM_NONE;
    else if (!strcmp(form, "holder"))
        spec.form = CS_FORM_HOLDER;
    else if (!strcmp(form, "si"))
        spec.form = CS_FORM_SI;
    else
        return fail_msg(CS_EINVAL, "form must be cs, holder or si");
    snprintf(name, sizeof name, "lib_%d", __atomic_add_fetch(&next, 1, __ATOMIC_RELAXED));
    spec.name = name;
    spec.g = g;
    spec.h = h;
    if (cs_reg_define(&spec, NULL, NULL, &err) || cs_reg_new(out, name, NULL, 0, 0, &err))
        return fail_err(&err);
    return ok();
}

CSREG_API void cs_reg_close(cs_reg *r) { cs_reg_free(r); }

CSREG_API const char *cs_reg_text(const cs_reg *r)
{
    const cs_reg_info *info = cs_reg_get_info(r);
    if (cs_reg_info_defined(info) && !strncmp(info->name, "lib_", 4))
        snprintf(reg_text, sizeof reg_text, "g=%s h=%s%s", info->g, info->h,
                 info->form == CS_FORM_HOLDER ? " form=holder"
                 : info->form == CS_FORM_SI   ? " form=si"
                                              : "");
    else
        cs_reg_describe(r, reg_text, sizeof reg_text);
    return reg_text;
}

CSREG_API int cs_reg_value_grad(cs_reg *r, const double *x, size_t n, double *value,
                                double *grad)
{
    cs_err err = {0};
    if (cs_reg_eval(r, x, 1, n, value, grad, &err))
        return fail_err(&err);
    return ok();
}

/* Rows through the library in double, spread over the workers: each worker
 * its own instance (an instance is not for two threads). */
typedef struct rows_job {
    cs_reg **regs;         /* one per worker */
    const void *W;
    int f32;
    size_t rows, cols;
    double *values;
    void *grad;
    double *scratch;       /* 2·cols doubles per worker */
    int *failed;
    cs_err *errs;
} rows_job;

static void rows_task(void *ctx, int t, int worker)
{
    rows_job *j = ctx;
    size_t r = (size_t)t, c = j->cols;
    double *x = j->scratch + (size_t)worker * 2 * c, *g = x + c;
    for (size_t i = 0; i < c; i++)
        x[i] = j->f32 ? ((const float *)j->W)[r * c + i] : ((const double *)j->W)[r * c + i];
    if (cs_reg_eval(j->regs[worker], x, 1, c, &j->values[r], j->grad ? g : NULL,
                    &j->errs[worker])) {
        j->failed[worker] = 1;
        return;
    }
    if (j->grad)
        for (size_t i = 0; i < c; i++) {
            if (j->f32)
                ((float *)j->grad)[r * c + i] = (float)g[i];
            else
                ((double *)j->grad)[r * c + i] = g[i];
        }
}

static int rows_library(cs_reg *r, const void *W, int f32, size_t rows, size_t cols,
                        double *values, void *grad)
{
    int nw = cs_par_threads() < 1 ? 1 : cs_par_threads();
    if (cs_reg_get_info(r)->takes_C != CS_C_NONE)
        nw = 1;   /* C=random is drawn per instance: keep the caller's */
    rows_job j = {.W = W, .f32 = f32, .rows = rows, .cols = cols, .values = values,
                  .grad = grad};
    j.regs = calloc((size_t)nw, sizeof *j.regs);
    j.scratch = malloc((size_t)nw * 2 * cols * sizeof *j.scratch);
    j.failed = calloc((size_t)nw, sizeof *j.failed);
    j.errs = calloc((size_t)nw, sizeof *j.errs);
    int rc = 0;
    cs_err err = {0};
    if (!j.regs || !j.scratch || !j.failed || !j.errs)
        rc = fail_msg(CS_ENOMEM, "out of memory");
    cs_method m = {0};
    if (!rc && nw > 1) {   /* the workers' instances: the caller's, described and parsed once */
        cs_reg_describe(r, reg_text, sizeof reg_text);
        if (cs_method_parse(&m, reg_text, &err))
            rc = fail_err(&err);
    }
    if (!rc)
        j.regs[0] = r;
    for (int w = 1; w < nw && !rc; w++)
        if (cs_method_reg_new(&j.regs[w], &m, NULL, 0, &err))
            rc = fail_err(&err);
    if (!rc) {
        int saved = cs_par_hold_threads(nw);
        cs_par_for((int)rows, rows_task, &j);
        cs_par_restore_threads(saved);
        for (int w = 0; w < nw && !rc; w++)
            if (j.failed[w])
                rc = fail_err(&j.errs[w]);
    }
    for (int w = 1; w < nw && j.regs; w++)
        cs_reg_free(j.regs[w]);
    free(j.regs);
    free(j.scratch);
    free(j.failed);
    free(j.errs);
    return rc ? rc : ok();
}

static int check_rows(const cs_reg *r, size_t rows, size_t cols)
{
    if (cols == 0 || rows > (size_t)1 << 30)
        return fail_msg(CS_EDIM, "rows need at least one column");
    if (cs_reg_get_info(r)->matrix_arg || cs_reg_extra(r))
        return fail_msg(CS_EUNSUPPORTED, "this regularizer does not take rows");
    return 0;
}

CSREG_API int cs_reg_rows_f32(cs_reg *r, const float *W, size_t rows, size_t cols,
                              double *values, float *grad)
{
    int rc = check_rows(r, rows, cols);
    if (rc)
        return rc;
    cs_reg_kernel k = cs_reg_kernel_of(r);
    if (cs_reg_kernel_class(k) == CS_KC_NONE || (cs_reg_kernel_flags(k) & CS_KF_TAIL) ||
        cols > (size_t)1 << 30)
        return rows_library(r, W, 1, rows, cols, values, grad);
    /* the training kernel adds scale·∇ℓ to its gradient array */
    float *g = grad;
    if (!g && !(g = malloc(rows * cols * sizeof *g)))
        return fail_msg(CS_ENOMEM, "out of memory");
    memset(g, 0, rows * cols * sizeof *g);
    cs_nn_cpu_reg_ops.rows(g, values, W, (int)rows, (int)cols, k, 1.0f);
    if (!grad)
        free(g);
    for (size_t i = 0; i < rows; i++)
        if (!isfinite(values[i]))
            return fail_msg(CS_ENONFINITE, "a row's value is not finite");
    return ok();
}

CSREG_API int cs_reg_rows_f64(cs_reg *r, const double *W, size_t rows, size_t cols,
                              double *values, double *grad)
{
    int rc = check_rows(r, rows, cols);
    return rc ? rc : rows_library(r, W, 0, rows, cols, values, grad);
}

CSREG_API int cs_reg_analyze_report(cs_reg *r, size_t res, cs_reg_report *out)
{
    cs_err err = {0};
    cs_reg_analyze_spec sp = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .res = res ? res : 101};
    cs_reg_analysis *a = malloc(sizeof *a);
    if (!a)
        return fail_msg(CS_ENOMEM, "out of memory");
    memset(out, 0, sizeof *out);
    int rc = cs_reg_analyze(r, &sp, a, &err);
    if (!rc) {
        out->found = a->levels.found;
        out->scale_free = a->levels.scale_free;
        out->nlevels = a->levels.nlevels < 16 ? a->levels.nlevels : 16;
        memcpy(out->levels, a->levels.levels, out->nlevels * sizeof *out->levels);
        if (a->levels.found)
            cs_reg_levels_text(&a->levels, out->target, sizeof out->target);
        else
            snprintf(out->target, sizeof out->target, "%s", cs_reg_get_info(r)->target);
        out->power = a->homogeneous ? a->k_measured : NAN;
        out->nstationary = a->nspurious < CS_REPORT_MAX ? a->nspurious : CS_REPORT_MAX;
        for (size_t i = 0; i < out->nstationary; i++) {
            out->stationary[i][0] = a->spurious[i].x;
            out->stationary[i][1] = a->spurious[i].y;
            out->stationary_value[i] = a->spurious[i].value;
            out->stationary_kind[i] = (int)a->spurious[i].kind;
        }
    }
    free(a);
    return rc ? fail_err(&err) : ok();
}

/* ------------------------------------------------------------------ problems, solver */

CSREG_API int cs_problem_draw(cs_problem **out, const char *kind, size_t N, size_t M,
                              uint64_t seed)
{
    cs_err err = {0};
    cs_problem_spec spec = {.N = N, .M = M ? M : (N + 1) / 2};
    *out = NULL;
    if (!kind || cs_problem_kind_parse(kind, &spec.kind, &err))
        return kind ? fail_err(&err) : fail_msg(CS_EINVAL, "no problem kind named");
    if (spec.kind == CS_PROB_MAXCUT)
        return fail_msg(CS_EUNSUPPORTED, "maxcut problems come from a graph: use a session");
    if (cs_problem_new(out, &spec, seed, 0, &err))
        return fail_err(&err);
    return ok();
}

CSREG_API int cs_problem_from_arrays(cs_problem **out, const char *kind, const double *A,
                                     size_t M, size_t N, const double *b, const double *xstar,
                                     const double *C)
{
    cs_err err = {0};
    cs_kind k;
    *out = NULL;
    if (!kind || cs_problem_kind_parse(kind, &k, &err))
        return kind ? fail_err(&err) : fail_msg(CS_EINVAL, "no problem kind named");
    if (cs_problem_new_arrays(out, k, A, M, N, b, xstar, C, &err))
        return fail_err(&err);
    return ok();
}

/* A file's array, its error prefixed by the file's name when the reader's
 * message does not already say it */
static int read_array(const char *path, cs_array *a, cs_err *err)
{
    int rc = cs_array_read(path, a, err);
    if (rc && !strstr(err->msg, path)) {
        char msg[CS_ERR_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        cs_fail(err, rc, "%s: %s", path, msg);
    }
    return rc;
}

CSREG_API int cs_problem_load(cs_problem **out, const char *kind, const char *A, const char *b,
                              const char *xstar, const char *C)
{
    cs_err err = {0};
    cs_kind k;
    cs_array a = {0}, vb = {0}, vx = {0}, vc = {0};
    *out = NULL;
    if (!kind || !A || !b)
        return fail_msg(CS_EINVAL, "a problem needs its kind, A and b");
    int rc = cs_problem_kind_parse(kind, &k, &err);
    if (!rc)
        rc = read_array(A, &a, &err);
    if (!rc)
        rc = read_array(b, &vb, &err);
    if (!rc && xstar)
        rc = read_array(xstar, &vx, &err);
    if (!rc && C)
        rc = read_array(C, &vc, &err);
    if (!rc && (rc = cs_problem_check_shapes(k, a.rows, a.cols, vb.rows * vb.cols,
                                             xstar ? vx.rows * vx.cols : 0, vc.rows, vc.cols,
                                             &err))) {
        /* name the file the mismatch is about */
        const char *f = strstr(err.msg, "x*") ? xstar : strstr(err.msg, "C ") ? C : b;
        char msg[CS_ERR_MAX];
        snprintf(msg, sizeof msg, "%s", err.msg);
        cs_fail(&err, rc, "%s: %s", f ? f : b, msg);
    }
    if (!rc)
        rc = cs_problem_new_arrays(out, k, a.data, a.rows, a.cols, vb.data,
                                   xstar ? vx.data : NULL, C ? vc.data : NULL, &err);
    cs_array_free(&a);
    cs_array_free(&vb);
    cs_array_free(&vx);
    cs_array_free(&vc);
    return rc ? fail_err(&err) : ok();
}

CSREG_API int cs_problem_save(const cs_problem *p, const char *dir, const char *ext)
{
    cs_err err = {0};
    size_t M = cs_problem_M(p), N = cs_problem_N(p);
    struct {
        const char *name;
        const double *data;
        size_t rows, cols;
    } parts[] = {{"A", cs_problem_A(p), M, N},
                 {"b", cs_problem_b(p), M, 1},
                 {"xstar", cs_problem_xstar(p), N, 1},
                 {"C", cs_problem_C(p), N, N}};
    if (!ext || (strcmp(ext, "npy") && strcmp(ext, "csv") && strcmp(ext, "mtx")))
        return fail_msg(CS_EINVAL, "ext must be npy, csv or mtx");
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (!parts[i].data)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.%s", dir, parts[i].name, ext);
        cs_array a = {parts[i].rows, parts[i].cols, (double *)parts[i].data};
        if (cs_array_write(path, &a, &err))
            return fail_err(&err);
    }
    return ok();
}

CSREG_API void cs_problem_close(cs_problem *p) { cs_problem_free(p); }
CSREG_API void cs_problem_shape(const cs_problem *p, size_t *M, size_t *N)
{
    *M = cs_problem_M(p);
    *N = cs_problem_N(p);
}
CSREG_API const double *cs_problem_matrix(const cs_problem *p) { return cs_problem_A(p); }
CSREG_API const double *cs_problem_rhs(const cs_problem *p) { return cs_problem_b(p); }
CSREG_API const double *cs_problem_solution(const cs_problem *p) { return cs_problem_xstar(p); }

CSREG_API int cs_solver_open(cs_solver **out, cs_problem *p, const char *method, uint64_t seed)
{
    cs_err err = {0};
    cs_method m = {0};
    cs_solve_opts opts = {0};
    *out = NULL;
    if (method && cs_method_parse(&m, method, &err))
        return fail_err(&err);
    if (cs_solver_new(out, p, method ? &m : NULL, &opts, seed, 0, &err))
        return fail_err(&err);
    return ok();
}

CSREG_API void cs_solver_close(cs_solver *s) { cs_solver_free(s); }

static void result_of(cs_solver *s, cs_result *res)
{
    cs_solve_result r;
    cs_solver_result(s, &r);
    *res = (cs_result){.success = r.success, .done = r.done, .iterations = r.iters,
                       .starts = r.starts, .rel_err = r.rel_err, .objective = r.objective};
    if (!r.done && cs_problem_xstar(cs_solver_problem(s))) {
        /* a run in progress: the error of the iterate it would return now */
        size_t n;
        const double *x = cs_solver_x(s, &n);
        res->rel_err = x ? cs_problem_rel_err(cs_solver_problem(s), x) : NAN;
    }
}

CSREG_API int cs_solver_advance(cs_solver *s, long n, cs_result *res)
{
    cs_err err = {0};
    if (cs_solver_step(s, n, NULL, &err))
        return fail_err(&err);
    if (res)
        result_of(s, res);
    return ok();
}

CSREG_API int cs_solver_finish(cs_solver *s, cs_result *res)
{
    cs_err err = {0};
    if (cs_solver_solve(s, NULL, &err))
        return fail_err(&err);
    if (res)
        result_of(s, res);
    return ok();
}

CSREG_API const double *cs_solver_point(cs_solver *s, size_t *n) { return cs_solver_x(s, n); }

/* ------------------------------------------------------------------ sessions */

struct cs_session {
    cs_interp *in;
    FILE *out;        /* the interpreter's JSON lines, in memory */
    char *buf;
    size_t len, taken;
};

CSREG_API int cs_session_open(cs_session **out, uint64_t seed)
{
    cs_err err = {0};
    cs_session *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s || !(s->out = open_memstream(&s->buf, &s->len))) {
        free(s);
        return fail_msg(CS_ENOMEM, "out of memory");
    }
    cs_interp_opts o = {.json = 1, .seed = seed, .threads = cs_par_threads(), .out = s->out};
    if (cs_interp_new(&s->in, &o, &err)) {
        fclose(s->out);
        free(s->buf);
        free(s);
        return fail_err(&err);
    }
    *out = s;
    return ok();
}

CSREG_API void cs_session_close(cs_session *s)
{
    if (!s)
        return;
    cs_interp_free(s->in);
    fclose(s->out);
    free(s->buf);
    free(s);
}

CSREG_API int cs_session_run(cs_session *s, const char *command, char **json)
{
    cs_err err = {0};
    int col = 0;
    if (json)
        *json = NULL;
    int rc = cs_interp_exec(s->in, command, &col, &err);
    fflush(s->out);
    size_t n = s->len - s->taken;
    const char *text = s->buf ? s->buf + s->taken : "";
    s->taken = s->len;
    if (rc < 0)
        return fail_err(&err);
    if (json) {
        while (n > 0 && text[n - 1] == '\n')
            n--;
        if (!(*json = malloc(n + 1)))
            return fail_msg(CS_ENOMEM, "out of memory");
        memcpy(*json, text, n);
        (*json)[n] = '\0';
    }
    return ok();
}
