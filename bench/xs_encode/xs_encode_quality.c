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
 * Usage: xs_encode_quality [VECTOR_DIR] (--help) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "image_io.h"
#include "xs.h"
#include "xsf_cli.h"

/* Decodes dir/name.jxs into p, a picture of its own (cmp_picture_free). */
static int decode_vector(const char *dir, const char *name, xsf_picture *p, size_t *bytes)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.jxs", dir, name);
    size_t n = 0, used;
    uint8_t *cs = NULL;
    xsf_error err;
    if (imgio_read_file(path, &cs, &n, &err) != XSF_OK)
        return -1;
    xs_decoder *d = NULL;
    const xsf_picture *img;
    const int ok = xs_decoder_create(&d, NULL) == XSF_OK &&
                   xs_decode(d, cs, n, &used, &img) == XSF_OK &&
                   cmp_picture_copy(p, img, &err) == XSF_OK;
    xs_decoder_destroy(d);
    free(cs);
    if (bytes)
        *bytes = n;
    return ok ? 0 : -1;
}

/* Encodes p with our C encoder at bpp (tools: 0 = those SVT used for the
 * vectors (no vertical prediction, no sign packing), 1 = all), decodes. */
static double ours(const xsf_picture *p, double bpp, int rct, int tools, size_t *bytes)
{
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    const xsf_format *f = &p->fmt;
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
    if (xs_encode(e, p, cs, cap, &len) == XSF_OK) {
        xs_decoder *d;
        const xsf_picture *img;
        xs_decoder_create(&d, NULL);
        if (xs_decode(d, cs, len, &used, &img) == XSF_OK)
            r = cmp_psnr_all(p, img);
        xs_decoder_destroy(d);
    }
    *bytes = len;
    free(cs);
    xs_encoder_destroy(e);
    return r;
}

static void row(const char *name, const char *fmt, double bpp, double manifest,
                const xsf_picture *ref, const char *dir, int rct)
{
    xsf_picture svt;
    size_t svt_bytes = 0, b0 = 0, b1 = 0;
    double s = 0;
    if (decode_vector(dir, name, &svt, &svt_bytes) == 0) {
        s = cmp_psnr_all(ref, &svt);
        cmp_picture_free(&svt);
    }
    const double o0 = ours(ref, bpp, rct, 0, &b0), o1 = ours(ref, bpp, rct, 1, &b1);
    printf("| %s | %s | %.1f | %zu | %.2f | %.2f | %zu | %.2f | %+.2f | %.2f | %+.2f |\n", name,
           fmt, bpp, svt_bytes, manifest, s, b0, o0, o0 - s, o1, o1 - s);
}

int main(int argc, char **argv)
{
    const char *dir = "vectors/xs";
    const cli_option args[] = {
        CLI_ARG("VECTOR_DIR", CLI_STRING, &dir, "the JPEG XS vectors (default vectors/xs)"),
        CLI_TABLE_END,
    };
    const cli_command cmd = {.about = "PSNR of the C encoder against SVT-JPEG-XS at the same bits "
                                      "per pixel, on the EveningGlow crop.\n",
                             .options = args};
    const int parsed = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (parsed >= 0)
        return parsed;
    xsf_picture proxy;
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
    cmp_picture_free(&proxy);
    return 0;
}
