/* nn_cuda_load.c — finding and loading the CUDA backend module
 * (libcsreg_cuda.so) with dlopen, and the environment variables that steer
 * it: CSREG_CUDA_MODULE (the module's path), CSREG_CUDA_DEVICE (which GPU)
 * and CSREG_CUDA_SYNC (synchronize and check after every op). ./csreg links
 * no CUDA library: without the module, or without the CUDA libraries it
 * needs, device=auto runs on the CPU and says why, device=cuda fails with
 * the same reason. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "nn_backend.h"

int cs_nn_cuda_env_device(const char *value, int *device, char *why, size_t len)
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

int cs_nn_cuda_env_sync(const char *value)
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

void cs_nn_cuda_module_path(char *path, size_t len)
{
    const char *env = getenv("CSREG_CUDA_MODULE");
    if (env && *env) {
        snprintf(path, len, "%s", env);
        return;
    }
    char dir[4096];
    exe_dir(dir, sizeof dir);
    if (!dir[0]) {
        snprintf(path, len, "%s", CS_NN_CUDA_MODULE_FILE);
        return;
    }
    char up[4096 + 64];
    snprintf(up, sizeof up, "%s/../%s", dir, CS_NN_CUDA_MODULE_FILE);
    int n = snprintf(path, len, "%s/%s", dir, CS_NN_CUDA_MODULE_FILE);
    if (n >= 0 && (size_t)n < len && access(path, F_OK) != 0 && access(up, F_OK) == 0)
        snprintf(path, len, "%s", up);
}

#ifdef CSREG_HAVE_CUDA
#include <dlfcn.h>

static const cs_nn_cuda_module *g_mod;
static int g_ready;

static void shutdown_module(void)
{
    if (g_mod && g_ready)
        g_mod->shutdown();
    g_ready = 0;
}

/* dlopen the module once (kept loaded: its CUDA runtime must outlive the
 * buffers it handed out) */
static int load(char *why, size_t len)
{
    if (g_mod)
        return 0;
    char path[4096];
    cs_nn_cuda_module_path(path, sizeof path);
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
    cs_nn_cuda_module_fn get;
    void *sym = dlsym(h, CS_NN_CUDA_MODULE_SYM);
    memcpy(&get, &sym, sizeof get);   /* ISO C: no cast from void * to a function */
    const cs_nn_cuda_module *m = sym ? get() : NULL;
    if (!m || m->abi != CS_NN_CUDA_ABI || m->ops_size != sizeof(cs_nn_ops)) {
        snprintf(why, len, "the CUDA module %s does not fit this csreg (rebuild both)", path);
        dlclose(h);
        return -1;
    }
    g_mod = m;
    return 0;
}

int cs_nn_cuda_init(char *why, size_t len)
{
    if (g_ready)
        return 0;
    int dev;
    if (cs_nn_cuda_env_device(getenv("CSREG_CUDA_DEVICE"), &dev, why, len) || load(why, len))
        return -1;
    if (g_mod->init(dev, cs_nn_cuda_env_sync(getenv("CSREG_CUDA_SYNC")), why, len) != 0)
        return -1;
    atexit(shutdown_module);   /* runs before the CUDA runtime's own exit handlers */
    g_ready = 1;
    return 0;
}

void cs_nn_cuda_name(char *name, size_t len)
{
    if (g_ready)
        g_mod->name(name, len);
    else
        snprintf(name, len, "no CUDA device");
}

const cs_nn_ops *cs_nn_cuda_ops(void)
{
    return g_ready ? g_mod->ops : NULL;
}
#endif
