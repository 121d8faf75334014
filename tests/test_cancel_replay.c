/* test_cancel_replay.c — a cancelled command replays to the same state
 * (issue 38 item 3), in a real terminal (tmux): a training typed at the
 * workbench's `:` is cancelled with Esc after a few steps, the network
 * saved, the session saved; `csreg run` of that session writes the same
 * checkpoint byte for byte (the journal's train line carries stop_after=).
 * The same in the REPL with Ctrl-C, for a training and for a solve (whose
 * trace the replay writes again, the same bytes). Skipped without tmux or
 * the Fashion-MNIST package. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "cs_nn.h"
#include "interp_util.h"
#include "sanitized.h"
#include "tmux_util.h"

static char dir[64];
static char screen[65536];

static int runnable(void)
{
    return tmux_available() &&
           access(CS_NN_DEFAULT_DATA "/train-images-idx3-ubyte.gz", R_OK) == 0;
}

static void wait_for(tmux_session *t, const char *needle, int ms)
{
    if (tmux_wait_for(t, needle, ms, screen, sizeof screen) != 0)
        fail_msg("no '%s' within %d ms:\n%s", needle, ms, screen);
}

static char *path_of(const char *name)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

/* Wait until the file exists (a command the front end runs writes it). */
static void wait_file(const char *name, int ms)
{
    for (int i = 0; i < ms / 50 && access(path_of(name), R_OK) != 0; i++)
        usleep(50000);
    if (access(path_of(name), R_OK) != 0)
        fail_msg("%s not written within %d ms", name, ms);
}

/* Wait until the screen shows at least `min` after `pat` (e.g. "fc1 step "). */
static long wait_number(tmux_session *t, const char *pat, long min, int ms)
{
    long v = -1;
    for (int i = 0; i < ms / 50 && v < min; i++) {
        assert_int_equal(tmux_screen(t, screen, sizeof screen), 0);
        const char *p = strstr(screen, pat);
        v = p ? strtol(p + strlen(pat), NULL, 10) : -1;
        if (v < min)
            usleep(50000);
    }
    if (v < min)
        fail_msg("no '%s%ld' or more within %d ms:\n%s", pat, min, ms, screen);
    return v;
}

/* The saved session, its train line checked; then `csreg run` of it in the
 * folder, after keeping the files the interactive session wrote. */
static char *replay_session(const char *session, const char *const *outputs, size_t n)
{
    char *s = slurp(path_of(session), NULL);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++) {
        char keep[300];
        snprintf(keep, sizeof keep, "%s.first", path_of(outputs[i]));
        assert_int_equal(rename(path_of(outputs[i]), keep), 0);
    }
    cli_run r = {0};
    cli_opts o = {.cwd = dir};
    cli_run_opts(&r, &o, (const char *[]){"run", session, NULL});
    if (r.status != 0)
        fail_msg("csreg run %s: status %d\n%s\n%s", session, r.status, r.err, s);
    cli_run_free(&r);
    return s;
}

static void same_bytes(const char *name)
{
    char first[300];
    snprintf(first, sizeof first, "%s.first", path_of(name));
    size_t la, lb;
    char *a = slurp(first, &la), *b = slurp(path_of(name), &lb);
    assert_non_null(a);
    assert_non_null(b);
    if (la != lb || memcmp(a, b, la) != 0)
        fail_msg("%s: the replay wrote other bytes (%zu vs %zu)", name, lb, la);
    free(a);
    free(b);
}

static void test_tui_esc_train_replays_same_weights(void **state)
{
    (void)state;
    if (!runnable())
        skip();
    tmux_session t;
    assert_int_equal(tmux_start_workbench(&t, 120, 40, dir, "", ""), 0);
    wait_for(&t, "Histogram", 5000);
    assert_int_equal(tmux_command(&t, "train model=mlp epochs=20 "
                                      "reg=bin lambda=1"), 0);
    long at = wait_number(&t, "fc1 step ", 5, 60000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"Escape", NULL}), 0);
    wait_for(&t, "the network keeps that step", 30000);
    print_message("Esc at fc1 step %ld on the screen\n", at);
    char line[512];
    snprintf(line, sizeof line, "save model %s", path_of("m.csnn"));
    assert_int_equal(tmux_command(&t, line), 0);
    wait_file("m.csnn", 10000);
    snprintf(line, sizeof line, "save session %s force=on", path_of("s.csr"));
    assert_int_equal(tmux_command(&t, line), 0);
    wait_file("s.csr", 10000);
    wait_for(&t, "commands:", 5000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"q", NULL}), 0);
    wait_for(&t, "CSREG_EXITED rc=0", 5000);
    tmux_stop(&t);
    char *s = replay_session("s.csr", (const char *[]){"m.csnn"}, 1);
    const char *tl = strstr(s, "\ntrain model=mlp epochs=20 reg=bin lambda=1 stop_after=");
    if (!tl)
        fail_msg("the session's train line has no stop_after=:\n%s", s);
    long steps = strtol(strstr(tl, "stop_after=") + 11, NULL, 10);
    print_message("journaled stop_after=%ld (of 9360 steps)\n", steps);
    assert_true(steps >= at && steps < 9360);
    same_bytes("m.csnn");
    free(s);
}

static void start_repl(tmux_session *t)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "env XDG_STATE_HOME=%s %s --repl", dir, tmux_csreg_bin());
    /* tall: every prompt of the test stays on the screen (they are counted) */
    assert_int_equal(tmux_start_retry(t, 150, 100, cmd), 0);
    wait_for(t, "csreg[bin]>", 5000);
}

static void type_line(tmux_session *t, const char *line)
{
    assert_int_equal(tmux_literal(t, line), 0);
    assert_int_equal(tmux_keys(t, (const char *[]){"Enter", NULL}), 0);
}

/* The number of prompts on the screen (a command done brings the next). */
static int prompts(tmux_session *t)
{
    assert_int_equal(tmux_screen(t, screen, sizeof screen), 0);
    int n = 0;
    for (const char *p = screen; (p = strstr(p, "]> ")); p += 3)
        n++;
    return n;
}

static void wait_prompts(tmux_session *t, int n, int ms)
{
    for (int i = 0; i < ms / 50 && prompts(t) < n; i++)
        usleep(50000);
    if (prompts(t) < n)
        fail_msg("not %d prompts within %d ms:\n%s", n, ms, screen);
}

static void test_repl_ctrl_c_train_and_solve_replay(void **state)
{
    (void)state;
    if (!runnable())
        skip();
    tmux_session t;
    start_repl(&t);
    type_line(&t, "train model=mlp epochs=20");
    /* the progress line: Ctrl-C a moment after it shows */
    wait_for(&t, "train epoch 1/20 [", 60000);
    usleep(300000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"C-c", NULL}), 0);
    wait_for(&t, "train stopped at step ", 30000);
    int np = prompts(&t);
    char line[512];
    snprintf(line, sizeof line, "save model %s", path_of("r.csnn"));
    type_line(&t, line);
    wait_prompts(&t, np + 1, 10000);
    /* a solve that would take minutes, Ctrl-C after a moment */
    type_line(&t, "problem bin N=300 gamma=0.2");
    wait_prompts(&t, np + 2, 10000);
    type_line(&t, "solve maxit=20000 restarts=1000");
    usleep(SANITIZED ? 1000000 : 200000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"C-c", NULL}), 0);
    wait_for(&t, "solve interrupted after ", 30000);
    wait_prompts(&t, np + 3, 10000);
    snprintf(line, sizeof line, "trace out=%s", path_of("t.csv"));
    type_line(&t, line);
    wait_file("t.csv", 20000);
    wait_prompts(&t, np + 4, 10000);
    snprintf(line, sizeof line, "save session %s force=on", path_of("r.csr"));
    type_line(&t, line);
    wait_file("r.csr", 10000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"C-d", NULL}), 0);
    for (int i = 0; i < 100 && tmux_pane_alive(&t); i++)
        usleep(20000);
    tmux_stop(&t);
    char *s = replay_session("r.csr", (const char *[]){"r.csnn", "t.csv"}, 2);
    if (!strstr(s, "\ntrain model=mlp epochs=20 stop_after=") ||
        !strstr(s, "\nsolve maxit=20000 restarts=1000 stop_after="))
        fail_msg("the session lacks stop_after= on train or solve:\n%s", s);
    same_bytes("r.csnn");
    same_bytes("t.csv");
    free(s);
}

static int setup(void **state)
{
    (void)state;
    return tmux_state_dir(dir, sizeof dir, "csreg_cancel");
}

static int teardown(void **state)
{
    (void)state;
    const char *names[] = {"m.csnn", "m.csnn.first", "s.csr", "r.csnn", "r.csnn.first",
                           "t.csv", "t.csv.first", "r.csr"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        unlink(path_of(names[i]));
    tmux_state_dir_remove(dir);
    return 0;
}

int main(void)
{
    setenv("LC_ALL", "C.UTF-8", 1);
    setlocale(LC_ALL, "");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tui_esc_train_replays_same_weights),
        cmocka_unit_test(test_repl_ctrl_c_train_and_solve_replay),
    };
    if (!runnable())
        fprintf(stderr, "tmux or the Fashion-MNIST package missing: cancel-and-replay tests "
                        "skipped\n");
    return cmocka_run_group_tests_name("cancel_replay", tests, setup, teardown);
}
