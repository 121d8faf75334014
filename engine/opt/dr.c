/* dr.c — Douglas–Rachford for ℓ∞ / ℓ1 minimization on an affine set. */
#include "cs_dr.h"
#include "cs_simd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_proj.h"

struct cs_dr {
    size_t n;
    cs_dr_fns fns;
    cs_dr_opts o;
    double *x, *z, *w, *xn;
    double max_resid;  /* largest fixed-point residual so far (ratio rule) */
    double theta;      /* ℓ∞: the last prox threshold */
    long it;
    int started, hit;
    cs_end end;
    cs_trace_rec last;
};

void cs_dr_opts_default(cs_dr_opts *o, int norm)
{
    memset(o, 0, sizeof *o);
    o->norm = norm;
    o->t = norm == CS_DR_L1 ? 1.0 : 10.0;
    o->maxit = 10000;
    o->stop = CS_STOP_ORACLE;
    o->tol = 1e-8;
}

void cs_dr_free(cs_dr *s)
{
    if (!s)
        return;
    free(s->x);
    free(s->z);
    free(s->w);
    free(s->xn);
    free(s);
}

int cs_dr_new(cs_dr **out, size_t n, const cs_dr_fns *fns, const cs_dr_opts *opts,
              cs_err *err)
{
    *out = NULL;
    if (n == 0)
        return cs_fail(err, CS_EDIM, "empty variable");
    if (!fns || !fns->project)
        return cs_fail(err, CS_EINVAL, "Douglas-Rachford needs a projection");
    cs_dr_opts o;
    if (opts)
        o = *opts;
    else
        cs_dr_opts_default(&o, CS_DR_LINF);
    if (o.norm != CS_DR_LINF && o.norm != CS_DR_L1)
        return cs_fail(err, CS_EINVAL, "unknown norm %d", o.norm);
    if (o.t == 0.0)
        o.t = o.norm == CS_DR_L1 ? 1.0 : 10.0;
    if (!(o.t > 0.0) || !isfinite(o.t))
        return cs_fail(err, CS_EINVAL, "t=%g must be positive", o.t);
    if (o.maxit < 1)
        return cs_fail(err, CS_EINVAL, "maxit=%ld must be at least 1", o.maxit);
    if (o.stop < CS_STOP_ORACLE || o.stop >= CS_STOP_COUNT)
        return cs_fail(err, CS_EINVAL, "unknown stopping rule %d", o.stop);
    if (n > ((size_t)1 << 27))
        return cs_fail(err, CS_ENOMEM, "variable of %zu entries is too large", n);
    cs_dr *s = calloc(1, sizeof *s);
    if (!s)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    s->n = n;
    s->fns = *fns;
    s->o = o;
    s->x = malloc(n * sizeof *s->x);
    s->z = malloc(n * sizeof *s->z);
    s->w = malloc(n * sizeof *s->w);
    s->xn = malloc(n * sizeof *s->xn);
    if (!s->x || !s->z || !s->w || !s->xn) {
        cs_dr_free(s);
        return cs_fail(err, CS_ENOMEM, "out of memory for Douglas-Rachford with n=%zu", n);
    }
    *out = s;
    return CS_OK;
}

int cs_dr_start(cs_dr *s, const double *x0, cs_err *err)
{
    for (size_t i = 0; i < s->n; i++)
        if (!isfinite(x0[i]))
            return cs_fail(err, CS_ENONFINITE, "start point has a non-finite entry at %zu",
                           i + 1);
    memcpy(s->x, x0, s->n * sizeof *s->x);
    memset(s->z, 0, s->n * sizeof *s->z);
    s->it = 0;
    s->max_resid = 0.0;
    s->theta = 0.0;
    s->end = CS_END_RUNNING;
    s->hit = 0;
    memset(&s->last, 0, sizeof s->last);
    s->last.rel_err = NAN;
    s->started = 1;
    return CS_OK;
}

/* The step's vector loops (cs_simd.h; AVX2 build picked at run time). */

/* w = 2x − z */
CS_AI void reflect_body(size_t n, const double *restrict x, const double *restrict z,
                     double *restrict w)
{
    v4d two = {2, 2, 2, 2};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        st4(w + i, two * ld4(x + i) - ld4(z + i));
    for (; i < n; i++)
        w[i] = 2.0 * x[i] - z[i];
}

/* y = prox(w), z += y − x; returns ‖y − x‖². The prox, entry by entry:
 * ℓ∞ clip(w, −a, a) with the threshold a (y = 0 when a = 0); ℓ1
 * sign(w)·max(|w| − a, 0). */
CS_AI double prox_update_body(size_t n, const double *restrict w, int l1, double a,
                              const double *restrict x, double *restrict z)
{
    double lo = a > 0.0 ? -a : 0.0; /* a ≥ 0: a threshold or ℓ1's t */
    v4d acc = {0, 0, 0, 0}, av = splat(a), lov = splat(lo);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4d v = ld4(w + i);
        v4d d = (l1 ? vsoft(v, av) : vclip(v, lov, av)) - ld4(x + i);
        st4(z + i, ld4(z + i) + d);
        acc += d * d;
    }
    double s = hsum(acc);
    for (; i < n; i++) {
        double d = (l1 ? soft1(w[i], a) : clip1(w[i], lo, a)) - x[i];
        z[i] += d;
        s += d * d;
    }
    return s;
}

/* ‖x‖∞ (linf) or ‖x‖₁, and ‖x‖² */
CS_AI void norms_body(size_t n, const double *restrict x, int linf, double *obj, double *xx)
{
    v4d m = {0, 0, 0, 0}, q = m;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4d v = ld4(x + i), a = vabs(v);
        if (linf) {
            v4l gt = a > m;
            m = (v4d)(((v4l)a & gt) | ((v4l)m & ~gt));
        } else {
            m += a;
        }
        q += v * v;
    }
    double m01 = m[0] > m[1] ? m[0] : m[1], m23 = m[2] > m[3] ? m[2] : m[3];
    double o = linf ? (m01 > m23 ? m01 : m23) : hsum(m), s = hsum(q);
    for (; i < n; i++) {
        double a = fabs(x[i]);
        o = linf ? (a > o ? a : o) : o + a;
        s += x[i] * x[i];
    }
    *obj = o;
    *xx = s;
}

#ifdef CS_AVX2_CLONE
static CS_AVX2_FN void reflect_avx2(size_t n, const double *x, const double *z, double *w)
{
    reflect_body(n, x, z, w);
}
static CS_AVX2_FN double prox_update_avx2(size_t n, const double *w, int l1, double a,
                                          const double *x, double *z)
{
    return prox_update_body(n, w, l1, a, x, z);
}
static CS_AVX2_FN void norms_avx2(size_t n, const double *x, int linf, double *obj, double *xx)
{
    norms_body(n, x, linf, obj, xx);
}
#endif

static void reflect(size_t n, const double *x, const double *z, double *w)
{
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2()) {
        reflect_avx2(n, x, z, w);
        return;
    }
#endif
    reflect_body(n, x, z, w);
}

static double prox_update(size_t n, const double *w, int l1, double a, const double *x,
                          double *z)
{
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2())
        return prox_update_avx2(n, w, l1, a, x, z);
#endif
    return prox_update_body(n, w, l1, a, x, z);
}

static void norms(size_t n, const double *x, int linf, double *obj, double *xx)
{
#ifdef CS_AVX2_CLONE
    if (cs_cpu_avx2()) {
        norms_avx2(n, x, linf, obj, xx);
        return;
    }
#endif
    norms_body(n, x, linf, obj, xx);
}

int cs_dr_step(cs_dr *s, cs_err *err)
{
    if (!s->started)
        return cs_fail(err, CS_ESTATE, "Douglas-Rachford has no start point");
    if (s->end != CS_END_RUNNING)
        return 1;
    size_t n = s->n;
    double *x = s->x, *z = s->z, *w = s->w;
    reflect(n, x, z, w);
    int l1 = s->o.norm == CS_DR_L1;
    double a = s->o.t;
    if (!l1) /* the last step's threshold is a close hint */
        a = s->theta = cs_linf_threshold(w, n, s->o.t, s->theta);
    double dz = prox_update(n, w, l1, a, x, z);
    s->fns.project(s->fns.ctx, z, s->xn);
    double *t = s->x;
    s->x = s->xn;
    s->xn = t;
    x = s->x;
    double obj, xx;
    norms(n, x, s->o.norm == CS_DR_LINF, &obj, &xx);
    int finite = isfinite(xx) && isfinite(obj); /* ‖x‖² is finite iff every entry is */
    long i = ++s->it;
    double metric = NAN;
    s->hit = s->fns.oracle ? s->fns.oracle(s->fns.ctx, x, &metric) : 0;
    double resid = sqrt(dz);
    s->last.iter = i;
    s->last.backtracks = 0;
    s->last.objective = obj;
    s->last.residual = resid;
    s->last.norm_residual = resid / (sqrt(xx) + 1e-8);
    s->last.tau = s->o.t;
    s->last.rel_err = metric;
    if (!finite) {
        s->end = CS_END_DIVERGED;
        return 1;
    }
    /* FASTA's rules on the DR fixed-point residual r = ‖z⁺ − z‖ = ‖y − x‖
     * (nonincreasing for DR; it bounds ‖x⁺ − x‖ = ‖P₀(z⁺ − z)‖, the change of
     * x): residual r < tol; normalized r/(‖x‖ + 1e-8) < tol; hybrid (FASTA's
     * default) ratio r/(max r + 1e-8) < tol or normalized < tol. */
    if (resid > s->max_resid)
        s->max_resid = resid;
    s->last.hit = s->hit;
    if (cs_stop_fires(s->o.stop, s->hit, resid, s->max_resid, s->last.norm_residual, s->o.tol,
                      1e-8)) {
        s->end = s->o.stop == CS_STOP_ORACLE ? CS_END_ORACLE : CS_END_TOL;
        return 1;
    }
    if (i >= s->o.maxit) {
        s->end = CS_END_MAXIT;
        return 1;
    }
    (void)err;
    return 0;
}

cs_end cs_dr_end(const cs_dr *s) { return s->end; }
long cs_dr_iters(const cs_dr *s) { return s->it; }
const double *cs_dr_x(const cs_dr *s) { return s->x; }
const cs_trace_rec *cs_dr_last(const cs_dr *s) { return &s->last; }
int cs_dr_oracle_hit(const cs_dr *s) { return s->hit; }
double cs_dr_max_residual(const cs_dr *s) { return s->max_resid; }

int cs_dr_set_stop(cs_dr *s, long maxit, cs_stop stop, double tol, cs_err *err)
{
    int rc = cs_stop_check(maxit, stop, tol, err);
    if (rc)
        return rc;
    s->o.maxit = maxit;
    s->o.stop = stop;
    s->o.tol = tol;
    return CS_OK;
}
