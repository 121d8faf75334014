/* cs_expr_code.h — a compiled expression (cs_expr.h) as a flat,
 * self-contained array of fixed-size instructions, for code that cannot
 * follow the engine's pointers: the GPU sweep evaluates a defined
 * regularizer's g and h from it (engine/recovery/cuda/sweep_expr.cuh).
 * Plain C with fixed-size types, included from C and from CUDA C++; made
 * by cs_expr_export (cs_expr_export.h).
 *
 * The instructions are the interpreter's (expr_internal.h, the scalar path
 * cs_expr_step1), op for op and constant for constant: a stack of slots,
 * each a value and its derivative; instruction i writes slot ins[i].s from
 * slot s (and s + 1 for the binary ops); the result is slot 0. */
#ifndef CS_EXPR_CODE_H
#define CS_EXPR_CODE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* what the device's interpreter holds: the instructions in the job, the
 * slots (value, derivative) in each thread's registers / local memory */
#define CS_EXPR_CODE_MAX_INS 64
#define CS_EXPR_CODE_MAX_SLOTS 16

/* the opcodes, in expr_internal.h's order (expr_export.c checks it) */
enum cs_expr_code_op {
    CS_EXPR_OP_X,      /* (x, 1) */
    CS_EXPR_OP_C,      /* (c, 0) */
    CS_EXPR_OP_NEG,
    CS_EXPR_OP_ADD, CS_EXPR_OP_SUB, CS_EXPR_OP_MUL, CS_EXPR_OP_DIV,
    CS_EXPR_OP_ADDC,   /* a + c */
    CS_EXPR_OP_RSUBC,  /* c - a */
    CS_EXPR_OP_MULC,   /* c * a */
    CS_EXPR_OP_DIVC,   /* a / c */
    CS_EXPR_OP_RDIVC,  /* c / a */
    CS_EXPR_OP_POWK,   /* a^k by multiplications (k integer, 2 <= |k| <= 64 or -1) */
    CS_EXPR_OP_POWC,   /* pow(a, c); c2 = c - 1 */
    CS_EXPR_OP_CPOW,   /* pow(c, a); c2 = log(c) (SLEEF's, as the CPU compiled it) */
    CS_EXPR_OP_POW,    /* pow(a, b) */
    CS_EXPR_OP_EXP, CS_EXPR_OP_LOG, CS_EXPR_OP_SQRT, CS_EXPR_OP_ABS, CS_EXPR_OP_SIN,
    CS_EXPR_OP_COS, CS_EXPR_OP_TAN, CS_EXPR_OP_TANH, CS_EXPR_OP_SIGN,
    CS_EXPR_OP_MIN, CS_EXPR_OP_MAX,
    CS_EXPR_OP_COUNT
};

typedef struct cs_expr_code_ins {
    int16_t op;       /* enum cs_expr_code_op */
    int16_t s;        /* output slot; operands in s (and s + 1) */
    int32_t k;        /* POWK's exponent */
    double c, c2;     /* constants (see the opcodes) */
} cs_expr_code_ins;

typedef struct cs_expr_code {
    int32_t n;        /* instructions, 1..CS_EXPR_CODE_MAX_INS (a constant: one OP_C) */
    int32_t nslots;   /* slots used, 1..CS_EXPR_CODE_MAX_SLOTS */
    int32_t uses_x;   /* 0: a constant (its derivative is 0) */
    int32_t pad;
    cs_expr_code_ins ins[CS_EXPR_CODE_MAX_INS];
} cs_expr_code;

/* A defined regularizer (reg define NAME g=EXPR h=EXPR [form=...]) as the
 * device evaluates it: the CS form ‖g‖²‖h‖² − ⟨g,h⟩², or the Hölder forms
 * holder (P − Q) and si ((P + ε)/(Q + ε) − 1), P = (‖g‖_p‖h‖_q)^r,
 * Q = |⟨g,h⟩|^r (at p, q other than 2 as reg_holder.c's rescaled path). */
enum cs_expr_reg_form { CS_EXPR_REG_CS = 0, CS_EXPR_REG_HOLDER = 1, CS_EXPR_REG_SI = 2 };

typedef struct cs_expr_reg_code {
    cs_expr_code g, h;
    int32_t form;     /* enum cs_expr_reg_form */
    int32_t flat;     /* h is a constant: no h' (the CPU's flat_h) */
    double r, eps;    /* holder, si: the power r > 0; si's ε >= 0 */
    double p, q;      /* holder, si: the norms' exponents, >= 1 */
    double deg;       /* hom: P's and Q's degree r·(kg + kh), x's scale's factor back */
    int32_t hom;      /* g, h homogeneous of degrees kg + kh > 0: at p, q other than 2,
                       * x is rescaled by a power of two first */
    int32_t pad2;
} cs_expr_reg_code;

#ifdef __cplusplus
}
#endif

#endif
