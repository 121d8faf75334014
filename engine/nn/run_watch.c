/* run_watch.c — the numbers of a run folder's snapshots (cs_run_watch.h).
 * Each snapshot is taken once, in order: every layer's file read (all or
 * the snapshot is skipped), then its scales, near share, level changes
 * against the last good snapshot and range computed and kept as a few
 * numbers; histograms are made when asked, from the file. */
#include "cs_run_watch.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn_internal.h"

enum { MSG_CAP = 32, MSG_LEN = 400 };

/* A layer at one snapshot. */
typedef struct run_sum {
    int have;
    size_t rows, cols;
    double lo, hi;
    double near, alpha_mean, alpha_min, alpha_max, tau_mean, flips;
} run_sum;

typedef struct good_snap {
    size_t snap;         /* index in the folder */
    size_t nl;           /* layers known when it was taken */
    run_sum *sum;        /* nl */
} good_snap;

/* What the next snapshot of a layer is compared with. */
typedef struct layer_state {
    size_t n;            /* weights (0: none seen) */
    double lo, hi;
    signed char *level;  /* n: the levels at the last good snapshot */
} layer_state;

struct cs_run_watch {
    cs_run_folder *rf;
    unsigned generation;
    int levels;          /* 0: not decided yet */
    size_t next;         /* the folder's next snapshot to take */
    good_snap *good;
    size_t ngood, cap;
    layer_state *ls;
    size_t nls;
    char msg[MSG_CAP][MSG_LEN];
    size_t msg_head, msg_len;
};

static void note(cs_run_watch *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(cs_run_watch *w, const char *fmt, ...)
{
    if (w->msg_len == MSG_CAP)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg[(w->msg_head + w->msg_len) % MSG_CAP], MSG_LEN, fmt, ap);
    va_end(ap);
    w->msg_len++;
}

int cs_run_watch_message(cs_run_watch *w, char *msg, size_t len)
{
    if (w->msg_len == 0)
        return cs_run_folder_message(w->rf, msg, len);
    snprintf(msg, len, "%s", w->msg[w->msg_head]);
    w->msg_head = (w->msg_head + 1) % MSG_CAP;
    w->msg_len--;
    return 1;
}

static void reset(cs_run_watch *w)
{
    for (size_t i = 0; i < w->ngood; i++)
        free(w->good[i].sum);
    for (size_t j = 0; j < w->nls; j++)
        free(w->ls[j].level);
    free(w->ls);
    w->ls = NULL;
    w->nls = 0;
    w->ngood = 0;
    w->next = 0;
    w->levels = 0;
}

int cs_run_watch_new(cs_run_watch **out, cs_run_folder *rf, cs_err *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    (*out)->rf = rf;
    (*out)->generation = cs_run_folder_generation(rf);
    return CS_OK;
}

void cs_run_watch_free(cs_run_watch *w)
{
    if (!w)
        return;
    reset(w);
    free(w->good);
    free(w);
}

/* run.json's levels, else the regularizer's target, else ±α. */
static int decide_levels(const cs_run_folder *rf)
{
    const cs_run_info *in = cs_run_folder_info(rf);
    if (in->levels)
        return in->levels;
    cs_reg *reg;
    cs_err err;
    if (strcmp(in->reg, "none") && cs_reg_new(&reg, in->reg, NULL, 0, 1, &err) == CS_OK) {
        int ter = cs_reg_family(reg) == CS_TARGET_TER;
        cs_reg_free(reg);
        return ter ? 3 : 2;
    }
    return 2;
}

/* ------------------------------------------------------------------ one layer */

/* The levels of w: −1, 0 (ternary, |w| below τ_r), +1; bin: the sign bit's
 * rule of the live frames (w < 0). */
static void levels_of(const float *x, size_t rows, size_t cols, const float *tau,
                      signed char *lv)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            float v = x[r * cols + c];
            signed char s = v < 0 ? -1 : 1;
            lv[r * cols + c] = tau && !(fabsf(v) >= tau[r]) ? 0 : s;
        }
}

/* The numbers of one layer of a snapshot against its state (which they
 * then replace). scratch: rows floats ×2 and 65536 counters. */
static int take_layer(cs_run_watch *w, layer_state *s, const float *x, size_t rows, size_t cols,
                      run_sum *out, cs_err *err)
{
    const cs_nn_watch_ops *o = &cs_nn_cpu_watch_ops;
    size_t n = rows * cols;
    int ter = w->levels == 3;
    float *alpha = malloc(rows * sizeof *alpha), *tau = ter ? malloc(rows * sizeof *tau) : NULL;
    uint32_t *near = malloc(rows * sizeof *near);
    signed char *lv = malloc(n);
    uint32_t *buckets = s->n != n ? malloc(65536 * sizeof *buckets) : NULL;
    if (!alpha || (ter && !tau) || !near || !lv || (s->n != n && !buckets)) {
        free(alpha);
        free(tau);
        free(near);
        free(lv);
        free(buckets);
        return cs_fail(err, CS_ENOMEM, "out of memory for a layer of %zu weights", n);
    }
    if (ter)
        o->row_ternary(alpha, tau, x, (int)rows, (int)cols);
    else
        o->row_abs_mean(alpha, x, (int)rows, (int)cols);
    o->near_count(near, x, alpha, (int)rows, (int)cols, ter);
    double as = 0, amin = INFINITY, amax = -INFINITY, ts = 0, nr = 0;
    size_t nt = 0;
    for (size_t r = 0; r < rows; r++) {
        nr += near[r];
        as += alpha[r];
        amin = fmin(amin, alpha[r]);
        amax = fmax(amax, alpha[r]);
        if (ter && isfinite(tau[r])) {   /* a row of zeros has no threshold */
            ts += tau[r];
            nt++;
        }
    }
    *out = (run_sum){.have = 1, .rows = rows, .cols = cols, .near = nr / (double)n,
                     .alpha_mean = as / (double)rows, .alpha_min = amin, .alpha_max = amax,
                     .tau_mean = nt ? ts / (double)nt : NAN, .flips = NAN};
    levels_of(x, rows, cols, ter ? tau : NULL, lv);
    if (s->n == n) {
        size_t f = 0;
        for (size_t i = 0; i < n; i++)
            f += lv[i] != s->level[i];
        out->flips = (double)f / (double)n;
    } else {   /* the layer's first snapshot (or another shape): a new range */
        s->hi = nn_watch_range(x, n, buckets);
        s->lo = -s->hi;
    }
    /* the live frames' rule: widen by half while over 1% is outside */
    for (int tries = 0;; tries++) {
        uint32_t inside;
        o->hist(&inside, x, n, (float)s->lo, (float)s->hi, 1);
        if ((n - inside) * 100 <= n || tries == 8)
            break;
        s->lo *= 1.5;
        s->hi *= 1.5;
    }
    out->lo = s->lo;
    out->hi = s->hi;
    free(s->level);
    s->level = lv;
    s->n = n;
    free(alpha);
    free(tau);
    free(near);
    free(buckets);
    return CS_OK;
}

/* ------------------------------------------------------------------ snapshots */

static int grow_states(cs_run_watch *w, size_t nl)
{
    if (nl <= w->nls)
        return 0;
    layer_state *ls = realloc(w->ls, nl * sizeof *ls);
    if (!ls)
        return -1;
    memset(ls + w->nls, 0, (nl - w->nls) * sizeof *ls);
    w->ls = ls;
    w->nls = nl;
    return 0;
}

/* Snapshot i of the folder: every file read first, so that a bad one
 * leaves the state as the last good snapshot left it. 1 taken, 0 skipped,
 * < 0 out of memory. */
static int take_snap(cs_run_watch *w, size_t i, cs_err *err)
{
    const cs_run_snap *s = cs_run_folder_snap(w->rf, i);
    size_t nl = cs_run_folder_layer_count(w->rf);
    if (grow_states(w, nl) ||
        (w->ngood == w->cap &&
         !(w->good = realloc(w->good, (w->cap = w->cap ? 2 * w->cap : 64) * sizeof *w->good))))
        return cs_fail(err, CS_ENOMEM, "out of memory");
    float **x = calloc(nl ? nl : 1, sizeof *x);
    size_t *rows = calloc(nl ? nl : 1, sizeof *rows), *cols = calloc(nl ? nl : 1, sizeof *cols);
    run_sum *sum = calloc(nl ? nl : 1, sizeof *sum);
    int rc = x && rows && cols && sum ? CS_OK : cs_fail(err, CS_ENOMEM, "out of memory");
    int bad = 0;
    for (size_t k = 0; rc == CS_OK && !bad && k < s->nfiles; k++) {
        size_t j = s->file[k].layer;
        cs_err e;
        if (x[j])
            continue;
        int r = cs_run_folder_load(w->rf, i, j, &x[j], &rows[j], &cols[j], &e);
        if (r == CS_ENOMEM) {
            rc = cs_fail(err, r, "%s", e.msg);
        } else if (r) {
            note(w, "step %.0f (metrics.jsonl line %zu) skipped: %s", s->step, s->line, e.msg);
            bad = 1;
        }
    }
    if (rc == CS_OK && !bad) {
        if (!w->levels)
            w->levels = decide_levels(w->rf);
        for (size_t j = 0; rc == CS_OK && j < nl; j++)
            if (x[j])
                rc = take_layer(w, &w->ls[j], x[j], rows[j], cols[j], &sum[j], err);
    }
    for (size_t j = 0; x && j < nl; j++)
        free(x[j]);
    free(x);
    free(rows);
    free(cols);
    if (rc || bad) {
        free(sum);
        return rc ? rc : 0;
    }
    w->good[w->ngood++] = (good_snap){i, nl, sum};
    return 1;
}

int cs_run_watch_update(cs_run_watch *w, cs_err *err)
{
    int rc = cs_run_folder_poll(w->rf, err);
    if (rc < 0)
        return rc;
    if (cs_run_folder_generation(w->rf) != w->generation) {
        w->generation = cs_run_folder_generation(w->rf);
        reset(w);
    }
    int taken = 0;
    for (; w->next < cs_run_folder_snap_count(w->rf); w->next++) {
        rc = take_snap(w, w->next, err);
        if (rc < 0)
            return rc;
        taken += rc;
    }
    return taken;
}

/* ------------------------------------------------------------------ access */

int cs_run_watch_levels(const cs_run_watch *w) { return w->levels ? w->levels : 2; }
size_t cs_run_watch_count(const cs_run_watch *w) { return w->ngood; }

const cs_run_snap *cs_run_watch_snap(const cs_run_watch *w, size_t k)
{
    return k < w->ngood ? cs_run_folder_snap(w->rf, w->good[k].snap) : NULL;
}

size_t cs_run_watch_at_step(const cs_run_watch *w, double step)
{
    size_t best = 0;
    for (size_t k = 0; k < w->ngood; k++)
        if (cs_run_watch_snap(w, k)->step <= step)
            best = k;
    return best;
}

static void short_name(const char *full, char *out, size_t len)
{
    size_t n = strlen(full);
    if (n < len)
        snprintf(out, len, "%.*s", (int)len - 1, full);
    else
        snprintf(out, len, "~%.*s", (int)len - 2, full + n - (len - 2));
}

int cs_run_watch_layer(const cs_run_watch *w, size_t k, size_t j, cs_nn_watch_layer *out,
                       cs_err *err)
{
    memset(out, 0, sizeof *out);
    const cs_run_layer *L = cs_run_folder_layer(w->rf, j);
    if (L) {
        short_name(L->name, out->name, sizeof out->name);
        out->rows = L->rows;
        out->cols = L->cols;
        out->regularized = L->regularized;
    }
    out->levels = cs_run_watch_levels(w);
    out->alpha_mean = out->alpha_min = out->alpha_max = out->tau_mean = NAN;
    out->near = out->flips = NAN;
    if (k >= w->ngood || j >= w->good[k].nl || !w->good[k].sum[j].have)
        return cs_fail(err, CS_ENOTFOUND, "no weights of layer %zu at snapshot %zu", j, k);
    const run_sum *s = &w->good[k].sum[j];
    out->rows = s->rows;
    out->cols = s->cols;
    out->lo = s->lo;
    out->hi = s->hi;
    out->alpha_mean = s->alpha_mean;
    out->alpha_min = s->alpha_min;
    out->alpha_max = s->alpha_max;
    out->tau_mean = s->tau_mean;
    out->near = s->near;
    out->flips = s->flips;
    return CS_OK;
}

int cs_run_watch_hist(const cs_run_watch *w, size_t k, size_t j, int bins, double lo, double hi,
                      cs_nn_watch_layer *out, cs_err *err)
{
    if (bins < 1 || bins > CS_NN_WATCH_BINS)
        return cs_fail(err, CS_EINVAL, "watch: %d bins out of range 1..%d", bins,
                       CS_NN_WATCH_BINS);
    int rc = cs_run_watch_layer(w, k, j, out, err);
    if (rc)
        return rc;
    float *x;
    size_t rows, cols;
    if ((rc = cs_run_folder_load(w->rf, w->good[k].snap, j, &x, &rows, &cols, err)))
        return rc;
    if (lo < hi) {
        out->lo = lo;
        out->hi = hi;
    }
    size_t n = rows * cols;
    cs_nn_cpu_watch_ops.hist(out->counts, x, n, (float)out->lo, (float)out->hi, bins);
    free(x);
    size_t inside = 0;
    for (int b = 0; b < bins; b++)
        inside += out->counts[b];
    out->bins = bins;
    out->outside = n - inside;
    return CS_OK;
}
