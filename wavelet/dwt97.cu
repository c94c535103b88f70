/* CUDA kernels of the CDF 9/7 (float32): the C reference is dwt97.c. */
#include "dwt_kernels.cuh"

namespace wav
{

cudaError_t launch_level2d_97(bool inverse, const level2d_args &a, cudaStream_t s)
{
    return launch_level2d<Lift97>(inverse, a, s);
}

cudaError_t launch_rows_97(bool inverse, const rows_args &a, size_t smem_bytes, cudaStream_t s)
{
    return launch_rows<Lift97>(inverse, a, smem_bytes, s);
}

cudaError_t level2d_blocks_per_sm_97(bool inverse, int *blocks)
{
    return level2d_blocks_per_sm<Lift97>(inverse, blocks);
}

cudaError_t rows_allow_smem_97(size_t bytes)
{
    return rows_allow_smem<Lift97>(bytes);
}

} // namespace wav
