/* sweep_gpu_matrix.c — kinds eig and orth on the GPU: which sweeps it
 * takes, each trial's problem and starts drawn on the host (cs_problem_new
 * and the method stream, as sweep.c's trials draw them; on the pool's
 * threads), and a job per batch of a grid point's trials and method
 * through the module (cuda/sweep_matrix_cuda.h). */
#include "sweep_gpu_matrix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_cuda_module.h"
#include "cs_proj.h"
#include "cs_rng.h"
#include "cuda/sweep_matrix_cuda.h"
#include "sweep_gpu_common.h"

static const cs_sweep_matrix_cuda_module *g_injected;

void cs_sweep_gpu_matrix_use_module(const void *module) { g_injected = module; }

/* What the kernels run (cuda/sweep_matrix_cuda.h), in every message that refuses. */
#define TAKES "sweep device=cuda runs kind eig with methods eig, mu and ns (FISTA, the " \
              "problem's C) and kind orth with method om"

/* a batch holds at most this many doubles of problems and starts (1 GiB) */
#define BATCH_DOUBLES ((size_t)1 << 27)

/* the kernels' regularizer for m on kind, or -1: eig, mu, ns on eig and
 * om on orth, without parameters (eig, mu, ns then take the problem's C) */
static int gpu_reg(cs_kind kind, const cs_method *m)
{
    if (!m->info || m->nparams)
        return -1;
    const char *name = m->info->name;
    if (kind == CS_PROB_ORTH)
        return !strcmp(name, "om") ? CS_SWEEP_MATRIX_CUDA_OM : -1;
    if (kind != CS_PROB_EIG)
        return -1;
    if (!strcmp(name, "eig"))
        return CS_SWEEP_MATRIX_CUDA_EIG;
    if (!strcmp(name, "mu"))
        return CS_SWEEP_MATRIX_CUDA_MU;
    if (!strcmp(name, "ns"))
        return CS_SWEEP_MATRIX_CUDA_NS;
    return -1;
}

int cs_sweep_gpu_matrix_check(const cs_sweep_spec *sp, cs_err *err)
{
    const char *takes = TAKES;
    if (sp->kind != CS_PROB_EIG && sp->kind != CS_PROB_ORTH)
        return cs_fail(err, CS_EUNSUPPORTED, "%s, not kind=%s", takes,
                       cs_problem_kind_name(sp->kind));
    for (size_t m = 0; m < sp->nmethods; m++)
        if (gpu_reg(sp->kind, &sp->methods[m]) < 0 ||
            (sp->solve.algo != CS_ALGO_AUTO && sp->solve.algo != CS_ALGO_FISTA))
            return cs_fail(err, CS_EUNSUPPORTED, "%s (as the CPU runs them), not %s on kind=%s",
                           takes, sp->methods[m].text, cs_problem_kind_name(sp->kind));
    /* C is N×N; orth's X has up to N² entries */
    size_t most = sp->kind == CS_PROB_ORTH ? 256 : CS_SWEEP_MATRIX_CUDA_MAX_N;
    return cs_sweep_gpu_common_check(sp, takes, most, err);
}

static const cs_sweep_matrix_cuda_module *module(char *why, size_t len)
{
    return g_injected ? g_injected
                      : cs_cuda_module_table(CS_SWEEP_MATRIX_CUDA_SYM, CS_SWEEP_MATRIX_CUDA_ABI,
                                             sizeof(cs_sweep_matrix_cuda_job), why, len);
}

/* One batch: trials items[0..n) of one grid point, every method. The
 * problem's arrays are shared by the methods' jobs; each method has its
 * own starts (its stream) and outcomes. */
typedef struct batch {
    const cs_sweep_spec *sp;
    size_t M, K;              /* the grid point's (K: as the sweep has it) */
    size_t N, cols, r;        /* x is N×cols; the basis has r columns */
    int basis;
    const size_t *items;
    size_t n;
    double *V, *shift, *C, *xs, *xsn;
    double **starts;          /* per method: n × max_starts × 3 × entries */
    size_t *entries;          /* per method: N·cols + extra */
    int max_starts;
} batch;

static size_t shift_len(const batch *b)
{
    return (b->basis == CS_SWEEP_MATRIX_CUDA_RANGE ? b->r : b->N) * b->cols;
}

/* method m's starts from its stream: x0 (eig: randn, μ = mean(x0²), then
 * projected; orth: a random orthonormal N×K), then the L estimate's two
 * points, for every start, as solver_start.c and cs_fista_start draw them */
static int draw_starts(const batch *b, size_t m, cs_affine *P, uint64_t ms, double *out,
                       cs_err *err)
{
    const cs_sweep_spec *sp = b->sp;
    size_t nx = b->N * b->cols, n = b->entries[m];
    cs_rng rng;
    cs_rng_init(&rng, sp->seed, ms);
    for (int s = 0; s < b->max_starts; s++) {
        double *x0 = out + (size_t)s * 3 * n, *r1 = x0 + n, *r2 = r1 + n;
        if (sp->kind == CS_PROB_ORTH) {
            int rc = cs_random_orthonormal(&rng, b->N, b->cols, x0, err);
            if (rc)
                return rc;
        } else {
            cs_rng_normal_fill(&rng, x0, nx);
            double q = 0.0;
            for (size_t i = 0; i < nx; i++)
                q += x0[i] * x0[i];
            for (size_t i = nx; i < n; i++)
                x0[i] = q / (double)nx;
            cs_affine_project(P, x0, x0);
        }
        cs_rng_normal_fill(&rng, r1, n);
        cs_rng_normal_fill(&rng, r2, n);
    }
    return CS_OK;
}

/* trial i of the batch: its problem (sweep.c's draw) into the arrays */
static int draw_trial(void *ctx, size_t i, cs_err *err)
{
    batch *b = ctx;
    const cs_sweep_spec *sp = b->sp;
    long t = (long)(b->items[i] % (size_t)sp->trials);
    cs_problem_spec ps = {.kind = sp->kind, .N = sp->N, .M = b->M, .K = b->K};
    uint64_t ts = cs_sweep_trial_stream(sp->N, b->M, b->K, t);
    cs_problem *p;
    int rc = cs_problem_new(&p, &ps, sp->seed, ts, err);
    if (rc)
        return rc;
    cs_affine *P = cs_problem_affine(p);
    int basis = cs_affine_method(P) == CS_AFFINE_RANGE ? CS_SWEEP_MATRIX_CUDA_RANGE
                                                       : CS_SWEEP_MATRIX_CUDA_NULL;
    size_t N = b->N, K = b->cols, r = b->r;
    if (cs_affine_method(P) == CS_AFFINE_CHOL || basis != b->basis || cs_affine_rank(P) != r) {
        cs_problem_free(p);
        return cs_fail(err, CS_EUNSUPPORTED, "device=cuda: trial %ld's projection is not the "
                       "grid point's (%s, rank %zu)", t,
                       cs_affine_method_name(cs_affine_method(P)), cs_affine_rank(P));
    }
    const double *V = cs_affine_basis(P), *xp = cs_affine_particular(P);
    if (r)   /* M = N leaves no null space: P(z) = xp */
        memcpy(b->V + i * N * r, V, N * r * sizeof *V);
    double *sh = b->shift + i * shift_len(b);
    if (basis == CS_SWEEP_MATRIX_CUDA_RANGE) {
        /* c = Vᵀxp: P(z) = z − V(Vᵀz − c) */
        for (size_t c = 0; c < r; c++)
            for (size_t k = 0; k < K; k++) {
                double s = 0.0;
                for (size_t a = 0; a < N; a++)
                    s += V[a * r + c] * xp[a * K + k];
                sh[c * K + k] = s;
            }
    } else {
        memcpy(sh, xp, N * K * sizeof *xp);
    }
    if (b->C)
        memcpy(b->C + i * N * N, cs_problem_C(p), N * N * sizeof *b->C);
    memcpy(b->xs + i * N * K, cs_problem_xstar(p), N * K * sizeof *b->xs);
    b->xsn[i] = cs_problem_xstar_norm(p);
    for (size_t m = 0; m < sp->nmethods && !rc; m++) {
        size_t len = (size_t)b->max_starts * 3 * b->entries[m];
        rc = draw_starts(b, m, P, cs_sweep_method_stream(ts, &sp->methods[m]),
                         b->starts[m] + i * len, err);
    }
    cs_problem_free(p);
    return rc;
}

static void batch_free(batch *b)
{
    free(b->V);
    free(b->shift);
    free(b->C);
    free(b->xs);
    free(b->xsn);
    for (size_t m = 0; b->starts && m < b->sp->nmethods; m++)
        free(b->starts[m]);
    free(b->starts);
    free(b->entries);
}

/* the doubles one trial of a batch holds */
static size_t trial_doubles(const cs_sweep_spec *sp, size_t N, size_t cols, size_t r,
                            int max_starts)
{
    size_t d = N * r + N * cols * 2 + 1 + (sp->kind == CS_PROB_EIG ? N * N : 0);
    for (size_t m = 0; m < sp->nmethods; m++)
        d += (size_t)max_starts * 3 * (N * cols + 1);
    return d;
}

static int batch_make(batch *b, const cs_sweep_spec *sp, size_t M, size_t K,
                      const size_t *items, size_t n, cs_err *err)
{
    memset(b, 0, sizeof *b);
    b->sp = sp;
    b->M = M;
    b->K = K;
    b->N = sp->N;
    b->cols = sp->kind == CS_PROB_ORTH ? (K ? K : sp->N) : 1;
    /* cs_proj.h's AUTO, as cs_problem_new factors */
    b->basis = M <= sp->N - M ? CS_SWEEP_MATRIX_CUDA_RANGE : CS_SWEEP_MATRIX_CUDA_NULL;
    b->r = b->basis == CS_SWEEP_MATRIX_CUDA_RANGE ? M : sp->N - M;
    b->items = items;
    b->n = n;
    b->max_starts = sp->solve.restarts > 0 ? sp->solve.restarts
                                           : cs_kind_defaults_of(sp->kind)->starts;
    size_t N = b->N, nm = sp->nmethods;
    b->V = b->r ? malloc(n * N * b->r * sizeof *b->V) : NULL;
    b->shift = malloc(n * shift_len(b) * sizeof *b->shift);
    if (sp->kind == CS_PROB_EIG)
        b->C = malloc(n * N * N * sizeof *b->C);
    b->xs = malloc(n * N * b->cols * sizeof *b->xs);
    b->xsn = malloc(n * sizeof *b->xsn);
    b->starts = calloc(nm, sizeof *b->starts);
    b->entries = calloc(nm, sizeof *b->entries);
    int ok = (b->V || !b->r) && b->shift && (b->C || sp->kind != CS_PROB_EIG) && b->xs && b->xsn &&
             b->starts && b->entries;
    for (size_t m = 0; ok && m < nm; m++) {
        b->entries[m] = N * b->cols +
                        (gpu_reg(sp->kind, &sp->methods[m]) == CS_SWEEP_MATRIX_CUDA_MU);
        b->starts[m] = malloc(n * (size_t)b->max_starts * 3 * b->entries[m] * sizeof(double));
        ok = b->starts[m] != NULL;
    }
    return ok ? CS_OK : cs_fail(err, CS_ENOMEM, "out of memory for a GPU batch of %zu trials", n);
}

/* The batch's problems drawn, its jobs run, outcomes into the sweep's arrays. */
static int run_batch(const cs_sweep_matrix_cuda_module *mod, int device, batch *b,
                     unsigned char *succ, long *iters, int *starts, cs_err *err)
{
    const cs_sweep_spec *sp = b->sp;
    size_t nm = sp->nmethods, n = b->n;
    int rc = cs_pool_run(n, sp->threads, draw_trial, b, sp->cancel, NULL, NULL, err);
    if (rc)
        return rc;
    if (cs_cancelled(sp->cancel))
        return CS_ECANCEL;
    cs_sweep_matrix_cuda_job *js = calloc(nm, sizeof *js);
    unsigned char *s = malloc(nm * n);
    long *it = malloc(nm * n * sizeof *it);
    int *st = malloc(nm * n * sizeof *st);
    if (!js || !s || !it || !st)
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    const cs_kind_defaults *kd = cs_kind_defaults_of(sp->kind);
    for (size_t m = 0; !rc && m < nm; m++) {
        int reg = gpu_reg(sp->kind, &sp->methods[m]);
        js[m] = (cs_sweep_matrix_cuda_job){
            .reg = reg,
            .N = (int)b->N,
            .K = (int)b->cols,
            .extra = reg == CS_SWEEP_MATRIX_CUDA_MU,
            .basis = b->basis,
            .r = (int)b->r,
            .trials = (long)n,
            .maxit = sp->solve.maxit > 0 ? sp->solve.maxit : kd->maxit,
            .max_starts = b->max_starts,
            /* solver_start.c: eig's x0 projected, orth's X0 not */
            .start_feasible = sp->kind == CS_PROB_EIG,
            .stop = (int)sp->solve.stop,   /* sweep_gpu.c asserts cs_stop's values */
            /* solver.c: the residual rules' tolerance */
            .tol = sp->solve.tol > 0 ? sp->solve.tol : 1e-8,
            .orth = sp->kind == CS_PROB_ORTH,
            .success_tol = sp->solve.success_tol > 0 ? sp->solve.success_tol : 1e-2,
            .V = b->V,
            .shift = b->shift,
            .C = b->C,
            .xstar = b->xs,
            .xstar_norm = b->xsn,
            .starts = b->starts[m],
            .success = s + m * n,
            .iters = it + m * n,
            .starts_used = st + m * n,
        };
    }
    char why[512];
    if (!rc && mod->run(device, js, nm, why, sizeof why) != 0)
        rc = cs_fail(err, CS_EUNSUPPORTED, "device=cuda: %s", why);
    for (size_t m = 0; !rc && m < nm; m++)
        for (size_t i = 0; i < n; i++) {
            size_t at = b->items[i] * nm + m;
            succ[at] = s[m * n + i];
            iters[at] = it[m * n + i];
            starts[at] = st[m * n + i];
        }
    free(js);
    free(s);
    free(it);
    free(st);
    return rc;
}

int cs_sweep_gpu_matrix_run(const cs_sweep_spec *sp, const size_t *Ms, const size_t *Ks,
                            const size_t *items, size_t nitems, unsigned char *succ,
                            long *iters, int *starts, double *secs, cs_sweep_gpu_done_fn done,
                            void *user, cs_err *err)
{
    char why[512];
    int device = 0;
    if (cs_cuda_env_device(getenv("CSREG_CUDA_DEVICE"), &device, why, sizeof why))
        return cs_fail(err, CS_EINVAL, "device=cuda: %s", why);
    const cs_sweep_matrix_cuda_module *mod = module(why, sizeof why);
    if (!mod)
        return cs_fail(err, CS_EUNSUPPORTED, "device=cuda: %s", why);
    size_t T = (size_t)sp->trials, nm = sp->nmethods;
    int rc = CS_OK;
    for (size_t lo = 0; lo < nitems && !rc;) {
        if (cs_cancelled(sp->cancel))
            return CS_ECANCEL;
        size_t g = items[lo] / T, M = Ms[g], K = Ks[g];
        size_t cols = sp->kind == CS_PROB_ORTH ? (K ? K : sp->N) : 1;
        size_t r = M <= sp->N - M ? M : sp->N - M;
        int ms = sp->solve.restarts > 0 ? sp->solve.restarts
                                        : cs_kind_defaults_of(sp->kind)->starts;
        size_t most = BATCH_DOUBLES / trial_doubles(sp, sp->N, cols, r, ms), hi = lo;
        if (most < 1)
            most = 1;
        while (hi < nitems && items[hi] / T == g && hi - lo < most)
            hi++;
        batch b;
        rc = batch_make(&b, sp, M, K, items + lo, hi - lo, err);
        if (!rc)
            rc = run_batch(mod, device, &b, succ, iters, starts, err);
        batch_free(&b);
        for (size_t i = lo; !rc && i < hi; i++) {
            for (size_t m = 0; m < nm; m++)
                secs[items[i] * nm + m] = NAN;
            rc = done(user, items[i], err);
        }
        lo = hi;
    }
    return rc;
}
