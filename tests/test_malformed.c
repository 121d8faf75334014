/* test_malformed.c — 30+ kinds of malformed input. Each must give one clear
 * line naming the problem and its column, leave the session usable, and
 * never crash (this suite also runs under ASan/UBSan). Then the same inputs
 * as scripts through the program: FILE:LINE:COL, exit status 1. */
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

#include "cs_interp.h"

extern char **environ;

typedef struct bad {
    const char *setup;  /* a command run first (may be NULL) */
    const char *line;
    const char *needle; /* must appear in the message */
    int col;            /* expected column */
} bad;

static const bad cases[] = {
    /* the tokenizer */
    {NULL, "eval 1,2 \"abc", "unterminated quote", 10},
    {NULL, "\"reg\" bin", "cannot be quoted", 1},
    {NULL, "reg b\001in", "control character", 6},
    {NULL, "reg bin title=\"a b\033[2J\"", "control character", 19},
    {NULL, "reg bin\177", "control character", 8},
    /* commands and keys */
    {NULL, "evl 1,2", "did you mean 'eval'", 1},
    {NULL, "qwertyuiop", "unknown command 'qwertyuiop'", 1},
    {NULL, "save session x.csr forse=on", "did you mean 'force'", 20},
    {NULL, "eval 1,2 k=1", "eval takes no keys", 10},
    {NULL, "reg holder p=2 p=2", "given twice", 16},
    {NULL, "eval", "needs an argument", 1},
    {NULL, "eval 1,2 3", "unexpected argument '3'", 10},
    /* numbers */
    {NULL, "eval 1,abc", "malformed number 'abc'", 8},
    {NULL, "eval 1,nan", "not a finite number", 8},
    {NULL, "eval inf,1", "not a finite number", 6},
    {NULL, "eval 1e999", "out of range", 6},
    {NULL, "seed 1.5", "not an integer", 6},
    {NULL, "seed 99999999999", "out of range [0, 4294967295]", 6},
    {NULL, "set threads 1025", "out of range [0, 1024]", 13},
    {NULL, "sweep kind=bin gamma=0.5 trials=1 threads=1025", "out of range [0, 1024]", 35},
    /* lists and matrices */
    {NULL, "eval 1,,2", "empty entry at row 1, column 2", 8},
    {NULL, "eval ''", "empty list", 6},
    {NULL, "eval 1,2;3", "ragged matrix", 6},
    {NULL, "reg eig C=1,2;3", "ragged matrix", 9},
    {NULL, "reg holder base=quux", "expected bin, osb or ter", 12},
    {NULL, "reg holder p=0.5", "out of range [1", 12},
    {NULL, "reg nosuch", "unknown regularizer 'nosuch'", 5},
    {NULL, "reg bin alpha=2", "unknown key 'alpha' for regularizer bin", 9},
    /* dimensions */
    {"reg eig C=1,0;0,2", "eval 1,2,3", "C is 2x2 but x has 3 entries", 6},
    {"reg equ B=2", "eval 1,2,3", "B", 6},
    {NULL, "eval 1,2;3,4", "takes a vector", 6},
    /* files */
    {NULL, "source /nonexistent/x.csr", "cannot open '/nonexistent/x.csr'", 8},
    {NULL, "reg eig C=/nonexistent/c.csv", "cannot open '/nonexistent/c.csv'", 9},
    {NULL, "save session", "needs a file name", 6},
    {NULL, "source /dev/zero", "not a regular file", 8},
    /* networks */
    {NULL, "train model=mlp lambda=10 epochs=1 limit=64", "lambda=10 has no regularizer", 17},
    {NULL, "train model=mlp hidden=16384,16384,16384,16384 epochs=1 limit=64",
     "over the 4 GiB memory budget for networks", 17},
    /* problems, solvers, sweeps */
    {NULL, "problem bin N=100000000 M=50000", "too large", 0},
    {NULL, "problem bin N=10 M=20", "M=20 exceeds N=10", 0},
    {NULL, "problem qux N=10 M=5", "unknown problem kind 'qux'", 9},
    {NULL, "problem bin N=abc M=5", "malformed number 'abc'", 13},
    {NULL, "solve", "no problem yet", 1},
    {NULL, "sweep kind=bin methods=bin,zzz N=10 gamma=0.5 trials=1", "unknown regularizer 'zzz'",
     16},
    {NULL, "sweep kind=bin methods=bin N=10 gamma=0.3:0.1 trials=1", "start:step:stop", 33},
    {NULL, "maxcut graph=/nonexistent/g.txt", "cannot open", 8},
    /* plots */
    {NULL, "landscape res=1", "out of range [3, 2001]", 11},
    {NULL, "landscape x=2:-2", "lo must be less than hi", 11},
    {NULL, "landscape out=x.doc", "unknown output format", 11},
    /* reg define: the column inside the expression, the key at fault */
    {NULL, "reg define myq g=x+*2 h=1", "g: column 3: unexpected '*'", 20},
    {NULL, "reg define myq g=x h=foo(x)", "unknown function 'foo'", 22},
    {NULL, "reg define myq g=x h=\"x ^ (2\"", "')' expected", 29},
    {NULL, "reg define myq g=x^2 h=bb", "unknown name 'bb'", 24},
    {NULL, "reg define bin g=x h=x^3", "'bin' is a built-in regularizer", 12},
    {NULL, "reg define define g=x h=1", "reserved word", 12},
    {NULL, "reg define myq g=a*x h=1 a=abc", "malformed number 'abc'", 28},
    {NULL, "reg define myq g=x h=x^3 pi=3", "constant name 'pi' is reserved", 26},
    {NULL, "reg define myq g=x h=x^3 form=holder p=3 q=2", "1/p + 1/q = 1", 42},
    {NULL, "reg define myq g=x h=x^3 p=3", "p= belongs to form=holder", 26},
    {NULL, "reg define myq g=x h=2*x", "proportional", 20},
    {NULL, "reg define myq g=x", "needs h=EXPR", 12},
    {"reg define mylog g=log(x) h=1", "reg analyze mylog plot=a.doc", "plot format", 19},
    {NULL, "reg analyze bin res=2", "out of range [5, 1001]", 17},
    {NULL, "reg analyze nosuch", "unknown regularizer 'nosuch'", 13},
    {NULL, "reg bin extra", "unexpected argument 'extra'", 9},
};

#define NCASES (sizeof cases / sizeof cases[0])

static void test_each_in_process(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    for (size_t i = 0; i < NCASES; i++) {
        cs_interp *in;
        cs_err err;
        cs_interp_opts o = {.json = 1, .seed = 1, .out = out};
        assert_int_equal(cs_interp_new(&in, &o, &err), 0);
        int col;
        if (cases[i].setup)
            assert_int_equal(cs_interp_exec(in, cases[i].setup, &col, &err), 0);
        int rc = cs_interp_exec(in, cases[i].line, &col, &err);
        if (rc >= 0 || !strstr(err.msg, cases[i].needle) ||
            (cases[i].col && col != cases[i].col))
            print_error("case %zu '%s': rc %d col %d msg '%s'\n", i, cases[i].line, rc, col,
                        err.msg);
        assert_true(rc < 0);
        assert_non_null(strstr(err.msg, cases[i].needle));
        assert_null(strchr(err.msg, '\n'));
        if (cases[i].col)
            assert_int_equal(col, cases[i].col);
        /* the session goes on */
        assert_int_equal(cs_interp_exec(in, "reg bin", &col, &err), 0);
        assert_int_equal(cs_interp_exec(in, "eval 1,2,3", &col, &err), 0);
        cs_interp_free(in);
    }
    fclose(out);
    free(buf);
    assert_true(NCASES >= 30);
}

/* Through the program: a script per case, FILE:LINE:COL on stderr, exit 1. */
static void test_each_as_script(void **state)
{
    (void)state;
    const char *bin = getenv("CSREG_BIN");
    if (!bin)
        bin = "./csreg";
    for (size_t i = 0; i < NCASES; i++) {
        char path[] = "/tmp/csreg_badXXXXXX";
        int fd = mkstemp(path);
        FILE *f = fdopen(fd, "w");
        fprintf(f, "# case %zu\n%s\n%s\n", i, cases[i].setup ? cases[i].setup : "regs",
                cases[i].line);
        fclose(f);
        char errp[] = "/tmp/csreg_baderrXXXXXX";
        int efd = mkstemp(errp);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, efd, 2);
        char *argv[] = {(char *)bin, "run", path, NULL};
        pid_t pid;
        assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, argv, environ), 0);
        posix_spawn_file_actions_destroy(&fa);
        int st;
        waitpid(pid, &st, 0);
        char text[4096];
        lseek(efd, 0, SEEK_SET);
        ssize_t n = read(efd, text, sizeof text - 1);
        text[n > 0 ? n : 0] = '\0';
        close(efd);
        unlink(errp);
        char loc[128];
        snprintf(loc, sizeof loc, "%s:3:%d: error: ", path, cases[i].col ? cases[i].col : 1);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 1 || (cases[i].col && !strstr(text, loc)))
            print_error("case %zu '%s': status %d stderr '%s'\n", i, cases[i].line, st, text);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 1);
        assert_non_null(strstr(text, cases[i].needle));
        if (cases[i].col)
            assert_non_null(strstr(text, loc));
        unlink(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_in_process),
        cmocka_unit_test(test_each_as_script),
    };
    return cmocka_run_group_tests_name("malformed", tests, NULL, NULL);
}
