/* format_util.c — the former cs_format_double (the shortest %.{p}g that
 * reads back, p = 1..17), verbatim: the reference that tests/test_format.c
 * compares the new one with, and the peer tests/bench_format.c times. */
#include "format_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void format_former(char *buf, size_t len, double v)
{
    if (isnan(v)) {
        snprintf(buf, len, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, len, v > 0 ? "inf" : "-inf");
        return;
    }
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, len, "%.0f", v == 0.0 ? 0.0 : v); /* no "-0" */
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}
