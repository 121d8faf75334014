/* cs_docgen.h — the man page and the bash completion, generated from the
 * command table and the regularizer table (the same source as `help` and
 * Tab completion), so they cannot drift from the program. */
#ifndef CS_DOCGEN_H
#define CS_DOCGEN_H

#include <stdio.h>

/* csreg.1 in troff (man(7)); `options` is the program's --help text. */
void cs_doc_man(FILE *out, const char *version, const char *options);
/* A bash completion script for csreg (complete -F). */
void cs_doc_bash_completion(FILE *out);

#endif
