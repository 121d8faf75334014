/* nn_state.c — the network commands' state in the interpreter (slot
 * CS_EXT_NN, nn_state.h): the network, the loaded data and the pipeline's
 * stages, made on first use; and what train, finetune, evaluate, quantize,
 * hist and the watch ask of it. Below every command that uses it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_nn.h"
#include "cs_sha256.h"
#include "interp_internal.h"
#include "nn_state.h"

static void state_free(void *p)
{
    nn_state *s = p;
    cs_nn_free(s->net);
    cs_nn_data_free(&s->train);
    cs_nn_data_free(&s->test);
    free(s->view_w);
    free(s);
}

static void state_describe(const void *p, char *buf, size_t len)
{
    const nn_state *s = p;
    if (!s->net) {
        buf[0] = 0;
        return;
    }
    int q = cs_nn_is_quantized(s->net);
    snprintf(buf, len, " nn=%s/%s%s", cs_nn_kind_name(cs_nn_get_kind(s->net)),
             cs_nn_device(s->net), q == 1 ? "/bin" : q == 2 ? "/ter" : "");
}

nn_state *nn_state_get(cs_interp *in, cs_err *err)
{
    int created;
    nn_state *s = cs_interp_ext_get(in, CS_EXT_NN, sizeof(nn_state), &created, state_free,
                                    state_describe, err);
    if (s && created)
        s->sel_row = -1;
    return s;
}

nn_stage *nn_add_stage(cs_interp *in, nn_state *s, const char *stage, const char *label)
{
    if (s->nst == NN_MAX_STAGES) {
        memmove(s->st, s->st + 1, (NN_MAX_STAGES - 1) * sizeof s->st[0]);
        s->nst--;
    }
    nn_stage *t = &s->st[s->nst++];
    memset(t, 0, sizeof *t);
    snprintf(t->stage, sizeof t->stage, "%s", stage);
    snprintf(t->label, sizeof t->label, "%s", label ? label : "");
    snprintf(t->model, sizeof t->model, "%s",
             s->net ? cs_nn_kind_name(cs_nn_get_kind(s->net)) : "");
    snprintf(t->reg, sizeof t->reg, "%s", s->net_reg[0] ? s->net_reg : "none");
    t->lambda = s->net_lambda;
    snprintf(t->data, sizeof t->data, "%.255s", s->net_data);
    snprintf(t->data_hash, sizeof t->data_hash, "%s", s->net_hash);
    t->seed = (unsigned long long)cs_interp_seed(in);
    t->train_acc = t->test_acc = -1;
    t->train_loss = t->test_loss = NAN;
    return t;
}

const char *nn_data_name(cs_interp *in, const cs_cmdline *cl)
{
    const nn_state *s = cs_interp_ext(in, CS_EXT_NN);
    const char *d = cs_arg_text(cl, "data", NULL);
    if (d)
        return d;
    return s && s->data_set[0] ? s->data_set : "fashion-mnist";
}

void nn_put_data(cs_result *res, const char *name, const char *hash)
{
    cs_result_str(res, "data", name[0] ? name : "n/a");
    cs_result_str(res, "data_hash", hash[0] ? hash : "n/a");
}

/* 12 hex digits of a SHA-256 over the hex digests of the folder's IDX
 * files (the train images and labels, then t10k's, those present): one
 * short name for the data set whichever split a command reads. */
static int data_hash(const char *dir, char out[16], cs_err *err)
{
    cs_sha256_ctx c;
    cs_sha256_init(&c);
    static const char *const splits[] = {"train", "t10k"};
    for (int sp = 0; sp < 2; sp++) {
        char files[2][4200];
        cs_err none;
        if (cs_nn_data_files(dir, splits[sp], files, &none))
            continue;
        for (int f = 0; f < 2 && files[f][0]; f++) {   /* an .npz: one file */
            char hex[65];
            int rc = cs_sha256_file(files[f], hex, err);
            if (rc)
                return rc;
            cs_sha256_update(&c, hex, 64);
        }
        if (cs_nn_data_is_npz(dir))   /* both splits in it */
            break;
    }
    unsigned char d[32];
    cs_sha256_final(&c, d);
    for (int i = 0; i < 6; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
    return CS_OK;
}

/* The short hash of dir: the other split's when that came from there. */
static int hash_of(const nn_state *s, const char *dir, char out[16], cs_err *err)
{
    if (s->have_train && !strcmp(dir, s->train_dir)) {
        memcpy(out, s->train_hash, 16);
        return CS_OK;
    }
    if (s->have_test && !strcmp(dir, s->test_dir)) {
        memcpy(out, s->test_hash, 16);
        return CS_OK;
    }
    return data_hash(dir, out, err);
}

/* a data name (fashion-mnist or a folder) to its folder (through the
 * sandbox mapping) */
static int name_dir(cs_interp *in, const char *d, char *buf, size_t len, cs_err *err)
{
    if (!strcmp(d, "fashion-mnist")) {
        snprintf(buf, len, "%s", CS_NN_DEFAULT_DATA);
        return CS_OK;
    }
    return cs_interp_path(in, d, buf, len, err);
}

int nn_set_data(cs_interp *in, const char *value, cs_result *res, cs_err *err)
{
    nn_state *s = nn_state_get(in, err);
    if (!s)
        return CS_ENOMEM;
    char dir[4096], files[2][4200];
    int rc = name_dir(in, value, dir, sizeof dir, err);
    if (rc)
        return rc;
    /* a folder with neither split: refused now, not at the next train */
    if (cs_nn_data_files(dir, "train", files, err) && (rc = cs_nn_data_files(dir, "t10k", files,
                                                                              err)))
        return rc;
    snprintf(s->data_set, sizeof s->data_set, "%s",
             strcmp(value, "fashion-mnist") ? value : "");
    cs_result_str(res, "data", value);
    return CS_OK;
}

/* data=, `set data` or fashion-mnist to its folder */
static int data_dir(cs_interp *in, const cs_cmdline *cl, char *buf, size_t len, cs_err *err)
{
    int rc = name_dir(in, nn_data_name(in, cl), buf, len, err);
    if (rc)
        cs_arg_blame(in, cl, "data", 0);
    return rc;
}

/* layout=nhwc|nchw */
static int get_layout(cs_interp *in, const cs_cmdline *cl, cs_nn_layout *out, cs_err *err)
{
    const char *w;
    int rc = cs_arg_choice(in, cl, "layout", "nhwc|nchw", "nhwc", &w, err);
    *out = rc || strcmp(w, "nchw") ? CS_NN_NHWC : CS_NN_NCHW;
    return rc;
}

/* split of dir: an .npz as layout says, else the IDX folder */
static int load_split(cs_nn_data *d, const char *dir, const char *split, size_t limit,
                      cs_nn_layout layout, cs_err *err)
{
    if (cs_nn_data_is_npz(dir))
        return cs_nn_data_load_npz(d, dir, split, limit, layout, err);
    return cs_nn_data_load(d, dir, split, limit, err);
}

int nn_ensure_train(cs_interp *in, const cs_cmdline *cl, nn_state *s, size_t limit,
                    cs_err *err)
{
    char dir[4096];
    cs_nn_layout layout;
    int rc = get_layout(in, cl, &layout, err);
    if (rc || (rc = data_dir(in, cl, dir, sizeof dir, err)))
        return rc;
    if (s->have_train && !strcmp(dir, s->train_dir) && limit == s->train_limit &&
        layout == s->train_layout)
        return CS_OK;
    cs_nn_data_free(&s->train);
    s->have_train = 0;
    rc = load_split(&s->train, dir, "train", limit, layout, err);
    char hash[16];
    if (!rc)
        rc = hash_of(s, dir, hash, err);
    if (rc) {
        cs_nn_data_free(&s->train);
        cs_arg_blame(in, cl, "data", 0);
        return rc;
    }
    memcpy(s->train_hash, hash, sizeof hash);
    snprintf(s->train_name, sizeof s->train_name, "%s", nn_data_name(in, cl));
    snprintf(s->train_dir, sizeof s->train_dir, "%s", dir);
    s->train_limit = limit;
    s->train_layout = layout;
    s->have_train = 1;
    return CS_OK;
}

int nn_ensure_test(cs_interp *in, const cs_cmdline *cl, nn_state *s, cs_err *err)
{
    char dir[4096], name[4096];
    cs_nn_layout layout;
    int lrc = get_layout(in, cl, &layout, err);
    if (lrc)
        return lrc;
    /* data=, else `set data`, else the training data's, else fashion-mnist */
    if (cs_cmdline_key(cl, "data") || s->data_set[0] || !s->have_train) {
        int rc = data_dir(in, cl, dir, sizeof dir, err);
        if (rc)
            return rc;
        snprintf(name, sizeof name, "%s", nn_data_name(in, cl));
    } else {
        snprintf(dir, sizeof dir, "%s", s->train_dir);
        snprintf(name, sizeof name, "%s", s->train_name);
    }
    /* no layout=: as the training split of the same .npz was read */
    if (!cs_cmdline_key(cl, "layout") && s->have_train && !strcmp(dir, s->train_dir))
        layout = s->train_layout;
    if (s->have_test && !strcmp(dir, s->test_dir) && layout == s->test_layout)
        return CS_OK;
    cs_nn_data_free(&s->test);
    s->have_test = 0;
    char hash[16];
    int rc = load_split(&s->test, dir, "t10k", 0, layout, err);
    if (!rc && (rc = hash_of(s, dir, hash, err)))
        cs_nn_data_free(&s->test);
    if (rc)
        return rc;
    memcpy(s->test_hash, hash, sizeof hash);
    snprintf(s->test_name, sizeof s->test_name, "%s", name);
    s->test_layout = layout;
    snprintf(s->test_dir, sizeof s->test_dir, "%s", dir);
    s->have_test = 1;
    return CS_OK;
}

/* The state of a session that has a network (commands after train/load). */
int nn_need_net(cs_interp *in, nn_state **out, cs_err *err)
{
    *out = nn_state_get(in, err);
    if (!*out)
        return CS_ENOMEM;
    if (!(*out)->net)
        return cs_fail(err, CS_ESTATE, "no network: run train model=mlp|cnn ... (or load model FILE)");
    return CS_OK;
}

static const char *const exclude_names[] = {"default", "none", "last", "first"};

const char *nn_exclude_name(cs_nn_exclude ex) { return exclude_names[ex]; }

int nn_get_exclude(cs_interp *in, const cs_cmdline *cl, cs_nn_exclude def, cs_nn_exclude *out,
                   cs_err *err)
{
    const char *const *defs = exclude_names;
    const char *w;
    int rc = cs_arg_choice(in, cl, "exclude", "default|none|last|first", defs[def], &w, err);
    if (rc)
        return rc;
    for (int i = 0; i < 4; i++)
        if (!strcmp(w, defs[i]))
            *out = (cs_nn_exclude)i;
    return CS_OK;
}

int nn_evaluate_into(cs_interp *in, const cs_cmdline *cl, nn_state *s, long limit,
                     double *acc, double *loss, cs_err *err)
{
    int rc = nn_ensure_test(in, cl, s, err);
    if (rc)
        return rc;
    cs_nn_data view = s->test;
    if (limit > 0 && (size_t)limit < view.n)
        view.n = (size_t)limit;
    return cs_nn_evaluate(s->net, &view, acc, loss, err);
}

int cs_train_save_model(cs_interp *in, const char *path, int force, cs_result *res,
                        cs_err *err)
{
    nn_state *s = cs_interp_ext(in, CS_EXT_NN);
    if (!s || !s->net)
        return cs_fail(err, CS_ESTATE, "save model: no network (run train or load model first)");
    int rc = cs_nn_save(s->net, path, force, cs_interp_cancel_flag(in), err);
    if (rc)
        return rc;
    /* what it was trained with, for a load model of it in this session */
    size_t slot = 0;
    while (slot < s->nsaved && strcmp(s->saved[slot].path, path))
        slot++;
    if (slot == NN_SAVED) {
        memmove(s->saved, s->saved + 1, (NN_SAVED - 1) * sizeof s->saved[0]);
        slot = NN_SAVED - 1;
    } else if (slot == s->nsaved) {
        s->nsaved++;
    }
    snprintf(s->saved[slot].path, sizeof s->saved[slot].path, "%s", path);
    snprintf(s->saved[slot].reg, sizeof s->saved[slot].reg, "%s", s->net_reg);
    s->saved[slot].lambda = s->net_lambda;
    char desc[128];
    cs_nn_describe(s->net, desc, sizeof desc);
    cs_result_str(res, "model", desc);
    cs_result_int(res, "params", (long long)cs_nn_param_count(s->net));
    return CS_OK;
}
