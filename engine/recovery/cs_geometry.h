/* cs_geometry.h — the feasible set {x : Ax = b} of a recovery problem as
 * the 2D views draw it: on the plane of an N = 2 problem (a line when
 * M = 1, the point x* when M = 2), and on the slice through a point `at`
 * along coordinates dims of a larger one (where that slice of the affine
 * set is a line or a point). */
#ifndef CS_GEOMETRY_H
#define CS_GEOMETRY_H

#include <stddef.h>

#include "cs_landscape.h"
#include "cs_problem.h"

/* The slice of the feasible set through `at` (n = N entries; NULL on an
 * N = 2 problem: the whole plane) along dims (0-based), within the box:
 * 1 and a segment (n == 2) or a point (n == 1) in out; 0 when the slice is
 * empty, the whole plane, outside the box, or the problem has no affine
 * constraint (2bit, orth, maxcut). */
int cs_problem_constraint_slice(const cs_problem *p, const double *at, const size_t dims[2],
                                double x0, double x1, double y0, double y1,
                                cs_landscape_curve *out);

#endif
