/* sweep_gpu.c — a sweep's trials on the GPU: which sweeps it takes, the
 * module's table, and one job per grid point and method. */
#include "sweep_gpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_cuda_module.h"
#include "cuda/sweep_cuda.h"

static const cs_sweep_cuda_module *g_injected;

void cs_sweep_gpu_use_module(const void *module) { g_injected = module; }

/* the GPU's method for m, or -1: bin's kernel and linf's prox, without
 * parameters */
static int gpu_method(const cs_method *m)
{
    if (!m->info || m->nparams)
        return -1;
    if (m->info->kernel == CS_REG_KERNEL_BIN)
        return CS_SWEEP_CUDA_FISTA_BIN;
    if (m->info->prox == CS_REG_PROX_LINF)
        return CS_SWEEP_CUDA_DR_LINF;
    return -1;
}

int cs_sweep_gpu_check(const cs_sweep_spec *sp, cs_err *err)
{
    const char *takes = "sweep device=cuda runs kind=bin with methods bin and linf";
    if (sp->kind != CS_PROB_BIN)
        return cs_fail(err, CS_EUNSUPPORTED, "%s, not kind=%s (use device=cpu)", takes,
                       cs_problem_kind_name(sp->kind));
    for (size_t m = 0; m < sp->nmethods; m++) {
        int g = gpu_method(&sp->methods[m]);
        cs_algo want = g == CS_SWEEP_CUDA_DR_LINF ? CS_ALGO_DR : CS_ALGO_FISTA;
        if (g < 0 || (sp->solve.algo != CS_ALGO_AUTO && sp->solve.algo != want))
            return cs_fail(err, CS_EUNSUPPORTED, "%s (as the CPU runs them), not %s", takes,
                           sp->methods[m].text);
    }
    if (sp->solve.stop != CS_STOP_ORACLE && sp->solve.stop != CS_STOP_MAXIT)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: stop=oracle or stop=maxit, not stop=%s",
                       takes, cs_stop_name(sp->solve.stop));
    if (sp->solve.mode != CS_MODE_DEFAULT && sp->solve.mode != CS_MODE_ACCEL)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: FISTA's default mode (accel), not mode=%s",
                       takes, cs_mode_name(sp->solve.mode));
    if (sp->N > CS_SWEEP_CUDA_MAX_N)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: N <= %d, not N=%zu", takes,
                       CS_SWEEP_CUDA_MAX_N, sp->N);
    return CS_OK;
}

static const cs_sweep_cuda_module *module(char *why, size_t len)
{
    if (g_injected)
        return g_injected;
#ifdef CSREG_HAVE_CUDA
    void *sym;
    if (cs_cuda_module_sym(CS_SWEEP_CUDA_SYM, &sym, why, len))
        return NULL;
    cs_sweep_cuda_module_fn get;
    memcpy(&get, &sym, sizeof get);   /* ISO C: no cast from void * to a function */
    const cs_sweep_cuda_module *m = get();
    if (!m || m->abi != CS_SWEEP_CUDA_ABI || m->job_size != sizeof(cs_sweep_cuda_job)) {
        snprintf(why, len, "the CUDA module does not fit this csreg (rebuild both)");
        return NULL;
    }
    return m;
#else
    snprintf(why, len, "this csreg was built without CUDA (build with nvcc, CUDA=1)");
    return NULL;
#endif
}

/* A job's host arrays: the trials items[0..n) of one grid point (M), one
 * method. */
typedef struct host_job {
    cs_sweep_cuda_job j;
    const size_t *items;
    uint64_t *ps, *ms;
    unsigned char *s;
    long *it;
    int *st;
} host_job;

static void host_job_free(host_job *h)
{
    free(h->ps);
    free(h->ms);
    free(h->s);
    free(h->it);
    free(h->st);
}

static int host_job_make(host_job *h, const cs_sweep_spec *sp, size_t M, size_t m,
                         const size_t *items, size_t n, cs_err *err)
{
    size_t T = (size_t)sp->trials;
    memset(h, 0, sizeof *h);
    h->items = items;
    h->ps = malloc(n * sizeof *h->ps);
    h->ms = malloc(n * sizeof *h->ms);
    h->s = malloc(n);
    h->it = malloc(n * sizeof *h->it);
    h->st = malloc(n * sizeof *h->st);
    if (!h->ps || !h->ms || !h->s || !h->it || !h->st)
        return cs_fail(err, CS_ENOMEM, "out of memory for a GPU job of %zu trials", n);
    for (size_t i = 0; i < n; i++) {
        long t = (long)(items[i] % T);
        h->ps[i] = cs_sweep_trial_stream(sp->N, M, 0, t);
        h->ms[i] = cs_sweep_method_stream(h->ps[i], &sp->methods[m]);
    }
    int method = gpu_method(&sp->methods[m]);
    const cs_kind_defaults *kd = cs_kind_defaults_of(sp->kind);
    h->j = (cs_sweep_cuda_job){
        .method = method,
        .N = (int)sp->N,
        .M = (int)M,
        .trials = (long)n,
        .seed = sp->seed,
        .problem_stream = h->ps,
        .method_stream = h->ms,
        .maxit = sp->solve.maxit > 0 ? sp->solve.maxit : kd->maxit,
        .max_starts = method == CS_SWEEP_CUDA_DR_LINF ? 1
                      : sp->solve.restarts > 0 ? sp->solve.restarts : kd->starts,
        .oracle_stop = sp->solve.stop == CS_STOP_ORACLE,
        .success_tol = sp->solve.success_tol > 0 ? sp->solve.success_tol : 1e-2,
        .dr_t = sp->solve.dr_t > 0 ? sp->solve.dr_t : 10.0,
        .success = h->s,
        .iters = h->it,
        .starts = h->st,
    };
    return CS_OK;
}

/* Method m on every grid point at once: a job per point, outcomes into the
 * sweep's arrays. */
static int run_method(const cs_sweep_cuda_module *mod, int device, const cs_sweep_spec *sp,
                      const size_t *Ms, size_t m, const size_t *items, size_t nitems,
                      unsigned char *succ, long *iters, int *starts, cs_err *err)
{
    size_t T = (size_t)sp->trials, nm = sp->nmethods, nj = 0;
    host_job *jobs = calloc(sp->nvalues, sizeof *jobs);
    cs_sweep_cuda_job *js = calloc(sp->nvalues, sizeof *js);
    int rc = jobs && js ? CS_OK : cs_fail(err, CS_ENOMEM, "out of memory");
    for (size_t lo = 0; lo < nitems && !rc;) {
        size_t g = items[lo] / T, hi = lo;
        while (hi < nitems && items[hi] / T == g)
            hi++;
        rc = host_job_make(&jobs[nj], sp, Ms[g], m, items + lo, hi - lo, err);
        js[nj] = jobs[nj].j;
        nj++;
        lo = hi;
    }
    char why[512];
    if (!rc && mod->run(device, js, nj, why, sizeof why) != 0)
        rc = cs_fail(err, CS_EUNSUPPORTED, "device=cuda: %s", why);
    for (size_t k = 0; k < nj; k++) {
        for (size_t i = 0; !rc && i < (size_t)jobs[k].j.trials; i++) {
            size_t at = jobs[k].items[i] * nm + m;
            succ[at] = jobs[k].s[i];
            iters[at] = jobs[k].it[i];
            starts[at] = jobs[k].st[i];
        }
        host_job_free(&jobs[k]);
    }
    free(jobs);
    free(js);
    return rc;
}

int cs_sweep_gpu_run(const cs_sweep_spec *sp, const size_t *Ms, const size_t *items,
                     size_t nitems, unsigned char *succ, long *iters, int *starts, double *secs,
                     cs_sweep_gpu_done_fn done, void *user, cs_err *err)
{
    char why[512];
    int device = 0;
    if (cs_cuda_env_device(getenv("CSREG_CUDA_DEVICE"), &device, why, sizeof why))
        return cs_fail(err, CS_EINVAL, "device=cuda: %s", why);
    const cs_sweep_cuda_module *mod = module(why, sizeof why);
    if (!mod)
        return cs_fail(err, CS_EUNSUPPORTED, "device=cuda: %s", why);
    size_t nm = sp->nmethods;
    for (size_t m = 0; m < nm; m++) {
        if (cs_cancelled(sp->cancel))
            return CS_ECANCEL;
        int rc = run_method(mod, device, sp, Ms, m, items, nitems, succ, iters, starts, err);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < nitems; i++) {
        for (size_t m = 0; m < nm; m++)
            secs[items[i] * nm + m] = NAN;
        int rc = done(user, items[i], err);
        if (rc)
            return rc;
    }
    return CS_OK;
}
