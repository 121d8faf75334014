/* test_problem.c — problem generators, G-set reader, MAX-CUT cut values. */
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

#include "cs_problem.h"

static const char *gset_dir(void)
{
    static const char *cands[] = {"sessions/data/gset", "../../sessions/data/gset"};
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/G10.txt", cands[i]);
        if (access(p, R_OK) == 0)
            return cands[i];
    }
    return NULL;
}

static cs_problem *make(const char *kind, size_t N, size_t M, size_t K, uint64_t stream)
{
    cs_problem_spec sp = {.N = N, .M = M, .K = K};
    assert_int_equal(cs_problem_kind_parse(kind, &sp.kind, NULL), 0);
    cs_problem *p = NULL;
    cs_err err;
    int rc = cs_problem_new(&p, &sp, 11, stream, &err);
    if (rc)
        fail_msg("cs_problem_new(%s): %s", kind, err.msg);
    return p;
}

/* b = A x* recomputed by hand. */
static void check_b(const cs_problem *p)
{
    size_t N = cs_problem_N(p), M = cs_problem_M(p), K = cs_problem_cols(p);
    const double *A = cs_problem_A(p), *b = cs_problem_b(p), *x = cs_problem_xstar(p);
    for (size_t i = 0; i < M; i++)
        for (size_t k = 0; k < K; k++) {
            double s = 0.0;
            for (size_t j = 0; j < N; j++)
                s += A[i * N + j] * x[j * K + k];
            assert_true(fabs(s - b[i * K + k]) < 1e-10 * (1.0 + fabs(s)));
        }
}

static void test_discrete_kinds(void **state)
{
    (void)state;
    const char *kinds[] = {"bin", "osb", "ter", "2bit"};
    for (size_t k = 0; k < 4; k++) {
        cs_problem *p = make(kinds[k], 100, 40, 0, k);
        assert_int_equal(cs_problem_N(p), 100);
        assert_int_equal(cs_problem_M(p), 40);
        assert_int_equal(cs_problem_cols(p), 1);
        assert_string_equal(cs_problem_kind_name(cs_problem_kind(p)), kinds[k]);
        check_b(p);
        const double *x = cs_problem_xstar(p);
        for (size_t i = 0; i < 100; i++) {
            double v = x[i];
            if (k == 0)
                assert_true(v == 1.0 || v == -1.0);
            else if (k == 1)
                assert_true(v == 0.0 || v == 1.0);
            else if (k == 2)
                assert_true(v == 0.0 || v == 1.0 || v == -1.0);
            else
                assert_true(v == 1.0 || v == -1.0 || v == 3.0 || v == -3.0);
        }
        if (k == 3)
            assert_null(cs_problem_affine(p));
        else
            assert_non_null(cs_problem_affine(p));
        /* rel err of x* is 0 */
        assert_true(cs_problem_rel_err(p, x) == 0.0);
        cs_problem_free(p);
    }
}

static void test_statistics(void **state)
{
    (void)state;
    /* ter: P(−1) = P(1) = .25, P(0) = .5 over 40000 entries (±5σ) */
    cs_problem *p = make("ter", 40000, 1, 0, 99);
    const double *x = cs_problem_xstar(p);
    long c[3] = {0, 0, 0};
    for (size_t i = 0; i < 40000; i++)
        c[(int)x[i] + 1]++;
    double n = 40000.0;
    assert_true(fabs(c[0] / n - 0.25) < 5 * sqrt(0.25 * 0.75 / n));
    assert_true(fabs(c[1] / n - 0.50) < 5 * sqrt(0.25 / n));
    assert_true(fabs(c[2] / n - 0.25) < 5 * sqrt(0.25 * 0.75 / n));
    cs_problem_free(p);
    /* bin and osb balanced */
    p = make("bin", 40000, 1, 0, 98);
    x = cs_problem_xstar(p);
    double s = 0.0;
    for (size_t i = 0; i < 40000; i++)
        s += x[i];
    assert_true(fabs(s / n) < 5 / sqrt(n));
    cs_problem_free(p);
    /* A is standard normal */
    p = make("bin", 1000, 200, 0, 97);
    const double *A = cs_problem_A(p);
    double m = 0.0, v = 0.0;
    for (size_t i = 0; i < 200000; i++)
        m += A[i];
    m /= 200000.0;
    for (size_t i = 0; i < 200000; i++)
        v += (A[i] - m) * (A[i] - m);
    v /= 200000.0;
    assert_true(fabs(m) < 0.02 && fabs(v - 1.0) < 0.02);
    cs_problem_free(p);
}

static void test_sparse_K(void **state)
{
    (void)state;
    for (size_t K = 1; K <= 100; K += 33) {
        for (int kind = 0; kind < 2; kind++) {
            cs_problem *p = make(kind ? "ter" : "osb", 100, 75, K, K * 7 + (size_t)kind);
            const double *x = cs_problem_xstar(p);
            size_t nz = 0, pos = 0;
            for (size_t i = 0; i < 100; i++) {
                nz += x[i] != 0.0;
                pos += x[i] > 0.0;
                assert_true(x[i] == 0.0 || x[i] == 1.0 || (kind && x[i] == -1.0));
            }
            assert_int_equal(nz, K);
            if (!kind)
                assert_int_equal(pos, K);
            assert_int_equal(cs_problem_K(p), K);
            check_b(p);
            cs_problem_free(p);
        }
    }
}

static void test_eig_orth(void **state)
{
    (void)state;
    cs_problem *p = make("eig", 30, 12, 0, 5);
    size_t N = 30;
    const double *C = cs_problem_C(p), *x = cs_problem_xstar(p);
    double nx = 0.0, lam = 0.0;
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++)
            assert_true(C[i * N + j] == C[j * N + i]);
    for (size_t i = 0; i < N; i++) {
        nx += x[i] * x[i];
        double cx = 0.0;
        for (size_t j = 0; j < N; j++)
            cx += C[i * N + j] * x[j];
        lam += x[i] * cx;
    }
    assert_true(fabs(nx - 1.0) < 1e-12);
    for (size_t i = 0; i < N; i++) {
        double cx = 0.0;
        for (size_t j = 0; j < N; j++)
            cx += C[i * N + j] * x[j];
        assert_true(fabs(cx - lam * x[i]) < 1e-10);
    }
    check_b(p);
    cs_problem_free(p);

    p = make("orth", 20, 8, 0, 6);
    assert_int_equal(cs_problem_cols(p), 20);
    const double *X = cs_problem_xstar(p);
    assert_true(cs_problem_orth_err(p, X) < 1e-12);
    check_b(p);
    /* a non-orthogonal X has a positive error */
    double *Y = malloc(400 * sizeof *Y);
    for (size_t i = 0; i < 400; i++)
        Y[i] = 2.0 * X[i];
    assert_true(fabs(cs_problem_orth_err(p, Y) - sqrt(9.0 * 20 / 20)) < 1e-9);
    free(Y);
    cs_problem_free(p);
    p = make("orth", 10, 5, 4, 7);
    assert_int_equal(cs_problem_cols(p), 4);
    assert_true(cs_problem_orth_err(p, cs_problem_xstar(p)) < 1e-12);
    check_b(p);
    cs_problem_free(p);
}

static void test_determinism(void **state)
{
    (void)state;
    cs_problem *a = make("bin", 50, 20, 0, 1), *b = make("bin", 50, 20, 0, 1);
    cs_problem *c = make("bin", 50, 20, 0, 2);
    assert_memory_equal(cs_problem_A(a), cs_problem_A(b), 1000 * sizeof(double));
    assert_memory_equal(cs_problem_xstar(a), cs_problem_xstar(b), 50 * sizeof(double));
    assert_true(memcmp(cs_problem_A(a), cs_problem_A(c), 1000 * sizeof(double)) != 0);
    cs_problem_free(a), cs_problem_free(b), cs_problem_free(c);
}

static void test_problem_errors(void **state)
{
    (void)state;
    cs_problem *p;
    cs_err err;
    cs_problem_spec sp = {.kind = CS_PROB_BIN, .N = 10, .M = 20};
    assert_int_equal(cs_problem_new(&p, &sp, 1, 1, &err), CS_EDIM);
    assert_string_equal(err.key, "M");
    sp = (cs_problem_spec){.kind = CS_PROB_COUNT, .N = 10, .M = 5};
    assert_int_equal(cs_problem_new(&p, &sp, 1, 1, &err), CS_EINVAL);
    sp = (cs_problem_spec){.kind = CS_PROB_BIN, .N = 10, .M = 5, .K = 3};
    assert_int_equal(cs_problem_new(&p, &sp, 1, 1, &err), CS_EINVAL);
    assert_string_equal(err.key, "K");
    sp = (cs_problem_spec){.kind = CS_PROB_OSB, .N = 10, .M = 5, .K = 11};
    assert_int_equal(cs_problem_new(&p, &sp, 1, 1, &err), CS_EDIM);
    assert_string_equal(err.key, "K");
    sp = (cs_problem_spec){.kind = CS_PROB_BIN, .N = 10, .M = 0};
    assert_int_equal(cs_problem_new(&p, &sp, 1, 1, &err), CS_EINVAL);
    sp = (cs_problem_spec){.kind = CS_PROB_MAXCUT};
    assert_int_equal(cs_problem_new(&p, &sp, 1, 1, &err), CS_EINVAL);
    assert_string_equal(err.key, "graph");
    assert_null(p);
}

/* Brute-force max cut over all sign vectors. */
static double brute_max_cut(const cs_graph *g)
{
    size_t n = cs_graph_nodes(g);
    double best = -INFINITY, x[16];
    for (unsigned long m = 0; m < (1ul << n); m++) {
        for (size_t i = 0; i < n; i++)
            x[i] = (m >> i) & 1 ? 1.0 : -1.0;
        best = fmax(best, cs_graph_cut(g, x));
    }
    return best;
}

static void test_builtin_graphs_cut(void **state)
{
    (void)state;
    cs_graph *g;
    cs_err err;
    assert_int_equal(cs_graph_builtin(&g, "toy5", &err), 0);
    assert_int_equal(cs_graph_nodes(g), 5);
    assert_int_equal(cs_graph_edges(g), 7);
    assert_true(brute_max_cut(g) == 3.0 && cs_graph_known_best(g) == 3.0);
    double s5[5] = {-1, 1, -1, -1, 1};
    assert_true(cs_graph_cut(g, s5) == 3.0);
    cs_graph_free(g);
    assert_int_equal(cs_graph_builtin(&g, "toy4", &err), 0);
    assert_true(brute_max_cut(g) == 120.0 && cs_graph_known_best(g) == 120.0);
    /* cut by hand: x = (1,1,−1,−1) cuts 13 (20), 14 (30), 24 (40) = 90 */
    double s4[4] = {1, 1, -1, -1};
    assert_true(cs_graph_cut(g, s4) == 90.0);
    /* gradient of ℓ_MC against central differences at a continuous point */
    double x[4] = {0.3, -0.7, 0.1, 0.9}, gr[4];
    cs_graph_cut_grad(g, x, gr);
    for (size_t i = 0; i < 4; i++) {
        double xp[4], xm[4];
        memcpy(xp, x, sizeof x);
        memcpy(xm, x, sizeof x);
        xp[i] += 1e-6;
        xm[i] -= 1e-6;
        double fd = (cs_graph_cut(g, xp) - cs_graph_cut(g, xm)) / 2e-6;
        assert_true(fabs(fd - gr[i]) < 1e-6);
    }
    cs_graph_free(g);
    assert_int_equal(cs_graph_builtin(&g, "nope", &err), CS_ENOTFOUND);
}

static void test_gset_reader(void **state)
{
    (void)state;
    const char *dir = gset_dir();
    if (!dir)
        skip();
    char path[512];
    snprintf(path, sizeof path, "%s/G10.txt", dir);
    cs_graph *g;
    cs_err err;
    assert_int_equal(cs_graph_read(&g, path, &err), 0);
    assert_int_equal(cs_graph_nodes(g), 800);
    assert_int_equal(cs_graph_edges(g), 19176);
    assert_true(cs_graph_known_best(g) == 2000.0);
    assert_string_equal(cs_graph_name(g), "G10");
    /* all on one side: cut 0; x and −x cut the same */
    double *x = malloc(800 * sizeof *x), *gr = malloc(800 * sizeof *gr);
    for (size_t i = 0; i < 800; i++)
        x[i] = 1.0;
    assert_true(cs_graph_cut(g, x) == 0.0);
    for (size_t i = 0; i < 800; i++)
        x[i] = (i * 7919 % 13) < 6 ? 1.0 : -1.0;
    double c1 = cs_graph_cut(g, x);
    for (size_t i = 0; i < 800; i++)
        x[i] = -x[i];
    assert_true(cs_graph_cut(g, x) == c1);
    /* ℓ_MC(x) = ½Σw − ½·(−2)·½xᵀ∇... : ℓ_MC(x) = ½Σ_e w_e + ½ xᵀ∇ℓ_MC(x) */
    cs_graph_cut_grad(g, x, gr);
    double wsum = 0.0;
    {
        double ones[800];
        for (size_t i = 0; i < 800; i++)
            ones[i] = 0.0;
        wsum = 2.0 * cs_graph_cut(g, ones); /* ℓ_MC(0) = ½Σw */
    }
    double xg = 0.0;
    for (size_t i = 0; i < 800; i++)
        xg += x[i] * gr[i];
    assert_true(fabs(c1 - (0.5 * wsum + 0.5 * xg)) < 1e-9);
    free(x);
    free(gr);
    cs_graph_free(g);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_gset_bad_files(void **state)
{
    (void)state;
    char path[] = "/tmp/csreg_test_gsetXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
#define NUL_GRAPH "3 2 2\n1 2 1\n2 3 1\0garbage\n"
    struct {
        const char *text;
        int code;
        const char *needle;
        size_t len;   /* 0: strlen(text) */
    } cases[] = {
        {"", CS_EIO, "empty", 0},
        {"abc\n", CS_EINVAL, "header", 0},
        {"3 2 1\n1 2 1\n", CS_EINVAL, "ends after 1 of 2", 0},
        {"3 1 1\n1 2 1\n2 3 1\n", CS_EINVAL, "more edges", 0},
        {"3 1 1\n1 4 1\n", CS_EINVAL, "out of range", 0},
        {"3 1 1\n2 2 1\n", CS_EINVAL, "self-loop", 0},
        {"3 1 1\n1 2 x\n", CS_EINVAL, ":2:", 0},
        {"3 1 1\n1 2\n", CS_EINVAL, "expected", 0},
        {"2.5 1 1\n1 2 1\n", CS_EINVAL, "whole", 0},
        /* a node that is no integer says so, not "out of range" */
        {"3 1 1\n1.5 2 1\n", CS_EINVAL, ":2: node 1.5 is not an integer", 0},
        {"3 1 1\n1 3.25 1\n", CS_EINVAL, ":2: node 3.25 is not an integer", 0},
        /* garbage after the last edge */
        {"3 1 1\n1 2 1\njunk\n", CS_EINVAL, ":3: expected", 0},
        {NUL_GRAPH, CS_EINVAL, ":3: a NUL byte at column 6", sizeof NUL_GRAPH - 1},
        /* weights whose cut overflows: refused, never "cut inf" */
        {"3 2 2\n1 2 1e308\n2 3 1e308\n", CS_ENONFINITE, ":2: edge weight 1e+308", 0},
        {"3 2 2\n1 2 6e307\n2 3 6e307\n", CS_ENONFINITE, ":3: edge weight 6e+307", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *o = fopen(path, "w");
        assert_non_null(o);
        fwrite(cases[i].text, 1, cases[i].len ? cases[i].len : strlen(cases[i].text), o);
        fclose(o);
        cs_graph *g = NULL;
        cs_err err;
        assert_int_equal(cs_graph_read(&g, path, &err), cases[i].code);
        assert_null(g);
        if (!strstr(err.msg, cases[i].needle))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].needle);
    }
    /* a good small file, with a blank line at the end */
    write_file(path, "3 2 2\n1 2 1\n2 3 1\n\n");
    cs_graph *g;
    cs_err err;
    assert_int_equal(cs_graph_read(&g, path, &err), 0);
    assert_true(brute_max_cut(g) == 2.0);
    cs_graph_free(g);
    unlink(path);
    assert_int_equal(cs_graph_read(&g, "/nonexistent/G99.txt", &err), CS_EIO);
}

static void test_maxcut_problem(void **state)
{
    (void)state;
    cs_problem_spec sp = {.kind = CS_PROB_MAXCUT, .graph = "toy4"};
    cs_problem *p;
    cs_err err;
    assert_int_equal(cs_problem_new(&p, &sp, 1, 1, &err), 0);
    assert_int_equal(cs_problem_N(p), 4);
    assert_null(cs_problem_A(p));
    assert_null(cs_problem_xstar(p));
    assert_non_null(cs_problem_graph(p));
    cs_problem_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_discrete_kinds),  cmocka_unit_test(test_statistics),
        cmocka_unit_test(test_sparse_K),        cmocka_unit_test(test_eig_orth),
        cmocka_unit_test(test_determinism),     cmocka_unit_test(test_problem_errors),
        cmocka_unit_test(test_builtin_graphs_cut), cmocka_unit_test(test_gset_reader),
        cmocka_unit_test(test_gset_bad_files),  cmocka_unit_test(test_maxcut_problem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
