/* bench_nn.c — `make bench`: network training speed on the CPU (one
 * OpenBLAS thread), beside PyTorch on the same machine for the mlp, the cnn
 * and ResNet-20 (1024 images padded to 32×32, on 1 and 2 threads):
 * seconds per Fashion-MNIST epoch (extrapolated from
 * `limit` images), images/s, achieved GFLOP/s against this machine's SGEMM
 * peak measured in the same run, the regularizer's overhead (an epoch
 * with reg=bin against reg=none), and the cost of watching a run (the
 * TUI's live frames: histograms, scales, readiness, test accuracy) beside
 * the epoch time. Uses the Fashion-MNIST package when present, else
 * synthetic images of the same shape (no watching then: `train` reads the
 * package).
 * `bench_nn watch [DEVICE]`: only the cost of watching, on DEVICE (cpu,
 * cuda or auto; default cpu). CSREG_FASHION_MNIST=DIR: the data folder
 * instead of the package's (build/gpu/run.sh uses both). */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cs_blas.h"
#include "cs_interp.h"
#include "cs_nn.h"
#include "cs_par.h"
#include "cs_rng.h"
#include "cs_train_view.h"
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
 * but the first (nothing flows back into the image); a layer's MACs are
 * rows·cols per output position (the cnn's conv1..4: 28², 28², 14², 14²). */
static double flops_per_image(cs_nn *nn)
{
    double f = 0;
    for (size_t i = 0; i < cs_nn_wlayer_count(nn); i++) {
        cs_nn_wlayer_info li;
        cs_nn_wlayer(nn, i, &li);
        f += (i == 0 ? 4.0 : 6.0) * (double)li.rows * (double)li.cols * (double)li.positions;
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

/* ------------------------------------------------------------------ PyTorch, side by side */

/* PyTorch's fastest epoch of the same network on the same images
 * (tests/torch_epoch.py through Debian's /usr/bin/python3): seconds, or NAN
 * with the reason in why (PyTorch not installed, no data). */
static double torch_epoch(const char *data, const char *model, size_t images, int threads,
                          char *why, size_t len)
{
    if (!data) {
        snprintf(why, len, "no Fashion-MNIST (the bench ran on synthetic images)");
        return NAN;
    }
    if (access("tests/torch_epoch.py", R_OK) != 0) {
        snprintf(why, len, "tests/torch_epoch.py not found (run make bench from the repository)");
        return NAN;
    }
    if (system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) {
        snprintf(why, len, "PyTorch not installed (/usr/bin/python3 -c 'import torch' failed; "
                 "apt-get install python3-torch)");
        return NAN;
    }
    char cmd[2048], line[256] = "";
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 tests/torch_epoch.py '%s' %s cpu %zu --threads %d --epochs 4 "
             "--hidden 256,256 --seconds 2>&1", data, model, images, threads);
    FILE *p = popen(cmd, "r");
    if (!p) {
        snprintf(why, len, "cannot run /usr/bin/python3");
        return NAN;
    }
    while (fgets(line, sizeof line, p))
        ;   /* the last line is the answer */
    int rc = pclose(p);
    char *end;
    double s = strtod(line, &end);
    if (rc != 0 || end == line || !(s > 0)) {
        snprintf(why, len, "tests/torch_epoch.py failed: %.120s", line);
        return NAN;
    }
    return s;
}

/* csreg's fastest of three epochs after a warm-up, on `threads` threads
 * (as `--threads N` trains: the CPU backend's tasks, OpenBLAS on one) */
static int csreg_epoch(cs_nn_config *cfg, const cs_nn_data *d, int threads, double *secs)
{
    cs_nn *nn;
    cs_err err;
    if (cs_nn_new(&nn, cfg, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    int saved = cs_par_hold_threads(threads);
    timing t = {1e30, 0, 0}, warm = {1e30, 0, 0};
    int rc = epoch(nn, d, NULL, &warm);
    for (int k = 0; k < 3 && !rc; k++)
        rc = epoch(nn, d, NULL, &t);
    cs_par_restore_threads(saved);
    cs_nn_free(nn);
    *secs = t.best;
    return rc;
}

/* Both peers on one and two threads: seconds per epoch, the ratio, and
 * csreg's GFLOP/s as a share of the SGEMM peak of this run; only: one
 * network (mlp, cnn, resnet20) or NULL for all. */
static int peers(cs_nn_config *mlp, const cs_nn_data *mlpd, cs_nn_config *cnn,
                 const cs_nn_data *cnnd, cs_nn_config *res, const cs_nn_data *resd, double peak,
                 const char *data, const char *only)
{
    printf("csreg and PyTorch side by side, the same networks, images and batch (fastest of 3 "
           "epochs after a warm-up; PyTorch: Debian's python3-torch, torch.set_num_threads):\n");
    printf("%-20s %7s %10s %10s %12s %9s\n", "network", "threads", "csreg s", "PyTorch s",
           "csreg/torch", "% peak");
    struct {
        const char *name, *model;
        cs_nn_config *cfg;
        const cs_nn_data *d;
    } nets[] = {{"mlp 784-256-256-10", "mlp", mlp, mlpd}, {"cnn (default)", "cnn", cnn, cnnd},
                {"resnet20 (32x32)", "resnet20", res, resd}};
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++)
        for (int th = 1; th <= 2 && (!only || !strcmp(only, nets[i].model)); th++) {
            double cs, ts;
            char why[256] = "";
            if (csreg_epoch(nets[i].cfg, nets[i].d, th, &cs))
                return 1;
            ts = torch_epoch(data, nets[i].model, nets[i].d->n, th, why, sizeof why);
            cs_nn *nn;
            cs_err err;
            if (cs_nn_new(&nn, nets[i].cfg, &err))
                return 1;
            double n = (double)(nets[i].d->n / 128 * 128);
            double gf = flops_per_image(nn) * n / cs * 1e-9;
            cs_nn_free(nn);
            if (isnan(ts))
                printf("%-20s %7d %10.2f %10s %12s %8.1f%%  (PyTorch: %s)\n", nets[i].name, th,
                       cs, "-", "-", 100 * gf / peak, why);
            else
                printf("%-20s %7d %10.2f %10.2f %12.2f %8.1f%%\n", nets[i].name, th, cs, ts,
                       cs / ts, 100 * gf / peak);
        }
    return 0;
}

/* ------------------------------------------------------------------ watching */

/* the data folder (CSREG_FASHION_MNIST) and device (`watch DEVICE`) when
 * given, appended to the `train` lines */
static const char *bench_data_dir, *bench_device;

static void count_frames(void *ctx, const cs_train_frame *f, cs_train_want *want)
{
    (void)f;
    ++*(long *)ctx;
    want->bins = 34;   /* the Histogram panel's at 80 columns */
}

/* The number after "key": in a JSON line, NAN when absent. */
static double json_num(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

/* One epoch of `line` through the interpreter, watched or not: its
 * seconds, the watch's (all of it, and the test accuracy's part). */
static int watched_epoch(cs_interp *in, FILE *out, const char *line, int watch, long *frames,
                         double *secs, double *wsecs, double *tsecs)
{
    cs_interp_set_watch(in, watch ? count_frames : NULL, frames, 1);
    cs_err err;
    int col;
    long start = ftell(out);
    if (cs_interp_exec(in, line, &col, &err)) {
        fprintf(stderr, "%s: %s\n", line, err.msg);
        return 1;
    }
    fflush(out);
    char buf[8192] = "";
    fseek(out, start, SEEK_SET);
    size_t n = fread(buf, 1, sizeof buf - 1, out);
    buf[n] = '\0';
    fseek(out, 0, SEEK_END);
    *secs = json_num(buf, "seconds");
    *wsecs = watch ? json_num(buf, "watch_seconds") : 0;
    *tsecs = watch ? json_num(buf, "watch_test_seconds") : 0;
    return !(*secs > 0);
}

/* Runs of two epochs watched and not in adjacent pairs (the order
 * alternating), after a warm-up that loads the data. The watch's own clock
 * decides (pairs of runs differ by ±10% on a shared machine; their ratio
 * is printed for the spread only): frames as a share of the time (they
 * come at a rate, whatever the epoch), and the test accuracy per epoch end
 * (start and each epoch end) as a share of a full 60000-image epoch,
 * scaled from this one's time. */
static int watch_cost(const char *name, const char *cmd, int reps, size_t images)
{
    char line[4096];
    snprintf(line, sizeof line, "%s%s%s%s%s", cmd, bench_data_dir ? " data=" : "",
             bench_data_dir ? bench_data_dir : "", bench_device ? " device=" : "",
             bench_device ? bench_device : "");
    FILE *out = tmpfile();
    cs_interp_opts opts = {.json = 1, .seed = 1, .out = out};
    cs_interp *in;
    cs_err err;
    if (!out || cs_interp_new(&in, &opts, &err)) {
        fprintf(stderr, "watch_cost: cannot start an interpreter\n");
        return 1;
    }
    enum { EPOCHS = 2 };
    long frames = 0;
    double s, w, t, fshare[MAX_REPS], ratio[MAX_REPS], epoch = 0, test = 0, fps = 0;
    int rc = watched_epoch(in, out, line, 1, &frames, &s, &w, &t);
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    for (int k = 0; k < reps && !rc; k++) {
        double s0 = 0, s1 = 0, w1 = 0, t1 = 0;
        long f0 = frames;
        rc = k % 2 ? watched_epoch(in, out, line, 1, &frames, &s1, &w1, &t1) ||
                         watched_epoch(in, out, line, 0, &frames, &s0, &w, &t)
                   : watched_epoch(in, out, line, 0, &frames, &s0, &w, &t) ||
                         watched_epoch(in, out, line, 1, &frames, &s1, &w1, &t1);
        fshare[k] = (w1 - t1) / s1;
        ratio[k] = s1 / s0;
        epoch += s0 / EPOCHS / reps;
        test += t1 / (EPOCHS + 1) / reps;
        fps += (double)(frames - f0) / s1 / reps;
    }
    if (!rc) {
        qsort(fshare, (size_t)reps, sizeof *fshare, cmp_double);
        qsort(ratio, (size_t)reps, sizeof *ratio, cmp_double);
        double fs = fshare[reps / 2], full = epoch * 60000.0 / (double)images;
        double ts = test / full, all = fs + ts;
        printf("%-24s epoch %.2f s (%zu images): frames %.2f%% of the time (%.1f/s), test "
               "accuracy %.1f ms an epoch end (%.2f%% of a 60000-image epoch): %.2f%% in all%s\n",
               name, epoch, images, 100 * fs, fps, 1e3 * test, 100 * ts, 100 * all,
               all < 0.01 ? "" : "  WARN: over 1%");
        printf("%-24s watched / unwatched run per pair: median %.3f, range %.3f..%.3f "
               "(%d pairs; the spread of this machine)\n",
               name, ratio[reps / 2], ratio[0], ratio[reps - 1], reps);
    }
    cs_interp_free(in);
    fclose(out);
    return rc;
}

/* `bench_nn watch [DEVICE]`: only the cost of watching; `bench_nn peers
 * [mlp|cnn|resnet20]`: only csreg beside PyTorch (one network's lines). */
int main(int argc, char **argv)
{
    int only_watch = argc > 1 && !strcmp(argv[1], "watch");
    int only_peers = argc > 1 && !strcmp(argv[1], "peers");
    const char *data = getenv("CSREG_FASHION_MNIST");
    bench_data_dir = data && *data ? data : NULL;
    bench_device = only_watch && argc > 2 ? argv[2] : NULL;
    cs_blas_set_threads(1);
    cs_err err;
    cs_nn_data full, mlpd, cnnd, resd;
    int synthetic = 0;
    if (cs_nn_data_load(&full, bench_data_dir ? bench_data_dir : CS_NN_DEFAULT_DATA, "train", 0,
                        &err)) {
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
    resd = full;   /* ResNet-20: 8 steps of 128 an epoch */
    resd.n = full.n < 1024 ? full.n : 1024;
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
    cs_nn_config res = {.kind = CS_NN_RESNET20, .seed = 1, .pad = 2};
    double om, oc, sm, sc;
    int rc = !only_watch && !only_peers && (run_pair("mlp 784-256-256-10", &mlp, &mlpd, bin, peak, 9, &om, &sm) ||
                             run_pair("cnn (default)", &cnn, &cnnd, bin, peak, 5, &oc, &sc));
    if (!rc && !only_watch && !only_peers) {
        printf("regularizer overhead (bin vs none, fastest epochs): mlp %+.1f%%, cnn %+.1f%% "
               "(target < 5%%)%s\n",
               om, oc, om < 5 && oc < 5 ? "" : "  WARN: over target (shared machine? rerun)");
        printf("time in the regularizer itself, per epoch: mlp %.1f%%, cnn %.1f%% of the rest\n",
               sm, sc);
    }
    cs_reg_free(bin);
    if (!rc && !only_watch)
        rc = peers(&mlp, &mlpd, &cnn, &cnnd, &res, &resd, peak,
                   synthetic ? NULL : bench_data_dir ? bench_data_dir : CS_NN_DEFAULT_DATA,
                   only_peers && argc > 2 ? argv[2] : NULL);
    /* watching (the TUI's frames), through `train` as the TUI runs it */
    if (!rc && !synthetic && !only_peers) {
        printf("watching a run as the TUI does (frames: one layer's histogram, every layer's "
               "scales and readiness, a few a second; the test accuracy on 0.5%% of an epoch's "
               "images at the start and at each epoch end), by the watch's own clock:\n");
        rc = watch_cost("mlp 784-512-512-10", "train model=mlp epochs=2 reg=bin lambda=10", 3,
                        full.n) ||
             watch_cost("mlp 784-512-512-10 ter", "train model=mlp epochs=2 reg=ter lambda=1e4",
                        2, full.n) ||
             watch_cost("cnn", "train model=cnn limit=5120 epochs=2 reg=bin lambda=1", 2, 5120);
    }
    cs_nn_data_free(&full);
    return rc;
}
