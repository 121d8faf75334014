/* nn_snapshot.c — weight snapshots taken while training (a ring buffer),
 * and weight histograms: exact counts on the host, uniform bins of a
 * layer on the backend. */
#include <stdlib.h>
#include <string.h>

#include "nn_internal.h"

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
int nn_snapshot_is_current(cs_nn *nn)
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
    nn->ops->watch->hist(dc, src, n, (float)lo, (float)hi, (int)nbins);
    int rc = nn->ops->download(hc, dc, nbins * sizeof(uint32_t));
    for (size_t k = 0; k < nbins; k++)
        counts[k] = hc[k];
    nn->ops->release(dc);
    free(hc);
    return rc ? nn_device_fail(nn, "download", err) : CS_OK;
}

/* ------------------------------------------------------------------ histograms */

void cs_nn_hist_counts(const float *x, size_t n, const double *edges, size_t nbins,
                       uint64_t *counts)
{
    memset(counts, 0, nbins * sizeof *counts);
    if (nbins == 0)
        return;
    double lo = edges[0], hi = edges[nbins];
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        if (!(v >= lo && v <= hi))
            continue;
        /* last edge <= v: binary search */
        size_t a = 0, b = nbins;   /* edges[a] <= v, answer in [a, b) */
        while (b - a > 1) {
            size_t m = (a + b) / 2;
            if (edges[m] <= v)
                a = m;
            else
                b = m;
        }
        counts[a]++;
    }
}
