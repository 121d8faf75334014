/* cs_vec.h — vector helpers of the hot loops (4-wide, AVX2 when the CPU has
 * it; one build per process, so results do not depend on threads). */
#ifndef CS_VEC_H
#define CS_VEC_H

#include <stddef.h>

/* ‖x − y‖² (two 4-wide accumulators over blocks of 8, then the tail). */
double cs_vec_dist2(const double *x, const double *y, size_t n);

#endif
