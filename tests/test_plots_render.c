/* test_plots_render.c — plots/ with a real gnuplot: the missing-gnuplot
 * message, detection, renders of every kind (PNG/SVG/PDF/GIF headers and
 * sizes, the dumb terminal), gnuplot errors and hangs, atomic outputs (a
 * failed render keeps the old file), no leaked descriptors or children,
 * and plots drawn from several threads at once. Tests that need gnuplot
 * are skipped when it is not installed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gp.h"
#include "interp_util.h" /* slurp */
#include "plot.h"
#include "plot_util.h"

static int count_fds(void)
{
    return count_entries("/proc/self/fd");
}

/* Every gnuplot started has been reaped: this process has no children. */
static void assert_no_children(void)
{
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void assert_png(const char *path, uint32_t w, uint32_t h)
{
    size_t n;
    unsigned char *s = (unsigned char *)slurp(path, &n);
    if (!s)
        fail_msg("%s was not written", path);
    assert_true(n > 33);
    assert_memory_equal(s, "\x89PNG\r\n\x1a\n", 8);
    assert_memory_equal(s + 12, "IHDR", 4);
    assert_int_equal(be32(s + 16), w);
    assert_int_equal(be32(s + 20), h);
    free(s);
}

/* ---- gnuplot missing ----------------------------------------------------------- */

static void test_gnuplot_missing(void **state)
{
    (void)state;
    char *dir = make_tmpdir();  /* an empty PATH entry: no gnuplot there */
    cs_gp_set_search_path(dir);
    cs_err err = {0};
    plot_call p = {.kind = K_SUCCESS, .succ = success_data()};
    char out[512];
    snprintf(out, sizeof out, "%s/x.png", dir);
    assert_int_equal(call_plot(&p, &(cs_plot_opts){.out = out}, &err), CS_ENOTFOUND);
    assert_string_equal(err.msg, "gnuplot not found (apt-get install gnuplot-nox)");
    assert_int_equal(cs_plot_available(&err), CS_ENOTFOUND);
    assert_string_equal(err.msg, CS_GP_NOT_FOUND_MSG);
    assert_int_equal(count_entries(dir), 0);
    /* the command text can still be produced */
    char *s = script_of(&p, (cs_plot_opts){.out = out});
    assert_non_null(strstr(s, "set terminal pngcairo"));
    free(s);
    cs_gp_set_search_path(NULL);
    cs_gp_set_program("/nonexistent/gnuplot");
    err = (cs_err){0};
    assert_int_equal(cs_gp_run("print 1\n", NULL, &err), CS_ENOTFOUND);
    assert_string_equal(err.msg, "gnuplot not found (apt-get install gnuplot-nox)");
    cs_gp_set_program(NULL);
    if (have_gnuplot)
        assert_int_equal(cs_plot_available(&err), CS_OK);
    remove_tmpdir(dir);
}

/* ---- real gnuplot runs ----------------------------------------------------------- */

static void test_detect(void **state)
{
    (void)state;
    if (!have_gnuplot)
        skip();
    cs_gp_info info;
    cs_err err = {0};
    assert_int_equal(cs_gp_detect(&info, &err), CS_OK);
    assert_true(info.major >= 5);
    assert_true(info.terms & CS_GP_TERM_DUMB);
    assert_non_null(strstr(info.version, "patchlevel"));
    assert_true(info.path[0] != '\0');
}

static void test_render_png_each_kind(void **state)
{
    (void)state;
    if (!have_gnuplot)
        skip();
    char *dir = make_tmpdir();
    int fds = count_fds();
    plot_call calls[] = {
        {.kind = K_LAND, .land = land_data()},
        {.kind = K_LAND, .land = land_data()},
        {.kind = K_TRAJ, .traj = traj_data()},
        {.kind = K_SUCCESS, .succ = success_data()},
        {.kind = K_TRACE, .trace = trace_data()},
        {.kind = K_HIST, .hist = hist_data(1)},
        {.kind = K_HIST, .hist = hist_data(3)},
        {.kind = K_MAXCUT, .mc = maxcut_data()},
    };
    calls[1].land.surface = 1;
    for (size_t k = 0; k < sizeof calls / sizeof calls[0]; k++) {
        char out[512];
        snprintf(out, sizeof out, "%s/plot%zu.png", dir, k);
        int w = k == 0 ? 0 : 640, h = k == 0 ? 0 : 480;
        cs_err err = {0};
        int rc = call_plot(&calls[k], &(cs_plot_opts){.out = out, .width = w, .height = h}, &err);
        if (rc != CS_OK)
            fail_msg("plot %zu: %s", k, err.msg);
        assert_png(out, k == 0 ? 1000 : 640, k == 0 ? 700 : 480);
    }
    /* only the outputs: no temporary files left */
    assert_int_equal(count_entries(dir), (int)(sizeof calls / sizeof calls[0]));
    assert_int_equal(count_fds(), fds);
    assert_no_children();
    remove_tmpdir(dir);
}

static void test_render_svg_pdf_gif(void **state)
{
    (void)state;
    if (!have_gnuplot)
        skip();
    char *dir = make_tmpdir();
    char out[512];
    cs_err err = {0};
    size_t n;

    plot_call mc = {.kind = K_MAXCUT, .mc = maxcut_data()};
    snprintf(out, sizeof out, "%s/m.svg", dir);
    assert_int_equal(call_plot(&mc, &(cs_plot_opts){.out = out}, &err), CS_OK);
    char *s = slurp(out, &n);
    assert_non_null(s);
    assert_memory_equal(s, "<?xml", 5);
    assert_non_null(strstr(s, "<svg"));
    assert_non_null(strstr(s, "width=\"1000\" height=\"700\""));
    assert_non_null(strstr(s, "</svg>"));
    free(s);

    plot_call sc = {.kind = K_SUCCESS, .succ = success_data()};
    snprintf(out, sizeof out, "%s/s.pdf", dir);
    assert_int_equal(call_plot(&sc, &(cs_plot_opts){.out = out}, &err), CS_OK);
    s = slurp(out, &n);
    assert_non_null(s);
    assert_memory_equal(s, "%PDF-1.", 7);
    assert_non_null(memmem(s + (n > 64 ? n - 64 : 0), n > 64 ? 64 : n, "%%EOF", 5));
    free(s);

    plot_call hc = {.kind = K_HIST, .hist = hist_data(3)};
    snprintf(out, sizeof out, "%s/h.gif", dir);
    assert_int_equal(call_plot(&hc, &(cs_plot_opts){.out = out, .width = 320, .height = 240},
                               &err), CS_OK);
    unsigned char *g = (unsigned char *)slurp(out, &n);
    assert_non_null(g);
    assert_memory_equal(g, "GIF89a", 6);
    assert_int_equal(g[6] | g[7] << 8, 320);
    assert_int_equal(g[8] | g[9] << 8, 240);
    assert_non_null(memmem(g, n, "NETSCAPE2.0", 11)); /* animated, loops */
    free(g);

    plot_call tc = {.kind = K_TRACE, .trace = trace_data()};
    snprintf(out, sizeof out, "%s/t.gif", dir);
    assert_int_equal(call_plot(&tc, &(cs_plot_opts){.out = out, .width = 320, .height = 240},
                               &err), CS_OK);
    g = (unsigned char *)slurp(out, &n);
    assert_true(memcmp(g, "GIF87a", 6) == 0 || memcmp(g, "GIF89a", 6) == 0);
    assert_null(memmem(g, n, "NETSCAPE2.0", 11)); /* one frame: not animated */
    free(g);
    assert_int_equal(count_entries(dir), 4);
    remove_tmpdir(dir);
}

static void test_render_dumb(void **state)
{
    (void)state;
    if (!have_gnuplot)
        skip();
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    plot_call p = {.kind = K_LAND, .land = land_data()};
    cs_err err = {0};
    assert_int_equal(call_plot(&p, &(cs_plot_opts){.term = CS_PLOT_TERM_DUMB, .text = f,
                                                    .width = 70, .height = 24},
                               &err),
                     CS_OK);
    fclose(f);
    assert_non_null(strstr(text, "ℓ_bin landscape (log10 scale)"));
    assert_non_null(strstr(text, "target set"));
    /* 24 lines of at most 70 columns (the title holds 2-byte characters) */
    int lines = 0;
    for (char *q = text; *q; q++)
        lines += *q == '\n';
    assert_int_equal(lines, 24);
    free(text);
}

static void test_gnuplot_errors(void **state)
{
    (void)state;
    if (!have_gnuplot)
        skip();
    cs_err err = {0};
    int fds = count_fds();
    assert_int_equal(cs_gp_run("print 1\nset foo\n", NULL, &err), CS_EIO);
    assert_non_null(strstr(err.msg, "gnuplot: line 2: unrecognized option"));
    assert_non_null(strstr(err.msg, "(in: set foo)"));

    /* an error early in a long script: gnuplot stops reading, we get EPIPE
     * (not SIGPIPE) and still its message */
    cs_gpbuf big;
    cs_gpbuf_init(&big);
    cs_gpbuf_printf(&big, "plot $NOPE\n");
    for (int i = 0; i < 200000; i++)
        cs_gpbuf_printf(&big, "# filler line %d to fill the pipe\n", i);
    assert_int_equal(cs_gp_run(cs_gpbuf_str(&big), NULL, &err), CS_EIO);
    assert_non_null(strstr(err.msg, "no datablock named $NOPE"));
    cs_gpbuf_free(&big);

    /* a failed render leaves an existing file alone and no temporary file */
    char *dir = make_tmpdir();
    char out[512];
    snprintf(out, sizeof out, "%s/keep.png", dir);
    FILE *f = fopen(out, "w");
    fputs("old", f);
    fclose(f);
    int rc = cs_gp_render("set terminal pngcairo size 200,100\n", "plot 1\nplot $NOPE\n", out,
                          NULL, NULL, NULL, &err);
    assert_int_equal(rc, CS_EIO);
    assert_non_null(strstr(err.msg, "no datablock named $NOPE"));
    char *s = slurp(out, NULL);
    assert_string_equal(s, "old");
    free(s);
    assert_int_equal(count_entries(dir), 1);
    /* and a good one replaces it */
    assert_int_equal(cs_gp_render("set terminal pngcairo size 200,100\n", "plot x\n", out, NULL,
                                  NULL, NULL, &err), CS_OK);
    /* Ctrl-C while gnuplot draws: gnuplot is stopped, the file stays */
    cs_cancel stop = 1;
    assert_int_equal(cs_gp_render("set terminal pngcairo size 200,100\n", "pause 20\n", out, NULL,
                                  NULL, &stop, &err), CS_ECANCEL);
    assert_png(out, 200, 100);
    assert_int_equal(count_entries(dir), 1);
    assert_png(out, 200, 100);
    assert_int_equal(count_entries(dir), 1);
    remove_tmpdir(dir);

    /* a gnuplot that hangs is stopped and reaped */
    cs_gp_set_timeout(0.3);
    assert_int_equal(cs_gp_run("pause 20\n", NULL, &err), CS_EIO);
    assert_non_null(strstr(err.msg, "did not finish"));
    cs_gp_set_timeout(0);
    assert_int_equal(count_fds(), fds);
    assert_no_children();
}

typedef struct job {
    const plot_call *p;   /* shared, read only */
    char out[512];
    int rc;
    cs_err err;
} job;

static void *render_job(void *arg)
{
    job *j = arg;
    j->rc = call_plot(j->p, &(cs_plot_opts){.out = j->out, .width = 300, .height = 200}, &j->err);
    return NULL;
}

/* Plots drawn from several threads at once do not disturb each other. */
static void test_concurrent(void **state)
{
    (void)state;
    if (!have_gnuplot)
        skip();
    char *dir = make_tmpdir();
    job jobs[4];
    pthread_t th[4];
    const plot_call p = {.kind = K_TRAJ, .traj = traj_data()};
    for (int i = 0; i < 4; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].p = &p;
        snprintf(jobs[i].out, sizeof jobs[i].out, "%s/t%d.png", dir, i);
        assert_int_equal(pthread_create(&th[i], NULL, render_job, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        if (jobs[i].rc != CS_OK)
            fail_msg("thread %d: %s", i, jobs[i].err.msg);
        assert_png(jobs[i].out, 300, 200);
    }
    assert_int_equal(count_entries(dir), 4);
    assert_no_children();
    remove_tmpdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gnuplot_missing),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_render_png_each_kind),
        cmocka_unit_test(test_render_svg_pdf_gif),
        cmocka_unit_test(test_render_dumb),
        cmocka_unit_test(test_gnuplot_errors),
        cmocka_unit_test(test_concurrent),
    };
    return cmocka_run_group_tests(tests, plot_group_setup, NULL);
}
