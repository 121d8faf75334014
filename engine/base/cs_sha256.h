/* cs_sha256.h — SHA-256 (FIPS 180-4), for recording which file a session
 * read: a journal line carries the digests of its files, and a replay whose
 * file changed is refused. */
#ifndef CS_SHA256_H
#define CS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "cs_error.h"

typedef struct cs_sha256_ctx {
    uint32_t h[8];
    uint64_t bytes;          /* message length so far */
    unsigned char buf[64];   /* the block being filled */
    size_t used;
} cs_sha256_ctx;

void cs_sha256_init(cs_sha256_ctx *c);
void cs_sha256_update(cs_sha256_ctx *c, const void *data, size_t len);
void cs_sha256_final(cs_sha256_ctx *c, unsigned char out[32]);
/* The digest of len bytes as 64 lowercase hex digits and a NUL. */
void cs_sha256_hex(const void *data, size_t len, char hex[65]);
/* The digest of a file's contents; errors name the file. */
int cs_sha256_file(const char *path, char hex[65], cs_err *err);

#endif
