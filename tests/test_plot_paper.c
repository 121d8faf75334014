/* test_plot_paper.c — figures for papers (#38 item 4): size= and font= as
 * the `set terminal` line of every format (and in the images gnuplot
 * writes), script=F.gp self-contained (a real gnuplot runs it alone in an
 * empty folder and writes the figure, the same bytes for a PNG), `plot KIND
 * out=F.csv` against the numbers the command computed, and bad values
 * refused naming the key, with nothing written.
 *
 * The commands run in process, their files in a private folder (the
 * fixture's sandbox). Tests that draw are skipped without gnuplot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_nn.h"
#include "gp.h"
#include "interp_util.h"
#include "plot.h"
#include "plot_util.h"

static fixture *sandbox(void) { return fixture_new(1, 1, 1, 1); }

/* f's file `name` (static buffer, one at a time). */
static const char *in_dir(const fixture *f, const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", f->dir, name);
    return p;
}

static char *read_in(const fixture *f, const char *name, size_t *len)
{
    char *s = slurp(in_dir(f, name), len);
    if (!s)
        fail_msg("%s was not written", name);
    return s;
}

/* The line of text that starts with prefix (malloc'd), or NULL. */
static char *line_with(const char *text, const char *prefix)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, prefix, strlen(prefix)))
            return strndup(p, strcspn(p, "\n"));
    return NULL;
}

static void assert_line(const char *text, const char *want)
{
    char *prefix = strndup(want, 13);   /* "set terminal " */
    char *got = line_with(text, prefix);
    if (!got || strcmp(got, want))
        fail_msg("terminal line\n  got:  %s\n  want: %s", got ? got : "(none)", want);
    free(got);
    free(prefix);
}

/* ---- plots/: the terminal line of each format --------------------------------- */

static char *land_script(cs_plot_opts o)
{
    plot_call p = {.kind = K_LAND, .land = land_data()};
    return script_of(&p, o);
}

static void test_terminal_lines(void **state)
{
    (void)state;
    char *s = land_script((cs_plot_opts){.out = "a.png", .width = 800, .height = 600});
    assert_line(s, "set terminal pngcairo size 800,600 enhanced font 'sans,12' "
                   "background '#ffffff'");
    free(s);
    s = land_script((cs_plot_opts){.out = "a.svg", .width_in = 3.5, .height_in = 2.5});
    assert_line(s, "set terminal svg size 336,240 enhanced font 'sans,12' fontscale 1.333333 "
                   "background '#ffffff'");
    free(s);
    s = land_script((cs_plot_opts){.out = "a.pdf", .width_in = 3.5, .height_in = 2.5,
                                   .font = "Helvetica,10"});
    assert_line(s, "set terminal pdfcairo size 3.5in,2.5in enhanced font 'Helvetica,10'");
    free(s);
    s = land_script((cs_plot_opts){.out = "a.gif", .width = 640, .height = 480, .font = ",9"});
    assert_line(s, "set terminal gif size 640,480 enhanced font ',9' background '#ffffff'");
    free(s);
    s = land_script((cs_plot_opts){.term = CS_PLOT_TERM_DUMB, .width = 60, .height = 20});
    assert_line(s, "set terminal dumb size 60,20");
    free(s);
    /* the defaults are today's lines, byte for byte */
    s = land_script((cs_plot_opts){.out = "a.pdf"});
    assert_line(s, "set terminal pdfcairo size 10.00in,7.00in enhanced font 'sans,12'");
    free(s);
    s = land_script((cs_plot_opts){.out = "a.svg"});
    assert_line(s, "set terminal svg size 1000,700 enhanced font 'sans,12' background '#ffffff'");
    free(s);
    /* a font is text: a quote in it stays inside the string */
    s = land_script((cs_plot_opts){.out = "a.png", .font = "x' ; system 'touch pwn"});
    assert_line(s, "set terminal pngcairo size 1000,700 enhanced font 'x' . \"'\" . ' ; system "
                   "' . \"'\" . 'touch pwn' background '#ffffff'");
    free(s);
}

static void test_option_errors(void **state)
{
    (void)state;
    plot_call p = {.kind = K_LAND, .land = land_data()};
    cs_err err;
    cs_plot_opts o = {.out = "a.png", .width_in = 3, .height_in = 2, .script = stderr};
    assert_int_equal(call_plot(&p, &o, &err), CS_EINVAL);
    assert_string_equal(err.msg, "landscape: a size in inches is for .pdf and .svg only");
    o = (cs_plot_opts){.out = "a.pdf", .width_in = 0.2, .height_in = 2, .script = stderr};
    assert_int_equal(call_plot(&p, &o, &err), CS_EINVAL);
    assert_string_equal(err.msg, "landscape: plot size 0.2 x 2 in out of range (0.5 to 100 "
                                 "inches)");
    o = (cs_plot_opts){.out = "a.pdf", .font = "Helvetica,abc", .script = stderr};
    assert_int_equal(call_plot(&p, &o, &err), CS_EINVAL);
    assert_string_equal(err.msg, "landscape: font 'Helvetica,abc': the size after the comma "
                                 "must be 1 to 200 points (e.g. Helvetica,10)");
    assert_int_equal(cs_plot_check_font(",0x10", &err), CS_EINVAL);
    assert_int_equal(cs_plot_check_font("Times,inf", &err), CS_EINVAL);
    assert_int_equal(cs_plot_check_font("a\tb", &err), CS_EINVAL);
    assert_int_equal(cs_plot_check_font("", &err), CS_EINVAL);
    assert_int_equal(cs_plot_check_font("Helvetica", &err), CS_OK);
    assert_int_equal(cs_plot_check_font("DejaVu Sans,10.5", &err), CS_OK);
}

/* ---- the commands: size= and font= in what gnuplot wrote ------------------------- */

static unsigned be32(const unsigned char *b)
{
    return (unsigned)b[0] << 24 | (unsigned)b[1] << 16 | (unsigned)b[2] << 8 | b[3];
}

static void test_sizes_drawn(void **state)
{
    (void)state;
    if (!have_gnuplot) {
        skip();
        return;
    }
    fixture *f = sandbox();
    const char *out = ok(f, "landscape res=11 out=a.png size=800x600 font=\"Helvetica,10\" "
                            "script=a.gp");
    assert_non_null(strstr(out, "\"script\":"));
    size_t len;
    unsigned char *png = (unsigned char *)read_in(f, "a.png", &len);
    assert_memory_equal(png + 12, "IHDR", 4);
    assert_int_equal(be32(png + 16), 800);
    assert_int_equal(be32(png + 20), 600);
    free(png);
    char *gp = read_in(f, "a.gp", NULL);
    assert_line(gp, "set terminal pngcairo size 800,600 enhanced font 'Helvetica,10' "
                    "background '#ffffff'");
    free(gp);

    ok(f, "plot landscape out=b.svg size=3.5x2.5 script=b.gp");
    char *svg = read_in(f, "b.svg", NULL);
    assert_non_null(strstr(svg, "width=\"336\" height=\"240\""));
    free(svg);
    gp = read_in(f, "b.gp", NULL);
    assert_line(gp, "set terminal svg size 336,240 enhanced font 'sans,12' fontscale 1.333333 "
                    "background '#ffffff'");
    free(gp);

    ok(f, "plot landscape out=c.pdf size=3.5x2.5 font=,9 script=c.gp");
    char *pdf = read_in(f, "c.pdf", &len);
    assert_non_null(memmem(pdf, len, "/MediaBox [ 0 0 252 180 ]", 25));   /* 72 pt an inch */
    free(pdf);
    gp = read_in(f, "c.gp", NULL);
    assert_line(gp, "set terminal pdfcairo size 3.5in,2.5in enhanced font ',9'");
    free(gp);

    ok(f, "plot landscape out=d.gif size=640x480");
    unsigned char *gif = (unsigned char *)read_in(f, "d.gif", &len);
    assert_int_equal(gif[6] | gif[7] << 8, 640);
    assert_int_equal(gif[8] | gif[9] << 8, 480);
    free(gif);

    /* term=dumb: characters, 20 lines of 60 */
    fixture *t = fixture_new(0, 1, 1, 1);
    ok(t, "landscape res=11 out=x.csv");
    const char *text = ok(t, "plot landscape term=dumb size=60x20");
    size_t widest = 0, full = 0;
    for (const char *p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
        size_t w = 0;   /* columns: UTF-8 lead bytes */
        for (const char *q = p; *q && *q != '\n'; q++)
            w += ((unsigned char)*q & 0xC0) != 0x80;
        widest = w > widest ? w : widest;
        full += w == 60;
    }
    assert_int_equal(widest, 60);
    assert_int_equal(full, 20);
    fixture_free(t);
    fixture_free(f);
}

/* ---- script=: self-contained -------------------------------------------------------- */

/* Run `gnuplot NAME.gp` alone in a fresh folder: it must write `image`,
 * the same bytes as the one csreg drew when same_bytes. */
static void rerun_alone(const fixture *f, const char *script, const char *image, int same_bytes)
{
    char *dir = make_tmpdir();
    size_t len;
    char *text = read_in(f, script, &len);
    char path[600], cmd[1400];
    snprintf(path, sizeof path, "%s/%s", dir, script);
    FILE *o = fopen(path, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(text, 1, len, o), len);
    fclose(o);
    free(text);
    assert_int_equal(count_entries(dir), 1);
    snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot '%s' 2>&1", dir, script);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(count_entries(dir), 2);   /* the script and its figure, nothing else */
    snprintf(path, sizeof path, "%s/%s", dir, image);
    size_t n1, n2;
    char *again = slurp(path, &n1);
    if (!again)
        fail_msg("gnuplot %s wrote no %s", script, image);
    char *first = read_in(f, image, &n2);
    if (same_bytes) {
        assert_int_equal(n1, n2);
        assert_memory_equal(again, first, n1);
    }
    free(again);
    free(first);
    remove_tmpdir(dir);
}

static void test_script_self_contained(void **state)
{
    (void)state;
    if (!have_gnuplot) {
        skip();
        return;
    }
    fixture *f = sandbox();
    ok(f, "landscape res=31 out=l.png size=640x480 font=,10 script=l.gp");
    char *gp = read_in(f, "l.gp", NULL);
    /* how it was made, then the figure: its data inline, its output as named */
    assert_memory_equal(gp, "# csreg: ", 9);
    assert_non_null(strstr(gp, "\n# seed: 1\n"));
    assert_non_null(strstr(gp, "\n# command: landscape res=31 out=l.png size=640x480 font=,10 "
                               "script=l.gp\n"));
    assert_non_null(strstr(gp, "\nset output './l.png'\n"));
    assert_non_null(strstr(gp, " << EOD\n"));
    assert_null(strstr(gp, "load "));
    free(gp);
    rerun_alone(f, "l.gp", "l.png", 1);

    /* a side-effect drawing (plot=) and the kinds of plot WHAT */
    ok(f, "problem bin N=2 M=1");
    ok(f, "solve maxit=60 plot=s.png script=s.gp");
    rerun_alone(f, "s.gp", "s.png", 1);
    ok(f, "plot trace out=t.svg size=4x3 script=t.gp");
    rerun_alone(f, "t.gp", "t.svg", 1);
    ok(f, "sweep kind=bin methods=bin,linf N=20 gamma=0.4:0.2:0.8 trials=4");
    ok(f, "plot success out=w.pdf size=3.5x2.5 font=\"Helvetica,9\" script=w.gp");
    rerun_alone(f, "w.gp", "w.pdf", 0);   /* a PDF holds its creation time */
    /* the script goes with the first drawing: plot= before an image out= */
    ok(f, "basins res=5 out=b1.png plot=b2.png script=b.gp");
    gp = read_in(f, "b.gp", NULL);
    assert_non_null(strstr(gp, "\nset output './b2.png'\n"));
    free(gp);
    fixture_free(f);
}

/* Without gnuplot a side-effect drawing is skipped, but its script is
 * written: the figure can be drawn where gnuplot is. */
static void test_script_without_gnuplot(void **state)
{
    (void)state;
    fixture *f = sandbox();
    ok(f, "problem bin N=30 gamma=0.6");
    cs_gp_set_program("/nonexistent/gnuplot");
    const char *out = ok(f, "solve plot=s.png size=640x480 script=s.gp");
    assert_non_null(strstr(out, "\"plot_skipped\":\"" CS_GP_NOT_FOUND_MSG "\""));
    assert_non_null(strstr(out, "\"script\":"));
    assert_null(strstr(out, "\"plot\":"));
    /* landscape draws itself: no gnuplot is an error there, and nothing is written */
    int before = count_entries(f->dir);
    fails(f, "landscape res=5 out=l.png script=l.gp", CS_GP_NOT_FOUND_MSG, -1);
    assert_int_equal(count_entries(f->dir), before);
    cs_gp_set_program(NULL);
    struct stat st;
    assert_int_equal(stat(in_dir(f, "s.png"), &st), -1);
    char *gp = read_in(f, "s.gp", NULL);
    assert_line(gp, "set terminal pngcairo size 640,480 enhanced font 'sans,12' "
                    "background '#ffffff'");
    free(gp);
    if (have_gnuplot) {
        char *dir = make_tmpdir();
        char cmd[1400];
        snprintf(cmd, sizeof cmd, "cp '%s' '%s' && cd '%s' && gnuplot s.gp", in_dir(f, "s.gp"),
                 dir, dir);
        assert_int_equal(system(cmd), 0);
        snprintf(cmd, sizeof cmd, "%s/s.png", dir);
        assert_int_equal(stat(cmd, &st), 0);
        remove_tmpdir(dir);
    }
    fixture_free(f);
}

/* ---- out=F.csv: the numbers ------------------------------------------------------------ */

/* A CSV without its '#' lines: rows of fields (no quoted commas here). */
typedef struct table {
    char *text;
    char **cell;      /* rows x cols, row 0 the header */
    size_t rows, cols;
} table;

static table read_table(const fixture *f, const char *name)
{
    table t = {slurp_csv(in_dir(f, name)), NULL, 0, 0};
    if (!t.text)
        fail_msg("%s was not written", name);
    size_t cap = 0;
    for (char *line = t.text; *line;) {
        char *end = strchr(line, '\n');
        assert_non_null(end);
        *end = '\0';
        size_t c = 0;
        for (char *p = line;; p++) {
            if (t.rows * (t.cols ? t.cols : 64) + c >= cap) {
                cap = cap ? 2 * cap : 4096;
                t.cell = realloc(t.cell, cap * sizeof *t.cell);
            }
            t.cell[t.rows * (t.cols ? t.cols : 64) + c++] = p;
            p = strchr(p, ',');
            if (!p)
                break;
            *p = '\0';
        }
        if (!t.rows) {   /* the header fixes the width */
            t.cols = c;
        } else if (c != t.cols) {
            fail_msg("%s: row %zu has %zu fields, the header %zu", name, t.rows, c, t.cols);
        }
        t.rows++;
        line = end + 1;
    }
    return t;
}

static int col_of(const table *t, const char *name)
{
    for (size_t c = 0; c < t->cols; c++)
        if (!strcmp(t->cell[c], name))
            return (int)c;
    fail_msg("no column %s", name);
    return -1;
}

static const char *at(const table *t, size_t r, int c) { return t->cell[r * t->cols + (size_t)c]; }

static void free_table(table *t)
{
    free(t->text);
    free(t->cell);
}

static void test_csv_landscape_and_basins(void **state)
{
    (void)state;
    fixture *f = sandbox();
    ok(f, "reg ter");
    ok(f, "landscape res=21 x=-1:2 y=-2:1 out=l.csv");
    assert_non_null(strstr(ok(f, "plot landscape out=p.csv"), "\"out\":"));
    /* the same grid, the same values, the same text */
    char *a = slurp_csv(in_dir(f, "l.csv")), *b = slurp_csv(in_dir(f, "p.csv"));
    assert_non_null(a);
    assert_non_null(b);
    assert_memory_equal(b, "x,y,value\n", 10);
    assert_string_equal(a, b);
    free(a);
    free(b);
    /* the '#' lines name the plot command that wrote it */
    b = read_in(f, "p.csv", NULL);
    assert_memory_equal(b, "x,y,value\n# csreg: ", 19);   /* the header, then how it was made */
    assert_non_null(strstr(b, "\n# command: plot landscape out=p.csv\n"));
    free(b);

    ok(f, "problem bin N=2 M=1");
    ok(f, "basins res=7 out=b.csv");
    ok(f, "plot basins out=pb.csv");
    table t = read_table(f, "b.csv"), u = read_table(f, "pb.csv");
    assert_int_equal(u.cols, 3);
    assert_string_equal(at(&u, 0, 0), "x");
    assert_string_equal(at(&u, 0, 2), "class");
    assert_int_equal(u.rows, t.rows);
    int tx = col_of(&t, "x"), ty = col_of(&t, "y"), tc = col_of(&t, "class");
    for (size_t r = 1; r < t.rows; r++) {
        assert_string_equal(at(&u, r, 0), at(&t, r, tx));
        assert_string_equal(at(&u, r, 1), at(&t, r, ty));
        assert_string_equal(at(&u, r, 2), at(&t, r, tc));
    }
    free_table(&t);
    free_table(&u);
    fixture_free(f);
}

static void test_csv_success(void **state)
{
    (void)state;
    fixture *f = sandbox();
    ok(f, "sweep kind=bin methods=bin,linf N=20 gamma=0.3:0.3:0.9 trials=6 out=sw.csv");
    ok(f, "plot success out=s.csv");
    table t = read_table(f, "sw.csv"), u = read_table(f, "s.csv");
    assert_int_equal(u.cols, 4);
    static const char *const head[] = {"method", "gamma", "success", "stderr"};
    for (int c = 0; c < 4; c++)
        assert_string_equal(at(&u, 0, c), head[c]);
    assert_int_equal(u.rows, 1 + 2 * 3);   /* two methods, three gammas */
    int tm = col_of(&t, "method"), tg = col_of(&t, "gamma"), ts = col_of(&t, "success"),
        te = col_of(&t, "stderr");
    for (size_t r = 1; r < u.rows; r++) {
        size_t hit = 0;
        for (size_t q = 1; q < t.rows; q++)
            if (!strcmp(at(&t, q, tm), at(&u, r, 0)) &&
                strtod(at(&t, q, tg), NULL) == strtod(at(&u, r, 1), NULL))
                hit = q;
        if (!hit)
            fail_msg("no sweep row for %s at %s", at(&u, r, 0), at(&u, r, 1));
        assert_true(strtod(at(&t, hit, ts), NULL) == strtod(at(&u, r, 2), NULL));
        assert_true(strtod(at(&t, hit, te), NULL) == strtod(at(&u, r, 3), NULL));
    }
    free_table(&t);
    free_table(&u);
    fixture_free(f);
}

static void test_csv_trace(void **state)
{
    (void)state;
    fixture *f = sandbox();
    ok(f, "problem bin N=60 gamma=0.5");
    ok(f, "solve restarts=3 maxit=200");
    ok(f, "trace out=t.csv");
    ok(f, "plot trace out=p.csv");
    table t = read_table(f, "t.csv"), u = read_table(f, "p.csv");
    static const char *const head[] = {"iter", "start", "objective", "residual", "tau",
                                       "rel_err"};
    assert_int_equal(u.cols, 6);
    for (int c = 0; c < 6; c++)
        assert_string_equal(at(&u, 0, c), head[c]);
    assert_int_equal(u.rows, t.rows);
    assert_true(u.rows > 10);
    for (size_t r = 1; r < t.rows; r++) {
        char n[32];
        snprintf(n, sizeof n, "%zu", r);
        assert_string_equal(at(&u, r, 0), n);   /* the record's number */
        for (int c = 1; c < 6; c++)
            assert_string_equal(at(&u, r, c), at(&t, r, col_of(&t, head[c])));
    }
    free_table(&t);
    free_table(&u);
    fixture_free(f);
}

/* The numbers of a JSON array "key":[...] into v (at most cap); their count. */
static size_t jarray(const char *json, const char *key, double *v, size_t cap)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":[", key);
    const char *p = strstr(json, pat);
    assert_non_null(p);
    p += strlen(pat);
    size_t n = 0;
    while (*p && *p != ']' && n < cap) {
        char *end;
        v[n++] = strtod(p, &end);
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

static void test_csv_hist(void **state)
{
    (void)state;
    if (access(CS_NN_DEFAULT_DATA "/train-images-idx3-ubyte.gz", R_OK) != 0) {
        skip();   /* no Fashion-MNIST here */
        return;
    }
    fixture *f = sandbox();
    ok(f, "train model=mlp epochs=1 limit=128 hidden=8");
    const char *out = ok(f, "hist bins=12");
    double edges[13], counts[12];
    assert_int_equal(jarray(out, "edges", edges, 13), 13);
    assert_int_equal(jarray(out, "counts", counts, 12), 12);
    ok(f, "plot hist out=h.csv");
    table u = read_table(f, "h.csv");
    assert_int_equal(u.cols, 4);
    assert_string_equal(at(&u, 0, 0), "snapshot");
    assert_int_equal((u.rows - 1) % 12, 0);
    /* the latest snapshot's bins are what hist counted */
    size_t last = u.rows - 12;
    for (size_t k = 0; k < 12; k++) {
        assert_true(strtod(at(&u, last + k, 1), NULL) == edges[k]);
        assert_true(strtod(at(&u, last + k, 2), NULL) == edges[k + 1]);
        assert_true(strtod(at(&u, last + k, 3), NULL) == counts[k]);
    }
    free_table(&u);
    fixture_free(f);
}

static void test_csv_other_kinds(void **state)
{
    (void)state;
    fixture *f = sandbox();
    ok(f, "problem bin N=2 M=1");
    ok(f, "solve maxit=30");
    ok(f, "plot trajectory out=tr.csv");
    table u = read_table(f, "tr.csv");
    assert_string_equal(at(&u, 0, 0), "start");
    assert_string_equal(at(&u, 0, 3), "y");
    assert_string_equal(at(&u, 1, 0), "1");   /* start 1, its start point first */
    assert_string_equal(at(&u, 1, 1), "0");
    free_table(&u);
    ok(f, "maxcut graph=toy5 trials=2 plot=m.svg");
    ok(f, "plot maxcut out=m.csv");
    u = read_table(f, "m.csv");
    assert_string_equal(at(&u, 0, 1), "iter");
    assert_string_equal(at(&u, 0, 2), "cut");
    assert_string_equal(at(&u, 1, 1), "1");
    free_table(&u);
    fixture_free(f);
}

/* ---- bad values: an error naming the key, at its column, nothing written ---------- */

static void refused(fixture *f, const char *line, const char *key, const char *needle)
{
    int before = count_entries(f->dir);
    const char *k = strstr(line, key);
    assert_non_null(k);
    fails(f, line, needle, (int)(k - line) + 1);
    assert_int_equal(count_entries(f->dir), before);
}

static void test_bad_values(void **state)
{
    (void)state;
    fixture *f = sandbox();
    refused(f, "plot success out=s.csv", "success", "nothing to plot: run sweep first");
    refused(f, "landscape res=5 out=a.png size=0x3", "size=",
            "size=0x3: a .png is sized in whole pixels, 100x100 to 20000x20000 (e.g. "
            "size=800x600)");
    refused(f, "landscape res=5 out=a.pdf size=0x3", "size=",
            "size=0x3: a .pdf is sized in inches, 0.5 to 100 each (e.g. size=3.5x2.5)");
    refused(f, "landscape res=5 out=a.png size=abc", "size=",
            "size=abc: expected WxH: size=3.5x2.5 (inches, .pdf .svg) or size=800x600 "
            "(pixels, .png .gif)");
    refused(f, "landscape res=5 out=a.svg size=3.5", "size=", "size=3.5: expected WxH");
    refused(f, "landscape res=5 out=a.svg size=nanx2", "size=", "size=nanx2: expected WxH");
    refused(f, "landscape res=5 out=a.png size=3.5x2.5", "size=",
            "size=3.5x2.5: a .png is sized in whole pixels");
    refused(f, "landscape res=5 out=a.png font=\",abc\"", "font=",
            "font=,abc: the size after the comma must be 1 to 200 points");
    refused(f, "landscape res=5 out=a.png script=a.png", "script=",
            "script=a.png: the script is gnuplot text");
    refused(f, "landscape res=5 out=a.csv script=a.gp", "script=",
            "script=a.gp: nothing is drawn here to apply it to");
    refused(f, "landscape res=5 size=800x600", "size=", "nothing is drawn here");
    refused(f, "landscape res=5 term=dumb font=Helvetica,10", "font=",
            "font=Helvetica,10: term=dumb draws text, without fonts");
    refused(f, "landscape res=5 term=dumb size=5x5", "size=",
            "size=5x5: term=dumb is sized in whole characters, 20x10 to 1000x1000");
    ok(f, "landscape res=5");
    int before = count_entries(f->dir);
    refused(f, "plot landscape out=x.csv size=800x600", "size=", "nothing is drawn here");
    refused(f, "plot landscape out=x.csv title=T", "title=", "title=: out=x.csv writes numbers");
    refused(f, "plot landscape out=a.png size=99x600", "size=", "whole pixels");
    refused(f, "plot landscape out=a.png script=a.png", "script=", "gnuplot text");
    /* commands that draw as a side effect check before their work */
    ok(f, "problem bin N=20 gamma=0.5");
    refused(f, "solve size=800x600", "size=", "size=800x600: nothing is drawn here");
    refused(f, "solve plot=s.png size=800", "size=", "size=800: expected WxH");
    refused(f, "basins res=5 out=b.csv font=,9", "font=", "nothing is drawn here");
    refused(f, "basins res=5 plot=b.pdf size=200x100", "size=", "a .pdf is sized in inches");
    assert_int_equal(count_entries(f->dir), before);
    fixture_free(f);
}

/* `help` lists the keys of every command that draws. */
static void test_help_lists_keys(void **state)
{
    (void)state;
    fixture *f = fixture_new(0, 1, 1, 0);
    static const char *const cmds[] = {"landscape", "plot", "solve", "step", "trace", "basins",
                                       "maxcut", "hist", "sweep"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char line[64];
        snprintf(line, sizeof line, "help %s", cmds[i]);
        const char *out = ok(f, line);
        if (!strstr(out, "\n  size ") || !strstr(out, "\n  font ") ||
            !strstr(out, "\n  script "))
            fail_msg("help %s does not list size= font= script=:\n%s", cmds[i], out);
    }
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terminal_lines),
        cmocka_unit_test(test_option_errors),
        cmocka_unit_test(test_sizes_drawn),
        cmocka_unit_test(test_script_self_contained),
        cmocka_unit_test(test_script_without_gnuplot),
        cmocka_unit_test(test_csv_landscape_and_basins),
        cmocka_unit_test(test_csv_success),
        cmocka_unit_test(test_csv_trace),
        cmocka_unit_test(test_csv_hist),
        cmocka_unit_test(test_csv_other_kinds),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_help_lists_keys),
    };
    return cmocka_run_group_tests(tests, plot_group_setup, NULL);
}
