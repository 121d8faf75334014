/* test_basins.c — the basin explorer in the engine (classes of 31×31
 * starts on a 2D problem, independence of the thread count, slices of a
 * larger problem, osb's negative half-axis), the feasible set on a slice,
 * and the distance to a target set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_basins.h"
#include "cs_geometry.h"
#include "cs_problem.h"
#include "cs_reg.h"
#include "cs_sweep_stream.h"
#include "method_util.h"

static cs_problem *make(const char *kind, size_t N, size_t M, uint64_t stream)
{
    cs_problem_spec sp = {.N = N, .M = M};
    assert_int_equal(cs_problem_kind_parse(kind, &sp.kind, NULL), 0);
    cs_problem *p = NULL;
    cs_err err;
    if (cs_problem_new(&p, &sp, 5, stream, &err))
        fail_msg("problem: %s", err.msg);
    return p;
}

static cs_basins *run(cs_problem *p, const char *method, size_t res, int threads)
{
    cs_method m = method ? method_of(method) : (cs_method){0};
    cs_basins_spec sp = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .res = res,
                         .method = method ? &m : NULL,
                         .seed = 5, .stream = 9, .threads = threads};
    cs_basins *b = NULL;
    cs_err err;
    if (cs_basins_run(&b, p, &sp, &err))
        fail_msg("basins: %s", err.msg);
    return b;
}

/* bin on a line: ℓbin = (x1² − x2²)² is 0 on the two diagonals, which the
 * line Ax = b meets at x* and at one other point; its only other stationary
 * point on the line is a maximum, so every start ends at one of the two. */
static void test_basins_bin_plane(void **state)
{
    (void)state;
    cs_problem *p = make("bin", 2, 1, 3);
    cs_basins *b = run(p, NULL, 31, 2);
    assert_int_equal(b->res, 31);
    size_t total = 0;
    for (int c = 0; c < CS_BASIN_CLASSES; c++)
        total += b->counts[c];
    assert_int_equal(total, 31 * 31);
    assert_true(b->counts[CS_BASIN_SUCCESS] > 0);
    assert_true(b->counts[CS_BASIN_SUCCESS] + b->counts[CS_BASIN_OTHER] >= 31 * 31 - 31);
    assert_int_equal(b->counts[CS_BASIN_SPURIOUS], 0);
    /* clusters: x* and the other point of the target set on the line */
    size_t in_clusters = 0;
    const double *xs = cs_problem_xstar(p);
    for (size_t c = 0; c < b->nclusters; c++) {
        const cs_basin_cluster *cl = &b->clusters[c];
        in_clusters += cl->count;
        if (cl->cls == CS_BASIN_SUCCESS)
            assert_true(hypot(cl->xy[0] - xs[0], cl->xy[1] - xs[1]) < 0.02 * M_SQRT2);
        if (cl->cls == CS_BASIN_OTHER)
            assert_true(fabs(fabs(cl->xy[0]) - fabs(cl->xy[1])) < 1e-3);
        if (c)
            assert_true(b->clusters[c - 1].count >= cl->count);
    }
    assert_int_equal(in_clusters, 31 * 31);
    /* every start's class agrees with its end point */
    for (size_t k = 0; k < 31 * 31; k++) {
        double e = hypot(b->end[2 * k] - xs[0], b->end[2 * k + 1] - xs[1]) / M_SQRT2;
        if (b->cls[k] == CS_BASIN_SUCCESS)
            assert_true(e <= 1e-2);
        else
            assert_true(e > 1e-2);
        assert_true(b->rel_err[k] == e || fabs(b->rel_err[k] - e) < 1e-12);
    }
    /* the same on one thread, to the bit */
    cs_basins *b1 = run(p, NULL, 31, 1);
    assert_memory_equal(b->cls, b1->cls, 31 * 31 * sizeof *b->cls);
    assert_memory_equal(b->end, b1->end, 2 * 31 * 31 * sizeof *b->end);
    assert_memory_equal(b->cluster, b1->cluster, 31 * 31 * sizeof *b->cluster);
    cs_basins_free(b1);
    cs_basins_free(b);
    cs_problem_free(p);
}

/* A slice of a larger problem: starts are x* with two coordinates moved. */
static void test_basins_slice(void **state)
{
    (void)state;
    cs_problem *p = make("bin", 12, 8, 4);
    cs_basins_spec sp = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .res = 9, .dims = {2, 5},
                         .seed = 5, .stream = 9, .threads = 2, .opts = {.maxit = 500}};
    cs_basins *b = NULL;
    cs_err err;
    assert_int_equal(cs_basins_run(&b, p, &sp, &err), 0);
    assert_int_equal(b->dims[0], 2);
    assert_int_equal(b->dims[1], 5);
    size_t total = 0;
    for (int c = 0; c < CS_BASIN_CLASSES; c++)
        total += b->counts[c];
    assert_int_equal(total, 81);
    /* the start at x*'s own coordinates is x*: a success */
    const double *xs = cs_problem_xstar(p);
    int i = xs[2] > 0 ? 6 : 2, j = xs[5] > 0 ? 6 : 2;   /* ±1 on the grid -2..2 step 0.5 */
    assert_int_equal(b->cls[j * 9 + i], CS_BASIN_SUCCESS);
    cs_basins_free(b);
    /* errors */
    sp.dims[1] = 2;
    assert_int_equal(cs_basins_run(&b, p, &sp, &err), CS_EINVAL);
    sp.dims[1] = 5;
    cs_method linf = method_of("linf");
    sp.method = &linf;
    assert_int_equal(cs_basins_run(&b, p, &sp, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "convex"));
    cs_problem_free(p);
}

/* The feasible set on a slice, against the equations. */
static void test_constraint_slice(void **state)
{
    (void)state;
    cs_landscape_curve c;
    cs_problem *p = make("bin", 2, 1, 3);
    const double *A = cs_problem_A(p), *b = cs_problem_b(p), *xs = cs_problem_xstar(p);
    size_t dims[2] = {0, 1};
    assert_int_equal(cs_problem_constraint_slice(p, NULL, dims, -2, 2, -2, 2, &c), 1);
    assert_int_equal(c.n, 2);
    for (int k = 0; k < 2; k++) {
        assert_true(fabs(A[0] * c.x[k] + A[1] * c.y[k] - b[0]) < 1e-12);
        /* the ends lie on the box */
        assert_true(fabs(fabs(c.x[k]) - 2) < 1e-12 || fabs(fabs(c.y[k]) - 2) < 1e-12);
    }
    /* x* is on the line */
    double cross = (c.x[1] - c.x[0]) * (xs[1] - c.y[0]) - (c.y[1] - c.y[0]) * (xs[0] - c.x[0]);
    assert_true(fabs(cross) < 1e-9);
    cs_problem_free(p);
    /* every line of a 1x2 problem is found: the consistency test once
     * rejected exactly consistent lines (a difference of squares rounded,
     * then a square root made 1e-16 into 1e-8) for about a third of draws */
    for (uint64_t stream = 1; stream <= 60; stream++) {
        p = make("bin", 2, 1, stream);
        A = cs_problem_A(p), b = cs_problem_b(p);
        assert_int_equal(cs_problem_constraint_slice(p, NULL, dims, -2, 2, -2, 2, &c), 1);
        for (int k = 0; k < 2; k++)
            assert_true(fabs(A[0] * c.x[k] + A[1] * c.y[k] - b[0]) < 1e-12);
        cs_problem_free(p);
    }
    /* M = 2: the point x* */
    p = make("bin", 2, 2, 3);
    xs = cs_problem_xstar(p);
    assert_int_equal(cs_problem_constraint_slice(p, NULL, dims, -2, 2, -2, 2, &c), 1);
    assert_int_equal(c.n, 1);
    assert_true(fabs(c.x[0] - xs[0]) < 1e-9 && fabs(c.y[0] - xs[1]) < 1e-9);
    assert_int_equal(cs_problem_constraint_slice(p, NULL, dims, 3, 4, 3, 4, &c), 0);
    cs_problem_free(p);
    /* N = 6, M = 1: the slice through x* is a line through it */
    p = make("bin", 6, 1, 3);
    A = cs_problem_A(p);
    xs = cs_problem_xstar(p);
    size_t d2[2] = {1, 4};
    assert_int_equal(cs_problem_constraint_slice(p, xs, d2, -2, 2, -2, 2, &c), 1);
    assert_int_equal(c.n, 2);
    for (int k = 0; k < 2; k++)
        assert_true(fabs(A[1] * (c.x[k] - xs[1]) + A[4] * (c.y[k] - xs[4])) < 1e-9);
    cs_problem_free(p);
    /* N = 6, M = 3: through a feasible point, only that point */
    p = make("bin", 6, 3, 3);
    xs = cs_problem_xstar(p);
    assert_int_equal(cs_problem_constraint_slice(p, xs, d2, -2, 2, -2, 2, &c), 1);
    assert_int_equal(c.n, 1);
    assert_true(fabs(c.x[0] - xs[1]) < 1e-9 && fabs(c.y[0] - xs[4]) < 1e-9);
    /* through an infeasible point: nothing */
    double off[6];
    memcpy(off, xs, sizeof off);
    off[0] += 0.5;
    assert_int_equal(cs_problem_constraint_slice(p, off, d2, -2, 2, -2, 2, &c), 0);
    cs_problem_free(p);
}

/* The independent check of issue 33: `--seed 3 -e "problem osb N=2 M=1"
 * -e "basins res=21"`. The line Ax = b meets the negative half-axis
 * (a, 0), a < 0, a point of osb's target set {0, a}^2 (ℓosb = 0 there):
 * 160 starts end there and were classed not_converged, the target
 * distance counting a > 0 only. They are `other` now. */
static void test_basins_osb_negative_axis(void **state)
{
    (void)state;
    cs_problem_spec ps = {.kind = CS_PROB_OSB, .N = 2, .M = 1};
    uint64_t stream = cs_sweep_trial_stream(2, 1, 0, 0);
    cs_problem *p = NULL;
    cs_err err;
    assert_int_equal(cs_problem_new(&p, &ps, 3, stream, &err), 0);
    cs_method m = method_of("osb");
    cs_basins_spec sp = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .res = 21, .method = &m,
                         .seed = 3, .stream = cs_sweep_method_stream(stream, &m), .threads = 2,
                         .opts = {.maxit = 2000}};
    cs_basins *b = NULL;
    assert_int_equal(cs_basins_run(&b, p, &sp, &err), 0);
    /* the ends on the negative half-axis near (-0.0741, 0), within basins'
     * 1e-2, where ℓosb ≤ 1.5e-12 (rounded: 1.51e-12 at most) */
    cs_reg *osb = NULL;
    assert_int_equal(cs_reg_new(&osb, "osb", NULL, 0, 0, &err), 0);
    size_t on_axis = 0;
    for (size_t k = 0; k < 21 * 21; k++) {
        double v, *e = b->end + 2 * k;
        assert_int_equal(cs_reg_eval(osb, e, 2, 1, &v, NULL, &err), 0);
        if (e[0] < 0 && fabs(e[1]) <= 1e-2 * fabs(e[0]) && v <= 2e-12) {
            on_axis++;
            assert_true(fabs(e[0] + 0.0741) < 1e-3);
            assert_int_equal(b->cls[k], CS_BASIN_OTHER);
        }
    }
    cs_reg_free(osb);
    assert_int_equal(on_axis, 160);
    assert_int_equal(b->counts[CS_BASIN_SUCCESS], 114);
    assert_int_equal(b->counts[CS_BASIN_OTHER], 227);
    assert_int_equal(b->counts[CS_BASIN_SPURIOUS], 0);
    assert_int_equal(b->counts[CS_BASIN_NOT_CONVERGED], 100);   /* 260 before */
    cs_basins_free(b);
    cs_problem_free(p);
}

static void test_target_distance(void **state)
{
    (void)state;
    double x[4] = {1, -1, 1, -1};
    assert_true(cs_target_distance(CS_TARGET_BIN, x, 4) < 1e-15);
    double y[2] = {1, 3};   /* a = 2: distance √2 / √10 */
    assert_true(fabs(cs_target_distance(CS_TARGET_BIN, y, 2) - sqrt(0.2)) < 1e-15);
    double t[3] = {0, 2, -2};
    assert_true(cs_target_distance(CS_TARGET_TER, t, 3) < 1e-15);
    assert_true(cs_target_distance(CS_TARGET_BIN, t, 3) > 0.1);
    double o[3] = {0, 2, 2.2};   /* osb: a = 2.1, distance 0.1√2 / √8.84 */
    assert_true(fabs(cs_target_distance(CS_TARGET_OSB, o, 3) - 0.1 * sqrt(2 / 8.84)) < 1e-12);
    double neg[2] = {-1, -1};    /* osb: {0, a} for any real a, so a = -1 */
    assert_true(cs_target_distance(CS_TARGET_OSB, neg, 2) == 0.0);
    double mix[3] = {-2, -2, 1};   /* a = -2 leaves (0,0,1): 1/3 */
    assert_true(fabs(cs_target_distance(CS_TARGET_OSB, mix, 3) - 1.0 / 3.0) < 1e-15);
    assert_true(isnan(cs_target_distance(CS_TARGET_EIG, x, 4)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basins_bin_plane),
        cmocka_unit_test(test_basins_slice),
        cmocka_unit_test(test_constraint_slice),
        cmocka_unit_test(test_basins_osb_negative_axis),
        cmocka_unit_test(test_target_distance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
