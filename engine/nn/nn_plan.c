/* nn_plan.c — the network's plan: its config checked and defaults filled
 * in, the layers and tensors laid out (shapes and offsets, nothing
 * allocated), and what follows from the shapes alone (parameter count,
 * description, which layers an exclusion selects). A leaf: nn_memory.c
 * sizes a plan, nn_model.c allocates one. */
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

static void conv_bn_relu(cs_nn *nn, const char *name, int C, int H, int OC)
{
    nn_layer *l = add_layer(nn, NN_CONV, C, H, H);
    l->OC = OC;
    add_weight_layer(nn, l, name, (size_t)OC, (size_t)C * 9, 0);
    nn_layer *bn = add_layer(nn, NN_BN, OC, H, H);
    char tn[24];
    snprintf(tn, sizeof tn, "%s.bn.g", name);
    bn->tw = add_tensor(nn, tn, (size_t)OC, NN_T_GAMMA, -1);
    snprintf(tn, sizeof tn, "%s.bn.b", name);
    bn->tb = add_tensor(nn, tn, (size_t)OC, NN_T_BETA, -1);
    bn->boff = nn->nbufs;
    nn->nbufs += 2 * (size_t)OC;
    add_layer(nn, NN_RELU, OC, H, H);
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
    for (int i = 0; i < nn->nwl; i++) {
        nn->wl[i].snap_off = off;
        off += nn->wl[i].rows * nn->wl[i].cols;
        /* the first convolution and the last fully-connected layer */
        nn->wl[i].excl_default = (i == 0 && nn->cfg.kind == CS_NN_CNN) || i == nn->nwl - 1;
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

int nn_plan(cs_nn *nn, const cs_nn_config *cfg, cs_err *err)
{
    nn->cfg = *cfg;
    nn->cfg.device = NULL;
    if (nn->cfg.nhidden == 0) {
        if (cfg->kind == CS_NN_MLP) {
            nn->cfg.nhidden = 2;
            nn->cfg.hidden[0] = nn->cfg.hidden[1] = 512;
        } else {
            nn->cfg.nhidden = 1;
            nn->cfg.hidden[0] = 256;
        }
    }
    if (nn->cfg.nhidden < 0 || nn->cfg.nhidden > CS_NN_MAX_HIDDEN ||
        (cfg->kind == CS_NN_CNN && nn->cfg.nhidden != 1))
        return cs_fail(err, CS_EINVAL, "hidden: %s takes %s",
                       cfg->kind == CS_NN_CNN ? "cnn" : "mlp",
                       cfg->kind == CS_NN_CNN ? "one size (the hidden fc)" : "1 to 8 sizes");
    for (int i = 0; i < nn->cfg.nhidden; i++)
        if (nn->cfg.hidden[i] < 1 || nn->cfg.hidden[i] > 16384)
            return cs_fail(err, CS_EINVAL, "hidden: size %d out of range 1..16384",
                           nn->cfg.hidden[i]);
    if (cfg->kind == CS_NN_MLP) {
        int in = CS_NN_PIXELS;
        char name[16];
        for (int i = 0; i < nn->cfg.nhidden; i++) {
            snprintf(name, sizeof name, "fc%d", i + 1);
            dense(nn, name, in, nn->cfg.hidden[i]);
            block_act(nn, NN_RELU);
            in = nn->cfg.hidden[i];
        }
        snprintf(name, sizeof name, "fc%d", nn->cfg.nhidden + 1);
        dense(nn, name, in, CS_NN_CLASSES);
    } else if (cfg->kind == CS_NN_CNN) {
        conv_bn_relu(nn, "conv1", 1, 28, 16);
        conv_bn_relu(nn, "conv2", 16, 28, 16);
        pool(nn);
        conv_bn_relu(nn, "conv3", 16, 14, 32);
        conv_bn_relu(nn, "conv4", 32, 14, 32);
        pool(nn);
        dense(nn, "fc1", 32 * 7 * 7, nn->cfg.hidden[0]);
        block_act(nn, NN_RELU);
        dense(nn, "fc2", nn->cfg.hidden[0], CS_NN_CLASSES);
    } else {
        return cs_fail(err, CS_EINVAL, "unknown model kind %d", (int)cfg->kind);
    }
    finish_shapes(nn);
    return CS_OK;
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
    if (nn->cfg.kind == CS_NN_MLP) {
        k += (size_t)snprintf(buf, len, "mlp %d", CS_NN_PIXELS);
        for (int i = 0; i < nn->cfg.nhidden && k < len; i++)
            k += (size_t)snprintf(buf + k, len - k, "-%d", nn->cfg.hidden[i]);
        if (k < len)
            snprintf(buf + k, len - k, "-%d", CS_NN_CLASSES);
    } else {
        snprintf(buf, len, "cnn conv16,16,pool,32,32,pool fc1568-%d-10", nn->cfg.hidden[0]);
    }
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
