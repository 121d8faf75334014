/* test_cli.c — the csreg program as users run it: exit codes, stdout,
 * stderr. The binary comes from $CSREG_BIN (set by tests/run_tests.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef struct run_result {
    int status;
    char out[65536];
    char err[65536];
} run_result;

static const char *binary(void)
{
    const char *b = getenv("CSREG_BIN");
    return b ? b : "./csreg";
}

static void read_fd(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    ssize_t got;
    while ((got = read(fd, buf + len, cap - 1 - len)) > 0)
        len += (size_t)got;
    buf[len] = '\0';
}

/* Run csreg with argv (NULL-terminated, argv[0] ignored) and optional stdin text. */
static void run(run_result *r, const char *stdin_text, const char *const *args)
{
    char out_path[] = "/tmp/csreg_cli_outXXXXXX", err_path[] = "/tmp/csreg_cli_errXXXXXX",
         in_path[] = "/tmp/csreg_cli_inXXXXXX";
    int ofd = mkstemp(out_path), efd = mkstemp(err_path), ifd = mkstemp(in_path);
    assert_true(ofd >= 0 && efd >= 0 && ifd >= 0);
    if (stdin_text)
        assert_int_equal(write(ifd, stdin_text, strlen(stdin_text)), (ssize_t)strlen(stdin_text));
    lseek(ifd, 0, SEEK_SET);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, ifd, 0);
    posix_spawn_file_actions_adddup2(&fa, ofd, 1);
    posix_spawn_file_actions_adddup2(&fa, efd, 2);
    char *argv[32];
    size_t n = 0;
    argv[n++] = (char *)binary();
    for (size_t i = 0; args[i] && n < 31; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, binary(), &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st)); /* never a crash or a sanitizer abort by signal */
    r->status = WEXITSTATUS(st);
    lseek(ofd, 0, SEEK_SET);
    lseek(efd, 0, SEEK_SET);
    read_fd(ofd, r->out, sizeof r->out);
    read_fd(efd, r->err, sizeof r->err);
    close(ofd);
    close(efd);
    close(ifd);
    unlink(out_path);
    unlink(err_path);
    unlink(in_path);
}

static char *write_script(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/csreg_cli_scriptXXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void test_issue_example(void **state)
{
    (void)state;
    run_result *r = malloc(sizeof *r);
    run(r, NULL, (const char *[]){"--json", "-e", "reg bin", "-e", "eval 1,2,3", NULL});
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "{\"cmd\":\"eval\",\"reg\":\"bin\",\"value\":98,"
                                   "\"grad\":[-44,-16,156]}\n"));
    assert_string_equal(r->err, "");
    free(r);
}

/* Each bad input: exit 1, exactly one line on stderr naming the problem. */
static void expect_error(const char *cmd, const char *needle)
{
    run_result *r = malloc(sizeof *r);
    run(r, NULL, (const char *[]){"-e", cmd, NULL});
    if (r->status != 1 || !strstr(r->err, needle))
        print_error("'%s': status %d, stderr '%s'\n", cmd, r->status, r->err);
    assert_int_equal(r->status, 1);
    assert_true(strncmp(r->err, "error: ", 7) == 0);
    assert_non_null(strstr(r->err, needle));
    assert_ptr_equal(strchr(r->err, '\n'), r->err + strlen(r->err) - 1);
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
    run_result *r = malloc(sizeof *r);
    run(r, NULL, (const char *[]){"-e", "reg eig C=1,2;3", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "error: "));
    assert_true(strstr(r->err, "ragged") || strstr(r->err, "unknown regularizer"));
    free(r);
}

static void test_json_error(void **state)
{
    (void)state;
    run_result *r = malloc(sizeof *r);
    run(r, NULL, (const char *[]){"--json", "-e", "reg nosuch", NULL});
    assert_int_equal(r->status, 1);
    assert_string_equal(r->out,
                        "{\"cmd\":\"reg\",\"error\":\"unknown regularizer 'nosuch' (see regs)\"}\n");
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
    run_result *r = malloc(sizeof *r);
    run(r, NULL, (const char *[]){"run", path, NULL});
    assert_int_equal(r->status, 1);
    assert_string_equal(r->err, expect);
    /* the script stopped at the error: line 4 did not run */
    assert_null(strstr(r->out, "value: 98"));
    unlink(path);
    free(r);
}

static void test_script_runs(void **state)
{
    (void)state;
    char *path = write_script("seed 5\nreg bin\neval 1,2,3\nquit\neval 1,,2\n");
    run_result *r = malloc(sizeof *r);
    run(r, NULL, (const char *[]){"--json", "run", path, NULL});
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\"value\":98"));
    unlink(path);
    free(r);
}

static void test_missing_script(void **state)
{
    (void)state;
    run_result *r = malloc(sizeof *r);
    run(r, NULL, (const char *[]){"run", "/nonexistent/x.csr", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "cannot open '/nonexistent/x.csr'"));
    free(r);
}

static void test_options(void **state)
{
    (void)state;
    run_result *r = malloc(sizeof *r);
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
    free(r);
}

static void test_stdin_repl(void **state)
{
    (void)state;
    run_result *r = malloc(sizeof *r);
    run(r, "reg bin\neval 1,2,3\n", (const char *[]){"--json", NULL});
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\"grad\":[-44,-16,156]"));
    /* piped input carries on after an error but exits 1 */
    run(r, "eval 1,,2\neval 1,2,3\n", (const char *[]){"--json", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->out, "\"error\":"));
    assert_non_null(strstr(r->out, "\"value\":98"));
    free(r);
}

/* Piped input is a script: an error names <stdin>, the line and the column,
 * with the line and a caret under the fault. */
static void test_stdin_error_location(void **state)
{
    (void)state;
    run_result *r = malloc(sizeof *r);
    run(r, "reg bin\n\n  evall 1\neval 1,2,,3\n", (const char *[]){NULL});
    assert_int_equal(r->status, 1);
    assert_string_equal(r->err,
                        "<stdin>:3:3: error: unknown command 'evall' (did you mean 'eval'?)\n"
                        "      evall 1\n      ^\n"
                        "<stdin>:4:10: error: eval: empty entry at row 1, column 3\n"
                        "    eval 1,2,,3\n             ^\n");
    free(r);
}

/* --keep-going runs every -e command after an error, and exits 1. */
static void test_keep_going_with_e(void **state)
{
    (void)state;
    run_result *r = malloc(sizeof *r);
    run(r, NULL, (const char *[]){"--json", "--keep-going", "-e", "evall 1", "-e", "reg bin",
                                  "-e", "eval 1,2,3", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->out, "{\"cmd\":\"evall\",\"error\":"));
    assert_non_null(strstr(r->out, "\"value\":98"));
    /* without it the first error stops the run */
    run(r, NULL, (const char *[]){"--json", "-e", "evall 1", "-e", "eval 1,2,3", NULL});
    assert_int_equal(r->status, 1);
    assert_null(strstr(r->out, "\"value\":98"));
    free(r);
}

/* `csreg FILE.csr` (run forgotten) says how to run it. */
static void test_script_without_run(void **state)
{
    (void)state;
    char *path = write_script("reg bin\n");
    run_result *r = malloc(sizeof *r);
    run(r, NULL, (const char *[]){path, NULL});
    assert_int_equal(r->status, 1);
    char want[128];
    snprintf(want, sizeof want, "(to run a script: csreg run %s)", path);
    assert_non_null(strstr(r->err, want));
    run(r, NULL, (const char *[]){"missing.csr", NULL});
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "csreg run missing.csr"));
    unlink(path);
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
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
