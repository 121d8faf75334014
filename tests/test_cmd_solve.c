/* test_cmd_solve.c — problem, solve, step, reset, trace, sweep and maxcut
 * through the interpreter, in process; and every sessions/NAME-quick.csr
 * script (the paper's experiments, small) runs and writes its CSV. */
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
#include "cs_solve_view.h"

#include "sanitized.h"

static int setup(void **state)
{
    *state = fixture_new(1, 3, 2, 1);
    return *state ? 0 : -1;
}
#define teardown fixture_teardown

static char *in_dir(fixture *f, const char *name)
{
    static char p[2048];
    snprintf(p, sizeof p, "%s/%s", f->dir, name);
    return p;
}

/* ------------------------------------------------------------ problem */

static void test_problem_errors(void **state)
{
    fixture *f = *state;
    fails(f, "problem nosuch N=10", "unknown problem kind 'nosuch'", 9);
    fails(f, "problem bin N=10 M=20", "M=20 exceeds N=10", 18);
    fails(f, "problem bin N=100000000 M=50000000", "too large", 13);
    fails(f, "problem bin N=100 M=50 gamma=0.5", "not both", -1);
    fails(f, "problem bin N=100 gamma=1.5", "out of range", 19);
    fails(f, "problem bin N=abc", "N=abc", 13);
    fails(f, "problem bin N=100 K=5", "K= applies to osb", 19);
    fails(f, "problem maxcut", "needs graph=", 9);
    fails(f, "problem maxcut graph=nosuch.txt", "no such file", 16);
    fails(f, "problem maxcut graph=toy5 N=5", "not N=", 27);
    fails(f, "problem bin N=10 M=5 graph=toy5", "graph= is for problem maxcut", 22);
    fails(f, "solve", "no problem yet", 1);
    fails(f, "step", "no problem yet", 1);
    fails(f, "trace", "no problem yet", 1);
    fails(f, "problem bin N=10 M=5 nokey=1", "unknown key 'nokey'", 22);
}

static void test_problem_prompt(void **state)
{
    fixture *f = *state;
    const char *o = ok(f, "problem bin N=100 M=50");
    assert_non_null(strstr(o, "\"kind\":\"bin\",\"N\":100,\"M\":50"));
    char prompt[256];
    cs_interp_prompt(f->in, prompt, sizeof prompt);
    assert_string_equal(prompt, "csreg[bin bin N=100 M=50 solver=bin]> ");
    /* the prompt names the method the next solve uses, and reg says it */
    o = ok(f, "reg ter");
    assert_non_null(strstr(o, "\"solver\":\"ter\""));
    cs_interp_prompt(f->in, prompt, sizeof prompt);
    assert_string_equal(prompt, "csreg[ter bin N=100 M=50 solver=ter]> ");
    ok(f, "problem bin N=100 gamma=0.5");
    cs_interp_prompt(f->in, prompt, sizeof prompt);
    assert_string_equal(prompt, "csreg[ter bin N=100 M=50 solver=bin]> ");
    o = ok(f, "reg ter");
    assert_non_null(strstr(o, "\"solver\":\"bin\""));
    assert_non_null(strstr(o, "uses bin, the problem's own: ter was already current"));
    o = ok(f, "solve maxit=5 restarts=1");
    assert_non_null(strstr(o, "\"method\":\"bin\""));
    o = ok(f, "problem osb gamma=0.3 K=10");
    assert_int_equal((int)jnum(o, "M"), 30);
    assert_int_equal((int)jnum(o, "K"), 10);
    o = ok(f, "problem maxcut graph=toy4");
    assert_int_equal((int)jnum(o, "known_best"), 120);
}

/* ------------------------------------------------------------ solve */

static void test_solve_fields(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=100 M=70");
    const char *o = ok(f, "solve");
    const char *fields[] = {"success", "rel_err", "iters", "restarts", "seconds", "objective"};
    for (size_t i = 0; i < 6; i++)
        assert_false(isnan(jnum(o, fields[i])));
    assert_int_equal((int)jnum(o, "success"), 1);
    assert_true(jnum(o, "rel_err") < 1e-2);
    assert_non_null(strstr(o, "\"method\":\"bin\",\"algo\":\"fista\""));
    /* linf runs Douglas-Rachford */
    o = ok(f, "solve reg=linf");
    assert_non_null(strstr(o, "\"algo\":\"dr\""));
    ok(f, "reg l1");
    o = ok(f, "solve");
    assert_non_null(strstr(o, "\"method\":\"l1\",\"algo\":\"dr\""));
    fails(f, "solve method=dr reg=bin", "linf or l1", -1);
    fails(f, "solve stop=never", "expected one of", 7);
    fails(f, "solve reg=nosuch", "nosuch", 7);
    fails(f, "solve maxit=-3", "maxit=-3", 7);
    /* hybrid stop with a tolerance */
    o = ok(f, "solve reg=bin stop=hybrid tol=1e-6 maxit=500");
    assert_true(jnum(o, "iters") <= 500 * 10);
}

static void test_solve_kinds(void **state)
{
    fixture *f = *state;
    const char *o;
    ok(f, "problem eig N=30 M=15");
    o = ok(f, "solve");
    assert_non_null(strstr(o, "\"method\":\"eig\""));
    ok(f, "problem orth N=8 M=6");
    o = ok(f, "solve");
    assert_false(isnan(jnum(o, "orth_err")));
    assert_int_equal((int)jnum(o, "success"), 1);
    ok(f, "problem 2bit N=10 M=9");
    o = ok(f, "solve");
    assert_non_null(strstr(o, "\"method\":\"equ\""));
    ok(f, "problem maxcut graph=toy4");
    o = ok(f, "solve");
    assert_int_equal((int)jnum(o, "cut_rounded"), 120);
}

static void test_step_reset_trace(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=100 M=40");
    const char *o = ok(f, "step n=5");
    assert_int_equal((int)jnum(o, "iter"), 5);
    assert_int_equal((int)jnum(o, "start"), 1);
    double obj5 = jnum(o, "objective");
    o = ok(f, "step n=3");
    assert_int_equal((int)jnum(o, "iter"), 8);
    ok(f, "reset");
    o = ok(f, "step n=5");
    assert_int_equal((int)jnum(o, "iter"), 5);
    assert_true(jnum(o, "objective") == obj5); /* same stream: same numbers */
    o = ok(f, "trace out=t.csv");
    assert_int_equal((int)jnum(o, "records"), 5);
    char *csv = slurp(in_dir(f, "t.csv"), NULL);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "\n# command: trace out=t.csv\n# reg: bin\n1,1,"));
    free(csv);
    csv = slurp_csv(in_dir(f, "t.csv"));
    assert_non_null(csv);
    assert_true(!strncmp(csv, "iter,start,objective,residual,norm_residual,tau,backtracks,"
                              "rel_err\n1,1,", 69));
    int lines = 0;
    for (char *p = csv; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 6);
    free(csv);
    /* the view a front end reads */
    cs_solve_view v;
    assert_int_equal(cs_interp_solve_view(f->in, &v), 0);
    assert_string_equal(v.kind, "bin");
    assert_int_equal(v.N, 100);
    assert_int_equal(v.n, 100);
    assert_non_null(v.x);
    assert_non_null(v.xstar);
    assert_int_equal(v.iter, 5);
    assert_int_equal(v.hist_len, 5);
    assert_true(v.hist_objective[4] == obj5);
    /* solve keys that change the method start a new run */
    o = ok(f, "step n=2 reg=beta:beta=learn");
    assert_int_equal((int)jnum(o, "iter"), 2);
}

/* A PNG file of a plausible size (or gnuplot is missing: the command said
 * plot_skipped). */
static void png_written(fixture *f, const char *out, const char *name)
{
    if (strstr(out, "\"plot_skipped\""))
        return;
    char *b = slurp(in_dir(f, name), NULL);
    assert_non_null(b);
    assert_memory_equal(b, "\x89PNG\r\n\x1a\n", 8);
    free(b);
    struct stat sb;
    assert_int_equal(stat(in_dir(f, name), &sb), 0);
    assert_true(sb.st_size > 2000);
}

/* 2-dimensional problems: solve and step record the iterates of the
 * current start (start point first) and deposit them over the landscape. */
static void test_trajectory_2d(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=2 M=1");
    fails(f, "plot trajectory out=t0.png", "nothing to plot", -1);
    const char *o = ok(f, "step n=1");
    assert_int_equal((int)jnum(o, "trajectory"), 2);
    cs_solve_view v;
    assert_int_equal(cs_interp_solve_view(f->in, &v), 0);
    assert_int_equal(v.traj_len, 2);
    double x0[2] = {v.traj_xy[0], v.traj_xy[1]}, x1[2] = {v.traj_xy[2], v.traj_xy[3]};
    assert_true(x1[0] == v.x[0] && x1[1] == v.x[1]);   /* ends at the iterate */
    assert_true(x0[0] != x1[0] || x0[1] != x1[1]);
    /* more steps extend the same path */
    o = ok(f, "step n=4 plot=s.png");
    assert_non_null(strstr(o, "\"trajectory\":6"));
    png_written(f, o, "s.png");
    assert_int_equal(cs_interp_solve_view(f->in, &v), 0);
    assert_int_equal(v.traj_len, 6);
    assert_true(v.traj_xy[0] == x0[0] && v.traj_xy[1] == x0[1]);
    assert_true(v.traj_xy[2] == x1[0] && v.traj_xy[3] == x1[1]);
    assert_true(v.traj_xy[10] == v.x[0] && v.traj_xy[11] == v.x[1]);
    /* reset forgets it; solve runs from the same start point to the end */
    ok(f, "reset");
    assert_int_equal(cs_interp_solve_view(f->in, &v), 0);
    assert_int_equal(v.traj_len, 0);
    assert_null(v.traj_xy);
    o = ok(f, "solve restarts=1 maxit=300 plot=t.png");
    png_written(f, o, "t.png");
    long iters = (long)jnum(o, "iters");
    assert_int_equal((long)jnum(o, "trajectory"), iters + 1);
    assert_int_equal(cs_interp_solve_view(f->in, &v), 0);
    assert_int_equal(v.traj_len, (size_t)iters + 1);
    assert_true(v.traj_xy[0] == x0[0] && v.traj_xy[1] == x0[1]);
    assert_true(v.traj_xy[2] == x1[0] && v.traj_xy[3] == x1[1]);
    size_t e = 2 * (v.traj_len - 1);
    assert_true(v.traj_xy[e] == v.x[0] && v.traj_xy[e + 1] == v.x[1]);
    /* a run with restarts keeps the path of its last start */
    o = ok(f, "solve plot=r.png");
    png_written(f, o, "r.png");
    assert_int_equal(cs_interp_solve_view(f->in, &v), 0);
    assert_true(v.traj_len >= 2);
    e = 2 * (v.traj_len - 1);
    assert_true(v.traj_xy[e] == v.x[0] && v.traj_xy[e + 1] == v.x[1]);
    o = ok(f, "plot trajectory out=u.png");
    png_written(f, o, "u.png");
    /* larger problems record none */
    ok(f, "problem bin N=10 M=5");
    o = ok(f, "step n=2");
    assert_null(strstr(o, "\"trajectory\""));
    assert_int_equal(cs_interp_solve_view(f->in, &v), 0);
    assert_int_equal(v.traj_len, 0);
}

/* problem trial=T is the sweep's trial T: a sweep of one trial and one
 * point agrees with solve on trial=1. */
static void test_trial_matches_sweep(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=100 M=48 trial=1");
    const char *o = ok(f, "solve restarts=10");
    double iters = jnum(o, "iters");
    o = ok(f, "sweep kind=bin methods=bin N=100 M=48 trials=1 restarts=10");
    assert_non_null(strstr(o, "\"success_bin\":["));
    /* the one row of the sweep, as an object */
    assert_non_null(strstr(o, "\"rows\":[{\"method\":\"bin\",\"N\":100,\"M\":48,"));
    assert_true(jnum(o, "mean_iters") == iters);
    assert_null(strstr(o, "\"text\":"));   /* no CSV text: that goes into out= */
}

/* ------------------------------------------------------------ sweep */

static void test_sweep_threads_identical(void **state)
{
    fixture *f = *state;
    ok(f, "sweep kind=bin methods=bin,linf N=60 gamma=0.4:0.2:0.8 trials=6 threads=1 "
          "out=a.csv");
    ok(f, "sweep kind=bin methods=bin,linf N=60 gamma=0.4:0.2:0.8 trials=6 threads=2 "
          "out=b.csv");
    char *a = slurp_csv(in_dir(f, "a.csv")), *b = slurp_csv(in_dir(f, "b.csv"));
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b);
    const char *hdr = "method,kind,N,M,gamma,K,trials,success,stderr,mean_iters,"
                      "mean_restarts,seconds,stop\n";
    assert_true(!strncmp(a, hdr, strlen(hdr)));
    assert_non_null(strstr(a, "\nlinf,bin,60,48,0.8,0,6,"));
    free(a);
    free(b);
}

/* The session's device (set device): cuda or auto runs a sweep on the GPU
 * where the GPU takes it, else on the CPU saying why; the choice is
 * journaled. Typed device=cuda still refuses what the GPU does not run. */
static void test_sweep_session_device(void **state)
{
    fixture *f = *state;
    const char *o = ok(f, "sweep kind=bin methods=bin N=20 gamma=0.5 trials=3 noise=0.05 "
                          "out=cpu.csv");
    assert_null(strstr(o, "\"device\""));   /* the default says nothing */
    ok(f, "set device cuda");
    o = ok(f, "sweep kind=bin methods=bin N=20 gamma=0.5 trials=3 noise=0.05 out=sess.csv");
    assert_non_null(strstr(o, "\"device\":\"cpu\""));
    assert_non_null(strstr(o, "\"device_reason\":\"set device cuda: cpu (sweep device=cuda "
                              "draws noiseless problems"));
    size_t n = cs_interp_journal_len(f->in);
    assert_string_equal(cs_interp_journal_line(f->in, n - 1),
                        "sweep kind=bin methods=bin N=20 gamma=0.5 trials=3 noise=0.05 "
                        "out=sess.csv device=cpu");
    char *a = slurp_csv(in_dir(f, "cpu.csv")), *b = slurp_csv(in_dir(f, "sess.csv"));
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b);
    free(a);
    free(b);
    /* vary= that reaches a value the GPU refuses: the whole sweep on the CPU */
    o = ok(f, "sweep kind=bin methods=bin N=20 gamma=0.5 trials=2 vary=noise:0,0.05");
    assert_non_null(strstr(o, "\"device\":\"cpu\""));
    fails(f, "sweep kind=bin methods=bin N=20 gamma=0.5 trials=3 noise=0.05 device=cuda",
          "use device=cpu for noise=", -1);
    /* auto: the GPU takes it; whether one answers decides */
    ok(f, "set device auto");
    o = ok(f, "sweep kind=bin methods=bin N=20 gamma=0.5 trials=3");
    const char *dev = strstr(o, "\"device\":\"");
    assert_non_null(dev);
    if (!strncmp(dev, "\"device\":\"cpu\"", 14))
        assert_non_null(strstr(o, "\"device_reason\":\"set device auto: cpu ("));
    n = cs_interp_journal_len(f->in);
    assert_non_null(strstr(cs_interp_journal_line(f->in, n - 1), " device=c"));
    ok(f, "set device cpu");
    o = ok(f, "sweep kind=bin methods=bin N=20 gamma=0.5 trials=3");
    assert_null(strstr(o, "\"device\""));
}

static void test_sweep_axes_and_errors(void **state)
{
    fixture *f = *state;
    const char *o = ok(f, "sweep kind=osb methods=osb,l1 N=40 M=30 K=8:8:16 trials=3");
    assert_non_null(strstr(o, "\"axis\":\"K\""));
    assert_non_null(strstr(o, "\"points\":2"));
    o = ok(f, "sweep kind=ter methods=ter N=40 M=20:10:30 trials=2");
    assert_non_null(strstr(o, "\"axis\":\"M\",\"points\":2"));
    o = ok(f, "sweep kind=eig methods=eig,mu N=20 gamma=0.5 trials=2");
    assert_non_null(strstr(o, "\"success_mu\":["));
    fails(f, "sweep methods=bin gamma=0.5", "needs kind=", 1);
    fails(f, "sweep kind=bin gamma=0.5:0.1:0.7 M=30:10:40", "one of gamma=, M=, K=", -1);
    fails(f, "sweep kind=bin gamma=0.2:0.5:1.2", "out of range", 16);
    fails(f, "sweep kind=bin methods=bin,nosuch gamma=0.5", "nosuch", 16);
    fails(f, "sweep kind=bin methods=bin,bin gamma=0.5", "twice", 16);
    fails(f, "sweep kind=bin N=10 M=5:5:20", "whole number in [1, N=10]", 21);
    fails(f, "sweep kind=bin", "needs a grid", 1);
    fails(f, "sweep kind=maxcut gamma=0.5", "expected one of", 7);
    fails(f, "sweep kind=bin gamma=0.5 plot=x.bmp", "x.bmp", -1);
}

/* Ctrl-C during a sweep: the finished grid points are written beside out=
 * as NAME.partial.csv, marked partial, and the old out= file stays; with
 * partial=out they go into out= itself. */
static int polls;
static void cancel_after_first(void *ctx, double done, double total, const char *what)
{
    (void)total;
    (void)what;
    cs_interp *in = ctx;
    if (done >= 2 && ++polls >= 1)
        *cs_interp_cancel_flag(in) = 1;
}

static void test_sweep_cancel_partial(void **state)
{
    fixture *f = *state;
    FILE *old = fopen(in_dir(f, "p.csv"), "w");
    assert_non_null(old);
    fputs("old results\n", old);
    fclose(old);
    polls = 0;
    cs_interp_set_progress(f->in, cancel_after_first, f->in);
    fails(f, "sweep kind=bin methods=bin N=50 gamma=0.6,0.3,0.35,0.4 trials=2 threads=1 "
             "out=p.csv",
          "written to p.partial.csv (marked partial); p.csv is left as it was", -1);
    char *csv = slurp(in_dir(f, "p.csv"), NULL);
    assert_string_equal(csv, "old results\n");
    free(csv);
    csv = slurp(in_dir(f, "p.partial.csv"), NULL);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "# partial"));
    free(csv);
    /* asked for: into out= */
    polls = 0;
    fails(f, "sweep kind=bin methods=bin N=50 gamma=0.6,0.3,0.35,0.4 trials=2 threads=1 "
             "out=p.csv partial=out",
          "written to p.csv (marked partial)", -1);
    cs_interp_set_progress(f->in, NULL, NULL);
    csv = slurp(in_dir(f, "p.csv"), NULL);
    assert_non_null(strstr(csv, "# partial"));
    /* journaled with how far it got when a grid point finished (stop_after=K):
     * the journaled line writes the same file again */
    size_t n = cs_interp_journal_len(f->in);
    const char *last = n ? cs_interp_journal_line(f->in, n - 1) : "";
    if (strstr(last, "p.csv")) {
        assert_non_null(strstr(last, " stop_after="));
        char *line = strdup(last);
        ok(f, line);
        free(line);
        char *again = slurp(in_dir(f, "p.csv"), NULL);
        assert_string_equal(csv, again);
        free(again);
    }
    free(csv);
    fails(f, "sweep kind=bin gamma=0.5 partial=keep", "expected one of", 26);
    /* maxcut: the row of an interrupted run goes beside out= too */
    old = fopen(in_dir(f, "m.csv"), "w");
    assert_non_null(old);
    fputs("old rows\n", old);
    fclose(old);
    polls = 0;
    cs_interp_set_progress(f->in, cancel_after_first, f->in);
    fails(f, "maxcut graph=toy5 trials=40 threads=1 out=m.csv", "written to m.partial.csv", -1);
    cs_interp_set_progress(f->in, NULL, NULL);
    csv = slurp(in_dir(f, "m.csv"), NULL);
    assert_string_equal(csv, "old rows\n");
    free(csv);
    csv = slurp(in_dir(f, "m.partial.csv"), NULL);
    assert_non_null(csv);
    assert_non_null(strstr(csv, ",1\n"));   /* the partial column */
    free(csv);
}

/* ------------------------------------------------------------ maxcut */

static void test_maxcut(void **state)
{
    fixture *f = *state;
    const char *o = ok(f, "maxcut graph=toy4 trials=5 out=m.csv");
    assert_true(!strncmp(o, "{\"cmd\":\"maxcut\",\"graph\":\"toy4\",\"trials\":5,\"mean_cut\":",
                         52));
    assert_int_equal((int)jnum(o, "mean_cut"), 120);
    assert_false(isnan(jnum(o, "std_cut")));
    assert_int_equal((int)jnum(o, "best_cut"), 120);
    assert_int_equal((int)jnum(o, "known_best"), 120);
    /* every trial reaches the known best: how they stopped, no mean_iters */
    assert_non_null(strstr(o, "\"stops\":{\"oracle\":5},\"mean_best_iter\":"));
    assert_null(strstr(o, "mean_iters"));
    ok(f, "maxcut graph=toy5 trials=3 out=m.csv append=on");
    char *csv = slurp(in_dir(f, "m.csv"), NULL);
    assert_non_null(strstr(csv, "mean_start,std_start,stops,mean_best_iter,max_best_iter,"
                                "partial\n"));
    assert_non_null(strstr(csv, "\ntoy4,4,5,5,1,120,0,120,120,"));
    assert_non_null(strstr(csv, ",oracle=5,"));
    assert_non_null(strstr(csv, "\ntoy5,5,7,3,1,"));
    /* each row after the lines saying how it was made */
    assert_non_null(strstr(csv, "partial\n# csreg: "));
    assert_non_null(strstr(csv, "\n# command: maxcut graph=toy4 trials=5 out=m.csv\ntoy4,"));
    assert_non_null(strstr(csv, "\n# command: maxcut graph=toy5 trials=3 out=m.csv append=on\n"
                                "toy5,"));
    free(csv);
    /* a short budget: the stops add up to the trials; the best iterate comes
     * within it */
    o = ok(f, "maxcut graph=toy5 trials=12 maxit=5");
    const char *st = strstr(o, "\"stops\":{");
    assert_non_null(st);
    double n_stops = 0;
    static const char *const ends[] = {"oracle", "tolerance", "maxit", "diverged"};
    for (size_t e = 0; e < 4; e++) {
        char key[32];
        snprintf(key, sizeof key, "\"%s\":", ends[e]);
        const char *k = strstr(st, key);
        if (k && k < strchr(st, '}'))
            n_stops += strtod(k + strlen(key), NULL);
    }
    assert_true(n_stops == 12);
    double lo = jnum(o, "min_best_iter"), mean = jnum(o, "mean_best_iter"),
           hi = jnum(o, "max_best_iter");
    assert_true(0 <= lo && lo <= mean && mean <= hi && hi <= 5);
    fails(f, "maxcut", "needs graph=", 1);
    fails(f, "maxcut graph=nosuch", "no such file", 8);
    fails(f, "maxcut graph=toy4 trials=0", "trials=0", 19);
    /* a graph file */
    FILE *g = fopen(in_dir(f, "tri.txt"), "w");
    fputs("3 3 2\n1 2 1\n2 3 1\n1 3 1\n", g);
    fclose(g);
    o = ok(f, "maxcut graph=tri.txt trials=4");
    assert_int_equal((int)jnum(o, "known_best"), 2);
    g = fopen(in_dir(f, "bad.txt"), "w");
    fputs("3 3 2\n1 2 1\n2 9 1\n", g);
    fclose(g);
    fails(f, "maxcut graph=bad.txt", "node number out of range", 8);
    /* weights of 1e308: a clear error, no CSV, no plot ("cut inf ± -nan"
     * was a success, then "nothing to plot: run maxcut first") */
    g = fopen(in_dir(f, "huge.txt"), "w");
    fputs("3 2 2\n1 2 1e308\n2 3 1e308\n", g);
    fclose(g);
    fails(f, "maxcut graph=huge.txt trials=2 out=h.csv plot=h.png",
          "huge.txt:2: edge weight 1e+308: the weights add up to more than a cut can hold", 8);
    assert_null(slurp(in_dir(f, "h.csv"), NULL));
    /* a graph's name with quotes and a comma: one CSV field (RFC 4180) */
    g = fopen(in_dir(f, "q'a`x`,b.txt"), "w");
    fputs("3 3 2\n1 2 1\n2 3 1\n1 3 1\n", g);
    fclose(g);
    ok(f, "maxcut graph=\"q'a`x`,b.txt\" trials=2 out=q.csv");
    csv = slurp(in_dir(f, "q.csv"), NULL);
    assert_non_null(strstr(csv, "\n\"q'a`x`,b\",3,3,2,"));
    free(csv);
}

/* ------------------------------------------------------------ quick scripts */

static int copy_file(const char *from, const char *to)
{
    char *b = slurp(from, NULL);
    if (!b)
        return -1;
    FILE *o = fopen(to, "w");
    fputs(b, o);
    fclose(o);
    free(b);
    return 0;
}

/* Every out=NAME.csv of a script (basenames). */
static size_t script_outputs(const char *text, char names[][128], size_t cap)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, " out=")) && n < cap; p++) {
        const char *v = p + 5, *e = v + strcspn(v, " \n");
        const char *slash = v;
        for (const char *q = v; q < e; q++)
            if (*q == '/')
                slash = q + 1;
        /* the tables (an image out= is checked by the plot suites) */
        if (e - slash > 4 && !strncmp(e - 4, ".csv", 4))
            snprintf(names[n++], 128, "%.*s", (int)(e - slash), slash);
    }
    return n;
}

static void test_quick_scripts(void **state)
{
    fixture *f = *state;
    if (getenv("CSREG_TEST_UNIT")) { /* `make check`: minutes of scripts; `make test` runs them */
        print_message("unit checks only: skipped\n");
        skip();
    }
    const char *src = getenv("CSREG_SRC") ? getenv("CSREG_SRC") : ".";
    char sdir[512];
    snprintf(sdir, sizeof sdir, "%s/sessions", src);
    DIR *d = opendir(sdir);
    if (!d) {
        print_message("no %s: skipped\n", sdir);
        skip();
    }
    /* the G-set graphs the maxcut scripts name, next to them in the sandbox */
    static const char *graphs[] = {"G10.txt", "G11.txt", "G12.txt", "G13.txt"};
    for (size_t i = 0; i < 4; i++) {
        char from[512];
        snprintf(from, sizeof from, "%s/sessions/data/gset/%s", src, graphs[i]);
        copy_file(from, in_dir(f, graphs[i]));
    }
    struct dirent *e;
    int ran = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 10 || strcmp(e->d_name + len - 10, "-quick.csr"))
            continue;
        /* ASan/UBSan builds run the cheap ones (the rest are 3-10x slower
         * there, 5-10 s each; their commands have unit suites under ASan) */
        if (SANITIZED && (strstr(e->d_name, "binary-") || strstr(e->d_name, "fig1") ||
                          strstr(e->d_name, "eig") || strstr(e->d_name, "density") ||
                          strstr(e->d_name, "nn-ternary") || strstr(e->d_name, "nn-resnet20")))
            continue;
        char from[1024];
        snprintf(from, sizeof from, "%s/%s", sdir, e->d_name);
        char *text = slurp(from, NULL);
        assert_non_null(text);
        assert_int_equal(copy_file(from, in_dir(f, e->d_name)), 0);
        cs_err err;
        int rc = cs_interp_run_file(f->in, e->d_name, 0, NULL, NULL, &err);
        if (rc != 0)
            print_error("%s: %s\n", e->d_name, err.msg);
        assert_int_equal(rc, 0);
        char outs[8][128];
        size_t n = script_outputs(text, outs, 8);
        assert_true(n >= 1);
        for (size_t i = 0; i < n; i++) {
            char *csv = slurp(in_dir(f, outs[i]), NULL);
            if (!csv)
                print_error("%s did not write %s\n", e->d_name, outs[i]);
            assert_non_null(csv);
            assert_true(strlen(csv) > 40);
            assert_null(strstr(csv, "# partial"));
            free(csv);
        }
        free(text);
        ran++;
    }
    closedir(d);
    assert_true(ran >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_problem_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_problem_prompt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_solve_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_solve_kinds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_reset_trace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trajectory_2d, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trial_matches_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_threads_identical, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_session_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_axes_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_cancel_partial, setup, teardown),
        cmocka_unit_test_setup_teardown(test_maxcut, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quick_scripts, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
