/* test_problem_arrays.c — problems from the caller's arrays (bad input, the
 * round trip bit for bit, solving without x*), noisy measurements and the
 * least-squares fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_problem.h"
#include "cs_rng.h"
#include "cs_solver.h"

static cs_problem *draw(cs_kind kind, size_t N, size_t M, double noise, uint64_t seed,
                        uint64_t stream)
{
    cs_problem_spec sp = {.kind = kind, .N = N, .M = M, .noise = noise};
    cs_problem *p = NULL;
    cs_err err;
    if (cs_problem_new(&p, &sp, seed, stream, &err))
        fail_msg("cs_problem_new: %s", err.msg);
    return p;
}

/* A random M×N matrix whose last `dup` rows repeat its first ones (rank M − dup). */
static double *dependent_A(size_t M, size_t N, size_t dup)
{
    double *A = malloc(M * N * sizeof *A);
    assert_non_null(A);
    cs_rng rng;
    cs_rng_init(&rng, 3, 0);
    cs_rng_normal_fill(&rng, A, M * N);
    for (size_t k = 0; k < dup; k++)
        memcpy(A + (M - dup + k) * N, A + k * N, N * sizeof *A);
    return A;
}

static void matvec(const double *A, size_t M, size_t N, const double *x, double *b)
{
    for (size_t i = 0; i < M; i++) {
        b[i] = 0.0;
        for (size_t j = 0; j < N; j++)
            b[i] += A[i * N + j] * x[j];
    }
}

static void expect_fail(int rc, const cs_err *err, const char *want)
{
    assert_int_not_equal(rc, 0);
    if (!strstr(err->msg, want))
        fail_msg("message '%s' lacks '%s'", err->msg, want);
}

static void test_bad_shapes(void **state)
{
    (void)state;
    cs_err err;
    expect_fail(cs_problem_check_shapes(CS_PROB_BIN, 30, 60, 29, 0, 0, 0, &err), &err,
                "A is 30x60, b has 29 entries");
    assert_string_equal(err.key, "b");
    expect_fail(cs_problem_check_shapes(CS_PROB_BIN, 30, 60, 30, 59, 0, 0, &err), &err,
                "x* has 59 entries, A has N = 60 columns");
    expect_fail(cs_problem_check_shapes(CS_PROB_EIG, 30, 60, 30, 60, 60, 59, &err), &err,
                "C is 60x59: eig needs C of N×N = 60x60");
    expect_fail(cs_problem_check_shapes(CS_PROB_EIG, 30, 60, 30, 0, 0, 0, &err), &err,
                "eig needs C");
    expect_fail(cs_problem_check_shapes(CS_PROB_BIN, 30, 60, 30, 0, 60, 60, &err), &err,
                "C is for eig, not bin");
    expect_fail(cs_problem_check_shapes(CS_PROB_BIN, 0, 60, 0, 0, 0, 0, &err), &err,
                "A is 0x60");
    assert_int_equal(cs_problem_check_shapes(CS_PROB_EIG, 30, 60, 30, 60, 60, 60, &err), 0);
}

static void test_bad_entries(void **state)
{
    (void)state;
    size_t M = 30, N = 60;
    double *A = dependent_A(M, N, 0), b[30], x[60], C[4] = {1, 2, 2.5, 1};
    for (size_t j = 0; j < N; j++)
        x[j] = j % 2 ? 1.0 : -1.0;
    matvec(A, M, N, x, b);
    cs_problem *p = NULL;
    cs_err err;
    A[2 * N + 6] = NAN;
    expect_fail(cs_problem_new_arrays(&p, CS_PROB_BIN, A, M, N, b, x, NULL, &err), &err,
                "A(3,7) is not finite");
    assert_null(p);
    A[2 * N + 6] = 0.5;
    b[4] = INFINITY;
    expect_fail(cs_problem_new_arrays(&p, CS_PROB_BIN, A, M, N, b, x, NULL, &err), &err,
                "b entry 5 is not finite");
    matvec(A, M, N, x, b);
    x[9] = NAN;
    expect_fail(cs_problem_new_arrays(&p, CS_PROB_BIN, A, M, N, b, x, NULL, &err), &err,
                "x* entry 10 is not finite");
    x[9] = 1.0;
    expect_fail(cs_problem_new_arrays(&p, CS_PROB_ORTH, A, M, N, b, x, NULL, &err), &err,
                "orth problems");
    expect_fail(cs_problem_new_arrays(&p, CS_PROB_MAXCUT, A, M, N, b, x, NULL, &err), &err,
                "maxcut problems come from a graph");
    expect_fail(cs_problem_new_arrays(&p, CS_PROB_EIG, A, M, N, b, x, NULL, &err), &err,
                "eig needs C");
    /* an asymmetric C (2×2 problem) */
    double A2[2] = {1.0, 1.0}, b2[1] = {1.0};
    expect_fail(cs_problem_new_arrays(&p, CS_PROB_EIG, A2, 1, 2, b2, NULL, C, &err), &err,
                "C is not symmetric: C(1,2) = 2, C(2,1) = 2.5");
    C[2] = 2.0;
    assert_int_equal(cs_problem_new_arrays(&p, CS_PROB_EIG, A2, 1, 2, b2, NULL, C, &err), 0);
    assert_memory_equal(cs_problem_C(p), C, sizeof C);
    cs_problem_free(p);
    free(A);
}

/* Dependent rows: refused when b is outside the range of A (with the rank
 * and the residual), accepted and solved when it is inside. */
static void test_rank_deficient(void **state)
{
    (void)state;
    size_t M = 30, N = 60;
    double *A = dependent_A(M, N, 2), b[30], x[60];
    for (size_t j = 0; j < N; j++)
        x[j] = (j * 7) % 3 ? 1.0 : -1.0;
    matvec(A, M, N, x, b);
    b[29] += 0.5;   /* a repeated row with another right-hand side */
    cs_problem *p = NULL;
    cs_err err;
    expect_fail(cs_problem_new_arrays(&p, CS_PROB_BIN, A, M, N, b, x, NULL, &err), &err,
                "A has rank 28 < M = 30 and b is not in its range: residual ");
    double res = strtod(strstr(err.msg, "residual ") + 9, NULL);
    assert_true(res > 1e-3 && res < 1.0);
    matvec(A, M, N, x, b);
    assert_int_equal(cs_problem_new_arrays(&p, CS_PROB_BIN, A, M, N, b, x, NULL, &err), 0);
    assert_int_equal(cs_problem_rank(p), 28);
    assert_int_equal(cs_problem_M(p), 30);
    size_t rows;
    cs_problem_system(p, NULL, &rows);
    assert_int_equal(rows, 28);
    cs_solver *s;
    cs_solve_result r;
    assert_int_equal(cs_solver_new(&s, p, NULL, NULL, 1, 2, &err), 0);
    assert_int_equal(cs_solver_solve(s, &r, &err), 0);
    assert_true(r.success);
    assert_true(r.rel_err < 1e-2);
    assert_true(r.residual < 1e-10);   /* on all 30 rows, the repeated ones too */
    cs_solver_free(s);
    /* a copy keeps the reduced system */
    cs_problem *c;
    assert_int_equal(cs_problem_clone(&c, p, &err), 0);
    assert_int_equal(cs_problem_rank(c), 28);
    cs_problem_free(c);
    cs_problem_free(p);
    /* more rows than unknowns, consistent: the affine set is x* alone */
    size_t M2 = 50, N2 = 40;
    double *A2 = dependent_A(M2, N2, 0), b2[50];
    matvec(A2, M2, N2, x, b2);
    assert_int_equal(cs_problem_new_arrays(&p, CS_PROB_BIN, A2, M2, N2, b2, x, NULL, &err), 0);
    assert_int_equal(cs_problem_rank(p), 40);
    assert_int_equal(cs_solver_new(&s, p, NULL, NULL, 1, 2, &err), 0);
    assert_int_equal(cs_solver_solve(s, &r, &err), 0);
    assert_true(r.success && r.rel_err < 1e-12);
    cs_solver_free(s);
    cs_problem_free(p);
    free(A);
    free(A2);
}

/* Solve p with the default method and a fixed stream; x̂ into x. */
static void solve_into(cs_problem *p, const cs_solve_opts *o, double *x, cs_solve_result *r)
{
    cs_solver *s;
    cs_err err;
    if (cs_solver_new(&s, p, NULL, o, 5, 77, &err) || cs_solver_solve(s, r, &err))
        fail_msg("solve: %s", err.msg);
    size_t n;
    const double *xs = cs_solver_x(s, &n);
    memcpy(x, xs, n * sizeof *x);
    cs_solver_free(s);
}

/* A drawn problem rebuilt from its arrays solves to the same iterates. */
static void test_round_trip(void **state)
{
    (void)state;
    const cs_kind kinds[] = {CS_PROB_BIN, CS_PROB_EIG, CS_PROB_TER};
    for (size_t k = 0; k < 3; k++) {
        size_t N = 40, M = 24;
        cs_problem *p = draw(kinds[k], N, M, 0.0, 5, 0), *q;
        cs_err err;
        assert_int_equal(cs_problem_new_arrays(&q, kinds[k], cs_problem_A(p), M, N,
                                               cs_problem_b(p), cs_problem_xstar(p),
                                               cs_problem_C(p), &err), 0);
        assert_true(cs_problem_xstar_norm(q) == cs_problem_xstar_norm(p));
        double x1[40], x2[40];
        cs_solve_result r1, r2;
        solve_into(p, NULL, x1, &r1);
        solve_into(q, NULL, x2, &r2);
        assert_memory_equal(x1, x2, sizeof x1);
        assert_int_equal(r1.iters, r2.iters);
        assert_int_equal(r1.starts, r2.starts);
        assert_true(r1.rel_err == r2.rel_err);
        if (kinds[k] == CS_PROB_BIN)
            assert_true(r1.success);
        cs_problem_free(q);
        cs_problem_free(p);
    }
}

/* Without x*: stop normalized, judged by the residual and the target set;
 * the scale of a ±1 solution is 1. */
static void test_without_xstar(void **state)
{
    (void)state;
    size_t N = 40, M = 24;
    cs_problem *p = draw(CS_PROB_BIN, N, M, 0.0, 5, 0), *q;
    cs_err err;
    assert_int_equal(cs_problem_new_arrays(&q, CS_PROB_BIN, cs_problem_A(p), M, N,
                                           cs_problem_b(p), NULL, NULL, &err), 0);
    assert_null(cs_problem_xstar(q));
    assert_true(isnan(cs_problem_xstar_norm(q)));
    cs_problem *c;   /* a copy (basins: one per row) has no x* either */
    assert_int_equal(cs_problem_clone(&c, q, &err), 0);
    assert_null(cs_problem_xstar(c));
    assert_memory_equal(cs_problem_b(c), cs_problem_b(q), M * sizeof(double));
    cs_problem_free(c);
    double x[40];
    assert_true(isnan(cs_problem_rel_err(q, x)));
    cs_solver *s;
    cs_solve_result r;
    assert_int_equal(cs_solver_new(&s, q, NULL, NULL, 5, 77, &err), 0);
    assert_int_equal(cs_solver_stop(s), CS_STOP_NORMALIZED);
    assert_int_equal(cs_solver_solve(s, &r, &err), 0);
    assert_true(r.success);
    assert_int_equal(r.end, CS_END_TOL);
    assert_true(isnan(r.rel_err));
    assert_true(r.residual < 1e-10);
    assert_true(r.target_dist < 1e-6);
    assert_true(fabs(r.scale - 1.0) < 1e-6);
    /* the solution is x* (up to 1e-6) */
    size_t n;
    const double *xs = cs_solver_x(s, &n);
    assert_true(cs_problem_rel_err(p, xs) < 1e-6);
    /* an explicit stop=oracle means the same */
    assert_int_equal(cs_solver_set_stop(s, 0, CS_STOP_ORACLE, 0, &err), 0);
    assert_int_equal(cs_solver_stop(s), CS_STOP_NORMALIZED);
    cs_solver_free(s);
    /* Douglas-Rachford (linf) too; and the measures are there with x* as well */
    cs_method m;
    assert_int_equal(cs_method_parse(&m, "linf", &err), 0);
    assert_int_equal(cs_solver_new(&s, q, &m, NULL, 5, 77, &err), 0);
    assert_int_equal(cs_solver_solve(s, &r, &err), 0);
    assert_true(r.residual < 1e-6);
    assert_false(isnan(r.target_dist));
    cs_solver_free(s);
    cs_solve_result rp;
    solve_into(p, NULL, x, &rp);
    assert_true(rp.residual < 1e-10);
    assert_true(rp.target_dist < 1e-2);
    assert_true(fabs(rp.scale - 1.0) < 2e-2);
    cs_problem_free(q);
    cs_problem_free(p);
}

/* noise=σ changes b only: A and x* are those of σ = 0, b − Ax* = σn. */
static void test_noise_draw(void **state)
{
    (void)state;
    size_t N = 100, M = 60;
    cs_problem *p0 = draw(CS_PROB_BIN, N, M, 0.0, 1, 3), *p1 = draw(CS_PROB_BIN, N, M, 0.1, 1, 3);
    assert_memory_equal(cs_problem_A(p0), cs_problem_A(p1), M * N * sizeof(double));
    assert_memory_equal(cs_problem_xstar(p0), cs_problem_xstar(p1), N * sizeof(double));
    assert_true(cs_problem_noise(p0) == 0.0 && cs_problem_noise(p1) == 0.1);
    const double *b0 = cs_problem_b(p0), *b1 = cs_problem_b(p1);
    double nn = 0.0, mean = 0.0;
    for (size_t i = 0; i < M; i++) {
        double d = (b1[i] - b0[i]) / 0.1;
        nn += d * d;
        mean += d;
    }
    /* ‖n‖²/M ~ χ²_60/60: 0.6..1.5 with probability > 0.99 */
    assert_true(nn / (double)M > 0.6 && nn / (double)M < 1.5);
    assert_true(fabs(mean / (double)M) < 0.5);
    /* b = Ax* exactly at σ = 0 */
    double b[60];
    matvec(cs_problem_A(p0), M, N, cs_problem_xstar(p0), b);
    for (size_t i = 0; i < M; i++)
        assert_true(fabs(b[i] - b0[i]) < 1e-12);
    cs_problem_free(p0);
    cs_problem_free(p1);
    cs_problem_spec sp = {.kind = CS_PROB_BIN, .N = 10, .M = 5, .noise = -1.0};
    cs_problem *p;
    cs_err err;
    expect_fail(cs_problem_new(&p, &sp, 1, 0, &err), &err, "noise=-1 must be");
    assert_string_equal(err.key, "noise");
    sp = (cs_problem_spec){.kind = CS_PROB_MAXCUT, .graph = "toy5", .noise = 0.1};
    expect_fail(cs_problem_new(&p, &sp, 1, 0, &err), &err, "maxcut problem has none");
}

/* Successes of `fit` over `trials` noisy problems. */
static int successes(double sigma, cs_fit fit, size_t N, size_t M, int trials)
{
    int ok = 0;
    for (int t = 0; t < trials; t++) {
        cs_problem *p = draw(CS_PROB_BIN, N, M, sigma, 1, (uint64_t)t);
        cs_solve_opts o = {.fit = fit};
        double x[64];
        cs_solve_result r;
        solve_into(p, &o, x, &r);
        ok += r.success;
        cs_problem_free(p);
    }
    return ok;
}

/* At σ = 0.1 (N = 40, M = 24) the affine set lies about 0.02 from x*
 * (relative): fit=affine cannot get within 1e-2, the least-squares fit
 * with ℓbin pulling to the target set can. At σ = 0.01 it lies 0.002 away
 * and both recover, but for a few trials (γ = 0.6 is near the phase
 * transition at N = 40: 16 and 19 of 20 with these streams). */
static void test_noisy_fit(void **state)
{
    (void)state;
    int ls = successes(0.1, CS_FIT_LS, 40, 24, 20), aff = successes(0.1, CS_FIT_AFFINE, 40, 24, 20);
    print_message("sigma 0.1: ls %d/20, affine %d/20\n", ls, aff);
    assert_true(ls >= 15);
    assert_true(aff <= 3);
    ls = successes(0.01, CS_FIT_LS, 40, 24, 20);
    aff = successes(0.01, CS_FIT_AFFINE, 40, 24, 20);
    print_message("sigma 0.01: ls %d/20, affine %d/20\n", ls, aff);
    assert_true(ls >= 15 && aff >= 15);
}

/* fit=ls: the defaults, what it refuses; without noise it recovers. */
static void test_fit_ls(void **state)
{
    (void)state;
    cs_fit f;
    cs_err err;
    assert_int_equal(cs_fit_parse("ls", &f, &err), 0);
    assert_int_equal(f, CS_FIT_LS);
    assert_string_equal(cs_fit_name(CS_FIT_AFFINE), "affine");
    assert_int_not_equal(cs_fit_parse("lsq", &f, &err), 0);
    cs_problem *p = draw(CS_PROB_BIN, 40, 24, 0.0, 1, 0);
    cs_solve_opts o = {.fit = CS_FIT_LS};
    cs_solver *s;
    assert_int_equal(cs_solver_new(&s, p, NULL, &o, 1, 0, &err), 0);
    assert_true(cs_solver_lambda(s) == CS_FIT_LS_LAMBDA);
    assert_int_equal(cs_solver_fit(s), CS_FIT_LS);
    assert_int_equal(cs_solver_algo(s), CS_ALGO_FISTA);
    cs_solve_result r;
    assert_int_equal(cs_solver_solve(s, &r, &err), 0);
    assert_true(r.success && r.rel_err < 1e-2);
    cs_solver_free(s);
    o.lambda = 0.5;
    assert_int_equal(cs_solver_new(&s, p, NULL, &o, 1, 0, &err), 0);
    assert_true(cs_solver_lambda(s) == 0.5);
    cs_solver_free(s);
    /* linf under fit=ls runs FISTA; method=dr is refused */
    cs_method m;
    assert_int_equal(cs_method_parse(&m, "linf", &err), 0);
    assert_int_equal(cs_solver_new(&s, p, &m, &o, 1, 0, &err), 0);
    assert_int_equal(cs_solver_algo(s), CS_ALGO_FISTA);
    cs_solver_free(s);
    o.algo = CS_ALGO_DR;
    expect_fail(cs_solver_new(&s, p, &m, &o, 1, 0, &err), &err, "fit=ls runs FISTA");
    cs_problem_free(p);
    p = draw(CS_PROB_2BIT, 10, 8, 0.0, 1, 0);
    o = (cs_solve_opts){.fit = CS_FIT_LS};
    expect_fail(cs_solver_new(&s, p, NULL, &o, 1, 0, &err), &err,
                "fit=ls is for bin, osb, ter and eig problems, not 2bit");
    cs_problem_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_shapes),     cmocka_unit_test(test_bad_entries),
        cmocka_unit_test(test_rank_deficient), cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_without_xstar),  cmocka_unit_test(test_noise_draw),
        cmocka_unit_test(test_noisy_fit),      cmocka_unit_test(test_fit_ls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
