/* frontend.c — scripts, -e lines and the REPL on top of the interpreter. */
#include "cs_frontend.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

static void report(cs_interp *in, const char *line, const char *where, int lineno,
                   const cs_err *err, int json)
{
    if (json) {
        cs_interp_print_error(in, line, err, stdout);
        return;
    }
    if (where)
        fprintf(stderr, "%s:%d: error: %s\n", where, lineno, err->msg);
    else
        fprintf(stderr, "error: %s\n", err->msg);
}

int cs_run_line(cs_interp *in, const char *line, const char *where, int lineno, int json)
{
    cs_err err;
    int col;
    int rc = cs_interp_exec(in, line, &col, &err);
    if (rc < 0) {
        report(in, line, where, lineno, &err, json);
        return 1;
    }
    return rc == 1 ? 2 : 0;
}

int cs_run_script(cs_interp *in, const char *path, int json)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cs_err err;
        cs_fail(&err, CS_EIO, "cannot open '%s': %s", path, strerror(errno));
        report(in, "run", NULL, 0, &err, json);
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rc = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        rc = cs_run_line(in, line, path, lineno, json);
    }
    free(line);
    fclose(f);
    return rc;
}

/* lua.c's shape: four small functions hide readline or plain stdio. */
static char *repl_readline(int tty, const char *prompt)
{
    if (tty)
        return readline(prompt);
    char *line = NULL;
    size_t cap = 0;
    if (getline(&line, &cap, stdin) < 0) {
        free(line);
        return NULL;
    }
    line[strcspn(line, "\r\n")] = '\0';
    return line;
}

static void repl_saveline(int tty, const char *line)
{
    if (tty && line[strspn(line, " \t")])
        add_history(line);
}

int cs_repl(cs_interp *in, int json)
{
    int tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    int status = 0;
    for (;;) {
        char prompt[128];
        cs_interp_prompt(in, prompt, sizeof prompt);
        char *line = repl_readline(tty, prompt);
        if (!line)
            break;
        repl_saveline(tty, line);
        int rc = cs_run_line(in, line, tty ? NULL : "<stdin>", 0, json);
        free(line);
        if (rc == 2)
            break;
        if (rc == 1 && !tty)
            status = 1;  /* piped input: report failure at exit, keep going */
    }
    if (tty)
        putchar('\n');
    return status;
}
