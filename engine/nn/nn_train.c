/* nn_train.c — the training loop: Adam with cosine annealing on the
 * regularized loss, fine-tuning of a quantized network's scales, sign-flip
 * ratios and weight snapshots along the way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_clock.h"
#include "cs_rng.h"
#include "nn_internal.h"

#define ADAM_B1 0.9f
#define ADAM_B2 0.999f
#define ADAM_EPS 1e-8f

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

/* A step's device work: forward, backward, the regularizer's kernels
 * (reg_on; its value waits in part/regval for nn_reg_total), Adam, and a
 * fine-tuned network's quantized weights. */
static int step_ops(cs_nn *nn, const cs_nn_train_opts *o, int B, float lr, int reg_on,
                    double *part, double *reg_s, cs_err *err)
{
    nn_forward(nn, B, 1);
    nn_backward(nn, B);
    const cs_nn_ops *ops = nn->ops;
    if (reg_on) {
        double t0 = cs_now();
        int rc = nn_reg_launch(nn, o->reg, o->lambda, o->exclude, o->eta, 1, part, err);
        *reg_s += cs_now() - t0;
        if (rc)
            return rc;
    }
    /* Adam on the tensors that learn, one call per run of them that lie
     * side by side (Adam is elementwise: the same bits as a call per
     * tensor, and on a GPU a launch per run instead of per tensor) */
    size_t run = 0, run_n = 0;
    for (int i = 0; i <= nn->nt; i++) {
        nn_tensor *t = i < nn->nt ? &nn->t[i] : NULL;
        int learns = 0;
        if (!t)
            learns = 0;
        else if (t->kind == NN_T_ALPHA) {
            nn_wlayer *w = &nn->wl[t->wl];
            learns = o->finetune && w->quant;
            if (learns)
                ops->reg->quant_scale_grad(nn->grads + t->off, nn->grads + nn->t[w->tw].off,
                                           w->sign, (int)w->rows, (int)w->cols);
        } else {
            learns = !(t->kind == NN_T_W && o->finetune && nn->wl[t->wl].quant); /* signs fixed */
        }
        if (learns && run_n && t->off == run + run_n) {
            run_n += t->n;
            continue;
        }
        if (run_n)
            ops->adam_update(nn->params + run, nn->grads + run, nn->m + run, nn->v + run, run_n,
                             lr, ADAM_B1, ADAM_B2, ADAM_EPS, nn->adam_t);
        run = learns ? t->off : 0;
        run_n = learns ? t->n : 0;
    }
    if (o->finetune)
        for (int i = 0; i < nn->nwl; i++) {
            nn_wlayer *w = &nn->wl[i];
            if (w->quant)
                ops->reg->quant_apply(nn->params + nn->t[w->tw].off, w->sign,
                                      nn->params + nn->t[w->talpha].off, (int)w->rows,
                                      (int)w->cols);
        }
    return CS_OK;
}

/* A training step as one graph (cs_nn_ops.graph_*): recorded at the run's
 * second step (the first allocates what the ops keep), replayed after,
 * recorded again when the batch buffers moved. None where the backend has
 * none or refuses, or where a step has a host part (a regularizer without
 * a float kernel); a recording that fails says why and the run goes on op
 * by op. */
typedef struct step_graph {
    int on, warm, ready;
    unsigned bufgen;    /* the batch buffers it holds */
    size_t launches;
    char why[200];      /* why a recording failed */
} step_graph;

/* the step by its graph: 1 ran, 0 not (run the ops), <0 a failure */
static int graph_step(cs_nn *nn, const cs_nn_train_opts *o, int B, float lr, int reg_on,
                      double *part, step_graph *g, double *reg_s, cs_err *err)
{
    const cs_nn_ops *ops = nn->ops;
    if (!g->on)
        return 0;
    if (!g->warm) {   /* the run's first step: op by op */
        g->warm = 1;
        return 0;
    }
    int r = g->ready && g->bufgen == nn->bufgen ? ops->graph_launch(lr, nn->adam_t) : 1;
    if (r == 1) {   /* record it */
        char why[200];
        if (ops->graph_begin(why, sizeof why)) {
            g->on = 0;
            return 0;
        }
        int rc = step_ops(nn, o, B, lr, reg_on, part, reg_s, err);
        if (ops->graph_end(g->why, sizeof g->why)) {   /* nothing ran: op by op */
            g->on = 0;
            return rc;
        }
        if (rc)
            return rc;
        g->ready = 1;
        g->bufgen = nn->bufgen;
        r = ops->graph_launch(lr, nn->adam_t);
    }
    if (r < 0) {
        int rc = nn_device_check(nn, err);
        return rc ? rc : cs_fail(err, CS_EIO, "%s: the step's graph did not launch", nn->device);
    }
    g->launches++;
    return 1;
}

static int train_step(cs_nn *nn, const cs_nn_train_opts *o, int B, float lr, step_graph *g,
                      double *regv, double *reg_s, cs_err *err)
{
    int reg_on = o->reg && o->lambda > 0 && !o->finetune;
    double part[NN_MAX_WL];
    nn->adam_t++;
    int rc = graph_step(nn, o, B, lr, reg_on, part, g, reg_s, err);
    if (rc == 0)
        rc = step_ops(nn, o, B, lr, reg_on, part, reg_s, err);
    else if (rc == 1)
        rc = CS_OK;
    if (!rc && reg_on) {
        double t0 = cs_now();
        rc = nn_reg_total(nn, o->reg, o->lambda, o->exclude, o->eta, part, regv, err);
        *reg_s += cs_now() - t0;
    }
    return rc ? rc : nn_device_check(nn, err);
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
    int drc = cs_nn_check_data(nn, train, err);
    if (drc)
        return drc;
    if (o.finetune && !cs_nn_is_quantized(nn))
        return cs_fail(err, CS_ESTATE, "finetune needs a quantized network (run quantize first)");
    if (o.reg && !o.finetune) {
        int rc = nn_check_reg(o.reg, err);
        if (rc)
            return rc;
    }
    int B = o.batch;
    if ((size_t)B > train->n)
        B = (int)train->n;
    int rc = nn_ensure_cap(nn, B, err);
    if (rc)
        return rc;
    if (!o.finetune)
        nn_drop_quant(nn);
    size_t nb = train->n / (size_t)B;   /* a last partial batch is dropped */
    size_t total = (size_t)o.epochs * nb;
    rep->steps_total = total;
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
        any |= watch[i] = nn_selected(nn, i, o.exclude);
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
    if (!rc && !nn_snapshot_is_current(nn))
        rc = cs_nn_snapshot_take(nn, nn->epoch_total, err);
    int reg_host = o.reg && o.lambda > 0 && !o.finetune && !nn_reg_on_device(o.reg);
    step_graph graph = {.on = nn->ops->graph_begin && !reg_host};
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
            if (cs_cancelled(o.cancel) || (o.stop_early && step >= o.stop_after)) {
                stop = 1;
                break;
            }
            float lr = (float)(o.lr * 0.5 * (1.0 + cos(M_PI * (double)step / (double)total)));
            rc = nn_load_batch(nn, train, perm + b * (size_t)B, B, o.augment ? &arng : NULL, err);
            if (!rc)
                rc = train_step(nn, &o, B, lr, &graph, &regv, &reg_s, err);
            double l = 0;
            int c = 0;
            if (!rc)
                rc = nn_batch_stats(nn, B, &l, &c, err);
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
                cs_nn_progress p = {.epoch = ep + 1, .epochs = o.epochs, .batch = b + 1,
                                    .batches = nb, .loss = eloss / (double)eimg, .reg = regv,
                                    .lr = lr, .step = nn->step_total, .batch_size = B};
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
    if (!rc)
        rc = nn_device_check(nn, err);   /* what the last steps' kernels said */
    if (nn->ops->graph_drop)
        nn->ops->graph_drop();
    rep->graph_steps = graph.launches;
    snprintf(rep->graph_note, sizeof rep->graph_note, "%s", graph.why);
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
