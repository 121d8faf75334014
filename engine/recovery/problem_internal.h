/* problem_internal.h — what a problem holds, shared by the files that build
 * one: problem.c (the generators, the accessors) and problem_arrays.c (from
 * the caller's arrays). Not a public header. */
#ifndef PROBLEM_INTERNAL_H
#define PROBLEM_INTERNAL_H

#include "cs_problem.h"

struct cs_problem {
    cs_kind kind;
    size_t N, M, K, cols;
    double *A, *b, *xstar, *C;  /* xstar NULL: not known (from arrays) */
    double xnorm;               /* ‖x*‖, NaN without x* */
    double noise;               /* σ of the noise drawn into b */
    double scale;               /* x*'s scale (spec scale; 1: none) */
    size_t rank;                /* of A */
    double *Ar, *br;            /* A's independent rows and their b when A has
                                   dependent rows (rank of them), else NULL */
    cs_affine *P;
    cs_graph *graph_owned;
    const cs_graph *graph;
};

/* The projection of p's system (cs_problem_system), method as cs_affine_new. */
int problem_affine_new(cs_problem *p, int method, cs_err *err);

#endif
