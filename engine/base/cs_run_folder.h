/* cs_run_folder.h — reading a run folder (docs/runfolder.md) while its
 * writer fills it: run.json (the run's name, regularizer, layers),
 * metrics.jsonl (one JSON object a line: step, epoch, loss, other numbers,
 * and for a snapshot the .npy file of each watched layer). Any program
 * writes one (csreg's `train log=DIR`, python/csreg/watch.py); `csreg
 * watch` and the `watch` command read it through this module.
 *
 * Following: cs_run_folder_poll takes what was added since the last call.
 * A line is taken only once its newline is there (a writer appending it is
 * never seen half-way); a line that is not a JSON object with a step, or
 * names a file outside the folder, is skipped with a message
 * (cs_run_folder_message), and reading goes on. run.json is read again
 * whenever it changes. Reading never writes or locks anything, so writers
 * never wait for readers. */
#ifndef CS_RUN_FOLDER_H
#define CS_RUN_FOLDER_H

#include <stddef.h>

#include "cs_error.h"

#define CS_RUN_METRICS 16    /* numbers per line kept besides step and epoch */

typedef struct cs_run_layer {
    char name[128];
    size_t rows, cols;       /* run.json's shape: shape[0] and the product of the rest
                                (0 when run.json does not give it) */
    int regularized;         /* run.json's "regularized" (default 1) */
} cs_run_layer;

typedef struct cs_run_info {
    char name[128];          /* "" when run.json has none (yet) */
    char reg[64];            /* the regularizer's name, "none" when not given */
    char params[256];        /* its parameters as "lambda=0.0001 ...", "" */
    double lambda;           /* params' lambda, NAN when not given */
    int levels;              /* run.json's "levels" (2: ±α, 3: {−α, 0, +α}), 0 when not given */
    char device[32];         /* "" when not given */
    double steps;            /* the steps planned, NAN when not given */
    double epochs;           /* the epochs planned, NAN */
    int done;                /* run.json says the run ended */
    int have;                /* run.json was read */
} cs_run_info;

/* One line of metrics.jsonl. */
typedef struct cs_run_point {
    double step, epoch;      /* epoch NAN when not given */
    double val[CS_RUN_METRICS];   /* by cs_run_folder_metric's index; NAN when absent */
    long snap;               /* the snapshot of this line, -1 when it has no files */
} cs_run_point;

typedef struct cs_run_file {
    size_t layer;            /* index into the layers */
    char *path;              /* relative to the folder */
} cs_run_file;

/* A line with files. */
typedef struct cs_run_snap {
    size_t point;            /* its line among the points */
    size_t line;             /* 1-based line of metrics.jsonl */
    double step, epoch;
    size_t nfiles;
    cs_run_file *file;
} cs_run_snap;

typedef struct cs_run_folder cs_run_folder;

/* Open the folder dir (it must exist; run.json and metrics.jsonl may come
 * later). Reads nothing yet. */
int cs_run_folder_open(cs_run_folder **out, const char *dir, cs_err *err);
void cs_run_folder_free(cs_run_folder *rf);
const char *cs_run_folder_dir(const cs_run_folder *rf);

/* Take what was added: run.json when it changed, the new complete lines of
 * metrics.jsonl. Returns how many lines were taken (>= 0), or < 0 when the
 * folder cannot be read (err). A metrics.jsonl that shrank (a new run in the
 * same folder) is read again from its start: the points and snapshots
 * start over (and a message says so). */
int cs_run_folder_poll(cs_run_folder *rf, cs_err *err);
/* How many times the points started over (see poll): a reader that keeps
 * things per snapshot starts over when it changes. */
unsigned cs_run_folder_generation(const cs_run_folder *rf);
/* The oldest message not taken yet (a skipped line, an unreadable
 * run.json): 1 with it in msg, 0 when none. */
int cs_run_folder_message(cs_run_folder *rf, char *msg, size_t len);

const cs_run_info *cs_run_folder_info(const cs_run_folder *rf);
size_t cs_run_folder_layer_count(const cs_run_folder *rf);
const cs_run_layer *cs_run_folder_layer(const cs_run_folder *rf, size_t i);
/* The numbers the lines carry besides step and epoch ("loss", "lr", ...),
 * in order of appearance; the first CS_RUN_METRICS are kept. */
size_t cs_run_folder_metric_count(const cs_run_folder *rf);
const char *cs_run_folder_metric(const cs_run_folder *rf, size_t k);
/* Index of a metric by name, -1 when absent. */
int cs_run_folder_metric_find(const cs_run_folder *rf, const char *name);
size_t cs_run_folder_point_count(const cs_run_folder *rf);
const cs_run_point *cs_run_folder_point(const cs_run_folder *rf, size_t i);
size_t cs_run_folder_snap_count(const cs_run_folder *rf);
const cs_run_snap *cs_run_folder_snap(const cs_run_folder *rf, size_t i);

/* Layer `layer`'s weights in snapshot i (cs_npy_read_f32: float32 of any
 * shape, rows = output units) into *w (malloc'd). CS_ENOTFOUND when the
 * snapshot has no file of that layer; CS_EDIM when the array's size is not
 * run.json's shape. Errors name the file. */
int cs_run_folder_load(const cs_run_folder *rf, size_t i, size_t layer, float **w, size_t *rows,
                       size_t *cols, cs_err *err);

#endif
