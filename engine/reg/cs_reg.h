/* cs_reg.h — the regularizer library.
 *
 * A regularizer is a table entry (cs_reg_info: name, formula, target set
 * as data, whether it is proven free of spurious stationary points, its
 * parameters, the kernels that exist for it) plus one function that
 * computes value and gradient in one pass. An instance (cs_reg) binds a
 * table entry to parameter values. Names are looked up once, at the edge
 * (cs_reg_lookup, cs_reg_new); past it callers read the entry's fields. */
#ifndef CS_REG_H
#define CS_REG_H

#include <stddef.h>
#include <stdint.h>

#include "cs_error.h"
#include "cs_expr.h"
#include "cs_reg_kernel.h"

/* A parameter as the user wrote it: key=text. The regularizer parses text
 * itself (numbers, words like `learn`, matrices like `1,2;3,4`, file names). */
typedef struct cs_param {
    const char *key;
    const char *text;
} cs_param;

/* How a parameter's text is read, and what it sets (reg_table.c's lists,
 * read by one function, reg_core.c's apply_param, and printed by one,
 * cs_reg_describe). */
typedef enum cs_param_type {
    CS_PARAM_REAL = 0,  /* a number in [lo, hi] */
    CS_PARAM_POSITIVE,  /* a number in (lo, hi], lo = 0 */
    CS_PARAM_INT,       /* an integer in [lo, hi] */
    CS_PARAM_BASE,      /* a base's name: bin, osb or ter */
    CS_PARAM_LEARN,     /* a number in [lo, hi], or `learn` (sets the flag at flag_offset) */
    CS_PARAM_MATRIX     /* a matrix: inline, random or FILE.csv */
} cs_param_type;

typedef struct cs_reg_param_info {
    const char *key;
    const char *def;   /* default as text, NULL when the key is required */
    const char *help;
    cs_param_type type;
    double lo, hi;     /* bounds of REAL, POSITIVE, INT, LEARN */
    size_t offset;     /* the field of the instance it sets (double, or int for INT and BASE) */
    size_t flag_offset; /* LEARN: the int field set to 1 by `learn` */
} cs_reg_param_info;

typedef struct cs_reg cs_reg;

/* The zero set, as a family of level sets: x ∈ {a·l : l ∈ levels}^N for any
 * scale a (FIXED: for the table's fixed alpha only). */
typedef enum cs_target_family {
    CS_TARGET_NONE = 0,  /* no discrete target set (baselines; eig, om, ns) */
    CS_TARGET_BIN,       /* {-a,+a}^N */
    CS_TARGET_OSB,       /* {0,a}^N */
    CS_TARGET_TER,       /* {-a,0,+a}^N */
    CS_TARGET_LEVELS,    /* equ: sums of stacked blocks on 2^B equispaced levels */
    CS_TARGET_FIXED,     /* {-alpha,+alpha}^N with alpha fixed */
    CS_TARGET_EIG,       /* eigenvectors of C */
    CS_TARGET_ORTH,      /* matrices with orthogonal columns of equal norm */
    CS_TARGET_NULLSPACE, /* unit vectors in the nullspace of C */
    CS_TARGET_SCALED     /* {a·l : l ∈ levels}^N for any a: a defined regularizer's
                            scale-free level set other than those above */
} cs_target_family;

/* Hand-written elementwise kernels (cs_reg_kernel.h, from reg_builtins.def):
 * the network backends switch on these (parameter-free instances only,
 * cs_reg_kernel_of), the recovery solver's fused kernels too (cs_reg_fast.h;
 * they also take fixed with its alpha). */
/* How the recovery solver treats the entry: a smooth (or subgradient)
 * objective for FISTA, or a norm whose prox Douglas–Rachford applies. */
typedef enum cs_reg_prox {
    CS_REG_PROX_NONE = 0,
    CS_REG_PROX_LINF,
    CS_REG_PROX_L1
} cs_reg_prox;

/* Whether the entry takes a matrix C= (eig, mu: square; ns: any shape). */
typedef enum cs_reg_matrix { CS_C_NONE = 0, CS_C_ANY, CS_C_SQUARE } cs_reg_matrix;

/* The evaluation form: plain, or Hölder / scale-invariant Hölder over the g
 * and h of a base (key base=bin|osb|ter). */
typedef enum cs_reg_form { CS_FORM_NONE = 0, CS_FORM_HOLDER, CS_FORM_SI } cs_reg_form;

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
    const char *g, *h;         /* elementwise g and h of a CS regularizer, NULL otherwise */
    cs_target_family family;   /* the zero set (holder, si: that of their base) */
    const double *levels;      /* the levels l of the family, up to the scale a */
    size_t nlevels;
    int degree;                /* ℓ(2x) = 2^degree ℓ(x); 0: not homogeneous (holder: from r) */
    cs_reg_kernel kernel;      /* its hand-written kernel (cs_reg_kernel_of) */
    cs_reg_prox prox;          /* DR baselines: the norm's prox */
    cs_reg_matrix takes_C;
    cs_reg_form form;
    int extra;                 /* trailing auxiliary coordinates (mu: 1; beta=learn adds 1) */
    int defined;               /* 1: made at run time by cs_reg_define */
    const char *label, *label_plain; /* legend label in the paper's notation
                                        (gnuplot enhanced text, and plain) */
    const cs_reg_param_info *params;
    size_t nparams;
    cs_reg_eval_fn eval;
} cs_reg_info;

size_t cs_reg_count(void);
const cs_reg_info *cs_reg_info_at(size_t i);
const cs_reg_info *cs_reg_lookup(const char *name);   /* NULL when unknown */

/* ---- regularizers defined at run time (`reg define`) ----
 * A defined regularizer is a table entry made from elementwise g(x) and
 * h(x) (cs_expr.h) and a form; cs_reg_count, cs_reg_info_at and
 * cs_reg_lookup see it beside the built-ins, so everything that takes a
 * regularizer by name takes it. Its target set (family, levels, text) comes
 * from the level analysis of g and h (cs_reg_analyze.h), its degree from
 * their homogeneity. Entries live until the process ends; a redefinition
 * replaces the entry under its name (instances made before keep the old
 * one). The registry is thread-safe. */
#define CS_REG_NAME_MAX 32     /* characters of a defined name, at most */
#define CS_REG_DEFINE_MAX 1000  /* definitions per process, replaced ones included */

typedef struct cs_reg_def_spec {
    const char *name;              /* letters, digits, _; not a built-in's name */
    const char *g, *h;             /* expressions in x */
    cs_reg_form form;              /* NONE: the CS form; HOLDER; SI */
    double p, q, r, eps;           /* HOLDER and SI (cs_reg_def_spec_init: 2, 2, 1, 0) */
    const cs_expr_const *consts;   /* named constants of g and h (a=0.5 ...) */
    size_t nconsts;
} cs_reg_def_spec;
void cs_reg_def_spec_init(cs_reg_def_spec *spec);

/* Define spec->name (or replace its earlier definition: *replaced = 1; may
 * be NULL). Errors name the key at fault in err->key ("name", "g", "h", "p",
 * "q", "r", "eps", or a constant's name); for a malformed expression *col
 * (may be NULL) gets its 1-based column in that expression, else 0. */
int cs_reg_define(const cs_reg_def_spec *spec, int *replaced, int *col, cs_err *err);
/* Forget every definition, as a new process would (the fuzzer between
 * inputs, tests): only when no instance, method or table pointer of a
 * defined entry remains anywhere. */
void cs_reg_defs_reset(void);
/* 1 when the entry was made by cs_reg_define. */
int cs_reg_info_defined(const cs_reg_info *info);
/* A defined entry's compiled g and h (read-only: clone them to evaluate);
 * NULL for other entries. */
const cs_expr *cs_reg_info_g(const cs_reg_info *info);
const cs_expr *cs_reg_info_h(const cs_reg_info *info);
/* A defined entry's form parameters p, q, r, eps (the CS form keeps
 * cs_reg_def_spec_init's); 0 for other entries (nothing written). */
int cs_reg_info_form_params(const cs_reg_info *info, double *p, double *q, double *r,
                            double *eps);

/* Create an instance. Unknown keys, malformed values and missing required
 * keys are errors naming the key. `seed` drives C=random. */
int cs_reg_new(cs_reg **out, const char *name, const cs_param *params, size_t nparams,
               uint64_t seed, cs_err *err);
/* The same from an entry already looked up (a parsed method: cs_method.h). */
int cs_reg_new_info(cs_reg **out, const cs_reg_info *info, const cs_param *params,
                    size_t nparams, uint64_t seed, cs_err *err);
void cs_reg_free(cs_reg *reg);
const cs_reg_info *cs_reg_get_info(const cs_reg *reg);

/* Value and (sub)gradient at x (rows×cols, row-major; a vector is 1×n or n×1).
 * grad may be NULL. NaN/Inf in x, or a value that overflows, is an error.
 * Not thread-safe on one instance (scratch space, lazily drawn C=random):
 * give each thread its own instance. */
int cs_reg_eval(cs_reg *reg, const double *x, size_t rows, size_t cols, double *value,
                double *grad, cs_err *err);

/* The same value and gradient for the hot loops of the solvers: the entry's
 * own evaluation without the library's pass over the argument (NaN/Inf in
 * x) and its rescaling of extreme arguments, and with the sums in 4-wide
 * order (cs_reg_eval keeps the entry-by-entry order the library always
 * had): equal to rounding, other bits. CS_ENONFINITE when the value or the
 * gradient is not finite (a solver treats that as divergence). */
int cs_reg_eval_fast(cs_reg *reg, const double *x, size_t rows, size_t cols, double *value,
                     double *grad, cs_err *err);

/* Number of trailing coordinates of the argument that are auxiliary
 * variables rather than part of x (β of `beta beta=learn`, μ of `mu`):
 * projections must leave them untouched. */
size_t cs_reg_extra(const cs_reg *reg);

/* The instance's target family (holder and si: that of their base). */
cs_target_family cs_reg_family(const cs_reg *reg);
/* ‖x − q‖/‖x‖ for the point q of the family's target set nearest to x
 * (any real scale a; osb: a < 0 too): BIN, OSB and TER; NaN for the other
 * families; 0 at x = 0 (the scale a = 0). */
double cs_target_distance(cs_target_family family, const double *x, size_t n);
/* The same for an instance: also FIXED (its alpha; +Inf at x = 0), LEVELS
 * (equ, its B blocks) and SCALED (a defined entry's levels, at a < 0 only
 * where −levels is a level set of its g and h); NaN for the others. */
double cs_reg_target_distance(const cs_reg *reg, const double *x, size_t n);
/* The levels of that family (holder and si: of their base), *n of them;
 * NULL when the entry has none. */
const double *cs_reg_target_levels(const cs_reg *reg, size_t *n);
/* The hand-written kernel of this instance: the entry's, when the instance
 * has no parameters; CS_REG_KERNEL_NONE otherwise. */
cs_reg_kernel cs_reg_kernel_of(const cs_reg *reg);

/* Canonical text of the instance with its parameters, e.g. "holder p=2 q=2 r=1 base=bin". */
void cs_reg_describe(const cs_reg *reg, char *buf, size_t len);

/* Use this matrix as C (eig, ns, mu), overriding C=...; copied. */
int cs_reg_set_matrix(cs_reg *reg, const double *C, size_t rows, size_t cols, cs_err *err);

#endif
