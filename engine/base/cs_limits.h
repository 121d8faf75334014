/* cs_limits.h — limits every layer checks the same way. */
#ifndef CS_LIMITS_H
#define CS_LIMITS_H

/* Worker threads: threads= of sweep, maxcut and basins, --threads and
 * `set threads` (0: all cores). */
#define CS_MAX_THREADS 1024

/* The memory a problem or a network may take, estimated before anything
 * is allocated; larger ones are refused with the estimate. */
#define CS_MEMORY_BUDGET (4.0 * 1024 * 1024 * 1024)
#define CS_GIB (1024.0 * 1024 * 1024)

#endif
