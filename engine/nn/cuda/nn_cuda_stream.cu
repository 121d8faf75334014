/* cuda/nn_cuda_stream.cu — the stream every op of the backend runs on
 * (its launches, cuBLAS's and cuDNN's calls, the Async copies), so that a
 * training step can be recorded from it as one CUDA graph
 * (nn_cuda_graph.cu). A blocking stream: the synchronous copies on the
 * legacy stream (upload, download) stay ordered after its work. */
#include <cuda_runtime.h>
#include <stdio.h>

#include "nn_backend.h"
#include "nn_cuda.cuh"

cudaStream_t nn_stream;

int cuda_stream_init(char *why, size_t len)
{
    cudaError_t e = cudaStreamCreate(&nn_stream);
    if (e != cudaSuccess) {
        snprintf(why, len, "the backend's stream: %s", cudaGetErrorString(e));
        cudaGetLastError();
        nn_stream = NULL;
        return -1;
    }
    return 0;
}

void cuda_stream_shutdown(void)
{
    if (nn_stream)
        cudaStreamDestroy(nn_stream);
    nn_stream = NULL;
}
