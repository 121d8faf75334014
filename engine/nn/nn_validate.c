/* nn_validate.c — checks of a loaded checkpoint's contents (nn_validate.h). */
#include "nn_validate.h"

#include <math.h>

int nn_validate_wlayer(const char *path, const nn_wlayer *w, uint32_t quant, uint64_t rows,
                       uint64_t cols, cs_err *err)
{
    if (rows != w->rows || cols != w->cols)
        return cs_fail(err, CS_EINVAL, "%s: shape mismatch: layer %s is %llux%llu in the file, "
                       "the model needs %zux%zu", path, w->name, (unsigned long long)rows,
                       (unsigned long long)cols, w->rows, w->cols);
    if (quant > 2)
        return cs_fail(err, CS_EINVAL, "%s: layer %s has quantization %u in the file (0: none, "
                       "1: binary, 2: ternary): the file is forged or corrupt", path, w->name,
                       quant);
    return CS_OK;
}

int nn_validate_stats(const char *path, const cs_nn *nn, const float *bufs, cs_err *err)
{
    for (int i = 0; i < nn->nlayers; i++) {
        const nn_layer *l = &nn->layer[i];
        if (l->type != NN_BN)
            continue;
        const float *mean = bufs + l->boff, *var = mean + l->C;
        for (int c = 0; c < l->C; c++) {
            if (isfinite(mean[c]) && isfinite(var[c]) && var[c] >= 0.0f)
                continue;
            char bn[32];
            nn_module_name(nn, i, bn, sizeof bn);
            if (!isfinite(mean[c]))
                return cs_fail(err, CS_EINVAL, "%s: batch norm %s: the running mean of channel "
                               "%d is %g: the file is forged or corrupt", path, bn, c,
                               (double)mean[c]);
            return cs_fail(err, CS_EINVAL, "%s: batch norm %s: the running variance of channel "
                           "%d is %g (a variance is >= 0): the file is forged or corrupt", path,
                           bn, c, (double)var[c]);
        }
    }
    return CS_OK;
}
