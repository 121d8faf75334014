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
    size_t at;          /* its numbers in the frame buffer (below) */
} watch_layer;

/* A frame's numbers, every layer's in one buffer of 4-byte words so that a
 * frame is one download (on a GPU each is a synchronization): per layer
 * α[rows], τ[rows], near[rows] (uint32) and the sign flips (uint32). */
#define FRAME_WORDS(rows) (3 * (rows) + 1)

struct cs_nn_watch {
    cs_nn *nn;
    int ternary, use_quant;
    watch_layer l[NN_MAX_WL];
    uint32_t *counts;   /* device: a histogram */
    uint32_t *frame;    /* device: the frame buffer */
    uint32_t *hframe;   /* its host copy */
    size_t frame_words;
};

void cs_nn_watch_free(cs_nn_watch *w)
{
    if (!w)
        return;
    const cs_nn_ops *o = w->nn->ops;
    for (int i = 0; i < w->nn->nwl; i++)
        o->release(w->l[i].bits);
    o->release(w->counts);
    o->release(w->frame);
    free(w->hframe);
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
    for (int i = 0; i < nn->nwl; i++) {
        w->l[i].at = w->frame_words;
        w->frame_words += FRAME_WORDS(nn->wl[i].rows);
    }
    w->counts = o->alloc(CS_NN_WATCH_BINS * sizeof(uint32_t));
    w->frame = o->alloc(w->frame_words * sizeof(uint32_t));
    w->hframe = malloc(w->frame_words * sizeof *w->hframe);
    uint32_t *buckets = malloc(65536 * sizeof *buckets);
    int rc = CS_OK;
    if (!w->counts || !w->frame || !w->hframe || !buckets)
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

/* The frame buffer's parts of layer i: α, τ, near (4-byte words) and the
 * flips, on the device (base w->frame) or the host (w->hframe). */
static float *part_alpha(uint32_t *base, const watch_layer *s)
{
    return (float *)(void *)(base + s->at);
}

static size_t part_rows(const cs_nn_watch *w, int i) { return w->nn->wl[i].rows; }

/* Layer i's kernels into the frame buffer: α_r of every row (the trained
 * scales of a quantized layer, else those of quantizing it now; τ_r too
 * when ternary), the weights near a level per row, the sign flips. */
static void layer_launch(cs_nn_watch *w, int i, int *levels, int *quantized)
{
    cs_nn *nn = w->nn;
    const cs_nn_ops *o = nn->ops;
    const nn_wlayer *l = &nn->wl[i];
    watch_layer *s = &w->l[i];
    const float *W = nn->params + nn->t[l->tw].off;
    size_t rows = part_rows(w, i), n = l->rows * l->cols;
    float *alpha = part_alpha(w->frame, s), *tau = alpha + rows;
    uint32_t *near = w->frame + s->at + 2 * rows, *flips = near + rows;
    *quantized = w->use_quant && l->quant;
    *levels = (*quantized ? l->quant == 2 : w->ternary) ? 3 : 2;
    if (*quantized)
        o->copy(alpha, nn->params + nn->t[l->talpha].off, rows * sizeof(float));
    else if (*levels == 2)
        o->watch->row_abs_mean(alpha, W, (int)rows, (int)l->cols);
    else
        o->watch->row_ternary(alpha, tau, W, (int)rows, (int)l->cols);
    o->watch->near_count(near, W, alpha, (int)rows, (int)l->cols, *levels == 3);
    o->watch->sign_flips(flips, s->bits, W, n);
}

/* Layer i's numbers from the frame buffer's host copy. */
static void layer_read(cs_nn_watch *w, int i, int levels, int quantized, cs_nn_watch_layer *f)
{
    const nn_wlayer *l = &w->nn->wl[i];
    watch_layer *s = &w->l[i];
    size_t rows = part_rows(w, i), n = l->rows * l->cols;
    const float *alpha = part_alpha(w->hframe, s), *tau = alpha + rows;
    const uint32_t *near = w->hframe + s->at + 2 * rows;
    f->quantized = quantized;
    f->levels = levels;
    f->tau_mean = NAN;
    if (!quantized && levels == 3) {
        double st = 0;
        size_t nt = 0;
        for (size_t r = 0; r < rows; r++)
            if (isfinite(tau[r])) {   /* a row of zeros has no threshold */
                st += tau[r];
                nt++;
            }
        f->tau_mean = nt ? st / (double)nt : NAN;
    }
    size_t nr = 0;
    double as = 0, amin = INFINITY, amax = -INFINITY;
    for (size_t r = 0; r < rows; r++) {
        nr += near[r];
        as += alpha[r];
        amin = fmin(amin, alpha[r]);
        amax = fmax(amax, alpha[r]);
    }
    f->near = (double)nr / (double)n;
    f->alpha_mean = as / (double)rows;
    f->alpha_min = amin;
    f->alpha_max = amax;
    f->flips = s->primed ? (double)near[rows] / (double)n : NAN;
    s->primed = 1;
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

int cs_nn_watch_frame(cs_nn_watch *w, int bins, int hist_layer, cs_nn_watch_layer *layers,
                      cs_err *err)
{
    if (bins < 1 || bins > CS_NN_WATCH_BINS)
        return cs_fail(err, CS_EINVAL, "watch: %d bins out of range 1..%d", bins,
                       CS_NN_WATCH_BINS);
    cs_nn *nn = w->nn;
    int levels[NN_MAX_WL], quantized[NN_MAX_WL];
    for (int i = 0; i < nn->nwl; i++) {
        const nn_wlayer *l = &nn->wl[i];
        cs_nn_watch_layer *f = &layers[i];
        memset(f, 0, sizeof *f);
        snprintf(f->name, sizeof f->name, "%s", l->name);
        f->rows = l->rows;
        f->cols = l->cols;
        f->regularized = w->l[i].regularized;
        f->lo = w->l[i].lo;
        f->hi = w->l[i].hi;
        if (hist_layer < 0 || hist_layer == i) {
            int rc = layer_hist(w, i, bins, f, err);
            if (rc)
                return rc;
        }
        layer_launch(w, i, &levels[i], &quantized[i]);
    }
    int rc = fetch(nn, w->hframe, w->frame, w->frame_words * sizeof(uint32_t), err);
    for (int i = 0; i < nn->nwl && !rc; i++)
        layer_read(w, i, levels[i], quantized[i], &layers[i]);
    return rc;
}

int cs_nn_watch_hist(cs_nn_watch *w, size_t layer, int bins, cs_nn_watch_layer *out,
                     cs_err *err)
{
    if (bins < 1 || bins > CS_NN_WATCH_BINS || layer >= (size_t)w->nn->nwl)
        return cs_fail(err, CS_EINVAL, "watch: layer %zu or %d bins out of range", layer, bins);
    return layer_hist(w, (int)layer, bins, out, err);
}
