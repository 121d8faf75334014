/* jval.c — the JSON reader of cs_jval.h: recursive descent over the text
 * with a depth limit. Python's json module writes NaN, Infinity and
 * -Infinity for floats that are not finite (a diverging loss): they are
 * read as such. */
#include "cs_jval.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define JVAL_DEPTH 64

typedef struct reader {
    const char *s;
    size_t len, pos;
    cs_err *err;
} reader;

static int fail(reader *r, const char *what)
{
    return cs_fail(r->err, CS_EINVAL, "JSON: %s at byte %zu", what, r->pos);
}

static void skip_ws(reader *r)
{
    while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' ||
                               r->s[r->pos] == '\n' || r->s[r->pos] == '\r'))
        r->pos++;
}

static int peek(const reader *r) { return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1; }

static int word(reader *r, const char *w)
{
    size_t n = strlen(w);
    if (r->len - r->pos < n || memcmp(r->s + r->pos, w, n) != 0)
        return 0;
    r->pos += n;
    return 1;
}

static void free_members(cs_jval *v)
{
    if (v->type == CS_JVAL_STRING)
        free(v->str);
    if (v->type == CS_JVAL_ARRAY || v->type == CS_JVAL_OBJECT) {
        for (size_t i = 0; i < v->n; i++) {
            free_members(&v->item[i]);
            if (v->key)
                free(v->key[i]);
        }
        free(v->item);
        free(v->key);
    }
}

void cs_jval_free(cs_jval *v)
{
    if (!v)
        return;
    free_members(v);
    free(v);
}

/* A number by JSON's grammar (or NaN, Infinity, -Infinity). */
static int parse_number(reader *r, cs_jval *v)
{
    size_t start = r->pos;
    if (word(r, "NaN")) {
        v->num = NAN;
        return CS_OK;
    }
    if (word(r, "Infinity") || word(r, "-Infinity")) {
        v->num = r->s[start] == '-' ? -INFINITY : INFINITY;
        return CS_OK;
    }
    if (peek(r) == '-')
        r->pos++;
    if (peek(r) == '0')
        r->pos++;
    else if (peek(r) >= '1' && peek(r) <= '9')
        while (peek(r) >= '0' && peek(r) <= '9')
            r->pos++;
    else
        return fail(r, "malformed number");
    if (peek(r) == '.') {
        r->pos++;
        if (!(peek(r) >= '0' && peek(r) <= '9'))
            return fail(r, "malformed number");
        while (peek(r) >= '0' && peek(r) <= '9')
            r->pos++;
    }
    if (peek(r) == 'e' || peek(r) == 'E') {
        r->pos++;
        if (peek(r) == '+' || peek(r) == '-')
            r->pos++;
        if (!(peek(r) >= '0' && peek(r) <= '9'))
            return fail(r, "malformed number");
        while (peek(r) >= '0' && peek(r) <= '9')
            r->pos++;
    }
    char buf[64];
    size_t n = r->pos - start;
    if (n >= sizeof buf)   /* more digits than a double holds: strtod on a copy */
        n = sizeof buf - 1;
    memcpy(buf, r->s + start, n);
    buf[n] = '\0';
    v->num = strtod(buf, NULL);
    return CS_OK;
}

static int hex4(reader *r, unsigned *out)
{
    if (r->len - r->pos < 4)
        return fail(r, "truncated \\u escape");
    unsigned u = 0;
    for (int k = 0; k < 4; k++) {
        int c = r->s[r->pos + (size_t)k];
        u <<= 4;
        if (c >= '0' && c <= '9')
            u |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            u |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            u |= (unsigned)(c - 'A' + 10);
        else
            return fail(r, "malformed \\u escape");
    }
    r->pos += 4;
    *out = u;
    return CS_OK;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18);
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A string (r at its opening quote) into *out (malloc'd). The decoded text
 * is never longer than the quoted one. */
static int parse_string(reader *r, char **out)
{
    r->pos++;
    size_t end = r->pos;
    while (end < r->len && r->s[end] != '"')
        end += r->s[end] == '\\' ? 2 : 1;
    if (end >= r->len)
        return fail(r, "unterminated string");
    char *o = malloc(end - r->pos + 1);
    if (!o)
        return cs_fail(r->err, CS_ENOMEM, "JSON: out of memory");
    size_t n = 0;
    while (r->pos < end) {
        unsigned char c = (unsigned char)r->s[r->pos];
        if (c < 0x20) {
            free(o);
            return fail(r, "a control character in a string");
        }
        if (c != '\\') {
            o[n++] = (char)c;
            r->pos++;
            continue;
        }
        char e = r->s[r->pos + 1];
        r->pos += 2;
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        if (k) {
            o[n++] = to[k - from];
            continue;
        }
        unsigned cp, lo;
        if (e != 'u' || hex4(r, &cp)) {
            free(o);
            return e != 'u' ? fail(r, "unknown escape in a string") : r->err->code;
        }
        if (cp >= 0xd800 && cp < 0xdc00 && r->pos + 6 <= end && r->s[r->pos] == '\\' &&
            r->s[r->pos + 1] == 'u') {   /* a surrogate pair */
            r->pos += 2;
            if (hex4(r, &lo)) {
                free(o);
                return r->err->code;
            }
            cp = lo >= 0xdc00 && lo < 0xe000 ? 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00)
                                             : 0xfffd;
        }
        if (cp == 0) {
            free(o);
            return fail(r, "\\u0000 in a string");
        }
        if (cp >= 0xd800 && cp < 0xe000)
            cp = 0xfffd;   /* a lone surrogate */
        n += put_utf8(o + n, cp);
    }
    o[n] = '\0';
    r->pos = end + 1;
    *out = o;
    return CS_OK;
}

static int parse_value(reader *r, cs_jval *v, int depth);

/* The members of an array or object (r after its bracket), grown by doubling. */
static int parse_members(reader *r, cs_jval *v, int depth, int object)
{
    size_t cap = 0;
    char close = object ? '}' : ']';
    skip_ws(r);
    if (peek(r) == close) {
        r->pos++;
        return CS_OK;
    }
    for (;;) {
        if (v->n == cap) {
            size_t nc = cap ? 2 * cap : 4;
            cs_jval *it = realloc(v->item, nc * sizeof *it);
            if (it)
                v->item = it;
            char **ks = object && it ? realloc(v->key, nc * sizeof *ks) : NULL;
            if (ks)
                v->key = ks;
            if (!it || (object && !ks))
                return cs_fail(r->err, CS_ENOMEM, "JSON: out of memory");
            cap = nc;
        }
        skip_ws(r);
        char *key = NULL;
        if (object) {
            if (peek(r) != '"')
                return fail(r, "expected a key");
            int rc = parse_string(r, &key);
            if (rc)
                return rc;
            skip_ws(r);
            if (peek(r) != ':') {
                free(key);
                return fail(r, "expected ':'");
            }
            r->pos++;
            v->key[v->n] = key;
        }
        memset(&v->item[v->n], 0, sizeof *v->item);
        v->n++;   /* counted now: freed with the rest on a failure below */
        int rc = parse_value(r, &v->item[v->n - 1], depth + 1);
        if (rc)
            return rc;
        skip_ws(r);
        if (peek(r) == ',') {
            r->pos++;
            continue;
        }
        if (peek(r) == close) {
            r->pos++;
            return CS_OK;
        }
        return fail(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int parse_value(reader *r, cs_jval *v, int depth)
{
    if (depth > JVAL_DEPTH)
        return fail(r, "nested too deeply");
    skip_ws(r);
    int c = peek(r);
    if (c == '{' || c == '[') {
        r->pos++;
        v->type = c == '{' ? CS_JVAL_OBJECT : CS_JVAL_ARRAY;
        return parse_members(r, v, depth, c == '{');
    }
    if (c == '"') {
        v->type = CS_JVAL_STRING;
        int rc = parse_string(r, &v->str);
        if (rc)
            v->type = CS_JVAL_NULL;
        return rc;
    }
    if (word(r, "null")) {
        v->type = CS_JVAL_NULL;
        return CS_OK;
    }
    if (word(r, "true") || word(r, "false")) {
        v->type = r->s[r->pos - 1] == 'e' && r->s[r->pos - 2] == 'u' ? CS_JVAL_TRUE
                                                                      : CS_JVAL_FALSE;
        return CS_OK;
    }
    if (c == '-' || (c >= '0' && c <= '9') || c == 'N' || c == 'I') {
        v->type = CS_JVAL_NUMBER;
        return parse_number(r, v);
    }
    return fail(r, c < 0 ? "unexpected end" : "unexpected character");
}

int cs_jval_parse(const char *text, size_t len, cs_jval **out, cs_err *err)
{
    *out = NULL;
    cs_jval *v = calloc(1, sizeof *v);
    if (!v)
        return cs_fail(err, CS_ENOMEM, "JSON: out of memory");
    cs_err local;
    reader r = {text, len, 0, err ? err : &local};
    int rc = parse_value(&r, v, 0);
    if (!rc) {
        skip_ws(&r);
        if (r.pos < r.len)
            rc = fail(&r, "text after the value");
    }
    if (rc) {
        cs_jval_free(v);
        return rc;
    }
    *out = v;
    return CS_OK;
}

const cs_jval *cs_jval_get(const cs_jval *v, const char *key)
{
    if (!v || v->type != CS_JVAL_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->n; i++)
        if (!strcmp(v->key[i], key))
            return &v->item[i];
    return NULL;
}

double cs_jval_num(const cs_jval *v, double def)
{
    if (!v)
        return def;
    if (v->type == CS_JVAL_NUMBER)
        return v->num;
    if (v->type == CS_JVAL_TRUE || v->type == CS_JVAL_FALSE)
        return v->type == CS_JVAL_TRUE;
    return def;
}

const char *cs_jval_str(const cs_jval *v, const char *def)
{
    return v && v->type == CS_JVAL_STRING ? v->str : def;
}
