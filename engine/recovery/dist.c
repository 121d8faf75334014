/* dist.c — trials over MPI ranks (cs_dist.h). Compiled twice: into
 * libcsreg.a without CSREG_HAVE_MPI (one process), and with mpicc and
 * -DCSREG_HAVE_MPI for csreg-mpi. Both define the same functions. */
#include "cs_dist.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CSREG_HAVE_MPI
#include <mpi.h>
#endif

typedef struct dist_job {
    cs_pool_item_fn run_item;
    void *ctx;
    size_t rank, size, total;
    cs_progress_fn progress;
    void *user;
} dist_job;

static int dist_item(void *vctx, size_t item, cs_err *err)
{
    dist_job *j = vctx;
    return j->run_item(j->ctx, j->rank + item * j->size, err);
}

static void dist_progress(void *vctx, size_t done, size_t total)
{
    dist_job *j = vctx;
    if (!j->progress)
        return;
    size_t shown = total ? (size_t)((double)done / (double)total * (double)j->total) : 0;
    j->progress(j->user, done == total ? j->total : shown, j->total);
}

#ifdef CSREG_HAVE_MPI

static int initialized, finalized;

int cs_dist_init(int *argc, char ***argv)
{
    int provided;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return CS_EUNSUPPORTED;
    initialized = 1;
    return CS_OK;
}

void cs_dist_finalize(void)
{
    if (initialized && !finalized) {
        finalized = 1;
        MPI_Finalize();
    }
}

int cs_dist_rank(void)
{
    int r = 0;
    if (initialized && !finalized)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int cs_dist_size(void)
{
    int n = 1;
    if (initialized && !finalized)
        MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

int cs_dist_built(void) { return 1; }

void cs_dist_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    if (initialized && !finalized)
        MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

/* Every rank learns the lowest rank with `failed` set (size: none), and
 * gets that rank's error. */
static int first_failed(int failed, cs_err *err)
{
    int rank = cs_dist_rank(), size = cs_dist_size();
    int mine = failed ? rank : size, first = size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first < size) {
        cs_err e = err ? *err : (cs_err){0};
        MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, first, MPI_COMM_WORLD);
        if (err)
            *err = e;
    }
    return first;
}

int cs_dist_pool_run(size_t total, int threads, cs_pool_item_fn run_item, void *ctx,
                     const cs_cancel *cancel, cs_progress_fn progress, void *user,
                     cs_err *err)
{
    int size = cs_dist_size();
    if (size == 1)
        return cs_pool_run(total, threads, run_item, ctx, cancel, progress, user, err);
    dist_job j = {.run_item = run_item, .ctx = ctx, .rank = (size_t)cs_dist_rank(),
                  .size = (size_t)size, .total = total, .progress = progress, .user = user};
    size_t mine = total > j.rank ? (total - j.rank + j.size - 1) / j.size : 0;
    cs_err e;
    cs_err_clear(&e);
    int rc = cs_pool_run(mine, threads, dist_item, &j, cancel, dist_progress, &j, &e);
    rc = cs_dist_all(rc, &e);
    if (rc < 0 && err)
        *err = e;
    return rc > 0 ? CS_OK : rc;
}

int cs_dist_all(int rc, cs_err *err)
{
    int size = cs_dist_size();
    if (size == 1)
        return rc;
    cs_err e = err ? *err : (cs_err){0};
    if (rc < 0 && e.code == 0)
        e.code = rc;
    int first = first_failed(rc < 0, &e);
    if (first == size)
        return rc;
    if (first != 0) {
        char msg[CS_ERR_MAX];
        snprintf(msg, sizeof msg, "%s", e.msg);
        snprintf(e.msg, sizeof e.msg, "rank %d: %.*s", first, CS_ERR_MAX - 32, msg);
    }
    if (err)
        *err = e;
    return e.code < 0 ? e.code : CS_EINVAL;
}

int cs_dist_gather_items(void *base, size_t item_bytes, size_t total, cs_err *err)
{
    int size = cs_dist_size();
    if (size == 1 || total == 0 || item_bytes == 0)
        return CS_OK;
    size_t K = (size_t)size, rank = (size_t)cs_dist_rank();
    size_t per = (total + K - 1) / K; /* the most any rank holds */
    if (per * item_bytes > INT_MAX || total * item_bytes > INT_MAX)
        return cs_fail(err, CS_ENOMEM, "%zu results of %zu bytes are too many to exchange "
                       "between ranks", total, item_bytes);
    int *counts = malloc(K * sizeof *counts), *displs = malloc(K * sizeof *displs);
    char *send = malloc(per * item_bytes), *recv = malloc(total * item_bytes);
    if (!counts || !displs || !send || !recv) {
        free(counts);
        free(displs);
        free(send);
        free(recv);
        return cs_fail(err, CS_ENOMEM, "out of memory exchanging results between ranks");
    }
    size_t off = 0;
    for (size_t r = 0; r < K; r++) {
        size_t n = total > r ? (total - r + K - 1) / K : 0;
        counts[r] = (int)(n * item_bytes);
        displs[r] = (int)off;
        off += n * item_bytes;
    }
    char *b = base;
    size_t n = 0;
    for (size_t i = rank; i < total; i += K, n++)
        memcpy(send + n * item_bytes, b + i * item_bytes, item_bytes);
    int rc = MPI_Allgatherv(send, counts[rank], MPI_BYTE, recv, counts, displs, MPI_BYTE,
                            MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        for (size_t r = 0; r < K; r++) {
            const char *p = recv + displs[r];
            for (size_t i = r, k = 0; i < total; i += K, k++)
                memcpy(b + i * item_bytes, p + k * item_bytes, item_bytes);
        }
    free(counts);
    free(displs);
    free(send);
    free(recv);
    return rc == MPI_SUCCESS ? CS_OK
                             : cs_fail(err, CS_EIO, "MPI_Allgatherv failed (error %d)", rc);
}

int cs_dist_agree(int rc, cs_err *err, int *diverged)
{
    if (diverged)
        *diverged = -1;
    if (cs_dist_size() == 1)
        return rc;
    struct {
        int rc;
        cs_err err;
    } zero = {.rc = rc};
    if (rc < 0 && err)
        zero.err = *err;
    MPI_Bcast(&zero, (int)sizeof zero, MPI_BYTE, 0, MPI_COMM_WORLD);
    cs_err mine = err ? *err : (cs_err){0};
    int first = first_failed(rc < 0 && zero.rc >= 0, &mine);
    if (first < cs_dist_size()) {
        if (diverged)
            *diverged = first;
        if (err)
            *err = mine;
        return mine.code < 0 ? mine.code : CS_EINVAL;
    }
    if (zero.rc < 0 && err)
        *err = zero.err;
    return zero.rc;
}

#else /* one process */

int cs_dist_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return CS_OK;
}

void cs_dist_finalize(void) {}
int cs_dist_rank(void) { return 0; }
int cs_dist_size(void) { return 1; }
int cs_dist_built(void) { return 0; }

void cs_dist_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    exit(code);
}

int cs_dist_pool_run(size_t total, int threads, cs_pool_item_fn run_item, void *ctx,
                     const cs_cancel *cancel, cs_progress_fn progress, void *user,
                     cs_err *err)
{
    /* the same path as with MPI on one rank */
    dist_job j = {.run_item = run_item, .ctx = ctx, .rank = 0, .size = 1, .total = total,
                  .progress = progress, .user = user};
    return cs_pool_run(total, threads, dist_item, &j, cancel, dist_progress, &j, err);
}

int cs_dist_gather_items(void *base, size_t item_bytes, size_t total, cs_err *err)
{
    (void)base;
    (void)item_bytes;
    (void)total;
    (void)err;
    return CS_OK;
}

int cs_dist_all(int rc, cs_err *err)
{
    (void)err;
    return rc;
}

int cs_dist_agree(int rc, cs_err *err, int *diverged)
{
    (void)err;
    if (diverged)
        *diverged = -1;
    return rc;
}

#endif
