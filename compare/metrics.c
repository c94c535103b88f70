/* Quality metrics of xsflow compare.
 *
 * PSNR: per component with peak 2^depth - 1; overall, over every sample of
 * every component with each error divided by its component's peak (the
 * usual all-samples PSNR when the depths are equal).
 *
 * SSIM (Wang, Bovik, Sheikh, Simoncelli 2004) on the luma: the picture's
 * component 0, or for RGB input the BT.709 luma 0.2126 R + 0.7152 G +
 * 0.0722 B of both pictures. Windows of 8x8 samples at every position
 * (stride 1, no weighting: the paper's first formulation; its 11x11
 * Gaussian variant differs by a few thousandths on natural pictures), the
 * usual constants C1 = (0.01 L)^2, C2 = (0.03 L)^2 with L = 2^depth - 1, the
 * sample (n - 1) variances, and the mean over all windows. Sums over the
 * window are kept as running column and row sums, so the cost is a few
 * operations per sample whatever the picture size. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

#define SSIM_WINDOW 8

static double sample(const xsf_picture *p, int c, int x, int y)
{
    return (double)xsf_picture_row16(p, c, y)[x];
}

static double component_sse(const xsf_picture *ref, const xsf_picture *dec, int c)
{
    double sse = 0;
    for (int y = 0; y < ref->fmt.height[c]; y++) {
        const uint16_t *a = xsf_picture_row16(ref, c, y);
        const uint16_t *b = xsf_picture_row16(dec, c, y);
        uint64_t row = 0; /* exact: at most 65535 squared errors of 2^32 per row chunk */
        for (int x = 0; x < ref->fmt.width[c]; x++) {
            const int64_t d = (int64_t)a[x] - (int64_t)b[x];
            row += (uint64_t)(d * d);
        }
        sse += (double)row;
    }
    return sse;
}

static double peak_of(int depth)
{
    return (double)((1u << depth) - 1u);
}

double cmp_psnr_component(const xsf_picture *ref, const xsf_picture *dec, int c)
{
    const double n = (double)ref->fmt.width[c] * (double)ref->fmt.height[c];
    const double sse = component_sse(ref, dec, c);
    if (sse == 0 || n == 0)
        return INFINITY;
    const double peak = peak_of(ref->fmt.depth[c]);
    return 10.0 * log10(peak * peak * n / sse);
}

double cmp_psnr_all(const xsf_picture *ref, const xsf_picture *dec)
{
    double scaled = 0, n = 0;
    for (int c = 0; c < ref->fmt.nc; c++) {
        const double peak = peak_of(ref->fmt.depth[c]);
        scaled += component_sse(ref, dec, c) / (peak * peak);
        n += (double)ref->fmt.width[c] * (double)ref->fmt.height[c];
    }
    if (scaled == 0 || n == 0)
        return INFINITY;
    return 10.0 * log10(n / scaled);
}

/* Luma of row y into out[width]. */
static void luma_row(const xsf_picture *p, int rgb, int y, double *out)
{
    const int w = p->fmt.width[0];
    if (rgb) {
        for (int x = 0; x < w; x++)
            out[x] = 0.2126 * sample(p, 0, x, y) + 0.7152 * sample(p, 1, x, y) +
                     0.0722 * sample(p, 2, x, y);
    } else {
        const uint16_t *s = xsf_picture_row16(p, 0, y);
        for (int x = 0; x < w; x++)
            out[x] = (double)s[x];
    }
}

double cmp_ssim_luma(const xsf_picture *ref, const xsf_picture *dec, int rgb)
{
    const xsf_format *f = &ref->fmt;
    const int w = f->width[0], h = f->height[0], win = SSIM_WINDOW;
    if (rgb && (f->nc < 3 || f->width[1] != w || f->width[2] != w || f->height[1] != h ||
                f->height[2] != h))
        rgb = 0;
    if (w < win || h < win)
        return NAN;
    const double L = peak_of(f->depth[0]);
    const double c1 = (0.01 * L) * (0.01 * L), c2 = (0.03 * L) * (0.03 * L);
    const size_t ww = (size_t)w;
    /* Ring of the last `win` luma rows of both pictures, and the column sums
     * over it of x, y, x^2, y^2, xy. */
    double *ring_a = malloc(sizeof(double) * ww * win), *ring_b = malloc(sizeof(double) * ww * win);
    double *col = calloc(5 * ww, sizeof(double));
    if (!ring_a || !ring_b || !col) {
        free(ring_a);
        free(ring_b);
        free(col);
        return NAN;
    }
    double *sa = col, *sb = col + ww, *saa = col + 2 * ww, *sbb = col + 3 * ww, *sab = col + 4 * ww;
    const double n = (double)(win * win);
    double total = 0;
    size_t windows = 0;
    for (int y = 0; y < h; y++) {
        double *ra = ring_a + (size_t)(y % win) * ww, *rb = ring_b + (size_t)(y % win) * ww;
        if (y >= win) { /* the row leaving the window */
            for (size_t x = 0; x < ww; x++) {
                sa[x] -= ra[x];
                sb[x] -= rb[x];
                saa[x] -= ra[x] * ra[x];
                sbb[x] -= rb[x] * rb[x];
                sab[x] -= ra[x] * rb[x];
            }
        }
        luma_row(ref, rgb, y, ra);
        luma_row(dec, rgb, y, rb);
        for (size_t x = 0; x < ww; x++) {
            sa[x] += ra[x];
            sb[x] += rb[x];
            saa[x] += ra[x] * ra[x];
            sbb[x] += rb[x] * rb[x];
            sab[x] += ra[x] * rb[x];
        }
        if (y < win - 1)
            continue;
        double wa = 0, wb = 0, waa = 0, wbb = 0, wab = 0;
        for (int x = 0; x < w; x++) {
            wa += sa[x];
            wb += sb[x];
            waa += saa[x];
            wbb += sbb[x];
            wab += sab[x];
            if (x >= win) {
                wa -= sa[x - win];
                wb -= sb[x - win];
                waa -= saa[x - win];
                wbb -= sbb[x - win];
                wab -= sab[x - win];
            }
            if (x < win - 1)
                continue;
            const double ma = wa / n, mb = wb / n;
            double va = (waa - n * ma * ma) / (n - 1), vb = (wbb - n * mb * mb) / (n - 1);
            const double cov = (wab - n * ma * mb) / (n - 1);
            va = va < 0 ? 0 : va; /* rounding of the running sums */
            vb = vb < 0 ? 0 : vb;
            total +=
                ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
            windows++;
        }
    }
    free(ring_a);
    free(ring_b);
    free(col);
    return total / (double)windows;
}
