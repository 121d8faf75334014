/* cmd_tour.c — narration for guided scripts (sessions/tour.csr): `say`,
 * `pause` and `chapter`. They are commands like any other, journaled, so a
 * tour replays in batch mode to the same output files. What they mean on a
 * screen is the front end's business: the TUI's script player shows `say`
 * in the narration rows and waits for a key at `pause`; a batch run prints
 * the text and goes on.
 *
 * A narration never states a number as fixed text: `say` fills {NAME} and
 * {NAME:FORMAT} from the session's live state (the solver's run, the
 * network's report, the last sweep and basin map), so the words on the
 * screen are the results of this run. A name with no value is an error:
 * the narration would otherwise claim something the screen does not show. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_args.h"
#include "cs_plotstore.h"
#include "cs_solve_view.h"
#include "interp_internal.h"
#include "nn_state.h"
#include "solve_state.h"

/* The positional words, joined by single spaces (a quoted string is one). */
static int join_words(const cs_cmdline *cl, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cs_cmdline_npos(cl); i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? " " : "",
                         cs_cmdline_pos(cl, i)->value);
        if (w < 0 || (size_t)w >= len - used)
            return -1;
        used += (size_t)w;
    }
    return 0;
}

/* ---- the values a narration may name ------------------------------------------ */

/* A value: a number, or a word (str[0] != 0). */
typedef struct tval {
    double num;
    char str[64];
} tval;

/* The first iteration from which the current start's trajectory stays
 * within 1e-3 (relative) of where it ended: when it settled. -1: unknown. */
static long settled_at(const cs_solve_view *v) { return cs_solve_view_settled(v); }

static double norm_inf(const double *x, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* 1-based index from arg into [1, n], else 0. */
static size_t index_of(const char *arg, size_t n)
{
    char *end;
    long k = arg ? strtol(arg, &end, 10) : 0;
    return arg && *end == '\0' && k >= 1 && (size_t)k <= n ? (size_t)k : 0;
}

/* The solver's values: 0, 1 when `name` is none of them, -1 when it has no
 * value now (why in err). */
static int solver_value(cs_interp *in, const char *name, const char *arg, tval *v, cs_err *err)
{
    static const char *const names[] = {"iter", "start", "starts", "iters", "err", "final_err",
                                        "end", "success", "method", "N", "M", "x", "xstar",
                                        "norminf", "norminf_xstar", "settled", NULL};
    size_t k = 0;
    while (names[k] && strcmp(names[k], name))
        k++;
    if (!names[k] || (arg && k != 11 && k != 12))   /* success@METHOD/X: the sweep's */
        return 1;
    cs_solve_view s;
    if (cs_interp_solve_view(in, &s))
        return cs_fail(err, CS_ESTATE, "{%s} has no value: no problem is set up", name);
    if (!s.method && k != 9 && k != 10 && k != 12 && k != 14)
        return cs_fail(err, CS_ESTATE, "{%s} has no value: nothing solved yet", name);
    size_t i;
    switch (k) {
    case 0: v->num = (double)s.iter; break;
    case 1: v->num = s.start; break;
    case 2: v->num = s.max_starts; break;
    case 3: v->num = (double)s.iters; break;
    case 4: v->num = s.rel_err; break;
    case 5: v->num = s.final_rel_err; break;
    case 6: snprintf(v->str, sizeof v->str, "%s", s.end ? s.end : "?"); break;
    case 7: snprintf(v->str, sizeof v->str, "%s", s.success ? "yes" : "no"); break;
    case 8: snprintf(v->str, sizeof v->str, "%.*s", (int)strcspn(s.method, ":"), s.method); break;
    case 9: v->num = (double)s.N; break;
    case 10: v->num = (double)s.M; break;
    case 11:
    case 12: {
        const double *x = k == 11 ? s.x : s.xstar;
        if (!x || !(i = index_of(arg, s.n)))
            return cs_fail(err, CS_ESTATE, "{%s@%s}: no such entry (1..%zu)", name,
                           arg ? arg : "", s.n);
        v->num = x[i - 1];
        break;
    }
    case 13: v->num = s.x ? norm_inf(s.x, s.n) : NAN; break;
    case 14: v->num = s.xstar ? norm_inf(s.xstar, s.n) : NAN; break;
    default: v->num = (double)settled_at(&s); break;
    }
    if (!v->str[0] && !isfinite(v->num))
        return cs_fail(err, CS_ESTATE, "{%s} has no value now", name);
    if (k == 15 && v->num < 0)
        return cs_fail(err, CS_ESTATE, "{settled}: the start has no trajectory (2 unknowns only)");
    return 0;
}

/* acc@LABEL, train_acc@LABEL: the last nnreport stage of that label. */
static int network_value(cs_interp *in, const char *name, const char *arg, tval *v, cs_err *err)
{
    int test = !strcmp(name, "acc");
    if (!test && strcmp(name, "train_acc"))
        return 1;
    nn_state *s = cs_interp_ext(in, CS_EXT_NN);
    for (size_t i = s ? s->nst : 0; arg && i > 0; i--) {
        const nn_stage *t = &s->st[i - 1];
        double a = test ? t->test_acc : t->train_acc;
        if (!strcmp(t->label, arg) && a >= 0) {
            v->num = a;
            return 0;
        }
    }
    return cs_fail(err, CS_ESTATE, "{%s@%s} has no value: no stage labelled '%s' measured it",
                   name, arg ? arg : "", arg ? arg : "");
}

/* success@METHOD/X: the last sweep's success rate of METHOD at grid value X;
 * basins@CLASS: the last basin map's starts of that class. */
static int plot_value(cs_interp *in, const char *name, const char *arg, tval *v, cs_err *err)
{
    if (!strcmp(name, "success")) {
        const cs_plot_success_data *d = cs_plotstore_data(in, "success");
        const char *slash = arg ? strrchr(arg, '/') : NULL;
        char *end;
        double x = slash ? strtod(slash + 1, &end) : NAN;
        for (size_t i = 0; d && slash && *end == '\0' && i < d->nseries; i++) {
            const cs_plot_series *s = &d->series[i];
            if (strlen(s->name) != (size_t)(slash - arg) || strncmp(s->name, arg, strlen(s->name)))
                continue;
            for (size_t j = 0; j < s->n; j++)
                if (fabs(s->x[j] - x) <= 1e-9 * fmax(1.0, fabs(x))) {
                    v->num = s->y[j];
                    return 0;
                }
        }
        return cs_fail(err, CS_ESTATE, "{success@%s} has no value: %s", arg ? arg : "",
                       d ? "no such method and grid value in the last sweep" : "no sweep yet");
    }
    if (!strcmp(name, "basins")) {
        static const char *const cls[] = {"success", "other", "spurious", "notconv", "all"};
        const cs_plot_basins_data *d = cs_plotstore_data(in, "basins");
        for (size_t k = 0; d && d->counts && arg && k < 5; k++)
            if (!strcmp(arg, cls[k])) {
                v->num = k < 4 ? (double)d->counts[k]
                               : (double)(d->counts[0] + d->counts[1] + d->counts[2] + d->counts[3]);
                return 0;
            }
        return cs_fail(err, CS_ESTATE, "{basins@%s} has no value: %s", arg ? arg : "",
                       d ? "the class is success, other, spurious, notconv or all"
                         : "no basin map yet");
    }
    if (!strcmp(name, "marks")) {   /* reg analyze's spurious points on its landscape */
        const cs_plot_landscape_data *d = cs_plotstore_data(in, "landscape");
        if (!d)
            return cs_fail(err, CS_ESTATE, "{marks} has no value: no landscape yet");
        v->num = (double)d->nmarks;
        return 0;
    }
    return 1;
}

/* The value of {NAME@ARG}. */
static int value_of(cs_interp *in, const char *name, const char *arg, tval *v, cs_err *err)
{
    memset(v, 0, sizeof *v);
    int rc = solver_value(in, name, arg, v, err);
    if (rc == 1)
        rc = network_value(in, name, arg, v, err);
    if (rc == 1)
        rc = plot_value(in, name, arg, v, err);
    if (rc == 1)
        return cs_fail(err, CS_EINVAL, "{%s}: no such value (iter start starts iters err "
                       "final_err end success method N M x@I xstar@I norminf norminf_xstar "
                       "settled acc@LABEL train_acc@LABEL success@METHOD/X basins@CLASS marks)",
                       name);
    return rc;
}

/* A number as FORMAT says: [.P]f, [.P]g, [.P]e, [.P]% (times 100, a % sign)
 * or d; "" is a whole number as one, else 4 significant digits. */
static int format_num(double x, const char *fmt, char *out, size_t len, cs_err *err)
{
    int prec = -1;
    const char *f = fmt;
    if (*f == '.') {
        char *end;
        long p = strtol(f + 1, &end, 10);
        if (end == f + 1 || p < 0 || p > 12)
            return cs_fail(err, CS_EINVAL, "format ':%s': a precision 0..12 after the dot", fmt);
        prec = (int)p;
        f = end;
    }
    if (!*f && prec < 0) {
        if (x == floor(x) && fabs(x) < 1e15)
            snprintf(out, len, "%.0f", x);
        else
            snprintf(out, len, "%.4g", x);
    } else if (!strcmp(f, "f") || !strcmp(f, "g") || !strcmp(f, "e")) {
        int p = prec < 0 ? 6 : prec;
        if (*f == 'f')
            snprintf(out, len, "%.*f", p, x);
        else if (*f == 'g')
            snprintf(out, len, "%.*g", p, x);
        else
            snprintf(out, len, "%.*e", p, x);
    } else if (!strcmp(f, "%")) {
        snprintf(out, len, "%.*f%%", prec < 0 ? 0 : prec, 100 * x);
    } else if (!strcmp(f, "d") && prec < 0) {
        snprintf(out, len, "%.0f", x);
    } else {
        return cs_fail(err, CS_EINVAL, "format ':%s': one of f g e %% d, with .P before", fmt);
    }
    return 0;
}

/* The length of a value's braces at s: '{', a name (a letter, then
 * letters, digits, _), optionally @ARG and :FORMAT (no blanks, commas or
 * braces), '}'; 0 when s is other text in braces, such as {-a,+a}. */
static size_t value_braces(const char *s)
{
    if (s[0] != '{' || !((s[1] >= 'a' && s[1] <= 'z') || (s[1] >= 'A' && s[1] <= 'Z')))
        return 0;
    size_t n = strcspn(s + 1, "{} ,\t");
    return s[1 + n] == '}' ? n + 2 : 0;
}

/* text with every {NAME[@ARG][:FORMAT]} replaced by its value; other
 * braces stay ({-a,+a}^N); {{ and }} stand for { and }. */
static int expand(cs_interp *in, const char *text, char *out, size_t len, cs_err *err)
{
    size_t used = 0;
    for (const char *s = text; *s;) {
        char piece[96];
        size_t n = 1;
        if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
            snprintf(piece, sizeof piece, "%c", s[0]);
            n = 2;
        } else if (value_braces(s)) {
            const char *close = s + value_braces(s) - 1;
            if (close - s > 80)
                return cs_fail(err, CS_EINVAL, "say: {%.20s...} is too long", s + 1);
            char spec[96], *fmt, *arg;
            snprintf(spec, sizeof spec, "%.*s", (int)(close - s - 1), s + 1);
            fmt = strchr(spec, ':');
            if (fmt)
                *fmt++ = '\0';
            arg = strchr(spec, '@');
            if (arg)
                *arg++ = '\0';
            tval v;
            int rc = value_of(in, spec, arg, &v, err);
            if (rc)
                return rc;
            if (v.str[0] && fmt && *fmt)
                return cs_fail(err, CS_EINVAL, "{%s:%s}: a word takes no format", spec, fmt);
            if (v.str[0])
                snprintf(piece, sizeof piece, "%s", v.str);
            else if ((rc = format_num(v.num, fmt ? fmt : "", piece, sizeof piece, err)))
                return rc;
            n = (size_t)(close - s) + 1;
        } else {
            n = strcspn(s + 1, "{}") + 1;   /* up to the next brace */
            n = n < 95 ? n : 95;
            snprintf(piece, sizeof piece, "%.*s", (int)n, s);
        }
        size_t pl = strlen(piece);
        if (used + pl + 1 > len)
            return cs_fail(err, CS_EINVAL, "say: the text is longer than %zu characters", len - 1);
        memcpy(out + used, piece, pl + 1);
        used += pl;
        s += n;
    }
    out[used] = '\0';
    return 0;
}

/* ---- the commands ---------------------------------------------------------------- */

static int cmd_say(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    char text[2048], said[2048];
    if (join_words(cl, text, sizeof text)) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "say: the text is longer than %zu characters",
                       sizeof text - 1);
    }
    int rc = expand(in, text, said, sizeof said, err);
    if (rc) {
        in->err_col = cs_cmdline_pos(cl, 0)->col;
        return rc;
    }
    if (cs_cmdline_key(cl, "split")) {   /* a front end's hint; checked as a name */
        const char *r = cs_arg_text(cl, "split", "");
        if (!cs_reg_lookup(r)) {
            cs_arg_blame(in, cl, "split", 0);
            return cs_fail(err, CS_EINVAL, "split=%s: no such built-in regularizer", r);
        }
    }
    cs_result_text(res, "%s\n", said);   /* JSON: the field "text" */
    return CS_OK;
}

static int cmd_pause(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    (void)in, (void)cl, (void)res, (void)err;
    return CS_OK;   /* the TUI's player waits for a key (and checks try=); scripts go on */
}

/* A chapter sets up its own state: the last one's problem (its feasible
 * set, x*, runs and basin map) goes, so that no panel draws layers that no
 * longer apply (a chapter that studies a regularizer alone shows it alone). */
static void drop_problem(cs_interp *in)
{
    solve_state *st = cs_interp_ext(in, CS_EXT_SOLVE);
    if (!st || !st->prob)
        return;
    solve_state_set_problem(st, NULL);
    st->seq = cs_interp_stamp(in);
}

static int cmd_chapter(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err)
{
    char name[256];
    if (join_words(cl, name, sizeof name)) {
        in->err_col = cl->name_col;
        return cs_fail(err, CS_EINVAL, "chapter: the name is longer than %zu characters",
                       sizeof name - 1);
    }
    in->chapter++;
    drop_problem(in);
    cs_result_int(res, "_chapter", in->chapter);   /* '_': JSON only, the text says it */
    cs_result_str(res, "_name", name);
    cs_result_text(res, "== Chapter %d: %s ==\n", in->chapter, name);
    return CS_OK;
}

static const cs_key_spec no_keys[] = {{0}};
static const cs_key_spec say_keys[] = {
    {"split", NULL, "the workbench shows this built-in regularizer's landscape beside the "
     "current one, on the same problem, while the text is up (nothing in batch runs)", NULL,
     CS_KEY_WORD},
    {0}};
static const cs_key_spec pause_keys[] = {
    {"try", NULL, "an invitation the workbench checks while it waits: KEY=VALUE[,KEY=VALUE] "
     "over reg, N, M, method, success, start, layer (the training view's histogram): "
     "\"M=2\"; nothing in batch runs", NULL,
     CS_KEY_TEXT},
    {0}};

static const cs_cmd_spec tour_commands[] = {
    {.name = "say", .topic = "sessions", .usage = "say \"TEXT\" [split=REG]",
     .summary = "narration: rows of the workbench, a printed line in scripts; a value's name in "
                "braces (iter, start, err, x@1, acc@LABEL, success@bin/0.5, ...; :.3f after it "
                "formats) takes its live value",
     .example = "say \"start {start} reached x* at iteration {iter}, error {err:.2g}\"",
     .min_pos = 1, .max_pos = 64, .keys = say_keys, .run = cmd_say, .journal = 1},
    {.name = "pause", .topic = "sessions", .usage = "pause [try=KEY=VALUE]",
     .summary = "wait for a key in the workbench's script player (nothing in batch runs)",
     .example = "pause try=M=2", .keys = pause_keys, .run = cmd_pause, .journal = 1},
    {.name = "chapter", .topic = "sessions", .usage = "chapter NAME",
     .summary = "start the next chapter of a guided script (numbered from 1); the last "
                "chapter's problem goes (each chapter sets up its own)",
     .example = "chapter \"Where a CS regularizer is zero\"", .min_pos = 1, .max_pos = 16,
     .keys = no_keys, .run = cmd_chapter, .journal = 1},
};

CS_CMD_GROUP(cs_group_tour, tour_commands);
