/* test_train_log.c — `train ... log=DIR` (sessions/train_log.c) read back
 * (cs_run_watch.h) gives what the live view showed: a run watched as the
 * TUI watches it (frames with histograms, hist_every=2) and logged at the
 * same time; every histogram a frame carried has the same counts, range,
 * near share, mean α and sign flips in the folder's snapshot of that step.
 * Logging changes no result; the `watch` command reads the folder; a log
 * folder that cannot be written fails the command before it trains.
 * Skipped without the Fashion-MNIST package. */
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
#include "cs_run_watch.h"
#include "cs_train_view.h"
#include "interp_util.h"

#define TRAIN "train model=mlp limit=512 batch=64 epochs=2 hidden=32,16 reg=bin lambda=1 " \
              "hist_every=2"
#define BINS 50

static int have_data(void)
{
    return access(CS_NN_DEFAULT_DATA "/train-images-idx3-ubyte.gz", R_OK) == 0;
}

/* The histograms the frames carried (a layer with bins), as shown. */
enum { MAX_SHOWN = 64 };
typedef struct shown {
    size_t step;
    char layer[16];
    cs_nn_watch_layer l;
} shown;
typedef struct recorder {
    shown s[MAX_SHOWN];
    size_t n;
    size_t frames;
} recorder;

static void record(void *ctx, const cs_train_frame *f, cs_train_want *want)
{
    recorder *r = ctx;
    r->frames++;
    for (size_t i = 0; i < f->nlayers; i++)
        if (f->layer[i].bins && r->n < MAX_SHOWN) {
            shown *s = &r->s[r->n++];
            s->step = f->step;
            snprintf(s->layer, sizeof s->layer, "%s", f->layer[i].name);
            s->l = f->layer[i];
        }
    want->bins = BINS;
}

/* The output without wall times and the log's and the watch's own fields. */
static void strip(const char *in, char *out, size_t len)
{
    static const char *const keys[] = {",\"seconds\":", ",\"images_per_s\":", ",\"frames\":",
                                       ",\"watch_seconds\":", ",\"watch_test_seconds\":",
                                       ",\"log\":", ",\"log_snapshots\":", ",\"log_seconds\":"};
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

static void test_log_reads_back_as_shown(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    static recorder r;
    memset(&r, 0, sizeof r);
    fixture *f = fixture_new(1, 5, 1, 1);
    assert_non_null(f);
    cs_interp_set_watch(f->in, record, &r, 1);
    const char *out = ok(f, TRAIN " log=runlog");
    assert_true(jnum(out, "log_snapshots") == 9);   /* steps 0, 2, ..., 16 */
    assert_true(jnum(out, "log_seconds") >= 0);
    assert_null(strstr(out, "log_error"));
    assert_true(r.n >= 9);
    char path[256];
    snprintf(path, sizeof path, "%s/runlog", f->dir);
    cs_run_folder *rf;
    cs_run_watch *w;
    cs_err err;
    assert_int_equal(cs_run_folder_open(&rf, path, &err), CS_OK);
    assert_int_equal(cs_run_watch_new(&w, rf, &err), CS_OK);
    assert_int_equal(cs_run_watch_update(w, &err), 9);
    assert_int_equal(cs_run_folder_point_count(rf), 17);   /* a line a step, and step 0 */
    assert_int_equal(cs_run_folder_info(rf)->done, 1);
    assert_string_equal(cs_run_folder_info(rf)->reg, "bin");
    {   /* run.json names the data and the seed as the command's output does */
        char rj[300], want[64];
        snprintf(rj, sizeof rj, "%s/run.json", path);
        char *text = slurp(rj, NULL);
        const char *h = strstr(out, "\"data_hash\":\"");
        assert_non_null(text);
        assert_non_null(h);
        snprintf(want, sizeof want, "%.28s", h);   /* "data_hash":"<12 hex digits>" */
        assert_non_null(strstr(text, want));
        assert_non_null(strstr(text, "\"data\":\"fashion-mnist\""));
        assert_non_null(strstr(text, "\"seed\":5,"));
        free(text);
    }
    assert_int_equal(cs_run_folder_layer_count(rf), 3);
    assert_int_equal(cs_run_folder_layer(rf, 2)->regularized, 0);   /* the last fc */
    size_t compared = 0, flips = 0;
    for (size_t i = 0; i < r.n; i++) {
        const shown *s = &r.s[i];
        size_t k = cs_run_watch_at_step(w, (double)s->step);
        assert_true(cs_run_watch_snap(w, k)->step == (double)s->step);
        long j = -1;
        for (size_t q = 0; q < cs_run_folder_layer_count(rf); q++)
            if (!strcmp(cs_run_folder_layer(rf, q)->name, s->layer))
                j = (long)q;
        assert_true(j >= 0);
        cs_nn_watch_layer L;
        assert_int_equal(cs_run_watch_hist(w, k, (size_t)j, s->l.bins, 0, 0, &L, &err), CS_OK);
        if (L.lo != s->l.lo || L.hi != s->l.hi ||
            memcmp(L.counts, s->l.counts, (size_t)L.bins * sizeof *L.counts) != 0)
            fail_msg("%s step %zu: the folder's histogram is not the live one's", s->layer,
                     s->step);
        assert_int_equal(L.outside, s->l.outside);
        assert_true(L.near == s->l.near);
        assert_true(L.alpha_mean == s->l.alpha_mean);
        assert_true(isnan(L.flips) == isnan(s->l.flips));
        if (isfinite(L.flips)) {
            assert_true(L.flips == s->l.flips);
            flips++;
        }
        compared++;
    }
    print_message("%zu histograms of %zu frames compared (%zu with flips)\n", compared,
                  r.frames, flips);
    assert_true(flips > 0);
    cs_run_watch_free(w);
    cs_run_folder_free(rf);
    /* the command reads it */
    out = ok(f, "watch dir=runlog layer=fc1 bins=10");
    assert_true(jnum(out, "snapshots") == 9);
    assert_non_null(strstr(out, "\"skipped\":[]"));
    assert_non_null(strstr(out, "\"layer\":\"fc1\",\"near\":"));
    /* logging changes nothing */
    char a[8192], b[8192];
    fixture *g = fixture_new(1, 5, 1, 1);
    assert_non_null(g);
    strip(ok(g, TRAIN), a, sizeof a);
    fixture *h = fixture_new(1, 5, 1, 1);
    assert_non_null(h);
    strip(ok(h, TRAIN " log=other"), b, sizeof b);
    assert_string_equal(a, b);
    fixture_free(g);
    fixture_free(h);
    snprintf(path, sizeof path, "%s/runlog", f->dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    assert_int_equal(system(cmd), 0);
    fixture_free(f);
}

static void test_log_unwritable(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    fixture *f = fixture_new(1, 5, 1, 0);
    assert_non_null(f);
    fails(f, "train model=mlp limit=128 hidden=8 log=/proc/csreg-no/such", "cannot", 36);
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_reads_back_as_shown),
        cmocka_unit_test(test_log_unwritable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
