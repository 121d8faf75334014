/* cuda/sweep_matrix_kernels.cu — the batched GPU sweep of kinds eig and
 * orth (see sweep_matrix_cuda.h): one thread block per trial, each thread
 * owning the entries i ≡ tid (mod blockDim) of every vector, the vectors in
 * the block's work area of global memory (orth N=100: 10⁴ entries each).
 * Every scalar the algorithm branches on comes from a block reduction that
 * all threads read in the same order, so control flow is uniform. The
 * arithmetic follows engine/opt/fista.c (the accelerated mode on the affine
 * fast path), engine/opt/proj.c (RANGE and NULL) and engine/reg/reg_matrix.c
 * (eig, mu, ns, om) step by step; built with --fmad=false like the rest of
 * the module. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_device.cuh"

#include "sweep_matrix_cuda.h"
#include "sweep_stop.cuh"

#define MX_THREADS 256
#define MX_WARPS (MX_THREADS / 32)
#define MX_WINDOW 10
#define MX_BACKTRACKS 20

/* ------------------------------------------------------------------ the block's tools */

struct mblk {
    int tid, nt;
    double (*red)[MX_WARPS][8];   /* [2][warp][value]: reductions, double-buffered */
    int parity;
};

/* the sums of v[0..k) over the block, in every thread, in one order */
__device__ static void msum(mblk *b, double *v, int k)
{
    int lane = b->tid & 31, warp = b->tid >> 5, nw = b->nt >> 5;
    double (*r)[8] = b->red[b->parity];
#ifdef CS_CUDA_EMU
    /* the emulator's shuffle costs a barrier: lane 0 computes the warp's
     * butterfly below from the lanes' values, the same sums in the same
     * order, through one barrier (the next call's writes come after the
     * barrier below, which lane 0 reaches after these reads) */
    __shared__ double lanes[MX_THREADS][8];
    for (int j = 0; j < k; j++)
        lanes[b->tid][j] = v[j];
    __syncthreads();
    if (lane == 0)
        for (int j = 0; j < k; j++) {
            double a[32], c[32];
            for (int l = 0; l < 32; l++)
                a[l] = lanes[warp * 32 + l][j];
            for (int o = 16; o > 0; o >>= 1) {
                for (int l = 0; l < 32; l++)
                    c[l] = a[l] + a[l ^ o];
                memcpy(a, c, sizeof a);
            }
            r[warp][j] = a[0];
        }
#else
    for (int j = 0; j < k; j++)
        for (int o = 16; o > 0; o >>= 1)
            v[j] += __shfl_xor_sync(0xffffffffu, v[j], o);
    if (lane == 0)
        for (int j = 0; j < k; j++)
            r[warp][j] = v[j];
#endif
    __syncthreads();
    for (int j = 0; j < k; j++) {
        double s = 0.0;
        for (int w = 0; w < nw; w++)
            s += r[w][j];
        v[j] = s;
    }
    b->parity ^= 1;   /* the next call writes the other buffer: no second barrier */
}

__device__ static double msum1(mblk *b, double x)
{
    msum(b, &x, 1);
    return x;
}

/* ‖v‖ over v[0..n) */
__device__ static double mnorm(mblk *b, const double *v, int n)
{
    double p = 0.0;
    for (int q = b->tid; q < n; q += b->nt)
        p += v[q] * v[q];
    return sqrt(msum1(b, p));
}

/* one trial's problem (device memory) */
struct mtrial {
    const double *V, *shift, *C, *xs;
    double xsn;
};

/* the block's vectors (n entries) and scratch */
struct mwork {
    double *x0, *g0, *x1, *xa1, *best, *d, *base;
    double *sa;   /* max(N, K²): Cx − βx, or om's Gram matrix */
    double *t;    /* r·K: a projection's coefficients */
};

/* out = P(in) (shift) or P₀(in) on the N×K part, extras copied; out may
 * be in (each entry is read by the thread that writes it) */
__device__ static void mproject(const mblk *b, const cs_sweep_matrix_cuda_job *j,
                                const mtrial *tr, const double *in, double *out, double *tt,
                                int shift)
{
    int N = j->N, K = j->K, r = j->r, nx = N * K, n = nx + j->extra;
    int range = j->basis == CS_SWEEP_MATRIX_CUDA_RANGE;
    const double *V = tr->V;
    __syncthreads();
    for (int q = b->tid; q < r * K; q += b->nt) {
        int c = q / K, k = q % K;
        double s = 0.0;
        for (int i = 0; i < N; i++)
            s += V[(size_t)i * r + c] * in[(size_t)i * K + k];
        if (range && shift)
            s -= tr->shift[q];
        tt[q] = s;
    }
    __syncthreads();
    for (int q = b->tid; q < n; q += b->nt) {
        if (q >= nx) {
            out[q] = in[q];
            continue;
        }
        int i = q / K, k = q % K;
        double s = 0.0;
        for (int c = 0; c < r; c++)
            s += V[(size_t)i * r + c] * tt[(size_t)c * K + k];
        out[q] = range ? in[q] - s : (shift ? tr->shift[q] + s : s);
    }
    __syncthreads();
}

/* ------------------------------------------------------------------ the regularizers */

/* ℓ at x (n entries) and its gradient into g (may be NULL), as
 * reg_matrix.c; *ok: the value and every gradient entry finite */
__device__ static double mfeval(mblk *b, const cs_sweep_matrix_cuda_job *j, const mtrial *tr,
                                const mwork *w, const double *x, double *g, int *ok)
{
    int N = j->N, K = j->K, tid = b->tid, nt = b->nt;
    const double *C = tr->C;
    double *R = w->sa, f, gb = 0.0;
    __syncthreads();   /* x written, R no longer read */
    if (j->reg == CS_SWEEP_MATRIX_CUDA_OM) {
        /* G = XᵀX, β = tr G/K, ℓ = K‖G − βI‖², ∇ = 4K·X(G − βI) */
        double F = 0.0;
        for (int q = tid; q < K * K; q += nt) {
            int a = q / K, c = q % K;
            double s = 0.0;
            for (int i = 0; i < N; i++)
                s += x[(size_t)i * K + a] * x[(size_t)i * K + c];
            R[q] = s;
            if (a == c)
                F += s;
        }
        double beta = msum1(b, F) / (double)K, v[2] = {0.0, 0.0};
        for (int q = tid; q < K * K; q += nt) {
            int a = q / K, c = q % K;
            if (a == c) {
                R[q] -= beta;
                v[0] += R[q] * R[q];
            } else if (a < c) {
                v[1] += R[q] * R[q];
            }
        }
        msum(b, v, 2);
        f = (double)K * (v[0] + 2.0 * v[1]);
        if (g) {
            __syncthreads();
            for (int q = tid; q < N * K; q += nt) {
                int i = q / K, k = q % K;
                double s = 0.0;
                for (int a = 0; a < K; a++)
                    s += x[(size_t)i * K + a] * R[(size_t)a * K + k];
                g[q] = 4.0 * (double)K * s;
                gb += g[q] * 0.0;
            }
        }
    } else {
        /* r = Cx, then per regularizer; C (an eig problem's) is symmetric
         * bit for bit, so row i is read as column i: the block's threads
         * read consecutive entries */
        double mu = j->reg == CS_SWEEP_MATRIX_CUDA_MU ? x[N] : 0.0, v[2] = {0.0, 0.0};
        for (int i = tid; i < N; i += nt) {
            double s = 0.0;
            for (int k = 0; k < N; k++)
                s += C[(size_t)k * N + i] * x[k];
            if (j->reg == CS_SWEEP_MATRIX_CUDA_EIG) {
                v[0] += x[i] * x[i];
                v[1] += x[i] * s;
            } else if (j->reg == CS_SWEEP_MATRIX_CUDA_MU) {
                s += -mu * x[i];
                v[0] += s * s;
                v[1] += x[i] * s;
            } else {
                v[0] += s * s;
                v[1] += x[i] * x[i];
            }
            R[i] = s;
        }
        msum(b, v, 2);
        double beta = 0.0, hh = 0.0, rr = 0.0, t = 0.0;
        if (j->reg == CS_SWEEP_MATRIX_CUDA_EIG) {
            /* ℓ = ‖x‖²‖Cx − βx‖², β = xᵀCx/‖x‖² */
            hh = v[0];
            beta = hh > 0.0 ? v[1] / hh : 0.0;
            double p = 0.0;
            for (int i = tid; i < N; i += nt) {
                R[i] += -beta * x[i];
                p += R[i] * R[i];
            }
            rr = msum1(b, p);
            f = hh * rr;
        } else if (j->reg == CS_SWEEP_MATRIX_CUDA_MU) {
            f = v[0];   /* ‖Cx − μx‖² */
        } else {
            t = v[1] - 1.0;   /* ‖Cx‖² + (‖x‖² − 1)² */
            f = v[0] + t * t;
        }
        if (g) {
            __syncthreads();
            for (int i = tid; i < N + j->extra; i += nt) {
                if (i == N) {   /* mu: ∂/∂μ = −2xᵀr */
                    g[i] = -2.0 * v[1];
                    gb += g[i] * 0.0;
                    continue;
                }
                double s = 0.0;
                for (int k = 0; k < N; k++)
                    s += C[(size_t)k * N + i] * R[k];
                if (j->reg == CS_SWEEP_MATRIX_CUDA_EIG)
                    g[i] = 2.0 * rr * x[i] + 2.0 * hh * (s - beta * R[i]);
                else if (j->reg == CS_SWEEP_MATRIX_CUDA_MU)
                    g[i] = 2.0 * (s - mu * R[i]);
                else
                    g[i] = 2.0 * s + 4.0 * t * x[i];
                gb += g[i] * 0.0;
            }
        }
    }
    *ok = isfinite(f) && (!g || msum1(b, gb) == 0.0);
    return f;
}

/* ‖XᵀX − I‖_F/√K (cs_problem_orth_err) */
__device__ static double morth_err(mblk *b, const cs_sweep_matrix_cuda_job *j, const double *x)
{
    int N = j->N, K = j->K;
    double p = 0.0;
    __syncthreads();
    for (int q = b->tid; q < K * K; q += b->nt) {
        int a = q / K, c = q % K;
        if (a > c)
            continue;
        double s = 0.0;
        for (int i = 0; i < N; i++)
            s += x[(size_t)i * K + a] * x[(size_t)i * K + c];
        s -= a == c ? 1.0 : 0.0;
        p += (a == c ? 1.0 : 2.0) * s * s;
    }
    return sqrt(msum1(b, p) / (double)K);
}

/* ‖x − x*‖/‖x*‖ over the N×K part (cs_problem_rel_err) */
__device__ static double mrel_err(mblk *b, const cs_sweep_matrix_cuda_job *j, const mtrial *tr,
                                  const double *x)
{
    double p = 0.0;
    for (int q = b->tid; q < j->N * j->K; q += b->nt)
        p += (x[q] - tr->xs[q]) * (x[q] - tr->xs[q]);
    double s = sqrt(msum1(b, p));
    return tr->xsn > 0.0 ? s / tr->xsn : s;
}

/* what success is measured by: orth's error, else the error to x* */
__device__ static double mmeasure(mblk *b, const cs_sweep_matrix_cuda_job *j, const mtrial *tr,
                                  const double *x)
{
    return j->orth ? morth_err(b, j, x) : mrel_err(b, j, tr, x);
}

/* ------------------------------------------------------------------ FISTA (fista.c) */

__device__ static double mwindow_max(const double *fwin, long i, double f_start)
{
    if (i == 1)
        return f_start;
    double Mx = -INFINITY;
    long cnt = i - 1 < MX_WINDOW ? i - 1 : MX_WINDOW;
    for (long k = 0; k < cnt; k++)
        Mx = fwin[k] > Mx ? fwin[k] : Mx;
    return Mx;
}

/* One start from the draws st = {x0, r1, r2}: the stepper's accelerated
 * mode with restart and backtracking, d = P₀(∇ℓ), an infeasible x0's
 * first step from P(x0), ended by the job's rule. Returns the best
 * iterate's measure (∞ when ℓ is not finite at x0: the CPU's solve fails
 * there). */
__device__ static double mfista_start(mblk *b, const cs_sweep_matrix_cuda_job *j,
                                      const mtrial *tr, const mwork *w, const double *st,
                                      long *iters)
{
    int nx = j->N * j->K, n = nx + j->extra, tid = b->tid, nt = b->nt, ok, oka, okb;
    const int gn = needs_gnorm(j->stop), oracle = j->stop == CS_SWEEP_CUDA_STOP_ORACLE;
    const double *r1 = st + n, *r2 = st + 2 * (size_t)n;
    /* L from the gradients at the two random points (x1, xa1 as scratch) */
    mfeval(b, j, tr, w, r1, w->x1, &oka);
    mfeval(b, j, tr, w, r2, w->xa1, &okb);
    double L = 1.0;
    if (oka && okb) {
        double v[2] = {0.0, 0.0};
        for (int q = tid; q < n; q += nt) {
            double a = w->x1[q] - w->xa1[q], c = r2[q] - r1[q];
            v[0] += a * a;
            v[1] += c * c;
        }
        msum(b, v, 2);
        L = sqrt(v[0]) / sqrt(v[1]);
        if (!(L >= 1e-6) || !isfinite(L))
            L = isfinite(L) ? 1e-6 : 1.0;
    }
    double tau = 2.0 / L / 10.0;
    for (int q = tid; q < n; q += nt)
        w->x0[q] = w->xa1[q] = w->best[q] = st[q];
    double f_start = mfeval(b, j, tr, w, w->x0, w->g0, &ok);
    if (!ok)
        return INFINITY;
    int feasible = j->start_feasible, measure_x = oracle && !j->orth;
    double alpha = 1.0, best_obj = INFINITY, fwin[MX_WINDOW], max_resid = -INFINITY;
    double g0norm = gn ? mnorm(b, w->g0, n) : 0.0;
    long it = 0;
    for (;;) {
        long i = it + 1;
        if (!feasible)
            mproject(b, j, tr, w->x0, w->base, w->t, 1);
        mproject(b, j, tr, w->g0, w->d, w->t, 0);
        const double *base = feasible ? w->x0 : w->base;
        double s[5], f1;
        for (int bt = 0;; bt++) {
            /* the candidate x1 = base − τd: ⟨Δx, g0⟩, ‖Δx‖², −Δxᵀ(x1 − xa1),
             * ‖x1 − x*‖² (oracle), ‖x1 − (x0 − τg0)‖² (the normalized rules) */
            s[0] = s[1] = s[2] = s[3] = s[4] = 0.0;
            for (int q = tid; q < n; q += nt) {
                double x1 = base[q] - tau * w->d[q];
                w->x1[q] = x1;
                double dx = x1 - w->x0[q], h = dx + tau * w->g0[q];
                s[0] += dx * w->g0[q];
                s[1] += dx * dx;
                s[2] -= dx * (x1 - w->xa1[q]);
                if (measure_x && q < nx)
                    s[3] += (x1 - tr->xs[q]) * (x1 - tr->xs[q]);
                if (gn)
                    s[4] += h * h;
            }
            msum(b, s, gn ? 5 : 4);
            f1 = mfeval(b, j, tr, w, w->x1, NULL, &ok);
            if (!ok)
                f1 = INFINITY;
            double bound = mwindow_max(fwin, i, f_start) + s[0] + s[1] / (2.0 * tau);
            if (!(f1 - 1e-12 > bound && bt < MX_BACKTRACKS))
                break;
            tau *= 0.5;
        }
        feasible = 1;
        fwin[(i - 1) % MX_WINDOW] = f1;
        if (f1 < best_obj) {
            best_obj = f1;
            for (int q = tid; q < n; q += nt)
                w->best[q] = w->x1[q];
        }
        int hit = 0;
        if (oracle) {
            double metric = j->orth ? morth_err(b, j, w->x1)
                                    : (tr->xsn > 0.0 ? sqrt(s[3]) / tr->xsn : sqrt(s[3]));
            hit = metric < j->success_tol;
        }
        /* the residual rules (fista.c): ‖Δx‖/τ, its largest so far, and
         * normalized by max(‖∇ℓ(x0)‖, ‖x1 − (x0 − τ∇ℓ(x0))‖/τ) */
        double resid = sqrt(s[1]) / tau;
        if (resid > max_resid)
            max_resid = resid;
        double nres = gn ? resid / (fmax(g0norm, sqrt(s[4]) / tau) + 1e-8) : 0.0;
        it = i;
        if (!isfinite(f1) || stop_fires(j->stop, hit, resid, max_resid, nres, j->tol) ||
            i >= j->maxit)
            break;
        /* accelerate: y = x1 + c(x1 − xa1), xa1 ← x1, restart on s[2] > 0 */
        double alpha0 = s[2] > 0.0 ? 1.0 : alpha;
        double alpha1 = (1.0 + sqrt(1.0 + 4.0 * alpha0 * alpha0)) / 2.0;
        double c = (alpha0 - 1.0) / alpha1;
        for (int q = tid; q < n; q += nt) {
            double x1 = w->x1[q];
            w->x0[q] = x1 + c * (x1 - w->xa1[q]);
            w->xa1[q] = x1;
        }
        alpha = alpha1;
        double fy = mfeval(b, j, tr, w, w->x0, w->g0, &ok);
        if (!ok)
            break;   /* diverged */
        if (gn)
            g0norm = mnorm(b, w->g0, n);
        fwin[(i - 1) % MX_WINDOW] = fy;
    }
    *iters += it;
    return mmeasure(b, j, tr, w->best);
}

/* ------------------------------------------------------------------ the kernel */

struct mdev_job {
    cs_sweep_matrix_cuda_job j;       /* the host's, pointers unused */
    const double *V, *shift, *C, *xs, *xsn, *starts;
    unsigned char *success;
    long long *iters;
    int *used;
    unsigned long long *next;         /* the queue: the next trial to take */
    double *work;                     /* per block: work_size doubles */
    size_t work_size;
};

/* the strides of one trial's arrays (doubles) */
static __host__ __device__ size_t n_of(const cs_sweep_matrix_cuda_job *j)
{
    return (size_t)j->N * (size_t)j->K + (size_t)j->extra;
}
static __host__ __device__ size_t v_size(const cs_sweep_matrix_cuda_job *j)
{
    return (size_t)j->N * (size_t)j->r;
}
static __host__ __device__ size_t shift_size(const cs_sweep_matrix_cuda_job *j)
{
    return (size_t)(j->basis == CS_SWEEP_MATRIX_CUDA_RANGE ? j->r : j->N) * (size_t)j->K;
}
static __host__ __device__ size_t c_size(const cs_sweep_matrix_cuda_job *j)
{
    return j->reg == CS_SWEEP_MATRIX_CUDA_OM ? 0 : (size_t)j->N * (size_t)j->N;
}
static __host__ __device__ size_t x_size(const cs_sweep_matrix_cuda_job *j)
{
    return (size_t)j->N * (size_t)j->K;
}
static __host__ __device__ size_t starts_size(const cs_sweep_matrix_cuda_job *j)
{
    return (size_t)j->max_starts * 3 * n_of(j);
}
static __host__ __device__ size_t sa_size(const cs_sweep_matrix_cuda_job *j)
{
    size_t kk = (size_t)j->K * (size_t)j->K;
    return kk > (size_t)j->N ? kk : (size_t)j->N;
}
static __host__ __device__ size_t work_size(const cs_sweep_matrix_cuda_job *j)
{
    return 7 * n_of(j) + sa_size(j) + (size_t)j->r * (size_t)j->K;
}

__global__ void __launch_bounds__(MX_THREADS) sweep_matrix(mdev_job dj)
{
    __shared__ double red[2][MX_WARPS][8];
    __shared__ long long take;
    const cs_sweep_matrix_cuda_job *j = &dj.j;
    mblk b;
    b.tid = (int)threadIdx.x;
    b.nt = (int)blockDim.x;
    b.red = red;
    b.parity = 0;
    size_t n = n_of(j);
    mwork w;
    double *p = dj.work + (size_t)blockIdx.x * dj.work_size;
    double **vecs[] = {&w.x0, &w.g0, &w.x1, &w.xa1, &w.best, &w.d, &w.base};
    for (int k = 0; k < 7; k++) {
        *vecs[k] = p;
        p += n;
    }
    w.sa = p;
    w.t = p + sa_size(j);
    for (;;) {
        if (b.tid == 0)
            take = (long long)atomicAdd(dj.next, 1ull);
        __syncthreads();
        long long t = take;
        __syncthreads();   /* everyone has read take before thread 0 writes it again */
        if (t >= j->trials)
            return;
        mtrial tr;
        tr.V = dj.V ? dj.V + (size_t)t * v_size(j) : NULL;   /* M = N: r = 0, no basis */
        tr.shift = dj.shift + (size_t)t * shift_size(j);
        tr.C = dj.C ? dj.C + (size_t)t * c_size(j) : NULL;
        tr.xs = dj.xs + (size_t)t * x_size(j);
        tr.xsn = dj.xsn[t];
        const double *st = dj.starts + (size_t)t * starts_size(j);
        int success = 0, used = 0;
        long iters = 0;
        for (int s = 1; s <= j->max_starts; s++) {
            used = s;
            double e = mfista_start(&b, j, &tr, &w, st + (size_t)(s - 1) * 3 * n, &iters);
            if (e <= j->success_tol) {
                success = 1;
                break;
            }
        }
        if (b.tid == 0) {
            dj.success[t] = (unsigned char)success;
            dj.iters[t] = iters;
            dj.used[t] = used;
        }
        __syncthreads();   /* the work area is rewritten by the next trial */
    }
}

/* ------------------------------------------------------------------ the host side */

static int mfail(char *why, size_t len, const char *step, cudaError_t e)
{
    return sweep_cuda_fail("GPU sweep (eig/orth)", why, len, step, e);
}

static int mcheck_job(const cs_sweep_matrix_cuda_job *j, char *why, size_t len)
{
    int om = j->reg == CS_SWEEP_MATRIX_CUDA_OM;
    if (j->reg < CS_SWEEP_MATRIX_CUDA_EIG || j->reg > CS_SWEEP_MATRIX_CUDA_OM ||
        j->basis < CS_SWEEP_MATRIX_CUDA_RANGE || j->basis > CS_SWEEP_MATRIX_CUDA_NULL ||
        j->N < 1 || j->N > CS_SWEEP_MATRIX_CUDA_MAX_N || j->K < 1 || j->K > j->N ||
        (!om && j->K != 1) || j->extra != (j->reg == CS_SWEEP_MATRIX_CUDA_MU) ||
        j->r < (j->basis == CS_SWEEP_MATRIX_CUDA_NULL ? 0 : 1) || j->r > j->N ||
        n_of(j) > CS_SWEEP_MATRIX_CUDA_MAX_ENTRIES || j->trials < 1 || j->maxit < 1 ||
        j->max_starts < 1 || j->orth != om || j->stop < CS_SWEEP_CUDA_STOP_ORACLE ||
        j->stop > CS_SWEEP_CUDA_STOP_RATIO || !(j->tol >= 0.0) || (j->r && !j->V) ||
        !j->shift || !j->xstar || !j->xstar_norm || !j->starts || (!om && !j->C)) {
        snprintf(why, len, "GPU sweep (eig/orth): regularizer %d, N=%d K=%d r=%d, %ld trials: "
                 "not a job this module runs", j->reg, j->N, j->K, j->r, j->trials);
        return -1;
    }
    return 0;
}

/* one job's device memory */
struct mbufs {
    double *V, *shift, *C, *xs, *xsn, *starts, *work;
    unsigned char *succ;
    long long *iters;
    int *used;
    unsigned long long *next;
};

static void mfree(mbufs *b)
{
    cudaFree(b->V);
    cudaFree(b->shift);
    cudaFree(b->C);
    cudaFree(b->xs);
    cudaFree(b->xsn);
    cudaFree(b->starts);
    cudaFree(b->work);
    cudaFree(b->succ);
    cudaFree(b->iters);
    cudaFree(b->used);
    cudaFree(b->next);
}

/* count doubles to the device (none: *dst stays NULL) */
static cudaError_t mup(double **dst, const double *src, size_t count)
{
    if (count == 0)
        return cudaSuccess;
    cudaError_t e = cudaMalloc(dst, count * sizeof(double));
    return e ? e : cudaMemcpy(*dst, src, count * sizeof(double), cudaMemcpyHostToDevice);
}

/* one job: upload, launch, download */
static int mrun_job(const cs_sweep_matrix_cuda_job *j, const cudaDeviceProp *prop, char *why,
                    size_t len)
{
    size_t T = (size_t)j->trials;
    mbufs b;
    memset(&b, 0, sizeof b);
    unsigned threads = (unsigned)((n_of(j) + 31) / 32 * 32);
    if (threads > MX_THREADS)
        threads = MX_THREADS;
    int per_sm = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sweep_matrix,
                                                                  (int)threads, 0);
    if (e != cudaSuccess)
        return mfail(why, len, "cudaOccupancyMaxActiveBlocksPerMultiprocessor", e);
    size_t blocks = (size_t)(per_sm > 0 ? per_sm : 1) * (size_t)prop->multiProcessorCount;
    if (blocks > T)
        blocks = T;
    int rc = 0;
    long long *it = (long long *)malloc(T * sizeof *it);
    if (!it) {
        snprintf(why, len, "GPU sweep (eig/orth): out of memory");
        return -1;
    }
    if ((e = mup(&b.V, j->V, T * v_size(j))) || (e = mup(&b.shift, j->shift, T * shift_size(j))) ||
        (e = mup(&b.C, j->C, T * c_size(j))) ||
        (e = mup(&b.xs, j->xstar, T * x_size(j))) || (e = mup(&b.xsn, j->xstar_norm, T)) ||
        (e = mup(&b.starts, j->starts, T * starts_size(j))) ||
        (e = cudaMalloc(&b.work, blocks * work_size(j) * sizeof(double))) ||
        (e = cudaMalloc(&b.succ, T)) || (e = cudaMalloc(&b.iters, T * sizeof *b.iters)) ||
        (e = cudaMalloc(&b.used, T * sizeof *b.used)) ||
        (e = cudaMalloc(&b.next, sizeof *b.next)) ||
        (e = cudaMemset(b.next, 0, sizeof *b.next)))
        rc = mfail(why, len, "cudaMalloc/cudaMemcpy", e);
    if (!rc) {
        mdev_job dj;
        memset(&dj, 0, sizeof dj);
        dj.j = *j;
        dj.V = b.V;
        dj.shift = b.shift;
        dj.C = b.C;
        dj.xs = b.xs;
        dj.xsn = b.xsn;
        dj.starts = b.starts;
        dj.success = b.succ;
        dj.iters = b.iters;
        dj.used = b.used;
        dj.next = b.next;
        dj.work = b.work;
        dj.work_size = work_size(j);
        sweep_matrix<<<(unsigned)blocks, threads>>>(dj);
        if ((e = cudaGetLastError()) != cudaSuccess)
            rc = mfail(why, len, "launching the sweep kernel", e);
        else if ((e = cudaDeviceSynchronize()) != cudaSuccess)
            rc = mfail(why, len, "the sweep kernel", e);
    }
    if (!rc && ((e = cudaMemcpy(j->success, b.succ, T, cudaMemcpyDeviceToHost)) ||
                (e = cudaMemcpy(it, b.iters, T * sizeof *it, cudaMemcpyDeviceToHost)) ||
                (e = cudaMemcpy(j->starts_used, b.used, T * sizeof *b.used,
                                cudaMemcpyDeviceToHost))))
        rc = mfail(why, len, "cudaMemcpy", e);
    for (size_t t = 0; !rc && t < T; t++)
        j->iters[t] = (long)it[t];
    free(it);
    mfree(&b);
    return rc;
}

static int mrun(int device, const cs_sweep_matrix_cuda_job *jobs, size_t njobs, char *why,
                size_t len)
{
    for (size_t k = 0; k < njobs; k++)
        if (mcheck_job(&jobs[k], why, len))
            return -1;
    cudaDeviceProp prop;
    if (sweep_cuda_open("GPU sweep (eig/orth)", device, &prop, why, len))
        return -1;
    for (size_t k = 0; k < njobs; k++)
        if (mrun_job(&jobs[k], &prop, why, len))
            return -1;
    return 0;
}

static cs_sweep_matrix_cuda_module make_matrix_module(void)
{
    cs_sweep_matrix_cuda_module m;
    memset(&m, 0, sizeof m);
    m.abi = CS_SWEEP_MATRIX_CUDA_ABI;
    m.job_size = sizeof(cs_sweep_matrix_cuda_job);
    m.run = mrun;
    return m;
}

static const cs_sweep_matrix_cuda_module g_matrix_module = make_matrix_module();

extern "C" __attribute__((visibility("default"))) const cs_sweep_matrix_cuda_module *
cs_sweep_matrix_cuda_module_get(void)
{
    return &g_matrix_module;
}
