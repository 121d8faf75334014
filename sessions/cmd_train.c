/* cmd_train.c — the network commands that train and measure (paper sec. 3.4
 * made interactive): train, finetune, evaluate, on the network's state in
 * the interpreter (nn_state.h, kept by nn_state.c). quantize is in
 * cmd_quant.c; hist, load and save model, nnreport and the front ends'
 * view in cmd_nnio.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_nn.h"
#include "interp_internal.h"
#include "nn_state.h"
#include "train_watch.h"

/* reg=NAME (default parameters), reg=current (the `reg` selection), reg=none */
static int make_reg(cs_interp *in, const cs_cmdline *cl, cs_reg **out, char *name, size_t len,
                    cs_err *err)
{
    *out = NULL;
    const char *r = cs_arg_text(cl, "reg", "none");
    snprintf(name, len, "%s", r);
    if (!strcmp(r, "none"))
        return CS_OK;
    char line[1024];
    snprintf(line, sizeof line, "%s", !strcmp(r, "current") ? in->reg_line : r);
    cs_param params[32];
    size_t np = 0;
    char *save = NULL, *tok = strtok_r(line, " ", &save), *rname = tok;
    while ((tok = strtok_r(NULL, " ", &save)) && np < 32) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = 0;
        params[np++] = (cs_param){tok, eq + 1};
    }
    if (!rname)
        return cs_fail(err, CS_EINVAL, "reg: empty name");
    snprintf(name, len, "%s", rname);
    int rc = cs_reg_new(out, rname, params, np, in->seed, err);
    if (rc)
        cs_arg_blame(in, cl, "reg", 0);
    return rc;
}

static int parse_hidden(cs_interp *in, const cs_cmdline *cl, cs_nn_config *cfg, cs_err *err)
{
    const char *h = cs_arg_text(cl, "hidden", NULL);
    if (!h)
        return CS_OK;
    const char *p = h;
    cfg->nhidden = 0;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 16384 || cfg->nhidden == CS_NN_MAX_HIDDEN) {
            cs_arg_blame(in, cl, "hidden", 0);
            return cs_fail(err, CS_EINVAL,
                           "hidden=%s: expected up to %d sizes 1..16384 separated by commas", h,
                           CS_NN_MAX_HIDDEN);
        }
        cfg->hidden[cfg->nhidden++] = (int)v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') {
            cs_arg_blame(in, cl, "hidden", 0);
            return cs_fail(err, CS_EINVAL, "hidden=%s: expected sizes separated by commas", h);
        }
    }
    return CS_OK;
}

/* An interrupted run: how far it got, for a script's message. */
static void note_stop(cs_interp *in, const char *what, const cs_nn_train_report *rep,
                      long epochs)
{
    if (!rep->partial)
        return;
    int epoch = rep->epochs_done < epochs ? rep->epochs_done + 1 : (int)epochs;
    cs_interp_note_stop(in, "%s stopped after %zu of %zu steps (epoch %d of %ld); the network "
                        "keeps the weights of its last completed step", what, rep->steps,
                        rep->steps_total, epoch, epochs);
}

static void put_train_report(cs_result *res, const cs_nn_train_report *rep)
{
    cs_result_int(res, "epochs_done", rep->epochs_done);
    cs_result_num(res, "loss", rep->loss);
    cs_result_num(res, "train_accuracy", rep->train_accuracy);
    cs_result_num(res, "reg_value", rep->reg_value);
    cs_result_num(res, "seconds", rep->seconds);
    cs_result_num(res, "images_per_s", rep->images_per_s);
    int n = rep->epochs_done < 64 ? rep->epochs_done : 64;
    cs_result_vec(res, "flip", rep->flip, (size_t)n);
    cs_result_bool(res, "partial", rep->partial);
}

/* ------------------------------------------------------------------ train */

static int cmd_train(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s = nn_state_get(in, err);
    if (!s)
        return CS_ENOMEM;
    long epochs, batch, limit, hist_every;
    double lr, lambda;
    int augment, fresh;
    const char *model, *devreq;
    cs_nn_exclude excl;
    int rc;
    const char *curmodel = s->net ? (cs_nn_get_kind(s->net) == CS_NN_CNN ? "cnn" : "mlp") : "mlp";
    if ((rc = cs_arg_choice(in, cl, "model", "mlp|cnn", curmodel, &model, err)) ||
        (rc = cs_arg_choice(in, cl, "device", NN_DEVICE_CHOICES,
                            s->net ? cs_nn_device(s->net) : cs_device_name(in->device),
                            &devreq, err)) ||
        (rc = cs_arg_long(in, cl, "epochs", 1, 1, CS_NN_MAX_EPOCHS, &epochs, err)) ||
        (rc = cs_arg_long(in, cl, "batch", 128, 2, 4096, &batch, err)) ||
        (rc = cs_arg_long(in, cl, "limit", 0, 0, 100000000, &limit, err)) ||
        (rc = cs_arg_long(in, cl, "hist_every", 0, 0, 100000000, &hist_every, err)) ||
        (rc = cs_arg_double(in, cl, "lr", 1e-3, 1e-8, 1.0, &lr, err)) ||
        (rc = cs_arg_double(in, cl, "lambda", 0, 0, 1e12, &lambda, err)) ||
        (rc = cs_arg_bool(in, cl, "augment", 0, &augment, err)) ||
        (rc = cs_arg_bool(in, cl, "new", 0, &fresh, err)) ||
        (rc = nn_get_exclude(in, cl, CS_NN_EXCL_DEFAULT, &excl, err)))
        return rc;
    cs_nn_config cfg = {.kind = !strcmp(model, "cnn") ? CS_NN_CNN : CS_NN_MLP,
                        .seed = in->seed};
    if ((rc = parse_hidden(in, cl, &cfg, err)))
        return rc;
    /* auto: cuda when a GPU answers, else cpu (why says which and why) */
    char device[16], why[512];
    rc = cs_nn_device_resolve(devreq, device, sizeof device, why, sizeof why, err);
    if (rc) {
        cs_arg_blame(in, cl, "device", 0);
        return rc;
    }
    cfg.device = device;
    cs_reg *reg = NULL;
    char regname[32];
    if ((rc = make_reg(in, cl, &reg, regname, sizeof regname, err)))
        return rc;
    if (reg && !(lambda > 0)) {
        cs_reg_free(reg);
        cs_arg_blame(in, cl, "lambda", 0);
        return cs_fail(err, CS_EINVAL, "reg=%s needs lambda > 0 (e.g. lambda=10)", regname);
    }
    if (!reg && lambda > 0) {
        cs_arg_blame(in, cl, "lambda", 0);
        return cs_fail(err, CS_EINVAL, "lambda=%g has no regularizer to weigh: add reg=NAME "
                       "(e.g. reg=bin), or drop lambda for plain training", lambda);
    }
    /* a new network unless one of this shape lives on this device */
    int rebuild = fresh || !s->net;
    if (s->net) {
        cs_nn_config cur;
        cs_nn_get_config(s->net, &cur);
        if (cur.kind != cfg.kind || strcmp(cs_nn_device(s->net), device) != 0)
            rebuild = 1;
        if (cfg.nhidden && (cfg.nhidden != cur.nhidden ||
                            memcmp(cfg.hidden, cur.hidden, sizeof cfg.hidden) != 0))
            rebuild = 1;
    }
    /* the memory budget before the data or the network: at once, not after
     * gigabytes (the snapshots: one at the start and one per epoch, at most
     * the ring's) */
    size_t snaps = hist_every > 0 || epochs + 1 > CS_NN_HIST_RING ? CS_NN_HIST_RING
                                                                  : (size_t)epochs + 1;
    if ((rebuild && (rc = cs_nn_check_memory(&cfg, (int)batch, snaps, err))) ||
        (rc = nn_ensure_train(in, cl, s, (size_t)limit, err))) {
        cs_reg_free(reg);
        return rc;
    }
    if (rebuild) {
        cs_nn *net;
        rc = cs_nn_new(&net, &cfg, err);
        if (rc) {
            cs_reg_free(reg);
            return rc;
        }
        cs_nn_free(s->net);
        s->net = net;
    }
    cs_nn_train_opts o = {.epochs = (int)epochs, .batch = (int)batch, .lr = lr,
                          .lambda = reg ? lambda : 0, .reg = reg, .exclude = excl,
                          .augment = augment, .hist_every = (int)hist_every,
                          .cancel = cs_interp_cancel_flag(in)};
    if (rebuild)   /* another network: its layers may differ */
        s->sel_layer[0] = '\0';
    train_watch_run run = {.what = "train", .reg = regname, .lambda = o.lambda,
                           .ternary = reg && cs_reg_family(reg) == CS_TARGET_TER,
                           .excl = excl, .hist_every = hist_every};
    train_watch *tw;
    train_watch_begin(&tw, in, cl, s, &run, &o);
    cs_nn_train_report rep;
    rc = cs_nn_train(s->net, &s->train, &o, &rep, err);
    train_watch_end(tw, rc, &rep);
    note_stop(in, "train", &rep, epochs);
    cs_reg_free(reg);
    s->seq = cs_interp_stamp(in);   /* also when interrupted: the weights moved */
    if (rc) {
        train_watch_free(tw, NULL);
        return rc;
    }
    s->excl = excl;
    char desc[128];
    cs_nn_describe(s->net, desc, sizeof desc);
    cs_result_str(res, "model", desc);
    cs_result_str(res, "device", cs_nn_device(s->net));
    if (why[0])
        cs_result_str(res, "device_reason", why);
    cs_result_int(res, "params", (long long)cs_nn_param_count(s->net));
    cs_result_str(res, "reg", regname);
    cs_result_num(res, "lambda", o.lambda);
    cs_result_int(res, "train_examples", (long long)s->train.n);
    put_train_report(res, &rep);
    train_watch_free(tw, res);
    snprintf(s->net_reg, sizeof s->net_reg, "%s", regname);
    s->net_lambda = o.lambda;
    nn_stage *t = nn_add_stage(s, "train", cs_arg_text(cl, "label", ""));
    t->epochs = rep.epochs_done;
    t->train_acc = rep.train_accuracy;
    t->train_loss = rep.loss;
    t->seconds = rep.seconds;
    t->partial = rep.partial;
    return CS_OK;
}

/* ------------------------------------------------------------------ evaluate */

static int cmd_evaluate(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s;
    long limit;
    int rc = nn_need_net(in, &s, err);
    if (rc || (rc = cs_arg_long(in, cl, "limit", 0, 0, 100000000, &limit, err)))
        return rc;
    double acc, loss;
    rc = nn_evaluate_into(in, cl, s, limit, &acc, &loss, err);
    if (rc)
        return rc;
    cs_result_num(res, "accuracy", acc);
    cs_result_num(res, "loss", loss);
    cs_result_int(res, "examples", (long long)(limit > 0 && (size_t)limit < s->test.n
                                                   ? (size_t)limit : s->test.n));
    int q = cs_nn_is_quantized(s->net);
    cs_result_str(res, "weights", q == 1 ? "binary" : q == 2 ? "ternary" : "full");
    nn_stage *t = nn_add_stage(s, "evaluate", cs_arg_text(cl, "label", ""));
    t->test_acc = acc;
    t->test_loss = loss;
    return CS_OK;
}

/* ------------------------------------------------------------------ finetune */

static int cmd_finetune(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s;
    int rc = nn_need_net(in, &s, err);
    if (rc)
        return rc;
    long epochs, batch, limit, tlimit;
    double lr;
    int augment, do_eval;
    if ((rc = cs_arg_long(in, cl, "epochs", 1, 1, CS_NN_MAX_EPOCHS, &epochs, err)) ||
        (rc = cs_arg_long(in, cl, "batch", 128, 2, 4096, &batch, err)) ||
        (rc = cs_arg_long(in, cl, "limit", (long)s->train_limit, 0, 100000000, &limit, err)) ||
        (rc = cs_arg_long(in, cl, "test_limit", 0, 0, 100000000, &tlimit, err)) ||
        (rc = cs_arg_double(in, cl, "lr", 1e-3, 1e-8, 1.0, &lr, err)) ||
        (rc = cs_arg_bool(in, cl, "augment", 0, &augment, err)) ||
        (rc = cs_arg_bool(in, cl, "evaluate", 1, &do_eval, err)))
        return rc;
    if (!cs_nn_is_quantized(s->net))
        return cs_fail(err, CS_ESTATE, "finetune needs a quantized network: run quantize bin|ter first");
    if ((rc = nn_ensure_train(in, cl, s, (size_t)limit, err)))
        return rc;
    cs_nn_train_opts o = {.epochs = (int)epochs, .batch = (int)batch, .lr = lr,
                          .augment = augment, .finetune = 1, .exclude = s->excl,
                          .cancel = cs_interp_cancel_flag(in)};
    train_watch_run run = {.what = "finetune", .reg = "none", .finetune = 1,
                           .ternary = cs_nn_is_quantized(s->net) == 2, .excl = s->excl};
    train_watch *tw;
    train_watch_begin(&tw, in, cl, s, &run, &o);
    cs_nn_train_report rep;
    rc = cs_nn_train(s->net, &s->train, &o, &rep, err);
    train_watch_end(tw, rc, &rep);
    note_stop(in, "finetune", &rep, epochs);
    s->seq = cs_interp_stamp(in);
    double acc = -1, loss = 0;
    /* cancelled: no evaluation either (the test set takes a while) */
    do_eval = do_eval && !rep.partial;
    if (!rc && do_eval)
        rc = nn_evaluate_into(in, cl, s, tlimit, &acc, &loss, err);
    if (rc) {
        train_watch_free(tw, NULL);
        return rc;
    }
    if (do_eval) {
        cs_result_num(res, "accuracy", acc);
        cs_result_num(res, "test_loss", loss);
    }
    put_train_report(res, &rep);
    train_watch_free(tw, res);
    nn_stage *t = nn_add_stage(s, "finetune", cs_arg_text(cl, "label", ""));
    t->epochs = rep.epochs_done;
    t->train_acc = rep.train_accuracy;
    t->train_loss = rep.loss;
    if (do_eval) {
        t->test_acc = acc;
        t->test_loss = loss;
    }
    t->seconds = rep.seconds;
    t->partial = rep.partial;
    return CS_OK;
}

/* ------------------------------------------------------------------ table */

static const cs_key_spec train_keys[] = {
    {"model", "mlp", "network: mlp (784-hidden-10) or cnn (VGG-style, 0.42 M params); "
     "default: the current network's, else mlp", "mlp|cnn", CS_KEY_WORD},
    {"data", "fashion-mnist", "fashion-mnist or a folder of MNIST-format IDX files", NULL,
     CS_KEY_FILE},
    {"reg", "none", "regularizer per row/channel: none, a name (bin ter osb bbin ...), current",
     NULL, CS_KEY_WORD},
    {"lambda", "0", "regularization weight (loss + lambda * sum_k ell(theta_k)/dim); needs "
     "reg=", NULL,
     CS_KEY_NUM},
    {"epochs", "1", "epochs (cosine annealing over them)", NULL, CS_KEY_INT},
    {"batch", "128", "mini-batch size", NULL, CS_KEY_INT},
    {"lr", "1e-3", "Adam learning rate", NULL, CS_KEY_NUM},
    {"limit", "0", "train on the first N images (0: all)", NULL, CS_KEY_INT},
    {"device", "network's", "cpu (OpenBLAS), cuda, or auto: cuda when a GPU answers, else cpu "
     "(default: the network's, else set device, else cpu)", NN_DEVICE_CHOICES, CS_KEY_WORD},
    {"hidden", "512,512", "hidden sizes (mlp: list; cnn: the fc size, default 256)", NULL,
     CS_KEY_LIST},
    {"augment", "off", "random shifts of up to 2 pixels", "on|off", CS_KEY_WORD},
    {"hist_every", "0", "weight snapshot every N steps (0: each epoch); a watching front end "
     "(the TUI) gets its frames at those steps too (0: a few a second)", NULL, CS_KEY_INT},
    {"exclude", "default", NN_EXCLUDE_HELP, "default|none|first|last", CS_KEY_WORD},
    {"new", "off", "start from a fresh initialization", "on|off", CS_KEY_WORD},
    {"label", "", "name of this stage in nnreport", NULL, CS_KEY_TEXT},
    {0}};

static const cs_key_spec finetune_keys[] = {
    {"epochs", "1", "epochs", NULL, CS_KEY_INT},
    {"batch", "128", "mini-batch size", NULL, CS_KEY_INT},
    {"lr", "1e-3", "Adam learning rate", NULL, CS_KEY_NUM},
    {"limit", "as in train", "train on the first N images (0: all)", NULL, CS_KEY_INT},
    {"test_limit", "0", "test images for the accuracy (0: all)", NULL, CS_KEY_INT},
    {"augment", "off", "random shifts of up to 2 pixels", "on|off", CS_KEY_WORD},
    {"evaluate", "on", "measure test accuracy afterwards", "on|off", CS_KEY_WORD},
    {"data", "fashion-mnist", "data folder", NULL, CS_KEY_FILE},
    {"label", "", "name of this stage in nnreport", NULL, CS_KEY_TEXT},
    {0}};

static const cs_key_spec eval_keys[] = {
    {"limit", "0", "first N test images (0: all 10000)", NULL, CS_KEY_INT},
    {"data", "fashion-mnist", "test data folder", NULL, CS_KEY_FILE},
    {"label", "", "name of this stage in nnreport", NULL, CS_KEY_TEXT},
    {0}};

/* Two groups: quantize (cmd_quant.c) comes between them in `help`. */
static const cs_cmd_spec train_commands[] = {
    {.name = "train", .topic = "networks",
     .usage = "train [model=mlp|cnn] [reg=NAME|none] [{lambda}] [{epochs}] [{batch}] [{lr}] "
              "[{limit}] [device=cpu|cuda|auto] [augment=on|off]",
     .summary = "train on Fashion-MNIST with a CS regularizer per row/channel (continues from "
                "the current weights)",
     .example = "train model=cnn reg=bin lambda=10 epochs=5", .keys = train_keys,
     .run = cmd_train, .journal = 1,
     .blas_threads = 1},
};

static const cs_cmd_spec tune_commands[] = {
    {.name = "finetune", .topic = "networks", .usage = "finetune [{epochs}] [{lr}] [limit=..] [{test_limit}]",
     .summary = "train the scales, biases and batch-norm parameters with the signs fixed",
     .example = "finetune epochs=2", .keys = finetune_keys, .run = cmd_finetune, .journal = 1,
     .blas_threads = 1},
    {.name = "evaluate", .topic = "networks", .usage = "evaluate [{limit}] [label=..]",
     .summary = "test accuracy (fraction) and cross-entropy", .example = "evaluate",
     .keys = eval_keys, .run = cmd_evaluate, .journal = 1,
     .blas_threads = 1},
};

CS_CMD_GROUP(cs_group_train, train_commands);
CS_CMD_GROUP(cs_group_tune, tune_commands);
