/* test_nn_resnet.c — the ops and networks of issue #36: the k×k and
 * strided convolutions, the residual sum (identity and option A) and
 * global average pooling against finite differences and direct sums; the
 * cnn's channels=/kernel=/pad= and resnet20 planned as documented
 * (shapes, names, parameter counts, exclusions); whole-network gradients of
 * resnet20 against finite differences; its training giving the same bits on
 * 1 and 2 threads and learning a separable set; eta=layer against eta=row;
 * checkpoints of version 2. */
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

#include "cs_blas.h"
#include "cs_nn.h"
#include "cs_par.h"
#include "cs_rng.h"
#include "nn_backend.h"
#include "nn_internal.h"
#include "nn_util.h"
#include "sanitized.h"

static double dot(const float *a, const float *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
}

/* The largest |finite difference − analytic| over the largest |analytic|
 * (at least 1e-3), for loss f of the floats x[0..n). */
static double fd_error(double (*f)(void *), void *ctx, float *x, size_t n, const float *g)
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
        double e = fabs((lp - lm) / (2 * h) - g[i]) / scale;
        worst = e > worst ? e : worst;
    }
    return worst;
}

/* ------------------------------------------------------------------ convk */

typedef struct convk_ctx {
    int B, C, H, W, OC, k, s, OH, OW;
    float *inp, *w, *out, *R, *scratch;
} convk_ctx;

static double convk_loss(void *p)
{
    convk_ctx *c = p;
    cpu->convk_forward(c->out, c->inp, c->w, c->scratch, c->B, c->C, c->H, c->W, c->OC, c->k,
                       c->s);
    return dot(c->out, c->R, (size_t)c->B * c->OC * c->OH * c->OW);
}

/* forward against the direct sum, dinp and dw against finite differences */
static void check_convk(int B, int C, int H, int W, int OC, int k, int s)
{
    convk_ctx c = {B, C, H, W, OC, k, s, (H - 1) / s + 1, (W - 1) / s + 1, 0, 0, 0, 0, 0};
    size_t nin = (size_t)B * C * H * W, nw = (size_t)OC * C * k * k,
           nout = (size_t)B * OC * c.OH * c.OW;
    c.inp = malloc(nin * 4);
    c.w = malloc(nw * 4);
    c.out = malloc(nout * 4);
    c.R = malloc(nout * 4);
    c.scratch = malloc(CS_NN_CONVK_SCRATCH(B, C, H, W, OC, k) * 4);
    float *dinp = malloc(nin * 4), *dw = malloc(nw * 4);
    cs_rng r;
    cs_rng_init(&r, (uint64_t)(k * 10 + s), 0);
    fill(c.inp, nin, &r, 1);
    fill(c.w, nw, &r, 1);
    fill(c.R, nout, &r, 1);
    convk_loss(&c);
    int p = k / 2;
    double worst = 0;
    for (int b = 0; b < B; b++)
        for (int o = 0; o < OC; o++)
            for (int y = 0; y < c.OH; y++)
                for (int x = 0; x < c.OW; x++) {
                    double sum = 0;
                    for (int ch = 0; ch < C; ch++)
                        for (int ky = 0; ky < k; ky++)
                            for (int kx = 0; kx < k; kx++) {
                                int iy = y * s + ky - p, ix = x * s + kx - p;
                                if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                                    sum += (double)c.w[((o * C + ch) * k + ky) * k + kx] *
                                           c.inp[((b * C + ch) * H + iy) * W + ix];
                            }
                    double e = fabs(sum - c.out[((b * OC + o) * c.OH + y) * c.OW + x]);
                    worst = e > worst ? e : worst;
                }
    print_message("convk k%d s%d C%d OC%d %dx%d: forward err %.2e", k, s, C, OC, H, W, worst);
    assert_true(worst < 1e-4);
    for (int with_dinp = 0; with_dinp < 2; with_dinp++) {
        cpu->convk_backward(with_dinp ? dinp : NULL, dw, c.R, c.inp, c.w, c.scratch, B, C, H, W,
                            OC, k, s);
        double ew = fd_error(convk_loss, &c, c.w, nw, dw);
        assert_true(ew < 1e-3);
        if (with_dinp) {
            double ei = fd_error(convk_loss, &c, c.inp, nin, dinp);
            print_message(", dw %.2e, dinp %.2e\n", ew, ei);
            assert_true(ei < 1e-3);
        }
    }
    free(c.inp);
    free(c.w);
    free(c.out);
    free(c.R);
    free(c.scratch);
    free(dinp);
    free(dw);
}

static void test_convk(void **state)
{
    (void)state;
    check_convk(2, 2, 6, 6, 3, 3, 2);    /* resnet20's downsampling */
    check_convk(2, 3, 7, 5, 2, 3, 2);    /* odd sides */
    check_convk(2, 2, 5, 5, 3, 5, 1);    /* the cnn's kernel=5 */
    check_convk(2, 2, 4, 4, 3, 1, 1);    /* kernel=1 */
    check_convk(9, 2, 4, 4, 2, 7, 1);    /* more than a chunk of images, kernel=7 */
    check_convk(2, 1, 6, 6, 4, 5, 1);    /* the first layer: dw only */
}

/* k = 3, stride 1 is conv_forward/conv_backward bit for bit */
static void test_convk_plain(void **state)
{
    (void)state;
    enum { B = 3, C = 2, H = 5, OC = 4, N_IN = B * C * H * H, N_OUT = B * OC * H * H };
    float x[N_IN], w[OC * C * 9], y1[N_OUT], y2[N_OUT], d[N_OUT], dx1[N_IN], dx2[N_IN],
        dw1[OC * C * 9], dw2[OC * C * 9];
    static float scratch[CS_NN_CONV_SCRATCH(B, C, H, H, OC)];
    cs_rng r;
    cs_rng_init(&r, 5, 0);
    fill(x, N_IN, &r, 1);
    fill(w, OC * C * 9, &r, 1);
    fill(d, N_OUT, &r, 1);
    cpu->conv_forward(y1, x, w, scratch, B, C, H, H, OC);
    cpu->convk_forward(y2, x, w, scratch, B, C, H, H, OC, 3, 1);
    assert_memory_equal(y1, y2, sizeof y1);
    cpu->conv_backward(dx1, dw1, d, x, w, scratch, B, C, H, H, OC);
    cpu->convk_backward(dx2, dw2, d, x, w, scratch, B, C, H, H, OC, 3, 1);
    assert_memory_equal(dx1, dx2, sizeof dx1);
    assert_memory_equal(dw1, dw2, sizeof dw1);
}

/* ------------------------------------------------------------------ residual, pooling */

typedef struct res_ctx {
    int B, C, H, SC, SH;
    float inp[2 * 8 * 3 * 3], sc[2 * 4 * 6 * 6], out[2 * 8 * 3 * 3], R[2 * 8 * 3 * 3];
} res_ctx;

static double res_loss(void *p)
{
    res_ctx *c = p;
    cpu->residual_forward(c->out, c->inp, c->sc, c->B, c->C, c->H, c->H, c->SC, c->SH, c->SH);
    return dot(c->out, c->R, (size_t)c->B * c->C * c->H * c->H);
}

static void test_residual(void **state)
{
    (void)state;
    /* option A (4 channels of 6×6 into 8 of 3×3: channels 2..5, every other
     * pixel) and the identity (8 of 3×3) */
    for (int ident = 0; ident < 2; ident++) {
        res_ctx c = {.B = 2, .C = 8, .H = 3, .SC = ident ? 8 : 4, .SH = ident ? 3 : 6};
        cs_rng r;
        cs_rng_init(&r, 7, (uint64_t)ident);
        size_t ns = (size_t)c.B * c.SC * c.SH * c.SH, n = (size_t)c.B * c.C * c.H * c.H;
        fill(c.inp, n, &r, 1);
        fill(c.sc, ns, &r, 1);
        fill(c.R, n, &r, 1);
        res_loss(&c);
        for (int b = 0; b < c.B; b++)
            for (int ch = 0; ch < c.C; ch++)
                for (int y = 0; y < c.H; y++)
                    for (int x = 0; x < c.H; x++) {
                        size_t o = ((size_t)(b * c.C + ch) * c.H + y) * c.H + x;
                        int q = ident ? ch : ch - 2, st = ident ? 1 : 2;
                        float want = c.inp[o];
                        if (q >= 0 && q < c.SC)
                            want += c.sc[((size_t)(b * c.SC + q) * c.SH + y * st) * c.SH + x * st];
                        assert_true(c.out[o] == want);
                    }
        float dsc[2 * 4 * 6 * 6 > 2 * 8 * 3 * 3 ? 2 * 4 * 6 * 6 : 2 * 8 * 3 * 3];
        cpu->residual_backward(dsc, c.R, c.B, c.C, c.H, c.H, c.SC, c.SH, c.SH);
        assert_true(fd_error(res_loss, &c, c.sc, ns, dsc) < 1e-4);
    }
}

typedef struct gap_ctx {
    float inp[3 * 4 * 5], out[12], R[12];
} gap_ctx;

static double gap_loss(void *p)
{
    gap_ctx *c = p;
    cpu->avgpool_forward(c->out, c->inp, 3, 4, 5);
    return dot(c->out, c->R, 12);
}

static void test_avgpool(void **state)
{
    (void)state;
    gap_ctx c;
    cs_rng r;
    cs_rng_init(&r, 8, 0);
    fill(c.inp, 60, &r, 1);
    fill(c.R, 12, &r, 1);
    gap_loss(&c);
    for (int i = 0; i < 12; i++) {
        double s = 0;
        for (int k = 0; k < 5; k++)
            s += c.inp[i * 5 + k];
        assert_true(c.out[i] == (float)(s / 5));
    }
    float dinp[60];
    cpu->avgpool_backward(dinp, c.R, 3, 4, 5);
    assert_true(fd_error(gap_loss, &c, c.inp, 60, dinp) < 1e-4);
}

/* ------------------------------------------------------------------ planning */

static cs_nn *make(const cs_nn_config *cfg)
{
    cs_nn *nn;
    cs_err err;
    if (cs_nn_new(&nn, cfg, &err)) {
        fail_msg("cs_nn_new: %s", err.msg);
        return NULL;
    }
    return nn;
}

static void test_plan_cnn(void **state)
{
    (void)state;
    char d[160];
    cs_nn_config def = {.kind = CS_NN_CNN, .seed = 1};
    cs_nn *nn = make(&def);
    cs_nn_describe(nn, d, sizeof d);
    assert_string_equal(d, "cnn conv16,16,pool,32,32,pool fc1568-256-10");
    assert_int_equal(cs_nn_param_count(nn), 420698);
    cs_nn_free(nn);
    /* channels=8,p,12 kernel=5 pad=2: 32 → 16, fc 12·16·16 */
    cs_nn_config c = {.kind = CS_NN_CNN, .seed = 1, .nconv = 3, .conv = {8, CS_NN_CONV_POOL, 12},
                      .kernel = 5, .pad = 2, .nhidden = 1, .hidden = {20}};
    nn = make(&c);
    cs_nn_describe(nn, d, sizeof d);
    assert_string_equal(d, "cnn conv8,pool,12 k5 32x32 fc3072-20-10");
    size_t params = 8 * 25 + 16 + 12 * 8 * 25 + 24 + 3072 * 20 + 20 + 20 * 10 + 10;
    assert_int_equal(cs_nn_param_count(nn), params);
    assert_int_equal(cs_nn_wlayer_count(nn), 4);
    cs_nn_wlayer_info li;
    cs_nn_wlayer(nn, 1, &li);
    assert_string_equal(li.name, "conv2");
    assert_int_equal(li.cols, 8 * 25);
    assert_int_equal(li.positions, 16 * 16);
    assert_false(li.excluded_default);
    cs_nn_wlayer(nn, 0, &li);
    assert_true(li.excluded_default);
    cs_nn_free(nn);
    /* refused: a pool that leaves no pixel (28, 14, 7, 3, 1: odd sides
     * round down), an even kernel, channels for the mlp */
    cs_err err;
    cs_nn *bad = NULL;
    cs_nn_config odd = {.kind = CS_NN_CNN, .nconv = 6,
                        .conv = {4, CS_NN_CONV_POOL, CS_NN_CONV_POOL, CS_NN_CONV_POOL,
                                 CS_NN_CONV_POOL, CS_NN_CONV_POOL}};
    assert_int_equal(cs_nn_new(&bad, &odd, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "the pool at entry 6 would leave no pixel, the images are "
                                    "1×1 there"));
    cs_nn_config even = {.kind = CS_NN_CNN, .kernel = 4};
    assert_int_equal(cs_nn_new(&bad, &even, &err), CS_EINVAL);
    cs_nn_config mlp = {.kind = CS_NN_MLP, .nconv = 1, .conv = {4}};
    assert_int_equal(cs_nn_new(&bad, &mlp, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "only the cnn"));
    assert_null(bad);
}

static void test_plan_resnet20(void **state)
{
    (void)state;
    cs_nn_config c = {.kind = CS_NN_RESNET20, .seed = 1, .pad = 2};
    cs_nn *nn = make(&c);
    char d[160];
    cs_nn_describe(nn, d, sizeof d);
    assert_string_equal(d, "resnet20 32x32 16,32,64 option-A gap fc64-10");
    assert_int_equal(cs_nn_param_count(nn), 269434);
    assert_int_equal(cs_nn_wlayer_count(nn), 20);
    const char *names[] = {"conv1", "layer1.0.conv1", "layer2.0.conv1", "layer3.2.conv2", "fc"};
    const size_t idx[] = {0, 1, 7, 18, 19}, cols[] = {9, 144, 144, 576, 64},
                 pos[] = {1024, 1024, 256, 64, 1};
    for (int i = 0; i < 5; i++) {
        cs_nn_wlayer_info li;
        cs_nn_wlayer(nn, idx[i], &li);
        assert_string_equal(li.name, names[i]);
        assert_int_equal(li.cols, cols[i]);
        assert_int_equal(li.positions, pos[i]);
        assert_int_equal(li.excluded_default, i == 0 || i == 4);
    }
    cs_nn_free(nn);
    cs_err err;
    cs_nn *bad = NULL;
    cs_nn_config h = {.kind = CS_NN_RESNET20, .nhidden = 1, .hidden = {10}};
    assert_int_equal(cs_nn_new(&bad, &h, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "resnet20 has no hidden fc"));
}

/* ------------------------------------------------------------------ whole network */

typedef struct net_ctx {
    cs_nn *nn;
    int B;
} net_ctx;

/* the mean data loss of the batch in training mode */
static double net_loss(void *p)
{
    net_ctx *c = p;
    nn_forward(c->nn, c->B, 1);
    double l;
    int correct;
    cs_err err;
    assert_int_equal(nn_batch_stats(c->nn, c->B, &l, &correct, &err), 0);
    return l / c->B;
}

/* The gradient of every tensor of resnet20 (pad 0: 28×28, shortcuts of
 * both kinds) and of a kernel=5 cnn against the finite difference of the
 * batch's loss along that gradient: (L(θ + εg) − L(θ − εg)) / 2ε = ‖g‖²
 * (entry by entry the float forward's noise swamps the differences of a
 * 20-layer network; along g the change is a thousand times the noise, and
 * a wrong or missing part of g shows as a mismatch). */
static void check_net_grad(const cs_nn_config *cfg, double tol)
{
    cs_nn *nn = make(cfg);
    cs_err err;
    enum { B = 4 };
    cs_nn_data d = nn_synth(B, 3);
    size_t idx[B] = {0, 1, 2, 3};
    assert_int_equal(nn_ensure_cap(nn, B, &err), 0);
    assert_int_equal(nn_load_batch(nn, &d, idx, B, NULL, &err), 0);
    net_ctx c = {nn, B};
    nn_forward(nn, B, 1);
    nn->ops->zero(nn->grads, nn->nparams * sizeof(float));
    nn_backward(nn, B);
    float *g = malloc(nn->nparams * sizeof *g), *p0 = malloc(nn->nparams * sizeof *p0);
    memcpy(g, nn->grads, nn->nparams * sizeof *g);
    memcpy(p0, nn->params, nn->nparams * sizeof *p0);
    double worst = 0;
    int checked = 0;
    for (int t = 0; t < nn->nt; t++) {
        if (nn->t[t].kind == NN_T_ALPHA)
            continue;
        const float *gt = g + nn->t[t].off;
        double g2 = 0;
        for (size_t k = 0; k < nn->t[t].n; k++)
            g2 += (double)gt[k] * gt[k];
        if (g2 == 0)
            fail_msg("%s: a zero gradient", nn->t[t].name);
        double eps = 1e-3 / g2, l[2];
        for (int side = 0; side < 2; side++) {
            for (size_t k = 0; k < nn->t[t].n; k++)
                nn->params[nn->t[t].off + k] =
                    (float)(p0[nn->t[t].off + k] + (side ? -eps : eps) * gt[k]);
            l[side] = net_loss(&c);
        }
        memcpy(nn->params + nn->t[t].off, p0 + nn->t[t].off, nn->t[t].n * sizeof(float));
        double fd = (l[0] - l[1]) / (2 * eps), e = fabs(fd - g2) / g2;
        if (e > tol)
            print_message("%s: along g %.6g, |g|^2 %.6g\n", nn->t[t].name, fd, g2);
        worst = e > worst ? e : worst;
        checked++;
    }
    print_message("%s: %d tensors, the worst relative error along the gradient %.2e\n",
                  cs_nn_kind_name(cfg->kind), checked, worst);
    assert_true(worst < tol);
    free(g);
    free(p0);
    cs_nn_data_free(&d);
    cs_nn_free(nn);
}

static void test_net_gradients(void **state)
{
    (void)state;
    cs_nn_config res = {.kind = CS_NN_RESNET20, .seed = 2};
    check_net_grad(&res, 3e-2);
    cs_nn_config cnn = {.kind = CS_NN_CNN, .seed = 2, .nconv = 3,
                        .conv = {4, CS_NN_CONV_POOL, 6}, .kernel = 5, .pad = 1, .nhidden = 1,
                        .hidden = {8}};
    check_net_grad(&cnn, 3e-2);
}

/* a few steps of resnet20 on 1 and 2 threads: the same weights, bit for bit */
static void test_threads_same_bits(void **state)
{
    (void)state;
    cs_nn_data d = nn_synth(64, 4);
    float *w[2];
    size_t n = 0;
    for (int th = 1; th <= 2; th++) {
        int saved = cs_par_hold_threads(th);
        cs_nn_config c = {.kind = CS_NN_RESNET20, .seed = 5, .pad = 2};
        cs_nn *nn = make(&c);
        cs_reg *reg;
        cs_err err;
        assert_int_equal(cs_reg_new(&reg, "bin", NULL, 0, 1, &err), 0);
        cs_nn_train_opts o = {.epochs = 1, .batch = 16, .reg = reg, .lambda = 1,
                              .eta = CS_NN_ETA_LAYER, .augment = 1};
        cs_nn_train_report rep;
        assert_int_equal(cs_nn_train(nn, &d, &o, &rep, &err), 0);
        n = nn->nparams + nn->nbufs;
        w[th - 1] = malloc(n * sizeof(float));
        memcpy(w[th - 1], nn->params, nn->nparams * sizeof(float));
        memcpy(w[th - 1] + nn->nparams, nn->bufs, nn->nbufs * sizeof(float));
        cs_reg_free(reg);
        cs_nn_free(nn);
        cs_par_restore_threads(saved);
    }
    assert_memory_equal(w[0], w[1], n * sizeof(float));
    free(w[0]);
    free(w[1]);
    cs_nn_data_free(&d);
}

/* resnet20 learns the separable set; regularized to binary, quantized and
 * fine-tuned it keeps most of it */
static void test_resnet_learns(void **state)
{
    (void)state;
    if (SANITIZED) {   /* minutes under ASan; the ops and a training step run above */
        skip();
        return;
    }
    cs_nn_data d = nn_synth(400, 6), t = nn_synth(200, 7);
    cs_nn_config c = {.kind = CS_NN_RESNET20, .seed = 3, .pad = 2};
    cs_nn *nn = make(&c);
    cs_reg *reg;
    cs_err err;
    assert_int_equal(cs_reg_new(&reg, "bin", NULL, 0, 1, &err), 0);
    cs_nn_train_opts p = {.epochs = 2, .batch = 32, .lr = 3e-3},
                     o = {.epochs = 2, .batch = 32, .reg = reg, .lambda = 10, .lr = 1e-3};
    cs_nn_train_report rep;
    double acc, loss, qacc, facc;
    assert_int_equal(cs_nn_train(nn, &d, &p, &rep, &err), 0);
    assert_int_equal(cs_nn_evaluate(nn, &t, &acc, &loss, &err), 0);
    assert_int_equal(cs_nn_train(nn, &d, &o, &rep, &err), 0);
    cs_nn_quant_report q;
    assert_int_equal(cs_nn_quantize(nn, 0, CS_NN_EXCL_DEFAULT, &q, &err), 0);
    assert_int_equal(q.nlayers, 18);   /* all but conv1 and fc */
    assert_int_equal(cs_nn_evaluate(nn, &t, &qacc, &loss, &err), 0);
    cs_nn_train_opts f = {.epochs = 2, .batch = 32, .finetune = 1};
    assert_int_equal(cs_nn_train(nn, &d, &f, &rep, &err), 0);
    assert_int_equal(cs_nn_evaluate(nn, &t, &facc, &loss, &err), 0);
    print_message("resnet20 on the separable set: test %.3f, binary %.3f, scales fine-tuned "
                  "%.3f\n", acc, qacc, facc);
    assert_true(acc > 0.9);
    assert_true(facc > 0.8);
    cs_reg_free(reg);
    cs_nn_free(nn);
    cs_nn_data_free(&d);
    cs_nn_data_free(&t);
}

/* eta=layer: each layer's row sum over its element count, i.e. the row
 * weighting's value of that layer divided by its rows */
static void test_eta_layer(void **state)
{
    (void)state;
    cs_nn_config c = {.kind = CS_NN_CNN, .seed = 4, .nconv = 2, .conv = {4, 6}, .nhidden = 1,
                      .hidden = {8}};
    cs_nn *nn = make(&c);
    cs_reg *reg;
    cs_err err;
    assert_int_equal(cs_reg_new(&reg, "bin", NULL, 0, 1, &err), 0);
    double want = 0;
    for (int i = 0; i < nn->nwl; i++) {   /* Σ_layers Σ_rows ℓ(row) / (rows·cols) */
        size_t rows = nn->wl[i].rows, cols = nn->wl[i].cols;
        float *wv = malloc(rows * cols * sizeof *wv);
        double *x = malloc(cols * sizeof *x), s = 0, v;
        assert_int_equal(cs_nn_wlayer_get(nn, (size_t)i, wv, &err), 0);
        for (size_t rr = 0; rr < rows; rr++) {
            for (size_t j = 0; j < cols; j++)
                x[j] = wv[rr * cols + j];
            assert_int_equal(cs_reg_eval(reg, x, 1, cols, &v, NULL, &err), 0);
            s += v;
        }
        want += s / ((double)rows * cols);
        free(wv);
        free(x);
    }
    double got;
    assert_int_equal(cs_nn_reg_value_eta(nn, reg, 1.0, CS_NN_EXCL_NONE, CS_NN_ETA_LAYER, &got,
                                         &err), 0);
    print_message("eta=layer: %.9g, from cs_reg_eval %.9g\n", got, want);
    assert_true(fabs(got - want) < 1e-5 * fabs(want));
    double row;
    assert_int_equal(cs_nn_reg_value(nn, reg, 1.0, CS_NN_EXCL_NONE, &row, &err), 0);
    assert_true(row > got);
    cs_reg_free(reg);
    cs_nn_free(nn);
}

/* a version-2 checkpoint (resnet20 quantized; a cnn of other channels)
 * reads back bit for bit */
static void test_checkpoint_v2(void **state)
{
    (void)state;
    char path[] = "/tmp/csreg_nn_v2_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    cs_nn_config cfgs[2] = {{.kind = CS_NN_RESNET20, .seed = 8, .pad = 2},
                            {.kind = CS_NN_CNN, .seed = 8, .nconv = 3,
                             .conv = {5, CS_NN_CONV_POOL, 7}, .kernel = 3, .nhidden = 1,
                             .hidden = {9}}};
    for (int k = 0; k < 2; k++) {
        cs_nn *nn = make(&cfgs[k]);
        cs_err err;
        cs_nn_quant_report q;
        if (k == 0)
            assert_int_equal(cs_nn_quantize(nn, 1, CS_NN_EXCL_DEFAULT, &q, &err), 0);
        assert_int_equal(cs_nn_save(nn, path, 1, NULL, &err), 0);
        FILE *f = fopen(path, "rb");
        unsigned char head[8];
        assert_int_equal(fread(head, 1, 8, f), 8);
        fclose(f);
        assert_int_equal(head[4], 2);   /* version 2 */
        cs_nn *back;
        assert_int_equal(cs_nn_load(&back, path, "cpu", &err), 0);
        assert_int_equal(back->nparams, nn->nparams);
        assert_memory_equal(back->params, nn->params, nn->nparams * sizeof(float));
        assert_int_equal(cs_nn_is_quantized(back), k == 0 ? 2 : 0);
        char d1[160], d2[160];
        cs_nn_describe(nn, d1, sizeof d1);
        cs_nn_describe(back, d2, sizeof d2);
        assert_string_equal(d1, d2);
        cs_nn_free(back);
        cs_nn_free(nn);
    }
    unlink(path);
}

int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convk),
        cmocka_unit_test(test_convk_plain),
        cmocka_unit_test(test_residual),
        cmocka_unit_test(test_avgpool),
        cmocka_unit_test(test_plan_cnn),
        cmocka_unit_test(test_plan_resnet20),
        cmocka_unit_test(test_net_gradients),
        cmocka_unit_test(test_threads_same_bits),
        cmocka_unit_test(test_resnet_learns),
        cmocka_unit_test(test_eta_layer),
        cmocka_unit_test(test_checkpoint_v2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
