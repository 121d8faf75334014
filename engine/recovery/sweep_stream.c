/* sweep_stream.c — the random streams of a sweep's trials (cs_sweep_stream.h). */
#include "cs_sweep_stream.h"

static uint64_t splitmix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

uint64_t cs_sweep_trial_stream(size_t N, size_t M, size_t K, long trial)
{
    uint64_t h = splitmix(0x5357454550ull ^ (uint64_t)N);
    h = splitmix(h ^ (uint64_t)M);
    h = splitmix(h ^ (uint64_t)K);
    return splitmix(h ^ (uint64_t)trial);
}

uint64_t cs_sweep_method_stream(uint64_t trial_stream, const cs_method *m)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)m->text; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return splitmix(trial_stream ^ splitmix(h));
}
