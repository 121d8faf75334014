/* solver.c — problem + method → FISTA / Douglas–Rachford with restarts. */
#include "cs_solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_clock.h"
#include "cs_dr.h"
#include "cs_method.h"
#include "cs_proj.h"
#include "cs_reg.h"
#include "cs_reg_fast.h"
#include "cs_rng.h"
#include "cs_vec.h"

struct cs_solver {
    cs_problem *prob;
    cs_kind kind;
    cs_solve_opts o;
    cs_algo algo;
    char method[256];     /* canonical method text NAME:k=v:... */
    char name[256];       /* its regularizer's name */
    cs_reg *reg;
    size_t N, cols, nx;   /* x part: N×cols */
    size_t n;             /* variable length (extras; 2bit: 2N) */
    size_t extra;
    long maxit;
    int max_starts;
    double lambda, tol_ok;
    cs_reg_kernel fast;   /* the hand-written kernel used (bin, osb, ter), or NONE */
    const double *xstar;  /* oracle fast path: vector x* (cols = 1, not 2bit), else NULL */
    double xstar_norm;
    cs_fista *fista;
    cs_fista **pool;      /* starts 2.. run in lockstep (lockstep_starts) */
    int npool;
    cs_fista_fns ffns;
    cs_fista_opts fopts;
    cs_dr *dr;
    uint64_t seed, stream;
    cs_rng rng;
    int start;            /* starts begun */
    int in_start;         /* a start is running */
    int done, success;
    long iters, last_iters;
    double seconds;
    cs_end end;
    double *x0, *xhat, *gtmp, *rtmp;
    int have_result;
    cs_solve_result res;  /* of the last finished start */
    cs_trace_rec *trace;
    size_t ntrace, captrace;
};

/* Per problem kind, as the paper's code runs it (cs_solver.h). */
static const cs_kind_defaults kind_defaults[CS_PROB_COUNT] = {
    [CS_PROB_BIN] = {"bin", 10000, 10, NAN, CS_MODE_ACCEL, CS_STOP_ORACLE, 100},
    [CS_PROB_OSB] = {"osb", 10000, 1, NAN, CS_MODE_ACCEL, CS_STOP_ORACLE, 100},
    [CS_PROB_TER] = {"ter", 10000, 1, NAN, CS_MODE_ACCEL, CS_STOP_ORACLE, 100},
    [CS_PROB_2BIT] = {"equ", 1000, 10, 1e-5, CS_MODE_ADAPTIVE, CS_STOP_ORACLE, 10},
    [CS_PROB_EIG] = {"eig", 10000, 10, NAN, CS_MODE_ACCEL, CS_STOP_ORACLE, 100},
    [CS_PROB_ORTH] = {"om", 1000, 1, NAN, CS_MODE_ACCEL, CS_STOP_ORACLE, 100},
    [CS_PROB_MAXCUT] = {"bin", 10000, 1, 1e-7, CS_MODE_ADAPTIVE, CS_STOP_ORACLE, 0},
};

const cs_kind_defaults *cs_kind_defaults_of(cs_kind kind)
{
    return kind >= 0 && kind < CS_PROB_COUNT ? &kind_defaults[kind] : &kind_defaults[0];
}

const char *cs_algo_name(cs_algo algo)
{
    switch (algo) {
    case CS_ALGO_AUTO: return "auto";
    case CS_ALGO_FISTA: return "fista";
    case CS_ALGO_DR: return "dr";
    default: return "?";
    }
}

int cs_algo_parse(const char *name, cs_algo *algo, cs_err *err)
{
    for (cs_algo a = CS_ALGO_AUTO; a <= CS_ALGO_DR; a++)
        if (name && !strcmp(name, cs_algo_name(a))) {
            *algo = a;
            return CS_OK;
        }
    return cs_fail(err, CS_EINVAL, "method=%s: expected fista or dr", name ? name : "");
}

const char *cs_mode_name(cs_mode mode)
{
    static const char *const names[] = {"default", "accel", "adaptive", "plain"};
    return mode >= CS_MODE_DEFAULT && mode <= CS_MODE_PLAIN ? names[mode] : "?";
}

int cs_mode_parse(const char *name, cs_mode *mode, cs_err *err)
{
    for (cs_mode m = CS_MODE_DEFAULT; m <= CS_MODE_PLAIN; m++)
        if (name && !strcmp(name, cs_mode_name(m))) {
            *mode = m;
            return CS_OK;
        }
    return cs_fail_key(err, CS_EINVAL, "mode",
                       "mode=%s: expected default, accel, adaptive or plain", name ? name : "");
}

/* ------------------------------------------------------------ callbacks */

static int fg_reg(void *ctx, const double *x, double *f, double *grad, cs_err *err)
{
    cs_solver *s = ctx;
    if (s->fast) {
        int rc = cs_reg_fast_eval(s->fast, x, s->n, f, grad, NULL);
        if (rc)
            return cs_fail(err, rc, "%s: value or gradient is not finite", s->method);
        return CS_OK;
    }
    if (s->kind == CS_PROB_ORTH)
        return cs_reg_eval(s->reg, x, s->N, s->cols, f, grad, err);
    if (s->o.generic_reg)
        return cs_reg_eval(s->reg, x, 1, s->n, f, grad, err);
    return cs_reg_eval_fast(s->reg, x, 1, s->n, f, grad, err);
}

/* bin fast path with the gradient's norm from the same pass (FISTA's fg_gnorm) */
static int fgn_bin(void *ctx, const double *x, double *f, double *grad, double *gnorm,
                   cs_err *err)
{
    cs_solver *s = ctx;
    int rc = cs_reg_fast_eval(s->fast, x, s->n, f, grad, gnorm);
    if (rc)
        return cs_fail(err, rc, "%s: value or gradient is not finite", s->method);
    return CS_OK;
}

/* ℓequ for B = 2 blocks y1, y2 (h = 1, 4): K·N·Σ y⁴ − (Σ_b 4^{b−1}‖y_b‖²)², K = 17. */
static void equ2(const double *y, size_t N, double *f, double *grad)
{
    const double K = 17.0;
    double s4 = 0.0, S = 0.0;
    for (size_t b = 0; b < 2; b++) {
        double h = b ? 4.0 : 1.0;
        for (size_t i = 0; i < N; i++) {
            double v = y[b * N + i], v2 = v * v;
            s4 += v2 * v2;
            S += h * v2;
        }
    }
    *f = K * (double)N * s4 - S * S;
    if (grad)
        for (size_t b = 0; b < 2; b++) {
            double h = b ? 4.0 : 1.0;
            for (size_t i = 0; i < N; i++) {
                double v = y[b * N + i];
                grad[b * N + i] = 4.0 * v * (K * (double)N * v * v - h * S);
            }
        }
}

static int fg_2bit(void *ctx, const double *y, double *f, double *grad, cs_err *err)
{
    cs_solver *s = ctx;
    size_t N = s->N, M = cs_problem_M(s->prob);
    const double *A = cs_problem_A(s->prob), *b = cs_problem_b(s->prob);
    double *x = s->xhat, *r = s->rtmp;
    for (size_t i = 0; i < N; i++)
        x[i] = y[i] + y[N + i];
    double rr = 0.0;
    for (size_t i = 0; i < M; i++) {
        double v = -b[i];
        for (size_t j = 0; j < N; j++)
            v += A[i * N + j] * x[j];
        r[i] = v;
        rr += v * v;
    }
    double fe;
    equ2(y, N, &fe, grad);
    *f = rr + s->lambda * fe;
    if (grad) {
        for (size_t i = 0; i < 2 * N; i++)
            grad[i] *= s->lambda;
        for (size_t j = 0; j < N; j++) {
            double g = 0.0;
            for (size_t i = 0; i < M; i++)
                g += A[i * N + j] * r[i];
            grad[j] += 2.0 * g;
            grad[N + j] += 2.0 * g;
        }
    }
    if (!isfinite(*f))
        return cs_fail(err, CS_ENONFINITE, "objective is not finite");
    return CS_OK;
}

static int fg_maxcut(void *ctx, const double *x, double *f, double *grad, cs_err *err)
{
    cs_solver *s = ctx;
    const cs_graph *g = cs_problem_graph(s->prob);
    double fr;
    int rc = cs_reg_eval(s->reg, x, 1, s->n, &fr, grad ? s->gtmp : NULL, err);
    if (rc)
        return rc;
    *f = -cs_graph_cut(g, x) + s->lambda * fr;
    if (grad) {
        cs_graph_cut_grad(g, x, grad);
        for (size_t i = 0; i < s->n; i++)
            grad[i] = -grad[i] + s->lambda * s->gtmp[i];
    }
    return CS_OK;
}

static void prox_affine(void *ctx, const double *z, double *x, double t)
{
    (void)t;
    cs_solver *s = ctx;
    cs_affine_project(cs_problem_affine(s->prob), z, x);
    for (size_t i = s->nx; i < s->n; i++)
        x[i] = z[i];
}

static void dir_affine(void *ctx, const double *g, double *d)
{
    cs_solver *s = ctx;
    cs_affine_project_dir(cs_problem_affine(s->prob), g, d);
    for (size_t i = s->nx; i < s->n; i++)
        d[i] = g[i];
}

static void project_affine(void *ctx, const double *z, double *x) { prox_affine(ctx, z, x, 0); }

static void prox_box(void *ctx, const double *z, double *x, double t)
{
    (void)t;
    cs_solver *s = ctx;
    memcpy(x, z, s->n * sizeof *x);
    cs_proj_box(x, s->n, -1.0, 1.0);
}

static int maxcut_hit(cs_solver *s, const double *x)
{
    const cs_graph *g = cs_problem_graph(s->prob);
    double best = cs_graph_known_best(g);
    if (isnan(best) || cs_graph_cut(g, x) < best)
        return 0;
    double dd = 0.0, xx = 0.0;
    for (size_t i = 0; i < s->n; i++) {
        double sg = x[i] > 0 ? 1.0 : (x[i] < 0 ? -1.0 : 0.0);
        dd += (x[i] - sg) * (x[i] - sg);
        xx += x[i] * x[i];
    }
    return xx > 0.0 && sqrt(dd / xx) < s->tol_ok;
}

/* x part of the variable (2bit: y1 + y2) into s->xhat; returns it. */
static const double *x_part(cs_solver *s, const double *v)
{
    if (s->kind == CS_PROB_2BIT) {
        for (size_t i = 0; i < s->N; i++)
            s->xhat[i] = v[i] + v[s->N + i];
        return s->xhat;
    }
    return v;
}

static int oracle(void *ctx, const double *x, double *metric)
{
    cs_solver *s = ctx;
    if (s->kind == CS_PROB_MAXCUT) {
        *metric = NAN;
        return maxcut_hit(s, x);
    }
    if (s->xstar) {
        double d = sqrt(cs_vec_dist2(x, s->xstar, s->nx));
        *metric = s->xstar_norm > 0.0 ? d / s->xstar_norm : d;
        return *metric < s->tol_ok;
    }
    const double *xp = x_part(s, x);
    *metric = cs_problem_rel_err(s->prob, xp);
    if (s->kind == CS_PROB_ORTH)
        return cs_problem_orth_err(s->prob, xp) < s->tol_ok;
    return *metric < s->tol_ok;
}

/* ---------------------------------------------------------------- setup */

void cs_solver_free(cs_solver *s)
{
    if (!s)
        return;
    cs_reg_free(s->reg);
    cs_fista_free(s->fista);
    for (int k = 0; k < s->npool; k++)
        cs_fista_free(s->pool[k]);
    free(s->pool);
    cs_dr_free(s->dr);
    free(s->x0);
    free(s->xhat);
    free(s->gtmp);
    free(s->rtmp);
    free(s->trace);
    free(s);
}

static int setup_reg(cs_solver *s, const char *method, cs_err *err)
{
    int rc = cs_method_reg_new(&s->reg, method, s->prob, s->seed, err);
    if (rc)
        return rc;
    const cs_reg_info *info = cs_reg_get_info(s->reg);
    if (s->kind == CS_PROB_ORTH && !info->matrix_arg)
        return cs_fail(err, CS_EINVAL,
                       "problem orth needs a matrix regularizer (om), not %s", info->name);
    if (s->kind != CS_PROB_ORTH && info->matrix_arg)
        return cs_fail(err, CS_EINVAL, "regularizer %s takes a matrix; use it with orth",
                       info->name);
    s->extra = cs_reg_extra(s->reg);
    if (s->extra && (s->kind == CS_PROB_ORTH || s->kind == CS_PROB_MAXCUT))
        return cs_fail(err, CS_EINVAL, "regularizer %s has auxiliary variables; not for %s",
                       info->name, cs_problem_kind_name(s->kind));
    return CS_OK;
}

/* The fast kernels this solver has: bin, osb and ter without parameters. */
static cs_reg_kernel fast_kernel(const cs_solver *s)
{
    cs_reg_kernel k = cs_reg_kernel_of(s->reg);
    if (s->o.generic_reg || s->kind == CS_PROB_MAXCUT || s->kind == CS_PROB_ORTH)
        return CS_REG_KERNEL_NONE;
    return cs_reg_fast_has(k) ? k : CS_REG_KERNEL_NONE;
}

int cs_solver_new(cs_solver **out, cs_problem *prob, const char *method,
                  const cs_solve_opts *opts, uint64_t seed, uint64_t stream, cs_err *err)
{
    *out = NULL;
    if (!prob)
        return cs_fail(err, CS_ESTATE, "no problem (create one with `problem`)");
    cs_solver *s = calloc(1, sizeof *s);
    if (!s)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    if (opts)
        s->o = *opts;
    s->prob = prob;
    s->kind = cs_problem_kind(prob);
    s->seed = seed;
    s->stream = stream;
    s->N = cs_problem_N(prob);
    s->cols = cs_problem_cols(prob);
    s->nx = s->N * s->cols;
    s->tol_ok = s->o.success_tol > 0 ? s->o.success_tol : 1e-2;
    if (s->cols == 1 && s->kind != CS_PROB_2BIT && s->kind != CS_PROB_MAXCUT &&
        s->kind != CS_PROB_ORTH) {
        s->xstar = cs_problem_xstar(prob);
        s->xstar_norm = cs_problem_xstar_norm(prob);
    }
    const cs_kind_defaults *kd = cs_kind_defaults_of(s->kind);
    if (!method || !*method)
        method = kd->method;
    int rc = cs_method_canonical(method, s->method, sizeof s->method, err);
    if (rc)
        goto fail;
    snprintf(s->name, sizeof s->name, "%.*s", (int)strcspn(s->method, ":"), s->method);
    const cs_reg_info *info = cs_reg_lookup(s->name);
    if (!info) {
        rc = cs_fail_key(err, CS_ENOTFOUND, "reg", "unknown regularizer '%s'", s->name);
        goto fail;
    }
    int has_params = strchr(s->method, ':') != NULL;
    cs_algo algo = s->o.algo;
    if (algo < CS_ALGO_AUTO || algo > CS_ALGO_DR) {
        rc = cs_fail(err, CS_EINVAL, "unknown algorithm %d", algo);
        goto fail;
    }
    if (algo == CS_ALGO_AUTO)
        algo = info->prox && !has_params ? CS_ALGO_DR : CS_ALGO_FISTA;
    s->algo = algo;
    if (algo == CS_ALGO_DR) {
        if (!info->prox || has_params) {
            rc = cs_fail_key(err, CS_EINVAL, "method",
                             "method=dr solves linf or l1, not %s", method);
            goto fail;
        }
        if (!cs_problem_affine(prob) || s->cols != 1) {
            rc = cs_fail(err, CS_EINVAL, "Douglas-Rachford needs a bin, osb, ter or eig problem");
            goto fail;
        }
    }
    if (s->kind == CS_PROB_2BIT && !cs_method_same(method, kd->method)) {
        rc = cs_fail(err, CS_EINVAL, "problem 2bit is solved with %s (B=2), not %s", kd->method,
                     method);
        goto fail;
    }
    s->n = s->kind == CS_PROB_2BIT ? 2 * s->N : s->nx;
    if (algo == CS_ALGO_FISTA && s->kind != CS_PROB_2BIT) {
        rc = setup_reg(s, method, err);
        if (rc)
            goto fail;
        s->n += s->extra;
        s->fast = fast_kernel(s);
    }
    s->maxit = s->o.maxit > 0 ? s->o.maxit : kd->maxit;
    if (algo == CS_ALGO_DR)
        s->max_starts = 1;
    else
        s->max_starts = s->o.restarts > 0 ? s->o.restarts : kd->starts;
    s->lambda = kd->lambda;
    if (s->kind == CS_PROB_MAXCUT && !isnan(cs_graph_lambda(cs_problem_graph(prob))))
        s->lambda = cs_graph_lambda(cs_problem_graph(prob));
    if (!isnan(s->lambda) && s->o.lambda > 0)
        s->lambda = s->o.lambda;
    if (s->o.stop < CS_STOP_ORACLE || s->o.stop > CS_STOP_MAXIT) {
        rc = cs_fail(err, CS_EINVAL, "unknown stopping rule %d", s->o.stop);
        goto fail;
    }
    s->x0 = malloc(s->n * sizeof *s->x0);
    s->xhat = malloc((s->nx > s->N ? s->nx : s->N) * sizeof *s->xhat);
    s->gtmp = malloc(s->n * sizeof *s->gtmp);
    s->rtmp = malloc((cs_problem_M(prob) + 1) * sizeof *s->rtmp);
    if (!s->x0 || !s->xhat || !s->gtmp || !s->rtmp) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto fail;
    }
    double tol = s->o.tol > 0 ? s->o.tol : 1e-8;
    if (algo == CS_ALGO_DR) {
        cs_dr_opts dopt;
        cs_dr_opts_default(&dopt, info->prox == CS_REG_PROX_L1 ? CS_DR_L1 : CS_DR_LINF);
        if (s->o.dr_t > 0)
            dopt.t = s->o.dr_t;
        dopt.maxit = s->maxit;
        dopt.stop = s->o.stop;
        dopt.tol = tol;
        /* the error of every iterate is needed to stop on it or to trace it */
        cs_dr_fns fns = {.ctx = s, .project = project_affine,
                         .oracle = s->o.stop == CS_STOP_ORACLE || s->o.trace ? oracle : NULL};
        rc = cs_dr_new(&s->dr, s->n, &fns, &dopt, err);
    } else {
        cs_fista_opts fo;
        cs_fista_opts_default(&fo);
        cs_mode mode = s->o.mode == CS_MODE_DEFAULT ? kd->mode : s->o.mode;
        fo.accelerate = mode == CS_MODE_ACCEL;
        fo.adaptive = mode == CS_MODE_ADAPTIVE;
        fo.maxit = s->maxit;
        fo.stop = s->o.stop;
        fo.tol = tol;
        cs_fista_fns fns = {.ctx = s, .oracle = oracle};
        switch (s->kind) {
        case CS_PROB_2BIT:
            fns.fg = fg_2bit;
            break;
        case CS_PROB_MAXCUT:
            fns.fg = fg_maxcut;
            fns.prox = prox_box;
            break;
        default:
            fns.fg = fg_reg;
            if (s->fast == CS_REG_KERNEL_BIN)
                fns.fg_gnorm = fgn_bin;
            fns.prox = prox_affine;
            fns.dir = dir_affine;
            if (s->xstar && s->xstar_norm > 0.0 && s->n == s->nx) {
                fns.xstar = s->xstar; /* the oracle, measured in FISTA's own pass */
                fns.xstar_norm = s->xstar_norm;
                fns.oracle_tol = s->tol_ok;
            }
        }
        s->ffns = fns;
        s->fopts = fo;
        rc = cs_fista_new(&s->fista, s->n, &fns, &fo, err);
    }
    if (rc)
        goto fail;
    rc = cs_solver_reset(s, err);
    if (rc)
        goto fail;
    *out = s;
    return CS_OK;
fail:
    cs_solver_free(s);
    return rc;
}

int cs_solver_reset(cs_solver *s, cs_err *err)
{
    (void)err;
    cs_rng_init(&s->rng, s->seed, s->stream);
    s->start = 0;
    s->in_start = 0;
    s->done = 0;
    s->success = 0;
    s->iters = 0;
    s->last_iters = 0;
    s->seconds = 0.0;
    s->end = CS_END_RUNNING;
    s->have_result = 0;
    s->ntrace = 0;
    memset(&s->res, 0, sizeof s->res);
    return CS_OK;
}

/* ---------------------------------------------------------------- steps */

static int begin_start(cs_solver *s, cs_err *err)
{
    double *x0 = s->x0;
    size_t n = s->n, nx = s->nx;
    s->start++;
    s->last_iters = 0;
    if (s->algo == CS_ALGO_DR) {
        cs_rng_normal_fill(&s->rng, x0, n);
        return cs_dr_start(s->dr, x0, err);
    }
    int feasible = 1;
    switch (s->kind) {
    case CS_PROB_2BIT:
        cs_rng_normal_fill(&s->rng, x0, n);
        break;
    case CS_PROB_ORTH: {
        int rc = cs_random_orthonormal(&s->rng, s->N, s->cols, x0, err);
        if (rc)
            return rc;
        feasible = 0;
        break;
    }
    case CS_PROB_MAXCUT:
        cs_rng_normal_fill(&s->rng, x0, n);
        for (size_t i = 0; i < n; i++)
            x0[i] = x0[i] > 0 ? 1.0 : (x0[i] < 0 ? -1.0 : 0.0);
        break;
    default: {
        cs_rng_normal_fill(&s->rng, x0, nx);
        double r2 = 0.0;
        for (size_t i = 0; i < nx; i++)
            r2 += x0[i] * x0[i];
        for (size_t i = nx; i < n; i++)
            x0[i] = r2 / (double)nx;
        if ((s->kind == CS_PROB_OSB || s->kind == CS_PROB_TER) && s->start == 1) {
            feasible = 0;
        } else {
            cs_affine_project(cs_problem_affine(s->prob), x0, x0);
        }
    }
    }
    if (s->kind == CS_PROB_MAXCUT)
        s->res.cut_start = cs_graph_cut(cs_problem_graph(s->prob), x0);
    return cs_fista_start(s->fista, x0, feasible, &s->rng, err);
}

static void append_trace(cs_solver *s, const cs_trace_rec *r)
{
    if (!s->o.trace)
        return;
    if (s->ntrace == s->captrace) {
        size_t cap = s->captrace ? 2 * s->captrace : 1024;
        cs_trace_rec *t = realloc(s->trace, cap * sizeof *t);
        if (!t)
            return; /* trace is best effort; the run goes on */
        s->trace = t;
        s->captrace = cap;
    }
    s->trace[s->ntrace] = *r;
    s->trace[s->ntrace].start = s->start;
    s->ntrace++;
}

/* Errors, cuts and success of the solution v of a start, into r. */
static int judge(cs_solver *s, const double *v, cs_solve_result *r)
{
    const double *xp = x_part(s, v);
    int ok;
    r->rel_err = cs_problem_rel_err(s->prob, xp);
    r->orth_err = cs_problem_orth_err(s->prob, xp);
    r->cut = r->cut_rounded = NAN;
    if (s->kind == CS_PROB_MAXCUT) {
        const cs_graph *g = cs_problem_graph(s->prob);
        r->cut = cs_graph_cut(g, v);
        for (size_t i = 0; i < s->N; i++)
            s->gtmp[i] = v[i] > 0 ? 1.0 : (v[i] < 0 ? -1.0 : 0.0);
        r->cut_rounded = cs_graph_cut(g, s->gtmp);
        ok = maxcut_hit(s, v);
    } else if (s->kind == CS_PROB_ORTH) {
        ok = r->orth_err <= s->tol_ok;
    } else {
        ok = r->rel_err <= s->tol_ok;
    }
    return ok;
}

/* The finished start's solution, success and result fields. */
static void finish_start(cs_solver *s)
{
    const double *v = s->algo == CS_ALGO_DR ? cs_dr_x(s->dr) : cs_fista_best(s->fista);
    cs_solve_result *r = &s->res;
    s->success = judge(s, v, r);
    if (s->algo == CS_ALGO_DR) {
        r->objective = cs_dr_last(s->dr)->objective;
        s->end = cs_dr_end(s->dr);
    } else {
        r->objective = cs_fista_best_objective(s->fista);
        s->end = cs_fista_end(s->fista);
    }
    s->have_result = 1;
    s->in_start = 0;
    if (s->success || s->start >= s->max_starts)
        s->done = 1;
}

/* Up to n steps; with check_cancel (solve) also returns at the end of a start. */
static int step_n(cs_solver *s, long n, long *done_steps, int check_cancel, cs_err *err)
{
    long k = 0;
    int rc = CS_OK;
    double t0 = cs_now();
    while (k < n && !s->done && !(check_cancel && k > 0 && !s->in_start)) {
        if (!s->in_start) {
            rc = begin_start(s, err);
            if (rc)
                break;
            s->in_start = 1;
        }
        int st;
        if (s->algo == CS_ALGO_DR) {
            st = cs_dr_step(s->dr, err);
            if (st >= 0)
                append_trace(s, cs_dr_last(s->dr));
        } else {
            st = cs_fista_step(s->fista, err);
            if (st >= 0)
                append_trace(s, cs_fista_last(s->fista));
        }
        if (st < 0) {
            rc = st;
            break;
        }
        k++;
        s->iters++;
        s->last_iters++;
        if (st == 1)
            finish_start(s);
        if (check_cancel && (k & 255) == 0 && cs_cancelled(s->o.cancel)) {
            rc = cs_fail(err, CS_ECANCEL, "interrupted");
            break;
        }
    }
    s->seconds += cs_now() - t0;
    if (done_steps)
        *done_steps = k;
    return rc;
}

int cs_solver_step(cs_solver *s, long n, long *done_steps, cs_err *err)
{
    if (n < 0)
        return cs_fail(err, CS_EINVAL, "n=%ld must be nonnegative", n);
    return step_n(s, n, done_steps, 0, err);
}

/* Restarts in lockstep: when the first start of a solve has failed, the
 * remaining ones begin in order from the same stream (so with the same start
 * points and L estimates as one after another), step together so that their
 * P₀ images share each pass over the projection basis, and the run ends as
 * the sequential one would: at the first start that succeeds, every earlier
 * one having failed, counting only those starts' iterations. Traces and
 * problems without the affine fast path keep the sequential loop. */
static int lockstep_ok(const cs_solver *s)
{
    return s->algo == CS_ALGO_FISTA && s->ffns.dir && !s->o.trace && !s->o.sequential_starts &&
           s->start >= 1 && !s->in_start && !s->done && s->max_starts - s->start >= 2;
}

static void dir_many(cs_solver *s, size_t m, const double **g, double **d)
{
    cs_affine_project_dir_many(cs_problem_affine(s->prob), m, g, d);
    for (size_t k = 0; k < m; k++)
        for (size_t i = s->nx; i < s->n; i++)
            d[k][i] = g[k][i];
}

typedef struct lane {
    long iters;
    int state;   /* 0 running, 1 failed, 2 succeeded */
    cs_rng rng;  /* the stream after this start's draws */
} lane;

/* Begin the starts after the current one, each in its own FISTA. */
static int lockstep_begin(cs_solver *s, int K, lane *ln, cs_err *err)
{
    if (s->npool < K) {
        cs_fista **p = realloc(s->pool, (size_t)K * sizeof *p);
        if (!p)
            return cs_fail(err, CS_ENOMEM, "out of memory");
        s->pool = p;
        for (; s->npool < K; s->npool++) {
            int rc = cs_fista_new(&s->pool[s->npool], s->n, &s->ffns, &s->fopts, err);
            if (rc)
                return rc;
        }
    }
    cs_fista *keep = s->fista;
    int rc = CS_OK;
    for (int k = 0; k < K && !rc; k++) {
        s->fista = s->pool[k];
        rc = begin_start(s, err);
        ln[k] = (lane){.iters = 0, .state = 0, .rng = s->rng};
    }
    s->fista = keep;
    return rc;
}

/* Make lane k the solver's current start (its FISTA, iterations, stream). */
static void lockstep_adopt(cs_solver *s, int base, int k, const lane *ln)
{
    cs_fista *t = s->fista;
    s->fista = s->pool[k];
    s->pool[k] = t;
    for (int j = 0; j <= k; j++)
        s->iters += ln[j].iters;
    s->start = base + k + 1;
    s->last_iters = ln[k].iters;
    s->rng = ln[k].rng;
}

static int lockstep_starts(cs_solver *s, cs_err *err)
{
    int K = s->max_starts - s->start, base = s->start, first = K, m, rc;
    lane *ln = malloc((size_t)K * sizeof *ln);
    const double **g = malloc((size_t)K * sizeof *g);
    double **d = malloc((size_t)K * sizeof *d);
    int *idx = malloc((size_t)K * sizeof *idx);
    if (!ln || !g || !d || !idx) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto out;
    }
    double t0 = cs_now();
    rc = lockstep_begin(s, K, ln, err);
    if (rc)
        goto out; /* as the sequential run: the start that failed to begin ends the solve */
    for (long round = 1; !rc; round++) {
        m = 0;
        for (int k = 0; k < first && !rc; k++)
            if (ln[k].state == 0) {
                rc = cs_fista_step_begin(s->pool[k], &g[m], &d[m], err);
                idx[m++] = k;
            }
        if (rc || m == 0)
            break;
        dir_many(s, (size_t)m, g, d);
        for (int q = 0; q < m && !rc; q++) {
            int k = idx[q], st = cs_fista_step_end(s->pool[k], err);
            if (st < 0) {
                rc = st;
                break;
            }
            ln[k].iters++;
            if (st == 1) {
                cs_solve_result tmp;
                ln[k].state = judge(s, cs_fista_best(s->pool[k]), &tmp) ? 2 : 1;
                if (ln[k].state == 2 && k < first)
                    first = k;
            }
        }
        if (!rc && (round & 255) == 0 && cs_cancelled(s->o.cancel))
            rc = cs_fail(err, CS_ECANCEL, "interrupted");
    }
    if (rc) {
        /* Keep the earliest unfinished start as the current one: stepping on
         * continues exactly as the sequential run would. */
        int k = 0;
        while (k < K - 1 && ln[k].state == 1)
            k++;
        lockstep_adopt(s, base, k, ln);
        s->in_start = ln[k].state == 0;
        if (!s->in_start)
            finish_start(s);
    } else {
        lockstep_adopt(s, base, first < K ? first : K - 1, ln);
        finish_start(s);
    }
    s->seconds += cs_now() - t0;
out:
    free(ln);
    free(g);
    free(d);
    free(idx);
    return rc;
}

int cs_solver_solve(cs_solver *s, cs_solve_result *res, cs_err *err)
{
    int rc = CS_OK;
    while (!s->done && !rc) {
        if (cs_cancelled(s->o.cancel)) {
            rc = cs_fail(err, CS_ECANCEL, "interrupted");
            break;
        }
        rc = lockstep_ok(s) ? lockstep_starts(s, err) : step_n(s, 1L << 20, NULL, 1, err);
    }
    if (res)
        cs_solver_result(s, res);
    return rc;
}

int cs_solver_done(const cs_solver *s) { return s->done; }

void cs_solver_result(const cs_solver *s, cs_solve_result *res)
{
    *res = s->res;
    if (!s->have_result) {
        res->rel_err = res->orth_err = res->objective = NAN;
        res->cut = res->cut_rounded = NAN;
    }
    if (s->kind != CS_PROB_MAXCUT)
        res->cut_start = NAN;
    res->done = s->done;
    res->success = s->success;
    res->iters = s->iters;
    res->last_iters = s->last_iters;
    res->starts = s->start;
    res->end = s->in_start ? CS_END_RUNNING : s->end;
    res->seconds = s->seconds;
}

const double *cs_solver_x(cs_solver *s, size_t *n)
{
    if (n)
        *n = s->nx;
    if (s->start == 0)
        return NULL;
    const double *v = s->algo == CS_ALGO_DR ? cs_dr_x(s->dr) : cs_fista_best(s->fista);
    return x_part(s, v);
}

const double *cs_solver_iterate(const cs_solver *s, size_t *n)
{
    if (n)
        *n = s->n;
    if (s->start == 0)
        return NULL;
    return s->algo == CS_ALGO_DR ? cs_dr_x(s->dr) : cs_fista_current(s->fista);
}

const double *cs_solver_start_point(const cs_solver *s, size_t *n)
{
    /* s->x0 is written only by begin_start */
    if (n)
        *n = s->n;
    return s->start == 0 ? NULL : s->x0;
}

const cs_trace_rec *cs_solver_trace(const cs_solver *s, size_t *len)
{
    *len = s->ntrace;
    return s->trace;
}

const char *cs_solver_method(const cs_solver *s) { return s->method; }
cs_algo cs_solver_algo(const cs_solver *s) { return s->algo; }
long cs_solver_maxit(const cs_solver *s) { return s->maxit; }
int cs_solver_max_starts(const cs_solver *s) { return s->max_starts; }
double cs_solver_lambda(const cs_solver *s) { return s->lambda; }
