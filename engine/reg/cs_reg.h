/* cs_reg.h — the regularizer library.
 *
 * A regularizer is a table entry (cs_reg_info: name, formula, target set,
 * whether it is proven free of spurious stationary points, its parameters)
 * plus one function that computes value and gradient in one pass.
 * An instance (cs_reg) binds a table entry to parameter values. */
#ifndef CS_REG_H
#define CS_REG_H

#include <stddef.h>
#include <stdint.h>

#include "cs_error.h"

/* A parameter as the user wrote it: key=text. The regularizer parses text
 * itself (numbers, words like `learn`, matrices like `1,2;3,4`, file names). */
typedef struct cs_param {
    const char *key;
    const char *text;
} cs_param;

typedef struct cs_reg_param_info {
    const char *key;
    const char *def;   /* default as text, NULL when the key is required */
    const char *help;
} cs_reg_param_info;

typedef struct cs_reg cs_reg;

typedef int (*cs_reg_eval_fn)(cs_reg *reg, const double *x, size_t rows, size_t cols,
                              double *value, double *grad, cs_err *err);

typedef struct cs_reg_info {
    const char *name;          /* `bin`, `osb`, ... as typed by users */
    const char *title;         /* "symmetric binary" */
    const char *formula;       /* plain-text formula, Σ over n */
    const char *target;        /* the zero set, in words */
    const char *section;       /* where the paper defines it */
    int spurious_free;         /* 1: proven free of spurious stationary points */
    int differentiable;        /* 0: value and a subgradient */
    int matrix_arg;            /* 1: the argument is an N×K matrix (om) */
    const cs_reg_param_info *params;
    size_t nparams;
    cs_reg_eval_fn eval;
} cs_reg_info;

size_t cs_reg_count(void);
const cs_reg_info *cs_reg_info_at(size_t i);
const cs_reg_info *cs_reg_lookup(const char *name);   /* NULL when unknown */

/* Create an instance. Unknown keys, malformed values and missing required
 * keys are errors naming the key. `seed` drives C=random. */
int cs_reg_new(cs_reg **out, const char *name, const cs_param *params, size_t nparams,
               uint64_t seed, cs_err *err);
void cs_reg_free(cs_reg *reg);
const cs_reg_info *cs_reg_get_info(const cs_reg *reg);

/* Value and (sub)gradient at x (rows×cols, row-major; a vector is 1×n or n×1).
 * grad may be NULL. NaN/Inf in x, or a value that overflows, is an error.
 * Not thread-safe on one instance (scratch space, lazily drawn C=random):
 * give each thread its own instance. */
int cs_reg_eval(cs_reg *reg, const double *x, size_t rows, size_t cols, double *value,
                double *grad, cs_err *err);

/* Number of trailing coordinates of the argument that are auxiliary
 * variables rather than part of x (β of `beta beta=learn`, μ of `mu`):
 * projections must leave them untouched. */
size_t cs_reg_extra(const cs_reg *reg);

/* Canonical text of the instance with its parameters, e.g. "holder p=2 q=2 r=1 base=bin". */
void cs_reg_describe(const cs_reg *reg, char *buf, size_t len);

/* Use this matrix as C (eig, ns, mu), overriding C=...; copied. */
int cs_reg_set_matrix(cs_reg *reg, const double *C, size_t rows, size_t cols, cs_err *err);

#endif
