/* nn_util.h — shared by the network-engine tests (test_nn_*.c): the CPU
 * backend's ops, arrays of normal draws, a relative error, a separable
 * synthetic data set and tiny networks. */
#ifndef CS_NN_UTIL_H
#define CS_NN_UTIL_H

#include <stddef.h>

#include "cs_nn.h"
#include "cs_rng.h"
#include "nn_backend.h"

/* The CPU backend (cs_nn_cpu_ops). */
extern const cs_nn_ops *cpu;

/* x[i] = sd · N(0,1), for i < n */
void fill(float *x, size_t n, cs_rng *r, double sd);
/* max |a-b| / max(max|b|, floor) */
double rel_err(const float *a, const float *b, size_t n, double floor);

/* n images, class y = a bright band of rows 3y..3y+2 (separable) */
cs_nn_data nn_synth(size_t n, uint64_t seed);
/* mlp 784-16-12-10 or cnn with fc 8 (aborts when it cannot be made) */
cs_nn *nn_tiny(cs_nn_kind kind, uint64_t seed);

#endif
