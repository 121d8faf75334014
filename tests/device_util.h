/* device_util.h — checks of a device op table that are not parity: copies
 * between overlapping regions (as memmove), and the errors a device keeps
 * (the first one, handed over once through `error`). Used on the real GPU
 * (test_nn_device.c) and on the CUDA emulator (test_cuda_emu.c). */
#ifndef CS_DEVICE_UTIL_H
#define CS_DEVICE_UTIL_H

#include "nn_backend.h"

/* cmocka asserts; dev must have an `error` op */
void nn_device_errors_check(const cs_nn_ops *dev);

#endif
