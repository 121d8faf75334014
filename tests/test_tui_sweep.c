/* test_tui_sweep.c — the sweep view in a real terminal (tmux). A sweep
 * typed at `:` (N=60, 7 points of gamma, 300 trials each, one thread: some
 * tens of seconds) is followed live: screens taken while it runs show the
 * Success panel with its legend, the pace line with trials/s and the ETA,
 * the Points table with a point whole and one part done, and later screens
 * more trials; at the end every point has its 300 trials and the rates are
 * those of the paper's Fig. 1a (bin near 1 at gamma 0.9, near 0 at 0.3); t
 * goes to the solver view and back. At 80×24 with the ASCII fallback, Esc
 * cancels a sweep (the view keeps what it had), and resume=on counts the
 * journal's trials before running the rest. Under the sanitizers the sweep
 * is lighter (N=40, 100 trials, fewer iterations). Skipped without tmux. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tmux_util.h"

static char dir[64];
static char screen[65536];

#include "sanitized.h"

/* The sweep: some tens of seconds here; under the sanitizers, where the
 * solver is about 30 times slower, fewer and cheaper trials (seconds). */
#if SANITIZED
#define SWEEP "sweep kind=bin methods=bin,linf N=40 gamma=0.3:0.1:0.9 trials=100 maxit=1000 " \
              "restarts=2 threads=1"
#else
#define SWEEP "sweep kind=bin methods=bin,linf N=60 gamma=0.3:0.1:0.9 trials=300 threads=1"
#endif
enum { POINTS = 7, TRIALS = SANITIZED ? 100 : 300, TOTAL = POINTS * TRIALS };

static void start(tmux_session *t, int w, int h, const char *extra_env)
{
    assert_int_equal(tmux_start_workbench(t, w, h, dir, extra_env, ""), 0);
    assert_int_equal(tmux_wait_for(t, "Histogram", 5000, screen, sizeof screen), 0);
}

/* Wait for needle on the screen; fail showing the screen. */
static void wait_for(tmux_session *t, const char *needle, int ms)
{
    if (tmux_wait_for(t, needle, ms, screen, sizeof screen) != 0)
        fail_msg("no '%s' within %d ms:\n%s", needle, ms, screen);
}

static void command(tmux_session *t, const char *line)
{
    assert_int_equal(tmux_command(t, line), 0);
}

static void keys(tmux_session *t, const char *key)
{
    assert_int_equal(tmux_keys(t, (const char *[]){key, NULL}), 0);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int matches(const char *text, const char *pattern, regmatch_t *m, size_t nm)
{
    regex_t re;
    assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE), 0);
    int ok = regexec(&re, text, nm, m, 0) == 0;
    regfree(&re);
    return ok;
}

/* The Points table's rows: for each grid value 0.3 .. 0.9 its trials done
 * and the two rates (-1: "-" or not found). Returns the rows found. */
typedef struct row {
    long done;
    double bin, linf;
} row;

static int points_rows(const char *scr, row *rows)
{
    int found = 0;
    for (int i = 0; i < POINTS; i++) {
        rows[i] = (row){-1, -1, -1};
        char pat[160];
        /* "│>0.4   152/300 0.184 0.033" (the marker: > while part done) */
        snprintf(pat, sizeof pat, "[ >]0\\.%d +([0-9]+)/%d +([0-9.]+|-) +([0-9.]+|-)", 3 + i,
                 TRIALS);
        regmatch_t m[4];
        if (!matches(scr, pat, m, 4))
            continue;
        found++;
        rows[i].done = strtol(scr + m[1].rm_so, NULL, 10);
        if (scr[m[2].rm_so] != '-')
            rows[i].bin = strtod(scr + m[2].rm_so, NULL);
        if (scr[m[3].rm_so] != '-')
            rows[i].linf = strtod(scr + m[3].rm_so, NULL);
    }
    return found;
}

/* Trials done in the pace line "trials 452/2100 21%  37.6 trials/s  ETA 0:44"
 * (with the ETA as m:ss), -1 when it is not on the screen. */
static long pace_done(const char *scr)
{
    regmatch_t m[2];
    char pat[160];
    snprintf(pat, sizeof pat, "trials ([0-9]+)/%d [0-9]+%%  [0-9.]+ trials/s  ETA [0-9]+:[0-9]{2}",
             TOTAL);
    if (!matches(scr, pat, m, 2))
        return -1;
    return strtol(scr + m[1].rm_so, NULL, 10);
}

/* The screen while the sweep runs with one point whole and the next one
 * part done: the curve filling in; the table's trials add up to the pace
 * line's (one frame, drawn whole: not a screen caught mid-update). */
static int filling_in(const char *scr)
{
    row r[POINTS];
    long done = pace_done(scr);
    if (points_rows(scr, r) != POINTS || done <= 0 || done >= TOTAL)
        return 0;
    int whole = 0, part = 0;
    long sum = 0;
    for (int i = 0; i < POINTS; i++) {
        whole += r[i].done == TRIALS;
        part += r[i].done > 0 && r[i].done < TRIALS;
        sum += r[i].done;
    }
    return whole >= 1 && part >= 1 && sum == done;
}

/* Poll the screen until cond holds (up to seconds); fail showing it. */
static void poll_until(tmux_session *t, int (*cond)(const char *), double seconds,
                       const char *what)
{
    double t0 = now();
    for (;;) {
        assert_int_equal(tmux_screen(t, screen, sizeof screen), 0);
        if (cond(screen))
            return;
        if (now() - t0 > seconds)
            fail_msg("no %s within %.0f s:\n%s", what, seconds, screen);
        usleep(100000);
    }
}

/* A screen into the test's output (print_message would cut it). */
static void show(const char *what, const char *scr)
{
    printf("%s:\n%s\n", what, scr);
    fflush(stdout);
}

static void quit(tmux_session *t)
{
    keys(t, "q");
    assert_int_equal(tmux_wait_for(t, "CSREG_EXITED rc=0", 5000, screen, sizeof screen), 0);
    tmux_stop(t);
}

static char mid[65536];

static void test_sweep_view_live_120x40(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t, 120, 40, "");
    char line[512];
    snprintf(line, sizeof line, SWEEP " out=%s/live.csv", dir);
    command(&t, line);
    /* during the sweep: a point whole, the next part done */
    poll_until(&t, filling_in, 120, "point whole with the next one part done");
    snprintf(mid, sizeof mid, "%s", screen);
    show("mid-sweep screen (120x40)", mid);
    static const char *const parts[] = {"Success", "Points", "● bin", "▲ linf",
                                        "bars: Wilson 95%", "[running]", "95% CI",
                                        "Esc cancels"};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (!strstr(mid, parts[i]))
            fail_msg("'%s' missing from the sweep view while it runs:\n%s", parts[i], mid);
    row r[POINTS];
    long d1 = pace_done(mid);
    /* the status line: the numbers with the ETA, whole */
    char pat[200];
    snprintf(pat, sizeof pat, "trials [0-9]+/%d [0-9]+%% [0-9.]+ trials/s ETA [0-9]+:[0-9]{2}  Esc "
             "cancels", TOTAL);
    if (!matches(mid, pat, NULL, 0))
        fail_msg("no sweep status line:\n%s", mid);
    /* it goes on: more trials on a later screen */
    double t0 = now();
    long d2 = d1;
    while (d2 <= d1 && now() - t0 < 30) {
        usleep(300000);
        assert_int_equal(tmux_screen(&t, screen, sizeof screen), 0);
        long d = pace_done(screen);
        d2 = d > d2 ? d : d2;
    }
    if (d2 <= d1)
        fail_msg("trials did not advance past %ld:\n%s", d1, screen);
    print_message("trials done: %ld, then %ld\n", d1, d2);
    /* the end: every point whole, the rates of Fig. 1a, the view stays */
    char done_text[64];
    snprintf(done_text, sizeof done_text, "sweep done: %d/%d trials", TOTAL, TOTAL);
    wait_for(&t, done_text, 240000);
    wait_for(&t, "t solver view", 3000);
    assert_int_equal(points_rows(screen, r), POINTS);
    for (int i = 0; i < POINTS; i++)
        if (r[i].done != TRIALS)
            fail_msg("point %d has %ld trials at the end:\n%s", i, r[i].done, screen);
    if (!(r[6].bin >= 0.95 && r[6].linf >= 0.9 && r[0].bin <= 0.2 && r[0].linf <= 0.2 &&
          (SANITIZED || r[2].bin > r[2].linf)))
        fail_msg("rates not as expected (bin %.3f..%.3f, linf %.3f..%.3f):\n%s", r[0].bin,
                 r[6].bin, r[0].linf, r[6].linf, screen);
    assert_null(strstr(screen, "[running]"));
    snprintf(done_text, sizeof done_text, "done: %d/%d trials in ", TOTAL, TOTAL);
    assert_non_null(strstr(screen, done_text));
    show("final screen (120x40)", screen);
    /* t: the solver view, and back */
    keys(&t, "t");
    wait_for(&t, "Regularizers", 3000);
    assert_null(strstr(screen, "Points"));
    keys(&t, "t");
    wait_for(&t, "Points", 3000);
    assert_non_null(strstr(screen, done_text));
    quit(&t);
}

/* ASCII, 80 columns: filling in as above, whole lines; then Esc. */
static int filling_in_ascii(const char *scr)
{
    return filling_in(scr) && strstr(scr, "o bin") && strstr(scr, "x linf");
}

/* The resumed sweep running, the journal's trials counted (in the frame). */
static int resumed(const char *scr)
{
    regmatch_t m[2];
    return matches(scr, " ([0-9]+) trials from the journal ", m, 2) &&
           strtol(scr + m[1].rm_so, NULL, 10) > 0 && pace_done(scr) > 0;
}

/* Cancelled: the pace line says so, nothing runs. */
static int cancelled(const char *scr)
{
    return strstr(scr, "cancelled: ") && pace_done(scr) < 0 && !strstr(scr, "[running]");
}

static void test_sweep_view_80x24_ascii_cancel_resume(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t, 80, 24, "CSREG_TUI_ASCII=1");
    char line[512];
    snprintf(line, sizeof line, SWEEP " out=%s/c.csv", dir);
    command(&t, line);
    poll_until(&t, filling_in_ascii, 120, "ASCII sweep view filling in");
    snprintf(mid, sizeof mid, "%s", screen);
    show("mid-sweep screen (80x24, ASCII)", mid);
    static const char *const parts[] = {"Success", "Points", "bars: Wilson 95%", "Esc cancels",
                                        "gamma"};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (!strstr(mid, parts[i]))
            fail_msg("'%s' missing from the 80x24 sweep view:\n%s", parts[i], mid);
    /* Esc cancels: the command fails as before, the view keeps its counts */
    keys(&t, "Escape");
    wait_for(&t, "sweep cancelled: ", 20000);
    row r[POINTS];
    assert_int_equal(points_rows(screen, r), POINTS);
    assert_true(r[0].done == TRIALS);
    assert_non_null(strstr(screen, "Success"));
    /* resumed: the journal's trials are counted before the rest run */
    snprintf(line, sizeof line, SWEEP " out=%s/c.csv resume=on", dir);
    command(&t, line);
    poll_until(&t, resumed, 60, "'N trials from the journal' while the resumed sweep runs");
    points_rows(screen, r);
    assert_true(r[0].done == TRIALS);
    show("resumed screen (80x24, ASCII)", screen);
    keys(&t, "Escape");
    poll_until(&t, cancelled, 20, "the resumed sweep cancelled");
    quit(&t);
}

static int setup(void **state)
{
    (void)state;
    return tmux_state_dir(dir, sizeof dir, "csreg_sweep");
}

static int teardown(void **state)
{
    (void)state;
    tmux_state_dir_remove(dir);
    return 0;
}

int main(void)
{
    setenv("LC_ALL", "C.UTF-8", 1);   /* tmux prints the screen as UTF-8 */
    setlocale(LC_ALL, "");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_view_live_120x40),
        cmocka_unit_test(test_sweep_view_80x24_ascii_cancel_resume),
    };
    if (!tmux_available())
        fprintf(stderr, "tmux missing: sweep view tests skipped\n");
    return cmocka_run_group_tests_name("tui_sweep", tests, setup, teardown);
}
