/* cs_rules.h — stop-rule counterfactuals: run one start to maxit and say,
 * for each stopping rule, at which iteration it would have stopped the
 * solver and how good the point the solver would then have returned is
 * (FISTA: the best-objective iterate so far; Douglas–Rachford: the current
 * one). The paper's success curves depend on this choice (oracle stop), so
 * `trace rules` makes it visible. */
#ifndef CS_RULES_H
#define CS_RULES_H

#include <stddef.h>

#include "cs_solver.h"

typedef struct cs_rule {
    cs_stop stop;
    double tol;           /* residual rules; ignored by oracle and maxit */
} cs_rule;

typedef struct cs_rule_result {
    cs_rule rule;
    long iter;            /* where it fires; the start's last iteration when it never does */
    int fired;            /* 0: the start ended first (maxit, or f diverged) */
    double rel_err;       /* error to x* of the returned point there (NaN: unknown) */
    double orth_err;      /* orth: ‖XᵀX − I‖_F/√K of it; NaN otherwise */
    int success;          /* the solver's verdict on it */
} cs_rule_result;

enum { CS_RULES_DEFAULT = 10 };
/* The rules `trace rules` reports, in order: oracle; residual, normalized,
 * ratio and hybrid at tol 1e-5, the same at 1e-8; maxit. */
void cs_rules_default(cs_rule out[CS_RULES_DEFAULT]);
/* A rule's name as `solve stop=` takes it ("hybrid"), and a label with
 * the tolerance ("hybrid 1e-05"). */
void cs_rule_label(const cs_rule *r, char *buf, size_t len);

/* Step `replay` — a fresh solver made with opts.stop = maxit, one start and
 * opts.trace — to the end of its first start, testing every rule after each
 * iteration as the solver would: out[i] tells where rules[i] fires. */
int cs_solver_rules(cs_solver *replay, const cs_rule *rules, size_t n, cs_rule_result *out,
                    cs_err *err);

#endif
