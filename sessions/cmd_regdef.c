/* cmd_regdef.c — `reg define NAME g=EXPR h=EXPR [form=cs|holder|si] [p= q=
 * r= eps=] [CONST=NUMBER ...]` (a regularizer made at run time, journaled
 * like every command, so a replay defines it again) and `reg analyze NAME`
 * (levels, scale behaviour, spurious stationary points on a 2D slice). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_landscape.h"
#include "cs_parse.h"
#include "cs_plotstore.h"
#include "cs_reg_analyze.h"
#include "interp_internal.h"

#define MAX_CONSTS 32

static const char *const define_keys[] = {"g", "h", "form", "p", "q", "r", "eps", NULL};
static const char *const analyze_keys[] = {"x", "y", "res", "at", "dims", "plot", "title",
                                           "size", "font", "script", NULL};

static int in_list(const char *key, const char *const *list)
{
    while (*list && strcmp(key, *list))
        list++;
    return *list != NULL;
}

/* The column of the character at offset col (1-based) of a key's value. */
static int value_col(const cs_arg *a, int col)
{
    return a->col + (int)strlen(a->key) + 1 + (a->quoted ? 1 : 0) + col - 1;
}

/* form=, p= q= r= eps= (these only with form=holder or si). */
static int read_form(cs_interp *in, const cs_cmdline *cl, cs_reg_def_spec *s, cs_err *err)
{
    static const struct { const char *word; cs_reg_form form; } forms[] = {
        {"cs", CS_FORM_NONE}, {"holder", CS_FORM_HOLDER}, {"si", CS_FORM_SI}};
    const char *form;
    int rc = cs_arg_choice(in, cl, "form", "cs|holder|si", "cs", &form, err);
    if (rc)
        return rc;
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++)
        if (!strcmp(form, forms[k].word))
            s->form = forms[k].form;
    static const char *const keys[] = {"p", "q", "r", "eps"};
    double *dst[] = {&s->p, &s->q, &s->r, &s->eps};
    for (int k = 0; k < 4; k++) {
        if (!cs_cmdline_key(cl, keys[k]))
            continue;
        if (s->form == CS_FORM_NONE || (k == 3 && s->form != CS_FORM_SI)) {
            cs_arg_blame(in, cl, keys[k], 0);
            return cs_fail(err, CS_EINVAL, "%s= belongs to form=%s (this definition has "
                           "form=%s)", keys[k], k == 3 ? "si" : "holder or form=si", form);
        }
        rc = cs_arg_double(in, cl, keys[k], *dst[k], k == 3 ? 0.0 : -1e300, 1e300, dst[k], err);
        if (rc)
            return rc;
    }
    return CS_OK;
}

/* Every key that is not g, h, form, p, q, r or eps is a named constant. */
static int read_consts(cs_interp *in, const cs_cmdline *cl, cs_expr_const *c, size_t *n,
                       cs_err *err)
{
    *n = 0;
    for (size_t i = 0; i < cl->nargs; i++) {
        const cs_arg *a = &cl->args[i];
        if (!a->key || in_list(a->key, define_keys))
            continue;
        if (*n == MAX_CONSTS) {
            in->err_col = a->col;
            return cs_fail(err, CS_EINVAL, "more than %d constants", MAX_CONSTS);
        }
        cs_err sub;
        double v;
        if (cs_parse_double(a->value, &v, &sub)) {
            in->err_col = value_col(a, 1);
            return cs_fail(err, CS_EINVAL, "constant %s=%s: %s (constants are numbers)",
                           a->key, a->value, sub.msg);
        }
        c[(*n)++] = (cs_expr_const){a->key, v};
    }
    return CS_OK;
}

int cs_cmd_reg_define(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *name = cs_cmdline_pos(cl, 1);
    if (!name) {
        in->err_col = cs_cmdline_pos(cl, 0)->col;
        return cs_fail(err, CS_EINVAL, "reg define needs a name: reg define NAME g=EXPR "
                       "h=EXPR");
    }
    cs_reg_def_spec s;
    cs_reg_def_spec_init(&s);
    s.name = name->value;
    s.g = cs_arg_text(cl, "g", NULL);
    s.h = cs_arg_text(cl, "h", NULL);
    cs_expr_const consts[MAX_CONSTS];
    int rc = read_form(in, cl, &s, err);
    if (!rc)
        rc = read_consts(in, cl, consts, &s.nconsts, err);
    if (rc)
        return rc;
    s.consts = consts;
    int replaced, col;
    rc = cs_reg_define(&s, &replaced, &col, err);
    if (rc) {
        const cs_arg *a = !strcmp(err->key, "name") ? name : cs_cmdline_key(cl, err->key);
        if (a && a->key && col > 0)
            in->err_col = value_col(a, col);
        else if (a)
            in->err_col = a->col;
        else
            in->err_col = name->col;
        return rc;
    }
    /* the current regularizer of that name takes the new definition: eval,
     * landscape and the views read in->reg (solve parses the name anew) */
    cs_reg *cur;
    cs_err sub;
    if (replaced && !strcmp(cs_reg_get_info(in->reg)->name, s.name) &&
        !cs_reg_new(&cur, s.name, NULL, 0, in->seed, &sub)) {
        cs_reg_free(in->reg);
        in->reg = cur;
    }
    const cs_reg_info *info = cs_reg_lookup(s.name);
    cs_result_str(res, "defined", info->name);
    cs_result_bool(res, "replaced", replaced);
    cs_result_str(res, "g", info->g);
    cs_result_str(res, "h", info->h);
    cs_result_str(res, "formula", info->formula);
    cs_result_str(res, "target", info->target);
    if (info->nlevels)
        cs_result_vec(res, "levels", info->levels, info->nlevels);
    return CS_OK;
}

/* ---- reg analyze ---------------------------------------------------------------- */

/* The instance analysed: NAME with the keys that are not the scan's. */
static int analyze_reg(cs_interp *in, const cs_cmdline *cl, const cs_arg *name, cs_reg **reg,
                       cs_err *err)
{
    cs_param params[32];
    size_t np = 0;
    for (size_t i = 0; i < cl->nargs && np < 32; i++)
        if (cl->args[i].key && !in_list(cl->args[i].key, analyze_keys))
            params[np++] = (cs_param){cl->args[i].key, cl->args[i].value};
    int rc = cs_reg_new(reg, name->value, params, np, in->seed, err);
    if (rc) {
        in->err_col = name->col;
        for (size_t i = 0; i < cl->nargs; i++)
            if (cl->args[i].key && !in_list(cl->args[i].key, analyze_keys) &&
                strstr(err->msg, cl->args[i].key))
                in->err_col = cl->args[i].col;
    }
    return rc;
}

static void report_analysis(const cs_reg_info *info, const cs_reg_analyze_spec *sp,
                            const cs_reg_analysis *a, cs_result *res)
{
    char lv[600];
    const cs_reg_levels *L = &a->levels;
    cs_reg_levels_text(L, lv, sizeof lv);
    cs_result_text(res, "%s — %s\n", info->name, info->title);
    if (L->found)
        cs_result_text(res, "  target set   %s%s\n", lv,
                       L->scale_free ? " (levels up to a common scale a)" : "");
    else
        cs_result_text(res, "  target set   %s (no elementwise g and h to analyse)\n",
                       info->target);
    if (a->degree_claimed)
        cs_result_text(res, "  scaling      claimed l(a x) = a^%.6g l(x);", a->k_claimed);
    else
        cs_result_text(res, "  scaling      no degree claimed;");
    if (isnan(a->k_measured))
        cs_result_text(res, " %s\n", a->scale_note);
    else if (a->homogeneous)
        cs_result_text(res, " measured a^%.6g (spread %.2g over a = 2, 1/2, 3)\n",
                       a->k_measured, a->k_spread);
    else
        cs_result_text(res, " measured: not homogeneous (log(l(a x)/l(x))/log a varies by "
                       "%.3g)\n", a->k_spread);
    char where[160];
    if (sp->at)
        snprintf(where, sizeof where, "the slice along x%zu, x%zu", sp->dims[0] + 1,
                 sp->dims[1] + 1);
    else
        snprintf(where, sizeof where, "the plane");
    cs_result_text(res, "  spurious     stationary points off the target set on %s, "
                   "[%g,%g] x [%g,%g], %zu x %zu grid: ", where, sp->x0, sp->x1, sp->y0, sp->y1,
                   sp->res, sp->res);
    if (!a->nfound)
        cs_result_text(res, "none (%zu grid minima of |grad| refined)\n", a->ncandidates);
    else
        cs_result_text(res, "%zu (from %zu grid minima of |grad|)%s\n", a->nfound,
                       a->ncandidates, a->nfound > a->nspurious ? "; the first listed" : "");
    if (a->nundefined)
        cs_result_text(res, "    (%zu grid points where the value is undefined were skipped)\n",
                       a->nundefined);
    for (size_t k = 0; k < a->nspurious && k < 12; k++)
        cs_result_text(res, "    (%.6g, %.6g)  value %.6g  %s\n", a->spurious[k].x,
                       a->spurious[k].y, a->spurious[k].value,
                       cs_stat_kind_name(a->spurious[k].kind));
    cs_result_str(res, "_reg", info->name);
    cs_result_bool(res, "_levels_found", L->found);
    cs_result_bool(res, "_scale_free", L->scale_free);
    cs_result_vec(res, "_levels", L->levels, L->nlevels);
    if (a->degree_claimed)
        cs_result_num(res, "_k_claimed", a->k_claimed);
    cs_result_bool(res, "_homogeneous", a->homogeneous);
    if (!isnan(a->k_measured))
        cs_result_num(res, "_k_measured", a->k_measured);
    cs_result_int(res, "_spurious", (long long)a->nfound);
    double xs[CS_ANALYZE_MAX_POINTS], ys[CS_ANALYZE_MAX_POINTS];
    for (size_t k = 0; k < a->nspurious; k++)
        xs[k] = a->spurious[k].x, ys[k] = a->spurious[k].y;
    cs_result_vec(res, "_spurious_x", xs, a->nspurious);
    cs_result_vec(res, "_spurious_y", ys, a->nspurious);
}

/* The landscape of the slice with the spurious points marked, stored for
 * `plot landscape` and drawn into plot=FILE. Without plot= a landscape
 * that cannot be computed (si where <g,h> = 0 is on the grid) is no error. */
static int analyze_plot(cs_interp *in, const cs_cmdline *cl, cs_reg *reg,
                        const cs_reg_analyze_spec *sp, const cs_reg_analysis *a,
                        cs_result *res, cs_err *err)
{
    cs_landscape_spec ls = {.x0 = sp->x0, .x1 = sp->x1, .y0 = sp->y0, .y1 = sp->y1,
                            .nx = sp->res, .ny = sp->res, .at = sp->at, .n = sp->n,
                            .dims = {sp->dims[0], sp->dims[1]}, .cancel = sp->cancel};
    cs_landscape *l;
    int rc = cs_landscape_new(&l, reg, &ls, err);
    if (rc) {
        if (!cs_cmdline_key(cl, "plot"))
            return CS_OK;
        cs_arg_blame(in, cl, "plot", 0);
        return rc;
    }
    double xs[CS_ANALYZE_MAX_POINTS], ys[CS_ANALYZE_MAX_POINTS];
    for (size_t k = 0; k < a->nspurious; k++)
        xs[k] = a->spurious[k].x, ys[k] = a->spurious[k].y;
    int log_scale = l->zmax > 0 && l->zmin >= 0;
    rc = cs_plotstore_landscape_of(in, cs_reg_get_info(reg)->name, l, sp->dims, log_scale, 0,
                                   cs_arg_text(cl, "title", NULL), NULL, xs, ys, a->nspurious,
                                   NULL, err);
    cs_landscape_free(l);
    return rc ? rc : cs_plot_key(in, cl, "landscape", res, err);
}

int cs_cmd_reg_analyze(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *name = cs_cmdline_pos(cl, 1);
    if (!name) {
        in->err_col = cs_cmdline_pos(cl, 0)->col;
        return cs_fail(err, CS_EINVAL, "reg analyze needs a name: reg analyze NAME");
    }
    cs_reg_analyze_spec sp = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2,
                              .cancel = cs_interp_cancel_flag(in)};
    long r;
    double *at = NULL;
    int rc;
    if ((rc = cs_arg_box(in, cl, "x", &sp.x0, &sp.x1, err)) ||
        (rc = cs_arg_box(in, cl, "y", &sp.y0, &sp.y1, err)) ||
        (rc = cs_arg_long(in, cl, "res", 101, 5, 1001, &r, err)) ||
        (rc = cs_plot_key_check(in, cl, "plot", err)) ||
        (rc = cs_arg_slice(in, cl, &at, &sp.n, sp.dims, err)))
        return rc;
    sp.res = (size_t)r;
    sp.at = at;
    cs_reg *reg = NULL;
    cs_reg_analysis *a = malloc(sizeof *a);
    if (!a)
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    if (!rc)
        rc = analyze_reg(in, cl, name, &reg, err);
    if (!rc) {
        rc = cs_reg_analyze(reg, &sp, a, err);
        if (rc && at)
            cs_arg_blame(in, cl, "at", 0);
        else if (rc)
            in->err_col = name->col;
    }
    if (!rc)
        report_analysis(cs_reg_get_info(reg), &sp, a, res);
    if (!rc)
        rc = analyze_plot(in, cl, reg, &sp, a, res, err);
    cs_reg_free(reg);
    free(a);
    free(at);
    return rc;
}
