/* test_watch_tui.c — `csreg watch DIR` in a real terminal (tmux) while a
 * synthetic writer (tests/tools/watch_writer.py: weights moving to ±1 over
 * 200 snapshots) fills the folder: two screens show the histogram's
 * `conv1 step N` advancing and the share near the levels rising; ← shows an
 * earlier step, Home the first, End follows again; the viewer is idle (no
 * CPU to speak of) once the run ended. Torn files (a truncated .npy, a
 * line that is not JSON, a writer killed mid-snapshot and started again)
 * are skipped with a message while the view goes on. Two runs side by
 * side with c. Skipped without tmux or /usr/bin/python3 with numpy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sanitized.h"
#include "tmux_util.h"

#define PYTHON "/usr/bin/python3"

static char dir[64];
static char writer[4200];
static char screen[65536];

/* tests/tools/watch_writer.py: beside this file, or from the program's
 * build folder (BUILD/rel/csreg). */
static int find_writer(void)
{
    snprintf(writer, sizeof writer, "%s", __FILE__);
    char *slash = strrchr(writer, '/');
    snprintf(slash ? slash + 1 : writer, sizeof writer - (size_t)(slash ? slash + 1 - writer : 0),
             "tools/watch_writer.py");
    if (access(writer, R_OK) == 0)
        return 1;
    snprintf(writer, sizeof writer, "%s/../../tests/tools/watch_writer.py", tmux_csreg_bin());
    char *p = strstr(writer, "/csreg/../..");
    if (p)
        memmove(p, p + 6, strlen(p + 6) + 1);
    return access(writer, R_OK) == 0;
}

static int runnable(void)
{
    return tmux_available() && find_writer() &&
           system(PYTHON " -c 'import numpy' >/dev/null 2>&1") == 0;
}

static int setup(void **state)
{
    (void)state;
    return tmux_state_dir(dir, sizeof dir, "csreg_watch_tui_");
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void wait_for(tmux_session *t, const char *needle, int ms)
{
    if (tmux_wait_for(t, needle, ms, screen, sizeof screen) != 0)
        fail_msg("no '%s' within %d ms:\n%s", needle, ms, screen);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Run the writer (args after the folder) in the background or not. */
static void writer_run(const char *run, const char *args, int background)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, PYTHON " '%s' '%s/%s' %s >/dev/null 2>&1%s", writer, dir, run,
             args, background ? " &" : "");
    int rc = system(cmd);
    if (background)
        assert_int_equal(rc, 0);
    (void)rc;
}

/* N of "LAYER step N" on the screen (the first), -1 when absent. */
static long layer_step(const char *scr, const char *layer)
{
    char pat[64];
    snprintf(pat, sizeof pat, "%s step ", layer);
    const char *p = strstr(scr, pat);
    return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/* The near share (%) of the Training panel's row ">conv1", -1 when absent. */
static double near_share(const char *scr)
{
    const char *p = strstr(scr, ">conv1 ");
    return p ? strtod(p + 7, NULL) : -1;
}

static void quit(tmux_session *t)
{
    assert_int_equal(tmux_keys(t, (const char *[]){"q", NULL}), 0);
    assert_int_equal(tmux_wait_for(t, "CSREG_EXITED rc=0", 5000, screen, sizeof screen), 0);
    tmux_stop(t);
}

/* utime + stime, in clock ticks, of the process `csreg watch RUN` (its
 * argv, read from /proc: a shell's command line that names it does not
 * count); -1 when not found. */
static long cpu_ticks(const char *run)
{
    DIR *d = opendir("/proc");
    long ticks = -1;
    struct dirent *e;
    while (d && ticks < 0 && (e = readdir(d))) {
        char path[300], argv[4096], stat[1024];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(argv, 1, sizeof argv - 1, f) : 0;
        if (f)
            fclose(f);
        argv[n] = '\0';
        const char *a1 = argv + strlen(argv) + 1, *a2 = a1 + strlen(a1) + 1;
        size_t l0 = strlen(argv);
        if (n == 0 || a1 >= argv + n || a2 >= argv + n || l0 < 5 ||
            strcmp(argv + l0 - 5, "csreg") || strcmp(a1, "watch") || strcmp(a2, run))
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        f = fopen(path, "r");
        n = f ? fread(stat, 1, sizeof stat - 1, f) : 0;
        if (f)
            fclose(f);
        stat[n] = '\0';
        const char *s = strrchr(stat, ')');   /* the fields after the command's name */
        long ut = 0, st = 0;
        if (s && sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &ut,
                        &st) == 2)
            ticks = ut + st;
    }
    if (d)
        closedir(d);
    return ticks;
}

static void test_follow_and_scrub(void **state)
{
    (void)state;
    if (!runnable())
        skip();
    char run[4200], args[4300];
    snprintf(run, sizeof run, "%s/live", dir);
    snprintf(args, sizeof args, "mkdir -p '%s'", run);
    assert_int_equal(system(args), 0);
    tmux_session t;
    snprintf(args, sizeof args, "watch %s", run);
    assert_int_equal(tmux_start_workbench(&t, 130, 40, dir, "", args), 0);
    wait_for(&t, "no snapshot yet", 5000);
    writer_run("live", "--snapshots 200 --interval 0.05", 1);
    /* two screens while the writer goes: the step advances, near rises */
    wait_for(&t, "conv1 step", 10000);
    long s1 = layer_step(screen, "conv1");
    double n1 = near_share(screen);
    double t0 = now();
    long s2 = s1;
    double n2 = n1;
    while (now() - t0 < 20 && !(s2 >= s1 + 400 && n2 > n1)) {
        usleep(100000);
        assert_int_equal(tmux_screen(&t, screen, sizeof screen), 0);
        s2 = layer_step(screen, "conv1");
        n2 = near_share(screen);
    }
    print_message("conv1 step %ld near %.2f%%, then step %ld near %.2f%%\n", s1, n1, s2, n2);
    if (!(s2 >= s1 + 400 && n2 > n1 && n1 >= 0))
        fail_msg("step %ld -> %ld, near %.2f -> %.2f:\n%s", s1, s2, n1, n2, screen);
    wait_for(&t, "the run ended (200 snapshots)", 30000);
    wait_for(&t, "conv1 step 1990", 3000);
    if (!strstr(screen, ">conv1  100.00%"))
        fail_msg("the end is not on ±1:\n%s", screen);
    /* idle: the folder is looked at four times a second, nothing more */
    long c0 = cpu_ticks(run);
    sleep(3);
    long c1 = cpu_ticks(run);
    long hz = sysconf(_SC_CLK_TCK);
    print_message("the idle viewer: %ld clock ticks in 3 s (%ld a second)\n", c1 - c0, hz);
    assert_true(c0 >= 0 && c1 >= c0);
    assert_true(c1 - c0 <= (SANITIZED ? 30 : 1) * 3 * hz / 100);   /* 1% (ASan: 30%) */
    /* <- an earlier step, Home the first, End the newest */
    assert_int_equal(tmux_keys(&t, (const char *[]){"Left", "Left", NULL}), 0);
    wait_for(&t, "conv1 step 1970", 3000);
    wait_for(&t, "snapshot 198/200", 3000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"Home", NULL}), 0);
    wait_for(&t, "conv1 step 0 ", 3000);
    wait_for(&t, "snapshot 1/200", 3000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"Right", NULL}), 0);
    wait_for(&t, "conv1 step 10 ", 3000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"End", NULL}), 0);
    wait_for(&t, "conv1 step 1990", 3000);
    /* ] the next layer */
    assert_int_equal(tmux_keys(&t, (const char *[]){"]", NULL}), 0);
    wait_for(&t, "fc step 1990", 3000);
    quit(&t);
}

static void test_torn_files(void **state)
{
    (void)state;
    if (!runnable())
        skip();
    char run[4200], args[4300];
    snprintf(run, sizeof run, "%s/torn", dir);
    snprintf(args, sizeof args, "mkdir -p '%s'", run);
    assert_int_equal(system(args), 0);
    tmux_session t;
    snprintf(args, sizeof args, "watch %s", run);
    assert_int_equal(tmux_start_workbench(&t, 200, 50, dir, "", args), 0);
    wait_for(&t, "no snapshot yet", 5000);
    /* killed in the middle of snapshot 30, after a truncated file at 5 and
     * a bad line before 8; then a writer again from snapshot 30 */
    writer_run("torn", "--snapshots 60 --interval 0.02 --truncate-at 5 --bad-line-at 8 "
               "--die-at 30", 0);
    wait_for(&t, "conv1 step 290", 5000);
    writer_run("torn", "--snapshots 60 --interval 0.02 --resume 30", 0);
    wait_for(&t, "the run ended (59 snapshots)", 10000);
    wait_for(&t, "conv1 step 590", 3000);
    static const char *const said[] = {
        "step 50 (metrics.jsonl line 6) skipped:",
        "conv1.npy: truncated:",
        "metrics.jsonl line 9: JSON: unexpected character at byte 9 (skipped)",
    };
    for (size_t i = 0; i < sizeof said / sizeof *said; i++)
        if (!strstr(screen, said[i]))
            fail_msg("'%s' is not said:\n%s", said[i], screen);
    quit(&t);
}

static void test_compare(void **state)
{
    (void)state;
    if (!runnable())
        skip();
    writer_run("cs", "--snapshots 30 --interval 0", 0);
    writer_run("naive", "--snapshots 20 --interval 0 --seed 2 --reg none", 0);
    tmux_session t;
    char args[4300];
    snprintf(args, sizeof args, "watch %s/cs %s/naive", dir, dir);
    assert_int_equal(tmux_start_workbench(&t, 150, 40, dir, "", args), 0);
    wait_for(&t, "conv1 step 290", 5000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"c", NULL}), 0);
    wait_for(&t, "cs: conv1 step 290", 3000);
    wait_for(&t, "naive: conv1 step 190", 3000);
    wait_for(&t, "naive step 190: near 100.00%", 3000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"Home", NULL}), 0);
    wait_for(&t, "naive: conv1 step 0 ", 3000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"c", NULL}), 0);   /* c again: one run */
    double t0 = now();
    do {
        usleep(50000);
        assert_int_equal(tmux_screen(&t, screen, sizeof screen), 0);
    } while (strstr(screen, "naive: conv1") && now() - t0 < 3);
    if (strstr(screen, "naive: conv1") || !strstr(screen, "conv1 step 0 "))
        fail_msg("c did not end the comparison:\n%s", screen);
    /* the command in the workbench: another folder, then off */
    assert_int_equal(tmux_command(&t, "watch dir=nowhere"), 0);
    wait_for(&t, "cannot open the run folder 'nowhere'", 3000);
    quit(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_follow_and_scrub),
        cmocka_unit_test(test_torn_files),
        cmocka_unit_test(test_compare),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
