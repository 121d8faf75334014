/* test_sweep_vary.c — `sweep vary=KEY:LIST`: one run per value, each row
 * the row a sweep with KEY=value alone writes (the same problems and
 * starts), the value as the CSV's first column; a one-point grid plots
 * against the values; bad keys and values refused at their column, nothing
 * written; and the provenance lines every sweep CSV begins with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp_util.h"

/* The data lines of a CSV (its '#' lines dropped), joined. */
static char *data_lines(const char *path)
{
    char *all = slurp(path, NULL);
    assert_non_null(all);
    char *out = calloc(strlen(all) + 1, 1);
    size_t n = 0;
    for (char *p = all; *p;) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (*p != '#') {
            memcpy(out + n, p, len);
            n += len;
        }
        p += len;
    }
    free(all);
    return out;
}

/* Line i (0-based) of text, into buf. */
static void line_of(const char *text, int i, char *buf, size_t cap)
{
    const char *p = text;
    for (; i > 0 && p; i--) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    assert_non_null(p);
    size_t len = strcspn(p, "\n");
    assert_true(len < cap);
    memcpy(buf, p, len);
    buf[len] = '\0';
}

static void check_rows_match(fixture *f, const char *vary_line, const char *one_base,
                             const char *key, const double *vals, size_t nv, size_t rows_per)
{
    char path[256], line[1024];
    snprintf(path, sizeof path, "%s/v.csv", f->dir);
    ok(f, "seed 7");
    snprintf(line, sizeof line, "%s out=v.csv", vary_line);
    ok(f, line);
    char *v = data_lines(path);
    char want[256];
    snprintf(want, sizeof want, "%s,method,kind,N,M,gamma,K,", key);
    assert_memory_equal(v, want, strlen(want));
    for (size_t i = 0; i < nv; i++) {
        ok(f, "seed 7");
        snprintf(line, sizeof line, "%s %s=%.10g", one_base, key, vals[i]);
        strcat(line, " out=one.csv");
        ok(f, line);
        snprintf(path, sizeof path, "%s/one.csv", f->dir);
        char *one = data_lines(path);
        for (size_t r = 0; r < rows_per; r++) {
            char a[512], b[512], expect[600];
            line_of(v, (int)(1 + i * rows_per + r), a, sizeof a);
            line_of(one, (int)(1 + r), b, sizeof b);
            snprintf(expect, sizeof expect, "%.10g,%s", vals[i], b);
            assert_string_equal(a, expect);
        }
        free(one);
    }
    free(v);
    snprintf(path, sizeof path, "%s/v.csv.journal.v0", f->dir);
    assert_int_not_equal(access(path, F_OK), 0);   /* journals go once the CSV is written */
}

static void vary_noise_is_separate_sweeps(void **state)
{
    fixture *f = *state;
    const double vals[] = {0, 0.05, 0.2};
    check_rows_match(f, "sweep kind=bin methods=bin,linf N=30 gamma=0.5,0.7 trials=4 "
                     "restarts=3 maxit=400 fit=ls vary=noise:0,0.05,0.2",
                     "sweep kind=bin methods=bin,linf N=30 gamma=0.5,0.7 trials=4 restarts=3 "
                     "maxit=400 fit=ls", "noise", vals, 3, 4);
}

static void vary_lambda_and_K(void **state)
{
    fixture *f = *state;
    const double lam[] = {0.05, 0.1, 0.15};
    check_rows_match(f, "sweep kind=bin methods=bin N=20 gamma=0.6 trials=3 restarts=2 "
                     "maxit=300 fit=ls noise=0.05 vary=lambda:0.05:0.05:0.15",
                     "sweep kind=bin methods=bin N=20 gamma=0.6 trials=3 restarts=2 maxit=300 "
                     "fit=ls noise=0.05", "lambda", lam, 3, 1);
    const double K[] = {2, 5};
    check_rows_match(f, "sweep kind=osb methods=osb N=20 gamma=0.4,0.8 trials=3 maxit=300 "
                     "vary=K:2,5",
                     "sweep kind=osb methods=osb N=20 gamma=0.4,0.8 trials=3 maxit=300",
                     "K", K, 2, 2);
}

/* A one-point grid: the JSON's x is the values, one success per value. */
static void one_point_plots_against_values(void **state)
{
    fixture *f = *state;
    const char *out = ok(f, "sweep kind=bin methods=bin,linf N=20 gamma=0.7 trials=3 "
                         "vary=maxit:50,100,200");
    const char *x = strstr(out, "\"maxit\":[50,100,200]");
    assert_non_null(x);
    assert_non_null(strstr(out, "\"success_bin\":["));
    assert_non_null(strstr(out, "\"success_linf\":["));
    /* the rows carry the value */
    assert_non_null(strstr(out, "{\"maxit\":200,\"method\":\"linf\""));
}

static void bad_vary(void **state)
{
    fixture *f = *state;
    const char *base = "sweep kind=bin N=20 gamma=0.5 trials=2 out=bad.csv ";
    char line[512];
    struct { const char *arg, *needle; } cases[] = {
        {"vary=foo:1,2", "vary=foo: not a key sweep can vary"},
        {"vary=gamma:0.5,0.6", "gamma= is already the grid"},
        {"vary=M:5,6", "the grid is gamma="},
        {"vary=maxit:10,1.5", "maxit=1.5 must be a whole number"},
        {"vary=noise:0.1,0.1", "noise=0.1 is listed twice"},
        {"vary=noise:-1", "noise=-1 must be >= 0"},
        {"vary=lambda:0", "lambda=0 must be > 0"},
        {"vary=noise", "expected NAME:LIST"},
        {"vary=noise:a,b", "malformed number 'a'"},
        {"maxit=3 vary=maxit:1,2", "maxit= is also given"},
    };
    int col = (int)strlen(base) + 1;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(line, sizeof line, "%s%s", base, cases[i].arg);
        /* at vary=, or at the entry at fault */
        int at = !strncmp(cases[i].arg, "vary=noise:a", 12) ? col + 11
                 : strncmp(cases[i].arg, "vary", 4) ? -1 : col;
        fails(f, line, cases[i].needle, at);
    }
    fails(f, "sweep kind=bin M=5,15 trials=2 out=bad.csv vary=N:10,30",
          "vary=N: N=10 is below the grid's largest value", 44);
    char path[256];
    snprintf(path, sizeof path, "%s/bad.csv", f->dir);
    assert_int_not_equal(access(path, F_OK), 0);
}

/* Every sweep CSV says how it was made, in comment lines right after the
 * header (numpy's genfromtxt(names=True) takes the first line as the
 * names), and a reader that skips '#' lines gets the header first. */
static void provenance_lines(void **state)
{
    fixture *f = *state;
    ok(f, "seed 11");
    ok(f, "sweep kind=bin methods=bin N=20 gamma=0.5 trials=2 maxit=100 title=\"a b\" "
          "out=p.csv");
    char path[256];
    snprintf(path, sizeof path, "%s/p.csv", f->dir);
    char *all = slurp(path, NULL);
    char l[1024];
    line_of(all, 0, l, sizeof l);
    assert_string_equal(l, "method,kind,N,M,gamma,K,trials,success,stderr,mean_iters,"
                           "mean_restarts,seconds,stop");
    line_of(all, 1, l, sizeof l);
    char want[128];
    snprintf(want, sizeof want, "# csreg: %s (commit ", CSREG_VERSION);
    assert_memory_equal(l, want, strlen(want));
    line_of(all, 2, l, sizeof l);
    assert_string_equal(l, "# seed: 11");
    line_of(all, 3, l, sizeof l);
    assert_string_equal(l, "# command: sweep kind=bin methods=bin N=20 gamma=0.5 trials=2 "
                           "maxit=100 title=\"a b\" out=p.csv");
    line_of(all, 4, l, sizeof l);
    assert_memory_equal(l, "bin,bin,20,10,0.5,", 18);
    free(all);
    /* the journaled command line replays to the same bytes */
    ok(f, "seed 11");
    ok(f, "sweep kind=bin methods=bin N=20 gamma=0.5 trials=2 maxit=100 title=\"a b\" "
          "out=q.csv");
    char qpath[256];
    snprintf(qpath, sizeof qpath, "%s/q.csv", f->dir);
    char *p = data_lines(path), *q = data_lines(qpath);
    assert_string_equal(p, q);
    free(p), free(q);
}

/* plot success from=A.csv,B.csv: the curves of two sweep CSVs in one
 * figure, their numbers those of the files (out=F.csv writes them back). */
static void plot_success_from_csvs(void **state)
{
    fixture *f = *state;
    ok(f, "sweep kind=bin methods=bin N=20 gamma=0.6 trials=4 maxit=300 vary=noise:0,0.1 "
          "fit=affine out=a.csv");
    ok(f, "sweep kind=bin methods=bin N=20 gamma=0.6 trials=4 maxit=300 vary=noise:0,0.1 "
          "fit=ls out=b.csv");
    ok(f, "plot success from=a.csv,b.csv labels=affine,\"least squares\" out=c.csv");
    char path[256];
    snprintf(path, sizeof path, "%s/c.csv", f->dir);
    char *c = data_lines(path);
    assert_memory_equal(c, "method,noise,success,stderr\n", 28);
    /* each input row's success and stderr, under its curve's name */
    const char *files[] = {"a.csv", "b.csv"}, *names[] = {"bin (affine)", "bin (least squares)"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", f->dir, files[k]);
        char *in = data_lines(path);
        for (int r = 1; r <= 2; r++) {
            char line[512], want[512];
            line_of(in, r, line, sizeof line);
            char *cols[16];
            int n = 0;
            for (char *t = strtok(line, ","); t && n < 16; t = strtok(NULL, ","))
                cols[n++] = t;
            assert_int_equal(n, 14);   /* noise,method,kind,N,M,gamma,K,trials,success,stderr,.. */
            snprintf(want, sizeof want, "%s,%s,%s,%s", names[k], cols[0], cols[8], cols[9]);
            line_of(c, 1 + k * 2 + (r - 1), line, sizeof line);
            assert_string_equal(line, want);
        }
        free(in);
    }
    free(c);
    ok(f, "plot success from=a.csv,b.csv out=both.png");
    fails(f, "plot success from=a.csv,b.csv labels=one out=x.png", "1 labels for 2 files", -1);
    fails(f, "plot landscape from=a.csv out=x.png", "for plot success from=", -1);
    FILE *bad = fopen(path, "w");   /* b.csv: not a sweep CSV any more */
    fputs("x,y\n1,2\n", bad);
    fclose(bad);
    fails(f, "plot success from=a.csv,b.csv out=x.png", "not a sweep CSV", -1);
}

static int setup(void **state)
{
    *state = fixture_new(1, 1, 2, 1);
    return *state ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(vary_noise_is_separate_sweeps, setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(vary_lambda_and_K, setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(one_point_plots_against_values, setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(bad_vary, setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(provenance_lines, setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(plot_success_from_csvs, setup, fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
