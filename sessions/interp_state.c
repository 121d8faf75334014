/* interp_state.c — the interpreter's state as the command modules see it:
 * the cancel flag, progress, file names, module state, seed and threads.
 * Below the dispatcher (interp.c) and the command table (commands.c), so a
 * command calls down into it and never back up into what dispatched it. */
#include "cs_interp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp_internal.h"

cs_cancel *cs_interp_cancel_flag(cs_interp *in) { return &in->cancel; }

int cs_interp_interrupted(const cs_interp *in, const char **how)
{
    if (how)
        *how = in->stop_note;
    return in->interrupted;
}

void cs_interp_interrupt_msg(cs_interp *in, const char *line, int rc, const cs_err *err,
                             cs_err *out)
{
    const char *p = line + strspn(line, " \t");
    int n = (int)strcspn(p, " \t");
    if (rc == CS_ECANCEL)
        cs_fail(out, CS_ECANCEL, "%s", err->msg);
    else if (rc == CS_INTERRUPTED_BEFORE)
        cs_fail(out, CS_ECANCEL, "interrupted before %.*s ran", n, p);
    else if (in->interrupted && in->stop_note[0])
        cs_fail(out, CS_ECANCEL, "%s", in->stop_note);
    else if (rc < 0)
        cs_fail(out, CS_ECANCEL, "interrupted during %.*s: %s", n, p, err->msg);
    else
        cs_fail(out, CS_ECANCEL, "interrupted during %.*s (it finished)", n, p);
}

void cs_interp_note_stop(cs_interp *in, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->stop_note, sizeof in->stop_note, fmt, ap);
    va_end(ap);
}

void cs_interp_set_progress(cs_interp *in, cs_interp_progress_fn fn, void *ctx)
{
    in->progress = fn;
    in->progress_ctx = ctx;
}

void cs_interp_set_watch(cs_interp *in, cs_interp_watch_fn fn, void *ctx, int histograms)
{
    in->watch = fn;
    in->watch_ctx = ctx;
    in->watch_hist = histograms;
}

void cs_interp_set_sweep_watch(cs_interp *in, const cs_sweep_watch *w)
{
    if (w && w->start)
        in->sweep_watch = *w;
    else
        in->sweep_watch = (cs_sweep_watch){0};
}

void cs_interp_progress(cs_interp *in, double done, double total, const char *what)
{
    if (in->progress)
        in->progress(in->progress_ctx, done, total, what);
}

void cs_interp_progress_engine(void *progress_to, size_t done, size_t total)
{
    const cs_progress_to *p = progress_to;
    cs_interp_progress(p->in, (double)done, (double)total, p->what);
}

int cs_interp_path(cs_interp *in, const char *path, char *buf, size_t len, cs_err *err)
{
    if (!path || !*path)
        return cs_fail(err, CS_EINVAL, "empty file name");
    if (in->opts.sandbox_dir) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
            return cs_fail(err, CS_EINVAL, "'%s' is not a file name", path);
        if ((size_t)snprintf(buf, len, "%s/%s", in->opts.sandbox_dir, base) >= len)
            return cs_fail(err, CS_EINVAL, "file name too long");
        return CS_OK;
    }
    if ((size_t)snprintf(buf, len, "%s", path) >= len)
        return cs_fail(err, CS_EINVAL, "file name too long");
    return CS_OK;
}

void *cs_interp_ext(cs_interp *in, int slot) { return in->ext[slot].data; }

void cs_interp_set_ext(cs_interp *in, int slot, void *data, void (*free_fn)(void *),
                       void (*describe)(const void *, char *, size_t))
{
    cs_ext *e = &in->ext[slot];
    if (e->data && e->free && e->data != data)
        e->free(e->data);
    e->data = data;
    e->free = free_fn;
    e->describe = describe;
}

void *cs_interp_ext_get(cs_interp *in, int slot, size_t size, int *created,
                        void (*free_fn)(void *),
                        void (*describe)(const void *, char *, size_t), cs_err *err)
{
    if (created)
        *created = 0;
    if (in->ext[slot].data)
        return in->ext[slot].data;
    void *data = calloc(1, size);
    if (!data) {
        cs_fail(err, CS_ENOMEM, "out of memory");
        return NULL;
    }
    cs_interp_set_ext(in, slot, data, free_fn, describe);
    if (created)
        *created = 1;
    return data;
}

void cs_interp_journal_this(cs_interp *in) { in->journal_this = 1; }

void cs_interp_journal_as(cs_interp *in, const char *line)
{
    free(in->journal_as);
    in->journal_as = strdup(line);
    in->journal_this = 1;
}
uint64_t cs_interp_seed(const cs_interp *in) { return in->seed; }
int cs_interp_threads(const cs_interp *in) { return in->threads; }
const cs_reg *cs_interp_reg(const cs_interp *in) { return in->reg; }

void cs_interp_prompt(const cs_interp *in, char *buf, size_t len)
{
    if (in->block.depth > 0) {   /* a for loop being typed: more lines until its end */
        snprintf(buf, len, "...> ");
        return;
    }
    char extra[256] = "";
    size_t used = 0;
    for (int s = 0; s < CS_EXT_COUNT && used < sizeof extra; s++)
        if (in->ext[s].data && in->ext[s].describe) {
            in->ext[s].describe(in->ext[s].data, extra + used, sizeof extra - used);
            used = strlen(extra);
        }
    snprintf(buf, len, "csreg[%s%s]> ", cs_reg_get_info(in->reg)->name, extra);
}

long cs_interp_stamp(const cs_interp *in) { return (long)in->njournal + 1; }
