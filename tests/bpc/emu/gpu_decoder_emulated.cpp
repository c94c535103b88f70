/* bpc/gpu_decoder.cu built as host C++ against the emulated CUDA (cuda_emu.h,
 * cuda_runtime_api.h, cub/cub.cuh, wavelet_cuda_emu.cpp): kernel launches
 * run every thread as a fiber. */
#include "cuda_emu.h"
#define BPC_LAUNCH(kernel, grid, block, stream, ...)                                               \
    emu_launch_grid(dim3(grid), dim3(block), [&] { kernel(__VA_ARGS__); })
#include "gpu_decoder.cu"
