/* nn_onnx.c — the network in inference mode as an ONNX model (cs_nn.h,
 * cs_nn_export_onnx), the protobuf written by hand (cs_pb.h) from onnx.proto
 * (ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto with
 * raw_data, ValueInfoProto), opset 13. One node (or a few) per layer, in
 * layer order; the weights are initializers named as PyTorch's state_dict
 * names them (as cs_nn_save_npz), the activations l<i>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_file.h"
#include "cs_pb.h"
#include "nn_internal.h"

/* onnx.proto's field numbers and enums (the few used) */
enum { M_IR_VERSION = 1, M_PRODUCER = 2, M_GRAPH = 7, M_OPSET = 8 };
enum { G_NODE = 1, G_NAME = 2, G_INIT = 5, G_INPUT = 11, G_OUTPUT = 12 };
enum { N_INPUT = 1, N_OUTPUT = 2, N_NAME = 3, N_OP = 4, N_ATTR = 5 };
enum { A_NAME = 1, A_F = 2, A_I = 3, A_INTS = 8, A_TYPE = 20 };
enum { AT_FLOAT = 1, AT_INT = 2, AT_INTS = 7 };
enum { T_DIMS = 1, T_TYPE = 2, T_NAME = 8, T_RAW = 9 };
enum { DT_FLOAT = 1, DT_INT64 = 7 };
#define IR_VERSION 7
#define OPSET 13

typedef struct onnx {
    cs_pb g;            /* the GraphProto */
    int nodes;
} onnx;

static void attr_int(cs_pb *node, const char *name, int64_t v)
{
    cs_pb a = {0};
    cs_pb_str(&a, A_NAME, name);
    cs_pb_int(&a, A_I, v);
    cs_pb_uint(&a, A_TYPE, AT_INT);
    cs_pb_msg(node, N_ATTR, &a);
    cs_pb_free(&a);
}

static void attr_float(cs_pb *node, const char *name, float v)
{
    cs_pb a = {0};
    cs_pb_str(&a, A_NAME, name);
    cs_pb_float(&a, A_F, v);
    cs_pb_uint(&a, A_TYPE, AT_FLOAT);
    cs_pb_msg(node, N_ATTR, &a);
    cs_pb_free(&a);
}

static void attr_ints(cs_pb *node, const char *name, const int64_t *v, int n)
{
    cs_pb a = {0};
    cs_pb_str(&a, A_NAME, name);
    for (int i = 0; i < n; i++)
        cs_pb_int(&a, A_INTS, v[i]);
    cs_pb_uint(&a, A_TYPE, AT_INTS);
    cs_pb_msg(node, N_ATTR, &a);
    cs_pb_free(&a);
}

/* A node op(in...) → out, its attributes already in attrs (may be NULL);
 * an input "" is left out (an optional one at the end). */
static void node(onnx *x, const char *op, const char *const *in, int nin, const char *out,
                 const cs_pb *attrs)
{
    cs_pb n = {0};
    for (int i = 0; i < nin; i++)
        if (in[i][0])
            cs_pb_str(&n, N_INPUT, in[i]);
    cs_pb_str(&n, N_OUTPUT, out);
    char name[32];
    snprintf(name, sizeof name, "%s_%d", op, x->nodes++);
    cs_pb_str(&n, N_NAME, name);
    cs_pb_str(&n, N_OP, op);
    if (attrs)
        cs_pb_raw(&n, attrs->p, attrs->n);
    if (attrs && attrs->oom)
        n.oom = 1;
    cs_pb_msg(&x->g, G_NODE, &n);
    cs_pb_free(&n);
}

/* an initializer: float32 or int64 data of the given dims */
static void init(onnx *x, const char *name, int dtype, const int64_t *dims, int nd,
                 const void *data)
{
    cs_pb t = {0};
    size_t n = 1;
    for (int i = 0; i < nd; i++) {
        cs_pb_int(&t, T_DIMS, dims[i]);
        n *= (size_t)dims[i];
    }
    cs_pb_uint(&t, T_TYPE, (uint64_t)dtype);
    cs_pb_str(&t, T_NAME, name);
    cs_pb_bytes(&t, T_RAW, data, n * (dtype == DT_INT64 ? 8 : 4));   /* little-endian hosts */
    cs_pb_msg(&x->g, G_INIT, &t);
    cs_pb_free(&t);
}

/* a graph input or output: float, the batch dimension "N" then dims */
static void value_info(cs_pb *g, int field, const char *name, const int64_t *dims, int nd)
{
    cs_pb shape = {0}, tensor = {0}, type = {0}, vi = {0}, d = {0};
    cs_pb_str(&d, 2, "N");   /* Dimension.dim_param */
    cs_pb_msg(&shape, 1, &d);
    for (int i = 0; i < nd; i++) {
        cs_pb_free(&d);
        cs_pb_int(&d, 1, dims[i]);   /* Dimension.dim_value */
        cs_pb_msg(&shape, 1, &d);
    }
    cs_pb_uint(&tensor, 1, DT_FLOAT);   /* TypeProto.Tensor.elem_type */
    cs_pb_msg(&tensor, 2, &shape);      /* .shape */
    cs_pb_msg(&type, 1, &tensor);       /* TypeProto.tensor_type */
    cs_pb_str(&vi, 1, name);            /* ValueInfoProto.name */
    cs_pb_msg(&vi, 2, &type);           /* .type */
    cs_pb_msg(g, field, &vi);
    cs_pb_free(&d);
    cs_pb_free(&shape);
    cs_pb_free(&tensor);
    cs_pb_free(&type);
    cs_pb_free(&vi);
}

/* Pad's pads as an initializer: before and after, per axis of N×C×H×W */
static void pads_init(onnx *x, const char *name, int64_t c0, int64_t c1, int64_t h, int64_t w)
{
    int64_t pads[8] = {0, c0, h, w, 0, c1, h, w}, d = 8;
    init(x, name, DT_INT64, &d, 1, pads);
}

/* layer i of nn into the graph: its output l<i> from `in`; *flat: whether
 * the tensor flowing is N × features already (else N×C×H×W) */
static void layer_nodes(onnx *x, const cs_nn *nn, int i, const float *hp, const char *in,
                        const char *out, int *flat)
{
    const nn_layer *l = &nn->layer[i];
    char mod[32], w[48], b[48], m[48], v[48];
    nn_module_name(nn, i, mod, sizeof mod);
    snprintf(w, sizeof w, "%s.weight", mod);
    snprintf(b, sizeof b, "%s.bias", mod);
    cs_pb at = {0};
    switch (l->type) {
    case NN_DENSE: {
        const char *src = in;
        char fl[48];
        if (!*flat) {   /* N×C×H×W → N×(C·H·W) */
            snprintf(fl, sizeof fl, "%s_flat", out);
            attr_int(&at, "axis", 1);
            node(x, "Flatten", &in, 1, fl, &at);
            cs_pb_free(&at);
            src = fl;
        }
        int64_t dw[2] = {l->OC, l->C}, db = l->OC;
        init(x, w, DT_FLOAT, dw, 2, hp + nn->t[l->tw].off);
        init(x, b, DT_FLOAT, &db, 1, hp + nn->t[l->tb].off);
        attr_int(&at, "transB", 1);
        const char *ins[3] = {src, w, b};
        node(x, "Gemm", ins, 3, out, &at);
        *flat = 1;
        break;
    }
    case NN_CONV: {
        int64_t dw[4] = {l->OC, l->C, l->k, l->k}, p = l->k / 2;
        int64_t ks[2] = {l->k, l->k}, pads[4] = {p, p, p, p}, st[2] = {l->stride, l->stride};
        init(x, w, DT_FLOAT, dw, 4, hp + nn->t[l->tw].off);
        attr_ints(&at, "kernel_shape", ks, 2);
        attr_ints(&at, "pads", pads, 4);
        attr_ints(&at, "strides", st, 2);
        const char *ins[2] = {in, w};
        node(x, "Conv", ins, 2, out, &at);
        break;
    }
    case NN_BN: {
        int64_t dc = l->C;
        snprintf(m, sizeof m, "%s.running_mean", mod);
        snprintf(v, sizeof v, "%s.running_var", mod);
        init(x, w, DT_FLOAT, &dc, 1, hp + nn->t[l->tw].off);
        init(x, b, DT_FLOAT, &dc, 1, hp + nn->t[l->tb].off);
        init(x, m, DT_FLOAT, &dc, 1, hp + nn->nparams + l->boff);
        init(x, v, DT_FLOAT, &dc, 1, hp + nn->nparams + l->boff + l->C);
        attr_float(&at, "epsilon", 1e-5f);
        const char *ins[5] = {in, w, b, m, v};
        node(x, "BatchNormalization", ins, 5, out, &at);
        break;
    }
    case NN_RELU:
        node(x, "Relu", &in, 1, out, NULL);
        break;
    case NN_POOL: {
        int64_t ks[2] = {2, 2};
        attr_ints(&at, "kernel_shape", ks, 2);
        attr_ints(&at, "strides", ks, 2);
        node(x, "MaxPool", &in, 1, out, &at);
        break;
    }
    case NN_GAP: {
        char pooled[48];
        snprintf(pooled, sizeof pooled, "%s_gap", out);
        node(x, "GlobalAveragePool", &in, 1, pooled, NULL);
        const char *p = pooled;
        attr_int(&at, "axis", 1);
        node(x, "Flatten", &p, 1, out, &at);
        *flat = 1;
        break;
    }
    case NN_ADD: {
        const nn_layer *s = &nn->layer[l->src];
        char sc[48];
        snprintf(sc, sizeof sc, "l%d", l->src);
        if (s->OC != l->C || s->OH != l->H || s->OW != l->W) {   /* option A */
            char k[5][48], sub[48], pad[48];
            const char *names[5];
            for (int q = 0; q < 5; q++) {
                snprintf(k[q], sizeof k[q], "%s_sc%d", out, q);
                names[q] = k[q];
            }
            int64_t two = 2, starts[2] = {0, 0}, ends[2] = {INT64_MAX, INT64_MAX},
                    axes[2] = {2, 3}, steps[2] = {s->OH / l->H, s->OW / l->W};
            init(x, k[0], DT_INT64, &two, 1, starts);
            init(x, k[1], DT_INT64, &two, 1, ends);
            init(x, k[2], DT_INT64, &two, 1, axes);
            init(x, k[3], DT_INT64, &two, 1, steps);
            snprintf(sub, sizeof sub, "%s_sub", out);
            const char *sl[5] = {sc, k[0], k[1], k[2], k[3]};
            node(x, "Slice", sl, 5, sub, NULL);
            int cp = (l->C - s->OC) / 2;
            pads_init(x, k[4], cp, l->C - s->OC - cp, 0, 0);
            snprintf(pad, sizeof pad, "%s_pad", out);
            const char *pi[2] = {sub, names[4]};
            node(x, "Pad", pi, 2, pad, NULL);
            snprintf(sc, sizeof sc, "%s", pad);
        }
        const char *ins[2] = {in, sc};
        node(x, "Add", ins, 2, out, NULL);
        break;
    }
    }
    cs_pb_free(&at);
}

int cs_nn_export_onnx(cs_nn *nn, const char *path, int force, const cs_cancel *cancel,
                      cs_err *err)
{
    size_t pb = nn->nparams * sizeof(float), bb = nn->nbufs * sizeof(float);
    float *hp = malloc(pb + bb + sizeof(float));
    if (!hp)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    if (nn->ops->download(hp, nn->params, pb) || nn->ops->download(hp + nn->nparams, nn->bufs, bb)) {
        free(hp);
        return nn_device_fail(nn, "download", err);
    }
    onnx x = {0};
    char desc[160];
    cs_nn_describe(nn, desc, sizeof desc);
    cs_pb_str(&x.g, G_NAME, desc);
    int64_t in_dims[3] = {nn->in_c, nn->cfg.height, nn->cfg.width}, out_dims[1] = {nn->classes};
    value_info(&x.g, G_INPUT, "input", in_dims, 3);
    value_info(&x.g, G_OUTPUT, "logits", out_dims, 1);
    const char *first = "input";
    int rc = CS_OK;
    if (nn->cfg.pad && nn->in_c == 1) {   /* the border of the normalized 0, as nn_load_batch */
        double mean, sd;
        cs_nn_get_input_norm(nn, &mean, &sd);
        float bg = (float)((0.0f / 255.0f - (float)mean) / (float)sd);
        int64_t one = 1;
        pads_init(&x, "pad.pads", 0, 0, nn->cfg.pad, nn->cfg.pad);
        init(&x, "pad.value", DT_FLOAT, &one, 0, &bg);
        const char *pi[3] = {"input", "pad.pads", "pad.value"};
        node(&x, "Pad", pi, 3, "padded", NULL);
        first = "padded";
    } else if (nn->cfg.pad) {
        /* each channel has its own background: a border of 0 plus a constant
         * that holds the backgrounds on the border and 0 inside (exact: x + 0
         * is x, 0 + bg is bg) */
        int C = nn->in_c, IH = nn->in_h, IW = nn->in_w, p = nn->cfg.pad;
        float *border = calloc((size_t)C * IH * IW, sizeof *border);
        if (!border)
            rc = cs_fail(err, CS_ENOMEM, "out of memory");
        for (int c = 0; border && c < C; c++) {
            double mean, sd;
            cs_nn_get_channel_norm(nn, c, &mean, &sd);
            float bg = (float)((0.0f / 255.0f - (float)mean) / (float)sd);
            for (int yy = 0; yy < IH; yy++)
                for (int xx = 0; xx < IW; xx++)
                    if (yy < p || yy >= IH - p || xx < p || xx >= IW - p)
                        border[((size_t)c * IH + yy) * IW + xx] = bg;
        }
        if (border) {
            int64_t bd[4] = {1, C, IH, IW};
            pads_init(&x, "pad.pads", 0, 0, p, p);
            init(&x, "pad.border", DT_FLOAT, bd, 4, border);
            const char *pi[2] = {"input", "pad.pads"}, *ai[2] = {"padded0", "pad.border"};
            node(&x, "Pad", pi, 2, "padded0", NULL);
            node(&x, "Add", ai, 2, "padded", NULL);
            first = "padded";
            free(border);
        }
    }
    int flat = 0;
    for (int i = 0; i < nn->nlayers; i++) {
        char in[32], out[32];
        snprintf(in, sizeof in, "l%d", i - 1);
        if (i + 1 < nn->nlayers)
            snprintf(out, sizeof out, "l%d", i);
        else
            snprintf(out, sizeof out, "logits");
        layer_nodes(&x, nn, i, hp, i ? in : first, out, &flat);
    }
    free(hp);
    cs_pb opset = {0}, model = {0};
    cs_pb_str(&opset, 1, "");         /* OperatorSetIdProto.domain: the default */
    cs_pb_int(&opset, 2, OPSET);
    cs_pb_int(&model, M_IR_VERSION, IR_VERSION);
    cs_pb_str(&model, M_PRODUCER, "csreg");
    cs_pb_msg(&model, M_GRAPH, &x.g);
    cs_pb_msg(&model, M_OPSET, &opset);
    if (!rc && model.oom)
        rc = cs_fail(err, CS_ENOMEM, "out of memory writing %s", path);
    cs_afile af;
    if (!rc && !(rc = cs_afile_open(&af, path, !force, err))) {
        af.cancel = cancel;
        rc = cs_afile_write(&af, model.p, model.n, err);
        if (rc)
            cs_afile_abort(&af);
        else
            rc = cs_afile_commit(&af, err);
    }
    cs_pb_free(&x.g);
    cs_pb_free(&opset);
    cs_pb_free(&model);
    return rc;
}
