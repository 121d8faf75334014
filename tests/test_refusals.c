/* test_refusals.c — refusals that are cheap and say what is wrong (issue
 * #39, items 5-7): a `reg define` refused for the session's limit costs no
 * level analysis; si's overflow is called overflow; g or h never finite is
 * called that, not "proportional"; a sweep journal compares effective
 * settings (maxit=0 is the kind's 10000); a checkpoint's bad quantization
 * is named; forged batch-norm variances (correct CRC, CSNN and .npz) are
 * refused; graph files take decimal numbers only, subnormals included,
 * and name the bad token. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "cli_util.h"
#include "cs_nn.h"
#include "cs_npz.h"
#include "cs_problem.h"
#include "cs_reg.h"
#include "cs_sweep_journal.h"
#include "interp_util.h"
#include "nn_internal.h"
#include "nn_util.h"
#include "method_util.h"

/* ---- 5: refusing a definition over the session's limit is cheap ---- */

static void test_define_limit_refused_cheaply(void **state)
{
    (void)state;
    cs_reg_defs_reset();
    cs_reg_def_spec s;
    cs_err err;
    char name[32];
    for (int i = 0; i < CS_REG_DEFINE_MAX; i++) {
        cs_reg_def_spec_init(&s);
        snprintf(name, sizeof name, "d%d", i);
        s.name = name;
        s.g = "x";
        s.h = "1";
        if (cs_reg_define(&s, NULL, NULL, &err))
            fail_msg("definition %d: %s", i, err.msg);
    }
    /* each of these takes ~30 ms of level analysis when accepted: refused
     * before it, 200 of them take well under a second (before: 6 s) */
    cs_reg_def_spec_init(&s);
    s.g = "sin(x)*exp(-x^2)+tanh(x^3)-x^0.7";
    s.h = "cos(x)+abs(x)^1.5";
    double t0 = cli_now();
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "over%d", i);
        s.name = i % 2 ? name : "d7";   /* a replacement counts too */
        assert_int_equal(cs_reg_define(&s, NULL, NULL, &err), CS_ENOMEM);
        assert_non_null(strstr(err.msg, "too many definitions in one session (1000"));
        assert_string_equal(err.key, "name");
    }
    double dt = cli_now() - t0;
    print_message("200 refusals: %.4f s\n", dt);
    assert_true(dt < 0.5);
    /* the built-in names are refused first, as before */
    s.name = "bin";
    assert_int_equal(cs_reg_define(&s, NULL, NULL, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "built-in"));
    /* after a reset the registry takes definitions again */
    cs_reg_defs_reset();
    assert_null(cs_reg_lookup("d7"));
    s.name = "again";
    assert_int_equal(cs_reg_define(&s, NULL, NULL, &err), CS_OK);
    assert_non_null(cs_reg_lookup("again"));
    cs_reg_defs_reset();
}

/* ---- 6: messages that say what is wrong ---- */

/* si at r = 1e6: |<g,h>|^r + eps underflows at the rescaled point; the
 * value (||g|| ||h|| / |<g,h>|)^r overflows. It said "<g,h> = 0 here". */
static void test_si_overflow_named(void **state)
{
    (void)state;
    fixture *f = fixture_new(0, 1, 1, 0);
    ok(f, "reg si r=1e6 eps=1");
    fails(f, "eval 1,2,3", "si: the value overflows a double here (about 10^88046 at r=1e+06",
          -1);
    ok(f, "reg si r=1e6 eps=0");
    fails(f, "eval 1,2,3", "overflows a double here (about 10^88046", -1);
    /* where <g,h> is 0 (osb: g = x^2, h = x; 1 - 1 = 0) and eps = 0, it is
     * still that */
    ok(f, "reg si base=osb eps=0");
    fails(f, "eval 1,-1", "si: <g,h> = 0 here, so the value is undefined (use eps > 0)", -1);
    /* on the target set the value underflows with the denominator: not an overflow */
    ok(f, "reg si base=osb r=1000 eps=1e-300");
    fails(f, "eval 1,1,0", "|<g,h>|^r + eps underflows to 0 here at r=1000", -1);
    /* a moderate r still evaluates */
    ok(f, "reg si r=2 eps=1");
    const char *out = ok(f, "eval 1,2,3");
    assert_non_null(strstr(out, "value: "));
    fixture_free(f);
}

/* g never finite, or never finite and nonzero: said so, with the term and
 * the point; it said "g and h are proportional". */
static void test_define_never_finite(void **state)
{
    (void)state;
    fixture *f = fixture_new(0, 1, 1, 0);
    fails(f, "reg define a g=x/0 h=x",
          "g is not finite at any point tried (x/0 is Inf at x = -1.7): the regularizer would "
          "be undefined everywhere", 14);
    fails(f, "reg define a g=1/(x-x) h=x",
          "g is not finite at any point tried (1/(x-x) is Inf at x = -1.7)", 14);
    fails(f, "reg define a g=x^1e308 h=x",
          "g is 0 or not finite at every point tried (0 at x = -0.6; x^1e308 is Inf at x = "
          "-1.7): the regularizer would be 0 or undefined everywhere", 14);
    fails(f, "reg define a g=x h=log(-x-10)",
          "h is not finite at any point tried (log(-x-10) is NaN at x = -1.7)", 18);
    fails(f, "reg define a g=0*x h=x", "g is 0 at every point tried", 14);
    fails(f, "reg define a g=x h=0", "h is 0 at every point tried", 18);
    fails(f, "reg define a g=log(x) h=log(-x)",
          "g and h are never both finite at a point tried", -1);
    /* truly proportional stays that */
    fails(f, "reg define a g=2*x h=x", "g and h are proportional (g = c*h)", 20);
    /* g finite at some points only is a regularizer */
    ok(f, "reg define lg g=log(x) h=1");
    /* products of huge or tiny values that overflow or underflow do not make
     * x and x^2 proportional (both were refused so) */
    const char *out = ok(f, "reg define big g=1e200*x h=1e200*x^2");
    assert_non_null(strstr(out, "target: {0,+a}^N for any a"));   /* as g=x h=x^2 */
    ok(f, "reg define tiny g=1e-200*x h=1e-200*x^2");
    fixture_free(f);
    cs_reg_defs_reset();
}

static const double grid3[] = {0.3, 0.5};

static cs_sweep_spec journal_spec(long maxit, int restarts)
{
    static cs_method mv[1];
    static const char *const m[] = {"bin"};
    methods_of(m, 1, mv);
    cs_sweep_spec sp = {.kind = CS_PROB_BIN, .N = 20, .axis = CS_AXIS_GAMMA, .values = grid3,
                        .nvalues = 2, .methods = mv, .nmethods = 1, .trials = 4, .threads = 1,
                        .seed = 5};
    sp.solve.maxit = maxit;
    sp.solve.restarts = restarts;
    return sp;
}

static int resume_with(const char *path, cs_sweep_spec sp, cs_err *err)
{
    cs_sweep_journal *j = NULL;
    int rc = cs_sweep_journal_open(&j, path, &sp, 1, err);
    if (!rc)
        rc = cs_sweep_journal_close(j, err);
    return rc;
}

/* A journal of a sweep without maxit= (0: the kind's 10000) resumed with
 * maxit=10000 given: the same settings. It said "maxit 0 vs 10000". */
static void test_journal_effective_settings(void **state)
{
    (void)state;
    char path[] = "/tmp/csreg_rel3_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    cs_err err;
    const cs_kind_defaults *kd = cs_kind_defaults_of(CS_PROB_BIN);
    assert_int_equal(kd->maxit, 10000);
    cs_sweep_spec sp = journal_spec(0, 0);
    cs_sweep_journal *j;
    assert_int_equal(cs_sweep_journal_open(&j, path, &sp, 0, &err), CS_OK);
    assert_int_equal(cs_sweep_journal_close(j, &err), CS_OK);
    assert_int_equal(resume_with(path, journal_spec(10000, 0), &err), CS_OK);
    assert_int_equal(resume_with(path, journal_spec(0, kd->starts), &err), CS_OK);
    assert_int_equal(resume_with(path, journal_spec(10000, kd->starts), &err), CS_OK);
    /* a real difference is refused, named with the effective value */
    assert_int_equal(resume_with(path, journal_spec(500, 0), &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "is for maxit 10000, this sweep has maxit 500"));
    assert_int_equal(resume_with(path, journal_spec(0, 3), &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "is for restarts 10, this sweep has restarts 3"));
    /* the other way round: written with the defaults given, resumed without */
    sp = journal_spec(10000, kd->starts);
    assert_int_equal(cs_sweep_journal_open(&j, path, &sp, 0, &err), CS_OK);
    assert_int_equal(cs_sweep_journal_close(j, &err), CS_OK);
    assert_int_equal(resume_with(path, journal_spec(0, 0), &err), CS_OK);
    close(fd);
    remove(path);
}

/* ---- checkpoints ---- */

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *o = fopen(path, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(data, 1, n, o), n);
    fclose(o);
}

/* The CRC at the end of a CSNN file made right again. */
static void fix_crc(unsigned char *data, size_t len)
{
    put_u32(data + len - 4, (uint32_t)crc32(0L, data, (uInt)(len - 4)));
}

/* Offset of weight layer 0's quant in a CSNN file (nn_io.c's layout). */
static size_t quant_offset(const unsigned char *d)
{
    uint32_t version = get_u32(d + 4);
    size_t p = 16 + 4 * CS_NN_MAX_HIDDEN;
    if (version >= 2)
        p += 4 + 4 * CS_NN_MAX_CONV + 4 + 4;
    uint32_t nt = get_u32(d + p);
    p += 4 + (size_t)nt * (24 + 8);
    return p + 8 + 4;   /* nbufs, nwl */
}

/* quant=3: "layer fc1 is 784x16 in the file, the model needs 784x16". */
static void test_checkpoint_bad_quant_named(void **state)
{
    (void)state;
    fixture *f = fixture_new(0, 1, 1, 1);
    char path[256];
    snprintf(path, sizeof path, "%s/q.csnn", f->dir);
    cs_nn *nn = nn_tiny(CS_NN_MLP, 3);
    cs_err err;
    assert_int_equal(cs_nn_save(nn, path, 1, NULL, &err), CS_OK);
    cs_nn_free(nn);
    size_t len;
    unsigned char *d = (unsigned char *)slurp(path, &len);
    size_t q = quant_offset(d);
    assert_int_equal(get_u32(d + q), 0);
    put_u32(d + q, 3);
    fix_crc(d, len);
    write_file(path, d, len);
    free(d);
    assert_int_equal(cs_nn_load(&nn, path, "cpu", &err), CS_EINVAL);
    assert_null(nn);
    if (!strstr(err.msg, "q.csnn: layer fc1 has quantization 3 in the file (0: none, 1: "
                         "binary, 2: ternary)"))
        fail_msg("%s", err.msg);
    assert_null(strstr(err.msg, "shape mismatch"));
    fails(f, "load model q.csnn", "layer fc1 has quantization 3", -1);
    fixture_free(f);
}

/* The first batch norm's running variance of channel c, at its offset in
 * a CSNN file of nn (no quantized layers: the buffers end the data). */
static size_t var_offset(const cs_nn *nn, size_t len, int c, const char **bn)
{
    static char name[32];
    for (int i = 0; i < nn->nlayers; i++)
        if (nn->layer[i].type == NN_BN) {
            nn_module_name(nn, i, name, sizeof name);
            *bn = name;
            return len - 4 - nn->nbufs * sizeof(float) +
                   (nn->layer[i].boff + (size_t)nn->layer[i].C + (size_t)c) * sizeof(float);
        }
    fail_msg("no batch norm");
    return 0;
}

/* A forged variance (CRC made right) loaded and gave chance accuracy. */
static void test_checkpoint_negative_variance(void **state)
{
    (void)state;
    fixture *f = fixture_new(0, 1, 1, 1);
    char path[256];
    snprintf(path, sizeof path, "%s/bn.csnn", f->dir);
    cs_nn *nn = nn_tiny(CS_NN_CNN, 4);
    cs_err err;
    assert_int_equal(cs_nn_save(nn, path, 1, NULL, &err), CS_OK);
    size_t len;
    unsigned char *d = (unsigned char *)slurp(path, &len);
    const char *bn;
    size_t off = var_offset(nn, len, 2, &bn);
    float v;
    memcpy(&v, d + off, 4);
    assert_true(v >= 0.0f);   /* a real variance there */
    float neg = -0.5f;
    memcpy(d + off, &neg, 4);
    fix_crc(d, len);
    write_file(path, d, len);
    cs_nn *back = NULL;
    assert_int_equal(cs_nn_load(&back, path, "cpu", &err), CS_EINVAL);
    assert_null(back);
    char want[160];
    snprintf(want, sizeof want, "bn.csnn: batch norm %s: the running variance of channel 2 "
             "is -0.5 (a variance is >= 0)", bn);
    if (!strstr(err.msg, want))
        fail_msg("'%s' lacks '%s'", err.msg, want);
    fails(f, "load model bn.csnn", "the running variance of channel 2 is -0.5", -1);
    /* a variance of 0 is a variance */
    float zero = 0.0f;
    memcpy(d + off, &zero, 4);
    fix_crc(d, len);
    write_file(path, d, len);
    assert_int_equal(cs_nn_load(&back, path, "cpu", &err), CS_OK);
    cs_nn_free(back);
    free(d);
    cs_nn_free(nn);
    fixture_free(f);
}

/* The same forgery in an .npz (its entries' CRCs are the ZIP's: rewritten). */
static void test_npz_negative_variance(void **state)
{
    (void)state;
    fixture *f = fixture_new(0, 1, 1, 1);
    char path[256];
    snprintf(path, sizeof path, "%s/bn.npz", f->dir);
    cs_nn *nn = nn_tiny(CS_NN_CNN, 4);
    cs_err err;
    assert_int_equal(cs_nn_save(nn, path, 1, NULL, &err), CS_OK);
    cs_nn_free(nn);
    size_t len, count;
    unsigned char *d = (unsigned char *)slurp(path, &len);
    cs_npz_array *a;
    assert_int_equal(cs_npz_read(d, len, "bn.npz", (size_t)1 << 24, &a, &count, &err), CS_OK);
    free(d);
    cs_zip_writer z = {0};
    int forged = 0;
    for (size_t i = 0; i < count; i++) {
        if (!forged && strstr(a[i].name, "running_var")) {
            a[i].v[1] = -2.0;
            forged = 1;
        }
        void *buf = malloc(a[i].n * 8 + 1);
        for (size_t k = 0; k < a[i].n; k++) {
            if (a[i].dtype == CS_NPZ_F32)
                ((float *)buf)[k] = (float)a[i].v[k];
            else if (a[i].dtype == CS_NPZ_I64)
                ((int64_t *)buf)[k] = (int64_t)a[i].v[k];
            else if (a[i].dtype == CS_NPZ_I32)
                ((int32_t *)buf)[k] = (int32_t)a[i].v[k];
            else if (a[i].dtype == CS_NPZ_I8)
                ((int8_t *)buf)[k] = (int8_t)a[i].v[k];
            else
                fail_msg("%s: dtype %d", a[i].name, (int)a[i].dtype);
        }
        cs_npz_put(&z, a[i].name, a[i].dtype, a[i].shape, a[i].ndim, buf);
        free(buf);
    }
    assert_true(forged);
    const unsigned char *out;
    size_t n;
    assert_int_equal(cs_zip_finish(&z, &out, &n, &err), CS_OK);
    write_file(path, out, n);
    cs_zip_writer_free(&z);
    cs_npz_free(a, count);
    cs_nn *back = NULL;
    assert_int_equal(cs_nn_load(&back, path, "cpu", &err), CS_EINVAL);
    assert_null(back);
    if (!strstr(err.msg, "the running variance of channel 1 is -2 (a variance is >= 0)"))
        fail_msg("%s", err.msg);
    fixture_free(f);
}

/* ---- graph files: decimal numbers, subnormals included, the token named ---- */

static void graph_text(const char *path, const char *text)
{
    write_file(path, text, strlen(text));
}

static void test_graph_numbers(void **state)
{
    (void)state;
    fixture *f = fixture_new(0, 1, 1, 1);
    char path[256];
    snprintf(path, sizeof path, "%s/g.txt", f->dir);
    cs_graph *g;
    cs_err err;
    /* a subnormal weight is a number (it was "expected `i j w`") */
    graph_text(path, "2 1\n1 2 1e-320\n");
    assert_int_equal(cs_graph_read(&g, path, &err), CS_OK);
    double x[2] = {1.0, -1.0};
    assert_true(cs_graph_cut(g, x) == 1e-320);
    cs_graph_free(g);
    ok(f, "problem maxcut graph=g.txt");
    /* hex was read as 16: refused, the token and the field named */
    graph_text(path, "3 2\n1 2 0x10\n2 3 1\n");
    assert_int_equal(cs_graph_read(&g, path, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "g.txt:2: expected `i j w`, decimal numbers: w: malformed "
                                     "number '0x10'"));
    fails(f, "problem maxcut graph=g.txt", "w: malformed number '0x10'", -1);
    graph_text(path, "3 2\n1 2 1\n0x2 3 1\n");
    assert_int_equal(cs_graph_read(&g, path, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "g.txt:3: expected `i j w`, decimal numbers: i: malformed "
                                     "number '0x2'"));
    graph_text(path, "3 2\n1 2 inf\n2 3 1\n");
    assert_int_equal(cs_graph_read(&g, path, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "g.txt:2: expected `i j w`, decimal numbers: w: 'inf' is "
                                     "not a finite number"));
    graph_text(path, "3 2\n1 2 1e999\n2 3 1\n");
    assert_int_equal(cs_graph_read(&g, path, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "g.txt:2: expected `i j w`, decimal numbers: w: number "
                                     "'1e999' is out of range"));
    graph_text(path, "3 2 0x5\n1 2 1\n2 3 1\n");
    assert_int_equal(cs_graph_read(&g, path, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "g.txt:1: malformed header (expected `nodes edges best`, "
                                     "decimal numbers): best: malformed number '0x5'"));
    /* a missing weight is still the shape's fault */
    graph_text(path, "3 2\n1 2\n2 3 1\n");
    assert_int_equal(cs_graph_read(&g, path, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "g.txt:2: expected `i j w`"));
    assert_null(strstr(err.msg, "decimal"));
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_define_limit_refused_cheaply),
        cmocka_unit_test(test_si_overflow_named),
        cmocka_unit_test(test_define_never_finite),
        cmocka_unit_test(test_journal_effective_settings),
        cmocka_unit_test(test_checkpoint_bad_quant_named),
        cmocka_unit_test(test_checkpoint_negative_variance),
        cmocka_unit_test(test_npz_negative_variance),
        cmocka_unit_test(test_graph_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
