/* cs_vec.h — vector helpers of the hot loops (4-wide, AVX2 when the CPU has
 * it; one build per process, so results do not depend on threads). */
#ifndef CS_VEC_H
#define CS_VEC_H

#include <stddef.h>

/* ‖x − y‖² (two 4-wide accumulators over blocks of 8, then the tail). */
double cs_vec_dist2(const double *x, const double *y, size_t n);

/* max |x[i]| (0 for n = 0; NaN entries are passed over). */
double cs_vec_maxabs(const double *x, size_t n);
/* 1 when every x[i] is finite. */
int cs_vec_finite(const double *x, size_t n);

#endif
