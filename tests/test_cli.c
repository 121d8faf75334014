/* test_cli.c — the csreg program as users run it: exit codes, stdout,
 * stderr. The binary comes from $CSREG_BIN (set by tests/run_tests.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"

typedef cli_run run_result;

static void run(run_result *r, const char *stdin_text, const char *const *args)
{
    cli_run_args(r, stdin_text, args);
}

static char *write_script(const char *text)
{
    return cli_write_script(text, strlen(text));
}

static void test_issue_example(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    run(r, NULL, (const char *[]){"--json", "-e", "reg bin", "-e", "eval 1,2,3", NULL});
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "{\"cmd\":\"eval\",\"reg\":\"bin\",\"value\":98,"
                                   "\"grad\":[-44,-16,156],\"seed\":1}\n"));
    assert_string_equal(r->err, "");
    cli_run_free(r);
    free(r);
}

/* Each bad input: exit 1, exactly one line on stderr naming the problem. */
static void expect_error(const char *cmd, const char *needle)
{
    run_result *r = calloc(1, sizeof *r);
    run(r, NULL, (const char *[]){"-e", cmd, NULL});
    if (r->status != 1 || !strstr(r->err, needle))
        print_error("'%s': status %d, stderr '%s'\n", cmd, r->status, r->err);
    assert_int_equal(r->status, 1);
    assert_true(strncmp(r->err, "error: ", 7) == 0);
    assert_non_null(strstr(r->err, needle));
    assert_ptr_equal(strchr(r->err, '\n'), r->err + strlen(r->err) - 1);
    cli_run_free(r);
    free(r);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    expect_error("reg nosuch", "unknown regularizer 'nosuch'");
    expect_error("eval 1,,2", "empty entry at row 1, column 2");
    expect_error("eval 1,nan", "not a finite number");
    expect_error("frobnicate", "unknown command 'frobnicate'");
    expect_error("eval", "eval needs an argument");
}

static void test_ragged_C(void **state)
{
    (void)state;
    /* eig is added by the regularizer library; until then the name is unknown */
    run_result *r = calloc(1, sizeof *r);
    run(r, NULL, (const char *[]){"-e", "reg eig C=1,2;3", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "error: "));
    assert_true(strstr(r->err, "ragged") || strstr(r->err, "unknown regularizer"));
    cli_run_free(r);
    free(r);
}

static void test_json_error(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    run(r, NULL, (const char *[]){"--json", "-e", "reg nosuch", NULL});
    assert_int_equal(r->status, 1);
    assert_string_equal(r->out,
                        "{\"cmd\":\"reg\",\"error\":\"unknown regularizer 'nosuch' (see regs)\","
                        "\"seed\":1}\n");
    cli_run_free(r);
    free(r);
}

static void test_script_error_location(void **state)
{
    (void)state;
    char *path = write_script("# a script\nreg bin\neval 1,,2\neval 1,2,3\n");
    char expect[256];
    snprintf(expect, sizeof expect,
             "%s:3:8: error: eval: empty entry at row 1, column 2\n    eval 1,,2\n           ^\n",
             path);
    run_result *r = calloc(1, sizeof *r);
    run(r, NULL, (const char *[]){"run", path, NULL});
    assert_int_equal(r->status, 1);
    assert_string_equal(r->err, expect);
    /* the script stopped at the error: line 4 did not run */
    assert_null(strstr(r->out, "value: 98"));
    unlink(path);
    cli_run_free(r);
    free(r);
}

static void test_script_runs(void **state)
{
    (void)state;
    char *path = write_script("seed 5\nreg bin\neval 1,2,3\nquit\neval 1,,2\n");
    run_result *r = calloc(1, sizeof *r);
    run(r, NULL, (const char *[]){"--json", "run", path, NULL});
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\"value\":98"));
    unlink(path);
    cli_run_free(r);
    free(r);
}

static void test_missing_script(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    run(r, NULL, (const char *[]){"run", "/nonexistent/x.csr", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "cannot open '/nonexistent/x.csr'"));
    cli_run_free(r);
    free(r);
}

static void test_options(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    run(r, NULL, (const char *[]){"--help", NULL});
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "usage: csreg"));
    run(r, NULL, (const char *[]){"--version", NULL});
    assert_int_equal(r->status, 0);
    assert_true(strncmp(r->out, "csreg ", 6) == 0);
    run(r, NULL, (const char *[]){"--bogus", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "unknown argument '--bogus'"));
    run(r, NULL, (const char *[]){"--seed", "abc", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "--seed"));
    run(r, NULL, (const char *[]){"--seed", NULL});
    assert_int_equal(r->status, 1);
    run(r, NULL, (const char *[]){"run", NULL});
    assert_int_equal(r->status, 1);
    run(r, NULL, (const char *[]){"--device", "tpu", NULL});
    assert_int_equal(r->status, 1);
    /* --threads, set threads and threads= share one limit */
    run(r, NULL, (const char *[]){"--threads", "1025", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "--threads: 1025 is out of range [0, 1024]"));
    run(r, NULL, (const char *[]){"--threads", "1024", "-e", "set threads 1024", "-e",
                                  "sweep kind=bin N=4 gamma=0.5 trials=1 threads=1024", NULL});
    assert_int_equal(r->status, 0);
    cli_run_free(r);
    free(r);
}

static void test_stdin_repl(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    run(r, "reg bin\neval 1,2,3\n", (const char *[]){"--json", NULL});
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\"grad\":[-44,-16,156]"));
    /* piped input carries on after an error but exits 1 */
    run(r, "eval 1,,2\neval 1,2,3\n", (const char *[]){"--json", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->out, "\"error\":"));
    assert_non_null(strstr(r->out, "\"value\":98"));
    cli_run_free(r);
    free(r);
}

/* A script's text on the terminal: control characters shown as ^X, so a
 * script cannot retitle or clear it; the caret still under the fault. NUL
 * bytes are refused at their position (they used to end the line). */
static void test_script_text_shown_safely(void **state)
{
    (void)state;
    static const char text[] = "reg bin\neval 1,\033]0;pwned\007,2\n";
    char *path = cli_write_script(text, sizeof text - 1);
    run_result *r = calloc(1, sizeof *r);
    run(r, NULL, (const char *[]){"run", path, NULL});
    assert_int_equal(r->status, 1);
    assert_null(strchr(r->err, '\033'));
    assert_null(strchr(r->err, '\007'));
    char want[512];
    snprintf(want, sizeof want, "%s:2:8: error: control character in command line\n"
             "    eval 1,^[]0;pwned^G,2\n"
             "           ^\n", path);
    assert_string_equal(r->err, want);
    /* the NUL byte of line 3 */
    unlink(path);
    static const char nul[] = "reg bin\0 garbage\neval 1,2,3\n";
    path = cli_write_script(nul, sizeof nul - 1);
    run(r, NULL, (const char *[]){"run", path, NULL});
    assert_int_equal(r->status, 1);
    snprintf(want, sizeof want, "%s:1:8: error: a NUL byte at column 8: not a text file\n",
             path);
    assert_true(strncmp(r->err, want, strlen(want)) == 0);
    assert_null(strstr(r->out, "value"));   /* nothing after it ran either */
    unlink(path);
    cli_run_free(r);
    free(r);
}

/* --json is UTF-8: bytes that are not are written as U+FFFD. */
static void test_json_utf8(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    run(r, NULL, (const char *[]){"--json", "-e", "save session /tmp/csreg_\xff\xc3\xa9\xc3.csr "
                                  "force=on", NULL});
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\"file\":\"/tmp/csreg_\\ufffd\xc3\xa9\\ufffd.csr\""));
    unlink("/tmp/csreg_\xff\xc3\xa9\xc3.csr");
    cli_run_free(r);
    free(r);
}

/* Piped input is a script: an error names <stdin>, the line and the column,
 * with the line and a caret under the fault. */
static void test_stdin_error_location(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    run(r, "reg bin\n\n  evall 1\neval 1,2,,3\n", (const char *[]){NULL});
    assert_int_equal(r->status, 1);
    assert_string_equal(r->err,
                        "<stdin>:3:3: error: unknown command 'evall' (did you mean 'eval'?)\n"
                        "      evall 1\n      ^\n"
                        "<stdin>:4:10: error: eval: empty entry at row 1, column 3\n"
                        "    eval 1,2,,3\n             ^\n");
    cli_run_free(r);
    free(r);
}

/* --keep-going runs every -e command after an error, and exits 1. */
static void test_keep_going_with_e(void **state)
{
    (void)state;
    run_result *r = calloc(1, sizeof *r);
    run(r, NULL, (const char *[]){"--json", "--keep-going", "-e", "evall 1", "-e", "reg bin",
                                  "-e", "eval 1,2,3", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->out, "{\"cmd\":\"evall\",\"error\":"));
    assert_non_null(strstr(r->out, "\"value\":98"));
    /* without it the first error stops the run */
    run(r, NULL, (const char *[]){"--json", "-e", "evall 1", "-e", "eval 1,2,3", NULL});
    assert_int_equal(r->status, 1);
    assert_null(strstr(r->out, "\"value\":98"));
    cli_run_free(r);
    free(r);
}

/* `csreg FILE.csr` (run forgotten) says how to run it. */
static void test_script_without_run(void **state)
{
    (void)state;
    char *path = write_script("reg bin\n");
    run_result *r = calloc(1, sizeof *r);
    run(r, NULL, (const char *[]){path, NULL});
    assert_int_equal(r->status, 1);
    char want[128];
    snprintf(want, sizeof want, "(to run a script: csreg run %s)", path);
    assert_non_null(strstr(r->err, want));
    run(r, NULL, (const char *[]){"missing.csr", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "csreg run missing.csr"));
    unlink(path);
    cli_run_free(r);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_issue_example),   cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_ragged_C),        cmocka_unit_test(test_json_error),
        cmocka_unit_test(test_script_error_location), cmocka_unit_test(test_script_runs),
        cmocka_unit_test(test_missing_script),  cmocka_unit_test(test_options),
        cmocka_unit_test(test_stdin_repl),      cmocka_unit_test(test_stdin_error_location),
        cmocka_unit_test(test_keep_going_with_e), cmocka_unit_test(test_script_without_run),
        cmocka_unit_test(test_script_text_shown_safely),
        cmocka_unit_test(test_json_utf8),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
