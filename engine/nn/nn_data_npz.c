/* nn_data_npz.c — a NumPy .npz data set (x_train, y_train, x_test,
 * y_test) as the networks' 8-bit images (NCHW, whatever the file's layout)
 * and labels, with their shape and class count (cs_nn.h). */
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
    if (dims[3] < 1 || dims[3] > CS_NN_MAX_CHANNELS || dims[1] < 1 ||
        dims[1] > CS_NN_MAX_SIDE || dims[2] < 1 || dims[2] > CS_NN_MAX_SIDE)
        return cs_fail(err, CS_EDIM, "%s: %s has shape %s, read as %s: %zu×%zu images with %zu "
                       "channel%s; the networks take 1 to %d channels and sides of 1 to %d "
                       "pixels%s", path, x->name, sh, lay, dims[1], dims[2], dims[3],
                       dims[3] == 1 ? "" : "s", CS_NN_MAX_CHANNELS, CS_NN_MAX_SIDE,
                       x->ndim == 4 ? " (layout=nhwc|nchw says which axis is C)" : "");
    if (dims[0] == 0)
        return cs_fail(err, CS_EDIM, "%s: %s has no images (an empty split)", path, x->name);
    return CS_OK;
}

/* The splits agree on C, H and W: x's dims against the other split's
 * images o, read with the same layout (o missing or malformed: refused
 * when that split is read). */
static int same_shape(const cs_npz_array *x, const size_t dims[4], const cs_npz_array *o,
                      const char *path, cs_nn_layout layout, cs_err *err)
{
    size_t od[4];
    cs_err ignore;
    if (!o || image_dims(o, path, layout, od, &ignore) ||
        (od[1] == dims[1] && od[2] == dims[2] && od[3] == dims[3]))
        return CS_OK;
    char a[128], b[128];
    shape_text(x, a, sizeof a);
    shape_text(o, b, sizeof b);
    return cs_fail(err, CS_EDIM, "%s: the splits' images differ: %s has shape %s (C×H×W "
                   "%zu×%zu×%zu), %s has shape %s (%zu×%zu×%zu)", path, x->name, a, dims[3],
                   dims[1], dims[2], o->name, b, od[3], od[1], od[2]);
}

/* x's pixels as bytes in NCHW order: uint8 as they are; float32 in 0..1
 * times 255, else in 0..255, rounded (the networks read 8-bit images). */
static int to_bytes(const cs_npz_array *x, const char *path, const size_t dims[4],
                    int nhwc, uint8_t *out, cs_err *err)
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
    size_t C = dims[3], HW = dims[1] * dims[2];
    if (!nhwc || C == 1) {   /* already channel by channel */
        for (size_t i = 0; i < x->n; i++)
            out[i] = (uint8_t)lrint(x->v[i] * scale);
        return CS_OK;
    }
    for (size_t n = 0; n < dims[0]; n++)   /* pixel p's channel c to plane c */
        for (size_t p = 0; p < HW; p++)
            for (size_t c = 0; c < C; c++)
                out[(n * C + c) * HW + p] = (uint8_t)lrint(x->v[(n * HW + p) * C + c] * scale);
    return CS_OK;
}

/* y: n integer labels below CS_NN_MAX_CLASSES (N or N×1) */
static int check_labels(const cs_npz_array *y, const char *path, size_t n, cs_err *err)
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
    for (size_t i = 0; i < n; i++)
        if (!(y->v[i] >= 0 && y->v[i] < CS_NN_MAX_CLASSES))
            return cs_fail(err, CS_EINVAL, "%s: %s[%zu] = %g is not a class 0..%d", path,
                           y->name, i, y->v[i], CS_NN_MAX_CLASSES - 1);
    return CS_OK;
}

/* The largest label + 1 of y (0 when y is missing or not labels: refused
 * when that split is read). */
static int classes_of(const cs_npz_array *y)
{
    int k = 0;
    for (size_t i = 0; y && i < y->n; i++)
        if (y->v[i] >= 0 && y->v[i] < CS_NN_MAX_CLASSES && y->v[i] + 1 > k)
            k = (int)y->v[i] + 1;
    return k;
}

int cs_nn_data_load_npz(cs_nn_data *d, const char *path, const char *split, size_t limit,
                        cs_nn_layout layout, cs_err *err)
{
    memset(d, 0, sizeof *d);
    int train = !strcmp(split, "train");
    const char *part = train ? "train" : "test", *other = train ? "test" : "train";
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
    char xn[16], yn[16], xo[16], yo[16];
    snprintf(xn, sizeof xn, "x_%s", part);
    snprintf(yn, sizeof yn, "y_%s", part);
    snprintf(xo, sizeof xo, "x_%s", other);
    snprintf(yo, sizeof yo, "y_%s", other);
    const cs_npz_array *x = cs_npz_find(a, na, xn), *y = cs_npz_find(a, na, yn);
    size_t dims[4] = {0};
    if (!x || !y)
        rc = cs_fail(err, CS_EINVAL, "%s: no %s (an .npz data set holds x_train, y_train, "
                     "x_test and y_test)", path, !x ? xn : yn);
    if (!rc)
        rc = image_dims(x, path, layout, dims, err);
    if (!rc)
        rc = same_shape(x, dims, cs_npz_find(a, na, xo), path, layout, err);
    if (!rc) {
        d->images = malloc(x->n);
        d->labels = malloc(dims[0]);
        if (!d->images || !d->labels)
            rc = cs_fail(err, CS_ENOMEM, "%s: out of memory for %zu images", path, dims[0]);
    }
    if (!rc)
        rc = to_bytes(x, path, dims, x->ndim == 4 && layout == CS_NN_NHWC, d->images, err);
    if (!rc)
        rc = check_labels(y, path, dims[0], err);
    if (!rc) {
        for (size_t i = 0; i < dims[0]; i++)
            d->labels[i] = (uint8_t)y->v[i];
        int k = classes_of(y), ko = classes_of(cs_npz_find(a, na, yo));
        d->classes = k > ko ? k : ko;
    }
    cs_npz_free(a, na);
    if (rc) {
        free(d->images);
        free(d->labels);
        memset(d, 0, sizeof *d);
        return rc;
    }
    d->n = dims[0];
    d->c = (int)dims[3];
    d->h = (int)dims[1];
    d->w = (int)dims[2];
    if (limit > 0 && limit < d->n)
        d->n = limit;
    return CS_OK;
}
