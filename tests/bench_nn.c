/* bench_nn.c — `make bench`: network training speed on the CPU (one
 * OpenBLAS thread): seconds per Fashion-MNIST epoch (extrapolated from
 * `limit` images), images/s, achieved GFLOP/s against this machine's SGEMM
 * peak measured in the same run, and the regularizer's overhead (an epoch
 * with reg=bin against reg=none). Uses the Fashion-MNIST package when
 * present, else synthetic images of the same shape. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cs_blas.h"
#include "cs_nn.h"
#include "cs_rng.h"
#include "nn_backend.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double sgemm_peak(void)
{
    int n = 768;
    float *a = malloc((size_t)n * n * 4), *b = malloc((size_t)n * n * 4),
          *c = malloc((size_t)n * n * 4);
    for (size_t i = 0; i < (size_t)n * n; i++) {
        a[i] = (float)(i % 7) * 0.1f;
        b[i] = (float)(i % 5) * 0.1f;
    }
    double best = 0;
    for (int rep = 0; rep < 5; rep++) {
        double t = now_s();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
        t = now_s() - t;
        double g = 2.0 * n * n * (double)n / t * 1e-9;
        if (g > best)
            best = g;
    }
    free(a);
    free(b);
    free(c);
    return best;
}

/* Flops per image of one training step's products: forward 2·MACs, the
 * weight gradient 2·MACs, the input gradient 2·MACs for every weight layer
 * but the first (nothing flows back into the image). */
static double flops_per_image(cs_nn *nn)
{
    double f = 0;
    for (size_t i = 0; i < cs_nn_wlayer_count(nn); i++) {
        cs_nn_wlayer_info li;
        cs_nn_wlayer(nn, i, &li);
        double pos = 1;   /* output positions: 28², 28², 14², 14² for conv1..4 */
        if (!strncmp(li.name, "conv", 4))
            pos = li.name[4] <= '2' ? 784 : 196;
        f += (i == 0 ? 4.0 : 6.0) * (double)li.rows * (double)li.cols * pos;
    }
    return f;
}

typedef struct timing {
    double best;      /* fastest epoch (s) */
    double last;      /* the latest epoch (s) */
    double reg_share; /* regularizer time / rest of the fastest epoch */
} timing;

/* One epoch on d; records its seconds and the regularizer's share. */
static int epoch(cs_nn *nn, const cs_nn_data *d, cs_reg *reg, timing *t)
{
    cs_nn_train_opts o = {.epochs = 1, .batch = 128, .reg = reg, .lambda = reg ? 10 : 0};
    cs_nn_train_report rep;
    cs_err err;
    if (cs_nn_train(nn, d, &o, &rep, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    t->last = rep.seconds;
    if (rep.seconds < t->best) {
        t->best = rep.seconds;
        t->reg_share = rep.reg_seconds / (rep.seconds - rep.reg_seconds);
    }
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void print_timing(const char *title, cs_nn *nn, const cs_nn_data *d, double secs,
                         double peak)
{
    double n = (double)(d->n / 128 * 128), ips = n / secs;
    double gflops = flops_per_image(nn) * ips * 1e-9;
    printf("%-28s %8.2f s/epoch(60k) %9.0f img/s %7.1f GFLOP/s (%4.1f%% of sgemm peak)\n", title,
           secs * 60000.0 / n, ips, gflops, 100 * gflops / peak);
}

/* Epochs without and with the regularizer in adjacent pairs (so both see the
 * same load on a shared machine; the order alternates to cancel drift),
 * after a warm-up. Throughput and overhead: the fastest epoch of each (the
 * least disturbed by other load); the pairs' ratios are printed beside it to
 * show the spread on this machine. */
#define MAX_REPS 16
static int run_pair(const char *name, cs_nn_config *cfg, const cs_nn_data *d, cs_reg *reg,
                    double peak, int reps, double *overhead, double *share)
{
    cs_nn *a, *b;
    cs_err err;
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    if (cs_nn_new(&a, cfg, &err) || cs_nn_new(&b, cfg, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    timing t0 = {1e30, 0, 0}, t1 = {1e30, 0, 0}, warm = {1e30, 0, 0};
    double ratio[MAX_REPS];
    int rc = epoch(a, d, NULL, &warm) || epoch(b, d, reg, &warm);
    for (int k = 0; k < reps && !rc; k++) {
        rc = k % 2 ? epoch(b, d, reg, &t1) || epoch(a, d, NULL, &t0)
                   : epoch(a, d, NULL, &t0) || epoch(b, d, reg, &t1);
        ratio[k] = t1.last / t0.last;
    }
    if (!rc) {
        char title[64];
        snprintf(title, sizeof title, "%s none", name);
        print_timing(title, a, d, t0.best, peak);
        snprintf(title, sizeof title, "%s reg=bin", name);
        print_timing(title, b, d, t1.best, peak);
        qsort(ratio, (size_t)reps, sizeof *ratio, cmp_double);
        double med = reps % 2 ? ratio[reps / 2] : 0.5 * (ratio[reps / 2 - 1] + ratio[reps / 2]);
        printf("%-28s reg=bin / none per pair: median %.3f, range %.3f..%.3f (%d pairs)\n", name,
               med, ratio[0], ratio[reps - 1], reps);
        *overhead = 100 * (t1.best / t0.best - 1);
        *share = 100 * t1.reg_share;
    }
    cs_nn_free(a);
    cs_nn_free(b);
    return rc;
}

int main(void)
{
    cs_blas_set_threads(1);
    cs_err err;
    cs_nn_data full, mlpd, cnnd;
    int synthetic = 0;
    if (cs_nn_data_load(&full, CS_NN_DEFAULT_DATA, "train", 0, &err)) {
        synthetic = 1;
        full.n = 20000;
        full.images = malloc(full.n * CS_NN_PIXELS);
        full.labels = malloc(full.n);
        cs_rng r;
        cs_rng_init(&r, 1, 0);
        for (size_t i = 0; i < full.n * CS_NN_PIXELS; i++)
            full.images[i] = (uint8_t)cs_rng_below(&r, 256);
        for (size_t i = 0; i < full.n; i++)
            full.labels[i] = (uint8_t)(i % 10);
    }
    mlpd = full;
    mlpd.n = full.n < 20000 ? full.n : 20000;
    cnnd = full;
    cnnd.n = full.n < 2560 ? full.n : 2560;
    double peak = sgemm_peak();
    printf("data: %s; one OpenBLAS thread; SGEMM peak (768^3): %.1f GFLOP/s\n",
           synthetic ? "synthetic" : "Fashion-MNIST", peak);
    cs_reg *bin;
    if (cs_reg_new(&bin, "bin", NULL, 0, 1, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    cs_nn_config mlp = {.kind = CS_NN_MLP, .nhidden = 2, .hidden = {256, 256}, .seed = 1};
    cs_nn_config cnn = {.kind = CS_NN_CNN, .seed = 1};
    double om, oc, sm, sc;
    int rc = run_pair("mlp 784-256-256-10", &mlp, &mlpd, bin, peak, 9, &om, &sm) ||
             run_pair("cnn (default)", &cnn, &cnnd, bin, peak, 5, &oc, &sc);
    if (!rc) {
        printf("regularizer overhead (bin vs none, fastest epochs): mlp %+.1f%%, cnn %+.1f%% "
               "(target < 5%%)%s\n",
               om, oc, om < 5 && oc < 5 ? "" : "  WARN: over target (shared machine? rerun)");
        printf("time in the regularizer itself, per epoch: mlp %.1f%%, cnn %.1f%% of the rest\n",
               sm, sc);
    }
    cs_reg_free(bin);
    cs_nn_data_free(&full);
    return rc;
}
