/* cs_dist.h — trials spread over MPI ranks (csreg-mpi under mpirun).
 *
 * The one module that sees MPI: built without it (./csreg, CSREG_HAVE_MPI
 * undefined) every call is a one-process no-op (rank 0 of 1); compiled
 * with mpicc and -DCSREG_HAVE_MPI it is linked into build/rel/csreg-mpi.
 *
 * The model: every rank interprets the same script. A distributed run
 * (sweep, maxcut, basins) gives rank r of K the items i with i % K == r
 * (round robin: the grid points' costs differ, so blocks would not
 * balance), runs them on its own threads (cs_pool_run), agrees with the
 * other ranks on the status, and exchanges the per-item results so every
 * rank holds all of them, in item order: the aggregate is computed from
 * the same numbers in the same order as in one process, so outputs are
 * byte-identical for any rank and thread count. Everything else runs on
 * every rank alike; only rank 0 prints and writes files (cs_file.h's
 * discard mode, set by the program). */
#ifndef CS_DIST_H
#define CS_DIST_H

#include <stddef.h>

#include "cs_cancel.h"
#include "cs_error.h"
#include "cs_pool.h"

/* Start MPI (MPI_THREAD_FUNNELED: only the calling thread talks MPI).
 * Returns 0, or a negative code. A no-op without MPI. */
int cs_dist_init(int *argc, char ***argv);
/* MPI_Finalize (once; safe when init was not called). */
void cs_dist_finalize(void);
/* This process's rank and the number of ranks (0 and 1 without MPI). */
int cs_dist_rank(void);
int cs_dist_size(void);
/* Whether this binary was built with MPI (1) or not (0). */
int cs_dist_built(void);

/* cs_pool_run over the items of this rank (item i runs here when
 * i % size == rank; run_item gets the global index), then every rank
 * agrees: when some rank failed, all return the error of the lowest
 * failing rank (its message prefixed with "rank R: " when R ≠ 0), so a
 * script goes on (or stops) alike everywhere. Progress is this rank's,
 * scaled to the total. */
int cs_dist_pool_run(size_t total, int threads, cs_pool_item_fn run_item, void *ctx,
                     const cs_cancel *cancel, cs_progress_fn progress, void *user,
                     cs_err *err);
/* A step that each rank does on its own (open its journal): every rank
 * calls it with its status and all return alike: the error of the lowest
 * failing rank (prefixed "rank R: " when R != 0) when one failed, else
 * their own rc. Collective: every failure path must reach it, or the ranks
 * that did wait for ever in the next collective call. */
int cs_dist_all(int rc, cs_err *err);
/* After cs_dist_pool_run: base holds `total` items of item_bytes each, of
 * which this rank filled its own; afterwards every rank holds all of them
 * (MPI_Allgatherv in rank order, unpacked to item order). */
int cs_dist_gather_items(void *base, size_t item_bytes, size_t total, cs_err *err);
static inline int cs_dist_gather_doubles(double *v, size_t n, cs_err *err)
{
    return cs_dist_gather_items(v, sizeof *v, n, err);
}

/* After a command that every rank ran alike: rank 0's status is the
 * status of all (a file that rank 0 alone could not write fails the
 * command everywhere). Returns rank 0's rc (and its error into err, when
 * it failed); *diverged (when not NULL) is the lowest rank that failed
 * where rank 0 did not, its error in err, or -1. Also a barrier: the files
 * rank 0 wrote are in place before any rank runs the next command. */
int cs_dist_agree(int rc, cs_err *err, int *diverged);
/* Stop every rank of the job (MPI_Abort; exit without MPI). */
void cs_dist_abort(int code);

#endif
