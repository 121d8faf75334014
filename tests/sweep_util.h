/* sweep_util.h — a sweep's outcomes trial by trial (through a store that
 * records what each finished trial gave), and their comparison between two
 * devices: what test_cuda_emu.c (the emulated GPU) and test_sweep_gpu.c
 * (a real one) check against the CPU; and a device's single trials against
 * the CPU's solver (the emulated kernels' tests). */
#ifndef CS_SWEEP_UTIL_H
#define CS_SWEEP_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "cs_problem.h"
#include "cs_solver.h"
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

/* The streams of trials 0..n−1 at a grid point (N, M, K), as the sweep
 * draws them: each trial's problem stream ps[t] and method m's stream
 * ms[t] (a device job's problem_stream, method_stream). */
void sweep_trial_streams(size_t N, size_t M, size_t K, long n, const cs_method *m,
                         uint64_t *ps, uint64_t *ms);

/* A sweep run on the CPU and on CUDA (sweep_trials_run), compared:
 * the shares of trials with the same success and iterations
 * (sweep_trials_compare, verbose), whether the two CSVs are the same
 * bytes, the CSV's rows and the CPU's successes of its solves. */
typedef struct sweep_vs {
    double same_success, same_iters;
    int csv_equal;
    size_t rows, won, solves;
} sweep_vs;
/* 0, or <0 when a run or a CSV failed (err) */
int sweep_cpu_vs_cuda(const cs_sweep_spec *sp, sweep_vs *v, cs_err *err);

/* The CSV of a result as the sweep writes it (cs_sweep_print_csv), to
 * free; NULL when it cannot be written or read back. */
char *sweep_csv_of(const cs_sweep_result *r);

/* A device's trials checked one by one against the CPU's solver on the
 * same problems (test_cuda_emu.c, test_cuda_emu_matrix.c): the grid
 * point's draw, the solver's seed and options, the methods. */
typedef struct sweep_cpu_ref {
    cs_problem_spec ps;         /* kind, N, M, K */
    uint64_t seed;              /* the problem's and the solver's */
    cs_solve_opts so;
    const cs_method *mv;
    size_t nm;
    int name_k;                 /* a differing trial's line names K too */
} sweep_cpu_ref;

/* per method: trials equal (the same success and starts), of them with
 * the same iterations, all, the CPU's successes, its restarted trials, and
 * those where a start of the CPU's ended before maxit (so.maxit given: its
 * rule fired, or it diverged) */
typedef struct sweep_tally {
    int equal, same_iters, total, won, restarted, early;
} sweep_tally;

/* Trial t (cs_sweep_trial_stream, each method's stream) solved on the CPU
 * with every method m, against the device's success[m], iters[m],
 * starts[m], counted into k[m]; a trial not equal prints "  differs:
 * METHOD M=.. [K=..] trial T: gpu S/ST starts/IT iters, cpu S/ST/IT".
 * 0, or the CPU's error (err). */
int sweep_trial_vs_cpu(const sweep_cpu_ref *ref, long t, const unsigned char *success,
                       const long *iters, const int *starts, sweep_tally *k, cs_err *err);

#endif
