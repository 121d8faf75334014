/* test_nn_export.c — weights out of csreg: the ZIP writer and reader
 * (STORED entries, CRC-32, a DEFLATE entry made with zlib, corruption
 * refused), the .npy/.npz encoder and decoder (dtypes, shapes, the header
 * NumPy requires), the protobuf encoder against its decoder (varints,
 * negative int64, floats, nested messages), `save model F.npz` and its
 * reading back bit for bit (the names PyTorch's state_dict uses, the
 * quantized layers' scales and levels), and the ONNX model's structure
 * (opset, nodes in order, initializers). The pytest tests/python/
 * test_nn_export.py runs the same files in PyTorch and in ONNX. */
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
#include "cs_npz.h"
#include "cs_pb.h"
#include "cs_zip.h"
#include "nn_internal.h"
#include "nn_util.h"

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)len + 1);
    assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return p;
}

/* ------------------------------------------------------------------ zip */

static void test_zip_round_trip(void **state)
{
    (void)state;
    cs_zip_writer z = {0};
    const char *a = "hello", *b = "";
    unsigned char big[70000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (unsigned char)(i * 7);
    cs_zip_add(&z, "a.txt", a, 5);
    cs_zip_add(&z, "empty", b, 0);
    cs_zip_add(&z, "dir/big.bin", big, sizeof big);
    const unsigned char *buf;
    size_t n;
    cs_err err;
    assert_int_equal(cs_zip_finish(&z, &buf, &n, &err), 0);
    /* local header, central directory, end record: 30+5+5 + 30+5 + 30+11+70000,
     * 3×46 + 5+5+11, 22 */
    assert_int_equal(n, 40 + 35 + 70041 + 138 + 21 + 22);
    assert_memory_equal(buf, "PK\x03\x04", 4);
    cs_zip_entry *e;
    size_t ne;
    assert_int_equal(cs_zip_list(buf, n, "t.zip", &e, &ne, &err), 0);
    assert_int_equal(ne, 3);
    assert_string_equal(e[2].name, "dir/big.bin");
    assert_int_equal(e[2].crc, (uint32_t)crc32(0L, big, sizeof big));
    unsigned char *out;
    assert_int_equal(cs_zip_extract(buf, n, "t.zip", &e[2], 1 << 20, &out, &err), 0);
    assert_memory_equal(out, big, sizeof big);
    free(out);
    assert_int_equal(cs_zip_extract(buf, n, "t.zip", &e[1], 10, &out, &err), 0);
    free(out);
    /* over the limit, and a flipped data byte: the CRC says so */
    assert_int_equal(cs_zip_extract(buf, n, "t.zip", &e[2], 1000, &out, &err), CS_EINVAL);
    unsigned char *bad = malloc(n);
    memcpy(bad, buf, n);
    bad[e[0].offset + 30 + 5 + 2] ^= 1;
    assert_int_equal(cs_zip_extract(bad, n, "t.zip", &e[0], 100, &out, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "t.zip: entry a.txt: CRC mismatch"));
    free(e);
    /* no end record: not a ZIP */
    assert_int_equal(cs_zip_list(bad, n - 1, "t.zip", &e, &ne, &err), CS_EINVAL);
    assert_null(e);
    assert_non_null(strstr(err.msg, "t.zip: not a ZIP archive"));
    free(bad);
    cs_zip_writer_free(&z);
}

/* an entry compressed with DEFLATE (numpy.savez_compressed) is read */
static void test_zip_deflate(void **state)
{
    (void)state;
    unsigned char data[3000], comp[4000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i % 13);
    z_stream s;
    memset(&s, 0, sizeof s);
    assert_int_equal(deflateInit2(&s, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    s.next_in = data;
    s.avail_in = sizeof data;
    s.next_out = comp;
    s.avail_out = sizeof comp;
    assert_int_equal(deflate(&s, Z_FINISH), Z_STREAM_END);
    size_t cn = s.total_out;
    deflateEnd(&s);
    /* a STORED archive of the compressed bytes, its headers patched to DEFLATE */
    cs_zip_writer z = {0};
    cs_zip_add(&z, "x", comp, cn);
    const unsigned char *buf;
    size_t n;
    cs_err err;
    assert_int_equal(cs_zip_finish(&z, &buf, &n, &err), 0);
    unsigned char *p = malloc(n);
    memcpy(p, buf, n);
    uint32_t crc = (uint32_t)crc32(0L, data, sizeof data);
    size_t cd = n - 22 - 47;
    p[8] = p[cd + 10] = 8;   /* method */
    for (int k = 0; k < 4; k++) {
        p[14 + k] = p[cd + 16 + k] = (unsigned char)(crc >> (8 * k));
        p[22 + k] = p[cd + 24 + k] = (unsigned char)(sizeof data >> (8 * k));
    }
    cs_zip_entry *e;
    size_t ne;
    assert_int_equal(cs_zip_list(p, n, "c.zip", &e, &ne, &err), 0);
    unsigned char *out;
    assert_int_equal(cs_zip_extract(p, n, "c.zip", &e[0], 1 << 20, &out, &err), 0);
    assert_memory_equal(out, data, sizeof data);
    free(out);
    free(e);
    free(p);
    cs_zip_writer_free(&z);
}

/* ------------------------------------------------------------------ npz */

static void test_npz_round_trip(void **state)
{
    (void)state;
    cs_zip_writer z = {0};
    float f[6] = {1.5f, -2, 0, 3.25f, 1e-30f, -7};
    int64_t i64 = -123456789012LL;
    int8_t i8[4] = {-1, 0, 1, 1};
    int32_t i32[3] = {7, -8, 9};
    size_t s23[2] = {2, 3}, s4[4] = {1, 2, 2, 1}, s3 = 3;
    cs_npz_put(&z, "a.weight", CS_NPZ_F32, s23, 2, f);
    cs_npz_put(&z, "n", CS_NPZ_I64, NULL, 0, &i64);
    cs_npz_put(&z, "lv", CS_NPZ_I8, s4, 4, i8);
    cs_npz_put(&z, "c", CS_NPZ_I32, &s3, 1, i32);
    const unsigned char *buf;
    size_t n;
    cs_err err;
    assert_int_equal(cs_zip_finish(&z, &buf, &n, &err), 0);
    /* the header as NumPy writes it: 64-byte aligned, ends in a newline */
    const unsigned char *npy = buf + 30 + strlen("a.weight.npy");
    assert_memory_equal(npy, "\x93NUMPY\x01\x00", 8);
    size_t hl = npy[8] | (size_t)npy[9] << 8;
    assert_int_equal((10 + hl) % 64, 0);
    assert_int_equal(npy[10 + hl - 1], '\n');
    assert_memory_equal(npy + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                        59);
    cs_npz_array *a;
    size_t na;
    assert_int_equal(cs_npz_read(buf, n, "t.npz", 1000, &a, &na, &err), 0);
    assert_int_equal(na, 4);
    const cs_npz_array *w = cs_npz_find(a, na, "a.weight");
    assert_non_null(w);
    assert_int_equal(w->ndim, 2);
    assert_int_equal(w->shape[1], 3);
    for (int k = 0; k < 6; k++)
        assert_true(w->v[k] == f[k]);
    const cs_npz_array *x = cs_npz_find(a, na, "n");
    assert_int_equal(x->ndim, 0);
    assert_true(x->v[0] == (double)i64);
    x = cs_npz_find(a, na, "lv");
    assert_int_equal(x->ndim, 4);
    assert_true(x->v[0] == -1 && x->v[3] == 1);
    x = cs_npz_find(a, na, "c");
    assert_true(x->v[1] == -8);
    assert_null(cs_npz_find(a, na, "nope"));
    cs_npz_free(a, na);
    /* more elements than allowed */
    assert_int_equal(cs_npz_read(buf, n, "t.npz", 4, &a, &na, &err), CS_EINVAL);
    cs_zip_writer_free(&z);
}

/* ------------------------------------------------------------------ protobuf */

static void test_pb_round_trip(void **state)
{
    (void)state;
    cs_pb inner = {0}, b = {0};
    cs_pb_str(&inner, 1, "Conv");
    cs_pb_int(&inner, 3, -5);
    cs_pb_uint(&b, 1, 300);
    cs_pb_int(&b, 2, -1);
    cs_pb_float(&b, 3, 1e-5f);
    cs_pb_msg(&b, 4, &inner);
    cs_pb_uint(&b, 536870911, 1);   /* the largest field number */
    /* 300 = ac 02; −1: ten bytes */
    assert_memory_equal(b.p, "\x08\xac\x02\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 14);
    size_t pos = 0, len;
    int field, wire;
    uint64_t v;
    const unsigned char *data;
    assert_int_equal(cs_pb_next(b.p, b.n, &pos, &field, &wire, &v, &data, &len), 0);
    assert_true(field == 1 && wire == CS_PB_VARINT && v == 300);
    assert_int_equal(cs_pb_next(b.p, b.n, &pos, &field, &wire, &v, &data, &len), 0);
    assert_true((int64_t)v == -1);
    assert_int_equal(cs_pb_next(b.p, b.n, &pos, &field, &wire, &v, &data, &len), 0);
    float f;
    uint32_t u = (uint32_t)v;
    memcpy(&f, &u, 4);
    assert_true(field == 3 && wire == CS_PB_I32 && f == 1e-5f);
    assert_int_equal(cs_pb_next(b.p, b.n, &pos, &field, &wire, &v, &data, &len), 0);
    assert_true(field == 4 && wire == CS_PB_LEN && len == inner.n);
    size_t ip = 0;
    assert_int_equal(cs_pb_next(data, len, &ip, &field, &wire, &v, &data, &len), 0);
    assert_true(field == 1 && len == 4 && !memcmp(data, "Conv", 4));
    assert_int_equal(cs_pb_next(b.p, b.n, &pos, &field, &wire, &v, &data, &len), 0);
    assert_int_equal(field, 536870911);
    assert_int_equal(cs_pb_next(b.p, b.n, &pos, &field, &wire, &v, &data, &len), -1);
    /* a length past the end */
    unsigned char bad[3] = {0x0a, 0x05, 'x'};
    pos = 0;
    assert_int_equal(cs_pb_next(bad, 3, &pos, &field, &wire, &v, &data, &len), -2);
    cs_pb_free(&inner);
    cs_pb_free(&b);
}

/* ------------------------------------------------------------------ networks */

static char path[64], onnx_path[64];

/* the network through save model F.npz and back: every parameter, the
 * running statistics and the quantization state, bit for bit */
static void npz_round_trip(const cs_nn_config *cfg, int quantize, const char *const *names)
{
    cs_nn *nn;
    cs_err err;
    assert_int_equal(cs_nn_new(&nn, cfg, &err), 0);
    cs_nn_data d = nn_synth(64, 2);
    cs_nn_train_opts o = {.epochs = 1, .batch = 32};
    cs_nn_train_report rep;
    assert_int_equal(cs_nn_train(nn, &d, &o, &rep, &err), 0);   /* running stats move */
    cs_nn_quant_report q;
    if (quantize)
        assert_int_equal(cs_nn_quantize(nn, quantize - 1, CS_NN_EXCL_DEFAULT, &q, &err), 0);
    assert_int_equal(cs_nn_save(nn, path, 1, NULL, &err), 0);
    size_t n;
    unsigned char *buf = slurp(path, &n);
    cs_npz_array *a;
    size_t na;
    assert_int_equal(cs_npz_read(buf, n, path, 1 << 24, &a, &na, &err), 0);
    for (size_t k = 0; names[k]; k++) {
        if (!cs_npz_find(a, na, names[k]))
            fail_msg("no array %s", names[k]);
    }
    cs_npz_free(a, na);
    free(buf);
    cs_nn *back;
    if (cs_nn_load(&back, path, "cpu", &err))
        fail_msg("load %s: %s", path, err.msg);
    assert_int_equal(back->nparams, nn->nparams);
    assert_memory_equal(back->bufs, nn->bufs, nn->nbufs * sizeof(float));
    for (int t = 0; t < nn->nt; t++)   /* α only where quantized */
        if (nn->t[t].kind != NN_T_ALPHA || nn->wl[nn->t[t].wl].quant)
            assert_memory_equal(back->params + nn->t[t].off, nn->params + nn->t[t].off,
                                nn->t[t].n * sizeof(float));
    assert_int_equal(cs_nn_is_quantized(back), cs_nn_is_quantized(nn));
    double a1, l1, a2, l2;
    assert_int_equal(cs_nn_evaluate(nn, &d, &a1, &l1, &err), 0);
    assert_int_equal(cs_nn_evaluate(back, &d, &a2, &l2, &err), 0);
    assert_true(a1 == a2 && l1 == l2);
    cs_nn_free(back);
    cs_nn_free(nn);
    cs_nn_data_free(&d);
}

static void test_npz_networks(void **state)
{
    (void)state;
    const char *res[] = {"conv1.weight", "bn1.running_var", "bn1.num_batches_tracked",
                         "layer2.0.conv1.weight", "layer2.0.bn1.bias", "layer3.2.bn2.weight",
                         "fc.weight", "fc.bias", "csreg.config", "csreg.input",
                         "csreg.layer1.0.conv1.scale", "csreg.layer3.2.conv2.levels", NULL};
    cs_nn_config r = {.kind = CS_NN_RESNET20, .seed = 1, .pad = 2};
    npz_round_trip(&r, 2, res);
    const char *cnn[] = {"conv1.weight", "bn2.running_mean", "fc1.weight", "fc2.bias",
                         "csreg.conv2.scale", "csreg.fc1.levels", NULL};
    cs_nn_config c = {.kind = CS_NN_CNN, .seed = 1, .nconv = 3, .conv = {4, CS_NN_CONV_POOL, 6},
                      .kernel = 5, .nhidden = 1, .hidden = {12}};
    npz_round_trip(&c, 1, cnn);
    const char *mlp[] = {"fc1.weight", "fc2.bias", "fc3.weight", NULL};
    cs_nn_config m = {.kind = CS_NN_MLP, .seed = 1, .nhidden = 2, .hidden = {16, 12}};
    npz_round_trip(&m, 0, mlp);
    /* not a csreg .npz: no config */
    cs_zip_writer z = {0};
    float one = 1;
    size_t s1 = 1;
    cs_npz_put(&z, "x", CS_NPZ_F32, &s1, 1, &one);
    const unsigned char *buf;
    size_t n;
    cs_err err;
    assert_int_equal(cs_zip_finish(&z, &buf, &n, &err), 0);
    FILE *f = fopen(path, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    cs_zip_writer_free(&z);
    cs_nn *nn = NULL;
    assert_int_equal(cs_nn_load(&nn, path, "cpu", &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "no csreg.config"));
}

/* The ONNX model: ModelProto's IR version and opset, the graph's nodes in
 * layer order (resnet20: its option-A shortcuts as Slice, Pad, Add) and an
 * initializer per weight, named as in the .npz. */
static void test_onnx_structure(void **state)
{
    (void)state;
    cs_nn_config r = {.kind = CS_NN_RESNET20, .seed = 1, .pad = 2};
    cs_nn *nn;
    cs_err err;
    assert_int_equal(cs_nn_new(&nn, &r, &err), 0);
    assert_int_equal(cs_nn_export_onnx(nn, onnx_path, 1, NULL, &err), 0);
    size_t n, pos = 0, len;
    unsigned char *buf = slurp(onnx_path, &n);
    int field, wire, ir = 0, opset = 0;
    uint64_t v;
    const unsigned char *data, *graph = NULL;
    size_t glen = 0;
    while (cs_pb_next(buf, n, &pos, &field, &wire, &v, &data, &len) == 0) {
        if (field == 1)
            ir = (int)v;
        if (field == 7) {
            graph = data;
            glen = len;
        }
        if (field == 8) {
            size_t p = 0;
            const unsigned char *d2;
            size_t l2;
            while (cs_pb_next(data, len, &p, &field, &wire, &v, &d2, &l2) == 0)
                if (field == 2)
                    opset = (int)v;
        }
    }
    assert_int_equal(pos, n);
    assert_int_equal(ir, 7);
    assert_int_equal(opset, 13);
    assert_non_null(graph);
    char ops[4096] = "";
    int inits = 0, convs = 0;
    pos = 0;
    while (cs_pb_next(graph, glen, &pos, &field, &wire, &v, &data, &len) == 0) {
        if (field == 5)
            inits++;
        if (field != 1)
            continue;
        size_t p = 0, l2;
        const unsigned char *d2;
        while (cs_pb_next(data, len, &p, &field, &wire, &v, &d2, &l2) == 0)
            if (field == 4) {
                size_t k = strlen(ops);
                snprintf(ops + k, sizeof ops - k, "%.*s ", (int)l2, (const char *)d2);
                convs += l2 == 4 && !memcmp(d2, "Conv", 4);
            }
    }
    assert_int_equal(pos, glen);
    assert_int_equal(convs, 19);
    assert_true(!strncmp(ops, "Pad Conv BatchNormalization Relu Conv BatchNormalization Relu Conv "
                         "BatchNormalization Add Relu ", 95));
    assert_non_null(strstr(ops, "Slice Pad Add Relu"));
    assert_non_null(strstr(ops, "GlobalAveragePool Flatten Gemm "));
    /* 19 conv weights, 19 × 4 of batch norm, fc weight and bias, the input's
     * pads and value, 2 shortcuts × 5 */
    assert_int_equal(inits, 19 + 76 + 2 + 2 + 10);
    free(buf);
    cs_nn_free(nn);
}

int main(void)
{
    cs_blas_set_threads(1);
    snprintf(path, sizeof path, "/tmp/csreg_nn_export_%d.npz", (int)getpid());
    snprintf(onnx_path, sizeof onnx_path, "/tmp/csreg_nn_export_%d.onnx", (int)getpid());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zip_round_trip),
        cmocka_unit_test(test_zip_deflate),
        cmocka_unit_test(test_npz_round_trip),
        cmocka_unit_test(test_pb_round_trip),
        cmocka_unit_test(test_npz_networks),
        cmocka_unit_test(test_onnx_structure),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(path);
    unlink(onnx_path);
    return rc;
}
