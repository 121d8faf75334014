/* cs_expr.h — elementwise expressions in x for user-defined regularizers
 * (`reg define NAME g=EXPR h=EXPR a=0.5 ...`): parsed once into a compact
 * stack bytecode, then evaluated with exact derivatives (forward-mode dual
 * numbers) over whole vectors.
 *
 * Grammar (whitespace allowed anywhere between tokens):
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := ('-' | '+') unary | power
 *   power   := primary ('^' unary)?          right-associative, binds tighter
 *                                             than unary minus: -x^2 = -(x^2),
 *                                             2^-x = 2^(-x), x^2^3 = x^(2^3)
 *   primary := number | name | func '(' expr (',' expr)* ')' | '(' expr ')'
 * Numbers: 1, 0.5, 1e-3, .5, 2.E+3 (no signs, hex, inf or nan; a leading
 * minus is unary). Names: x, pi, e and the constants the caller passes
 * (user keys like a=0.5). Functions: exp log sqrt abs sin cos tan tanh sign
 * (one argument), min max (two arguments).
 *
 * Semantics: IEEE double, entry by entry. x^k for a constant integer k with
 * |k| <= 64 is repeated multiplication (exact wherever the product is: x^3 at
 * 2 is 8 and its derivative 12); x^c for another constant c is pow(x, c);
 * c^b for a constant c is pow(c, b) (exactly exp(b) when c is e); a^b with b
 * depending on x is pow(a, b) with derivative a^b (b' log a + b a'/a).
 * sign(0) = 0, sign(NaN) = NaN; min/max propagate NaN and take the derivative
 * of the argument they select (the first one on ties); abs' = sign, sign' = 0.
 * Constant subtrees are folded at parse time (2*pi is one constant); a
 * constant that comes out NaN or Inf (1/0, log(-1)) is a parse error.
 *
 * Accuracy: exp log sin cos tan tanh and the non-integer powers come from
 * SLEEF's u10 functions, accurate to 1.0 ULP (Sleef_*d4_u10avx2 in the AVX2
 * build, Sleef_*d2_u10sse2 in the baseline build and, compiled with clang, in
 * both; the scalar Sleef_*_u10 in cs_expr_eval1 and in constant folding);
 * sqrt, + - * / are correctly rounded; integer powers and the derivative
 * formulas add a few roundings of their own. The vector path and
 * cs_expr_eval1 may therefore differ by about 1 ULP per transcendental; each
 * is deterministic on its own: the same input gives the same bits, whatever
 * the length, offset or chunking of the call (every entry goes through the
 * same 4-wide code; the AVX2 or baseline build is chosen once, from the CPU).
 *
 * Thread safety: cs_expr_eval uses scratch space inside the cs_expr (sized at
 * parse time, so evaluation allocates nothing), so one instance must not be
 * evaluated by two threads at once; give each thread its own cs_expr_clone.
 * cs_expr_eval1 and the other queries only read the instance. */
#ifndef CS_EXPR_H
#define CS_EXPR_H

#include <stddef.h>

#include "cs_error.h"

#define CS_EXPR_MAX_LEN 1000   /* characters of expression text */
#define CS_EXPR_MAX_DEPTH 64   /* nesting: parentheses, function calls, signs, powers */

typedef struct cs_expr cs_expr;
typedef struct cs_expr_const {
    const char *name;   /* an identifier, not x, pi, e or a function name */
    double value;       /* finite */
} cs_expr_const;

/* Parse and compile. Errors return CS_EINVAL (CS_ENOMEM when out of memory)
 * with a message that names the problem and its 1-based column, e.g.
 * "column 5: unknown function 'foo' (functions: exp log ...)"; *col (may be
 * NULL) gets that column (0 for errors in consts). consts may be NULL when
 * nconsts is 0; the names and values are copied. */
int cs_expr_parse(cs_expr **out, const char *text, const cs_expr_const *consts, size_t nconsts,
                  int *col, cs_err *err);
void cs_expr_free(cs_expr *e);
/* An independent copy (own scratch space) for another thread. */
int cs_expr_clone(const cs_expr *e, cs_expr **out, cs_err *err);

const char *cs_expr_text(const cs_expr *e);   /* the text as given */
/* 0 when the expression is a constant (h=1, 2*pi): its derivative is 0. */
int cs_expr_uses_x(const cs_expr *e);
/* The constant value when !cs_expr_uses_x(e) (else NaN). */
double cs_expr_const_value(const cs_expr *e);
/* Homogeneity, decided symbolically from the tree: 1 and *k (may be NULL)
 * the degree when f(a x) = a^k f(x) for all a > 0 and x (x^2 -> 2, 1 -> 0,
 * x*abs(x) -> 2, sqrt(x^2) -> 1, 3*x^3 -> 3, sign(x) -> 0, x/abs(x) -> 0);
 * 0 when that is not provable from the tree (exp(x), x + 1, sin(x)). */
int cs_expr_homogeneous(const cs_expr *e, double *k);

/* f[i] = f(x[i]) and, when df != NULL, df[i] = f'(x[i]) for i < n (n may be
 * 0). f and df may alias x. Evaluated 64 entries at a time, the bytecode one
 * instruction at a time over the chunk. Returns CS_OK, or CS_ENONFINITE when
 * some f[i] or df[i] is NaN or Inf, with a message that names the term that
 * went non-finite first and the coordinate, counted from 1 as everywhere
 * else users see coordinates, e.g. "log(x) is NaN at coordinate 4
 * (x = -0.5)" for x[3], "1/x is Inf at coordinate 2 (x = 0)", "the
 * derivative of sqrt(x) is Inf at coordinate 1 (x = 0)", "x is NaN at
 * coordinate 3 (the input)"; the outputs are then filled up to
 * the end of the 64-entry chunk that holds that coordinate. CS_EINVAL for
 * NULL x or f with n > 0. Not thread-safe on one instance (see above). */
int cs_expr_eval(const cs_expr *e, const double *x, size_t n, double *f, double *df, cs_err *err);
/* The same values without the NaN/Inf check and report, for callers that
 * check what they compute from them (the solver's path: a NaN or Inf in f
 * or df reaches the regularizer's value or gradient, and is caught there). */
int cs_expr_eval_unchecked(const cs_expr *e, const double *x, size_t n, double *f, double *df,
                           cs_err *err);
/* One value (and its derivative when df != NULL), scalar path with the same
 * bytecode semantics; NaN/Inf is returned, not an error. Thread-safe. */
double cs_expr_eval1(const cs_expr *e, double x, double *df);

/* Why f(x) is what it is, for messages: the term that made the value NaN or
 * Inf ("x/0 is Inf", "x is NaN" for the input; derivatives are not
 * looked at), or "TEXT is VALUE" when it is finite. Not thread-safe on one
 * instance (it uses the scratch space, as cs_expr_eval does). */
void cs_expr_why1(const cs_expr *e, double x, char *buf, size_t len);

/* A polynomial in x: c[k] is the coefficient of x^k, c[deg] != 0 (or deg 0). */
#define CS_POLY_MAX 16
typedef struct cs_poly {
    int deg;
    double c[CS_POLY_MAX + 1];
} cs_poly;
/* 1 when e is a polynomial of degree <= CS_POLY_MAX, built from x, constants,
 * + - *, division by a constant and powers by integers >= 0; *p (may be NULL)
 * gets its expanded coefficients (each rounded once per operation of the
 * expansion). 0 for anything else (exp(x), 1/x, x^0.5, abs(x)). */
int cs_expr_poly(const cs_expr *e, cs_poly *p);
/* d = p' */
void cs_poly_deriv(const cs_poly *p, cs_poly *d);

#endif
