/* par.c — the persistent worker pool of cs_par_for (cs_par.h). */
#include "cs_par.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* A worker that finished a loop watches for the next one for SPIN_NS
 * before it blocks: the ops of a training step come every 0.1–0.5 ms, and a
 * blocked thread takes about that long to wake. Bounded, so an idle pool
 * never spins. */
#define SPIN_NS 200000L

static struct {
    pthread_mutex_t call;   /* one loop at a time */
    pthread_mutex_t mu;     /* with go/done: sleeping and waking */
    pthread_cond_t go, done;
    pthread_t tid[CS_PAR_MAX_THREADS];
    unsigned long seen0[CS_PAR_MAX_THREADS];   /* the word before a new worker's first loop */
    int nworkers;           /* started: ids 1..nworkers (under mu) */
    int at_exit;            /* cs_par_shutdown registered */
    int quit;
    /* the loop: fields written before `word` is published */
    cs_par_fn fn;
    void *ctx;
    int ntasks;
    atomic_ulong word;      /* generation << 8 | threads of the loop (caller included) */
    atomic_int pending;     /* workers of this loop still running */
    atomic_int next;        /* the next task */
} P = {.call = PTHREAD_MUTEX_INITIALIZER,
       .mu = PTHREAD_MUTEX_INITIALIZER,
       .go = PTHREAD_COND_INITIALIZER,
       .done = PTHREAD_COND_INITIALIZER};

static atomic_int g_threads = 1;
static _Thread_local int t_inside, t_worker;

static int clamp(int n)
{
    return n < 1 ? 1 : n > CS_PAR_MAX_THREADS ? CS_PAR_MAX_THREADS : n;
}

void cs_par_set_threads(int threads) { atomic_store(&g_threads, clamp(threads)); }

int cs_par_threads(void) { return atomic_load(&g_threads); }

int cs_par_hold_threads(int n) { return atomic_exchange(&g_threads, clamp(n)); }

void cs_par_restore_threads(int saved) { atomic_store(&g_threads, clamp(saved)); }

static void run_tasks(int worker)
{
    t_inside = 1;
    t_worker = worker;
    for (int t; (t = atomic_fetch_add(&P.next, 1)) < P.ntasks;)
        P.fn(P.ctx, t, worker);
    t_inside = 0;
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* the next loop's word (its generation differs from seen's), or quit: 0 */
static unsigned long next_loop(unsigned long seen)
{
    long until = now_ns() + SPIN_NS;
    for (int i = 0;; i++) {
        unsigned long w = atomic_load_explicit(&P.word, memory_order_acquire);
        if (w >> 8 != seen >> 8)
            return w;
        if ((i & 63) == 63 && now_ns() > until)
            break;
        cpu_relax();
    }
    pthread_mutex_lock(&P.mu);
    unsigned long w;
    while (!P.quit && (w = atomic_load(&P.word)) >> 8 == seen >> 8)
        pthread_cond_wait(&P.go, &P.mu);
    int quit = P.quit;
    pthread_mutex_unlock(&P.mu);
    return quit ? 0 : w;
}

/* A worker runs a loop only when the published word lists it; the caller of
 * that loop waits for it, so the fields stay those of that loop. */
static void *worker_main(void *arg)
{
    int id = (int)(intptr_t)arg;
    unsigned long seen = P.seen0[id];
    for (;;) {
        unsigned long w = next_loop(seen);
        if (!w)
            break;
        seen = w;
        if (id >= (int)(w & 0xff))
            continue;
        run_tasks(id);
        if (atomic_fetch_sub(&P.pending, 1) == 1) {
            pthread_mutex_lock(&P.mu);
            pthread_cond_signal(&P.done);
            pthread_mutex_unlock(&P.mu);
        }
    }
    return NULL;
}

/* workers 1..n−1 running; returns how many threads there are */
static int start_workers(int n)
{
    pthread_mutex_lock(&P.mu);
    if (!P.at_exit && atexit(cs_par_shutdown) == 0)
        P.at_exit = 1;
    while (P.nworkers < n - 1) {
        int id = P.nworkers + 1;
        P.seen0[id] = atomic_load(&P.word);
        if (pthread_create(&P.tid[id], NULL, worker_main, (void *)(intptr_t)id) != 0)
            break;
        P.nworkers++;
    }
    int have = P.nworkers + 1;
    pthread_mutex_unlock(&P.mu);
    return n > have ? have : n;
}

void cs_par_for(int ntasks, cs_par_fn fn, void *ctx)
{
    int n = atomic_load(&g_threads);
    if (n > ntasks)
        n = ntasks;
    if (n <= 1 || t_inside) {
        int w = t_inside ? t_worker : 0;
        for (int t = 0; t < ntasks; t++)
            fn(ctx, t, w);
        return;
    }
    pthread_mutex_lock(&P.call);
    n = start_workers(n);
    P.fn = fn;
    P.ctx = ctx;
    P.ntasks = ntasks;
    atomic_store(&P.next, 0);
    atomic_store(&P.pending, n - 1);
    unsigned long gen = (atomic_load(&P.word) >> 8) + 1;
    atomic_store_explicit(&P.word, gen << 8 | (unsigned long)n, memory_order_release);
    pthread_mutex_lock(&P.mu);
    pthread_cond_broadcast(&P.go);
    pthread_mutex_unlock(&P.mu);
    run_tasks(0);
    long until = now_ns() + SPIN_NS;
    for (int i = 0; atomic_load(&P.pending) > 0; i++) {
        if ((i & 63) == 63 && now_ns() > until) {
            pthread_mutex_lock(&P.mu);
            while (atomic_load(&P.pending) > 0)
                pthread_cond_wait(&P.done, &P.mu);
            pthread_mutex_unlock(&P.mu);
            break;
        }
        cpu_relax();
    }
    pthread_mutex_unlock(&P.call);
}

/* trylock: at exit another thread may still be in a loop (a TUI quitting
 * during training); then the workers are left to the process's end */
void cs_par_shutdown(void)
{
    if (pthread_mutex_trylock(&P.call) != 0)
        return;
    pthread_mutex_lock(&P.mu);
    P.quit = 1;
    pthread_cond_broadcast(&P.go);
    int n = P.nworkers;
    pthread_mutex_unlock(&P.mu);
    for (int id = 1; id <= n; id++)
        pthread_join(P.tid[id], NULL);
    pthread_mutex_lock(&P.mu);
    P.nworkers = 0;
    P.quit = 0;
    pthread_mutex_unlock(&P.mu);
    pthread_mutex_unlock(&P.call);
}
