/* test_nn_data.c — the networks' data through the interpreter, in process,
 * on tiny hand-made IDX folders (no Fashion-MNIST needed): `set data`
 * holds for the session and data= overrides it for one command; results
 * and nnreport name the data set (path, short hash) and the seed; train
 * says when it continues from weights trained with another seed or on
 * other data; and bad data (counts that disagree, a gzip bomb, an empty
 * split, more classes than the network has) is refused naming the file,
 * nothing trained; normalize= computes, keeps and saves the pixel
 * normalization (CSNN version 3 and .npz), the default still writing
 * version 1. Data of any shape (.npz of 3×20×24 images, NHWC and NCHW):
 * the same images either way, per-channel normalization, a network of the
 * data's shape saved as CSNN version 4, and shapes that disagree refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cs_nn.h"
#include "cs_npz.h"
#include "interp_util.h"
#include "nn_util.h"

#define TRAIN "train model=mlp hidden=8 epochs=1 batch=16"

static void put_be32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

/* dir/NAME.gz: an IDX file (rank 1: labels, 3: 28x28 images) whose header
 * declares `declared` items and which holds `actual`; labels are
 * (i * 7 + salt) % 10 unless `bad_label` >= 0 (then the last one is it). */
static void write_idx(const char *dir, const char *name, int rank, uint32_t declared,
                      uint32_t actual, int salt, int bad_label)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.gz", dir, name);
    unsigned char hdr[16] = {0, 0, 8, (unsigned char)rank};
    put_be32(hdr + 4, declared);
    size_t hl = 8, item = 1;
    if (rank == 3) {
        put_be32(hdr + 8, 28);
        put_be32(hdr + 12, 28);
        hl = 16;
        item = 784;
    }
    size_t n = (size_t)actual * item;
    unsigned char *d = malloc(n + 1);
    assert_non_null(d);
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)(rank == 1 ? (i * 7 + (size_t)salt) % 10
                                         : (i * 31 + (size_t)salt * 17 + i / 784 * 5) % 256);
    if (rank == 1 && bad_label >= 0 && n)
        d[n - 1] = (unsigned char)bad_label;
    gzFile f = gzopen(path, "wb");
    assert_non_null(f);
    gzwrite(f, hdr, (unsigned)hl);
    if (n)
        gzwrite(f, d, (unsigned)n);
    gzclose(f);
    free(d);
}

/* A folder f->dir/name with `ntrain` training and `ntest` test images. */
static void make_set(const fixture *f, const char *name, uint32_t ntrain, uint32_t ntest,
                     int salt)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/%s", f->dir, name);
    mkdir(dir, 0700);
    write_idx(dir, "train-images-idx3-ubyte", 3, ntrain, ntrain, salt, -1);
    write_idx(dir, "train-labels-idx1-ubyte", 1, ntrain, ntrain, salt, -1);
    write_idx(dir, "t10k-images-idx3-ubyte", 3, ntest, ntest, salt + 1, -1);
    write_idx(dir, "t10k-labels-idx1-ubyte", 1, ntest, ntest, salt + 1, -1);
}

static void drop_set(const fixture *f, const char *name)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/%s", f->dir, name);
    rm_dir(dir);
}

/* The string member "key":"..." of a JSON line into buf ("" when absent). */
static const char *jstr(const char *json, const char *key, char *buf, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(json, pat);
    buf[0] = 0;
    if (!p)
        return buf;
    p += strlen(pat);
    size_t n = strcspn(p, "\"");
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
    return buf;
}

static int is_hex12(const char *s)
{
    if (strlen(s) != 12)
        return 0;
    for (; *s; s++)
        if (!strchr("0123456789abcdef", *s))
            return 0;
    return 1;
}

/* ------------------------------------------------------------ set data */

static void test_set_data_holds_and_data_overrides(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 3, 1, 1);
    assert_non_null(f);
    make_set(f, "a", 48, 16, 1);
    make_set(f, "b", 32, 16, 2);
    char v[256], ha[32], hb[32];
    const char *out = ok(f, "set data a");
    assert_string_equal(jstr(out, "data", v, sizeof v), "a");
    /* the first train without data= and the second (today's bug: the
     * second went back to Fashion-MNIST) */
    out = ok(f, TRAIN);
    assert_int_equal((int)jnum(out, "train_examples"), 48);
    assert_string_equal(jstr(out, "data", v, sizeof v), "a");
    assert_true(is_hex12(jstr(out, "data_hash", ha, sizeof ha)));
    assert_int_equal((int)jnum(out, "seed"), 3);
    out = ok(f, TRAIN);
    assert_int_equal((int)jnum(out, "train_examples"), 48);
    assert_string_equal(jstr(out, "data_hash", v, sizeof v), ha);
    /* data= wins for that command only */
    out = ok(f, TRAIN " data=b");
    assert_int_equal((int)jnum(out, "train_examples"), 32);
    assert_string_equal(jstr(out, "data", v, sizeof v), "b");
    assert_true(is_hex12(jstr(out, "data_hash", hb, sizeof hb)));
    assert_string_not_equal(ha, hb);
    out = ok(f, TRAIN);
    assert_int_equal((int)jnum(out, "train_examples"), 48);
    /* evaluate: set data's test split */
    out = ok(f, "evaluate");
    assert_int_equal((int)jnum(out, "examples"), 16);
    assert_string_equal(jstr(out, "data", v, sizeof v), "a");
    assert_string_equal(jstr(out, "data_hash", v, sizeof v), ha);
    out = ok(f, "evaluate data=b");
    assert_string_equal(jstr(out, "data_hash", v, sizeof v), hb);
    /* a folder without IDX files is refused at once, set data unchanged */
    fails(f, "set data nosuch", "nosuch", -1);
    out = ok(f, TRAIN);
    assert_string_equal(jstr(out, "data", v, sizeof v), "a");
    /* the journal keeps it */
    char sess[300];
    ok(f, "save session s.csr");
    snprintf(sess, sizeof sess, "%s/s.csr", f->dir);
    char *text = slurp(sess, NULL);
    assert_non_null(text);
    assert_non_null(strstr(text, "set data a"));
    free(text);
    drop_set(f, "a");
    drop_set(f, "b");
    fixture_free(f);
}

/* The same files in two folders: the same hash; nnreport's CSV and JSON
 * name the data and the seed of each stage. */
static void test_hash_and_report(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 5, 1, 1);
    assert_non_null(f);
    make_set(f, "a", 40, 16, 1);
    make_set(f, "a2", 40, 16, 1);
    char v[256], ha[32];
    const char *out = ok(f, TRAIN " data=a");
    jstr(out, "data_hash", ha, sizeof ha);
    out = ok(f, TRAIN " data=a2 new=on");
    assert_string_equal(jstr(out, "data_hash", v, sizeof v), ha);
    ok(f, "seed 9");
    ok(f, "quantize bin");
    out = ok(f, "nnreport out=r.csv");
    assert_non_null(strstr(out, "\"data\":\"a2\""));
    assert_non_null(strstr(out, "\"seed\":9}"));
    char path[300];
    snprintf(path, sizeof path, "%s/r.csv", f->dir);
    char *csv = slurp_csv(path);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "partial,data,data_hash,seed\n"));
    char want[128];
    snprintf(want, sizeof want, ",0,a,%s,5\n", ha);
    assert_non_null(strstr(csv, want));
    snprintf(want, sizeof want, ",0,a2,%s,9\n", ha);   /* quantize: measured on a2 */
    assert_non_null(strstr(csv, want));
    free(csv);
    drop_set(f, "a");
    drop_set(f, "a2");
    fixture_free(f);
}

/* ------------------------------------------------------------ continuing */

static void test_continue_note(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 3, 1, 1);
    assert_non_null(f);
    make_set(f, "a", 40, 16, 1);
    make_set(f, "b", 40, 16, 2);
    ok(f, "set data a");
    const char *out = ok(f, TRAIN);
    assert_null(strstr(out, "\"note\""));
    out = ok(f, TRAIN);   /* same seed, same data: quiet */
    assert_null(strstr(out, "\"note\""));
    ok(f, "seed 4");
    out = ok(f, TRAIN);
    assert_non_null(strstr(out, "\"note\":\"continues from the current weights (trained with "
                                "seed 3 on a)"));
    out = ok(f, TRAIN);   /* now trained with seed 4 */
    assert_null(strstr(out, "\"note\""));
    out = ok(f, TRAIN " data=b");
    assert_non_null(strstr(out, "continues from the current weights (trained with seed 4 on a, "
                                "now on b)"));
    out = ok(f, TRAIN " new=on");
    assert_null(strstr(out, "\"note\""));
    drop_set(f, "a");
    drop_set(f, "b");
    fixture_free(f);
}

/* ------------------------------------------------------------ bad data */

/* A good set `name`, then one file of it replaced by `bad`. */
static void bad_set(const fixture *f, const char *name, const char *file, int rank,
                    uint32_t declared, uint32_t actual, int bad_label)
{
    char dir[256];
    make_set(f, name, 40, 16, 1);
    snprintf(dir, sizeof dir, "%s/%s", f->dir, name);
    write_idx(dir, file, rank, declared, actual, 1, bad_label);
}

static void test_bad_data_refused(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 3, 1, 1);
    assert_non_null(f);
    make_set(f, "good", 40, 16, 1);
    bad_set(f, "label", "train-labels-idx1-ubyte", 1, 40, 40, 10);
    bad_set(f, "count", "train-labels-idx1-ubyte", 1, 39, 39, -1);
    bad_set(f, "bomb", "train-images-idx3-ubyte", 3, 60000, 2, -1);
    bad_set(f, "empty", "train-images-idx3-ubyte", 3, 0, 0, -1);
    bad_set(f, "tlabel", "t10k-labels-idx1-ubyte", 1, 16, 16, 200);
    /* nothing to train: no network made */
    fails(f, TRAIN " data=count", "count/train-labels-idx1-ubyte.gz has 39 labels but", -1);
    fails(f, TRAIN " data=bomb", "bomb/train-images-idx3-ubyte.gz: the header declares "
          "47040000 bytes of images, more than a gzip file of this size can hold", -1);
    fails(f, TRAIN " data=empty", "empty/train-images-idx3-ubyte.gz: no images (an empty split",
          -1);
    fails(f, "evaluate", "no network", -1);
    /* a trained network keeps its weights when the next data is bad */
    ok(f, TRAIN " data=good");
    double acc = jnum(ok(f, "evaluate data=good"), "accuracy");
    /* a label 10 is an 11th class (of both splits: the test split's
     * classes count too), which this 10-class network has not */
    fails(f, TRAIN " data=label", "the network takes 1×28×28 images and 10 classes; label has "
          "1×28×28 images and 11 classes: train new=on starts a network of the data's shape",
          -1);
    fails(f, TRAIN " data=bomb", "gzip bomb", -1);
    fails(f, "evaluate data=tlabel", "the network takes 1×28×28 images and 10 classes; tlabel "
          "has 1×28×28 images and 201 classes: evaluate data= of the network's shape", -1);
    assert_true(jnum(ok(f, "evaluate data=good"), "accuracy") == acc);
    const char *out = ok(f, "nnreport");
    /* train, evaluate, evaluate: the refused commands added no stage */
    int stages = 0;
    for (const char *p = out; (p = strstr(p, "\"stage\":")); p++)
        stages++;
    assert_int_equal(stages, 3);
    /* a new network takes the 11 classes */
    assert_non_null(strstr(ok(f, TRAIN " data=label new=on"), "\"mlp 784-8-11\""));
    const char *names[] = {"good", "label", "count", "bomb", "empty", "tlabel"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        drop_set(f, names[i]);
    fixture_free(f);
}

/* ------------------------------------------------------------ normalize */

/* The 4th byte pair of a CSNN file: its version. */
static unsigned file_version(const fixture *f, const char *name)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", f->dir, name);
    size_t n;
    char *b = slurp(path, &n);
    assert_non_null(b);
    assert_true(n > 8);
    unsigned v = (unsigned char)b[4] | (unsigned)(unsigned char)b[5] << 8;
    free(b);
    return v;
}

static void test_normalize(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 3, 1, 1);
    assert_non_null(f);
    make_set(f, "a", 48, 16, 1);
    /* the training images' mean and std of x/255, as the engine reads them */
    char path[300];
    snprintf(path, sizeof path, "%s/a/train-images-idx3-ubyte.gz", f->dir);
    uint8_t *img;
    uint32_t dims[3];
    cs_err err;
    assert_int_equal(cs_idx_read(path, 3, &img, dims, &err), 0);
    double sum = 0, sq = 0, n = 48.0 * 784;
    for (size_t i = 0; i < 48 * 784; i++) {
        sum += img[i] / 255.0;
        sq += (img[i] / 255.0) * (img[i] / 255.0);
    }
    free(img);
    double m = sum / n, sd = sqrt(sq / n - m * m);
    ok(f, "set data a");
    const char *out = ok(f, TRAIN " normalize=data");
    assert_true(jnum(out, "input_mean") == (double)(float)m);
    assert_true(jnum(out, "input_std") == (double)(float)sd);
    double acc = jnum(ok(f, "evaluate"), "accuracy");
    ok(f, "save model n.csnn");
    ok(f, "save model n.npz");
    assert_int_equal(file_version(f, "n.csnn"), 3);
    /* loaded: the same normalization, the same accuracy */
    ok(f, "load model n.csnn");
    assert_true(jnum(ok(f, "evaluate"), "accuracy") == acc);
    ok(f, "load model n.npz");
    assert_true(jnum(ok(f, "evaluate"), "accuracy") == acc);
    /* another normalization: a new network of the same shape */
    out = ok(f, TRAIN " normalize=fixed:0.5,0.25");
    assert_true(jnum(out, "input_mean") == 0.5 && jnum(out, "input_std") == 0.25);
    assert_non_null(strstr(out, "784-8-10"));
    out = ok(f, TRAIN " normalize=none");
    assert_true(jnum(out, "input_mean") == 0 && jnum(out, "input_std") == 1);
    fails(f, TRAIN " normalize=fixed:0.5,0", "normalize=fixed:0.5,0: expected", -1);
    fails(f, TRAIN " normalize=sideways", "expected none, data, fixed", -1);
    /* the default (and its numbers given): version 1 as before */
    out = ok(f, TRAIN " normalize=fixed:0.2860,0.3530");
    ok(f, "save model d.csnn");
    assert_int_equal(file_version(f, "d.csnn"), 1);
    ok(f, TRAIN " new=on");
    assert_null(strstr(ok(f, "save model d2.csnn"), "error"));
    assert_int_equal(file_version(f, "d2.csnn"), 1);
    drop_set(f, "a");
    fixture_free(f);
}

/* A version 3 file whose std is not positive (its CRC made right): refused
 * naming the file. */
static void test_normalize_file_checked(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 3, 1, 1);
    assert_non_null(f);
    make_set(f, "a", 32, 16, 1);
    ok(f, "set data a");
    ok(f, TRAIN " normalize=fixed:0.5,0.25");
    ok(f, "save model v3.csnn");
    char path[300];
    snprintf(path, sizeof path, "%s/v3.csnn", f->dir);
    size_t n;
    char *b = slurp(path, &n);
    assert_non_null(b);
    /* magic, version, kind, nhidden, hidden[8], nconv, conv[16], kernel, pad:
     * 124 bytes, then f32 mean, f32 std */
    float mean, sd = -1;
    memcpy(&mean, b + 124, 4);
    assert_true(mean == 0.5f);
    memcpy(b + 128, &sd, 4);
    uint32_t crc = (uint32_t)crc32(0L, (const Bytef *)b, (uInt)(n - 4));
    for (int i = 0; i < 4; i++)
        b[n - 4 + i] = (char)(crc >> (8 * i));
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(b, 1, n, out), n);
    fclose(out);
    free(b);
    fails(f, "load model v3.csnn", "v3.csnn: bad pixel normalization (mean 0.5, std -1)", -1);
    drop_set(f, "a");
    fixture_free(f);
}

/* ------------------------------------------------------------ any shape */

#define TRAIN3 "train model=mlp hidden=8 epochs=1 batch=16 limit=60"

/* The numbers of the JSON list "key":[a,b,...] into v (how many). */
static int jlist(const char *json, const char *key, double *v, int max)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":[", key);
    const char *p = strstr(json, pat);
    int n = 0;
    if (!p)
        return 0;
    p += strlen(pat);
    while (n < max && *p != ']') {
        char *end;
        v[n++] = strtod(p, &end);
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p != ']')
            break;
    }
    return n;
}

/* f->dir/name: an .npz of train (n) and test (m) images C×H×W, K classes */
static void write_set(const fixture *f, const char *name, int C, int H, int W, int K, size_t n,
                      size_t m, int nchw)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", f->dir, name);
    cs_nn_data tr = nn_synth_shape(n, C, H, W, K, 1), te = nn_synth_shape(m, C, H, W, K, 2);
    cs_err err;
    assert_int_equal(nn_write_npz(path, &tr, &te, nchw, &err), 0);
    cs_nn_data_free(&tr);
    cs_nn_data_free(&te);
}

/* The same 3×20×24 images written NHWC and NCHW load to the same bytes
 * (NCHW), shape and classes; the splits must agree on C, H, W; labels are
 * below 256. */
static void test_npz_layouts(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 3, 1, 1);
    assert_non_null(f);
    write_set(f, "hwc.npz", 3, 20, 24, 5, 40, 12, 0);
    write_set(f, "chw.npz", 3, 20, 24, 5, 40, 12, 1);
    char a[300], b[300];
    snprintf(a, sizeof a, "%s/hwc.npz", f->dir);
    snprintf(b, sizeof b, "%s/chw.npz", f->dir);
    cs_nn_data x, y, want = nn_synth_shape(40, 3, 20, 24, 5, 1);
    cs_err err;
    assert_int_equal(cs_nn_data_load_npz(&x, a, "train", 0, CS_NN_NHWC, &err), 0);
    assert_int_equal(cs_nn_data_load_npz(&y, b, "train", 0, CS_NN_NCHW, &err), 0);
    assert_int_equal(x.n, 40);
    assert_true(x.c == 3 && x.h == 20 && x.w == 24 && x.classes == 5);
    assert_true(y.n == x.n && y.c == x.c && y.h == x.h && y.w == x.w && y.classes == x.classes);
    assert_memory_equal(x.images, y.images, 40 * 3 * 20 * 24);
    assert_memory_equal(x.images, want.images, 40 * 3 * 20 * 24);
    assert_memory_equal(x.labels, y.labels, 40);
    /* pixel (row 2, col 5) of channel 1 of image 7, where NHWC has it */
    assert_int_equal(x.images[((7 * 3 + 1) * 20 + 2) * 24 + 5],
                     want.images[7 * 1440 + 1 * 480 + 2 * 24 + 5]);
    cs_nn_data_free(&x);
    cs_nn_data_free(&y);
    /* the NHWC file read as NCHW: 20 channels, refused naming the shape */
    assert_int_equal(cs_nn_data_load_npz(&x, a, "train", 0, CS_NN_NCHW, &err), CS_EDIM);
    assert_non_null(strstr(err.msg, "x_train has shape (40, 20, 24, 3), read as N×C×H×W "
                                    "(layout=nchw): 24×3 images with 20 channels; the networks "
                                    "take 1 to 4 channels"));
    /* the splits disagree: the file and both shapes named */
    char path[300];
    snprintf(path, sizeof path, "%s/mixed.npz", f->dir);
    cs_nn_data te = nn_synth_shape(12, 3, 24, 20, 5, 2);
    assert_int_equal(nn_write_npz(path, &want, &te, 0, &err), 0);
    assert_int_equal(cs_nn_data_load_npz(&x, path, "t10k", 0, CS_NN_NHWC, &err), CS_EDIM);
    assert_non_null(strstr(err.msg, "mixed.npz: the splits' images differ: x_test has shape "
                                    "(12, 24, 20, 3) (C×H×W 3×24×20), x_train has shape (40, "
                                    "20, 24, 3) (3×20×24)"));
    fails(f, TRAIN3 " data=mixed.npz", "the splits' images differ", -1);
    /* labels are bytes below 256: 300 refused */
    snprintf(path, sizeof path, "%s/big.npz", f->dir);
    cs_zip_writer z = {0};
    size_t sh[4] = {2, 4, 4, 1}, n2 = 2;
    uint8_t img[32] = {0};
    int32_t lab[2] = {0, 300};
    cs_npz_put(&z, "x_train", CS_NPZ_U8, sh, 4, img);
    cs_npz_put(&z, "y_train", CS_NPZ_I32, &n2, 1, lab);
    const unsigned char *bytes;
    size_t nb;
    assert_int_equal(cs_zip_finish(&z, &bytes, &nb, &err), 0);
    FILE *o = fopen(path, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(bytes, 1, nb, o), nb);
    fclose(o);
    cs_zip_writer_free(&z);
    assert_int_equal(cs_nn_data_load_npz(&x, path, "train", 0, CS_NN_NHWC, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "big.npz: y_train[1] = 300 is not a class 0..255"));
    cs_nn_data_free(&te);
    cs_nn_data_free(&want);
    fixture_free(f);
}

/* normalize=data per channel (against sums by hand), fixed:M,S and
 * fixed:M1/M2/M3,S1/S2/S3, fixed refused for 3 channels; a network of the
 * data's shape, kept through CSNN version 4 and .npz; another shape
 * refused, nothing trained. */
static void test_shape_sessions(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 3, 1, 1);
    assert_non_null(f);
    write_set(f, "c3.npz", 3, 20, 24, 5, 80, 20, 0);
    write_set(f, "c3n.npz", 3, 20, 24, 5, 80, 20, 1);
    write_set(f, "k7.npz", 3, 20, 24, 7, 40, 20, 0);
    write_set(f, "g.npz", 1, 16, 16, 4, 40, 20, 0);
    /* the means and stds of x/255 per channel over the first 60 images */
    cs_nn_data d = nn_synth_shape(60, 3, 20, 24, 5, 1);
    double m[3], sd[3], got[4];
    for (int c = 0; c < 3; c++) {
        double sum = 0, sq = 0, n = 60.0 * 480;
        for (size_t i = 0; i < 60; i++)
            for (size_t p = 0; p < 480; p++) {
                double x = d.images[i * 1440 + (size_t)c * 480 + p] / 255.0;
                sum += x;
                sq += x * x;
            }
        m[c] = sum / n;
        sd[c] = sqrt(sq / n - m[c] * m[c]);
    }
    cs_nn_data_free(&d);
    const char *out = ok(f, TRAIN3 " data=c3.npz normalize=data");
    assert_non_null(strstr(out, "\"model\":\"mlp 1440-8-5\""));
    assert_int_equal(jlist(out, "input_mean", got, 4), 3);
    for (int c = 0; c < 3; c++)
        assert_true(got[c] == (double)(float)m[c]);
    assert_int_equal(jlist(out, "input_std", got, 4), 3);
    for (int c = 0; c < 3; c++)
        assert_true(got[c] == (double)(float)sd[c]);
    /* no normalize=: data for more than one channel; the NCHW file the same */
    double acc = jnum(ok(f, "evaluate"), "accuracy");
    out = ok(f, TRAIN3 " data=c3n.npz layout=nchw new=on normalize=data");
    assert_true(jnum(ok(f, "evaluate"), "accuracy") == acc);
    fails(f, TRAIN3 " data=c3.npz normalize=fixed", "normalize=fixed is Fashion-MNIST's (one "
          "channel); the data has 3 channels", -1);
    out = ok(f, TRAIN3 " data=c3.npz normalize=fixed:0.5,0.25");
    assert_int_equal(jlist(out, "input_mean", got, 4), 3);
    assert_true(got[0] == 0.5 && got[1] == 0.5 && got[2] == 0.5);
    out = ok(f, TRAIN3 " data=c3.npz normalize=fixed:0.1/0.2/0.3,0.5/0.25/0.125");
    assert_int_equal(jlist(out, "input_std", got, 4), 3);
    assert_true(got[0] == 0.5 && got[1] == 0.25 && got[2] == 0.125);
    fails(f, TRAIN3 " data=c3.npz normalize=fixed:0.1/0.2,0.5", "for 3 channels MEAN and STD",
          -1);
    /* the network of the data's shape saved and loaded: the same accuracy */
    acc = jnum(ok(f, "evaluate"), "accuracy");
    ok(f, "save model s.csnn");
    ok(f, "save model s.npz");
    assert_int_equal(file_version(f, "s.csnn"), 4);
    ok(f, "load model s.csnn");
    assert_true(jnum(ok(f, "evaluate data=c3.npz"), "accuracy") == acc);
    ok(f, "load model s.npz");
    assert_true(jnum(ok(f, "evaluate data=c3.npz"), "accuracy") == acc);
    /* another shape or more classes: refused, nothing trained */
    fails(f, TRAIN3 " data=g.npz", "the network takes 3×20×24 images and 5 classes; g.npz has "
          "1×16×16 images and 4 classes: train new=on starts a network of the data's shape", -1);
    fails(f, TRAIN3 " data=k7.npz", "k7.npz has 3×20×24 images and 7 classes", -1);
    fails(f, "evaluate data=g.npz", "g.npz has 1×16×16 images and 4 classes: evaluate data= of "
          "the network's shape", -1);
    assert_true(jnum(ok(f, "evaluate data=c3.npz"), "accuracy") == acc);
    /* fewer classes than the network has: fine; new=on: the data's shape */
    write_set(f, "k3.npz", 3, 20, 24, 3, 40, 20, 0);
    ok(f, "evaluate data=k3.npz");
    out = ok(f, "train model=cnn channels=4,p,4,p hidden=8 epochs=1 batch=16 data=g.npz");
    assert_non_null(strstr(out, "\"model\":\"cnn conv4,pool,4,pool 16x16 fc64-8-4\""));
    out = ok(f, "train model=resnet20 epochs=1 batch=16 limit=32 data=g.npz");
    assert_non_null(strstr(out, "\"model\":\"resnet20 20x20 16,32,64 option-A gap fc64-4\""));
    fails(f, "train model=resnet20 pad=1 epochs=1 data=g.npz", "resnet20 takes images whose "
          "height and width with the pad are multiples of 4, at least 8", -1);
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_data_holds_and_data_overrides),
        cmocka_unit_test(test_hash_and_report),
        cmocka_unit_test(test_continue_note),
        cmocka_unit_test(test_bad_data_refused),
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_normalize_file_checked),
        cmocka_unit_test(test_npz_layouts),
        cmocka_unit_test(test_shape_sessions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
