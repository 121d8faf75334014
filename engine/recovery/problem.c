/* problem.c — problem generators (bin osb ter 2bit eig orth maxcut) and the
 * MAX-CUT graphs (G-set reader, built-in graphs, sparse W). */
#include "cs_problem.h"
#include "problem_internal.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_limits.h"
#include "cs_parse.h"
#include "cs_rng.h"
#include "cs_text.h"

static const char *const kind_names[CS_PROB_COUNT] = {"bin",  "osb", "ter",   "2bit",
                                                      "eig",  "orth", "maxcut"};

const char *cs_problem_kind_name(cs_kind kind)
{
    return kind >= 0 && kind < CS_PROB_COUNT ? kind_names[kind] : "?";
}

int cs_problem_kind_parse(const char *name, cs_kind *kind, cs_err *err)
{
    for (int k = 0; k < CS_PROB_COUNT; k++)
        if (name && strcmp(name, kind_names[k]) == 0) {
            *kind = (cs_kind)k;
            return CS_OK;
        }
    return cs_fail(err, CS_ENOTFOUND,
                   "unknown problem kind '%s' (expected bin, osb, ter, 2bit, eig, orth or maxcut)",
                   name ? name : "");
}

/* ---------------------------------------------------------------- graphs */

struct cs_graph {
    char name[64];
    size_t n, m;
    size_t *ei, *ej;   /* edges, 0-based */
    double *w;
    size_t *rowp;      /* CSR of the symmetric W: n+1 */
    size_t *col;       /* 2m */
    double *val;       /* 2m */
    double known_best;
    double lambda;     /* the paper's λ on this graph, NaN: the default */
};

void cs_graph_free(cs_graph *g)
{
    if (!g)
        return;
    free(g->ei);
    free(g->ej);
    free(g->w);
    free(g->rowp);
    free(g->col);
    free(g->val);
    free(g);
}

size_t cs_graph_nodes(const cs_graph *g) { return g->n; }
size_t cs_graph_edges(const cs_graph *g) { return g->m; }
double cs_graph_known_best(const cs_graph *g) { return g->known_best; }
double cs_graph_lambda(const cs_graph *g) { return g->lambda; }
const char *cs_graph_name(const cs_graph *g) { return g->name; }

static int graph_alloc(cs_graph **out, const char *name, size_t n, size_t m, cs_err *err)
{
    *out = NULL;
    if (n == 0)
        return cs_fail(err, CS_EINVAL, "graph has no nodes");
    if (n > 10000000 || m > 100000000)
        return cs_fail(err, CS_ENOMEM, "graph with %zu nodes and %zu edges is too large", n, m);
    cs_graph *g = calloc(1, sizeof *g);
    if (!g)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    snprintf(g->name, sizeof g->name, "%s", name ? name : "graph");
    g->n = n;
    g->m = m;
    size_t mm = m ? m : 1;
    g->ei = malloc(mm * sizeof *g->ei);
    g->ej = malloc(mm * sizeof *g->ej);
    g->w = malloc(mm * sizeof *g->w);
    g->rowp = calloc(n + 1, sizeof *g->rowp);
    g->col = malloc(2 * mm * sizeof *g->col);
    g->val = malloc(2 * mm * sizeof *g->val);
    if (!g->ei || !g->ej || !g->w || !g->rowp || !g->col || !g->val) {
        cs_graph_free(g);
        return cs_fail(err, CS_ENOMEM, "out of memory for a graph with %zu edges", m);
    }
    g->known_best = NAN;
    g->lambda = NAN;
    *out = g;
    return CS_OK;
}

/* CSR of W = Σ w_ij (e_i e_jᵀ + e_j e_iᵀ), entries in edge order per row. */
static int graph_build_csr(cs_graph *g, cs_err *err)
{
    size_t *fill = calloc(g->n, sizeof *fill);
    if (!fill)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    memset(g->rowp, 0, (g->n + 1) * sizeof *g->rowp);
    for (size_t e = 0; e < g->m; e++) {
        g->rowp[g->ei[e] + 1]++;
        g->rowp[g->ej[e] + 1]++;
    }
    for (size_t i = 0; i < g->n; i++)
        g->rowp[i + 1] += g->rowp[i];
    for (size_t e = 0; e < g->m; e++) {
        size_t i = g->ei[e], j = g->ej[e];
        size_t pi = g->rowp[i] + fill[i]++;
        size_t pj = g->rowp[j] + fill[j]++;
        g->col[pi] = j;
        g->val[pi] = g->w[e];
        g->col[pj] = i;
        g->val[pj] = g->w[e];
    }
    free(fill);
    return CS_OK;
}

int cs_graph_new(cs_graph **out, const char *name, size_t nodes, const size_t *ei,
                 const size_t *ej, const double *w, size_t edges, double known_best,
                 cs_err *err)
{
    cs_graph *g;
    int rc = graph_alloc(&g, name, nodes, edges, err);
    if (rc)
        return rc;
    for (size_t e = 0; e < edges; e++) {
        if (ei[e] >= nodes || ej[e] >= nodes) {
            cs_graph_free(g);
            return cs_fail(err, CS_EINVAL, "edge %zu: node out of range 1..%zu", e + 1, nodes);
        }
        if (ei[e] == ej[e]) {
            cs_graph_free(g);
            return cs_fail(err, CS_EINVAL, "edge %zu is a self-loop at node %zu", e + 1,
                           ei[e] + 1);
        }
        if (!isfinite(w[e])) {
            cs_graph_free(g);
            return cs_fail(err, CS_ENONFINITE, "edge %zu has a non-finite weight", e + 1);
        }
        g->ei[e] = ei[e];
        g->ej[e] = ej[e];
        g->w[e] = w[e];
    }
    g->known_best = known_best;
    rc = graph_build_csr(g, err);
    if (rc) {
        cs_graph_free(g);
        return rc;
    }
    *out = g;
    return CS_OK;
}

/* The built-in graphs of appendix C.6 (names as the paper's code has them too). */
static const struct builtin_graph {
    const char *name, *alias;
    size_t n, m;
    const size_t *ei, *ej;
    const double *w;
    double best, lambda;
} builtin_graphs[] = {
    /* N=5, E=7, best cut 3 at s* = (−1, 1, −1, −1, 1). */
    {"toy5", "medium_toy", 5, 7, (const size_t[]){0, 0, 1, 1, 1, 2, 3},
     (const size_t[]){1, 4, 2, 3, 4, 3, 4}, (const double[]){1, 1, -1, 1, -1, -1, 1}, 3.0, 1.0},
    /* N=4, E=5, w12=10 w13=20 w14=30 w24=40 w34=50, best cut 120. */
    {"toy4", "my_toy", 4, 5, (const size_t[]){0, 0, 0, 1, 2}, (const size_t[]){1, 2, 3, 3, 3},
     (const double[]){10, 20, 30, 40, 50}, 120.0, 1.0},
};

static const struct builtin_graph *find_builtin(const char *name)
{
    for (size_t i = 0; name && i < sizeof builtin_graphs / sizeof builtin_graphs[0]; i++)
        if (!strcmp(name, builtin_graphs[i].name) || !strcmp(name, builtin_graphs[i].alias))
            return &builtin_graphs[i];
    return NULL;
}

int cs_graph_is_builtin(const char *name) { return find_builtin(name) != NULL; }

int cs_graph_builtin(cs_graph **out, const char *name, cs_err *err)
{
    *out = NULL;
    const struct builtin_graph *b = find_builtin(name);
    if (!b)
        return cs_fail(err, CS_ENOTFOUND, "unknown built-in graph '%s' (toy5, toy4)",
                       name ? name : "");
    int rc = cs_graph_new(out, b->name, b->n, b->ei, b->ej, b->w, b->m, b->best, err);
    if (!rc)
        (*out)->lambda = b->lambda;
    return rc;
}

/* Parse up to `want` whitespace-separated decimal numbers of one line
 * (cs_parse_double: subnormals yes; hex, inf, nan no); returns the count,
 * or -1 - k when token k (0-based) is malformed, which *bad says
 * ("malformed number '0x10'"). */
static int parse_line(const char *line, double *v, int want, int *extra, cs_err *bad)
{
    const char *p = line;
    int k = 0;
    *extra = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p)
            break;
        if (k == want) {
            *extra = 1;
            break;
        }
        size_t n = strcspn(p, " \t\r\n");
        char tok[64];
        if (n >= sizeof tok) {
            cs_fail(bad, CS_EINVAL, "malformed number '%.20s...'", p);
            return -1 - k;
        }
        memcpy(tok, p, n);
        tok[n] = '\0';
        if (cs_parse_double(tok, &v[k], bad))
            return -1 - k;
        k++;
        p += n;
    }
    return k;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    s = s ? s + 1 : path;
    return s;
}

int cs_graph_read(cs_graph **out, const char *path, cs_err *err)
{
    *out = NULL;
    if (!path || !*path)
        return cs_fail(err, CS_EINVAL, "graph file name is empty");
    FILE *f;
    cs_err sub;
    if (cs_text_open(path, NULL, &f, &sub))
        return cs_fail(err, CS_EIO, "graph file: %s", sub.msg);
    char *line = NULL;
    size_t cap = 0, len;
    long lineno = 0;
    cs_graph *g = NULL;
    int rc = CS_OK, col;
    double v[3];
    int extra;
    /* header */
    for (;;) {
        int got = cs_text_line(f, &line, &cap, &len, &col, &sub);
        lineno++;
        if (got < 0) {
            rc = cs_fail(err, got, "%s:%ld: %s", path, lineno, sub.msg);
            goto out;
        }
        if (got == 0) {
            rc = cs_fail(err, CS_EIO, "%s: empty file (expected `nodes edges best`)", path);
            goto out;
        }
        int k = parse_line(line, v, 3, &extra, &sub);
        if (k == 0)
            continue;
        if (k < 0) {
            static const char *const field[] = {"nodes", "edges", "best"};
            rc = cs_fail(err, CS_EINVAL, "%s:%ld: malformed header (expected `nodes edges best`, "
                         "decimal numbers): %s: %s", path, lineno, field[-1 - k], sub.msg);
            goto out;
        }
        if (k < 2 || extra) {
            rc = cs_fail(err, CS_EINVAL,
                         "%s:%ld: malformed header (expected `nodes edges best`)", path, lineno);
            goto out;
        }
        break;
    }
    if (v[0] < 1 || v[0] != floor(v[0]) || v[1] < 0 || v[1] != floor(v[1])) {
        rc = cs_fail(err, CS_EINVAL, "%s:%ld: node and edge counts must be whole numbers",
                     path, lineno);
        goto out;
    }
    if (v[0] > 1e7 || v[1] > 1e8) {
        rc = cs_fail(err, CS_ENOMEM, "%s:%ld: graph too large", path, lineno);
        goto out;
    }
    size_t n = (size_t)v[0], m = (size_t)v[1];
    double best = parse_line(line, v, 3, &extra, &sub) == 3 ? v[2] : NAN;
    {
        char nm[64];
        snprintf(nm, sizeof nm, "%s", base_name(path));
        char *dot = strrchr(nm, '.');
        if (dot && dot != nm)
            *dot = '\0';
        rc = graph_alloc(&g, nm, n, m, err);
        if (rc)
            goto out;
    }
    g->known_best = best;
    size_t e = 0;
    double total = 0.0;
    for (;;) {
        int got = cs_text_line(f, &line, &cap, &len, &col, &sub);
        if (got == 0)
            break;
        lineno++;
        if (got < 0) {
            /* a NUL byte after the last edge is binary garbage, not the end */
            rc = cs_fail(err, got, "%s:%ld: %s", path, lineno, sub.msg);
            goto out;
        }
        int k = parse_line(line, v, 3, &extra, &sub);
        if (k == 0)
            continue;
        if (k < 0) {
            static const char *const field[] = {"i", "j", "w"};
            rc = cs_fail(err, CS_EINVAL, "%s:%ld: expected `i j w`, decimal numbers: %s: %s",
                         path, lineno, field[-1 - k], sub.msg);
            goto out;
        }
        if (k != 3 || extra) {
            rc = cs_fail(err, CS_EINVAL, "%s:%ld: expected `i j w`", path, lineno);
            goto out;
        }
        if (e == m) {
            rc = cs_fail(err, CS_EINVAL, "%s:%ld: more edges than the %zu in the header", path,
                         lineno, m);
            goto out;
        }
        if (v[0] != floor(v[0]) || v[1] != floor(v[1])) {
            rc = cs_fail(err, CS_EINVAL, "%s:%ld: node %g is not an integer", path, lineno,
                         v[0] != floor(v[0]) ? v[0] : v[1]);
            goto out;
        }
        if (v[0] < 1 || v[0] > (double)n || v[1] < 1 || v[1] > (double)n) {
            rc = cs_fail(err, CS_EINVAL, "%s:%ld: node number out of range 1..%zu", path, lineno,
                         n);
            goto out;
        }
        if (v[0] == v[1]) {
            rc = cs_fail(err, CS_EINVAL, "%s:%ld: self-loop at node %.0f", path, lineno, v[0]);
            goto out;
        }
        /* a cut sums w (1 - x_i x_j) <= 2 |w| over the edges: it must stay finite */
        total += fabs(v[2]);
        if (!isfinite(2.0 * total)) {
            rc = cs_fail(err, CS_ENONFINITE, "%s:%ld: edge weight %g: the weights add up to more "
                         "than a cut can hold (twice their sum must stay below %g)", path, lineno,
                         v[2], DBL_MAX);
            goto out;
        }
        g->ei[e] = (size_t)v[0] - 1;
        g->ej[e] = (size_t)v[1] - 1;
        g->w[e] = v[2];
        e++;
    }
    if (e != m) {
        rc = cs_fail(err, CS_EINVAL, "%s: file ends after %zu of %zu edges", path, e, m);
        goto out;
    }
    rc = graph_build_csr(g, err);
out:
    free(line);
    fclose(f);
    if (rc) {
        cs_graph_free(g);
        return rc;
    }
    *out = g;
    return CS_OK;
}

double cs_graph_cut(const cs_graph *g, const double *x)
{
    double s = 0.0;
    for (size_t e = 0; e < g->m; e++)
        s += g->w[e] * (1.0 - x[g->ei[e]] * x[g->ej[e]]);
    return 0.5 * s;
}

void cs_graph_cut_grad(const cs_graph *g, const double *x, double *grad)
{
    for (size_t i = 0; i < g->n; i++) {
        double s = 0.0;
        for (size_t p = g->rowp[i]; p < g->rowp[i + 1]; p++)
            s += g->val[p] * x[g->col[p]];
        grad[i] = -0.5 * s;
    }
}

/* -------------------------------------------------------------- problems */

void cs_problem_free(cs_problem *p)
{
    if (!p)
        return;
    free(p->A);
    free(p->b);
    free(p->xstar);
    free(p->C);
    free(p->Ar);
    free(p->br);
    cs_affine_free(p->P);
    cs_graph_free(p->graph_owned);
    free(p);
}

cs_kind cs_problem_kind(const cs_problem *p) { return p->kind; }
size_t cs_problem_N(const cs_problem *p) { return p->N; }
size_t cs_problem_M(const cs_problem *p) { return p->M; }
size_t cs_problem_K(const cs_problem *p) { return p->K; }
size_t cs_problem_cols(const cs_problem *p) { return p->cols; }
const double *cs_problem_A(const cs_problem *p) { return p->A; }
const double *cs_problem_b(const cs_problem *p) { return p->b; }
const double *cs_problem_xstar(const cs_problem *p) { return p->xstar; }
double cs_problem_xstar_norm(const cs_problem *p) { return p->xnorm; }
const double *cs_problem_C(const cs_problem *p) { return p->C; }
cs_affine *cs_problem_affine(cs_problem *p) { return p->P; }
const cs_graph *cs_problem_graph(const cs_problem *p) { return p->graph; }
double cs_problem_noise(const cs_problem *p) { return p->noise; }
double cs_problem_scale(const cs_problem *p) { return p->scale > 0.0 ? p->scale : 1.0; }
size_t cs_problem_rank(const cs_problem *p) { return p->rank; }

const double *cs_problem_system(const cs_problem *p, const double **b, size_t *rows)
{
    if (b)
        *b = p->Ar ? p->br : p->b;
    if (rows)
        *rows = p->Ar ? p->rank : p->M;
    return p->Ar ? p->Ar : p->A;
}

int problem_affine_new(cs_problem *p, int method, cs_err *err)
{
    const double *b;
    size_t rows;
    const double *A = cs_problem_system(p, &b, &rows);
    return cs_affine_new(&p->P, A, rows, p->N, b, p->cols, method, err);
}

double cs_problem_residual(const cs_problem *p, const double *x)
{
    if (!p->A)
        return NAN;
    size_t M = p->M, N = p->N, K = p->cols;
    double rr = 0.0, bb = 0.0;
    for (size_t i = 0; i < M; i++)
        for (size_t k = 0; k < K; k++) {
            double v = -p->b[i * K + k];
            for (size_t j = 0; j < N; j++)
                v += p->A[i * N + j] * x[j * K + k];
            rr += v * v;
            bb += p->b[i * K + k] * p->b[i * K + k];
        }
    return bb > 0.0 ? sqrt(rr / bb) : sqrt(rr);
}

double cs_problem_rel_err(const cs_problem *p, const double *x)
{
    if (!p->xstar)
        return NAN;
    size_t n = p->N * p->cols, i = 0;
    const double *xs = p->xstar;
    double s0 = 0.0, s1 = 0.0;
    for (; i + 2 <= n; i += 2) {
        double d = x[i] - xs[i], e = x[i + 1] - xs[i + 1];
        s0 += d * d;
        s1 += e * e;
    }
    if (i < n)
        s0 += (x[i] - xs[i]) * (x[i] - xs[i]);
    double s = s0 + s1;
    return p->xnorm > 0.0 ? sqrt(s) / p->xnorm : sqrt(s);
}

double cs_problem_orth_err(const cs_problem *p, const double *X)
{
    if (p->kind != CS_PROB_ORTH)
        return NAN;
    size_t N = p->N, K = p->K;
    double s = 0.0;
    for (size_t a = 0; a < K; a++)
        for (size_t c = a; c < K; c++) {
            double g = 0.0;
            for (size_t i = 0; i < N; i++)
                g += X[i * K + a] * X[i * K + c];
            g -= a == c ? 1.0 : 0.0;
            s += (a == c ? 1.0 : 2.0) * g * g;
        }
    return sqrt(s / (double)K);
}

int cs_random_orthonormal(cs_rng *rng, size_t N, size_t K, double *X, cs_err *err)
{
    if (K > N || K == 0)
        return cs_fail(err, CS_EDIM, "need 1 <= K <= N (K=%zu, N=%zu)", K, N);
    double *T = malloc(N * N * sizeof *T), *U = malloc(N * N * sizeof *U);
    double *s = malloc(N * sizeof *s), *sup = malloc(N * sizeof *sup);
    int rc = CS_OK;
    if (!T || !U || !s || !sup) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto out;
    }
    cs_rng_normal_fill(rng, T, N * N);
    lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'S', 'N', (lapack_int)N, (lapack_int)N, T,
                                     (lapack_int)N, s, U, (lapack_int)N, NULL, 1, sup);
    if (info != 0) {
        rc = cs_fail(err, CS_EINVAL, "SVD failed (info %d)", (int)info);
        goto out;
    }
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < K; k++)
            X[i * K + k] = U[i * N + k];
out:
    free(T);
    free(U);
    free(s);
    free(sup);
    return rc;
}

/* x* of bin/osb/ter (dense or exactly K nonzeros). */
static int draw_discrete(cs_problem *p, cs_rng *rng, cs_err *err)
{
    size_t N = p->N;
    double *x = p->xstar;
    if (p->K == 0) {
        for (size_t i = 0; i < N; i++) {
            switch (p->kind) {
            case CS_PROB_BIN: x[i] = (cs_rng_u64(rng) >> 63) ? 1.0 : -1.0; break;
            case CS_PROB_OSB: x[i] = (double)(cs_rng_u64(rng) >> 63); break;
            default: {
                double u = cs_rng_uniform(rng);
                x[i] = u < 0.25 ? -1.0 : (u < 0.75 ? 0.0 : 1.0);
            }
            }
        }
        return CS_OK;
    }
    /* K positions by a partial Fisher–Yates shuffle of 0..N−1. */
    memset(x, 0, N * sizeof *x);
    size_t *perm = malloc(N * sizeof *perm);
    if (!perm)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    for (size_t i = 0; i < N; i++)
        perm[i] = i;
    for (size_t k = 0; k < p->K; k++) {
        size_t j = k + (size_t)cs_rng_below(rng, N - k);
        size_t t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
    }
    for (size_t k = 0; k < p->K; k++)
        x[perm[k]] = p->kind == CS_PROB_OSB ? 1.0 : ((cs_rng_u64(rng) >> 63) ? 1.0 : -1.0);
    free(perm);
    return CS_OK;
}

static int make_eig(cs_problem *p, cs_rng *rng, cs_err *err)
{
    size_t N = p->N;
    double *T = malloc(N * N * sizeof *T), *w = malloc(N * sizeof *w);
    lapack_int *isuppz = malloc(2 * sizeof *isuppz);
    int rc = CS_OK;
    if (!T || !w || !isuppz) {
        rc = cs_fail(err, CS_ENOMEM, "out of memory");
        goto out;
    }
    cs_rng_normal_fill(rng, T, N * N);
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++)
            p->C[i * N + j] = 0.5 * (T[i * N + j] + T[j * N + i]);
    size_t k = (size_t)cs_rng_below(rng, N);
    memcpy(T, p->C, N * N * sizeof *T);
    lapack_int m = 0;
    lapack_int info = LAPACKE_dsyevr(LAPACK_ROW_MAJOR, 'V', 'I', 'U', (lapack_int)N, T,
                                     (lapack_int)N, 0.0, 0.0, (lapack_int)k + 1,
                                     (lapack_int)k + 1, 0.0, &m, w, p->xstar, 1, isuppz);
    if (info != 0 || m != 1) {
        rc = cs_fail(err, CS_EINVAL, "eigendecomposition failed (info %d)", (int)info);
        goto out;
    }
out:
    free(T);
    free(w);
    free(isuppz);
    return rc;
}

/* Memory for one problem (A, the projection basis, scratch, eig's C, orth's
 * N×N draws): refuse above this. */

int cs_problem_new(cs_problem **out, const cs_problem_spec *spec, uint64_t seed,
                   uint64_t stream, cs_err *err)
{
    *out = NULL;
    cs_kind kind = spec->kind;
    const char *kname = cs_problem_kind_name(kind);
    int rc = CS_OK;
    if (kind < 0 || kind >= CS_PROB_COUNT)
        return cs_fail(err, CS_EINVAL, "unknown problem kind %d", (int)kind);
    if (kind == CS_PROB_MAXCUT) {
        if (spec->noise != 0.0)
            return cs_fail_key(err, CS_EINVAL, "noise",
                               "noise= adds noise to b = Ax*; a maxcut problem has none");
        if (!spec->graph || !*spec->graph)
            return cs_fail_key(err, CS_EINVAL, "graph",
                               "problem maxcut needs graph=FILE (or toy5, toy4)");
        cs_graph *g = NULL;
        rc = strchr(spec->graph, '/') || strchr(spec->graph, '.')
                 ? cs_graph_read(&g, spec->graph, err)
                 : cs_graph_builtin(&g, spec->graph, err);
        if (rc == CS_ENOTFOUND)
            rc = cs_graph_read(&g, spec->graph, err);
        if (!rc) {
            rc = cs_problem_new_maxcut(out, g, err);
            if (rc)
                cs_graph_free(g);
        }
        if (rc) {
            if (err)
                snprintf(err->key, sizeof err->key, "graph");
            return rc;
        }
        (*out)->graph_owned = g;
        return CS_OK;
    }
    size_t N = spec->N, M = spec->M, K = spec->K;
    if (N == 0)
        return cs_fail_key(err, CS_EINVAL, "N", "problem %s needs N=", kname);
    if (M == 0)
        return cs_fail_key(err, CS_EINVAL, "M", "problem %s needs M= (1 <= M <= N)", kname);
    if (M > N)
        return cs_fail_key(err, CS_EDIM, "M",
                           "M=%zu exceeds N=%zu: the system Ax = b must be underdetermined "
                           "(M <= N)", M, N);
    if (K && kind != CS_PROB_OSB && kind != CS_PROB_TER && kind != CS_PROB_ORTH)
        return cs_fail_key(err, CS_EINVAL, "K",
                           "K= applies to osb and ter (nonzeros) and orth (columns), not %s",
                           kname);
    if (K > N)
        return cs_fail_key(err, CS_EDIM, "K", "K=%zu exceeds N=%zu", K, N);
    if (!(spec->noise >= 0.0) || !isfinite(spec->noise))
        return cs_fail_key(err, CS_EINVAL, "noise", "noise=%g must be a finite number >= 0",
                           spec->noise);
    double scale = spec->scale == 0.0 ? 1.0 : spec->scale;
    if (!(scale > 0.0) || !isfinite(scale))
        return cs_fail_key(err, CS_EINVAL, "scale", "scale=%g must be a finite number > 0",
                           spec->scale);
    if (scale != 1.0 && kind != CS_PROB_BIN && kind != CS_PROB_OSB && kind != CS_PROB_TER)
        return cs_fail_key(err, CS_EINVAL, "scale", "scale= applies to bin, osb and ter, not %s",
                           kname);
    double dn = (double)N, dm = (double)M, dc = kind == CS_PROB_ORTH ? (K ? (double)K : dn) : 1;
    double bytes = 8.0 * (2.0 * dm * dn + dn * fmin(dm, dn - dm) + 4.0 * dn * dc);
    if (kind == CS_PROB_EIG || kind == CS_PROB_ORTH)
        bytes += 8.0 * 3.0 * dn * dn;
    if (bytes > CS_MEMORY_BUDGET)
        return cs_fail_key(err, CS_ENOMEM, "N",
                           "N=%zu M=%zu is too large: the problem needs %.1f GiB of memory "
                           "(limit %.0f GiB)", N, M, bytes / CS_GIB, CS_MEMORY_BUDGET / CS_GIB);
    if ((kind == CS_PROB_EIG || kind == CS_PROB_ORTH) && N > 4096)
        return cs_fail_key(err, CS_ENOMEM, "N", "N=%zu is too large for %s (at most 4096)", N,
                           kname);
    if (N > 100000000 / M)
        return cs_fail_key(err, CS_ENOMEM, "N", "problem %zux%zu is too large", M, N);
    cs_problem *p = calloc(1, sizeof *p);
    if (!p)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    p->kind = kind;
    p->N = N;
    p->M = M;
    p->K = kind == CS_PROB_ORTH ? (K ? K : N) : K;
    p->cols = kind == CS_PROB_ORTH ? p->K : 1;
    size_t cols = p->cols;
    p->A = malloc(M * N * sizeof *p->A);
    p->b = malloc(M * cols * sizeof *p->b);
    p->xstar = malloc(N * cols * sizeof *p->xstar);
    if (kind == CS_PROB_EIG)
        p->C = malloc(N * N * sizeof *p->C);
    if (!p->A || !p->b || !p->xstar || (kind == CS_PROB_EIG && !p->C)) {
        cs_problem_free(p);
        return cs_fail(err, CS_ENOMEM, "out of memory for a %zux%zu problem", M, N);
    }
    cs_rng rng;
    cs_rng_init(&rng, seed, stream);
    switch (kind) {
    case CS_PROB_EIG:
        rc = make_eig(p, &rng, err);
        break;
    case CS_PROB_ORTH:
        rc = cs_random_orthonormal(&rng, N, p->K, p->xstar, err);
        break;
    default:
        break;
    }
    if (rc) {
        cs_problem_free(p);
        return rc;
    }
    cs_rng_normal_fill(&rng, p->A, M * N);
    switch (kind) {
    case CS_PROB_BIN:
    case CS_PROB_OSB:
    case CS_PROB_TER:
        rc = draw_discrete(p, &rng, err);
        break;
    case CS_PROB_2BIT:
        for (size_t i = 0; i < N; i++)
            p->xstar[i] = (cs_rng_u64(&rng) >> 63) ? 1.0 : -1.0;
        for (size_t i = 0; i < N; i++)
            p->xstar[i] += (cs_rng_u64(&rng) >> 63) ? 2.0 : -2.0;
        break;
    default:
        break;
    }
    if (rc) {
        cs_problem_free(p);
        return rc;
    }
    /* after every draw: the same instance, x* (and so b) scaled */
    p->scale = scale;
    if (scale != 1.0)
        for (size_t i = 0; i < N * cols; i++)
            p->xstar[i] *= scale;
    if (cols == 1)
        cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)M, (int)N, 1.0, p->A, (int)N, p->xstar, 1,
                    0.0, p->b, 1);
    else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)cols, (int)N, 1.0,
                    p->A, (int)N, p->xstar, (int)cols, 0.0, p->b, (int)cols);
    /* the noise last: σ = 0 draws nothing, every draw before stays */
    if (spec->noise > 0.0) {
        double *n = malloc(M * cols * sizeof *n);
        if (!n) {
            cs_problem_free(p);
            return cs_fail(err, CS_ENOMEM, "out of memory");
        }
        cs_rng_normal_fill(&rng, n, M * cols);
        for (size_t i = 0; i < M * cols; i++)
            p->b[i] += spec->noise * n[i];
        free(n);
        p->noise = spec->noise;
    }
    double s = 0.0;
    for (size_t i = 0; i < N * cols; i++)
        s += p->xstar[i] * p->xstar[i];
    p->xnorm = sqrt(s);
    p->rank = M;
    if (kind != CS_PROB_2BIT) {
        rc = problem_affine_new(p, spec->proj_method, err);
        if (rc) {
            cs_problem_free(p);
            return rc;
        }
    }
    *out = p;
    return CS_OK;
}

int cs_problem_clone(cs_problem **out, const cs_problem *src, cs_err *err)
{
    *out = NULL;
    if (src->kind == CS_PROB_MAXCUT)
        return cs_problem_new_maxcut(out, src->graph, err);
    cs_problem *p = calloc(1, sizeof *p);
    if (!p)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    *p = *src;
    p->A = p->b = p->xstar = p->C = p->Ar = p->br = NULL;
    p->P = NULL;
    p->graph_owned = NULL;
    size_t M = src->M, N = src->N, cols = src->cols, R = src->rank;
    p->A = malloc(M * N * sizeof *p->A);
    p->b = malloc(M * cols * sizeof *p->b);
    if (src->xstar)
        p->xstar = malloc(N * cols * sizeof *p->xstar);
    if (src->C)
        p->C = malloc(N * N * sizeof *p->C);
    if (src->Ar) {
        p->Ar = malloc(R * N * sizeof *p->Ar);
        p->br = malloc(R * cols * sizeof *p->br);
    }
    if (!p->A || !p->b || (src->xstar && !p->xstar) || (src->C && !p->C) ||
        (src->Ar && (!p->Ar || !p->br))) {
        cs_problem_free(p);
        return cs_fail(err, CS_ENOMEM, "out of memory for a %zux%zu problem", M, N);
    }
    memcpy(p->A, src->A, M * N * sizeof *p->A);
    memcpy(p->b, src->b, M * cols * sizeof *p->b);
    if (src->xstar)
        memcpy(p->xstar, src->xstar, N * cols * sizeof *p->xstar);
    if (src->C)
        memcpy(p->C, src->C, N * N * sizeof *p->C);
    if (src->Ar) {
        memcpy(p->Ar, src->Ar, R * N * sizeof *p->Ar);
        memcpy(p->br, src->br, R * cols * sizeof *p->br);
    }
    if (src->P) {
        int rc = problem_affine_new(p, cs_affine_method(src->P), err);
        if (rc) {
            cs_problem_free(p);
            return rc;
        }
        cs_affine_set_simd(p->P, cs_affine_simd(src->P));
    }
    *out = p;
    return CS_OK;
}

int cs_problem_new_maxcut(cs_problem **out, const cs_graph *g, cs_err *err)
{
    *out = NULL;
    if (!g)
        return cs_fail(err, CS_EINVAL, "no graph");
    cs_problem *p = calloc(1, sizeof *p);
    if (!p)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    p->kind = CS_PROB_MAXCUT;
    p->N = cs_graph_nodes(g);
    p->cols = 1;
    p->graph = g;
    p->xnorm = NAN;
    *out = p;
    return CS_OK;
}
