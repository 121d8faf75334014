/* sweep_util.c — see sweep_util.h */
#include "sweep_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_clock.h"

typedef struct recorder {
    sweep_trials *t;
    size_t trials;
} recorder;

/* a store that preloads nothing and records each trial (from worker
 * threads: every item has its own slots) */
static int record(void *user, const cs_sweep_trial *tr, cs_err *err)
{
    (void)err;
    recorder *r = user;
    size_t item = tr->point * r->trials + (size_t)tr->trial, nm = r->t->nm;
    memcpy(r->t->success + item * nm, tr->success, nm);
    memcpy(r->t->iters + item * nm, tr->iters, nm * sizeof *tr->iters);
    memcpy(r->t->starts + item * nm, tr->starts, nm * sizeof *tr->starts);
    return 0;
}

int sweep_trials_run(const cs_sweep_spec *spec, cs_device device, sweep_trials *out,
                     cs_err *err)
{
    memset(out, 0, sizeof *out);
    out->nm = spec->nmethods;
    out->n = spec->nvalues * (size_t)spec->trials;
    out->success = calloc(out->n * out->nm, 1);
    out->iters = calloc(out->n * out->nm, sizeof *out->iters);
    out->starts = calloc(out->n * out->nm, sizeof *out->starts);
    if (!out->success || !out->iters || !out->starts)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    recorder rec = {out, (size_t)spec->trials};
    cs_sweep_store store = {.user = &rec, .trial_done = record};
    cs_sweep_spec sp = *spec;
    sp.device = device;
    sp.store = &store;
    double t0 = cs_now();
    int rc = cs_sweep_run(&sp, &out->res, err);
    out->seconds = cs_now() - t0;
    return rc;
}

void sweep_trials_free(sweep_trials *t)
{
    free(t->success);
    free(t->iters);
    free(t->starts);
    cs_sweep_result_free(t->res);
    memset(t, 0, sizeof *t);
}

void sweep_trials_compare(const sweep_trials *a, const sweep_trials *b, int verbose,
                          double *same_success, double *same_iters)
{
    size_t n = a->n * a->nm, ss = 0, si = 0;
    for (size_t k = 0; k < n; k++) {
        ss += a->success[k] == b->success[k];
        si += a->iters[k] == b->iters[k] && a->starts[k] == b->starts[k];
        if (verbose && a->success[k] != b->success[k])
            printf("  item %zu method %zu: success %d vs %d (iterations %ld vs %ld)\n",
                   k / a->nm, k % a->nm, a->success[k], b->success[k], a->iters[k],
                   b->iters[k]);
    }
    *same_success = n ? (double)ss / (double)n : 1.0;
    *same_iters = n ? (double)si / (double)n : 1.0;
    printf("per trial: the same success in %zu of %zu (%.2f%%), the same iterations and "
           "starts in %zu (%.2f%%)\n", ss, n, 100.0 * *same_success, si, 100.0 * *same_iters);
}

void sweep_trial_streams(size_t N, size_t M, size_t K, long n, const cs_method *m,
                         uint64_t *ps, uint64_t *ms)
{
    for (long t = 0; t < n; t++) {
        ps[t] = cs_sweep_trial_stream(N, M, K, t);
        ms[t] = cs_sweep_method_stream(ps[t], m);
    }
}

char *sweep_csv_of(const cs_sweep_result *r)
{
    FILE *f = tmpfile();
    if (!f)
        return NULL;
    char *s = NULL;
    long n;
    if (cs_sweep_print_csv(r, NULL, f) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (s = calloc((size_t)n + 1, 1)) && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

int sweep_cpu_vs_cuda(const cs_sweep_spec *sp, sweep_vs *v, cs_err *err)
{
    sweep_trials cpu, gpu;
    memset(v, 0, sizeof *v);
    int rc = sweep_trials_run(sp, CS_DEVICE_CPU, &cpu, err);
    if (rc)
        return rc;
    if ((rc = sweep_trials_run(sp, CS_DEVICE_CUDA, &gpu, err))) {
        sweep_trials_free(&cpu);
        return rc;
    }
    sweep_trials_compare(&cpu, &gpu, 1, &v->same_success, &v->same_iters);
    char *a = sweep_csv_of(cpu.res), *b = sweep_csv_of(gpu.res);
    if (a && b) {
        v->csv_equal = strcmp(a, b) == 0;
        v->rows = cpu.res->nrows;
        v->solves = cpu.n * cpu.nm;
        for (size_t k = 0; k < v->solves; k++)
            v->won += cpu.success[k];
    } else {
        rc = cs_fail(err, CS_EIO, "the CSV of a sweep could not be written");
    }
    free(a);
    free(b);
    sweep_trials_free(&cpu);
    sweep_trials_free(&gpu);
    return rc;
}

int sweep_trial_vs_cpu(const sweep_cpu_ref *ref, long t, const unsigned char *success,
                       const long *iters, const int *starts, sweep_tally *k, cs_err *err)
{
    const cs_problem_spec *ps = &ref->ps;
    uint64_t ts = cs_sweep_trial_stream(ps->N, ps->M, ps->K, t);
    cs_problem *p = NULL;
    int rc = cs_problem_new(&p, ps, ref->seed, ts, err);
    for (size_t m = 0; !rc && m < ref->nm; m++) {
        const cs_method *mv = &ref->mv[m];
        cs_solve_opts so = ref->so;
        cs_solver *s = NULL;
        cs_solve_result r;
        rc = cs_solver_new(&s, p, mv, &so, ref->seed, cs_sweep_method_stream(ts, mv), err);
        if (!rc)
            rc = cs_solver_solve(s, &r, err);
        cs_solver_free(s);
        if (rc)
            break;
        int eq = success[m] == r.success && starts[m] == r.starts;
        if (!eq) {
            char where[64];
            if (ref->name_k)
                snprintf(where, sizeof where, "M=%zu K=%zu", ps->M, ps->K);
            else
                snprintf(where, sizeof where, "M=%zu", ps->M);
            printf("  differs: %s %s trial %ld: gpu %d/%d starts/%ld iters, cpu %d/%d/%ld\n",
                   mv->text, where, t, success[m], starts[m], iters[m], r.success, r.starts,
                   r.iters);
        }
        k[m].equal += eq;
        k[m].same_iters += eq && iters[m] == r.iters;
        k[m].total++;
        k[m].won += r.success;
        k[m].restarted += r.starts > 1;
        k[m].early += so.maxit > 0 && r.iters < r.starts * so.maxit;
    }
    cs_problem_free(p);
    return rc;
}
