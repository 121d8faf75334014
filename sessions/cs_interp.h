/* cs_interp.h — the command interpreter: one state, one entry point.
 * Every front end (scripts, -e, the REPL, the TUI) sends lines here, so
 * they can never drift apart; each successful command is journaled. */
#ifndef CS_INTERP_H
#define CS_INTERP_H

#include <stdint.h>
#include <stdio.h>

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
} cs_interp_opts;

int cs_interp_new(cs_interp **out, const cs_interp_opts *opts, cs_err *err);
void cs_interp_free(cs_interp *in);

/* Run one line. Returns 0 (result printed), 1 when the line was `quit`, or
 * <0 with err filled; *err_col is the 1-based column of the offending
 * argument (0 when none). In JSON mode the caller prints the error object
 * with cs_interp_print_error. */
int cs_interp_exec(cs_interp *in, const char *line, int *err_col, cs_err *err);
void cs_interp_print_error(cs_interp *in, const char *line, const cs_err *err, FILE *out);

/* The journal: successful command lines, in order. */
size_t cs_interp_journal_len(const cs_interp *in);
const char *cs_interp_journal_line(const cs_interp *in, size_t i);

/* Prompt text showing the state, e.g. "csreg[bin]> ". */
void cs_interp_prompt(const cs_interp *in, char *buf, size_t len);

#endif
