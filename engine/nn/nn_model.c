/* nn_model.c — the network: building, forward/backward through the backend
 * op table, training with the regularized loss, evaluation, quantization,
 * weight snapshots. The call sequence is the same for every backend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cs_rng.h"
#include "nn_internal.h"
#include "cs_clock.h"

#define ADAM_B1 0.9f
#define ADAM_B2 0.999f
#define ADAM_EPS 1e-8f
/* Fashion-MNIST pixel statistics (x/255) */
#define PIX_MEAN 0.2860f
#define PIX_STD 0.3530f

/* ------------------------------------------------------------------ devices */

int cs_nn_device_check(const char *device, cs_err *err)
{
    if (!device || !strcmp(device, "cpu"))
        return CS_OK;
    if (strcmp(device, "cuda") != 0)
        return cs_fail(err, CS_EINVAL, "unknown device '%s' (cpu or cuda)", device);
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

static const cs_nn_ops *ops_for(const char *device)
{
#ifdef CSREG_HAVE_CUDA
    if (device && !strcmp(device, "cuda"))
        return &cs_nn_cuda_ops;
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

int cs_nn_build(cs_nn **out, const cs_nn_config *cfg, int init, cs_err *err)
{
    *out = NULL;
    int rc = cs_nn_device_check(cfg->device, err);
    if (rc)
        return rc;
    cs_nn *nn = calloc(1, sizeof *nn);
    if (!nn)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    nn->cfg = *cfg;
    nn->cfg.device = NULL;
    snprintf(nn->device, sizeof nn->device, "%s", cfg->device ? cfg->device : "cpu");
    nn->ops = ops_for(nn->device);
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
        (cfg->kind == CS_NN_CNN && nn->cfg.nhidden != 1)) {
        free(nn);
        return cs_fail(err, CS_EINVAL, "hidden: %s takes %s", cfg->kind == CS_NN_CNN ? "cnn" : "mlp",
                       cfg->kind == CS_NN_CNN ? "one size (the hidden fc)" : "1 to 8 sizes");
    }
    for (int i = 0; i < nn->cfg.nhidden; i++)
        if (nn->cfg.hidden[i] < 1 || nn->cfg.hidden[i] > 16384) {
            int h = nn->cfg.hidden[i];
            free(nn);
            return cs_fail(err, CS_EINVAL, "hidden: size %d out of range 1..16384", h);
        }
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
        free(nn);
        return cs_fail(err, CS_EINVAL, "unknown model kind %d", (int)cfg->kind);
    }
    finish_shapes(nn);
    if (!strcmp(nn->device, "cpu"))
        cs_nn_cpu_set_threads(cfg->threads);
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
            return cs_fail(err, CS_EIO, "%s: copying the initial weights failed",
                           cfg->device ? cfg->device : "cpu");
        }
    }
    *out = nn;
    return CS_OK;
oom:
    cs_nn_free(nn);
    return cs_fail(err, CS_ENOMEM, "out of memory (%s) for the network", cfg->device ? cfg->device : "cpu");
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
static int ensure_cap(cs_nn *nn, int B, cs_err *err)
{
    if (B <= nn->cap)
        return CS_OK;
    free_batch(nn);
    const cs_nn_ops *o = nn->ops;
    size_t dmax = CS_NN_PIXELS, scratch = 1;
    for (int i = 0; i < nn->nlayers; i++) {
        nn_layer *l = &nn->layer[i];
        DEV_ALLOC(l->out, (size_t)B * l->out_sz * sizeof(float));
        if (l->type == NN_POOL)
            DEV_ALLOC(l->idx, (size_t)B * l->out_sz * sizeof(int32_t));
        if (l->out_sz > dmax)
            dmax = l->out_sz;
        size_t sc = ((size_t)l->C * 9 + (size_t)l->OC) * (size_t)B * l->H * l->W;
        if (l->type == NN_CONV && sc > scratch)
            scratch = sc;
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

/* ------------------------------------------------------------------ accessors */

const char *cs_nn_device(const cs_nn *nn) { return nn->device; }
cs_nn_kind cs_nn_get_kind(const cs_nn *nn) { return nn->cfg.kind; }

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
        return cs_fail(err, CS_EIO, "%s: download failed", nn->device);
    return CS_OK;
}

int cs_nn_wlayer_set(cs_nn *nn, size_t i, const float *w, cs_err *err)
{
    if (i >= (size_t)nn->nwl)
        return cs_fail(err, CS_EINVAL, "no weight layer %zu", i);
    const nn_wlayer *l = &nn->wl[i];
    if (nn->ops->upload(nn->params + nn->t[l->tw].off, w, l->rows * l->cols * sizeof(float)))
        return cs_fail(err, CS_EIO, "%s: upload failed", nn->device);
    return CS_OK;
}

int cs_nn_is_quantized(const cs_nn *nn)
{
    for (int i = 0; i < nn->nwl; i++)
        if (nn->wl[i].quant)
            return nn->wl[i].quant;
    return 0;
}

int cs_nn_wlayer_alpha(cs_nn *nn, size_t i, float *alpha, cs_err *err)
{
    if (i >= (size_t)nn->nwl || !nn->wl[i].quant)
        return cs_fail(err, CS_ESTATE, "layer %zu is not quantized", i);
    const nn_wlayer *l = &nn->wl[i];
    if (nn->ops->download(alpha, nn->params + nn->t[l->talpha].off, l->rows * sizeof(float)))
        return cs_fail(err, CS_EIO, "%s: download failed", nn->device);
    return CS_OK;
}

static int selected(const cs_nn *nn, int i, cs_nn_exclude ex)
{
    switch (ex) {
    case CS_NN_EXCL_NONE: return 1;
    case CS_NN_EXCL_LAST: return i != nn->nwl - 1;
    case CS_NN_EXCL_FIRST: return i != 0;
    default: return !nn->wl[i].excl_default;
    }
}

/* ------------------------------------------------------------------ forward / backward */

static const float *layer_in(const cs_nn *nn, int i)
{
    return i == 0 ? nn->x : nn->layer[i - 1].out;
}

static void forward(cs_nn *nn, int B, int train)
{
    const cs_nn_ops *o = nn->ops;
    float *P = nn->params;
    for (int i = 0; i < nn->nlayers; i++) {
        nn_layer *l = &nn->layer[i];
        const float *in = layer_in(nn, i);
        switch (l->type) {
        case NN_DENSE:
            o->matmul_forward(l->out, in, P + nn->t[l->tw].off, P + nn->t[l->tb].off, B, l->C,
                              l->OC);
            break;
        case NN_CONV:
            o->conv_forward(l->out, in, P + nn->t[l->tw].off, nn->scratch, B, l->C, l->H, l->W,
                            l->OC);
            break;
        case NN_BN:
            o->bn_forward(l->out, in, P + nn->t[l->tw].off, P + nn->t[l->tb].off, l->mean,
                          l->rstd, nn->bufs + l->boff, nn->bufs + l->boff + l->C, B, l->C,
                          l->H * l->W, train);
            break;
        case NN_RELU:
            o->relu_forward(l->out, in, (size_t)B * l->out_sz);
            break;
        case NN_POOL:
            o->maxpool_forward(l->out, l->idx, in, B, l->C, l->H, l->W);
            break;
        }
    }
    nn_layer *last = &nn->layer[nn->nlayers - 1];
    o->softmax_ce_forward(nn->probs, nn->losses, last->out, nn->y, B, CS_NN_CLASSES);
}

static void backward(cs_nn *nn, int B)
{
    const cs_nn_ops *o = nn->ops;
    float *P = nn->params, *G = nn->grads;
    o->softmax_ce_backward(nn->dlogits, nn->probs, nn->y, B, CS_NN_CLASSES);
    const float *dout = nn->dlogits;
    float *bufs[2] = {nn->d0, nn->d1};
    int which = 0;
    for (int i = nn->nlayers - 1; i >= 0; i--) {
        nn_layer *l = &nn->layer[i];
        const float *in = layer_in(nn, i);
        float *dinp = i > 0 ? bufs[which] : NULL;
        switch (l->type) {
        case NN_DENSE:
            o->matmul_backward(dinp, G + nn->t[l->tw].off, G + nn->t[l->tb].off, dout, in,
                               P + nn->t[l->tw].off, B, l->C, l->OC);
            break;
        case NN_CONV:
            o->conv_backward(dinp, G + nn->t[l->tw].off, dout, in, P + nn->t[l->tw].off,
                             nn->scratch, B, l->C, l->H, l->W, l->OC);
            break;
        case NN_BN:
            o->bn_backward(dinp, G + nn->t[l->tw].off, G + nn->t[l->tb].off, dout, in,
                           P + nn->t[l->tw].off, l->mean, l->rstd, B, l->C, l->H * l->W);
            break;
        case NN_RELU:
            if (dinp)
                o->relu_backward(dinp, dout, l->out, (size_t)B * l->out_sz);
            break;
        case NN_POOL:
            if (dinp)
                o->maxpool_backward(dinp, dout, l->idx, B, l->C, l->H, l->W);
            break;
        }
        if (dinp) {
            dout = dinp;
            which ^= 1;
        }
    }
}

/* ------------------------------------------------------------------ regularizer */

static int reg_kernel(const cs_reg *reg)
{
    switch (cs_reg_kernel_of(reg)) {
    case CS_REG_KERNEL_BIN: return CS_NN_REGK_BIN;
    case CS_REG_KERNEL_OSB: return CS_NN_REGK_OSB;
    case CS_REG_KERNEL_TER: return CS_NN_REGK_TER;
    case CS_REG_KERNEL_BBIN: return CS_NN_REGK_BBIN;
    case CS_REG_KERNEL_BINEXP: return CS_NN_REGK_BINEXP;
    case CS_REG_KERNEL_L2L1: return CS_NN_REGK_L2L1;
    case CS_REG_KERNEL_L2L1H: return CS_NN_REGK_L2L1H;
    default: return CS_NN_REGK_NONE;
    }
}

static int check_reg(const cs_reg *reg, cs_err *err)
{
    const cs_reg_info *info = cs_reg_get_info(reg);
    if (info->matrix_arg)
        return cs_fail(err, CS_EUNSUPPORTED,
                       "reg %s takes a matrix argument; training needs a per-row regularizer",
                       info->name);
    if (cs_reg_extra(reg) > 0)
        return cs_fail(err, CS_EUNSUPPORTED,
                       "reg %s has auxiliary variables; not supported for training", info->name);
    return CS_OK;
}

/* λ Σ_k η_k ℓ(θ_k) over the rows of weight layer i, added to *value; with
 * grad, adds its gradient to the layer's weight gradient. */
static int reg_layer(cs_nn *nn, cs_reg *reg, double lambda, int i, int grad, double *value,
                     cs_err *err)
{
    const cs_nn_ops *o = nn->ops;
    int kind = reg_kernel(reg);
    nn_wlayer *w = &nn->wl[i];
    float scale = (float)(lambda / (double)w->cols);
    const float *W = nn->params + nn->t[w->tw].off;
    float *dW = grad ? nn->grads + nn->t[w->tw].off : nn->regtmp;
    double total = 0;
    if (kind != CS_NN_REGK_NONE) {
        if (!grad)
            o->zero(nn->regtmp, w->rows * w->cols * sizeof(float));
        o->reg_rows(dW, nn->regval, W, (int)w->rows, (int)w->cols, kind, scale);
        if (o->download(nn->hregval, nn->regval, w->rows * sizeof(double)))
            return cs_fail(err, CS_EIO, "%s: download failed", nn->device);
        for (size_t r = 0; r < w->rows; r++)
            total += lambda / (double)w->cols * nn->hregval[r];
        *value += total;
        return CS_OK;
    }
    /* generic: cs_reg_eval in double on the host, row by row */
    if (o->download(nn->hw, W, w->rows * w->cols * sizeof(float)))
        return cs_fail(err, CS_EIO, "%s: download failed", nn->device);
    for (size_t r = 0; r < w->rows; r++) {
        float *row = nn->hw + r * w->cols;
        for (size_t j = 0; j < w->cols; j++)
            nn->hd1[j] = row[j];
        double v;
        int rc = cs_reg_eval(reg, nn->hd1, 1, w->cols, &v, grad ? nn->hd2 : NULL, err);
        if (rc)
            return rc;
        total += lambda / (double)w->cols * v;
        if (grad)
            for (size_t j = 0; j < w->cols; j++)
                row[j] = (float)nn->hd2[j];
    }
    if (grad) {
        if (o->upload(nn->regtmp, nn->hw, w->rows * w->cols * sizeof(float)))
            return cs_fail(err, CS_EIO, "%s: upload failed", nn->device);
        o->axpy(dW, nn->regtmp, scale, w->rows * w->cols);
    }
    *value += total;
    return CS_OK;
}

/* λ Σ_k η_k ℓ(θ_k) over the selected layers (per layer, summed in layer
 * order); with grad, adds its gradient to the weight gradients. */
static int reg_all(cs_nn *nn, cs_reg *reg, double lambda, cs_nn_exclude ex, int grad,
                   double *value, cs_err *err)
{
    double total = 0;
    for (int i = 0; i < nn->nwl; i++)
        if (selected(nn, i, ex)) {
            int rc = reg_layer(nn, reg, lambda, i, grad, &total, err);
            if (rc)
                return rc;
        }
    if (!isfinite(total))
        return cs_fail(err, CS_ENONFINITE, "the regularizer value is not finite (%g)", total);
    *value = total;
    return CS_OK;
}

int cs_nn_reg_value(cs_nn *nn, cs_reg *reg, double lambda, cs_nn_exclude excl, double *value,
                    cs_err *err)
{
    int rc = check_reg(reg, err);
    if (rc)
        return rc;
    return reg_all(nn, reg, lambda, excl, 0, value, err);
}

/* ------------------------------------------------------------------ batches */

/* Fill the host batch from examples idx[0..B) (shifted when aug) and upload. */
static int load_batch(cs_nn *nn, const cs_nn_data *d, const size_t *idx, int B, cs_rng *aug,
                      cs_err *err)
{
    static float lut[256];
    static int lut_ready;
    if (!lut_ready) {
        for (int i = 0; i < 256; i++)
            lut[i] = ((float)i / 255.0f - PIX_MEAN) / PIX_STD;
        lut_ready = 1;
    }
    const float bg = lut[0];
    for (int b = 0; b < B; b++) {
        const uint8_t *img = d->images + idx[b] * CS_NN_PIXELS;
        float *x = nn->hx + (size_t)b * CS_NN_PIXELS;
        nn->hy[b] = d->labels[idx[b]];
        if (!aug) {
            for (int i = 0; i < CS_NN_PIXELS; i++)
                x[i] = lut[img[i]];
            continue;
        }
        int dx = (int)cs_rng_below(aug, 5) - 2, dy = (int)cs_rng_below(aug, 5) - 2;
        for (int yy = 0; yy < CS_NN_IMG; yy++) {
            int sy = yy - dy;
            for (int xx = 0; xx < CS_NN_IMG; xx++) {
                int sx = xx - dx;
                x[yy * CS_NN_IMG + xx] = (sy >= 0 && sy < CS_NN_IMG && sx >= 0 && sx < CS_NN_IMG)
                                             ? lut[img[sy * CS_NN_IMG + sx]]
                                             : bg;
            }
        }
    }
    if (nn->ops->upload(nn->x, nn->hx, (size_t)B * CS_NN_PIXELS * sizeof(float)) ||
        nn->ops->upload(nn->y, nn->hy, (size_t)B * sizeof(int32_t)))
        return cs_fail(err, CS_EIO, "%s: upload of a batch failed", nn->device);
    return CS_OK;
}

/* Sum of losses and number correct of the last forward. */
static int batch_stats(cs_nn *nn, int B, double *loss, int *correct, cs_err *err)
{
    if (nn->ops->download(nn->hprobs, nn->probs, (size_t)B * CS_NN_CLASSES * sizeof(float)) ||
        nn->ops->download(nn->hlosses, nn->losses, (size_t)B * sizeof(float)))
        return cs_fail(err, CS_EIO, "%s: download failed", nn->device);
    double s = 0;
    int c = 0;
    for (int b = 0; b < B; b++) {
        s += nn->hlosses[b];
        const float *p = nn->hprobs + (size_t)b * CS_NN_CLASSES;
        int k = 0;
        for (int j = 1; j < CS_NN_CLASSES; j++)
            if (p[j] > p[k])
                k = j;
        c += (k == nn->hy[b]);
    }
    if (!isfinite(s))
        return cs_fail(err, CS_ENONFINITE,
                       "the loss is not finite (diverged: lower lr or lambda)");
    *loss = s;
    *correct = c;
    return CS_OK;
}

int cs_nn_evaluate(cs_nn *nn, const cs_nn_data *test, double *accuracy, double *loss,
                   cs_err *err)
{
    if (!test || test->n == 0)
        return cs_fail(err, CS_ESTATE, "no test data");
    int B = nn->cap >= 64 ? nn->cap : 256;
    int rc = ensure_cap(nn, B, err);
    if (rc)
        return rc;
    size_t *idx = malloc((size_t)B * sizeof *idx);
    if (!idx)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    double ls = 0;
    long correct = 0;
    for (size_t s = 0; s < test->n; s += (size_t)B) {
        int nb = (int)(test->n - s < (size_t)B ? test->n - s : (size_t)B);
        for (int b = 0; b < nb; b++)
            idx[b] = s + (size_t)b;
        rc = load_batch(nn, test, idx, nb, NULL, err);
        if (rc)
            break;
        forward(nn, nb, 0);
        double l;
        int c;
        rc = batch_stats(nn, nb, &l, &c, err);
        if (rc)
            break;
        ls += l;
        correct += c;
    }
    free(idx);
    if (rc)
        return rc;
    *accuracy = (double)correct / (double)test->n;
    *loss = ls / (double)test->n;
    return CS_OK;
}

/* ------------------------------------------------------------------ snapshots */

int cs_nn_snapshot_take(cs_nn *nn, double epoch, cs_err *err)
{
    size_t slot = (nn->ring_head + nn->ring_count) % CS_NN_HIST_RING;
    if (nn->ring_count == CS_NN_HIST_RING) {
        slot = nn->ring_head;
        nn->ring_head = (nn->ring_head + 1) % CS_NN_HIST_RING;
    } else {
        nn->ring_count++;
    }
    nn_snapshot *s = &nn->ring[slot];
    if (!s->w) {
        s->w = malloc(nn->snap_n * sizeof(float));
        if (!s->w) {
            nn->ring_count--;
            return cs_fail(err, CS_ENOMEM, "out of memory for a weight snapshot");
        }
    }
    for (int i = 0; i < nn->nwl; i++) {
        int rc = cs_nn_wlayer_get(nn, (size_t)i, s->w + nn->wl[i].snap_off, err);
        if (rc)
            return rc;
    }
    s->step = nn->step_total;
    s->epoch = epoch;
    return CS_OK;
}

size_t cs_nn_snapshot_count(const cs_nn *nn) { return nn->ring_count; }

/* Whether the newest snapshot holds the weights as they are now (a run that
 * starts where the last one ended): its start frame would repeat that one. */
static int newest_snapshot_is_current(cs_nn *nn)
{
    if (nn->ring_count == 0)
        return 0;
    const nn_snapshot *s =
        &nn->ring[(nn->ring_head + nn->ring_count - 1) % CS_NN_HIST_RING];
    if (s->step != nn->step_total)
        return 0;
    for (int i = 0; i < nn->nwl; i++) {
        const nn_wlayer *w = &nn->wl[i];
        if (cs_nn_wlayer_get(nn, (size_t)i, nn->hw, NULL) ||
            memcmp(nn->hw, s->w + w->snap_off, w->rows * w->cols * sizeof(float)))
            return 0;
    }
    return 1;
}

int cs_nn_snapshot(const cs_nn *nn, size_t i, size_t layer, const float **w, size_t *step,
                   double *epoch)
{
    if (i >= nn->ring_count || layer >= (size_t)nn->nwl)
        return CS_EINVAL;
    const nn_snapshot *s = &nn->ring[(nn->ring_head + i) % CS_NN_HIST_RING];
    *w = s->w + nn->wl[layer].snap_off;
    if (step)
        *step = s->step;
    if (epoch)
        *epoch = s->epoch;
    return CS_OK;
}

int cs_nn_hist_layer(cs_nn *nn, size_t layer, long row, double lo, double hi, size_t nbins,
                     uint64_t *counts, cs_err *err)
{
    if (layer >= (size_t)nn->nwl)
        return cs_fail(err, CS_EINVAL, "no weight layer %zu", layer);
    nn_wlayer *w = &nn->wl[layer];
    if (row >= (long)w->rows)
        return cs_fail(err, CS_EINVAL, "row %ld out of range 0..%zu", row, w->rows - 1);
    if (!(hi > lo) || nbins == 0 || nbins > 100000)
        return cs_fail(err, CS_EINVAL, "bad histogram range or bin count");
    size_t n = row < 0 ? w->rows * w->cols : w->cols;
    const float *src = nn->params + nn->t[w->tw].off + (row < 0 ? 0 : (size_t)row * w->cols);
    uint32_t *dc = nn->ops->alloc(nbins * sizeof(uint32_t));
    uint32_t *hc = malloc(nbins * sizeof(uint32_t));
    if (!dc || !hc) {
        nn->ops->release(dc);
        free(hc);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    nn->ops->hist(dc, src, n, (float)lo, (float)hi, (int)nbins);
    int rc = nn->ops->download(hc, dc, nbins * sizeof(uint32_t));
    for (size_t k = 0; k < nbins; k++)
        counts[k] = hc[k];
    nn->ops->release(dc);
    free(hc);
    return rc ? cs_fail(err, CS_EIO, "%s: download failed", nn->device) : CS_OK;
}

/* ------------------------------------------------------------------ training */

static void shuffle(size_t *perm, size_t n, cs_rng *rng)
{
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)cs_rng_below(rng, i + 1);
        size_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* Signs of the watched layers' weights, for the flip ratio. */
static int sign_snapshot(cs_nn *nn, const int *watch, uint8_t *signs, size_t *n, cs_err *err)
{
    size_t k = 0;
    for (int i = 0; i < nn->nwl; i++) {
        if (!watch[i])
            continue;
        int rc = cs_nn_wlayer_get(nn, (size_t)i, nn->hw, err);
        if (rc)
            return rc;
        for (size_t j = 0; j < nn->wl[i].rows * nn->wl[i].cols; j++)
            signs[k++] = nn->hw[j] < 0.0f;
    }
    *n = k;
    return CS_OK;
}

static void drop_quant(cs_nn *nn)
{
    for (int i = 0; i < nn->nwl; i++) {
        nn->ops->release(nn->wl[i].sign);
        nn->wl[i].sign = NULL;
        nn->wl[i].quant = 0;
    }
}

static int train_step(cs_nn *nn, const cs_nn_train_opts *o, int B, float lr, int regk_ok,
                      double *regv, double *reg_s, cs_err *err)
{
    forward(nn, B, 1);
    backward(nn, B);
    const cs_nn_ops *ops = nn->ops;
    if (o->reg && o->lambda > 0 && !o->finetune && regk_ok) {
        double t0 = cs_now();
        int rc = reg_all(nn, o->reg, o->lambda, o->exclude, 1, regv, err);
        *reg_s += cs_now() - t0;
        if (rc)
            return rc;
    }
    nn->adam_t++;
    for (int i = 0; i < nn->nt; i++) {
        nn_tensor *t = &nn->t[i];
        if (t->kind == NN_T_ALPHA) {
            nn_wlayer *w = &nn->wl[t->wl];
            if (!o->finetune || !w->quant)
                continue;
            ops->quant_scale_grad(nn->grads + t->off, nn->grads + nn->t[w->tw].off, w->sign,
                                  (int)w->rows, (int)w->cols);
        } else if (t->kind == NN_T_W && o->finetune && nn->wl[t->wl].quant) {
            continue;   /* signs fixed */
        }
        ops->adam_update(nn->params + t->off, nn->grads + t->off, nn->m + t->off, nn->v + t->off,
                         t->n, lr, ADAM_B1, ADAM_B2, ADAM_EPS, nn->adam_t);
    }
    if (o->finetune)
        for (int i = 0; i < nn->nwl; i++) {
            nn_wlayer *w = &nn->wl[i];
            if (w->quant)
                ops->quant_apply(nn->params + nn->t[w->tw].off, w->sign,
                                 nn->params + nn->t[w->talpha].off, (int)w->rows, (int)w->cols);
        }
    return CS_OK;
}

int cs_nn_train(cs_nn *nn, const cs_nn_data *train, const cs_nn_train_opts *opts,
                cs_nn_train_report *rep, cs_err *err)
{
    memset(rep, 0, sizeof *rep);
    cs_nn_train_opts o = *opts;
    if (o.batch == 0)
        o.batch = 128;
    if (o.lr == 0)
        o.lr = 1e-3;
    if (o.epochs < 1 || o.epochs > CS_NN_MAX_EPOCHS)
        return cs_fail(err, CS_EINVAL, "epochs=%d out of range 1..%d", o.epochs,
                       CS_NN_MAX_EPOCHS);
    if (o.batch < 2 || o.batch > 4096)
        return cs_fail(err, CS_EINVAL, "batch=%d out of range 2..4096", o.batch);
    if (!(o.lr > 0 && o.lr < 10))
        return cs_fail(err, CS_EINVAL, "lr=%g out of range (0, 10)", o.lr);
    if (!(o.lambda >= 0) || !isfinite(o.lambda))
        return cs_fail(err, CS_EINVAL, "lambda=%g must be finite and >= 0", o.lambda);
    if (!train || train->n < 2)
        return cs_fail(err, CS_ESTATE, "no training data (need at least 2 examples)");
    if (o.finetune && !cs_nn_is_quantized(nn))
        return cs_fail(err, CS_ESTATE, "finetune needs a quantized network (run quantize first)");
    if (o.reg && !o.finetune) {
        int rc = check_reg(o.reg, err);
        if (rc)
            return rc;
    }
    int B = o.batch;
    if ((size_t)B > train->n)
        B = (int)train->n;
    int rc = ensure_cap(nn, B, err);
    if (rc)
        return rc;
    if (!o.finetune)
        drop_quant(nn);
    size_t nb = train->n / (size_t)B;   /* a last partial batch is dropped */
    size_t total = (size_t)o.epochs * nb;
    size_t *perm = malloc(train->n * sizeof *perm);
    uint8_t *s0 = malloc(nn->snap_n), *s1 = malloc(nn->snap_n);
    if (!perm || !s0 || !s1) {
        free(perm);
        free(s0);
        free(s1);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    /* watched for sign flips: the regularized layers (all when none are) */
    int watch[NN_MAX_WL], any = 0;
    for (int i = 0; i < nn->nwl; i++)
        any |= watch[i] = selected(nn, i, o.exclude);
    if (!any && o.reg && !o.finetune) {
        free(perm);
        free(s0);
        free(s1);
        return cs_fail(err, CS_EINVAL, "reg=%s: every weight layer is excluded (try exclude=none)",
                       cs_reg_get_info(o.reg)->name);
    }
    if (!any)
        for (int i = 0; i < nn->nwl; i++)
            watch[i] = 1;
    size_t nsign = 0;
    rc = sign_snapshot(nn, watch, s0, &nsign, err);
    nn->ops->zero(nn->m, nn->nparams * sizeof(float));
    nn->ops->zero(nn->v, nn->nparams * sizeof(float));
    nn->ops->zero(nn->grads, nn->nparams * sizeof(float));
    nn->adam_t = 0;
    if (!rc && !newest_snapshot_is_current(nn))
        rc = cs_nn_snapshot_take(nn, nn->epoch_total, err);
    double t0 = cs_now(), regv = 0, reg_s = 0;
    size_t step = 0, images = 0;
    int stop = 0;
    for (int ep = 0; ep < o.epochs && !rc && !stop; ep++) {
        cs_rng srng, arng;
        cs_rng_init(&srng, nn->cfg.seed, 1000 + (uint64_t)nn->epoch_total);
        cs_rng_init(&arng, nn->cfg.seed, 1000000 + (uint64_t)nn->epoch_total);
        shuffle(perm, train->n, &srng);
        double eloss = 0;
        long ecorrect = 0;
        size_t eimg = 0;
        for (size_t b = 0; b < nb; b++) {
            if (cs_cancelled(o.cancel)) {
                stop = 1;
                break;
            }
            float lr = (float)(o.lr * 0.5 * (1.0 + cos(M_PI * (double)step / (double)total)));
            rc = load_batch(nn, train, perm + b * (size_t)B, B, o.augment ? &arng : NULL, err);
            if (!rc)
                rc = train_step(nn, &o, B, lr, 1, &regv, &reg_s, err);
            double l = 0;
            int c = 0;
            if (!rc)
                rc = batch_stats(nn, B, &l, &c, err);
            if (rc)
                break;
            eloss += l;
            ecorrect += c;
            eimg += (size_t)B;
            step++;
            nn->step_total++;
            if (o.hist_every > 0 && nn->step_total % (size_t)o.hist_every == 0) {
                rc = cs_nn_snapshot_take(nn, nn->epoch_total + (double)(b + 1) / (double)nb, err);
                if (rc)
                    break;
            }
            if (o.progress) {
                cs_nn_progress p = {ep + 1, o.epochs, b + 1, nb, eloss / (double)eimg, regv,
                                    lr};
                if (o.progress(o.progress_ctx, &p)) {
                    stop = 1;
                    break;
                }
            }
        }
        images += eimg;
        if (rc)
            break;
        if (eimg > 0) {
            rep->loss = eloss / (double)eimg;
            rep->train_accuracy = (double)ecorrect / (double)eimg;
        }
        if (stop && eimg < nb * (size_t)B)
            break;   /* an unfinished epoch does not count */
        nn->epoch_total++;
        rep->epochs_done++;
        size_t n1;
        rc = sign_snapshot(nn, watch, s1, &n1, err);
        if (rc)
            break;
        size_t flips = 0;
        for (size_t i = 0; i < n1; i++)
            flips += s0[i] != s1[i];
        if (ep < 64)
            rep->flip[ep] = n1 ? (double)flips / (double)n1 : 0.0;
        memcpy(s0, s1, n1);
        if (o.hist_every <= 0)
            rc = cs_nn_snapshot_take(nn, nn->epoch_total, err);
    }
    if (nn->ops->sync)
        nn->ops->sync();
    rep->seconds = cs_now() - t0;
    rep->steps = step;
    rep->images_per_s = rep->seconds > 0 ? (double)images / rep->seconds : 0;
    rep->reg_value = regv;
    rep->reg_seconds = reg_s;
    rep->partial = stop;
    free(perm);
    free(s0);
    free(s1);
    return rc;
}

/* ------------------------------------------------------------------ quantization */

static int quant_layer(cs_nn *nn, int i, int ternary, cs_nn_qlayer_report *r, float *sign,
                       float *alpha, cs_err *err)
{
    nn_wlayer *w = &nn->wl[i];
    int rc = cs_nn_wlayer_get(nn, (size_t)i, nn->hw, err);
    if (rc)
        return rc;
    float *q = malloc(w->cols * sizeof *q), *scr = malloc(w->cols * sizeof *scr);
    if (!q || !scr) {
        free(q);
        free(scr);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    snprintf(r->name, sizeof r->name, "%s", w->name);
    r->rows = w->rows;
    r->cols = w->cols;
    r->alpha_min = INFINITY;
    r->alpha_max = -INFINITY;
    double se = 0, sw = 0, asum = 0;
    size_t near = 0;
    for (size_t k = 0; k < w->rows; k++) {
        const float *x = nn->hw + k * w->cols;
        float tau, a = ternary ? cs_quant_ternary(x, w->cols, q, &tau, scr)
                               : cs_quant_binary(x, w->cols, q);
        if (alpha)
            alpha[k] = a;
        asum += a;
        if (a < r->alpha_min)
            r->alpha_min = a;
        if (a > r->alpha_max)
            r->alpha_max = a;
        for (size_t j = 0; j < w->cols; j++) {
            double d = (double)x[j] - q[j];
            se += d * d;
            sw += (double)x[j] * x[j];
            /* nearest level of the target set */
            double ax = fabs((double)x[j]), dist = fabs(ax - a);
            if (ternary && ax < dist)
                dist = ax;
            near += dist <= 0.01 * a;
            if (sign)
                sign[k * w->cols + j] = a > 0 ? (q[j] > 0) - (q[j] < 0) : 0.0f;
        }
    }
    free(q);
    free(scr);
    r->alpha_mean = asum / (double)w->rows;
    r->near_frac = (double)near / (double)(w->rows * w->cols);
    r->bin_error = sw > 0 ? sqrt(se / sw) : 0.0;
    return CS_OK;
}

static void size_report(cs_nn *nn, int ternary, cs_nn_exclude ex, cs_nn_quant_report *rep)
{
    double fp = 0, q = 0;
    for (int i = 0; i < nn->nt; i++) {
        nn_tensor *t = &nn->t[i];
        if (t->kind == NN_T_ALPHA)
            continue;
        fp += 32.0 * (double)t->n;
        if (t->kind == NN_T_W && selected(nn, t->wl, ex))
            q += (ternary ? 2.0 : 1.0) * (double)t->n + 32.0 * (double)nn->wl[t->wl].rows;
        else
            q += 32.0 * (double)t->n;
    }
    rep->bits_fp = fp;
    rep->bits_q = q;
    rep->compression = q > 0 ? fp / q : 0;
}

int cs_nn_quant_stats(cs_nn *nn, int ternary, cs_nn_exclude excl, cs_nn_quant_report *rep,
                      cs_err *err)
{
    memset(rep, 0, sizeof *rep);
    for (int i = 0; i < nn->nwl; i++) {
        if (!selected(nn, i, excl))
            continue;
        int rc = quant_layer(nn, i, ternary, &rep->layer[rep->nlayers++], NULL, NULL, err);
        if (rc)
            return rc;
    }
    size_report(nn, ternary, excl, rep);
    return CS_OK;
}

int cs_nn_quantize(cs_nn *nn, int ternary, cs_nn_exclude excl, cs_nn_quant_report *rep,
                   cs_err *err)
{
    memset(rep, 0, sizeof *rep);
    int any = 0;
    for (int i = 0; i < nn->nwl; i++)
        any |= selected(nn, i, excl);
    if (!any)
        return cs_fail(err, CS_EINVAL, "no layer to quantize: every weight layer is excluded "
                                       "(try exclude=none)");
    drop_quant(nn);
    float *sign = malloc(nn->maxrows * nn->maxcols * sizeof *sign);
    float *alpha = malloc(nn->maxrows * sizeof *alpha);
    int rc = (!sign || !alpha) ? cs_fail(err, CS_ENOMEM, "out of memory") : CS_OK;
    for (int i = 0; i < nn->nwl && !rc; i++) {
        if (!selected(nn, i, excl))
            continue;
        nn_wlayer *w = &nn->wl[i];
        rc = quant_layer(nn, i, ternary, &rep->layer[rep->nlayers++], sign, alpha, err);
        if (rc)
            break;
        w->sign = nn->ops->alloc(w->rows * w->cols * sizeof(float));
        if (!w->sign) {
            rc = cs_fail(err, CS_ENOMEM, "out of memory (%s)", nn->device);
            break;
        }
        if (nn->ops->upload(w->sign, sign, w->rows * w->cols * sizeof(float)) ||
            nn->ops->upload(nn->params + nn->t[w->talpha].off, alpha, w->rows * sizeof(float))) {
            rc = cs_fail(err, CS_EIO, "%s: upload failed", nn->device);
            break;
        }
        nn->ops->quant_apply(nn->params + nn->t[w->tw].off, w->sign,
                             nn->params + nn->t[w->talpha].off, (int)w->rows, (int)w->cols);
        w->quant = ternary ? 2 : 1;
    }
    free(sign);
    free(alpha);
    if (rc) {
        drop_quant(nn);
        return rc;
    }
    size_report(nn, ternary, excl, rep);
    return CS_OK;
}
