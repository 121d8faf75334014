/* nn_validate.h — what a loaded checkpoint (nn_io.c's CSNN file, nn_npz.c's
 * .npz) must satisfy beyond its checksum, one place for both loaders: a
 * forged file with a correct CRC is refused with a message that names what
 * is wrong, instead of loading and computing nonsense. Engine only. */
#ifndef CS_NN_VALIDATE_H
#define CS_NN_VALIDATE_H

#include <stdint.h>

#include "nn_internal.h"

/* A weight layer's header entry: quant (0 none, 1 binary, 2 ternary) and its
 * shape rows x cols against the model's layer w. */
int nn_validate_wlayer(const char *path, const nn_wlayer *w, uint32_t quant, uint64_t rows,
                       uint64_t cols, cs_err *err);
/* The batch-norm running statistics of nn's layout, bufs on the host
 * (nn->nbufs floats): every mean finite, every variance finite and >= 0
 * (a negative one makes 1/sqrt(var + eps) NaN: chance accuracy). */
int nn_validate_stats(const char *path, const cs_nn *nn, const float *bufs, cs_err *err);

#endif
