/* test_run_folder.c — reading run folders (docs/runfolder.md) while they
 * grow: the JSON reader (cs_jval.h), float32 .npy of any shape
 * (cs_npy_read_f32), the folder's lines taken only when whole and the bad
 * ones skipped with a message (cs_run_folder.h), and the numbers of the
 * snapshots (cs_run_watch.h) against direct computations: α, the near
 * share, the level flips against the last good snapshot, the range rule of
 * the live frames; torn files (a truncated .npy, a writer killed
 * mid-snapshot, a bad line, a file outside the folder) skipped while
 * reading goes on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_array_io.h"
#include "cs_jval.h"
#include "cs_run_folder.h"
#include "cs_run_watch.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/csreg_runfolder_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------ helpers */

/* A float32 .npy of the given shape (header and data as numpy writes them);
 * cut: write only the first `cut` bytes (0: all). */
static void write_npy(const char *path, const float *x, const size_t *shape, int ndim,
                      size_t cut)
{
    char head[256], dims[128] = "";
    size_t n = 1, used = 0;
    for (int k = 0; k < ndim; k++) {
        used += (size_t)snprintf(dims + used, sizeof dims - used, "%zu%s", shape[k],
                                 ndim == 1 || k + 1 < ndim ? ", " : "");
        n *= shape[k];
    }
    if (ndim > 1)   /* "(3, 4)" not "(3, 4, )" */
        dims[used] = '\0';
    int w = snprintf(head + 10, sizeof head - 10,
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }", dims);
    size_t hlen = (size_t)w;
    while ((10 + hlen + 1) % 64)
        head[10 + hlen++] = ' ';
    head[10 + hlen++] = '\n';
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    head[8] = (char)hlen;
    head[9] = 0;
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    size_t total = 10 + hlen + 4 * n;
    char *buf = malloc(total);
    assert_non_null(buf);
    memcpy(buf, head, 10 + hlen);
    memcpy(buf + 10 + hlen, x, 4 * n);
    assert_int_equal(fwrite(buf, 1, cut ? cut : total, f), cut ? cut : total);
    fclose(f);
    free(buf);
}

static void put_text(const char *name, const char *text, const char *mode)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, mode);
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Layer `name` of snapshot `step` as the file snap-STEP/NAME.npy (rows × cols). */
static void put_layer(long step, const char *name, const float *x, size_t rows, size_t cols,
                      size_t cut)
{
    char path[256];
    snprintf(path, sizeof path, "%s/snap-%08ld", dir, step);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/snap-%08ld/%s.npy", dir, step, name);
    size_t shape[2] = {rows, cols};
    write_npy(path, x, shape, 2, cut);
}

static void put_line_of(long step, double loss, const char *const *names, size_t n)
{
    char line[1024];
    int w = snprintf(line, sizeof line, "{\"step\": %ld, \"loss\": %.17g, \"files\": {", step,
                     loss);
    for (size_t i = 0; i < n; i++)
        w += snprintf(line + w, sizeof line - (size_t)w, "%s\"%s\": \"snap-%08ld/%s.npy\"",
                      i ? ", " : "", names[i], step, names[i]);
    snprintf(line + w, sizeof line - (size_t)w, "}}\n");
    put_text("metrics.jsonl", line, "a");
}

static void fresh_folder(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/* && true", dir);
    assert_int_equal(system(cmd), 0);
}

/* The messages waiting, joined by newlines. */
static void messages(cs_run_watch *w, char *out, size_t len)
{
    char m[512];
    size_t used = 0;
    out[0] = '\0';
    while (cs_run_watch_message(w, m, sizeof m) && used < len)
        used += (size_t)snprintf(out + used, len - used, "%s\n", m);
}

/* ------------------------------------------------------------------ JSON */

static void test_jval(void **state)
{
    (void)state;
    const char *text = " {\"a\": [1, -2.5e3, true, null, \"x\\n\\u00e9\\ud83d\\ude00\"], "
                       "\"b\": {\"c\": NaN, \"d\": -Infinity}, \"a\": 7} ";
    cs_jval *v;
    cs_err err;
    assert_int_equal(cs_jval_parse(text, strlen(text), &v, &err), CS_OK);
    const cs_jval *a = cs_jval_get(v, "a");   /* the first of a repeated key */
    assert_int_equal(a->type, CS_JVAL_ARRAY);
    assert_int_equal(a->n, 5);
    assert_true(cs_jval_num(&a->item[1], 0) == -2500.0);
    assert_true(cs_jval_num(&a->item[2], 0) == 1.0);
    assert_int_equal(a->item[3].type, CS_JVAL_NULL);
    assert_string_equal(cs_jval_str(&a->item[4], ""), "x\n\xc3\xa9\xf0\x9f\x98\x80");
    assert_true(isnan(cs_jval_num(cs_jval_get(cs_jval_get(v, "b"), "c"), 0)));
    assert_true(cs_jval_num(cs_jval_get(cs_jval_get(v, "b"), "d"), 0) == -INFINITY);
    assert_null(cs_jval_get(v, "zz"));
    cs_jval_free(v);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"{\"a\": 1} x", "text after the value at byte 9"},
        {"{\"a\": \"open", "unterminated string"},
        {"{\"a\" 1}", "expected ':' at byte 5"},
        {"[1, 2", "expected ',' or ']' at byte 5"},
        {"01", "text after the value at byte 1"},
        {"\"\\u0000\"", "\\u0000 in a string"},
        {"", "unexpected end at byte 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(cs_jval_parse(bad[i].text, strlen(bad[i].text), &v, &err), CS_EINVAL);
        assert_null(v);
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("'%s': '%s' lacks '%s'", bad[i].text, err.msg, bad[i].msg);
    }
    char deep[200];
    memset(deep, '[', sizeof deep);
    assert_int_equal(cs_jval_parse(deep, sizeof deep, &v, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "nested too deeply"));
}

/* ------------------------------------------------------------------ .npy */

static void test_npy_f32(void **state)
{
    (void)state;
    float x[2 * 3 * 2 * 2];
    for (size_t i = 0; i < sizeof x / sizeof *x; i++)
        x[i] = (float)i - 10.5f;
    char path[128];
    snprintf(path, sizeof path, "%s/w4.npy", dir);
    size_t shape4[4] = {2, 3, 2, 2};
    write_npy(path, x, shape4, 4, 0);
    float *w;
    size_t rows, cols;
    int ndim;
    cs_err err;
    assert_int_equal(cs_npy_read_f32(path, &w, &rows, &cols, &ndim, &err), CS_OK);
    assert_int_equal(rows, 2);
    assert_int_equal(cols, 12);
    assert_int_equal(ndim, 4);
    assert_memory_equal(w, x, sizeof x);
    free(w);
    size_t shape1[1] = {5};
    write_npy(path, x, shape1, 1, 0);
    assert_int_equal(cs_npy_read_f32(path, &w, &rows, &cols, &ndim, &err), CS_OK);
    assert_int_equal(rows * cols, 5);
    assert_int_equal(ndim, 1);
    free(w);
    /* a float64 file (csreg's own writer) is read, rounded */
    double d[3] = {0.1, -2, 3.5};
    cs_array a = {3, 1, d};
    snprintf(path, sizeof path, "%s/d.npy", dir);
    assert_int_equal(cs_array_write(path, &a, &err), CS_OK);
    assert_int_equal(cs_npy_read_f32(path, &w, &rows, &cols, &ndim, &err), CS_OK);
    assert_true(w[0] == 0.1f && w[1] == -2.0f && w[2] == 3.5f);
    free(w);
    /* cut short: the message says how much is there */
    snprintf(path, sizeof path, "%s/cut.npy", dir);
    write_npy(path, x, shape4, 4, 128 + 36);   /* a 128-byte header, 36 of 96 data bytes */
    assert_int_equal(cs_npy_read_f32(path, &w, &rows, &cols, &ndim, &err), CS_EINVAL);
    assert_null(w);
    assert_non_null(strstr(err.msg, "truncated: 36 of 96 data bytes"));
    write_npy(path, x, shape4, 4, 40);   /* inside the header */
    assert_int_equal(cs_npy_read_f32(path, &w, &rows, &cols, &ndim, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "truncated .npy header"));
}

/* ------------------------------------------------------------------ the folder */

static void test_folder_lines(void **state)
{
    (void)state;
    fresh_folder();
    cs_run_folder *rf;
    cs_err err;
    char msg[512];
    assert_int_equal(cs_run_folder_open(&rf, dir, &err), CS_OK);
    assert_int_equal(cs_run_folder_poll(rf, &err), 0);   /* empty: nothing yet */
    assert_int_equal(cs_run_folder_info(rf)->have, 0);
    put_text("run.json", "{\"name\": \"r\", \"reg\": \"ter\", \"params\": {\"lambda\": 0.5, "
             "\"p\": \"x\"}, \"steps\": 100, \"layers\": [{\"name\": \"conv1\", \"shape\": "
             "[4, 2, 3, 3]}, {\"name\": \"fc\", \"shape\": [10, 8], \"regularized\": false}]}",
             "w");
    put_text("metrics.jsonl", "{\"step\": 0, \"loss\": 2.5, \"lr\": 0.1, \"files\": {\"conv1\": "
             "\"snap-00000000/conv1.npy\"}}\n{\"step\": 1, \"loss\": 2.4}\n{\"step\": 2, \"lo",
             "w");
    assert_int_equal(cs_run_folder_poll(rf, &err), 2);   /* the third waits for its newline */
    const cs_run_info *in = cs_run_folder_info(rf);
    assert_string_equal(in->name, "r");
    assert_string_equal(in->reg, "ter");
    assert_string_equal(in->params, "lambda=0.5 p=x");
    assert_true(in->lambda == 0.5 && in->steps == 100);
    assert_int_equal(cs_run_folder_layer_count(rf), 2);
    assert_int_equal(cs_run_folder_layer(rf, 0)->rows, 4);
    assert_int_equal(cs_run_folder_layer(rf, 0)->cols, 18);
    assert_int_equal(cs_run_folder_layer(rf, 1)->regularized, 0);
    assert_int_equal(cs_run_folder_point_count(rf), 2);
    assert_int_equal(cs_run_folder_snap_count(rf), 1);
    int loss = cs_run_folder_metric_find(rf, "loss");
    assert_true(loss >= 0);
    assert_true(cs_run_folder_point(rf, 1)->val[loss] == 2.4);
    assert_true(isnan(cs_run_folder_point(rf, 1)->val[cs_run_folder_metric_find(rf, "lr")]));
    assert_int_equal(cs_run_folder_poll(rf, &err), 0);
    put_text("metrics.jsonl", "ss\": 2.3}\n{not json}\n[1, 2]\n{\"loss\": 1}\n"
             "{\"step\": 3, \"files\": {\"fc\": \"../../etc/passwd\"}}\n"
             "{\"step\": 4, \"files\": {\"fc\": \"/abs.npy\"}}\n"
             "\n{\"step\": 5, \"files\": {\"fc\": \"snap-00000005/fc.npy\", \"new\": "
             "\"snap-00000005/new.npy\"}}\n", "a");
    assert_int_equal(cs_run_folder_poll(rf, &err), 8);
    assert_int_equal(cs_run_folder_point_count(rf), 4);   /* steps 0, 1, 2, 5 */
    assert_int_equal(cs_run_folder_snap_count(rf), 2);
    assert_int_equal(cs_run_folder_layer_count(rf), 3);   /* "new" came with a line */
    const cs_run_snap *s = cs_run_folder_snap(rf, 1);
    assert_true(s->step == 5);
    assert_int_equal(s->line, 10);
    assert_int_equal(s->nfiles, 2);
    static const char *const want[] = {
        "metrics.jsonl line 4: JSON: expected a key at byte 1 (skipped)",
        "metrics.jsonl line 5: not a JSON object (skipped)",
        "metrics.jsonl line 6: no step (a number >= 0) (skipped)",
        "metrics.jsonl line 7: the file of layer 'fc' is not a path inside the folder (skipped)",
        "metrics.jsonl line 8: the file of layer 'fc' is not a path inside the folder (skipped)",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        assert_int_equal(cs_run_folder_message(rf, msg, sizeof msg), 1);
        assert_string_equal(msg, want[i]);
    }
    assert_int_equal(cs_run_folder_message(rf, msg, sizeof msg), 0);
    /* a new run in the folder: a shorter metrics.jsonl starts over */
    unsigned g = cs_run_folder_generation(rf);
    put_text("metrics.jsonl", "{\"step\": 0}\n", "w");
    assert_int_equal(cs_run_folder_poll(rf, &err), 1);
    assert_int_equal(cs_run_folder_generation(rf), g + 1);
    assert_int_equal(cs_run_folder_point_count(rf), 1);
    assert_int_equal(cs_run_folder_snap_count(rf), 0);
    assert_int_equal(cs_run_folder_message(rf, msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "reading it again from the start"));
    /* a run.json being rewritten by hand, half there: said, kept as it was */
    put_text("run.json", "{\"name\": \"r2\", \"re", "w");
    assert_int_equal(cs_run_folder_poll(rf, &err), 0);
    assert_string_equal(cs_run_folder_info(rf)->name, "r");
    assert_int_equal(cs_run_folder_message(rf, msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "run.json: JSON: unterminated string"));
    cs_run_folder_free(rf);
    /* not a folder */
    char path[128];
    snprintf(path, sizeof path, "%s/run.json", dir);
    assert_int_equal(cs_run_folder_open(&rf, path, &err), CS_EIO);
    assert_non_null(strstr(err.msg, "is not a folder"));
}

/* ------------------------------------------------------------------ the numbers */

/* Reference numbers of a rows × cols layer with levels ±α_r. */
static void reference(const float *x, size_t rows, size_t cols, double *alpha_mean,
                      double *near)
{
    double as = 0, nr = 0;
    for (size_t r = 0; r < rows; r++) {
        double a = 0;
        for (size_t c = 0; c < cols; c++)
            a += fabs((double)x[r * cols + c]);
        a = (double)(float)(a / (double)cols);
        as += a;
        for (size_t c = 0; c < cols; c++)
            nr += fabs(fabs((double)x[r * cols + c]) - a) <= 0.01 * a;
    }
    *alpha_mean = as / (double)rows;
    *near = nr / (double)(rows * cols);
}

static void test_watch_numbers(void **state)
{
    (void)state;
    fresh_folder();
    enum { R = 8, C = 50, N = R * C };
    static float w0[N], w1[N], w2[N], w3[N];
    unsigned s = 7;
    for (size_t i = 0; i < N; i++) {
        s = s * 1103515245u + 12345u;
        w0[i] = ((float)(s >> 8) / 16777216.0f - 0.5f);   /* uniform in [-0.5, 0.5) */
        /* half way to ±0.3, with exactly 10 signs flipped */
        w1[i] = 0.5f * w0[i] + (w0[i] < 0 ? -0.15f : 0.15f);
        w2[i] = 3 * w1[i];   /* grown: over 1% leaves the range */
        w3[i] = w0[i] < 0 ? -0.3f : 0.3f;
    }
    for (size_t i = 0; i < 10; i++)
        w1[i * 37] = -w1[i * 37];
    put_text("run.json", "{\"reg\": \"bin\", \"layers\": [{\"name\": \"fc1\", \"shape\": [8, "
             "50]}]}", "w");
    const char *names[] = {"fc1"};
    put_layer(0, "fc1", w0, R, C, 0);
    put_line_of(0, 2.0, names, 1);
    put_layer(10, "fc1", w1, R, C, 0);
    put_line_of(10, 1.0, names, 1);
    put_layer(20, "fc1", w2, R, C, 300);   /* cut short: skipped */
    put_line_of(20, 0.9, names, 1);
    put_layer(30, "fc1", w3, R, C, 0);
    put_line_of(30, 0.5, names, 1);
    cs_run_folder *rf;
    cs_run_watch *w;
    cs_err err;
    assert_int_equal(cs_run_folder_open(&rf, dir, &err), CS_OK);
    assert_int_equal(cs_run_watch_new(&w, rf, &err), CS_OK);
    assert_int_equal(cs_run_watch_update(w, &err), 3);
    assert_int_equal(cs_run_watch_count(w), 3);
    assert_int_equal(cs_run_watch_levels(w), 2);
    char msgs[2048];
    messages(w, msgs, sizeof msgs);
    if (!strstr(msgs, "step 20 (metrics.jsonl line 3) skipped: ") ||
        !strstr(msgs, "fc1.npy: truncated: "))
        fail_msg("messages: %s", msgs);
    cs_nn_watch_layer L;
    const float *ws[3] = {w0, w1, w3};
    for (size_t k = 0; k < 3; k++) {
        double am, nr;
        reference(ws[k], R, C, &am, &nr);
        assert_int_equal(cs_run_watch_hist(w, k, 0, 40, 0, 0, &L, &err), CS_OK);
        assert_string_equal(L.name, "fc1");
        assert_float_equal(L.alpha_mean, am, 1e-12);
        assert_float_equal(L.near, nr, 1e-15);
        size_t total = L.outside;
        for (int b = 0; b < L.bins; b++)
            total += L.counts[b];
        assert_int_equal(total, N);
    }
    assert_true(cs_run_watch_snap(w, 2)->step == 30);
    assert_int_equal(cs_run_watch_at_step(w, 25), 1);
    /* flips: 10 of 400 at step 10; at step 30 against step 10 (20 was
     * skipped): the same 10 back */
    assert_int_equal(cs_run_watch_layer(w, 0, 0, &L, &err), CS_OK);
    assert_true(isnan(L.flips));
    assert_int_equal(cs_run_watch_layer(w, 1, 0, &L, &err), CS_OK);
    assert_float_equal(L.flips, 10.0 / N, 1e-15);
    assert_int_equal(cs_run_watch_layer(w, 2, 0, &L, &err), CS_OK);
    assert_float_equal(L.flips, 10.0 / N, 1e-15);
    assert_float_equal(L.near, 1.0, 0);   /* every weight at ±0.3 */
    /* the range: 1.25 × the 99.9th percentile of |w0| (to 1%), symmetric, kept */
    assert_int_equal(cs_run_watch_layer(w, 0, 0, &L, &err), CS_OK);
    assert_true(L.hi > 0.99 * 1.25 * 0.4995 && L.hi <= 1.25 * 0.5);
    assert_true(L.lo == -L.hi);
    double hi0 = L.hi;
    assert_int_equal(cs_run_watch_layer(w, 2, 0, &L, &err), CS_OK);
    assert_true(L.hi == hi0);
    /* a histogram on a range of the caller's */
    assert_int_equal(cs_run_watch_hist(w, 2, 0, 2, -1, 1, &L, &err), CS_OK);
    assert_true(L.lo == -1 && L.hi == 1);
    assert_int_equal(L.counts[0] + L.counts[1], N);
    assert_int_equal(cs_run_watch_hist(w, 2, 5, 2, 0, 0, &L, &err), CS_ENOTFOUND);
    /* the grown weights, now whole: over 1% outside widens the range by half */
    put_layer(40, "fc1", w2, R, C, 0);
    put_line_of(40, 0.4, names, 1);
    assert_int_equal(cs_run_watch_update(w, &err), 1);
    assert_int_equal(cs_run_watch_layer(w, 3, 0, &L, &err), CS_OK);
    assert_true(L.hi == hi0 * 1.5 * 1.5);   /* 3 × 0.4 + 0.45 needs two steps */
    cs_run_watch_free(w);
    cs_run_folder_free(rf);
}

/* A writer killed in the middle of a snapshot leaves files and no line:
 * nothing of it is read; the lines that follow are. Ternary levels from
 * the regularizer's name. */
static void test_killed_writer_ternary(void **state)
{
    (void)state;
    fresh_folder();
    enum { R = 4, C = 10, N = R * C };
    float a[N], b[N];
    for (size_t i = 0; i < N; i++) {
        a[i] = (float)((int)(i % 7) - 3) * 0.1f;   /* -0.3 .. 0.3 */
        b[i] = i % 2 ? 0.3f : i % 4 ? 0.0f : -0.3f;
    }
    put_text("run.json", "{\"reg\": \"ter\"}", "w");
    const char *names[] = {"w"};
    put_layer(0, "w", a, R, C, 0);
    put_line_of(0, 1.0, names, 1);
    put_layer(5, "w", b, R, C, 50);   /* killed while writing: no line */
    cs_run_folder *rf;
    cs_run_watch *w;
    cs_err err;
    assert_int_equal(cs_run_folder_open(&rf, dir, &err), CS_OK);
    assert_int_equal(cs_run_watch_new(&w, rf, &err), CS_OK);
    assert_int_equal(cs_run_watch_update(w, &err), 1);
    char msgs[1024];
    messages(w, msgs, sizeof msgs);
    assert_string_equal(msgs, "");
    /* the writer again, from that snapshot on */
    put_layer(5, "w", b, R, C, 0);
    put_line_of(5, 0.5, names, 1);
    assert_int_equal(cs_run_watch_update(w, &err), 1);
    assert_int_equal(cs_run_watch_levels(w), 3);
    cs_nn_watch_layer L;
    assert_int_equal(cs_run_watch_layer(w, 1, 0, &L, &err), CS_OK);
    assert_int_equal(L.levels, 3);
    assert_true(isfinite(L.tau_mean));
    assert_float_equal(L.near, 1.0, 0);   /* b is on {-0.3, 0, 0.3} */
    /* level flips: the ternary level of each weight, a's against b's */
    float ta[R], tb[R], qa[N], qb[N];
    for (size_t r = 0; r < R; r++) {
        cs_quant_ternary(a + r * C, C, qa + r * C, &ta[r], NULL);
        cs_quant_ternary(b + r * C, C, qb + r * C, &tb[r], NULL);
    }
    size_t f = 0;
    for (size_t i = 0; i < N; i++)
        f += (qa[i] > 0) - (qa[i] < 0) != (qb[i] > 0) - (qb[i] < 0);
    assert_true(f > 0);
    assert_float_equal(L.flips, (double)f / N, 1e-15);
    cs_run_watch_free(w);
    cs_run_folder_free(rf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jval),
        cmocka_unit_test(test_npy_f32),
        cmocka_unit_test(test_folder_lines),
        cmocka_unit_test(test_watch_numbers),
        cmocka_unit_test(test_killed_writer_ternary),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
