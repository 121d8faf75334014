/* reg_util.h — helpers shared by the regularizer tests (test_reg_*.c):
 * create an instance from "name key=value ..." text, evaluate it, expect
 * a failure with a given code and message, and compare with tolerances. */
#ifndef CS_REG_UTIL_H
#define CS_REG_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "cs_reg.h"
#include "cs_rng.h"

/* Create an instance from "name key=value key=value ...". */
int reg_from(cs_reg **out, const char *spec, uint64_t seed, cs_err *err);
/* The same with seed 42; failing is a test failure. */
cs_reg *reg_ok(const char *spec);
/* Expect creation to fail with `code` and a message containing `needle`. */
void reg_fails(const char *spec, int code, const char *needle);

/* The value at x (rows×cols), the gradient into grad unless NULL; failing
 * is a test failure. */
double eval_ok(cs_reg *reg, const double *x, size_t rows, size_t cols, double *grad);
/* Expect evaluation to fail with `code` and `needle` (NULL: any) in the message. */
void eval_fails(cs_reg *reg, const double *x, size_t rows, size_t cols, int code,
                const char *needle);

/* |got − want| ≤ tol_abs, else a failure naming `what`. */
void assert_close(double got, double want, double tol_abs, const char *what);
/* The same entrywise, with tolerance tol·(1 + |want[i]|). */
void assert_vec_close(const double *got, const double *want, size_t n, double tol,
                      const char *what);

/* Define name as g, h in the CS form (cs_reg_define); failing is a test failure. */
void define_ok(const char *name, const char *g, const char *h);

/* max |x[i]| */
double maxabs(const double *x, size_t n);
/* n standard normal draws */
void fill_normal(cs_rng *rng, double *x, size_t n);

#endif
