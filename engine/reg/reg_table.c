/* reg_table.c — the regularizer table, from reg_builtins.def, and the
 * parameters of its entries as data. Sections refer to the ICLR 2025 paper
 * "Cauchy–Schwarz Regularizers" (sec. = main text, app. = appendix). */
#include "reg_evals.h"
#include "reg_internal.h"

#include <stddef.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A parameter: key, default text, help, then how it is read and the field
 * of struct cs_reg it sets. */
#define REAL(k, def, lo, hi, f, help) {k, def, help, CS_PARAM_REAL, lo, hi, offsetof(cs_reg, f), 0}
#define P_PQR                                                                                      \
    REAL("p", "2", 1.0, 1e6, p, "norm of g, p >= 1 with 1/p + 1/q = 1"),                        \
    REAL("q", "2", 1.0, 1e6, q, "norm of h, q >= 1 with 1/p + 1/q = 1"),                        \
    {"r", "1", "power r > 0", CS_PARAM_POSITIVE, 0.0, 1e6, offsetof(cs_reg, r), 0},             \
    {"base", "bin", "g and h of bin (x^2, 1), osb (x^2, x) or ter (x^3, x)", CS_PARAM_BASE, 0, 0, \
     offsetof(cs_reg, base), 0}

static const cs_reg_param_info holder_params[] = {P_PQR};

static const cs_reg_param_info si_params[] = {
    P_PQR,
    REAL("eps", "0", 0.0, 1e300, eps,
         "eps >= 0 added to numerator and denominator (0: scale invariant)"),
};

static const cs_reg_param_info fixed_params[] = {
    REAL("alpha", "1", -1e150, 1e150, alpha, "the fixed scale: target {-alpha, +alpha}^N"),
};

static const cs_reg_param_info beta_params[] = {
    {"beta", "1", "beta as a number, or `learn`: beta is the last coordinate", CS_PARAM_LEARN,
     -1e150, 1e150, offsetof(cs_reg, beta), offsetof(cs_reg, learn_beta)},
};

static const cs_reg_param_info C_params[] = {
    {"C", NULL, "the matrix: inline `1,2;3,4`, `random` (N(0,1) from the seed) or FILE.csv",
     CS_PARAM_MATRIX, 0, 0, offsetof(cs_reg, C), 0},
};

static const cs_reg_param_info equ_params[] = {
    {"B", "2", "bits: 2^B levels; the argument is y_1..y_B stacked (length B*N)", CS_PARAM_INT,
     1, 16, offsetof(cs_reg, B), 0},
};

#define PARAMS(a) .params = (a), .nparams = COUNT(a)
#define LEVELS(a) .levels = (a), .nlevels = COUNT(a)

static const double lv_bin[] = {-1, 1}, lv_osb[] = {0, 1}, lv_ter[] = {-1, 0, 1};

static const cs_reg_info table[] = {
#define CS_REG(NAME, ...) {.name = #NAME, __VA_ARGS__},
#include "reg_builtins.def"
};

size_t cs_reg_builtin_count(void) { return COUNT(table); }

const cs_reg_info *cs_reg_builtin_at(size_t i) { return i < COUNT(table) ? &table[i] : NULL; }
