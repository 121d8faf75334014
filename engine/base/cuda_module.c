/* cuda_module.c — finding and opening the CUDA module (libcsreg_cuda.so)
 * with dlopen, and the environment variables that steer it:
 * CSREG_CUDA_MODULE (the module's path), CSREG_CUDA_DEVICE (which GPU) and
 * CSREG_CUDA_SYNC (synchronize and check after every op). The module holds
 * the network backend (engine/nn/cuda) and the batched sweep
 * (engine/recovery/cuda); each layer asks here for its own symbol. */
#include "cs_cuda_module.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int cs_cuda_env_device(const char *value, int *device, char *why, size_t len)
{
    *device = 0;
    if (!value || !*value)
        return 0;
    const char *p = value;
    while (isspace((unsigned char)*p))
        p++;
    char *end;
    errno = 0;
    long d = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : -1;
    if (d >= 0)
        while (isspace((unsigned char)*end))
            end++;
    if (d < 0 || errno || *end || d > INT_MAX) {
        snprintf(why, len, "CSREG_CUDA_DEVICE=%s: expected a device number 0, 1, ...", value);
        return -1;
    }
    *device = (int)d;
    return 0;
}

int cs_cuda_env_sync(const char *value)
{
    if (!value)
        return 0;
    return !strcmp(value, "1") || !strcasecmp(value, "yes") || !strcasecmp(value, "on") ||
           !strcasecmp(value, "true");
}

/* the folder of the running program, "" when /proc does not say */
static void exe_dir(char *dir, size_t len)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    dir[0] = '\0';
    if (n <= 0)
        return;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash)
        return;
    *slash = '\0';
    snprintf(dir, len, "%s", buf[0] ? buf : "/");
}

void cs_cuda_module_path(char *path, size_t len)
{
    const char *env = getenv("CSREG_CUDA_MODULE");
    if (env && *env) {
        snprintf(path, len, "%s", env);
        return;
    }
    char dir[4096];
    exe_dir(dir, sizeof dir);
    if (!dir[0]) {
        snprintf(path, len, "%s", CS_CUDA_MODULE_FILE);
        return;
    }
    char up[4096 + 64];
    snprintf(up, sizeof up, "%s/../%s", dir, CS_CUDA_MODULE_FILE);
    int n = snprintf(path, len, "%s/%s", dir, CS_CUDA_MODULE_FILE);
    if (n >= 0 && (size_t)n < len && access(path, F_OK) != 0 && access(up, F_OK) == 0)
        snprintf(path, len, "%s", up);
}

#ifdef CSREG_HAVE_CUDA
#include <dlfcn.h>

static void *g_handle;

/* dlopen once and keep it loaded: the CUDA runtime inside must outlive the
 * buffers it handed out */
static int open_module(char *why, size_t len)
{
    if (g_handle)
        return 0;
    char path[4096];
    cs_cuda_module_path(path, sizeof path);
    if (access(path, F_OK) != 0) {
        snprintf(why, len,
                 "the CUDA module %s is not there (install it beside csreg, or set "
                 "CSREG_CUDA_MODULE)",
                 path);
        return -1;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, len, "the CUDA module %s could not be loaded (%s)", path,
                 e ? e : "unknown error");
        return -1;
    }
    g_handle = h;
    return 0;
}

int cs_cuda_module_sym(const char *name, void **sym, char *why, size_t len)
{
    *sym = NULL;
    if (open_module(why, len))
        return -1;
    *sym = dlsym(g_handle, name);
    if (!*sym) {
        char path[4096];
        cs_cuda_module_path(path, sizeof path);
        snprintf(why, len, "the CUDA module %s does not fit this csreg (no %s: rebuild both)",
                 path, name);
        return -1;
    }
    return 0;
}
#endif

/* how every table the module exports begins (cs_cuda_module.h) */
typedef struct table_head {
    int abi;
    size_t size;
} table_head;

const void *cs_cuda_module_table(const char *name, int abi, size_t size, char *why, size_t len)
{
#ifdef CSREG_HAVE_CUDA
    void *sym;
    if (cs_cuda_module_sym(name, &sym, why, len))
        return NULL;
    const void *(*get)(void);
    memcpy(&get, &sym, sizeof get);   /* ISO C: no cast from void * to a function */
    const void *t = get();
    int a = 0;
    size_t n = 0;
    if (t) {   /* read as bytes: the table is the layer's own type */
        memcpy(&a, (const char *)t + offsetof(table_head, abi), sizeof a);
        memcpy(&n, (const char *)t + offsetof(table_head, size), sizeof n);
    }
    if (!t || a != abi || n != size) {
        char path[4096];
        cs_cuda_module_path(path, sizeof path);
        snprintf(why, len, "the CUDA module %s does not fit this csreg (rebuild both)", path);
        return NULL;
    }
    return t;
#else
    (void)name;
    (void)abi;
    (void)size;
    snprintf(why, len, "this csreg was built without CUDA (build with nvcc, CUDA=1)");
    return NULL;
#endif
}
