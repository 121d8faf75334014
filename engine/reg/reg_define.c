/* reg_define.c — regularizers defined at run time from elementwise g and h
 * (`reg define NAME g=EXPR h=EXPR [form=...]`): the table entry built from
 * a spec (name checked, expressions compiled, target set and degree from
 * the analysis of g and h), and its evaluation: FILL by the compiled
 * expressions, COMBINE by the form shared with the built-ins (reg_gh.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_parse.h"
#include "cs_reg_analyze.h"
#include "reg_evals.h"
#include "reg_gh.h"
#include "reg_internal.h"

struct cs_reg_def {
    cs_reg_info info;               /* first: a defined entry's info is its cs_reg_def */
    char name[CS_REG_NAME_MAX + 1];
    char title[64];
    char *formula, *target, *g, *h;
    double levels[CS_LEVELS_MAX];
    cs_expr *ge, *he;               /* compiled once; instances clone them */
    int hom;                        /* g and h homogeneous of degrees kg, kh */
    double kg, kh;
    double p, q, r, eps;
};

/* Words the command language gives a meaning of their own after `reg` or
 * as a regularizer name. */
static const char *const reserved[] = {"define", "analyze", "none", "current", "custom"};

void cs_reg_def_spec_init(cs_reg_def_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->p = spec->q = 2.0;
    spec->r = 1.0;
}

static int check_name(const char *name, cs_err *err)
{
    size_t len = strlen(name);
    if (len == 0)
        return cs_fail_key(err, CS_EINVAL, "name", "reg define needs a name");
    if (len > CS_REG_NAME_MAX)
        return cs_fail_key(err, CS_EINVAL, "name", "name '%.20s...' is too long (at most %d "
                           "characters)", name, CS_REG_NAME_MAX);
    int ok = (name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') ||
             name[0] == '_';
    for (size_t i = 1; ok && i < len; i++) {
        char c = name[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '_';
    }
    if (!ok)
        return cs_fail_key(err, CS_EINVAL, "name", "name '%s' is not a name (a letter or _, "
                           "then letters, digits, _)", name);
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (!strcmp(name, reserved[i]))
            return cs_fail_key(err, CS_EINVAL, "name", "'%s' is a reserved word; choose another "
                               "name", name);
    return CS_OK;
}

static int check_form(const cs_reg_def_spec *s, cs_err *err)
{
    if (s->form != CS_FORM_NONE && s->form != CS_FORM_HOLDER && s->form != CS_FORM_SI)
        return cs_fail_key(err, CS_EINVAL, "form", "unknown form %d", (int)s->form);
    if (s->form == CS_FORM_NONE)
        return CS_OK;
    if (!(s->p >= 1.0 && s->p <= 1e6))
        return cs_fail_key(err, CS_EINVAL, "p", "p=%g is out of range [1, 1e6]", s->p);
    if (!(s->q >= 1.0 && s->q <= 1e6))
        return cs_fail_key(err, CS_EINVAL, "q", "q=%g is out of range [1, 1e6]", s->q);
    if (fabs(1.0 / s->p + 1.0 / s->q - 1.0) > 1e-6)
        return cs_fail_key(err, CS_EINVAL, "q",
                           "p=%g and q=%g must satisfy 1/p + 1/q = 1 (with p=%g use q=%.10g)",
                           s->p, s->q, s->p, s->p > 1.0 ? s->p / (s->p - 1.0) : INFINITY);
    if (!(s->r > 0.0 && s->r <= 1e6))
        return cs_fail_key(err, CS_EINVAL, "r", "r=%g must be in (0, 1e6]", s->r);
    if (!(s->eps >= 0.0 && s->eps <= 1e300))
        return cs_fail_key(err, CS_EINVAL, "eps", "eps=%g must be in [0, 1e300]", s->eps);
    return CS_OK;
}

/* Compile one of g, h; errors name the key and keep the expression's column. */
static int compile(const char *key, const char *text, const cs_reg_def_spec *s, cs_expr **out,
                   int *col, cs_err *err)
{
    if (!text)
        return cs_fail_key(err, CS_EINVAL, key, "reg define needs %s=EXPR (an expression in x)",
                           key);
    cs_err sub;
    int c = 0;
    int rc = cs_expr_parse(out, text, s->consts, s->nconsts, &c, &sub);
    if (!rc)
        return CS_OK;
    if (col)
        *col = c;
    if (c == 0) {   /* a constant at fault: name it as the key */
        for (size_t i = 0; i < s->nconsts; i++)
            if (s->consts[i].name && strstr(sub.msg, s->consts[i].name))
                return cs_fail_key(err, rc, s->consts[i].name, "%s", sub.msg);
    }
    return cs_fail_key(err, rc, key, "%s: %s", key, sub.msg);
}

/* The points g and h are tried at. */
static const double tried[] = {-1.7, -0.6, 0.3, 0.8, 1.9, 2.9};
#define NTRIED (sizeof tried / sizeof tried[0])

/* g = c·h for every t tried: ℓ vanishes everywhere, nothing to regularize.
 * g and h are divided by their largest finite magnitudes first, so that
 * g(s)·h(t) neither overflows nor underflows (1e200*x against 1e200*x^2);
 * pairs where a value is not finite say nothing. */
static int proportional(const cs_expr *g, const cs_expr *h)
{
    double G[NTRIED], H[NTRIED], mg = 0.0, mh = 0.0;
    for (size_t i = 0; i < NTRIED; i++) {
        G[i] = cs_expr_eval1(g, tried[i], NULL);
        H[i] = cs_expr_eval1(h, tried[i], NULL);
        mg = isfinite(G[i]) ? fmax(mg, fabs(G[i])) : mg;
        mh = isfinite(H[i]) ? fmax(mh, fabs(H[i])) : mh;
    }
    for (size_t i = 0; i < NTRIED; i++) {
        G[i] = mg > 0.0 ? G[i] / mg : G[i];
        H[i] = mh > 0.0 ? H[i] / mh : H[i];
    }
    for (size_t i = 0; i < NTRIED; i++)
        for (size_t j = 0; j < NTRIED; j++) {
            double a = G[i] * H[j], b = H[i] * G[j];
            if (isfinite(a) && isfinite(b) && fabs(a - b) > 1e-12 * (fabs(a) + fabs(b)))
                return 0;
        }
    return 1;
}

/* Why g and h found proportional make no regularizer: one of them is never
 * finite (x/0, 1/(x-x)), or never finite and nonzero (x^1e308 is 0 or Inf
 * in doubles), or they are never finite at one point; else they are. */
static int refuse_proportional(const cs_expr *g, const cs_expr *h, cs_err *err)
{
    const cs_expr *e[2] = {g, h};
    static const char *const key[2] = {"g", "h"};
    int common = 0;
    for (size_t i = 0; i < NTRIED; i++)
        common |= isfinite(cs_expr_eval1(g, tried[i], NULL)) &&
                  isfinite(cs_expr_eval1(h, tried[i], NULL));
    for (int k = 0; k < 2; k++) {
        int finite = 0, nonzero = 0, bad = -1, zero = -1;
        for (int i = 0; i < (int)NTRIED; i++) {
            double v = cs_expr_eval1(e[k], tried[i], NULL);
            if (!isfinite(v))
                bad = bad < 0 ? i : bad;
            else if (v == 0.0)
                zero = zero < 0 ? i : zero, finite++;
            else
                nonzero++, finite++;
        }
        if (nonzero)
            continue;
        char why[256] = "", xb[32], xz[32];
        if (bad >= 0) {
            cs_expr_why1(e[k], tried[bad], why, sizeof why);
            cs_format_double(xb, sizeof xb, tried[bad]);
        }
        if (!finite)
            return cs_fail_key(err, CS_EINVAL, key[k], "%s is not finite at any point tried "
                               "(%s at x = %s): the regularizer would be undefined everywhere",
                               key[k], why, xb);
        cs_format_double(xz, sizeof xz, tried[zero]);
        if (bad < 0)
            return cs_fail_key(err, CS_EINVAL, key[k], "%s is 0 at every point tried: the "
                               "regularizer would be 0 everywhere", key[k]);
        return cs_fail_key(err, CS_EINVAL, key[k], "%s is 0 or not finite at every point tried "
                           "(0 at x = %s; %s at x = %s): the regularizer would be 0 or "
                           "undefined everywhere", key[k], xz, why, xb);
    }
    if (!common)
        return cs_fail_key(err, CS_EINVAL, "h", "g and h are never both finite at a point "
                           "tried: the regularizer would be undefined everywhere");
    return cs_fail_key(err, CS_EINVAL, "h", "g and h are proportional (g = c*h): the "
                       "regularizer would be 0 everywhere");
}

/* ℓ(αx) = α^d ℓ(x): the table's integer degree (-1: 0, scale invariant;
 * 0: not homogeneous or not an integer). */
static int degree_of(const cs_reg_def *d, cs_reg_form form)
{
    if (!d->hom || (form == CS_FORM_SI && d->eps != 0.0))
        return 0;
    double k = form == CS_FORM_SI ? 0.0 : (form == CS_FORM_HOLDER ? d->r : 2.0) * (d->kg + d->kh);
    if (k == 0.0)
        return -1;
    return k == floor(k) && k > 0.0 && k <= 64.0 ? (int)k : 0;
}

static char *text_dup(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *text_dup(const char *fmt, ...)
{
    char buf[3 * CS_EXPR_MAX_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return strdup(buf);
}

static int fill_texts(cs_reg_def *d, const cs_reg_def_spec *s, const cs_reg_levels *lv)
{
    char consts[512] = "", form[320] = "", p[40], q[40], r[40], e[40];
    size_t used = 0;
    for (size_t i = 0; i < s->nconsts && used < sizeof consts; i++)
        used += (size_t)snprintf(consts + used, sizeof consts - used, ", %s = %.17g",
                                 s->consts[i].name, s->consts[i].value);
    /* exact (shortest round trip): the formula is the definition's canonical
     * text, which a sweep journal compares */
    cs_format_double(p, sizeof p, s->p);
    cs_format_double(q, sizeof q, s->q);
    cs_format_double(r, sizeof r, s->r);
    cs_format_double(e, sizeof e, s->eps);
    if (s->form == CS_FORM_HOLDER)
        snprintf(form, sizeof form, "||g||_%s^%s * ||h||_%s^%s - |<g,h>|^%s", p, r, q, r, r);
    else if (s->form == CS_FORM_SI)
        snprintf(form, sizeof form, "(||g||_%s^%s * ||h||_%s^%s + %s) / (|<g,h>|^%s + %s) - 1",
                 p, r, q, r, e, r, e);
    else
        snprintf(form, sizeof form, "||g||^2 * ||h||^2 - <g,h>^2");
    snprintf(d->title, sizeof d->title, "defined (%s form)",
             s->form == CS_FORM_HOLDER ? "Hoelder" : s->form == CS_FORM_SI ? "scale-invariant "
                                                                              "Hoelder" : "CS");
    char target[512];
    cs_reg_levels_text(lv, target, sizeof target);
    d->formula = text_dup("%s with g = %s, h = %s%s", form, s->g, s->h, consts);
    d->target = text_dup("%s", target);
    d->g = strdup(s->g);
    d->h = strdup(s->h);
    return d->formula && d->target && d->g && d->h ? CS_OK : CS_ENOMEM;
}

static cs_target_family family_of(const cs_reg_levels *lv)
{
    static const double bin[] = {-1, 1}, osb[] = {0, 1}, ter[] = {-1, 0, 1};
    if (!lv->found || !lv->scale_free)
        return CS_TARGET_NONE;
    if (lv->nlevels == 2 && !memcmp(lv->levels, bin, sizeof bin))
        return CS_TARGET_BIN;
    if (lv->nlevels == 2 && !memcmp(lv->levels, osb, sizeof osb))
        return CS_TARGET_OSB;
    if (lv->nlevels == 3 && !memcmp(lv->levels, ter, sizeof ter))
        return CS_TARGET_TER;
    return CS_TARGET_SCALED;
}

int cs_reg_def_new(cs_reg_def **out, const cs_reg_def_spec *s, int *col, cs_err *err)
{
    *out = NULL;
    int rc = check_name(s->name, err);
    if (!rc)
        rc = check_form(s, err);
    if (rc)
        return rc;
    cs_reg_def *d = calloc(1, sizeof *d);
    if (!d)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    rc = compile("g", s->g, s, &d->ge, col, err);
    if (!rc)
        rc = compile("h", s->h, s, &d->he, col, err);
    if (!rc && proportional(d->ge, d->he))
        rc = refuse_proportional(d->ge, d->he, err);
    if (rc) {
        cs_reg_def_free(d);
        return rc;
    }
    d->hom = cs_expr_homogeneous(d->ge, &d->kg) && cs_expr_homogeneous(d->he, &d->kh);
    d->p = s->p, d->q = s->q, d->r = s->r, d->eps = s->eps;
    cs_reg_levels lv;
    cs_reg_levels_of(d->ge, d->he, &lv);
    if (fill_texts(d, s, &lv)) {
        cs_reg_def_free(d);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    snprintf(d->name, sizeof d->name, "%s", s->name);
    memcpy(d->levels, lv.levels, sizeof d->levels);
    d->info = (cs_reg_info){
        .name = d->name,
        .title = d->title,
        .formula = d->formula,
        .target = d->target,
        .section = "defined with reg define (Proposition 1; Hoelder: Prop. 2; si: Prop. 3)",
        .spurious_free = 0,
        .differentiable = 1,
        .g = d->g,
        .h = d->h,
        .family = family_of(&lv),
        .levels = lv.found && lv.scale_free ? d->levels : NULL,
        .nlevels = lv.found && lv.scale_free ? lv.nlevels : 0,
        .degree = degree_of(d, s->form),
        .form = s->form,
        .label_plain = d->name,
        .defined = 1,
        .eval = cs_reg_eval_defined,
    };
    *out = d;
    return CS_OK;
}

void cs_reg_def_free(cs_reg_def *d)
{
    if (!d)
        return;
    cs_expr_free(d->ge);
    cs_expr_free(d->he);
    free(d->formula);
    free(d->target);
    free(d->g);
    free(d->h);
    free(d);
}

const cs_reg_info *cs_reg_def_info(const cs_reg_def *d) { return &d->info; }


const cs_expr *cs_reg_info_g(const cs_reg_info *info)
{
    return cs_reg_info_defined(info) ? ((const cs_reg_def *)info)->ge : NULL;
}

const cs_expr *cs_reg_info_h(const cs_reg_info *info)
{
    return cs_reg_info_defined(info) ? ((const cs_reg_def *)info)->he : NULL;
}

int cs_reg_info_form_params(const cs_reg_info *info, double *p, double *q, double *r,
                            double *eps)
{
    if (!cs_reg_info_defined(info))
        return 0;
    const cs_reg_def *d = (const cs_reg_def *)info;
    *p = d->p, *q = d->q, *r = d->r, *eps = d->eps;
    return 1;
}

int cs_reg_def_instance(cs_reg *reg, cs_err *err)
{
    const cs_reg_def *d = (const cs_reg_def *)reg->info;
    int rc = cs_expr_clone(d->ge, &reg->ge, err);
    if (!rc)
        rc = cs_expr_clone(d->he, &reg->he, err);
    reg->p = d->p, reg->q = d->q, reg->r = d->r, reg->eps = d->eps;
    if (!rc && d->info.form == CS_FORM_NONE) {
        cs_poly P[4];
        if (cs_reg_poly_of(reg->ge, reg->he, P) && (reg->poly = malloc(sizeof P)))
            memcpy(reg->poly, P, sizeof P);
    }
    return rc;
}

/* ---- evaluation ---------------------------------------------------------------- */

/* The solver's path (reg->vector) in the CS form leaves NaN and Inf to
 * cs_reg_eval_fast, which finds them in the value or the gradient (every
 * sum of the form propagates them; the Hölder forms' P > Q ? P − Q : 0 would
 * not, so they keep the check). */
static int fill_defined(cs_reg *reg, const double *x, size_t n, cs_gh *a, int need_d,
                        cs_err *err)
{
    cs_err sub;
    int (*eval)(const cs_expr *, const double *, size_t, double *, double *, cs_err *) =
        reg->vector && reg->info->form == CS_FORM_NONE ? cs_expr_eval_unchecked : cs_expr_eval;
    int rc = eval(reg->ge, x, n, a->g, need_d ? a->dg : NULL, &sub);
    if (rc)
        return cs_fail(err, rc, "%s: in g: %s", reg->info->name, sub.msg);
    a->flat_h = !cs_expr_uses_x(reg->he);
    rc = eval(reg->he, x, n, a->h, need_d && !a->flat_h ? a->dh : NULL, &sub);
    if (rc)
        return cs_fail(err, rc, "%s: in h: %s", reg->info->name, sub.msg);
    return CS_OK;
}

CS_REG_EVAL_DECL(defined)
{
    size_t n;
    int rc = cs_reg_vector_len(reg, rows, cols, &n, err);
    if (rc)
        return rc;
    const cs_reg_def *d = (const cs_reg_def *)reg->info;
    if (reg->info->form != CS_FORM_NONE) {
        cs_holder_gh gh = {fill_defined, d->hom && d->kg + d->kh > 0.0, d->kg, d->kh};
        return cs_holder_form(reg, &gh, x, n, value, grad, err);
    }
    cs_gh a;
    rc = cs_gh_scratch(reg, n, 0, &a, NULL, err);
    if (!rc)
        rc = fill_defined(reg, x, n, &a, grad != NULL, err);
    if (!rc)
        cs_combine_cs(&a, n, NULL, value, grad, !reg->vector);
    return rc;
}
