/* nn_npz.c — the network as a NumPy .npz named as PyTorch's state_dict
 * names the same network (cs_nn.h, "weights out"), written and read back:
 * the arrays in layer order, then csreg's own (config, input shape and
 * normalization, each quantized layer's scales and levels). Below nn_io.c,
 * which sends .npz paths and ZIP files here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_file.h"
#include "cs_npz.h"
#include "nn_internal.h"
#include "nn_validate.h"

#define NPZ_FORMAT 1          /* csreg.config[0] */
#define NPZ_CONFIG_LEN 30     /* format, kind, pad, kernel, nhidden, hidden[8], nconv, conv[16] */

/* the tensor's array name and shape (ndim), per layer: W/b of a weight
 * layer, γ/β of a batch norm */
static int tensor_shape(const cs_nn *nn, const nn_layer *l, int bias, char *name, size_t len,
                        size_t *shape)
{
    if (l->type == NN_BN) {
        char bn[32];
        nn_module_name(nn, (int)(l - nn->layer), bn, sizeof bn);
        snprintf(name, len, "%s.%s", bn, bias ? "bias" : "weight");
        shape[0] = (size_t)l->C;
        return 1;
    }
    const nn_wlayer *w = &nn->wl[l->wl];
    snprintf(name, len, "%s.%s", w->name, bias ? "bias" : "weight");
    shape[0] = w->rows;
    if (bias)
        return 1;
    if (l->type == NN_DENSE) {
        shape[1] = w->cols;
        return 2;
    }
    shape[1] = (size_t)l->C;
    shape[2] = shape[3] = (size_t)l->k;
    return 4;
}

static void config_of(const cs_nn *nn, int32_t *c)
{
    memset(c, 0, NPZ_CONFIG_LEN * sizeof *c);
    c[0] = NPZ_FORMAT;
    c[1] = (int32_t)nn->cfg.kind;
    c[2] = nn->cfg.pad;
    c[3] = nn->cfg.kernel;
    c[4] = nn->cfg.nhidden;
    for (int i = 0; i < CS_NN_MAX_HIDDEN; i++)
        c[5 + i] = nn->cfg.hidden[i];
    c[13] = nn->cfg.nconv;
    for (int i = 0; i < CS_NN_MAX_CONV; i++)
        c[14 + i] = nn->cfg.conv[i];
}

int cs_nn_save_npz(cs_nn *nn, const char *path, int force, const cs_cancel *cancel, cs_err *err)
{
    size_t pb = nn->nparams * sizeof(float), bb = nn->nbufs * sizeof(float);
    float *hp = malloc(pb + bb + sizeof(float)), *hs = malloc(nn->snap_n * sizeof(float) + 4);
    int8_t *lv = malloc(nn->snap_n + 1);
    if (!hp || !hs || !lv) {
        free(hp);
        free(hs);
        free(lv);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    int rc = CS_OK;
    if (nn->ops->download(hp, nn->params, pb) || nn->ops->download(hp + nn->nparams, nn->bufs, bb))
        rc = nn_device_fail(nn, "download", err);
    cs_zip_writer z = {0};
    char name[64];
    size_t shape[4];
    for (int i = 0; i < nn->nlayers && !rc; i++) {
        const nn_layer *l = &nn->layer[i];
        if (l->type != NN_DENSE && l->type != NN_CONV && l->type != NN_BN)
            continue;
        int nd = tensor_shape(nn, l, 0, name, sizeof name, shape);
        cs_npz_put(&z, name, CS_NPZ_F32, shape, nd, hp + nn->t[l->tw].off);
        if (l->tb >= 0) {
            nd = tensor_shape(nn, l, 1, name, sizeof name, shape);
            cs_npz_put(&z, name, CS_NPZ_F32, shape, nd, hp + nn->t[l->tb].off);
        }
        if (l->type != NN_BN)
            continue;
        char bn[32];
        nn_module_name(nn, i, bn, sizeof bn);
        const float *run = hp + nn->nparams + l->boff;
        snprintf(name, sizeof name, "%s.running_mean", bn);
        cs_npz_put(&z, name, CS_NPZ_F32, shape, 1, run);
        snprintf(name, sizeof name, "%s.running_var", bn);
        cs_npz_put(&z, name, CS_NPZ_F32, shape, 1, run + l->C);
        int64_t batches = (int64_t)nn->step_total;
        snprintf(name, sizeof name, "%s.num_batches_tracked", bn);
        cs_npz_put(&z, name, CS_NPZ_I64, shape, 0, &batches);
    }
    int32_t cfg[NPZ_CONFIG_LEN], quant[NN_MAX_WL];
    config_of(nn, cfg);
    size_t n1 = NPZ_CONFIG_LEN, nw = (size_t)nn->nwl;
    cs_npz_put(&z, "csreg.config", CS_NPZ_I32, &n1, 1, cfg);
    int C = nn->in_c;
    int32_t shp[4] = {C, nn->cfg.height, nn->cfg.width, nn->classes};
    size_t n4 = 4;
    if (C != 1 || shp[1] != CS_NN_IMG || shp[2] != CS_NN_IMG || shp[3] != CS_NN_CLASSES)
        cs_npz_put(&z, "csreg.shape", CS_NPZ_I32, &n4, 1, shp);   /* else the default's file */
    /* the C means, the C stds, pad (one channel: mean, std, pad as ever) */
    float norm[2 * CS_NN_MAX_CHANNELS + 1];
    for (int c = 0; c < C; c++) {
        double mean, sd;
        cs_nn_get_channel_norm(nn, c, &mean, &sd);
        norm[c] = (float)mean;
        norm[C + c] = (float)sd;
    }
    norm[2 * C] = (float)nn->cfg.pad;
    size_t nin = (size_t)(2 * C + 1);
    cs_npz_put(&z, "csreg.input", CS_NPZ_F32, &nin, 1, norm);
    for (int i = 0; i < nn->nwl; i++)
        quant[i] = nn->wl[i].quant;
    cs_npz_put(&z, "csreg.quant", CS_NPZ_I32, &nw, 1, quant);
    for (int i = 0; i < nn->nwl && !rc; i++) {
        const nn_wlayer *w = &nn->wl[i];
        if (!w->quant)
            continue;
        size_t n = w->rows * w->cols;
        if (nn->ops->download(hs, w->sign, n * sizeof(float))) {
            rc = nn_device_fail(nn, "download", err);
            break;
        }
        for (size_t k = 0; k < n; k++)
            lv[k] = (int8_t)(hs[k] > 0 ? 1 : hs[k] < 0 ? -1 : 0);
        snprintf(name, sizeof name, "csreg.%s.scale", w->name);
        cs_npz_put(&z, name, CS_NPZ_F32, &w->rows, 1, hp + nn->t[w->talpha].off);
        int nd = tensor_shape(nn, &nn->layer[w->layer], 0, name, sizeof name, shape);
        snprintf(name, sizeof name, "csreg.%s.levels", w->name);
        cs_npz_put(&z, name, CS_NPZ_I8, shape, nd, lv);
    }
    free(hp);
    free(hs);
    free(lv);
    const unsigned char *bytes;
    size_t nbytes;
    if (!rc)
        rc = cs_zip_finish(&z, &bytes, &nbytes, err);
    cs_afile af;
    if (!rc && !(rc = cs_afile_open(&af, path, !force, err))) {
        af.cancel = cancel;
        rc = cs_afile_write(&af, bytes, nbytes, err);
        if (rc)
            cs_afile_abort(&af);
        else
            rc = cs_afile_commit(&af, err);
    }
    cs_zip_writer_free(&z);
    return rc;
}

/* ------------------------------------------------------------------ reading */


/* the array `name` of exactly n elements, else an error naming it */
static const cs_npz_array *need(const cs_npz_array *a, size_t na, const char *name, size_t n,
                                const char *path, cs_err *err)
{
    const cs_npz_array *x = cs_npz_find(a, na, name);
    if (!x)
        cs_fail(err, CS_EINVAL, "%s: no array %s (the network it describes has one)", path,
                name);
    else if (x->n != n)
        cs_fail(err, CS_EINVAL, "%s: %s has %zu elements, the network needs %zu", path, name,
                x->n, n);
    else
        return x;
    return NULL;
}

/* x's values into dst as floats; non-finite ones refused */
static int put_floats(float *dst, const cs_npz_array *x, const char *path, cs_err *err)
{
    for (size_t i = 0; i < x->n; i++) {
        if (!isfinite(x->v[i]))
            return cs_fail(err, CS_EINVAL, "%s: %s[%zu] is not finite", path, x->name, i);
        dst[i] = (float)x->v[i];
    }
    return CS_OK;
}

/* the config array into cfg (nn_plan checks the rest) */
static int config_from(const cs_npz_array *c, cs_nn_config *cfg, const char *path, cs_err *err)
{
    for (size_t i = 0; i < NPZ_CONFIG_LEN; i++)
        if (c->v[i] != floor(c->v[i]) || fabs(c->v[i]) > 1e6)
            return cs_fail(err, CS_EINVAL, "%s: csreg.config is not a csreg network's", path);
    if ((int)c->v[0] != NPZ_FORMAT)
        return cs_fail(err, CS_EINVAL, "%s: csreg.config format %d, this csreg reads %d", path,
                       (int)c->v[0], NPZ_FORMAT);
    cfg->kind = (cs_nn_kind)(int)c->v[1];
    cfg->pad = (int)c->v[2];
    cfg->kernel = (int)c->v[3];
    cfg->nhidden = (int)c->v[4];
    if (cfg->nhidden < 0 || cfg->nhidden > CS_NN_MAX_HIDDEN || c->v[1] < 0 || c->v[1] > 2)
        return cs_fail(err, CS_EINVAL, "%s: csreg.config: bad model kind or hidden count", path);
    for (int i = 0; i < CS_NN_MAX_HIDDEN; i++)
        cfg->hidden[i] = (int)c->v[5 + i];
    cfg->nconv = (int)c->v[13];
    for (int i = 0; i < CS_NN_MAX_CONV; i++)
        cfg->conv[i] = (int)c->v[14 + i];
    return CS_OK;
}

/* the arrays of an .npz into a built network nn */
static int fill(cs_nn *nn, const cs_npz_array *a, size_t na, const char *path, float *hp,
                float *hs, cs_err *err)
{
    char name[64];
    size_t shape[4];
    int rc = CS_OK;
    const cs_npz_array *x;
    for (int i = 0; i < nn->nlayers && !rc; i++) {
        const nn_layer *l = &nn->layer[i];
        if (l->type != NN_DENSE && l->type != NN_CONV && l->type != NN_BN)
            continue;
        for (int bias = 0; bias < 2 && !rc; bias++) {
            int t = bias ? l->tb : l->tw;
            if (t < 0)
                continue;
            tensor_shape(nn, l, bias, name, sizeof name, shape);
            rc = !(x = need(a, na, name, nn->t[t].n, path, err)) ? CS_EINVAL
                                                                  : put_floats(hp + nn->t[t].off,
                                                                               x, path, err);
        }
        if (rc || l->type != NN_BN)
            continue;
        char bn[32];
        nn_module_name(nn, i, bn, sizeof bn);
        float *run = hp + nn->nparams + l->boff;
        snprintf(name, sizeof name, "%s.running_mean", bn);
        if (!(x = need(a, na, name, (size_t)l->C, path, err)) || put_floats(run, x, path, err))
            return err->code;
        snprintf(name, sizeof name, "%s.running_var", bn);
        if (!(x = need(a, na, name, (size_t)l->C, path, err)) ||
            put_floats(run + l->C, x, path, err))
            return err->code;
    }
    if (rc)
        return rc;
    const cs_npz_array *q = cs_npz_find(a, na, "csreg.quant");
    for (int i = 0; q && i < nn->nwl; i++) {
        nn_wlayer *w = &nn->wl[i];
        if (q->n != (size_t)nn->nwl || (q->v[i] != 0 && q->v[i] != 1 && q->v[i] != 2))
            return cs_fail(err, CS_EINVAL, "%s: csreg.quant is not one of 0, 1, 2 per weight "
                           "layer", path);
        if (q->v[i] == 0)
            continue;
        size_t n = w->rows * w->cols;
        snprintf(name, sizeof name, "csreg.%s.scale", w->name);
        if (!(x = need(a, na, name, w->rows, path, err)) ||
            put_floats(hp + nn->t[w->talpha].off, x, path, err))
            return err->code;
        snprintf(name, sizeof name, "csreg.%s.levels", w->name);
        if (!(x = need(a, na, name, n, path, err)))
            return err->code;
        for (size_t k = 0; k < n; k++) {
            if (x->v[k] != -1 && x->v[k] != 0 && x->v[k] != 1)
                return cs_fail(err, CS_EINVAL, "%s: %s[%zu] is not -1, 0 or 1", path, name, k);
            hs[k] = (float)x->v[k];
        }
        w->sign = nn->ops->alloc(n * sizeof(float));
        if (!w->sign || nn->ops->upload(w->sign, hs, n * sizeof(float)))
            return cs_fail(err, CS_ENOMEM, "out of memory (%s)", nn->device);
        w->quant = (int)q->v[i];
    }
    if ((rc = nn_validate_stats(path, nn, hp + nn->nparams, err)))
        return rc;
    if (nn->ops->upload(nn->params, hp, nn->nparams * sizeof(float)) ||
        nn->ops->upload(nn->bufs, hp + nn->nparams, nn->nbufs * sizeof(float)))
        return nn_device_fail(nn, "upload", err);
    return CS_OK;
}

int cs_nn_load_npz(cs_nn **out, const char *path, const char *device, cs_err *err)
{
    *out = NULL;
    unsigned char *data = NULL;
    size_t n = 0;
    int rc = cs_npz_load_file(path, &data, &n, err);
    if (rc)
        return rc;
    cs_npz_array *a = NULL;
    size_t na = 0;
    rc = cs_npz_read(data, n, path, (size_t)1 << 28, &a, &na, err);
    free(data);
    if (rc)
        return rc;
    cs_nn_config cfg = {.device = device};
    const cs_npz_array *c = cs_npz_find(a, na, "csreg.config");
    if (!c || c->n != NPZ_CONFIG_LEN)
        rc = cs_fail(err, CS_EINVAL, "%s: no csreg.config of %d int32 (an .npz csreg's save "
                     "model wrote names the network's shape there)", path, NPZ_CONFIG_LEN);
    if (!rc)
        rc = config_from(c, &cfg, path, err);
    /* the input's shape and classes (older files: 1×28×28, 10) */
    const cs_npz_array *shp = cs_npz_find(a, na, "csreg.shape");
    if (!rc && shp) {
        if (shp->n != 4)
            rc = cs_fail(err, CS_EINVAL, "%s: csreg.shape has %zu elements, expected 4 "
                         "(channels, height, width, classes)", path, shp->n);
        for (int i = 0; !rc && i < 4; i++)
            if (shp->v[i] != floor(shp->v[i]) || shp->v[i] < 1 || shp->v[i] > 1e6)
                rc = cs_fail(err, CS_EINVAL, "%s: csreg.shape[%d] = %g is not a size", path, i,
                             shp->v[i]);
        if (!rc) {   /* nn_plan checks the ranges */
            cfg.channels = (int)shp->v[0];
            cfg.height = (int)shp->v[1];
            cfg.width = (int)shp->v[2];
            cfg.classes = (int)shp->v[3];
        }
    }
    int C = cfg.channels ? cfg.channels : 1;
    if (!rc && (C < 1 || C > CS_NN_MAX_CHANNELS))
        rc = cs_fail(err, CS_EINVAL, "%s: csreg.shape: %d channels, 1..%d are taken", path, C,
                     CS_NN_MAX_CHANNELS);
    /* the pixel normalization, when not the fixed default (older files: it):
     * C means, C stds, pad */
    const cs_npz_array *in_norm = cs_npz_find(a, na, "csreg.input");
    if (!rc && in_norm && in_norm->n < (size_t)(2 * C))
        rc = cs_fail(err, CS_EINVAL, "%s: csreg.input has %zu elements, %d channels need %d "
                     "(the means, the stds, pad)", path, in_norm->n, C, 2 * C + 1);
    if (!rc && in_norm) {
        double dm, ds;
        cs_nn_input_norm(&dm, &ds);
        for (int ch = 0; ch < C && !rc; ch++) {
            float m = (float)in_norm->v[ch], sd = (float)in_norm->v[C + ch];
            if (!isfinite(m) || !isfinite(sd) || !(sd > 0))
                rc = cs_fail(err, CS_EINVAL, "%s: csreg.input: channel %d's mean %g, std %g "
                             "(std must be > 0)", path, ch + 1, in_norm->v[ch],
                             in_norm->v[C + ch]);
            cfg.in_mean[ch] = m;
            cfg.in_std[ch] = sd;
        }
        if (!rc && C == 1 && cfg.in_mean[0] == (float)dm && cfg.in_std[0] == (float)ds)
            cfg.in_mean[0] = cfg.in_std[0] = 0;   /* the fixed default */
    }
    /* the shapes and the budget before anything of the network's size */
    cs_nn *plan = rc ? NULL : nn_planned(&cfg, NN_PLAN_BATCH, err);
    if (!rc && !plan)
        rc = err->code;
    free(plan);
    cs_nn *nn = NULL;
    if (!rc)
        rc = cs_nn_build(&nn, &cfg, 0, err);
    float *hp = NULL, *hs = NULL;
    if (!rc) {
        hp = malloc((nn->nparams + nn->nbufs + 1) * sizeof *hp);
        hs = malloc((nn->snap_n + 1) * sizeof *hs);
        if (!hp || !hs)
            rc = cs_fail(err, CS_ENOMEM, "out of memory");
    }
    if (!rc) {
        memset(hp, 0, (nn->nparams + nn->nbufs) * sizeof *hp);
        rc = fill(nn, a, na, path, hp, hs, err);
    }
    free(hp);
    free(hs);
    cs_npz_free(a, na);
    if (rc) {
        cs_nn_free(nn);
        return rc;
    }
    *out = nn;
    return CS_OK;
}
