/* gp.h — the gnuplot driver: command text, quoting, and one gnuplot run.
 *
 * gnuplot runs as a child process started without a shell (posix_spawn),
 * reads its commands from a pipe (as the script file /dev/stdin, so it stops
 * at the first error and names the line), and writes its errors to a second
 * pipe that is read back and turned into a cs_err. Data travels inline as
 * datablocks (`$D << EOD`); no temporary data files.
 *
 * Command text is built in a cs_gpbuf. Its printf takes literal formats
 * only (-Wformat=2); every piece of text that did not come from this layer
 * (titles, labels, file names) goes through cs_gpbuf_quote, which makes a
 * gnuplot string expression of single-quoted pieces: inside '...' gnuplot
 * does no backslash, backquote (`cmd`) or macro (@var) processing. A quote
 * and a newline, the two characters such a piece cannot hold, are joined
 * in as the constants "'" and "\n" ('it' . "'" . 's'), so every text
 * survives whatever it starts or ends with; other control characters
 * become spaces, so quoted text can never end the command line it sits in.
 *
 * Files are written atomically: gnuplot writes to a temporary name in the
 * destination's directory (cs_tmp_create), and only after gnuplot exited
 * with status 0 and the image was found complete (cs_gp_check_image) is it
 * renamed to the final name. On any failure the temporary file is removed
 * and the old file stays.
 *
 * Functions return 0 or a negative CS_E* code and fill cs_err; nothing here
 * prints or exits. The driver is safe to call from several threads. */
#ifndef CS_GP_H
#define CS_GP_H

#include <stddef.h>
#include <stdio.h>

#include "cs_cancel.h"
#include "cs_error.h"

/* The exact message when gnuplot cannot be found. */
#define CS_GP_NOT_FOUND_MSG "gnuplot not found (apt-get install gnuplot-nox)"

/* ---- command text ------------------------------------------------------ */

typedef struct cs_gpbuf {
    char *s;        /* NUL-terminated text (NULL while empty) */
    size_t len;
    size_t cap;
    int failed;     /* sticky: an allocation failed; the text is incomplete */
} cs_gpbuf;

void cs_gpbuf_init(cs_gpbuf *b);
void cs_gpbuf_free(cs_gpbuf *b);
void cs_gpbuf_reset(cs_gpbuf *b);                 /* empty, keeps the memory */
const char *cs_gpbuf_str(const cs_gpbuf *b);      /* "" while empty */
/* Append formatted text. Numbers are formatted in the C locale whatever the
 * process locale is. Never pass text from outside plots/ through %s. */
void cs_gpbuf_printf(cs_gpbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cs_gpbuf_append(cs_gpbuf *b, const char *s, size_t n);
/* Append `text` as a gnuplot string expression: single-quoted pieces, a
 * quote as "'" and a newline as "\n" joined with '.', other control
 * characters -> space. NULL is the empty string ''. */
void cs_gpbuf_quote(cs_gpbuf *b, const char *text);
/* Append one number in a form gnuplot reads back exactly enough for
 * plotting (%.7g in the C locale). */
void cs_gpbuf_num(cs_gpbuf *b, double v);
/* The same number text into dst (C locale, %.7g; "-0" becomes "0"). */
void cs_gp_fmt_num(char *dst, size_t cap, double v);

/* ---- finding gnuplot ----------------------------------------------------- */

enum {
    CS_GP_TERM_PNGCAIRO = 1u << 0,
    CS_GP_TERM_PNG      = 1u << 1,   /* libgd */
    CS_GP_TERM_SVG      = 1u << 2,
    CS_GP_TERM_PDFCAIRO = 1u << 3,
    CS_GP_TERM_GIF      = 1u << 4,
    CS_GP_TERM_DUMB     = 1u << 5,
    CS_GP_TERM_QT       = 1u << 6,
    CS_GP_TERM_WXT      = 1u << 7,
    CS_GP_TERM_X11      = 1u << 8
};

typedef struct cs_gp_info {
    char path[4096];     /* the executable that runs */
    char version[64];    /* "5.4 patchlevel 4" */
    int major, minor, patchlevel;
    unsigned terms;      /* CS_GP_TERM_* bits */
} cs_gp_info;

/* Find gnuplot and learn its version and terminals. The answer is cached
 * (per program/search path); a failed lookup is retried on the next call.
 * Missing: CS_ENOTFOUND with exactly CS_GP_NOT_FOUND_MSG. Older than 5.0
 * (no datablocks): CS_EUNSUPPORTED. info may be NULL. */
int cs_gp_detect(cs_gp_info *info, cs_err *err);

/* For tests and odd installations. prog: a bare name searched in the search
 * path, or a path containing '/'; NULL restores "gnuplot" (or the value of
 * the environment variable CSREG_GNUPLOT when set). search_path: a
 * PATH-style list; NULL restores getenv("PATH"). Both drop the cache. */
void cs_gp_set_program(const char *prog);
void cs_gp_set_search_path(const char *search_path);
/* Seconds one gnuplot run may take before it is killed (default 120). */
void cs_gp_set_timeout(double seconds);

/* ---- running gnuplot ------------------------------------------------------ */

/* Run `script` through gnuplot (`gnuplot -d /dev/stdin`: no init files).
 * stdout_text, when non-NULL, receives what gnuplot wrote on stdout (the
 * dumb terminal's drawing). A non-zero exit becomes CS_EIO with gnuplot's
 * own message, e.g. "gnuplot: line 7: unrecognized option - see 'help
 * set'. (in: set foo)". */
int cs_gp_run(const char *script, cs_gpbuf *stdout_text, cs_err *err);

/* Check an output name: not empty, no control characters, not ending in
 * '/'. cs_gp_check_path also checks the file system: the directory exists
 * and the name is not a directory. */
int cs_gp_check_name(const char *path, cs_err *err);
int cs_gp_check_path(const char *path, cs_err *err);

/* The whole job: write `prologue` (terminal set-up, without `set output`),
 * then `set output '<file>'`, then `body`, then `unset output`.
 * path == NULL: no `set output` (dumb terminal to stdout_text, or a
 * window). With a path the file is written atomically (temporary name in
 * the same directory, renamed on success only).
 * When script_only is non-NULL nothing runs: the full command text, with
 * the final path in `set output`, is written to script_only instead.
 * cancel (may be NULL) is polled while gnuplot runs: set, gnuplot is
 * stopped and the result is CS_ECANCEL (the old file stays). */
int cs_gp_render(const char *prologue, const char *body, const char *path,
                 cs_gpbuf *stdout_text, FILE *script_only, const cs_cancel *cancel, cs_err *err);

/* Whether `file`, written for `target`, is a complete image of the format
 * target's name says: PNG ends with its IEND chunk, PDF with %%EOF, GIF
 * with its trailer, SVG with </svg>; any other name: not empty. The file
 * is synced to the disk. CS_EIO naming target otherwise. */
int cs_gp_check_image(const char *file, const char *target, cs_err *err);

/* Compose the command text cs_gp_render sends (output_name as given). */
void cs_gp_compose(cs_gpbuf *out, const char *prologue, const char *body,
                   const char *output_name);

/* Save the script that redraws a figure to `file` (atomically, missing
 * folders made): `note` ('#' comment lines, may be NULL), then what
 * cs_gp_compose gives for output_name (NULL: no `set output`). Run with
 * `gnuplot FILE` it writes output_name (relative to where it runs). */
int cs_gp_save_script(const char *file, const char *note, const char *prologue,
                      const char *body, const char *output_name, cs_err *err);

#endif
