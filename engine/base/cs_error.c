#include "cs_error.h"

#include <stdarg.h>
#include <stdio.h>

int cs_fail(cs_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
        err->key[0] = '\0';
    }
    return code;
}

int cs_fail_key(cs_err *err, int code, const char *key, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
        snprintf(err->key, sizeof err->key, "%s", key ? key : "");
    }
    return code;
}

void cs_err_clear(cs_err *err)
{
    if (err) {
        err->code = CS_OK;
        err->key[0] = '\0';
        err->msg[0] = '\0';
    }
}

const char *cs_strerror(int code)
{
    switch (code) {
    case CS_OK: return "ok";
    case CS_EINVAL: return "invalid argument";
    case CS_ENOMEM: return "out of memory";
    case CS_EDIM: return "wrong dimensions";
    case CS_ENONFINITE: return "NaN or Inf in data";
    case CS_EIO: return "input/output error";
    case CS_ENOTFOUND: return "not found";
    case CS_ECANCEL: return "cancelled";
    case CS_EUNSUPPORTED: return "unsupported";
    case CS_ESTATE: return "missing state";
    default: return "unknown error";
    }
}
