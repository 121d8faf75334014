/* device_util.c — see device_util.h */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "device_util.h"

void nn_device_errors_check(const cs_nn_ops *dev)
{
    char msg[256];
    assert_non_null(dev->error);
    assert_int_equal(dev->error(msg, sizeof msg), 0);
    enum { N = 1000 };
    float h[N], want[N], got[N];
    for (int i = 0; i < N; i++)
        h[i] = (float)i;
    float *g = dev->alloc(sizeof h);
    assert_non_null(g);
    for (int shift = -3; shift <= 3; shift += 6) {   /* dst after src, then before */
        memcpy(want, h, sizeof h);
        assert_int_equal(dev->upload(g, h, sizeof h), 0);
        size_t n = N - 3;
        float *dst = shift > 0 ? g + shift : g, *src = shift > 0 ? g : g - shift;
        memmove(shift > 0 ? want + shift : want, shift > 0 ? want : want - shift, n * 4);
        dev->copy(dst, src, n * 4);
        assert_int_equal(dev->download(got, g, sizeof got), 0);
        assert_memory_equal(want, got, sizeof got);
    }
    assert_int_equal(dev->error(msg, sizeof msg), 0);
    dev->reg->rows(g, NULL, g, 0, 4, CS_REG_KERNEL_BIN, 1.0f);   /* a grid of 0 blocks */
    dev->matmul_forward(g, g, g, NULL, -1, 4, 4);           /* sgemm: invalid value */
    assert_true(dev->error(msg, sizeof msg) < 0);
    print_message("the first error kept: %s\n", msg);
    assert_non_null(strstr(msg, "reg_rows: "));
    assert_int_equal(dev->error(msg, sizeof msg), 0);   /* handed over once */
    dev->matmul_forward(g, g, g, NULL, -1, 4, 4);
    assert_true(dev->error(msg, sizeof msg) < 0);
    assert_non_null(strstr(msg, "matmul_forward: cuBLAS sgemm: "));
    dev->release(g);
}
