/* CUDA-OpenGL interop (CUDA runtime API, compiled as C): device planes go
 * into the tile's GL textures with cudaMemcpy2DToArrayAsync, never through
 * host memory. epoxy's header comes first: it stands in for GL/gl.h, which
 * cuda_gl_interop.h includes. */
#include <epoxy/gl.h>

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include "interop.h"

int dsp_interop_built(void)
{
    return 1;
}

int dsp_interop_usable(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

xsf_status dsp_interop_register(unsigned texture, void **resource, xsf_error *err)
{
    struct cudaGraphicsResource *r = NULL;
    const cudaError_t e = cudaGraphicsGLRegisterImage(&r, texture, GL_TEXTURE_2D,
                                                      cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
        *resource = NULL;
        return xsf_error_set(
            err, XSF_ERR_CUDA,
            "cudaGraphicsGLRegisterImage: %s (is the GL context on the CUDA device?)",
            cudaGetErrorString(e));
    }
    *resource = r;
    return XSF_OK;
}

void dsp_interop_unregister(void *resource)
{
    if (resource)
        cudaGraphicsUnregisterResource((struct cudaGraphicsResource *)resource);
}

xsf_status dsp_interop_copy(void *const *resource, int n, const xsf_picture *pic, void *stream,
                            xsf_error *err)
{
    struct cudaGraphicsResource *res[4];
    if (n < 1 || n > 4)
        return xsf_error_set(err, XSF_ERR_ARG, "%d planes", n);
    for (int i = 0; i < n; i++)
        res[i] = (struct cudaGraphicsResource *)resource[i];
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e = cudaGraphicsMapResources(n, res, s);
    if (e != cudaSuccess)
        return xsf_error_set(err, XSF_ERR_CUDA, "cudaGraphicsMapResources: %s",
                             cudaGetErrorString(e));
    for (int i = 0; i < n && e == cudaSuccess; i++) {
        cudaArray_t array = NULL;
        e = cudaGraphicsSubResourceGetMappedArray(&array, res[i], 0, 0);
        if (e == cudaSuccess)
            e = cudaMemcpy2DToArrayAsync(array, 0, 0, pic->data[i], pic->stride[i],
                                         (size_t)pic->fmt.width[i] * 2, (size_t)pic->fmt.height[i],
                                         cudaMemcpyDeviceToDevice, s);
        if (e != cudaSuccess)
            xsf_error_set(err, XSF_ERR_CUDA, "plane %d into its texture: %s", i,
                          cudaGetErrorString(e));
    }
    const cudaError_t u = cudaGraphicsUnmapResources(n, res, s);
    if (e == cudaSuccess && u != cudaSuccess)
        xsf_error_set(err, XSF_ERR_CUDA, "cudaGraphicsUnmapResources: %s", cudaGetErrorString(u));
    return e == cudaSuccess && u == cudaSuccess ? XSF_OK : XSF_ERR_CUDA;
}

void *dsp_interop_stream_create(void)
{
    /* The highest priority: the display's few small kernels go ahead of the
     * decoders' blocks, so a present does not wait behind a frame's decode. */
    int least = 0, greatest = 0;
    if (cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess)
        cudaGetLastError();
    cudaStream_t s = NULL;
    if (cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return s;
}

void dsp_interop_stream_destroy(void *stream)
{
    if (stream)
        cudaStreamDestroy((cudaStream_t)stream);
}

xsf_status dsp_interop_stream_sync(void *stream, xsf_error *err)
{
    const cudaError_t e = cudaStreamSynchronize((cudaStream_t)stream);
    return e == cudaSuccess ? XSF_OK
                            : xsf_error_set(err, XSF_ERR_CUDA, "the copy into the textures: %s",
                                            cudaGetErrorString(e));
}
