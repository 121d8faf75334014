/* cuda/nn_cudnn.cu — the convolutions and batch norms through cuDNN 9,
 * loaded with dlopen (see nn_cudnn.h): finding the library, resolving the
 * functions used, and per shape a plan (descriptors, algorithms,
 * workspace) made once.
 *
 * Parity with the CPU comes first: the math type is CUDNN_FMA_MATH (on
 * Ampere and later CUDNN_DEFAULT_MATH permits TF32 tensor cores, whose
 * 10-bit mantissa is far outside the 1e-4 the parity rows allow), and the
 * algorithms are cuDNN's heuristics' (cudnnGet*_v7, the same answer every
 * run, unlike the timed cudnnFind*) first that is deterministic and sums
 * exactly as a GEMM does (no FFT or Winograd transforms), so two runs give
 * the same bits. The workspace is one buffer of the module's, grown to the
 * largest a plan needs (at most CUDNN_WS_MAX).
 *
 * Batch norm is the legacy CUDNN_BATCHNORM_SPATIAL (deterministic; not
 * SPATIAL_PERSISTENT, whose atomics and range limits the op's contract
 * does not allow), one pair of descriptors per (B, C, HW): the statistics
 * spread over the GPU where the own kernels run one block per channel.
 *
 * Under the emulator (CS_CUDA_EMU) the functions are the emulator's
 * reference (tests/emu/cudnn_emu.cc), taken directly; with CSREG_CUDNN set
 * the search and dlopen run as on a GPU machine, and a library found is
 * reported but its functions are not called (the emulator's device memory
 * is host memory). */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nn_cuda.cuh"
#include "nn_cudnn.h"

#if defined(CS_CUDA_EMU) || __has_include(<cudnn.h>)
#define CS_HAVE_CUDNN_H 1
#include <cudnn.h>
#endif

#define CUDNN_SONAME "libcudnn.so.9"
#define CUDNN_WHEEL "nvidia/cudnn/lib/" CUDNN_SONAME
#define CUDNN_WS_MAX ((size_t)256 << 20)
#define CUDNN_PLANS 64

static char g_status[CUDNN_PATH_MAX + 256] = "cuDNN not initialized: built-in kernels";

/* snprintf for the messages: they hold paths and may be cut (as
 * -Wformat-truncation would complain of) */
__attribute__((format(printf, 3, 4))) static void say(char *dst, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, len, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ the search */

/* p onto the list unless the list is full, or (must_exist) p is not there
 * or the same file as one before */
static int add(char (*paths)[CUDNN_PATH_MAX], int n, int max, const char *p, int must_exist)
{
    if (n >= max)
        return n;
    if (must_exist) {
        char rp[PATH_MAX], rq[PATH_MAX];
        if (access(p, F_OK) != 0 || !realpath(p, rp))
            return n;
        for (int i = 0; i < n; i++)
            if (realpath(paths[i], rq) && !strcmp(rp, rq))
                return n;
    }
    snprintf(paths[n], CUDNN_PATH_MAX, "%s", p);
    return n + 1;
}

/* the files a pattern matches, in glob's (sorted) order */
static int add_glob(char (*paths)[CUDNN_PATH_MAX], int n, int max, const char *pattern)
{
    glob_t g;
    memset(&g, 0, sizeof g);
    if (glob(pattern, 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; i++)
            n = add(paths, n, max, g.gl_pathv[i], 1);
    globfree(&g);
    return n;
}

int cudnn_candidates(const cudnn_env *e, char (*paths)[CUDNN_PATH_MAX], int max)
{
    char p[CUDNN_PATH_MAX];
    const char *root = e->root ? e->root : "";
    if (e->cudnn && *e->cudnn) {   /* the user's choice alone, there or not (the message says) */
        struct stat st;
        if (stat(e->cudnn, &st) == 0 && S_ISDIR(st.st_mode))
            snprintf(p, sizeof p, "%s/%s", e->cudnn, CUDNN_SONAME);
        else
            snprintf(p, sizeof p, "%s", e->cudnn);
        return add(paths, 0, max, p, 0);
    }
    int n = add(paths, 0, max, CUDNN_SONAME, 0);
    if (e->cuda_home && *e->cuda_home) {
        snprintf(p, sizeof p, "%s/lib64/%s", e->cuda_home, CUDNN_SONAME);
        n = add(paths, n, max, p, 1);
    }
    snprintf(p, sizeof p, "%s/usr/local/cuda/lib64/%s", root, CUDNN_SONAME);
    n = add(paths, n, max, p, 1);
    static const char *const sys[] = {"/usr/lib/python3*/dist-packages",
                                      "/usr/local/lib/python3*/site-packages",
                                      "/usr/local/lib/python3*/dist-packages"};
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++) {
        snprintf(p, sizeof p, "%s%s/%s", root, sys[i], CUDNN_WHEEL);
        n = add_glob(paths, n, max, p);
    }
    if (e->virtual_env && *e->virtual_env) {
        snprintf(p, sizeof p, "%s/lib/python3*/site-packages/%s", e->virtual_env, CUDNN_WHEEL);
        n = add_glob(paths, n, max, p);
    }
    if (e->home && *e->home) {
        snprintf(p, sizeof p, "%s/.local/lib/python3*/site-packages/%s", e->home, CUDNN_WHEEL);
        n = add_glob(paths, n, max, p);
    }
    return n;
}

const char *cudnn_status(void)
{
    return g_status;
}

#ifndef CS_HAVE_CUDNN_H
/* built where nvcc has no cudnn.h: the built-in kernels always */
void cudnn_init(void)
{
    say(g_status, sizeof g_status, "no cuDNN (built without cudnn.h): built-in kernels");
}
void cudnn_shutdown(void) {}
int cudnn_conv_forward(float *, const float *, const float *, int, int, int, int, int, int, int,
                       const char *)
{
    return 0;
}
int cudnn_conv_backward(float *, float *, const float *, const float *, const float *, int, int,
                        int, int, int, int, int, const char *)
{
    return 0;
}
int cudnn_bn_forward(float *, const float *, const float *, const float *, float *, float *,
                     float *, float *, int, int, int, int, const char *)
{
    return 0;
}
int cudnn_bn_backward(float *, float *, float *, const float *, const float *, const float *,
                      const float *, const float *, int, int, int, const char *)
{
    return 0;
}
#else

/* ------------------------------------------------------------------ the functions */

#define CUDNN_FUNCS(X)                                                                     \
    X(cudnnGetVersion)                                                                     \
    X(cudnnGetErrorString)                                                                 \
    X(cudnnCreate)                                                                         \
    X(cudnnDestroy)                                                                        \
    X(cudnnSetStream)                                                                      \
    X(cudnnCreateTensorDescriptor)                                                         \
    X(cudnnSetTensor4dDescriptor)                                                          \
    X(cudnnDestroyTensorDescriptor)                                                        \
    X(cudnnCreateFilterDescriptor)                                                         \
    X(cudnnSetFilter4dDescriptor)                                                          \
    X(cudnnDestroyFilterDescriptor)                                                        \
    X(cudnnCreateConvolutionDescriptor)                                                    \
    X(cudnnSetConvolution2dDescriptor)                                                     \
    X(cudnnSetConvolutionMathType)                                                         \
    X(cudnnDestroyConvolutionDescriptor)                                                   \
    X(cudnnGetConvolution2dForwardOutputDim)                                               \
    X(cudnnGetConvolutionForwardAlgorithm_v7)                                              \
    X(cudnnGetConvolutionBackwardDataAlgorithm_v7)                                         \
    X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)                                       \
    X(cudnnGetConvolutionForwardWorkspaceSize)                                             \
    X(cudnnGetConvolutionBackwardDataWorkspaceSize)                                        \
    X(cudnnGetConvolutionBackwardFilterWorkspaceSize)                                      \
    X(cudnnConvolutionForward)                                                             \
    X(cudnnConvolutionBackwardData)                                                        \
    X(cudnnConvolutionBackwardFilter)                                                      \
    X(cudnnBatchNormalizationForwardTraining)                                              \
    X(cudnnBatchNormalizationForwardInference)                                             \
    X(cudnnBatchNormalizationBackward)

/* pointers of the declarations' own types (decltype uses no symbol) */
struct cudnn_fns {
#define CS_FN_FIELD(n) decltype(&::n) n;
    CUDNN_FUNCS(CS_FN_FIELD)
#undef CS_FN_FIELD
};
static cudnn_fns g_fn;

/* every function from the library h; 0, or -1 with the one missing */
static int resolve(void *h, char *why, size_t len)
{
    cudnn_fns f;
#define CS_FN_SYM(n)                                                                       \
    {                                                                                      \
        void *s = dlsym(h, #n);                                                            \
        if (!s) {                                                                          \
            say(why, len, "no %s in it", #n);                                         \
            return -1;                                                                     \
        }                                                                                  \
        memcpy(&f.n, &s, sizeof s); /* ISO C++: no cast from void * to a function */       \
    }
    CUDNN_FUNCS(CS_FN_SYM)
#undef CS_FN_SYM
    g_fn = f;
    return 0;
}

#ifdef CS_CUDA_EMU
/* the emulator's reference (cudnn_emu.cc) */
static void resolve_emu(void)
{
#define CS_FN_EMU(n) g_fn.n = &::n;
    CUDNN_FUNCS(CS_FN_EMU)
#undef CS_FN_EMU
}
#endif

static void version_str(size_t v, char *s, size_t len)
{
    say(s, len, "%zu.%zu.%zu", v / 10000, v % 10000 / 100, v % 100);
}

/* dlopen one candidate: cuDNN 9 or later with every function; its version
 * and the file it is (realpath), else NULL with why */
static void *open_one(const char *path, size_t *version, char *file, size_t flen, char *why,
                      size_t wlen)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        say(why, wlen, "%s", e ? e : "dlopen failed");
        return NULL;
    }
    void *sym = dlsym(h, "cudnnGetVersion");
    size_t (*get)(void) = NULL;
    memcpy(&get, &sym, sizeof sym);
    Dl_info info;
    char rp[PATH_MAX];
    const char *f = sym && dladdr(sym, &info) && info.dli_fname ? info.dli_fname : path;
    say(file, flen, "%s", realpath(f, rp) ? rp : f);
    char v[32], r[160];
    if (!get) {
        say(why, wlen, "%s: no cudnnGetVersion (not cuDNN)", file);
    } else if ((*version = get()) < 90000) {
        version_str(*version, v, sizeof v);
        say(why, wlen, "%s is cuDNN %s (9 or later needed)", file, v);
    } else if (resolve(h, r, sizeof r) == 0) {
        return h;   /* kept loaded: what it allocates must outlive shutdowns */
    } else {
        say(why, wlen, "%s: %s", file, r);
    }
    dlclose(h);
    return NULL;
}

/* the first candidate that opens; 0, or -1 with why (the first failure of
 * a file that is there: one not there says nothing) */
static int load(const cudnn_env *e, size_t *version, char *file, size_t flen, char *why,
                size_t wlen)
{
    static char paths[CUDNN_MAX_CANDIDATES][CUDNN_PATH_MAX];
    int n = cudnn_candidates(e, paths, CUDNN_MAX_CANDIDATES);
    char first[CUDNN_PATH_MAX + 128] = "", r[CUDNN_PATH_MAX + 128];
    for (int i = 0; i < n; i++) {
        if (open_one(paths[i], version, file, flen, r, sizeof r))
            return 0;
        int absent = strstr(r, "No such file") != NULL;
        if (!first[0] && (!absent || (e->cudnn && *e->cudnn)))
            say(first, sizeof first, "%s", r);
    }
    if (e->cudnn && *e->cudnn)
        say(why, wlen, "CSREG_CUDNN=%s: %s", e->cudnn, first);
    else
        say(why, wlen,
                 "looked for " CUDNN_SONAME " on the library path, in $CUDA_HOME/lib64, "
                 "/usr/local/cuda/lib64 and Python's " CUDNN_WHEEL "%s%s; CSREG_CUDNN= names one",
                 first[0] ? ": " : "", first);
    return -1;
}

/* ------------------------------------------------------------------ plans */

static cudnnHandle_t g_h;
static void *g_ws;
static size_t g_ws_cap;
static int g_bn_on;   /* batch norm through cuDNN (not CSREG_CUDNN_BN=off) */

typedef struct plan {
    int key[7];   /* B, C, H, W, OC, k, stride */
    int ok;       /* 0: this shape runs the built-in kernels */
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t f;
    cudnnConvolutionDescriptor_t c;
    cudnnConvolutionFwdAlgo_t fwd;
    cudnnConvolutionBwdDataAlgo_t data;
    cudnnConvolutionBwdFilterAlgo_t filter;
} plan;
static plan g_plans[CUDNN_PLANS];
static int g_nplans, g_evict;

static void plan_free(plan *p)
{
    if (p->x)
        g_fn.cudnnDestroyTensorDescriptor(p->x);
    if (p->y)
        g_fn.cudnnDestroyTensorDescriptor(p->y);
    if (p->f)
        g_fn.cudnnDestroyFilterDescriptor(p->f);
    if (p->c)
        g_fn.cudnnDestroyConvolutionDescriptor(p->c);
    memset(p, 0, sizeof *p);
}

static void bn_plans_free(void);

void cudnn_shutdown(void)
{
    for (int i = 0; i < g_nplans; i++)
        plan_free(&g_plans[i]);
    g_nplans = g_evict = 0;
    bn_plans_free();
    g_bn_on = 0;
    if (g_h)
        g_fn.cudnnDestroy(g_h);
    g_h = NULL;
    if (g_ws)
        cudaFree(g_ws);
    g_ws = NULL;
    g_ws_cap = 0;
}

void cudnn_init(void)
{
    cudnn_shutdown();
    cudnn_env e = {getenv("CSREG_CUDNN"), getenv("CUDA_HOME"), getenv("VIRTUAL_ENV"),
                   getenv("HOME"), ""};
    if (e.cudnn && !strcasecmp(e.cudnn, "off")) {
        say(g_status, sizeof g_status, "cuDNN off (CSREG_CUDNN=off): built-in kernels");
        return;
    }
    size_t version = 0;
    char file[CUDNN_PATH_MAX], why[2 * CUDNN_PATH_MAX], v[32];
    int emulated = 0;
#ifdef CS_CUDA_EMU
    emulated = !e.cudnn || !*e.cudnn;
    if (emulated) {
        resolve_emu();
        version = g_fn.cudnnGetVersion();
        say(file, sizeof file, "the emulator (tests/emu/cudnn_emu.cc)");
    }
#endif
    if (!emulated && load(&e, &version, file, sizeof file, why, sizeof why)) {
        say(g_status, sizeof g_status, "no cuDNN (%s): built-in kernels", why);
        return;
    }
#ifdef CS_CUDA_EMU
    if (!emulated) {   /* found; the reference runs (device memory is host memory) */
        resolve_emu();
        say(file + strlen(file), sizeof file - strlen(file), ", run by the emulator");
    }
#endif
    version_str(version, v, sizeof v);
    cudnnStatus_t s = g_fn.cudnnCreate(&g_h);
    if (s != CUDNN_STATUS_SUCCESS) {
        g_h = NULL;
        say(g_status, sizeof g_status, "cuDNN %s from %s: cudnnCreate failed (%s): built-in "
            "kernels", v, file, g_fn.cudnnGetErrorString(s));
        return;
    }
    if ((s = g_fn.cudnnSetStream(g_h, nn_stream)) != CUDNN_STATUS_SUCCESS) {
        g_fn.cudnnDestroy(g_h);
        g_h = NULL;
        say(g_status, sizeof g_status, "cuDNN %s from %s: cudnnSetStream failed (%s): built-in "
            "kernels", v, file, g_fn.cudnnGetErrorString(s));
        return;
    }
    const char *bn = getenv("CSREG_CUDNN_BN");
    g_bn_on = !(bn && !strcasecmp(bn, "off"));
    say(g_status, sizeof g_status, "cuDNN %s from %s; batch norm: %s", v, file,
        g_bn_on ? "cuDNN" : "own kernels (CSREG_CUDNN_BN=off)");
}

/* the GEMM-like algorithms: their sums are exact products added up, as the
 * built-in kernels' (FFT and Winograd transform the operands first) */
enum {
    FWD_OK = 1 << CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM |
             1 << CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM |
             1 << CUDNN_CONVOLUTION_FWD_ALGO_GEMM | 1 << CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
    DATA_OK = 1 << CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,       /* ALGO_0: atomics */
    FILTER_OK = 1 << CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1    /* ALGO_0, ALGO_3: atomics */
};

/* the first of the heuristics' answers that works, is deterministic, is
 * GEMM-like and fits the workspace; -1 none. Its mathType is not asked:
 * cudnnGet*_v7 may answer one other than the descriptor's (PyTorch's
 * "chooseAlgorithm doesn't respect mathType"), and the descriptor's,
 * CUDNN_FMA_MATH, is what the execution uses. */
template <class P> static int pick(const P *perf, int n, int allowed)
{
    for (int i = 0; i < n; i++) {
        const P &p = perf[i];
        if (p.status == CUDNN_STATUS_SUCCESS && p.determinism == CUDNN_DETERMINISTIC &&
            p.memory <= CUDNN_WS_MAX && (allowed >> (int)p.algo & 1))
            return i;
    }
    return -1;
}

/* the workspace at least bytes; 0 ok */
static int ws_reserve(size_t bytes)
{
    if (bytes <= g_ws_cap)
        return 0;
    if (g_ws)
        cudaFree(g_ws);
    g_ws = NULL;
    g_ws_cap = 0;
    cuda_graph_stale();
    if (cudaMalloc(&g_ws, bytes) != cudaSuccess) {
        cudaGetLastError();   /* not kept: the built-in kernels run instead */
        g_ws = NULL;
        return -1;
    }
    g_ws_cap = bytes;
    return 0;
}

/* g_fn.fn args, or return -1 with why */
#define SETUP(fn, args)                                                                    \
    do {                                                                                   \
        cudnnStatus_t st_ = g_fn.fn args;                                                  \
        if (st_ != CUDNN_STATUS_SUCCESS) {                                                 \
            say(why, len, "%s: %s", #fn, g_fn.cudnnGetErrorString(st_));              \
            return -1;                                                                     \
        }                                                                                  \
    } while (0)

/* descriptors and algorithms for p->key; 0, or -1 with why */
static int plan_make(plan *p, char *why, size_t len)
{
    int B = p->key[0], C = p->key[1], H = p->key[2], W = p->key[3], OC = p->key[4],
        k = p->key[5], s = p->key[6];
    int OH = (H - 1) / s + 1, OW = (W - 1) / s + 1, n, c, oh, ow;
    SETUP(cudnnCreateTensorDescriptor, (&p->x));
    SETUP(cudnnCreateTensorDescriptor, (&p->y));
    SETUP(cudnnCreateFilterDescriptor, (&p->f));
    SETUP(cudnnCreateConvolutionDescriptor, (&p->c));
    SETUP(cudnnSetTensor4dDescriptor, (p->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, B, C, H, W));
    SETUP(cudnnSetFilter4dDescriptor, (p->f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, OC, C, k, k));
    SETUP(cudnnSetConvolution2dDescriptor, (p->c, k / 2, k / 2, s, s, 1, 1,
                                               CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    SETUP(cudnnSetConvolutionMathType, (p->c, CUDNN_FMA_MATH));
    SETUP(cudnnGetConvolution2dForwardOutputDim, (p->c, p->x, p->f, &n, &c, &oh, &ow));
    if (n != B || c != OC || oh != OH || ow != OW) {
        say(why, len, "cuDNN's output %dx%dx%dx%d, not %dx%dx%dx%d", n, c, oh, ow, B, OC, OH,
                 OW);
        return -1;
    }
    SETUP(cudnnSetTensor4dDescriptor, (p->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, B, OC, OH, OW));

    cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    cudnnConvolutionBwdDataAlgoPerf_t dp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    cudnnConvolutionBwdFilterAlgoPerf_t wp[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    int nf = 0, nd = 0, nw = 0;
    SETUP(cudnnGetConvolutionForwardAlgorithm_v7, (g_h, p->x, p->f, p->c, p->y,
                                                      CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &nf, fp));
    SETUP(cudnnGetConvolutionBackwardDataAlgorithm_v7, (
        g_h, p->f, p->y, p->c, p->x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &nd, dp));
    SETUP(cudnnGetConvolutionBackwardFilterAlgorithm_v7, (
        g_h, p->x, p->y, p->c, p->f, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &nw, wp));
    int i = pick(fp, nf, FWD_OK), j = pick(dp, nd, DATA_OK), q = pick(wp, nw, FILTER_OK);
    if (i < 0 || j < 0 || q < 0) {
        const char *pass = i < 0 ? "forward" : j < 0 ? "data gradient" : "filter gradient";
        say(why, len, "no deterministic GEMM-like algorithm for the %s", pass);
        return -1;
    }
    p->fwd = fp[i].algo;
    p->data = dp[j].algo;
    p->filter = wp[q].algo;
    size_t a = 0, b = 0, d = 0;
    SETUP(cudnnGetConvolutionForwardWorkspaceSize, (g_h, p->x, p->f, p->c, p->y, p->fwd, &a));
    SETUP(cudnnGetConvolutionBackwardDataWorkspaceSize, (g_h, p->f, p->y, p->c, p->x, p->data,
                                                            &b));
    SETUP(cudnnGetConvolutionBackwardFilterWorkspaceSize, (g_h, p->x, p->y, p->c, p->f,
                                                              p->filter, &d));
    size_t need = a > b ? a : b;
    need = need > d ? need : d;
    if (ws_reserve(need)) {
        say(why, len, "no device memory for a workspace of %zu bytes", need);
        return -1;
    }
    return 0;
}

/* the plan of this shape, made on first use; NULL: the built-in kernels */
static plan *plan_for(int B, int C, int H, int W, int OC, int k, int s)
{
    if (!g_h)
        return NULL;
    int key[7] = {B, C, H, W, OC, k, s};
    for (int i = 0; i < g_nplans; i++)
        if (!memcmp(g_plans[i].key, key, sizeof key))
            return g_plans[i].ok ? &g_plans[i] : NULL;
    plan *p;
    if (g_nplans < CUDNN_PLANS) {
        p = &g_plans[g_nplans++];
    } else {   /* full: the oldest made goes */
        p = &g_plans[g_evict];
        g_evict = (g_evict + 1) % CUDNN_PLANS;
        plan_free(p);
    }
    memcpy(p->key, key, sizeof key);
    char why[256];
    if (plan_make(p, why, sizeof why) == 0) {
        p->ok = 1;
        return p;
    }
    /* said in the device's name (the module prints nothing) */
    size_t n = strlen(g_status);
    if (!strstr(g_status, "; a convolution"))
        say(g_status + n, sizeof g_status - n, "; a convolution (B%d C%d %dx%d OC%d k%d s%d) on "
            "built-in kernels: %s", B, C, H, W, OC, k, s, why);
    int keep[7];
    memcpy(keep, key, sizeof keep);
    plan_free(p);   /* its descriptors; the shape stays marked */
    memcpy(p->key, keep, sizeof keep);
    return NULL;
}

/* an execution's status: kept as the ops' errors are */
static void run_ok(cudnnStatus_t s, const char *op, const char *what)
{
    if (s == CUDNN_STATUS_SUCCESS)
        return;
    char b[192];
    say(b, sizeof b, "cuDNN %s: %s", what, g_fn.cudnnGetErrorString(s));
    cuda_note(op, b);
}

int cudnn_conv_forward(float *out, const float *inp, const float *w, int B, int C, int H, int W,
                       int OC, int k, int stride, const char *op)
{
    plan *p = plan_for(B, C, H, W, OC, k, stride);
    if (!p)
        return 0;
    const float one = 1.0f, zero = 0.0f;
    run_ok(g_fn.cudnnConvolutionForward(g_h, &one, p->x, inp, p->f, w, p->c, p->fwd, g_ws,
                                        g_ws_cap, &zero, p->y, out),
           op, "cudnnConvolutionForward");
    return 1;
}

int cudnn_conv_backward(float *dinp, float *dw, const float *dout, const float *inp,
                        const float *w, int B, int C, int H, int W, int OC, int k, int stride,
                        const char *op)
{
    plan *p = plan_for(B, C, H, W, OC, k, stride);
    if (!p)
        return 0;
    const float one = 1.0f, zero = 0.0f;
    run_ok(g_fn.cudnnConvolutionBackwardFilter(g_h, &one, p->x, inp, p->y, dout, p->c, p->filter,
                                               g_ws, g_ws_cap, &zero, p->f, dw),
           op, "cudnnConvolutionBackwardFilter");
    if (dinp)
        run_ok(g_fn.cudnnConvolutionBackwardData(g_h, &one, p->f, w, p->y, dout, p->c, p->data,
                                                 g_ws, g_ws_cap, &zero, p->x, dinp),
               op, "cudnnConvolutionBackwardData");
    return 1;
}

/* ------------------------------------------------------------------ batch norm */

#define BN_EPS 1e-5        /* nn_backend.h's, as nn_ops.cu's kernels */
#define BN_MOMENTUM 0.1

typedef struct bn_plan {
    int key[3];   /* B, C, HW */
    int ok;       /* 0: this shape runs the own kernels */
    cudnnTensorDescriptor_t x, p;   /* B × C × HW × 1; 1 × C × 1 × 1 */
} bn_plan;
static bn_plan g_bn[CUDNN_PLANS];
static int g_nbn, g_bn_evict;

static void bn_plan_free(bn_plan *p)
{
    if (p->x)
        g_fn.cudnnDestroyTensorDescriptor(p->x);
    if (p->p)
        g_fn.cudnnDestroyTensorDescriptor(p->p);
    memset(p, 0, sizeof *p);
}

static void bn_plans_free(void)
{
    for (int i = 0; i < g_nbn; i++)
        bn_plan_free(&g_bn[i]);
    g_nbn = g_bn_evict = 0;
}

static int bn_plan_make(bn_plan *p, char *why, size_t len)
{
    SETUP(cudnnCreateTensorDescriptor, (&p->x));
    SETUP(cudnnCreateTensorDescriptor, (&p->p));
    SETUP(cudnnSetTensor4dDescriptor, (p->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, p->key[0],
                                       p->key[1], p->key[2], 1));
    SETUP(cudnnSetTensor4dDescriptor, (p->p, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, p->key[1],
                                       1, 1));
    return 0;
}

/* the descriptors of this shape, made on first use; NULL: the own kernels */
static bn_plan *bn_plan_for(int B, int C, int HW)
{
    if (!g_h || !g_bn_on)
        return NULL;
    int key[3] = {B, C, HW};
    for (int i = 0; i < g_nbn; i++)
        if (!memcmp(g_bn[i].key, key, sizeof key))
            return g_bn[i].ok ? &g_bn[i] : NULL;
    bn_plan *p;
    if (g_nbn < CUDNN_PLANS) {
        p = &g_bn[g_nbn++];
    } else {   /* full: the oldest made goes */
        p = &g_bn[g_bn_evict];
        g_bn_evict = (g_bn_evict + 1) % CUDNN_PLANS;
        bn_plan_free(p);
    }
    memcpy(p->key, key, sizeof key);
    char why[256];
    if (bn_plan_make(p, why, sizeof why) == 0) {
        p->ok = 1;
        return p;
    }
    size_t n = strlen(g_status);
    if (!strstr(g_status, "; a batch norm"))
        say(g_status + n, sizeof g_status - n, "; a batch norm (B%d C%d HW%d) on own kernels: %s",
            B, C, HW, why);
    bn_plan_free(p);   /* its descriptors; the shape stays marked */
    memcpy(p->key, key, sizeof key);
    return NULL;
}

int cudnn_bn_forward(float *out, const float *inp, const float *gamma, const float *beta,
                     float *mean, float *rstd, float *run_mean, float *run_var, int B, int C,
                     int HW, int train, const char *op)
{
    if (train && (size_t)B * HW < 2)   /* no unbiased variance: the kernels' rule */
        return 0;
    bn_plan *p = bn_plan_for(B, C, HW);
    if (!p)
        return 0;
    const float one = 1.0f, zero = 0.0f;
    if (train)
        run_ok(g_fn.cudnnBatchNormalizationForwardTraining(
                   g_h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, p->x, inp, p->x, out, p->p, gamma,
                   beta, BN_MOMENTUM, run_mean, run_var, BN_EPS, mean, rstd),
               op, "cudnnBatchNormalizationForwardTraining");
    else
        run_ok(g_fn.cudnnBatchNormalizationForwardInference(g_h, CUDNN_BATCHNORM_SPATIAL, &one,
                                                            &zero, p->x, inp, p->x, out, p->p,
                                                            gamma, beta, run_mean, run_var,
                                                            BN_EPS),
               op, "cudnnBatchNormalizationForwardInference");
    return 1;
}

int cudnn_bn_backward(float *dinp, float *dgamma, float *dbeta, const float *dout,
                      const float *inp, const float *gamma, const float *mean, const float *rstd,
                      int B, int C, int HW, const char *op)
{
    bn_plan *p = dinp ? bn_plan_for(B, C, HW) : NULL;
    if (!p)
        return 0;
    const float one = 1.0f, zero = 0.0f;
    run_ok(g_fn.cudnnBatchNormalizationBackward(g_h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one,
                                                &zero, p->x, inp, p->x, dout, p->x, dinp, p->p,
                                                gamma, dgamma, dbeta, BN_EPS, mean, rstd),
           op, "cudnnBatchNormalizationBackward");
    return 1;
}
#endif
