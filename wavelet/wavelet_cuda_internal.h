/* Internal to wavelet/: the launch interface between the CUDA plan
 * (plan_cuda.cu) and the kernels of each filter (dwt53.cu, dwt97.cu). */
#ifndef XSF_WAVELET_CUDA_INTERNAL_H
#define XSF_WAVELET_CUDA_INTERNAL_H

#include <cuda_runtime.h>

#include "wavelet.h"
#include "wavelet_cuda.h"

namespace wav
{

/* A region of device memory, in elements. */
struct surface {
    void *ptr;
    long long pitch;
    long long plane_stride;
};

/* One 2D level (both dimensions split) of a w x h region, w >= 1, h >= 2.
 * Forward: image -> ll (LL band) and hi (HL at (wl, 0), LH at (0, hl), HH at
 * (wl, hl) of the same region origin). Inverse: ll + hi -> image. */
struct level2d_args {
    surface image, ll, hi;
    int width, height;
    int chunk_pairs; /* pair rows per warp */
    int planes;
    /* The pairs of rows of `image` computed: [pair_first, pair_end) of the
     * (height + 1) / 2 (all of them but for the incremental inverse). */
    int pair_first, pair_end;
};

/* Horizontal-only levels of a W x H region, each row by one warp: the row is
 * staged whole (shared memory or, where too long, the global stage buffer),
 * then `levels` levels run from the stage, so src may equal dst. */
struct rows_args {
    surface src, dst;
    void *stage_global; /* planes * H rows of stage_elems, or NULL to use shared memory */
    int width, height, levels, planes;
    int row_first;   /* the rows run: [row_first, row_first + height) of the region */
    int stage_elems; /* per row, a multiple of 4 */
    int warps_per_block;
};

constexpr int LEVEL2D_WARPS = 4;
/* Pairs of columns a warp of the 2D and row kernels stores (dwt_lifting.cuh). */
constexpr int LEVEL2D_VALID_PAIRS = 120;

/* Elements of the stage of one row of `width` samples: the row and two
 * ping-pong buffers for the intermediate low-pass bands. */
static inline int rows_stage_elems(int width)
{
    const int a = (width + 3) & ~3, b = (((width + 1) / 2) + 3) & ~3,
              c = (((width + 3) / 4) + 3) & ~3;
    return a + b + c;
}

/* Chunks of a 2D level launch (its grid's y), shared with the host emulation of the tests. */
static inline int level2d_chunks(const level2d_args &a)
{
    return (a.pair_end - a.pair_first + a.chunk_pairs - 1) / a.chunk_pairs;
}

/* The launches of one filter's kernels (dwt_kernels.cuh's templates for it):
 * one table a filter, kernels_53 in dwt53.cu and kernels_97 in dwt97.cu. */
/* u16 (not NULL, the 5/3's inverse only): the step writes its output, `image`
 * or the rows' dst, into u16's 16-bit planes instead (wavelet_cuda.h). */
struct filter_kernels {
    cudaError_t (*launch_level2d)(bool inverse, const level2d_args &a, const wav_u16_output *u16,
                                  cudaStream_t s);
    cudaError_t (*launch_rows)(bool inverse, const rows_args &a, const wav_u16_output *u16,
                               size_t smem_bytes, cudaStream_t s);
    /* Blocks of a 2D level kernel that fit on one multiprocessor (registers). */
    cudaError_t (*level2d_blocks_per_sm)(bool inverse, int *blocks);
    /* Raise the dynamic shared-memory limit of the row kernels (once per plan). */
    cudaError_t (*rows_allow_smem)(size_t bytes);
};
extern const filter_kernels kernels_53, kernels_97;

static inline const filter_kernels &kernels_of(wav_filter filter)
{
    return filter == WAV_FILTER_53 ? kernels_53 : kernels_97;
}

} // namespace wav

#endif
