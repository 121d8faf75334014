/* expr_export.c — compiled expressions and defined regularizers as the
 * flat arrays of cs_expr_code.h (cs_expr_export.h), for the GPU sweep. */
#include "cs_expr_export.h"
#include "expr_internal.h"

#include <string.h>

/* the device's opcodes are the interpreter's */
#define SAME_OP(o) _Static_assert((int)CS_EXPR_##o == (int)o, "cs_expr_code.h: " #o)
SAME_OP(OP_X);
SAME_OP(OP_C);
SAME_OP(OP_NEG);
SAME_OP(OP_ADD);
SAME_OP(OP_SUB);
SAME_OP(OP_MUL);
SAME_OP(OP_DIV);
SAME_OP(OP_ADDC);
SAME_OP(OP_RSUBC);
SAME_OP(OP_MULC);
SAME_OP(OP_DIVC);
SAME_OP(OP_RDIVC);
SAME_OP(OP_POWK);
SAME_OP(OP_POWC);
SAME_OP(OP_CPOW);
SAME_OP(OP_POW);
SAME_OP(OP_EXP);
SAME_OP(OP_LOG);
SAME_OP(OP_SQRT);
SAME_OP(OP_ABS);
SAME_OP(OP_SIN);
SAME_OP(OP_COS);
SAME_OP(OP_TAN);
SAME_OP(OP_TANH);
SAME_OP(OP_SIGN);
SAME_OP(OP_MIN);
SAME_OP(OP_MAX);
SAME_OP(OP_COUNT);
#undef SAME_OP

static int binary(int op)
{
    return (op >= OP_ADD && op <= OP_DIV) || op == OP_POW || op == OP_MIN || op == OP_MAX;
}

int cs_expr_export(const cs_expr *e, cs_expr_code *out, cs_err *err)
{
    if (!e || !out)
        return cs_fail(err, CS_EINVAL, "no expression to export");
    memset(out, 0, sizeof *out);
    if (!e->uses_x) {   /* a constant: one OP_C, as cs_expr_eval1 gives (cval, 0) */
        out->n = out->nslots = 1;
        out->ins[0].op = OP_C;
        out->ins[0].c = e->cval;
        return CS_OK;
    }
    if (e->ncode > CS_EXPR_CODE_MAX_INS || e->nslots > CS_EXPR_CODE_MAX_SLOTS)
        return cs_fail(err, CS_EUNSUPPORTED,
                       "%s compiles to %d instructions on %d stack slots; the GPU evaluates at "
                       "most %d instructions on %d slots",
                       e->text, e->ncode, e->nslots, CS_EXPR_CODE_MAX_INS,
                       CS_EXPR_CODE_MAX_SLOTS);
    for (int i = 0; i < e->ncode; i++) {
        const ins *in = &e->code[i];
        /* what the compiler makes; the device trusts it */
        if (in->op < 0 || in->op >= OP_COUNT || in->s < 0 ||
            in->s + binary(in->op) >= e->nslots)
            return cs_fail(err, CS_EINVAL, "%s: instruction %d (op %d, slot %d) is malformed",
                           e->text, i, in->op, in->s);
        cs_expr_code_ins *o = &out->ins[i];
        o->op = (int16_t)in->op;
        o->s = (int16_t)in->s;
        o->k = in->k;
        o->c = in->c;
        o->c2 = in->c2;
    }
    out->n = e->ncode;
    out->nslots = e->nslots;
    out->uses_x = 1;
    return CS_OK;
}

int cs_reg_export(const cs_reg_info *info, cs_expr_reg_code *out, cs_err *err)
{
    double p, q, r, eps;
    if (!info || !out || !cs_reg_info_form_params(info, &p, &q, &r, &eps))
        return cs_fail(err, CS_EINVAL, "%s is not a regularizer made by reg define",
                       info ? info->name : "(none)");
    memset(out, 0, sizeof *out);
    const cs_expr *gh[2] = {cs_reg_info_g(info), cs_reg_info_h(info)};
    cs_expr_code *code[2] = {&out->g, &out->h};
    for (int k = 0; k < 2; k++) {
        cs_err sub;
        int rc = cs_expr_export(gh[k], code[k], &sub);
        if (rc)
            return cs_fail(err, rc, "%s: %s = %s", info->name, k ? "h" : "g", sub.msg);
    }
    out->form = info->form == CS_FORM_HOLDER ? CS_EXPR_REG_HOLDER
                : info->form == CS_FORM_SI   ? CS_EXPR_REG_SI
                                             : CS_EXPR_REG_CS;
    out->flat = !cs_expr_uses_x(gh[1]);
    out->r = r;
    out->eps = eps;
    out->p = p;
    out->q = q;
    /* reg_define.c's test for rescaling x (cs_holder_form's homogeneous) */
    double kg = 0.0, kh = 0.0;
    out->hom = cs_expr_homogeneous(gh[0], &kg) && cs_expr_homogeneous(gh[1], &kh) &&
               kg + kh > 0.0;
    out->deg = out->hom ? r * (kg + kh) : 0.0;
    return CS_OK;
}
