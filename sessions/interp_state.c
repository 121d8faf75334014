/* interp_state.c — the interpreter's state as the command modules see it:
 * the cancel flag, progress, file names, module state, seed and threads.
 * Below the dispatcher (interp.c) and the command table (commands.c), so a
 * command calls down into it and never back up into what dispatched it. */
#include "cs_interp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cs_sha256.h"
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

/* Whether the running command takes `key` (klen bytes): a journaled line
 * must replay without an unknown key. */
static int takes_key(const cs_interp *in, const char *key, size_t klen)
{
    char k[64];
    if (!in->running || klen == 0 || klen >= sizeof k)
        return 0;
    memcpy(k, key, klen);
    k[klen] = '\0';
    return in->running->open_keys || cs_command_key(in->running, k) != NULL;
}

void cs_interp_journal_key(cs_interp *in, const char *kv)
{
    const char *eq = strchr(kv, '=');
    size_t klen = eq ? (size_t)(eq - kv) : 0;
    if (!takes_key(in, kv, klen))
        return;
    char *copy = strdup(kv);
    if (!copy) {
        in->journal_keys_oom = 1;
        return;
    }
    for (size_t i = 0; i < in->njournal_keys; i++)
        if (!strncmp(in->journal_keys[i], kv, klen + 1)) {   /* "KEY=" */
            free(in->journal_keys[i]);
            in->journal_keys[i] = copy;
            return;
        }
    if (in->njournal_keys == CS_JOURNAL_KEYS_MAX) {
        free(copy);
        in->journal_keys_oom = 1;
        return;
    }
    in->journal_keys[in->njournal_keys++] = copy;
}

void cs_interp_journal_stopped(cs_interp *in, const char *kv)
{
    const char *eq = strchr(kv, '=');
    /* without its key the line would replay the whole command: not journaled */
    if (!takes_key(in, kv, eq ? (size_t)(eq - kv) : 0))
        return;
    cs_interp_journal_key(in, kv);
    in->journal_stopped = 1;
}

/* The value of KEY= set so far on the journaled line, NULL when none. */
static const char *journal_key_value(const cs_interp *in, const char *key)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i < in->njournal_keys; i++)
        if (!strncmp(in->journal_keys[i], key, klen) && in->journal_keys[i][klen] == '=')
            return in->journal_keys[i] + klen + 1;
    return NULL;
}

int cs_interp_input_file(cs_interp *in, const cs_cmdline *cl, const char *shown,
                         const char *path, cs_err *err)
{
    char hex[65];
    int rc = cs_sha256_file(path, hex, err);
    if (rc)
        return rc;
    size_t nth = in->input_files++;
    /* a replay: the digest recorded at this file's place */
    const cs_arg *a = cs_cmdline_key(cl, "sha256");
    if (a) {
        const char *want = a->value;
        for (size_t i = 0; i < nth && *want; i++) {
            want += strcspn(want, ",");
            want += *want == ',';
        }
        size_t n = strcspn(want, ",");
        if (n == 0) {
            in->err_col = a->col;
            return cs_fail(err, CS_EINVAL, "sha256= lists %zu digest%s, but %s is file %zu "
                           "this command reads", nth, nth == 1 ? "" : "s", shown, nth + 1);
        }
        if (n != 64 || strncasecmp(want, hex, 64) != 0) {
            in->err_col = a->col;
            return cs_fail(err, CS_ESTATE, "%s changed since the session was recorded: its "
                           "sha256 is %.12s..., the journal has %.*s%s", shown, hex,
                           n > 12 ? 12 : (int)n, want, n > 12 ? "..." : "");
        }
    }
    const char *had = journal_key_value(in, "sha256");
    size_t len = (had ? strlen(had) + 1 : 0) + sizeof "sha256=" + 64;
    char *kv = malloc(len);
    if (!kv)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    snprintf(kv, len, "sha256=%s%s%s", had ? had : "", had ? "," : "", hex);
    cs_interp_journal_key(in, kv);
    free(kv);
    return CS_OK;
}

int cs_interp_inputs_done(cs_interp *in, const cs_cmdline *cl, cs_err *err)
{
    const cs_arg *a = cs_cmdline_key(cl, "sha256");
    if (!a || !*a->value)
        return CS_OK;
    size_t listed = 1;
    for (const char *p = a->value; *p; p++)
        listed += *p == ',';
    if (listed <= in->input_files)
        return CS_OK;
    in->err_col = a->col;
    return cs_fail(err, CS_ESTATE, "sha256= lists %zu digests but %zu files were read: %zu "
                   "file%s the session read %s gone", listed, in->input_files,
                   listed - in->input_files, listed - in->input_files == 1 ? "" : "s",
                   listed - in->input_files == 1 ? "is" : "are");
}

int cs_interp_input_named(cs_interp *in, const cs_cmdline *cl, const char *name,
                          const char *path, cs_err *err)
{
    char direct[4096];
    cs_err ignore;
    if (cs_interp_path(in, name, direct, sizeof direct, &ignore) || strcmp(direct, path) != 0)
        return CS_OK;
    return cs_interp_input_file(in, cl, name, path, err);
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
