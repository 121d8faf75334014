/* bench_solver.c — `make bench`: the cost of the recovery solvers.
 *
 *   projection  µs per P₀(g) at N = 100: Cholesky vs range basis vs null basis
 *   FISTA       µs per iteration (ℓbin, fixed 2000 iterations) and per trial
 *               (the paper's setting: oracle stop, 1e4 iterations, 10 starts)
 *               at N = 100, M = 30 50 70 90, and N = 1000, 10000
 *   DR          µs per iteration (ℓ∞)
 *   sweep       trials per second on 1 thread and on all cores
 *   flop rate   of the FISTA loop, as a fraction of this machine's DGEMM peak
 *               (one core, measured in the same run) */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cs_proj.h"
#include "cs_sweep.h"
#include "method_util.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double dgemm_peak(int n, int reps)
{
    double *a = malloc((size_t)n * n * sizeof *a), *b = malloc((size_t)n * n * sizeof *b);
    double *c = calloc((size_t)n * n, sizeof *c);
    for (size_t i = 0; i < (size_t)n * n; i++) {
        a[i] = 1.0 / (double)(i + 1);
        b[i] = 1.0 / (double)(i + 2);
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
    double best = 0.0;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
        double g = 2.0 * n * (double)n * n / (now_s() - t0) / 1e9;
        if (g > best)
            best = g;
    }
    free(a), free(b), free(c);
    return best;
}

static cs_problem *make(const char *kind, size_t N, size_t M, uint64_t stream, int method)
{
    cs_problem_spec sp = {.N = N, .M = M, .proj_method = method};
    cs_problem *p;
    cs_err err;
    if (cs_problem_kind_parse(kind, &sp.kind, &err) || cs_problem_new(&p, &sp, 1, stream, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    return p;
}

/* µs per projected-gradient call. */
static double bench_proj(size_t N, size_t M, int method, int simd)
{
    cs_problem *p = make("bin", N, M, 1, method);
    cs_affine *P = cs_problem_affine(p);
    cs_affine_set_simd(P, simd);
    double *g = malloc(N * sizeof *g), *d = malloc(N * sizeof *d);
    for (size_t i = 0; i < N; i++)
        g[i] = sin((double)i);
    long reps = (long)(4e7 / (double)(N * M + 1)) + 10;
    double t0 = now_s();
    for (long r = 0; r < reps; r++) {
        g[r % (long)N] += 1e-12;
        cs_affine_project_dir(P, g, d);
    }
    double us = 1e6 * (now_s() - t0) / (double)reps;
    free(g), free(d);
    cs_problem_free(p);
    return us;
}

/* Solve p with method and o; adds the stepping time and iterations. */
static void solve_timed(cs_problem *p, const char *method, const cs_solve_opts *o,
                        uint64_t stream, double *t, long *total)
{
    cs_solver *s;
    cs_err err;
    cs_method m = method_of(method);
    if (cs_solver_new(&s, p, &m, o, 1, stream, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    cs_solve_result res;
    cs_solver_solve(s, &res, &err);
    *t += res.seconds;
    *total += res.iters;
    cs_solver_free(s);
}

typedef struct it_res {
    double us_iter, gflops;
} it_res;

/* FISTA on ℓbin for a fixed number of iterations (stop=maxit). */
static it_res bench_iters(size_t N, size_t M, long iters, int trials, const char *method)
{
    double t = 0.0;
    long total = 0;
    size_t r = 0;
    for (int k = 0; k < trials; k++) {
        cs_problem *p = make("bin", N, M, 100 + (uint64_t)k, 0);
        r = cs_affine_rank(cs_problem_affine(p));
        cs_solve_opts o = {.maxit = iters, .restarts = 1, .stop = CS_STOP_MAXIT};
        solve_timed(p, method, &o, (uint64_t)k, &t, &total);
        cs_problem_free(p);
    }
    it_res out;
    out.us_iter = 1e6 * t / (double)total;
    /* projection 4·N·r, objective and vector updates ≈ 40·N */
    double flops = strcmp(method, "linf") ? 4.0 * (double)N * (double)r + 40.0 * (double)N
                                          : 4.0 * (double)N * (double)r + 20.0 * (double)N;
    out.gflops = flops * (double)total / t / 1e9;
    return out;
}

/* Seconds per trial in the paper's setting (oracle stop, 1e4 its, 10 starts). */
static double bench_trial(size_t N, size_t M, int trials, const char *method, double *succ)
{
    double t = 0.0;
    int ok = 0;
    for (int k = 0; k < trials; k++) {
        double t0 = now_s();
        cs_problem *p = make("bin", N, M, 200 + (uint64_t)k, 0);
        cs_solve_opts o = {0};
        cs_solver *s;
        cs_err err;
        cs_method m = method_of(method);
        cs_solver_new(&s, p, &m, &o, 1, (uint64_t)k, &err);
        cs_solve_result res;
        cs_solver_solve(s, &res, &err);
        ok += res.success;
        cs_solver_free(s);
        cs_problem_free(p);
        t += now_s() - t0;
    }
    *succ = (double)ok / trials;
    return t / trials;
}

/* µs per iteration of 10 failing starts (maxit 2000 each), restarts in
 * lockstep (their P₀ images batched) or one after another. */
static double bench_restarts(size_t M, int sequential)
{
    double t = 0.0;
    long total = 0;
    for (int k = 0; k < 6; k++) {
        cs_problem *p = make("bin", 100, M, 300 + (uint64_t)k, 0);
        cs_solve_opts o = {.maxit = 2000, .restarts = 10, .sequential_starts = sequential};
        solve_timed(p, "bin", &o, (uint64_t)k, &t, &total);
        cs_problem_free(p);
    }
    return 1e6 * t / (double)total;
}

static double bench_sweep(int threads, long trials, double *wall)
{
    const char *m[] = {"bin", "linf"};
    cs_method mv[2];
    methods_of(m, 2, mv);
    double g[] = {0.46, 0.6};
    cs_sweep_spec sp = {.kind = CS_PROB_BIN, .N = 100, .axis = CS_AXIS_GAMMA, .values = g,
                        .nvalues = 2, .methods = mv, .nmethods = 2, .trials = trials,
                        .threads = threads, .seed = 5};
    cs_sweep_result *r;
    cs_err err;
    if (cs_sweep_run(&sp, &r, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    *wall = r->wall_seconds;
    double tps = (double)(2 * trials) / r->wall_seconds;
    cs_sweep_result_free(r);
    return tps;
}

int main(void)
{
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    openblas_set_num_threads(1);
    double peak1 = dgemm_peak(1000, 3);
    openblas_set_num_threads(cores);
    double peakn = dgemm_peak(1500, 2);
    openblas_set_num_threads(1);
    printf("csreg solver benchmark (%d cores)\n", cores);
    printf("DGEMM peak: %.1f GFLOP/s on 1 core, %.1f GFLOP/s on %d cores\n\n", peak1, peakn,
           cores);

    printf("projection onto {Ax = b}, N = 100: µs per P0(g)\n");
    printf("%6s %8s %8s %8s %8s %8s   %s\n", "M", "chol", "range", "null", "range*", "null*",
           "auto");
    size_t Ms[] = {30, 50, 70, 90};
    for (size_t i = 0; i < 4; i++) {
        double c = bench_proj(100, Ms[i], CS_AFFINE_CHOL, 0);
        double r0 = bench_proj(100, Ms[i], CS_AFFINE_RANGE, 0);
        double n0 = bench_proj(100, Ms[i], CS_AFFINE_NULL, 0);
        double r1 = bench_proj(100, Ms[i], CS_AFFINE_RANGE, 1);
        double n1 = bench_proj(100, Ms[i], CS_AFFINE_NULL, 1);
        printf("%6zu %8.3f %8.3f %8.3f %8.3f %8.3f   %s\n", Ms[i], c, r0, n0, r1, n1,
               Ms[i] <= 50 ? "range" : "null");
    }
    printf("(* = built-in AVX2 kernel; others OpenBLAS; auto = orthonormal basis of rank "
           "min(M, N-M) with the built-in kernel when the CPU has AVX2)\n\n");

    printf("%-10s %7s %7s %10s %10s %10s %12s %9s\n", "solver", "N", "M", "us/iter",
           "GFLOP/s", "of peak", "s/trial", "success");
    for (size_t i = 0; i < 4; i++) {
        it_res b = bench_iters(100, Ms[i], 2000, 20, "bin");
        double succ, st = bench_trial(100, Ms[i], Ms[i] <= 30 ? 4 : 20, "bin", &succ);
        printf("%-10s %7d %7zu %10.3f %10.2f %9.1f%% %12.5f %9.2f\n", "fista-bin", 100, Ms[i],
               b.us_iter, b.gflops, 100.0 * b.gflops / peak1, st, succ);
    }
    for (size_t i = 0; i < 4; i++) {
        it_res b = bench_iters(100, Ms[i], 2000, 20, "linf");
        double succ, st = bench_trial(100, Ms[i], 20, "linf", &succ);
        printf("%-10s %7d %7zu %10.3f %10.2f %9.1f%% %12.5f %9.2f\n", "dr-linf", 100, Ms[i],
               b.us_iter, b.gflops, 100.0 * b.gflops / peak1, st, succ);
    }
    {
        it_res b = bench_iters(1000, 600, 300, 2, "bin");
        double succ, st = bench_trial(1000, 600, 2, "bin", &succ);
        printf("%-10s %7d %7d %10.3f %10.2f %9.1f%% %12.5f %9.2f\n", "fista-bin", 1000, 600,
               b.us_iter, b.gflops, 100.0 * b.gflops / peak1, st, succ);
        b = bench_iters(10000, 1000, 30, 1, "bin");
        printf("%-10s %7d %7d %10.3f %10.2f %9.1f%% %12s %9s\n", "fista-bin", 10000, 1000,
               b.us_iter, b.gflops, 100.0 * b.gflops / peak1, "-", "-");
    }
    printf("\nrestarts (10 starts of ℓbin at N = 100, 2000 iterations each): µs per iteration\n");
    printf("%6s %12s %12s %8s\n", "M", "sequential", "lockstep", "ratio");
    size_t Mr[] = {30, 40, 50};
    for (size_t i = 0; i < 3; i++) {
        double a = bench_restarts(Mr[i], 1), b = bench_restarts(Mr[i], 0);
        printf("%6zu %12.3f %12.3f %8.2f\n", Mr[i], a, b, a / b);
    }
    double w1, wn;
    double t1 = bench_sweep(1, 60, &w1);
    double tn = bench_sweep(cores, 60, &wn);
    printf("\nsweep bin,linf at gamma = 0.46, 0.6 (N = 100, oracle stop, 10 starts), 240 "
           "trial-methods:\n");
    printf("  1 thread: %.1f trials/s (%.2f s)   %d threads: %.1f trials/s (%.2f s), "
           "speedup %.2f\n",
           t1, w1, cores, tn, wn, tn / t1);
    return 0;
}
