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
    xs_image img;
    uint16_t *buf;
} pic;

static void pic_alloc(pic *p, int nc, int w, int h, int sx, int sy, int depth)
{
    memset(p, 0, sizeof *p);
    size_t total = 0;
    for (int c = 0; c < nc; c++)
        total += (size_t)(c == 1 || c == 2 ? w / sx : w) * (c == 1 || c == 2 ? h / sy : h);
    p->buf = calloc(total, 2);
    p->img.nc = nc;
    size_t off = 0;
    for (int c = 0; c < nc; c++) {
        p->img.width[c] = c == 1 || c == 2 ? w / sx : w;
        p->img.height[c] = c == 1 || c == 2 ? h / sy : h;
        p->img.depth[c] = depth;
        p->img.pitch[c] = (size_t)p->img.width[c];
        p->img.plane[c] = p->buf + off;
        off += (size_t)p->img.width[c] * p->img.height[c];
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
    const xs_image *img;
    xs_decoder_create(&d);
    int ok = xs_decode(d, cs, n, &used, &img) == XSF_OK;
    if (ok) {
        pic_alloc(p, img->nc, img->width[0], img->height[0],
                  img->width[0] / img->width[img->nc > 1],
                  img->height[0] / img->height[img->nc > 1], img->depth[0]);
        for (int c = 0; c < img->nc; c++)
            memcpy(p->img.plane[c], img->plane[c], (size_t)img->width[c] * img->height[c] * 2);
    }
    xs_decoder_destroy(d);
    free(cs);
    if (bytes)
        *bytes = n;
    return ok ? 0 : -1;
}

static double psnr(const xs_image *a, const xs_image *b)
{
    double se = 0, n = 0;
    for (int c = 0; c < a->nc; c++) {
        const int cb = c;
        for (int y = 0; y < a->height[c]; y++)
            for (int x = 0; x < a->width[c]; x++) {
                double d = (double)a->plane[c][(size_t)y * a->pitch[c] + x] -
                           (double)b->plane[cb][(size_t)y * b->pitch[cb] + x];
                se += d * d;
                n++;
            }
    }
    const double peak = (double)((1 << a->depth[0]) - 1);
    return se ? 10 * log10(peak * peak * n / se) : 999;
}

/* Encodes p with our C encoder at bpp (tools: 0 = those SVT used for the
 * vectors (no vertical prediction, no sign packing), 1 = all), decodes. */
static double ours(const pic *p, double bpp, int rct, int tools, size_t *bytes)
{
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    cfg.width = p->img.width[0];
    cfg.height = p->img.height[0];
    cfg.nc = p->img.nc;
    for (int c = 0; c < cfg.nc; c++) {
        cfg.depth[c] = p->img.depth[c];
        cfg.sx[c] = p->img.width[0] / p->img.width[c];
        cfg.sy[c] = p->img.height[0] / p->img.height[c];
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
        const xs_image *img;
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
