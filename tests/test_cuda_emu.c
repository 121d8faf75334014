/* test_cuda_emu.c — the CUDA backend's kernels run on the CPU through the
 * emulator (tests/emu/cuda_emu.h: blocks on real threads, __syncthreads as
 * a barrier, cuBLAS as a checked reference GEMM), in every build, under
 * ASan in `make test`: the module's init and its test kernel, every op of
 * the table against the CPU reference (tests/parity_util.c, as on a GPU),
 * the errors the ops keep, failed allocations, and no device memory left
 * after a shutdown. What the emulator cannot show (timing, real
 * concurrency, nvcc's code) the GPU run (tests/gpu/run.sh) does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cs_blas.h"
#include "device_util.h"
#include "nn_backend.h"
#include "parity_util.h"

/* the emulated module (engine/nn/cuda/nn_ops.cu) and the emulator's own */
const cs_nn_cuda_module *cs_nn_cuda_module_get(void);
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


int main(void)
{
    cs_blas_set_threads(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_parity),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_alloc_failure_and_leaks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
