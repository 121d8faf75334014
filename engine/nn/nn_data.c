/* nn_data.c — MNIST-format IDX files (gzip'd or plain, read with zlib). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cs_nn.h"

/* Largest file we accept: 1 GiB of payload. */
#define IDX_MAX_BYTES ((uint64_t)1 << 30)

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Read exactly n bytes; a short read is truncation or corruption. */
static int read_exact(gzFile f, const char *path, void *buf, size_t n, const char *what,
                      cs_err *err)
{
    size_t got = 0;
    unsigned char *p = buf;
    while (got < n) {
        size_t want = n - got > (1u << 30) ? (1u << 30) : n - got;
        int r = gzread(f, p + got, (unsigned)want);
        if (r < 0) {
            int zerr;
            const char *msg = gzerror(f, &zerr);
            return cs_fail(err, CS_EIO, "%s: corrupt gzip data while reading the %s (%s)", path,
                           what, msg ? msg : "zlib error");
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    if (got < n) {
        int zerr = Z_OK;
        const char *msg = gzerror(f, &zerr);
        if (zerr != Z_OK && zerr != Z_BUF_ERROR)
            return cs_fail(err, CS_EIO, "%s: corrupt gzip data while reading the %s (%s)", path,
                           what, msg);
        return cs_fail(err, CS_EIO, "%s: truncated: the %s needs %zu bytes, the file has %zu",
                       path, what, n, got);
    }
    return CS_OK;
}

int cs_idx_read(const char *path, int want_ndim, uint8_t **data, uint32_t dims[3], cs_err *err)
{
    *data = NULL;
    dims[0] = dims[1] = dims[2] = 0;
    if (want_ndim < 1 || want_ndim > 3)
        return cs_fail(err, CS_EINVAL, "%s: unsupported IDX rank %d", path, want_ndim);
    gzFile f = gzopen(path, "rb");
    if (!f)
        return cs_fail(err, CS_EIO, "%s: cannot open (%s)", path, strerror(errno ? errno : ENOENT));
    unsigned char hdr[4];
    int rc = read_exact(f, path, hdr, 4, "header", err);
    if (rc)
        goto fail;
    if (hdr[0] != 0 || hdr[1] != 0 || hdr[2] != 0x08 || hdr[3] != (unsigned)want_ndim) {
        rc = cs_fail(err, CS_EINVAL,
                     "%s: bad magic number %02x%02x%02x%02x (expected 0000080%d: unsigned bytes, "
                     "%d dimension%s)",
                     path, hdr[0], hdr[1], hdr[2], hdr[3], want_ndim, want_ndim,
                     want_ndim > 1 ? "s" : "");
        goto fail;
    }
    uint64_t total = 1;
    for (int i = 0; i < want_ndim; i++) {
        unsigned char b[4];
        rc = read_exact(f, path, b, 4, "header", err);
        if (rc)
            goto fail;
        dims[i] = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
        if (dims[i] == 0) {
            rc = cs_fail(err, CS_EDIM, "%s: dimension %d is 0", path, i + 1);
            goto fail;
        }
        total *= dims[i];
        if (total > IDX_MAX_BYTES) {
            rc = cs_fail(err, CS_EDIM, "%s: implausible dimensions (more than %llu bytes)", path,
                         (unsigned long long)IDX_MAX_BYTES);
            goto fail;
        }
    }
    *data = malloc((size_t)total);
    if (!*data) {
        rc = cs_fail(err, CS_ENOMEM, "%s: out of memory for %llu bytes", path,
                     (unsigned long long)total);
        goto fail;
    }
    rc = read_exact(f, path, *data, (size_t)total, want_ndim == 1 ? "labels" : "images", err);
    if (rc)
        goto fail;
    unsigned char extra;
    int r = gzread(f, &extra, 1);
    if (r != 0) {
        rc = r < 0 ? cs_fail(err, CS_EIO, "%s: corrupt gzip data after the payload", path)
                   : cs_fail(err, CS_EINVAL,
                             "%s: trailing data after the %llu bytes the header declares", path,
                             (unsigned long long)total);
        goto fail;
    }
    gzclose(f);
    return CS_OK;
fail:
    free(*data);
    *data = NULL;
    gzclose(f);
    return rc;
}

/* dir/name.gz, else dir/name */
static int find_file(char *buf, size_t len, const char *dir, const char *name, cs_err *err)
{
    int n = snprintf(buf, len, "%s/%s.gz", dir, name);
    if (n < 0 || (size_t)n >= len)
        return cs_fail(err, CS_EINVAL, "data path too long: %s", dir);
    FILE *f = fopen(buf, "rb");
    if (f) {
        fclose(f);
        return CS_OK;
    }
    snprintf(buf, len, "%s/%s", dir, name);
    f = fopen(buf, "rb");
    if (f) {
        fclose(f);
        return CS_OK;
    }
    return cs_fail(err, CS_EIO, "%s: no %s[.gz] there (an MNIST-format IDX folder is expected)",
                   dir, name);
}

int cs_nn_data_load(cs_nn_data *d, const char *dir, const char *split, size_t limit,
                    cs_err *err)
{
    memset(d, 0, sizeof *d);
    char ipath[4200], lpath[4200], name[64];
    snprintf(name, sizeof name, "%s-images-idx3-ubyte", split);
    int rc = find_file(ipath, sizeof ipath, dir, name, err);
    if (rc)
        return rc;
    snprintf(name, sizeof name, "%s-labels-idx1-ubyte", split);
    rc = find_file(lpath, sizeof lpath, dir, name, err);
    if (rc)
        return rc;
    uint32_t idims[3], ldims[3];
    uint8_t *img = NULL, *lab = NULL;
    rc = cs_idx_read(ipath, 3, &img, idims, err);
    if (rc)
        return rc;
    if (idims[1] != CS_NN_IMG || idims[2] != CS_NN_IMG) {
        free(img);
        return cs_fail(err, CS_EDIM, "%s: images are %ux%u, expected 28x28", base_name(ipath),
                       idims[1], idims[2]);
    }
    rc = cs_idx_read(lpath, 1, &lab, ldims, err);
    if (rc) {
        free(img);
        return rc;
    }
    if (ldims[0] != idims[0]) {
        free(img);
        free(lab);
        return cs_fail(err, CS_EDIM, "%s has %u labels but %s has %u images", lpath, ldims[0],
                       ipath, idims[0]);
    }
    for (uint32_t i = 0; i < ldims[0]; i++)
        if (lab[i] >= CS_NN_CLASSES) {
            /* the message first: it reads lab[i] */
            rc = cs_fail(err, CS_EINVAL, "%s: label %u of example %u is not a class 0..9",
                         lpath, lab[i], i);
            free(img);
            free(lab);
            return rc;
        }
    d->images = img;
    d->labels = lab;
    d->n = idims[0];
    if (limit > 0 && limit < d->n)
        d->n = limit;
    return CS_OK;
}

void cs_nn_data_free(cs_nn_data *d)
{
    if (!d)
        return;
    free(d->images);
    free(d->labels);
    memset(d, 0, sizeof *d);
}
