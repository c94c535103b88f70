/* The display's CUDA compositor (compose.cu; stubs in interop_stub.c for
 * builds without CUDA). Internal to display/. The GL context that owns the
 * texture must be current on the calling thread. */
#ifndef XSF_DISPLAY_COMPOSE_H
#define XSF_DISPLAY_COMPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "xsf.h"
#include "xsf_picture.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the compositor draws of one tile: a picture in device memory (a
 * view; nc 1 or 3, strides even) and its conversion: R'G'B' = clamp(m .
 * (sample x scale + bias)), m row-major (rows R', G', B'). */
typedef struct dsp_compose_params {
    xsf_picture pic;
    int subx, suby; /* chroma subsampling (1 or 2) */
    float scale[3], bias[3], m[9];
} dsp_compose_params;

/* Registers an RGBA16 (or, out8, RGBA8) GL_TEXTURE_2D for writing by the
 * compositor (once per size: registration is slow). */
xsf_status dsp_compose_register(unsigned texture, void **resource, xsf_error *err);
/* Maps it for a present (*surface: a cudaSurfaceObject_t) and unmaps it;
 * the unmap orders GL's later use of the texture after the kernels. */
xsf_status dsp_compose_map(void *resource, void *stream, unsigned long long *surface,
                           xsf_error *err);
xsf_status dsp_compose_unmap(void *resource, unsigned long long surface, void *stream,
                             xsf_error *err);
/* Black over the whole width x height texture (out8: RGBA8, else RGBA16). */
void dsp_compose_clear(unsigned long long surface, int width, int height, int out8, void *stream);
/* The picture scaled into the rectangle (rx, ry, rw, rh), rows counted from
 * the top of a texture of out_h rows. Launch errors surface at the unmap. */
void dsp_compose_tile(unsigned long long surface, int out_h, int out8, int rx, int ry, int rw,
                      int rh, const dsp_compose_params *cp, void *stream);

/* A launch of the two above that failed since the last check. */
xsf_status dsp_compose_check(xsf_error *err);

/* Device memory for the pictures the display keeps, and a plane into it
 * (from host or device memory) on `stream`. */
void *dsp_cuda_alloc(size_t bytes);
void dsp_cuda_free(void *p);
xsf_status dsp_cuda_copy_plane(void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                               size_t row_bytes, size_t rows, int from_host, void *stream,
                               xsf_error *err);

/* Events on the display's stream: whether the kernels before one are done
 * (without waiting). */
void *dsp_cuda_event_create(void);
void dsp_cuda_event_destroy(void *event);
int dsp_cuda_event_record(void *event, void *stream);
int dsp_cuda_event_done(void *event);

#ifdef __cplusplus
}
#endif
#endif
