#include "cs_parse.h"
#include "cs_dtoa.h"
#include "cs_text.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
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

/* The first text of "%.{p}g" for p = 1..17 that reads back to v: the
 * reference the fast path reproduces, and the path of the doubles whose
 * rounding interval is lopsided (below). */
static void format_by_search(char *buf, size_t len, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* "-123" for |v| < 1e15, v whole (what "%.0f" writes), into out; its length. */
static size_t format_whole(char *out, double v)
{
    long long n = (long long)v;
    unsigned long long u = n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n;
    char tmp[24];
    size_t k = 0, len = 0;
    do {
        tmp[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (n < 0)
        out[len++] = '-';
    while (k)
        out[len++] = tmp[--k];
    out[len] = '\0';
    return len;
}

/* 1 when v (finite, > 0) is exactly m · 10^q (m odd): then m's two
 * neighbours one unit of its last digit apart are equally near v. */
static int exactly(double v, unsigned long long m, int q)
{
    int e2;
    double f = frexp(v, &e2);                          /* v = f · 2^e2, f in [0.5, 1) */
    unsigned long long mant = (unsigned long long)ldexp(f, 53);
    e2 -= 53;
    int z = __builtin_ctzll(mant);
    mant >>= z;
    e2 += z;                                           /* v = mant · 2^e2, mant odd */
    if (e2 != q)                                       /* m odd: 2^q is all of 10^q's twos */
        return 0;
    /* mant == m · 5^q (q >= 0) or m == mant · 5^-q (q < 0), without overflow */
    unsigned long long a = q >= 0 ? m : mant, b = q >= 0 ? mant : m;
    for (int i = q >= 0 ? q : -q; i > 0; i--) {
        if (a > b / 5)
            return 0;
        a *= 5;
    }
    return a == b;
}

/* The layout of "%.{n}g" for the n digits d (no trailing zero) of
 * 0.d × 10^point: plain between 1e-4 and 10^n, else d.ddde±XX. */
static size_t layout_g(char *out, int neg, const char *d, int n, int point)
{
    size_t len = 0;
    int x = point - 1;                                 /* the decimal exponent */
    if (neg)
        out[len++] = '-';
    if (x < -4 || x >= n) {
        out[len++] = d[0];
        if (n > 1) {
            out[len++] = '.';
            memcpy(out + len, d + 1, (size_t)n - 1);
            len += (size_t)n - 1;
        }
        out[len++] = 'e';
        out[len++] = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            out[len++] = (char)('0' + ax / 100);
        out[len++] = (char)('0' + ax / 10 % 10);
        out[len++] = (char)('0' + ax % 10);
    } else if (x >= 0) {
        memcpy(out + len, d, (size_t)x + 1);
        len += (size_t)x + 1;
        if (n > x + 1) {
            out[len++] = '.';
            memcpy(out + len, d + x + 1, (size_t)(n - x - 1));
            len += (size_t)(n - x - 1);
        }
    } else {
        out[len++] = '0';
        out[len++] = '.';
        for (int i = 0; i < -x - 1; i++)
            out[len++] = '0';
        memcpy(out + len, d, (size_t)n);
        len += (size_t)n;
    }
    out[len] = '\0';
    return len;
}

/* The text format_by_search gives, fast: libdouble-conversion's shortest
 * digits (cs_dtoa.h) are those of the smallest precision p whose correct
 * rounding reads back (p = their count), except in two cases. A tie: v
 * exactly halfway between the two nearest shortest strings, where printf
 * takes the even last digit (libdouble-conversion 3.2 does too, though its
 * header says it rounds away from zero: checked here, exactly, so another
 * version cannot change a byte). And a double whose significand is a power
 * of two: its lower neighbour is nearer than its upper, so the shortest
 * string in its interval may lie where printf's rounding never goes; the
 * search decides those (4094 doubles in all). tests/test_format.c compares
 * both ways on 10 million doubles. */
static size_t format_fast(char *out, size_t cap, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    if ((bits & 0xFFFFFFFFFFFFFULL) == 0) {
        format_by_search(out, cap, v);
        return strlen(out);
    }
    int neg = v < 0, point;
    double a = neg ? -v : v;
    char d[18];
    int n = cs_dtoa_shortest(a, d, &point);
    /* a tie: a = (D ± 1/2) units of D's last digit, D the digits as an integer */
    unsigned long long dint = 0;
    for (int i = 0; i < n; i++)
        dint = dint * 10 + (unsigned long long)(d[i] - '0');
    if (dint % 2) {
        int q = point - n - 1;
        int up = exactly(a, dint * 10 + 5, q), down = !up && exactly(a, dint * 10 - 5, q);
        if (up || down) {
            /* the even neighbour: never a carry nor a trailing zero, as a
             * shorter string would then have been in the interval */
            int last = d[n - 1] - '0' + (up ? 1 : -1);
            if (last <= 0 || last >= 10) {
                format_by_search(out, cap, v);
                return strlen(out);
            }
            d[n - 1] = (char)('0' + last);
        }
    }
    return layout_g(out, neg, d, n, point);
}

void cs_format_double(char *buf, size_t len, double v)
{
    if (len == 0)
        return;
    char text[40];
    size_t n;
    if (isnan(v))
        n = (size_t)snprintf(text, sizeof text, "nan");
    else if (isinf(v))
        n = (size_t)snprintf(text, sizeof text, v > 0 ? "inf" : "-inf");
    else if (v == floor(v) && fabs(v) < 1e15)
        /* whole numbers plainly (120, not 1.2e+02), "-0" as "0" */
        n = format_whole(text, v == 0.0 ? 0.0 : v);
    else
        n = format_fast(text, sizeof text, v);
    /* as snprintf: cut to len - 1 characters */
    if (n >= len)
        n = len - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
}
