/* test_cmd_plot.c — `landscape` and `plot` through the interpreter, in
 * process: results, CSV/TXT contents against independent evaluations,
 * real PNGs (when gnuplot is installed), the title-injection test, the
 * missing-gnuplot behaviour, the plot store and the plot= key, and an error
 * with its column for every bad key value.
 *
 * The suite runs in a fresh temporary directory (chdir), so relative output
 * names and anything a broken escaping might create land there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_interp.h"
#include "interp_util.h"
#include "cs_plotstore.h"
#include "cs_reg.h"
#include "gp.h"

static int have_gnuplot;
static char workdir[64];

static int setup_json(void **state) { return fixture_setup_json(state); }
static int setup_text(void **state) { return fixture_setup_text(state); }
#define teardown fixture_teardown

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* A valid PNG: signature, IHDR first, the size asked for. */
static void assert_png(const char *path, unsigned w, unsigned h)
{
    size_t len;
    unsigned char *s = (unsigned char *)slurp(path, &len);
    if (!s)
        fail_msg("%s was not written", path);
    assert_true(len > 1000);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    assert_memory_equal(s, sig, 8);
    assert_memory_equal(s + 8, "\0\0\0\x0dIHDR", 8);
    unsigned pw = (unsigned)s[16] << 24 | (unsigned)s[17] << 16 | (unsigned)s[18] << 8 | s[19];
    unsigned ph = (unsigned)s[20] << 24 | (unsigned)s[21] << 16 | (unsigned)s[22] << 8 | s[23];
    assert_int_equal(pw, w);
    assert_int_equal(ph, h);
    free(s);
}

/* No stray files (temporaries) other than those expected. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static void clear_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
}

/* ---- results and numbers ------------------------------------------------------ */

static void test_json_fields(void **state)
{
    fixture *f = *state;
    const char *land = ok(f, "landscape res=3");
    assert_memory_equal(land, "{\"cmd\":\"landscape\",\"reg\":\"bin\",\"params\":\"bin\",\"x\":[-2,2],"
                        "\"y\":[-2,2],\"res\":3,\"min\":0,\"argmin\":[-2,-2],\"argmin_note\":"
                        "\"on the boundary of the box: the smallest value may lie outside it; "
                        "the first of 5 grid points with this value (the target set)\","
                        "\"max\":16,\"scale\":\"log\",\"style\":\"heatmap\",\"targets\":2,"
                        "\"layers\":[\"target\"],\"text\":", 312);
    /* a unique interior minimum is not flagged */
    ok(f, "reg linf");
    assert_null(strstr(ok(f, "landscape x=-1:1 y=-1:1 res=3 out=interior.csv"), "argmin_note"));
    ok(f, "reg bin");
    const char *out = ok(f, "landscape x=-1:0.5:3 y=0:1 res=5 scale=lin at=1,2,3 dims=3,1");
    assert_non_null(strstr(out, "\"x\":[-1,3],\"y\":[0,1],\"res\":5,\"at\":[1,2,3],"
                                "\"dims\":[3,1]"));
    assert_non_null(strstr(out, "\"scale\":\"lin\""));
    /* journaled like every command that makes data */
    assert_string_equal(cs_interp_journal_line(f->in, 0), "landscape res=3");
    assert_string_equal(cs_interp_journal_line(f->in, 3), "reg bin");
}

static void test_csv_exact(void **state)
{
    fixture *f = *state;
    assert_non_null(strstr(ok(f, "landscape res=3 out=b3.csv"), "\"out\":\"b3.csv\""));
    char *s = slurp("b3.csv", NULL);
    assert_non_null(s);
    /* how it was made, after the header (cs_provenance.h) */
    char want[128];
    snprintf(want, sizeof want, "x,y,value\n# csreg: %s (commit ", CSREG_VERSION);
    assert_memory_equal(s, want, strlen(want));
    assert_non_null(strstr(s, ")\n# seed: 7\n# command: landscape res=3 out=b3.csv\n"
                              "# reg: bin\n-2,-2,0\n"));
    free(s);
    s = slurp_csv("b3.csv");
    /* (x^2 - y^2)^2 on {-2, 0, 2}^2 */
    assert_string_equal(s, "x,y,value\n-2,-2,0\n0,-2,16\n2,-2,0\n-2,0,16\n0,0,0\n2,0,16\n"
                           "-2,2,0\n0,2,16\n2,2,0\n");
    free(s);
    ok(f, "landscape res=3 out=b3.txt");
    s = slurp("b3.txt", NULL);
    assert_string_equal(s, "# 3 rows: y = -2 .. 2; 3 columns: x = -2 .. 2\n0 16 0\n16 0 16\n"
                           "0 16 0\n");
    free(s);
}

/* Parse the CSV written for an nx x ny grid; rows y outer, x inner. */
static double *read_csv(const char *path, size_t nx, size_t ny, double *xs, double *ys)
{
    char *s = slurp_csv(path);
    assert_non_null(s);
    assert_memory_equal(s, "x,y,value\n", 10);
    double *z = malloc(nx * ny * sizeof *z);
    char *p = s + 10;
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            char *end;
            xs[i] = strtod(p, &end);
            assert_int_equal(*end, ',');
            ys[j] = strtod(end + 1, &end);
            assert_int_equal(*end, ',');
            z[j * nx + i] = strtod(end + 1, &end);
            assert_int_equal(*end, '\n');
            p = end + 1;
        }
    assert_int_equal(*p, '\0');
    free(s);
    return z;
}

static void test_csv_values(void **state)
{
    fixture *f = *state;
    ok(f, "reg osb");
    ok(f, "landscape x=-1:0.25:2 y=-0.5:1.5 res=13 out=o.csv");
    double xs[13], ys[13];
    double *z = read_csv("o.csv", 13, 13, xs, ys);
    cs_reg *r;
    cs_err err;
    assert_int_equal(cs_reg_new(&r, "osb", NULL, 0, 1, &err), 0);
    for (size_t j = 0; j < 13; j++)
        for (size_t i = 0; i < 13; i++) {
            /* the grid, independently */
            double x = -1 + 3.0 * (double)i / 12, y = -0.5 + 2.0 * (double)j / 12;
            assert_true(fabs(xs[i] - x) <= 1e-15 * 3 && fabs(ys[j] - y) <= 1e-15 * 2);
            double v[2] = {xs[i], ys[j]}, want;
            assert_int_equal(cs_reg_eval(r, v, 1, 2, &want, NULL, &err), 0);
            assert_true(z[j * 13 + i] == want);
            /* and the closed form x^2 y^2 (x - y)^2 */
            double cf = x * x * y * y * (x - y) * (x - y);
            assert_true(fabs(z[j * 13 + i] - cf) <= 1e-12 * (1 + cf));
        }
    free(z);
    cs_reg_free(r);
}

/* A slice through X: every value is X with two coordinates replaced. */
static void test_slice_values(void **state)
{
    fixture *f = *state;
    ok(f, "reg ter");
    ok(f, "landscape at=0.5,-1,2,0.25 dims=4,2 x=-1:1 y=0:3 res=9 out=s.csv");
    double xs[9], ys[9];
    double *z = read_csv("s.csv", 9, 9, xs, ys);
    cs_reg *r;
    cs_err err;
    assert_int_equal(cs_reg_new(&r, "ter", NULL, 0, 1, &err), 0);
    for (size_t j = 0; j < 9; j++)
        for (size_t i = 0; i < 9; i++) {
            double v[4] = {0.5, 3.0 * (double)j / 8, 2, -1 + 2.0 * (double)i / 8}, want;
            assert_int_equal(cs_reg_eval(r, v, 1, 4, &want, NULL, &err), 0);
            assert_true(fabs(z[j * 9 + i] - want) <= 1e-12 * (1 + want));
        }
    free(z);
    cs_reg_free(r);
    /* bin's zero set through the command: the diagonals, value 0 there */
    ok(f, "reg bin");
    ok(f, "landscape res=21 out=d.csv");
    double bx[21], by[21];
    z = read_csv("d.csv", 21, 21, bx, by);
    for (size_t j = 0; j < 21; j++)
        for (size_t i = 0; i < 21; i++) {
            if (i == j || i == 20 - j)
                assert_true(fabs(z[j * 21 + i]) <= 1e-14 * 16);
            else
                assert_true(z[j * 21 + i] > 0);
        }
    free(z);
}

static void test_regs_needing_more(void **state)
{
    fixture *f = *state;
    ok(f, "reg om");
    fails(f, "landscape", "om takes a matrix argument", -1);
    fails(f, "landscape at=1,2", "om takes a matrix argument", 11);
    ok(f, "reg eig C=1,0,0;0,2,0;0,0,3");
    fails(f, "landscape", "landscape: eig at (-2, -2): ", -1);
    const char *out = ok(f, "landscape at=1,0,0 dims=2,3 res=5");
    assert_non_null(strstr(out, "\"targets\":0"));
}

/* ---- drawings ------------------------------------------------------------------- */

static void test_png_bin_osb_ter(void **state)
{
    fixture *f = *state;
    if (!have_gnuplot)
        skip();
    const char *regs[3] = {"bin", "osb", "ter"};
    for (int k = 0; k < 3; k++) {
        char line[128], file[32];
        snprintf(line, sizeof line, "reg %s", regs[k]);
        ok(f, line);
        snprintf(file, sizeof file, "%s.png", regs[k]);
        snprintf(line, sizeof line, "landscape x=-2:2 y=-2:2 res=301 scale=log out=%s", file);
        const char *out = ok(f, line);
        assert_non_null(strstr(out, "\"out\":\""));
        assert_png(file, 1000, 700);
    }
    /* the other formats, a surface, and a slice */
    ok(f, "landscape style=surface res=51 out=surf.svg");
    char *s = slurp("surf.svg", NULL);
    assert_non_null(strstr(s, "<svg"));
    free(s);
    ok(f, "landscape at=1,0,-1 dims=1,2 res=31 out=slice.pdf");
    s = slurp("slice.pdf", NULL);
    assert_memory_equal(s, "%PDF", 4);
    free(s);
    ok(f, "landscape res=2001 plot=big.png");   /* drawn from a thinned grid */
    assert_png("big.png", 1000, 700);
}

static void test_term_dumb_and_plot_again(void **state)
{
    fixture *f = *state;
    fails(f, "plot landscape term=dumb", "nothing to plot: run landscape first", 6);
    fails(f, "plot landscape out=again.png", "nothing to plot: run landscape first", 6);
    if (!have_gnuplot) {
        ok(f, "landscape res=21");
        fails(f, "plot landscape out=again.png", CS_GP_NOT_FOUND_MSG, -1);
        return;
    }
    const char *out = ok(f, "landscape res=41 term=dumb title=MyLandscapeTitle");
    assert_non_null(strstr(out, "MyLandscapeTitle"));
    out = ok(f, "plot landscape out=again.png");
    assert_string_equal(out, "{\"cmd\":\"plot\",\"kind\":\"landscape\",\"out\":\"again.png\","
                             "\"layers\":[\"target\"],\"seed\":7}\n");
    assert_png("again.png", 1000, 700);
    /* the stored title is reused, unless a new one is given */
    assert_non_null(strstr(ok(f, "plot landscape term=dumb"), "MyLandscapeTitle"));
    out = ok(f, "plot landscape term=dumb title=Another");
    assert_non_null(strstr(out, "Another"));
    assert_null(strstr(out, "MyLandscapeTitle"));
}

/* The issue's escaping test, end to end through the command. */
static void test_title_injection(void **state)
{
    fixture *f = *state;
    if (!have_gnuplot)
        skip();
    static const char title_arg[] = "title=\"a\\\"; system(\\\"touch PWNED\\\") #\"";
    static const char literal[] = "a\"; system(\"touch PWNED\") #";
    char line[256];
    snprintf(line, sizeof line, "landscape res=31 %s out=t.png", title_arg);
    ok(f, line);
    assert_png("t.png", 1000, 700);
    assert_false(exists("PWNED"));
    snprintf(line, sizeof line, "landscape res=31 %s term=dumb", title_arg);
    const char *out = ok(f, line);
    if (!strstr(out, literal))
        fail_msg("the title is not shown literally:\n%s", out);
    assert_false(exists("PWNED"));
    snprintf(line, sizeof line, "plot landscape out=t2.svg %s", title_arg);
    ok(f, line);
    assert_false(exists("PWNED"));
    char *svg = slurp("t2.svg", NULL);
    /* in SVG the quotes are entities; the words are there, as text */
    assert_non_null(strstr(svg, "system("));
    free(svg);
}

static void test_gnuplot_missing(void **state)
{
    fixture *f = *state;
    cs_gp_set_program("/nonexistent/gnuplot");
    cs_err err;
    int col;
    int rc = cs_interp_exec(f->in, "landscape res=11 out=m.png", &col, &err);
    assert_true(rc < 0);
    assert_string_equal(err.msg, CS_GP_NOT_FOUND_MSG);
    assert_int_equal(col, 18);
    assert_false(exists("m.png"));
    /* the numbers are still written */
    ok(f, "landscape res=11 out=m.csv");
    assert_true(exists("m.csv"));
    rc = cs_interp_exec(f->in, "landscape res=11 out=m2.csv plot=m2.png", &col, &err);
    assert_true(rc < 0);
    assert_string_equal(err.msg, CS_GP_NOT_FOUND_MSG);
    assert_true(exists("m2.csv"));
    assert_false(exists("m2.png"));
    fails(f, "plot landscape out=m3.png", CS_GP_NOT_FOUND_MSG, 16);
    fails(f, "landscape res=11 term=dumb", CS_GP_NOT_FOUND_MSG, 18);
    cs_gp_set_program(NULL);
    if (have_gnuplot) {
        ok(f, "plot landscape out=m3.png");
        assert_png("m3.png", 1000, 700);
    }
}

/* ---- the plot store --------------------------------------------------------------- */

/* Heap copies the store must not keep pointers to: scribbled and freed
 * right after storing (ASan would catch a use after free). */
static double *heap(const double *v, size_t n)
{
    double *h = malloc(n * sizeof *h);
    memcpy(h, v, n * sizeof *h);
    return h;
}

static void scribble_free(double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = NAN;
    free(v);
}

static void test_store_every_kind(void **state)
{
    fixture *f = *state;
    cs_err err;
    static const char *const kinds[] = {"trajectory", "success", "trace", "hist", "maxcut"};
    for (size_t k = 0; k < 5; k++) {
        assert_false(cs_plotstore_has(f->in, kinds[k]));
        char line[64];
        snprintf(line, sizeof line, "plot %s out=k.png", kinds[k]);
        fails(f, line, "nothing to plot: run ", 6);
    }
    fails(f, "plot trace out=k.png", "nothing to plot: run solve or step first", 6);

    /* trace */
    double it[4] = {1, 2, 3, 4}, ob[4] = {10, 1, 0.1, 0.01}, rs[4] = {1, 0.1, 0.01, 1e-3};
    double *hi = heap(it, 4), *ho = heap(ob, 4), *hr = heap(rs, 4);
    char *name = strdup("fista");
    cs_plot_trace_data tr = {.n = 4, .iter = hi, .objective = ho, .residual = hr, .name = name};
    assert_int_equal(cs_plotstore_trace(f->in, &tr, &err), 0);
    scribble_free(hi, 4), scribble_free(ho, 4), scribble_free(hr, 4);
    memset(name, 'X', 5);
    free(name);

    /* success: two methods */
    double g[3] = {0.3, 0.5, 0.7}, s1[3] = {1, 0.5, 0}, s2[3] = {1, 0.9, 0.2},
           e[3] = {0, 0.05, 0};
    double *hg = heap(g, 3), *h1 = heap(s1, 3), *h2 = heap(s2, 3), *he = heap(e, 3);
    cs_plot_series ser[2] = {{"bin", hg, h1, he, 3}, {"linf", hg, h2, NULL, 3}};
    cs_plot_success_data su = {.xvar = "gamma", .series = ser, .nseries = 2};
    assert_int_equal(cs_plotstore_success(f->in, &su, &err), 0);
    scribble_free(h1, 3), scribble_free(h2, 3), scribble_free(he, 3);

    /* maxcut */
    double cx[3] = {1, 2, 3}, cy[3] = {100, 200, 250};
    double *hx = heap(cx, 3), *hy = heap(cy, 3);
    cs_plot_series ms = {"bin", hx, hy, NULL, 3};
    cs_plot_maxcut_data mc = {.series = &ms, .nseries = 1, .best = 300, .has_best = 1,
                              .graph = "G10"};
    assert_int_equal(cs_plotstore_maxcut(f->in, &mc, &err), 0);
    scribble_free(hx, 3), scribble_free(hy, 3), scribble_free(hg, 3);

    /* hist: two frames and marks */
    double w1[6] = {-1, -0.9, 1, 1.1, 0.95, -1.05}, w2[6] = {-1, -1, 1, 1, 1, -1},
           mk[2] = {-1, 1};
    double *hw1 = heap(w1, 6), *hw2 = heap(w2, 6), *hm = heap(mk, 2);
    cs_plot_hist_frame fr[2] = {{hw1, 6, "epoch 1"}, {hw2, 6, "epoch 2"}};
    cs_plot_hist_data hd = {.frames = fr, .nframes = 2, .bins = 10, .marks = hm, .nmarks = 2};
    assert_int_equal(cs_plotstore_hist(f->in, &hd, &err), 0);
    scribble_free(hw1, 6), scribble_free(hw2, 6), scribble_free(hm, 2);

    /* trajectory over a small landscape */
    double z[9] = {0, 16, 0, 16, 0, 16, 0, 16, 0}, xy[6] = {1.5, 0.2, 1.2, 0.9, 1, 1};
    double *hz = heap(z, 9), *hxy = heap(xy, 6);
    double tx[2] = {-2, 2}, ty[2] = {-2, 2};
    cs_plot_curve tc = {tx, ty, 2};
    cs_plot_path path = {.xy = hxy, .n = 3, .start = 1, .success = 1};
    cs_plot_geometry geo = {.paths = &path, .npaths = 1};
    cs_plot_trajectory_data tj = {
        .land = {.reg = "bin", .nx = 3, .ny = 3, .x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2,
                 .z = hz, .log_scale = 0, .target = &tc, .ntarget = 1, .geo = &geo},
        .name = "fista"};
    assert_int_equal(cs_plotstore_trajectory(f->in, &tj, &err), 0);
    scribble_free(hz, 9), scribble_free(hxy, 6);

    for (size_t k = 0; k < 5; k++)
        assert_true(cs_plotstore_has(f->in, kinds[k]));
    assert_false(cs_plotstore_has(f->in, "landscape"));
    assert_false(cs_plotstore_has(f->in, "nosuch"));

    if (!have_gnuplot) {
        fails(f, "plot trace out=k.png", CS_GP_NOT_FOUND_MSG, -1);
        return;
    }
    for (size_t k = 0; k < 5; k++) {
        char line[64], file[32];
        snprintf(file, sizeof file, "%s.png", kinds[k]);
        snprintf(line, sizeof line, "plot %s out=%s", kinds[k], file);
        ok(f, line);
        assert_png(file, 1000, 700);
        snprintf(line, sizeof line, "plot %s term=dumb", kinds[k]);
        const char *out = ok(f, line);
        assert_true(strlen(out) > 200);
    }
    /* a replaced kind shows the new data */
    cs_plot_trace_data tr2 = {.n = 2, .objective = (double[]){5, 4}, .name = "dr"};
    assert_int_equal(cs_plotstore_trace(f->in, &tr2, &err), 0);
    ok(f, "plot trace out=trace2.png");
    assert_png("trace2.png", 1000, 700);
    cs_plotstore_clear(f->in);
    assert_false(cs_plotstore_has(f->in, "trace"));
}

/* The plot= helper, as another command module would call it. */
static void test_plot_key(void **state)
{
    fixture *f = *state;
    cs_err err;
    cs_cmdline cl;
    int col;
    cs_result *res = cs_result_new("solve");
    double obj[3] = {3, 2, 1};
    cs_plot_trace_data tr = {.n = 3, .objective = obj};
    assert_int_equal(cs_plotstore_trace(f->in, &tr, &err), 0);

    /* without plot=: nothing happens */
    assert_int_equal(cs_cmdline_parse("solve maxit=3", &cl, &col, &err), 0);
    assert_int_equal(cs_plot_key(f->in, &cl, "trace", res, &err), 0);
    assert_true(cs_result_empty(res));
    cs_cmdline_free(&cl);

    /* a bad extension is caught by the early check, naming the key */
    assert_int_equal(cs_cmdline_parse("solve plot=tr.csv", &cl, &col, &err), 0);
    assert_true(cs_plot_key_check(f->in, &cl, "plot", &err) < 0);
    assert_non_null(strstr(err.msg, "plot=tr.csv: cannot tell the plot format"));
    assert_int_equal(cs_plot_key_check(f->in, &cl, "out", &err), 0);   /* absent key */
    cs_cmdline_free(&cl);

    assert_int_equal(cs_cmdline_parse("solve plot=tr.png title=Mine", &cl, &col, &err), 0);
    int rc = cs_plot_key(f->in, &cl, "trace", res, &err);
    if (have_gnuplot) {
        assert_int_equal(rc, 0);
        assert_png("tr.png", 1000, 700);
        char *json;
        size_t len;
        FILE *m = open_memstream(&json, &len);
        cs_result_print_json(res, m);
        fclose(m);
        assert_string_equal(json, "{\"cmd\":\"solve\",\"plot\":\"tr.png\"}\n");
        free(json);
    } else {
        assert_true(rc < 0);
        assert_string_equal(err.msg, CS_GP_NOT_FOUND_MSG);
    }
    cs_cmdline_free(&cl);
    /* a kind with no data */
    assert_int_equal(cs_cmdline_parse("sweep plot=sw.png", &cl, &col, &err), 0);
    assert_true(cs_plot_key(f->in, &cl, "success", res, &err) < 0);
    assert_string_equal(err.msg, "nothing to plot: run sweep first");
    cs_cmdline_free(&cl);
    cs_result_free(res);

    /* landscape's own plot= */
    if (have_gnuplot) {
        const char *out = ok(f, "landscape res=21 out=lk.csv plot=lk.png");
        assert_non_null(strstr(out, "\"out\":\"lk.csv\",\"plot\":\"lk.png\""));
        assert_png("lk.png", 1000, 700);
    }
}

/* `set plot window`: plots without a file open a live window (needs DISPLAY). */
static void test_set_plot_window(void **state)
{
    fixture *f = *state;
    ok(f, "landscape res=5");
    fails(f, "plot landscape", "give a file", -1);
    fails(f, "set plot tv", "expected window", 10);
    ok(f, "set plot window");
    char *display = getenv("DISPLAY") ? strdup(getenv("DISPLAY")) : NULL;
    unsetenv("DISPLAY");
    fails(f, "plot landscape", "DISPLAY is not set", -1);
    if (display) {
        setenv("DISPLAY", display, 1);
        free(display);
    }
    ok(f, "set plot file");
    fails(f, "plot landscape", "give a file", -1);
}

/* File names go through the interpreter's path mapping (the sandbox). */
static void test_sandbox(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 7, 0, 1);
    assert_non_null(f);
    const char *sb = f->dir;
    const char *out = ok(f, "landscape res=5 out=/nonexistent/dir/sb.csv");
    char want[128];
    snprintf(want, sizeof want, "\"out\":\"%s/sb.csv\"", sb);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want, "%s/sb.csv", sb);
    assert_true(exists(want));
    if (have_gnuplot) {
        ok(f, "plot landscape out=../../sb.png");
        snprintf(want, sizeof want, "%s/sb.png", sb);
        assert_png(want, 1000, 700);
    }
    char dir[64];
    snprintf(dir, sizeof dir, "%s", sb);
    fixture_free(f);
    struct stat st;
    assert_int_equal(stat(dir, &st), -1); /* the folder and its files are gone */
}

/* ---- errors, each with its column ------------------------------------------------ */

static void test_errors(void **state)
{
    fixture *f = *state;
    /* "landscape " is 10 characters: the first key starts at column 11 */
    fails(f, "landscape res=2", "res=2: ", 11);
    fails(f, "landscape res=2", "out of range [3, 2001]", 11);
    fails(f, "landscape res=2002", "out of range [3, 2001]", 11);
    fails(f, "landscape res=abc", "res=abc", 11);
    fails(f, "landscape res=20.5", "res=20.5", 11);
    fails(f, "landscape x=2:-2", "x=2:-2: lo must be less than hi", 11);
    fails(f, "landscape x=1:1", "lo must be less than hi", 11);
    fails(f, "landscape y=abc", "y=abc: expected lo:hi (or lo:step:hi)", 11);
    fails(f, "landscape x=-2:2 y=1:2:3:4", "y=1:2:3:4: expected lo:hi", 18);
    fails(f, "landscape x=-2:0:2", "the step must be positive", 11);
    fails(f, "landscape x=-2:nan", "x=-2:nan: ", 11);
    fails(f, "landscape x=-2:1e999", "x=-2:1e999: ", 11);
    fails(f, "landscape x=:2", "x=:2: ", 11);
    fails(f, "landscape scale=foo", "scale=foo: expected one of log|lin", 11);
    fails(f, "landscape style=contour", "style=contour: expected one of heatmap|surface", 11);
    fails(f, "landscape term=x11", "term=x11: expected one of auto|dumb|window", 11);
    fails(f, "landscape out=x.xyz", "out=x.xyz: unknown output format", 11);
    fails(f, "landscape out=noext", "out=noext: unknown output format", 11);
    fails(f, "landscape out=a.b/noext", "unknown output format", 11);
    fails(f, "landscape plot=x.csv", "plot=x.csv: cannot tell the plot format", 11);
    fails(f, "landscape out=x.png term=dumb", "term=dumb draws on the screen", 21);
    fails(f, "landscape dims=1,2", "dims=1,2 needs at=X", 11);
    fails(f, "landscape at=1,2,3 dims=1,5", "dims=1,5: coordinate 5 is out of range [1, 3]", 20);
    fails(f, "landscape at=1,2,3 dims=0,1", "coordinate 0 is out of range", 20);
    fails(f, "landscape at=1,2,3 dims=2,2", "dims=2,2: the two coordinates must differ", 20);
    fails(f, "landscape at=1,2,3 dims=1.5,2", "coordinate 1.5 is not an integer", 20);
    fails(f, "landscape at=1,2,3 dims=1", "expected two coordinates i,j", 20);
    fails(f, "landscape at=1,2,3 dims=1,x", "dims=1,x: ", 20);
    fails(f, "landscape at=1,nan", "at=1,nan: ", 16);
    fails(f, "landscape at=1,2;3,4", "X must be a vector", 11);
    fails(f, "landscape at=5", "at least 2 entries", 11);
    fails(f, "landscape foo=1", "unknown key 'foo' for landscape", 11);
    fails(f, "landscape 1,2", "landscape takes no positional argument", 11);
    fails(f, "landscape x=-1e200:1e200", "landscape: bin at (-1e+200, -2)", -1);
    fails(f, "plot", "plot needs an argument", 1);
    fails(f, "plot foo out=a.png", "unknown plot kind 'foo' (one of landscape|trajectory|", 6);
    fails(f, "plot landscape out=a.png", "nothing to plot: run landscape first", 6);
    ok(f, "landscape res=5");
    fails(f, "plot landscape", "landscape: give a file (out=FILE.png|svg|pdf|gif), term=dumb, or set plot window",
          6);
    fails(f, "plot landscape out=a.xyz", "out=a.xyz: cannot tell the plot format", 16);
    fails(f, "plot landscape out=a.png term=dumb", "term=dumb draws on the screen", 26);
    fails(f, "plot landscape term=nope", "term=nope: expected one of auto|dumb|window", 16);
    fails(f, "plot landscape style=surface", "unknown key 'style' for plot", 16);
    if (!getenv("DISPLAY"))
        fails(f, "plot landscape term=window", "DISPLAY is not set", 16);
    /* missing folders are made, as for every output; a file in the way is
     * an error, and nothing half-written is left behind by any of this */
    ok(f, "landscape res=5 out=newdir/sub/x.csv");
    assert_int_equal(access("newdir/sub/x.csv", R_OK), 0);
    assert_int_equal(unlink("newdir/sub/x.csv") | rmdir("newdir/sub") | rmdir("newdir"), 0);
    cs_err gerr;
    if (cs_plot_available(&gerr) == CS_OK) {   /* the same for an image gnuplot writes */
        ok(f, "landscape res=5 out=newdir/sub/x.svg");
        assert_int_equal(access("newdir/sub/x.svg", R_OK), 0);
        assert_int_equal(unlink("newdir/sub/x.svg") | rmdir("newdir/sub") | rmdir("newdir"), 0);
    }
    FILE *in_way = fopen("afile", "w");
    assert_non_null(in_way);
    fclose(in_way);
    int before = count_entries(".");
    fails(f, "landscape res=5 out=afile/x.csv", "'afile' is not a folder", 17);
    assert_int_equal(count_entries("."), before);
    assert_int_equal(unlink("afile"), 0);
}

static void test_help(void **state)
{
    fixture *f = *state;
    const char *out = ok(f, "help landscape");
    assert_non_null(strstr(out, "dims"));
    assert_non_null(strstr(out, "2001"));
    out = ok(f, "help plot");
    assert_non_null(strstr(out, "landscape|trajectory|success|trace|hist|maxcut"));
    out = ok(f, "help");
    assert_non_null(strstr(out, "plots:"));
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(workdir, sizeof workdir, "/tmp/cs_cmdplot_XXXXXX");
    if (!mkdtemp(workdir) || chdir(workdir) != 0)
        return -1;
    cs_err err = {0};
    have_gnuplot = cs_gp_detect(NULL, &err) == CS_OK;
    if (!have_gnuplot)
        print_message("gnuplot not usable (%s): drawing tests check the message only\n",
                      err.msg);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    int pwned = exists("PWNED");
    clear_dir(workdir);
    if (chdir("/") != 0 || rmdir(workdir) != 0)
        return -1;
    return pwned ? -1 : 0;
}

#define T(fn, s) cmocka_unit_test_setup_teardown(fn, s, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_json_fields, setup_json),
        T(test_csv_exact, setup_json),
        T(test_csv_values, setup_json),
        T(test_slice_values, setup_json),
        T(test_regs_needing_more, setup_json),
        T(test_png_bin_osb_ter, setup_json),
        T(test_term_dumb_and_plot_again, setup_json),
        T(test_title_injection, setup_text),
        T(test_gnuplot_missing, setup_json),
        T(test_store_every_kind, setup_json),
        T(test_plot_key, setup_json),
        T(test_set_plot_window, setup_json),
        cmocka_unit_test(test_sandbox),
        T(test_errors, setup_json),
        T(test_help, setup_text),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
