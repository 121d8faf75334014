/* sweep_util.h — a sweep's outcomes trial by trial (through a store that
 * records what each finished trial gave), and their comparison between two
 * devices: what test_cuda_emu.c (the emulated GPU) and test_sweep_gpu.c
 * (a real one) check against the CPU. */
#ifndef CS_SWEEP_UTIL_H
#define CS_SWEEP_UTIL_H

#include <stddef.h>

#include "cs_sweep.h"

typedef struct sweep_trials {
    size_t n, nm;               /* items (points × trials), methods */
    unsigned char *success;     /* item × nm + method */
    long *iters;
    int *starts;
    cs_sweep_result *res;
    double seconds;             /* wall clock of the run */
} sweep_trials;

/* Run spec on `device`, keeping every trial's outcome: 0, or the sweep's
 * error code (err filled). */
int sweep_trials_run(const cs_sweep_spec *spec, cs_device device, sweep_trials *out,
                     cs_err *err);
void sweep_trials_free(sweep_trials *t);

/* The share of (trial, method) pairs with the same success, and with the
 * same iteration count; prints one line per method and grid point where
 * they differ (verbose) and a summary. */
void sweep_trials_compare(const sweep_trials *a, const sweep_trials *b, int verbose,
                          double *same_success, double *same_iters);

#endif
