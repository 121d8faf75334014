/* vmath.h — SLEEF's u10 vector functions (1.0 ULP) over arrays, for the
 * expression evaluator and the regularizers' FILL and COMBINE steps
 * (engine/reg only). avx: use the AVX2+FMA versions (pass cs_cpu_avx2_fma(),
 * the same choice for a whole process), else the baseline ones. dst may be
 * the source. */
#ifndef CS_VMATH_H
#define CS_VMATH_H

#include <stddef.h>

/* m a multiple of 4. Each entry's result depends on that entry alone (sin,
 * cos, tan: SLEEF picks one argument reduction per vector, so entries of
 * other ranges, |x| < 15, < 1e14, else, are evaluated apart). */
void cs_vm_exp(double *dst, const double *src, size_t m, int avx);
void cs_vm_log(double *dst, const double *src, size_t m, int avx);
void cs_vm_sin(double *dst, const double *src, size_t m, int avx);
void cs_vm_cos(double *dst, const double *src, size_t m, int avx);
void cs_vm_tan(double *dst, const double *src, size_t m, int avx);
void cs_vm_tanh(double *dst, const double *src, size_t m, int avx);
void cs_vm_sqrt(double *dst, const double *src, size_t m, int avx);   /* correctly rounded */
/* pow(a[i], b[i]); a or b NULL: the constant ac or bc */
void cs_vm_pow(double *dst, const double *a, double ac, const double *b, double bc, size_t m,
               int avx);

/* Any n: the last partial group of 4 goes through the same vector code
 * (padded with the last entry), so an entry's result does not depend on
 * where it stands. */
void cs_vm_exp_any(double *dst, const double *src, size_t n, int avx);
void cs_vm_pow_any(double *dst, const double *a, double bc, size_t n, int avx);

#endif
