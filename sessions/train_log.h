/* train_log.h — `train ... log=DIR`: the run written as a run folder
 * (docs/runfolder.md), the format any program writes for `csreg watch`:
 * run.json, a snapshot of every weight layer (float32 .npy, rows = output
 * units) at the start, every hist_every steps (0: each epoch end) and at
 * the end, and a line of metrics.jsonl after every step. Each file is
 * written under a temporary name and renamed; a line is one write. Taken
 * between steps through the engine's progress callback, chained before the
 * one already set (train_watch.h), so a live view and the log see the same
 * steps: the snapshots are at the steps of the live frames with
 * hist_every=N. */
#ifndef CS_TRAIN_LOG_H
#define CS_TRAIN_LOG_H

#include "cs_nn.h"
#include "nn_state.h"
#include "train_watch.h"

typedef struct train_log train_log;

/* Before cs_nn_train (after train_watch_begin): with log=DIR, DIR made and
 * started afresh (a new metrics.jsonl: a viewer following it starts over),
 * run.json and the first snapshot written, o->progress chained. *out NULL
 * (o untouched) without log=. A folder that cannot be written fails the
 * command before it trains. */
int train_log_begin(train_log **out, cs_interp *in, const cs_cmdline *cl, nn_state *s,
                    const train_watch_run *run, cs_nn_train_opts *o, cs_err *err);
/* After cs_nn_train: the last step's snapshot (when not written yet) and
 * run.json marked done; into res (when not NULL) log, log_snapshots,
 * log_seconds (its cost) and log_error (a write that failed during the
 * run: the log stopped there, training went on); then free. NULL: no-op. */
void train_log_end(train_log *tl, const cs_nn_train_report *rep, cs_result *res);

#endif
