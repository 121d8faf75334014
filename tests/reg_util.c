/* reg_util.c — see reg_util.h. */
#include "reg_util.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Create an instance from "name key=value key=value ...". */
int reg_from(cs_reg **out, const char *spec, uint64_t seed, cs_err *err)
{
    static char buf[1 << 16];
    cs_param params[16];
    size_t np = 0;
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    char *name = strtok_r(buf, " ", &save);
    for (char *tok; (tok = strtok_r(NULL, " ", &save)) && np < 16;) {
        char *eq = strchr(tok, '=');
        assert_non_null(eq);
        *eq = '\0';
        params[np].key = tok;
        params[np].text = eq + 1;
        np++;
    }
    return cs_reg_new(out, name, params, np, seed, err);
}

cs_reg *reg_ok(const char *spec)
{
    cs_reg *reg = NULL;
    cs_err err = {0};
    int rc = reg_from(&reg, spec, 42, &err);
    if (rc)
        fail_msg("cs_reg_new(%s): %s", spec, err.msg);
    return reg;
}

/* Expect creation to fail with `code` and a message containing `needle`. */
void reg_fails(const char *spec, int code, const char *needle)
{
    cs_reg *reg = NULL;
    cs_err err = {0};
    int rc = reg_from(&reg, spec, 42, &err);
    if (rc == CS_OK) {
        cs_reg_free(reg);
        fail_msg("'%s' was accepted", spec);
    }
    assert_int_equal(rc, code);
    assert_null(reg);
    if (needle && !strstr(err.msg, needle))
        fail_msg("'%s': message '%s' lacks '%s'", spec, err.msg, needle);
}

double eval_ok(cs_reg *reg, const double *x, size_t rows, size_t cols, double *grad)
{
    double v = NAN;
    cs_err err = {0};
    int rc = cs_reg_eval(reg, x, rows, cols, &v, grad, &err);
    if (rc)
        fail_msg("eval: %s", err.msg);
    return v;
}

void eval_fails(cs_reg *reg, const double *x, size_t rows, size_t cols, int code,
                       const char *needle)
{
    double v, g[64];
    cs_err err = {0};
    int rc = cs_reg_eval(reg, x, rows, cols, &v, rows * cols <= 64 ? g : NULL, &err);
    if (rc == CS_OK)
        fail_msg("eval succeeded with value %g", v);
    assert_int_equal(rc, code);
    if (needle && !strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

void assert_close(double got, double want, double tol_abs, const char *what)
{
    if (!(fabs(got - want) <= tol_abs))
        fail_msg("%s: got %.17g, want %.17g (|diff| %.3g > %.3g)", what, got, want,
                 fabs(got - want), tol_abs);
}

void assert_vec_close(const double *got, const double *want, size_t n, double tol,
                             const char *what)
{
    for (size_t i = 0; i < n; i++) {
        char buf[96];
        snprintf(buf, sizeof buf, "%s[%zu]", what, i);
        assert_close(got[i], want[i], tol * (1.0 + fabs(want[i])), buf);
    }
}

double maxabs(const double *x, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

void fill_normal(cs_rng *rng, double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = cs_rng_normal(rng);
}

void define_ok(const char *name, const char *g, const char *h)
{
    cs_reg_def_spec s;
    cs_reg_def_spec_init(&s);
    s.name = name, s.g = g, s.h = h;
    cs_err err = {0};
    if (cs_reg_define(&s, NULL, NULL, &err))
        fail_msg("define %s: %s", name, err.msg);
}
