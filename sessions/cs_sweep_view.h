/* cs_sweep_view.h — watching a `sweep` live, for front ends that draw its
 * success curves as the trials come in (the TUI's sweep view). The REPL and
 * scripts do not watch: their progress line names the grid point. */
#ifndef CS_SWEEP_VIEW_H
#define CS_SWEEP_VIEW_H

#include <stddef.h>

#include "cs_interp.h"

/* What a sweep runs, told when it starts. */
typedef struct cs_sweep_live {
    long run;                      /* counts the sweeps of this session: a new one, a new number */
    const char *kind;              /* "bin" */
    const char *axis;              /* the grid's variable: "gamma", "M" or "K" */
    size_t N;
    const double *values;          /* the grid, npoints values */
    size_t npoints;
    const char *const *methods;    /* method texts, nmethods */
    size_t nmethods;
    long trials;                   /* per grid point */
    int threads;
} cs_sweep_live;

/* How a watched sweep ended. */
enum { CS_SWEEP_LIVE_DONE = 0, CS_SWEEP_LIVE_INTERRUPTED = 1, CS_SWEEP_LIVE_FAILED = -1 };

typedef struct cs_sweep_watch {
    /* Before the first trial, from the thread running the command; the
     * pointers in *l are valid during the call only. */
    void (*start)(void *ctx, const cs_sweep_live *l);
    /* A finished trial at grid point `point`: success[m] (0 or 1) for each
     * method. From the sweep's worker threads, possibly at the same time:
     * the callee locks. preloaded: read from the journal (resume=on), not
     * run now; those come first, before the trials that run. */
    void (*trial)(void *ctx, size_t point, const unsigned char *success, int preloaded);
    /* The sweep ended (CS_SWEEP_LIVE_*), from the thread running the command. */
    void (*end)(void *ctx, int how);
    void *ctx;
} cs_sweep_watch;

/* Watch every sweep from now on (copied; NULL or w->start NULL: none).
 * Watching changes no result: the CSV is the same byte for byte. */
void cs_interp_set_sweep_watch(cs_interp *in, const cs_sweep_watch *w);

#endif
