/* cs_zip.h — ZIP archives as NumPy's savez writes them (an .npz): a writer
 * of STORED (uncompressed) entries into memory, each with its CRC-32, and
 * a reader of STORED and DEFLATE entries (savez_compressed) from memory.
 * No ZIP64: an archive and its entries stay under 4 GiB. Errors name the
 * file (`what`) and what is wrong. */
#ifndef CS_ZIP_H
#define CS_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "cs_bytes.h"

#include "cs_error.h"

typedef struct cs_zip_entry {
    char name[256];
    uint32_t crc, csize, usize, offset;   /* offset: of the local header */
    int method;                            /* 0 STORED, 8 DEFLATE */
} cs_zip_entry;

/* The archive being written: bytes so far and the entries for the
 * central directory. Zero-initialize; oom is kept until cs_zip_finish. */
typedef struct cs_zip_writer {
    cs_bytes out;          /* the archive so far */
    cs_zip_entry *e;
    size_t ne, ecap;
    int big;               /* past what a ZIP without ZIP64 holds */
} cs_zip_writer;

/* Append one entry, its data stored as it is (any number of pieces: the
 * CRC over all of them). */
void cs_zip_add(cs_zip_writer *z, const char *name, const void *data, size_t n);
/* The central directory and its end: *out (owned by z until
 * cs_zip_writer_free) holds the whole archive. CS_ENOMEM or CS_EINVAL (past
 * 4 GiB, a name over 255 bytes) for what the adds met. */
int cs_zip_finish(cs_zip_writer *z, const unsigned char **out, size_t *n, cs_err *err);
void cs_zip_writer_free(cs_zip_writer *z);

/* The entries of the archive in buf (its central directory), *entries
 * malloc'd. */
int cs_zip_list(const unsigned char *buf, size_t n, const char *what, cs_zip_entry **entries,
                size_t *count, cs_err *err);
/* One entry's bytes (inflated when DEFLATE, the CRC checked), *data
 * malloc'd (usize bytes; at most `limit`). */
int cs_zip_extract(const unsigned char *buf, size_t n, const char *what, const cs_zip_entry *e,
                   size_t limit, unsigned char **data, cs_err *err);

#endif
