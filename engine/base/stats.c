/* stats.c — the Wilson score interval (cs_stats.h). */
#include "cs_stats.h"

#include <math.h>

int cs_wilson(long k, long n, double z, double *lo, double *hi)
{
    *lo = 0.0;
    *hi = 1.0;
    if (n <= 0 || k < 0 || k > n || !(z > 0.0))
        return -1;
    double dn = (double)n, p = (double)k / dn, z2 = z * z;
    double denom = 1.0 + z2 / dn;
    double centre = (p + z2 / (2.0 * dn)) / denom;
    double half = z * sqrt(p * (1.0 - p) / dn + z2 / (4.0 * dn * dn)) / denom;
    /* at k = 0 (k = n) the low (high) end is 0 (1) exactly, up to rounding */
    *lo = k == 0 ? 0.0 : fmax(0.0, centre - half);
    *hi = k == n ? 1.0 : fmin(1.0, centre + half);
    return 0;
}

int cs_wilson95(long k, long n, double *lo, double *hi) { return cs_wilson(k, n, 1.96, lo, hi); }
