/* nn_model.c — the network: devices, building the layers and tensors,
 * allocating and freeing, the batch buffers' capacity, and accessors. The
 * passes are in nn_pass.c, training in nn_train.c, quantization in
 * nn_quant.c, snapshots and histograms in nn_snapshot.c, checkpoints in
 * nn_io.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_rng.h"
#include "nn_internal.h"

/* ------------------------------------------------------------------ devices */

int cs_nn_device_check(const char *device, cs_err *err)
{
    if (!device || !strcmp(device, "cpu") || !strcmp(device, "auto"))
        return CS_OK;
    if (strcmp(device, "cuda") != 0)
        return cs_fail(err, CS_EINVAL, "unknown device '%s' (cpu, cuda or auto)", device);
#ifdef CSREG_HAVE_CUDA
    char why[256];
    if (cs_nn_cuda_init(why, sizeof why) != 0)
        return cs_fail(err, CS_EUNSUPPORTED, "device=cuda: %s", why);
    return CS_OK;
#else
    return cs_fail(err, CS_EUNSUPPORTED,
                   "device=cuda: this csreg was built without CUDA (build with nvcc, CUDA=1)");
#endif
}

int cs_nn_device_resolve(const char *requested, char *chosen, size_t len, char *why, size_t wlen,
                         cs_err *err)
{
    const char *dev = requested ? requested : "cpu";
    if (why && wlen)
        why[0] = '\0';
    if (strcmp(dev, "auto") != 0) {
        int rc = cs_nn_device_check(dev, err);
        if (rc)
            return rc;
        snprintf(chosen, len, "%s", dev);
        return CS_OK;
    }
#ifdef CSREG_HAVE_CUDA
    char msg[256];
    if (cs_nn_cuda_init(msg, sizeof msg) == 0) {
        char name[256];
        cs_nn_cuda_name(name, sizeof name);
        snprintf(chosen, len, "cuda");
        if (why && wlen)
            snprintf(why, wlen, "auto: cuda (%s found)", name);
        return CS_OK;
    }
    snprintf(chosen, len, "cpu");
    if (why && wlen)
        snprintf(why, wlen, "auto: cpu (no GPU: %s)", msg);
#else
    snprintf(chosen, len, "cpu");
    if (why && wlen)
        snprintf(why, wlen, "auto: cpu (built without CUDA)");
#endif
    return CS_OK;
}

static const cs_nn_ops *ops_for(const char *device)
{
#ifdef CSREG_HAVE_CUDA
    if (device && !strcmp(device, "cuda") && cs_nn_cuda_ops())
        return cs_nn_cuda_ops();
#endif
    (void)device;
    return &cs_nn_cpu_ops;
}

/* ------------------------------------------------------------------ building */

static int add_tensor(cs_nn *nn, const char *name, size_t n, int kind, int wl)
{
    nn_tensor *t = &nn->t[nn->nt];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->off = nn->nparams;
    t->n = n;
    t->kind = kind;
    t->wl = wl;
    nn->nparams += n;
    return nn->nt++;
}

static nn_layer *add_layer(cs_nn *nn, int type, int C, int H, int W)
{
    nn_layer *l = &nn->layer[nn->nlayers++];
    memset(l, 0, sizeof *l);
    l->type = type;
    l->C = C;
    l->H = H;
    l->W = W;
    l->OC = C;
    l->OH = H;
    l->OW = W;
    l->tw = l->tb = l->wl = -1;
    l->in_sz = (size_t)C * H * W;
    return l;
}

static void add_weight_layer(cs_nn *nn, nn_layer *l, const char *name, size_t rows, size_t cols,
                             int bias)
{
    nn_wlayer *w = &nn->wl[nn->nwl];
    memset(w, 0, sizeof *w);
    snprintf(w->name, sizeof w->name, "%s", name);
    char tn[24];
    w->layer = (int)(l - nn->layer);
    w->rows = rows;
    w->cols = cols;
    snprintf(tn, sizeof tn, "%s.w", name);
    w->tw = l->tw = add_tensor(nn, tn, rows * cols, NN_T_W, nn->nwl);
    if (bias) {
        snprintf(tn, sizeof tn, "%s.b", name);
        l->tb = add_tensor(nn, tn, rows, NN_T_B, -1);
    }
    l->wl = nn->nwl++;
}

static void dense(cs_nn *nn, const char *name, int in, int out)
{
    nn_layer *l = add_layer(nn, NN_DENSE, in, 1, 1);
    l->OC = out;
    add_weight_layer(nn, l, name, (size_t)out, (size_t)in, 1);
}

static void block_act(cs_nn *nn, int type)
{
    nn_layer *p = &nn->layer[nn->nlayers - 1];
    add_layer(nn, type, p->OC, p->OH, p->OW);
}

static void conv_bn_relu(cs_nn *nn, const char *name, int C, int H, int OC)
{
    nn_layer *l = add_layer(nn, NN_CONV, C, H, H);
    l->OC = OC;
    add_weight_layer(nn, l, name, (size_t)OC, (size_t)C * 9, 0);
    nn_layer *bn = add_layer(nn, NN_BN, OC, H, H);
    char tn[24];
    snprintf(tn, sizeof tn, "%s.bn.g", name);
    bn->tw = add_tensor(nn, tn, (size_t)OC, NN_T_GAMMA, -1);
    snprintf(tn, sizeof tn, "%s.bn.b", name);
    bn->tb = add_tensor(nn, tn, (size_t)OC, NN_T_BETA, -1);
    bn->boff = nn->nbufs;
    nn->nbufs += 2 * (size_t)OC;
    add_layer(nn, NN_RELU, OC, H, H);
}

static void pool(cs_nn *nn)
{
    nn_layer *p = &nn->layer[nn->nlayers - 1];
    nn_layer *l = add_layer(nn, NN_POOL, p->OC, p->OH, p->OW);
    l->OH = l->H / 2;
    l->OW = l->W / 2;
}

static void finish_shapes(cs_nn *nn)
{
    for (int i = 0; i < nn->nlayers; i++) {
        nn_layer *l = &nn->layer[i];
        l->out_sz = (size_t)l->OC * l->OH * l->OW;
    }
    size_t off = 0;
    for (int i = 0; i < nn->nwl; i++) {
        nn->wl[i].snap_off = off;
        off += nn->wl[i].rows * nn->wl[i].cols;
        /* the first convolution and the last fully-connected layer */
        nn->wl[i].excl_default = (i == 0 && nn->cfg.kind == CS_NN_CNN) || i == nn->nwl - 1;
        if (nn->wl[i].rows > nn->maxrows)
            nn->maxrows = nn->wl[i].rows;
        if (nn->wl[i].cols > nn->maxcols)
            nn->maxcols = nn->wl[i].cols;
    }
    nn->snap_n = off;
    /* one α tensor per weight layer (trained only when fine-tuning) */
    for (int i = 0; i < nn->nwl; i++) {
        char tn[24];
        snprintf(tn, sizeof tn, "%s.alpha", nn->wl[i].name);
        nn->wl[i].talpha = add_tensor(nn, tn, nn->wl[i].rows, NN_T_ALPHA, i);
    }
}

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

int nn_plan(cs_nn *nn, const cs_nn_config *cfg, cs_err *err)
{
    nn->cfg = *cfg;
    nn->cfg.device = NULL;
    if (nn->cfg.nhidden == 0) {
        if (cfg->kind == CS_NN_MLP) {
            nn->cfg.nhidden = 2;
            nn->cfg.hidden[0] = nn->cfg.hidden[1] = 512;
        } else {
            nn->cfg.nhidden = 1;
            nn->cfg.hidden[0] = 256;
        }
    }
    if (nn->cfg.nhidden < 0 || nn->cfg.nhidden > CS_NN_MAX_HIDDEN ||
        (cfg->kind == CS_NN_CNN && nn->cfg.nhidden != 1))
        return cs_fail(err, CS_EINVAL, "hidden: %s takes %s",
                       cfg->kind == CS_NN_CNN ? "cnn" : "mlp",
                       cfg->kind == CS_NN_CNN ? "one size (the hidden fc)" : "1 to 8 sizes");
    for (int i = 0; i < nn->cfg.nhidden; i++)
        if (nn->cfg.hidden[i] < 1 || nn->cfg.hidden[i] > 16384)
            return cs_fail(err, CS_EINVAL, "hidden: size %d out of range 1..16384",
                           nn->cfg.hidden[i]);
    if (cfg->kind == CS_NN_MLP) {
        int in = CS_NN_PIXELS;
        char name[16];
        for (int i = 0; i < nn->cfg.nhidden; i++) {
            snprintf(name, sizeof name, "fc%d", i + 1);
            dense(nn, name, in, nn->cfg.hidden[i]);
            block_act(nn, NN_RELU);
            in = nn->cfg.hidden[i];
        }
        snprintf(name, sizeof name, "fc%d", nn->cfg.nhidden + 1);
        dense(nn, name, in, CS_NN_CLASSES);
    } else if (cfg->kind == CS_NN_CNN) {
        conv_bn_relu(nn, "conv1", 1, 28, 16);
        conv_bn_relu(nn, "conv2", 16, 28, 16);
        pool(nn);
        conv_bn_relu(nn, "conv3", 16, 14, 32);
        conv_bn_relu(nn, "conv4", 32, 14, 32);
        pool(nn);
        dense(nn, "fc1", 32 * 7 * 7, nn->cfg.hidden[0]);
        block_act(nn, NN_RELU);
        dense(nn, "fc2", nn->cfg.hidden[0], CS_NN_CLASSES);
    } else {
        return cs_fail(err, CS_EINVAL, "unknown model kind %d", (int)cfg->kind);
    }
    finish_shapes(nn);
    return CS_OK;
}

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
    nn->ops = ops_for(nn->device);
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
    DEV_ALLOC(nn->regval, nn->maxrows * sizeof(double));
    DEV_ALLOC(nn->regtmp, nn->maxrows * nn->maxcols * sizeof(float));
    nn->hw = malloc(nn->maxrows * nn->maxcols * sizeof(float));
    nn->hregval = malloc(nn->maxrows * sizeof(double));
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
    void *bufs[] = {nn->x, nn->probs, nn->losses, nn->dlogits, nn->d0, nn->d1, nn->scratch, nn->y};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        o->release(bufs[i]);
    nn->x = nn->probs = nn->losses = nn->dlogits = nn->d0 = nn->d1 = nn->scratch = NULL;
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
    const cs_nn_ops *o = nn->ops;
    size_t dmax, scratch;
    nn_batch_shape(nn, B, &dmax, &scratch);
    for (int i = 0; i < nn->nlayers; i++) {
        nn_layer *l = &nn->layer[i];
        DEV_ALLOC(l->out, (size_t)B * l->out_sz * sizeof(float));
        if (l->type == NN_POOL)
            DEV_ALLOC(l->idx, (size_t)B * l->out_sz * sizeof(int32_t));
    }
    DEV_ALLOC(nn->x, (size_t)B * CS_NN_PIXELS * sizeof(float));
    DEV_ALLOC(nn->y, (size_t)B * sizeof(int32_t));
    DEV_ALLOC(nn->probs, (size_t)B * CS_NN_CLASSES * sizeof(float));
    DEV_ALLOC(nn->losses, (size_t)B * sizeof(float));
    DEV_ALLOC(nn->dlogits, (size_t)B * CS_NN_CLASSES * sizeof(float));
    DEV_ALLOC(nn->d0, (size_t)B * dmax * sizeof(float));
    DEV_ALLOC(nn->d1, (size_t)B * dmax * sizeof(float));
    DEV_ALLOC(nn->scratch, scratch * sizeof(float));
    nn->scratch_n = scratch;
    nn->hx = malloc((size_t)B * CS_NN_PIXELS * sizeof(float));
    nn->hy = malloc((size_t)B * sizeof(int32_t));
    nn->hprobs = malloc((size_t)B * CS_NN_CLASSES * sizeof(float));
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

size_t cs_nn_param_count(const cs_nn *nn)
{
    size_t n = 0;
    for (int i = 0; i < nn->nt; i++)
        if (nn->t[i].kind != NN_T_ALPHA)
            n += nn->t[i].n;
    return n;
}

int cs_nn_get_config(const cs_nn *nn, cs_nn_config *cfg)
{
    *cfg = nn->cfg;
    cfg->device = nn->device;
    return CS_OK;
}

void cs_nn_describe(const cs_nn *nn, char *buf, size_t len)
{
    size_t k = 0;
    if (nn->cfg.kind == CS_NN_MLP) {
        k += (size_t)snprintf(buf, len, "mlp %d", CS_NN_PIXELS);
        for (int i = 0; i < nn->cfg.nhidden && k < len; i++)
            k += (size_t)snprintf(buf + k, len - k, "-%d", nn->cfg.hidden[i]);
        if (k < len)
            snprintf(buf + k, len - k, "-%d", CS_NN_CLASSES);
    } else {
        snprintf(buf, len, "cnn conv16,16,pool,32,32,pool fc1568-%d-10", nn->cfg.hidden[0]);
    }
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


int nn_selected(const cs_nn *nn, int i, cs_nn_exclude ex)
{
    switch (ex) {
    case CS_NN_EXCL_NONE: return 1;
    case CS_NN_EXCL_LAST: return i != nn->nwl - 1;
    case CS_NN_EXCL_FIRST: return i != 0;
    default: return !nn->wl[i].excl_default;
    }
}
