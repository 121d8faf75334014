/* test_nn_device.c — the compute devices: every op of the CUDA backend
 * against the CPU one through the parity harness (tests/parity_util.c:
 * the watch ops, the NULL-argument paths, determinism, op-chain training),
 * the real mlp and cnn trained on both (and on cuda with and without a
 * step's CUDA graph, bit for bit), overlapping copies and the errors
 * the ops keep (skipped without a GPU or a CUDA build), clear
 * errors for devices that are not there, the choice device=auto makes,
 * the CUDA module's loading (missing or broken: the CPU, with the reason)
 * and the environment variables CSREG_CUDA_DEVICE and CSREG_CUDA_SYNC; the
 * convolutions and batch norms through cuDNN and with CSREG_CUDNN=off /
 * CSREG_CUDNN_BN=off, against the CPU and each other (GPU only). */
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

#include "bn_util.h"
#include "cs_blas.h"
#include "cs_cuda_module.h"
#include "cs_nn.h"
#include "cs_rng.h"
#include "device_util.h"
#include "nn_backend.h"
#include "nn_internal.h"
#include "nn_util.h"
#include "parity_util.h"

/* ------------------------------------------------------------------ CPU/CUDA parity */

/* Every op of the op table against the CPU's (tests/parity_util.c: the
 * same inputs uploaded to both, each output compared within the op's
 * tolerance), the determinism of the CUDA ops and the op-chain trainings. */
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
    const cs_nn_ops *gpu = cs_nn_cuda_ops();
    assert_non_null(gpu);
    assert_int_equal(nn_parity_run(cpu, gpu, NN_PARITY_VERBOSE), 0);
#endif
}

#ifdef CSREG_HAVE_CUDA
enum { TRAIN_MAXW = 450000 };   /* floats: the weights of the tiny networks */

/* the weight layers one after another; their count */
static size_t all_weights(cs_nn *nn, float *buf)
{
    size_t k = 0;
    cs_err err;
    for (size_t i = 0; i < cs_nn_wlayer_count(nn); i++) {
        cs_nn_wlayer_info li;
        assert_int_equal(cs_nn_wlayer(nn, i, &li), 0);
        assert_true(k + li.rows * li.cols <= TRAIN_MAXW);
        if (cs_nn_wlayer_get(nn, i, buf + k, &err))
            fail_msg("%s: %s", li.name, err.msg);
        k += li.rows * li.cols;
    }
    return k;
}

static cs_nn *tiny_on(cs_nn_kind kind, const char *device)
{
    cs_nn_config cfg = {.kind = kind, .seed = 11, .device = device, .nhidden = 1};
    cfg.hidden[0] = kind == CS_NN_MLP ? 16 : 8;
    if (kind == CS_NN_MLP) {
        cfg.nhidden = 2;
        cfg.hidden[1] = 12;
    }
    cs_nn *nn = NULL;
    cs_err err;
    if (cs_nn_new(&nn, &cfg, &err))
        fail_msg("cs_nn_new on %s: %s", device, err.msg);
    return nn;
}

/* |a − b| / |b| */
static double rel(double a, double b)
{
    return fabs(a - b) / (fabs(b) > 1e-30 ? fabs(b) : 1e-30);
}
#endif

/* The real networks through the public API: the same seed, data and
 * options on cpu and on cuda give the same initial weights (bit for bit),
 * and after 8 Adam steps (a bin regularizer on, so reg_rows runs too) the
 * training loss, the regularizer's value, cs_nn_evaluate's loss (eval
 * mode: bn's running statistics) and what the steps changed of each weight
 * layer (in the 2-norm) agree within 1e-3 relative: the op errors compound
 * through the layers and the steps (an H100 gave 1e-8 for the losses, at
 * most 2e-5 for the weights); two runs on cuda, one with its steps as a
 * CUDA graph (7 of 8), one op by op, end with identical weights. */
static void test_train_cpu_cuda(void **state)
{
    (void)state;
#ifndef CSREG_HAVE_CUDA
    print_message("train cpu/cuda: built without CUDA; skipped\n");
    skip();
#else
    cs_err err;
    if (cs_nn_device_check("cuda", &err)) {
        print_message("train cpu/cuda: %s; skipped\n", err.msg);
        skip();
    }
    cs_nn_data d = nn_synth(64, 4);
    cs_reg *reg;
    assert_int_equal(cs_reg_new(&reg, "bin", NULL, 0, 1, &err), 0);
    float *w0 = malloc(TRAIN_MAXW * sizeof *w0), *wc = malloc(TRAIN_MAXW * sizeof *wc),
          *wg = malloc(TRAIN_MAXW * sizeof *wg), *wg2 = malloc(TRAIN_MAXW * sizeof *wg2);
    assert_true(w0 && wc && wg && wg2);
    for (int kind = 0; kind < 2; kind++) {
        const char *kname = kind == CS_NN_MLP ? "mlp" : "cnn";
        cs_nn *c = tiny_on((cs_nn_kind)kind, "cpu"), *g = tiny_on((cs_nn_kind)kind, "cuda"),
              *g2 = tiny_on((cs_nn_kind)kind, "cuda");
        static cs_nn_ops plain;   /* g2's steps op by op, g's as a CUDA graph */
        plain = *cs_nn_cuda_ops();
        plain.graph_begin = NULL;
        g2->ops = &plain;
        assert_string_equal(cs_nn_device(g), "cuda");
        size_t n = all_weights(c, w0);
        assert_int_equal(all_weights(g, wg), n);
        assert_memory_equal(w0, wg, n * sizeof *w0);   /* initialized on the host */
        cs_nn_train_opts o = {.epochs = 2, .batch = 16, .reg = reg, .lambda = 0.1};
        cs_nn_train_report rc, rg, rg2;
        assert_int_equal(cs_nn_train(c, &d, &o, &rc, &err), 0);
        if (cs_nn_train(g, &d, &o, &rg, &err) || cs_nn_train(g2, &d, &o, &rg2, &err))
            fail_msg("%s on cuda: %s", kname, err.msg);
        assert_int_equal(rc.steps, 8);
        double ac, lc, ag, lg;
        assert_int_equal(cs_nn_evaluate(c, &d, &ac, &lc, &err), 0);
        assert_int_equal(cs_nn_evaluate(g, &d, &ag, &lg, &err), 0);
        double e_loss = rel(rg.loss, rc.loss), e_reg = rel(rg.reg_value, rc.reg_value),
               e_test = rel(lg, lc);
        print_message("train %s cpu/cuda: loss %.6f / %.6f (rel %.1e), reg %.6g / %.6g (rel "
                      "%.1e), test loss %.6f / %.6f (rel %.1e), accuracy %.3f / %.3f\n",
                      kname, rc.loss, rg.loss, e_loss, rc.reg_value, rg.reg_value, e_reg, lc, lg,
                      e_test, ac, ag);
        if (e_loss > 1e-3 || e_reg > 1e-3 || e_test > 1e-3)
            fail_msg("%s: cpu and cuda losses differ by more than 1e-3 relative", kname);
        all_weights(c, wc);
        all_weights(g, wg);
        all_weights(g2, wg2);
        size_t k = 0;
        for (size_t i = 0; i < cs_nn_wlayer_count(c); i++) {
            cs_nn_wlayer_info li;
            cs_nn_wlayer(c, i, &li);
            size_t m = li.rows * li.cols;
            for (size_t j = k; j < k + m; j++) {   /* what the steps changed */
                wc[j] -= w0[j];
                wg[j] -= w0[j];
            }
            /* in the 2-norm: a weight whose gradient is near 0 takes an Adam
             * step that rounding can change much (m/√v), so the largest
             * single error says little (1.2e-3 in the cnn's fc1 on an H100) */
            double d2 = 0, c2 = 0;
            for (size_t j = k; j < k + m; j++) {
                d2 += ((double)wg[j] - wc[j]) * ((double)wg[j] - wc[j]);
                c2 += (double)wc[j] * wc[j];
            }
            double e = sqrt(d2 / (c2 > 0 ? c2 : 1e-300)), emax = rel_err(wg + k, wc + k, m, 1e-12);
            print_message("train %s cpu/cuda: %-6s change in 8 steps, rel err %.2e (2-norm), "
                          "%.2e (max)\n",
                          kname, li.name, e, emax);
            if (e > 1e-3)
                fail_msg("%s %s: cpu and cuda weights differ by %.3g relative > 1e-3", kname,
                         li.name, e);
            k += m;
        }
        /* deterministic on cuda, and a step's graph runs what the ops
         * run: the same bits both ways */
        print_message("train %s cuda: %zu of %zu steps as a CUDA graph%s%s\n", kname,
                      rg.graph_steps, rg.steps, rg.graph_note[0] ? ": " : "", rg.graph_note);
        assert_int_equal(rg.graph_steps, rg.steps - 1);
        assert_int_equal(rg2.graph_steps, 0);
        all_weights(g, wg);
        assert_memory_equal(wg, wg2, n * sizeof *wg);
        assert_true(rg.loss == rg2.loss && rg.reg_value == rg2.reg_value);
        cs_nn_free(c);
        cs_nn_free(g);
        cs_nn_free(g2);
    }
    free(w0);
    free(wc);
    free(wg);
    free(wg2);
    cs_reg_free(reg);
    cs_nn_data_free(&d);
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

/* device=auto: cuda exactly when cs_nn_device_check("cuda") passes, with
 * the reason; on a machine without a GPU (or a build without CUDA) the cpu.
 * cpu and cuda stand for themselves; anything else is an error. */
static void test_device_resolve(void **state)
{
    (void)state;
    cs_err err;
    char dev[16], why[512];
    assert_int_equal(cs_nn_device_resolve("cpu", dev, sizeof dev, why, sizeof why, &err), 0);
    assert_string_equal(dev, "cpu");
    assert_string_equal(why, "");
    assert_int_equal(cs_nn_device_resolve(NULL, dev, sizeof dev, NULL, 0, &err), 0);
    assert_string_equal(dev, "cpu");
    assert_true(cs_nn_device_resolve("tpu", dev, sizeof dev, why, sizeof why, &err) < 0);
    assert_non_null(strstr(err.msg, "unknown device 'tpu' (cpu, cuda or auto)"));
    assert_int_equal(cs_nn_device_check("auto", &err), 0);

    int gpu_ok = cs_nn_device_check("cuda", &err) == 0;
    char cuda_err[sizeof err.msg];
    snprintf(cuda_err, sizeof cuda_err, "%s", gpu_ok ? "" : err.msg);
    int rc = cs_nn_device_resolve("cuda", dev, sizeof dev, why, sizeof why, &err);
    assert_int_equal(rc == 0, gpu_ok);
    assert_int_equal(cs_nn_device_resolve("auto", dev, sizeof dev, why, sizeof why, &err), 0);
    print_message("device=auto: %s (%s)\n", dev, why);
    if (gpu_ok) {
        assert_string_equal(dev, "cuda");
        assert_true(!strncmp(why, "auto: cuda (", 12));
        assert_non_null(strstr(why, " found)"));
    } else {
        assert_string_equal(dev, "cpu");
#ifdef CSREG_HAVE_CUDA
        /* the CUDA backend's own words: "device=cuda: <why>" in the check */
        const char *reason = strstr(cuda_err, "device=cuda: ");
        assert_non_null(reason);
        char want[600];
        snprintf(want, sizeof want, "auto: cpu (no GPU: %s)", reason + strlen("device=cuda: "));
        assert_string_equal(why, want);
#else
        assert_string_equal(why, "auto: cpu (built without CUDA)");
#endif
    }
    /* why may be NULL; a network made with device "auto" lives on the same device */
    char dev2[16];
    assert_int_equal(cs_nn_device_resolve("auto", dev2, sizeof dev2, NULL, 0, &err), 0);
    assert_string_equal(dev2, dev);
    cs_nn_config cfg = {.kind = CS_NN_MLP, .hidden = {8}, .nhidden = 1, .seed = 1,
                        .device = "auto"};
    cs_nn *nn = NULL;
    assert_int_equal(cs_nn_new(&nn, &cfg, &err), 0);
    assert_string_equal(cs_nn_device(nn), dev);
    cs_nn_config got;
    cs_nn_get_config(nn, &got);
    assert_string_equal(got.device, dev);
    cs_nn_free(nn);
}

/* CSREG_CUDA_DEVICE and CSREG_CUDA_SYNC as the loader reads them */
static void test_cuda_env(void **state)
{
    (void)state;
    char why[256];
    int d = -7;
    assert_int_equal(cs_cuda_env_device(NULL, &d, why, sizeof why), 0);
    assert_int_equal(d, 0);
    assert_int_equal(cs_cuda_env_device("", &d, why, sizeof why), 0);
    assert_int_equal(d, 0);
    assert_int_equal(cs_cuda_env_device("1", &d, why, sizeof why), 0);
    assert_int_equal(d, 1);
    assert_int_equal(cs_cuda_env_device(" 3 ", &d, why, sizeof why), 0);
    assert_int_equal(d, 3);
    const char *bad[] = {"-1", "x", "1x", "+1", "0.5", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = '\0';
        assert_true(cs_cuda_env_device(bad[i], &d, why, sizeof why) < 0);
        char want[128];
        snprintf(want, sizeof want, "CSREG_CUDA_DEVICE=%s: expected a device number", bad[i]);
        assert_non_null(strstr(why, want));
    }
    assert_int_equal(cs_cuda_env_sync(NULL), 0);
    assert_int_equal(cs_cuda_env_sync(""), 0);
    assert_int_equal(cs_cuda_env_sync("0"), 0);
    assert_int_equal(cs_cuda_env_sync("1"), 1);
    assert_int_equal(cs_cuda_env_sync("on"), 1);
    /* the module's place: CSREG_CUDA_MODULE, else beside the program or a folder up */
    char path[4096];
    setenv("CSREG_CUDA_MODULE", "/some/where/libx.so", 1);
    cs_cuda_module_path(path, sizeof path);
    assert_string_equal(path, "/some/where/libx.so");
    unsetenv("CSREG_CUDA_MODULE");
    cs_cuda_module_path(path, sizeof path);
    assert_non_null(strstr(path, "/libcsreg_cuda.so"));
#ifdef CSREG_HAVE_CUDA
    /* a CUDA build puts the module where its programs look (build/rel, and
     * ./ and build/gpu beside csreg) */
    print_message("the CUDA module: %s\n", path);
    assert_int_equal(access(path, R_OK), 0);
#endif
}

/* Without the module (or with a broken one) device=auto runs on the CPU and
 * says why, device=cuda fails with that reason; a bad CSREG_CUDA_DEVICE is
 * an error of its own. The first test of the suite: a module once loaded
 * stays loaded, so this runs before anything asks for cuda. */
static void test_cuda_module_fallback(void **state)
{
    (void)state;
#ifndef CSREG_HAVE_CUDA
    print_message("module fallback: built without CUDA; skipped\n");
    skip();
#else
    cs_err err;
    char dev[16], why[512];
    struct {
        const char *module, *want;
    } cases[] = {
        {"/nonexistent/libcsreg_cuda.so",
         "the CUDA module /nonexistent/libcsreg_cuda.so is not there"},
        {"/proc/self/cmdline", "the CUDA module /proc/self/cmdline could not be loaded ("},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        setenv("CSREG_CUDA_MODULE", cases[i].module, 1);
        assert_true(cs_nn_device_check("cuda", &err) < 0);
        char want[512];
        snprintf(want, sizeof want, "device=cuda: %s", cases[i].want);
        if (!strstr(err.msg, want))
            fail_msg("got '%s', want '%s'", err.msg, want);
        assert_int_equal(cs_nn_device_resolve("auto", dev, sizeof dev, why, sizeof why, &err), 0);
        assert_string_equal(dev, "cpu");
        snprintf(want, sizeof want, "auto: cpu (no GPU: %s", cases[i].want);
        if (!strstr(why, want))
            fail_msg("got '%s', want '%s'", why, want);
        cs_nn_config cfg = {.kind = CS_NN_MLP, .hidden = {8}, .nhidden = 1, .seed = 1,
                            .device = "auto"};
        cs_nn *nn = NULL;
        assert_int_equal(cs_nn_new(&nn, &cfg, &err), 0);
        assert_string_equal(cs_nn_device(nn), "cpu");
        cs_nn_free(nn);
    }
    unsetenv("CSREG_CUDA_MODULE");
    setenv("CSREG_CUDA_DEVICE", "gpu0", 1);
    assert_true(cs_nn_device_check("cuda", &err) < 0);
    assert_non_null(strstr(err.msg, "device=cuda: CSREG_CUDA_DEVICE=gpu0: expected a device number"));
    unsetenv("CSREG_CUDA_DEVICE");
    /* the module itself, found where the build put it */
    if (cs_nn_device_check("cuda", &err) < 0) {
        print_message("device=cuda here: %s\n", err.msg);
        assert_null(strstr(err.msg, "CUDA module"));
    }
#endif
}

/* GPU only: copies between overlapping regions behave as memmove, a failed
 * launch and a failed cuBLAS call are kept (the first) and handed over once
 * through `error`, and a network's training step reports them. */
static void test_cuda_errors_and_copy(void **state)
{
    (void)state;
#ifndef CSREG_HAVE_CUDA
    print_message("cuda errors: built without CUDA; skipped\n");
    skip();
#else
    cs_err err;
    if (cs_nn_device_check("cuda", &err)) {
        print_message("cuda errors: %s; skipped\n", err.msg);
        skip();
    }
    nn_device_errors_check(cs_nn_cuda_ops());
#endif
}

#ifdef CSREG_HAVE_CUDA
/* the CUDA module again (the engine's table stays the same) with
 * CSREG_CUDNN = value (NULL: unset); its name */
static void cuda_reinit(const char *value, char *name, size_t len)
{
    void *sym;
    char why[512];
    assert_int_equal(cs_cuda_module_sym(CS_NN_CUDA_MODULE_SYM, &sym, why, sizeof why), 0);
    cs_nn_cuda_module_fn get;
    memcpy(&get, &sym, sizeof get);
    const cs_nn_cuda_module *m = get();
    int dev;
    assert_int_equal(cs_cuda_env_device(getenv("CSREG_CUDA_DEVICE"), &dev, why, sizeof why), 0);
    m->shutdown();
    if (value)
        setenv("CSREG_CUDNN", value, 1);
    else
        unsetenv("CSREG_CUDNN");
    if (m->init(dev, cs_cuda_env_sync(getenv("CSREG_CUDA_SYNC")), why, sizeof why))
        fail_msg("CUDA module init: %s", why);
    m->name(name, len);
    print_message("device: %s\n", name);
}

/* B, C, H, W, OC, k, stride: resnet20's 3x3 (16 channels at 32x32) and its
 * two downsamplings, the cnn's first layer, its kernel=5 and kernel=1 */
static const int cudnn_cases[][7] = {{8, 16, 32, 32, 16, 3, 1}, {8, 16, 32, 32, 32, 3, 2},
                                     {8, 32, 16, 16, 64, 3, 2}, {8, 1, 28, 28, 16, 3, 1},
                                     {4, 4, 9, 9, 6, 5, 1},     {4, 5, 6, 6, 3, 1, 1}};
enum { NCUDNN = sizeof cudnn_cases / sizeof cudnn_cases[0] };

typedef struct conv_io {
    size_t nx, nw, ny;
    float *x, *w, *dy;       /* the inputs */
    float *y, *dx, *dw;      /* the outputs */
} conv_io;

static float *conv_alloc(size_t n)
{
    float *p = malloc(n * sizeof *p);
    assert_non_null(p);
    return p;
}

/* case c's inputs (seeded: the same on every side) and room for outputs */
static void conv_io_new(conv_io *o, const int *c, int with_inputs, uint64_t seed)
{
    int OH = (c[2] - 1) / c[6] + 1, OW = (c[3] - 1) / c[6] + 1;
    o->nx = (size_t)c[0] * c[1] * c[2] * c[3];
    o->nw = (size_t)c[4] * c[1] * c[5] * c[5];
    o->ny = (size_t)c[0] * c[4] * OH * OW;
    o->y = conv_alloc(o->ny);
    o->dx = conv_alloc(o->nx);
    o->dw = conv_alloc(o->nw);
    o->x = o->w = o->dy = NULL;
    if (!with_inputs)
        return;
    o->x = conv_alloc(o->nx);
    o->w = conv_alloc(o->nw);
    o->dy = conv_alloc(o->ny);
    uint64_t r = seed;
    float *bufs[3] = {o->x, o->w, o->dy};
    size_t ns[3] = {o->nx, o->nw, o->ny};
    for (int b = 0; b < 3; b++)
        for (size_t i = 0; i < ns[b]; i++) {
            r = r * 6364136223846793005ULL + 1442695040888963407ULL;
            bufs[b][i] = ((float)(r >> 40) / 16777216.0f - 0.5f) * (b == 1 ? 0.2f : 2.0f);
        }
}

static void conv_io_free(conv_io *o)
{
    free(o->x);
    free(o->w);
    free(o->dy);
    free(o->y);
    free(o->dx);
    free(o->dw);
}

/* the forward and both gradients of case c on ops (device memory unless
 * the CPU's) from in's inputs into out */
static void conv_run(const cs_nn_ops *ops, const int *c, const conv_io *in, conv_io *out)
{
    int B = c[0], C = c[1], H = c[2], W = c[3], OC = c[4], k = c[5], s = c[6];
    size_t ns = CS_NN_CONVK_SCRATCH(B, C, H, W, OC, k);
    float *x = ops->alloc(in->nx * 4), *w = ops->alloc(in->nw * 4), *dy = ops->alloc(in->ny * 4),
          *y = ops->alloc(in->ny * 4), *dx = ops->alloc(in->nx * 4), *dw = ops->alloc(in->nw * 4),
          *scr = ops->alloc(ns * 4);
    assert_true(x && w && dy && y && dx && dw && scr);
    assert_int_equal(ops->upload(x, in->x, in->nx * 4), 0);
    assert_int_equal(ops->upload(w, in->w, in->nw * 4), 0);
    assert_int_equal(ops->upload(dy, in->dy, in->ny * 4), 0);
    ops->convk_forward(y, x, w, scr, B, C, H, W, OC, k, s);
    ops->convk_backward(dx, dw, dy, x, w, scr, B, C, H, W, OC, k, s);
    char msg[256];
    if (ops->error && ops->error(msg, sizeof msg))
        fail_msg("conv on %s: %s", ops->name, msg);
    assert_int_equal(ops->download(out->y, y, in->ny * 4), 0);
    assert_int_equal(ops->download(out->dx, dx, in->nx * 4), 0);
    assert_int_equal(ops->download(out->dw, dw, in->nw * 4), 0);
    float *all[] = {x, w, dy, y, dx, dw, scr};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        ops->release(all[i]);
}

/* B, C, HW: resnet20's three stages at batch 8 (32x32, 16x16, 8x8), the
 * cnn's first at 28x28, an odd HW */
static const int bn_cases[][3] = {{8, 16, 1024}, {8, 32, 256}, {8, 64, 64}, {8, 16, 784},
                                  {3, 5, 49}};
enum { NBNC = sizeof bn_cases / sizeof bn_cases[0] };

/* The batch norms (plain, with ReLU, with the residual add and ReLU where
 * the table has it) through cuDNN (twice: the same bits) and with
 * CSREG_CUDNN_BN=off, against the CPU and each other within 1e-4 */
static void cudnn_bn_check(const cs_nn_ops *gpu, const char *env, char *name, size_t len)
{
    static const char *const kname[] = {"bn", "bn+relu", "bn+add+relu"};
    char why[512];
    for (int kind = BN_PLAIN; kind <= BN_ADD_RELU; kind++) {
        if (kind == BN_ADD_RELU && !gpu->bn_add_relu_forward) {
            print_message("cudnn %s: the table has no bn_add_relu; skipped\n", kname[kind]);
            continue;
        }
        for (int q = 0; q < NBNC; q++) {
            int B = bn_cases[q][0], C = bn_cases[q][1], HW = bn_cases[q][2];
            bn_in in;
            bn_out ref, on, on2, off;
            assert_int_equal(bn_in_new(&in, B, C, HW, kind, 70 + (unsigned long)q), 0);
            assert_int_equal(bn_out_new(&ref, &in), 0);
            assert_int_equal(bn_out_new(&on, &in), 0);
            assert_int_equal(bn_out_new(&on2, &in), 0);
            assert_int_equal(bn_out_new(&off, &in), 0);
            if (bn_run(cpu, &in, &ref, NULL, why, sizeof why))
                fail_msg("%s", why);
            cuda_reinit(env, name, len);
            if (bn_run(gpu, &in, &on, &ref, why, sizeof why) ||
                bn_run(gpu, &in, &on2, &ref, why, sizeof why))
                fail_msg("%s", why);
            setenv("CSREG_CUDNN_BN", "off", 1);
            cuda_reinit(env, name, len);
            unsetenv("CSREG_CUDNN_BN");
            if (bn_run(gpu, &in, &off, &ref, why, sizeof why))
                fail_msg("%s", why);
            double e[3][BN_OUTS], same[BN_OUTS];
            bn_out_err(&in, &on, &ref, &ref, e[0]);
            bn_out_err(&in, &off, &ref, &ref, e[1]);
            bn_out_err(&in, &on, &off, &ref, e[2]);
            bn_out_err(&in, &on, &on2, &ref, same);
            for (int k = 0; k < BN_OUTS; k++) {
                if (e[0][k] < 0)
                    continue;
                print_message("cudnn %-11s B%d C%-2d HW%-4d %-12s: cudnn/cpu %.2e, own/cpu "
                              "%.2e, cudnn/own %.2e (tol 1e-04)\n", kname[kind], B, C, HW,
                              bn_out_name[k], e[0][k], e[1][k], e[2][k]);
                for (int j = 0; j < 3; j++)
                    assert_true(e[j][k] <= 1e-4);
                assert_true(same[k] == 0);   /* deterministic */
            }
            bn_in_free(&in);
            bn_out_free(&ref);
            bn_out_free(&on);
            bn_out_free(&on2);
            bn_out_free(&off);
        }
    }
}

/* max |a − b| over max |ref| (as the parity rows measure) */
static double conv_err(const float *a, const float *b, const float *ref, size_t n)
{
    double e = 0, m = 1e-6;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        e = d > e || isnan(d) ? d : e;
        m = fabs(ref[i]) > m ? fabs(ref[i]) : m;
    }
    return e / m;
}
#endif

/* GPU only: the convolutions through cuDNN (when the module found one)
 * and through the built-in kernels (CSREG_CUDNN=off), each against the CPU
 * (the parity rows, and resnet20's and the cnn's shapes at batch 8: out,
 * dinp, dw within 1e-4 relative, as the parity rows allow) and against
 * each other; cuDNN's convolutions deterministic (twice: the same bits);
 * the batch norms likewise (cudnn_bn_check). */
static void test_cudnn_cuda(void **state)
{
    (void)state;
#ifndef CSREG_HAVE_CUDA
    print_message("cudnn: built without CUDA; skipped\n");
    skip();
#else
    cs_err err;
    if (cs_nn_device_check("cuda", &err)) {
        print_message("cudnn: %s; skipped\n", err.msg);
        skip();
    }
    const char *env = getenv("CSREG_CUDNN");
    char saved[1024] = "", name[1024];
    if (env)
        snprintf(saved, sizeof saved, "%s", env);
    const cs_nn_ops *gpu = cs_nn_cuda_ops();
    conv_io ref[NCUDNN], on[NCUDNN], on2[NCUDNN], off[NCUDNN];
    for (int q = 0; q < NCUDNN; q++) {
        conv_io_new(&ref[q], cudnn_cases[q], 1, 1234 + (uint64_t)q);
        conv_io_new(&on[q], cudnn_cases[q], 0, 0);
        conv_io_new(&on2[q], cudnn_cases[q], 0, 0);
        conv_io_new(&off[q], cudnn_cases[q], 0, 0);
        conv_run(cpu, cudnn_cases[q], &ref[q], &ref[q]);
    }
    cuda_reinit(env, name, sizeof name);
    int found = strstr(name, "cuDNN 9.") && !strstr(name, "built-in kernels");
    print_message("cudnn: %s\n", found ? "the convolutions run through cuDNN"
                                        : "no cuDNN here: both runs are the built-in kernels");
    assert_int_equal(nn_parity_ops(cpu, gpu, "conv", NN_PARITY_VERBOSE), 0);
    for (int q = 0; q < NCUDNN; q++) {
        conv_run(gpu, cudnn_cases[q], &ref[q], &on[q]);
        conv_run(gpu, cudnn_cases[q], &ref[q], &on2[q]);
    }
    cuda_reinit("off", name, sizeof name);
    assert_non_null(strstr(name, "CSREG_CUDNN=off"));
    assert_int_equal(nn_parity_ops(cpu, gpu, "conv", NN_PARITY_VERBOSE), 0);
    for (int q = 0; q < NCUDNN; q++)
        conv_run(gpu, cudnn_cases[q], &ref[q], &off[q]);
    cudnn_bn_check(gpu, env ? saved : NULL, name, sizeof name);
    cuda_reinit(env ? saved : NULL, name, sizeof name);   /* as before */
    for (int q = 0; q < NCUDNN; q++) {
        const int *c = cudnn_cases[q];
        const conv_io *r = &ref[q], *a = &on[q], *b = &off[q];
        /* per output: cudnn/cpu, built-in/cpu, cudnn/built-in */
        double e[3][3] = {
            {conv_err(a->y, r->y, r->y, r->ny), conv_err(b->y, r->y, r->y, r->ny),
             conv_err(a->y, b->y, r->y, r->ny)},
            {conv_err(a->dx, r->dx, r->dx, r->nx), conv_err(b->dx, r->dx, r->dx, r->nx),
             conv_err(a->dx, b->dx, r->dx, r->nx)},
            {conv_err(a->dw, r->dw, r->dw, r->nw), conv_err(b->dw, r->dw, r->dw, r->nw),
             conv_err(a->dw, b->dw, r->dw, r->nw)}};
        static const char *const what[3] = {"out", "dinp", "dw"};
        for (int k = 0; k < 3; k++) {
            print_message("cudnn B%d C%d %dx%d OC%d k%d s%d %-4s: cudnn/cpu %.2e, built-in/cpu "
                          "%.2e, cudnn/built-in %.2e (tol 1e-04)\n", c[0], c[1], c[2], c[3],
                          c[4], c[5], c[6], what[k], e[k][0], e[k][1], e[k][2]);
            for (int j = 0; j < 3; j++)
                assert_true(e[k][j] <= 1e-4);
        }
        assert_memory_equal(on[q].y, on2[q].y, r->ny * sizeof(float));
        assert_memory_equal(on[q].dx, on2[q].dx, r->nx * sizeof(float));
        assert_memory_equal(on[q].dw, on2[q].dw, r->nw * sizeof(float));
    }
    for (int q = 0; q < NCUDNN; q++) {
        conv_io_free(&ref[q]);
        conv_io_free(&on[q]);
        conv_io_free(&on2[q]);
        conv_io_free(&off[q]);
    }
#endif
}

int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_module_fallback),   /* first: before the module loads */
        cmocka_unit_test(test_parity_cpu_cuda),
        cmocka_unit_test(test_train_cpu_cuda),
        cmocka_unit_test(test_device_errors),
        cmocka_unit_test(test_device_resolve),
        cmocka_unit_test(test_cuda_env),
        cmocka_unit_test(test_cuda_errors_and_copy),
        cmocka_unit_test(test_cudnn_cuda),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
