/* test_tui_touch.c — the workbench as a student touches and reads it (tmux):
 * - touch: Shift+Right moves the start and runs it at once (journaled as
 *   step until=end x0=X,Y), a click on the map puts the start there, > adds
 *   an equation (problem ... M=2);
 * - the pager: `help` typed opens it (taller than the messages), / finds a
 *   term, q closes, o opens it again; `?` lists the keys and the markers;
 * - numbers in the messages are rounded for reading, --json keeps them;
 * - no stale panel: after `reg ter` the Regularizers detail is ter's, the
 *   Solver names what is loaded and the Landscape draws no run of another
 *   method;
 * - nothing cut at 80×24: the Solver's lines end at whole clauses and the
 *   legend's entries are whole, on as many rows as they need.
 * Skipped without tmux. */
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
static char screen[65536];

static void start(tmux_session *t, int w, int h, const char *args)
{
    assert_int_equal(tmux_start_workbench(t, w, h, dir, "TERM=xterm-256color", args), 0);
    assert_int_equal(tmux_wait_for(t, "Histogram", 5000, screen, sizeof screen), 0);
}

static void wait_for(tmux_session *t, const char *needle, int ms)
{
    if (tmux_wait_for(t, needle, ms, screen, sizeof screen) != 0)
        fail_msg("no '%s' within %d ms:\n%s", needle, ms, screen);
}

static void key(tmux_session *t, const char *k)
{
    assert_int_equal(tmux_keys(t, (const char *const[]){k, NULL}), 0);
}

static void command(tmux_session *t, const char *line)
{
    assert_int_equal(tmux_command(t, line), 0);
}

static void quit(tmux_session *t)
{
    key(t, "q");
    wait_for(t, "CSREG_EXITED rc=0", 5000);
    tmux_stop(t);
}

/* The row of the screen holding needle (a copy), "" when none. */
static void row_of(const char *scr, const char *needle, char *out, size_t len)
{
    const char *p = strstr(scr, needle);
    out[0] = '\0';
    if (!p)
        return;
    const char *b = p;
    while (b > scr && b[-1] != '\n')
        b--;
    size_t n = strcspn(b, "\n");
    snprintf(out, len, "%.*s", (int)n, b);
}

static void test_touch(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t, 120, 40, "--demo");
    wait_for(&t, "iter 0, start 1/10", 10000);
    /* the start a twentieth of the box to the right: a new run from it, at once */
    key(&t, "S-Right");
    wait_for(&t, "> step until=end x0=", 5000);
    wait_for(&t, "start 1 ", 5000);
    char row[512];
    row_of(screen, "> step until=end x0=", row, sizeof row);
    double x, y;
    assert_int_equal(sscanf(strstr(row, "x0=") + 3, "%lf,%lf", &x, &y), 2);
    /* the demo's start 1 begins at (-1.2686, -1.0637): 0.2 to the right */
    assert_true(x > -1.07 && x < -1.06 && y > -1.07 && y < -1.06);
    /* a click on the map (SGR mouse report: column 40, row 15, 1-based);
     * again when the first report came apart on its way */
    int clicked = 0;
    for (int tries = 0; tries < 3 && !clicked; tries++) {
        assert_int_equal(tmux_literal(&t, "\033[<0;40;15M"), 0);
        assert_int_equal(tmux_literal(&t, "\033[<0;40;15m"), 0);
        clicked = tmux_wait_for(&t, "> step until=end x0=-1.7", 3000, screen, sizeof screen) == 0;
    }
    if (!clicked)
        fail_msg("the click did not move the start:\n%s", screen);
    /* > : one more equation */
    key(&t, ">");
    wait_for(&t, "> problem bin N=2 M=2", 5000);
    wait_for(&t, "bin N=2 M=2, no run yet", 5000);
    quit(&t);
}

/* The screen column of p (UTF-8 characters from the start of its row). */
static int column_of(const char *scr, const char *p)
{
    const char *b = p;
    while (b > scr && b[-1] != '\n')
        b--;
    int col = 0;
    for (; b < p; b++)
        col += ((unsigned char)*b & 0xc0) != 0x80;
    return col;
}

/* needle is shown inside the Solver panel (at or right of its frame). */
static int solver_has(const char *scr, const char *needle)
{
    const char *s = strstr(scr, "┌─ Solver");
    if (!s)
        return 0;
    int left = column_of(scr, s);
    for (const char *p = scr; (p = strstr(p, needle)); p++)
        if (p > s && column_of(scr, p) > left)
            return 1;
    return 0;
}

/* ( ) scale x* and { } change lambda, each by a command the journal
 * records, and the panels redraw: the Solver names the new value, the map
 * the new problem (its box grown with x*) or the new run's path. */
static void test_scale_and_lambda(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t, 120, 40, "--demo");
    wait_for(&t, "iter 0, start 1/10", 10000);
    /* lambda on an affine run: said, nothing sent */
    key(&t, "}");
    wait_for(&t, "lambda does not apply to bin", 5000);
    assert_null(strstr(screen, "> step until=end lambda="));
    /* ) : x* twice as large, the same draw; the box grows to show it */
    key(&t, ")");
    wait_for(&t, "> problem bin N=2 M=1 scale=2", 5000);
    wait_for(&t, "x* scale=2", 5000);
    assert_true(solver_has(screen, "x* scale=2"));
    wait_for(&t, "> view x=-4:4 y=-4:4", 5000);
    wait_for(&t, "  4┤", 5000);          /* the map's axis: the new box */
    assert_non_null(strstr(screen, "★x*"));
    /* l_bin recovers the scaled x* by itself */
    command(&t, "solve");
    wait_for(&t, "stopped    success", 20000);
    assert_true(solver_has(screen, "x* scale=2"));
    key(&t, "(");   /* and back */
    wait_for(&t, "> problem bin N=2 M=1", 5000);
    wait_for(&t, "bin N=2 M=1, no run yet", 5000);
    assert_null(strstr(screen, "x* scale="));
    /* a noisy b fitted by least squares: lambda applies */
    command(&t, "problem bin N=2 M=1 noise=0.1");
    command(&t, "step until=end fit=ls lambda=0.1");
    wait_for(&t, "λ=0.1 ", 10000);
    key(&t, "}");
    wait_for(&t, "> step until=end lambda=1", 5000);
    wait_for(&t, "λ=1 ", 10000);
    assert_true(solver_has(screen, "bin fit=ls, λ=1"));
    assert_non_null(strstr(screen, "▀path"));   /* the new run's path, drawn */
    assert_non_null(strstr(screen, "iter "));
    key(&t, "{");   /* each press from the value on the screen */
    wait_for(&t, "> step until=end lambda=0.1", 10000);
    wait_for(&t, "λ=0.1 ", 10000);
    key(&t, "{");
    wait_for(&t, "> step until=end lambda=0.01", 10000);
    wait_for(&t, "λ=0.01 ", 10000);
    /* the keys are in the help */
    key(&t, "?");
    wait_for(&t, "┌─ Keys", 5000);
    wait_for(&t, "( / )", 3000);
    assert_non_null(strstr(screen, "{ / }"));
    key(&t, "q");
    quit(&t);
}

static void test_pager_and_numbers(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t, 100, 30, "");
    command(&t, "help");
    wait_for(&t, "┌─ help (", 5000);
    wait_for(&t, "lines 1-", 3000);   /* the footer, drawn after the frame's top */
    key(&t, "/");
    assert_int_equal(tmux_literal(&t, "nnreport"), 0);
    key(&t, "Enter");
    wait_for(&t, "nnreport [out=FILE.csv]", 5000);
    key(&t, "q");
    usleep(300000);
    assert_int_equal(tmux_screen(&t, screen, sizeof screen), 0);
    assert_null(strstr(screen, "┌─ help ("));
    key(&t, "o");   /* again */
    wait_for(&t, "┌─ help (", 5000);
    key(&t, "q");
    /* the keys and the markers, in the pager */
    key(&t, "?");
    wait_for(&t, "┌─ Keys", 5000);
    wait_for(&t, "Every key runs a command", 3000);
    key(&t, "G");   /* the end (End's code differs between tmux and TERM) */
    wait_for(&t, "x*, the solution (sky blue)", 3000);
    key(&t, "Escape");
    /* numbers rounded in the messages: bin's gradient at (0.1234567, 1)
     * is -0.4863... and 3.939... */
    command(&t, "eval 0.1234567,1");
    wait_for(&t, "grad: -0.4863 3.939", 10000);
    quit(&t);
    /* --json keeps every digit */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --json -e 'eval 0.1234567,1'", tmux_csreg_bin());
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[8192];
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = '\0';
    pclose(p);
    assert_non_null(strstr(out, "\"grad\":[-0.4863001107908378,"));
    const char *g = strstr(out, "\"grad\":[");
    assert_true(strcspn(g + 8, ",") > 8);   /* every digit */
}

static void test_no_stale_panels(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t, 120, 40, "");
    command(&t, "problem bin N=2 M=1");
    command(&t, "solve");
    wait_for(&t, "stopped    success", 10000);
    command(&t, "reg ter");
    wait_for(&t, "no ter run yet", 5000);
    wait_for(&t, "─ ter", 3000);   /* the Regularizers detail follows */
    static const char *const shown[] = {"bin N=2 M=1, reg ter", "(bin's run not drawn)", NULL};
    for (size_t k = 0; shown[k]; k++)
        if (!strstr(screen, shown[k]))
            fail_msg("no '%s':\n%s", shown[k], screen);
    if (strstr(screen, "iterate"))   /* no path, no iterate in the legend */
        fail_msg("the old run's iterate is drawn:\n%s", screen);
    quit(&t);
}

/* Every row of the Solver and every legend entry whole at 80×24. */
static void test_80x24_whole(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t, 80, 24, "--demo");
    wait_for(&t, "iter 0, start 1/10", 10000);
    key(&t, "S");
    wait_for(&t, "iter 10,", 5000);
    /* the legend: each entry whole, over two rows */
    static const char *const entries[] = {"target", "Ax=b", "x*", "start", "path", "iterate",
                                          NULL};
    for (size_t k = 0; entries[k]; k++) {
        char e[32];
        snprintf(e, sizeof e, "%s ", entries[k]);
        if (!strstr(screen, e))
            fail_msg("legend entry '%s' not whole at 80x24:\n%s", entries[k], screen);
    }
    /* the Solver: the header ends at a clause, no row runs into the frame */
    char row[512];
    row_of(screen, "iter 10,", row, sizeof row);
    assert_non_null(strstr(row, "start 1/10 "));
    assert_null(strstr(row, "start 1/10, b"));
    row_of(screen, "method ", row, sizeof row);
    assert_non_null(strstr(row, "bin"));
    /* the verdict row is inside the frame, not on it */
    assert_null(strstr(screen, "└─success"));
    assert_null(strstr(screen, "└─stopped"));
    quit(&t);
}

static int setup(void **state)
{
    (void)state;
    return tmux_state_dir(dir, sizeof dir, "csreg_touch");
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
        cmocka_unit_test(test_touch),
        cmocka_unit_test(test_scale_and_lambda),
        cmocka_unit_test(test_pager_and_numbers),
        cmocka_unit_test(test_no_stale_panels),
        cmocka_unit_test(test_80x24_whole),
    };
    return cmocka_run_group_tests_name("tui touch", tests, setup, teardown);
}
