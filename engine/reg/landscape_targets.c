/* landscape_targets.c — target sets on the plane of the regularizers whose
 * zero set is not a scale-free level set of g and h: eig (the eigenvector
 * lines of a 2×2 C), fixed (the four points (±α, ±α)) and equ (B = 2 on the
 * plane (y1, y2): the lines y2 = ±2 y1; B = 1: y = ±x). */
#include "cs_landscape.h"

#include <math.h>

#include "reg_internal.h"

/* The part of the line p + t·d inside the box (cs_landscape.h); the
 * lowest file of the landscapes, so landscape.c calls down to it. */
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

/* The real eigenvectors of the 2×2 matrix C (row-major): 0, 1 or 2
 * directions; a multiple of I has every direction (none returned). */
static size_t eig2_dirs(const double *C, double d[2][2])
{
    double a = C[0], b = C[1], c = C[2], e = C[3];
    double tr = a + e, det = a * e - b * c, disc = 0.25 * tr * tr - det;
    if (disc < 0)
        return 0;  /* complex eigenvalues: no real eigenvector */
    double s = sqrt(disc), lam[2] = {0.5 * tr + s, 0.5 * tr - s};
    size_t n = 0;
    for (int k = 0; k < (s > 0 ? 2 : 1); k++) {
        /* (C - λI)v = 0: v from the larger row of C - λI */
        double r0[2] = {a - lam[k], b}, r1[2] = {c, e - lam[k]};
        const double *r = hypot(r0[0], r0[1]) >= hypot(r1[0], r1[1]) ? r0 : r1;
        if (hypot(r[0], r[1]) == 0)
            return 0;  /* C = λI */
        d[n][0] = -r[1];
        d[n][1] = r[0];
        n++;
    }
    return n;
}

static size_t add_line(double dx, double dy, double x0, double x1, double y0, double y1,
                       cs_landscape_curve *out, size_t n)
{
    if (n < CS_LANDSCAPE_MAX_TARGETS && cs_landscape_clip(0, 0, dx, dy, x0, x1, y0, y1, &out[n]))
        n++;
    return n;
}

size_t cs_landscape_targets_special(const cs_reg *reg, double x0, double x1, double y0,
                                    double y1, cs_landscape_curve out[CS_LANDSCAPE_MAX_TARGETS])
{
    size_t n = 0;
    if (!reg || cs_reg_extra(reg))
        return 0;
    switch (cs_reg_family(reg)) {
    case CS_TARGET_EIG: {
        double d[2][2];
        if (!reg->C || reg->Crows != 2 || reg->Ccols != 2)
            return 0;
        size_t nd = eig2_dirs(reg->C, d);
        for (size_t k = 0; k < nd; k++)
            n = add_line(d[k][0], d[k][1], x0, x1, y0, y1, out, n);
        /* x = 0 is a zero too */
        if (n < CS_LANDSCAPE_MAX_TARGETS && x0 <= 0 && 0 <= x1 && y0 <= 0 && 0 <= y1)
            out[n++] = (cs_landscape_curve){{0, 0}, {0, 0}, 1};
        return n;
    }
    case CS_TARGET_FIXED: {
        double a = reg->alpha;
        for (int sx = -1; sx <= 1; sx += 2)
            for (int sy = -1; sy <= 1; sy += 2) {
                double px = sx * a, py = sy * a;
                if (px >= x0 && px <= x1 && py >= y0 && py <= y1)
                    out[n++] = (cs_landscape_curve){{px, px}, {py, py}, 1};
            }
        return n;
    }
    case CS_TARGET_LEVELS: {
        /* two coordinates: B = 2 and N = 1 (y1, y2), or B = 1 and N = 2 */
        double slope = reg->B == 2 ? 2.0 : reg->B == 1 ? 1.0 : 0.0;
        if (slope == 0.0)
            return 0;
        n = add_line(1.0, slope, x0, x1, y0, y1, out, n);
        n = add_line(1.0, -slope, x0, x1, y0, y1, out, n);
        return n;
    }
    default:
        return 0;
    }
}
