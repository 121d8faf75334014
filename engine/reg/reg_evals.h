/* reg_evals.h — the eval function of every table entry (engine only). */
#ifndef CS_REG_EVALS_H
#define CS_REG_EVALS_H

#include "cs_reg.h"

#define CS_REG_EVAL_DECL(name)                                                              \
    int cs_reg_eval_##name(cs_reg *reg, const double *x, size_t rows, size_t cols,         \
                           double *value, double *grad, cs_err *err)

/* reg_cs.c: elementwise CS regularizers (Lemma-1 residual kernel): every
 * entry whose kernel (reg_builtins.def) is of the CS form, by its kernel */
CS_REG_EVAL_DECL(elem);
CS_REG_EVAL_DECL(fixed);
CS_REG_EVAL_DECL(equ);

/* reg_holder.c: Hölder, scale-invariant Hölder, √N‖x‖₂ − ‖x‖₁ */
CS_REG_EVAL_DECL(holder);
CS_REG_EVAL_DECL(si);
CS_REG_EVAL_DECL(l2l1h);

/* reg_matrix.c: regularizers with a matrix C or a matrix argument */
CS_REG_EVAL_DECL(eig);
CS_REG_EVAL_DECL(ns);
CS_REG_EVAL_DECL(mu);
CS_REG_EVAL_DECL(om);

/* reg_define.c: regularizers defined at run time (every form) */
CS_REG_EVAL_DECL(defined);

/* reg_baseline.c: non-CS baselines */
CS_REG_EVAL_DECL(beta);
CS_REG_EVAL_DECL(linf);
CS_REG_EVAL_DECL(l1);

#endif
