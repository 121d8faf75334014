/* nn_util.c — see nn_util.h. */
#include "nn_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
    cs_nn_data d;
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
