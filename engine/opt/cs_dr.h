/* cs_dr.h — Douglas–Rachford splitting for min ‖x‖∞ or min ‖x‖₁ subject to
 * x in an affine set (the paper's ℓ∞ and ℓ1 baselines), as a stepper:
 *
 *   w = 2x − z;  y = prox_{t‖·‖}(w);  z = z + (y − x);  x = P(z)
 *
 * with t = 10 for ℓ∞ and t = 1 for ℓ1 (the paper's code), x0 = randn, z0 = 0.
 * The solution is the last x. Stopping: the oracle (x tested after each
 * step) or maxit; the tolerance rules are FASTA's applied to the fixed-point
 * residual r = ‖z⁺ − z‖ = ‖y − x‖ (which bounds the change of x):
 *   residual    r < tol
 *   normalized  r/(‖x⁺‖ + 1e-8) < tol
 *   ratio       r/(max r so far + 1e-8) < tol
 *   hybrid      ratio  or  normalized
 * On instances DR cannot recover (it converges to a non-binary ℓ∞
 * minimizer) r decays only 5–10× per 2500 iterations at N = 100, so with
 * tol = 1e-8 those runs still take about 9000 of the 1e4 iterations. */
#ifndef CS_DR_H
#define CS_DR_H

#include <stddef.h>

#include "cs_error.h"
#include "cs_fista.h" /* cs_stop, cs_end, cs_trace_rec */

enum cs_dr_norm { CS_DR_LINF = 0, CS_DR_L1 = 1 };

typedef struct cs_dr_opts {
    int norm;      /* enum cs_dr_norm */
    double t;      /* 0: 10 for ℓ∞, 1 for ℓ1 */
    long maxit;    /* 10000 */
    cs_stop stop;
    double tol;    /* 1e-8 */
} cs_dr_opts;
void cs_dr_opts_default(cs_dr_opts *o, int norm);

typedef struct cs_dr_fns {
    void *ctx;
    /* x = P(z), the projection onto the affine set; x never aliases z. */
    void (*project)(void *ctx, const double *z, double *x);
    /* Optional oracle, as for FISTA. */
    int (*oracle)(void *ctx, const double *x, double *metric);
} cs_dr_fns;

typedef struct cs_dr cs_dr;

int cs_dr_new(cs_dr **out, size_t n, const cs_dr_fns *fns, const cs_dr_opts *opts,
              cs_err *err);
void cs_dr_free(cs_dr *s);
/* Begin at x0 with z0 = 0. */
int cs_dr_start(cs_dr *s, const double *x0, cs_err *err);
/* One iteration: 0 running, 1 ended, <0 error. */
int cs_dr_step(cs_dr *s, cs_err *err);
cs_end cs_dr_end(const cs_dr *s);
long cs_dr_iters(const cs_dr *s);
const double *cs_dr_x(const cs_dr *s);
const cs_trace_rec *cs_dr_last(const cs_dr *s);  /* objective = ‖x‖∞ or ‖x‖₁, tau = t */
int cs_dr_oracle_hit(const cs_dr *s);
double cs_dr_max_residual(const cs_dr *s);       /* largest residual of this run */
/* Change the stopping rule in place, as cs_fista_set_stop. */
int cs_dr_set_stop(cs_dr *s, long maxit, cs_stop stop, double tol, cs_err *err);

#endif
