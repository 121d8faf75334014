/* test_limits.c — the memory budget of networks (estimated from the shapes
 * before anything is allocated, refused with the estimate), checkpoints
 * whose header does not match their length refused before anything is
 * built, and `source` of what is not a text file refused with a position. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include "cli_util.h"
#include "cs_limits.h"
#include "cs_nn.h"
#include "interp_util.h"

/* The peak resident memory of this process so far, MiB. */
static double peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static void test_estimate(void **state)
{
    (void)state;
    cs_err err;
    cs_nn_memory m;
    cs_nn_config mlp = {.kind = CS_NN_MLP};
    assert_int_equal(cs_nn_estimate(&mlp, 128, 3, &m, &err), CS_OK);
    /* 784-512-512-10: the weights and biases */
    assert_int_equal(m.params, 784 * 512 + 512 + 512 * 512 + 512 + 512 * 10 + 10);
    /* weights, gradients, two moments, the initial copy: at least 5 x 4 bytes each */
    assert_true(m.state >= 20.0 * (double)m.params && m.state < 40.0 * (double)m.params);
    /* a batch holds at least its images and every layer's outputs */
    assert_true(m.batch >= 128.0 * 4 * (784 + 512 + 512 + 10));
    assert_true(m.snapshots == 3.0 * 4 * (784 * 512 + 512 * 512 + 512 * 10));
    assert_true(m.total == m.state + m.batch + m.snapshots);
    assert_int_equal(cs_nn_check_memory(&mlp, 128, 3, &err), CS_OK);
    /* the batch buffers grow with the batch (the activations 32-fold; the
     * convolutions' scratch stops at CS_NN_CONV_SLOTS images) */
    cs_nn_memory big;
    cs_nn_config cnn = {.kind = CS_NN_CNN};
    assert_int_equal(cs_nn_estimate(&cnn, 128, 0, &m, &err), CS_OK);
    assert_int_equal(cs_nn_estimate(&cnn, 4096, 0, &big, &err), CS_OK);
    assert_true(big.batch > 20 * m.batch && big.state == m.state);
    /* a wrong configuration is an error, not an estimate */
    cs_nn_config bad = {.kind = CS_NN_MLP, .nhidden = 1, .hidden = {20000}};
    assert_int_equal(cs_nn_estimate(&bad, 128, 0, &m, &err), CS_EINVAL);
}

/* The mlp reached 22 GB before; now it is refused at once, with
 * the estimate, pointing at hidden=. */
static void test_oversized_mlp_refused(void **state)
{
    (void)state;
    fixture *f = fixture_new(0, 1, 1, 1);
    double t0 = cli_now(), rss0 = peak_mib();
    fails(f, "train model=mlp hidden=16384,16384,16384,16384 epochs=1 limit=64",
          "over the 4 GiB memory budget for networks", 17);
    double took = cli_now() - t0;
    assert_true(took < 1.0);
    assert_true(peak_mib() - rss0 < 256);
    cs_err err;
    cs_nn_config cfg = {.kind = CS_NN_MLP, .nhidden = 4, .hidden = {16384, 16384, 16384, 16384}};
    assert_int_equal(cs_nn_check_memory(&cfg, 128, 2, &err), CS_ENOMEM);
    assert_non_null(strstr(err.msg, "mlp 784-16384-16384-16384-16384-10 would need about "));
    assert_non_null(strstr(err.msg, " GiB"));
    assert_non_null(strstr(err.msg, "818380810 parameters"));
    assert_string_equal(err.key, "hidden");
    cs_nn *nn = NULL;
    assert_int_equal(cs_nn_new(&nn, &cfg, &err), CS_ENOMEM);
    assert_null(nn);
    /* a batch that tips a large network over names the batch */
    cs_nn_config cnn = {.kind = CS_NN_CNN, .nhidden = 1, .hidden = {16384}};
    assert_int_equal(cs_nn_check_memory(&cnn, 128, 2, &err), CS_OK);
    assert_int_equal(cs_nn_check_memory(&cnn, 4096, 2, &err), CS_ENOMEM);
    assert_string_equal(err.key, "batch");
    assert_non_null(strstr(err.msg, "batches of 4096"));
    fixture_free(f);
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A checkpoint header naming `nh` hidden layers of 16384, `extra` more
 * bytes after the config, then a valid CRC. */
static size_t forged(unsigned char *buf, uint32_t nh, size_t extra)
{
    size_t n = 0;
    memcpy(buf, "CSNN", 4);
    put_u32(buf + 4, CS_NN_FILE_VERSION);
    put_u32(buf + 8, CS_NN_MLP);
    put_u32(buf + 12, nh);
    n = 16;
    for (int i = 0; i < CS_NN_MAX_HIDDEN; i++, n += 4)
        put_u32(buf + n, i < (int)nh ? 16384 : 0);
    memset(buf + n, 0, extra);
    n += extra;
    put_u32(buf + n, (uint32_t)crc32(0L, buf, (uInt)n));
    return n + 4;
}

static void test_forged_checkpoint(void **state)
{
    (void)state;
    fixture *f = fixture_new(0, 1, 1, 1);
    char path[256];
    snprintf(path, sizeof path, "%s/forged.csnn", f->dir);
    unsigned char buf[256];
    cs_err err;
    cs_nn *nn = NULL;
    /* 64 bytes: 8 hidden layers of 16384 (7.5 GB before the check) */
    size_t n = forged(buf, 8, 12);
    assert_int_equal(n, 64);
    FILE *o = fopen(path, "wb");
    fwrite(buf, 1, n, o);
    fclose(o);
    double t0 = cli_now(), rss0 = peak_mib();
    assert_true(cs_nn_load(&nn, path, "cpu", &err) < 0);
    assert_null(nn);
    assert_true(cli_now() - t0 < 1.0);
    assert_true(peak_mib() - rss0 < 64);
    /* the same header complete but the weights missing: the length says so */
    cs_nn_config cfg = {.kind = CS_NN_MLP, .nhidden = 1, .hidden = {16}};
    cs_nn *small;
    assert_int_equal(cs_nn_new(&small, &cfg, &err), CS_OK);
    assert_int_equal(cs_nn_save(small, path, 1, NULL, &err), CS_OK);
    cs_nn_free(small);
    char *data;
    size_t len;
    data = slurp(path, &len);
    /* keep the header (up to the weights), fix the CRC */
    size_t head = len - 4 - (784 * 16 + 16 + 16 * 10 + 10 + 16 + 10) * 4;
    put_u32((unsigned char *)data + head, (uint32_t)crc32(0L, (unsigned char *)data, (uInt)head));
    o = fopen(path, "wb");
    fwrite(data, 1, head + 4, o);
    fclose(o);
    free(data);
    assert_true(cs_nn_load(&nn, path, "cpu", &err) < 0);
    assert_non_null(strstr(err.msg, "its header describes"));
    assert_non_null(strstr(err.msg, "truncated or forged"));
    fails(f, "load model forged.csnn", "its header describes", 12);
    fixture_free(f);
}

/* source /dev/zero grew to 4.3 GB and then ran nothing, exit 0. */
static void test_source_not_text(void **state)
{
    (void)state;
    fixture *f = fixture_new(0, 1, 1, 0);
    double rss0 = peak_mib();
    fails(f, "source /dev/zero", "not a regular file", 8);
    fails(f, "source /tmp", "it is a folder", 8);
    assert_true(peak_mib() - rss0 < 64);
    /* NUL bytes: refused with their position, nothing of the line runs */
    char path[] = "/tmp/csreg_nul_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char text[] = "reg ter\nreg bin\0 garbage\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)sizeof text - 1);
    close(fd);
    char line[128];
    snprintf(line, sizeof line, "source %s", path);
    char want[128];
    snprintf(want, sizeof want, "%s:2:8: a NUL byte at column 8: not a text file", path);
    fails(f, line, want, 8);
    assert_non_null(strstr(ok(f, "eval 1,0"), "reg: ter"));   /* line 1 ran, line 2 did not */
    /* a line of a megabyte and more, with no newline */
    FILE *o = fopen(path, "w");
    for (int i = 0; i < (1 << 20) + 10; i++)
        fputc('a', o);
    fclose(o);
    fails(f, line, "line longer than 1048576 bytes", 8);
    unlink(path);
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_estimate),
        cmocka_unit_test(test_oversized_mlp_refused),
        cmocka_unit_test(test_forged_checkpoint),
        cmocka_unit_test(test_source_not_text),
    };
    return cmocka_run_group_tests_name("limits", tests, NULL, NULL);
}
