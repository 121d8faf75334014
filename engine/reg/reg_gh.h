/* reg_gh.h — the two steps of every regularizer built from elementwise g
 * and h (engine/reg only):
 *   FILL     g(x_n), g'(x_n), h(x_n), h'(x_n) of every entry into four
 *            arrays (the built-ins by their formulas, a defined one by its
 *            compiled expressions);
 *   COMBINE  the form over those arrays: the CS form in the Lemma-1
 *            residual (reg_combine.c), Hölder and scale-invariant Hölder
 *            (reg_holder.c).
 * Built-in and defined regularizers share the COMBINE step: a form is
 * written once. */
#ifndef CS_REG_GH_H
#define CS_REG_GH_H

#include <stddef.h>

#include "cs_reg.h"

typedef struct cs_gh {
    double *g, *dg, *h, *dh;   /* n entries each (dg, dh: filled when a gradient is wanted) */
    int flat_h;                /* h' ≡ 0: dh is neither filled nor read */
} cs_gh;

/* Fill a at x (n entries); need_d: also g' and h'. Errors (a defined
 * expression that goes NaN or Inf) name the term and the coordinate. */
typedef int (*cs_fill_fn)(cs_reg *reg, const double *x, size_t n, cs_gh *a, int need_d,
                          cs_err *err);

/* Four arrays of n entries from the instance's scratch (a.g .. a.dh), plus
 * `more` further doubles at *more_out (may be NULL when more is 0). */
int cs_gh_scratch(cs_reg *reg, size_t n, size_t more, cs_gh *a, double **more_out,
                  cs_err *err);

/* FILL for the elementwise built-ins, by their kernel id (the g and h of
 * reg_builtins.def); d: also g' and h'. */
void cs_fill_builtin(cs_reg_kernel k, const double *x, size_t n, cs_gh *a, int d);

/* The CS form ℓ = ‖g‖²‖h‖² − ⟨g,h⟩² over a (n entries) as the Lemma-1
 * residual ‖h‖²‖g − βh‖² = Σ R_n²/‖h‖², R_n = ‖h‖²g_n − ⟨g,h⟩h_n, with
 * one rounding per R_n (Kahan's fma form), so values near the zero set keep
 * their relative accuracy and integer data give exact integers. tail (may
 * be NULL) appends one constant pair (g, h) = (*tail, 1) that has no
 * gradient (the fixed-scale regularizer). grad may be NULL. seq: the sums
 * entry by entry in index order (the library, cs_reg_eval); else 4-wide,
 * AVX2+FMA where the CPU has them (the solver, cs_reg_eval_fast): the same
 * value to rounding, other bits.
 *   ∂ℓ/∂x_n = 2g'_n R_n + 2h'_n (‖g‖²h_n − ⟨g,h⟩g_n) */
void cs_combine_cs(const cs_gh *a, size_t n, const double *tail, double *value, double *grad,
                   int seq);

/* Σ (g_i − β h_i)²: seq, entry by entry in index order; else 4-wide, then
 * the remainder entry by entry. */
double cs_residual2(const double *g, const double *h, double beta, size_t n, int seq);

/* Hölder (form HOLDER) and scale-invariant Hölder (form SI) over the g and
 * h that `fill` gives, with the instance's p, q, r and eps (reg_holder.c).
 * homogeneous: g and h are homogeneous of degrees kg and kh (> 0 in sum),
 * so the argument is first scaled by a power of two into [0.5, 1) and the
 * result scaled back; otherwise g and h are filled at x itself. */
typedef struct cs_holder_gh {
    cs_fill_fn fill;
    int homogeneous;
    double kg, kh;
} cs_holder_gh;
int cs_holder_form(cs_reg *reg, const cs_holder_gh *gh, const double *x, size_t n,
                   double *value, double *grad, cs_err *err);

/* The scalars of the Hölder form, shared by reg_holder.c and the solver's
 * fused kernels (reg_fast_holder.c). */
typedef struct cs_hsums {
    double A, B, c;   /* ‖g‖_p, ‖h‖_q, ⟨g,h⟩ */
    double P, Q, D;   /* (AB)^r, |c|^r, P − Q */
} cs_hsums;
/* A = mg·(Σ(|g|/mg)^p)^(1/p) from sg = Σ(|g|/mg)^p, B likewise from sh, and
 * c = ⟨g,h⟩, P, Q (D is left alone). */
void cs_holder_norms(double p, double q, double r, double mg, double mh, double sg, double sh,
                     double c, cs_hsums *s);
/* D = P − Q at p = q = 2 from d2 = ‖h‖²‖g − βh‖² = (AB)² − c² (Lemma 1),
 * β = c/‖h‖²: keeps its relative accuracy near the zero set. */
void cs_holder_lemma1(double r, double d2, cs_hsums *s);
/* The gradient's coefficients for kp·∇P − kq·∇Q (holder: kp = kq = 1; si:
 * 1/(Q + ε) and (1 + v)/(Q + ε)), used by the lane formula of reg_gh4.h. */
typedef struct hcoef {
    double cg, ch, cq, iA, iB;
} hcoef;
void cs_holder_coefs(double r, const cs_hsums *s, double kp, double kq, hcoef *k);

#endif
