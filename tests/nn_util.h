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

/* A separable K-class set of C×H×W uint8 images, n of them, NCHW (the
 * engine's order): class y = a bright band of rows in channel y % C (the
 * band's place: y·H/K), noise elsewhere; labels i % K. cs_nn_data_free it. */
cs_nn_data nn_synth_shape(size_t n, int C, int H, int W, int K, uint64_t seed);
/* train and test (nn_synth_shape) as an .npz data set at path: x_train,
 * y_train (uint8), x_test, y_test; images N×H×W×C (nchw 0) or N×C×H×W
 * (nchw 1); 0 or a CS_E* code. */
int nn_write_npz(const char *path, const cs_nn_data *train, const cs_nn_data *test, int nchw,
                 cs_err *err);

#endif
