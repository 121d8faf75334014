/* test_repl_tmux.c — the REPL in a real terminal (tmux): tab completion,
 * history across restarts, Ctrl-C on the prompt, Ctrl-D leaves, the
 * progress line of train. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmux_util.h"

static char state_dir[64];
static char screen[16384];

static void start(tmux_session *t)
{
    const char *bin = getenv("CSREG_BIN");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "env XDG_STATE_HOME=%s %s --repl", state_dir,
             bin ? bin : "./csreg");
    assert_int_equal(tmux_start(t, 100, 30, cmd), 0);
    assert_int_equal(tmux_wait_for(t, "csreg[bin]>", 5000, screen, sizeof screen), 0);
}

static int setup(void **state)
{
    (void)state;
    if (!tmux_available())
        return 0;
    snprintf(state_dir, sizeof state_dir, "/tmp/csreg_replXXXXXX");
    return mkdtemp(state_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char p[128];
    snprintf(p, sizeof p, "%s/csreg/history", state_dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/x.csv", state_dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/csreg", state_dir);
    rmdir(p);
    rmdir(state_dir);
    return 0;
}

static void test_completion_in_terminal(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t);
    /* unique prefix completes in place */
    tmux_literal(&t, "reg te");
    tmux_keys(&t, (const char *[]){"Tab", NULL});
    assert_int_equal(tmux_wait_for(&t, "csreg[bin]> reg ter", 3000, screen, sizeof screen), 0);
    tmux_keys(&t, (const char *[]){"C-u", NULL});
    /* ambiguous prefix: a second Tab lists the candidates */
    tmux_literal(&t, "reg b");
    tmux_keys(&t, (const char *[]){"Tab", "Tab", NULL});
    assert_int_equal(tmux_wait_for(&t, "binexp", 3000, screen, sizeof screen), 0);
    assert_int_equal(tmux_wait_for(&t, "bbin", 3000, screen, sizeof screen), 0);
    tmux_keys(&t, (const char *[]){"C-u", NULL});
    tmux_literal(&t, "reg holder ba");
    tmux_keys(&t, (const char *[]){"Tab", NULL});
    assert_int_equal(tmux_wait_for(&t, "reg holder base=", 3000, screen, sizeof screen), 0);
    tmux_keys(&t, (const char *[]){"C-u", "C-d", NULL});
    for (int i = 0; i < 100 && tmux_pane_alive(&t); i++)
        usleep(20000);
    assert_false(tmux_pane_alive(&t));
    tmux_stop(&t);
}

static void test_history_survives_restart(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t);
    tmux_literal(&t, "eval 3,1,-2");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    assert_int_equal(tmux_wait_for(&t, "value:", 3000, screen, sizeof screen), 0);
    tmux_literal(&t, "quit");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    for (int i = 0; i < 100 && tmux_pane_alive(&t); i++)
        usleep(20000);
    tmux_stop(&t);
    start(&t);
    tmux_keys(&t, (const char *[]){"Up", "Up", NULL});
    assert_int_equal(tmux_wait_for(&t, "csreg[bin]> eval 3,1,-2", 3000, screen, sizeof screen),
                     0);
    tmux_keys(&t, (const char *[]){"C-u", "C-d", NULL});
    tmux_stop(&t);
}

static void test_ctrl_c_drops_line(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t);
    tmux_literal(&t, "this line is abandoned");
    /* read and echoed first: a Ctrl-C while the text still waits in the
     * terminal's input queue makes the tty flush it unread (ISIG, no
     * NOFLSH), and the screen never shows it (a loaded CI machine did) */
    assert_int_equal(tmux_wait_for(&t, "csreg[bin]> this line is abandoned", 3000, screen,
                                   sizeof screen),
                     0);
    tmux_keys(&t, (const char *[]){"C-c", NULL});
    /* the fresh prompt: Ctrl-C is handled (typed on before, the next line
     * could be read into the line being dropped) */
    assert_int_equal(tmux_wait_for(&t, "abandoned\ncsreg[bin]>", 3000, screen, sizeof screen), 0);
    tmux_literal(&t, "eval 1,2,3");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    assert_int_equal(tmux_wait_for(&t, "value: 98", 3000, screen, sizeof screen), 0);
    assert_null(strstr(screen, "unknown command 'this"));
    assert_true(tmux_pane_alive(&t));
    tmux_keys(&t, (const char *[]){"C-d", NULL});
    tmux_stop(&t);
}

/* Ctrl-C while a sweep runs (its progress line names the grid point): the
 * sweep stops (its partial results kept),
 * the prompt comes back within seconds, the REPL lives on and the next
 * command works. */
static void test_ctrl_c_interrupts_sweep(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t);
    char line[256];
    snprintf(line, sizeof line,
             "sweep kind=bin methods=bin N=100 gamma=0.3:0.02:0.9 trials=1000 restarts=10 "
             "threads=1 out=%s/x.csv",
             state_dir);
    tmux_literal(&t, line);
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    usleep(1000000);
    /* still running: no second prompt yet */
    assert_int_equal(tmux_screen(&t, screen, sizeof screen), 0);
    const char *first = strstr(screen, "csreg[bin]>");
    assert_non_null(first);
    assert_null(strstr(first + 1, "csreg[bin]>"));
    /* the progress line names the grid point being worked on */
    if (tmux_wait_for(&t, "sweep  gamma=0.3 (1/31) ", 3000, screen, sizeof screen) != 0)
        fail_msg("no progress line naming the grid point:\n%s", screen);
    tmux_keys(&t, (const char *[]){"C-c", NULL});
    /* the prompt comes back, after a message saying it was interrupted */
    int back = 0;
    for (int i = 0; i < 50 && !back; i++) {
        usleep(100000);
        assert_int_equal(tmux_screen(&t, screen, sizeof screen), 0);
        first = strstr(screen, "csreg[bin]>");
        back = first && strstr(first + 1, "csreg[");
    }
    if (!back)
        fail_msg("no prompt 5 s after Ctrl-C:\n%s", screen);
    assert_int_equal(tmux_wait_for(&t, "interrupted", 3000, screen, sizeof screen), 0);
    assert_true(tmux_pane_alive(&t));
    tmux_literal(&t, "eval 1,2,3");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    assert_int_equal(tmux_wait_for(&t, "value: 98", 3000, screen, sizeof screen), 0);
    tmux_keys(&t, (const char *[]){"C-d", NULL});
    for (int i = 0; i < 100 && tmux_pane_alive(&t); i++)
        usleep(20000);
    assert_false(tmux_pane_alive(&t));
    tmux_stop(&t);
}

/* train on a terminal: the progress line (epoch, bar, %, ETA, loss, images/s)
 * while it runs, erased before the result. */
static void test_train_progress_line(void **state)
{
    (void)state;
    if (!tmux_available() || access("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz",
                                    R_OK) != 0)
        skip();
    tmux_session t;
    start(&t);
    tmux_literal(&t, "train model=mlp epochs=2 limit=30000");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    regex_t re;
    assert_int_equal(regcomp(&re,
                             "train epoch [12]/2 \\[[#.]+\\] +[0-9]+% +ETA [0-9hms-]+ +"
                             "loss [0-9]+\\.[0-9]{4} +[0-9]+ img/s",
                             REG_EXTENDED),
                     0);
    int seen = 0;
    for (int i = 0; i < 400 && !seen; i++) {
        assert_int_equal(tmux_screen(&t, screen, sizeof screen), 0);
        seen = regexec(&re, screen, 0, NULL, 0) == 0;
        if (!seen)
            usleep(50000);
    }
    regfree(&re);
    if (!seen)
        fail_msg("no progress line while training:\n%s", screen);
    assert_int_equal(tmux_wait_for(&t, "partial: no", 30000, screen, sizeof screen), 0);
    assert_int_equal(tmux_wait_for(&t, "csreg[bin nn=mlp/cpu]>", 3000, screen, sizeof screen),
                     0);
    assert_null(strstr(screen, "train epoch"));
    tmux_keys(&t, (const char *[]){"C-d", NULL});
    tmux_stop(&t);
}

/* No progress line with --json on a terminal, nor when stderr is a file. */
static void test_train_quiet(void **state)
{
    (void)state;
    if (!tmux_available() || access("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz",
                                    R_OK) != 0)
        skip();
    const char *bin = getenv("CSREG_BIN");
    bin = bin ? bin : "./csreg";
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "%s --json -e 'train model=mlp epochs=2 limit=30000'; echo TRAIN_DONE; sleep 30", bin);
    tmux_session t;
    assert_int_equal(tmux_start(&t, 100, 30, cmd), 0);
    int done = 0;
    for (int i = 0; i < 600 && !done; i++) {
        assert_int_equal(tmux_screen(&t, screen, sizeof screen), 0);
        if (strstr(screen, "train epoch"))
            fail_msg("a progress line with --json:\n%s", screen);
        done = strstr(screen, "TRAIN_DONE") != NULL;
        usleep(50000);
    }
    assert_true(done);
    assert_non_null(strstr(screen, "\"cmd\":\"train\""));
    tmux_stop(&t);
    char err[128];
    snprintf(err, sizeof err, "%s/train.err", state_dir);
    snprintf(cmd, sizeof cmd, "%s -e 'train model=mlp epochs=1 limit=3000' >/dev/null 2>%s", bin,
             err);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(err, "r");
    assert_non_null(f);
    assert_int_equal(fgetc(f), EOF);   /* nothing on stderr */
    fclose(f);
    unlink(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_completion_in_terminal),
        cmocka_unit_test(test_history_survives_restart),
        cmocka_unit_test(test_ctrl_c_drops_line),
        cmocka_unit_test(test_ctrl_c_interrupts_sweep),
        cmocka_unit_test(test_train_progress_line),
        cmocka_unit_test(test_train_quiet),
    };
    if (!tmux_available())
        fprintf(stderr, "tmux not installed: terminal tests skipped (apt-get install tmux)\n");
    return cmocka_run_group_tests_name("repl_tmux", tests, setup, teardown);
}
