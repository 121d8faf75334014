/* reg_combine.c — the COMBINE step of the CS form (reg_gh.h): value and
 * gradient of ℓ = ‖g‖²‖h‖² − ⟨g,h⟩² from the arrays g, g', h, h'. */
#include <math.h>
#include <stddef.h>

#include "reg_gh.h"
#include "reg_internal.h"

/* a·b − c·d with one rounding error in total (Kahan's fma trick). */
static inline double diff_of_products(double a, double b, double c, double d)
{
    double w = c * d;
    double e = fma(c, d, -w);
    return fma(a, b, -w) - e;
}

void cs_combine_cs(const cs_gh *a, size_t n, const double *tail, double *value, double *grad)
{
    const double *g = a->g, *dg = a->dg, *h = a->h, *dh = a->dh;
    double hh = 0.0, gh = 0.0, gg = 0.0;
    for (size_t i = 0; i < n; i++) {
        hh += h[i] * h[i];
        gh += g[i] * h[i];
        if (!a->flat_h)
            gg += g[i] * g[i];
    }
    if (tail) {
        hh += 1.0;
        gh += *tail;
    }
    double RR = 0.0;
    for (size_t i = 0; i < n; i++) {
        double R = diff_of_products(hh, g[i], gh, h[i]);
        RR += R * R;
        if (grad)
            grad[i] = 2.0 * dg[i] * R;
    }
    if (tail) {
        double Rt = hh * *tail - gh;
        RR += Rt * Rt;
    }
    *value = hh > 0.0 ? RR / hh : 0.0;
    if (!grad || a->flat_h)
        return;
    for (size_t i = 0; i < n; i++)
        if (dh[i] != 0.0)
            grad[i] += 2.0 * dh[i] * diff_of_products(gg, h[i], gh, g[i]);
}

int cs_gh_scratch(cs_reg *reg, size_t n, size_t more, cs_gh *a, double **more_out,
                  cs_err *err)
{
    double *w = cs_reg_work(reg, 4 * n + more, err);
    if (!w)
        return CS_ENOMEM;
    *a = (cs_gh){w, w + n, w + 2 * n, w + 3 * n, 0};
    if (more_out)
        *more_out = w + 4 * n;
    return CS_OK;
}
