/* commands.c — the command table and the basic commands (help, regs, seed,
 * set, quit). Each command's keys, defaults and help live here, once. */
#include "cs_commands.h"

#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_limits.h"
#include "cs_parse.h"
#include "interp_internal.h"
#include "nn_state.h"

extern const cs_cmd_group cs_group_plot;
extern const cs_cmd_group cs_group_problem;
extern const cs_cmd_group cs_group_solve;
extern const cs_cmd_group cs_group_trace;
extern const cs_cmd_group cs_group_basins;
extern const cs_cmd_group cs_group_sweep;
extern const cs_cmd_group cs_group_maxcut;
extern const cs_cmd_group cs_group_tour;
extern const cs_cmd_group cs_group_view;
extern const cs_cmd_group cs_group_train;
extern const cs_cmd_group cs_group_quant;
extern const cs_cmd_group cs_group_tune;
extern const cs_cmd_group cs_group_nnio;
extern const cs_cmd_group cs_group_export;
extern const cs_cmd_group cs_group_watch;
int cs_cmd_reg(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);
int cs_cmd_eval(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);
int cs_cmd_source(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);
int cs_cmd_save(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);
static int cmd_help(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);
static int cmd_regs(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);
static int cmd_seed(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);
static int cmd_set(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);
static int cmd_quit(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);
static int cmd_script_word(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);

static const cs_key_spec no_keys[] = {{0}};
static const cs_key_spec save_keys[] = {
    {"force", "off", "overwrite an existing file", "on|off", CS_KEY_WORD},
    {0}};

static const cs_cmd_spec core_commands[] = {
    {.name = "help", .topic = "basics", .usage = "help [COMMAND | reg NAME]",
     .summary = "list commands, or explain one command or regularizer",
     .example = "help eval", .min_pos = 0, .max_pos = 2, .keys = no_keys, .run = cmd_help},
    {.name = "regs", .topic = "regularizers", .usage = "regs",
     .summary = "table of all regularizers with formula and target set", .example = "regs",
     .keys = no_keys, .run = cmd_regs},
    {.name = "reg", .topic = "regularizers",
     .usage = "reg NAME [key=value ...] | reg define NAME g=EXPR h=EXPR [form=cs|holder|si] "
              "[p= q= r= eps=] [CONST=NUMBER ...] | reg analyze NAME [x= y= res= at= dims= "
              "plot=FILE]",
     .summary = "select the current regularizer (keys depend on NAME: see help reg NAME); "
                "define your own from elementwise g(x), h(x); analyze one (levels, scaling, "
                "spurious stationary points)",
     .example = "reg define myter g=x h=x^3", .min_pos = 1, .max_pos = 2, .open_keys = 1,
     .keys = no_keys, .run = cs_cmd_reg, .journal = 1},
    {.name = "eval", .topic = "regularizers", .usage = "eval X",
     .summary = "value and gradient of the current regularizer at X (1,2,3 or rows 1,2;3,4)",
     .example = "eval 1,2,3", .min_pos = 1, .max_pos = 1, .keys = no_keys, .run = cs_cmd_eval,
     .journal = 1},
    {.name = "seed", .topic = "basics", .usage = "seed N",
     .summary = "set the seed that drives every random draw", .example = "seed 42",
     .min_pos = 1, .max_pos = 1, .keys = no_keys, .run = cmd_seed, .journal = 1},
    {.name = "set", .topic = "basics", .usage = "set KEY VALUE",
     .summary = "change a setting: seed, threads, device (cpu|cuda|auto: cuda when a GPU "
                "answers, else cpu), data (the networks' data for the session: an .npz, a "
                "folder of MNIST-format IDX files, or fashion-mnist; a command's data= still "
                "wins), "
                "json (on|off), plot (window|file)",
     .example = "set threads 2", .min_pos = 2, .max_pos = 2, .keys = no_keys, .run = cmd_set,
     .journal = 1},
    /* .journal = 0: `save session` is not journaled; `save model` asks for
     * journaling per invocation (cs_interp_journal_this) */
    {.name = "save", .topic = "sessions",
     .usage = "save session FILE.csr [force=on|off] | save model FILE [force=on|off]",
     .summary = "write the session journal as a runnable script, or the network as a "
                "checkpoint (FILE.npz: NumPy arrays named as PyTorch's state_dict names them)",
     .example =
     "save session mywork.csr", .min_pos = 1, .max_pos = 2, .keys = save_keys,
     .run = cs_cmd_save},
    {.name = "source", .topic = "sessions", .usage = "source FILE",
     .summary = "run a script inside this session (its commands are journaled)",
     .example = "source sessions/fig1a-quick.csr", .min_pos = 1, .max_pos = 1, .keys = no_keys,
     .run = cs_cmd_source},
    {.name = "run", .topic = "sessions", .usage = "run FILE",
     .summary = "same as source: run a script inside this session",
     .example = "run sessions/fig1a-quick.csr", .min_pos = 1, .max_pos = 1, .keys = no_keys,
     .run = cs_cmd_source},
    {.name = "quit", .topic = "basics", .usage = "quit", .summary = "leave csreg",
     .example = "quit", .keys = no_keys, .run = cmd_quit},
    /* the script language: read by cs_interp_exec before any command (these
     * rows give help, completion and the manual) */
    {.name = "let", .topic = "scripts", .usage = "let NAME = VALUE",
     .summary = "set a script variable: $NAME in a later value or positional argument "
                "stands for VALUE (the name ends before the first character not a letter, "
                "digit or _, or at a closing brace after a $ and an opening one); "
                "csreg run FILE -D NAME=VALUE sets one from outside "
                "and wins over the script's let. No if or while: to go further, loop in the "
                "shell over csreg -D, or read the --json output from a program",
     .example = "let L = 1e-3", .max_pos = 3, .open_keys = 1, .keys = no_keys,
     .run = cmd_script_word},
    {.name = "for", .topic = "scripts", .usage = "for NAME in LIST ... end",
     .summary = "run the lines up to the matching end once per value of LIST (a,b,c as typed, "
                "or start:step:stop), $NAME set to it; loops nest; the journal (save session) "
                "keeps each command as it ran. For more, a shell loop over csreg -D NAME=VALUE "
                "or --json output",
     .example = "for L in 1e-3,1e-1", .max_pos = 3, .keys = no_keys, .run = cmd_script_word},
    {.name = "end", .topic = "scripts", .usage = "end",
     .summary = "close a for loop, which then runs", .example = "end", .keys = no_keys,
     .run = cmd_script_word},
};

static CS_CMD_GROUP(cs_group_core, core_commands);

/* Every group, in the order `help` shows them. */
static const cs_cmd_group *const groups[] = {
    &cs_group_core,
    &cs_group_problem,
    &cs_group_solve,
    &cs_group_trace,
    &cs_group_basins,
    &cs_group_sweep,
    &cs_group_maxcut,
    &cs_group_plot,
    &cs_group_view,
    &cs_group_train,   /* cmd_train.c: train */
    &cs_group_quant,   /* cmd_quant.c: quantize */
    &cs_group_tune,    /* cmd_train.c: finetune, evaluate */
    &cs_group_nnio,    /* cmd_nnio.c: hist, load, nnreport */
    &cs_group_export,  /* cmd_export.c: export onnx, predict */
    &cs_group_watch,   /* cmd_watch.c: watch (a run folder) */
    &cs_group_tour,
};

#define NGROUPS (sizeof groups / sizeof groups[0])

size_t cs_command_count(void)
{
    size_t n = 0;
    for (size_t g = 0; g < NGROUPS; g++)
        n += groups[g]->n;
    return n;
}

const cs_cmd_spec *cs_command_at(size_t i)
{
    for (size_t g = 0; g < NGROUPS; g++) {
        if (i < groups[g]->n)
            return &groups[g]->cmds[i];
        i -= groups[g]->n;
    }
    return NULL;
}

const cs_cmd_spec *cs_command_find(const char *name)
{
    for (size_t i = 0; i < cs_command_count(); i++)
        if (strcmp(cs_command_at(i)->name, name) == 0)
            return cs_command_at(i);
    return NULL;
}

int cs_command_topic_first(size_t i)
{
    const char *topic = cs_command_at(i)->topic;
    for (size_t u = 0; u < i; u++)
        if (strcmp(cs_command_at(u)->topic, topic) == 0)
            return 0;
    return 1;
}

/* Commands grouped by topic, topics in order of first appearance. */
static void help_overview(cs_result *res)
{
    cs_result_text(res, "csreg commands (help COMMAND for details, help reg NAME for a "
                        "regularizer):\n");
    size_t n = cs_command_count();
    for (size_t t = 0; t < n; t++) {
        if (!cs_command_topic_first(t))
            continue;
        const char *topic = cs_command_at(t)->topic;
        cs_result_text(res, "\n%s:\n", topic);
        for (size_t i = t; i < n; i++) {
            const cs_cmd_spec *c = cs_command_at(i);
            if (strcmp(c->topic, topic) != 0)
                continue;
            char usage[1024];
            cs_command_usage(c, usage, sizeof usage);
            if (strlen(usage) <= 34)
                cs_result_text(res, "  %-34s %s\n", usage, c->summary);
            else  /* long usage: the summary goes on its own line */
                cs_result_text(res, "  %s\n  %-34s %s\n", usage, "", c->summary);
        }
    }
}

static void help_command(const cs_cmd_spec *c, cs_result *res)
{
    char usage[1024];
    cs_result_text(res, "usage: %s\n  %s\n", cs_command_usage(c, usage, sizeof usage),
                   c->summary);
    if (c->keys && c->keys[0].key) {
        cs_result_text(res, "keys:        default\n");
        for (const cs_key_spec *k = c->keys; k->key; k++) {
            const char *def = k->def && *k->def ? k->def : "-";
            /* a long default gets its own line, the help below it */
            cs_result_text(res, "  %-10s %-13s%s%s%s%s\n", k->key, def,
                           strlen(def) > 13 ? "\n                           " : " ", k->help,
                           k->choices ? "; one of " : "", k->choices ? k->choices : "");
        }
    }
    cs_result_text(res, "example: %s\n", c->example);
}

static void help_reg(const cs_reg_info *r, cs_result *res)
{
    cs_result_text(res, "%s — %s\n  formula: %s\n", r->name, r->title, r->formula);
    if (r->g && r->h)
        cs_result_text(res, "  g(x) = %s, h(x) = %s (elementwise)\n", r->g, r->h);
    else if (r->form != CS_FORM_NONE)
        cs_result_text(res, "  g(x), h(x): those of the base (key base=)\n");
    cs_result_text(res, "  target set: %s\n", r->target);
    cs_result_text(res, "  free of spurious stationary points: %s\n",
                   r->spurious_free ? "yes (proven in the paper)" : "not proven");
    if (!r->differentiable)
        cs_result_text(res, "  non-differentiable: eval gives a subgradient\n");
    cs_result_text(res, "  paper: %s\n", r->section);
    for (size_t i = 0; i < r->nparams; i++)
        cs_result_text(res, "  key %-6s default %-8s %s\n", r->params[i].key,
                       r->params[i].def ? r->params[i].def : "(required)", r->params[i].help);
}

static int cmd_help(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *a0 = cs_cmdline_pos(cl, 0), *a1 = cs_cmdline_pos(cl, 1);
    if (!a0) {
        help_overview(res);
        return CS_OK;
    }
    if (strcmp(a0->value, "reg") == 0 && a1) {
        const cs_reg_info *r = cs_reg_lookup(a1->value);
        if (!r) {
            in->err_col = a1->col;
            return cs_fail(err, CS_ENOTFOUND, "unknown regularizer '%s' (see regs)", a1->value);
        }
        help_reg(r, res);
        return CS_OK;
    }
    const cs_cmd_spec *c = cs_command_find(a0->value);
    if (!c) {
        in->err_col = a0->col;
        return cs_fail(err, CS_ENOTFOUND, "no help for '%s': unknown command", a0->value);
    }
    if (a1) {
        in->err_col = a1->col;
        return cs_fail(err, CS_EINVAL, "unexpected argument '%s' (usage: help [COMMAND | reg NAME])",
                       a1->value);
    }
    help_command(c, res);
    return CS_OK;
}

/* regs in JSON: one object per regularizer. */
static void regs_json(FILE *json, FILE *text, const void *ctx)
{
    (void)text;
    (void)ctx;
    fputc('[', json);
    for (size_t i = 0; i < cs_reg_count(); i++) {
        const cs_reg_info *r = cs_reg_info_at(i);
        int first = 1;
        fputs(i ? ",{" : "{", json);
        cs_json_str_member(json, &first, "name", r->name);
        cs_json_str_member(json, &first, "title", r->title);
        cs_json_str_member(json, &first, "formula", r->formula);
        cs_json_str_member(json, &first, "target", r->target);
        cs_json_bool_member(json, &first, "spurious_free", r->spurious_free);
        cs_json_bool_member(json, &first, "differentiable", r->differentiable);
        fputs(",\"keys\":[", json);
        for (size_t k = 0; k < r->nparams; k++) {
            if (k)
                fputc(',', json);
            cs_json_string(json, r->params[k].key);
        }
        fputs("]}", json);
    }
    fputc(']', json);
}

static int cmd_regs(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    (void)in;
    (void)cl;
    (void)err;
    cs_result_text(res, "%-7s %-4s %-44s %s\n", "name", "inv", "formula", "target set");
    for (size_t i = 0; i < cs_reg_count(); i++) {
        const cs_reg_info *r = cs_reg_info_at(i);
        cs_result_text(res, "%-7s %-4s %-44s %s\n", r->name, r->spurious_free ? "yes" : "-",
                       r->formula, r->target);
    }
    cs_result_text(res, "(inv: proven free of spurious stationary points)\n");
    cs_result_text_human_only(res);
    cs_result_int(res, "_count", (long long)cs_reg_count());
    cs_result_json_written(res, "_regs", regs_json, NULL);
    return CS_OK;
}

static int parse_seed(cs_interp *in, const cs_arg *a, cs_err *err)
{
    long v;
    cs_err sub;
    if (cs_parse_long(a->value, 0, 2147483647L * 2 + 1, &v, &sub)) {
        in->err_col = a->col;
        return cs_fail(err, CS_EINVAL, "seed: %s", sub.msg);
    }
    in->seed = (uint64_t)v;
    return CS_OK;
}

static int cmd_seed(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    int rc = parse_seed(in, cs_cmdline_pos(cl, 0), err);
    if (!rc)
        cs_result_int(res, "seed", (long long)in->seed);
    return rc;
}

static int cmd_set(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    const cs_arg *k = cs_cmdline_pos(cl, 0), *v = cs_cmdline_pos(cl, 1);
    cs_err sub;
    if (strcmp(k->value, "seed") == 0) {
        int rc = parse_seed(in, v, err);
        if (!rc)
            cs_result_int(res, "seed", (long long)in->seed);
        return rc;
    }
    if (strcmp(k->value, "threads") == 0) {
        long t;
        if (cs_parse_long(v->value, 0, CS_MAX_THREADS, &t, &sub)) {
            in->err_col = v->col;
            return cs_fail(err, CS_EINVAL, "threads: %s (0 means all cores)", sub.msg);
        }
        in->threads = (int)t;
        cs_result_int(res, "threads", t);
        return CS_OK;
    }
    if (strcmp(k->value, "device") == 0) {
        if (cs_device_parse(v->value, &in->device, err)) {
            in->err_col = v->col;
            return CS_EINVAL;
        }
        cs_result_str(res, "device", cs_device_name(in->device));
        return CS_OK;
    }
    if (strcmp(k->value, "json") == 0) {
        if (strcmp(v->value, "on") && strcmp(v->value, "off")) {
            in->err_col = v->col;
            return cs_fail(err, CS_EINVAL, "json %s: expected on or off", v->value);
        }
        in->opts.json = strcmp(v->value, "on") == 0;
        cs_result_bool(res, "json", in->opts.json);
        return CS_OK;
    }
    if (strcmp(k->value, "data") == 0) {   /* nn_state.c: the networks' data */
        int rc = nn_set_data(in, v->value, res, err);
        if (rc)
            in->err_col = v->col;
        return rc;
    }
    if (strcmp(k->value, "plot") == 0) {
        if (strcmp(v->value, "window") && strcmp(v->value, "file")) {
            in->err_col = v->col;
            return cs_fail(err, CS_EINVAL, "plot %s: expected window (a live gnuplot window, "
                           "needs DISPLAY) or file", v->value);
        }
        in->plot_window = strcmp(v->value, "window") == 0;
        cs_result_str(res, "plot", v->value);
        return CS_OK;
    }
    in->err_col = k->col;
    return cs_fail(err, CS_EINVAL,
                   "unknown setting '%s' (settings: seed, threads, device, data, json, plot)",
                   k->value);
}

static int cmd_quit(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    (void)cl;
    (void)res;
    (void)err;
    in->quit = 1;
    return CS_OK;
}

/* let, for and end never get here (cs_interp_exec reads them first). */
static int cmd_script_word(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    (void)res;
    in->err_col = cl->name_col;
    return cs_fail(err, CS_EINVAL, "%s belongs to the script language (help %s)", cl->name,
                   cl->name);
}
