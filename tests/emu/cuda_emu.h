/* cuda_emu.h — just enough of CUDA and cuBLAS to run csreg's kernels on
 * the CPU (test_cuda_emu), so their logic is tested in `make test` on
 * machines without a GPU. The .cu files compile unchanged as C++ with this
 * header forced in front (g++ -include cuda_emu.h), after one rewrite the
 * Makefile does with sed: a launch `k<<<grid, block>>>(args)` becomes
 * `cs_emu_launch(k, grid, block)(args)`.
 *
 * The model:
 *  - A launch runs its blocks one after another. Each block runs on
 *    blockDim real threads (pthreads), so __syncthreads is a real barrier
 *    and a missing one can show up as a wrong result; ASan sees every
 *    thread's accesses.
 *  - __shared__ is `static`: one copy in the process, which is the block's
 *    shared memory because blocks never run at the same time; dynamic
 *    shared memory (DYN_SHARED in the sources, as CS_CUDA_EMU is defined
 *    here) is one buffer per launch, NaN-filled.
 *  - __shfl_xor_sync exchanges through the block, with barriers.
 *  - Atomics are the compiler's __atomic builtins.
 *  - Device memory is host memory from malloc, registered so that copies
 *    and GEMM operands are checked against their allocation, and filled
 *    with 0xFF bytes (NaN as float and double) so that a kernel reading
 *    what nobody wrote shows up as NaN.
 *  - Launches are synchronous; a bad configuration (0 or more than 1024
 *    threads, an empty grid) is kept as the error cudaGetLastError returns,
 *    as on a GPU.
 *  - cublasSgemm is a reference GEMM (column-major, double accumulation)
 *    that refuses what cuBLAS refuses (negative sizes, lda/ldb/ldc too
 *    small, no handle) and, beyond cuBLAS, operands that do not lie inside
 *    one device allocation.
 *  - Stream capture (CUDA graphs): while a capture is under way (one at a
 *    time), launches, cublasSgemm, cuDNN's convolutions and batch norms
 *    and the Async copies and memsets are checked at the call and recorded;
 *    host scalars (α, β) and cuDNN descriptors are copied then, as a graph
 *    node keeps them. A call a global-mode capture refuses on a GPU (a
 *    synchronous copy or memset, an allocation, a free, a synchronization,
 *    an event) fails with cudaErrorStreamCaptureUnsupported and invalidates
 *    the capture: cudaStreamEndCapture then answers
 *    cudaErrorStreamCaptureInvalidated and no graph. cudaGraphLaunch replays
 *    the records in order, synchronously.
 * What it cannot test: timing, memory coherence between blocks running at
 * once, warp-level behaviour, the real compiler's rounding (nvcc builds
 * with --fmad=false; g++ contracts no FMAs either). */
#ifndef CS_CUDA_EMU_H
#define CS_CUDA_EMU_H

#include <stddef.h>
#include <stdint.h>

#include <functional>

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define CS_CUDA_EMU 1
#define __forceinline__ inline
#define __launch_bounds__(...)

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};

struct cs_emu_thread {
    dim3 thread, block;
};
extern thread_local cs_emu_thread cs_emu_self;
extern dim3 cs_emu_block_dim, cs_emu_grid_dim;   /* of the launch running */
#define threadIdx (cs_emu_self.thread)
#define blockIdx (cs_emu_self.block)
#define blockDim (cs_emu_block_dim)
#define gridDim (cs_emu_grid_dim)

void __syncthreads(void);
/* A warp's exchange, here through the whole block: every thread of the
 * block must call it together (csreg's kernels reduce uniformly). */
double __shfl_xor_sync(unsigned mask, double v, int lane_mask, int width = 32);
/* the launch's dynamic shared memory (extern __shared__) */
void *cs_emu_dynamic_shared(void);

template <class T> static inline T atomicAdd(T *p, T v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
static inline float atomicAdd(float *p, float v)
{
    float old, nv;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do {
        nv = old + v;
    } while (!__atomic_compare_exchange(p, &old, &nv, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return old;
}

/* intrinsics: IEEE single operations, rounded to nearest (as the CPU's) */
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fsqrt_rn(float a) { return __builtin_sqrtf(a); }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }

/* ---- the runtime ---- */

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureImplicit = 906
} cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3
};

struct cudaDeviceProp {
    char name[256];
    int major, minor;
    int multiProcessorCount;
    size_t sharedMemPerBlockOptin;
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
template <class F> static inline cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int)
{
    return cudaSuccess;
}
/* two blocks on each of the emulated multiprocessors */
template <class F>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F, int, size_t)
{
    *n = 2;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int device);
cudaError_t cudaRuntimeGetVersion(int *v);
cudaError_t cudaDriverGetVersion(int *v);
cudaError_t cudaMalloc(void **p, size_t bytes);
template <class T> static inline cudaError_t cudaMalloc(T **p, size_t bytes)
{
    return cudaMalloc((void **)p, bytes);
}
cudaError_t cudaFree(void *p);
cudaError_t cudaMemset(void *p, int value, size_t bytes);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
/* streams are one queue here: the Async forms run at once (or are
 * recorded by a capture) */
typedef struct cs_emu_stream *cudaStream_t;
cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t s = 0);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t s = 0);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);

/* Tests: the number of bytes in live device allocations (leaks), and the
 * allocation count at which cudaMalloc starts failing (-1: never). */
extern "C" size_t cs_emu_device_bytes(void);
extern "C" void cs_emu_fail_malloc_after(long n);

/* ---- launches ---- */

/* Run fn(ctx) as every thread of every block of the grid; returns after
 * the last block (or records cudaErrorInvalidConfiguration). */
void cs_emu_run(dim3 grid, dim3 block, size_t shmem, void (*fn)(void *), void *ctx);
/* a launch's configuration is one a GPU takes (else the error is kept) */
bool cs_emu_config_ok(dim3 grid, dim3 block, size_t shmem);
/* whether a capture records; f recorded for its graph */
bool cs_emu_capturing(void);
void cs_emu_record(std::function<void()> f);

template <class... P> struct cs_emu_launcher {
    void (*kernel)(P...);
    dim3 grid, block;
    size_t shmem;
    template <class... A> void operator()(A... args) const
    {
        void (*k)(P...) = kernel;
        auto body = [k, args...]() { k(args...); };
        if (cs_emu_capturing()) {   /* the arguments kept by value, run at replay */
            if (!cs_emu_config_ok(grid, block, shmem))
                return;
            dim3 g = grid, b = block;
            size_t sh = shmem;
            cs_emu_record([g, b, sh, body]() {
                auto run = body;
                cs_emu_run(g, b, sh, [](void *c) { (*static_cast<decltype(run) *>(c))(); },
                           &run);
            });
            return;
        }
        cs_emu_run(grid, block, shmem,
                   [](void *c) { (*static_cast<decltype(body) *>(c))(); }, &body);
    }
};
/* streams: launches and copies run at once, in order */
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
/* capture and graphs (see the model above) */
enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
};
enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2
};
typedef struct cs_emu_graph *cudaGraph_t;
typedef struct cs_emu_graph_exec *cudaGraphExec_t;
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g);
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus *st);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g,
                                 unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e);
cudaError_t cudaGraphDestroy(cudaGraph_t g);
/* tests: the graph launches that ran, the nodes of the last instantiated */
extern "C" long cs_emu_graph_launches(void);
extern "C" long cs_emu_graph_nodes(void);
/* events: launches being synchronous, an event is the host's clock when
 * it was recorded */
typedef struct cs_emu_event *cudaEvent_t;
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

template <class... P>
static inline cs_emu_launcher<P...> cs_emu_launch(void (*k)(P...), dim3 grid, dim3 block,
                                                  size_t shmem = 0, cudaStream_t stream = 0)
{
    (void)stream;
    return cs_emu_launcher<P...>{k, grid, block, shmem};
}

/* ---- cuBLAS ---- */

typedef struct cs_emu_blas *cublasHandle_t;
typedef enum cublasStatus {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_INVALID_VALUE = 7
} cublasStatus_t;
typedef enum cublasOperation { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
typedef enum cublasMath { CUBLAS_DEFAULT_MATH = 0 } cublasMath_t;

cublasStatus_t cublasCreate(cublasHandle_t *h);
cublasStatus_t cublasDestroy(cublasHandle_t h);
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode);
cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s);
const char *cublasGetStatusString(cublasStatus_t s);
cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const float *alpha, const float *A, int lda,
                           const float *B, int ldb, const float *beta, float *C, int ldc);

#endif
