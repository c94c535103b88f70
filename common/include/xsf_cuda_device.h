/* The CUDA device rule of every xsflow library, and the one helper that
 * keeps it. Header only; include it only in files built with the CUDA
 * runtime (CUDA sources, and C files compiled where XSF_HAVE_CUDA is set).
 *
 * The rule: no public function changes the calling thread's current CUDA
 * device (cudaGetDevice) as seen when it returns.
 * - A handle made for a device of its own (xs_gpu_decoder, xs_gpu_encoder,
 *   the pipeline's GPUs) switches to that device for the duration of each
 *   call that touches it and switches back before returning, on every path
 *   (xsf_cuda_device_enter / _leave, or xsf_cuda_device_scope in C++;
 *   _save / _leave around code that selects several devices).
 * - Everything else (bpc's GPU codec API, the wavelet plans, the display's
 *   CUDA work, compare) runs on the caller's current device and never
 *   changes it: the caller selects the device, and uses each handle on the
 *   device it was made on. (The codec table's BPC-PaCo GPU entries, made
 *   for a device, switch to it as the first kind do.)
 * Threads a library starts for itself (the pipeline's decoders) select
 * their own device: that is their state, not the caller's.
 *
 * A thread that has never selected a device reads device 0 (CUDA's
 * default); a call that used another device restores 0 for it.
 */
#ifndef XSF_CUDA_DEVICE_H
#define XSF_CUDA_DEVICE_H

#include <cuda_runtime_api.h>

typedef struct xsf_cuda_device_saved {
    int device;  /* the caller's device */
    int restore; /* whether leave makes it current again */
} xsf_cuda_device_saved;

/* Makes `device` current, remembering the caller's in *s. cudaSuccess, or
 * the error of cudaGetDevice / cudaSetDevice (the current device is then
 * unchanged). Cheap when the device is current already: no switch. Every
 * enter is followed by xsf_cuda_device_leave on the same thread, whatever
 * it returned. */
static inline cudaError_t xsf_cuda_device_enter(xsf_cuda_device_saved *s, int device)
{
    s->device = 0;
    s->restore = 0;
    cudaError_t e = cudaGetDevice(&s->device);
    if (e != cudaSuccess || s->device == device)
        return e;
    e = cudaSetDevice(device);
    s->restore = e == cudaSuccess;
    return e;
}

/* Remembers the caller's device in *s without switching, for code that
 * then selects devices of its own (one or several) before leave. */
static inline void xsf_cuda_device_save(xsf_cuda_device_saved *s)
{
    s->device = 0;
    s->restore = cudaGetDevice(&s->device) == cudaSuccess;
}

/* Makes the caller's device current again (where enter switched, or save
 * read it). */
static inline void xsf_cuda_device_leave(xsf_cuda_device_saved *s)
{
    if (s->restore)
        cudaSetDevice(s->device);
    s->restore = 0;
}

#ifdef __cplusplus
/* The same for a C++ scope: the caller's device is current again when the
 * scope ends, however it ends.
 *     xsf_cuda_device_scope on(dec->device);
 *     if (on.error() != cudaSuccess) return ...; */
class xsf_cuda_device_scope
{
  public:
    explicit xsf_cuda_device_scope(int device) : err_(xsf_cuda_device_enter(&saved_, device)) {}
    ~xsf_cuda_device_scope()
    {
        xsf_cuda_device_leave(&saved_);
    }
    xsf_cuda_device_scope(const xsf_cuda_device_scope &) = delete;
    xsf_cuda_device_scope &operator=(const xsf_cuda_device_scope &) = delete;
    cudaError_t error() const
    {
        return err_;
    }

  private:
    xsf_cuda_device_saved saved_;
    cudaError_t err_;
};
#endif

#endif
