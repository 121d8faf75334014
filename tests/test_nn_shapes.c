/* test_nn_shapes.c — networks of any input shape and class count (issue
 * #36): a synthetic .npz of 3-channel 16×16 images in 5 classes, written
 * here and read back, trains an mlp, a cnn and a resnet20 for an epoch
 * each (their shapes and parameter counts from the data's), evaluates,
 * and comes back from a CSNN file (version 4, whose header is checked:
 * a forged shape or normalization refused) and an .npz with the same
 * logits bit for bit; a cnn on 3×20×24 pools odd sides down; what does not
 * fit is refused (the fixed normalization for 3 channels, resnet20 on sides
 * that do not halve twice, a pool that leaves no pixel, data of another
 * shape or with more classes), nothing trained; the CPU's convolution on
 * an image that is not square and its pool on odd sides against sums by
 * hand. */
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

#include "cs_blas.h"
#include "cs_nn.h"
#include "nn_util.h"

#define NC 3
#define SIDE 16
#define NK 5

static char tmpdir[256];

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* The data set through the .npz reader, as a session reads it. */
static void load_set(cs_nn_data *train, cs_nn_data *test)
{
    char path[512];
    path_of(path, sizeof path, "set.npz");
    cs_nn_data a = nn_synth_shape(160, NC, SIDE, SIDE, NK, 1);
    cs_nn_data b = nn_synth_shape(40, NC, SIDE, SIDE, NK, 2);
    cs_err err;
    assert_int_equal(nn_write_npz(path, &a, &b, 0, &err), 0);
    assert_int_equal(cs_nn_data_load_npz(train, path, "train", 0, CS_NN_NHWC, &err), 0);
    assert_int_equal(cs_nn_data_load_npz(test, path, "t10k", 0, CS_NN_NHWC, &err), 0);
    assert_memory_equal(train->images, a.images, 160 * NC * SIDE * SIDE);
    assert_true(train->c == NC && train->h == SIDE && train->w == SIDE && train->classes == NK);
    cs_nn_data_free(&a);
    cs_nn_data_free(&b);
}

/* cfg with the data's shape and a normalization of its own per channel */
static void shape_of(cs_nn_config *c, const cs_nn_data *d)
{
    cs_nn_data_shape(d, &c->channels, &c->height, &c->width, &c->classes);
    for (int i = 0; i < c->channels; i++) {
        c->in_mean[i] = 0.25f + 0.05f * (float)i;
        c->in_std[i] = 0.3f;
    }
}

/* The file's version: bytes 4..7 of a CSNN file. */
static unsigned version_of(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char b[8];
    assert_int_equal(fread(b, 1, 8, f), 8);
    fclose(f);
    return b[4] | (unsigned)b[5] << 8;
}

/* nn saved as `name` and loaded: the same logits of every test image, bit
 * for bit, and the same shape */
static void round_trip(cs_nn *nn, const cs_nn_data *test, const char *name, const float *want)
{
    char path[512];
    path_of(path, sizeof path, name);
    cs_err err;
    assert_int_equal(cs_nn_save(nn, path, 1, NULL, &err), 0);
    cs_nn *back;
    if (cs_nn_load(&back, path, "cpu", &err))
        fail_msg("%s: %s", name, err.msg);
    cs_nn_config a, b;
    cs_nn_get_config(nn, &a);
    cs_nn_get_config(back, &b);
    assert_true(a.channels == b.channels && a.height == b.height && a.width == b.width &&
                a.classes == b.classes && a.pad == b.pad);
    assert_memory_equal(a.in_mean, b.in_mean, sizeof a.in_mean);
    assert_memory_equal(a.in_std, b.in_std, sizeof a.in_std);
    float *got = malloc(test->n * NK * sizeof *got);
    assert_int_equal(cs_nn_logits(back, test, test->n, got, &err), 0);
    assert_memory_equal(got, want, test->n * NK * sizeof *got);
    free(got);
    cs_nn_free(back);
    unlink(path);
}

static void test_train_shapes(void **state)
{
    (void)state;
    cs_nn_data train, test;
    load_set(&train, &test);
    struct {
        cs_nn_config cfg;
        const char *desc;
        size_t params;
    } nets[3] = {
        {{.kind = CS_NN_MLP, .nhidden = 1, .hidden = {32}}, "mlp 768-32-5",
         768 * 32 + 32 + 32 * 5 + 5},
        {{.kind = CS_NN_CNN, .nconv = 4, .conv = {8, CS_NN_CONV_POOL, 8, CS_NN_CONV_POOL},
          .nhidden = 1, .hidden = {16}},
         "cnn conv8,pool,8,pool 3x16x16 fc128-16-5",
         /* conv1 3·9·8, BN, conv2 8·9·8, BN, fc1 8·4·4 → 16, fc2 16 → 5 */
         216 + 16 + 576 + 16 + 128 * 16 + 16 + 16 * 5 + 5},
        /* the paper's 269,434 with conv1 on 3 channels (+2·144) and 5 classes (−5·65) */
        {{.kind = CS_NN_RESNET20}, "resnet20 3x16x16 16,32,64 option-A gap fc64-5",
         269434 + 288 - 325},
    };
    for (int k = 0; k < 3; k++) {
        cs_nn_config c = nets[k].cfg;
        c.seed = 7;
        shape_of(&c, &train);
        cs_nn *nn;
        cs_err err;
        if (cs_nn_new(&nn, &c, &err))
            fail_msg("%s: %s", nets[k].desc, err.msg);
        char desc[160];
        cs_nn_describe(nn, desc, sizeof desc);
        assert_string_equal(desc, nets[k].desc);
        assert_int_equal(cs_nn_param_count(nn), nets[k].params);
        cs_nn_train_opts o = {.epochs = 1, .batch = 16, .lr = 3e-3};
        cs_nn_train_report rep;
        assert_int_equal(cs_nn_train(nn, &train, &o, &rep, &err), 0);
        assert_int_equal(rep.steps, 10);
        assert_true(isfinite(rep.loss) && rep.loss > 0);
        double acc, loss;
        assert_int_equal(cs_nn_evaluate(nn, &test, &acc, &loss, &err), 0);
        assert_true(isfinite(loss) && acc >= 0 && acc <= 1);
        if (k == 0)   /* the bands are separable: the mlp learns them in an epoch */
            assert_true(acc >= 0.8);
        /* the logits: NK per image, the predictions argmax of them */
        float *want = malloc(test.n * NK * sizeof *want);
        assert_int_equal(cs_nn_logits(nn, &test, test.n, want, &err), 0);
        size_t right = 0;
        for (size_t i = 0; i < test.n; i++) {
            int best = 0;
            for (int j = 1; j < NK; j++)
                best = want[i * NK + j] > want[i * NK + best] ? j : best;
            right += best == test.labels[i];
        }
        assert_true((double)right / (double)test.n == acc);
        round_trip(nn, &test, "net.csnn", want);
        round_trip(nn, &test, "net.npz", want);
        char path[512];
        path_of(path, sizeof path, "v.csnn");
        assert_int_equal(cs_nn_save(nn, path, 1, NULL, &err), 0);
        assert_int_equal(version_of(path), 4);
        unlink(path);
        free(want);
        cs_nn_free(nn);
    }
    cs_nn_data_free(&train);
    cs_nn_data_free(&test);
}

/* 3×20×24 with three pools: 20×24 → 10×12 → 5×6 → 2×3 (odd sides round
 * down, as PyTorch's max_pool2d); one channel without a normalization of
 * its own takes the fixed one. */
static void test_odd_pools(void **state)
{
    (void)state;
    cs_nn_data d = nn_synth_shape(48, NC, 20, 24, NK, 3);
    cs_nn_config c = {.kind = CS_NN_CNN, .seed = 2, .nconv = 6, .nhidden = 1, .hidden = {8},
                      .conv = {4, CS_NN_CONV_POOL, 4, CS_NN_CONV_POOL, 4, CS_NN_CONV_POOL}};
    shape_of(&c, &d);
    cs_nn *nn;
    cs_err err;
    assert_int_equal(cs_nn_new(&nn, &c, &err), 0);
    char desc[160];
    cs_nn_describe(nn, desc, sizeof desc);
    assert_string_equal(desc, "cnn conv4,pool,4,pool,4,pool 3x20x24 fc24-8-5");
    cs_nn_train_opts o = {.epochs = 1, .batch = 16};
    cs_nn_train_report rep;
    assert_int_equal(cs_nn_train(nn, &d, &o, &rep, &err), 0);
    assert_true(isfinite(rep.loss));
    cs_nn_free(nn);
    cs_nn_data_free(&d);
    /* one channel of 9×11, the fixed normalization: fine */
    cs_nn_config g = {.kind = CS_NN_MLP, .seed = 1, .height = 9, .width = 11, .classes = 3};
    assert_int_equal(cs_nn_new(&nn, &g, &err), 0);
    cs_nn_describe(nn, desc, sizeof desc);
    assert_string_equal(desc, "mlp 99-512-512-3");
    double m, sd;
    cs_nn_get_input_norm(nn, &m, &sd);
    assert_true(m == 0.2860f && sd == 0.3530f);
    cs_nn_free(nn);
}

static void test_refusals(void **state)
{
    (void)state;
    cs_nn *nn = NULL;
    cs_err err;
    /* 3 channels need their own normalization */
    cs_nn_config c = {.kind = CS_NN_MLP, .channels = 3, .height = 8, .width = 8};
    assert_int_equal(cs_nn_new(&nn, &c, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "the fixed normalization is Fashion-MNIST's, of one "
                                    "channel: 3 channels need their own"));
    c.in_std[0] = c.in_std[1] = 0.5f;   /* the third's std still 0 */
    assert_int_equal(cs_nn_new(&nn, &c, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "channel 3: mean 0, std 0"));
    /* limits */
    cs_nn_config big = {.kind = CS_NN_MLP, .channels = 5};
    assert_int_equal(cs_nn_new(&nn, &big, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "channels 1..4"));
    cs_nn_config many = {.kind = CS_NN_MLP, .classes = 257};
    assert_int_equal(cs_nn_new(&nn, &many, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "257 classes: 1..256"));
    /* resnet20: sides that halve twice */
    cs_nn_config r = {.kind = CS_NN_RESNET20, .height = 18, .width = 16};
    assert_int_equal(cs_nn_new(&nn, &r, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "multiples of 4, at least 8 (two stride-2 stages): 18×16 "
                                    "with pad=0 is 18×16"));
    r.pad = 1;   /* 20×18 */
    assert_int_equal(cs_nn_new(&nn, &r, &err), CS_EINVAL);
    r.height = r.width = 6, r.pad = 1;   /* 8×8: fine */
    assert_int_equal(cs_nn_new(&nn, &r, &err), 0);
    cs_nn_free(nn);
    /* a pool that leaves no pixel names its entry */
    cs_nn_config p = {.kind = CS_NN_CNN, .height = 5, .width = 3, .nconv = 3,
                      .conv = {4, CS_NN_CONV_POOL, CS_NN_CONV_POOL}};
    assert_int_equal(cs_nn_new(&nn, &p, &err), CS_EINVAL);
    assert_string_equal(err.msg, "channels: the pool at entry 3 would leave no pixel, the "
                                 "images are 2×1 there");
    /* data of another shape or more classes: nothing trained */
    cs_nn_config m = {.kind = CS_NN_MLP, .seed = 1, .nhidden = 1, .hidden = {8}};
    assert_int_equal(cs_nn_new(&nn, &m, &err), 0);
    cs_nn_data d = nn_synth_shape(32, 1, 16, 16, 4, 1), k = nn_synth(32, 1);
    cs_nn_train_opts o = {.epochs = 1, .batch = 16};
    cs_nn_train_report rep;
    assert_int_equal(cs_nn_train(nn, &d, &o, &rep, &err), CS_EDIM);
    assert_string_equal(err.msg, "the network takes 1×28×28 images and 10 classes; the data has "
                                 "1×16×16 images and 4 classes");
    k.classes = 12;
    assert_int_equal(cs_nn_train(nn, &k, &o, &rep, &err), CS_EDIM);
    assert_non_null(strstr(err.msg, "the data has 1×28×28 images and 12 classes"));
    double acc, loss;
    assert_int_equal(cs_nn_evaluate(nn, &k, &acc, &loss, &err), CS_EDIM);
    float logits[10];
    assert_int_equal(cs_nn_logits(nn, &k, 1, logits, &err), CS_EDIM);
    assert_int_equal(cs_nn_step_count(nn), 0);
    k.classes = 7;   /* fewer classes than the network has: fine */
    assert_int_equal(cs_nn_train(nn, &k, &o, &rep, &err), 0);
    assert_int_equal(cs_nn_step_count(nn), 2);
    cs_nn_data_free(&d);
    cs_nn_data_free(&k);
    cs_nn_free(nn);
}

/* The CPU's 3×3 convolution on a 5×9 image (not square) against sums in
 * double, and a 2×2 pool on 7×5 (odd sides: the last row and column in no
 * window, their gradient 0). */
static void test_ops_not_square(void **state)
{
    (void)state;
    enum { B = 2, C = 3, H = 5, W = 9, OC = 4 };
    size_t nin = (size_t)B * C * H * W, nout = (size_t)B * OC * H * W, nw = (size_t)OC * C * 9;
    float *x = malloc(nin * 4), *w = malloc(nw * 4), *y = malloc(nout * 4), *dy = malloc(nout * 4),
          *dx = malloc(nin * 4), *dw = malloc(nw * 4);
    float *want = malloc((nout > nin ? nout : nin) * 4 + nw * 4);
    float *scr = malloc(CS_NN_CONV_SCRATCH(B, C, H, W, OC) * 4);
    cs_rng r;
    cs_rng_init(&r, 5, 0);
    fill(x, nin, &r, 1);
    fill(w, nw, &r, 0.3);
    fill(dy, nout, &r, 1);
    cpu->conv_forward(y, x, w, scr, B, C, H, W, OC);
    cpu->conv_backward(dx, dw, dy, x, w, scr, B, C, H, W, OC);
#define X(b, c, i, j) ((i) < 0 || (i) >= H || (j) < 0 || (j) >= W ? 0.0 \
                       : (double)x[(((size_t)(b) * C + (c)) * H + (i)) * W + (j)])
#define DY(b, o, i, j) ((i) < 0 || (i) >= H || (j) < 0 || (j) >= W ? 0.0 \
                        : (double)dy[(((size_t)(b) * OC + (o)) * H + (i)) * W + (j)])
#define WT(o, c, ky, kx) ((double)w[(((size_t)(o) * C + (c)) * 3 + (ky)) * 3 + (kx)])
    for (int b = 0; b < B; b++)
        for (int o = 0; o < OC; o++)
            for (int i = 0; i < H; i++)
                for (int j = 0; j < W; j++) {
                    double sum = 0;
                    for (int c = 0; c < C; c++)
                        for (int ky = 0; ky < 3; ky++)
                            for (int kx = 0; kx < 3; kx++)
                                sum += WT(o, c, ky, kx) * X(b, c, i + ky - 1, j + kx - 1);
                    want[(((size_t)b * OC + o) * H + i) * W + j] = (float)sum;
                }
    assert_true(rel_err(y, want, nout, 1) < 1e-5);
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++)
            for (int i = 0; i < H; i++)
                for (int j = 0; j < W; j++) {
                    double sum = 0;
                    for (int o = 0; o < OC; o++)
                        for (int ky = 0; ky < 3; ky++)
                            for (int kx = 0; kx < 3; kx++)
                                sum += WT(o, c, ky, kx) * DY(b, o, i - ky + 1, j - kx + 1);
                    want[(((size_t)b * C + c) * H + i) * W + j] = (float)sum;
                }
    assert_true(rel_err(dx, want, nin, 1) < 1e-5);
    for (int o = 0; o < OC; o++)
        for (int c = 0; c < C; c++)
            for (int ky = 0; ky < 3; ky++)
                for (int kx = 0; kx < 3; kx++) {
                    double sum = 0;
                    for (int b = 0; b < B; b++)
                        for (int i = 0; i < H; i++)
                            for (int j = 0; j < W; j++)
                                sum += DY(b, o, i, j) * X(b, c, i + ky - 1, j + kx - 1);
                    want[(((size_t)o * C + c) * 3 + ky) * 3 + kx] = (float)sum;
                }
    assert_true(rel_err(dw, want, nw, 1) < 1e-5);
#undef X
#undef DY
#undef WT
    /* the pool: 7×5 → 3×2 */
    enum { PH = 7, PW = 5 };
    float in[PH * PW], out[6], din[PH * PW], dout[6] = {1, 2, 3, 4, 5, 6};
    int32_t idx[6];
    fill(in, PH * PW, &r, 1);
    cpu->maxpool_forward(out, idx, in, 1, 1, PH, PW);
    for (int oy = 0; oy < 3; oy++)
        for (int ox = 0; ox < 2; ox++) {
            float m = in[2 * oy * PW + 2 * ox];
            for (int k = 1; k < 4; k++)
                m = fmaxf(m, in[(2 * oy + k / 2) * PW + 2 * ox + k % 2]);
            assert_true(out[oy * 2 + ox] == m);
        }
    for (int i = 0; i < PH * PW; i++)
        din[i] = -1;
    cpu->maxpool_backward(din, dout, idx, 1, 1, PH, PW);
    double sum = 0;
    for (int i = 0; i < PH * PW; i++) {
        if (i / PW == PH - 1 || i % PW == PW - 1)
            assert_true(din[i] == 0);
        sum += din[i];
    }
    assert_true(sum == 21);   /* each window's gradient once */
    free(x);
    free(w);
    free(y);
    free(dy);
    free(dx);
    free(dw);
    free(want);
    free(scr);
}

/* A version 4 header that lies (its CRC made right): refused naming what. */
static void test_checkpoint_v4_checked(void **state)
{
    (void)state;
    cs_nn_config c = {.kind = CS_NN_MLP, .seed = 1, .nhidden = 1, .hidden = {4},
                      .channels = NC, .height = SIDE, .width = SIDE, .classes = NK};
    for (int i = 0; i < NC; i++)
        c.in_mean[i] = 0.5f, c.in_std[i] = 0.25f;
    cs_nn *nn;
    cs_err err;
    assert_int_equal(cs_nn_new(&nn, &c, &err), 0);
    char path[512];
    path_of(path, sizeof path, "v4.csnn");
    assert_int_equal(cs_nn_save(nn, path, 1, NULL, &err), 0);
    cs_nn_free(nn);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char b[1 << 16];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    assert_true(n > 200 && n < sizeof b);
    /* magic, version, kind, nhidden, hidden[8], nconv, conv[16], kernel, pad:
     * 124 bytes, then channels, height, width, classes, (mean, std) per channel */
    uint32_t u;
    memcpy(&u, b + 124, 4);
    assert_int_equal(u, NC);
    memcpy(&u, b + 136, 4);
    assert_int_equal(u, NK);
    struct {
        size_t off;
        uint32_t v;
        const char *want;
    } lies[2] = {{124, 9, "v4.csnn: bad input shape (9×16×16, 5 classes)"},
                 {140 + 8 + 4, 0xbf800000u, "v4.csnn: bad pixel normalization of channel 2 "
                                            "(mean 0.5, std -1)"}};
    for (int k = 0; k < 2; k++) {
        unsigned char w[sizeof b];
        memcpy(w, b, n);
        memcpy(w + lies[k].off, &lies[k].v, 4);
        uint32_t crc = (uint32_t)crc32(0L, w, (uInt)(n - 4));
        memcpy(w + n - 4, &crc, 4);   /* little-endian hosts, as the file */
        f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(w, 1, n, f), n);
        fclose(f);
        cs_nn *back = NULL;
        assert_int_equal(cs_nn_load(&back, path, "cpu", &err), CS_EINVAL);
        assert_string_equal(err.msg + strlen(err.msg) - strlen(lies[k].want), lies[k].want);
        assert_null(back);
    }
    unlink(path);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/csreg-test-shapes-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char path[512];
    path_of(path, sizeof path, "set.npz");
    unlink(path);
    rmdir(tmpdir);
    return 0;
}

int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_train_shapes),
        cmocka_unit_test(test_odd_pools),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_ops_not_square),
        cmocka_unit_test(test_checkpoint_v4_checked),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
