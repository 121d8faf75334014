/* interp.c — run command lines: the script language first (let, for ...
 * end, $NAME: interp_script.c), then for each command parse, check against
 * the command table, dispatch, print the result, journal what succeeded
 * (and what was stopped part way), with the keys the command set for its
 * replay (stop_after=, sha256=, device=: interp_state.c) on its line. */
#include "cs_interp.h"

#include "cs_args.h"
#include "cs_blas.h"
#include "cs_dist.h"
#include "cs_par.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp_internal.h"

static int exec_agreed(cs_interp *in, const char *line, int *err_col, cs_err *err);

/* -D NAME=VALUE: a fixed variable (a script's let leaves it). */
static int define(cs_interp *in, const char *def, cs_err *err)
{
    const char *eq = strchr(def, '=');
    if (!eq || !cs_var_name_ok(def, (size_t)(eq - def)))
        return cs_fail(err, CS_EINVAL, "-D %s: expected NAME=VALUE, NAME of letters, digits "
                       "and _ (not starting with a digit)", def);
    for (const char *p = eq + 1; *p; p++)
        if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
            return cs_fail(err, CS_EINVAL, "-D %.*s: a control character in the value",
                           (int)(eq - def), def);
    char name[CS_VAR_NAME_MAX + 1];
    snprintf(name, sizeof name, "%.*s", (int)(eq - def), def);
    if (cs_vars_set(in->vars, name, eq + 1, 1, 1) < 0)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    return CS_OK;
}

int cs_interp_new(cs_interp **out, const cs_interp_opts *opts, cs_err *err)
{
    *out = NULL;
    cs_interp *in = calloc(1, sizeof *in);
    if (!in)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    in->opts = *opts;
    if (!in->opts.out)
        in->opts.out = stdout;
    in->seed = opts->seed;
    in->initial_seed = opts->seed;
    in->initial_threads = opts->threads;
    in->threads = opts->threads;
    cs_blas_set_threads(1);   /* always one: network commands hold cs_par threads */
    in->exec = cs_interp_exec;
    in->command = exec_agreed;
    in->res = cs_result_new("");
    in->vars = cs_vars_new();
    int rc = in->res && in->vars
                 ? cs_device_parse(opts->device ? opts->device : "cpu", &in->device, err)
                 : cs_fail(err, CS_ENOMEM, "out of memory");
    for (size_t i = 0; i < opts->ndefines && !rc; i++)
        rc = define(in, opts->defines[i], err);
    if (!rc)
        rc = cs_reg_new(&in->reg, "bin", NULL, 0, in->seed, err);
    if (rc) {
        cs_interp_free(in);
        return rc;
    }
    cs_reg_describe(in->reg, in->reg_line, sizeof in->reg_line);
    *out = in;
    return CS_OK;
}

void cs_interp_free(cs_interp *in)
{
    if (!in)
        return;
    for (int s = 0; s < CS_EXT_COUNT; s++)
        cs_interp_set_ext(in, s, NULL, NULL, NULL);
    for (size_t i = 0; i < in->njournal; i++)
        free(in->journal[i]);
    free(in->journal);
    cs_reg_free(in->reg);
    cs_result_free(in->res);
    cs_vars_free(in->vars);
    cs_block_clear(&in->block);
    free(in->where_text);
    free(in);
}

int cs_interp_reset(cs_interp *in, cs_err *err)
{
    cs_reg *reg;
    int rc = cs_reg_new(&reg, "bin", NULL, 0, in->initial_seed, err);
    if (rc)
        return rc;
    for (int s = 0; s < CS_EXT_COUNT; s++)
        cs_interp_set_ext(in, s, NULL, NULL, NULL);
    for (size_t i = 0; i < in->njournal; i++)
        free(in->journal[i]);
    in->njournal = 0;
    cs_reg_free(in->reg);
    in->reg = reg;
    cs_reg_describe(in->reg, in->reg_line, sizeof in->reg_line);
    in->seed = in->initial_seed;
    in->threads = in->initial_threads;
    cs_device_parse(in->opts.device ? in->opts.device : "cpu", &in->device, NULL); /* as new */
    in->plot_window = 0;
    in->chapter = 0;
    cs_vars_clear(in->vars);   /* the -D ones stay */
    cs_block_clear(&in->block);
    return CS_OK;
}

size_t cs_interp_journal_len(const cs_interp *in) { return in->njournal; }
const char *cs_interp_journal_line(const cs_interp *in, size_t i)
{
    return i < in->njournal ? in->journal[i] : NULL;
}

static int journal_add(cs_interp *in, const char *line, cs_err *err)
{
    if (in->njournal == in->capjournal) {
        size_t cap = in->capjournal ? 2 * in->capjournal : 32;
        char **j = realloc(in->journal, cap * sizeof *j);
        if (!j)
            return cs_fail(err, CS_ENOMEM, "out of memory");
        in->journal = j;
        in->capjournal = cap;
    }
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    in->journal[in->njournal] = strndup(line, len);
    if (!in->journal[in->njournal])
        return cs_fail(err, CS_ENOMEM, "out of memory");
    in->njournal++;
    return CS_OK;
}

/* 1 when the line's arguments fit the command: its positional count and keys. */
static int args_fit(const cs_cmd_spec *cmd, const cs_cmdline *cl)
{
    int npos = (int)cs_cmdline_npos(cl);
    if (npos < cmd->min_pos || npos > cmd->max_pos)
        return 0;
    for (size_t i = 0; i < cl->nargs; i++)
        if (cl->args[i].key && !cmd->open_keys && !cs_command_key(cmd, cl->args[i].key))
            return 0;
    return 1;
}

/* "did you mean": the closest command among those the arguments fit (regg
 * ter -> reg, regg -> regs), else among all. */
static int unknown_command(const cs_cmdline *cl, cs_err *err)
{
    const char *fit[128] = {0}, *all[128] = {0};
    size_t nfit = 0, nall = 0;
    for (size_t i = 0; i < cs_command_count() && nall < 128; i++) {
        const cs_cmd_spec *c = cs_command_at(i);
        all[nall++] = c->name;
        if (args_fit(c, cl))
            fit[nfit++] = c->name;
    }
    const char *guess = cs_closest_name(cl->name, fit, nfit);
    if (!guess)
        guess = cs_closest_name(cl->name, all, nall);
    if (guess)
        return cs_fail(err, CS_ENOTFOUND, "unknown command '%s' (did you mean '%s'?)", cl->name,
                       guess);
    return cs_fail(err, CS_ENOTFOUND, "unknown command '%s' (type 'help' for the list)",
                   cl->name);
}

static int unknown_key(const cs_cmd_spec *cmd, const char *key, cs_err *err)
{
    const char *names[64] = {0};
    size_t n = 0;
    char list[512];
    size_t used = 0;
    list[0] = '\0';
    for (const cs_key_spec *k = cmd->keys; k && k->key && n < 64; k++) {
        names[n++] = k->key;
        used += (size_t)snprintf(list + used, used < sizeof list ? sizeof list - used : 0,
                                 "%s%s", used ? ", " : "", k->key);
    }
    const char *guess = cs_closest_name(key, names, n);
    if (n == 0)
        return cs_fail(err, CS_EINVAL, "%s takes no keys (got '%s')", cmd->name, key);
    if (guess)
        return cs_fail(err, CS_EINVAL, "unknown key '%s' for %s (did you mean '%s'?); valid: %s",
                       key, cmd->name, guess, list);
    return cs_fail(err, CS_EINVAL, "unknown key '%s' for %s; valid: %s", key, cmd->name, list);
}

/* Keys known, each given once, positional count within bounds. */
static int check_args(cs_interp *in, const cs_cmd_spec *cmd, const cs_cmdline *cl, cs_err *err)
{
    for (size_t i = 0; i < cl->nargs; i++) {
        const cs_arg *a = &cl->args[i];
        if (!a->key)
            continue;
        if (!cmd->open_keys && !cs_command_key(cmd, a->key)) {
            in->err_col = a->col;
            return unknown_key(cmd, a->key, err);
        }
        for (size_t j = 0; j < i; j++)
            if (cl->args[j].key && strcmp(cl->args[j].key, a->key) == 0) {
                in->err_col = a->col;
                return cs_fail(err, CS_EINVAL, "key '%s' given twice", a->key);
            }
    }
    size_t npos = cs_cmdline_npos(cl);
    char usage[1024];
    cs_command_usage(cmd, usage, sizeof usage);
    if ((int)npos < cmd->min_pos) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "%s needs %s (usage: %s)", cmd->name,
                       cmd->min_pos == 1 ? "an argument" : "more arguments", usage);
    }
    if ((int)npos > cmd->max_pos) {
        const cs_arg *extra = cs_cmdline_pos(cl, (size_t)cmd->max_pos);
        in->err_col = extra->col;
        if (cmd->max_pos == 0)
            return cs_fail(err, CS_EINVAL, "%s takes no positional argument (got '%s'; usage: %s)",
                           cmd->name, extra->value, usage);
        return cs_fail(err, CS_EINVAL, "unexpected argument '%s' (usage: %s)", extra->value,
                       usage);
    }
    return CS_OK;
}

static int exec_here(cs_interp *in, const char *line, int *err_col, cs_err *err);

/* The end of the argument (a token: quotes may hold blanks) starting at p. */
static const char *token_end(const char *p)
{
    while (*p && !isspace((unsigned char)*p)) {
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            for (; *p && *p != q; p++)
                if (*p == '\\' && q == '"' && (p[1] == '"' || p[1] == '\\'))
                    p++;
            if (*p)
                p++;
        } else {
            p++;
        }
    }
    return p;
}

/* KEY=VALUE as an argument: VALUE in double quotes when the parser needs them. */
static void put_key(FILE *f, const char *kv)
{
    const char *eq = strchr(kv, '=');
    const char *v = eq + 1;
    if (*v && !v[strcspn(v, " \t#\"'")]) {
        fputs(kv, f);
        return;
    }
    fprintf(f, "%.*s=\"", (int)(eq - kv), kv);
    for (; *v; v++) {
        if (*v == '"' || *v == '\\')
            fputc('\\', f);
        fputc(*v, f);
    }
    fputc('"', f);
}

/* `line` with each of keys[] ("KEY=VALUE") set: in place of the line's own
 * KEY= argument, else appended after its last argument (a trailing comment
 * then goes). The rest of the line stays as typed. NULL when out of memory
 * or the line does not parse. */
static char *line_with_keys(const char *line, char *const *keys, size_t nkeys)
{
    cs_cmdline cl;
    int col;
    cs_err perr;
    if (cs_cmdline_parse(line, &cl, &col, &perr))
        return NULL;   /* (freed) */
    if (!cl.name) {
        cs_cmdline_free(&cl);
        return NULL;
    }
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) {
        cs_cmdline_free(&cl);
        return NULL;
    }
    int used[CS_JOURNAL_KEYS_MAX] = {0};
    const char *at = line;   /* copied up to here */
    const char *end = token_end(line + cl.name_col - 1);
    for (size_t i = 0; i < cl.nargs; i++) {
        const char *start = line + cl.args[i].col - 1;
        const char *stop = token_end(start);
        end = stop;
        if (!cl.args[i].key)
            continue;
        size_t klen = strlen(cl.args[i].key);
        for (size_t k = 0; k < nkeys; k++)
            if (!used[k] && !strncmp(keys[k], cl.args[i].key, klen) && keys[k][klen] == '=') {
                fwrite(at, 1, (size_t)(start - at), f);
                put_key(f, keys[k]);
                at = stop;
                used[k] = 1;
                break;
            }
    }
    int appended = 0;
    for (size_t k = 0; k < nkeys; k++)
        appended |= !used[k];
    fwrite(at, 1, (size_t)((appended ? end : at + strlen(at)) - at), f);
    for (size_t k = 0; k < nkeys; k++)
        if (!used[k]) {
            fputc(' ', f);
            put_key(f, keys[k]);
        }
    cs_cmdline_free(&cl);
    if (fclose(f)) {
        free(out);
        return NULL;
    }
    return out;
}

/* The journaled command's keys, taken from the interpreter (freed by the caller). */
static size_t take_keys(cs_interp *in, char **keys)
{
    size_t n = in->njournal_keys;
    memcpy(keys, in->journal_keys, n * sizeof *keys);
    in->njournal_keys = 0;
    return n;
}

/* Under MPI every rank runs each line; rank 0's status is everyone's (it
 * alone writes files, so only it can fail at that), and a rank that fails
 * where rank 0 did not has left the common path: rank 0 says so and the
 * job stops, rather than the ranks waiting on each other for ever. */
static int exec_agreed(cs_interp *in, const char *line, int *err_col, cs_err *err)
{
    int rc = exec_here(in, line, err_col, err);
    int diverged;
    rc = cs_dist_agree(rc, err, &diverged);
    if (diverged >= 0) {
        if (cs_dist_rank() == 0) {
            fflush(in->opts.out);
            fprintf(stderr, "error: MPI rank %d of %d failed where rank 0 did not, at '%s': %s;"
                    " stopping the job\n", diverged, cs_dist_size(), line, err->msg);
            fflush(stderr);
        }
        cs_dist_abort(1);
    }
    return rc;
}

int cs_interp_exec(cs_interp *in, const char *line, int *err_col, cs_err *err)
{
    free(in->where_text);
    in->where_text = NULL;
    in->where_line = 0;
    in->loop_commands = 0;
    in->interrupted = 0;
    in->stop_note[0] = '\0';
    return cs_interp_script_line(in, line, in->lineno, err_col, err);
}

static int exec_here(cs_interp *in, const char *line, int *err_col, cs_err *err)
{
    cs_cmdline cl;
    in->err_col = 0;
    in->interrupted = 0;
    in->stop_note[0] = '\0';
    *err_col = 0;
    cs_err_clear(err);
    int rc = cs_cmdline_parse(line, &cl, err_col, err);
    if (rc)
        return rc;
    if (!cl.name) {
        cs_cmdline_free(&cl);
        return CS_OK;
    }
    const cs_cmd_spec *cmd = cs_command_find(cl.name);
    cs_result_reset(in->res, cl.name);
    atomic_store(&in->cancel, 0);
    in->journal_this = 0;
    in->journal_stopped = 0;
    in->journal_keys_oom = 0;
    in->input_files = 0;
    in->running = cmd;
    if (!cmd) {
        in->err_col = cl.name_col;
        rc = unknown_command(&cl, err);
    } else {
        rc = check_args(in, cmd, &cl, err);
        /* network commands run the CPU backend's ops on the session's
         * threads (cs_commands.h); OpenBLAS stays on one */
        int par = cs_par_hold_threads(cmd->blas_threads && in->threads > 1 ? in->threads : 1);
        if (!rc)
            rc = cmd->run(in, &cl, in->res, err);
        cs_par_restore_threads(par);
    }
    in->interrupted = rc == CS_ECANCEL || cs_cancelled(&in->cancel);
    /* read and clear: a nested exec (source) must not leak the request to
     * the command that contains it */
    int journal_this = in->journal_this, stopped = in->journal_stopped;
    int keys_oom = in->journal_keys_oom;
    char *journal_as = in->journal_as;
    char *keys[CS_JOURNAL_KEYS_MAX];
    size_t nkeys = take_keys(in, keys);
    in->journal_this = in->journal_stopped = in->journal_keys_oom = 0;
    in->journal_as = NULL;
    in->running = NULL;
    /* a command stopped part way is journaled with how far it got */
    int journal = rc >= 0 ? cmd->journal || journal_this || stopped
                          : rc == CS_ECANCEL && stopped;
    if (rc < 0) {
        /* an engine error names its key: point at that argument */
        if (in->err_col == 0 && err->key[0] && cs_cmdline_key(&cl, err->key))
            cs_arg_blame(in, &cl, err->key, 0);
        *err_col = in->err_col;
    } else {
        /* every JSON line says which seed it ran with (cs_provenance.h) */
        if (in->opts.json && !cs_result_has(in->res, "seed"))
            cs_result_int(in->res, "_seed", (long long)in->seed);
        if (in->opts.json)
            cs_result_print_json(in->res, in->opts.out);
        else if (!cs_result_empty(in->res))
            cs_result_print_text(in->res, in->opts.out);
    }
    if (journal) {
        const char *base = journal_as ? journal_as : line;
        char *edited = nkeys ? line_with_keys(base, keys, nkeys) : NULL;
        cs_err jerr;
        int jrc = (nkeys && !edited) || keys_oom
                      ? cs_fail(&jerr, CS_ENOMEM, "out of memory (journal)")
                      : journal_add(in, edited ? edited : base, &jerr);
        if (jrc && rc >= 0) {
            rc = jrc;
            *err = jerr;
        }
        free(edited);
    }
    for (size_t k = 0; k < nkeys; k++)
        free(keys[k]);
    free(journal_as);
    cs_cmdline_free(&cl);
    if (rc == CS_OK && in->quit)
        return 1;
    return rc;
}

void cs_interp_print_error(cs_interp *in, const char *line, const cs_err *err, FILE *out)
{
    cs_cmdline cl;
    int col;
    cs_err perr;
    const char *cmd = "";
    int parsed = cs_cmdline_parse(line, &cl, &col, &perr) == 0;
    if (parsed && cl.name)
        cmd = cl.name;
    fputs("{\"cmd\":", out);
    cs_json_string(out, cmd);
    fputs(",\"error\":", out);
    cs_json_string(out, err->msg);
    fprintf(out, ",\"seed\":%" PRIu64 "}\n", in->seed);   /* as every --json line */
    fflush(out);
    if (parsed)
        cs_cmdline_free(&cl);
}
