/* cs_sweep_stream.h — the random streams of a sweep's trials: trial t at
 * (N, M, K) draws its problem from the stream mix(N, M, K, t) of the seed,
 * and each method its starts from mix(that, the method's text). `problem
 * ... trial=T` and `solve` draw from the same streams, so a sweep's trial
 * can be replayed alone. A leaf: the CPU sweep, the GPU sweep and the
 * commands all take their streams here. */
#ifndef CS_SWEEP_STREAM_H
#define CS_SWEEP_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "cs_method.h"

/* The stream of trial t at (N, M, K). */
uint64_t cs_sweep_trial_stream(size_t N, size_t M, size_t K, long trial);
/* The stream of a method within a trial: from its text as written
 * (m->text), not its canonical form (`holder p=2` and `holder:p=2` draw
 * different starts, as they always did). */
uint64_t cs_sweep_method_stream(uint64_t trial_stream, const cs_method *m);

#endif
