/* cpu/nn_cpu.h — what the CPU backend's files (nn_ops.c, nn_reg_ops.c,
 * nn_watch_ops.c) share: vectorized loops (AVX2 where the CPU has it,
 * picked at load time; only per-element operations, so results match the
 * scalar code: sqrt and division are correctly rounded either way), 8-lane
 * vector types and their shuffles, and tasks in fixed blocks. */
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

/* The lanes 0, 2, …, 14 (even) and 1, 3, …, 15 (odd) of a:b, the 16 lanes
 * of a then b: GCC's __builtin_shuffle, clang's __builtin_shufflevector. */
static inline __attribute__((always_inline)) v8f v8f_even(v8f a, v8f b)
{
#ifdef __clang__
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
#else
    return __builtin_shuffle(a, b, (v8i){0, 2, 4, 6, 8, 10, 12, 14});
#endif
}

static inline __attribute__((always_inline)) v8f v8f_odd(v8f a, v8f b)
{
#ifdef __clang__
    return __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
#else
    return __builtin_shuffle(a, b, (v8i){1, 3, 5, 7, 9, 11, 13, 15});
#endif
}

/* n items in tasks of `per`: the number of tasks, and the length of task t */
static inline int blocks(int n, int per) { return (n + per - 1) / per; }

static inline int block_len(int n, int per, int t) { return n - t * per < per ? n - t * per : per; }

#endif
