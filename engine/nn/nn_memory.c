/* nn_memory.c — what a network takes in memory, estimated from its shapes
 * (nn_plan) before anything is allocated, and the budget it is held to. */
#include <stdlib.h>
#include <string.h>

#include "cs_limits.h"
#include "nn_internal.h"

void nn_batch_shape(const cs_nn *nn, int B, size_t *dmax, size_t *scratch)
{
    *dmax = (size_t)nn->in_c * nn->in_h * nn->in_w;
    *scratch = 1;
    for (int i = 0; i < nn->nlayers; i++) {
        const nn_layer *l = &nn->layer[i];
        if (l->out_sz > *dmax)
            *dmax = l->out_sz;
        size_t sc = nn_conv_plain(l) ? CS_NN_CONV_SCRATCH(B, l->C, l->H, l->W, l->OC)
                                     : CS_NN_CONVK_SCRATCH(B, l->C, l->H, l->W, l->OC, l->k);
        if (l->type == NN_CONV && sc > *scratch)
            *scratch = sc;
    }
}

/* Bytes, in double: the sizes can pass size_t's range before the budget. */
static void memory_of(const cs_nn *nn, int B, size_t snapshots, cs_nn_memory *m)
{
    const double f = sizeof(float), b = (double)B;
    double P = (double)nn->nparams, rc = (double)nn->maxrows * (double)nn->maxcols;
    memset(m, 0, sizeof *m);
    m->params = cs_nn_param_count(nn);
    /* params, grads and Adam's m and v on the device, the initial copy on
     * the host while building; the regularizer's and the snapshots'
     * row-by-column scratch (device and host); BN statistics */
    m->state = 5.0 * P * f + 2.0 * rc * f + 2.0 * (double)nn->nbufs * f +
               (double)nn->maxrows * 16.0 + (double)nn->maxcols * 16.0;
    /* training's sign bitmaps of the weights (flip counts), two of them */
    m->state += 2.0 * (double)nn->snap_n;
    size_t dmax, scratch;
    nn_batch_shape(nn, B, &dmax, &scratch);
    double act = 0.0;
    for (int i = 0; i < nn->nlayers; i++)
        act += (double)nn->layer[i].out_sz * (nn->layer[i].type == NN_POOL ? 2.0 : 1.0);
    /* the input and its host copy; a residual network's shortcut gradient */
    double pixels = (double)nn->in_c * nn->in_h * nn->in_w, skips = nn_has_skips(nn) ? (double)dmax : 0.0;
    m->batch = b * f * (act + 2.0 * pixels + 4.0 * nn->classes + 4.0 + 2.0 * (double)dmax +
                        skips) +
               (double)scratch * f;
    m->snapshots = (double)snapshots * (double)nn->snap_n * f;
    m->total = m->state + m->batch + m->snapshots;
}

int nn_check_budget(const cs_nn *nn, int B, size_t snapshots, cs_err *err)
{
    cs_nn_memory m;
    memory_of(nn, B, snapshots, &m);
    if (m.total <= CS_MEMORY_BUDGET)
        return CS_OK;
    char desc[160];
    cs_nn_describe(nn, desc, sizeof desc);
    int by_batch = m.state + m.snapshots <= CS_MEMORY_BUDGET;
    return cs_fail_key(err, CS_ENOMEM, by_batch ? "batch" : "hidden",
                       "%s would need about %.1f GiB, over the %.0f GiB memory budget for "
                       "networks: %zu parameters (%.1f GiB for the weights, their gradients, "
                       "Adam's moments and scratch), %.1f GiB for batches of %d, %.1f GiB for "
                       "%zu weight snapshots", desc, m.total / CS_GIB, CS_MEMORY_BUDGET / CS_GIB,
                       m.params, m.state / CS_GIB, m.batch / CS_GIB, B, m.snapshots / CS_GIB,
                       snapshots);
}

cs_nn *nn_planned(const cs_nn_config *cfg, int batch, cs_err *err)
{
    if (batch < 1 || batch > 4096) {
        cs_fail_key(err, CS_EINVAL, "batch", "batch=%d out of range 1..4096", batch);
        return NULL;
    }
    cs_nn *nn = calloc(1, sizeof *nn);
    if (!nn)
        cs_fail(err, CS_ENOMEM, "out of memory");
    else if (nn_plan(nn, cfg, err)) {
        free(nn);
        nn = NULL;
    }
    return nn;
}

int cs_nn_estimate(const cs_nn_config *cfg, int batch, size_t snapshots, cs_nn_memory *m,
                   cs_err *err)
{
    cs_nn *nn = nn_planned(cfg, batch, err);
    if (!nn)
        return err ? err->code : CS_EINVAL;
    memory_of(nn, batch, snapshots, m);
    free(nn);
    return CS_OK;
}

int cs_nn_check_memory(const cs_nn_config *cfg, int batch, size_t snapshots, cs_err *err)
{
    cs_nn *nn = nn_planned(cfg, batch, err);
    if (!nn)
        return err ? err->code : CS_EINVAL;
    int rc = nn_check_budget(nn, batch, snapshots, err);
    free(nn);
    return rc;
}
