/* cs_sweep_journal.h — the journal of a sweep's finished trials, kept beside
 * its CSV (`out=F.csv` → `F.csv.journal`) so that an interrupted sweep (Ctrl-C,
 * SIGKILL, a lost node) continues where it stopped (`resume=on`) and writes
 * the CSV an uninterrupted run would have written, byte for byte.
 *
 * The file is text, append-only:
 *
 *   csreg sweep journal 1
 *   kind=bin                  one line per setting that determines results
 *   ...                       (kind N axis grid M gamma K methods trials algo
 *   seed=1                    mode maxit stop tol restarts lambda dr_t
 *   header <crc32>            success_tol generic_reg seed; never threads)
 *   R <n> <point> <trial> <s>:<iters>:<starts>:<secs> ... <crc32>
 *   ...
 *
 * Each record (R line) holds n finished trials, each with the outcomes of
 * every method (secs: the IEEE bits of the double in hex, so it is exact),
 * and ends with the CRC-32 of the line before it. Records are written in
 * blocks (every 32 trials or half a second, and when the journal is closed),
 * each flushed and fdatasync'ed. Reading stops at the first record that is
 * incomplete (no newline: torn by a kill) or fails its checksum; resuming
 * cuts the file there before appending.
 *
 * A method made by `reg define` adds the header line "define.NAME=FORMULA"
 * after methods= (its canonical text: form, g, h, constants), so that a
 * resume after a redefinition is refused naming both definitions; built-in
 * methods add none (their headers are as they always were). */
#ifndef CS_SWEEP_JOURNAL_H
#define CS_SWEEP_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cs_error.h"
#include "cs_sweep.h"

typedef struct cs_sweep_journal cs_sweep_journal;

/* CRC-32 (IEEE 802.3, as zlib's crc32) of n bytes. */
uint32_t cs_crc32(const void *data, size_t n);

/* The journal beside out: "F.csv" -> "F.csv.journal". */
int cs_sweep_journal_name(const char *out, char *buf, size_t len, cs_err *err);

/* The header lines of a spec (malloc'd; without the magic line and the crc). */
char *cs_sweep_journal_header(const cs_sweep_spec *sp);

/* Open the journal at path for sp. resume=0: create it (an existing one is
 * replaced). resume=1: when it exists, check that its header matches sp
 * (else CS_EINVAL, "resume: NAME is for seed 2, this sweep has seed 1",
 * NAME being path's last component), load its valid records and cut what
 * follows them; when it does not exist, create it. Parent folders are
 * made. */
int cs_sweep_journal_open(cs_sweep_journal **out, const char *path, const cs_sweep_spec *sp,
                          int resume, cs_err *err);
/* The hooks that preload the loaded trials and append finished ones
 * (store->user is j). */
void cs_sweep_journal_store(cs_sweep_journal *j, cs_sweep_store *store);
/* Trials read from the file at open (distinct ones). */
long cs_sweep_journal_loaded(const cs_sweep_journal *j);
/* Write the trials still buffered, sync and close; the file stays. j may be
 * NULL. Returns the first write error of the journal's life, if any. */
int cs_sweep_journal_close(cs_sweep_journal *j, cs_err *err);
/* Close (as above) and remove the file: the CSV is written. */
int cs_sweep_journal_finish(cs_sweep_journal *j, cs_err *err);

#endif
