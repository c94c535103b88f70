/* The display's CUDA compositor (see compose.h): pictures kept in device
 * memory are converted to R'G'B' and scaled into their tiles of one RGBA16
 * texture by a kernel on every SM, so that the only GL work left per
 * present is a 1:1 copy to the framebuffer and the overlay text (offscreen
 * into an 8-bit target, not even the copy: the kernels write the target).
 *
 * Why: the colour conversion as a fragment shader costs 2.2 ms per UHD
 * picture on an H100, whose graphics pipeline runs on 2 of its 66 TPCs;
 * the same arithmetic as a kernel takes tens of microseconds there, and no
 * more on a graphics GPU.
 *
 * The arithmetic is the shader path's, step for step: each picture pixel
 * is converted with its co-sited chroma sample (x / sub.x, y / sub.y),
 * clamped and rounded to 16 bits (the shader path's RGBA16 picture
 * texture), then the tile's rectangle samples that picture bilinearly at
 * pixel centres with clamped edges (the blit's GL_LINEAR sampling). At 1:1
 * the result is the shader path's picture exactly. */
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include "compose.h"

namespace
{

struct picture_args {
    const unsigned short *plane[3];
    size_t pitch[3]; /* samples */
    int width, height, nc, subx, suby;
    float scale[3], bias[3], m[9];
};

/* One picture pixel as 16-bit R'G'B' (as float, already rounded). */
__device__ float3 convert(const picture_args &p, int x, int y)
{
    float e0 = (float)p.plane[0][(size_t)y * p.pitch[0] + x], e1 = 0.0f, e2 = 0.0f;
    if (p.nc == 3) {
        const int cx = x / p.subx, cy = y / p.suby;
        e1 = (float)p.plane[1][(size_t)cy * p.pitch[1] + cx];
        e2 = (float)p.plane[2][(size_t)cy * p.pitch[2] + cx];
    }
    e0 = e0 * p.scale[0] + p.bias[0];
    e1 = e1 * p.scale[1] + p.bias[1];
    e2 = e2 * p.scale[2] + p.bias[2];
    float r = p.m[0] * e0 + p.m[1] * e1 + p.m[2] * e2;
    float g = p.m[3] * e0 + p.m[4] * e1 + p.m[5] * e2;
    float b = p.m[6] * e0 + p.m[7] * e1 + p.m[8] * e2;
    r = rintf(fminf(fmaxf(r, 0.0f), 1.0f) * 65535.0f);
    g = rintf(fminf(fmaxf(g, 0.0f), 1.0f) * 65535.0f);
    b = rintf(fminf(fmaxf(b, 0.0f), 1.0f) * 65535.0f);
    return make_float3(r, g, b);
}

/* Output pixel (rx + i, ry + j), rows counted from the top; the surface's
 * row 0 is the framebuffer's bottom row (GL). */
__global__ void compose_tile(cudaSurfaceObject_t out, int out_h, int rx, int ry, int rw, int rh,
                             int out8, picture_args p)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= rw || j >= rh)
        return;
    /* The texel-space coordinate GL_LINEAR samples at this pixel's centre. */
    const float u = ((float)i + 0.5f) / (float)rw * (float)p.width - 0.5f;
    const float v = ((float)j + 0.5f) / (float)rh * (float)p.height - 0.5f;
    const float fu = floorf(u), fv = floorf(v);
    const float a = u - fu, b = v - fv;
    const int x0 = min(max((int)fu, 0), p.width - 1), x1 = min(max((int)fu + 1, 0), p.width - 1);
    const int y0 = min(max((int)fv, 0), p.height - 1), y1 = min(max((int)fv + 1, 0), p.height - 1);
    float3 c;
    if (a == 0.0f && b == 0.0f) {
        c = convert(p, x0, y0);
    } else {
        const float3 c00 = convert(p, x0, y0), c10 = convert(p, x1, y0);
        const float3 c01 = convert(p, x0, y1), c11 = convert(p, x1, y1);
        c.x = (1 - b) * ((1 - a) * c00.x + a * c10.x) + b * ((1 - a) * c01.x + a * c11.x);
        c.y = (1 - b) * ((1 - a) * c00.y + a * c10.y) + b * ((1 - a) * c01.y + a * c11.y);
        c.z = (1 - b) * ((1 - a) * c00.z + a * c10.z) + b * ((1 - a) * c01.z + a * c11.z);
    }
    const int row = out_h - 1 - (ry + j);
    if (out8) {
        /* What GL writes into an 8-bit target from the blit's float colour. */
        const float k = 255.0f / 65535.0f;
        surf2Dwrite(make_uchar4((unsigned char)rintf(c.x * k), (unsigned char)rintf(c.y * k),
                                (unsigned char)rintf(c.z * k), 255),
                    out, (rx + i) * (int)sizeof(uchar4), row);
    } else {
        surf2Dwrite(make_ushort4((unsigned short)rintf(c.x), (unsigned short)rintf(c.y),
                                 (unsigned short)rintf(c.z), 65535),
                    out, (rx + i) * (int)sizeof(ushort4), row);
    }
}

__global__ void clear(cudaSurfaceObject_t out, int w, int h, int out8)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    if (out8)
        surf2Dwrite(make_uchar4(0, 0, 0, 255), out, x * (int)sizeof(uchar4), y);
    else
        surf2Dwrite(make_ushort4(0, 0, 0, 65535), out, x * (int)sizeof(ushort4), y);
}

xsf_status cuda_fail(xsf_error *err, const char *what, cudaError_t e)
{
    cudaGetLastError();
    return xsf_error_set(err, XSF_ERR_CUDA, "%s: %s", what, cudaGetErrorString(e));
}

} // namespace

extern "C" {

xsf_status dsp_compose_register(unsigned texture, void **resource, xsf_error *err)
{
    cudaGraphicsResource *r = NULL;
    const cudaError_t e = cudaGraphicsGLRegisterImage(&r, texture, GL_TEXTURE_2D,
                                                      cudaGraphicsRegisterFlagsSurfaceLoadStore |
                                                          cudaGraphicsRegisterFlagsWriteDiscard);
    *resource = e == cudaSuccess ? r : NULL;
    return e == cudaSuccess ? XSF_OK
                            : cuda_fail(err, "cudaGraphicsGLRegisterImage (compositor)", e);
}

xsf_status dsp_compose_map(void *resource, void *stream, unsigned long long *surface,
                           xsf_error *err)
{
    cudaGraphicsResource *r = (cudaGraphicsResource *)resource;
    cudaError_t e = cudaGraphicsMapResources(1, &r, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return cuda_fail(err, "cudaGraphicsMapResources (compositor)", e);
    cudaArray_t array = NULL;
    e = cudaGraphicsSubResourceGetMappedArray(&array, r, 0, 0);
    cudaSurfaceObject_t s = 0;
    if (e == cudaSuccess) {
        cudaResourceDesc rd = {};
        rd.resType = cudaResourceTypeArray;
        rd.res.array.array = array;
        e = cudaCreateSurfaceObject(&s, &rd);
    }
    if (e != cudaSuccess) {
        cudaGraphicsUnmapResources(1, &r, (cudaStream_t)stream);
        return cuda_fail(err, "the compositor's surface", e);
    }
    *surface = s;
    return XSF_OK;
}

xsf_status dsp_compose_unmap(void *resource, unsigned long long surface, void *stream,
                             xsf_error *err)
{
    cudaGraphicsResource *r = (cudaGraphicsResource *)resource;
    const cudaError_t k = cudaGetLastError(); /* a failed launch since the map */
    cudaDestroySurfaceObject((cudaSurfaceObject_t)surface);
    const cudaError_t e = cudaGraphicsUnmapResources(1, &r, (cudaStream_t)stream);
    if (k != cudaSuccess)
        return cuda_fail(err, "compositor kernel", k);
    return e == cudaSuccess ? XSF_OK : cuda_fail(err, "cudaGraphicsUnmapResources (compositor)", e);
}

void dsp_compose_clear(unsigned long long surface, int width, int height, int out8, void *stream)
{
    const dim3 block(32, 8), grid((unsigned)(width + 31) / 32, (unsigned)(height + 7) / 8);
    clear<<<grid, block, 0, (cudaStream_t)stream>>>((cudaSurfaceObject_t)surface, width, height,
                                                    out8);
}

void dsp_compose_tile(unsigned long long surface, int out_h, int out8, int rx, int ry, int rw,
                      int rh, const dsp_compose_params *cp, void *stream)
{
    if (rw <= 0 || rh <= 0)
        return;
    const xsf_picture *pic = &cp->pic;
    const int nc = pic->fmt.nc;
    picture_args p;
    for (int c = 0; c < 3; c++) {
        p.plane[c] = (const uint16_t *)pic->data[c < nc ? c : 0];
        p.pitch[c] = pic->stride[c < nc ? c : 0] / sizeof(unsigned short);
        p.scale[c] = cp->scale[c];
        p.bias[c] = cp->bias[c];
    }
    for (int k = 0; k < 9; k++)
        p.m[k] = cp->m[k];
    p.width = pic->fmt.width[0];
    p.height = pic->fmt.height[0];
    p.nc = nc;
    p.subx = cp->subx;
    p.suby = cp->suby;
    const dim3 block(32, 8), grid((unsigned)(rw + 31) / 32, (unsigned)(rh + 7) / 8);
    compose_tile<<<grid, block, 0, (cudaStream_t)stream>>>((cudaSurfaceObject_t)surface, out_h, rx,
                                                           ry, rw, rh, out8, p);
}

void *dsp_cuda_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

void dsp_cuda_free(void *p)
{
    if (p)
        cudaFree(p);
}

xsf_status dsp_cuda_copy_plane(void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                               size_t row_bytes, size_t rows, int from_host, void *stream,
                               xsf_error *err)
{
    const cudaError_t e = cudaMemcpy2DAsync(
        dst, dst_pitch, src, src_pitch, row_bytes, rows,
        from_host ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice, (cudaStream_t)stream);
    return e == cudaSuccess ? XSF_OK
                            : cuda_fail(err, "a picture plane into the display's memory", e);
}

xsf_status dsp_compose_check(xsf_error *err)
{
    const cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? XSF_OK : cuda_fail(err, "compositor kernel", e);
}

void *dsp_cuda_event_create(void)
{
    cudaEvent_t e = NULL;
    if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return e;
}

void dsp_cuda_event_destroy(void *event)
{
    if (event)
        cudaEventDestroy((cudaEvent_t)event);
}

int dsp_cuda_event_record(void *event, void *stream)
{
    return cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream) == cudaSuccess ? 0 : -1;
}

int dsp_cuda_event_done(void *event)
{
    const cudaError_t e = cudaEventQuery((cudaEvent_t)event);
    if (e == cudaErrorNotReady) {
        cudaGetLastError();
        return 0;
    }
    return 1; /* done, or failed: nothing more will come of it */
}

} /* extern "C" */
