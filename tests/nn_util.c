/* nn_util.c — see nn_util.h. */
#include "nn_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_npz.h"

const cs_nn_ops *cpu = &cs_nn_cpu_ops;

void fill(float *x, size_t n, cs_rng *r, double sd)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(sd * cs_rng_normal(r));
}

/* max |a-b| / max(max|b|, floor) */
double rel_err(const float *a, const float *b, size_t n, double floor)
{
    double e = 0, m = floor;
    for (size_t i = 0; i < n; i++) {
        if (fabs((double)a[i] - b[i]) > e)
            e = fabs((double)a[i] - b[i]);
        if (fabs((double)b[i]) > m)
            m = fabs((double)b[i]);
    }
    return e / m;
}

cs_nn_data nn_synth(size_t n, uint64_t seed)
{
    cs_nn_data d = {0};   /* the default shape: 1×28×28, 10 classes */
    d.n = n;
    d.images = malloc(n * CS_NN_PIXELS);
    d.labels = malloc(n);
    cs_rng r;
    cs_rng_init(&r, seed, 0);
    for (size_t i = 0; i < n; i++) {
        int y = (int)(i % CS_NN_CLASSES);
        d.labels[i] = (uint8_t)y;
        for (int p = 0; p < CS_NN_PIXELS; p++)   /* class = a bright band */
            d.images[i * CS_NN_PIXELS + p] =
                (uint8_t)((p / 28) / 3 == y ? 200 + cs_rng_below(&r, 55) : cs_rng_below(&r, 60));
    }
    return d;
}

cs_nn *nn_tiny(cs_nn_kind kind, uint64_t seed)
{
    cs_nn_config cfg = {.kind = kind, .seed = seed, .nhidden = 1};
    cfg.hidden[0] = kind == CS_NN_MLP ? 16 : 8;
    if (kind == CS_NN_MLP) {
        cfg.nhidden = 2;
        cfg.hidden[1] = 12;
    }
    cs_nn *nn;
    cs_err err;
    if (cs_nn_new(&nn, &cfg, &err)) {
        fprintf(stderr, "nn_tiny: %s\n", err.msg);
        abort();
    }
    return nn;
}

cs_nn_data nn_synth_shape(size_t n, int C, int H, int W, int K, uint64_t seed)
{
    cs_nn_data d = {.n = n, .c = C, .h = H, .w = W, .classes = K};
    size_t plane = (size_t)H * W, isz = (size_t)C * plane;
    d.images = malloc(n * isz);
    d.labels = malloc(n);
    cs_rng r;
    cs_rng_init(&r, seed, 0);
    for (size_t i = 0; i < n; i++) {
        int y = (int)(i % (size_t)K), lo = y * H / K, hi = (y + 1) * H / K;
        d.labels[i] = (uint8_t)y;
        for (int c = 0; c < C; c++)
            for (size_t p = 0; p < plane; p++) {
                int row = (int)(p / (size_t)W), lit = c == y % C && row >= lo && row < hi;
                d.images[i * isz + (size_t)c * plane + p] =
                    (uint8_t)(lit ? 180 + cs_rng_below(&r, 75) : 20 * c + cs_rng_below(&r, 60));
            }
    }
    return d;
}

/* d's images in the file's order: NCHW as they are, else each pixel's
 * channels together (malloc'd) */
static uint8_t *file_order(const cs_nn_data *d, int nchw)
{
    size_t plane = (size_t)d->h * d->w, isz = (size_t)d->c * plane;
    uint8_t *x = malloc(d->n * isz);
    for (size_t i = 0; x && i < d->n; i++)
        for (int c = 0; c < d->c; c++)
            for (size_t p = 0; p < plane; p++)
                x[i * isz + (nchw ? (size_t)c * plane + p : p * (size_t)d->c + (size_t)c)] =
                    d->images[i * isz + (size_t)c * plane + p];
    return x;
}

int nn_write_npz(const char *path, const cs_nn_data *train, const cs_nn_data *test, int nchw,
                 cs_err *err)
{
    cs_zip_writer z = {0};
    const cs_nn_data *sets[2] = {train, test};
    const char *xn[2] = {"x_train", "x_test"}, *yn[2] = {"y_train", "y_test"};
    uint8_t *x[2] = {NULL, NULL};
    for (int s = 0; s < 2; s++) {
        const cs_nn_data *d = sets[s];
        size_t shape[4] = {d->n, nchw ? (size_t)d->c : (size_t)d->h,
                           nchw ? (size_t)d->h : (size_t)d->w, nchw ? (size_t)d->w : (size_t)d->c};
        x[s] = file_order(d, nchw);
        cs_npz_put(&z, xn[s], CS_NPZ_U8, shape, 4, x[s]);
        cs_npz_put(&z, yn[s], CS_NPZ_U8, &d->n, 1, d->labels);
    }
    const unsigned char *bytes;
    size_t n;
    int rc = cs_zip_finish(&z, &bytes, &n, err);
    FILE *f = rc ? NULL : fopen(path, "wb");
    if (!rc && (!f || fwrite(bytes, 1, n, f) != n))
        rc = cs_fail(err, CS_EIO, "%s: cannot write", path);
    if (f)
        fclose(f);
    cs_zip_writer_free(&z);
    free(x[0]);
    free(x[1]);
    return rc;
}
