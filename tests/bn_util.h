/* bn_util.h — one batch norm case run on any op table (nn_backend.h): the
 * training forward (out, mean, rstd, running mean and variance), the eval
 * forward, and the backward (dinp, dgamma, dbeta), plain, with the ReLU
 * after it, or with the residual add and ReLU (bn_add_relu_*, identity
 * shortcut), from seeded inputs that are the same on every table; and the
 * largest error of one run against another. Used by test_cuda_emu.c (the
 * CUDA backend's batch norm through the emulator's cuDNN and without it)
 * and test_nn_device.c (through the GPU's cuDNN). No cmocka here: a table
 * that kept an error, or memory that did not come, gives -1. */
#ifndef CS_BN_UTIL_H
#define CS_BN_UTIL_H

#include <stddef.h>

#include "nn_backend.h"

enum { BN_PLAIN, BN_RELU, BN_ADD_RELU };

/* the inputs (host) */
typedef struct bn_in {
    int B, C, HW, kind;
    float *x, *sc, *gamma, *beta, *rm, *rv, *dy;
} bn_in;

/* the outputs (host); fwd: train y, mean, rstd, running ones; eval: ye */
typedef struct bn_out {
    float *y, *mean, *rstd, *rm, *rv, *ye;
    float *dx, *dg, *db, *dres;
} bn_out;

/* the names of the outputs, for the messages; BN_OUTS of them */
enum { BN_OUTS = 10 };
extern const char *const bn_out_name[BN_OUTS];

/* inputs of a case, drawn from seed; 0, -1 no memory */
int bn_in_new(bn_in *in, int B, int C, int HW, int kind, unsigned long seed);
void bn_in_free(bn_in *in);
int bn_out_new(bn_out *o, const bn_in *in);
void bn_out_free(bn_out *o);

/* the case on ops (device memory unless the CPU's): the forwards, then the
 * backward from fwd's mean, rstd and output (fwd NULL: this run's own, so
 * every table gets the same backward inputs); 0, or -1 with why */
int bn_run(const cs_nn_ops *ops, const bn_in *in, bn_out *o, const bn_out *fwd, char *why,
           size_t len);

/* max |a − b| / max |ref| of each output (a's, b's and ref's of the case)
 * into err[BN_OUTS] (-1 where the kind has no such output); the largest */
double bn_out_err(const bn_in *in, const bn_out *a, const bn_out *b, const bn_out *ref,
                  double *err);

#endif
