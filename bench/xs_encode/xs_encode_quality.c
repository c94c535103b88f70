/* bench/xs_encode quality: PSNR of the C encoder against SVT-JPEG-XS (the
 * encoder of vectors/xs) at the same bits per pixel.
 *
 * The vectors' source crops are not here. What is: rate_bpp12, the
 * EveningGlow crop (320x180 4:4:4 12-bit) coded by SVT at 12 bpp, 62 dB from
 * its source. That decoded picture stands in for the source ("proxy"): both
 * encoders are measured against it, ours by encoding it, SVT's by decoding
 * its vectors of the same crop at lower rates (rate_bpp1..8). The other
 * vectors of EveningGlow (fmt_*, geom_*, seq_*, hd_*) are other crops: the
 * proxy is 10 dB away from them, so they cannot be compared this way. PSNR is
 * over all samples of all components (the manifest's PSNR matches this
 * definition: see the table's two SVT columns).
 *
 * Usage: xs_encode_quality [VECTOR_DIR] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xs.h"

typedef struct pic {
    xsf_picture img; /* a view of buf */
    uint16_t *buf;
} pic;

static void pic_alloc(pic *p, int nc, int w, int h, int sx, int sy, int depth)
{
    memset(p, 0, sizeof *p);
    size_t total = 0;
    for (int c = 0; c < nc; c++)
        total += (size_t)(c == 1 || c == 2 ? w / sx : w) * (c == 1 || c == 2 ? h / sy : h);
    p->buf = calloc(total, 2);
    xsf_picture_init(&p->img);
    p->img.fmt.container = XSF_PLANAR_U16;
    p->img.fmt.nc = nc;
    size_t off = 0;
    for (int c = 0; c < nc; c++) {
        p->img.fmt.width[c] = c == 1 || c == 2 ? w / sx : w;
        p->img.fmt.height[c] = c == 1 || c == 2 ? h / sy : h;
        p->img.fmt.depth[c] = depth;
        p->img.stride[c] = (size_t)p->img.fmt.width[c] * 2;
        p->img.data[c] = (uint8_t *)(p->buf + off);
        off += (size_t)p->img.fmt.width[c] * p->img.fmt.height[c];
    }
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)len);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* Decodes dir/name.jxs into p (a copy). */
static int decode_vector(const char *dir, const char *name, pic *p, size_t *bytes)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.jxs", dir, name);
    size_t n, used;
    uint8_t *cs = read_file(path, &n);
    if (!cs)
        return -1;
    xs_decoder *d;
    const xsf_picture *img;
    xs_decoder_create(&d);
    int ok = xs_decode(d, cs, n, &used, &img) == XSF_OK;
    if (ok) {
        const xsf_format *f = &img->fmt;
        pic_alloc(p, f->nc, f->width[0], f->height[0], f->width[0] / f->width[f->nc > 1],
                  f->height[0] / f->height[f->nc > 1], f->depth[0]);
        xsf_error err;
        ok = xsf_picture_copy(&p->img, img, &err) == XSF_OK;
    }
    xs_decoder_destroy(d);
    free(cs);
    if (bytes)
        *bytes = n;
    return ok ? 0 : -1;
}

static double psnr(const xsf_picture *a, const xsf_picture *b)
{
    double se = 0, n = 0;
    for (int c = 0; c < a->fmt.nc; c++) {
        for (int y = 0; y < a->fmt.height[c]; y++)
            for (int x = 0; x < a->fmt.width[c]; x++) {
                double d =
                    (double)xsf_picture_row16(a, c, y)[x] - (double)xsf_picture_row16(b, c, y)[x];
                se += d * d;
                n++;
            }
    }
    const double peak = (double)((1 << a->fmt.depth[0]) - 1);
    return se ? 10 * log10(peak * peak * n / se) : 999;
}

/* Encodes p with our C encoder at bpp (tools: 0 = those SVT used for the
 * vectors (no vertical prediction, no sign packing), 1 = all), decodes. */
static double ours(const pic *p, double bpp, int rct, int tools, size_t *bytes)
{
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    const xsf_format *f = &p->img.fmt;
    cfg.width = f->width[0];
    cfg.height = f->height[0];
    cfg.nc = f->nc;
    for (int c = 0; c < cfg.nc; c++) {
        cfg.depth[c] = f->depth[c];
        cfg.sx[c] = f->width[0] / f->width[c];
        cfg.sy[c] = f->height[0] / f->height[c];
    }
    cfg.cpih = rct;
    cfg.bpp = bpp;
    if (!tools) {
        cfg.gcli_modes = XS_GCLI_RAW | XS_GCLI_NOPRED | XS_GCLI_SIGFLAGS;
        cfg.fs = 0;
    }
    xs_encoder *e;
    xsf_error err = {0};
    if (xs_encoder_create(&e, &cfg, &err) != XSF_OK) {
        fprintf(stderr, "encoder: %s\n", err.msg);
        return 0;
    }
    size_t cap = xs_encoder_max_bytes(e), len = 0, used;
    uint8_t *cs = malloc(cap);
    double r = 0;
    if (xs_encode(e, &p->img, cs, cap, &len) == XSF_OK) {
        xs_decoder *d;
        const xsf_picture *img;
        xs_decoder_create(&d);
        if (xs_decode(d, cs, len, &used, &img) == XSF_OK)
            r = psnr(&p->img, img);
        xs_decoder_destroy(d);
    }
    *bytes = len;
    free(cs);
    xs_encoder_destroy(e);
    return r;
}

static void row(const char *name, const char *fmt, double bpp, double manifest, const pic *ref,
                const char *dir, int rct)
{
    pic svt;
    size_t svt_bytes = 0, b0 = 0, b1 = 0;
    double s = 0;
    if (decode_vector(dir, name, &svt, &svt_bytes) == 0) {
        s = psnr(&ref->img, &svt.img);
        free(svt.buf);
    }
    const double o0 = ours(ref, bpp, rct, 0, &b0), o1 = ours(ref, bpp, rct, 1, &b1);
    printf("| %s | %s | %.1f | %zu | %.2f | %.2f | %zu | %.2f | %+.2f | %.2f | %+.2f |\n", name,
           fmt, bpp, svt_bytes, manifest, s, b0, o0, o0 - s, o1, o1 - s);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "vectors/xs";
    pic proxy;
    if (decode_vector(dir, "rate_bpp12", &proxy, NULL)) {
        fprintf(stderr, "%s/rate_bpp12.jxs not found\n", dir);
        return 1;
    }
    printf("Reference: rate_bpp12 decoded (EveningGlow crop, 320x180 4:4:4 12-bit).\n\n");
    printf("| vector | format | bpp | SVT bytes | SVT PSNR (manifest, vs source) | SVT PSNR vs "
           "proxy | our bytes | "
           "ours, SVT's tools | ours - SVT | ours, all tools | ours - SVT |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n");
    static const struct {
        const char *name;
        double bpp, manifest;
    } rates[] = {{"rate_bpp1", 1, 30.26},
                 {"rate_bpp2", 2, 38.03},
                 {"rate_bpp4", 4, 46.46},
                 {"rate_bpp6", 6, 52.14},
                 {"rate_bpp8", 8, 56.22}};
    for (size_t i = 0; i < 5; i++)
        row(rates[i].name, "4:4:4 12-bit", rates[i].bpp, rates[i].manifest, &proxy, dir, 0);
    free(proxy.buf);
    return 0;
}
