/* cuda/nn_cuda_err.cu — the CUDA backend's errors (nn_cuda.cuh): the first
 * error of any op kept until the engine takes it (cs_nn_ops.error). Under
 * the backend's other files, which all report here; above only the
 * profile (nn_cuda_prof.cu). */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>

#include "nn_cuda.cuh"

static int g_sync_ops;
static char g_err[256];
static int g_has_err;

void cuda_err_reset(int sync_ops)
{
    g_sync_ops = sync_ops;
    g_has_err = 0;
}

void cuda_note(const char *op, const char *what)
{
    if (g_has_err)
        return;
    snprintf(g_err, sizeof g_err, "%s: %s", op, what);
    g_has_err = 1;
}

int cuda_ok(cudaError_t e, const char *op)
{
    if (e == cudaSuccess)
        return 1;
    char b[192];
    snprintf(b, sizeof b, "%s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
    cuda_note(op, b);
    return 0;
}

int blas_ok(cublasStatus_t s, const char *op)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return 1;
    char b[192];
    snprintf(b, sizeof b, "cuBLAS sgemm: %s", cublasGetStatusString(s));
    cuda_note(op, b);
    return 0;
}

void op_done(const char *op)
{
    cuda_ok(cudaGetLastError(), op);
    if (g_sync_ops)
        cuda_ok(cudaDeviceSynchronize(), op);
    cuda_prof_op(op);
}

int cuda_take_error(char *msg, size_t len)
{
    if (!g_has_err)
        return 0;
    snprintf(msg, len, "%s", g_err);
    g_has_err = 0;
    return -1;
}
