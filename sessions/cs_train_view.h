/* cs_train_view.h — a read-only look at the network of a session, for front
 * ends that draw it (the TUI's Histogram panel during training). Pointers
 * stay valid until the next command runs. */
#ifndef CS_TRAIN_VIEW_H
#define CS_TRAIN_VIEW_H

#include <stddef.h>

#include "cs_interp.h"
#include "cs_nn.h"

typedef struct cs_train_view {
    const char *model;       /* "mlp 784-16-10" */
    const char *layer;       /* the weight layer shown: the one `hist layer=` chose last,
                                else the first regularized one */
    long row;                /* the row `hist row=` chose, -1: all rows */
    const float *w;          /* its current weights (n values), NULL when unreadable */
    size_t n;
    size_t snapshots;        /* weight snapshots kept (the ring of `hist`) */
    double epoch;            /* of the latest snapshot (0 when none) */
    int quantized;           /* 0 none, 1 binary, 2 ternary (this layer) */
    /* when the network last changed or was looked at (train, finetune,
     * quantize, load, hist): comparable with cs_solve_view.seq, the larger
     * is the more recent; 0: never */
    long seq;
} cs_train_view;

/* Fill v; returns 0 when a network exists, -1 otherwise. */
int cs_interp_train_view(cs_interp *in, cs_train_view *v);

/* One frame of a running train or finetune (cs_interp_set_watch): where
 * the run is, how fast it goes, and (with histograms) every weight layer's
 * histogram, scales and readiness. Numbers that are not known are NAN. */
typedef struct cs_train_frame {
    char what[12];            /* "train" or "finetune" */
    long run;                 /* counts the runs of this session: a new run, a new number */
    char model[64];           /* "mlp 784-512-512-10" */
    char device[8];
    char reg[24];             /* the regularizer's name, "none" */
    double lambda;
    size_t step;              /* the network's steps so far (as `hist` counts them) */
    size_t run_step, run_steps;   /* steps of this run: done, all */
    int epoch, epochs;        /* 1-based epoch of this run */
    size_t batch, batches;    /* 1-based batch in the epoch */
    double seconds;           /* since the run started */
    double eta;               /* seconds left (NAN until known) */
    double images_per_s;
    double loss;              /* running mean of the data loss this epoch */
    double reg_value;         /* λ Σ η ℓ at the last step */
    double lr;
    /* test accuracy on the first test_n test images, at the start of the
     * run (test_epoch 0) and at each epoch end; NAN when not measured */
    double test_acc;
    int test_epoch;
    size_t test_step;         /* the run step it was measured at */
    size_t test_n;
    int epoch_end;            /* this frame ends an epoch (test_acc is new) */
    int final;                /* the run ended: done, stopped, or failed */
    int stopped;              /* cancelled: the network keeps step `step` */
    int failed;               /* ended with an error */
    double watch_share;       /* time spent on frames / the run's time so far */
    int sel;                  /* the layer `hist layer=` chose, else the first
                                 regularized one (an index into layer) */
    int shown;                /* the layer with a histogram in this frame (want;
                                 the final frame has every layer's) */
    size_t nlayers;           /* 0 without histograms */
    cs_nn_watch_layer layer[CS_NN_WATCH_LAYERS];
    /* what "watch": a run folder's snapshot (csreg watch, ui/tui_folder.c),
     * not a run of this session: the 1-based snapshot shown of `snapshots`
     * (0 of 0 while none came), and two lines the Training panel shows
     * instead of the speed and the test accuracy */
    size_t snapshot, snapshots;
    char note[2][160];
} cs_train_frame;

#endif
