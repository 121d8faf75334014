/* cs_csv.h — CSV text fields as RFC 4180 has them: a field holding a
 * comma, a double quote, a CR or LF is enclosed in double quotes, each
 * quote inside doubled; any other field is written as it is (so ordinary
 * names and numbers look the same as before quoting existed). */
#ifndef CS_CSV_H
#define CS_CSV_H

#include <stdio.h>

void cs_csv_field(FILE *f, const char *s);

#endif
