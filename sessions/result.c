/* result.c — command results as ordered fields, rendered as JSON or text. */
#include "cs_result.h"

#include "cs_parse.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum field_kind { F_STR, F_NUM, F_INT, F_BOOL, F_VEC, F_STRS, F_JSON };

typedef struct field {
    char *key;
    int kind;
    char *str;     /* F_STRS: the strings, each NUL-terminated, n of them; F_JSON: the text */
    char *json;    /* F_JSON: the value as JSON */
    double num;
    long long i;
    double *vec;
    size_t n;
} field;

struct cs_result {
    char *cmd;
    field *f;
    size_t n, cap;
    char *text;
    size_t text_len;
    int text_human_only;   /* JSON leaves the text out */
};

cs_result *cs_result_new(const char *cmd)
{
    cs_result *r = calloc(1, sizeof *r);
    if (r)
        r->cmd = strdup(cmd ? cmd : "");
    return r;
}

static void clear_fields(cs_result *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->f[i].key);
        free(r->f[i].str);
        free(r->f[i].json);
        free(r->f[i].vec);
    }
    r->n = 0;
    free(r->text);
    r->text = NULL;
    r->text_len = 0;
    r->text_human_only = 0;
}

void cs_result_free(cs_result *r)
{
    if (!r)
        return;
    clear_fields(r);
    free(r->f);
    free(r->cmd);
    free(r);
}

void cs_result_reset(cs_result *r, const char *cmd)
{
    clear_fields(r);
    free(r->cmd);
    r->cmd = strdup(cmd ? cmd : "");
}

/* Append a field, replacing an earlier one with the same key. */
static field *add(cs_result *r, const char *key, int kind)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->f[i].key, key) == 0) {
            free(r->f[i].str);
            free(r->f[i].json);
            free(r->f[i].vec);
            r->f[i].str = NULL;
            r->f[i].json = NULL;
            r->f[i].vec = NULL;
            r->f[i].kind = kind;
            return &r->f[i];
        }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 8;
        field *f = realloc(r->f, cap * sizeof *f);
        if (!f)
            return NULL;
        r->f = f;
        r->cap = cap;
    }
    field *f = &r->f[r->n];
    memset(f, 0, sizeof *f);
    f->key = strdup(key);
    if (!f->key)
        return NULL;
    f->kind = kind;
    r->n++;
    return f;
}

void cs_result_str(cs_result *r, const char *key, const char *value)
{
    field *f = add(r, key, F_STR);
    if (f)
        f->str = strdup(value ? value : "");
}

void cs_result_num(cs_result *r, const char *key, double value)
{
    field *f = add(r, key, F_NUM);
    if (f)
        f->num = value;
}

void cs_result_int(cs_result *r, const char *key, long long value)
{
    field *f = add(r, key, F_INT);
    if (f)
        f->i = value;
}

void cs_result_bool(cs_result *r, const char *key, int value)
{
    field *f = add(r, key, F_BOOL);
    if (f)
        f->i = value != 0;
}

void cs_result_vec(cs_result *r, const char *key, const double *v, size_t n)
{
    field *f = add(r, key, F_VEC);
    if (!f)
        return;
    f->vec = malloc((n ? n : 1) * sizeof *v);
    if (!f->vec)
        return;
    if (n)
        memcpy(f->vec, v, n * sizeof *v);
    f->n = n;
}

void cs_result_strs(cs_result *r, const char *key, const char *const *v, size_t n)
{
    field *f = add(r, key, F_STRS);
    if (!f)
        return;
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(v[i]) + 1;
    f->str = malloc(len);
    if (!f->str)
        return;
    char *p = f->str;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(v[i]) + 1;
        memcpy(p, v[i], l);
        p += l;
    }
    f->n = n;
}

void cs_result_json(cs_result *r, const char *key, const char *json, const char *text)
{
    field *f = add(r, key, F_JSON);
    if (!f)
        return;
    f->json = strdup(json ? json : "null");
    f->str = strdup(text ? text : "");
}

void cs_result_json_written(cs_result *r, const char *key,
                            void (*write)(FILE *json, FILE *text, const void *ctx),
                            const void *ctx)
{
    char *json = NULL, *text = NULL;
    size_t jl = 0, tl = 0;
    FILE *j = open_memstream(&json, &jl), *t = open_memstream(&text, &tl);
    if (j && t)
        write(j, t, ctx);
    if (j)
        fclose(j);
    if (t)
        fclose(t);
    if (j && t)
        cs_result_json(r, key, json, text);
    free(json);
    free(text);
}

void cs_result_text(cs_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    char *t = realloc(r->text, r->text_len + (size_t)len + 1);
    if (!t)
        return;
    r->text = t;
    va_start(ap, fmt);
    vsnprintf(r->text + r->text_len, (size_t)len + 1, fmt, ap);
    va_end(ap);
    r->text_len += (size_t)len;
}

void cs_result_text_human_only(cs_result *r) { r->text_human_only = 1; }

int cs_result_empty(const cs_result *r) { return r->n == 0 && r->text_len == 0; }

int cs_result_has(const cs_result *r, const char *key)
{
    for (size_t i = 0; i < r->n; i++) {
        const char *k = r->f[i].key;
        if (!strcmp(k[0] == '_' ? k + 1 : k, key))
            return 1;
    }
    return 0;
}

/* Length of the valid UTF-8 sequence at p (1..4), 0 when it is not one
 * (a stray continuation byte, a truncated or overlong sequence, a
 * surrogate, beyond U+10FFFF). */
static int utf8_len(const unsigned char *p)
{
    int n = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
    if (p[0] > 0xF4 || n == 0)
        return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((n == 3 && p[0] == 0xE0 && p[1] < 0xA0) || (n == 3 && p[0] == 0xED && p[1] >= 0xA0) ||
        (n == 4 && p[0] == 0xF0 && p[1] < 0x90) || (n == 4 && p[0] == 0xF4 && p[1] >= 0x90))
        return 0;
    return n;
}

void cs_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20) {
                fprintf(out, "\\u%04x", *p);
            } else if (*p < 0x80) {
                fputc(*p, out);
            } else {
                /* JSON is UTF-8: a byte that is not part of a valid
                 * sequence (a Latin-1 file name) becomes U+FFFD */
                int n = utf8_len(p);
                if (n) {
                    fwrite(p, 1, (size_t)n, out);
                    p += n - 1;
                } else {
                    fputs("\\ufffd", out);
                }
            }
        }
    }
    fputc('"', out);
}

static void print_num(FILE *out, double v)
{
    char buf[40];
    cs_format_double(buf, sizeof buf, v);
    fputs(buf, out);
}

/* JSON has no NaN or Inf: a number that is not available is null. */
static void print_num_json(FILE *out, double v)
{
    if (isfinite(v))
        print_num(out, v);
    else
        fputs("null", out);
}

void cs_json_number(FILE *out, double v) { print_num_json(out, v); }

static void member_key(FILE *out, int *first, const char *key)
{
    if (!*first)
        fputc(',', out);
    *first = 0;
    cs_json_string(out, key);
    fputc(':', out);
}

void cs_json_str_member(FILE *out, int *first, const char *key, const char *value)
{
    member_key(out, first, key);
    cs_json_string(out, value);
}

void cs_json_num_member(FILE *out, int *first, const char *key, double value)
{
    member_key(out, first, key);
    print_num_json(out, value);
}

void cs_json_bool_member(FILE *out, int *first, const char *key, int value)
{
    member_key(out, first, key);
    fputs(value ? "true" : "false", out);
}

static void print_value_json(FILE *out, const field *f)
{
    switch (f->kind) {
    case F_STR: cs_json_string(out, f->str ? f->str : ""); break;
    case F_NUM: print_num_json(out, f->num); break;
    case F_INT: fprintf(out, "%lld", f->i); break;
    case F_BOOL: fputs(f->i ? "true" : "false", out); break;
    case F_VEC:
        fputc('[', out);
        for (size_t i = 0; i < f->n; i++) {
            if (i)
                fputc(',', out);
            print_num_json(out, f->vec[i]);
        }
        fputc(']', out);
        break;
    case F_STRS: {
        fputc('[', out);
        const char *p = f->str;
        for (size_t i = 0; p && i < f->n; i++, p += strlen(p) + 1) {
            if (i)
                fputc(',', out);
            cs_json_string(out, p);
        }
        fputc(']', out);
        break;
    }
    case F_JSON: fputs(f->json ? f->json : "null", out); break;
    }
}

void cs_result_print_json(const cs_result *r, FILE *out)
{
    fputs("{\"cmd\":", out);
    cs_json_string(out, r->cmd);
    for (size_t i = 0; i < r->n; i++) {
        fputc(',', out);
        cs_json_string(out, r->f[i].key[0] == '_' ? r->f[i].key + 1 : r->f[i].key);
        fputc(':', out);
        print_value_json(out, &r->f[i]);
    }
    if (r->text && !r->text_human_only) {
        fputs(",\"text\":", out);
        cs_json_string(out, r->text);
    }
    fputs("}\n", out);
    fflush(out);
}

void cs_result_print_text(const cs_result *r, FILE *out)
{
    if (r->text) {
        fputs(r->text, out);
        if (r->text_len && r->text[r->text_len - 1] != '\n')
            fputc('\n', out);
    }
    for (size_t i = 0; i < r->n; i++) {
        const field *f = &r->f[i];
        if (f->key[0] == '_')
            continue;
        fprintf(out, "%s: ", f->key);
        switch (f->kind) {
        case F_STR: fputs(f->str ? f->str : "", out); break;
        case F_NUM: print_num(out, f->num); break;
        case F_INT: fprintf(out, "%lld", f->i); break;
        case F_BOOL: fputs(f->i ? "yes" : "no", out); break;
        case F_VEC:
            for (size_t j = 0; j < f->n; j++) {
                if (j)
                    fputc(' ', out);
                print_num(out, f->vec[j]);
            }
            break;
        case F_STRS: {
            const char *p = f->str;
            for (size_t j = 0; p && j < f->n; j++, p += strlen(p) + 1)
                fprintf(out, "%s%s", j ? " " : "", p);
            break;
        }
        case F_JSON: fputs(f->str ? f->str : "", out); break;
        }
        fputc('\n', out);
    }
    fflush(out);
}
