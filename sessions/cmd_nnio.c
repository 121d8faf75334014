/* cmd_nnio.c — looking at the network and reading it in: `hist` (weight
 * histograms of the training snapshots), `load model` (checkpoints; `save
 * model` is cmd_session.c's command, writing through nn_state.c),
 * `nnreport` (the pipeline's stages), and the front ends' view of the
 * network (cs_train_view.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_csv.h"
#include "cs_file.h"
#include "cs_nn.h"
#include "cs_plotstore.h"
#include "cs_provenance.h"
#include "cs_train_view.h"
#include "interp_internal.h"
#include "nn_state.h"
#include "termdraw.h"

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
                /* the message first: it reads e */
                rc = cs_fail(err, CS_EINVAL, "edges: must increase strictly (%g after %g)",
                             e[i], e[i - 1]);
                free(e);
                cs_arg_blame(in, cl, "edges", 0);
                return rc;
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

/* The last snapshot's counts as a text histogram: at most 24 rows (adjacent
 * bins merged), bars up to 50 characters wide. */
static void hist_text(cs_interp *in, cs_result *res, const double *edges,
                      const uint64_t *counts, size_t nbins)
{
    size_t g = (nbins + 23) / 24, rows = (nbins + g - 1) / g;
    uint64_t most = 1;
    for (size_t r = 0; r < rows; r++) {
        uint64_t c = 0;
        for (size_t b = r * g; b < nbins && b < (r + 1) * g; b++)
            c += counts[b];
        most = c > most ? c : most;
    }
    const char *bar = term_rich(in) ? "█" : "#";
    cs_result_text(res, "%10s %10s %9s\n", "from", "to", "count");
    for (size_t r = 0; r < rows; r++) {
        size_t b1 = (r + 1) * g < nbins ? (r + 1) * g : nbins;
        uint64_t c = 0;
        for (size_t b = r * g; b < b1; b++)
            c += counts[b];
        cs_result_text(res, "%10.4g %10.4g %9llu", edges[r * g], edges[b1],
                       (unsigned long long)c);
        int len = (int)((50.0 * (double)c) / (double)most + 0.5);
        if (len)
            cs_result_text(res, " ");
        for (int k = 0; k < len; k++)
            cs_result_text(res, "%s", bar);
        cs_result_text(res, "\n");
    }
}

static int cmd_hist(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s;
    int rc = nn_need_net(in, &s, err);
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
    s->seq = cs_interp_stamp(in);
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
        af.cancel = cs_interp_cancel_flag(in);
        char prov[4096];
        cs_provenance(in, cl, 0, prov, sizeof prov);
        fprintf(af.f, "snapshot,step,epoch,layer,row,bin_lo,bin_hi,count\n%s", prov);
    }
    for (size_t k = 0; k < ns; k++) {
        if (have_file && (rc = cs_afile_poll(&af, err))) {
            cs_afile_abort(&af);
            cs_arg_blame(in, cl, "out", 0);
            goto done;
        }
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
        for (size_t b = 0; have_file && b < nbins; b++) {
            fprintf(af.f, "%zu,%zu,%.6g,", k, step, epoch);
            cs_csv_field(af.f, li.name);
            fprintf(af.f, ",%ld,%.9g,%.9g,%llu\n", row, edges[b], edges[b + 1],
                    (unsigned long long)counts[b]);
        }
    }
    if (have_file && (rc = cs_afile_commit(&af, err)))
        goto done;
    for (size_t b = 0; b < nbins; b++)
        dv[b] = (double)counts[b];
    {
        char where[64];
        if (row >= 0)
            snprintf(where, sizeof where, "row %ld", row);
        else
            snprintf(where, sizeof where, "all %zu rows", li.rows);
        cs_result_text(res, "%s, %s: %zu weights, %s (the last of %zu snapshot%s)\n", li.name,
                       where, n, names[ns - 1], ns, ns == 1 ? "" : "s");
        hist_text(in, res, edges, counts, nbins);
        if (nbins > 24)
            cs_result_text(res, "(%zu bins shown %zu to a row; JSON and out= have them all)\n",
                           nbins, (nbins + 23) / 24);
        cs_result_text_human_only(res);
    }
    cs_result_str(res, "_layer", li.name);
    if (row >= 0)
        cs_result_int(res, "_row", row);
    else
        cs_result_str(res, "_row", "all");
    cs_result_int(res, "_snapshots", (long long)ns);
    cs_result_int(res, "_values", (long long)n);
    cs_result_vec(res, "_edges", edges, nbins + 1);
    cs_result_vec(res, "_counts", dv, nbins);
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

/* ------------------------------------------------------------------ load */

static int cmd_load(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *what = cs_cmdline_pos(cl, 0), *file = cs_cmdline_pos(cl, 1);
    if (strcmp(what->value, "model") != 0 || !file) {
        in->err_col = what->col;
        return cs_fail(err, CS_EINVAL, "expected 'load model FILE'");
    }
    nn_state *s = nn_state_get(in, err);
    if (!s)
        return CS_ENOMEM;
    const char *devreq;
    int rc = cs_arg_choice(in, cl, "device", NN_DEVICE_CHOICES,
                           cs_device_name(in->device), &devreq, err);
    if (rc)
        return rc;
    char device[16], why[512];
    if ((rc = cs_nn_device_resolve(devreq, device, sizeof device, why, sizeof why, err))) {
        size_t n = strlen(err->msg);
        if (!strcmp(devreq, "cuda") && n < sizeof err->msg)
            snprintf(err->msg + n, sizeof err->msg - n, " (the network needs a GPU: a session "
                     "recorded on one replays on one, or here with device=cpu, whose results "
                     "differ in the last bits)");
        cs_arg_blame(in, cl, "device", 0);
        return rc;
    }
    /* device=: the one used when a replay could choose another (auto, a GPU) */
    if (!strcmp(devreq, "auto") || strcmp(device, "cpu") != 0) {
        char kv[32];
        snprintf(kv, sizeof kv, "device=%s", device);
        cs_interp_journal_key(in, kv);
    }
    char path[4096];
    cs_nn *net;
    in->err_col = 0;
    rc = cs_interp_path(in, file->value, path, sizeof path, err);
    /* its digest in the journal: a replay refuses a file that changed */
    if (!rc)
        rc = cs_interp_input_file(in, cl, file->value, path, err);
    if (!rc)
        rc = cs_nn_load(&net, path, device, err);
    if (rc) {
        if (!in->err_col)
            in->err_col = file->col;
        return rc;
    }
    cs_nn_free(s->net);
    s->net = net;
    s->sel_layer[0] = '\0';
    s->sel_row = -1;
    /* trained with: known when this session saved the file */
    snprintf(s->net_reg, sizeof s->net_reg, "n/a");
    s->net_lambda = NAN;
    s->net_data[0] = s->net_hash[0] = '\0';   /* its training data: unknown */
    for (size_t i = 0; i < s->nsaved; i++)
        if (!strcmp(s->saved[i].path, path)) {
            snprintf(s->net_reg, sizeof s->net_reg, "%s", s->saved[i].reg);
            s->net_lambda = s->saved[i].lambda;
        }
    s->seq = cs_interp_stamp(in);
    char desc[128];
    cs_nn_describe(net, desc, sizeof desc);
    cs_result_str(res, "file", file->value);
    cs_result_str(res, "model", desc);
    cs_result_str(res, "device", cs_nn_device(net));
    if (why[0])
        cs_result_str(res, "device_reason", why);
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

/* ------------------------------------------------------------------ table */

static const cs_key_spec hist_keys[] = {
    {"layer", "first regularized", "weight layer (conv1.. fc1..)", NULL, CS_KEY_WORD},
    {"row", "all", "one row / output channel, or all", NULL, CS_KEY_WORD},
    {"bins", "60", "number of uniform bins", NULL, CS_KEY_INT},
    {"lo", "-1.05 max|w|", "left edge", NULL, CS_KEY_NUM},
    {"hi", "1.05 max|w|", "right edge", NULL, CS_KEY_NUM},
    {"edges", NULL, "explicit bin edges a,b,c or start:step:stop", NULL, CS_KEY_RANGE},
    {"out", NULL, "CSV of the counts of every snapshot", NULL, CS_KEY_FILE},
    {"plot", NULL, "figure: .png/.svg/.pdf grid of snapshots, .gif animation", NULL,
     CS_KEY_FILE},
    CS_PLOT_FIGURE_KEYS,
    {0}};

static const cs_key_spec load_keys[] = {
    {"device", "cpu", "where the network lives; auto: cuda when a GPU answers, else cpu "
     "(default: set device; the journal records the one auto chose)", NN_DEVICE_CHOICES,
     CS_KEY_WORD},
    {"sha256", NULL, "the file's SHA-256 digest (the journal records it; a replay whose file "
     "differs is refused)", NULL, CS_KEY_LIST},
    {0}};

static const cs_key_spec report_keys[] = {
    {"out", NULL, "CSV of the pipeline's stages: " NN_REPORT_CSV_HEADER, NULL, CS_KEY_FILE},
    {0}};

static const cs_cmd_spec nnio_commands[] = {
    {.name = "hist", .topic = "networks",
     .usage = "hist [layer=..] [{row}] [{bins}] [lo=.. hi=.. | edges=..] [out=FILE.csv] "
              "[plot=FILE]",
     .summary = "weight histograms of the snapshots taken while training",
     .example = "hist layer=conv2 row=0 out=h.csv plot=h.gif", .keys = hist_keys,
     .run = cmd_hist, .journal = 1},
    {.name = "load", .topic = "networks", .usage = "load model FILE",
     .summary = "load a network written by save model (a CSNN checkpoint, or an .npz of "
                "PyTorch-named arrays)", .example =
     "load model pre.csnn", .min_pos = 2, .max_pos = 2, .keys = load_keys, .run = cmd_load,
     .journal = 1},
    {.name = "nnreport", .topic = "networks", .usage = "nnreport [out=FILE.csv]",
     .summary = "table of the pipeline's stages (train, quantize, finetune, evaluate)",
     .example = "nnreport out=results.csv", .keys = report_keys, .run = nn_cmd_report,
     .journal = 1},
};

CS_CMD_GROUP(cs_group_nnio, nnio_commands);
