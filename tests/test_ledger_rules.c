/* test_ledger_rules.c — the solver's tools for seeing why a run went as it
 * did: the backtracking ledger against a line search worked out by hand,
 * the ratio rule, rewinding a deterministic stepper, starting at a given
 * point, changing the stop rule in place, and the stop-rule counterfactuals
 * against separate runs with each rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_fista.h"
#include "cs_problem.h"
#include "cs_rules.h"
#include "cs_solver.h"
#include "method_util.h"

/* f = ½·10·‖x‖² (∇f = 10x, L = 10), no constraint. */
static int quad10(void *ctx, const double *x, double *f, double *g, cs_err *err)
{
    (void)ctx;
    (void)err;
    *f = 5.0 * (x[0] * x[0] + x[1] * x[1]);
    if (g) {
        g[0] = 10.0 * x[0];
        g[1] = 10.0 * x[1];
    }
    return CS_OK;
}

static cs_fista *quad_fista(int max_backtracks)
{
    cs_fista_opts o;
    cs_fista_opts_default(&o);
    o.tau0 = 1.0;
    o.ledger = 1;
    o.stop = CS_STOP_MAXIT;
    o.maxit = 50;
    o.max_backtracks = max_backtracks;
    cs_fista_fns fns = {.fg = quad10};
    cs_fista *s;
    cs_err err;
    assert_int_equal(cs_fista_new(&s, 2, &fns, &o, &err), 0);
    assert_int_equal(cs_fista_start(s, (double[2]){1, 0}, 1, NULL, &err), 0);
    return s;
}

/* By hand, from x0 = (1, 0), f(x0) = 5, ∇f(x0) = (10, 0): the trial at τ is
 * x = (1 − 10τ, 0), f = 5(1 − 10τ)², and the bound of the first iteration
 * is f(x0) + ⟨Δx, ∇f⟩ + ‖Δx‖²/(2τ) = 5 − 100τ + 50τ = 5 − 50τ. A trial
 * passes iff (1 − 10τ)² <= 1 − 10τ, i.e. τ <= 1/L = 0.1: from τ = 1 the
 * search halves four times and takes τ = 1/16. */
static void test_ledger_by_hand(void **state)
{
    (void)state;
    cs_fista *s = quad_fista(20);
    cs_err err;
    assert_int_equal(cs_fista_step(s, &err), 0);
    size_t n;
    const cs_trial_rec *t = cs_fista_trials(s, &n);
    assert_int_equal(n, 5);
    static const double tau[] = {1, 0.5, 0.25, 0.125, 0.0625};
    for (size_t k = 0; k < n; k++) {
        double want_f = 5.0 * (1 - 10 * tau[k]) * (1 - 10 * tau[k]);
        double want_bound = 5.0 - 50.0 * tau[k];
        assert_int_equal(t[k].iter, 1);
        assert_int_equal(t[k].trial, (int)k + 1);
        assert_true(t[k].tau == tau[k]);
        assert_true(fabs(t[k].f - want_f) <= 1e-12 * fmax(1, want_f));
        assert_true(fabs(t[k].bound - want_bound) <= 1e-12 * fmax(1, fabs(want_bound)));
        assert_int_equal(t[k].accepted, k == 4);
    }
    assert_true(t[0].f == 405 && t[1].f == 80 && t[2].f == 11.25 && t[3].f == 0.3125);
    assert_true(t[4].f == 0.703125 && t[4].bound == 1.875);
    const cs_trace_rec *r = cs_fista_last(s);
    assert_int_equal(r->backtracks, 4);
    assert_true(r->tau == 0.0625);
    /* later iterations: the search starts at the step taken before, halves
     * until a trial passes, and the ledger says which did */
    double prev = 0.0625;
    for (int it = 2; it <= 10; it++) {
        if (cs_fista_step(s, &err) != 0)
            break;
        t = cs_fista_trials(s, &n);
        assert_true(n >= 1);
        assert_int_equal(n, (size_t)cs_fista_last(s)->backtracks + 1);
        for (size_t k = 0; k < n; k++) {
            assert_int_equal(t[k].iter, it);
            assert_true(t[k].tau == prev * ldexp(1.0, -(int)k));
            int passes = !(t[k].f - 1e-12 > t[k].bound);
            assert_int_equal(t[k].accepted, k + 1 == n);
            assert_int_equal(passes, k + 1 == n);
        }
        prev = t[n - 1].tau;
    }
    cs_fista_free(s);
}

/* After max_backtracks shrinks the step is taken even above the bound. */
static void test_ledger_forced(void **state)
{
    (void)state;
    cs_fista *s = quad_fista(2);
    cs_err err;
    assert_int_equal(cs_fista_step(s, &err), 0);
    size_t n;
    const cs_trial_rec *t = cs_fista_trials(s, &n);
    assert_int_equal(n, 3);
    assert_true(t[2].tau == 0.25 && t[2].f == 11.25 && t[2].bound == -7.5);
    assert_int_equal(t[2].accepted, 1);
    assert_int_equal(t[0].accepted + t[1].accepted, 0);
    cs_fista_free(s);
    /* without the ledger nothing is kept */
    cs_fista_opts o;
    cs_fista_opts_default(&o);
    o.tau0 = 1.0;
    cs_fista_fns fns = {.fg = quad10};
    assert_int_equal(cs_fista_new(&s, 2, &fns, &o, &err), 0);
    assert_int_equal(cs_fista_start(s, (double[2]){1, 0}, 1, NULL, &err), 0);
    assert_int_equal(cs_fista_step(s, &err), 0);
    cs_fista_trials(s, &n);
    assert_int_equal(n, 0);
    cs_fista_free(s);
}

static cs_problem *make(const char *kind, size_t N, size_t M)
{
    cs_problem_spec sp = {.N = N, .M = M};
    assert_int_equal(cs_problem_kind_parse(kind, &sp.kind, NULL), 0);
    cs_problem *p = NULL;
    cs_err err;
    if (cs_problem_new(&p, &sp, 7, 3, &err))
        fail_msg("problem: %s", err.msg);
    return p;
}

static cs_solver *make_solver(cs_problem *p, const char *method, cs_solve_opts o)
{
    cs_solver *s = NULL;
    cs_err err;
    cs_method m = method ? method_of(method) : (cs_method){0};
    if (cs_solver_new(&s, p, method ? &m : NULL, &o, 7, 11, &err))
        fail_msg("solver: %s", err.msg);
    return s;
}

/* The solver's ledger: one row per trial step, backtracks + 1 per
 * iteration, the taken row's τ is the trace's. */
static void test_solver_ledger(void **state)
{
    (void)state;
    cs_problem *p = make("bin", 30, 18);
    cs_solver *s = make_solver(p, NULL, (cs_solve_opts){.trace = 1, .maxit = 200});
    cs_err err;
    assert_int_equal(cs_solver_step(s, 120, NULL, &err), 0);
    size_t nt, nl;
    const cs_trace_rec *t = cs_solver_trace(s, &nt);
    const cs_trial_rec *l = cs_solver_ledger(s, &nl);
    size_t k = 0;
    for (size_t i = 0; i < nt; i++) {
        for (int b = 0; b <= t[i].backtracks; b++, k++) {
            assert_true(k < nl);
            assert_int_equal(l[k].iter, t[i].iter);
            assert_int_equal(l[k].start, t[i].start);
            assert_int_equal(l[k].trial, b + 1);
            assert_int_equal(l[k].accepted, b == t[i].backtracks);
        }
        assert_true(l[k - 1].tau == t[i].tau);
        assert_true(l[k - 1].f == t[i].objective);
    }
    assert_int_equal(k, nl);
    cs_solver_free(s);
    cs_problem_free(p);
}

static void snapshot(cs_solver *s, double *x, size_t *n, cs_solve_result *r)
{
    const double *v = cs_solver_iterate(s, n);
    assert_non_null(v);
    memcpy(x, v, *n * sizeof *x);
    cs_solver_result(s, r);
}

/* rewind K + step n equals stepping straight there, bit for bit, within a
 * start and across a restart. */
static void test_rewind(void **state)
{
    (void)state;
    cs_problem *p = make("bin", 40, 14);   /* hard: the first start fails */
    cs_solve_opts o = {.trace = 1, .maxit = 60, .restarts = 3};
    cs_solver *a = make_solver(p, NULL, o), *b = make_solver(p, NULL, o);
    cs_err err;
    double xa[64], xb[64];
    size_t na, nb;
    cs_solve_result ra, rb;
    assert_int_equal(cs_solver_step(a, 50, NULL, &err), 0);
    assert_int_equal(cs_solver_rewind(a, 10, &err), 0);
    cs_solver_result(a, &ra);
    assert_int_equal(ra.last_iters, 10);
    assert_int_equal(cs_solver_step(a, 40, NULL, &err), 0);
    assert_int_equal(cs_solver_step(b, 50, NULL, &err), 0);
    snapshot(a, xa, &na, &ra);
    snapshot(b, xb, &nb, &rb);
    assert_int_equal(na, nb);
    assert_memory_equal(xa, xb, na * sizeof *xa);
    assert_int_equal(ra.iters, 50);
    assert_int_equal(rb.starts, 1);
    /* across the restart: start 2 at iteration 15 */
    assert_int_equal(cs_solver_step(a, 25, NULL, &err), 0);
    cs_solver_result(a, &ra);
    assert_int_equal(ra.starts, 2);
    assert_int_equal(ra.last_iters, 15);
    assert_int_equal(cs_solver_rewind(a, 5, &err), 0);
    cs_solver_result(a, &ra);
    assert_int_equal(ra.starts, 2);
    assert_int_equal(ra.iters, 60 + 5);
    assert_int_equal(cs_solver_step(a, 10, NULL, &err), 0);
    assert_int_equal(cs_solver_step(b, 25, NULL, &err), 0);
    snapshot(a, xa, &na, &ra);
    snapshot(b, xb, &nb, &rb);
    assert_memory_equal(xa, xb, na * sizeof *xa);
    size_t ta, tb;
    cs_solver_trace(a, &ta);
    cs_solver_trace(b, &tb);
    assert_int_equal(ta, tb);
    /* rewind 0 begins the start: its start point is the iterate */
    assert_int_equal(cs_solver_rewind(a, 0, &err), 0);
    cs_solver_result(a, &ra);
    assert_int_equal(ra.starts, 2);
    assert_int_equal(ra.last_iters, 0);
    /* out of range */
    assert_int_equal(cs_solver_rewind(a, 1, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "rewind takes 0..0"));
    cs_solver_free(a);
    cs_solver_free(b);
    cs_problem_free(p);
}

/* The stop rule changed in place ends the run as a new solver with that
 * rule would have, at the same iterate. */
static void test_set_stop(void **state)
{
    (void)state;
    cs_problem *p = make("bin", 30, 20);
    cs_solver *a = make_solver(p, NULL, (cs_solve_opts){.trace = 1, .restarts = 1});
    cs_solver *b = make_solver(
        p, NULL, (cs_solve_opts){.trace = 1, .restarts = 1, .stop = CS_STOP_RESIDUAL, .tol = 1e-5});
    cs_err err;
    cs_solve_result ra, rb;
    assert_int_equal(cs_solver_step(a, 3, NULL, &err), 0);
    assert_int_equal(cs_solver_set_stop(a, 0, CS_STOP_RESIDUAL, 1e-5, &err), 0);
    assert_int_equal(cs_solver_solve(a, &ra, &err), 0);
    assert_int_equal(cs_solver_solve(b, &rb, &err), 0);
    assert_int_equal(ra.iters, rb.iters);
    assert_true(ra.rel_err == rb.rel_err);
    assert_int_equal(ra.end, CS_END_TOL);
    cs_solver_free(a);
    cs_solver_free(b);
    cs_problem_free(p);
}

/* A given start: taken as it is, FISTA's first step projects it. */
static void test_given_start(void **state)
{
    (void)state;
    cs_problem *p = make("bin", 2, 1);
    cs_solver *s = make_solver(p, NULL, (cs_solve_opts){.trace = 1, .path = 1, .restarts = 1});
    cs_err err;
    assert_int_equal(cs_solver_set_start(s, (double[2]){1.5, -0.25}, 2, &err), 0);
    assert_int_equal(cs_solver_step(s, 1, NULL, &err), 0);
    size_t n;
    const int *st;
    const double *path = cs_solver_path(s, &n, &st);
    assert_int_equal(n, 2);
    assert_true(path[0] == 1.5 && path[1] == -0.25);
    assert_int_equal(st[0], 1);
    const double *A = cs_problem_A(p), *b = cs_problem_b(p);
    assert_true(fabs(A[0] * path[2] + A[1] * path[3] - b[0]) < 1e-12);
    assert_int_equal(cs_solver_set_start(s, (double[1]){1}, 1, &err), CS_EDIM);
    assert_int_equal(cs_solver_set_start(s, (double[2]){NAN, 1}, 2, &err), CS_ENONFINITE);
    cs_solver_free(s);
    cs_problem_free(p);
}

/* Each rule's iteration and returned error equal a separate run that stops
 * by that rule (one start, same stream). */
static void check_rules(cs_problem *p, const char *method, long maxit)
{
    cs_rule rules[CS_RULES_DEFAULT];
    cs_rule_result out[CS_RULES_DEFAULT];
    cs_rules_default(rules);
    cs_solver *r = make_solver(
        p, method, (cs_solve_opts){.trace = 1, .restarts = 1, .stop = CS_STOP_MAXIT, .maxit = maxit});
    cs_err err;
    assert_int_equal(cs_solver_rules(r, rules, CS_RULES_DEFAULT, out, &err), 0);
    cs_solver_free(r);
    int fired_some = 0;
    for (size_t i = 0; i < CS_RULES_DEFAULT; i++) {
        cs_solver *s = make_solver(p, method,
                                   (cs_solve_opts){.restarts = 1, .stop = rules[i].stop,
                                                   .tol = rules[i].tol, .maxit = maxit});
        cs_solve_result res;
        assert_int_equal(cs_solver_solve(s, &res, &err), 0);
        char label[64];
        cs_rule_label(&rules[i], label, sizeof label);
        if (res.iters != out[i].iter || !(res.rel_err == out[i].rel_err))
            fail_msg("%s %s: run %ld iters rel_err %.17g; counterfactual %ld, %.17g", method,
                     label, res.iters, res.rel_err, out[i].iter, out[i].rel_err);
        assert_int_equal(res.success, out[i].success);
        fired_some += out[i].fired && rules[i].stop != CS_STOP_MAXIT;
        cs_solver_free(s);
    }
    assert_true(fired_some >= 3);
}

static void test_rules_against_runs(void **state)
{
    (void)state;
    cs_problem *p = make("bin", 40, 24);
    check_rules(p, "bin", 3000);
    check_rules(p, "linf", 3000);
    cs_problem_free(p);
    p = make("ter", 30, 21);
    check_rules(p, "ter", 3000);
    cs_problem_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ledger_by_hand),
        cmocka_unit_test(test_ledger_forced),
        cmocka_unit_test(test_solver_ledger),
        cmocka_unit_test(test_rewind),
        cmocka_unit_test(test_set_stop),
        cmocka_unit_test(test_given_start),
        cmocka_unit_test(test_rules_against_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
