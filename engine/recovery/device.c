/* device.c — devices as values (cs_device.h). */
#include "cs_device.h"

#include <string.h>

static const char *const names[] = {"cpu", "cuda", "auto"};

const char *cs_device_name(cs_device d)
{
    return d >= CS_DEVICE_CPU && d <= CS_DEVICE_AUTO ? names[d] : "?";
}

int cs_device_parse(const char *name, cs_device *out, cs_err *err)
{
    for (int d = CS_DEVICE_CPU; d <= CS_DEVICE_AUTO; d++)
        if (name && !strcmp(name, names[d])) {
            *out = (cs_device)d;
            return CS_OK;
        }
    return cs_fail(err, CS_EINVAL, "device %s: expected cpu, cuda or auto", name ? name : "");
}
