/* test_tui.c — the full-screen workbench in a real terminal (tmux): pick
 * `ter` with the keys, set up a problem on the command line, step 5 times,
 * and read the screen: the four panel titles, `iter 5`, a landscape that
 * changed; the same at 80×24 (ASCII fallback there); a resize; `save
 * session` replayed by `csreg run` gives the same solver state; quitting
 * leaves the terminal's normal screen. Skipped without tmux. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "tmux_util.h"

static char dir[64];
static char screen[65536];

/* The workbench, its panels drawn. */
static void start(tmux_session *t, int w, int h, const char *extra_env)
{
    assert_int_equal(tmux_start_workbench(t, w, h, dir, extra_env, ""), 0);
    assert_int_equal(tmux_wait_for(t, "Histogram", 5000, screen, sizeof screen), 0);
}

static void keys(tmux_session *t, const char *const *k) { assert_int_equal(tmux_keys(t, k), 0); }

static void command(tmux_session *t, const char *line)
{
    assert_int_equal(tmux_command(t, line), 0);
}

/* One tmux query (display-message -p FORMAT) into out. */
static int tmux_query(tmux_session *t, const char *format, char *out, size_t len)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "tmux -L %s display-message -p -t %s '%s' 2>/dev/null", t->socket,
             t->name, format);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t got = fread(out, 1, len - 1, p);
    out[got] = '\0';
    out[strcspn(out, "\n")] = '\0';
    return pclose(p) == 0 ? 0 : -1;
}

static int is_corner(wchar_t c, int left)
{
    return left ? (c == L'┌' || c == L'l' || c == L'+') : (c == L'┐' || c == L'k' || c == L'+');
}

/* The Landscape panel's text: the columns between its frame, from the
 * title row to the bottom frame, as one wide string. */
static void landscape_text(const char *scr, wchar_t *out, size_t len)
{
    out[0] = L'\0';
    static wchar_t wide[65536];
    size_t n = mbstowcs(wide, scr, sizeof wide / sizeof *wide - 1);
    assert_true(n != (size_t)-1);
    wide[n] = L'\0';
    wchar_t *title = wcsstr(wide, L"Landscape");
    assert_non_null(title);
    wchar_t *row = title;
    while (row > wide && row[-1] != L'\n')
        row--;
    long col = title - row, left = col, right = col;
    while (left > 0 && !is_corner(row[left], 1))
        left--;
    while (row[right] && row[right] != L'\n' && !is_corner(row[right], 0))
        right++;
    size_t used = 0;
    for (wchar_t *r = row; *r;) {
        wchar_t *eol = wcschr(r, L'\n');
        long rl = eol ? eol - r : (long)wcslen(r);
        for (long c = left; c <= right && c < rl && used + 2 < len; c++)
            out[used++] = r[c];
        out[used++] = L'\n';
        out[used] = L'\0';
        if (!eol || used + 2 >= len)
            break;
        r = eol + 1;
    }
}

/* The number after `label` on the screen, as text. */
static void screen_value(const char *scr, const char *label, char *out, size_t len)
{
    const char *p = strstr(scr, label);
    assert_non_null(p);
    p += strlen(label);
    p += strspn(p, " ");
    size_t n = strcspn(p, " \n│|");
    assert_true(n > 0 && n < len);
    memcpy(out, p, n);
    out[n] = '\0';
}

static void quit_and_check_terminal(tmux_session *t)
{
    keys(t, (const char *[]){"q", NULL});
    assert_int_equal(tmux_wait_for(t, "CSREG_EXITED rc=0", 5000, screen, sizeof screen), 0);
    char alt[32];
    assert_int_equal(tmux_query(t, "#{alternate_on}", alt, sizeof alt), 0);
    assert_string_equal(alt, "0");
    /* no panel is left behind on the normal screen */
    assert_null(strstr(screen, "Regularizers"));
    tmux_stop(t);
}

/* Pick ter with the keys, set up the problem, step 5 times. Returns with
 * the screen after the steps in `screen`; *before gets the Landscape panel
 * just after the problem was set up, *after the one after the steps. */
static void pick_problem_step(tmux_session *t, wchar_t *before, wchar_t *after, size_t len)
{
    keys(t, (const char *[]){"p", NULL});
    usleep(100000);
    keys(t, (const char *[]){"Down", "Down", "Enter", NULL});
    assert_int_equal(tmux_wait_for(t, "reg ter", 3000, screen, sizeof screen), 0);
    command(t, "problem ter N=100 M=60");
    assert_int_equal(tmux_wait_for(t, "N=100 M=60", 5000, screen, sizeof screen), 0);
    usleep(300000);
    assert_int_equal(tmux_screen(t, screen, sizeof screen), 0);
    landscape_text(screen, before, len);
    for (int i = 0; i < 5; i++)
        keys(t, (const char *[]){"s", NULL});
    assert_int_equal(tmux_wait_for(t, "iter 5,", 5000, screen, sizeof screen), 0);
    usleep(300000);  /* let the last snapshot land */
    assert_int_equal(tmux_screen(t, screen, sizeof screen), 0);
    assert_int_equal(tmux_wait_for(t, "iter 5,", 3000, screen, sizeof screen), 0);
    landscape_text(screen, after, len);
    static const char *const titles[] = {"Regularizers", "Landscape", "Solver", "Histogram"};
    for (size_t i = 0; i < 4; i++)
        if (!strstr(screen, titles[i]))
            fail_msg("panel title %s missing from\n%s", titles[i], screen);
    if (wcscmp(before, after) == 0)
        fail_msg("the landscape did not change after 5 steps:\n%s", screen);
}

static wchar_t land_a[16384], land_b[16384];

static void test_tui_120x40(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t, 120, 40, "");
    pick_problem_step(&t, land_a, land_b, sizeof land_a / sizeof *land_a);
    char objective[64];
    screen_value(screen, "objective", objective, sizeof objective);

    /* the journal replays to the same state */
    char session[160], line[256];
    snprintf(session, sizeof session, "%s/tui.csr", dir);
    snprintf(line, sizeof line, "save session %s", session);
    command(&t, line);
    assert_int_equal(tmux_wait_for(&t, "commands:", 3000, screen, sizeof screen), 0);

    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --json run %s", tmux_csreg_bin(), session);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[4096], last_step[4096] = "";
    int steps = 0;
    while (fgets(out, sizeof out, p))
        if (strstr(out, "\"cmd\":\"step\"")) {
            snprintf(last_step, sizeof last_step, "%s", out);
            steps++;
        }
    assert_int_equal(pclose(p), 0);
    assert_int_equal(steps, 5);
    const char *it = strstr(last_step, "\"iter\":");
    assert_non_null(it);
    assert_int_equal(atol(it + 7), 5);
    const char *ob = strstr(last_step, "\"objective\":");
    assert_non_null(ob);
    char replayed[64];
    snprintf(replayed, sizeof replayed, "%.6g", strtod(ob + 12, NULL));
    assert_string_equal(replayed, objective);

    /* a resize redraws every panel */
    snprintf(cmd, sizeof cmd, "tmux -L %s resize-window -t %s -x 96 -y 30 2>/dev/null",
             t.socket, t.name);
    assert_int_equal(system(cmd), 0);
    usleep(400000);
    assert_int_equal(tmux_wait_for(&t, "iter 5,", 3000, screen, sizeof screen), 0);
    assert_int_equal(tmux_wait_for(&t, "Landscape", 3000, screen, sizeof screen), 0);
    assert_int_equal(tmux_wait_for(&t, "Histogram", 3000, screen, sizeof screen), 0);
    quit_and_check_terminal(&t);
}

static void test_tui_80x24_ascii(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t, 80, 24, "CSREG_TUI_ASCII=1");
    pick_problem_step(&t, land_a, land_b, sizeof land_a / sizeof *land_a);
    assert_int_equal(tmux_wait_for(&t, "log10", 3000, screen, sizeof screen), 0);  /* the ASCII legend */
    /* the keys in the pager, Esc closes it */
    keys(&t, (const char *[]){"?", NULL});
    assert_int_equal(tmux_wait_for(&t, "Keys", 3000, screen, sizeof screen), 0);
    assert_int_equal(tmux_wait_for(&t, "run / pause", 3000, screen, sizeof screen), 0);
    keys(&t, (const char *[]){"Escape", NULL});
    quit_and_check_terminal(&t);
}

static void test_tui_demo_runs_and_zooms(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    assert_int_equal(tmux_start_workbench(&t, 120, 40, dir, "", "--demo"), 0);
    assert_int_equal(tmux_wait_for(&t, "iter 0", 5000, screen, sizeof screen), 0);
    /* the hint line may land in a later frame than the panels */
    assert_int_equal(tmux_wait_for(&t, "press s to step", 5000, screen, sizeof screen), 0);
    /* space runs the animation; it advances on its own */
    keys(&t, (const char *[]){"Space", NULL});
    assert_int_equal(tmux_wait_for(&t, "iter 3,", 5000, screen, sizeof screen), 0);
    keys(&t, (const char *[]){"Space", NULL});
    /* zoom issues a view command, which the journal keeps */
    keys(&t, (const char *[]){"+", NULL});
    assert_int_equal(tmux_wait_for(&t, "view x=-1.33333:1.33333", 3000, screen, sizeof screen),
                     0);
    quit_and_check_terminal(&t);
}

/* A long command runs in the worker: the keys still answer (the help
 * opens), the status line shows its progress, Esc cancels it, and the
 * session goes on. */
static void test_tui_long_command_cancels(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t, 120, 40, "");
    command(&t, "sweep kind=bin methods=bin N=200 gamma=0.3:0.1:0.9 trials=2000 restarts=1 "
                "threads=1");
    assert_int_equal(tmux_wait_for(&t, "Esc cancels", 5000, screen, sizeof screen), 0);
    keys(&t, (const char *[]){"?", NULL});
    assert_int_equal(tmux_wait_for(&t, "this help", 2000, screen, sizeof screen), 0);
    keys(&t, (const char *[]){"Escape", NULL});  /* closes the help */
    usleep(200000);
    keys(&t, (const char *[]){"Escape", NULL});  /* cancels */
    assert_int_equal(tmux_wait_for(&t, "cancelling...", 3000, screen, sizeof screen), 0);
    assert_int_equal(tmux_wait_for(&t, "error: sweep", 10000, screen, sizeof screen), 0);
    command(&t, "eval 1,2,3");
    assert_int_equal(tmux_wait_for(&t, "value: 98", 5000, screen, sizeof screen), 0);
    quit_and_check_terminal(&t);
}

/* The Histogram panel shows the network's weights after training (the
 * training view's last frame; t: the solver view's, the layer named), the
 * iterate again after a step, and the layer/row that `hist` chose. */

static void test_tui_hist_weights(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    if (access("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz", R_OK) != 0)
        skip();
    tmux_session t;
    start(&t, 120, 40, "");
    command(&t, "problem bin N=20 M=10");
    keys(&t, (const char *[]){"s", NULL});
    assert_int_equal(tmux_wait_for(&t, "20 entries, peak", 5000, screen, sizeof screen), 0);
    command(&t, "train model=mlp limit=256 epochs=1 hidden=16");
    assert_int_equal(tmux_wait_for(&t, "fc1 step 2", 20000, screen, sizeof screen), 0);
    assert_int_equal(tmux_wait_for(&t, "train done at step 2", 20000, screen, sizeof screen), 0);
    keys(&t, (const char *[]){"t", NULL});
    assert_int_equal(tmux_wait_for(&t, "weights fc1: 12544 values", 20000, screen,
                                   sizeof screen), 0);
    keys(&t, (const char *[]){"s", NULL});
    assert_int_equal(tmux_wait_for(&t, "20 entries, peak", 5000, screen, sizeof screen), 0);
    command(&t, "hist layer=fc2 row=3");
    /* its table is longer than the messages: the pager shows it, q closes */
    assert_int_equal(tmux_wait_for(&t, "hist layer=fc2 row=3 (", 5000, screen, sizeof screen), 0);
    keys(&t, (const char *[]){"q", NULL});
    assert_int_equal(tmux_wait_for(&t, "weights fc2 row 3: 16 values", 5000, screen,
                                   sizeof screen), 0);
    quit_and_check_terminal(&t);
}

/* The screen as rows of wide characters. */
static size_t screen_rows(const char *scr, wchar_t rows[][256], size_t max)
{
    static wchar_t wide[65536];
    size_t n = mbstowcs(wide, scr, sizeof wide / sizeof *wide - 1);
    assert_true(n != (size_t)-1);
    wide[n] = L'\0';
    size_t k = 0;
    for (wchar_t *r = wide; *r && k < max; k++) {
        wchar_t *eol = wcschr(r, L'\n');
        size_t len = eol ? (size_t)(eol - r) : wcslen(r);
        len = len < 255 ? len : 255;
        wmemcpy(rows[k], r, len);
        rows[k][len] = L'\0';
        if (!eol)
            break;
        r = eol + 1;
    }
    return k;
}

static size_t wcount(const wchar_t *s, wchar_t c)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

/* 80x24 reads whole: the hint line starts with the ways out, the welcome
 * wraps instead of being cut, the highlighted regularizer's formula is
 * whole, the map's cells are square, + then - journals the box it came
 * from, p on the Landscape says what it did, the ? overlay keeps its text
 * inside its frame, and the Histogram's title never ends on "peak". */
static void test_tui_80x24_reads(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    tmux_session t;
    start(&t, 80, 24, "");
    assert_int_equal(tmux_wait_for(&t, "? for the keys.", 3000, screen, sizeof screen), 0);
    static wchar_t rows[64][256];
    size_t n = screen_rows(screen, rows, 64);
    assert_int_equal(n, 24);
    assert_true(wcsncmp(rows[23], L" ? help  q quit  : command", 26) == 0);
    assert_non_null(strstr(screen, "Welcome to csreg."));
    /* the whole formula of bin, wrapped under the list */
    assert_non_null(strstr(screen, "N*sum(x^4) -"));
    assert_non_null(strstr(screen, "(sum(x^2))^2;"));
    assert_non_null(strstr(screen, "{-a,+a}^N for"));
    /* square cells: as many pixels across as down (two per text row) */
    size_t map_rows = 0, map_cols = 0;
    for (size_t r = 0; r < n; r++)
        if (wcount(rows[r], L'▀') >= 5 && !wcsstr(rows[r], L"log")) {
            map_rows++;
            map_cols = wcount(rows[r], L'▀');
        }
    if (!(map_cols + 1 >= 2 * map_rows - 1 && map_cols <= 2 * map_rows))
        fail_msg("map %zu columns x %zu rows (%zu pixels) is not square:\n%s", map_cols,
                 map_rows, 2 * map_rows, screen);
    /* zoom in and back out: the very box it came from */
    keys(&t, (const char *[]){"+", NULL});
    assert_int_equal(tmux_wait_for(&t, "view x=-1.33333:1.33333 y=-1.33333:1.33333", 3000, screen,
                                   sizeof screen), 0);
    keys(&t, (const char *[]){"-", NULL});
    assert_int_equal(tmux_wait_for(&t, "> view x=-2:2 y=-2:2", 3000, screen, sizeof screen), 0);
    /* p with the Landscape focused says what it did */
    keys(&t, (const char *[]){"Tab", NULL});
    usleep(100000);
    keys(&t, (const char *[]){"p", NULL});
    assert_int_equal(tmux_wait_for(&t, "Regularizers: Up/Down choose", 3000, screen,
                                   sizeof screen), 0);
    keys(&t, (const char *[]){"Tab", NULL});
    /* the keys in the pager: each row's text ends inside the frame */
    keys(&t, (const char *[]){"?", NULL});
    /* its footer, the last row drawn: the capture holds the whole overlay
     * (a slow build was caught mid-draw waiting for the first line) */
    assert_int_equal(tmux_wait_for(&t, "q closes", 3000, screen, sizeof screen), 0);
    assert_non_null(strstr(screen, "Every key runs a command"));
    n = screen_rows(screen, rows, 64);
    size_t top = 0, left = 0, right = 0;
    for (size_t r = 0; r < n && !right; r++) {
        wchar_t *k = wcsstr(rows[r], L"┌─ Keys");
        if (k) {
            top = r;
            left = (size_t)(k - rows[r]);
            right = (size_t)(wcschr(k, L'┐') - rows[r]);
        }
    }
    assert_true(right > 0);
    for (size_t r = top + 1; r < n && rows[r][left] != L'└'; r++)
        if (wcslen(rows[r]) <= right || rows[r][right] != L'│')
            fail_msg("overlay row %zu has no right frame:\n%s", r, screen);
    keys(&t, (const char *[]){"Escape", NULL});
    if (access("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz", R_OK) == 0) {
        command(&t, "train model=mlp limit=600 epochs=1");
        assert_int_equal(tmux_wait_for(&t, "train done at step", 20000, screen, sizeof screen),
                         0);
        keys(&t, (const char *[]){"t", NULL});
        assert_int_equal(tmux_wait_for(&t, "weights fc1: 401408", 5000, screen, sizeof screen),
                         0);
        const char *title = strstr(screen, "weights fc1: 401408");
        const char *eol = strstr(title, "│");
        assert_non_null(eol);
        char head[128];
        snprintf(head, sizeof head, "%.*s", (int)(eol - title), title);
        if (strstr(head, "peak") && !strstr(head, "peak "))
            fail_msg("title cut after 'peak': '%s'", head);
        size_t hl = strlen(head);
        while (hl && head[hl - 1] == ' ')
            head[--hl] = '\0';
        assert_false(hl >= 4 && !strcmp(head + hl - 4, "peak"));
    }
    quit_and_check_terminal(&t);
}

/* Your own problem in the workbench: a drawn problem's A, b and x* saved
 * by `csreg -e ... problem save`, loaded with `:problem file` and solved
 * with `:solve`: the Solver panel shows its N and M, success, and the
 * error to x* that solving the drawn problem gives. */
static void test_tui_problem_file(void **state)
{
    (void)state;
    if (!tmux_available())
        skip();
    char cmd[1024], out[4096], want[64] = "";
    snprintf(cmd, sizeof cmd, "%s --json -e 'problem bin N=30 M=20' -e 'problem save dir=%s/pf' "
             "-e solve", tmux_csreg_bin(), dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    while (fgets(out, sizeof out, p)) {
        const char *e = strstr(out, "\"rel_err\":");
        if (strstr(out, "\"cmd\":\"solve\"") && e)
            snprintf(want, sizeof want, "%.6g", strtod(e + 10, NULL));
    }
    assert_int_equal(pclose(p), 0);
    assert_true(want[0]);

    tmux_session t;
    start(&t, 120, 40, "");
    snprintf(cmd, sizeof cmd, "problem file A=%s/pf/A.npy b=%s/pf/b.npy xstar=%s/pf/xstar.npy",
             dir, dir, dir);
    command(&t, cmd);
    assert_int_equal(tmux_wait_for(&t, "has_xstar: yes", 5000, screen, sizeof screen), 0);
    /* the head line follows the worker's next snapshot (later under ASan) */
    assert_int_equal(tmux_wait_for(&t, "problem bin N=30 M=20", 5000, screen, sizeof screen), 0);
    command(&t, "solve");
    assert_int_equal(tmux_wait_for(&t, "success, oracle", 5000, screen, sizeof screen), 0);
    usleep(300000);  /* let the last snapshot land */
    assert_int_equal(tmux_wait_for(&t, "success, oracle", 3000, screen, sizeof screen), 0);
    assert_non_null(strstr(screen, "Solver"));
    assert_non_null(strstr(screen, "problem bin N=30 M=20"));   /* the head line */
    char err[64];
    screen_value(screen, "err to x*", err, sizeof err);
    assert_string_equal(err, want);
    quit_and_check_terminal(&t);
}

static int setup(void **state)
{
    (void)state;
    return tmux_state_dir(dir, sizeof dir, "csreg_tui");
}

static int teardown(void **state)
{
    (void)state;
    tmux_state_dir_remove(dir);
    return 0;
}

int main(void)
{
    /* tmux prints the screen as UTF-8 for a UTF-8 client */
    setenv("LC_ALL", "C.UTF-8", 1);
    setlocale(LC_ALL, "");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tui_120x40),
        cmocka_unit_test(test_tui_80x24_ascii),
        cmocka_unit_test(test_tui_80x24_reads),
        cmocka_unit_test(test_tui_demo_runs_and_zooms),
        cmocka_unit_test(test_tui_long_command_cancels),
        cmocka_unit_test(test_tui_hist_weights),
        cmocka_unit_test(test_tui_problem_file),
    };
    if (!tmux_available())
        fprintf(stderr, "tmux not installed: TUI tests skipped (apt-get install tmux)\n");
    return cmocka_run_group_tests_name("tui", tests, setup, teardown);
}
