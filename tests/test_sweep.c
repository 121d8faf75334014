/* test_sweep.c — sweeps (determinism across thread counts, CSV, cancel,
 * progress) and MAX-CUT runs. */
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

#include "cs_reg.h"
#include "reg_util.h"
#include "cs_sweep.h"
#include "cs_sweep_journal.h"
#include "method_util.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static const char *methods2[] = {"bin", "linf"};
static const double grid[] = {0.3, 0.5, 0.7};

static cs_sweep_spec small_spec(int threads)
{
    static cs_method mv[2];
    methods_of(methods2, 2, mv);
    cs_sweep_spec sp = {.kind = CS_PROB_BIN,
                        .N = 40,
                        .axis = CS_AXIS_GAMMA,
                        .values = grid,
                        .nvalues = 3,
                        .methods = mv,
                        .nmethods = 2,
                        .trials = 12,
                        .threads = threads,
                        .seed = 99};
    sp.solve.maxit = 300;
    sp.solve.restarts = 3;
    return sp;
}

static void test_csv_identical_across_threads(void **state)
{
    (void)state;
    char p1[] = "/tmp/csreg_sweep1XXXXXX", p2[] = "/tmp/csreg_sweep2XXXXXX";
    int f1 = mkstemp(p1), f2 = mkstemp(p2);
    assert_true(f1 >= 0 && f2 >= 0);
    close(f1);
    close(f2);
    cs_err err;
    cs_sweep_result *r1, *r2;
    cs_sweep_spec s1 = small_spec(1), s2 = small_spec(2);
    assert_int_equal(cs_sweep_run(&s1, &r1, &err), 0);
    assert_int_equal(cs_sweep_run(&s2, &r2, &err), 0);
    assert_int_equal(r1->threads, 1);
    assert_int_equal(r2->threads, 2);
    assert_int_equal(cs_sweep_write_csv(r1, p1, NULL, &err), 0);
    assert_int_equal(cs_sweep_write_csv(r2, p2, NULL, &err), 0);
    char *a = slurp(p1), *b = slurp(p2);
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b);
    /* header and shape */
    assert_int_equal(strncmp(a, CS_SWEEP_CSV_HEADER "\n", strlen(CS_SWEEP_CSV_HEADER) + 1), 0);
    assert_string_equal(CS_SWEEP_CSV_HEADER, "method,kind,N,M,gamma,K,trials,success,stderr,"
                                              "mean_iters,mean_restarts,seconds,stop");
    int lines = 0;
    for (char *c = a; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 1 + 6);
    assert_non_null(strstr(a, "\nbin,bin,40,12,0.3,0,12,"));
    assert_non_null(strstr(a, "\nlinf,bin,40,28,0.7,0,12,"));
    assert_null(strstr(a, "partial"));
    /* rows: method-major, stderr = sqrt(p(1−p)·n/(n−1))/sqrt(n) */
    assert_int_equal(r1->nrows, 6);
    assert_false(r1->partial);
    for (size_t i = 0; i < r1->nrows; i++) {
        const cs_sweep_row *w = &r1->rows[i];
        assert_string_equal(w->method, i < 3 ? "bin" : "linf");
        double p = w->success, n = 12.0;
        assert_true(fabs(w->stderr_ - sqrt(p * (1 - p) * n / (n - 1)) / sqrt(n)) < 1e-15);
        assert_true(isnan(w->seconds));
        assert_string_equal(w->stop, "oracle");
        assert_true(w->mean_restarts >= 1 && w->mean_restarts <= (i < 3 ? 3 : 1));
    }
    /* easy end of the grid succeeds, hard end mostly not */
    assert_true(r1->rows[2].success >= 0.9);
    assert_true(r1->rows[0].success <= 0.5);
    free(a);
    free(b);
    unlink(p1);
    unlink(p2);
    cs_sweep_result_free(r1);
    cs_sweep_result_free(r2);
}

/* A defined regularizer in a sweep (worker threads make their instances
 * from the registry): mybin (g = x², h = 1) succeeds as often as bin within
 * sampling error; its trials draw other streams (the method's name seeds
 * them), so the agreement is statistical. */
static void test_defined_method(void **state)
{
    (void)state;
    define_ok("mybin", "x^2", "1");
    cs_err err;
    static const char *m[] = {"mybin", "bin"};
    static const double g[] = {0.5, 0.6};
    cs_method mv[2];
    methods_of(m, 2, mv);
    cs_sweep_spec sp = {.kind = CS_PROB_BIN, .N = 60, .axis = CS_AXIS_GAMMA, .values = g,
                        .nvalues = 2, .methods = mv, .nmethods = 2, .trials = 150,
                        .threads = 2, .seed = 3};
    sp.solve.restarts = 4;
    sp.solve.maxit = 3000;
    cs_sweep_result *r;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
    assert_int_equal(r->nrows, 4);
    for (size_t k = 0; k < 2; k++) {
        const cs_sweep_row *a = &r->rows[k], *b = &r->rows[2 + k];
        assert_string_equal(a->method, "mybin");
        double se = sqrt(a->stderr_ * a->stderr_ + b->stderr_ * b->stderr_);
        if (!(fabs(a->success - b->success) <= 3 * se + 1e-12))
            fail_msg("gamma %g: mybin %.3f vs bin %.3f (se %.3f)", a->gamma, a->success,
                     b->success, se);
        assert_true(b->success > 0.1 && b->success < 0.99);   /* not trivially equal */
    }
    cs_sweep_result_free(r);
}

/* Every method's results are the same on 1 and 2 threads (one ISA choice
 * per process, 4-wide sums in a fixed order, instances per thread). */
static void test_every_method_across_threads(void **state)
{
    (void)state;
    define_ok("thdef", "sin(x) + x", "1 + x^2");
    static const char *m[] = {"bin", "osb", "ter", "bbin", "binexp", "holder", "si", "l2l1",
                              "l2l1h", "fixed", "beta", "beta:beta=learn", "thdef", "linf"};
    static const double g[] = {0.5, 0.7};
    static cs_method mv[sizeof m / sizeof *m];
    methods_of(m, sizeof m / sizeof *m, mv);
    char *csv[2];
    for (int t = 0; t < 2; t++) {
        cs_sweep_spec sp = {.kind = CS_PROB_BIN, .N = 30, .axis = CS_AXIS_GAMMA, .values = g,
                            .nvalues = 2, .methods = mv, .nmethods = sizeof m / sizeof *m,
                            .trials = 6, .threads = t + 1, .seed = 4};
        sp.solve.restarts = 3;
        sp.solve.maxit = 300;
        cs_sweep_result *r;
        cs_err err;
        assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
        char path[] = "/tmp/csreg_thrXXXXXX";
        int fd = mkstemp(path);
        close(fd);
        assert_int_equal(cs_sweep_write_csv(r, path, NULL, &err), 0);
        csv[t] = slurp(path);
        unlink(path);
        cs_sweep_result_free(r);
    }
    assert_string_equal(csv[0], csv[1]);
    free(csv[0]);
    free(csv[1]);
}

/* A method's results do not depend on the other methods of the run. */
static void test_methods_independent(void **state)
{
    (void)state;
    cs_err err;
    cs_sweep_result *r1, *r2;
    cs_sweep_spec s1 = small_spec(2);
    assert_int_equal(cs_sweep_run(&s1, &r1, &err), 0);
    cs_method only = method_of("linf");
    s1.methods = &only;
    s1.nmethods = 1;
    assert_int_equal(cs_sweep_run(&s1, &r2, &err), 0);
    for (size_t g = 0; g < 3; g++) {
        assert_true(r1->rows[3 + g].success == r2->rows[g].success);
        assert_true(r1->rows[3 + g].mean_iters == r2->rows[g].mean_iters);
    }
    cs_sweep_result_free(r1);
    cs_sweep_result_free(r2);
}

typedef struct prog {
    size_t calls, last_done, last_total;
    int monotone;
    cs_cancel *cancel;
    size_t cancel_at;
} prog;

static void on_progress(void *user, size_t done, size_t total)
{
    prog *p = user;
    if (p->calls && done < p->last_done)
        p->monotone = 0;
    p->calls++;
    p->last_done = done;
    p->last_total = total;
    if (p->cancel && done >= p->cancel_at)
        atomic_store(p->cancel, 1);
}

static void test_progress_and_cancel(void **state)
{
    (void)state;
    cs_err err;
    cs_sweep_result *r;
    cs_sweep_spec sp = small_spec(2);
    prog pr = {.monotone = 1};
    sp.progress = on_progress;
    sp.progress_user = &pr;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
    assert_true(pr.calls >= 1 && pr.monotone);
    assert_int_equal(pr.last_done, 36);
    assert_int_equal(pr.last_total, 36);
    cs_sweep_result_free(r);

    /* cancelled before it starts: partial, nothing finished */
    cs_cancel stop = 1;
    sp = small_spec(2);
    sp.cancel = &stop;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
    assert_true(r->partial);
    assert_int_equal(r->nrows, 0);
    assert_int_equal(r->points_done, 0);
    char path[] = "/tmp/csreg_sweep3XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    assert_int_equal(cs_sweep_write_csv(r, path, NULL, &err), 0);
    char *text = slurp(path);
    assert_non_null(strstr(text, "# partial: interrupted after 0 of 3 grid points"));
    free(text);
    unlink(path);
    cs_sweep_result_free(r);

    /* cancelled from the progress callback midway: only whole grid points */
    stop = 0;
    double g6[] = {0.6, 0.62, 0.64, 0.66, 0.68, 0.7};
    sp = small_spec(1);
    sp.values = g6;
    sp.nvalues = 6;
    sp.trials = 20;
    sp.cancel = &stop;
    prog pc = {.monotone = 1, .cancel = &stop, .cancel_at = 25};
    sp.progress = on_progress;
    sp.progress_user = &pc;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
    assert_true(r->partial);
    assert_true(r->points_done >= 1 && r->points_done < 6);
    assert_int_equal(r->nrows, 2 * r->points_done);
    for (size_t i = 0; i < r->nrows; i++)
        assert_int_equal(r->rows[i].trials, 20);
    cs_sweep_result_free(r);
}

static void test_axes_and_errors(void **state)
{
    (void)state;
    cs_err err;
    cs_sweep_result *r;
    /* K sweep of osb vs l1 at fixed M */
    const char *m[] = {"osb", "l1"};
    cs_method mv[2], mv2[2];
    methods_of(m, 2, mv);
    methods_of(methods2, 2, mv2);
    double ks[] = {5, 20};
    cs_sweep_spec sp = {.kind = CS_PROB_OSB, .N = 40, .axis = CS_AXIS_K, .values = ks, .nvalues = 2,
                        .M = 30, .methods = mv, .nmethods = 2, .trials = 4, .seed = 1,
                        .timing = 1};
    sp.solve.maxit = 200;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
    assert_int_equal(r->nrows, 4);
    assert_int_equal(r->rows[0].K, 5);
    assert_int_equal(r->rows[1].K, 20);
    assert_int_equal(r->rows[0].M, 30);
    assert_true(fabs(r->rows[0].gamma - 0.75) < 1e-15);
    assert_true(r->rows[0].seconds >= 0 && isfinite(r->rows[0].seconds));
    cs_sweep_result_free(r);
    /* M axis */
    double ms[] = {20};
    sp = (cs_sweep_spec){.kind = CS_PROB_BIN, .N = 40, .axis = CS_AXIS_M, .values = ms, .nvalues = 1,
                         .methods = mv2, .nmethods = 1, .trials = 2, .seed = 1};
    sp.solve.maxit = 50;
    sp.solve.stop = CS_STOP_HYBRID;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
    assert_int_equal(r->rows[0].M, 20);
    assert_true(r->rows[0].gamma == 0.5);
    assert_string_equal(r->rows[0].stop, "hybrid");
    cs_sweep_result_free(r);
    /* errors */
    cs_method bad;
    assert_int_equal(cs_method_parse(&bad, "nosuch", &err), CS_ENOTFOUND);
    assert_string_equal(err.key, "reg");
    memset(&bad, 0, sizeof bad);   /* no method: the sweep refuses it */
    sp.methods = &bad;
    assert_true(cs_sweep_run(&sp, &r, &err) < 0);
    assert_null(r);
    sp.methods = mv2;
    double big[] = {2.0};
    sp.axis = CS_AXIS_GAMMA;
    sp.values = big;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "outside"));
    sp.values = ms;
    sp.trials = 0;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), CS_EINVAL);
    sp.trials = 1;
    sp.kind = CS_PROB_MAXCUT;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), CS_EINVAL);
    const char *twice_text[] = {"bin", "bin"};
    cs_method twice[2];
    methods_of(twice_text, 2, twice);
    sp.kind = CS_PROB_BIN;
    sp.axis = CS_AXIS_M;
    sp.methods = twice;
    sp.nmethods = 2;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), CS_EINVAL);
}

/* noise= and fit= reach every trial: at σ = 0.1 (N = 40, γ = 0.6) the
 * affine fit fails where the least-squares fit recovers; the journal's
 * header names them (and only when used). */
static void test_noise_and_fit(void **state)
{
    (void)state;
    const char *m[] = {"bin"};
    cs_method mv[1];
    methods_of(m, 1, mv);
    double g[] = {0.6};
    cs_sweep_spec sp = {.kind = CS_PROB_BIN, .N = 40, .axis = CS_AXIS_GAMMA, .values = g,
                        .nvalues = 1, .methods = mv, .nmethods = 1, .trials = 10, .seed = 1,
                        .threads = 2};
    char *h0 = cs_sweep_journal_header(&sp);
    assert_null(strstr(h0, "noise="));
    sp.noise = 0.1;
    cs_sweep_result *r;
    cs_err err;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
    double affine = r->rows[0].success;
    cs_sweep_result_free(r);
    sp.solve.fit = CS_FIT_LS;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), 0);
    double ls = r->rows[0].success;
    cs_sweep_result_free(r);
    print_message("sigma 0.1: affine %.2f, ls %.2f\n", affine, ls);
    assert_true(affine <= 0.1);
    assert_true(ls >= 0.7);
    char *h1 = cs_sweep_journal_header(&sp);
    assert_non_null(strstr(h1, "\nnoise=0.1\nfit=ls\n"));
    free(h0);
    free(h1);
    sp.noise = -1.0;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "noise=-1"));
    sp.noise = 0.1;
    sp.device = CS_DEVICE_CUDA;
    assert_int_equal(cs_sweep_run(&sp, &r, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "device=cpu for noise="));
}

static void test_maxcut_run(void **state)
{
    (void)state;
    cs_graph *g;
    cs_err err;
    assert_int_equal(cs_graph_builtin(&g, "toy4", &err), 0);
    cs_maxcut_spec sp = {.graph = g, .trials = 10, .seed = 3, .threads = 2};
    cs_maxcut_result r, r1;
    assert_int_equal(cs_maxcut_run(&sp, &r, &err), 0);
    assert_int_equal(r.trials, 10);
    assert_true(r.known_best == 120.0);
    assert_true(r.lambda == 1.0);
    assert_true(r.best_rounded <= 120.0);
    assert_true(r.mean_cut <= 120.0 + 1e-9 && r.mean_cut > 0);
    /* mean and std against the per-trial cuts */
    double s = 0, q = 0;
    for (long i = 0; i < r.trials; i++)
        s += r.cuts[i];
    double mean = s / (double)r.trials;
    for (long i = 0; i < r.trials; i++)
        q += (r.cuts[i] - mean) * (r.cuts[i] - mean);
    assert_true(fabs(mean - r.mean_cut) < 1e-12);
    assert_true(fabs(sqrt(q / (double)(r.trials - 1)) - r.std_cut) < 1e-12);
    /* same with one thread */
    sp.threads = 1;
    assert_int_equal(cs_maxcut_run(&sp, &r1, &err), 0);
    assert_memory_equal(r.cuts, r1.cuts, 10 * sizeof(double));
    cs_maxcut_result_clear(&r);
    cs_maxcut_result_clear(&r1);
    cs_graph_free(g);
    sp.graph = NULL;
    assert_int_equal(cs_maxcut_run(&sp, &r, &err), CS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_identical_across_threads),
        cmocka_unit_test(test_methods_independent),
        cmocka_unit_test(test_defined_method),
        cmocka_unit_test(test_every_method_across_threads),
        cmocka_unit_test(test_progress_and_cancel),
        cmocka_unit_test(test_axes_and_errors),
        cmocka_unit_test(test_noise_and_fit),
        cmocka_unit_test(test_maxcut_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
