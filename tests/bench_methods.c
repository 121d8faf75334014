/* bench_methods.c — `make bench`: what each regularizer costs the solver.
 *
 *   per method  µs per FISTA iteration with every CS regularizer of the
 *               recovery solver (and the baselines), measured as issue 23
 *               says: N = 100, γ = 0.5, 40 trials of one start run to 5000
 *               iterations (stop=maxit), the solver's stepping time over
 *               its iterations; bin/osb/ter/eig kinds as the method needs,
 *               with ℓbin on the same problems as the yardstick. Three
 *               rounds, methods interleaved, the fastest round of each
 *               counts (this machine is shared: the slowest rounds measure
 *               the neighbours).
 *               Defined regularizers: myter (g = x, h = x³, ter's twin),
 *               mycubic (g = x(x²−1), h = x² + 0.5), both by Horner's rule,
 *               and mywave (g = e^(−x²), h = 1 + 0.1 sin x), by the
 *               interpreter.
 *   kernels     the fused kernels alone (cs_reg_fast.h): ns per FISTA
 *               iteration's two evaluations at N = 100 (value, gradient and
 *               norm at one point, the value at another), the fastest of
 *               5 interleaved rounds, against bin's: what a method adds to an iteration before
 *               the projection and the stepper, which all methods share.
 *   defined     a regularizer defined at run time (reg define myter g=x
 *               h=x^3) against ter through the library (cs_reg_eval), µs
 *               per value and gradient at N = 100 (issue 16: at most 3×). */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cs_reg.h"
#include "cs_reg_fast.h"
#include "cs_solver.h"
#include "cs_sweep.h"
#include "method_util.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const cs_err *err)
{
    fprintf(stderr, "bench: %s: %s\n", what, err->msg);
    exit(1);
}

/* µs per iteration of `method` over `trials` problems of `kind`. */
static double per_iter(const char *method, cs_kind kind, int trials)
{
    double t = 0.0;
    long its = 0;
    for (int k = 0; k < trials; k++) {
        cs_problem_spec ps = {.kind = kind, .N = 100, .M = 50};
        cs_problem *p;
        cs_err err;
        uint64_t ts = cs_sweep_trial_stream(100, 50, 0, k);
        if (cs_problem_new(&p, &ps, 1, ts, &err))
            die("problem", &err);
        cs_solve_opts o = {.maxit = 5000, .restarts = 1, .stop = CS_STOP_MAXIT};
        cs_solver *s;
        cs_method m = method_of(method);
        if (cs_solver_new(&s, p, &m, &o, 1, cs_sweep_method_stream(ts, &m), &err))
            die(method, &err);
        cs_solve_result r;
        if (cs_solver_solve(s, &r, &err))
            die(method, &err);
        t += r.seconds;
        its += r.iters;
        cs_solver_free(s);
        cs_problem_free(p);
    }
    return 1e6 * t / (double)its;
}

/* µs per value and gradient through cs_reg_eval at n entries; the best of 5. */
static double per_eval(const char *name, size_t n)
{
    cs_reg *r;
    cs_err err;
    if (cs_reg_new(&r, name, NULL, 0, 1, &err))
        die(name, &err);
    double *x = malloc(n * sizeof *x), *g = malloc(n * sizeof *g), v, best = INFINITY;
    for (size_t i = 0; i < n; i++)
        x[i] = sin(1.0 + (double)i);
    long reps = 100000;
    for (int round = 0; round < 5; round++) {
        double t0 = now_s();
        for (long k = 0; k < reps; k++) {
            x[k % (long)n] += 1e-15;
            if (cs_reg_eval(r, x, 1, n, &v, g, &err))
                die(name, &err);
        }
        best = fmin(best, 1e6 * (now_s() - t0) / (double)reps);
    }
    free(x);
    free(g);
    cs_reg_free(r);
    return best;
}

/* ns per pair of fused-kernel calls: value, gradient and norm at x, the
 * value at a nearby point y (one FISTA iteration's evaluations). */
static double per_pair(cs_reg *r, const char *name)
{
    enum { N = 100 };
    double x[N], y[N], g[N], f, gn;
    for (size_t i = 0; i < N; i++) {
        x[i] = sin(1.0 + (double)i);
        y[i] = x[i] + 0.01 * cos((double)i);
    }
    long reps = 100000;
    double t0 = now_s();
    for (long k = 0; k < reps; k++) {
        x[k % N] += 1e-15;
        if (cs_reg_fast_eval(r, x, N, &f, g, &gn) || cs_reg_fast_eval(r, y, N, &f, NULL, NULL)) {
            fprintf(stderr, "bench: %s: no fused kernel, or a non-finite value\n", name);
            exit(1);
        }
    }
    return 1e9 * (now_s() - t0) / (double)reps;
}

/* the kernels table: 5 rounds, methods interleaved, the fastest of each */
static void kernels_table(void)
{
    const char *kern[] = {"bin",    "osb", "ter",   "l2l1",  "fixed",   "bbin",  "binexp",
                          "holder", "si",  "l2l1h", "myter", "mycubic", "mywave"};
    enum { NK = sizeof kern / sizeof kern[0] };
    cs_reg *r[NK];
    double best[NK];
    for (size_t i = 0; i < NK; i++) {
        cs_err err;
        if (cs_reg_new(&r[i], kern[i], NULL, 0, 1, &err))
            die(kern[i], &err);
        best[i] = INFINITY;
    }
    for (int round = 0; round < 5; round++)
        for (size_t i = 0; i < NK; i++)
            best[i] = fmin(best[i], per_pair(r[i], kern[i]));
    printf("\nthe fused kernels alone (cs_reg_fast_eval), N = 100: ns per iteration's two "
           "evaluations\n(value, gradient and norm at one point, the value at another), the "
           "fastest of 5 rounds;\n+ bin = ns a method adds to an iteration\n");
    printf("%-10s %8s %7s %8s\n", "method", "ns", "x bin", "+ bin");
    for (size_t i = 0; i < NK; i++) {
        printf("%-10s %8.1f %7.2f %8.1f\n", kern[i], best[i], best[i] / best[0],
               best[i] - best[0]);
        cs_reg_free(r[i]);
    }
}

typedef struct row {
    const char *method, *label;
    cs_kind kind;
    double best;
} row;

int main(void)
{
    openblas_set_num_threads(1);   /* as in sweeps: one core per trial */
    cs_reg_def_spec d;
    cs_reg_def_spec_init(&d);
    d.name = "myter", d.g = "x", d.h = "x^3";
    cs_err err;
    if (cs_reg_define(&d, NULL, NULL, &err))
        die("reg define", &err);
    d.name = "mycubic", d.g = "x*(x^2 - 1)", d.h = "x^2 + 0.5";
    if (cs_reg_define(&d, NULL, NULL, &err))
        die("reg define", &err);
    d.name = "mywave", d.g = "exp(-x^2)", d.h = "1 + 0.1*sin(x)";
    if (cs_reg_define(&d, NULL, NULL, &err))
        die("reg define", &err);

    row rows[] = {
        {"bin", "bin", CS_PROB_BIN, INFINITY},
        {"osb", "osb", CS_PROB_BIN, INFINITY},
        {"ter", "ter", CS_PROB_BIN, INFINITY},
        {"bbin", "bbin", CS_PROB_BIN, INFINITY},
        {"binexp", "binexp", CS_PROB_BIN, INFINITY},
        {"holder", "holder", CS_PROB_BIN, INFINITY},
        {"si", "si", CS_PROB_BIN, INFINITY},
        {"l2l1", "l2l1", CS_PROB_BIN, INFINITY},
        {"l2l1h", "l2l1h", CS_PROB_BIN, INFINITY},
        {"fixed", "fixed", CS_PROB_BIN, INFINITY},
        {"beta:beta=1", "beta (beta=1)", CS_PROB_BIN, INFINITY},
        {"beta:beta=learn", "beta (learned)", CS_PROB_BIN, INFINITY},
        {"myter", "defined g=x h=x^3", CS_PROB_BIN, INFINITY},
        {"mycubic", "defined x(x^2-1)", CS_PROB_BIN, INFINITY},
        {"mywave", "defined exp, sin", CS_PROB_BIN, INFINITY},
        {"linf", "linf (DR)", CS_PROB_BIN, INFINITY},
        {"bin", "bin", CS_PROB_EIG, INFINITY},
        {"eig", "eig", CS_PROB_EIG, INFINITY},
        {"mu", "mu", CS_PROB_EIG, INFINITY},
        {"ns", "ns", CS_PROB_EIG, INFINITY},
    };
    size_t nr = sizeof rows / sizeof rows[0];
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < nr; i++)
            rows[i].best = fmin(rows[i].best, per_iter(rows[i].method, rows[i].kind, 40));

    printf("regularizers in the solver: N = 100, gamma = 0.5, 40 trials x 5000 iterations "
           "(stop=maxit), one start;\nus per iteration, the fastest of 3 rounds; x bin = "
           "against bin on the same problems\n");
    printf("%-20s %-5s %9s %7s\n", "method", "kind", "us/iter", "x bin");
    double ref = rows[0].best;
    for (size_t i = 0; i < nr; i++) {
        if (rows[i].kind == CS_PROB_EIG && !strcmp(rows[i].method, "bin"))
            ref = rows[i].best;
        printf("%-20s %-5s %9.3f %7.2f\n", rows[i].label, cs_problem_kind_name(rows[i].kind),
               rows[i].best, rows[i].best / ref);
    }
    kernels_table();
    double a = per_eval("myter", 100), b = per_eval("ter", 100);
    printf("\ndefined regularizer (reg define myter g=x h=x^3) against ter, value and "
           "gradient through cs_reg_eval, N = 100:\n  myter %.3f us, ter %.3f us, "
           "ratio %.2f\n", a, b, a / b);
    return 0;
}
