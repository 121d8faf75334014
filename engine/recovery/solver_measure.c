/* solver_measure.c — what a solution is measured by besides its error to
 * x* (which a problem from arrays may not have): the residual of Ax = b,
 * the distance to the regularizer's target set and the scale of the
 * nearest target point (cs_solver.h). */
#include "solver_internal.h"

#include <math.h>
#include <stdlib.h>

/* The target set of a method without one of its own (a baseline, DR's
 * linf and l1): the problem kind's. */
static cs_target_family kind_family(cs_kind kind)
{
    switch (kind) {
    case CS_PROB_BIN:
    case CS_PROB_MAXCUT: return CS_TARGET_BIN;
    case CS_PROB_OSB: return CS_TARGET_OSB;
    case CS_PROB_TER: return CS_TARGET_TER;
    case CS_PROB_EIG: return CS_TARGET_EIG;
    case CS_PROB_2BIT: return CS_TARGET_LEVELS;
    default: return CS_TARGET_NONE;
    }
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* The scale a of the k entries of v (sorted here, descending) whose common
 * level explains most of ‖v‖²: their mean (cs_target_distance's nearest
 * point); *gain that most. */
static double prefix_scale(double *v, size_t n, double *gain)
{
    qsort(v, n, sizeof *v, cmp_desc);
    double best = 0.0, a = 0.0, prefix = 0.0;
    for (size_t k = 0; k < n; k++) {
        prefix += v[k];
        double g = prefix > 0 ? prefix * prefix / (double)(k + 1) : 0.0;
        if (g > best) {
            best = g;
            a = prefix / (double)(k + 1);
        }
    }
    *gain = best;
    return a;
}

/* The scale of the nearest point of {-a,a}^n, {0,a}^n (a of either sign)
 * or {-a,0,a}^n; work: n doubles. */
static double family_scale(cs_target_family fam, const double *x, size_t n, double *work)
{
    double s1 = 0.0, gp, gm;
    switch (fam) {
    case CS_TARGET_BIN:
        for (size_t i = 0; i < n; i++)
            s1 += fabs(x[i]);
        return s1 / (double)n;
    case CS_TARGET_TER:
        for (size_t i = 0; i < n; i++)
            work[i] = fabs(x[i]);
        return prefix_scale(work, n, &gp);
    default: { /* OSB: {0, a} for a > 0 and a < 0 */
        for (size_t i = 0; i < n; i++)
            work[i] = x[i];
        double ap = prefix_scale(work, n, &gp);
        for (size_t i = 0; i < n; i++)
            work[i] = -x[i];
        double am = prefix_scale(work, n, &gm);
        return gm > gp ? -am : ap;
    }
    }
}

/* The nearest point a·l of {a·l : l ∈ levels}^n, alternating between the
 * nearest levels at a and the least-squares a for them (from a = rms(x) /
 * rms(levels)); its distance ‖x − a·l‖/‖x‖, *scale = a. */
static double levels_fit(const double *x, size_t n, const double *lv, size_t nl, double *scale)
{
    double xx = 0.0, ll = 0.0;
    for (size_t i = 0; i < n; i++)
        xx += x[i] * x[i];
    for (size_t k = 0; k < nl; k++)
        ll += lv[k] * lv[k];
    *scale = NAN;
    if (nl == 0 || !(ll > 0) || !isfinite(xx))
        return NAN;
    if (xx == 0.0) {
        *scale = 0.0;
        return 0.0;
    }
    double a = sqrt(xx / (double)n) / sqrt(ll / (double)nl), d2 = xx;
    for (int it = 0; it < 100; it++) {
        double xl = 0.0, l2 = 0.0;
        for (size_t i = 0; i < n; i++) {
            double best = lv[0];
            for (size_t k = 1; k < nl; k++)
                if (fabs(x[i] - a * lv[k]) < fabs(x[i] - a * best))
                    best = lv[k];
            xl += x[i] * best;
            l2 += best * best;
        }
        double a1 = l2 > 0.0 ? xl / l2 : 0.0;
        d2 = xx - (l2 > 0.0 ? xl * xl / l2 : 0.0);
        if (a1 == a)
            break;
        a = a1;
    }
    *scale = a;
    return sqrt(fmax(d2, 0.0) / xx);
}

/* ‖Cx − ρx‖/(‖C‖_F‖x‖), ρ the Rayleigh quotient (rho 0: ns's null space,
 * ‖Cx‖/(‖C‖_F‖x‖)): 0 on eigenvectors. */
double solver_eig_distance(const double *C, const double *x, size_t n, int nullspace)
{
    double xx = 0.0, xCx = 0.0, cc = 0.0, r2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double ci = 0.0;
        for (size_t j = 0; j < n; j++) {
            ci += C[i * n + j] * x[j];
            cc += C[i * n + j] * C[i * n + j];
        }
        xx += x[i] * x[i];
        xCx += x[i] * ci;
    }
    if (!(xx > 0) || !(cc > 0))
        return NAN;
    double rho = nullspace ? 0.0 : xCx / xx;
    for (size_t i = 0; i < n; i++) {
        double ci = -rho * x[i];
        for (size_t j = 0; j < n; j++)
            ci += C[i * n + j] * x[j];
        r2 += ci * ci;
    }
    return sqrt(r2 / (cc * xx));
}

void solver_measure(cs_solver *s, const double *x, cs_solve_result *r)
{
    static const double two_bit[] = {-3.0, -1.0, 1.0, 3.0};
    size_t n = s->nx;
    r->residual = cs_problem_residual(s->prob, x);
    r->target_dist = r->scale = NAN;
    cs_target_family fam = s->reg ? cs_reg_family(s->reg) : CS_TARGET_NONE;
    if (fam == CS_TARGET_NONE)
        fam = kind_family(s->kind);
    switch (fam) {
    case CS_TARGET_BIN:
    case CS_TARGET_OSB:
    case CS_TARGET_TER:
        r->target_dist = cs_target_distance(fam, x, n);
        r->scale = family_scale(fam, x, n, s->gtmp);
        break;
    case CS_TARGET_EIG:
    case CS_TARGET_NULLSPACE: {
        const double *C = cs_problem_C(s->prob);
        if (!C || s->cols != 1)
            break;
        double xx = 0.0;
        for (size_t i = 0; i < n; i++)
            xx += x[i] * x[i];
        r->target_dist = solver_eig_distance(C, x, n, fam == CS_TARGET_NULLSPACE);
        r->scale = sqrt(xx);
        break;
    }
    case CS_TARGET_LEVELS:
    case CS_TARGET_SCALED: {
        size_t nl = 0;
        const double *lv = s->reg ? cs_reg_target_levels(s->reg, &nl) : NULL;
        if (s->kind == CS_PROB_2BIT) {
            lv = two_bit;
            nl = 4;
        }
        if (lv)
            r->target_dist = levels_fit(x, n, lv, nl, &r->scale);
        break;
    }
    default:
        break;
    }
}
