/* Gains and priorities (WGT) for the least mean squared error.
 *
 * A coefficient error e in band b adds E_b * e^2 to the squared error of the
 * picture, E_b being the energy of the band's synthesis basis function (the
 * inverse 5/3 transform of a unit impulse placed in the band). At equal
 * slopes the quantization step of a band goes as 1 / sqrt(E_b), so with
 * steps 2^(Q - G_b) the gain is G_b = log2(sqrt(E_b)) + const: its integer
 * part is the gain, and the bands with the largest fractional parts come
 * first in priority, so that refinement (R) gives them the extra bit plane.
 * With the RCT, errors of Y reach the three RGB samples (energy 3) and those
 * of the chroma differences 11/16 of the same (21122-1 F.3). For YCbCr the
 * error minimized is the luma-weighted (L MSE_Y + MSE_Cb + MSE_Cr) / (L + 2)
 * with each MSE over its own component, L = LUMA_WEIGHT: a chroma sample
 * weighs N_Y / (L N_C) of a luma sample (1/8 in 4:4:4, 1/4 in 4:2:2, 1/2 in
 * 4:2:0). L = 8 rather than the 6 of video's "PSNR-YCbCr": measured on the
 * set of bench/xs_encode/rd_svt.sh, 8 wins PSNR-Y on every sampling and costs
 * the 6:1:1 measure at most 0.4 points of BD-rate (xs/ENCODER.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"

/* Weight of luma against each chroma component in the YCbCr error. */
#define LUMA_WEIGHT 8.0

xsf_status enc_band_energies(const xs_header *h, xs_geometry *g, double *energy, xsf_error *err)
{
    /* The same band structure on a small picture: 16 coefficients across the
     * lowest band each way, so no basis function reaches a border. */
    xs_header t = *h;
    int sx_max = 1, sy_max = 1;
    for (int c = 0; c < h->nc; c++) {
        sx_max = h->sx[c] > sx_max ? h->sx[c] : sx_max;
        sy_max = h->sy[c] > sy_max ? h->sy[c] : sy_max;
    }
    t.wf = (uint16_t)(16 * sx_max << h->nlx);
    t.hf = (uint16_t)(16 * sy_max << h->nly);
    t.cw = 0;
    t.nbands = 0;
    xsf_status st = xs_geometry_init(g, &t, err);
    if (st != XSF_OK)
        return st;
    int32_t *plane = NULL;
    size_t plane_cap = 0;
    for (int b = 0; b < g->nbands; b++) {
        const xs_band *bd = &g->band[b];
        const xs_component *cp = &g->comp[bd->comp];
        double e = 1.0;
        if (bd->comp < g->ncd) {
            const size_t n = (size_t)cp->width * cp->height;
            if (n > plane_cap) {
                free(plane);
                plane = malloc(n * sizeof *plane);
                plane_cap = n;
                if (!plane)
                    return xsf_error_set(err, XSF_ERR_NOMEM,
                                         "out of memory for the weight analysis");
            }
            memset(plane, 0, n * sizeof *plane);
            const int32_t amp = 1 << 16;
            plane[(size_t)(bd->y0 + bd->height / 2) * cp->width + bd->x0 + bd->width / 2] = amp;
            const wav_plan_desc d = xs_dwt_desc(cp, 1);
            wav_plan *wp;
            st = wav_plan_create(&wp, &d, err);
            if (st == XSF_OK)
                st = wav_inverse(wp, plane);
            wav_plan_destroy(wp);
            if (st != XSF_OK) {
                free(plane);
                return st;
            }
            double s = 0;
            for (size_t i = 0; i < n; i++)
                s += (double)plane[i] * plane[i];
            e = s / ((double)amp * amp);
        }
        energy[b] = e;
    }
    free(plane);
    return XSF_OK;
}

void enc_weights_to_gains(int nbands, const double *weight, uint8_t *gain, uint8_t *priority)
{
    double f[XS_MAX_BANDS];
    for (int b = 0; b < nbands; b++)
        f[b] = 0.5 * log2(weight[b]);
    double fmin = f[0];
    for (int b = 1; b < nbands; b++)
        fmin = f[b] < fmin ? f[b] : fmin;
    double frac[XS_MAX_BANDS];
    for (int b = 0; b < nbands; b++) {
        double v = f[b] - fmin + 1e-9;
        int gi = (int)floor(v);
        gain[b] = (uint8_t)(gi > 15 ? 15 : gi);
        frac[b] = v - gi;
    }
    /* Priority = rank by fractional part, largest first, ties in band order. */
    for (int b = 0; b < nbands; b++) {
        int rank = 0;
        for (int o = 0; o < nbands; o++)
            if (frac[o] > frac[b] || (frac[o] == frac[b] && o < b))
                rank++;
        priority[b] = (uint8_t)rank;
    }
}

xsf_status enc_psnr_weights(const xs_header *h, uint8_t *gain, uint8_t *priority, xsf_error *err)
{
    xs_geometry g;
    double w[XS_MAX_BANDS];
    const xsf_status st = enc_band_energies(h, &g, w, err);
    if (st != XSF_OK)
        return st;
    for (int b = 0; b < g.nbands; b++) {
        const xs_band *bd = &g.band[b];
        const xs_component *cp = &g.comp[bd->comp];
        if (h->cpih == 1 && bd->comp < 3)
            w[b] *= bd->comp == 0 ? 3.0 : 11.0 / 16.0;
        else if (h->cpih == 0 && h->nc >= 3 && (bd->comp == 1 || bd->comp == 2)) {
            const double ny = (double)g.comp[0].width * g.comp[0].height;
            const double nc = (double)cp->width * cp->height;
            w[b] *= ny / (LUMA_WEIGHT * nc);
        }
    }
    enc_weights_to_gains(g.nbands, w, gain, priority);
    return XSF_OK;
}
