/* cs_jval.h — a small JSON reader (RFC 8259) for the files other programs
 * write for csreg to read (a run folder's run.json and metrics.jsonl,
 * cs_run_folder.h): one text into a tree of values. Numbers are doubles;
 * strings are UTF-8 with their escapes decoded (\u0000 is refused: the
 * tree's strings are NUL-terminated). Nesting is limited to 64 levels.
 * (The writers of JSON are the sessions' cs_result.h.) */
#ifndef CS_JVAL_H
#define CS_JVAL_H

#include <stddef.h>

#include "cs_error.h"

typedef enum cs_jval_type {
    CS_JVAL_NULL, CS_JVAL_FALSE, CS_JVAL_TRUE, CS_JVAL_NUMBER, CS_JVAL_STRING, CS_JVAL_ARRAY,
    CS_JVAL_OBJECT
} cs_jval_type;

typedef struct cs_jval {
    cs_jval_type type;
    double num;              /* NUMBER */
    char *str;               /* STRING */
    size_t n;                /* ARRAY, OBJECT: members */
    struct cs_jval *item;    /* their values, in order */
    char **key;              /* OBJECT: their keys (a repeated key: the first counts) */
} cs_jval;

/* Parse text[0..len) (one value, blanks around it) into *out (cs_jval_free
 * it). CS_EINVAL with the byte offset of the fault in the message; *out
 * NULL then. */
int cs_jval_parse(const char *text, size_t len, cs_jval **out, cs_err *err);
void cs_jval_free(cs_jval *v);

/* The member `key` of an object; NULL when v is not an object or has none. */
const cs_jval *cs_jval_get(const cs_jval *v, const char *key);
/* A number's value (true 1, false 0), else def. */
double cs_jval_num(const cs_jval *v, double def);
/* A string's text, else def. */
const char *cs_jval_str(const cs_jval *v, const char *def);

#endif
