/* interp_script.c — the script language as the interpreter reads it:
 * `let`, $NAME and ${NAME} (substituted before a command is parsed, so
 * the journal gets the line as it ran), `for NAME in LIST` ... `end` (the
 * lines kept until the end, then run once per value). The pieces that need
 * no interpreter are script.c's; each command goes to in->command, the
 * dispatcher's (interp.c), so this file never calls up into it. */
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_parse.h"
#include "cs_script.h"
#include "interp_internal.h"

/* A loop's commands for one line given (nested loops multiply), and how
 * deep loops nest: bounds, so that no line runs for ever. */
enum { LOOP_COMMANDS_MAX = 1000000, LOOP_DEPTH_MAX = 16 };

/* The column of `line` that column col of its substituted text came from. */
static int typed_col(const int *map, const char *expanded, int col)
{
    size_t len = strlen(expanded);
    if (col <= 0)
        return col;
    return map[(size_t)col - 1 <= len ? (size_t)col - 1 : len];
}

static int fail_at(int *err_col, int col, cs_err *err, const char *msg)
{
    *err_col = col;
    return cs_fail(err, CS_EINVAL, "%s", msg);
}

/* `line` substituted and split; errors at the typed column. */
static int parse_expanded(cs_interp *in, const char *line, cs_cmdline *cl, char **x, int **map,
                          int *err_col, cs_err *err)
{
    int rc = cs_script_expand(in->vars, line, x, map, err_col, err);
    if (rc)
        return rc;
    int col;
    rc = cs_cmdline_parse(*x, cl, &col, err);
    if (rc) {
        *err_col = typed_col(*map, *x, col);
        free(*x);
        free(*map);
    }
    return rc;
}

/* The column of what is wrong in the shape of a let line (NAME = VALUE as
 * three words, or NAME=VALUE as one), 0 when nothing; *what says it. */
static int let_shape(const cs_cmdline *raw, const char **what)
{
    const cs_arg *a = raw->args;
    *what = "let takes one name, '=' and one value";
    if (raw->nargs == 0 || (!a[0].key && raw->nargs == 1)) {
        *what = "let needs a name and a value";
        return raw->nargs ? a[0].col : raw->name_col;
    }
    if (a[0].key)   /* NAME=VALUE */
        return raw->nargs > 1 ? a[1].col : 0;
    if (a[1].key || a[1].quoted || strcmp(a[1].value, "=") != 0)
        return a[1].col;
    if (raw->nargs < 3)
        return a[1].col;
    if (a[2].key)
        return a[2].col;
    return raw->nargs > 3 ? a[3].col : 0;
}

/* `let NAME = VALUE` (or let NAME=VALUE): a -D of the same name wins. */
static int let_line(cs_interp *in, const char *line, int *err_col, cs_err *err)
{
    cs_cmdline raw, cl;
    int col;
    int rc = cs_cmdline_parse(line, &raw, &col, err);
    if (rc) {
        *err_col = col;
        return rc;
    }
    const char *what, *name = raw.nargs && raw.args[0].key ? raw.args[0].key
                                                           : raw.nargs ? raw.args[0].value : "";
    char msg[300];
    if ((col = let_shape(&raw, &what))) {
        snprintf(msg, sizeof msg, "%s (usage: let NAME = VALUE; VALUE one word, a list, a "
                 "range or a quoted string)", what);
        rc = fail_at(err_col, col, err, msg);
    } else if (!cs_var_name_ok(name, strlen(name)) || (!raw.args[0].key && raw.args[0].quoted)) {
        snprintf(msg, sizeof msg, "'%.64s' is not a variable name (letters, digits and _, "
                 "not starting with a digit)", name);
        rc = fail_at(err_col, raw.args[0].col, err, msg);
    }
    char *x;
    int *map;
    if (!rc && !(rc = parse_expanded(in, line, &cl, &x, &map, err_col, err))) {
        /* values go in whole (quoted when they must be): the same arguments */
        const char *value = raw.args[0].key ? cl.args[0].value : cl.args[2].value;
        if (cs_vars_set(in->vars, name, value, 0, 0) < 0)
            rc = cs_fail(err, CS_ENOMEM, "out of memory");
        cs_cmdline_free(&cl);
        free(x);
        free(map);
    }
    cs_cmdline_free(&raw);
    return rc;
}

/* The values of a for list: a range start:step:stop as sweeps read it
 * (cs_arg_grid), each written as its shortest text; else a,b,c as typed. */
static int for_values(cs_interp *in, const cs_arg *list, char ***vals, size_t *n, int *col,
                      cs_err *err)
{
    size_t fault;
    *col = list->col;
    if (!strchr(list->value, ':')) {
        int rc = cs_script_split(list->value, vals, n, &fault, err);
        if (rc)
            *col = cs_arg_value_col(list, fault);
        return rc;
    }
    cs_arg key = {.key = (char *)"in", .value = list->value, .col = list->col};
    cs_cmdline one = {.name = (char *)"for", .args = &key, .nargs = 1};
    double *v;
    cs_err sub;
    int rc = cs_arg_grid(in, &one, "in", NULL, &v, n, &sub);
    if (rc) {
        /* "in=TEXT: why" -> "for ... in TEXT: why" */
        size_t skip = 3 + strlen(list->value) + 2;
        return cs_fail(err, rc, "for ... in %s: %s", list->value,
                       strlen(sub.msg) > skip ? sub.msg + skip : sub.msg);
    }
    *vals = calloc(*n, sizeof **vals);
    for (size_t i = 0; *vals && i < *n; i++) {
        char t[40];
        cs_format_double(t, sizeof t, v[i]);
        if (!((*vals)[i] = strdup(t))) {
            cs_script_free_list(*vals, i);
            *vals = NULL;
        }
    }
    free(v);
    return *vals ? CS_OK : cs_fail(err, CS_ENOMEM, "out of memory");
}

/* `for NAME in LIST`: check it, evaluate the list, start keeping lines. */
static int open_block(cs_interp *in, const char *line, int lineno, int *err_col, cs_err *err)
{
    static const char usage[] = "(usage: for NAME in LIST, then the lines to repeat, then end)";
    cs_cmdline cl;
    char *x;
    int *map;
    int rc = parse_expanded(in, line, &cl, &x, &map, err_col, err);
    if (rc)
        return rc;
    const cs_arg *name = cs_cmdline_pos(&cl, 0), *kw = cs_cmdline_pos(&cl, 1),
                 *list = cs_cmdline_pos(&cl, 2), *extra = cs_cmdline_pos(&cl, 3);
    char msg[400];
    int col = 0, fixed = 0;
    for (size_t i = 0; i < cl.nargs && !col; i++)
        col = cl.args[i].key ? cl.args[i].col : 0;
    if (col) {
        snprintf(msg, sizeof msg, "for takes no key=value %s", usage);
    } else if (name && kw && (strcmp(kw->value, "in") != 0 || kw->quoted)) {
        col = kw->col;
        snprintf(msg, sizeof msg, "expected 'in' after for %s %s", name->value, usage);
    } else if (!name || !kw || !list || extra) {
        col = extra ? extra->col : cl.name_col;
        snprintf(msg, sizeof msg, "%s %s", extra ? "one list after in" : "for needs NAME in LIST",
                 usage);
    } else if (name->quoted || !cs_var_name_ok(name->value, strlen(name->value))) {
        col = name->col;
        snprintf(msg, sizeof msg, "'%.64s' is not a variable name (letters, digits and _, not "
                 "starting with a digit)", name->value);
    } else if (cs_vars_get(in->vars, name->value, strlen(name->value), &fixed) && fixed) {
        col = name->col;
        snprintf(msg, sizeof msg, "for %s: -D sets %s, and a loop cannot change it (run without "
                 "-D %s, or loop in the shell around csreg -D)", name->value, name->value,
                 name->value);
    }
    if (col) {
        rc = fail_at(err_col, typed_col(map, x, col), err, msg);
    } else {
        char **vals;
        size_t n;
        rc = for_values(in, list, &vals, &n, &col, err);
        if (rc)
            *err_col = typed_col(map, x, col);
        else if (cs_block_open(&in->block, line, lineno, typed_col(map, x, cl.name_col),
                               name->value, vals, n) < 0)
            rc = cs_fail(err, CS_ENOMEM, "out of memory");
    }
    cs_cmdline_free(&cl);
    free(x);
    free(map);
    return rc;
}

static void set_where(cs_interp *in, const cs_block_line *l)
{
    if (in->where_text)
        return;   /* an inner loop named its line */
    in->where_text = strdup(l->text);
    in->where_line = in->where_text ? l->lineno : 0;
}

/* "...: why" -> "...: why (in the loop, L=0.001)", outer loops adding theirs. */
static void note_iteration(cs_err *err, const char *name, const char *value)
{
    size_t len = strlen(err->msg);
    static const char mark[] = " (in the loop, ";
    if (len && err->msg[len - 1] == ')' && strstr(err->msg, mark))
        snprintf(err->msg + len - 1, sizeof err->msg - (len - 1), ", %s=%s)", name, value);
    else
        snprintf(err->msg + len, sizeof err->msg - len, "%s%s=%s)", mark, name, value);
}

/* The loop whose `end` just came: its body once per value, the variable
 * set (and afterwards as it was). */
static int run_block(cs_interp *in, int *err_col, cs_err *err)
{
    cs_block b = in->block;
    memset(&in->block, 0, sizeof in->block);
    const char *old = cs_vars_get(in->vars, b.name, strlen(b.name), NULL);
    char *saved = old ? strdup(old) : NULL;
    int rc = old && !saved ? cs_fail(err, CS_ENOMEM, "out of memory") : CS_OK;
    for (size_t k = 0; k < b.nvals && rc == CS_OK && !in->interrupted; k++) {
        if (cs_vars_set(in->vars, b.name, b.vals[k], 0, 1) < 0) {
            rc = cs_fail(err, CS_ENOMEM, "out of memory");
            break;
        }
        for (size_t i = 0; i < b.nbody; i++) {
            const cs_block_line *l = &b.body[i];
            const char *cmd = l->text + strspn(l->text, " \t");
            if (*cmd && *cmd != '#' && cs_cancelled(&in->cancel)) {
                /* Ctrl-C between two commands: the next does not start */
                in->interrupted = 1;
                set_where(in, l);
                rc = CS_INTERRUPTED_BEFORE;
                break;
            }
            long limit = in->opts.loop_limit > 0 ? in->opts.loop_limit : LOOP_COMMANDS_MAX;
            if (++in->loop_commands > limit) {
                set_where(in, l);
                rc = cs_fail(err, CS_EINVAL, "loops ran more than %ld lines for one line; "
                             "split the study", limit);
                break;
            }
            rc = cs_interp_script_line(in, l->text, l->lineno, err_col, err);
            if (rc < 0 || rc == CS_INTERRUPTED_BEFORE || in->interrupted) {
                set_where(in, l);
                if (rc < 0 && rc != CS_ECANCEL)
                    note_iteration(err, b.name, b.vals[k]);
                break;
            }
            if (rc == 1)   /* quit */
                break;
        }
    }
    if (!saved)
        cs_vars_unset(in->vars, b.name);
    else if (cs_vars_set(in->vars, b.name, saved, 0, 1) < 0 && rc == CS_OK)
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
    free(saved);
    cs_block_clear(&b);
    return rc;
}

/* `end` with something after it (a comment aside): its column, else 0. */
static int end_extra(const char *line)
{
    int col;
    cs_script_word(line, "end", &col);
    const char *p = line + col - 1 + 3;
    p += strspn(p, " \t\r\n");
    return *p && *p != '#' ? (int)(p - line) + 1 : 0;
}

int cs_interp_script_line(cs_interp *in, const char *line, int lineno, int *err_col, cs_err *err)
{
    int col;
    *err_col = 0;
    cs_err_clear(err);
    if (in->block.depth > 0) {   /* typing a loop: keep the line */
        int closed = cs_block_add(&in->block, line, lineno);
        if (closed < 0 || in->block.depth > LOOP_DEPTH_MAX) {
            cs_script_word(line, "for", err_col);
            cs_block_clear(&in->block);
            return closed < 0 ? cs_fail(err, CS_ENOMEM, "out of memory")
                              : cs_fail(err, CS_EINVAL, "for loops nested more than %d deep",
                                        LOOP_DEPTH_MAX);
        }
        if (!closed)
            return CS_OK;
        if ((col = end_extra(line))) {
            cs_block_clear(&in->block);
            return fail_at(err_col, col, err, "end takes nothing after it (the loop was not run)");
        }
        return run_block(in, err_col, err);
    }
    if (cs_script_word(line, "for", NULL))
        return open_block(in, line, lineno, err_col, err);
    if (cs_script_word(line, "end", &col))
        return fail_at(err_col, col, err, "end without for");
    if (cs_script_word(line, "let", NULL))
        return let_line(in, line, err_col, err);
    char *x;
    int *map;
    int rc = cs_script_expand(in->vars, line, &x, &map, err_col, err);
    if (rc)
        return rc;
    rc = in->command(in, x, err_col, err);
    *err_col = typed_col(map, x, *err_col);
    free(x);
    free(map);
    return rc;
}

void cs_interp_set_line(cs_interp *in, int lineno) { in->lineno = lineno; }

int cs_interp_where(const cs_interp *in, const char **text)
{
    if (text)
        *text = in->where_text;
    return in->where_text ? in->where_line : 0;
}

int cs_interp_finish(cs_interp *in, int *err_col, cs_err *err)
{
    *err_col = 0;
    if (in->block.depth == 0)
        return CS_OK;
    free(in->where_text);
    in->where_text = strdup(in->block.head);
    in->where_line = in->where_text ? in->block.head_line : 0;
    *err_col = in->block.head_col;
    cs_block_clear(&in->block);
    return cs_fail(err, CS_EINVAL, "for without end (a loop runs when its end comes)");
}
