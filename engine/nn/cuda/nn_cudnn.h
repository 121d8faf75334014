/* cuda/nn_cudnn.h — the convolutions and batch norms of the CUDA backend
 * through cuDNN 9 (nn_cudnn.cu), which the module loads with dlopen at
 * init, as ./csreg loads the module: never linked (neither ./csreg nor
 * libcsreg_cuda.so lists libcudnn), never bundled (about 500 MB); without
 * it, or when it fails to set up, nn_ops.cu's own kernels run and the
 * device's name says why. CSREG_CUDNN=off: no cuDNN at all;
 * CSREG_CUDNN_BN=off: the convolutions through cuDNN, the batch norms on
 * the own kernels (to time one against the other). Included from
 * nn_ops.cu and from the emulator's test (C). */
#ifndef CS_NN_CUDNN_H
#define CS_NN_CUDNN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where the search looks, from the environment (a test passes its own). */
typedef struct cudnn_env {
    const char *cudnn;         /* CSREG_CUDNN: a file, a folder, or "off" */
    const char *cuda_home;     /* CUDA_HOME */
    const char *virtual_env;   /* VIRTUAL_ENV */
    const char *home;          /* HOME */
    const char *root;          /* put before the system folders ("" or NULL: none; a test's tree) */
} cudnn_env;

#define CUDNN_PATH_MAX 4096
#define CUDNN_MAX_CANDIDATES 32

/* The files to try, in order, into paths (at most max); their count.
 * CSREG_CUDNN set: that file (a folder: its libcudnn.so.9) alone. Else the
 * soname libcudnn.so.9 (the loader's own search: LD_LIBRARY_PATH, the
 * module's runpath, the system's), $CUDA_HOME/lib64 and
 * /usr/local/cuda/lib64, then PyTorch's wheels, nvidia/cudnn/lib/
 * libcudnn.so.9 under /usr/lib/python3.N/dist-packages,
 * /usr/local/lib/python3.N/{site,dist}-packages,
 * $VIRTUAL_ENV/lib/python3.N/site-packages and
 * ~/.local/lib/python3.N/site-packages. Only files that are there (but
 * the soname), each once (by realpath). Runs no Python and loads nothing. */
int cudnn_candidates(const cudnn_env *env, char (*paths)[CUDNN_PATH_MAX], int max);

/* The convolutions' cuDNN: at the module's init, after cuBLAS; never
 * fails (without cuDNN the convolutions run the built-in kernels) */
void cudnn_init(void);
/* what init made: the handle, the plans, the workspace (the library stays
 * loaded) */
void cudnn_shutdown(void);
/* for the device's name: "cuDNN 9.1.0 from /usr/lib/.../libcudnn.so.9.1.0;
 * batch norm: cuDNN" (or "; batch norm: own kernels (CSREG_CUDNN_BN=off)")
 * or "no cuDNN (...): built-in kernels" */
const char *cudnn_status(void);

/* The convolutions of nn_ops.cu (k×k, k odd, padding k/2, stride 1 or 2,
 * NCHW float, cross-correlation; w is OC × C × k × k) through cuDNN: 1
 * done (an execution error is kept as the ops' errors are, under op), 0
 * not (no cuDNN, or this shape's setup failed, said once on stderr): the
 * caller runs its own kernels. Backward: dinp may be NULL; dw and dinp
 * are overwritten. */
int cudnn_conv_forward(float *out, const float *inp, const float *w, int B, int C, int H, int W,
                       int OC, int k, int stride, const char *op);
int cudnn_conv_backward(float *dinp, float *dw, const float *dout, const float *inp,
                        const float *w, int B, int C, int H, int W, int OC, int k, int stride,
                        const char *op);

/* Spatial batch norm of nn_ops.cu (nn_backend.h's bn_forward: statistics
 * over B × HW per channel, eps 1e-5, momentum 0.1, the running variance
 * unbiased; mean and rstd = 1/√(var + eps) saved in training) through
 * cuDNN's CUDNN_BATCHNORM_SPATIAL: 1 done, 0 not (no cuDNN,
 * CSREG_CUDNN_BN=off, a batch of one value per channel in training, or
 * this shape's setup failed): the caller runs its own kernels. Eval reads
 * run_mean/run_var and leaves mean, rstd alone. Backward: dinp, dgamma and
 * dbeta overwritten; dinp must not be NULL (cuDNN always writes it). */
int cudnn_bn_forward(float *out, const float *inp, const float *gamma, const float *beta,
                     float *mean, float *rstd, float *run_mean, float *run_var, int B, int C,
                     int HW, int train, const char *op);
int cudnn_bn_backward(float *dinp, float *dgamma, float *dbeta, const float *dout,
                      const float *inp, const float *gamma, const float *mean, const float *rstd,
                      int B, int C, int HW, const char *op);

#ifdef __cplusplus
}
#endif

#endif
