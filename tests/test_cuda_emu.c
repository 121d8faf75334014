/* test_cuda_emu.c — the CUDA backend's kernels run on the CPU through the
 * emulator (tests/emu/cuda_emu.h: blocks on real threads, __syncthreads as
 * a barrier, cuBLAS as a checked reference GEMM), in every build, under
 * ASan in `make test`: the module's init and its test kernel, every op of
 * the table against the CPU reference (tests/parity_util.c, as on a GPU),
 * the errors the ops keep, failed allocations, no device memory left
 * after a shutdown, and the batched sweep kernel (engine/recovery/cuda)
 * trial by trial against the CPU's solver, alone and through `sweep`. What the emulator cannot show (timing, real
 * concurrency, nvcc's code) the GPU run (tests/gpu/run.sh) does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bn_util.h"
#include "cs_blas.h"
#include "cs_expr_export.h"
#include "cs_nn.h"
#include "cs_problem.h"
#include "cs_reg.h"
#include "cs_solver.h"
#include "cs_sweep.h"
#include "cuda/nn_cudnn.h"
#include "cuda/sweep_cuda.h"
#include "device_util.h"
#include "method_util.h"
#include "nn_backend.h"
#include "nn_internal.h"
#include "parity_util.h"
#include "sweep_gpu.h"
#include "sweep_util.h"

/* the emulated module (engine/nn/cuda/nn_ops.cu) and the emulator's own */
const cs_nn_cuda_module *cs_nn_cuda_module_get(void);
const cs_sweep_cuda_module *cs_sweep_cuda_module_get(void);
size_t cs_emu_device_bytes(void);
void cs_emu_fail_malloc_after(long n);
long cs_emu_cudnn_convs(void);   /* tests/emu/cudnn_emu.cc */
long cs_emu_cudnn_bns(void);
/* tests/nn_util.c (its header's global `cpu` would shadow this file's) */
cs_nn_data nn_synth(size_t n, uint64_t seed);
void cs_emu_cudnn_fail_create(int fail);
long cs_emu_graph_launches(void);   /* tests/emu/cuda_emu.cc */

static const cs_nn_ops *emu;

static void test_init(void **state)
{
    (void)state;
    const cs_nn_cuda_module *m = cs_nn_cuda_module_get();
    assert_int_equal(m->abi, CS_NN_CUDA_ABI);
    assert_int_equal(m->ops_size, sizeof(cs_nn_ops));
    char why[256] = "", name[256];
    assert_int_equal(m->init(1, 0, why, sizeof why), -1);   /* one device: 0 */
    assert_non_null(strstr(why, "CSREG_CUDA_DEVICE=1 is out of range: 1 CUDA device (0..0)"));
    assert_int_equal(m->init(0, 1, why, sizeof why), 0);    /* the probe kernel ran */
    m->name(name, sizeof name);
    assert_non_null(strstr(name, "emulator"));
    emu = m->ops;
}

static void test_parity(void **state)
{
    (void)state;
    assert_int_equal(nn_parity_run(&cs_nn_cpu_ops, emu, 1), 0);
}

/* ------------------------------------------------------------------ cuDNN */

/* the module again, with the environment variable var = value (NULL:
 * unset) and sync_ops */
static const cs_nn_ops *module_again(const char *var, const char *value, int sync_ops)
{
    const cs_nn_cuda_module *m = cs_nn_cuda_module_get();
    m->shutdown();
    if (value)
        assert_int_equal(setenv(var, value, 1), 0);
    else
        assert_int_equal(unsetenv(var), 0);
    char why[256];
    assert_int_equal(m->init(0, sync_ops, why, sizeof why), 0);
    return m->ops;
}

/* the module again with CSREG_CUDNN = cudnn (NULL: unset); its name */
static const cs_nn_ops *reinit(const char *cudnn, char *name, size_t len)
{
    const cs_nn_ops *ops = module_again("CSREG_CUDNN", cudnn, 1);
    cs_nn_cuda_module_get()->name(name, len);
    print_message("device: %s\n", name);
    return ops;
}

/* the convolution rows (conv_*, convk_*: every shape of the cnn and of
 * resnet20, incl. its strided 3x3, the 5x5 and 1x1) against the CPU
 * within their tolerance; how many cuDNN convolutions they ran */
static long conv_rows(const cs_nn_ops *dev)
{
    long before = cs_emu_cudnn_convs();
    assert_int_equal(nn_parity_ops(&cs_nn_cpu_ops, dev, "conv", NN_PARITY_VERBOSE), 0);
    return cs_emu_cudnn_convs() - before;
}

/* a file with text (folders made) */
static void put_file(const char *path, const char *text)
{
    char d[CUDNN_PATH_MAX];
    snprintf(d, sizeof d, "%s", path);
    for (char *q = strchr(d + 1, '/'); q; q = strchr(q + 1, '/')) {
        *q = '\0';
        mkdir(d, 0700);
        *q = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void rm_tree(const char *dir)
{
    assert_int_equal(nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* The convolutions through the emulator's cuDNN (tests/emu/cudnn_emu.cc)
 * equal the CPU's within the rows' tolerance: forward, data and filter
 * gradients (36 cuDNN calls); CSREG_CUDNN=off, a library that does not
 * load and a cudnnCreate that fails all run the built-in kernels (no
 * cuDNN call), and the device's name says which. */
static void test_cudnn_conv(void **state)
{
    (void)state;
    char name[CUDNN_PATH_MAX + 512];
    emu = reinit(NULL, name, sizeof name);
    assert_non_null(strstr(name, ", cuDNN 9.0.0 from the emulator"));
    long n = conv_rows(emu);
    print_message("cuDNN: the conv rows ran %ld cuDNN convolutions\n", n);
    assert_int_equal(n, 36);

    emu = reinit("off", name, sizeof name);
    assert_non_null(strstr(name, "cuDNN off (CSREG_CUDNN=off): built-in kernels"));
    assert_int_equal(conv_rows(emu), 0);

    char dir[] = "/tmp/csreg_cudnn_XXXXXX", lib[64];
    assert_non_null(mkdtemp(dir));
    snprintf(lib, sizeof lib, "%s/libcudnn.so.9", dir);
    put_file(lib, "not a library\n");
    emu = reinit(dir, name, sizeof name);   /* a folder: its libcudnn.so.9 */
    assert_non_null(strstr(name, "no cuDNN (CSREG_CUDNN="));
    assert_non_null(strstr(name, lib));
    assert_non_null(strstr(name, "): built-in kernels"));
    assert_int_equal(conv_rows(emu), 0);
    rm_tree(dir);
    emu = reinit(lib, name, sizeof name);   /* gone */
    assert_non_null(strstr(name, "cannot open shared object file"));
    assert_int_equal(conv_rows(emu), 0);

    cs_emu_cudnn_fail_create(1);
    emu = reinit(NULL, name, sizeof name);
    assert_non_null(strstr(name, "cudnnCreate failed (CUDNN_STATUS_NOT_INITIALIZED): built-in"));
    assert_int_equal(conv_rows(emu), 0);
    cs_emu_cudnn_fail_create(0);
    emu = reinit(NULL, name, sizeof name);   /* as test_init left it */
    assert_non_null(strstr(name, "cuDNN 9.0.0"));
}

/* The batch norms through the emulator's cuDNN (training, inference,
 * backward: 3 cuDNN calls a case) and with CSREG_CUDNN_BN=off (the own
 * kernels: none, the convolutions still through cuDNN), each against the
 * CPU and against each other within the bn rows' 1e-4 (relative to the
 * largest reference magnitude): resnet20's first stage (B8 C16 8x8), an
 * odd HW (7x7) and one pixel, plain, with the ReLU, and with the residual
 * add and ReLU where the table has the fusion; then the parity rows. */
static const int bn_cases[][3] = {{8, 16, 64}, {3, 5, 49}, {5, 7, 1}};   /* B, C, HW */
enum { NBN = sizeof bn_cases / sizeof bn_cases[0] };

static void test_cudnn_bn(void **state)
{
    (void)state;
    static const char *const kname[] = {"bn", "bn+relu", "bn+add+relu"};
    char name[CUDNN_PATH_MAX + 512], why[256];
    double worst[3] = {0, 0, 0};   /* cudnn/cpu, own/cpu, cudnn/own */
    for (int kind = BN_PLAIN; kind <= BN_ADD_RELU; kind++)
        for (int q = 0; q < NBN; q++) {
            int B = bn_cases[q][0], C = bn_cases[q][1], HW = bn_cases[q][2];
            bn_in in;
            bn_out ref, on, off;
            assert_int_equal(bn_in_new(&in, B, C, HW, kind, 40 + (unsigned long)q), 0);
            assert_int_equal(bn_out_new(&ref, &in), 0);
            assert_int_equal(bn_out_new(&on, &in), 0);
            assert_int_equal(bn_out_new(&off, &in), 0);
            if (bn_run(&cs_nn_cpu_ops, &in, &ref, NULL, why, sizeof why))
                fail_msg("%s", why);
            emu = reinit(NULL, name, sizeof name);
            assert_non_null(strstr(name, "; batch norm: cuDNN"));
            if (kind == BN_ADD_RELU && !emu->bn_add_relu_forward) {
                print_message("cudnn %s: the table has no bn_add_relu; skipped\n", kname[kind]);
                bn_in_free(&in);
                bn_out_free(&ref);
                bn_out_free(&on);
                bn_out_free(&off);
                continue;
            }
            long before = cs_emu_cudnn_bns();
            if (bn_run(emu, &in, &on, &ref, why, sizeof why))
                fail_msg("%s", why);
            long n_on = cs_emu_cudnn_bns() - before;
            assert_int_equal(setenv("CSREG_CUDNN_BN", "off", 1), 0);
            emu = reinit(NULL, name, sizeof name);
            assert_non_null(strstr(name, "; batch norm: own kernels (CSREG_CUDNN_BN=off)"));
            before = cs_emu_cudnn_bns();
            long convs = cs_emu_cudnn_convs();
            if (bn_run(emu, &in, &off, &ref, why, sizeof why))
                fail_msg("%s", why);
            assert_int_equal(cs_emu_cudnn_bns() - before, 0);
            if (q == 0) {   /* the convolutions: cuDNN still */
                assert_int_equal(nn_parity_ops(&cs_nn_cpu_ops, emu, "conv_forward", 0), 0);
                assert_true(cs_emu_cudnn_convs() > convs);
            }
            assert_int_equal(unsetenv("CSREG_CUDNN_BN"), 0);
            assert_int_equal(n_on, 3);   /* training, inference, backward */
            double e[3][BN_OUTS];
            bn_out_err(&in, &on, &ref, &ref, e[0]);
            bn_out_err(&in, &off, &ref, &ref, e[1]);
            bn_out_err(&in, &on, &off, &ref, e[2]);
            for (int k = 0; k < BN_OUTS; k++) {
                if (e[0][k] < 0)
                    continue;
                print_message("cudnn %-11s B%d C%-2d HW%-2d %-12s: cudnn/cpu %.2e, own/cpu %.2e, "
                              "cudnn/own %.2e (tol 1e-04)\n", kname[kind], B, C, HW,
                              bn_out_name[k], e[0][k], e[1][k], e[2][k]);
                for (int j = 0; j < 3; j++) {
                    assert_true(e[j][k] <= 1e-4);
                    worst[j] = e[j][k] > worst[j] ? e[j][k] : worst[j];
                }
            }
            bn_in_free(&in);
            bn_out_free(&ref);
            bn_out_free(&on);
            bn_out_free(&off);
        }
    print_message("cudnn bn: the largest errors: cudnn/cpu %.2e, own/cpu %.2e, cudnn/own %.2e\n",
                  worst[0], worst[1], worst[2]);
    emu = reinit(NULL, name, sizeof name);   /* as test_init left it */
    long before = cs_emu_cudnn_bns();
    assert_int_equal(nn_parity_ops(&cs_nn_cpu_ops, emu, "bn_", NN_PARITY_VERBOSE), 0);
    long rows = cs_emu_cudnn_bns() - before;
    print_message("cuDNN: the bn rows ran %ld cuDNN batch norms\n", rows);
    assert_true(rows >= 18);   /* 6 rows of 3 shapes; the nodinp rows: the own kernels */
}

/* p (the CPU's memory, bytes long) moved into the emulator's */
static void *to_emu(void *p, size_t bytes)
{
    void *q = emu->alloc(bytes);
    assert_non_null(q);
    assert_int_equal(emu->upload(q, p, bytes), 0);
    cs_nn_cpu_ops.release(p);
    return q;
}

/* a resnet20 built on the CPU, moved onto the emulator before its first
 * batch: what cs_nn_build allocated (nn_model.c) */
static void nn_onto_emu(cs_nn *nn)
{
    size_t pb = nn->nparams * sizeof(float);
    nn->params = to_emu(nn->params, pb);
    nn->grads = to_emu(nn->grads, pb);
    nn->m = to_emu(nn->m, pb);
    nn->v = to_emu(nn->v, pb);
    nn->bufs = to_emu(nn->bufs, (nn->nbufs ? nn->nbufs : 1) * sizeof(float));
    for (int i = 0; i < nn->nlayers; i++)
        if (nn->layer[i].type == NN_BN) {
            nn->layer[i].mean = to_emu(nn->layer[i].mean, nn->layer[i].C * sizeof(float));
            nn->layer[i].rstd = to_emu(nn->layer[i].rstd, nn->layer[i].C * sizeof(float));
        }
    nn->regval = to_emu(nn->regval, nn->allrows * sizeof(double));
    nn->regtmp = to_emu(nn->regtmp, nn->maxrows * nn->maxcols * sizeof(float));
    nn->ops = emu;
}

/* ‖a − b‖ / ‖b‖ over n (b: the CPU's) */
static double rel2(const float *a, const float *b, size_t n)
{
    double d2 = 0, b2 = 1e-30;
    for (size_t i = 0; i < n; i++) {
        d2 += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        b2 += (double)b[i] * b[i];
    }
    return sqrt(d2 / b2);
}

/* one forward and backward of nn in training mode on d's first 8
 * examples: the loss, the gradient (np) and the running statistics (nb) */
static double fwd_bwd(cs_nn *nn, const cs_nn_data *d, float *g, float *bufs)
{
    enum { B = 8 };
    size_t idx[B] = {0, 1, 2, 3, 4, 5, 6, 7};
    cs_err err;
    double loss;
    int correct;
    assert_int_equal(nn_ensure_cap(nn, B, &err), 0);
    assert_int_equal(nn_load_batch(nn, d, idx, B, NULL, &err), 0);
    nn_forward(nn, B, 1);
    assert_int_equal(nn_batch_stats(nn, B, &loss, &correct, &err), 0);
    nn->ops->zero(nn->grads, nn->nparams * sizeof(float));
    nn_backward(nn, B);
    assert_int_equal(nn->ops->download(g, nn->grads, nn->nparams * sizeof(float)), 0);
    assert_int_equal(nn->ops->download(bufs, nn->bufs, nn->nbufs * sizeof(float)), 0);
    return loss / B;
}

/* the largest ‖a − b‖/‖b‖ over nn's tensors (of kind `only`, -1 any); which */
static double worst_tensor(const cs_nn *nn, const float *a, const float *b, int only,
                           const char **at)
{
    double worst = 0;
    *at = "";
    for (int t = 0; t < nn->nt; t++) {
        if (only >= 0 && (int)nn->t[t].kind != only)
            continue;
        double e = rel2(a + nn->t[t].off, b + nn->t[t].off, nn->t[t].n);
        if (e > worst) {
            worst = e;
            *at = nn->t[t].name;
        }
    }
    return worst;
}

/* resnet20 (28×28, both kinds of shortcut) on the CPU and on the emulator
 * with the convolutions and batch norms through its cuDNN (then with
 * CSREG_CUDNN_BN=off) from the same weights: one training batch of 8, its
 * loss, the gradient of every tensor (2-norm) and the running statistics
 * within 1e-3 relative; then two Adam steps (cs_nn_train): their loss
 * within 1e-3. What the steps changed of the weights is printed, not
 * checked: Adam's first steps are ±lr whatever the size of the gradient,
 * so an entry whose gradient is near 0 flips with rounding, and the second
 * step starts from weights that differ by that (8.9e-2 in the 2-norm of
 * resnet20's first convolution, with the gradients within 1.5e-6). */
static void test_cudnn_resnet20_step(void **state)
{
    (void)state;
    char name[CUDNN_PATH_MAX + 512];
    cs_nn_data d = nn_synth(16, 3);
    cs_nn_config cfg = {.kind = CS_NN_RESNET20, .seed = 2, .device = "cpu"};
    cs_nn_train_opts o = {.epochs = 1, .batch = 8};
    cs_err err;
    cs_nn *ref;
    assert_int_equal(cs_nn_new(&ref, &cfg, &err), 0);
    size_t np = ref->nparams, nb = ref->nbufs;
    float *p0 = malloc(np * sizeof *p0), *g0 = malloc(np * sizeof *g0),
          *b0 = malloc(nb * sizeof *b0), *p = malloc(np * sizeof *p),
          *g = malloc(np * sizeof *g), *b = malloc(nb * sizeof *b);
    assert_true(p0 && g0 && b0 && p && g && b);
    memcpy(p0, ref->params, np * sizeof *p0);
    double l0 = fwd_bwd(ref, &d, g0, b0);
    cs_nn_train_report rr;
    assert_int_equal(cs_nn_train(ref, &d, &o, &rr, &err), 0);
    for (size_t i = 0; i < np; i++)   /* what the steps changed */
        ref->params[i] -= p0[i];
    for (int bn_off = 0; bn_off < 2; bn_off++) {
        if (bn_off)
            assert_int_equal(setenv("CSREG_CUDNN_BN", "off", 1), 0);
        emu = reinit(NULL, name, sizeof name);
        cs_nn *nn;
        assert_int_equal(cs_nn_new(&nn, &cfg, &err), 0);
        nn_onto_emu(nn);
        long convs = cs_emu_cudnn_convs(), bns = cs_emu_cudnn_bns();
        double l = fwd_bwd(nn, &d, g, b);
        convs = cs_emu_cudnn_convs() - convs;
        bns = cs_emu_cudnn_bns() - bns;
        const char *at;
        double e_l = fabs(l - l0) / fabs(l0), e_g = worst_tensor(nn, g, g0, -1, &at),
               e_b = rel2(b, b0, nb);
        const char *how = bn_off ? "CSREG_CUDNN_BN=off" : "cuDNN batch norm";
        print_message("resnet20 batch cpu/emulator (%s): loss %.6f / %.6f (rel %.1e), the "
                      "gradient's worst tensor %.1e (%s), running statistics %.1e; cuDNN "
                      "convolutions %ld, batch norms %ld\n",
                      how, l0, l, e_l, e_g, at, e_b, convs, bns);
        assert_true(e_l <= 1e-3 && e_g <= 1e-3 && e_b <= 1e-3);
        assert_true(convs > 0);
        /* 19 batch norms, forward and backward; off: none */
        assert_int_equal(bns, bn_off ? 0 : 2 * 19);
        cs_nn_train_report rg;
        if (cs_nn_train(nn, &d, &o, &rg, &err))
            fail_msg("resnet20 on the emulator: %s", err.msg);
        assert_int_equal(rg.steps, 2);
        assert_int_equal(emu->download(p, nn->params, np * sizeof *p), 0);
        for (size_t i = 0; i < np; i++)
            p[i] -= p0[i];
        double e_loss = fabs(rg.loss - rr.loss) / fabs(rr.loss),
               e_w = worst_tensor(nn, p, ref->params, NN_T_W, &at);
        print_message("resnet20 2 steps cpu/emulator (%s): loss %.6f / %.6f (rel %.1e), the "
                      "steps' change of the weights: worst tensor %.1e (%s)\n",
                      how, rr.loss, rg.loss, e_loss, e_w, at);
        assert_true(e_loss <= 1e-3);
        cs_nn_free(nn);
    }
    assert_int_equal(unsetenv("CSREG_CUDNN_BN"), 0);
    emu = reinit(NULL, name, sizeof name);
    free(p0);
    free(g0);
    free(b0);
    free(p);
    free(g);
    free(b);
    cs_nn_free(ref);
    cs_nn_data_free(&d);
}

/* a tiny mlp or cnn on the emulator, its ops `ops` */
static cs_nn *tiny_emu(cs_nn_kind kind, const cs_nn_ops *ops)
{
    cs_nn_config cfg = {.kind = kind, .seed = 11, .device = "cpu", .nhidden = 1};
    cfg.hidden[0] = kind == CS_NN_MLP ? 16 : 8;
    cs_nn *nn;
    cs_err err;
    assert_int_equal(cs_nn_new(&nn, &cfg, &err), 0);
    nn_onto_emu(nn);
    nn->ops = ops;
    return nn;
}

/* A training step as one CUDA graph (nn_cuda_graph.cu): the mlp and the
 * cnn trained 12 and 6 steps with a regularizer, recorded at the second
 * step and replayed after, end with the same bits (weights, batch-norm
 * statistics, loss, regularizer value) as the same run op by op (the table
 * without graph_begin): Adam's learning rate (cosine) and step reach each
 * replay;
 * so does fine-tuning their ternary versions (scales' gradients, the
 * quantized weights).
 * A synchronous call while recording fails the recording with the op's
 * name and leaves no error behind; a reallocated scratch makes the graph
 * stale; CSREG_CUDA_GRAPH=off and a regularizer evaluated on the host run
 * op by op, silently. */
static void test_graph_step(void **state)
{
    (void)state;
    emu = module_again("CSREG_CUDA_GRAPH", NULL, 0);   /* as the engine sets it up */
    static cs_nn_ops plain;
    plain = *emu;
    plain.graph_begin = NULL;
    cs_nn_data d = nn_synth(48, 5);
    cs_err err;
    cs_reg *reg, *host_reg;
    assert_int_equal(cs_reg_new(&reg, "bin", NULL, 0, 1, &err), 0);
    assert_int_equal(cs_reg_new(&host_reg, "fixed", NULL, 0, 1, &err), 0);
    for (int kind = 0; kind < 2; kind++) {
        const char *kname = kind == CS_NN_MLP ? "mlp" : "cnn";
        cs_nn *a = tiny_emu((cs_nn_kind)kind, emu), *b = tiny_emu((cs_nn_kind)kind, &plain);
        /* the mlp 12 steps, the cnn 6 (its convolutions are slow here) */
        cs_nn_train_opts o = {.epochs = kind == CS_NN_MLP ? 2 : 1, .batch = 8, .reg = reg,
                              .lambda = 0.1, .lr = 3e-3};
        cs_nn_train_report ra, rb;
        long launches = cs_emu_graph_launches();
        if (cs_nn_train(a, &d, &o, &ra, &err))
            fail_msg("%s with a graph: %s", kname, err.msg);
        launches = cs_emu_graph_launches() - launches;
        assert_int_equal(cs_nn_train(b, &d, &o, &rb, &err), 0);
        print_message("graph %s: %zu steps, %zu by the graph (%ld launches), loss %.9g / %.9g, "
                      "reg %.9g / %.9g%s%s\n",
                      kname, ra.steps, ra.graph_steps, launches, ra.loss, rb.loss, ra.reg_value,
                      rb.reg_value, ra.graph_note[0] ? "; " : "", ra.graph_note);
        assert_int_equal(ra.steps, kind == CS_NN_MLP ? 12 : 6);
        assert_int_equal(ra.graph_steps, ra.steps - 1);
        assert_int_equal(launches, (long)ra.steps - 1);
        assert_string_equal(ra.graph_note, "");
        assert_int_equal(rb.graph_steps, 0);
        assert_true(ra.loss == rb.loss && ra.reg_value == rb.reg_value);
        size_t np = a->nparams * sizeof(float), nb = (a->nbufs ? a->nbufs : 1) * sizeof(float);
        float *pa = malloc(np), *pb = malloc(np), *ba = malloc(nb), *bb = malloc(nb);
        assert_true(pa && pb && ba && bb);
        assert_int_equal(emu->download(pa, a->params, np), 0);
        assert_int_equal(emu->download(pb, b->params, np), 0);
        assert_int_equal(emu->download(ba, a->bufs, nb), 0);
        assert_int_equal(emu->download(bb, b->bufs, nb), 0);
        assert_memory_equal(pa, pb, np);
        assert_memory_equal(ba, bb, nb);
        /* fine-tuning a ternary network: the scales' gradients and the
         * quantized weights in the graph too */
        cs_nn_quant_report qa, qb;
        assert_int_equal(cs_nn_quantize(a, 1, CS_NN_EXCL_DEFAULT, &qa, &err), 0);
        assert_int_equal(cs_nn_quantize(b, 1, CS_NN_EXCL_DEFAULT, &qb, &err), 0);
        cs_nn_train_opts of = {.epochs = 1, .batch = 8, .finetune = 1};
        assert_int_equal(cs_nn_train(a, &d, &of, &ra, &err), 0);
        assert_int_equal(cs_nn_train(b, &d, &of, &rb, &err), 0);
        print_message("graph %s fine-tuning: %zu steps, %zu by the graph, loss %.9g / %.9g\n",
                      kname, ra.steps, ra.graph_steps, ra.loss, rb.loss);
        assert_int_equal(ra.graph_steps, ra.steps - 1);
        assert_true(ra.loss == rb.loss);
        assert_int_equal(emu->download(pa, a->params, np), 0);
        assert_int_equal(emu->download(pb, b->params, np), 0);
        assert_memory_equal(pa, pb, np);
        /* a regularizer without a float kernel: its host part keeps the
         * steps op by op */
        cs_nn_train_opts oh = {.epochs = 1, .batch = 8, .reg = host_reg, .lambda = 0.1};
        launches = cs_emu_graph_launches();
        assert_int_equal(cs_nn_train(a, &d, &oh, &ra, &err), 0);
        assert_int_equal(ra.graph_steps, 0);
        assert_int_equal(cs_emu_graph_launches(), launches);
        assert_string_equal(ra.graph_note, "");
        free(pa);
        free(pb);
        free(ba);
        free(bb);
        cs_nn_free(a);
        cs_nn_free(b);
    }
    /* a download while recording: the recording fails, naming it */
    char why[200];
    float *dev = emu->alloc(64 * sizeof(float)), host[64];
    assert_non_null(dev);
    assert_int_equal(emu->graph_begin(why, sizeof why), 0);
    emu->axpy(dev, dev + 32, 2.0f, 32);
    assert_int_not_equal(emu->download(host, dev, sizeof host), 0);
    assert_int_equal(emu->graph_end(why, sizeof why), -1);
    print_message("graph: a download while recording: %s\n", why);
    assert_non_null(strstr(why, "download"));
    assert_int_equal(emu->error(why, sizeof why), 0);   /* nothing left behind */
    assert_int_equal(emu->graph_launch(1e-3f, 1), 1);   /* no graph */
    /* recorded, it runs at each launch; a larger scratch drops it */
    for (int i = 0; i < 64; i++)
        host[i] = (float)i;
    assert_int_equal(emu->upload(dev, host, sizeof host), 0);
    assert_int_equal(emu->graph_begin(why, sizeof why), 0);
    emu->axpy(dev, dev + 32, 2.0f, 32);
    assert_int_equal(emu->graph_end(why, sizeof why), 0);
    float got[64];
    assert_int_equal(emu->download(got, dev, sizeof got), 0);
    assert_true(got[0] == 0.0f && got[31] == 31.0f);   /* recorded, not run */
    assert_int_equal(emu->graph_launch(1e-3f, 1), 0);
    assert_int_equal(emu->graph_launch(1e-3f, 2), 0);
    assert_int_equal(emu->download(got, dev, sizeof got), 0);
    assert_true(got[0] == 128.0f && got[31] == 31.0f + 4 * 63.0f);   /* twice */
    size_t big = (size_t)1 << 22;   /* an overlapping copy: the scratch grows */
    float *dbig = emu->alloc(big + 64);
    assert_non_null(dbig);
    emu->copy(dbig + 16, dbig, big);
    assert_int_equal(emu->graph_launch(1e-3f, 3), 1);
    emu->release(dbig);
    emu->release(dev);
    assert_int_equal(emu->error(why, sizeof why), 0);
    /* CSREG_CUDA_GRAPH=off: op by op, without a word */
    emu = module_again("CSREG_CUDA_GRAPH", "off", 0);
    assert_int_equal(emu->graph_begin(why, sizeof why), -1);
    assert_string_equal(why, "CSREG_CUDA_GRAPH=off");
    cs_nn *c = tiny_emu(CS_NN_MLP, emu);
    cs_nn_train_opts o = {.epochs = 1, .batch = 8};
    cs_nn_train_report rc;
    assert_int_equal(cs_nn_train(c, &d, &o, &rc, &err), 0);
    assert_int_equal(rc.graph_steps, 0);
    assert_string_equal(rc.graph_note, "");
    cs_nn_free(c);
    assert_int_equal(unsetenv("CSREG_CUDA_GRAPH"), 0);
    char name[CUDNN_PATH_MAX + 512];
    emu = reinit(NULL, name, sizeof name);
    cs_reg_free(reg);
    cs_reg_free(host_reg);
    cs_nn_data_free(&d);
}

/* Where the module looks for cuDNN, in a tree of fake files: the soname,
 * $CUDA_HOME, /usr/local/cuda, PyTorch's wheels under the system's, the
 * virtual environment's and ~/.local's Python (a folder linked to another
 * counted once); CSREG_CUDNN's file, or its folder's libcudnn.so.9, alone. */
static void test_cudnn_search(void **state)
{
    (void)state;
    char root[] = "/tmp/csreg_cudnn_XXXXXX";
    assert_non_null(mkdtemp(root));
    static const char *const files[] = {
        "/cuda/lib64/libcudnn.so.9",
        "/usr/local/cuda/lib64/libcudnn.so.9",
        "/usr/lib/python3.11/dist-packages/nvidia/cudnn/lib/libcudnn.so.9",
        "/usr/local/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
        "/venv/lib/python3.10/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
        "/home/.local/lib/python3.9/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
    };
    enum { NF = sizeof files / sizeof *files };
    char want[NF + 1][CUDNN_PATH_MAX], p[CUDNN_PATH_MAX], q[CUDNN_PATH_MAX];
    snprintf(want[0], sizeof want[0], "libcudnn.so.9");
    for (int i = 0; i < NF; i++) {
        snprintf(want[i + 1], sizeof want[i + 1], "%s%s", root, files[i]);
        put_file(want[i + 1], "");
    }
    snprintf(p, sizeof p, "%s/usr/local/lib/python3.12/site-packages", root);
    snprintf(q, sizeof q, "%s/usr/local/lib/python3.12/dist-packages", root);
    assert_int_equal(symlink(p, q), 0);
    char cuda[256], venv[256], home[256];
    snprintf(cuda, sizeof cuda, "%s/cuda", root);
    snprintf(venv, sizeof venv, "%s/venv", root);
    snprintf(home, sizeof home, "%s/home", root);
    static char got[CUDNN_MAX_CANDIDATES][CUDNN_PATH_MAX];
    cudnn_env e = {NULL, cuda, venv, home, root};
    int n = cudnn_candidates(&e, got, CUDNN_MAX_CANDIDATES);
    for (int i = 0; i < n; i++)
        print_message("cuDNN candidate %d: %s\n", i + 1, got[i]);
    assert_int_equal(n, NF + 1);
    for (int i = 0; i <= NF; i++)
        assert_string_equal(got[i], want[i]);

    e.cudnn = cuda;   /* a folder */
    assert_int_equal(cudnn_candidates(&e, got, CUDNN_MAX_CANDIDATES), 1);
    snprintf(p, sizeof p, "%s/libcudnn.so.9", cuda);
    assert_string_equal(got[0], p);
    e.cudnn = want[3];   /* a file */
    assert_int_equal(cudnn_candidates(&e, got, CUDNN_MAX_CANDIDATES), 1);
    assert_string_equal(got[0], want[3]);
    assert_int_equal(cudnn_candidates(&e, got, 0), 0);   /* no room */

    rm_tree(root);   /* nothing there: the soname alone */
    cudnn_env none = {NULL, cuda, venv, home, root};
    assert_int_equal(cudnn_candidates(&none, got, CUDNN_MAX_CANDIDATES), 1);
    assert_string_equal(got[0], "libcudnn.so.9");
}

/* overlapping copies, the first error kept and handed over once */
/* CSREG_CUDA_PROFILE=FILE: at shutdown, a line per op name with its
 * calls, GPU and host milliseconds, and their total */
static void test_profile(void **state)
{
    (void)state;
    char path[] = "/tmp/csreg_prof_XXXXXX", name[256];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(setenv("CSREG_CUDA_PROFILE", path, 1), 0);
    const cs_nn_ops *o = reinit(NULL, name, sizeof name);
    float h[6] = {1, -2, 3, -4, 5, -6}, back[6];
    float *d = o->alloc(sizeof h);
    assert_non_null(d);
    assert_int_equal(o->upload(d, h, sizeof h), 0);
    for (int i = 0; i < 3; i++)
        o->relu_forward(d, d, 6);
    assert_int_equal(o->download(back, d, sizeof back), 0);
    assert_true(back[0] == 1.0f && back[1] == 0.0f);
    o->release(d);
    cs_nn_cuda_module_get()->shutdown();   /* writes the file */
    assert_int_equal(unsetenv("CSREG_CUDA_PROFILE"), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256], op[64];
    long calls, relu = 0, up = 0, down = 0, total = 0;
    double gpu, host, gsum = 0, gtotal = -1;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || sscanf(line, "%63s %ld %lf %lf", op, &calls, &gpu, &host) != 4)
            continue;
        assert_true(gpu >= 0 && host >= 0);
        if (!strcmp(op, "total")) {
            total = calls;
            gtotal = gpu;
            continue;
        }
        gsum += gpu;
        relu += !strcmp(op, "relu_forward") ? calls : 0;
        up += !strcmp(op, "upload") ? calls : 0;
        down += !strcmp(op, "download") ? calls : 0;
    }
    fclose(f);
    remove(path);
    print_message("profile: relu_forward %ld, upload %ld, download %ld calls; total %ld, %.3f GPU ms\n",
                  relu, up, down, total, gtotal);
    assert_int_equal(relu, 3);
    assert_int_equal(up, 1);
    assert_int_equal(down, 1);
    assert_int_equal(total, 5);
    assert_true(gtotal > 0 && fabs(gtotal - gsum) < 1e-2);
    emu = reinit(NULL, name, sizeof name);   /* on without the profile */
}

static void test_errors(void **state)
{
    (void)state;
    nn_device_errors_check(emu);
}

static void test_alloc_failure_and_leaks(void **state)
{
    (void)state;
    size_t before = cs_emu_device_bytes();
    cs_emu_fail_malloc_after(0);
    assert_null(emu->alloc(64));
    cs_emu_fail_malloc_after(-1);
    char msg[256];
    assert_int_equal(emu->error(msg, sizeof msg), 0);   /* a NULL answer, not a kept error */
    float *p = emu->alloc(64 * sizeof(float));
    assert_non_null(p);
    float h[64];
    assert_int_equal(emu->download(h, p, sizeof h), 0);
    for (int i = 0; i < 64; i++)   /* alloc zeroes what cudaMalloc leaves as NaN here */
        assert_true(h[i] == 0.0f);
    emu->release(p);
    assert_int_equal(cs_emu_device_bytes(), before);
    cs_nn_cuda_module_get()->shutdown();
    assert_int_equal(cs_emu_device_bytes(), 0);
}


/* The batched sweep kernel, trial by trial against the CPU's solver: the
 * same problems (the generator ported), the same starts, the same FISTA and
 * Douglas–Rachford steps; only the projection's rounding differs (Gram–
 * Schmidt twice here, Householder QR on the CPU) and the order of the
 * block's sums. A trial is equal when its success and starts are the
 * CPU's; at most `max_differ` of a kind may differ (a borderline trial
 * that rounding tips), and at least 9 in 10 take the same iterations.
 * One line per kind: "sweep kernel kind=K: T trials equal to the CPU";
 * per method (by_method): "sweep kernel method=M: ...". */
typedef struct kernel_case {
    cs_kind kind;
    int gkind;                /* enum cs_sweep_cuda_kind */
    const char *methods[2];   /* a CS regularizer (FISTA), a norm (DR); 2bit: equ */
    int nm;
    size_t N;
    size_t Ms[3], Ks[3];      /* grid points: M, K (0: dense) */
    int npoints;
    long maxit;
    int max_differ;
    int same_pct;             /* at least this share (%) with the same iterations */
    cs_stop stop;             /* the start's rule (0: oracle) */
    double tol;               /* its tolerance (0: 1e-8) */
    int by_method;            /* the line names the method (and the rule) */
} kernel_case;

enum { KT = 6 };

/* a method's regularizer as sweep_gpu.c maps it (enum cs_sweep_cuda_reg) */
static int kernel_fn_of(const cs_reg_info *info)
{
    if (cs_reg_info_defined(info))
        return CS_SWEEP_CUDA_REG_DEFINED;
    static const struct {
        cs_reg_kernel k;
        int fn;
    } kernels[] = {{CS_REG_KERNEL_OSB, CS_SWEEP_CUDA_REG_OSB},
                   {CS_REG_KERNEL_TER, CS_SWEEP_CUDA_REG_TER},
                   {CS_REG_KERNEL_BBIN, CS_SWEEP_CUDA_REG_BBIN},
                   {CS_REG_KERNEL_BINEXP, CS_SWEEP_CUDA_REG_BINEXP},
                   {CS_REG_KERNEL_L2L1, CS_SWEEP_CUDA_REG_L2L1},
                   {CS_REG_KERNEL_L2L1H, CS_SWEEP_CUDA_REG_L2L1H},
                   {CS_REG_KERNEL_FIXED, CS_SWEEP_CUDA_REG_FIXED}};
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++)
        if (info->kernel == kernels[k].k)
            return kernels[k].fn;
    if (info->form == CS_FORM_HOLDER)
        return CS_SWEEP_CUDA_REG_HOLDER;
    if (info->form == CS_FORM_SI)
        return CS_SWEEP_CUDA_REG_SI;
    return strcmp(info->name, "beta") ? CS_SWEEP_CUDA_REG_BIN : CS_SWEEP_CUDA_REG_BETA;
}

/* the parameters a test's method text gives, over the CPU's defaults */
static void kernel_params(const cs_method *m, cs_sweep_cuda_job *job)
{
    cs_param ps[CS_METHOD_MAX_PARAMS];
    size_t n = cs_method_params(m, ps, CS_METHOD_MAX_PARAMS);
    job->r = job->alpha = job->beta = 1.0;
    job->p = job->q = 2.0;
    for (size_t i = 0; i < n; i++) {
        double v = strtod(ps[i].text, NULL);
        if (!strcmp(ps[i].key, "r"))
            job->r = v;
        else if (!strcmp(ps[i].key, "p"))
            job->p = v;
        else if (!strcmp(ps[i].key, "q"))
            job->q = v;
        else if (!strcmp(ps[i].key, "eps"))
            job->eps = v;
        else if (!strcmp(ps[i].key, "alpha"))
            job->alpha = v;
        else if (!strcmp(ps[i].key, "base"))
            job->base = !strcmp(ps[i].text, "osb")   ? CS_SWEEP_CUDA_REG_OSB
                        : !strcmp(ps[i].text, "ter") ? CS_SWEEP_CUDA_REG_TER
                                                     : CS_SWEEP_CUDA_REG_BIN;
        else if (!strcmp(ps[i].key, "beta") && !(job->learn_beta = !strcmp(ps[i].text, "learn")))
            job->beta = v;
    }
}

/* method i of c's job as sweep_gpu.c builds it */
static void kernel_job(const kernel_case *c, const cs_method *m, cs_sweep_cuda_job *job)
{
    const cs_reg_info *info = m->info;
    job->kind = c->gkind;
    job->stop = (int)c->stop;
    job->tol = c->tol > 0 ? c->tol : 1e-8;
    if (c->kind == CS_PROB_2BIT) {
        job->method = CS_SWEEP_CUDA_FISTA_2BIT;
        job->max_starts = 2;
        job->lambda = 1e-5;
        return;
    }
    int dr = info->prox != CS_REG_PROX_NONE;
    job->method = dr ? CS_SWEEP_CUDA_DR : CS_SWEEP_CUDA_FISTA;
    job->fn = dr ? (info->prox == CS_REG_PROX_L1 ? CS_SWEEP_CUDA_PROX_L1 : CS_SWEEP_CUDA_PROX_LINF)
                 : kernel_fn_of(info);
    job->dr_t = info->prox == CS_REG_PROX_L1 ? 1.0 : 10.0;
    job->max_starts = dr ? 1 : 2;
    job->first_start_raw = c->kind == CS_PROB_OSB || c->kind == CS_PROB_TER;
    kernel_params(m, job);
    if (job->fn == CS_SWEEP_CUDA_REG_DEFINED && !dr) {   /* the job holds it while it runs */
        static cs_expr_reg_code code;
        cs_err err;
        assert_int_equal(cs_reg_export(info, &code, &err), 0);
        job->defined = &code;
    }
}

static void kernel_trials(const kernel_case *c)
{
    const cs_sweep_cuda_module *mod = cs_sweep_cuda_module_get();
    cs_method mv[2];
    methods_of(c->methods, (size_t)c->nm, mv);
    sweep_tally k = {0};
    for (int mi = 0; mi < c->nm; mi++)
        for (int g = 0; g < c->npoints; g++) {
            size_t M = c->Ms[g], K = c->Ks[g];
            uint64_t ps[KT], ms[KT];
            unsigned char succ[KT];
            long iters[KT];
            int starts[KT];
            sweep_trial_streams(c->N, M, K, KT, &mv[mi], ps, ms);
            cs_sweep_cuda_job job = {
                .N = (int)c->N, .M = (int)M, .K = (int)K, .trials = KT, .seed = 7,
                .problem_stream = ps, .method_stream = ms,
                .maxit = c->maxit, .success_tol = 1e-2,
                .success = succ, .iters = iters, .starts = starts};
            kernel_job(c, &mv[mi], &job);
            char why[256];
            int rc = mod->run(0, &job, 1, why, sizeof why);
            if (rc)
                print_message("%s: %s\n", c->methods[mi], why);
            assert_int_equal(rc, 0);
            sweep_cpu_ref ref = {.ps = {.kind = c->kind, .N = c->N, .M = M, .K = K},
                                 .seed = 7, .mv = &mv[mi], .nm = 1, .name_k = 1,
                                 .so = {.maxit = c->maxit, .restarts = 2, .stop = c->stop,
                                        .tol = c->tol}};
            for (long t = 0; t < KT; t++) {
                cs_err err;
                assert_int_equal(sweep_trial_vs_cpu(&ref, t, &succ[t], &iters[t], &starts[t],
                                                    &k, &err), 0);
            }
        }
    int equal = k.equal, same_iters = k.same_iters, total = k.total, won = k.won,
        restarted = k.restarted;
    char what[128];
    if (c->by_method && c->stop != CS_STOP_ORACLE)
        snprintf(what, sizeof what, "method=%s stop=%s", c->methods[0], cs_stop_name(c->stop));
    else if (c->by_method)
        snprintf(what, sizeof what, "method=%s", c->methods[0]);
    else if (c->stop != CS_STOP_ORACLE)
        snprintf(what, sizeof what, "kind=%s stop=%s", cs_problem_kind_name(c->kind),
                 cs_stop_name(c->stop));
    else
        snprintf(what, sizeof what, "kind=%s", cs_problem_kind_name(c->kind));
    char at[64];   /* a method's line names its kind too */
    snprintf(at, sizeof at, c->by_method ? "N=%zu, kind %s" : "N=%zu", c->N,
             cs_problem_kind_name(c->kind));
    print_message("sweep kernel %s: %d trials equal to the CPU (of %d: %s%s%s at %s, %d "
                  "successes, %d restarted; %d differ by rounding, at most %d allowed; %d with "
                  "the same iterations)\n", what, equal, total, c->methods[0],
                  c->nm > 1 ? " and " : "", c->nm > 1 ? c->methods[1] : "", at, won, restarted,
                  total - equal, c->max_differ, same_iters);
    /* a sample that tells success from failure (a method's: that succeeds) */
    assert_true(won > 0 && (won < total || c->by_method));
    assert_true(total - equal <= c->max_differ);
    assert_true(same_iters * 100 >= total * c->same_pct);
}

static void test_sweep_trials(void **state)
{
    (void)state;
    assert_int_equal(cs_sweep_cuda_module_get()->abi, CS_SWEEP_CUDA_ABI);
    const kernel_case cases[] = {
        {CS_PROB_BIN, CS_SWEEP_CUDA_BIN, {"bin", "linf"}, 2, 24, {11, 19}, {0, 0}, 2, 200, 0, 90,
         0, 0, 0},
        {CS_PROB_OSB, CS_SWEEP_CUDA_OSB, {"osb", "l1"}, 2, 24, {16, 14}, {0, 6}, 2, 120, 0, 90,
         0, 0, 0},
        {CS_PROB_TER, CS_SWEEP_CUDA_TER, {"ter", "l1"}, 2, 24, {16, 14}, {0, 6}, 2, 120, 0, 90,
         0, 0, 0},
        /* 2bit has no projection to damp rounding: b = Ax* rounds differently
         * (BLAS's dgemv on the CPU), and Barzilai–Borwein steps amplify it.
         * On the CPU alone, b one ulp larger changes 7 of 60 trials at
         * M = 10, 8 (maxit 300, two starts); here at most 2 of 12 may. */
        {CS_PROB_2BIT, CS_SWEEP_CUDA_2BIT, {"equ"}, 1, 10, {10, 9}, {0, 0}, 2, 300, 2, 75,
         0, 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        kernel_trials(&cases[k]);
}

/* every other method the kernel takes (binary-variants.csr and
 * binary-baselines.csr, their parameters, the bases of holder and si on
 * osb and ter), and the residual stopping rules, trial by trial */
static void test_sweep_methods(void **state)
{
    (void)state;
#define BIN_M(m, M) {CS_PROB_BIN, CS_SWEEP_CUDA_BIN, {m}, 1, 24, {M}, {0}, 1, 80, 0, 90, 0, 0, 1}
#define RULE(m, st, tol, pct) \
    {CS_PROB_BIN, CS_SWEEP_CUDA_BIN, {m}, 1, 24, {16}, {0}, 1, 300, 0, pct, st, tol, 1}
#define RULE2BIT(st, tol) \
    {CS_PROB_2BIT, CS_SWEEP_CUDA_2BIT, {"equ"}, 1, 10, {10}, {0}, 1, 300, 1, 0, st, tol, 0}
    /* M where most trials succeed (a failure costs the emulator most);
     * the residual rules run a start to convergence: rounding (and the
     * restarts it tips) moves where they fire by a few iterations */
    const kernel_case cases[] = {
        BIN_M("holder", 16), BIN_M("si", 16), BIN_M("l2l1", 20), BIN_M("l2l1h", 20),
        BIN_M("binexp", 19), BIN_M("bbin", 19), BIN_M("fixed:alpha=1", 16),
        BIN_M("beta:beta=1", 16), BIN_M("beta:beta=learn", 16), BIN_M("holder:r=1.5", 16),
        BIN_M("si:r=2:eps=0.01", 16),
        /* other p, q: reg_holder.c's rescaled path (its own kernel) */
        BIN_M("holder:p=3:q=1.5", 16), BIN_M("si:p=4:q=1.3333333333333333:eps=0.01", 16),
        {CS_PROB_OSB, CS_SWEEP_CUDA_OSB, {"holder:p=1.5:q=3:base=osb"}, 1, 24, {22}, {0}, 1,
         80, 0, 90, 0, 0, 1},
        {CS_PROB_TER, CS_SWEEP_CUDA_TER, {"si:p=1.25:q=5:r=0.5:base=ter"}, 1, 24, {20}, {6}, 1,
         80, 0, 90, 0, 0, 1},
        {CS_PROB_OSB, CS_SWEEP_CUDA_OSB, {"holder:base=osb"}, 1, 24, {16}, {0}, 1, 80, 0, 90,
         0, 0, 1},
        {CS_PROB_TER, CS_SWEEP_CUDA_TER, {"si:base=ter"}, 1, 24, {20}, {6}, 1, 80, 0, 90, 0, 0,
         1},
        RULE("bin", CS_STOP_HYBRID, 1e-4, 50), RULE("bin", CS_STOP_RATIO, 1e-4, 50),
        RULE("beta:beta=learn", CS_STOP_NORMALIZED, 1e-4, 50),
        RULE("linf", CS_STOP_RESIDUAL, 1e-4, 50),
        /* 2bit's adaptive steps: rounding tips its trials (above), and a
         * start run long to a residual rule moves by some iterations (at
         * ratio 1e-2, 1e-3 every start ends at the CPU's iteration, 21 to
         * 56, all failing); with Δx = −τ∇f, ‖Δx‖/τ is ‖∇f‖ and the
         * normalized residual about 1 */
        RULE2BIT(CS_STOP_RATIO, 1e-4), RULE2BIT(CS_STOP_RESIDUAL, 1e-2),
        RULE2BIT(CS_STOP_NORMALIZED, 1e-4), RULE2BIT(CS_STOP_HYBRID, 1e-4),
    };
#undef BIN_M
#undef RULE
#undef RULE2BIT
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        kernel_trials(&cases[k]);
}

/* `sweep ... device=cuda` through the engine (cs_sweep_run with the
 * emulated module) against device=cpu, for each kind the GPU takes (osb
 * on a γ grid with K fixed, ter on a K grid): every trial and the CSV the
 * same (exact); 2bit, whose trials rounding can tip (above): the CSV
 * compared, at most one trial's outcome different. */
typedef struct engine_case {
    cs_kind kind;
    const char *methods[6];
    size_t nm, N;
    cs_axis axis;
    double values[2];         /* γ or K */
    size_t K;
    long trials, maxit;
    int restarts;
    int exact;
} engine_case;

static void sweep_engine_kind(const engine_case *c)
{
    cs_method mv[6];
    methods_of(c->methods, c->nm, mv);
    cs_sweep_spec sp = {.kind = c->kind, .N = c->N, .axis = c->axis, .values = c->values,
                        .nvalues = 2, .M = 12, .K = c->K, .methods = mv, .nmethods = c->nm,
                        .trials = c->trials, .threads = 1, .seed = 3};
    sp.solve.maxit = c->maxit;
    sp.solve.restarts = c->restarts;
    sweep_vs v;
    cs_err err;
    assert_int_equal(sweep_cpu_vs_cuda(&sp, &v, &err), 0);
    char what[160] = "";   /* several methods: named */
    for (size_t m = 0; c->nm > 2 && m < c->nm; m++)
        snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s", m ? "," : " methods=",
                 c->methods[m]);
    print_message("sweep device=cuda kind=%s%s: the CSV of %zu rows %s the CPU's (%zu of %zu "
                  "solves succeeded)\n", cs_problem_kind_name(c->kind), what, v.rows,
                  v.csv_equal ? "equals" : "differs from", v.won, v.solves);
    if (c->exact) {
        assert_true(v.same_success == 1.0 && v.same_iters == 1.0);
        assert_true(v.csv_equal);
    } else {
        assert_true(v.same_success * (double)v.solves >= (double)v.solves - 1.0);
    }
}

static void test_sweep_engine(void **state)
{
    (void)state;
    cs_sweep_gpu_use_module(cs_sweep_cuda_module_get());
    /* osb and ter with three starts: the CPU runs the second and third in
     * lockstep */
    const engine_case cases[] = {
        {CS_PROB_BIN, {"bin", "linf"}, 2, 20, CS_AXIS_GAMMA, {0.5, 0.8}, 0, 3, 150, 2, 1},
        {CS_PROB_OSB, {"osb", "l1"}, 2, 20, CS_AXIS_GAMMA, {0.5, 0.8}, 5, 2, 150, 3, 1},
        {CS_PROB_TER, {"ter", "l1"}, 2, 20, CS_AXIS_K, {4, 8}, 0, 2, 150, 3, 1},
        {CS_PROB_2BIT, {"equ"}, 1, 10, CS_AXIS_GAMMA, {1.0, 0.9}, 0, 2, 300, 2, 0},
        /* sessions/binary-variants.csr and binary-baselines.csr, small */
        {CS_PROB_BIN, {"bin", "holder", "si", "l2l1", "binexp", "linf"}, 6, 20, CS_AXIS_GAMMA,
         {0.6, 0.8}, 0, 2, 100, 3, 1},
        {CS_PROB_BIN, {"bin", "beta:beta=1", "beta:beta=learn", "linf"}, 4, 20, CS_AXIS_GAMMA,
         {0.6, 0.8}, 0, 2, 100, 3, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        sweep_engine_kind(&cases[k]);
    /* what the GPU does not take is refused with what it does: fixed
     * whose α⁴ overflows (reg_fast_flat.c) */
    const char *methods[] = {"bin", "fixed:alpha=1e100"};
    cs_method mv[2];
    methods_of(methods, 2, mv);
    const double gammas[] = {0.5};
    cs_sweep_spec sp = {.kind = CS_PROB_TER, .N = 20, .axis = CS_AXIS_GAMMA, .values = gammas,
                        .nvalues = 1, .methods = mv, .nmethods = 2, .trials = 1, .threads = 1,
                        .seed = 3, .device = CS_DEVICE_CUDA};
    const char *takes = "sweep device=cuda runs kinds bin, osb and ter (K= too) with methods "
                        "bin, osb, ter, bbin, binexp, l2l1, l2l1h, fixed, holder, si, beta, "
                        "those made by reg define (FISTA) and linf, l1 (Douglas-Rachford), "
                        "and kind 2bit with method equ";
    cs_sweep_result *res;
    cs_err err;
    assert_int_equal(cs_sweep_run(&sp, &res, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, takes));
    assert_non_null(strstr(err.msg, "not fixed:alpha=1e100"));
    sp.kind = CS_PROB_2BIT;   /* 2bit takes its own method only */
    sp.nmethods = 1;
    assert_int_equal(cs_sweep_run(&sp, &res, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "not bin"));
    sp.methods = mv + 1;   /* FISTA's default mode only (2bit: adaptive) */
    cs_kind_method(CS_PROB_2BIT, &mv[1]);
    sp.solve.mode = CS_MODE_ACCEL;
    assert_int_equal(cs_sweep_run(&sp, &res, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "FISTA's default mode (adaptive), not mode=accel"));
    cs_sweep_gpu_use_module(NULL);
}

/* regularizers made by reg define, g and h by the device's interpreter
 * (sweep_expr.cuh) from the exported bytecode: the tour's `four` (g = x⁴ +
 * 9, h = 10x², zero at the levels ±1, ±3 among others) and a
 * transcendental one (g = e^(−x²), h = 1: binexp's pair, by expressions),
 * and si's form (g = x², h = 1: si on bin at r = 0.5, ε = 0.01), trial by
 * trial on kind bin; then through the engine (sweep_gpu.c exports
 * the code into the job) */
static void test_sweep_defined(void **state)
{
    (void)state;
    static const char *const defs[][3] = {{"four", "x^4 + 9", "10*x^2"},
                                          {"gaussd", "exp(-x^2)", "1"},
                                          {"sqh", "x^2", "1"}};
    for (size_t k = 0; k < 3; k++) {
        cs_reg_def_spec s;
        cs_reg_def_spec_init(&s);
        s.name = defs[k][0];
        s.g = defs[k][1];
        s.h = defs[k][2];
        if (k == 2) {   /* the Hölder form: si at r = 0.5, eps = 0.01 */
            s.form = CS_FORM_SI;
            s.r = 0.5;
            s.eps = 0.01;
        }
        cs_err err;
        assert_int_equal(cs_reg_define(&s, NULL, NULL, &err), 0);
    }
    const kernel_case cases[] = {
        {CS_PROB_BIN, CS_SWEEP_CUDA_BIN, {"four"}, 1, 24, {11, 19}, {0, 0}, 2, 200, 0, 90, 0, 0, 1},
        {CS_PROB_BIN, CS_SWEEP_CUDA_BIN, {"gaussd"}, 1, 24, {11, 19}, {0, 0}, 2, 200, 0, 90, 0, 0,
         1},
        {CS_PROB_BIN, CS_SWEEP_CUDA_BIN, {"sqh"}, 1, 24, {11, 19}, {0, 0}, 2, 200, 0, 90, 0, 0, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        kernel_trials(&cases[k]);
    /* the module checks the code before a launch (the interpreter trusts it) */
    uint64_t ps[1] = {1}, ms[1] = {2};
    unsigned char succ[1];
    long iters[1];
    int starts[1];
    cs_sweep_cuda_job job = {.method = CS_SWEEP_CUDA_FISTA, .fn = CS_SWEEP_CUDA_REG_DEFINED,
                             .kind = CS_SWEEP_CUDA_BIN, .N = 8, .M = 4, .trials = 1, .seed = 7,
                             .problem_stream = ps, .method_stream = ms, .maxit = 10,
                             .max_starts = 1, .tol = 1e-8, .success_tol = 1e-2,
                             .success = succ, .iters = iters, .starts = starts};
    char why[256];
    const cs_sweep_cuda_module *mod = cs_sweep_cuda_module_get();
    assert_int_equal(mod->run(0, &job, 1, why, sizeof why), -1);
    assert_string_equal(why, "GPU sweep: the defined regularizer's code is missing");
    cs_expr_reg_code bad;
    cs_err xerr;
    assert_int_equal(cs_reg_export(cs_reg_lookup("four"), &bad, &xerr), 0);
    bad.g.ins[1].s = (int16_t)bad.g.nslots;   /* a slot outside those used */
    job.defined = &bad;
    assert_int_equal(mod->run(0, &job, 1, why, sizeof why), -1);
    assert_string_equal(why, "GPU sweep: the defined regularizer's code is malformed");
    cs_sweep_gpu_use_module(cs_sweep_cuda_module_get());
    const engine_case ec = {CS_PROB_BIN, {"four", "gaussd", "sqh"}, 3, 20, CS_AXIS_GAMMA,
                            {0.5, 0.8}, 0, 3, 150, 2, 0};
    sweep_engine_kind(&ec);
    /* what the device's interpreter does not take is refused with why */
    cs_reg_def_spec s;
    cs_reg_def_spec_init(&s);
    char text[CS_EXPR_MAX_LEN];   /* g of 67 instructions */
    s.name = "sqlong";
    s.g = expr_sines(text, sizeof text, "x", 22);
    s.h = "1";
    cs_err err;
    assert_int_equal(cs_reg_define(&s, NULL, NULL, &err), 0);
    const char *methods[] = {"sqlong"};
    cs_method mv[1];
    methods_of(methods, 1, mv);
    const double gammas[] = {0.5};
    cs_sweep_spec sp = {.kind = CS_PROB_BIN, .N = 20, .axis = CS_AXIS_GAMMA, .values = gammas,
                        .nvalues = 1, .methods = mv, .nmethods = 1, .trials = 1, .threads = 1,
                        .seed = 3, .device = CS_DEVICE_CUDA};
    cs_sweep_result *res;
    assert_int_equal(cs_sweep_run(&sp, &res, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "(FISTA) and linf, l1 (Douglas-Rachford), and kind 2bit "
                                    "with method equ, not sqlong: sqlong: g = x+sin(x)"));
    assert_non_null(strstr(err.msg, "compiles to 67 instructions on 2 stack slots"));
    cs_sweep_gpu_use_module(NULL);
}

int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_parity),
        cmocka_unit_test(test_cudnn_conv),
        cmocka_unit_test(test_cudnn_bn),
        cmocka_unit_test(test_cudnn_resnet20_step),
        cmocka_unit_test(test_graph_step),
        cmocka_unit_test(test_cudnn_search),
        cmocka_unit_test(test_profile),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_alloc_failure_and_leaks),
        cmocka_unit_test(test_sweep_trials),
        cmocka_unit_test(test_sweep_methods),
        cmocka_unit_test(test_sweep_engine),
        cmocka_unit_test(test_sweep_defined),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
