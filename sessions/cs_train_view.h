/* cs_train_view.h — a read-only look at the network of a session, for front
 * ends that draw it (the TUI's Histogram panel during training). Pointers
 * stay valid until the next command runs. */
#ifndef CS_TRAIN_VIEW_H
#define CS_TRAIN_VIEW_H

#include <stddef.h>

#include "cs_interp.h"

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

#endif
