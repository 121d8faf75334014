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
