/* expr_parse.c — the expression language of user-defined g and h
 * (cs_expr.h): tokenizer, parser and tree, homogeneity, compilation to
 * bytecode, and the API that makes, copies and queries a cs_expr.
 *
 * text --parse--> tree (constant subtrees folded as they are built, spans
 * and homogeneity degree kept per node) --compile--> stack bytecode; each
 * instruction knows its output slot at compile time (binary operations read
 * slots s and s+1 and write s). The evaluators are in expr_eval.c. */
#include "cs_expr.h"
#include "cs_simd.h"
#include "expr_internal.h"

#include <math.h>
#include <sleef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the tree */

enum { N_NUM, N_X, N_NEG, N_ADD, N_SUB, N_MUL, N_DIV, N_POW, N_FN };
enum { F_EXP, F_LOG, F_SQRT, F_ABS, F_SIN, F_COS, F_TAN, F_TANH, F_SIGN, F_MIN, F_MAX, F_COUNT };

static const struct {
    const char *name;
    int nargs;
    int op;
} fn_table[F_COUNT] = {
    [F_EXP] = {"exp", 1, OP_EXP},   [F_LOG] = {"log", 1, OP_LOG},
    [F_SQRT] = {"sqrt", 1, OP_SQRT}, [F_ABS] = {"abs", 1, OP_ABS},
    [F_SIN] = {"sin", 1, OP_SIN},   [F_COS] = {"cos", 1, OP_COS},
    [F_TAN] = {"tan", 1, OP_TAN},   [F_TANH] = {"tanh", 1, OP_TANH},
    [F_SIGN] = {"sign", 1, OP_SIGN}, [F_MIN] = {"min", 2, OP_MIN},
    [F_MAX] = {"max", 2, OP_MAX},
};
#define FN_LIST "exp log sqrt abs sin cos tan tanh sign min max"

typedef struct node {
    int kind, fn;
    double c;         /* N_NUM */
    int a, b;         /* children (node indices), -1 when absent */
    int s0, s1;       /* the term's own span [s0, s1), 0-based offsets */
    int e0, e1;       /* with the parentheses around it */
    int hom, any;     /* homogeneous of degree k; any: identically zero (every degree) */
    double k;
} node;

typedef struct parser {
    const char *s;
    int len, pos;
    node *nodes;
    int nn, cap;
    const cs_expr_const *consts;
    size_t nconsts;
    int depth;
    int failed;       /* 0, or the CS_E* code of the error recorded */
    int *col;
    cs_err *err;
} parser;

typedef struct prog {
    ins *code;
    int n, cap;
    int nslots;
} prog;

static int perr(parser *p, int pos, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int perr(parser *p, int pos, int code, const char *fmt, ...)
{
    char buf[CS_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (p->col)
        *p->col = pos + 1;
    p->failed = code;
    cs_fail(p->err, code, "column %d: %s", pos + 1, buf);
    return -1;
}

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alnum(int c) { return is_alpha(c) || is_digit(c); }

static void skip_ws(parser *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

static int peek(parser *p)
{
    skip_ws(p);
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

/* The token at pos for messages: 'name', '1.5', '*', or a byte code. */
static void tok_desc(const parser *p, int pos, char *buf, size_t len)
{
    if (pos >= p->len) {
        snprintf(buf, len, "end of expression");
        return;
    }
    unsigned char c = (unsigned char)p->s[pos];
    int end = pos + 1;
    if (is_alnum(c) || c == '.')
        while (end < p->len && end - pos < 40 && (is_alnum(p->s[end]) || p->s[end] == '.'))
            end++;
    if (c < 32 || c >= 127)
        snprintf(buf, len, "character (byte 0x%02x)", c);
    else
        snprintf(buf, len, "'%.*s'", end - pos, p->s + pos);
}

static int new_node(parser *p, int kind, int s0, int s1)
{
    if (p->nn >= p->cap)
        return perr(p, s0, CS_EINVAL, "expression too complex");
    node *n = &p->nodes[p->nn];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->a = n->b = -1;
    n->s0 = n->e0 = s0;
    n->s1 = n->e1 = s1;
    return p->nn++;
}

static int new_num(parser *p, double c, int s0, int s1)
{
    int i = new_node(p, N_NUM, s0, s1);
    if (i >= 0) {
        p->nodes[i].c = c;
        p->nodes[i].hom = 1;
        p->nodes[i].any = c == 0.0;
    }
    return i;
}

static int is_num(const parser *p, int i) { return p->nodes[i].kind == N_NUM; }

static int compile_node(const node *nodes, int i, int sp, prog *pg);

/* Degree of homogeneity from the children's (see cs_expr_homogeneous). */
static void homogeneity(node *n, const node *a, const node *b)
{
    n->hom = 0;
    n->any = 0;
    n->k = 0.0;
    if (!a->hom || (b && !b->hom))
        return;
    /* sums and min/max: the same degree; an identically zero side takes any */
    int same = b && (a->any || b->any || a->k == b->k);
    double ks = b ? (a->any ? b->k : a->k) : 0.0;
    switch (n->kind) {
    case N_NEG:
        n->hom = 1;
        n->any = a->any;
        n->k = a->k;
        return;
    case N_ADD:
    case N_SUB:
        n->hom = same;
        n->any = a->any && b->any;
        n->k = ks;
        return;
    case N_MUL:
        n->hom = 1;
        n->any = a->any || b->any;
        n->k = a->k + b->k;
        return;
    case N_DIV:
        n->hom = 1;
        n->any = a->any;
        n->k = a->k - b->k;
        return;
    case N_POW:
        if (b->kind == N_NUM) {   /* (t^k f)^c = t^(kc) f^c for t > 0 */
            n->hom = 1;
            n->any = a->any && b->c > 0;
            n->k = a->k * b->c;
        } else if ((a->any || a->k == 0.0) && (b->any || b->k == 0.0)) {
            n->hom = 1;
        }
        return;
    case N_FN:
        switch (n->fn) {
        case F_ABS: n->hom = 1; n->any = a->any; n->k = a->k; return;
        case F_SQRT: n->hom = 1; n->any = a->any; n->k = a->k / 2; return;
        case F_SIGN: n->hom = 1; n->any = a->any; return;
        case F_MIN:
        case F_MAX:
            n->hom = same;
            n->any = a->any && b->any;
            n->k = ks;
            return;
        default:   /* f(t^0 g) = f(g): degree 0; f(0) is a constant */
            n->hom = a->any || a->k == 0.0;
            return;
        }
    default: return;
    }
}

/* Finish node i built from children a, b: homogeneity, then folding when
 * every child is a constant (by the scalar path, so folded and unfolded
 * constants agree with cs_expr_eval1). */
static int finish(parser *p, int i)
{
    if (i < 0)
        return -1;
    node *n = &p->nodes[i];
    const node *a = n->a >= 0 ? &p->nodes[n->a] : NULL;
    const node *b = n->b >= 0 ? &p->nodes[n->b] : NULL;
    int s0 = n->s0, s1 = n->s1;
    homogeneity(n, a, b);
    if ((a && !is_num(p, n->a)) || (b && !is_num(p, n->b)))
        return i;
    ins buf[4];
    prog pg = {buf, 0, 4, 0};
    double V[4] = {0}, D[4] = {0};
    if (compile_node(p->nodes, i, 0, &pg) < 0)
        return perr(p, s0, CS_EINVAL, "expression too complex");
    for (int j = 0; j < pg.n; j++)
        cs_expr_step1(&pg.code[j], V, D, 0.0);
    if (!isfinite(V[0])) {
        char t[160];
        cs_expr_span_text(p->s, s0, s1, t, sizeof t);
        return perr(p, s0, CS_EINVAL, "%s is %s (a constant term must be finite)", t,
                    isnan(V[0]) ? "NaN" : "Inf");
    }
    n->kind = N_NUM;
    n->c = V[0];
    n->a = n->b = -1;
    n->hom = 1;
    n->any = V[0] == 0.0;
    n->k = 0.0;
    return i;
}

static int mk(parser *p, int kind, int a, int b, int s0, int s1)
{
    if (a < 0 || (kind >= N_ADD && kind <= N_POW && b < 0))
        return -1;
    int i = new_node(p, kind, s0, s1);
    if (i < 0)
        return -1;
    p->nodes[i].a = a;
    p->nodes[i].b = b;
    return finish(p, i);
}

static int parse_expr(parser *p);
static int parse_unary(parser *p);

static int enter(parser *p, int pos)
{
    if (++p->depth > CS_EXPR_MAX_DEPTH)
        return perr(p, pos, CS_EINVAL,
                    "expression nested too deeply (more than %d levels of parentheses, "
                    "function calls, signs and powers)",
                    CS_EXPR_MAX_DEPTH);
    return 0;
}

static int parse_number(parser *p)
{
    int st = p->pos, i = st, digits = 0;
    while (i < p->len && is_digit(p->s[i]))
        i++, digits++;
    if (i < p->len && p->s[i] == '.') {
        i++;
        while (i < p->len && is_digit(p->s[i]))
            i++, digits++;
    }
    if (!digits)
        return perr(p, st, CS_EINVAL, "malformed number '.' (a digit is expected)");
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        int j = i + 1;
        if (j < p->len && (p->s[j] == '+' || p->s[j] == '-'))
            j++;
        if (j >= p->len || !is_digit(p->s[j])) {
            int end = j;
            while (end < p->len && (is_alnum(p->s[end]) || p->s[end] == '.'))
                end++;
            return perr(p, st, CS_EINVAL, "malformed number '%.*s' (exponent digits expected)",
                        end - st, p->s + st);
        }
        while (j < p->len && is_digit(p->s[j]))
            j++;
        i = j;
    }
    char buf[CS_EXPR_MAX_LEN + 1];
    memcpy(buf, p->s + st, (size_t)(i - st));
    buf[i - st] = '\0';
    double v = strtod(buf, NULL);
    if (!isfinite(v))
        return perr(p, st, CS_EINVAL, "number '%s' is out of range", buf);
    p->pos = i;
    return new_num(p, v, st, i);
}

static int lookup_fn(const char *s, int n)
{
    for (int f = 0; f < F_COUNT; f++)
        if ((int)strlen(fn_table[f].name) == n && memcmp(fn_table[f].name, s, (size_t)n) == 0)
            return f;
    return -1;
}

/* name -> value: pi, e, the user constants; 0 when not a constant name */
static int lookup_const(const parser *p, const char *s, int n, double *v)
{
    if (n == 2 && memcmp(s, "pi", 2) == 0) {
        *v = M_PI;
        return 1;
    }
    if (n == 1 && s[0] == 'e') {
        *v = M_E;
        return 1;
    }
    for (size_t i = 0; i < p->nconsts; i++)
        if ((int)strlen(p->consts[i].name) == n && memcmp(p->consts[i].name, s, (size_t)n) == 0) {
            *v = p->consts[i].value;
            return 1;
        }
    return 0;
}

static int parse_call(parser *p, int f, int st)
{
    if (enter(p, st))
        return -1;
    p->pos++; /* '(' */
    int args[2] = {-1, -1}, nargs = 0;
    if (peek(p) != ')') {
        for (;;) {
            int a = parse_expr(p);
            if (a < 0)
                return -1;
            if (nargs < 2)
                args[nargs] = a;
            nargs++;
            int c = peek(p);
            if (c == ',') {
                p->pos++;
                continue;
            }
            if (c == ')')
                break;
            char t[64];
            tok_desc(p, p->pos, t, sizeof t);
            return perr(p, p->pos, CS_EINVAL, "',' or ')' expected in the arguments of %s, not %s",
                        fn_table[f].name, t);
        }
    }
    p->pos++; /* ')' */
    p->depth--;
    int want = fn_table[f].nargs;
    if (nargs != want)
        return perr(p, st, CS_EINVAL, "%s takes %d argument%s (got %d)", fn_table[f].name, want,
                    want == 1 ? "" : "s", nargs);
    int i = new_node(p, N_FN, st, p->pos);
    if (i < 0)
        return -1;
    p->nodes[i].fn = f;
    p->nodes[i].a = args[0];
    p->nodes[i].b = args[1];
    return finish(p, i);
}

static int parse_name(parser *p)
{
    int st = p->pos, end = st;
    while (end < p->len && is_alnum(p->s[end]))
        end++;
    const char *nm = p->s + st;
    int n = end - st;
    p->pos = end;
    int f = lookup_fn(nm, n);
    double v;
    int isx = n == 1 && nm[0] == 'x';
    if (peek(p) == '(') {
        if (f >= 0)
            return parse_call(p, f, st);
        if (isx || lookup_const(p, nm, n, &v))
            return perr(p, st, CS_EINVAL,
                        "'%.*s' is not a function (write %.*s*(...) to multiply)", n, nm, n, nm);
        return perr(p, st, CS_EINVAL, "unknown function '%.*s' (functions: " FN_LIST ")", n, nm);
    }
    if (f >= 0)
        return perr(p, st, CS_EINVAL, "function %s needs its argument%s in parentheses: %s(...)",
                    fn_table[f].name, fn_table[f].nargs == 1 ? "" : "s", fn_table[f].name);
    if (isx) {
        int i = new_node(p, N_X, st, end);
        if (i >= 0) {
            p->nodes[i].hom = 1;
            p->nodes[i].k = 1.0;
        }
        return i;
    }
    if (lookup_const(p, nm, n, &v))
        return new_num(p, v, st, end);
    char names[300];
    size_t w = (size_t)snprintf(names, sizeof names, "x, pi, e");
    for (size_t i = 0; i < p->nconsts && w < sizeof names; i++) {
        if (w + strlen(p->consts[i].name) + 8 >= sizeof names) {
            snprintf(names + w, sizeof names - w, ", ...");
            break;
        }
        w += (size_t)snprintf(names + w, sizeof names - w, ", %s", p->consts[i].name);
    }
    return perr(p, st, CS_EINVAL, "unknown name '%.*s' (names: %s)", n > 60 ? 60 : n, nm, names);
}

static int parse_primary(parser *p)
{
    int c = peek(p), st = p->pos;
    if (c < 0)
        return perr(p, st, CS_EINVAL, "unexpected end of expression (an operand is expected)");
    if (is_digit(c) || c == '.')
        return parse_number(p);
    if (is_alpha(c))
        return parse_name(p);
    if (c == '(') {
        if (enter(p, st))
            return -1;
        p->pos++;
        int a = parse_expr(p);
        if (a < 0)
            return -1;
        if (peek(p) != ')') {
            if (p->pos >= p->len)
                return perr(p, p->pos, CS_EINVAL, "')' expected (to close the '(' at column %d)",
                            st + 1);
            char t[64];
            tok_desc(p, p->pos, t, sizeof t);
            return perr(p, p->pos, CS_EINVAL,
                        "')' expected, not %s (to close the '(' at column %d)", t, st + 1);
        }
        p->pos++;
        p->depth--;
        p->nodes[a].e0 = st;
        p->nodes[a].e1 = p->pos;
        return a;
    }
    char t[64];
    tok_desc(p, st, t, sizeof t);
    return perr(p, st, CS_EINVAL, "unexpected %s (an operand is expected)", t);
}

static int parse_power(parser *p)
{
    int a = parse_primary(p);
    if (a < 0)
        return -1;
    if (peek(p) != '^')
        return a;
    int op = p->pos;
    if (enter(p, op))
        return -1;
    p->pos++;
    int b = parse_unary(p);
    if (b < 0)
        return -1;
    p->depth--;
    node *bn = &p->nodes[b], *an = &p->nodes[a];
    /* x^1 is x; x^0 is 1 (as pow: also at 0, Inf and NaN) */
    if (bn->kind == N_NUM && bn->c == 1.0) {
        an->s1 = an->e1 = bn->e1;
        an->s0 = an->e0;
        return a;
    }
    if (bn->kind == N_NUM && bn->c == 0.0)
        return new_num(p, 1.0, an->e0, bn->e1);
    return mk(p, N_POW, a, b, an->e0, bn->e1);
}

static int parse_unary(parser *p)
{
    int c = peek(p), st = p->pos;
    if (c != '-' && c != '+')
        return parse_power(p);
    if (enter(p, st))
        return -1;
    p->pos++;
    int a = parse_unary(p);
    if (a < 0)
        return -1;
    p->depth--;
    if (c == '+') {
        p->nodes[a].e0 = st;
        return a;
    }
    return mk(p, N_NEG, a, -1, st, p->nodes[a].e1);
}

static int parse_term(parser *p)
{
    int a = parse_unary(p);
    while (a >= 0) {
        int c = peek(p);
        if (c != '*' && c != '/')
            break;
        p->pos++;
        int b = parse_unary(p);
        if (b < 0)
            return -1;
        a = mk(p, c == '*' ? N_MUL : N_DIV, a, b, p->nodes[a].e0, p->nodes[b].e1);
    }
    return a;
}

static int parse_expr(parser *p)
{
    int a = parse_term(p);
    while (a >= 0) {
        int c = peek(p);
        if (c != '+' && c != '-')
            break;
        p->pos++;
        int b = parse_term(p);
        if (b < 0)
            return -1;
        a = mk(p, c == '+' ? N_ADD : N_SUB, a, b, p->nodes[a].e0, p->nodes[b].e1);
    }
    return a;
}

/* ------------------------------------------------------------ compile */

static int emit(prog *pg, const node *n, int op, int s)
{
    if (pg->n >= pg->cap || s >= MAX_SLOTS)
        return -1;
    ins *in = &pg->code[pg->n++];
    memset(in, 0, sizeof *in);
    in->op = op;
    in->s = s;
    in->span0 = n->s0;
    in->span1 = n->s1;
    if (s + 1 > pg->nslots)
        pg->nslots = s + 1;
    return pg->n - 1;
}

/* Code for node i with its result in slot sp; -1 when too large. */
static int compile_node(const node *nodes, int i, int sp, prog *pg)
{
    const node *n = &nodes[i];
    const node *a = n->a >= 0 ? &nodes[n->a] : NULL;
    const node *b = n->b >= 0 ? &nodes[n->b] : NULL;
    int j;
    switch (n->kind) {
    case N_NUM:
        if ((j = emit(pg, n, OP_C, sp)) < 0)
            return -1;
        pg->code[j].c = n->c;
        return 0;
    case N_X: return emit(pg, n, OP_X, sp) < 0 ? -1 : 0;
    case N_NEG:
        if (compile_node(nodes, n->a, sp, pg) < 0)
            return -1;
        return emit(pg, n, OP_NEG, sp) < 0 ? -1 : 0;
    case N_ADD:
    case N_SUB:
    case N_MUL:
    case N_DIV:
    case N_POW:
        break;
    case N_FN:
        if (compile_node(nodes, n->a, sp, pg) < 0)
            return -1;
        if (b && compile_node(nodes, n->b, sp + 1, pg) < 0)
            return -1;
        return emit(pg, n, fn_table[n->fn].op, sp) < 0 ? -1 : 0;
    default: return -1;
    }
    /* binary: a constant operand goes into the instruction when one exists */
    int op = -1, from = -1, k = 0;
    double c = 0.0, c2 = 0.0;
    int anum = a->kind == N_NUM, bnum = b->kind == N_NUM;
    switch (n->kind) {
    case N_ADD:
        if (anum != bnum)
            op = OP_ADDC, from = anum ? n->b : n->a, c = anum ? a->c : b->c;
        break;
    case N_SUB:
        if (bnum && !anum)
            op = OP_ADDC, from = n->a, c = -b->c;
        else if (anum && !bnum)
            op = OP_RSUBC, from = n->b, c = a->c;
        break;
    case N_MUL:
        if (anum != bnum)
            op = OP_MULC, from = anum ? n->b : n->a, c = anum ? a->c : b->c;
        break;
    case N_DIV:
        if (bnum && !anum)
            op = OP_DIVC, from = n->a, c = b->c;
        else if (anum && !bnum)
            op = OP_RDIVC, from = n->b, c = a->c;
        break;
    case N_POW:
        if (bnum) {
            double e = b->c;
            if (e == floor(e) && fabs(e) <= MAX_POWI)
                op = OP_POWK, k = (int)e;
            else
                op = OP_POWC, c = e, c2 = e - 1.0;
            from = n->a;
        } else if (anum) {
            from = n->b;
            if (a->c == M_E) {
                op = OP_EXP;
            } else {
                op = OP_CPOW, c = a->c, c2 = Sleef_log_u10(a->c);
            }
        } else {
            op = OP_POW;
        }
        break;
    default: break;
    }
    if (from >= 0) {
        if (compile_node(nodes, from, sp, pg) < 0 || (j = emit(pg, n, op, sp)) < 0)
            return -1;
        pg->code[j].c = c;
        pg->code[j].c2 = c2;
        pg->code[j].k = k;
        return 0;
    }
    if (op < 0)
        op = n->kind == N_ADD ? OP_ADD : n->kind == N_SUB ? OP_SUB : n->kind == N_MUL ? OP_MUL
                                                                                      : OP_DIV;
    if (compile_node(nodes, n->a, sp, pg) < 0 || compile_node(nodes, n->b, sp + 1, pg) < 0)
        return -1;
    return emit(pg, n, op, sp) < 0 ? -1 : 0;
}

/* ------------------------------------------------------------ the API */

static int check_consts(const cs_expr_const *consts, size_t nconsts, int *col, cs_err *err)
{
    for (size_t i = 0; i < nconsts; i++) {
        const char *nm = consts[i].name;
        if (col)
            *col = 0;
        if (!nm || !is_alpha((unsigned char)nm[0]))
            return cs_fail(err, CS_EINVAL, "constant name '%s' is not a name (letters, digits, _)",
                           nm ? nm : "");
        for (const char *q = nm; *q; q++)
            if (!is_alnum((unsigned char)*q))
                return cs_fail(err, CS_EINVAL,
                               "constant name '%s' is not a name (letters, digits, _)", nm);
        if (strlen(nm) > 64)
            return cs_fail(err, CS_EINVAL, "constant name '%.20s...' is too long", nm);
        if (!strcmp(nm, "x") || !strcmp(nm, "pi") || !strcmp(nm, "e") ||
            lookup_fn(nm, (int)strlen(nm)) >= 0)
            return cs_fail(err, CS_EINVAL,
                           "constant name '%s' is reserved (x, pi, e and the functions " FN_LIST
                           ")",
                           nm);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(consts[j].name, nm))
                return cs_fail(err, CS_EINVAL, "constant '%s' is given twice", nm);
        if (!isfinite(consts[i].value))
            return cs_fail(err, CS_EINVAL, "constant %s = %g is not finite", nm, consts[i].value);
    }
    return CS_OK;
}

static int alloc_scratch(cs_expr *e)
{
    size_t nd = (size_t)(2 * e->nslots + 2) * CH;
    e->scr = aligned_alloc(64, nd * sizeof(double));
    if (!e->scr)
        return -1;
    memset(e->scr, 0, nd * sizeof(double));
    return 0;
}

void cs_expr_free(cs_expr *e)
{
    if (!e)
        return;
    free(e->text);
    free(e->code);
    free(e->scr);
    free(e);
}

int cs_expr_parse(cs_expr **out, const char *text, const cs_expr_const *consts, size_t nconsts,
                  int *col, cs_err *err)
{
    if (out)
        *out = NULL;
    if (col)
        *col = 0;
    if (!out || !text)
        return cs_fail(err, CS_EINVAL, "no expression");
    if (nconsts && !consts)
        return cs_fail(err, CS_EINVAL, "constants missing");
    int rc = check_consts(consts, nconsts, col, err);
    if (rc)
        return rc;
    size_t len = strlen(text);
    if (len > CS_EXPR_MAX_LEN) {
        if (col)
            *col = CS_EXPR_MAX_LEN + 1;
        return cs_fail(err, CS_EINVAL,
                       "column %d: expression too long (%zu characters; the limit is %d)",
                       CS_EXPR_MAX_LEN + 1, len, CS_EXPR_MAX_LEN);
    }
    parser p = {.s = text, .len = (int)len, .consts = consts, .nconsts = nconsts, .col = col,
                .err = err};
    p.cap = (int)len + 8;
    p.nodes = malloc((size_t)p.cap * sizeof *p.nodes);
    if (!p.nodes)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    int root;
    if (peek(&p) < 0) {
        root = perr(&p, 0, CS_EINVAL, "empty expression");
    } else {
        root = parse_expr(&p);
        if (root >= 0 && peek(&p) >= 0) {
            char t[64];
            tok_desc(&p, p.pos, t, sizeof t);
            root = perr(&p, p.pos, CS_EINVAL,
                        p.s[p.pos] == ')' ? "unexpected %s (no '(' to close)"
                                          : "unexpected %s (an operator is expected)",
                        t);
        }
    }
    if (root < 0) {
        free(p.nodes);
        return p.failed ? p.failed : cs_fail(err, CS_EINVAL, "column 1: malformed expression");
    }
    /* every node emits at most one instruction */
    prog pg = {.cap = p.nn + 1};
    cs_expr *e = calloc(1, sizeof *e);
    if (e) {
        e->text = malloc(len + 1);
        e->code = pg.code = malloc((size_t)pg.cap * sizeof *pg.code);
    }
    if (!e || !e->text || !e->code) {
        free(p.nodes);
        cs_expr_free(e);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    memcpy(e->text, text, len + 1);
    const node *r = &p.nodes[root];
    e->hom = r->hom;
    e->hk = r->any ? 0.0 : r->k + 0.0;
    e->uses_x = r->kind != N_NUM;
    e->cval = e->uses_x ? NAN : r->c;
    e->avx = cs_cpu_avx2_fma();
    if (e->uses_x && compile_node(p.nodes, root, 0, &pg) < 0) {
        free(p.nodes);
        cs_expr_free(e);
        if (col)
            *col = 1;
        return cs_fail(err, CS_EINVAL, "column 1: expression too complex");
    }
    free(p.nodes);
    e->ncode = pg.n;
    e->nslots = pg.nslots;
    if (alloc_scratch(e)) {
        cs_expr_free(e);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    *out = e;
    return CS_OK;
}

int cs_expr_clone(const cs_expr *e, cs_expr **out, cs_err *err)
{
    *out = NULL;
    if (!e)
        return cs_fail(err, CS_EINVAL, "no expression");
    cs_expr *c = calloc(1, sizeof *c);
    if (!c)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    *c = *e;
    c->text = NULL;
    c->code = NULL;
    c->scr = NULL;
    size_t len = strlen(e->text);
    c->text = malloc(len + 1);
    c->code = malloc((size_t)(e->ncode ? e->ncode : 1) * sizeof *c->code);
    if (!c->text || !c->code || alloc_scratch(c)) {
        cs_expr_free(c);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    memcpy(c->text, e->text, len + 1);
    if (e->ncode)
        memcpy(c->code, e->code, (size_t)e->ncode * sizeof *c->code);
    *out = c;
    return CS_OK;
}

const char *cs_expr_text(const cs_expr *e) { return e ? e->text : ""; }
int cs_expr_uses_x(const cs_expr *e) { return e && e->uses_x; }
double cs_expr_const_value(const cs_expr *e) { return e && !e->uses_x ? e->cval : NAN; }

int cs_expr_homogeneous(const cs_expr *e, double *k)
{
    if (!e || !e->hom)
        return 0;
    if (k)
        *k = e->hk;
    return 1;
}
