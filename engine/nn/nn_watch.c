/* nn_watch.c — frames of a training run for a front end that shows it live
 * (cs_nn.h, "watching"): per weight layer an exact histogram over a range
 * fixed for the run, the per-row scales of the target levels, the share of
 * weights near a level, and sign flips against a bitmap kept on the device.
 * Everything runs on the network's backend through its ops (hist,
 * row_abs_mean, row_ternary, near_count, sign_flips); what comes back is
 * counts and per-row numbers. Nothing here writes the network. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn_internal.h"

typedef struct watch_layer {
    double lo, hi;
    int regularized;
    uint32_t *bits;     /* device: the signs at the previous frame */
    int primed;         /* bits hold a frame's signs */
} watch_layer;

struct cs_nn_watch {
    cs_nn *nn;
    int ternary, use_quant;
    watch_layer l[NN_MAX_WL];
    /* device scratch */
    uint32_t *counts, *near, *flips;
    float *alpha, *tau;
    /* host copies */
    uint32_t *hnear;
    float *halpha, *htau;
};

void cs_nn_watch_free(cs_nn_watch *w)
{
    if (!w)
        return;
    const cs_nn_ops *o = w->nn->ops;
    for (int i = 0; i < w->nn->nwl; i++)
        o->release(w->l[i].bits);
    o->release(w->counts);
    o->release(w->near);
    o->release(w->flips);
    o->release(w->alpha);
    o->release(w->tau);
    free(w->hnear);
    free(w->halpha);
    free(w->htau);
    free(w);
}

/* 1.25 × the 99.9th percentile of |x| (1 when it is 0), the percentile to
 * within 1%: the lower edge of its bucket among the 2^16 made of the top
 * 16 bits of |x|'s bits (the exponent and 7 bits of the mantissa). */
double nn_watch_range(const float *x, size_t n, uint32_t *cnt)
{
    memset(cnt, 0, 65536 * sizeof *cnt);
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], sizeof u);
        cnt[(u & 0x7fffffffu) >> 16]++;
    }
    size_t want = (size_t)(0.001 * (double)n), seen = 0;
    uint32_t b = 0x7fff;
    for (; b > 0; b--) {
        seen += cnt[b];
        if (seen > want)
            break;
    }
    uint32_t u = b << 16;
    float q;
    memcpy(&q, &u, sizeof q);
    return q > 0 && isfinite(q) ? 1.25 * (double)q : 1.0;
}

int cs_nn_watch_new(cs_nn_watch **out, cs_nn *nn, int ternary, cs_nn_exclude excl,
                    int use_quant, cs_err *err)
{
    *out = NULL;
    cs_nn_watch *w = calloc(1, sizeof *w);
    if (!w)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    w->nn = nn;
    w->ternary = ternary;
    w->use_quant = use_quant;
    const cs_nn_ops *o = nn->ops;
    w->counts = o->alloc(CS_NN_WATCH_BINS * sizeof(uint32_t));
    w->near = o->alloc(nn->maxrows * sizeof(uint32_t));
    w->flips = o->alloc(sizeof(uint32_t));
    w->alpha = o->alloc(nn->maxrows * sizeof(float));
    w->tau = o->alloc(nn->maxrows * sizeof(float));
    w->hnear = malloc(nn->maxrows * sizeof *w->hnear);
    w->halpha = malloc(nn->maxrows * sizeof *w->halpha);
    w->htau = malloc(nn->maxrows * sizeof *w->htau);
    uint32_t *buckets = malloc(65536 * sizeof *buckets);
    int rc = CS_OK;
    if (!w->counts || !w->near || !w->flips || !w->alpha || !w->tau || !w->hnear ||
        !w->halpha || !w->htau || !buckets)
        rc = cs_fail(err, CS_ENOMEM, "out of memory (%s) for watching", nn->device);
    for (int i = 0; i < nn->nwl && !rc; i++) {
        const nn_wlayer *l = &nn->wl[i];
        size_t n = l->rows * l->cols;
        watch_layer *s = &w->l[i];
        s->regularized = nn_selected(nn, i, excl);
        s->bits = o->alloc((n + 31) / 32 * sizeof(uint32_t));
        if (!s->bits) {
            rc = cs_fail(err, CS_ENOMEM, "out of memory (%s) for watching", nn->device);
            break;
        }
        if ((rc = cs_nn_wlayer_get(nn, (size_t)i, nn->hw, err)))
            break;
        s->hi = nn_watch_range(nn->hw, n, buckets);
        s->lo = -s->hi;
    }
    free(buckets);
    if (rc) {
        cs_nn_watch_free(w);
        return rc;
    }
    *out = w;
    return CS_OK;
}

static int fetch(cs_nn *nn, void *dst, const void *src, size_t bytes, cs_err *err)
{
    if (nn->ops->download(dst, src, bytes))
        return nn_device_fail(nn, "download", err);
    return CS_OK;
}

/* α_r of every row into w->halpha (and w->htau when ternary): the trained
 * scales of a quantized layer, else those of quantizing it now. Returns
 * the device array of α the near counts use. */
static int layer_scales(cs_nn_watch *w, int i, cs_nn_watch_layer *f, const float **dalpha,
                        cs_err *err)
{
    cs_nn *nn = w->nn;
    const nn_wlayer *l = &nn->wl[i];
    const float *W = nn->params + nn->t[l->tw].off;
    int rows = (int)l->rows, cols = (int)l->cols;
    f->quantized = w->use_quant && l->quant;
    f->levels = (f->quantized ? l->quant == 2 : w->ternary) ? 3 : 2;
    f->tau_mean = NAN;
    if (f->quantized) {
        *dalpha = nn->params + nn->t[l->talpha].off;
        return fetch(nn, w->halpha, *dalpha, l->rows * sizeof(float), err);
    }
    *dalpha = w->alpha;
    if (f->levels == 2) {
        nn->ops->watch->row_abs_mean(w->alpha, W, rows, cols);
        return fetch(nn, w->halpha, w->alpha, l->rows * sizeof(float), err);
    }
    nn->ops->watch->row_ternary(w->alpha, w->tau, W, rows, cols);
    int rc = fetch(nn, w->halpha, w->alpha, l->rows * sizeof(float), err);
    if (!rc)
        rc = fetch(nn, w->htau, w->tau, l->rows * sizeof(float), err);
    if (rc)
        return rc;
    double st = 0;
    size_t nt = 0;
    for (size_t r = 0; r < l->rows; r++)
        if (isfinite(w->htau[r])) {   /* a row of zeros has no threshold */
            st += w->htau[r];
            nt++;
        }
    f->tau_mean = nt ? st / (double)nt : NAN;
    return CS_OK;
}

/* The histogram of layer i over its range; when more than 1% of the
 * weights have left the range (fine-tuning grows the scales), the range
 * widens by half (it never shrinks within a run) and they are counted
 * again. */
static int layer_hist(cs_nn_watch *w, int i, int bins, cs_nn_watch_layer *f, cs_err *err)
{
    cs_nn *nn = w->nn;
    const nn_wlayer *l = &nn->wl[i];
    watch_layer *s = &w->l[i];
    size_t n = l->rows * l->cols;
    for (int tries = 0;; tries++) {
        f->bins = bins;
        f->lo = s->lo;
        f->hi = s->hi;
        nn->ops->watch->hist(w->counts, nn->params + nn->t[l->tw].off, n, (float)s->lo, (float)s->hi,
                      bins);
        int rc = fetch(nn, f->counts, w->counts, (size_t)bins * sizeof(uint32_t), err);
        if (rc)
            return rc;
        size_t inside = 0;
        for (int k = 0; k < bins; k++)
            inside += f->counts[k];
        f->outside = n - inside;
        if (f->outside * 100 <= n || tries == 8)
            return CS_OK;
        s->lo *= 1.5;
        s->hi *= 1.5;
    }
}

static int layer_frame(cs_nn_watch *w, int i, int bins, cs_nn_watch_layer *f, cs_err *err)
{
    cs_nn *nn = w->nn;
    const cs_nn_ops *o = nn->ops;
    const nn_wlayer *l = &nn->wl[i];
    watch_layer *s = &w->l[i];
    const float *W = nn->params + nn->t[l->tw].off;
    size_t n = l->rows * l->cols;
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", l->name);
    f->rows = l->rows;
    f->cols = l->cols;
    f->regularized = s->regularized;
    f->lo = s->lo;
    f->hi = s->hi;
    int rc = bins > 0 ? layer_hist(w, i, bins, f, err) : CS_OK;
    const float *dalpha;
    if (rc || (rc = layer_scales(w, i, f, &dalpha, err)))
        return rc;
    o->watch->near_count(w->near, W, dalpha, (int)l->rows, (int)l->cols, f->levels == 3);
    if ((rc = fetch(nn, w->hnear, w->near, l->rows * sizeof(uint32_t), err)))
        return rc;
    size_t near = 0;
    double as = 0, amin = INFINITY, amax = -INFINITY;
    for (size_t r = 0; r < l->rows; r++) {
        near += w->hnear[r];
        as += w->halpha[r];
        amin = fmin(amin, w->halpha[r]);
        amax = fmax(amax, w->halpha[r]);
    }
    f->near = (double)near / (double)n;
    f->alpha_mean = as / (double)l->rows;
    f->alpha_min = amin;
    f->alpha_max = amax;
    uint32_t flips;
    o->watch->sign_flips(w->flips, s->bits, W, n);
    if ((rc = fetch(nn, &flips, w->flips, sizeof flips, err)))
        return rc;
    f->flips = s->primed ? (double)flips / (double)n : NAN;
    s->primed = 1;
    return CS_OK;
}

int cs_nn_watch_frame(cs_nn_watch *w, int bins, int hist_layer, cs_nn_watch_layer *layers,
                      cs_err *err)
{
    if (bins < 1 || bins > CS_NN_WATCH_BINS)
        return cs_fail(err, CS_EINVAL, "watch: %d bins out of range 1..%d", bins,
                       CS_NN_WATCH_BINS);
    for (int i = 0; i < w->nn->nwl; i++) {
        int b = hist_layer < 0 || hist_layer == i ? bins : 0;
        int rc = layer_frame(w, i, b, &layers[i], err);
        if (rc)
            return rc;
    }
    return CS_OK;
}

int cs_nn_watch_hist(cs_nn_watch *w, size_t layer, int bins, cs_nn_watch_layer *out,
                     cs_err *err)
{
    if (bins < 1 || bins > CS_NN_WATCH_BINS || layer >= (size_t)w->nn->nwl)
        return cs_fail(err, CS_EINVAL, "watch: layer %zu or %d bins out of range", layer, bins);
    return layer_hist(w, (int)layer, bins, out, err);
}
