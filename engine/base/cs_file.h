/* cs_file.h — outputs are written atomically: to a temporary file in the
 * same directory, renamed over the target only when complete, so no reader
 * ever sees a half-written file. */
#ifndef CS_FILE_H
#define CS_FILE_H

#include <stdio.h>

#include "cs_error.h"

typedef struct cs_afile {
    FILE *f;
    char path[4096];
    char tmp[4096];
} cs_afile;

/* Create the missing folders above `path` (like mkdir -p of its dirname):
 * the one rule for every output, so `out=new/dir/f.csv` works anywhere. */
int cs_make_parents(const char *path, cs_err *err);

/* Open `path` for writing (creating missing parent folders). With
 * must_not_exist, an existing file is an error. */
int cs_afile_open(cs_afile *af, const char *path, int must_not_exist, cs_err *err);
/* Flush, close and rename into place; on any failure the target is untouched. */
int cs_afile_commit(cs_afile *af, cs_err *err);
/* Drop the temporary file. Safe to call after a failed commit. */
void cs_afile_abort(cs_afile *af);

#endif
