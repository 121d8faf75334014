/* test_array_io.c — arrays in and out of CSV, .npy, .mtx and .mat
 * (cs_array_io.h): every format written and read back bit for bit; NumPy
 * (Debian's /usr/bin/python3) writing .npy 1.0-3.0, float64/float32, both
 * byte orders, C and Fortran order, 0-D to 2-D for csreg to read, and
 * reading what csreg writes; hand-written Matrix Market files; .mat files
 * of every version libmatio writes (v4, v5, v7, v7.3), sparse included;
 * and each bad input's message. scipy is not installed, so .mtx and .mat
 * are checked against libmatio and hand-written files, not against Python. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_array_io.h"

#if defined(__has_include)
#if __has_include(<matio.h>)
#define HAVE_MATIO_H 1
#include <dlfcn.h>
#include <matio.h>
/* libmatio's own functions, to write the files csreg reads: opened with
 * dlopen as the engine does (array_mat.c), so no test links it */
static void *matio;
#define MX(f) ((__typeof__(&f))dlsym(matio, #f))
#endif
#endif

#define PYTHON "/usr/bin/python3"

static char dir[64];

/* dir/name, in one of 8 rotating buffers */
static const char *P(const char *name)
{
    static char buf[8][256];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void write_text(const char *path, const char *text)
{
    write_file(path, text, strlen(text));
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* a equals rows x cols of want (row-major), bit for bit */
static void assert_array(const cs_array *a, size_t rows, size_t cols, const double *want,
                         const char *what)
{
    if (a->rows != rows || a->cols != cols)
        fail_msg("%s: %zux%zu, want %zux%zu", what, a->rows, a->cols, rows, cols);
    for (size_t k = 0; k < rows * cols; k++)
        if (!same_bits(a->data[k], want[k]))
            fail_msg("%s: entry %zu is %.17g, want %.17g", what, k, a->data[k], want[k]);
}

/* read spec, expecting error code and a message containing each of the
 * substrings; the array stays empty */
static void expect_read_error(const char *spec, int code, const char *sub1, const char *sub2)
{
    cs_array a = {.rows = 9, .cols = 9, .data = NULL};
    cs_err err;
    cs_err_clear(&err);
    int rc = cs_array_read(spec, &a, &err);
    if (rc != code || !strstr(err.msg, sub1) || (sub2 && !strstr(err.msg, sub2)))
        fail_msg("%s: rc %d, message '%s'; want rc %d with '%s'%s%s", spec, rc, err.msg, code,
                 sub1, sub2 ? " and " : "", sub2 ? sub2 : "");
    assert_null(a.data);
    assert_int_equal(a.rows, 0);
    assert_int_equal(a.cols, 0);
}

static void read_ok(const char *spec, cs_array *a)
{
    cs_err err;
    cs_err_clear(&err);
    int rc = cs_array_read(spec, a, &err);
    if (rc)
        fail_msg("%s: %s", spec, err.msg);
}

static void write_ok(const char *spec, const cs_array *a)
{
    cs_err err;
    cs_err_clear(&err);
    int rc = cs_array_write(spec, a, &err);
    if (rc)
        fail_msg("%s: %s", spec, err.msg);
}

/* No temporary file of ours is left in dir. */
static void assert_no_temporaries(void)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".csreg-"))
            fail_msg("temporary file left: %s", e->d_name);
    closedir(d);
}

/* ---- round trips ------------------------------------------------------ */

static const double awkward[] = {0.1, -1e-300, 1e300, 5e-324, 1.0 / 3, -0.0,
                                 123456789012345678.0, -2.5, 7.0, 1e-5, M_PI, DBL_MAX,
                                 DBL_MIN, 1.0000000000000002, -6.02214076e23};

static void test_round_trip_every_format(void **state)
{
    (void)state;
    static const char *const ext[] = {"csv", "npy", "mtx", "mat"};
    size_t shapes[][2] = {{3, 5}, {15, 1}, {1, 15}, {1, 1}};
    int formats = cs_array_have_mat() ? 4 : 3;
    for (int f = 0; f < formats; f++)
        for (size_t s = 0; s < 4; s++) {
            double data[15];
            memcpy(data, awkward, sizeof data);
            cs_array a = {.rows = shapes[s][0], .cols = shapes[s][1], .data = data};
            char name[32], what[64];
            snprintf(name, sizeof name, "rt%zu.%s", s, ext[f]);
            snprintf(what, sizeof what, "%s (%zux%zu)", name, a.rows, a.cols);
            write_ok(P(name), &a);
            cs_array b;
            read_ok(P(name), &b);
            assert_array(&b, a.rows, a.cols, data, what);
            cs_array_free(&b);
            assert_null(b.data);
        }
    assert_no_temporaries();
}

/* The text formats give the shortest digits that read back: 0.1 is "0.1",
 * not 0.10000000000000001 (the exponent's spelling is cs_format_double's). */
static void check_digits(const char *text, char sep, const double *v, size_t n,
                         const char *what)
{
    static const char *const want[] = {"0.1", "0.3333333333333333", "120", "-0"};
    const char *p = text;
    for (size_t k = 0; k < n; k++) {
        size_t len = strcspn(p, sep == ',' ? ",\n" : "\n");
        char field[64];
        snprintf(field, sizeof field, "%.*s", (int)len, p);
        if (k < 4 ? strcmp(field, want[k]) != 0 : len > 6) /* 5e-324, 1e+300 */
            fail_msg("%s: value %zu written as '%s'", what, k, field);
        assert_true(same_bits(strtod(field, NULL), v[k]));
        p += len + 1;
    }
}

static void test_text_digits(void **state)
{
    (void)state;
    double v[] = {0.1, 1.0 / 3, 120, -0.0, 5e-324, 1e300};
    cs_array a = {.rows = 1, .cols = 6, .data = v};
    write_ok(P("d.csv"), &a);
    write_ok(P("d.mtx"), &a);
    char text[512] = "";
    FILE *f = fopen(P("d.csv"), "r");
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    check_digits(text, ',', v, 6, "d.csv");
    assert_int_equal(text[n - 1], '\n');
    f = fopen(P("d.mtx"), "r");
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *head = "%%MatrixMarket matrix array real general\n1 6\n";
    assert_memory_equal(text, head, strlen(head));
    check_digits(text + strlen(head), '\n', v, 6, "d.mtx"); /* column by column */
}

/* .npy as csreg writes it: version 1.0, '<f8', C order, the header padded to
 * 64 bytes, an n x 1 array as shape (n,). */
static void test_npy_layout(void **state)
{
    (void)state;
    double v[] = {1.5, -2, 0.25};
    cs_array col = {.rows = 3, .cols = 1, .data = v}, row = {.rows = 1, .cols = 3, .data = v};
    write_ok(P("c.npy"), &col);
    write_ok(P("r.npy"), &row);
    unsigned char buf[200];
    FILE *f = fopen(P("c.npy"), "rb");
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_int_equal(n, 128 + 24);
    assert_memory_equal(buf, "\x93NUMPY\x01\x00\x76\x00", 10);
    assert_memory_equal(buf + 10, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                        57);
    assert_int_equal(buf[127], '\n');
    double first;
    memcpy(&first, buf + 128, 8); /* little-endian host */
    assert_true(same_bits(first, 1.5));
    f = fopen(P("r.npy"), "rb");
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_int_equal(n, 128 + 24);
    assert_non_null(memmem(buf, n, "'shape': (1, 3), }", 18));
}

/* ---- NumPy interop ---------------------------------------------------- */

static int have_numpy(void)
{
    return access(PYTHON, X_OK) == 0 &&
           system(PYTHON " -c 'import numpy' >/dev/null 2>&1") == 0;
}

/* NumPy writes every variant; each name.npy has name.txt beside it: "rows
 * cols", then repr() of the values in row-major order. */
static const char gen_py[] =
    "import sys, numpy as np\n"
    "d = sys.argv[1]\n"
    "f8 = [0.1, -1e-300, 1e300, 5e-324, 1/3, -2.5, 123456.789, 1.5e-323, -0.0, 7.0, 1e-5,"
    " 6.02214076e23]\n"
    "f4 = [0.1, 1/3, -2.5, 1e30, 1e-40, 65504.0, -7.25, 3.0, 0.2, 1e-3, 42.0, -0.0]\n"
    "names = []\n"
    "for ver in [(1, 0), (2, 0), (3, 0)]:\n"
    "  for dt in ['<f8', '<f4', '>f8', '>f4']:\n"
    "    base = f8 if dt[2] == '8' else f4\n"
    "    for shape, order in [((), 'C'), ((5,), 'C'), ((3, 4), 'C'), ((3, 4), 'F')]:\n"
    "      n = int(np.prod(shape))\n"
    "      a = np.array(base[:n], dtype=dt).reshape(shape)\n"
    "      if order == 'F':\n"
    "        a = np.asfortranarray(a)\n"
    "        assert not a.flags.c_contiguous\n"
    "      name = 'np_v%d_%s%s_%s_%dd' % (ver[0], 'le' if dt[0] == '<' else 'be', dt[2], order,"
    " len(shape))\n"
    "      with open('%s/%s.npy' % (d, name), 'wb') as fh:\n"
    "        np.lib.format.write_array(fh, a, version=ver)\n"
    "      r = shape[0] if shape else 1\n"
    "      c = shape[1] if len(shape) == 2 else 1\n"
    "      with open('%s/%s.txt' % (d, name), 'w') as fh:\n"
    "        fh.write('%d %d\\n' % (r, c))\n"
    "        for x in a.ravel(order='C'):\n"
    "          fh.write(repr(float(x)) + '\\n')\n"
    "      names.append(name)\n"
    "with open(d + '/list.txt', 'w') as fh:\n"
    "  fh.write('\\n'.join(names) + '\\n')\n";

static int run_python(const char *script_name, const char *script, const char *args)
{
    write_text(P(script_name), script);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, PYTHON " %s %s", P(script_name), args);
    return system(cmd);
}

static void test_numpy_writes_csreg_reads(void **state)
{
    (void)state;
    if (!have_numpy()) {
        print_message("skipped: " PYTHON " with numpy is not installed\n");
        skip();
    }
    assert_int_equal(run_python("gen.py", gen_py, dir), 0);
    FILE *list = fopen(P("list.txt"), "r");
    assert_non_null(list);
    char name[128];
    int files = 0, fortran = 0;
    while (fscanf(list, "%127s", name) == 1) {
        char npy[160], txt[160];
        snprintf(npy, sizeof npy, "%s.npy", name);
        snprintf(txt, sizeof txt, "%s.txt", name);
        FILE *t = fopen(P(txt), "r");
        assert_non_null(t);
        size_t rows, cols;
        assert_int_equal(fscanf(t, "%zu %zu", &rows, &cols), 2);
        double want[16];
        char word[64];
        for (size_t k = 0; k < rows * cols; k++) {
            assert_int_equal(fscanf(t, "%63s", word), 1);
            want[k] = strtod(word, NULL);
        }
        fclose(t);
        if (strstr(name, "_F_")) { /* numpy really wrote Fortran order */
            FILE *h = fopen(P(npy), "rb");
            char head[200] = "";
            assert_true(fread(head, 1, sizeof head - 1, h) > 0);
            fclose(h);
            assert_non_null(memmem(head, sizeof head, "'fortran_order': True", 21));
            fortran++;
        }
        cs_array a;
        read_ok(P(npy), &a);
        assert_array(&a, rows, cols, want, npy);
        cs_array_free(&a);
        files++;
    }
    fclose(list);
    assert_int_equal(files, 48); /* 3 versions x 4 dtypes x 4 shapes/orders */
    assert_int_equal(fortran, 12);
}

/* What NumPy makes of csreg's .npy and .csv: dtype, shape, then repr() of
 * the values, row-major. */
static const char load_py[] =
    "import sys, numpy as np\n"
    "for p in sys.argv[1:]:\n"
    "  if p.endswith('.csv'):\n"
    "    a = np.loadtxt(p, delimiter=',', ndmin=2)\n"
    "  else:\n"
    "    a = np.load(p, allow_pickle=False)\n"
    "  print(a.dtype.str, str(a.shape).replace(' ', ''), int(a.flags.c_contiguous))\n"
    "  for x in a.ravel(order='C'):\n"
    "    print(repr(float(x)))\n";

static void test_csreg_writes_numpy_reads(void **state)
{
    (void)state;
    if (!have_numpy()) {
        print_message("skipped: " PYTHON " with numpy is not installed\n");
        skip();
    }
    struct { const char *name; size_t rows, cols; const char *shape; } cases[] = {
        {"w_mat.npy", 3, 5, "(3,5)"}, {"w_col.npy", 15, 1, "(15,)"},
        {"w_row.npy", 1, 15, "(1,15)"}, {"w_one.npy", 1, 1, "(1,)"},
        {"w_mat.csv", 3, 5, "(3,5)"}, {"w_col.csv", 15, 1, "(15,1)"},
    };
    size_t nc = sizeof cases / sizeof *cases;
    char args[1024] = "";
    for (size_t c = 0; c < nc; c++) {
        cs_array a = {.rows = cases[c].rows, .cols = cases[c].cols, .data = (double *)awkward};
        write_ok(P(cases[c].name), &a);
        strcat(strcat(args, " "), P(cases[c].name));
    }
    write_text(P("load.py"), load_py);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, PYTHON " %s %s", P("load.py"), args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    for (size_t c = 0; c < nc; c++) {
        char dtype[16], shape[32];
        int contiguous;
        if (fscanf(p, "%15s %31s %d", dtype, shape, &contiguous) != 3)
            fail_msg("%s: numpy printed nothing", cases[c].name);
        assert_string_equal(dtype, "<f8");
        if (strcmp(shape, cases[c].shape) != 0)
            fail_msg("%s: numpy reads shape %s, want %s", cases[c].name, shape, cases[c].shape);
        assert_int_equal(contiguous, 1);
        for (size_t k = 0; k < cases[c].rows * cases[c].cols; k++) {
            char word[64];
            assert_int_equal(fscanf(p, "%63s", word), 1);
            if (!same_bits(strtod(word, NULL), awkward[k]))
                fail_msg("%s: numpy reads entry %zu as %s, want %.17g", cases[c].name, k, word,
                         awkward[k]);
        }
    }
    assert_int_equal(pclose(p), 0);
}

/* numpy.savetxt's CSV, with its '#' header line, read by csreg. */
static void test_numpy_csv(void **state)
{
    (void)state;
    if (!have_numpy()) {
        print_message("skipped: " PYTHON " with numpy is not installed\n");
        skip();
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, PYTHON " -c \"import numpy as np; np.savetxt('%s', "
             "np.array([[0.1, 1/3], [-1e-300, 5e-324], [1e300, -2.5]]), delimiter=',', "
             "fmt='%%.17g', header='x,y')\"", P("np.csv"));
    assert_int_equal(system(cmd), 0);
    cs_array a;
    read_ok(P("np.csv"), &a);
    double want[] = {0.1, 1.0 / 3, -1e-300, 5e-324, 1e300, -2.5};
    assert_array(&a, 3, 2, want, "np.csv");
    cs_array_free(&a);
}

/* ---- CSV -------------------------------------------------------------- */

static void test_csv_tolerated(void **state)
{
    (void)state;
    /* a byte order mark, CRLF, blanks around values, comments, blank lines */
    write_text(P("ok.csv"), "\xEF\xBB\xBF# comment\r\n 1, 2.5 ,-3e2\r\n\r\n4,5,6\r\n\r\n");
    cs_array a;
    read_ok(P("ok.csv"), &a);
    double want[] = {1, 2.5, -300, 4, 5, 6};
    assert_array(&a, 2, 3, want, "ok.csv");
    cs_array_free(&a);
    write_text(P("OK.CSV"), "7");
    read_ok(P("OK.CSV"), &a); /* extensions in any case; no final newline */
    assert_array(&a, 1, 1, (double[]){7}, "OK.CSV");
    cs_array_free(&a);
}

static void test_csv_errors(void **state)
{
    (void)state;
    write_text(P("hdr.csv"), "x,y,z\n1,2,3\n");
    expect_read_error(P("hdr.csv"), CS_EINVAL, "hdr.csv: line 1 is not numbers ('x,y,z')",
                      "header");
    write_text(P("rag.csv"), "1,2,3,4,5,6\n1,2,3,4,5,6\n1,2,3,4,5,6\n1,2,3,4,5\n");
    expect_read_error(P("rag.csv"), CS_EDIM, "rag.csv: line 4 has 5 values, line 1 has 6",
                      NULL);
    write_text(P("nan.csv"), "1,2,3,4,5,6,7\n1,2,3,4,5,6,7\n1,2,3,4,5,6,NaN\n");
    expect_read_error(P("nan.csv"), CS_ENONFINITE, "nan.csv: row 3, column 7 is NaN", NULL);
    write_text(P("inf.csv"), "# c\n1,2\n-inf,3\n");
    expect_read_error(P("inf.csv"), CS_ENONFINITE, "inf.csv: row 2, column 1 is -Inf (line 3)",
                      NULL);
    write_text(P("big.csv"), "1,1e999\n");
    expect_read_error(P("big.csv"), CS_ENONFINITE, "big.csv: row 1, column 2 is out of the "
                      "double range ('1e999')", NULL);
    write_text(P("word.csv"), "1,2\n3,abc\n");
    expect_read_error(P("word.csv"), CS_EINVAL, "word.csv: line 2, column 2: 'abc' is not a "
                      "number", NULL);
    write_text(P("hex.csv"), "1\n0x10\n");
    expect_read_error(P("hex.csv"), CS_EINVAL, "'0x10' is not a number", NULL);
    write_text(P("hole.csv"), "1,,3\n");
    expect_read_error(P("hole.csv"), CS_EINVAL, "hole.csv: line 1, column 2 is empty", NULL);
    write_text(P("empty.csv"), "\n# nothing\n");
    expect_read_error(P("empty.csv"), CS_EINVAL, "empty.csv: no numbers in the file", NULL);
    write_file(P("bin.csv"), "1,2\n3\0,4\n", 9);
    expect_read_error(P("bin.csv"), CS_EINVAL, "bin.csv: line 2", "NUL byte");
    expect_read_error(P("missing.csv"), CS_EIO, "missing.csv", "No such file or directory");
    expect_read_error(dir, CS_EUNSUPPORTED, "no extension", NULL);
}

/* ---- .npy by hand: every refusal -------------------------------------- */

/* name.npy with the given version, header dict and data bytes */
static void npy_raw(const char *name, int major, const char *dict, const void *data, size_t n)
{
    unsigned char buf[4096];
    size_t pre = major == 1 ? 10 : 12, h = strlen(dict);
    size_t hlen = h + 1;
    while ((pre + hlen) % 64)
        hlen++;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    for (size_t b = 0; b < pre - 8; b++)
        buf[8 + b] = (unsigned char)(hlen >> (8 * b));
    memcpy(buf + pre, dict, h);
    memset(buf + pre + h, ' ', hlen - h - 1);
    buf[pre + hlen - 1] = '\n';
    memcpy(buf + pre + hlen, data, n);
    write_file(P(name), buf, pre + hlen + n);
}

static void test_npy_errors(void **state)
{
    (void)state;
    double d[100];
    for (int k = 0; k < 100; k++)
        d[k] = k;
    npy_raw("i8.npy", 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }", d, 32);
    expect_read_error(P("i8.npy"), CS_EUNSUPPORTED,
                      "i8.npy: dtype <i8 is not supported (float64 or float32)", NULL);
    npy_raw("c16.npy", 1, "{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }", d, 32);
    expect_read_error(P("c16.npy"), CS_EUNSUPPORTED, "dtype <c16 is not supported", NULL);
    npy_raw("rec.npy", 1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }",
            d, 16);
    expect_read_error(P("rec.npy"), CS_EUNSUPPORTED, "rec.npy: a structured dtype", NULL);
    npy_raw("short.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (10, 10), }", d,
            480);
    expect_read_error(P("short.npy"), CS_EINVAL, "short.npy: truncated: 480 of 800 data bytes",
                      NULL);
    npy_raw("long.npy", 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", d, 40);
    expect_read_error(P("long.npy"), CS_EINVAL, "long.npy: 16 bytes after the data (shape (3,) "
                      "of <f8 takes 24)", NULL);
    /* a corrupt shape: a truncated file, not an allocation of 10^20 bytes */
    npy_raw("huge.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (10000000000, "
            "10000000000), }", d, 8);
    expect_read_error(P("huge.npy"), CS_EINVAL, "truncated: 8 of 800000000000000000000 data",
                      NULL);
    npy_raw("3d.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 2), }", d,
            64);
    expect_read_error(P("3d.npy"), CS_EDIM, "3d.npy: a 3-D array (shape (2, 2, 2)) is not "
                      "supported", NULL);
    npy_raw("zero.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }", d, 0);
    expect_read_error(P("zero.npy"), CS_EDIM, "zero.npy: the array is empty (0x3)", NULL);
    npy_raw("nokey.npy", 1, "{'descr': '<f8', 'shape': (2,), }", d, 16);
    expect_read_error(P("nokey.npy"), CS_EINVAL, "lacks 'fortran_order'", NULL);
    npy_raw("junk.npy", 1, "{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,), }", d, 16);
    expect_read_error(P("junk.npy"), CS_EINVAL, "malformed .npy header", NULL);
    npy_raw("v4.npy", 4, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", d, 16);
    expect_read_error(P("v4.npy"), CS_EUNSUPPORTED, "format version 4.0 is not supported", NULL);
    write_text(P("text.npy"), "1,2,3\n");
    expect_read_error(P("text.npy"), CS_EINVAL, "text.npy: not a NumPy .npy file", NULL);
    d[5] = NAN;
    npy_raw("nan.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", d, 48);
    expect_read_error(P("nan.npy"), CS_ENONFINITE, "nan.npy: row 2, column 3 is NaN", NULL);
    /* Fortran order: the 6th value in the file is (row 2, column 3) of a 2x3 too;
     * the 5th is (row 1, column 3) */
    d[5] = 5;
    d[4] = -INFINITY;
    npy_raw("nanf.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", d, 48);
    expect_read_error(P("nanf.npy"), CS_ENONFINITE, "nanf.npy: row 1, column 3 is -Inf", NULL);
    float inf4[2] = {1.0f, INFINITY};
    npy_raw("inf4.npy", 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", inf4, 8);
    expect_read_error(P("inf4.npy"), CS_ENONFINITE, "inf4.npy: row 2, column 1 is Inf", NULL);
    expect_read_error(P("nope.npy"), CS_EIO, "nope.npy", "No such file or directory");
}

/* ---- Matrix Market by hand -------------------------------------------- */

static void test_mtx_hand_written(void **state)
{
    (void)state;
    cs_array a;
    /* coordinate general: comments, a duplicate that adds up, an untouched zero */
    write_text(P("g.mtx"), "%%MatrixMarket matrix coordinate real general\n"
                           "% written by hand\n%\n3 4 5\n1 1 1.5\n3 4 -2\n2 2 1e-3\n"
                           "1 1 0.25\n3 1 7\n");
    read_ok(P("g.mtx"), &a);
    double g[] = {1.75, 0, 0, 0, 0, 1e-3, 0, 0, 7, 0, 0, -2};
    assert_array(&a, 3, 4, g, "g.mtx");
    cs_array_free(&a);
    /* coordinate symmetric, integer field: the lower triangle mirrored */
    write_text(P("s.mtx"), "%%MatrixMarket matrix coordinate integer symmetric\n"
                           "3 3 4\n1 1 2\n2 1 -1\n3 2 -1\n3 3 2\n");
    read_ok(P("s.mtx"), &a);
    double s[] = {2, -1, 0, -1, 0, -1, 0, -1, 2};
    assert_array(&a, 3, 3, s, "s.mtx");
    cs_array_free(&a);
    /* coordinate skew-symmetric */
    write_text(P("k.mtx"), "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                           "2 2 1\n2 1 3\n");
    read_ok(P("k.mtx"), &a);
    assert_array(&a, 2, 2, (double[]){0, -3, 3, 0}, "k.mtx");
    cs_array_free(&a);
    /* array general: column by column */
    write_text(P("a.mtx"), "%%MatrixMarket matrix array real general\n2 3\n1\n4\n2\n5\n3\n6\n");
    read_ok(P("a.mtx"), &a);
    assert_array(&a, 2, 3, (double[]){1, 2, 3, 4, 5, 6}, "a.mtx");
    cs_array_free(&a);
    /* array symmetric: the lower triangle, column by column */
    write_text(P("as.mtx"), "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n"
                            "6\n");
    read_ok(P("as.mtx"), &a);
    assert_array(&a, 3, 3, (double[]){1, 2, 3, 2, 4, 5, 3, 5, 6}, "as.mtx");
    cs_array_free(&a);
}

static void test_mtx_errors(void **state)
{
    (void)state;
    write_text(P("nb.mtx"), "3 3\n1\n");
    expect_read_error(P("nb.mtx"), CS_EINVAL, "nb.mtx: not a Matrix Market file", NULL);
    write_text(P("cx.mtx"), "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n");
    expect_read_error(P("cx.mtx"), CS_EUNSUPPORTED, "cx.mtx: field 'complex' is not supported",
                      NULL);
    write_text(P("pt.mtx"), "%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n");
    expect_read_error(P("pt.mtx"), CS_EUNSUPPORTED, "field 'pattern' is not supported", NULL);
    write_text(P("out.mtx"), "%%MatrixMarket matrix coordinate real general\n30 60 2\n1 1 1\n"
                             "31 2 1\n");
    expect_read_error(P("out.mtx"), CS_EDIM, "out.mtx: line 4: entry (31, 2) is outside the "
                      "30x60 matrix", NULL);
    write_text(P("few.mtx"), "%%MatrixMarket matrix coordinate real general\n3 3 8\n1 1 1\n"
                             "2 2 1\n3 3 1\n1 2 1\n2 3 1\n");
    expect_read_error(P("few.mtx"), CS_EINVAL, "few.mtx: truncated: 5 of 8 entries", NULL);
    write_text(P("many.mtx"), "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n"
                              "2 2 1\n");
    expect_read_error(P("many.mtx"), CS_EINVAL, "many.mtx: line 4: more entries than the 1",
                      NULL);
    write_text(P("nan.mtx"), "%%MatrixMarket matrix coordinate real general\n5 9 2\n1 1 1\n"
                             "3 7 nan\n");
    expect_read_error(P("nan.mtx"), CS_ENONFINITE, "nan.mtx: row 3, column 7 is NaN (line 4)",
                      NULL);
    write_text(P("arr.mtx"), "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n");
    expect_read_error(P("arr.mtx"), CS_EINVAL, "arr.mtx: truncated: 3 of 4 values", NULL);
    write_text(P("ans.mtx"), "%%MatrixMarket matrix array real general\n2 1\n1\ninf\n");
    expect_read_error(P("ans.mtx"), CS_ENONFINITE, "ans.mtx: row 2, column 1 is Inf", NULL);
    write_text(P("sq.mtx"), "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n");
    expect_read_error(P("sq.mtx"), CS_EDIM, "sq.mtx: a symmetric matrix must be square", NULL);
    write_text(P("sz.mtx"), "%%MatrixMarket matrix coordinate real general\n2 2\n");
    expect_read_error(P("sz.mtx"), CS_EINVAL, "sz.mtx: line 2: the size line is 'rows columns "
                      "entries'", NULL);
    write_text(P("ent.mtx"), "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n");
    expect_read_error(P("ent.mtx"), CS_EINVAL, "ent.mtx: line 3", "not row and column");
    write_text(P("zero.mtx"), "%%MatrixMarket matrix coordinate real general\n0 2 0\n");
    expect_read_error(P("zero.mtx"), CS_EDIM, "zero.mtx: the array is empty (0x2)", NULL);
}

/* ---- .mat ------------------------------------------------------------- */

#ifdef HAVE_MATIO_H
static int have_matio(void)
{
    if (!matio && cs_array_have_mat())
        matio = dlopen("libmatio.so.11", RTLD_NOW | RTLD_LOCAL);
    return matio != NULL;
}

/* a double variable of rows x cols, data given column-major, stored as type */
static void mat_put(mat_t *mat, const char *name, enum matio_classes cls, enum matio_types type,
                    int rank, size_t *dims, void *data, int opt)
{
    matvar_t *v = MX(Mat_VarCreate)(name, cls, type, rank, dims, data, opt);
    assert_non_null(v);
    assert_int_equal(MX(Mat_VarWrite)(mat, v, MAT_COMPRESSION_NONE), 0);
    MX(Mat_VarFree)(v);
}

static void mat_versions(void)
{
    /* 2x3 [1 2 3; 4 5 6] column-major, in each version libmatio writes */
    double colmajor[] = {1, 4, 2, 5, 3, 6};
    double want[] = {1, 2, 3, 4, 5, 6};
    size_t dims[2] = {2, 3};
    struct { const char *name; enum mat_ft ver; enum matio_compression z; } v[] = {
        {"v4.mat", MAT_FT_MAT4, MAT_COMPRESSION_NONE},
        {"v5.mat", MAT_FT_MAT5, MAT_COMPRESSION_NONE},
        {"v7.mat", MAT_FT_MAT5, MAT_COMPRESSION_ZLIB},
        {"v73.mat", MAT_FT_MAT73, MAT_COMPRESSION_NONE},
    };
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
        mat_t *mat = MX(Mat_CreateVer)(P(v[k].name), NULL, v[k].ver);
        if (!mat)
            fail_msg("libmatio cannot create %s", v[k].name);
        matvar_t *mv = MX(Mat_VarCreate)("Phi", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, colmajor,
                                         0);
        assert_int_equal(MX(Mat_VarWrite)(mat, mv, v[k].z), 0);
        MX(Mat_VarFree)(mv);
        MX(Mat_Close)(mat);
        cs_array a;
        char spec[300];
        snprintf(spec, sizeof spec, "%s:Phi", P(v[k].name));
        read_ok(spec, &a);
        assert_array(&a, 2, 3, want, spec);
        cs_array_free(&a);
        read_ok(P(v[k].name), &a); /* the one numeric variable */
        assert_array(&a, 2, 3, want, v[k].name);
        cs_array_free(&a);
    }
}

static void test_mat_files(void **state)
{
    (void)state;
    if (!have_matio()) {
        print_message("skipped: libmatio (Debian's libmatio11) is not installed\n");
        skip();
    }
    mat_versions();
    /* one file with many kinds of variable */
    mat_t *mat = MX(Mat_CreateVer)(P("many.mat"), NULL, MAT_FT_MAT5);
    assert_non_null(mat);
    size_t d23[2] = {2, 3}, d15[2] = {1, 5}, d222[3] = {2, 2, 2}, d22[2] = {2, 2};
    double A[] = {1, 4, 2, 5, 3, 6};
    float S[] = {0.1f, 4, 2, 5, 3, 6};
    unsigned char U8[] = {1, 4, 2, 5, 3, 6};
    int I32[] = {1, 2, 3, 4, 5, 6};
    double C8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    mat_put(mat, "A", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, d23, A, 0);
    mat_put(mat, "S", MAT_C_SINGLE, MAT_T_SINGLE, 2, d23, S, 0);
    mat_put(mat, "U", MAT_C_DOUBLE, MAT_T_UINT8, 2, d23, U8, 0); /* doubles stored as bytes */
    mat_put(mat, "I", MAT_C_INT32, MAT_T_INT32, 2, d23, I32, 0);
    mat_put(mat, "name", MAT_C_CHAR, MAT_T_UINT8, 2, d15, "hello", 0);
    mat_put(mat, "T", MAT_C_DOUBLE, MAT_T_DOUBLE, 3, d222, C8, 0);
    double re[] = {1, 2, 3, 4}, im[] = {0, 1, 0, 1};
    mat_complex_split_t z = {re, im};
    mat_put(mat, "Z", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, d22, &z, MAT_F_COMPLEX);
    /* sparse 3x3: (1,1)=2, (3,1)=-1, (2,3)=0.5 */
    mat_uint32_t ir[] = {0, 2, 1}, jc[] = {0, 2, 2, 3};
    double sv[] = {2, -1, 0.5};
    mat_sparse_t sp = {.nzmax = 3, .ir = ir, .nir = 3, .jc = jc, .njc = 4, .ndata = 3,
                       .data = sv};
    size_t d33[2] = {3, 3};
    mat_put(mat, "Sp", MAT_C_SPARSE, MAT_T_DOUBLE, 2, d33, &sp, 0);
    double nan_data[] = {1, NAN, 3, 4};
    mat_put(mat, "N", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, d22, nan_data, 0);
    MX(Mat_Close)(mat);

    cs_array a;
    double want[] = {1, 2, 3, 4, 5, 6};
    char spec[300];
    snprintf(spec, sizeof spec, "%s:A", P("many.mat"));
    read_ok(spec, &a);
    assert_array(&a, 2, 3, want, spec);
    cs_array_free(&a);
    snprintf(spec, sizeof spec, "%s:U", P("many.mat"));
    read_ok(spec, &a);
    assert_array(&a, 2, 3, want, spec);
    cs_array_free(&a);
    snprintf(spec, sizeof spec, "%s:S", P("many.mat"));
    read_ok(spec, &a);
    assert_array(&a, 2, 3, (double[]){(double)0.1f, 2, 3, 4, 5, 6}, spec);
    cs_array_free(&a);
    snprintf(spec, sizeof spec, "%s:Sp", P("many.mat"));
    read_ok(spec, &a);
    assert_array(&a, 3, 3, (double[]){2, 0, 0, 0, 0, 0.5, -1, 0, 0}, spec);
    cs_array_free(&a);

    snprintf(spec, sizeof spec, "%s:X", P("many.mat"));
    expect_read_error(spec, CS_ENOTFOUND, "many.mat: no variable 'X' (it has: A 2x3 double, "
                      "S 2x3 single, U 2x3 double, I 2x3 int32, name 1x5 char, T 2x2x2 double, "
                      "Z 2x2 complex double, Sp 3x3 sparse, N 2x2 double)", NULL);
    expect_read_error(P("many.mat"), CS_EINVAL, "many.mat holds 5 numeric variables (A 2x3",
                      "name one, as ");
    snprintf(spec, sizeof spec, "%s:I", P("many.mat"));
    expect_read_error(spec, CS_EUNSUPPORTED, "many.mat:I is I 2x3 int32: double or single only",
                      NULL);
    snprintf(spec, sizeof spec, "%s:name", P("many.mat"));
    expect_read_error(spec, CS_EUNSUPPORTED, "char: double or single only", NULL);
    snprintf(spec, sizeof spec, "%s:T", P("many.mat"));
    expect_read_error(spec, CS_EDIM, "many.mat:T has 3 dimensions (T 2x2x2 double)", NULL);
    snprintf(spec, sizeof spec, "%s:Z", P("many.mat"));
    expect_read_error(spec, CS_EUNSUPPORTED, "many.mat:Z is complex", NULL);
    snprintf(spec, sizeof spec, "%s:N", P("many.mat"));
    expect_read_error(spec, CS_ENONFINITE, "many.mat:N: row 2, column 1 is NaN", NULL);

    mat = MX(Mat_CreateVer)(P("chars.mat"), NULL, MAT_FT_MAT5);
    mat_put(mat, "name", MAT_C_CHAR, MAT_T_UINT8, 2, d15, "hello", 0);
    MX(Mat_Close)(mat);
    expect_read_error(P("chars.mat"), CS_ENOTFOUND, "chars.mat: no numeric 2-D variable (it "
                      "has: name 1x5 char)", NULL);
    write_text(P("fake.mat"), "not a mat file at all, just some text that is long enough to "
               "pass for a header of one hundred and twenty eight bytes, or so one hopes......");
    expect_read_error(P("fake.mat"), CS_EINVAL, "fake.mat: not a MATLAB .mat file", NULL);
    expect_read_error(P("none.mat"), CS_EIO, "none.mat", "No such file or directory");
    /* v7 (compressed) cut short, and v7.3 (HDF5) cut short */
    const char *full[] = {"v7.mat", "v73.mat"};
    for (int k = 0; k < 2; k++) {
        char buf[1024];
        FILE *f = fopen(P(full[k]), "rb");
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        assert_true(n > 150);
        write_file(P("trunc.mat"), buf, k == 0 ? 150 : n / 2);
        expect_read_error(P("trunc.mat"), CS_EINVAL, "trunc.mat: cannot read its variables, "
                          "damaged or truncated? (libmatio: ", NULL);
    }
    snprintf(spec, sizeof spec, "%s:", P("many.mat"));
    expect_read_error(spec, CS_EINVAL, "no variable name after ':'", NULL);
}

/* csreg's .mat files: the variable named after the file or ":VAR", several
 * in one file, read back by libmatio itself. */
static void test_mat_written(void **state)
{
    (void)state;
    if (!have_matio()) {
        print_message("skipped: libmatio (Debian's libmatio11) is not installed\n");
        skip();
    }
    double v[] = {1, 2, 3, 4, 5, 6};
    cs_array a = {.rows = 2, .cols = 3, .data = v}, b = {.rows = 3, .cols = 1, .data = v};
    write_ok(P("my-data.mat"), &a);
    mat_t *mat = MX(Mat_Open)(P("my-data.mat"), MAT_ACC_RDONLY);
    assert_non_null(mat);
    assert_int_equal(MX(Mat_GetVersion)(mat), MAT_FT_MAT5);
    matvar_t *mv = MX(Mat_VarRead)(mat, "my_data");
    assert_non_null(mv);
    assert_int_equal(mv->dims[0], 2);
    assert_int_equal(mv->dims[1], 3);
    assert_true(same_bits(((double *)mv->data)[1], 4)); /* column-major there */
    MX(Mat_VarFree)(mv);
    MX(Mat_Close)(mat);
    cs_err err;
    const char *names[] = {"A", "b"};
    const cs_array *arrays[] = {&a, &b};
    assert_int_equal(cs_array_write_mat(P("prob.mat"), 2, names, arrays, 0, &err), CS_OK);
    cs_array r;
    char spec[300];
    snprintf(spec, sizeof spec, "%s:b", P("prob.mat"));
    read_ok(spec, &r);
    assert_array(&r, 3, 1, v, spec);
    cs_array_free(&r);
    const char *bad[] = {"A", "A"};
    assert_int_equal(cs_array_write_mat(P("p2.mat"), 2, bad, arrays, 0, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "variable 'A' named twice"));
    snprintf(spec, sizeof spec, "%s:2x", P("p3.mat"));
    assert_int_equal(cs_array_write(spec, &a, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "'2x' is not a MATLAB variable name"));
    assert_int_equal(access(P("p2.mat"), F_OK), -1);
    assert_int_equal(access(P("p3.mat"), F_OK), -1);
    /* NaN is written as it is, and refused on the way in */
    v[4] = NAN;
    write_ok(P("nan.mat"), &a);
    expect_read_error(P("nan.mat"), CS_ENONFINITE, "nan.mat:nan: row 2, column 2 is NaN", NULL);
    assert_no_temporaries();
}
#else
static void test_mat_files(void **state)
{
    (void)state;
    double v[] = {1};
    cs_array a = {.rows = 1, .cols = 1, .data = v};
    cs_err err;
    assert_int_equal(cs_array_have_mat(), 0);
    assert_int_equal(cs_array_write(P("x.mat"), &a, &err), CS_EUNSUPPORTED);
    expect_read_error(P("x.mat"), CS_EUNSUPPORTED, "built without its header", NULL);
    print_message("skipped: built without <matio.h> (libmatio-dev)\n");
    skip();
}

static void test_mat_written(void **state)
{
    (void)state;
    print_message("skipped: built without <matio.h> (libmatio-dev)\n");
    skip();
}
#endif

/* ---- writing: replace, refuse, names ---------------------------------- */

static void test_write_rules(void **state)
{
    (void)state;
    double v[] = {1, 2}, w[] = {3, 4};
    cs_array a = {.rows = 2, .cols = 1, .data = v}, b = {.rows = 2, .cols = 1, .data = w};
    cs_err err;
    const char *ext[] = {"csv", "npy", "mtx", "mat"};
    for (int f = 0; f < (cs_array_have_mat() ? 4 : 3); f++) {
        char name[32];
        snprintf(name, sizeof name, "keep.%s", ext[f]);
        write_ok(P(name), &a);
        /* no clobber: refused, the old file intact */
        assert_int_equal(cs_array_write_opts(P(name), &b, CS_ARRAY_NO_CLOBBER, &err), CS_EIO);
        assert_non_null(strstr(err.msg, "exists (add force=on to overwrite)"));
        cs_array r;
        read_ok(P(name), &r);
        assert_array(&r, 2, 1, v, name);
        cs_array_free(&r);
        /* by default replaced */
        write_ok(P(name), &b);
        read_ok(P(name), &r);
        assert_array(&r, 2, 1, w, name);
        cs_array_free(&r);
    }
    /* folders made as for every output */
    write_ok(P("new/dir/x.npy"), &a);
    /* a folder that cannot be written: an error, no file */
    assert_true(cs_array_write("/proc/csreg-x.csv", &a, &err) < 0);
    assert_non_null(strstr(err.msg, "csreg-x.csv"));
    /* names */
    assert_int_equal(cs_array_write(P("x.txt"), &a, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "unknown format '.txt' (.csv, .npy, .mtx or .mat)"));
    assert_int_equal(cs_array_write(P("x.npy:v"), &a, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "only .mat files name a variable"));
    cs_array empty = {0};
    assert_int_equal(cs_array_write(P("e.csv"), &empty, &err), CS_EDIM);
    assert_non_null(strstr(err.msg, "nothing to write"));
    assert_int_equal(access(P("e.csv"), F_OK), -1);
    assert_int_equal(cs_array_format_of("a/B.NPY", &err), CS_ARRAY_NPY);
    assert_int_equal(cs_array_format_of("F.mat:Phi", &err), CS_ARRAY_MAT);
    assert_int_equal(cs_array_format_of("dir.mat/x.mtx", &err), CS_ARRAY_MTX);
    assert_int_equal(cs_array_format_of("a:b.csv", &err), CS_ARRAY_CSV);
    assert_int_equal(cs_array_format_of("", &err), CS_EINVAL);
    assert_no_temporaries();
}

static void test_alloc(void **state)
{
    (void)state;
    cs_array a;
    cs_err err;
    assert_int_equal(cs_array_alloc(&a, 2, 3, &err), CS_OK);
    for (int k = 0; k < 6; k++)
        assert_true(same_bits(a.data[k], 0.0));
    cs_array_free(&a);
    cs_array_free(&a); /* twice is safe */
    cs_array_free(NULL);
    assert_int_equal(cs_array_alloc(&a, 1u << 20, 1u << 20, &err), CS_ENOMEM);
    assert_non_null(strstr(err.msg, "a 1048576x1048576 array needs 8192.0 GiB"));
    assert_null(a.data);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/csreg-aio-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_format),
        cmocka_unit_test(test_text_digits),
        cmocka_unit_test(test_npy_layout),
        cmocka_unit_test(test_numpy_writes_csreg_reads),
        cmocka_unit_test(test_csreg_writes_numpy_reads),
        cmocka_unit_test(test_numpy_csv),
        cmocka_unit_test(test_csv_tolerated),
        cmocka_unit_test(test_csv_errors),
        cmocka_unit_test(test_npy_errors),
        cmocka_unit_test(test_mtx_hand_written),
        cmocka_unit_test(test_mtx_errors),
        cmocka_unit_test(test_mat_files),
        cmocka_unit_test(test_mat_written),
        cmocka_unit_test(test_write_rules),
        cmocka_unit_test(test_alloc),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
