/* nn_model.c — the network: building it from its plan (nn_plan.c) on its
 * device (nn_device.c), allocating and freeing, the batch buffers'
 * capacity, and accessors. The passes are in nn_pass.c, training in
 * nn_train.c, quantization in nn_quant.c, snapshots and histograms in
 * nn_snapshot.c, checkpoints in nn_io.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_rng.h"
#include "nn_internal.h"

/* ------------------------------------------------------------------ building */

static void init_weights(cs_nn *nn, float *hp, float *hb)
{
    cs_rng rng;
    cs_rng_init(&rng, nn->cfg.seed, 1);
    for (int i = 0; i < nn->nt; i++) {
        nn_tensor *t = &nn->t[i];
        float *p = hp + t->off;
        if (t->kind == NN_T_W) {
            double sd = sqrt(2.0 / (double)nn->wl[t->wl].cols);
            if (t->wl == nn->nwl - 1)
                sd = sqrt(1.0 / (double)nn->wl[t->wl].cols);
            for (size_t k = 0; k < t->n; k++)
                p[k] = (float)(sd * cs_rng_normal(&rng));
        } else if (t->kind == NN_T_GAMMA) {
            for (size_t k = 0; k < t->n; k++)
                p[k] = 1.0f;
        }
    }
    for (int i = 0; i < nn->nlayers; i++) {
        nn_layer *l = &nn->layer[i];
        if (l->type == NN_BN)
            for (int c = 0; c < l->C; c++)
                hb[l->boff + (size_t)l->C + c] = 1.0f;   /* running variance */
    }
}

#define DEV_ALLOC(ptr, bytes)                                                                  \
    do {                                                                                       \
        (ptr) = nn->ops->alloc(bytes);                                                         \
        if (!(ptr))                                                                            \
            goto oom;                                                                          \
    } while (0)

int cs_nn_build(cs_nn **out, const cs_nn_config *cfg, int init, cs_err *err)
{
    *out = NULL;
    char device[8];
    int rc = cs_nn_device_resolve(cfg->device, device, sizeof device, NULL, 0, err);
    if (rc)
        return rc;
    cs_nn *nn = calloc(1, sizeof *nn);
    if (!nn)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    snprintf(nn->device, sizeof nn->device, "%s", device);
    nn->ops = nn_ops_for(nn->device);
    /* the shapes first, then the memory they need against the budget, and
     * only then anything of that size */
    if ((rc = nn_plan(nn, cfg, err)) || (rc = nn_check_budget(nn, NN_PLAN_BATCH, 0, err))) {
        free(nn);
        return rc;
    }
    size_t pb = nn->nparams * sizeof(float);
    DEV_ALLOC(nn->params, pb);
    DEV_ALLOC(nn->grads, pb);
    DEV_ALLOC(nn->m, pb);
    DEV_ALLOC(nn->v, pb);
    DEV_ALLOC(nn->bufs, (nn->nbufs ? nn->nbufs : 1) * sizeof(float));
    for (int i = 0; i < nn->nlayers; i++)
        if (nn->layer[i].type == NN_BN) {
            DEV_ALLOC(nn->layer[i].mean, (size_t)nn->layer[i].C * sizeof(float));
            DEV_ALLOC(nn->layer[i].rstd, (size_t)nn->layer[i].C * sizeof(float));
        }
    DEV_ALLOC(nn->regval, nn->allrows * sizeof(double));
    DEV_ALLOC(nn->regtmp, nn->maxrows * nn->maxcols * sizeof(float));
    nn->hw = malloc(nn->maxrows * nn->maxcols * sizeof(float));
    nn->hregval = malloc(nn->allrows * sizeof(double));
    nn->hd1 = malloc(nn->maxcols * sizeof(double));
    nn->hd2 = malloc(nn->maxcols * sizeof(double));
    if (!nn->hw || !nn->hregval || !nn->hd1 || !nn->hd2)
        goto oom;
    {
        float *hp = calloc(nn->nparams, sizeof *hp);
        float *hb = calloc(nn->nbufs ? nn->nbufs : 1, sizeof *hb);
        if (!hp || !hb) {
            free(hp);
            free(hb);
            goto oom;
        }
        if (init)
            init_weights(nn, hp, hb);
        int r1 = nn->ops->upload(nn->params, hp, pb);
        int r2 = nn->ops->upload(nn->bufs, hb, nn->nbufs * sizeof(float));
        free(hp);
        free(hb);
        if (r1 || r2) {
            cs_nn_free(nn);
            return cs_fail(err, CS_EIO, "%s: copying the initial weights failed", device);
        }
    }
    *out = nn;
    return CS_OK;
oom:
    cs_nn_free(nn);
    return cs_fail(err, CS_ENOMEM, "out of memory (%s) for the network", device);
}

int cs_nn_new(cs_nn **out, const cs_nn_config *cfg, cs_err *err)
{
    return cs_nn_build(out, cfg, 1, err);
}

static void free_batch(cs_nn *nn)
{
    const cs_nn_ops *o = nn->ops;
    for (int i = 0; i < nn->nlayers; i++) {
        o->release(nn->layer[i].out);
        o->release(nn->layer[i].idx);
        nn->layer[i].out = NULL;
        nn->layer[i].idx = NULL;
    }
    void *bufs[] = {nn->x, nn->probs, nn->losses, nn->dlogits, nn->d0, nn->d1, nn->scratch, nn->y,
                    nn->dskip};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        o->release(bufs[i]);
    nn->x = nn->probs = nn->losses = nn->dlogits = nn->d0 = nn->d1 = nn->scratch = NULL;
    nn->dskip = NULL;
    nn->y = NULL;
    free(nn->hx);
    free(nn->hy);
    free(nn->hprobs);
    free(nn->hlosses);
    nn->hx = NULL;
    nn->hy = NULL;
    nn->hprobs = nn->hlosses = NULL;
    nn->cap = 0;
}

void cs_nn_free(cs_nn *nn)
{
    if (!nn)
        return;
    free_batch(nn);
    const cs_nn_ops *o = nn->ops;
    o->release(nn->params);
    o->release(nn->grads);
    o->release(nn->m);
    o->release(nn->v);
    o->release(nn->bufs);
    o->release(nn->regval);
    o->release(nn->regtmp);
    for (int i = 0; i < nn->nlayers; i++) {
        o->release(nn->layer[i].mean);
        o->release(nn->layer[i].rstd);
    }
    for (int i = 0; i < nn->nwl; i++)
        o->release(nn->wl[i].sign);
    for (size_t i = 0; i < CS_NN_HIST_RING; i++)
        free(nn->ring[i].w);
    free(nn->hw);
    free(nn->hregval);
    free(nn->hd1);
    free(nn->hd2);
    free(nn);
}

/* Batch buffers for up to B examples. */
int nn_ensure_cap(cs_nn *nn, int B, cs_err *err)
{
    if (B <= nn->cap)
        return CS_OK;
    int rc = nn_check_budget(nn, B, nn->ring_count, err);
    if (rc)
        return rc;
    free_batch(nn);
    nn->bufgen++;
    const cs_nn_ops *o = nn->ops;
    size_t dmax, scratch;
    nn_batch_shape(nn, B, &dmax, &scratch);
    for (int i = 0; i < nn->nlayers; i++) {
        nn_layer *l = &nn->layer[i];
        DEV_ALLOC(l->out, (size_t)B * l->out_sz * sizeof(float));
        if (l->type == NN_POOL)
            DEV_ALLOC(l->idx, (size_t)B * l->out_sz * sizeof(int32_t));
    }
    size_t pixels = (size_t)nn->in_c * nn->in_h * nn->in_w;
    DEV_ALLOC(nn->x, (size_t)B * pixels * sizeof(float));
    if (nn_has_skips(nn))
        DEV_ALLOC(nn->dskip, (size_t)B * dmax * sizeof(float));
    DEV_ALLOC(nn->y, (size_t)B * sizeof(int32_t));
    DEV_ALLOC(nn->probs, (size_t)B * nn->classes * sizeof(float));
    DEV_ALLOC(nn->losses, (size_t)B * sizeof(float));
    DEV_ALLOC(nn->dlogits, (size_t)B * nn->classes * sizeof(float));
    DEV_ALLOC(nn->d0, (size_t)B * dmax * sizeof(float));
    DEV_ALLOC(nn->d1, (size_t)B * dmax * sizeof(float));
    DEV_ALLOC(nn->scratch, scratch * sizeof(float));
    nn->scratch_n = scratch;
    nn->hx = malloc((size_t)B * pixels * sizeof(float));
    nn->hy = malloc((size_t)B * sizeof(int32_t));
    nn->hprobs = malloc((size_t)B * nn->classes * sizeof(float));
    nn->hlosses = malloc((size_t)B * sizeof(float));
    if (!nn->hx || !nn->hy || !nn->hprobs || !nn->hlosses)
        goto oom;
    nn->cap = B;
    (void)o;
    return CS_OK;
oom:
    free_batch(nn);
    return cs_fail(err, CS_ENOMEM, "out of memory (%s) for a batch of %d", nn->device, B);
}

int cs_nn_reserve(cs_nn *nn, int B, cs_err *err)
{
    if (B < 1 || B > 4096)
        return cs_fail(err, CS_EINVAL, "batch=%d out of range 1..4096", B);
    return nn_ensure_cap(nn, B, err);
}

/* ------------------------------------------------------------------ accessors */

const char *cs_nn_device(const cs_nn *nn) { return nn->device; }
cs_nn_kind cs_nn_get_kind(const cs_nn *nn) { return nn->cfg.kind; }
size_t cs_nn_step_count(const cs_nn *nn) { return nn->step_total; }

int cs_nn_get_config(const cs_nn *nn, cs_nn_config *cfg)
{
    *cfg = nn->cfg;
    cfg->device = nn->device;
    return CS_OK;
}

size_t cs_nn_wlayer_count(const cs_nn *nn) { return (size_t)nn->nwl; }

int cs_nn_wlayer(const cs_nn *nn, size_t i, cs_nn_wlayer_info *info)
{
    if (i >= (size_t)nn->nwl)
        return CS_EINVAL;
    const nn_wlayer *w = &nn->wl[i];
    info->name = w->name;
    info->rows = w->rows;
    info->cols = w->cols;
    info->excluded_default = w->excl_default;
    info->quantized = w->quant;
    const nn_layer *l = &nn->layer[w->layer];
    info->positions = l->type == NN_CONV ? (size_t)l->OH * l->OW : 1;
    return CS_OK;
}

int cs_nn_wlayer_find(const cs_nn *nn, const char *name)
{
    for (int i = 0; i < nn->nwl; i++)
        if (!strcmp(nn->wl[i].name, name))
            return i;
    return -1;
}

int cs_nn_wlayer_get(cs_nn *nn, size_t i, float *w, cs_err *err)
{
    if (i >= (size_t)nn->nwl)
        return cs_fail(err, CS_EINVAL, "no weight layer %zu", i);
    const nn_wlayer *l = &nn->wl[i];
    if (nn->ops->download(w, nn->params + nn->t[l->tw].off, l->rows * l->cols * sizeof(float)))
        return nn_device_fail(nn, "download", err);
    return CS_OK;
}

int cs_nn_wlayer_set(cs_nn *nn, size_t i, const float *w, cs_err *err)
{
    if (i >= (size_t)nn->nwl)
        return cs_fail(err, CS_EINVAL, "no weight layer %zu", i);
    const nn_wlayer *l = &nn->wl[i];
    if (nn->ops->upload(nn->params + nn->t[l->tw].off, w, l->rows * l->cols * sizeof(float)))
        return nn_device_fail(nn, "upload", err);
    return CS_OK;
}
