/* cs_commands.h — the command table (sessions/ only). Commands, their keys,
 * defaults and help text live in one table, from which the parser's key
 * checks, tab completion and `help` all come. */
#ifndef CS_COMMANDS_H
#define CS_COMMANDS_H

#include <stddef.h>

#include "cs_cmdline.h"
#include "cs_interp.h"
#include "cs_result.h"

enum cs_key_kind { CS_KEY_NUM, CS_KEY_INT, CS_KEY_WORD, CS_KEY_FILE, CS_KEY_LIST, CS_KEY_RANGE,
                   CS_KEY_TEXT };

typedef struct cs_key_spec {
    const char *key;
    const char *def;      /* default as shown in help; NULL: required */
    const char *help;
    const char *choices;  /* closed set "a|b|c" (validated, completed), or NULL */
    int kind;             /* enum cs_key_kind */
} cs_key_spec;

typedef int (*cs_cmd_fn)(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);

typedef struct cs_cmd_spec {
    const char *name;
    const char *topic;     /* groups `help`: basics, regularizers, solvers, ... */
    const char *usage;     /* "eval X" */
    const char *summary;   /* one line */
    const char *example;
    int min_pos, max_pos;  /* positional arguments allowed */
    int open_keys;         /* 1: keys are passed through (reg NAME key=...) */
    const cs_key_spec *keys;  /* terminated by {0} */
    cs_cmd_fn run;
    int journal;           /* 0: not journaled (help, regs, save session, quit) */
    int blas_threads;      /* 1: runs networks, with OpenBLAS on the session's threads;
                              0: OpenBLAS on one thread, so the results never depend
                              on --threads (sweeps run their own workers) */
} cs_cmd_spec;

/* Each module of sessions/ contributes a group (cmd_solve.c: cs_group_solve,
 * ...); commands.c lists the groups in help order. */
typedef struct cs_cmd_group {
    const cs_cmd_spec *cmds;
    size_t n;
} cs_cmd_group;
#define CS_CMD_GROUP(name, array) \
    const cs_cmd_group name = {array, sizeof(array) / sizeof((array)[0])}

size_t cs_command_count(void);
const cs_cmd_spec *cs_command_at(size_t i);
const cs_cmd_spec *cs_command_find(const char *name);
const cs_key_spec *cs_command_key(const cs_cmd_spec *cmd, const char *key);

/* Edit distance for "did you mean" (Levenshtein, capped). */
int cs_edit_distance(const char *a, const char *b);
/* The name closest to `word` if it is a likely typo of it, else NULL. */
const char *cs_closest_name(const char *word, const char *const *names, size_t n);

#endif
