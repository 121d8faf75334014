/* cs_device.h — where a computation runs, as a value: the interpreter
 * parses `device=` and `set device` once; the engine switches on this. */
#ifndef CS_DEVICE_H
#define CS_DEVICE_H

#include "cs_error.h"

typedef enum cs_device {
    CS_DEVICE_CPU = 0,   /* the default */
    CS_DEVICE_CUDA,
    CS_DEVICE_AUTO       /* cuda when a GPU answers, else cpu (networks) */
} cs_device;

/* "cpu", "cuda", "auto"; "?" for a value out of range. */
const char *cs_device_name(cs_device d);
/* One of those names; else CS_EINVAL "device X: expected cpu, cuda or auto". */
int cs_device_parse(const char *name, cs_device *out, cs_err *err);

#endif
