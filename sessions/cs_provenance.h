/* cs_provenance.h — every output says how it was made.
 *
 * A CSV that csreg writes begins with `#` comment lines, before its header:
 *
 *   # csreg: 0.1.0 (commit 82b419c)
 *   # seed: 1
 *   # command: sweep kind=bin methods=bin N=100 gamma=0.6 out=s.csv
 *   # reg: bin                      (commands that use the current regularizer)
 *
 * the settings that are not columns are in the command line, as it ran
 * (variables substituted). pandas reads such a file with
 * read_csv(f, comment='#'), NumPy with genfromtxt(f, delimiter=',',
 * names=True) (comments='#' is its default). Every --json line carries the
 * seed as "seed". Nothing time-dependent goes in, so a replay writes the
 * same bytes; only the csreg line changes from one build to the next. */
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

#endif
