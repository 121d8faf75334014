/* interp_internal.h — the interpreter's state, shared by command handlers. */
#ifndef CS_INTERP_INTERNAL_H
#define CS_INTERP_INTERNAL_H

#include "cs_commands.h"
#include "cs_interp.h"
#include "cs_reg.h"

struct cs_interp {
    cs_interp_opts opts;
    uint64_t seed;
    int threads;
    char device[16];
    cs_reg *reg;          /* current regularizer (never NULL after new) */
    char reg_line[1024];  /* its canonical description */
    char **journal;
    size_t njournal, capjournal;
    cs_result *res;
    int err_col;          /* column of the offending argument, set by cs_arg_* */
    int quit;             /* set by `quit` */
    uint64_t initial_seed;  /* for the header of a saved session */
    int source_depth;     /* nesting of `source`, bounded */
    volatile int cancel;  /* set from a signal handler */
};

#endif
