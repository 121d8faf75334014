/* cs_par.h — a data-parallel loop over a fixed set of tasks, on a
 * persistent pool of worker threads (the network ops of the CPU backend).
 *
 * The caller splits its work into tasks that do not depend on the thread
 * count (a task is an image, a channel, a fixed block of rows), and every
 * reduction across tasks is summed by the caller in task order: then the
 * results are the same bits on 1 thread and on N. Threads pick tasks in any
 * order; `worker` (0..threads−1, 0 the caller) only selects scratch. Workers
 * block on a condition variable between loops (no spinning), and the caller
 * works too. A loop started from inside a task runs inline. */
#ifndef CS_PAR_H
#define CS_PAR_H

#define CS_PAR_MAX_THREADS 64

typedef void (*cs_par_fn)(void *ctx, int task, int worker);

/* The program's setting (--threads, `set threads`): clamped to
 * 1..CS_PAR_MAX_THREADS. */
void cs_par_set_threads(int threads);
int cs_par_threads(void);
/* Set n for the duration of a call; returns what to restore. */
int cs_par_hold_threads(int n);
void cs_par_restore_threads(int saved);

/* fn(ctx, t, worker) for t = 0..ntasks−1 on min(threads, ntasks) threads;
 * returns when all are done. */
void cs_par_for(int ntasks, cs_par_fn fn, void *ctx);

/* Joins the workers (they start again on the next loop); at exit. */
void cs_par_shutdown(void);

#endif
