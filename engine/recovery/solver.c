/* solver.c — problem + method → FISTA / Douglas–Rachford with restarts. */
#include "solver_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_clock.h"
#include "cs_method.h"
#include "cs_proj.h"


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

void cs_kind_method(cs_kind kind, cs_method *out)
{
    /* a built-in's plain name: parses */
    cs_method_parse(out, cs_kind_defaults_of(kind)->method, NULL);
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

const char *cs_fit_name(cs_fit fit)
{
    return fit == CS_FIT_AFFINE ? "affine" : fit == CS_FIT_LS ? "ls" : "?";
}

int cs_fit_parse(const char *name, cs_fit *fit, cs_err *err)
{
    for (cs_fit f = CS_FIT_AFFINE; f <= CS_FIT_LS; f++)
        if (name && !strcmp(name, cs_fit_name(f))) {
            *fit = f;
            return CS_OK;
        }
    return cs_fail_key(err, CS_EINVAL, "fit", "fit=%s: expected affine or ls", name ? name : "");
}

/* ---------------------------------------------------------------- setup */

/* The rule stop=oracle means without x* (cs_solver.h). */
static cs_stop blind_stop(const cs_solver *s)
{
    return s->o.fit == CS_FIT_LS ? CS_STOP_HYBRID : CS_STOP_NORMALIZED;
}

/* fit=ls: the kinds with A and an ℓ of x alone, on FISTA. */
static int check_fit(cs_solver *s, cs_err *err)
{
    if (s->o.fit == CS_FIT_AFFINE)
        return CS_OK;
    if (s->o.fit != CS_FIT_LS)
        return cs_fail_key(err, CS_EINVAL, "fit", "unknown fit %d", (int)s->o.fit);
    if (s->kind != CS_PROB_BIN && s->kind != CS_PROB_OSB && s->kind != CS_PROB_TER &&
        s->kind != CS_PROB_EIG)
        return cs_fail_key(err, CS_EINVAL, "fit", "fit=ls is for bin, osb, ter and eig problems, "
                           "not %s%s", cs_problem_kind_name(s->kind),
                           s->kind == CS_PROB_2BIT ? " (2bit fits ‖A(y1 + y2) − b‖² already)"
                                                   : "");
    if (s->o.algo == CS_ALGO_DR)
        return cs_fail_key(err, CS_EINVAL, "fit", "fit=ls runs FISTA: Douglas-Rachford solves "
                           "only on Ax = b (fit=affine)");
    return CS_OK;
}

void cs_solver_free(cs_solver *s)
{
    if (!s)
        return;
    cs_reg_free(s->reg);
    cs_fista_free(s->fista);
    solver_gram_free(s->gram);
    for (int k = 0; k < s->npool; k++)
        cs_fista_free(s->pool[k]);
    free(s->pool);
    cs_dr_free(s->dr);
    free(s->x0);
    free(s->xhat);
    free(s->gtmp);
    free(s->rtmp);
    free(s->trace);
    free(s->ledger);
    free(s->path);
    free(s->path_start);
    free(s->start_x);
    free(s);
}

static int setup_reg(cs_solver *s, cs_err *err)
{
    int rc = cs_method_reg_new(&s->reg, &s->m, s->prob, s->seed, err);
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

/* Whether the objective is the regularizer's fused kernel (cs_reg_fast.h):
 * the instance has one, and the problem's objective is ℓ alone. */
static int use_fast(const cs_solver *s)
{
    if (s->o.generic_reg || s->kind == CS_PROB_MAXCUT || s->kind == CS_PROB_ORTH)
        return 0;
    return cs_reg_fast_has(s->reg);
}

/* FISTA's callbacks on x for bin, osb, ter and eig problems: the affine
 * fast path, with the oracle in the candidate pass where x* allows. */
static cs_fista_fns affine_fns(cs_solver *s)
{
    cs_fista_fns fns = {.ctx = s, .oracle = solver_oracle, .fg = solver_fg_reg,
                        .prox = solver_prox_affine, .dir = solver_dir_affine};
    if (s->fast)
        fns.fg_gnorm = solver_fgn_fast;
    if (s->xstar && s->xstar_norm > 0.0 && s->n == s->nx) {
        fns.xstar = s->xstar; /* the oracle, measured in FISTA's own pass */
        fns.xstar_norm = s->xstar_norm;
        fns.oracle_tol = s->tol_ok;
    }
    return fns;
}

/* Back to FISTA on x (a caller's start point, a stopping rule that needs
 * the gradient on x): before the first start only. */
static int gram_off(cs_solver *s, cs_err *err)
{
    if (!s->gram)
        return CS_OK;
    if (s->start > 0)
        return cs_fail(err, CS_ESTATE, "this solve has begun on the affine set's coordinates; "
                                       "reset it first");
    cs_fista *f;
    s->ffns = affine_fns(s);
    int rc = cs_fista_new(&f, s->n, &s->ffns, &s->fopts, err);
    if (rc)
        return rc;
    cs_fista_free(s->fista);
    s->fista = f;
    solver_gram_free(s->gram);
    s->gram = NULL;
    return CS_OK;
}

int cs_solver_new(cs_solver **out, cs_problem *prob, const cs_method *method,
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
    s->blind = s->kind != CS_PROB_MAXCUT && !cs_problem_xstar(prob);
    const cs_kind_defaults *kd = cs_kind_defaults_of(s->kind);
    if (method)
        s->m = *method;
    else
        cs_kind_method(s->kind, &s->m);
    int rc = CS_OK;
    const cs_reg_info *info = s->m.info;
    if (!info) {
        rc = cs_fail(err, CS_EINVAL, "empty method");
        goto fail;
    }
    int has_params = s->m.nparams > 0;
    if ((rc = check_fit(s, err)))
        goto fail;
    cs_algo algo = s->o.algo;
    if (algo < CS_ALGO_AUTO || algo > CS_ALGO_DR) {
        rc = cs_fail(err, CS_EINVAL, "unknown algorithm %d", algo);
        goto fail;
    }
    if (algo == CS_ALGO_AUTO)
        algo = info->prox && !has_params && s->o.fit == CS_FIT_AFFINE ? CS_ALGO_DR
                                                                       : CS_ALGO_FISTA;
    s->algo = algo;
    if (algo == CS_ALGO_DR) {
        if (!info->prox || has_params) {
            rc = cs_fail_key(err, CS_EINVAL, "method",
                             "method=dr solves linf or l1, not %s", s->m.text);
            goto fail;
        }
        if (!cs_problem_affine(prob) || s->cols != 1) {
            rc = cs_fail(err, CS_EINVAL, "Douglas-Rachford needs a bin, osb, ter or eig problem");
            goto fail;
        }
    }
    if (s->kind == CS_PROB_2BIT) {
        cs_method own;
        cs_kind_method(s->kind, &own);
        if (!cs_method_same(&s->m, &own)) {
            rc = cs_fail(err, CS_EINVAL, "problem 2bit is solved with %s (B=2), not %s",
                         kd->method, s->m.text);
            goto fail;
        }
    }
    s->n = s->kind == CS_PROB_2BIT ? 2 * s->N : s->nx;
    if (algo == CS_ALGO_FISTA && s->kind != CS_PROB_2BIT) {
        rc = setup_reg(s, err);
        if (rc)
            goto fail;
        s->n += s->extra;
        s->fast = use_fast(s);
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
    if (s->o.fit == CS_FIT_LS)
        s->lambda = s->o.lambda > 0 ? s->o.lambda : CS_FIT_LS_LAMBDA;
    if (s->blind && s->o.stop == CS_STOP_ORACLE)
        s->o.stop = blind_stop(s);
    if (s->o.stop < CS_STOP_ORACLE || s->o.stop >= CS_STOP_COUNT) {
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
        cs_dr_fns fns = {.ctx = s, .project = solver_project_affine,
                         .oracle = s->o.stop == CS_STOP_ORACLE || s->o.trace ? solver_oracle : NULL};
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
        fo.ledger = s->o.trace;
        cs_fista_fns fns = {.ctx = s, .oracle = solver_oracle};
        switch (s->kind) {
        case CS_PROB_2BIT:
            fns.fg = solver_fg_2bit;
            break;
        case CS_PROB_MAXCUT:
            fns.fg = solver_fg_maxcut;
            fns.prox = solver_prox_box;
            break;
        default:
            if (s->o.fit == CS_FIT_LS) {
                fns = (cs_fista_fns){.ctx = s, .fg = solver_fg_ls, .oracle = solver_oracle};
                break;
            }
            if (solver_gram_eligible(s, mode)) {
                rc = solver_gram_new(&s->gram, s, err);
                if (rc)
                    goto fail;
            }
            if (s->gram)
                fns = (cs_fista_fns){.ctx = s, .fg = solver_fg_gram, .oracle = solver_oracle_gram};
            else
                fns = affine_fns(s);
        }
        s->ffns = fns;
        s->fopts = fo;
        rc = cs_fista_new(&s->fista, s->gram ? solver_gram_len(s->gram) : s->n, &fns, &fo, err);
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
    s->nledger = 0;
    s->npath = 0;
    memset(&s->res, 0, sizeof s->res);
    return CS_OK;
}

/* ---------------------------------------------------------------- steps */

/* Room for one more record after len in an array of capacity *cap:
 * the array (moved when it grew), or NULL when out of memory (the old one
 * stays valid; records are best effort, the run goes on). */
static void *grow(void *p, size_t *cap, size_t len, size_t size)
{
    if (len < *cap)
        return p;
    size_t c = *cap ? 2 * *cap : 1024;
    void *q = realloc(p, c * size);
    if (q)
        *cap = c;
    return q;
}

/* The last FISTA step's trial steps into the ledger (trace on). */
static void append_ledger(cs_solver *s)
{
    size_t n;
    const cs_trial_rec *t = cs_fista_trials(s->fista, &n);
    for (size_t i = 0; i < n; i++) {
        cs_trial_rec *l = grow(s->ledger, &s->capledger, s->nledger, sizeof *l);
        if (!l)
            return;
        s->ledger = l;
        l[s->nledger] = t[i];
        l[s->nledger++].start = s->start;
    }
}

static void append_trace(cs_solver *s, const cs_trace_rec *r)
{
    if (!s->o.trace)
        return;
    cs_trace_rec *t = grow(s->trace, &s->captrace, s->ntrace, sizeof *t);
    if (!t)
        return; /* trace is best effort; the run goes on */
    s->trace = t;
    s->trace[s->ntrace] = *r;
    s->trace[s->ntrace].start = s->start;
    s->ntrace++;
}

/* Up to n steps; with check_cancel (solve) also returns at the end of a start. */
static int step_n(cs_solver *s, long n, long *done_steps, int check_cancel, cs_err *err)
{
    long k = 0;
    int rc = CS_OK;
    double t0 = cs_now();
    while (k < n && !s->done && !(check_cancel && k > 0 && !s->in_start)) {
        if (!s->in_start) {
            rc = solver_begin_start(s, err);
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
            if (st >= 0) {
                append_trace(s, cs_fista_last(s->fista));
                if (s->o.trace)
                    append_ledger(s);
            }
        }
        if (st < 0) {
            rc = st;
            break;
        }
        if (s->o.path)
            solver_push_path(s, cs_solver_iterate(s, NULL));
        k++;
        s->iters++;
        s->last_iters++;
        if (st == 1)
            solver_finish_start(s);
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

int cs_solver_solve(cs_solver *s, cs_solve_result *res, cs_err *err)
{
    int rc = CS_OK;
    while (!s->done && !rc) {
        if (cs_cancelled(s->o.cancel)) {
            rc = cs_fail(err, CS_ECANCEL, "interrupted");
            break;
        }
        rc = solver_lockstep_ok(s) ? solver_lockstep_starts(s, err) : step_n(s, 1L << 20, NULL, 1, err);
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
        res->residual = res->target_dist = res->scale = NAN;
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
    const double *v =
        s->algo == CS_ALGO_DR ? cs_dr_x(s->dr) : solver_on_x(s, cs_fista_best(s->fista));
    return solver_x_part(s, v);
}

const double *cs_solver_iterate(const cs_solver *s, size_t *n)
{
    if (n)
        *n = s->n;
    if (s->start == 0)
        return NULL;
    return s->algo == CS_ALGO_DR ? cs_dr_x(s->dr) : solver_on_x(s, cs_fista_current(s->fista));
}

const double *cs_solver_start_point(const cs_solver *s, size_t *n)
{
    /* s->x0 is written only by solver_begin_start */
    if (n)
        *n = s->n;
    return s->start == 0 ? NULL : s->x0;
}

const cs_trace_rec *cs_solver_trace(const cs_solver *s, size_t *len)
{
    *len = s->ntrace;
    return s->trace;
}

const char *cs_solver_method(const cs_solver *s) { return s->m.canon; }
cs_algo cs_solver_algo(const cs_solver *s) { return s->algo; }
long cs_solver_maxit(const cs_solver *s) { return s->maxit; }
int cs_solver_max_starts(const cs_solver *s) { return s->max_starts; }
double cs_solver_lambda(const cs_solver *s) { return s->lambda; }
cs_fit cs_solver_fit(const cs_solver *s) { return s->o.fit; }

const cs_trial_rec *cs_solver_ledger(const cs_solver *s, size_t *len)
{
    *len = s->nledger;
    return s->ledger;
}

const double *cs_solver_path(const cs_solver *s, size_t *npoints, const int **start_of)
{
    *npoints = s->npath;
    if (start_of)
        *start_of = s->path_start;
    return s->path;
}

double cs_solver_max_residual(const cs_solver *s)
{
    if (s->start == 0)
        return NAN;
    return s->algo == CS_ALGO_DR ? cs_dr_max_residual(s->dr) : cs_fista_max_residual(s->fista);
}

int cs_solver_set_start(cs_solver *s, const double *x, size_t len, cs_err *err)
{
    if (!x) {
        free(s->start_x);
        s->start_x = NULL;
        return CS_OK;
    }
    int rc = gram_off(s, err);
    if (rc)
        return rc;
    if (len != s->n && (len != s->nx || s->kind == CS_PROB_2BIT))
        return cs_fail(err, CS_EDIM, "start point: %zu entries, the variable has %zu", len,
                       s->n);
    for (size_t i = 0; i < len; i++)
        if (!isfinite(x[i]))
            return cs_fail(err, CS_ENONFINITE, "start point: entry %zu is not finite", i + 1);
    if (!s->start_x && !(s->start_x = malloc(s->n * sizeof *s->start_x)))
        return cs_fail(err, CS_ENOMEM, "out of memory");
    memcpy(s->start_x, x, len * sizeof *x);
    if (len < s->n) {
        /* extra coordinates (β, μ) as a random start sets them: mean(x²) */
        double r2 = 0.0;
        for (size_t i = 0; i < len; i++)
            r2 += x[i] * x[i];
        for (size_t i = len; i < s->n; i++)
            s->start_x[i] = r2 / (double)len;
    }
    return CS_OK;
}

int cs_solver_begin(cs_solver *s, cs_err *err)
{
    if (s->in_start || s->done)
        return CS_OK;
    int rc = solver_begin_start(s, err);
    if (!rc)
        s->in_start = 1;
    return rc;
}

int cs_solver_rewind(cs_solver *s, long k, cs_err *err)
{
    if (s->start == 0)
        return cs_fail(err, CS_ESTATE, "nothing to rewind: no start has begun (step first)");
    if (k < 0 || k > s->last_iters)
        return cs_fail_key(err, CS_EINVAL, "K",
                           "rewind %ld: start %d is at iteration %ld (rewind takes 0..%ld)", k,
                           s->start, s->last_iters, s->last_iters);
    long target = s->iters - s->last_iters + k, done = 0;
    int start = s->start, rc = cs_solver_reset(s, err);
    if (!rc)
        rc = step_n(s, target, &done, 0, err);
    if (!rc && done != target)
        rc = cs_fail(err, CS_ESTATE, "rewind: the replay ended after %ld of %ld iterations",
                     done, target);
    /* at iteration 0 of a later start: begin it, as the next step would */
    if (!rc && s->start < start)
        rc = cs_solver_begin(s, err);
    return rc;
}

int cs_solver_set_stop(cs_solver *s, long maxit, cs_stop stop, double tol, cs_err *err)
{
    if (maxit <= 0)
        maxit = cs_kind_defaults_of(s->kind)->maxit;
    if (!(tol > 0))
        tol = 1e-8;
    if (s->blind && stop == CS_STOP_ORACLE)
        stop = blind_stop(s);
    int rc;
    if (s->algo == CS_ALGO_DR) {
        if (stop == CS_STOP_ORACLE && !s->o.trace && s->o.stop != CS_STOP_ORACLE)
            return cs_fail_key(err, CS_EUNSUPPORTED, "stop",
                               "stop=oracle: this Douglas-Rachford run measures no error");
        rc = cs_dr_set_stop(s->dr, maxit, stop, tol, err);
    } else {
        rc = solver_gram_stop_needs_x(stop) ? gram_off(s, err) : CS_OK;
        if (!rc)
            rc = cs_fista_set_stop(s->fista, maxit, stop, tol, err);
        for (int k = 0; !rc && k < s->npool; k++)
            rc = cs_fista_set_stop(s->pool[k], maxit, stop, tol, err);
        s->fopts.maxit = maxit;
        s->fopts.stop = stop;
        s->fopts.tol = tol;
    }
    if (rc)
        return rc;
    s->maxit = maxit;
    s->o.maxit = maxit;
    s->o.stop = stop;
    s->o.tol = tol;
    return CS_OK;
}
cs_stop cs_solver_stop(const cs_solver *s) { return s->o.stop; }
double cs_solver_tol(const cs_solver *s) { return s->o.tol > 0 ? s->o.tol : 1e-8; }
const cs_problem *cs_solver_problem(const cs_solver *s) { return s->prob; }
