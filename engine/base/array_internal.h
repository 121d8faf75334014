/* array_internal.h — what the format readers and writers of cs_array_io.h
 * share. array_io.c dispatches to array_{csv,npy,mtx,mat}.c, which call
 * down to array_core.c only. `name` is the file as messages show it. */
#ifndef CS_ARRAY_INTERNAL_H
#define CS_ARRAY_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "cs_array_io.h"
#include "cs_error.h"
#include "cs_file.h"

/* ---- array_core.c ---- */

/* cs_array_alloc with the file named in the error (budget exceeded). */
int cs_array_alloc_named(cs_array *a, size_t rows, size_t cols, const char *name, cs_err *err);
/* CS_ENONFINITE for the first NaN/Inf: "NAME: row 3, column 7 is NaN". */
int cs_array_check_finite(const cs_array *a, const char *name, cs_err *err);
/* "NaN", "Inf" or "-Inf" for a non-finite v. */
const char *cs_array_nonfinite_word(double v);

/* One number of a text file (the whole of `text`, surrounding blanks
 * allowed): CS_OK with *v; CS_ENONFINITE for nan/inf spelled out (*v set
 * to it) or a value past the double range (*v = +-inf); CS_EINVAL when it
 * is not a plain decimal number. No message: the caller knows the place. */
int cs_array_parse_number(const char *text, double *v);
/* The shortest text that reads back to v bit for bit (-0 included). */
void cs_array_format_number(char *buf, size_t len, double v);

/* Begin and finish an atomic text/binary output (cs_file.h); `flags` as
 * cs_array_write_opts. */
int cs_array_out_open(cs_afile *af, const char *path, unsigned flags, cs_err *err);
int cs_array_out_close(cs_afile *af, int rc, cs_err *err);

/* ---- the formats: readers fill an empty *out, writers take a checked a ---- */

int cs_csv_read_array(const char *path, cs_array *out, cs_err *err);
int cs_csv_write_array(const char *path, const cs_array *a, unsigned flags, cs_err *err);
int cs_npy_read_array(const char *path, cs_array *out, cs_err *err);
int cs_npy_write_array(const char *path, const cs_array *a, unsigned flags, cs_err *err);
int cs_mtx_read_array(const char *path, cs_array *out, cs_err *err);
int cs_mtx_write_array(const char *path, const cs_array *a, unsigned flags, cs_err *err);
/* var: NULL takes the one numeric 2-D variable */
int cs_mat_read_array(const char *path, const char *var, cs_array *out, cs_err *err);
int cs_mat_write_arrays(const char *path, size_t n, const char *const names[],
                        const cs_array *const arrays[], unsigned flags, cs_err *err);
int cs_mat_available(void);

#endif
