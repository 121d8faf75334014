/* test_tour.c — the guided tour (sessions/tour.csr, `csreg --tour`):
 * - in batch mode it runs to its end, prints every chapter in order, and a
 *   replay of its saved journal writes the same output files byte for byte;
 * - in the workbench (tmux, 120×40) a student walks it with key presses:
 *   every chapter's title and every narration appear in order, `b` goes
 *   back a chapter, and `q` quits.
 * The chapters and narrations are read from the script itself. In
 * sanitizer builds (the training chapter is 10× slower there) the batch run
 * leaves out the long commands and the walk is skipped; it is also skipped
 * without tmux. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interp_util.h"
#include "tmux_util.h"

#include "sanitized.h"

enum { MAX_STOPS = 64 };

/* What a student sees at each `pause`: its chapter and the narration. */
typedef struct stop {
    int chapter;
    char say[160];
} stop;

static char chapters[16][160];
static int nchapters;
static stop stops[MAX_STOPS];
static int nstops;
static char top[1024], script[1100];
static char screen[65536];

static const char *bin(char *buf, size_t len)
{
    const char *b = getenv("CSREG_BIN");
    b = b ? b : "./csreg";
    if (b[0] == '/')
        snprintf(buf, len, "%s", b);
    else
        snprintf(buf, len, "%s/%s", top, b);
    return buf;
}

/* The text between the first pair of quotes of a line. */
static void quoted(const char *line, char *out, size_t len)
{
    const char *a = strchr(line, '"');
    const char *b = a ? strchr(a + 1, '"') : NULL;
    size_t n = a && b ? (size_t)(b - a - 1) : 0;
    if (n >= len)
        n = len - 1;
    memcpy(out, a ? a + 1 : "", n);
    out[n] = '\0';
}

static void rm_tree(const char *dir);

static int read_tour(void **state)
{
    (void)state;
    assert_non_null(getcwd(top, sizeof top));
    snprintf(script, sizeof script, "%s/sessions/tour.csr", top);
    FILE *f = fopen(script, "r");
    if (!f)
        return -1;
    char line[4096], say[160] = "";
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "chapter ", 8))
            quoted(line, chapters[nchapters++], sizeof chapters[0]);
        else if (!strncmp(line, "say ", 4))
            quoted(line, say, sizeof say);
        else if (!strncmp(line, "pause", 5) && nstops < MAX_STOPS)
            stops[nstops++] = (stop){.chapter = nchapters};
        if (!strncmp(line, "pause", 5))
            snprintf(stops[nstops - 1].say, sizeof stops[0].say, "%.40s", say);
    }
    fclose(f);
    return nchapters >= 5 && nstops >= nchapters ? 0 : -1;
}

/* csreg ARGS in dir, stdout into dir/out.txt; the exit status. */
static int run_in(const char *dir, const char *args)
{
    char cmd[4096], b[1200];
    snprintf(cmd, sizeof cmd, "cd %s && %s %s >out.txt 2>err.txt", dir, bin(b, sizeof b), args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The files under dir/out/tour compared with other/out/tour, byte for byte. */
static void same_outputs(const char *dir, const char *other)
{
    char d[512];
    snprintf(d, sizeof d, "%s/out/tour", dir);
    DIR *dd = opendir(d);
    assert_non_null(dd);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(dd))) {
        if (e->d_name[0] == '.')
            continue;
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s/%s", d, e->d_name);
        snprintf(b, sizeof b, "%s/out/tour/%s", other, e->d_name);
        size_t la, lb;
        char *ta = slurp(a, &la), *tb = slurp(b, &lb);
        if (!ta || !tb || la != lb || memcmp(ta, tb, la))
            fail_msg("%s differs between the tour and its replay", e->d_name);
        free(ta);
        free(tb);
        files++;
    }
    closedir(dd);
    assert_true(files >= 5);
}

/* Under the sanitizers, the tour without its long work (the trainings and
 * what uses their models, the sweep, the quick script it runs: minutes
 * there, and each has its own suite under ASan), into dir/tour.csr: every
 * chapter, narration and other command. */
static const char *shrunk_tour(const char *dir, char *out, size_t len)
{
    static const char *heavy[] = {"train ", "evaluate ", "quantize ", "save model ",
                                  "load model ", "sweep ", "run ", NULL};
    snprintf(out, len, "%s/tour.csr", dir);
    FILE *in = fopen(script, "r"), *o = fopen(out, "w");
    assert_non_null(in);
    assert_non_null(o);
    char line[4096];
    while (fgets(line, sizeof line, in)) {
        int drop = 0;
        for (size_t i = 0; heavy[i]; i++)
            drop |= !strncmp(line, heavy[i], strlen(heavy[i]));
        if (!drop)
            fputs(line, o);
    }
    fclose(in);
    assert_int_equal(fclose(o), 0);
    return out;
}

static void test_batch_and_replay(void **state)
{
    (void)state;
    char one[] = "/tmp/cs_tour1_XXXXXX", two[] = "/tmp/cs_tour2_XXXXXX";
    assert_non_null(mkdtemp(one));
    assert_non_null(mkdtemp(two));
    char args[1300], small[600];
    snprintf(args, sizeof args, "-e 'run %s' -e 'save session tour-journal.csr'",
             SANITIZED ? shrunk_tour(one, small, sizeof small) : script);
    assert_int_equal(run_in(one, args), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/out.txt", one);
    char *out = slurp(path, NULL);
    assert_non_null(out);
    const char *at = out;
    for (int k = 0; k < nchapters; k++) {
        char head[3000];
        snprintf(head, sizeof head, "== Chapter %d: %s ==", k + 1, chapters[k]);
        const char *p = strstr(at, head);
        if (!p)
            fail_msg("chapter %d (%s) is not printed in order", k + 1, chapters[k]);
        at = p + 1;
    }
    free(out);
    /* the saved journal replays to the same files */
    snprintf(args, sizeof args, "run %s/tour-journal.csr", one);
    assert_int_equal(run_in(two, args), 0);
    same_outputs(one, two);
    rm_tree(one);
    rm_tree(two);
}

/* A temporary folder of this test and everything in it. */
static void rm_tree(const char *dir)
{
    char cmd[600];
    if (strncmp(dir, "/tmp/cs_tour", 12) != 0)
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void wait_for(tmux_session *t, const char *text, int ms)
{
    if (tmux_wait_for(t, text, ms, screen, sizeof screen) != 0)
        fail_msg("'%s' did not appear; the screen:\n%s", text, screen);
}

static void test_walk(void **state)
{
    (void)state;
    if (SANITIZED || !tmux_available()) {
        print_message("%s: skipped\n", SANITIZED ? "sanitizer build" : "no tmux");
        skip();
    }
    char dir[] = "/tmp/cs_tourw_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[2048], b[1200];
    snprintf(cmd, sizeof cmd,
             "cd %s && env LC_ALL=C.UTF-8 XDG_STATE_HOME=%s %s --tour; echo TOUR_EXITED rc=$?; "
             "sleep 60",
             dir, dir, bin(b, sizeof b));
    tmux_session t;
    assert_int_equal(tmux_start_retry(&t, 120, 40, cmd), 0);
    for (int s = 0; s < nstops; s++) {
        char head[200];
        snprintf(head, sizeof head, "Chapter %d/%d: %.30s", stops[s].chapter, nchapters,
                 chapters[stops[s].chapter - 1]);
        wait_for(&t, head, 90000);
        wait_for(&t, stops[s].say, 90000);
        wait_for(&t, "n/space next", 90000);
        /* once, in chapter 2: back to chapter 1 and forward again */
        if (s > 0 && stops[s].chapter == 2 && stops[s - 1].chapter == 1) {
            assert_int_equal(tmux_keys(&t, (const char *const[]){"b", NULL}), 0);
            snprintf(head, sizeof head, "Chapter 1/%d", nchapters);
            wait_for(&t, head, 30000);
            wait_for(&t, stops[0].say, 30000);
            for (int k = 0; k < s; k++) {
                wait_for(&t, "n/space next", 30000);
                assert_int_equal(tmux_keys(&t, (const char *const[]){"n", NULL}), 0);
                wait_for(&t, stops[k + 1].say, 30000);
            }
            wait_for(&t, "n/space next", 30000);
        }
        assert_int_equal(tmux_keys(&t, (const char *const[]){"n", NULL}), 0);
    }
    wait_for(&t, "the end", 30000);
    assert_int_equal(tmux_keys(&t, (const char *const[]){"q", NULL}), 0);
    wait_for(&t, "TOUR_EXITED rc=0", 10000);
    tmux_stop(&t);
    rm_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_and_replay),
        cmocka_unit_test(test_walk),
    };
    return cmocka_run_group_tests(tests, read_tour, NULL);
}
