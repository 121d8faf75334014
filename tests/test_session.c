/* test_session.c — completion, save session / source, and replay. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_complete.h"
#include "cs_interp.h"

static int has(char **c, const char *word)
{
    for (size_t i = 0; c && c[i]; i++)
        if (!strcmp(c[i], word))
            return 1;
    return 0;
}

static size_t count(char **c)
{
    size_t n = 0;
    while (c && c[n])
        n++;
    return n;
}

static char **complete(const char *line)
{
    size_t end = strlen(line);
    size_t start = end;
    while (start > 0 && line[start - 1] != ' ')
        start--;
    return cs_complete(line, start, end);
}

static void test_complete_commands(void **state)
{
    (void)state;
    char **c = complete("he");
    assert_int_equal(count(c), 1);
    assert_string_equal(c[0], "help");
    cs_complete_free(c);
    c = complete("s");
    assert_true(has(c, "seed") && has(c, "set") && has(c, "save") && has(c, "source"));
    assert_false(has(c, "eval"));
    cs_complete_free(c);
    c = complete("zzz");
    assert_null(c);
}

static void test_complete_reg_names_and_keys(void **state)
{
    (void)state;
    char **c = complete("reg bi");
    assert_true(has(c, "bin") && has(c, "binexp"));
    assert_false(has(c, "ter"));
    cs_complete_free(c);
    c = complete("help reg te");
    assert_true(has(c, "ter"));
    cs_complete_free(c);
    c = complete("reg holder ba");
    assert_int_equal(count(c), 1);
    assert_string_equal(c[0], "base=");
    cs_complete_free(c);
    c = complete("reg holder base=");
    assert_int_equal(count(c), 3);
    assert_true(has(c, "base=bin") && has(c, "base=osb") && has(c, "base=ter"));
    cs_complete_free(c);
}

static void test_complete_keys_and_choices(void **state)
{
    (void)state;
    char **c = complete("save session x.csr fo");
    assert_int_equal(count(c), 1);
    assert_string_equal(c[0], "force=");
    cs_complete_free(c);
    c = complete("save session x.csr force=o");
    assert_true(has(c, "force=on") && has(c, "force=off"));
    cs_complete_free(c);
    c = complete("save ");
    assert_true(has(c, "session"));
    cs_complete_free(c);
}

static void test_complete_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/csreg_complXXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/alpha.csr", dir);
    FILE *f = fopen(path, "w");
    fclose(f);
    snprintf(path, sizeof path, "%s/sub", dir);
    mkdir(path, 0700);
    char line[256];
    snprintf(line, sizeof line, "source %s/a", dir);
    char **c = complete(line);
    snprintf(path, sizeof path, "%s/alpha.csr", dir);
    assert_int_equal(count(c), 1);
    assert_string_equal(c[0], path);
    cs_complete_free(c);
    snprintf(line, sizeof line, "run %s/s", dir);
    c = complete(line);
    snprintf(path, sizeof path, "%s/sub/", dir);
    assert_int_equal(count(c), 1);
    assert_string_equal(c[0], path);
    cs_complete_free(c);
    snprintf(path, sizeof path, "%s/alpha.csr", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/sub", dir);
    rmdir(path);
    rmdir(dir);
}

/* An interpreter writing to a memory buffer, files confined to a temp dir. */
typedef struct fx {
    cs_interp *in;
    char *buf;
    size_t len;
    FILE *out;
    char dir[64];
} fx;

static fx *fx_new(int sandbox)
{
    fx *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/csreg_sessXXXXXX");
    assert_non_null(mkdtemp(f->dir));
    f->out = open_memstream(&f->buf, &f->len);
    cs_interp_opts o = {.json = 1, .seed = 11, .out = f->out,
                        .sandbox_dir = sandbox ? f->dir : NULL};
    cs_err err;
    assert_int_equal(cs_interp_new(&f->in, &o, &err), 0);
    return f;
}

static void fx_free(fx *f)
{
    cs_interp_free(f->in);
    fclose(f->out);
    free(f->buf);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "%s", f->dir);
    /* remove the few files the tests made */
    const char *names[] = {"s.csr", "t.csr", "loop.csr", "m.bin", "m2.bin", NULL};
    for (size_t i = 0; names[i]; i++) {
        char p[160];
        snprintf(p, sizeof p, "%s/%s", f->dir, names[i]);
        unlink(p);
    }
    rmdir(cmd);
    free(f);
}

static int run(fx *f, const char *line, cs_err *err)
{
    int col;
    return cs_interp_exec(f->in, line, &col, err);
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    static char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, fp);
    text[n] = '\0';
    fclose(fp);
    return text;
}

static void test_save_session_contents(void **state)
{
    (void)state;
    fx *f = fx_new(1);
    cs_err err;
    assert_int_equal(run(f, "reg ter", &err), 0);
    assert_int_equal(run(f, "eval 1,0,-1", &err), 0);
    assert_true(run(f, "eval 1,,", &err) < 0);
    assert_int_equal(run(f, "help", &err), 0);
    assert_int_equal(run(f, "save session s.csr", &err), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/s.csr", f->dir);
    char *text = slurp(path);
    assert_non_null(strstr(text, "# csreg session"));
    assert_non_null(strstr(text, "# version "));
    assert_non_null(strstr(text, "commit "));
    assert_non_null(strstr(text, "# seed 11, threads 0, device cpu"));
    /* the commands, in order, failures and help left out */
    assert_non_null(strstr(text, "\nseed 11\nreg ter\neval 1,0,-1\n"));
    assert_null(strstr(text, "help"));
    assert_null(strstr(text, "eval 1,,"));
    /* refuses to overwrite without force=on */
    assert_true(run(f, "save session s.csr", &err) < 0);
    assert_non_null(strstr(err.msg, "exists (add force=on to overwrite)"));
    assert_int_equal(run(f, "save session s.csr force=on", &err), 0);
    assert_true(run(f, "save model s.csr", &err) < 0);
    assert_true(run(f, "save session", &err) < 0);
    assert_non_null(strstr(err.msg, "needs a file name"));
    fx_free(f);
}

static void test_replay_same_output(void **state)
{
    (void)state;
    fx *a = fx_new(1);
    cs_err err;
    assert_int_equal(run(a, "reg osb", &err), 0);
    assert_int_equal(run(a, "eval 0.5,1,2", &err), 0);
    assert_int_equal(run(a, "seed 99", &err), 0);
    assert_int_equal(run(a, "reg bin", &err), 0);
    assert_int_equal(run(a, "eval 3,-1", &err), 0);
    fflush(a->out);
    char *first = strdup(a->buf);
    assert_int_equal(run(a, "save session s.csr", &err), 0);
    /* a fresh session (files in a's folder) sourcing the file prints the same results */
    fx *b = fx_new(1);
    cs_interp_free(b->in);
    cs_interp_opts o = {.json = 1, .seed = 11, .out = b->out, .sandbox_dir = a->dir};
    assert_int_equal(cs_interp_new(&b->in, &o, &err), 0);
    assert_int_equal(run(b, "source s.csr", &err), 0);
    fflush(b->out);
    /* b printed the seed line first, then the same results as a */
    const char *seedline = "{\"cmd\":\"seed\",\"seed\":11}\n";
    assert_memory_equal(b->buf, seedline, strlen(seedline));
    const char *rest = b->buf + strlen(seedline);
    assert_memory_equal(rest, first, strlen(first));
    assert_memory_equal(rest + strlen(first), "{\"cmd\":\"source\"", 15);
    free(first);
    fx_free(b);
    fx_free(a);
}

static int file_equal(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb)
            same = 0;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* `save model FILE` writes an output file, so it is journaled (a replay writes
 * it again); `save session` is not, nor is the `source` that ran a save model. */
static void test_save_model_journaled(void **state)
{
    (void)state;
    if (access("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz", R_OK) != 0) {
        skip();
        return;
    }
    fx *f = fx_new(1);
    cs_err err;
    assert_int_equal(run(f, "train model=mlp limit=256 epochs=1 hidden=16", &err), 0);
    assert_int_equal(run(f, "save model m.bin", &err), 0);
    assert_int_equal(run(f, "save session s.csr", &err), 0);
    /* a save model that fails (file exists) is not journaled */
    assert_true(run(f, "save model m.bin", &err) < 0);
    /* a sourced script's save model is journaled once, the source line not */
    char path[160];
    snprintf(path, sizeof path, "%s/t.csr", f->dir);
    FILE *fp = fopen(path, "w");
    fputs("save model m2.bin\n", fp);
    fclose(fp);
    assert_int_equal(run(f, "source t.csr", &err), 0);
    size_t n = cs_interp_journal_len(f->in);
    assert_int_equal(n, 3);
    assert_string_equal(cs_interp_journal_line(f->in, 0),
                        "train model=mlp limit=256 epochs=1 hidden=16");
    /* journaled with force=on: a replay overwrites the checkpoint it wrote */
    assert_string_equal(cs_interp_journal_line(f->in, 1), "save model m.bin force=on");
    assert_string_equal(cs_interp_journal_line(f->in, 2), "save model m2.bin force=on");
    snprintf(path, sizeof path, "%s/s.csr", f->dir);
    char *text = slurp(path);
    assert_non_null(strstr(text, "\ntrain model=mlp limit=256 epochs=1 hidden=16\n"
                                 "save model m.bin force=on\n"));
    assert_null(strstr(text, "save session"));
    /* replaying the saved session in a fresh folder writes the same checkpoint */
    fx *b = fx_new(1);
    char copy[160];
    snprintf(copy, sizeof copy, "%s/s.csr", b->dir);
    fp = fopen(copy, "w");
    fputs(text, fp);
    fclose(fp);
    assert_int_equal(run(b, "source s.csr", &err), 0);
    char ma[160], mb[160];
    snprintf(ma, sizeof ma, "%s/m.bin", f->dir);
    snprintf(mb, sizeof mb, "%s/m.bin", b->dir);
    assert_true(file_equal(ma, mb));
    /* and a fresh session again in the same folder, over the files it wrote */
    cs_interp_free(b->in);
    cs_interp_opts o = {.json = 1, .seed = 11, .out = b->out, .sandbox_dir = b->dir};
    assert_int_equal(cs_interp_new(&b->in, &o, &err), 0);
    assert_int_equal(run(b, "source s.csr", &err), 0);
    assert_true(file_equal(ma, mb));
    /* a name that needs quotes keeps them in the journal */
    size_t before = cs_interp_journal_len(b->in);
    assert_int_equal(run(b, "save model \"a b.bin\"", &err), 0);
    assert_string_equal(cs_interp_journal_line(b->in, before), "save model \"a b.bin\" force=on");
    char ab[160];
    snprintf(ab, sizeof ab, "%s/a b.bin", b->dir);
    unlink(ab);
    /* help shows both forms */
    assert_int_equal(run(f, "help save", &err), 0);
    fflush(f->out);
    assert_non_null(strstr(f->buf, "save session FILE.csr [force=on|off] | save model FILE [force=on|off]"));
    fx_free(b);
    fx_free(f);
}

static void test_source_errors(void **state)
{
    (void)state;
    fx *f = fx_new(1);
    cs_err err;
    char path[128];
    snprintf(path, sizeof path, "%s/t.csr", f->dir);
    FILE *fp = fopen(path, "w");
    fputs("reg bin\n\neval 1,2 bogus\n", fp);
    fclose(fp);
    assert_true(run(f, "source t.csr", &err) < 0);
    assert_non_null(strstr(err.msg, "t.csr:3:10: unexpected argument 'bogus'"));
    assert_true(run(f, "source nothere.csr", &err) < 0);
    assert_non_null(strstr(err.msg, "cannot open 'nothere.csr'"));
    /* a script that sources itself stops at the depth limit, no crash */
    snprintf(path, sizeof path, "%s/loop.csr", f->dir);
    fp = fopen(path, "w");
    fputs("source loop.csr\n", fp);
    fclose(fp);
    assert_true(run(f, "source loop.csr", &err) < 0);
    assert_non_null(strstr(err.msg, "nested more than 8 deep"));
    fx_free(f);
}

static void test_sandbox_maps_paths(void **state)
{
    (void)state;
    fx *f = fx_new(1);
    cs_err err;
    assert_int_equal(run(f, "save session /etc/evil/../s.csr", &err), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/s.csr", f->dir);
    assert_int_equal(access(path, F_OK), 0);
    assert_true(run(f, "save session ..", &err) < 0);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complete_commands),
        cmocka_unit_test(test_complete_reg_names_and_keys),
        cmocka_unit_test(test_complete_keys_and_choices),
        cmocka_unit_test(test_complete_files),
        cmocka_unit_test(test_save_session_contents),
        cmocka_unit_test(test_replay_same_output),
        cmocka_unit_test(test_save_model_journaled),
        cmocka_unit_test(test_source_errors),
        cmocka_unit_test(test_sandbox_maps_paths),
    };
    return cmocka_run_group_tests_name("session", tests, NULL, NULL);
}
