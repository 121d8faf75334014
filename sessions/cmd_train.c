/* cmd_train.c — the neural-network commands (paper sec. 3.4 made
 * interactive): train, quantize, finetune, evaluate, hist, load, nnreport,
 * and `save model FILE` (called from cmd_session.c). The network, the
 * loaded data and the pipeline's results live in the CS_EXT_NN slot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_file.h"
#include "cs_nn.h"
#include "cs_plotstore.h"
#include "cs_train_view.h"
#include "interp_internal.h"

#define NN_MAX_STAGES 256

typedef struct nn_stage {
    char stage[16], label[48], model[16], reg[24];
    double lambda;
    int epochs;
    double accuracy, loss, seconds;   /* accuracy < 0: not measured */
    int partial;
} nn_stage;

typedef struct nn_state {
    cs_nn *net;
    cs_nn_data train, test;
    char train_dir[4096], test_dir[4096];
    size_t train_limit;
    int have_train, have_test;
    cs_nn_exclude excl;     /* of the last training/quantization */
    nn_stage st[NN_MAX_STAGES];
    size_t nst;
    /* for front ends (cs_train_view.h): the layer/row `hist` chose last,
     * when the network last changed, and scratch for its weights */
    char sel_layer[64];
    long sel_row;
    long seq;
    float *view_w;
    size_t view_cap;
    char view_model[128];
} nn_state;

/* A stamp comparable with the solver's (cmd_solve.c): one more than the
 * commands journaled before this one. */
static long stamp(const cs_interp *in) { return (long)in->njournal + 1; }

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

static nn_state *get_state(cs_interp *in, cs_err *err)
{
    int created;
    nn_state *s = cs_interp_ext_get(in, CS_EXT_NN, sizeof(nn_state), &created, state_free,
                                    state_describe, err);
    if (s && created)
        s->sel_row = -1;
    return s;
}

static void add_stage(nn_state *s, const char *stage, const char *label, const char *reg,
                      double lambda, int epochs, double acc, double loss, double secs,
                      int partial)
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
    snprintf(t->reg, sizeof t->reg, "%s", reg ? reg : "none");
    t->lambda = lambda;
    t->epochs = epochs;
    t->accuracy = acc;
    t->loss = loss;
    t->seconds = secs;
    t->partial = partial;
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

static int ensure_train(cs_interp *in, const cs_cmdline *cl, nn_state *s, size_t limit,
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

static int ensure_test(cs_interp *in, const cs_cmdline *cl, nn_state *s, cs_err *err)
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
static int net_state(cs_interp *in, nn_state **out, cs_err *err)
{
    *out = get_state(in, err);
    if (!*out)
        return CS_ENOMEM;
    if (!(*out)->net)
        return cs_fail(err, CS_ESTATE, "no network: run train model=mlp|cnn ... (or load model FILE)");
    return CS_OK;
}

static int get_exclude(cs_interp *in, const cs_cmdline *cl, cs_nn_exclude def, cs_nn_exclude *out,
                       cs_err *err)
{
    const char *defs[] = {"default", "none", "last", "first"};
    const char *w;
    int rc = cs_arg_choice(in, cl, "exclude", "default|none|last|first", defs[def], &w, err);
    if (rc)
        return rc;
    for (int i = 0; i < 4; i++)
        if (!strcmp(w, defs[i]))
            *out = (cs_nn_exclude)i;
    return CS_OK;
}

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
    nn_state *s = get_state(in, err);
    if (!s)
        return CS_ENOMEM;
    long epochs, batch, limit, hist_every;
    double lr, lambda;
    int augment, fresh;
    const char *model, *device;
    cs_nn_exclude excl;
    int rc;
    const char *curmodel = s->net ? (cs_nn_get_kind(s->net) == CS_NN_CNN ? "cnn" : "mlp") : "mlp";
    if ((rc = cs_arg_choice(in, cl, "model", "mlp|cnn", curmodel, &model, err)) ||
        (rc = cs_arg_choice(in, cl, "device", "cpu|cuda",
                            s->net ? cs_nn_device(s->net) : (in->device[0] ? in->device : "cpu"),
                            &device, err)) ||
        (rc = cs_arg_long(in, cl, "epochs", 1, 1, CS_NN_MAX_EPOCHS, &epochs, err)) ||
        (rc = cs_arg_long(in, cl, "batch", 128, 2, 4096, &batch, err)) ||
        (rc = cs_arg_long(in, cl, "limit", 0, 0, 100000000, &limit, err)) ||
        (rc = cs_arg_long(in, cl, "hist_every", 0, 0, 100000000, &hist_every, err)) ||
        (rc = cs_arg_double(in, cl, "lr", 1e-3, 1e-8, 1.0, &lr, err)) ||
        (rc = cs_arg_double(in, cl, "lambda", 0, 0, 1e12, &lambda, err)) ||
        (rc = cs_arg_bool(in, cl, "augment", 0, &augment, err)) ||
        (rc = cs_arg_bool(in, cl, "new", 0, &fresh, err)) ||
        (rc = get_exclude(in, cl, CS_NN_EXCL_DEFAULT, &excl, err)))
        return rc;
    cs_nn_config cfg = {.kind = !strcmp(model, "cnn") ? CS_NN_CNN : CS_NN_MLP,
                        .seed = in->seed, .device = device, .threads = in->threads};
    if ((rc = parse_hidden(in, cl, &cfg, err)))
        return rc;
    rc = cs_nn_device_check(device, err);
    if (rc) {
        cs_arg_blame(in, cl, "device", 0);
        return rc;
    }
    cs_reg *reg = NULL;
    char regname[32];
    if ((rc = make_reg(in, cl, &reg, regname, sizeof regname, err)))
        return rc;
    if (reg && !(lambda > 0)) {
        cs_reg_free(reg);
        cs_arg_blame(in, cl, "lambda", 0);
        return cs_fail(err, CS_EINVAL, "reg=%s needs lambda > 0 (e.g. lambda=10)", regname);
    }
    rc = ensure_train(in, cl, s, (size_t)limit, err);
    if (rc) {
        cs_reg_free(reg);
        return rc;
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
    cs_nn_train_report rep;
    rc = cs_nn_train(s->net, &s->train, &o, &rep, err);
    cs_reg_free(reg);
    if (rebuild)   /* another network: its layers may differ */
        s->sel_layer[0] = '\0';
    s->seq = stamp(in);   /* also when interrupted: the weights moved */
    if (rc)
        return rc;
    s->excl = excl;
    char desc[128];
    cs_nn_describe(s->net, desc, sizeof desc);
    cs_result_str(res, "model", desc);
    cs_result_str(res, "device", cs_nn_device(s->net));
    cs_result_int(res, "params", (long long)cs_nn_param_count(s->net));
    cs_result_str(res, "reg", regname);
    cs_result_num(res, "lambda", o.lambda);
    cs_result_int(res, "train_examples", (long long)s->train.n);
    put_train_report(res, &rep);
    add_stage(s, "train", cs_arg_text(cl, "label", ""), regname, o.lambda, rep.epochs_done, -1,
              rep.loss, rep.seconds, rep.partial);
    return CS_OK;
}

/* ------------------------------------------------------------------ evaluate */

static int evaluate_into(cs_interp *in, const cs_cmdline *cl, nn_state *s, long limit,
                         double *acc, double *loss, cs_err *err)
{
    int rc = ensure_test(in, cl, s, err);
    if (rc)
        return rc;
    cs_nn_data view = s->test;
    if (limit > 0 && (size_t)limit < view.n)
        view.n = (size_t)limit;
    return cs_nn_evaluate(s->net, &view, acc, loss, err);
}

static int cmd_evaluate(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s;
    long limit;
    int rc = net_state(in, &s, err);
    if (rc || (rc = cs_arg_long(in, cl, "limit", 0, 0, 100000000, &limit, err)))
        return rc;
    double acc, loss;
    rc = evaluate_into(in, cl, s, limit, &acc, &loss, err);
    if (rc)
        return rc;
    cs_result_num(res, "accuracy", acc);
    cs_result_num(res, "loss", loss);
    cs_result_int(res, "examples", (long long)(limit > 0 && (size_t)limit < s->test.n
                                                   ? (size_t)limit : s->test.n));
    int q = cs_nn_is_quantized(s->net);
    cs_result_str(res, "weights", q == 1 ? "binary" : q == 2 ? "ternary" : "full");
    add_stage(s, "evaluate", cs_arg_text(cl, "label", ""), NULL, 0, 0, acc, loss, 0, 0);
    return CS_OK;
}

/* ------------------------------------------------------------------ quantize, finetune */

static void put_quant_report(cs_result *res, const cs_nn_quant_report *q, int ternary)
{
    cs_result_text(res, "%-6s %5s %5s %9s %9s %9s %8s %8s\n", "layer", "rows", "cols",
                   "alpha", "min", "max", "near1%", "error");
    for (size_t i = 0; i < q->nlayers; i++) {
        const cs_nn_qlayer_report *l = &q->layer[i];
        cs_result_text(res, "%-6s %5zu %5zu %9.5f %9.5f %9.5f %8.4f %8.4f\n", l->name, l->rows,
                       l->cols, l->alpha_mean, l->alpha_min, l->alpha_max, l->near_frac,
                       l->bin_error);
        char key[64];
        snprintf(key, sizeof key, "%s.alpha_mean", l->name);
        cs_result_num(res, key, l->alpha_mean);
        snprintf(key, sizeof key, "%s.near_frac", l->name);
        cs_result_num(res, key, l->near_frac);
        snprintf(key, sizeof key, "%s.error", l->name);
        cs_result_num(res, key, l->bin_error);
    }
    cs_result_text(res, "model size: %.1f KiB full precision, %.1f KiB %s (%.2fx smaller)\n",
                   q->bits_fp / 8192.0, q->bits_q / 8192.0, ternary ? "ternary" : "binary",
                   q->compression);
    cs_result_num(res, "size_fp_bytes", q->bits_fp / 8);
    cs_result_num(res, "size_q_bytes", q->bits_q / 8);
    cs_result_num(res, "compression", q->compression);
}

static int cmd_quantize(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s;
    int rc = net_state(in, &s, err);
    if (rc)
        return rc;
    /* the levels by the target family of the regularizer named: bin or ter */
    const cs_arg *kind = cs_cmdline_pos(cl, 0);
    const cs_reg_info *qi = cs_reg_lookup(kind->value);
    if (!qi || qi->kernel != (qi->family == CS_TARGET_TER ? CS_REG_KERNEL_TER
                                                            : CS_REG_KERNEL_BIN)) {
        in->err_col = kind->col;
        return cs_fail(err, CS_EINVAL, "quantize %s: expected bin or ter", kind->value);
    }
    int ternary = qi->family == CS_TARGET_TER;
    cs_nn_exclude excl;
    long limit;
    int skip_eval;
    if ((rc = get_exclude(in, cl, s->excl, &excl, err)) ||
        (rc = cs_arg_long(in, cl, "limit", 0, 0, 100000000, &limit, err)) ||
        (rc = cs_arg_bool(in, cl, "evaluate", 1, &skip_eval, err)))
        return rc;
    double acc0 = -1, loss0 = 0, acc1 = -1, loss1 = 0;
    if (skip_eval && (rc = evaluate_into(in, cl, s, limit, &acc0, &loss0, err)))
        return rc;
    cs_nn_quant_report q;
    rc = cs_nn_quantize(s->net, ternary, excl, &q, err);
    if (rc)
        return rc;
    s->seq = stamp(in);
    s->excl = excl;
    if (skip_eval && (rc = evaluate_into(in, cl, s, limit, &acc1, &loss1, err)))
        return rc;
    cs_result_str(res, "kind", ternary ? "ternary" : "binary");
    cs_result_int(res, "layers", (long long)q.nlayers);
    if (skip_eval) {
        cs_result_num(res, "accuracy_before", acc0);
        cs_result_num(res, "accuracy", acc1);
        cs_result_num(res, "loss", loss1);
        cs_result_text(res, "accuracy %.4f before, %.4f after quantization\n", acc0, acc1);
    }
    put_quant_report(res, &q, ternary);
    for (size_t i = 0; i < cs_nn_wlayer_count(s->net); i++) {
        cs_nn_wlayer_info li;
        cs_nn_wlayer(s->net, i, &li);
        if (!li.quantized)
            continue;
        float *a = malloc(li.rows * sizeof *a);
        double *d = malloc(li.rows * sizeof *d);
        if (a && d && !cs_nn_wlayer_alpha(s->net, i, a, err)) {
            for (size_t k = 0; k < li.rows; k++)
                d[k] = a[k];
            char key[64];
            snprintf(key, sizeof key, "%s.alpha", li.name);
            cs_result_vec(res, key, d, li.rows);
        }
        free(a);
        free(d);
    }
    add_stage(s, ternary ? "quantize-ter" : "quantize-bin", cs_arg_text(cl, "label", ""), NULL,
              0, 0, acc1, loss1, 0, 0);
    return CS_OK;
}

static int cmd_finetune(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s;
    int rc = net_state(in, &s, err);
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
    if ((rc = ensure_train(in, cl, s, (size_t)limit, err)))
        return rc;
    cs_nn_train_opts o = {.epochs = (int)epochs, .batch = (int)batch, .lr = lr,
                          .augment = augment, .finetune = 1, .exclude = s->excl,
                          .cancel = cs_interp_cancel_flag(in)};
    cs_nn_train_report rep;
    rc = cs_nn_train(s->net, &s->train, &o, &rep, err);
    s->seq = stamp(in);
    if (rc)
        return rc;
    double acc = -1, loss = 0;
    if (do_eval && (rc = evaluate_into(in, cl, s, tlimit, &acc, &loss, err)))
        return rc;
    if (do_eval) {
        cs_result_num(res, "accuracy", acc);
        cs_result_num(res, "test_loss", loss);
    }
    put_train_report(res, &rep);
    add_stage(s, "finetune", cs_arg_text(cl, "label", ""), NULL, 0, rep.epochs_done, acc, loss,
              rep.seconds, rep.partial);
    return CS_OK;
}

/* ------------------------------------------------------------------ hist */

static int hist_edges(cs_interp *in, const cs_cmdline *cl, double maxabs, double **edges,
                      size_t *nbins, cs_err *err)
{
    if (cs_cmdline_key(cl, "edges")) {
        double *e;
        size_t n;
        int rc = cs_arg_grid(in, cl, "edges", NULL, &e, &n, err);
        if (rc)
            return rc;
        for (size_t i = 1; i < n; i++)
            if (!(e[i] > e[i - 1])) {
                free(e);
                cs_arg_blame(in, cl, "edges", 0);
                return cs_fail(err, CS_EINVAL, "edges: must increase strictly (%g after %g)",
                               e[i], e[i - 1]);
            }
        if (n < 2) {
            free(e);
            cs_arg_blame(in, cl, "edges", 0);
            return cs_fail(err, CS_EINVAL, "edges: need at least two edges");
        }
        *edges = e;
        *nbins = n - 1;
        return CS_OK;
    }
    long bins;
    double lo, hi, r = maxabs > 0 ? 1.05 * maxabs : 1.0;
    int rc;
    if ((rc = cs_arg_long(in, cl, "bins", 60, 1, 100000, &bins, err)) ||
        (rc = cs_arg_double(in, cl, "lo", -r, -1e30, 1e30, &lo, err)) ||
        (rc = cs_arg_double(in, cl, "hi", r, -1e30, 1e30, &hi, err)))
        return rc;
    if (!(hi > lo)) {
        cs_arg_blame(in, cl, "hi", 0);
        return cs_fail(err, CS_EINVAL, "hist: hi=%g must exceed lo=%g", hi, lo);
    }
    double *e = malloc((size_t)(bins + 1) * sizeof *e);
    if (!e)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    for (long i = 0; i <= bins; i++)
        e[i] = lo + (hi - lo) * (double)i / (double)bins;
    e[bins] = hi;
    *edges = e;
    *nbins = (size_t)bins;
    return CS_OK;
}

static int cmd_hist(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s;
    int rc = net_state(in, &s, err);
    if (rc)
        return rc;
    if ((rc = cs_plot_key_check(in, cl, "plot", err)))
        return rc;
    /* layer: name, default the first regularized one */
    int layer = -1;
    const char *lname = cs_arg_text(cl, "layer", NULL);
    size_t nl = cs_nn_wlayer_count(s->net);
    if (lname) {
        layer = cs_nn_wlayer_find(s->net, lname);
        if (layer < 0) {
            cs_arg_blame(in, cl, "layer", 0);
            char names[256] = "";
            for (size_t i = 0; i < nl; i++) {
                cs_nn_wlayer_info li;
                cs_nn_wlayer(s->net, i, &li);
                strncat(names, li.name, sizeof names - strlen(names) - 2);
                if (i + 1 < nl)
                    strncat(names, " ", sizeof names - strlen(names) - 1);
            }
            return cs_fail(err, CS_ENOTFOUND, "layer=%s: no such layer (%s)", lname, names);
        }
    } else {
        for (size_t i = 0; i < nl && layer < 0; i++) {
            cs_nn_wlayer_info li;
            cs_nn_wlayer(s->net, i, &li);
            if (!li.excluded_default)
                layer = (int)i;
        }
        if (layer < 0)
            layer = 0;
    }
    cs_nn_wlayer_info li;
    cs_nn_wlayer(s->net, (size_t)layer, &li);
    long row = -1;
    const char *rtext = cs_arg_text(cl, "row", "all");
    if (strcmp(rtext, "all") != 0 &&
        (rc = cs_arg_long(in, cl, "row", 0, 0, (long)li.rows - 1, &row, err)))
        return rc;
    if (cs_nn_snapshot_count(s->net) == 0 && (rc = cs_nn_snapshot_take(s->net, 0, err)))
        return rc;
    snprintf(s->sel_layer, sizeof s->sel_layer, "%s", li.name);
    s->sel_row = row;
    s->seq = stamp(in);
    size_t ns = cs_nn_snapshot_count(s->net);
    size_t off = row < 0 ? 0 : (size_t)row * li.cols, n = row < 0 ? li.rows * li.cols : li.cols;
    double maxabs = 0;
    for (size_t k = 0; k < ns; k++) {
        const float *w;
        cs_nn_snapshot(s->net, k, (size_t)layer, &w, NULL, NULL);
        for (size_t j = 0; j < n; j++)
            if (fabs((double)w[off + j]) > maxabs)
                maxabs = fabs((double)w[off + j]);
    }
    double *edges = NULL;
    size_t nbins = 0;
    if ((rc = hist_edges(in, cl, maxabs, &edges, &nbins, err)))
        return rc;
    uint64_t *counts = malloc(nbins * sizeof *counts);
    double *dv = malloc(nbins * sizeof *dv);
    double *vals = malloc(ns * n * sizeof *vals);
    cs_plot_hist_frame *frames = calloc(ns, sizeof *frames);
    char (*names)[48] = calloc(ns, sizeof *names);
    if (!counts || !dv || !vals || !frames || !names) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto done;
    }
    const char *outf = cs_arg_text(cl, "out", NULL);
    cs_afile af;
    int have_file = 0;
    if (outf) {
        char path[4096];
        rc = cs_interp_path(in, outf, path, sizeof path, err);
        if (!rc)
            rc = cs_afile_open(&af, path, 0, err);
        if (rc) {
            cs_arg_blame(in, cl, "out", 0);
            goto done;
        }
        have_file = 1;
        fprintf(af.f, "snapshot,step,epoch,layer,row,bin_lo,bin_hi,count\n");
    }
    for (size_t k = 0; k < ns; k++) {
        const float *w;
        size_t step;
        double epoch;
        cs_nn_snapshot(s->net, k, (size_t)layer, &w, &step, &epoch);
        cs_nn_hist_counts(w + off, n, edges, nbins, counts);
        for (size_t j = 0; j < n; j++)
            vals[k * n + j] = w[off + j];
        frames[k].v = vals + k * n;
        frames[k].n = n;
        snprintf(names[k], sizeof names[k], "epoch %.4g (step %zu)", epoch, step);
        frames[k].name = names[k];
        if (have_file)
            for (size_t b = 0; b < nbins; b++)
                fprintf(af.f, "%zu,%zu,%.6g,%s,%ld,%.9g,%.9g,%llu\n", k, step, epoch, li.name,
                        row, edges[b], edges[b + 1], (unsigned long long)counts[b]);
    }
    if (have_file && (rc = cs_afile_commit(&af, err)))
        goto done;
    for (size_t b = 0; b < nbins; b++)
        dv[b] = (double)counts[b];
    cs_result_str(res, "layer", li.name);
    if (row >= 0)
        cs_result_int(res, "row", row);
    else
        cs_result_str(res, "row", "all");
    cs_result_int(res, "snapshots", (long long)ns);
    cs_result_int(res, "values", (long long)n);
    cs_result_vec(res, "edges", edges, nbins + 1);
    cs_result_vec(res, "counts", dv, nbins);
    if (outf)
        cs_result_str(res, "out", outf);
    {
        cs_plot_hist_data hd = {.frames = frames, .nframes = ns, .bins = nbins, .lo = edges[0],
                                .hi = edges[nbins], .xlabel = "weight"};
        if ((rc = cs_plotstore_hist(in, &hd, err)))
            goto done;
        rc = cs_plot_key(in, cl, "hist", res, err);
    }
done:
    free(edges);
    free(counts);
    free(dv);
    free(vals);
    free(frames);
    free(names);
    return rc;
}

/* ------------------------------------------------------------------ save / load */

int cs_train_save_model(cs_interp *in, const char *path, int force, cs_result *res,
                        cs_err *err);
int cs_train_save_model(cs_interp *in, const char *path, int force, cs_result *res,
                        cs_err *err)
{
    nn_state *s = cs_interp_ext(in, CS_EXT_NN);
    if (!s || !s->net)
        return cs_fail(err, CS_ESTATE, "save model: no network (run train or load model first)");
    int rc = cs_nn_save(s->net, path, force, err);
    if (rc)
        return rc;
    char desc[128];
    cs_nn_describe(s->net, desc, sizeof desc);
    cs_result_str(res, "model", desc);
    cs_result_int(res, "params", (long long)cs_nn_param_count(s->net));
    return CS_OK;
}

static int cmd_load(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *what = cs_cmdline_pos(cl, 0), *file = cs_cmdline_pos(cl, 1);
    if (strcmp(what->value, "model") != 0 || !file) {
        in->err_col = what->col;
        return cs_fail(err, CS_EINVAL, "expected 'load model FILE'");
    }
    nn_state *s = get_state(in, err);
    if (!s)
        return CS_ENOMEM;
    const char *device;
    int rc = cs_arg_choice(in, cl, "device", "cpu|cuda", in->device[0] ? in->device : "cpu",
                           &device, err);
    if (rc)
        return rc;
    char path[4096];
    cs_nn *net;
    rc = cs_interp_path(in, file->value, path, sizeof path, err);
    if (!rc)
        rc = cs_nn_load(&net, path, device, in->threads, err);
    if (rc) {
        in->err_col = file->col;
        return rc;
    }
    cs_nn_free(s->net);
    s->net = net;
    s->sel_layer[0] = '\0';
    s->sel_row = -1;
    s->seq = stamp(in);
    char desc[128];
    cs_nn_describe(net, desc, sizeof desc);
    cs_result_str(res, "file", file->value);
    cs_result_str(res, "model", desc);
    cs_result_str(res, "device", cs_nn_device(net));
    int q = cs_nn_is_quantized(net);
    cs_result_str(res, "weights", q == 1 ? "binary" : q == 2 ? "ternary" : "full");
    return CS_OK;
}

/* ------------------------------------------------------------------ the view */

int cs_interp_train_view(cs_interp *in, cs_train_view *v)
{
    memset(v, 0, sizeof *v);
    v->row = -1;
    nn_state *s = cs_interp_ext(in, CS_EXT_NN);
    if (!s || !s->net)
        return -1;
    cs_nn_describe(s->net, s->view_model, sizeof s->view_model);
    v->model = s->view_model;
    v->seq = s->seq;
    size_t nl = cs_nn_wlayer_count(s->net);
    int layer = s->sel_layer[0] ? cs_nn_wlayer_find(s->net, s->sel_layer) : -1;
    for (size_t i = 0; i < nl && layer < 0; i++) {
        cs_nn_wlayer_info li;
        cs_nn_wlayer(s->net, i, &li);
        if (!li.excluded_default)
            layer = (int)i;
    }
    if (layer < 0 && nl > 0)
        layer = 0;
    size_t ns = cs_nn_snapshot_count(s->net);
    v->snapshots = ns;
    if (ns) {
        const float *w;
        size_t step;
        cs_nn_snapshot(s->net, ns - 1, 0, &w, &step, &v->epoch);
    }
    if (layer < 0)
        return 0;
    cs_nn_wlayer_info li;
    cs_nn_wlayer(s->net, (size_t)layer, &li);
    v->layer = li.name;
    v->quantized = li.quantized;
    size_t total = li.rows * li.cols;
    if (s->view_cap < total) {
        float *b = realloc(s->view_w, total * sizeof *b);
        if (!b)
            return 0;
        s->view_w = b;
        s->view_cap = total;
    }
    cs_err err;
    if (cs_nn_wlayer_get(s->net, (size_t)layer, s->view_w, &err))
        return 0;
    if (s->sel_row >= 0 && (size_t)s->sel_row < li.rows && !strcmp(s->sel_layer, li.name)) {
        v->row = s->sel_row;
        v->w = s->view_w + (size_t)s->sel_row * li.cols;
        v->n = li.cols;
    } else {
        v->w = s->view_w;
        v->n = total;
    }
    return 0;
}

/* ------------------------------------------------------------------ nnreport */

static int cmd_nnreport(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s = get_state(in, err);
    if (!s)
        return CS_ENOMEM;
    const char *outf = cs_arg_text(cl, "out", NULL);
    cs_afile af;
    if (outf) {
        char path[4096];
        int rc = cs_interp_path(in, outf, path, sizeof path, err);
        if (!rc)
            rc = cs_afile_open(&af, path, 0, err);
        if (rc) {
            cs_arg_blame(in, cl, "out", 0);
            return rc;
        }
        fprintf(af.f, "stage,label,model,reg,lambda,epochs,accuracy,loss,seconds,partial\n");
    }
    cs_result_text(res, "%-13s %-18s %-5s %-6s %8s %6s %9s %8s %8s\n", "stage", "label", "model",
                   "reg", "lambda", "epochs", "accuracy", "loss", "seconds");
    for (size_t i = 0; i < s->nst; i++) {
        const nn_stage *t = &s->st[i];
        char acc[32] = "n/a";
        if (t->accuracy >= 0)
            snprintf(acc, sizeof acc, "%.4f", t->accuracy);
        cs_result_text(res, "%-13s %-18s %-5s %-6s %8g %6d %9s %8.4f %8.1f%s\n", t->stage,
                       t->label, t->model, t->reg, t->lambda, t->epochs, acc, t->loss,
                       t->seconds, t->partial ? " (partial)" : "");
        if (outf) {
            fprintf(af.f, "%s,%s,%s,%s,%.17g,%d,", t->stage, t->label, t->model, t->reg,
                    t->lambda, t->epochs);
            if (t->accuracy >= 0)
                fprintf(af.f, "%.6f", t->accuracy);
            fprintf(af.f, ",%.6f,%.3f,%d\n", t->loss, t->seconds, t->partial);
        }
    }
    if (outf) {
        int rc = cs_afile_commit(&af, err);
        if (rc)
            return rc;
        cs_result_str(res, "out", outf);
    }
    cs_result_int(res, "stages", (long long)s->nst);
    return CS_OK;
}

/* ------------------------------------------------------------------ table */

static const cs_key_spec train_keys[] = {
    {"model", "mlp", "network: mlp (784-hidden-10) or cnn (VGG-style, 0.42 M params)", "mlp|cnn",
     CS_KEY_WORD},
    {"data", "fashion-mnist", "fashion-mnist or a folder of MNIST-format IDX files", NULL,
     CS_KEY_FILE},
    {"reg", "none", "regularizer per row/channel: none, a name (bin ter osb bbin ...), current",
     NULL, CS_KEY_WORD},
    {"lambda", "0", "regularization weight (loss + lambda * sum_k ell(theta_k)/dim)", NULL,
     CS_KEY_NUM},
    {"epochs", "1", "epochs (cosine annealing over them)", NULL, CS_KEY_INT},
    {"batch", "128", "mini-batch size", NULL, CS_KEY_INT},
    {"lr", "1e-3", "Adam learning rate", NULL, CS_KEY_NUM},
    {"limit", "0", "train on the first N images (0: all)", NULL, CS_KEY_INT},
    {"device", "cpu", "cpu (OpenBLAS) or cuda", "cpu|cuda", CS_KEY_WORD},
    {"hidden", "512,512", "hidden sizes (mlp: list; cnn: the fc size, default 256)", NULL,
     CS_KEY_LIST},
    {"augment", "off", "random shifts of up to 2 pixels", "on|off", CS_KEY_WORD},
    {"hist_every", "0", "weight snapshot every N steps (0: each epoch)", NULL, CS_KEY_INT},
    {"exclude", "default", "layers left full precision: default (first and last), none, first, last",
     "default|none|first|last", CS_KEY_WORD},
    {"new", "off", "start from a fresh initialization", "on|off", CS_KEY_WORD},
    {"label", "", "name of this stage in nnreport", NULL, CS_KEY_TEXT},
    {0}};

static const cs_key_spec quant_keys[] = {
    {"exclude", "default", "layers left full precision (as in training)",
     "default|none|first|last", CS_KEY_WORD},
    {"limit", "0", "test images for the accuracies (0: all)", NULL, CS_KEY_INT},
    {"evaluate", "on", "measure test accuracy before and after", "on|off", CS_KEY_WORD},
    {"data", "fashion-mnist", "test data folder", NULL, CS_KEY_FILE},
    {"label", "", "name of this stage in nnreport", NULL, CS_KEY_TEXT},
    {0}};

static const cs_key_spec finetune_keys[] = {
    {"epochs", "1", "epochs", NULL, CS_KEY_INT},
    {"batch", "128", "mini-batch size", NULL, CS_KEY_INT},
    {"lr", "1e-3", "Adam learning rate", NULL, CS_KEY_NUM},
    {"limit", "0", "train on the first N images (default: as in train)", NULL, CS_KEY_INT},
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

static const cs_key_spec hist_keys[] = {
    {"layer", NULL, "weight layer (conv1.. fc1..; default: the first regularized)", NULL,
     CS_KEY_WORD},
    {"row", "all", "one row / output channel, or all", NULL, CS_KEY_WORD},
    {"bins", "60", "number of uniform bins", NULL, CS_KEY_INT},
    {"lo", NULL, "left edge (default: -1.05 max|w|)", NULL, CS_KEY_NUM},
    {"hi", NULL, "right edge (default: 1.05 max|w|)", NULL, CS_KEY_NUM},
    {"edges", NULL, "explicit bin edges a,b,c or start:step:stop", NULL, CS_KEY_RANGE},
    {"out", NULL, "CSV of the counts of every snapshot", NULL, CS_KEY_FILE},
    {"plot", NULL, "figure: .png/.svg/.pdf grid of snapshots, .gif animation", NULL,
     CS_KEY_FILE},
    {0}};

static const cs_key_spec load_keys[] = {
    {"device", "cpu", "where the network lives", "cpu|cuda", CS_KEY_WORD},
    {0}};

static const cs_key_spec report_keys[] = {
    {"out", NULL, "CSV of the pipeline's stages", NULL, CS_KEY_FILE},
    {0}};

static const cs_cmd_spec train_commands[] = {
    {.name = "train", .topic = "networks",
     .usage = "train model=mlp|cnn reg=NAME|none lambda=.. epochs=.. [batch=..] [lr=..] "
              "[limit=..] [device=cpu|cuda] [augment=on]",
     .summary = "train on Fashion-MNIST with a CS regularizer per row/channel (continues from "
                "the current weights)",
     .example = "train model=cnn reg=bin lambda=10 epochs=5", .keys = train_keys,
     .run = cmd_train, .journal = 1},
    {.name = "quantize", .topic = "networks", .usage = "quantize bin|ter [exclude=..]",
     .summary = "quantize per row/channel: binary alpha=mean|w|, ternary by the exact threshold",
     .example = "quantize bin", .min_pos = 1, .max_pos = 1, .keys = quant_keys,
     .run = cmd_quantize, .journal = 1},
    {.name = "finetune", .topic = "networks", .usage = "finetune epochs=..",
     .summary = "train the scales, biases and batch-norm parameters with the signs fixed",
     .example = "finetune epochs=2", .keys = finetune_keys, .run = cmd_finetune, .journal = 1},
    {.name = "evaluate", .topic = "networks", .usage = "evaluate [limit=N]",
     .summary = "test accuracy (fraction) and cross-entropy", .example = "evaluate",
     .keys = eval_keys, .run = cmd_evaluate, .journal = 1},
    {.name = "hist", .topic = "networks",
     .usage = "hist [layer=..] [row=..] [bins=..] [out=FILE.csv] [plot=FILE]",
     .summary = "weight histograms of the snapshots taken while training",
     .example = "hist layer=conv2 row=0 out=h.csv plot=h.gif", .keys = hist_keys,
     .run = cmd_hist, .journal = 1},
    {.name = "load", .topic = "networks", .usage = "load model FILE",
     .summary = "load a network checkpoint written by save model", .example =
     "load model pre.csnn", .min_pos = 2, .max_pos = 2, .keys = load_keys, .run = cmd_load,
     .journal = 1},
    {.name = "nnreport", .topic = "networks", .usage = "nnreport [out=FILE.csv]",
     .summary = "table of the pipeline's stages (train, quantize, finetune, evaluate)",
     .example = "nnreport out=results.csv", .keys = report_keys, .run = cmd_nnreport,
     .journal = 1},
};

CS_CMD_GROUP(cs_group_train, train_commands);
