/* frontend.c — scripts, -e lines and the REPL on top of the interpreter:
 * errors as FILE:LINE:COL with the line and a caret, interrupts (exit 130
 * in main), and text from a script shown safely on a terminal. */
#include "cs_frontend.h"
#include "cs_progress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Text from a script or a file on the terminal: control characters are
 * shown as ^[ (ESC), ^G (BEL), ^? (DEL), so a script can never retitle,
 * clear or recolour the terminal; the rest as it is (UTF-8). */
static void put_safe(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            fputc('^', out);
            fputc(*p == 0x7f ? '?' : *p + 0x40, out);
        } else {
            fputc(*p, out);
        }
    }
}

/* Columns the first n bytes of s take as put_safe shows them (a UTF-8
 * character one, a control character two). */
static int shown_width(const char *s, int n)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && p < (const unsigned char *)s + n;
         p++)
        w += (*p < 0x20 || *p == 0x7f) ? 2 : (*p & 0xC0) != 0x80;
    return w;
}

/* What a message is: "error: ", or for an interrupt "interrupted: " unless
 * the message says so itself ("sweep interrupted: ..."). */
static const char *tag(const cs_err *err)
{
    if (err->code != CS_ECANCEL)
        return "error: ";
    return strstr(err->msg, "interrupted") ? "" : "interrupted: ";
}

/* gcc-style: WHERE:LINE:COL: error: MESSAGE, then the line and a caret
 * under the column at fault; without WHERE (-e) the one line "error: MESSAGE";
 * a JSON error object in JSON mode. */
static void report(cs_interp *in, const char *line, const char *where, int lineno, int col,
                   const cs_err *err, int json)
{
    cs_progress_end(); /* so a message never lands on the bar's line */
    if (json) {
        cs_interp_print_error(in, line, err, stdout);
        return;
    }
    if (!where) {
        fputs(tag(err), stderr);
        put_safe(stderr, err->msg);
        fputc('\n', stderr);
        return;
    }
    if (err->code == CS_ECANCEL) { /* the line that was stopped, no caret */
        fprintf(stderr, "%s:%d: %s", where, lineno, tag(err));
        put_safe(stderr, err->msg);
        fputs("; the script stops here\n    ", stderr);
        put_safe(stderr, line);
        fputc('\n', stderr);
        return;
    }
    fprintf(stderr, "%s:%d:%d: error: ", where, lineno, col ? col : 1);
    put_safe(stderr, err->msg);
    fputs("\n    ", stderr);
    put_safe(stderr, line);
    fprintf(stderr, "\n    %*s^\n", col > 1 ? shown_width(line, col - 1) : 0, "");
}

int cs_run_line(cs_interp *in, const char *line, const char *where, int lineno, int json)
{
    cs_err err;
    int col;
    int rc = cs_interp_exec(in, line, &col, &err);
    cs_progress_end();
    if (rc < 0) {
        const char *body;   /* an error in a loop's body: that line */
        int at = cs_interp_where(in, &body);
        report(in, body ? body : line, where, body ? at : lineno, col, &err, json);
        return 1;
    }
    return rc == 1 ? 2 : 0;
}

int cs_run_commands(cs_interp *in, const char *const *lines, size_t n, int json, int keep_going)
{
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        cs_err err = {0}, ierr;
        int col, rc;
        /* Ctrl-C between two commands: the next does not start */
        if (cs_cancelled(cs_interp_cancel_flag(in)))
            rc = CS_INTERRUPTED_BEFORE;
        else
            rc = cs_interp_exec(in, lines[i], &col, &err);
        cs_progress_end();
        if (rc == 1)
            return 2;
        if (rc == CS_INTERRUPTED_BEFORE || rc == CS_ECANCEL || cs_interp_interrupted(in, NULL)) {
            cs_interp_interrupt_msg(in, lines[i], rc, &err, &ierr);
            if (i + 1 < n && !json) {
                size_t len = strlen(ierr.msg);
                snprintf(ierr.msg + len, sizeof ierr.msg - len, "; %zu more command%s not run",
                         n - i - 1, n - i - 1 == 1 ? "" : "s");
            }
            report(in, lines[i], NULL, 0, 0, &ierr, json);
            return 3;
        }
        if (rc < 0) {
            report(in, lines[i], NULL, 0, col, &err, json);
            if (!keep_going)
                return 1;
            failed = 1;
        }
    }
    return failed;
}

typedef struct report_ctx {
    cs_interp *in;
    int json;
    int reported;
} report_ctx;

static void report_script_error(void *ctx, const char *file, int line, int col,
                                const char *text, const cs_err *err)
{
    report_ctx *rc = ctx;
    rc->reported = 1;
    report(rc->in, text, file, line, col, err, rc->json);
}

int cs_run_script(cs_interp *in, const char *path, int json, int keep_going)
{
    report_ctx ctx = {in, json, 0};
    cs_err err;
    int rc = cs_interp_run_file(in, path, keep_going, report_script_error, &ctx, &err);
    if (rc < 0 && !ctx.reported)  /* the file itself could not be read */
        report(in, "run", NULL, 0, 0, &err, json);
    if (rc == CS_ECANCEL)
        return 3;
    if (rc < 0)
        return 1;
    return rc == 1 ? 2 : 0;
}
