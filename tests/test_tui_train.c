/* test_tui_train.c — the training view in a real terminal (tmux): a 2-epoch
 * mlp training typed at `:` is followed live (two screens taken while it
 * runs show `fc1 step N` with N advancing and the progress line), ends on
 * its last frame, `]` shows the next layer and is journaled as
 * `hist layer=fc2`, t goes to the solver view and back; a finetune at
 * 80×24 with the ASCII fallback is followed the same way, its status line
 * whole, and Esc cancels it with a message saying what the network keeps.
 * Skipped without tmux or the Fashion-MNIST package. */
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

#include "cs_nn.h"
#include "tmux_util.h"

static char dir[64];
static char screen[65536];

static int runnable(void)
{
    return tmux_available() &&
           access(CS_NN_DEFAULT_DATA "/train-images-idx3-ubyte.gz", R_OK) == 0;
}

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

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The last line of the screen (the status line). */
static const char *status_line(const char *scr, char *buf, size_t len)
{
    size_t n = strlen(scr);
    while (n && scr[n - 1] == '\n')
        n--;
    size_t b = n;
    while (b && scr[b - 1] != '\n')
        b--;
    snprintf(buf, len, "%.*s", (int)(n - b), scr + b);
    return buf;
}

/* The progress of a run in the status line, whole: epoch e/E, step, %,
 * ETA, images/s and the loss with its four decimals. */
static int running_status(const char *scr)
{
    char line[1024];
    status_line(scr, line, sizeof line);
    regex_t re;
    regcomp(&re,
            "epoch [12]/2 step [0-9]+/[0-9]+ [0-9]+% ETA [0-9hms-]+ [0-9]+ img/s loss "
            "[0-9]+\\.[0-9]{4}",
            REG_EXTENDED);
    int ok = regexec(&re, line, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

/* N of "LAYER step N" on the screen, -1 when absent. */
static long layer_step(const char *scr, const char *layer)
{
    char pat[64];
    snprintf(pat, sizeof pat, "%s step ", layer);
    const char *p = strstr(scr, pat);
    return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/* Two screens while the run goes: the layer's step there, then larger,
 * each with the progress line. Returns the screens' steps. */
static void two_screens_while_running(tmux_session *t, const char *layer, long *s1, long *s2,
                                      char *first, size_t len)
{
    *s1 = *s2 = -1;
    double t0 = now();
    while (now() - t0 < 30 && *s1 < 1) {
        assert_int_equal(tmux_screen(t, screen, sizeof screen), 0);
        if (running_status(screen))
            *s1 = layer_step(screen, layer);
        usleep(50000);
    }
    if (*s1 < 1)
        fail_msg("no '%s step N' with the progress line in 30 s:\n%s", layer, screen);
    snprintf(first, len, "%s", screen);
    while (now() - t0 < 45 && *s2 <= *s1) {
        usleep(50000);
        assert_int_equal(tmux_screen(t, screen, sizeof screen), 0);
        if (!running_status(screen))
            continue;
        long s = layer_step(screen, layer);
        if (s > *s1)
            *s2 = s;
    }
    if (*s2 <= *s1)
        fail_msg("'%s step %ld' did not advance while the run went on:\n%s", layer, *s1, screen);
}

static void quit(tmux_session *t)
{
    assert_int_equal(tmux_keys(t, (const char *[]){"q", NULL}), 0);
    assert_int_equal(tmux_wait_for(t, "CSREG_EXITED rc=0", 5000, screen, sizeof screen), 0);
    tmux_stop(t);
}

static char first_screen[65536];

static void test_train_view_120x40(void **state)
{
    (void)state;
    if (!runnable())
        skip();
    tmux_session t;
    start(&t, 120, 40, "");
    command(&t, "train model=mlp epochs=2 reg=bin lambda=10");
    long s1, s2;
    two_screens_while_running(&t, "fc1", &s1, &s2, first_screen, sizeof first_screen);
    print_message("captured fc1 step %ld, then step %ld while training\n", s1, s2);
    static const char *const parts[] = {"Curves", "Training", "Histogram", "near1%", "±α",
                                        "loss ", "test acc "};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (!strstr(first_screen, parts[i]))
            fail_msg("'%s' missing from the training view:\n%s", parts[i], first_screen);
    /* the end: the last frame stays, and a message says so */
    wait_for(&t, "train done at step 936", 60000);
    wait_for(&t, "fc1 step 936", 3000);
    /* ] shows fc2 (a journaled command), l log counts */
    assert_int_equal(tmux_keys(&t, (const char *[]){"]", NULL}), 0);
    wait_for(&t, "fc2 step 936", 3000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"l", NULL}), 0);
    wait_for(&t, "outside, log", 3000);
    char line[256], path[160];
    snprintf(path, sizeof path, "%s/train.csr", dir);
    snprintf(line, sizeof line, "save session %s force=on", path);
    command(&t, line);
    wait_for(&t, "commands:", 5000);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    if (!strstr(buf, "\ntrain model=mlp epochs=2 reg=bin lambda=10\nhist layer=fc2\n"))
        fail_msg("the journal lacks train then hist layer=fc2:\n%s", buf);
    /* t: the solver view, and back */
    assert_int_equal(tmux_keys(&t, (const char *[]){"t", NULL}), 0);
    wait_for(&t, "Regularizers", 3000);
    assert_null(strstr(screen, "Curves"));
    assert_int_equal(tmux_keys(&t, (const char *[]){"t", NULL}), 0);
    wait_for(&t, "Curves", 3000);
    quit(&t);
}

static void test_finetune_view_80x24_ascii_cancel(void **state)
{
    (void)state;
    if (!runnable())
        skip();
    tmux_session t;
    start(&t, 80, 24, "CSREG_TUI_ASCII=1");
    command(&t, "train model=mlp epochs=1 limit=20000 reg=bin lambda=10");
    wait_for(&t, "train done at step", 30000);
    command(&t, "quantize bin");
    /* its table, taller than the messages, opens the pager: wait for it and
     * close it before typing on (typed while quantize ran, the next line
     * would keep the pager shut; typed after, the pager would take it) */
    wait_for(&t, "model size:", 30000);
    assert_int_equal(tmux_keys(&t, (const char *[]){"q", NULL}), 0);
    command(&t, "eval 1,2,3");
    wait_for(&t, "value: 98", 20000);
    command(&t, "finetune epochs=2 limit=0");
    long s1, s2;
    two_screens_while_running(&t, "fc1", &s1, &s2, first_screen, sizeof first_screen);
    print_message("captured fc1 step %ld, then step %ld while fine-tuning\n", s1, s2);
    if (!strstr(first_screen, "finetune mlp 784-512-512-10") || !strstr(first_screen, "+-a"))
        fail_msg("not the finetune view (ASCII):\n%s", first_screen);
    /* Esc cancels: the network keeps its last completed step, and says so */
    assert_int_equal(tmux_keys(&t, (const char *[]){"Escape", NULL}), 0);
    wait_for(&t, "the network keeps that step", 20000);
    assert_non_null(strstr(screen, "finetune cancelled at step"));
    quit(&t);
}

static int setup(void **state)
{
    (void)state;
    return tmux_state_dir(dir, sizeof dir, "csreg_train");
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
        cmocka_unit_test(test_train_view_120x40),
        cmocka_unit_test(test_finetune_view_80x24_ascii_cancel),
    };
    if (!runnable())
        fprintf(stderr, "tmux or the Fashion-MNIST package missing: training view tests "
                        "skipped\n");
    return cmocka_run_group_tests_name("tui_train", tests, setup, teardown);
}
