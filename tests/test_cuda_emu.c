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
#include <string.h>

#include "cs_blas.h"
#include "cs_problem.h"
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
 * Schmidt twice here, Householder QR on the CPU). At these sizes every
 * trial agrees on success and starts, and almost every one on the
 * iteration count. */
static void test_sweep_trials(void **state)
{
    (void)state;
    const cs_sweep_cuda_module *mod = cs_sweep_cuda_module_get();
    assert_int_equal(mod->abi, CS_SWEEP_CUDA_ABI);
    enum { N = 24, T = 6 };
    const int Ms[] = {11, 19};
    const char *methods[] = {"bin", "linf"};
    cs_method mv[2];
    methods_of(methods, 2, mv);
    int same_iters = 0, total = 0;
    for (int mi = 0; mi < 2; mi++)
        for (int g = 0; g < 2; g++) {
            size_t M = (size_t)Ms[g];
            uint64_t ps[T], ms[T];
            unsigned char succ[T];
            long iters[T];
            int starts[T];
            for (long t = 0; t < T; t++) {
                ps[t] = cs_sweep_trial_stream(N, M, 0, t);
                ms[t] = cs_sweep_method_stream(ps[t], &mv[mi]);
            }
            cs_sweep_cuda_job job = {
                .method = mi ? CS_SWEEP_CUDA_DR_LINF : CS_SWEEP_CUDA_FISTA_BIN,
                .N = N, .M = (int)M, .trials = T, .seed = 7,
                .problem_stream = ps, .method_stream = ms,
                .maxit = 200, .max_starts = 2, .oracle_stop = 1,
                .success_tol = 1e-2, .dr_t = 10.0,
                .success = succ, .iters = iters, .starts = starts};
            char why[256];
            assert_int_equal(mod->run(0, &job, 1, why, sizeof why), 0);
            for (long t = 0; t < T; t++) {
                cs_err err;
                cs_problem_spec sp = {.kind = CS_PROB_BIN, .N = N, .M = M};
                cs_problem *p;
                assert_int_equal(cs_problem_new(&p, &sp, 7, ps[t], &err), 0);
                cs_solve_opts so = {.maxit = 200, .restarts = 2};
                cs_solver *s;
                assert_int_equal(cs_solver_new(&s, p, &mv[mi], &so, 7, ms[t], &err), 0);
                cs_solve_result r;
                assert_int_equal(cs_solver_solve(s, &r, &err), 0);
                print_message("sweep %-4s M=%-2zu trial %ld: gpu %d/%d starts/%4ld iters, "
                              "cpu %d/%d/%4ld\n", methods[mi], M, t, succ[t], starts[t],
                              iters[t], r.success, r.starts, r.iters);
                assert_int_equal(succ[t], r.success);
                assert_int_equal(starts[t], r.starts);
                same_iters += iters[t] == r.iters;
                total++;
                cs_solver_free(s);
                cs_problem_free(p);
            }
        }
    print_message("sweep: %d of %d trials took the same iterations as on the CPU\n",
                  same_iters, total);
    assert_true(same_iters >= total * 9 / 10);
}

/* `sweep ... device=cuda` through the engine (cs_sweep_run with the
 * emulated module): the rows and every trial as with device=cpu. */
static void test_sweep_engine(void **state)
{
    (void)state;
    cs_sweep_gpu_use_module(cs_sweep_cuda_module_get());
    const double gammas[] = {0.5, 0.8};
    const char *methods[] = {"bin", "linf"};
    cs_method mv[2];
    methods_of(methods, 2, mv);
    cs_sweep_spec sp = {.kind = CS_PROB_BIN, .N = 20, .axis = CS_AXIS_GAMMA, .values = gammas,
                        .nvalues = 2, .methods = mv, .nmethods = 2, .trials = 3,
                        .threads = 1, .seed = 3};
    sp.solve.maxit = 150;
    sp.solve.restarts = 2;
    sweep_trials cpu, gpu;
    cs_err err;
    assert_int_equal(sweep_trials_run(&sp, CS_DEVICE_CPU, &cpu, &err), 0);
    assert_int_equal(sweep_trials_run(&sp, CS_DEVICE_CUDA, &gpu, &err), 0);
    double ss, si;
    sweep_trials_compare(&cpu, &gpu, 1, &ss, &si);
    assert_true(ss == 1.0);
    assert_int_equal(gpu.res->nrows, cpu.res->nrows);
    for (size_t r = 0; r < cpu.res->nrows; r++) {
        assert_true(gpu.res->rows[r].success == cpu.res->rows[r].success);
        assert_true(gpu.res->rows[r].mean_restarts == cpu.res->rows[r].mean_restarts);
    }
    /* what the GPU does not take is refused with what it does */
    sp.kind = CS_PROB_OSB;
    sp.device = CS_DEVICE_CUDA;
    cs_sweep_result *res;
    assert_int_equal(cs_sweep_run(&sp, &res, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "kind=bin with methods bin and linf"));
    sweep_trials_free(&cpu);
    sweep_trials_free(&gpu);
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
