/* test_reports.c — what the experiment and network commands show: sweep's
 * summary table (the CSV only in out=) and its JSON rows; quantize's
 * per-layer summary (every alpha only with verbose=on or in JSON), hist's
 * text histogram, nnreport's columns and JSON objects, the exclusion help
 * and behaviour; the target sets landscapes report for eig, fixed, equ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_landscape.h"
#include "cs_nn.h"
#include "cs_reg.h"
#include "interp_util.h"

static int have_data(void)
{
    return access(CS_NN_DEFAULT_DATA "/train-images-idx3-ubyte.gz", R_OK) == 0;
}

static char *dup_ok(fixture *f, const char *line) { return strdup(ok(f, line)); }

/* ------------------------------------------------------------ sweep */

#define SWEEP "sweep kind=bin methods=bin,linf N=20 gamma=0.5,0.7 trials=6 restarts=2"

/* The terminal gets the table (each cell the CSV's success ± stderr), the
 * CSV goes only into out=. */
static void test_sweep_table(void **state)
{
    (void)state;
    fixture *f = fixture_new(0, 3, 1, 1);
    char *out = dup_ok(f, SWEEP " out=s.csv");
    assert_non_null(strstr(out, "sweep bin recovery, N = 20, 6 trials per point, up to 2 "
                                "starts, 10000 iterations, stop oracle\n"
                                "gamma   bin             linf\n"));
    assert_null(strstr(out, "method,kind"));
    char path[128];
    snprintf(path, sizeof path, "%s/s.csv", f->dir);
    char *csv = slurp_csv(path);
    assert_non_null(csv);
    /* every CSV row's success and stderr, formatted as the table shows them */
    int rows = 0;
    for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        char method[16];
        double gamma, success, se;
        assert_int_equal(sscanf(line + 1, "%15[^,],bin,20,%*d,%lf,0,6,%lf,%lf", method, &gamma,
                                &success, &se), 4);
        char cell[64], row_start[16];
        snprintf(cell, sizeof cell, "%.3f ± %.3f", success, se);
        snprintf(row_start, sizeof row_start, "\n%-8g", gamma);
        const char *row = strstr(out, row_start);
        assert_non_null(row);
        const char *row_end = strchr(row + 1, '\n');
        const char *at = strstr(row, cell);
        assert_true(at && at < row_end);
        rows++;
    }
    assert_int_equal(rows, 4);
    free(csv);
    free(out);
    /* without out= no file, and no CSV on the terminal either */
    out = dup_ok(f, SWEEP);
    assert_null(strstr(out, "method,kind"));
    assert_non_null(strstr(out, "(success rate ± its standard error over the trials)"));
    free(out);
    fixture_free(f);
}

/* JSON: the rows as objects, no text blob; a K sweep's caption names M. */
static void test_sweep_json_rows(void **state)
{
    (void)state;
    fixture *f = fixture_new(1, 3, 1, 0);
    char *out = dup_ok(f, SWEEP);
    assert_null(strstr(out, "\"text\":"));
    int objs = 0;
    for (const char *p = out; (p = strstr(p, "{\"method\":")); p++)
        objs++;
    assert_int_equal(objs, 4);
    assert_non_null(strstr(out, "\"rows\":[{\"method\":\"bin\",\"N\":20,\"M\":10,\"gamma\":0.5,"
                                "\"K\":0,\"trials\":6,\"success\":"));
    /* the rows agree with the success curves */
    double s_bin = jnum(strstr(out, "\"rows\":"), "success");
    const char *curve = strstr(out, "\"success_bin\":[");
    assert_non_null(curve);
    assert_true(strtod(curve + strlen("\"success_bin\":["), NULL) == s_bin);
    free(out);
    fixture_free(f);
    f = fixture_new(0, 3, 1, 0);
    out = dup_ok(f, "sweep kind=osb methods=osb N=20 M=15 K=4,8 trials=2");
    assert_non_null(strstr(out, "sweep osb recovery, N = 20, M = 15, 2 trials per point, up to 1 "
                                "start, 10000 iterations, stop oracle\nK "));
    free(out);
    fixture_free(f);
}

/* ------------------------------------------------------------ landscape targets */

/* Every target piece eig, fixed and equ report lies in the zero set: the
 * regularizer vanishes at its ends and middle (to rounding). */
static void test_special_targets_are_zeros(void **state)
{
    (void)state;
    static const struct {
        const char *reg, *key, *val;
        size_t pieces;
    } cases[] = {{"eig", "C", "2,1;1,3", 3}, {"eig", "C", "1,2;0,3", 3},
                 {"fixed", "alpha", "0.75", 4}, {"equ", "B", "2", 2},
                 {"eig", "C", "0,-1;1,0", 1}};  /* a rotation: only x = 0 */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cs_reg *reg;
        cs_err err;
        cs_param prm = {cases[c].key, cases[c].val};
        assert_int_equal(cs_reg_new(&reg, cases[c].reg, &prm, 1, 1, &err), 0);
        cs_landscape_spec sp = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .nx = 11, .ny = 11};
        cs_landscape *l;
        assert_int_equal(cs_landscape_new(&l, reg, &sp, &err), 0);
        if (l->ntarget != cases[c].pieces)
            fail_msg("%s %s: %zu target pieces, want %zu", cases[c].reg, cases[c].val, l->ntarget,
                     cases[c].pieces);
        for (size_t k = 0; k < l->ntarget; k++) {
            const cs_landscape_curve *t = &l->target[k];
            for (int q = 0; q <= 2; q++) {
                double w = t->n == 2 ? q / 2.0 : 0.0;
                double x[2] = {t->x[0] + w * (t->x[1] - t->x[0]),
                               t->y[0] + w * (t->y[1] - t->y[0])};
                double v;
                assert_int_equal(cs_reg_eval(reg, x, 1, 2, &v, NULL, &err), 0);
                if (fabs(v) > 1e-12 * (1 + pow(hypot(x[0], x[1]), 4)))
                    fail_msg("%s %s: piece %zu at (%g, %g): value %g", cases[c].reg, cases[c].val, k, x[0],
                             x[1], v);
            }
        }
        cs_landscape_free(l);
        cs_reg_free(reg);
    }
    /* and `landscape` reports them */
    fixture *f = fixture_new(1, 1, 1, 1);
    ok(f, "reg fixed");
    assert_true(jnum(ok(f, "landscape res=21 out=l.csv"), "targets") == 4);
    ok(f, "reg equ B=2");
    assert_true(jnum(ok(f, "landscape res=21 out=l.csv"), "targets") == 2);
    fixture_free(f);
}

/* ------------------------------------------------------------ networks */

#define TRAIN "train model=mlp limit=256 epochs=1 hidden=16,16"

static void test_quantize_summary(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    fixture *t = fixture_new(0, 5, 1, 0), *j = fixture_new(1, 5, 1, 0);
    ok(t, TRAIN " reg=bin lambda=10");
    ok(j, TRAIN " reg=bin lambda=10");
    char *text = dup_ok(t, "quantize bin limit=100");
    char *json = dup_ok(j, "quantize bin limit=100");
    assert_non_null(strstr(text, "quantized to binary per row/channel: fc1, fc2; fc3 left full "
                                 "precision (exclude=default)\n"));
    assert_null(strstr(text, "alpha:"));       /* no per-row alphas by default */
    assert_null(strstr(text, "near_frac"));
    /* near1% is the JSON fraction in percent */
    const char *fc1 = strstr(text, "\nfc1 ");
    assert_non_null(fc1);
    char want[32];
    snprintf(want, sizeof want, " %.2f%% ", 100.0 * jnum(json, "fc1.near_frac"));
    const char *at = strstr(fc1, want);
    assert_true(at && at < strchr(fc1 + 1, '\n'));
    /* JSON: every alpha, no text blob */
    assert_non_null(strstr(json, "\"fc1.alpha\":["));
    assert_null(strstr(json, "\"text\":"));
    free(text);
    free(json);
    /* verbose=on: the alphas on the terminal, 16 of them for fc1 */
    ok(t, TRAIN);
    text = dup_ok(t, "quantize ter limit=100 verbose=on");
    const char *a = strstr(text, "\nfc1.alpha: ");
    assert_non_null(a);
    int n = 0;
    for (const char *p = a + strlen("\nfc1.alpha:"); *p && *p != '\n'; p++)
        n += *p == ' ';
    assert_int_equal(n, 16);
    free(text);
    fixture_free(t);
    fixture_free(j);
}

/* hist: a text histogram whose counts add up to the layer's weights. */
static void test_hist_text(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    fixture *f = fixture_new(0, 5, 1, 1);
    ok(f, TRAIN);
    char *out = dup_ok(f, "hist layer=fc1");
    assert_non_null(strstr(out, "fc1, all 16 rows: 12544 weights, "));
    const char *p = strstr(out, "      from         to     count\n");
    assert_non_null(p);
    p = strchr(p, '\n') + 1;
    unsigned long long sum = 0;
    int rows = 0;
    double lo, hi;
    unsigned long long c;
    while (sscanf(p, "%lf %lf %llu", &lo, &hi, &c) == 3) {
        sum += c;
        rows++;
        p = strchr(p, '\n') + 1;
    }
    assert_int_equal(sum, 12544);
    assert_int_equal(rows, 20);   /* 60 bins, 3 to a row */
    assert_non_null(strstr(p, "(60 bins shown 3 to a row"));
    assert_null(strstr(out, "edges:"));
    free(out);
    /* out=: the counts under the header and how they were made */
    ok(f, "hist layer=fc1 bins=4 out=h.csv");
    char path[128];
    snprintf(path, sizeof path, "%s/h.csv", f->dir);
    char *csv = slurp(path, NULL);
    assert_non_null(csv);
    assert_memory_equal(csv, "snapshot,step,epoch,layer,row,bin_lo,bin_hi,count\n# csreg: ", 59);
    assert_non_null(strstr(csv, ")\n# seed: 5\n# command: hist layer=fc1 bins=4 out=h.csv\n0,"));
    free(csv);
    fixture_free(f);
}

/* nnreport: separate train and test columns, the network's reg on every
 * row, JSON objects that agree with what each stage printed. */
static void test_nnreport(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    fixture *f = fixture_new(1, 5, 1, 1);
    char *tr = dup_ok(f, TRAIN " reg=bin lambda=10 label=a-rather-long-label-for-bin");
    ok(f, "evaluate limit=100");
    ok(f, "save model m.csnn");
    ok(f, "quantize bin limit=100");
    char *ft = dup_ok(f, "finetune epochs=1 limit=256 test_limit=100");
    ok(f, "load model m.csnn");
    char *rep = dup_ok(f, "nnreport out=r.csv");
    assert_null(strstr(rep, "\"text\":"));
    const char *st = strstr(rep, "\"stages\":[");
    assert_non_null(st);
    /* the train row: its train accuracy and loss are the train command's */
    assert_true(jnum(st, "train_accuracy") == jnum(tr, "train_accuracy"));
    assert_true(jnum(st, "train_loss") == jnum(tr, "loss"));
    assert_non_null(strstr(st, "\"test_accuracy\":null,\"test_loss\":null"));
    /* evaluate after a bin training: the network's reg and lambda */
    const char *ev = strstr(st, "{\"stage\":\"evaluate\"");
    assert_non_null(ev);
    assert_non_null(strstr(ev, "\"reg\":\"bin\",\"lambda\":10,"));
    /* finetune: train and test apart */
    const char *fr = strstr(st, "{\"stage\":\"finetune\"");
    assert_non_null(fr);
    assert_true(jnum(fr, "train_loss") == jnum(ft, "loss"));
    assert_true(jnum(fr, "test_loss") == jnum(ft, "test_loss"));
    assert_true(jnum(fr, "test_accuracy") == jnum(ft, "accuracy"));
    free(tr);
    free(ft);
    free(rep);
    char path[128];
    snprintf(path, sizeof path, "%s/r.csv", f->dir);
    /* how it was made, after the header */
    char *csv = slurp(path, NULL);
    assert_non_null(strstr(csv, ",partial,data,data_hash,seed\n# csreg: "));
    assert_non_null(strstr(csv, ")\n# seed: 5\n# command: nnreport out=r.csv\ntrain,"));
    free(csv);
    csv = slurp_csv(path);
    assert_non_null(csv);
    assert_true(!strncmp(csv, "stage,label,model,reg,lambda,epochs,train_accuracy,train_loss,"
                              "test_accuracy,test_loss,seconds,partial,data,data_hash,seed\n",
                          122));
    assert_non_null(strstr(csv, "\nevaluate,,mlp,bin,10,0,,,"));
    free(csv);
    /* text: the columns line up whatever the label's length */
    ok(f, "set json off");
    char *text = dup_ok(f, "nnreport");
    const char *hdr_model = strstr(text, "model");
    assert_non_null(hdr_model);
    size_t col = (size_t)(hdr_model - text);
    int lines = 0;
    for (const char *l = strchr(text, '\n') + 1; *l && *l != '('; l = strchr(l, '\n') + 1) {
        assert_int_equal(strncmp(l + col, "mlp ", 4), 0);
        lines++;
    }
    assert_int_equal(lines, 4);
    free(text);
    fixture_free(f);
}

/* Stages run under one label with several seeds: nnreport's summary is
 * the mean and sample std of their test accuracies. */
static void test_nnreport_seeds(void **state)
{
    (void)state;
    if (!have_data()) {
        skip();
        return;
    }
    fixture *f = fixture_new(1, 5, 1, 1);
    double acc[3];
    for (int k = 0; k < 3; k++) {
        char line[64];
        snprintf(line, sizeof line, "seed %d", k + 1);
        ok(f, line);
        ok(f, TRAIN " new=on label=pretrain");
        char *ev = dup_ok(f, "evaluate limit=200 label=fp");
        acc[k] = jnum(ev, "accuracy");
        free(ev);
    }
    assert_false(acc[0] == acc[1] && acc[1] == acc[2]); /* the seeds differ */
    double mean = (acc[0] + acc[1] + acc[2]) / 3, sq = 0;
    for (int k = 0; k < 3; k++)
        sq += (acc[k] - mean) * (acc[k] - mean);
    char *rep = dup_ok(f, "nnreport");
    const char *sum = strstr(rep, "\"summary\":[{\"label\":\"fp\",\"runs\":3,");
    assert_non_null(sum);
    assert_null(strstr(sum, "pretrain")); /* train rows have no test accuracy */
    assert_true(fabs(jnum(sum, "test_accuracy_mean") - mean) < 1e-12);
    assert_true(fabs(jnum(sum, "test_accuracy_std") - sqrt(sq / 2)) < 1e-12);
    assert_true(jnum(sum, "test_accuracy_min") == fmin(acc[0], fmin(acc[1], acc[2])));
    free(rep);
    ok(f, "set json off");
    char *text = dup_ok(f, "nnreport");
    char row[128];
    snprintf(row, sizeof row, "\nfp          3 %8.4f %8.4f", mean, sqrt(sq / 2));
    assert_non_null(strstr(text, "stages with the same label (test accuracy over the runs"));
    assert_non_null(strstr(text, row));
    free(text);
    fixture_free(f);
}

/* The exclusion: train and quantize say the same, and the cnn leaves its
 * first convolution and last fc at full precision, the mlp its last fc. */
static void test_exclusion_help_and_behaviour(void **state)
{
    (void)state;
    fixture *f = fixture_new(0, 5, 1, 0);
    char *a = dup_ok(f, "help train"), *b = dup_ok(f, "help quantize");
    const char *ea = strstr(a, "\n  exclude "), *eb = strstr(b, "\n  exclude ");
    assert_true(ea && eb);
    const char *ha = strstr(ea, "layers left"), *hb = strstr(eb, "layers left");
    assert_true(ha && hb);
    assert_int_equal(strncmp(ha, hb, (size_t)(strchr(ha, '\n') - ha)), 0);
    assert_non_null(strstr(ha, "a cnn's conv1 and fc2"));
    free(a);
    free(b);
    if (!have_data()) {
        fixture_free(f);
        return;
    }
    ok(f, "train model=cnn limit=64 epochs=1 reg=bin lambda=1");
    char *q = dup_ok(f, "quantize bin limit=50 evaluate=off");
    assert_non_null(strstr(q, "quantized to binary per row/channel: conv2, conv3, conv4, fc1; "
                              "conv1, fc2 left full precision (exclude=default)"));
    free(q);
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_table),
        cmocka_unit_test(test_sweep_json_rows),
        cmocka_unit_test(test_special_targets_are_zeros),
        cmocka_unit_test(test_quantize_summary),
        cmocka_unit_test(test_hist_text),
        cmocka_unit_test(test_nnreport),
        cmocka_unit_test(test_nnreport_seeds),
        cmocka_unit_test(test_exclusion_help_and_behaviour),
    };
    return cmocka_run_group_tests_name("reports", tests, NULL, NULL);
}
