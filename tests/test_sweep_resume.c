/* test_sweep_resume.c — resumable sweeps: the journal module (CRC, records
 * written and read back exactly, a torn or damaged tail ignored and cut,
 * a journal of other settings refused naming what differs, a defined
 * method's definition among them); an engine run
 * cancelled midway and resumed gives the CSV of an uninterrupted run; and
 * the real program killed (SIGKILL) or interrupted (SIGINT) during
 * `sweep out=F.csv`, then run again with resume=on, writes the same bytes
 * as an uninterrupted run and removes its journal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "cs_sweep.h"
#include "cs_sweep_journal.h"
#include "interp_util.h"
#include "method_util.h"
#include "plot_util.h"
#include "reg_util.h"
#include "sanitized.h"

static const char *methods2[] = {"bin", "linf"};
static const double grid[] = {0.3, 0.5, 0.7};

static cs_sweep_spec small_spec(void)
{
    static cs_method mv[2];
    methods_of(methods2, 2, mv);
    cs_sweep_spec sp = {.kind = CS_PROB_BIN, .N = 30, .axis = CS_AXIS_GAMMA, .values = grid,
                        .nvalues = 3, .methods = mv, .nmethods = 2, .trials = 8,
                        .threads = 2, .seed = 99};
    sp.solve.maxit = 300;
    sp.solve.restarts = 3;
    return sp;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void test_crc32(void **state)
{
    (void)state;
    assert_int_equal(cs_crc32("123456789", 9), 0xCBF43926u);
    assert_int_equal(cs_crc32("", 0), 0u);
}

/* Trial (g, t) of the fake outcomes below. */
static void fake_trial(size_t g, long t, unsigned char *s, long *it, int *st, double *sec)
{
    for (int m = 0; m < 2; m++) {
        s[m] = (unsigned char)((g + (size_t)t + (size_t)m) % 2);
        it[m] = 1000L * (long)g + t + m;
        st[m] = 1 + (int)t % 3;
        sec[m] = 1.0 / (3.0 + (double)t + 7.0 * (double)m); /* not exact in decimal */
    }
}

static void put_trial(cs_sweep_store *st, size_t g, long t)
{
    unsigned char s[2];
    long it[2];
    int sts[2];
    double sec[2];
    fake_trial(g, t, s, it, sts, sec);
    cs_sweep_trial tr = {.point = g, .trial = t, .nmethods = 2, .success = s, .iters = it,
                         .starts = sts, .secs = sec};
    cs_err err;
    assert_int_equal(st->trial_done(st->user, &tr, &err), 0);
}

/* Reopen with resume and check that exactly the trials in want[] (n of
 * them, item numbers) come back, with their outcomes bit for bit. */
static void check_loaded(const char *path, const cs_sweep_spec *sp, const size_t *want, size_t n)
{
    cs_sweep_journal *j;
    cs_err err;
    if (cs_sweep_journal_open(&j, path, sp, 1, &err))
        fail_msg("reopen: %s", err.msg);
    assert_int_equal(cs_sweep_journal_loaded(j), (long)n);
    size_t items = sp->nvalues * (size_t)sp->trials;
    unsigned char fin[64] = {0}, s[128] = {0};
    long it[128] = {0};
    int st[128] = {0};
    double sec[128] = {0};
    assert_true(items <= 64);
    cs_sweep_store store;
    cs_sweep_journal_store(j, &store);
    assert_int_equal(store.preload(store.user, fin, s, it, st, sec, &err), 0);
    size_t got = 0;
    for (size_t i = 0; i < items; i++)
        got += fin[i];
    assert_int_equal(got, n);
    for (size_t k = 0; k < n; k++) {
        size_t item = want[k];
        assert_true(fin[item]);
        unsigned char es[2];
        long eit[2];
        int est[2];
        double esec[2];
        fake_trial(item / (size_t)sp->trials, (long)(item % (size_t)sp->trials), es, eit, est,
                   esec);
        for (int m = 0; m < 2; m++) {
            assert_int_equal(s[item * 2 + m], es[m]);
            assert_int_equal(it[item * 2 + m], eit[m]);
            assert_int_equal(st[item * 2 + m], est[m]);
            assert_memory_equal(&sec[item * 2 + m], &esec[m], sizeof(double));
        }
    }
    assert_int_equal(cs_sweep_journal_close(j, &err), 0);
}

static void test_journal_write_read(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/sub/s.csv.journal", dir); /* folders made */
    cs_sweep_spec sp = small_spec();
    cs_sweep_journal *j;
    cs_err err;
    assert_int_equal(cs_sweep_journal_open(&j, path, &sp, 0, &err), 0);
    assert_int_equal(cs_sweep_journal_loaded(j), 0);
    cs_sweep_store store;
    cs_sweep_journal_store(j, &store);
    put_trial(&store, 0, 3);
    put_trial(&store, 2, 7);
    put_trial(&store, 1, 0);
    assert_int_equal(cs_sweep_journal_close(j, &err), 0);
    size_t want[] = {3, 2 * 8 + 7, 1 * 8 + 0};
    check_loaded(path, &sp, want, 3);
    /* resume appends: a second block */
    assert_int_equal(cs_sweep_journal_open(&j, path, &sp, 1, &err), 0);
    cs_sweep_journal_store(j, &store);
    put_trial(&store, 1, 5);
    assert_int_equal(cs_sweep_journal_close(j, &err), 0);
    size_t want2[] = {3, 2 * 8 + 7, 1 * 8 + 0, 1 * 8 + 5};
    check_loaded(path, &sp, want2, 4);
    long good = file_size(path);
    /* a torn last record (killed mid-write) is ignored, then cut */
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("R 1 2 2 1:2202:3:3fd5555555555555 0:22", f);
    fclose(f);
    check_loaded(path, &sp, want2, 4);
    assert_int_equal(file_size(path), good);
    /* a damaged record (checksum fails) and what follows it are dropped */
    size_t len;
    char *text = slurp(path, &len);
    char *last = strrchr(text, 'R'); /* the record of (1, 5) */
    assert_non_null(last);
    char *digit = strchr(last, ':') - 1; /* its first success flag */
    *digit = *digit == '0' ? '1' : '0';
    f = fopen(path, "w");
    fwrite(text, 1, len, f);
    fclose(f);
    free(text);
    check_loaded(path, &sp, want, 3);
    /* without resume the journal is replaced */
    assert_int_equal(cs_sweep_journal_open(&j, path, &sp, 0, &err), 0);
    assert_int_equal(cs_sweep_journal_finish(j, &err), 0);
    assert_int_equal(file_size(path), -1);
    remove_tmpdir(dir);
}

static void expect_refused(const char *path, const cs_sweep_spec *sp, const char *msg)
{
    cs_sweep_journal *j = NULL;
    cs_err err;
    int rc = cs_sweep_journal_open(&j, path, sp, 1, &err);
    assert_int_equal(rc, CS_EINVAL);
    assert_null(j);
    if (!strstr(err.msg, msg))
        fail_msg("message '%s' lacks '%s'", err.msg, msg);
}

static void test_journal_mismatch(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/out.csv.journal", dir);
    cs_sweep_spec sp = small_spec();
    cs_sweep_journal *j;
    cs_err err;
    assert_int_equal(cs_sweep_journal_open(&j, path, &sp, 0, &err), 0);
    cs_sweep_store store;
    cs_sweep_journal_store(j, &store);
    put_trial(&store, 0, 1);
    assert_int_equal(cs_sweep_journal_close(j, &err), 0);
    long size = file_size(path);
    cs_sweep_spec o = small_spec();
    o.seed = 100;
    expect_refused(path, &o, "resume: out.csv.journal is for seed 99, this sweep has seed 100");
    o = small_spec();
    static const double grid2[] = {0.3, 0.5, 0.8};
    o.values = grid2;
    expect_refused(path, &o, "is for grid 0.3,0.5,0.7, this sweep has grid 0.3,0.5,0.8");
    o = small_spec();
    static const char *methods3[] = {"bin", "l1"};
    cs_method mv3[2];
    methods_of(methods3, 2, mv3);
    o.methods = mv3;
    expect_refused(path, &o, "is for methods bin,linf, this sweep has methods bin,l1");
    o = small_spec();
    o.trials = 9;
    expect_refused(path, &o, "is for trials 8, this sweep has trials 9");
    o = small_spec();
    o.solve.maxit = 301;
    expect_refused(path, &o, "is for maxit 300, this sweep has maxit 301");
    /* threads do not matter; a refused journal is left as it was */
    assert_int_equal(file_size(path), size);
    o = small_spec();
    o.threads = 1;
    assert_int_equal(cs_sweep_journal_open(&j, path, &o, 1, &err), 0);
    assert_int_equal(cs_sweep_journal_loaded(j), 1);
    assert_int_equal(cs_sweep_journal_close(j, &err), 0);
    /* not a journal */
    FILE *f = fopen(path, "w");
    fputs("method,kind\n", f);
    fclose(f);
    expect_refused(path, &sp, "resume: out.csv.journal is not a sweep journal");
    remove_tmpdir(dir);
}

/* The engine cancelled after some trials, then resumed from the journal.
 * The cancel comes from the worker after its trial (on_trial), not from
 * the progress callback: the calling thread that reports progress may not
 * run before a fast sweep ends when the machine is loaded (make test runs
 * suites in parallel). */
typedef struct stopper {
    cs_cancel flag;
    size_t after;
    atomic_size_t done;
} stopper;

static void stop_after(void *user, const cs_sweep_trial *t, int preloaded)
{
    (void)t;
    stopper *s = user;
    if (!preloaded && atomic_fetch_add(&s->done, 1) + 1 >= s->after)
        atomic_store(&s->flag, 1);
}

static void test_engine_resume_identical(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    char full[512], part[512], jpath[512];
    snprintf(full, sizeof full, "%s/full.csv", dir);
    snprintf(part, sizeof part, "%s/part.csv", dir);
    snprintf(jpath, sizeof jpath, "%s/part.csv.journal", dir);
    cs_sweep_spec sp = small_spec();
    sp.timing = 1; /* the seconds come back from the journal too */
    cs_sweep_result *r;
    cs_err err;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
    assert_false(r->partial);
    cs_sweep_result_free(r);
    sp.timing = 0;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
    assert_int_equal(cs_sweep_write_csv(r, full, NULL, &err), 0);
    cs_sweep_result_free(r);
    /* first run: stopped after 7 of 24 trials */
    stopper st = {.after = 7};
    cs_sweep_spec a = small_spec();
    a.threads = 1;
    a.cancel = &st.flag;
    a.on_trial = stop_after;
    a.trial_user = &st;
    cs_sweep_journal *j;
    cs_sweep_store store;
    assert_int_equal(cs_sweep_journal_open(&j, jpath, &a, 0, &err), 0);
    cs_sweep_journal_store(j, &store);
    a.store = &store;
    assert_int_equal(cs_sweep_run(&a, &r, &err), 0);
    assert_true(r->partial);
    long first = r->trials_done;
    assert_true(first >= 7 && first < 24);
    cs_sweep_result_free(r);
    assert_int_equal(cs_sweep_journal_close(j, &err), 0);
    /* second run (other thread count): only the missing trials */
    cs_sweep_spec b = small_spec();
    b.threads = 2;
    assert_int_equal(cs_sweep_journal_open(&j, jpath, &b, 1, &err), 0);
    assert_int_equal(cs_sweep_journal_loaded(j), first);
    cs_sweep_journal_store(j, &store);
    b.store = &store;
    assert_int_equal(cs_sweep_run(&b, &r, &err), 0);
    assert_false(r->partial);
    assert_int_equal(cs_sweep_write_csv(r, part, NULL, &err), 0);
    cs_sweep_result_free(r);
    assert_int_equal(cs_sweep_journal_finish(j, &err), 0);
    assert_int_equal(file_size(jpath), -1);
    char *x = slurp_csv(full), *y = slurp_csv(part);
    assert_string_equal(x, y);
    free(x);
    free(y);
    remove_tmpdir(dir);
}

/* A built-in sweep's header is what it always was (older journals of
 * built-in methods resume): definitions are added for defined methods only. */
static void test_header_builtins_unchanged(void **state)
{
    (void)state;
    cs_sweep_spec sp = small_spec();
    char *h = cs_sweep_journal_header(&sp);
    assert_non_null(h);
    assert_string_equal(h, "kind=bin\nN=30\naxis=gamma\ngrid=0.3,0.5,0.7\nM=0\ngamma=0\nK=0\n"
                           "methods=bin,linf\ntrials=8\nalgo=0\nmode=0\nmaxit=300\n"
                           "stop=oracle\ntol=0\nrestarts=3\nlambda=0\ndr_t=0\n"
                           "success_tol=0\ngeneric_reg=0\nseed=99\n");
    free(h);
}

/* A sweep of a defined method stopped midway; `reg define` then replaces
 * it: resuming would mix the two definitions' trials, so it is refused,
 * naming the method and both definitions. Defined again as it was (a new
 * entry, the same text), the sweep resumes and ends as an uninterrupted
 * run. */
#define DEF1 "||g||^2 * ||h||^2 - <g,h>^2 with g = x, h = x^3"
#define DEF2 "||g||^2 * ||h||^2 - <g,h>^2 with g = x, h = 1+x^2"

static cs_sweep_spec defined_spec(cs_method *mv)
{
    static const char *names[] = {"jdef", "bin"};
    methods_of(names, 2, mv);   /* looked up now: the current definition */
    cs_sweep_spec sp = small_spec();
    sp.methods = mv;
    sp.threads = 1;
    return sp;
}

static void test_resume_redefined(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    char full[512], part[512], jpath[512];
    snprintf(full, sizeof full, "%s/full.csv", dir);
    snprintf(part, sizeof part, "%s/d.csv", dir);
    snprintf(jpath, sizeof jpath, "%s/d.csv.journal", dir);
    define_ok("jdef", "x", "x^3");
    cs_method mv[2];
    cs_sweep_spec sp = defined_spec(mv);
    char *h = cs_sweep_journal_header(&sp);
    assert_non_null(strstr(h, "\nmethods=jdef,bin\ndefine.jdef=" DEF1 "\ntrials=8\n"));
    free(h);
    cs_sweep_result *r;
    cs_err err;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
    assert_int_equal(cs_sweep_write_csv(r, full, NULL, &err), 0);
    cs_sweep_result_free(r);
    /* stopped after 5 of 24 trials */
    stopper st = {.after = 5};
    sp.cancel = &st.flag;
    sp.on_trial = stop_after;
    sp.trial_user = &st;
    cs_sweep_journal *j;
    cs_sweep_store store;
    assert_int_equal(cs_sweep_journal_open(&j, jpath, &sp, 0, &err), 0);
    cs_sweep_journal_store(j, &store);
    sp.store = &store;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
    assert_true(r->partial);
    long first = r->trials_done;
    cs_sweep_result_free(r);
    assert_int_equal(cs_sweep_journal_close(j, &err), 0);
    long size = file_size(jpath);
    /* redefined: refused, the journal kept as it was */
    define_ok("jdef", "x", "1+x^2");
    cs_sweep_spec b = defined_spec(mv);
    expect_refused(jpath, &b, "resume: d.csv.journal was written with jdef defined as " DEF1
                   "; this sweep's jdef is " DEF2 " (resume=off starts afresh)");
    assert_int_equal(file_size(jpath), size);
    /* a journal that names jdef without its definition (written before
     * definitions were kept) cannot be checked: refused too */
    char old[512];
    snprintf(old, sizeof old, "%s/old.csv.journal", dir);
    size_t len;
    char *text = slurp(jpath, &len);
    char *def = strstr(text, "define.jdef="), *eol = strchr(def, '\n');
    memmove(def, eol + 1, strlen(eol + 1) + 1);
    char *hdr = strstr(text, "header ");
    char *body = strchr(text, '\n') + 1;
    char crc[16];
    snprintf(crc, sizeof crc, "%08x", (unsigned)cs_crc32(body, (size_t)(hdr - body)));
    memcpy(hdr + 7, crc, 8);
    FILE *f = fopen(old, "w");
    fputs(text, f);
    fclose(f);
    free(text);
    define_ok("jdef", "x", "x^3");
    b = defined_spec(mv);
    expect_refused(old, &b, "resume: old.csv.journal does not record how jdef was defined "
                   "(this sweep: " DEF1 ")");
    /* the first definition again: resumed, the same CSV as one run */
    assert_int_equal(cs_sweep_journal_open(&j, jpath, &b, 1, &err), 0);
    assert_int_equal(cs_sweep_journal_loaded(j), first);
    cs_sweep_journal_store(j, &store);
    b.store = &store;
    assert_int_equal(cs_sweep_run(&b, &r, &err), 0);
    assert_false(r->partial);
    assert_int_equal(cs_sweep_write_csv(r, part, NULL, &err), 0);
    cs_sweep_result_free(r);
    assert_int_equal(cs_sweep_journal_finish(j, &err), 0);
    char *x = slurp_csv(full), *y = slurp_csv(part);
    assert_string_equal(x, y);
    free(x);
    free(y);
    remove_tmpdir(dir);
}

/* ---- the real program ---- */

/* Under the sanitizers the program is some 30 times slower: 4 trials a
 * point (seconds) still outlast the first journal block (0.5 s) there. */
#if SANITIZED
#define SWEEP "sweep kind=bin methods=bin,linf N=50 gamma=0.3:0.1:0.8 trials=4 threads=1"
#else
#define SWEEP "sweep kind=bin methods=bin,linf N=50 gamma=0.3:0.1:0.8 trials=40 threads=1"
#endif

typedef struct watch {
    char path[512];
} watch;

/* The journal holds at least one record (a finished block). */
static int journal_has_block(void *ctx)
{
    watch *w = ctx;
    char *text = slurp(w->path, NULL);
    int yes = text && strstr(text, "\nR ") != NULL;
    free(text);
    return yes;
}

static char *get(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return slurp_csv(p);
}

static void interrupted_then_resumed(int signo)
{
    char *dir = make_tmpdir();
    cli_run r = {0};
    cli_opts plain = {.cwd = dir};
    cli_run_opts(&r, &plain, (const char *[]){"-e", "seed 2", "-e", SWEEP " out=full.csv", NULL});
    if (r.status != 0)
        fail_msg("status %d: %s", r.status, r.err);
    char *full = get(dir, "full.csv");
    assert_non_null(full);
    assert_null(get(dir, "full.csv.journal")); /* removed once the CSV is written */
    watch w;
    snprintf(w.path, sizeof w.path, "%s/s.csv.journal", dir);
    cli_opts o = {.cwd = dir, .when = journal_has_block, .when_ctx = &w, .signo = signo};
    cli_run_opts(&r, &o, (const char *[]){"-e", "seed 2", "-e", SWEEP " out=s.csv", NULL});
    if (r.interrupted) { /* else the sweep beat the signal: resume=on simply runs it */
        char *kept = get(dir, "s.csv.journal");
        assert_non_null(kept);
        free(kept);
        if (signo == SIGINT) {
            assert_int_equal(r.status, 130);
            assert_non_null(strstr(r.err, "; resume=on continues it"));
        } else {
            assert_true(r.signaled);
        }
        /* other settings are refused, the journal kept */
        cli_run_opts(&r, &plain, (const char *[]){"-e", "seed 3", "-e",
                                                  SWEEP " out=s.csv resume=on", NULL});
        assert_int_not_equal(r.status, 0);
        if (!strstr(r.err, "resume: s.csv.journal is for seed 2, this sweep has seed 3"))
            fail_msg("stderr: %s", r.err);
        char *j = get(dir, "s.csv.journal");
        assert_non_null(j);
        free(j);
    } else {
        print_message("note: the sweep ended before the signal was sent\n");
    }
    cli_run_opts(&r, &plain, (const char *[]){"-e", "seed 2", "-e",
                                              SWEEP " out=s.csv resume=on", NULL});
    if (r.status != 0)
        fail_msg("status %d: %s", r.status, r.err);
    char *got = get(dir, "s.csv");
    assert_non_null(got);
    assert_string_equal(got, full);
    assert_null(get(dir, "s.csv.journal"));
    free(got);
    free(full);
    cli_run_free(&r);
    remove_tmpdir(dir);
}

static void test_cli_killed_then_resumed(void **state)
{
    (void)state;
    interrupted_then_resumed(SIGKILL);
}

static void test_cli_ctrl_c_then_resumed(void **state)
{
    (void)state;
    interrupted_then_resumed(SIGINT);
}

static void test_cli_resume_needs_out(void **state)
{
    (void)state;
    cli_run r = {0};
    cli_run_args(&r, NULL, (const char *[]){"-e", SWEEP " resume=on", NULL});
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "resume=on needs out="));
    cli_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32),
        cmocka_unit_test(test_journal_write_read),
        cmocka_unit_test(test_journal_mismatch),
        cmocka_unit_test(test_engine_resume_identical),
        cmocka_unit_test(test_header_builtins_unchanged),
        cmocka_unit_test(test_resume_redefined),
        cmocka_unit_test(test_cli_killed_then_resumed),
        cmocka_unit_test(test_cli_ctrl_c_then_resumed),
        cmocka_unit_test(test_cli_resume_needs_out),
    };
    return cmocka_run_group_tests_name("sweep_resume", tests, NULL, NULL);
}
