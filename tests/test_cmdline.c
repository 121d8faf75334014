/* test_cmdline.c — the tokenizer and the typed argument getters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_cmdline.h"

static cs_cmdline parse_ok(const char *line)
{
    cs_cmdline cl;
    cs_err err;
    int col;
    int rc = cs_cmdline_parse(line, &cl, &col, &err);
    if (rc)
        print_error("parse failed: %s\n", err.msg);
    assert_int_equal(rc, 0);
    return cl;
}

static int parse_fail(const char *line, int *col, cs_err *err)
{
    cs_cmdline cl;
    int rc = cs_cmdline_parse(line, &cl, col, err);
    assert_true(rc < 0);
    return rc;
}

static void test_name_and_keys(void **state)
{
    (void)state;
    cs_cmdline cl = parse_ok("sweep kind=bin N=100 gamma=0.3:0.02:0.9 out=a.csv");
    assert_string_equal(cl.name, "sweep");
    assert_int_equal(cl.nargs, 4);
    assert_string_equal(cl.args[0].key, "kind");
    assert_string_equal(cl.args[0].value, "bin");
    assert_int_equal(cl.args[0].col, 7);
    assert_string_equal(cs_cmdline_key(&cl, "gamma")->value, "0.3:0.02:0.9");
    assert_null(cs_cmdline_key(&cl, "nope"));
    assert_int_equal(cs_cmdline_npos(&cl), 0);
    cs_cmdline_free(&cl);
}

static void test_positional_and_matrix(void **state)
{
    (void)state;
    cs_cmdline cl = parse_ok("  eval 1,2;3,4   ");
    assert_string_equal(cl.name, "eval");
    assert_int_equal(cl.name_col, 3);
    assert_int_equal(cs_cmdline_npos(&cl), 1);
    assert_null(cl.args[0].key);
    assert_string_equal(cs_cmdline_pos(&cl, 0)->value, "1,2;3,4");
    assert_null(cs_cmdline_pos(&cl, 1));
    cs_cmdline_free(&cl);
}

static void test_comments_and_empty(void **state)
{
    (void)state;
    cs_cmdline cl = parse_ok("   # only a comment");
    assert_null(cl.name);
    cs_cmdline_free(&cl);
    cl = parse_ok("");
    assert_null(cl.name);
    cs_cmdline_free(&cl);
    cl = parse_ok("reg bin # trailing comment with key=value");
    assert_string_equal(cl.name, "reg");
    assert_int_equal(cl.nargs, 1);
    cs_cmdline_free(&cl);
    cl = parse_ok("landscape title=a#b");  /* '#' inside a word is literal */
    assert_string_equal(cs_cmdline_key(&cl, "title")->value, "a#b");
    cs_cmdline_free(&cl);
}

static void test_quotes(void **state)
{
    (void)state;
    cs_cmdline cl = parse_ok("landscape title=\"a b \\\"c\\\" # d\" out='x y.png'");
    assert_string_equal(cs_cmdline_key(&cl, "title")->value, "a b \"c\" # d");
    assert_true(cs_cmdline_key(&cl, "title")->quoted);
    assert_string_equal(cs_cmdline_key(&cl, "out")->value, "x y.png");
    cs_cmdline_free(&cl);
    cl = parse_ok("landscape title=\"\"");
    assert_string_equal(cs_cmdline_key(&cl, "title")->value, "");
    cs_cmdline_free(&cl);
}

static void test_unterminated_quote(void **state)
{
    (void)state;
    int col;
    cs_err err;
    parse_fail("landscape title=\"abc", &col, &err);
    assert_int_equal(col, 17);
    assert_non_null(strstr(err.msg, "unterminated quote"));
    parse_fail("x 'abc", &col, &err);
    assert_int_equal(col, 3);
}

static void test_quoted_name_and_control(void **state)
{
    (void)state;
    int col;
    cs_err err;
    parse_fail("\"reg\" bin", &col, &err);
    assert_int_equal(col, 1);
    assert_non_null(strstr(err.msg, "quoted"));
    parse_fail("reg b\x01in", &col, &err);
    assert_int_equal(col, 6);
    assert_non_null(strstr(err.msg, "control character"));
}

static void test_key_syntax(void **state)
{
    (void)state;
    /* '=' not after an identifier: a positional value */
    cs_cmdline cl = parse_ok("eval =1 1=2 a=b=c");
    assert_int_equal(cs_cmdline_npos(&cl), 2);
    assert_string_equal(cs_cmdline_pos(&cl, 0)->value, "=1");
    assert_string_equal(cs_cmdline_pos(&cl, 1)->value, "1=2");
    assert_string_equal(cs_cmdline_key(&cl, "a")->value, "b=c");
    cs_cmdline_free(&cl);
}

static void test_last_key_wins_lookup(void **state)
{
    (void)state;
    cs_cmdline cl = parse_ok("x k=1 k=2");
    assert_string_equal(cs_cmdline_key(&cl, "k")->value, "2");
    cs_cmdline_free(&cl);
}

/* The typed getters need an interpreter only for error columns. */
static cs_interp *interp(void)
{
    cs_interp *in;
    cs_err err;
    cs_interp_opts o = {.seed = 1, .out = stdout};
    assert_int_equal(cs_interp_new(&in, &o, &err), 0);
    return in;
}

static void test_arg_double(void **state)
{
    (void)state;
    cs_interp *in = interp();
    cs_cmdline cl = parse_ok("x tol=1e-8 bad=1e-8x big=5");
    cs_err err;
    double v;
    assert_int_equal(cs_arg_double(in, &cl, "tol", 0, 0, 1, &v, &err), 0);
    assert_true(v == 1e-8);
    assert_int_equal(cs_arg_double(in, &cl, "missing", 0.25, 0, 1, &v, &err), 0);
    assert_true(v == 0.25);
    assert_true(cs_arg_double(in, &cl, "bad", 0, 0, 1, &v, &err) < 0);
    assert_non_null(strstr(err.msg, "malformed number"));
    assert_true(cs_arg_double(in, &cl, "big", 0, 0, 1, &v, &err) < 0);
    assert_non_null(strstr(err.msg, "out of range [0, 1]"));
    cs_cmdline_free(&cl);
    cs_interp_free(in);
}

static void test_arg_long_choice_bool(void **state)
{
    (void)state;
    cs_interp *in = interp();
    cs_cmdline cl = parse_ok("x n=12 f=1.5 m=fista s=on t=maybe");
    cs_err err;
    long n;
    const char *w;
    int b;
    assert_int_equal(cs_arg_long(in, &cl, "n", 0, 1, 100, &n, &err), 0);
    assert_int_equal(n, 12);
    assert_true(cs_arg_long(in, &cl, "f", 0, 1, 100, &n, &err) < 0);
    assert_non_null(strstr(err.msg, "not an integer"));
    assert_int_equal(cs_arg_choice(in, &cl, "m", "fista|dr", "dr", &w, &err), 0);
    assert_string_equal(w, "fista");
    assert_true(cs_arg_choice(in, &cl, "s", "fista|dr", "dr", &w, &err) < 0);
    assert_non_null(strstr(err.msg, "expected one of fista|dr"));
    assert_int_equal(cs_arg_bool(in, &cl, "s", 0, &b, &err), 0);
    assert_int_equal(b, 1);
    assert_true(cs_arg_bool(in, &cl, "t", 0, &b, &err) < 0);
    cs_cmdline_free(&cl);
    cs_interp_free(in);
}

static void test_arg_grid(void **state)
{
    (void)state;
    cs_interp *in = interp();
    cs_cmdline cl = parse_ok("x g=0.3:0.02:0.9 l=1,2,5 one=7 bad=1:0:2 neg=1:1:0 m=1;2");
    cs_err err;
    double *v;
    size_t n;
    assert_int_equal(cs_arg_grid(in, &cl, "g", NULL, &v, &n, &err), 0);
    assert_int_equal(n, 31);
    assert_true(v[0] == 0.3 && v[1] == 0.32 && v[30] == 0.9);
    free(v);
    assert_int_equal(cs_arg_grid(in, &cl, "l", NULL, &v, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_true(v[2] == 5.0);
    free(v);
    assert_int_equal(cs_arg_grid(in, &cl, "one", NULL, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    free(v);
    assert_true(cs_arg_grid(in, &cl, "bad", NULL, &v, &n, &err) < 0);
    assert_true(cs_arg_grid(in, &cl, "neg", NULL, &v, &n, &err) < 0);
    assert_non_null(strstr(err.msg, "no points"));
    assert_true(cs_arg_grid(in, &cl, "m", NULL, &v, &n, &err) < 0);
    cs_cmdline_free(&cl);
    cs_interp_free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_name_and_keys),
        cmocka_unit_test(test_positional_and_matrix),
        cmocka_unit_test(test_comments_and_empty),
        cmocka_unit_test(test_quotes),
        cmocka_unit_test(test_unterminated_quote),
        cmocka_unit_test(test_quoted_name_and_control),
        cmocka_unit_test(test_key_syntax),
        cmocka_unit_test(test_last_key_wins_lookup),
        cmocka_unit_test(test_arg_double),
        cmocka_unit_test(test_arg_long_choice_bool),
        cmocka_unit_test(test_arg_grid),
    };
    return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
