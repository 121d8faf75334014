/* cs_method.h — method texts: a regularizer with its parameters, written
 * `NAME`, `NAME key=value ...` (as cs_reg_describe prints it) or
 * `NAME:key=value:...` (usable inside a comma list): `bin`,
 * `beta:beta=learn`, `holder p=2 q=2 r=1`. Sweeps, the solver and the
 * commands all read them through these functions. */
#ifndef CS_METHOD_H
#define CS_METHOD_H

#include <stdint.h>

#include "cs_error.h"
#include "cs_problem.h"
#include "cs_reg.h"

/* Check a method text (its regularizer exists and takes these keys), e.g.
 * before a sweep. */
int cs_method_check(const char *method, cs_err *err);
/* The regularizer of a method text as the solver makes it for `prob`: an eig
 * problem lends its C to eig, mu and ns when the method names none (prob
 * NULL: C=random stands in). */
int cs_method_reg_new(cs_reg **out, const char *method, const cs_problem *prob,
                      uint64_t seed, cs_err *err);
/* The text as NAME:key=value:... in the order given. */
int cs_method_canonical(const char *method, char *buf, size_t len, cs_err *err);
/* 1 when both texts make the same instance (e.g. equ and equ:B=2). */
int cs_method_same(const char *a, const char *b);

#endif
