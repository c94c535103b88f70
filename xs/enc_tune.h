/* Encoder tunes: the gains and priorities (WGT) each xs_tune derives
 * (xs/ENCODER.md, "Weights"). Both encoders take the header's tables, so the
 * C and the CUDA encoder code the same bytes for either tune.
 *
 * The visual tune weighs the squared error of a band by how visible it is:
 * w_b = E_b * N_c * k_c * S_c(b)^2, with E_b the energy of the band's
 * synthesis basis function (enc_band_energies), N_c the displayed pixels a
 * sample of its component covers (sx * sy: subsampled chroma is seen
 * upsampled), k_c the component's weight in the colour transform (3 and
 * 11/16 for RCT luma and chroma, the squared error over R, G, B; 1 for
 * YCbCr), and S_c(b)^2 the mean of the squared contrast sensitivity over the
 * band's pass band (its rectangle of horizontal and vertical frequencies in
 * the Mallat layout), in cycles per degree at the viewing distance below.
 * Component 0 (and components after the third) take the luma model,
 * components 1 and 2 the chroma model; the gains and priorities follow from
 * the weights as for PSNR (enc_weights_to_gains). */
#ifndef XS_ENC_TUNE_H
#define XS_ENC_TUNE_H

#include "xs.h"
#include "xs_internal.h"

/* The viewing condition: 3 picture heights of a 1080-line picture (the
 * usual HD viewing distance; UHD at 1.5 heights is the same), as a distance
 * in pixels, whatever the picture's own size (so a picture's tables do not
 * change with its height). */
#define ENC_VIEW_DISTANCE_PX 3240.0

/* Pixels in one degree of visual angle at a distance of d pixels. */
double enc_view_pixels_per_degree(double d);

/* Luma contrast sensitivity (Mannos and Sakrison 1974, A(f) = 2.6 (0.0192 +
 * 0.114 f) exp(-(0.114 f)^1.1), f in cycles per degree) relative to its
 * peak, and 1 below the peak frequency (about 8 cycles per degree): an
 * encoder has no reason to code the lowest frequencies worse than the
 * most visible ones. Non-increasing, in (0, 1]. */
double enc_csf_luma(double cpd);

/* Chroma contrast sensitivity (isoluminant red-green and blue-yellow
 * gratings are seen low-pass, Mullen 1985, down to a sensitivity of 1 at an
 * acuity limit of about 12 cycles per degree from a plateau near 100):
 * exp(-f / f_c) with f_c = 12 / ln(100), relative to its value at 0.
 * Decreasing, in (0, 1], below enc_csf_luma at every frequency a picture
 * holds (up to Nyquist on the diagonal, 40 cycles per degree here). */
double enc_csf_chroma(double cpd);

/* The visual weight w_b of every band of h's structure (band order, as
 * above; h->nbands need not be set). */
xsf_status enc_visual_band_weights(const xs_header *h, double *weight, int *nbands, xsf_error *err);

/* Gains and priorities of the tune for h's band structure. */
xsf_status enc_tune_weights(const xs_header *h, xs_tune tune, uint8_t *gain, uint8_t *priority,
                            xsf_error *err);

#endif
