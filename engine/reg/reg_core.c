/* reg_core.c — the public face of the regularizer library: instances made
 * from a name and parameters (read as data), their description, and the
 * evaluation wrapper that rejects non-finite input and rescales by powers
 * of two so that homogeneous regularizers never overflow needlessly. */
#include "reg_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_parse.h"
#include "cs_rng.h"
#include "cs_vec.h"

const double *cs_reg_target_levels(const cs_reg *reg, size_t *n)
{
    const cs_reg_info *info = reg->info;
    if (info->form != CS_FORM_NONE && !cs_reg_info_defined(info))
        info = cs_reg_lookup(cs_reg_base_name[reg->base]);
    *n = info->levels ? info->nlevels : 0;
    return info->levels;
}

static const cs_reg_param_info *find_param(const cs_reg_info *info, const char *key)
{
    for (size_t i = 0; i < info->nparams; i++)
        if (strcmp(info->params[i].key, key) == 0)
            return &info->params[i];
    return NULL;
}

static void list_keys(const cs_reg_info *info, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < info->nparams && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 info->params[i].key);
    if (info->nparams == 0)
        snprintf(buf, len, "none");
}

static int parse_number(const char *key, const char *text, double lo, double hi, double *out,
                        cs_err *err)
{
    cs_err sub;
    if (cs_parse_double(text, out, &sub))
        return cs_fail(err, sub.code, "%s=%s: %s", key, text, sub.msg);
    if (*out < lo || *out > hi)
        return cs_fail(err, CS_EINVAL, "%s=%s is out of range [%g, %g]", key, text, lo, hi);
    return CS_OK;
}

static int parse_matrix_param(cs_reg *reg, const char *text, cs_err *err)
{
    cs_err sub;
    free(reg->C);
    reg->C = NULL;
    reg->C_random = 0;
    if (strcmp(text, "random") == 0) {
        reg->C_random = 1;
        return CS_OK;
    }
    size_t tl = strlen(text);
    int rc;
    if (tl > 4 && strcmp(text + tl - 4, ".csv") == 0)
        rc = cs_read_csv_matrix(text, &reg->C, &reg->Crows, &reg->Ccols, &sub);
    else
        rc = cs_parse_matrix(text, &reg->C, &reg->Crows, &reg->Ccols, &sub);
    if (rc)
        return cs_fail(err, rc, "C: %s", sub.msg);
    return CS_OK;
}

/* The words of a BASE parameter for a message: "bin, osb or ter". */
static void base_words(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int b = 0; b < CS_BASE_COUNT && used < len; b++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 b == 0 ? "" : b == CS_BASE_COUNT - 1 ? " or " : ", ",
                                 cs_reg_base_name[b]);
}

/* Apply one key=text to the instance: the parameter's type says how to
 * read it, its offset which field it sets. */
static int apply_param(cs_reg *reg, const cs_reg_param_info *pi, const char *text, cs_err *err)
{
    char *field = (char *)reg + pi->offset;
    switch (pi->type) {
    case CS_PARAM_REAL: return parse_number(pi->key, text, pi->lo, pi->hi, (double *)field, err);
    case CS_PARAM_POSITIVE: {
        int rc = parse_number(pi->key, text, pi->lo, pi->hi, (double *)field, err);
        if (!rc && *(double *)field <= 0.0)
            return cs_fail(err, CS_EINVAL, "%s=%s must be positive", pi->key, text);
        return rc;
    }
    case CS_PARAM_INT: {
        long v;
        cs_err sub;
        if (cs_parse_long(text, (long)pi->lo, (long)pi->hi, &v, &sub))
            return cs_fail(err, CS_EINVAL, "%s=%s: %s", pi->key, text, sub.msg);
        *(int *)field = (int)v;
        return CS_OK;
    }
    case CS_PARAM_BASE: {
        for (int b = 0; b < CS_BASE_COUNT; b++)
            if (strcmp(text, cs_reg_base_name[b]) == 0) {
                *(int *)field = b;
                return CS_OK;
            }
        char words[64];
        base_words(words, sizeof words);
        return cs_fail(err, CS_EINVAL, "%s=%s: expected %s", pi->key, text, words);
    }
    case CS_PARAM_LEARN: {
        int *learn = (int *)((char *)reg + pi->flag_offset);
        *learn = strcmp(text, "learn") == 0;
        if (*learn)
            return CS_OK;
        return parse_number(pi->key, text, pi->lo, pi->hi, (double *)field, err);
    }
    case CS_PARAM_MATRIX: return parse_matrix_param(reg, text, err);
    }
    return cs_fail(err, CS_EINVAL, "key '%s' has no type", pi->key);
}

/* Degree, family and auxiliary coordinates follow from the entry and the
 * parameters. */
static void derive_shape(cs_reg *reg)
{
    const cs_reg_info *info = reg->info;
    reg->degree = info->degree;
    reg->family = info->family;
    reg->extra = (size_t)info->extra + (size_t)reg->learn_beta;
    if (info->form == CS_FORM_NONE || cs_reg_info_defined(info))
        return;
    const cs_reg_info *base = cs_reg_lookup(cs_reg_base_name[reg->base]);
    reg->family = base->family;
    if (info->form == CS_FORM_HOLDER) {
        /* ‖g‖^r‖h‖^r and |⟨g,h⟩|^r are homogeneous of degree r·deg/2 (deg
         * that of the base's ℓ): an integer keeps the power-of-two rescaling
         * exact. */
        double d = reg->r * base->degree / 2;
        reg->degree = d == floor(d) && d <= 64 ? (int)d : 0;
    } else if (reg->eps == 0.0) {
        reg->degree = -1; /* scale invariant: rescale freely, no correction */
    }
}

static int check_square(const cs_reg *reg, size_t rows, size_t cols, cs_err *err)
{
    if (reg->info->takes_C == CS_C_SQUARE && rows != cols)
        return cs_fail(err, CS_EDIM, "%s needs a square C, got %zux%zu", reg->info->name, rows,
                       cols);
    return CS_OK;
}

/* Constraints between parameters, checked once all of them are known. */
static int validate(const cs_reg *reg, cs_err *err)
{
    if (reg->C && !reg->C_random) {
        int rc = check_square(reg, reg->Crows, reg->Ccols, err);
        if (rc)
            return rc;
    }
    /* Hölder's inequality needs conjugate exponents; otherwise the zero set
     * is not the target set (or the function goes negative). */
    if (reg->info->form != CS_FORM_NONE && fabs(1.0 / reg->p + 1.0 / reg->q - 1.0) > 1e-6)
        return cs_fail(err, CS_EINVAL,
                       "p=%g and q=%g must satisfy 1/p + 1/q = 1 (with p=%g use q=%.10g)", reg->p,
                       reg->q, reg->p, reg->p > 1.0 ? reg->p / (reg->p - 1.0) : INFINITY);
    return CS_OK;
}

int cs_reg_new(cs_reg **out, const char *name, const cs_param *params, size_t nparams,
               uint64_t seed, cs_err *err)
{
    *out = NULL;
    const cs_reg_info *info = cs_reg_lookup(name);
    if (!info)
        return cs_fail(err, CS_ENOTFOUND, "unknown regularizer '%s'", name ? name : "");
    return cs_reg_new_info(out, info, params, nparams, seed, err);
}

int cs_reg_new_info(cs_reg **out, const cs_reg_info *info, const cs_param *params,
                    size_t nparams, uint64_t seed, cs_err *err)
{
    const char *name = info->name;
    *out = NULL;
    cs_reg *reg = calloc(1, sizeof *reg);
    if (!reg)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    reg->info = info;
    reg->seed = seed;
    int rc = CS_OK;
    for (size_t i = 0; i < info->nparams && !rc; i++)
        if (info->params[i].def)
            rc = apply_param(reg, &info->params[i], info->params[i].def, err);
    for (size_t i = 0; i < nparams && !rc; i++) {
        const cs_reg_param_info *pi = find_param(info, params[i].key);
        if (!pi) {
            char keys[256];
            list_keys(info, keys, sizeof keys);
            rc = cs_fail(err, CS_EINVAL, "unknown key '%s' for regularizer %s (valid: %s)",
                         params[i].key, name, keys);
        } else {
            rc = apply_param(reg, pi, params[i].text, err);
        }
    }
    for (size_t i = 0; i < info->nparams && !rc; i++) {
        if (info->params[i].def)
            continue;
        int given = 0;
        for (size_t j = 0; j < nparams; j++)
            given |= strcmp(params[j].key, info->params[i].key) == 0;
        if (!given)
            rc = cs_fail(err, CS_EINVAL, "regularizer %s needs %s=", name, info->params[i].key);
    }
    if (!rc && cs_reg_info_defined(info))
        rc = cs_reg_def_instance(reg, err);
    if (!rc && reg->C && reg->Crows * reg->Ccols == 0)
        rc = cs_fail(err, CS_EDIM, "C is empty");
    if (!rc)
        rc = validate(reg, err);
    if (rc) {
        cs_reg_free(reg);
        return rc;
    }
    derive_shape(reg);
    reg->fast = cs_reg_fast_pick(reg);
    *out = reg;
    return CS_OK;
}

void cs_reg_free(cs_reg *reg)
{
    if (!reg)
        return;
    free(reg->C);
    free(reg->work);
    cs_expr_free(reg->ge);
    cs_expr_free(reg->he);
    free(reg->poly);
    free(reg);
}

int cs_reg_set_matrix(cs_reg *reg, const double *C, size_t rows, size_t cols, cs_err *err)
{
    if (rows == 0 || cols == 0)
        return cs_fail(err, CS_EDIM, "C is empty");
    int rc = check_square(reg, rows, cols, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < rows * cols; i++)
        if (!isfinite(C[i]))
            return cs_fail(err, CS_ENONFINITE, "C has a non-finite entry at row %zu, column %zu",
                           i / cols + 1, i % cols + 1);
    double *copy = malloc(rows * cols * sizeof *copy);
    if (!copy)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    memcpy(copy, C, rows * cols * sizeof *copy);
    free(reg->C);
    reg->C = copy;
    reg->Crows = rows;
    reg->Ccols = cols;
    reg->C_random = 0;
    return CS_OK;
}

void cs_reg_describe(const cs_reg *reg, char *buf, size_t len)
{
    const cs_reg_info *info = reg->info;
    size_t used = (size_t)snprintf(buf, len, "%s", info->name);
    for (size_t i = 0; i < info->nparams && used < len; i++) {
        const cs_reg_param_info *pi = &info->params[i];
        const char *field = (const char *)reg + pi->offset;
        char val[64];
        switch (pi->type) {
        case CS_PARAM_INT: snprintf(val, sizeof val, "%d", *(const int *)field); break;
        case CS_PARAM_BASE:
            snprintf(val, sizeof val, "%s", cs_reg_base_name[*(const int *)field]);
            break;
        case CS_PARAM_LEARN:
            if (*(const int *)((const char *)reg + pi->flag_offset)) {
                snprintf(val, sizeof val, "learn");
                break;
            }
            /* fall through */
        case CS_PARAM_REAL:
        case CS_PARAM_POSITIVE: snprintf(val, sizeof val, "%.17g", *(const double *)field); break;
        case CS_PARAM_MATRIX:
            if (reg->C_random)
                snprintf(val, sizeof val, "random");
            else if (reg->C)
                snprintf(val, sizeof val, "[%zux%zu]", reg->Crows, reg->Ccols);
            else
                snprintf(val, sizeof val, "unset");
            break;
        default: snprintf(val, sizeof val, "?"); break;
        }
        used += (size_t)snprintf(buf + used, len - used, " %s=%s", pi->key, val);
    }
}

/* Exponent e with max|x| = m·2^e, m in [0.5, 1); also detects NaN/Inf. */
static int scan_argument(const double *x, size_t n, double *maxabs, cs_err *err)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
        double a = fabs(x[i]);
        if (!(a <= 1.7976931348623157e308))
            return cs_fail(err, CS_ENONFINITE, "%s in argument at position %zu",
                           isnan(x[i]) ? "NaN" : "Inf", i + 1);
        if (a > m)
            m = a;
    }
    *maxabs = m;
    return CS_OK;
}

int cs_reg_eval(cs_reg *reg, const double *x, size_t rows, size_t cols, double *value,
                double *grad, cs_err *err)
{
    size_t n = rows * cols;
    if (n == 0)
        return cs_fail(err, CS_EDIM, "empty argument");
    double maxabs = 0.0;
    int rc = scan_argument(x, n, &maxabs, err);
    if (rc)
        return rc;
    /* Powers of x overflow (or underflow) far from 1: evaluate at x·2^-e,
     * exactly, and scale the result back by 2^(degree·e). */
    int e = 0;
    if (reg->degree != 0 && maxabs > 0.0 && (maxabs > 0x1p64 || maxabs < 0x1p-64))
        frexp(maxabs, &e);
    if (e == 0) {
        rc = reg->info->eval(reg, x, rows, cols, value, grad, err);
    } else {
        double *xs = malloc(n * sizeof *xs);
        if (!xs)
            return cs_fail(err, CS_ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
            xs[i] = ldexp(x[i], -e);
        rc = reg->info->eval(reg, xs, rows, cols, value, grad, err);
        free(xs);
        if (!rc && reg->degree > 0) {
            *value = ldexp(*value, reg->degree * e);
            if (grad)
                for (size_t i = 0; i < n; i++)
                    grad[i] = ldexp(grad[i], (reg->degree - 1) * e);
        } else if (!rc && reg->degree < 0 && grad) {
            for (size_t i = 0; i < n; i++)  /* degree 0: gradient scales by 2^-e */
                grad[i] = ldexp(grad[i], -e);
        }
    }
    if (rc)
        return rc;
    if (!isfinite(*value))
        return cs_fail(err, CS_ENONFINITE, "%s: value is not representable as a double",
                       reg->info->name);
    if (grad)
        for (size_t i = 0; i < n; i++)
            if (!isfinite(grad[i]))
                return cs_fail(err, CS_ENONFINITE,
                               "%s: gradient is not representable at position %zu",
                               reg->info->name, i + 1);
    return CS_OK;
}

int cs_reg_eval_fast(cs_reg *reg, const double *x, size_t rows, size_t cols, double *value,
                     double *grad, cs_err *err)
{
    reg->vector = 1;
    int rc = reg->info->eval(reg, x, rows, cols, value, grad, err);
    reg->vector = 0;
    if (rc)
        return rc;
    if (!isfinite(*value) || (grad && !cs_vec_finite(grad, rows * cols)))
        return cs_fail(err, CS_ENONFINITE, "%s: value or gradient is not finite",
                       reg->info->name);
    return CS_OK;
}
