/* test_outputs.c — atomic outputs (engine/base/file.c) and the check of
 * finished images (plots/gp_image.c): recognizable temporary names, our
 * stale ones removed at the next write to the same target, writes that
 * stop on a cancel or a failed write keeping the old file, the name of
 * partial results, and truncated PNG/PDF/GIF/SVG files refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cs_file.h"
#include "gp.h"
#include "interp_util.h"
#include "plot_util.h"

static int exists(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat st;
    return stat(p, &st) == 0;
}

static void put(const char *dir, const char *name, const void *data, size_t n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* A process id that is no longer running. */
static long dead_pid(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return (long)pid;
}

static void test_temporary_name(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    char path[512], want[600];
    snprintf(path, sizeof path, "%s/x.csv", dir);
    cs_afile af;
    cs_err err = {0};
    assert_int_equal(cs_afile_open(&af, path, 0, &err), CS_OK);
    snprintf(want, sizeof want, "%s/x.csv.csreg-%ld-", dir, (long)getpid());
    assert_true(strncmp(af.tmp, want, strlen(want)) == 0);
    assert_string_equal(af.tmp + strlen(af.tmp) - 4, ".tmp");
    fputs("a,b\n", af.f);
    assert_int_equal(cs_afile_commit(&af, &err), CS_OK);
    assert_int_equal(count_entries(dir), 1);
    char *text = slurp(path, NULL);
    assert_string_equal(text, "a,b\n");
    free(text);
    remove_tmpdir(dir);
}

static void test_stale_temporaries(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    long dead = dead_pid();
    char stale[128], other[128], self[128], alive[128], odd[128];
    snprintf(stale, sizeof stale, "x.csv.csreg-%ld-3.tmp", dead);
    snprintf(other, sizeof other, "y.csv.csreg-%ld-3.tmp", dead);   /* another target */
    snprintf(self, sizeof self, "x.csv.csreg-%ld-99.tmp", (long)getpid()); /* a write going on */
    snprintf(alive, sizeof alive, "x.csv.csreg-1-4.tmp");           /* init is alive */
    snprintf(odd, sizeof odd, "x.csv.csreg-%ld-3.tmp.keep", dead);  /* not our pattern */
    const char *names[] = {stale, other, self, alive, odd};
    for (size_t i = 0; i < 5; i++)
        put(dir, names[i], "part", 4);
    put(dir, "x.csv", "old\n", 4);
    char path[512];
    snprintf(path, sizeof path, "%s/x.csv", dir);
    cs_afile af;
    cs_err err = {0};
    assert_int_equal(cs_afile_open(&af, path, 0, &err), CS_OK);
    assert_false(exists(dir, stale));
    assert_true(exists(dir, other) && exists(dir, self) && exists(dir, alive) && exists(dir, odd));
    cs_afile_abort(&af);
    /* a gnuplot output goes through the same temporary files */
    put(dir, stale, "part", 4);
    snprintf(path, sizeof path, "%s/y.csv", dir);
    char tmp[600];
    int fd = cs_tmp_create(path, tmp, sizeof tmp, &err);
    assert_true(fd >= 0);
    close(fd);
    unlink(tmp);
    assert_false(exists(dir, other));
    assert_true(exists(dir, stale));
    assert_int_equal(cs_tmp_sweep(dir), 0);   /* a folder name: nothing of ours */
    remove_tmpdir(dir);
}

static void test_cancelled_write_keeps_old(void **state)
{
    (void)state;
    char *dir = make_tmpdir();
    put(dir, "x.csv", "old\n", 4);
    char path[512];
    snprintf(path, sizeof path, "%s/x.csv", dir);
    cs_cancel cancel = 0;
    cs_afile af;
    cs_err err = {0};
    assert_int_equal(cs_afile_open(&af, path, 0, &err), CS_OK);
    af.cancel = &cancel;
    fputs("new\n", af.f);
    assert_int_equal(cs_afile_poll(&af, &err), CS_OK);
    atomic_store(&cancel, 1);
    assert_int_equal(cs_afile_poll(&af, &err), CS_ECANCEL);
    assert_non_null(strstr(err.msg, "interrupted while writing"));
    assert_non_null(strstr(err.msg, path));
    cs_afile_abort(&af);
    char *text = slurp(path, NULL);
    assert_string_equal(text, "old\n");
    free(text);
    assert_int_equal(count_entries(dir), 1);
    /* a write error found while writing (the stream failed) */
    assert_int_equal(cs_afile_open(&af, path, 0, &err), CS_OK);
    FILE *ro = fopen("/dev/null", "r");
    FILE *keep = af.f;
    af.f = ro;
    fputs("x", af.f);
    fflush(af.f);
    assert_int_equal(cs_afile_poll(&af, &err), CS_EIO);
    assert_non_null(strstr(err.msg, "cannot write"));
    af.f = keep;
    fclose(ro);
    cs_afile_abort(&af);
    assert_int_equal(count_entries(dir), 1);
    remove_tmpdir(dir);
}

static void test_partial_name(void **state)
{
    (void)state;
    static const struct { const char *in, *out; } cases[] = {
        {"s.csv", "s.partial.csv"},          {"out/s.csv", "out/s.partial.csv"},
        {"a.b/s", "a.b/s.partial"},          {"s", "s.partial"},
        {".hidden", ".hidden.partial"},      {"x.tar.gz", "x.tar.partial.gz"},
    };
    char buf[64];
    cs_err err = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(cs_partial_name(cases[i].in, buf, sizeof buf, &err), CS_OK);
        assert_string_equal(buf, cases[i].out);
    }
    assert_int_equal(cs_partial_name("0123456789.csv", buf, 12, &err), CS_EINVAL);
}

/* Each format's start and end markers; the same file cut short fails. */
static void test_image_check(void **state)
{
    (void)state;
    static const unsigned char png[] = {
        0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
        0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0, 0x3a, 0x7e, 0x9b, 0x55,
        0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    static const char pdf[] = "%PDF-1.5\n1 0 obj\n<< >>\nendobj\ntrailer\n<< >>\n%%EOF\n";
    static const unsigned char gif[] = {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0, 0, 0, 0, 0x3b};
    static const char svg[] = "<?xml version=\"1.0\"?>\n<svg width=\"1\">\n<g/>\n</svg>\n\n";
    static const struct { const char *name; const void *data; size_t n; } good[] = {
        {"a.png", png, sizeof png}, {"a.PDF", pdf, sizeof pdf - 1},
        {"a.gif", gif, sizeof gif}, {"a.svg", svg, sizeof svg - 1},
    };
    char *dir = make_tmpdir();
    char path[512];
    cs_err err = {0};
    for (size_t i = 0; i < 4; i++) {
        put(dir, "img", good[i].data, good[i].n);
        snprintf(path, sizeof path, "%s/img", dir);
        if (cs_gp_check_image(path, good[i].name, &err) != CS_OK)
            fail_msg("%s: %s", good[i].name, err.msg);
        /* cut short by a full disk */
        put(dir, "img", good[i].data, good[i].n - 8);
        assert_int_equal(cs_gp_check_image(path, good[i].name, &err), CS_EIO);
        assert_non_null(strstr(err.msg, "incomplete"));
        assert_non_null(strstr(err.msg, good[i].name));
        /* another format under this name */
        put(dir, "img", good[(i + 1) % 4].data, good[(i + 1) % 4].n);
        assert_int_equal(cs_gp_check_image(path, good[i].name, &err), CS_EIO);
        assert_non_null(strstr(err.msg, "is not a"));
    }
    put(dir, "img", "", 0);
    assert_int_equal(cs_gp_check_image(path, "a.png", &err), CS_EIO);
    assert_non_null(strstr(err.msg, "gnuplot wrote nothing to 'a.png'"));
    put(dir, "img", "text", 4);
    assert_int_equal(cs_gp_check_image(path, "a.eps", &err), CS_OK);  /* no markers known */
    remove_tmpdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_temporary_name),
        cmocka_unit_test(test_stale_temporaries),
        cmocka_unit_test(test_cancelled_write_keeps_old),
        cmocka_unit_test(test_partial_name),
        cmocka_unit_test(test_image_check),
    };
    return cmocka_run_group_tests_name("outputs", tests, NULL, NULL);
}
