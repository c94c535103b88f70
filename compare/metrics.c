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
 * operations per sample whatever the picture size.
 *
 * MS-SSIM (Wang, Simoncelli, Bovik, "Multi-scale structural similarity for
 * image quality assessment", 2003) on the same luma, as the authors'
 * reference implementation computes it: 5 scales with the weights 0.0448,
 * 0.2856, 0.3001, 0.2363, 0.1333; at each scale an 11x11 Gaussian window
 * (sigma 1.5) at every position where it fits (no padding), Gaussian-weighted
 * means, variances and covariance, K1 = 0.01, K2 = 0.03; scales 1..4 give the
 * mean contrast-structure term cs, scale 5 the mean SSIM (luminance times cs);
 * MS-SSIM = ssim_5^w5 * prod cs_j^wj. Between scales each picture is averaged
 * over 2x2 blocks and decimated by 2 (an odd last row or column is averaged
 * with itself). A mean below 0 (anti-correlated pictures) counts as 0, so the
 * result stays real. The 5th scale needs 11 samples each way: pictures
 * smaller than 161x161 have no MS-SSIM (NAN). It runs on every online CPU
 * (bands of rows: the same value whatever their number), a 1080p picture in
 * a fraction of a second. */
#define _POSIX_C_SOURCE 200809L /* sysconf */

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"

#define SSIM_WINDOW 8
#define MS_SCALES 5
#define MS_WINDOW 11
#define MS_SIGMA 1.5

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

/* ---- MS-SSIM ---- */

/* A luma plane in floats (samples of up to 16 bits, and their 2x2 means,
 * are exact in a float). */
typedef struct ms_plane {
    int w, h;
    float *px;
} ms_plane;

static int luma_plane(const xsf_picture *p, int rgb, ms_plane *out)
{
    const int w = p->fmt.width[0], h = p->fmt.height[0];
    double *row = malloc(sizeof(double) * (size_t)w);
    out->w = w;
    out->h = h;
    out->px = malloc(sizeof(float) * (size_t)w * (size_t)h);
    if (!row || !out->px) {
        free(row);
        free(out->px);
        out->px = NULL;
        return -1;
    }
    for (int y = 0; y < h; y++) {
        luma_row(p, rgb, y, row);
        for (int x = 0; x < w; x++)
            out->px[(size_t)y * (size_t)w + (size_t)x] = (float)row[x];
    }
    free(row);
    return 0;
}

/* 2x2 means, decimated by 2: the next scale (in place: row y of the result
 * only reads rows 2y and 2y+1, which are at or after it). */
static void halve(ms_plane *p)
{
    const int w = (p->w + 1) / 2, h = (p->h + 1) / 2;
    for (int y = 0; y < h; y++) {
        const float *r0 = p->px + (size_t)(2 * y) * (size_t)p->w;
        const float *r1 = 2 * y + 1 < p->h ? r0 + p->w : r0;
        float *o = p->px + (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++) {
            const int x1 = 2 * x + 1 < p->w ? 2 * x + 1 : 2 * x;
            o[x] = (r0[2 * x] + r0[x1] + r1[2 * x] + r1[x1]) * 0.25f;
        }
    }
    p->w = w;
    p->h = h;
}

/* Mean cs and mean SSIM over every position of the Gaussian window, by
 * separable filtering: each row filtered horizontally into a ring of the
 * last MS_WINDOW rows (five quantities), then the ring vertically. The
 * output rows go in bands of MS_BAND rows, each summed on its own (its
 * first MS_WINDOW - 1 input rows filtered again), the bands shared among
 * threads and their sums added in band order: the same result whatever the
 * number of threads. */
#define MS_BAND 128

typedef struct ms_work {
    const ms_plane *a, *b;
    double c1, c2, g[MS_WINDOW];
    int ow, oh, bands;
    double *cs, *ssim; /* per band */
    atomic_int next;   /* the next band to take */
    atomic_int failed;
} ms_work;

/* Scratch of one thread: the ring of horizontally filtered rows (5
 * quantities each), one input row's five quantities, five accumulators. */
static size_t ms_scratch_doubles(const ms_work *w)
{
    return (size_t)(5 * MS_WINDOW) * (size_t)w->ow + 5 * (size_t)w->a->w + 5 * (size_t)w->ow;
}

/* Loops with x innermost, so that the compiler vectorises them. */
static void ms_band(ms_work *w, double *scratch, int band)
{
    const ms_plane *a = w->a, *b = w->b;
    const int ow = w->ow, iw = a->w, y_out0 = band * MS_BAND;
    const int y_out1 = y_out0 + MS_BAND < w->oh ? y_out0 + MS_BAND : w->oh;
    const size_t row = (size_t)ow;
    double *ring = scratch, *in = ring + 5 * MS_WINDOW * row, *acc = in + 5 * (size_t)iw;
    const double *g = w->g;
    double cs_total = 0, ssim_total = 0;
    for (int y = y_out0; y < y_out1 + MS_WINDOW - 1; y++) {
        const float *pa = a->px + (size_t)y * (size_t)iw, *pb = b->px + (size_t)y * (size_t)iw;
        double *ia = in, *ib = in + iw, *iaa = in + 2 * iw, *ibb = in + 3 * iw, *iab = in + 4 * iw;
        for (int x = 0; x < iw; x++) {
            ia[x] = pa[x];
            ib[x] = pb[x];
            iaa[x] = ia[x] * ia[x];
            ibb[x] = ib[x] * ib[x];
            iab[x] = ia[x] * ib[x];
        }
        double *h5 = ring + (size_t)(y % MS_WINDOW) * 5 * row;
        for (int q = 0; q < 5; q++) {
            double *o = h5 + (size_t)q * row;
            const double *src = in + (size_t)q * (size_t)iw;
            for (int x = 0; x < ow; x++)
                o[x] = g[0] * src[x];
            for (int k = 1; k < MS_WINDOW; k++)
                for (int x = 0; x < ow; x++)
                    o[x] += g[k] * src[x + k];
        }
        if (y < y_out0 + MS_WINDOW - 1)
            continue;
        for (int q = 0; q < 5; q++) {
            double *m = acc + (size_t)q * row;
            for (int k = 0; k < MS_WINDOW; k++) {
                /* ring row of input row y - MS_WINDOW + 1 + k */
                const double *r =
                    ring + (size_t)((y + 1 + k) % MS_WINDOW) * 5 * row + (size_t)q * row;
                if (k == 0)
                    for (int x = 0; x < ow; x++)
                        m[x] = g[0] * r[x];
                else
                    for (int x = 0; x < ow; x++)
                        m[x] += g[k] * r[x];
            }
        }
        const double *ma = acc, *mb = acc + row, *maa = acc + 2 * row, *mbb = acc + 3 * row,
                     *mab = acc + 4 * row;
        for (int x = 0; x < ow; x++) {
            const double va = maa[x] - ma[x] * ma[x], vb = mbb[x] - mb[x] * mb[x],
                         cov = mab[x] - ma[x] * mb[x];
            const double cs = (2 * cov + w->c2) / (va + vb + w->c2);
            cs_total += cs;
            ssim_total +=
                cs * (2 * ma[x] * mb[x] + w->c1) / (ma[x] * ma[x] + mb[x] * mb[x] + w->c1);
        }
    }
    w->cs[band] = cs_total;
    w->ssim[band] = ssim_total;
}

static void *ms_worker(void *arg)
{
    ms_work *w = arg;
    double *scratch = malloc(sizeof(double) * ms_scratch_doubles(w));
    if (!scratch) {
        atomic_store(&w->failed, 1);
        return NULL;
    }
    for (int band; (band = atomic_fetch_add(&w->next, 1)) < w->bands;)
        ms_band(w, scratch, band);
    free(scratch);
    return NULL;
}

static int ms_scale(const ms_plane *a, const ms_plane *b, double c1, double c2, double *cs_mean,
                    double *ssim_mean)
{
    ms_work w;
    memset(&w, 0, sizeof w);
    w.a = a;
    w.b = b;
    w.c1 = c1;
    w.c2 = c2;
    double sum = 0;
    for (int i = 0; i < MS_WINDOW; i++) {
        const double d = i - (MS_WINDOW - 1) / 2;
        w.g[i] = exp(-d * d / (2 * MS_SIGMA * MS_SIGMA));
        sum += w.g[i];
    }
    for (int i = 0; i < MS_WINDOW; i++)
        w.g[i] /= sum;
    w.ow = a->w - MS_WINDOW + 1;
    w.oh = a->h - MS_WINDOW + 1;
    w.bands = (w.oh + MS_BAND - 1) / MS_BAND;
    atomic_init(&w.next, 0);
    atomic_init(&w.failed, 0);
    w.cs = malloc(sizeof(double) * (size_t)w.bands);
    w.ssim = malloc(sizeof(double) * (size_t)w.bands);
    if (!w.cs || !w.ssim) {
        free(w.cs);
        free(w.ssim);
        return -1;
    }
    /* Every online CPU, no more threads than bands; this thread is one. */
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cpus > 1 ? (int)(cpus < 64 ? cpus : 64) : 1;
    threads = threads < w.bands ? threads : w.bands;
    pthread_t tid[64];
    int started = 0;
    for (; started < threads - 1; started++)
        if (pthread_create(&tid[started], NULL, ms_worker, &w))
            break;
    ms_worker(&w);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    double cs_total = 0, ssim_total = 0;
    for (int i = 0; i < w.bands; i++) {
        cs_total += w.cs[i];
        ssim_total += w.ssim[i];
    }
    free(w.cs);
    free(w.ssim);
    if (atomic_load(&w.failed))
        return -1;
    const double n = (double)w.ow * (double)w.oh;
    *cs_mean = cs_total / n;
    *ssim_mean = ssim_total / n;
    return 0;
}

double cmp_msssim_luma(const xsf_picture *ref, const xsf_picture *dec, int rgb)
{
    static const double weight[MS_SCALES] = {0.0448, 0.2856, 0.3001, 0.2363, 0.1333};
    const xsf_format *f = &ref->fmt;
    int w = f->width[0], h = f->height[0];
    for (int j = 1; j < MS_SCALES; j++) {
        w = (w + 1) / 2;
        h = (h + 1) / 2;
    }
    if (w < MS_WINDOW || h < MS_WINDOW)
        return NAN;
    if (rgb && (f->nc < 3 || f->width[1] != f->width[0] || f->width[2] != f->width[0] ||
                f->height[1] != f->height[0] || f->height[2] != f->height[0]))
        rgb = 0;
    const double L = peak_of(f->depth[0]);
    const double c1 = (0.01 * L) * (0.01 * L), c2 = (0.03 * L) * (0.03 * L);
    ms_plane a = {0, 0, NULL}, b = {0, 0, NULL};
    double result = NAN;
    if (luma_plane(ref, rgb, &a) || luma_plane(dec, rgb, &b))
        goto done;
    result = 1;
    for (int j = 0; j < MS_SCALES; j++) {
        double cs, ssim;
        if (j) {
            halve(&a);
            halve(&b);
        }
        if (ms_scale(&a, &b, c1, c2, &cs, &ssim)) {
            result = NAN;
            goto done;
        }
        const double v = j == MS_SCALES - 1 ? ssim : cs;
        result *= pow(v > 0 ? v : 0, weight[j]);
    }
done:
    free(a.px);
    free(b.px);
    return result;
}
