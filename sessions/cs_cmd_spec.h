/* cs_cmd_spec.h — a command's spec (sessions/ only): its name, keys,
 * defaults and help, and what can be read from one spec without the table
 * (cmd_spec.c): a key, the usage line, "did you mean". */
#ifndef CS_CMD_SPEC_H
#define CS_CMD_SPEC_H

#include <stddef.h>

#include "cs_cmdline.h"
#include "cs_interp.h"
#include "cs_result.h"

enum cs_key_kind { CS_KEY_NUM, CS_KEY_INT, CS_KEY_WORD, CS_KEY_FILE, CS_KEY_LIST, CS_KEY_RANGE,
                   CS_KEY_TEXT };

typedef struct cs_key_spec {
    const char *key;
    const char *def;      /* default as shown in help; NULL or "": none, the key is
                             optional; CS_REQUIRED: the command needs it;
                             a plain value ("100", "oracle") is also what `help`'s usage
                             line shows for {key} */
    const char *help;
    const char *choices;  /* closed set "a|b|c" (validated, completed), or NULL */
    int kind;             /* enum cs_key_kind */
} cs_key_spec;

/* The default of a key the command cannot do without: help says "(required)". */
extern const char cs_key_required[];
#define CS_REQUIRED cs_key_required

typedef int (*cs_cmd_fn)(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);

typedef struct cs_cmd_spec {
    const char *name;
    const char *topic;     /* groups `help`: basics, regularizers, solvers, ... */
    const char *usage;     /* "eval X"; {key} stands for key=DEFAULT from the key table
                              (cs_command_usage), so the two cannot disagree */
    const char *summary;   /* one line */
    const char *example;
    int min_pos, max_pos;  /* positional arguments allowed */
    int open_keys;         /* 1: keys are passed through (reg NAME key=...) */
    const cs_key_spec *keys;  /* terminated by {0} */
    cs_cmd_fn run;
    int journal;           /* 0: not journaled (help, regs, save session, quit) */
    int blas_threads;      /* 1: runs networks, the CPU backend's ops on the session's
                              threads (cs_par.h: the same bits on any count); 0: one
                              thread (sweeps run their own workers); OpenBLAS always
                              runs on one */
} cs_cmd_spec;

/* Each module of sessions/ contributes a group (cmd_solve.c: cs_group_solve,
 * ...); commands.c lists the groups in help order. */
typedef struct cs_cmd_group {
    const cs_cmd_spec *cmds;
    size_t n;
} cs_cmd_group;
#define CS_CMD_GROUP(name, array) \
    const cs_cmd_group name = {array, sizeof(array) / sizeof((array)[0])}

const cs_key_spec *cs_command_key(const cs_cmd_spec *cmd, const char *key);
/* The usage line with each {key} written as key=DEFAULT (key=.. when the
 * default is not a plain value); returns buf. */
const char *cs_command_usage(const cs_cmd_spec *cmd, char *buf, size_t len);
/* 1 when the key's default is a value a user could type: a number for
 * numeric keys, one of the choices, a literal range or list. */
int cs_key_def_plain(const cs_key_spec *k);

/* Edit distance for "did you mean" (Levenshtein, capped). */
int cs_edit_distance(const char *a, const char *b);
/* The name closest to `word` if it is a likely typo of it, else NULL. */
const char *cs_closest_name(const char *word, const char *const *names, size_t n);

#endif
