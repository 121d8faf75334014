/* cuda/sweep_kernels.cu — the batched GPU sweep (see sweep_cuda.h): one
 * thread block per trial, one thread per entry of x (blockDim = N rounded
 * up to a warp), the trial's basis Q (M×N) in shared memory and its
 * vectors in registers. Every scalar the algorithms branch on comes from a
 * block reduction that all threads read in the same order, so control flow
 * is uniform. The arithmetic follows engine/opt/fista.c, engine/opt/dr.c,
 * engine/opt/proj.c (cs_linf_threshold), engine/reg/reg_fast*.c (ℓbin,
 * ℓosb, ℓter; bbin, binexp, l2l1, fixed; holder, si, l2l1h),
 * engine/reg/reg_holder.c (holder, si at other p, q),
 * engine/reg/reg_baseline.c (beta), engine/recovery/problem.c (the draws)
 * and engine/base/cs_rng.c step by step; built with --fmad=false like the
 * rest of the module. One FISTA templated on the regularizer's family
 * (fam_poly, fam_flat, fam_holder, fam_holder_pq, fam_beta, fam_defined:
 * a kernel each, so that bin keeps its registers) with the family's
 * regularizers as a switch (fam_defined: reg define's g and h by
 * sweep_expr.cuh), one Douglas–Rachford with the prox as a switch (in
 * bin's kernel), each start ended by the job's stopping rule, and 2bit's
 * objective with FISTA's adaptive mode (its own kernel, sweep_2bit). */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_device.cuh"

#include "sweep_cuda.h"
#include "sweep_expr.cuh"
#include "sweep_stop.cuh"

#ifdef CS_CUDA_EMU
#define DYN_SHARED(T, name) T *name = (T *)cs_emu_dynamic_shared()
#else
#define DYN_SHARED(T, name) extern __shared__ T name[]
#endif

#define MAX_WARPS (CS_SWEEP_CUDA_MAX_N / 32)
/* the most values one block reduction sums (FISTA's candidate) */
#define RED_MAX 8
#define FISTA_WINDOW 10
#define FISTA_MAX_BACKTRACKS 20

/* ------------------------------------------------------------------ the generator (cs_rng.c) */

struct rng_t {
    uint64_t s[4];
    double spare;
    int has_spare;
};

/* The largest objective of FISTA's last FISTA_WINDOW iterations before
 * iteration i (the first: the start's), the non-monotone backtracking's bound. */
__device__ static double window_max(const double *fwin, long i, double f_start)
{
    if (i == 1)
        return f_start;
    double Mx = -INFINITY;
    long cnt = i - 1 < FISTA_WINDOW ? i - 1 : FISTA_WINDOW;
    for (long k = 0; k < cnt; k++)
        Mx = fwin[k] > Mx ? fwin[k] : Mx;
    return Mx;
}

__device__ static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

__device__ static void rng_init(rng_t *r, uint64_t seed, uint64_t stream)
{
    uint64_t st = seed;
    uint64_t a = splitmix64(&st);
    uint64_t t = stream ^ 0x6A09E667F3BCC909ull;
    uint64_t b = splitmix64(&t);
    uint64_t mix = a ^ rotl(b, 17) ^ (b * 0xD1B54A32D192ED03ull);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&mix);
    r->has_spare = 0;
    r->spare = 0.0;
}

__device__ static uint64_t rng_u64(rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

__device__ static double rng_uniform(rng_t *r) { return (double)(rng_u64(r) >> 11) * 0x1.0p-53; }

/* uniform in [0, n), unbiased (cs_rng_below) */
__device__ static uint64_t rng_below(rng_t *r, uint64_t n)
{
    if (n <= 1)
        return 0;
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t v;
    do {
        v = rng_u64(r);
    } while (v >= limit);
    return v % n;
}

__device__ static double rng_normal(rng_t *r)
{
    if (r->has_spare) {
        r->has_spare = 0;
        return r->spare;
    }
    double u, v, s;
    do {
        u = 2.0 * rng_uniform(r) - 1.0;
        v = 2.0 * rng_uniform(r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    double f = sqrt(-2.0 * log(s) / s);
    r->spare = v * f;
    r->has_spare = 1;
    return u * f;
}

/* ------------------------------------------------------------------ the block's tools */

struct block_t {
    int tid, n;            /* this thread's entry; the entries (N, 2N for 2bit) */
    int nx;                /* N */
    int m, ld;             /* M; the row stride of Q (N, odd: fewer bank conflicts) */
    double *Q;             /* M×ld: orthonormal rows spanning range(Aᵀ) */
    double *c;             /* M: Q x = c for every x with Ax = b */
    double *t;             /* M: scratch of a projection */
    double *v;             /* n: a vector every thread reads (broadcast) */
    double (*red)[MAX_WARPS][RED_MAX];   /* [2][warp][value]: reductions, double-buffered */
    int parity;
};

/* full unrolling where an array must stay in registers (nvcc; the
 * emulator's g++ has no such pragma) */
#ifdef __CUDACC__
#define BLOCK_UNROLL _Pragma("unroll")
#else
#define BLOCK_UNROLL
#endif

/* the sums of v[0..k) (k <= RED_MAX) over the block, in every thread, in
 * one order. The warp's stage is transposed: k values padded to c = 2^L
 * slots, each of the first L rounds pairs the slots a lane holds and
 * sends one of each pair (the lane with the round's bit set keeps the odd
 * one), so the rounds take c/2, c/4, .. shuffles instead of k each; then
 * value mine = the lane's bits 16, 8, .. (low first) is whole in the lane
 * whose other bits are 0. Pads are never added to values. */
__device__ static void bsum(block_t *b, double *v, int k)
{
    int lane = b->tid & 31, warp = b->tid >> 5, nw = (int)(blockDim.x >> 5);
    static_assert((RED_MAX & (RED_MAX - 1)) == 0, "RED_MAX: a power of two");
    double a[RED_MAX];   /* constant indices only (unrolled): registers */
    int c = 1, o = 16, mine = 0;
    while (c < k)
        c *= 2;
BLOCK_UNROLL
    for (int i = 0; i < RED_MAX; i++)
        a[i] = i < k ? v[i] : 0.0;
BLOCK_UNROLL
    for (int l = 0; (RED_MAX >> l) > 1; l++)
        if ((c >> l) > 1) {
            int hi = (lane & o) != 0;
            mine |= hi << l;
BLOCK_UNROLL
            for (int p = 0; p < RED_MAX >> (l + 1); p++)
                if (p < c >> (l + 1)) {
                    double send = hi ? a[2 * p] : a[2 * p + 1];
                    double keep = hi ? a[2 * p + 1] : a[2 * p];
                    a[p] = keep + __shfl_xor_sync(0xffffffffu, send, o);
                }
            o >>= 1;
        }
    for (int m = o; m > 0; m >>= 1)
        a[0] += __shfl_xor_sync(0xffffffffu, a[0], m);
    double (*r)[RED_MAX] = b->red[b->parity];
    if (mine < k && (lane & (2 * o - 1)) == 0)
        r[warp][mine] = a[0];
    __syncthreads();
    for (int j = 0; j < k; j++) {
        double s = 0.0;
        for (int w = 0; w < nw; w++)
            s += r[w][j];
        v[j] = s;
    }
    b->parity ^= 1;   /* the next call writes the other buffer: no second barrier */
}

/* the largest v over the block, in every thread (exact in any order) */
__device__ static double bmax(block_t *b, double v)
{
    int lane = b->tid & 31, warp = b->tid >> 5, nw = (int)(blockDim.x >> 5);
    for (int o = 16; o > 0; o >>= 1)
        v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    double (*r)[RED_MAX] = b->red[b->parity];
    if (lane == 0)
        r[warp][0] = v;
    __syncthreads();
    double m = r[0][0];
    for (int w = 1; w < nw; w++)
        m = fmax(m, r[w][0]);
    b->parity ^= 1;   /* as bsum's */
    return m;
}

/* FISTA's first step: 2/(10 L), L the gradient's change between two random
 * points r1, r2 (gradients ga, gb; 1 when either is not finite), summed over
 * the block (on: this thread holds an entry) with an extra coordinate's
 * squares edg2, edx2 (0 without one). */
__device__ static double first_step(block_t *b, int on, int finite, double r1, double r2,
                                    double ga, double gb, double edg2 = 0.0, double edx2 = 0.0)
{
    double L = 1.0;
    if (finite) {
        double v[2] = {on ? (ga - gb) * (ga - gb) : 0.0, on ? (r2 - r1) * (r2 - r1) : 0.0};
        bsum(b, v, 2);
        v[0] += edg2;
        v[1] += edx2;
        L = sqrt(v[0]) / sqrt(v[1]);
        if (!(L >= 1e-6) || !isfinite(L))
            L = isfinite(L) ? 1e-6 : 1.0;
    }
    return 2.0 / L / 10.0;
}

__device__ static double bsum1(block_t *b, double x)
{
    bsum(b, &x, 1);
    return x;
}

/* Σ_i a[i·sa] b[i·sb], i < n, with four accumulators (four independent
 * chains of dependent adds instead of one: the dot products of a
 * projection are most of an iteration's latency) */
__device__ static double dot4(const double *a, int sa, const double *b, int sb, int n)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[(size_t)i * sa] * b[(size_t)i * sb];
        s1 += a[(size_t)(i + 1) * sa] * b[(size_t)(i + 1) * sb];
        s2 += a[(size_t)(i + 2) * sa] * b[(size_t)(i + 2) * sb];
        s3 += a[(size_t)(i + 3) * sa] * b[(size_t)(i + 3) * sb];
    }
    for (; i < n; i++)
        s0 += a[(size_t)i * sa] * b[(size_t)i * sb];
    return (s0 + s1) + (s2 + s3);
}

/* out = x − Qᵀ(Q x − shift·c), this thread's entry: shift 0 is P₀ (the
 * direction), 1 is P (the projection onto Ax = b). Q x by the whole
 * block: G = 2^lg consecutive lanes a row (the largest power of two <=
 * blockDim/M, at most 32: every thread works), lane p of a group the
 * entries [pL, pL + L) by dot4, the group's partials then summed by
 * shuffles: a fixed order for given N, M, blockDim. L >= N/G is an odd
 * multiple of 16/G (of 1 for G >= 16), so that a half-warp's rows and
 * lanes read distinct banks for every odd ld, unless that pads more than
 * 1/8. Then each thread its entry. */
__device__ static double project(block_t *b, double x, int shift)
{
    if (b->tid < b->n)
        b->v[b->tid] = x;
    int lg = 0, nt = (int)blockDim.x;
    while (lg < 5 && (2 << lg) * b->m <= nt)
        lg++;
    int g = 1 << lg, q = lg < 4 ? 16 >> lg : 1;
    int c = (b->n + g - 1) >> lg, L = ((c + q - 1) / (2 * q)) * (2 * q) + q;
    if (!lg)
        L = b->n;
    else if (L > c + (c >> 3))   /* too much padding (small N): odd L, no two lanes */
        L = c | 1;                /* of a row on one bank, rows may share (<= 16/G-way) */
    int p = b->tid & (g - 1), off = p * L;
    int len = off >= b->n ? 0 : (b->n - off < L ? b->n - off : L);
    __syncthreads();
    for (int k0 = 0; k0 < b->m; k0 += nt >> lg) {   /* trips uniform over the block */
        int k = k0 + (b->tid >> lg);
        double s = k < b->m ? dot4(b->Q + (size_t)k * b->ld + off, 1, b->v + off, 1, len) : 0.0;
        for (int o = g >> 1; o > 0; o >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, o);
        if (p == 0 && k < b->m)
            b->t[k] = shift ? s - b->c[k] : s;
    }
    __syncthreads();
    if (b->tid >= b->n)
        return 0.0;
    return x - dot4(b->Q + b->tid, b->ld, b->t, 1, b->m);
}

/* N normals of r (thread 0 draws, in the CPU's order) into this thread's
 * entry; with extra, one more after them into *xe (every thread) */
__device__ static double draw_normal(block_t *b, rng_t *r, int extra = 0, double *xe = NULL)
{
    __syncthreads();   /* v may still be read */
    if (b->tid == 0)
        for (int i = 0; i < b->n + extra; i++)
            b->v[i] = rng_normal(r);
    __syncthreads();
    if (extra)
        *xe = b->v[b->n];
    return b->tid < b->n ? b->v[b->tid] : 0.0;
}

/* ------------------------------------------------------------------ the problem */

/* x* of bin/osb/ter into v (problem.c's draw_discrete), thread 0 alone.
 * With K nonzeros, v[k] (k < K) ends as ±(position + 1): the shuffle's
 * first K positions and their signs, for every thread to find its own. */
__device__ static void draw_xstar(block_t *b, rng_t *r, int kind, int K)
{
    int n = b->n;
    if (K == 0) {
        for (int i = 0; i < n; i++) {
            if (kind == CS_SWEEP_CUDA_BIN) {
                b->v[i] = (rng_u64(r) >> 63) ? 1.0 : -1.0;
            } else if (kind == CS_SWEEP_CUDA_OSB) {
                b->v[i] = (double)(rng_u64(r) >> 63);
            } else {
                double u = rng_uniform(r);
                b->v[i] = u < 0.25 ? -1.0 : (u < 0.75 ? 0.0 : 1.0);
            }
        }
        return;
    }
    /* a partial Fisher–Yates shuffle of 0..N−1 (exact in doubles) */
    for (int i = 0; i < n; i++)
        b->v[i] = (double)i;
    for (int k = 0; k < K; k++) {
        int j = k + (int)rng_below(r, (uint64_t)(n - k));
        double t = b->v[k];
        b->v[k] = b->v[j];
        b->v[j] = t;
    }
    for (int k = 0; k < K; k++) {
        double s = kind == CS_SWEEP_CUDA_OSB ? 1.0 : ((rng_u64(r) >> 63) ? 1.0 : -1.0);
        b->v[k] = (b->v[k] + 1.0) * s;
    }
}

/* A (into Q's rows), x* and b = Ax* from the problem stream, then Q, c by
 * Gram–Schmidt twice: row j of Q is a combination of rows of A, and c_j
 * the same combination of b. Returns x*_i (0 for an idle thread). */
__device__ static double make_problem(block_t *b, const cs_sweep_cuda_job *job, uint64_t stream)
{
    int n = b->n, m = b->m, tid = b->tid;
    if (tid == 0) {
        rng_t r;
        rng_init(&r, job->seed, stream);
        for (int j = 0; j < m; j++)
            for (int i = 0; i < n; i++)
                b->Q[(size_t)j * b->ld + i] = rng_normal(&r);
        draw_xstar(b, &r, job->kind, job->K);
    }
    __syncthreads();
    double xs = tid < n ? b->v[tid] : 0.0;
    if (job->K > 0) {   /* this entry's nonzero, if it has one */
        xs = 0.0;
        for (int k = 0; k < job->K && tid < n; k++)
            if (fabs(b->v[k]) == (double)(tid + 1))
                xs = b->v[k] > 0.0 ? 1.0 : -1.0;
        __syncthreads();
        if (tid < n)
            b->v[tid] = xs;
        __syncthreads();
    }
    for (int j = tid; j < m; j += blockDim.x) {
        const double *a = b->Q + (size_t)j * b->ld;
        double s = 0.0;
        for (int i = 0; i < n; i++)
            s += a[i] * b->v[i];
        b->c[j] = s;
    }
    __syncthreads();
    for (int j = 0; j < m; j++) {
        double *qj = b->Q + (size_t)j * b->ld;
        for (int pass = 0; pass < 2; pass++) {
            for (int k = tid; k < j; k += blockDim.x) {
                const double *qk = b->Q + (size_t)k * b->ld;
                double s = 0.0;
                for (int i = 0; i < n; i++)
                    s += qk[i] * qj[i];
                b->t[k] = s;
            }
            __syncthreads();
            if (tid < n) {
                double s = 0.0;
                for (int k = 0; k < j; k++)
                    s += b->t[k] * b->Q[(size_t)k * b->ld + tid];
                qj[tid] -= s;
            }
            if (tid == 0) {
                double s = 0.0;
                for (int k = 0; k < j; k++)
                    s += b->t[k] * b->c[k];
                b->c[j] -= s;
            }
            __syncthreads();
        }
        double q = tid < n ? qj[tid] : 0.0;
        double nrm = sqrt(bsum1(b, q * q));
        if (tid < n)
            qj[tid] = q / nrm;
        if (tid == 0)
            b->c[j] /= nrm;
        __syncthreads();
    }
    return xs;
}

/* ---------------------------------------------------------- ℓbin, ℓosb, ℓter (reg_fast.c) */

/* f = N Σ(x² − β)², β = Σx²/N (ss = Σx², summed by the caller), and this
 * entry's gradient 4N x (x² − β); *finite: f and every gradient entry are
 * finite */
__device__ static double f_bin_ss(block_t *b, double x, double ss, double *g, int *finite)
{
    int on = b->tid < b->n;
    double nn = (double)b->n;
    double beta = ss / nn;
    double p = on ? x * x - beta : 0.0;
    double gi = 4.0 * nn * x * p;
    double v[2] = {p * p, on ? gi * 0.0 : 0.0};
    bsum(b, v, 2);
    double f = nn * v[0];
    if (g)
        *g = on ? gi : 0.0;
    *finite = isfinite(f) && (!g || v[1] == 0.0);
    return f;
}

/* The sums over the entries ℓ needs before its value: Σx² (bin); Σx² and
 * Σx³ (osb) or Σx⁴ (ter). This entry's terms (0 for an idle thread). */
__device__ static void reg_moments(const block_t *b, int reg, double x, double *m)
{
    int on = b->tid < b->n;
    double a = x * x;
    m[0] = on ? a : 0.0;
    if (reg != CS_SWEEP_CUDA_REG_BIN)
        m[1] = on ? (reg == CS_SWEEP_CUDA_REG_TER ? a * a : a * x) : 0.0;
}

/* their block sums (a constant count in each branch, so m stays in registers) */
__device__ static void bsum_moments(block_t *b, int reg, double *m)
{
    if (reg == CS_SWEEP_CUDA_REG_BIN)
        bsum(b, m, 1);
    else
        bsum(b, m, 2);
}

/* ℓ from its moments' block sums m, and this entry's gradient into *g (g
 * may be NULL). ℓosb (p = 2) and ℓter (p = 3) as reg_fast.c's osb_ter:
 * ℓ = ‖x‖²‖r‖², r = x^p − βx, β = Σx^{p+1}/‖x‖², ∂ℓ/∂x = 2‖x‖² p x^{p−1} r
 * + 2(‖r‖² x − β‖x‖² r). *finite: f finite, and for bin every gradient
 * entry too; osb/ter's gradient needs ‖r‖² first, so its check is this
 * entry's g·0 in *gbad, for the caller to sum (0 for bin). */
__device__ static double f_reg(block_t *b, int reg, double x, const double *m, double *g,
                               double *gbad, int *finite)
{
    *gbad = 0.0;
    if (reg == CS_SWEEP_CUDA_REG_BIN)
        return f_bin_ss(b, x, m[0], g, finite);
    int on = b->tid < b->n, p3 = reg == CS_SWEEP_CUDA_REG_TER;
    double hh = m[0], gh = m[1];
    double beta = hh > 0.0 ? gh / hh : 0.0;
    double r = on ? (p3 ? x * x * x : x * x) - beta * x : 0.0;
    double rr = bsum1(b, r * r);
    double f = hh * rr;
    *finite = isfinite(f);
    if (g) {
        double k1 = 2.0 * hh, k2 = 2.0 * rr, k3 = 2.0 * beta * hh;
        double gp = p3 ? 3.0 * x * x : 2.0 * x;
        double gi = k1 * gp * r + (k2 * x - k3 * r);
        *g = on ? gi : 0.0;
        *gbad = on ? gi * 0.0 : 0.0;
    }
    return f;
}

/* ------------------------------------ the other regularizers (reg_fast_flat.c, reg_fast_holder.c,
 *                                       reg_baseline.c) */

/* e^(−x²) below this exponent is 0 (reg_gh4.h's NEGSQ_MIN) */
#define NEGSQ_MIN -708.25

__device__ static double sgn(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0); }

/* FISTA's objective by family, a kernel each (so that bin keeps its
 * registers). A family gives the sums of x its ℓ needs before the value
 * (NM moments: summed with the candidate's statistics, one reduction
 * less), the value from their block sums (value: this entry's gradient
 * into *g, g may be NULL; *gbad: g·0, the gradient's check, summed by
 * the caller where pend), and how the candidate's statistics are summed:
 * st[0..5), then (slot) the pending check of ∇f(x0) in st[5], then the
 * moments, at most RED_MAX in all (without slot the check is summed at
 * once). EXTRA: the variable may have one coordinate more than x
 * (beta=learn): xe, its gradient *ge, the same in every thread. */
typedef cs_sweep_cuda_job job_t;

/* bin, osb, ter (above) */
struct fam_poly {
    enum { NM = 2, EXTRA = 0 };
    __device__ static int pend(const job_t *j) { return j->fn != CS_SWEEP_CUDA_REG_BIN; }
    __device__ static int slot(const job_t *j) { return pend(j); }
    __device__ static void moments(block_t *b, const job_t *j, double x, double xe,
                                   double *m)
    {
        (void)xe;
        reg_moments(b, j->fn, x, m);
    }
    __device__ static void sum(block_t *b, const job_t *j, double *m) { bsum_moments(b, j->fn, m); }
    __device__ static void sum_st(block_t *b, const job_t *j, double *st)
    {
        if (j->fn == CS_SWEEP_CUDA_REG_BIN)   /* constant counts: st in registers */
            bsum(b, st, 6);
        else
            bsum(b, st, 8);
    }
    __device__ static double value(block_t *b, const job_t *j, double x, double xe,
                                   const double *m, double *g, double *ge, double *gbad,
                                   int *finite)
    {
        (void)xe;
        (void)ge;
        return f_reg(b, j->fn, x, m, g, gbad, finite);
    }
};

/* The CS form with h = 1 (reg_fast_flat.c): bbin, binexp, l2l1 and fixed
 * (g = x², the constant pair (α², 1) joins g and h): ℓ = ΣR²/‖h‖²,
 * R = fma(‖h‖², g, −Σg), ∂ℓ/∂x = 2g'R. */
struct fam_flat {
    enum { NM = 1, EXTRA = 0 };
    /* g and g' (reg_builtins.def's expressions) */
    __device__ static double gfun(int fn, double x, double *dg)
    {
        switch (fn) {
        case CS_SWEEP_CUDA_REG_BBIN: {
            double g = 1.0 / (1.0 + x * x);
            *dg = -2.0 * x * g * g;
            return g;
        }
        case CS_SWEEP_CUDA_REG_BINEXP: {
            double e = -x * x, g = e < NEGSQ_MIN ? 0.0 : exp(e);
            *dg = -2.0 * x * g;
            return g;
        }
        case CS_SWEEP_CUDA_REG_L2L1:
            *dg = sgn(x);
            return fabs(x);
        default:   /* fixed */
            *dg = 2.0 * x;
            return x * x;
        }
    }
    __device__ static int pend(const job_t *j) { return (void)j, 1; }
    __device__ static int slot(const job_t *j) { return (void)j, 1; }
    __device__ static void moments(block_t *b, const job_t *j, double x, double xe,
                                   double *m)
    {
        (void)xe;
        double dg, g = gfun(j->fn, x, &dg);
        m[0] = b->tid < b->n ? g : 0.0;
    }
    __device__ static void sum(block_t *b, const job_t *j, double *m) { (void)j, bsum(b, m, 1); }
    __device__ static void sum_st(block_t *b, const job_t *j, double *st)
    {
        (void)j, bsum(b, st, 7);
    }
    __device__ static double value(block_t *b, const job_t *j, double x, double xe,
                                   const double *m, double *g, double *ge, double *gbad,
                                   int *finite)
    {
        (void)xe;
        (void)ge;
        int on = b->tid < b->n, tail = j->fn == CS_SWEEP_CUDA_REG_FIXED;
        double a2 = j->alpha * j->alpha, hh = (double)b->n, gh = m[0];
        if (tail) {
            hh += 1.0;
            gh += a2;
        }
        double dg, gv = gfun(j->fn, x, &dg);
        double R = on ? fma(hh, gv, -gh) : 0.0;
        double RR = bsum1(b, R * R);
        if (tail) {
            double Rt = hh * a2 - gh;
            RR += Rt * Rt;
        }
        double f = hh > 0.0 ? RR / hh : 0.0;
        *finite = isfinite(f);
        *gbad = 0.0;
        if (g) {
            double gi = 2.0 * dg * R;
            *g = on ? gi : 0.0;
            *gbad = on ? gi * 0.0 : 0.0;
        }
        return f;
    }
};

/* The Hölder forms at p = q = 2 (reg_fast_holder.c, reg_holder.c): holder
 * D = P − Q and si D/(Q + ε), P = (‖g‖‖h‖)^r, Q = |⟨g,h⟩|^r, D from the
 * Lemma-1 residual ‖h‖²‖g − βh‖²; g, h of base bin, osb, ter, or |x|, 1
 * (l2l1h: holder at r = 1). Moments: Σg², Σgh, Σh² (the CPU's Σ|h|² is
 * Σh², summed alike). */
#define BASE_ABS 3
struct fam_holder {
    enum { NM = 3, EXTRA = 0 };
    __device__ static int base(const job_t *j)
    {
        return j->fn == CS_SWEEP_CUDA_REG_L2L1H ? BASE_ABS : j->base;
    }
    /* g, g', h, h' of the base (reg_builtins.def) */
    __device__ static void gh(int bs, double x, double *g, double *dg, double *h, double *dh)
    {
        switch (bs) {
        case CS_SWEEP_CUDA_REG_OSB: *g = x * x, *dg = 2.0 * x, *h = x, *dh = 1.0; break;
        case CS_SWEEP_CUDA_REG_TER: *g = x * x * x, *dg = 3.0 * x * x, *h = x, *dh = 1.0; break;
        case BASE_ABS: *g = fabs(x), *dg = sgn(x), *h = 1.0, *dh = 0.0; break;
        default: *g = x * x, *dg = 2.0 * x, *h = 1.0, *dh = 0.0; break;
        }
    }
    __device__ static int pend(const job_t *j) { return (void)j, 1; }
    /* h = 1: two moments (Σh² = N), so the check fits the candidate's sum */
    __device__ static int slot(const job_t *j)
    {
        return base(j) == CS_SWEEP_CUDA_REG_BIN || base(j) == BASE_ABS;
    }
    __device__ static void moments(block_t *b, const job_t *j, double x, double xe,
                                   double *m)
    {
        (void)xe;
        int on = b->tid < b->n;
        double g, dg, h, dh;
        gh(base(j), x, &g, &dg, &h, &dh);
        double wg = fabs(g);
        m[0] = on ? wg * wg : 0.0;
        m[1] = on ? g * h : 0.0;
        m[2] = on ? h * h : 0.0;
    }
    __device__ static void sum(block_t *b, const job_t *j, double *m) { (void)j, bsum(b, m, 3); }
    __device__ static void sum_st(block_t *b, const job_t *j, double *st)
    {
        (void)j, bsum(b, st, 8);
    }
    __device__ static double value(block_t *b, const job_t *j, double x, double xe,
                                   const double *m, double *g, double *ge, double *gbad,
                                   int *finite)
    {
        (void)xe;
        (void)ge;
        int on = b->tid < b->n, bs = base(j), si = j->fn == CS_SWEEP_CUDA_REG_SI;
        int flat = bs == CS_SWEEP_CUDA_REG_BIN || bs == BASE_ABS;   /* h = 1 */
        double r = j->fn == CS_SWEEP_CUDA_REG_L2L1H ? 1.0 : j->r, nn = (double)b->n;
        double sg = m[0], c = m[1], hh = flat ? nn : m[2], sh = hh;
        /* cs_holder_norms at p = q = 2 */
        double A = sqrt(sg), B = sqrt(sh), aa = A * B, bq = fabs(c);
        double P = r == 1.0 ? aa : pow(aa, r), Q = r == 1.0 ? bq : pow(bq, r);
        double gv, dg, hv, dh, D;
        gh(bs, x, &gv, &dg, &hv, &dh);
        if (hh > 0.0) {   /* cs_holder_lemma1 */
            double beta = c / hh, e = on ? gv - beta * hv : 0.0;
            double d2 = hh * bsum1(b, e * e);
            D = r == 2.0 ? d2 : cs_dx_pow_diff(aa, bq, aa + bq == 0.0 ? 0.0 : d2 / (aa + bq), r);
        } else {
            D = P > Q ? P - Q : 0.0;
        }
        double f = cs_dx_holder_tail(D, P, Q, A, B, c, r, si, j->eps, on, gv, dg, hv, dh, g,
                                     finite);
        *gbad = g && on ? *g * 0.0 : 0.0;   /* NaN when the gradient is not finite */
        return f;
    }
};

/* The Hölder forms at other p, q (reg_holder.c as cs_reg_eval_fast runs it:
 * not the fused kernel): x rescaled by 2^-e (max|x|·2^-e in [0.5, 1)), the
 * sums of (|g|/max|g|)^p and (|h|/max|h|)^q, D = P − Q directly (no Lemma
 * 1), the value and gradient scaled back (scale2). max|x| is a block
 * maximum; max|g| and max|h| are g and h at max|x|·2^-e (bin, osb, ter:
 * |g|, |h| rounded are monotone in |x|). Moments: Σtg, Σgh, Σth, and
 * max|x| (m[3], not summed). */
struct fam_holder_pq {
    enum { NM = 4, EXTRA = 0 };
    /* the rescaling, the terms and the tail: sweep_expr.cuh's, shared with
     * the defined forms */
    __device__ static int flat(const job_t *j) { return j->base == CS_SWEEP_CUDA_REG_BIN; }
    __device__ static int pend(const job_t *j) { return (void)j, 1; }
    /* h = 1 (bin): Σth = N, two sums, so the check fits the candidate's */
    __device__ static int slot(const job_t *j) { return flat(j); }
    /* max|g|, max|h| of the rescaled x */
    __device__ static void gh_max(const job_t *j, const cs_dx_scale &sc, double *mg, double *mh)
    {
        double g, dg, h, dh;
        fam_holder::gh(j->base, sc.top, &g, &dg, &h, &dh);
        *mg = fabs(g);
        *mh = fabs(h);
    }
    __device__ static void moments(block_t *b, const job_t *j, double x, double xe, double *m)
    {
        (void)xe;
        int on = b->tid < b->n;
        double mx = bmax(b, on ? fabs(x) : 0.0);
        cs_dx_scale sc = cs_dx_scale_of(mx);
        double g, dg, h, dh, mg, mh;
        fam_holder::gh(j->base, cs_dx_at(sc, x), &g, &dg, &h, &dh);
        gh_max(j, sc, &mg, &mh);
        cs_dx_pq_terms(on, g, h, mg, mh, j->p, j->q, m);
        m[3] = mx;
    }
    __device__ static void sum(block_t *b, const job_t *j, double *m) { (void)j, bsum(b, m, 3); }
    __device__ static void sum_st(block_t *b, const job_t *j, double *st)
    {
        (void)j, bsum(b, st, 8);
    }
    __device__ static double value(block_t *b, const job_t *j, double x, double xe,
                                   const double *m, double *g, double *ge, double *gbad,
                                   int *finite)
    {
        (void)xe;
        (void)ge;
        int on = b->tid < b->n;
        /* P and Q's degree: g of degree 2 (bin, osb) or 3 (ter), h 0 (bin) or 1 */
        double deg = j->r * ((j->base == CS_SWEEP_CUDA_REG_TER ? 3.0 : 2.0) +
                             (flat(j) ? 0.0 : 1.0));
        cs_dx_scale sc = cs_dx_scale_of(m[3]);
        cs_dx_hpq s = {0.0, 0.0, 0.0, 0.0, 0.0, j->p, j->q, j->r, j->eps, deg, sc.e,
                       j->fn == CS_SWEEP_CUDA_REG_SI, !(m[3] > 0.0)};
        double gv = 0.0, dg = 0.0, hv = 0.0, dh = 0.0;
        if (!s.zero) {   /* x = 0: the zero set (find_scale), nothing summed */
            fam_holder::gh(j->base, cs_dx_at(sc, x), &gv, &dg, &hv, &dh);
            gh_max(j, sc, &s.mg, &s.mh);
            s.sg = m[0];
            s.sh = flat(j) ? (double)b->n : m[2];
            s.c = m[1];
        }
        double f = cs_dx_holder_pq(&s, on, gv, dg, hv, dh, g, finite);
        *gbad = g && on ? *g * 0.0 : 0.0;   /* NaN when the gradient is not finite */
        return f;
    }
};

/* beta (reg_baseline.c): Σ(x² − β)², β fixed or (learn_beta) the extra
 * coordinate xe, ∂/∂β = −2Σ(x² − β). Moments: Σ(x² − β)², Σ(x² − β). */
struct fam_beta {
    enum { NM = 2, EXTRA = 1 };
    __device__ static double beta(const job_t *j, double xe)
    {
        return j->learn_beta ? xe : j->beta;
    }
    __device__ static int pend(const job_t *j) { return (void)j, 1; }
    __device__ static int slot(const job_t *j) { return (void)j, 1; }
    __device__ static void moments(block_t *b, const job_t *j, double x, double xe,
                                   double *m)
    {
        int on = b->tid < b->n;
        double t = x * x - beta(j, xe);
        m[0] = on ? t * t : 0.0;
        m[1] = on ? t : 0.0;
    }
    __device__ static void sum(block_t *b, const job_t *j, double *m) { (void)j, bsum(b, m, 2); }
    __device__ static void sum_st(block_t *b, const job_t *j, double *st)
    {
        (void)j, bsum(b, st, 8);
    }
    __device__ static double value(block_t *b, const job_t *j, double x, double xe,
                                   const double *m, double *g, double *ge, double *gbad,
                                   int *finite)
    {
        int on = b->tid < b->n;
        double f = m[0];
        *finite = isfinite(f);
        *gbad = 0.0;
        if (g) {
            double gi = 4.0 * x * (x * x - beta(j, xe));
            *g = on ? gi : 0.0;
            *gbad = on ? gi * 0.0 : 0.0;
            *ge = j->learn_beta ? -2.0 * m[1] : 0.0;
            *finite = *finite && isfinite(*ge);
        }
        return f;
    }
};

/* A regularizer made by reg define (sweep_expr.cuh): g and h by the
 * interpreter from the job's code (device memory), the CS form or holder,
 * si, as the CPU's solver path computes them; PQ: holder, si at p, q other
 * than 2 (rescaled, with block maxima of |x|, |g|, |h|: a kernel of their
 * own, so that the others keep their registers). Moments: sweep_expr.cuh's,
 * three summed; g and h are evaluated again for the value (the
 * interpreter's slots are the registers a cache would take). */
template <int PQ> struct fam_defined {
    enum { NM = CS_DX_NM, EXTRA = 0 };
    struct block_red {   /* sweep_expr.cuh's RED: the block's reductions */
        block_t *b;
        __device__ void operator()(double *v, int k) { bsum(b, v, k); }
        /* the largest of v[0..k) (k <= RED_MAX) over the block (bmax's, k at once) */
        __device__ void max(double *v, int k)
        {
            int lane = b->tid & 31, warp = b->tid >> 5, nw = (int)(blockDim.x >> 5);
            for (int i = 0; i < k; i++)
                for (int o = 16; o > 0; o >>= 1)
                    v[i] = fmax(v[i], __shfl_xor_sync(0xffffffffu, v[i], o));
            double (*r)[RED_MAX] = b->red[b->parity];
            if (lane == 0)
                for (int i = 0; i < k; i++)
                    r[warp][i] = v[i];
            __syncthreads();
            for (int i = 0; i < k; i++) {
                double m = r[0][i];
                for (int w = 1; w < nw; w++)
                    m = fmax(m, r[w][i]);
                v[i] = m;
            }
            b->parity ^= 1;   /* as bsum's */
        }
    };
    __device__ static int pend(const job_t *j) { return (void)j, 1; }
    /* three moments: the candidate's sum has no room for the check */
    __device__ static int slot(const job_t *j) { return (void)j, 0; }
    __device__ static void moments(block_t *b, const job_t *j, double x, double xe,
                                   double *m)
    {
        (void)xe;
        block_red red = {b};
        cs_dx_moments<PQ>(j->defined, red, x, b->tid < b->n, m);
    }
    __device__ static void sum(block_t *b, const job_t *j, double *m)
    {
        (void)j, bsum(b, m, CS_DX_NSUM);
    }
    __device__ static void sum_st(block_t *b, const job_t *j, double *st)
    {
        (void)j, bsum(b, st, 5 + CS_DX_NSUM);
    }
    __device__ static double value(block_t *b, const job_t *j, double x, double xe,
                                   const double *m, double *g, double *ge, double *gbad,
                                   int *finite)
    {
        (void)xe;
        (void)ge;
        int on = b->tid < b->n;
        block_red red = {b};
        double gi = 0.0;
        double f = cs_dx_value<PQ>(j->defined, red, x, on, m, g ? &gi : NULL, finite);
        *gbad = 0.0;
        if (g) {
            *g = gi;
            *gbad = on ? gi * 0.0 : 0.0;
        }
        return f;
    }
};

/* ℓ at x with its moments summed here; *finite covers the gradient too */
template <class F>
__device__ static double f_at(block_t *b, const job_t *j, double x, double xe, double *g,
                              double *ge, int *finite)
{
    double m[F::NM], gbad;
    F::moments(b, j, x, xe, m);
    F::sum(b, j, m);
    double f = F::value(b, j, x, xe, m, g, ge, &gbad, finite);
    if (g && F::pend(j))
        *finite = bsum1(b, gbad) == 0.0 && *finite;
    return f;
}

/* ------------------------------------------------------------------ FISTA (fista.c) */

struct outcome_t {
    int success, starts;
    long iters;
};

/* One start from x0 (xe: the extra coordinate, F::EXTRA): the FISTA
 * stepper's accelerated mode with restart and backtracking on ℓ. An
 * infeasible x0's first step starts from P(x0), as the stepper's; the
 * extra coordinate is free (P leaves it, its direction is its gradient).
 * Returns the best iterate's relative error (x alone). */
template <class F>
__device__ static double fista_start(block_t *b, const job_t *j, double x0, double x0e,
                                     int feasible, double xs, double xs_norm, rng_t *r,
                                     long *iters)
{
    enum { NST = 5 + 1 + F::NM };   /* the statistics, the pending check, the moments */
    int on = b->tid < b->n;
    const int lrn = F::EXTRA && j->learn_beta;
    const int gn = needs_gnorm(j->stop), slot = F::slot(j);
    /* L at two random points (thread 0 draws r1 then r2, each n + extra) */
    double r1e = 0.0, r2e = 0.0;
    double r1 = draw_normal(b, r, lrn, &r1e), r2 = draw_normal(b, r, lrn, &r2e);
    double ga, gb, gae = 0.0, gbe = 0.0;
    int fa, fb;
    f_at<F>(b, j, r1, r1e, &ga, &gae, &fa);
    f_at<F>(b, j, r2, r2e, &gb, &gbe, &fb);
    double tau = first_step(b, on, fa && fb, r1, r2, ga, gb, (gae - gbe) * (gae - gbe),
                            (r2e - r1e) * (r2e - r1e));
    /* gpend: g0's check g·0, summed with the next candidate (slot) */
    double g0, g0e = 0.0, m0[F::NM], gpend;
    int fin;
    F::moments(b, j, x0, x0e, m0);
    F::sum(b, j, m0);
    double f_start = F::value(b, j, x0, x0e, m0, &g0, &g0e, &gpend, &fin);
    double g0norm = gn ? sqrt(bsum1(b, on ? g0 * g0 : 0.0) + g0e * g0e) : 0.0;
    double xa1 = x0, best = x0, x1 = x0, xa1e = x0e, beste = x0e, x1e = x0e;
    double alpha = 1.0, best_obj = INFINITY, max_resid = -INFINITY;
    double fwin[FISTA_WINDOW];
    long it = 0;
    /* without a slot, ∇f(x0)'s check at once */
    int diverged = !slot && F::pend(j) && bsum1(b, gpend) != 0.0;
    (void)beste;
    while (!diverged) {
        long i = it + 1;
        double d = project(b, g0, 0);
        /* the step starts from P(x0) while x0 is infeasible (the first) */
        double base = feasible ? x0 : project(b, x0, 1);
        feasible = 1;
        /* the candidate x1 = base − τd and its statistics st[0..5), g0's
         * pending check (st[5], slot) and ℓ's moments of x1 (after it) */
        double st[NST], f1;
        for (int bt = 0;; bt++) {
            x1 = base - tau * d;
            double dx = x1 - x0, h = dx + tau * g0, e = x1 - xs;
            st[0] = on ? dx * g0 : 0.0;
            st[1] = on ? dx * dx : 0.0;
            st[2] = on ? h * h : 0.0;
            st[3] = on ? -dx * (x1 - xa1) : 0.0;
            st[4] = on ? e * e : 0.0;
            if (lrn)
                x1e = x0e - tau * g0e;
            /* ℓ's sums of x1: one reduction less (constant offsets: st
             * stays in registers) */
            if (slot) {
                st[5] = bt == 0 ? gpend : 0.0;
                F::moments(b, j, x1, x1e, st + 6);
            } else {
                F::moments(b, j, x1, x1e, st + 5);
            }
            F::sum_st(b, j, st);
            if (lrn) {   /* the extra coordinate's terms, after the block's */
                double dxe = x1e - x0e, he = dxe + tau * g0e;
                st[0] += dxe * g0e;
                st[1] += dxe * dxe;
                st[2] += he * he;
                st[3] -= dxe * (x1e - xa1e);
            }
            if (slot && st[5] != 0.0) {   /* ∇f(x0) was not finite: diverged before this step */
                diverged = 1;
                break;
            }
            int ok;
            double gbad;
            f1 = slot ? F::value(b, j, x1, x1e, st + 6, NULL, NULL, &gbad, &ok)
                      : F::value(b, j, x1, x1e, st + 5, NULL, NULL, &gbad, &ok);
            if (!ok)
                f1 = INFINITY;
            double Mx = window_max(fwin, i, f_start);
            double bound = Mx + st[0] + st[1] / (2.0 * tau);
            if (!(f1 - 1e-12 > bound && bt < FISTA_MAX_BACKTRACKS))
                break;
            tau *= 0.5;
        }
        if (diverged)
            break;
        fwin[(i - 1) % FISTA_WINDOW] = f1;
        if (f1 < best_obj) {
            best_obj = f1;
            best = x1;
            if (lrn)
                beste = x1e;
        }
        double metric = sqrt(st[4]) / xs_norm;
        int hit = metric < j->success_tol;
        /* the residual rules: ‖Δx‖/τ, its largest so far, and normalized
         * by max(‖∇f(x0)‖, ‖x1 − (x0 − τ∇f(x0))‖/τ) */
        double resid = sqrt(st[1]) / tau;
        if (resid > max_resid)
            max_resid = resid;
        double nres = gn ? resid / (fmax(g0norm, sqrt(st[2]) / tau) + 1e-8) : 0.0;
        it = i;
        if (!isfinite(f1) || stop_fires(j->stop, hit, resid, max_resid, nres, j->tol) ||
            i >= j->maxit)
            break;
        /* accelerate: xa0 ← xa1, xa1 ← x1, y = x1 + c(x1 − xa0) */
        double alpha0 = st[3] > 0.0 ? 1.0 : alpha;
        double alpha1 = (1.0 + sqrt(1.0 + 4.0 * alpha0 * alpha0)) / 2.0;
        double cc = (alpha0 - 1.0) / alpha1;
        double y = x1 + cc * (x1 - xa1), ye = 0.0;
        xa1 = x1;
        if (lrn) {
            ye = x1e + cc * (x1e - xa1e);
            xa1e = x1e;
        }
        alpha = alpha1;
        double my[F::NM];
        F::moments(b, j, y, ye, my);
        F::sum(b, j, my);
        double fy = F::value(b, j, y, ye, my, &g0, &g0e, &gpend, &fin);
        if (!fin || (!slot && F::pend(j) && bsum1(b, gpend) != 0.0))
            break;   /* diverged */
        if (gn)
            g0norm = sqrt(bsum1(b, on ? g0 * g0 : 0.0) + g0e * g0e);
        fwin[(i - 1) % FISTA_WINDOW] = fy;
        x0 = y;
        x0e = ye;
    }
    *iters += it;
    double e = best - xs;
    return sqrt(bsum1(b, on ? e * e : 0.0)) / xs_norm;
}

template <class F>
__device__ static void fista_trial(block_t *b, double xs, double xs_norm, rng_t *r,
                                   const job_t *j, outcome_t *out)
{
    const int lrn = F::EXTRA && j->learn_beta;
    int on = b->tid < b->n;
    for (int s = 1; s <= j->max_starts; s++) {
        double x0 = draw_normal(b, r, 0, NULL), x0e = 0.0;
        /* solver_start.c: the extra coordinate at mean(x0²) before the projection */
        if (lrn)
            x0e = bsum1(b, on ? x0 * x0 : 0.0) / (double)b->n;
        int feasible = !(s == 1 && j->first_start_raw);
        if (feasible)
            x0 = project(b, x0, 1);
        out->starts = s;
        double err = fista_start<F>(b, j, x0, x0e, feasible, xs, xs_norm, r, &out->iters);
        if (err <= j->success_tol) {
            out->success = 1;
            return;
        }
    }
}

/* ------------------------------------------------------------------ Douglas–Rachford (dr.c) */

/* Σ_{|w| > θ} |w| and the count, over the block */
__device__ static void active(block_t *b, double w, double theta, double *s, double *cnt)
{
    double a = fabs(w), v[2] = {0.0, 0.0};
    if (b->tid < b->n && a > theta) {
        v[0] = a;
        v[1] = 1.0;
    }
    bsum(b, v, 2);
    *s = v[0];
    *cnt = v[1];
}

/* cs_linf_threshold: Michelot's iteration from the hint */
__device__ static double linf_threshold(block_t *b, double w, double t, double hint)
{
    double s = 0.0, cnt = 0.0;
    if (hint > 0.0)
        active(b, w, hint, &s, &cnt);
    if (cnt == 0.0) {
        active(b, w, -1.0, &s, &cnt);
        if (!(s > t))
            return 0.0;
        cnt = (double)b->n;
    }
    double theta = (s - t) / cnt;
    for (int pass = 0; pass < b->n; pass++) {
        double s2, c2;
        active(b, w, theta, &s2, &c2);
        if (c2 == cnt || c2 == 0.0)
            break;
        cnt = c2;
        theta = (s2 - t) / c2;
    }
    return theta > 0.0 ? theta : 0.0;
}

/* y = prox(w): ℓ∞ clip(w, −a, a) at the threshold a (θ, the last step's
 * a as the hint); ℓ1 sign(w)·max(|w| − t, 0) */
__device__ static double dr_prox(block_t *b, int prox, double w, double t, double *theta)
{
    if (prox == CS_SWEEP_CUDA_PROX_L1) {
        double m = fabs(w) - t;
        return m > 0.0 ? copysign(m, w) : 0.0;
    }
    double a = *theta = linf_threshold(b, w, t, *theta);
    double lo = a > 0.0 ? -a : 0.0;
    return w > a ? a : (w < lo ? lo : w);
}

__device__ static void dr_trial(block_t *b, double xs, double xs_norm, rng_t *r,
                                const cs_sweep_cuda_job *j, outcome_t *out)
{
    int on = b->tid < b->n;
    double x = draw_normal(b, r), z = 0.0, theta = 0.0, metric = INFINITY, max_resid = 0.0;
    long it = 0;
    out->starts = 1;
    for (;;) {
        double w = 2.0 * x - z;
        double y = dr_prox(b, j->fn, w, j->dr_t, &theta);
        double dz = y - x;
        z += dz;
        x = project(b, z, 1);
        double e = x - xs, v[3] = {on ? x * x : 0.0, on ? e * e : 0.0, on ? dz * dz : 0.0};
        bsum(b, v, 3);
        metric = sqrt(v[1]) / xs_norm;
        it++;
        /* the rules on the fixed-point residual ‖z⁺ − z‖ (dr.c) */
        double resid = sqrt(v[2]), nres = resid / (sqrt(v[0]) + 1e-8);
        if (resid > max_resid)
            max_resid = resid;
        if (!isfinite(v[0]) ||
            stop_fires(j->stop, metric < j->success_tol, resid, max_resid, nres, j->tol) ||
            it >= j->maxit)
            break;
    }
    out->iters = it;
    out->success = metric <= j->success_tol;
}

/* ---------------------------------------------------------- 2bit (solver_fns.c, fista.c) */

/* Kind 2bit: the variable is y = (y1, y2), 2N entries (a thread each),
 * x = y1 + y2; A (M×N, Q's rows, unprojected) and b (c) as drawn, r (t)
 * and y (the N entries of v after the first N: v holds 2N here). */

/* A, x* = y1 + y2 (y1 ∈ {±1}^N, then y2 ∈ {±2}^N) and b = Ax*, as
 * cs_problem_new draws them; returns x*_i for i < N (0 above) */
__device__ static double make_problem_2bit(block_t *b, const cs_sweep_cuda_job *job,
                                           uint64_t stream)
{
    int N = b->nx, m = b->m, tid = b->tid;
    if (tid == 0) {
        rng_t r;
        rng_init(&r, job->seed, stream);
        for (int j = 0; j < m; j++)
            for (int i = 0; i < N; i++)
                b->Q[(size_t)j * b->ld + i] = rng_normal(&r);
        for (int i = 0; i < N; i++)
            b->v[i] = (rng_u64(&r) >> 63) ? 1.0 : -1.0;
        for (int i = 0; i < N; i++)
            b->v[i] += (rng_u64(&r) >> 63) ? 2.0 : -2.0;
    }
    __syncthreads();
    double xs = tid < N ? b->v[tid] : 0.0;
    for (int k = tid; k < m; k += blockDim.x) {
        const double *a = b->Q + (size_t)k * b->ld;
        double s = 0.0;
        for (int i = 0; i < N; i++)
            s += a[i] * b->v[i];
        b->c[k] = s;
    }
    __syncthreads();
    return xs;
}

/* f = ‖Ax − b‖² + λ(K·N·Σy⁴ − (Σ_b h_b‖y_b‖²)²), K = 17, h = 1, 4 (ℓequ
 * for B = 2), and this entry's gradient 2(Aᵀr)_i + λ·4y(K·N·y² − h·S).
 * The residual and its gradient in the CPU's order (solver_fg_2bit); the
 * sums over entries by the block. */
__device__ static double f_2bit(block_t *b, double lambda, double y, double *g)
{
    int N = b->nx, n = b->n, tid = b->tid, on = tid < n;
    const double K = 17.0;
    __syncthreads();   /* v may still be read */
    if (on)
        b->v[tid] = y;
    __syncthreads();
    for (int k = tid; k < b->m; k += blockDim.x) {
        const double *a = b->Q + (size_t)k * b->ld;
        double v = -b->c[k];
        for (int i = 0; i < N; i++)
            v += a[i] * (b->v[i] + b->v[N + i]);
        b->t[k] = v;
    }
    __syncthreads();
    double h = tid < N ? 1.0 : 4.0, y2 = y * y;
    double s[3] = {on ? y2 * y2 : 0.0, on ? h * y2 : 0.0,
                   tid < b->m ? b->t[tid] * b->t[tid] : 0.0};
    for (int k = tid + (int)blockDim.x; k < b->m; k += blockDim.x)
        s[2] += b->t[k] * b->t[k];
    bsum(b, s, 3);
    double fe = K * (double)N * s[0] - s[1] * s[1];
    if (g) {
        double ge = 4.0 * y * (K * (double)N * y * y - h * s[1]) * lambda, at = 0.0;
        for (int k = 0; k < b->m && on; k++)
            at += b->Q[(size_t)k * b->ld + tid % N] * b->t[k];
        *g = on ? ge + 2.0 * at : 0.0;
    }
    return s[2] + lambda * fe;
}

/* ‖(y1 + y2) − x*‖/‖x*‖ (cs_problem_rel_err); xs: x*_i for i < N */
__device__ static double rel_err_2bit(block_t *b, double y, double xs, double xs_norm)
{
    int N = b->nx;
    __syncthreads();
    if (b->tid < b->n)
        b->v[b->tid] = y;
    __syncthreads();
    double e = b->tid < N ? b->v[b->tid] + b->v[N + b->tid] - xs : 0.0;
    return sqrt(bsum1(b, e * e)) / xs_norm;
}

/* One start from y0: the FISTA stepper's adaptive mode (not accelerated:
 * Barzilai–Borwein steps, backtracking ×0.2), as the CPU runs 2bit.
 * Returns the best iterate's relative error. */
__device__ static double bb_start(block_t *b, const cs_sweep_cuda_job *j, double x0, double xs,
                                  double xs_norm, rng_t *r, long *iters)
{
    int on = b->tid < b->n;
    double r1 = draw_normal(b, r), r2 = draw_normal(b, r);
    double ga, gb;
    double fa = f_2bit(b, j->lambda, r1, &ga), fb = f_2bit(b, j->lambda, r2, &gb);
    double tau = first_step(b, on, isfinite(fa) && isfinite(fb), r1, r2, ga, gb);
    double g0, g1 = 0.0;
    double f_start = f_2bit(b, j->lambda, x0, &g0);
    double best = x0, x1 = x0, best_obj = INFINITY, max_resid = -INFINITY;
    /* the residual rules as fista.c's step_end (‖∇f(x0)‖: a sum more) */
    const int gn = needs_gnorm(j->stop);
    double g0norm = gn ? sqrt(bsum1(b, on ? g0 * g0 : 0.0)) : 0.0;
    double fwin[FISTA_WINDOW], st[3];
    long it = 0;
    for (;;) {
        long i = it + 1;
        double f1;
        for (int bt = 0;; bt++) {
            x1 = x0 - tau * g0;
            f1 = f_2bit(b, j->lambda, x1, &g1);
            if (!isfinite(f1))
                f1 = INFINITY;
            double dx = x1 - x0, h = dx + tau * g0;
            st[0] = on ? dx * g0 : 0.0;
            st[1] = on ? dx * dx : 0.0;
            st[2] = on && gn ? h * h : 0.0;
            bsum(b, st, gn ? 3 : 2);
            double Mx = window_max(fwin, i, f_start);
            double bound = Mx + st[0] + st[1] / (2.0 * tau);
            if (!(f1 - 1e-12 > bound && bt < FISTA_MAX_BACKTRACKS))
                break;
            tau *= 0.2;
        }
        fwin[(i - 1) % FISTA_WINDOW] = f1;
        if (f1 < best_obj) {
            best_obj = f1;
            best = x1;
        }
        int hit = rel_err_2bit(b, x1, xs, xs_norm) < j->success_tol;
        double resid = sqrt(st[1]) / tau;
        if (resid > max_resid)
            max_resid = resid;
        double nres = gn ? resid / (fmax(g0norm, sqrt(st[2]) / tau) + 1e-8) : 0.0;
        it = i;
        if (!isfinite(f1) || stop_fires(j->stop, hit, resid, max_resid, nres, j->tol) ||
            i >= j->maxit)
            break;
        /* Barzilai–Borwein: Δx = x1 − x0, Δg = ∇f(x1) − ∇f(x0) */
        double dx = x1 - x0, dg = g1 - g0;
        double v[3] = {on ? dx * dg : 0.0, on ? dg * dg : 0.0, on ? dx * dx : 0.0};
        bsum(b, v, 3);
        double tau_s = v[2] / v[0], tau_m = v[0] / v[1];
        if (!(tau_m > 0.0))
            tau_m = 0.0;
        double tau1 = 2.0 * tau_m > tau_s ? tau_m : tau_s - 0.5 * tau_m;
        if (!(tau1 > 0.0) || !isfinite(tau1))
            tau1 = tau * 1.5;
        tau = tau1;
        x0 = x1;
        g0 = g1;
        if (gn)
            g0norm = sqrt(bsum1(b, on ? g0 * g0 : 0.0));
    }
    *iters += it;
    return rel_err_2bit(b, best, xs, xs_norm);
}

__device__ static void bb_trial(block_t *b, double xs, double xs_norm, rng_t *r,
                                const cs_sweep_cuda_job *j, outcome_t *out)
{
    for (int s = 1; s <= j->max_starts; s++) {
        double y0 = draw_normal(b, r);
        out->starts = s;
        if (bb_start(b, j, y0, xs, xs_norm, r, &out->iters) <= j->success_tol) {
            out->success = 1;
            return;
        }
    }
}

/* ------------------------------------------------------------------ the kernel */

struct dev_job {
    cs_sweep_cuda_job j;              /* the host's, pointers unused */
    const uint64_t *pstream, *mstream;
    unsigned char *success;
    long long *iters;
    int *starts;
    unsigned long long *next;         /* the queue: the next trial to take */
};

/* A kernel per family (so that bin and the others keep their registers):
 * POLY (bin, osb, ter; Douglas–Rachford), FLAT, HOLDER, HOLDER_PQ, BETA, DEFINED
 * (above), and kind 2bit. */
enum { FAM_POLY, FAM_FLAT, FAM_HOLDER, FAM_HOLDER_PQ, FAM_BETA, FAM_DEFINED, FAM_DEFINED_PQ,
       FAM_2BIT };

template <int FAM> __device__ static void sweep_trials(const dev_job &dj)
{
    const bool TWO = FAM == FAM_2BIT;
    DYN_SHARED(double, smem);
    __shared__ double red[2][MAX_WARPS][RED_MAX];
    __shared__ long long take;
    const cs_sweep_cuda_job *j = &dj.j;
    block_t b;
    b.tid = (int)threadIdx.x;
    b.n = j->kind == CS_SWEEP_CUDA_2BIT ? 2 * j->N : j->N;
    b.nx = j->N;
    b.m = j->M;
    b.ld = j->N | 1;
    b.Q = smem;
    b.c = b.Q + (size_t)b.m * b.ld;
    b.t = b.c + b.m;
    b.v = b.t + b.m;   /* n + 1: beta=learn draws one more */
    b.red = red;
    b.parity = 0;
    for (;;) {
        if (b.tid == 0)
            take = (long long)atomicAdd(dj.next, 1ull);
        __syncthreads();
        long long t = take;
        __syncthreads();   /* everyone has read take before thread 0 writes it again */
        if (t >= j->trials)
            return;
        double xs = TWO ? make_problem_2bit(&b, j, dj.pstream[t])
                        : make_problem(&b, j, dj.pstream[t]);
        /* ‖x*‖ (exact: a sum of integers); 1 for x* = 0, as the CPU's oracle */
        double xs_norm = sqrt(bsum1(&b, xs * xs));
        if (!(xs_norm > 0.0))
            xs_norm = 1.0;
        rng_t r;   /* thread 0's: the others never draw */
        rng_init(&r, j->seed, dj.mstream[t]);
        outcome_t out = {0, 0, 0};
        if (TWO)
            bb_trial(&b, xs, xs_norm, &r, j, &out);
        else if (FAM == FAM_POLY && j->method == CS_SWEEP_CUDA_DR)
            dr_trial(&b, xs, xs_norm, &r, j, &out);
        else if (FAM == FAM_POLY)
            fista_trial<fam_poly>(&b, xs, xs_norm, &r, j, &out);
        else if (FAM == FAM_FLAT)
            fista_trial<fam_flat>(&b, xs, xs_norm, &r, j, &out);
        else if (FAM == FAM_HOLDER)
            fista_trial<fam_holder>(&b, xs, xs_norm, &r, j, &out);
        else if (FAM == FAM_HOLDER_PQ)
            fista_trial<fam_holder_pq>(&b, xs, xs_norm, &r, j, &out);
        else if (FAM == FAM_DEFINED)
            fista_trial<fam_defined<0>>(&b, xs, xs_norm, &r, j, &out);
        else if (FAM == FAM_DEFINED_PQ)
            fista_trial<fam_defined<1>>(&b, xs, xs_norm, &r, j, &out);
        else
            fista_trial<fam_beta>(&b, xs, xs_norm, &r, j, &out);
        if (b.tid == 0) {
            dj.success[t] = (unsigned char)out.success;
            dj.iters[t] = out.iters;
            dj.starts[t] = out.starts;
        }
        __syncthreads();   /* Q, c, v are rewritten by the next trial */
    }
}

/* The kernels, per family: for N <= 128 (up to four warps) with up to
 * 128 registers a thread, four blocks a multiprocessor (on an H100,
 * capping registers for six or eight blocks spilled and ran fig1a 7% and
 * 25% slower); for larger N, up to 1024 threads. */
template <int FAM> __global__ void __launch_bounds__(128, 4) sweep_small(dev_job dj)
{
    sweep_trials<FAM>(dj);
}
template <int FAM>
__global__ void __launch_bounds__(CS_SWEEP_CUDA_MAX_N, 1) sweep_any(dev_job dj)
{
    sweep_trials<FAM>(dj);
}
__global__ void __launch_bounds__(CS_SWEEP_CUDA_MAX_N, 1) sweep_2bit(dev_job dj)
{
    sweep_trials<FAM_2BIT>(dj);
}

typedef void (*kernel_fn)(dev_job);

static int entries(const cs_sweep_cuda_job *j);

/* the family of a FISTA job's regularizer (DR: POLY's kernel) */
static int family(const cs_sweep_cuda_job *j)
{
    if (j->kind == CS_SWEEP_CUDA_2BIT)
        return FAM_2BIT;
    if (j->method != CS_SWEEP_CUDA_FISTA)
        return FAM_POLY;
    switch (j->fn) {
    case CS_SWEEP_CUDA_REG_BBIN:
    case CS_SWEEP_CUDA_REG_BINEXP:
    case CS_SWEEP_CUDA_REG_L2L1:
    case CS_SWEEP_CUDA_REG_FIXED: return FAM_FLAT;
    case CS_SWEEP_CUDA_REG_HOLDER:
    case CS_SWEEP_CUDA_REG_SI:
        return j->p != 2.0 || j->q != 2.0 ? FAM_HOLDER_PQ : FAM_HOLDER;
    case CS_SWEEP_CUDA_REG_L2L1H: return FAM_HOLDER;
    case CS_SWEEP_CUDA_REG_BETA: return FAM_BETA;
    case CS_SWEEP_CUDA_REG_DEFINED:   /* check_job: the code is there */
        return cs_dx_pq(j->defined) ? FAM_DEFINED_PQ : FAM_DEFINED;
    default: return FAM_POLY;
    }
}

static kernel_fn pick_kernel(const cs_sweep_cuda_job *j)
{
    int big = entries(j) > 128;
    switch (family(j)) {
    case FAM_2BIT: return sweep_2bit;
    case FAM_FLAT: return big ? sweep_any<FAM_FLAT> : sweep_small<FAM_FLAT>;
    case FAM_HOLDER: return big ? sweep_any<FAM_HOLDER> : sweep_small<FAM_HOLDER>;
    case FAM_HOLDER_PQ: return big ? sweep_any<FAM_HOLDER_PQ> : sweep_small<FAM_HOLDER_PQ>;
    case FAM_BETA: return big ? sweep_any<FAM_BETA> : sweep_small<FAM_BETA>;
    case FAM_DEFINED: return big ? sweep_any<FAM_DEFINED> : sweep_small<FAM_DEFINED>;
    case FAM_DEFINED_PQ: return big ? sweep_any<FAM_DEFINED_PQ> : sweep_small<FAM_DEFINED_PQ>;
    default: return big ? sweep_any<FAM_POLY> : sweep_small<FAM_POLY>;
    }
}

/* ------------------------------------------------------------------ the host side */

/* the block's entries: a thread each */
static int entries(const cs_sweep_cuda_job *j)
{
    return j->kind == CS_SWEEP_CUDA_2BIT ? 2 * j->N : j->N;
}

static size_t smem_bytes(const cs_sweep_cuda_job *j)
{
    size_t ld = (size_t)(j->N | 1);
    return ((size_t)j->M * ld + 2 * (size_t)j->M + (size_t)entries(j) + 1) * sizeof(double);
}

static int fail(char *why, size_t len, const char *step, cudaError_t e)
{
    return sweep_cuda_fail("GPU sweep", why, len, step, e);
}

/* one job's device side */
struct job_bufs {
    uint64_t *ps, *ms;
    unsigned char *succ;
    long long *iters;
    int *starts;
    unsigned long long *next;
    cs_expr_reg_code *defined;   /* the job's, DEFINED */
    cudaStream_t stream;
};

static int check_job(const cs_sweep_cuda_job *j, char *why, size_t len)
{
    if (j->N < 1 || entries(j) > CS_SWEEP_CUDA_MAX_N || j->M < 1 || j->M > j->N ||
        j->trials < 1 || j->maxit < 1 || j->max_starts < 1 || j->K < 0 || j->K > j->N) {
        snprintf(why, len, "GPU sweep: N=%d M=%d K=%d trials=%ld: out of range (at most %d "
                 "entries)", j->N, j->M, j->K, j->trials, CS_SWEEP_CUDA_MAX_N);
        return -1;
    }
    int fns = j->method == CS_SWEEP_CUDA_FISTA        ? CS_SWEEP_CUDA_REG_COUNT
              : j->method == CS_SWEEP_CUDA_DR         ? CS_SWEEP_CUDA_PROX_L1 + 1
              : j->method == CS_SWEEP_CUDA_FISTA_2BIT ? 1
                                                      : 0;
    int is2 = j->kind == CS_SWEEP_CUDA_2BIT;
    if (j->fn < 0 || j->fn >= fns || j->kind < CS_SWEEP_CUDA_BIN ||
        j->kind > CS_SWEEP_CUDA_2BIT || (j->K > 0 && (j->kind == CS_SWEEP_CUDA_BIN || is2)) ||
        is2 != (j->method == CS_SWEEP_CUDA_FISTA_2BIT)) {
        snprintf(why, len, "GPU sweep: method %d, fn %d, kind %d, K=%d: not a job this module "
                 "runs", j->method, j->fn, j->kind, j->K);
        return -1;
    }
    int form = j->method == CS_SWEEP_CUDA_FISTA &&
               (j->fn == CS_SWEEP_CUDA_REG_HOLDER || j->fn == CS_SWEEP_CUDA_REG_SI);
    int beta = j->method == CS_SWEEP_CUDA_FISTA && j->fn == CS_SWEEP_CUDA_REG_BETA;
    if (j->stop < CS_SWEEP_CUDA_STOP_ORACLE || j->stop > CS_SWEEP_CUDA_STOP_RATIO ||
        !(j->tol >= 0.0) ||
        (form && (j->base < CS_SWEEP_CUDA_REG_BIN || j->base > CS_SWEEP_CUDA_REG_TER ||
                  !(j->r > 0.0) || !(j->eps >= 0.0) || !(j->p >= 1.0) || !(j->q >= 1.0))) ||
        (j->learn_beta && !beta)) {
        snprintf(why, len, "GPU sweep: stop %d, base %d, p=%g, q=%g, r=%g, eps=%g, learn_beta %d: "
                 "not a job this module runs", j->stop, j->base, j->p, j->q, j->r, j->eps,
                 j->learn_beta);
        return -1;
    }
    /* the interpreter trusts its code: checked here */
    if (j->method == CS_SWEEP_CUDA_FISTA && j->fn == CS_SWEEP_CUDA_REG_DEFINED &&
        (!j->defined || !cs_dx_reg_valid(j->defined))) {
        snprintf(why, len, "GPU sweep: the defined regularizer's code is %s",
                 j->defined ? "malformed" : "missing");
        return -1;
    }
    return 0;
}

static cudaError_t upload_job(const cs_sweep_cuda_job *j, job_bufs *b)
{
    size_t T = (size_t)j->trials;
    cudaError_t e;
    if ((e = cudaMalloc(&b->ps, T * sizeof *b->ps)) || (e = cudaMalloc(&b->ms, T * sizeof *b->ms)) ||
        (e = cudaMalloc(&b->succ, T)) || (e = cudaMalloc(&b->iters, T * sizeof *b->iters)) ||
        (e = cudaMalloc(&b->starts, T * sizeof *b->starts)) ||
        (e = cudaMalloc(&b->next, sizeof *b->next)) ||
        (e = cudaStreamCreate(&b->stream)))
        return e;
    if (j->method == CS_SWEEP_CUDA_FISTA && j->fn == CS_SWEEP_CUDA_REG_DEFINED &&
        ((e = cudaMalloc(&b->defined, sizeof *b->defined)) ||
         (e = cudaMemcpy(b->defined, j->defined, sizeof *b->defined, cudaMemcpyHostToDevice))))
        return e;
    if ((e = cudaMemcpy(b->ps, j->problem_stream, T * sizeof *b->ps, cudaMemcpyHostToDevice)) ||
        (e = cudaMemcpy(b->ms, j->method_stream, T * sizeof *b->ms, cudaMemcpyHostToDevice)))
        return e;
    return cudaMemset(b->next, 0, sizeof *b->next);
}

static cudaError_t download_job(const cs_sweep_cuda_job *j, const job_bufs *b)
{
    size_t T = (size_t)j->trials;
    long long *it = (long long *)malloc(T * sizeof *it);
    if (!it)
        return cudaErrorMemoryAllocation;
    cudaError_t e;
    if (!(e = cudaMemcpy(j->success, b->succ, T, cudaMemcpyDeviceToHost)) &&
        !(e = cudaMemcpy(it, b->iters, T * sizeof *it, cudaMemcpyDeviceToHost)) &&
        !(e = cudaMemcpy(j->starts, b->starts, T * sizeof *b->starts, cudaMemcpyDeviceToHost)))
        for (size_t t = 0; t < T; t++)
            j->iters[t] = (long)it[t];
    free(it);
    return e;
}

static void free_job(job_bufs *b)
{
    cudaFree(b->ps);
    cudaFree(b->ms);
    cudaFree(b->succ);
    cudaFree(b->iters);
    cudaFree(b->starts);
    cudaFree(b->next);
    cudaFree(b->defined);
    if (b->stream)
        cudaStreamDestroy(b->stream);
}

/* every job's kernel on its own stream: persistent blocks (as many as fit
 * the GPU) take trials from the job's queue, so when one job runs out of
 * trials its multiprocessors go to the next job's blocks */
static int launch_all(const cs_sweep_cuda_job *jobs, size_t njobs, job_bufs *bufs,
                      const cudaDeviceProp *prop, char *why, size_t len)
{
    cudaError_t e;
    size_t smax = 0;
    for (size_t k = 0; k < njobs; k++)
        smax = smem_bytes(&jobs[k]) > smax ? smem_bytes(&jobs[k]) : smax;
    if (smax > prop->sharedMemPerBlockOptin) {
        snprintf(why, len, "GPU sweep: M=%d, N=%d needs %zu KiB of shared memory per block; "
                 "this GPU has %zu KiB", jobs[0].M, jobs[0].N, smax / 1024,
                 (size_t)prop->sharedMemPerBlockOptin / 1024);
        return -1;
    }
    for (size_t k = 0; k < njobs; k++) {
        const cs_sweep_cuda_job *j = &jobs[k];
        kernel_fn kernel = pick_kernel(j);
        if ((e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)smax)) != cudaSuccess)
            return fail(why, len, "cudaFuncSetAttribute", e);
        size_t smem = smem_bytes(j);
        unsigned threads = (unsigned)((entries(j) + 31) / 32 * 32);
        int per_sm = 0;
        if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel,
                                                               (int)threads, smem)))
            return fail(why, len, "cudaOccupancyMaxActiveBlocksPerMultiprocessor", e);
        size_t blocks = (size_t)(per_sm > 0 ? per_sm : 1) * (size_t)prop->multiProcessorCount;
        if (blocks > (size_t)j->trials)
            blocks = (size_t)j->trials;
        dev_job dj;
        memset(&dj, 0, sizeof dj);
        dj.j = *j;
        dj.pstream = bufs[k].ps;
        dj.mstream = bufs[k].ms;
        dj.success = bufs[k].succ;
        dj.iters = bufs[k].iters;
        dj.starts = bufs[k].starts;
        dj.next = bufs[k].next;
        dj.j.defined = bufs[k].defined;   /* the device's copy */
        kernel<<<(unsigned)blocks, threads, smem, bufs[k].stream>>>(dj);
        if ((e = cudaGetLastError()) != cudaSuccess)
            return fail(why, len, "launching the sweep kernel", e);
    }
    if ((e = cudaDeviceSynchronize()) != cudaSuccess)
        return fail(why, len, "the sweep kernel", e);
    return 0;
}

static int run(int device, const cs_sweep_cuda_job *jobs, size_t njobs, char *why, size_t len)
{
    for (size_t k = 0; k < njobs; k++)
        if (check_job(&jobs[k], why, len))
            return -1;
    cudaDeviceProp prop;
    if (sweep_cuda_open("GPU sweep", device, &prop, why, len))
        return -1;
    cudaError_t e;
    job_bufs *bufs = (job_bufs *)calloc(njobs ? njobs : 1, sizeof *bufs);
    if (!bufs) {
        snprintf(why, len, "GPU sweep: out of memory");
        return -1;
    }
    int rc = 0;
    /* uploads first: a cudaMemcpy between the launches would wait for them */
    for (size_t k = 0; k < njobs && !rc; k++)
        if ((e = upload_job(&jobs[k], &bufs[k])) != cudaSuccess)
            rc = fail(why, len, "cudaMalloc/cudaMemcpy", e);
    if (!rc)
        rc = launch_all(jobs, njobs, bufs, &prop, why, len);
    for (size_t k = 0; k < njobs && !rc; k++)
        if ((e = download_job(&jobs[k], &bufs[k])) != cudaSuccess)
            rc = fail(why, len, "cudaMemcpy", e);
    for (size_t k = 0; k < njobs; k++)
        free_job(&bufs[k]);
    free(bufs);
    return rc;
}

static cs_sweep_cuda_module make_module(void)
{
    cs_sweep_cuda_module m;
    memset(&m, 0, sizeof m);
    m.abi = CS_SWEEP_CUDA_ABI;
    m.job_size = sizeof(cs_sweep_cuda_job);
    m.run = run;
    return m;
}

static const cs_sweep_cuda_module g_sweep_module = make_module();

extern "C" __attribute__((visibility("default"))) const cs_sweep_cuda_module *
cs_sweep_cuda_module_get(void)
{
    return &g_sweep_module;
}
