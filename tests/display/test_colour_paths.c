/* One --colour value, one picture: every vector's first frame through
 * decode's .ppm writer (imgio/, what `xsflow decode -o X.ppm --colour C`
 * writes) and through the display's C conversion (display/convert.c, the
 * reference its shader and CUDA compositor are tested against), with the
 * colour read by the one parser of --colour (common/include/xsf_colour.h). Both must
 * agree within 1 code value at 8 bits for every word of the vocabulary: they
 * once took `gbr` 20 code values apart.
 * usage: test_colour_paths VECTOR_DIR */
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "image_io.h"
#include "test.h"
#include "xs.h"

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n = -1;
    if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
        (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    *len = buf ? (size_t)n : 0;
    return buf;
}

/* decode's .ppm of img with `colour`, brought to 8 bits; NULL on failure. */
static uint8_t *decode_path(const xsf_picture *img, const xsf_colour *colour)
{
    const xsf_picture pic = *img;
    imgio_write_options opt = {.format = IMGIO_FORMAT_PPM, .colour = *colour};
    imgio_writer *w = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (imgio_writer_open(&w, "colour_paths.ppm", &opt, &err) != XSF_OK ||
        imgio_write(w, &pic, &err) != XSF_OK) {
        imgio_writer_close(w, &err);
        fprintf(stderr, "ppm: %s\n", err.msg);
        return NULL;
    }
    imgio_writer_close(w, &err);
    imgio_reader *r = NULL;
    const xsf_picture *back = NULL;
    uint8_t *rgb = NULL;
    if (imgio_reader_open(&r, "colour_paths.ppm", IMGIO_FORMAT_PPM, NULL, &err) == XSF_OK &&
        imgio_read(r, &back, &err) == XSF_OK && back) {
        const size_t n = (size_t)back->fmt.width[0] * back->fmt.height[0];
        const double maxv = (double)((1u << back->fmt.depth[0]) - 1);
        rgb = malloc(3 * n);
        for (size_t i = 0; rgb && i < n; i++)
            for (int c = 0; c < 3; c++)
                rgb[3 * i + c] =
                    (uint8_t)(xsf_picture_row16(
                                  back, c,
                                  (int)(i / (size_t)back->fmt
                                                .width[0]))[i % (size_t)back->fmt.width[0]] *
                                  255.0 / maxv +
                              0.5);
    }
    imgio_reader_close(r);
    return rgb;
}

/* The display's C conversion of img with `colour`. */
static uint8_t *display_path(const xsf_picture *img, const xsf_colour *colour)
{
    xsf_picture p = *img;
    p.fmt.nc = 3;
    p.colour = *colour;
    const size_t n = 3 * (size_t)img->fmt.width[0] * img->fmt.height[0];
    uint8_t *rgb = malloc(n);
    xsf_error err;
    xsf_error_clear(&err);
    if (rgb && dsp_convert_rgb8(&p, rgb, n, &err) != XSF_OK) {
        fprintf(stderr, "display: %s\n", err.msg);
        free(rgb);
        rgb = NULL;
    }
    return rgb;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_colour_paths VECTOR_DIR\n");
        return 2;
    }
    /* 10-bit 4:2:2, 8-bit 4:2:0 over odd sizes, 12-bit 4:4:4 Y'CbCr, the RGB vectors (G B R). */
    static const char *const vectors[] = {"fmt_yuv422_10b", "geom_334x78_420", "fmt_yuv444_12b",
                                          "fmt_rgb_8b", "fmt_rgb_12b"};
    /* Every word of the vocabulary, in decode's and play's spellings. */
    static const char *const colours[] = {"709",        "601",          "2020",  "709,full",
                                          "601,full",   "2020,full",    "bt709", "bt601-full",
                                          "bt709-full", "rgb",          "gbr",   "rgb,narrow",
                                          "gbr,narrow", "bt2020-narrow"};
    xs_decoder *dec = NULL;
    CHECK(xs_decoder_create(&dec, NULL) == XSF_OK, "decoder");
    for (size_t v = 0; dec && v < sizeof vectors / sizeof vectors[0]; v++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.jxs", argv[1], vectors[v]);
        size_t len;
        uint8_t *data = slurp(path, &len);
        const xsf_picture *img = NULL;
        size_t used;
        CHECK(data && xs_decode(dec, data, len, &used, &img) == XSF_OK && img && img->fmt.nc >= 3,
              "%s: decode", path);
        for (size_t k = 0; img && k < sizeof colours / sizeof colours[0]; k++) {
            xsf_colour col;
            CHECK(xsf_colour_parse(colours[k], &col, NULL) == XSF_OK, "%s", colours[k]);
            uint8_t *a = decode_path(img, &col), *b = display_path(img, &col);
            CHECK(a && b, "%s --colour %s: both paths convert", vectors[v], colours[k]);
            int worst = 0;
            const size_t n = 3 * (size_t)img->fmt.width[0] * img->fmt.height[0];
            for (size_t i = 0; a && b && i < n; i++)
                if (abs(a[i] - b[i]) > worst)
                    worst = abs(a[i] - b[i]);
            CHECK(worst <= 1,
                  "%s --colour %s: decode's .ppm and the display differ by %d code values",
                  vectors[v], colours[k], worst);
            free(a);
            free(b);
        }
        free(data);
    }
    xs_decoder_destroy(dec);
    return xsf_test_finish();
}
