/* method.c — method texts: a regularizer with its parameters (cs_method.h). */
#include "cs_method.h"

#include <stdio.h>
#include <string.h>

#define MAX_PARAMS 16

typedef struct method_spec {
    char buf[256];
    const char *name;
    cs_param params[MAX_PARAMS];
    size_t nparams;
} method_spec;

static int parse_method(const char *text, method_spec *m, cs_err *err)
{
    memset(m, 0, sizeof *m);
    if (!text || !*text)
        return cs_fail(err, CS_EINVAL, "empty method");
    if (strlen(text) >= sizeof m->buf)
        return cs_fail(err, CS_EINVAL, "method text too long");
    snprintf(m->buf, sizeof m->buf, "%s", text);
    char *save = NULL;
    char *tok = strtok_r(m->buf, " :\t", &save);
    if (!tok)
        return cs_fail(err, CS_EINVAL, "empty method");
    m->name = tok;
    while ((tok = strtok_r(NULL, " :\t", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok || !eq[1])
            return cs_fail(err, CS_EINVAL, "method %s: expected key=value, got '%s'", m->name,
                           tok);
        if (m->nparams == MAX_PARAMS)
            return cs_fail(err, CS_EINVAL, "method %s: too many parameters", m->name);
        *eq = '\0';
        m->params[m->nparams].key = tok;
        m->params[m->nparams].text = eq + 1;
        m->nparams++;
    }
    return CS_OK;
}

/* The instance of a parsed method: an eig problem lends its C to the
 * regularizers that take one when the method names none; without a problem
 * C=random stands in (the check before a sweep). */
static int method_reg(cs_reg **out, const method_spec *m, const cs_problem *prob, uint64_t seed,
                      cs_err *err)
{
    cs_param params[MAX_PARAMS + 1];
    size_t np = m->nparams;
    memcpy(params, m->params, np * sizeof *params);
    const cs_reg_info *li = cs_reg_lookup(m->name);
    int given = 0;
    for (size_t i = 0; i < np; i++)
        given |= !strcmp(params[i].key, "C");
    int lend = li && li->takes_C && !given &&
               (!prob || cs_problem_kind(prob) == CS_PROB_EIG);
    if (lend)
        params[np++] = (cs_param){.key = "C", .text = "random"};
    int rc = cs_reg_new(out, m->name, params, np, seed, err);
    if (!rc && lend && prob) {
        size_t N = cs_problem_N(prob);
        rc = cs_reg_set_matrix(*out, cs_problem_C(prob), N, N, err);
        if (rc) {
            cs_reg_free(*out);
            *out = NULL;
        }
    }
    return rc;
}

int cs_method_reg_new(cs_reg **out, const char *method, const cs_problem *prob, uint64_t seed,
                      cs_err *err)
{
    *out = NULL;
    method_spec m;
    int rc = parse_method(method, &m, err);
    return rc ? rc : method_reg(out, &m, prob, seed, err);
}

int cs_method_check(const char *method, cs_err *err)
{
    cs_reg *reg = NULL;
    int rc = cs_method_reg_new(&reg, method, NULL, 0, err);
    cs_reg_free(reg);
    return rc;
}

int cs_method_canonical(const char *method, char *buf, size_t len, cs_err *err)
{
    method_spec m;
    int rc = parse_method(method, &m, err);
    if (rc)
        return rc;
    size_t used = (size_t)snprintf(buf, len, "%s", m.name);
    for (size_t i = 0; i < m.nparams && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, ":%s=%s", m.params[i].key,
                                 m.params[i].text);
    return CS_OK;
}

int cs_method_same(const char *a, const char *b)
{
    cs_reg *ra = NULL, *rb = NULL;
    int same = 0;
    if (!cs_method_reg_new(&ra, a, NULL, 0, NULL) && !cs_method_reg_new(&rb, b, NULL, 0, NULL)) {
        char da[512], db[512];
        cs_reg_describe(ra, da, sizeof da);
        cs_reg_describe(rb, db, sizeof db);
        same = !strcmp(da, db);
    }
    cs_reg_free(ra);
    cs_reg_free(rb);
    return same;
}
