/* expr_eval.c — evaluation of compiled expressions (cs_expr.h): the
 * scalar path, and the vector path over whole vectors with exact
 * derivatives; the NaN/Inf reports.
 *
 * A slot holds a chunk of 64 values and 64 derivatives (forward-mode dual
 * numbers), so the interpreter dispatches once per instruction and chunk,
 * and the loops over the chunk are straight 4-wide vector code without
 * branches on the data. The loops are written once (run_body) and compiled
 * twice, AVX2 and baseline, like the solvers' loops; the transcendentals
 * are SLEEF u10 functions over the chunk (vmath.h), AVX2 ones in the AVX2
 * build and SSE2 ones in the baseline build.
 *
 * When an output is NaN or Inf, the failing chunk is run again one
 * instruction at a time, following the bad coordinate: the first instruction
 * whose output went non-finite from finite inputs, and whose non-finite value
 * reached the result, names the term (its span of the source text). */
#include "cs_expr.h"
#include "cs_parse.h"
#include "cs_simd.h"
#include "cs_vec.h"
#include "expr_internal.h"
#include "vmath.h"

#include <math.h>
#include <sleef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* operands popped */
static const unsigned char op_arity[OP_COUNT] = {
    [OP_X] = 0,    [OP_C] = 0,     [OP_NEG] = 1,   [OP_ADD] = 2,   [OP_SUB] = 2,
    [OP_MUL] = 2,  [OP_DIV] = 2,   [OP_ADDC] = 1,  [OP_RSUBC] = 1, [OP_MULC] = 1,
    [OP_DIVC] = 1, [OP_RDIVC] = 1, [OP_POWK] = 1,  [OP_POWC] = 1,  [OP_CPOW] = 1,
    [OP_POW] = 2,  [OP_EXP] = 1,   [OP_LOG] = 1,   [OP_SQRT] = 1,  [OP_ABS] = 1,
    [OP_SIN] = 1,  [OP_COS] = 1,   [OP_TAN] = 1,   [OP_TANH] = 1,  [OP_SIGN] = 1,
    [OP_MIN] = 2,  [OP_MAX] = 2,
};

/* ------------------------------------------------------------ scalar path */

static double s_powk(double a, int k)
{
    /* a^(|k|-1) by squaring and multiplying, then one more factor a: the
     * same operations, in the same order, as the vector path */
    unsigned u = (unsigned)(k < 0 ? -k : k) - 1;
    double r = 1.0, b = a;
    while (u) {
        if (u & 1)
            r *= b;
        u >>= 1;
        if (u)
            b *= b;
    }
    return r;
}

static double s_sign(double a) { return a > 0 ? 1.0 : (a < 0 ? -1.0 : a + a); }

/* Text of [a, b) for messages, shortened in the middle when long. */
void cs_expr_span_text(const char *s, int a, int b, char *buf, size_t len)
{
    int n = b - a;
    if (n <= 60)
        snprintf(buf, len, "%.*s", n, s + a);
    else
        snprintf(buf, len, "%.*s...%.*s", 28, s + a, 28, s + b - 28);
}

/* One instruction on scalar slots V[], D[]. */
void cs_expr_step1(const ins *in, double *V, double *D, double x)
{
    int s = in->s;
    double a = V[s], da = D[s], b = V[s + 1], db = D[s + 1], c = in->c;
    double v, d;
    switch (in->op) {
    case OP_X: v = x; d = 1.0; break;
    case OP_C: v = c; d = 0.0; break;
    case OP_NEG: v = -a; d = -da; break;
    case OP_ADD: v = a + b; d = da + db; break;
    case OP_SUB: v = a - b; d = da - db; break;
    case OP_MUL: v = a * b; d = da * b + a * db; break;
    case OP_DIV: v = a / b; d = (da - v * db) / b; break;
    case OP_ADDC: v = a + c; d = da; break;
    case OP_RSUBC: v = c - a; d = -da; break;
    case OP_MULC: v = c * a; d = c * da; break;
    case OP_DIVC: v = a / c; d = da / c; break;
    case OP_RDIVC: v = c / a; d = -(v / a) * da; break;
    case OP_POWK: {
        double p = s_powk(a, in->k), pa = p * a;
        if (in->k > 0) {
            v = pa;
            d = (in->k * p) * da;
        } else {
            v = 1.0 / pa;
            d = in->k * da / (pa * a);
        }
        break;
    }
    case OP_POWC: v = Sleef_pow_u10(a, c); d = c * Sleef_pow_u10(a, in->c2) * da; break;
    case OP_CPOW: v = Sleef_pow_u10(c, a); d = v * in->c2 * da; break;
    case OP_POW: {
        double l = Sleef_log_u10(a);
        v = Sleef_pow_u10(a, b);
        d = v * (db * l + b * da / a);
        break;
    }
    case OP_EXP: v = Sleef_exp_u10(a); d = v * da; break;
    case OP_LOG: v = Sleef_log_u10(a); d = da / a; break;
    case OP_SQRT: v = sqrt(a); d = da / (v + v); break;
    case OP_ABS: v = fabs(a); d = a > 0 ? da : (a < 0 ? -da : 0.0); break;
    case OP_SIN: v = Sleef_sin_u10(a); d = Sleef_cos_u10(a) * da; break;
    case OP_COS: v = Sleef_cos_u10(a); d = -Sleef_sin_u10(a) * da; break;
    case OP_TAN: v = Sleef_tan_u10(a); d = (1.0 + v * v) * da; break;
    case OP_TANH: v = Sleef_tanh_u10(a); d = (1.0 - v * v) * da; break;
    case OP_SIGN: v = s_sign(a); d = 0.0; break;
    case OP_MIN:
    case OP_MAX: {
        int first = in->op == OP_MIN ? a <= b : a >= b;
        v = (isnan(a) || isnan(b)) ? a + b : (first ? a : b);
        d = first ? da : db;
        break;
    }
    default: v = d = NAN; break;
    }
    V[s] = v;
    D[s] = d;
}

/* SL(fn, avx, args): the SLEEF chunk function (vmath.h) of the build
 * run_body is compiled for */
#ifdef CS_AVX2_CLONE
#define SL(fn, avx, ...) cs_vm_##fn(__VA_ARGS__, avx)
#else
#define SL(fn, avx, ...) cs_vm_##fn(__VA_ARGS__, 0)
#endif

/* ------------------------------------------------------------ vector path */

/* a^(|k|-1), as s_powk */
CS_AI v4d vpowk(v4d a, unsigned u)
{
    v4d r = splat(1.0), b = a;
    while (u) {
        if (u & 1)
            r *= b;
        u >>= 1;
        if (u)
            b *= b;
    }
    return r;
}

#define LOOP for (size_t i = 0; i < m; i += 4)

/* Instructions [pc0, pc1) over a chunk of m entries (a multiple of 4) of x.
 * Slot s: values scr + 2s·CH, derivatives scr + (2s+1)·CH; tmp: one more
 * chunk. nd: compute derivatives. */
CS_AI void run_body(const ins *code, int pc0, int pc1, double *scr, double *tmp,
                    const double *x, size_t m, int nd, int avx)
{
    (void)avx;
    for (int pc = pc0; pc < pc1; pc++) {
        const ins *in = &code[pc];
        double *restrict V = scr + (size_t)(2 * in->s) * CH;
        double *restrict D = V + CH;
        double *restrict V2 = V + 2 * CH;
        double *restrict D2 = V + 3 * CH;
        double *restrict T = tmp;
        const v4d c = splat(in->c);
        switch (in->op) {
        case OP_X:
            LOOP st4(V + i, ld4(x + i));
            if (nd)
                LOOP st4(D + i, splat(1.0));
            break;
        case OP_C:
            LOOP st4(V + i, c);
            if (nd)
                LOOP st4(D + i, splat(0.0));
            break;
        case OP_NEG:
            LOOP st4(V + i, -ld4(V + i));
            if (nd)
                LOOP st4(D + i, -ld4(D + i));
            break;
        case OP_ADD:
            LOOP st4(V + i, ld4(V + i) + ld4(V2 + i));
            if (nd)
                LOOP st4(D + i, ld4(D + i) + ld4(D2 + i));
            break;
        case OP_SUB:
            LOOP st4(V + i, ld4(V + i) - ld4(V2 + i));
            if (nd)
                LOOP st4(D + i, ld4(D + i) - ld4(D2 + i));
            break;
        case OP_MUL:
            if (nd)
                LOOP {
                    v4d a = ld4(V + i), b = ld4(V2 + i);
                    st4(D + i, ld4(D + i) * b + a * ld4(D2 + i));
                }
            LOOP st4(V + i, ld4(V + i) * ld4(V2 + i));
            break;
        case OP_DIV:
            LOOP {
                v4d b = ld4(V2 + i), q = ld4(V + i) / b;
                st4(V + i, q);
                if (nd)
                    st4(D + i, (ld4(D + i) - q * ld4(D2 + i)) / b);
            }
            break;
        case OP_ADDC:
            LOOP st4(V + i, ld4(V + i) + c);
            break;
        case OP_RSUBC:
            LOOP st4(V + i, c - ld4(V + i));
            if (nd)
                LOOP st4(D + i, -ld4(D + i));
            break;
        case OP_MULC:
            LOOP st4(V + i, c * ld4(V + i));
            if (nd)
                LOOP st4(D + i, c * ld4(D + i));
            break;
        case OP_DIVC:
            LOOP st4(V + i, ld4(V + i) / c);
            if (nd)
                LOOP st4(D + i, ld4(D + i) / c);
            break;
        case OP_RDIVC:
            LOOP {
                v4d a = ld4(V + i), q = c / a;
                st4(V + i, q);
                if (nd)
                    st4(D + i, -(q / a) * ld4(D + i));
            }
            break;
        case OP_POWK: {
            int k = in->k;
            v4d kk = splat((double)k);
            if (k == 2) {
                LOOP {
                    v4d a = ld4(V + i);
                    st4(V + i, a * a);
                    if (nd)
                        st4(D + i, (kk * a) * ld4(D + i));
                }
            } else if (k == 3) {
                LOOP {
                    v4d a = ld4(V + i), p = a * a;
                    st4(V + i, p * a);
                    if (nd)
                        st4(D + i, (kk * p) * ld4(D + i));
                }
            } else if (k > 0) {
                unsigned u = (unsigned)k - 1;
                LOOP {
                    v4d a = ld4(V + i), p = vpowk(a, u);
                    st4(V + i, p * a);
                    if (nd)
                        st4(D + i, (kk * p) * ld4(D + i));
                }
            } else {
                unsigned u = (unsigned)(-k) - 1;
                LOOP {
                    v4d a = ld4(V + i), pa = vpowk(a, u) * a;
                    st4(V + i, splat(1.0) / pa);
                    if (nd)
                        st4(D + i, kk * ld4(D + i) / (pa * a));
                }
            }
            break;
        }
        case OP_POWC:
            if (nd) {
                SL(pow, avx, T, V, 0.0, NULL, in->c2, m);
                LOOP st4(D + i, c * ld4(T + i) * ld4(D + i));
            }
            SL(pow, avx, V, V, 0.0, NULL, in->c, m);
            break;
        case OP_CPOW:
            SL(pow, avx, V, NULL, in->c, V, 0.0, m);
            if (nd) {
                v4d l = splat(in->c2);
                LOOP st4(D + i, ld4(V + i) * l * ld4(D + i));
            }
            break;
        case OP_POW:
            /* d = a^b (b' log a + b a'/a): the bracket first, while a is there */
            if (nd) {
                SL(log, avx, T, V, m);
                LOOP {
                    v4d a = ld4(V + i), b = ld4(V2 + i);
                    st4(D + i, ld4(D2 + i) * ld4(T + i) + b * ld4(D + i) / a);
                }
            }
            SL(pow, avx, V, V, 0.0, V2, 0.0, m);
            if (nd)
                LOOP st4(D + i, ld4(V + i) * ld4(D + i));
            break;
        case OP_EXP:
            SL(exp, avx, V, V, m);
            if (nd)
                LOOP st4(D + i, ld4(V + i) * ld4(D + i));
            break;
        case OP_LOG:
            if (nd)
                LOOP st4(D + i, ld4(D + i) / ld4(V + i));
            SL(log, avx, V, V, m);
            break;
        case OP_SQRT:
            SL(sqrt, avx, V, V, m);
            if (nd)
                LOOP {
                    v4d r = ld4(V + i);
                    st4(D + i, ld4(D + i) / (r + r));
                }
            break;
        case OP_ABS:
            if (nd)
                LOOP {
                    v4d a = ld4(V + i), d = ld4(D + i), z = splat(0.0);
                    st4(D + i, vsel(a > z, d, vsel(a < z, -d, z)));
                }
            LOOP st4(V + i, vabs(ld4(V + i)));
            break;
        case OP_SIN:
            if (nd)
                SL(cos, avx, T, V, m);
            SL(sin, avx, V, V, m);
            if (nd)
                LOOP st4(D + i, ld4(T + i) * ld4(D + i));
            break;
        case OP_COS:
            if (nd)
                SL(sin, avx, T, V, m);
            SL(cos, avx, V, V, m);
            if (nd)
                LOOP st4(D + i, -ld4(T + i) * ld4(D + i));
            break;
        case OP_TAN:
            SL(tan, avx, V, V, m);
            if (nd)
                LOOP {
                    v4d t = ld4(V + i);
                    st4(D + i, (splat(1.0) + t * t) * ld4(D + i));
                }
            break;
        case OP_TANH:
            SL(tanh, avx, V, V, m);
            if (nd)
                LOOP {
                    v4d t = ld4(V + i);
                    st4(D + i, (splat(1.0) - t * t) * ld4(D + i));
                }
            break;
        case OP_SIGN:
            LOOP {
                v4d a = ld4(V + i), z = splat(0.0);
                v4d r = vsel(a > z, splat(1.0), vsel(a < z, splat(-1.0), a + a));
                st4(V + i, r);
            }
            if (nd)
                LOOP st4(D + i, splat(0.0));
            break;
        case OP_MIN:
        case OP_MAX:
            LOOP {
                v4d a = ld4(V + i), b = ld4(V2 + i);
                v4l first = in->op == OP_MAX ? (a >= b) : (a <= b);
                v4l nan = (a != a) | (b != b);
                st4(V + i, vsel(nan, a + b, vsel(first, a, b)));
                if (nd)
                    st4(D + i, vsel(first, ld4(D + i), ld4(D2 + i)));
            }
            break;
        default: break;
        }
    }
}

#ifdef CS_AVX2_CLONE
static CS_AVX2_FN void run_avx2(const ins *code, int pc0, int pc1, double *scr, double *tmp,
                                const double *x, size_t m, int nd)
{
    run_body(code, pc0, pc1, scr, tmp, x, m, nd, 1);
}
#endif
static void run_base(const ins *code, int pc0, int pc1, double *scr, double *tmp,
                     const double *x, size_t m, int nd)
{
    run_body(code, pc0, pc1, scr, tmp, x, m, nd, 0);
}

/* f = V, df = D (m entries; df NULL: no derivatives) */
CS_AI void copy_body(const double *V, const double *D, size_t m, double *f, double *df)
{
    size_t i = 0;
    for (; i + 4 <= m; i += 4) {
        st4(f + i, ld4(V + i));
        if (df)
            st4(df + i, ld4(D + i));
    }
    for (; i < m; i++) {
        f[i] = V[i];
        if (df)
            df[i] = D[i];
    }
}
#ifdef CS_AVX2_CLONE
static CS_AVX2_FN void copy_avx2(const double *V, const double *D, size_t m, double *f,
                                 double *df)
{
    copy_body(V, D, m, f, df);
}
#endif
static void copy_out(const double *V, const double *D, size_t m, double *f, double *df, int avx)
{
#ifdef CS_AVX2_CLONE
    if (avx) {
        copy_avx2(V, D, m, f, df);
        return;
    }
#endif
    (void)avx;
    copy_body(V, D, m, f, df);
}

static void run(const cs_expr *e, int pc0, int pc1, const double *x, size_t m, int nd)
{
    double *tmp = e->scr + (size_t)(2 * e->nslots) * CH;
#ifdef CS_AVX2_CLONE
    if (e->avx) {
        run_avx2(e->code, pc0, pc1, e->scr, tmp, x, m, nd);
        return;
    }
#endif
    run_base(e->code, pc0, pc1, e->scr, tmp, x, m, nd);
}

double cs_expr_eval1(const cs_expr *e, double x, double *df)
{
    if (!e->uses_x) {
        if (df)
            *df = 0.0;
        return e->cval;
    }
    double V[MAX_SLOTS + 1], D[MAX_SLOTS + 1];
    for (int pc = 0; pc < e->ncode; pc++)
        cs_expr_step1(&e->code[pc], V, D, x);
    if (df)
        *df = D[0];
    return V[0];
}

static int finite_lane(const cs_expr *e, int s, size_t lane, int nd)
{
    const double *V = e->scr + (size_t)(2 * s) * CH;
    return isfinite(V[lane]) && (!nd || isfinite(V[CH + lane]));
}

/* The chunk at x (m4 entries) gave a non-finite output at lane: run it
 * again one instruction at a time and follow where that lane's non-finite
 * value came from, into buf: "TERM is NaN", "the derivative of TERM is
 * Inf", or "x is Inf" (returns 1: the input itself), or the whole text
 * "is not finite" (returns -1: not traced). */
static int trace_lane(const cs_expr *e, const double *xs, size_t m4, size_t lane, int nd,
                      char *buf, size_t len)
{
    struct {
        int pc, deriv, nan;
    } origin[MAX_SLOTS];
    for (int s = 0; s < e->nslots; s++)
        origin[s].pc = -1;
    for (int pc = 0; pc < e->ncode; pc++) {
        const ins *in = &e->code[pc];
        int s = in->s, bad_in = -1;
        for (int j = 0; j < op_arity[in->op]; j++)
            if (!finite_lane(e, s + j, lane, nd)) {
                bad_in = s + j;
                break;
            }
        run(e, pc, pc + 1, xs, m4, nd);
        if (finite_lane(e, s, lane, nd)) {
            origin[s].pc = -1;
        } else if (bad_in >= 0) {
            origin[s] = origin[bad_in];
        } else {
            const double *V = e->scr + (size_t)(2 * s) * CH;
            int vbad = !isfinite(V[lane]);
            origin[s].pc = pc;
            origin[s].deriv = !vbad;
            origin[s].nan = isnan(vbad ? V[lane] : V[CH + lane]);
        }
    }
    int pc = origin[0].pc;
    if (pc < 0) {   /* not reached: the output lane was non-finite */
        snprintf(buf, len, "%s is not finite", e->text);
        return -1;
    }
    const ins *in = &e->code[pc];
    const char *what = origin[0].nan ? "NaN" : "Inf";
    if (in->op == OP_X) {
        snprintf(buf, len, "x is %s", what);
        return 1;
    }
    char term[160];
    cs_expr_span_text(e->text, in->span0, in->span1, term, sizeof term);
    snprintf(buf, len, "%s%s is %s", origin[0].deriv ? "the derivative of " : "", term, what);
    return 0;
}

/* coord: 1-based, as users count coordinates everywhere else */
static int report(const cs_expr *e, const double *xs, size_t m4, size_t lane, size_t coord,
                  double xv, int nd, cs_err *err)
{
    char xt[64], what[256];
    cs_format_double(xt, sizeof xt, xv);
    if (trace_lane(e, xs, m4, lane, nd, what, sizeof what) > 0)
        return cs_fail(err, CS_ENONFINITE, "%s at coordinate %zu (the input)", what, coord);
    return cs_fail(err, CS_ENONFINITE, "%s at coordinate %zu (x = %s)", what, coord, xt);
}

void cs_expr_why1(const cs_expr *e, double x, char *buf, size_t len)
{
    double v = cs_expr_eval1(e, x, NULL);
    if (e->uses_x) {
        double *xs = e->scr + (size_t)(2 * e->nslots + 1) * CH;
        for (int i = 0; i < 4; i++)
            xs[i] = x;
        run(e, 0, e->ncode, xs, 4, 0);
        if (!finite_lane(e, 0, 0, 0)) {
            trace_lane(e, xs, 4, 0, 0, buf, len);
            return;
        }
    }
    char vt[64];
    cs_format_double(vt, sizeof vt, v);
    snprintf(buf, len, "%s is %s", e->text, vt);
}

/* checked: look for NaN/Inf and report it (cs_expr_eval), or not
 * (cs_expr_eval_unchecked). */
static int eval_chunks(const cs_expr *e, const double *x, size_t n, double *f, double *df,
                       int checked, cs_err *err)
{
    if (!e)
        return cs_fail(err, CS_EINVAL, "no expression");
    if (n == 0)
        return CS_OK;
    if (!x || !f)
        return cs_fail(err, CS_EINVAL, "expression evaluation needs x and f");
    if (!e->uses_x) {
        for (size_t i = 0; i < n; i++)
            f[i] = e->cval;
        if (df)
            memset(df, 0, n * sizeof *df);
        return CS_OK;
    }
    int nd = df != NULL;
    double *xpad = e->scr + (size_t)(2 * e->nslots + 1) * CH;
    const double *V = e->scr, *D = e->scr + CH;
    for (size_t off = 0; off < n; off += CH) {
        size_t m = n - off < CH ? n - off : CH, m4 = (m + 3) & ~(size_t)3;
        const double *xs = x + off;
        if (m4 != m) {   /* pad with the last entry: same code path for every entry */
            memcpy(xpad, xs, m * sizeof *xs);
            for (size_t i = m; i < m4; i++)
                xpad[i] = xs[m - 1];
            xs = xpad;
        }
        run(e, 0, e->ncode, xs, m4, nd);
        int bad = checked && (!cs_vec_finite(V, m4) || (nd && !cs_vec_finite(D, m4)));
        size_t lane = 0;
        double xv = 0.0;
        if (bad) {
            while (lane < m && isfinite(V[lane]) && (!nd || isfinite(D[lane])))
                lane++;
            xv = xs[lane];
            if (xs != xpad) {   /* keep the input: f or df may alias x */
                memcpy(xpad, xs, m4 * sizeof *xs);
                xs = xpad;
            }
        }
        copy_out(V, D, m, f + off, nd ? df + off : NULL, e->avx);
        if (bad)
            return report(e, xs, m4, lane, off + lane + 1, xv, nd, err);
    }
    return CS_OK;
}

int cs_expr_eval(const cs_expr *e, const double *x, size_t n, double *f, double *df, cs_err *err)
{
    return eval_chunks(e, x, n, f, df, 1, err);
}

int cs_expr_eval_unchecked(const cs_expr *e, const double *x, size_t n, double *f, double *df,
                           cs_err *err)
{
    return eval_chunks(e, x, n, f, df, 0, err);
}
