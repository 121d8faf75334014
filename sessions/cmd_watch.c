/* cmd_watch.c — `watch dir=DIR`: a run folder (docs/runfolder.md) summed
 * up for scripts and the REPL: per snapshot and layer the share of weights
 * near a level, the scales α (and τ) and the level changes since the
 * previous snapshot (cs_run_watch.h), and the files it skipped. The live
 * view of the same folder is the TUI's training view (`csreg watch DIR`,
 * or `:watch dir=DIR` in the workbench: ui/tui_folder.c); this command
 * reads the folder as it is now and returns. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_cmd_spec.h"
#include "cs_run_watch.h"
#include "interp_internal.h"

typedef struct watched {
    cs_run_folder *rf;
    cs_run_watch *w;
    long layer;              /* -1: all */
    int bins;                /* histograms in the rows (0: none) */
    char **skipped;
    size_t nskipped;
} watched;

static void watched_free(watched *r)
{
    cs_run_watch_free(r->w);
    cs_run_folder_free(r->rf);
    for (size_t i = 0; i < r->nskipped; i++)
        free(r->skipped[i]);
    free(r->skipped);
}

/* Open and read a folder as it is now; messages kept for `skipped`. */
static int watched_open(watched *r, cs_interp *in, const cs_cmdline *cl, const char *key,
                        cs_err *err)
{
    char path[4096];
    int rc = cs_arg_path(in, cl, key, path, sizeof path, err);
    if (rc || (rc = cs_run_folder_open(&r->rf, path, err)) ||
        (rc = cs_run_watch_new(&r->w, r->rf, err))) {
        cs_arg_blame(in, cl, key, 0);
        return rc;
    }
    if ((rc = cs_run_watch_update(r->w, err)) < 0)
        return rc;
    char msg[512];
    while (cs_run_watch_message(r->w, msg, sizeof msg)) {
        char **s = realloc(r->skipped, (r->nskipped + 1) * sizeof *s);
        if (!s)
            return cs_fail(err, CS_ENOMEM, "out of memory");
        r->skipped = s;
        if (!(s[r->nskipped] = strdup(msg)))
            return cs_fail(err, CS_ENOMEM, "out of memory");
        r->nskipped++;
    }
    const char *want = cs_arg_text(cl, "layer", "all");
    r->layer = -1;
    if (strcmp(want, "all")) {
        for (size_t j = 0; j < cs_run_folder_layer_count(r->rf); j++)
            if (!strcmp(cs_run_folder_layer(r->rf, j)->name, want))
                r->layer = (long)j;
        if (r->layer < 0 && cs_run_folder_layer_count(r->rf)) {
            cs_arg_blame(in, cl, "layer", 0);
            return cs_fail(err, CS_ENOTFOUND, "layer=%s: %s has no such layer (its first: %s)",
                           want, path, cs_run_folder_layer(r->rf, 0)->name);
        }
    }
    return CS_OK;
}

/* The loss of snapshot k's line, NAN when it has none. */
static double snap_metric(const watched *r, size_t k, const char *name)
{
    int m = cs_run_folder_metric_find(r->rf, name);
    const cs_run_point *p = cs_run_folder_point(r->rf, cs_run_watch_snap(r->w, k)->point);
    return m >= 0 ? p->val[m] : NAN;
}

static void pct(char *buf, size_t len, double v)
{
    if (isfinite(v))
        snprintf(buf, len, "%.2f", 100 * v);
    else
        snprintf(buf, len, "-");
}

/* One row a snapshot and layer: JSON objects, and text lines. */
static void write_rows(FILE *j, FILE *t, const void *ctx)
{
    const watched *r = ctx;
    size_t nl = cs_run_folder_layer_count(r->rf);
    int first_row = 1;
    fputc('[', j);
    fprintf(t, "\n  %8s %7s %9s  %-16s %7s %9s %9s %7s", "step", "epoch", "loss", "layer",
            "near%", "mean_a", "tau", "flips%");
    for (size_t k = 0; k < cs_run_watch_count(r->w); k++) {
        const cs_run_snap *s = cs_run_watch_snap(r->w, k);
        double loss = snap_metric(r, k, "loss");
        for (size_t l = 0; l < nl; l++) {
            if (r->layer >= 0 && (long)l != r->layer)
                continue;
            cs_nn_watch_layer L;
            cs_err err;
            int have = r->bins ? cs_run_watch_hist(r->w, k, l, r->bins, 0, 0, &L, &err)
                               : cs_run_watch_layer(r->w, k, l, &L, &err);
            if (have)
                continue;
            const char *name = cs_run_folder_layer(r->rf, l)->name;
            int f = 1;
            fputs(first_row ? "{" : ",{", j);
            first_row = 0;
            cs_json_num_member(j, &f, "step", s->step);
            cs_json_num_member(j, &f, "epoch", s->epoch);
            cs_json_num_member(j, &f, "loss", loss);
            cs_json_str_member(j, &f, "layer", name);
            cs_json_num_member(j, &f, "near", L.near);
            cs_json_num_member(j, &f, "alpha", L.alpha_mean);
            cs_json_num_member(j, &f, "alpha_min", L.alpha_min);
            cs_json_num_member(j, &f, "alpha_max", L.alpha_max);
            cs_json_num_member(j, &f, "tau", L.tau_mean);
            cs_json_num_member(j, &f, "flips", L.flips);
            if (r->bins) {
                cs_json_num_member(j, &f, "lo", L.lo);
                cs_json_num_member(j, &f, "hi", L.hi);
                fprintf(j, ",\"outside\":%zu,\"counts\":[", L.outside);
                for (int b = 0; b < L.bins; b++)
                    fprintf(j, "%s%u", b ? "," : "", L.counts[b]);
                fputc(']', j);
            }
            fputc('}', j);
            char near[16], flips[16], tau[24] = "-", ep[24] = "-", lo[24] = "-";
            pct(near, sizeof near, L.near);
            pct(flips, sizeof flips, L.flips);
            if (isfinite(L.tau_mean))
                snprintf(tau, sizeof tau, "%.4g", L.tau_mean);
            if (isfinite(s->epoch))
                snprintf(ep, sizeof ep, "%.2f", s->epoch);
            if (isfinite(loss))
                snprintf(lo, sizeof lo, "%.4f", loss);
            fprintf(t, "\n  %8.0f %7s %9s  %-16.40s %7s %9.4g %9s %7s", s->step, ep, lo, name, near,
                    L.alpha_mean, tau, flips);
        }
    }
    fputc(']', j);
}

/* The messages of what was skipped: a list, and a line each. */
static void write_skipped(FILE *j, FILE *t, const void *ctx)
{
    const watched *r = ctx;
    fputc('[', j);
    for (size_t i = 0; i < r->nskipped; i++) {
        if (i)
            fputc(',', j);
        cs_json_string(j, r->skipped[i]);
        fprintf(t, "\n  %s", r->skipped[i]);
    }
    fputc(']', j);
    if (!r->nskipped)
        fputs("none", t);
}

/* The run's description: fields of res, or members of an object (vs=). */
static void put_run(cs_result *res, const watched *r, const char *prefix)
{
    const cs_run_info *info = cs_run_folder_info(r->rf);
    char key[64];
#define KEY(k) (snprintf(key, sizeof key, "%s%s", prefix, k), key)
    cs_result_str(res, KEY("dir"), cs_run_folder_dir(r->rf));
    cs_result_str(res, KEY("name"), info->name);
    cs_result_str(res, KEY("reg"), info->reg);
    cs_result_str(res, KEY("params"), info->params);
    cs_result_int(res, KEY("levels"), cs_run_watch_levels(r->w));
    cs_result_int(res, KEY("snapshots"), (long long)cs_run_watch_count(r->w));
    cs_result_int(res, KEY("points"), (long long)cs_run_folder_point_count(r->rf));
    size_t nl = cs_run_folder_layer_count(r->rf);
    const char **names = calloc(nl ? nl : 1, sizeof *names);
    for (size_t l = 0; names && l < nl; l++)
        names[l] = cs_run_folder_layer(r->rf, l)->name;
    if (names)
        cs_result_strs(res, KEY("layers"), names, nl);
    free(names);
    cs_result_bool(res, KEY("done"), info->done);
    cs_result_json_written(res, KEY("skipped"), write_skipped, r);
    cs_result_json_written(res, KEY("summary"), write_rows, r);
#undef KEY
}

static int cmd_watch(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    long bins;
    int rc = cs_arg_long(in, cl, "bins", 0, 0, CS_NN_WATCH_BINS, &bins, err);
    if (rc)
        return rc;
    if (bins && !strcmp(cs_arg_text(cl, "layer", "all"), "all")) {
        cs_arg_blame(in, cl, "bins", 0);
        return cs_fail(err, CS_EINVAL, "bins=%ld: histograms are of one layer (add layer=NAME)",
                       bins);
    }
    watched a = {.bins = (int)bins}, b = {.bins = (int)bins};
    rc = watched_open(&a, in, cl, "dir", err);
    if (!rc && cs_arg_text(cl, "vs", NULL))
        rc = watched_open(&b, in, cl, "vs", err);
    if (!rc) {
        put_run(res, &a, "");
        if (b.rf)
            put_run(res, &b, "vs_");
    }
    watched_free(&a);
    watched_free(&b);
    return rc;
}

static const cs_key_spec watch_keys[] = {
    {"dir", CS_REQUIRED, "the run folder (docs/runfolder.md): train log=DIR or "
     "csreg.watch.Logger writes one", NULL, CS_KEY_FILE},
    {"vs", "", "a second run folder, summed up beside the first (vs_* fields)", NULL,
     CS_KEY_FILE},
    {"layer", "all", "one layer's rows only (its name in run.json)", NULL, CS_KEY_WORD},
    {"bins", "0", "with layer=: each row also has the histogram's counts over the layer's "
     "range (lo, hi, as the live view draws them)", NULL, CS_KEY_INT},
    {0}};

static const cs_cmd_spec watch_commands[] = {
    {.name = "watch", .topic = "networks",
     .usage = "watch dir=DIR [vs=DIR2] [layer=NAME [bins=N]]",
     .summary = "a run folder's weight snapshots summed up: per snapshot and layer the share "
                "near a level, the scales and the level flips (live: csreg watch DIR, or this "
                "command in the workbench)",
     .example = "watch dir=runs/r20 layer=layer1.0.conv1", .keys = watch_keys,
     .run = cmd_watch},
};

CS_CMD_GROUP(cs_group_watch, watch_commands);
