/* cuda/nn_cuda_graph.cu — a training step recorded on the backend's
 * stream (nn_cuda_stream.cu) as one CUDA graph (cs_nn_ops.graph_*).
 *
 * A step of a small network is a few dozen short kernels; launched one by
 * one, the host's launch cost is the step's time. nn_train.c runs the
 * first step of a run op by op (it allocates what the ops keep: cuDNN's
 * workspace, the scratch), records the second between graph_begin and
 * graph_end, and from then on replays it with graph_launch. What changes
 * from step to step on the device side is Adam's learning rate and bias
 * corrections: while capturing, adam_update's kernel reads them from
 * g_adam (device memory), which graph_launch writes before each launch.
 * The batch, the weights and the gradients stay at the addresses the graph
 * recorded; a buffer the backend reallocates afterwards (the scratch, the
 * cuDNN workspace) makes the graph stale, and nn_train.c records it again.
 *
 * No graph (graph_begin refuses) with CSREG_CUDA_GRAPH=off, with
 * CSREG_CUDA_SYNC=1 (a synchronization after every op) and with
 * CSREG_CUDA_PROFILE (events around every op). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nn_backend.h"
#include "nn_cuda.cuh"

static float *g_adam;   /* device: lr, 1 − β1^t, 1 − β2^t */
static float g_beta1, g_beta2;
static int g_capturing, g_off;
static const char *g_off_why;
static cudaGraphExec_t g_exec;

int cuda_graph_init(int sync_ops, int profiling, char *why, size_t len)
{
    cudaError_t e = cudaMalloc(&g_adam, 3 * sizeof(float));
    if (e != cudaSuccess) {
        snprintf(why, len, "Adam's step scalars: %s", cudaGetErrorString(e));
        cudaGetLastError();
        g_adam = NULL;
        return -1;
    }
    const char *env = getenv("CSREG_CUDA_GRAPH");
    g_off = 1;
    if (env && !strcasecmp(env, "off"))
        g_off_why = "CSREG_CUDA_GRAPH=off";
    else if (sync_ops)
        g_off_why = "CSREG_CUDA_SYNC=1 synchronizes after every op";
    else if (profiling)
        g_off_why = "CSREG_CUDA_PROFILE times every op";
    else
        g_off = 0;
    return 0;
}

static void drop(void)
{
    if (g_exec)
        cudaGraphExecDestroy(g_exec);
    g_exec = NULL;
}

void cuda_graph_shutdown(void)
{
    drop();
    if (g_adam)
        cudaFree(g_adam);
    g_adam = NULL;
}

const float *cuda_graph_adam(float beta1, float beta2)
{
    if (!g_capturing)
        return NULL;
    g_beta1 = beta1;
    g_beta2 = beta2;
    return g_adam;
}

void cuda_graph_stale(void)
{
    drop();
}

static int graph_begin(char *why, size_t len)
{
    if (g_off) {
        snprintf(why, len, "%s", g_off_why);
        return -1;
    }
    drop();
    cudaError_t e = cudaStreamBeginCapture(nn_stream, cudaStreamCaptureModeGlobal);
    if (e != cudaSuccess) {
        cudaGetLastError();
        snprintf(why, len, "cudaStreamBeginCapture: %s", cudaGetErrorString(e));
        return -1;
    }
    g_capturing = 1;
    return 0;
}

/* The capture's end: the graph when every op was recorded; else what went
 * wrong (the first error an op kept: a call a capture does not allow), and
 * nothing recorded ran. */
static int graph_end(char *why, size_t len)
{
    if (!g_capturing) {
        snprintf(why, len, "no capture under way");
        return -1;
    }
    g_capturing = 0;
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamEndCapture(nn_stream, &graph);
    char op[256];
    int kept = cuda_take_error(op, sizeof op);
    if (e == cudaSuccess && !kept)
        e = cudaGraphInstantiate(&g_exec, graph, 0);
    if (graph)
        cudaGraphDestroy(graph);
    if (e == cudaSuccess && !kept)
        return 0;
    g_exec = NULL;
    cudaGetLastError();
    if (kept)
        snprintf(why, len, "%s", op);
    else
        snprintf(why, len, "%s", cudaGetErrorString(e));
    return -1;
}

static int graph_launch(float lr, int t)
{
    if (!g_exec)
        return 1;
    float s[3] = {lr, adam_corr(g_beta1, t), adam_corr(g_beta2, t)};
    if (!cuda_ok(cudaMemcpyAsync(g_adam, s, sizeof s, cudaMemcpyHostToDevice, nn_stream),
                 "graph_launch") ||
        !cuda_ok(cudaGraphLaunch(g_exec, nn_stream), "graph_launch"))
        return -1;
    return 0;
}

static void graph_drop(void)
{
    drop();
}

void cuda_graph_ops(cs_nn_ops *o)
{
    o->graph_begin = graph_begin;
    o->graph_end = graph_end;
    o->graph_launch = graph_launch;
    o->graph_drop = graph_drop;
}
