/* test_replay_stop.c — replay without exceptions (issue 38 item 3), in
 * process: a train or finetune cancelled after a few steps is journaled
 * with stop_after=STEPS, and the journal replayed in a second interpreter
 * writes the same checkpoint byte for byte; a cancelled solve is journaled
 * with stop_after=ITERS and its replay reaches the same iterate; the files
 * a command reads (solve/step x0=, load model, maxcut graph=, train
 * data=DIR) are journaled with sha256= and a replay whose file changed
 * fails naming it; device=auto is journaled as the device it chose; lines
 * of commands that ran to the end are journaled as typed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cs_nn.h"
#include "cs_sha256.h"
#include "cs_train_view.h"
#include "interp_util.h"

static int have_data(void)
{
    return access(CS_NN_DEFAULT_DATA "/train-images-idx3-ubyte.gz", R_OK) == 0;
}

static const char *last_journal(fixture *f)
{
    size_t n = cs_interp_journal_len(f->in);
    assert_true(n > 0);
    return cs_interp_journal_line(f->in, n - 1);
}

/* Every line of from's journal run in `to` (each must succeed). */
static void replay(fixture *from, fixture *to)
{
    for (size_t i = 0; i < cs_interp_journal_len(from->in); i++)
        ok(to, cs_interp_journal_line(from->in, i));
}

static void same_journal(fixture *a, fixture *b)
{
    assert_int_equal(cs_interp_journal_len(a->in), cs_interp_journal_len(b->in));
    for (size_t i = 0; i < cs_interp_journal_len(a->in); i++)
        assert_string_equal(cs_interp_journal_line(a->in, i), cs_interp_journal_line(b->in, i));
}

static void same_file(const fixture *a, const fixture *b, const char *name)
{
    char pa[256], pb[256];
    snprintf(pa, sizeof pa, "%s/%s", a->dir, name);
    snprintf(pb, sizeof pb, "%s/%s", b->dir, name);
    size_t la, lb;
    char *da = slurp(pa, &la), *db = slurp(pb, &lb);
    assert_non_null(da);
    assert_non_null(db);
    assert_int_equal(la, lb);
    assert_memory_equal(da, db, la);
    free(da);
    free(db);
}

static void put_file(const fixture *f, const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", f->dir, name);
    FILE *o = fopen(p, "w");
    assert_non_null(o);
    fputs(text, o);
    fclose(o);
}

static void hash_of(const fixture *f, const char *name, char hex[65])
{
    char p[256];
    cs_err err;
    snprintf(p, sizeof p, "%s/%s", f->dir, name);
    assert_int_equal(cs_sha256_file(p, hex, &err), 0);
}

/* ------------------------------------------------------------ train, finetune */

/* The watch raises the cancel flag once the run has taken `at` steps (the
 * frames come every hist_every steps): the run stops before the next. */
typedef struct canceller {
    cs_interp *in;
    size_t at;
} canceller;

static void cancel_at(void *ctx, const struct cs_train_frame *f, cs_train_want *want)
{
    (void)want;
    canceller *c = ctx;
    if (f->run_step >= c->at)
        atomic_store(cs_interp_cancel_flag(c->in), 1);
}

static void test_train_cancelled_replays_bit_for_bit(void **state)
{
    (void)state;
    if (!have_data())
        skip();
    fixture *a = fixture_new(1, 3, 1, 1), *b = fixture_new(1, 3, 1, 1);
    assert_non_null(a);
    assert_non_null(b);
    canceller c = {a->in, 12};
    cs_interp_set_watch(a->in, cancel_at, &c, 1);
    const char *out = ok(a, "train model=mlp epochs=2 limit=1024 hidden=32 hist_every=4");
    assert_true(jnum(out, "partial") == 1);
    const char *how;
    assert_true(cs_interp_interrupted(a->in, &how));
    assert_non_null(strstr(how, "train stopped after 12 of 16 steps"));
    assert_string_equal(last_journal(a),
                        "train model=mlp epochs=2 limit=1024 hidden=32 hist_every=4 "
                        "stop_after=12");
    cs_interp_set_watch(a->in, NULL, NULL, 0);
    ok(a, "save model m.csnn");
    /* the replay stops at step 12 by itself, with the same weights, and
     * journals the same lines (stop_after= where it was) */
    replay(a, b);
    assert_false(cs_interp_interrupted(b->in, NULL));
    same_file(a, b, "m.csnn");
    same_journal(a, b);
    /* cancelled again, earlier: the key is replaced in place, the rest of
     * the line stays as typed */
    c = (canceller){b->in, 4};
    cs_interp_set_watch(b->in, cancel_at, &c, 1);
    ok(b, "train model=mlp epochs=2 limit=1024 hidden=32 hist_every=4 stop_after=12 # again");
    assert_string_equal(last_journal(b),
                        "train model=mlp epochs=2 limit=1024 hidden=32 hist_every=4 "
                        "stop_after=4 # again");
    /* a run that ends is journaled as typed: the whole run differs */
    cs_interp_set_watch(b->in, NULL, NULL, 0);
    ok(b, "train model=mlp epochs=2 limit=1024 hidden=32 new=on");
    assert_string_equal(last_journal(b), "train model=mlp epochs=2 limit=1024 hidden=32 new=on");
    ok(b, "save model m.csnn force=on");
    char pa[256], pb[256];
    snprintf(pa, sizeof pa, "%s/m.csnn", a->dir);
    snprintf(pb, sizeof pb, "%s/m.csnn", b->dir);
    size_t la, lb;
    char *da = slurp(pa, &la), *db = slurp(pb, &lb);
    assert_true(la != lb || memcmp(da, db, la) != 0);
    free(da);
    free(db);
    fixture_free(a);
    fixture_free(b);
}

static void test_finetune_cancelled_replays_bit_for_bit(void **state)
{
    (void)state;
    if (!have_data())
        skip();
    fixture *a = fixture_new(1, 5, 1, 1), *b = fixture_new(1, 5, 1, 1);
    assert_non_null(a);
    assert_non_null(b);
    ok(a, "train model=mlp epochs=1 limit=512 hidden=16 reg=bin lambda=10");
    ok(a, "quantize bin limit=500");
    canceller c = {a->in, 6};
    cs_interp_set_watch(a->in, cancel_at, &c, 1);
    /* finetune has no hist_every: the frames come as the time says, so
     * the step it stops at is known only afterwards */
    const char *out = ok(a, "finetune epochs=40 limit=512 test_limit=500");
    assert_true(jnum(out, "partial") == 1);
    cs_interp_set_watch(a->in, NULL, NULL, 0);
    const char *line = last_journal(a);
    const char *sa = strstr(line, " stop_after=");
    if (!sa || strncmp(line, "finetune epochs=40 limit=512 test_limit=500 stop_after=", 54))
        fail_msg("finetune journaled as '%s'", line);
    ok(a, "save model q.csnn");
    replay(a, b);
    same_file(a, b, "q.csnn");
    same_journal(a, b);
    fixture_free(a);
    fixture_free(b);
}

/* ------------------------------------------------------------ solve */

typedef struct delayed {
    cs_interp *in;
    int ms;
} delayed;

static void *cancel_later(void *arg)
{
    delayed *d = arg;
    struct timespec ts = {d->ms / 1000, (long)(d->ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    atomic_store(cs_interp_cancel_flag(d->in), 1);
    return NULL;
}

static void test_solve_cancelled_replays_to_the_same_iterate(void **state)
{
    (void)state;
    fixture *a = fixture_new(1, 7, 1, 1), *b = fixture_new(1, 7, 1, 1);
    assert_non_null(a);
    assert_non_null(b);
    /* too few measurements: every start fails and runs to maxit */
    ok(a, "problem bin N=300 gamma=0.2");
    ok(a, "solve maxit=200 restarts=2");   /* ends: journaled as typed */
    assert_string_equal(last_journal(a), "solve maxit=200 restarts=2");
    delayed d = {a->in, 300};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, cancel_later, &d), 0);
    int col;
    cs_err err;
    int rc = cs_interp_exec(a->in, "solve maxit=20000 restarts=1000", &col, &err);
    pthread_join(th, NULL);
    assert_int_equal(rc, CS_ECANCEL);
    assert_non_null(strstr(err.msg, "solve interrupted after "));
    long iters = strtol(err.msg + strlen("solve interrupted after "), NULL, 10);
    assert_true(iters > 0);
    char want[128];
    snprintf(want, sizeof want, "solve maxit=20000 restarts=1000 stop_after=%ld", iters);
    assert_string_equal(last_journal(a), want);
    char *xa = strdup(ok(a, "x"));
    replay(a, b);
    assert_string_equal(xa, ok(b, "x"));
    assert_true(jnum(xa, "iter") > 0);
    free(xa);
    /* the replayed solve stopped: the run goes on from there in both */
    xa = strdup(ok(a, "step n=5"));
    const char *xb = ok(b, "step n=5");
    /* (the same but for the seconds) */
    assert_true(jnum(xa, "objective") == jnum(xb, "objective"));
    assert_true(jnum(xa, "iters") == jnum(xb, "iters"));
    free(xa);
    same_journal(a, b);
    fixture_free(a);
    fixture_free(b);
}

/* ------------------------------------------------------------ input files */

static void test_x0_digest_journaled_and_checked(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 3, 1, 1);
    assert_non_null(f);
    put_file(f, "x0.csv", "1\n-1\n1\n-1\n1\n-1\n");
    char hex[65], want[512];
    hash_of(f, "x0.csv", hex);
    ok(f, "problem bin N=6 M=3");
    ok(f, "solve x0=x0.csv maxit=20");
    snprintf(want, sizeof want, "solve x0=x0.csv maxit=20 sha256=%s", hex);
    assert_string_equal(last_journal(f), want);
    /* quoted, with a comment: the rest of the line stays as typed */
    ok(f, "step x0=\"x0.csv\" n=3   # from the file");
    snprintf(want, sizeof want, "step x0=\"x0.csv\" n=3 sha256=%s", hex);
    assert_string_equal(last_journal(f), want);
    /* the replay of the journaled line: the same file passes */
    snprintf(want, sizeof want, "solve x0=x0.csv maxit=20 sha256=%s", hex);
    ok(f, want);
    assert_string_equal(last_journal(f), want);
    /* the file changed: refused, naming it, at sha256= */
    put_file(f, "x0.csv", "1\n-1\n1\n-1\n1\n1\n");
    fails(f, want, "x0.csv changed since the session was recorded", 26);
    fails(f, "solve x0=x0.csv sha256=", "sha256= lists 0 digests, but x0.csv is file 1", -1);
    /* a command with no file: no sha256= */
    ok(f, "solve maxit=20");
    assert_string_equal(last_journal(f), "solve maxit=20");
    fixture_free(f);
}

static void test_graph_digest_journaled_and_checked(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 3, 1, 1);
    assert_non_null(f);
    put_file(f, "g.txt", "4 4\n1 2 1\n2 3 1\n3 4 1\n4 1 1\n");
    char hex[65], want[512];
    hash_of(f, "g.txt", hex);
    ok(f, "maxcut graph=g.txt trials=2 maxit=50");
    snprintf(want, sizeof want, "maxcut graph=g.txt trials=2 maxit=50 sha256=%s", hex);
    assert_string_equal(last_journal(f), want);
    /* append=on reads out=: its digest follows the graph's */
    char hm[65], line[600];
    ok(f, "maxcut graph=g.txt trials=2 maxit=50 out=m.csv");
    hash_of(f, "m.csv", hm);
    ok(f, "maxcut graph=g.txt trials=2 maxit=50 out=m.csv append=on");
    snprintf(line, sizeof line, "maxcut graph=g.txt trials=2 maxit=50 out=m.csv append=on "
             "sha256=%s,%s", hex, hm);
    assert_string_equal(last_journal(f), line);
    fails(f, line, "m.csv changed since the session was recorded", -1);
    ok(f, "problem maxcut graph=g.txt");
    snprintf(want, sizeof want, "problem maxcut graph=g.txt sha256=%s", hex);
    assert_string_equal(last_journal(f), want);
    /* a built-in graph comes with csreg: nothing to record (also outside
     * the sandbox, where its name is a path that does not exist) */
    ok(f, "problem maxcut graph=toy5");
    assert_string_equal(last_journal(f), "problem maxcut graph=toy5");
    fixture *g = fixture_new(1, 3, 1, 0);
    assert_non_null(g);
    ok(g, "maxcut graph=toy5 trials=2 maxit=50");
    assert_string_equal(last_journal(g), "maxcut graph=toy5 trials=2 maxit=50");
    ok(g, "problem maxcut graph=toy4");
    assert_string_equal(last_journal(g), "problem maxcut graph=toy4");
    fixture_free(g);
    put_file(f, "g.txt", "4 4\n1 2 1\n2 3 1\n3 4 1\n4 1 2\n");
    fails(f, want, "g.txt changed since the session was recorded", -1);
    fixture_free(f);
}

static void test_model_and_data_digests(void **state)
{
    (void)state;
    if (!have_data())
        skip();
    fixture *f = fixture_new(1, 3, 1, 1);
    assert_non_null(f);
    /* data=DIR: the user's folder (here links to the packaged files) */
    char d[256], p[4300], hex[4][65];
    const char *names[4] = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                            "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
    snprintf(d, sizeof d, "%s/d", f->dir);
    assert_int_equal(mkdir(d, 0700), 0);
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", d, names[i]);
        char src[512];
        snprintf(src, sizeof src, "%s/%s", CS_NN_DEFAULT_DATA, names[i]);
        assert_int_equal(symlink(src, p), 0);
        cs_err err;
        assert_int_equal(cs_sha256_file(p, hex[i], &err), 0);
    }
    ok(f, "train model=mlp limit=256 hidden=8 data=d");
    char want[1024];
    snprintf(want, sizeof want, "train model=mlp limit=256 hidden=8 data=d sha256=%s,%s,%s,%s",
             hex[0], hex[1], hex[2], hex[3]);
    assert_string_equal(last_journal(f), want);
    ok(f, "evaluate limit=100 data=d");
    snprintf(want, sizeof want, "evaluate limit=100 data=d sha256=%s,%s", hex[2], hex[3]);
    assert_string_equal(last_journal(f), want);
    /* a label file that differs: the replay of the train line is refused */
    snprintf(p, sizeof p, "%s/%s", d, names[1]);
    unlink(p);
    char src[512];
    snprintf(src, sizeof src, "%s/%s", CS_NN_DEFAULT_DATA, names[3]);
    assert_int_equal(symlink(src, p), 0);
    snprintf(want, sizeof want, "train model=mlp limit=256 hidden=8 data=d sha256=%s,%s,%s,%s",
             hex[0], hex[1], hex[2], hex[3]);
    fails(f, want, "train-labels-idx1-ubyte.gz changed since the session was recorded", -1);
    /* load model: the checkpoint's digest */
    ok(f, "save model m.csnn");
    char mh[65];
    hash_of(f, "m.csnn", mh);
    ok(f, "load model m.csnn");
    snprintf(want, sizeof want, "load model m.csnn sha256=%s", mh);
    assert_string_equal(last_journal(f), want);
    ok(f, "train limit=256 stop_after=2");
    ok(f, "save model m.csnn force=on");
    fails(f, want, "m.csnn changed since the session was recorded", -1);
    fixture_free(f);
}

/* ------------------------------------------------------------ device */

static void test_device_auto_journaled_as_chosen(void **state)
{
    (void)state;
    if (!have_data())
        skip();
    fixture *f = fixture_new(1, 3, 1, 1);
    assert_non_null(f);
    char dev[16], why[512];
    cs_err err;
    assert_int_equal(cs_nn_device_resolve("auto", dev, sizeof dev, why, sizeof why, &err), 0);
    ok(f, "train model=mlp limit=256 hidden=8 device=auto");
    char want[256];
    snprintf(want, sizeof want, "train model=mlp limit=256 hidden=8 device=%s", dev);
    assert_string_equal(last_journal(f), want);
    if (strcmp(dev, "cuda") != 0)   /* no GPU here: a session recorded on one is refused */
        fails(f, "train model=mlp limit=256 hidden=8 device=cuda",
              "the command needs a GPU: a session recorded on one replays on one", -1);
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_train_cancelled_replays_bit_for_bit),
        cmocka_unit_test(test_finetune_cancelled_replays_bit_for_bit),
        cmocka_unit_test(test_solve_cancelled_replays_to_the_same_iterate),
        cmocka_unit_test(test_x0_digest_journaled_and_checked),
        cmocka_unit_test(test_graph_digest_journaled_and_checked),
        cmocka_unit_test(test_model_and_data_digests),
        cmocka_unit_test(test_device_auto_journaled_as_chosen),
    };
    return cmocka_run_group_tests_name("replay_stop", tests, NULL, NULL);
}
