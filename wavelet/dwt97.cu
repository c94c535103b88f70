/* CUDA kernels of the CDF 9/7 (float32): the C reference is dwt97.c. */
#include "dwt_kernels.cuh"

const wav::filter_kernels wav::kernels_97 = wav::kernels_for<wav::Lift97>();
