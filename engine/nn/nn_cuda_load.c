/* nn_cuda_load.c — the network backend's table from the CUDA module
 * (cs_cuda_module.h finds and opens it), the device CSREG_CUDA_DEVICE
 * selects and the checks CSREG_CUDA_SYNC turns on. ./csreg links
 * no CUDA library: without the module, or without the CUDA libraries it
 * needs, device=auto runs on the CPU and says why, device=cuda fails with
 * the same reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_cuda_module.h"
#include "nn_backend.h"

#ifdef CSREG_HAVE_CUDA

static const cs_nn_cuda_module *g_mod;
static int g_ready;

static void shutdown_module(void)
{
    if (g_mod && g_ready)
        g_mod->shutdown();
    g_ready = 0;
}

/* the module's table (cs_cuda_module.h opens it) */
static int load(char *why, size_t len)
{
    if (g_mod)
        return 0;
    const cs_nn_cuda_module *m = cs_cuda_module_table(CS_NN_CUDA_MODULE_SYM, CS_NN_CUDA_ABI,
                                                      sizeof(cs_nn_ops), why, len);
    if (!m)
        return -1;
    g_mod = m;
    return 0;
}

int cs_nn_cuda_init(char *why, size_t len)
{
    if (g_ready)
        return 0;
    int dev;
    if (cs_cuda_env_device(getenv("CSREG_CUDA_DEVICE"), &dev, why, len) || load(why, len))
        return -1;
    if (g_mod->init(dev, cs_cuda_env_sync(getenv("CSREG_CUDA_SYNC")), why, len) != 0)
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
