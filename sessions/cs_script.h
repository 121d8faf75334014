/* cs_script.h — the parts of the script language that need no interpreter
 * (script.c): variables (`let`, `csreg -D`, `for`), the substitution of
 * $NAME and ${NAME} in a line's arguments, the values of a `for` list, and
 * the lines of a `for` ... `end` block as they are typed. The interpreter
 * (interp.c) runs them: see docs/manual.md, "The script language". */
#ifndef CS_SCRIPT_H
#define CS_SCRIPT_H

#include <stddef.h>

#include "cs_error.h"

enum { CS_VAR_NAME_MAX = 64 };

/* ---- variables ---------------------------------------------------------------- */

typedef struct cs_vars cs_vars;

cs_vars *cs_vars_new(void);
void cs_vars_free(cs_vars *v);
/* Drop every variable but the fixed ones (-D): a reset session. */
void cs_vars_clear(cs_vars *v);
/* 1 when s is a name: a letter or _, then letters, digits, _ (64 at most). */
int cs_var_name_ok(const char *s, size_t len);
/* NAME's value, NULL when undefined; *fixed (may be NULL) whether -D set it. */
const char *cs_vars_get(const cs_vars *v, const char *name, size_t len, int *fixed);
/* Set NAME (copies both). A fixed name (-D) keeps its value against a
 * later set unless this one is fixed (or force: a loop). Returns 0, 1 when
 * a fixed value was kept, CS_ENOMEM. */
int cs_vars_set(cs_vars *v, const char *name, const char *value, int fixed, int force);
void cs_vars_unset(cs_vars *v, const char *name);

/* ---- substitution ------------------------------------------------------------- */

/* `line` with $NAME and ${NAME} replaced by their values in its arguments:
 * not in the command word, in '...' or in a comment; a `$` followed by
 * neither a name nor `{` stays. A value that is not a plain word goes in
 * quoted, so the new line parses to it and substitutes to itself again
 * (it is what the journal keeps). *out (malloc'd) is the new line; *map
 * (malloc'd, strlen(*out) + 1 entries) the 1-based column of `line` each
 * of its bytes comes from. An undefined name: CS_EINVAL, *err_col at its `$`. */
int cs_script_expand(const cs_vars *v, const char *line, char **out, int **map, int *err_col,
                     cs_err *err);

/* The first word of line is `word` (then a blank, `#` or the end); *col
 * (may be NULL) gets its 1-based column. */
int cs_script_word(const char *line, const char *word, int *col);

/* ---- for lists ---------------------------------------------------------------- */

/* `a,b,c` into its entries as typed (*vals malloc'd, each malloc'd); an
 * empty entry is an error with *fault its byte offset. */
int cs_script_split(const char *text, char ***vals, size_t *n, size_t *fault, cs_err *err);
void cs_script_free_list(char **vals, size_t n);

/* ---- for ... end blocks --------------------------------------------------------- */

typedef struct cs_block_line {
    char *text;
    int lineno;
} cs_block_line;

/* A `for` loop being typed: its variable and values (from the `for` line),
 * then the lines of its body up to the matching `end` (nested blocks kept
 * as lines: they run when the body does). */
typedef struct cs_block {
    int depth;              /* `for` lines open; 0: no block */
    char *head;             /* the `for` line, its number, its column */
    int head_line, head_col;
    char name[CS_VAR_NAME_MAX + 1];
    char **vals;
    size_t nvals;
    cs_block_line *body;
    size_t nbody, cap;
} cs_block;

/* Open a block for `head` (depth 1), taking vals. 0 or CS_ENOMEM. */
int cs_block_open(cs_block *b, const char *head, int lineno, int col, const char *name,
                  char **vals, size_t nvals);
/* Add a typed line: 1 when it was the block's last `end` (the block is
 * complete, not added), 0 when the block goes on, CS_ENOMEM. */
int cs_block_add(cs_block *b, const char *line, int lineno);
/* Empty the block (depth 0). */
void cs_block_clear(cs_block *b);

#endif
