/* cs_sweep.h — Monte-Carlo success rates over a grid (`sweep`) and the
 * MAX-CUT runs (`maxcut`).
 *
 * Trials run in parallel (pthreads, blocking waits). Trial t at grid value
 * (N, M, K) draws its problem from the stream mix(N, M, K, t) of `seed`, and
 * each method draws its starts from mix(that, method text) (cs_sweep_stream.h):
 * results depend on neither the thread count nor which other methods run
 * alongside, so the CSV is byte-identical for any `threads` (the `seconds`
 * column, a measurement, is written only with `timing` on; otherwise it is
 * `nan`).
 *
 * A cancel flag (set from a SIGINT handler) is checked between trials and
 * every 256 iterations; the run then returns 0 with `partial`
 * set and the grid points whose trials all finished. The engine prints
 * nothing: `progress` (called from the calling thread) lets the UI draw,
 * and `on_trial` hands it each finished trial's outcomes as they come (a
 * live view of the success rates).
 * A `store` (cs_sweep_journal.h) keeps finished trials across runs: those
 * it preloads are not run again, so a resumed sweep gives the same rows. */
#ifndef CS_SWEEP_H
#define CS_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cs_cancel.h"
#include "cs_device.h"
#include "cs_error.h"
#include "cs_method.h"
#include "cs_pool.h"
#include "cs_problem.h"
#include "cs_solver.h"
#include "cs_sweep_stream.h"

typedef enum cs_axis { CS_AXIS_GAMMA = 0, CS_AXIS_M, CS_AXIS_K } cs_axis;

/* The outcomes of one finished trial: nmethods entries each. */
typedef struct cs_sweep_trial {
    size_t point;                  /* grid index */
    long trial;
    size_t nmethods;
    const unsigned char *success;
    const long *iters;
    const int *starts;
    const double *secs;
} cs_sweep_trial;

/* Where finished trials are kept across runs (a journal, resuming: see
 * cs_sweep_journal.h). Arrays are indexed by item = point × trials + trial,
 * outcomes by item × nmethods + method. */
typedef struct cs_sweep_store {
    void *user;
    /* Before the run: set finished[item] and the outcomes of the trials
     * already done; they are not run again. May be NULL. */
    int (*preload)(void *user, unsigned char *finished, unsigned char *success, long *iters,
                   int *starts, double *secs, cs_err *err);
    /* After each trial this run finishes (from worker threads, possibly at
     * the same time): <0 stops the sweep with that error. May be NULL. */
    int (*trial_done)(void *user, const cs_sweep_trial *t, cs_err *err);
} cs_sweep_store;

/* The grid point being worked on (0-based, of npoints), with each progress call. */
typedef void (*cs_sweep_point_fn)(void *user, size_t point, size_t npoints);

/* A finished trial, for a live view of the success rates (t's arrays are
 * valid during the call only). Called from the worker threads, possibly at
 * the same time (the callee locks or uses atomics), after each trial this
 * run finishes (after the store's trial_done took it); and first, from the
 * calling thread before any trial runs, once for each trial the store
 * preloaded (preloaded = 1), so that counts include them. Under MPI a rank
 * sees its own trials only. It only reads: no number the sweep returns or
 * writes depends on it. */
typedef void (*cs_sweep_trial_fn)(void *user, const cs_sweep_trial *t, int preloaded);


typedef struct cs_sweep_spec {
    cs_kind kind;                  /* bin osb ter 2bit eig orth */
    size_t N;
    cs_axis axis;
    const double *values;          /* grid: γ (M = round(γN)), M, or K */
    size_t nvalues;
    size_t M;                      /* fixed M for a K sweep (or use gamma) */
    double gamma;                  /* fixed γ for a K sweep when M = 0 */
    size_t K;                      /* fixed K (sparse osb/ter) for γ/M sweeps; 0: dense */
    double noise;                  /* σ of the noise in b (cs_problem_spec); the fit is
                                      solve.fit */
    const cs_method *methods;      /* parsed (cs_method_parse); rows and streams take
                                      their texts */
    size_t nmethods;
    long trials;
    cs_solve_opts solve;           /* maxit, stop, tol, restarts, ... (cancel ignored) */
    int threads;                   /* 0: all cores */
    uint64_t seed;
    int timing;                    /* 1: write measured seconds (not reproducible) */
    const cs_cancel *cancel;
    cs_progress_fn progress;       /* trials done of total, from the calling thread (only
                                      the trials this run executes: not those preloaded) */
    void *progress_user;
    cs_sweep_point_fn point;       /* called just before progress (same user); may be NULL */
    cs_sweep_trial_fn on_trial;    /* each finished trial (see above); may be NULL */
    void *trial_user;
    const cs_sweep_store *store;   /* NULL: none */
    cs_device device;              /* CPU (the default): threads; CUDA: the GPU, one trial
                                      per thread block (kinds bin, osb, ter with methods
                                      bin, osb, ter, linf, l1; 2bit with equ; see
                                      sweep_gpu.h), the same rows up to borderline trials */
} cs_sweep_spec;

typedef struct cs_sweep_row {
    char method[128];
    char kind[16];
    size_t N, M, K;
    double gamma;
    long trials;
    double success;       /* fraction of trials with ‖x̂ − x*‖/‖x*‖ ≤ 1e-2 */
    double stderr_;       /* sample std of the 0/1 outcomes / √trials */
    double mean_iters;    /* iterations over all starts, per trial */
    double mean_restarts; /* starts used, per trial */
    double seconds;       /* mean solver seconds per trial (NaN without timing) */
    char stop[16];
    double vary;          /* the value of the result's vary key (unused without one) */
} cs_sweep_row;

typedef struct cs_sweep_result {
    cs_sweep_row *rows;   /* method-major: all grid points of method 1, then 2, ... */
    size_t nrows;
    size_t points_done, points_total;
    int partial;          /* interrupted: rows of the grid points finished before the
                             first unfinished one (grid order) */
    int threads;
    double wall_seconds;
    long trials_done, trials_total;
    char vary[24];        /* a key varied over several runs (`sweep vary=`): the CSV's
                             first column, each row's value in row.vary; "" none */
    char stopped[256];    /* partial because the store failed (its error: "cannot write
                             the journal ..."), "" otherwise */
} cs_sweep_result;

/* The bytes a run of spec will hold (outcomes of every trial, the workers'
 * problems), estimated before anything is allocated: cs_sweep_run refuses
 * one over CS_MEMORY_BUDGET with this estimate (key "trials"). */
double cs_sweep_memory(const cs_sweep_spec *sp);
/* Whether device=cuda takes spec (its kind, methods, stop rule, sizes; no
 * noise, fit=affine, one process): CS_OK, or CS_EUNSUPPORTED saying what
 * the GPU runs. Looks at no GPU: the run fails later without one. */
int cs_sweep_gpu_takes(const cs_sweep_spec *spec, cs_err *err);
int cs_sweep_run(const cs_sweep_spec *spec, cs_sweep_result **out, cs_err *err);
void cs_sweep_result_free(cs_sweep_result *r);

/* CSV header: the stable column list. */
#define CS_SWEEP_CSV_HEADER                                                                    \
    "method,kind,N,M,gamma,K,trials,success,stderr,mean_iters,mean_restarts,seconds,stop"

/* Write the CSV atomically (temporary file + rename): the header (with
 * r->vary set, that key's column first), the `preamble` (comment lines
 * saying how it was made, each "# ...\n"; NULL: none; after the header, so
 * that numpy's genfromtxt(names=True) finds it), the rows. A partial result
 * ends with a comment line `# partial: ...`. */
int cs_sweep_write_csv(const cs_sweep_result *r, const char *path, const char *preamble,
                       cs_err *err);
/* The same text into a stream. */
int cs_sweep_print_csv(const cs_sweep_result *r, const char *preamble, FILE *f);

/* ---- MAX-CUT ---- */

typedef struct cs_maxcut_spec {
    const cs_graph *graph;
    long trials;                   /* 10 */
    cs_solve_opts solve;           /* lambda (default 1e-7, 1 for toy graphs), maxit 1e4 */
    const cs_method *method;       /* NULL: bin */
    int threads;
    uint64_t seed;
    const cs_cancel *cancel;
    cs_progress_fn progress;
    void *progress_user;
} cs_maxcut_spec;

typedef struct cs_maxcut_result {
    long trials;          /* finished trials */
    int partial;
    double mean_cut, std_cut;          /* ℓ_MC(x̂), the paper's number; std with n−1 */
    double best_cut;                   /* max over trials */
    double mean_rounded, std_rounded;  /* ℓ_MC(sign(x̂)) */
    double best_rounded;
    double mean_start, std_start;      /* ℓ_MC at the starts */
    double known_best;                 /* from the graph file (NaN when unknown) */
    long successes;                    /* trials reaching the known best (binary) */
    double mean_iters;                 /* iterations run per trial (to the stop) */
    double mean_best_iter, min_best_iter, max_best_iter;  /* the returned iterate's
                                          iteration (the best objective), per trial */
    long ends[CS_END_DIVERGED + 1];    /* trials by how they stopped (cs_end) */
    double lambda;
    double wall_seconds;
    double *cuts;                      /* per trial, `trials` entries */
} cs_maxcut_result;

int cs_maxcut_run(const cs_maxcut_spec *spec, cs_maxcut_result *res, cs_err *err);
void cs_maxcut_result_clear(cs_maxcut_result *res);

#endif
