/* nn_internal.h — the network's state and the functions the engine/nn
 * files share; engine only. The files call down, never in a circle:
 * nn_plan.c and nn_device.c (leaves, over the backends) < nn_memory.c <
 * nn_model.c < nn_pass.c, nn_quant.c, nn_snapshot.c, nn_watch.c, nn_npz.c,
 * nn_onnx.c < nn_io.c < nn_train.c. */
#ifndef CS_NN_INTERNAL_H
#define CS_NN_INTERNAL_H

#include "cs_nn.h"
#include "cs_rng.h"
#include "nn_backend.h"

/* NN_ADD: the residual sum of a basic block (its input plus the shortcut
 * from layer src's output); NN_GAP: global average pooling */
enum nn_ltype { NN_DENSE, NN_CONV, NN_BN, NN_RELU, NN_POOL, NN_ADD, NN_GAP };
enum nn_tkind { NN_T_W, NN_T_B, NN_T_GAMMA, NN_T_BETA, NN_T_ALPHA };

#define NN_MAX_LAYERS 96   /* resnet20: 68 */
#define NN_MAX_WL 32       /* resnet20: 20 */
#define NN_MAX_T 128       /* resnet20: 79 */

typedef struct nn_tensor {
    char name[24];
    size_t off, n;      /* in the parameter block */
    int kind;           /* enum nn_tkind */
    int wl;             /* weight layer it belongs to (W, alpha), else -1 */
} nn_tensor;

typedef struct nn_layer {
    int type;
    int C, H, W;        /* input per image (dense: C features, H = W = 1) */
    int OC, OH, OW;     /* output */
    size_t in_sz, out_sz;
    int tw, tb;         /* tensors: W/γ and b/β, or -1 */
    int wl;             /* weight layer index, or -1 */
    int k, stride;      /* conv: kernel size and stride (3, 1 for the cnn's default) */
    int src;            /* add: the layer whose output is the shortcut */
    int skip;           /* its output is an add's shortcut (that add's index), else 0 */
    size_t boff;        /* BN: offset of running mean (then var) in the buffer block */
    float *out;         /* [cap][out_sz] */
    int32_t *idx;       /* pool: argmax */
    float *mean, *rstd; /* BN batch statistics [C] */
} nn_layer;

typedef struct nn_wlayer {
    char name[16];
    int layer, tw, talpha;
    size_t rows, cols;
    size_t snap_off;    /* offset in a snapshot */
    size_t roff;        /* its rows' first entry in regval (every layer's rows side by side) */
    int excl_default;
    int quant;          /* 0, 1 binary, 2 ternary */
    float *sign;        /* device, rows×cols, when quantized */
} nn_wlayer;

typedef struct nn_snapshot {
    float *w;
    size_t step;
    double epoch;
} nn_snapshot;

struct cs_nn {
    cs_nn_config cfg;
    char device[8];
    const cs_nn_ops *ops;
    nn_layer layer[NN_MAX_LAYERS];
    int nlayers;
    nn_wlayer wl[NN_MAX_WL];
    int nwl;
    nn_tensor t[NN_MAX_T];
    int nt;
    size_t nparams, nbufs, snap_n;
    float *params, *grads, *m, *v, *bufs;   /* device */
    int adam_t;
    /* batch buffers; bufgen counts their reallocations (a step's graph
     * holds their addresses) */
    int cap;
    unsigned bufgen;
    float *x, *probs, *losses, *dlogits, *d0, *d1, *scratch, *regtmp;
    float *dskip;       /* the shortcut's gradient while a block is passed back (resnet) */
    int in_c, in_h, in_w;   /* the input per image: channels, H + 2·pad, W + 2·pad */
    int classes;        /* the last layer's outputs */
    int32_t *y;
    double *regval;     /* ℓ of every weight layer's rows (allrows), one download a step */
    size_t scratch_n, maxrows, maxcols, allrows;
    /* host mirrors */
    float *hx, *hprobs, *hlosses, *hw;
    int32_t *hy;
    double *hregval, *hd1, *hd2;
    /* training history */
    size_t step_total;
    int epoch_total;
    nn_snapshot ring[CS_NN_HIST_RING];
    size_t ring_head, ring_count;
};

/* Build the layers and tensors for cfg and allocate everything (weights
 * zero), after checking the memory budget. init: draw the initial weights
 * from cfg.seed. */
int cs_nn_build(cs_nn **out, const cs_nn_config *cfg, int init, cs_err *err);

/* nn_plan.c */
/* A residual network (one with NN_ADD layers): its buffers and the memory
 * estimate have a shortcut gradient more. */
int nn_has_skips(const cs_nn *nn);
/* Whether layer i's convolution is the default 3×3 stride 1 (the cnn's
 * ops), else convk. */
int nn_conv_plain(const nn_layer *l);
/* The PyTorch module name of layer i, a weight layer's or a batch norm's
 * (cs_nn_save_npz): conv3 → its bn3, layer1.0.conv2 → layer1.0.bn2. */
void nn_module_name(const cs_nn *nn, int i, char *out, size_t len);
/* The shapes alone: cfg checked, its defaults filled in, layers and
 * tensors laid out in a zeroed nn; nothing of the network's size is
 * allocated. */
int nn_plan(cs_nn *nn, const cs_nn_config *cfg, cs_err *err);
/* Whether weight layer i is regularized / quantized under `ex`. */
int nn_selected(const cs_nn *nn, int i, cs_nn_exclude ex);

/* nn_device.c */
/* The op table of a resolved device name ("cpu", "cuda"). */
const cs_nn_ops *nn_ops_for(const char *device);
/* The device's first error since the last check (a failed kernel launch or
 * cuBLAS call, see cs_nn_ops.error) as a cs_fail: "device=cuda: <op>: <what>";
 * CS_OK when there is none. */
int nn_device_check(cs_nn *nn, cs_err *err);
/* A failed upload or download (`what`): the device's own error when it has
 * one, else "<device>: <what> failed". */
int nn_device_fail(cs_nn *nn, const char *what, cs_err *err);

/* nn_model.c */
/* Batch buffers for up to B examples (grows; contents are not kept). */
int nn_ensure_cap(cs_nn *nn, int B, cs_err *err);

/* nn_memory.c */
/* The batch size the budget is checked with when a network is built (the
 * default of train; a larger batch is checked when it comes). */
#define NN_PLAN_BATCH 128
/* The largest layer output and the convolutions' scratch (floats per
 * batch of B): the sizes of the batch buffers. */
void nn_batch_shape(const cs_nn *nn, int B, size_t *dmax, size_t *scratch);
/* CS_ENOMEM with the estimate (cs_nn_memory) when a network of nn's shape
 * with batches of B and `snapshots` weight snapshots would take more than
 * CS_MEMORY_BUDGET; key "hidden" (or "batch" when the batch tips it). */
int nn_check_budget(const cs_nn *nn, int B, size_t snapshots, cs_err *err);
/* The shapes of cfg (nn_plan) in a network that holds nothing else, for
 * sizes and checks (free() it); NULL with err set when cfg is wrong. */
cs_nn *nn_planned(const cs_nn_config *cfg, int batch, cs_err *err);

/* nn_pass.c */
/* Forward pass of B examples in nn->x, nn->y to probs and losses
 * (train: batch statistics for BN, else the running ones). */
void nn_forward(cs_nn *nn, int B, int train);
/* Backward pass of the last forward: the data loss's gradients in nn->grads. */
void nn_backward(cs_nn *nn, int B);
/* Whether reg can regularize rows of weights (no matrix argument, no
 * auxiliary variables). */
int nn_check_reg(const cs_reg *reg, cs_err *err);
/* λ Σ_k η_k ℓ(θ_k) over the selected layers into *value; with grad, its
 * gradient is added to the weight gradients. */
int nn_reg_all(cs_nn *nn, cs_reg *reg, double lambda, cs_nn_exclude ex, cs_nn_eta eta,
               int grad, double *value, cs_err *err);
/* nn_reg_all in two halves: the layers' kernels (a value computed on the
 * host goes to part[i], part holding nwl entries), then the download of
 * the rows' values and the sum. */
int nn_reg_launch(cs_nn *nn, cs_reg *reg, double lambda, cs_nn_exclude ex, cs_nn_eta eta,
                  int grad, double *part, cs_err *err);
int nn_reg_total(cs_nn *nn, cs_reg *reg, double lambda, cs_nn_exclude ex, cs_nn_eta eta,
                 double *part, double *value, cs_err *err);
/* Whether reg's value and gradient run as device ops alone (its float
 * kernel), without a trip through the host. */
int nn_reg_on_device(const cs_reg *reg);
/* Fill the batch from examples idx[0..B) (randomly shifted when aug) and upload. */
int nn_load_batch(cs_nn *nn, const cs_nn_data *d, const size_t *idx, int B, cs_rng *aug,
                  cs_err *err);
/* Sum of the losses and number correct of the last forward. */
int nn_batch_stats(cs_nn *nn, int B, double *loss, int *correct, cs_err *err);

/* nn_snapshot.c */
/* Whether the newest snapshot holds the weights as they are now. */
int nn_snapshot_is_current(cs_nn *nn);

/* nn_quant.c */
/* Forget the quantization state of every layer (signs released). */
void nn_drop_quant(cs_nn *nn);

/* nn_watch.c */
/* The upper end of a run's histogram range for weights x[0..n) (cs_nn.h,
 * watching; run_watch.c reads run folders by the same rule); cnt: 65536
 * counters of scratch. */
double nn_watch_range(const float *x, size_t n, uint32_t *cnt);

#endif
