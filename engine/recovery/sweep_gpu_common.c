/* sweep_gpu_common.c — see sweep_gpu_common.h */
#include "sweep_gpu_common.h"

#include "cs_solver.h"

int cs_sweep_gpu_common_check(const cs_sweep_spec *sp, const char *takes, size_t most,
                              cs_err *err)
{
    /* the kernels run the kind's default mode (2bit: adaptive) alone,
     * where every stop rule is a start's own criterion */
    cs_mode mode = cs_kind_defaults_of(sp->kind)->mode;
    if (sp->solve.mode != CS_MODE_DEFAULT && sp->solve.mode != mode)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: FISTA's default mode (%s), not mode=%s",
                       takes, cs_mode_name(mode), cs_mode_name(sp->solve.mode));
    if (sp->N > most)
        return cs_fail(err, CS_EUNSUPPORTED, "%s: N <= %zu, not N=%zu", takes, most, sp->N);
    return CS_OK;
}
