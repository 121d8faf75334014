/* cs_nn.h — neural-network training with CS regularizers (paper sec. 3.4):
 * Fashion-MNIST (IDX, gzip'd), an MLP and a small VGG-style CNN, Adam with
 * cosine annealing, the regularized loss L + λ Σ_k η_k ℓ(θ_k) per row /
 * output channel, binary and ternary quantization, fine-tuning of the
 * scales, weight-histogram snapshots, checkpoints. float32 throughout.
 *
 * Models (NCHW; by default 28×28 gray images with an optional border of pad
 * pixels, 10 classes; any C×H×W input, C ≤ 4, and class count, cs_nn_config):
 *   mlp  C·H·W → hidden[0] → … → hidden[n-1] → classes, ReLU between (default 512,512)
 *   cnn  by default (conv=16,16,pool,32,32,pool, kernel 3):
 *        conv1 3×3 1→16 + BN + ReLU
 *        conv2 3×3 16→16 + BN + ReLU, maxpool 2×2          (28×28 → 14×14)
 *        conv3 3×3 16→32 + BN + ReLU
 *        conv4 3×3 32→32 + BN + ReLU, maxpool 2×2          (14×14 → 7×7)
 *        fc1 1568 → hidden[0] (default 256) + ReLU, fc2 hidden[0] → 10
 *        420,698 parameters with hidden=256 (≈10 MFLOP per image forward);
 *        any list of widths and pools, any odd kernel 1..7 (cs_nn_config); each
 *        pool halves H and W, rounding down (a pool that would leave no pixel
 *        is refused)
 *   resnet20  the paper's ResNet-20 (below), 269,434 parameters
 * Convolutions have no bias (BN follows); dense layers do.
 *
 * Weight layers ("conv1".."conv4", "fc1".."fcK") are the regularized and
 * quantized tensors; θ_k is one row of a dense W (OUT×IN) or one output
 * channel of a conv W (OC × C·k·k). By default the first convolution (cnn,
 * resnet20) and the last fc are excluded, as in the paper (exclude=none
 * includes them).
 *
 * Backends: "cpu" (OpenBLAS sgemm, im2col) and "cuda" (cuBLAS + kernels)
 * behind one op table (nn_backend.h); the same seed gives the same
 * initialization on both. Nothing here prints; progress goes through a
 * callback. Errors: negative CS_E* codes with a message in cs_err. */
#ifndef CS_NN_H
#define CS_NN_H

#include <stddef.h>
#include <stdint.h>

#include "cs_cancel.h"
#include "cs_error.h"
#include "cs_reg.h"

/* ------------------------------------------------------------------ data */

/* The defaults (Fashion-MNIST's): 28×28 images of one channel, 10 classes. */
#define CS_NN_IMG 28
#define CS_NN_PIXELS (CS_NN_IMG * CS_NN_IMG)
#define CS_NN_CLASSES 10
#define CS_NN_DEFAULT_DATA "/usr/share/datasets/fashion-mnist"
/* The limits of a data set and of a network's input: channels, H and W
 * (before pad), classes (labels are bytes). */
#define CS_NN_MAX_CHANNELS 4
#define CS_NN_MAX_SIDE 512
#define CS_NN_MAX_CLASSES 256

typedef struct cs_nn_data {
    uint8_t *images;   /* n × c × h × w (NCHW: each image's channels one after another) */
    uint8_t *labels;   /* n, each < classes */
    size_t n;
    /* the images' shape and the class count (the largest label + 1 over the
     * data set's splits where the loader can read both); 0: the default
     * (1, 28, 28, 10: data made by hand) */
    int c, h, w, classes;
} cs_nn_data;

/* d's shape with the defaults filled in (any pointer may be NULL). */
void cs_nn_data_shape(const cs_nn_data *d, int *c, int *h, int *w, int *classes);

/* Read one IDX file (gzip'd or plain): magic 0x0000080<ndim>, unsigned
 * bytes. want_ndim = 3 (images) or 1 (labels). dims[0] is the count.
 * Errors name the file and what is wrong (bad magic, dims, truncation,
 * corrupt gzip, trailing data). *data is malloc'd. */
int cs_idx_read(const char *path, int want_ndim, uint8_t **data, uint32_t dims[3], cs_err *err);
/* The two files cs_nn_data_load reads for split ("train", "t10k") from
 * dir: images into files[0], labels into files[1] (.gz first); an error
 * names what is missing. For recording what a session read. An .npz
 * data set is one file: files[0] is it, files[1] "". */
int cs_nn_data_files(const char *dir, const char *split, char files[2][4200], cs_err *err);
/* Load split "train" or "t10k" from dir: {split}-images-idx3-ubyte[.gz] and
 * {split}-labels-idx1-ubyte[.gz]; images of any H×W (1 channel) up to
 * CS_NN_MAX_SIDE, counts equal, labels < CS_NN_MAX_CLASSES; classes: the
 * largest label + 1 of this split and of the other split's labels file
 * when it is there. limit > 0 keeps the first `limit` examples. dir an
 * .npz file: cs_nn_data_load_npz with CS_NN_NHWC. */
int cs_nn_data_load(cs_nn_data *d, const char *dir, const char *split, size_t limit,
                    cs_err *err);
void cs_nn_data_free(cs_nn_data *d);

/* A NumPy .npz data set (nn_data_npz.c): x_train, y_train, x_test, y_test;
 * images uint8 (0..255) or float32 (0..1, scaled by 255, or 0..255),
 * rounded to 8 bits; labels of an integer dtype. A 4-dimensional x is
 * N×H×W×C (CS_NN_NHWC, the default: NumPy's and Keras's) or N×C×H×W
 * (CS_NN_NCHW, PyTorch's); 3 dimensions: N×H×W (one channel). Any H, W up
 * to CS_NN_MAX_SIDE, C up to CS_NN_MAX_CHANNELS, labels below
 * CS_NN_MAX_CLASSES (classes: the largest label of y_train and y_test + 1);
 * the images are stored NCHW whatever the layout. The two splits must
 * agree on C, H and W (an error names the file and both shapes). */
typedef enum cs_nn_layout { CS_NN_NHWC, CS_NN_NCHW } cs_nn_layout;
/* 1 when path names an .npz file (a data set in one file, not a folder). */
int cs_nn_data_is_npz(const char *path);
/* Split "train" (x_train, y_train) or "t10k" (x_test, y_test) of the .npz
 * at path; limit as cs_nn_data_load; errors name the file and the array. */
int cs_nn_data_load_npz(cs_nn_data *d, const char *path, const char *split, size_t limit,
                        cs_nn_layout layout, cs_err *err);

/* ------------------------------------------------------------------ model */

/* resnet20: He et al. 2016's CIFAR network (the paper's): conv1 3×3 16 +
 * BN + ReLU; three stages (layer1..layer3) of three basic blocks (conv 3×3
 * + BN + ReLU, conv 3×3 + BN, the shortcut added, ReLU) with 16, 32, 64
 * channels, stride 2 at the first convolution of layer2 and layer3, where
 * the shortcut is option A (every other pixel, the channels zero-padded by
 * a quarter of the new width on each side); global average pooling, fc
 * 64 → 10 (→ classes; conv1 takes the input's channels). 269,434 parameters (19 convolutions, 1 fc). Weight layers are
 * named as PyTorch's state_dict names them: conv1, layer1.0.conv1, ...,
 * layer3.2.conv2, fc. */
typedef enum cs_nn_kind { CS_NN_MLP = 0, CS_NN_CNN = 1, CS_NN_RESNET20 = 2 } cs_nn_kind;
#define CS_NN_MAX_HIDDEN 8
#define CS_NN_MAX_CONV 16       /* entries of a cnn's conv list */
#define CS_NN_CONV_POOL 0       /* an entry of conv: a 2×2 max pool there */
#define CS_NN_MAX_PAD 16
/* "mlp", "cnn" or "resnet20" */
const char *cs_nn_kind_name(cs_nn_kind kind);

typedef struct cs_nn_config {
    cs_nn_kind kind;
    int hidden[CS_NN_MAX_HIDDEN];
    int nhidden;          /* 0: defaults (mlp 512,512; cnn 256; resnet20 has none) */
    uint64_t seed;        /* initialization stream (seed, 1) */
    const char *device;   /* "cpu" (default), "cuda" or "auto" (cs_nn_device_resolve) */
    int max_batch;        /* 0: 256; batches larger than this are refused */
    /* cnn: the convolutions' output channels in order (1..1024), with
     * CS_NN_CONV_POOL for a 2×2 max pool there; nconv = 0: the default
     * 16,16,pool,32,32,pool. Each convolution is followed by BN + ReLU. */
    int conv[CS_NN_MAX_CONV];
    int nconv;
    int kernel;           /* cnn: the convolutions' size, odd 1..7, padding kernel/2 (0: 3) */
    int pad;              /* every model: pixels of background (the normalized 0) around
                             each image, 0..CS_NN_MAX_PAD: the input is (H + 2·pad) ×
                             (W + 2·pad) (resnet20 on Fashion-MNIST: 2, i.e. 32×32) */
    /* the input images before pad: channels (1..CS_NN_MAX_CHANNELS), height
     * and width (1..CS_NN_MAX_SIDE), and the class count (the last layer's
     * outputs, 1..CS_NN_MAX_CLASSES); 0: the defaults 1, 28, 28, 10. cnn:
     * each pool must leave a pixel; resnet20: H + 2·pad and W + 2·pad are
     * multiples of 4 (two stride-2 stages) and at least 8. */
    int channels, height, width, classes;
    /* the pixel normalization (x/255 − in_mean[c])/in_std[c] of channel c,
     * saved with the network; in_std[0] = 0: Fashion-MNIST's fixed 0.2860,
     * 0.3530 (one channel only) */
    float in_mean[CS_NN_MAX_CHANNELS], in_std[CS_NN_MAX_CHANNELS];
} cs_nn_config;

typedef struct cs_nn cs_nn;

int cs_nn_new(cs_nn **out, const cs_nn_config *cfg, cs_err *err);

/* Memory: every network is held to CS_MEMORY_BUDGET (4 GiB, cs_limits.h),
 * estimated from its shapes before anything is allocated: cs_nn_new,
 * cs_nn_load and a training batch larger than any before refuse a network
 * over it with CS_ENOMEM and the estimate in the message. */
typedef struct cs_nn_memory {
    size_t params;       /* parameters (the trained ones) */
    double state;        /* bytes: weights, gradients, Adam's moments, scratch, initial copy */
    double batch;        /* bytes: activations and gradients of a batch, host mirrors */
    double snapshots;    /* bytes: weight snapshots (histograms over time) */
    double total;
} cs_nn_memory;
/* The estimate for cfg, batches of `batch` and `snapshots` snapshots;
 * CS_EINVAL when cfg itself is wrong. Allocates nothing of that size. */
int cs_nn_estimate(const cs_nn_config *cfg, int batch, size_t snapshots, cs_nn_memory *m,
                   cs_err *err);
/* The same checked against the budget: CS_ENOMEM naming the estimate. */
int cs_nn_check_memory(const cs_nn_config *cfg, int batch, size_t snapshots, cs_err *err);
void cs_nn_free(cs_nn *nn);
const char *cs_nn_device(const cs_nn *nn);
cs_nn_kind cs_nn_get_kind(const cs_nn *nn);
size_t cs_nn_param_count(const cs_nn *nn);
/* Training steps taken so far (every run on this network, in order). */
size_t cs_nn_step_count(const cs_nn *nn);
/* "mlp 784-512-512-10" or "cnn conv32,32,p,64,64,p fc128" */
void cs_nn_describe(const cs_nn *nn, char *buf, size_t len);
int cs_nn_get_config(const cs_nn *nn, cs_nn_config *cfg);
/* Whether `device` can run here ("cuda" without a GPU or CUDA build: no,
 * with the reason in err; "auto" always can). */
int cs_nn_device_check(const char *device, cs_err *err);
/* The device that `requested` (NULL: cpu) means here, into chosen ("cpu"
 * or "cuda"). cpu and cuda stand for themselves (cuda fails as in
 * cs_nn_device_check); auto picks cuda when this csreg was built with CUDA
 * and a GPU answers (cuBLAS initialized), else the cpu. why (may be NULL)
 * gets, for auto, which and why: "auto: cuda (NVIDIA H100 80GB HBM3 found)",
 * "auto: cpu (no GPU: <the CUDA error>)" or "auto: cpu (built without
 * CUDA)"; otherwise "". Networks made with device "auto" use this rule. */
int cs_nn_device_resolve(const char *requested, char *chosen, size_t len, char *why, size_t wlen,
                         cs_err *err);

/* Weight layers (conv1.., fc1..), in order. */
size_t cs_nn_wlayer_count(const cs_nn *nn);
typedef struct cs_nn_wlayer_info {
    const char *name;
    size_t rows, cols;     /* θ_k = one of `rows` rows of length `cols` */
    int excluded_default;  /* first conv of a cnn or resnet20, last fc */
    int quantized;         /* 0 none, 1 binary, 2 ternary */
    size_t positions;      /* output positions per image (a conv's OH·OW; dense: 1):
                              the layer's multiply-adds per image are rows·cols·positions */
} cs_nn_wlayer_info;
int cs_nn_wlayer(const cs_nn *nn, size_t i, cs_nn_wlayer_info *info);
int cs_nn_wlayer_find(const cs_nn *nn, const char *name);   /* index or -1 */
/* Copy the layer's weights (rows×cols) to host memory. */
int cs_nn_wlayer_get(cs_nn *nn, size_t i, float *w, cs_err *err);
int cs_nn_wlayer_set(cs_nn *nn, size_t i, const float *w, cs_err *err);

/* ------------------------------------------------------------------ training */

/* Which weight layers are regularized / quantized. */
typedef enum cs_nn_exclude {
    CS_NN_EXCL_DEFAULT = 0,  /* first conv (cnn) and last fc */
    CS_NN_EXCL_NONE = 1,
    CS_NN_EXCL_LAST = 2,     /* only the last fc */
    CS_NN_EXCL_FIRST = 3     /* only the first layer */
} cs_nn_exclude;

/* η_k of the regularizer term λ Σ_k η_k ℓ(θ_k): */
typedef enum cs_nn_eta {
    CS_NN_ETA_ROW = 0,       /* 1 / the row's dimension (the paper's text) */
    CS_NN_ETA_LAYER = 1      /* 1 / the layer's element count (rows·cols): each layer's sum
                                divided by its size, as the authors' published code does */
} cs_nn_eta;

typedef struct cs_nn_progress {
    int epoch, epochs;       /* 1-based epoch in this call */
    size_t batch, batches;   /* 1-based batch in the epoch */
    double loss;             /* running mean of the data loss this epoch */
    double reg;              /* last λ Σ η ℓ */
    double lr;
    size_t step;             /* the network's steps so far, this one included */
    int batch_size;          /* examples per step */
} cs_nn_progress;
/* Called after each completed step (the weights are those of `step`; the
 * callback may read them, e.g. cs_nn_watch_frame, cs_nn_evaluate). Return
 * nonzero to stop (like Ctrl-C). */
typedef int (*cs_nn_progress_fn)(void *ctx, const cs_nn_progress *p);

typedef struct cs_nn_train_opts {
    int epochs;
    int batch;               /* 0: 128 */
    double lr;               /* 0: 1e-3 */
    double lambda;
    cs_reg *reg;             /* NULL: no regularizer */
    cs_nn_exclude exclude;
    int augment;             /* random shifts of up to 2 pixels */
    int hist_every;          /* steps between weight snapshots; 0: each epoch end */
    int finetune;            /* signs fixed: train scales, biases, BN (after quantize) */
    const cs_cancel *cancel; /* polled between batches; set: stop (partial) */
    /* stop_early: stop after stop_after steps of this run, exactly as a
     * cancel seen before the next step would (partial): the replay of a
     * cancelled run reaches its state bit for bit */
    int stop_early;
    size_t stop_after;
    cs_nn_progress_fn progress;
    void *progress_ctx;
    cs_nn_eta eta;           /* the regularizer's η_k (default: per row) */
} cs_nn_train_opts;

#define CS_NN_MAX_EPOCHS 1000

typedef struct cs_nn_train_report {
    int epochs_done;
    int partial;             /* stopped early (cancel or callback) */
    double loss;             /* mean data loss of the last epoch */
    double train_accuracy;   /* on the batches of the last epoch (train mode) */
    double reg_value;        /* λ Σ η ℓ at the last step */
    double seconds;
    double reg_seconds;      /* of which in the regularizer's value and gradient */
    double images_per_s;
    size_t steps;            /* steps taken */
    size_t steps_total;      /* steps the run was to take (epochs × batches) */
    /* sign flip ratio of the regularized layers' weights between epochs
     * (epoch 1 vs the start, …); first min(epochs_done, 64) entries. */
    double flip[64];
    /* steps run as one CUDA graph (cs_nn_ops.graph_*); when its recording
     * failed, why (the run went on op by op), else "" */
    size_t graph_steps;
    char graph_note[200];
} cs_nn_train_report;

int cs_nn_train(cs_nn *nn, const cs_nn_data *train, const cs_nn_train_opts *opts,
                cs_nn_train_report *rep, cs_err *err);
/* The batch buffers a run with batch size B allocates first (training
 * with B then finds them): for measuring before its first step. */
int cs_nn_reserve(cs_nn *nn, int B, cs_err *err);
/* Test accuracy (fraction) and mean cross-entropy, in inference mode. */
int cs_nn_evaluate(cs_nn *nn, const cs_nn_data *test, double *accuracy, double *loss,
                   cs_err *err);
/* The same in batches of the buffers the network has (CS_ESTATE before its
 * first batch), which it leaves as they are: for watching a run, whose
 * later commands then batch as they would have without it. */
int cs_nn_evaluate_in_place(cs_nn *nn, const cs_nn_data *test, double *accuracy, double *loss,
                            cs_err *err);
/* Total regularizer term λ Σ_k η_k ℓ(θ_k) at the current weights. */
int cs_nn_reg_value(cs_nn *nn, cs_reg *reg, double lambda, cs_nn_exclude excl, double *value,
                    cs_err *err);
/* The same with η_k chosen by eta. */
int cs_nn_reg_value_eta(cs_nn *nn, cs_reg *reg, double lambda, cs_nn_exclude excl,
                        cs_nn_eta eta, double *value, cs_err *err);
/* The logits (B×classes, before the softmax) of the first n test images in
 * inference mode, into logits (n·classes floats), in batches as
 * cs_nn_evaluate. */
int cs_nn_logits(cs_nn *nn, const cs_nn_data *test, size_t n, float *logits, cs_err *err);

/* ------------------------------------------------------------------ quantization */

/* One vector: binary ŵ = α sign(w), α = ‖w‖₁/n (sign(0) = +1). Returns α. */
float cs_quant_binary(const float *w, size_t n, float *q);
/* Ternary: τ* = argmax_{τ∈{|w_i|}} (Σ_{|w_i|≥τ}|w_i|)² / |I_τ| by sorting
 * (a radix sort of the floats' bits, O(n)), α = mean of |w_i| over I_τ*.
 * q may be NULL. Returns α and *tau (the threshold). `scratch` (malloc'd)
 * holds 2n floats (NULL: allocated). */
float cs_quant_ternary(const float *w, size_t n, float *q, float *tau, float *scratch);

typedef struct cs_nn_qlayer_report {
    char name[16];
    size_t rows, cols;
    double alpha_mean, alpha_min, alpha_max;
    double near_frac;     /* fraction of weights within 1% (of α) of a level */
    double bin_error;     /* ‖w − q(w)‖ / ‖w‖ */
} cs_nn_qlayer_report;

typedef struct cs_nn_quant_report {
    size_t nlayers;
    cs_nn_qlayer_report layer[32];   /* resnet20 has 20 weight layers */
    double bits_fp, bits_q;   /* model size in bits, full precision and quantized */
    double compression;       /* bits_fp / bits_q */
} cs_nn_quant_report;

/* Statistics of quantizing now (nothing changes). ternary: 0 binary, 1 ternary. */
int cs_nn_quant_stats(cs_nn *nn, int ternary, cs_nn_exclude excl, cs_nn_quant_report *rep,
                      cs_err *err);
/* Quantize the selected layers in place (signs and per-row α kept for
 * fine-tuning). Fills rep with the statistics taken before. */
int cs_nn_quantize(cs_nn *nn, int ternary, cs_nn_exclude excl, cs_nn_quant_report *rep,
                   cs_err *err);
int cs_nn_is_quantized(const cs_nn *nn);
/* Per-row α of a quantized layer (rows floats). */
int cs_nn_wlayer_alpha(cs_nn *nn, size_t i, float *alpha, cs_err *err);

/* ------------------------------------------------------------------ histograms */

/* Snapshots of all weight layers, taken during training into a ring buffer
 * (the oldest is dropped when full). */
#define CS_NN_HIST_RING 32
size_t cs_nn_snapshot_count(const cs_nn *nn);
/* i = 0 is the oldest kept. *w points into the ring (valid until the next
 * training call); rows×cols of weight layer `layer`. */
int cs_nn_snapshot(const cs_nn *nn, size_t i, size_t layer, const float **w, size_t *step,
                   double *epoch);
/* Take a snapshot now (train calls this). */
int cs_nn_snapshot_take(cs_nn *nn, double epoch, cs_err *err);
/* Exact counts for edges e[0] < … < e[nbins] (left-closed bins, the last
 * one closed); values outside are not counted. */
void cs_nn_hist_counts(const float *x, size_t n, const double *edges, size_t nbins,
                       uint64_t *counts);
/* The same on the backend for uniform bins of the current weights of a
 * layer (row < 0: all rows). */
int cs_nn_hist_layer(cs_nn *nn, size_t layer, long row, double lo, double hi, size_t nbins,
                     uint64_t *counts, cs_err *err);

/* ------------------------------------------------------------------ watching */

/* Frames of a run for a front end that shows it live: per weight layer the
 * exact histogram over a range fixed for the run, the per-row scales α_r of
 * the target levels, the share of weights near a level and the sign flips
 * since the previous frame. Computed on the network's backend: only counts
 * and per-row numbers leave the device. Taking frames reads the weights and
 * nothing else, so a run gives the same weights with and without them. */
#define CS_NN_WATCH_BINS 256     /* most bins of a frame's histogram */
#define CS_NN_WATCH_LAYERS 64    /* csreg's networks have up to 16; run folders
                                    (cs_run_watch.h) more: ResNet-20 has 20 */

typedef struct cs_nn_watch_layer {
    char name[16];
    size_t rows, cols;
    int regularized;        /* selected by the run's exclude */
    int levels;             /* 2: {−α, +α}; 3: {−α, 0, +α} (ternary) */
    int quantized;          /* α is the layer's trained scale (fine-tuning) */
    double lo, hi;          /* the histogram's range (set for the run; widens) */
    int bins;               /* 0: no histogram of this layer in this frame */
    uint32_t counts[CS_NN_WATCH_BINS];   /* edges lo + (hi − lo)·k/bins, last closed */
    size_t outside;         /* weights outside [lo, hi] */
    double alpha_mean, alpha_min, alpha_max;   /* over the rows */
    double tau_mean;        /* ternary, not quantized: mean threshold; else NAN */
    double near;            /* share within 1% of α_r of a level of its row */
    double flips;           /* share of signs changed since the previous frame; NAN first */
} cs_nn_watch_layer;

typedef struct cs_nn_watch cs_nn_watch;
/* Watch nn for one run: ternary picks the levels {−α, 0, +α} (else ±α) of
 * the layers that are not quantized; with use_quant (fine-tuning) the
 * quantized layers show their trained α and their levels. The ranges are
 * set now: symmetric, 1.25 × the 99.9th percentile of |w| of each layer
 * (1 for a layer of zeros); a range widens by half when more than 1% of
 * its weights have left it, and never shrinks. */
int cs_nn_watch_new(cs_nn_watch **out, cs_nn *nn, int ternary, cs_nn_exclude excl,
                    int use_quant, cs_err *err);
void cs_nn_watch_free(cs_nn_watch *w);
/* One frame of every weight layer (cs_nn_wlayer_count of them): the
 * histogram with `bins` bins (1..CS_NN_WATCH_BINS) of layer hist_layer
 * (all layers when < 0), the scales and readiness of every layer. */
int cs_nn_watch_frame(cs_nn_watch *w, int bins, int hist_layer, cs_nn_watch_layer *layers,
                      cs_err *err);
/* Only the histogram of one layer into out (lo, hi, bins, counts, outside). */
int cs_nn_watch_hist(cs_nn_watch *w, size_t layer, int bins, cs_nn_watch_layer *out,
                     cs_err *err);

/* ------------------------------------------------------------------ checkpoints */

/* Versioned binary file: "CSNN" magic, version, config, per-tensor shapes,
 * float32 data, quantization state, CRC32 of everything before it.
 * Written atomically; cancel (may be NULL) stops the write (the old file
 * stays). */
#define CS_NN_FILE_VERSION 1
/* Version 2 adds the cnn's channels, kernel and pad and names resnet20: a
 * network version 1 describes (an mlp, the default cnn, no pad) is still
 * written as version 1. Both are read. */
#define CS_NN_FILE_VERSION_MAX 4
/* Version 3: version 2 and then f32 mean, f32 std, the pixel normalization
 * (cs_nn_config.in_mean, in_std); written only for a network that has its
 * own (the fixed default writes version 1 or 2 as before). Version 4:
 * version 2, then u32 channels, height, width, classes and per channel f32
 * mean, f32 std; written only for a network whose input is not 1×28×28 or
 * whose classes are not 10 (the others write 1, 2 or 3 as before). All
 * four are read. */
/* A path ending in .npz is written as NumPy's savez would (cs_nn_save_npz). */
int cs_nn_save(cs_nn *nn, const char *path, int force, const cs_cancel *cancel, cs_err *err);
/* Creates the model the file describes on `device` (NULL: cpu; auto as in
 * cs_nn_device_resolve). A ZIP file (an .npz) is read by cs_nn_load_npz. */
int cs_nn_load(cs_nn **out, const char *path, const char *device, cs_err *err);

/* ------------------------------------------------------------------ weights out */

/* The network as a NumPy .npz (a ZIP of STORED .npy entries), one array per
 * tensor named as PyTorch's state_dict names it for the same network
 * (torch modules named conv1, bn1, ..., fc1, fc2 for the cnn; fc1.. for the
 * mlp; conv1, bn1, layer1.0.conv1, layer1.0.bn1, ..., fc for resnet20):
 * NAME.weight (a conv's OC×C×k×k, a dense layer's OUT×IN), NAME.bias, a
 * batch norm's weight, bias, running_mean, running_var and
 * num_batches_tracked (int64). A quantized layer's weight is its levels
 * times the row's scale (what the network computes with); beside it
 * csreg.NAME.scale (float32, one per row) and csreg.NAME.levels (int8 −1,
 * 0, +1). csreg.config (int32: the model's shape), csreg.shape (int32:
 * channels, height, width before pad, classes; written unless 1, 28, 28,
 * 10, which a file without it means) and csreg.input (float32: the C means, then the C stds of the
 * pixel normalization x/255, then pad) let cs_nn_load_npz rebuild the
 * network; PyTorch's load_state_dict(strict=
 * False) or a filter on the "csreg." prefix skips them. */
int cs_nn_save_npz(cs_nn *nn, const char *path, int force, const cs_cancel *cancel, cs_err *err);
/* The network an .npz of cs_nn_save_npz describes, bit for bit (Adam's
 * moments are not kept, as in the CSNN file). float64 arrays are rounded. */
int cs_nn_load_npz(cs_nn **out, const char *path, const char *device, cs_err *err);
/* The network in inference mode as an ONNX model (opset 13, IR 7): input
 * "input" float N×C×H×W (by default N×1×28×28), the image normalized as
 * csreg feeds it ((x/255 − mean[c])/std[c]; the graph adds a pad= border of
 * each channel's normalized 0), output "logits" float N×classes. Conv, BatchNormalization
 * (running statistics), Relu, MaxPool, Add (option A: Slice and Pad),
 * GlobalAveragePool, Flatten, Gemm; the weights as the network holds them
 * (a quantized layer's: its levels times their scales). Written
 * atomically. */
int cs_nn_export_onnx(cs_nn *nn, const char *path, int force, const cs_cancel *cancel,
                      cs_err *err);
/* The normalization of the input pixels (x/255 − mean)/std: mean and std. */
void cs_nn_input_norm(double *mean, double *std);
/* The network's own normalization of channel 0 (cs_nn_config.in_mean,
 * in_std), else cs_nn_input_norm's. */
void cs_nn_get_input_norm(const cs_nn *nn, double *mean, double *std);
/* The same for channel c (< the network's channels). */
void cs_nn_get_channel_norm(const cs_nn *nn, int c, double *mean, double *std);
/* CS_EDIM unless the network takes d's images (channels, height, width)
 * and has a class for each of its labels (d's classes <= the network's):
 * "the network takes 1×28×28 images and 10 classes; the data has 3×32×32
 * images and 5 classes". */
int cs_nn_check_data(const cs_nn *nn, const cs_nn_data *d, cs_err *err);

#endif
