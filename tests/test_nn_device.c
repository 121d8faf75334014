/* test_nn_device.c — the compute devices: every op of the CUDA backend
 * against the CPU one, the watch ops included, overlapping copies and the
 * errors the ops keep (skipped without a GPU or a CUDA build), clear
 * errors for devices that are not there, the choice device=auto makes,
 * the CUDA module's loading (missing or broken: the CPU, with the reason)
 * and the environment variables CSREG_CUDA_DEVICE and CSREG_CUDA_SYNC. */
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
#include "cs_rng.h"
#include "nn_backend.h"
#include "nn_util.h"

/* ------------------------------------------------------------------ CPU/CUDA parity */

#ifdef CSREG_HAVE_CUDA
static const cs_nn_ops *gpu;   /* cs_nn_cuda_ops() once a GPU answered */

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

#ifdef CSREG_HAVE_CUDA
/* The watch ops (nn_watch.c) on weights w (rows × cols; gw the same on the
 * device): the scales, the readiness counts with the same α, the sign
 * flips against a bitmap. */
static void watch_parity(const float *w, const float *gw, int rows, int cols)
{
    size_t n = (size_t)rows * cols;
    float *a = malloc(rows * sizeof *a), *t = malloc(rows * sizeof *t);
    float *ga = dev(NULL, rows * sizeof *a), *gt = dev(NULL, rows * sizeof *t);
    cpu->watch->row_abs_mean(a, w, rows, cols);
    gpu->watch->row_abs_mean(ga, gw, rows, cols);
    cmp("row_abs_mean", a, ga, (size_t)rows);
    cpu->watch->row_ternary(a, t, w, rows, cols);
    gpu->watch->row_ternary(ga, gt, gw, rows, cols);
    cmp("row_ternary alpha", a, ga, (size_t)rows);
    cmp("row_ternary tau", t, gt, (size_t)rows);
    gpu->upload(ga, a, rows * sizeof *a);   /* the readiness with the same α */
    uint32_t *nc = malloc(rows * sizeof *nc), *ng = malloc(rows * sizeof *ng);
    uint32_t *gn = dev(NULL, rows * sizeof *gn);
    for (int ternary = 0; ternary < 2; ternary++) {
        cpu->watch->near_count(nc, w, a, rows, cols, ternary);
        gpu->watch->near_count(gn, gw, ga, rows, cols, ternary);
        gpu->download(ng, gn, rows * sizeof *ng);
        for (int r = 0; r < rows; r++)
            assert_int_equal(nc[r], ng[r]);
    }
    size_t words = (n + 31) / 32;
    uint32_t *bits = calloc(words, sizeof *bits), *gbits = dev(NULL, words * sizeof *bits);
    uint32_t fc, fg, *gf = dev(NULL, sizeof fg);
    float *neg = malloc(n * sizeof *neg), *gneg = dev(NULL, n * sizeof *neg);
    for (size_t i = 0; i < n; i++)
        neg[i] = i % 3 ? w[i] : -w[i];
    gpu->upload(gneg, neg, n * sizeof *neg);
    const float *xs[2] = {w, neg}, *gxs[2] = {gw, gneg};
    for (int k = 0; k < 2; k++) {
        cpu->watch->sign_flips(&fc, bits, xs[k], n);
        gpu->watch->sign_flips(gf, gbits, gxs[k], n);
        gpu->download(&fg, gf, sizeof fg);
        assert_int_equal(fc, fg);
    }
    uint32_t *hb = malloc(words * sizeof *hb);
    gpu->download(hb, gbits, words * sizeof *hb);
    assert_memory_equal(bits, hb, words * sizeof *hb);
    print_message("parity watch ops            n=%-8zu near, flips, bitmap exact\n", n);
    void *gb[] = {ga, gt, gn, gbits, gf, gneg};
    for (size_t i = 0; i < sizeof gb / sizeof *gb; i++)
        gpu->release(gb[i]);
    free(a);
    free(t);
    free(nc);
    free(ng);
    free(bits);
    free(neg);
    free(hb);
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
    gpu = cs_nn_cuda_ops();
    assert_non_null(gpu);
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
    cpu->watch->hist(hc, wd, OUT * IN, -0.3f, 0.3f, 20);
    gpu->watch->hist(ghc, gwd, OUT * IN, -0.3f, 0.3f, 20);
    uint32_t hg[20];
    gpu->download(hg, ghc, sizeof hg);
    for (int i = 0; i < 20; i++)   /* exact for the same edges on both */
        assert_int_equal(hc[i], hg[i]);
    watch_parity(wd, gwd, OUT, IN);
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
    assert_int_equal(cs_nn_cuda_env_device(NULL, &d, why, sizeof why), 0);
    assert_int_equal(d, 0);
    assert_int_equal(cs_nn_cuda_env_device("", &d, why, sizeof why), 0);
    assert_int_equal(d, 0);
    assert_int_equal(cs_nn_cuda_env_device("1", &d, why, sizeof why), 0);
    assert_int_equal(d, 1);
    assert_int_equal(cs_nn_cuda_env_device(" 3 ", &d, why, sizeof why), 0);
    assert_int_equal(d, 3);
    const char *bad[] = {"-1", "x", "1x", "+1", "0.5", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = '\0';
        assert_true(cs_nn_cuda_env_device(bad[i], &d, why, sizeof why) < 0);
        char want[128];
        snprintf(want, sizeof want, "CSREG_CUDA_DEVICE=%s: expected a device number", bad[i]);
        assert_non_null(strstr(why, want));
    }
    assert_int_equal(cs_nn_cuda_env_sync(NULL), 0);
    assert_int_equal(cs_nn_cuda_env_sync(""), 0);
    assert_int_equal(cs_nn_cuda_env_sync("0"), 0);
    assert_int_equal(cs_nn_cuda_env_sync("1"), 1);
    assert_int_equal(cs_nn_cuda_env_sync("on"), 1);
    /* the module's place: CSREG_CUDA_MODULE, else beside the program or a folder up */
    char path[4096];
    setenv("CSREG_CUDA_MODULE", "/some/where/libx.so", 1);
    cs_nn_cuda_module_path(path, sizeof path);
    assert_string_equal(path, "/some/where/libx.so");
    unsetenv("CSREG_CUDA_MODULE");
    cs_nn_cuda_module_path(path, sizeof path);
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
    gpu = cs_nn_cuda_ops();
    char msg[256];
    assert_int_equal(gpu->error(msg, sizeof msg), 0);
    enum { N = 1000 };
    float h[N], want[N], got[N];
    for (int i = 0; i < N; i++)
        h[i] = (float)i;
    float *g = dev(h, sizeof h);
    for (int shift = -3; shift <= 3; shift += 6) {   /* dst after src, then before */
        memcpy(want, h, sizeof h);
        gpu->upload(g, h, sizeof h);
        size_t n = N - 3;
        float *dst = shift > 0 ? g + shift : g, *src = shift > 0 ? g : g - shift;
        memmove(shift > 0 ? want + shift : want, shift > 0 ? want : want - shift, n * 4);
        gpu->copy(dst, src, n * 4);
        gpu->download(got, g, sizeof got);
        assert_memory_equal(want, got, sizeof got);
    }
    assert_int_equal(gpu->error(msg, sizeof msg), 0);
    gpu->reg_rows(g, NULL, g, 0, 4, CS_NN_REGK_BIN, 1.0f);   /* a grid of 0 blocks */
    gpu->matmul_forward(g, g, g, NULL, -1, 4, 4);           /* sgemm: invalid value */
    assert_true(gpu->error(msg, sizeof msg) < 0);
    print_message("the first error kept: %s\n", msg);
    assert_non_null(strstr(msg, "reg_rows: "));
    assert_int_equal(gpu->error(msg, sizeof msg), 0);   /* handed over once */
    gpu->matmul_forward(g, g, g, NULL, -1, 4, 4);
    assert_true(gpu->error(msg, sizeof msg) < 0);
    assert_non_null(strstr(msg, "matmul_forward: cuBLAS sgemm: "));
    gpu->release(g);
#endif
}

int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_module_fallback),   /* first: before the module loads */
        cmocka_unit_test(test_parity_cpu_cuda),
        cmocka_unit_test(test_device_errors),
        cmocka_unit_test(test_device_resolve),
        cmocka_unit_test(test_cuda_env),
        cmocka_unit_test(test_cuda_errors_and_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
