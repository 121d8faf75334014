/* test_train_watch.c — watching train and finetune through the interpreter
 * (sessions/train_watch.c), as the TUI and the terminal's progress line
 * do: the same results and weights bit for bit with and without a watch;
 * the frames of a run (steps in order, epoch ends with the test accuracy,
 * the final frame, the histogram the watcher asks for, counts that add up);
 * frames without histograms; a cancelled run keeps its last step. Skipped
 * without the Fashion-MNIST package. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_nn.h"
#include "cs_train_view.h"
#include "interp_util.h"

#define TRAIN "train model=mlp limit=512 epochs=2 hidden=32,16 reg=bin lambda=1"

static int have_data(void)
{
    return access(CS_NN_DEFAULT_DATA "/train-images-idx3-ubyte.gz", R_OK) == 0;
}

/* ------------------------------------------------------------------ a recorder */

enum { MAX_FRAMES = 64 };
typedef struct recorder {
    cs_train_frame f[MAX_FRAMES];
    size_t n, total;
    int want_after;          /* after this many frames ask for want_layer */
    const char *want_layer;
    int want_bins;
    cs_interp *cancel_in;    /* raise its cancel flag at run step cancel_at */
    size_t cancel_at;
} recorder;

static void record(void *ctx, const cs_train_frame *f, cs_train_want *want)
{
    recorder *r = ctx;
    if (r->n < MAX_FRAMES)
        r->f[r->n++] = *f;
    r->total++;
    if (r->want_layer && (int)r->total >= r->want_after) {
        snprintf(want->layer, sizeof want->layer, "%s", r->want_layer);
        want->bins = r->want_bins;
    }
    if (r->cancel_in && f->run_step == r->cancel_at && !f->final)
        atomic_store(cs_interp_cancel_flag(r->cancel_in), 1);
}

/* The output without its wall times and the watch's own fields. */
static void strip_times(const char *in, char *out, size_t len)
{
    static const char *const keys[] = {",\"seconds\":", ",\"images_per_s\":", ",\"frames\":",
                                       ",\"watch_seconds\":", ",\"watch_test_seconds\":"};
    size_t o = 0;
    for (const char *p = in; *p && o + 1 < len;) {
        int skipped = 0;
        for (size_t k = 0; k < sizeof keys / sizeof *keys && !skipped; k++)
            if (!strncmp(p, keys[k], strlen(keys[k]))) {
                p += strlen(keys[k]);
                p += strcspn(p, ",}");
                skipped = 1;
            }
        if (!skipped)
            out[o++] = *p++;
    }
    out[o] = '\0';
}

/* An interpreter (JSON, seed 5) whose runs r watches, with histograms or
 * not; NULL without the Fashion-MNIST package. */
static fixture *watched(recorder *r, int histograms)
{
    if (!have_data())
        return NULL;
    fixture *f = fixture_new(1, 5, 1, 1);
    assert_non_null(f);
    memset(r, 0, sizeof *r);
    cs_interp_set_watch(f->in, record, r, histograms);
    return f;
}

/* ------------------------------------------------------------------ tests */

/* train (augmented), quantize ter, finetune, evaluate, save: unwatched,
 * watched with histograms every step, and with the progress line's frames
 * give the same outputs and the same checkpoint bytes. */
static void test_watching_changes_nothing(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    static const char *const lines[] = {TRAIN " augment=on hist_every=2", "quantize ter",
                                        "finetune epochs=1", "evaluate limit=500",
                                        "save model m.csnn"};
    static char out[3][16384];
    char *model[3];
    size_t mlen[3];
    static recorder r[3];
    for (int k = 0; k < 3; k++) {
        fixture *f = fixture_new(1, 5, 1, 1);
        assert_non_null(f);
        memset(&r[k], 0, sizeof r[k]);
        if (k)
            cs_interp_set_watch(f->in, record, &r[k], k == 1);
        for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
            ok(f, lines[i]);
        strip_times(f->buf, out[k], sizeof out[k]);
        char path[128];
        snprintf(path, sizeof path, "%s/m.csnn", f->dir);
        model[k] = slurp(path, &mlen[k]);
        assert_non_null(model[k]);
        fixture_free(f);
    }
    assert_true(r[1].total > 8 && r[2].total > 2);
    for (int k = 1; k < 3; k++) {
        if (strcmp(out[0], out[k]))
            fail_msg("watched (%s) output differs:\n%s\nunwatched:\n%s",
                     k == 1 ? "histograms" : "progress", out[k], out[0]);
        assert_int_equal(mlen[0], mlen[k]);
        assert_memory_equal(model[0], model[k], mlen[0]);
    }
    for (int k = 0; k < 3; k++)
        free(model[k]);
}

static void test_frames_of_a_run(void **state)
{
    (void)state;
    static recorder r;
    fixture *f = watched(&r, 1);
    if (!f)
        skip();
    r.want_after = 3;
    r.want_layer = "fc2";
    r.want_bins = 20;
    const char *out = ok(f, TRAIN " hist_every=1");
    /* 512 images, batch 128: 4 steps an epoch; a frame at the start, one a
     * step (hist_every=1), the final one */
    assert_int_equal(r.n, 1 + 8 + 1);
    char want[64];
    snprintf(want, sizeof want, "\"frames\":%zu", r.n);
    assert_non_null(strstr(out, want));
    const cs_train_frame *first = &r.f[0], *last = &r.f[r.n - 1];
    assert_string_equal(first->what, "train");
    assert_string_equal(first->model, "mlp 784-32-16-10");
    assert_string_equal(first->reg, "bin");
    assert_int_equal(first->run_step, 0);
    assert_int_equal(first->nlayers, 3);
    assert_int_equal(first->sel, 0);   /* fc1: the first regularized layer */
    assert_int_equal(first->test_n, 200);
    assert_true(first->test_acc >= 0 && first->test_acc <= 1 && first->test_step == 0);
    for (size_t i = 1; i + 1 < r.n; i++) {
        const cs_train_frame *g = &r.f[i];
        assert_int_equal(g->run_step, i);
        assert_int_equal(g->step, i);
        assert_int_equal(g->run_steps, 8);
        assert_int_equal(g->epoch, i <= 4 ? 1 : 2);
        assert_int_equal(g->epoch_end, i % 4 == 0);
        if (g->epoch_end)
            assert_true(g->test_epoch == g->epoch && g->test_step == i);
        assert_true(isfinite(g->loss) && g->loss > 0 && isfinite(g->eta));
        /* the histogram asked for: fc1 until the third frame, then fc2 */
        int shown = i < 3 ? 0 : 1;
        assert_int_equal(g->shown, shown);
        assert_int_equal(g->layer[shown].bins, i < 3 ? 64 : 20);
        assert_int_equal(g->layer[1 - shown].bins, 0);
        size_t sum = g->layer[shown].outside;
        for (int k = 0; k < g->layer[shown].bins; k++)
            sum += g->layer[shown].counts[k];
        assert_int_equal(sum, g->layer[shown].rows * g->layer[shown].cols);
        assert_true(isfinite(g->layer[0].flips) && g->layer[0].near >= 0);
        assert_true(!g->final);
    }
    assert_true(last->final && !last->stopped && !last->failed);
    assert_int_equal(last->step, 8);
    for (size_t i = 0; i < last->nlayers; i++) {   /* every layer's histogram, for after */
        const cs_nn_watch_layer *l = &last->layer[i];
        size_t sum = l->outside;
        for (int k = 0; k < l->bins; k++)
            sum += l->counts[k];
        assert_int_equal(l->bins, 20);
        assert_int_equal(sum, l->rows * l->cols);
    }
    assert_true(last->watch_share > 0 && last->watch_share < 1);
    /* `hist layer=` chooses the next run's first layer; a new run, a new number */
    long run = first->run;
    ok(f, "hist layer=fc2");
    r.n = r.total = 0;
    r.want_layer = NULL;
    ok(f, TRAIN);
    assert_int_equal(r.f[0].run, run + 1);
    assert_int_equal(r.f[0].sel, 1);
    assert_int_equal(r.f[0].step, 8);
    fixture_free(f);
}

/* The terminal's progress line: frames without histograms, and no cost in
 * the result. */
static void test_frames_without_histograms(void **state)
{
    (void)state;
    static recorder r;
    fixture *f = watched(&r, 0);
    if (!f)
        skip();
    const char *out = ok(f, TRAIN);
    assert_null(strstr(out, "\"frames\""));
    assert_true(r.n >= 3);   /* start, the epoch ends, the final frame */
    for (size_t i = 0; i < r.n; i++)
        assert_int_equal(r.f[i].nlayers, 0);
    assert_true(r.f[r.n - 1].final);
    fixture_free(f);
}

/* Cancelled at the third step: the network keeps it, the final frame says
 * so, the stage is partial; a finetune cancelled at its first epoch's end
 * keeps that epoch and is not evaluated. */
static void test_cancel_keeps_last_step(void **state)
{
    (void)state;
    static recorder r;
    fixture *f = watched(&r, 1);
    if (!f)
        skip();
    r.cancel_in = f->in;
    r.cancel_at = 3;
    const char *out = ok(f, TRAIN " hist_every=1");
    assert_non_null(strstr(out, "\"partial\":true"));
    const cs_train_frame *last = &r.f[r.n - 1];
    assert_true(last->final && last->stopped);
    assert_int_equal(last->step, 3);
    assert_int_equal(last->run_step, 3);
    ok(f, "quantize bin");
    r.n = r.total = 0;
    r.cancel_at = 4;
    out = ok(f, "finetune epochs=2");
    assert_non_null(strstr(out, "\"partial\":true"));
    assert_non_null(strstr(out, "\"epochs_done\":1"));
    assert_null(strstr(out, "\"accuracy\""));
    assert_true(r.f[r.n - 1].stopped && r.f[r.n - 1].step == 3 + 4);
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watching_changes_nothing),
        cmocka_unit_test(test_frames_of_a_run),
        cmocka_unit_test(test_frames_without_histograms),
        cmocka_unit_test(test_cancel_keeps_last_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
