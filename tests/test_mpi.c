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
#include <sys/wait.h>
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

/* A CSV without its provenance lines (cs_provenance.h: they name the
 * command, whose threads= or resume= differ between the runs compared). */
static char *slurp_csv(const char *dir, const char *name)
{
    char *s = slurp(dir, name);
    if (!s)
        return NULL;
    char *w = s;
    for (const char *p = s; *p;) {
        size_t len = strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n');
        int prov = !strncmp(p, "# csreg:", 8) || !strncmp(p, "# seed:", 7) ||
                   !strncmp(p, "# command:", 10) || !strncmp(p, "# reg:", 6);
        if (!prov) {
            memmove(w, p, len);
            w += len;
        }
        p += len;
    }
    *w = '\0';
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
    char *c1 = slurp_csv(d1, out), *c3 = slurp_csv(d3, out);
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
    char *c = slurp_csv(d, "s.csv"), *c1 = slurp_csv(d1, "s.csv");
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

/* One mpirun of `np` ranks running `line` in dir, at most `secs` seconds
 * (then killed: a hang). Returns the exit status, 124 for a hang; its
 * stderr into err (cap bytes). sig: 0, or a signal timeout sends mpirun
 * after `secs` (a Ctrl-C), the run then given 20 s more to end. */
static int mpi_run(const char *dir, int np, const char *line, int secs, const char *sig,
                   char *err, size_t cap)
{
    char cmd[16384], path[4300];
    snprintf(path, sizeof path, "%s/err.txt", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && timeout %s%s %d '%s' --allow-run-as-root "
             "--oversubscribe -np %d '%s' -e '%s' >/dev/null 2>err.txt", dir,
             sig ? "-k 20 -s " : "", sig ? sig : "", secs, mpirun, np, mpi_bin, line);
    int st = system(cmd);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    char *e = slurp(dir, "err.txt");
    snprintf(err, cap, "%s", e ? e : "");
    free(e);
    return rc;
}

/* Each way a rank can fail on its own before the trials (its journal a
 * folder, of another rank count, damaged) reaches every rank: the job
 * ends within seconds with the failing rank's error, instead of waiting
 * for ever; a fresh run removes the journals of other rank counts. */
static void test_rank_failures_do_not_hang(void **state)
{
    (void)state;
    if (!mpi_bin[0] || access(mpi_bin, X_OK) != 0 || !mpirun[0]) {
        skip();
        return;
    }
    const char *S = "sweep kind=bin methods=bin,linf N=60 gamma=0.3:0.1:0.9 threads=1 "
                    "trials=200 out=z.csv";
    char *d = make_dir();
    char err[8192], line[1024], path[4300];
    /* journals of 3 ranks, then a resume on 2: refused, naming the third */
    int rc = mpi_run(d, 3, S, 3, "INT", err, sizeof err);
    print_message("3 ranks stopped after 3 s: status %d\n", rc);
    snprintf(path, sizeof path, "%s/z.csv.journal.r2", d);
    assert_int_equal(access(path, F_OK), 0);
    snprintf(line, sizeof line, "%s resume=on", S);
    rc = mpi_run(d, 2, line, 60, NULL, err, sizeof err);
    assert_int_not_equal(rc, 124);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(err, "resume: z.csv.journal.r2 is the journal of another run "
                                "layout (another number of MPI ranks)"));
    /* rank 1's journal a folder: its error, on every rank */
    snprintf(path, sizeof path, "%s/z.csv.journal.r1", d);
    assert_int_equal(remove(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    rc = mpi_run(d, 3, line, 60, NULL, err, sizeof err);
    assert_int_not_equal(rc, 124);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(err, "rank 1: "));
    assert_int_equal(rmdir(path), 0);
    /* one bit of rank 0's header flipped */
    snprintf(path, sizeof path, "%s/z.csv.journal.r0", d);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 12, SEEK_SET), 0);
    int c = fgetc(f);
    assert_int_equal(fseek(f, 12, SEEK_SET), 0);
    fputc(c ^ 1, f);
    fclose(f);
    rc = mpi_run(d, 3, line, 60, NULL, err, sizeof err);
    assert_int_not_equal(rc, 124);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(err, "z.csv.journal.r0"));
    /* a fresh run on 2 ranks replaces them all, the third's too */
    rc = mpi_run(d, 2, "sweep kind=bin methods=bin N=20 gamma=0.3:0.1:0.9 threads=1 trials=200 "
                       "out=z.csv", 120, NULL, err, sizeof err);
    assert_int_equal(rc, 0);
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/z.csv.journal.r%d", d, k);
        assert_int_equal(access(path, F_OK), -1);
    }
    rm_dir(d);
}

/* Ctrl-C to mpirun (it sends the ranks SIGTERM): the single-process
 * behaviour, a message and what finished in NAME.partial.csv. */
static void test_ctrl_c_to_mpirun(void **state)
{
    (void)state;
    if (!mpi_bin[0] || access(mpi_bin, X_OK) != 0 || !mpirun[0]) {
        skip();
        return;
    }
    /* the signal once both ranks run the sweep (their journals are there) */
    char *d = make_dir(), err[8192], cmd[16384];
    snprintf(cmd, sizeof cmd, "cd '%s' && timeout -k 10 120 sh -c \"'%s' --allow-run-as-root "
             "--oversubscribe -np 2 '%s' -e 'sweep kind=bin methods=bin,linf N=40 "
             "gamma=0.3:0.1:0.9 threads=1 trials=400 out=z.csv' >/dev/null 2>err.txt & p=\\$!; "
             "for i in \\$(seq 600); do [ -s z.csv.journal.r0 ] && [ -s z.csv.journal.r1 ] && "
             "break; sleep 0.1; done; sleep 1; kill -INT \\$p; wait \\$p\"", d, mpirun, mpi_bin);
    int st = system(cmd), rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    char *e = slurp(d, "err.txt");
    snprintf(err, sizeof err, "%s", e ? e : "");
    free(e);
    print_message("status %d: %s", rc, err);
    assert_non_null(strstr(err, "sweep interrupted: "));
    assert_non_null(strstr(err, "written to z.partial.csv (marked partial)"));
    char *p = slurp(d, "z.partial.csv");
    assert_non_null(p);
    assert_non_null(strstr(p, "# partial: interrupted after "));
    free(p);
    rm_dir(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_csv_as_one_process),
        cmocka_unit_test(test_maxcut_csv_as_one_process),
        cmocka_unit_test(test_rank0_error_everywhere),
        cmocka_unit_test(test_resume_after_kill),
        cmocka_unit_test(test_rank_failures_do_not_hang),
        cmocka_unit_test(test_ctrl_c_to_mpirun),
    };
    return cmocka_run_group_tests_name("mpi", tests, setup, NULL);
}
