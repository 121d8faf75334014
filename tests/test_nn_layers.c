/* test_nn_layers.c — the network engine's CPU ops against independent
 * computations: central finite differences (in double, of the float ops)
 * for every layer's gradient, cs_reg_eval (double) for the float
 * regularizer kernels, Adam against its formulas written out, and the
 * quantizers against brute force. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blas.h"
#include "cs_nn.h"
#include "cs_rng.h"
#include "nn_backend.h"
#include "nn_util.h"

static double dot(const float *a, const float *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
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
        R[CB * COC * CH * CH], scratch[CS_NN_CONV_SCRATCH(CB, CC, CH, CH, COC)];
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

/* bn_relu_forward/backward give the very bits of bn then relu, forward and
 * backward (37 per row: the 8-lane loops and their tails), in training and
 * in evaluation */
static void test_bn_relu_fused(void **state)
{
    (void)state;
    enum { B = 5, C = 3, HW = 37, N = B * C * HW };
    static float x[N], dout[N], y1[N], z1[N], z2[N], d1[N], dx1[N], dx2[N];
    float g[C], b[C], m1[C], r1[C], m2[C], r2[C], rm1[C], rv1[C], rm2[C], rv2[C];
    float dg1[C], db1[C], dg2[C], db2[C];
    cs_rng r;
    cs_rng_init(&r, 11, 0);
    fill(x, N, &r, 2);
    fill(dout, N, &r, 1);
    fill(g, C, &r, 1);
    fill(b, C, &r, 1);
    for (int train = 1; train >= 0; train--) {
        for (int c = 0; c < C; c++)
            rm1[c] = rm2[c] = 0.1f * (float)c, rv1[c] = rv2[c] = 1.0f + 0.5f * (float)c;
        cpu->bn_forward(y1, x, g, b, m1, r1, rm1, rv1, B, C, HW, train);
        cpu->relu_forward(z1, y1, N);
        cpu->bn_relu_forward(z2, x, g, b, m2, r2, rm2, rv2, B, C, HW, train);
        assert_memory_equal(z1, z2, sizeof z1);
        assert_memory_equal(rm1, rm2, sizeof rm1);
        assert_memory_equal(rv1, rv2, sizeof rv1);
        int zeros = 0;
        for (int i = 0; i < N; i++)
            zeros += z1[i] == 0.0f;
        assert_true(zeros > N / 4 && zeros < 3 * N / 4);   /* the mask matters */
    }
    float m[C], rs[C], rm[C], rv[C];
    cpu->bn_forward(y1, x, g, b, m, rs, rm, rv, B, C, HW, 1);
    cpu->relu_forward(z1, y1, N);
    cpu->relu_backward(d1, dout, z1, N);
    cpu->bn_backward(dx1, dg1, db1, d1, x, g, m, rs, B, C, HW);
    cpu->bn_relu_backward(dx2, dg2, db2, dout, z1, x, g, b, m, rs, B, C, HW);
    assert_memory_equal(dx1, dx2, sizeof dx1);
    assert_memory_equal(dg1, dg2, sizeof dg1);
    assert_memory_equal(db1, db2, sizeof db1);
}

/* bn_add_relu_forward/backward give the very bits of bn, residual and
 * relu forward, and of axpy, relu, residual and bn backward: the identity
 * shortcut (dres in dadd's place) and option A (rows of 70: two gathers
 * of 64 and the tails; dres in dout's place), in training and evaluation */
static void bn_add_relu_case(int C, int H, int W, int SC, int SH, int SW)
{
    enum { B = 3, MAXN = B * 4 * 2 * 140 };
    static float x[MAXN], sc[MAXN], dout[MAXN], e[MAXN], y1[MAXN], a1[MAXN], z1[MAXN],
        z2[MAXN], d1[MAXN], dA[MAXN], dx1[MAXN], dx2[MAXN], ds1[MAXN], ds2[MAXN], dres[MAXN];
    int HW = H * W, N = B * C * HW, SN = B * SC * SH * SW;
    int ident = SC == C && SH == H && SW == W;
    float g[4], b[4], m1[4], r1[4], m2[4], r2[4], rm1[4], rv1[4], rm2[4], rv2[4];
    float dg1[4], db1[4], dg2[4], db2[4];
    cs_rng r;
    cs_rng_init(&r, 13, (uint64_t)C);
    fill(x, N, &r, 2);
    fill(sc, SN, &r, 1);
    fill(dout, N, &r, 1);
    fill(e, N, &r, 1);
    fill(g, C, &r, 1);
    fill(b, C, &r, 1);
    for (int train = 0; train <= 1; train++) {
        for (int c = 0; c < C; c++)
            rm1[c] = rm2[c] = 0.1f * (float)c, rv1[c] = rv2[c] = 1.0f + 0.5f * (float)c;
        cpu->bn_forward(y1, x, g, b, m1, r1, rm1, rv1, B, C, HW, train);
        cpu->residual_forward(a1, y1, sc, B, C, H, W, SC, SH, SW);
        cpu->relu_forward(z1, a1, (size_t)N);
        cpu->bn_add_relu_forward(z2, x, sc, g, b, m2, r2, rm2, rv2, B, C, H, W, SC, SH, SW,
                                 train);
        assert_memory_equal(z1, z2, (size_t)N * sizeof *z1);
        assert_memory_equal(rm1, rm2, (size_t)C * sizeof *rm1);
        assert_memory_equal(rv1, rv2, (size_t)C * sizeof *rv1);
        int zeros = 0;
        for (int i = 0; i < N; i++)
            zeros += z1[i] == 0.0f;
        assert_true(zeros > N / 4 && zeros < 3 * N / 4);   /* the mask matters */
    }
    for (int pend = 0; pend <= 1; pend++) {
        memcpy(d1, dout, (size_t)N * sizeof *d1);
        if (pend)
            cpu->axpy(d1, e, 1.0f, (size_t)N);
        cpu->relu_backward(dA, d1, z1, (size_t)N);
        cpu->residual_backward(ds1, dA, B, C, H, W, SC, SH, SW);
        cpu->bn_backward(dx1, dg1, db1, dA, x, g, m1, r1, B, C, HW);
        /* identity: dres in e's buffer; option A: in dout's */
        memcpy(dres, ident ? e : dout, (size_t)N * sizeof *dres);
        const float *dd = ident ? dout : dres, *da = pend ? (ident ? dres : e) : NULL;
        cpu->bn_add_relu_backward(dx2, dg2, db2, dres, dd, da, z1, x, g, m1, r1, B, C, HW);
        assert_memory_equal(dres, dA, (size_t)N * sizeof *dA);
        cpu->residual_backward(ds2, dres, B, C, H, W, SC, SH, SW);
        assert_memory_equal(ds1, ds2, (size_t)SN * sizeof *ds1);
        assert_memory_equal(dx1, dx2, (size_t)N * sizeof *dx1);
        assert_memory_equal(dg1, dg2, (size_t)C * sizeof *dg1);
        assert_memory_equal(db1, db2, (size_t)C * sizeof *db1);
    }
}

static void test_bn_add_relu_fused(void **state)
{
    (void)state;
    bn_add_relu_case(3, 3, 13, 3, 3, 13);    /* identity, 39 a row: vectors and tails */
    bn_add_relu_case(4, 2, 70, 2, 4, 140);   /* option A, stride 2 */
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
    int kinds[] = {CS_REG_KERNEL_BIN, CS_REG_KERNEL_OSB, CS_REG_KERNEL_TER, CS_REG_KERNEL_BBIN,
                   CS_REG_KERNEL_BINEXP, CS_REG_KERNEL_L2L1, CS_REG_KERNEL_L2L1H};
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
        cpu->reg->rows(g, val, w, R, N, kinds[k], 1.0f);
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

int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grad_dense),
        cmocka_unit_test(test_grad_conv),
        cmocka_unit_test(test_grad_bn),
        cmocka_unit_test(test_bn_relu_fused),
        cmocka_unit_test(test_bn_add_relu_fused),
        cmocka_unit_test(test_grad_pool_relu),
        cmocka_unit_test(test_grad_softmax_ce),
        cmocka_unit_test(test_reg_kernels),
        cmocka_unit_test(test_adam_step),
        cmocka_unit_test(test_quantizers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
