/* cs_args.h — typed access to a command's arguments. Each getter validates,
 * applies the default, and on error names the key and the allowed range and
 * records the argument's column in the interpreter for FILE:LINE:COL. */
#ifndef CS_ARGS_H
#define CS_ARGS_H

#include <stddef.h>

#include "cs_cmdline.h"
#include "cs_interp.h"

int cs_arg_double(cs_interp *in, const cs_cmdline *cl, const char *key, double def, double lo,
                  double hi, double *out, cs_err *err);
int cs_arg_long(cs_interp *in, const cs_cmdline *cl, const char *key, long def, long lo,
                long hi, long *out, cs_err *err);
/* One of the words in `choices` ("a|b|c"); *out points into choices-owned
 * storage or the argument (valid while cl lives). */
int cs_arg_choice(cs_interp *in, const cs_cmdline *cl, const char *key, const char *choices,
                  const char *def, const char **out, cs_err *err);
/* on|off (also 1|0, yes|no, true|false). */
int cs_arg_bool(cs_interp *in, const cs_cmdline *cl, const char *key, int def, int *out,
                cs_err *err);
/* The file name of `key` as the command should use it (cs_interp_path: the
 * sandbox mapping); errors blame key's column. Writers create missing
 * parent folders themselves (cs_afile_open, the plots). */
int cs_arg_path(cs_interp *in, const cs_cmdline *cl, const char *key, char *buf, size_t len,
                cs_err *err);
/* Raw text or def. */
const char *cs_arg_text(const cs_cmdline *cl, const char *key, const char *def);
/* A grid: `start:step:stop` (inclusive), a list `a,b,c`, or one number.
 * *vals is malloc'd. */
int cs_arg_grid(cs_interp *in, const cs_cmdline *cl, const char *key, const char *def,
                double **vals, size_t *n, cs_err *err);
/* key=NAME:GRID (e.g. vary=noise:0,0.05,0.1 or lambda:0.1:0.1:0.5): NAME
 * into name (cap bytes) and the grid into *vals (malloc'd); untouched
 * (*vals NULL) when the key is absent. */
int cs_arg_named_grid(cs_interp *in, const cs_cmdline *cl, const char *key, char *name,
                      size_t cap, double **vals, size_t *n, cs_err *err);
/* A range lo:hi (or lo:step:hi: its ends), lo < hi; untouched when the
 * key is absent. */
int cs_arg_box(cs_interp *in, const cs_cmdline *cl, const char *key, double *lo, double *hi,
               cs_err *err);
/* Two distinct 1-based coordinates i,j of a point with n entries, as
 * 0-based dims; untouched when the key is absent. */
int cs_arg_dims(cs_interp *in, const cs_cmdline *cl, const char *key, size_t n, size_t dims[2],
                cs_err *err);
/* at=X (a vector of at least 2 entries, *at malloc'd, NULL when absent) and
 * dims=i,j (1-based in the text, 0-based in dims; default 1,2). */
int cs_arg_slice(cs_interp *in, const cs_cmdline *cl, double **at, size_t *n, size_t dims[2],
                 cs_err *err);
/* The column of byte `off` of the argument's value (where a list entry is
 * at fault). */
int cs_arg_value_col(const cs_arg *a, size_t off);
/* Mark the column of `key` (or of positional i when key is NULL) as the error position. */
void cs_arg_blame(cs_interp *in, const cs_cmdline *cl, const char *key, size_t pos);
/* Where an interrupted run's results go: beside out= as NAME.partial.csv
 * (partial=beside, the default) or into out= itself (partial=out); path and
 * shown (out= as given, for messages) are changed in place. */
int cs_arg_partial_target(cs_interp *in, const cs_cmdline *cl, char *path, size_t len,
                          char *shown, size_t slen, cs_err *err);

#endif
