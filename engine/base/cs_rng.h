/* cs_rng.h — the one random number generator (xoshiro256**).
 * Every consumer derives its own stream from (seed, stream id), so results
 * never depend on thread count, batch size or call order across streams. */
#ifndef CS_RNG_H
#define CS_RNG_H

#include <stdint.h>
#include <stddef.h>

typedef struct cs_rng {
    uint64_t s[4];
    double spare;   /* second normal of the last Box–Muller pair */
    int has_spare;
} cs_rng;

/* Stream `stream` of `seed`: distinct (seed, stream) pairs give independent streams. */
void cs_rng_init(cs_rng *rng, uint64_t seed, uint64_t stream);
uint64_t cs_rng_u64(cs_rng *rng);
double cs_rng_uniform(cs_rng *rng);              /* in [0, 1), 53 bits */
double cs_rng_normal(cs_rng *rng);               /* N(0, 1) */
uint64_t cs_rng_below(cs_rng *rng, uint64_t n);  /* uniform in [0, n), unbiased */
void cs_rng_normal_fill(cs_rng *rng, double *x, size_t n);

#endif
