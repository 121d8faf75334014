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
    snprintf(buf, len, " nn=%s/%s%s", cs_nn_get_kind(s->net) == CS_NN_CNN ? "cnn" : "mlp",
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

nn_stage *nn_add_stage(nn_state *s, const char *stage, const char *label)
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
             s->net ? (cs_nn_get_kind(s->net) == CS_NN_CNN ? "cnn" : "mlp") : "");
    snprintf(t->reg, sizeof t->reg, "%s", s->net_reg[0] ? s->net_reg : "none");
    t->lambda = s->net_lambda;
    t->train_acc = t->test_acc = -1;
    t->train_loss = t->test_loss = NAN;
    return t;
}

/* data=fashion-mnist or a folder (through the sandbox mapping) */
static int data_dir(cs_interp *in, const cs_cmdline *cl, char *buf, size_t len, cs_err *err)
{
    const char *d = cs_arg_text(cl, "data", "fashion-mnist");
    if (!strcmp(d, "fashion-mnist")) {
        snprintf(buf, len, "%s", CS_NN_DEFAULT_DATA);
        return CS_OK;
    }
    int rc = cs_interp_path(in, d, buf, len, err);
    if (rc)
        cs_arg_blame(in, cl, "data", 0);
    return rc;
}

int nn_ensure_train(cs_interp *in, const cs_cmdline *cl, nn_state *s, size_t limit,
                    cs_err *err)
{
    char dir[4096];
    int rc = data_dir(in, cl, dir, sizeof dir, err);
    if (rc)
        return rc;
    if (s->have_train && !strcmp(dir, s->train_dir) && limit == s->train_limit)
        return CS_OK;
    cs_nn_data_free(&s->train);
    s->have_train = 0;
    rc = cs_nn_data_load(&s->train, dir, "train", limit, err);
    if (rc) {
        cs_arg_blame(in, cl, "data", 0);
        return rc;
    }
    snprintf(s->train_dir, sizeof s->train_dir, "%s", dir);
    s->train_limit = limit;
    s->have_train = 1;
    return CS_OK;
}

int nn_ensure_test(cs_interp *in, const cs_cmdline *cl, nn_state *s, cs_err *err)
{
    char dir[4096];
    if (cs_cmdline_key(cl, "data")) {
        int rc = data_dir(in, cl, dir, sizeof dir, err);
        if (rc)
            return rc;
    } else {
        snprintf(dir, sizeof dir, "%s", s->have_train ? s->train_dir : CS_NN_DEFAULT_DATA);
    }
    if (s->have_test && !strcmp(dir, s->test_dir))
        return CS_OK;
    cs_nn_data_free(&s->test);
    s->have_test = 0;
    int rc = cs_nn_data_load(&s->test, dir, "t10k", 0, err);
    if (rc)
        return rc;
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
