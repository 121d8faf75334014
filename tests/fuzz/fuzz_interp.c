/* fuzz_interp.c — libFuzzer harness over the interpreter entry point.
 * Each input is a script: up to 64 lines run through cs_interp_exec in
 * JSON mode, from the state of a new process: a new interpreter, no
 * definitions of `reg define` left from earlier inputs (the registry keeps
 * at most 1000 per process), and an empty scratch folder. Every file a
 * command reads or writes is confined to that folder (sandbox_dir), which
 * holds a 64-image MNIST-format data set (fm/) for train; gnuplot is made
 * unavailable so no child processes are spawned.
 *
 * The commands whose cost is the user's choice (problem, solve, step,
 * sweep, basins, maxcut, train, finetune, evaluate, quantize, predict; a
 * landscape's res=) run when their sizes are given and small (small()
 * below: N <= 24, maxit <= 300, a few trials, grid points, methods, 64
 * images with data=fm); given as $variables, in a for loop, or bigger,
 * they are skipped, and run/source after the second: their cost is not a
 * bug. CSREG_FUZZ_ECHO=1 shows what a seed runs. */
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_cmdline.h"
#include "cs_interp.h"
#include "cs_reg.h"

static char scratch[64];
static FILE *sink;
static int echo;

/* fm/{train,t10k}-{images-idx3,labels-idx1}-ubyte: 64 images each. */
static void write_idx(const char *dir, const char *name, int images)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    unsigned char hdr[16] = {0, 0, 8, images ? 3 : 1, 0, 0, 0, 64, 0, 0, 0, 28, 0, 0, 0, 28};
    fwrite(hdr, 1, images ? 16 : 8, f);
    for (int i = 0; i < 64; i++) {
        if (!images) {
            fputc(i % 10, f);
            continue;
        }
        for (int p = 0; p < 28 * 28; p++)
            fputc((unsigned char)((p * 7 + i * 31) % 256 * ((p / 28 + i) % 3 != 0)), f);
    }
    fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(scratch, sizeof scratch, "/tmp/csreg_fuzzXXXXXX");
    if (!mkdtemp(scratch))
        abort();
    char fm[128];
    snprintf(fm, sizeof fm, "%s/fm", scratch);
    if (mkdir(fm, 0700))
        abort();
    write_idx(fm, "train-images-idx3-ubyte", 1);
    write_idx(fm, "train-labels-idx1-ubyte", 0);
    write_idx(fm, "t10k-images-idx3-ubyte", 1);
    write_idx(fm, "t10k-labels-idx1-ubyte", 0);
    /* CSREG_FUZZ_ECHO=1: results and errors on stderr, to check a seed */
    echo = getenv("CSREG_FUZZ_ECHO") != NULL;
    sink = echo ? stderr : fopen("/dev/null", "w");
    setenv("CSREG_GNUPLOT", "/nonexistent/gnuplot", 1);
    return 0;
}

/* ---- the scratch folder emptied between inputs (fm/ stays) ---- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (ftw->level == 0)
        return 0;
    if (ftw->level == 1 && !strcmp(path + ftw->base, "fm"))
        return 0;
    if (ftw->level >= 2 && !strncmp(path + strlen(scratch), "/fm/", 4))
        return 0;
    remove(path);
    return 0;
}

static void empty_scratch(void)
{
    nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- bounded sizes ---- */

/* How many values a list a,b,c or a range start:step:stop holds; a large
 * number when it cannot tell. */
static double count_values(const char *v)
{
    if (strchr(v, ':')) {
        char *e1, *e2, *e3;
        double a = strtod(v, &e1);
        if (*e1 != ':')
            return 1e9;
        double s = strtod(e1 + 1, &e2);
        if (*e2 != ':')
            return 1e9;
        double b = strtod(e2 + 1, &e3);
        if (*e3 || !(s > 0.0) || !isfinite(a) || !isfinite(b))
            return 1e9;
        return b < a ? 0.0 : floor((b - a) / s + 1e-9) + 1.0;
    }
    double n = 1;
    for (; *v; v++)
        n += *v == ',';
    return n;
}

/* Every number of a list is at most max (and a number). */
static int list_at_most(const char *v, double max)
{
    char *end;
    for (;;) {
        double x = strtod(v, &end);
        if (end == v || !(x <= max))
            return 0;
        if (*end != ',')
            return *end == '\0';
        v = end + 1;
    }
}

typedef struct rule {
    const char *cmd, *key;
    double max;     /* the value (every entry of a list) at most this */
    int required;   /* without it the default may be big */
    int count;      /* max bounds the number of values instead */
} rule;

static const rule rules[] = {
    {"problem", "N", 24, 1, 0},      {"problem", "trial", 50, 0, 0},
    {"solve", "maxit", 300, 1, 0},   {"solve", "restarts", 3, 0, 0},
    {"step", "n", 300, 1, 0},        {"step", "maxit", 300, 0, 0},
    {"sweep", "N", 24, 1, 0},        {"sweep", "trials", 3, 1, 0},
    {"sweep", "maxit", 200, 1, 0},   {"sweep", "restarts", 3, 1, 0},
    {"sweep", "threads", 2, 0, 0},   {"sweep", "gamma", 3, 0, 1},
    {"sweep", "M", 3, 0, 1},         {"sweep", "K", 3, 0, 1},
    {"sweep", "methods", 3, 0, 1},   {"sweep", "vary", 2, 0, 1},
    {"basins", "res", 9, 1, 0},      {"basins", "maxit", 100, 1, 0},
    {"basins", "threads", 2, 0, 0},  {"maxcut", "trials", 2, 1, 0},
    {"maxcut", "maxit", 300, 1, 0},  {"train", "limit", 64, 1, 0},
    {"train", "epochs", 1, 0, 0},    {"train", "batch", 64, 0, 0},
    {"train", "hidden", 16, 1, 0},   {"train", "hidden", 2, 1, 1},
    {"finetune", "limit", 64, 1, 0}, {"finetune", "test_limit", 64, 1, 0},
    {"finetune", "epochs", 1, 0, 0}, {"evaluate", "limit", 64, 1, 0},
    {"quantize", "limit", 64, 1, 0}, {"landscape", "res", 31, 0, 0},
    {"reg", "res", 31, 0, 0},        {"predict", "limit", 64, 0, 0},
};

/* Commands that read the network's data: only the scratch folder's fm/. */
static int needs_data(const char *cmd)
{
    return !strcmp(cmd, "train") || !strcmp(cmd, "finetune") || !strcmp(cmd, "evaluate") ||
           !strcmp(cmd, "quantize") || !strcmp(cmd, "predict");
}

static int heavy(const char *cmd)
{
    static const char *const names[] = {"problem", "solve", "step", "sweep", "basins",
                                        "maxcut", "train", "finetune", "evaluate", "quantize",
                                        "predict", "landscape", "reg", "run", "source", NULL};
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(cmd, names[i]))
            return 1;
    return 0;
}

/* Whether a parsed heavy command asks for small work only. */
static int small(const cs_cmdline *cl)
{
    const char *cmd = cl->name;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        if (strcmp(cmd, rules[i].cmd))
            continue;
        const cs_arg *a = cs_cmdline_key(cl, rules[i].key);
        if (!a) {
            /* problem file/save carry no N; a maxcut graph gives its own */
            const cs_arg *p = cs_cmdline_pos(cl, 0);
            int own = !strcmp(cmd, "problem") && p &&
                      (!strcmp(p->value, "file") || !strcmp(p->value, "save") ||
                       !strcmp(p->value, "maxcut"));
            if (rules[i].required && !own)
                return 0;
            continue;
        }
        const char *v = a->value;
        if (!strcmp(rules[i].key, "vary")) {
            v = strchr(v, ':');
            v = v ? v + 1 : "";
        }
        if (rules[i].count ? count_values(v) > rules[i].max : !list_at_most(v, rules[i].max))
            return 0;
    }
    if (needs_data(cmd)) {
        const cs_arg *d = cs_cmdline_key(cl, "data"), *m = cs_cmdline_key(cl, "model");
        if (!d || strcmp(d->value, "fm") || (m && strcmp(m->value, "mlp")))
            return 0;
    }
    /* the bundled G-set graphs are large; the toys and the scratch files are not */
    const cs_arg *g = cs_cmdline_key(cl, "graph");
    if (g && g->value[0] == 'G')
        return 0;
    return !(!strcmp(cmd, "sweep") && cs_cmdline_key(cl, "problems"));
}

/* A line to skip: big work, or work hidden in variables or repeated by a
 * loop (depth: the for loops open, as the harness counts them) or by
 * scripts (runs: run and source lines so far; save session then run,
 * again and again, doubles the work each time). */
static int skip(const char *line, int *depth, int *runs)
{
    cs_cmdline cl;
    int col;
    cs_err err;
    if (cs_cmdline_parse(line, &cl, &col, &err))
        return 0;   /* the interpreter reports it */
    int out = 0;
    if (cl.name && !strcmp(cl.name, "for"))
        ++*depth;
    else if (cl.name && !strcmp(cl.name, "end") && *depth > 0)
        --*depth;
    else if (cl.name && !strcmp(cl.name, "set"))
        out = strstr(line, "threads") != NULL;   /* every core for every later command */
    else if (cl.name && heavy(cl.name))
        out = *depth > 0 || strchr(line, '$') || !small(&cl);
    if (!out && cl.name && (!strcmp(cl.name, "run") || !strcmp(cl.name, "source")))
        out = ++*runs > 2;
    cs_cmdline_free(&cl);
    /* big random matrices are slow, not wrong */
    return out || strstr(line, "random") != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    empty_scratch();
    cs_interp_opts o = {.json = 1, .seed = 1, .threads = 1, .out = sink, .sandbox_dir = scratch,
                        .loop_limit = 256};   /* for loops: a few lines each */
    cs_interp *in;
    cs_err err;
    if (cs_interp_new(&in, &o, &err) == 0) {
        char *save = NULL;
        int lines = 0, depth = 0, runs = 0;
        for (char *line = strtok_r(text, "\n", &save); line && lines < 64;
             line = strtok_r(NULL, "\n", &save), lines++) {
            int col;
            if (skip(line, &depth, &runs)) {
                if (echo)
                    fprintf(stderr, "skipped: %s\n", line);
                continue;
            }
            int rc = cs_interp_exec(in, line, &col, &err);
            if (rc == 1)
                break;
            if (rc < 0 && echo)
                cs_interp_print_error(in, line, &err, stderr);
        }
        cs_interp_free(in);
    }
    cs_reg_defs_reset();   /* nothing refers to a definition any more */
    free(text);
    return 0;
}
