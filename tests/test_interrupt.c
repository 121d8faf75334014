/* test_interrupt.c — Ctrl-C (SIGINT) and SIGKILL sent to the real program
 * while it works: a script interrupted during train exits 130 naming the
 * command and how far it got, without running the next command (so no
 * half-trained model is saved); the same for -e; a long CSV write stops
 * at once and keeps the old file; an interrupted sweep keeps its old out=
 * file and writes the partial results beside it; a process killed while
 * writing leaves a recognizable temporary file, which the next write to
 * the same target removes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "cs_nn.h"
#include "interp_util.h"
#include "plot_util.h"

static int have_data(void)
{
    return access(CS_NN_DEFAULT_DATA "/train-images-idx3-ubyte.gz", R_OK) == 0;
}

static int exists(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat st;
    return stat(p, &st) == 0;
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *get(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return slurp(p, NULL);
}

static void test_script_interrupted_during_train(void **state)
{
    (void)state;
    if (!have_data())
        skip();
    char *dir = make_tmpdir();
    put(dir, "t.csr", "seed 3\ntrain model=mlp epochs=50\nsave model t.csnn\neval 1,2,3\n");
    cli_run r = {0};
    cli_opts o = {.cwd = dir, .interrupt_after = "seed: 3", .delay_ms = 1500};
    cli_run_opts(&r, &o, (const char *[]){"run", "t.csr", NULL});
    assert_true(r.interrupted);
    if (r.status != 130)
        fail_msg("status %d, stderr: %s", r.status, r.err);
    /* the command and how far it got */
    assert_non_null(strstr(r.err, "t.csr:2: interrupted: train stopped after "));
    assert_non_null(strstr(r.err, " steps (epoch "));
    assert_non_null(strstr(r.err, "the script stops here"));
    /* the next commands did not run */
    assert_false(exists(dir, "t.csnn"));
    assert_null(strstr(r.out, "value: 98"));
    /* the same with -e */
    cli_run_opts(&r, &o, (const char *[]){"-e", "seed 3", "-e", "train model=mlp epochs=50",
                                          "-e", "save model t.csnn", NULL});
    assert_int_equal(r.status, 130);
    assert_non_null(strstr(r.err, "interrupted: train stopped after "));
    assert_non_null(strstr(r.err, "1 more command not run"));
    assert_false(exists(dir, "t.csnn"));
    cli_run_free(&r);
    remove_tmpdir(dir);
}

/* Writing a 4-million-row CSV took 28 s and ignored Ctrl-C. */
static void test_write_interrupted(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    put(dir, "big.csv", "old\n");
    cli_run r = {0};
    /* 0.8 s in: the 4M rows take about 2 s since numbers are written fast */
    cli_opts o = {.cwd = dir, .interrupt_after = "reg: bin", .delay_ms = 800};
    double t0 = cli_now();
    cli_run_opts(&r, &o, (const char *[]){"-e", "reg bin", "-e", "landscape res=2001 out=big.csv",
                                          NULL});
    double took = cli_now() - t0;
    assert_int_equal(r.status, 130);
    assert_non_null(strstr(r.err, "interrupted"));
    if (took > 12)
        fail_msg("took %.1f s to stop", took);
    char *text = get(dir, "big.csv");
    assert_string_equal(text, "old\n");
    free(text);
    assert_int_equal(count_entries(dir), 1);
    cli_run_free(&r);
    remove_tmpdir(dir);
}

static void test_sweep_interrupted(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    put(dir, "s.csv", "old results\n");
    cli_run r = {0};
    cli_opts o = {.cwd = dir, .interrupt_after = "seed: 2", .delay_ms = 1500};
    cli_run_opts(&r, &o, (const char *[]){"-e", "seed 2", "-e",
                                          "sweep kind=bin methods=bin N=60 gamma=0.2:0.1:0.9 "
                                          "trials=400 threads=1 out=s.csv",
                                          NULL});
    assert_int_equal(r.status, 130);
    assert_non_null(strstr(r.err, "sweep interrupted: "));
    assert_non_null(strstr(r.err, "written to s.partial.csv (marked partial); s.csv is left as "
                                  "it was"));
    char *text = get(dir, "s.csv");
    assert_string_equal(text, "old results\n");
    free(text);
    text = get(dir, "s.partial.csv");
    assert_non_null(text);
    assert_non_null(strstr(text, "method,kind,N,M,gamma"));
    assert_non_null(strstr(text, "# partial: interrupted after "));
    free(text);
    cli_run_free(&r);
    remove_tmpdir(dir);
}

/* A temporary file of big.csv is there (the write has begun). */
static int writing(void *ctx)
{
    DIR *d = opendir(ctx);
    int found = 0;
    for (struct dirent *e; d && !found && (e = readdir(d)) != NULL;)
        found = strncmp(e->d_name, "big.csv.csreg-", 14) == 0;
    if (d)
        closedir(d);
    return found;
}

static void test_killed_write_cleaned_up(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    put(dir, "big.csv", "old\n");
    cli_run r = {0};
    cli_opts o = {.cwd = dir, .when = writing, .when_ctx = dir, .delay_ms = 200,
                  .signo = SIGKILL};
    cli_run_opts(&r, &o, (const char *[]){"-e", "landscape res=1001 out=big.csv", NULL});
    assert_true(r.interrupted && r.signaled);
    /* the old file, and the killed writer's recognizable temporary */
    char *text = get(dir, "big.csv");
    assert_string_equal(text, "old\n");
    free(text);
    assert_int_equal(count_entries(dir), 2);
    assert_true(writing(dir));
    /* the next write to the same target removes it */
    cli_opts o2 = {.cwd = dir};
    cli_run_opts(&r, &o2, (const char *[]){"-e", "landscape res=11 out=big.csv", NULL});
    assert_int_equal(r.status, 0);
    assert_false(writing(dir));
    assert_int_equal(count_entries(dir), 1);
    text = get(dir, "big.csv");
    assert_non_null(strstr(text, "x,y,value\n"));
    free(text);
    cli_run_free(&r);
    remove_tmpdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_script_interrupted_during_train),
        cmocka_unit_test(test_write_interrupted),
        cmocka_unit_test(test_sweep_interrupted),
        cmocka_unit_test(test_killed_write_cleaned_up),
    };
    return cmocka_run_group_tests_name("interrupt", tests, NULL, NULL);
}
