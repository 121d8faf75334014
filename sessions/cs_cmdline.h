/* cs_cmdline.h — one command line split into a name and arguments.
 * Syntax: `name key=value ... positional ...`, values are numbers, words,
 * lists a,b,c, ranges start:step:stop, or quoted strings ("..." or '...');
 * `#` after whitespace (or at the start) begins a comment. */
#ifndef CS_CMDLINE_H
#define CS_CMDLINE_H

#include <stddef.h>

#include "cs_error.h"

typedef struct cs_arg {
    char *key;    /* NULL for a positional argument */
    char *value;  /* unquoted text */
    int col;      /* 1-based column where the argument starts */
    int quoted;
} cs_arg;

typedef struct cs_cmdline {
    char *name;   /* NULL for an empty or comment-only line */
    int name_col;
    cs_arg *args;
    size_t nargs;
} cs_cmdline;

/* Split `line`. On error returns <0 and sets *err_col (1-based). */
int cs_cmdline_parse(const char *line, cs_cmdline *out, int *err_col, cs_err *err);
void cs_cmdline_free(cs_cmdline *cl);

/* Value of key=..., NULL when absent (the last one wins). */
const cs_arg *cs_cmdline_key(const cs_cmdline *cl, const char *key);
/* The i-th positional argument, NULL when absent. */
const cs_arg *cs_cmdline_pos(const cs_cmdline *cl, size_t i);
size_t cs_cmdline_npos(const cs_cmdline *cl);

#endif
