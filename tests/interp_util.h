/* interp_util.h — an interpreter in process for tests: results go to a
 * memory buffer, files optionally to a private temporary folder; `ok` and
 * `fails` run a line and assert on the outcome. */
#ifndef CS_INTERP_UTIL_H
#define CS_INTERP_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cs_interp.h"

typedef struct fixture {
    cs_interp *in;
    char *buf;    /* everything printed so far */
    size_t len;
    FILE *out;
    char dir[64]; /* the private folder, "" when none */
} fixture;

/* sandbox: 1 gives the interpreter a fresh temporary folder for its files. */
fixture *fixture_new(int json, uint64_t seed, int threads, int sandbox);
void fixture_free(fixture *f);
/* cmocka setup/teardown shapes */
int fixture_setup_json(void **state);
int fixture_setup_text(void **state);
int fixture_teardown(void **state);

/* Run a line that must succeed; returns what it printed. */
const char *ok(fixture *f, const char *line);
/* Run a line that must fail with `needle` in a one-line message, at column
 * want_col (-1: any). */
void fails(fixture *f, const char *line, const char *needle, int want_col);

/* A whole file, NUL-terminated, malloc'd (NULL when unreadable); *len may be NULL. */
char *slurp(const char *path, size_t *len);
/* A CSV csreg wrote without its provenance lines ("# csreg: ", "# seed: ",
 * "# command: ", "# reg: ", wherever they are: cs_provenance.h; they name
 * the command, which differs between runs a test compares); other comment
 * lines ("# partial") stay. NULL: unreadable. */
char *slurp_csv(const char *path);

/* The number after "key": in a JSON line (NAN when absent; true/false as
 * 1/0). */
double jnum(const char *json, const char *key);
/* 1 when the NULL-terminated list c (may be NULL) holds word. */
int list_has(char **c, const char *word);

/* Remove a folder and the files directly in it. */
void rm_dir(const char *dir);

#endif
