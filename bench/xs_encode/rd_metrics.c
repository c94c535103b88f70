/* bench/xs_encode rd_metrics: the measurements of rd_svt.sh and rd_tune.sh,
 * independent of xsflow's codecs (it reads the decoder's planar output,
 * whoever decoded).
 *
 *   rd_metrics psnr REF DEC W H SAMPLING DEPTH
 *       PSNR of two planar pictures (8-bit samples as bytes, deeper ones as
 *       16-bit little-endian; SAMPLING 420, 422, 444 or 400; rgb as 444),
 *       peak 2^DEPTH-1.
 *       Prints "Y Cb Cr ALL" in dB: each component, and ALL over every sample
 *       of every component (for RGB pictures: R, G, B together). Equal
 *       pictures print 999.
 *   rd_metrics ssim REF DEC W H SAMPLING DEPTH
 *       SSIM and MS-SSIM of the luma (component 0; SAMPLING rgb: 4:4:4
 *       R, G, B planes, BT.709 luma), as `xsflow compare` computes them: the
 *       code of compare/metrics.c (cmp_ssim_luma, cmp_msssim_luma; MS-SSIM
 *       checked there against an independent computation). Prints "SSIM
 *       MSSSIM" ("nan" for MS-SSIM below 161x161).
 *   rd_metrics bd < POINTS
 *       Bjontegaard rate difference (VCEG-M33): POINTS are lines "RA PA RT
 *       PT" (anchor and test, rate and PSNR at each point); log10(rate) is
 *       fitted as a cubic polynomial of PSNR (least squares) for each, both
 *       integrated over the PSNR range they share. Prints the test's rate
 *       change at equal PSNR in percent (negative: the test needs fewer bits),
 *       or "nan" where the ranges do not overlap. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* The planes of a SAMPLING (420, 422, 444, 400) picture w x h: components and
 * chroma size; -1 for an unknown sampling. */
static int layout(const char *s, int w, int h, int *cw, int *ch)
{
    *cw = w;
    *ch = h;
    if (!strcmp(s, "420")) {
        *cw = (w + 1) / 2;
        *ch = (h + 1) / 2;
    } else if (!strcmp(s, "422")) {
        *cw = (w + 1) / 2;
    } else if (!strcmp(s, "400")) {
        return 1;
    } else if (strcmp(s, "444") && strcmp(s, "rgb")) {
        return -1;
    }
    return 3;
}

/* Reads a planar picture (8-bit samples as bytes, deeper as 16-bit little
 * endian) into p (planes in buf). 0, or -1 when short. */
static int read_picture(const char *path, int nc, int w, int h, int cw, int ch, int depth,
                        uint16_t *buf, xsf_picture *p)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    memset(p, 0, sizeof *p);
    p->fmt.container = XSF_PLANAR_U16;
    p->fmt.nc = nc;
    int rc = 0;
    for (int c = 0; c < nc && !rc; c++) {
        const int pw = c ? cw : w, ph = c ? ch : h;
        p->fmt.width[c] = pw;
        p->fmt.height[c] = ph;
        p->fmt.depth[c] = depth;
        p->stride[c] = (size_t)pw * sizeof *buf;
        p->data[c] = (uint8_t *)buf;
        for (size_t i = 0; i < (size_t)pw * ph && !rc; i++) {
            const int a = fgetc(f);
            const int b = depth > 8 ? fgetc(f) : 0;
            rc = a == EOF || b == EOF ? -1 : 0;
            buf[i] = (uint16_t)(a | b << 8);
        }
        buf += (size_t)pw * ph;
    }
    fclose(f);
    return rc;
}

/* The two pictures of a command's arguments REF DEC W H SAMPLING DEPTH into
 * pa, pb (planes in *bufs, freed by the caller). 0, or the exit status after
 * a message. */
static int read_pair(char **argv, xsf_picture *pa, xsf_picture *pb, uint16_t **bufs)
{
    const int w = atoi(argv[2]), h = atoi(argv[3]), depth = atoi(argv[5]);
    int cw, ch;
    const int nc = layout(argv[4], w, h, &cw, &ch);
    bufs[0] = bufs[1] = NULL;
    if (nc < 0 || w < 1 || h < 1 || depth < 8 || depth > 16) {
        fprintf(stderr, "rd_metrics: sampling %s (420, 422, 444, 400, rgb), size %dx%d depth %d\n",
                argv[4], w, h, depth);
        return 2;
    }
    const size_t n = (size_t)w * h + 2 * (size_t)cw * ch;
    bufs[0] = malloc(n * sizeof *bufs[0]);
    bufs[1] = malloc(n * sizeof *bufs[1]);
    if (!bufs[0] || !bufs[1] || read_picture(argv[0], nc, w, h, cw, ch, depth, bufs[0], pa) ||
        read_picture(argv[1], nc, w, h, cw, ch, depth, bufs[1], pb)) {
        fprintf(stderr, "rd_metrics: cannot read %s and %s as %dx%d %s\n", argv[0], argv[1], w, h,
                argv[4]);
        return 1;
    }
    return 0;
}

static int cmd_psnr(char **argv)
{
    xsf_picture pa, pb;
    uint16_t *bufs[2];
    const int rc = read_pair(argv, &pa, &pb, bufs);
    if (!rc) {
        const double peak = (double)((1 << pa.fmt.depth[0]) - 1);
        double se_all = 0;
        size_t n_all = 0;
        for (int c = 0; c < pa.fmt.nc; c++) {
            const size_t n = (size_t)pa.fmt.width[c] * pa.fmt.height[c];
            const uint16_t *a = (const uint16_t *)pa.data[c], *b = (const uint16_t *)pb.data[c];
            double se = 0;
            for (size_t i = 0; i < n; i++)
                se += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
            se_all += se;
            n_all += n;
            printf("%.4f ", se > 0 ? 10 * log10(peak * peak * (double)n / se) : 999.0);
        }
        printf("%.4f\n", se_all > 0 ? 10 * log10(peak * peak * (double)n_all / se_all) : 999.0);
    }
    free(bufs[0]);
    free(bufs[1]);
    return rc;
}

static int cmd_ssim(char **argv)
{
    xsf_picture pa, pb;
    uint16_t *bufs[2];
    const int rc = read_pair(argv, &pa, &pb, bufs);
    if (!rc) {
        const int rgb = !strcmp(argv[4], "rgb");
        printf("%.6f %.6f\n", cmp_ssim_luma(&pa, &pb, rgb), cmp_msssim_luma(&pa, &pb, rgb));
    }
    free(bufs[0]);
    free(bufs[1]);
    return rc;
}

/* Least-squares cubic y = c0 + c1 t + c2 t^2 + c3 t^3 of x, t = (x - m) / s. */
static int fit3(const double *x, const double *y, int n, double m, double s, double c[4])
{
    double A[4][5] = {{0}};
    for (int i = 0; i < n; i++) {
        const double t = (x[i] - m) / s;
        double p[4] = {1, t, t * t, t * t * t};
        for (int r = 0; r < 4; r++) {
            for (int k = 0; k < 4; k++)
                A[r][k] += p[r] * p[k];
            A[r][4] += p[r] * y[i];
        }
    }
    for (int col = 0; col < 4; col++) {
        int piv = col;
        for (int r = col + 1; r < 4; r++)
            if (fabs(A[r][col]) > fabs(A[piv][col]))
                piv = r;
        if (fabs(A[piv][col]) < 1e-12)
            return -1;
        for (int k = 0; k < 5; k++) {
            const double tmp = A[col][k];
            A[col][k] = A[piv][k];
            A[piv][k] = tmp;
        }
        for (int r = 0; r < 4; r++) {
            if (r == col)
                continue;
            const double f = A[r][col] / A[col][col];
            for (int k = col; k < 5; k++)
                A[r][k] -= f * A[col][k];
        }
    }
    for (int r = 0; r < 4; r++)
        c[r] = A[r][4] / A[r][r];
    return 0;
}

/* Integral of the fitted cubic over x in [lo, hi]. */
static double integral(const double c[4], double m, double s, double lo, double hi)
{
    const double tl = (lo - m) / s, th = (hi - m) / s;
    double v = 0;
    for (int k = 0; k < 4; k++)
        v += c[k] * (pow(th, k + 1) - pow(tl, k + 1)) / (k + 1);
    return v * s;
}

static int cmd_bd(void)
{
    enum { MAXP = 64 };
    double ra[MAXP], pa[MAXP], rt[MAXP], pt[MAXP];
    int n = 0;
    while (n < MAXP && scanf("%lf %lf %lf %lf", &ra[n], &pa[n], &rt[n], &pt[n]) == 4) {
        ra[n] = log10(ra[n]);
        rt[n] = log10(rt[n]);
        n++;
    }
    if (n < 4) {
        fprintf(stderr, "rd_metrics bd: %d points, at least 4 needed\n", n);
        return 2;
    }
    double lo_a = pa[0], hi_a = pa[0], lo_t = pt[0], hi_t = pt[0], m = 0;
    for (int i = 0; i < n; i++) {
        lo_a = fmin(lo_a, pa[i]);
        hi_a = fmax(hi_a, pa[i]);
        lo_t = fmin(lo_t, pt[i]);
        hi_t = fmax(hi_t, pt[i]);
        m += pa[i] + pt[i];
    }
    m /= 2 * n;
    const double s = fmax((hi_a - lo_a + hi_t - lo_t) / 4, 1e-3);
    const double lo = fmax(lo_a, lo_t), hi = fmin(hi_a, hi_t);
    double ca[4], ct[4];
    if (!(hi > lo) || fit3(pa, ra, n, m, s, ca) || fit3(pt, rt, n, m, s, ct)) {
        printf("nan\n");
        return 0;
    }
    const double d = (integral(ct, m, s, lo, hi) - integral(ca, m, s, lo, hi)) / (hi - lo);
    printf("%.3f\n", (pow(10, d) - 1) * 100);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 8 && !strcmp(argv[1], "psnr"))
        return cmd_psnr(argv + 2);
    if (argc == 8 && !strcmp(argv[1], "ssim"))
        return cmd_ssim(argv + 2);
    if (argc == 2 && !strcmp(argv[1], "bd"))
        return cmd_bd();
    fprintf(stderr, "usage: rd_metrics psnr REF DEC W H SAMPLING DEPTH\n"
                    "       rd_metrics ssim REF DEC W H SAMPLING DEPTH\n"
                    "       rd_metrics bd < lines of \"RATE_A PSNR_A RATE_T PSNR_T\"\n");
    return 2;
}
