/* bytes.c — see cs_bytes.h. */
#include "cs_bytes.h"

#include <stdlib.h>
#include <string.h>

void cs_bytes_put(cs_bytes *b, const void *data, size_t n)
{
    if (b->oom || !n)
        return;
    if (b->n + n > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->n + n)
            c *= 2;
        unsigned char *q = realloc(b->p, c);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = c;
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}
