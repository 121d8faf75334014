/* test_nn.c — the network engine against independent computations:
 * central finite differences (in double, of the float ops) for every
 * layer's gradient, cs_reg_eval (double) for the float regularizer
 * kernels, Adam against its formulas written out, the IDX reader on
 * hand-made gzip files, the quantizers against brute force, checkpoints,
 * determinism, and CPU/CUDA parity (skipped without a GPU). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "cs_nn.h"
#include "cs_rng.h"
#include "nn_backend.h"

static const cs_nn_ops *cpu = &cs_nn_cpu_ops;

static void fill(float *x, size_t n, cs_rng *r, double sd)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(sd * cs_rng_normal(r));
}

static double dot(const float *a, const float *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
}

/* max |a-b| / max(max|b|, floor) */
static double rel_err(const float *a, const float *b, size_t n, double floor)
{
    double e = 0, m = floor;
    for (size_t i = 0; i < n; i++) {
        if (fabs((double)a[i] - b[i]) > e)
            e = fabs((double)a[i] - b[i]);
        if (fabs((double)b[i]) > m)
            m = fabs((double)b[i]);
    }
    return e / m;
}

/* ------------------------------------------------------------------ finite differences */

/* A scalar loss Σ R·f(params) and the analytic gradient of one input. */
typedef double (*loss_fn)(void *ctx);

static void check_fd(loss_fn f, void *ctx, float *x, size_t n, const float *g, const char *what,
                     double tol)
{
    double h = 1e-2, worst = 0, scale = 1e-3;
    for (size_t i = 0; i < n; i++)
        if (fabs(g[i]) > scale)
            scale = fabs(g[i]);
    for (size_t i = 0; i < n; i++) {
        float x0 = x[i];
        x[i] = (float)(x0 + h);
        double lp = f(ctx);
        x[i] = (float)(x0 - h);
        double lm = f(ctx);
        x[i] = x0;
        double fd = (lp - lm) / (2 * h), e = fabs(fd - g[i]) / scale;
        if (e > worst)
            worst = e;
    }
    if (worst > tol)
        fail_msg("%s: finite-difference error %.3g > %.3g", what, worst, tol);
}

typedef struct dense_ctx {
    float inp[3 * 5], w[4 * 5], b[4], out[3 * 4], R[3 * 4];
} dense_ctx;

static double dense_loss(void *p)
{
    dense_ctx *c = p;
    cpu->matmul_forward(c->out, c->inp, c->w, c->b, 3, 5, 4);
    return dot(c->out, c->R, 12);
}

static void test_grad_dense(void **state)
{
    (void)state;
    dense_ctx c;
    cs_rng r;
    cs_rng_init(&r, 1, 0);
    fill(c.inp, 15, &r, 1);
    fill(c.w, 20, &r, 1);
    fill(c.b, 4, &r, 1);
    fill(c.R, 12, &r, 1);
    float dinp[15], dw[20], db[4];
    cpu->matmul_backward(dinp, dw, db, c.R, c.inp, c.w, 3, 5, 4);
    check_fd(dense_loss, &c, c.inp, 15, dinp, "dense dinp", 1e-3);
    check_fd(dense_loss, &c, c.w, 20, dw, "dense dw", 1e-3);
    check_fd(dense_loss, &c, c.b, 4, db, "dense db", 1e-3);
}

#define CB 2
#define CC 2
#define CH 4
#define COC 3
typedef struct conv_ctx {
    float inp[CB * CC * CH * CH], w[COC * CC * 9], out[CB * COC * CH * CH],
        R[CB * COC * CH * CH], scratch[(CC * 9 + COC) * CB * CH * CH];
} conv_ctx;

static double conv_loss(void *p)
{
    conv_ctx *c = p;
    cpu->conv_forward(c->out, c->inp, c->w, c->scratch, CB, CC, CH, CH, COC);
    return dot(c->out, c->R, sizeof c->R / sizeof(float));
}

static void test_grad_conv(void **state)
{
    (void)state;
    conv_ctx c;
    cs_rng r;
    cs_rng_init(&r, 2, 0);
    fill(c.inp, sizeof c.inp / 4, &r, 1);
    fill(c.w, sizeof c.w / 4, &r, 1);
    fill(c.R, sizeof c.R / 4, &r, 1);
    /* forward against a direct convolution */
    conv_loss(&c);
    for (int b = 0; b < CB; b++)
        for (int o = 0; o < COC; o++)
            for (int y = 0; y < CH; y++)
                for (int x = 0; x < CH; x++) {
                    double s = 0;
                    for (int ch = 0; ch < CC; ch++)
                        for (int ky = 0; ky < 3; ky++)
                            for (int kx = 0; kx < 3; kx++) {
                                int sy = y + ky - 1, sx = x + kx - 1;
                                if (sy >= 0 && sy < CH && sx >= 0 && sx < CH)
                                    s += (double)c.w[(o * CC + ch) * 9 + ky * 3 + kx] *
                                         c.inp[((b * CC + ch) * CH + sy) * CH + sx];
                            }
                    assert_true(fabs(s - c.out[((b * COC + o) * CH + y) * CH + x]) < 1e-5);
                }
    float dinp[sizeof c.inp / 4], dw[sizeof c.w / 4];
    cpu->conv_backward(dinp, dw, c.R, c.inp, c.w, c.scratch, CB, CC, CH, CH, COC);
    check_fd(conv_loss, &c, c.inp, sizeof c.inp / 4, dinp, "conv dinp", 1e-3);
    check_fd(conv_loss, &c, c.w, sizeof c.w / 4, dw, "conv dw", 1e-3);
}

typedef struct bn_ctx {
    float inp[3 * 2 * 5], g[2], b[2], out[30], R[30], mean[2], rstd[2], rm[2], rv[2];
} bn_ctx;

static double bn_loss(void *p)
{
    bn_ctx *c = p;
    cpu->bn_forward(c->out, c->inp, c->g, c->b, c->mean, c->rstd, c->rm, c->rv, 3, 2, 5, 1);
    return dot(c->out, c->R, 30);
}

static void test_grad_bn(void **state)
{
    (void)state;
    bn_ctx c = {0};
    cs_rng r;
    cs_rng_init(&r, 3, 0);
    fill(c.inp, 30, &r, 2);
    fill(c.g, 2, &r, 1);
    fill(c.b, 2, &r, 1);
    fill(c.R, 30, &r, 1);
    bn_loss(&c);
    /* normalized: per channel mean 0, variance 1 before γ, β */
    for (int ch = 0; ch < 2; ch++) {
        double s = 0, s2 = 0;
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 5; i++) {
                double v = (c.out[(b * 2 + ch) * 5 + i] - c.b[ch]) / c.g[ch];
                s += v;
                s2 += v * v;
            }
        assert_true(fabs(s / 15) < 1e-4);
        assert_true(fabs(s2 / 15 - 1) < 1e-3);
    }
    float dinp[30], dg[2], db[2];
    cpu->bn_backward(dinp, dg, db, c.R, c.inp, c.g, c.mean, c.rstd, 3, 2, 5);
    check_fd(bn_loss, &c, c.inp, 30, dinp, "bn dinp", 2e-3);
    check_fd(bn_loss, &c, c.g, 2, dg, "bn dgamma", 1e-3);
    check_fd(bn_loss, &c, c.b, 2, db, "bn dbeta", 1e-3);
}

typedef struct pool_ctx {
    float inp[2 * 4 * 4], out[2 * 2 * 2], R[8];
    int32_t idx[8];
} pool_ctx;

static double pool_loss(void *p)
{
    pool_ctx *c = p;
    cpu->maxpool_forward(c->out, c->idx, c->inp, 1, 2, 4, 4);
    return dot(c->out, c->R, 8);
}

static void test_grad_pool_relu(void **state)
{
    (void)state;
    pool_ctx c;
    cs_rng r;
    cs_rng_init(&r, 4, 0);
    /* distinct values, far apart (no ties within h) */
    for (int i = 0; i < 32; i++)
        c.inp[i] = (float)((i * 7) % 32) * 0.1f;
    fill(c.R, 8, &r, 1);
    pool_loss(&c);
    float dinp[32];
    cpu->maxpool_backward(dinp, c.R, c.idx, 1, 2, 4, 4);
    check_fd(pool_loss, &c, c.inp, 32, dinp, "maxpool dinp", 1e-3);
    float x[6] = {-1, 2, 0.5f, -0.25f, 3, -2}, y[6], d[6] = {1, 2, 3, 4, 5, 6}, dx[6];
    cpu->relu_forward(y, x, 6);
    cpu->relu_backward(dx, d, y, 6);
    for (int i = 0; i < 6; i++) {
        assert_true(y[i] == (x[i] > 0 ? x[i] : 0));
        assert_true(dx[i] == (x[i] > 0 ? d[i] : 0));
    }
}

typedef struct ce_ctx {
    float z[4 * 10], p[40], l[4];
    int32_t y[4];
} ce_ctx;

static double ce_loss(void *q)
{
    ce_ctx *c = q;
    cpu->softmax_ce_forward(c->p, c->l, c->z, c->y, 4, 10);
    return (c->l[0] + c->l[1] + c->l[2] + c->l[3]) / 4.0;
}

static void test_grad_softmax_ce(void **state)
{
    (void)state;
    ce_ctx c;
    cs_rng r;
    cs_rng_init(&r, 5, 0);
    fill(c.z, 40, &r, 2);
    for (int i = 0; i < 4; i++)
        c.y[i] = (int32_t)(i * 3 % 10);
    ce_loss(&c);
    for (int b = 0; b < 4; b++) {   /* loss = logsumexp − z_y, in double */
        double s = 0;
        for (int k = 0; k < 10; k++)
            s += exp((double)c.z[b * 10 + k]);
        assert_true(fabs(log(s) - c.z[b * 10 + c.y[b]] - c.l[b]) < 1e-5);
    }
    float d[40];
    cpu->softmax_ce_backward(d, c.p, c.y, 4, 10);
    check_fd(ce_loss, &c, c.z, 40, d, "softmax-ce dlogits", 1e-3);
}

/* ------------------------------------------------------------------ regularizers */

static void test_reg_kernels(void **state)
{
    (void)state;
    const char *names[] = {"bin", "osb", "ter", "bbin", "binexp", "l2l1", "l2l1h"};
    int kinds[] = {CS_NN_REGK_BIN, CS_NN_REGK_OSB, CS_NN_REGK_TER, CS_NN_REGK_BBIN,
                   CS_NN_REGK_BINEXP, CS_NN_REGK_L2L1, CS_NN_REGK_L2L1H};
    enum { R = 3, N = 37 };
    cs_rng r;
    cs_rng_init(&r, 6, 0);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        cs_reg *reg;
        cs_err err;
        assert_int_equal(cs_reg_new(&reg, names[k], NULL, 0, 1, &err), 0);
        float w[R * N], g[R * N] = {0};
        double val[R];
        fill(w, R * N, &r, 0.7);
        cpu->reg_rows(g, val, w, R, N, kinds[k], 1.0f);
        for (int i = 0; i < R; i++) {
            double x[N], gd[N], v;
            for (int j = 0; j < N; j++)
                x[j] = w[i * N + j];
            assert_int_equal(cs_reg_eval(reg, x, 1, N, &v, gd, &err), 0);
            if (fabs(v - val[i]) > 1e-9 * fmax(1.0, fabs(v)))
                fail_msg("%s: value %.17g, cs_reg_eval %.17g", names[k], val[i], v);
            float gf[N];
            for (int j = 0; j < N; j++)
                gf[j] = (float)gd[j];
            double e = rel_err(g + i * N, gf, N, 1e-6);
            if (e > 1e-4)
                fail_msg("%s: gradient rel err %.3g", names[k], e);
        }
        cs_reg_free(reg);
    }
}

/* ------------------------------------------------------------------ Adam */

static void test_adam_step(void **state)
{
    (void)state;
    float p[2] = {1.0f, -2.0f}, g[2] = {0.5f, 0.0f}, m[2] = {0}, v[2] = {0};
    /* the constants as the float code sees them */
    const double lr = (double)1e-3f, b1 = (double)0.9f, b2 = (double)0.999f, eps = (double)1e-8f;
    const double c1 = (double)(1.0f - 0.9f), c2 = (double)(1.0f - 0.999f);
    cpu->adam_update(p, g, m, v, 2, (float)lr, 0.9f, 0.999f, 1e-8f, 1);
    /* t=1: m̂ = g, v̂ = g², step = lr·g/(|g|+eps) */
    assert_true(fabs(p[0] - (1.0 - lr * 0.5 / (0.5 + eps))) < 1e-7);
    assert_true(p[1] == -2.0f);   /* zero gradient, zero moments: no move */
    g[0] = -1.0f;
    cpu->adam_update(p, g, m, v, 2, (float)lr, 0.9f, 0.999f, 1e-8f, 2);
    double m2 = b1 * c1 * 0.5 + c1 * -1.0;
    double v2 = b2 * c2 * 0.25 + c2 * 1.0;
    double mh = m2 / (1 - b1 * b1), vh = v2 / (1 - b2 * b2);
    double p2 = (1.0 - lr * 0.5 / (0.5 + eps)) - lr * mh / (sqrt(vh) + eps);
    assert_true(fabs(m[0] - m2) < 1e-7);
    assert_true(fabs(v[0] - v2) < 1e-9);
    if (fabs(p[0] - p2) > 1e-6 * fabs(p2))
        fail_msg("adam step 2: %.9g, expected %.9g", p[0], p2);
}

/* ------------------------------------------------------------------ IDX reader */

static char tmpdir[256];

static void put_be32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

/* An IDX file with `declared` items but `actual` items of payload. */
static void write_idx(const char *path, int ndim, uint32_t declared, uint32_t actual,
                      uint32_t magic_byte, int gz)
{
    unsigned char hdr[16];
    hdr[0] = hdr[1] = 0;
    hdr[2] = 8;
    hdr[3] = (unsigned char)magic_byte;
    put_be32(hdr + 4, declared);
    size_t hl = 8, item = 1;
    if (ndim == 3) {
        put_be32(hdr + 8, 28);
        put_be32(hdr + 12, 28);
        hl = 16;
        item = 784;
    }
    size_t n = actual * item;
    unsigned char *d = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)(ndim == 1 ? i % 10 : i % 251);
    if (gz) {
        gzFile f = gzopen(path, "wb");
        gzwrite(f, hdr, (unsigned)hl);
        if (n)
            gzwrite(f, d, (unsigned)n);
        gzclose(f);
    } else {
        FILE *f = fopen(path, "wb");
        fwrite(hdr, 1, hl, f);
        fwrite(d, 1, n, f);
        fclose(f);
    }
    free(d);
}

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void expect_error(const char *path, int ndim, const char *needle)
{
    uint8_t *data;
    uint32_t dims[3];
    cs_err err = {0};
    int rc = cs_idx_read(path, ndim, &data, dims, &err);
    if (rc == 0)
        fail_msg("%s: read succeeded, expected an error with '%s'", path, needle);
    if (!strstr(err.msg, needle) || !strstr(err.msg, path))
        fail_msg("message '%s' lacks '%s' or the file name", err.msg, needle);
    assert_null(data);
}

static void test_idx_reader(void **state)
{
    (void)state;
    char p[512], q[512];
    path_of(p, sizeof p, "train-images-idx3-ubyte.gz");
    path_of(q, sizeof q, "train-labels-idx1-ubyte.gz");
    write_idx(p, 3, 3, 3, 3, 1);
    write_idx(q, 1, 3, 3, 1, 1);
    uint8_t *data;
    uint32_t dims[3];
    cs_err err;
    assert_int_equal(cs_idx_read(p, 3, &data, dims, &err), 0);
    assert_int_equal(dims[0], 3);
    assert_int_equal(dims[1], 28);
    assert_int_equal(data[1000], 1000 % 251);
    free(data);
    cs_nn_data d;
    assert_int_equal(cs_nn_data_load(&d, tmpdir, "train", 0, &err), 0);
    assert_int_equal(d.n, 3);
    assert_int_equal(d.labels[2], 2);
    cs_nn_data_free(&d);
    assert_int_equal(cs_nn_data_load(&d, tmpdir, "train", 2, &err), 0);
    assert_int_equal(d.n, 2);
    cs_nn_data_free(&d);
    /* plain (not gzip'd) files read the same */
    path_of(p, sizeof p, "plain-idx3");
    write_idx(p, 3, 2, 2, 3, 0);
    assert_int_equal(cs_idx_read(p, 3, &data, dims, &err), 0);
    free(data);
    /* bad magic */
    path_of(p, sizeof p, "magic.gz");
    write_idx(p, 1, 3, 3, 9, 1);
    expect_error(p, 1, "bad magic");
    /* truncated payload */
    path_of(p, sizeof p, "trunc.gz");
    write_idx(p, 3, 5, 3, 3, 1);
    expect_error(p, 3, "truncated");
    /* trailing data */
    path_of(p, sizeof p, "trail.gz");
    write_idx(p, 1, 3, 5, 1, 1);
    expect_error(p, 1, "trailing");
    /* corrupt gzip: flip bytes inside the deflate stream */
    path_of(p, sizeof p, "corrupt.gz");
    write_idx(p, 3, 4, 4, 3, 1);
    FILE *f = fopen(p, "r+b");
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    unsigned char junk[16];
    memset(junk, 0xA5, sizeof junk);
    fseek(f, len / 2, SEEK_SET);
    fwrite(junk, 1, sizeof junk, f);
    fclose(f);
    expect_error(p, 3, "corrupt");
    /* cut gzip file */
    path_of(p, sizeof p, "cut.gz");
    write_idx(p, 3, 4, 4, 3, 1);
    assert_int_equal(truncate(p, 40), 0);
    uint8_t *dd;
    cs_err e2 = {0};
    assert_true(cs_idx_read(p, 3, &dd, dims, &e2) < 0);
    assert_non_null(strstr(e2.msg, p));
    /* missing file, count mismatch between images and labels */
    path_of(p, sizeof p, "nope.gz");
    expect_error(p, 1, "cannot open");
    path_of(q, sizeof q, "train-labels-idx1-ubyte.gz");
    write_idx(q, 1, 2, 2, 1, 1);
    assert_true(cs_nn_data_load(&d, tmpdir, "train", 0, &err) < 0);
    assert_non_null(strstr(err.msg, "labels"));
}

/* ------------------------------------------------------------------ quantizers */

static void test_quantizers(void **state)
{
    (void)state;
    cs_rng r;
    cs_rng_init(&r, 7, 0);
    for (size_t n = 1; n <= 60; n++) {
        float w[60], q[60], tau;
        fill(w, n, &r, 1);
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += fabs(w[i]);
        float a = cs_quant_binary(w, n, q);
        assert_true(fabs(a - s / (double)n) < 1e-6 * (1 + s));
        for (size_t i = 0; i < n; i++)
            assert_true(q[i] == (w[i] < 0 ? -a : a));
        /* ternary: brute force over every threshold |w_i| */
        double best = -1, bt = 0;
        for (size_t i = 0; i < n; i++) {
            double t = fabs(w[i]), sum = 0;
            size_t cnt = 0;
            for (size_t j = 0; j < n; j++)
                if (fabs(w[j]) >= t) {
                    sum += fabs(w[j]);
                    cnt++;
                }
            if (sum * sum / (double)cnt > best) {
                best = sum * sum / (double)cnt;
                bt = t;
            }
        }
        a = cs_quant_ternary(w, n, q, &tau, NULL);
        assert_true(tau == (float)bt);
        double sum = 0, err2 = 0, best_err = 0;
        size_t cnt = 0;
        for (size_t j = 0; j < n; j++)
            if (fabs(w[j]) >= bt) {
                sum += fabs(w[j]);
                cnt++;
            }
        assert_true(fabs(a - sum / (double)cnt) < 1e-6);
        for (size_t j = 0; j < n; j++) {
            double qq = fabs(w[j]) >= bt ? (w[j] < 0 ? -a : a) : 0;
            assert_true(q[j] == (float)qq);
            err2 += (w[j] - q[j]) * (w[j] - q[j]);
        }
        /* it is the closest point of {−α,0,α}^n over a grid of α and thresholds */
        best_err = INFINITY;
        for (double aa = 0.01; aa < 3; aa += 0.01) {
            double e = 0;
            for (size_t j = 0; j < n; j++) {
                double x = w[j], d0 = x * x, d1 = (fabs(x) - aa) * (fabs(x) - aa);
                e += d0 < d1 ? d0 : d1;
            }
            if (e < best_err)
                best_err = e;
        }
        assert_true(err2 <= best_err + 1e-6);
    }
    float z[4] = {0}, q[4], tau;
    assert_true(cs_quant_ternary(z, 4, q, &tau, NULL) == 0.0f);
    for (int i = 0; i < 4; i++)
        assert_true(q[i] == 0.0f);
    /* exact counts with user edges */
    float x[7] = {-1.0f, -0.5f, 0.0f, 0.25f, 0.5f, 1.0f, 2.0f};
    double edges[4] = {-1.0, 0.0, 0.5, 1.0};
    uint64_t c[3];
    cs_nn_hist_counts(x, 7, edges, 3, c);
    assert_int_equal(c[0], 2);
    assert_int_equal(c[1], 2);
    assert_int_equal(c[2], 2);
}

/* ------------------------------------------------------------------ whole networks */

static cs_nn_data synth(size_t n, uint64_t seed)
{
    cs_nn_data d;
    d.n = n;
    d.images = malloc(n * CS_NN_PIXELS);
    d.labels = malloc(n);
    cs_rng r;
    cs_rng_init(&r, seed, 0);
    for (size_t i = 0; i < n; i++) {
        int y = (int)(i % CS_NN_CLASSES);
        d.labels[i] = (uint8_t)y;
        for (int p = 0; p < CS_NN_PIXELS; p++)   /* class = a bright band */
            d.images[i * CS_NN_PIXELS + p] =
                (uint8_t)((p / 28) / 3 == y ? 200 + cs_rng_below(&r, 55) : cs_rng_below(&r, 60));
    }
    return d;
}

static cs_nn *tiny(cs_nn_kind kind, uint64_t seed)
{
    cs_nn_config cfg = {.kind = kind, .seed = seed, .nhidden = 1};
    cfg.hidden[0] = kind == CS_NN_MLP ? 16 : 8;
    if (kind == CS_NN_MLP) {
        cfg.nhidden = 2;
        cfg.hidden[1] = 12;
    }
    cs_nn *nn;
    cs_err err;
    if (cs_nn_new(&nn, &cfg, &err))
        fail_msg("%s", err.msg);
    return nn;
}

static void get_all(cs_nn *nn, float *buf, size_t *n)
{
    size_t k = 0;
    cs_err err;
    for (size_t i = 0; i < cs_nn_wlayer_count(nn); i++) {
        cs_nn_wlayer_info li;
        cs_nn_wlayer(nn, i, &li);
        assert_int_equal(cs_nn_wlayer_get(nn, i, buf + k, &err), 0);
        k += li.rows * li.cols;
    }
    *n = k;
}

static void test_train_determinism(void **state)
{
    (void)state;
    cs_nn_data d = synth(64, 1);
    size_t n1, n2;
    float *a = malloc(400000 * sizeof *a), *b = malloc(400000 * sizeof *b);
    cs_reg *reg;
    cs_err err;
    assert_int_equal(cs_reg_new(&reg, "bin", NULL, 0, 1, &err), 0);
    for (int kind = 0; kind < 2; kind++) {
        cs_nn *x = tiny((cs_nn_kind)kind, 5), *y = tiny((cs_nn_kind)kind, 5);
        cs_nn_train_opts o = {.epochs = 2, .batch = 16, .augment = 1, .reg = reg, .lambda = 1};
        cs_nn_train_report rx, ry;
        assert_int_equal(cs_nn_train(x, &d, &o, &rx, &err), 0);
        assert_int_equal(cs_nn_train(y, &d, &o, &ry, &err), 0);
        get_all(x, a, &n1);
        get_all(y, b, &n2);
        assert_int_equal(n1, n2);
        assert_memory_equal(a, b, n1 * sizeof *a);
        assert_true(rx.loss == ry.loss && rx.reg_value == ry.reg_value);
        assert_int_equal(rx.epochs_done, 2);
        assert_true(rx.reg_value > 0);
        assert_true(cs_nn_snapshot_count(x) == 3);
        /* a second run starts where the first ended: no second frame of the same weights */
        o.epochs = 1;
        assert_int_equal(cs_nn_train(x, &d, &o, &rx, &err), 0);
        assert_true(cs_nn_snapshot_count(x) == 4);
        size_t s2, s3;
        const float *w2, *w3;
        assert_int_equal(cs_nn_snapshot(x, 2, 0, &w2, &s2, NULL), 0);
        assert_int_equal(cs_nn_snapshot(x, 3, 0, &w3, &s3, NULL), 0);
        assert_true(s3 > s2);
        cs_nn_free(x);
        cs_nn_free(y);
    }
    cs_reg_free(reg);
    free(a);
    free(b);
    cs_nn_data_free(&d);
}

static void test_learns_and_quantizes(void **state)
{
    (void)state;
    cs_nn_data d = synth(200, 2);
    cs_nn *nn = tiny(CS_NN_MLP, 3);
    cs_err err;
    cs_nn_train_opts o = {.epochs = 8, .batch = 20, .lr = 3e-3};
    cs_nn_train_report rep;
    assert_int_equal(cs_nn_train(nn, &d, &o, &rep, &err), 0);
    double acc, loss;
    assert_int_equal(cs_nn_evaluate(nn, &d, &acc, &loss, &err), 0);
    if (acc < 0.9)
        fail_msg("accuracy %.3f on the separable synthetic set", acc);
    cs_nn_quant_report q;
    assert_int_equal(cs_nn_quantize(nn, 0, CS_NN_EXCL_DEFAULT, &q, &err), 0);
    assert_int_equal(q.nlayers, 2);   /* fc1, fc2 (fc3 is the last) */
    assert_true(q.compression > 10);
    /* the weights are now α_r · sign, α_r = mean |w_r| of before */
    float w[16 * 784], alpha[16];
    assert_int_equal(cs_nn_wlayer_get(nn, 0, w, &err), 0);
    assert_int_equal(cs_nn_wlayer_alpha(nn, 0, alpha, &err), 0);
    for (int r = 0; r < 16; r++)
        for (int j = 0; j < 784; j++)
            assert_true(fabsf(w[r * 784 + j]) == alpha[r]);
    o.finetune = 1;
    o.epochs = 1;
    assert_int_equal(cs_nn_train(nn, &d, &o, &rep, &err), 0);
    float w2[16 * 784], a2[16];
    assert_int_equal(cs_nn_wlayer_get(nn, 0, w2, &err), 0);
    assert_int_equal(cs_nn_wlayer_alpha(nn, 0, a2, &err), 0);
    for (int r = 0; r < 16; r++)   /* signs fixed, scales trained */
        for (int j = 0; j < 784; j++) {
            assert_true((w2[r * 784 + j] < 0) == (w[r * 784 + j] < 0));
            assert_true(fabsf(w2[r * 784 + j]) == a2[r]);
        }
    cs_nn_free(nn);
    cs_nn_data_free(&d);
}

static void test_save_load(void **state)
{
    (void)state;
    cs_nn_data d = synth(40, 3);
    cs_err err;
    for (int kind = 0; kind < 2; kind++) {
        cs_nn *nn = tiny((cs_nn_kind)kind, 4);
        cs_nn_train_opts o = {.epochs = 1, .batch = 10};
        cs_nn_train_report rep;
        assert_int_equal(cs_nn_train(nn, &d, &o, &rep, &err), 0);
        cs_nn_quant_report q;
        assert_int_equal(cs_nn_quantize(nn, 1, CS_NN_EXCL_DEFAULT, &q, &err), 0);
        char p[512];
        path_of(p, sizeof p, "m.csnn");
        assert_int_equal(cs_nn_save(nn, p, 1, &err), 0);
        assert_true(cs_nn_save(nn, p, 0, &err) < 0);   /* exists, no force */
        cs_nn *m;
        if (cs_nn_load(&m, p, "cpu", 1, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(cs_nn_is_quantized(m), 2);
        double a1, l1, a2, l2;
        assert_int_equal(cs_nn_evaluate(nn, &d, &a1, &l1, &err), 0);
        assert_int_equal(cs_nn_evaluate(m, &d, &a2, &l2, &err), 0);
        assert_true(a1 == a2 && l1 == l2);
        float *x = malloc(400000 * sizeof *x), *y = malloc(400000 * sizeof *y);
        size_t n1, n2;
        get_all(nn, x, &n1);
        get_all(m, y, &n2);
        assert_memory_equal(x, y, n1 * sizeof *x);
        free(x);
        free(y);
        cs_nn_free(m);
        /* one flipped byte: CRC refuses */
        FILE *f = fopen(p, "r+b");
        fseek(f, 500, SEEK_SET);
        int c = fgetc(f);
        fseek(f, 500, SEEK_SET);
        fputc(c ^ 0x10, f);
        fclose(f);
        assert_true(cs_nn_load(&m, p, "cpu", 1, &err) < 0);
        assert_non_null(strstr(err.msg, "CRC"));
        /* truncated */
        assert_int_equal(cs_nn_save(nn, p, 1, &err), 0);
        assert_int_equal(truncate(p, 300), 0);
        assert_true(cs_nn_load(&m, p, "cpu", 1, &err) < 0);
        /* not a model */
        path_of(p, sizeof p, "train-images-idx3-ubyte.gz");
        assert_true(cs_nn_load(&m, p, "cpu", 1, &err) < 0);
        assert_non_null(strstr(err.msg, "magic"));
        cs_nn_free(nn);
    }
    cs_nn_data_free(&d);
}

/* ------------------------------------------------------------------ CPU/CUDA parity */

#ifdef CSREG_HAVE_CUDA
static const cs_nn_ops *gpu = &cs_nn_cuda_ops;

/* upload host data to a fresh device buffer */
static void *dev(const void *h, size_t bytes)
{
    void *p = gpu->alloc(bytes);
    assert_non_null(p);
    if (h)
        gpu->upload(p, h, bytes);
    return p;
}

static void cmp(const char *what, const float *cpu_v, const float *gpu_dev, size_t n)
{
    float *h = malloc(n * sizeof *h);
    gpu->download(h, gpu_dev, n * sizeof *h);
    double e = rel_err(h, cpu_v, n, 1e-6);
    print_message("parity %-22s n=%-8zu max rel err %.2e\n", what, n, e);
    if (e > 1e-4)
        fail_msg("%s: CPU/CUDA max relative error %.3g > 1e-4", what, e);
    free(h);
}
#endif

static void test_parity_cpu_cuda(void **state)
{
    (void)state;
#ifndef CSREG_HAVE_CUDA
    print_message("parity: built without CUDA; skipped\n");
    skip();
#else
    cs_err err;
    if (cs_nn_device_check("cuda", &err)) {
        print_message("parity: %s; skipped\n", err.msg);
        skip();
    }
    cs_rng r;
    cs_rng_init(&r, 9, 0);
    enum { B = 8, C = 16, H = 14, OC = 32, K = 10, IN = 300, OUT = 64 };
    size_t nin = (size_t)B * C * H * H, nout = (size_t)B * OC * H * H, nw = (size_t)OC * C * 9;
    float *x = malloc(nin * 4), *w = malloc(nw * 4), *y = malloc(nout * 4), *dy = malloc(nout * 4),
          *dx = malloc(nin * 4), *dw = malloc(nw * 4),
          *scr = malloc((size_t)(C * 9 + OC) * B * H * H * 4);
    fill(x, nin, &r, 1);
    fill(w, nw, &r, 0.1);
    fill(dy, nout, &r, 1);
    /* conv */
    float *gx = dev(x, nin * 4), *gw = dev(w, nw * 4), *gy = dev(NULL, nout * 4),
          *gdy = dev(dy, nout * 4), *gdx = dev(NULL, nin * 4), *gdw = dev(NULL, nw * 4),
          *gscr = dev(NULL, (size_t)(C * 9 + OC) * B * H * H * 4);
    cpu->conv_forward(y, x, w, scr, B, C, H, H, OC);
    gpu->conv_forward(gy, gx, gw, gscr, B, C, H, H, OC);
    cmp("conv forward", y, gy, nout);
    cpu->conv_backward(dx, dw, dy, x, w, scr, B, C, H, H, OC);
    gpu->conv_backward(gdx, gdw, gdy, gx, gw, gscr, B, C, H, H, OC);
    cmp("conv backward dinp", dx, gdx, nin);
    cmp("conv backward dw", dw, gdw, nw);
    /* batch norm (train), relu, pool on the conv output */
    float g[OC], be[OC], mu[OC], rs[OC], rm[OC] = {0}, rv[OC], dg[OC], db[OC];
    for (int i = 0; i < OC; i++) {
        g[i] = 1.0f + 0.1f * (float)i;
        be[i] = 0.05f * (float)i;
        rv[i] = 1.0f;
    }
    float *bn = malloc(nout * 4), *dbn = malloc(nout * 4);
    float *gg = dev(g, sizeof g), *gbe = dev(be, sizeof be), *gmu = dev(NULL, sizeof mu),
          *grs = dev(NULL, sizeof rs), *grm = dev(rm, sizeof rm), *grv = dev(rv, sizeof rv),
          *gdg = dev(NULL, sizeof dg), *gdb = dev(NULL, sizeof db), *gbn = dev(NULL, nout * 4),
          *gdbn = dev(NULL, nout * 4);
    cpu->bn_forward(bn, y, g, be, mu, rs, rm, rv, B, OC, H * H, 1);
    gpu->bn_forward(gbn, gy, gg, gbe, gmu, grs, grm, grv, B, OC, H * H, 1);
    cmp("bn forward", bn, gbn, nout);
    cmp("bn running var", rv, grv, OC);
    cpu->bn_backward(dbn, dg, db, dy, y, g, mu, rs, B, OC, H * H);
    gpu->bn_backward(gdbn, gdg, gdb, gdy, gy, gg, gmu, grs, B, OC, H * H);
    cmp("bn backward dinp", dbn, gdbn, nout);
    cmp("bn backward dgamma", dg, gdg, OC);
    cmp("bn backward dbeta", db, gdb, OC);
    cpu->relu_forward(bn, y, nout);
    gpu->relu_forward(gbn, gy, nout);
    cmp("relu forward", bn, gbn, nout);
    cpu->relu_backward(dbn, dy, bn, nout);
    gpu->relu_backward(gdbn, gdy, gbn, nout);
    cmp("relu backward", dbn, gdbn, nout);
    size_t np = nout / 4;
    int32_t *ix = malloc(np * 4), *gix = dev(NULL, np * 4);
    cpu->maxpool_forward(dx, ix, y, B, OC, H, H);
    gpu->maxpool_forward(gdx, gix, gy, B, OC, H, H);
    cmp("maxpool forward", dx, gdx, np);
    cpu->maxpool_backward(bn, dy, ix, B, OC, H, H);
    gpu->maxpool_backward(gbn, gdy, gix, B, OC, H, H);
    cmp("maxpool backward", bn, gbn, nout);
    /* dense + softmax cross-entropy */
    float *a = malloc(B * IN * 4), *wd = malloc(OUT * IN * 4), *bd = malloc(OUT * 4),
          *o = malloc(B * OUT * 4), *dwd = malloc(OUT * IN * 4), *dbd = malloc(OUT * 4),
          *da = malloc(B * IN * 4);
    fill(a, B * IN, &r, 1);
    fill(wd, OUT * IN, &r, 0.1);
    fill(bd, OUT, &r, 0.1);
    float *ga = dev(a, B * IN * 4), *gwd = dev(wd, OUT * IN * 4), *gbd = dev(bd, OUT * 4),
          *go = dev(NULL, B * OUT * 4), *gdwd = dev(NULL, OUT * IN * 4),
          *gdbd = dev(NULL, OUT * 4), *gda = dev(NULL, B * IN * 4);
    cpu->matmul_forward(o, a, wd, bd, B, IN, OUT);
    gpu->matmul_forward(go, ga, gwd, gbd, B, IN, OUT);
    cmp("matmul forward", o, go, B * OUT);
    int32_t lab[B];
    for (int i = 0; i < B; i++)
        lab[i] = i % K;
    float pr[B * K], ls[B], dl[B * K];
    int32_t *glab = dev(lab, sizeof lab);
    float *gpr = dev(NULL, sizeof pr), *gls = dev(NULL, sizeof ls), *gdl = dev(NULL, sizeof dl);
    cpu->softmax_ce_forward(pr, ls, o, lab, B, K);
    gpu->softmax_ce_forward(gpr, gls, go, glab, B, K);
    cmp("softmax-ce probs", pr, gpr, B * K);
    cmp("softmax-ce losses", ls, gls, B);
    cpu->softmax_ce_backward(dl, pr, lab, B, K);
    gpu->softmax_ce_backward(gdl, gpr, glab, B, K);
    cmp("softmax-ce dlogits", dl, gdl, B * K);
    cpu->matmul_backward(da, dwd, dbd, o, a, wd, B, IN, OUT);
    gpu->matmul_backward(gda, gdwd, gdbd, go, ga, gwd, B, IN, OUT);
    cmp("matmul backward dinp", da, gda, B * IN);
    cmp("matmul backward dw", dwd, gdwd, OUT * IN);
    cmp("matmul backward dbias", dbd, gdbd, OUT);
    /* regularizers on the dense weights (value and gradient), then Adam */
    for (int kind = CS_NN_REGK_BIN; kind <= CS_NN_REGK_L2L1H; kind++) {
        double val[OUT], gval[OUT];
        double *gv = dev(NULL, sizeof gval);
        float *gd = dev(dwd, OUT * IN * 4), *cd = malloc(OUT * IN * 4);
        memcpy(cd, dwd, OUT * IN * 4);
        cpu->reg_rows(cd, val, wd, OUT, IN, kind, 0.5f);
        gpu->reg_rows(gd, gv, gwd, OUT, IN, kind, 0.5f);
        gpu->download(gval, gv, sizeof gval);
        float fv[OUT], fg[OUT];
        for (int i = 0; i < OUT; i++) {
            fv[i] = (float)val[i];
            fg[i] = (float)gval[i];
        }
        char name[64];
        snprintf(name, sizeof name, "reg kind %d value", kind);
        double e = rel_err(fg, fv, OUT, 1e-12);
        print_message("parity %-22s n=%-8d max rel err %.2e\n", name, OUT, e);
        assert_true(e <= 1e-4);
        snprintf(name, sizeof name, "reg kind %d grad", kind);
        cmp(name, cd, gd, OUT * IN);
        gpu->release(gv);
        gpu->release(gd);
        free(cd);
    }
    float *m = calloc(OUT * IN, 4), *v = calloc(OUT * IN, 4);
    float *gm = dev(m, OUT * IN * 4), *gvv = dev(v, OUT * IN * 4);
    cpu->adam_update(wd, dwd, m, v, OUT * IN, 1e-3f, 0.9f, 0.999f, 1e-8f, 1);
    gpu->adam_update(gwd, gdwd, gm, gvv, OUT * IN, 1e-3f, 0.9f, 0.999f, 1e-8f, 1);
    cmp("adam params", wd, gwd, OUT * IN);
    cmp("adam m", m, gm, OUT * IN);
    cmp("adam v", v, gvv, OUT * IN);
    uint32_t hc[20], *ghc = dev(NULL, sizeof hc);
    cpu->hist(hc, wd, OUT * IN, -0.3f, 0.3f, 20);
    gpu->hist(ghc, gwd, OUT * IN, -0.3f, 0.3f, 20);
    uint32_t hg[20];
    gpu->download(hg, ghc, sizeof hg);
    for (int i = 0; i < 20; i++)   /* same bins up to values on an edge */
        assert_true(abs((int)hc[i] - (int)hg[i]) <= 2);
    void *gbufs[] = {gx, gw, gy, gdy, gdx, gdw, gscr, gg, gbe, gmu, grs, grm, grv, gdg, gdb, gbn,
                     gdbn, gix, ga, gwd, gbd, go, gdwd, gdbd, gda, glab, gpr, gls, gdl, gm, gvv,
                     ghc};
    for (size_t i = 0; i < sizeof gbufs / sizeof gbufs[0]; i++)
        gpu->release(gbufs[i]);
    void *hbufs[] = {x, w, y, dy, dx, dw, scr, bn, dbn, ix, a, wd, bd, o, dwd, dbd, da, m, v};
    for (size_t i = 0; i < sizeof hbufs / sizeof hbufs[0]; i++)
        free(hbufs[i]);
#endif
}

static void test_device_errors(void **state)
{
    (void)state;
    cs_err err;
    assert_true(cs_nn_device_check("tpu", &err) < 0);
    int rc = cs_nn_device_check("cuda", &err);
    if (rc)   /* no GPU or no CUDA build: a clear error, never a crash */
        assert_non_null(strstr(err.msg, "cuda"));
    cs_nn_config cfg = {.kind = CS_NN_MLP, .device = "cuda"};
    cs_nn *nn = NULL;
    if (rc) {
        assert_true(cs_nn_new(&nn, &cfg, &err) < 0);
        assert_null(nn);
    }
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/csreg-test-nn-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    /* remove the files this suite wrote */
    const char *names[] = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                           "plain-idx3", "magic.gz", "trunc.gz", "trail.gz", "corrupt.gz",
                           "cut.gz", "m.csnn"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s/%s", tmpdir, names[i]);
        unlink(cmd);
    }
    rmdir(tmpdir);
    return 0;
}

int main(void)
{
    cs_nn_cpu_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grad_dense),
        cmocka_unit_test(test_grad_conv),
        cmocka_unit_test(test_grad_bn),
        cmocka_unit_test(test_grad_pool_relu),
        cmocka_unit_test(test_grad_softmax_ce),
        cmocka_unit_test(test_reg_kernels),
        cmocka_unit_test(test_adam_step),
        cmocka_unit_test(test_idx_reader),
        cmocka_unit_test(test_quantizers),
        cmocka_unit_test(test_train_determinism),
        cmocka_unit_test(test_learns_and_quantizes),
        cmocka_unit_test(test_save_load),
        cmocka_unit_test(test_parity_cpu_cuda),
        cmocka_unit_test(test_device_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
