/* cs_reg_kernel.h — the hand-written elementwise kernels of the built-in
 * regularizers, generated from reg_builtins.def: their ids, families and
 * flags, and g, g', h, h' in float and double for every backend (C, C++,
 * CUDA: __host__ __device__ under nvcc). Plain C with no other include of
 * the engine, so the CUDA module and its emulator take it as it is. */
#ifndef CS_REG_KERNEL_H
#define CS_REG_KERNEL_H

#include <math.h>

#ifdef __CUDACC__
#define CS_HD __host__ __device__
#else
#define CS_HD
#endif

/* CS_REG_KERNEL_BIN, ...: one per CS_KERNEL row; NONE for the others. */
typedef enum cs_reg_kernel {
    CS_REG_KERNEL_NONE = 0,
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH) CS_REG_KERNEL_##ID,
#include "reg_builtins.def"
    CS_REG_KERNEL_COUNT
} cs_reg_kernel;

/* A kernel's family: how the fused kernels and the network backends sum it. */
typedef enum cs_kernel_class {
    CS_KC_NONE = 0,
    CS_KC_POLY,    /* bin, osb, ter: sums of powers of x */
    CS_KC_FLAT,    /* the CS form with h = 1: N·Σg² − (Σg)² */
    CS_KC_HOLDER   /* the Hölder form with h = 1, p = q = 2, r = 1: √N‖g‖ − Σg */
} cs_kernel_class;

enum { CS_KF_H = 1, CS_KF_STORED = 2, CS_KF_EXP = 4, CS_KF_TAIL = 8 };

static inline CS_HD cs_kernel_class cs_reg_kernel_class(int k)
{
    switch (k) {
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH)                                            \
    case CS_REG_KERNEL_##ID: return CS_KC_##CLASS;
#include "reg_builtins.def"
    default: return CS_KC_NONE;
    }
}

static inline CS_HD int cs_reg_kernel_flags(int k)
{
    switch (k) {
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH)                                            \
    case CS_REG_KERNEL_##ID: return FLAGS;
#include "reg_builtins.def"
    default: return 0;
    }
}

/* cs_g_NAME, cs_dg_NAME(x, g), cs_h_NAME, cs_dh_NAME in double, and the
 * same with a suffix f in float: the row's expressions, nothing else. */
#define K(c) ((CS_KT)(c))
#define SGN(v) ((CS_KT)(((v) > 0) - ((v) < 0)))
#define CS_KT double
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH)                                            \
    static inline CS_HD double cs_g_##name(double x)                                               \
    {                                                                                              \
        return G;                                                                                  \
    }                                                                                              \
    static inline CS_HD double cs_dg_##name(double x, double g)                                    \
    {                                                                                              \
        (void)g;                                                                                   \
        return DG;                                                                                 \
    }                                                                                              \
    static inline CS_HD double cs_h_##name(double x)                                               \
    {                                                                                              \
        (void)x;                                                                                   \
        return H;                                                                                  \
    }                                                                                              \
    static inline CS_HD double cs_dh_##name(double x)                                              \
    {                                                                                              \
        (void)x;                                                                                   \
        return DH;                                                                                 \
    }
#define ABS(v) fabs(v)
#define EXP(v) exp(v)
#include "reg_builtins.def"
#undef ABS
#undef EXP
#undef CS_KT
#define CS_KT float
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH)                                            \
    static inline CS_HD float cs_g_##name##f(float x)                                              \
    {                                                                                              \
        return G;                                                                                  \
    }                                                                                              \
    static inline CS_HD float cs_dg_##name##f(float x, float g)                                    \
    {                                                                                              \
        (void)g;                                                                                   \
        return DG;                                                                                 \
    }                                                                                              \
    static inline CS_HD float cs_h_##name##f(float x)                                              \
    {                                                                                              \
        (void)x;                                                                                   \
        return H;                                                                                  \
    }                                                                                              \
    static inline CS_HD float cs_dh_##name##f(float x)                                             \
    {                                                                                              \
        (void)x;                                                                                   \
        return DH;                                                                                 \
    }
#define ABS(v) fabsf(v)
#define EXP(v) expf(v)
#include "reg_builtins.def"
#undef ABS
#undef EXP
#undef K
#undef SGN
#undef CS_KT

/* g, g', h or h' (which) of kernel k by id, in double and in float: one
 * switch each, folded by the compiler where k and which are constants (the
 * backends instantiate one loop per kernel). g' takes g. */
enum { CS_KW_G, CS_KW_DG, CS_KW_H, CS_KW_DH };
static inline CS_HD double cs_reg_kernel_fn(int k, int which, double x, double g)
{
    switch (k) {
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH)                                            \
    case CS_REG_KERNEL_##ID:                                                                       \
        return which == CS_KW_G    ? cs_g_##name(x)                                                \
               : which == CS_KW_DG ? cs_dg_##name(x, g)                                            \
               : which == CS_KW_H ? cs_h_##name(x)                                                \
                                   : cs_dh_##name(x);
#include "reg_builtins.def"
    default: return 0.0;
    }
}
static inline CS_HD float cs_reg_kernel_fnf(int k, int which, float x, float g)
{
    switch (k) {
#define CS_KERNEL(ID, name, CLASS, FLAGS, G, DG, H, DH)                                            \
    case CS_REG_KERNEL_##ID:                                                                       \
        return which == CS_KW_G    ? cs_g_##name##f(x)                                             \
               : which == CS_KW_DG ? cs_dg_##name##f(x, g)                                         \
               : which == CS_KW_H ? cs_h_##name##f(x)                                             \
                                   : cs_dh_##name##f(x);
#include "reg_builtins.def"
    default: return 0.0f;
    }
}
static inline CS_HD double cs_reg_kernel_g(int k, double x) { return cs_reg_kernel_fn(k, CS_KW_G, x, 0.0); }
static inline CS_HD double cs_reg_kernel_dg(int k, double x, double g)
{
    return cs_reg_kernel_fn(k, CS_KW_DG, x, g);
}
static inline CS_HD double cs_reg_kernel_h(int k, double x) { return cs_reg_kernel_fn(k, CS_KW_H, x, 0.0); }
static inline CS_HD double cs_reg_kernel_dh(int k, double x) { return cs_reg_kernel_fn(k, CS_KW_DH, x, 0.0); }
static inline CS_HD float cs_reg_kernel_gf(int k, float x) { return cs_reg_kernel_fnf(k, CS_KW_G, x, 0.0f); }
static inline CS_HD float cs_reg_kernel_dgf(int k, float x, float g)
{
    return cs_reg_kernel_fnf(k, CS_KW_DG, x, g);
}

#endif
