/* parity_util.c — see parity_util.h.
 *
 * A row of the table is one op (or one of its NULL-argument paths) with its
 * tolerance; its function draws the inputs on the host (cs_rng, a fixed
 * seed and the row's own stream, so a row's inputs do not depend on which
 * rows ran before), uploads the same bytes to both tables, runs the op on
 * side 0 (ref) and side 1 (dev), and compares every output. Output
 * buffers start as the same 0xFF bytes (NaN, -1) on both sides, so an
 * element one side forgets to write shows. Errors are relative to the
 * largest magnitude of the reference output (rel_err of nn_util.c, with
 * NaN and infinities compared as values). */
#include "parity_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_rng.h"
#include "nn_util.h"

#define PARITY_SEED 19

/* Tolerances (relative to the largest reference magnitude). Exact (0)
 * wherever both backends do the same IEEE float operations in the same
 * order: the CUDA kernels are built with --fmad=false and gcc contracts
 * no FMAs in C11 mode (see the Makefile's NVCCFLAGS). An H100 gave at most
 * 4.4e-7 for sgemm, 5.1e-7 for bn, 1.9e-7 for binexp's gradient, 2e-5
 * for the chains, and 0 for softmax-ce and quant_scale_grad. */
#define TOL_SGEMM 1e-4    /* cuBLAS sgemm: FMAs and its own summation order */
#define TOL_BN 1e-4       /* statistics in double, but in another order and formula
                           * (CPU: one pass over float lanes; CUDA: two passes) */
#define TOL_SOFTMAX 1e-6  /* exp/log in double (CUDA's within 2 ulp), rounded to float */
#define TOL_REG 1e-5      /* float coefficients of double sums in another order; expf */
#define TOL_REG_VAL 1e-10 /* the value itself, double sums in another order */
#define TOL_SUM 1e-6      /* a double sum in another order, rounded to float */
#define TOL_TRAIN 1e-3    /* three steps of a chain: the errors above compound */

#define PT_MAXBUF 160

typedef struct pt {
    const cs_nn_ops *side[2];   /* 0: ref, 1: dev */
    int flags;
    int bitwise;                /* memcmp, not values (EXACT, determinism) */
    double tol;                 /* the row's */
    const char *tag, *row;
    int checks, failed, lost;   /* lost: an allocation or a copy failed; the row stops */
    cs_rng rng;
    void *buf[2][PT_MAXBUF];
    int nbuf;
    void *host[PT_MAXBUF];
    int nhost;
} pt;

/* one buffer of each side */
typedef struct pbuf {
    void *p[2];
    size_t bytes;
} pbuf;

static const pbuf NOBUF = {{NULL, NULL}, 0};
/* the buffer of side s (the loop variable of every row) */
#define S(b) ((b).p[s])
#define SIDES for (int s = 0; s < 2; s++)
#define O (t->side[s])

typedef enum { PT_F32, PT_F64, PT_I32, PT_U32, PT_RAW } pt_type;

static const size_t type_size[] = {4, 8, 4, 4, 1};

/* ------------------------------------------------------------------ reporting */

__attribute__((format(printf, 5, 6))) static void report(pt *t, size_t n, double err, double tol,
                                                         const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int bad = !(err <= tol);   /* NaN fails */
    t->checks++;
    t->failed += bad;
    if (!(t->flags & NN_PARITY_VERBOSE) && !bad)
        return;
    char tl[32];
    if (t->bitwise)
        snprintf(tl, sizeof tl, "bitwise");
    else if (tol == 0)
        snprintf(tl, sizeof tl, "exact");
    else
        snprintf(tl, sizeof tl, "%.0e", tol);
    printf("%-11s %-23s %-32s n=%-7zu max err %.2e tol %-7s%s\n", t->tag, t->row, what, n, err,
           tl, bad ? "  FAILED" : "");
    fflush(stdout);
}

__attribute__((format(printf, 2, 3))) static void lose(pt *t, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    t->checks++;
    t->failed++;
    t->lost = 1;
    printf("%-11s %-23s %s  FAILED\n", t->tag, t->row, what);
    fflush(stdout);
}

/* ------------------------------------------------------------------ memory */

static void *hmem(pt *t, size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p || t->nhost == PT_MAXBUF) {
        fprintf(stderr, "parity: out of host memory (or PT_MAXBUF) in %s\n", t->row);
        abort();
    }
    t->host[t->nhost++] = p;
    return p;
}

/* sd · N(0,1) */
static float *hrand(pt *t, size_t n, double sd)
{
    float *x = hmem(t, n * sizeof *x);
    fill(x, n, &t->rng, sd);
    return x;
}

static pbuf alloc2(pt *t, size_t bytes)
{
    pbuf b = {{NULL, NULL}, bytes};
    if (t->nbuf == PT_MAXBUF) {
        fprintf(stderr, "parity: more than PT_MAXBUF buffers in %s\n", t->row);
        abort();
    }
    SIDES {
        b.p[s] = O->alloc(bytes);
        t->buf[s][t->nbuf] = b.p[s];
        if (!b.p[s])
            lose(t, "%s alloc(%zu) returned NULL", O->name, bytes);
    }
    t->nbuf++;
    return b;
}

/* the same bytes on both sides: host, or 0xFF (NaN, -1) when host is NULL */
static pbuf put(pt *t, const void *host, size_t bytes)
{
    pbuf b = alloc2(t, bytes);
    if (!host) {
        void *ff = hmem(t, bytes);
        memset(ff, 0xFF, bytes);
        host = ff;
    }
    SIDES {
        if (b.p[s] && O->upload(b.p[s], host, bytes) != 0)
            lose(t, "%s upload(%zu) failed", O->name, bytes);
    }
    return b;
}

static pbuf rnd(pt *t, size_t n, double sd)
{
    return put(t, hrand(t, n, sd), n * sizeof(float));
}

static pbuf outf(pt *t, size_t n)
{
    return put(t, NULL, n * sizeof(float));
}

static int ready(const pt *t)
{
    return !t->lost;
}

/* side s's bytes of b, on the host (NULL when the download failed) */
static void *get(pt *t, int s, pbuf b, size_t bytes)
{
    void *h = hmem(t, bytes);
    if (O->download(h, b.p[s], bytes) != 0) {
        lose(t, "%s download(%zu) failed", O->name, bytes);
        return NULL;
    }
    return h;
}

static void release_all(pt *t)
{
    for (int i = 0; i < t->nbuf; i++)
        for (int s = 0; s < 2; s++)
            if (t->buf[s][i])
                O->release(t->buf[s][i]);
    for (int i = 0; i < t->nhost; i++)
        free(t->host[i]);
    t->nbuf = t->nhost = 0;
}

/* ------------------------------------------------------------------ comparing */

/* |a − b| with NaN equal to NaN and an infinity to itself; a NaN or an
 * infinity against anything else is infinitely wrong */
static double diff(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b) ? 0 : INFINITY;
    if (a == b)
        return 0;
    return isinf(a) || isinf(b) ? INFINITY : fabs(a - b);
}

static double value(const void *x, size_t i, pt_type ty)
{
    switch (ty) {
    case PT_F32: return ((const float *)x)[i];
    case PT_F64: return ((const double *)x)[i];
    case PT_I32: return ((const int32_t *)x)[i];
    case PT_U32: return ((const uint32_t *)x)[i];
    default: return ((const unsigned char *)x)[i];
    }
}

/* max |dev − ref| / max(max |ref|, 1e-6) for floats, max |dev − ref| for
 * integers and bytes */
static double error_of(const void *r, const void *d, size_t n, pt_type ty)
{
    double e = 0, m = 1e-6;
    for (size_t i = 0; i < n; i++) {
        double a = value(d, i, ty), b = value(r, i, ty), x = diff(a, b);
        if (x > e)
            e = x;
        if (isfinite(b) && fabs(b) > m)
            m = fabs(b);
    }
    return ty == PT_F32 || ty == PT_F64 ? e / m : e;
}

/* the first n elements of b on both sides within tol (0 in bitwise mode,
 * where the bytes must be the same); with base (floats), the change from
 * base is compared: what a training step computed, not what it started from */
static void compare(pt *t, pbuf b, size_t n, pt_type ty, double tol, const float *base,
                    const char *what)
{
    size_t bytes = n * type_size[ty];
    float *r = get(t, 0, b, bytes), *d = get(t, 1, b, bytes);
    if (!r || !d)
        return;
    int same = !memcmp(r, d, bytes);
    for (size_t i = 0; base && i < n; i++) {
        r[i] -= base[i];
        d[i] -= base[i];
    }
    double e = error_of(r, d, n, ty);
    if (t->bitwise) {
        tol = 0;
        if (e == 0 && !same)
            e = INFINITY;   /* -0 against 0, another NaN */
    }
    report(t, n, e, tol, "%s", what);
}

__attribute__((format(printf, 6, 7))) static void check(pt *t, pbuf b, size_t n, pt_type ty,
                                                        double tol, const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    compare(t, b, n, ty, tol, NULL, what);
}

__attribute__((format(printf, 4, 5))) static void check_change(pt *t, pbuf b, const float *base,
                                                               const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    compare(t, b, b.bytes / sizeof(float), PT_F32, t->tol, base, what);
}

#define CHECKF(b, n, ...) check(t, b, n, PT_F32, t->tol, __VA_ARGS__)

/* ------------------------------------------------------------------ memory ops */

/* fresh memory is zeroed; bytes go up and come back as they were */
static void row_alloc(pt *t)
{
    static const size_t sizes[] = {1, 3, 4099};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        pbuf b = alloc2(t, n);
        if (!ready(t))
            return;
        unsigned char *zero = hmem(t, n), *h = hmem(t, n);
        SIDES {
            const unsigned char *got = get(t, s, b, n);
            if (got)
                report(t, n, memcmp(got, zero, n) ? 1 : 0, 0, "%s %s zeroed", s ? "dev" : "ref",
                       O->name);
        }
        for (size_t i = 0; i < n; i++)
            h[i] = (unsigned char)cs_rng_below(&t->rng, 256);
        SIDES {
            if (O->upload(b.p[s], h, n) != 0) {
                lose(t, "%s upload(%zu) failed", O->name, n);
                return;
            }
            const unsigned char *got = get(t, s, b, n);
            if (got)
                report(t, n, memcmp(got, h, n) ? 1 : 0, 0, "%s %s round trip", s ? "dev" : "ref",
                       O->name);
        }
        SIDES {   /* zero bytes: nothing moves, and 0 */
            if (O->upload(b.p[s], h, 0) != 0 || O->download(h, b.p[s], 0) != 0)
                lose(t, "%s upload/download of 0 bytes failed", O->name);
        }
    }
}

static unsigned char *rbytes(pt *t, size_t n)
{
    unsigned char *h = hmem(t, n);
    for (size_t i = 0; i < n; i++)
        h[i] = (unsigned char)cs_rng_below(&t->rng, 256);
    return h;
}

static void row_zero(pt *t)
{
    enum { N = 4001 };
    pbuf a = put(t, rbytes(t, N), N);
    if (!ready(t))
        return;
    SIDES O->zero((char *)S(a) + 1, 13);   /* odd place and length */
    check(t, a, N, PT_RAW, t->tol, "bytes 1..13");
    SIDES O->zero((char *)S(a) + 100, 0);
    check(t, a, N, PT_RAW, t->tol, "0 bytes");
    SIDES O->zero((float *)S(a) + 50, 800 * sizeof(float));
    check(t, a, N, PT_RAW, t->tol, "floats 50..849");
    SIDES O->zero(S(a), N);
    check(t, a, N, PT_RAW, t->tol, "all");
}

/* copies apart and between overlapping regions (as memmove), in bytes */
static void row_copy(pt *t)
{
    enum { N = 4003 };
    unsigned char *h = rbytes(t, N);
    pbuf a = put(t, h, N), b = put(t, rbytes(t, N), N);
    if (!ready(t))
        return;
    SIDES O->copy((char *)S(b) + 5, (char *)S(a) + 2, 3000);
    check(t, b, N, PT_RAW, t->tol, "apart, 3000 bytes");
    static const int shifts[] = {3, -3, 12, -12, 1000, -1000};
    for (size_t k = 0; k < sizeof shifts / sizeof *shifts; k++) {
        int sh = shifts[k];
        size_t n = N - 1000 - 7;
        SIDES {
            if (O->upload(S(a), h, N) != 0) {
                lose(t, "%s upload(%d) failed", O->name, N);
                return;
            }
            char *p = S(a);
            O->copy(sh > 0 ? p + sh : p, sh > 0 ? p : p - sh, n);
        }
        check(t, a, N, PT_RAW, t->tol, "overlap, dst %s src by %d", sh > 0 ? "after" : "before",
              abs(sh));
        unsigned char *want = hmem(t, N);   /* and it is memmove's result */
        memcpy(want, h, N);
        memmove(sh > 0 ? want + sh : want, sh > 0 ? want : want - sh, n);
        const unsigned char *got = get(t, 1, a, N);
        if (got)
            report(t, N, memcmp(got, want, N) ? 1 : 0, 0, "dev = memmove, shift %d", sh);
    }
    SIDES O->copy(S(a), S(a), 100);   /* onto itself, and 0 bytes */
    SIDES O->copy(S(b), S(a), 0);
    check(t, a, N, PT_RAW, t->tol, "onto itself");
    check(t, b, N, PT_RAW, t->tol, "0 bytes");
}

static void row_sync(pt *t)
{
    SIDES {
        if (O->sync)
            O->sync();
    }
    report(t, 0, 0, 0, "called (ref %s, dev %s)", t->side[0]->sync ? "yes" : "NULL",
           t->side[1]->sync ? "yes" : "NULL");
}

/* ------------------------------------------------------------------ dense */

static const int mm_shapes[][3] = {{8, 300, 64}, {32, 784, 16}, {5, 7, 3}};   /* B, C, OC */
#define NSHAPES(a) (sizeof a / sizeof *a)

/* a dense layer, with the ReLU after it (a backend's fusion,
 * matmul_relu_forward, or the ops apart where it has none: the CPU) */
static void matmul_fwd(pt *t, int bias, int relu)
{
    for (size_t k = 0; k < NSHAPES(mm_shapes); k++) {
        int B = mm_shapes[k][0], C = mm_shapes[k][1], OC = mm_shapes[k][2];
        pbuf x = rnd(t, (size_t)B * C, 1), w = rnd(t, (size_t)OC * C, 0.1);
        pbuf b = bias ? rnd(t, OC, 0.1) : NOBUF, y = outf(t, (size_t)B * OC);
        if (!ready(t))
            return;
        SIDES {
            if (relu && O->matmul_relu_forward)
                O->matmul_relu_forward(S(y), S(x), S(w), S(b), B, C, OC);
            else {
                O->matmul_forward(S(y), S(x), S(w), S(b), B, C, OC);
                if (relu)
                    O->relu_forward(S(y), S(y), (size_t)B * OC);
            }
        }
        CHECKF(y, (size_t)B * OC, "out B%d C%d OC%d", B, C, OC);
    }
}

static void row_matmul_forward(pt *t)
{
    matmul_fwd(t, 1, 0);
}

static void row_matmul_forward_nobias(pt *t)
{
    matmul_fwd(t, 0, 0);
}

static void matmul_bwd(pt *t, int with_dinp, int with_dbias)
{
    for (size_t k = 0; k < NSHAPES(mm_shapes); k++) {
        int B = mm_shapes[k][0], C = mm_shapes[k][1], OC = mm_shapes[k][2];
        pbuf dy = rnd(t, (size_t)B * OC, 1), x = rnd(t, (size_t)B * C, 1),
             w = rnd(t, (size_t)OC * C, 0.1);
        pbuf dx = with_dinp ? outf(t, (size_t)B * C) : NOBUF, dw = outf(t, (size_t)OC * C),
             db = with_dbias ? outf(t, OC) : NOBUF;
        if (!ready(t))
            return;
        SIDES O->matmul_backward(S(dx), S(dw), S(db), S(dy), S(x), S(w), B, C, OC);
        if (with_dinp)
            CHECKF(dx, (size_t)B * C, "dinp B%d C%d OC%d", B, C, OC);
        CHECKF(dw, (size_t)OC * C, "dw B%d C%d OC%d", B, C, OC);
        if (with_dbias)
            CHECKF(db, OC, "dbias B%d C%d OC%d", B, C, OC);
    }
}

static void row_matmul_backward(pt *t)
{
    matmul_bwd(t, 1, 1);
}

/* the first dense layer of the mlp */
static void row_matmul_backward_nodinp(pt *t)
{
    matmul_bwd(t, 0, 1);
}

static void row_matmul_backward_nodbias(pt *t)
{
    matmul_bwd(t, 1, 0);
}

static void row_matmul_relu_forward(pt *t)
{
    matmul_fwd(t, 1, 1);
}

static void row_matmul_relu_forward_nobias(pt *t)
{
    matmul_fwd(t, 0, 1);
}

/* the backward of a dense layer and its ReLU: the fusion
 * (matmul_relu_backward), or the ops apart */

static void matmul_relu_bwd(pt *t, int with_dinp)
{
    for (size_t k = 0; k < NSHAPES(mm_shapes); k++) {
        int B = mm_shapes[k][0], C = mm_shapes[k][1], OC = mm_shapes[k][2];
        size_t n = (size_t)B * OC;
        /* the ReLU's output: about half of it 0 */
        float *hz = hrand(t, n, 1);
        for (size_t i = 0; i < n; i++)
            hz[i] = hz[i] > 0.0f ? hz[i] : 0.0f;
        pbuf dy = rnd(t, n, 1), z = put(t, hz, n * sizeof(float)),
             x = rnd(t, (size_t)B * C, 1), w = rnd(t, (size_t)OC * C, 0.1);
        pbuf dx = with_dinp ? outf(t, (size_t)B * C) : NOBUF, dw = outf(t, (size_t)OC * C),
             db = outf(t, OC), dm = outf(t, n);
        if (!ready(t))
            return;
        SIDES {
            if (O->matmul_relu_backward)
                O->matmul_relu_backward(S(dx), S(dw), S(db), S(dm), S(dy), S(z), S(x), S(w), B,
                                        C, OC);
            else {
                O->relu_backward(S(dm), S(dy), S(z), n);
                O->matmul_backward(S(dx), S(dw), S(db), S(dm), S(x), S(w), B, C, OC);
            }
        }
        check(t, dm, n, PT_F32, 0, "dmask B%d C%d OC%d", B, C, OC);   /* a select: exact */
        if (with_dinp)
            CHECKF(dx, (size_t)B * C, "dinp B%d C%d OC%d", B, C, OC);
        CHECKF(dw, (size_t)OC * C, "dw B%d C%d OC%d", B, C, OC);
        CHECKF(db, OC, "dbias B%d C%d OC%d", B, C, OC);
    }
}

static void row_matmul_relu_backward(pt *t)
{
    matmul_relu_bwd(t, 1);
}

static void row_matmul_relu_backward_nodinp(pt *t)
{
    matmul_relu_bwd(t, 0);
}

/* ------------------------------------------------------------------ convolution */

/* B, C, H (= W), OC: the cnn's first layer (1 channel, 28×28) and its third */
/* B, C, H, W, OC (5×9: a cnn on images that are not square) */
static const int conv_shapes[][5] = {{4, 1, 28, 28, 16}, {4, 16, 14, 14, 32}, {2, 3, 6, 6, 5},
                                     {2, 3, 5, 9, 4}};

static pbuf conv_scratch(pt *t, int B, int C, int H, int W, int OC)
{
    return outf(t, CS_NN_CONV_SCRATCH(B, C, H, W, OC));
}

static void row_conv_forward(pt *t)
{
    for (size_t k = 0; k < NSHAPES(conv_shapes); k++) {
        int B = conv_shapes[k][0], C = conv_shapes[k][1], H = conv_shapes[k][2],
            W = conv_shapes[k][3], OC = conv_shapes[k][4];
        size_t nin = (size_t)B * C * H * W, nout = (size_t)B * OC * H * W;
        pbuf x = rnd(t, nin, 1), w = rnd(t, (size_t)OC * C * 9, 0.1), y = outf(t, nout),
             scr = conv_scratch(t, B, C, H, W, OC);
        if (!ready(t))
            return;
        SIDES O->conv_forward(S(y), S(x), S(w), S(scr), B, C, H, W, OC);
        CHECKF(y, nout, "out B%d C%d H%d W%d OC%d", B, C, H, W, OC);
    }
}

static void conv_bwd(pt *t, int with_dinp)
{
    for (size_t k = 0; k < NSHAPES(conv_shapes); k++) {
        int B = conv_shapes[k][0], C = conv_shapes[k][1], H = conv_shapes[k][2],
            W = conv_shapes[k][3], OC = conv_shapes[k][4];
        size_t nin = (size_t)B * C * H * W, nout = (size_t)B * OC * H * W, nw = (size_t)OC * C * 9;
        pbuf dy = rnd(t, nout, 1), x = rnd(t, nin, 1), w = rnd(t, nw, 0.1);
        pbuf dx = with_dinp ? outf(t, nin) : NOBUF, dw = outf(t, nw),
             scr = conv_scratch(t, B, C, H, W, OC);
        if (!ready(t))
            return;
        SIDES O->conv_backward(S(dx), S(dw), S(dy), S(x), S(w), S(scr), B, C, H, W, OC);
        if (with_dinp)
            CHECKF(dx, nin, "dinp B%d C%d H%d W%d OC%d", B, C, H, W, OC);
        CHECKF(dw, nw, "dw B%d C%d H%d W%d OC%d", B, C, H, W, OC);
    }
}

static void row_conv_backward(pt *t)
{
    conv_bwd(t, 1);
}

/* the cnn's first layer */
static void row_conv_backward_nodinp(pt *t)
{
    conv_bwd(t, 0);
}

/* ------------------------------------------------------------------ convolution, any size */

/* B, C, H, W, OC, k, stride: resnet20's downsampling (16 → 32 at 32×32),
 * odd sides, the cnn's kernel=5 and kernel=1, the first layer */
static const int convk_shapes[][7] = {{3, 16, 32, 32, 32, 3, 2}, {2, 3, 7, 5, 4, 3, 2},
                                      {2, 4, 9, 9, 6, 5, 1},     {2, 5, 6, 6, 3, 1, 1},
                                      {2, 1, 12, 12, 8, 5, 1}};

static void convk_fwd(pt *t)
{
    for (size_t q = 0; q < NSHAPES(convk_shapes); q++) {
        const int *c = convk_shapes[q];
        int B = c[0], C = c[1], H = c[2], W = c[3], OC = c[4], k = c[5], st = c[6];
        int OH = (H - 1) / st + 1, OW = (W - 1) / st + 1;
        size_t nin = (size_t)B * C * H * W, nout = (size_t)B * OC * OH * OW;
        pbuf x = rnd(t, nin, 1), w = rnd(t, (size_t)OC * C * k * k, 0.1), y = outf(t, nout),
             scr = outf(t, CS_NN_CONVK_SCRATCH(B, C, H, W, OC, k));
        if (!ready(t))
            return;
        SIDES O->convk_forward(S(y), S(x), S(w), S(scr), B, C, H, W, OC, k, st);
        CHECKF(y, nout, "out B%d C%d %dx%d OC%d k%d s%d", B, C, H, W, OC, k, st);
    }
}

static void convk_bwd(pt *t, int with_dinp)
{
    for (size_t q = 0; q < NSHAPES(convk_shapes); q++) {
        const int *c = convk_shapes[q];
        int B = c[0], C = c[1], H = c[2], W = c[3], OC = c[4], k = c[5], st = c[6];
        int OH = (H - 1) / st + 1, OW = (W - 1) / st + 1;
        size_t nin = (size_t)B * C * H * W, nout = (size_t)B * OC * OH * OW,
               nw = (size_t)OC * C * k * k;
        pbuf dy = rnd(t, nout, 1), x = rnd(t, nin, 1), w = rnd(t, nw, 0.1);
        pbuf dx = with_dinp ? outf(t, nin) : NOBUF, dw = outf(t, nw),
             scr = outf(t, CS_NN_CONVK_SCRATCH(B, C, H, W, OC, k));
        if (!ready(t))
            return;
        SIDES O->convk_backward(S(dx), S(dw), S(dy), S(x), S(w), S(scr), B, C, H, W, OC, k, st);
        if (with_dinp)
            CHECKF(dx, nin, "dinp B%d C%d %dx%d OC%d k%d s%d", B, C, H, W, OC, k, st);
        CHECKF(dw, nw, "dw B%d C%d %dx%d OC%d k%d s%d", B, C, H, W, OC, k, st);
    }
}

static void row_convk_forward(pt *t)
{
    convk_fwd(t);
}

static void row_convk_backward(pt *t)
{
    convk_bwd(t, 1);
}

static void row_convk_backward_nodinp(pt *t)
{
    convk_bwd(t, 0);
}

/* ------------------------------------------------------------------ batch norm */

static const int bn_shapes[][3] = {{4, 16, 28 * 28}, {4, 32, 14 * 14}, {3, 5, 7}};   /* B, C, HW */

/* an input whose channels have their own mean and spread (as a convolution's) */
static float *bn_input(pt *t, int B, int C, int HW)
{
    float *x = hmem(t, (size_t)B * C * HW * sizeof *x);
    double *mu = hmem(t, C * sizeof *mu), *sd = hmem(t, C * sizeof *sd);
    for (int c = 0; c < C; c++) {
        mu[c] = 0.5 * cs_rng_normal(&t->rng);
        sd[c] = 0.5 + fabs(cs_rng_normal(&t->rng));
    }
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++)
            for (int i = 0; i < HW; i++)
                x[((size_t)b * C + c) * HW + i] = (float)(mu[c] + sd[c] * cs_rng_normal(&t->rng));
    return x;
}

static float *positive(pt *t, int n, double base, double sd)
{
    float *x = hmem(t, n * sizeof *x);
    for (int i = 0; i < n; i++)
        x[i] = (float)(base + sd * fabs(cs_rng_normal(&t->rng)));
    return x;
}

static void bn_fwd(pt *t, int train, int relu)
{
    for (size_t k = 0; k < NSHAPES(bn_shapes); k++) {
        int B = bn_shapes[k][0], C = bn_shapes[k][1], HW = bn_shapes[k][2];
        size_t n = (size_t)B * C * HW, cb = C * sizeof(float);
        pbuf x = put(t, bn_input(t, B, C, HW), n * sizeof(float)), y = outf(t, n);
        pbuf g = put(t, positive(t, C, 0.8, 0.2), cb), be = rnd(t, C, 0.1);
        pbuf mean = outf(t, C), rstd = outf(t, C), rm = rnd(t, C, 0.2),
             rv = put(t, positive(t, C, 0.5, 0.5), cb);
        if (!ready(t))
            return;
        if (relu)
            SIDES O->bn_relu_forward(S(y), S(x), S(g), S(be), S(mean), S(rstd), S(rm), S(rv), B, C,
                                     HW, train);
        else
            SIDES O->bn_forward(S(y), S(x), S(g), S(be), S(mean), S(rstd), S(rm), S(rv), B, C,
                                HW, train);
        CHECKF(y, n, "out B%d C%d HW%d", B, C, HW);
        /* eval: mean and rstd untouched (both still 0xFF), the running ones too */
        CHECKF(mean, C, "mean B%d C%d HW%d", B, C, HW);
        CHECKF(rstd, C, "rstd B%d C%d HW%d", B, C, HW);
        CHECKF(rm, C, "running mean B%d C%d HW%d", B, C, HW);
        CHECKF(rv, C, "running var B%d C%d HW%d", B, C, HW);
    }
}

static void row_bn_forward_train(pt *t)
{
    bn_fwd(t, 1, 0);
}

static void row_bn_forward_eval(pt *t)
{
    bn_fwd(t, 0, 0);
}

static void row_bn_relu_forward_train(pt *t)
{
    bn_fwd(t, 1, 1);
}

static void row_bn_relu_forward_eval(pt *t)
{
    bn_fwd(t, 0, 1);
}

static void bn_bwd(pt *t, int with_dinp, int relu)
{
    for (size_t k = 0; k < NSHAPES(bn_shapes); k++) {
        int B = bn_shapes[k][0], C = bn_shapes[k][1], HW = bn_shapes[k][2];
        size_t n = (size_t)B * C * HW, cb = C * sizeof(float);
        float *hx = bn_input(t, B, C, HW);
        /* the batch's own mean and 1/std, as bn_forward saves them */
        float *hm = hmem(t, cb), *hr = hmem(t, cb);
        for (int c = 0; c < C; c++) {
            double s = 0, s2 = 0;
            for (int b = 0; b < B; b++)
                for (int i = 0; i < HW; i++) {
                    double v = hx[((size_t)b * C + c) * HW + i];
                    s += v;
                    s2 += v * v;
                }
            double m = s / ((double)B * HW), var = s2 / ((double)B * HW) - m * m;
            hm[c] = (float)m;
            hr[c] = (float)(1 / sqrt((var > 0 ? var : 0) + 1e-5));
        }
        pbuf x = put(t, hx, n * sizeof(float)), dy = rnd(t, n, 1);
        pbuf g = put(t, positive(t, C, 0.8, 0.2), cb), mean = put(t, hm, cb),
             rstd = put(t, hr, cb);
        pbuf dx = with_dinp ? outf(t, n) : NOBUF, dg = outf(t, C), db = outf(t, C);
        /* relu: β, and the ReLU's output of the forward (its float ops) */
        float *hg = hmem(t, cb), *hb = hmem(t, cb), *hz = hmem(t, n * sizeof(float));
        for (int c = 0; c < C; c++) {
            hg[c] = (float)(0.8 + 0.2 * fabs(cs_rng_normal(&t->rng)));
            hb[c] = (float)(0.3 * cs_rng_normal(&t->rng));
        }
        for (size_t i = 0; i < n; i++) {
            int c = (int)(i / HW % C);
            float gs = hg[c] * hr[c], sh = hb[c] - hm[c] * gs, v = hx[i] * gs + sh;
            hz[i] = v > 0.0f ? v : 0.0f;
        }
        pbuf be = put(t, hb, cb), z = put(t, hz, n * sizeof(float));
        if (relu)
            g = put(t, hg, cb);
        if (!ready(t))
            return;
        if (relu)
            SIDES O->bn_relu_backward(S(dx), S(dg), S(db), S(dy), S(z), S(x), S(g), S(be),
                                      S(mean), S(rstd), B, C, HW);
        else
            SIDES O->bn_backward(S(dx), S(dg), S(db), S(dy), S(x), S(g), S(mean), S(rstd), B, C,
                                 HW);
        if (with_dinp)
            CHECKF(dx, n, "dinp B%d C%d HW%d", B, C, HW);
        CHECKF(dg, C, "dgamma B%d C%d HW%d", B, C, HW);
        CHECKF(db, C, "dbeta B%d C%d HW%d", B, C, HW);
    }
}

static void row_bn_backward(pt *t)
{
    bn_bwd(t, 1, 0);
}

static void row_bn_backward_nodinp(pt *t)
{
    bn_bwd(t, 0, 0);
}

static void row_bn_relu_backward(pt *t)
{
    bn_bwd(t, 1, 1);
}

static void row_bn_relu_backward_nodinp(pt *t)
{
    bn_bwd(t, 0, 1);
}

/* ------------------------------------------------------------------ activations, pooling */

/* normal draws with exact zeros and negative zeros among them */
static float *with_zeros(pt *t, size_t n)
{
    float *x = hrand(t, n, 1);
    for (size_t i = 0; i < n; i += 7)
        x[i] = i % 2 ? -0.0f : 0.0f;
    return x;
}

static void row_relu_forward(pt *t)
{
    enum { N = 10003 };
    pbuf x = put(t, with_zeros(t, N), N * sizeof(float)), y = outf(t, N);
    if (!ready(t))
        return;
    SIDES O->relu_forward(S(y), S(x), N);
    CHECKF(y, N, "out");
}

static void row_relu_backward(pt *t)
{
    enum { N = 10003 };
    float *out = with_zeros(t, N);
    for (size_t i = 0; i < N; i++)   /* a relu's output */
        out[i] = out[i] > 0 ? out[i] : 0.0f;
    pbuf o = put(t, out, N * sizeof(float)), dy = rnd(t, N, 1), dx = outf(t, N);
    if (!ready(t))
        return;
    SIDES O->relu_backward(S(dx), S(dy), S(o), N);
    CHECKF(dx, N, "dinp");
}

/* B, C, H, W (odd sides: the last row and column are in no window) */
static const int pool_shapes[][4] = {{4, 16, 28, 28}, {2, 32, 14, 14}, {1, 3, 2, 6}, {2, 3, 7, 5}};

static void row_maxpool_forward(pt *t)
{
    for (size_t k = 0; k < NSHAPES(pool_shapes); k++) {
        int B = pool_shapes[k][0], C = pool_shapes[k][1], H = pool_shapes[k][2],
            W = pool_shapes[k][3];
        size_t n = (size_t)B * C * H * W, no = (size_t)B * C * (H / 2) * (W / 2);
        float *h = hrand(t, n, 1);
        for (size_t i = 0; i < n; i++)   /* quarters: ties in many windows (the first wins) */
            h[i] = roundf(h[i] * 4) / 4;
        pbuf x = put(t, h, n * sizeof(float)), y = outf(t, no), idx = put(t, NULL, no * 4);
        if (!ready(t))
            return;
        SIDES O->maxpool_forward(S(y), S(idx), S(x), B, C, H, W);
        CHECKF(y, no, "out B%d C%d H%d W%d", B, C, H, W);
        check(t, idx, no, PT_I32, 0, "idx B%d C%d H%d W%d", B, C, H, W);
    }
}

static void row_maxpool_backward(pt *t)
{
    for (size_t k = 0; k < NSHAPES(pool_shapes); k++) {
        int B = pool_shapes[k][0], C = pool_shapes[k][1], H = pool_shapes[k][2],
            W = pool_shapes[k][3];
        size_t n = (size_t)B * C * H * W, no = (size_t)B * C * (H / 2) * (W / 2);
        int32_t *hi = hmem(t, no * sizeof *hi);
        for (size_t i = 0; i < no; i++)
            hi[i] = (int32_t)cs_rng_below(&t->rng, 4);
        pbuf idx = put(t, hi, no * 4), dy = rnd(t, no, 1), dx = outf(t, n);
        if (!ready(t))
            return;
        SIDES O->maxpool_backward(S(dx), S(dy), S(idx), B, C, H, W);
        CHECKF(dx, n, "dinp B%d C%d H%d W%d", B, C, H, W);
    }
}

/* ------------------------------------------------------------------ residual, average pooling */

/* B, C, H (= W), SC, SH: resnet20's identity shortcut and its option-A
 * ones (16 → 32 channels at 32 → 16, 32 → 64 at 16 → 8), and odd sizes */
static const int res_shapes[][5] = {{3, 16, 32, 16, 32}, {3, 32, 16, 16, 32}, {2, 64, 8, 32, 16},
                                    {2, 6, 3, 2, 6}};

static void row_residual_forward(pt *t)
{
    for (size_t q = 0; q < NSHAPES(res_shapes); q++) {
        int B = res_shapes[q][0], C = res_shapes[q][1], H = res_shapes[q][2],
            SC = res_shapes[q][3], SH = res_shapes[q][4];
        size_t n = (size_t)B * C * H * H, ns = (size_t)B * SC * SH * SH;
        float *hx = hrand(t, n, 1);
        hx[0] = -0.0f;   /* inp + 0 is not inp for −0: both must leave it */
        pbuf x = put(t, hx, n * sizeof(float)), sc = rnd(t, ns, 1), y = outf(t, n);
        if (!ready(t))
            return;
        SIDES O->residual_forward(S(y), S(x), S(sc), B, C, H, H, SC, SH, SH);
        CHECKF(y, n, "out B%d C%d H%d from C%d H%d", B, C, H, SC, SH);
    }
}

static void row_residual_backward(pt *t)
{
    for (size_t q = 0; q < NSHAPES(res_shapes); q++) {
        int B = res_shapes[q][0], C = res_shapes[q][1], H = res_shapes[q][2],
            SC = res_shapes[q][3], SH = res_shapes[q][4];
        size_t n = (size_t)B * C * H * H, ns = (size_t)B * SC * SH * SH;
        pbuf dy = rnd(t, n, 1), dsc = outf(t, ns);
        if (!ready(t))
            return;
        SIDES O->residual_backward(S(dsc), S(dy), B, C, H, H, SC, SH, SH);
        CHECKF(dsc, ns, "dsc B%d C%d H%d from C%d H%d", B, C, H, SC, SH);
    }
}

static const int gap_shapes[][3] = {{4, 64, 64}, {3, 5, 7}, {2, 3, 1}};   /* B, C, HW */

static void row_avgpool_forward(pt *t)
{
    for (size_t q = 0; q < NSHAPES(gap_shapes); q++) {
        int B = gap_shapes[q][0], C = gap_shapes[q][1], HW = gap_shapes[q][2];
        pbuf x = rnd(t, (size_t)B * C * HW, 1), y = outf(t, (size_t)B * C);
        if (!ready(t))
            return;
        SIDES O->avgpool_forward(S(y), S(x), B, C, HW);
        CHECKF(y, (size_t)B * C, "out B%d C%d HW%d", B, C, HW);
    }
}

static void row_avgpool_backward(pt *t)
{
    for (size_t q = 0; q < NSHAPES(gap_shapes); q++) {
        int B = gap_shapes[q][0], C = gap_shapes[q][1], HW = gap_shapes[q][2];
        pbuf dy = rnd(t, (size_t)B * C, 1), dx = outf(t, (size_t)B * C * HW);
        if (!ready(t))
            return;
        SIDES O->avgpool_backward(S(dx), S(dy), B, C, HW);
        CHECKF(dx, (size_t)B * C * HW, "dinp B%d C%d HW%d", B, C, HW);
    }
}

/* ------------------------------------------------------------------ loss */

static int32_t *labels(pt *t, int B, int K)
{
    int32_t *y = hmem(t, B * sizeof *y);
    for (int b = 0; b < B; b++)
        y[b] = (int32_t)cs_rng_below(&t->rng, (uint64_t)K);
    return y;
}

static const int sm_shapes[][2] = {{64, 10}, {1, 10}, {7, 3}};   /* B, K */

static void row_softmax_ce_forward(pt *t)
{
    for (size_t k = 0; k < NSHAPES(sm_shapes); k++) {
        int B = sm_shapes[k][0], K = sm_shapes[k][1];
        pbuf z = rnd(t, (size_t)B * K, 3), y = put(t, labels(t, B, K), B * 4);
        pbuf p = outf(t, (size_t)B * K), l = outf(t, B);
        if (!ready(t))
            return;
        SIDES O->softmax_ce_forward(S(p), S(l), S(z), S(y), B, K);
        CHECKF(p, (size_t)B * K, "probs B%d K%d", B, K);
        CHECKF(l, B, "losses B%d K%d", B, K);
    }
}

static void row_softmax_ce_backward(pt *t)
{
    for (size_t k = 0; k < NSHAPES(sm_shapes); k++) {
        int B = sm_shapes[k][0], K = sm_shapes[k][1];
        float *hp = hrand(t, (size_t)B * K, 2);
        for (int b = 0; b < B; b++) {   /* rows of probabilities */
            double s = 0;
            for (int j = 0; j < K; j++)
                s += exp(hp[b * K + j]);
            for (int j = 0; j < K; j++)
                hp[b * K + j] = (float)(exp(hp[b * K + j]) / s);
        }
        pbuf p = put(t, hp, (size_t)B * K * 4), y = put(t, labels(t, B, K), B * 4),
             d = outf(t, (size_t)B * K);
        if (!ready(t))
            return;
        SIDES O->softmax_ce_backward(S(d), S(p), S(y), B, K);
        CHECKF(d, (size_t)B * K, "dlogits B%d K%d", B, K);
    }
}

/* ------------------------------------------------------------------ optimizer */

/* step t of Adam: from zero moments at t = 1, else from moments of earlier
 * steps (m of either sign, v > 0), a few tiny ones (flushed) and zero
 * gradients among them */
static void adam(pt *t, int step)
{
    enum { N = 1003 };   /* not a multiple of 8: the vector loop's tail */
    float *g = hrand(t, N, 1e-2), *m = hmem(t, N * 4), *v = hmem(t, N * 4);
    for (size_t i = 0; i < N; i++) {
        if (i % 13 == 0)
            g[i] = 0;
        if (step > 1) {
            m[i] = (float)(3e-3 * cs_rng_normal(&t->rng));
            v[i] = (float)(1e-4 * fabs(cs_rng_normal(&t->rng)) + 1e-6);
            if (i % 26 == 0)
                m[i] = 1e-31f, v[i] = 1e-33f;
        }
    }
    pbuf p = rnd(t, N, 0.1), gb = put(t, g, N * 4), mb = put(t, m, N * 4), vb = put(t, v, N * 4);
    if (!ready(t))
        return;
    SIDES O->adam_update(S(p), S(gb), S(mb), S(vb), N, 1e-3f, 0.9f, 0.999f, 1e-8f, step);
    CHECKF(p, N, "params t=%d", step);
    CHECKF(mb, N, "m t=%d", step);
    CHECKF(vb, N, "v t=%d", step);
}

static void row_adam_t1(pt *t)
{
    adam(t, 1);
}

static void row_adam_t5(pt *t)
{
    adam(t, 5);
}

/* ------------------------------------------------------------------ regularizers */

/* rows × cols: a dense layer's and a conv layer's (C·9 + a tail of 3), the
 * first row zero (l2l1h's ‖x‖ = 0) */
static const int reg_shapes[][2] = {{8, 300}, {17, 147}};

static void reg(pt *t, int kind)
{
    for (size_t k = 0; k < NSHAPES(reg_shapes); k++) {
        int rows = reg_shapes[k][0], cols = reg_shapes[k][1];
        size_t n = (size_t)rows * cols;
        float *w = hrand(t, n, 0.3);
        memset(w, 0, cols * sizeof *w);
        pbuf wb = put(t, w, n * 4), dw = rnd(t, n, 1), val = put(t, NULL, rows * sizeof(double));
        if (!ready(t))
            return;
        SIDES O->reg->rows(S(dw), S(val), S(wb), rows, cols, kind, 0.5f);
        check(t, val, rows, PT_F64, TOL_REG_VAL, "value %dx%d", rows, cols);
        CHECKF(dw, n, "grad %dx%d", rows, cols);
    }
}

static void row_reg_bin(pt *t)
{
    reg(t, CS_REG_KERNEL_BIN);
}
static void row_reg_osb(pt *t)
{
    reg(t, CS_REG_KERNEL_OSB);
}
static void row_reg_ter(pt *t)
{
    reg(t, CS_REG_KERNEL_TER);
}
static void row_reg_bbin(pt *t)
{
    reg(t, CS_REG_KERNEL_BBIN);
}
static void row_reg_binexp(pt *t)
{
    reg(t, CS_REG_KERNEL_BINEXP);
}
static void row_reg_l2l1(pt *t)
{
    reg(t, CS_REG_KERNEL_L2L1);
}
static void row_reg_l2l1h(pt *t)
{
    reg(t, CS_REG_KERNEL_L2L1H);
}

/* ------------------------------------------------------------------ quantized weights */

static float *signs(pt *t, size_t n)
{
    float *s = hmem(t, n * sizeof *s);
    for (size_t i = 0; i < n; i++)
        s[i] = (float)cs_rng_below(&t->rng, 3) - 1.0f;
    return s;
}

static void row_quant_apply(pt *t)
{
    enum { R = 16, C = 147 };
    pbuf sg = put(t, signs(t, R * C), R * C * 4), a = put(t, positive(t, R, 0.01, 0.1), R * 4),
         w = outf(t, R * C);
    if (!ready(t))
        return;
    SIDES O->reg->quant_apply(S(w), S(sg), S(a), R, C);
    CHECKF(w, R * C, "w %dx%d", R, C);
}

static void row_quant_scale_grad(pt *t)
{
    enum { R = 16, C = 1568 };
    pbuf sg = put(t, signs(t, R * C), R * C * 4), dw = rnd(t, R * C, 1), da = outf(t, R);
    if (!ready(t))
        return;
    SIDES O->reg->quant_scale_grad(S(da), S(dw), S(sg), R, C);
    CHECKF(da, R, "dalpha %dx%d", R, C);
}

static void row_axpy(pt *t)
{
    enum { N = 10003 };
    pbuf y = rnd(t, N, 1), x = rnd(t, N, 1);
    if (!ready(t))
        return;
    SIDES O->axpy(S(y), S(x), -0.37f, N);
    CHECKF(y, N, "y");
}

/* ------------------------------------------------------------------ watch ops */

static void row_watch_hist(pt *t)
{
    static const struct {
        float lo, hi;
        int bins;
    } cfg[] = {{-0.3f, 0.3f, 20}, {-0.25f, 0.25f, 256}, {-1.0f, 1.0f, 1000}, {0.0f, 0.1f, 7}};
    for (size_t k = 0; k < NSHAPES(cfg); k++) {
        float lo = cfg[k].lo, hi = cfg[k].hi;
        int bins = cfg[k].bins;
        size_t n = 10007;
        float *x = hrand(t, n, 0.1);
        /* every edge, and the floats beside it; the ends, outside, inf, NaN */
        size_t i = 0;
        for (int e = 0; e <= bins; e++) {
            float v = (float)(lo + ((double)hi - lo) * e / bins);
            x[i++] = v;
            x[i++] = nextafterf(v, -INFINITY);
            x[i++] = nextafterf(v, INFINITY);
        }
        float special[] = {lo, hi, 2 * hi + 1, 2 * lo - 1, INFINITY, -INFINITY, NAN, -NAN};
        for (size_t j = 0; j < NSHAPES(special); j++)
            x[i++] = special[j];
        pbuf xb = put(t, x, n * 4), c = put(t, NULL, bins * 4);
        if (!ready(t))
            return;
        SIDES O->watch->hist(S(c), S(xb), n, lo, hi, bins);
        check(t, c, bins, PT_U32, 0, "counts [%g, %g] %d bins", lo, hi, bins);
    }
}

/* rows of normal draws, of quarter steps (ties), of zeros */
static float *watch_weights(pt *t, int rows, int cols)
{
    float *w = hrand(t, (size_t)rows * cols, 0.1);
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++) {
            float *x = &w[(size_t)r * cols + j];
            if (r % 3 == 1)
                *x = roundf(*x * 40) / 40;
            else if (r % 5 == 2)
                *x = 0;
        }
    return w;
}

static void row_watch_row_abs_mean(pt *t)
{
    enum { R = 32, C = 147 };
    pbuf w = put(t, watch_weights(t, R, C), R * C * 4), a = outf(t, R);
    if (!ready(t))
        return;
    SIDES O->watch->row_abs_mean(S(a), S(w), R, C);
    check(t, a, R, PT_F32, 0, "alpha %dx%d", R, C);
}

static void row_watch_row_ternary(pt *t)
{
    enum { R = 32, C = 147 };
    pbuf w = put(t, watch_weights(t, R, C), R * C * 4), a = outf(t, R), tau = outf(t, R);
    if (!ready(t))
        return;
    SIDES O->watch->row_ternary(S(a), S(tau), S(w), R, C);
    check(t, a, R, PT_F32, 0, "alpha %dx%d", R, C);
    check(t, tau, R, PT_F32, 0, "tau %dx%d", R, C);
}

/* weights on, within and just outside 1% of a level (±α, 0), decided in
 * double on the CPU when the float pass cannot tell */
static void row_watch_near_count(pt *t)
{
    enum { R = 12, C = 150 };
    float *alpha = positive(t, R, 0.05, 0.1), *w = hrand(t, R * C, 0.1);
    static const double delta[] = {-1e-4, -1e-7, 0, 1e-7, 1e-4};
    for (int r = 0; r < R; r++)
        for (int j = 0; j < C; j++) {
            double a = alpha[r], d = delta[cs_rng_below(&t->rng, 5)],
                   sg = cs_rng_below(&t->rng, 2) ? 1 : -1, v;
            switch (j % 5) {
            case 1: v = a * (1 + (cs_rng_below(&t->rng, 2) ? 0.01 : -0.01) * (1 + d)); break;
            case 2: v = 0.01 * a * (1 + d); break;
            case 3: v = a; break;
            case 4: v = 0; break;
            default: continue;
            }
            w[(size_t)r * C + j] = (float)(sg * v);
        }
    pbuf wb = put(t, w, R * C * 4), ab = put(t, alpha, R * 4);
    for (int ternary = 0; ternary < 2; ternary++) {
        pbuf nb = put(t, NULL, R * 4);
        if (!ready(t))
            return;
        SIDES O->watch->near_count(S(nb), S(wb), S(ab), R, C, ternary);
        check(t, nb, R, PT_U32, 0, "near %dx%d %s", R, C, ternary ? "ternary" : "binary");
    }
}

static void row_watch_sign_flips(pt *t)
{
    static const size_t sizes[] = {1000, 64, 31};
    for (size_t k = 0; k < NSHAPES(sizes); k++) {
        size_t n = sizes[k], words = (n + 31) / 32;
        float *x = hrand(t, n, 1);
        for (size_t i = 0; i < n; i += 5)   /* false: -0, NaN of either sign; true: -inf */
            x[i] = (float[]){-0.0f, NAN, -NAN, -INFINITY, 0.0f}[i / 5 % 5];
        /* a bitmap as an earlier call leaves it (nothing past n), and the
         * signs of x themselves (no flip) */
        uint32_t *bits = hmem(t, words * 4), *same = hmem(t, words * 4);
        for (size_t i = 0; i < words; i++)
            bits[i] = (uint32_t)cs_rng_u64(&t->rng);
        if (n % 32)
            bits[words - 1] &= (1u << n % 32) - 1;
        for (size_t i = 0; i < n; i++)
            same[i / 32] |= (uint32_t)(x[i] < 0) << i % 32;
        pbuf xb = put(t, x, n * 4);
        const uint32_t *start[2] = {bits, same};
        for (int j = 0; j < 2; j++) {
            pbuf bb = put(t, start[j], words * 4), f = put(t, NULL, 4);
            if (!ready(t))
                return;
            SIDES O->watch->sign_flips(S(f), S(bb), S(xb), n);
            check(t, f, 1, PT_U32, 0, "flips n=%zu %s", n, j ? "none" : "random");
            check(t, bb, words, PT_U32, 0, "bitmap n=%zu %s", n, j ? "none" : "random");
        }
    }
}

/* ------------------------------------------------------------------ the table */

typedef struct prow {
    const char *name;
    double tol;   /* of its float outputs; integer ones are exact */
    void (*run)(pt *t);
} prow;

static const prow op_rows[] = {
    {"alloc", 0, row_alloc},   /* zeroed; upload, download */
    {"zero", 0, row_zero},
    {"copy", 0, row_copy},
    {"sync", 0, row_sync},
    {"matmul_forward", TOL_SGEMM, row_matmul_forward},
    {"matmul_forward nobias", TOL_SGEMM, row_matmul_forward_nobias},
    {"matmul_backward", TOL_SGEMM, row_matmul_backward},
    {"matmul_backward nodinp", TOL_SGEMM, row_matmul_backward_nodinp},
    {"matmul_backward nodbias", TOL_SGEMM, row_matmul_backward_nodbias},
    {"matmul_relu_forward", TOL_SGEMM, row_matmul_relu_forward},
    {"matmul_relu_forward nobias", TOL_SGEMM, row_matmul_relu_forward_nobias},
    {"matmul_relu_backward", TOL_SGEMM, row_matmul_relu_backward},
    {"matmul_relu_backward nodinp", TOL_SGEMM, row_matmul_relu_backward_nodinp},
    {"conv_forward", TOL_SGEMM, row_conv_forward},
    {"conv_backward", TOL_SGEMM, row_conv_backward},
    {"conv_backward nodinp", TOL_SGEMM, row_conv_backward_nodinp},
    {"bn_forward train", TOL_BN, row_bn_forward_train},
    {"bn_forward eval", TOL_BN, row_bn_forward_eval},   /* cuDNN: its own formula */
    {"bn_backward", TOL_BN, row_bn_backward},
    {"bn_backward nodinp", TOL_BN, row_bn_backward_nodinp},
    {"bn_relu_forward train", TOL_BN, row_bn_relu_forward_train},
    {"bn_relu_forward eval", TOL_BN, row_bn_relu_forward_eval},
    {"bn_relu_backward", TOL_BN, row_bn_relu_backward},
    {"bn_relu_backward nodinp", TOL_BN, row_bn_relu_backward_nodinp},
    {"relu_forward", 0, row_relu_forward},
    {"relu_backward", 0, row_relu_backward},
    {"maxpool_forward", 0, row_maxpool_forward},
    {"maxpool_backward", 0, row_maxpool_backward},
    {"convk_forward", TOL_SGEMM, row_convk_forward},
    {"convk_backward", TOL_SGEMM, row_convk_backward},
    {"convk_backward nodinp", TOL_SGEMM, row_convk_backward_nodinp},
    {"residual_forward", 0, row_residual_forward},   /* the same float adds */
    {"residual_backward", 0, row_residual_backward},
    {"avgpool_forward", 0, row_avgpool_forward},     /* double sums in the same order */
    {"avgpool_backward", 0, row_avgpool_backward},
    {"softmax_ce_forward", TOL_SOFTMAX, row_softmax_ce_forward},
    {"softmax_ce_backward", 0, row_softmax_ce_backward},
    {"adam_update t=1", 0, row_adam_t1},   /* explicitly rounded ops on CUDA */
    {"adam_update t=5", 0, row_adam_t5},
    {"reg_rows bin", TOL_REG, row_reg_bin},
    {"reg_rows osb", TOL_REG, row_reg_osb},
    {"reg_rows ter", TOL_REG, row_reg_ter},
    {"reg_rows bbin", TOL_REG, row_reg_bbin},
    {"reg_rows binexp", TOL_REG, row_reg_binexp},
    {"reg_rows l2l1", TOL_REG, row_reg_l2l1},
    {"reg_rows l2l1h", TOL_REG, row_reg_l2l1h},
    {"quant_apply", 0, row_quant_apply},
    {"quant_scale_grad", TOL_SUM, row_quant_scale_grad},
    {"axpy", 0, row_axpy},
    {"watch hist", 0, row_watch_hist},
    {"watch row_abs_mean", 0, row_watch_row_abs_mean},
    {"watch row_ternary", 0, row_watch_row_ternary},
    {"watch near_count", 0, row_watch_near_count},
    {"watch sign_flips", 0, row_watch_sign_flips},
};

/* the errors the tables kept (a NULL `error` keeps none), printed */
static int kept_errors(pt *t, const char *after)
{
    int n = 0;
    SIDES {
        char msg[256] = "";
        if (O->error && O->error(msg, sizeof msg) != 0) {
            n++;
            printf("%-11s %-23s %s error after %s: %s  FAILED\n", t->tag, t->row, O->name, after,
                   msg);
        }
    }
    return n;
}

static void run_row(pt *t, const prow *r, uint64_t stream)
{
    t->row = r->name;
    t->tol = t->bitwise ? 0 : r->tol;
    t->lost = 0;
    cs_rng_init(&t->rng, PARITY_SEED, stream);
    r->run(t);
    int e = t->lost ? 0 : kept_errors(t, r->name);
    t->checks += e;
    t->failed += e;
    release_all(t);
}

static void pt_init(pt *t, const cs_nn_ops *ref, const cs_nn_ops *dev, int flags, const char *tag)
{
    memset(t, 0, sizeof *t);
    t->side[0] = ref;
    t->side[1] = dev;
    t->flags = flags;
    t->bitwise = (flags & NN_PARITY_EXACT) != 0;
    t->tag = tag;
}

int nn_parity_ops(const cs_nn_ops *ref, const cs_nn_ops *dev, const char *only, int flags)
{
    pt t;
    pt_init(&t, ref, dev, flags, "parity");
    for (size_t i = 0; i < NSHAPES(op_rows); i++)
        if (!only || !strncmp(op_rows[i].name, only, strlen(only)))
            run_row(&t, &op_rows[i], i);
    if (!only) {   /* after every op: no error kept */
        t.row = "error";
        report(&t, 0, kept_errors(&t, "all ops"), 0, "none kept (ref %s, dev %s)",
               ref->error ? "asked" : "NULL", dev->error ? "asked" : "NULL");
    }
    return t.failed;
}

int nn_parity_determinism(const cs_nn_ops *dev, int flags)
{
    static const char *rows[] = {"conv_backward", "bn_backward", "reg_rows", "matmul_backward"};
    pt t;
    pt_init(&t, dev, dev, flags | NN_PARITY_EXACT, "determinism");
    for (size_t i = 0; i < NSHAPES(op_rows); i++)
        for (size_t k = 0; k < NSHAPES(rows); k++)
            if (!strncmp(op_rows[i].name, rows[k], strlen(rows[k])))
                run_row(&t, &op_rows[i], i);
    return t.failed;
}

/* ------------------------------------------------------------------ op-chain training */

enum { CH_STEPS = 3 };

/* a parameter: its value, gradient and Adam moments on both sides */
typedef struct pparam {
    pbuf w, g, m, v;
    const float *init;
    size_t n;
    const char *name;
} pparam;

static pparam param(pt *t, const char *name, const float *init, size_t n)
{
    pparam p;
    p.w = put(t, init, n * 4);
    p.init = init;
    p.g = outf(t, n);
    p.m = put(t, hmem(t, n * 4), n * 4);   /* zero moments */
    p.v = put(t, hmem(t, n * 4), n * 4);
    p.n = n;
    p.name = name;
    return p;
}

static void adam_all(pt *t, pparam *p, int np, int step)
{
    for (int i = 0; i < np; i++)
        SIDES O->adam_update(S(p[i].w), S(p[i].g), S(p[i].m), S(p[i].v), p[i].n, 1e-3f, 0.9f,
                             0.999f, 1e-8f, step);
}

/* He-initialized weights, as the model's */
static float *he(pt *t, size_t n, int fan_in)
{
    return hrand(t, n, sqrt(2.0 / fan_in));
}

/* conv 3×3 1→8 on 12×12, bn (train), relu, maxpool → 8×6×6, dense 288→10
 * with bias, softmax-ce; backward through all (conv without dinp, as the
 * first layer), a bin regularizer on the dense weights, Adam */
static void row_train_cnn(pt *t)
{
    enum { B = 8, H = 12, OC = 8, HW = H * H, F = OC * HW / 4, K = 10 };
    size_t na = (size_t)B * OC * HW, np = na / 4;
    float *ones = hmem(t, OC * 4), *hvar = hmem(t, OC * 4), *hzero = hmem(t, OC * 4);
    for (int c = 0; c < OC; c++)
        ones[c] = hvar[c] = 1;
    pparam p[5];   /* one by one: an initializer list's order is unspecified */
    p[0] = param(t, "conv w", he(t, OC * 9, 9), OC * 9);
    p[1] = param(t, "bn gamma", ones, OC);
    p[2] = param(t, "bn beta", hmem(t, OC * 4), OC);
    p[3] = param(t, "fc w", he(t, (size_t)K * F, F), (size_t)K * F);
    p[4] = param(t, "fc b", hmem(t, K * 4), K);
    pbuf x = rnd(t, (size_t)B * HW, 1), y = put(t, labels(t, B, K), B * 4);
    pbuf rm = put(t, hzero, OC * 4), rv = put(t, hvar, OC * 4);
    pbuf conv = outf(t, na), scr = conv_scratch(t, B, 1, H, H, OC), bn = outf(t, na),
         mean = outf(t, OC), rstd = outf(t, OC), act = outf(t, na), pool = outf(t, np),
         idx = put(t, NULL, np * 4), logits = outf(t, B * K), probs = outf(t, B * K),
         loss = outf(t, B), dlog = outf(t, B * K), dpool = outf(t, np), dact = outf(t, na),
         dbn = outf(t, na), dconv = outf(t, na), val = put(t, NULL, K * 8);
    if (!ready(t))
        return;
    for (int step = 1; step <= CH_STEPS; step++) {
        SIDES {
            O->conv_forward(S(conv), S(x), S(p[0].w), S(scr), B, 1, H, H, OC);
            O->bn_forward(S(bn), S(conv), S(p[1].w), S(p[2].w), S(mean), S(rstd), S(rm), S(rv),
                          B, OC, HW, 1);
            O->relu_forward(S(act), S(bn), na);
            O->maxpool_forward(S(pool), S(idx), S(act), B, OC, H, H);
            O->matmul_forward(S(logits), S(pool), S(p[3].w), S(p[4].w), B, F, K);
            O->softmax_ce_forward(S(probs), S(loss), S(logits), S(y), B, K);
            O->softmax_ce_backward(S(dlog), S(probs), S(y), B, K);
            O->matmul_backward(S(dpool), S(p[3].g), S(p[4].g), S(dlog), S(pool), S(p[3].w), B, F,
                               K);
            O->maxpool_backward(S(dact), S(dpool), S(idx), B, OC, H, H);
            O->relu_backward(S(dbn), S(dact), S(act), na);
            O->bn_backward(S(dconv), S(p[1].g), S(p[2].g), S(dbn), S(conv), S(p[1].w), S(mean),
                           S(rstd), B, OC, HW);
            O->conv_backward(NULL, S(p[0].g), S(dconv), S(x), S(p[0].w), S(scr), B, 1, H, H, OC);
            O->reg->rows(S(p[3].g), S(val), S(p[3].w), K, F, CS_REG_KERNEL_BIN, 1e-3f);
        }
        adam_all(t, p, NSHAPES(p), step);
        CHECKF(loss, B, "losses, step %d", step);
    }
    for (size_t i = 0; i < NSHAPES(p); i++)
        check_change(t, p[i].w, p[i].init, "%s, change in %d steps", p[i].name, CH_STEPS);
    check_change(t, rm, hzero, "running mean, change");
    check_change(t, rv, hvar, "running var, change");
}

/* dense 64→32 + relu, dense 32→10, softmax-ce; Adam */
static void row_train_mlp(pt *t)
{
    enum { B = 16, IN = 64, HID = 32, K = 10 };
    pparam p[4];
    p[0] = param(t, "fc1 w", he(t, HID * IN, IN), HID * IN);
    p[1] = param(t, "fc1 b", hmem(t, HID * 4), HID);
    p[2] = param(t, "fc2 w", he(t, K * HID, HID), K * HID);
    p[3] = param(t, "fc2 b", hmem(t, K * 4), K);
    pbuf x = rnd(t, B * IN, 1), y = put(t, labels(t, B, K), B * 4);
    pbuf h = outf(t, B * HID), a = outf(t, B * HID), logits = outf(t, B * K),
         probs = outf(t, B * K), loss = outf(t, B), dlog = outf(t, B * K), da = outf(t, B * HID),
         dh = outf(t, B * HID);
    if (!ready(t))
        return;
    for (int step = 1; step <= CH_STEPS; step++) {
        SIDES {
            O->matmul_forward(S(h), S(x), S(p[0].w), S(p[1].w), B, IN, HID);
            O->relu_forward(S(a), S(h), B * HID);
            O->matmul_forward(S(logits), S(a), S(p[2].w), S(p[3].w), B, HID, K);
            O->softmax_ce_forward(S(probs), S(loss), S(logits), S(y), B, K);
            O->softmax_ce_backward(S(dlog), S(probs), S(y), B, K);
            O->matmul_backward(S(da), S(p[2].g), S(p[3].g), S(dlog), S(a), S(p[2].w), B, HID, K);
            O->relu_backward(S(dh), S(da), S(a), B * HID);
            O->matmul_backward(NULL, S(p[0].g), S(p[1].g), S(dh), S(x), S(p[0].w), B, IN, HID);
        }
        adam_all(t, p, NSHAPES(p), step);
        CHECKF(loss, B, "losses, step %d", step);
    }
    for (size_t i = 0; i < NSHAPES(p); i++)
        check_change(t, p[i].w, p[i].init, "%s, change in %d steps", p[i].name, CH_STEPS);
}

static const prow train_rows[] = {
    {"train cnn chain", TOL_TRAIN, row_train_cnn},
    {"train mlp chain", TOL_TRAIN, row_train_mlp},
};

int nn_parity_train(const cs_nn_ops *ref, const cs_nn_ops *dev, int flags)
{
    pt t;
    pt_init(&t, ref, dev, flags, "train");
    for (size_t i = 0; i < NSHAPES(train_rows); i++)
        run_row(&t, &train_rows[i], 100 + i);
    return t.failed;
}

int nn_parity_run(const cs_nn_ops *ref, const cs_nn_ops *dev, int flags)
{
    int ops = nn_parity_ops(ref, dev, NULL, flags);
    int det = nn_parity_determinism(dev, flags);
    int tr = nn_parity_train(ref, dev, flags);
    printf("parity %s against %s: %d op, %d determinism, %d training checks failed\n", dev->name,
           ref->name, ops, det, tr);
    fflush(stdout);
    return ops + det + tr;
}
