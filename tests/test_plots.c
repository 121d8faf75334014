/* test_plots.c — the plots/ layer: gnuplot command text (golden files),
 * quoting of user text, real renders (PNG/SVG/PDF/GIF headers and sizes),
 * gnuplot errors, the missing-gnuplot message, atomic outputs.
 *
 * Goldens live in tests/golden/NAME.gp; CSREG_UPDATE_GOLDEN=1 rewrites them
 * (review the diff!). CSREG_GOLDEN_DIR overrides where they are. Tests that
 * need gnuplot are skipped when it is not installed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gp.h"
#include "plot.h"

static int have_gnuplot;

/* ---- helpers --------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *s = malloc(cap);
    for (;;) {
        if (n + 1 >= cap)
            s = realloc(s, cap *= 2);
        size_t r = fread(s + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0)
            break;
    }
    fclose(f);
    s[n] = '\0';
    if (len)
        *len = n;
    return s;
}

static char *make_tmpdir(void)
{
    char *d = strdup("/tmp/csreg-plots-XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void remove_tmpdir(char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
    free(dir);
}

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

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* ---- fixed small data sets ---------------------------------------------------- */

static double lbin2(double x, double y)
{
    return 2 * (x * x * x * x + y * y * y * y) - (x * x + y * y) * (x * x + y * y);
}

#define LNX 6
#define LNY 5
static double land_z[LNX * LNY];
static const double diag_x[2] = {-2, 2}, diag_y1[2] = {-2, 2}, diag_y2[2] = {2, -2};
static const double pt_x[1] = {0}, pt_y[1] = {0};
static cs_plot_curve land_targets[3];

static cs_plot_landscape_data land_data(void)
{
    for (int j = 0; j < LNY; j++)
        for (int i = 0; i < LNX; i++)
            land_z[j * LNX + i] = lbin2(-2 + 4.0 * i / (LNX - 1), -1 + 2.0 * j / (LNY - 1));
    land_targets[0] = (cs_plot_curve){diag_x, diag_y1, 2};
    land_targets[1] = (cs_plot_curve){diag_x, diag_y2, 2};
    land_targets[2] = (cs_plot_curve){pt_x, pt_y, 1};
    return (cs_plot_landscape_data){
        .reg = "bin", .nx = LNX, .ny = LNY, .x0 = -2, .x1 = 2, .y0 = -1, .y1 = 1,
        .z = land_z, .log_scale = 1, .target = land_targets, .ntarget = 3,
    };
}

static const double traj_xy[] = {1.5, 0.3, 1.2, 0.5, 1.0, 0.8, 0.9, 0.9};

static cs_plot_trajectory_data traj_data(void)
{
    return (cs_plot_trajectory_data){.land = land_data(), .xy = traj_xy, .n = 4, .name = "fista"};
}

static const double g_x[5] = {0.3, 0.4, 0.5, 0.6, 0.7};
static const double g_bin[5] = {0.1, 0.35, 0.8, 0.95, 1.0};
static const double g_bin_e[5] = {0.03, 0.048, 0.04, 0.022, 0.0};
static const double g_linf[5] = {0.0, 0.05, 0.4, 0.85, 1.0};
static const double g_linf_e[5] = {0.0, 0.022, 0.049, 0.036, 0.0};
static const double g_other[5] = {0.05, 0.2, 0.5, 0.7, 0.9};
static cs_plot_series succ_series[3];

static cs_plot_success_data success_data(void)
{
    succ_series[0] = (cs_plot_series){"bin", g_x, g_bin, g_bin_e, 5};
    succ_series[1] = (cs_plot_series){"linf", g_x, g_linf, g_linf_e, 5};
    succ_series[2] = (cs_plot_series){"my_method{x}", g_x, g_other, NULL, 5};
    return (cs_plot_success_data){.xvar = "gamma", .series = succ_series, .nseries = 3};
}

static const double tr_obj[5] = {10, 3, 1, 0.5, 0.45};
static const double tr_res[5] = {1, 0.1, 0.01, 1e-3, 1e-5};
static const double tr_tau[5] = {0.5, 0.5, 0.25, 0.25, 0.25};
static const double tr_err[5] = {1, 0.5, 0.1, 0.0, 0.0};

static cs_plot_trace_data trace_data(void)
{
    return (cs_plot_trace_data){.n = 5, .objective = tr_obj, .residual = tr_res,
                                .tau = tr_tau, .err_xstar = tr_err, .name = "fista"};
}

static const double h0[12] = {-1.2, -0.9, -0.5, -0.1, 0.0, 0.2, 0.3, 0.6, 0.8, 1.0, 1.1, 0.05};
static const double h1[12] = {-1.1, -1.0, -0.95, -0.9, 0.1, 0.9, 0.95, 1.0, 1.0, 1.05, -1.0, 1.0};
static const double h2[12] = {-1, -1, -1, -1, -1, 1, 1, 1, 1, 1, 1, -1};
static const double marks[2] = {-1, 1};
static cs_plot_hist_frame hist_frames[3];

static cs_plot_hist_data hist_data(size_t nframes)
{
    hist_frames[0] = (cs_plot_hist_frame){h0, 12, "epoch 0"};
    hist_frames[1] = (cs_plot_hist_frame){h1, 12, "epoch 5"};
    hist_frames[2] = (cs_plot_hist_frame){h2, 12, "epoch 20"};
    return (cs_plot_hist_data){.frames = hist_frames, .nframes = nframes, .bins = 8,
                               .marks = marks, .nmarks = 2, .xlabel = "weight"};
}

static const double mc_it[6] = {1, 2, 3, 4, 5, 6};
static const double mc_a[6] = {100, 150, 170, 180, 181, 181};
static const double mc_b[6] = {90, 140, 175, 178, 184, 185};
static cs_plot_series mc_series[2];

static cs_plot_maxcut_data maxcut_data(void)
{
    mc_series[0] = (cs_plot_series){"trial 1", mc_it, mc_a, NULL, 6};
    mc_series[1] = (cs_plot_series){"trial 2", mc_it, mc_b, NULL, 6};
    return (cs_plot_maxcut_data){.series = mc_series, .nseries = 2, .best = 190, .has_best = 1,
                                 .graph = "G10"};
}

/* The gnuplot text one plot call would send (script-only mode). */
typedef enum { K_LAND, K_TRAJ, K_SUCCESS, K_TRACE, K_HIST, K_MAXCUT } kind_t;

typedef struct plot_call {
    kind_t kind;
    cs_plot_landscape_data land;
    cs_plot_trajectory_data traj;
    cs_plot_success_data succ;
    cs_plot_trace_data trace;
    cs_plot_hist_data hist;
    cs_plot_maxcut_data mc;
} plot_call;

static int call_plot(const plot_call *p, const cs_plot_opts *o, cs_err *err)
{
    switch (p->kind) {
    case K_LAND: return cs_plot_landscape(&p->land, o, err);
    case K_TRAJ: return cs_plot_trajectory(&p->traj, o, err);
    case K_SUCCESS: return cs_plot_success(&p->succ, o, err);
    case K_TRACE: return cs_plot_trace(&p->trace, o, err);
    case K_HIST: return cs_plot_hist(&p->hist, o, err);
    default: return cs_plot_maxcut(&p->mc, o, err);
    }
}

static char *script_of(const plot_call *p, cs_plot_opts o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    o.script = f;
    cs_err err = {0};
    int rc = call_plot(p, &o, &err);
    fclose(f);
    if (rc != CS_OK)
        fail_msg("script-only plot failed: %s", err.msg);
    return buf;
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

/* Every user text must sit inside a '...' literal: outside the quotes of
 * every line there may be no marker text, and quotes must balance. */
static void assert_quoted_only(const char *script, const char *marker)
{
    int lineno = 1;
    for (const char *p = script; *p;) {
        char outside[8192];
        size_t n = 0;
        int inq = 0;
        for (; *p && *p != '\n'; p++) {
            if (*p == '\'') {
                if (inq && p[1] == '\'') {
                    p++;
                    continue;
                }
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

/* ---- quoting ------------------------------------------------------------------ */

static void test_quote(void **state)
{
    (void)state;
    static const struct { const char *in, *out; } cases[] = {
        {"plain", "'plain'"},
        {"", "''"},
        {"it's", "'it''s'"},
        {"''", "''''''"},
        {"a\"; system(\"touch PWNED\") #", "'a\"; system(\"touch PWNED\") #'"},
        {"`touch PWNED`", "'`touch PWNED`'"},
        {"a\nb\rc\td\x7f" "e", "'a b c d e'"},
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

/* What the title shows: control characters became spaces. */
static void shown(const char *in, char *out)
{
    for (; *in; in++)
        *out++ = (unsigned char)*in < 0x20 ? ' ' : *in;
    *out = '\0';
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
        char want[256];
        shown(evil_titles[t], want);
        /* dumb centres the title; compare without the padding spaces */
        while (want[strlen(want) - 1] == ' ')
            want[strlen(want) - 1] = '\0';
        if (!strstr(text, want))
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
    assert_int_equal(cs_plot_landscape(&d, &(cs_plot_opts){.out = "/nonexistent-dir/x.png"}, &err),
                     CS_EIO);
    assert_string_equal(err.msg,
                        "cannot write '/nonexistent-dir/x.png': directory '/nonexistent-dir' "
                        "does not exist");
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
                          NULL, NULL, &err);
    assert_int_equal(rc, CS_EIO);
    assert_non_null(strstr(err.msg, "no datablock named $NOPE"));
    char *s = slurp(out, NULL);
    assert_string_equal(s, "old");
    free(s);
    assert_int_equal(count_entries(dir), 1);
    /* and a good one replaces it */
    assert_int_equal(cs_gp_render("set terminal pngcairo size 200,100\n", "plot x\n", out, NULL,
                                  NULL, &err), CS_OK);
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

static int group_setup(void **state)
{
    (void)state;
    cs_err err = {0};
    have_gnuplot = cs_gp_detect(NULL, &err) == CS_OK;
    if (!have_gnuplot)
        print_message("gnuplot not usable (%s): rendering tests skipped\n", err.msg);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quote),
        cmocka_unit_test(test_injection_script),
        cmocka_unit_test(test_injection_gnuplot),
        cmocka_unit_test(test_golden_landscape),
        cmocka_unit_test(test_golden_trajectory),
        cmocka_unit_test(test_golden_success),
        cmocka_unit_test(test_golden_trace),
        cmocka_unit_test(test_golden_hist),
        cmocka_unit_test(test_golden_maxcut),
        cmocka_unit_test(test_landscape_values),
        cmocka_unit_test(test_contours_plane),
        cmocka_unit_test(test_hist_counts),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_gnuplot_missing),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_render_png_each_kind),
        cmocka_unit_test(test_render_svg_pdf_gif),
        cmocka_unit_test(test_render_dumb),
        cmocka_unit_test(test_gnuplot_errors),
        cmocka_unit_test(test_concurrent),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
