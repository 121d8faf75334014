/* reg_naive_util.h — the regularizers of the test cases as plain
 * descriptions (tcase) and their naive long-double formulas, written from
 * the paper and not from the engine; shared by test_reg_*.c. */
#ifndef CS_REG_NAIVE_UTIL_H
#define CS_REG_NAIVE_UTIL_H

#include <stddef.h>

#include "cs_reg.h"

typedef long double ld;

#define MAXN 4096
#define CN 5    /* dimension of x for the regularizers with a matrix C */
#define CM 7    /* rows of the tall C of ns */

enum { B_BIN, B_OSB, B_TER };

/* One regularizer with its parameters; the naive formula reads the fields,
 * the engine gets them as text (case_spec). */
typedef struct tcase {
    const char *name;
    double p, q, r, eps;
    int base;
    double alpha, beta;
    int learn, B;
    size_t rows, cols; /* om: the shape of X */
} tcase;

/* Shared matrices for eig, mu (CN×CN) and ns (CM×CN), drawn by the
 * program that needs them (test_reg_props.c); C_sq_text and C_tall_text
 * are their "a,b;c,d" texts. */
extern double C_sq[CN * CN], C_tall[CM * CN];
extern char C_sq_text[4096], C_tall_text[4096];

/* The m×n row-major matrix C as "a,b;c,d" text. */
void matrix_text(const double *C, size_t m, size_t n, char *buf, size_t len);
/* Is c the regularizer `name`? */
int is(const tcase *c, const char *name);
/* Entries of x past the vector itself: 1 for learned β and for mu's μ. */
size_t case_extra(const tcase *c);
/* The engine's text for case c, "name key=value ...". */
void case_spec(const tcase *c, char *buf, size_t len);
/* An instance of case c (reg_ok of case_spec). */
cs_reg *case_reg(const tcase *c);

#define HOLDER(P, Q, R, BASE) {.name = "holder", .p = P, .q = Q, .r = R, .base = BASE}
#define SI(P, Q, R, BASE, EPS) {.name = "si", .p = P, .q = Q, .r = R, .base = BASE, .eps = EPS}

/* The value of case c at x (len entries); *terms is the magnitude of the
 * terms whose difference the formula takes, the scale for tolerances. */
ld naive(const tcase *c, const ld *x, size_t len, ld *terms);
/* The same at a double x. */
ld naive_d(const tcase *c, const double *x, size_t len, ld *terms);

#endif
