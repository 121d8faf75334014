/* array_csv.c — arrays as CSV: one row a line, values comma separated.
 * Blank lines and '#' comment lines (NumPy's savetxt header) are skipped,
 * a UTF-8 byte order mark (spreadsheets write one) too. */
#include "array_internal.h"
#include "cs_limits.h"
#include "cs_text.h"

#include <stdlib.h>
#include <string.h>

typedef struct csv_state {
    const char *path;
    double *vals;
    size_t n, cap;    /* values read, room for */
    size_t rows, cols;
    long first_line;  /* the line of the first row */
} csv_state;

static int only_blanks(const char *s)
{
    return s[strspn(s, " \t")] == '\0';
}

static int grow(csv_state *st, size_t more, cs_err *err)
{
    if (st->n + more <= st->cap)
        return CS_OK;
    size_t nc = st->cap ? st->cap : 1024;
    while (nc < st->n + more)
        nc *= 2;
    if ((double)nc * sizeof(double) > CS_MEMORY_BUDGET)
        return cs_fail(err, CS_ENOMEM, "%s: more than the memory budget of %.0f GiB of values",
                       st->path, CS_MEMORY_BUDGET / CS_GIB);
    double *p = realloc(st->vals, nc * sizeof *p);
    if (!p)
        return cs_fail(err, CS_ENOMEM, "%s: out of memory", st->path);
    st->vals = p;
    st->cap = nc;
    return CS_OK;
}

/* The error for a field that is not a number: a first line with no number
 * at all is a header. */
static int bad_field(csv_state *st, char *s, long line, size_t col, const char *field, int rc,
                     cs_err *err)
{
    size_t row = st->rows + 1;
    char where[48] = "";
    if ((long)row != line)
        snprintf(where, sizeof where, " (line %ld)", line);
    if (rc == CS_ENONFINITE) {
        if (strpbrk(field, "nNiI"))
            return cs_fail(err, CS_ENONFINITE, "%s: row %zu, column %zu is %s%s", st->path, row,
                           col, strpbrk(field, "aA") ? "NaN" : strchr(field, '-') ? "-Inf" : "Inf",
                           where);
        return cs_fail(err, CS_ENONFINITE, "%s: row %zu, column %zu is out of the double "
                       "range ('%.40s')%s", st->path, row, col, field, where);
    }
    if (only_blanks(field))
        return cs_fail(err, CS_EINVAL, "%s: line %ld, column %zu is empty", st->path, line, col);
    if (st->rows == 0) {
        int numbers = 0;
        for (char *p = s; p && !numbers;) {
            char *comma = strchr(p, ',');
            if (comma)
                *comma = '\0';
            double v;
            numbers = cs_array_parse_number(p, &v) != CS_EINVAL;
            if (comma)
                *comma = ',';
            p = comma ? comma + 1 : NULL;
        }
        if (!numbers)
            return cs_fail(err, CS_EINVAL, "%s: line %ld is not numbers ('%.60s'): a header? "
                           "remove it", st->path, line, s);
    }
    return cs_fail(err, CS_EINVAL, "%s: line %ld, column %zu: '%.40s' is not a number",
                   st->path, line, col, field);
}

static int read_row(csv_state *st, char *s, long line, cs_err *err)
{
    size_t count = 1;
    for (const char *p = s; (p = strchr(p, ',')) != NULL; p++)
        count++;
    if (st->rows > 0 && count != st->cols)
        return cs_fail(err, CS_EDIM, "%s: line %ld has %zu values, line %ld has %zu", st->path,
                       line, count, st->first_line, st->cols);
    int rc = grow(st, count, err);
    if (rc)
        return rc;
    char *p = s;
    for (size_t k = 0; k < count; k++) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0'; /* put back below, so a message can quote the line */
        double v = 0.0;
        rc = cs_array_parse_number(p, &v);
        if (rc) {
            char field[64];
            snprintf(field, sizeof field, "%s", p);
            if (comma)
                *comma = ',';
            return bad_field(st, s, line, k + 1, field, rc, err);
        }
        if (comma)
            *comma = ',';
        st->vals[st->n++] = v;
        if (comma)
            p = comma + 1;
    }
    if (st->rows++ == 0) {
        st->cols = count;
        st->first_line = line;
    }
    return CS_OK;
}

int cs_csv_read_array(const char *path, cs_array *out, cs_err *err)
{
    FILE *f;
    int rc = cs_text_open(path, NULL, &f, err);
    if (rc)
        return rc;
    csv_state st = {.path = path};
    char *line = NULL;
    size_t lcap = 0, llen;
    int got, col;
    long lineno = 0;
    cs_err sub;
    while ((got = cs_text_line(f, &line, &lcap, &llen, &col, &sub)) != 0) {
        lineno++;
        if (got < 0) {
            rc = cs_fail(err, got, "%s: line %ld: %s", path, lineno, sub.msg);
            break;
        }
        char *s = line;
        if (lineno == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
            s += 3;
        s += strspn(s, " \t");
        if (!*s || *s == '#')
            continue;
        if ((rc = read_row(&st, s, lineno, err)) != CS_OK)
            break;
    }
    free(line);
    fclose(f);
    if (rc == CS_OK && st.rows == 0)
        rc = cs_fail(err, CS_EINVAL, "%s: no numbers in the file", path);
    if (rc) {
        free(st.vals);
        return rc;
    }
    double *fit = realloc(st.vals, st.n * sizeof *fit); /* give back the slack */
    out->data = fit ? fit : st.vals;
    out->rows = st.rows;
    out->cols = st.cols;
    return CS_OK;
}

int cs_csv_write_array(const char *path, const cs_array *a, unsigned flags, cs_err *err)
{
    cs_afile af;
    int rc = cs_array_out_open(&af, path, flags, err);
    if (rc)
        return rc;
    char buf[48];
    for (size_t i = 0; i < a->rows && rc == CS_OK; i++) {
        for (size_t j = 0; j < a->cols; j++) {
            cs_array_format_number(buf, sizeof buf, a->data[i * a->cols + j]);
            fputs(buf, af.f);
            putc(j + 1 < a->cols ? ',' : '\n', af.f);
        }
        if (i % 1024 == 1023)
            rc = cs_afile_poll(&af, err); /* a full disk stops the write early */
    }
    return cs_array_out_close(&af, rc, err);
}
