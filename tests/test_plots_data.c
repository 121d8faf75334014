/* test_plots_data.c — what plots/ sends to gnuplot, checked independently
 * of the goldens: the landscape's values, contour segments of a plane,
 * histogram counts, the math labels of methods, the terminal chosen by a
 * file's extension, and bad input (non-finite data, empty series, bad
 * output names, no display for a live window). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot.h"
#include "plot_util.h"

/* ---- independent checks of the data sent --------------------------------------- */

/* The rows of datablock `name` in script, as numbers (up to cap). */
static size_t block_rows(const char *script, const char *name, double *v, size_t cols,
                         size_t cap)
{
    char head[64];
    snprintf(head, sizeof head, "\n%s << EOD\n", name);
    const char *p = strstr(script, head);
    assert_non_null(p);
    p += strlen(head);
    size_t rows = 0;
    while (strncmp(p, "EOD\n", 4) != 0) {
        if (*p == '\n') {
            p++;
            continue;
        }
        for (size_t c = 0; c < cols; c++) {
            char *end;
            double x = strtod(p, &end);
            assert_true(end != p);
            if (rows < cap)
                v[rows * cols + c] = x;
            p = end;
        }
        assert_true(*p == '\n');
        p++;
        rows++;
    }
    return rows;
}

static void test_landscape_values(void **state)
{
    (void)state;
    plot_call p = {.kind = K_LAND, .land = land_data()};
    char *s = script_of(&p, (cs_plot_opts){.out = "x.png"});
    double v[LNX * LNY * 3];
    assert_int_equal(block_rows(s, "$Z", v, 3, LNX * LNY), LNX * LNY);
    double zmax = 0;
    for (int k = 0; k < LNX * LNY; k++)
        zmax = fmax(zmax, land_z[k]);
    for (int j = 0; j < LNY; j++)
        for (int i = 0; i < LNX; i++) {
            const double *r = v + 3 * (j * LNX + i);
            double x = -2 + 4.0 * i / (LNX - 1), y = -1 + 2.0 * j / (LNY - 1);
            double z = lbin2(x, y);
            assert_float_equal(r[0], x, 1e-6);
            assert_float_equal(r[1], y, 1e-6);
            assert_float_equal(r[2], log10(fmax(z, 1e-6 * zmax)), 1e-5);
        }
    free(s);
}

/* Contours of the plane z = x over [0,1]^2 are vertical lines at round x. */
static void test_contours_plane(void **state)
{
    (void)state;
    enum { N = 11 };
    double z[N * N];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            z[j * N + i] = 0.1 * i;
    plot_call p = {.kind = K_LAND};
    p.land = (cs_plot_landscape_data){.nx = N, .ny = N, .x0 = 0, .x1 = 1, .y0 = 0, .y1 = 1,
                                      .z = z, .contours = 4};
    char *s = script_of(&p, (cs_plot_opts){.out = "x.png"});
    double seg[200 * 4];
    size_t n = block_rows(s, "$C", seg, 4, 200);
    /* 4 levels -> step 0.25: x = 0.25, 0.5, 0.75; each crosses 10 cells */
    assert_int_equal(n, 30);
    int per_level[3] = {0, 0, 0};
    for (size_t k = 0; k < n; k++) {
        const double *r = seg + 4 * k;
        assert_float_equal(r[2], 0, 1e-12); /* vertical */
        assert_float_equal(fabs(r[3]), 0.1, 1e-9);
        int l = (int)lround(r[0] / 0.25) - 1;
        assert_true(l >= 0 && l < 3);
        assert_float_equal(r[0], 0.25 * (l + 1), 1e-9);
        per_level[l]++;
    }
    for (int l = 0; l < 3; l++)
        assert_int_equal(per_level[l], 10);
    free(s);
}

static void test_hist_counts(void **state)
{
    (void)state;
    /* 0..11 in 5 bins over [0, 10]: 2,2,2,2,3 (10 is the last bin's right
     * edge and counts there; 11 is outside and left out) */
    static const double v[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    cs_plot_hist_frame fr = {v, 12, NULL};
    plot_call p = {.kind = K_HIST};
    p.hist = (cs_plot_hist_data){.frames = &fr, .nframes = 1, .bins = 5, .lo = 0, .hi = 10};
    char *s = script_of(&p, (cs_plot_opts){.out = "x.png"});
    double rows[5 * 2];
    assert_int_equal(block_rows(s, "$H1", rows, 2, 5), 5);
    static const double centre[5] = {1, 3, 5, 7, 9}, cnt[5] = {2, 2, 2, 2, 3};
    for (int k = 0; k < 5; k++) {
        assert_float_equal(rows[2 * k], centre[k], 1e-12);
        assert_float_equal(rows[2 * k + 1], cnt[k], 0);
    }
    assert_non_null(strstr(s, "set boxwidth 2 absolute\n"));
    free(s);
}

static void test_labels(void **state)
{
    (void)state;
    assert_string_equal(cs_plot_method_label("bin"), "ℓ_{bin}");
    assert_string_equal(cs_plot_method_label("osb"), "ℓ_{osb}");
    assert_string_equal(cs_plot_method_label("ter"), "ℓ_{ter}");
    assert_string_equal(cs_plot_method_label("linf"), "ℓ^{∞}");
    assert_string_equal(cs_plot_method_label("l1"), "ℓ^{1}");
    assert_null(cs_plot_method_label("nonsense"));
    assert_null(cs_plot_method_label(NULL));
    /* the paper's names of the variants, and methods with keys */
    assert_string_equal(cs_plot_method_label("holder"), "ℓ_{bin,H}");
    assert_string_equal(cs_plot_method_label("si"), "ℓ_{bin,si}");
    assert_string_equal(cs_plot_method_label("binexp"), "ℓ_{bin,exp}");
    assert_string_equal(cs_plot_method_label("l2l1"), "~ℓ{.8\\~}_{bin}");
    assert_string_equal(cs_plot_method_label("mu"), "ℓ_{μ}");
    assert_string_equal(cs_plot_method_label("beta:beta=1"), "ℓ_{β}, β=1");
    assert_string_equal(cs_plot_method_label("beta:beta=learn"), "ℓ_{β}, learned β");
    assert_string_equal(cs_plot_method_label("holder:base=ter:p=3"), "ℓ_{ter,H}, p=3");
    assert_string_equal(cs_plot_method_label("si:eps=0.1"), "ℓ_{bin,si}, ε=0.1");
    assert_string_equal(cs_plot_method_label("equ:B=3"), "ℓ_{equ}, B=3");
    assert_null(cs_plot_method_label("nonsense:beta=1"));
    assert_null(cs_plot_method_label("beta:beta=a_{b}"));   /* markup: shown literally */
    assert_null(cs_plot_method_label("holder:base=xyz"));
    assert_null(cs_plot_method_label("beta:beta"));
    plot_call p = {.kind = K_SUCCESS, .succ = success_data()};
    char *s = script_of(&p, (cs_plot_opts){.out = "x.png"});
    assert_non_null(strstr(s, "title 'ℓ_{bin}' enhanced"));
    assert_non_null(strstr(s, "title 'ℓ^{∞}' enhanced"));
    assert_non_null(strstr(s, "title 'my_method{x}' noenhanced")); /* unknown: literal */
    assert_non_null(strstr(s, "with yerrorlines"));
    free(s);
    /* a sweep of methods with keys: math labels in the legend */
    double gx[2] = {0.3, 0.5}, gy[2] = {0.1, 0.9};
    cs_plot_series ks[2] = {{.name = "beta:beta=1", .x = gx, .y = gy, .n = 2},
                            {.name = "beta:beta=learn", .x = gx, .y = gy, .n = 2}};
    plot_call kp = {.kind = K_SUCCESS,
                    .succ = {.xvar = "gamma", .series = ks, .nseries = 2}};
    s = script_of(&kp, (cs_plot_opts){.out = "x.png"});
    assert_non_null(strstr(s, "title 'ℓ_{β}, β=1' enhanced"));
    assert_non_null(strstr(s, "title 'ℓ_{β}, learned β' enhanced"));
    assert_null(strstr(s, "beta:beta"));
    free(s);
    /* terminals by extension */
    cs_plot_term t;
    cs_err err = {0};
    assert_int_equal(cs_plot_term_from_path("a/b.PNG", &t, &err), CS_OK);
    assert_int_equal(t, CS_PLOT_TERM_PNG);
    assert_int_equal(cs_plot_term_from_path("b.svg", &t, &err), CS_OK);
    assert_int_equal(t, CS_PLOT_TERM_SVG);
    assert_int_equal(cs_plot_term_from_path("b.pdf", &t, &err), CS_OK);
    assert_int_equal(t, CS_PLOT_TERM_PDF);
    assert_int_equal(cs_plot_term_from_path("b.gif", &t, &err), CS_OK);
    assert_int_equal(t, CS_PLOT_TERM_GIF);
    assert_int_equal(cs_plot_term_from_path("b.bmp", &t, &err), CS_EINVAL);
    assert_string_equal(err.msg,
                        "cannot tell the plot format from 'b.bmp': use .png, .svg, .pdf or .gif");
    assert_int_equal(cs_plot_term_from_path("dir.png/b", &t, &err), CS_EINVAL);
}

static void test_bad_input(void **state)
{
    (void)state;
    cs_err err = {0};
    cs_plot_landscape_data d = land_data();
    double z[LNX * LNY];
    memcpy(z, land_z, sizeof z);
    z[7] = NAN;
    d.z = z;
    assert_int_equal(cs_plot_landscape(&d, &(cs_plot_opts){.out = "x.png"}, &err),
                     CS_ENONFINITE);
    assert_string_equal(err.msg, "landscape: z[7] is NaN");
    d = land_data();
    d.nx = 1;
    assert_int_equal(cs_plot_landscape(&d, &(cs_plot_opts){.out = "x.png"}, &err), CS_EDIM);
    d = land_data();
    assert_int_equal(cs_plot_landscape(&d, &(cs_plot_opts){.out = "x.jpg"}, &err), CS_EINVAL);
    /* missing folders are made; a file where a folder should be is an error */
    char file[] = "/tmp/csreg_notdir_XXXXXX", notdir[64], msg[160];
    int fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    snprintf(notdir, sizeof notdir, "%s/x.png", file);
    assert_int_equal(cs_plot_landscape(&d, &(cs_plot_opts){.out = notdir}, &err), CS_EIO);
    snprintf(msg, sizeof msg, "cannot write '%s': '%s' is not a folder", notdir, file);
    assert_string_equal(err.msg, msg);
    unlink(file);
    assert_int_equal(cs_plot_landscape(&d, &(cs_plot_opts){.out = "a\nb.png"}, &err), CS_EINVAL);
    assert_int_equal(cs_plot_landscape(&d, &(cs_plot_opts){.term = CS_PLOT_TERM_DUMB}, &err),
                     CS_EINVAL);
    assert_int_equal(cs_plot_landscape(&d, NULL, &err), CS_EINVAL);
    cs_plot_success_data sd = success_data();
    sd.nseries = 0;
    assert_int_equal(cs_plot_success(&sd, &(cs_plot_opts){.out = "x.png"}, &err), CS_EINVAL);
    cs_plot_trace_data td = {.n = 3};
    assert_int_equal(cs_plot_trace(&td, &(cs_plot_opts){.out = "x.png"}, &err), CS_EINVAL);
    double bad[3] = {1, INFINITY, 2};
    cs_plot_hist_frame fr = {bad, 3, NULL};
    cs_plot_hist_data hd = {.frames = &fr, .nframes = 1};
    assert_int_equal(cs_plot_hist(&hd, &(cs_plot_opts){.out = "x.png"}, &err), CS_ENONFINITE);
    assert_string_equal(err.msg, "hist: snapshot 1 value[1] is infinite");
    /* no live window without a display */
    char *display = getenv("DISPLAY") ? strdup(getenv("DISPLAY")) : NULL;
    unsetenv("DISPLAY");
    d = land_data();
    int rc = cs_plot_landscape(&d, &(cs_plot_opts){.term = CS_PLOT_TERM_WINDOW}, &err);
    if (have_gnuplot || rc != CS_ENOTFOUND) {
        assert_int_equal(rc, CS_EUNSUPPORTED);
        assert_string_equal(err.msg, "landscape: no live window: DISPLAY is not set");
    }
    if (display) {
        setenv("DISPLAY", display, 1);
        free(display);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_landscape_values),
        cmocka_unit_test(test_contours_plane),
        cmocka_unit_test(test_hist_counts),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, plot_group_setup, NULL);
}
