/* cuda_emu.cc — the emulator's runtime (see cuda_emu.h): device memory,
 * launches on pthreads, errors, and the reference GEMM behind cublasSgemm. */
#include "cuda_emu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vector>

thread_local cs_emu_thread cs_emu_self;
dim3 cs_emu_block_dim, cs_emu_grid_dim;

static cudaError_t g_last;   /* sticky until cudaGetLastError */
static pthread_barrier_t g_barrier;

/* ------------------------------------------------------------------ capture */

struct cs_emu_graph {
    std::vector<std::function<void()>> nodes;
};
struct cs_emu_graph_exec {
    std::vector<std::function<void()>> nodes;
};
static cudaStream_t g_cap_stream;   /* the stream being captured, or NULL */
static int g_cap_invalid;
static cs_emu_graph *g_capture;
static long g_graph_launches, g_graph_nodes;

long cs_emu_graph_launches(void) { return g_graph_launches; }
long cs_emu_graph_nodes(void) { return g_graph_nodes; }

bool cs_emu_capturing(void) { return g_capture != NULL; }

void cs_emu_record(std::function<void()> f)
{
    if (!g_cap_invalid)
        g_capture->nodes.push_back(std::move(f));
}

/* A call a global-mode capture refuses: while one is under way it fails
 * and invalidates it; else cudaSuccess. */
static cudaError_t refused_in_capture(void)
{
    if (!g_capture)
        return cudaSuccess;
    g_cap_invalid = 1;
    g_capture->nodes.clear();
    return g_last = cudaErrorStreamCaptureUnsupported;
}

/* ------------------------------------------------------------------ memory */

struct alloc_rec {
    char *p;
    size_t n;
};
static alloc_rec *g_allocs;
static size_t g_nallocs, g_cap;
static long g_fail_after = -1;
static pthread_mutex_t g_mem_lock = PTHREAD_MUTEX_INITIALIZER;

/* the allocation holding [p, p + n), or -1 */
static long find_alloc(const void *p, size_t n)
{
    const char *c = (const char *)p;
    long r = -1;
    pthread_mutex_lock(&g_mem_lock);
    for (size_t i = 0; i < g_nallocs; i++)
        if (c >= g_allocs[i].p && c <= g_allocs[i].p + g_allocs[i].n &&
            n <= (size_t)(g_allocs[i].p + g_allocs[i].n - c)) {
            r = (long)i;
            break;
        }
    pthread_mutex_unlock(&g_mem_lock);
    return r;
}

size_t cs_emu_device_bytes(void)
{
    size_t s = 0;
    pthread_mutex_lock(&g_mem_lock);
    for (size_t i = 0; i < g_nallocs; i++)
        s += g_allocs[i].n;
    pthread_mutex_unlock(&g_mem_lock);
    return s;
}

void cs_emu_fail_malloc_after(long n) { g_fail_after = n; }

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    *p = NULL;
    if (refused_in_capture())
        return g_last;
    if (g_fail_after == 0)
        return g_last = cudaErrorMemoryAllocation;
    if (g_fail_after > 0)
        g_fail_after--;
    char *m = (char *)malloc(bytes ? bytes : 1);
    if (!m)
        return g_last = cudaErrorMemoryAllocation;
    memset(m, 0xFF, bytes);   /* NaN for whoever reads before writing */
    pthread_mutex_lock(&g_mem_lock);
    if (g_nallocs == g_cap) {
        size_t cap = g_cap ? 2 * g_cap : 64;
        alloc_rec *a = (alloc_rec *)realloc(g_allocs, cap * sizeof *a);
        if (!a) {
            pthread_mutex_unlock(&g_mem_lock);
            free(m);
            return g_last = cudaErrorMemoryAllocation;
        }
        g_allocs = a;
        g_cap = cap;
    }
    g_allocs[g_nallocs++] = alloc_rec{m, bytes};
    pthread_mutex_unlock(&g_mem_lock);
    *p = m;
    return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
    if (refused_in_capture())
        return g_last;
    if (!p)
        return cudaSuccess;
    pthread_mutex_lock(&g_mem_lock);
    for (size_t i = 0; i < g_nallocs; i++)
        if (g_allocs[i].p == p) {
            g_allocs[i] = g_allocs[--g_nallocs];
            if (!g_nallocs) {
                free(g_allocs);
                g_allocs = NULL;
                g_cap = 0;
            }
            pthread_mutex_unlock(&g_mem_lock);
            free(p);
            return cudaSuccess;
        }
    pthread_mutex_unlock(&g_mem_lock);
    return g_last = cudaErrorInvalidValue;   /* not a device allocation */
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t s)
{
    (void)s;
    if (find_alloc(p, bytes) < 0)
        return g_last = cudaErrorInvalidValue;
    if (g_capture)
        cs_emu_record([p, value, bytes]() { memset(p, value, bytes); });
    else
        memset(p, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int value, size_t bytes)
{
    return refused_in_capture() ? g_last : cudaMemsetAsync(p, value, bytes);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t st)
{
    (void)st;
    int dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    int src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if ((dst_dev && find_alloc(dst, bytes) < 0) || (src_dev && find_alloc(src, bytes) < 0))
        return g_last = cudaErrorInvalidValue;
    /* overlapping regions are undefined on a GPU: refuse them here */
    const char *d = (const char *)dst, *s = (const char *)src;
    if (bytes && d < s + bytes && s < d + bytes)
        return g_last = cudaErrorInvalidValue;
    if (g_capture && kind != cudaMemcpyDeviceToDevice)   /* host memory in a node: not here */
        return refused_in_capture();
    if (g_capture)
        cs_emu_record([dst, src, bytes]() { memcpy(dst, src, bytes); });
    else
        memcpy(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    return refused_in_capture() ? g_last : cudaMemcpyAsync(dst, src, bytes, kind);
}

/* ------------------------------------------------------------------ the device */

cudaError_t cudaGetDeviceCount(int *n)
{
    *n = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    return device == 0 ? cudaSuccess : (g_last = cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int device)
{
    if (device != 0)
        return g_last = cudaErrorInvalidDevice;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "csreg CUDA emulator (CPU threads)");
    p->major = 9;
    p->multiProcessorCount = 2;
    p->sharedMemPerBlockOptin = 227 * 1024;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
    *v = 13000;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
    *v = 13000;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) { return refused_in_capture(); }

struct cs_emu_stream {
    int magic;
};

cudaError_t cudaStreamCreate(cudaStream_t *s)
{
    *s = (cudaStream_t)malloc(sizeof **s);
    return *s ? cudaSuccess : (g_last = cudaErrorMemoryAllocation);
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    free(s);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    (void)s;
    return refused_in_capture();
}

cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode)
{
    (void)mode;
    if (!s || g_capture)   /* the legacy stream; one capture at a time here */
        return g_last = cudaErrorStreamCaptureUnsupported;
    g_capture = new cs_emu_graph;
    g_cap_stream = s;
    g_cap_invalid = 0;
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g)
{
    *g = NULL;
    if (!g_capture || s != g_cap_stream)
        return g_last = cudaErrorInvalidValue;
    cs_emu_graph *c = g_capture;
    g_capture = NULL;
    g_cap_stream = NULL;
    if (g_cap_invalid) {
        delete c;
        return g_last = cudaErrorStreamCaptureInvalidated;
    }
    *g = c;
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus *st)
{
    *st = !g_capture || s != g_cap_stream ? cudaStreamCaptureStatusNone
          : g_cap_invalid             ? cudaStreamCaptureStatusInvalidated
                                      : cudaStreamCaptureStatusActive;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, unsigned long long flags)
{
    (void)flags;
    *e = NULL;
    if (!g)
        return g_last = cudaErrorInvalidValue;
    *e = new cs_emu_graph_exec{g->nodes};
    g_graph_nodes = (long)g->nodes.size();
    return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s)
{
    (void)s;
    if (!e)
        return g_last = cudaErrorInvalidValue;
    if (g_capture)   /* a graph inside a capture: not in this emulator */
        return refused_in_capture();
    for (auto &f : e->nodes)
        f();
    g_graph_launches++;
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e)
{
    delete e;
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t g)
{
    delete g;
    return cudaSuccess;
}

struct cs_emu_event {
    double t;   /* seconds; < 0: never recorded */
};

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = (cudaEvent_t)malloc(sizeof **e);
    if (!*e)
        return g_last = cudaErrorMemoryAllocation;
    (*e)->t = -1;
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    free(e);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t stream)
{
    (void)stream;
    if (refused_in_capture())   /* a GPU records it as a node; csreg never does */
        return g_last;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    e->t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    (void)e;
    return refused_in_capture();
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (start->t < 0 || end->t < 0)
        return g_last = cudaErrorInvalidValue;
    *ms = (float)(1e3 * (end->t - start->t));
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = g_last;
    g_last = cudaSuccess;
    return e;
}

const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
    case cudaErrorStreamCaptureImplicit: return "cudaErrorStreamCaptureImplicit";
    }
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInsufficientDriver:
        return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorStreamCaptureUnsupported:
        return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated:
        return "operation failed due to a previous error during capture";
    case cudaErrorStreamCaptureImplicit:
        return "operation would make the legacy stream depend on a capturing blocking stream";
    }
    return "unknown error";
}

/* ------------------------------------------------------------------ launches */

void __syncthreads(void) { pthread_barrier_wait(&g_barrier); }

/* two exchange buffers, used in turn: a thread reads buffer p after the
 * barrier, and buffer p is written again only after the next exchange's
 * barrier, which it reaches after that read: one barrier per exchange */
static double g_xchg[2][1024];
static thread_local int t_xchg;
static void *g_dynamic;

double __shfl_xor_sync(unsigned mask, double v, int lane_mask, int width)
{
    (void)mask;
    unsigned t = cs_emu_self.thread.x + cs_emu_block_dim.x *
                 (cs_emu_self.thread.y + cs_emu_block_dim.y * cs_emu_self.thread.z);
    unsigned w = (unsigned)width;
    double *buf = g_xchg[t_xchg];
    t_xchg ^= 1;
    buf[t] = v;
    __syncthreads();
    return buf[(t & ~(w - 1)) | ((t & (w - 1)) ^ (unsigned)lane_mask)];
}

void *cs_emu_dynamic_shared(void) { return g_dynamic; }

struct launch {
    dim3 grid;
    unsigned nthreads;
    void (*fn)(void *);
    void *ctx;
};

/* The block's threads: a pool, started as launches need more (at most
 * 1024), that waits (blocking) between launches. Thread idx is thread idx
 * of every block of a launch that has more than idx threads. */
static pthread_t g_pool[1024];
static unsigned g_npool;
static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_go = PTHREAD_COND_INITIALIZER, g_done = PTHREAD_COND_INITIALIZER;
static unsigned long g_gen;     /* launches so far */
static const launch *g_cur;
static unsigned g_left;         /* threads of the current launch still running */
static unsigned g_cur_threads;  /* the threads of its block */

/* one thread of the block: every block in turn, a barrier between blocks */
static void run_blocks(const launch *l, unsigned tid)
{
    cs_emu_self.thread = dim3(tid % cs_emu_block_dim.x, tid / cs_emu_block_dim.x % cs_emu_block_dim.y,
                              tid / (cs_emu_block_dim.x * cs_emu_block_dim.y));
    t_xchg = 0;
    for (unsigned z = 0; z < l->grid.z; z++)
        for (unsigned y = 0; y < l->grid.y; y++)
            for (unsigned x = 0; x < l->grid.x; x++) {
                cs_emu_self.block = dim3(x, y, z);
                l->fn(l->ctx);
                pthread_barrier_wait(&g_barrier);   /* the block's end */
            }
}

static void *pool_worker(void *arg)
{
    unsigned idx = (unsigned)(uintptr_t)arg;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&g_pool_lock);
        while (g_gen == seen)
            pthread_cond_wait(&g_go, &g_pool_lock);
        seen = g_gen;
        /* the launch (on cs_emu_run's stack) waits only for its block's
         * threads: the others must not read it, it may be gone */
        const launch *l = idx < g_cur_threads ? g_cur : NULL;
        pthread_mutex_unlock(&g_pool_lock);
        if (!l)
            continue;
        run_blocks(l, idx);
        pthread_mutex_lock(&g_pool_lock);
        if (--g_left == 0)
            pthread_cond_signal(&g_done);
        pthread_mutex_unlock(&g_pool_lock);
    }
    return NULL;
}

bool cs_emu_config_ok(dim3 grid, dim3 block, size_t shmem)
{
    unsigned long nt = (unsigned long)block.x * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0) {   /* what CUDA 13 answers on an H100 */
        g_last = cudaErrorInvalidValue;
        return false;
    }
    if (nt == 0 || nt > 1024 || block.z > 64 || grid.x > 0x7FFFFFFFu || grid.y > 65535 ||
        grid.z > 65535 || shmem > 227 * 1024) {
        g_last = cudaErrorInvalidConfiguration;
        return false;
    }
    return true;
}

void cs_emu_run(dim3 grid, dim3 block, size_t shmem, void (*fn)(void *), void *ctx)
{
    unsigned long nt = (unsigned long)block.x * block.y * block.z;
    if (!cs_emu_config_ok(grid, block, shmem))
        return;
    while (g_npool < nt) {
        if (pthread_create(&g_pool[g_npool], NULL, pool_worker, (void *)(uintptr_t)g_npool)) {
            fprintf(stderr, "cuda_emu: cannot start thread %u of a block\n", g_npool);
            abort();
        }
        pthread_detach(g_pool[g_npool]);
        g_npool++;
    }
    cs_emu_grid_dim = grid;
    cs_emu_block_dim = block;
    launch l = {grid, (unsigned)nt, fn, ctx};
    g_dynamic = shmem ? malloc(shmem) : NULL;
    if (g_dynamic)
        memset(g_dynamic, 0xFF, shmem);
    pthread_barrier_init(&g_barrier, NULL, (unsigned)nt);
    pthread_mutex_lock(&g_pool_lock);
    g_cur = &l;
    g_cur_threads = (unsigned)nt;
    g_left = (unsigned)nt;
    g_gen++;
    pthread_cond_broadcast(&g_go);
    while (g_left > 0)
        pthread_cond_wait(&g_done, &g_pool_lock);
    pthread_mutex_unlock(&g_pool_lock);
    pthread_barrier_destroy(&g_barrier);
    free(g_dynamic);
    g_dynamic = NULL;
}

/* ------------------------------------------------------------------ cuBLAS */

struct cs_emu_blas {
    int magic;
};
enum { BLAS_MAGIC = 0x5B1A5 };

cublasStatus_t cublasCreate(cublasHandle_t *h)
{
    *h = (cublasHandle_t)malloc(sizeof **h);
    if (!*h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    (*h)->magic = BLAS_MAGIC;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t h)
{
    if (!h || h->magic != BLAS_MAGIC)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    h->magic = 0;
    free(h);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode)
{
    (void)mode;
    return h && h->magic == BLAS_MAGIC ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s)
{
    (void)s;
    return h && h->magic == BLAS_MAGIC ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

const char *cublasGetStatusString(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

/* the operand (rows × cols, column-major with leading dimension ld) lies in
 * one device allocation */
static int operand_ok(const float *p, int rows, int cols, int ld, const char *name)
{
    if (rows == 0 || cols == 0)
        return 1;
    size_t extent = ((size_t)cols - 1) * (size_t)ld + (size_t)rows;
    if (find_alloc(p, extent * sizeof(float)) >= 0)
        return 1;
    fprintf(stderr, "cuda_emu: sgemm operand %s (%d×%d, ld %d) is not inside a device "
                    "allocation\n", name, rows, cols, ld);
    return 0;
}

static void gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* C = α op(A) op(B) + β C, column-major, as cuBLAS: m×n result, inner k */
cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const float *alpha, const float *A, int lda,
                           const float *B, int ldb, const float *beta, float *C, int ldc)
{
    if (!h || h->magic != BLAS_MAGIC)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int arows = ta == CUBLAS_OP_N ? m : k, acols = ta == CUBLAS_OP_N ? k : m;
    int brows = tb == CUBLAS_OP_N ? k : n, bcols = tb == CUBLAS_OP_N ? n : k;
    if ((ta != CUBLAS_OP_N && ta != CUBLAS_OP_T) || (tb != CUBLAS_OP_N && tb != CUBLAS_OP_T) ||
        m < 0 || n < 0 || k < 0 || lda < (arows > 1 ? arows : 1) ||
        ldb < (brows > 1 ? brows : 1) || ldc < (m > 1 ? m : 1) || !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!operand_ok(A, arows, acols, lda, "A") || !operand_ok(B, brows, bcols, ldb, "B") ||
        !operand_ok(C, m, n, ldc, "C"))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (g_capture) {   /* α and β as they are now, the product at replay */
        float a = *alpha, b = *beta;
        cs_emu_record([=]() { gemm(ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc); });
    } else {
        gemm(ta, tb, m, n, k, *alpha, A, lda, B, ldb, *beta, C, ldc);
    }
    return CUBLAS_STATUS_SUCCESS;
}

/* the reference product: sums in double */
static void gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int p = 0; p < k; p++) {
                float a = ta == CUBLAS_OP_N ? A[(size_t)p * lda + i] : A[(size_t)i * lda + p];
                float b = tb == CUBLAS_OP_N ? B[(size_t)j * ldb + p] : B[(size_t)p * ldb + j];
                s += (double)a * b;
            }
            float *c = &C[(size_t)j * ldc + i];
            /* β = 0 ignores C (it may hold NaN), as BLAS does */
            *c = beta == 0.0f ? (float)(alpha * s) : (float)(alpha * s + (double)beta * *c);
        }
}
