/* cs_blas.h — OpenBLAS's thread count, which is process-wide. The program
 * sets it (csreg: from --threads and `set threads`); an engine call that
 * runs its own worker threads holds it at one for its duration through the
 * save/restore pair, so that workers × BLAS threads never oversubscribe the
 * cores. Nothing else in the engine changes it. */
#ifndef CS_BLAS_H
#define CS_BLAS_H

/* The program's setting: `threads` workers (0: one BLAS thread, no spinning). */
void cs_blas_set_threads(int threads);
/* Set n for the duration of a call; returns what to restore. */
int cs_blas_hold_threads(int n);
void cs_blas_restore_threads(int saved);

#endif
