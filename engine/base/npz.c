/* npz.c — see cs_npz.h. A .npy is "\x93NUMPY", version 1.0, a 16-bit
 * header length, a Python dict literal {'descr': ..., 'fortran_order':
 * False, 'shape': (...), } padded with spaces to a multiple of 64 bytes
 * and ended by a newline, then the data. */
#include "cs_npz.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
    const char *descr;
    size_t size;
} dtypes[] = {[CS_NPZ_F32] = {"<f4", 4}, [CS_NPZ_I64] = {"<i8", 8}, [CS_NPZ_I32] = {"<i4", 4},
              [CS_NPZ_I8] = {"|i1", 1},  [CS_NPZ_F64] = {"<f8", 8}, [CS_NPZ_U8] = {"|u1", 1}};

void cs_npz_put(cs_zip_writer *z, const char *name, cs_npz_dtype dtype, const size_t *shape,
                int ndim, const void *data)
{
    char head[512], dims[256] = "";
    size_t n = 1, k = 0;
    for (int i = 0; i < ndim && i < CS_NPZ_MAX_DIMS; i++) {
        k += (size_t)snprintf(dims + k, sizeof dims - k, "%zu,%s", shape[i],
                              i + 1 < ndim ? " " : "");
        n *= shape[i];
    }
    if (ndim > 1)   /* (3,) for one dimension, (3, 4) for two */
        dims[k - 1] = 0;
    int len = snprintf(head + 10, sizeof head - 10,
                       "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                       dtypes[dtype].descr, dims);
    size_t total = 10 + (size_t)len + 1, padded = (total + 63) / 64 * 64;
    memset(head + 10 + len, ' ', padded - total);
    head[padded - 1] = '\n';
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    head[8] = (char)((padded - 10) & 0xff);
    head[9] = (char)((padded - 10) >> 8);
    size_t bytes = n * dtypes[dtype].size;
    unsigned char *entry = malloc(padded + bytes + 1);
    if (!entry) {
        z->out.oom = 1;
        return;
    }
    memcpy(entry, head, padded);
    if (bytes)
        memcpy(entry + padded, data, bytes);   /* little-endian hosts */
    char ename[300];
    snprintf(ename, sizeof ename, "%s.npy", name);
    cs_zip_add(z, ename, entry, padded + bytes);
    free(entry);
}

/* ------------------------------------------------------------------ reading */

/* the value of 'key' in the header dict: after "'key':", spaces skipped */
static const char *field(const char *h, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s':", key);
    const char *p = strstr(h, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    return p;
}

static int parse_header(const char *h, cs_npz_array *a)
{
    const char *d = field(h, "descr"), *f = field(h, "fortran_order"), *s = field(h, "shape");
    if (!d || !f || !s || *s != '(')
        return -1;
    a->dtype = (cs_npz_dtype)-1;
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++) {
        size_t m = strlen(dtypes[i].descr);
        if (d[0] == '\'' && !strncmp(d + 1, dtypes[i].descr, m) && d[1 + m] == '\'')
            a->dtype = (cs_npz_dtype)i;
    }
    if (!strncmp(d, "'|b1'", 5))
        a->dtype = CS_NPZ_U8;
    if ((int)a->dtype < 0)
        return -1;
    a->ndim = 0;
    a->n = 1;
    for (s++; *s != ')';) {
        while (*s == ' ' || *s == ',')
            s++;
        if (*s == ')')
            break;
        char *end;
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s || a->ndim == CS_NPZ_MAX_DIMS || v > ((size_t)1 << 40))
            return -1;
        a->shape[a->ndim++] = (size_t)v;
        a->n *= (size_t)v;
        if (a->n > ((size_t)1 << 40))
            return -1;
        s = end;
    }
    return !strncmp(f, "True", 4) && a->ndim > 1 ? -1 : 0;
}

static double element(const unsigned char *p, cs_npz_dtype t)
{
    uint64_t u = 0;
    for (size_t i = 0; i < dtypes[t].size; i++)
        u |= (uint64_t)p[i] << (8 * i);
    switch (t) {
    case CS_NPZ_F32: {
        uint32_t b = (uint32_t)u;
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    case CS_NPZ_F64: {
        double x;
        memcpy(&x, &u, 8);
        return x;
    }
    case CS_NPZ_I64: return (double)(int64_t)u;
    case CS_NPZ_I32: return (double)(int32_t)(uint32_t)u;
    case CS_NPZ_I8: return (double)(int8_t)(uint8_t)u;
    default: return (double)(uint8_t)u;
    }
}

/* one .npy in memory into a */
static int decode(const unsigned char *p, size_t n, const char *what, size_t limit,
                  cs_npz_array *a, cs_err *err)
{
    if (n < 10 || memcmp(p, "\x93NUMPY", 6) != 0)
        return cs_fail(err, CS_EINVAL, "%s: %s.npy is not a .npy (no magic)", what, a->name);
    size_t hl = p[6] == 1 ? (size_t)p[8] | (size_t)p[9] << 8
                          : (size_t)p[8] | (size_t)p[9] << 8 | (size_t)p[10] << 16 |
                                (size_t)p[11] << 24;
    size_t off = p[6] == 1 ? 10 : 12;
    if (p[6] < 1 || p[6] > 3 || hl > n - off || hl > 65536)
        return cs_fail(err, CS_EINVAL, "%s: %s.npy: bad header", what, a->name);
    char *h = malloc(hl + 1);
    if (!h)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    memcpy(h, p + off, hl);
    h[hl] = 0;
    int bad = parse_header(h, a);
    free(h);
    if (bad)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: %s.npy: a header csreg does not read (dtypes "
                       "float32/64, int8/32/64, uint8, bool; C order)", what, a->name);
    size_t size = dtypes[a->dtype].size;
    if (a->n > limit)
        return cs_fail(err, CS_EINVAL, "%s: %s.npy has %zu elements, over the %zu allowed",
                       what, a->name, a->n, limit);
    if (a->n * size != n - off - hl)
        return cs_fail(err, CS_EINVAL, "%s: %s.npy: %zu data bytes for %zu elements of %zu",
                       what, a->name, n - off - hl, a->n, size);
    a->v = malloc((a->n ? a->n : 1) * sizeof *a->v);
    if (!a->v)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    for (size_t i = 0; i < a->n; i++)
        a->v[i] = element(p + off + hl + i * size, a->dtype);
    return CS_OK;
}

int cs_npz_read(const unsigned char *buf, size_t n, const char *what, size_t limit,
                cs_npz_array **arrays, size_t *count, cs_err *err)
{
    *arrays = NULL;
    *count = 0;
    cs_zip_entry *e;
    size_t ne;
    int rc = cs_zip_list(buf, n, what, &e, &ne, err);
    if (rc)
        return rc;
    cs_npz_array *a = calloc(ne ? ne : 1, sizeof *a);
    size_t k = 0;
    if (!a)
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    for (size_t i = 0; i < ne && !rc; i++) {
        size_t len = strlen(e[i].name);
        if (len < 4 || strcmp(e[i].name + len - 4, ".npy") != 0)
            continue;
        cs_npz_array *x = &a[k];
        memcpy(x->name, e[i].name, len - 4);
        x->name[len - 4] = 0;
        unsigned char *data;
        rc = cs_zip_extract(buf, n, what, &e[i], limit * 8 + 65600, &data, err);
        if (rc)
            break;
        rc = decode(data, e[i].usize, what, limit, x, err);
        free(data);
        k++;
    }
    free(e);
    if (rc) {
        cs_npz_free(a, k);
        return rc;
    }
    *arrays = a;
    *count = k;
    return CS_OK;
}

void cs_npz_free(cs_npz_array *a, size_t count)
{
    for (size_t i = 0; a && i < count; i++)
        free(a[i].v);
    free(a);
}

const cs_npz_array *cs_npz_find(const cs_npz_array *a, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (!strcmp(a[i].name, name))
            return &a[i];
    return NULL;
}

/* (a file's bytes for cs_npz_read: a regular file under 2 GiB) */
#define NPZ_LOAD_MAX ((size_t)1 << 31)

int cs_npz_load_file(const char *path, unsigned char **data, size_t *n, cs_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cs_fail(err, CS_EIO, "%s: cannot open", path);
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > NPZ_LOAD_MAX) {
        fclose(f);
        return cs_fail(err, CS_EINVAL, "%s: not a regular file under 2 GiB", path);
    }
    size_t len = (size_t)st.st_size;
    unsigned char *p = malloc(len ? len : 1);
    if (!p) {
        fclose(f);
        return cs_fail(err, CS_ENOMEM, "out of memory reading %s", path);
    }
    size_t got = fread(p, 1, len, f);
    fclose(f);
    if (got != len) {
        free(p);
        return cs_fail(err, CS_EIO, "%s: read error", path);
    }
    *data = p;
    *n = len;
    return CS_OK;
}
