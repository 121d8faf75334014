/* geometry.c — the feasible set on a 2D slice (cs_geometry.h). */
#include "cs_geometry.h"

#include <math.h>

#define RANK_TOL 1e-10      /* relative determinant below which the slice is a line */
/* Squared residual of the slice's equations, relative to ‖b‖² + ‖A·at‖²,
 * below which they are consistent. Squared: the residual comes out of a
 * difference of squares, whose rounding (~1e-16 relative) would become
 * ~1e-8 after a square root and reject exactly consistent lines. */
#define CONSISTENT_TOL2 1e-12

int cs_problem_constraint_slice(const cs_problem *p, const double *at, const size_t dims[2],
                                double x0, double x1, double y0, double y1,
                                cs_landscape_curve *out)
{
    cs_kind kind = cs_problem_kind(p);
    size_t M = cs_problem_M(p), N = cs_problem_N(p);
    if (kind == CS_PROB_2BIT || kind == CS_PROB_ORTH || kind == CS_PROB_MAXCUT || (!at && N != 2))
        return 0;
    const double *A = cs_problem_A(p), *b = cs_problem_b(p);
    size_t d0 = at ? dims[0] : 0, d1 = at ? dims[1] : 1;
    double px = at ? at[d0] : 0.0, py = at ? at[d1] : 0.0;
    /* s·u + t·v = r with u, v the columns d0, d1 of A and r = b − A·at:
     * the points (px + s, py + t) of the slice */
    double uu = 0, uv = 0, vv = 0, ur = 0, vr = 0, rr = 0, scale = 0;
    for (size_t i = 0; i < M; i++) {
        const double *row = A + i * N;
        double ax = 0.0;
        for (size_t j = 0; at && j < N; j++)
            ax += row[j] * at[j];
        double u = row[d0], v = row[d1], r = b[i] - ax;
        uu += u * u, uv += u * v, vv += v * v, ur += u * r, vr += v * r, rr += r * r;
        scale += b[i] * b[i] + ax * ax;
    }
    double tol2 = CONSISTENT_TOL2 * (scale + 1e-300);
    if (!(uu > 0 || vv > 0))
        return 0;
    double det = uu * vv - uv * uv;
    if (det > RANK_TOL * uu * vv) {
        double s = (vv * ur - uv * vr) / det, t = (uu * vr - uv * ur) / det;
        /* ‖s·u + t·v − r‖² = rr − 2(s·ur + t·vr) + s²uu + 2st·uv + t²vv */
        double res2 = rr - 2 * (s * ur + t * vr) + s * s * uu + 2 * s * t * uv + t * t * vv;
        double x = px + s, y = py + t;
        if (res2 > tol2 || x < x0 || x > x1 || y < y0 || y > y1)
            return 0;
        *out = (cs_landscape_curve){{x, x}, {y, y}, 1};
        return 1;
    }
    /* rank 1: every row is a multiple of w = (the larger of u, v); the
     * slice is α·s + β·t = ρ when r is a multiple of w too */
    int use_u = uu >= vv;
    double ww = use_u ? uu : vv;
    double alpha = (use_u ? uu : uv) / ww, beta = (use_u ? uv : vv) / ww;
    double rho = (use_u ? ur : vr) / ww;
    if (rr - rho * rho * ww > tol2)
        return 0;
    double sx = fabs(alpha) >= fabs(beta) ? rho / alpha : 0.0;
    double sy = fabs(alpha) >= fabs(beta) ? 0.0 : rho / beta;
    return cs_landscape_clip(px + sx, py + sy, -beta, alpha, x0, x1, y0, y1, out);
}
