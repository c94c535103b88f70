/* wavelet_cuda.h's out-of-place plans over the C reference (wavelet.h), for
 * the emulated BPC GPU test: the GPU wavelet core is its owner's to test
 * (tests/wavelet); here it only has to transform as the C reference does. */
#include <stdlib.h>
#include <string.h>

#include "wavelet_cuda.h"

struct wav_cuda_plan {
    wav_plan *plan;
    wav_plan_desc desc;
    size_t bytes;
};

extern "C" {
xsf_status wav_cuda_plan_create(wav_cuda_plan **out, const wav_plan_desc *desc, xsf_error *err)
{
    wav_cuda_plan *p = (wav_cuda_plan *)calloc(1, sizeof *p);
    if (!p)
        return XSF_ERR_NOMEM;
    p->desc = *desc;
    const size_t planes = desc->planes > 1 ? desc->planes : 1;
    p->bytes = ((planes - 1) * desc->plane_stride + (desc->height - 1) * desc->pitch + desc->width) * 4;
    xsf_status s = wav_plan_create(&p->plan, desc, err);
    if (s) {
        free(p);
        return s;
    }
    *out = p;
    return XSF_OK;
}
void wav_cuda_plan_destroy(wav_cuda_plan *p)
{
    if (p)
        wav_plan_destroy(p->plan);
    free(p);
}
const char *wav_cuda_plan_error(const wav_cuda_plan *) { return ""; }
xsf_status wav_cuda_forward_to(wav_cuda_plan *p, const void *src, void *dst, struct CUstream_st *)
{
    memcpy(dst, src, p->bytes);
    return wav_forward(p->plan, dst);
}
xsf_status wav_cuda_inverse_to(wav_cuda_plan *p, const void *src, void *dst, struct CUstream_st *)
{
    memcpy(dst, src, p->bytes);
    return wav_inverse(p->plan, dst);
}
}
