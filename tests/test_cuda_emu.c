/* test_cuda_emu.c — the CUDA backend's kernels run on the CPU through the
 * emulator (tests/emu/cuda_emu.h: blocks on real threads, __syncthreads as
 * a barrier, cuBLAS as a checked reference GEMM), in every build, under
 * ASan in `make test`: the module's init and its test kernel, every op of
 * the table against the CPU reference (tests/parity_util.c, as on a GPU),
 * the errors the ops keep, failed allocations, no device memory left
 * after a shutdown, and the batched sweep kernel (engine/recovery/cuda)
 * trial by trial against the CPU's solver, alone and through `sweep`. What the emulator cannot show (timing, real
 * concurrency, nvcc's code) the GPU run (tests/gpu/run.sh) does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blas.h"
#include "cs_problem.h"
#include "cs_reg.h"
#include "cs_solver.h"
#include "cs_sweep.h"
#include "cuda/sweep_cuda.h"
#include "device_util.h"
#include "method_util.h"
#include "nn_backend.h"
#include "parity_util.h"
#include "sweep_gpu.h"
#include "sweep_util.h"

/* the emulated module (engine/nn/cuda/nn_ops.cu) and the emulator's own */
const cs_nn_cuda_module *cs_nn_cuda_module_get(void);
const cs_sweep_cuda_module *cs_sweep_cuda_module_get(void);
size_t cs_emu_device_bytes(void);
void cs_emu_fail_malloc_after(long n);

static const cs_nn_ops *emu;

static void test_init(void **state)
{
    (void)state;
    const cs_nn_cuda_module *m = cs_nn_cuda_module_get();
    assert_int_equal(m->abi, CS_NN_CUDA_ABI);
    assert_int_equal(m->ops_size, sizeof(cs_nn_ops));
    char why[256] = "", name[256];
    assert_int_equal(m->init(1, 0, why, sizeof why), -1);   /* one device: 0 */
    assert_non_null(strstr(why, "CSREG_CUDA_DEVICE=1 is out of range: 1 CUDA device (0..0)"));
    assert_int_equal(m->init(0, 1, why, sizeof why), 0);    /* the probe kernel ran */
    m->name(name, sizeof name);
    assert_non_null(strstr(name, "emulator"));
    emu = m->ops;
}

static void test_parity(void **state)
{
    (void)state;
    assert_int_equal(nn_parity_run(&cs_nn_cpu_ops, emu, 1), 0);
}

/* overlapping copies, the first error kept and handed over once */
static void test_errors(void **state)
{
    (void)state;
    nn_device_errors_check(emu);
}

static void test_alloc_failure_and_leaks(void **state)
{
    (void)state;
    size_t before = cs_emu_device_bytes();
    cs_emu_fail_malloc_after(0);
    assert_null(emu->alloc(64));
    cs_emu_fail_malloc_after(-1);
    char msg[256];
    assert_int_equal(emu->error(msg, sizeof msg), 0);   /* a NULL answer, not a kept error */
    float *p = emu->alloc(64 * sizeof(float));
    assert_non_null(p);
    float h[64];
    assert_int_equal(emu->download(h, p, sizeof h), 0);
    for (int i = 0; i < 64; i++)   /* alloc zeroes what cudaMalloc leaves as NaN here */
        assert_true(h[i] == 0.0f);
    emu->release(p);
    assert_int_equal(cs_emu_device_bytes(), before);
    cs_nn_cuda_module_get()->shutdown();
    assert_int_equal(cs_emu_device_bytes(), 0);
}


/* The batched sweep kernel, trial by trial against the CPU's solver: the
 * same problems (the generator ported), the same starts, the same FISTA and
 * Douglas–Rachford steps; only the projection's rounding differs (Gram–
 * Schmidt twice here, Householder QR on the CPU) and the order of the
 * block's sums. A trial is equal when its success and starts are the
 * CPU's; at most `max_differ` of a kind may differ (a borderline trial
 * that rounding tips), and at least 9 in 10 take the same iterations.
 * One line per kind: "sweep kernel kind=K: T trials equal to the CPU". */
typedef struct kernel_case {
    cs_kind kind;
    int gkind;                /* enum cs_sweep_cuda_kind */
    const char *methods[2];   /* a CS regularizer (FISTA), a norm (DR); 2bit: equ */
    int nm;
    size_t N;
    size_t Ms[3], Ks[3];      /* grid points: M, K (0: dense) */
    int npoints;
    long maxit;
    int max_differ;
    int same_pct;             /* at least this share (%) with the same iterations */
} kernel_case;

enum { KT = 6 };

/* method i of c's job as sweep_gpu.c builds it */
static void kernel_job(const kernel_case *c, const cs_method *m, cs_sweep_cuda_job *job)
{
    const cs_reg_info *info = m->info;
    job->kind = c->gkind;
    if (c->kind == CS_PROB_2BIT) {
        job->method = CS_SWEEP_CUDA_FISTA_2BIT;
        job->max_starts = 2;
        job->lambda = 1e-5;
        return;
    }
    int dr = info->prox != CS_REG_PROX_NONE;
    job->method = dr ? CS_SWEEP_CUDA_DR : CS_SWEEP_CUDA_FISTA;
    job->fn = dr ? (info->prox == CS_REG_PROX_L1 ? CS_SWEEP_CUDA_PROX_L1 : CS_SWEEP_CUDA_PROX_LINF)
                 : info->kernel == CS_REG_KERNEL_OSB ? CS_SWEEP_CUDA_REG_OSB
                 : info->kernel == CS_REG_KERNEL_TER ? CS_SWEEP_CUDA_REG_TER
                                                     : CS_SWEEP_CUDA_REG_BIN;
    job->dr_t = info->prox == CS_REG_PROX_L1 ? 1.0 : 10.0;
    job->max_starts = dr ? 1 : 2;
    job->first_start_raw = c->kind == CS_PROB_OSB || c->kind == CS_PROB_TER;
}

static void kernel_trials(const kernel_case *c)
{
    const cs_sweep_cuda_module *mod = cs_sweep_cuda_module_get();
    cs_method mv[2];
    methods_of(c->methods, (size_t)c->nm, mv);
    int equal = 0, same_iters = 0, total = 0, won = 0, restarted = 0;
    for (int mi = 0; mi < c->nm; mi++)
        for (int g = 0; g < c->npoints; g++) {
            size_t M = c->Ms[g], K = c->Ks[g];
            uint64_t ps[KT], ms[KT];
            unsigned char succ[KT];
            long iters[KT];
            int starts[KT];
            for (long t = 0; t < KT; t++) {
                ps[t] = cs_sweep_trial_stream(c->N, M, K, t);
                ms[t] = cs_sweep_method_stream(ps[t], &mv[mi]);
            }
            cs_sweep_cuda_job job = {
                .N = (int)c->N, .M = (int)M, .K = (int)K, .trials = KT, .seed = 7,
                .problem_stream = ps, .method_stream = ms,
                .maxit = c->maxit, .oracle_stop = 1, .success_tol = 1e-2,
                .success = succ, .iters = iters, .starts = starts};
            kernel_job(c, &mv[mi], &job);
            char why[256];
            assert_int_equal(mod->run(0, &job, 1, why, sizeof why), 0);
            for (long t = 0; t < KT; t++) {
                cs_err err;
                cs_problem_spec sp = {.kind = c->kind, .N = c->N, .M = M, .K = K};
                cs_problem *p;
                assert_int_equal(cs_problem_new(&p, &sp, 7, ps[t], &err), 0);
                cs_solve_opts so = {.maxit = c->maxit, .restarts = 2};
                cs_solver *s;
                assert_int_equal(cs_solver_new(&s, p, &mv[mi], &so, 7, ms[t], &err), 0);
                cs_solve_result r;
                assert_int_equal(cs_solver_solve(s, &r, &err), 0);
                int eq = succ[t] == r.success && starts[t] == r.starts;
                if (!eq)
                    print_message("  differs: %s M=%zu K=%zu trial %ld: gpu %d/%d starts/%ld "
                                  "iters, cpu %d/%d/%ld\n", c->methods[mi], M, K, t, succ[t],
                                  starts[t], iters[t], r.success, r.starts, r.iters);
                equal += eq;
                won += r.success;
                restarted += r.starts > 1;
                same_iters += eq && iters[t] == r.iters;
                total++;
                cs_solver_free(s);
                cs_problem_free(p);
            }
        }
    print_message("sweep kernel kind=%s: %d trials equal to the CPU (of %d: %s%s%s at "
                  "N=%zu, %d successes, %d restarted; %d differ by rounding, at most %d "
                  "allowed; %d with the same iterations)\n", cs_problem_kind_name(c->kind),
                  equal, total, c->methods[0], c->nm > 1 ? " and " : "",
                  c->nm > 1 ? c->methods[1] : "", c->N, won, restarted, total - equal,
                  c->max_differ, same_iters);
    assert_true(won > 0 && won < total);   /* a sample that tells success from failure */
    assert_true(total - equal <= c->max_differ);
    assert_true(same_iters * 100 >= total * c->same_pct);
}

static void test_sweep_trials(void **state)
{
    (void)state;
    assert_int_equal(cs_sweep_cuda_module_get()->abi, CS_SWEEP_CUDA_ABI);
    const kernel_case cases[] = {
        {CS_PROB_BIN, CS_SWEEP_CUDA_BIN, {"bin", "linf"}, 2, 24, {11, 19}, {0, 0}, 2, 200, 0, 90},
        {CS_PROB_OSB, CS_SWEEP_CUDA_OSB, {"osb", "l1"}, 2, 24, {16, 14}, {0, 6}, 2, 120, 0, 90},
        {CS_PROB_TER, CS_SWEEP_CUDA_TER, {"ter", "l1"}, 2, 24, {16, 14}, {0, 6}, 2, 120, 0, 90},
        /* 2bit has no projection to damp rounding: b = Ax* rounds differently
         * (BLAS's dgemv on the CPU), and Barzilai–Borwein steps amplify it.
         * On the CPU alone, b one ulp larger changes 7 of 60 trials at
         * M = 10, 8 (maxit 300, two starts); here at most 2 of 12 may. */
        {CS_PROB_2BIT, CS_SWEEP_CUDA_2BIT, {"equ"}, 1, 10, {10, 9}, {0, 0}, 2, 300, 2, 75},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        kernel_trials(&cases[k]);
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
 * emulated module) against device=cpu, for each kind the GPU takes (osb
 * on a γ grid with K fixed, ter on a K grid): every trial and the CSV the
 * same (exact); 2bit, whose trials rounding can tip (above): the CSV
 * compared, at most one trial's outcome different. */
typedef struct engine_case {
    cs_kind kind;
    const char *methods[2];
    size_t nm, N;
    cs_axis axis;
    double values[2];         /* γ or K */
    size_t K;
    long trials, maxit;
    int restarts;
    int exact;
} engine_case;

static void sweep_engine_kind(const engine_case *c)
{
    cs_method mv[2];
    methods_of(c->methods, c->nm, mv);
    cs_sweep_spec sp = {.kind = c->kind, .N = c->N, .axis = c->axis, .values = c->values,
                        .nvalues = 2, .M = 12, .K = c->K, .methods = mv, .nmethods = c->nm,
                        .trials = c->trials, .threads = 1, .seed = 3};
    sp.solve.maxit = c->maxit;
    sp.solve.restarts = c->restarts;
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
                  "solves succeeded)\n", cs_problem_kind_name(c->kind), cpu.res->nrows,
                  strcmp(a, b) ? "differs from" : "equals", won, n);
    if (c->exact) {
        assert_true(ss == 1.0 && si == 1.0);
        assert_string_equal(a, b);
    } else {
        assert_true(ss * (double)n >= (double)n - 1.0);
    }
    free(a);
    free(b);
    sweep_trials_free(&cpu);
    sweep_trials_free(&gpu);
}

static void test_sweep_engine(void **state)
{
    (void)state;
    cs_sweep_gpu_use_module(cs_sweep_cuda_module_get());
    /* osb and ter with three starts: the CPU runs the second and third in
     * lockstep */
    const engine_case cases[] = {
        {CS_PROB_BIN, {"bin", "linf"}, 2, 20, CS_AXIS_GAMMA, {0.5, 0.8}, 0, 3, 150, 2, 1},
        {CS_PROB_OSB, {"osb", "l1"}, 2, 20, CS_AXIS_GAMMA, {0.5, 0.8}, 5, 2, 150, 3, 1},
        {CS_PROB_TER, {"ter", "l1"}, 2, 20, CS_AXIS_K, {4, 8}, 0, 2, 150, 3, 1},
        {CS_PROB_2BIT, {"equ"}, 1, 10, CS_AXIS_GAMMA, {1.0, 0.9}, 0, 2, 300, 2, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        sweep_engine_kind(&cases[k]);
    /* what the GPU does not take is refused with what it does */
    const char *methods[] = {"bin", "holder"};
    cs_method mv[2];
    methods_of(methods, 2, mv);
    const double gammas[] = {0.5};
    cs_sweep_spec sp = {.kind = CS_PROB_EIG, .N = 20, .axis = CS_AXIS_GAMMA, .values = gammas,
                        .nvalues = 1, .methods = mv, .nmethods = 1, .trials = 1, .threads = 1,
                        .seed = 3, .device = CS_DEVICE_CUDA};
    const char *takes = "sweep device=cuda runs kinds bin, osb and ter (K= too) with methods "
                        "bin, osb, ter (FISTA) and linf, l1 (Douglas-Rachford), and kind 2bit "
                        "with method equ";
    cs_sweep_result *res;
    cs_err err;
    assert_int_equal(cs_sweep_run(&sp, &res, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, takes));
    assert_non_null(strstr(err.msg, "not kind=eig"));
    sp.kind = CS_PROB_TER;
    sp.nmethods = 2;
    assert_int_equal(cs_sweep_run(&sp, &res, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, takes));
    assert_non_null(strstr(err.msg, "not holder"));
    sp.kind = CS_PROB_2BIT;   /* 2bit takes its own method only */
    sp.nmethods = 1;
    assert_int_equal(cs_sweep_run(&sp, &res, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "not bin"));
    cs_sweep_gpu_use_module(NULL);
}

int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_parity),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_alloc_failure_and_leaks),
        cmocka_unit_test(test_sweep_trials),
        cmocka_unit_test(test_sweep_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
