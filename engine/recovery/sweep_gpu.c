/* sweep_gpu.c — a sweep's trials on the GPU: which sweeps it takes, the
 * module's table, and one job per grid point and method. */
#include "sweep_gpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_cuda_module.h"
#include "cs_expr_export.h"
#include "cuda/sweep_cuda.h"
#include "sweep_gpu_common.h"
#include "sweep_gpu_matrix.h"

static const cs_sweep_cuda_module *g_injected;

void cs_sweep_gpu_use_module(const void *module) { g_injected = module; }

/* What the kernels run (cuda/sweep_cuda.h), in every message that refuses. */
#define TAKES "sweep device=cuda runs kinds bin, osb and ter (K= too) with methods bin, osb, " \
              "ter, bbin, binexp, l2l1, l2l1h, fixed, holder, si, beta, those made by reg " \
              "define (FISTA) and linf, l1 " \
              "(Douglas-Rachford), and kind 2bit with method equ"

/* The parameters of m's instance as the CPU makes it (cs_reg_describe's
 * `NAME key=value ...`, numbers to 17 digits: exact) into the job j:
 * holder's and si's base, r, eps (p and q into *p, *q), fixed's alpha,
 * beta's beta or learn. */
static int gpu_params(const cs_method *m, cs_sweep_cuda_job *j, double *p, double *q)
{
    cs_reg *reg;
    cs_err err;
    if (cs_method_reg_new(&reg, m, NULL, 0, &err))
        return -1;
    char text[512];
    cs_reg_describe(reg, text, sizeof text);
    cs_reg_free(reg);
    *p = *q = 2.0;
    for (char *w = text, *end; *w; w = end) {
        end = w + strcspn(w, " ");
        if (*end)
            *end++ = '\0';
        char *v = strchr(w, '=');
        if (!v)
            continue;
        *v++ = '\0';
        double x = strtod(v, NULL);
        if (!strcmp(w, "base"))
            j->base = !strcmp(v, "osb") ? CS_SWEEP_CUDA_REG_OSB
                      : !strcmp(v, "ter") ? CS_SWEEP_CUDA_REG_TER : CS_SWEEP_CUDA_REG_BIN;
        else if (!strcmp(w, "p"))
            *p = x;
        else if (!strcmp(w, "q"))
            *q = x;
        else if (!strcmp(w, "r"))
            j->r = x;
        else if (!strcmp(w, "eps"))
            j->eps = x;
        else if (!strcmp(w, "alpha"))
            j->alpha = x;
        else if (!strcmp(w, "beta") && !(j->learn_beta = !strcmp(v, "learn")))
            j->beta = x;
    }
    return 0;
}

/* the GPU's method for m on kind, its regularizer or prox into *fn and
 * its parameters into par (may be NULL), or -1: on bin, osb and ter the
 * solver's fused kernels of bin, osb, ter, bbin, binexp, l2l1, l2l1h,
 * fixed, holder and si at p = q = 2 (cs_reg_fast.h), holder and si at
 * other p, q (reg_holder.c's rescaled path), beta, those made by reg
 * define whose g and h the device takes (cs_expr_export.h), and the prox
 * of linf and l1; on 2bit its own method (equ) */
static int gpu_method(cs_kind kind, const cs_method *m, int *fn, cs_sweep_cuda_job *par)
{
    *fn = 0;
    if (kind == CS_PROB_2BIT) {
        cs_method own;
        cs_kind_method(kind, &own);
        return cs_method_same(m, &own) ? CS_SWEEP_CUDA_FISTA_2BIT : -1;
    }
    const cs_reg_info *info = m->info;
    if (!info)
        return -1;
    if (cs_reg_info_defined(info)) {   /* g and h by the device's interpreter */
        cs_expr_reg_code code;
        cs_err err;
        if (m->nparams || cs_reg_export(info, &code, &err))
            return -1;
        *fn = CS_SWEEP_CUDA_REG_DEFINED;
        return CS_SWEEP_CUDA_FISTA;
    }
    if (info->prox != CS_REG_PROX_NONE) {
        *fn = info->prox == CS_REG_PROX_L1 ? CS_SWEEP_CUDA_PROX_L1 : CS_SWEEP_CUDA_PROX_LINF;
        return m->nparams ? -1 : CS_SWEEP_CUDA_DR;
    }
    switch (info->kernel) {
    case CS_REG_KERNEL_BIN: *fn = CS_SWEEP_CUDA_REG_BIN; break;
    case CS_REG_KERNEL_OSB: *fn = CS_SWEEP_CUDA_REG_OSB; break;
    case CS_REG_KERNEL_TER: *fn = CS_SWEEP_CUDA_REG_TER; break;
    case CS_REG_KERNEL_BBIN: *fn = CS_SWEEP_CUDA_REG_BBIN; break;
    case CS_REG_KERNEL_BINEXP: *fn = CS_SWEEP_CUDA_REG_BINEXP; break;
    case CS_REG_KERNEL_L2L1: *fn = CS_SWEEP_CUDA_REG_L2L1; break;
    case CS_REG_KERNEL_L2L1H: *fn = CS_SWEEP_CUDA_REG_L2L1H; break;
    case CS_REG_KERNEL_FIXED: *fn = CS_SWEEP_CUDA_REG_FIXED; break;
    default:
        if (info->form == CS_FORM_HOLDER)
            *fn = CS_SWEEP_CUDA_REG_HOLDER;
        else if (info->form == CS_FORM_SI)
            *fn = CS_SWEEP_CUDA_REG_SI;
        else if (!strcmp(info->name, "beta"))
            *fn = CS_SWEEP_CUDA_REG_BETA;
        else
            return -1;
    }
    cs_sweep_cuda_job own = {.r = 1.0, .alpha = 1.0, .beta = 1.0, .p = 2.0, .q = 2.0};
    if (!par)
        par = &own;
    if (gpu_params(m, par, &par->p, &par->q))
        return -1;
    /* fixed's α⁴ must be finite (reg_fast_flat.c) */
    if (!isfinite(par->alpha * par->alpha * par->alpha * par->alpha))
        return -1;
    return CS_SWEEP_CUDA_FISTA;
}

/* the GPU's draw of kind, or -1 */
static int gpu_kind(cs_kind kind)
{
    switch (kind) {
    case CS_PROB_BIN: return CS_SWEEP_CUDA_BIN;
    case CS_PROB_OSB: return CS_SWEEP_CUDA_OSB;
    case CS_PROB_TER: return CS_SWEEP_CUDA_TER;
    case CS_PROB_2BIT: return CS_SWEEP_CUDA_2BIT;
    default: return -1;
    }
}

int cs_sweep_gpu_check(const cs_sweep_spec *sp, cs_err *err)
{
    if (sp->kind == CS_PROB_EIG || sp->kind == CS_PROB_ORTH)   /* drawn on the host */
        return cs_sweep_gpu_matrix_check(sp, err);
    const char *takes = TAKES;
    if (gpu_kind(sp->kind) < 0)
        return cs_fail(err, CS_EUNSUPPORTED, "%s, not kind=%s (use device=cpu)", takes,
                       cs_problem_kind_name(sp->kind));
    for (size_t m = 0; m < sp->nmethods; m++) {
        int fn, g = gpu_method(sp->kind, &sp->methods[m], &fn, NULL);
        cs_algo want = g == CS_SWEEP_CUDA_DR ? CS_ALGO_DR : CS_ALGO_FISTA;
        const cs_reg_info *info = sp->methods[m].info;
        cs_expr_reg_code code;
        cs_err why;
        if (g < 0 && info && cs_reg_info_defined(info) && cs_reg_export(info, &code, &why))
            return cs_fail(err, CS_EUNSUPPORTED, "%s, not %s: %s", takes, sp->methods[m].text,
                           why.msg);
        if (g < 0 || (sp->solve.algo != CS_ALGO_AUTO && sp->solve.algo != want))
            return cs_fail(err, CS_EUNSUPPORTED, "%s (as the CPU runs them), not %s", takes,
                           sp->methods[m].text);
    }
    /* a thread per entry of the variable: 2N for 2bit */
    size_t most = sp->kind == CS_PROB_2BIT ? CS_SWEEP_CUDA_MAX_N / 2 : CS_SWEEP_CUDA_MAX_N;
    return cs_sweep_gpu_common_check(sp, takes, most, err);
}

static const cs_sweep_cuda_module *module(char *why, size_t len)
{
    return g_injected ? g_injected
                      : cs_cuda_module_table(CS_SWEEP_CUDA_SYM, CS_SWEEP_CUDA_ABI,
                                             sizeof(cs_sweep_cuda_job), why, len);
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
    cs_expr_reg_code *code;   /* a method made by reg define: its g, h, form */
} host_job;

static void host_job_free(host_job *h)
{
    free(h->ps);
    free(h->ms);
    free(h->s);
    free(h->it);
    free(h->st);
    free(h->code);
}

static int host_job_make(host_job *h, const cs_sweep_spec *sp, size_t M, size_t K, size_t m,
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
        h->ps[i] = cs_sweep_trial_stream(sp->N, M, K, t);
        h->ms[i] = cs_sweep_method_stream(h->ps[i], &sp->methods[m]);
    }
    _Static_assert(CS_SWEEP_CUDA_STOP_HYBRID == (int)CS_STOP_HYBRID &&
                   CS_SWEEP_CUDA_STOP_MAXIT == (int)CS_STOP_MAXIT &&
                   CS_SWEEP_CUDA_STOP_RATIO == (int)CS_STOP_RATIO, "the job's stop is a cs_stop");
    cs_sweep_cuda_job par = {.r = 1.0, .alpha = 1.0, .beta = 1.0, .p = 2.0, .q = 2.0};
    int fn = 0, method = gpu_method(sp->kind, &sp->methods[m], &fn, &par);
    if (method == CS_SWEEP_CUDA_FISTA && fn == CS_SWEEP_CUDA_REG_DEFINED) {
        if (!(h->code = malloc(sizeof *h->code)))
            return cs_fail(err, CS_ENOMEM, "out of memory for a GPU job");
        int rc = cs_reg_export(sp->methods[m].info, h->code, err);
        if (rc)
            return rc;
    }
    const cs_kind_defaults *kd = cs_kind_defaults_of(sp->kind);
    /* as cs_dr_opts_default: t = 1 for ℓ1, 10 for ℓ∞ */
    double dr_t = fn == CS_SWEEP_CUDA_PROX_L1 ? 1.0 : 10.0;
    h->j = (cs_sweep_cuda_job){
        .method = method,
        .fn = fn,
        .kind = gpu_kind(sp->kind),
        .N = (int)sp->N,
        .M = (int)M,
        .K = (int)K,
        .trials = (long)n,
        .seed = sp->seed,
        .problem_stream = h->ps,
        .method_stream = h->ms,
        .maxit = sp->solve.maxit > 0 ? sp->solve.maxit : kd->maxit,
        .max_starts = method == CS_SWEEP_CUDA_DR ? 1
                      : sp->solve.restarts > 0 ? sp->solve.restarts : kd->starts,
        /* solver_start.c: the first start of osb and ter is not projected */
        .first_start_raw = sp->kind == CS_PROB_OSB || sp->kind == CS_PROB_TER,
        .stop = (int)sp->solve.stop,
        /* solver.c: the residual rules' tolerance */
        .tol = sp->solve.tol > 0 ? sp->solve.tol : 1e-8,
        .success_tol = sp->solve.success_tol > 0 ? sp->solve.success_tol : 1e-2,
        .base = par.base,
        .learn_beta = par.learn_beta,
        .r = par.r,
        .eps = par.eps,
        .p = par.p,
        .q = par.q,
        .alpha = par.alpha,
        .beta = par.beta,
        .dr_t = sp->solve.dr_t > 0 ? sp->solve.dr_t : dr_t,
        /* solver.c: the kind's λ unless lambda= is given */
        .lambda = !isnan(kd->lambda) && sp->solve.lambda > 0 ? sp->solve.lambda : kd->lambda,
        .defined = h->code,
        .success = h->s,
        .iters = h->it,
        .starts = h->st,
    };
    return CS_OK;
}

/* Method m on every grid point at once: a job per point, outcomes into the
 * sweep's arrays. */
static int run_method(const cs_sweep_cuda_module *mod, int device, const cs_sweep_spec *sp,
                      const size_t *Ms, const size_t *Ks, size_t m, const size_t *items,
                      size_t nitems,
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
        rc = host_job_make(&jobs[nj], sp, Ms[g], Ks[g], m, items + lo, hi - lo, err);
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

int cs_sweep_gpu_run(const cs_sweep_spec *sp, const size_t *Ms, const size_t *Ks,
                     const size_t *items, size_t nitems, unsigned char *succ, long *iters,
                     int *starts, double *secs, cs_sweep_gpu_done_fn done, void *user,
                     cs_err *err)
{
    if (sp->kind == CS_PROB_EIG || sp->kind == CS_PROB_ORTH)
        return cs_sweep_gpu_matrix_run(sp, Ms, Ks, items, nitems, succ, iters, starts, secs,
                                       done, user, err);
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
        int rc = run_method(mod, device, sp, Ms, Ks, m, items, nitems, succ, iters, starts, err);
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
