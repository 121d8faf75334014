/* test_fulldisk.c — every kind of output on a full disk: a small tmpfs is
 * filled up to a few KiB (or to nothing) beside an old file "GOOD", then
 * the program writes over it. Each must fail with exit status 1 and a
 * message naming the file, keep the old file as it was and leave no
 * temporary file behind. The mount needs root (CI) or a user namespace;
 * where neither is allowed the suite says so and skips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_util.h"
#include "cs_nn.h"

static char dir[64];
static char why_not[256];

/* One output: the commands (@: the folder), the target's name, and how
 * many bytes may still be written (0: the first write fails; 8 KiB: the
 * file is cut off in the middle, as a full disk does). */
typedef struct out_case {
    const char *what;
    const char *target;
    int room;
    int needs_data;
    const char *cmds[6];
} out_case;

static const out_case cases[] = {
    {"landscape png", "o.png", 8192, 0, {"landscape res=201 out=@/o.png"}},
    {"landscape pdf", "o.pdf", 8192, 0, {"landscape res=201 out=@/o.pdf"}},
    {"landscape svg", "o.svg", 8192, 0, {"landscape res=51 out=@/o.svg"}},
    {"landscape gif", "o.gif", 8192, 0, {"landscape res=201 out=@/o.gif"}},
    {"landscape csv", "o.csv", 8192, 0, {"landscape res=101 out=@/o.csv"}},
    {"landscape txt", "o.txt", 8192, 0, {"landscape res=101 out=@/o.txt"}},
    {"sweep csv", "s.csv", 0, 0,
     {"sweep kind=bin methods=bin N=8 gamma=0.5:0.25:1 trials=2 out=@/s.csv"}},
    {"sweep plot", "s.png", 0, 0,
     {"sweep kind=bin methods=bin N=8 gamma=0.5:0.25:1 trials=2 plot=@/s.png"}},
    {"trace out", "t.csv", 0, 0, {"problem bin N=4 M=2", "solve maxit=50", "trace out=@/t.csv"}},
    {"trace ledger", "l.csv", 0, 0,
     {"problem bin N=4 M=2", "solve maxit=50", "trace ledger=@/l.csv"}},
    {"basins csv", "b.csv", 0, 0, {"problem bin N=2 M=1", "basins res=11 out=@/b.csv"}},
    {"basins png", "b.png", 8192, 0, {"problem bin N=2 M=1", "basins res=21 out=@/b.png"}},
    {"maxcut csv", "m.csv", 0, 0, {"maxcut graph=toy5 trials=2 out=@/m.csv"}},
    {"hist csv", "h.csv", 0, 1,
     {"train model=mlp hidden=8 epochs=1 limit=128", "hist out=@/h.csv"}},
    {"nnreport csv", "r.csv", 0, 1,
     {"train model=mlp hidden=8 epochs=1 limit=128", "nnreport out=@/r.csv"}},
    {"save model", "n.csnn", 8192, 1,
     {"train model=mlp hidden=8 epochs=1 limit=128", "save model @/n.csnn force=on"}},
    {"save session", "s.csr", 0, 0, {"reg ter", "save session @/s.csr force=on"}},
};
#define NCASES (sizeof cases / sizeof cases[0])

static void empty_dir(void)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
}

/* The old target, then a filler up to `room` bytes left. */
static void fill(const char *target, int room)
{
    empty_dir();
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, target);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("GOOD\n", f);
    assert_int_equal(fclose(f), 0);
    struct statvfs sv;
    assert_int_equal(statvfs(dir, &sv), 0);
    long long avail = (long long)sv.f_bavail * (long long)sv.f_frsize - room;
    snprintf(p, sizeof p, "%s/filler", dir);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    static char zeros[65536];
    while (avail > 0) {
        size_t k = avail < (long long)sizeof zeros ? (size_t)avail : sizeof zeros;
        ssize_t w = write(fd, zeros, k);
        if (w <= 0)
            break;
        avail -= w;
    }
    close(fd);
    assert_int_equal(statvfs(dir, &sv), 0);
    assert_true((long long)sv.f_bavail * (long long)sv.f_frsize <= room);
}

/* The command with @ replaced by the folder. */
static void subst(char *dst, size_t cap, const char *cmd)
{
    const char *at = strchr(cmd, '@');
    if (at)
        snprintf(dst, cap, "%.*s%s%s", (int)(at - cmd), cmd, dir, at + 1);
    else
        snprintf(dst, cap, "%s", cmd);
}

static int count_files(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static void test_outputs_on_full_disk(void **state)
{
    (void)state;
    if (!dir[0]) {
        print_message("skipped: %s\n", why_not);
        skip();
    }
    int have_data = access(CS_NN_DEFAULT_DATA "/train-images-idx3-ubyte.gz", R_OK) == 0;
    cli_run r = {0};
    for (size_t c = 0; c < NCASES; c++) {
        const out_case *k = &cases[c];
        if (k->needs_data && !have_data) {
            print_message("%s: skipped (no Fashion-MNIST in %s)\n", k->what, CS_NN_DEFAULT_DATA);
            continue;
        }
        char lines[6][256];
        const char *args[16];
        size_t n = 0;
        for (size_t i = 0; i < 6 && k->cmds[i]; i++) {
            subst(lines[i], sizeof lines[i], k->cmds[i]);
            args[n++] = "-e";
            args[n++] = lines[i];
        }
        args[n] = NULL;
        fill(k->target, k->room);
        cli_run_args(&r, NULL, args);
        char p[256];
        snprintf(p, sizeof p, "%s/%s", dir, k->target);
        FILE *f = fopen(p, "r");
        char got[64] = "";
        if (f) {
            size_t len = fread(got, 1, sizeof got - 1, f);
            got[len] = '\0';
            fclose(f);
        }
        if (r.status != 1 || !strstr(r.err, k->target) || strcmp(got, "GOOD\n") != 0 ||
            count_files() != 2)
            fail_msg("%s: status %d, old file now '%.20s', %d files in the folder, stderr: %s",
                     k->what, r.status, got, count_files(), r.err);
        print_message("%-14s %s", k->what, r.err);
    }
    cli_run_free(&r);
}

/* A disk that fills up under a sweep's journal (16 KiB left): the sweep
 * stops with what finished, as an interrupted one: s.csv stays as it was,
 * the finished grid points go to s.partial.csv (made room for by dropping
 * the journal when needed), the message names the journal's error. */
static void test_sweep_journal_fills_disk(void **state)
{
    (void)state;
    if (!dir[0]) {
        print_message("skipped: %s\n", why_not);
        skip();
    }
    char line[512];
    snprintf(line, sizeof line, "sweep kind=bin methods=bin,linf N=8 gamma=0.25:0.125:1 "
             "trials=200 maxit=200 threads=1 out=%s/s.csv", dir);
    fill("s.csv", 16384);
    cli_run r = {0};
    cli_run_args(&r, NULL, (const char *[]){"-e", line, NULL});
    char p[256];
    snprintf(p, sizeof p, "%s/s.csv", dir);
    FILE *f = fopen(p, "r");
    char got[64] = "";
    if (f) {
        size_t len = fread(got, 1, sizeof got - 1, f);
        got[len] = '\0';
        fclose(f);
    }
    assert_string_equal(got, "GOOD\n");
    if (r.status != 1 || !strstr(r.err, "sweep stopped, cannot write the journal") ||
        !strstr(r.err, "written to ") || !strstr(r.err, "s.partial.csv"))
        fail_msg("status %d, stderr: %s", r.status, r.err);
    snprintf(p, sizeof p, "%s/s.partial.csv", dir);
    f = fopen(p, "r");
    assert_non_null(f);
    char buf[4096];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    buf[len] = '\0';
    fclose(f);
    assert_non_null(strstr(buf, "\nbin,bin,8,2,0.25,0,200,"));   /* the first point kept */
    assert_non_null(strstr(buf, "# partial: interrupted after "));
    print_message("%s", r.err);
    cli_run_free(&r);
}

static int run_suite(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outputs_on_full_disk),
        cmocka_unit_test(test_sweep_journal_fills_disk),
    };
    return cmocka_run_group_tests_name("fulldisk", tests, NULL, NULL);
}

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, text, strlen(text));
    close(fd);
    return w == (ssize_t)strlen(text) ? 0 : -1;
}

/* In a fresh user and mount namespace (a child: this process may have
 * threads), where an unprivileged user may mount a tmpfs. */
static int mount_in_namespace(void)
{
    char map[64];
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
        return -1;
    write_text("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
    if (write_text("/proc/self/uid_map", map))
        return -1;
    snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
    if (write_text("/proc/self/gid_map", map))
        return -1;
    return mount("tmpfs", dir, "tmpfs", 0, "size=1m");
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/csreg_fulldiskXXXXXX");
    if (!mkdtemp(dir))
        return 1;
    if (mount("tmpfs", dir, "tmpfs", 0, "size=1m") == 0) {
        int rc = run_suite();
        umount2(dir, MNT_DETACH);
        rmdir(dir);
        return rc;
    }
    int e = errno;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (mount_in_namespace() != 0)
            _exit(77);
        _exit(run_suite());
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 77) {
        rmdir(dir);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    }
    rmdir(dir);
    snprintf(why_not, sizeof why_not, "cannot mount a tmpfs here (mount: %s; a user namespace "
             "was refused too): the full-disk test needs root or unprivileged user namespaces",
             strerror(e));
    dir[0] = '\0';
    return run_suite();
}
