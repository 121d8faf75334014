/* test_interp.c — the interpreter end to end, in process: outputs, errors
 * and their columns, the journal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_interp.h"
#include "interp_util.h"
#include "cs_reg.h"

static void test_eval_bin_exact_json(void **state)
{
    fixture *f = *state;
    ok(f, "reg bin");
    /* every JSON line ends with the seed it ran with */
    assert_string_equal(ok(f, "eval 1,2,3"), "{\"cmd\":\"eval\",\"reg\":\"bin\",\"value\":98,"
                                              "\"grad\":[-44,-16,156],\"seed\":7}\n");
}

static void test_eval_matrix_row_major(void **state)
{
    fixture *f = *state;
    /* bin on a matrix argument is rejected: it takes a vector */
    fails(f, "eval 1,2;3,4", "takes a vector", 6);
    /* a column vector is a vector */
    const char *out = ok(f, "eval 1;2;3");
    assert_non_null(strstr(out, "\"value\":98"));
}

static void test_reg_json_fields(void **state)
{
    fixture *f = *state;
    const char *out = ok(f, "reg bin");
    assert_non_null(strstr(out, "{\"cmd\":\"reg\",\"reg\":\"bin\""));
    assert_non_null(strstr(out, "\"formula\":"));
}

static void test_unknown_command(void **state)
{
    fixture *f = *state;
    fails(f, "evl 1,2", "unknown command 'evl' (did you mean 'eval'?)", 1);
    fails(f, "  zzzzzz", "unknown command 'zzzzzz' (type 'help'", 3);
}

static void test_unknown_regularizer(void **state)
{
    fixture *f = *state;
    fails(f, "reg nosuch", "unknown regularizer 'nosuch'", 5);
    fails(f, "reg bim", "did you mean 'bin'?", 5);
}

static void test_reg_bad_key(void **state)
{
    fixture *f = *state;
    fails(f, "reg bin foo=1", "unknown key 'foo' for regularizer bin", 9);
}

static void test_positional_counts(void **state)
{
    fixture *f = *state;
    fails(f, "eval", "eval needs an argument (usage: eval X)", 1);
    fails(f, "eval 1,2 3,4", "unexpected argument '3,4'", 10);
    fails(f, "regs extra", "regs takes no positional argument", 6);
    fails(f, "reg", "reg needs an argument", 1);
}

static void test_keys_on_keyless_command(void **state)
{
    fixture *f = *state;
    fails(f, "eval 1,2 k=1", "eval takes no keys (got 'k')", 10);
}

static void test_eval_bad_numbers(void **state)
{
    fixture *f = *state;
    fails(f, "eval 1,,2", "empty entry at row 1, column 2", 8);
    fails(f, "eval 1,nan", "not a finite number at row 1, column 2", 8);
    fails(f, "eval 1,inf", "not a finite number", 8);
    fails(f, "eval 1,2x", "malformed number '2x'", 8);
    fails(f, "eval 1,2;3", "ragged matrix: row 2 has 1 entries, row 1 has 2", 6);
    fails(f, "eval ''", "empty list", 6);
    fails(f, "eval 1e999", "out of range", 6);
}

static void test_parse_errors_have_columns(void **state)
{
    fixture *f = *state;
    fails(f, "reg bin title=\"abc", "unterminated quote", 15);
}

static void test_seed_and_set(void **state)
{
    fixture *f = *state;
    /* seed and set seed report the new seed, once (not again as the
     * member every JSON line has) */
    const char *o = ok(f, "seed 42");
    assert_string_equal(o, "{\"cmd\":\"seed\",\"seed\":42}\n");
    o = ok(f, "set seed 9");
    assert_string_equal(o, "{\"cmd\":\"set\",\"seed\":9}\n");
    assert_non_null(strstr(ok(f, "eval 1,2"), ",\"seed\":9}\n"));
    fails(f, "seed -1", "out of range", 6);
    fails(f, "seed 1.5", "not an integer", 6);
    assert_non_null(strstr(ok(f, "set threads 2"), "\"threads\":2"));
    fails(f, "set threads 1025", "out of range [0, 1024]", 13);
    fails(f, "set device tpu", "expected cpu, cuda or auto", 12);
    fails(f, "set colour red", "unknown setting 'colour'", 5);
    assert_non_null(strstr(ok(f, "set device cpu"), "\"device\":\"cpu\""));
}

/* The program sets OpenBLAS's process-wide thread count per command: one
 * thread for everything but the network commands, so that a problem and its
 * solve give the same bits whatever --threads is (an eig problem's
 * eigenvectors and solve depend on it otherwise). */
static void test_threads_do_not_change_results(void **state)
{
    (void)state;
    static const char *script[] = {"problem eig N=20 gamma=0.6", "reg eig C=random",
                                   "solve maxit=300", "x"};
    char *out[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        fixture *f = fixture_new(1, 7, k ? 2 : 0, 0);
        assert_non_null(f);
        assert_int_equal(openblas_get_num_threads(), 1);
        for (size_t i = 0; i < 3; i++)
            ok(f, script[i]);
        out[k] = strdup(ok(f, "trace"));
        assert_int_equal(openblas_get_num_threads(), 1);
        ok(f, "set threads 2");
        assert_int_equal(openblas_get_num_threads(), 1);
        fixture_free(f);
    }
    assert_string_equal(out[0], out[1]);
    free(out[0]);
    free(out[1]);
}

static void test_duplicate_key(void **state)
{
    fixture *f = *state;
    fails(f, "reg holder p=2 p=3", "key 'p' given twice", 16);
}

static void test_quit_returns_1(void **state)
{
    fixture *f = *state;
    cs_err err;
    int col;
    assert_int_equal(cs_interp_exec(f->in, "quit", &col, &err), 1);
}

static void test_journal(void **state)
{
    fixture *f = *state;
    cs_err err;
    int col;
    ok(f, "seed 3");
    ok(f, "reg bin   # comment kept as typed");
    ok(f, "help");
    ok(f, "# just a comment");
    assert_true(cs_interp_exec(f->in, "eval 1,,2", &col, &err) < 0);
    ok(f, "eval 1,2");
    assert_int_equal(cs_interp_journal_len(f->in), 3);
    assert_string_equal(cs_interp_journal_line(f->in, 0), "seed 3");
    assert_string_equal(cs_interp_journal_line(f->in, 1), "reg bin   # comment kept as typed");
    assert_string_equal(cs_interp_journal_line(f->in, 2), "eval 1,2");
    assert_null(cs_interp_journal_line(f->in, 3));
}

static void test_help(void **state)
{
    fixture *f = *state;
    const char *out = ok(f, "help");
    assert_non_null(strstr(out, "eval X"));
    assert_non_null(strstr(out, "regularizers:"));
    out = ok(f, "help eval");
    assert_non_null(strstr(out, "usage: eval X"));
    assert_non_null(strstr(out, "example: eval 1,2,3"));
    out = ok(f, "help reg bin");
    assert_non_null(strstr(out, "N*sum(x^4) - (sum(x^2))^2"));
    assert_non_null(strstr(out, "yes (proven in the paper)"));
    fails(f, "help nosuch", "no help for 'nosuch'", 6);
    fails(f, "help reg nosuch", "unknown regularizer 'nosuch'", 10);
}

static void test_regs_lists_every_regularizer(void **state)
{
    fixture *f = *state;
    const char *out = ok(f, "regs");
    /* JSON: an array of objects, one per regularizer, and no text blob */
    assert_non_null(strstr(out, "\"regs\":[{\"name\":\"bin\",\"title\":"));
    assert_null(strstr(out, "\"text\":"));
    for (size_t i = 0; i < cs_reg_count(); i++) {
        const cs_reg_info *r = cs_reg_info_at(i);
        char obj[256];
        snprintf(obj, sizeof obj, "{\"name\":\"%s\",\"title\":\"%s\",", r->name, r->title);
        const char *start = strstr(out, obj), *end = start ? strstr(start, "]}") : NULL;
        assert_non_null(end);  /* the object ends with its keys array */
        snprintf(obj, sizeof obj, "\"spurious_free\":%s,",
                 r->spurious_free ? "true" : "false");
        const char *sf = strstr(start, obj);
        assert_true(sf && sf < end);
    }
    char count[32];
    snprintf(count, sizeof count, "\"count\":%zu", cs_reg_count());
    assert_non_null(strstr(out, count));
    /* text: the table */
    ok(f, "set json off");
    out = ok(f, "regs");
    for (size_t i = 0; i < cs_reg_count(); i++) {
        char name[32];
        snprintf(name, sizeof name, "\n%s ", cs_reg_info_at(i)->name);
        assert_non_null(strstr(out, name));
    }
}

static void test_text_mode(void **state)
{
    fixture *f = *state;
    const char *out = ok(f, "eval 1,2,3");
    assert_string_equal(out, "reg: bin\nvalue: 98\ngrad: -44 -16 156\n");
}

static void test_prompt(void **state)
{
    fixture *f = *state;
    char p[64];
    cs_interp_prompt(f->in, p, sizeof p);
    assert_string_equal(p, "csreg[bin]> ");
}

static void test_error_json_object(void **state)
{
    fixture *f = *state;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    cs_err err;
    cs_fail(&err, CS_EINVAL, "bad \"thing\"\n");
    cs_interp_print_error(f->in, "eval 1,,2", &err, out);
    fclose(out);
    assert_string_equal(buf, "{\"cmd\":\"eval\",\"error\":\"bad \\\"thing\\\"\\n\",\"seed\":"
                             "7}\n");   /* the session's seed, as every --json line */
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_eval_bin_exact_json, fixture_setup_json, fixture_teardown),
        cmocka_unit_test(test_threads_do_not_change_results),
        cmocka_unit_test_setup_teardown(test_eval_matrix_row_major, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_reg_json_fields, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_unknown_command, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_unknown_regularizer, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_reg_bad_key, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_positional_counts, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_keys_on_keyless_command, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_eval_bad_numbers, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_parse_errors_have_columns, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_seed_and_set, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_duplicate_key, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_quit_returns_1, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_journal, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_help, fixture_setup_text, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_regs_lists_every_regularizer, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_text_mode, fixture_setup_text, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_prompt, fixture_setup_text, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_error_json_object, fixture_setup_json, fixture_teardown),
    };
    return cmocka_run_group_tests_name("interp", tests, NULL, NULL);
}
