/* train_watch.c — frames of a running train or finetune for the front end
 * that watches (train_watch.h). The engine calls on_step after every step;
 * a frame is due
 *   - without histograms (a progress line): every 0.1 s and at epoch ends;
 *   - with hist_every=N: every N steps (the steps `hist` snapshots);
 *   - else every `every` steps, a round number chosen from the measured step
 *     time so that frames come about every FRAME_PERIOD seconds, and never
 *     so often that taking them costs more than WATCH_BUDGET of the time;
 * and at every epoch end (with the test accuracy on a slice of the test
 * set). Frames read the weights and nothing else: the run's results are
 * the same bit for bit with and without them. */
#include "train_watch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_clock.h"
#include "interp_internal.h"

#define FRAME_PERIOD 0.4      /* seconds between frames with histograms */
#define LINE_PERIOD 0.1       /* between frames without */
#define WATCH_BUDGET 0.004    /* the most of the time frames may take (the test
                                 accuracy adds about 0.2%: 0.5% of an epoch's
                                 images, forward only) */
#define WATCH_CAP 0.005       /* frames wait while the histograms and scales of
                                 all so far (the start's, the epoch ends') took
                                 more than this of the time */

struct train_watch {
    cs_interp *in;
    const cs_cmdline *cl;
    nn_state *s;
    cs_nn_watch *nw;          /* NULL: frames without histograms */
    cs_train_frame f;
    cs_train_want want;
    long hist_every;
    size_t every;             /* steps between frames (0: not measured yet) */
    double t_begin;           /* when watching began (its setup counts) */
    double t0, last_t;        /* the run's start, the end of the last frame */
    size_t last_run_step;
    double watch_s;           /* time spent on frames */
    double test_s;            /* of which on the test accuracy */
    double frames_s;          /* of which on histograms and scales */
    size_t shown_step;        /* the step of the last frame's histograms and scales */
    double frame_s;           /* what the last histograms took (no test accuracy) */
    size_t frames;
    int eval_pending;         /* the start's test accuracy is still to take */
    cs_nn_progress last;      /* the latest step */
    char error[CS_ERR_MAX];   /* why frames stopped having histograms */
};

/* ------------------------------------------------------------------ frames */

static void drop_histograms(train_watch *tw, const cs_err *err)
{
    if (!tw->error[0])
        snprintf(tw->error, sizeof tw->error, "%s", err->msg);
    cs_nn_watch_free(tw->nw);
    tw->nw = NULL;
    tw->f.nlayers = 0;
}

static void send(train_watch *tw)
{
    tw->frames++;
    tw->in->watch(tw->in->watch_ctx, &tw->f, &tw->want);
    if (tw->want.bins < 1 || tw->want.bins > CS_NN_WATCH_BINS)
        tw->want.bins = tw->want.bins < 1 ? 1 : CS_NN_WATCH_BINS;
    tw->want.layer[sizeof tw->want.layer - 1] = '\0';
}

/* The layer whose histogram the front end wants. */
static int wanted_layer(const train_watch *tw)
{
    for (size_t i = 0; i < tw->f.nlayers; i++)
        if (!strcmp(tw->f.layer[i].name, tw->want.layer))
            return (int)i;
    return tw->f.sel;
}

static void fill_progress(train_watch *tw, const cs_nn_progress *p, double now)
{
    cs_train_frame *f = &tw->f;
    f->step = p->step;
    f->epoch = p->epoch;
    f->epochs = p->epochs;
    f->batch = p->batch;
    f->batches = p->batches;
    f->run_step = (size_t)(p->epoch - 1) * p->batches + p->batch;
    f->run_steps = (size_t)p->epochs * p->batches;
    f->loss = p->loss;
    f->reg_value = p->reg;
    f->lr = p->lr;
    f->seconds = now - tw->t0;
    f->images_per_s = f->seconds > 0 ? (double)f->run_step * p->batch_size / f->seconds : NAN;
    f->eta = f->run_step ? f->seconds * (double)(f->run_steps - f->run_step) /
                               (double)f->run_step
                         : NAN;
}

/* Test accuracy on the first test_n test images, in the batches the run
 * has (it leaves them as they are); CS_ESTATE before the first step. */
static void measure_test(train_watch *tw, int epoch)
{
    cs_nn_data view = tw->s->test;
    view.n = tw->f.test_n;
    double acc, loss, t = cs_now();
    cs_err err;
    int rc = cs_nn_evaluate_in_place(tw->s->net, &view, &acc, &loss, &err);
    tw->test_s += cs_now() - t;
    if (rc == CS_ESTATE)
        return;
    tw->eval_pending = 0;
    if (rc) {
        tw->f.test_n = 0;
        tw->f.test_acc = NAN;
        return;
    }
    tw->f.test_acc = acc;
    tw->f.test_epoch = epoch;
    tw->f.test_step = tw->f.run_step;
}

/* The layers' histograms (the wanted one; every one in the final frame,
 * which a front end shows after the run) and the test accuracy when due. */
static void fill_layers(train_watch *tw, int epoch_end, int epoch)
{
    if (!tw->nw)
        return;
    cs_err err;
    double t = cs_now();
    tw->f.shown = wanted_layer(tw);
    if (cs_nn_watch_frame(tw->nw, tw->want.bins, tw->f.final ? -1 : tw->f.shown, tw->f.layer,
                          &err)) {
        drop_histograms(tw, &err);
        return;
    }
    tw->frame_s = cs_now() - t;
    tw->frames_s += tw->frame_s;
    tw->shown_step = tw->f.step;
    if (tw->f.test_n && (tw->eval_pending || epoch_end))
        measure_test(tw, epoch_end ? epoch : 0);
}

/* The round number (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k; integers) nearest
 * to x >= 1 on a log scale: within 15% of it. */
static size_t round_number(double x)
{
    static const double mant[] = {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8};
    double best = 1;
    for (double d = 1; d < 1e12; d *= 10)
        for (size_t k = 0; k < sizeof mant / sizeof *mant; k++) {
            double c = d * mant[k];
            if (c == (double)(size_t)c && fabs(log(c / x)) < fabs(log(best / x)))
                best = c;
        }
    return (size_t)best;
}

/* After a frame with histograms: the step interval from the step time
 * measured since the previous frame (its own time left out), kept unless
 * it is off by more than a factor 1.3, so that the steps shown stay round. */
static void choose_interval(train_watch *tw, double frame_start, size_t run_step)
{
    if (tw->hist_every > 0 || run_step <= tw->last_run_step)
        return;
    double step_s = (frame_start - tw->last_t) / (double)(run_step - tw->last_run_step);
    double period = fmax(FRAME_PERIOD, tw->frame_s / WATCH_BUDGET);
    if (!(step_s > 0))
        return;
    double raw = fmax(1, period / step_s);
    if (tw->every == 0 || raw > 1.3 * (double)tw->every || raw < (double)tw->every / 1.3)
        tw->every = round_number(raw);
}

static void emit(train_watch *tw, const cs_nn_progress *p, int epoch_end)
{
    double t1 = cs_now();
    fill_progress(tw, p, t1);
    tw->f.epoch_end = epoch_end;
    fill_layers(tw, epoch_end, p->epoch);
    double t2 = cs_now();
    tw->watch_s += t2 - t1;
    tw->f.watch_share = tw->watch_s / (t2 - tw->t_begin);
    send(tw);
    if (tw->nw)
        choose_interval(tw, t1, tw->f.run_step);
    tw->last_t = cs_now();
    tw->watch_s += tw->last_t - t2;
    tw->last_run_step = tw->f.run_step;
}

static int on_step(void *ctx, const cs_nn_progress *p)
{
    train_watch *tw = ctx;
    tw->last = *p;
    int epoch_end = p->batch == p->batches;
    double t = cs_now();
    int due;
    if (!tw->nw)
        due = t - tw->last_t >= LINE_PERIOD;
    else if (tw->hist_every > 0)
        due = p->step % (size_t)tw->hist_every == 0;
    else if (tw->frames_s > WATCH_CAP * (t - tw->t_begin))
        due = 0;
    else if (tw->every)
        due = p->step % tw->every == 0;
    else
        due = t - tw->last_t >= FRAME_PERIOD;
    if (due || epoch_end)
        emit(tw, p, epoch_end);
    return 0;
}

/* ------------------------------------------------------------------ a run */

/* The layer shown first: the one `hist layer=` chose, else the first
 * regularized one (under the run's exclude). */
static int first_layer(const nn_state *s, cs_nn_exclude excl, const cs_train_frame *f)
{
    for (size_t i = 0; i < f->nlayers; i++)
        if (s->sel_layer[0] && !strcmp(f->layer[i].name, s->sel_layer))
            return (int)i;
    size_t n = f->nlayers;
    for (size_t i = 0; i < n; i++) {
        int reg = excl == CS_NN_EXCL_NONE    ? 1
                  : excl == CS_NN_EXCL_LAST  ? i + 1 != n
                  : excl == CS_NN_EXCL_FIRST ? i != 0
                                             : f->layer[i].regularized;
        if (reg)
            return (int)i;
    }
    return 0;
}

static void start_histograms(train_watch *tw, const train_watch_run *run,
                             const cs_nn_train_opts *o)
{
    cs_nn *net = tw->s->net;
    cs_err err;
    if (cs_nn_watch_new(&tw->nw, net, run->ternary, run->excl, run->finetune, &err)) {
        snprintf(tw->error, sizeof tw->error, "%s", err.msg);
        return;
    }
    tw->f.nlayers = cs_nn_wlayer_count(net);
    for (size_t i = 0; i < tw->f.nlayers; i++) {   /* the names, for first_layer */
        cs_nn_wlayer_info li;
        cs_nn_wlayer(net, i, &li);
        snprintf(tw->f.layer[i].name, sizeof tw->f.layer[i].name, "%s", li.name);
        tw->f.layer[i].regularized = li.excluded_default ? 0 : 1;
    }
    tw->f.sel = first_layer(tw->s, run->excl, &tw->f);
    fill_layers(tw, 0, 0);
    if (!tw->nw)
        return;
    /* test accuracy on 0.5% of an epoch's images (200..10000, in hundreds),
     * forward only: about 0.2% of the epoch; at the start and at every
     * epoch end, in the batch buffers the run allocates first anyway */
    size_t n = tw->s->train.n, B = (size_t)(o->batch > 0 ? o->batch : 128);
    B = B < n ? B : n;
    size_t epoch = B ? n / B * B : 0, want = (epoch / 200 + 50) / 100 * 100;
    want = want < 200 ? 200 : want > 10000 ? 10000 : want;
    double t = cs_now();   /* loading the test set is not watching's (once a session) */
    int have_test = B && nn_ensure_test(tw->in, tw->cl, tw->s, &err) == 0;
    tw->t_begin += cs_now() - t;
    if (have_test && tw->s->test.n > 0 && cs_nn_reserve(net, (int)B, &err) == 0) {
        tw->f.test_n = want < tw->s->test.n ? want : tw->s->test.n;
        tw->eval_pending = 1;
        measure_test(tw, 0);
    }
}

void train_watch_begin(train_watch **out, cs_interp *in, const cs_cmdline *cl, nn_state *s,
                       const train_watch_run *run, cs_nn_train_opts *o)
{
    *out = NULL;
    if (!in->watch)
        return;
    train_watch *tw = calloc(1, sizeof *tw);
    if (!tw)
        return;
    tw->in = in;
    tw->cl = cl;
    tw->s = s;
    tw->want.bins = 64;
    tw->hist_every = run->hist_every;
    cs_train_frame *f = &tw->f;
    snprintf(f->what, sizeof f->what, "%s", run->what);
    f->run = ++s->runs;
    cs_nn_describe(s->net, f->model, sizeof f->model);
    snprintf(f->device, sizeof f->device, "%s", cs_nn_device(s->net));
    snprintf(f->reg, sizeof f->reg, "%s", run->reg);
    f->lambda = run->lambda;
    f->step = cs_nn_step_count(s->net);
    f->epochs = o->epochs;
    f->eta = f->images_per_s = f->loss = f->reg_value = f->lr = f->test_acc = NAN;
    tw->t_begin = tw->t0 = tw->last_t = cs_now();
    if (in->watch_hist)
        start_histograms(tw, run, o);
    tw->watch_s = cs_now() - tw->t_begin;
    send(tw);
    tw->t0 = tw->last_t = cs_now();   /* the run's time starts now */
    o->progress = on_step;
    o->progress_ctx = tw;
    *out = tw;
}

void train_watch_end(train_watch *tw, int rc, const cs_nn_train_report *rep)
{
    if (!tw)
        return;
    cs_train_frame *f = &tw->f;
    double t1 = cs_now();
    if (tw->last.epochs)
        fill_progress(tw, &tw->last, t1);
    f->epoch_end = 0;
    f->eta = 0;
    f->final = 1;
    f->failed = rc < 0;
    f->stopped = rc == 0 && rep->partial;
    /* every layer's histogram at the last completed step: the missing ones
     * when the last frame showed that step, else a whole frame */
    f->step = cs_nn_step_count(tw->s->net);
    cs_err err;
    if (tw->nw && tw->shown_step == f->step) {
        for (size_t i = 0; i < f->nlayers && tw->nw; i++)
            if (!f->layer[i].bins &&
                cs_nn_watch_hist(tw->nw, i, tw->want.bins, &f->layer[i], &err))
                drop_histograms(tw, &err);
    } else {
        fill_layers(tw, 0, f->epoch);
    }
    tw->watch_s += cs_now() - t1;
    f->watch_share = tw->watch_s / fmax(1e-9, cs_now() - tw->t_begin);
    send(tw);
}

void train_watch_free(train_watch *tw, cs_result *res)
{
    if (!tw)
        return;
    if (tw->nw && res) {
        cs_result_int(res, "frames", (long long)tw->frames);
        cs_result_num(res, "watch_seconds", tw->watch_s);
        cs_result_num(res, "watch_test_seconds", tw->test_s);
    }
    if (tw->error[0] && res)
        cs_result_str(res, "watch_error", tw->error);
    cs_nn_watch_free(tw->nw);
    free(tw);
}
