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
    /* The parallel hook (xs_decoder_set_parallel): par.threads > 1 decodes in parts. */
    xsf_parallel par;
    /* Per worker of the runner, made by the first frame decoded in parts (sized for
     * geom and par.threads): significance scratch, inverse DWT scratch, and the first
     * failure each worker met (the lowest slice's is the frame's). */
    size_t *slice_off;     /* geom.slices slice offsets (made with the buffers) */
    int par_workers;       /* workers the scratch below is for (0: none yet) */
    size_t sig_bytes;      /* of sig_scratch, per worker */
    size_t dwt_words;      /* of dwt_scratch, per worker */
    uint8_t *par_sig;      /* par_workers x sig_bytes */
    uint32_t *par_dwt;     /* par_workers x dwt_words */
    struct xs_slice_fail { /* par_workers of them */
        int slice;         /* the lowest failing slice the worker decoded, -1: none */
        xsf_status st;
        xsf_error err;
    } * par_fail;
};

/* One precinct into d's coefficient planes and bitplane counts; `sig` is
 * scratch for one packet's significance flags (d->sig_scratch's size), err
 * gets the failure: precincts of different slices may be decoded at once,
 * each with its own. */
xsf_status xs_decode_precinct(xs_decoder *d, uint8_t *sig, xsf_error *err, const uint8_t *buf,
                              size_t len, size_t base, int row, int col, int first_in_slice,
                              size_t *used);

/* The frame's rows [y0, y1) through the output stage: component c's rows
 * y0 * Hc / Hf to y1 * Hc / Hf (Hf the frame's height); bands of rows that
 * tile the frame may run at once. */
void xs_output_rows(xs_decoder *d, const xsf_picture *dst, int y0, int y1);

/* Inverse colour transform, non-linearity, clamping and output depth
 * (21122-1 Annex F and G), from d->coef into the planes of `dst` (host
 * memory of the geometry's component sizes, rows dst->stride[c] apart). */
void xs_output_stage(xs_decoder *d, const xsf_picture *dst);

#endif
