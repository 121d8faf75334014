/* nn_model_args.c — see nn_model_args.h. */
#include "nn_model_args.h"

#include <stdlib.h>
#include <string.h>

#include "cs_args.h"

/* channels=16,16,p,32,32,p into cfg->conv; no p: a pool after every second */
static int parse_channels(cs_interp *in, const cs_cmdline *cl, cs_nn_config *cfg, cs_err *err)
{
    const char *text = cs_arg_text(cl, "channels", NULL);
    int v[CS_NN_MAX_CONV], n = 0, pools = 0;
    for (const char *p = text; *p;) {
        const char *end = p + strcspn(p, ",");
        long w = 0;
        int pool = (end - p == 1 && *p == 'p') || (end - p == 4 && !strncmp(p, "pool", 4));
        if (!pool) {
            char *e;
            w = strtol(p, &e, 10);
            if (e != end || w < 1 || w > 1024)
                w = -1;
        }
        if (w < 0 || n == CS_NN_MAX_CONV) {
            cs_arg_blame(in, cl, "channels", 0);
            return cs_fail(err, CS_EINVAL, "channels=%s: expected up to %d entries, each a "
                           "width 1..1024 or p (a 2x2 max pool), separated by commas", text,
                           CS_NN_MAX_CONV);
        }
        pools += pool;
        v[n++] = pool ? CS_NN_CONV_POOL : (int)w;
        p = *end ? end + 1 : end;
    }
    cfg->nconv = 0;
    for (int i = 0, convs = 0; i < n; i++) {
        if (cfg->nconv == CS_NN_MAX_CONV) {
            cs_arg_blame(in, cl, "channels", 0);
            return cs_fail(err, CS_EINVAL, "channels=%s: more than %d entries with the pools",
                           text, CS_NN_MAX_CONV);
        }
        cfg->conv[cfg->nconv++] = v[i];
        if (!pools && ++convs % 2 == 0 && cfg->nconv < CS_NN_MAX_CONV)
            cfg->conv[cfg->nconv++] = CS_NN_CONV_POOL;
    }
    return CS_OK;
}

int nn_model_config(cs_interp *in, const cs_cmdline *cl, const cs_nn *cur, cs_nn_config *cfg,
                    cs_err *err)
{
    const char *model;
    const char *curkind = cur ? cs_nn_kind_name(cs_nn_get_kind(cur)) : "mlp";
    int rc = cs_arg_choice(in, cl, "model", NN_MODEL_CHOICES, curkind, &model, err);
    if (rc)
        return rc;
    cfg->kind = !strcmp(model, "cnn") ? CS_NN_CNN : !strcmp(model, "resnet20") ? CS_NN_RESNET20
                                                                               : CS_NN_MLP;
    cfg->nconv = cfg->kernel = 0;
    cfg->pad = cfg->kind == CS_NN_RESNET20 ? 2 : 0;
    if (cur && cs_nn_get_kind(cur) == cfg->kind) {   /* the current shape by default */
        cs_nn_config c;
        cs_nn_get_config(cur, &c);
        memcpy(cfg->conv, c.conv, sizeof cfg->conv);
        cfg->nconv = c.nconv;
        cfg->kernel = c.kernel;
        cfg->pad = c.pad;
    }
    if (cfg->kind != CS_NN_CNN)
        for (size_t i = 0; i < 2; i++) {
            const char *key = i ? "kernel" : "channels";
            if (cs_cmdline_key(cl, key)) {
                cs_arg_blame(in, cl, key, 0);
                return cs_fail(err, CS_EINVAL, "%s: only for model=cnn (%s has a fixed shape)",
                               key, model);
            }
        }
    long kernel = cfg->kernel ? cfg->kernel : 3, pad;
    if ((rc = cs_arg_long(in, cl, "pad", cfg->pad, 0, CS_NN_MAX_PAD, &pad, err)))
        return rc;
    cfg->pad = (int)pad;
    if (cfg->kind != CS_NN_CNN)
        return CS_OK;
    if ((rc = cs_arg_long(in, cl, "kernel", kernel, 1, 7, &kernel, err)))
        return rc;
    if (kernel % 2 == 0) {
        cs_arg_blame(in, cl, "kernel", 0);
        return cs_fail(err, CS_EINVAL, "kernel=%ld: an odd size (1, 3, 5, 7)", kernel);
    }
    cfg->kernel = (int)kernel;
    if (cs_cmdline_key(cl, "channels"))
        rc = parse_channels(in, cl, cfg, err);
    return rc;
}

int nn_model_changed(const cs_nn *cur, const cs_nn_config *cfg)
{
    cs_nn_config c;
    cs_nn_get_config(cur, &c);
    if (c.kind != cfg->kind || c.pad != cfg->pad)
        return 1;
    if (cfg->kind != CS_NN_CNN)
        return 0;
    int k = cfg->kernel ? cfg->kernel : 3;
    if (cfg->nconv == 0)   /* the default shape */
        return k != c.kernel || c.nconv != 6 || c.conv[0] != 16 || c.conv[1] != 16 ||
               c.conv[2] != CS_NN_CONV_POOL || c.conv[3] != 32 || c.conv[4] != 32 ||
               c.conv[5] != CS_NN_CONV_POOL;
    return k != c.kernel || c.nconv != cfg->nconv ||
           memcmp(c.conv, cfg->conv, (size_t)c.nconv * sizeof c.conv[0]) != 0;
}

int nn_get_eta(cs_interp *in, const cs_cmdline *cl, cs_nn_eta *eta, cs_err *err)
{
    const char *e;
    int rc = cs_arg_choice(in, cl, "eta", "row|layer", "row", &e, err);
    if (!rc)
        *eta = !strcmp(e, "layer") ? CS_NN_ETA_LAYER : CS_NN_ETA_ROW;
    return rc;
}
