/* cs_simd.h — the hot loops of the solvers come in a generic and an AVX2
 * version (same source, compiled twice); which one runs is decided once, at
 * run time, from the CPU. */
#ifndef CS_SIMD_H
#define CS_SIMD_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
#define CS_AVX2_CLONE 1
#define CS_AVX2_FN __attribute__((target("avx2")))
#endif

/* 1 when this CPU runs AVX2 code; cached after the first call. */
int cs_cpu_avx2(void);
/* 1 when it runs AVX2 and FMA code. */
int cs_cpu_avx2_fma(void);

#endif
