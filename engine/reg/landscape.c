/* landscape.c — a regularizer on a 2D grid (plane or slice), its target set
 * on that plane, and the CSV / matrix outputs. */
#include "cs_landscape.h"
#include "cs_parse.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cs_file.h"

/* ---- checks -------------------------------------------------------------- */

static int check_axis(const char *name, double lo, double hi, size_t n, cs_err *err)
{
    if (!isfinite(lo) || !isfinite(hi))
        return cs_fail(err, CS_ENONFINITE, "landscape: %s range is not finite", name);
    if (!(lo < hi))
        return cs_fail(err, CS_EINVAL, "landscape: %s range %g:%g is empty (need lo < hi)", name,
                       lo, hi);
    if (n < CS_LANDSCAPE_MIN_RES || n > CS_LANDSCAPE_MAX_RES)
        return cs_fail(err, CS_EINVAL, "landscape: resolution %zu along %s is out of range [%d, %d]",
                       n, name, CS_LANDSCAPE_MIN_RES, CS_LANDSCAPE_MAX_RES);
    return CS_OK;
}

static int check_spec(const cs_reg *reg, const cs_landscape_spec *s, cs_err *err)
{
    int rc;
    if ((rc = check_axis("x", s->x0, s->x1, s->nx, err)) ||
        (rc = check_axis("y", s->y0, s->y1, s->ny, err)))
        return rc;
    const cs_reg_info *info = cs_reg_get_info(reg);
    if (info->matrix_arg)
        return cs_fail(err, CS_EUNSUPPORTED,
                       "landscape: %s takes a matrix argument (N x K); landscapes are drawn for "
                       "regularizers of a vector", info->name);
    if (!s->at)
        return CS_OK;
    if (s->n < 2)
        return cs_fail(err, CS_EDIM, "landscape: the point X has %zu entr%s; a slice needs at "
                       "least 2", s->n, s->n == 1 ? "y" : "ies");
    for (int k = 0; k < 2; k++)
        if (s->dims[k] >= s->n)
            return cs_fail(err, CS_EDIM, "landscape: coordinate %zu is out of range [1, %zu] for a "
                           "point X with %zu entries", s->dims[k] + 1, s->n, s->n);
    if (s->dims[0] == s->dims[1])
        return cs_fail(err, CS_EINVAL, "landscape: the two coordinates of the slice are both %zu",
                       s->dims[0] + 1);
    for (size_t i = 0; i < s->n; i++)
        if (!isfinite(s->at[i]))
            return cs_fail(err, CS_ENONFINITE, "landscape: X[%zu] is not finite", i + 1);
    return CS_OK;
}

int cs_grid_axis(const char *name, double lo, double hi, size_t n, double *v, cs_err *err)
{
    double c = 0.5 * lo + 0.5 * hi, h = 0.5 * hi - 0.5 * lo, m = (double)(n - 1);
    for (size_t i = 0; i < n; i++) {
        double k = 2.0 * (double)i - m;
        v[i] = c + h * k / m;
    }
    v[0] = lo;
    v[n - 1] = hi;
    for (size_t i = 1; i < n; i++)
        if (!(v[i] > v[i - 1]))
            return cs_fail(err, CS_EINVAL, "landscape: %s range %g:%g is too narrow for %zu "
                           "points (neighbouring points coincide)", name, lo, hi, n);
    return CS_OK;
}

/* ---- target sets ------------------------------------------------------------ */

cs_target_family cs_landscape_family(const cs_reg *reg)
{
    if (!reg || cs_reg_extra(reg) != 0 || cs_reg_get_info(reg)->matrix_arg)
        return CS_TARGET_NONE;
    cs_target_family f = cs_reg_family(reg);
    return f == CS_TARGET_BIN || f == CS_TARGET_OSB || f == CS_TARGET_TER ||
                   f == CS_TARGET_SCALED
               ? f
               : CS_TARGET_NONE;
}

static int same(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/* The direction (l_i, l_j) of a line of the 2D target set, with its first
 * nonzero component positive and its largest one of magnitude 1. */
static void direction(double li, double lj, double d[2])
{
    if (li < 0 || (li == 0 && lj < 0))
        li = -li, lj = -lj;
    double m = fmax(fabs(li), fabs(lj));
    d[0] = li / m + 0.0;
    d[1] = lj / m + 0.0;
}

/* Lines in a fixed order: x = 0, y = 0, then by slope, steepest first. */
static int line_before(const double a[2], const double b[2])
{
    if ((a[0] == 0) != (b[0] == 0))
        return a[0] == 0;
    if ((a[1] == 0) != (b[1] == 0))
        return a[1] == 0;
    return a[1] / a[0] > b[1] / b[0];
}

/* The lines through the origin along (l_i, l_j) for every pair of levels. */
static size_t target_lines(const double *lv, size_t nl, double x0, double x1, double y0,
                           double y1, cs_landscape_curve *out)
{
    double dirs[CS_LANDSCAPE_MAX_TARGETS][2];
    size_t nd = 0, m = 0;
    for (size_t i = 0; i < nl; i++)
        for (size_t j = 0; j < nl; j++) {
            if (lv[i] == 0 && lv[j] == 0)
                continue;
            double d[2];
            direction(lv[i], lv[j], d);
            size_t k = 0;
            while (k < nd && !(dirs[k][0] == d[0] && dirs[k][1] == d[1]))
                k++;
            if (k < nd || nd == CS_LANDSCAPE_MAX_TARGETS)
                continue;
            /* insert in order */
            for (k = nd; k > 0 && line_before(d, dirs[k - 1]); k--)
                memcpy(dirs[k], dirs[k - 1], sizeof dirs[k]);
            memcpy(dirs[k], d, sizeof d);
            nd++;
        }
    for (size_t k = 0; k < nd; k++)
        m += (size_t)cs_landscape_clip(0, 0, dirs[k][0], dirs[k][1], x0, x1, y0, y1, &out[m]);
    return m;
}

/* Whether v is a·l for some level l. */
static int on_level(double v, double a, const double *lv, size_t nl)
{
    for (size_t i = 0; i < nl; i++)
        if ((v == 0 && lv[i] == 0) || (v != 0 && same(v, a * lv[i])))
            return 1;
    return 0;
}

size_t cs_landscape_targets(const double *levels, size_t nlevels, const double *at, size_t n,
                            const size_t dims[2], double x0, double x1, double y0, double y1,
                            cs_landscape_curve out[CS_LANDSCAPE_MAX_TARGETS])
{
    if (!levels || nlevels == 0)
        return 0;
    /* The other coordinates fix the scale a: every one of them is a·l for
     * some level l. Free (lines through the origin) when they are all 0 and
     * 0 is a level; a = 0 (the origin) when they are all 0 and it is not. */
    size_t first = SIZE_MAX;
    int zero_level = 0;
    for (size_t i = 0; i < nlevels; i++)
        zero_level |= levels[i] == 0;
    for (size_t k = 0; at && n > 2 && k < n && first == SIZE_MAX; k++)
        if (k != dims[0] && k != dims[1] && at[k] != 0)
            first = k;
    if (first == SIZE_MAX && (zero_level || !at || n <= 2))
        return target_lines(levels, nlevels, x0, x1, y0, y1, out);
    /* the candidate scales, positive ones first */
    double scales[CS_LANDSCAPE_MAX_TARGETS];
    size_t ns = 0;
    if (first == SIZE_MAX) {
        scales[ns++] = 0;
    } else {
        for (size_t i = 0; i < nlevels && ns < CS_LANDSCAPE_MAX_TARGETS; i++) {
            if (levels[i] == 0)
                continue;
            double a = at[first] / levels[i];
            int ok = 1;
            for (size_t k = 0; k < n && ok; k++)
                if (k != dims[0] && k != dims[1])
                    ok = on_level(at[k], a, levels, nlevels);
            if (ok)
                scales[ns++] = a;
        }
        for (size_t i = 1; i < ns; i++)   /* descending */
            for (size_t k = i; k > 0 && scales[k] > scales[k - 1]; k--) {
                double t = scales[k];
                scales[k] = scales[k - 1];
                scales[k - 1] = t;
            }
    }
    /* isolated points: (a·l_i, a·l_j) */
    size_t m = 0;
    for (size_t s = 0; s < ns; s++)
        for (size_t i = 0; i < nlevels; i++)
            for (size_t j = 0; j < nlevels; j++) {
                double x = scales[s] * levels[i], y = scales[s] * levels[j];
                x = x == 0 ? 0 : x;
                y = y == 0 ? 0 : y;
                int dup = 0;
                for (size_t q = 0; q < m && !dup; q++)
                    dup = out[q].x[0] == x && out[q].y[0] == y;
                if (dup || x < x0 || x > x1 || y < y0 || y > y1 ||
                    m >= CS_LANDSCAPE_MAX_TARGETS)
                    continue;
                out[m++] = (cs_landscape_curve){{x, x}, {y, y}, 1};
            }
    return m;
}

/* ---- the grid ------------------------------------------------------------------ */

void cs_landscape_free(cs_landscape *l)
{
    if (!l)
        return;
    free(l->xs);
    free(l->ys);
    free(l->z);
    free(l);
}

static int eval_grid(cs_landscape *l, cs_reg *reg, const cs_landscape_spec *s, double *v,
                     size_t n, cs_err *err)
{
    size_t d0 = s->at ? s->dims[0] : 0, d1 = s->at ? s->dims[1] : 1;
    l->zmin = INFINITY;
    l->zmax = -INFINITY;
    for (size_t j = 0; j < l->ny; j++) {
        if (cs_cancelled(s->cancel))
            return cs_fail(err, CS_ECANCEL, "landscape: interrupted");
        v[d1] = l->ys[j];
        for (size_t i = 0; i < l->nx; i++) {
            v[d0] = l->xs[i];
            double z;
            cs_err sub;
            int rc = cs_reg_eval(reg, v, 1, n, &z, NULL, &sub);
            if (rc == CS_OK && !isfinite(z))
                rc = cs_fail(&sub, CS_ENONFINITE, "value is not finite");
            if (rc)
                return cs_fail(err, rc, "landscape: %s at (%g, %g): %s",
                               cs_reg_get_info(reg)->name, l->xs[i], l->ys[j], sub.msg);
            l->z[j * l->nx + i] = z;
            if (z < l->zmin) {
                l->zmin = z;
                l->argmin[0] = l->xs[i];
                l->argmin[1] = l->ys[j];
            }
            if (z > l->zmax)
                l->zmax = z;
        }
    }
    return CS_OK;
}

int cs_landscape_new(cs_landscape **out, cs_reg *reg, const cs_landscape_spec *spec,
                     cs_err *err)
{
    *out = NULL;
    int rc = check_spec(reg, spec, err);
    if (rc)
        return rc;
    cs_landscape *l = calloc(1, sizeof *l);
    size_t n = spec->at ? spec->n : 2;
    double *v = malloc(n * sizeof *v);
    if (l) {
        l->nx = spec->nx;
        l->ny = spec->ny;
        l->x0 = spec->x0, l->x1 = spec->x1, l->y0 = spec->y0, l->y1 = spec->y1;
        l->xs = malloc(l->nx * sizeof *l->xs);
        l->ys = malloc(l->ny * sizeof *l->ys);
        l->z = malloc(l->nx * l->ny * sizeof *l->z);
    }
    if (!l || !v || !l->xs || !l->ys || !l->z) {
        free(v);
        cs_landscape_free(l);
        return cs_fail(err, CS_ENOMEM, "landscape: out of memory for a %zu x %zu grid",
                       spec->nx, spec->ny);
    }
    if (spec->at)
        memcpy(v, spec->at, n * sizeof *v);
    rc = cs_grid_axis("x", l->x0, l->x1, l->nx, l->xs, err);
    if (!rc)
        rc = cs_grid_axis("y", l->y0, l->y1, l->ny, l->ys, err);
    if (!rc)
        rc = eval_grid(l, reg, spec, v, n, err);
    free(v);
    if (rc) {
        cs_landscape_free(l);
        return rc;
    }
    l->family = cs_landscape_family(reg);
    size_t plane_dims[2] = {0, 1}, nlevels = 0;
    const double *levels = l->family != CS_TARGET_NONE ? cs_reg_target_levels(reg, &nlevels) : NULL;
    l->ntarget = cs_landscape_targets(levels, nlevels, spec->at, spec->at ? spec->n : 2,
                                      spec->at ? spec->dims : plane_dims, l->x0, l->x1, l->y0,
                                      l->y1, l->target);
    if (!spec->at && l->family == CS_TARGET_NONE)  /* eig, fixed, equ on the plane */
        l->ntarget = cs_landscape_targets_special(reg, l->x0, l->x1, l->y0, l->y1, l->target);
    *out = l;
    return CS_OK;
}

/* ---- outputs ---------------------------------------------------------------------- */

/* Coordinate texts: the shortest round-trip form (they are few). */
static char (*coord_texts(const double *v, size_t n))[32]
{
    char (*t)[32] = malloc(n * sizeof *t);
    if (!t)
        return NULL;
    for (size_t i = 0; i < n; i++)
        cs_format_double(t[i], sizeof t[i], v[i]);
    return t;
}

static int write_out(const cs_landscape *l, const char *path, int csv, const char *preamble,
                     const cs_cancel *cancel, cs_err *err)
{
    char (*xt)[32] = coord_texts(l->xs, l->nx), (*yt)[32] = coord_texts(l->ys, l->ny);
    if (!xt || !yt) {
        free(xt);
        free(yt);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    cs_afile af;
    int rc = cs_afile_open(&af, path, 0, err);
    if (!rc) {
        af.cancel = cancel;
        char num[40];
        if (csv) {
            fputs("x,y,value\n", af.f);
            if (preamble)
                fputs(preamble, af.f);
        } else
            fprintf(af.f, "# %zu rows: y = %s .. %s; %zu columns: x = %s .. %s\n", l->ny, yt[0],
                    yt[l->ny - 1], l->nx, xt[0], xt[l->nx - 1]);
        for (size_t j = 0; j < l->ny && !rc; j++) {
            if ((rc = cs_afile_poll(&af, err)))
                break;
            for (size_t i = 0; i < l->nx; i++) {
                cs_format_double(num, sizeof num, l->z[j * l->nx + i]);
                if (csv)
                    fprintf(af.f, "%s,%s,%s\n", xt[i], yt[j], num);
                else
                    fprintf(af.f, "%s%s", i ? " " : "", num);
            }
            if (!csv)
                fputc('\n', af.f);
        }
        if (!rc)
            rc = cs_afile_commit(&af, err);
        if (rc)
            cs_afile_abort(&af);
    }
    free(xt);
    free(yt);
    return rc;
}

int cs_landscape_write_csv(const cs_landscape *l, const char *path, const char *preamble,
                           const cs_cancel *cancel, cs_err *err)
{
    return write_out(l, path, 1, preamble, cancel, err);
}

int cs_landscape_write_matrix(const cs_landscape *l, const char *path, const cs_cancel *cancel,
                              cs_err *err)
{
    return write_out(l, path, 0, NULL, cancel, err);
}
