/* The encoder's tunes (enc_tune.h): the PSNR tables of enc_weights.c, or the
 * visual ones from contrast sensitivity models, both turned into gains and
 * priorities the same way. xs/ENCODER.md states the model and why. */
#include <math.h>

#include "enc_internal.h"
#include "enc_tune.h"

/* Frequencies of a band's pass band sampled each way for the mean. */
#define PASS_BAND_SAMPLES 16

/* The least sensitivity a band is given: 1/8, its squared error weighing
 * 1/64 of the most visible band's (3 bit planes below). Without it chroma's
 * finest bands would sit 20 bit planes below luma's: more than the 16 gains
 * hold, and never coded at any rate, though a viewer nearer than the design
 * distance sees them (xs/ENCODER.md: with 1/16, chroma loses 10 dB at
 * 8 bpp). */
#define SENSITIVITY_FLOOR (1.0 / 8)

/* Chroma: sensitivity 1/100 of its plateau at the acuity limit. */
#define CHROMA_ACUITY_CPD 12.0
#define CHROMA_PLATEAU_TO_LIMIT 100.0

double enc_view_pixels_per_degree(double d)
{
    const double half_degree = 0.5 * 3.14159265358979323846 / 180.0;
    return 2.0 * d * tan(half_degree);
}

static double mannos_sakrison(double f)
{
    return 2.6 * (0.0192 + 0.114 * f) * exp(-pow(0.114 * f, 1.1));
}

/* The peak of A(f): A'(f) = 0 where (0.0192 + 0.114 f) (0.114 f)^0.1 = 1 / 1.1,
 * whose left side rises with f: bisection on [1, 30] (f = 8.0 cycles per degree). */
static double mannos_sakrison_peak(void)
{
    double lo = 1, hi = 30;
    for (int i = 0; i < 60; i++) {
        const double m = (lo + hi) / 2;
        if ((0.0192 + 0.114 * m) * pow(0.114 * m, 0.1) < 1 / 1.1)
            lo = m;
        else
            hi = m;
    }
    return (lo + hi) / 2;
}

double enc_csf_luma(double cpd)
{
    const double peak = mannos_sakrison_peak();
    return cpd <= peak ? 1.0 : mannos_sakrison(cpd) / mannos_sakrison(peak);
}

double enc_csf_chroma(double cpd)
{
    return exp(-cpd * log(CHROMA_PLATEAU_TO_LIMIT) / CHROMA_ACUITY_CPD);
}

/* Mean of S(f)^2 over the rectangle [fx0, fx1] x [fy0, fy1] (cycles per
 * degree, f the radial frequency), midpoints of a regular grid. */
static double mean_sensitivity2(double (*csf)(double), double fx0, double fx1, double fy0,
                                double fy1)
{
    const int n = PASS_BAND_SAMPLES;
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const double fx = fx0 + (fx1 - fx0) * (i + 0.5) / n;
            const double fy = fy0 + (fy1 - fy0) * (j + 0.5) / n;
            const double v = csf(sqrt(fx * fx + fy * fy));
            s += v * v;
        }
    return s / ((double)n * n);
}

xsf_status enc_visual_band_weights(const xs_header *h, double *weight, int *nbands, xsf_error *err)
{
    xs_geometry g;
    const xsf_status st = enc_band_energies(h, &g, weight, err);
    if (st != XSF_OK)
        return st;
    const double ppd = enc_view_pixels_per_degree(ENC_VIEW_DISTANCE_PX);
    for (int b = 0; b < g.nbands; b++) {
        const xs_band *bd = &g.band[b];
        const xs_component *cp = &g.comp[bd->comp];
        const int chroma = h->nc >= 3 && (bd->comp == 1 || bd->comp == 2);
        /* The pass band: columns [x0, x0 + width) of a Mallat plane Wc wide hold
         * the frequencies [x0, x0 + width) / (2 Wc) cycles per sample, each sample
         * sx pixels wide; the same down the rows. */
        const double kx = ppd / (2.0 * cp->width * cp->sx), ky = ppd / (2.0 * cp->height * cp->sy);
        const double s2 =
            mean_sensitivity2(chroma ? enc_csf_chroma : enc_csf_luma, bd->x0 * kx,
                              (bd->x0 + bd->width) * kx, bd->y0 * ky, (bd->y0 + bd->height) * ky);
        const double floor2 = SENSITIVITY_FLOOR * SENSITIVITY_FLOOR;
        double k = 1.0;
        if (h->cpih == 1 && bd->comp < 3)
            k = bd->comp == 0 ? 3.0 : 11.0 / 16.0;
        weight[b] *= (double)cp->sx * cp->sy * k * (s2 > floor2 ? s2 : floor2);
    }
    *nbands = g.nbands;
    return XSF_OK;
}

xsf_status enc_tune_weights(const xs_header *h, xs_tune tune, uint8_t *gain, uint8_t *priority,
                            xsf_error *err)
{
    if (tune == XS_TUNE_PSNR)
        return enc_psnr_weights(h, gain, priority, err);
    if (tune != XS_TUNE_VISUAL)
        return xsf_error_set(err, XSF_ERR_ARG, "tune %d, expected psnr (0) or visual (1)",
                             (int)tune);
    double w[XS_MAX_BANDS];
    int nbands;
    const xsf_status st = enc_visual_band_weights(h, w, &nbands, err);
    if (st == XSF_OK)
        enc_weights_to_gains(nbands, w, gain, priority);
    return st;
}
