/* test_sweep_cancel_replay.c — a sweep stopped with Ctrl-C in the REPL (in
 * tmux, as a user does it) is journaled with how far it got
 * (stop_after=K): `save session` and `csreg run` of the saved session in
 * another folder write the same partial CSV, byte for byte, and the
 * replay itself runs to its end (exit 0). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interp_util.h"
#include "sanitized.h"
#include "tmux_util.h"

static char screen[16384];

static void sweep_cancel_replay(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    char dir[64];
    assert_int_equal(tmux_state_dir(dir, sizeof dir, "csreg_scr"), 0);
    char bin[4096], cmd[8192];
    assert_non_null(realpath(tmux_csreg_bin(), bin));   /* it runs in dir */
    snprintf(cmd, sizeof cmd, "cd %s && env XDG_STATE_HOME=%s %s --repl", dir, dir, bin);
    tmux_session t;
    assert_int_equal(tmux_start_retry(&t, 120, 30, cmd), 0);
    assert_int_equal(tmux_wait_for(&t, "csreg[bin]>", 10000, screen, sizeof screen), 0);
    tmux_literal(&t, "seed 2");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    /* long enough to be stopped in its third grid point (ASan: 10 times
     * slower, a tenth of the trials) */
    char sweep[256];
    snprintf(sweep, sizeof sweep, "sweep kind=bin methods=bin N=40 gamma=0.2:0.1:0.9 "
             "trials=%d threads=1 out=s.csv", SANITIZED ? 40 : 400);
    tmux_literal(&t, sweep);
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    if (tmux_wait_for(&t, "gamma=0.4 (3/8)", 60000, screen, sizeof screen) != 0)
        fail_msg("the sweep did not reach its third grid point:\n%s", screen);
    tmux_keys(&t, (const char *[]){"C-c", NULL});
    if (tmux_wait_for(&t, "sweep interrupted", 20000, screen, sizeof screen) != 0)
        fail_msg("no interruption message:\n%s", screen);
    tmux_literal(&t, "save session s.csr");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    assert_int_equal(tmux_wait_for(&t, "file: s.csr", 10000, screen, sizeof screen), 0);
    tmux_keys(&t, (const char *[]){"C-d", NULL});
    for (int i = 0; i < 100 && tmux_pane_alive(&t); i++)
        usleep(20000);
    tmux_stop(&t);

    char path[256];
    snprintf(path, sizeof path, "%s/s.csr", dir);
    char *session = slurp(path, NULL);
    assert_non_null(session);
    const char *line = strstr(session, "\nsweep kind=bin");
    assert_non_null(line);
    const char *k = strstr(line, " stop_after=");
    assert_non_null(k);
    long K = atol(k + 12);
    assert_true(K >= 2 && K < 8);
    free(session);

    /* the replay, in a folder of its own */
    char again[128], run[8192];
    snprintf(again, sizeof again, "%s/again", dir);
    assert_int_equal(mkdir(again, 0700), 0);
    snprintf(run, sizeof run, "cd %s && cp ../s.csr . && %s run s.csr >out.txt 2>&1", again,
             bin);
    assert_int_equal(system(run), 0);
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/s.partial.csv", dir);
    snprintf(b, sizeof b, "%s/s.partial.csv", again);
    size_t na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(na, nb);
    assert_memory_equal(x, y, na);
    char want[64];
    snprintf(want, sizeof want, "# partial: interrupted after %ld of 8 grid points\n", K);
    assert_non_null(strstr(x, want));
    free(x);
    free(y);
    snprintf(run, sizeof run, "rm -rf %s/again %s/s.csv* %s/s.partial.csv %s/s.csr", dir, dir,
             dir, dir);
    assert_int_equal(system(run), 0);
    tmux_state_dir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(sweep_cancel_replay)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
