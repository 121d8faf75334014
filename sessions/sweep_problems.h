/* sweep_problems.h — `sweep problems='DIR/GLOB'`: one trial per folder of
 * saved problems (sweep_problems.c), called by cmd_sweep.c. */
#ifndef CS_SWEEP_PROBLEMS_H
#define CS_SWEEP_PROBLEMS_H

#include "cs_cmdline.h"
#include "cs_interp.h"

/* The CSV header: one row per folder and method. */
#define SWEEP_PROBLEMS_CSV_HEADER "folder,method,N,M,has_xstar,success,rel_err,residual,iters"

int sweep_problems_run(cs_interp *in, const cs_cmdline *cl, cs_result *res, cs_err *err);

#endif
