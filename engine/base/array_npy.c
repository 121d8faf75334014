/* array_npy.c — NumPy's .npy files (numpy.lib.format): the magic
 * "\x93NUMPY", a version (1.0: a 2-byte header length; 2.0 and 3.0: 4
 * bytes, 3.0 a UTF-8 header), a Python dict literal naming descr,
 * fortran_order and shape, then the raw data. Bytes are assembled by hand,
 * so the host's byte order does not matter. */
#include "array_internal.h"
#include "cs_limits.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NPY_HEADER_MAX (1u << 20) /* numpy's own limit is 10000 bytes */
#define NPY_MAX_DIMS 32

typedef struct npy_header {
    char descr[32];
    int fortran, ndim;
    unsigned long long shape[NPY_MAX_DIMS];
    int seen; /* bits: descr, fortran_order, shape */
} npy_header;

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* A quoted Python string into buf; the position after it, or NULL. */
static const char *parse_str(const char *p, char *buf, size_t len)
{
    char q = *p;
    if (q != '\'' && q != '"')
        return NULL;
    const char *end = strchr(p + 1, q);
    if (!end || (size_t)(end - p - 1) >= len)
        return NULL;
    for (const char *c = p + 1; c < end; c++)
        if ((unsigned char)*c < 0x20) /* messages quote it: one line */
            return NULL;
    memcpy(buf, p + 1, (size_t)(end - p - 1));
    buf[end - p - 1] = '\0';
    return end + 1;
}

static const char *parse_shape(const char *p, npy_header *h)
{
    if (*p++ != '(')
        return NULL;
    h->ndim = 0;
    for (;;) {
        p = skip_ws(p);
        if (*p == ')')
            return p + 1;
        if (*p < '0' || *p > '9' || h->ndim == NPY_MAX_DIMS)
            return NULL;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno)
            return NULL;
        h->shape[h->ndim++] = v;
        p = skip_ws(end + (*end == 'L')); /* Python 2 wrote 3L */
        if (*p == ',')
            p++;
        else if (*p != ')')
            return NULL;
    }
}

static void shape_text(const npy_header *h, char *buf, size_t len)
{
    size_t w = (size_t)snprintf(buf, len, "(");
    for (int k = 0; k < h->ndim && w < len; k++)
        w += (size_t)snprintf(buf + w, len - w, "%s%llu", k ? ", " : "", h->shape[k]);
    if (w < len)
        snprintf(buf + w, len - w, "%s)", h->ndim == 1 ? "," : "");
}

/* The dict literal: its three keys and nothing else. */
static int parse_header(const char *text, npy_header *h, const char *path, cs_err *err)
{
    const char *p = skip_ws(text);
    if (*p++ != '{')
        return cs_fail(err, CS_EINVAL, "%s: malformed .npy header (not a dict)", path);
    for (;;) {
        p = skip_ws(p);
        if (*p == '}')
            break;
        char key[32];
        if (!(p = parse_str(p, key, sizeof key)) || *(p = skip_ws(p)) != ':')
            return cs_fail(err, CS_EINVAL, "%s: malformed .npy header (a key)", path);
        p = skip_ws(p + 1);
        if (strcmp(key, "descr") == 0) {
            if (*p == '[')
                return cs_fail(err, CS_EUNSUPPORTED, "%s: a structured dtype (fields) is not "
                               "supported (float64 or float32)", path);
            p = parse_str(p, h->descr, sizeof h->descr);
            h->seen |= 1;
        } else if (strcmp(key, "fortran_order") == 0) {
            h->fortran = strncmp(p, "True", 4) == 0;
            p = h->fortran || strncmp(p, "False", 5) == 0 ? p + (h->fortran ? 4 : 5) : NULL;
            h->seen |= 2;
        } else if (strcmp(key, "shape") == 0) {
            p = parse_shape(p, h);
            h->seen |= 4;
        } else {
            return cs_fail(err, CS_EINVAL, "%s: unexpected key '%s' in the .npy header", path,
                           key);
        }
        if (!p)
            return cs_fail(err, CS_EINVAL, "%s: malformed .npy header (the value of '%s')", path,
                           key);
        p = skip_ws(p);
        if (*p == ',')
            p++;
        else if (*p != '}')
            return cs_fail(err, CS_EINVAL, "%s: malformed .npy header (after '%s')", path, key);
    }
    if (h->seen != 7)
        return cs_fail(err, CS_EINVAL, "%s: the .npy header lacks '%s'", path,
                       !(h->seen & 1) ? "descr" : !(h->seen & 2) ? "fortran_order" : "shape");
    return CS_OK;
}

static int read_exact(FILE *f, void *buf, size_t n)
{
    return fread(buf, 1, n, f) == n;
}

/* Magic, version and header; leaves f at the data. */
static int read_header(FILE *f, npy_header *h, long long *offset, const char *path, cs_err *err)
{
    unsigned char pre[12];
    if (!read_exact(f, pre, 8) || memcmp(pre, "\x93NUMPY", 6) != 0)
        return cs_fail(err, CS_EINVAL, "%s: not a NumPy .npy file (no \\x93NUMPY magic)", path);
    if (pre[6] < 1 || pre[6] > 3 || pre[7] != 0)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: .npy format version %d.%d is not supported "
                       "(1.0, 2.0, 3.0)", path, pre[6], pre[7]);
    int wide = pre[6] >= 2;
    if (!read_exact(f, pre + 8, wide ? 4 : 2))
        return cs_fail(err, CS_EINVAL, "%s: truncated .npy header", path);
    unsigned long hlen = pre[8] | (unsigned long)pre[9] << 8;
    if (wide)
        hlen |= (unsigned long)pre[10] << 16 | (unsigned long)pre[11] << 24;
    if (hlen > NPY_HEADER_MAX)
        return cs_fail(err, CS_EINVAL, "%s: a .npy header of %lu bytes (malformed)", path, hlen);
    char *text = malloc(hlen + 1);
    if (!text)
        return cs_fail(err, CS_ENOMEM, "%s: out of memory", path);
    int rc = CS_OK;
    if (!read_exact(f, text, hlen))
        rc = cs_fail(err, CS_EINVAL, "%s: truncated .npy header", path);
    else {
        text[hlen] = '\0';
        rc = parse_header(text, h, path, err);
    }
    free(text);
    *offset = (wide ? 12 : 10) + (long long)hlen;
    return rc;
}

/* descr -> item size and byte order; the message for any other dtype */
static int dtype_of(const npy_header *h, int *size, int *big, const char *path, cs_err *err)
{
    const char *d = h->descr;
    *big = d[0] == '>';
    if ((d[0] == '<' || d[0] == '>' || d[0] == '=') && d[1] == 'f' && (d[2] == '8' || d[2] == '4')
        && d[3] == '\0') {
        *size = d[2] - '0';
        return CS_OK;
    }
    return cs_fail(err, CS_EUNSUPPORTED, "%s: dtype %s is not supported (float64 or float32)",
                   path, d);
}

static double decode(const unsigned char *b, int size, int big)
{
    uint64_t u = 0;
    for (int k = 0; k < size; k++)
        u |= (uint64_t)b[big ? size - 1 - k : k] << (8 * k);
    if (size == 8) {
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    uint32_t u32 = (uint32_t)u;
    float x;
    memcpy(&x, &u32, sizeof x);
    return (double)x;
}

/* The data, in pieces, each item to its row-major place. */
static int read_data(FILE *f, cs_array *a, int size, int big, int fortran, const char *path,
                     cs_err *err)
{
    enum { PIECE = 4096 };
    unsigned char buf[PIECE * 8];
    size_t n = a->rows * a->cols;
    for (size_t k = 0; k < n;) {
        size_t m = n - k < PIECE ? n - k : PIECE;
        if (!read_exact(f, buf, m * (size_t)size))
            return cs_fail(err, CS_EIO, "%s: read error: %s", path,
                           ferror(f) ? strerror(errno) : "the file shrank");
        for (size_t t = 0; t < m; t++, k++) {
            size_t at = fortran ? (k % a->rows) * a->cols + k / a->rows : k;
            a->data[at] = decode(buf + t * (size_t)size, size, big);
        }
    }
    return CS_OK;
}

int cs_npy_read_array(const char *path, cs_array *out, cs_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cs_fail(err, CS_EIO, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return cs_fail(err, CS_EIO, "cannot read '%s': not a regular file", path);
    }
    npy_header h = {.ndim = 0};
    long long offset = 0;
    int size = 8, big = 0;
    int rc = read_header(f, &h, &offset, path, err);
    if (rc == CS_OK)
        rc = dtype_of(&h, &size, &big, path, err);
    char shape[160];
    shape_text(&h, shape, sizeof shape);
    if (rc == CS_OK && h.ndim > 2)
        rc = cs_fail(err, CS_EDIM, "%s: a %d-D array (shape %s) is not supported: 0-D, 1-D or "
                     "2-D only", path, h.ndim, shape);
    if (rc == CS_OK) {
        size_t rows = h.ndim >= 1 ? (size_t)h.shape[0] : 1;
        size_t cols = h.ndim == 2 ? (size_t)h.shape[1] : 1;
        /* the sizes in long double: a corrupt shape may overflow 64 bits */
        long double want = (long double)rows * cols * size;
        long double have = (long double)st.st_size - offset;
        if (rows && cols && want > have)
            rc = cs_fail(err, CS_EINVAL, "%s: truncated: %.0Lf of %.0Lf data bytes", path,
                         have < 0 ? 0.0L : have, want);
        else if (rows && cols && want < have)
            rc = cs_fail(err, CS_EINVAL, "%s: %.0Lf bytes after the data (shape %s of %s takes "
                         "%.0Lf)", path, have - want, shape, h.descr, want);
        else if ((rc = cs_array_alloc_named(out, rows, cols, path, err)) == CS_OK) {
            rc = read_data(f, out, size, big, h.fortran, path, err);
            if (rc == CS_OK)
                rc = cs_array_check_finite(out, path, err);
            if (rc)
                cs_array_free(out);
        }
    }
    fclose(f);
    return rc;
}

/* Weights of any shape as float (cs_array_io.h): the header as above; the
 * data decoded a piece at a time. */
int cs_npy_read_f32(const char *path, float **data, size_t *rows, size_t *cols, int *ndim,
                    cs_err *err)
{
    *data = NULL;
    *rows = *cols = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return cs_fail(err, CS_EIO, "cannot open '%s': %s", path, strerror(errno));
    struct stat st = {0};
    npy_header h = {.ndim = 0};
    long long offset = 0;
    int size = 4, big = 0, rc = CS_OK;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        rc = cs_fail(err, CS_EIO, "cannot read '%s': not a regular file", path);
    if (rc == CS_OK)
        rc = read_header(f, &h, &offset, path, err);
    if (rc == CS_OK)
        rc = dtype_of(&h, &size, &big, path, err);
    if (rc == CS_OK && h.fortran && h.ndim > 1)
        rc = cs_fail(err, CS_EUNSUPPORTED, "%s: Fortran order (write C order, e.g. "
                     "numpy.ascontiguousarray)", path);
    /* the sizes in long double: a corrupt shape may overflow 64 bits */
    long double r = h.ndim ? (long double)h.shape[0] : 1, c = 1;
    for (int k = 1; k < h.ndim; k++)
        c *= (long double)h.shape[k];
    long double want = r * c * size, have = (long double)st.st_size - offset;
    if (rc == CS_OK && want > have)
        rc = cs_fail(err, CS_EINVAL, "%s: truncated: %.0Lf of %.0Lf data bytes", path,
                     have < 0 ? 0.0L : have, want);
    else if (rc == CS_OK && want < have)
        rc = cs_fail(err, CS_EINVAL, "%s: %.0Lf bytes after the data", path, have - want);
    else if (rc == CS_OK && (want == 0 || r * c * 4 > (long double)CS_MEMORY_BUDGET))
        rc = cs_fail(err, want == 0 ? CS_EDIM : CS_ENOMEM, "%s: %s", path,
                     want == 0 ? "an empty array" : "larger than the memory budget");
    size_t n = rc == CS_OK ? (size_t)(r * c) : 0;
    float *out = rc == CS_OK ? malloc(n * sizeof *out) : NULL;
    if (rc == CS_OK && !out)
        rc = cs_fail(err, CS_ENOMEM, "%s: out of memory", path);
    enum { PIECE = 4096 };
    unsigned char buf[PIECE * 8];
    for (size_t k = 0; rc == CS_OK && k < n;) {
        size_t m = n - k < PIECE ? n - k : PIECE;
        if (!read_exact(f, buf, m * (size_t)size))
            rc = cs_fail(err, CS_EIO, "%s: read error: %s", path,
                         ferror(f) ? strerror(errno) : "the file shrank");
        for (size_t t = 0; rc == CS_OK && t < m; t++, k++)
            out[k] = (float)decode(buf + t * (size_t)size, size, big);
    }
    fclose(f);
    if (rc) {
        free(out);
        return rc;
    }
    *data = out;
    *rows = (size_t)r;
    *cols = (size_t)c;
    if (ndim)
        *ndim = h.ndim;
    return CS_OK;
}

int cs_npy_write_array(const char *path, const cs_array *a, unsigned flags, cs_err *err)
{
    char head[256];
    int w = a->cols == 1
        ? snprintf(head, sizeof head, "{'descr': '<f8', 'fortran_order': False, 'shape': (%zu,), }",
                   a->rows)
        : snprintf(head, sizeof head, "{'descr': '<f8', 'fortran_order': False, 'shape': (%zu, "
                   "%zu), }", a->rows, a->cols);
    /* spaces and a newline up to a multiple of 64 bytes, as numpy aligns */
    size_t hlen = (size_t)w;
    while ((10 + hlen + 1) % 64)
        head[hlen++] = ' ';
    head[hlen++] = '\n';
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    cs_afile af;
    int rc = cs_array_out_open(&af, path, flags, err);
    if (rc)
        return rc;
    rc = cs_afile_write(&af, pre, sizeof pre, err);
    if (rc == CS_OK)
        rc = cs_afile_write(&af, head, hlen, err);
    enum { PIECE = 4096 };
    unsigned char buf[PIECE * 8];
    size_t n = a->rows * a->cols;
    for (size_t k = 0; k < n && rc == CS_OK;) {
        size_t m = n - k < PIECE ? n - k : PIECE;
        for (size_t t = 0; t < m; t++, k++) {
            uint64_t u;
            memcpy(&u, &a->data[k], sizeof u);
            for (int b = 0; b < 8; b++)
                buf[8 * t + (size_t)b] = (unsigned char)(u >> (8 * b));
        }
        rc = cs_afile_write(&af, buf, m * 8, err);
    }
    return cs_array_out_close(&af, rc, err);
}
