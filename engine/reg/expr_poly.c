/* expr_poly.c — a compiled expression as a polynomial (cs_expr.h): the
 * bytecode run once on polynomials instead of numbers. The solver's fused
 * kernel of a defined regularizer evaluates g and h by Horner's rule from
 * these coefficients (reg_fast_defined.c) instead of the interpreter. */
#include <stdlib.h>
#include <string.h>

#include "cs_expr.h"
#include "expr_internal.h"

static void trim(cs_poly *p)
{
    while (p->deg > 0 && p->c[p->deg] == 0.0)
        p->deg--;
}

static cs_poly constant(double c) { return (cs_poly){.deg = 0, .c = {c}}; }

/* a·b; 0 when the degree would pass CS_POLY_MAX */
static int mul(const cs_poly *a, const cs_poly *b, cs_poly *out)
{
    if (a->deg + b->deg > CS_POLY_MAX)
        return 0;
    cs_poly r = {.deg = a->deg + b->deg};
    for (int i = 0; i <= a->deg; i++)
        for (int j = 0; j <= b->deg; j++)
            r.c[i + j] += a->c[i] * b->c[j];
    trim(&r);
    *out = r;
    return 1;
}

/* a + s·b, s = ±1 */
static void add(cs_poly *a, const cs_poly *b, double s)
{
    for (int k = a->deg + 1; k <= b->deg; k++)
        a->c[k] = 0.0;
    if (b->deg > a->deg)
        a->deg = b->deg;
    for (int k = 0; k <= b->deg; k++)
        a->c[k] += s * b->c[k];
    trim(a);
}

static void scale(cs_poly *a, double c, int divide)
{
    for (int k = 0; k <= a->deg; k++)
        a->c[k] = divide ? a->c[k] / c : c * a->c[k];
    trim(a);
}

/* one instruction on the slots; 0 when its result is not a polynomial */
static int step(const ins *in, cs_poly *S)
{
    cs_poly *a = &S[in->s], *b = &S[in->s + 1];
    switch (in->op) {
    case OP_X: *a = (cs_poly){.deg = 1, .c = {0.0, 1.0}}; return 1;
    case OP_C: *a = constant(in->c); return 1;
    case OP_NEG: scale(a, -1.0, 0); return 1;
    case OP_ADD: add(a, b, 1.0); return 1;
    case OP_SUB: add(a, b, -1.0); return 1;
    case OP_MUL: return mul(a, b, a);
    case OP_ADDC: a->c[0] += in->c; return 1;
    case OP_RSUBC: scale(a, -1.0, 0); a->c[0] += in->c; return 1;
    case OP_MULC: scale(a, in->c, 0); return 1;
    case OP_DIVC: scale(a, in->c, 1); return 1;
    case OP_POWK: {
        if (in->k < 0)
            return 0;
        cs_poly r = constant(1.0), base = *a;
        for (int k = 0; k < in->k; k++)
            if (!mul(&r, &base, &r))
                return 0;
        *a = r;
        return 1;
    }
    default: return 0;
    }
}

int cs_expr_poly(const cs_expr *e, cs_poly *p)
{
    if (!e)
        return 0;
    if (!e->uses_x) {
        if (p)
            *p = constant(e->cval);
        return 1;
    }
    cs_poly *S = malloc((size_t)e->nslots * sizeof *S);
    if (!S)
        return 0;
    int ok = 1;
    for (int pc = 0; pc < e->ncode && ok; pc++)
        ok = step(&e->code[pc], S);
    for (int k = 0; ok && k <= S[0].deg; k++)
        ok = S[0].c[k] - S[0].c[k] == 0.0;   /* finite */
    if (ok && p)
        *p = S[0];
    free(S);
    return ok;
}

void cs_poly_deriv(const cs_poly *p, cs_poly *d)
{
    cs_poly r = constant(0.0);
    for (int k = 1; k <= p->deg; k++)
        r.c[k - 1] = (double)k * p->c[k];
    r.deg = p->deg > 0 ? p->deg - 1 : 0;
    trim(&r);
    *d = r;
}
