/* reg_internal.h — what the regularizer implementations share (engine only). */
#ifndef CS_REG_INTERNAL_H
#define CS_REG_INTERNAL_H

#include "cs_expr.h"
#include "cs_reg.h"

/* The bases of holder and si (key base=), named as their table entries. */
enum cs_reg_base { CS_BASE_BIN, CS_BASE_OSB, CS_BASE_TER, CS_BASE_COUNT };
extern const char *const cs_reg_base_name[CS_BASE_COUNT];

struct cs_reg {
    const cs_reg_info *info;
    /* parameters (each regularizer reads the ones it declares) */
    double p, q, r, eps;   /* holder, si */
    int base;              /* holder, si: enum cs_reg_base */
    double alpha;          /* fixed */
    double beta;           /* beta */
    int learn_beta;        /* beta=learn */
    int B;                 /* equ */
    /* matrix C of eig, ns, mu */
    double *C;
    size_t Crows, Ccols;
    int C_random;          /* draw C lazily once the dimension is known */
    uint64_t seed;
    int degree;            /* homogeneity degree in x, 0 when not homogeneous,
                              -1 scale invariant */
    cs_target_family family;
    size_t extra;          /* trailing auxiliary coordinates */
    double *work;          /* scratch owned by the instance */
    size_t nwork;
    cs_expr *ge, *he;      /* a defined entry's g and h (the instance's own copies) */
    int vector;            /* inside cs_reg_eval_fast: sums in 4-wide order (else the
                              library's entry-by-entry order) */
    int fast;              /* the solver's fused kernel (reg_fast_internal.h), 0: none */
    cs_poly *poly;         /* a defined entry in the CS form with polynomial g and h:
                              g, g', h, h' (reg_fast_defined.c), else NULL */
};

/* The fused kernel of an instance (reg_fast.c), once its parameters are set. */
/* out = g, g', h, h' when g and h are polynomials (cs_expr_poly); else 0. */
int cs_reg_poly_of(const cs_expr *g, const cs_expr *h, cs_poly out[4]);
int cs_reg_fast_pick(const cs_reg *reg);

/* The built-in table (reg_table.c). */
size_t cs_reg_builtin_count(void);
const cs_reg_info *cs_reg_builtin_at(size_t i);

/* A defined entry (reg_define.c): the table entry first, so that a
 * cs_reg_info of a defined entry is its cs_reg_def. */
typedef struct cs_reg_def cs_reg_def;
/* Build the entry of spec (validated, expressions compiled, target set
 * analysed); free with cs_reg_def_free. */
int cs_reg_def_new(cs_reg_def **out, const cs_reg_def_spec *spec, int *col, cs_err *err);
void cs_reg_def_free(cs_reg_def *d);
const cs_reg_info *cs_reg_def_info(const cs_reg_def *d);
/* Give a new instance of a defined entry its copies of g and h and the
 * form's parameters. */
int cs_reg_def_instance(cs_reg *reg, cs_err *err);

/* Scratch of at least n doubles (grown on demand). */
double *cs_reg_work(cs_reg *reg, size_t n, cs_err *err);

/* The instance's argument as a vector: rows×cols must be 1×n or n×1. */
int cs_reg_vector_len(const cs_reg *reg, size_t rows, size_t cols, size_t *n, cs_err *err);

/* Make sure C exists for an argument of dimension n (draws C=random). */
int cs_reg_need_matrix(cs_reg *reg, size_t n, cs_err *err);

#endif
