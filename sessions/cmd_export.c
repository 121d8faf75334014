/* cmd_export.c — the network out of csreg: `export onnx FILE` (the model in
 * inference mode as ONNX, cs_nn_export_onnx), and `predict` (the logits and
 * classes of test images, for checking a copy of the network elsewhere:
 * PyTorch from `save model F.npz`, an ONNX runtime from `export onnx`). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_csv.h"
#include "cs_file.h"
#include "cs_nn.h"
#include "cs_provenance.h"
#include "interp_internal.h"
#include "nn_state.h"

/* ------------------------------------------------------------------ export */

/* the line a replay runs: force=on added (it writes the file again) */
static void journal_force(cs_interp *in, const char *what, const char *file)
{
    char line[4300];
    int plain = *file && !strpbrk(file, " \t\"'#\\");
    size_t used = (size_t)snprintf(line, sizeof line, "export %s %s", what, plain ? "" : "\"");
    for (const char *p = file; *p && used + 4 < sizeof line; p++) {
        if (!plain && (*p == '"' || *p == '\\'))
            line[used++] = '\\';
        line[used++] = *p;
    }
    if (used + 16 < sizeof line) {
        snprintf(line + used, sizeof line - used, "%s force=on", plain ? "" : "\"");
        cs_interp_journal_as(in, line);
    }
}

static int cmd_export(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *what = cs_cmdline_pos(cl, 0), *file = cs_cmdline_pos(cl, 1);
    if (strcmp(what->value, "onnx") != 0 || !file) {
        in->err_col = what->col;
        return cs_fail(err, CS_EINVAL, "expected 'export onnx FILE.onnx'");
    }
    nn_state *s;
    int force, rc = nn_need_net(in, &s, err);
    if (rc || (rc = cs_arg_bool(in, cl, "force", 0, &force, err)))
        return rc;
    char path[4096];
    if ((rc = cs_interp_path(in, file->value, path, sizeof path, err)) ||
        (rc = cs_nn_export_onnx(s->net, path, force, cs_interp_cancel_flag(in), err))) {
        in->err_col = file->col;
        return rc;
    }
    journal_force(in, "onnx", file->value);
    char desc[160];
    cs_nn_describe(s->net, desc, sizeof desc);
    int q = cs_nn_is_quantized(s->net);
    cs_result_str(res, "file", file->value);
    cs_result_str(res, "model", desc);
    cs_result_str(res, "weights", q == 1 ? "binary" : q == 2 ? "ternary" : "full");
    cs_nn_config c;
    cs_nn_get_config(s->net, &c);
    double m, sd;
    cs_nn_get_input_norm(s->net, &m, &sd);
    char text[160];
    if (c.channels == 1)
        snprintf(text, sizeof text, "float N x 1 x %d x %d: (x/255 - %.4g)/%.4g", c.height,
                 c.width, m, sd);
    else
        snprintf(text, sizeof text, "float N x %d x %d x %d: (x/255 - mean[c])/std[c]",
                 c.channels, c.height, c.width);
    cs_result_str(res, "input", text);
    snprintf(text, sizeof text, "logits: float N x %d", c.classes);
    cs_result_str(res, "output", text);
    cs_result_int(res, "opset", 13);
    return CS_OK;
}

/* ------------------------------------------------------------------ predict */

static int write_csv(cs_interp *in, const cs_cmdline *cl, const char *outf, const cs_nn_data *d,
                     size_t n, int K, const float *logits, const int *pred, cs_err *err)
{
    char path[4096], prov[4096];
    cs_afile af;
    int rc = cs_interp_path(in, outf, path, sizeof path, err);
    if (!rc)
        rc = cs_afile_open(&af, path, 0, err);
    if (rc) {
        cs_arg_blame(in, cl, "out", 0);
        return rc;
    }
    af.cancel = cs_interp_cancel_flag(in);
    cs_provenance(in, cl, 0, prov, sizeof prov);
    fprintf(af.f, "index,label,pred");
    for (int k = 0; k < K; k++)
        fprintf(af.f, ",logit%d", k);
    fprintf(af.f, "\n%s", prov);
    for (size_t i = 0; i < n; i++) {
        fprintf(af.f, "%zu,%d,%d", i, d->labels[i], pred[i]);
        for (int k = 0; k < K; k++)
            fprintf(af.f, ",%.9g", logits[i * (size_t)K + k]);
        fprintf(af.f, "\n");
    }
    return cs_afile_commit(&af, err);
}

static int cmd_predict(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s;
    long limit;
    int rc = nn_need_net(in, &s, err);
    if (rc || (rc = cs_arg_long(in, cl, "limit", 10, 1, 100000000, &limit, err)) ||
        (rc = nn_ensure_test(in, cl, s, err)))
        return rc;
    size_t n = (size_t)limit < s->test.n ? (size_t)limit : s->test.n;
    cs_nn_config c;
    cs_nn_get_config(s->net, &c);
    const size_t K = (size_t)c.classes;
    float *logits = malloc(n * K * sizeof *logits);
    int *pred = malloc(n * sizeof *pred);
    double *dv = malloc(n * K * sizeof *dv);
    if (!logits || !pred || !dv) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = cs_nn_logits(s->net, &s->test, n, logits, err)))
        goto done;
    size_t correct = 0;
    for (size_t i = 0; i < n; i++) {
        const float *z = logits + i * K;
        int k = 0;
        for (int j = 1; j < (int)K; j++)
            if (z[j] > z[k])
                k = j;
        pred[i] = k;
        correct += k == s->test.labels[i];
    }
    const char *outf = cs_arg_text(cl, "out", NULL);
    if (outf && (rc = write_csv(in, cl, outf, &s->test, n, (int)K, logits, pred, err)))
        goto done;
    cs_result_int(res, "examples", (long long)n);
    cs_result_num(res, "accuracy", (double)correct / (double)n);
    for (size_t i = 0; i < n; i++)
        dv[i] = pred[i];
    cs_result_vec(res, "pred", dv, n < 100 ? n : 100);
    for (size_t i = 0; i < n * K; i++)
        dv[i] = logits[i];
    cs_result_vec(res, "_logits", dv, (n < 100 ? n : 100) * K);
    if (outf)
        cs_result_str(res, "out", outf);
done:
    free(logits);
    free(pred);
    free(dv);
    return rc;
}

/* ------------------------------------------------------------------ table */

static const cs_key_spec export_keys[] = {
    {"force", "off", "overwrite an existing file", "on|off", CS_KEY_WORD},
    {0}};

static const cs_key_spec predict_keys[] = {
    {"limit", "10", "the first N test images", NULL, CS_KEY_INT},
    {"out", NULL, "CSV: index,label,pred,logit0..logitK-1 per image (K classes)", NULL,
     CS_KEY_FILE},
    {"data", "fashion-mnist", "test data folder", NULL, CS_KEY_FILE},
    {"layout", "nhwc", NN_LAYOUT_HELP, "nhwc|nchw", CS_KEY_WORD},
    {0}};

static const cs_cmd_spec export_commands[] = {
    {.name = "export", .topic = "networks", .usage = "export onnx FILE.onnx [force=on|off]",
     .summary = "the network in inference mode as an ONNX model (opset 13; input: the "
                "normalized images, N x C x H x W (Fashion-MNIST's: N x 1 x 28 x 28); output: "
                "the logits, N x classes; a quantized layer's weights are its levels times "
                "their scales)",
     .example = "export onnx net.onnx", .min_pos = 2, .max_pos = 2, .keys = export_keys,
     .run = cmd_export},
    {.name = "predict", .topic = "networks", .usage = "predict [{limit}] [out=FILE.csv]",
     .summary = "the logits and predicted classes of the first test images (JSON: pred, and "
                "_logits for up to 100 images; out= all of them)",
     .example = "predict limit=5 out=pred.csv", .keys = predict_keys, .run = cmd_predict,
     .journal = 1},
};

CS_CMD_GROUP(cs_group_export, export_commands);
