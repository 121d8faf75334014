/* test_geometry_cmds.c — seeing why a solve succeeds or fails, through the
 * interpreter: the layers a trajectory plot and a landscape draw, rewind
 * then step equal to stepping straight on (compared with `x`) and forks of
 * the stop keys, the basin map of a 2D problem over 31×31 starts (the same
 * on 1 and 2 threads), the backtracking ledger against the trace, and
 * `trace rules` against separate runs with each rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_interp.h"
#include "interp_util.h"
#include "plot.h"

static int have_gnuplot;

static int setup(void **state)
{
    *state = fixture_new(1, 3, 2, 1);
    return *state ? 0 : -1;
}
#define teardown fixture_teardown

static char *in_dir(fixture *f, const char *name)
{
    static char p[2][2048];
    static int k;
    k = !k;
    snprintf(p[k], sizeof p[k], "%s/%s", f->dir, name);
    return p[k];
}

/* The text of the JSON value after "key": up to the matching bracket or
 * the next comma, into buf. */
static const char *jvalue(const char *json, const char *key, char *buf, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    assert_non_null(p);
    p += strlen(pat);
    size_t n = 0;
    int depth = 0;
    while (p[n] && n + 1 < len) {
        if (p[n] == '[' || p[n] == '{')
            depth++;
        if (p[n] == ']' || p[n] == '}') {
            if (depth == 0)
                break;
            depth--;
        }
        if (p[n] == ',' && depth == 0)
            break;
        n++;
    }
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

/* ---- layers ---------------------------------------------------------------- */

/* A run whose first start fails: every layer, with the names tests and
 * scripts rely on; the drawing has the feasible set and both starts. */
static void test_trajectory_layers(void **state)
{
    fixture *f = *state;
    ok(f, "seed 26");
    ok(f, "problem bin N=2 M=1");
    const char *o = ok(f, "solve maxit=60");
    assert_int_equal((int)jnum(o, "restarts"), 2);
    assert_int_equal((int)jnum(o, "success"), 1);
    if (!have_gnuplot)
        return;
    char buf[512];
    o = ok(f, "plot trajectory out=t.svg");
    assert_string_equal(jvalue(o, "layers", buf, sizeof buf),
                        "[\"target\",\"constraint\",\"xstar\",\"start\",\"trajectory\","
                        "\"iterate\"]");
    char *svg = slurp(in_dir(f, "t.svg"), NULL);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "feasible set Ax = b"));
    assert_non_null(strstr(svg, "other starts"));
    assert_non_null(strstr(svg, "starts"));
    free(svg);
    /* before any step: the problem's geometry, no path */
    ok(f, "reset");
    o = ok(f, "landscape res=41 out=l.svg");
    assert_string_equal(jvalue(o, "layers", buf, sizeof buf),
                        "[\"target\",\"constraint\",\"xstar\"]");
    /* a slice of a larger problem through the iterate: the feasible set's
     * slice is a line through it (M = 1); the iterate's other entries are
     * not ±a alike, so the slice misses the target set */
    ok(f, "problem bin N=5 M=1");
    ok(f, "step n=3");
    o = ok(f, "x");
    char x[512], line[700];
    jvalue(o, "x", x, sizeof x);
    x[strlen(x) - 1] = '\0';
    snprintf(line, sizeof line, "landscape at=%s dims=2,4 res=41 x=-3:3 y=-3:3 out=s.svg",
             x + 1);
    o = ok(f, line);
    assert_string_equal(jvalue(o, "layers", buf, sizeof buf),
                        "[\"constraint\",\"xstar\",\"iterate\"]");
}

/* ---- rewind ------------------------------------------------------------------- */

static void x_of(fixture *f, char *buf, size_t len)
{
    jvalue(ok(f, "x"), "x", buf, len);
}

/* rewind 10 + step n=40 is step n=50, to the last bit; a changed stop key
 * after a rewind forks the run, and the journal replays the fork. */
static void test_rewind_step_equals_step(void **state)
{
    fixture *f = *state;
    char a[4096], b[4096];
    ok(f, "problem bin N=50 M=20");
    ok(f, "step n=50");
    const char *o = ok(f, "rewind 10");
    assert_int_equal((int)jnum(o, "iter"), 10);
    o = ok(f, "step n=40");
    assert_int_equal((int)jnum(o, "iter"), 50);
    x_of(f, a, sizeof a);
    ok(f, "reset");
    ok(f, "step n=50");
    x_of(f, b, sizeof b);
    assert_string_equal(a, b);
    assert_true(strlen(a) > 50 * 3);
    /* the x of iteration 10 is the one rewind returns to */
    ok(f, "reset");
    ok(f, "step n=10");
    x_of(f, b, sizeof b);
    ok(f, "step n=7");
    ok(f, "rewind 10");
    x_of(f, a, sizeof a);
    assert_string_equal(a, b);
    /* fork: a new tolerance applies in place, the iterations so far stay */
    o = ok(f, "step stop=residual tol=1e-3");
    assert_int_equal((int)jnum(o, "forked"), 1);
    assert_int_equal((int)jnum(o, "iter"), 11);
    o = ok(f, "solve stop=residual tol=1e-3");
    long fork_iters = (long)jnum(o, "iters");
    assert_true(fork_iters > 11);
    /* a finished run is not forked: other stop keys make a new run */
    o = ok(f, "step maxit=500");
    assert_true(isnan(jnum(o, "forked")));
    assert_int_equal((int)jnum(o, "iter"), 1);
    /* the journal has the rewind and the step with its keys: a replay of
     * the lines ends at the same iterate */
    size_t n = cs_interp_journal_len(f->in);
    int saw_rewind = 0, saw_fork = 0;
    for (size_t i = 0; i < n; i++) {
        saw_rewind |= !strcmp(cs_interp_journal_line(f->in, i), "rewind 10");
        saw_fork |= !strcmp(cs_interp_journal_line(f->in, i), "step stop=residual tol=1e-3");
    }
    assert_true(saw_rewind && saw_fork);
    x_of(f, a, sizeof a);
    fixture *g = fixture_new(1, 3, 2, 1);
    for (size_t i = 0; i < n; i++)
        ok(g, cs_interp_journal_line(f->in, i));
    jvalue(ok(g, "x"), "x", b, sizeof b);
    assert_string_equal(a, b);
    fixture_free(g);
    /* errors */
    fails(f, "rewind 600", "rewind takes 0..1", 8);
    fails(f, "rewind -1", "K is an iteration number", 8);
    ok(f, "problem bin N=4 M=2");
    fails(f, "rewind 0", "nothing solved yet", 1);
    fails(f, "x", "nothing solved yet", 1);
}

/* ---- basins ----------------------------------------------------------------- */

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_basins_31(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=2 M=1");
    const char *o = ok(f, "basins res=31 threads=1 out=b1.csv");
    char buf[512];
    jvalue(o, "counts", buf, sizeof buf);
    long c[4];
    assert_int_equal(sscanf(buf, "{\"success\":%ld,\"other\":%ld,\"spurious\":%ld,"
                                 "\"not_converged\":%ld}", &c[0], &c[1], &c[2], &c[3]),
                     4);
    assert_int_equal(c[0] + c[1] + c[2] + c[3], 31 * 31);
    assert_true(c[0] > 0 && c[1] > 0);
    assert_int_equal(c[2], 0);   /* bin has no spurious stationary points */
    assert_int_equal((int)jnum(o, "starts"), 961);
    ok(f, "basins res=31 threads=2 out=b2.csv");
    /* how it was made, after the header: the command and regularizer */
    char *b1 = slurp(in_dir(f, "b1.csv"), NULL);
    assert_non_null(b1);
    assert_non_null(strstr(b1, "rel_err\n# csreg: "));
    assert_non_null(strstr(b1, ")\n# seed: 3\n# command: basins res=31 threads=1 out=b1.csv\n"
                               "# reg: bin\n0,0,"));
    free(b1);
    /* the same numbers for any thread count */
    b1 = slurp_csv(in_dir(f, "b1.csv"));
    char *b2 = slurp_csv(in_dir(f, "b2.csv"));
    assert_non_null(b1);
    assert_non_null(b2);
    assert_string_equal(b1, b2);
    assert_int_equal(count_lines(b1), 962);
    assert_memory_equal(b1, "i,j,x,y,class,cluster,end_x,end_y,iters,rel_err\n0,0,-2,-2,", 57);
    /* the CSV's classes are the counts */
    long seen[4] = {0};
    static const char *const names[4] = {",success,", ",other,", ",spurious,", ",not_converged,"};
    for (const char *p = strchr(b1, '\n') + 1; *p; p = strchr(p, '\n') + 1)
        for (int k = 0; k < 4; k++)
            if (strstr(p, names[k]) && strstr(p, names[k]) < strchr(p, '\n'))
                seen[k]++;
    for (int k = 0; k < 4; k++)
        assert_int_equal(seen[k], c[k]);
    free(b1);
    free(b2);
    /* where the claim fails: a regularizer of fixed scale (not free of
     * spurious points) gets stuck beside the crossing that is not ±1 */
    ok(f, "reg fixed alpha=1");
    o = ok(f, "basins res=15 out=f.csv");
    assert_true(jnum(o, "spurious") > 0);
    assert_true(jnum(o, "success") > 0);
    assert_int_equal((long)(jnum(o, "success") + jnum(o, "spurious") + jnum(o, "other") +
                            jnum(o, "not_converged")), 225);
    if (have_gnuplot) {
        o = ok(f, "basins res=21 out=b.png");
        assert_string_equal(jvalue(o, "layers", buf, sizeof buf),
                            "[\"constraint\",\"xstar\"]");
        o = ok(f, "plot basins out=again.svg");
        assert_non_null(strstr(o, "\"layers\""));
    }
    fails(f, "basins res=1", "res", 8);
    ok(f, "problem 2bit N=2 M=1");
    fails(f, "basins", "for bin, osb, ter and eig problems", 1);
}

/* ---- ledger ----------------------------------------------------------------- */

/* One ledger row per trial step: backtracks + 1 per iteration, the taken
 * row last with the trace's τ and f, under its bound unless forced. */
static void test_ledger_csv(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=30 M=18");
    ok(f, "step n=40");
    const char *o = ok(f, "trace out=t.csv ledger=l.csv");
    long trials = (long)jnum(o, "trials");
    char *t = slurp(in_dir(f, "t.csv"), NULL), *l = slurp(in_dir(f, "l.csv"), NULL);
    assert_non_null(t);
    assert_non_null(l);
    /* both say how they were made, after the header */
    assert_non_null(strstr(t, "rel_err\n# csreg: "));
    assert_non_null(strstr(l, ")\n# seed: 3\n# command: trace out=t.csv ledger=l.csv\n"
                              "# reg: bin\n1,1,1,"));
    free(t);
    free(l);
    t = slurp_csv(in_dir(f, "t.csv"));
    l = slurp_csv(in_dir(f, "l.csv"));
    assert_memory_equal(l, "iter,start,trial,tau,f,bound,accepted\n", 38);
    assert_int_equal(count_lines(l), (size_t)trials + 1);
    const char *tp = strchr(t, '\n') + 1, *lp = strchr(l, '\n') + 1;
    long rows = 0;
    while (*tp) {
        long it, st, bt;
        double obj, res, nres, tau;
        assert_int_equal(sscanf(tp, "%ld,%ld,%lf,%lf,%lf,%lf,%ld", &it, &st, &obj, &res, &nres,
                                &tau, &bt), 7);
        for (long k = 0; k <= bt; k++) {
            long li, ls, lt, acc;
            double ltau, lf, lb;
            assert_int_equal(sscanf(lp, "%ld,%ld,%ld,%lf,%lf,%lf,%ld", &li, &ls, &lt, &ltau, &lf,
                                    &lb, &acc), 7);
            assert_int_equal(li, it);
            assert_int_equal(lt, k + 1);
            assert_int_equal(acc, k == bt);
            if (k < bt)
                assert_true(lf - 1e-12 > lb);
            else
                assert_true(ltau == tau && lf == obj);
            lp = strchr(lp, '\n') + 1;
            rows++;
        }
        tp = strchr(tp, '\n') + 1;
    }
    assert_int_equal(rows, trials);
    free(t);
    free(l);
}

/* ---- trace rules --------------------------------------------------------------- */

/* The row of rule `name` at tol (NULL: none) in the rules list. */
static const char *rule_row(const char *o, const char *name, const char *tol)
{
    char pat[96];
    snprintf(pat, sizeof pat, "{\"rule\":\"%s\",\"tol\":%s,", name, tol ? tol : "null");
    const char *p = strstr(o, pat);
    assert_non_null(p);
    return p;
}

static void check_rules(fixture *f, const char *problem)
{
    ok(f, problem);
    ok(f, "solve");
    char *rules = strdup(ok(f, "trace rules plot=rules.png"));
    static const char *const stops[] = {"oracle", "residual", "normalized", "ratio", "hybrid",
                                        "residual", "normalized", "ratio", "hybrid", "maxit"};
    static const char *const tols[] = {NULL, "1e-05", "1e-05", "1e-05", "1e-05",
                                       "1e-08", "1e-08", "1e-08", "1e-08", NULL};
    int fired = 0;
    for (int k = 0; k < 10; k++) {
        const char *row = rule_row(rules, stops[k], tols[k]);
        char line[160], want[64], got[64];
        snprintf(line, sizeof line, "solve stop=%s tol=%s restarts=1", stops[k],
                 tols[k] ? tols[k] : "1e-8");
        const char *o = ok(f, line);
        assert_int_equal((long)jnum(row, "iter"), (long)jnum(o, "iters"));
        jvalue(o, "rel_err", want, sizeof want);
        jvalue(row, "rel_err", got, sizeof got);
        if (strcmp(got, want))
            fail_msg("%s %s: trace rules says rel_err %s, the run %s", stops[k],
                     tols[k] ? tols[k] : "", got, want);
        assert_int_equal((int)jnum(row, "success"), (int)jnum(o, "success"));
        fired += (int)jnum(row, "fired");
    }
    assert_true(fired >= 3);
    free(rules);
}

static void test_trace_rules(void **state)
{
    fixture *f = *state;
    fails(f, "trace rules", "no problem yet", 1);
    check_rules(f, "problem bin N=40 M=24");
    ok(f, "reg linf");
    check_rules(f, "problem bin N=40 M=26");
    ok(f, "reg ter");
    check_rules(f, "problem ter N=30 M=21");
    fails(f, "trace rules out=a.csv", "trace rules takes plot=, not out=", 13);
    fails(f, "trace foo", "expected trace [out=..]", 7);
}

int main(void)
{
    cs_err err;
    have_gnuplot = cs_plot_available(&err) == CS_OK;
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_trajectory_layers),
        T(test_rewind_step_equals_step),
        T(test_basins_31),
        T(test_ledger_csv),
        T(test_trace_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
