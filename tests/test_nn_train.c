/* test_nn_train.c — data and whole networks: the IDX reader on hand-made
 * gzip files (bad magic, truncated, trailing, corrupt), training
 * determinism, learning a separable synthetic set, quantizing and
 * fine-tuning a trained network, and checkpoints (save, load, CRC). */
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
#include "cs_par.h"
#include "cs_rng.h"
#include "nn_backend.h"
#include "nn_util.h"
#include "reg_util.h"

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
    /* a large label is a class of its own (labels are bytes: any is below
     * CS_NN_MAX_CLASSES): 201 classes, which a 10-class network refuses */
    path_of(p, sizeof p, "train-images-idx3-ubyte.gz");
    write_idx(p, 3, 3, 3, 3, 1);
    unsigned char lab[11] = {0, 0, 8, 1};
    put_be32(lab + 4, 3);
    lab[8] = 200, lab[9] = 1, lab[10] = 2;
    gzFile g = gzopen(q, "wb");
    gzwrite(g, lab, sizeof lab);
    gzclose(g);
    assert_int_equal(cs_nn_data_load(&d, tmpdir, "train", 0, &err), 0);
    assert_int_equal(d.classes, 201);
    assert_true(d.c == 1 && d.h == 28 && d.w == 28);
    cs_nn *nn = nn_tiny(CS_NN_MLP, 1);
    assert_int_equal(cs_nn_check_data(nn, &d, &err), CS_EDIM);
    assert_string_equal(err.msg, "the network takes 1×28×28 images and 10 classes; the data "
                        "has 1×28×28 images and 201 classes");
    double acc, loss;
    assert_int_equal(cs_nn_evaluate(nn, &d, &acc, &loss, &err), CS_EDIM);
    cs_nn_free(nn);
    cs_nn_data_free(&d);
}

/* ------------------------------------------------------------------ whole networks */

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
    cs_nn_data d = nn_synth(64, 1);
    size_t n1, n2;
    float *a = malloc(400000 * sizeof *a), *b = malloc(400000 * sizeof *b);
    cs_reg *reg;
    cs_err err;
    assert_int_equal(cs_reg_new(&reg, "bin", NULL, 0, 1, &err), 0);
    for (int kind = 0; kind < 2; kind++) {
        cs_nn *x = nn_tiny((cs_nn_kind)kind, 5), *y = nn_tiny((cs_nn_kind)kind, 5);
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

/* The CPU backend splits its ops into tasks that do not depend on the thread
 * count and sums across tasks in task order: the full-size cnn (batch 128
 * and a ragged last batch of 44: 6 dW chunks) and mlp train to the same bits
 * on 1, 2 and 3 threads, with a regularizer. */
static void test_threads_same_bits(void **state)
{
    (void)state;
    cs_nn_data d = nn_synth(300, 3);
    cs_reg *reg;
    cs_err err;
    assert_int_equal(cs_reg_new(&reg, "bin", NULL, 0, 1, &err), 0);
    float *w[3];
    for (int kind = 0; kind < 2; kind++) {
        cs_nn_config cfg = {.kind = (cs_nn_kind)kind, .seed = 7};
        if (kind == CS_NN_MLP)
            cfg.nhidden = 2, cfg.hidden[0] = 300, cfg.hidden[1] = 70;
        cs_nn_train_opts o = {.epochs = 1, .batch = 128, .augment = 1, .reg = reg,
                              .lambda = 10};
        cs_nn_train_report r[3];
        size_t n[3];
        for (int t = 0; t < 3; t++) {
            cs_nn *nn;
            assert_int_equal(cs_nn_new(&nn, &cfg, &err), 0);
            int saved = cs_par_hold_threads(t + 1);
            assert_int_equal(cs_nn_train(nn, &d, &o, &r[t], &err), 0);
            cs_par_restore_threads(saved);
            w[t] = malloc(cs_nn_param_count(nn) * sizeof(float));
            get_all(nn, w[t], &n[t]);
            cs_nn_free(nn);
        }
        for (int t = 1; t < 3; t++) {
            assert_int_equal(n[t], n[0]);
            if (memcmp(w[t], w[0], n[0] * sizeof(float)) != 0)
                fail_msg("%s: the weights after %d threads differ from 1 thread's",
                         kind == CS_NN_MLP ? "mlp" : "cnn", t + 1);
            assert_true(r[t].loss == r[0].loss && r[t].reg_value == r[0].reg_value);
        }
        assert_true(r[0].reg_value > 0);
        for (int t = 0; t < 3; t++)
            free(w[t]);
    }
    cs_reg_free(reg);
    cs_nn_data_free(&d);
}

static void test_learns_and_quantizes(void **state)
{
    (void)state;
    cs_nn_data d = nn_synth(200, 2);
    cs_nn *nn = nn_tiny(CS_NN_MLP, 3);
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

/* Training with a regularizer defined at run time (reg define): it goes
 * through the generic path (cs_reg_eval per row, in double on the host); its
 * value equals the built-in kernel's for the same g and h, and training
 * with it moves the weights as training with bin does (double against the
 * kernel's float: the same to 1e-3 of the decrease). */
static void test_defined_regularizer(void **state)
{
    (void)state;
    define_ok("nnbin", "x^2", "1");
    cs_err err;
    cs_reg *def, *bin;
    assert_int_equal(cs_reg_new(&def, "nnbin", NULL, 0, 1, &err), 0);
    assert_int_equal(cs_reg_new(&bin, "bin", NULL, 0, 1, &err), 0);
    cs_nn *nn = nn_tiny(CS_NN_MLP, 4);
    double vd, vb;
    assert_int_equal(cs_nn_reg_value(nn, def, 1.0, CS_NN_EXCL_DEFAULT, &vd, &err), 0);
    assert_int_equal(cs_nn_reg_value(nn, bin, 1.0, CS_NN_EXCL_DEFAULT, &vb, &err), 0);
    assert_true(vb > 0 && fabs(vd - vb) <= 1e-5 * vb);
    cs_nn_data d = nn_synth(64, 5);
    cs_nn *nb = nn_tiny(CS_NN_MLP, 4);
    cs_nn_train_opts o = {.epochs = 2, .batch = 16, .reg = def, .lambda = 1e3};
    cs_nn_train_report rep;
    assert_int_equal(cs_nn_train(nn, &d, &o, &rep, &err), 0);
    assert_int_equal(rep.epochs_done, 2);
    o.reg = bin;
    assert_int_equal(cs_nn_train(nb, &d, &o, &rep, &err), 0);
    double after, after_bin;
    assert_int_equal(cs_nn_reg_value(nn, def, 1.0, CS_NN_EXCL_DEFAULT, &after, &err), 0);
    assert_int_equal(cs_nn_reg_value(nb, bin, 1.0, CS_NN_EXCL_DEFAULT, &after_bin, &err), 0);
    assert_true(after < vd && after_bin < vd);
    assert_true(fabs(after - after_bin) <= 1e-3 * (vd - after_bin));
    cs_nn_free(nb);
    cs_nn_free(nn);
    cs_nn_data_free(&d);
    cs_reg_free(def);
    cs_reg_free(bin);
}

static void test_save_load(void **state)
{
    (void)state;
    cs_nn_data d = nn_synth(40, 3);
    cs_err err;
    for (int kind = 0; kind < 2; kind++) {
        cs_nn *nn = nn_tiny((cs_nn_kind)kind, 4);
        cs_nn_train_opts o = {.epochs = 1, .batch = 10};
        cs_nn_train_report rep;
        assert_int_equal(cs_nn_train(nn, &d, &o, &rep, &err), 0);
        cs_nn_quant_report q;
        assert_int_equal(cs_nn_quantize(nn, 1, CS_NN_EXCL_DEFAULT, &q, &err), 0);
        char p[512];
        path_of(p, sizeof p, "m.csnn");
        assert_int_equal(cs_nn_save(nn, p, 1, NULL, &err), 0);
        assert_true(cs_nn_save(nn, p, 0, NULL, &err) < 0);   /* exists, no force */
        cs_nn *m;
        if (cs_nn_load(&m, p, "cpu", &err))
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
        assert_true(cs_nn_load(&m, p, "cpu", &err) < 0);
        assert_non_null(strstr(err.msg, "CRC"));
        /* truncated */
        assert_int_equal(cs_nn_save(nn, p, 1, NULL, &err), 0);
        assert_int_equal(truncate(p, 300), 0);
        assert_true(cs_nn_load(&m, p, "cpu", &err) < 0);
        /* not a model */
        path_of(p, sizeof p, "train-images-idx3-ubyte.gz");
        assert_true(cs_nn_load(&m, p, "cpu", &err) < 0);
        assert_non_null(strstr(err.msg, "magic"));
        cs_nn_free(nn);
    }
    cs_nn_data_free(&d);
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
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idx_reader),
        cmocka_unit_test(test_train_determinism),
        cmocka_unit_test(test_threads_same_bits),
        cmocka_unit_test(test_learns_and_quantizes),
        cmocka_unit_test(test_defined_regularizer),
        cmocka_unit_test(test_save_load),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
