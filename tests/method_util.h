/* method_util.h — method values for tests: the engine takes methods parsed
 * (cs_method.h); these parse a test's texts, and abort on one the engine
 * refuses (a test that wants the error calls cs_method_parse itself). */
#ifndef CS_METHOD_UTIL_H
#define CS_METHOD_UTIL_H

#include <stddef.h>

#include "cs_method.h"

cs_method method_of(const char *text);
/* texts[0..n) into out[0..n). */
void methods_of(const char *const *texts, size_t n, cs_method *out);
/* the text first+sin(x)+...+sin(x) (n terms) into buf: a long g for the
 * device interpreter's limits (each term 3 instructions); buf */
char *expr_sines(char *buf, size_t len, const char *first, int n);

#endif
