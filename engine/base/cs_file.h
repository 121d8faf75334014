/* cs_file.h — outputs are written atomically: to a temporary file in the
 * same directory, renamed over the target only when complete, so no reader
 * ever sees a half-written file and a failed write keeps the old one.
 *
 * Temporary files are named `NAME.csreg-PID-N.tmp` beside the target NAME
 * (PID: the writing process). A process killed mid-write (SIGKILL, power
 * loss) leaves its file behind; the next write to the same target removes
 * those of ours whose process is gone. */
#ifndef CS_FILE_H
#define CS_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "cs_cancel.h"
#include "cs_error.h"

typedef struct cs_afile {
    FILE *f;
    const cs_cancel *cancel;  /* polled by cs_afile_poll (NULL: never); set after open */
    char path[4096];
    char tmp[4096];
} cs_afile;

/* Create the missing folders above `path` (like mkdir -p of its dirname):
 * the one rule for every output, so `out=new/dir/f.csv` works anywhere. */
int cs_make_parents(const char *path, cs_err *err);

/* Create the temporary file for `path` (missing folders made, our stale
 * temporaries of the same target removed): its name into tmp, and the open
 * descriptor (>= 0, O_CLOEXEC, mode 0666 less the umask) returned; or a
 * negative CS_E* code. */
int cs_tmp_create(const char *path, char *tmp, size_t cap, cs_err *err);
/* Remove our temporaries of `path` whose writing process has ended;
 * returns how many went. */
int cs_tmp_sweep(const char *path);

/* Discard mode (the MPI ranks other than 0, see cs_dist.h): outputs are
 * written to /dev/null and never installed, folders are not made, and the
 * must_not_exist check is left to the rank that writes. Process-wide;
 * set once at start-up, before any thread runs. */
void cs_file_set_discard(int on);
int cs_file_discard(void);

/* Open `path` for writing (creating missing parent folders). With
 * must_not_exist, an existing file is an error. */
int cs_afile_open(cs_afile *af, const char *path, int must_not_exist, cs_err *err);
/* For long writes, every few rows: CS_ECANCEL when af->cancel is set, CS_EIO
 * when a write already failed (disk full), naming the file; else 0. The
 * caller then calls cs_afile_abort (the old file stays). */
int cs_afile_poll(cs_afile *af, cs_err *err);
/* fwrite in pieces, polling between them. */
int cs_afile_write(cs_afile *af, const void *data, size_t n, cs_err *err);
/* Flush, sync, close and rename into place; on any failure the target is
 * untouched and the temporary file removed. */
int cs_afile_commit(cs_afile *af, cs_err *err);
/* Drop the temporary file. Safe to call after a failed commit. */
void cs_afile_abort(cs_afile *af);

/* The name partial results go to beside `path`: "s.csv" -> "s.partial.csv",
 * "s" -> "s.partial". CS_EINVAL when it does not fit. */
int cs_partial_name(const char *path, char *buf, size_t len, cs_err *err);

#endif
