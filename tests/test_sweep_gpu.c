/* test_sweep_gpu.c — `sweep ... device=cuda` on a real GPU against the CPU,
 * trial by trial (skipped without a GPU or a CUDA build: the same kernel
 * runs on the CPU's emulator in test_cuda_emu), and the sweeps the GPU
 * refuses, with a message that says what it takes (everywhere).
 * CSREG_GPU_SWEEP_TRIALS (default 50) sets the trials per grid point of
 * the comparison (tests/gpu/run.sh runs it with more). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blas.h"
#include "cs_reg.h"
#include "cs_sweep.h"
#include "method_util.h"
#include "sweep_util.h"

static const char *two_text[] = {"bin", "linf"};
static cs_method two[2];

static cs_sweep_spec fig1a_like(const double *gammas, size_t ng, long trials)
{
    methods_of(two_text, 2, two);
    cs_sweep_spec sp = {.kind = CS_PROB_BIN, .N = 100, .axis = CS_AXIS_GAMMA, .values = gammas,
                        .nvalues = ng, .methods = two, .nmethods = 2, .trials = trials,
                        .threads = 0, .seed = 1};
    sp.solve.restarts = 10;
    return sp;
}

static void test_refused(void **state)
{
    (void)state;
    const double g[] = {0.5};
    /* a method without a kernel: 2bit's equ on bin */
    const char *equ_text[] = {"bin", "equ"};
    cs_method on_bin[2], fixed[1] = {method_of("fixed:alpha=1e100")};
    methods_of(equ_text, 2, on_bin);
    fig1a_like(g, 1, 2);   /* parses two */
    struct {
        cs_kind kind;
        const cs_method *methods;
        size_t nm;
        cs_stop stop;
        const char *want;
    } cases[] = {
        {CS_PROB_EIG, two, 2, CS_STOP_ORACLE, "not bin on kind=eig"},
        {CS_PROB_BIN, on_bin, 2, CS_STOP_ORACLE, "not equ"},
        {CS_PROB_BIN, fixed, 1, CS_STOP_ORACLE, "not fixed:alpha=1e100"},   /* α⁴ overflows */
        {CS_PROB_2BIT, two, 1, CS_STOP_HYBRID, "not bin"},   /* 2bit: equ only */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cs_sweep_spec sp = fig1a_like(g, 1, 2);
        sp.kind = cases[i].kind;
        sp.methods = cases[i].methods;
        sp.nmethods = cases[i].nm;
        sp.solve.stop = cases[i].stop;
        sp.device = CS_DEVICE_CUDA;
        cs_sweep_result *res = NULL;
        cs_err err;
        assert_int_equal(cs_sweep_run(&sp, &res, &err), CS_EUNSUPPORTED);
        print_message("refused: %s\n", err.msg);
        assert_non_null(strstr(err.msg, cases[i].want));
        assert_null(res);
    }
    cs_err err;
    cs_device d;
    assert_int_equal(cs_device_parse("tpu", &d, &err), CS_EINVAL);
    assert_string_equal(err.msg, "device tpu: expected cpu, cuda or auto");
    assert_int_equal(cs_device_parse("cuda", &d, &err), 0);
    assert_int_equal(d, CS_DEVICE_CUDA);
    cs_sweep_spec sp = fig1a_like(g, 1, 2);
    sp.device = CS_DEVICE_AUTO;
    cs_sweep_result *res = NULL;
    assert_int_equal(cs_sweep_run(&sp, &res, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "device=auto: a sweep runs on cpu or cuda"));
}

/* sp on the GPU against the CPU at γ around the transition, where trials
 * are borderline: per trial the same success for >= 99% of trials, and
 * the success rates within sampling error */
static void gpu_against_cpu(const cs_sweep_spec *spec, long trials)
{
    cs_sweep_spec s = *spec, *sp = &s;
    sweep_trials gpu, cpu;
    cs_err err;
    int rc = sweep_trials_run(sp, CS_DEVICE_CUDA, &gpu, &err);
    if (rc == CS_EUNSUPPORTED && (strstr(err.msg, "no NVIDIA driver/GPU") ||
                                  strstr(err.msg, "without CUDA") ||
                                  strstr(err.msg, "CUDA module"))) {
        print_message("sweep device=cuda: %s; skipped\n", err.msg);
        sweep_trials_free(&gpu);
        skip();
    }
    assert_int_equal(rc, 0);
    assert_int_equal(sweep_trials_run(sp, CS_DEVICE_CPU, &cpu, &err), 0);
    char names[512] = "";
    for (size_t m = 0, used = 0; m < sp->nmethods; m++) {
        size_t k = strlen(sp->methods[m].text);
        if (used + k + 2 > sizeof names)
            break;
        if (m)
            names[used++] = ',';
        memcpy(names + used, sp->methods[m].text, k + 1);
        used += k;
    }
    print_message("%ld trials at %zu γ, methods %s: GPU %.2f s, CPU %.2f s\n", trials,
                  sp->nvalues, names, gpu.seconds, cpu.seconds);
    double ss, si;
    sweep_trials_compare(&cpu, &gpu, 1, &ss, &si);
    assert_true(ss >= 0.99);
    for (size_t r = 0; r < cpu.res->nrows; r++) {
        const cs_sweep_row *a = &cpu.res->rows[r], *b = &gpu.res->rows[r];
        double se = a->stderr_ > b->stderr_ ? a->stderr_ : b->stderr_;
        print_message("%-15s gamma=%.2f success cpu %.3f gpu %.3f\n", a->method, a->gamma,
                      a->success, b->success);
        assert_true(fabs(a->success - b->success) <= 3 * se + 1.0 / (double)trials);
    }
    sweep_trials_free(&cpu);
    sweep_trials_free(&gpu);
}

static long env_trials(void)
{
    const char *env = getenv("CSREG_GPU_SWEEP_TRIALS");
    return env && atol(env) > 0 ? atol(env) : 50;
}

/* fig1a's sweep (bin and linf) */
static void test_gpu_against_cpu(void **state)
{
    (void)state;
    long trials = env_trials();
    const double g[] = {0.36, 0.44, 0.5, 0.56, 0.64, 0.8};
    cs_sweep_spec sp = fig1a_like(g, sizeof g / sizeof *g, trials);
    gpu_against_cpu(&sp, trials);
}

/* the methods of sessions/binary-variants.csr and binary-baselines.csr
 * (less the ones above), and a residual stopping rule */
static void test_gpu_methods(void **state)
{
    (void)state;
    long trials = env_trials();
    const double g[] = {0.44, 0.56, 0.8};
    const char *texts[] = {"holder", "si", "l2l1", "binexp", "beta:beta=1", "beta:beta=learn",
                           "holder:p=3:q=1.5", "si:p=4:q=1.3333333333333333:eps=0.01"};
    cs_method mv[8];
    methods_of(texts, 8, mv);
    cs_sweep_spec sp = fig1a_like(g, sizeof g / sizeof *g, trials);
    sp.methods = mv;
    sp.nmethods = 8;
    gpu_against_cpu(&sp, trials);
    cs_sweep_spec rule = fig1a_like(g, sizeof g / sizeof *g, trials);
    rule.solve.stop = CS_STOP_HYBRID;
    rule.solve.tol = 1e-5;
    gpu_against_cpu(&rule, trials);
    /* regularizers of `reg define`, the device's interpreter: the tour's
     * four and binexp's pair written as expressions */
    static const char *const defs[][3] = {{"four", "x^4 + 9", "10*x^2"},
                                          {"gaussd", "exp(-x^2)", "1"}};
    for (size_t k = 0; k < 2; k++) {
        cs_reg_def_spec d;
        cs_reg_def_spec_init(&d);
        d.name = defs[k][0];
        d.g = defs[k][1];
        d.h = defs[k][2];
        cs_err err;
        assert_int_equal(cs_reg_define(&d, NULL, NULL, &err), 0);
    }
    const char *dtexts[] = {"four", "gaussd"};
    cs_method dv[2];
    methods_of(dtexts, 2, dv);
    cs_sweep_spec def = fig1a_like(g, sizeof g / sizeof *g, trials);
    def.methods = dv;
    def.nmethods = 2;
    gpu_against_cpu(&def, trials);
}

int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_gpu_against_cpu),
        cmocka_unit_test(test_gpu_methods),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
