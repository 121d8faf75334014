/* frontend.c — scripts, -e lines and the REPL on top of the interpreter. */
#include "cs_frontend.h"
#include "cs_progress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


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
    if (where)
        fprintf(stderr, "%s:%d:%d: error: %s\n", where, lineno, col ? col : 1, err->msg);
    else
        fprintf(stderr, "error: %s\n", err->msg);
    if (where && col > 0)  /* -e: one line, the command is on screen already */
        fprintf(stderr, "    %s\n    %*s^\n", line, col - 1, "");
}

int cs_run_line(cs_interp *in, const char *line, const char *where, int lineno, int json)
{
    cs_err err;
    int col;
    int rc = cs_interp_exec(in, line, &col, &err);
    cs_progress_end();
    if (rc < 0) {
        report(in, line, where, lineno, col, &err, json);
        return 1;
    }
    return rc == 1 ? 2 : 0;
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
    if (rc < 0)
        return 1;
    return rc == 1 ? 2 : 0;
}
