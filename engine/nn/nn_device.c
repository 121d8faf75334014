/* nn_device.c — the network's devices: checking and resolving a device
 * name, its op table, and turning the device's errors into cs_fail. A
 * leaf under the rest of engine/nn (it calls only the backends). */
#include <stdio.h>
#include <string.h>

#include "nn_internal.h"

/* ------------------------------------------------------------------ devices */

int cs_nn_device_check(const char *device, cs_err *err)
{
    if (!device || !strcmp(device, "cpu") || !strcmp(device, "auto"))
        return CS_OK;
    if (strcmp(device, "cuda") != 0)
        return cs_fail(err, CS_EINVAL, "unknown device '%s' (cpu, cuda or auto)", device);
#ifdef CSREG_HAVE_CUDA
    char why[256];
    if (cs_nn_cuda_init(why, sizeof why) != 0)
        return cs_fail(err, CS_EUNSUPPORTED, "device=cuda: %s", why);
    return CS_OK;
#else
    return cs_fail(err, CS_EUNSUPPORTED,
                   "device=cuda: this csreg was built without CUDA (build with nvcc, CUDA=1)");
#endif
}

int cs_nn_device_resolve(const char *requested, char *chosen, size_t len, char *why, size_t wlen,
                         cs_err *err)
{
    const char *dev = requested ? requested : "cpu";
    if (why && wlen)
        why[0] = '\0';
    if (strcmp(dev, "auto") != 0) {
        int rc = cs_nn_device_check(dev, err);
        if (rc)
            return rc;
        snprintf(chosen, len, "%s", dev);
        return CS_OK;
    }
#ifdef CSREG_HAVE_CUDA
    char msg[256];
    if (cs_nn_cuda_init(msg, sizeof msg) == 0) {
        char name[256];
        cs_nn_cuda_name(name, sizeof name);
        snprintf(chosen, len, "cuda");
        if (why && wlen)
            snprintf(why, wlen, "auto: cuda (%s found)", name);
        return CS_OK;
    }
    snprintf(chosen, len, "cpu");
    if (why && wlen)
        snprintf(why, wlen, "auto: cpu (no GPU: %s)", msg);
#else
    snprintf(chosen, len, "cpu");
    if (why && wlen)
        snprintf(why, wlen, "auto: cpu (built without CUDA)");
#endif
    return CS_OK;
}

const cs_nn_ops *nn_ops_for(const char *device)
{
#ifdef CSREG_HAVE_CUDA
    if (device && !strcmp(device, "cuda") && cs_nn_cuda_ops())
        return cs_nn_cuda_ops();
#endif
    (void)device;
    return &cs_nn_cpu_ops;
}

/* ------------------------------------------------------------------ errors */

int nn_device_check(cs_nn *nn, cs_err *err)
{
    char msg[CS_ERR_MAX - 64];
    if (nn->ops->error && nn->ops->error(msg, sizeof msg) != 0)
        return cs_fail(err, CS_EIO, "device=%s: %s", nn->device, msg);
    return CS_OK;
}

int nn_device_fail(cs_nn *nn, const char *what, cs_err *err)
{
    int rc = nn_device_check(nn, err);
    return rc ? rc : cs_fail(err, CS_EIO, "%s: %s failed", nn->device, what);
}
