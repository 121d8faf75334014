/* cmd_reg.c — `reg` and `eval`: select a regularizer, evaluate it; `reg
 * define` and `reg analyze` are in cmd_regdef.c. */
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_array_io.h"
#include "cs_parse.h"
#include "interp_internal.h"
#include "solve_state.h"

int cs_cmd_reg_define(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);
int cs_cmd_reg_analyze(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);

int cs_cmd_reg(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *name = cs_cmdline_pos(cl, 0);
    if (!strcmp(name->value, "define"))
        return cs_cmd_reg_define(in, cl, res, err);
    if (!strcmp(name->value, "analyze"))
        return cs_cmd_reg_analyze(in, cl, res, err);
    if (cs_cmdline_npos(cl) > 1) {
        in->err_col = cs_cmdline_pos(cl, 1)->col;
        return cs_fail(err, CS_EINVAL, "unexpected argument '%s' (usage: reg NAME [key=value "
                       "...], reg define NAME g=EXPR h=EXPR, reg analyze NAME)",
                       cs_cmdline_pos(cl, 1)->value);
    }
    if (!cs_reg_lookup(name->value)) {
        in->err_col = name->col;
        const char *names[64];
        size_t n = 0;
        for (size_t i = 0; i < cs_reg_count() && n < 64; i++)
            names[n++] = cs_reg_info_at(i)->name;
        const char *best = cs_closest_name(name->value, names, n);
        if (best)
            return cs_fail(err, CS_ENOTFOUND, "unknown regularizer '%s' (did you mean '%s'?)",
                           name->value, best);
        return cs_fail(err, CS_ENOTFOUND, "unknown regularizer '%s' (see regs)", name->value);
    }
    size_t nkeys = cl->nargs - cs_cmdline_npos(cl);
    cs_param *params = calloc(nkeys ? nkeys : 1, sizeof *params);
    if (!params)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < cl->nargs; i++)
        if (cl->args[i].key)
            params[k++] = (cs_param){cl->args[i].key, cl->args[i].value};
    cs_reg *reg;
    int rc = cs_reg_new(&reg, name->value, params, nkeys, in->seed, err);
    if (rc) {
        /* Point at the key the message names, when there is one. */
        for (size_t i = 0; i < cl->nargs; i++)
            if (cl->args[i].key && strstr(err->msg, cl->args[i].key)) {
                in->err_col = cl->args[i].col;
                break;
            }
    }
    free(params);
    if (rc)
        return rc;
    cs_reg_free(in->reg);
    in->reg = reg;
    cs_reg_describe(reg, in->reg_line, sizeof in->reg_line);
    const cs_reg_info *info = cs_reg_get_info(reg);
    cs_result_str(res, "reg", info->name);
    cs_result_str(res, "params", in->reg_line);
    cs_result_str(res, "formula", info->formula);
    cs_result_str(res, "target", info->target);
    solve_note_reg(in, res);
    return CS_OK;
}

int cs_cmd_eval(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *xa = cs_cmdline_pos(cl, 0);
    double *x;
    size_t rows, cols, fault = 0;
    cs_err sub;
    int rc;
    if (cs_array_format_of(xa->value, &sub) > 0) {
        /* a file (x.csv, x.npy, F.mat:VAR): its array; a 1 x n row is the vector */
        char path[4096];
        cs_array a = {0};
        if ((rc = cs_interp_path(in, xa->value, path, sizeof path, &sub)) ||
            (rc = cs_array_read(path, &a, &sub))) {
            in->err_col = xa->col;
            return cs_fail(err, rc, "eval: %s", sub.msg);
        }
        x = a.data;
        rows = a.rows == 1 ? a.cols : a.rows;
        cols = a.rows == 1 ? 1 : a.cols;
    } else if ((rc = cs_parse_matrix_at(xa->value, &x, &rows, &cols, &fault, &sub))) {
        in->err_col = cs_arg_value_col(xa, fault);
        return cs_fail(err, rc, "eval: %s", sub.msg);
    }
    double *grad = malloc(rows * cols * sizeof *grad);
    double value;
    if (!grad)
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    else
        rc = cs_reg_eval(in->reg, x, rows, cols, &value, grad, &sub);
    if (rc && grad) {
        in->err_col = xa->col;
        cs_fail(err, rc, "eval: %s", sub.msg);
    }
    if (!rc) {
        cs_result_str(res, "reg", cs_reg_get_info(in->reg)->name);
        cs_result_num(res, "value", value);
        cs_result_vec(res, "grad", grad, rows * cols);
    }
    free(x);
    free(grad);
    return rc;
}
