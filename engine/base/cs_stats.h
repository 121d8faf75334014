/* cs_stats.h — small statistics of Monte-Carlo results. */
#ifndef CS_STATS_H
#define CS_STATS_H

/* The Wilson score interval of a success rate: k successes in n trials,
 * z standard errors (z = 1.96: 95%) -> [*lo, *hi], within [0, 1].
 * Unlike p ± z·stderr it never leaves [0, 1] and is not empty at k = 0 or
 * k = n (0 of 10: [0, 0.2775]), which is what a live view of few trials
 * needs. n <= 0 (nothing known), k outside [0, n] or z not positive:
 * [0, 1] and -1; else 0. */
int cs_wilson(long k, long n, double z, double *lo, double *hi);

/* The same at 95% (z = 1.96): 8 of 10 -> [0.4902, 0.9433]. */
int cs_wilson95(long k, long n, double *lo, double *hi);

#endif
