/* script.c — variables, $-substitution, for lists and blocks (cs_script.h). */
#include "cs_script.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A substituted line may not grow past what a script line may be. */
enum { EXPANDED_MAX = 1 << 20, TOO_LONG = -100 };

/* ---- variables ---------------------------------------------------------------- */

typedef struct var {
    char *name, *value;
    int fixed;
} var;

struct cs_vars {
    var *v;
    size_t n, cap;
};

cs_vars *cs_vars_new(void) { return calloc(1, sizeof(cs_vars)); }

static void var_free(var *x)
{
    free(x->name);
    free(x->value);
}

void cs_vars_free(cs_vars *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++)
        var_free(&v->v[i]);
    free(v->v);
    free(v);
}

void cs_vars_clear(cs_vars *v)
{
    size_t k = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (v->v[i].fixed)
            v->v[k++] = v->v[i];
        else
            var_free(&v->v[i]);
    }
    v->n = k;
}

int cs_var_name_ok(const char *s, size_t len)
{
    if (len == 0 || len > CS_VAR_NAME_MAX || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

static var *find(const cs_vars *v, const char *name, size_t len)
{
    for (size_t i = 0; i < v->n; i++)
        if (strlen(v->v[i].name) == len && memcmp(v->v[i].name, name, len) == 0)
            return &v->v[i];
    return NULL;
}

const char *cs_vars_get(const cs_vars *v, const char *name, size_t len, int *fixed)
{
    var *x = find(v, name, len);
    if (fixed)
        *fixed = x && x->fixed;
    return x ? x->value : NULL;
}

int cs_vars_set(cs_vars *v, const char *name, const char *value, int fixed, int force)
{
    var *x = find(v, name, strlen(name));
    if (x && x->fixed && !fixed && !force)
        return 1;
    char *val = strdup(value);
    if (!val)
        return CS_ENOMEM;
    if (x) {
        free(x->value);
        x->value = val;
        x->fixed = fixed;
        return CS_OK;
    }
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 8;
        var *nv = realloc(v->v, cap * sizeof *nv);
        if (!nv) {
            free(val);
            return CS_ENOMEM;
        }
        v->v = nv;
        v->cap = cap;
    }
    char *nm = strdup(name);
    if (!nm) {
        free(val);
        return CS_ENOMEM;
    }
    v->v[v->n++] = (var){nm, val, fixed};
    return CS_OK;
}

void cs_vars_unset(cs_vars *v, const char *name)
{
    var *x = find(v, name, strlen(name));
    if (!x)
        return;
    var_free(x);
    *x = v->v[--v->n];
}

/* ---- substitution ------------------------------------------------------------- */

typedef struct obuf {
    char *s;
    int *map;
    size_t len, cap;
} obuf;

static int put(obuf *o, char c, int col)
{
    if (o->len + 1 >= o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 128;
        if (cap > EXPANDED_MAX + 2)
            return TOO_LONG;
        char *s = realloc(o->s, cap);
        if (!s)
            return CS_ENOMEM;
        o->s = s;
        int *m = realloc(o->map, cap * sizeof *m);
        if (!m)
            return CS_ENOMEM;
        o->map = m;
        o->cap = cap;
    }
    o->s[o->len] = c;
    o->map[o->len++] = col;
    o->s[o->len] = '\0';
    o->map[o->len] = col;
    return CS_OK;
}

/* A value that can go in as it is: outside quotes a plain word (nothing
 * the tokenizer or the substitution reads: blanks, quotes, #, $, =);
 * inside "..." anything but ", \ and $. */
static int plain(const char *s, int in_dq)
{
    if (!*s)
        return in_dq;
    for (const char *p = s; *p; p++) {
        if (in_dq ? (*p == '"' || *p == '\\' || *p == '$')
                  : (isspace((unsigned char)*p) || strchr("'\"#$=", *p)))
            return 0;
    }
    return 1;
}

static int put_s(obuf *o, const char *s, size_t n, int col)
{
    int rc = CS_OK;
    for (size_t i = 0; i < n && !rc; i++)
        rc = put(o, s[i], col);
    return rc;
}

/* value at column col: as it is when plain, else in '...' (a ' itself as
 * "'"), where the tokenizer takes it literally and no $ is substituted
 * again; inside "..." the string is closed around it. */
static int insert(obuf *o, const char *value, int in_dq, int col)
{
    if (plain(value, in_dq))
        return put_s(o, value, strlen(value), col);
    int rc = in_dq ? put(o, '"', col) : CS_OK;
    if (!*value && !rc)
        rc = put_s(o, "''", 2, col);
    for (const char *p = value; *p && !rc;) {
        size_t n = strcspn(p, "'");
        if (n == 0) {
            rc = put_s(o, "\"'\"", 3, col);
            p++;
            continue;
        }
        rc = put(o, '\'', col);
        if (!rc)
            rc = put_s(o, p, n, col);
        if (!rc)
            rc = put(o, '\'', col);
        p += n;
    }
    if (in_dq && !rc)
        rc = put(o, '"', col);
    return rc;
}

/* Copy line[*i..] up to (not past) the first of `stop` or the end. */
static int copy_until(obuf *o, const char *line, size_t *i, const char *stop)
{
    int rc = CS_OK;
    while (line[*i] && !strchr(stop, line[*i]) && !rc) {
        rc = put(o, line[*i], (int)*i + 1);
        (*i)++;
    }
    return rc;
}

/* The variable at line[i] == '$': its name (start, length) and where it
 * ends; 0 when this `$` starts none (it stays), <0 on a malformed ${. */
static int var_ref(const char *line, size_t i, size_t *start, size_t *len, size_t *end,
                   cs_err *err)
{
    const char *p = line + i + 1;
    if (*p == '{') {
        const char *close = strchr(p, '}');
        if (!close)
            return cs_fail(err, CS_EINVAL, "unterminated ${ (a variable is ${NAME})");
        *start = i + 2;
        *len = (size_t)(close - p - 1);
        *end = (size_t)(close - line) + 1;
        if (!cs_var_name_ok(p + 1, *len))
            return cs_fail(err, CS_EINVAL, "'%.*s' is not a variable name (letters, digits, _)",
                           (int)(*len > 64 ? 64 : *len), p + 1);
        return 1;
    }
    if (!(isalpha((unsigned char)*p) || *p == '_'))
        return 0;
    size_t n = 1;
    while (isalnum((unsigned char)p[n]) || p[n] == '_')
        n++;
    *start = i + 1;
    *len = n;
    *end = i + 1 + n;
    return 1;
}

int cs_script_expand(const cs_vars *v, const char *line, char **out, int **map, int *err_col,
                     cs_err *err)
{
    obuf o = {0};
    size_t i = 0;
    int rc = put(&o, '\0', 1);   /* allocate ("" for an empty line) */
    o.len = 0;
    /* blanks and the command word as they are */
    while (!rc && isspace((unsigned char)line[i]))
        rc = put(&o, line[i], (int)i + 1), i++;
    while (!rc && line[i] && !isspace((unsigned char)line[i]))
        rc = put(&o, line[i], (int)i + 1), i++;
    int in_dq = 0, token_start = 1;
    while (!rc && line[i]) {
        char c = line[i];
        if (!in_dq) {
            if (isspace((unsigned char)c)) {
                token_start = 1;
                rc = put(&o, c, (int)i + 1);
                i++;
                continue;
            }
            if (c == '#' && token_start) {   /* a comment: the rest as it is */
                rc = copy_until(&o, line, &i, "");
                break;
            }
            token_start = 0;
            if (c == '\'') {                 /* '...': nothing substituted */
                rc = put(&o, c, (int)i + 1);
                i++;
                if (!rc)
                    rc = copy_until(&o, line, &i, "'");
                if (!rc && line[i])
                    rc = put(&o, line[i], (int)i + 1), i++;
                continue;
            }
            if (c == '"')
                in_dq = 1;
        } else if (c == '\\' && (line[i + 1] == '"' || line[i + 1] == '\\')) {
            rc = put(&o, c, (int)i + 1);
            if (!rc)
                rc = put(&o, line[i + 1], (int)i + 2);
            i += 2;
            continue;
        } else if (c == '"') {
            in_dq = 0;
        }
        size_t start = 0, len = 0, end = 0;
        int ref = c == '$' ? var_ref(line, i, &start, &len, &end, err) : 0;
        if (ref < 0) {
            *err_col = (int)i + 1;
            rc = CS_EINVAL;
            break;
        }
        if (ref == 0) {
            rc = put(&o, c, (int)i + 1);
            i++;
            continue;
        }
        const char *value = cs_vars_get(v, line + start, len, NULL);
        if (!value) {
            *err_col = (int)i + 1;
            rc = cs_fail(err, CS_EINVAL, "undefined variable $%.*s (define it with let %.*s = "
                         "VALUE, a for loop, or csreg -D %.*s=VALUE)", (int)len, line + start,
                         (int)len, line + start, (int)len, line + start);
            break;
        }
        rc = insert(&o, value, in_dq, (int)i + 1);
        i = end;
    }
    if (rc == TOO_LONG)
        rc = cs_fail(err, CS_EINVAL, "the line is longer than %d bytes with its variables",
                     EXPANDED_MAX);
    else if (rc == CS_ENOMEM)
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    if (rc) {
        free(o.s);
        free(o.map);
        return rc;
    }
    *out = o.s;
    *map = o.map;
    return CS_OK;
}

int cs_script_word(const char *line, const char *word, int *col)
{
    size_t i = strspn(line, " \t\r\n"), n = strlen(word);
    if (strncmp(line + i, word, n) != 0)
        return 0;
    char next = line[i + n];
    if (next && !isspace((unsigned char)next) && next != '#')
        return 0;
    if (col)
        *col = (int)i + 1;
    return 1;
}

/* ---- for lists ---------------------------------------------------------------- */

void cs_script_free_list(char **vals, size_t n)
{
    for (size_t i = 0; vals && i < n; i++)
        free(vals[i]);
    free(vals);
}

int cs_script_split(const char *text, char ***vals, size_t *n, size_t *fault, cs_err *err)
{
    size_t count = 1;
    for (const char *p = text; *p; p++)
        count += *p == ',';
    *vals = calloc(count, sizeof **vals);
    *n = 0;
    if (!*vals)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    for (const char *p = text;; p++) {
        size_t len = strcspn(p, ",");
        if (len == 0) {
            *fault = (size_t)(p - text);
            cs_script_free_list(*vals, *n);
            *vals = NULL;
            *n = 0;
            return cs_fail(err, CS_EINVAL, "empty entry in the list '%s'", text);
        }
        if (!((*vals)[(*n)++] = strndup(p, len))) {
            cs_script_free_list(*vals, *n);
            *vals = NULL;
            *n = 0;
            return cs_fail(err, CS_ENOMEM, "out of memory");
        }
        p += len;
        if (!*p)
            return CS_OK;
    }
}

/* ---- for ... end blocks --------------------------------------------------------- */

void cs_block_clear(cs_block *b)
{
    free(b->head);
    cs_script_free_list(b->vals, b->nvals);
    for (size_t i = 0; i < b->nbody; i++)
        free(b->body[i].text);
    free(b->body);
    memset(b, 0, sizeof *b);
}

int cs_block_open(cs_block *b, const char *head, int lineno, int col, const char *name,
                  char **vals, size_t nvals)
{
    cs_block_clear(b);
    b->head = strdup(head);
    if (!b->head) {
        cs_script_free_list(vals, nvals);
        return CS_ENOMEM;
    }
    b->depth = 1;
    b->head_line = lineno;
    b->head_col = col;
    snprintf(b->name, sizeof b->name, "%s", name);
    b->vals = vals;
    b->nvals = nvals;
    return CS_OK;
}

int cs_block_add(cs_block *b, const char *line, int lineno)
{
    if (cs_script_word(line, "for", NULL))
        b->depth++;
    else if (cs_script_word(line, "end", NULL) && --b->depth == 0)
        return 1;
    if (b->nbody == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        cs_block_line *nb = realloc(b->body, cap * sizeof *nb);
        if (!nb)
            return CS_ENOMEM;
        b->body = nb;
        b->cap = cap;
    }
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    char *t = strndup(line, len);
    if (!t)
        return CS_ENOMEM;
    b->body[b->nbody++] = (cs_block_line){t, lineno};
    return 0;
}
