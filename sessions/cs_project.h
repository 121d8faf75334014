/* cs_project.h — finding the project's own files (sessions/tour.csr, the
 * G-set graphs under sessions/data/gset) from any working directory, in the
 * source tree or installed (make install: PREFIX/share/csreg). */
#ifndef CS_PROJECT_H
#define CS_PROJECT_H

#include <stddef.h>

enum { CS_PROJECT_MAX_DIRS = 6 };

/* The folders that may be the project's top, most specific first:
 * $CSREG_DATADIR, the working directory, the program's folder (./csreg at
 * the top), two levels above it (build/VARIANT/csreg), the installed data
 * beside the program (BIN/../share/csreg) and the data folder compiled in
 * (CSREG_DATADIR: PREFIX/share/csreg of the build). Returns how many. */
size_t cs_project_dirs(char dirs[][4096], size_t cap);
/* The first readable DIR/rel of those folders, into buf; -1 when none. */
int cs_project_find(const char *rel, char *buf, size_t len);

#endif
