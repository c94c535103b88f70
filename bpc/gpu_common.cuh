/* Host-side helpers of the CUDA codec (gpu_encoder.cu, gpu_decoder.cu):
 * error checking of every CUDA call and launch (one macro), the launch
 * macro the host emulation replaces, per-band arrays, the DWT plans. */
#ifndef XSF_BPC_GPU_COMMON_CUH
#define XSF_BPC_GPU_COMMON_CUH

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "bpc.h"
#include "bpc_internal.h"
#include "gpu_internal.h"
#include "wavelet_cuda.h"

#define CK(self, call)                                                                             \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess)                                                                     \
            return xsf_error_set(&(self)->err, XSF_ERR_CUDA, "%s: %s", #call,                      \
                                 cudaGetErrorString(e_));                                          \
    } while (0)
#define CK_LAUNCH(self) CK(self, cudaGetLastError())

/* Kernel launches go through one macro, so that the host emulation of the
 * tests (tests/bpc/emu) can run them. */
#ifndef BPC_LAUNCH
#define BPC_LAUNCH(kernel, grid, block, stream, ...)                                               \
    kernel<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__)
#endif

#define ALLOC(self, ptr, bytes)                                                                    \
    do {                                                                                           \
        const size_t n_ = (bytes);                                                                 \
        CK(self, cudaMalloc((void **)&(ptr), n_ > 0 ? n_ : 1));                                    \
    } while (0)

/* ---- shared host helpers ---- */

static inline int grid_for(size_t threads, int per_block)
{
    return (int)((threads + per_block - 1) / per_block);
}

/* Per-band arrays of a layout: 1/step, step/2, bitplane bounds. */
static inline void band_arrays(const bpc_layout *lay, float *inv, float *half, uint8_t *bound)
{
    for (int c = 0; c < lay->nc; c++)
        for (int b = 0; b < lay->comp[c].nbands; b++) {
            const bpc_band *bd = &lay->comp[c].band[b];
            inv[c * BPC_MAX_BANDS + b] = 1.0f / bd->step;
            half[c * BPC_MAX_BANDS + b] = bd->step * 0.5f;
            bound[c * BPC_MAX_BANDS + b] = (uint8_t)bd->planes_bound;
        }
}

/* DWT plans: one for all components when they share a size (planes stacked
 * in one buffer), else one per component. */
struct bpc_dwt {
    int nplans;
    wav_cuda_plan *plan[BPC_MAX_COMPONENTS];
    size_t offset[BPC_MAX_COMPONENTS]; /* elements: component c's plane in the buffers */
    size_t elements;
};

static inline xsf_status dwt_create(bpc_dwt *d, const bpc_layout *lay, xsf_error *err)
{
    memset(d, 0, sizeof *d);
    int same = 1;
    for (int c = 1; c < lay->nc; c++)
        same &= lay->width[c] == lay->width[0] && lay->height[c] == lay->height[0];
    size_t off = 0;
    for (int c = 0; c < lay->nc; c++) {
        d->offset[c] = off;
        off += (size_t)lay->width[c] * lay->height[c];
    }
    d->elements = off;
    d->nplans = same ? 1 : lay->nc;
    for (int i = 0; i < d->nplans; i++) {
        wav_plan_desc w;
        bpc_layout_wavelet(lay, i, same ? (size_t)lay->nc : 1, &w);
        xsf_status s = wav_cuda_plan_create(&d->plan[i], &w, err);
        if (s)
            return s;
    }
    return XSF_OK;
}

static inline void dwt_destroy(bpc_dwt *d)
{
    for (int i = 0; i < d->nplans; i++)
        if (d->plan[i])
            wav_cuda_plan_destroy(d->plan[i]);
    memset(d, 0, sizeof *d);
}

static inline xsf_status dwt_run(bpc_dwt *d, int inverse, const void *src, void *dst,
                                 cudaStream_t st)
{
    for (int i = 0; i < d->nplans; i++) {
        const size_t off = d->offset[i] * 4;
        const void *s = (const uint8_t *)src + off;
        void *t = (uint8_t *)dst + off;
        xsf_status r = inverse ? wav_cuda_inverse_to(d->plan[i], s, t, st)
                               : wav_cuda_forward_to(d->plan[i], s, t, st);
        if (r)
            return r;
    }
    return XSF_OK;
}

#endif
