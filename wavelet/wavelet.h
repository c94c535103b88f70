/* xsflow wavelet core: CDF 5/3 (exact integer lifting of ISO/IEC 15444-1 Annex F
 * and ISO/IEC 21122-1 Annex E) and CDF 9/7 (float lifting), forward and inverse,
 * for JPEG 2000-style symmetric and JPEG XS asymmetric decompositions.
 *
 * Layout: one plane is transformed in place. After the forward transform the
 * plane holds the subbands in Mallat order: at each level the low-pass half of
 * a dimension of n samples occupies the first ceil(n/2) positions and the
 * high-pass half the following floor(n/2). Levels 1..levels_v split both
 * dimensions (vertical then horizontal lifting in the forward direction,
 * horizontal then vertical in the inverse); levels levels_v+1..levels_h split
 * only the horizontal dimension of the remaining low-pass band. A symmetric
 * decomposition has levels_v == levels_h. Boundaries use whole-sample symmetric
 * extension, right for any size including 1.
 */
#ifndef XSF_WAVELET_H
#define XSF_WAVELET_H

#include "xsf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wav_filter { WAV_FILTER_53 = 0, WAV_FILTER_97 = 1 } wav_filter;
typedef enum wav_sample { WAV_INT32 = 0, WAV_FLOAT32 = 1 } wav_sample;

#define WAV_MAX_LEVELS 15

typedef struct wav_plan_desc {
    size_t width, height; /* samples of one plane */
    size_t pitch;         /* elements between the starts of two rows, >= width */
    size_t planes;        /* planes of this size transformed together (>= 1) */
    size_t plane_stride;  /* elements between the starts of two planes */
    wav_filter filter;    /* 5/3 works on int32 samples, 9/7 on float32 */
    wav_sample sample;
    int levels_v;         /* levels splitting both dimensions */
    int levels_h;         /* total horizontal levels, >= levels_v */
} wav_plan_desc;

typedef struct wav_plan wav_plan;

/* Validates the description and allocates the plan's scratch memory. */
xsf_status wav_plan_create(wav_plan **plan, const wav_plan_desc *desc, xsf_error *err);
void wav_plan_destroy(wav_plan *plan);
const wav_plan_desc *wav_plan_get_desc(const wav_plan *plan);

/* C reference transforms, in place on host memory. */
xsf_status wav_forward(wav_plan *plan, void *data);
xsf_status wav_inverse(wav_plan *plan, void *data);

/* Size of the low-pass half of n samples at level `level` (level 0 is n itself). */
static inline size_t wav_low_len(size_t n, int level)
{
    for (int i = 0; i < level; i++)
        n = (n + 1) / 2;
    return n;
}

/* One-dimensional 5/3 lifting steps on a strided line (the building blocks the
 * codecs may call directly). `x` holds n interleaved samples (even = low,
 * odd = high) on input to the inverse and on output of the forward. */
void wav53_forward_1d(int32_t *x, size_t n, size_t stride);
void wav53_inverse_1d(int32_t *x, size_t n, size_t stride);

#ifdef __cplusplus
}
#endif
#endif
