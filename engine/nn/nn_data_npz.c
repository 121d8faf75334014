/* nn_data_npz.c — a NumPy .npz data set (x_train, y_train, x_test,
 * y_test) as the networks' 8-bit images and labels (cs_nn.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_nn.h"
#include "cs_npz.h"

/* The largest archive read whole: 2 GiB; each array at most 2^28 elements
 * (read as doubles: 2 GiB). */
#define NPZ_DATA_ELEMS ((size_t)1 << 28)

int cs_nn_data_is_npz(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && !strcmp(path + n - 4, ".npz");
}


static const char *dtype_name(cs_npz_dtype t)
{
    static const char *const names[] = {"float32", "int64", "int32", "int8", "float64", "uint8"};
    return names[t];
}

/* "(60000, 28, 28, 1)", as NumPy prints a shape */
static void shape_text(const cs_npz_array *a, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < a->ndim && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%zu", i ? ", " : "", a->shape[i]);
    if (used < len)   /* as Python writes a tuple: (100,) */
        snprintf(buf + used, len - used, "%s)", a->ndim == 1 ? "," : "");
}

/* N, H, W, C of x as the layout reads it; an error names the shape. */
static int image_dims(const cs_npz_array *x, const char *path, cs_nn_layout layout,
                      size_t dims[4], cs_err *err)
{
    char sh[128];
    shape_text(x, sh, sizeof sh);
    const char *lay = layout == CS_NN_NCHW ? "N×C×H×W (layout=nchw)" : "N×H×W×C (layout=nhwc)";
    if (x->ndim == 3) {
        dims[0] = x->shape[0], dims[1] = x->shape[1], dims[2] = x->shape[2], dims[3] = 1;
        lay = "N×H×W";
    } else if (x->ndim == 4 && layout == CS_NN_NHWC) {
        dims[0] = x->shape[0], dims[1] = x->shape[1], dims[2] = x->shape[2];
        dims[3] = x->shape[3];
    } else if (x->ndim == 4) {
        dims[0] = x->shape[0], dims[3] = x->shape[1], dims[1] = x->shape[2];
        dims[2] = x->shape[3];
    } else {
        return cs_fail(err, CS_EDIM, "%s: %s has shape %s: expected N×H×W, N×H×W×C or N×C×H×W",
                       path, x->name, sh);
    }
    if (dims[1] != CS_NN_IMG || dims[2] != CS_NN_IMG || dims[3] != 1)
        return cs_fail(err, CS_EDIM, "%s: %s has shape %s, read as %s: %zu×%zu images with %zu "
                       "channel%s; the networks take 28×28 images with 1 channel%s", path,
                       x->name, sh, lay, dims[1], dims[2], dims[3], dims[3] == 1 ? "" : "s",
                       x->ndim == 4 ? " (layout=nhwc|nchw says which axis is C)" : "");
    if (dims[0] == 0)
        return cs_fail(err, CS_EDIM, "%s: %s has no images (an empty split)", path, x->name);
    return CS_OK;
}

/* x's pixels as bytes: uint8 as they are; float32 in 0..1 times 255, else
 * in 0..255, rounded (the networks read 8-bit images). */
static int to_bytes(const cs_npz_array *x, const char *path, uint8_t *out, cs_err *err)
{
    if (x->dtype != CS_NPZ_U8 && x->dtype != CS_NPZ_F32)
        return cs_fail(err, CS_EINVAL, "%s: %s is %s: expected uint8 or float32 images", path,
                       x->name, dtype_name(x->dtype));
    double hi = 0;
    for (size_t i = 0; i < x->n; i++) {
        double v = x->v[i];
        if (!(v >= 0 && v <= 255))
            return cs_fail(err, CS_EINVAL, "%s: %s[%zu] = %g is outside 0..255", path, x->name,
                           i, v);
        hi = v > hi ? v : hi;
    }
    double scale = x->dtype == CS_NPZ_F32 && hi <= 1 ? 255 : 1;
    for (size_t i = 0; i < x->n; i++)
        out[i] = (uint8_t)lrint(x->v[i] * scale);
    return CS_OK;
}

/* y: n integer labels 0..9 (N or N×1) */
static int to_labels(const cs_npz_array *y, const char *path, size_t n, uint8_t *out,
                     cs_err *err)
{
    if (y->dtype == CS_NPZ_F32 || y->dtype == CS_NPZ_F64)
        return cs_fail(err, CS_EINVAL, "%s: %s is %s: expected integer class labels", path,
                       y->name, dtype_name(y->dtype));
    if (y->ndim < 1 || y->ndim > 2 || (y->ndim == 2 && y->shape[1] != 1) || y->shape[0] != n) {
        char sh[128];
        shape_text(y, sh, sizeof sh);
        return cs_fail(err, CS_EDIM, "%s: %s has shape %s but there are %zu images: expected "
                       "(%zu,)", path, y->name, sh, n, n);
    }
    for (size_t i = 0; i < n; i++) {
        if (!(y->v[i] >= 0 && y->v[i] < CS_NN_CLASSES))
            return cs_fail(err, CS_EINVAL, "%s: %s[%zu] = %g is not a class 0..9", path,
                           y->name, i, y->v[i]);
        out[i] = (uint8_t)y->v[i];
    }
    return CS_OK;
}

int cs_nn_data_load_npz(cs_nn_data *d, const char *path, const char *split, size_t limit,
                        cs_nn_layout layout, cs_err *err)
{
    memset(d, 0, sizeof *d);
    const char *part = !strcmp(split, "train") ? "train" : "test";
    unsigned char *buf = NULL;
    size_t len = 0;
    int rc = cs_npz_load_file(path, &buf, &len, err);
    if (rc)
        return rc;
    cs_npz_array *a = NULL;
    size_t na = 0;
    rc = cs_npz_read(buf, len, path, NPZ_DATA_ELEMS, &a, &na, err);
    free(buf);
    if (rc)
        return rc;
    char xn[16], yn[16];
    snprintf(xn, sizeof xn, "x_%s", part);
    snprintf(yn, sizeof yn, "y_%s", part);
    const cs_npz_array *x = cs_npz_find(a, na, xn), *y = cs_npz_find(a, na, yn);
    size_t dims[4] = {0};
    if (!x || !y)
        rc = cs_fail(err, CS_EINVAL, "%s: no %s (an .npz data set holds x_train, y_train, "
                     "x_test and y_test)", path, !x ? xn : yn);
    if (!rc)
        rc = image_dims(x, path, layout, dims, err);
    if (!rc) {
        d->images = malloc(x->n);
        d->labels = malloc(dims[0]);
        if (!d->images || !d->labels)
            rc = cs_fail(err, CS_ENOMEM, "%s: out of memory for %zu images", path, dims[0]);
    }
    if (!rc)
        rc = to_bytes(x, path, d->images, err);
    if (!rc)
        rc = to_labels(y, path, dims[0], d->labels, err);
    cs_npz_free(a, na);
    if (rc) {
        free(d->images);
        free(d->labels);
        memset(d, 0, sizeof *d);
        return rc;
    }
    d->n = dims[0];
    if (limit > 0 && limit < d->n)
        d->n = limit;
    return CS_OK;
}
