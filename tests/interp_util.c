#include "interp_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

fixture *fixture_new(int json, uint64_t seed, int threads, int sandbox)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    if (sandbox) {
        snprintf(f->dir, sizeof f->dir, "/tmp/csreg_test_XXXXXX");
        if (!mkdtemp(f->dir)) {
            free(f);
            return NULL;
        }
    }
    f->out = open_memstream(&f->buf, &f->len);
    cs_interp_opts o = {.json = json, .seed = seed, .threads = threads, .out = f->out,
                        .sandbox_dir = sandbox ? f->dir : NULL};
    cs_err err;
    if (!f->out || cs_interp_new(&f->in, &o, &err)) {
        fixture_free(f);
        return NULL;
    }
    return f;
}

void fixture_free(fixture *f)
{
    if (!f)
        return;
    cs_interp_free(f->in);
    if (f->out)
        fclose(f->out);
    free(f->buf);
    if (f->dir[0])
        rm_dir(f->dir);
    free(f);
}

int fixture_setup_json(void **state)
{
    *state = fixture_new(1, 7, 0, 0);
    return *state ? 0 : -1;
}

int fixture_setup_text(void **state)
{
    *state = fixture_new(0, 7, 0, 0);
    return *state ? 0 : -1;
}

int fixture_teardown(void **state)
{
    fixture_free(*state);
    return 0;
}

const char *ok(fixture *f, const char *line)
{
    cs_err err;
    int col;
    fflush(f->out);
    size_t before = f->len;
    int rc = cs_interp_exec(f->in, line, &col, &err);
    if (rc < 0)
        fail_msg("'%s' failed: %s", line, err.msg);
    fflush(f->out);
    return f->buf + before;
}

void fails(fixture *f, const char *line, const char *needle, int want_col)
{
    cs_err err;
    int col;
    int rc = cs_interp_exec(f->in, line, &col, &err);
    if (rc >= 0)
        fail_msg("'%s' unexpectedly succeeded", line);
    if (!strstr(err.msg, needle))
        fail_msg("'%s': message '%s' lacks '%s'", line, err.msg, needle);
    if (strchr(err.msg, '\n'))
        fail_msg("'%s': message spans lines: '%s'", line, err.msg);
    if (want_col >= 0 && col != want_col)
        fail_msg("'%s': column %d, want %d (%s)", line, col, want_col, err.msg);
}

void rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(dir);
}

char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = b ? fread(b, 1, (size_t)n, fp) : 0;
    if (b)
        b[got] = '\0';
    if (len)
        *len = got;
    fclose(fp);
    return b;
}

/* A line of cs_provenance's: "# csreg: ", "# seed: ", "# command: " or
 * "# reg: ". */
static int provenance_line(const char *p)
{
    static const char *const tags[] = {"# csreg: ", "# seed: ", "# command: ", "# reg: "};
    for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
        if (!strncmp(p, tags[i], strlen(tags[i])))
            return 1;
    return 0;
}

char *slurp_csv(const char *path)
{
    char *b = slurp(path, NULL);
    if (!b)
        return NULL;
    char *w = b;
    for (const char *p = b; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
        if (!provenance_line(p)) {
            memmove(w, p, n);
            w += n;
        }
        p += n;
    }
    *w = '\0';
    return b;
}

/* The number after "key": in a JSON line (NAN when absent). */
double jnum(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    if (!p)
        return NAN;
    p += strlen(pat);
    if (!strncmp(p, "true", 4))
        return 1;
    if (!strncmp(p, "false", 5))
        return 0;
    return strtod(p, NULL);
}

int list_has(char **c, const char *word)
{
    for (size_t i = 0; c && c[i]; i++)
        if (!strcmp(c[i], word))
            return 1;
    return 0;
}
