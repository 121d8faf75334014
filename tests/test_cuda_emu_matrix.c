/* test_cuda_emu_matrix.c — the GPU sweep of kinds eig and orth
 * (engine/recovery/cuda/sweep_matrix_kernels.cu) run on the CPU through the
 * CUDA emulator (tests/emu/cuda_emu.h), under ASan in `make test`: trial by
 * trial against the CPU's solver on the same problems (drawn on the host by
 * the engine for both), then `sweep ... device=cuda` through the engine
 * against device=cpu, and what it refuses. What the emulator cannot show
 * (timing, nvcc's code) test_sweep_gpu_matrix does on a real GPU. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blas.h"
#include "cs_problem.h"
#include "cs_solver.h"
#include "cs_sweep.h"
#include "cuda/sweep_matrix_cuda.h"
#include "method_util.h"
#include "sweep_gpu_matrix.h"
#include "sweep_util.h"

/* the emulated module (engine/recovery/cuda/sweep_matrix_kernels.cu) */
const cs_sweep_matrix_cuda_module *cs_sweep_matrix_cuda_module_get(void);

static int count_done(void *user, size_t item, cs_err *err)
{
    (void)item;
    (void)err;
    ++*(size_t *)user;
    return 0;
}

/* The kernels, trial by trial against the CPU's solver: the same problems
 * and starts (drawn on the host), the same FISTA steps; only rounding
 * differs (the CPU runs eig, mu and ns on the affine set's coordinates,
 * solver_gram.c, the GPU on x with the problem's own projection basis;
 * sums in another order). A trial is equal when its success and starts are
 * the CPU's; at most `max_differ` of a case may differ (a borderline trial
 * that rounding tips), and at least same_pct % take the same iterations.
 * One line per kind: "sweep kernel kind=K: T trials equal to the CPU". */
typedef struct kernel_case {
    cs_kind kind;
    const char *methods[3];
    size_t nm, N, K;
    size_t Ms[2];              /* grid points: RANGE (M <= N − M) and NULL */
    long trials, maxit;
    int restarts;
    cs_stop stop;
    int max_differ;
    int same_pct;
} kernel_case;

static void kernel_trials(const kernel_case *c)
{
    cs_method mv[3];
    methods_of(c->methods, c->nm, mv);
    size_t nm = c->nm, T = (size_t)c->trials, n = 2 * T;
    cs_sweep_spec sp = {.kind = c->kind, .N = c->N, .methods = mv, .nmethods = nm,
                        .trials = c->trials, .threads = 1, .seed = 7};
    sp.solve.maxit = c->maxit;
    sp.solve.restarts = c->restarts;
    sp.solve.stop = c->stop;
    cs_err err;
    assert_int_equal(cs_sweep_gpu_matrix_check(&sp, &err), 0);
    size_t Ks[2] = {c->K, c->K}, *items = malloc(n * sizeof *items), done = 0;
    unsigned char *succ = malloc(n * nm);
    long *iters = malloc(n * nm * sizeof *iters);
    int *starts = malloc(n * nm * sizeof *starts);
    double *secs = malloc(n * nm * sizeof *secs);
    assert_true(items && succ && iters && starts && secs);
    for (size_t i = 0; i < n; i++)
        items[i] = i;
    assert_int_equal(cs_sweep_gpu_matrix_run(&sp, c->Ms, Ks, items, n, succ, iters, starts, secs,
                                             count_done, &done, &err), 0);
    assert_int_equal(done, n);
    /* per method: equal, the same iterations, solves, successes, restarted */
    int cnt[3][5];
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < n; i++) {
        size_t g = i / T, M = c->Ms[g];
        long t = (long)(i % T);
        cs_problem_spec ps = {.kind = c->kind, .N = c->N, .M = M, .K = c->K};
        uint64_t ts = cs_sweep_trial_stream(c->N, M, c->K, t);
        cs_problem *p;
        assert_int_equal(cs_problem_new(&p, &ps, 7, ts, &err), 0);
        for (size_t m = 0; m < nm; m++) {
            cs_solve_opts so = sp.solve;
            cs_solver *s;
            assert_int_equal(cs_solver_new(&s, p, &mv[m], &so, 7,
                                           cs_sweep_method_stream(ts, &mv[m]), &err), 0);
            cs_solve_result r;
            assert_int_equal(cs_solver_solve(s, &r, &err), 0);
            size_t at = i * nm + m;
            int eq = succ[at] == r.success && starts[at] == r.starts;
            if (!eq)
                print_message("  differs: %s M=%zu trial %ld: gpu %d/%d starts/%ld iters, "
                              "cpu %d/%d/%ld\n", c->methods[m], M, t, succ[at], starts[at],
                              iters[at], r.success, r.starts, r.iters);
            assert_true(isnan(secs[at]));
            cnt[m][0] += eq;
            cnt[m][1] += eq && iters[at] == r.iters;
            cnt[m][2]++;
            cnt[m][3] += r.success;
            cnt[m][4] += r.starts > 1;
            cs_solver_free(s);
        }
        cs_problem_free(p);
    }
    int won = 0, total = 0;
    for (size_t m = 0; m < nm; m++) {
        int *k = cnt[m];
        char size[64];
        if (c->K)
            snprintf(size, sizeof size, "N=%zu K=%zu", c->N, c->K);
        else
            snprintf(size, sizeof size, "N=%zu", c->N);
        print_message("sweep kernel kind=%s: %d trials equal to the CPU (of %d: %s at %s, "
                      "M=%zu and %zu, stop=%s, %d successes, %d restarted; %d differ by "
                      "rounding, at most %d allowed; %d with the same iterations)\n",
                      cs_problem_kind_name(c->kind), k[0], k[2], c->methods[m], size, c->Ms[0],
                      c->Ms[1], cs_stop_name(c->stop), k[3], k[4], k[2] - k[0], c->max_differ,
                      k[1]);
        assert_true(k[2] - k[0] <= c->max_differ);
        assert_true(k[1] * 100 >= k[2] * c->same_pct);
        won += k[3];
        total += k[2];
    }
    assert_true(won > 0 && won < total);   /* a sample that tells success from failure */
    free(items);
    free(succ);
    free(iters);
    free(starts);
    free(secs);
}

static void test_kernel_trials(void **state)
{
    (void)state;
    const cs_sweep_matrix_cuda_module *mod = cs_sweep_matrix_cuda_module_get();
    assert_int_equal(mod->abi, CS_SWEEP_MATRIX_CUDA_ABI);
    assert_int_equal(mod->job_size, sizeof(cs_sweep_matrix_cuda_job));
    cs_sweep_gpu_matrix_use_module(mod);
    const kernel_case cases[] = {
        /* M=2: the CPU on x (its restarts in lockstep); M=8: on z (solver_gram.c) */
        {CS_PROB_EIG, {"eig", "mu", "ns"}, 3, 12, 0, {2, 8}, 6, 300, 3, CS_STOP_ORACLE, 1, 75},
        {CS_PROB_ORTH, {"om"}, 1, 5, 0, {2, 4}, 6, 40, 2, CS_STOP_MAXIT, 1, 75},
        {CS_PROB_ORTH, {"om"}, 1, 6, 3, {2, 4}, 6, 100, 1, CS_STOP_ORACLE, 1, 75},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        kernel_trials(&cases[k]);
    cs_sweep_gpu_matrix_use_module(NULL);
}

/* the CSV of a result, as the sweep writes it */
static char *csv_of(const cs_sweep_result *r)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(cs_sweep_print_csv(r, NULL, f), 0);
    long n = ftell(f);
    rewind(f);
    char *s = calloc((size_t)n + 1, 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return s;
}

/* `sweep ... device=cuda` through the engine (cs_sweep_run with the
 * emulated module) against device=cpu: every trial and the CSV the same. */
static void engine_kind(cs_kind kind, const char *const *methods, size_t nm, size_t N,
                        double gamma2, cs_stop stop, long maxit)
{
    cs_method mv[3];
    methods_of(methods, nm, mv);
    const double gammas[] = {0.4, gamma2};
    cs_sweep_spec sp = {.kind = kind, .N = N, .axis = CS_AXIS_GAMMA, .values = gammas,
                        .nvalues = 2, .methods = mv, .nmethods = nm, .trials = 3,
                        .threads = 1, .seed = 3};
    sp.solve.maxit = maxit;
    sp.solve.restarts = 2;
    sp.solve.stop = stop;
    sweep_trials cpu, gpu;
    cs_err err;
    assert_int_equal(sweep_trials_run(&sp, CS_DEVICE_CPU, &cpu, &err), 0);
    assert_int_equal(sweep_trials_run(&sp, CS_DEVICE_CUDA, &gpu, &err), 0);
    double ss, si;
    sweep_trials_compare(&cpu, &gpu, 1, &ss, &si);
    char *a = csv_of(cpu.res), *b = csv_of(gpu.res);
    size_t won = 0, n = cpu.n * cpu.nm;
    for (size_t k = 0; k < n; k++)
        won += cpu.success[k];
    print_message("sweep device=cuda kind=%s: the CSV of %zu rows %s the CPU's (%zu of %zu "
                  "solves succeeded)\n", cs_problem_kind_name(kind), cpu.res->nrows,
                  strcmp(a, b) ? "differs from" : "equals", won, n);
    assert_true(ss == 1.0);
    assert_string_equal(a, b);
    free(a);
    free(b);
    sweep_trials_free(&cpu);
    sweep_trials_free(&gpu);
}

static void test_sweep_engine(void **state)
{
    (void)state;
    cs_sweep_gpu_matrix_use_module(cs_sweep_matrix_cuda_module_get());
    const char *eig[] = {"eig", "mu"}, *orth[] = {"om"};
    engine_kind(CS_PROB_EIG, eig, 2, 10, 0.7, CS_STOP_ORACLE, 200);
    /* γ = 1: M = N, the projection a point (no null space: r = 0) */
    engine_kind(CS_PROB_ORTH, orth, 1, 5, 1.0, CS_STOP_MAXIT, 40);
    cs_sweep_gpu_matrix_use_module(NULL);
}

/* what the GPU does not take is refused with what it does */
static void test_refused(void **state)
{
    (void)state;
    const char *takes = "sweep device=cuda runs kind eig with methods eig, mu and ns (FISTA, "
                        "the problem's C) and kind orth with method om";
    const double gammas[] = {0.5};
    struct {
        cs_kind kind;
        const char *method;
        cs_stop stop;
        cs_mode mode;
        const char *want;
    } cases[] = {
        {CS_PROB_EIG, "bin", CS_STOP_ORACLE, CS_MODE_DEFAULT, "not bin on kind=eig"},
        {CS_PROB_EIG, "eig:C=random", CS_STOP_ORACLE, CS_MODE_DEFAULT, "not eig:C=random"},
        {CS_PROB_EIG, "eig", CS_STOP_HYBRID, CS_MODE_DEFAULT, "not stop=hybrid"},
        {CS_PROB_ORTH, "om", CS_STOP_MAXIT, CS_MODE_PLAIN, "accel), not mode=plain"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cs_method m = method_of(cases[i].method);
        cs_sweep_spec sp = {.kind = cases[i].kind, .N = 10, .axis = CS_AXIS_GAMMA,
                            .values = gammas, .nvalues = 1, .methods = &m, .nmethods = 1,
                            .trials = 1, .threads = 1, .seed = 3, .device = CS_DEVICE_CUDA};
        sp.solve.stop = cases[i].stop;
        sp.solve.mode = cases[i].mode;
        cs_sweep_result *res = NULL;
        cs_err err;
        assert_int_equal(cs_sweep_run(&sp, &res, &err), CS_EUNSUPPORTED);
        print_message("refused: %s\n", err.msg);
        assert_non_null(strstr(err.msg, takes));
        assert_non_null(strstr(err.msg, cases[i].want));
        assert_null(res);
    }
}

int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_trials),
        cmocka_unit_test(test_sweep_engine),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
