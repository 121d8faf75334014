/* train_log.c — `train ... log=DIR` (train_log.h): the run as a run folder
 * (docs/runfolder.md). The snapshots and lines are written in the
 * training thread between steps, each file under a temporary name
 * (cs_tmp_create) renamed when whole, without fsync: a reader needs whole
 * files, not durable ones. Its cost is measured and returned. */
#include "train_log.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_args.h"
#include "cs_clock.h"
#include "cs_file.h"
#include "cs_parse.h"
#include "interp_internal.h"

struct train_log {
    char dir[4096];
    cs_nn *net;
    cs_nn_progress_fn next;       /* the callback it chains (train_watch's), or NULL */
    void *next_ctx;
    const train_watch_run *run;
    char data[4096], data_hash[16];   /* the training data as typed, its short hash */
    unsigned long long seed;          /* the session's seed */
    int epochs;
    long hist_every;
    int fd;                       /* metrics.jsonl, O_APPEND */
    float *w;                     /* scratch: the largest layer */
    size_t snapshots;
    size_t last_snap;             /* the step of the last snapshot */
    double steps_total;           /* NAN until the first step says */
    double seconds;
    int failed;
    char error[CS_ERR_MAX];
};

/* ------------------------------------------------------------------ files */

/* data[0..len) to path, under a temporary name renamed when whole. */
static int put_file(const char *path, const void *head, size_t hlen, const void *data,
                    size_t len, cs_err *err)
{
    char tmp[4300];
    int fd = cs_tmp_create(path, tmp, sizeof tmp, err);
    if (fd < 0)
        return fd;
    const void *part[2] = {head, data};
    size_t plen[2] = {hlen, len};
    int ok = 1;
    for (int k = 0; k < 2 && ok; k++)
        for (size_t done = 0; done < plen[k] && ok;) {
            ssize_t w = write(fd, (const char *)part[k] + done, plen[k] - done);
            ok = w > 0 || (w < 0 && errno == EINTR);
            done += w > 0 ? (size_t)w : 0;
        }
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        unlink(tmp);
        return cs_fail(err, CS_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    return CS_OK;
}

/* A float32 .npy (1.0, C order, the host's byte order) of rows × cols. */
static int put_npy(const char *path, const float *w, size_t rows, size_t cols, cs_err *err)
{
    const uint16_t one = 1;
    char head[128];
    int n = snprintf(head + 10, sizeof head - 10,
                     "{'descr': '%cf4', 'fortran_order': False, 'shape': (%zu, %zu), }",
                     *(const uint8_t *)&one ? '<' : '>', rows, cols);
    size_t hlen = (size_t)n;
    while ((10 + hlen + 1) % 64)   /* numpy's alignment */
        head[10 + hlen++] = ' ';
    head[10 + hlen++] = '\n';
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    head[8] = (char)(hlen & 0xff);
    head[9] = (char)(hlen >> 8);
    return put_file(path, head, 10 + hlen, w, rows * cols * sizeof *w, err);
}

/* Whether layer i is regularized under the run's exclude (the rule of
 * train_watch.c's first layer). */
static int regularized(const train_log *tl, size_t i, size_t n, const cs_nn_wlayer_info *li)
{
    cs_nn_exclude ex = tl->run->excl;
    return ex == CS_NN_EXCL_NONE    ? 1
           : ex == CS_NN_EXCL_LAST  ? i + 1 != n
           : ex == CS_NN_EXCL_FIRST ? i != 0
                                    : !li->excluded_default;
}

static int put_run_json(train_log *tl, int done, int stopped, cs_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    char model[128];
    cs_nn_describe(tl->net, model, sizeof model);
    int first = 1;
    fputc('{', f);
    cs_json_str_member(f, &first, "format", "csreg-run 1");
    cs_json_str_member(f, &first, "name", model);
    cs_json_str_member(f, &first, "writer", "csreg " CSREG_VERSION " train log=");
    cs_json_str_member(f, &first, "reg", tl->run->reg);
    fputs(",\"params\":{", f);
    int pf = 1;
    if (strcmp(tl->run->reg, "none"))
        cs_json_num_member(f, &pf, "lambda", tl->run->lambda);
    fputc('}', f);
    cs_json_num_member(f, &first, "levels", tl->run->ternary ? 3 : 2);
    cs_json_str_member(f, &first, "device", cs_nn_device(tl->net));
    cs_json_str_member(f, &first, "data", tl->data[0] ? tl->data : "n/a");
    cs_json_str_member(f, &first, "data_hash", tl->data_hash[0] ? tl->data_hash : "n/a");
    fprintf(f, ",\"seed\":%llu", tl->seed);   /* exact: seeds go past 2^53 */
    cs_json_num_member(f, &first, "epochs", tl->epochs);
    if (isfinite(tl->steps_total))
        cs_json_num_member(f, &first, "steps", tl->steps_total);
    cs_json_num_member(f, &first, "hist_every", (double)tl->hist_every);
    cs_json_bool_member(f, &first, "done", done);
    if (done)
        cs_json_bool_member(f, &first, "stopped", stopped);
    fputs(",\"layers\":[", f);
    size_t n = cs_nn_wlayer_count(tl->net);
    for (size_t i = 0; i < n; i++) {
        cs_nn_wlayer_info li;
        cs_nn_wlayer(tl->net, i, &li);
        fprintf(f, "%s{\"name\":", i ? "," : "");
        cs_json_string(f, li.name);
        fprintf(f, ",\"shape\":[%zu,%zu],\"regularized\":%s}", li.rows, li.cols,
                regularized(tl, i, n, &li) ? "true" : "false");
    }
    fputs("]}\n", f);
    int bad = fclose(f) != 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", tl->dir);
    int rc = bad ? cs_fail(err, CS_ENOMEM, "out of memory") : put_file(path, buf, len, "", 0, err);
    free(buf);
    return rc;
}

/* Every weight layer at the network's current step, then its line. */
static int put_snapshot(train_log *tl, const cs_nn_progress *p, cs_err *err)
{
    size_t step = cs_nn_step_count(tl->net), n = cs_nn_wlayer_count(tl->net);
    char *line = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&line, &len);
    if (!f)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    int first = 1, rc = CS_OK;
    fputc('{', f);
    cs_json_num_member(f, &first, "step", (double)step);
    if (p) {
        cs_json_num_member(f, &first, "epoch", p->epoch - 1 + (double)p->batch / p->batches);
        cs_json_num_member(f, &first, "loss", p->loss);
        cs_json_num_member(f, &first, "reg", p->reg);
        cs_json_num_member(f, &first, "lr", p->lr);
    }
    fputs(",\"files\":{", f);
    for (size_t i = 0; i < n && rc == CS_OK; i++) {
        cs_nn_wlayer_info li;
        cs_nn_wlayer(tl->net, i, &li);
        char rel[128], path[4400];
        snprintf(rel, sizeof rel, "snap-%08zu/%s.npy", step, li.name);
        snprintf(path, sizeof path, "%s/%s", tl->dir, rel);
        rc = cs_nn_wlayer_get(tl->net, i, tl->w, err);
        if (rc == CS_OK)
            rc = put_npy(path, tl->w, li.rows, li.cols, err);
        fprintf(f, "%s", i ? "," : "");
        cs_json_string(f, li.name);
        fputc(':', f);
        cs_json_string(f, rel);
    }
    fputs("}}\n", f);
    if (fclose(f) != 0 && rc == CS_OK)
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    /* the line after its files: a reader never meets a file not there yet */
    if (rc == CS_OK && write(tl->fd, line, len) != (ssize_t)len)
        rc = cs_fail(err, CS_EIO, "cannot write '%s/metrics.jsonl': %s", tl->dir,
                     strerror(errno));
    free(line);
    if (rc == CS_OK) {
        tl->snapshots++;
        tl->last_snap = step;
    }
    return rc;
}

/* A line of the step's numbers. */
static int put_line(train_log *tl, const cs_nn_progress *p, cs_err *err)
{
    char line[512];
    char v[4][40];
    cs_format_double(v[0], sizeof v[0], p->epoch - 1 + (double)p->batch / p->batches);
    cs_format_double(v[1], sizeof v[1], p->loss);
    cs_format_double(v[2], sizeof v[2], p->reg);
    cs_format_double(v[3], sizeof v[3], p->lr);
    /* non-finite numbers as Python's json writes them (NaN, Infinity) */
    for (int k = 0; k < 4; k++)
        if (!strcmp(v[k], "nan") || !strcmp(v[k], "inf") || !strcmp(v[k], "-inf"))
            snprintf(v[k], sizeof v[k], "%s", v[k][0] == 'n' ? "NaN"
                                              : v[k][0] == '-' ? "-Infinity" : "Infinity");
    int n = snprintf(line, sizeof line, "{\"step\":%zu,\"epoch\":%s,\"loss\":%s,\"reg\":%s,"
                     "\"lr\":%s}\n", p->step, v[0], v[1], v[2], v[3]);
    if (write(tl->fd, line, (size_t)n) != n)
        return cs_fail(err, CS_EIO, "cannot write '%s/metrics.jsonl': %s", tl->dir,
                       strerror(errno));
    return CS_OK;
}

/* ------------------------------------------------------------------ the run */

static void stop_log(train_log *tl, const cs_err *err)
{
    tl->failed = 1;
    snprintf(tl->error, sizeof tl->error, "%s", err->msg);
}

static int on_step(void *ctx, const cs_nn_progress *p)
{
    train_log *tl = ctx;
    if (!tl->failed) {
        double t = cs_now();
        cs_err err;
        int rc = CS_OK;
        if (!isfinite(tl->steps_total)) {   /* the first step tells the run's length */
            tl->steps_total = (double)(p->step - p->batch + 1) +
                              (double)p->epochs * (double)p->batches - 1;
            rc = put_run_json(tl, 0, 0, &err);
        }
        int due = tl->hist_every > 0 ? p->step % (size_t)tl->hist_every == 0
                                     : p->batch == p->batches;
        if (rc == CS_OK)
            rc = due ? put_snapshot(tl, p, &err) : put_line(tl, p, &err);
        if (rc)
            stop_log(tl, &err);
        tl->seconds += cs_now() - t;
    }
    return tl->next ? tl->next(tl->next_ctx, p) : 0;
}

int train_log_begin(train_log **out, cs_interp *in, const cs_cmdline *cl, nn_state *s,
                    const train_watch_run *run, cs_nn_train_opts *o, cs_err *err)
{
    *out = NULL;
    if (!cs_cmdline_key(cl, "log") || cs_file_discard())
        return CS_OK;
    double t = cs_now();
    train_log *tl = calloc(1, sizeof *tl);
    if (!tl)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    tl->fd = -1;
    tl->net = s->net;
    tl->run = run;
    snprintf(tl->data, sizeof tl->data, "%s", s->train_name);
    snprintf(tl->data_hash, sizeof tl->data_hash, "%s", s->train_hash);
    tl->seed = (unsigned long long)cs_interp_seed(in);
    tl->epochs = o->epochs;
    tl->hist_every = run->hist_every;
    tl->steps_total = NAN;
    size_t most = 0;
    for (size_t i = 0; i < cs_nn_wlayer_count(s->net); i++) {
        cs_nn_wlayer_info li;
        cs_nn_wlayer(s->net, i, &li);
        most = li.rows * li.cols > most ? li.rows * li.cols : most;
    }
    char path[4200];
    int rc = cs_arg_path(in, cl, "log", tl->dir, sizeof tl->dir, err);
    if (rc == CS_OK && !(tl->w = malloc((most ? most : 1) * sizeof *tl->w)))
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    if (rc == CS_OK) {   /* a new, empty metrics.jsonl: followers start over */
        snprintf(path, sizeof path, "%s/metrics.jsonl", tl->dir);
        rc = put_file(path, "", 0, "", 0, err);
        if (rc == CS_OK && (tl->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0)
            rc = cs_fail(err, CS_EIO, "cannot write '%s': %s", path, strerror(errno));
    }
    if (rc == CS_OK)
        rc = put_run_json(tl, 0, 0, err);
    if (rc == CS_OK)
        rc = put_snapshot(tl, NULL, err);
    if (rc) {
        cs_arg_blame(in, cl, "log", 0);
        if (tl->fd >= 0)
            close(tl->fd);
        free(tl->w);
        free(tl);
        return rc;
    }
    tl->next = o->progress;
    tl->next_ctx = o->progress_ctx;
    o->progress = on_step;
    o->progress_ctx = tl;
    tl->seconds = cs_now() - t;
    *out = tl;
    return CS_OK;
}

void train_log_end(train_log *tl, const cs_nn_train_report *rep, cs_result *res)
{
    if (!tl)
        return;
    double t = cs_now();
    cs_err err;
    if (!tl->failed && cs_nn_step_count(tl->net) != tl->last_snap &&
        put_snapshot(tl, NULL, &err))
        stop_log(tl, &err);
    if (!tl->failed && put_run_json(tl, 1, rep && rep->partial, &err))
        stop_log(tl, &err);
    tl->seconds += cs_now() - t;
    if (res) {
        cs_result_str(res, "log", tl->dir);
        cs_result_int(res, "log_snapshots", (long long)tl->snapshots);
        cs_result_num(res, "log_seconds", tl->seconds);
        if (tl->failed)
            cs_result_str(res, "log_error", tl->error);
    }
    close(tl->fd);
    free(tl->w);
    free(tl);
}
