/* test_plots_script.c — the gnuplot command text of plots/: quoting of
 * user text, titles and names that try to inject gnuplot commands (in the
 * text, and drawn by a real gnuplot), and the text of every kind of plot
 * against golden files.
 *
 * Goldens live in tests/golden/NAME.gp; CSREG_UPDATE_GOLDEN=1 rewrites them
 * (review the diff!). CSREG_GOLDEN_DIR overrides where they are. Tests that
 * need gnuplot are skipped when it is not installed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gp.h"
#include "interp_util.h" /* slurp */
#include "plot.h"
#include "plot_util.h"

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static const char *golden_dir(void)
{
    static char dir[1024];
    const char *env = getenv("CSREG_GOLDEN_DIR");
    if (env)
        return env;
    const char *slash = strrchr(__FILE__, '/');
    snprintf(dir, sizeof dir, "%.*sgolden", slash ? (int)(slash - __FILE__ + 1) : 0, __FILE__);
    return dir;
}

static void check_golden(const char *name, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.gp", golden_dir(), name);
    const char *upd = getenv("CSREG_UPDATE_GOLDEN");
    if (upd && strcmp(upd, "1") == 0) {
        FILE *f = fopen(path, "wb");
        if (!f)
            fail_msg("cannot write %s: %s", path, strerror(errno));
        fputs(text, f);
        fclose(f);
        print_message("updated %s\n", path);
        return;
    }
    char *want = slurp(path, NULL);
    if (!want)
        fail_msg("golden file %s missing (run from the repository root, or "
                 "CSREG_UPDATE_GOLDEN=1 to create it)", path);
    if (strcmp(want, text) != 0) {
        int line = 1;
        const char *a = want, *b = text;
        while (*a && *a == *b) {
            if (*a == '\n')
                line++;
            a++, b++;
        }
        print_error("%s differs at line %d:\n  golden: %.80s\n  now:    %.80s\n", path, line,
                    a, b);
        free(want);
        fail();
    }
    free(want);
}

/* Every user text must sit inside a '...' literal (or be one of the
 * joined constants "'" and "\n"): outside the quotes of every line there
 * may be no marker text, and quotes must balance. */
static void assert_quoted_only(const char *script, const char *marker)
{
    int lineno = 1;
    for (const char *p = script; *p;) {
        char outside[8192];
        size_t n = 0;
        int inq = 0;
        for (; *p && *p != '\n'; p++) {
            if (!inq && !strncmp(p, "\"'\"", 3)) {
                p += 2;
                continue;
            }
            if (!inq && !strncmp(p, "\"\\n\"", 4)) {
                p += 3;
                continue;
            }
            if (*p == '\'') {
                inq = !inq;
                continue;
            }
            if (!inq && n + 1 < sizeof outside)
                outside[n++] = *p;
        }
        outside[n] = '\0';
        if (inq)
            fail_msg("line %d: unbalanced quote", lineno);
        if (strstr(outside, marker) || strchr(outside, '`'))
            fail_msg("line %d: user text outside quotes: %s", lineno, outside);
        if (*p == '\n')
            p++;
        lineno++;
    }
}

/* ---- quoting ------------------------------------------------------------------ */

static void test_quote(void **state)
{
    (void)state;
    static const struct { const char *in, *out; } cases[] = {
        {"plain", "'plain'"},
        {"", "''"},
        {"it's", "'it' . \"'\" . 's'"},
        {"''", "\"'\" . \"'\""},
        {"'x", "\"'\" . 'x'"},
        {"x'", "'x' . \"'\""},
        {"'", "\"'\""},
        {"a\"; system(\"touch PWNED\") #", "'a\"; system(\"touch PWNED\") #'"},
        {"`touch PWNED`", "'`touch PWNED`'"},
        {"a\nb\rc\td\x7f" "e", "'a' . \"\\n\" . 'b c d e'"},
        {"\n\n", "\"\\n\" . \"\\n\""},
        {"back\\slash\\", "'back\\slash\\'"},
        {"ℓ_{bin} é", "'ℓ_{bin} é'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cs_gpbuf b;
        cs_gpbuf_init(&b);
        cs_gpbuf_quote(&b, cases[i].in);
        assert_string_equal(cs_gpbuf_str(&b), cases[i].out);
        cs_gpbuf_free(&b);
    }
    cs_gpbuf b;
    cs_gpbuf_init(&b);
    cs_gpbuf_quote(&b, NULL);
    cs_gpbuf_num(&b, -0.0);
    cs_gpbuf_printf(&b, " %d", 42);
    cs_gpbuf_num(&b, 1.0 / 3);
    assert_string_equal(cs_gpbuf_str(&b), "''0 420.3333333");
    cs_gpbuf_free(&b);
}

static const char *const evil_titles[] = {
    "a\"; system(\"touch PWNED\") #",
    "a`touch PWNED`b",
    "a'; system('touch PWNED') #",
    "a\nsystem('touch PWNED')\n",
    "x'\n! touch PWNED\n#",
    "@GPVAL_TERM $(touch PWNED) \\' \\",
    "a\r\nset output '|touch PWNED'",
};
#define N_EVIL (sizeof evil_titles / sizeof evil_titles[0])

/* Whether the drawing shows `title`: each of its lines (a newline breaks
 * the title; other control characters became spaces), as dumb centres
 * them, without the padding. */
static int shows_title(const char *drawing, const char *title)
{
    for (const char *p = title; *p;) {
        size_t n = strcspn(p, "\n");
        char want[256];
        size_t k = 0;
        for (size_t i = 0; i < n && k + 1 < sizeof want; i++)
            want[k++] = (unsigned char)p[i] < 0x20 ? ' ' : p[i];
        while (k && want[k - 1] == ' ')
            k--;
        want[k] = '\0';
        if (k && !strstr(drawing, want))
            return 0;
        p += n + (p[n] == '\n');
    }
    return 1;
}

static void test_injection_script(void **state)
{
    (void)state;
    for (size_t t = 0; t < N_EVIL; t++) {
        plot_call p = {.kind = K_SUCCESS, .succ = success_data()};
        cs_plot_series s[1] = {succ_series[0]};
        s[0].name = evil_titles[t];
        p.succ.series = s;
        p.succ.nseries = 1;
        p.succ.xlabel = evil_titles[t];
        char *script = script_of(&p, (cs_plot_opts){.out = "x.png", .title = evil_titles[t]});
        assert_quoted_only(script, "PWNED");
        /* the title line holds the text literally, as one quoted string */
        cs_gpbuf want;
        cs_gpbuf_init(&want);
        cs_gpbuf_printf(&want, "\nset title ");
        cs_gpbuf_quote(&want, evil_titles[t]);
        cs_gpbuf_printf(&want, " noenhanced\n");
        assert_non_null(strstr(script, cs_gpbuf_str(&want)));
        cs_gpbuf_free(&want);
        free(script);

        plot_call h = {.kind = K_HIST, .hist = hist_data(3)};
        cs_plot_hist_frame fr[3] = {hist_frames[0], hist_frames[1], hist_frames[2]};
        fr[1].name = evil_titles[t];
        h.hist.frames = fr;
        script = script_of(&h, (cs_plot_opts){.out = "x.gif", .title = evil_titles[t]});
        assert_quoted_only(script, "PWNED");
        free(script);
    }
}

static void test_injection_gnuplot(void **state)
{
    (void)state;
    if (!have_gnuplot)
        skip();
    char *dir = make_tmpdir();
    int cwd = open(".", O_RDONLY | O_DIRECTORY);
    assert_true(cwd >= 0);
    assert_int_equal(chdir(dir), 0);
    plot_call p = {.kind = K_SUCCESS, .succ = success_data()};
    for (size_t t = 0; t < N_EVIL; t++) {
        cs_err err = {0};
        cs_plot_opts o = {.out = "t.png", .title = evil_titles[t], .width = 200, .height = 150};
        int rc = call_plot(&p, &o, &err);
        if (rc != CS_OK)
            fail_msg("title %zu: %s", t, err.msg);
        /* drawn in the terminal, the title shows literally */
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        o = (cs_plot_opts){.term = CS_PLOT_TERM_DUMB, .text = f, .title = evil_titles[t],
                           .width = 120, .height = 30};
        rc = call_plot(&p, &o, &err);
        fclose(f);
        if (rc != CS_OK)
            fail_msg("title %zu (dumb): %s", t, err.msg);
        if (!shows_title(text, evil_titles[t]))
            fail_msg("title %zu not shown literally:\n%s", t, text);
        free(text);
    }
    /* an output name that gnuplot would otherwise read as a pipe */
    cs_err err = {0};
    cs_plot_opts o = {.out = "|touch PWNED.png", .width = 200, .height = 150};
    assert_int_equal(call_plot(&p, &o, &err), CS_OK);
    assert_true(file_exists("|touch PWNED.png"));
    assert_false(file_exists("PWNED"));
    assert_false(file_exists("PWNED.png"));
    assert_int_equal(count_entries("."), 2); /* t.png and the odd name */
    assert_int_equal(fchdir(cwd), 0);
    close(cwd);
    remove_tmpdir(dir);
}

/* Titles, labels and file names made of quotes, backslashes and newlines
 * (gnuplot 5.4 read a leading quote, doubled the old way, as an empty
 * string and a stray token): drawn by a real gnuplot, each shows as it is. */
static void test_quotes_survive(void **state)
{
    (void)state;
    if (!have_gnuplot)
        skip();
    static const char *const titles[] = {
        "'x", "x'", "'", "''", "'" "''", "\\", "\\'", "'\\", "a\\\nb'", "'\n'",
        "\"'\"", "it's \"q\" \\n", "\nlead", "trail\n",
    };
    plot_call p = {.kind = K_SUCCESS, .succ = success_data()};
    char *dir = make_tmpdir();
    for (size_t t = 0; t < sizeof titles / sizeof titles[0]; t++) {
        cs_plot_series s[1] = {succ_series[0]};
        s[0].name = titles[t];
        p.succ.series = s;
        p.succ.nseries = 1;
        p.succ.xlabel = titles[t];
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        cs_err err = {0};
        cs_plot_opts o = {.term = CS_PLOT_TERM_DUMB, .text = f, .title = titles[t],
                          .width = 120, .height = 30};
        int rc = call_plot(&p, &o, &err);
        fclose(f);
        if (rc != CS_OK)
            fail_msg("title %zu: %s", t, err.msg);
        if (!shows_title(text, titles[t]))
            fail_msg("title %zu not shown literally:\n%s", t, text);
        free(text);
        /* the same text in a file name (no newlines there) */
        if (strchr(titles[t], '\n'))
            continue;
        char path[256];
        snprintf(path, sizeof path, "%s/%s.png", dir, titles[t]);
        o = (cs_plot_opts){.out = path, .title = titles[t], .width = 200, .height = 150};
        if (call_plot(&p, &o, &err) != CS_OK)
            fail_msg("file name %zu: %s", t, err.msg);
        assert_true(file_exists(path));
    }
    remove_tmpdir(dir);
}

/* ---- goldens ---------------------------------------------------------------- */

static void test_golden_landscape(void **state)
{
    (void)state;
    plot_call p = {.kind = K_LAND, .land = land_data()};
    char *s = script_of(&p, (cs_plot_opts){.out = "out/landscape.png"});
    check_golden("landscape", s);
    free(s);
    p.land.surface = 1;
    p.land.log_scale = 0;
    s = script_of(&p, (cs_plot_opts){.out = "surface.svg", .title = "ℓ_bin as a 3D surface"});
    check_golden("landscape_surface", s);
    free(s);
    p.land.surface = 0;
    s = script_of(&p, (cs_plot_opts){.term = CS_PLOT_TERM_DUMB, .width = 60, .height = 20});
    check_golden("landscape_dumb", s);
    free(s);
}

static void test_golden_trajectory(void **state)
{
    (void)state;
    plot_call p = {.kind = K_TRAJ, .traj = traj_data()};
    char *s = script_of(&p, (cs_plot_opts){.out = "/tmp/traj.png"});
    check_golden("trajectory", s);
    free(s);
}

static void test_golden_success(void **state)
{
    (void)state;
    plot_call p = {.kind = K_SUCCESS, .succ = success_data()};
    char *s = script_of(&p, (cs_plot_opts){.out = "fig1a.pdf"});
    check_golden("success", s);
    free(s);
}

/* Several series with error bars are drawn side by side: series k of the
 * ones with bars moves by (k - (m-1)/2) * 0.6% of the x range; a series
 * without bars stays where it is. */
static void test_success_dodge(void **state)
{
    (void)state;
    plot_call p = {.kind = K_SUCCESS, .succ = success_data()};
    char *s = script_of(&p, (cs_plot_opts){.out = "x.png"});
    const cs_plot_series *sr = p.succ.series;
    double range = sr[0].x[sr[0].n - 1] - sr[0].x[0];  /* both barred series share x */
    const double shift[3] = {-0.5 * 0.006 * range, 0.5 * 0.006 * range, 0.0};
    for (int k = 0; k < 3; k++) {
        char block[32];
        snprintf(block, sizeof block, "$S%d << EOD\n", k + 1);
        const char *b = strstr(s, block);
        assert_non_null(b);
        double x = strtod(b + strlen(block), NULL);
        if (fabs(x - (sr[k].x[0] + shift[k])) > 1e-12)
            fail_msg("series %d: x %g, want %g", k + 1, x, sr[k].x[0] + shift[k]);
    }
    free(s);
    /* a literal title given with the data (the sweep's setting) */
    p.succ.title = "bin recovery, N = 100, stop_oracle";
    s = script_of(&p, (cs_plot_opts){.out = "x.png"});
    assert_non_null(strstr(s, "set title 'bin recovery, N = 100, stop_oracle' noenhanced\n"));
    free(s);
}

/* The trace plot marks where each restart begins and the success bound. */
static void test_trace_starts_and_bound(void **state)
{
    (void)state;
    static const double errs[5] = {1, 0.5, 0.1, 0.02, 0.005}, starts[2] = {3, 5};
    plot_call p = {.kind = K_TRACE, .trace = trace_data()};
    p.trace.err_xstar = errs;
    p.trace.start_iter = starts;
    p.trace.nstarts = 2;
    p.trace.err_line = 1e-2;
    char *s = script_of(&p, (cs_plot_opts){.out = "t.png"});
    assert_non_null(strstr(s, "set arrow from 3, graph 0 to 3, graph 1 nohead"));
    assert_non_null(strstr(s, "set arrow from 5, graph 0 to 5, graph 1 nohead"));
    assert_non_null(strstr(s, "set label 'start 2' at 3, graph 1"));
    assert_non_null(strstr(s, "set label 'start 3' at 5, graph 1"));
    /* the bound on the error panel only (the last plot command) */
    const char *line = strstr(s, ", 0.01 with lines dt 2");
    assert_non_null(line);
    assert_non_null(strstr(line, "unset label 99"));
    assert_null(strstr(strstr(s, "using 1:5"), "using 1:2"));
    free(s);
    /* no starts, no bound: neither drawn */
    p.trace = trace_data();
    s = script_of(&p, (cs_plot_opts){.out = "t.png"});
    assert_null(strstr(s, "set arrow"));
    assert_null(strstr(s, "with lines dt 2"));
    free(s);
}

static void test_golden_trace(void **state)
{
    (void)state;
    plot_call p = {.kind = K_TRACE, .trace = trace_data()};
    char *s = script_of(&p, (cs_plot_opts){.out = "trace.png", .width = 800, .height = 600});
    check_golden("trace", s);
    free(s);
}

static void test_golden_hist(void **state)
{
    (void)state;
    plot_call p = {.kind = K_HIST, .hist = hist_data(1)};
    char *s = script_of(&p, (cs_plot_opts){.out = "hist.png"});
    check_golden("hist", s);
    free(s);
    p.hist = hist_data(3);
    s = script_of(&p, (cs_plot_opts){.out = "hist_grid.png", .title = "conv1 weights"});
    check_golden("hist_grid", s);
    free(s);
    s = script_of(&p, (cs_plot_opts){.out = "hist.gif", .frame_delay = 50});
    check_golden("hist_anim", s);
    free(s);
}

static void test_golden_maxcut(void **state)
{
    (void)state;
    plot_call p = {.kind = K_MAXCUT, .mc = maxcut_data()};
    char *s = script_of(&p, (cs_plot_opts){.out = "maxcut.svg"});
    check_golden("maxcut", s);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quote),
        cmocka_unit_test(test_injection_script),
        cmocka_unit_test(test_injection_gnuplot),
        cmocka_unit_test(test_quotes_survive),
        cmocka_unit_test(test_golden_landscape),
        cmocka_unit_test(test_golden_trajectory),
        cmocka_unit_test(test_golden_success),
        cmocka_unit_test(test_success_dodge),
        cmocka_unit_test(test_trace_starts_and_bound),
        cmocka_unit_test(test_golden_trace),
        cmocka_unit_test(test_golden_hist),
        cmocka_unit_test(test_golden_maxcut),
    };
    return cmocka_run_group_tests(tests, plot_group_setup, NULL);
}
