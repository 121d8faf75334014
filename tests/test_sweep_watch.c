/* test_sweep_watch.c — watching a sweep live: the engine's on_trial sees
 * every finished trial once (from two worker threads), its counts are the
 * rows' success rates, and the CSV is byte for byte that of an unwatched
 * run; trials preloaded from a journal come first, marked preloaded; the
 * interpreter's watch (cs_sweep_view.h) gets the grid, every trial and how
 * the sweep ended (done, interrupted, failed), and a resumed sweep counts
 * the journal's trials. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_sweep.h"
#include "cs_sweep_journal.h"
#include "cs_sweep_view.h"
#include "interp_util.h"
#include "method_util.h"
#include "plot_util.h"

static const char *methods2[] = {"bin", "linf"};
static const double grid[] = {0.3, 0.5, 0.7};
enum { NP = 3, NM = 2, T = 8 };

static cs_sweep_spec small_spec(int threads)
{
    static cs_method mv[NM];
    methods_of(methods2, NM, mv);
    cs_sweep_spec sp = {.kind = CS_PROB_BIN, .N = 30, .axis = CS_AXIS_GAMMA, .values = grid,
                        .nvalues = NP, .methods = mv, .nmethods = NM, .trials = T,
                        .threads = threads, .seed = 99};
    sp.solve.maxit = 300;
    sp.solve.restarts = 3;
    return sp;
}

/* What on_trial saw (its calls come from several threads: locked). */
typedef struct seen {
    pthread_mutex_t mu;
    int calls[NP * T];        /* per item */
    long succ[NP][NM];
    long done[NP];
    long preloaded, ran;
    int preloaded_late;       /* a preloaded trial came after one that ran */
    int bad;                  /* a call with a trial out of range */
    long cancel_after;        /* > 0: cancel after this many trials ran */
    cs_cancel *cancel;
} seen;

static void seen_init(seen *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
}

static void on_trial(void *user, const cs_sweep_trial *t, int preloaded)
{
    seen *s = user;
    pthread_mutex_lock(&s->mu);
    if (t->point >= NP || t->trial < 0 || t->trial >= T || t->nmethods != NM) {
        s->bad = 1;   /* asserted by the test's thread, not this worker's */
        pthread_mutex_unlock(&s->mu);
        return;
    }
    s->calls[t->point * T + (size_t)t->trial]++;
    s->done[t->point]++;
    for (size_t m = 0; m < NM; m++)
        s->succ[t->point][m] += t->success[m] != 0;
    if (preloaded) {
        s->preloaded++;
        s->preloaded_late |= s->ran > 0;
    } else {
        s->ran++;
    }
    if (s->cancel_after > 0 && s->ran >= s->cancel_after)
        atomic_store(s->cancel, 1);
    pthread_mutex_unlock(&s->mu);
}

/* The rows' success rates are the counts seen (all points whole). */
static void rows_match(const cs_sweep_result *r, const seen *s)
{
    assert_false(s->bad);
    assert_int_equal(r->nrows, NP * NM);
    for (size_t m = 0; m < NM; m++)
        for (size_t g = 0; g < NP; g++) {
            const cs_sweep_row *row = &r->rows[m * NP + g];
            assert_int_equal(s->done[g], T);
            if (row->success != (double)s->succ[g][m] / T)
                fail_msg("%s at point %zu: row %.10g, seen %ld of %d", row->method, g,
                         row->success, s->succ[g][m], T);
        }
}

static char *csv_of(const cs_sweep_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(cs_sweep_print_csv(r, NULL, f), 0);
    fclose(f);
    return buf;
}

static void test_engine_every_trial_once(void **state)
{
    (void)state;
    cs_err err;
    cs_sweep_spec plain = small_spec(2);
    cs_sweep_result *r0, *r1;
    assert_int_equal(cs_sweep_run(&plain, &r0, &err), 0);
    seen s;
    seen_init(&s);
    cs_sweep_spec sp = small_spec(2);
    sp.on_trial = on_trial;
    sp.trial_user = &s;
    assert_int_equal(cs_sweep_run(&sp, &r1, &err), 0);
    for (size_t i = 0; i < NP * T; i++)
        assert_int_equal(s.calls[i], 1);
    assert_int_equal(s.ran, NP * T);
    assert_int_equal(s.preloaded, 0);
    rows_match(r1, &s);
    /* watching changes no number */
    char *a = csv_of(r0), *b = csv_of(r1);
    assert_string_equal(a, b);
    free(a);
    free(b);
    cs_sweep_result_free(r0);
    cs_sweep_result_free(r1);
    pthread_mutex_destroy(&s.mu);
}

/* Cancelled after some trials with a journal, then resumed: the journal's
 * trials come first as preloaded, the rest run, each item once in all. */
static void test_engine_preloaded_first(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    char jpath[512];
    snprintf(jpath, sizeof jpath, "%s/w.csv.journal", dir);
    cs_err err;
    cs_cancel flag;
    atomic_init(&flag, 0);
    seen a;
    seen_init(&a);
    a.cancel_after = 7;
    a.cancel = &flag;
    cs_sweep_spec sa = small_spec(1);
    sa.cancel = &flag;
    sa.on_trial = on_trial;
    sa.trial_user = &a;
    cs_sweep_journal *j;
    cs_sweep_store store;
    assert_int_equal(cs_sweep_journal_open(&j, jpath, &sa, 0, &err), 0);
    cs_sweep_journal_store(j, &store);
    sa.store = &store;
    cs_sweep_result *r;
    assert_int_equal(cs_sweep_run(&sa, &r, &err), 0);
    assert_true(r->partial);
    assert_int_equal(r->trials_done, a.ran);   /* every finished trial was seen */
    assert_true(a.ran >= 7 && a.ran < NP * T);
    cs_sweep_result_free(r);
    assert_int_equal(cs_sweep_journal_close(j, &err), 0);
    seen b;
    seen_init(&b);
    cs_sweep_spec sb = small_spec(2);
    sb.on_trial = on_trial;
    sb.trial_user = &b;
    assert_int_equal(cs_sweep_journal_open(&j, jpath, &sb, 1, &err), 0);
    cs_sweep_journal_store(j, &store);
    sb.store = &store;
    assert_int_equal(cs_sweep_run(&sb, &r, &err), 0);
    assert_false(r->partial);
    assert_int_equal(b.preloaded, a.ran);
    assert_int_equal(b.ran, NP * T - a.ran);
    assert_false(b.preloaded_late);
    for (size_t i = 0; i < NP * T; i++)
        assert_int_equal(b.calls[i], 1);
    rows_match(r, &b);
    cs_sweep_result_free(r);
    assert_int_equal(cs_sweep_journal_finish(j, &err), 0);
    pthread_mutex_destroy(&a.mu);
    pthread_mutex_destroy(&b.mu);
    remove_tmpdir(dir);
}

/* ---- the interpreter's watch ---- */

typedef struct live {
    int starts, ends, end_how;
    long run;
    char axis[8], kind[8], methods[64];
    size_t npoints, nmethods;
    long trials;
    double values[8];
    seen s;                   /* the trials, counted as above */
} live;

static void live_start(void *ctx, const cs_sweep_live *l)
{
    live *v = ctx;
    v->starts++;
    v->run = l->run;
    snprintf(v->axis, sizeof v->axis, "%s", l->axis);
    snprintf(v->kind, sizeof v->kind, "%s", l->kind);
    v->methods[0] = '\0';
    for (size_t m = 0; m < l->nmethods; m++)
        snprintf(v->methods + strlen(v->methods), sizeof v->methods - strlen(v->methods),
                 "%s%s", m ? "," : "", l->methods[m]);
    v->npoints = l->npoints;
    v->nmethods = l->nmethods;
    v->trials = l->trials;
    for (size_t i = 0; i < l->npoints && i < 8; i++)
        v->values[i] = l->values[i];
    long keep = v->s.cancel_after;
    cs_cancel *c = v->s.cancel;
    pthread_mutex_destroy(&v->s.mu);
    seen_init(&v->s);
    v->s.cancel_after = keep;
    v->s.cancel = c;
}

static void live_trial(void *ctx, size_t point, const unsigned char *success, int preloaded)
{
    live *v = ctx;
    cs_sweep_trial t = {.point = point, .trial = 0, .nmethods = NM, .success = success};
    seen *s = &v->s;
    /* the trial's number is not told: count it as trial 0 of its point */
    on_trial(s, &t, preloaded);
}

static void live_end(void *ctx, int how)
{
    live *v = ctx;
    v->ends++;
    v->end_how = how;
}

#define SWEEP "sweep kind=bin methods=bin,linf N=30 gamma=0.3,0.5,0.7 trials=8 restarts=3 " \
              "maxit=300"

static void test_interp_watch(void **state)
{
    (void)state;
    fixture *plain = fixture_new(0, 5, 2, 1), *f = fixture_new(0, 5, 2, 1);
    assert_non_null(plain);
    assert_non_null(f);
    live v = {0};
    pthread_mutex_init(&v.s.mu, NULL);
    cs_interp_set_sweep_watch(f->in, &(cs_sweep_watch){.start = live_start, .trial = live_trial,
                                                       .end = live_end, .ctx = &v});
    /* a sweep stopped after 5 trials, with its journal */
    v.s.cancel_after = 5;
    v.s.cancel = cs_interp_cancel_flag(f->in);
    fails(f, SWEEP " threads=1 out=w.csv", "sweep interrupted", -1);
    assert_int_equal(v.starts, 1);
    assert_int_equal(v.ends, 1);
    assert_int_equal(v.end_how, CS_SWEEP_LIVE_INTERRUPTED);
    assert_int_equal(v.run, 1);
    assert_string_equal(v.axis, "gamma");
    assert_string_equal(v.kind, "bin");
    assert_string_equal(v.methods, "bin,linf");
    assert_int_equal(v.npoints, NP);
    assert_int_equal(v.nmethods, NM);
    assert_int_equal(v.trials, T);
    assert_true(v.values[0] == 0.3 && v.values[1] == 0.5 && v.values[2] == 0.7);
    long first = v.s.ran;
    assert_true(first >= 5 && first < NP * T);
    assert_int_equal(v.s.preloaded, 0);
    assert_false(v.s.bad);
    /* resumed: the journal's trials counted first, then the rest */
    v.s.cancel_after = 0;
    ok(f, SWEEP " threads=2 out=w.csv resume=on");
    assert_int_equal(v.starts, 2);
    assert_int_equal(v.run, 2);
    assert_int_equal(v.end_how, CS_SWEEP_LIVE_DONE);
    assert_int_equal(v.s.preloaded, first);
    assert_int_equal(v.s.ran, NP * T - first);
    assert_false(v.s.preloaded_late);
    for (size_t g = 0; g < NP; g++)
        assert_int_equal(v.s.done[g], T);
    /* the same CSV as a run nobody watched */
    ok(plain, SWEEP " threads=1 out=w.csv");
    char p1[128], p2[128];
    snprintf(p1, sizeof p1, "%s/w.csv", f->dir);
    snprintf(p2, sizeof p2, "%s/w.csv", plain->dir);
    char *a = slurp_csv(p1), *b = slurp_csv(p2);
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b);
    /* bin at gamma=0.7 succeeds in all 8 trials here, as the CSV says */
    assert_non_null(strstr(a, "\nbin,bin,30,21,0.7,0,8,1,"));
    assert_int_equal(v.s.succ[2][0], 8);
    free(a);
    free(b);
    /* a sweep that fails in the engine (M = 0): started, ended failed, no trial */
    fails(f, "sweep kind=bin methods=bin N=30 gamma=0.01,0.5 trials=2", "gives M=0", -1);
    assert_int_equal(v.starts, 3);
    assert_int_equal(v.ends, 3);
    assert_int_equal(v.end_how, CS_SWEEP_LIVE_FAILED);
    assert_int_equal(v.s.ran + v.s.preloaded, 0);
    /* errors found before the engine runs start nothing; no watch, no calls */
    fails(f, "sweep kind=bin methods=bin N=30 gamma=2 trials=2", "out of range", -1);
    assert_int_equal(v.starts, 3);
    cs_interp_set_sweep_watch(f->in, NULL);
    ok(f, "sweep kind=bin methods=bin N=30 gamma=0.5 trials=2");
    assert_int_equal(v.starts, 3);
    pthread_mutex_destroy(&v.s.mu);
    fixture_free(f);
    fixture_free(plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_every_trial_once),
        cmocka_unit_test(test_engine_preloaded_first),
        cmocka_unit_test(test_interp_watch),
    };
    return cmocka_run_group_tests_name("sweep_watch", tests, NULL, NULL);
}
