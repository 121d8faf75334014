/* cpu/nn_cpu.h — what the CPU backend's files (nn_ops.c, nn_watch_ops.c)
 * share: vectorized loops (AVX2 where the CPU has it, picked at load time;
 * only per-element operations, so results match the scalar code: sqrt and
 * division are correctly rounded either way) and 8-lane vector types. */
#ifndef CS_NN_CPU_H
#define CS_NN_CPU_H

#include <stdint.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CS_VEC __attribute__((target_clones("avx2", "default")))
#define CS_HAVE_AVX2_PATH 1
#include <immintrin.h>
#else
#define CS_VEC
#endif

typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));

#endif
