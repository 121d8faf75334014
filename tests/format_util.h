/* format_util.h — the former cs_format_double, kept as a reference. */
#ifndef CS_FORMAT_UTIL_H
#define CS_FORMAT_UTIL_H

#include <stddef.h>

void format_former(char *buf, size_t len, double v);

#endif
