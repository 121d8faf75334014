/* cuda/nn_cuda.cuh — what the CUDA backend's files (nn_ops.cu,
 * nn_watch_ops.cu) share: the block size, grid sizes, and a block's sum in
 * double. */
#ifndef CS_NN_CUDA_CUH
#define CS_NN_CUDA_CUH

#include <cuda_runtime.h>

#define NT 256
static inline unsigned nblocks(size_t n)
{
    size_t b = (n + NT - 1) / NT;
    return (unsigned)(b > 65535u * 32u ? 65535u * 32u : (b ? b : 1));
}

/* the sum of v over the block (blockDim.x = NT threads), in every thread */
static __device__ double block_sum(double v, double *sh)
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
