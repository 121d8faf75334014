/* run_folder.c — the reader of cs_run_folder.h. metrics.jsonl is read from
 * where the last poll stopped to its end; only whole lines are taken, the
 * rest waits for its newline. A file with another inode or shorter than
 * what was read is a new run: everything starts over. */
#include "cs_run_folder.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cs_array_io.h"
#include "cs_jval.h"

enum { MSG_CAP = 64, MSG_LEN = 320 };
#define READ_MAX (64u << 20)   /* bytes of metrics.jsonl taken per poll at most */

typedef struct file_id {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
} file_id;

struct cs_run_folder {
    char dir[4096];
    cs_run_info info;
    cs_run_layer *layer;
    size_t nlayers, layer_cap;
    char metric[CS_RUN_METRICS][32];
    size_t nmetrics;
    cs_run_point *point;
    size_t npoints, point_cap;
    cs_run_snap *snap;
    size_t nsnaps, snap_cap;
    file_id run_json;        /* as last read (size -1: never) */
    file_id metrics;
    off_t pos;               /* bytes of metrics.jsonl taken */
    size_t line;             /* lines taken */
    unsigned generation;
    char msg[MSG_CAP][MSG_LEN];
    size_t msg_head, msg_len, msg_dropped;
};

static void note(cs_run_folder *rf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(cs_run_folder *rf, const char *fmt, ...)
{
    if (rf->msg_len == MSG_CAP) {   /* a reader that never asks keeps the oldest */
        rf->msg_dropped++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rf->msg[(rf->msg_head + rf->msg_len) % MSG_CAP], MSG_LEN, fmt, ap);
    va_end(ap);
    rf->msg_len++;
}

int cs_run_folder_message(cs_run_folder *rf, char *msg, size_t len)
{
    if (rf->msg_len == 0) {
        if (!rf->msg_dropped)
            return 0;
        snprintf(msg, len, "%zu more messages were dropped", rf->msg_dropped);
        rf->msg_dropped = 0;
        return 1;
    }
    snprintf(msg, len, "%s", rf->msg[rf->msg_head]);
    rf->msg_head = (rf->msg_head + 1) % MSG_CAP;
    rf->msg_len--;
    return 1;
}

int cs_run_folder_open(cs_run_folder **out, const char *dir, cs_err *err)
{
    *out = NULL;
    struct stat st;
    if (stat(dir, &st) != 0)
        return cs_fail(err, CS_EIO, "cannot open the run folder '%s': %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cs_fail(err, CS_EIO, "'%s' is not a folder (a run folder holds run.json and "
                       "metrics.jsonl)", dir);
    cs_run_folder *rf = calloc(1, sizeof *rf);
    if (!rf)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    if (snprintf(rf->dir, sizeof rf->dir, "%s", dir) >= (int)sizeof rf->dir) {
        free(rf);
        return cs_fail(err, CS_EINVAL, "run folder name too long");
    }
    rf->run_json.size = rf->metrics.size = -1;
    snprintf(rf->info.reg, sizeof rf->info.reg, "none");
    rf->info.lambda = rf->info.steps = rf->info.epochs = NAN;
    *out = rf;
    return CS_OK;
}

static void clear_points(cs_run_folder *rf)
{
    for (size_t i = 0; i < rf->nsnaps; i++) {
        for (size_t k = 0; k < rf->snap[i].nfiles; k++)
            free(rf->snap[i].file[k].path);
        free(rf->snap[i].file);
    }
    rf->nsnaps = rf->npoints = 0;
}

void cs_run_folder_free(cs_run_folder *rf)
{
    if (!rf)
        return;
    clear_points(rf);
    free(rf->snap);
    free(rf->point);
    free(rf->layer);
    free(rf);
}

/* Room for one more of an array of `size`-byte items; 0, or -1. */
static int grow(void **a, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 16;
    void *p = realloc(*a, nc * size);
    if (!p)
        return -1;
    *a = p;
    *cap = nc;
    return 0;
}

/* The layer named `name` (added when new); -1 out of memory. */
static long layer_of(cs_run_folder *rf, const char *name)
{
    for (size_t i = 0; i < rf->nlayers; i++)
        if (!strcmp(rf->layer[i].name, name))
            return (long)i;
    if (grow((void **)&rf->layer, rf->nlayers, &rf->layer_cap, sizeof *rf->layer))
        return -1;
    cs_run_layer *l = &rf->layer[rf->nlayers];
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->regularized = 1;
    return (long)rf->nlayers++;
}

/* ------------------------------------------------------------------ run.json */

static int same_id(const file_id *a, const struct stat *st)
{
    return a->dev == st->st_dev && a->ino == st->st_ino && a->size == st->st_size &&
           a->mtime.tv_sec == st->st_mtim.tv_sec && a->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static void set_id(file_id *a, const struct stat *st)
{
    a->dev = st->st_dev;
    a->ino = st->st_ino;
    a->size = st->st_size;
    a->mtime = st->st_mtim;
}

/* The whole of a small file, NUL-terminated; NULL with errno. */
static char *slurp(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    int bad = !buf || ferror(f) || n > max;
    fclose(f);
    if (bad) {
        free(buf);
        errno = EFBIG;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void put_params(cs_run_info *info, const cs_jval *params)
{
    size_t used = 0;
    info->params[0] = '\0';
    for (size_t i = 0; params && params->type == CS_JVAL_OBJECT && i < params->n; i++) {
        const cs_jval *v = &params->item[i];
        char val[64];
        if (v->type == CS_JVAL_NUMBER)
            snprintf(val, sizeof val, "%.6g", v->num);
        else if (v->type == CS_JVAL_STRING)
            snprintf(val, sizeof val, "%s", v->str);
        else
            continue;
        if (!strcmp(params->key[i], "lambda") && v->type == CS_JVAL_NUMBER)
            info->lambda = v->num;
        int w = snprintf(info->params + used, sizeof info->params - used, "%s%s=%s",
                         used ? " " : "", params->key[i], val);
        if (w < 0 || (size_t)w >= sizeof info->params - used) {
            info->params[used] = '\0';
            break;
        }
        used += (size_t)w;
    }
}

static void take_run_json(cs_run_folder *rf, const cs_jval *j)
{
    cs_run_info *in = &rf->info;
    snprintf(in->name, sizeof in->name, "%s", cs_jval_str(cs_jval_get(j, "name"), ""));
    snprintf(in->reg, sizeof in->reg, "%s", cs_jval_str(cs_jval_get(j, "reg"), "none"));
    snprintf(in->device, sizeof in->device, "%s", cs_jval_str(cs_jval_get(j, "device"), ""));
    in->lambda = NAN;
    put_params(in, cs_jval_get(j, "params"));
    double lv = cs_jval_num(cs_jval_get(j, "levels"), 0);
    in->levels = lv == 2 || lv == 3 ? (int)lv : 0;
    in->steps = cs_jval_num(cs_jval_get(j, "steps"), NAN);
    in->epochs = cs_jval_num(cs_jval_get(j, "epochs"), NAN);
    in->done = cs_jval_num(cs_jval_get(j, "done"), 0) != 0;
    in->have = 1;
    const cs_jval *layers = cs_jval_get(j, "layers");
    for (size_t i = 0; layers && layers->type == CS_JVAL_ARRAY && i < layers->n; i++) {
        const cs_jval *l = &layers->item[i];
        const char *name = cs_jval_str(cs_jval_get(l, "name"), NULL);
        long k = name && name[0] ? layer_of(rf, name) : -1;
        if (k < 0)
            continue;
        cs_run_layer *L = &rf->layer[k];
        const cs_jval *shape = cs_jval_get(l, "shape");
        if (shape && shape->type == CS_JVAL_ARRAY && shape->n > 0) {
            double r = cs_jval_num(&shape->item[0], 0), c = 1;
            for (size_t d = 1; d < shape->n; d++)
                c *= cs_jval_num(&shape->item[d], 0);
            int ok = r >= 1 && c >= 1 && r * c < 1e15;
            L->rows = ok ? (size_t)r : 0;
            L->cols = ok ? (size_t)c : 0;
            if (shape->n == 1 && ok) {   /* a vector is one row */
                L->cols = L->rows;
                L->rows = 1;
            }
        }
        L->regularized = cs_jval_num(cs_jval_get(l, "regularized"), 1) != 0;
    }
}

static void poll_run_json(cs_run_folder *rf)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", rf->dir);
    struct stat st;
    if (stat(path, &st) != 0 || same_id(&rf->run_json, &st))
        return;
    set_id(&rf->run_json, &st);
    size_t len;
    char *text = slurp(path, 1u << 24, &len);
    if (!text) {
        note(rf, "run.json: %s (read again when it changes)", strerror(errno));
        return;
    }
    cs_jval *j;
    cs_err err;
    if (cs_jval_parse(text, len, &j, &err) == CS_OK && j->type == CS_JVAL_OBJECT)
        take_run_json(rf, j);
    else
        note(rf, "run.json: %s (read again when it changes)",
             j ? "not a JSON object" : err.msg);
    cs_jval_free(j);
    free(text);
}

/* ------------------------------------------------------------------ metrics.jsonl */

static int metric_of(cs_run_folder *rf, const char *name)
{
    for (size_t k = 0; k < rf->nmetrics; k++)
        if (!strcmp(rf->metric[k], name))
            return (int)k;
    if (rf->nmetrics == CS_RUN_METRICS || strlen(name) >= sizeof rf->metric[0])
        return -1;
    snprintf(rf->metric[rf->nmetrics], sizeof rf->metric[0], "%s", name);
    return (int)rf->nmetrics++;
}

/* A snapshot's file name: relative, inside the folder. */
static int safe_path(const char *p)
{
    if (!p[0] || p[0] == '/' || strlen(p) > 1024)
        return 0;
    for (const char *s = p; *s;) {   /* no ".." component */
        size_t n = strcspn(s, "/");
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return 0;
        s += n + (s[n] == '/');
    }
    return 1;
}

/* The files of a line into snap; a message and -1 when they are not
 * {"layer": "relative/path.npy", ...}. */
static int take_files(cs_run_folder *rf, const cs_jval *files, cs_run_snap *snap)
{
    if (files->type != CS_JVAL_OBJECT) {
        note(rf, "metrics.jsonl line %zu: \"files\" is not an object (skipped)", rf->line);
        return -1;
    }
    for (size_t i = 0; i < files->n; i++) {
        const char *p = cs_jval_str(&files->item[i], NULL);
        if (!p || !safe_path(p) || !files->key[i][0]) {
            note(rf, "metrics.jsonl line %zu: the file of layer '%.60s' is not a path inside "
                 "the folder (skipped)", rf->line, files->key[i]);
            return -1;
        }
    }
    snap->file = calloc(files->n ? files->n : 1, sizeof *snap->file);
    if (!snap->file)
        return -1;
    for (size_t i = 0; i < files->n; i++) {
        long k = layer_of(rf, files->key[i]);
        char *p = strdup(files->item[i].str);
        if (k < 0 || !p) {
            free(p);
            for (size_t j = 0; j < snap->nfiles; j++)
                free(snap->file[j].path);
            free(snap->file);
            return -1;
        }
        snap->file[snap->nfiles++] = (cs_run_file){(size_t)k, p};
    }
    return 0;
}

static void take_line(cs_run_folder *rf, const char *s, size_t len)
{
    rf->line++;
    size_t b = 0;
    while (b < len && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r'))
        b++;
    if (b == len)
        return;   /* a blank line */
    cs_jval *j;
    cs_err err;
    if (cs_jval_parse(s, len, &j, &err) != CS_OK) {
        note(rf, "metrics.jsonl line %zu: %s (skipped)", rf->line, err.msg);
        return;
    }
    double step = cs_jval_num(cs_jval_get(j, "step"), NAN);
    const cs_jval *files = cs_jval_get(j, "files");
    if (j->type != CS_JVAL_OBJECT || !(step >= 0 && step < 1e18)) {
        note(rf, "metrics.jsonl line %zu: %s (skipped)", rf->line,
             j->type != CS_JVAL_OBJECT ? "not a JSON object" : "no step (a number >= 0)");
        cs_jval_free(j);
        return;
    }
    cs_run_snap snap = {.line = rf->line, .step = step};
    if ((files && take_files(rf, files, &snap)) ||
        grow((void **)&rf->point, rf->npoints, &rf->point_cap, sizeof *rf->point) ||
        (files && grow((void **)&rf->snap, rf->nsnaps, &rf->snap_cap, sizeof *rf->snap))) {
        for (size_t k = 0; k < snap.nfiles; k++)
            free(snap.file[k].path);
        free(snap.file);
        cs_jval_free(j);
        return;
    }
    cs_run_point *p = &rf->point[rf->npoints];
    p->step = step;
    p->epoch = cs_jval_num(cs_jval_get(j, "epoch"), NAN);
    for (size_t k = 0; k < CS_RUN_METRICS; k++)
        p->val[k] = NAN;
    for (size_t i = 0; i < j->n; i++) {
        const char *key = j->key[i];
        if (j->item[i].type != CS_JVAL_NUMBER || !strcmp(key, "step") || !strcmp(key, "epoch"))
            continue;
        int k = metric_of(rf, key);
        if (k >= 0)
            p->val[k] = j->item[i].num;
    }
    p->snap = -1;
    if (files) {
        snap.point = rf->npoints;
        snap.epoch = p->epoch;
        p->snap = (long)rf->nsnaps;
        rf->snap[rf->nsnaps++] = snap;
    }
    rf->npoints++;
    cs_jval_free(j);
}

/* Start over: another file, or a shorter one. */
static void restart(cs_run_folder *rf, const char *why)
{
    if (rf->npoints)
        note(rf, "metrics.jsonl %s: reading it again from the start", why);
    clear_points(rf);
    rf->pos = 0;
    rf->line = 0;
    rf->generation++;
}

static int poll_metrics(cs_run_folder *rf, cs_err *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/metrics.jsonl", rf->dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 0 : cs_fail(err, CS_EIO, "cannot read '%s': %s", path,
                                             strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return cs_fail(err, CS_EIO, "cannot read '%s': %s", path, strerror(errno));
    }
    if (rf->metrics.size >= 0 && (st.st_dev != rf->metrics.dev || st.st_ino != rf->metrics.ino))
        restart(rf, "was replaced");
    else if (st.st_size < rf->pos)
        restart(rf, "shrank");
    set_id(&rf->metrics, &st);
    size_t want = (size_t)(st.st_size - rf->pos);
    want = want > READ_MAX ? READ_MAX : want;
    if (want == 0) {
        fclose(f);
        return 0;
    }
    char *buf = malloc(want);
    if (!buf) {
        fclose(f);
        return cs_fail(err, CS_ENOMEM, "out of memory reading '%s'", path);
    }
    size_t got = fseeko(f, rf->pos, SEEK_SET) == 0 ? fread(buf, 1, want, f) : 0;
    fclose(f);
    int taken = 0;
    size_t start = 0;
    for (size_t i = 0; i < got; i++)
        if (buf[i] == '\n') {
            take_line(rf, buf + start, i - start);
            taken++;
            start = i + 1;
        }
    if (start == 0 && got == READ_MAX) {   /* one line longer than all we may read */
        note(rf, "metrics.jsonl line %zu: longer than %u bytes (skipped)", rf->line + 1,
             READ_MAX);
        start = got;
    }
    rf->pos += (off_t)start;
    free(buf);
    return taken;
}

int cs_run_folder_poll(cs_run_folder *rf, cs_err *err)
{
    struct stat st;
    if (stat(rf->dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cs_fail(err, CS_EIO, "the run folder '%s' is gone", rf->dir);
    poll_run_json(rf);
    return poll_metrics(rf, err);
}

/* ------------------------------------------------------------------ access */

const char *cs_run_folder_dir(const cs_run_folder *rf) { return rf->dir; }
unsigned cs_run_folder_generation(const cs_run_folder *rf) { return rf->generation; }
const cs_run_info *cs_run_folder_info(const cs_run_folder *rf) { return &rf->info; }
size_t cs_run_folder_layer_count(const cs_run_folder *rf) { return rf->nlayers; }
size_t cs_run_folder_metric_count(const cs_run_folder *rf) { return rf->nmetrics; }
size_t cs_run_folder_point_count(const cs_run_folder *rf) { return rf->npoints; }
size_t cs_run_folder_snap_count(const cs_run_folder *rf) { return rf->nsnaps; }

const cs_run_layer *cs_run_folder_layer(const cs_run_folder *rf, size_t i)
{
    return i < rf->nlayers ? &rf->layer[i] : NULL;
}

const char *cs_run_folder_metric(const cs_run_folder *rf, size_t k)
{
    return k < rf->nmetrics ? rf->metric[k] : NULL;
}

int cs_run_folder_metric_find(const cs_run_folder *rf, const char *name)
{
    for (size_t k = 0; k < rf->nmetrics; k++)
        if (!strcmp(rf->metric[k], name))
            return (int)k;
    return -1;
}

const cs_run_point *cs_run_folder_point(const cs_run_folder *rf, size_t i)
{
    return i < rf->npoints ? &rf->point[i] : NULL;
}

const cs_run_snap *cs_run_folder_snap(const cs_run_folder *rf, size_t i)
{
    return i < rf->nsnaps ? &rf->snap[i] : NULL;
}

int cs_run_folder_load(const cs_run_folder *rf, size_t i, size_t layer, float **w, size_t *rows,
                       size_t *cols, cs_err *err)
{
    *w = NULL;
    const cs_run_snap *s = cs_run_folder_snap(rf, i);
    const cs_run_file *file = NULL;
    for (size_t k = 0; s && k < s->nfiles; k++)
        if (s->file[k].layer == layer)
            file = &s->file[k];
    if (!file || layer >= rf->nlayers)
        return cs_fail(err, CS_ENOTFOUND, "step %.0f has no file of layer %zu", s ? s->step : 0.0,
                       layer);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", rf->dir, file->path);
    int ndim;
    int rc = cs_npy_read_f32(path, w, rows, cols, &ndim, err);
    if (rc)
        return rc;
    if (ndim == 1) {   /* a vector is one row */
        *cols = *rows;
        *rows = 1;
    }
    const cs_run_layer *L = &rf->layer[layer];
    if (L->rows && (*rows * *cols != L->rows * L->cols || *rows != L->rows)) {
        free(*w);
        *w = NULL;
        return cs_fail(err, CS_EDIM, "%s: %zux%zu weights, run.json says %zux%zu for layer %s",
                       path, *rows, *cols, L->rows, L->cols, L->name);
    }
    if (L->rows) {   /* run.json's rows and columns (a 2-D file of another split) */
        *rows = L->rows;
        *cols = L->cols;
    }
    return CS_OK;
}
