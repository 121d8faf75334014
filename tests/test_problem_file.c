/* test_problem_file.c — your own problem in, every number out: `problem
 * file`, `problem save`, `solve out=`, `x out=`, `eval PATH`, `trace
 * iterates=`, `basins ends=`, basins on a problem without x*, the
 * journal's SHA-256 of each file read, `solve x0=`, `solve start=i,j` and
 * `sweep problems=`. */
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

#include "cs_array_io.h"
#include "cs_sha256.h"
#include "interp_util.h"

static int setup(void **state)
{
    *state = fixture_new(1, 5, 2, 1);
    return *state ? 0 : -1;
}
#define teardown fixture_teardown

/* The file the sandbox maps name to: its base name in the private folder. */
static char *in_dir(fixture *f, const char *name)
{
    const char *slash = strrchr(name, '/');
    name = slash ? slash + 1 : name;
    static char p[4][2048];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", f->dir, name);
    return p[k];
}

static void read_arr(fixture *f, const char *name, cs_array *a)
{
    cs_err err;
    if (cs_array_read(in_dir(f, name), a, &err))
        fail_msg("%s: %s", name, err.msg);
}

static void write_arr(fixture *f, const char *name, const cs_array *a)
{
    cs_err err;
    if (cs_array_write(in_dir(f, name), a, &err))
        fail_msg("%s: %s", name, err.msg);
}

/* The session's problem as the prompt shows it. */
static void assert_prompt_has(fixture *f, const char *want)
{
    char buf[512];
    cs_interp_prompt(f->in, buf, sizeof buf);
    if (!strstr(buf, want))
        fail_msg("prompt '%s' lacks '%s'", buf, want);
}

static void assert_same_file(fixture *f, const char *a, const char *b)
{
    size_t la, lb;
    char *x = slurp(in_dir(f, a), &la), *y = slurp(in_dir(f, b), &lb);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(la, lb);
    assert_memory_equal(x, y, la);
    free(x);
    free(y);
}

/* A drawn problem saved, loaded back, solved: the same run bit for bit, in
 * every format; without x* it still succeeds by what it measures. */
static void test_round_trip(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=40 M=25");
    const char *r = ok(f, "problem save dir=d");
    assert_non_null(strstr(r, "\"files\":\"A.npy b.npy xstar.npy\""));
    ok(f, "problem save dir=dc format=csv");
    fails(f, "problem save dir=d", "exists", -1);
    ok(f, "problem save dir=d force=on");
    r = ok(f, "solve out=x1.npy");
    double e1 = jnum(r, "rel_err"), it1 = jnum(r, "iters");
    assert_true(jnum(r, "success") == 1.0);
    assert_true(e1 < 1e-2);

    r = ok(f, "problem file A=d/A.npy b=d/b.npy xstar=d/xstar.npy");
    assert_true(jnum(r, "has_xstar") == 1.0);
    assert_true(jnum(r, "N") == 40.0 && jnum(r, "M") == 25.0);
    r = ok(f, "solve out=x2.npy");
    assert_true(jnum(r, "rel_err") == e1);
    assert_true(jnum(r, "iters") == it1);
    assert_same_file(f, "x1.npy", "x2.npy");

    ok(f, "problem file A=dc/A.csv b=dc/b.csv xstar=dc/xstar.csv");
    ok(f, "solve out=x3.npy");
    assert_same_file(f, "x1.npy", "x3.npy");

    if (cs_array_have_mat()) {
        ok(f, "problem bin N=40 M=25");
        ok(f, "problem save dir=dm format=mat");
        ok(f, "problem file A=dm/problem.mat:A b=dm/problem.mat:b xstar=dm/problem.mat:xstar");
        ok(f, "solve out=x4.npy");
        assert_same_file(f, "x1.npy", "x4.npy");
    }

    /* without x*: judged by the residual and the target set */
    r = ok(f, "problem file A=d/A.npy b=d/b.npy");
    assert_true(jnum(r, "has_xstar") == 0.0);
    r = ok(f, "solve");
    assert_true(jnum(r, "success") == 1.0);
    assert_true(jnum(r, "residual") < 1e-8);
    assert_true(jnum(r, "target_dist") < 1e-6);
    assert_true(fabs(jnum(r, "scale") - 1.0) < 1e-6);
}

/* Every bad input names its file and leaves the problem before it. */
static void test_bad_inputs(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=40 M=25");
    ok(f, "problem save dir=d");
    cs_array A, b;
    read_arr(f, "d/A.npy", &A);
    read_arr(f, "d/b.npy", &b);
    ok(f, "problem osb N=10 M=5");

    cs_array b24 = {24, 1, b.data};
    write_arr(f, "b24.csv", &b24);
    fails(f, "problem file A=d/A.npy b=b24.csv", "b24.csv: A is 25x40, b has 24 entries", -1);
    fails(f, "problem file A=d/A.npy b=d/b.npy xstar=b24.csv",
          "b24.csv: x* has 24 entries, A has N = 40 columns", -1);
    cs_array wide = {5, 5, A.data};
    write_arr(f, "wide.csv", &wide);
    fails(f, "problem file A=d/A.npy b=wide.csv", "expected a vector", -1);

    double keep = A.data[3 * 40 + 7];
    A.data[3 * 40 + 7] = NAN;
    write_arr(f, "Anan.npy", &A);
    fails(f, "problem file A=Anan.npy b=d/b.npy", "Anan.npy: row 4, column 8 is NaN", -1);
    A.data[3 * 40 + 7] = keep;

    write_arr(f, "At.npy", &A);
    assert_int_equal(truncate(in_dir(f, "At.npy"), 500), 0);
    fails(f, "problem file A=At.npy b=d/b.npy", "At.npy: truncated", -1);

    /* dependent rows and a b outside the range */
    memcpy(A.data + 5 * 40, A.data + 4 * 40, 40 * sizeof *A.data);
    b.data[5] = b.data[4] + 0.3;
    write_arr(f, "Ar.npy", &A);
    write_arr(f, "br.npy", &b);
    fails(f, "problem file A=Ar.npy b=br.npy", "A has rank 24 < M = 25 and b is not in its range",
          -1);
    /* the same rows with a consistent b are fine: 24 independent rows */
    b.data[5] = b.data[4];
    write_arr(f, "br2.npy", &b);
    ok(f, "problem osb N=10 M=5");

    fails(f, "problem file A=d/A.npy", "needs A=PATH and b=PATH", -1);
    fails(f, "problem file A=nosuch.npy b=d/b.npy", "nosuch.npy", -1);
    fails(f, "problem file A=d/A.npy b=d/b.npy N=3", "N= is not a key of problem file", -1);
    fails(f, "problem file A=d/A.npy b=d/b.npy kind=eig", "eig needs C", -1);
    fails(f, "problem file A=d/A.npy b=d/b.npy C=d/A.npy", "C is for eig, not bin", -1);
    fails(f, "problem bin N=10 A=d/A.npy", "A= is not a key of a drawn problem", -1);
    assert_prompt_has(f, "osb N=10 M=5");

    const char *r = ok(f, "problem file A=Ar.npy b=br2.npy");
    assert_true(jnum(r, "M") == 25.0);
    assert_prompt_has(f, "bin N=40 M=25");
    cs_array_free(&A);
    cs_array_free(&b);
}

/* x out= in three formats reads back the same doubles; x0= is the start. */
static void test_x_out(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=30 M=20");
    ok(f, "solve maxit=7");
    ok(f, "x out=x.csv");
    ok(f, "x out=x.npy");
    ok(f, "x out=x.json");
    cs_array c, n;
    read_arr(f, "x.csv", &c);
    read_arr(f, "x.npy", &n);
    assert_int_equal(c.rows, 30);
    assert_int_equal(n.rows * n.cols, 30);
    assert_memory_equal(c.data, n.data, 30 * sizeof *c.data);
    char *j = slurp(in_dir(f, "x.json"), NULL);
    assert_non_null(j);
    assert_non_null(strstr(j, "{\"x\": ["));
    char *p = j + strlen("{\"x\": [");
    for (size_t i = 0; i < 30; i++) {
        double v = strtod(p, &p);
        assert_true(v == c.data[i]);
        p += strspn(p, ", ");
    }
    free(j);

    /* x0=: the first start of solve, as given */
    ok(f, "problem save dir=d");
    for (size_t i = 0; i < 30; i++)
        c.data[i] = (double)i / 10.0;
    write_arr(f, "x0.csv", &c);
    ok(f, "problem file A=d/A.npy b=d/b.npy xstar=d/xstar.npy x0=x0.csv");
    ok(f, "step n=0");
    ok(f, "x out=start.npy");
    cs_array s;
    read_arr(f, "start.npy", &s);
    assert_memory_equal(s.data, c.data, 30 * sizeof *c.data);
    fails(f, "problem file A=d/A.npy b=d/b.npy x0=d/b.npy", "x0 has 20 entries", -1);
    cs_array_free(&s);
    cs_array_free(&c);
    cs_array_free(&n);
}

/* basins without x*: the plane (N = 2) works; a slice (N > 2) needs x* or
 * its centre at= (a list or a file): at=x* maps exactly what x* does. */
static void test_basins_without_xstar(void **state)
{
    fixture *f = *state;
    double a[2] = {0.8, -0.3}, bv[1] = {0.8 * 1 - 0.3 * -1};
    cs_array A = {1, 2, a}, b = {1, 1, bv};
    write_arr(f, "A2.csv", &A);
    write_arr(f, "b2.csv", &b);
    ok(f, "problem file A=A2.csv b=b2.csv");
    const char *r = ok(f, "basins res=9");
    double total = 0.0;
    const char *names[] = {"success", "other", "spurious", "not_converged"};
    for (int k = 0; k < 4; k++) {
        double v = jnum(r, names[k]);
        assert_false(isnan(v));
        total += v;
    }
    assert_true(total == 81.0);

    ok(f, "problem bin N=12 M=8");
    ok(f, "problem save dir=d");
    ok(f, "problem file A=d/A.npy b=d/b.npy");
    fails(f, "basins res=5", "has no x*: give the centre of the slice (at=", -1);
    fails(f, "basins res=5 at=1,2,3", "at=: a vector of N = 12 entries (got 1x3)", 14);
    fails(f, "basins res=5 at=1,2,x", "malformed number 'x'", 21);
    r = ok(f, "basins res=5 dims=3,4 maxit=300 at=d/xstar.npy ends=blind.npy");
    {   /* the centre's file is journaled with its digest */
        size_t n = cs_interp_journal_len(f->in);
        assert_true(n > 0);
        assert_non_null(strstr(cs_interp_journal_line(f->in, n - 1), " sha256="));
    }
    /* judged without x* (its stop rule, the normalized residual, runs on):
     * every start ends on the target set here */
    assert_true(jnum(r, "success") + jnum(r, "other") == 25.0);
    ok(f, "problem file A=d/A.npy b=d/b.npy xstar=d/xstar.npy");
    r = ok(f, "basins res=5 dims=3,4 maxit=300 ends=seen.npy");
    assert_true(jnum(r, "success") >= 1.0);
    /* a centre typed out: the slice through it */
    cs_array xs;
    read_arr(f, "d/xstar.npy", &xs);
    char line[1024] = "basins res=5 dims=3,4 maxit=300 ends=typed.npy at=";
    for (size_t i = 0; i < 12; i++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s%.17g", i ? "," : "",
                 xs.data[i]);
    cs_array_free(&xs);
    ok(f, line);
    assert_same_file(f, "typed.npy", "seen.npy");
    r = ok(f, "basins res=5 dims=3,4 maxit=300 at=0,0,0,0,0,0,0,0,0,0,0,0 ends=zero.npy");
    assert_true(jnum(r, "starts") == 25.0);
}

/* eval PATH: the regularizer on a vector from a file, as on typed numbers. */
static void test_eval_file(void **state)
{
    fixture *f = *state;
    ok(f, "reg bin");
    double v[3] = {0.5, 2.0, -1.0};
    cs_array a = {3, 1, v}, row = {1, 3, v};
    write_arr(f, "v.csv", &a);
    write_arr(f, "v.npy", &row);
    double typed = jnum(ok(f, "eval 0.5,2,-1"), "value");
    assert_false(isnan(typed));
    assert_true(jnum(ok(f, "eval v.csv"), "value") == typed);
    assert_true(jnum(ok(f, "eval v.npy"), "value") == typed);
    fails(f, "eval nosuch.npy", "nosuch.npy", -1);
}

/* The FIPS 180-2 / NIST example vectors. */
static void test_sha256_vectors(void **state)
{
    (void)state;
    char hex[65];
    cs_sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    cs_sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    cs_sha256_hex(two, strlen(two), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* a million 'a', fed in uneven pieces */
    cs_sha256_ctx c;
    unsigned char d[32], a[997];
    memset(a, 'a', sizeof a);
    cs_sha256_init(&c);
    size_t left = 1000000;
    while (left) {
        size_t n = left < sizeof a ? left : sizeof a;
        cs_sha256_update(&c, a, n);
        left -= n;
    }
    cs_sha256_final(&c, d);
    assert_int_equal(d[0], 0xcd);
    assert_int_equal(d[1], 0xc7);
    assert_int_equal(d[31], 0xd0);
}

/* The journal records each file's digest; a replay of a changed file is
 * refused naming it. */
static void test_journal_hash(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=20 M=10");
    ok(f, "problem save dir=d");
    ok(f, "problem file A=d/A.npy b=d/b.npy");
    char hexA[65], hexb[65];
    cs_err err;
    assert_int_equal(cs_sha256_file(in_dir(f, "A.npy"), hexA, &err), 0);
    assert_int_equal(cs_sha256_file(in_dir(f, "b.npy"), hexb, &err), 0);
    size_t n = cs_interp_journal_len(f->in);
    char want[512];
    snprintf(want, sizeof want, "problem file A=d/A.npy b=d/b.npy sha256=%s,%s", hexA, hexb);
    assert_string_equal(cs_interp_journal_line(f->in, n - 1), want);
    /* the recorded line replays */
    ok(f, want);
    assert_string_equal(cs_interp_journal_line(f->in, cs_interp_journal_len(f->in) - 1), want);
    /* b changes: refused, naming it */
    cs_array b;
    read_arr(f, "b.npy", &b);
    b.data[0] += 1e-9;
    write_arr(f, "b.npy", &b);
    cs_array_free(&b);
    fails(f, want, "d/b.npy changed since the session was recorded", -1);
}

/* trace iterates=: a row per iteration, the last the iterate; basins
 * ends=: every end point with all its coordinates. */
static void test_iterates_and_ends(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=12 M=8");
    ok(f, "step n=5");
    const char *r = ok(f, "trace iterates=it.npy");
    assert_true(jnum(r, "iterate_rows") == 5.0);
    ok(f, "x out=x5.npy");
    r = ok(f, "solve");
    double iters = jnum(r, "iters");
    ok(f, "x out=x.npy");
    r = ok(f, "trace out=t.csv iterates=it.npy");
    assert_true(jnum(r, "iterate_rows") == jnum(r, "records"));
    assert_true(jnum(r, "records") >= iters);
    cs_array it, x, x5;
    read_arr(f, "it.npy", &it);
    read_arr(f, "x.npy", &x);
    read_arr(f, "x5.npy", &x5);
    assert_int_equal(it.cols, 12);
    assert_memory_equal(it.data + (it.rows - 1) * 12, x.data, 12 * sizeof *x.data);
    assert_memory_equal(it.data + 4 * 12, x5.data, 12 * sizeof *x.data);
    fails(f, "trace rules iterates=it.npy", "not iterates=", -1);

    r = ok(f, "basins res=5 dims=3,4 ends=e.npy");
    cs_array e;
    read_arr(f, "e.npy", &e);
    assert_int_equal(e.rows, 25);
    assert_int_equal(e.cols, 12);
    if (jnum(r, "success") == 25.0)
        for (size_t k = 0; k < 25 * 12; k++)
            assert_true(fabs(fabs(e.data[k]) - 1.0) < 0.1);
    cs_array_free(&e);
    cs_array_free(&it);
    cs_array_free(&x);
    cs_array_free(&x5);
}

/* solve x0= / step x0=: a new run from the vector in the file; a vector of
 * the wrong size is refused, naming the file, and the run stays. */
static void test_solve_x0(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=30 M=20");
    ok(f, "problem save dir=d");
    cs_array c = {0};
    assert_int_equal(cs_array_alloc(&c, 30, 1, &(cs_err){0}), 0);
    for (size_t i = 0; i < 30; i++)
        c.data[i] = 0.25 - (double)i / 40.0;
    write_arr(f, "x0.npy", &c);
    ok(f, "step x0=x0.npy n=0");
    ok(f, "x out=s.npy");
    cs_array s;
    read_arr(f, "s.npy", &s);
    assert_memory_equal(s.data, c.data, 30 * sizeof *c.data);
    cs_array_free(&s);
    const char *r = ok(f, "solve x0=x0.npy");
    assert_true(jnum(r, "success") == 1.0);
    double it = jnum(r, "iters");
    ok(f, "x out=x1.npy");
    /* the same start again: the same run, bit for bit */
    r = ok(f, "solve x0=x0.npy");
    assert_true(jnum(r, "iters") == it);
    ok(f, "x out=x2.npy");
    assert_same_file(f, "x1.npy", "x2.npy");
    fails(f, "solve x0=d/b.npy", "d/b.npy: x0 is 20x1, the problem has N = 30", -1);
    fails(f, "step x0=nope.npy", "nope.npy", -1);
    ok(f, "x out=x3.npy");
    assert_same_file(f, "x1.npy", "x3.npy");
    cs_array_free(&c);
}

/* solve start=i,j replays cell (i, j) of the last basins map: it ends on
 * row j*res + i of basins ends=, bit for bit. */
static void test_solve_start(void **state)
{
    fixture *f = *state;
    ok(f, "problem bin N=12 M=8");
    fails(f, "solve start=1,1", "no basins map", -1);
    ok(f, "basins res=5 dims=3,4 maxit=300 ends=e.npy");
    cs_array e, x;
    read_arr(f, "e.npy", &e);
    assert_int_equal(e.rows, 25);
    const size_t cells[3][2] = {{2, 3}, {0, 4}, {4, 1}};
    for (size_t c = 0; c < 3; c++) {
        char cmd[64];
        size_t i = cells[c][0], j = cells[c][1], row = j * 5 + i;
        snprintf(cmd, sizeof cmd, "solve start=%zu,%zu out=x.npy", i, j);
        const char *r = ok(f, cmd);
        assert_true(jnum(r, "restarts") == 1.0);
        read_arr(f, "x.npy", &x);
        assert_int_equal(x.rows * x.cols, 12);
        assert_memory_equal(x.data, e.data + row * 12, 12 * sizeof *x.data);
        /* and not some other cell's end (the ends differ in their last bits) */
        size_t same = 0;
        for (size_t k = 0; k < 25; k++)
            same += !memcmp(x.data, e.data + k * 12, 12 * sizeof *x.data);
        assert_true(same < 25);
        cs_array_free(&x);
    }
    fails(f, "solve start=5,0", "each 0 to 4", -1);
    fails(f, "solve start=1", "a cell i,j", -1);
    fails(f, "solve start=1,1 maxit=5", "replays the basins map's run", -1);
    ok(f, "problem bin N=12 M=8");
    fails(f, "solve start=1,1", "no basins map", -1);
    cs_array_free(&e);
}

/* The CSV field k (0-based) of line as a number. */
static double csv_field(const char *line, int k)
{
    for (int i = 0; i < k; i++) {
        line = strchr(line, ',');
        assert_non_null(line);
        line++;
    }
    return strtod(line, NULL);
}

/* sweep problems='DIR/GLOB': one row per folder and method, each the run
 * `problem file` then `solve reg=METHOD` gives (folders need no sandbox). */
static void test_sweep_problems(void **state)
{
    fixture *sb = *state;
    fails(sb, "sweep problems=d/* out=s.csv", "sandbox", -1);
    char dir[] = "/tmp/csreg_sweepXXXXXX", cmd[1024];
    assert_non_null(mkdtemp(dir));
    fixture *f = fixture_new(1, 5, 2, 0);
    assert_non_null(f);
    snprintf(cmd, sizeof cmd, "sweep problems=%s/* out=%s/s.csv", dir, dir);
    fails(f, cmd, "no folder matches", -1);
    const char *draws[3] = {"problem bin N=30 M=20", "problem bin N=30 M=12 trial=2",
                            "problem bin N=20 M=15"};
    for (int k = 0; k < 3; k++) {
        ok(f, draws[k]);
        snprintf(cmd, sizeof cmd, "problem save dir=%s/p%d%s", dir, k + 1,
                 k == 1 ? " format=csv" : "");
        ok(f, cmd);
    }
    snprintf(cmd, sizeof cmd, "sweep problems=%s/p* methods=bin,linf out=%s/s.csv", dir, dir);
    const char *r = ok(f, cmd);
    assert_true(jnum(r, "folders") == 3.0 && jnum(r, "rows") == 6.0);
    snprintf(cmd, sizeof cmd, "problem file A=%s/p1/A.npy b=%s/p1/b.npy xstar=%s/p1/xstar.npy",
             dir, dir, dir);
    ok(f, cmd);
    double e_bin = jnum(ok(f, "solve reg=bin"), "rel_err");
    double e_linf = jnum(ok(f, "solve reg=linf"), "rel_err");
    snprintf(cmd, sizeof cmd, "%s/s.csv", dir);
    FILE *csv = fopen(cmd, "r");
    assert_non_null(csv);
    char line[1024];
    int n = 0;
    int prov = 0;
    while (fgets(line, sizeof line, csv)) {
        if (line[0] == '#') {   /* how it was made, after the header */
            assert_int_equal(n, 1);
            prov += !strncmp(line, "# command: sweep problems=", 26);
            continue;
        }
        if (n == 0)
            assert_string_equal(line,
                                "folder,method,N,M,has_xstar,success,rel_err,residual,iters\n");
        if (n == 1 || n == 2) {   /* p1: bin, then linf */
            assert_non_null(strstr(line, n == 1 ? "/p1,bin,30,20,1,1," : "/p1,linf,30,20,1,1,"));
            assert_true(csv_field(line, 6) == (n == 1 ? e_bin : e_linf));
        }
        if (n == 3)   /* M = 12 of N = 30: too few measurements */
            assert_non_null(strstr(line, "/p2,bin,30,12,1,0,"));
        if (n == 5)
            assert_non_null(strstr(line, "/p3,bin,20,15,1,"));
        n++;
    }
    fclose(csv);
    assert_int_equal(n, 7);
    assert_int_equal(prov, 1);
    fixture_teardown((void **)&f);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_x_out, setup, teardown),
        cmocka_unit_test_setup_teardown(test_basins_without_xstar, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eval_file, setup, teardown),
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test_setup_teardown(test_iterates_and_ends, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_hash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_solve_x0, setup, teardown),
        cmocka_unit_test_setup_teardown(test_solve_start, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_problems, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
