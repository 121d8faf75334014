/* array_mtx.c — Matrix Market files (math.nist.gov/MatrixMarket): a banner
 * "%%MatrixMarket matrix FORMAT FIELD SYMMETRY", '%' comment lines, a size
 * line, then the entries: all of them column by column (array; only the
 * lower triangle when symmetric), or one "i j value" a line, 1-based
 * (coordinate; duplicates add up, as scipy.io.mmread reads them). */
#include "array_internal.h"
#include "cs_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { SYM_GENERAL, SYM_SYMMETRIC, SYM_SKEW };

typedef struct mtx_in {
    FILE *f;
    const char *path;
    char *line;
    size_t cap;
    long lineno;
} mtx_in;

/* The next line that is not blank or a comment: 1, or 0 at the end. */
static int next_line(mtx_in *in, char **s, cs_err *err)
{
    size_t len;
    int col, got;
    cs_err sub;
    while ((got = cs_text_line(in->f, &in->line, &in->cap, &len, &col, &sub)) > 0) {
        in->lineno++;
        char *p = in->line + strspn(in->line, " \t");
        if (*p && *p != '%') {
            *s = p;
            return 1;
        }
    }
    if (got < 0)
        return cs_fail(err, got, "%s: line %ld: %s", in->path, in->lineno + 1, sub.msg);
    return 0;
}

/* The next blank-separated token of *p (NUL-terminated in place), or NULL. */
static char *token(char **p)
{
    char *s = *p + strspn(*p, " \t\r");
    if (!*s)
        return NULL;
    char *e = s + strcspn(s, " \t\r");
    if (*e)
        *e++ = '\0';
    *p = e;
    return s;
}

static int parse_count(const char *t, unsigned long long *v)
{
    if (!t || !*t || strspn(t, "0123456789") != strlen(t))
        return 0;
    errno = 0;
    *v = strtoull(t, NULL, 10);
    return errno == 0;
}

static int parse_banner(mtx_in *in, int *coord, int *sym, cs_err *err)
{
    size_t len;
    int col;
    cs_err sub;
    int got = cs_text_line(in->f, &in->line, &in->cap, &len, &col, &sub);
    in->lineno = 1;
    if (got < 0)
        return cs_fail(err, got, "%s: line 1: %s", in->path, sub.msg);
    char empty[1] = "";
    char *p = got ? in->line : empty;
    char *t[6] = {0};
    for (int k = 0; k < 6 && (t[k] = token(&p)) != NULL; k++)
        ;
    if (!t[0] || strcasecmp(t[0], "%%MatrixMarket") != 0)
        return cs_fail(err, CS_EINVAL, "%s: not a Matrix Market file (no %%%%MatrixMarket "
                       "banner on line 1)", in->path);
    if (!t[4] || t[5])
        return cs_fail(err, CS_EINVAL, "%s: the banner needs 4 words: matrix FORMAT FIELD "
                       "SYMMETRY", in->path);
    if (strcasecmp(t[1], "matrix") != 0)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: object '%s' is not supported (matrix)",
                       in->path, t[1]);
    *coord = strcasecmp(t[2], "coordinate") == 0;
    if (!*coord && strcasecmp(t[2], "array") != 0)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: format '%s' is not supported (array or "
                       "coordinate)", in->path, t[2]);
    if (strcasecmp(t[3], "real") != 0 && strcasecmp(t[3], "double") != 0 &&
        strcasecmp(t[3], "integer") != 0)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: field '%s' is not supported (real or "
                       "integer)", in->path, t[3]);
    *sym = strcasecmp(t[4], "general") == 0     ? SYM_GENERAL
         : strcasecmp(t[4], "symmetric") == 0   ? SYM_SYMMETRIC
         : strcasecmp(t[4], "skew-symmetric") == 0 ? SYM_SKEW : -1;
    if (*sym < 0)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: symmetry '%s' is not supported (general, "
                       "symmetric or skew-symmetric)", in->path, t[4]);
    return CS_OK;
}

/* Duplicates add up; the first value is taken as it is (0 + -0 is +0). */
static void add(double *x, double v)
{
    *x = *x == 0.0 ? v : *x + v;
}

/* Entry (i, j), 0-based, of value text t at the current line. */
static int put(mtx_in *in, cs_array *a, size_t i, size_t j, const char *t, int sym, cs_err *err)
{
    double v = 0.0;
    int rc = cs_array_parse_number(t, &v);
    if (rc == CS_ENONFINITE)
        return cs_fail(err, rc, "%s: row %zu, column %zu is %s (line %ld)", in->path, i + 1,
                       j + 1, strpbrk(t, "nNiI") ? cs_array_nonfinite_word(v)
                                                 : "out of the double range", in->lineno);
    if (rc)
        return cs_fail(err, rc, "%s: line %ld: '%.40s' is not a number", in->path, in->lineno,
                       t);
    if (sym == SYM_SKEW && i == j)
        return cs_fail(err, CS_EINVAL, "%s: line %ld: a skew-symmetric matrix has no diagonal "
                       "entries", in->path, in->lineno);
    add(&a->data[i * a->cols + j], v);
    if (sym != SYM_GENERAL && i != j)
        add(&a->data[j * a->cols + i], sym == SYM_SKEW ? -v : v);
    return CS_OK;
}

static int read_array(mtx_in *in, cs_array *a, int sym, cs_err *err)
{
    size_t n = a->rows;
    size_t want = sym == SYM_GENERAL ? a->rows * a->cols
                : sym == SYM_SYMMETRIC ? n * (n + 1) / 2 : n * (n - 1) / 2;
    size_t got = 0, i = sym == SYM_SKEW, j = 0; /* the next entry, column by column */
    char *s;
    int rc;
    while ((rc = next_line(in, &s, err)) > 0)
        for (char *t; (t = token(&s)) != NULL;) {
            if (got == want)
                return cs_fail(err, CS_EINVAL, "%s: line %ld: more values than the %zu of a "
                               "%zux%zu %s array", in->path, in->lineno, want, a->rows, a->cols,
                               sym == SYM_GENERAL ? "general" : "symmetric");
            if ((rc = put(in, a, i, j, t, sym == SYM_SKEW ? SYM_GENERAL : sym, err)) != CS_OK)
                return rc;
            if (sym == SYM_SKEW)
                a->data[j * a->cols + i] = -a->data[i * a->cols + j];
            got++;
            if (++i == a->rows) {
                j++;
                i = sym == SYM_GENERAL ? 0 : j + (sym == SYM_SKEW);
            }
        }
    if (rc < 0)
        return rc;
    if (got < want)
        return cs_fail(err, CS_EINVAL, "%s: truncated: %zu of %zu values", in->path, got, want);
    return CS_OK;
}

static int read_coordinate(mtx_in *in, cs_array *a, int sym, unsigned long long nnz,
                           cs_err *err)
{
    unsigned long long got = 0;
    char *s;
    int rc;
    while ((rc = next_line(in, &s, err)) > 0) {
        if (got == nnz)
            return cs_fail(err, CS_EINVAL, "%s: line %ld: more entries than the %llu the size "
                           "line declares", in->path, in->lineno, nnz);
        char *ti = token(&s), *tj = token(&s), *tv = token(&s);
        unsigned long long i, j;
        if (!tv || token(&s))
            return cs_fail(err, CS_EINVAL, "%s: line %ld: an entry is 'row column value'",
                           in->path, in->lineno);
        if (!parse_count(ti, &i) || !parse_count(tj, &j))
            return cs_fail(err, CS_EINVAL, "%s: line %ld: '%.20s %.20s' are not row and column "
                           "numbers", in->path, in->lineno, ti, tj);
        if (i < 1 || j < 1 || i > a->rows || j > a->cols)
            return cs_fail(err, CS_EDIM, "%s: line %ld: entry (%llu, %llu) is outside the "
                           "%zux%zu matrix (indices start at 1)", in->path, in->lineno, i, j,
                           a->rows, a->cols);
        if ((rc = put(in, a, (size_t)i - 1, (size_t)j - 1, tv, sym, err)) != CS_OK)
            return rc;
        got++;
    }
    if (rc < 0)
        return rc;
    if (got < nnz)
        return cs_fail(err, CS_EINVAL, "%s: truncated: %llu of %llu entries", in->path, got,
                       nnz);
    return CS_OK;
}

static int read_body(mtx_in *in, cs_array *out, cs_err *err)
{
    int coord, sym;
    int rc = parse_banner(in, &coord, &sym, err);
    if (rc)
        return rc;
    char *s;
    if ((rc = next_line(in, &s, err)) <= 0)
        return rc < 0 ? rc : cs_fail(err, CS_EINVAL, "%s: truncated: no size line", in->path);
    unsigned long long r, c, nnz = 0;
    char *tr = token(&s), *tc = token(&s), *tn = coord ? token(&s) : NULL;
    if (!parse_count(tr, &r) || !parse_count(tc, &c) || (coord && !parse_count(tn, &nnz)) ||
        token(&s))
        return cs_fail(err, CS_EINVAL, "%s: line %ld: the size line is '%s'", in->path,
                       in->lineno, coord ? "rows columns entries" : "rows columns");
    if (sym != SYM_GENERAL && r != c)
        return cs_fail(err, CS_EDIM, "%s: a symmetric matrix must be square, not %llux%llu",
                       in->path, r, c);
    if ((size_t)r != r || (size_t)c != c)
        return cs_fail(err, CS_ENOMEM, "%s: a %llux%llu matrix is too large", in->path, r, c);
    if ((rc = cs_array_alloc_named(out, (size_t)r, (size_t)c, in->path, err)) != CS_OK)
        return rc;
    rc = coord ? read_coordinate(in, out, sym, nnz, err) : read_array(in, out, sym, err);
    if (rc == CS_OK)
        rc = cs_array_check_finite(out, in->path, err); /* sums of duplicates may overflow */
    if (rc)
        cs_array_free(out);
    return rc;
}

int cs_mtx_read_array(const char *path, cs_array *out, cs_err *err)
{
    mtx_in in = {.path = path};
    int rc = cs_text_open(path, NULL, &in.f, err);
    if (rc)
        return rc;
    rc = read_body(&in, out, err);
    free(in.line);
    fclose(in.f);
    return rc;
}

int cs_mtx_write_array(const char *path, const cs_array *a, unsigned flags, cs_err *err)
{
    cs_afile af;
    int rc = cs_array_out_open(&af, path, flags, err);
    if (rc)
        return rc;
    fprintf(af.f, "%%%%MatrixMarket matrix array real general\n%zu %zu\n", a->rows, a->cols);
    char buf[48];
    for (size_t j = 0; j < a->cols && rc == CS_OK; j++) {
        for (size_t i = 0; i < a->rows; i++) {
            cs_array_format_number(buf, sizeof buf, a->data[i * a->cols + j]);
            fputs(buf, af.f);
            putc('\n', af.f);
        }
        if (j % 64 == 63)
            rc = cs_afile_poll(&af, err);
    }
    return cs_array_out_close(&af, rc, err);
}
