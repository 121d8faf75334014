/* solve_state.h — the recovery commands' state in the interpreter (slot
 * CS_EXT_SOLVE): the current problem, a solver bound to it, and the last
 * basin map. Kept by solve_state.c; shared by cmd_problem.c, cmd_solve.c,
 * cmd_trace.c, cmd_basins.c, cmd_maxcut.c, solve_geo.c and solve_view.c
 * (sessions/ only). Its `seq` stamps come from cs_interp_stamp. */
#ifndef CS_SOLVE_STATE_H
#define CS_SOLVE_STATE_H

#include "cs_basins.h"
#include "cs_cmdline.h"
#include "cs_interp.h"
#include "cs_solver.h"
#include "plot.h"

/* What a solver is made from: the method (parsed from reg= or the
 * session's regularizer) and the solve keys. */
typedef struct solve_args {
    cs_method method;
    cs_solve_opts o;
} solve_args;

typedef struct solve_state {
    cs_interp *in;          /* the interpreter that owns this state */
    cs_problem *prob;
    cs_kind kind;
    size_t N, M, K;
    long trial;             /* 1-based trial the problem was drawn as */
    uint64_t stream;        /* the problem's trial stream */
    char reg_at_problem[1024];
    char graph[256];        /* maxcut: the graph name (for display) */
    char own_method[256];   /* problem file reg=: the problem's method ("": the kind's) */
    char files[5][256];     /* problem file: A, b, xstar, x0, C as given ("": none) */
    double *x0;             /* problem file x0=: the first start of a new solver */
    size_t nx0;
    cs_solver *solver;
    solve_args args;        /* what the solver was made from */
    uint64_t solver_seed;   /* the seed it was made with */
    int rewound;            /* rewind since the solver was made: stop keys fork the run */
    /* scratch for the view */
    double *view_x, *view_obj, *view_err;
    size_t view_cap, hist_cap;
    cs_basins *basins;      /* the last basin map of this problem (NULL: none) */
    cs_method basins_method; /* the method it was made with */
    uint64_t basins_seed;   /* and the seed (solve start=i,j replays one of its runs) */
    long seq;               /* when it last changed, for front ends (cs_solve_view.h) */
} solve_state;

/* The state, made on first use (NULL only when out of memory). */
solve_state *solve_state_get(cs_interp *in, cs_err *err);
/* prob (NULL: none) in place of the problem set up, and what belonged to
 * the old one gone: its solver and runs, basin map, x0, files, graph and
 * own method. The caller sets the new problem's fields. */
void solve_state_set_problem(solve_state *st, cs_problem *prob);
/* The state when a problem is set up; else an error at the command's name. */
int solve_need_problem(cs_interp *in, const cs_cmdline *cl, solve_state **out, cs_err *err);
/* A graph name as `problem maxcut` and `maxcut` take it: toy5/toy4, a file,
 * or a G-set name (G10, G11.txt) found in the project's sessions/data/gset. */
int solve_resolve_graph(cs_interp *in, const char *name, char *buf, size_t len, cs_err *err);
/* The help text's name for where G-set graphs are looked up. */
#define SOLVE_GSET_DIR "sessions/data/gset"

/* Write an iterate (n entries) to path by its extension: .csv and .npy (an
 * n x 1 array, cs_array_io.h), .json ({"x": [...]}, 17 digits: each reads
 * back bit for bit). */
int solve_write_x(const char *path, const double *x, size_t n, cs_err *err);

/* The method text the next solve (without reg=) uses: the current
 * regularizer when it was chosen after `problem`, else the problem's own.
 * *own (may be NULL) says which. */
void solve_next_method(const cs_interp *in, const solve_state *st, char *buf, size_t len,
                       int *own);
/* After `reg`: whether the next solve uses it (fields "solver" and "note"). */
void solve_note_reg(cs_interp *in, cs_result *res);

/* Iterates are recorded when x is a 2-vector: the plane shows the whole
 * problem. */
int solve_traj_wanted(const solve_state *st);

/* The recovery geometry on a view of the box (solve_geo.c): the feasible
 * set, x*, every start's path (2-dimensional problems) with the successful
 * or running one highlighted, and the iterate. N > 2: on the slice through
 * `at` (N entries) along dims; at NULL there: nothing. Paths point into
 * the solver: valid until the next command. */
typedef struct solve_geo {
    cs_plot_geometry g;
    cs_plot_path *paths;
} solve_geo;
int solve_geo_make(const solve_state *st, const double *at, size_t n_at, const size_t dims[2],
                   double x0, double x1, double y0, double y1, solve_geo *out, cs_err *err);
void solve_geo_free(solve_geo *geo);
/* Deposit a solver's trace in the plot store, with marks (may be none)
 * (solve_geo.c). */
int solve_store_trace(cs_interp *in, const cs_solver *s, const double *mark_iter,
                      const char *const *mark_label, size_t nmarks, cs_err *err);

/* The points of start `start` in the solver's path (2-dimensional
 * problems): a pointer to npoints interleaved x,y, NULL when none. */
const double *solve_path_of(const solve_state *st, int start, size_t *npoints);

#endif
