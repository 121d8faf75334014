/* cs_pool.h — a pool of worker threads over items 0..total−1 (the trials
 * of a sweep, MAX-CUT or a basin map): each worker takes the next item;
 * the calling thread waits (blocking, no spinning) and reports progress.
 * Results depend only on the item index, never on which thread ran it. */
#ifndef CS_POOL_H
#define CS_POOL_H

#include <stddef.h>

#include "cs_cancel.h"
#include "cs_error.h"

/* Runs one item: 0 done, 1 cancelled (the item is not counted), <0 error
 * (the pool stops and returns it). Called from worker threads. */
typedef int (*cs_pool_item_fn)(void *ctx, size_t item, cs_err *err);
/* Items done of total, from the calling thread. */
typedef void (*cs_progress_fn)(void *user, size_t done, size_t total);

/* The number of online cores. */
int cs_pool_cores(void);
/* Run every item on `threads` workers (0: all cores; never more than
 * items). Returns 0 (also when cancelled: the items not run are simply not
 * done; the caller knows from its own records) or the first item error. */
int cs_pool_run(size_t total, int threads, cs_pool_item_fn run_item, void *ctx,
                const cs_cancel *cancel, cs_progress_fn progress, void *user, cs_err *err);

#endif
