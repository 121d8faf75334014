/* nn_plan.c — the network's plan: its config checked and defaults filled
 * in, the layers and tensors laid out (shapes and offsets, nothing
 * allocated), and what follows from the shapes alone (parameter count,
 * description, which layers an exclusion selects). A leaf: nn_memory.c
 * sizes a plan, nn_model.c allocates one. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nn_internal.h"

/* ------------------------------------------------------------------ the layout */

static int add_tensor(cs_nn *nn, const char *name, size_t n, int kind, int wl)
{
    nn_tensor *t = &nn->t[nn->nt];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->off = nn->nparams;
    t->n = n;
    t->kind = kind;
    t->wl = wl;
    nn->nparams += n;
    return nn->nt++;
}

static nn_layer *add_layer(cs_nn *nn, int type, int C, int H, int W)
{
    nn_layer *l = &nn->layer[nn->nlayers++];
    memset(l, 0, sizeof *l);
    l->type = type;
    l->C = C;
    l->H = H;
    l->W = W;
    l->OC = C;
    l->OH = H;
    l->OW = W;
    l->tw = l->tb = l->wl = -1;
    l->in_sz = (size_t)C * H * W;
    return l;
}

static void add_weight_layer(cs_nn *nn, nn_layer *l, const char *name, size_t rows, size_t cols,
                             int bias)
{
    nn_wlayer *w = &nn->wl[nn->nwl];
    memset(w, 0, sizeof *w);
    snprintf(w->name, sizeof w->name, "%s", name);
    char tn[24];
    w->layer = (int)(l - nn->layer);
    w->rows = rows;
    w->cols = cols;
    snprintf(tn, sizeof tn, "%s.w", name);
    w->tw = l->tw = add_tensor(nn, tn, rows * cols, NN_T_W, nn->nwl);
    if (bias) {
        snprintf(tn, sizeof tn, "%s.b", name);
        l->tb = add_tensor(nn, tn, rows, NN_T_B, -1);
    }
    l->wl = nn->nwl++;
}

static void dense(cs_nn *nn, const char *name, int in, int out)
{
    nn_layer *l = add_layer(nn, NN_DENSE, in, 1, 1);
    l->OC = out;
    add_weight_layer(nn, l, name, (size_t)out, (size_t)in, 1);
}

static void block_act(cs_nn *nn, int type)
{
    nn_layer *p = &nn->layer[nn->nlayers - 1];
    add_layer(nn, type, p->OC, p->OH, p->OW);
}

static nn_layer *conv_bn_relu(cs_nn *nn, const char *name, int C, int H, int W, int OC, int k,
                              int stride, int relu)
{
    nn_layer *l = add_layer(nn, NN_CONV, C, H, W);
    l->OC = OC;
    l->k = k;
    l->stride = stride;
    l->OH = (H - 1) / stride + 1;
    l->OW = (W - 1) / stride + 1;
    add_weight_layer(nn, l, name, (size_t)OC, (size_t)C * k * k, 0);
    nn_layer *bn = add_layer(nn, NN_BN, OC, l->OH, l->OW);
    char tn[24];
    snprintf(tn, sizeof tn, "%s.bn.g", name);
    bn->tw = add_tensor(nn, tn, (size_t)OC, NN_T_GAMMA, -1);
    snprintf(tn, sizeof tn, "%s.bn.b", name);
    bn->tb = add_tensor(nn, tn, (size_t)OC, NN_T_BETA, -1);
    bn->boff = nn->nbufs;
    nn->nbufs += 2 * (size_t)OC;
    if (relu)
        add_layer(nn, NN_RELU, OC, l->OH, l->OW);
    return l;
}

static void pool(cs_nn *nn)
{
    nn_layer *p = &nn->layer[nn->nlayers - 1];
    nn_layer *l = add_layer(nn, NN_POOL, p->OC, p->OH, p->OW);
    l->OH = l->H / 2;
    l->OW = l->W / 2;
}

static void finish_shapes(cs_nn *nn)
{
    for (int i = 0; i < nn->nlayers; i++) {
        nn_layer *l = &nn->layer[i];
        l->out_sz = (size_t)l->OC * l->OH * l->OW;
    }
    size_t off = 0;
    nn->allrows = 0;
    for (int i = 0; i < nn->nwl; i++) {
        nn->wl[i].snap_off = off;
        off += nn->wl[i].rows * nn->wl[i].cols;
        nn->wl[i].roff = nn->allrows;
        nn->allrows += nn->wl[i].rows;
        /* the first convolution and the last fully-connected layer */
        nn->wl[i].excl_default = (i == 0 && nn->cfg.kind != CS_NN_MLP) || i == nn->nwl - 1;
        if (nn->wl[i].rows > nn->maxrows)
            nn->maxrows = nn->wl[i].rows;
        if (nn->wl[i].cols > nn->maxcols)
            nn->maxcols = nn->wl[i].cols;
    }
    nn->snap_n = off;
    /* one α tensor per weight layer (trained only when fine-tuning) */
    for (int i = 0; i < nn->nwl; i++) {
        char tn[24];
        snprintf(tn, sizeof tn, "%s.alpha", nn->wl[i].name);
        nn->wl[i].talpha = add_tensor(nn, tn, nn->wl[i].rows, NN_T_ALPHA, i);
    }
}

/* One basic block of resnet20 after layer `src`: conv + BN + ReLU, conv +
 * BN, the shortcut from src's output added, ReLU. */
static void basic_block(cs_nn *nn, int stage, int block, int planes, int stride)
{
    int src = nn->nlayers - 1;
    nn_layer *in = &nn->layer[src];
    char name[64];   /* "layer1.0.conv1": 14 (room for any int) */
    snprintf(name, sizeof name, "layer%d.%d.conv1", stage, block);
    nn_layer *c1 = conv_bn_relu(nn, name, in->OC, in->OH, in->OW, planes, 3, stride, 1);
    snprintf(name, sizeof name, "layer%d.%d.conv2", stage, block);
    conv_bn_relu(nn, name, planes, c1->OH, c1->OW, planes, 3, 1, 0);
    nn_layer *p = &nn->layer[nn->nlayers - 1];
    nn_layer *add = add_layer(nn, NN_ADD, p->OC, p->OH, p->OW);
    add->src = src;
    nn->layer[src].skip = nn->nlayers - 1;
    block_act(nn, NN_RELU);
}

static void plan_resnet20(cs_nn *nn)
{
    conv_bn_relu(nn, "conv1", nn->in_c, nn->in_h, nn->in_w, 16, 3, 1, 1);
    static const int planes[3] = {16, 32, 64};
    for (int s = 0; s < 3; s++)
        for (int b = 0; b < 3; b++)
            basic_block(nn, s + 1, b, planes[s], s > 0 && b == 0 ? 2 : 1);
    block_act(nn, NN_GAP);
    nn_layer *g = &nn->layer[nn->nlayers - 1];
    g->OH = g->OW = 1;
    dense(nn, "fc", g->OC, nn->classes);
}

/* The cnn's convolutions and pools, each pool halving H and W (rounding
 * down: the last row or column of an odd side is dropped, as PyTorch's and
 * ONNX's MaxPool do); a pool that would leave no pixel is refused. */
static int plan_cnn(cs_nn *nn, cs_err *err)
{
    const cs_nn_config *c = &nn->cfg;
    int C = nn->in_c, H = nn->in_h, W = nn->in_w, nc = 0;
    char name[16];
    for (int i = 0; i < c->nconv; i++) {
        if (c->conv[i] == CS_NN_CONV_POOL) {
            if (H < 2 || W < 2)
                return cs_fail_key(err, CS_EINVAL, "channels",
                                   "channels: the pool at entry %d would leave no pixel, the "
                                   "images are %d×%d there", i + 1, H, W);
            pool(nn);
            H /= 2;
            W /= 2;
            continue;
        }
        snprintf(name, sizeof name, "conv%d", ++nc);
        conv_bn_relu(nn, name, C, H, W, c->conv[i], c->kernel, 1, 1);
        C = c->conv[i];
    }
    if (nc == 0)
        return cs_fail_key(err, CS_EINVAL, "channels", "channels: no convolution (give their "
                           "widths, e.g. channels=16,16,p,32,32,p)");
    dense(nn, "fc1", C * H * W, c->hidden[0]);
    block_act(nn, NN_RELU);
    dense(nn, "fc2", c->hidden[0], nn->classes);
    return CS_OK;
}

/* The input's shape and class count: the defaults filled in, the ranges
 * and the pixel normalization checked (resnet20's two stride-2 stages on
 * sides that halve exactly). */
static int check_input(cs_nn_config *c, cs_err *err)
{
    c->channels = c->channels ? c->channels : 1;
    c->height = c->height ? c->height : CS_NN_IMG;
    c->width = c->width ? c->width : CS_NN_IMG;
    c->classes = c->classes ? c->classes : CS_NN_CLASSES;
    if (c->channels < 1 || c->channels > CS_NN_MAX_CHANNELS || c->height < 1 ||
        c->height > CS_NN_MAX_SIDE || c->width < 1 || c->width > CS_NN_MAX_SIDE)
        return cs_fail(err, CS_EINVAL, "input %d×%d×%d: channels 1..%d, height and width "
                       "1..%d", c->channels, c->height, c->width, CS_NN_MAX_CHANNELS,
                       CS_NN_MAX_SIDE);
    if (c->classes < 1 || c->classes > CS_NN_MAX_CLASSES)
        return cs_fail(err, CS_EINVAL, "%d classes: 1..%d", c->classes, CS_NN_MAX_CLASSES);
    if (c->in_std[0] > 0)   /* its own normalization: every channel's */
        for (int i = 0; i < c->channels; i++)
            if (!isfinite(c->in_mean[i]) || !isfinite(c->in_std[i]) || !(c->in_std[i] > 0))
                return cs_fail(err, CS_EINVAL, "the pixel normalization of channel %d: mean "
                               "%g, std %g (std must be > 0)", i + 1, (double)c->in_mean[i],
                               (double)c->in_std[i]);
    if (c->in_std[0] == 0 && c->channels > 1)
        return cs_fail(err, CS_EINVAL, "the fixed normalization is Fashion-MNIST's, of one "
                       "channel: %d channels need their own (normalize=data or "
                       "fixed:M1/M2/..,S1/S2/..)", c->channels);
    int H = c->height + 2 * c->pad, W = c->width + 2 * c->pad;
    if (c->kind == CS_NN_RESNET20 && (H % 4 || W % 4 || H < 8 || W < 8))
        return cs_fail_key(err, CS_EINVAL, "pad", "resnet20 takes images whose height and "
                           "width with the pad are multiples of 4, at least 8 (two stride-2 "
                           "stages): %d×%d with pad=%d is %d×%d", c->height, c->width, c->pad,
                           H, W);
    return CS_OK;
}

/* The cfg's defaults and ranges (those of one kind refused on another). */
static int check_config(cs_nn_config *c, cs_err *err)
{
    if (c->kind != CS_NN_MLP && c->kind != CS_NN_CNN && c->kind != CS_NN_RESNET20)
        return cs_fail(err, CS_EINVAL, "unknown model kind %d", (int)c->kind);
    if (c->nhidden == 0 && c->kind != CS_NN_RESNET20) {
        if (c->kind == CS_NN_MLP) {
            c->nhidden = 2;
            c->hidden[0] = c->hidden[1] = 512;
        } else {
            c->nhidden = 1;
            c->hidden[0] = 256;
        }
    }
    if (c->kind == CS_NN_RESNET20 && c->nhidden != 0)
        return cs_fail_key(err, CS_EINVAL, "hidden", "hidden: resnet20 has no hidden fc (its "
                           "fc takes the 64 averaged channels)");
    if (c->nhidden < 0 || c->nhidden > CS_NN_MAX_HIDDEN ||
        (c->kind == CS_NN_CNN && c->nhidden != 1))
        return cs_fail(err, CS_EINVAL, "hidden: %s takes %s",
                       c->kind == CS_NN_CNN ? "cnn" : "mlp",
                       c->kind == CS_NN_CNN ? "one size (the hidden fc)" : "1 to 8 sizes");
    for (int i = 0; i < c->nhidden; i++)
        if (c->hidden[i] < 1 || c->hidden[i] > 16384)
            return cs_fail(err, CS_EINVAL, "hidden: size %d out of range 1..16384",
                           c->hidden[i]);
    if (c->pad < 0 || c->pad > CS_NN_MAX_PAD)
        return cs_fail_key(err, CS_EINVAL, "pad", "pad=%d out of range 0..%d", c->pad,
                           CS_NN_MAX_PAD);
    int rc = check_input(c, err);
    if (rc)
        return rc;
    if (c->kind != CS_NN_CNN) {
        if (c->nconv || (c->kernel && c->kernel != 3))
            return cs_fail_key(err, CS_EINVAL, c->nconv ? "channels" : "kernel",
                               "%s: only the cnn takes them (%s has a fixed shape)",
                               c->nconv ? "channels" : "kernel", cs_nn_kind_name(c->kind));
        c->kernel = 0;
        return CS_OK;
    }
    if (c->kernel == 0)
        c->kernel = 3;
    if (c->kernel < 1 || c->kernel > 7 || c->kernel % 2 == 0)
        return cs_fail_key(err, CS_EINVAL, "kernel", "kernel=%d: an odd size 1..7", c->kernel);
    if (c->nconv == 0) {
        static const int def[6] = {16, 16, CS_NN_CONV_POOL, 32, 32, CS_NN_CONV_POOL};
        memcpy(c->conv, def, sizeof def);
        c->nconv = 6;
    }
    if (c->nconv < 0 || c->nconv > CS_NN_MAX_CONV)
        return cs_fail_key(err, CS_EINVAL, "channels", "channels: 1 to %d entries",
                           CS_NN_MAX_CONV);
    for (int i = 0; i < c->nconv; i++)
        if (c->conv[i] != CS_NN_CONV_POOL && (c->conv[i] < 1 || c->conv[i] > 1024))
            return cs_fail_key(err, CS_EINVAL, "channels",
                               "channels: width %d out of range 1..1024", c->conv[i]);
    return CS_OK;
}

int nn_plan(cs_nn *nn, const cs_nn_config *cfg, cs_err *err)
{
    nn->cfg = *cfg;
    nn->cfg.device = NULL;
    int rc = check_config(&nn->cfg, err);
    if (rc)
        return rc;
    nn->in_c = nn->cfg.channels;
    nn->in_h = nn->cfg.height + 2 * nn->cfg.pad;
    nn->in_w = nn->cfg.width + 2 * nn->cfg.pad;
    nn->classes = nn->cfg.classes;
    if (cfg->kind == CS_NN_MLP) {
        int in = nn->in_c * nn->in_h * nn->in_w;
        char name[16];
        for (int i = 0; i < nn->cfg.nhidden; i++) {
            snprintf(name, sizeof name, "fc%d", i + 1);
            dense(nn, name, in, nn->cfg.hidden[i]);
            block_act(nn, NN_RELU);
            in = nn->cfg.hidden[i];
        }
        snprintf(name, sizeof name, "fc%d", nn->cfg.nhidden + 1);
        dense(nn, name, in, nn->classes);
    } else if (cfg->kind == CS_NN_CNN) {
        if ((rc = plan_cnn(nn, err)))
            return rc;
    } else {
        plan_resnet20(nn);
    }
    finish_shapes(nn);
    return CS_OK;
}

const char *cs_nn_kind_name(cs_nn_kind kind)
{
    return kind == CS_NN_CNN ? "cnn" : kind == CS_NN_RESNET20 ? "resnet20" : "mlp";
}

int nn_has_skips(const cs_nn *nn)
{
    for (int i = 0; i < nn->nlayers; i++)
        if (nn->layer[i].type == NN_ADD)
            return 1;
    return 0;
}

int nn_conv_plain(const nn_layer *l)
{
    return l->k == 3 && l->stride == 1;
}

void nn_module_name(const cs_nn *nn, int i, char *out, size_t len)
{
    const nn_layer *l = &nn->layer[i];
    if (l->type != NN_BN) {
        snprintf(out, len, "%s", l->wl >= 0 ? nn->wl[l->wl].name : "");
        return;
    }
    /* a batch norm: its convolution's name with the last "conv" made "bn" */
    const char *conv = nn->wl[nn->layer[i - 1].wl].name, *p = NULL;
    for (const char *q = strstr(conv, "conv"); q; q = strstr(q + 1, "conv"))
        p = q;
    if (!p)
        snprintf(out, len, "%s.bn", conv);
    else
        snprintf(out, len, "%.*sbn%s", (int)(p - conv), conv, p + 4);
}

/* ------------------------------------------------------------------ from the shapes */

size_t cs_nn_param_count(const cs_nn *nn)
{
    size_t n = 0;
    for (int i = 0; i < nn->nt; i++)
        if (nn->t[i].kind != NN_T_ALPHA)
            n += nn->t[i].n;
    return n;
}

void cs_nn_describe(const cs_nn *nn, char *buf, size_t len)
{
    size_t k = 0;
    const cs_nn_config *c = &nn->cfg;
    if (c->kind == CS_NN_MLP) {
        k += (size_t)snprintf(buf, len, "mlp %d", nn->in_c * nn->in_h * nn->in_w);
        for (int i = 0; i < c->nhidden && k < len; i++)
            k += (size_t)snprintf(buf + k, len - k, "-%d", c->hidden[i]);
        if (k < len)
            snprintf(buf + k, len - k, "-%d", nn->classes);
        return;
    }
    char in[48];   /* "32x32", with the channels when more than one: "3x32x32" */
    if (nn->in_c > 1)
        snprintf(in, sizeof in, "%dx%dx%d", nn->in_c, nn->in_h, nn->in_w);
    else
        snprintf(in, sizeof in, "%dx%d", nn->in_h, nn->in_w);
    if (c->kind == CS_NN_RESNET20) {
        snprintf(buf, len, "resnet20 %s 16,32,64 option-A gap fc64-%d", in, nn->classes);
        return;
    }
    k += (size_t)snprintf(buf, len, "cnn conv");
    for (int i = 0; i < c->nconv && k < len; i++)
        k += c->conv[i] == CS_NN_CONV_POOL
                 ? (size_t)snprintf(buf + k, len - k, "%spool", i ? "," : "")
                 : (size_t)snprintf(buf + k, len - k, "%s%d", i ? "," : "", c->conv[i]);
    if (c->kernel != 3 && k < len)
        k += (size_t)snprintf(buf + k, len - k, " k%d", c->kernel);
    if ((c->pad || nn->in_c > 1 || c->height != CS_NN_IMG || c->width != CS_NN_IMG) && k < len)
        k += (size_t)snprintf(buf + k, len - k, " %s", in);
    const nn_layer *fc1 = &nn->layer[nn->wl[nn->nwl - 2].layer];
    if (k < len)
        snprintf(buf + k, len - k, " fc%d-%d-%d", fc1->C, c->hidden[0], nn->classes);
}

int nn_selected(const cs_nn *nn, int i, cs_nn_exclude ex)
{
    switch (ex) {
    case CS_NN_EXCL_NONE: return 1;
    case CS_NN_EXCL_LAST: return i != nn->nwl - 1;
    case CS_NN_EXCL_FIRST: return i != 0;
    default: return !nn->wl[i].excl_default;
    }
}
