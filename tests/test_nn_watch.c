/* test_nn_watch.c — watching a training run (engine/nn/nn_watch.c and the
 * CPU backend's watch ops): each op against a computation of its own (a
 * binary search over explicit edges, double loops, a brute-force ternary
 * threshold), frames of a trained network against its weights on the
 * host, the range widening, and that taking frames, at any rate and with
 * the test accuracy, leaves a run's results the same bit for bit. */
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
#include "interp_util.h"
#include "nn_util.h"

/* ------------------------------------------------------------------ references */

static double edge(double lo, double hi, int bins, int k)
{
    return lo + (hi - lo) * (double)k / (double)bins;
}

/* counts by a binary search over the edges (cs_nn_hist_counts) */
static void ref_hist(const float *x, size_t n, float lo, float hi, int bins, uint64_t *counts)
{
    double *e = malloc((size_t)(bins + 1) * sizeof *e);
    for (int k = 0; k <= bins; k++)
        e[k] = edge(lo, hi, bins, k);
    cs_nn_hist_counts(x, n, e, (size_t)bins, counts);
    free(e);
}

/* The ternary threshold by trying every |x_j|: S = Σ_{|x_i| >= τ} |x_i|, c
 * their count, the largest S²/c (the largest τ among equals). */
static void ref_ternary(const float *x, int n, float *alpha, float *tau)
{
    double best = -1, bs = 0;
    float bt = 0;
    long bc = 0;
    for (int j = 0; j < n; j++) {
        float t = fabsf(x[j]);
        double s = 0;
        long c = 0;
        for (int i = 0; i < n; i++)
            if (fabsf(x[i]) >= t) {
                s += fabsf(x[i]);
                c++;
            }
        double obj = s * s / (double)c;
        if (obj > best || (obj == best && t > bt)) {
            best = obj;
            bs = s;
            bt = t;
            bc = c;
        }
    }
    *alpha = (float)(bs / (double)bc);
    *tau = *alpha == 0.0f ? INFINITY : bt;
}

static uint32_t ref_near(const float *x, int n, float alpha, int ternary)
{
    uint32_t c = 0;
    for (int j = 0; j < n; j++) {
        double ax = fabs((double)x[j]);
        double d = fabs(ax - alpha);
        if (ternary && ax < d)
            d = ax;
        c += d <= 0.01 * (double)alpha;
    }
    return c;
}

/* ------------------------------------------------------------------ ops */

static void test_op_hist_exact(void **state)
{
    (void)state;
    cs_rng r;
    cs_rng_init(&r, 11, 0);
    static const int nbins[] = {1, 7, 34, 48, 256, 1000, 5000};
    for (size_t t = 0; t < sizeof nbins / sizeof *nbins; t++) {
        int bins = nbins[t];
        float lo = -0.3f, hi = 0.45f;
        size_t n = 20000 + (size_t)bins;
        float *x = malloc(n * sizeof *x);
        fill(x, n, &r, 0.2);
        /* the edges themselves (as floats: just below or above), lo, hi, -0 */
        for (int k = 0; k <= bins && (size_t)k < n; k++)
            x[k] = (float)edge(lo, hi, bins, k);
        x[n - 1] = lo;
        x[n - 2] = hi;
        x[n - 3] = -0.0f;
        x[n - 4] = nextafterf(hi, 1.0f);
        uint32_t *got = malloc((size_t)bins * sizeof *got);
        uint64_t *want = malloc((size_t)bins * sizeof *want);
        cpu->watch->hist(got, x, n, lo, hi, bins);
        ref_hist(x, n, lo, hi, bins, want);
        for (int k = 0; k < bins; k++)
            if (got[k] != want[k])
                fail_msg("bins=%d bin %d: %u, by the edges %llu", bins, k, got[k],
                         (unsigned long long)want[k]);
        free(x);
        free(got);
        free(want);
    }
}

static void test_op_scales_near_flips(void **state)
{
    (void)state;
    cs_rng r;
    cs_rng_init(&r, 12, 0);
    enum { ROWS = 9, COLS = 97 };
    float w[ROWS * COLS], alpha[ROWS], tau[ROWS];
    fill(w, ROWS * COLS, &r, 0.1);
    for (int j = 0; j < COLS; j++) {   /* row 1: ties; row 2: zeros; row 3: three levels */
        w[COLS + j] = (float)((j % 5) - 2) * 0.25f;
        w[2 * COLS + j] = 0.0f;
        w[3 * COLS + j] = j % 3 == 0 ? 0.0f : j % 3 == 1 ? 0.5f : -0.5f;
    }
    cpu->watch->row_abs_mean(alpha, w, ROWS, COLS);
    for (int i = 0; i < ROWS; i++) {
        double s = 0;
        for (int j = 0; j < COLS; j++)
            s += fabs((double)w[i * COLS + j]);
        assert_true(alpha[i] == (float)(s / COLS));
    }
    uint32_t near[ROWS];
    cpu->watch->near_count(near, w, alpha, ROWS, COLS, 0);
    for (int i = 0; i < ROWS; i++)
        assert_int_equal(near[i], ref_near(w + i * COLS, COLS, alpha[i], 0));
    cpu->watch->row_ternary(alpha, tau, w, ROWS, COLS);
    for (int i = 0; i < ROWS; i++) {
        float a, t;
        ref_ternary(w + i * COLS, COLS, &a, &t);
        if (!(alpha[i] == a && tau[i] == t))
            fail_msg("row %d: ternary %g %g, by trying every threshold %g %g", i, alpha[i],
                     tau[i], a, t);
    }
    assert_true(alpha[3] == 0.5f && tau[3] == 0.5f);
    assert_true(alpha[2] == 0.0f && isinf(tau[2]));
    cpu->watch->near_count(near, w, alpha, ROWS, COLS, 1);
    for (int i = 0; i < ROWS; i++)
        assert_int_equal(near[i], ref_near(w + i * COLS, COLS, alpha[i], 1));
    assert_int_equal(near[3], COLS);
    /* sign flips over n = 70 (not a multiple of 32), -0 counts as not negative */
    uint32_t bits[3] = {0}, flips;
    float x[70], y[70];
    fill(x, 70, &r, 1);
    x[5] = -0.0f;
    cpu->watch->sign_flips(&flips, bits, x, 70);
    memcpy(y, x, sizeof y);
    for (int i = 0; i < 70; i += 3)
        y[i] = -y[i];
    uint32_t want = 0;
    for (int i = 0; i < 70; i++)
        want += (x[i] < 0) != (y[i] < 0);
    cpu->watch->sign_flips(&flips, bits, y, 70);
    assert_int_equal(flips, want);
    for (int i = 0; i < 70; i++)
        assert_int_equal((bits[i / 32] >> (i % 32)) & 1u, y[i] < 0.0f);
}

/* ------------------------------------------------------------------ frames */

static float *weights(cs_nn *nn, size_t i, size_t *n)
{
    cs_nn_wlayer_info li;
    cs_nn_wlayer(nn, i, &li);
    *n = li.rows * li.cols;
    float *w = malloc(*n * sizeof *w);
    cs_err err;
    assert_int_equal(cs_nn_wlayer_get(nn, i, w, &err), 0);
    return w;
}

static void train(cs_nn *nn, const cs_nn_data *d, int epochs, const char *reg, int finetune)
{
    cs_reg *r = NULL;
    cs_err err;
    if (reg)
        assert_int_equal(cs_reg_new(&r, reg, NULL, 0, 1, &err), 0);
    cs_nn_train_opts o = {.epochs = epochs, .batch = 16, .reg = r, .lambda = r ? 1 : 0,
                          .finetune = finetune};
    cs_nn_train_report rep;
    if (cs_nn_train(nn, d, &o, &rep, &err))
        fail_msg("%s", err.msg);
    cs_reg_free(r);
}

/* The frame's counts against the layer's weights on the host. */
static void check_counts(cs_nn *nn, size_t i, const cs_nn_watch_layer *f)
{
    size_t n;
    float *w = weights(nn, i, &n);
    uint64_t *want = malloc((size_t)f->bins * sizeof *want);
    ref_hist(w, n, (float)f->lo, (float)f->hi, f->bins, want);
    size_t inside = 0;
    for (int k = 0; k < f->bins; k++) {
        assert_int_equal(f->counts[k], want[k]);
        inside += want[k];
    }
    assert_int_equal(f->outside, n - inside);
    free(want);
    free(w);
}

/* The layer's frame against its weights on the host: the range (set from
 * these weights: 1.25 × the 99.9th percentile of |w|, to its 1% bucket),
 * the counts, α per row, readiness. */
static void check_layer(cs_nn *nn, size_t i, const cs_nn_watch_layer *f, int ternary,
                        int range_set_now)
{
    size_t n;
    float *w = weights(nn, i, &n);
    assert_true(f->lo == -f->hi && f->hi > 0);
    size_t above = 0, at_or_above = 0;
    for (size_t k = 0; k < n; k++) {
        above += fabs(w[k]) > f->hi / 1.25 * (1 + 1.0 / 128);
        at_or_above += fabs(w[k]) >= f->hi / 1.25;
    }
    if (range_set_now) {
        assert_true(above <= (size_t)(0.001 * (double)n));
        assert_true(at_or_above >= (size_t)(0.001 * (double)n) + 1);
    }
    if (f->bins)
        check_counts(nn, i, f);
    double as = 0, amin = INFINITY, amax = -INFINITY, ts = 0;
    size_t near = 0;
    for (size_t r = 0; r < f->rows; r++) {
        const float *x = w + r * f->cols;
        float a, t = 0;
        if (ternary) {
            ref_ternary(x, (int)f->cols, &a, &t);
        } else {
            double s = 0;
            for (size_t j = 0; j < f->cols; j++)
                s += fabs((double)x[j]);
            a = (float)(s / (double)f->cols);
        }
        as += a;
        amin = fmin(amin, a);
        amax = fmax(amax, a);
        ts += t;
        near += ref_near(x, (int)f->cols, a, ternary);
    }
    assert_true(f->alpha_mean == as / (double)f->rows);
    assert_true(f->alpha_min == amin && f->alpha_max == amax);
    assert_true(f->near == (double)near / (double)n);
    assert_int_equal(f->levels, ternary ? 3 : 2);
    if (ternary)
        assert_true(fabs(f->tau_mean - ts / (double)f->rows) <= 1e-12 * ts);
    else
        assert_true(isnan(f->tau_mean));
    free(w);
}

static void test_frame_matches_host(void **state)
{
    (void)state;
    cs_nn_data d = nn_synth(160, 21);
    for (int kind = 0; kind < 2; kind++) {
        cs_nn *nn = nn_tiny((cs_nn_kind)kind, 7);
        train(nn, &d, 1, "bin", 0);
        size_t nl = cs_nn_wlayer_count(nn);
        cs_nn_watch_layer f1[CS_NN_WATCH_LAYERS], f2[CS_NN_WATCH_LAYERS];
        for (int ternary = 0; ternary < 2; ternary++) {
            cs_nn_watch *w;
            cs_err err;
            assert_int_equal(cs_nn_watch_new(&w, nn, ternary, CS_NN_EXCL_DEFAULT, 0, &err), 0);
            assert_int_equal(cs_nn_watch_frame(w, 40, -1, f1, &err), 0);
            for (size_t i = 0; i < nl; i++) {
                cs_nn_wlayer_info li;
                cs_nn_wlayer(nn, i, &li);
                assert_string_equal(f1[i].name, li.name);
                assert_int_equal(f1[i].regularized, !li.excluded_default);
                assert_int_equal(f1[i].bins, 40);
                assert_true(isnan(f1[i].flips));   /* the first frame */
                check_layer(nn, i, &f1[i], ternary, 1);
            }
            /* the sign flips of a second frame, after another epoch; the
             * histogram of one layer only */
            float *before = weights(nn, 0, &(size_t){0});
            train(nn, &d, 1, "bin", 0);
            assert_int_equal(cs_nn_watch_frame(w, 17, 1, f2, &err), 0);
            size_t n;
            float *after = weights(nn, 0, &n);
            size_t flips = 0;
            for (size_t k = 0; k < n; k++)
                flips += (before[k] < 0) != (after[k] < 0);
            assert_true(f2[0].flips == (double)flips / (double)n);
            assert_int_equal(f2[0].bins, 0);
            assert_int_equal(f2[1].bins, 17);
            for (size_t i = 0; i < nl; i++)
                check_layer(nn, i, &f2[i], ternary, 0);
            cs_nn_watch_layer one;   /* one layer's histogram alone */
            assert_int_equal(cs_nn_watch_hist(w, 2, 9, &one, &err), 0);
            check_counts(nn, 2, &one);
            assert_true(cs_nn_watch_hist(w, nl, 9, &one, &err) < 0);
            assert_true(cs_nn_watch_frame(w, 0, -1, f2, &err) < 0);
            assert_true(cs_nn_watch_frame(w, CS_NN_WATCH_BINS + 1, -1, f2, &err) < 0);
            free(before);
            free(after);
            cs_nn_watch_free(w);
        }
        cs_nn_free(nn);
    }
    cs_nn_data_free(&d);
}

/* Fine-tuning: the quantized layers show their trained α and are all at
 * their levels; the range widens when the weights leave it. */
static void test_frame_quantized_and_widening(void **state)
{
    (void)state;
    cs_nn_data d = nn_synth(160, 22);
    cs_nn *nn = nn_tiny(CS_NN_MLP, 8);
    train(nn, &d, 1, NULL, 0);
    cs_nn_quant_report q;
    cs_err err;
    assert_int_equal(cs_nn_quantize(nn, 1, CS_NN_EXCL_DEFAULT, &q, &err), 0);
    cs_nn_watch *w;
    cs_nn_watch_layer f[CS_NN_WATCH_LAYERS];
    assert_int_equal(cs_nn_watch_new(&w, nn, 0, CS_NN_EXCL_DEFAULT, 1, &err), 0);
    assert_int_equal(cs_nn_watch_frame(w, 30, -1, f, &err), 0);
    for (size_t i = 0; i < 2; i++) {   /* fc1, fc2: ternary, quantized */
        assert_int_equal(f[i].quantized, 1);
        assert_int_equal(f[i].levels, 3);
        assert_true(f[i].near == 1.0);
        float alpha[16];
        assert_int_equal(cs_nn_wlayer_alpha(nn, i, alpha, &err), 0);
        double s = 0;
        for (size_t r = 0; r < f[i].rows; r++)
            s += alpha[r];
        assert_true(f[i].alpha_mean == s / (double)f[i].rows);
    }
    assert_int_equal(f[2].quantized, 0);   /* fc3 stays full precision */
    /* three times the weights: the range widens by halves until 99% fit */
    size_t n;
    float *x = weights(nn, 0, &n);
    for (size_t k = 0; k < n; k++)
        x[k] *= 3;
    assert_int_equal(cs_nn_wlayer_set(nn, 0, x, &err), 0);
    double hi0 = f[0].hi;
    assert_int_equal(cs_nn_watch_frame(w, 30, 0, f, &err), 0);
    double k = log(f[0].hi / hi0) / log(1.5);
    assert_true(fabs(k - round(k)) < 1e-9 && k >= 1);
    assert_true(f[0].outside * 100 <= n);
    check_counts(nn, 0, &f[0]);
    free(x);
    cs_nn_watch_free(w);
    cs_nn_free(nn);
    cs_nn_data_free(&d);
}

/* ------------------------------------------------------------------ watching changes nothing */

typedef struct watcher {
    cs_nn *nn;
    cs_nn_watch *w;
    const cs_nn_data *test;
    int every, bins, layer;
    size_t frames, evals;
} watcher;

/* What the sessions' watch does between steps: frames, and the test
 * accuracy in place at epoch ends. */
static int on_step(void *ctx, const cs_nn_progress *p)
{
    watcher *a = ctx;
    cs_nn_watch_layer f[CS_NN_WATCH_LAYERS];
    cs_err err;
    if (p->step % (size_t)a->every == 0) {
        assert_int_equal(cs_nn_watch_frame(a->w, a->bins, a->layer, f, &err), 0);
        a->frames++;
    }
    if (p->batch == p->batches) {
        double acc, loss;
        assert_int_equal(cs_nn_evaluate_in_place(a->nn, a->test, &acc, &loss, &err), 0);
        a->evals++;
    }
    return 0;
}

/* train (reg=bin, augmented), quantize ter, finetune, evaluate, save;
 * watched every `every` steps (0: not at all). */
static void pipeline(cs_nn_kind kind, int every, int bins, int layer, const char *path,
                     double out[4], size_t *frames)
{
    cs_nn_data d = nn_synth(96, 31), test = nn_synth(40, 32);
    cs_nn *nn = nn_tiny(kind, 9);
    cs_reg *reg;
    cs_err err;
    assert_int_equal(cs_reg_new(&reg, "bin", NULL, 0, 1, &err), 0);
    watcher a = {.nn = nn, .test = &test, .every = every, .bins = bins, .layer = layer};
    for (int stage = 0; stage < 2; stage++) {
        cs_nn_train_opts o = {.epochs = 2, .batch = 16, .augment = 1,
                              .reg = stage ? NULL : reg, .lambda = stage ? 0 : 1,
                              .finetune = stage};
        if (every) {   /* as train_watch_begin: buffers, the start's accuracy, the watch */
            double acc, loss;
            assert_int_equal(cs_nn_reserve(nn, 16, &err), 0);
            assert_int_equal(cs_nn_evaluate_in_place(nn, &test, &acc, &loss, &err), 0);
            assert_int_equal(cs_nn_watch_new(&a.w, nn, stage, CS_NN_EXCL_DEFAULT, stage, &err),
                             0);
            o.progress = on_step;
            o.progress_ctx = &a;
        }
        cs_nn_train_report rep;
        assert_int_equal(cs_nn_train(nn, &d, &o, &rep, &err), 0);
        out[stage] = rep.loss;
        cs_nn_watch_free(a.w);
        a.w = NULL;
        if (stage == 0) {
            cs_nn_quant_report q;
            assert_int_equal(cs_nn_quantize(nn, 1, CS_NN_EXCL_DEFAULT, &q, &err), 0);
        }
    }
    assert_int_equal(cs_nn_evaluate(nn, &test, &out[2], &out[3], &err), 0);
    assert_int_equal(cs_nn_save(nn, path, 1, NULL, &err), 0);
    *frames = a.frames;
    if (every)
        assert_int_equal(a.evals, 4);
    cs_reg_free(reg);
    cs_nn_free(nn);
    cs_nn_data_free(&d);
    cs_nn_data_free(&test);
}

static void test_watching_changes_nothing(void **state)
{
    (void)state;
    char dir[] = "/tmp/csreg_watchXXXXXX";
    assert_non_null(mkdtemp(dir));
    for (int kind = 0; kind < 2; kind++) {
        static const int every[] = {0, 1, 7}, bins[] = {1, 64, 5}, layer[] = {-1, -1, 0};
        char path[3][96];
        double out[3][4];
        size_t frames[3];
        for (int k = 0; k < 3; k++) {
            snprintf(path[k], sizeof path[k], "%s/%d.csnn", dir, k);
            pipeline((cs_nn_kind)kind, every[k], bins[k], layer[k], path[k], out[k], &frames[k]);
        }
        assert_int_equal(frames[0], 0);
        assert_int_equal(frames[1], 24);   /* 2 × 2 epochs of 6 steps */
        assert_true(frames[2] > 0 && frames[2] < frames[1]);
        size_t na, nb;
        char *a = slurp(path[0], &na);
        for (int k = 1; k < 3; k++) {
            char *b = slurp(path[k], &nb);
            assert_int_equal(na, nb);
            if (memcmp(a, b, na))
                fail_msg("%s: the weights watched every %d steps differ from unwatched",
                         kind ? "cnn" : "mlp", every[k]);
            assert_memory_equal(out[0], out[k], sizeof out[0]);
            free(b);
        }
        free(a);
        for (int k = 0; k < 3; k++)
            unlink(path[k]);
    }
    rmdir(dir);
}

int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_op_hist_exact),
        cmocka_unit_test(test_op_scales_near_flips),
        cmocka_unit_test(test_frame_matches_host),
        cmocka_unit_test(test_frame_quantized_and_widening),
        cmocka_unit_test(test_watching_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
