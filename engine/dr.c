/* dr.c — Douglas–Rachford for ℓ∞ / ℓ1 minimization on an affine set. */
#include "cs_dr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_proj.h"

struct cs_dr {
    size_t n;
    cs_dr_fns fns;
    cs_dr_opts o;
    double *x, *z, *w, *xn;
    long it;
    int end, started, hit;
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
    if (o.stop < CS_STOP_ORACLE || o.stop > CS_STOP_MAXIT)
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
    s->end = CS_END_RUNNING;
    s->hit = 0;
    memset(&s->last, 0, sizeof s->last);
    s->last.rel_err = NAN;
    s->started = 1;
    return CS_OK;
}

int cs_dr_step(cs_dr *s, cs_err *err)
{
    if (!s->started)
        return cs_fail(err, CS_ESTATE, "Douglas-Rachford has no start point");
    if (s->end != CS_END_RUNNING)
        return 1;
    size_t n = s->n;
    double *x = s->x, *z = s->z, *w = s->w;
    for (size_t i = 0; i < n; i++)
        w[i] = 2.0 * x[i] - z[i];
    if (s->o.norm == CS_DR_LINF)
        cs_prox_linf(w, n, s->o.t, w);
    else
        cs_prox_l1(w, n, s->o.t, w);
    double dz = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = w[i] - x[i];
        z[i] += d;
        dz += d * d;
    }
    s->fns.project(s->fns.ctx, z, s->xn);
    double *t = s->x;
    s->x = s->xn;
    s->xn = t;
    x = s->x;
    double obj = 0.0, xx = 0.0;
    int finite = 1;
    for (size_t i = 0; i < n; i++) {
        double a = fabs(x[i]);
        finite &= isfinite(a);
        obj = s->o.norm == CS_DR_LINF ? fmax(obj, a) : obj + a;
        xx += x[i] * x[i];
    }
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
    int stop = s->o.stop == CS_STOP_ORACLE ? s->hit
               : s->o.stop == CS_STOP_MAXIT ? 0
                                            : s->last.norm_residual < s->o.tol;
    if (stop) {
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

int cs_dr_end(const cs_dr *s) { return s->end; }
long cs_dr_iters(const cs_dr *s) { return s->it; }
const double *cs_dr_x(const cs_dr *s) { return s->x; }
const cs_trace_rec *cs_dr_last(const cs_dr *s) { return &s->last; }
int cs_dr_oracle_hit(const cs_dr *s) { return s->hit; }
