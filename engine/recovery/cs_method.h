/* cs_method.h — methods as values: a regularizer with its parameters,
 * parsed once from the text a user writes, `NAME`, `NAME key=value ...`
 * (as cs_reg_describe prints it) or `NAME:key=value:...` (usable inside a
 * comma list): `bin`, `beta:beta=learn`, `holder p=2 q=2 r=1`. The
 * interpreter parses; the solver, sweeps and basins take the values. */
#ifndef CS_METHOD_H
#define CS_METHOD_H

#include <stdint.h>

#include "cs_error.h"
#include "cs_problem.h"
#include "cs_reg.h"

#define CS_METHOD_LEN 256        /* bytes of a method text, its NUL included */
#define CS_METHOD_MAX_PARAMS 16

/* A parsed method. Plain data (copy it by assignment): the parameters are
 * offsets into its own words. */
typedef struct cs_method {
    const cs_reg_info *info;      /* the regularizer */
    char text[CS_METHOD_LEN];     /* as written: random streams are drawn from it
                                     (cs_sweep_method_stream), CSV rows print it */
    char canon[CS_METHOD_LEN];    /* NAME:key=value:... in the order given */
    size_t nparams;
    unsigned short key_at[CS_METHOD_MAX_PARAMS], value_at[CS_METHOD_MAX_PARAMS];
    char words[CS_METHOD_LEN];    /* NAME, keys and values, each ended by a NUL */
} cs_method;

/* Parse text: its words, and its regularizer looked up (an unknown one is
 * CS_ENOTFOUND with key "reg"). The keys are checked by cs_method_check. */
int cs_method_parse(cs_method *m, const char *text, cs_err *err);
/* The parameters as cs_reg_new takes them (pointing into m): their count. */
size_t cs_method_params(const cs_method *m, cs_param *out, size_t cap);
/* Check that the regularizer takes these keys and values, e.g. before a
 * sweep (an instance is made and dropped). */
int cs_method_check(const cs_method *m, cs_err *err);
/* The regularizer of a method as the solver makes it for `prob`: an eig
 * problem lends its C to eig, mu and ns when the method names none (prob
 * NULL: C=random stands in). */
int cs_method_reg_new(cs_reg **out, const cs_method *m, const cs_problem *prob, uint64_t seed,
                      cs_err *err);
/* 1 when both make the same instance (e.g. equ and equ:B=2). */
int cs_method_same(const cs_method *a, const cs_method *b);

#endif
