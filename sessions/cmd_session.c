/* cmd_session.c — sessions as scripts: `source FILE` runs one inside the
 * session, `save session FILE.csr` writes the journal as a runnable script
 * (not journaled itself), `save model FILE` writes a network checkpoint
 * (journaled, so a replay writes it again). The journal holds each command
 * as it ran, loops unrolled and variables substituted (interp.c), so a
 * saved session needs no variable and writes the same files again. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cs_args.h"
#include "cs_clock.h"
#include "cs_file.h"
#include "cs_project.h"
#include "cs_text.h"
#include "interp_internal.h"
#include "nn_state.h"

enum { MAX_SOURCE_DEPTH = 8 };

int cs_interp_run_file(cs_interp *in, const char *path, int keep_going, cs_report_fn report,
                       void *ctx, cs_err *err)
{
    char real[4096];
    int rc = cs_interp_path(in, path, real, sizeof real, err);
    if (rc)
        return rc;
    /* a project script named from elsewhere (run sessions/fig1a-quick.csr) */
    if (access(real, F_OK) != 0 && errno == ENOENT && path[0] != '/' && !in->opts.sandbox_dir)
        cs_project_find(path, real, sizeof real);
    FILE *f;
    if ((rc = cs_text_open(real, path, &f, err)))
        return rc;
    char *line = NULL;
    size_t cap = 0, len;
    int lineno = 0, first = CS_OK, result = CS_OK;
    int outer_line = in->lineno;   /* `source` inside a script */
    cs_err first_err = {0};
    for (;;) {
        int col;
        cs_err lerr;
        int got = cs_text_line(f, &line, &cap, &len, &col, &lerr);
        if (got == 0)
            break;
        lineno++;
        if (got < 0) {
            /* a NUL byte or a runaway line: not a script */
            if (report)
                report(ctx, path, lineno, col, col ? line : "", &lerr);
            first = got;
            cs_fail(&first_err, got, "%s:%d:%d: %s", path, lineno, col ? col : 1, lerr.msg);
            break;
        }
        /* Ctrl-C between two commands stops the script before the next */
        const char *cmd = line + strspn(line, " \t");
        int before = *cmd && *cmd != '#' && cs_cancelled(&in->cancel);
        /* in->exec: cs_interp_exec, through the pointer, as `source` is one of
         * the commands it dispatches */
        cs_interp_set_line(in, lineno);
        rc = before ? CS_INTERRUPTED_BEFORE : in->exec(in, line, &col, &lerr);
        if (rc == 1) {
            result = 1;
            break;
        }
        /* the end of a loop: what stopped is a line of its body */
        const char *at_text = line;
        int at = lineno;
        if (!before && cs_interp_where(in, NULL)) {
            at = cs_interp_where(in, &at_text);
            if (rc == CS_ECANCEL || cs_interp_interrupted(in, NULL))
                col = 1;
        }
        if (before || rc == CS_ECANCEL || cs_interp_interrupted(in, NULL)) {
            /* scripts stop at an interrupt, even with keep_going */
            cs_err ierr;
            cs_interp_interrupt_msg(in, at_text, rc, &lerr, &ierr);
            if (report)
                report(ctx, path, at, 1, at_text, &ierr);
            if (first == CS_OK)
                cs_fail(&first_err, CS_ECANCEL, "%s:%d: %s", path, at, ierr.msg);
            first = CS_ECANCEL;
            break;
        }
        if (rc < 0) {
            if (report)
                report(ctx, path, at, col, at_text, &lerr);
            if (first == CS_OK) {
                first = rc;
                cs_fail(&first_err, rc, "%s:%d:%d: %s", path, at, col ? col : 1, lerr.msg);
            }
            if (!keep_going)
                break;
        }
    }
    /* the end of the file: a for still waiting for its end */
    int col;
    cs_err ferr;
    if (first == CS_OK || (keep_going && first != CS_ECANCEL)) {
        if (cs_interp_finish(in, &col, &ferr) < 0) {
            const char *head;
            int at = cs_interp_where(in, &head);
            if (report)
                report(ctx, path, at, col, head, &ferr);
            if (first == CS_OK) {
                first = CS_EINVAL;
                cs_fail(&first_err, CS_EINVAL, "%s:%d:%d: %s", path, at, col, ferr.msg);
            }
        }
    } else {
        cs_interp_finish(in, &col, &ferr);   /* dropped: the script stopped inside it */
    }
    cs_interp_set_line(in, outer_line);
    free(line);
    fclose(f);
    if (first != CS_OK) {
        if (err)
            *err = first_err;
        return first;
    }
    return result;
}

int cs_cmd_source(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *file = cs_cmdline_pos(cl, 0);
    if (in->source_depth >= MAX_SOURCE_DEPTH) {
        in->err_col = file->col;
        return cs_fail(err, CS_EINVAL, "source nested more than %d deep", MAX_SOURCE_DEPTH);
    }
    in->source_depth++;
    size_t before = in->njournal;
    double t0 = cs_now();
    int rc = cs_interp_run_file(in, file->value, 0, NULL, NULL, err);
    double seconds = cs_now() - t0;
    in->source_depth--;
    /* the error names its file, line and column: a loop around `source`
     * points at this line, not at the file's */
    free(in->where_text);
    in->where_text = NULL;
    if (rc < 0) {
        in->err_col = file->col;
        return rc;
    }
    if (rc == 1)
        in->quit = 1;
    cs_result_reset(res, "source");
    cs_result_str(res, "file", file->value);
    cs_result_int(res, "commands", (long long)(in->njournal - before));
    cs_result_num(res, "seconds", seconds);   /* wall time of the script (paper-all.csr) */
    return CS_OK;
}

static int write_session(cs_interp *in, FILE *f)
{
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "# csreg session, replay with: csreg run FILE\n");
    fprintf(f, "# version %s (commit %s), date %s\n", CSREG_VERSION, CSREG_COMMIT, date);
    fprintf(f, "# seed %llu, threads %d, device %s\n", (unsigned long long)in->initial_seed,
            in->initial_threads, cs_device_name(in->device));
    fprintf(f, "seed %llu\n", (unsigned long long)in->initial_seed);
    /* the threads of the recording (results do not depend on them; speed does) */
    if (in->initial_threads > 1)
        fprintf(f, "set threads %d\n", in->initial_threads);
    for (size_t i = 0; i < in->njournal; i++)
        fprintf(f, "%s\n", in->journal[i]);
    return ferror(f) ? -1 : 0;
}

/* `save model FILE force=on`, FILE quoted when it needs to be. */
static int journal_line_force(char *buf, size_t len, const char *file)
{
    int plain = *file && !strpbrk(file, " \t\"'#\\");
    size_t used = (size_t)snprintf(buf, len, "save model %s", plain ? "" : "\"");
    for (const char *p = file; *p && used + 4 < len; p++) {
        if (!plain && (*p == '"' || *p == '\\'))
            buf[used++] = '\\';
        buf[used++] = *p;
    }
    if (used + 16 >= len)
        return -1;
    snprintf(buf + used, len - used, "%s force=on", plain ? "" : "\"");
    return 0;
}

int cs_cmd_save(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *what = cs_cmdline_pos(cl, 0), *file = cs_cmdline_pos(cl, 1);
    if (!strcmp(what->value, "model")) {   /* network checkpoint (cmd_nnio.c) */
        if (!file) {
            in->err_col = what->col;
            return cs_fail(err, CS_EINVAL, "save model needs a file name (save model FILE)");
        }
        int mforce, mrc = cs_arg_bool(in, cl, "force", 0, &mforce, err);
        char mpath[4096];
        if (!mrc)
            mrc = cs_interp_path(in, file->value, mpath, sizeof mpath, err);
        if (!mrc)
            mrc = cs_train_save_model(in, mpath, mforce, res, err);
        if (mrc) {
            in->err_col = file->col;
            return mrc;
        }
        cs_result_str(res, "file", file->value);
        /* the checkpoint is an output file: a replay must write it again,
         * over the one this session wrote */
        char line[4200];
        if (journal_line_force(line, sizeof line, file->value) == 0)
            cs_interp_journal_as(in, line);
        return CS_OK;
    }
    if (strcmp(what->value, "session") != 0) {
        in->err_col = what->col;
        return cs_fail(err, CS_EINVAL, "save %s: expected 'save session FILE.csr' or 'save model FILE'", what->value);
    }
    if (!file) {
        in->err_col = what->col;
        return cs_fail(err, CS_EINVAL, "save session needs a file name (save session FILE.csr)");
    }
    int force;
    int rc = cs_arg_bool(in, cl, "force", 0, &force, err);
    if (rc)
        return rc;
    char path[4096];
    cs_afile af;
    rc = cs_interp_path(in, file->value, path, sizeof path, err);
    if (!rc)
        rc = cs_afile_open(&af, path, !force, err);
    if (rc) {
        in->err_col = file->col;
        return rc;
    }
    write_session(in, af.f);
    rc = cs_afile_commit(&af, err);
    if (rc) {
        in->err_col = file->col;
        return rc;
    }
    cs_result_str(res, "file", file->value);
    cs_result_int(res, "commands", (long long)in->njournal);
    return CS_OK;
}
