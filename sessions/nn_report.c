/* nn_report.c — `nnreport`: the pipeline's stages (train, evaluate,
 * quantize, finetune) as an aligned table on the terminal, a CSV in out=,
 * and an array of objects in JSON. Train and test accuracy and loss are
 * separate columns; reg and lambda are what the network was trained with.
 * Stages run several times under one label (seeds) get mean ± std. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cs_args.h"
#include "cs_csv.h"
#include "cs_file.h"
#include "cs_provenance.h"
#include "interp_internal.h"
#include "nn_state.h"

/* A measured value for the table with `prec` decimals (prec < 0: %g), "n/a"
 * when not measured. */
static const char *cell(char *buf, size_t len, double v, int measured, int prec)
{
    if (!measured)
        return "n/a";
    if (prec < 0)
        snprintf(buf, len, "%g", v);
    else
        snprintf(buf, len, "%.*f", prec, v);
    return buf;
}

/* A CSV field: empty when not measured; prec < 0: round-trip exact. */
static void csv_num(FILE *f, double v, int measured, int prec)
{
    fputc(',', f);
    if (measured && prec < 0)
        fprintf(f, "%.17g", v);
    else if (measured)
        fprintf(f, "%.*f", prec, v);
}

static void stages_json(FILE *json, FILE *text, const void *ctx)
{
    (void)text;
    const nn_state *s = ctx;
    fputc('[', json);
    for (size_t i = 0; i < s->nst; i++) {
        const nn_stage *t = &s->st[i];
        int first = 1;
        fputs(i ? ",{" : "{", json);
        cs_json_str_member(json, &first, "stage", t->stage);
        cs_json_str_member(json, &first, "label", t->label);
        cs_json_str_member(json, &first, "model", t->model);
        cs_json_str_member(json, &first, "reg", t->reg);
        cs_json_num_member(json, &first, "lambda", t->lambda);   /* NaN: null */
        cs_json_num_member(json, &first, "epochs", t->epochs);
        cs_json_num_member(json, &first, "train_accuracy", t->train_acc >= 0 ? t->train_acc : NAN);
        cs_json_num_member(json, &first, "train_loss", t->train_loss);
        cs_json_num_member(json, &first, "test_accuracy", t->test_acc >= 0 ? t->test_acc : NAN);
        cs_json_num_member(json, &first, "test_loss", t->test_loss);
        cs_json_num_member(json, &first, "seconds", t->seconds);
        cs_json_bool_member(json, &first, "partial", t->partial);
        cs_json_str_member(json, &first, "data", t->data[0] ? t->data : "n/a");
        cs_json_str_member(json, &first, "data_hash", t->data_hash[0] ? t->data_hash : "n/a");
        fprintf(json, ",\"seed\":%llu", t->seed);   /* exact beyond 2^53 */
        fputc('}', json);
    }
    fputc(']', json);
}

/* The stages under the header and `prov` (the lines saying how it was made). */
static int write_csv(const nn_state *s, const char *path, const char *prov, cs_err *err)
{
    cs_afile af;
    int rc = cs_afile_open(&af, path, 0, err);
    if (rc)
        return rc;
    fprintf(af.f, "%s\n%s", NN_REPORT_CSV_HEADER, prov);
    for (size_t i = 0; i < s->nst; i++) {
        const nn_stage *t = &s->st[i];
        const char *text[] = {t->stage, t->label, t->model, t->reg};
        for (size_t k = 0; k < 4; k++) {
            if (k)
                fputc(',', af.f);
            cs_csv_field(af.f, text[k]);
        }
        csv_num(af.f, t->lambda, isfinite(t->lambda), -1);
        fprintf(af.f, ",%d", t->epochs);
        csv_num(af.f, t->train_acc, t->train_acc >= 0, 6);
        csv_num(af.f, t->train_loss, isfinite(t->train_loss), 6);
        csv_num(af.f, t->test_acc, t->test_acc >= 0, 6);
        csv_num(af.f, t->test_loss, isfinite(t->test_loss), 6);
        fprintf(af.f, ",%.3f,%d,", t->seconds, t->partial);
        cs_csv_field(af.f, t->data[0] ? t->data : "n/a");
        fprintf(af.f, ",%s,%llu\n", t->data_hash[0] ? t->data_hash : "n/a", t->seed);
    }
    return cs_afile_commit(&af, err);
}

/* The table, its text columns as wide as their longest entry. */
static void put_table(cs_result *res, const nn_state *s)
{
    int wl = 5, wr = 3;
    for (size_t i = 0; i < s->nst; i++) {
        int l = (int)strlen(s->st[i].label), r = (int)strlen(s->st[i].reg);
        wl = l > wl ? l : wl;
        wr = r > wr ? r : wr;
    }
    cs_result_text(res, "%-12s %-*s %-5s %-*s %7s %6s %9s %10s %8s %9s %8s\n", "stage", wl,
                   "label", "model", wr, "reg", "lambda", "epochs", "train_acc", "train_loss",
                   "test_acc", "test_loss", "seconds");
    for (size_t i = 0; i < s->nst; i++) {
        const nn_stage *t = &s->st[i];
        char b[6][32];
        cs_result_text(res, "%-12s %-*s %-5s %-*s %7s %6d %9s %10s %8s %9s %8.1f%s\n", t->stage,
                       wl, t->label, t->model, wr, t->reg,
                       cell(b[0], 32, t->lambda, isfinite(t->lambda), -1), t->epochs,
                       cell(b[1], 32, t->train_acc, t->train_acc >= 0, 4),
                       cell(b[2], 32, t->train_loss, isfinite(t->train_loss), 4),
                       cell(b[3], 32, t->test_acc, t->test_acc >= 0, 4),
                       cell(b[4], 32, t->test_loss, isfinite(t->test_loss), 4), t->seconds,
                       t->partial ? " (partial)" : "");
    }
    cs_result_text(res, "(train: the batches of the last epoch, in training mode; test: the "
                        "test images evaluated; reg, lambda: what the network was trained "
                        "with)\n");
}

/* Stages that share a label (the same pipeline step run with several
 * seeds): the test accuracy's mean, sample std, min and max over those
 * with a measured accuracy, labels in order of first appearance. */
typedef struct label_stats {
    const char *label;
    int runs;
    double mean, std, min, max;
} label_stats;

static int label_summary(const nn_state *s, size_t i, label_stats *out)
{
    const char *label = s->st[i].label;
    if (!label[0])
        return 0;
    for (size_t j = 0; j < i; j++)
        if (!strcmp(s->st[j].label, label))
            return 0; /* summarized at its first appearance */
    double sum = 0, sq = 0, lo = INFINITY, hi = -INFINITY;
    int n = 0;
    for (size_t j = i; j < s->nst; j++) {
        const nn_stage *t = &s->st[j];
        if (strcmp(t->label, label) || t->test_acc < 0)
            continue;
        n++;
        sum += t->test_acc;
        lo = fmin(lo, t->test_acc);
        hi = fmax(hi, t->test_acc);
    }
    if (n < 2)
        return 0;
    double mean = sum / n;
    for (size_t j = i; j < s->nst; j++)
        if (!strcmp(s->st[j].label, label) && s->st[j].test_acc >= 0)
            sq += (s->st[j].test_acc - mean) * (s->st[j].test_acc - mean);
    *out = (label_stats){label, n, mean, sqrt(sq / (n - 1)), lo, hi};
    return 1;
}

static void summary_json(FILE *json, FILE *text, const void *ctx)
{
    (void)text;
    const nn_state *s = ctx;
    int any = 0;
    fputc('[', json);
    for (size_t i = 0; i < s->nst; i++) {
        label_stats ls;
        if (!label_summary(s, i, &ls))
            continue;
        int first = 1;
        fputs(any++ ? ",{" : "{", json);
        cs_json_str_member(json, &first, "label", ls.label);
        cs_json_num_member(json, &first, "runs", ls.runs);
        cs_json_num_member(json, &first, "test_accuracy_mean", ls.mean);
        cs_json_num_member(json, &first, "test_accuracy_std", ls.std);
        cs_json_num_member(json, &first, "test_accuracy_min", ls.min);
        cs_json_num_member(json, &first, "test_accuracy_max", ls.max);
        fputc('}', json);
    }
    fputc(']', json);
}

/* The summary table under the stages, when some label repeats. */
static void put_summary(cs_result *res, const nn_state *s)
{
    int wl = 5, any = 0;
    for (size_t i = 0; i < s->nst; i++) {
        int l = (int)strlen(s->st[i].label);
        wl = l > wl ? l : wl;
    }
    for (size_t i = 0; i < s->nst; i++) {
        label_stats ls;
        if (!label_summary(s, i, &ls))
            continue;
        if (!any++)
            cs_result_text(res, "\nstages with the same label (test accuracy over the runs; "
                                "std: sample standard deviation)\n%-*s %4s %8s %8s %8s %8s\n",
                           wl, "label", "runs", "mean", "std", "min", "max");
        cs_result_text(res, "%-*s %4d %8.4f %8.4f %8.4f %8.4f\n", wl, ls.label, ls.runs, ls.mean,
                       ls.std, ls.min, ls.max);
    }
}

int nn_cmd_report(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    nn_state *s = nn_state_get(in, err);
    if (!s)
        return CS_ENOMEM;
    const char *outf = cs_arg_text(cl, "out", NULL);
    if (outf) {
        char path[4096], prov[4096];
        cs_provenance(in, cl, 0, prov, sizeof prov);
        int rc = cs_interp_path(in, outf, path, sizeof path, err);
        if (!rc)
            rc = write_csv(s, path, prov, err);
        if (rc) {
            cs_arg_blame(in, cl, "out", 0);
            return rc;
        }
    }
    put_table(res, s);
    put_summary(res, s);
    cs_result_text_human_only(res);
    cs_result_json_written(res, "_stages", stages_json, s);
    cs_result_json_written(res, "_summary", summary_json, s);
    if (outf)
        cs_result_str(res, "out", outf);
    return CS_OK;
}
