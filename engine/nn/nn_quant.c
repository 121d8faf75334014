/* nn_quant.c — quantization (paper sec. 3.4, step 2): quantizing the
 * network's weight layers in place with the statistics of doing so (the
 * quantizers of one vector are in nn_quant_math.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn_internal.h"

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
        return nn_device_fail(nn, "download", err);
    return CS_OK;
}

void nn_drop_quant(cs_nn *nn)
{
    for (int i = 0; i < nn->nwl; i++) {
        nn->ops->release(nn->wl[i].sign);
        nn->wl[i].sign = NULL;
        nn->wl[i].quant = 0;
    }
}

static int quant_layer(cs_nn *nn, int i, int ternary, cs_nn_qlayer_report *r, float *sign,
                       float *alpha, cs_err *err)
{
    nn_wlayer *w = &nn->wl[i];
    int rc = cs_nn_wlayer_get(nn, (size_t)i, nn->hw, err);
    if (rc)
        return rc;
    float *q = malloc(w->cols * sizeof *q), *scr = malloc(2 * w->cols * sizeof *scr);
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
        if (t->kind == NN_T_W && nn_selected(nn, t->wl, ex))
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
        if (!nn_selected(nn, i, excl))
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
        any |= nn_selected(nn, i, excl);
    if (!any)
        return cs_fail(err, CS_EINVAL, "no layer to quantize: every weight layer is excluded "
                                       "(try exclude=none)");
    nn_drop_quant(nn);
    float *sign = malloc(nn->maxrows * nn->maxcols * sizeof *sign);
    float *alpha = malloc(nn->maxrows * sizeof *alpha);
    int rc = (!sign || !alpha) ? cs_fail(err, CS_ENOMEM, "out of memory") : CS_OK;
    for (int i = 0; i < nn->nwl && !rc; i++) {
        if (!nn_selected(nn, i, excl))
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
            rc = nn_device_fail(nn, "upload", err);
            break;
        }
        nn->ops->reg->quant_apply(nn->params + nn->t[w->tw].off, w->sign,
                                  nn->params + nn->t[w->talpha].off, (int)w->rows,
                                  (int)w->cols);
        w->quant = ternary ? 2 : 1;
    }
    free(sign);
    free(alpha);
    if (rc) {
        nn_drop_quant(nn);
        return rc;
    }
    size_report(nn, ternary, excl, rep);
    return CS_OK;
}
