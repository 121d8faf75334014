/* train_watch.h — the live channel of train and finetune (sessions only):
 * frames (cs_train_frame) to the front end that watches
 * (cs_interp_set_watch), taken between steps through the engine's progress
 * callback; nothing at all when no front end watches. */
#ifndef CS_TRAIN_WATCH_H
#define CS_TRAIN_WATCH_H

#include "cs_nn.h"
#include "cs_train_view.h"
#include "nn_state.h"

typedef struct train_watch train_watch;

typedef struct train_watch_run {
    const char *what;        /* "train" or "finetune" */
    const char *reg;         /* its name, "none" */
    double lambda;
    int ternary;             /* levels {−α, 0, +α} (the regularizer's target is ternary) */
    int finetune;            /* quantized layers show their trained scales */
    cs_nn_exclude excl;      /* the regularized layers */
    long hist_every;         /* frames every N steps; 0: a few a second, by the step time */
} train_watch_run;

/* Before cs_nn_train: the run's first frame, and o->progress pointed at
 * the watch. *out is NULL (o untouched) when no front end watches. Never
 * fails the command: a watch that cannot start says why in its frames'
 * place (the run goes on unwatched and `watch_error` tells). */
void train_watch_begin(train_watch **out, cs_interp *in, const cs_cmdline *cl, nn_state *s,
                       const train_watch_run *run, cs_nn_train_opts *o);
/* After cs_nn_train (rc its status): the final frame. NULL: no-op. */
void train_watch_end(train_watch *tw, int rc, const cs_nn_train_report *rep);
/* The watch's cost into res (with histograms: frames, watch_seconds and
 * of them watch_test_seconds; watch_error when they stopped), when res is
 * not NULL; then free. */
void train_watch_free(train_watch *tw, cs_result *res);

#endif
