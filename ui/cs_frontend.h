/* cs_frontend.h — ways of feeding lines to the interpreter: scripts, -e, the REPL. */
#ifndef CS_FRONTEND_H
#define CS_FRONTEND_H

#include <stdio.h>

#include "cs_interp.h"

/* Run a script file; on the first error (every error with keep_going)
 * print "FILE:LINE:COL: error: MSG" with the line and a caret to stderr (a
 * JSON error object in JSON mode) and return 1. An interrupt (Ctrl-C)
 * stops it: "FILE:LINE: interrupted: MSG" naming the command and how far
 * it got, and 3 (csreg exits 130). Returns 2 when the script said quit, 0
 * otherwise. Text from the script is shown with control characters as ^X. */
int cs_run_script(cs_interp *in, const char *path, int json, int keep_going);
/* Run one command (-e, a line of piped input): errors print the one line
 * "error: MSG", or, when where is given, "WHERE:LINENO:COL: error: MSG", the
 * line and a caret. Same returns. */
int cs_run_line(cs_interp *in, const char *line, const char *where, int lineno, int json);
/* Run the -e commands in order, like a script: the first error returns 1
 * (with keep_going every command runs, and 1 says one failed), an
 * interrupt (during a command or between two) "interrupted: ..." and 3,
 * quit 2, else 0. */
int cs_run_commands(cs_interp *in, const char *const *lines, size_t n, int json, int keep_going);
/* Interactive loop (readline on a terminal, plain lines otherwise). */
int cs_repl(cs_interp *in, int json);

#endif
