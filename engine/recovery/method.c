/* method.c — methods as values: parsed once (cs_method.h). */
#include "cs_method.h"

#include <stdio.h>
#include <string.h>

int cs_method_parse(cs_method *m, const char *text, cs_err *err)
{
    memset(m, 0, sizeof *m);
    if (!text || !*text)
        return cs_fail(err, CS_EINVAL, "empty method");
    if (strlen(text) >= sizeof m->text)
        return cs_fail(err, CS_EINVAL, "method text too long");
    snprintf(m->text, sizeof m->text, "%s", text);
    snprintf(m->words, sizeof m->words, "%s", text);
    char *save = NULL;
    char *tok = strtok_r(m->words, " :\t", &save);
    if (!tok)
        return cs_fail(err, CS_EINVAL, "empty method");
    const char *name = tok;
    size_t used = (size_t)snprintf(m->canon, sizeof m->canon, "%s", name);
    while ((tok = strtok_r(NULL, " :\t", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok || !eq[1])
            return cs_fail(err, CS_EINVAL, "method %s: expected key=value, got '%s'", name, tok);
        if (m->nparams == CS_METHOD_MAX_PARAMS)
            return cs_fail(err, CS_EINVAL, "method %s: too many parameters", name);
        *eq = '\0';
        m->key_at[m->nparams] = (unsigned short)(tok - m->words);
        m->value_at[m->nparams] = (unsigned short)(eq + 1 - m->words);
        m->nparams++;
        if (used < sizeof m->canon)
            used += (size_t)snprintf(m->canon + used, sizeof m->canon - used, ":%s=%s", tok,
                                     eq + 1);
    }
    m->info = cs_reg_lookup(name);
    if (!m->info)
        return cs_fail_key(err, CS_ENOTFOUND, "reg", "unknown regularizer '%s'", name);
    return CS_OK;
}

size_t cs_method_params(const cs_method *m, cs_param *out, size_t cap)
{
    size_t n = m->nparams < cap ? m->nparams : cap;
    for (size_t i = 0; i < n; i++)
        out[i] = (cs_param){.key = m->words + m->key_at[i], .text = m->words + m->value_at[i]};
    return n;
}

/* An eig problem lends its C to the regularizers that take one when the
 * method names none; without a problem C=random stands in (the check
 * before a sweep). */
int cs_method_reg_new(cs_reg **out, const cs_method *m, const cs_problem *prob, uint64_t seed,
                      cs_err *err)
{
    *out = NULL;
    cs_param params[CS_METHOD_MAX_PARAMS + 1];
    size_t np = cs_method_params(m, params, CS_METHOD_MAX_PARAMS);
    int given = 0;
    for (size_t i = 0; i < np; i++)
        given |= !strcmp(params[i].key, "C");
    int lend = m->info->takes_C && !given && (!prob || cs_problem_kind(prob) == CS_PROB_EIG);
    if (lend)
        params[np++] = (cs_param){.key = "C", .text = "random"};
    int rc = cs_reg_new_info(out, m->info, params, np, seed, err);
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

int cs_method_check(const cs_method *m, cs_err *err)
{
    cs_reg *reg = NULL;
    int rc = cs_method_reg_new(&reg, m, NULL, 0, err);
    cs_reg_free(reg);
    return rc;
}

int cs_method_same(const cs_method *a, const cs_method *b)
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
