/* test_cuda_emu_matrix.c — the GPU sweep of kinds eig and orth
 * (engine/recovery/cuda/sweep_matrix_kernels.cu) run on the CPU through the
 * CUDA emulator (tests/emu/cuda_emu.h), under ASan in `make test`: trial by
 * trial against the CPU's solver on the same problems (drawn on the host by
 * the engine for both) under every stop rule, then `sweep ... device=cuda`
 * through the engine against device=cpu, and what it refuses. What the
 * emulator cannot show (timing, nvcc's code) test_sweep_gpu_matrix does on
 * a real GPU. */
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
 * One line per kind and method: "sweep kernel kind=K: T trials equal to
 * the CPU"; with a residual rule "sweep kernel kind=K stop=S: ...". */
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
    double tol;                /* the residual rules' tolerance */
    int mixed;                 /* the sample has successes and failures */
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
    sp.solve.tol = c->tol;
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
    sweep_tally k[3];
    memset(k, 0, sizeof k);
    for (size_t i = 0; i < n; i++) {
        sweep_cpu_ref ref = {.ps = {.kind = c->kind, .N = c->N, .M = c->Ms[i / T], .K = c->K},
                             .seed = 7, .so = sp.solve, .mv = mv, .nm = nm};
        assert_int_equal(sweep_trial_vs_cpu(&ref, (long)(i % T), succ + i * nm, iters + i * nm,
                                            starts + i * nm, k, &err), 0);
        for (size_t m = 0; m < nm; m++)
            assert_true(isnan(secs[i * nm + m]));
    }
    /* oracle, maxit: "stop=S" in the parentheses; a residual rule: in
     * front, its tolerance in the parentheses */
    int tol_rule = c->stop != CS_STOP_ORACLE && c->stop != CS_STOP_MAXIT;
    char what[64], rule[64];
    snprintf(what, sizeof what, tol_rule ? "kind=%s stop=%s" : "kind=%s",
             cs_problem_kind_name(c->kind), cs_stop_name(c->stop));
    int won = 0, total = 0;
    for (size_t m = 0; m < nm; m++) {
        if (tol_rule)   /* and in how many trials it ended a start */
            snprintf(rule, sizeof rule, "tol=%g, fired in %d", c->tol, k[m].early);
        else
            snprintf(rule, sizeof rule, "stop=%s", cs_stop_name(c->stop));
        char size[64];
        if (c->K)
            snprintf(size, sizeof size, "N=%zu K=%zu", c->N, c->K);
        else
            snprintf(size, sizeof size, "N=%zu", c->N);
        print_message("sweep kernel %s: %d trials equal to the CPU (of %d: %s at %s, "
                      "M=%zu and %zu, %s, %d successes, %d restarted; %d differ by "
                      "rounding, at most %d allowed; %d with the same iterations)\n",
                      what, k[m].equal, k[m].total, c->methods[m], size, c->Ms[0], c->Ms[1],
                      rule, k[m].won, k[m].restarted, k[m].total - k[m].equal, c->max_differ,
                      k[m].same_iters);
        assert_true(k[m].total - k[m].equal <= c->max_differ);
        assert_true(k[m].same_iters * 100 >= k[m].total * c->same_pct);
        assert_true(!tol_rule || k[m].early > 0);   /* the rule ended starts */
        won += k[m].won;
        total += k[m].total;
    }
    /* a sample that tells success from failure */
    assert_true(won > 0 && (won < total || !c->mixed));
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
    /* the residual rules: every trial the CPU's (none differs: the rules
     * fire away from their thresholds, so rounding moves no start's end) */
#define RULE_EIG(st, tol) \
    {CS_PROB_EIG, {"eig", "mu", "ns"}, 3, 12, 0, {2, 8}, 4, 300, 2, st, 0, 75, tol, 0}
#define RULE_ORTH(st, tol) {CS_PROB_ORTH, {"om"}, 1, 6, 3, {2, 4}, 4, 200, 2, st, 0, 75, tol, 0}
    const kernel_case cases[] = {
        /* M=2: the CPU on x (its restarts in lockstep); M=8: on z (solver_gram.c) */
        {CS_PROB_EIG, {"eig", "mu", "ns"}, 3, 12, 0, {2, 8}, 6, 300, 3, CS_STOP_ORACLE, 1, 75,
         0, 1},
        {CS_PROB_ORTH, {"om"}, 1, 5, 0, {2, 4}, 6, 40, 2, CS_STOP_MAXIT, 1, 75, 0, 1},
        {CS_PROB_ORTH, {"om"}, 1, 6, 3, {2, 4}, 6, 100, 1, CS_STOP_ORACLE, 1, 75, 0, 1},
        /* the residual rules: on eig the CPU runs residual and ratio on z
         * (solver_gram.c), normalized and hybrid on x (they measure ∇ℓ).
         * ℓeig's gradient keeps a part normal to the affine set, so its
         * normalized residual stays large (at 1e-2 every start of eig's
         * runs to maxit on the CPU): normalized at 0.2 */
        RULE_EIG(CS_STOP_RESIDUAL, 1e-5), RULE_EIG(CS_STOP_NORMALIZED, 0.2),
        RULE_EIG(CS_STOP_RATIO, 1e-5), RULE_EIG(CS_STOP_HYBRID, 1e-5),
        RULE_ORTH(CS_STOP_RESIDUAL, 1e-5), RULE_ORTH(CS_STOP_NORMALIZED, 1e-5),
        RULE_ORTH(CS_STOP_RATIO, 1e-5), RULE_ORTH(CS_STOP_HYBRID, 1e-5),
    };
#undef RULE_EIG
#undef RULE_ORTH
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        kernel_trials(&cases[k]);
    cs_sweep_gpu_matrix_use_module(NULL);
}

/* `sweep ... device=cuda` through the engine (cs_sweep_run with the
 * emulated module) against device=cpu: every trial and the CSV the same. */
static void engine_kind(cs_kind kind, const char *const *methods, size_t nm, size_t N,
                        double gamma2, cs_stop stop, double tol, long maxit)
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
    sp.solve.tol = tol;
    sweep_vs v;
    cs_err err;
    assert_int_equal(sweep_cpu_vs_cuda(&sp, &v, &err), 0);
    char rule[64] = "";   /* a residual rule: named */
    if (tol > 0)
        snprintf(rule, sizeof rule, " stop=%s tol=%g", cs_stop_name(stop), tol);
    print_message("sweep device=cuda kind=%s%s: the CSV of %zu rows %s the CPU's (%zu of %zu "
                  "solves succeeded)\n", cs_problem_kind_name(kind), rule, v.rows,
                  v.csv_equal ? "equals" : "differs from", v.won, v.solves);
    assert_true(v.same_success == 1.0);
    assert_true(v.csv_equal);
}

static void test_sweep_engine(void **state)
{
    (void)state;
    cs_sweep_gpu_matrix_use_module(cs_sweep_matrix_cuda_module_get());
    const char *eig[] = {"eig", "mu"}, *orth[] = {"om"};
    engine_kind(CS_PROB_EIG, eig, 2, 10, 0.7, CS_STOP_ORACLE, 0, 200);
    /* γ = 1: M = N, the projection a point (no null space: r = 0) */
    engine_kind(CS_PROB_ORTH, orth, 1, 5, 1.0, CS_STOP_MAXIT, 0, 40);
    /* a residual rule: each start ends where the CPU's does */
    engine_kind(CS_PROB_EIG, eig, 2, 10, 0.7, CS_STOP_RESIDUAL, 1e-5, 300);
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
        size_t N;
        cs_mode mode;
        const char *want;
    } cases[] = {
        {CS_PROB_EIG, "bin", 10, CS_MODE_DEFAULT, "not bin on kind=eig"},
        {CS_PROB_EIG, "eig:C=random", 10, CS_MODE_DEFAULT, "not eig:C=random"},
        {CS_PROB_ORTH, "om", 10, CS_MODE_PLAIN, "accel), not mode=plain"},
        /* X has N² entries */
        {CS_PROB_ORTH, "om", 300, CS_MODE_DEFAULT, ": N <= 256, not N=300"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cs_method m = method_of(cases[i].method);
        cs_sweep_spec sp = {.kind = cases[i].kind, .N = cases[i].N, .axis = CS_AXIS_GAMMA,
                            .values = gammas, .nvalues = 1, .methods = &m, .nmethods = 1,
                            .trials = 1, .threads = 1, .seed = 3, .device = CS_DEVICE_CUDA};
        sp.solve.stop = CS_STOP_HYBRID;   /* every rule taken */
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
