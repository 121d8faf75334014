/* cmdline.c — the tokenizer of the command language. */
#include "cs_cmdline.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static int buf_put(buf *b, char c)
{
    if (b->len + 1 >= b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 32;
        char *s = realloc(b->s, cap);
        if (!s)
            return -1;
        b->s = s;
        b->cap = cap;
    }
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
    return 0;
}

static int is_key_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int is_key_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '-'; }

/* Length of `key=` at s (0 when s does not start with a key). */
static size_t key_prefix(const char *s)
{
    if (!is_key_start(*s))
        return 0;
    size_t i = 1;
    while (is_key_char(s[i]))
        i++;
    return s[i] == '=' ? i : 0;
}

static int add_arg(cs_cmdline *cl, char *key, char *value, int col, int quoted)
{
    cs_arg *a = realloc(cl->args, (cl->nargs + 1) * sizeof *a);
    if (!a)
        return -1;
    cl->args = a;
    a[cl->nargs++] = (cs_arg){.key = key, .value = value, .col = col, .quoted = quoted};
    return 0;
}

/* Read one value starting at *pp (quoted or bare) into b. */
static int read_value(const char *line, const char **pp, buf *b, int *quoted, int *err_col,
                      cs_err *err)
{
    const char *p = *pp;
    *quoted = 0;
    while (*p && !isspace((unsigned char)*p)) {
        if (*p == '"' || *p == '\'') {
            char q = *p;
            const char *open = p++;
            *quoted = 1;
            while (*p && *p != q) {
                if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) {
                    *err_col = (int)(p - line) + 1;
                    return cs_fail(err, CS_EINVAL, "control character in command line");
                }
                if (*p == '\\' && q == '"' && (p[1] == '"' || p[1] == '\\'))
                    p++;
                if (buf_put(b, *p++))
                    return cs_fail(err, CS_ENOMEM, "out of memory");
            }
            if (!*p) {
                *err_col = (int)(open - line) + 1;
                return cs_fail(err, CS_EINVAL, "unterminated quote");
            }
            p++;
        } else if (buf_put(b, *p++)) {
            return cs_fail(err, CS_ENOMEM, "out of memory");
        }
    }
    if (!b->s && buf_put(b, '\0') == 0)
        b->len = 0; /* empty value: allocate "" */
    *pp = p;
    return CS_OK;
}

int cs_cmdline_parse(const char *line, cs_cmdline *out, int *err_col, cs_err *err)
{
    memset(out, 0, sizeof *out);
    *err_col = 0;
    const char *p = line;
    for (;;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            return CS_OK;
        for (const char *c = p; *c && !isspace((unsigned char)*c); c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) {
                *err_col = (int)(c - line) + 1;
                cs_cmdline_free(out);
                return cs_fail(err, CS_EINVAL, "control character in command line");
            }
        int col = (int)(p - line) + 1;
        size_t klen = out->name ? key_prefix(p) : 0;
        char *key = NULL;
        if (klen) {
            key = strndup(p, klen);
            if (!key)
                goto nomem;
            p += klen + 1;
        }
        buf b = {0};
        int quoted;
        int rc = read_value(line, &p, &b, &quoted, err_col, err);
        if (rc) {
            free(key);
            free(b.s);
            cs_cmdline_free(out);
            return rc;
        }
        if (!out->name) {
            if (quoted) {
                free(b.s);
                *err_col = col;
                cs_cmdline_free(out);
                return cs_fail(err, CS_EINVAL, "a command name cannot be quoted");
            }
            out->name = b.s;
            out->name_col = col;
        } else if (add_arg(out, key, b.s, col, quoted)) {
            free(key);
            free(b.s);
            goto nomem;
        }
    }
nomem:
    cs_cmdline_free(out);
    return cs_fail(err, CS_ENOMEM, "out of memory");
}

void cs_cmdline_free(cs_cmdline *cl)
{
    for (size_t i = 0; i < cl->nargs; i++) {
        free(cl->args[i].key);
        free(cl->args[i].value);
    }
    free(cl->args);
    free(cl->name);
    memset(cl, 0, sizeof *cl);
}

const cs_arg *cs_cmdline_key(const cs_cmdline *cl, const char *key)
{
    const cs_arg *found = NULL;
    for (size_t i = 0; i < cl->nargs; i++)
        if (cl->args[i].key && strcmp(cl->args[i].key, key) == 0)
            found = &cl->args[i];
    return found;
}

const cs_arg *cs_cmdline_pos(const cs_cmdline *cl, size_t i)
{
    for (size_t j = 0; j < cl->nargs; j++)
        if (!cl->args[j].key && i-- == 0)
            return &cl->args[j];
    return NULL;
}

size_t cs_cmdline_npos(const cs_cmdline *cl)
{
    size_t n = 0;
    for (size_t j = 0; j < cl->nargs; j++)
        n += cl->args[j].key == NULL;
    return n;
}
