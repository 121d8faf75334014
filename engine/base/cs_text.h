/* cs_text.h — reading text files a line at a time (scripts, graphs, CSV
 * data), refusing what is not text: a file that is not a regular file
 * (/dev/zero, a folder), a NUL byte (binary data) and lines longer than
 * CS_TEXT_LINE_MAX, before they fill the memory. */
#ifndef CS_TEXT_H
#define CS_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "cs_error.h"

#define CS_TEXT_LINE_MAX ((size_t)1 << 20)

/* Open `path` for reading: CS_EIO naming it as `name` (NULL: path) when it
 * cannot be opened or is not a regular file. */
int cs_text_open(const char *path, const char *name, FILE **out, cs_err *err);

/* The next line of f into *line (a malloc'd buffer of *cap bytes, grown as
 * needed; free it at the end), without its "\n" or "\r\n"; *len its length.
 * Returns 1 for a line, 0 at the end of the file, CS_EINVAL for a NUL byte
 * (*col: its 1-based column) or a line too long (*col: 0), CS_EIO for a
 * read error; err says which, without the file's name and line. */
int cs_text_line(FILE *f, char **line, size_t *cap, size_t *len, int *col, cs_err *err);

#endif
