/* cs_bytes.h — a byte buffer that grows as it is appended to: what the
 * binary writers build a file in (checkpoints, ZIP/npz, protobuf) before
 * writing it atomically. A failed allocation is kept in oom, and later
 * appends do nothing, so a writer checks once at the end. */
#ifndef CS_BYTES_H
#define CS_BYTES_H

#include <stddef.h>

typedef struct cs_bytes {
    unsigned char *p;
    size_t n, cap;
    int oom;
} cs_bytes;

void cs_bytes_put(cs_bytes *b, const void *data, size_t n);

#endif
