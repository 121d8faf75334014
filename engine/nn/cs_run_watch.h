/* cs_run_watch.h — the numbers of a run folder's snapshots (cs_run_folder.h)
 * as the training view shows the frames of a live run (cs_nn.h,
 * "watching"): per snapshot and layer the per-row scales α_r of the levels
 * (±α_r, α_r the mean |w| of the row; ternary {−α_r, 0, +α_r} with the
 * threshold τ_r: the quantizers cs_quant_binary and cs_quant_ternary), the
 * share of weights within 1% of α_r of a level, the share whose level
 * changed since the previous snapshot (the sign; ternary: which of the
 * three levels), and the exact histogram over a range fixed for the layer
 * (set by its first snapshot, widened by half when more than 1% of its
 * weights leave it: the rule of a live run's frames, nn_watch.c). The
 * numbers are the CPU backend's own ops on the files' floats, so a folder
 * written by `train log=DIR` reads back with the counts the live view
 * showed.
 *
 * Snapshots are taken in order as the folder grows (cs_run_watch_update);
 * one whose files cannot all be read (truncated, missing, another shape
 * than run.json's) is skipped with a message, and the next one is compared
 * with the last good one. */
#ifndef CS_RUN_WATCH_H
#define CS_RUN_WATCH_H

#include <stddef.h>

#include "cs_nn.h"
#include "cs_run_folder.h"

typedef struct cs_run_watch cs_run_watch;

/* Watch the folder rf (borrowed: it outlives the watch). */
int cs_run_watch_new(cs_run_watch **out, cs_run_folder *rf, cs_err *err);
void cs_run_watch_free(cs_run_watch *w);

/* Poll the folder and take its new snapshots. Returns how many good ones
 * came (>= 0), or < 0 when the folder cannot be read. A folder that
 * started over (cs_run_folder_generation) starts the watch over too. */
int cs_run_watch_update(cs_run_watch *w, cs_err *err);
/* The oldest message not taken yet (a snapshot skipped, the folder's own
 * messages): 1 with it in msg, 0 when none. */
int cs_run_watch_message(cs_run_watch *w, char *msg, size_t len);

/* 2 (±α) or 3 (ternary): run.json's "levels", else the regularizer's
 * target (ter and its kin: 3), else 2. Set by the first snapshot. */
int cs_run_watch_levels(const cs_run_watch *w);
/* Good snapshots so far; the k-th's line in the folder. */
size_t cs_run_watch_count(const cs_run_watch *w);
const cs_run_snap *cs_run_watch_snap(const cs_run_watch *w, size_t k);
/* The latest good snapshot at or before `step` (0 when none is). */
size_t cs_run_watch_at_step(const cs_run_watch *w, double step);

/* Layer j at good snapshot k without a histogram (bins 0): its name (the
 * last 14 bytes of a longer one, after '~'), shape, scales, near and flips
 * (NAN at its first snapshot), range. CS_ENOTFOUND when that snapshot has
 * no file of the layer: *out then has the name, run.json's shape and NAN
 * numbers. */
int cs_run_watch_layer(const cs_run_watch *w, size_t k, size_t j, cs_nn_watch_layer *out,
                       cs_err *err);
/* The same with the histogram of `bins` bins (1..CS_NN_WATCH_BINS) over
 * the layer's range at that snapshot, or over [lo, hi] when lo < hi (two
 * runs on one axis); reads the layer's file again. */
int cs_run_watch_hist(const cs_run_watch *w, size_t k, size_t j, int bins, double lo, double hi,
                      cs_nn_watch_layer *out, cs_err *err);

#endif
