/* cs_pb.h — a small Protocol Buffers encoder (and the decoder its tests
 * and readers need): fields appended to a growable buffer in the wire
 * format (varints, 32-bit floats, length-delimited bytes and embedded
 * messages), enough to write ONNX models by hand. Zero-initialize a
 * buffer; a failed allocation is kept in oom and later appends do
 * nothing. */
#ifndef CS_PB_H
#define CS_PB_H

#include <stddef.h>
#include <stdint.h>

#include "cs_bytes.h"

typedef cs_bytes cs_pb;   /* the message being built */

enum { CS_PB_VARINT = 0, CS_PB_I64 = 1, CS_PB_LEN = 2, CS_PB_I32 = 5 };

void cs_pb_raw(cs_pb *b, const void *data, size_t n);
void cs_pb_varint(cs_pb *b, uint64_t v);
/* field `field` of a varint type: uint64, or int64 (two's complement:
 * negative values take ten bytes, as protobuf encodes them) */
void cs_pb_uint(cs_pb *b, int field, uint64_t v);
void cs_pb_int(cs_pb *b, int field, int64_t v);
void cs_pb_float(cs_pb *b, int field, float v);
void cs_pb_bytes(cs_pb *b, int field, const void *data, size_t n);
void cs_pb_str(cs_pb *b, int field, const char *s);
/* an embedded message: m's bytes as a length-delimited field */
void cs_pb_msg(cs_pb *b, int field, const cs_pb *m);
void cs_pb_free(cs_pb *b);

/* One field of buf[*pos..n): its number, wire type and value (a varint or
 * fixed value in *v; for CS_PB_LEN *data and *len); *pos moves past it.
 * 0 ok, −1 at the end, −2 malformed. */
int cs_pb_next(const unsigned char *buf, size_t n, size_t *pos, int *field, int *wire,
               uint64_t *v, const unsigned char **data, size_t *len);

#endif
