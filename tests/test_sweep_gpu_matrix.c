/* test_sweep_gpu_matrix.c — `sweep kind=eig|orth ... device=cuda` on a
 * real GPU against the CPU, trial by trial, at the sizes of sessions/eig.csr
 * (N=100, eig and mu, 10 restarts) and sessions/orth.csr (om, stop=maxit,
 * N=10 and N=100), and with the residual stop rules, on a few grid points
 * each (skipped without a GPU or a
 * CUDA build: the same kernels run on the CPU's emulator in
 * test_cuda_emu_matrix). CSREG_GPU_SWEEP_TRIALS (default 20) sets the
 * trials per grid point (N=100 orth: a quarter of them). */
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
#include "cs_sweep.h"
#include "method_util.h"
#include "sweep_util.h"

static long trials_env(void)
{
    const char *env = getenv("CSREG_GPU_SWEEP_TRIALS");
    return env && atol(env) > 0 ? atol(env) : 20;
}

/* The GPU's run of sp against the CPU's: per trial the same success for
 * at least min_same of the trials (borderline trials may tip by
 * rounding), the success rates within sampling error. 1: skipped (no GPU). */
static int compare(cs_sweep_spec *sp, const char *what, double min_same)
{
    sweep_trials gpu, cpu;
    cs_err err;
    int rc = sweep_trials_run(sp, CS_DEVICE_CUDA, &gpu, &err);
    if (rc == CS_EUNSUPPORTED && (strstr(err.msg, "no NVIDIA driver/GPU") ||
                                  strstr(err.msg, "without CUDA") ||
                                  strstr(err.msg, "CUDA module"))) {
        print_message("sweep device=cuda: %s; skipped\n", err.msg);
        sweep_trials_free(&gpu);
        return 1;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(sweep_trials_run(sp, CS_DEVICE_CPU, &cpu, &err), 0);
    print_message("%s: %ld trials at %zu points: GPU %.2f s, CPU %.2f s\n", what, sp->trials,
                  sp->nvalues, gpu.seconds, cpu.seconds);
    double ss, si;
    sweep_trials_compare(&cpu, &gpu, 1, &ss, &si);
    assert_true(ss >= min_same);
    for (size_t r = 0; r < cpu.res->nrows; r++) {
        const cs_sweep_row *a = &cpu.res->rows[r], *b = &gpu.res->rows[r];
        double se = a->stderr_ > b->stderr_ ? a->stderr_ : b->stderr_;
        print_message("%-4s gamma=%.2f success cpu %.3f gpu %.3f\n", a->method, a->gamma,
                      a->success, b->success);
        assert_true(fabs(a->success - b->success) <= 3 * se + 1.0 / (double)sp->trials);
    }
    sweep_trials_free(&cpu);
    sweep_trials_free(&gpu);
    return 0;
}

/* sessions/eig.csr at three γ: eig and mu, N=100, 10 restarts */
static void test_eig(void **state)
{
    (void)state;
    const char *text[] = {"eig", "mu"};
    cs_method mv[2];
    methods_of(text, 2, mv);
    const double g[] = {0.3, 0.5, 0.7};
    cs_sweep_spec sp = {.kind = CS_PROB_EIG, .N = 100, .axis = CS_AXIS_GAMMA, .values = g,
                        .nvalues = 3, .methods = mv, .nmethods = 2, .trials = trials_env(),
                        .threads = 0, .seed = 1};
    sp.solve.restarts = 10;
    if (compare(&sp, "eig, mu at N=100", 0.95))
        skip();
}

/* sessions/orth.csr: om with stop=maxit at N=10 and N=100 */
static void test_orth(void **state)
{
    (void)state;
    cs_method om = method_of("om");
    const double g10[] = {0.3, 0.6, 0.9}, g100[] = {0.3, 0.6};
    cs_sweep_spec sp = {.kind = CS_PROB_ORTH, .N = 10, .axis = CS_AXIS_GAMMA, .values = g10,
                        .nvalues = 3, .methods = &om, .nmethods = 1, .trials = trials_env(),
                        .threads = 0, .seed = 1};
    sp.solve.stop = CS_STOP_MAXIT;
    if (compare(&sp, "om at N=10", 0.95))
        skip();
    sp.N = 100;
    sp.values = g100;
    sp.nvalues = 2;
    sp.trials = trials_env() / 4 > 0 ? trials_env() / 4 : 1;
    assert_int_equal(compare(&sp, "om at N=100", 0.9), 0);
}

/* the residual rules (the emulator checks them trial by trial on small
 * problems in test_cuda_emu_matrix): eig and mu at N=100, om at N=10 */
static void test_stop_rules(void **state)
{
    (void)state;
    const char *text[] = {"eig", "mu"};
    cs_method mv[2];
    methods_of(text, 2, mv);
    cs_method om = method_of("om");
    const double g[] = {0.5}, g10[] = {0.6};
    const cs_stop rules[] = {CS_STOP_RESIDUAL, CS_STOP_RATIO, CS_STOP_HYBRID};
    long trials = trials_env() / 2 > 0 ? trials_env() / 2 : 1;
    for (size_t k = 0; k < sizeof rules / sizeof *rules; k++) {
        char what[64];
        cs_sweep_spec sp = {.kind = CS_PROB_EIG, .N = 100, .axis = CS_AXIS_GAMMA, .values = g,
                            .nvalues = 1, .methods = mv, .nmethods = 2, .trials = trials,
                            .threads = 0, .seed = 1};
        sp.solve.restarts = 10;
        sp.solve.stop = rules[k];
        sp.solve.tol = 1e-5;
        snprintf(what, sizeof what, "eig, mu at N=100 stop=%s", cs_stop_name(rules[k]));
        if (compare(&sp, what, 0.9))
            skip();
        sp.kind = CS_PROB_ORTH;
        sp.N = 10;
        sp.values = g10;
        sp.methods = &om;
        sp.nmethods = 1;
        snprintf(what, sizeof what, "om at N=10 stop=%s", cs_stop_name(rules[k]));
        assert_int_equal(compare(&sp, what, 0.9), 0);
    }
}

int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eig),
        cmocka_unit_test(test_orth),
        cmocka_unit_test(test_stop_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
