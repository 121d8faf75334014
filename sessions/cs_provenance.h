/* cs_provenance.h — every output says how it was made.
 *
 * A table csreg writes (a CSV with a header) has `#` comment lines right
 * after its header line:
 *
 *   method,kind,N,M,gamma,K,...
 *   # csreg: 0.1.0 (commit 82b419c)
 *   # seed: 1
 *   # command: sweep kind=bin methods=bin N=100 gamma=0.6 out=s.csv
 *   # reg: bin                      (commands that use the current regularizer)
 *
 * the settings that are not columns are in the command line, as it ran
 * (variables substituted). pandas reads such a file with
 * read_csv(f, comment='#'), NumPy with genfromtxt(f, delimiter=',',
 * names=True) (comments='#' is its default; it takes the first line as the
 * names even when commented, hence after the header, not before it). Array
 * files (x, A, b, ends=, iterates=) stay plain numbers. Every --json line
 * carries the seed as "seed". Nothing time-dependent goes in, so a replay
 * writes the same bytes; only the csreg line changes from one build to the
 * next. */
#ifndef CS_PROVENANCE_H
#define CS_PROVENANCE_H

#include <stddef.h>

#include "cs_cmdline.h"
#include "cs_interp.h"

enum { CS_PROV_REG = 1 };  /* add the current regularizer's line */

/* The comment lines for the output of the command `cl` (each ending in
 * '\n'), into buf; truncated to fit (a cut line still ends in '\n'). Returns
 * the length written. */
size_t cs_provenance(const cs_interp *in, const cs_cmdline *cl, int flags, char *buf,
                     size_t cap);
/* The same with `extra` (NULL: none) added to the command line, as the
 * journal records it: an interrupted sweep's output names the stop_after=
 * that its replay runs with, so both write the same bytes. */
size_t cs_provenance_with(const cs_interp *in, const cs_cmdline *cl, const char *extra,
                          int flags, char *buf, size_t cap);

#endif
