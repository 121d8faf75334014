/* pool.c — worker threads over the items of a grid (cs_pool.h). */
#include "cs_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef struct pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next, total, done;
    int failed;
    cs_err err;
    const cs_cancel *cancel;
    cs_pool_item_fn run_item;
    void *ctx;
} pool;

static int cancelled(const pool *p) { return cs_cancelled(p->cancel); }

static void *pool_worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        if (p->failed || cancelled(p) || p->next >= p->total) {
            pthread_mutex_unlock(&p->mu);
            break;
        }
        size_t item = p->next++;
        pthread_mutex_unlock(&p->mu);
        cs_err e;
        cs_err_clear(&e);
        int rc = p->run_item(p->ctx, item, &e);
        pthread_mutex_lock(&p->mu);
        if (rc < 0 && !p->failed) {
            p->failed = 1;
            p->err = e;
            if (p->err.code == 0)
                p->err.code = rc;
        } else if (rc == 0) {
            p->done++;
        }
        pthread_cond_signal(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

int cs_pool_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int cs_pool_run(size_t total, int threads, cs_pool_item_fn run_item, void *ctx,
                const cs_cancel *cancel, cs_progress_fn progress, void *user, cs_err *err)
{
    pool pl = {.total = total, .cancel = cancel, .run_item = run_item, .ctx = ctx};
    pool *p = &pl;
    if (threads <= 0)
        threads = cs_pool_cores();
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if ((size_t)threads > p->total)
        threads = p->total ? (int)p->total : 1;
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    if (!tid)
        return cs_fail(err, CS_ENOMEM, "out of memory");
    int started = 0;
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&tid[i], NULL, pool_worker, p) != 0)
            break;
        started++;
    }
    if (started == 0) {
        free(tid);
        return cs_fail(err, CS_ENOMEM, "cannot start worker threads");
    }
    size_t shown = (size_t)-1;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        size_t done = p->done;
        int finished = p->failed || p->next >= p->total || cancelled(p);
        pthread_mutex_unlock(&p->mu);
        if (progress && done != shown) {
            progress(user, done, p->total);
            shown = done;
        }
        pthread_mutex_lock(&p->mu);
        if (finished)
            break;
        if (p->done == done) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 200000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&p->cv, &p->mu, &ts);
        }
    }
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    free(tid);
    if (progress && p->done != shown)
        progress(user, p->done, p->total);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    if (p->failed) {
        if (err)
            *err = p->err;
        return p->err.code ? p->err.code : CS_EINVAL;
    }
    return CS_OK;
}

