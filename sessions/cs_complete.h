/* cs_complete.h — tab completion from the command table, for the REPL and
 * the TUI's command line alike. */
#ifndef CS_COMPLETE_H
#define CS_COMPLETE_H

#include <stddef.h>

/* Candidates for the word that spans [start, end) of `line` (the text
 * before the cursor is line[0..end)). Returns a NULL-terminated, malloc'd
 * array of malloc'd strings, each a full replacement for the word, sorted;
 * NULL when there are none. Candidates ending in '=' or '/' expect more. */
char **cs_complete(const char *line, size_t start, size_t end);
void cs_complete_free(char **cands);

#endif
