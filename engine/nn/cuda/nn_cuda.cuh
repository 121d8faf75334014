/* cuda/nn_cuda.cuh — what the CUDA backend's files (nn_ops.cu,
 * nn_reg_ops.cu, nn_watch_ops.cu) share: the block size, grid sizes, a
 * block's sum in double, and the error checks.
 *
 * Errors: every op ends with op_done(name), which asks cudaGetLastError
 * (a launch that failed: bad configuration, no kernel image for this GPU)
 * and, in the debug mode CSREG_CUDA_SYNC=1, synchronizes and asks again
 * (a kernel that faulted, with the op that launched it); every cuBLAS call
 * goes through blas_ok. The first error is kept (sticky, nn_cuda_err.cu)
 * until the engine fetches it through cs_nn_ops.error. */
#ifndef CS_NN_CUDA_CUH
#define CS_NN_CUDA_CUH

#include <cuda_runtime.h>
#include <math.h>

#include <cublas_v2.h>

#include "nn_backend.h"

/* nn_reg_ops.cu's and nn_watch_ops.cu's tables, in nn_ops.cu's */
extern const cs_nn_reg_ops cs_nn_cuda_reg_ops;
extern const cs_nn_watch_ops cs_nn_cuda_watch_ops;

/* nn_cuda_err.cu: init's reset (no error kept; sync_ops: op_done
 * synchronizes, CSREG_CUDA_SYNC=1) */
void cuda_err_reset(int sync_ops);
/* record the first error of op (later ones are dropped) */
void cuda_note(const char *op, const char *what);
/* the end of every op: launch errors, and with CSREG_CUDA_SYNC=1 the
 * kernels' own */
void op_done(const char *op);
/* a cuBLAS call's status: 1 ok, else 0 (and noted) */
int blas_ok(cublasStatus_t s, const char *op);
/* a CUDA runtime call's status: 1 ok, else 0 (and noted) */
int cuda_ok(cudaError_t e, const char *op);
/* the first error since the last call, cleared: <0 with msg, 0 none
 * (cs_nn_ops.error) */
int cuda_take_error(char *msg, size_t len);

/* nn_cuda_prof.cu (CSREG_CUDA_PROFILE=FILE): init reads the variable
 * (1: profiling);
 * op_done and the copies report each op's end; the report (at shutdown)
 * writes the file: per op name its calls, GPU and host milliseconds */
int cuda_prof_init(void);
void cuda_prof_op(const char *op);
void cuda_prof_report(const char *device);

/* nn_cuda_stream.cu: the stream every op runs on (cuBLAS's and cuDNN's
 * too); init creates it (0, or <0 with why) */
extern cudaStream_t nn_stream;
int cuda_stream_init(char *why, size_t len);
void cuda_stream_shutdown(void);

/* nn_cuda_graph.cu: a training step as one CUDA graph. init: Adam's
 * scalars; refuses graphs with sync_ops or profiling (and
 * CSREG_CUDA_GRAPH=off). */
int cuda_graph_init(int sync_ops, int profiling, char *why, size_t len);
void cuda_graph_shutdown(void);
/* the table's graph_begin, graph_end, graph_launch, graph_drop */
void cuda_graph_ops(cs_nn_ops *o);
/* While a step is recorded: the device address of Adam's lr, 1 − β1^t
 * and 1 − β2^t, which each graph_launch writes for its step (β1, β2 kept
 * for that); NULL when nothing is recorded (the values go by value). */
const float *cuda_graph_adam(float beta1, float beta2);
/* A buffer the graph may use was reallocated: it is dropped (the engine
 * records the step again). */
void cuda_graph_stale(void);
/* Adam's bias correction 1 − β^t, the same float on both paths */
static inline float adam_corr(float beta, int t)
{
    return 1.0f - powf(beta, (float)t);
}

#define NT 256
static inline unsigned nblocks(size_t n)
{
    size_t b = (n + NT - 1) / NT;
    return (unsigned)(b > 65535u * 32u ? 65535u * 32u : (b ? b : 1));
}

/* the sum of v over the block (blockDim.x = NT threads), in every thread */
static inline __device__ double block_sum(double v, double *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    double r = sh[0];
    __syncthreads();
    return r;
}

#endif
