/* reg_analyze.c — `reg analyze` (cs_reg_analyze.h): the level structure of
 * a regularizer's g and h, its scale behaviour measured against what the
 * table or the homogeneity of g and h claims, and a scan of a 2D slice for
 * stationary points off the target set.
 *
 * The scan: ℓ and its gradient on a grid; every interior grid point where
 * |∇ℓ| (all coordinates) is smallest among its eight neighbours is refined
 * by Levenberg–Marquardt steps within the slice on ∇ℓ = 0 (least squares;
 * the Jacobian by central differences of the exact gradient). A point
 * counts when |∇ℓ|·|x|/ℓ falls below 1e-6 (scale free: near the target set ℓ
 * and G vanish together, and for a homogeneous ℓ of degree k Euler's
 * ⟨∇ℓ, x⟩ = kℓ keeps the ratio at k or more) while ℓ stays above 1e-10
 * of its largest value on the grid. */
#include "cs_reg_analyze.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_rng.h"
#include "reg_internal.h"

const char *cs_stat_kind_name(cs_stat_kind k)
{
    static const char *const names[] = {"minimum", "maximum", "saddle", "flat"};
    return k >= CS_STAT_MIN && k <= CS_STAT_FLAT ? names[k] : "?";
}

/* ---- levels --------------------------------------------------------------------- */

/* The g and h texts of an entry: its own, or its base's (holder, si). */
static void gh_texts(const cs_reg *reg, const char **g, const char **h)
{
    const cs_reg_info *info = reg->info;
    *g = info->g;
    *h = info->h;
    if ((!*g || !*h) && info->form != CS_FORM_NONE && !cs_reg_info_defined(info)) {
        const cs_reg_info *base = cs_reg_lookup(cs_reg_base_name[reg->base]);
        *g = base->g;
        *h = base->h;
    }
}

static void analyze_levels(const cs_reg *reg, cs_reg_levels *lv)
{
    memset(lv, 0, sizeof *lv);
    if (cs_reg_info_defined(reg->info)) {
        cs_reg_levels_of(reg->ge, reg->he, lv);
        return;
    }
    const char *gt, *ht;
    gh_texts(reg, &gt, &ht);
    cs_expr *g = NULL, *h = NULL;
    if (gt && ht && !cs_expr_parse(&g, gt, NULL, 0, NULL, NULL) &&
        !cs_expr_parse(&h, ht, NULL, 0, NULL, NULL))
        cs_reg_levels_of(g, h, lv);
    cs_expr_free(g);
    cs_expr_free(h);
}

/* ---- scale behaviour ---------------------------------------------------------------- */

static void claimed_degree(const cs_reg *reg, cs_reg_analysis *a)
{
    a->degree_claimed = reg->degree != 0;
    a->k_claimed = reg->degree > 0 ? reg->degree : 0.0;
}

/* log(ℓ(αx)/ℓ(x))/log α for α = 2, 1/2, 3 at three random points. */
static void measure_degree(cs_reg *reg, cs_reg_analysis *a)
{
    const cs_reg_info *info = reg->info;
    a->k_measured = NAN;
    if (reg->extra) {
        snprintf(a->scale_note, sizeof a->scale_note, "not measured: %s has auxiliary "
                 "coordinates", info->name);
        return;
    }
    size_t rows = info->matrix_arg ? 4 : 1, cols = info->matrix_arg ? 2 : 5;
    if (info->takes_C && reg->C)
        cols = reg->Ccols;
    size_t n = rows * cols;
    double *x = malloc(2 * n * sizeof *x), *y = x ? x + n : NULL;
    if (!x) {
        snprintf(a->scale_note, sizeof a->scale_note, "not measured: out of memory");
        return;
    }
    static const double alphas[] = {2.0, 0.5, 3.0};
    cs_rng rng;
    cs_rng_init(&rng, 7, 0xA11A);
    double lo = INFINITY, hi = -INFINITY, sum = 0.0;
    int cnt = 0;
    for (int t = 0; t < 3; t++) {
        cs_rng_normal_fill(&rng, x, n);
        double v0, v1;
        cs_err sub;
        if (cs_reg_eval(reg, x, rows, cols, &v0, NULL, &sub)) {
            snprintf(a->scale_note, sizeof a->scale_note, "not measured: %.100s", sub.msg);
            break;
        }
        for (int k = 0; k < 3 && v0 > 0.0; k++) {
            for (size_t i = 0; i < n; i++)
                y[i] = alphas[k] * x[i];
            if (cs_reg_eval(reg, y, rows, cols, &v1, NULL, &sub) || !(v1 > 0.0))
                continue;
            double e = log(v1 / v0) / log(alphas[k]);
            lo = fmin(lo, e);
            hi = fmax(hi, e);
            sum += e;
            cnt++;
        }
    }
    free(x);
    if (!cnt) {
        if (!a->scale_note[0])
            snprintf(a->scale_note, sizeof a->scale_note, "not measured: the value is 0 at "
                     "the points tried");
        return;
    }
    a->k_measured = sum / cnt;
    a->k_spread = hi - lo;
    a->homogeneous = a->k_spread <= 1e-6 * fmax(1.0, fabs(a->k_measured));
}

/* ---- the scan ---------------------------------------------------------------------- */

typedef struct scan {
    cs_reg *reg;
    double *v, *grad;        /* the point (n entries) and its gradient */
    double *jp, *jm;         /* gradients at the neighbours (Jacobian columns) */
    size_t n, d0, d1;
    double x0, x1, y0, y1;
    double lmax;             /* largest ℓ on the grid */
    double diag;             /* the box's diagonal */
} scan;

/* ℓ and |∇ℓ| (all n coordinates) at (x, y) of the slice; the gradient into g. */
static int slice_eval(scan *s, double x, double y, double *l, double *g, double *gn,
                      cs_err *err)
{
    s->v[s->d0] = x;
    s->v[s->d1] = y;
    int rc = cs_reg_eval(s->reg, s->v, 1, s->n, l, g, err);
    if (!rc && gn) {
        double q = 0.0;
        for (size_t i = 0; i < s->n; i++)
            q += g[i] * g[i];
        *gn = sqrt(q);
    }
    return rc;
}

static double norm_of(const scan *s)
{
    double q = 0.0;
    for (size_t i = 0; i < s->n; i++)
        q += s->v[i] * s->v[i];
    return fmax(sqrt(q), 1e-3 * s->diag);
}

/* J = ∂∇ℓ/∂(x, y), n × 2 (row-major), by central differences of the exact
 * gradient; its rows d0 and d1 are the slice Hessian. */
static int jacobian(scan *s, double x, double y, double *J, cs_err *err)
{
    double h[2] = {1e-6 * fmax(1.0, fabs(x)), 1e-6 * fmax(1.0, fabs(y))}, l;
    for (int c = 0; c < 2; c++) {
        int rc = slice_eval(s, x + (c ? 0 : h[0]), y + (c ? h[1] : 0), &l, s->jp, NULL, err);
        if (!rc)
            rc = slice_eval(s, x - (c ? 0 : h[0]), y - (c ? h[1] : 0), &l, s->jm, NULL, err);
        if (rc)
            return rc;
        for (size_t i = 0; i < s->n; i++)
            J[2 * i + c] = (s->jp[i] - s->jm[i]) / (2 * h[c]);
    }
    return CS_OK;
}

static cs_stat_kind classify(const scan *s, const double *J)
{
    double a = J[2 * s->d0], d = J[2 * s->d1 + 1], b = 0.5 * (J[2 * s->d0 + 1] + J[2 * s->d1]);
    double tr = a + d, det = a * d - b * b;
    double disc = sqrt(fmax(0.0, 0.25 * tr * tr - det));
    double l1 = 0.5 * tr - disc, l2 = 0.5 * tr + disc, tol = 1e-6 * fmax(fabs(l1), fabs(l2));
    if (fabs(l1) <= tol || fabs(l2) <= tol)
        return CS_STAT_FLAT;
    if (l1 > 0)
        return CS_STAT_MIN;
    if (l2 < 0)
        return CS_STAT_MAX;
    return CS_STAT_SADDLE;
}

/* Refine (x, y) towards ∇ℓ = 0 (least squares over the slice); 1 with *st
 * filled when it lands on a stationary point off the target set inside the
 * box. */
static int refine(scan *s, double *J, double x, double y, cs_reg_stationary *st, cs_err *err)
{
    double l, gn;
    for (int it = 0; it < 60; it++) {
        if (slice_eval(s, x, y, &l, s->grad, &gn, err) || jacobian(s, x, y, J, err))
            return 0;
        /* (JᵀJ + μI) δ = −Jᵀ∇ℓ */
        double a = 0, b = 0, c = 0, r0 = 0, r1 = 0;
        for (size_t i = 0; i < s->n; i++) {
            double j0 = J[2 * i], j1 = J[2 * i + 1];
            a += j0 * j0, b += j0 * j1, c += j1 * j1;
            r0 -= j0 * s->grad[i], r1 -= j1 * s->grad[i];
        }
        double mu = 1e-12 * (a + c) + 1e-300;
        a += mu, c += mu;
        double det = a * c - b * b;
        if (!(det != 0.0) || !isfinite(det))
            break;
        double dx = (c * r0 - b * r1) / det, dy = (a * r1 - b * r0) / det;
        x += dx, y += dy;
        if (!(x >= s->x0 && x <= s->x1 && y >= s->y0 && y <= s->y1))
            return 0;
        if (fabs(dx) + fabs(dy) <= 1e-15 * (1.0 + fabs(x) + fabs(y)))
            break;
    }
    if (slice_eval(s, x, y, &l, s->grad, &gn, err) || jacobian(s, x, y, J, err))
        return 0;
    double ratio = gn * norm_of(s) / l;
    if (!(l > 1e-10 * s->lmax) || !(ratio <= 1e-6))
        return 0;
    *st = (cs_reg_stationary){x, y, l, ratio, classify(s, J)};
    return 1;
}

static int check_slice(const cs_reg *reg, const cs_reg_analyze_spec *sp, cs_err *err)
{
    if (reg->info->matrix_arg)
        return cs_fail(err, CS_EUNSUPPORTED, "analyze: %s takes a matrix argument; the scan "
                       "is drawn for regularizers of a vector", reg->info->name);
    if (!(sp->x0 < sp->x1) || !(sp->y0 < sp->y1) || !isfinite(sp->x0 + sp->x1 + sp->y0 + sp->y1))
        return cs_fail(err, CS_EINVAL, "analyze: the box is empty or not finite");
    if (sp->res < 5 || sp->res > 1001)
        return cs_fail_key(err, CS_EINVAL, "res", "analyze: res=%zu is out of range [5, 1001]",
                           sp->res);
    if (sp->at && (sp->n < 2 || sp->dims[0] >= sp->n || sp->dims[1] >= sp->n ||
                   sp->dims[0] == sp->dims[1]))
        return cs_fail_key(err, CS_EDIM, "dims", "analyze: the slice needs two distinct "
                           "coordinates of X");
    return CS_OK;
}

static int run_scan(cs_reg *reg, const cs_reg_analyze_spec *sp, cs_reg_analysis *a,
                    cs_err *err)
{
    size_t R = sp->res, n = sp->at ? sp->n : 2;
    scan s = {.reg = reg, .n = n, .d0 = sp->at ? sp->dims[0] : 0, .d1 = sp->at ? sp->dims[1] : 1,
              .x0 = sp->x0, .x1 = sp->x1, .y0 = sp->y0, .y1 = sp->y1,
              .diag = hypot(sp->x1 - sp->x0, sp->y1 - sp->y0)};
    s.v = malloc(6 * n * sizeof *s.v);
    double *gn = malloc(R * R * sizeof *gn), *lv = malloc(R * R * sizeof *lv);
    int rc = CS_OK;
    if (!s.v || !gn || !lv) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto out;
    }
    s.grad = s.v + n, s.jp = s.v + 2 * n, s.jm = s.v + 3 * n;
    double *J = s.v + 4 * n;
    if (sp->at)
        memcpy(s.v, sp->at, n * sizeof *s.v);
    double hx = (sp->x1 - sp->x0) / (double)(R - 1), hy = (sp->y1 - sp->y0) / (double)(R - 1);
    for (size_t j = 0; j < R && !rc; j++) {
        if (cs_cancelled(sp->cancel))
            rc = cs_fail(err, CS_ECANCEL, "analyze: interrupted");
        for (size_t i = 0; i < R && !rc; i++) {
            double l, x = sp->x0 + (double)i * hx, y = sp->y0 + (double)j * hy;
            cs_err sub;
            if (slice_eval(&s, x, y, &l, s.grad, &gn[j * R + i], &sub)) {
                /* undefined there (si where <g,h> = 0): skipped */
                if (sub.code != CS_ENONFINITE)
                    rc = cs_fail(err, sub.code, "analyze: %s at (%g, %g): %s", reg->info->name,
                                 x, y, sub.msg);
                a->nundefined++;
                gn[j * R + i] = lv[j * R + i] = NAN;
                continue;
            }
            lv[j * R + i] = l;
            s.lmax = fmax(s.lmax, l);
        }
    }
    for (size_t j = 1; j + 1 < R && !rc; j++)
        for (size_t i = 1; i + 1 < R; i++) {
            double c = gn[j * R + i];
            int lowest = lv[j * R + i] > 1e-10 * s.lmax;   /* false for NaN */
            for (int dj = -1; dj <= 1 && lowest; dj++)
                for (int di = -1; di <= 1; di++)
                    if ((di || dj) && !(gn[(j + dj) * R + i + di] >= c))
                        lowest = 0;
            if (!lowest)
                continue;
            a->ncandidates++;
            cs_reg_stationary st;
            cs_err sub;
            if (!refine(&s, J, sp->x0 + (double)i * hx, sp->y0 + (double)j * hy, &st, &sub))
                continue;
            int known = 0;   /* the same point from another grid minimum */
            for (size_t k = 0; k < a->nspurious && !known; k++)
                known = fabs(a->spurious[k].x - st.x) <= 2 * hx &&
                        fabs(a->spurious[k].y - st.y) <= 2 * hy;
            if (known)
                continue;
            a->nfound++;
            if (a->nspurious < CS_ANALYZE_MAX_POINTS)
                a->spurious[a->nspurious++] = st;
        }
out:
    free(s.v);
    free(gn);
    free(lv);
    return rc;
}

int cs_reg_analyze(cs_reg *reg, const cs_reg_analyze_spec *spec, cs_reg_analysis *out,
                   cs_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_slice(reg, spec, err);
    if (rc)
        return rc;
    analyze_levels(reg, &out->levels);
    claimed_degree(reg, out);
    measure_degree(reg, out);
    return run_scan(reg, spec, out, err);
}
