/* cs_parse.h — strict parsing of numbers and matrix literals (`1,2;3,4`),
 * shared by the regularizers' parameters and the command interpreter. */
#ifndef CS_PARSE_H
#define CS_PARSE_H

#include <stddef.h>

#include "cs_error.h"

/* Whole-string decimal number; NaN/Inf, empty text and trailing junk are errors. */
int cs_parse_double(const char *text, double *out, cs_err *err);
/* Whole-string integer in [lo, hi]. */
int cs_parse_long(const char *text, long lo, long hi, long *out, cs_err *err);

/* Matrix literal: rows separated by ';', entries by ','. A vector is one row.
 * Empty entries, ragged rows and non-finite values are errors naming the
 * position (1-based row and column). *out is malloc'd; free() it. */
int cs_parse_matrix(const char *text, double **out, size_t *rows, size_t *cols, cs_err *err);
/* The same; on a bad entry *fault is its offset in text (where an empty
 * one is missing), so a front end can point at it. */
int cs_parse_matrix_at(const char *text, double **out, size_t *rows, size_t *cols,
                       size_t *fault, cs_err *err);

/* Read a numeric CSV file (comma separated, optional '#' comment lines). */
int cs_read_csv_matrix(const char *path, double **out, size_t *rows, size_t *cols, cs_err *err);

/* The shortest text that reads back to the same double: what "%.{p}g"
 * writes for the smallest such p (0.1, 1e-05, 1.7976931348623157e+308);
 * whole numbers below 1e15 plainly (120, not 1.2e+02; -0 as 0); nan, inf,
 * -inf spelled out. For JSON, CSV and text outputs alike. About 0.1 µs a
 * number (libdouble-conversion's shortest digits, cs_dtoa.h); cut as
 * snprintf cuts when len is under 25. */
void cs_format_double(char *buf, size_t len, double v);

#endif
