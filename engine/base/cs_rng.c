#include "cs_rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void cs_rng_init(cs_rng *rng, uint64_t seed, uint64_t stream)
{
    /* Mix the stream id through its own splitmix step so that neighbouring
     * (seed, stream) pairs land far apart in state space. */
    uint64_t st = seed;
    uint64_t a = splitmix64(&st);
    uint64_t t = stream ^ 0x6A09E667F3BCC909ull;
    uint64_t b = splitmix64(&t);
    uint64_t mix = a ^ rotl(b, 17) ^ (b * 0xD1B54A32D192ED03ull);
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&mix);
    rng->has_spare = 0;
    rng->spare = 0.0;
}

uint64_t cs_rng_u64(cs_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double cs_rng_uniform(cs_rng *rng)
{
    return (double)(cs_rng_u64(rng) >> 11) * 0x1.0p-53;
}

uint64_t cs_rng_below(cs_rng *rng, uint64_t n)
{
    if (n <= 1)
        return 0;
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;  /* reject the biased tail */
    uint64_t v;
    do {
        v = cs_rng_u64(rng);
    } while (v >= limit);
    return v % n;
}

double cs_rng_normal(cs_rng *rng)
{
    if (rng->has_spare) {
        rng->has_spare = 0;
        return rng->spare;
    }
    /* Marsaglia's polar method: no trig, exact rejection. */
    double u, v, s;
    do {
        u = 2.0 * cs_rng_uniform(rng) - 1.0;
        v = 2.0 * cs_rng_uniform(rng) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    double f = sqrt(-2.0 * log(s) / s);
    rng->spare = v * f;
    rng->has_spare = 1;
    return u * f;
}

void cs_rng_normal_fill(cs_rng *rng, double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = cs_rng_normal(rng);
}
