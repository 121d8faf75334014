/* test_mpi.c — csreg-mpi under mpirun (cs_dist.h): sweep and maxcut spread
 * their trials over 3 ranks × 2 threads and write byte for byte the CSV
 * (and print the text) of one process with one thread; other ranks stay
 * quiet; an error only rank 0 meets (its output cannot be written) fails
 * the command on every rank alike, once reported, without a hang; a sweep
 * killed mid-way resumes under mpirun from the ranks' journals. Skipped
 * when csreg-mpi (make MPI=1) or mpirun is not there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"

static char mpi_bin[4096], mpirun[4096];

/* build/rel/csreg-mpi beside $CSREG_BIN (build/rel/csreg), and mpirun on
 * the PATH; 0 when both are there */
static int find_programs(void)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", cli_binary());
    snprintf(mpi_bin, sizeof mpi_bin, "%s/csreg-mpi", dirname(dir));
    if (access(mpi_bin, X_OK) != 0 || !realpath(mpi_bin, dir))
        return -1;
    snprintf(mpi_bin, sizeof mpi_bin, "%s", dir);
    const char *path = getenv("PATH");
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", path ? path : "/usr/bin:/bin");
    for (char *save, *p = strtok_r(buf, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
        snprintf(mpirun, sizeof mpirun, "%s/mpirun", p);
        if (access(mpirun, X_OK) == 0)
            return 0;
    }
    return -1;
}

static int setup(void **state)
{
    (void)state;
    if (find_programs() != 0)
        fprintf(stderr, "test_mpi: no %s or no mpirun on the PATH (build with MPI=1 after make "
                        "deps): the MPI tests are skipped\n", mpi_bin);
    return 0;
}

static char *make_dir(void)
{
    char t[] = "/tmp/csreg_mpiXXXXXX";
    char *d = mkdtemp(t);
    assert_non_null(d);
    return strdup(d);
}

static char *slurp(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *s = calloc(1, 1 << 20);
    size_t n = fread(s, 1, (1 << 20) - 1, f);
    s[n] = '\0';
    fclose(f);
    return s;
}

static void rm_dir(char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    free(dir);
}

/* `command` in one process (1 thread) and under mpirun -np 3 (threads
 * threads per rank), each in its own folder; the file `out` and stdout
 * must be the same. */
static void same_as_one_process(const char *one_cmd, const char *mpi_cmd, const char *out)
{
    if (!mpi_bin[0] || access(mpi_bin, X_OK) != 0 || !mpirun[0]) {
        skip();
        return;
    }
    char *d1 = make_dir(), *d3 = make_dir();
    cli_run r1 = {0}, r3 = {0};
    cli_opts o1 = {.cwd = d1, .timeout_s = 240}, o3 = {.cwd = d3, .timeout_s = 240};
    const char *a1[] = {"-e", one_cmd, NULL};
    cli_run_opts(&r1, &o1, a1);
    const char *a3[] = {"--allow-run-as-root", "--oversubscribe", "-np", "3", mpi_bin, "-e",
                        mpi_cmd, NULL};
    cli_run_program(&r3, &o3, mpirun, a3);
    if (r1.status != 0 || r3.status != 0)
        fprintf(stderr, "one: %d\n%s%s\nmpirun -np 3: %d\n%s%s\n", r1.status, r1.out, r1.err,
                r3.status, r3.out, r3.err);
    assert_int_equal(r1.status, 0);
    assert_int_equal(r3.status, 0);
    char *c1 = slurp(d1, out), *c3 = slurp(d3, out);
    assert_non_null(c1);
    assert_non_null(c3);
    assert_true(strlen(c1) > 80);
    assert_string_equal(c1, c3);
    /* rank 0 alone prints: the same text, once */
    assert_string_equal(r1.out, r3.out);
    free(c1);
    free(c3);
    cli_run_free(&r1);
    cli_run_free(&r3);
    rm_dir(d1);
    rm_dir(d3);
}

static void test_sweep_csv_as_one_process(void **state)
{
    (void)state;
    same_as_one_process("sweep kind=bin methods=bin,l1 N=24 gamma=0.3,0.5,0.7 trials=11 "
                        "restarts=2 threads=1 out=s.csv",
                        "sweep kind=bin methods=bin,l1 N=24 gamma=0.3,0.5,0.7 trials=11 "
                        "restarts=2 threads=2 out=s.csv",
                        "s.csv");
}

static void test_maxcut_csv_as_one_process(void **state)
{
    (void)state;
    same_as_one_process("maxcut graph=toy5 trials=7 threads=1 out=m.csv",
                        "maxcut graph=toy5 trials=7 threads=2 out=m.csv", "m.csv");
}

/* out=F/m.csv where F is a file: rank 0 fails to write, the others write
 * nothing and would not (maxcut: no journal, which every rank would keep); every rank takes rank 0's error, so the job ends
 * with that error, reported once, exit status 1, and no MPI abort. */
static void test_rank0_error_everywhere(void **state)
{
    (void)state;
    if (!mpi_bin[0] || access(mpi_bin, X_OK) != 0 || !mpirun[0]) {
        skip();
        return;
    }
    char *d = make_dir();
    char path[4200];
    snprintf(path, sizeof path, "%s/F", d);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    cli_run r = {0};
    cli_opts o = {.cwd = d, .timeout_s = 120};
    const char *a[] = {"--allow-run-as-root", "--oversubscribe", "-np", "3", mpi_bin,
                       "--keep-going", "-e", "maxcut graph=toy5 trials=3 out=F/m.csv", "-e",
                       "say \"after\"", NULL};
    cli_run_program(&r, &o, mpirun, a);
    fprintf(stderr, "status %d\n%s%s", r.status, r.out, r.err);
    assert_int_equal(r.status, 1);
    const char *e = strstr(r.err, "error:");
    assert_non_null(e);
    assert_null(strstr(e + 1, "error:"));     /* once: rank 0 alone reports */
    assert_null(strstr(r.err, "MPI_ABORT"));  /* the ranks agreed: no abort */
    assert_non_null(strstr(r.out, "after"));  /* --keep-going went on, on every rank */
    cli_run_free(&r);
    rm_dir(d);
}

/* A lost node: the whole mpirun is killed (SIGKILL) in the middle of a
 * sweep; each rank's journal (s.csv.journal.rR) keeps what it finished,
 * and the same command with resume=on under mpirun runs only the rest and
 * writes the CSV of an uninterrupted single process; the journals go. */
static void test_resume_after_kill(void **state)
{
    (void)state;
    if (!mpi_bin[0] || access(mpi_bin, X_OK) != 0 || !mpirun[0]) {
        skip();
        return;
    }
    const char *sweep = "sweep kind=bin methods=bin,linf N=60 gamma=0.3:0.1:0.9 trials=600 "
                        "restarts=2 threads=1 out=s.csv";
    char *d = make_dir(), *d1 = make_dir();
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "cd '%s' && timeout -s KILL 3 '%s' --allow-run-as-root "
             "--oversubscribe -np 2 '%s' -e '%s' >/dev/null 2>&1", d, mpirun, mpi_bin, sweep);
    double t0 = cli_now();
    int killed = system(cmd) != 0;
    print_message("the first run %s after %.1f s\n", killed ? "was killed" : "finished",
                  cli_now() - t0);
    size_t kept = 0;
    for (int r = 0; r < 2; r++) {
        char j[4300];
        snprintf(j, sizeof j, "%s/s.csv.journal.r%d", d, r);
        struct stat st;
        if (stat(j, &st) == 0)
            kept += (size_t)st.st_size;
    }
    print_message("journals left: %zu bytes\n", kept);
    if (killed)
        assert_true(kept > 0);
    char resume[1024];
    snprintf(resume, sizeof resume, "%s resume=on", sweep);
    cli_run r = {0}, r1 = {0};
    cli_opts o = {.cwd = d, .timeout_s = 240}, o1 = {.cwd = d1, .timeout_s = 240};
    const char *a[] = {"--allow-run-as-root", "--oversubscribe", "-np", "2", mpi_bin, "-e",
                       resume, NULL};
    cli_run_program(&r, &o, mpirun, a);
    if (r.status != 0)
        fprintf(stderr, "%s%s", r.out, r.err);
    assert_int_equal(r.status, 0);
    const char *a1[] = {"-e", sweep, NULL};
    cli_run_opts(&r1, &o1, a1);
    assert_int_equal(r1.status, 0);
    char *c = slurp(d, "s.csv"), *c1 = slurp(d1, "s.csv");
    assert_non_null(c);
    assert_non_null(c1);
    assert_string_equal(c, c1);
    for (int k = 0; k < 2; k++) {
        char j[4300];
        snprintf(j, sizeof j, "%s/s.csv.journal.r%d", d, k);
        assert_int_equal(access(j, F_OK), -1);
    }
    free(c);
    free(c1);
    cli_run_free(&r);
    cli_run_free(&r1);
    rm_dir(d);
    rm_dir(d1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_csv_as_one_process),
        cmocka_unit_test(test_maxcut_csv_as_one_process),
        cmocka_unit_test(test_rank0_error_everywhere),
        cmocka_unit_test(test_resume_after_kill),
    };
    return cmocka_run_group_tests_name("mpi", tests, setup, NULL);
}
