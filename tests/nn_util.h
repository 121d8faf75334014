/* nn_util.h — shared by the network-engine tests (test_nn_*.c): the CPU
 * backend's ops, arrays of normal draws, and a relative error. */
#ifndef CS_NN_UTIL_H
#define CS_NN_UTIL_H

#include <stddef.h>

#include "cs_rng.h"
#include "nn_backend.h"

/* The CPU backend (cs_nn_cpu_ops). */
extern const cs_nn_ops *cpu;

/* x[i] = sd · N(0,1), for i < n */
void fill(float *x, size_t n, cs_rng *r, double sd);
/* max |a-b| / max(max|b|, floor) */
double rel_err(const float *a, const float *b, size_t n, double floor);

#endif
