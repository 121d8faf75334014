/* cs_array_io.h — dense 2-D arrays of doubles in and out of the files other
 * tools write: CSV, NumPy .npy, Matrix Market .mtx and MATLAB .mat (through
 * libmatio, opened with dlopen at the first .mat file; where it is missing,
 * .mat files are refused with a message saying what to install).
 *
 * The format is the file's extension (any case). A .mat file names its
 * variable after a colon: "F.mat:Phi". Every error names the file and says
 * what is wrong with it (a non-finite entry by its 1-based row and column);
 * a failed read leaves *out empty and allocates nothing. Vectors are n x 1.
 * Outputs are written to a temporary file beside the target and renamed
 * into place (cs_file.h), so no reader ever sees half a file. */
#ifndef CS_ARRAY_IO_H
#define CS_ARRAY_IO_H

#include <stddef.h>

#include "cs_error.h"

typedef struct cs_array {
    size_t rows, cols;
    double *data; /* rows * cols entries, row-major: (i, j) is data[i * cols + j] */
} cs_array;

enum cs_array_format {
    CS_ARRAY_CSV = 1, /* one row a line, comma separated; '#' lines are comments */
    CS_ARRAY_NPY = 2, /* NumPy .npy 1.0-3.0, float64/float32, C or Fortran order */
    CS_ARRAY_MTX = 3, /* Matrix Market: array or coordinate, real or integer */
    CS_ARRAY_MAT = 4  /* MATLAB v4, v5, v7, v7.3: double or single, dense or sparse */
};

/* cs_array_write_opts flags */
#define CS_ARRAY_NO_CLOBBER 1u /* an existing file is an error ("... add force=on") */

/* The format of `spec` ("A.npy", "F.mat:Phi") by its extension: a
 * CS_ARRAY_* value, or CS_EUNSUPPORTED naming the extensions known. */
int cs_array_format_of(const char *spec, cs_err *err);

/* Read the array `spec` names into *out (malloc'd; cs_array_free it).
 * Refused: an empty array, more than two dimensions, a type other than
 * float64/float32 (.npy) or double/single (.mat), complex numbers, NaN or
 * Inf entries, and an array larger than CS_MEMORY_BUDGET (cs_limits.h),
 * before anything is allocated. A .mat spec without ":VAR" takes the file's
 * one numeric 2-D variable; with none or several, the error lists them. */
int cs_array_read(const char *spec, cs_array *out, cs_err *err);

/* A NumPy .npy of float32 (float64 is rounded) of any shape in C order, as
 * floats: *rows = shape[0] (1 for a 0-D array), *cols the product of the
 * other dimensions (a weight tensor: one row per output unit); *ndim (may
 * be NULL) the number of dimensions. NaN and Inf are kept. The same
 * refusals and messages as cs_array_read (truncated, trailing bytes, other
 * dtypes, past CS_MEMORY_BUDGET). *data malloc'd. */
int cs_npy_read_f32(const char *path, float **data, size_t *rows, size_t *cols, int *ndim,
                    cs_err *err);

/* Write `a` to `spec`, replacing any file there: .csv with the shortest
 * digits that read back to the same doubles, .npy 1.0 '<f8' in C order (an
 * n x 1 array as shape (n,)), .mtx "array real general", .mat v5 with the
 * variable named after ":VAR" or else after the file ("dir/my-A.mat": my_A).
 * NaN and Inf are written as they are (the readers refuse them). */
int cs_array_write(const char *spec, const cs_array *a, cs_err *err);
/* The same with CS_ARRAY_* flags. */
int cs_array_write_opts(const char *spec, const cs_array *a, unsigned flags, cs_err *err);

/* Several arrays into one .mat file (v5), as the variables names[k]. */
int cs_array_write_mat(const char *path, size_t n, const char *const names[],
                       const cs_array *const arrays[], unsigned flags, cs_err *err);

/* A rows x cols array of zeros; CS_ENOMEM past CS_MEMORY_BUDGET. */
int cs_array_alloc(cs_array *a, size_t rows, size_t cols, cs_err *err);
/* Free the data and empty *a; safe on an empty or freed array. */
void cs_array_free(cs_array *a);

/* 1 when .mat files can be read and written here (libmatio loads). */
int cs_array_have_mat(void);

#endif
