/* test_script_lang.c — the script language (issue 38 item 1): let, $NAME
 * and ${NAME}, csreg -D (which wins over let), for ... end (lists, ranges,
 * nested), errors at their line and column, and the journal: each command
 * as it ran, loops unrolled and variables substituted, so that `save
 * session` of a looped study runs again to the same files byte for byte.
 * In process through tests/interp_util.h, and the program as users run it
 * (tests/cli_util.h: scripts, -e, the REPL on stdin; in tmux, the REPL's
 * continuation prompt). */
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

#include "cli_util.h"
#include "interp_util.h"
#include "tmux_util.h"

/* The journal, one line after another with '\n'. */
static void journal_text(fixture *f, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cs_interp_journal_len(f->in); i++)
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s\n",
                                 cs_interp_journal_line(f->in, i));
}

static void test_let_and_substitution(void **state)
{
    fixture *f = *state;
    assert_string_equal(ok(f, "let L = 1e-3"), "");
    assert_string_equal(ok(f, "let S=2"), "");   /* the key=value form too */
    assert_string_equal(ok(f, "say \"L=$L S=${S}x $ $5 '$L'\""), "L=1e-3 S=2x $ $5 '1e-3'\n");
    assert_string_equal(ok(f, "say '$L stays'"), "$L stays\n");
    assert_string_equal(ok(f, "let T = ${L},$S"), "");
    assert_string_equal(ok(f, "say $T"), "1e-3,2\n");
    /* a value with blanks and quotes goes in as one argument */
    ok(f, "let W = 'a b\"c'\"'\"d");
    assert_string_equal(ok(f, "say $W"), "a b\"c'd\n");
    assert_string_equal(ok(f, "say \"[$W]\""), "[a b\"c'd]\n");
    /* in a value of key=value: the λ of a problem */
    ok(f, "let N = 12");
    const char *out = ok(f, "problem bin N=$N gamma=0.5");
    assert_non_null(strstr(out, "N: 12\n"));
    assert_non_null(strstr(out, "M: 6\n"));
    /* the journal holds the substituted lines, not let */
    char j[2048];
    journal_text(f, j, sizeof j);
    assert_string_equal(j, "say \"L=1e-3 S=2x $ $5 '1e-3'\"\n"
                           "say '$L stays'\n"
                           "say 1e-3,2\n"
                           "say 'a b\"c'\"'\"'d'\n"
                           "say \"[\"'a b\"c'\"'\"'d'\"]\"\n"
                           "problem bin N=12 gamma=0.5\n");
}

/* An undefined name is an error at its `$`; so are malformed lets. */
static void test_variable_errors(void **state)
{
    fixture *f = *state;
    fails(f, "say $NOPE", "undefined variable $NOPE", 5);
    fails(f, "problem bin N=20 gamma=${G}", "undefined variable $G", 24);
    fails(f, "say ${L", "unterminated ${", 5);
    fails(f, "say ${1x}", "'1x' is not a variable name", 5);
    fails(f, "let 1x = 2", "'1x' is not a variable name", 5);
    fails(f, "let A 2", "let takes one name, '=' and one value", 7);
    fails(f, "let A = 1 2", "let takes one name, '=' and one value", 11);
    fails(f, "let A =", "let takes one name, '=' and one value", 7);
    fails(f, "let", "let needs a name and a value", 1);
    fails(f, "let A = $B", "undefined variable $B", 9);
    assert_int_equal(cs_interp_journal_len(f->in), 0);
}

static void test_for_loops(void **state)
{
    fixture *f = *state;
    /* lines are kept until the end, which runs them */
    assert_string_equal(ok(f, "for L in 1e-7,1e-5,1e-3"), "");
    char prompt[64];
    cs_interp_prompt(f->in, prompt, sizeof prompt);
    assert_string_equal(prompt, "...> ");
    assert_string_equal(ok(f, "  say \"L=$L\""), "");
    assert_string_equal(ok(f, "end"), "L=1e-7\nL=1e-5\nL=1e-3\n");
    cs_interp_prompt(f->in, prompt, sizeof prompt);
    assert_string_equal(prompt, "csreg[bin]> ");
    /* nested, a range (as sweeps read it: 12 digits), the outer variable inside */
    ok(f, "for S in 1,2");
    ok(f, "for G in 0.1:0.1:0.3   # a comment");
    ok(f, "say $S/$G");
    ok(f, "end");
    ok(f, "say --");
    assert_string_equal(ok(f, "end"), "1/0.1\n1/0.2\n1/0.3\n--\n2/0.1\n2/0.2\n2/0.3\n--\n");
    /* the loop's variable is the loop's: gone after it, restored when it shadowed */
    fails(f, "say $G", "undefined variable $G", 5);
    ok(f, "let S = outer");
    ok(f, "for S in inner");
    ok(f, "end");
    assert_string_equal(ok(f, "say $S"), "outer\n");
    /* the journal: each command as it ran */
    cs_interp_reset(f->in, NULL);
    ok(f, "for S in 1,2");
    ok(f, "seed $S");
    ok(f, "for L in 1e-3,1e-1");
    ok(f, "eval $L,$S");
    ok(f, "end");
    ok(f, "end");
    char j[1024];
    journal_text(f, j, sizeof j);
    assert_string_equal(j, "seed 1\neval 1e-3,1\neval 1e-1,1\nseed 2\neval 1e-3,2\n"
                           "eval 1e-1,2\n");
}

static void test_for_errors(void **state)
{
    fixture *f = *state;
    fails(f, "end", "end without for", 1);
    fails(f, "  end  # done", "end without for", 3);
    fails(f, "for L 1,2", "expected 'in' after for L", 7);
    fails(f, "for 1L in 1", "'1L' is not a variable name", 5);
    fails(f, "for L in 1,,2", "empty entry", 12);
    fails(f, "for L in 1:0:2", "has no points", 10);
    fails(f, "for L in 1 2", "one list after in", 12);
    fails(f, "for L in $X", "undefined variable $X", 10);
    /* a for never closed: the end of the input says so, at the for */
    ok(f, "for L in 1,2");
    ok(f, "eval $L");
    int col;
    cs_err err;
    assert_int_equal(cs_interp_finish(f->in, &col, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "for without end"));
    assert_int_equal(col, 1);
    assert_int_equal(cs_interp_finish(f->in, &col, &err), CS_OK);   /* dropped */
    /* an error in a body: the loop stops; where names the body line */
    cs_interp_set_line(f->in, 10);
    ok(f, "for L in 1,2");
    cs_interp_set_line(f->in, 11);
    ok(f, "  eval $L,x");
    cs_interp_set_line(f->in, 12);
    fflush(f->out);
    size_t before = f->len;
    assert_true(cs_interp_exec(f->in, "end", &col, &err) < 0);
    fflush(f->out);
    assert_int_equal(f->len, before);   /* the first iteration failed: nothing printed */
    assert_non_null(strstr(err.msg, "(in the loop, L=1)"));
    assert_int_equal(col, 11);
    const char *text;
    assert_int_equal(cs_interp_where(f->in, &text), 11);
    assert_string_equal(text, "  eval $L,x");
    cs_interp_set_line(f->in, 0);
    /* `end junk` does not run the loop */
    ok(f, "for L in 1");
    fails(f, "end junk", "end takes nothing after it", 5);
    char prompt[64];
    cs_interp_prompt(f->in, prompt, sizeof prompt);
    assert_string_equal(prompt, "csreg[bin]> ");
}

/* Loops are bounded: at most loop_limit lines for one line given. */
static void test_loop_limit(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    cs_interp_opts o = {.seed = 1, .out = out, .loop_limit = 5};
    cs_interp *in;
    cs_err err;
    int col;
    assert_int_equal(cs_interp_new(&in, &o, &err), 0);
    assert_int_equal(cs_interp_exec(in, "for i in 1:1:10", &col, &err), 0);
    assert_int_equal(cs_interp_exec(in, "say $i", &col, &err), 0);
    assert_true(cs_interp_exec(in, "end", &col, &err) < 0);
    assert_non_null(strstr(err.msg, "loops ran more than 5 lines for one line"));
    fflush(out);
    assert_string_equal(buf, "1\n2\n3\n4\n5\n");
    cs_interp_free(in);
    fclose(out);
    free(buf);
}

/* ---- the program ---------------------------------------------------------------- */

static char *write_in(const char *dir, const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_cli_define_and_errors(void **state)
{
    (void)state;
    cli_run r = {0};
    char dir[] = "/tmp/csreg_script_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *script = write_in(dir, "lets.csr", "let L = 5\nsay \"L=$L\"\n");
    /* -D wins over let, before or after run, -DNAME=VALUE too */
    cli_run_args(&r, NULL, (const char *[]){"run", script, NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "L=5\n");
    cli_run_args(&r, NULL, (const char *[]){"run", script, "-D", "L=7", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "L=7\n");
    cli_run_args(&r, NULL, (const char *[]){"-DL=a b", "run", script, NULL});
    assert_string_equal(r.out, "L=a b\n");
    cli_run_args(&r, NULL, (const char *[]){"-D", "X=3", "-e", "say \"x=$X\"", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "x=3\n");
    cli_run_args(&r, NULL, (const char *[]){"-D", "3X=1", "-e", "say 1", NULL});
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "-D 3X=1: expected NAME=VALUE"));
    /* a loop over a -D name would change it: refused */
    cli_run_args(&r, NULL, (const char *[]){"-D", "L=1", "-e", "for L in 2,3", "-e", "end", NULL});
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "-D sets L"));
    /* an undefined variable: FILE:LINE:COL, the line, the caret */
    script = write_in(dir, "undef.csr", "let A = 1\n\nsolve lambda=$A maxit=$L\n");
    cli_run_args(&r, NULL, (const char *[]){"run", script, NULL});
    assert_int_equal(r.status, 1);
    char want[600];
    snprintf(want, sizeof want, "%s:3:23: error: undefined variable $L", script);
    assert_true(strncmp(r.err, want, strlen(want)) == 0);
    assert_non_null(strstr(r.err, "\n    solve lambda=$A maxit=$L\n                          ^\n"));
    /* a for without end, an end without for: at their lines */
    script = write_in(dir, "noend.csr", "say a\nfor L in 1,2\n  say $L\n");
    cli_run_args(&r, NULL, (const char *[]){"run", script, NULL});
    assert_int_equal(r.status, 1);
    snprintf(want, sizeof want, "%s:2:1: error: for without end", script);
    assert_true(strncmp(r.err, want, strlen(want)) == 0);
    assert_string_equal(r.out, "a\n");
    script = write_in(dir, "nofor.csr", "say a\n  end\n");
    cli_run_args(&r, NULL, (const char *[]){"run", script, NULL});
    snprintf(want, sizeof want, "%s:2:3: error: end without for", script);
    assert_true(strncmp(r.err, want, strlen(want)) == 0);
    /* an error in a loop's body: its own line and column, the iteration */
    script = write_in(dir, "body.csr", "for L in 1,2\n  say $L\n  eval $L,,1\nend\n");
    cli_run_args(&r, NULL, (const char *[]){"run", script, NULL});
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "1\n");
    snprintf(want, sizeof want, "%s:3:11: error: ", script);
    assert_true(strncmp(r.err, want, strlen(want)) == 0);
    assert_non_null(strstr(r.err, "(in the loop, L=1)\n      eval $L,,1\n              ^\n"));
    /* -e: a for without an -e end */
    cli_run_args(&r, NULL, (const char *[]){"-e", "for L in 1", "-e", "say $L", NULL});
    assert_int_equal(r.status, 1);
    assert_string_equal(r.err, "error: for without end (a loop runs when its end comes)\n");
    cli_run_args(&r, NULL, (const char *[]){"-e", "for L in 1,2", "-e", "say $L", "-e", "end",
                                            NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "1\n2\n");
    cli_run_free(&r);
    rm_dir(dir);
}

/* The REPL reading a here-doc: let, a loop, and a for left open at the end. */
static void test_repl_stdin(void **state)
{
    (void)state;
    cli_run r = {0};
    cli_run_args(&r, "let X = 2\nfor i in 1,2\n  say $i$X\nend\nsay done\n",
                 (const char *[]){"--repl", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "12\n22\ndone\n");
    assert_string_equal(r.err, "");
    cli_run_args(&r, "for i in 1,2\n  say $i,x\n  eval $i,,x\nend\nfor j in 1\nsay never\n",
                 (const char *[]){NULL});
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "1,x\n");
    assert_non_null(strstr(r.err, "<stdin>:3:11: error: "));
    assert_non_null(strstr(r.err, "\n      eval $i,,x\n"));
    assert_non_null(strstr(r.err, "<stdin>:5:1: error: for without end"));
    cli_run_free(&r);
}

/* The REPL on a terminal: after a for, "...> " until the end runs it. */
static void test_repl_continuation_prompt(void **state)
{
    (void)state;
    if (!tmux_available()) {
        print_message("no tmux: skipped\n");
        return;
    }
    char dir[64], cmd[512], screen[8192];
    assert_int_equal(tmux_state_dir(dir, sizeof dir, "csreg_scriptrepl"), 0);
    snprintf(cmd, sizeof cmd, "env XDG_STATE_HOME=%s %s --repl", dir, cli_binary());
    tmux_session t;
    assert_int_equal(tmux_start_retry(&t, 100, 20, cmd), 0);
    assert_int_equal(tmux_wait_for(&t, "csreg[bin]>", 5000, screen, sizeof screen), 0);
    tmux_literal(&t, "for i in 1,2");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    assert_int_equal(tmux_wait_for(&t, "\n...>", 3000, screen, sizeof screen), 0);
    tmux_literal(&t, "say \"i=$i\"");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    assert_int_equal(tmux_wait_for(&t, "...> say \"i=$i\"\n...>", 3000, screen, sizeof screen),
                     0);
    tmux_literal(&t, "end");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    assert_int_equal(tmux_wait_for(&t, "...> end\ni=1\ni=2\ncsreg[bin]>", 3000, screen,
                                   sizeof screen), 0);
    /* Ctrl-C drops a loop being typed with the line */
    tmux_literal(&t, "for j in 1");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    tmux_literal(&t, "say never");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    assert_int_equal(tmux_wait_for(&t, "...> say never\n...>", 3000, screen, sizeof screen), 0);
    tmux_literal(&t, "say half");
    /* Ctrl-C once readline has the text (under load, not before) */
    assert_int_equal(tmux_wait_for(&t, "...> say half", 5000, screen, sizeof screen), 0);
    tmux_keys(&t, (const char *[]){"C-c", NULL});
    assert_int_equal(tmux_wait_for(&t, "...> say half\ncsreg[bin]>", 5000, screen, sizeof screen),
                     0);
    tmux_literal(&t, "end");
    tmux_keys(&t, (const char *[]){"Enter", NULL});
    assert_int_equal(tmux_wait_for(&t, "end without for", 3000, screen, sizeof screen), 0);
    assert_null(strstr(screen, "\nnever\n"));   /* the loop never ran */
    tmux_keys(&t, (const char *[]){"C-d", NULL});
    for (int i = 0; i < 100 && tmux_pane_alive(&t); i++)
        usleep(20000);
    tmux_stop(&t);
    tmux_state_dir_remove(dir);
}

/* A λ × seed study: one CSV per iteration; `save session` keeps what ran
 * (loops unrolled, variables substituted), and `csreg run` of it in another
 * folder writes the same files, byte for byte. */
static void test_study_replays_byte_identical(void **state)
{
    (void)state;
    static const char study[] =
        "# lambda x seed\n"
        "let N = 20\n"
        "for S in 1,2\n"
        "  seed $S\n"
        "  for L in 1e-3,1e-1\n"
        "    problem bin N=$N gamma=0.6 noise=0.01\n"
        "    solve fit=ls lambda=$L maxit=300 restarts=1\n"
        "    trace out=run_s${S}_l$L.csv\n"
        "  end\n"
        "end\n"
        "save session saved.csr\n";
    static const char *const csvs[] = {"run_s1_l1e-3.csv", "run_s1_l1e-1.csv", "run_s2_l1e-3.csv",
                                       "run_s2_l1e-1.csv"};
    char a[] = "/tmp/csreg_study_XXXXXX", b[] = "/tmp/csreg_replay_XXXXXX";
    assert_non_null(mkdtemp(a));
    assert_non_null(mkdtemp(b));
    write_in(a, "study.csr", study);
    cli_run r = {0};
    cli_opts o = {.cwd = a};
    cli_run_opts(&r, &o, (const char *[]){"run", "study.csr", NULL});
    if (r.status)
        print_error("%s", r.err);
    assert_int_equal(r.status, 0);
    /* the journal: the expanded lines, in order */
    char path[600];
    snprintf(path, sizeof path, "%s/saved.csr", a);
    char *saved = slurp(path, NULL);
    assert_non_null(saved);
    const char *body = strstr(saved, "\nseed 1\n");
    assert_non_null(body);
    assert_string_equal(body + 1,
                        "seed 1\n"
                        "  seed 1\n"
                        "    problem bin N=20 gamma=0.6 noise=0.01\n"
                        "    solve fit=ls lambda=1e-3 maxit=300 restarts=1\n"
                        "    trace out=run_s1_l1e-3.csv\n"
                        "    problem bin N=20 gamma=0.6 noise=0.01\n"
                        "    solve fit=ls lambda=1e-1 maxit=300 restarts=1\n"
                        "    trace out=run_s1_l1e-1.csv\n"
                        "  seed 2\n"
                        "    problem bin N=20 gamma=0.6 noise=0.01\n"
                        "    solve fit=ls lambda=1e-3 maxit=300 restarts=1\n"
                        "    trace out=run_s2_l1e-3.csv\n"
                        "    problem bin N=20 gamma=0.6 noise=0.01\n"
                        "    solve fit=ls lambda=1e-1 maxit=300 restarts=1\n"
                        "    trace out=run_s2_l1e-1.csv\n");
    /* replayed elsewhere: the same four files */
    snprintf(path, sizeof path, "%s/saved.csr", b);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(saved, f);
    fclose(f);
    o.cwd = b;
    cli_run_opts(&r, &o, (const char *[]){"run", "saved.csr", NULL});
    assert_int_equal(r.status, 0);
    char *first = NULL;
    for (size_t i = 0; i < 4; i++) {
        size_t la, lb;
        snprintf(path, sizeof path, "%s/%s", a, csvs[i]);
        char *x = slurp(path, &la);
        snprintf(path, sizeof path, "%s/%s", b, csvs[i]);
        char *y = slurp(path, &lb);
        assert_non_null(x);
        assert_non_null(y);
        assert_int_equal(la, lb);
        assert_memory_equal(x, y, la);
        /* a trace per iteration: a header and the iterations */
        assert_non_null(strstr(x, "iter,start,objective"));
        assert_true(la > 200);
        if (i == 0)
            first = x;
        else {
            assert_string_not_equal(first, x);   /* each iteration its own run */
            free(x);
        }
        free(y);
    }
    free(first);
    free(saved);
    cli_run_free(&r);
    rm_dir(a);
    rm_dir(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_let_and_substitution, fixture_setup_text,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_variable_errors, fixture_setup_text,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_for_loops, fixture_setup_text, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_for_errors, fixture_setup_text, fixture_teardown),
        cmocka_unit_test(test_loop_limit),
        cmocka_unit_test(test_cli_define_and_errors),
        cmocka_unit_test(test_repl_stdin),
        cmocka_unit_test(test_repl_continuation_prompt),
        cmocka_unit_test(test_study_replays_byte_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
