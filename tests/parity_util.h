/* parity_util.h — a table-driven parity test over every op of a backend
 * table (nn_backend.h): each op gets the same random inputs on a reference
 * table (the CPU's) and on a device table (uploaded through the table's own
 * alloc/upload, never an output of an earlier device op), runs on both, and
 * every output is downloaded and compared within the op's tolerance (exact
 * where both sides do the same IEEE operations). Also the determinism of
 * the device (the same op twice: bit for bit) and short trainings of a
 * cnn-like and an mlp-like chain of ops from identical weights.
 *
 * Used by test_nn_device.c (the CUDA backend, on a GPU), test_cuda_emu.c
 * (the CUDA kernels run on the CPU) and test_nn_parity_cpu.c (the CPU
 * against itself, exact: proves the harness runs every op). No cmocka
 * here: each function returns its number of failed checks, so a test
 * asserts that it is 0. */
#ifndef CS_PARITY_UTIL_H
#define CS_PARITY_UTIL_H

#include "nn_backend.h"

/* flags */
#define NN_PARITY_VERBOSE 1   /* one line per check: op, n, max error, tolerance */
#define NN_PARITY_EXACT 2     /* every check bit for bit (the same backend on both sides) */

/* Every op of the table; only (NULL: all) runs the rows whose name starts
 * with it ("reg_rows", "watch", "bn_forward eval"). After each row the
 * tables' `error` (when not NULL) must report nothing. */
int nn_parity_ops(const cs_nn_ops *ref, const cs_nn_ops *dev, const char *only, int flags);
/* conv_backward, bn_backward, reg_rows and matmul_backward twice on dev
 * with the same inputs: identical bits. */
int nn_parity_determinism(const cs_nn_ops *dev, int flags);
/* Three Adam steps of a cnn-like chain (conv, bn, relu, maxpool, dense,
 * softmax-ce) and of an mlp-like one (dense, relu, dense, softmax-ce) from
 * the same weights on both: the losses of each step, and what the steps
 * changed of each weight tensor (and of bn's running statistics), within
 * 1e-3 relative (errors compound over the steps; the weights themselves
 * would hide a wrong gradient behind their initial values). */
int nn_parity_train(const cs_nn_ops *ref, const cs_nn_ops *dev, int flags);
/* All three, and a summary line; the number of failed checks. */
int nn_parity_run(const cs_nn_ops *ref, const cs_nn_ops *dev, int flags);

#endif
