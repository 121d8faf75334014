/* fista.c — FASTA-equivalent forward–backward splitting stepper. */
#include "cs_fista.h"
#include "cs_simd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cs_fista {
    size_t n;
    cs_fista_fns fns;
    cs_fista_opts o;
    double *x0;    /* point the forward–backward step starts from (extrapolated) */
    double *g0;    /* ∇f(x0) */
    double *x1;    /* candidate / new forward–backward iterate */
    double *g1;    /* ∇f(x1) (adaptive mode) */
    double *xa0;   /* previous forward–backward iterate (acceleration) */
    double *xa1;   /* latest forward–backward iterate */
    double *d;     /* P₀(g0) on the affine fast path */
    double *base;  /* prox(x0) when x0 is infeasible */
    double *best;
    double *fwin;  /* the last `window` f values, by iteration */
    double f_start;
    double g0norm;  /* ‖g0‖ */
    double best_obj;
    long best_it;  /* the iteration of `best` (0: the start point) */
    double tau, L, alpha, max_resid;
    long it, total_bt;
    int feasible, started, oracle_hit;
    cs_end end;
    int avx2;      /* vector loops: the AVX2 build */
    cs_trace_rec last;
    cs_trial_rec *trials;  /* opts.ledger: the last iteration's trial steps */
    size_t ntrials;
};

const char *cs_stop_name(cs_stop stop)
{
    switch (stop) {
    case CS_STOP_ORACLE: return "oracle";
    case CS_STOP_HYBRID: return "hybrid";
    case CS_STOP_RESIDUAL: return "residual";
    case CS_STOP_NORMALIZED: return "normalized";
    case CS_STOP_MAXIT: return "maxit";
    case CS_STOP_RATIO: return "ratio";
    default: return "?";
    }
}

int cs_stop_parse(const char *name, cs_stop *stop, cs_err *err)
{
    for (cs_stop s = CS_STOP_ORACLE; s < CS_STOP_COUNT; s++)
        if (name && strcmp(name, cs_stop_name(s)) == 0) {
            *stop = s;
            return CS_OK;
        }
    return cs_fail(err, CS_EINVAL,
                   "stop=%s: expected oracle, hybrid, residual, normalized, ratio or maxit",
                   name ? name : "");
}

int cs_stop_fires(cs_stop stop, int hit, double resid, double max_resid, double nres,
                  double tol, double eps_r)
{
    switch (stop) {
    case CS_STOP_ORACLE: return hit;
    case CS_STOP_HYBRID: return resid / (max_resid + eps_r) < tol || nres < tol;
    case CS_STOP_RATIO: return resid / (max_resid + eps_r) < tol;
    case CS_STOP_RESIDUAL: return resid < tol;
    case CS_STOP_NORMALIZED: return nres < tol;
    default: return 0;
    }
}

const char *cs_end_name(cs_end end)
{
    switch (end) {
    case CS_END_RUNNING: return "running";
    case CS_END_ORACLE: return "oracle";
    case CS_END_TOL: return "tolerance";
    case CS_END_MAXIT: return "maxit";
    case CS_END_DIVERGED: return "diverged";
    default: return "?";
    }
}

void cs_fista_opts_default(cs_fista_opts *o)
{
    memset(o, 0, sizeof *o);
    o->maxit = 10000;
    o->accelerate = 1;
    o->restart = 1;
    o->adaptive = 0;
    o->backtrack = 1;
    o->shrink = 0.0;
    o->window = 10;
    o->max_backtracks = 20;
    o->tau0 = 0.0;
    o->stop = CS_STOP_ORACLE;
    o->tol = 1e-8;
    o->eps_r = 1e-8;
    o->eps_n = 1e-8;
}

void cs_fista_free(cs_fista *s)
{
    if (!s)
        return;
    free(s->x0);
    free(s->g0);
    free(s->x1);
    free(s->g1);
    free(s->xa0);
    free(s->xa1);
    free(s->d);
    free(s->base);
    free(s->best);
    free(s->fwin);
    free(s->trials);
    free(s);
}

int cs_fista_new(cs_fista **out, size_t n, const cs_fista_fns *fns, const cs_fista_opts *opts,
                 cs_err *err)
{
    *out = NULL;
    if (n == 0)
        return cs_fail(err, CS_EDIM, "empty variable");
    if (!fns || !fns->fg)
        return cs_fail(err, CS_EINVAL, "FISTA needs an objective");
    cs_fista_opts o;
    if (opts)
        o = *opts;
    else
        cs_fista_opts_default(&o);
    if (o.maxit < 1)
        return cs_fail(err, CS_EINVAL, "maxit=%ld must be at least 1", o.maxit);
    if (o.window < 1 || o.window > 1000)
        return cs_fail(err, CS_EINVAL, "window=%d must be in [1, 1000]", o.window);
    if (o.max_backtracks < 0)
        return cs_fail(err, CS_EINVAL, "max_backtracks must be nonnegative");
    if (o.shrink == 0.0)
        o.shrink = (o.adaptive && !o.accelerate) ? 0.2 : 0.5;
    if (!(o.shrink > 0.0 && o.shrink < 1.0))
        return cs_fail(err, CS_EINVAL, "shrink=%g must be in (0, 1)", o.shrink);
    if (!(o.tol >= 0.0) || !(o.tau0 >= 0.0))
        return cs_fail(err, CS_EINVAL, "tol and tau0 must be nonnegative");
    if (o.stop < CS_STOP_ORACLE || o.stop >= CS_STOP_COUNT)
        return cs_fail(err, CS_EINVAL, "unknown stopping rule %d", o.stop);
    if (o.max_backtracks > 10000)
        return cs_fail(err, CS_EINVAL, "max_backtracks=%d: at most 10000", o.max_backtracks);
    if (n > ((size_t)1 << 27))
        return cs_fail(err, CS_ENOMEM, "variable of %zu entries is too large", n);
    cs_fista *s = calloc(1, sizeof *s);
    if (!s)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    s->n = n;
    s->avx2 = cs_cpu_avx2();
    s->fns = *fns;
    s->o = o;
    double **bufs[] = {&s->x0, &s->g0, &s->x1, &s->g1, &s->xa0, &s->xa1, &s->d, &s->base,
                       &s->best};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        *bufs[i] = malloc(n * sizeof(double));
        if (!*bufs[i]) {
            cs_fista_free(s);
            return cs_fail(err, CS_ENOMEM, "out of memory for FISTA with n=%zu", n);
        }
    }
    s->fwin = malloc((size_t)o.window * sizeof *s->fwin);
    s->trials = malloc(((size_t)o.max_backtracks + 1) * sizeof *s->trials);
    if (!s->fwin || !s->trials) {
        cs_fista_free(s);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    *out = s;
    return CS_OK;
}

/* Vector loops, written once on 4-wide vectors (GCC vector extensions) and
 * compiled for AVX2 (used when the CPU has it) and for the baseline ISA; a
 * solver uses one build throughout, so results do not depend on threads. */

CS_AI double nrm2_body(const double *restrict x, size_t n)
{
    v4d a0 = splat(0), a1 = a0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        v4d u = ld4(x + i), w = ld4(x + i + 4);
        a0 += u * u;
        a1 += w * w;
    }
    double s = hsum(a0 + a1);
    for (; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

/* x1 = b − τd (the affine fast path) and the candidate's statistics:
 * ⟨Δx, g0⟩, ‖Δx‖², ‖x1 − (x0 − τg0)‖², −Δxᵀ(x1 − xa), Δx = x1 − x0, and
 * ‖x1 − xs‖² when xs (the oracle's x*) is given. */
CS_AI void cand_dir_body(size_t n, double tau, const double *restrict b, const double *restrict d,
                      const double *restrict x0, const double *restrict g0,
                      const double *restrict xa, const double *restrict xs,
                      double *restrict x1, double st[5])
{
    v4d A = splat(0), B = A, C = A, R = A, E = A, T = splat(tau);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4d xv = ld4(b + i) - T * ld4(d + i);
        st4(x1 + i, xv);
        v4d x0v = ld4(x0 + i), gv = ld4(g0 + i);
        v4d dx = xv - x0v, h = dx + T * gv;
        A += dx * gv;
        B += dx * dx;
        C += h * h;
        R -= dx * (xv - ld4(xa + i));
        if (xs) {
            v4d e = xv - ld4(xs + i);
            E += e * e;
        }
    }
    double a = hsum(A), bb = hsum(B), c = hsum(C), r = hsum(R), e2 = hsum(E);
    for (; i < n; i++) {
        x1[i] = b[i] - tau * d[i];
        double dx = x1[i] - x0[i], h = dx + tau * g0[i];
        a += dx * g0[i];
        bb += dx * dx;
        c += h * h;
        r -= dx * (x1[i] - xa[i]);
        if (xs)
            e2 += (x1[i] - xs[i]) * (x1[i] - xs[i]);
    }
    st[0] = a, st[1] = bb, st[2] = c, st[3] = r, st[4] = e2;
}

/* the same statistics for an x1 already computed */
CS_AI void cand_stats_body(size_t n, double tau, const double *restrict x1,
                        const double *restrict x0, const double *restrict g0,
                        const double *restrict xa, double st[4])
{
    v4d A = splat(0), B = A, C = A, R = A, T = splat(tau);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4d xv = ld4(x1 + i), gv = ld4(g0 + i);
        v4d dx = xv - ld4(x0 + i), h = dx + T * gv;
        A += dx * gv;
        B += dx * dx;
        C += h * h;
        R -= dx * (xv - ld4(xa + i));
    }
    double a = hsum(A), bb = hsum(B), c = hsum(C), r = hsum(R);
    for (; i < n; i++) {
        double dx = x1[i] - x0[i], h = dx + tau * g0[i];
        a += dx * g0[i];
        bb += dx * dx;
        c += h * h;
        r -= dx * (x1[i] - xa[i]);
    }
    st[0] = a, st[1] = bb, st[2] = c, st[3] = r;
}

/* y = x1 + c(x1 − x0) */
CS_AI void extrap_body(size_t n, double c, const double *restrict x1, const double *restrict x0,
                    double *restrict y)
{
    v4d cv = splat(c);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4d a = ld4(x1 + i);
        st4(y + i, a + cv * (a - ld4(x0 + i)));
    }
    for (; i < n; i++)
        y[i] = x1[i] + c * (x1[i] - x0[i]);
}

#ifdef CS_AVX2_CLONE
static CS_AVX2_FN double nrm2_avx2(const double *x, size_t n) { return nrm2_body(x, n); }
static CS_AVX2_FN void cand_dir_avx2(size_t n, double tau, const double *b, const double *d,
                                  const double *x0, const double *g0, const double *xa,
                                  double *x1, double st[5])
{
    cand_dir_body(n, tau, b, d, x0, g0, xa, NULL, x1, st);
}
static CS_AVX2_FN void cand_dir_xs_avx2(size_t n, double tau, const double *b, const double *d,
                                     const double *x0, const double *g0, const double *xa,
                                     const double *xs, double *x1, double st[5])
{
    cand_dir_body(n, tau, b, d, x0, g0, xa, xs, x1, st);
}
static CS_AVX2_FN void cand_stats_avx2(size_t n, double tau, const double *x1, const double *x0,
                                    const double *g0, const double *xa, double st[4])
{
    cand_stats_body(n, tau, x1, x0, g0, xa, st);
}
static CS_AVX2_FN void extrap_avx2(size_t n, double c, const double *x1, const double *x0,
                                double *y)
{
    extrap_body(n, c, x1, x0, y);
}
#endif

static double nrm2_v(const double *x, size_t n, int avx2)
{
#ifdef CS_AVX2_CLONE
    if (avx2)
        return nrm2_avx2(x, n);
#endif
    (void)avx2;
    return nrm2_body(x, n);
}

static void cand_dir(int avx2, size_t n, double tau, const double *b, const double *d,
                     const double *x0, const double *g0, const double *xa, const double *xs,
                     double *x1, double st[5])
{
#ifdef CS_AVX2_CLONE
    if (avx2) {
        if (xs)
            cand_dir_xs_avx2(n, tau, b, d, x0, g0, xa, xs, x1, st);
        else
            cand_dir_avx2(n, tau, b, d, x0, g0, xa, x1, st);
        return;
    }
#endif
    (void)avx2;
    cand_dir_body(n, tau, b, d, x0, g0, xa, xs, x1, st);
}

static void cand_stats(int avx2, size_t n, double tau, const double *x1, const double *x0,
                       const double *g0, const double *xa, double st[4])
{
#ifdef CS_AVX2_CLONE
    if (avx2) {
        cand_stats_avx2(n, tau, x1, x0, g0, xa, st);
        return;
    }
#endif
    (void)avx2;
    cand_stats_body(n, tau, x1, x0, g0, xa, st);
}

static void extrap(int avx2, size_t n, double c, const double *x1, const double *x0, double *y)
{
#ifdef CS_AVX2_CLONE
    if (avx2) {
        extrap_avx2(n, c, x1, x0, y);
        return;
    }
#endif
    (void)avx2;
    extrap_body(n, c, x1, x0, y);
}

int cs_fista_estimate_L(const cs_fista_fns *fns, size_t n, cs_rng *rng, double *const work[4],
                        double *L_out, cs_err *err)
{
    double *r1 = work[0], *r2 = work[1], *ga = work[2], *gb = work[3];
    cs_rng_normal_fill(rng, r1, n);
    cs_rng_normal_fill(rng, r2, n);
    double fa, fb;
    int rc = fns->fg(fns->ctx, r1, &fa, ga, err);
    if (!rc)
        rc = fns->fg(fns->ctx, r2, &fb, gb, err);
    if (rc == CS_ENONFINITE) {
        /* Random points far out overflow some objectives: fall back to L = 1. */
        *L_out = 1.0;
        return CS_OK;
    }
    if (rc)
        return rc;
    double dg = 0.0, dx = 0.0;
    for (size_t i = 0; i < n; i++) {
        double a = ga[i] - gb[i], b = r2[i] - r1[i];
        dg += a * a;
        dx += b * b;
    }
    double L = sqrt(dg) / sqrt(dx);
    if (!(L >= 1e-6) || !isfinite(L))
        L = isfinite(L) ? 1e-6 : 1.0;
    *L_out = L;
    return CS_OK;
}

static int start_at(cs_fista *s, const double *x0, int x0_feasible, cs_err *err);

static int start_finite(const double *x0, size_t n, cs_err *err)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x0[i])) {
            cs_fail(err, CS_ENONFINITE, "start point has a non-finite entry at %zu", i + 1);
            return 0;
        }
    return 1;
}

int cs_fista_start(cs_fista *s, const double *x0, int x0_feasible, cs_rng *rng, cs_err *err)
{
    s->started = 0;
    if (s->o.tau0 > 0.0)
        return cs_fista_start_L(s, x0, x0_feasible, 1.0 / s->o.tau0, err);
    if (!rng)
        return cs_fail(err, CS_EINVAL, "FISTA needs a random stream to estimate L");
    if (!start_finite(x0, s->n, err))
        return CS_ENONFINITE;
    double L, *work[4] = {s->xa0, s->x1, s->g1, s->d};
    int rc = cs_fista_estimate_L(&s->fns, s->n, rng, work, &L, err);
    if (rc)
        return rc;
    return cs_fista_start_L(s, x0, x0_feasible, L, err);
}

int cs_fista_start_L(cs_fista *s, const double *x0, int x0_feasible, double L, cs_err *err)
{
    s->started = 0;
    if (!(L > 0.0) || !isfinite(L))
        return cs_fail(err, CS_EINVAL, "L=%g must be positive and finite", L);
    if (!start_finite(x0, s->n, err))
        return CS_ENONFINITE;
    s->L = L;
    s->tau = s->o.tau0 > 0.0 ? s->o.tau0 : 2.0 / L / 10.0;
    return start_at(s, x0, x0_feasible, err);
}

static int start_at(cs_fista *s, const double *x0, int x0_feasible, cs_err *err)
{
    size_t n = s->n;
    s->end = CS_END_RUNNING;
    s->it = 0;
    s->total_bt = 0;
    s->oracle_hit = 0;
    s->ntrials = 0;
    memcpy(s->x0, x0, n * sizeof *x0);
    memcpy(s->xa1, x0, n * sizeof *x0);
    memcpy(s->best, x0, n * sizeof *x0);
    int rc = s->fns.fg(s->fns.ctx, s->x0, &s->f_start, s->g0, err);
    if (rc)
        return rc == CS_ENONFINITE
                   ? cs_fail(err, CS_ENONFINITE, "objective is not finite at the start point")
                   : rc;
    s->g0norm = nrm2_v(s->g0, n, s->avx2);
    s->alpha = 1.0;
    s->max_resid = -INFINITY;
    s->best_obj = INFINITY;
    s->best_it = 0;
    s->feasible = x0_feasible || !s->fns.prox;
    memset(&s->last, 0, sizeof s->last);
    s->last.rel_err = NAN;
    s->started = 1;
    return CS_OK;
}

/* Forward–backward candidate at step τ into x1. Returns ⟨Δx, g0⟩, ‖Δx‖²,
 * ‖x1 − x̂1‖² with x̂1 = x0 − τ·g0, and the restart product
 * (x0 − x1)ᵀ(x1 − xa1), all in one pass with split accumulators. */
typedef struct fb_stats {
    double dxg, dxx, dhat, rst, err2; /* err2: ‖x1 − x*‖² (fns.xstar), else NaN */
} fb_stats;

static void fb_candidate(cs_fista *s, double tau, fb_stats *st)
{
    size_t n = s->n;
    const double *x0 = s->x0, *g0 = s->g0, *xa = s->xa1;
    double *x1 = s->x1;
    double v[5] = {0, 0, 0, 0, NAN};
    if (s->fns.dir) {
        cand_dir(s->avx2, n, tau, s->feasible ? x0 : s->base, s->d, x0, g0, xa, s->fns.xstar, x1,
                 v);
        if (!s->fns.xstar)
            v[4] = NAN;
    } else {
        if (s->fns.prox) {
            double *xh = s->base;
            for (size_t i = 0; i < n; i++)
                xh[i] = x0[i] - tau * g0[i];
            s->fns.prox(s->fns.ctx, xh, x1, tau);
        } else {
            for (size_t i = 0; i < n; i++)
                x1[i] = x0[i] - tau * g0[i];
        }
        cand_stats(s->avx2, n, tau, x1, x0, g0, xa, v);
    }
    st->dxg = v[0];
    st->dxx = v[1];
    st->dhat = v[2];
    st->rst = v[3];
    st->err2 = v[4];
}

static double window_max(const double *f, long cnt)
{
    double m = -INFINITY;
    for (long k = 0; k < cnt; k++)
        m = f[k] > m ? f[k] : m;
    return m;
}

static int eval_f(cs_fista *s, const double *x, double *f, double *g, cs_err *err)
{
    int rc = s->fns.fg(s->fns.ctx, x, f, g, err);
    if (rc == CS_ENONFINITE) {
        *f = INFINITY;
        return 1; /* diverged */
    }
    return rc;
}

int cs_fista_step_begin(cs_fista *s, const double **g, double **d, cs_err *err)
{
    *g = NULL;
    *d = NULL;
    if (!s->started)
        return cs_fail(err, CS_ESTATE, "FISTA has no start point (call start first)");
    if (s->end != CS_END_RUNNING)
        return 1;
    if (s->fns.dir) {
        if (!s->feasible)
            s->fns.prox(s->fns.ctx, s->x0, s->base, s->tau);
        *g = s->g0;
        *d = s->d;
    }
    return 0;
}

int cs_fista_step(cs_fista *s, cs_err *err)
{
    const double *g;
    double *d;
    int rc = cs_fista_step_begin(s, &g, &d, err);
    if (rc)
        return rc;
    if (g)
        s->fns.dir(s->fns.ctx, g, d);
    return cs_fista_step_end(s, err);
}

static void note_trial(cs_fista *s, long iter, double tau, double f, double bound, int accepted)
{
    s->trials[s->ntrials] = (cs_trial_rec){.iter = iter, .trial = (int)s->ntrials + 1,
                                           .tau = tau, .f = f, .bound = bound,
                                           .accepted = accepted};
    s->ntrials++;
}

int cs_fista_step_end(cs_fista *s, cs_err *err)
{
    size_t n = s->n;
    const cs_fista_opts *o = &s->o;
    long i = s->it + 1;
    double tau = s->tau;
    int bfg = o->adaptive && !o->accelerate; /* need ∇f(x1) */
    double f1;
    fb_stats fs;
    fb_candidate(s, tau, &fs);
    int rc = eval_f(s, s->x1, &f1, bfg ? s->g1 : NULL, err);
    if (rc < 0)
        return rc;
    int bt = 0;
    s->ntrials = 0;
    if (o->backtrack) {
        double Mx;
        if (i == 1) {
            Mx = s->f_start;
        } else {
            /* iterations max(1, i − window) .. i − 1 fill the ring's first
             * min(window, i − 1) slots: their max, without a division each */
            Mx = window_max(s->fwin, i - 1 < o->window ? i - 1 : o->window);
        }
        for (;;) {
            double bound = Mx + fs.dxg + fs.dxx / (2.0 * tau);
            int again = f1 - 1e-12 > bound && bt < o->max_backtracks;
            if (o->ledger)
                note_trial(s, i, tau, f1, bound, !again);
            if (!again)
                break;
            tau *= o->shrink;
            fb_candidate(s, tau, &fs);
            rc = eval_f(s, s->x1, &f1, bfg ? s->g1 : NULL, err);
            if (rc < 0)
                return rc;
            bt++;
        }
        s->total_bt += bt;
    } else if (o->ledger) {
        note_trial(s, i, tau, f1, NAN, 1);
    }
    s->feasible = 1; /* x1 = prox(...) lies in the set */
    double resid = sqrt(fs.dxx) / tau;
    if (resid > s->max_resid)
        s->max_resid = resid;
    double normalizer = fmax(s->g0norm, sqrt(fs.dhat) / tau) + o->eps_n;
    double nres = resid / normalizer;
    s->fwin[(i - 1) % o->window] = f1;
    if (f1 < s->best_obj) {
        s->best_obj = f1;
        s->best_it = i;
        memcpy(s->best, s->x1, n * sizeof *s->best);
    }
    double metric = NAN;
    int hit = 0;
    if (!isnan(fs.err2)) {
        metric = sqrt(fs.err2) / s->fns.xstar_norm;
        hit = metric < s->fns.oracle_tol;
    } else if (s->fns.oracle) {
        hit = s->fns.oracle(s->fns.ctx, s->x1, &metric);
    }
    s->oracle_hit = hit;
    s->it = i;
    s->tau = tau;
    s->last.iter = i;
    s->last.backtracks = bt;
    s->last.objective = f1;
    s->last.residual = resid;
    s->last.norm_residual = nres;
    s->last.tau = tau;
    s->last.rel_err = metric;
    s->last.hit = hit;

    int stop = cs_stop_fires(o->stop, hit, resid, s->max_resid, nres, o->tol, o->eps_r);
    if (!isfinite(f1)) {
        s->end = CS_END_DIVERGED;
        return 1;
    }
    if (stop) {
        s->end = o->stop == CS_STOP_ORACLE ? CS_END_ORACLE : CS_END_TOL;
        return 1;
    }
    if (i >= o->maxit) {
        s->end = CS_END_MAXIT;
        return 1;
    }

    double *t;
    if (o->accelerate) {
        /* x_accel0 ← x_accel1; x_accel1 ← x1; restart test uses the old x0. */
        double *xa0 = s->xa1, *xa1 = s->x1;
        double alpha0 = s->alpha;
        if (o->restart && fs.rst > 0.0)
            alpha0 = 1.0;
        double alpha1 = (1.0 + sqrt(1.0 + 4.0 * alpha0 * alpha0)) / 2.0;
        double c = (alpha0 - 1.0) / alpha1;
        double *y = s->x0;
        extrap(s->avx2, n, c, xa1, xa0, y);
        t = s->xa0;
        s->xa0 = xa0;
        s->xa1 = xa1;
        s->x1 = t;
        s->alpha = alpha1;
        double fy;
        if (s->fns.fg_gnorm) {
            rc = s->fns.fg_gnorm(s->fns.ctx, y, &fy, s->g0, &s->g0norm, err);
            if (rc == CS_ENONFINITE)
                rc = 1;
        } else {
            rc = eval_f(s, y, &fy, s->g0, err);
            if (rc == 0)
                s->g0norm = nrm2_v(s->g0, n, s->avx2);
        }
        if (rc < 0)
            return rc;
        if (rc > 0) {
            s->end = CS_END_DIVERGED;
            return 1;
        }
        s->fwin[(i - 1) % o->window] = fy;
    } else if (o->adaptive) {
        /* Barzilai–Borwein: Δg = ∇f(x1) − ∇f(x0). */
        double dd = 0.0, gg = 0.0, xx = 0.0;
        for (size_t k = 0; k < n; k++) {
            double dx = s->x1[k] - s->x0[k], dg = s->g1[k] - s->g0[k];
            dd += dx * dg;
            gg += dg * dg;
            xx += dx * dx;
        }
        double tau_s = xx / dd, tau_m = dd / gg;
        if (!(tau_m > 0.0))
            tau_m = 0.0;
        double tau1 = 2.0 * tau_m > tau_s ? tau_m : tau_s - 0.5 * tau_m;
        if (!(tau1 > 0.0) || !isfinite(tau1))
            tau1 = tau * 1.5;
        s->tau = tau1;
        t = s->x0;
        s->x0 = s->x1;
        s->x1 = t;
        t = s->g0;
        s->g0 = s->g1;
        s->g1 = t;
        s->g0norm = nrm2_v(s->g0, n, s->avx2);
    } else {
        t = s->x0;
        s->x0 = s->x1;
        s->x1 = t;
        double f0;
        rc = eval_f(s, s->x0, &f0, s->g0, err);
        if (rc < 0)
            return rc;
        if (rc > 0) {
            s->end = CS_END_DIVERGED;
            return 1;
        }
        s->g0norm = nrm2_v(s->g0, n, s->avx2);
    }
    return 0;
}

cs_end cs_fista_end(const cs_fista *s) { return s->end; }
long cs_fista_iters(const cs_fista *s) { return s->it; }
const double *cs_fista_best(const cs_fista *s) { return s->best; }
double cs_fista_best_objective(const cs_fista *s) { return s->best_obj; }
long cs_fista_best_iter(const cs_fista *s) { return s->best_it; }
double cs_fista_tau(const cs_fista *s) { return s->tau; }
double cs_fista_L(const cs_fista *s) { return s->L; }
const cs_trace_rec *cs_fista_last(const cs_fista *s) { return &s->last; }
int cs_fista_oracle_hit(const cs_fista *s) { return s->oracle_hit; }
long cs_fista_total_backtracks(const cs_fista *s) { return s->total_bt; }
double cs_fista_max_residual(const cs_fista *s) { return s->max_resid; }

const cs_trial_rec *cs_fista_trials(const cs_fista *s, size_t *n)
{
    *n = s->ntrials;
    return s->trials;
}

int cs_stop_check(long maxit, cs_stop stop, double tol, cs_err *err)
{
    if (maxit < 1)
        return cs_fail(err, CS_EINVAL, "maxit=%ld must be at least 1", maxit);
    if (stop < CS_STOP_ORACLE || stop >= CS_STOP_COUNT)
        return cs_fail(err, CS_EINVAL, "unknown stopping rule %d", stop);
    if (!(tol >= 0.0))
        return cs_fail(err, CS_EINVAL, "tol must be nonnegative");
    return CS_OK;
}

int cs_fista_set_stop(cs_fista *s, long maxit, cs_stop stop, double tol, cs_err *err)
{
    int rc = cs_stop_check(maxit, stop, tol, err);
    if (rc)
        return rc;
    s->o.maxit = maxit;
    s->o.stop = stop;
    s->o.tol = tol;
    return CS_OK;
}

const double *cs_fista_current(const cs_fista *s)
{
    /* After an accelerated step the latest forward–backward iterate is xa1;
     * otherwise it is x0 (swapped in) or, at the final step, x1. */
    if (s->it == 0)
        return s->x0;
    if (s->end != CS_END_RUNNING)
        return s->x1;
    return s->o.accelerate ? s->xa1 : s->x0;
}
