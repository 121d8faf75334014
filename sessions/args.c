/* args.c — typed, validated access to command arguments. */
#include "cs_args.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_file.h"
#include "cs_parse.h"
#include "interp_internal.h"

void cs_arg_blame(cs_interp *in, const cs_cmdline *cl, const char *key, size_t pos)
{
    const cs_arg *a = key ? cs_cmdline_key(cl, key) : cs_cmdline_pos(cl, pos);
    if (a)
        in->err_col = a->col;
}

int cs_arg_path(cs_interp *in, const cs_cmdline *cl, const char *key, char *buf, size_t len,
                cs_err *err)
{
    int rc = cs_interp_path(in, cs_arg_text(cl, key, NULL), buf, len, err);
    if (rc)
        cs_arg_blame(in, cl, key, 0);
    return rc;
}

int cs_arg_value_col(const cs_arg *a, size_t off)
{
    if (a->quoted)  /* escapes may have moved the characters: the argument */
        return a->col;
    return a->col + (a->key ? (int)strlen(a->key) + 1 : 0) + (int)off;
}

const char *cs_arg_text(const cs_cmdline *cl, const char *key, const char *def)
{
    const cs_arg *a = cs_cmdline_key(cl, key);
    return a ? a->value : def;
}

int cs_arg_double(cs_interp *in, const cs_cmdline *cl, const char *key, double def, double lo,
                  double hi, double *out, cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, key);
    if (!a) {
        *out = def;
        return CS_OK;
    }
    cs_err sub;
    double v;
    if (cs_parse_double(a->value, &v, &sub)) {
        in->err_col = a->col;
        return cs_fail(err, sub.code, "%s=%s: %s", key, a->value, sub.msg);
    }
    if (v < lo || v > hi) {
        in->err_col = a->col;
        return cs_fail(err, CS_EINVAL, "%s=%s is out of range [%g, %g]", key, a->value, lo, hi);
    }
    *out = v;
    return CS_OK;
}

int cs_arg_long(cs_interp *in, const cs_cmdline *cl, const char *key, long def, long lo,
                long hi, long *out, cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, key);
    if (!a) {
        *out = def;
        return CS_OK;
    }
    cs_err sub;
    if (cs_parse_long(a->value, lo, hi, out, &sub)) {
        in->err_col = a->col;
        return cs_fail(err, sub.code, "%s=%s: %s", key, a->value, sub.msg);
    }
    return CS_OK;
}

/* Is `word` one of the '|'-separated choices? */
static int in_choices(const char *choices, const char *word)
{
    size_t wl = strlen(word);
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == wl && strncmp(c, word, len) == 0)
            return 1;
        if (!bar)
            break;
        c = bar + 1;
    }
    return 0;
}

int cs_arg_choice(cs_interp *in, const cs_cmdline *cl, const char *key, const char *choices,
                  const char *def, const char **out, cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, key);
    if (!a) {
        *out = def;
        return CS_OK;
    }
    if (!in_choices(choices, a->value)) {
        in->err_col = a->col;
        return cs_fail(err, CS_EINVAL, "%s=%s: expected one of %s", key, a->value, choices);
    }
    *out = a->value;
    return CS_OK;
}

int cs_arg_bool(cs_interp *in, const cs_cmdline *cl, const char *key, int def, int *out,
                cs_err *err)
{
    const char *w;
    int rc = cs_arg_choice(in, cl, key, "on|off|1|0|yes|no|true|false", NULL, &w, err);
    if (rc)
        return rc;
    if (!w)
        *out = def;
    else
        *out = !strcmp(w, "on") || !strcmp(w, "1") || !strcmp(w, "yes") || !strcmp(w, "true");
    return CS_OK;
}

/* Parse `start:step:stop` (inclusive, tolerant to rounding) into vals. */
static int parse_range(const char *text, double **vals, size_t *n, cs_err *err)
{
    char tmp[3][64];
    const char *s = text;
    for (int i = 0; i < 3; i++) {
        const char *colon = i < 2 ? strchr(s, ':') : s + strlen(s);
        if (!colon || (size_t)(colon - s) >= sizeof tmp[i])
            return cs_fail(err, CS_EINVAL, "range '%s' must be start:step:stop", text);
        memcpy(tmp[i], s, (size_t)(colon - s));
        tmp[i][colon - s] = '\0';
        s = colon + 1;
    }
    double a, step, b;
    cs_err sub;
    if (cs_parse_double(tmp[0], &a, &sub) || cs_parse_double(tmp[1], &step, &sub) ||
        cs_parse_double(tmp[2], &b, &sub))
        return cs_fail(err, CS_EINVAL, "range '%s': %s", text, sub.msg);
    if (step == 0.0 || (b - a) / step < -1e-9)
        return cs_fail(err, CS_EINVAL, "range '%s' has no points (check the step's sign)", text);
    double count = floor((b - a) / step + 1e-9) + 1;
    if (count > 1e6)
        return cs_fail(err, CS_EINVAL, "range '%s' has too many points (%.0f > 1000000)", text,
                       count);
    *n = (size_t)count;
    *vals = malloc(*n * sizeof **vals);
    if (!*vals)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    for (size_t i = 0; i < *n; i++) {
        /* a + i·step, rounded to 12 significant digits so 0.3:0.02:0.9 gives 0.32, not 0.32000000000000001 */
        double v = a + (double)i * step;
        char buf[40];
        snprintf(buf, sizeof buf, "%.12g", v);
        (*vals)[i] = strtod(buf, NULL);
    }
    return CS_OK;
}

/* The grid in `text`, which starts at byte `off` of a's value (a NULL for
 * a default); errors name `key` and point at a's column. */
static int grid_text(cs_interp *in, const cs_arg *a, size_t off, const char *key,
                     const char *text, double **vals, size_t *n, cs_err *err)
{
    *vals = NULL;
    *n = 0;
    cs_err sub;
    int rc;
    if (strchr(text, ':')) {
        rc = parse_range(text, vals, n, &sub);
    } else {
        size_t rows, cols, fault = 0;
        rc = cs_parse_matrix_at(text, vals, &rows, &cols, &fault, &sub);
        if (rc && a) {
            in->err_col = cs_arg_value_col(a, off + fault);
            return cs_fail(err, rc, "%s=%s: %s", key, a->value, sub.msg);
        }
        if (!rc && rows != 1) {
            free(*vals);
            *vals = NULL;
            rc = cs_fail(&sub, CS_EINVAL, "expected a list a,b,c or a range start:step:stop");
        }
        if (!rc)
            *n = cols;
    }
    if (rc) {
        if (a)
            in->err_col = off ? cs_arg_value_col(a, off) : a->col;
        return cs_fail(err, rc, "%s=%s: %s", key, a ? a->value : text, sub.msg);
    }
    return CS_OK;
}

int cs_arg_grid(cs_interp *in, const cs_cmdline *cl, const char *key, const char *def,
                double **vals, size_t *n, cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, key);
    const char *text = a ? a->value : def;
    *vals = NULL;
    *n = 0;
    if (!text)
        return CS_OK;
    return grid_text(in, a, 0, key, text, vals, n, err);
}

int cs_arg_named_grid(cs_interp *in, const cs_cmdline *cl, const char *key, char *name,
                      size_t cap, double **vals, size_t *n, cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, key);
    *vals = NULL;
    *n = 0;
    name[0] = '\0';
    if (!a)
        return CS_OK;
    const char *colon = strchr(a->value, ':');
    size_t len = colon ? (size_t)(colon - a->value) : 0;
    if (!colon || len == 0 || len >= cap || !colon[1]) {
        in->err_col = a->col;
        return cs_fail(err, CS_EINVAL, "%s=%s: expected NAME:LIST (a list a,b,c or a range "
                       "start:step:stop, e.g. %s=noise:0,0.05,0.1)", key, a->value, key);
    }
    memcpy(name, a->value, len);
    name[len] = '\0';
    return grid_text(in, a, len + 1, key, colon + 1, vals, n, err);
}

/* x=lo:hi or lo:step:hi (the ends); lo < hi. */
int cs_arg_box(cs_interp *in, const cs_cmdline *cl, const char *key, double *lo, double *hi,
               cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, key);
    if (!a)
        return CS_OK;
    const char *t = a->value, *c1 = strchr(t, ':'), *c2 = c1 ? strrchr(t, ':') : NULL;
    cs_err sub;
    int rc = CS_OK;
    char part[2][128];
    if (!c1 || (c2 != c1 && strchr(c1 + 1, ':') != c2)) {
        rc = cs_fail(&sub, CS_EINVAL, "expected lo:hi (or lo:step:hi)");
    } else if ((size_t)(c1 - t) >= sizeof part[0] || strlen(c2 + 1) >= sizeof part[1]) {
        rc = cs_fail(&sub, CS_EINVAL, "number too long");
    } else {
        memcpy(part[0], t, (size_t)(c1 - t));
        part[0][c1 - t] = '\0';
        snprintf(part[1], sizeof part[1], "%s", c2 + 1);
        double step = 0;
        if (c2 != c1) {
            char mid[128];
            size_t ml = (size_t)(c2 - c1 - 1);
            if (ml >= sizeof mid) {
                rc = cs_fail(&sub, CS_EINVAL, "number too long");
            } else {
                memcpy(mid, c1 + 1, ml);
                mid[ml] = '\0';
                rc = cs_parse_double(mid, &step, &sub);
                if (!rc && !(step > 0))
                    rc = cs_fail(&sub, CS_EINVAL, "the step must be positive");
            }
        }
        if (!rc)
            rc = cs_parse_double(part[0], lo, &sub);
        if (!rc)
            rc = cs_parse_double(part[1], hi, &sub);
        if (!rc && !(*lo < *hi))
            rc = cs_fail(&sub, CS_EINVAL, "lo must be less than hi");
    }
    if (rc) {
        in->err_col = a->col;
        return cs_fail(err, rc, "%s=%s: %s", key, t, sub.msg);
    }
    return CS_OK;
}

int cs_arg_dims(cs_interp *in, const cs_cmdline *cl, const char *key, size_t n, size_t dims[2],
                cs_err *err)
{
    const cs_arg *d = cs_cmdline_key(cl, key);
    if (!d)
        return CS_OK;
    double *dv = NULL;
    size_t rows, cols;
    cs_err sub;
    int rc = cs_parse_matrix(d->value, &dv, &rows, &cols, &sub);
    if (!rc && rows * cols != 2)
        rc = cs_fail(&sub, CS_EINVAL, "expected two coordinates i,j");
    size_t got[2] = {0, 1};
    for (int k = 0; !rc && k < 2; k++) {
        double v = dv[k];
        if (v != (double)(long)v)
            rc = cs_fail(&sub, CS_EINVAL, "coordinate %g is not an integer", v);
        else if (v < 1 || v > (double)n)
            rc = cs_fail(&sub, CS_EDIM, "coordinate %g is out of range [1, %zu] (X has %zu "
                         "entries)", v, n, n);
        else
            got[k] = (size_t)v - 1;
    }
    if (!rc && got[0] == got[1])
        rc = cs_fail(&sub, CS_EINVAL, "the two coordinates must differ");
    free(dv);
    if (rc) {
        in->err_col = d->col;
        return cs_fail(err, rc, "%s=%s: %s", key, d->value, sub.msg);
    }
    dims[0] = got[0];
    dims[1] = got[1];
    return CS_OK;
}

/* at=X (a vector) and dims=i,j (1-based, distinct, within X). */
int cs_arg_slice(cs_interp *in, const cs_cmdline *cl, double **at, size_t *n, size_t dims[2],
                 cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, "at"), *d = cs_cmdline_key(cl, "dims");
    cs_err sub;
    *at = NULL;
    *n = 0;
    dims[0] = 0;
    dims[1] = 1;
    if (!a) {
        if (d) {
            in->err_col = d->col;
            return cs_fail(err, CS_EINVAL, "dims=%s needs at=X (the point the slice goes "
                           "through)", d->value);
        }
        return CS_OK;
    }
    size_t rows, cols, fault = 0;
    int rc = cs_parse_matrix_at(a->value, at, &rows, &cols, &fault, &sub);
    if (rc) {
        in->err_col = cs_arg_value_col(a, fault);
        return cs_fail(err, rc, "at=%s: %s", a->value, sub.msg);
    }
    if (rows != 1 && cols != 1) {
        rc = cs_fail(&sub, CS_EDIM, "X must be a vector (got a %zu x %zu matrix)", rows, cols);
    } else if (rows * cols < 2) {
        rc = cs_fail(&sub, CS_EDIM, "X needs at least 2 entries for a 2D slice");
    }
    if (rc) {
        free(*at);
        *at = NULL;
        in->err_col = a->col;
        return cs_fail(err, rc, "at=%s: %s", a->value, sub.msg);
    }
    *n = rows * cols;
    rc = cs_arg_dims(in, cl, "dims", *n, dims, err);
    if (rc) {
        free(*at);
        *at = NULL;
    }
    return rc;
}

/* Where the results of an interrupted run go: beside out= as
 * NAME.partial.csv (the old out= file stays), or with partial=out into
 * out= itself. path and shown (the name as given, for messages) are
 * changed in place. */
int cs_arg_partial_target(cs_interp *in, const cs_cmdline *cl, char *path, size_t len,
                          char *shown, size_t slen, cs_err *err)
{
    const char *mode;
    int rc = cs_arg_choice(in, cl, "partial", "beside|out", "beside", &mode, err);
    if (rc || !strcmp(mode, "out"))
        return rc;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    if ((rc = cs_partial_name(tmp, path, len, err)) == CS_OK) {
        snprintf(tmp, sizeof tmp, "%s", shown);
        rc = cs_partial_name(tmp, shown, slen, err);
    }
    if (rc)
        cs_arg_blame(in, cl, "out", 0);
    return rc;
}
