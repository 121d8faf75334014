/* pb.c — see cs_pb.h. A field is its key (number << 3 | wire type) as a
 * varint, then the value: a varint, 4 or 8 little-endian bytes, or a
 * varint length and that many bytes. */
#include "cs_pb.h"

#include <stdlib.h>
#include <string.h>

void cs_pb_raw(cs_pb *b, const void *data, size_t n) { cs_bytes_put(b, data, n); }

void cs_pb_varint(cs_pb *b, uint64_t v)
{
    unsigned char c[10];
    size_t k = 0;
    do {
        c[k] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            c[k] |= 0x80;
        k++;
    } while (v);
    cs_pb_raw(b, c, k);
}

static void key(cs_pb *b, int field, int wire)
{
    cs_pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

void cs_pb_uint(cs_pb *b, int field, uint64_t v)
{
    key(b, field, CS_PB_VARINT);
    cs_pb_varint(b, v);
}

void cs_pb_int(cs_pb *b, int field, int64_t v)
{
    cs_pb_uint(b, field, (uint64_t)v);
}

void cs_pb_float(cs_pb *b, int field, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    unsigned char c[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                          (unsigned char)(u >> 24)};
    key(b, field, CS_PB_I32);
    cs_pb_raw(b, c, 4);
}

void cs_pb_bytes(cs_pb *b, int field, const void *data, size_t n)
{
    key(b, field, CS_PB_LEN);
    cs_pb_varint(b, n);
    cs_pb_raw(b, data, n);
}

void cs_pb_str(cs_pb *b, int field, const char *s)
{
    cs_pb_bytes(b, field, s, strlen(s));
}

void cs_pb_msg(cs_pb *b, int field, const cs_pb *m)
{
    if (m->oom)
        b->oom = 1;
    cs_pb_bytes(b, field, m->p, m->n);
}

void cs_pb_free(cs_pb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static int get_varint(const unsigned char *buf, size_t n, size_t *pos, uint64_t *v)
{
    uint64_t r = 0;
    for (int s = 0; s < 64; s += 7) {
        if (*pos >= n)
            return -2;
        unsigned char c = buf[(*pos)++];
        r |= (uint64_t)(c & 0x7f) << s;
        if (!(c & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return -2;
}

int cs_pb_next(const unsigned char *buf, size_t n, size_t *pos, int *field, int *wire,
               uint64_t *v, const unsigned char **data, size_t *len)
{
    if (*pos >= n)
        return -1;
    uint64_t k;
    if (get_varint(buf, n, pos, &k) || (k >> 3) == 0 || (k >> 3) > 0x1fffffff)
        return -2;
    *field = (int)(k >> 3);
    *wire = (int)(k & 7);
    *data = NULL;
    *len = 0;
    *v = 0;
    switch (*wire) {
    case CS_PB_VARINT:
        return get_varint(buf, n, pos, v);
    case CS_PB_I64:
    case CS_PB_I32: {
        size_t w = *wire == CS_PB_I64 ? 8 : 4;
        if (n - *pos < w)
            return -2;
        for (size_t i = 0; i < w; i++)
            *v |= (uint64_t)buf[*pos + i] << (8 * i);
        *pos += w;
        return 0;
    }
    case CS_PB_LEN:
        if (get_varint(buf, n, pos, v) || *v > n - *pos)
            return -2;
        *data = buf + *pos;
        *len = (size_t)*v;
        *pos += *len;
        return 0;
    default:
        return -2;
    }
}
