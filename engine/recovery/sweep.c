/* sweep.c — parallel Monte-Carlo sweeps and MAX-CUT runs. */
#include "cs_sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_blas.h"
#include "cs_csv.h"
#include "cs_limits.h"
#include "cs_clock.h"
#include "cs_dist.h"
#include "cs_file.h"
#include "sweep_gpu.h"

/* ---------------------------------------------------------------- sweeps */

typedef struct trial_out {
    int finished;
    unsigned char *success;   /* per method */
    long *iters;
    int *starts;
    double *secs;
} trial_out;

typedef struct sweep_ctx {
    const cs_sweep_spec *sp;
    size_t *Ms, *Ks;          /* per grid point */
    double *gammas;
    unsigned char *succ;      /* [item][method] */
    long *iters;
    int *starts;
    double *secs;
    unsigned char *finished;  /* [item] */
    size_t *pending;          /* the items this run executes (the others were preloaded) */
    size_t npending;
    size_t gpu_done;          /* device=cuda: items finished so far */
} sweep_ctx;

/* The store could not keep a finished trial (a full disk under the
 * journal): marked by the key "store", so that the run ends as an
 * interrupted one with what finished (the mark travels with the error to
 * every MPI rank) rather than losing it. */
static void journal_failed(cs_err *err)
{
    if (err)
        snprintf(err->key, sizeof err->key, "store");
}

/* Item's outcomes to the live view (spec.on_trial), when there is one. */
static void report_trial(const sweep_ctx *c, size_t item, int preloaded)
{
    const cs_sweep_spec *sp = c->sp;
    if (!sp->on_trial)
        return;
    size_t nm = sp->nmethods, T = (size_t)sp->trials;
    cs_sweep_trial tr = {.point = item / T, .trial = (long)(item % T), .nmethods = nm,
                         .success = c->succ + item * nm, .iters = c->iters + item * nm,
                         .starts = c->starts + item * nm, .secs = c->secs + item * nm};
    sp->on_trial(sp->trial_user, &tr, preloaded);
}

static int sweep_item(void *vctx, size_t idx, cs_err *err)
{
    sweep_ctx *c = vctx;
    const cs_sweep_spec *sp = c->sp;
    size_t item = c->pending[idx];
    if (c->finished[item])
        return 0;   /* preloaded by this rank's journal (mpirun) */
    size_t g = item / (size_t)sp->trials;
    long t = (long)(item % (size_t)sp->trials);
    cs_problem_spec ps = {.kind = sp->kind, .N = sp->N, .M = c->Ms[g], .K = c->Ks[g],
                          .noise = sp->noise};
    uint64_t ts = cs_sweep_trial_stream(sp->N, c->Ms[g], c->Ks[g], t);
    cs_problem *prob;
    int rc = cs_problem_new(&prob, &ps, sp->seed, ts, err);
    if (rc)
        return rc;
    cs_solve_opts so = sp->solve;
    so.cancel = sp->cancel;
    so.trace = 0;
    size_t nm = sp->nmethods;
    for (size_t m = 0; m < nm && !rc; m++) {
        cs_solver *s;
        rc = cs_solver_new(&s, prob, &sp->methods[m], &so, sp->seed,
                           cs_sweep_method_stream(ts, &sp->methods[m]), err);
        if (rc)
            break;
        cs_solve_result r;
        rc = cs_solver_solve(s, &r, err);
        cs_solver_free(s);
        if (rc == CS_ECANCEL) {
            rc = 1;
            break;
        }
        if (rc)
            break;
        c->succ[item * nm + m] = (unsigned char)r.success;
        c->iters[item * nm + m] = r.iters;
        c->starts[item * nm + m] = r.starts;
        c->secs[item * nm + m] = r.seconds;
    }
    cs_problem_free(prob);
    if (rc == 0 && sp->store && sp->store->trial_done) {
        cs_sweep_trial tr = {.point = g, .trial = t, .nmethods = nm,
                             .success = c->succ + item * nm, .iters = c->iters + item * nm,
                             .starts = c->starts + item * nm, .secs = c->secs + item * nm};
        rc = sp->store->trial_done(sp->store->user, &tr, err);
        if (rc > 0)
            rc = -rc;
        if (rc)
            journal_failed(err);
    }
    if (rc == 0) {
        c->finished[item] = 1;
        report_trial(c, item, 0);
    }
    return rc;
}

/* Progress over the pending items; the point is that of the next item to start. */
static void sweep_progress(void *vctx, size_t done, size_t total)
{
    sweep_ctx *c = vctx;
    const cs_sweep_spec *sp = c->sp;
    if (sp->point && c->npending)
        sp->point(sp->progress_user,
                  c->pending[done < c->npending ? done : c->npending - 1] / (size_t)sp->trials,
                  sp->nvalues);
    if (sp->progress)
        sp->progress(sp->progress_user, done, total);
}

/* An item the GPU finished (cs_sweep_gpu_run, from the calling thread):
 * what sweep_item does after its solves. */
static int gpu_item_done(void *vctx, size_t item, cs_err *err)
{
    sweep_ctx *c = vctx;
    const cs_sweep_spec *sp = c->sp;
    size_t nm = sp->nmethods, g = item / (size_t)sp->trials;
    if (sp->store && sp->store->trial_done) {
        cs_sweep_trial tr = {.point = g, .trial = (long)(item % (size_t)sp->trials),
                             .nmethods = nm, .success = c->succ + item * nm,
                             .iters = c->iters + item * nm, .starts = c->starts + item * nm,
                             .secs = c->secs + item * nm};
        int rc = sp->store->trial_done(sp->store->user, &tr, err);
        if (rc) {
            journal_failed(err);
            return rc > 0 ? -rc : rc;
        }
    }
    c->finished[item] = 1;
    report_trial(c, item, 0);
    if (sp->progress || sp->point)
        sweep_progress(c, ++c->gpu_done, c->npending);
    return 0;
}

void cs_sweep_result_free(cs_sweep_result *r)
{
    if (!r)
        return;
    free(r->rows);
    free(r);
}

static size_t round_half_away(double v) { return (size_t)floor(v + 0.5); }

int cs_sweep_gpu_takes(const cs_sweep_spec *sp, cs_err *err)
{
    if (sp->noise != 0.0 || sp->solve.fit != CS_FIT_AFFINE)
        return cs_fail(err, CS_EUNSUPPORTED, "sweep device=cuda draws noiseless problems and "
                       "fits Ax = b: use device=cpu for noise= and fit=ls");
    if (cs_dist_size() > 1)
        return cs_fail(err, CS_EUNSUPPORTED,
                       "sweep device=cuda runs in one process, not under mpirun");
    return cs_sweep_gpu_check(sp, err);
}

static int validate(const cs_sweep_spec *sp, cs_err *err)
{
    int rc;
    if (sp->kind < 0 || sp->kind >= CS_PROB_COUNT)
        return cs_fail(err, CS_EINVAL, "unknown problem kind %d", (int)sp->kind);
    if (sp->kind == CS_PROB_MAXCUT)
        return cs_fail(err, CS_EINVAL, "sweep does not take maxcut (use the maxcut command)");
    if (sp->N == 0)
        return cs_fail(err, CS_EINVAL, "sweep needs N=");
    if (!sp->values || sp->nvalues == 0)
        return cs_fail(err, CS_EINVAL, "sweep needs a grid (gamma=, M= or K=)");
    if (sp->nvalues > 100000)
        return cs_fail(err, CS_EINVAL, "grid of %zu points is too large", sp->nvalues);
    if (!sp->methods || sp->nmethods == 0)
        return cs_fail(err, CS_EINVAL, "sweep needs methods=");
    if (sp->trials < 1 || sp->trials > 100000000L)
        return cs_fail(err, CS_EINVAL, "trials=%ld must be in [1, 1e8]", sp->trials);
    if (sp->axis < CS_AXIS_GAMMA || sp->axis > CS_AXIS_K)
        return cs_fail(err, CS_EINVAL, "unknown sweep axis");
    for (size_t m = 0; m < sp->nmethods; m++) {
        const cs_method *mt = &sp->methods[m];
        if (!mt->info || strlen(mt->text) >= sizeof(((cs_sweep_row *)0)->method))
            return cs_fail(err, CS_EINVAL, "method %zu is empty or too long", m + 1);
        rc = cs_method_check(mt, err);
        if (rc)
            return rc;
        for (size_t k = 0; k < m; k++)
            if (!strcmp(sp->methods[k].text, mt->text))
                return cs_fail(err, CS_EINVAL, "method %s is listed twice", mt->text);
    }
    if (sp->device != CS_DEVICE_CPU && sp->device != CS_DEVICE_CUDA)
        return cs_fail(err, CS_EINVAL, "device=%s: a sweep runs on cpu or cuda",
                       cs_device_name(sp->device));
    if (!(sp->noise >= 0.0) || !isfinite(sp->noise))
        return cs_fail(err, CS_EINVAL, "noise=%g must be a finite number >= 0", sp->noise);
    if (sp->device == CS_DEVICE_CUDA && (rc = cs_sweep_gpu_takes(sp, err)))
        return rc;
    if (sp->threads < 0 || sp->threads > CS_MAX_THREADS)
        return cs_fail(err, CS_EINVAL, "threads=%d must be in [0, %d]", sp->threads,
                       CS_MAX_THREADS);
    return CS_OK;
}

double cs_sweep_memory(const cs_sweep_spec *sp)
{
    double np = (double)sp->nvalues, nm = (double)sp->nmethods, T = (double)sp->trials;
    double items = np * T;
    /* per trial: success, iters, starts, seconds a method (twice under MPI:
     * the exchange's buffers), finished and pending */
    double outcomes = items * nm * (1 + 8 + 4 + 8) * (cs_dist_size() > 1 ? 2 : 1);
    double per_item = items * (1 + 8);
    /* per worker: its problem (A, M x N at most N x N) and the solver's copies */
    double N = (double)sp->N, threads = sp->threads > 0 ? sp->threads : cs_pool_cores();
    double workers = threads * 4.0 * N * N * 8;
    return outcomes + per_item + np * nm * (double)sizeof(cs_sweep_row) + workers;
}

int cs_sweep_run(const cs_sweep_spec *sp, cs_sweep_result **out, cs_err *err)
{
    *out = NULL;
    int rc = validate(sp, err);
    if (rc)
        return rc;
    size_t np = sp->nvalues, nm = sp->nmethods, T = (size_t)sp->trials;
    if (np * T > (size_t)1 << 31)
        return cs_fail(err, CS_EINVAL, "%zu grid points × %zu trials is too many", np, T);
    double need = cs_sweep_memory(sp);
    if (need > CS_MEMORY_BUDGET)
        return cs_fail_key(err, CS_ENOMEM, "trials", "sweep needs about %.1f GiB for %zu trials "
                           "of %zu method%s (their outcomes are kept), more than the budget of "
                           "%.0f GiB: fewer trials or grid points", need / CS_GIB, np * T, nm,
                           nm == 1 ? "" : "s", CS_MEMORY_BUDGET / CS_GIB);
    sweep_ctx c = {.sp = sp};
    c.Ms = calloc(np, sizeof *c.Ms);
    c.Ks = calloc(np, sizeof *c.Ks);
    c.gammas = calloc(np, sizeof *c.gammas);
    c.succ = calloc(np * T * nm, 1);
    c.iters = calloc(np * T * nm, sizeof *c.iters);
    c.starts = calloc(np * T * nm, sizeof *c.starts);
    c.secs = calloc(np * T * nm, sizeof *c.secs);
    c.finished = calloc(np * T, 1);
    c.pending = calloc(np * T, sizeof *c.pending);
    cs_sweep_result *res = calloc(1, sizeof *res);
    if (res)
        res->rows = calloc(np * nm, sizeof *res->rows);
    if (!c.Ms || !c.Ks || !c.gammas || !c.succ || !c.iters || !c.starts || !c.secs ||
        !c.finished || !c.pending || !res || !res->rows) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory for a sweep of %zu trials", np * T);
        goto out;
    }
    /* grid */
    for (size_t g = 0; g < np; g++) {
        double v = sp->values[g];
        if (!isfinite(v) || v < 0) {
            rc = cs_fail(err, CS_EINVAL, "grid value %g is not a nonnegative number", v);
            goto out;
        }
        size_t M, K;
        if (sp->axis == CS_AXIS_GAMMA) {
            M = round_half_away(v * (double)sp->N);
            K = sp->K;
            c.gammas[g] = v;
        } else if (sp->axis == CS_AXIS_M) {
            M = round_half_away(v);
            K = sp->K;
            c.gammas[g] = (double)M / (double)sp->N;
        } else {
            K = round_half_away(v);
            M = sp->M ? sp->M : round_half_away(sp->gamma * (double)sp->N);
            c.gammas[g] = (double)M / (double)sp->N;
            if (K == 0) {
                rc = cs_fail(err, CS_EINVAL, "K=%g: need at least one nonzero", v);
                goto out;
            }
        }
        if (M < 1 || M > sp->N) {
            rc = cs_fail(err, CS_EINVAL, "grid value %g gives M=%zu, outside 1..N=%zu", v, M,
                         sp->N);
            goto out;
        }
        if (K > sp->N) {
            rc = cs_fail(err, CS_EINVAL, "K=%zu exceeds N=%zu", K, sp->N);
            goto out;
        }
        c.Ms[g] = M;
        c.Ks[g] = K;
    }
    /* Methods must fit the problem: build solvers on grid point 0 once. */
    {
        cs_problem_spec ps = {.kind = sp->kind, .N = sp->N, .M = c.Ms[0], .K = c.Ks[0],
                              .noise = sp->noise};
        cs_problem *prob;
        rc = cs_problem_new(&prob, &ps, sp->seed, 0, err);
        if (rc)
            goto out;
        for (size_t m = 0; m < nm && !rc; m++) {
            cs_solver *s;
            rc = cs_solver_new(&s, prob, &sp->methods[m], &sp->solve, sp->seed, 0, err);
            cs_solver_free(s);
        }
        cs_problem_free(prob);
        if (rc)
            goto out;
    }
    if (sp->store && sp->store->preload &&
        (rc = sp->store->preload(sp->store->user, c.finished, c.succ, c.iters, c.starts, c.secs,
                                 err)))
        goto out;
    /* under mpirun every item stays pending, so that rank r's share is
     * still the items i with i % K == r (the gather's rule); sweep_item
     * skips those a journal preloaded */
    for (size_t i = 0; i < np * T; i++) {
        if (c.finished[i])
            report_trial(&c, i, 1);   /* preloaded: the live view counts it */
        if (!c.finished[i] || cs_dist_size() > 1)
            c.pending[c.npending++] = i;
    }
    int threads = sp->threads > 0 ? sp->threads : cs_pool_cores();
    int blas_threads = cs_blas_hold_threads(1);
    double t0 = cs_now();
    /* this rank's share of the pending items (all of them in one process),
     * then every rank gets every trial's outcome, in item order; under MPI
     * nothing is preloaded (no journal), so the pending items are all items
     * in order and rank r's share is i % K == r as the gather expects */
    if (sp->device == CS_DEVICE_CUDA) {
        rc = cs_sweep_gpu_run(sp, c.Ms, c.Ks, c.pending, c.npending, c.succ, c.iters, c.starts,
                              c.secs, gpu_item_done, &c, err);
        if (rc == CS_ECANCEL)
            rc = 0;   /* as the threads: the finished grid points, partial */
    } else {
        rc = cs_dist_pool_run(c.npending, threads, sweep_item, &c, sp->cancel,
                              sp->progress || sp->point ? sweep_progress : NULL, &c, err);
    }
    cs_blas_restore_threads(blas_threads);
    if (rc < 0 && err && !strcmp(err->key, "store")) {
        snprintf(res->stopped, sizeof res->stopped, "%.*s", (int)sizeof res->stopped - 1,
                 err->msg);
        cs_err_clear(err);
        rc = 0;
    }
    if (!rc)
        rc = cs_dist_gather_items(c.succ, nm, np * T, err);
    if (!rc)
        rc = cs_dist_gather_items(c.iters, nm * sizeof *c.iters, np * T, err);
    if (!rc)
        rc = cs_dist_gather_items(c.starts, nm * sizeof *c.starts, np * T, err);
    if (!rc)
        rc = cs_dist_gather_items(c.secs, nm * sizeof *c.secs, np * T, err);
    if (!rc)
        rc = cs_dist_gather_items(c.finished, 1, np * T, err);
    res->wall_seconds = cs_now() - t0;
    res->threads = threads;
    if (rc)
        goto out;
    /* aggregate finished grid points, method-major */
    res->points_total = np;
    res->trials_total = (long)(np * T);
    size_t nrows = 0;
    /* the finished grid points in grid order, up to the first one that is
     * not: an interrupted run's rows do not depend on how its threads were
     * scheduled, so a replay that stops after as many points writes them
     * again (its later trials stay in the journal for resume=on) */
    int gap = 0;
    for (size_t g = 0; g < np; g++) {
        size_t fin = 0;
        for (size_t t = 0; t < T; t++)
            fin += c.finished[g * T + t];
        res->trials_done += (long)fin;
        gap |= fin < T;
        if (!gap)
            res->points_done++;
    }
    res->partial = res->points_done < np;
    const char *stop = cs_stop_name(sp->solve.stop);
    for (size_t m = 0; m < nm; m++)
        for (size_t g = 0; g < res->points_done; g++) {
            cs_sweep_row *row = &res->rows[nrows++];
            /* validate: the text fits */
            snprintf(row->method, sizeof row->method, "%.*s", (int)sizeof row->method - 1,
                     sp->methods[m].text);
            snprintf(row->kind, sizeof row->kind, "%s", cs_problem_kind_name(sp->kind));
            snprintf(row->stop, sizeof row->stop, "%s", stop);
            row->N = sp->N;
            row->M = c.Ms[g];
            row->K = c.Ks[g];
            row->gamma = c.gammas[g];
            row->trials = (long)T;
            long ns = 0, it = 0, st = 0;
            double sec = 0.0;
            for (size_t t = 0; t < T; t++) {
                size_t k = (g * T + t) * nm + m;
                ns += c.succ[k];
                it += c.iters[k];
                st += c.starts[k];
                sec += c.secs[k];
            }
            double n = (double)T, pr = (double)ns / n;
            row->success = pr;
            row->stderr_ = T > 1 ? sqrt(pr * (1.0 - pr) * n / (n - 1.0)) / sqrt(n) : 0.0;
            row->mean_iters = (double)it / n;
            row->mean_restarts = (double)st / n;
            row->seconds = sp->timing ? sec / n : NAN;
        }
    res->nrows = nrows;
out:
    free(c.Ms);
    free(c.Ks);
    free(c.gammas);
    free(c.succ);
    free(c.iters);
    free(c.starts);
    free(c.secs);
    free(c.finished);
    free(c.pending);
    if (rc) {
        cs_sweep_result_free(res);
        return rc;
    }
    *out = res;
    return CS_OK;
}

int cs_sweep_print_csv(const cs_sweep_result *r, const char *preamble, FILE *f)
{
    if (r->vary[0]) {
        cs_csv_field(f, r->vary);
        fputc(',', f);
    }
    fprintf(f, "%s\n", CS_SWEEP_CSV_HEADER);
    if (preamble)
        fputs(preamble, f);
    for (size_t i = 0; i < r->nrows; i++) {
        const cs_sweep_row *w = &r->rows[i];
        char sec[32];
        if (isnan(w->seconds))
            snprintf(sec, sizeof sec, "nan");
        else
            snprintf(sec, sizeof sec, "%.6g", w->seconds);
        if (r->vary[0])
            fprintf(f, "%.10g,", w->vary);
        cs_csv_field(f, w->method);
        fputc(',', f);
        cs_csv_field(f, w->kind);
        fprintf(f, ",%zu,%zu,%.10g,%zu,%ld,%.10g,%.10g,%.10g,%.10g,%s,", w->N, w->M, w->gamma,
                w->K, w->trials, w->success, w->stderr_, w->mean_iters, w->mean_restarts, sec);
        cs_csv_field(f, w->stop);
        fputc('\n', f);
    }
    if (r->partial)
        fprintf(f, "# partial: interrupted after %zu of %zu grid points\n", r->points_done,
                r->points_total);
    return ferror(f) ? CS_EIO : CS_OK;
}

int cs_sweep_write_csv(const cs_sweep_result *r, const char *path, const char *preamble,
                       cs_err *err)
{
    cs_afile af;
    int rc = cs_afile_open(&af, path, 0, err);
    if (rc)
        return rc;
    if (cs_sweep_print_csv(r, preamble, af.f) != CS_OK) {
        cs_afile_abort(&af);
        return cs_fail(err, CS_EIO, "cannot write %s", path);
    }
    return cs_afile_commit(&af, err);
}

/* ---------------------------------------------------------------- maxcut */

typedef struct maxcut_ctx {
    const cs_maxcut_spec *sp;
    const cs_method *method;  /* the spec's, or the kind's default */
    double *cut, *rounded, *start, *best_iter;
    long *iters;
    unsigned char *ok, *finished, *end;
} maxcut_ctx;

static int maxcut_item(void *vctx, size_t item, cs_err *err)
{
    maxcut_ctx *c = vctx;
    const cs_maxcut_spec *sp = c->sp;
    cs_problem *prob;
    int rc = cs_problem_new_maxcut(&prob, sp->graph, err);
    if (rc)
        return rc;
    cs_solve_opts so = sp->solve;
    so.cancel = sp->cancel;
    so.trace = 0;
    uint64_t ts = cs_sweep_trial_stream(cs_graph_nodes(sp->graph), cs_graph_edges(sp->graph), 0,
                                        (long)item);
    cs_solver *s;
    rc = cs_solver_new(&s, prob, c->method, &so, sp->seed, cs_sweep_method_stream(ts, c->method),
                       err);
    if (!rc) {
        cs_solve_result r;
        rc = cs_solver_solve(s, &r, err);
        if (rc == CS_ECANCEL)
            rc = 1;
        if (!rc) {
            c->cut[item] = r.cut;
            c->rounded[item] = r.cut_rounded;
            c->start[item] = r.cut_start;
            c->iters[item] = r.iters;
            c->best_iter[item] = (double)r.best_iter;
            c->end[item] = (unsigned char)r.end;
            c->ok[item] = (unsigned char)r.success;
            c->finished[item] = 1;
        }
        cs_solver_free(s);
    }
    cs_problem_free(prob);
    return rc;
}

void cs_maxcut_result_clear(cs_maxcut_result *res)
{
    if (!res)
        return;
    free(res->cuts);
    memset(res, 0, sizeof *res);
}

static void mean_std(const double *v, const unsigned char *use, size_t n, double *mean,
                     double *sd, double *mx)
{
    double s = 0.0, m = -INFINITY;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (use[i]) {
            s += v[i];
            m = fmax(m, v[i]);
            k++;
        }
    *mean = k ? s / (double)k : NAN;
    double q = 0.0;
    for (size_t i = 0; i < n; i++)
        if (use[i])
            q += (v[i] - *mean) * (v[i] - *mean);
    *sd = k > 1 ? sqrt(q / (double)(k - 1)) : (k ? 0.0 : NAN);
    if (mx)
        *mx = k ? m : NAN;
}

int cs_maxcut_run(const cs_maxcut_spec *sp, cs_maxcut_result *res, cs_err *err)
{
    memset(res, 0, sizeof *res);
    if (!sp->graph)
        return cs_fail(err, CS_EINVAL, "maxcut needs graph=FILE");
    if (sp->trials < 1 || sp->trials > 10000000L)
        return cs_fail(err, CS_EINVAL, "trials=%ld must be in [1, 1e7]", sp->trials);
    if (sp->threads < 0 || sp->threads > CS_MAX_THREADS)
        return cs_fail(err, CS_EINVAL, "threads=%d must be in [0, %d]", sp->threads,
                       CS_MAX_THREADS);
    size_t T = (size_t)sp->trials;
    cs_method def;
    cs_kind_method(CS_PROB_MAXCUT, &def);
    maxcut_ctx c = {.sp = sp, .method = sp->method ? sp->method : &def};
    c.cut = calloc(T, sizeof *c.cut);
    c.rounded = calloc(T, sizeof *c.rounded);
    c.start = calloc(T, sizeof *c.start);
    c.iters = calloc(T, sizeof *c.iters);
    c.best_iter = calloc(T, sizeof *c.best_iter);
    c.ok = calloc(T, 1);
    c.finished = calloc(T, 1);
    c.end = calloc(T, 1);
    int rc = CS_OK;
    if (!c.cut || !c.rounded || !c.start || !c.iters || !c.best_iter || !c.ok || !c.finished ||
        !c.end) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto out;
    }
    {
        /* check the method and options once */
        cs_problem *prob;
        rc = cs_problem_new_maxcut(&prob, sp->graph, err);
        if (rc)
            goto out;
        cs_solver *s;
        rc = cs_solver_new(&s, prob, c.method, &sp->solve, sp->seed, 0, err);
        if (!rc)
            res->lambda = cs_solver_lambda(s);
        cs_solver_free(s);
        cs_problem_free(prob);
        if (rc)
            goto out;
    }
    int threads = sp->threads > 0 ? sp->threads : cs_pool_cores();
    int blas_threads = cs_blas_hold_threads(1);
    double t0 = cs_now();
    rc = cs_dist_pool_run(T, threads, maxcut_item, &c, sp->cancel, sp->progress,
                          sp->progress_user, err);
    cs_blas_restore_threads(blas_threads);
    if (!rc)
        rc = cs_dist_gather_doubles(c.cut, T, err);
    if (!rc)
        rc = cs_dist_gather_doubles(c.rounded, T, err);
    if (!rc)
        rc = cs_dist_gather_doubles(c.start, T, err);
    if (!rc)
        rc = cs_dist_gather_doubles(c.best_iter, T, err);
    if (!rc)
        rc = cs_dist_gather_items(c.iters, sizeof *c.iters, T, err);
    if (!rc)
        rc = cs_dist_gather_items(c.ok, 1, T, err);
    if (!rc)
        rc = cs_dist_gather_items(c.finished, 1, T, err);
    if (!rc)
        rc = cs_dist_gather_items(c.end, 1, T, err);
    res->wall_seconds = cs_now() - t0;
    if (rc)
        goto out;
    long done = 0, succ = 0;
    double it = 0.0;
    res->min_best_iter = INFINITY;
    for (size_t i = 0; i < T; i++)
        if (c.finished[i]) {
            done++;
            succ += c.ok[i];
            it += (double)c.iters[i];
            if (c.end[i] <= CS_END_DIVERGED)
                res->ends[c.end[i]]++;
            res->min_best_iter = fmin(res->min_best_iter, c.best_iter[i]);
        }
    if (!done)
        res->min_best_iter = NAN;
    res->trials = done;
    res->partial = done < (long)T;
    res->successes = succ;
    res->mean_iters = done ? it / (double)done : NAN;
    mean_std(c.cut, c.finished, T, &res->mean_cut, &res->std_cut, &res->best_cut);
    mean_std(c.rounded, c.finished, T, &res->mean_rounded, &res->std_rounded,
             &res->best_rounded);
    mean_std(c.start, c.finished, T, &res->mean_start, &res->std_start, NULL);
    /* a cut that overflowed is no result: never "inf ± nan" as a success */
    for (size_t i = 0; i < T; i++)
        if (c.finished[i] && !(isfinite(c.cut[i]) && isfinite(c.rounded[i]) &&
                               isfinite(c.start[i]))) {
            rc = cs_fail(err, CS_ENONFINITE, "MAX-CUT trial %zu: the cut is not finite (%g): the "
                         "edge weights are too large", i + 1,
                         isfinite(c.cut[i]) ? c.start[i] : c.cut[i]);
            goto out;
        }
    double sd;
    mean_std(c.best_iter, c.finished, T, &res->mean_best_iter, &sd, &res->max_best_iter);
    res->known_best = cs_graph_known_best(sp->graph);
    res->cuts = malloc((size_t)(done ? done : 1) * sizeof *res->cuts);
    if (!res->cuts) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0, k = 0; i < T; i++)
        if (c.finished[i])
            res->cuts[k++] = c.cut[i];
out:
    free(c.cut);
    free(c.rounded);
    free(c.start);
    free(c.iters);
    free(c.best_iter);
    free(c.ok);
    free(c.finished);
    free(c.end);
    return rc;
}
