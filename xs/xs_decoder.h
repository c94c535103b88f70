/* Internal state of the C reference decoder. */
#ifndef XS_DECODER_H
#define XS_DECODER_H

#include "wavelet.h"
#include "xs_internal.h"

struct xs_decoder {
    xsf_error err;
    xs_header hdr;
    xs_geometry geom;
    xs_geometry scratch_geom;         /* the next frame's, until it is validated */
    int configured;                   /* buffers match geom */
    int32_t *coef[XS_MAX_COMPONENTS]; /* Mallat planes, Wc x Hc */
    uint16_t *out[XS_MAX_COMPONENTS]; /* own output planes, Wc x Hc: made by the first
                                         decode into them (xs_decode), not by xs_decode_into */
    wav_plan *plan[XS_MAX_COMPONENTS];
    uint8_t *gcli;        /* geom.gcli_total bitplane counts */
    uint8_t *gtli;        /* rows x cols x nbands truncation positions */
    uint8_t *sig_scratch; /* significance flags of one packet */
    xsf_picture pic;      /* the format of geom; a view of out[] once they are made */
};

xsf_status xs_decode_precinct(xs_decoder *d, const uint8_t *buf, size_t len, size_t base, int row,
                              int col, int first_in_slice, size_t *used);

/* Inverse colour transform, non-linearity, clamping and output depth
 * (21122-1 Annex F and G), from d->coef into the planes of `dst` (host
 * memory of the geometry's component sizes, rows dst->stride[c] apart). */
void xs_output_stage(xs_decoder *d, const xsf_picture *dst);

#endif
