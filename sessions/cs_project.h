/* cs_project.h — finding the project's own files (sessions/tour.csr, the
 * G-set graphs under sessions/data/gset) from any working directory. */
#ifndef CS_PROJECT_H
#define CS_PROJECT_H

#include <stddef.h>

enum { CS_PROJECT_MAX_DIRS = 3 };

/* The folders that may be the project's top, most specific first: the
 * working directory, the program's folder (./csreg at the top) and two
 * levels above it (build/VARIANT/csreg). Returns how many. */
size_t cs_project_dirs(char dirs[][4096], size_t cap);
/* The first readable DIR/rel of those folders, into buf; -1 when none. */
int cs_project_find(const char *rel, char *buf, size_t len);

#endif
