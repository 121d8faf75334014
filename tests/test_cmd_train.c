/* test_cmd_train.c — the network commands through the interpreter, in
 * process: device=auto on train and load model (the device chosen and why,
 * in JSON and as one line of text), errors for devices that are not there,
 * and the BLAS threads training runs with. Skipped without the
 * Fashion-MNIST package. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_nn.h"
#include "interp_util.h"

#define TRAIN "train model=mlp limit=256 epochs=1 hidden=16"

static int have_data(void)
{
    return access(CS_NN_DEFAULT_DATA "/train-images-idx3-ubyte.gz", R_OK) == 0;
}

/* What auto means on this machine, by the engine's rule. */
static void auto_here(char *dev, size_t len, char *why, size_t wlen)
{
    cs_err err;
    assert_int_equal(cs_nn_device_resolve("auto", dev, len, why, wlen, &err), 0);
}

/* The lines of text that contain needle. */
static int lines_with(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void test_train_device_auto_json(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    char dev[16], why[512], want[700];
    auto_here(dev, sizeof dev, why, sizeof why);
    print_message("device=auto here: %s (%s)\n", dev, why);
    fixture *f = fixture_new(1, 3, 1, 1);
    assert_non_null(f);
    const char *out = ok(f, TRAIN " device=auto");
    snprintf(want, sizeof want, "\"device\":\"%s\",\"device_reason\":\"%s\"", dev, why);
    if (!strstr(out, want))
        fail_msg("train device=auto: %s lacks %s", out, want);
#ifndef CSREG_HAVE_CUDA
    assert_non_null(strstr(out, "\"device_reason\":\"auto: cpu (built without CUDA)\""));
#endif
    /* cpu and cuda are what they say: no reason given */
    out = ok(f, TRAIN " device=cpu");
    assert_non_null(strstr(out, "\"device\":\"cpu\""));
    assert_null(strstr(out, "device_reason"));
    fixture_free(f);
}

/* The same network as device=cpu when auto picks the cpu: same numbers. */
static void test_train_device_auto_same_as_cpu(void **state)
{
    (void)state;
    char dev[16], why[512];
    auto_here(dev, sizeof dev, why, sizeof why);
    if (!have_data() || strcmp(dev, "cpu") != 0) {
        skip();
        return;
    }
    fixture *a = fixture_new(1, 3, 1, 1), *b = fixture_new(1, 3, 1, 1);
    const char *oa = ok(a, TRAIN " device=auto"), *ob = ok(b, TRAIN " device=cpu");
    const char *la = strstr(oa, "\"loss\":"), *lb = strstr(ob, "\"loss\":");
    assert_non_null(la);
    assert_non_null(lb);
    assert_memory_equal(la, lb, strcspn(la, ",") + 1);
    fixture_free(a);
    fixture_free(b);
}

/* `set device auto`: the first train chooses and says so on one line; the
 * next continues on the network's device (nothing to choose). */
static void test_set_device_auto_text(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    char dev[16], why[512], want[700];
    auto_here(dev, sizeof dev, why, sizeof why);
    fixture *f = fixture_new(0, 3, 1, 1);
    ok(f, "set device auto");
    const char *out = ok(f, TRAIN);
    snprintf(want, sizeof want, "\ndevice: %s\ndevice_reason: %s\n", dev, why);
    if (!strstr(out, want))
        fail_msg("train after set device auto: '%s' lacks '%s'", out, want);
    assert_int_equal(lines_with(out, "auto"), 1);
    out = ok(f, TRAIN);
    snprintf(want, sizeof want, "\ndevice: %s\n", dev);
    assert_non_null(strstr(out, want));
    assert_null(strstr(out, "device_reason"));
    fixture_free(f);
}

static void test_load_model_device_auto(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    char dev[16], why[512], want[700];
    auto_here(dev, sizeof dev, why, sizeof why);
    fixture *f = fixture_new(1, 3, 1, 1);
    ok(f, TRAIN);
    ok(f, "save model m.csnn");
    const char *out = ok(f, "load model m.csnn device=auto");
    snprintf(want, sizeof want, "\"device\":\"%s\",\"device_reason\":\"%s\"", dev, why);
    if (!strstr(out, want))
        fail_msg("load model device=auto: %s lacks %s", out, want);
    /* the session's setting is the default */
    ok(f, "set device auto");
    out = ok(f, "load model m.csnn");
    assert_non_null(strstr(out, want));
    out = ok(f, "load model m.csnn device=cpu");
    assert_null(strstr(out, "device_reason"));
    fixture_free(f);
}

static void test_device_errors(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 3, 1, 1);
    fails(f, TRAIN " device=tpu", "device=tpu: expected one of cpu|cuda|auto", 46);
    fails(f, "load model m.csnn device=gpu", "device=gpu: expected one of cpu|cuda|auto", 19);
    cs_err err;
    if (cs_nn_device_check("cuda", &err) != 0)   /* no GPU here: cuda fails clearly */
        fails(f, TRAIN " device=cuda", "device=cuda: ", 46);
    fixture_free(f);
}

/* Network commands run OpenBLAS on the session's threads (--threads N: N;
 * 0: one); every command leaves it at one thread (tests/test_interp.c). */
static void test_train_keeps_blas_threads(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    fixture *f = fixture_new(1, 3, 2, 1);
    assert_int_equal(openblas_get_num_threads(), 1);
    ok(f, TRAIN);
    assert_int_equal(openblas_get_num_threads(), 1);
    ok(f, "save model m.csnn");
    ok(f, "set threads 0");
    ok(f, TRAIN " new=on");
    ok(f, "load model m.csnn");
    ok(f, "evaluate limit=100");
    assert_int_equal(openblas_get_num_threads(), 1);
    fixture_free(f);
}

/* A bad edges= list names the values (the message used to read the list
 * after it was freed; ASan watches this). */
static void test_hist_bad_edges(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    fixture *f = fixture_new(1, 3, 1, 1);
    ok(f, "train model=mlp epochs=1 limit=128 hidden=8");
    fails(f, "hist edges=1,1,1", "edges: must increase strictly (1 after 1)", 6);
    fails(f, "hist edges=0,2,1.5", "(1.5 after 2)", 6);
    fixture_free(f);
}

/* A label with a comma and quotes stays one CSV field (RFC 4180); lambda
 * without a regularizer is refused, not ignored. */
static void test_nnreport_csv_quoting(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    fixture *f = fixture_new(1, 3, 1, 1);
    fails(f, TRAIN " lambda=5", "lambda=5 has no regularizer to weigh", 46);
    ok(f, TRAIN " label=\"x,y \\\"z\\\"\"");
    ok(f, "nnreport out=r.csv");
    char path[256];
    snprintf(path, sizeof path, "%s/r.csv", f->dir);
    char *csv = slurp(path, NULL);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "\ntrain,\"x,y \"\"z\"\"\",mlp,none,0,1,"));
    free(csv);
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_train_device_auto_json),
        cmocka_unit_test(test_train_device_auto_same_as_cpu),
        cmocka_unit_test(test_set_device_auto_text),
        cmocka_unit_test(test_load_model_device_auto),
        cmocka_unit_test(test_device_errors),
        cmocka_unit_test(test_train_keeps_blas_threads),
        cmocka_unit_test(test_hist_bad_edges),
        cmocka_unit_test(test_nnreport_csv_quoting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
