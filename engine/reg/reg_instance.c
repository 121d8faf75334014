/* reg_instance.c — what every kernel and form asks of an instance: its
 * entry and shape, its scratch, its argument as a vector, its matrix C.
 * The lowest file of engine/reg: it calls no other file of the folder, so
 * the fills, the forms, the fused kernels and reg_core.c all call down. */
#include "reg_internal.h"

#include <stdlib.h>

#include "cs_rng.h"

const char *const cs_reg_base_name[CS_BASE_COUNT] = {"bin", "osb", "ter"};

int cs_reg_info_defined(const cs_reg_info *info) { return info && info->defined; }

const cs_reg_info *cs_reg_get_info(const cs_reg *reg) { return reg->info; }
size_t cs_reg_extra(const cs_reg *reg) { return reg->extra; }
cs_target_family cs_reg_family(const cs_reg *reg) { return reg->family; }

cs_reg_kernel cs_reg_kernel_of(const cs_reg *reg)
{
    return reg->info->nparams == 0 ? reg->info->kernel : CS_REG_KERNEL_NONE;
}

double *cs_reg_work(cs_reg *reg, size_t n, cs_err *err)
{
    if (n > reg->nwork) {
        double *w = realloc(reg->work, n * sizeof *w);
        if (!w) {
            cs_fail(err, CS_ENOMEM, "out of memory (%zu doubles of scratch)", n);
            return NULL;
        }
        reg->work = w;
        reg->nwork = n;
    }
    return reg->work;
}

int cs_reg_vector_len(const cs_reg *reg, size_t rows, size_t cols, size_t *n, cs_err *err)
{
    if (rows != 1 && cols != 1)
        return cs_fail(err, CS_EDIM, "%s takes a vector, got a %zux%zu matrix", reg->info->name,
                       rows, cols);
    *n = rows * cols;
    return CS_OK;
}

int cs_reg_need_matrix(cs_reg *reg, size_t n, cs_err *err)
{
    if (reg->C_random && (!reg->C || reg->Ccols != n)) {
        if (n == 0)
            return cs_fail(err, CS_EDIM, "empty argument");
        if (n > 20000)
            return cs_fail(err, CS_ENOMEM, "C=random of size %zux%zu is too large", n, n);
        free(reg->C);
        reg->C = malloc(n * n * sizeof *reg->C);
        if (!reg->C)
            return cs_fail(err, CS_ENOMEM, "out of memory");
        cs_rng rng;
        cs_rng_init(&rng, reg->seed, 0xC0FFEEull);
        cs_rng_normal_fill(&rng, reg->C, n * n);
        reg->Crows = reg->Ccols = n;
    }
    if (!reg->C)
        return cs_fail(err, CS_ESTATE, "%s needs C= (inline, random or FILE.csv)",
                       reg->info->name);
    if (reg->Ccols != n)
        return cs_fail(err, CS_EDIM, "C is %zux%zu but x has %zu entries", reg->Crows,
                       reg->Ccols, n);
    return CS_OK;
}
