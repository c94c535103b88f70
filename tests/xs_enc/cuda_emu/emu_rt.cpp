/* The emulation's globals and host-side stand-ins: the DWT plans of
 * wavelet_cuda.h run wavelet/'s C reference; device buffers are host memory. */
#include "cuda_runtime.h" /* cxx/: the emulation */
thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
uint8_t *emu_dyn_smem;
thread_local emu_block *emu_cur;
extern "C" {
#include "wavelet_cuda.h"
#include "xs.h"
}
struct wav_cuda_plan { wav_plan *p; wav_plan_desc d; };
extern "C" xsf_status wav_cuda_plan_create(wav_cuda_plan **plan, const wav_plan_desc *desc, xsf_error *err)
{
    *plan = new wav_cuda_plan;
    (*plan)->d = *desc;
    return wav_plan_create(&(*plan)->p, desc, err);
}
extern "C" void wav_cuda_plan_destroy(wav_cuda_plan *plan) { if (plan) { wav_plan_destroy(plan->p); delete plan; } }
extern "C" const char *wav_cuda_plan_error(const wav_cuda_plan *) { return ""; }
extern "C" xsf_status wav_cuda_forward_to(wav_cuda_plan *plan, const void *src, void *dst, struct CUstream_st *)
{
    const wav_plan_desc &d = plan->d;
    memcpy(dst, src, ((d.planes - 1) * d.plane_stride + (d.height - 1) * d.pitch + d.width) * 4);
    return wav_forward(plan->p, dst);
}
extern "C" xsf_status xs_gpu_available(void) { return XSF_OK; }
extern "C" cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h)
{
    *pitch = (w + 255) & ~(size_t)255;
    *p = malloc(*pitch * h);
    return 0;
}
extern "C" cudaError_t cudaMemcpy2D(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, int)
{
    for (size_t y = 0; y < h; y++)
        memcpy((char *)d + y * dp, (const char *)s + y * sp, w);
    return 0;
}
extern "C" cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}
