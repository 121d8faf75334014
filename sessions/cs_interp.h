/* cs_interp.h — the command interpreter: one state, one entry point.
 * Every front end (scripts, -e, the REPL, the TUI) sends lines here, so
 * they can never drift apart; each successful command is journaled.
 * interp.c dispatches (new, exec); cmd_session.c runs files; the state
 * the commands read is interp_state.c's. */
#ifndef CS_INTERP_H
#define CS_INTERP_H

#include <stdint.h>
#include <stdio.h>

#include "cs_cancel.h"
#include "cs_cmdline.h"
#include "cs_error.h"
#include "cs_result.h"

typedef struct cs_interp cs_interp;

typedef struct cs_interp_opts {
    int json;        /* one JSON object per command on `out` */
    uint64_t seed;
    int threads;     /* 0: all cores */
    const char *device;
    FILE *out;       /* results (stdout) */
    /* Fuzzing and tests: every file name a command reads or writes is mapped
     * to sandbox_dir/BASENAME. NULL: paths are used as given. */
    const char *sandbox_dir;
    /* Script variables given from outside (csreg -D NAME=VALUE), each
     * "NAME=VALUE": set before any line runs, kept by cs_interp_reset, and
     * never changed by a script's `let` (a `for` over one is an error). */
    const char *const *defines;
    size_t ndefines;
    /* The most lines loops may run for one line given (0: 1,000,000);
     * the fuzzer keeps it small. */
    long loop_limit;
} cs_interp_opts;

int cs_interp_new(cs_interp **out, const cs_interp_opts *opts, cs_err *err);
void cs_interp_free(cs_interp *in);

/* Run one line. Returns 0 (result printed), 1 when the line was `quit`, or
 * <0 with err filled; *err_col is the 1-based column of the offending
 * argument (0 when none). In JSON mode the caller prints the error object
 * with cs_interp_print_error.
 * The script language is read here, so every front end has it: `let NAME =
 * VALUE`, $NAME and ${NAME} in arguments, and `for NAME in LIST` ... `end`,
 * whose lines are kept (0 returned, nothing run) until the matching `end`
 * arrives, which runs the loop. A loop stops at its first error (err_col
 * is then that body line's: cs_interp_where says which) or at an interrupt
 * (a command interrupted, or CS_INTERRUPTED_BEFORE when the flag was set
 * between two of its commands). The journal gets each command as it ran:
 * loops unrolled, variables substituted; let, for and end are not journaled. */
int cs_interp_exec(cs_interp *in, const char *line, int *err_col, cs_err *err);
/* The number of the next line given to cs_interp_exec in its script (0:
 * none), kept with a loop's body lines so an error in one names its line. */
void cs_interp_set_line(cs_interp *in, int lineno);
/* Where the last cs_interp_exec stopped when the line given was the `end`
 * of a loop: the body line (its number from cs_interp_set_line, *text its
 * text as typed) that failed or was interrupted; 0 and *text NULL when it
 * was the line given itself. */
int cs_interp_where(const cs_interp *in, const char **text);
/* The end of the input (a script, the -e lines, the REPL): a `for` still
 * waiting for its `end` is dropped, and is an error (CS_EINVAL, *err_col
 * its column; cs_interp_where gives its line). 0 when none was open. */
int cs_interp_finish(cs_interp *in, int *err_col, cs_err *err);
void cs_interp_print_error(cs_interp *in, const char *line, const cs_err *err, FILE *out);

/* Back to the state of a new interpreter with the same options (every
 * module's state dropped, the journal emptied): what replaying a script
 * from its start needs, e.g. the workbench's "back a chapter". */
int cs_interp_reset(cs_interp *in, cs_err *err);

/* The journal: successful command lines, in order. */
size_t cs_interp_journal_len(const cs_interp *in);
const char *cs_interp_journal_line(const cs_interp *in, size_t i);

/* Report of one failing script line (file, 1-based line and column, the
 * line's text) to the front end, which formats it. */
typedef void (*cs_report_fn)(void *ctx, const char *file, int line, int col, const char *text,
                             const cs_err *err);

/* Run a script file line by line (a regular text file: a NUL byte or a
 * line over 1 MiB is an error at its position). Stops at the first error
 * unless keep_going, and always at an interrupt: the cancel flag set
 * before a line or while it ran (CS_ECANCEL, naming the command and how far
 * it got). Returns 0, 1 after `quit`, or <0 (the first error, already
 * reported through `report` when non-NULL). */
int cs_interp_run_file(cs_interp *in, const char *path, int keep_going, cs_report_fn report,
                       void *ctx, cs_err *err);

/* Progress of long commands (sweep, maxcut, solve with restarts): the
 * front end draws it (a bar on a terminal's stderr, the TUI's status line).
 * Called from the thread running the command; `what` names the work. */
typedef void (*cs_interp_progress_fn)(void *ctx, double done, double total, const char *what);
void cs_interp_set_progress(cs_interp *in, cs_interp_progress_fn fn, void *ctx);
/* For command modules: report progress (no-op without a callback). */
void cs_interp_progress(cs_interp *in, double done, double total, const char *what);

/* Watching train and finetune live, next to progress: the front end gets
 * frames (cs_train_view.h) from the thread running the command, a few per
 * second: with histograms (one layer's histogram, every layer's scales and
 * readiness, test accuracy at epoch ends; the TUI) or without (progress
 * numbers only, ten a second at most; a terminal's progress line). The
 * callback may change *want: the histogram it wants from the next frame on.
 * Watching changes no result: the weights are the same bit for bit. */
struct cs_train_frame;
typedef struct cs_train_want {
    int bins;           /* 1..256 */
    char layer[16];     /* "": the frame's choice (cs_train_frame.sel) */
} cs_train_want;
typedef void (*cs_interp_watch_fn)(void *ctx, const struct cs_train_frame *f,
                                   cs_train_want *want);
void cs_interp_set_watch(cs_interp *in, cs_interp_watch_fn fn, void *ctx, int histograms);

/* The flag long commands poll; a SIGINT handler sets it to cancel. */
cs_cancel *cs_interp_cancel_flag(cs_interp *in);
/* After cs_interp_exec: whether the flag stopped the last command: it
 * failed with CS_ECANCEL, finished only partly (train keeps the weights of
 * its last completed step), or the flag was set while it ran. *how (may be
 * NULL) gets what the command said about how far it got ("" when nothing).
 * Scripts stop there (cs_interp_run_file: CS_ECANCEL; csreg exits 130);
 * the REPL and the TUI go on. */
int cs_interp_interrupted(const cs_interp *in, const char **how);
/* The message of a command stopped by an interrupt: rc and err are what
 * cs_interp_exec of `line` gave (rc = CS_INTERRUPTED_BEFORE: the flag was
 * set before it started, and it did not run). Names the command and how
 * far it got. */
#define CS_INTERRUPTED_BEFORE 2
void cs_interp_interrupt_msg(cs_interp *in, const char *line, int rc, const cs_err *err,
                             cs_err *out);

/* A file name as the command should use it (sandbox mapping), into buf. */
int cs_interp_path(cs_interp *in, const char *path, char *buf, size_t len, cs_err *err);

/* Prompt text showing the state, e.g. "csreg[bin]> "; "...> " while a
 * for loop is being typed. */
void cs_interp_prompt(const cs_interp *in, char *buf, size_t len);

#endif
