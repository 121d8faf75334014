/* method_util.c — see method_util.h */
#include "method_util.h"

#include <stdio.h>
#include <stdlib.h>

cs_method method_of(const char *text)
{
    cs_method m;
    cs_err err;
    if (cs_method_parse(&m, text, &err)) {
        fprintf(stderr, "method_of(%s): %s\n", text, err.msg);
        abort();
    }
    return m;
}

void methods_of(const char *const *texts, size_t n, cs_method *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = method_of(texts[i]);
}

char *expr_sines(char *buf, size_t len, const char *first, int n)
{
    size_t w = (size_t)snprintf(buf, len, "%s", first);
    for (int i = 0; i < n && w < len; i++)
        w += (size_t)snprintf(buf + w, len - w, "+sin(x)");
    return buf;
}
