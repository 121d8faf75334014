/* cs_npz.h — named arrays in a NumPy .npz: each a .npy (format 1.0, C
 * order, little-endian) stored in a ZIP entry NAME.npy (cs_zip.h), as
 * numpy.savez writes them and numpy.load reads them. Writing: float32,
 * int64, int32 or int8 arrays of up to 8 dimensions (0: a scalar). Reading:
 * every entry of those dtypes and of float64, uint8, bool, as doubles
 * (exact for float32 and for integers below 2^53). */
#ifndef CS_NPZ_H
#define CS_NPZ_H

#include <stddef.h>

#include "cs_error.h"
#include "cs_zip.h"

typedef enum cs_npz_dtype { CS_NPZ_F32, CS_NPZ_I64, CS_NPZ_I32, CS_NPZ_I8, CS_NPZ_F64,
                            CS_NPZ_U8 } cs_npz_dtype;
#define CS_NPZ_MAX_DIMS 8

/* One array into z as NAME.npy; data holds the elements in C order as
 * dtype says (F32 float, I64 int64_t, I32 int32_t, I8 int8_t). */
void cs_npz_put(cs_zip_writer *z, const char *name, cs_npz_dtype dtype, const size_t *shape,
                int ndim, const void *data);

typedef struct cs_npz_array {
    char name[256];            /* without .npy */
    cs_npz_dtype dtype;        /* as stored */
    int ndim;
    size_t shape[CS_NPZ_MAX_DIMS];
    size_t n;                  /* elements */
    double *v;                 /* the elements as doubles (malloc'd) */
} cs_npz_array;

/* Every .npy entry of the archive in buf (what: the file, for errors);
 * entries of other names are skipped. Each array holds at most `limit`
 * elements. *arrays malloc'd: free with cs_npz_free. */
int cs_npz_read(const unsigned char *buf, size_t n, const char *what, size_t limit,
                cs_npz_array **arrays, size_t *count, cs_err *err);
void cs_npz_free(cs_npz_array *a, size_t count);
/* A whole .npz file's bytes (malloc'd) for cs_npz_read: a regular file under 2 GiB, else
 * an error naming it. */
int cs_npz_load_file(const char *path, unsigned char **data, size_t *n, cs_err *err);
/* The array called name, or NULL. */
const cs_npz_array *cs_npz_find(const cs_npz_array *a, size_t count, const char *name);

#endif
