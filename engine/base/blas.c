#include "cs_blas.h"

#include <cblas.h>

void cs_blas_set_threads(int threads) { openblas_set_num_threads(threads > 0 ? threads : 1); }

int cs_blas_hold_threads(int n)
{
    int saved = openblas_get_num_threads();
    openblas_set_num_threads(n);
    return saved;
}

void cs_blas_restore_threads(int saved) { openblas_set_num_threads(saved); }
