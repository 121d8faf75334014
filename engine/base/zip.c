/* zip.c — see cs_zip.h. The records (PKWARE's APPNOTE): a local header
 * (0x04034b50) before each entry's data, the central directory (0x02014b50
 * per entry) and its end (0x06054b50). Times are 1980-01-01 00:00 so that
 * the same arrays give the same bytes. Little-endian by hand. */
#include "cs_zip.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define LOCAL_SIG 0x04034b50u
#define CENTRAL_SIG 0x02014b50u
#define END_SIG 0x06054b50u
#define DOS_DATE 0x21   /* 1980-01-01 */
#define ZIP_MAX 0xffffffffu

static void grow(cs_zip_writer *z, const void *src, size_t n)
{
    if (z->out.n + n > ZIP_MAX)
        z->big = 1;
    else
        cs_bytes_put(&z->out, src, n);
}

static void u16(cs_zip_writer *z, unsigned v)
{
    unsigned char c[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    grow(z, c, 2);
}

static void u32(cs_zip_writer *z, uint32_t v)
{
    unsigned char c[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    grow(z, c, 4);
}

/* the fields a local header and a central entry share, from "version needed" */
static void common(cs_zip_writer *z, const cs_zip_entry *e, size_t namelen)
{
    u16(z, 20);         /* version needed: 2.0 */
    u16(z, 0);          /* flags */
    u16(z, 0);          /* STORED */
    u16(z, 0);          /* time */
    u16(z, DOS_DATE);
    u32(z, e->crc);
    u32(z, e->csize);
    u32(z, e->usize);
    u16(z, (unsigned)namelen);
    u16(z, 0);          /* extra field */
}

void cs_zip_add(cs_zip_writer *z, const char *name, const void *data, size_t n)
{
    size_t len = strlen(name);
    if (len >= sizeof z->e[0].name || n > ZIP_MAX || z->out.n + n + 64 + len > ZIP_MAX) {
        z->big = 1;
        return;
    }
    if (z->ne == z->ecap) {
        size_t c = z->ecap ? 2 * z->ecap : 16;
        cs_zip_entry *q = realloc(z->e, c * sizeof *q);
        if (!q) {
            z->out.oom = 1;
            return;
        }
        z->e = q;
        z->ecap = c;
    }
    cs_zip_entry *e = &z->e[z->ne];
    memset(e, 0, sizeof *e);
    memcpy(e->name, name, len + 1);
    e->crc = (uint32_t)crc32(0L, data, (uInt)n);
    e->csize = e->usize = (uint32_t)n;
    e->offset = (uint32_t)z->out.n;
    u32(z, LOCAL_SIG);
    common(z, e, len);
    grow(z, name, len);
    grow(z, data, n);
    if (!z->out.oom && !z->big)
        z->ne++;
}

int cs_zip_finish(cs_zip_writer *z, const unsigned char **out, size_t *n, cs_err *err)
{
    uint32_t cd = (uint32_t)z->out.n;
    for (size_t i = 0; i < z->ne; i++) {
        const cs_zip_entry *e = &z->e[i];
        size_t len = strlen(e->name);
        u32(z, CENTRAL_SIG);
        u16(z, 20);     /* made by: 2.0, MS-DOS attributes */
        common(z, e, len);
        u16(z, 0);      /* comment */
        u16(z, 0);      /* disk */
        u16(z, 0);      /* internal attributes */
        u32(z, 0);      /* external attributes */
        u32(z, e->offset);
        grow(z, e->name, len);
    }
    uint32_t cdsize = (uint32_t)(z->out.n - cd);
    u32(z, END_SIG);
    u16(z, 0);
    u16(z, 0);
    u16(z, (unsigned)z->ne);
    u16(z, (unsigned)z->ne);
    u32(z, cdsize);
    u32(z, cd);
    u16(z, 0);          /* comment */
    if (z->out.oom)
        return cs_fail(err, CS_ENOMEM, "out of memory writing a ZIP archive");
    if (z->big || z->ne > 0xffff)
        return cs_fail(err, CS_EINVAL, "a ZIP archive past 4 GiB, 65535 entries or a name of "
                       "256 bytes (ZIP64 is not written)");
    *out = z->out.p;
    *n = z->out.n;
    return CS_OK;
}

void cs_zip_writer_free(cs_zip_writer *z)
{
    free(z->out.p);
    free(z->e);
    memset(z, 0, sizeof *z);
}

/* ------------------------------------------------------------------ reading */

static uint32_t rd16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int cs_zip_list(const unsigned char *buf, size_t n, const char *what, cs_zip_entry **entries,
                size_t *count, cs_err *err)
{
    *entries = NULL;
    *count = 0;
    /* the end record: 22 bytes and a comment of up to 65535 */
    size_t end = (size_t)-1;
    for (size_t i = n >= 22 ? n - 22 + 1 : 0; i-- > 0 && n - i <= 22 + 0xffff;)
        if (rd32(buf + i) == END_SIG && i + 22 + rd16(buf + i + 20) == n) {
            end = i;
            break;
        }
    if (end == (size_t)-1)
        return cs_fail(err, CS_EINVAL, "%s: not a ZIP archive (no end of central directory)",
                       what);
    size_t ne = rd16(buf + end + 10), cdsize = rd32(buf + end + 12), cd = rd32(buf + end + 16);
    if (ne == 0xffff || cd == ZIP_MAX || cd > end || cdsize > end - cd)
        return cs_fail(err, CS_EINVAL, "%s: a ZIP64 or corrupt central directory", what);
    cs_zip_entry *e = calloc(ne ? ne : 1, sizeof *e);
    if (!e)
        return cs_fail(err, CS_ENOMEM, "out of memory reading %s", what);
    size_t p = cd;
    for (size_t i = 0; i < ne; i++) {
        if (p + 46 > cd + cdsize || rd32(buf + p) != CENTRAL_SIG) {
            free(e);
            return cs_fail(err, CS_EINVAL, "%s: corrupt ZIP central directory (entry %zu)",
                           what, i + 1);
        }
        size_t len = rd16(buf + p + 28), extra = rd16(buf + p + 30), comment = rd16(buf + p + 32);
        if (p + 46 + len + extra + comment > cd + cdsize || len >= sizeof e[i].name) {
            free(e);
            return cs_fail(err, CS_EINVAL, "%s: corrupt ZIP central directory (entry %zu)",
                           what, i + 1);
        }
        e[i].method = (int)rd16(buf + p + 10);
        e[i].crc = rd32(buf + p + 16);
        e[i].csize = rd32(buf + p + 20);
        e[i].usize = rd32(buf + p + 24);
        e[i].offset = rd32(buf + p + 42);
        memcpy(e[i].name, buf + p + 46, len);
        e[i].name[len] = 0;
        p += 46 + len + extra + comment;
    }
    *entries = e;
    *count = ne;
    return CS_OK;
}

int cs_zip_extract(const unsigned char *buf, size_t n, const char *what, const cs_zip_entry *e,
                   size_t limit, unsigned char **data, cs_err *err)
{
    *data = NULL;
    size_t o = e->offset;
    if (o > n || n - o < 30 || rd32(buf + o) != LOCAL_SIG)
        return cs_fail(err, CS_EINVAL, "%s: entry %s: no local header", what, e->name);
    size_t start = o + 30 + rd16(buf + o + 26) + rd16(buf + o + 28);
    if (start > n || n - start < e->csize)
        return cs_fail(err, CS_EINVAL, "%s: entry %s is truncated", what, e->name);
    if (e->method != 0 && e->method != 8)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: entry %s: compression method %d (only "
                       "stored and deflate)", what, e->name, e->method);
    if (e->usize > limit || (e->method == 0 && e->csize != e->usize))
        return cs_fail(err, CS_EINVAL, "%s: entry %s: %u bytes, over the %zu allowed or not "
                       "its stored size", what, e->name, e->usize, limit);
    unsigned char *out = malloc(e->usize ? e->usize : 1);
    if (!out)
        return cs_fail(err, CS_ENOMEM, "out of memory reading %s", what);
    if (e->method == 0) {
        memcpy(out, buf + start, e->usize);
    } else {
        z_stream s;
        memset(&s, 0, sizeof s);
        int ok = inflateInit2(&s, -MAX_WBITS) == Z_OK;
        s.next_in = (Bytef *)(buf + start);
        s.avail_in = e->csize;
        s.next_out = out;
        s.avail_out = e->usize;
        ok = ok && inflate(&s, Z_FINISH) == Z_STREAM_END && s.total_out == e->usize;
        inflateEnd(&s);
        if (!ok) {
            free(out);
            return cs_fail(err, CS_EINVAL, "%s: entry %s: corrupt deflate data (or larger than "
                           "its stated %u bytes)", what, e->name, e->usize);
        }
    }
    if ((uint32_t)crc32(0L, out, e->usize) != e->crc) {
        free(out);
        return cs_fail(err, CS_EINVAL, "%s: entry %s: CRC mismatch (the file is corrupt)", what,
                       e->name);
    }
    *data = out;
    return CS_OK;
}
