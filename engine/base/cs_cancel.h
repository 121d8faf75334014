/* cs_cancel.h — the one cancel flag type. A front end owns the flag (a
 * SIGINT handler or the TUI's Esc sets it); long engine calls poll it and
 * return CS_ECANCEL or a partial result. Stores to a lock-free atomic_int
 * are safe from a signal handler. */
#ifndef CS_CANCEL_H
#define CS_CANCEL_H

#include <stdatomic.h>

typedef atomic_int cs_cancel;

/* Whether `c` (may be NULL) asks to stop. */
static inline int cs_cancelled(const cs_cancel *c)
{
    return c && atomic_load_explicit(c, memory_order_relaxed);
}

#endif
