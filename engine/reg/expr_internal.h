/* expr_internal.h — what the parser/compiler (expr_parse.c) and the
 * evaluators (expr_eval.c) of cs_expr share: the bytecode and the compiled
 * expression (engine/reg only). */
#ifndef CS_EXPR_INTERNAL_H
#define CS_EXPR_INTERNAL_H

#include <stddef.h>

#include "cs_expr.h"

#define CH 64           /* chunk: entries per slot */
#define MAX_SLOTS 256   /* stack slots (more than the nesting limit allows) */
#define MAX_POWI 64     /* x^k by multiplication for integer |k| <= this */

/* ------------------------------------------------------------ bytecode */

enum {
    OP_X,      /* push x                   (v, d) = (x, 1) */
    OP_C,      /* push c                   (c, 0) */
    OP_NEG,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV,
    OP_ADDC,   /* a + c  (also a - c as a + (-c): the same bits) */
    OP_RSUBC,  /* c - a */
    OP_MULC,   /* c * a */
    OP_DIVC,   /* a / c */
    OP_RDIVC,  /* c / a */
    OP_POWK,   /* a^k, k integer, 2 <= |k| <= 64 or k = -1: multiplications */
    OP_POWC,   /* a^c, c constant: pow(a, c); c2 = c - 1 */
    OP_CPOW,   /* c^a, c constant: pow(c, a); c2 = log(c) */
    OP_POW,    /* a^b: pow(a, b) */
    OP_EXP, OP_LOG, OP_SQRT, OP_ABS, OP_SIN, OP_COS, OP_TAN, OP_TANH, OP_SIGN,
    OP_MIN, OP_MAX,
    OP_COUNT
};

typedef struct ins {
    int op;
    int s;            /* output slot; operands in s (and s+1) */
    int k;            /* OP_POWK exponent */
    double c, c2;     /* constants (see the opcodes) */
    int span0, span1; /* [span0, span1): the term in the source text */
} ins;

struct cs_expr {
    char *text;
    ins *code;
    int ncode;
    int nslots;
    int uses_x;
    double cval;      /* the value when !uses_x */
    int hom;
    double hk;
    int avx;          /* run the AVX2 build (AVX2 and FMA: SLEEF's avx2 functions need both) */
    double *scr;      /* nslots × (values, derivatives), then tmp, then the padded x */
};

/* One instruction on scalar slots V[], D[] (expr_eval.c; the parser folds
 * constants with it, so folded and unfolded constants agree). */
void cs_expr_step1(const ins *in, double *V, double *D, double x);
/* Text of [a, b) for messages, shortened in the middle when long (expr_parse.c). */
void cs_expr_span_text(const char *s, int a, int b, char *buf, size_t len);

#endif
