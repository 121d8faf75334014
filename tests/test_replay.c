/* test_replay.c — issue 4's replay check: a session using reg, eval,
 * problem, solve, step, trace and sweep (and a regularizer defined with
 * reg define, issue 16) is run in process, saved with
 * `save session`, and replayed by the csreg program ($CSREG_BIN) with
 * `--threads 1` and `--threads 2`: the CSVs of both replays are byte-identical
 * to each other and to the interactive run's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cs_interp.h"
#include "interp_util.h"

extern char **environ;

static const char *binary(void)
{
    const char *b = getenv("CSREG_BIN");
    return b ? b : "./csreg";
}

/* csreg run --threads T SCRIPT in dir (its relative file names land there). */
static int replay(const char *dir, const char *threads, const char *script)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addchdir_np(&fa, dir);
    int devnull = open("/dev/null", O_WRONLY);
    posix_spawn_file_actions_adddup2(&fa, devnull, 1);
    char bin[4096];
    if (binary()[0] == '/') {
        snprintf(bin, sizeof bin, "%s", binary());
    } else {
        char cwd[2048];
        assert_non_null(getcwd(cwd, sizeof cwd));
        snprintf(bin, sizeof bin, "%s/%s", cwd, binary());
    }
    char *argv[] = {bin, "--threads", (char *)threads, "run", (char *)script, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, bin, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(devnull);
    if (rc != 0) {
        print_error("cannot start %s\n", bin);
        return -1;
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static const char *const session[] = {
    "reg bin",
    "eval 1,-1,1,2",
    "reg ter",
    "eval 0,1,-1",
    "reg bin",
    "problem bin N=80 M=40 trial=3",
    "step n=7",
    "trace out=trace-step.csv",
    "reset",
    "solve restarts=4 maxit=3000",
    "trace out=trace-solve.csv",
    "reg linf",
    "solve",
    "trace out=trace-linf.csv",
    "problem ter N=60 gamma=0.6",
    "solve",
    "sweep kind=bin methods=bin,linf N=60 gamma=0.4:0.2:0.8 trials=5 restarts=3 "
    "out=sweep-bin.csv",
    "sweep kind=osb methods=osb,l1 N=50 M=40 K=10:10:30 trials=4 out=sweep-osb.csv",
    /* a regularizer defined in the session: the definition is journaled */
    "reg define wave g=\"sin(pi*x) + w*x\" h=exp(-x^2) w=0.5",
    "reg define myter g=x h=x^3",
    "reg wave",
    "eval 0.3,-1.2,2",
    "landscape res=21 out=land-wave.csv",
    "problem bin N=60 M=40",
    "solve maxit=2000 restarts=3",
    "trace out=trace-wave.csv",
    "sweep kind=ter methods=myter,ter N=50 gamma=0.5,0.7 trials=4 out=sweep-myter.csv",
};

static const char *const outputs[] = {"trace-step.csv",    "trace-solve.csv", "trace-linf.csv",
                                      "sweep-bin.csv",     "sweep-osb.csv",   "land-wave.csv",
                                      "trace-wave.csv",    "sweep-myter.csv"};
#define NOUT (sizeof outputs / sizeof outputs[0])

static void test_replay_identical(void **state)
{
    (void)state;
    if (access(binary(), X_OK) != 0) {
        print_message("no csreg program at %s (set CSREG_BIN): skipped\n", binary());
        skip();
    }
    char a[] = "/tmp/csreg_replayA_XXXXXX", b1[] = "/tmp/csreg_replayB_XXXXXX",
         b2[] = "/tmp/csreg_replayC_XXXXXX";
    assert_non_null(mkdtemp(a));
    assert_non_null(mkdtemp(b1));
    assert_non_null(mkdtemp(b2));

    /* the interactive session, in process (threads: all cores) */
    char *obuf = NULL;
    size_t olen = 0;
    FILE *out = open_memstream(&obuf, &olen);
    cs_interp_opts o = {.seed = 11, .out = out, .sandbox_dir = a, .threads = 0};
    cs_interp *in;
    cs_err err;
    assert_int_equal(cs_interp_new(&in, &o, &err), 0);
    for (size_t i = 0; i < sizeof session / sizeof *session; i++) {
        int col;
        int rc = cs_interp_exec(in, session[i], &col, &err);
        if (rc)
            print_error("'%s': %s\n", session[i], err.msg);
        assert_int_equal(rc, 0);
    }
    int col;
    assert_int_equal(cs_interp_exec(in, "save session s.csr", &col, &err), 0);
    cs_interp_free(in);
    fclose(out);
    free(obuf);

    char script[256], copy1[256], copy2[256];
    snprintf(script, sizeof script, "%s/s.csr", a);
    char *text = slurp(script, NULL);
    assert_non_null(text);
    assert_non_null(strstr(text, "seed 11\n"));
    assert_non_null(strstr(text, "\nsweep kind=osb methods=osb,l1 "));
    snprintf(copy1, sizeof copy1, "%s/s.csr", b1);
    snprintf(copy2, sizeof copy2, "%s/s.csr", b2);
    FILE *f1 = fopen(copy1, "w"), *f2 = fopen(copy2, "w");
    fputs(text, f1);
    fputs(text, f2);
    fclose(f1);
    fclose(f2);
    free(text);

    assert_int_equal(replay(b1, "1", "s.csr"), 0);
    assert_int_equal(replay(b2, "2", "s.csr"), 0);

    for (size_t i = 0; i < NOUT; i++) {
        char pa[256], p1[256], p2[256];
        snprintf(pa, sizeof pa, "%s/%s", a, outputs[i]);
        snprintf(p1, sizeof p1, "%s/%s", b1, outputs[i]);
        snprintf(p2, sizeof p2, "%s/%s", b2, outputs[i]);
        char *ta = slurp(pa, NULL), *t1 = slurp(p1, NULL), *t2 = slurp(p2, NULL);
        if (!ta || !t1 || !t2)
            print_error("%s missing (interactive %d, threads=1 %d, threads=2 %d)\n",
                        outputs[i], !!ta, !!t1, !!t2);
        assert_true(ta && t1 && t2);
        assert_true(strlen(ta) > 50);
        if (strcmp(ta, t1) || strcmp(t1, t2))
            print_error("%s differs between the runs\n", outputs[i]);
        assert_string_equal(ta, t1);
        assert_string_equal(t1, t2);
        free(ta);
        free(t1);
        free(t2);
    }
    rm_dir(a);
    rm_dir(b1);
    rm_dir(b2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
