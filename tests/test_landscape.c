/* test_landscape.c — engine/reg/landscape.c: grid values against the
 * regularizer evaluated in an independent loop and against closed forms,
 * the zero sets, slices, target sets, CSV/matrix outputs, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_landscape.h"
#include "cs_reg.h"

static cs_reg *make_reg(const char *name, const cs_param *p, size_t np)
{
    cs_reg *r;
    cs_err err;
    if (cs_reg_new(&r, name, p, np, 1, &err))
        fail_msg("cs_reg_new %s: %s", name, err.msg);
    return r;
}

static cs_landscape *compute(cs_reg *r, const cs_landscape_spec *s)
{
    cs_landscape *l;
    cs_err err;
    if (cs_landscape_new(&l, r, s, &err))
        fail_msg("cs_landscape_new: %s", err.msg);
    return l;
}

static double sq(double v) { return v * v; }

/* The closed forms of bin, osb, ter in 2D. */
static double bin2(double x, double y) { return sq(x * x - y * y); }
static double osb2(double x, double y) { return x * x * y * y * sq(x - y); }
static double ter2(double x, double y) { return x * x * y * y * sq(x * x - y * y); }

static void test_grid_coordinates(void **state)
{
    (void)state;
    cs_reg *r = make_reg("bin", NULL, 0);
    cs_landscape_spec s = {.x0 = -2, .x1 = 2, .y0 = -1, .y1 = 3, .nx = 201, .ny = 101};
    cs_landscape *l = compute(r, &s);
    assert_int_equal(l->nx, 201);
    assert_int_equal(l->ny, 101);
    assert_true(l->xs[0] == -2 && l->xs[200] == 2 && l->ys[0] == -1 && l->ys[100] == 3);
    for (size_t i = 0; i < 201; i++) {
        double want = -2 + 4.0 * (double)i / 200;
        assert_true(fabs(l->xs[i] - want) <= 1e-15 * 4);
        assert_true(l->xs[i] == -l->xs[200 - i]);   /* symmetric to the last bit */
    }
    assert_true(l->xs[100] == 0);
    for (size_t j = 0; j < 101; j++)
        assert_true(fabs(l->ys[j] - (-1 + 4.0 * (double)j / 100)) <= 1e-15 * 4);
    cs_landscape_free(l);
    cs_reg_free(r);
}

/* Every grid value equals cs_reg_eval at that point, and the closed form. */
static void check_values(const char *name, double (*closed)(double, double))
{
    cs_reg *r = make_reg(name, NULL, 0);
    cs_landscape_spec s = {.x0 = -1.5, .x1 = 2, .y0 = -2, .y1 = 1, .nx = 37, .ny = 29};
    cs_landscape *l = compute(r, &s);
    double zmin = INFINITY, zmax = -INFINITY;
    for (size_t j = 0; j < l->ny; j++)
        for (size_t i = 0; i < l->nx; i++) {
            double x = -1.5 + 3.5 * (double)i / 36, y = -2 + 3.0 * (double)j / 28;
            assert_true(fabs(x - l->xs[i]) <= 1e-15 * 2 && fabs(y - l->ys[j]) <= 1e-15 * 2);
            double v[2] = {l->xs[i], l->ys[j]}, z;
            cs_err err;
            assert_int_equal(cs_reg_eval(r, v, 1, 2, &z, NULL, &err), 0);
            double got = l->z[j * l->nx + i];
            assert_true(got == z);
            double want = closed(x, y);
            if (fabs(got - want) > 1e-12 * (1 + fabs(want)))
                fail_msg("%s(%g, %g) = %.17g, closed form %.17g", name, x, y, got, want);
            zmin = fmin(zmin, got);
            zmax = fmax(zmax, got);
        }
    assert_true(l->zmin == zmin && l->zmax == zmax);
    cs_landscape_free(l);
    cs_reg_free(r);
}

static void test_values_bin(void **state) { (void)state; check_values("bin", bin2); }
static void test_values_osb(void **state) { (void)state; check_values("osb", osb2); }
static void test_values_ter(void **state) { (void)state; check_values("ter", ter2); }

/* bin's zero set: the diagonals |x1| = |x2|, and nothing else. */
static void test_bin_zero_set(void **state)
{
    (void)state;
    cs_reg *r = make_reg("bin", NULL, 0);
    cs_landscape_spec s = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .nx = 201, .ny = 201};
    cs_landscape *l = compute(r, &s);
    assert_true(l->zmax == 16);   /* (x^2 - y^2)^2 at (+-2, 0) */
    double scale = l->zmax;
    for (size_t j = 0; j < 201; j++)
        for (size_t i = 0; i < 201; i++) {
            double z = l->z[j * 201 + i];
            if (i == j || i == 200 - j)
                assert_true(fabs(z) <= 1e-14 * scale);
            else   /* positive, and near the closed form even next to the origin */
                assert_true(z > 0 && z > 0.5 * bin2(l->xs[i], l->ys[j]));
        }
    assert_true(l->zmin == 0);
    assert_true(l->argmin[0] == -2 && l->argmin[1] == -2);
    cs_landscape_free(l);
    cs_reg_free(r);
}

/* osb's and ter's zero sets on the grid: the axes and the diagonal(s). */
static void test_osb_ter_zero_sets(void **state)
{
    (void)state;
    const char *names[2] = {"osb", "ter"};
    for (int t = 0; t < 2; t++) {
        cs_reg *r = make_reg(names[t], NULL, 0);
        cs_landscape_spec s = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .nx = 101, .ny = 101};
        cs_landscape *l = compute(r, &s);
        for (size_t j = 0; j < 101; j++)
            for (size_t i = 0; i < 101; i++) {
                double z = l->z[j * 101 + i];
                int on = i == 50 || j == 50 || i == j || (t == 1 && i == 100 - j);
                if (on)
                    assert_true(fabs(z) <= 1e-13 * l->zmax);
                else
                    assert_true(z > 0 && z > 0.5 * (t ? ter2 : osb2)(l->xs[i], l->ys[j]));
            }
        cs_landscape_free(l);
        cs_reg_free(r);
    }
}

/* A slice through X equals evaluating X with two coordinates replaced. */
static void test_slice(void **state)
{
    (void)state;
    cs_reg *r = make_reg("ter", NULL, 0);
    double X[5] = {0.5, -1, 2, 0.25, -0.75}, keep[5];
    memcpy(keep, X, sizeof X);
    cs_landscape_spec s = {.x0 = -1, .x1 = 1, .y0 = 0, .y1 = 3, .nx = 21, .ny = 16,
                           .at = X, .n = 5, .dims = {3, 1}};
    cs_landscape *l = compute(r, &s);
    assert_memory_equal(X, keep, sizeof X);
    for (size_t j = 0; j < l->ny; j++)
        for (size_t i = 0; i < l->nx; i++) {
            double v[5];
            memcpy(v, X, sizeof v);
            v[3] = -1 + 2.0 * (double)i / 20;
            v[1] = 3.0 * (double)j / 15;
            double z;
            cs_err err;
            assert_int_equal(cs_reg_eval(r, v, 1, 5, &z, NULL, &err), 0);
            double got = l->z[j * l->nx + i];
            assert_true(fabs(got - z) <= 1e-12 * (1 + fabs(z)));
            /* and bit-equal at the engine's own coordinates */
            v[3] = l->xs[i];
            v[1] = l->ys[j];
            assert_int_equal(cs_reg_eval(r, v, 1, 5, &z, NULL, &err), 0);
            assert_true(got == z);
        }
    cs_landscape_free(l);
    cs_reg_free(r);
}

static int has_segment(const cs_landscape *l, double ax, double ay, double bx, double by)
{
    for (size_t k = 0; k < l->ntarget; k++) {
        const cs_landscape_curve *c = &l->target[k];
        if (c->n != 2)
            continue;
        if ((c->x[0] == ax && c->y[0] == ay && c->x[1] == bx && c->y[1] == by) ||
            (c->x[0] == bx && c->y[0] == by && c->x[1] == ax && c->y[1] == ay))
            return 1;
    }
    return 0;
}

static int has_point(const cs_landscape *l, double x, double y)
{
    for (size_t k = 0; k < l->ntarget; k++)
        if (l->target[k].n == 1 && l->target[k].x[0] == x && l->target[k].y[0] == y)
            return 1;
    return 0;
}

static void test_targets_plane(void **state)
{
    (void)state;
    cs_landscape_spec s = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .nx = 5, .ny = 5};
    cs_reg *r = make_reg("bin", NULL, 0);
    cs_landscape *l = compute(r, &s);
    assert_int_equal(l->family, CS_TARGET_BIN);
    assert_int_equal(l->ntarget, 2);
    assert_true(has_segment(l, -2, -2, 2, 2) && has_segment(l, -2, 2, 2, -2));
    cs_landscape_free(l);
    cs_reg_free(r);

    r = make_reg("osb", NULL, 0);
    l = compute(r, &s);
    assert_int_equal(l->ntarget, 3);
    assert_true(has_segment(l, 0, -2, 0, 2) && has_segment(l, -2, 0, 2, 0) &&
                has_segment(l, -2, -2, 2, 2));
    cs_landscape_free(l);
    cs_reg_free(r);

    r = make_reg("ter", NULL, 0);
    l = compute(r, &s);
    assert_int_equal(l->ntarget, 4);
    assert_true(has_segment(l, 0, -2, 0, 2) && has_segment(l, -2, 0, 2, 0) &&
                has_segment(l, -2, -2, 2, 2) && has_segment(l, -2, 2, 2, -2));
    cs_landscape_free(l);
    cs_reg_free(r);

    /* clipped to a box that is not centred: x in [0.5, 3], y in [-1, 2] */
    r = make_reg("bin", NULL, 0);
    cs_landscape_spec s2 = {.x0 = 0.5, .x1 = 3, .y0 = -1, .y1 = 2, .nx = 5, .ny = 5};
    l = compute(r, &s2);
    assert_int_equal(l->ntarget, 2);
    assert_true(has_segment(l, 0.5, 0.5, 2, 2) && has_segment(l, 0.5, -0.5, 1, -1));
    cs_landscape_free(l);
    /* a box away from both diagonals: nothing to mark */
    cs_landscape_spec s3 = {.x0 = 1, .x1 = 2, .y0 = 3, .y1 = 4, .nx = 5, .ny = 5};
    l = compute(r, &s3);
    assert_int_equal(l->ntarget, 0);
    cs_landscape_free(l);
    cs_reg_free(r);
}

static void test_target_families(void **state)
{
    (void)state;
    struct { const char *name; cs_param p; size_t np; cs_target_family want; } cases[] = {
        {"binexp", {0}, 0, CS_TARGET_BIN}, {"l2l1", {0}, 0, CS_TARGET_BIN},
        {"l2l1h", {0}, 0, CS_TARGET_BIN}, {"holder", {0}, 0, CS_TARGET_BIN},
        {"holder", {"base", "osb"}, 1, CS_TARGET_OSB}, {"si", {"base", "ter"}, 1, CS_TARGET_TER},
        {"l1", {0}, 0, CS_TARGET_NONE}, {"linf", {0}, 0, CS_TARGET_NONE},
        {"eig", {"C", "1,2;3,4"}, 1, CS_TARGET_NONE}, {"fixed", {0}, 0, CS_TARGET_NONE},
        {"beta", {"beta", "learn"}, 1, CS_TARGET_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cs_reg *r = make_reg(cases[i].name, cases[i].np ? &cases[i].p : NULL, cases[i].np);
        if (cs_landscape_family(r) != cases[i].want)
            fail_msg("%s: family %d, want %d", cases[i].name, cs_landscape_family(r),
                     cases[i].want);
        cs_reg_free(r);
    }
}

/* The levels of bin, osb and ter. */
static const double LB[] = {-1, 1}, LO[] = {0, 1}, LT[] = {-1, 0, 1};

/* On a slice the other coordinates fix the scale: isolated points. */
static void test_targets_slice(void **state)
{
    (void)state;
    size_t d01[2] = {0, 1}, d20[2] = {2, 0};
    cs_landscape_curve c[CS_LANDSCAPE_MAX_TARGETS];
    double X1[3] = {9, 9, -1.5};
    assert_int_equal(cs_landscape_targets(LB, 2, X1, 3, d01, -2, 2, -2, 2, c), 4);
    for (size_t k = 0; k < 4; k++)
        assert_true(c[k].n == 1 && fabs(c[k].x[0]) == 1.5 && fabs(c[k].y[0]) == 1.5);
    double X2[4] = {1, 2, 0, 0};   /* |1| != |2|: no point of the slice is a target */
    assert_int_equal(cs_landscape_targets(LB, 2, X2, 4, (size_t[2]){2, 3}, -2, 2, -2, 2,
                                          c), 0);
    double X3[3] = {0, 7, 2};      /* osb: others {2}: points {0,2}^2, (2,2) on the edge */
    assert_int_equal(cs_landscape_targets(LO, 2, X3, 3, d01, -2, 2, -2, 2, c), 4);
    assert_int_equal(cs_landscape_targets(LO, 2, X3, 3, d01, -2, 1.9, -2, 2, c), 2);
    double X4[4] = {0, 0, 5, 0};   /* ter, others all 0: the 2D lines */
    assert_int_equal(cs_landscape_targets(LT, 3, X4, 4, d20, -2, 2, -2, 2, c), 4);
    double X5[4] = {0, -1, 5, 1};  /* ter, others 0, -1, 1 (dims 2, 0): {-1,0,1}^2 */
    assert_int_equal(cs_landscape_targets(LT, 3, X5, 4, d20, -2, 2, -2, 2, c), 9);
    double X6[3] = {5, 5, 0};      /* bin, others 0: only the origin */
    assert_int_equal(cs_landscape_targets(LB, 2, X6, 3, d01, -2, 2, -2, 2, c), 1);
    assert_true(c[0].n == 1 && c[0].x[0] == 0 && c[0].y[0] == 0);
    assert_int_equal(cs_landscape_targets(NULL, 0, NULL, 2, d01, -2, 2, -2, 2, c), 0);
    /* any levels: four give the lines of slopes ±1, ±3 and ±1/3, steepest first */
    static const double L4[] = {-3, -1, 1, 3};
    assert_int_equal(cs_landscape_targets(L4, 4, NULL, 2, d01, -3, 3, -3, 3, c), 6);
    double slopes[6] = {3, 1, 1.0 / 3, -1.0 / 3, -1, -3};
    for (size_t k = 0; k < 6; k++)
        assert_true(fabs((c[k].y[1] - c[k].y[0]) / (c[k].x[1] - c[k].x[0]) - slopes[k]) < 1e-15);
    /* and on a slice with the others at 1 and -3: a = ±1, points {-3,-1,1,3}^2 */
    double X7[4] = {1, 0, -3, 0};
    assert_int_equal(cs_landscape_targets(L4, 4, X7, 4, (size_t[2]){1, 3}, -4, 4, -4, 4, c), 16);

    /* through the engine: a slice of bin at (1, x, -1, y) marks (+-1, +-1) */
    cs_reg *r = make_reg("bin", NULL, 0);
    double X[4] = {1, 0, -1, 0};
    cs_landscape_spec s = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .nx = 5, .ny = 5,
                           .at = X, .n = 4, .dims = {1, 3}};
    cs_landscape *l = compute(r, &s);
    assert_int_equal(l->ntarget, 4);
    assert_true(has_point(l, 1, 1) && has_point(l, -1, 1) && has_point(l, 1, -1) &&
                has_point(l, -1, -1));
    /* and the value there is 0 */
    assert_true(l->z[3 * 5 + 3] == 0 && l->z[1 * 5 + 1] == 0);
    cs_landscape_free(l);
    cs_reg_free(r);
}

static void expect_error(cs_reg *r, const cs_landscape_spec *s, int code, const char *needle)
{
    cs_landscape *l = (cs_landscape *)1;
    cs_err err = {0};
    int rc = cs_landscape_new(&l, r, s, &err);
    if (rc != code || !strstr(err.msg, needle))
        fail_msg("rc %d (want %d), message '%s' (want '%s')", rc, code, err.msg, needle);
    assert_null(l);
}

static void test_errors(void **state)
{
    (void)state;
    cs_reg *r = make_reg("bin", NULL, 0);
    cs_landscape_spec ok = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .nx = 11, .ny = 11};
    cs_landscape_spec s = ok;
    s.nx = 2;
    expect_error(r, &s, CS_EINVAL, "resolution 2 along x is out of range [3, 2001]");
    s = ok;
    s.ny = 2002;
    expect_error(r, &s, CS_EINVAL, "out of range [3, 2001]");
    s = ok;
    s.x0 = 2;
    expect_error(r, &s, CS_EINVAL, "x range 2:2 is empty");
    s = ok;
    s.y1 = NAN;
    expect_error(r, &s, CS_ENONFINITE, "y range is not finite");
    s = ok;
    s.x1 = INFINITY;
    expect_error(r, &s, CS_ENONFINITE, "x range is not finite");
    s = ok;
    s.x0 = 1, s.x1 = 1 + 1e-15, s.nx = 2001;
    expect_error(r, &s, CS_EINVAL, "too narrow for 2001 points");
    double X[3] = {1, 2, 3};
    s = ok;
    s.at = X, s.n = 3, s.dims[0] = 0, s.dims[1] = 3;
    expect_error(r, &s, CS_EDIM, "coordinate 4 is out of range [1, 3]");
    s.dims[1] = 0;
    expect_error(r, &s, CS_EINVAL, "both 1");
    s.n = 1, s.dims[1] = 1;
    expect_error(r, &s, CS_EDIM, "at least 2");
    double Y[3] = {1, NAN, 3};
    s = ok;
    s.at = Y, s.n = 3, s.dims[0] = 0, s.dims[1] = 2;
    expect_error(r, &s, CS_ENONFINITE, "X[2] is not finite");
    /* values that overflow: named by their coordinates */
    s = ok;
    s.x0 = -1e100, s.x1 = 1e100;
    cs_landscape *l;
    cs_err err;
    int rc = cs_landscape_new(&l, r, &s, &err);
    assert_true(rc < 0);
    assert_non_null(strstr(err.msg, "landscape: bin at (-1e+100, -2)"));
    cs_reg_free(r);

    /* a matrix regularizer */
    r = make_reg("om", NULL, 0);
    expect_error(r, &ok, CS_EUNSUPPORTED, "om takes a matrix argument");
    cs_reg_free(r);

    /* the regularizer's own dimension error, at the first point */
    cs_param C = {"C", "1,0,0;0,1,0;0,0,1"};
    r = make_reg("eig", &C, 1);
    rc = cs_landscape_new(&l, r, &ok, &err);
    assert_true(rc < 0);
    assert_non_null(strstr(err.msg, "landscape: eig at (-2, -2): "));
    /* but a slice through a 3-vector works */
    double Z[3] = {1, 0, 0};
    s = ok;
    s.at = Z, s.n = 3, s.dims[0] = 1, s.dims[1] = 2;
    l = compute(r, &s);
    cs_landscape_free(l);
    cs_reg_free(r);
}

static void test_cancel(void **state)
{
    (void)state;
    cs_reg *r = make_reg("bin", NULL, 0);
    cs_cancel flag = 1;
    cs_landscape_spec s = {.x0 = -2, .x1 = 2, .y0 = -2, .y1 = 2, .nx = 11, .ny = 11,
                           .cancel = &flag};
    expect_error(r, &s, CS_ECANCEL, "interrupted");
    cs_reg_free(r);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static void test_csv_and_matrix(void **state)
{
    (void)state;
    char dir[] = "/tmp/cs_landscape_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char csv[256], txt[256];
    snprintf(csv, sizeof csv, "%s/l.csv", dir);
    snprintf(txt, sizeof txt, "%s/l.txt", dir);
    cs_reg *r = make_reg("osb", NULL, 0);
    cs_landscape_spec s = {.x0 = -1, .x1 = 2, .y0 = -0.3, .y1 = 0.7, .nx = 7, .ny = 4};
    cs_landscape *l = compute(r, &s);
    cs_err err;
    const char *prov = "# seed: 7\n# command: landscape out=l.csv\n";
    assert_int_equal(cs_landscape_write_csv(l, csv, prov, NULL, &err), 0);
    assert_int_equal(cs_landscape_write_matrix(l, txt, NULL, &err), 0);

    /* CSV: header, the preamble (how it was made), then y outer, x inner;
     * every number reads back exactly */
    char *text = slurp(csv);
    assert_non_null(text);
    assert_memory_equal(text, "x,y,value\n# seed: 7\n# command: landscape out=l.csv\n-1,-0.3,",
                        59);
    char *p = strstr(text, "l.csv\n") + 6;
    size_t rows = 0;
    for (size_t j = 0; j < 4; j++)
        for (size_t i = 0; i < 7; i++) {
            char *end;
            double x = strtod(p, &end);
            assert_int_equal(*end, ',');
            double y = strtod(end + 1, &end);
            assert_int_equal(*end, ',');
            double z = strtod(end + 1, &end);
            assert_int_equal(*end, '\n');
            p = end + 1;
            assert_true(x == l->xs[i] && y == l->ys[j] && z == l->z[j * 7 + i]);
            assert_true(fabs(z - osb2(x, y)) <= 1e-12 * (1 + fabs(z)));
            rows++;
        }
    assert_int_equal(rows, 28);
    assert_int_equal(*p, '\0');
    free(text);

    /* matrix: a comment line, then 4 rows of 7 numbers */
    text = slurp(txt);
    assert_non_null(text);
    assert_string_equal(strstr(text, "# 4 rows: y = -0.3 .. 0.7; 7 columns: x = -1 .. 2\n"),
                        text);
    p = strchr(text, '\n') + 1;
    for (size_t j = 0; j < 4; j++) {
        for (size_t i = 0; i < 7; i++) {
            char *end;
            double z = strtod(p, &end);
            assert_true(end > p);
            assert_true(z == l->z[j * 7 + i]);
            assert_int_equal(*end, i + 1 < 7 ? ' ' : '\n');
            p = end + 1;
        }
    }
    assert_int_equal(*p, '\0');
    free(text);

    /* Ctrl-C while writing: the write stops and the file stays as it was */
    cs_cancel stop = 1;
    assert_int_equal(cs_landscape_write_csv(l, txt, NULL, &stop, &err), CS_ECANCEL);
    assert_non_null(strstr(err.msg, "interrupted while writing"));
    assert_int_equal(cs_landscape_write_matrix(l, csv, &stop, &err), CS_ECANCEL);
    text = slurp(txt);
    assert_non_null(strstr(text, "# 4 rows"));
    free(text);
    text = slurp(csv);
    assert_memory_equal(text, "x,y,value\n", 10);
    free(text);

    /* missing folders are made; a write that cannot happen (a file where a
     * folder should be) leaves nothing behind */
    char deep[300], bad[300];
    snprintf(deep, sizeof deep, "%s/new/dir/l.csv", dir);
    assert_int_equal(cs_landscape_write_csv(l, deep, NULL, NULL, &err), 0);
    assert_int_equal(unlink(deep), 0);
    snprintf(deep, sizeof deep, "%s/new/dir", dir);
    assert_int_equal(rmdir(deep), 0);
    snprintf(deep, sizeof deep, "%s/new", dir);
    assert_int_equal(rmdir(deep), 0);
    snprintf(bad, sizeof bad, "%s/l.csv/l.csv", dir);
    assert_true(cs_landscape_write_csv(l, bad, NULL, NULL, &err) < 0);
    assert_non_null(strstr(err.msg, "is not a folder"));
    cs_landscape_free(l);
    cs_reg_free(r);
    unlink(csv);
    unlink(txt);
    assert_int_equal(rmdir(dir), 0);   /* empty: no temporary files left */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_coordinates),
        cmocka_unit_test(test_values_bin),
        cmocka_unit_test(test_values_osb),
        cmocka_unit_test(test_values_ter),
        cmocka_unit_test(test_bin_zero_set),
        cmocka_unit_test(test_osb_ter_zero_sets),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_targets_plane),
        cmocka_unit_test(test_target_families),
        cmocka_unit_test(test_targets_slice),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_csv_and_matrix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
