/* array_core.c — what every array format shares: allocation under the
 * memory budget, the non-finite check, numbers in text, atomic outputs. */
#include "array_internal.h"
#include "cs_limits.h"
#include "cs_parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int cs_array_alloc_named(cs_array *a, size_t rows, size_t cols, const char *name, cs_err *err)
{
    a->rows = a->cols = 0;
    a->data = NULL;
    const char *pre = name ? name : "", *sep = name ? ": " : "";
    if (rows == 0 || cols == 0)
        return cs_fail(err, CS_EDIM, "%s%sthe array is empty (%zux%zu)", pre, sep, rows, cols);
    /* in doubles: rows * cols may overflow size_t */
    double bytes = (double)rows * (double)cols * (double)sizeof(double);
    if (bytes > CS_MEMORY_BUDGET)
        return cs_fail(err, CS_ENOMEM, "%s%sa %zux%zu array needs %.1f GiB, more than the "
                       "memory budget of %.0f GiB", pre, sep, rows, cols, bytes / CS_GIB,
                       CS_MEMORY_BUDGET / CS_GIB);
    double *d = calloc(rows * cols, sizeof *d);
    if (!d)
        return cs_fail(err, CS_ENOMEM, "%s%sout of memory for a %zux%zu array", pre, sep, rows,
                       cols);
    a->rows = rows;
    a->cols = cols;
    a->data = d;
    return CS_OK;
}

int cs_array_alloc(cs_array *a, size_t rows, size_t cols, cs_err *err)
{
    return cs_array_alloc_named(a, rows, cols, NULL, err);
}

void cs_array_free(cs_array *a)
{
    if (!a)
        return;
    free(a->data);
    a->data = NULL;
    a->rows = a->cols = 0;
}

const char *cs_array_nonfinite_word(double v)
{
    return isnan(v) ? "NaN" : v > 0 ? "Inf" : "-Inf";
}

int cs_array_check_finite(const cs_array *a, const char *name, cs_err *err)
{
    for (size_t i = 0; i < a->rows; i++)
        for (size_t j = 0; j < a->cols; j++) {
            double v = a->data[i * a->cols + j];
            if (!isfinite(v))
                return cs_fail(err, CS_ENONFINITE, "%s: row %zu, column %zu is %s", name, i + 1,
                               j + 1, cs_array_nonfinite_word(v));
        }
    return CS_OK;
}

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

int cs_array_parse_number(const char *text, double *v)
{
    const char *p = text;
    while (blank(*p))
        p++;
    size_t n = strlen(p);
    while (n > 0 && blank(p[n - 1]))
        n--;
    const char *q = p + (n > 0 && (*p == '+' || *p == '-'));
    size_t m = n - (size_t)(q - p);
    double sign = *p == '-' ? -1.0 : 1.0;
    if (m == 3 && strncasecmp(q, "nan", 3) == 0) {
        *v = NAN;
        return CS_ENONFINITE;
    }
    if ((m == 3 && strncasecmp(q, "inf", 3) == 0) ||
        (m == 8 && strncasecmp(q, "infinity", 8) == 0)) {
        *v = sign * INFINITY;
        return CS_ENONFINITE;
    }
    /* plain decimals only: strtod would also take hex and "nan(...)" */
    int digits = 0;
    for (size_t k = 0; k < n; k++) {
        if (p[k] >= '0' && p[k] <= '9')
            digits = 1;
        else if (!strchr(".eE+-", p[k]))
            return CS_EINVAL;
    }
    if (!digits)
        return CS_EINVAL;
    char *end;
    double x = strtod(p, &end);
    if (end != p + n)
        return CS_EINVAL;
    *v = x;
    return isinf(x) ? CS_ENONFINITE : CS_OK; /* past the range: 1e999 */
}

void cs_array_format_number(char *buf, size_t len, double v)
{
    if (v == 0.0 && signbit(v))
        snprintf(buf, len, "-0"); /* cs_format_double writes 0: not bit for bit */
    else
        cs_format_double(buf, len, v);
}

int cs_array_out_open(cs_afile *af, const char *path, unsigned flags, cs_err *err)
{
    return cs_afile_open(af, path, (flags & CS_ARRAY_NO_CLOBBER) != 0, err);
}

int cs_array_out_close(cs_afile *af, int rc, cs_err *err)
{
    if (rc == CS_OK)
        return cs_afile_commit(af, err);
    cs_afile_abort(af);
    return rc;
}
