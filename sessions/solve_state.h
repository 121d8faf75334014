/* solve_state.h — the recovery commands' state in the interpreter (slot
 * CS_EXT_SOLVE): the current problem and a solver bound to it. Shared by
 * cmd_problem.c, cmd_solve.c and cmd_sweep.c (sessions/ only). */
#ifndef CS_SOLVE_STATE_H
#define CS_SOLVE_STATE_H

#include "cs_cmdline.h"
#include "cs_interp.h"
#include "cs_solver.h"

typedef struct solve_state {
    cs_problem *prob;
    cs_kind kind;
    size_t N, M, K;
    long trial;             /* 1-based trial the problem was drawn as */
    uint64_t stream;        /* the problem's trial stream */
    char reg_at_problem[1024];
    char graph[256];        /* maxcut: the graph name (for display) */
    cs_solver *solver;
    char sig[1536];         /* method + options the solver was made with */
    char method[1024];
    /* scratch for the view */
    double *view_x, *view_obj, *view_err;
    size_t view_cap, hist_cap;
    /* 2-dimensional problems: the iterates of the current start, its start
     * point first, interleaved x,y (ntraj points); traj_start is the start
     * they belong to (0: none yet) */
    double *traj;
    size_t ntraj, captraj;
    int traj_start;
    long seq;               /* when it last changed, for front ends (cs_solve_view.h) */
} solve_state;

/* The state, made on first use (NULL only when out of memory). */
solve_state *solve_state_get(cs_interp *in, cs_err *err);
/* The state when a problem is set up; else an error at the command's name. */
int solve_need_problem(cs_interp *in, const cs_cmdline *cl, solve_state **out, cs_err *err);
/* A stamp comparable with the network's (nn_stamp): one more than the
 * commands journaled before this one. */
long solve_stamp(const cs_interp *in);
/* A graph name as `problem maxcut` and `maxcut` take it: toy5/toy4, a file,
 * or a G-set name (G10, G11.txt) found in the project's sessions/data/gset. */
int solve_resolve_graph(cs_interp *in, const char *name, char *buf, size_t len, cs_err *err);
/* The help text's name for where G-set graphs are looked up. */
#define SOLVE_GSET_DIR "sessions/data/gset"

#endif
