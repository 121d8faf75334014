/* test_term_views.c — the views as a user sees them, from the real
 * binary: `landscape` without out= and without DISPLAY draws into the
 * terminal (an ASCII ramp through a pipe, 256-colour half blocks on a
 * terminal), and the workbench's demo (in tmux, 120×40) shows the feasible
 * set, a restart and how the run stopped, and takes no step after it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmux_util.h"

static char dir[64];
static char screen[262144];

static const char *bin(void)
{
    const char *b = getenv("CSREG_BIN");
    return b ? b : "./csreg";
}

/* stdout of a shell command line (DISPLAY unset) into a malloc'd string. */
static char *capture(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "env -u DISPLAY LC_ALL=C.UTF-8 %s %s 2>&1", bin(), args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    size_t got;
    while ((got = fread(out + len, 1, cap - 1 - len, p)) > 0) {
        len += got;
        if (len + 1 == cap)
            out = realloc(out, cap *= 2);
    }
    out[len] = '\0';
    assert_int_equal(pclose(p), 0);
    return out;
}

/* The rows of the ASCII map: the text after '|' of each row, into rows. */
static int map_rows(const char *out, char rows[][128], int max)
{
    int n = 0;
    for (const char *p = out; *p && n < max;) {
        const char *eol = strchr(p, '\n');
        if (!eol)
            break;
        const char *bar = memchr(p, '|', (size_t)(eol - p));
        if (bar && bar - p < 10) {
            size_t l = (size_t)(eol - bar - 1);
            memcpy(rows[n], bar + 1, l < 127 ? l : 127);
            rows[n][l < 127 ? l : 127] = '\0';
            n++;
        }
        p = eol + 1;
    }
    return n;
}

/* Through a pipe: an ASCII map of bin on -2:2, its target set (the two
 * diagonals, 'o') through the corners and the middle, low values (' ')
 * along them, high ('@') at the middle of the edges; the argmin said to be
 * on the box's boundary. */
static void test_landscape_pipe(void **state)
{
    (void)state;
    char *out = capture("-e landscape");
    static char rows[64][128];
    int n = map_rows(out, rows, 64);
    assert_int_equal(n, 31);
    int w = (int)strlen(rows[0]);
    assert_int_equal(w, 61);
    assert_int_equal(rows[0][0], 'o');
    assert_int_equal(rows[0][w - 1], 'o');
    assert_int_equal(rows[15][30], 'o');
    assert_int_equal(rows[30][0], 'o');
    assert_int_equal(rows[15][0], '@');    /* (−2, 0): ℓ = 16, the largest */
    assert_null(strstr(out, "\033["));     /* no colour into a pipe */
    assert_non_null(strstr(out, "o target set"));
    assert_non_null(strstr(out, "argmin_note: on the boundary of the box"));
    assert_non_null(strstr(out, "layers: target"));
    free(out);
    /* with a problem: the feasible set (~) and x* (*) */
    out = capture("-e 'problem bin N=2 M=1' -e landscape");
    n = map_rows(out, rows, 64);
    assert_int_equal(n, 31);
    int tilde = 0, star = 0;
    for (int r = 0; r < n; r++) {
        tilde += strchr(rows[r], '~') != NULL;
        star += strchr(rows[r], '*') != NULL;
    }
    assert_true(tilde >= 5);
    assert_int_equal(star, 1);
    assert_non_null(strstr(out, "~ feasible set Ax=b"));
    assert_non_null(strstr(out, "layers: target constraint xstar"));
    free(out);
    /* term=dumb keeps gnuplot's rendering */
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        out = capture("-e 'landscape term=dumb res=41'");
        assert_non_null(strstr(out, "landscape"));
        assert_null(strstr(out, "o target set"));
        free(out);
    }
}

/* On a terminal: half blocks in 256 colours, the feasible set in its
 * colour (xterm 201). */
static void test_landscape_tty(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "env -u DISPLAY LC_ALL=C.UTF-8 TERM=xterm-256color %s -e "
             "'problem bin N=2 M=1' -e landscape; echo LANDSCAPE_DONE; sleep 60", bin());
    assert_int_equal(tmux_start_retry(&t, 100, 50, cmd), 0);
    assert_int_equal(tmux_wait_for(&t, "LANDSCAPE_DONE", 20000, screen, sizeof screen), 0);
    assert_non_null(strstr(screen, "▀"));
    assert_non_null(strstr(screen, "feasible set Ax=b"));
    assert_int_equal(tmux_screen_colours(&t, screen, sizeof screen), 0);
    assert_non_null(strstr(screen, "5;201m"));   /* the feasible set's colour */
    assert_non_null(strstr(screen, "5;51m"));    /* the target set's */
    tmux_stop(&t);
}

/* Wait until the screen with colours has `needle`. */
static int wait_colours(tmux_session *t, const char *needle, int ms)
{
    for (int waited = 0; waited <= ms; waited += 100) {
        if (tmux_screen_colours(t, screen, sizeof screen) == 0 && strstr(screen, needle))
            return 0;
        usleep(100000);
    }
    return -1;
}

static long demo_iters(void)
{
    char *out = capture("--json -e 'seed 26' -e 'problem bin N=2 M=1' -e 'solve maxit=60'");
    const char *p = strstr(out, "\"iters\":");
    assert_non_null(p);
    long n = strtol(p + 8, NULL, 10);
    assert_non_null(strstr(out, "\"restarts\":2"));
    free(out);
    return n;
}

static void test_demo(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    long iters = demo_iters();
    tmux_session t;
    char cmd[1024], line[256];
    snprintf(cmd, sizeof cmd,
             "env LC_ALL=C.UTF-8 XDG_STATE_HOME=%s %s --demo; echo CSREG_EXITED rc=$?; sleep 60",
             dir, bin());
    assert_int_equal(tmux_start_retry(&t, 120, 40, cmd), 0);
    /* iteration 0: the start, x* and the feasible set are on the map */
    assert_int_equal(tmux_wait_for(&t, "iter 0, start 1/10", 20000, screen, sizeof screen), 0);
    assert_int_equal(tmux_wait_for(&t, "Ax=b", 20000, screen, sizeof screen), 0);
    assert_int_equal(wait_colours(&t, "5;201m", 20000), 0);  /* the line Ax = b */
    assert_int_equal(wait_colours(&t, "5;226m", 20000), 0);  /* the start */
    assert_int_equal(wait_colours(&t, "5;39m", 20000), 0);   /* x* */
    /* space runs; the first start settles on the other crossing and is cut
     * short (the rest of it in one step until=end), the restart succeeds */
    tmux_keys(&t, (const char *[]){"Space", NULL});
    assert_int_equal(tmux_wait_for(&t, "start 1 settled at iteration 4 on a point that is not x*",
                                   60000, screen, sizeof screen), 0);
    assert_int_equal(tmux_wait_for(&t, "> step until=end", 60000, screen, sizeof screen), 0);
    assert_int_equal(tmux_wait_for(&t, "restart: start 2 of 10", 60000, screen, sizeof screen),
                     0);
    snprintf(line, sizeof line, "stopped: oracle success at iter %ld (start 2)", iters - 60);
    assert_int_equal(tmux_wait_for(&t, line, 60000, screen, sizeof screen), 0);
    assert_non_null(strstr(screen, "start 2/10"));
    /* s after the end: a message, no step */
    tmux_keys(&t, (const char *[]){"s", NULL});
    assert_int_equal(tmux_wait_for(&t, "the solver has stopped: oracle success", 10000, screen,
                                   sizeof screen), 0);
    char session[128];
    snprintf(session, sizeof session, "%s/demo.csr", dir);
    tmux_keys(&t, (const char *[]){":", NULL});
    snprintf(line, sizeof line, "save session %s", session);
    tmux_literal(&t, line);
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    assert_int_equal(tmux_wait_for(&t, "commands:", 10000, screen, sizeof screen), 0);
    FILE *f = fopen(session, "r");
    assert_non_null(f);
    long steps = 0, cuts = 0;
    char l[512];
    while (fgets(l, sizeof l, f)) {
        steps += !strcmp(l, "step\n");
        cuts += !strcmp(l, "step until=end\n");
    }
    fclose(f);
    /* one step per iteration up to the cut (start 1 settled at 4: 7 steps
     * see it settle), the rest of start 1 in one line, then start 2's */
    assert_int_equal(cuts, 1);
    assert_int_equal(steps, 7 + iters - 60);
    /* b goes back one iteration (journaled as rewind) */
    tmux_keys(&t, (const char *[]){"b", NULL});
    snprintf(line, sizeof line, "> rewind %ld", iters - 61);
    assert_int_equal(tmux_wait_for(&t, line, 10000, screen, sizeof screen), 0);
    snprintf(line, sizeof line, "iter %ld, start 2/10", iters - 61);
    assert_int_equal(tmux_wait_for(&t, line, 10000, screen, sizeof screen), 0);
    tmux_keys(&t, (const char *[]){"q", NULL});
    assert_int_equal(tmux_wait_for(&t, "CSREG_EXITED rc=0", 10000, screen, sizeof screen), 0);
    unlink(session);
    tmux_stop(&t);
}

static int setup(void **state)
{
    (void)state;
    return tmux_state_dir(dir, sizeof dir, "csreg_views");
}

static int teardown(void **state)
{
    (void)state;
    tmux_state_dir_remove(dir);
    return 0;
}

int main(void)
{
    setenv("LC_ALL", "C.UTF-8", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_landscape_pipe),
        cmocka_unit_test(test_landscape_tty),
        cmocka_unit_test(test_demo),
    };
    return cmocka_run_group_tests_name("term views", tests, setup, teardown);
}
