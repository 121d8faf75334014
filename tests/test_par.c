/* test_par.c — the worker pool of the network ops (cs_par.h): every task
 * runs exactly once, worker ids stay below the thread count, a loop inside
 * a task runs inline, the thread setting holds and restores, and thousands
 * of short loops in a row (the training step's pattern: the workers spin,
 * then sleep, then wake) lose no wake-up. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "cs_par.h"

typedef struct count_job {
    atomic_int runs[512];
    atomic_int bad_worker;
    atomic_int used[CS_PAR_MAX_THREADS];
    int threads;
} count_job;

static void count_task(void *ctx, int t, int worker)
{
    count_job *j = ctx;
    atomic_fetch_add(&j->runs[t], 1);
    if (worker < 0 || worker >= j->threads)
        atomic_store(&j->bad_worker, 1);
    else
        atomic_fetch_add(&j->used[worker], 1);
}

static void run_and_check(int threads, int ntasks)
{
    static count_job j;
    memset(&j, 0, sizeof j);
    j.threads = threads < ntasks ? threads : ntasks;
    int saved = cs_par_hold_threads(threads);
    cs_par_for(ntasks, count_task, &j);
    cs_par_restore_threads(saved);
    for (int t = 0; t < ntasks; t++)
        if (atomic_load(&j.runs[t]) != 1)
            fail_msg("%d threads, %d tasks: task %d ran %d times", threads, ntasks, t,
                     atomic_load(&j.runs[t]));
    assert_int_equal(atomic_load(&j.bad_worker), 0);
}

static void test_each_task_once(void **state)
{
    (void)state;
    int threads[] = {1, 2, 3, 8};
    int tasks[] = {0, 1, 2, 7, 64, 500};
    for (size_t a = 0; a < sizeof threads / sizeof *threads; a++)
        for (size_t b = 0; b < sizeof tasks / sizeof *tasks; b++)
            run_and_check(threads[a], tasks[b]);
}

static void test_settings(void **state)
{
    (void)state;
    int saved = cs_par_hold_threads(0);
    assert_int_equal(cs_par_threads(), 1);   /* clamped */
    cs_par_set_threads(100000);
    assert_int_equal(cs_par_threads(), CS_PAR_MAX_THREADS);
    int prev = cs_par_hold_threads(3);
    assert_int_equal(prev, CS_PAR_MAX_THREADS);
    assert_int_equal(cs_par_threads(), 3);
    cs_par_restore_threads(prev);
    assert_int_equal(cs_par_threads(), CS_PAR_MAX_THREADS);
    cs_par_restore_threads(saved);
}

/* a loop started inside a task runs inline on that task's worker */
typedef struct nest_job {
    atomic_int inner_runs;
    atomic_int wrong_worker;
} nest_job;

typedef struct inner_ctx {
    nest_job *j;
    int outer_worker;
} inner_ctx;

static void inner_task(void *ctx, int t, int worker)
{
    (void)t;
    inner_ctx *c = ctx;
    atomic_fetch_add(&c->j->inner_runs, 1);
    if (worker != c->outer_worker)
        atomic_store(&c->j->wrong_worker, 1);
}

static void outer_task(void *ctx, int t, int worker)
{
    (void)t;
    inner_ctx c = {ctx, worker};
    cs_par_for(5, inner_task, &c);
}

static void test_nested_inline(void **state)
{
    (void)state;
    nest_job j = {0};
    int saved = cs_par_hold_threads(2);
    cs_par_for(6, outer_task, &j);
    cs_par_restore_threads(saved);
    assert_int_equal(atomic_load(&j.inner_runs), 30);
    assert_int_equal(atomic_load(&j.wrong_worker), 0);
}

static void sum_task(void *ctx, int t, int worker)
{
    (void)worker;
    atomic_fetch_add((atomic_long *)ctx, t + 1);
}

/* many short loops, some after a pause long enough for the workers to sleep */
static void test_many_loops(void **state)
{
    (void)state;
    int saved = cs_par_hold_threads(2);
    for (int k = 0; k < 3000; k++) {
        atomic_long sum = 0;
        int n = 1 + k % 9;
        cs_par_for(n, sum_task, &sum);
        assert_int_equal(atomic_load(&sum), (long)n * (n + 1) / 2);
        if (k % 500 == 0) {
            struct timespec ts = {0, 2000000};   /* 2 ms: past the spin, the workers block */
            nanosleep(&ts, NULL);
        }
    }
    cs_par_restore_threads(saved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_task_once),
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_nested_inline),
        cmocka_unit_test(test_many_loops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
