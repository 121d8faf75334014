/* cuda/sweep_device.cuh — what both batched sweeps (sweep_kernels.cu,
 * sweep_matrix_kernels.cu) do before their launches: pick the GPU and read
 * its properties, failing with the messages the engine passes on
 * ("device=cuda: ..."). Host code, static: each .cu includes it once. */
#ifndef CS_SWEEP_DEVICE_CUH
#define CS_SWEEP_DEVICE_CUH

#include <cuda_runtime.h>
#include <stdio.h>

/* "WHO: STEP: the CUDA error", the error cleared; -1 */
static int sweep_cuda_fail(const char *who, char *why, size_t len, const char *step,
                           cudaError_t e)
{
    snprintf(why, len, "%s: %s: %s", who, step, cudaGetErrorString(e));
    cudaGetLastError();
    return -1;
}

/* CUDA device `device` made current, its properties into prop: 0, or -1
 * with why (no driver or GPU, an index out of range, a CUDA error) */
static int sweep_cuda_open(const char *who, int device, cudaDeviceProp *prop, char *why,
                           size_t len)
{
    cudaError_t e;
    int ndev = 0;
    if ((e = cudaGetDeviceCount(&ndev)) != cudaSuccess || ndev == 0) {
        snprintf(why, len, "no NVIDIA driver/GPU found (cudaGetDeviceCount: %s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        cudaGetLastError();
        return -1;
    }
    if (device < 0 || device >= ndev) {
        snprintf(why, len, "CSREG_CUDA_DEVICE=%d is out of range: %d CUDA device%s", device,
                 ndev, ndev == 1 ? "" : "s");
        return -1;
    }
    if ((e = cudaSetDevice(device)) != cudaSuccess)
        return sweep_cuda_fail(who, why, len, "cudaSetDevice", e);
    if ((e = cudaGetDeviceProperties(prop, device)) != cudaSuccess)
        return sweep_cuda_fail(who, why, len, "cudaGetDeviceProperties", e);
    return 0;
}

#endif
