/* cmd_quant.c — `quantize bin|ter`: the network's weight layers to binary or
 * ternary levels per row/channel (paper sec. 3.4, step 2), with the test
 * accuracy before and after; `finetune` (cmd_train.c) then trains the
 * scales with the signs fixed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_nn.h"
#include "interp_internal.h"
#include "nn_state.h"

/* ------------------------------------------------------------------ quantize */

/* The per-layer summary: a table on the terminal, fields in JSON (the
 * fraction near a level as a percentage in the table, as a fraction in JSON). */
static void put_quant_report(cs_result *res, const cs_nn_quant_report *q, int ternary)
{
    cs_result_text(res, "%-6s %5s %5s %10s %21s %7s %10s\n", "layer", "rows", "cols",
                   "alpha mean", "alpha min..max", "near1%", "rel. error");
    for (size_t i = 0; i < q->nlayers; i++) {
        const cs_nn_qlayer_report *l = &q->layer[i];
        char range[48];
        snprintf(range, sizeof range, "%.5f..%.5f", l->alpha_min, l->alpha_max);
        cs_result_text(res, "%-6s %5zu %5zu %10.5f %21s %6.2f%% %10.4f\n", l->name, l->rows,
                       l->cols, l->alpha_mean, range, 100.0 * l->near_frac, l->bin_error);
        char key[64];
        snprintf(key, sizeof key, "_%s.alpha_mean", l->name);
        cs_result_num(res, key, l->alpha_mean);
        snprintf(key, sizeof key, "_%s.near_frac", l->name);
        cs_result_num(res, key, l->near_frac);
        snprintf(key, sizeof key, "_%s.error", l->name);
        cs_result_num(res, key, l->bin_error);
    }
    cs_result_text(res, "(near1%%: weights within 1%% of alpha from a level; rel. error: "
                        "|w - q(w)| / |w|)\n");
    cs_result_text(res, "model size: %.1f KiB full precision, %.1f KiB %s (%.2fx smaller)\n",
                   q->bits_fp / 8192.0, q->bits_q / 8192.0, ternary ? "ternary" : "binary",
                   q->compression);
    cs_result_num(res, "_size_fp_bytes", q->bits_fp / 8);
    cs_result_num(res, "_size_q_bytes", q->bits_q / 8);
    cs_result_num(res, "_compression", q->compression);
}

/* Which layers were quantized and which stay full precision, in words. */
static void put_layers_line(cs_result *res, cs_nn *net, int ternary, const char *excl)
{
    char on[256] = "", off[256] = "";
    for (size_t i = 0; i < cs_nn_wlayer_count(net); i++) {
        cs_nn_wlayer_info li;
        cs_nn_wlayer(net, i, &li);
        char *dst = li.quantized ? on : off;
        size_t used = strlen(dst);
        snprintf(dst + used, 256 - used, "%s%s", used ? ", " : "", li.name);
    }
    cs_result_text(res, "quantized to %s per row/channel: %s", ternary ? "ternary" : "binary",
                   on[0] ? on : "no layer");
    if (off[0])
        cs_result_text(res, "; %s left full precision (exclude=%s)", off, excl);
    cs_result_text(res, "\n");
}

/* data=DIR (the user's folder; the packaged Fashion-MNIST comes with
 * csreg): the digests of the test files read, for the journal; a replay's
 * changed file is refused. */
static int record_test_data(cs_interp *in, const cs_cmdline *cl, cs_err *err)
{
    const char *d = nn_data_name(in, cl);   /* data=, else set data */
    char dir[4096], files[2][4200];
    int rc = CS_OK;
    if (strcmp(d, "fashion-mnist") != 0 && !(rc = cs_interp_path(in, d, dir, sizeof dir, err)) &&
        !(rc = cs_nn_data_files(dir, "t10k", files, err)))
        for (int f = 0; f < 2 && !rc && files[f][0]; f++)   /* an .npz: one file */
            rc = cs_interp_input_file(in, cl, files[f], files[f], err);
    if (rc && !in->err_col)
        cs_arg_blame(in, cl, "data", 0);
    return rc;
}

static int cmd_quantize(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s;
    int rc = nn_need_net(in, &s, err);
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
    int skip_eval, verbose;
    if ((rc = nn_get_exclude(in, cl, s->excl, &excl, err)) ||
        (rc = cs_arg_long(in, cl, "limit", 0, 0, 100000000, &limit, err)) ||
        (rc = cs_arg_bool(in, cl, "evaluate", 1, &skip_eval, err)) ||
        (rc = cs_arg_bool(in, cl, "verbose", 0, &verbose, err)))
        return rc;
    double acc0 = -1, loss0 = 0, acc1 = -1, loss1 = 0;
    if (skip_eval && ((rc = record_test_data(in, cl, err)) ||
                      (rc = nn_evaluate_into(in, cl, s, limit, &acc0, &loss0, err))))
        return rc;
    cs_nn_quant_report q;
    rc = cs_nn_quantize(s->net, ternary, excl, &q, err);
    if (rc)
        return rc;
    s->seq = cs_interp_stamp(in);
    s->excl = excl;
    if (skip_eval && (rc = nn_evaluate_into(in, cl, s, limit, &acc1, &loss1, err)))
        return rc;
    cs_result_str(res, "_kind", ternary ? "ternary" : "binary");
    cs_result_int(res, "_layers", (long long)q.nlayers);
    put_layers_line(res, s->net, ternary, nn_exclude_name(excl));
    if (skip_eval) {
        cs_result_num(res, "_accuracy_before", acc0);
        cs_result_num(res, "_accuracy", acc1);
        cs_result_num(res, "_loss", loss1);
        cs_result_text(res, "test accuracy %.4f before, %.4f after quantization\n", acc0, acc1);
    }
    /* the data measured on, else the network's training data */
    const char *dname = skip_eval ? s->test_name : s->net_data;
    const char *dhash = skip_eval ? s->test_hash : s->net_hash;
    cs_result_str(res, "_data", dname[0] ? dname : "n/a");
    cs_result_str(res, "_data_hash", dhash[0] ? dhash : "n/a");
    cs_result_text(res, "data: %s (%s)\n", dname[0] ? dname : "n/a", dhash[0] ? dhash : "n/a");
    put_quant_report(res, &q, ternary);
    cs_result_text_human_only(res);   /* JSON: the same as fields */
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
            /* every row's alpha: JSON, or the terminal with verbose=on */
            char key[64];
            snprintf(key, sizeof key, "%s%s.alpha", verbose ? "" : "_", li.name);
            cs_result_vec(res, key, d, li.rows);
        }
        free(a);
        free(d);
    }
    nn_stage *t = nn_add_stage(in, s, ternary ? "quantize-ter" : "quantize-bin",
                               cs_arg_text(cl, "label", ""));
    if (skip_eval) {
        t->test_acc = acc1;
        t->test_loss = loss1;
        snprintf(t->data, sizeof t->data, "%.255s", s->test_name);
        snprintf(t->data_hash, sizeof t->data_hash, "%s", s->test_hash);
    }
    return CS_OK;
}

/* ------------------------------------------------------------------ table */

static const cs_key_spec quant_keys[] = {
    {"exclude", "as trained", NN_EXCLUDE_HELP, "default|none|first|last", CS_KEY_WORD},
    {"limit", "0", "test images for the accuracies (0: all)", NULL, CS_KEY_INT},
    {"evaluate", "on", "measure test accuracy before and after", "on|off", CS_KEY_WORD},
    {"data", "set data's", "test data folder (default: set data's, else the training data's, "
     "else fashion-mnist)", NULL, CS_KEY_FILE},
    {"layout", "nhwc", NN_LAYOUT_HELP, "nhwc|nchw", CS_KEY_WORD},
    {"sha256", NULL, "SHA-256 digests of the data=DIR files read (the journal records them; "
     "a replay whose file differs is refused)", NULL, CS_KEY_LIST},
    {"label", NULL, "name of this stage in nnreport", NULL, CS_KEY_TEXT},
    {"verbose", "off", "on: every row's alpha on the terminal too (JSON always has them)",
     "on|off", CS_KEY_WORD},
    {0}};

static const cs_cmd_spec quant_commands[] = {
    {.name = "quantize", .topic = "networks", .usage = "quantize bin|ter [{exclude}] [{limit}] [{evaluate}] [{verbose}]",
     .summary = "quantize per row/channel: binary alpha=mean|w|, ternary by the exact threshold",
     .example = "quantize bin", .min_pos = 1, .max_pos = 1, .keys = quant_keys,
     .run = cmd_quantize, .journal = 1,
     .blas_threads = 1},
};

CS_CMD_GROUP(cs_group_quant, quant_commands);
