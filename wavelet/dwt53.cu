/* CUDA kernels of the CDF 5/3 (integer, exact): the C reference is dwt53.c. */
#include "dwt_kernels.cuh"

const wav::filter_kernels wav::kernels_53 = wav::kernels_for<wav::Lift53>();
