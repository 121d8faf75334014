/* landscape.c — a regularizer on a 2D grid (plane or slice), its target set
 * on that plane, and the CSV / matrix outputs. */
#include "cs_landscape.h"
#include "cs_parse.h"

#include <math.h>
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
    return f == CS_TARGET_BIN || f == CS_TARGET_OSB || f == CS_TARGET_TER ? f : CS_TARGET_NONE;
}

int cs_landscape_clip(double px, double py, double dx, double dy, double x0, double x1,
                      double y0, double y1, cs_landscape_curve *c)
{
    double tlo = -INFINITY, thi = INFINITY;
    const double p[2] = {px, py}, d[2] = {dx, dy}, lo[2] = {x0 - px, y0 - py},
                 hi[2] = {x1 - px, y1 - py};
    if (!isfinite(px) || !isfinite(py) || !isfinite(dx) || !isfinite(dy) || (dx == 0 && dy == 0))
        return 0;
    for (int k = 0; k < 2; k++) {
        if (d[k] == 0) {
            if (lo[k] > 0 || hi[k] < 0)
                return 0;
            continue;
        }
        double a = lo[k] / d[k], b = hi[k] / d[k];
        if (a > b) {
            double t = a;
            a = b;
            b = t;
        }
        if (a > tlo)
            tlo = a;
        if (b < thi)
            thi = b;
    }
    if (!(tlo < thi))
        return 0;
    *c = (cs_landscape_curve){{p[0] + tlo * dx, p[0] + thi * dx}, {p[1] + tlo * dy, p[1] + thi * dy},
                              2};
    return 1;
}

static int same(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

size_t cs_landscape_targets(cs_target_family family, const double *at, size_t n,
                            const size_t dims[2], double x0, double x1, double y0, double y1,
                            cs_landscape_curve out[CS_LANDSCAPE_MAX_TARGETS])
{
    if (family == CS_TARGET_NONE)
        return 0;
    /* The other coordinates fix the scale a (up to sign where the set is symmetric). */
    int free_scale = 1, consistent = 1, any_zero = 0;
    double a = 0;
    if (at && n > 2) {
        for (size_t k = 0; k < n; k++) {
            if (k == dims[0] || k == dims[1])
                continue;
            double v = family == CS_TARGET_OSB ? at[k] : fabs(at[k]);
            if (v == 0) {
                any_zero = 1;
                continue;
            }
            if (free_scale) {
                a = v;
                free_scale = 0;
            } else if (!same(v, a)) {
                consistent = 0;
            }
        }
        if (family == CS_TARGET_BIN && any_zero && !free_scale)
            consistent = 0;   /* a zero and a non-zero entry: not in {-a,+a}^N */
        if (family == CS_TARGET_BIN && any_zero && free_scale)
            a = 0, free_scale = 0;   /* all others zero: only a = 0 */
    }
    if (!consistent)
        return 0;
    size_t m = 0;
    if (free_scale) {
        /* lines through the origin: the 2D target set */
        double dirs[4][2];
        size_t nd = 0;
        if (family == CS_TARGET_OSB || family == CS_TARGET_TER) {
            dirs[nd][0] = 0, dirs[nd][1] = 1, nd++;   /* x = 0 */
            dirs[nd][0] = 1, dirs[nd][1] = 0, nd++;   /* y = 0 */
        }
        dirs[nd][0] = 1, dirs[nd][1] = 1, nd++;       /* x = y */
        if (family == CS_TARGET_BIN || family == CS_TARGET_TER)
            dirs[nd][0] = 1, dirs[nd][1] = -1, nd++;  /* x = -y */
        for (size_t k = 0; k < nd; k++)
            m += (size_t)cs_landscape_clip(0, 0, dirs[k][0], dirs[k][1], x0, x1, y0, y1,
                                           &out[m]);
        return m;
    }
    /* isolated points: the values allowed for each of the two coordinates */
    double vals[3];
    size_t nv = 0;
    switch (family) {
    case CS_TARGET_BIN:
        vals[nv++] = -a;
        if (a != 0)
            vals[nv++] = a;
        break;
    case CS_TARGET_OSB:
        vals[nv++] = 0;
        vals[nv++] = a;
        break;
    default:
        vals[nv++] = -a;
        vals[nv++] = 0;
        vals[nv++] = a;
        break;
    }
    for (size_t i = 0; i < nv; i++)
        for (size_t j = 0; j < nv; j++) {
            double x = vals[i] == 0 ? 0 : vals[i], y = vals[j] == 0 ? 0 : vals[j];
            if (x < x0 || x > x1 || y < y0 || y > y1 || m >= CS_LANDSCAPE_MAX_TARGETS)
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
    size_t plane_dims[2] = {0, 1};
    l->ntarget = cs_landscape_targets(l->family, spec->at, spec->at ? spec->n : 2,
                                      spec->at ? spec->dims : plane_dims, l->x0, l->x1, l->y0,
                                      l->y1, l->target);
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

static int write_out(const cs_landscape *l, const char *path, int csv, cs_err *err)
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
        char num[40];
        if (csv)
            fputs("x,y,value\n", af.f);
        else
            fprintf(af.f, "# %zu rows: y = %s .. %s; %zu columns: x = %s .. %s\n", l->ny, yt[0],
                    yt[l->ny - 1], l->nx, xt[0], xt[l->nx - 1]);
        for (size_t j = 0; j < l->ny; j++) {
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
        rc = cs_afile_commit(&af, err);
        if (rc)
            cs_afile_abort(&af);
    }
    free(xt);
    free(yt);
    return rc;
}

int cs_landscape_write_csv(const cs_landscape *l, const char *path, cs_err *err)
{
    return write_out(l, path, 1, err);
}

int cs_landscape_write_matrix(const cs_landscape *l, const char *path, cs_err *err)
{
    return write_out(l, path, 0, err);
}
