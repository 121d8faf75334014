/* test_scripts.c — the session scripts of sessions/ (the paper's
 * experiments, the tour): every line parses and names a known command with
 * known keys, and every file they write (out=, plot=, ledger=, save model)
 * lies under out/, so a run never litters the folder it runs in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_cmdline.h"
#include "cs_commands.h"

static const char *sessions_dir(void)
{
    static const char *cands[] = {"sessions", "../../sessions", "../sessions"};
    for (size_t i = 0; i < sizeof cands / sizeof *cands; i++) {
        char probe[256];
        snprintf(probe, sizeof probe, "%s/fig1a.csr", cands[i]);
        if (access(probe, R_OK) == 0)
            return cands[i];
    }
    return NULL;
}

/* The files a line writes: out=, plot=, ledger= and `save model FILE`. */
static int writes_outside_out(const cs_cmdline *cl, char *what, size_t len)
{
    static const char *const keys[] = {"out", "plot", "ledger"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        const cs_arg *a = cs_cmdline_key(cl, keys[k]);
        if (a && strncmp(a->value, "out/", 4)) {
            snprintf(what, len, "%s=%s", keys[k], a->value);
            return 1;
        }
    }
    const cs_arg *p0 = cs_cmdline_pos(cl, 0), *p1 = cs_cmdline_pos(cl, 1);
    if (!strcmp(cl->name, "save") && p0 && p1 && strncmp(p1->value, "out/", 4)) {
        snprintf(what, len, "save %s %s", p0->value, p1->value);
        return 1;
    }
    return 0;
}

static void test_scripts_write_under_out(void **state)
{
    (void)state;
    const char *dir = sessions_dir();
    if (!dir)
        skip();
    DIR *d = opendir(dir);
    assert_non_null(d);
    int scripts = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t nl = strlen(e->d_name);
        if (nl < 5 || strcmp(e->d_name + nl - 4, ".csr"))
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char line[4096];
        int lineno = 0;
        while (fgets(line, sizeof line, f)) {
            lineno++;
            cs_cmdline cl;
            int col;
            cs_err err;
            if (cs_cmdline_parse(line, &cl, &col, &err))
                fail_msg("%s:%d: %s", path, lineno, err.msg);
            if (!cl.name) {
                cs_cmdline_free(&cl);
                continue;
            }
            const cs_cmd_spec *c = cs_command_find(cl.name);
            if (!c)
                fail_msg("%s:%d: unknown command '%s'", path, lineno, cl.name);
            for (size_t i = 0; i < cl.nargs; i++)
                if (cl.args[i].key && !c->open_keys && !cs_command_key(c, cl.args[i].key))
                    fail_msg("%s:%d: %s has no key '%s'", path, lineno, cl.name,
                             cl.args[i].key);
            char what[512];
            if (writes_outside_out(&cl, what, sizeof what))
                fail_msg("%s:%d: writes outside out/: %s", path, lineno, what);
            cs_cmdline_free(&cl);
        }
        fclose(f);
        scripts++;
    }
    closedir(d);
    assert_true(scripts >= 25);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scripts_write_under_out),
    };
    return cmocka_run_group_tests_name("scripts", tests, NULL, NULL);
}
