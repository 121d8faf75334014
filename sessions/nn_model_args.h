/* nn_model_args.h — the keys of `train` that shape a network and weigh its
 * regularizer: model=, channels=, kernel=, pad= into a cs_nn_config, and
 * eta= (sessions/ only; used by cmd_train.c). */
#ifndef CS_NN_MODEL_ARGS_H
#define CS_NN_MODEL_ARGS_H

#include "cs_cmdline.h"
#include "cs_interp.h"
#include "cs_nn.h"

#define NN_MODEL_CHOICES "mlp|cnn|resnet20"
#define NN_MODEL_HELP                                                                          \
    "network: mlp (784-hidden-10 on 28x28 images), cnn (VGG-style: channels=, kernel=; 0.42 M "\
    "params by default) or resnet20 (the paper's: He et al.'s CIFAR ResNet-20, option-A shortcuts, "     \
    "batch norm, 0.27 M params, on 32x32: pad=2); default: the current network's, else mlp"
#define NN_CHANNELS_HELP                                                                       \
    "cnn: the convolutions' widths in order, p (or pool) for a 2x2 max pool; without any p, "  \
    "a pool after every second convolution (default 16,16,p,32,32,p); each convolution is "    \
    "followed by batch norm and ReLU"
#define NN_KERNEL_HELP "cnn: the convolutions' size, odd 1..7 (padding kernel/2)"
#define NN_PAD_HELP                                                                            \
    "background pixels around each image, 0..16 (resnet20: 2, the paper's 32x32 from "        \
    "28x28; others 0); part of the network"
#define NN_ETA_HELP                                                                            \
    "the regularizer's weight per row: row (1/the row's dimension, the paper's text) or "      \
    "layer (each layer's sum divided by its element count, as the authors' code; with "       \
    "their binary regularizer: reg holder base=bin p=2 q=2 r=1, then reg=current)"

/* model=, channels=, kernel=, pad= into cfg (kind and shape; hidden, seed
 * and device are the caller's). cur (may be NULL): the current network,
 * whose shape is the default when model= names its kind. */
int nn_model_config(cs_interp *in, const cs_cmdline *cl, const cs_nn *cur, cs_nn_config *cfg,
                    cs_err *err);
/* Whether cfg (as nn_model_config filled it) asks for another shape than
 * cur's: kind, convolutions, kernel or pad. */
int nn_model_changed(const cs_nn *cur, const cs_nn_config *cfg);
/* eta=row|layer (default row). */
int nn_get_eta(cs_interp *in, const cs_cmdline *cl, cs_nn_eta *eta, cs_err *err);

#endif
