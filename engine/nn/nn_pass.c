/* nn_pass.c — forward and backward through the backend op table, the
 * per-layer regularizer term λ Σ_k η_k ℓ(θ_k) and its gradient, loading
 * batches, and evaluation. The call sequence is the same for every
 * backend. */
#include <math.h>
#include <stdlib.h>

#include "cs_rng.h"
#include "nn_internal.h"

/* Fashion-MNIST pixel statistics (x/255) */
#define PIX_MEAN 0.2860f
#define PIX_STD 0.3530f

void cs_nn_input_norm(double *mean, double *std)
{
    *mean = PIX_MEAN;
    *std = PIX_STD;
}

/* channel c's mean and std as floats (the fixed default: Fashion-MNIST's) */
static void channel_norm(const cs_nn *nn, int c, float *mean, float *std)
{
    int own = nn->cfg.in_std[0] > 0;
    *mean = own ? nn->cfg.in_mean[c] : PIX_MEAN;
    *std = own ? nn->cfg.in_std[c] : PIX_STD;
}

void cs_nn_get_channel_norm(const cs_nn *nn, int c, double *mean, double *std)
{
    float m, s;
    channel_norm(nn, c >= 0 && c < nn->in_c ? c : 0, &m, &s);
    *mean = m;
    *std = s;
}

void cs_nn_get_input_norm(const cs_nn *nn, double *mean, double *std)
{
    cs_nn_get_channel_norm(nn, 0, mean, std);
}

int cs_nn_check_data(const cs_nn *nn, const cs_nn_data *d, cs_err *err)
{
    int c, h, w, k;
    cs_nn_data_shape(d, &c, &h, &w, &k);
    const cs_nn_config *f = &nn->cfg;
    if (c == f->channels && h == f->height && w == f->width && k <= f->classes)
        return CS_OK;
    return cs_fail(err, CS_EDIM, "the network takes %d×%d×%d images and %d classes; the data "
                   "has %d×%d×%d images and %d classes", f->channels, f->height, f->width,
                   f->classes, c, h, w, k);
}

/* ------------------------------------------------------------------ forward / backward */

static const float *layer_in(const cs_nn *nn, int i)
{
    return i == 0 ? nn->x : nn->layer[i - 1].out;
}

/* Layer i is a batch norm with a ReLU after it and the backend fuses the
 * two (the same values, one pass fewer). */
static int fused_relu(const cs_nn *nn, int i)
{
    return nn->ops->bn_relu_forward && nn->ops->bn_relu_backward && i + 1 < nn->nlayers &&
           nn->layer[i].type == NN_BN && nn->layer[i + 1].type == NN_RELU;
}

/* Layers i, i + 1, i + 2 are a basic block's batch norm, residual add and
 * ReLU, and the backend fuses the three. */
static int fused_add(const cs_nn *nn, int i)
{
    return nn->ops->bn_add_relu_forward && nn->ops->bn_add_relu_backward && i >= 0 &&
           i + 2 < nn->nlayers && nn->layer[i].type == NN_BN &&
           nn->layer[i + 1].type == NN_ADD && nn->layer[i + 2].type == NN_RELU;
}

/* Layer i is a dense layer with a ReLU after it and the backend fuses the
 * two. */
static int fused_dense(const cs_nn *nn, int i)
{
    return nn->ops->matmul_relu_forward && nn->ops->matmul_relu_backward &&
           i + 1 < nn->nlayers && nn->layer[i].type == NN_DENSE &&
           nn->layer[i + 1].type == NN_RELU;
}

void nn_forward(cs_nn *nn, int B, int train)
{
    const cs_nn_ops *o = nn->ops;
    float *P = nn->params;
    for (int i = 0; i < nn->nlayers; i++) {
        nn_layer *l = &nn->layer[i];
        const float *in = layer_in(nn, i);
        switch (l->type) {
        case NN_DENSE:
            if (fused_dense(nn, i)) {   /* the ReLU's output, and the ReLU skipped */
                o->matmul_relu_forward(nn->layer[i + 1].out, in, P + nn->t[l->tw].off,
                                       P + nn->t[l->tb].off, B, l->C, l->OC);
                i++;
                break;
            }
            o->matmul_forward(l->out, in, P + nn->t[l->tw].off, P + nn->t[l->tb].off, B, l->C,
                              l->OC);
            break;
        case NN_CONV:
            if (nn_conv_plain(l))
                o->conv_forward(l->out, in, P + nn->t[l->tw].off, nn->scratch, B, l->C, l->H,
                                l->W, l->OC);
            else
                o->convk_forward(l->out, in, P + nn->t[l->tw].off, nn->scratch, B, l->C, l->H,
                                 l->W, l->OC, l->k, l->stride);
            break;
        case NN_BN:
            if (fused_add(nn, i)) {   /* the block's ReLU's output; the add and ReLU skipped */
                const nn_layer *sc = &nn->layer[nn->layer[i + 1].src];
                o->bn_add_relu_forward(nn->layer[i + 2].out, in, sc->out, P + nn->t[l->tw].off,
                                       P + nn->t[l->tb].off, l->mean, l->rstd,
                                       nn->bufs + l->boff, nn->bufs + l->boff + l->C, B, l->C,
                                       l->H, l->W, sc->OC, sc->OH, sc->OW, train);
                i += 2;
                break;
            }
            if (fused_relu(nn, i)) {   /* the ReLU's output, and the ReLU skipped */
                o->bn_relu_forward(nn->layer[i + 1].out, in, P + nn->t[l->tw].off,
                                   P + nn->t[l->tb].off, l->mean, l->rstd, nn->bufs + l->boff,
                                   nn->bufs + l->boff + l->C, B, l->C, l->H * l->W, train);
                i++;
                break;
            }
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
        case NN_ADD: {
            const nn_layer *sc = &nn->layer[l->src];
            o->residual_forward(l->out, in, sc->out, B, l->C, l->H, l->W, sc->OC, sc->OH, sc->OW);
            break;
        }
        case NN_GAP:
            o->avgpool_forward(l->out, in, B, l->C, l->H * l->W);
            break;
        }
    }
    nn_layer *last = &nn->layer[nn->nlayers - 1];
    o->softmax_ce_forward(nn->probs, nn->losses, last->out, nn->y, B, nn->classes);
}

/* dinp, the gradient of layer j's output, gets the shortcut's gradient
 * when an add took that output (resnet20: the block's first convolution
 * passed back, the add's part waiting in dskip). Returns dskip instead when
 * layer j ends a fused block (fused_backward adds it in its pass). */
static const float *add_skip(cs_nn *nn, int j, float *dinp, int B)
{
    if (j < 0 || !nn->layer[j].skip)
        return NULL;
    if (fused_add(nn, j - 2))
        return nn->dskip;
    nn->ops->axpy(dinp, nn->dskip, 1.0f, (size_t)B * nn->layer[j].out_sz);
    return NULL;
}

/* The backward of the fused block ending at ReLU i (fused_add(i − 2)):
 * the masked gradient dres goes to the batch norm and is the shortcut's:
 * dskip itself for the identity, else the shortcut of dout's buffer
 * (masked in place, free after this). pending: dskip still to add to dout. */
static void fused_backward(cs_nn *nn, int i, float *dinp, const float *dout,
                           const float *pending, int B)
{
    const cs_nn_ops *o = nn->ops;
    const nn_layer *add = &nn->layer[i - 1], *bn = &nn->layer[i - 2];
    const nn_layer *sc = &nn->layer[add->src];
    int ident = sc->OC == add->C && sc->OH == add->H && sc->OW == add->W;
    float *dres = ident ? nn->dskip : (float *)dout;   /* dout: d0 or d1 (fused_ok) */
    o->bn_add_relu_backward(dinp, nn->grads + nn->t[bn->tw].off, nn->grads + nn->t[bn->tb].off,
                            dres, dout, pending, nn->layer[i].out, layer_in(nn, i - 2),
                            nn->params + nn->t[bn->tw].off, bn->mean, bn->rstd, B, bn->C,
                            bn->H * bn->W);
    if (!ident)
        o->residual_backward(nn->dskip, dres, B, add->C, add->H, add->W, sc->OC, sc->OH, sc->OW);
}

/* whether fused_backward may take ReLU i's gradient dout (option A masks
 * it in place: one of the two gradient buffers) */
static int fused_ok(const cs_nn *nn, int i, const float *dout)
{
    return i >= 2 && fused_add(nn, i - 2) && (dout == nn->d0 || dout == nn->d1);
}

void nn_backward(cs_nn *nn, int B)
{
    const cs_nn_ops *o = nn->ops;
    float *P = nn->params, *G = nn->grads;
    o->softmax_ce_backward(nn->dlogits, nn->probs, nn->y, B, nn->classes);
    const float *dout = nn->dlogits;
    float *bufs[2] = {nn->d0, nn->d1};
    int which = 0;
    const float *pending = NULL;   /* dskip, still to add to dout */
    for (int i = nn->nlayers - 1; i >= 0; i--) {
        if (fused_ok(nn, i, dout)) {   /* ReLU i, add i − 1, batch norm i − 2 */
            float *dinp = bufs[which];
            fused_backward(nn, i, dinp, dout, pending, B);
            i -= 2;
            pending = add_skip(nn, i - 1, dinp, B);
            dout = dinp;
            which ^= 1;
            continue;
        }
        if (pending) {   /* not taken by a fused block after all */
            o->axpy((float *)dout, pending, 1.0f, (size_t)B * nn->layer[i].out_sz);
            pending = NULL;
        }
        if (i > 0 && fused_relu(nn, i - 1)) {   /* the ReLU i and the batch norm i − 1 */
            nn_layer *bn = &nn->layer[i - 1];
            float *dinp = i - 1 > 0 ? bufs[which] : NULL;
            o->bn_relu_backward(dinp, G + nn->t[bn->tw].off, G + nn->t[bn->tb].off, dout,
                                nn->layer[i].out, layer_in(nn, i - 1), P + nn->t[bn->tw].off,
                                P + nn->t[bn->tb].off, bn->mean, bn->rstd, B, bn->C,
                                bn->H * bn->W);
            i--;
            if (dinp) {
                pending = add_skip(nn, i - 1, dinp, B);
                dout = dinp;
                which ^= 1;
            }
            continue;
        }
        if (i > 0 && fused_dense(nn, i - 1)) {   /* the ReLU i and the dense layer i − 1 */
            nn_layer *d = &nn->layer[i - 1];
            /* the mask where the ReLU's gradient went, the dense layer's after it */
            float *dmask = bufs[which], *dinp = i - 1 > 0 ? bufs[which ^ 1] : NULL;
            o->matmul_relu_backward(dinp, G + nn->t[d->tw].off, G + nn->t[d->tb].off, dmask,
                                    dout, nn->layer[i].out, layer_in(nn, i - 1),
                                    P + nn->t[d->tw].off, B, d->C, d->OC);
            i--;
            if (dinp) {
                pending = add_skip(nn, i - 1, dinp, B);
                dout = dinp;
            }
            continue;
        }
        nn_layer *l = &nn->layer[i];
        const float *in = layer_in(nn, i);
        float *dinp = i > 0 ? bufs[which] : NULL;
        switch (l->type) {
        case NN_DENSE:
            o->matmul_backward(dinp, G + nn->t[l->tw].off, G + nn->t[l->tb].off, dout, in,
                               P + nn->t[l->tw].off, B, l->C, l->OC);
            break;
        case NN_CONV:
            if (nn_conv_plain(l))
                o->conv_backward(dinp, G + nn->t[l->tw].off, dout, in, P + nn->t[l->tw].off,
                                 nn->scratch, B, l->C, l->H, l->W, l->OC);
            else
                o->convk_backward(dinp, G + nn->t[l->tw].off, dout, in, P + nn->t[l->tw].off,
                                  nn->scratch, B, l->C, l->H, l->W, l->OC, l->k, l->stride);
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
        case NN_ADD: {   /* dout goes on to the block as it is; its shortcut's part waits */
            const nn_layer *sc = &nn->layer[l->src];
            o->residual_backward(nn->dskip, dout, B, l->C, l->H, l->W, sc->OC, sc->OH, sc->OW);
            continue;
        }
        case NN_GAP:
            if (dinp)
                o->avgpool_backward(dinp, dout, B, l->C, l->H * l->W);
            break;
        }
        if (dinp) {
            pending = add_skip(nn, i - 1, dinp, B);
            dout = dinp;
            which ^= 1;
        }
    }
}

/* ------------------------------------------------------------------ regularizer */

/* The instance's kernel when the backends have its row ops (nn_backend.h),
 * else CS_REG_KERNEL_NONE. */
static int reg_kernel(const cs_reg *reg)
{
    cs_reg_kernel k = cs_reg_kernel_of(reg);
    if (cs_reg_kernel_class(k) == CS_KC_NONE || (cs_reg_kernel_flags(k) & CS_KF_TAIL))
        return CS_REG_KERNEL_NONE;
    return k;
}

int nn_check_reg(const cs_reg *reg, cs_err *err)
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

/* η of weight layer w: 1/cols per row, or 1/(rows·cols), the layer's sum
 * over its size */
static double reg_dim(const nn_wlayer *w, cs_nn_eta eta)
{
    return eta == CS_NN_ETA_LAYER ? (double)w->rows * (double)w->cols : (double)w->cols;
}

/* λ Σ_k η_k ℓ(θ_k) over the rows of weight layer i; with grad, adds its
 * gradient to the layer's weight gradient. With a float kernel the rows'
 * values stay on the device (regval at the layer's roff) for nn_reg_all to
 * fetch in one download; without, the layer's value goes to *value. */
static int reg_layer(cs_nn *nn, cs_reg *reg, int kind, double lambda, int i, cs_nn_eta eta,
                     int grad, double *value, cs_err *err)
{
    const cs_nn_ops *o = nn->ops;
    nn_wlayer *w = &nn->wl[i];
    double dim = reg_dim(w, eta);
    float scale = (float)(lambda / dim);
    const float *W = nn->params + nn->t[w->tw].off;
    float *dW = grad ? nn->grads + nn->t[w->tw].off : nn->regtmp;
    if (kind != CS_REG_KERNEL_NONE) {
        if (!grad)
            o->zero(nn->regtmp, w->rows * w->cols * sizeof(float));
        o->reg->rows(dW, nn->regval + w->roff, W, (int)w->rows, (int)w->cols, kind, scale);
        return CS_OK;
    }
    /* generic: cs_reg_eval in double on the host, row by row */
    if (o->download(nn->hw, W, w->rows * w->cols * sizeof(float)))
        return nn_device_fail(nn, "download", err);
    double total = 0;
    for (size_t r = 0; r < w->rows; r++) {
        float *row = nn->hw + r * w->cols;
        for (size_t j = 0; j < w->cols; j++)
            nn->hd1[j] = row[j];
        double v;
        int rc = cs_reg_eval(reg, nn->hd1, 1, w->cols, &v, grad ? nn->hd2 : NULL, err);
        if (rc)
            return rc;
        total += lambda / dim * v;
        if (grad)
            for (size_t j = 0; j < w->cols; j++)
                row[j] = (float)nn->hd2[j];
    }
    if (grad) {
        if (o->upload(nn->regtmp, nn->hw, w->rows * w->cols * sizeof(float)))
            return nn_device_fail(nn, "upload", err);
        o->axpy(dW, nn->regtmp, scale, w->rows * w->cols);
    }
    *value = total;
    return CS_OK;
}

/* The first half of nn_reg_all: every selected layer's kernel (with a
 * float kernel the rows' values stay on the device), or its value on the
 * host into part[i] (without). */
int nn_reg_launch(cs_nn *nn, cs_reg *reg, double lambda, cs_nn_exclude ex, cs_nn_eta eta,
                  int grad, double *part, cs_err *err)
{
    int kind = reg_kernel(reg);
    for (int i = 0; i < nn->nwl; i++)
        if (nn_selected(nn, i, ex)) {
            int rc = reg_layer(nn, reg, kind, lambda, i, eta, grad, &part[i], err);
            if (rc)
                return rc;
        }
    return CS_OK;
}

/* Its second half: one download of the rows' values, the sum per layer
 * and over the layers in layer order. */
int nn_reg_total(cs_nn *nn, cs_reg *reg, double lambda, cs_nn_exclude ex, cs_nn_eta eta,
                 double *part, double *value, cs_err *err)
{
    int kind = reg_kernel(reg), any = 0;
    for (int i = 0; i < nn->nwl; i++)
        any |= nn_selected(nn, i, ex);
    if (any && kind != CS_REG_KERNEL_NONE &&
        nn->ops->download(nn->hregval, nn->regval, nn->allrows * sizeof(double)))
        return nn_device_fail(nn, "download", err);
    double total = 0;
    for (int i = 0; i < nn->nwl; i++)
        if (nn_selected(nn, i, ex)) {
            const nn_wlayer *w = &nn->wl[i];
            if (kind != CS_REG_KERNEL_NONE) {
                double dim = reg_dim(w, eta);
                part[i] = 0;
                for (size_t r = 0; r < w->rows; r++)
                    part[i] += lambda / dim * nn->hregval[w->roff + r];
            }
            total += part[i];
        }
    if (!isfinite(total))
        return cs_fail(err, CS_ENONFINITE, "the regularizer value is not finite (%g)", total);
    *value = total;
    return CS_OK;
}

/* λ Σ_k η_k ℓ(θ_k) over the selected layers (per layer, summed in layer
 * order); with grad, adds its gradient to the weight gradients. Every
 * layer's kernel runs first, then one download of their rows' values (on
 * a GPU one synchronization a step, not one a layer). */
int nn_reg_all(cs_nn *nn, cs_reg *reg, double lambda, cs_nn_exclude ex, cs_nn_eta eta,
               int grad, double *value, cs_err *err)
{
    double part[NN_MAX_WL];
    int rc = nn_reg_launch(nn, reg, lambda, ex, eta, grad, part, err);
    return rc ? rc : nn_reg_total(nn, reg, lambda, ex, eta, part, value, err);
}

/* Whether the regularizer's value and gradient are device ops alone (a
 * float kernel), which a step's graph can hold. */
int nn_reg_on_device(const cs_reg *reg)
{
    return reg_kernel(reg) != CS_REG_KERNEL_NONE;
}

int cs_nn_reg_value(cs_nn *nn, cs_reg *reg, double lambda, cs_nn_exclude excl, double *value,
                    cs_err *err)
{
    int rc = nn_check_reg(reg, err);
    if (rc)
        return rc;
    return nn_reg_all(nn, reg, lambda, excl, CS_NN_ETA_ROW, 0, value, err);
}

int cs_nn_reg_value_eta(cs_nn *nn, cs_reg *reg, double lambda, cs_nn_exclude excl,
                        cs_nn_eta eta, double *value, cs_err *err)
{
    int rc = nn_check_reg(reg, err);
    if (rc)
        return rc;
    return nn_reg_all(nn, reg, lambda, excl, eta, 0, value, err);
}

/* ------------------------------------------------------------------ batches */

/* Fill the host batch from examples idx[0..B) (shifted when aug) and upload. */
int nn_load_batch(cs_nn *nn, const cs_nn_data *d, const size_t *idx, int B, cs_rng *aug,
                      cs_err *err)
{
    /* the network's normalization per channel (the default: the same floats
     * as ever) */
    float lut[CS_NN_MAX_CHANNELS][256];
    const int C = nn->in_c, H = nn->cfg.height, W = nn->cfg.width, pad = nn->cfg.pad;
    const int IH = nn->in_h, IW = nn->in_w;
    for (int c = 0; c < C; c++) {
        float m, sd;
        channel_norm(nn, c, &m, &sd);
        for (int i = 0; i < 256; i++)
            lut[c][i] = ((float)i / 255.0f - m) / sd;
    }
    const size_t plane = (size_t)H * W, isz = (size_t)C * plane;
    const size_t pixels = (size_t)C * IH * IW;
    for (int b = 0; b < B; b++) {
        const uint8_t *img = d->images + idx[b] * isz;
        float *x = nn->hx + (size_t)b * pixels;
        nn->hy[b] = d->labels[idx[b]];
        if (!aug && !pad) {
            for (int c = 0; c < C; c++)
                for (size_t i = 0; i < plane; i++)
                    x[c * plane + i] = lut[c][img[c * plane + i]];
            continue;
        }
        /* shifted by up to 2 pixels (aug, the same shift for every channel),
         * inside a border of pad pixels; the background (the normalized 0)
         * where no pixel of the image falls */
        int dx = 0, dy = 0;
        if (aug) {
            dx = (int)cs_rng_below(aug, 5) - 2;
            dy = (int)cs_rng_below(aug, 5) - 2;
        }
        for (int c = 0; c < C; c++) {
            const uint8_t *ic = img + c * plane;
            float *xc = x + (size_t)c * IH * IW;
            for (int yy = 0; yy < IH; yy++) {
                int sy = yy - pad - dy;
                for (int xx = 0; xx < IW; xx++) {
                    int sx = xx - pad - dx;
                    xc[yy * IW + xx] = (sy >= 0 && sy < H && sx >= 0 && sx < W)
                                           ? lut[c][ic[sy * W + sx]]
                                           : lut[c][0];
                }
            }
        }
    }
    if (nn->ops->upload(nn->x, nn->hx, (size_t)B * pixels * sizeof(float)) ||
        nn->ops->upload(nn->y, nn->hy, (size_t)B * sizeof(int32_t)))
        return nn_device_fail(nn, "upload of a batch", err);
    return CS_OK;
}

/* Sum of losses and number correct of the last forward. */
int nn_batch_stats(cs_nn *nn, int B, double *loss, int *correct, cs_err *err)
{
    int rc = nn_device_check(nn, err);
    if (rc)
        return rc;
    const int K = nn->classes;
    if (nn->ops->download(nn->hprobs, nn->probs, (size_t)B * K * sizeof(float)) ||
        nn->ops->download(nn->hlosses, nn->losses, (size_t)B * sizeof(float)))
        return nn_device_fail(nn, "download", err);
    double s = 0;
    int c = 0;
    for (int b = 0; b < B; b++) {
        s += nn->hlosses[b];
        const float *p = nn->hprobs + (size_t)b * K;
        int k = 0;
        for (int j = 1; j < K; j++)
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

/* Test accuracy and mean loss in batches of B (<= the capacity). */
static int evaluate_batches(cs_nn *nn, const cs_nn_data *test, int B, double *accuracy,
                            double *loss, cs_err *err)
{
    size_t *idx = malloc((size_t)B * sizeof *idx);
    if (!idx)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    double ls = 0;
    long correct = 0;
    int rc = CS_OK;
    for (size_t s = 0; s < test->n; s += (size_t)B) {
        int nb = (int)(test->n - s < (size_t)B ? test->n - s : (size_t)B);
        for (int b = 0; b < nb; b++)
            idx[b] = s + (size_t)b;
        rc = nn_load_batch(nn, test, idx, nb, NULL, err);
        if (rc)
            break;
        nn_forward(nn, nb, 0);
        double l;
        int c;
        rc = nn_batch_stats(nn, nb, &l, &c, err);
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

int cs_nn_evaluate(cs_nn *nn, const cs_nn_data *test, double *accuracy, double *loss,
                   cs_err *err)
{
    if (!test || test->n == 0)
        return cs_fail(err, CS_ESTATE, "no test data");
    int rc = cs_nn_check_data(nn, test, err);
    if (rc)
        return rc;
    int B = nn->cap >= 64 ? nn->cap : 256;
    if ((rc = nn_ensure_cap(nn, B, err)))
        return rc;
    return evaluate_batches(nn, test, B, accuracy, loss, err);
}

int cs_nn_evaluate_in_place(cs_nn *nn, const cs_nn_data *test, double *accuracy, double *loss,
                            cs_err *err)
{
    if (!test || test->n == 0)
        return cs_fail(err, CS_ESTATE, "no test data");
    if (nn->cap == 0)
        return cs_fail(err, CS_ESTATE, "no batch buffers yet (train a step first)");
    int rc = cs_nn_check_data(nn, test, err);
    if (rc)
        return rc;
    return evaluate_batches(nn, test, nn->cap, accuracy, loss, err);
}

int cs_nn_logits(cs_nn *nn, const cs_nn_data *test, size_t n, float *logits, cs_err *err)
{
    if (!test || n > test->n)
        return cs_fail(err, CS_EINVAL, "logits: %zu images asked, the data has %zu", n,
                       test ? test->n : 0);
    int B = nn->cap >= 64 ? nn->cap : 256;
    int rc = cs_nn_check_data(nn, test, err);
    if (!rc)
        rc = nn_ensure_cap(nn, B, err);
    size_t *idx = rc ? NULL : malloc((size_t)B * sizeof *idx);
    if (!rc && !idx)
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    const nn_layer *last = &nn->layer[nn->nlayers - 1];
    for (size_t s = 0; !rc && s < n; s += (size_t)B) {
        int nb = (int)(n - s < (size_t)B ? n - s : (size_t)B);
        for (int b = 0; b < nb; b++)
            idx[b] = s + (size_t)b;
        rc = nn_load_batch(nn, test, idx, nb, NULL, err);
        if (rc)
            break;
        nn_forward(nn, nb, 0);
        if (!(rc = nn_device_check(nn, err)) &&
            nn->ops->download(logits + s * (size_t)nn->classes, last->out,
                              (size_t)nb * nn->classes * sizeof(float)))
            rc = nn_device_fail(nn, "download", err);
    }
    free(idx);
    return rc;
}
