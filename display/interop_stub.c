/* Builds without CUDA: no interop; device pictures are refused. */
#include "interop.h"

int dsp_interop_usable(void)
{
    return 0;
}

int dsp_interop_built(void)
{
    return 0;
}

xsf_status dsp_interop_register(unsigned texture, void **resource, xsf_error *err)
{
    (void)texture;
    *resource = NULL;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA-GL interop");
}

void dsp_interop_unregister(void *resource)
{
    (void)resource;
}

xsf_status dsp_interop_copy(void *const *resource, int n, const uint16_t *const *plane,
                            const size_t *pitch_bytes, const int *width, const int *height, void *stream,
                            xsf_error *err)
{
    (void)resource, (void)n, (void)plane, (void)pitch_bytes, (void)width, (void)height, (void)stream;
    return xsf_error_set(err, XSF_ERR_NODEVICE, "this build has no CUDA-GL interop");
}
