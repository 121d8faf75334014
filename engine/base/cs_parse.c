#include "cs_parse.h"
#include "cs_text.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int cs_parse_double(const char *text, double *out, cs_err *err)
{
    if (!text || !*text)
        return cs_fail(err, CS_EINVAL, "empty number");
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    /* strtod accepts nan/inf/hex: csreg numbers are plain decimals only. */
    for (const char *q = p; *q; q++)
        if (isalpha((unsigned char)*q) && *q != 'e' && *q != 'E') {
            if (strncasecmp(q, "nan", 3) == 0 || strncasecmp(q, "inf", 3) == 0)
                return cs_fail(err, CS_ENONFINITE, "'%s' is not a finite number", text);
            return cs_fail(err, CS_EINVAL, "malformed number '%s'", text);
        }
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p)
        return cs_fail(err, CS_EINVAL, "malformed number '%s'", text);
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return cs_fail(err, CS_EINVAL, "malformed number '%s'", text);
    if (errno == ERANGE && fabs(v) > 1.0)
        return cs_fail(err, CS_EINVAL, "number '%s' is out of range", text);
    if (!isfinite(v))
        return cs_fail(err, CS_ENONFINITE, "'%s' is not a finite number", text);
    *out = v;
    return CS_OK;
}

int cs_parse_long(const char *text, long lo, long hi, long *out, cs_err *err)
{
    double v;
    int rc = cs_parse_double(text, &v, err);
    if (rc)
        return rc;
    if (v != floor(v))
        return cs_fail(err, CS_EINVAL, "'%s' is not an integer", text);
    if (v < (double)lo || v > (double)hi)
        return cs_fail(err, CS_EINVAL, "%s is out of range [%ld, %ld]", text, lo, hi);
    *out = (long)v;
    return CS_OK;
}

/* Parse one entry [s, e) of a matrix literal. */
static int parse_entry(const char *s, const char *e, size_t row, size_t col, double *out,
                       cs_err *err)
{
    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    if (s == e)
        return cs_fail(err, CS_EINVAL, "empty entry at row %zu, column %zu", row, col);
    char buf[128];
    size_t len = (size_t)(e - s);
    if (len >= sizeof buf)
        return cs_fail(err, CS_EINVAL, "entry too long at row %zu, column %zu", row, col);
    memcpy(buf, s, len);
    buf[len] = '\0';
    cs_err sub;
    int rc = cs_parse_double(buf, out, &sub);
    if (rc)
        return cs_fail(err, rc, "%s at row %zu, column %zu", sub.msg, row, col);
    return CS_OK;
}

int cs_parse_matrix(const char *text, double **out, size_t *rows, size_t *cols, cs_err *err)
{
    return cs_parse_matrix_at(text, out, rows, cols, NULL, err);
}

int cs_parse_matrix_at(const char *text, double **out, size_t *rows, size_t *cols,
                       size_t *fault, cs_err *err)
{
    *out = NULL;
    if (fault)
        *fault = 0;
    if (!text)
        return cs_fail(err, CS_EINVAL, "empty matrix");
    const char *t = text;
    while (isspace((unsigned char)*t))
        t++;
    if (!*t)
        return cs_fail(err, CS_EINVAL, "empty list");
    size_t cap = 16, n = 0, nrows = 0, ncols = 0;
    double *v = malloc(cap * sizeof *v);
    if (!v)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    const char *row = t;
    for (;;) {
        const char *row_end = strchr(row, ';');
        if (!row_end)
            row_end = row + strlen(row);
        nrows++;
        size_t c = 0;
        const char *s = row;
        for (;;) {
            const char *comma = memchr(s, ',', (size_t)(row_end - s));
            const char *e = comma ? comma : row_end;
            if (n == cap) {
                if (cap > ((size_t)1 << 40)) {
                    free(v);
                    return cs_fail(err, CS_ENOMEM, "matrix too large");
                }
                double *nv = realloc(v, 2 * cap * sizeof *v);
                if (!nv) {
                    free(v);
                    return cs_fail(err, CS_ENOMEM, "out of memory");
                }
                v = nv;
                cap *= 2;
            }
            int rc = parse_entry(s, e, nrows, c + 1, &v[n], err);
            if (rc) {
                if (fault) {  /* the entry's first character, or where it is missing */
                    const char *at = s;
                    while (at < e && isspace((unsigned char)*at))
                        at++;
                    *fault = (size_t)(at - text);
                }
                free(v);
                return rc;
            }
            n++;
            c++;
            if (!comma)
                break;
            s = comma + 1;
        }
        if (nrows == 1)
            ncols = c;
        else if (c != ncols) {
            free(v);
            return cs_fail(err, CS_EDIM, "ragged matrix: row %zu has %zu entries, row 1 has %zu",
                           nrows, c, ncols);
        }
        if (!*row_end)
            break;
        row = row_end + 1;
    }
    *out = v;
    *rows = nrows;
    *cols = ncols;
    return CS_OK;
}

int cs_read_csv_matrix(const char *path, double **out, size_t *rows, size_t *cols, cs_err *err)
{
    *out = NULL;
    FILE *f;
    int rc = cs_text_open(path, NULL, &f, err);
    if (rc)
        return rc;
    /* Join the data lines with ';' and reuse the literal parser. */
    size_t cap = 1024, len = 0;
    char *text = malloc(cap);
    char *line = NULL;
    size_t lcap = 0, llen;
    int got, col;
    long lineno = 0;
    if (!text) {
        fclose(f);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    text[0] = '\0';
    cs_err sub;
    while ((got = cs_text_line(f, &line, &lcap, &llen, &col, &sub)) != 0) {
        lineno++;
        if (got < 0) {
            rc = cs_fail(err, got, "%s:%ld: %s", path, lineno, sub.msg);
            break;
        }
        const char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '#')
            continue;
        if (strchr(s, ';')) {
            rc = cs_fail(err, CS_EINVAL, "%s: unexpected ';' in CSV data", path);
            break;
        }
        size_t need = len + strlen(s) + 2;
        if (need > cap) {
            while (cap < need)
                cap *= 2;
            char *nt = realloc(text, cap);
            if (!nt) {
                rc = cs_fail(err, CS_ENOMEM, "out of memory");
                break;
            }
            text = nt;
        }
        if (len)
            text[len++] = ';';
        memcpy(text + len, s, strlen(s) + 1);
        len += strlen(s);
    }
    free(line);
    fclose(f);
    if (rc == CS_OK) {
        if (len == 0)
            rc = cs_fail(err, CS_EINVAL, "%s: no data", path);
        else {
            rc = cs_parse_matrix(text, out, rows, cols, &sub);
            if (rc)
                cs_fail(err, rc, "%s: %s", path, sub.msg);
        }
    }
    free(text);
    return rc;
}

void cs_format_double(char *buf, size_t len, double v)
{
    if (isnan(v)) {
        snprintf(buf, len, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, len, v > 0 ? "inf" : "-inf");
        return;
    }
    /* Whole numbers plainly (120, not 1.2e+02); else the shortest text that
     * reads back to the same double. */
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, len, "%.0f", v == 0.0 ? 0.0 : v); /* no "-0" */
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}
