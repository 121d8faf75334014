/* cuda/nn_cuda_prof.cu — where a run's time goes on the GPU, op by op, for
 * a session with a GPU and no profiler: CSREG_CUDA_PROFILE=FILE writes,
 * when the module shuts down (csreg's exit), one line per op name:
 *  - calls;
 *  - GPU ms: the time between the GPU's end of the op before and its end
 *    of this one (an event recorded after each op: the op's kernels, plus
 *    any time the GPU waited for the host to launch them);
 *  - host ms: the host's time from the end of the op before to the end of
 *    this one (launching it, and the engine's own work before it: a batch's
 *    gathering is upload's, a wait for the GPU download's).
 * A GPU ms well above its op's work, with host ms as large, says the run is
 * launch-bound there. Off (no event, no clock) without the variable. A
 * leaf: nn_cuda_err.cu's op_done and the copies of nn_ops.cu report here;
 * it reports to no one (its own CUDA calls' errors end the profile). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nn_cuda.cuh"

#define PROF_EVENTS 1024   /* events between two reads (a read waits for the GPU) */
#define PROF_OPS 64        /* op names */

typedef struct prof_row {
    const char *op;   /* the ops' names are literals */
    long calls;
    double gpu_ms, host_ms;
} prof_row;

static struct {
    int on;
    char path[1024];
    /* ev[0]: the end of the last op already read; ev[1..n]: since */
    cudaEvent_t ev[PROF_EVENTS + 1];
    int row_of[PROF_EVENTS + 1];
    int n, have_start;
    double host_t;
    prof_row row[PROF_OPS];
    int nrows;
} P;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void prof_off(void)
{
    for (int i = 0; i <= PROF_EVENTS; i++)
        if (P.ev[i])
            cudaEventDestroy(P.ev[i]);
    memset(&P, 0, sizeof P);
}

int cuda_prof_init(void)
{
    const char *path = getenv("CSREG_CUDA_PROFILE");
    prof_off();
    if (!path || !*path || strlen(path) >= sizeof P.path)
        return 0;
    for (int i = 0; i <= PROF_EVENTS; i++)
        if (cudaEventCreate(&P.ev[i]) != cudaSuccess) {
            cudaGetLastError();
            prof_off();
            return 0;
        }
    snprintf(P.path, sizeof P.path, "%s", path);
    P.on = 1;
    P.host_t = now_s();
    return 1;
}

static int row_index(const char *op)
{
    for (int i = 0; i < P.nrows; i++)
        if (P.row[i].op == op || strcmp(P.row[i].op, op) == 0)
            return i;
    if (P.nrows == PROF_OPS)
        return PROF_OPS - 1;   /* the last row takes the rest */
    P.row[P.nrows].op = op;
    return P.nrows++;
}

/* the GPU times of the events recorded since the last read (waits for
 * the last of them); ev[n] becomes ev[0] */
static void prof_read(void)
{
    if (!P.n)
        return;
    if (cudaEventSynchronize(P.ev[P.n]) != cudaSuccess) {
        cudaGetLastError();
        P.on = 0;
        return;
    }
    for (int i = 1; i <= P.n; i++) {
        float ms = 0;
        if ((i > 1 || P.have_start) && cudaEventElapsedTime(&ms, P.ev[i - 1], P.ev[i]) != cudaSuccess)
            cudaGetLastError();
        P.row[P.row_of[i]].gpu_ms += ms;
    }
    cudaEvent_t last = P.ev[P.n];
    P.ev[P.n] = P.ev[0];
    P.ev[0] = last;
    P.have_start = 1;
    P.n = 0;
}

void cuda_prof_op(const char *op)
{
    if (!P.on)
        return;
    int r = row_index(op);
    if (cudaEventRecord(P.ev[P.n + 1], nn_stream) != cudaSuccess) {
        cudaGetLastError();
        P.on = 0;
        return;
    }
    P.row_of[++P.n] = r;
    double t = now_s();
    P.row[r].calls++;
    P.row[r].host_ms += 1e3 * (t - P.host_t);
    if (P.n == PROF_EVENTS)
        prof_read();
    P.host_t = now_s();   /* the read's wait is nobody's */
}

static int by_gpu(const void *a, const void *b)
{
    const prof_row *x = (const prof_row *)a, *y = (const prof_row *)b;
    return x->gpu_ms < y->gpu_ms ? 1 : x->gpu_ms > y->gpu_ms ? -1 : strcmp(x->op, y->op);
}

void cuda_prof_report(const char *device)
{
    if (!P.on) {
        prof_off();
        return;
    }
    prof_read();
    FILE *f = fopen(P.path, "w");
    if (f) {
        double g = 0, h = 0;
        long c = 0;
        qsort(P.row, (size_t)P.nrows, sizeof *P.row, by_gpu);
        fprintf(f, "# csreg CUDA profile (CSREG_CUDA_PROFILE), %s\n", device);
        fprintf(f, "# GPU ms: from the GPU's end of the op before to its end of this one\n");
        fprintf(f, "# host ms: from the host's end of the op before to its end of this one\n");
        fprintf(f, "%-24s %9s %11s %11s %12s %12s\n", "op", "calls", "GPU_ms", "host_ms",
                "GPU_us/call", "host_us/call");
        for (int i = 0; i < P.nrows; i++) {
            const prof_row *r = &P.row[i];
            fprintf(f, "%-24s %9ld %11.3f %11.3f %12.2f %12.2f\n", r->op, r->calls, r->gpu_ms,
                    r->host_ms, 1e3 * r->gpu_ms / (double)r->calls,
                    1e3 * r->host_ms / (double)r->calls);
            g += r->gpu_ms;
            h += r->host_ms;
            c += r->calls;
        }
        fprintf(f, "%-24s %9ld %11.3f %11.3f\n", "total", c, g, h);
        fclose(f);
    }
    prof_off();
}
