/* CUDA-OpenGL interop for the display (interop.c; interop_stub.c in builds
 * without CUDA): a GL texture registered with CUDA receives device planes
 * by a device-to-array copy on the caller's stream. The GL context that
 * owns the textures must be current. */
#ifndef XSF_DISPLAY_INTEROP_H
#define XSF_DISPLAY_INTEROP_H

#include <stddef.h>
#include <stdint.h>

#include "xsf.h"
#include "xsf_picture.h"

/* 1 when this build has the interop and a CUDA device is usable. */
int dsp_interop_usable(void);
int dsp_interop_built(void);

/* Registers the GL_TEXTURE_2D `texture` (GL_R16) for writing from CUDA;
 * *resource is a cudaGraphicsResource_t. Blocks (registration is slow:
 * it is done when a tile's format changes, never per picture). */
xsf_status dsp_interop_register(unsigned texture, void **resource, xsf_error *err);
void dsp_interop_unregister(void *resource);

/* Copies the first n planes of a device picture (XSF_PLANAR_U16) into the
 * registered textures, in order on `stream`: map, copy, unmap, all
 * enqueued; the unmap orders GL's later use after the copy. */
xsf_status dsp_interop_copy(void *const *resource, int n, const xsf_picture *pic, void *stream,
                            xsf_error *err);

/* A CUDA stream of the display's own (non-blocking: it never waits for the
 * decoders' streams; of the highest priority) for device pictures handed
 * over without one and the compositor, and a wait for the work enqueued on
 * it. */
void *dsp_interop_stream_create(void);
void dsp_interop_stream_destroy(void *stream);
xsf_status dsp_interop_stream_sync(void *stream, xsf_error *err);

#endif
