/* CUDA kernels of the CDF 5/3 (integer, exact): the C reference is dwt53.c. */
#include "dwt_kernels.cuh"

namespace wav
{

cudaError_t launch_level2d_53(bool inverse, const level2d_args &a, cudaStream_t s)
{
    return launch_level2d<Lift53>(inverse, a, s);
}

cudaError_t launch_rows_53(bool inverse, const rows_args &a, size_t smem_bytes, cudaStream_t s)
{
    return launch_rows<Lift53>(inverse, a, smem_bytes, s);
}

cudaError_t level2d_blocks_per_sm_53(bool inverse, int *blocks)
{
    return level2d_blocks_per_sm<Lift53>(inverse, blocks);
}

cudaError_t rows_allow_smem_53(size_t bytes)
{
    return rows_allow_smem<Lift53>(bytes);
}

} // namespace wav
