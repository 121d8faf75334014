/* cs_result.h — what a command returns: ordered fields, rendered either as
 * one JSON object on one line (--json) or as readable text. */
#ifndef CS_RESULT_H
#define CS_RESULT_H

#include <stdio.h>
#include <stddef.h>

typedef struct cs_result cs_result;

cs_result *cs_result_new(const char *cmd);
void cs_result_free(cs_result *res);
void cs_result_reset(cs_result *res, const char *cmd);

/* Fields; keys are copied. Numbers print with %.17g (round-trip exact). */
void cs_result_str(cs_result *res, const char *key, const char *value);
void cs_result_num(cs_result *res, const char *key, double value);
void cs_result_int(cs_result *res, const char *key, long long value);
void cs_result_bool(cs_result *res, const char *key, int value);
void cs_result_vec(cs_result *res, const char *key, const double *v, size_t n);
/* A list of strings (JSON array; text: separated by spaces). */
void cs_result_strs(cs_result *res, const char *key, const char *const *v, size_t n);
/* A value already written as JSON (an object or array the caller built),
 * and how text mode shows it. */
void cs_result_json(cs_result *res, const char *key, const char *json, const char *text);
/* The same written by `write` into two streams, the JSON and the text
 * (nothing is added when they cannot be opened). */
void cs_result_json_written(cs_result *res, const char *key,
                            void (*write)(FILE *json, FILE *text, const void *ctx),
                            const void *ctx);
/* Free text for humans (help, tables): printed as-is in text mode, as the
 * string field "text" in JSON mode. Appends. */
void cs_result_text(cs_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text is for readers only: JSON leaves it out (the fields carry the
 * same data, e.g. as arrays of objects). Until the next reset. */
void cs_result_text_human_only(cs_result *res);

/* Render. Text mode prints `text` if any, then `key: value` per field
 * (fields whose key starts with '_' are JSON-only). */
void cs_result_print_json(const cs_result *res, FILE *out);
void cs_result_print_text(const cs_result *res, FILE *out);
int cs_result_empty(const cs_result *res);
/* Whether a field prints as the JSON member `key` (its key is `key` or
 * "_key"): a member added for every command checks it is not there yet. */
int cs_result_has(const cs_result *res, const char *key);

/* JSON string escaping, shared with error objects. */
void cs_json_string(FILE *out, const char *s);
/* A number as JSON (null when not finite), for values built by callers. */
void cs_json_number(FILE *out, double v);
/* Members of a JSON object written by hand: `"key":"value"`, `"key":number`
 * (null when not finite), `"key":true|false`, each after a comma unless
 * *first (which they clear). */
void cs_json_str_member(FILE *out, int *first, const char *key, const char *value);
void cs_json_num_member(FILE *out, int *first, const char *key, double value);
void cs_json_bool_member(FILE *out, int *first, const char *key, int value);

#endif
