/* solver_lock.c — the restarts of a solve in lockstep (see below). */
#include "solver_internal.h"

#include <stdlib.h>

#include "cs_clock.h"
#include "cs_proj.h"

/* Restarts in lockstep: when the first start of a solve has failed, the
 * remaining ones begin in order from the same stream (so with the same start
 * points and L estimates as one after another), step together so that their
 * P₀ images share each pass over the projection basis, and the run ends as
 * the sequential one would: at the first start that succeeds, every earlier
 * one having failed, counting only those starts' iterations. Traces and
 * problems without the affine fast path keep the sequential loop. */
int solver_lockstep_ok(const cs_solver *s)
{
    return s->algo == CS_ALGO_FISTA && s->ffns.dir && !s->o.trace && !s->o.path &&
           !s->o.sequential_starts && !s->start_x &&
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
        rc = solver_begin_start(s, err);
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

int solver_lockstep_starts(cs_solver *s, cs_err *err)
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
                ln[k].state = solver_judge(s, cs_fista_best(s->pool[k]), &tmp) ? 2 : 1;
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
            solver_finish_start(s);
    } else {
        lockstep_adopt(s, base, first < K ? first : K - 1, ln);
        solver_finish_start(s);
    }
    s->seconds += cs_now() - t0;
out:
    free(ln);
    free(g);
    free(d);
    free(idx);
    return rc;
}

