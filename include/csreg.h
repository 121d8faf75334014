/* csreg.h — libcsreg: the Cauchy–Schwarz regularizers of "Cauchy–Schwarz
 * Regularizers" (Taner, Wang, Studer, ICLR 2025) as a C library.
 *
 *   #include <csreg.h>         cc prog.c $(pkg-config --cflags --libs csreg)
 *
 * Every function returning int gives 0 on success and a negative code on
 * failure; cs_last_error() then holds the message (per thread). Handles are
 * opaque; one handle is not for two threads at once. Arrays are row-major
 * and never copied unless a function says so. */
#ifndef CSREG_H
#define CSREG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CSREG_API __attribute__((visibility("default")))
#else
#define CSREG_API
#endif

/* ---- the library ---- */

/* "0.1.0" (the library's version; its commit follows in cs_version_commit). */
CSREG_API const char *cs_version(void);
CSREG_API const char *cs_version_commit(void);
/* The message of the last failed call on this thread ("" when none). */
CSREG_API const char *cs_last_error(void);
/* Worker threads of the calls that spread work (cs_reg_rows_*, sessions);
 * n <= 0: every core. Results do not depend on it. */
CSREG_API void cs_set_threads(int n);

/* ---- regularizers ---- */

typedef struct cs_reg cs_reg;

/* A built-in by name with its parameters as `csreg` takes them:
 * "bin", "ter", "holder p=3 q=1.5 base=ter", "fixed alpha=2". seed draws
 * C=random (eig, ns, mu). */
CSREG_API int cs_reg_open(cs_reg **out, const char *spec, uint64_t seed);
/* A regularizer defined from elementwise g(x) and h(x) (`reg define`):
 * g = "x", h = "x^3"; form NULL or "cs" (ℓ = ‖g‖²‖h‖² − ⟨g,h⟩²),
 * "holder" or "si" (p = q = 2, r = 1). */
CSREG_API int cs_reg_open_gh(cs_reg **out, const char *g, const char *h, const char *form);
CSREG_API void cs_reg_close(cs_reg *r);
/* Its canonical text: "holder p=3 q=1.5 r=1 base=ter". */
CSREG_API const char *cs_reg_text(const cs_reg *r);

/* ℓ(x) and ∇ℓ(x) of a vector of n entries (grad may be NULL), in double,
 * the engine's exact values (the same digits as `csreg eval`). */
CSREG_API int cs_reg_value_grad(cs_reg *r, const double *x, size_t n, double *value,
                                double *grad);
/* Each row of W (rows×cols): values[i] = ℓ(W_i), and grad (rows×cols, may
 * be NULL) = ∇ℓ of each row, in the precision of W. Rows spread over the
 * threads of cs_set_threads; float32 runs the training kernel of the
 * built-ins that have one (sums in double), other regularizers go row by
 * row through the library in double. */
CSREG_API int cs_reg_rows_f32(cs_reg *r, const float *W, size_t rows, size_t cols,
                              double *values, float *grad);
CSREG_API int cs_reg_rows_f64(cs_reg *r, const double *W, size_t rows, size_t cols,
                              double *values, double *grad);

/* What g and h make of a regularizer (`reg analyze`): its levels, its
 * scaling power and the spurious stationary points found on the plane
 * x1, x2 in [-2, 2]² (res × res grid; 0: 101). */
#define CS_REPORT_MAX 64
typedef struct cs_reg_report {
    int found;                   /* 1: levels found (elementwise g and h) */
    int scale_free;              /* the levels hold for any scale a */
    size_t nlevels;
    double levels[16];           /* ascending, up to the scale a */
    char target[160];            /* the target set in words */
    double power;                /* ℓ(αx) = α^power ℓ(x), measured; NaN when not homogeneous */
    size_t nstationary;          /* spurious stationary points kept (at most CS_REPORT_MAX) */
    double stationary[CS_REPORT_MAX][2];
    double stationary_value[CS_REPORT_MAX];
    int stationary_kind[CS_REPORT_MAX];   /* 0 minimum, 1 maximum, 2 saddle, 3 flat */
} cs_reg_report;
CSREG_API int cs_reg_analyze_report(cs_reg *r, size_t res, cs_reg_report *out);

/* ---- problems and the solver ---- */

typedef struct cs_problem cs_problem;

/* Draw a problem of the paper (`problem KIND N= M=`): kind "bin", "osb",
 * "ter", "2bit", "eig", "orth"; M = 0: the kind's default. */
CSREG_API int cs_problem_draw(cs_problem **out, const char *kind, size_t N, size_t M,
                              uint64_t seed);
/* A problem of the user's: A (M×N, row-major), b (M), x* (N, or NULL when
 * unknown: success is then judged by the residual and the distance to the
 * target set), C (eig: N×N, else NULL); copied. kind as cs_problem_draw. A
 * b out of A's range is refused with A's rank and the residual. */
CSREG_API int cs_problem_from_arrays(cs_problem **out, const char *kind, const double *A,
                                     size_t M, size_t N, const double *b, const double *xstar,
                                     const double *C);
/* The same from files (.csv .npy .mtx .mat, F.mat:VAR names a variable);
 * xstar and C may be NULL. Errors name the file. */
CSREG_API int cs_problem_load(cs_problem **out, const char *kind, const char *A, const char *b,
                              const char *xstar, const char *C);
/* Write A, b, x* (and C) as DIR/A.EXT ... with ext "npy", "csv" or "mtx";
 * an existing file is replaced. */
CSREG_API int cs_problem_save(const cs_problem *p, const char *dir, const char *ext);
CSREG_API void cs_problem_close(cs_problem *p);
/* Its sizes and arrays (owned by the problem): A is M×N, b has M entries,
 * x* N (NULL when unknown). */
CSREG_API void cs_problem_shape(const cs_problem *p, size_t *M, size_t *N);
CSREG_API const double *cs_problem_matrix(const cs_problem *p);
CSREG_API const double *cs_problem_rhs(const cs_problem *p);
CSREG_API const double *cs_problem_solution(const cs_problem *p);

typedef struct cs_solver cs_solver;

/* The outcome of a solve so far. */
typedef struct cs_result {
    int success;          /* x* found (relative error below the kind's threshold) */
    int done;             /* no more steps: success, or every start ended */
    long iterations;      /* over all starts */
    int starts;           /* starts begun */
    double rel_err;       /* ‖x − x*‖/‖x*‖ of the current iterate (NaN without x*) */
    double objective;     /* ℓ of the current iterate */
} cs_result;

/* A solver of p with a method (a regularizer's spec as cs_reg_open takes
 * it, or "linf", "l1"), the kind's defaults otherwise; seed draws the
 * starts. The problem must outlive the solver. */
CSREG_API int cs_solver_open(cs_solver **out, cs_problem *p, const char *method, uint64_t seed);
CSREG_API void cs_solver_close(cs_solver *s);
/* n iterations (fewer when it ends), then the result so far. */
CSREG_API int cs_solver_advance(cs_solver *s, long n, cs_result *res);
/* Until it ends. */
CSREG_API int cs_solver_finish(cs_solver *s, cs_result *res);
/* The current iterate (n entries, owned by the solver). */
CSREG_API const double *cs_solver_point(cs_solver *s, size_t *n);

/* ---- sessions: every csreg command, sweeps included ---- */

typedef struct cs_session cs_session;

/* A fresh interpreter (as `csreg --json --seed seed`). */
CSREG_API int cs_session_open(cs_session **out, uint64_t seed);
CSREG_API void cs_session_close(cs_session *s);
/* Run one command line ("sweep kind=bin methods=bin,linf N=20 ... out=F.csv");
 * *json (may be NULL) gets its result, one JSON object, to release with
 * cs_free. On failure the message is cs_last_error(). */
CSREG_API int cs_session_run(cs_session *s, const char *command, char **json);
CSREG_API void cs_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
