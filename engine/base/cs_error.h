/* cs_error.h — status codes and the error buffer every engine call fills.
 * The engine never prints or exits: it returns a negative CS_E* code and
 * leaves a one-line, human-readable message in a cs_err. */
#ifndef CS_ERROR_H
#define CS_ERROR_H

enum {
    CS_OK = 0,
    CS_EINVAL = -1,     /* malformed or out-of-range input */
    CS_ENOMEM = -2,     /* allocation failed or size too large */
    CS_EDIM = -3,       /* wrong dimensions */
    CS_ENONFINITE = -4, /* NaN or Inf in data */
    CS_EIO = -5,        /* file could not be read or written */
    CS_ENOTFOUND = -6,  /* unknown name */
    CS_ECANCEL = -7,    /* interrupted by the user */
    CS_EUNSUPPORTED = -8,
    CS_ESTATE = -9      /* command needs state that is not there (no problem, ...) */
};

#define CS_ERR_MAX 512

typedef struct cs_err {
    int code;
    char key[24];   /* the input key at fault ("M", "lambda"), "" when none */
    char msg[CS_ERR_MAX];
} cs_err;

/* Record an error (printf-style) and return `code`, so callers can write
 * `return cs_fail(err, CS_EINVAL, "bad %s", what);`. err may be NULL. */
int cs_fail(cs_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same, naming the input key at fault, so that a front end can point at
 * its column without checking the input again. */
int cs_fail_key(cs_err *err, int code, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void cs_err_clear(cs_err *err);
const char *cs_strerror(int code);

#endif
