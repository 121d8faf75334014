/* cs_progress.h — the progress bar of long commands (sweep, maxcut) on
 * stderr: `sweep [########......]  45%  1350/3000  ETA 1m23s`, redrawn at
 * most 10 times a second, erased when the work is done; for train and
 * finetune `train epoch 1/2 [#####.....]  45%  ETA 12s  loss 0.4123  ...`.
 * Drawn only when stderr is a terminal; scripts piping stderr see nothing. */
#ifndef CS_PROGRESS_H
#define CS_PROGRESS_H

#include "cs_interp.h"

/* Register the bar with the interpreter (cs_interp_set_progress; the
 * training line with cs_interp_set_watch, unless json), and for scripts
 * and -e commands a SIGINT handler that cancels the running command (its
 * finished part is kept); a second Ctrl-C ends the program. The REPL
 * installs its own handler when it starts. */
void cs_progress_install(cs_interp *in, int json);

/* The callback itself (ctx unused), for front ends that draw elsewhere. */
void cs_progress_draw(void *ctx, double done, double total, const char *what);

/* Erase a bar left on screen (a command that ended early: error, Ctrl-C). */
void cs_progress_end(void);

/* Format "1h02m", "3m20s", "42s" into buf. */
void cs_progress_fmt_time(double seconds, char *buf, size_t len);

#endif
