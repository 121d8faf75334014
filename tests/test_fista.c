/* test_fista.c — the FISTA stepper, Douglas–Rachford and the solver layer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_dr.h"
#include "cs_fista.h"
#include "cs_problem.h"
#include "cs_proj.h"
#include "cs_reg.h"
#include "method_util.h"
#include "reg_util.h"
#include "cs_solver.h"

static cs_problem *make(const char *kind, size_t N, size_t M, size_t K, uint64_t stream)
{
    cs_problem_spec sp = {.N = N, .M = M, .K = K};
    assert_int_equal(cs_problem_kind_parse(kind, &sp.kind, NULL), 0);
    cs_problem *p = NULL;
    cs_err err;
    if (cs_problem_new(&p, &sp, 2024, stream, &err))
        fail_msg("problem %s: %s", kind, err.msg);
    return p;
}

static cs_solver *solver(cs_problem *p, const char *method, const cs_solve_opts *o,
                         uint64_t stream)
{
    cs_solver *s = NULL;
    cs_err err;
    cs_method m;
    if (method && cs_method_parse(&m, method, &err))
        fail_msg("method %s: %s", method, err.msg);
    if (cs_solver_new(&s, p, method ? &m : NULL, o, 2024, stream, &err))
        fail_msg("solver %s: %s", method ? method : "(default)", err.msg);
    return s;
}

/* ---- a quadratic with a known minimizer: f = ½Σ a_i (x_i − c_i)² ---- */

typedef struct quad {
    size_t n;
    double a[8], c[8];
} quad;

static int quad_fg(void *ctx, const double *x, double *f, double *g, cs_err *err)
{
    (void)err;
    quad *q = ctx;
    double s = 0.0;
    for (size_t i = 0; i < q->n; i++) {
        double d = x[i] - q->c[i];
        s += 0.5 * q->a[i] * d * d;
        if (g)
            g[i] = q->a[i] * d;
    }
    *f = s;
    return CS_OK;
}

static void box_prox(void *ctx, const double *z, double *x, double t)
{
    (void)t;
    quad *q = ctx;
    for (size_t i = 0; i < q->n; i++)
        x[i] = fmin(fmax(z[i], -1.0), 1.0);
}

static void test_fista_quadratic_modes(void **state)
{
    (void)state;
    quad q = {.n = 6, .a = {1, 2, 5, 10, 50, 100}, .c = {0.5, -2, 3, 0.1, -0.4, 2}};
    for (int mode = 0; mode < 3; mode++) {
        cs_fista_opts o;
        cs_fista_opts_default(&o);
        o.accelerate = mode == 0;
        o.adaptive = mode == 1;
        o.stop = CS_STOP_HYBRID;
        o.tol = 1e-10;
        o.maxit = 20000;
        cs_fista_fns fns = {.ctx = &q, .fg = quad_fg, .prox = box_prox};
        cs_fista *s;
        cs_err err;
        assert_int_equal(cs_fista_new(&s, 6, &fns, &o, &err), 0);
        cs_rng rng;
        cs_rng_init(&rng, 1, 2);
        double x0[6] = {0, 0, 0, 0, 0, 0};
        assert_int_equal(cs_fista_start(s, x0, 1, &rng, &err), 0);
        assert_true(cs_fista_L(s) > 0);
        int rc;
        while ((rc = cs_fista_step(s, &err)) == 0)
            ;
        assert_int_equal(rc, 1);
        assert_int_equal(cs_fista_end(s), CS_END_TOL);
        const double *x = cs_fista_best(s);
        for (size_t i = 0; i < 6; i++) {
            double want = fmin(fmax(q.c[i], -1.0), 1.0);
            if (fabs(x[i] - want) > 1e-6)
                fail_msg("mode %d: x[%zu] = %g, want %g", mode, i, x[i], want);
        }
        /* stepping an ended run is a no-op */
        assert_int_equal(cs_fista_step(s, &err), 1);
        cs_fista_free(s);
    }
}

static void test_fista_errors(void **state)
{
    (void)state;
    quad q = {.n = 2, .a = {1, 1}};
    cs_fista_fns fns = {.ctx = &q, .fg = quad_fg};
    cs_fista *s;
    cs_err err;
    cs_fista_opts o;
    cs_fista_opts_default(&o);
    o.maxit = 0;
    assert_int_equal(cs_fista_new(&s, 2, &fns, &o, &err), CS_EINVAL);
    cs_fista_opts_default(&o);
    o.shrink = 1.5;
    assert_int_equal(cs_fista_new(&s, 2, &fns, &o, &err), CS_EINVAL);
    assert_int_equal(cs_fista_new(&s, 2, &fns, NULL, &err), 0);
    assert_int_equal(cs_fista_step(s, &err), CS_ESTATE);
    double x0[2] = {NAN, 0};
    cs_rng rng;
    cs_rng_init(&rng, 1, 1);
    assert_int_equal(cs_fista_start(s, x0, 1, &rng, &err), CS_ENONFINITE);
    cs_fista_free(s);
    assert_int_equal(cs_stop_parse("hybrid", &o.stop, &err), 0);
    assert_int_equal(o.stop, CS_STOP_HYBRID);
    assert_int_equal(cs_stop_parse("bogus", &o.stop, &err), CS_EINVAL);
}

/* The solver's fused kernels (cs_reg_fast.h) agree with the regularizer
 * library along 50 steps (the method texts as the solver takes them). */
static void test_fast_kernels_match_library(void **state)
{
    (void)state;
    const char *names[][2] = {
        {"bin", "bin"},     {"osb", "osb"},      {"ter", "ter"},
        {"bin", "l2l1"},    {"bin", "l2l1h"},    {"bin", "bbin"},
        {"bin", "binexp"},  {"bin", "fixed"},    {"bin", "holder"},
        {"bin", "si"},      {"bin", "holder:r=2"}, {"osb", "holder:base=osb"},
        {"ter", "si:base=ter:eps=0.01"},
    };
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        const char *kind = names[k][0], *method = names[k][1];
        cs_problem *p = make(kind, 60, 30, 0, 1);
        cs_solve_opts o = {.maxit = 50, .restarts = 1, .stop = CS_STOP_MAXIT, .trace = 1};
        cs_solver *fast = solver(p, method, &o, 3);
        o.generic_reg = 1;
        cs_solver *lib = solver(p, method, &o, 3);
        cs_solve_result rf, rl;
        cs_err err;
        assert_int_equal(cs_solver_solve(fast, &rf, &err), 0);
        assert_int_equal(cs_solver_solve(lib, &rl, &err), 0);
        size_t nf, nl;
        const cs_trace_rec *tf = cs_solver_trace(fast, &nf), *tl = cs_solver_trace(lib, &nl);
        assert_int_equal(nf, nl);
        for (size_t i = 0; i < nf; i++)
            if (fabs(tf[i].objective - tl[i].objective) >
                1e-9 * fmax(fabs(tl[i].objective), 1e-300))
                fail_msg("%s step %zu: %.17g vs %.17g", method, i, tf[i].objective,
                         tl[i].objective);
        cs_solver_free(fast);
        cs_solver_free(lib);
        cs_problem_free(p);
    }
}

/* A defined regularizer solves exactly as the library path of the
 * built-in it spells out: mybin (g = x², h = 1) evaluates to bin's bits,
 * so starts, iterations, objective and solution agree bit for bit. */
static void test_defined_solves_as_library(void **state)
{
    (void)state;
    define_ok("mybin", "x^2", "1");
    cs_err err;
    for (uint64_t seed = 0; seed < 4; seed++) {
        cs_problem *p = make("bin", 60, 30 + seed, 0, 40 + seed);
        cs_solve_opts o = {.restarts = 4, .maxit = 2000, .generic_reg = 1};
        cs_solver *a = solver(p, "bin", &o, seed), *b = solver(p, "mybin", &o, seed);
        cs_solve_result ra, rb;
        assert_int_equal(cs_solver_solve(a, &ra, &err), 0);
        assert_int_equal(cs_solver_solve(b, &rb, &err), 0);
        assert_int_equal(ra.starts, rb.starts);
        assert_int_equal(ra.iters, rb.iters);
        assert_int_equal(ra.success, rb.success);
        assert_memory_equal(&ra.objective, &rb.objective, sizeof ra.objective);
        size_t n;
        const double *xa = cs_solver_x(a, &n);
        assert_memory_equal(xa, cs_solver_x(b, NULL), n * sizeof *xa);
        cs_solver_free(a);
        cs_solver_free(b);
        cs_problem_free(p);
    }
}

static void test_bin_recovery(void **state)
{
    (void)state;
    int ok = 0;
    for (uint64_t seed = 0; seed < 6; seed++) {
        cs_problem *p = make("bin", 100, 60, 0, 100 + seed);
        cs_solve_opts o = {0};
        cs_solver *s = solver(p, "bin", &o, seed);
        cs_solve_result r;
        cs_err err;
        assert_int_equal(cs_solver_solve(s, &r, &err), 0);
        assert_true(r.done);
        ok += r.success;
        if (r.success) {
            assert_true(r.rel_err <= 1e-2);
            size_t n;
            const double *x = cs_solver_x(s, &n);
            assert_int_equal(n, 100);
            assert_true(cs_affine_residual(cs_problem_affine(p), x) < 1e-9);
            assert_true(fabs(cs_problem_rel_err(p, x) - r.rel_err) < 1e-15);
        }
        cs_solver_free(s);
        cs_problem_free(p);
    }
    assert_true(ok >= 5);
}

static void test_trace_consistency(void **state)
{
    (void)state;
    cs_problem *p = make("bin", 100, 45, 0, 7);
    cs_solve_opts o = {.trace = 1, .restarts = 2, .maxit = 400};
    cs_solver *s = solver(p, "bin", &o, 1);
    cs_solve_result r;
    cs_err err;
    assert_int_equal(cs_solver_solve(s, &r, &err), 0);
    size_t n;
    const cs_trace_rec *t = cs_solver_trace(s, &n);
    assert_int_equal((long)n, r.iters);
    long expect = 1;
    int start = 1;
    double fmax0 = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (t[i].start != start) {
            assert_int_equal(t[i].start, start + 1);
            assert_int_equal(t[i - 1].iter, 400); /* the failed start ran out */
            start = t[i].start;
            expect = 1;
            fmax0 = -INFINITY;
        }
        assert_int_equal(t[i].iter, expect++);
        assert_true(t[i].tau > 0 && isfinite(t[i].tau));
        assert_true(t[i].residual >= 0 && t[i].norm_residual >= 0);
        assert_true(t[i].backtracks >= 0 && t[i].backtracks <= 20);
        assert_true(isfinite(t[i].objective) && t[i].objective >= 0);
        assert_true(t[i].rel_err >= 0);
        /* non-monotone backtracking keeps the objective bounded by the early values */
        if (t[i].iter <= 10)
            fmax0 = fmax(fmax0, t[i].objective);
        else
            assert_true(t[i].objective <= 10.0 * fmax0 + 1e-9);
    }
    assert_int_equal(start, r.starts);
    /* the oracle stop ends on an iterate with rel_err < 1e-2 */
    if (r.success && r.end == CS_END_ORACLE)
        assert_true(t[n - 1].rel_err < 1e-2);
    cs_solver_free(s);
    cs_problem_free(p);
}

/* solve = loop of steps; reset reproduces the run. */
static void test_step_equals_solve(void **state)
{
    (void)state;
    cs_problem *p = make("bin", 80, 40, 0, 9);
    cs_solve_opts o = {.restarts = 3, .maxit = 300};
    cs_solver *a = solver(p, "bin", &o, 5), *b = solver(p, "bin", &o, 5);
    cs_solve_result ra, rb;
    cs_err err;
    assert_int_equal(cs_solver_solve(a, &ra, &err), 0);
    long k, total = 0;
    while (!cs_solver_done(b)) {
        assert_int_equal(cs_solver_step(b, 7, &k, &err), 0);
        total += k;
    }
    cs_solver_result(b, &rb);
    assert_int_equal(ra.iters, rb.iters);
    assert_int_equal(total, rb.iters);
    assert_int_equal(ra.starts, rb.starts);
    assert_int_equal(ra.success, rb.success);
    size_t n;
    const double *xa = cs_solver_x(a, &n);
    double *copy = malloc(n * sizeof *copy);
    memcpy(copy, xa, n * sizeof *copy);
    assert_memory_equal(copy, cs_solver_x(b, NULL), n * sizeof *copy);
    /* reset + solve gives the same again */
    assert_int_equal(cs_solver_reset(a, &err), 0);
    assert_int_equal(cs_solver_done(a), 0);
    assert_int_equal(cs_solver_solve(a, &ra, &err), 0);
    assert_int_equal(ra.iters, rb.iters);
    assert_memory_equal(copy, cs_solver_x(a, NULL), n * sizeof *copy);
    free(copy);
    cs_solver_free(a);
    cs_solver_free(b);
    cs_problem_free(p);
}

/* Restarts in lockstep give, bit for bit, what one start after another
 * gives: starts used, iterations, end, objective and solution. */
static void test_lockstep_equals_sequential(void **state)
{
    (void)state;
    const char *methods[] = {"bin", "beta:beta=learn", "holder", "bin"};
    size_t Ms[] = {45, 46, 44, 30};
    int seen_late = 0;
    for (int t = 0; t < 4; t++)
        for (uint64_t seed = 0; seed < 4; seed++) {
            cs_problem *p = make("bin", 100, Ms[t], 0, 300 + seed);
            cs_solve_opts lo = {.restarts = 10, .maxit = 1500};
            cs_solve_opts so = lo;
            so.sequential_starts = 1;
            cs_solver *a = solver(p, methods[t], &lo, seed), *b = solver(p, methods[t], &so, seed);
            cs_solve_result ra, rb;
            cs_err err;
            assert_int_equal(cs_solver_solve(a, &ra, &err), 0);
            assert_int_equal(cs_solver_solve(b, &rb, &err), 0);
            assert_int_equal(ra.starts, rb.starts);
            assert_int_equal(ra.iters, rb.iters);
            assert_int_equal(ra.last_iters, rb.last_iters);
            assert_int_equal(ra.success, rb.success);
            assert_int_equal(ra.end, rb.end);
            assert_memory_equal(&ra.objective, &rb.objective, sizeof ra.objective);
            assert_memory_equal(&ra.rel_err, &rb.rel_err, sizeof ra.rel_err);
            size_t n;
            const double *xa = cs_solver_x(a, &n);
            assert_memory_equal(xa, cs_solver_x(b, NULL), n * sizeof *xa);
            seen_late += ra.success && ra.starts > 2;
            cs_solver_free(a);
            cs_solver_free(b);
            cs_problem_free(p);
        }
    assert_true(seen_late >= 1); /* some run succeeded on a lockstep start */
}

/* The same for every method of the solver (issue 23): each CS
 * regularizer, the baselines with FISTA, two defined ones, and the eig
 * kind's; lockstep covers every FISTA method on the affine problems (DR
 * methods run one start). */
static void test_lockstep_every_method(void **state)
{
    (void)state;
    define_ok("lsdef", "exp(-x^2)", "1 + x^2/8");   /* the interpreter */
    define_ok("lspoly", "x", "x^3");                 /* Horner's rule */
    int lockstep = 0;
    static const struct {
        const char *kind, *method;
    } cases[] = {
        {"bin", "bin"},      {"bin", "osb"},         {"bin", "ter"},     {"bin", "bbin"},
        {"bin", "binexp"},   {"bin", "holder"},      {"bin", "si"},      {"bin", "l2l1"},
        {"bin", "l2l1h"},    {"bin", "fixed"},       {"bin", "beta"},    {"bin", "lsdef"},
        {"bin", "beta:beta=learn"}, {"bin", "holder:p=3:q=1.5"}, {"bin", "holder:r=2"},
        {"bin", "fixed:alpha=0.5"}, {"ter", "si:base=ter"}, {"ter", "lspoly"}, {"osb", "osb"},      {"ter", "ter"},         {"eig", "eig"},     {"eig", "mu"},
        {"eig", "ns"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int eig = !strcmp(cases[c].kind, "eig");
        cs_problem *p = make(cases[c].kind, eig ? 20 : 40, eig ? 10 : 18, 0, 50 + c);
        cs_solve_opts lo = {.restarts = 6, .maxit = 400};
        cs_solve_opts so = lo;
        so.sequential_starts = 1;
        cs_solver *a = solver(p, cases[c].method, &lo, c), *b = solver(p, cases[c].method, &so, c);
        cs_solve_result ra, rb;
        cs_err err;
        assert_int_equal(cs_solver_solve(a, &ra, &err), 0);
        assert_int_equal(cs_solver_solve(b, &rb, &err), 0);
        if (ra.starts != rb.starts || ra.iters != rb.iters ||
            memcmp(&ra.objective, &rb.objective, sizeof ra.objective))
            fail_msg("%s on %s: lockstep %d starts %ld iterations, sequential %d, %ld",
                     cases[c].method, cases[c].kind, ra.starts, ra.iters, rb.starts, rb.iters);
        assert_int_equal(ra.end, rb.end);
        assert_int_equal(ra.success, rb.success);
        size_t n;
        const double *xa = cs_solver_x(a, &n);
        assert_memory_equal(xa, cs_solver_x(b, NULL), n * sizeof *xa);
        lockstep += ra.starts >= 3;   /* starts 2.. ran in lockstep */
        cs_solver_free(a);
        cs_solver_free(b);
        cs_problem_free(p);
    }
    print_message("%d of %zu cases reached lockstep starts\n", lockstep,
                  sizeof cases / sizeof cases[0]);
    assert_true(lockstep >= 15);
}

static void test_dr_linf_l1(void **state)
{
    (void)state;
    int ok = 0;
    for (uint64_t t = 0; t < 4; t++) {
        cs_problem *p = make("bin", 100, 75, 0, 200 + t);
        cs_solve_opts o = {.trace = 1};
        cs_solver *s = solver(p, "linf", &o, t);
        assert_int_equal(cs_solver_algo(s), CS_ALGO_DR);
        cs_solve_result r;
        cs_err err;
        assert_int_equal(cs_solver_solve(s, &r, &err), 0);
        ok += r.success;
        assert_int_equal(r.starts, 1);
        size_t n;
        const cs_trace_rec *tr = cs_solver_trace(s, &n);
        assert_int_equal((long)n, r.iters);
        assert_true(tr[n - 1].tau == 10.0);
        if (r.success)
            assert_true(fabs(tr[n - 1].objective - 1.0) < 0.11); /* ‖x*‖∞ = 1, ‖x*‖ = 10 */
        assert_true(cs_affine_residual(cs_problem_affine(p), cs_solver_x(s, NULL)) < 1e-9);
        cs_solver_free(s);
        cs_problem_free(p);
    }
    assert_true(ok >= 3);
    /* With a tolerance rule and no trace the iterates' errors are not
     * measured; the run is the same to the bit. */
    for (int l1 = 0; l1 <= 1; l1++) {
        cs_problem *p = make(l1 ? "ter" : "bin", 100, 40, 0, 250);
        cs_solve_opts a = {.stop = CS_STOP_HYBRID, .maxit = 40000, .trace = 1},
                      b = {.stop = CS_STOP_HYBRID, .maxit = 40000};
        cs_solver *sa = solver(p, l1 ? "l1" : "linf", &a, 3), *sb = solver(p, l1 ? "l1" : "linf", &b, 3);
        cs_solve_result ra, rb;
        cs_err err;
        assert_int_equal(cs_solver_solve(sa, &ra, &err), 0);
        assert_int_equal(cs_solver_solve(sb, &rb, &err), 0);
        assert_int_equal(ra.iters, rb.iters);
        assert_int_equal(ra.end, CS_END_TOL);
        assert_int_equal(rb.end, CS_END_TOL);
        assert_memory_equal(&ra.rel_err, &rb.rel_err, sizeof ra.rel_err);
        size_t n;
        const double *xa = cs_solver_x(sa, &n);
        assert_memory_equal(xa, cs_solver_x(sb, NULL), n * sizeof *xa);
        cs_solver_free(sa);
        cs_solver_free(sb);
        cs_problem_free(p);
    }
    /* ℓ1 recovers sparse one-sided vectors from many measurements */
    ok = 0;
    for (uint64_t t = 0; t < 4; t++) {
        cs_problem *p = make("osb", 100, 80, 15, 300 + t);
        cs_solve_opts o = {0};
        cs_solver *s = solver(p, "l1", &o, t);
        cs_solve_result r;
        cs_err err;
        assert_int_equal(cs_solver_solve(s, &r, &err), 0);
        ok += r.success;
        cs_solver_free(s);
        cs_problem_free(p);
    }
    assert_true(ok >= 3);
}

/* DR's fused steps (warm ℓ∞ threshold, prox inside the z update) are, bit
 * for bit, the textbook w = 2x − z; y = prox(w); z += y − x; x = P(z) with
 * the public prox functions, for both norms and 300 steps. */
static void affine_project(void *ctx, const double *z, double *x) { cs_affine_project(ctx, z, x); }

static void test_dr_equals_textbook(void **state)
{
    (void)state;
    enum { N = 37, M = 15 };
    cs_rng r;
    cs_rng_init(&r, 11, 12);
    double A[M * N], b[M], x0[N], x[N], z[N], w[N];
    cs_rng_normal_fill(&r, A, M * N);
    cs_rng_normal_fill(&r, b, M);
    cs_rng_normal_fill(&r, x0, N);
    cs_affine *P;
    cs_err err;
    assert_int_equal(cs_affine_new(&P, A, M, N, b, 1, CS_AFFINE_AUTO, &err), 0);
    for (int norm = CS_DR_LINF; norm <= CS_DR_L1; norm++) {
        cs_dr_opts o;
        cs_dr_opts_default(&o, norm);
        o.stop = CS_STOP_MAXIT;
        o.maxit = 300;
        o.t = norm == CS_DR_L1 ? 0.05 : 3.0; /* the ℓ1 prox keeps some entries nonzero */
        cs_dr_fns fns = {.ctx = P, .project = affine_project};
        cs_dr *s;
        assert_int_equal(cs_dr_new(&s, N, &fns, &o, &err), 0);
        assert_int_equal(cs_dr_start(s, x0, &err), 0);
        memcpy(x, x0, sizeof x);
        memset(z, 0, sizeof z);
        int clipped = 0, nonzero = 0;
        for (int k = 0; k < 300; k++) {
            int st = cs_dr_step(s, &err);
            assert_int_equal(st, k == 299);
            for (size_t i = 0; i < N; i++)
                w[i] = 2.0 * x[i] - z[i];
            if (norm == CS_DR_L1)
                cs_prox_l1(w, N, o.t, w);
            else
                cs_prox_linf(w, N, o.t, w);
            double d2 = 0.0;
            for (size_t i = 0; i < N; i++) {
                clipped += norm == CS_DR_LINF && fabs(w[i]) == fabs(w[0]);
                nonzero += norm == CS_DR_L1 && w[i] != 0.0;
                z[i] += w[i] - x[i];
                d2 += (w[i] - x[i]) * (w[i] - x[i]);
            }
            cs_affine_project(P, z, x);
            assert_memory_equal(x, cs_dr_x(s), sizeof x);
            assert_true(fabs(cs_dr_last(s)->residual - sqrt(d2)) <= 1e-12 * (1.0 + sqrt(d2)));
        }
        assert_true(norm == CS_DR_L1 ? nonzero > 300 : clipped > 600); /* the prox acted */
        cs_dr_free(s);
    }
    cs_affine_free(P);
}

/* DR driven directly: stop rules and errors. */
static void proj_unit(void *ctx, const double *z, double *x)
{
    (void)ctx;
    /* the hyperplane x1 + x2 = 2 in R² */
    double m = (z[0] + z[1] - 2.0) / 2.0;
    x[0] = z[0] - m;
    x[1] = z[1] - m;
}

static void test_dr_direct(void **state)
{
    (void)state;
    cs_dr_opts o;
    cs_dr_opts_default(&o, CS_DR_LINF);
    assert_true(o.t == 10.0);
    o.stop = CS_STOP_RESIDUAL;
    o.tol = 1e-12;
    o.t = 1.0;
    cs_dr_fns fns = {.project = proj_unit};
    cs_dr *s;
    cs_err err;
    assert_int_equal(cs_dr_new(&s, 2, &fns, &o, &err), 0);
    double x0[2] = {5, -3};
    assert_int_equal(cs_dr_start(s, x0, &err), 0);
    while (cs_dr_step(s, &err) == 0)
        ;
    /* min ‖x‖∞ on x1 + x2 = 2 is x = (1, 1) */
    const double *x = cs_dr_x(s);
    assert_true(fabs(x[0] - 1.0) < 1e-6 && fabs(x[1] - 1.0) < 1e-6);
    assert_int_equal(cs_dr_end(s), CS_END_TOL);
    /* the residual rule is absolute: ‖z⁺ − z‖ < tol at the end */
    assert_true(cs_dr_last(s)->residual < 1e-12);
    cs_dr_free(s);
    /* hybrid (FASTA's): ratio to the largest residual or normalized residual */
    for (int rule = CS_STOP_HYBRID; rule <= CS_STOP_NORMALIZED; rule++) {
        o.stop = rule;
        o.tol = 1e-6;
        assert_int_equal(cs_dr_new(&s, 2, &fns, &o, &err), 0);
        assert_int_equal(cs_dr_start(s, x0, &err), 0);
        long its = 0;
        double maxr = 0.0;
        int st;
        do {
            st = cs_dr_step(s, &err);
            maxr = fmax(maxr, cs_dr_last(s)->residual);
            its++;
        } while (st == 0);
        assert_int_equal(cs_dr_end(s), CS_END_TOL);
        assert_true(its < 1000);
        x = cs_dr_x(s);
        assert_true(fabs(x[0] - 1.0) < 1e-4 && fabs(x[1] - 1.0) < 1e-4);
        const cs_trace_rec *lr = cs_dr_last(s);
        if (rule == CS_STOP_RESIDUAL)
            assert_true(lr->residual < 1e-6);
        else if (rule == CS_STOP_NORMALIZED)
            assert_true(lr->norm_residual < 1e-6);
        else
            assert_true(lr->norm_residual < 1e-6 || lr->residual / (maxr + 1e-8) < 1e-6);
        cs_dr_free(s);
    }
    o.stop = CS_STOP_RESIDUAL;
    o.t = -1;
    assert_int_equal(cs_dr_new(&s, 2, &fns, &o, &err), CS_EINVAL);
}

static void test_maxcut_toys(void **state)
{
    (void)state;
    const char *names[] = {"toy5", "toy4"};
    double best[] = {3.0, 120.0};
    for (int k = 0; k < 2; k++) {
        cs_graph *g;
        cs_err err;
        assert_int_equal(cs_graph_builtin(&g, names[k], &err), 0);
        cs_problem *p;
        assert_int_equal(cs_problem_new_maxcut(&p, g, &err), 0);
        int ok = 0;
        for (uint64_t t = 0; t < 10; t++) {
            cs_solve_opts o = {0};
            cs_solver *s = solver(p, NULL, &o, t);
            assert_true(cs_solver_lambda(s) == 1.0);
            cs_solve_result r;
            assert_int_equal(cs_solver_solve(s, &r, &err), 0);
            assert_true(r.cut_rounded <= best[k]);
            if (r.success) {
                ok++;
                assert_true(r.cut_rounded == best[k]);
                assert_true(fabs(r.cut - best[k]) < 1e-2 * best[k]);
                assert_true(r.iters < 1000);
            } else {
                /* λ = 1 leaves local minima inside the box: a failure has converged */
                assert_int_equal(r.end, CS_END_MAXIT);
                assert_true(r.cut < best[k]);
            }
            cs_solver_free(s);
        }
        assert_true(ok >= 5);
        cs_problem_free(p);
        cs_graph_free(g);
    }
}

static void test_other_kinds(void **state)
{
    (void)state;
    cs_err err;
    cs_solve_result r;
    /* 2bit: N = 10, M = 9 recovers from 10 starts */
    int ok = 0;
    for (uint64_t t = 0; t < 4; t++) {
        cs_problem *p = make("2bit", 10, 9, 0, 400 + t);
        cs_solve_opts o = {0};
        cs_solver *s = solver(p, NULL, &o, t);
        assert_true(cs_solver_lambda(s) == 1e-5);
        assert_int_equal(cs_solver_maxit(s), 1000);
        assert_int_equal(cs_solver_solve(s, &r, &err), 0);
        ok += r.success;
        cs_solver_free(s);
        cs_problem_free(p);
    }
    assert_true(ok >= 2);
    /* orth: always orthogonal */
    if (cs_reg_lookup("om")) {
        cs_problem *p = make("orth", 10, 5, 0, 500);
        cs_solve_opts o = {0};
        cs_solver *s = solver(p, NULL, &o, 1);
        assert_int_equal(cs_solver_solve(s, &r, &err), 0);
        assert_true(r.success && r.orth_err < 1e-2);
        assert_true(cs_affine_residual(cs_problem_affine(p), cs_solver_x(s, NULL)) < 1e-8);
        cs_solver_free(s);
        cs_problem_free(p);
    }
    /* eig and the μ baseline run; μ has one extra coordinate left free */
    if (cs_reg_lookup("eig") && cs_reg_lookup("mu")) {
        cs_problem *p = make("eig", 30, 20, 0, 600);
        cs_solve_opts o = {.maxit = 2000};
        cs_solver *s = solver(p, "eig", &o, 1);
        assert_int_equal(cs_solver_solve(s, &r, &err), 0);
        assert_true(r.starts >= 1 && isfinite(r.rel_err));
        cs_solver_free(s);
        s = solver(p, "mu", &o, 1);
        size_t n;
        assert_int_equal(cs_solver_step(s, 1, NULL, &err), 0);
        cs_solver_iterate(s, &n);
        assert_int_equal(n, 31);
        assert_int_equal(cs_solver_solve(s, &r, &err), 0);
        assert_true(cs_affine_residual(cs_problem_affine(p), cs_solver_x(s, NULL)) < 1e-8);
        cs_solver_free(s);
        cs_problem_free(p);
    }
}

static void test_solver_errors(void **state)
{
    (void)state;
    cs_problem *p = make("bin", 20, 10, 0, 1);
    cs_solver *s;
    cs_err err;
    cs_solve_opts o = {.algo = CS_ALGO_DR};
    cs_method bin = method_of("bin"), linf = method_of("linf"), m;
    assert_int_equal(cs_solver_new(&s, p, &bin, &o, 1, 1, &err), CS_EINVAL);
    o.algo = CS_ALGO_AUTO;
    /* names are parsed once, before the solver: what cs_method_parse refuses */
    assert_int_equal(cs_method_parse(&m, "nosuchreg", &err), CS_ENOTFOUND);
    assert_string_equal(err.msg, "unknown regularizer 'nosuchreg'");
    assert_int_equal(cs_method_parse(&m, "bin:oops", &err), CS_EINVAL);
    assert_int_equal(cs_method_parse(&m, "", &err), CS_EINVAL);
    assert_int_equal(cs_method_parse(&m, "holder p=3  q=2:r=1", &err), 0);
    assert_string_equal(m.text, "holder p=3  q=2:r=1");
    assert_string_equal(m.canon, "holder:p=3:q=2:r=1");
    assert_string_equal(m.info->name, "holder");
    assert_int_equal(m.nparams, 3);
    assert_int_equal(cs_method_parse(&m, "holder:p=oops", &err), 0);
    assert_int_equal(cs_method_check(&m, &err), CS_EINVAL);   /* the keys' values: check */
    assert_int_equal(cs_solver_new(&s, NULL, &bin, &o, 1, 1, &err), CS_ESTATE);
    assert_int_equal(cs_method_check(&linf, &err), 0);
    cs_problem *q = make("2bit", 10, 5, 0, 1);
    assert_int_equal(cs_solver_new(&s, q, &bin, &o, 1, 1, &err), CS_EINVAL);
    assert_int_equal(cs_solver_new(&s, q, &linf, &o, 1, 1, &err), CS_EINVAL);
    cs_problem_free(q);
    /* a cancel flag stops solve */
    cs_cancel stop = 1;
    o.cancel = &stop;
    s = solver(p, "bin", &o, 1);
    cs_solve_result r;
    assert_int_equal(cs_solver_solve(s, &r, &err), CS_ECANCEL);
    assert_int_equal(r.done, 0);
    cs_solver_free(s);
    cs_problem_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fista_quadratic_modes),
        cmocka_unit_test(test_fista_errors),
        cmocka_unit_test(test_fast_kernels_match_library),
        cmocka_unit_test(test_defined_solves_as_library),
        cmocka_unit_test(test_bin_recovery),
        cmocka_unit_test(test_trace_consistency),
        cmocka_unit_test(test_step_equals_solve),
        cmocka_unit_test(test_lockstep_equals_sequential),
        cmocka_unit_test(test_lockstep_every_method),
        cmocka_unit_test(test_dr_linf_l1),
        cmocka_unit_test(test_dr_equals_textbook),
        cmocka_unit_test(test_dr_direct),
        cmocka_unit_test(test_maxcut_toys),
        cmocka_unit_test(test_other_kinds),
        cmocka_unit_test(test_solver_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
