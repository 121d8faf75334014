/* test_nn_parity_cpu.c — the parity harness of parity_util.c with the CPU
 * backend on both sides: every op, its determinism and the op-chain
 * trainings must agree bit for bit (this runs every row of the harness
 * where no GPU is, in both build variants); and a CPU table with planted
 * faults must fail exactly the rows of the faulty ops, so the harness
 * would see a device that is wrong. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cs_blas.h"
#include "nn_backend.h"
#include "parity_util.h"

static void test_parity_cpu_cpu(void **state)
{
    (void)state;
    assert_int_equal(nn_parity_run(&cs_nn_cpu_ops, &cs_nn_cpu_ops,
                                   NN_PARITY_VERBOSE | NN_PARITY_EXACT),
                     0);
}

/* ------------------------------------------------------------------ planted faults */

static const cs_nn_ops *ok = &cs_nn_cpu_ops;

/* the last positive output one float off: an exact row must see it */
static void relu_ulp(float *out, const float *inp, size_t n)
{
    ok->relu_forward(out, inp, n);
    for (size_t i = n; i-- > 0;)
        if (out[i] > 0) {
            out[i] = nextafterf(out[i], INFINITY);
            break;
        }
}

/* a leaky relu: far off, through a whole chain */
static void relu_leaky(float *out, const float *inp, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = inp[i] > 0 ? inp[i] : 0.1f * inp[i];
}

/* 1e-3 relative: over sgemm's 1e-4 */
static void matmul_scaled(float *out, const float *inp, const float *w, const float *bias, int B,
                          int C, int OC)
{
    ok->matmul_forward(out, inp, w, bias, B, C, OC);
    for (size_t i = 0; i < (size_t)B * OC; i++)
        out[i] *= 1.001f;
}

/* forgets dbias when dinp is NULL (an output left unwritten) */
static void matmul_backward_lazy(float *dinp, float *dw, float *dbias, const float *dout,
                                 const float *inp, const float *w, int B, int C, int OC)
{
    ok->matmul_backward(dinp, dw, dinp ? dbias : NULL, dout, inp, w, B, C, OC);
}

/* the last window's tie goes to the last of its maxima */
static void maxpool_last(float *out, int32_t *idx, const float *inp, int B, int C, int H, int W)
{
    ok->maxpool_forward(out, idx, inp, B, C, H, W);
    size_t n = (size_t)B * C * (H / 2) * (W / 2);
    for (size_t i = 0; i < n; i++) {
        size_t bc = i / ((size_t)(H / 2) * (W / 2)), o = i % ((size_t)(H / 2) * (W / 2));
        const float *p = inp + bc * H * W + (o / (W / 2)) * 2 * W + (o % (W / 2)) * 2;
        float v[4] = {p[0], p[1], p[W], p[W + 1]};
        for (int k = 3; k > idx[i]; k--)
            if (v[k] == v[idx[i]]) {
                idx[i] = k;
                break;
            }
    }
}

/* running statistics not updated in eval mode's place: eval updates them */
static void bn_eval_updates(float *out, const float *inp, const float *gamma, const float *beta,
                            float *mean, float *rstd, float *run_mean, float *run_var, int B,
                            int C, int HW, int train)
{
    ok->bn_forward(out, inp, gamma, beta, mean, rstd, run_mean, run_var, B, C, HW, train);
    if (!train)
        run_mean[0] += 1e-3f;
}

/* overlapping copies as memcpy forward, byte by byte: wrong when dst is after src */
static void copy_forward(void *dst, const void *src, size_t bytes)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    for (size_t i = 0; i < bytes; i++)
        d[i] = s[i];
}

/* a count moved to the next bin */
static void hist_shifted(uint32_t *counts, const float *x, size_t n, float lo, float hi, int bins)
{
    cs_nn_cpu_watch_ops.hist(counts, x, n, lo, hi, bins);
    for (int b = 0; b + 1 < bins; b++)
        if (counts[b]) {
            counts[b]--;
            counts[b + 1]++;
            break;
        }
}

/* binexp's gradient with its scale 1% off */
static void reg_rows_sloppy(float *dw, double *val, const float *w, int rows, int cols, int kind,
                            float scale)
{
    ok->reg->rows(dw, val, w, rows, cols, kind, kind == CS_REG_KERNEL_BINEXP ? scale * 1.01f : scale);
}

/* an error kept once: reported after the next row */
static int error_count;
static int error_once(char *msg, size_t len)
{
    if (error_count++ != 3)
        return 0;
    snprintf(msg, len, "planted: EXECUTION_FAILED");
    return -1;
}

static void test_parity_detects_faults(void **state)
{
    (void)state;
    cs_nn_ops bad = cs_nn_cpu_ops;
    cs_nn_reg_ops br = cs_nn_cpu_reg_ops;
    cs_nn_watch_ops bw = cs_nn_cpu_watch_ops;
    bad.name = "faulty";
    bad.relu_forward = relu_ulp;
    bad.matmul_forward = matmul_scaled;
    bad.matmul_backward = matmul_backward_lazy;
    bad.maxpool_forward = maxpool_last;
    bad.bn_forward = bn_eval_updates;
    bad.copy = copy_forward;
    br.rows = reg_rows_sloppy;
    bad.reg = &br;
    bw.hist = hist_shifted;
    bad.watch = &bw;
    print_message("planted faults: the FAILED lines below are expected\n");
    /* each faulty op's row fails, and nothing else does */
    static const struct {
        const char *row;
        int fails;
    } rows[] = {
        {"relu_forward", 1},      {"relu_backward", 0},
        {"matmul_forward", 1},    {"matmul_backward nodinp", 1},
        {"matmul_backward", 1},   {"maxpool_forward", 1},
        {"maxpool_backward", 0},  {"bn_forward eval", 1},
        {"bn_forward train", 0},  {"copy", 1},
        {"zero", 0},              {"watch hist", 1},
        {"watch sign_flips", 0},  {"reg_rows binexp", 1},
        {"reg_rows ter", 0},      {"adam_update", 0},
        {"conv_forward", 0},      {"softmax_ce", 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        int f = nn_parity_ops(&cs_nn_cpu_ops, &bad, rows[i].row, 0);
        print_message("faulty %-24s %d failed check%s\n", rows[i].row, f, f == 1 ? "" : "s");
        if ((f > 0) != rows[i].fails)
            fail_msg("row %s: %d failed checks, expected %s", rows[i].row, f,
                     rows[i].fails ? "some" : "none");
    }
    /* a kept error is a failure of the row after which it shows */
    cs_nn_ops err = cs_nn_cpu_ops;
    err.error = error_once;
    error_count = 0;
    assert_int_equal(nn_parity_ops(&cs_nn_cpu_ops, &err, "relu", 0), 0);   /* calls 0, 1 */
    assert_int_equal(nn_parity_ops(&cs_nn_cpu_ops, &err, "relu", 0), 1);   /* 2, 3 */
    /* the chains see a faulty op too */
    cs_nn_ops chain = cs_nn_cpu_ops;
    chain.relu_forward = relu_leaky;
    assert_true(nn_parity_train(&cs_nn_cpu_ops, &chain, 0) > 0);
}

int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parity_cpu_cpu),
        cmocka_unit_test(test_parity_detects_faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
