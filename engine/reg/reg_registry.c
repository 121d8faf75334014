/* reg_registry.c — the one table of regularizers: the built-ins (reg_table.c)
 * followed by the entries defined at run time, in the order they were first
 * defined. Lookups and definitions take a lock, so sweeps in worker threads,
 * the TUI and the interpreter may use it at once. Entries are never freed
 * while the process runs (cs_reg_defs_reset aside, for a process that
 * starts afresh: the fuzzer): a pointer from cs_reg_lookup or
 * cs_reg_info_at stays valid, and a replaced definition is kept for the
 * instances made from it. A definition over the limit is refused before it
 * is built. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "reg_internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cs_reg_def **defs;      /* current definitions */
static size_t ndefs, capdefs;
static cs_reg_def **retired;   /* replaced ones, kept alive */
static size_t nretired, capretired;

static int push(cs_reg_def ***arr, size_t *n, size_t *cap, cs_reg_def *d)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        cs_reg_def **a = realloc(*arr, c * sizeof *a);
        if (!a)
            return -1;
        *arr = a;
        *cap = c;
    }
    (*arr)[(*n)++] = d;
    return 0;
}

size_t cs_reg_count(void)
{
    pthread_mutex_lock(&lock);
    size_t n = cs_reg_builtin_count() + ndefs;
    pthread_mutex_unlock(&lock);
    return n;
}

const cs_reg_info *cs_reg_info_at(size_t i)
{
    size_t nb = cs_reg_builtin_count();
    if (i < nb)
        return cs_reg_builtin_at(i);
    pthread_mutex_lock(&lock);
    const cs_reg_info *info = i - nb < ndefs ? cs_reg_def_info(defs[i - nb]) : NULL;
    pthread_mutex_unlock(&lock);
    return info;
}

static const cs_reg_info *builtin_named(const char *name)
{
    for (size_t i = 0; i < cs_reg_builtin_count(); i++)
        if (strcmp(cs_reg_builtin_at(i)->name, name) == 0)
            return cs_reg_builtin_at(i);
    return NULL;
}

/* Index of the definition named `name`, or ndefs; the lock is held. */
static size_t find_def(const char *name)
{
    size_t i = 0;
    while (i < ndefs && strcmp(cs_reg_def_info(defs[i])->name, name) != 0)
        i++;
    return i;
}

const cs_reg_info *cs_reg_lookup(const char *name)
{
    if (!name)
        return NULL;
    const cs_reg_info *info = builtin_named(name);
    if (info)
        return info;
    pthread_mutex_lock(&lock);
    size_t i = find_def(name);
    info = i < ndefs ? cs_reg_def_info(defs[i]) : NULL;
    pthread_mutex_unlock(&lock);
    return info;
}

static int full(void)
{
    pthread_mutex_lock(&lock);
    int f = ndefs + nretired >= CS_REG_DEFINE_MAX;
    pthread_mutex_unlock(&lock);
    return f;
}

static int too_many(cs_err *err)
{
    return cs_fail_key(err, CS_ENOMEM, "name", "too many definitions in one session (%d, "
                       "replaced ones included)", CS_REG_DEFINE_MAX);
}

int cs_reg_define(const cs_reg_def_spec *spec, int *replaced, int *col, cs_err *err)
{
    if (replaced)
        *replaced = 0;
    if (col)
        *col = 0;
    if (!spec || !spec->name)
        return cs_fail_key(err, CS_EINVAL, "name", "reg define needs a name");
    if (builtin_named(spec->name))
        return cs_fail_key(err, CS_EINVAL, "name",
                           "'%s' is a built-in regularizer; a defined one needs a name of its "
                           "own (regs lists the names taken)",
                           spec->name);
    /* before the definition is built: its level analysis takes milliseconds,
     * a refusal must not (10^4 of them in a script under --keep-going) */
    if (full())
        return too_many(err);
    cs_reg_def *d;
    int rc = cs_reg_def_new(&d, spec, col, err);
    if (rc)
        return rc;
    pthread_mutex_lock(&lock);
    size_t i = find_def(spec->name);
    int rep = i < ndefs;
    if (ndefs + nretired >= CS_REG_DEFINE_MAX) {   /* another thread filled it meanwhile */
        pthread_mutex_unlock(&lock);
        cs_reg_def_free(d);
        return too_many(err);
    }
    if (rep) {
        rc = push(&retired, &nretired, &capretired, defs[i]);
        if (!rc)
            defs[i] = d;
    } else {
        rc = push(&defs, &ndefs, &capdefs, d);
    }
    pthread_mutex_unlock(&lock);
    if (rc) {
        cs_reg_def_free(d);
        return cs_fail(err, CS_ENOMEM, "out of memory");
    }
    if (replaced)
        *replaced = rep;
    return CS_OK;
}

void cs_reg_defs_reset(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < ndefs; i++)
        cs_reg_def_free(defs[i]);
    for (size_t i = 0; i < nretired; i++)
        cs_reg_def_free(retired[i]);
    free(defs);
    free(retired);
    defs = retired = NULL;
    ndefs = capdefs = nretired = capretired = 0;
    pthread_mutex_unlock(&lock);
}
