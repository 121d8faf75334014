/* cudnn_emu.cc — the emulator's cuDNN (see cudnn.h): the documented
 * semantics of cuDNN's legacy convolution and batch norm API in plain
 * loops with double sums. 4-d NCHW float tensors and filters (K × C × R × S), 2-d
 * convolutions with zero padding, stride and dilation, cross-correlation
 * or convolution (the filter flipped); y = α·op + β·y, where β = 0 does not
 * read y (the emulator's memory starts as NaN, so a reading shows). It
 * refuses what cuDNN refuses (no handle, unset or mismatched descriptors,
 * a workspace smaller than the algorithm asks) with cuDNN's statuses.
 * The algorithm queries answer as cuDNN's heuristics do, best first: for
 * the backward passes the non-deterministic ALGO_0 first, so the backend
 * has to pick the deterministic one after it. */
#include "cudnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <functional>
#include <initializer_list>
#include <memory>

/* cuda_emu.cc's capture (cuda_emu.h, not included here) */
bool cs_emu_capturing(void);
void cs_emu_record(std::function<void()> f);

struct cudnnContext {
    int magic;
};
struct cudnnTensorStruct {
    int set, n, c, h, w;
};
struct cudnnFilterStruct {
    int set, k, c, r, s;
};
struct cudnnConvolutionStruct {
    int set, pad_h, pad_w, u, v, dil_h, dil_w;
    cudnnConvolutionMode_t mode;
    cudnnMathType_t math;
};

enum { HANDLE_MAGIC = 0x5eed, WS_ALGO1 = 1024 };   /* bytes of ALGO_1's workspace */

static long g_convs, g_bns;
static int g_fail_create;
/* a call's checks only: while a capture records, a call is checked at
 * once (dry) and its work recorded, with copies of its descriptors and host
 * scalars, as a graph node keeps them */
static bool g_dry;

/* a call's handle, descriptors and host scalars, copied; the pointers are
 * the call's arguments: the copies, NULL where the caller gave NULL */
struct cudnn_snap {
    cudnnContext h;
    cudnnTensorStruct t[4];
    cudnnFilterStruct f;
    cudnnConvolutionStruct c;
    float s[4];
    cudnnContext *hp;
    cudnnTensorStruct *tp[4];
    cudnnFilterStruct *fp;
    cudnnConvolutionStruct *cp;
    const float *sp[4];
};
typedef std::shared_ptr<cudnn_snap> snap_ptr;

template <class T> static T *keep(T *copy, const T *orig)
{
    if (!orig)
        return NULL;
    *copy = *orig;
    return copy;
}

static snap_ptr snap_of(cudnnHandle_t h, std::initializer_list<const void *> scalars,
                        std::initializer_list<cudnnTensorDescriptor_t> tensors,
                        cudnnFilterDescriptor_t f = NULL, cudnnConvolutionDescriptor_t c = NULL)
{
    snap_ptr p = std::make_shared<cudnn_snap>();
    p->hp = keep(&p->h, h);
    int i = 0;
    for (const void *v : scalars) {
        p->sp[i] = v ? &p->s[i] : NULL;
        p->s[i] = v ? *(const float *)v : 0.0f;
        i++;
    }
    i = 0;
    for (cudnnTensorDescriptor_t t : tensors) {
        p->tp[i] = keep(&p->t[i], t);
        i++;
    }
    p->fp = keep(&p->f, f);
    p->cp = keep(&p->c, c);
    return p;
}

/* While a capture records: the call made from the copies at once, checks
 * only (dry), and its work recorded for the replay. */
template <class Call> static cudnnStatus_t deferred(snap_ptr p, Call call)
{
    g_dry = true;
    cudnnStatus_t s = call(p.get());
    g_dry = false;
    if (s == CUDNN_STATUS_SUCCESS)
        cs_emu_record([p, call]() { call(p.get()); });
    return s;
}

long cs_emu_cudnn_convs(void) { return g_convs; }
long cs_emu_cudnn_bns(void) { return g_bns; }
void cs_emu_cudnn_fail_create(int fail) { g_fail_create = fail; }

size_t cudnnGetVersion(void) { return CUDNN_VERSION; }

const char *cudnnGetErrorString(cudnnStatus_t s)
{
    switch (s) {
    case CUDNN_STATUS_SUCCESS: return "CUDNN_STATUS_SUCCESS";
    case CUDNN_STATUS_NOT_INITIALIZED: return "CUDNN_STATUS_NOT_INITIALIZED";
    case CUDNN_STATUS_BAD_PARAM: return "CUDNN_STATUS_BAD_PARAM";
    case CUDNN_STATUS_BAD_PARAM_NULL_POINTER: return "CUDNN_STATUS_BAD_PARAM_NULL_POINTER";
    case CUDNN_STATUS_NOT_SUPPORTED: return "CUDNN_STATUS_NOT_SUPPORTED";
    case CUDNN_STATUS_INTERNAL_ERROR: return "CUDNN_STATUS_INTERNAL_ERROR";
    case CUDNN_STATUS_EXECUTION_FAILED: return "CUDNN_STATUS_EXECUTION_FAILED";
    }
    return "CUDNN_STATUS_UNKNOWN";
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *h)
{
    if (!h)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    *h = NULL;
    if (g_fail_create)
        return CUDNN_STATUS_NOT_INITIALIZED;
    *h = (cudnnHandle_t)malloc(sizeof **h);
    if (!*h)
        return CUDNN_STATUS_INTERNAL_ERROR;
    (*h)->magic = HANDLE_MAGIC;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t h)
{
    if (!h || h->magic != HANDLE_MAGIC)
        return CUDNN_STATUS_BAD_PARAM;
    h->magic = 0;
    free(h);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t h, cudaStream_t s)
{
    (void)s;   /* one queue */
    return h && h->magic == HANDLE_MAGIC ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

/* ------------------------------------------------------------------ descriptors */

template <class T> static cudnnStatus_t create(T **d)
{
    if (!d)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    *d = (T *)calloc(1, sizeof **d);
    return *d ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_INTERNAL_ERROR;
}

template <class T> static cudnnStatus_t destroy(T *d)
{
    free(d);   /* cuDNN accepts NULL */
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *d) { return create(d); }
cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d) { return destroy(d); }
cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *d) { return create(d); }
cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t d) { return destroy(d); }
cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *d)
{
    cudnnStatus_t s = create(d);
    if (s == CUDNN_STATUS_SUCCESS)
        (*d)->math = CUDNN_DEFAULT_MATH;
    return s;
}
cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t d)
{
    return destroy(d);
}

cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t d, cudnnTensorFormat_t format,
                                         cudnnDataType_t type, int n, int c, int h, int w)
{
    if (!d)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (n <= 0 || c <= 0 || h <= 0 || w <= 0)
        return CUDNN_STATUS_BAD_PARAM;
    if (format != CUDNN_TENSOR_NCHW || type != CUDNN_DATA_FLOAT)
        return CUDNN_STATUS_NOT_SUPPORTED;   /* the emulator's subset */
    *d = cudnnTensorStruct{1, n, c, h, w};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t d, cudnnDataType_t type,
                                         cudnnTensorFormat_t format, int k, int c, int h, int w)
{
    if (!d)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (k <= 0 || c <= 0 || h <= 0 || w <= 0)
        return CUDNN_STATUS_BAD_PARAM;
    if (format != CUDNN_TENSOR_NCHW || type != CUDNN_DATA_FLOAT)
        return CUDNN_STATUS_NOT_SUPPORTED;
    *d = cudnnFilterStruct{1, k, c, h, w};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t d, int pad_h,
                                              int pad_w, int u, int v, int dil_h, int dil_w,
                                              cudnnConvolutionMode_t mode, cudnnDataType_t type)
{
    if (!d)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (pad_h < 0 || pad_w < 0 || u <= 0 || v <= 0 || dil_h <= 0 || dil_w <= 0 ||
        (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION))
        return CUDNN_STATUS_BAD_PARAM;
    if (type != CUDNN_DATA_FLOAT)
        return CUDNN_STATUS_NOT_SUPPORTED;
    cudnnMathType_t math = d->math;
    *d = cudnnConvolutionStruct{1, pad_h, pad_w, u, v, dil_h, dil_w, mode, math};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t d, cudnnMathType_t math)
{
    if (!d)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (math < CUDNN_DEFAULT_MATH || math > CUDNN_FMA_MATH)
        return CUDNN_STATUS_BAD_PARAM;
    d->math = math;
    return CUDNN_STATUS_SUCCESS;
}

/* 1 + (in + 2·pad − ((k − 1)·dil + 1)) / stride, or <= 0 when the filter
 * does not fit */
static int out_dim(int in, int pad, int k, int dil, int stride)
{
    int span = (k - 1) * dil + 1;
    return in + 2 * pad < span ? 0 : 1 + (in + 2 * pad - span) / stride;
}

cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t cd,
                                                    const cudnnTensorDescriptor_t x,
                                                    const cudnnFilterDescriptor_t f, int *n,
                                                    int *c, int *h, int *w)
{
    if (!cd || !x || !f || !n || !c || !h || !w)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (!cd->set || !x->set || !f->set || x->c != f->c)
        return CUDNN_STATUS_BAD_PARAM;
    *n = x->n;
    *c = f->k;
    *h = out_dim(x->h, cd->pad_h, f->r, cd->dil_h, cd->u);
    *w = out_dim(x->w, cd->pad_w, f->s, cd->dil_w, cd->v);
    return *h > 0 && *w > 0 ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

/* every descriptor set, the channels and the output's shape consistent */
static cudnnStatus_t check(cudnnHandle_t h, const cudnnTensorDescriptor_t x,
                           const cudnnFilterDescriptor_t f, const cudnnConvolutionDescriptor_t cd,
                           const cudnnTensorDescriptor_t y)
{
    if (!h || h->magic != HANDLE_MAGIC)
        return CUDNN_STATUS_NOT_INITIALIZED;
    if (!x || !f || !cd || !y)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    int n, c, oh, ow;
    cudnnStatus_t s = cudnnGetConvolution2dForwardOutputDim(cd, x, f, &n, &c, &oh, &ow);
    if (s != CUDNN_STATUS_SUCCESS)
        return s;
    if (!y->set || y->n != n || y->c != c || y->h != oh || y->w != ow)
        return CUDNN_STATUS_BAD_PARAM;
    return CUDNN_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ algorithms */

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t h,
                                                     const cudnnTensorDescriptor_t x,
                                                     const cudnnFilterDescriptor_t f,
                                                     const cudnnConvolutionDescriptor_t cd,
                                                     const cudnnTensorDescriptor_t y, const int req,
                                                     int *ret, cudnnConvolutionFwdAlgoPerf_t *perf)
{
    cudnnStatus_t s = check(h, x, f, cd, y);
    if (s != CUDNN_STATUS_SUCCESS)
        return s;
    if (req < 1 || !ret || !perf)
        return CUDNN_STATUS_BAD_PARAM;
    perf[0] = cudnnConvolutionFwdAlgoPerf_t{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                            CUDNN_STATUS_SUCCESS, -1.0f, 0, CUDNN_DETERMINISTIC,
                                            cd->math, {0, 0, 0}};
    *ret = 1;
    return CUDNN_STATUS_SUCCESS;
}

/* ALGO_0 (atomics: non-deterministic), then ALGO_1 */
template <class P, class A> static cudnnStatus_t two_algos(int req, int *ret, P *perf,
                                                          cudnnMathType_t math)
{
    if (req < 1 || !ret || !perf)
        return CUDNN_STATUS_BAD_PARAM;
    perf[0] = P{(A)0, CUDNN_STATUS_SUCCESS, -1.0f, 0, CUDNN_NON_DETERMINISTIC, math, {0, 0, 0}};
    if (req > 1)
        perf[1] = P{(A)1, CUDNN_STATUS_SUCCESS, -1.0f, WS_ALGO1, CUDNN_DETERMINISTIC, math,
                    {0, 0, 0}};
    *ret = req > 1 ? 2 : 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t h, const cudnnFilterDescriptor_t f, const cudnnTensorDescriptor_t dy,
    const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t dx, const int req,
    int *ret, cudnnConvolutionBwdDataAlgoPerf_t *perf)
{
    cudnnStatus_t s = check(h, dx, f, cd, dy);
    return s != CUDNN_STATUS_SUCCESS
               ? s
               : two_algos<cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgo_t>(
                     req, ret, perf, cd->math);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t h, const cudnnTensorDescriptor_t x, const cudnnTensorDescriptor_t dy,
    const cudnnConvolutionDescriptor_t cd, const cudnnFilterDescriptor_t f, const int req,
    int *ret, cudnnConvolutionBwdFilterAlgoPerf_t *perf)
{
    cudnnStatus_t s = check(h, x, f, cd, dy);
    return s != CUDNN_STATUS_SUCCESS
               ? s
               : two_algos<cudnnConvolutionBwdFilterAlgoPerf_t, cudnnConvolutionBwdFilterAlgo_t>(
                     req, ret, perf, cd->math);
}

/* the bytes algorithm `algo` needs: none for ALGO_0 and the forward,
 * WS_ALGO1 for ALGO_1; an algorithm the emulator lacks is not supported */
static cudnnStatus_t ws_size(int algo, int fwd, size_t *bytes)
{
    if (!bytes)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (fwd ? algo != 0 : algo != 0 && algo != 1)
        return CUDNN_STATUS_NOT_SUPPORTED;
    *bytes = !fwd && algo == 1 ? WS_ALGO1 : 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t h,
                                                      const cudnnTensorDescriptor_t x,
                                                      const cudnnFilterDescriptor_t f,
                                                      const cudnnConvolutionDescriptor_t cd,
                                                      const cudnnTensorDescriptor_t y,
                                                      cudnnConvolutionFwdAlgo_t algo, size_t *b)
{
    cudnnStatus_t s = check(h, x, f, cd, y);
    return s != CUDNN_STATUS_SUCCESS ? s : ws_size(algo, 1, b);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t h, const cudnnFilterDescriptor_t f, const cudnnTensorDescriptor_t dy,
    const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t dx,
    cudnnConvolutionBwdDataAlgo_t algo, size_t *b)
{
    cudnnStatus_t s = check(h, dx, f, cd, dy);
    return s != CUDNN_STATUS_SUCCESS ? s : ws_size(algo, 0, b);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t h, const cudnnTensorDescriptor_t x, const cudnnTensorDescriptor_t dy,
    const cudnnConvolutionDescriptor_t cd, const cudnnFilterDescriptor_t f,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t *b)
{
    cudnnStatus_t s = check(h, x, f, cd, dy);
    return s != CUDNN_STATUS_SUCCESS ? s : ws_size(algo, 0, b);
}

/* ------------------------------------------------------------------ the convolutions */

/* the geometry of one call: input X (n, c, h, w), filter (k, c, r, s), output
 * Y (n, k, oh, ow) */
struct geo {
    int n, c, h, w, k, r, s, oh, ow;
    const cudnnConvolutionStruct *cd;
};

static geo geometry(const cudnnTensorDescriptor_t x, const cudnnFilterDescriptor_t f,
                    const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t y)
{
    return geo{x->n, x->c, x->h, x->w, f->k, f->r, f->s, y->h, y->w, cd};
}

/* the input row that filter row i of output row o reads (the filter flipped
 * for CUDNN_CONVOLUTION), -1 outside */
static int in_y(const geo &g, int o, int i)
{
    int t = g.cd->mode == CUDNN_CONVOLUTION ? g.r - 1 - i : i;
    int y = o * g.cd->u - g.cd->pad_h + t * g.cd->dil_h;
    return y >= 0 && y < g.h ? y : -1;
}
static int in_x(const geo &g, int o, int j)
{
    int t = g.cd->mode == CUDNN_CONVOLUTION ? g.s - 1 - j : j;
    int x = o * g.cd->v - g.cd->pad_w + t * g.cd->dil_w;
    return x >= 0 && x < g.w ? x : -1;
}

static size_t xi(const geo &g, int n, int c, int y, int x)
{
    return (((size_t)n * g.c + c) * g.h + y) * g.w + x;
}
static size_t yi(const geo &g, int n, int k, int y, int x)
{
    return (((size_t)n * g.k + k) * g.oh + y) * g.ow + x;
}
static size_t wi(const geo &g, int k, int c, int i, int j)
{
    return (((size_t)k * g.c + c) * g.r + i) * g.s + j;
}

/* dst = α·v + β·dst, dst not read when β = 0 */
static void blend(float *dst, double v, float alpha, float beta)
{
    *dst = beta == 0.0f ? (float)(alpha * v) : (float)(alpha * v + (double)beta * *dst);
}

/* the workspace: at least what the algorithm asks, and written (so a buffer
 * too small or not there shows under ASan) */
static cudnnStatus_t use_ws(int algo, int fwd, void *ws, size_t bytes)
{
    size_t need;
    cudnnStatus_t s = ws_size(algo, fwd, &need);
    if (s != CUDNN_STATUS_SUCCESS)
        return s;
    if (bytes < need || (need && !ws))
        return CUDNN_STATUS_BAD_PARAM;
    if (need && !g_dry)
        memset(ws, 0, need);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t h, const void *alpha,
                                      const cudnnTensorDescriptor_t xd, const void *xp,
                                      const cudnnFilterDescriptor_t wd, const void *wp,
                                      const cudnnConvolutionDescriptor_t cd,
                                      cudnnConvolutionFwdAlgo_t algo, void *ws, size_t wsb,
                                      const void *beta, const cudnnTensorDescriptor_t yd, void *yp)
{
    if (cs_emu_capturing() && !g_dry)
        return deferred(snap_of(h, {alpha, beta}, {xd, yd}, wd, cd), [=](const cudnn_snap *p) {
            return cudnnConvolutionForward(p->hp, p->sp[0], p->tp[0], xp, p->fp, wp, p->cp, algo,
                                           ws, wsb, p->sp[1], p->tp[1], yp);
        });
    cudnnStatus_t s = check(h, xd, wd, cd, yd);
    if (s == CUDNN_STATUS_SUCCESS)
        s = use_ws(algo, 1, ws, wsb);
    if (s != CUDNN_STATUS_SUCCESS)
        return s;
    if (!alpha || !beta || !xp || !wp || !yp)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (g_dry)
        return s;
    const float *x = (const float *)xp, *w = (const float *)wp;
    float *y = (float *)yp, a = *(const float *)alpha, b = *(const float *)beta;
    geo g = geometry(xd, wd, cd, yd);
    for (int n = 0; n < g.n; n++)
        for (int k = 0; k < g.k; k++)
            for (int oy = 0; oy < g.oh; oy++)
                for (int ox = 0; ox < g.ow; ox++) {
                    double sum = 0;
                    for (int c = 0; c < g.c; c++)
                        for (int i = 0; i < g.r; i++) {
                            int iy = in_y(g, oy, i);
                            for (int j = 0; iy >= 0 && j < g.s; j++) {
                                int ix = in_x(g, ox, j);
                                if (ix >= 0)
                                    sum += (double)x[xi(g, n, c, iy, ix)] * w[wi(g, k, c, i, j)];
                            }
                        }
                    blend(&y[yi(g, n, k, oy, ox)], sum, a, b);
                }
    g_convs++;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t h, const void *alpha,
                                           const cudnnFilterDescriptor_t wd, const void *wp,
                                           const cudnnTensorDescriptor_t dyd, const void *dyp,
                                           const cudnnConvolutionDescriptor_t cd,
                                           cudnnConvolutionBwdDataAlgo_t algo, void *ws,
                                           size_t wsb, const void *beta,
                                           const cudnnTensorDescriptor_t dxd, void *dxp)
{
    if (cs_emu_capturing() && !g_dry)
        return deferred(snap_of(h, {alpha, beta}, {dyd, dxd}, wd, cd), [=](const cudnn_snap *p) {
            return cudnnConvolutionBackwardData(p->hp, p->sp[0], p->fp, wp, p->tp[0], dyp, p->cp,
                                                algo, ws, wsb, p->sp[1], p->tp[1], dxp);
        });
    cudnnStatus_t s = check(h, dxd, wd, cd, dyd);
    if (s == CUDNN_STATUS_SUCCESS)
        s = use_ws(algo, 0, ws, wsb);
    if (s != CUDNN_STATUS_SUCCESS)
        return s;
    if (!alpha || !beta || !wp || !dyp || !dxp)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (g_dry)
        return s;
    const float *w = (const float *)wp, *dy = (const float *)dyp;
    float *dx = (float *)dxp, a = *(const float *)alpha, b = *(const float *)beta;
    geo g = geometry(dxd, wd, cd, dyd);
    /* the sums in double, then blended: dx = α·Σ + β·dx */
    size_t nx = (size_t)g.n * g.c * g.h * g.w;
    double *acc = (double *)calloc(nx, sizeof *acc);
    if (!acc)
        return CUDNN_STATUS_INTERNAL_ERROR;
    for (int n = 0; n < g.n; n++)
        for (int k = 0; k < g.k; k++)
            for (int oy = 0; oy < g.oh; oy++)
                for (int ox = 0; ox < g.ow; ox++) {
                    double d = dy[yi(g, n, k, oy, ox)];
                    for (int c = 0; c < g.c; c++)
                        for (int i = 0; i < g.r; i++) {
                            int iy = in_y(g, oy, i);
                            for (int j = 0; iy >= 0 && j < g.s; j++) {
                                int ix = in_x(g, ox, j);
                                if (ix >= 0)
                                    acc[xi(g, n, c, iy, ix)] += d * w[wi(g, k, c, i, j)];
                            }
                        }
                }
    for (size_t q = 0; q < nx; q++)
        blend(&dx[q], acc[q], a, b);
    free(acc);
    g_convs++;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t h, const void *alpha,
                                             const cudnnTensorDescriptor_t xd, const void *xp,
                                             const cudnnTensorDescriptor_t dyd, const void *dyp,
                                             const cudnnConvolutionDescriptor_t cd,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void *ws,
                                             size_t wsb, const void *beta,
                                             const cudnnFilterDescriptor_t dwd, void *dwp)
{
    if (cs_emu_capturing() && !g_dry)
        return deferred(snap_of(h, {alpha, beta}, {xd, dyd}, dwd, cd), [=](const cudnn_snap *p) {
            return cudnnConvolutionBackwardFilter(p->hp, p->sp[0], p->tp[0], xp, p->tp[1], dyp,
                                                  p->cp, algo, ws, wsb, p->sp[1], p->fp, dwp);
        });
    cudnnStatus_t s = check(h, xd, dwd, cd, dyd);
    if (s == CUDNN_STATUS_SUCCESS)
        s = use_ws(algo, 0, ws, wsb);
    if (s != CUDNN_STATUS_SUCCESS)
        return s;
    if (!alpha || !beta || !xp || !dyp || !dwp)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (g_dry)
        return s;
    const float *x = (const float *)xp, *dy = (const float *)dyp;
    float *dw = (float *)dwp, a = *(const float *)alpha, b = *(const float *)beta;
    geo g = geometry(xd, dwd, cd, dyd);
    for (int k = 0; k < g.k; k++)
        for (int c = 0; c < g.c; c++)
            for (int i = 0; i < g.r; i++)
                for (int j = 0; j < g.s; j++) {
                    double sum = 0;
                    for (int n = 0; n < g.n; n++)
                        for (int oy = 0; oy < g.oh; oy++) {
                            int iy = in_y(g, oy, i);
                            for (int ox = 0; iy >= 0 && ox < g.ow; ox++) {
                                int ix = in_x(g, ox, j);
                                if (ix >= 0)
                                    sum += (double)dy[yi(g, n, k, oy, ox)] * x[xi(g, n, c, iy, ix)];
                            }
                        }
                    blend(&dw[wi(g, k, c, i, j)], sum, a, b);
                }
    g_convs++;
    return CUDNN_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ batch norm */

/* spatial batch norm's checks: a handle, x and y (and dx) set and of one
 * shape, the parameters' descriptor 1 × C × 1 × 1, epsilon allowed */
static cudnnStatus_t bn_check(cudnnHandle_t h, cudnnBatchNormMode_t mode,
                              const cudnnTensorDescriptor_t x, const cudnnTensorDescriptor_t y,
                              const cudnnTensorDescriptor_t p, double eps)
{
    if (!h || h->magic != HANDLE_MAGIC)
        return CUDNN_STATUS_NOT_INITIALIZED;
    if (!x || !y || !p)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (mode != CUDNN_BATCHNORM_SPATIAL)
        return CUDNN_STATUS_NOT_SUPPORTED;   /* the emulator's subset */
    if (!x->set || !y->set || !p->set || x->n != y->n || x->c != y->c || x->h != y->h ||
        x->w != y->w || p->n != 1 || p->c != x->c || p->h != 1 || p->w != 1 ||
        eps < CUDNN_BN_MIN_EPSILON)
        return CUDNN_STATUS_BAD_PARAM;
    return CUDNN_STATUS_SUCCESS;
}

/* element i of channel c (NCHW): image i / hw, pixel i % hw */
static size_t bn_at(const cudnnTensorDescriptor_t x, int c, size_t i)
{
    size_t hw = (size_t)x->h * x->w;
    return ((i / hw) * x->c + c) * hw + i % hw;
}

/* channel c's mean and biased variance, two passes in double */
static void bn_moments(const cudnnTensorDescriptor_t xd, const float *x, int c, double *mean,
                       double *var)
{
    size_t n = (size_t)xd->n * xd->h * xd->w;
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; i++)
        s += x[bn_at(xd, c, i)];
    *mean = s / (double)n;
    for (size_t i = 0; i < n; i++) {
        double d = x[bn_at(xd, c, i)] - *mean;
        s2 += d * d;
    }
    *var = s2 / (double)n;
}

/* y = α·(γ·(x − μ)·inv + β) + β_blend·y over channel c */
static void bn_apply(const cudnnTensorDescriptor_t xd, const float *x, float *y, int c,
                     double mu, double inv, double g, double b, float alpha, float beta)
{
    size_t n = (size_t)xd->n * xd->h * xd->w;
    for (size_t i = 0; i < n; i++) {
        size_t k = bn_at(xd, c, i);
        blend(&y[k], g * (x[k] - mu) * inv + b, alpha, beta);
    }
}

cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t h, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xd, const void *xp, const cudnnTensorDescriptor_t yd, void *yp,
    const cudnnTensorDescriptor_t pd, const void *scale, const void *bias, double factor,
    void *run_mean, void *run_var, double eps, void *save_mean, void *save_inv)
{
    if (cs_emu_capturing() && !g_dry)
        return deferred(snap_of(h, {alpha, beta}, {xd, yd, pd}), [=](const cudnn_snap *p) {
            return cudnnBatchNormalizationForwardTraining(
                p->hp, mode, p->sp[0], p->sp[1], p->tp[0], xp, p->tp[1], yp, p->tp[2], scale, bias,
                factor, run_mean, run_var, eps, save_mean, save_inv);
        });
    cudnnStatus_t s = bn_check(h, mode, xd, yd, pd, eps);
    if (s != CUDNN_STATUS_SUCCESS)
        return s;
    if (!alpha || !beta || !xp || !yp || !scale || !bias)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (!run_mean != !run_var || !save_mean != !save_inv)   /* both or neither */
        return CUDNN_STATUS_BAD_PARAM;
    if (g_dry)
        return s;
    const float *x = (const float *)xp, *g = (const float *)scale, *b = (const float *)bias;
    float *y = (float *)yp, a = *(const float *)alpha, be = *(const float *)beta;
    float *rm = (float *)run_mean, *rv = (float *)run_var, *sm = (float *)save_mean,
          *si = (float *)save_inv;
    double n = (double)xd->n * xd->h * xd->w;
    for (int c = 0; c < xd->c; c++) {
        double mu, var;
        bn_moments(xd, x, c, &mu, &var);
        double inv = 1.0 / sqrt(var + eps);
        bn_apply(xd, x, y, c, mu, inv, g[c], b[c], a, be);
        if (rm) {   /* the running variance: the unbiased one */
            rm[c] = (float)((1 - factor) * rm[c] + factor * mu);
            rv[c] = (float)((1 - factor) * rv[c] + factor * (n > 1 ? var * n / (n - 1) : var));
        }
        if (sm) {
            sm[c] = (float)mu;
            si[c] = (float)inv;
        }
    }
    g_bns++;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t h, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xd, const void *xp, const cudnnTensorDescriptor_t yd, void *yp,
    const cudnnTensorDescriptor_t pd, const void *scale, const void *bias, const void *est_mean,
    const void *est_var, double eps)
{
    if (cs_emu_capturing() && !g_dry)
        return deferred(snap_of(h, {alpha, beta}, {xd, yd, pd}), [=](const cudnn_snap *p) {
            return cudnnBatchNormalizationForwardInference(p->hp, mode, p->sp[0], p->sp[1],
                                                           p->tp[0], xp, p->tp[1], yp, p->tp[2],
                                                           scale, bias, est_mean, est_var, eps);
        });
    cudnnStatus_t s = bn_check(h, mode, xd, yd, pd, eps);
    if (s != CUDNN_STATUS_SUCCESS)
        return s;
    if (!alpha || !beta || !xp || !yp || !scale || !bias || !est_mean || !est_var)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (g_dry)
        return s;
    const float *x = (const float *)xp, *g = (const float *)scale, *b = (const float *)bias,
                *m = (const float *)est_mean, *v = (const float *)est_var;
    float *y = (float *)yp;
    for (int c = 0; c < xd->c; c++)
        bn_apply(xd, x, y, c, m[c], 1.0 / sqrt((double)v[c] + eps), g[c], b[c],
                 *(const float *)alpha, *(const float *)beta);
    g_bns++;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBatchNormalizationBackward(
    cudnnHandle_t h, cudnnBatchNormMode_t mode, const void *alpha_d, const void *beta_d,
    const void *alpha_p, const void *beta_p, const cudnnTensorDescriptor_t xd, const void *xp,
    const cudnnTensorDescriptor_t dyd, const void *dyp, const cudnnTensorDescriptor_t dxd,
    void *dxp, const cudnnTensorDescriptor_t pd, const void *scale, void *dscale, void *dbias,
    double eps, const void *saved_mean, const void *saved_inv)
{
    if (cs_emu_capturing() && !g_dry)
        return deferred(
            snap_of(h, {alpha_d, beta_d, alpha_p, beta_p}, {xd, dyd, dxd, pd}),
            [=](const cudnn_snap *p) {
                return cudnnBatchNormalizationBackward(
                    p->hp, mode, p->sp[0], p->sp[1], p->sp[2], p->sp[3], p->tp[0], xp, p->tp[1],
                    dyp, p->tp[2], dxp, p->tp[3], scale, dscale, dbias, eps, saved_mean, saved_inv);
            });
    cudnnStatus_t s = bn_check(h, mode, xd, dyd, pd, eps);
    if (s == CUDNN_STATUS_SUCCESS)
        s = bn_check(h, mode, xd, dxd, pd, eps);
    if (s != CUDNN_STATUS_SUCCESS)
        return s;
    if (!alpha_d || !beta_d || !alpha_p || !beta_p || !xp || !dyp || !dxp || !scale ||
        !dscale || !dbias)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (!saved_mean != !saved_inv)
        return CUDNN_STATUS_BAD_PARAM;
    if (g_dry)
        return s;
    const float *x = (const float *)xp, *dy = (const float *)dyp, *g = (const float *)scale;
    const float *sm = (const float *)saved_mean, *si = (const float *)saved_inv;
    float *dx = (float *)dxp, *dg = (float *)dscale, *db = (float *)dbias;
    float ad = *(const float *)alpha_d, bd = *(const float *)beta_d,
          ap = *(const float *)alpha_p, bp = *(const float *)beta_p;
    size_t n = (size_t)xd->n * xd->h * xd->w;
    for (int c = 0; c < xd->c; c++) {
        double mu, inv;
        if (sm) {   /* the forward's, as given */
            mu = sm[c];
            inv = si[c];
        } else {
            double var;
            bn_moments(xd, x, c, &mu, &var);
            inv = 1.0 / sqrt(var + eps);
        }
        double sd = 0, sdx = 0;   /* Σ dy, Σ dy·x̂ */
        for (size_t i = 0; i < n; i++) {
            size_t k = bn_at(xd, c, i);
            sd += dy[k];
            sdx += (double)dy[k] * (x[k] - mu) * inv;
        }
        blend(&dg[c], sdx, ap, bp);
        blend(&db[c], sd, ap, bp);
        double gi = g[c] * inv;
        for (size_t i = 0; i < n; i++) {
            size_t k = bn_at(xd, c, i);
            double xh = (x[k] - mu) * inv;
            blend(&dx[k], gi * (dy[k] - sd / (double)n - xh * sdx / (double)n), ad, bd);
        }
    }
    g_bns++;
    return CUDNN_STATUS_SUCCESS;
}
