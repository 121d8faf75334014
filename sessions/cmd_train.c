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
#include "nn_model_args.h"
#include "nn_state.h"
#include "train_log.h"
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

/* data=DIR, the user's folder (the packaged Fashion-MNIST comes with csreg):
 * the digests of the files read for the journal, a replay's changed file
 * refused. The train split with the test split when it is there (a later
 * evaluate reads it), or the test split only. */
static int record_data(cs_interp *in, const cs_cmdline *cl, int train, cs_err *err)
{
    const char *d = nn_data_name(in, cl);   /* data=, else set data */
    char dir[4096], files[2][4200];
    int rc = CS_OK;
    if (!strcmp(d, "fashion-mnist") || (rc = cs_interp_path(in, d, dir, sizeof dir, err)))
        return rc;
    for (int split = !train; split < 2 && !rc; split++) {
        cs_err none;
        if (cs_nn_data_files(dir, split ? "t10k" : "train", files,
                             split && train ? &none : err))
            rc = split && train ? CS_OK : CS_EIO;
        else if (!(split && train && cs_nn_data_is_npz(dir)))   /* an .npz: once */
            for (int f = 0; f < 2 && !rc && files[f][0]; f++)
                rc = cs_interp_input_file(in, cl, files[f], files[f], err);
    }
    if (rc && !in->err_col)
        cs_arg_blame(in, cl, "data", 0);
    return rc;
}

/* normalize=data: each channel's mean and standard deviation of x/255 over
 * the training images (one channel: summed in the order it always was). */
static int data_norm(cs_interp *in, const cs_cmdline *cl, const cs_nn_data *train, int C,
                     double *m, double *sd, cs_err *err)
{
    int h, w;
    cs_nn_data_shape(train, NULL, &h, &w, NULL);
    size_t plane = (size_t)h * w;
    for (int c = 0; c < C; c++) {
        double sum = 0, sq = 0, n = (double)train->n * (double)plane;
        for (size_t k = 0; k < train->n; k++) {
            const uint8_t *p = train->images + (k * (size_t)C + (size_t)c) * plane;
            for (size_t i = 0; i < plane; i++) {
                double x = p[i] / 255.0;
                sum += x;
                sq += x * x;
            }
        }
        m[c] = sum / n;
        sd[c] = sqrt(fmax(sq / n - m[c] * m[c], 0));
        if (!(sd[c] > 0)) {
            cs_arg_blame(in, cl, "normalize", 0);
            return cs_fail(err, CS_EINVAL, "normalize=data: channel %d of the training images "
                           "is all one value (no spread to divide by): use normalize=none or "
                           "fixed:M,S", c + 1);
        }
    }
    return CS_OK;
}

/* "M" or "M1/M2/../MC" (C numbers) into v; the end in *end. */
static int norm_list(const char *p, int C, double *v, const char **end)
{
    int n = 0;
    for (;;) {
        char *e;
        double x = strtod(p, &e);
        if (e == p || !isfinite(x) || n == C)
            return -1;
        v[n++] = x;
        p = e;
        if (*p != '/')
            break;
        p++;
    }
    for (int i = n; n == 1 && i < C; i++)   /* one number: every channel's */
        v[i] = v[0];
    *end = p;
    return n == 1 || n == C ? 0 : -1;
}

/* normalize=none|data|fixed[:M,S|:M1/M2/..,S1/S2/..] into cfg's in_mean,
 * in_std for the C channels of train (the fixed default of one channel: 0,
 * 0, so that its outputs stay what they were); data: each channel's mean
 * and standard deviation of the training images' x/255. Not given: fixed
 * for one channel, data for more (fixed is Fashion-MNIST's, one channel).
 * *given: the key was on the line. */
static int get_normalize(cs_interp *in, const cs_cmdline *cl, const cs_nn_data *train,
                         cs_nn_config *cfg, int *given, cs_err *err)
{
    const char *v = cs_arg_text(cl, "normalize", NULL);
    int C;
    cs_nn_data_shape(train, &C, NULL, NULL, NULL);
    *given = v != NULL;
    if (!v)
        v = C > 1 ? "data" : "fixed";
    if (!strcmp(v, "fixed")) {
        if (C == 1)
            return CS_OK;
        cs_arg_blame(in, cl, "normalize", 0);
        return cs_fail(err, CS_EINVAL, "normalize=fixed is Fashion-MNIST's (one channel); the "
                       "data has %d channels: give their numbers, fixed:M,S (every channel) or "
                       "fixed:M1/M2/..,S1/S2/.. (one per channel), or normalize=data", C);
    }
    double m[CS_NN_MAX_CHANNELS], sd[CS_NN_MAX_CHANNELS], dm, ds;
    for (int c = 0; c < C; c++)
        m[c] = 0, sd[c] = 1;
    if (!strcmp(v, "data")) {
        int rc = data_norm(in, cl, train, C, m, sd, err);
        if (rc)
            return rc;
    } else if (strcmp(v, "none") != 0) {
        const char *end = v;
        int ok = !strncmp(v, "fixed:", 6) && !norm_list(v + 6, C, m, &end) && *end == ',' &&
                 !norm_list(end + 1, C, sd, &end) && !*end;
        for (int c = 0; ok && c < C; c++)
            ok = sd[c] > 0;
        if (!ok) {
            cs_arg_blame(in, cl, "normalize", 0);
            char more[128] = "";
            if (C > 1)
                snprintf(more, sizeof more, "; for %d channels MEAN and STD are one number for "
                         "all or one per channel: M1/M2/..,S1/S2/..", C);
            return cs_fail(err, CS_EINVAL, "normalize=%s: expected none, data, fixed or "
                           "fixed:MEAN,STD (STD > 0, of x/255)%s", v, more);
        }
    }
    cs_nn_input_norm(&dm, &ds);
    if (C == 1 && (float)m[0] == (float)dm && (float)sd[0] == (float)ds)
        return CS_OK;   /* the default's numbers: the default */
    for (int c = 0; c < C; c++) {
        cfg->in_mean[c] = (float)m[c];
        cfg->in_std[c] = (float)sd[c];
    }
    return CS_OK;
}

/* The network takes d's images and labels (cs_nn_check_data), else an
 * error naming the data set and what to do. */
static int check_shape(const cs_nn *net, const cs_nn_data *d, const char *name,
                       const char *todo, cs_err *err)
{
    if (!cs_nn_check_data(net, d, NULL))
        return CS_OK;
    cs_nn_config c;
    cs_nn_get_config(net, &c);
    int dc, dh, dw, dk;
    cs_nn_data_shape(d, &dc, &dh, &dw, &dk);
    return cs_fail(err, CS_EDIM, "the network takes %d×%d×%d images and %d classes; %.1000s has "
                   "%d×%d×%d images and %d classes: %s", c.channels, c.height, c.width,
                   c.classes, name, dc, dh, dw, dk, todo);
}

/* The network's normalization in the results: one channel's numbers, or a
 * list of each channel's. */
static void put_norm(cs_result *res, const cs_nn *net)
{
    cs_nn_config c;
    cs_nn_get_config(net, &c);
    double m[CS_NN_MAX_CHANNELS], sd[CS_NN_MAX_CHANNELS];
    for (int i = 0; i < c.channels; i++)
        cs_nn_get_channel_norm(net, i, &m[i], &sd[i]);
    if (c.channels == 1) {
        cs_result_num(res, "input_mean", m[0]);
        cs_result_num(res, "input_std", sd[0]);
        return;
    }
    cs_result_vec(res, "input_mean", m, (size_t)c.channels);
    cs_result_vec(res, "input_std", sd, (size_t)c.channels);
}

/* device=: the one the run used when a replay could choose another (auto,
 * or a GPU), so that it replays there or is refused saying why. */
static void record_device(cs_interp *in, const char *requested, const char *device)
{
    if (!strcmp(requested, "auto") || strcmp(device, "cpu") != 0) {
        char kv[32];
        snprintf(kv, sizeof kv, "device=%s", device);
        cs_interp_journal_key(in, kv);
    }
}

/* device=cuda refused here: what a replayed session can do about it. */
static void replay_hint(cs_err *err, const char *requested)
{
    size_t n = strlen(err->msg);
    if (!strcmp(requested, "cuda") && n < sizeof err->msg)
        snprintf(err->msg + n, sizeof err->msg - n, " (the command needs a GPU: a session "
                 "recorded on one replays on one, or here with device=cpu, whose results "
                 "differ in the last bits)");
}

/* stop_after=: the replay of a run cancelled after that many steps. */
static int get_stop_after(cs_interp *in, const cs_cmdline *cl, cs_nn_train_opts *o,
                          cs_err *err)
{
    if (!cs_cmdline_key(cl, "stop_after"))
        return CS_OK;
    long n;
    int rc = cs_arg_long(in, cl, "stop_after", 0, 0, 2000000000L, &n, err);
    o->stop_early = !rc;
    o->stop_after = rc ? 0 : (size_t)n;
    return rc;
}

/* An interrupted run: how far it got, for a script's message; and for the
 * journal, stop_after= (a replay stops there, with the same weights). */
static void note_stop(cs_interp *in, const char *what, const cs_nn_train_report *rep,
                      long epochs, const cs_nn_train_opts *o)
{
    if (!rep->partial)
        return;
    if (!(o->stop_early && rep->steps >= o->stop_after)) {   /* a cancel, not stop_after= */
        char kv[48];
        snprintf(kv, sizeof kv, "stop_after=%zu", rep->steps);
        cs_interp_journal_stopped(in, kv);
    }
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
    if (rep->graph_steps)   /* a GPU's: steps replayed as one CUDA graph */
        cs_result_int(res, "graph_steps", (long long)rep->graph_steps);
    if (rep->graph_note[0])
        cs_result_str(res, "graph_note", rep->graph_note);
}

/* ------------------------------------------------------------------ train */

static int cmd_train(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s = nn_state_get(in, err);
    if (!s)
        return CS_ENOMEM;
    long epochs, batch, limit, hist_every;
    double lr, lambda;
    int augment, fresh, norm_given;
    const char *devreq;
    cs_nn_exclude excl;
    int rc;
    if ((rc = cs_arg_choice(in, cl, "device", NN_DEVICE_CHOICES,
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
    cs_nn_train_opts o = {.epochs = (int)epochs, .batch = (int)batch, .lr = lr,
                          .exclude = excl, .augment = augment, .hist_every = (int)hist_every,
                          .cancel = cs_interp_cancel_flag(in)};
    if ((rc = get_stop_after(in, cl, &o, err)))
        return rc;
    cs_nn_config cfg = {.seed = in->seed};
    char prev_hash[16];   /* the data the network was trained on before */
    snprintf(prev_hash, sizeof prev_hash, "%s", s->net ? s->net_hash : "");
    if ((rc = nn_model_config(in, cl, s->net, &cfg, err)) ||
        (rc = nn_get_eta(in, cl, &o.eta, err)) || (rc = parse_hidden(in, cl, &cfg, err)))
        return rc;
    /* auto: cuda when a GPU answers, else cpu (why says which and why) */
    char device[16], why[512];
    rc = cs_nn_device_resolve(devreq, device, sizeof device, why, sizeof why, err);
    if (rc) {
        replay_hint(err, devreq);
        cs_arg_blame(in, cl, "device", 0);
        return rc;
    }
    cfg.device = device;
    record_device(in, devreq, device);
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
        if (nn_model_changed(s->net, &cfg) || strcmp(cs_nn_device(s->net), device) != 0)
            rebuild = 1;
        if (cfg.nhidden && (cfg.nhidden != cur.nhidden ||
                            memcmp(cfg.hidden, cur.hidden, sizeof cfg.hidden) != 0))
            rebuild = 1;
    }
    /* the memory budget before the data: at once, not after gigabytes (the
     * shape the default's until the data is read, then checked again; the
     * snapshots: one at the start and one per epoch, at most the ring's) */
    size_t snaps = hist_every > 0 || epochs + 1 > CS_NN_HIST_RING ? CS_NN_HIST_RING
                                                                  : (size_t)epochs + 1;
    if (rebuild && cs_nn_check_memory(&cfg, (int)batch, snaps, err) == CS_ENOMEM) {
        cs_reg_free(reg);
        return CS_ENOMEM;
    }
    /* the data: a new network takes its shape (images and classes) */
    if ((rc = record_data(in, cl, 1, err)) ||
        (rc = nn_ensure_train(in, cl, s, (size_t)limit, err)) ||
        (rc = get_normalize(in, cl, &s->train, &cfg, &norm_given, err))) {
        cs_reg_free(reg);
        return rc;
    }
    cs_nn_data_shape(&s->train, &cfg.channels, &cfg.height, &cfg.width, &cfg.classes);
    if (s->net && norm_given) {   /* another normalization: another network */
        cs_nn_config cur;
        cs_nn_get_config(s->net, &cur);
        int same = 1;
        for (int c = 0; c < CS_NN_MAX_CHANNELS; c++)
            same = same && cur.in_mean[c] == cfg.in_mean[c] && cur.in_std[c] == cfg.in_std[c];
        if (!rebuild && !same) {
            rebuild = 1;
            if (!cfg.nhidden) {   /* the same shape, only the input differs */
                cfg.nhidden = cur.nhidden;
                memcpy(cfg.hidden, cur.hidden, sizeof cfg.hidden);
            }
        }
    }
    /* continuing: the network must take this data (nothing is trained else) */
    if (!rebuild && (rc = check_shape(s->net, &s->train, s->train_name,
                                      "train new=on starts a network of the data's shape",
                                      err))) {
        cs_arg_blame(in, cl, "data", 0);
        cs_reg_free(reg);
        return rc;
    }
    /* the budget of the network of the data's shape */
    if (rebuild && (rc = cs_nn_check_memory(&cfg, (int)batch, snaps, err))) {
        cs_reg_free(reg);
        return rc;
    }
    /* continuing where the seed or the data changed: say so (new=on starts
     * afresh); a loaded network (no training data known) continues quietly */
    char note[2400] = "";
    int other_data = prev_hash[0] && strcmp(prev_hash, s->train_hash) != 0;
    if (!rebuild && prev_hash[0] && (s->net_seed != (unsigned long long)in->seed || other_data))
        snprintf(note, sizeof note, "continues from the current weights (trained with seed %llu "
                 "on %.1000s%s%.1000s); new=on starts from a fresh initialization",
                 s->net_seed, s->net_data, other_data ? ", now on " : "",
                 other_data ? s->train_name : "");
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
    o.lambda = reg ? lambda : 0;
    o.reg = reg;
    if (rebuild)   /* another network: its layers may differ */
        s->sel_layer[0] = '\0';
    train_watch_run run = {.what = "train", .reg = regname, .lambda = o.lambda,
                           .ternary = reg && cs_reg_family(reg) == CS_TARGET_TER,
                           .excl = excl, .hist_every = hist_every};
    train_watch *tw;
    train_watch_begin(&tw, in, cl, s, &run, &o);
    train_log *tl;   /* log=DIR: the run folder (train_log.h) */
    cs_nn_train_report rep = {0};
    if ((rc = train_log_begin(&tl, in, cl, s, &run, &o, err)) == CS_OK)
        rc = cs_nn_train(s->net, &s->train, &o, &rep, err);
    train_watch_end(tw, rc, &rep);
    train_log_end(tl, &rep, rc ? NULL : res);
    note_stop(in, "train", &rep, epochs, &o);
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
    nn_put_data(res, s->train_name, s->train_hash);
    cs_nn_config got;
    cs_nn_get_config(s->net, &got);
    if (norm_given || got.channels > 1)   /* the network's (the default's: unchanged) */
        put_norm(res, s->net);
    if (note[0])
        cs_result_str(res, "note", note);
    put_train_report(res, &rep);
    train_watch_free(tw, res);
    snprintf(s->net_reg, sizeof s->net_reg, "%s", regname);
    s->net_lambda = o.lambda;
    snprintf(s->net_data, sizeof s->net_data, "%s", s->train_name);
    memcpy(s->net_hash, s->train_hash, sizeof s->net_hash);
    s->net_seed = (unsigned long long)in->seed;
    nn_stage *t = nn_add_stage(in, s, "train", cs_arg_text(cl, "label", ""));
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
    if (rc || (rc = cs_arg_long(in, cl, "limit", 0, 0, 100000000, &limit, err)) ||
        (rc = record_data(in, cl, 0, err)) || (rc = nn_ensure_test(in, cl, s, err)))
        return rc;
    if ((rc = check_shape(s->net, &s->test, s->test_name, "evaluate data= of the network's "
                          "shape, or train new=on on this data", err))) {
        cs_arg_blame(in, cl, "data", 0);
        return rc;
    }
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
    nn_put_data(res, s->test_name, s->test_hash);
    nn_stage *t = nn_add_stage(in, s, "evaluate", cs_arg_text(cl, "label", ""));
    snprintf(t->data, sizeof t->data, "%.255s", s->test_name);
    snprintf(t->data_hash, sizeof t->data_hash, "%s", s->test_hash);
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
    cs_nn_train_opts o = {.epochs = (int)epochs, .batch = (int)batch, .lr = lr,
                          .augment = augment, .finetune = 1, .exclude = s->excl,
                          .cancel = cs_interp_cancel_flag(in)};
    if ((rc = get_stop_after(in, cl, &o, err)) || (rc = record_data(in, cl, 1, err)) ||
        (rc = nn_ensure_train(in, cl, s, (size_t)limit, err)))
        return rc;
    if ((rc = check_shape(s->net, &s->train, s->train_name, "finetune data= of the network's "
                          "shape", err))) {
        cs_arg_blame(in, cl, "data", 0);
        return rc;
    }
    train_watch_run run = {.what = "finetune", .reg = "none", .finetune = 1,
                           .ternary = cs_nn_is_quantized(s->net) == 2, .excl = s->excl};
    train_watch *tw;
    train_watch_begin(&tw, in, cl, s, &run, &o);
    cs_nn_train_report rep;
    rc = cs_nn_train(s->net, &s->train, &o, &rep, err);
    train_watch_end(tw, rc, &rep);
    note_stop(in, "finetune", &rep, epochs, &o);
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
    nn_put_data(res, s->train_name, s->train_hash);
    put_train_report(res, &rep);
    train_watch_free(tw, res);
    nn_stage *t = nn_add_stage(in, s, "finetune", cs_arg_text(cl, "label", ""));
    snprintf(t->data, sizeof t->data, "%.255s", s->train_name);
    snprintf(t->data_hash, sizeof t->data_hash, "%s", s->train_hash);
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

#define STOP_AFTER_HELP                                                                        \
    "stop after N steps, as Esc or Ctrl-C there would (the journal records it for a "          \
    "cancelled run, so that a replay stops at the same step with the same weights)"
#define DATA_SHA256_HELP                                                                       \
    "SHA-256 digests of the data=DIR files read (the journal records them; a replay whose "    \
    "file differs is refused)"

static const cs_key_spec train_keys[] = {
    {"model", "mlp", NN_MODEL_HELP, NN_MODEL_CHOICES, CS_KEY_WORD},
    {"data", "set data's", "fashion-mnist, a folder of MNIST-format IDX files, or an .npz "
     "with x_train, y_train, x_test, y_test (default: set data's, else fashion-mnist); any "
     "image size up to 512x512, 1 to 4 channels, up to 256 classes: a new network takes the "
     "data's shape, the current one refuses another; results and nnreport name it with a "
     "short hash", NULL, CS_KEY_FILE},
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
    {"channels", "16,16,p,32,32,p", NN_CHANNELS_HELP, NULL, CS_KEY_LIST},
    {"kernel", "3", NN_KERNEL_HELP, NULL, CS_KEY_INT},
    {"pad", "0", NN_PAD_HELP, NULL, CS_KEY_INT},
    {"eta", "row", NN_ETA_HELP, "row|layer", CS_KEY_WORD},
    {"layout", "nhwc", NN_LAYOUT_HELP, "nhwc|nchw", CS_KEY_WORD},
    {"normalize", "fixed", "the pixels' normalization (x/255 - mean)/std per channel, saved "
     "with the network: fixed (Fashion-MNIST's 0.2860, 0.3530; one channel only), data (each "
     "channel's mean and std over the training images; the default for more than one "
     "channel), none (x/255), fixed:M,S (every channel) or fixed:M1/M2/..,S1/S2/.. (one per "
     "channel); another than the current network's starts a new one", NULL, CS_KEY_WORD},
    {"augment", "off", "random shifts of up to 2 pixels", "on|off", CS_KEY_WORD},
    {"hist_every", "0", "weight snapshot every N steps (0: each epoch); a watching front end "
     "(the TUI) gets its frames at those steps too (0: a few a second)", NULL, CS_KEY_INT},
    {"log", "", "write the run to this run folder (docs/runfolder.md) for csreg watch DIR: "
     "a snapshot at the hist_every steps, a metrics line every step", NULL, CS_KEY_FILE},
    {"exclude", "default", NN_EXCLUDE_HELP, "default|none|first|last", CS_KEY_WORD},
    {"new", "off", "start from a fresh initialization", "on|off", CS_KEY_WORD},
    {"label", "", "name of this stage in nnreport", NULL, CS_KEY_TEXT},
    {"stop_after", NULL, STOP_AFTER_HELP, NULL, CS_KEY_INT},
    {"sha256", NULL, DATA_SHA256_HELP, NULL, CS_KEY_LIST},
    {0}};

static const cs_key_spec finetune_keys[] = {
    {"epochs", "1", "epochs", NULL, CS_KEY_INT},
    {"batch", "128", "mini-batch size", NULL, CS_KEY_INT},
    {"lr", "1e-3", "Adam learning rate", NULL, CS_KEY_NUM},
    {"limit", "as in train", "train on the first N images (0: all)", NULL, CS_KEY_INT},
    {"test_limit", "0", "test images for the accuracy (0: all)", NULL, CS_KEY_INT},
    {"augment", "off", "random shifts of up to 2 pixels", "on|off", CS_KEY_WORD},
    {"evaluate", "on", "measure test accuracy afterwards", "on|off", CS_KEY_WORD},
    {"data", "set data's", "data folder (default: set data's, else fashion-mnist)", NULL,
     CS_KEY_FILE},
    {"layout", "nhwc", NN_LAYOUT_HELP, "nhwc|nchw", CS_KEY_WORD},
    {"label", "", "name of this stage in nnreport", NULL, CS_KEY_TEXT},
    {"stop_after", NULL, STOP_AFTER_HELP, NULL, CS_KEY_INT},
    {"sha256", NULL, DATA_SHA256_HELP, NULL, CS_KEY_LIST},
    {0}};

static const cs_key_spec eval_keys[] = {
    {"limit", "0", "first N test images (0: all 10000)", NULL, CS_KEY_INT},
    {"data", "set data's", "test data folder (default: set data's, else the training "
     "data's, else fashion-mnist)", NULL, CS_KEY_FILE},
    {"layout", "nhwc", NN_LAYOUT_HELP, "nhwc|nchw", CS_KEY_WORD},
    {"label", "", "name of this stage in nnreport", NULL, CS_KEY_TEXT},
    {"sha256", NULL, DATA_SHA256_HELP, NULL, CS_KEY_LIST},
    {0}};

/* Two groups: quantize (cmd_quant.c) comes between them in `help`. */
static const cs_cmd_spec train_commands[] = {
    {.name = "train", .topic = "networks",
     .usage = "train [model=mlp|cnn|resnet20] [reg=NAME|none] [{lambda}] [eta=row|layer] "
              "[{epochs}] [{batch}] [{lr}] [{limit}] [device=cpu|cuda|auto] [augment=on|off]",
     .summary = "train on Fashion-MNIST (or data=, set data) with a CS regularizer per "
                "row/channel (continues from the current weights, with a note when the seed or "
                "the data changed since; new=on starts afresh)",
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
