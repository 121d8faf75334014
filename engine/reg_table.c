/* reg_table.c — the regularizer table. Adding a regularizer = one entry here
 * plus its eval function. */
#include "reg_internal.h"
#include "reg_evals.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const cs_reg_info table[] = {
    {.name = "bin",
     .title = "symmetric binary",
     .formula = "N*sum(x^4) - (sum(x^2))^2",
     .target = "{-a,+a}^N for any a",
     .section = "Regularizer 1 (sec. 2.2.1)",
     .spurious_free = 1,
     .differentiable = 1,
     .eval = cs_reg_eval_bin},
};

size_t cs_reg_count(void) { return COUNT(table); }

const cs_reg_info *cs_reg_info_at(size_t i) { return i < COUNT(table) ? &table[i] : NULL; }
