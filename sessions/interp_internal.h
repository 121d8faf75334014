/* interp_internal.h — the interpreter's state, shared by command handlers.
 * The functions below are those of interp_state.c, which every command
 * module may call: the dispatcher (interp.c) and the command table
 * (commands.c) sit above the modules and are never called by them. */
#ifndef CS_INTERP_INTERNAL_H
#define CS_INTERP_INTERNAL_H

#include "cs_commands.h"
#include "cs_device.h"
#include "cs_interp.h"
#include "cs_reg.h"
#include "cs_script.h"
#include "cs_sweep_view.h"

/* State a module of sessions/ keeps in the interpreter (the solver's
 * problem and iterate, the last plot data, the network...). */
enum cs_ext_slot { CS_EXT_SOLVE, CS_EXT_PLOT, CS_EXT_NN, CS_EXT_VIEW, CS_EXT_COUNT };
typedef struct cs_ext {
    void *data;
    void (*free)(void *data);
    /* optional: adds " N=100 M=50" to the prompt */
    void (*describe)(const void *data, char *buf, size_t len);
} cs_ext;

#define CS_JOURNAL_KEYS_MAX 8

struct cs_interp {
    cs_interp_opts opts;
    uint64_t seed;
    int threads;
    cs_device device;     /* `set device`, --device: where networks run */
    cs_reg *reg;          /* current regularizer (never NULL after new) */
    char reg_line[1024];  /* its canonical description */
    char **journal;
    size_t njournal, capjournal;
    cs_result *res;
    int err_col;          /* column of the offending argument, set by cs_arg_* */
    int quit;             /* set by `quit` */
    /* Set by a handler whose command table entry is not journaled but whose
     * invocation must be (e.g. `save model FILE`, whose output a replay must
     * reproduce, unlike `save session`). Read and cleared by cs_interp_exec
     * after a successful run; see cs_interp_journal_this(). */
    int journal_this;
    char *journal_as;     /* the line to journal instead of the typed one */
    /* keys set on the journaled line (cs_interp_journal_key), each "KEY=VALUE" */
    char *journal_keys[CS_JOURNAL_KEYS_MAX];
    size_t njournal_keys;
    int journal_keys_oom;   /* one could not be kept: the command fails */
    int journal_stopped;    /* cs_interp_journal_stopped: journaled even if CS_ECANCEL */
    size_t input_files;     /* files the running command read (cs_interp_input_file) */
    const cs_cmd_spec *running;   /* the command running (its keys) */
    uint64_t initial_seed;  /* for the header of a saved session */
    int initial_threads;    /* likewise: network commands round by it */
    int source_depth;     /* nesting of `source`, bounded */
    int chapter;          /* `chapter` commands so far */
    cs_cancel cancel;     /* set from a signal handler or the TUI */
    int interrupted;      /* the last command ran while cancel was set, or was cancelled */
    char stop_note[256];  /* how far an interrupted command got (cs_interp_note_stop) */
    cs_ext ext[CS_EXT_COUNT];
    int plot_window;      /* `set plot window`: plots without out= open a window */
    cs_interp_progress_fn progress;
    void *progress_ctx;
    cs_interp_watch_fn watch;   /* train and finetune frames (train_watch.c) */
    void *watch_ctx;
    int watch_hist;             /* frames with histograms */
    cs_sweep_watch sweep_watch; /* sweeps followed live (cs_sweep_view.h); start NULL: none */
    long sweep_runs;            /* sweeps watched so far */
    /* the script language (cs_script.h, run by interp.c) */
    cs_vars *vars;        /* let, for, -D */
    cs_block block;       /* a for ... end being typed */
    int lineno;           /* cs_interp_set_line: the number of the next line */
    int where_line;       /* the loop-body line where the last exec stopped */
    char *where_text;     /* (its text; NULL: the line given stopped itself) */
    long loop_commands;   /* lines a loop ran for the line given, bounded */
    /* the dispatcher's one command (interp.c), set by cs_interp_new: how
     * the script language runs a command without calling up into it */
    int (*command)(cs_interp *in, const char *line, int *err_col, cs_err *err);
    /* cs_interp_exec, set by cs_interp_new: how `source` runs its lines
     * without calling up into the dispatcher */
    int (*exec)(cs_interp *in, const char *line, int *err_col, cs_err *err);
};

/* One line of the script language (interp_script.c): let, for ... end,
 * or a command with its variables substituted, run by in->command. lineno
 * is kept with a loop's body lines. cs_interp_exec's, after it reset the
 * state of the line before. */
int cs_interp_script_line(cs_interp *in, const char *line, int lineno, int *err_col,
                          cs_err *err);

/* The module state in `slot`, NULL when none yet. */
void *cs_interp_ext(cs_interp *in, int slot);
/* Replace the module state (the old one is freed). */
void cs_interp_set_ext(cs_interp *in, int slot, void *data, void (*free_fn)(void *),
                       void (*describe)(const void *, char *, size_t));
/* The module state in `slot`, made (zeroed, `size` bytes) and registered
 * with free_fn and describe when there is none yet; *created (may be NULL)
 * says which. NULL only when out of memory. */
void *cs_interp_ext_get(cs_interp *in, int slot, size_t size, int *created,
                        void (*free_fn)(void *),
                        void (*describe)(const void *, char *, size_t), cs_err *err);
/* Ask that the command now running be journaled when it succeeds, even
 * though its table entry says .journal = 0. */
void cs_interp_journal_this(cs_interp *in);
/* Journal `line` (copied) instead of what was typed, e.g. with force=on added
 * so that a replay can write its output file again. */
void cs_interp_journal_as(cs_interp *in, const char *line);
/* Set KEY=VALUE on the line journaled for the command now running, in
 * place when the line has KEY (a later call for the same key replaces the
 * value), else appended after its last argument: what a replay needs
 * besides the line typed (device=cuda that auto chose, the digests of the
 * files read). Ignored when the command's table has no such key, so that
 * a replay never meets an unknown key. kv is "KEY=VALUE". */
void cs_interp_journal_key(cs_interp *in, const char *kv);
/* The command now running was stopped part way (Esc, Ctrl-C) after it
 * changed the session's state or left files: journal it even when it
 * returns CS_ECANCEL, with kv ("stop_after=179") set on its line as
 * cs_interp_journal_key does, so that a replay stops at the same point
 * with the same state. The command's own key kv makes it stop there. */
void cs_interp_journal_stopped(cs_interp *in, const char *kv);
/* A file the running command reads (path: as opened; shown: as typed, for
 * messages): its SHA-256 goes into the journaled line's sha256= (digests in
 * the order the command reads its files), and when the line given has
 * sha256= (a replay) the file's digest must be the one at its place, else
 * CS_ESTATE naming the file ("d/b.npy changed since the session was
 * recorded"). Needs `sha256` among the command's keys (else only hashed). */
int cs_interp_input_file(cs_interp *in, const cs_cmdline *cl, const char *shown,
                         const char *path, cs_err *err);
/* After the last cs_interp_input_file of a command whose files a pattern
 * finds (sweep problems='DIR/GLOB'): a replay's sha256= that lists more
 * digests than files were read is refused (a file is gone). */
int cs_interp_inputs_done(cs_interp *in, const cs_cmdline *cl, cs_err *err);
/* cs_interp_input_file for a file the user named (name, as typed, maps to
 * path); nothing for one the program found in its own data (a G-set graph
 * by name, a built-in graph): those come with csreg. */
int cs_interp_input_named(cs_interp *in, const cs_cmdline *cl, const char *name,
                          const char *path, cs_err *err);
/* An interrupted command that still succeeds (train keeps its weights)
 * says how far it got, for a script's message: "train stopped at ...". */
void cs_interp_note_stop(cs_interp *in, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
uint64_t cs_interp_seed(const cs_interp *in);
/* When a module's state last changed, comparable across modules (front
 * ends redraw what changed): one more than the commands journaled before
 * the one running. */
long cs_interp_stamp(const cs_interp *in);
int cs_interp_threads(const cs_interp *in);
const cs_reg *cs_interp_reg(const cs_interp *in);

/* An engine progress callback (cs_progress_fn: trials or rows done of
 * total) that reports to the front end as `what`. */
typedef struct cs_progress_to {
    cs_interp *in;
    const char *what;
} cs_progress_to;
void cs_interp_progress_engine(void *progress_to, size_t done, size_t total);

#endif
