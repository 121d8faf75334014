/* cs_expr_export.h — a compiled expression, and a defined regularizer's g,
 * h and form, as the flat arrays of cs_expr_code.h that the GPU sweep
 * evaluates (engine/recovery/cuda/sweep_expr.cuh). */
#ifndef CS_EXPR_EXPORT_H
#define CS_EXPR_EXPORT_H

#include "cs_error.h"
#include "cs_expr.h"
#include "cs_expr_code.h"
#include "cs_reg.h"

/* e's bytecode into *out, instruction for instruction (a constant: one
 * OP_C). CS_EUNSUPPORTED, with a message that names the limits, when it
 * has more than CS_EXPR_CODE_MAX_INS instructions or uses more than
 * CS_EXPR_CODE_MAX_SLOTS slots; CS_EINVAL for NULL arguments. */
int cs_expr_export(const cs_expr *e, cs_expr_code *out, cs_err *err);

/* A defined entry (reg define) into *out: g, h, the form and its p, q, r,
 * eps, and whether x is rescaled (homogeneous g, h; their degree).
 * CS_EINVAL when info is not a defined entry; CS_EUNSUPPORTED for g or h
 * beyond the limits (the message names which and the entry). */
int cs_reg_export(const cs_reg_info *info, cs_expr_reg_code *out, cs_err *err);

#endif
