/* test_help.c — help that tells the truth: "(required)" only for keys a
 * command needs, usage lines whose defaults are the key tables', did-you-mean
 * that reads the arguments, carets at the entry at fault. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_commands.h"
#include "interp_util.h"

/* The help line of `key` in the output of `help CMD` (NULL when absent). */
static const char *key_line(const char *out, const char *key, char *line, size_t len)
{
    char needle[40];
    snprintf(needle, sizeof needle, "\n  %s ", key);
    const char *p = strstr(out, needle);
    if (!p)
        return NULL;
    p += 1;
    size_t n = strcspn(p, "\n");
    snprintf(line, len, "%.*s", (int)n, p);
    return line;
}

/* Every key of every command: "(required)" exactly when the table says the
 * command needs it, and the default column is the table's. */
static void test_required_only_when_required(void **state)
{
    fixture *f = *state;
    int required = 0;
    for (size_t i = 0; i < cs_command_count(); i++) {
        const cs_cmd_spec *c = cs_command_at(i);
        char cmd[64], line[512];
        snprintf(cmd, sizeof cmd, "help %s", c->name);
        const char *out = ok(f, cmd);
        for (const cs_key_spec *k = c->keys; k && k->key; k++) {
            assert_non_null(key_line(out, k->key, line, sizeof line));
            int says = strstr(line, "(required)") != NULL;
            if (says != (k->def == CS_REQUIRED))
                print_error("help %s: key %s: '%s'\n", c->name, k->key, line);
            assert_int_equal(says, k->def == CS_REQUIRED);
            required += says;
            if (k->def && *k->def) {
                char want[64];
                snprintf(want, sizeof want, "  %-10s %s", k->key, k->def);
                assert_true(strncmp(line, want, strlen(want)) == 0);
            }
        }
    }
    assert_int_equal(required, 2); /* sweep's kind, watch's dir */
    /* the keys the issue names, one by one */
    const char *out = ok(f, "help solve");
    char line[512];
    assert_non_null(strstr(key_line(out, "plot", line, sizeof line), " -  "));
    out = ok(f, "help hist");
    assert_non_null(strstr(key_line(out, "lo", line, sizeof line), "-1.05 max|w|"));
    assert_null(strstr(out, "(required)"));
    out = ok(f, "help sweep");
    assert_non_null(strstr(key_line(out, "kind", line, sizeof line), "(required)"));
    assert_null(strstr(key_line(out, "gamma", line, sizeof line), "(required)"));
}

/* `key=VALUE` in a usage line: when VALUE is a value one could type for the
 * key (a number, one choice, a literal range), it is the table's default. */
static void check_usage_defaults(const cs_cmd_spec *c, const char *usage, int raw)
{
    for (const char *p = usage; (p = strchr(p, '=')) != NULL; p++) {
        const char *k0 = p;
        while (k0 > usage && (isalnum((unsigned char)k0[-1]) || k0[-1] == '_'))
            k0--;
        char key[32], val[64];
        snprintf(key, sizeof key, "%.*s", (int)(p - k0), k0);
        size_t vl = strcspn(p + 1, " ]|");
        if (p[1 + vl] == '|')  /* a list of choices a|b: a placeholder */
            continue;
        snprintf(val, sizeof val, "%.*s", (int)vl, p + 1);
        const cs_key_spec *k = cs_command_key(c, key);
        if (!k || !*val)
            continue;
        cs_key_spec as_def = *k;
        as_def.def = val;
        if (!cs_key_def_plain(&as_def))
            continue;  /* .., FILE, i,j: placeholders */
        if (raw)  /* in the table's text a plain value is written {key} */
            print_error("%s: usage writes %s=%s; write {%s}\n", c->name, key, val, key);
        else if (!k->def || strcmp(val, k->def))
            print_error("%s: usage says %s=%s, the table %s\n", c->name, key, val,
                        k->def ? k->def : "none");
        assert_true(!raw && k->def && !strcmp(val, k->def));
    }
}

static void test_usage_defaults_from_the_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < cs_command_count(); i++) {
        const cs_cmd_spec *c = cs_command_at(i);
        char usage[1024];
        check_usage_defaults(c, c->usage, 1);
        check_usage_defaults(c, cs_command_usage(c, usage, sizeof usage), 0);
        assert_null(strchr(usage, '{'));
    }
    /* solve: no 10000 or 1 in the usage where the table says "by kind" */
    char usage[1024];
    cs_command_usage(cs_command_find("solve"), usage, sizeof usage);
    assert_string_equal(usage, "solve [method=auto] [maxit=..] [stop=oracle] [tol=1e-8] "
                               "[restarts=..] [reg=..] [plot=FILE]");
    cs_command_usage(cs_command_find("sweep"), usage, sizeof usage);
    assert_non_null(strstr(usage, "[N=100] [trials=100]"));
}

static void test_help_shows_the_expanded_usage(void **state)
{
    fixture *f = *state;
    const char *out = ok(f, "help solve");
    assert_non_null(strstr(out, "usage: solve [method=auto] [maxit=..]"));
    assert_non_null(strstr(out, "1e4 (2bit, orth: 1e3)"));
    out = ok(f, "help");
    assert_non_null(strstr(out, "step [n=1] [until=..] [solve keys]"));
    assert_null(strchr(out, '{'));
}

static void test_did_you_mean(void **state)
{
    fixture *f = *state;
    /* a positional argument: reg, not regs (which takes none) */
    fails(f, "regg ter", "unknown command 'regg' (did you mean 'reg'?)", 1);
    fails(f, "regg", "unknown command 'regg' (did you mean 'regs'?)", 1);
    /* swapped letters are one edit */
    fails(f, "reg tre", "unknown regularizer 'tre' (did you mean 'ter'?)", 5);
    fails(f, "slove", "(did you mean 'solve'?)", 1);
    assert_int_equal(cs_edit_distance("tre", "ter"), 1);
    assert_int_equal(cs_edit_distance("abc", "abc"), 0);
    assert_int_equal(cs_edit_distance("kitten", "sitting"), 3);
}

/* The caret points at the entry at fault, not at the argument. */
static void test_caret_at_the_entry(void **state)
{
    fixture *f = *state;
    fails(f, "eval 1,2,,3", "empty entry at row 1, column 3", 10);
    fails(f, "eval 1,2,x,3", "malformed number 'x' at row 1, column 3", 10);
    fails(f, "eval 1,2;3,,4", "empty entry at row 2, column 2", 12);
    fails(f, "landscape at=1,,2", "empty entry", 16);
    fails(f, "sweep kind=bin gamma=0.5,,0.6", "empty entry", 26);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_required_only_when_required, fixture_setup_text,
                                        fixture_teardown),
        cmocka_unit_test(test_usage_defaults_from_the_table),
        cmocka_unit_test_setup_teardown(test_help_shows_the_expanded_usage, fixture_setup_text,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_did_you_mean, fixture_setup_json, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_caret_at_the_entry, fixture_setup_json,
                                        fixture_teardown),
    };
    return cmocka_run_group_tests_name("help", tests, NULL, NULL);
}
