/* cs_cuda_module.h — the CUDA module, libcsreg_cuda.so: built from
 * engine/nn/cuda and engine/recovery/cuda with nvcc (CUDA=1), linked to
 * cuBLAS and the CUDA runtime, and opened with dlopen when a command asks
 * for device=cuda or auto (as ggml loads its backends), so ./csreg links
 * no CUDA library and runs on the CPU where there is none. Each layer
 * looks up its own exported table (nn: cs_nn_cuda_module_get, the sweep:
 * cs_sweep_cuda_module_get). */
#ifndef CS_CUDA_MODULE_H
#define CS_CUDA_MODULE_H

#include <stddef.h>

#define CS_CUDA_MODULE_FILE "libcsreg_cuda.so"

/* CSREG_CUDA_DEVICE: the device index (default 0); 0 ok, <0 with why for
 * anything but a number >= 0. */
int cs_cuda_env_device(const char *value, int *device, char *why, size_t len);
/* CSREG_CUDA_SYNC: on for 1/yes/on/true, off when unset, empty or 0 */
int cs_cuda_env_sync(const char *value);
/* Where the module is looked for: $CSREG_CUDA_MODULE when set, else
 * libcsreg_cuda.so beside the running program (/proc/self/exe), then in
 * the folder above it (build/rel/tests -> build/rel). Writes the first
 * candidate that exists (else the first candidate) to path. */
void cs_cuda_module_path(char *path, size_t len);

/* The table that the module's symbol `name` (a function of no arguments)
 * returns, when it is the one this csreg was built with: every table
 * begins with `int abi; size_t size;` (its ABI number, the size of its
 * job or op struct as the module was built), checked against abi and
 * size. NULL with the reason in why: built without CUDA, no module, a
 * CUDA library missing, a module of another build. */
const void *cs_cuda_module_table(const char *name, int abi, size_t size, char *why, size_t len);

#ifdef CSREG_HAVE_CUDA
/* The module's exported symbol `name` (the module opened on the first
 * call and kept): 0, or <0 with the reason in why (not there, cannot be
 * loaded: a CUDA library missing, no such symbol). */
int cs_cuda_module_sym(const char *name, void **sym, char *why, size_t len);
#endif

#endif
