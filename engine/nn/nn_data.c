/* nn_data.c — MNIST-format IDX files (gzip'd or plain, read with zlib):
 * images of any size within CS_NN_MAX_SIDE, one channel; the class count
 * from the labels of both splits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "cs_nn.h"

/* Largest file we accept: 1 GiB of payload. */
#define IDX_MAX_BYTES ((uint64_t)1 << 30)
/* deflate's best ratio is 1032:1: a gzip file of n bytes holds at most
 * about 1032 n (the slack: headers, a tiny file) */
#define GZ_MAX_RATIO 1032u
#define GZ_SLACK 4096u

/* The most payload bytes the file at path can hold: a gzip bomb, or a
 * header that declares more than the file has, is refused before the
 * buffer is allocated. */
static uint64_t payload_bound(const char *path, int *gz)
{
    *gz = 0;
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (!f || fstat(fileno(f), &st) != 0) {
        if (f)
            fclose(f);
        return IDX_MAX_BYTES;
    }
    unsigned char m[2] = {0, 0};
    size_t got = fread(m, 1, 2, f);
    fclose(f);
    uint64_t size = (uint64_t)st.st_size;
    *gz = got == 2 && m[0] == 0x1f && m[1] == 0x8b;
    if (*gz)
        return size * GZ_MAX_RATIO + GZ_SLACK;
    return size;
}

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
            rc = i == 0 ? cs_fail(err, CS_EDIM, "%s: no %s (an empty split: the header's count "
                                  "is 0)", path, want_ndim == 1 ? "labels" : "images")
                        : cs_fail(err, CS_EDIM, "%s: dimension %d is 0", path, i + 1);
            goto fail;
        }
        total *= dims[i];
        if (total > IDX_MAX_BYTES) {
            rc = cs_fail(err, CS_EDIM, "%s: implausible dimensions (more than %llu bytes)", path,
                         (unsigned long long)IDX_MAX_BYTES);
            goto fail;
        }
    }
    int gz;
    uint64_t bound = payload_bound(path, &gz);
    if (total > bound) {
        rc = gz ? cs_fail(err, CS_EINVAL, "%s: the header declares %llu bytes of %s, more than "
                          "a gzip file of this size can hold (%llu): a gzip bomb or a corrupt "
                          "header", path, (unsigned long long)total,
                          want_ndim == 1 ? "labels" : "images", (unsigned long long)bound)
                : cs_fail(err, CS_EIO, "%s: truncated: the %s need %llu bytes, the file has "
                          "%llu", path, want_ndim == 1 ? "labels" : "images",
                          (unsigned long long)total, (unsigned long long)bound);
        goto fail;
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

int cs_nn_data_files(const char *dir, const char *split, char files[2][4200], cs_err *err)
{
    char name[64];
    if (cs_nn_data_is_npz(dir)) {   /* one file holds both splits */
        FILE *f = fopen(dir, "rb");
        if (!f)
            return cs_fail(err, CS_EIO, "%s: cannot open (%s)", dir,
                           strerror(errno ? errno : ENOENT));
        fclose(f);
        snprintf(files[0], sizeof files[0], "%s", dir);
        files[1][0] = '\0';
        return CS_OK;
    }
    snprintf(name, sizeof name, "%s-images-idx3-ubyte", split);
    int rc = find_file(files[0], sizeof files[0], dir, name, err);
    if (rc)
        return rc;
    snprintf(name, sizeof name, "%s-labels-idx1-ubyte", split);
    return find_file(files[1], sizeof files[1], dir, name, err);
}

/* The largest label + 1 of n labels. */
static int classes_of(const uint8_t *lab, size_t n)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k = lab[i] >= k ? lab[i] + 1 : k;
    return k;
}

/* The class count of the other split's labels file in dir (0 when it is
 * not there or not readable: this split's count stands). */
static int other_classes(const char *dir, const char *split)
{
    char path[4200], name[64];
    cs_err ignore;
    snprintf(name, sizeof name, "%s-labels-idx1-ubyte", strcmp(split, "train") ? "train" : "t10k");
    if (find_file(path, sizeof path, dir, name, &ignore))
        return 0;
    uint8_t *lab = NULL;
    uint32_t dims[3];
    if (cs_idx_read(path, 1, &lab, dims, &ignore))
        return 0;
    int k = classes_of(lab, dims[0]);
    free(lab);
    return k;
}

int cs_nn_data_load(cs_nn_data *d, const char *dir, const char *split, size_t limit,
                    cs_err *err)
{
    memset(d, 0, sizeof *d);
    if (cs_nn_data_is_npz(dir))
        return cs_nn_data_load_npz(d, dir, split, limit, CS_NN_NHWC, err);
    char files[2][4200];
    int rc = cs_nn_data_files(dir, split, files, err);
    if (rc)
        return rc;
    const char *ipath = files[0], *lpath = files[1];
    uint32_t idims[3], ldims[3];
    uint8_t *img = NULL, *lab = NULL;
    rc = cs_idx_read(ipath, 3, &img, idims, err);
    if (rc)
        return rc;
    if (idims[1] > CS_NN_MAX_SIDE || idims[2] > CS_NN_MAX_SIDE) {
        free(img);
        return cs_fail(err, CS_EDIM, "%s: images are %ux%u, at most %dx%d are taken",
                       base_name(ipath), idims[1], idims[2], CS_NN_MAX_SIDE, CS_NN_MAX_SIDE);
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
    /* labels are bytes: any is a class below CS_NN_MAX_CLASSES */
    int k = classes_of(lab, ldims[0]), ko = other_classes(dir, split);
    d->images = img;
    d->labels = lab;
    d->n = idims[0];
    d->c = 1;
    d->h = (int)idims[1];
    d->w = (int)idims[2];
    d->classes = k > ko ? k : ko;
    if (limit > 0 && limit < d->n)
        d->n = limit;
    return CS_OK;
}

void cs_nn_data_shape(const cs_nn_data *d, int *c, int *h, int *w, int *classes)
{
    if (c)
        *c = d->c ? d->c : 1;
    if (h)
        *h = d->h ? d->h : CS_NN_IMG;
    if (w)
        *w = d->w ? d->w : CS_NN_IMG;
    if (classes)
        *classes = d->classes ? d->classes : CS_NN_CLASSES;
}

void cs_nn_data_free(cs_nn_data *d)
{
    if (!d)
        return;
    free(d->images);
    free(d->labels);
    memset(d, 0, sizeof *d);
}
