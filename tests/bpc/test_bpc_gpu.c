/* The CUDA codec against the C reference, on the device: for every variant,
 * both filters, lossless and rate-limited, host and device memory, pictures
 * of awkward shapes (and a photograph when given), the GPU encoder must
 * write the C encoder's codestream byte for byte and the GPU decoder must
 * give the C decoder's picture sample for sample; corrupt codestreams must
 * be refused by both decoders alike. Exits 77 (skipped) without a GPU.
 *
 * usage: test_bpc_gpu [quick|tiny] [PHOTO.ppm]   (quick: small sizes, for
 * compute-sanitizer; tiny: fewer still, for the host emulation of the
 * kernels, tests/bpc/emu) */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "bpc.h"

static uint64_t rng = 0x0123456789abcdefull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

typedef struct photo {
    int w, h;
    uint8_t *rgb;
} photo;

static int load_ppm(const char *path, photo *p)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int maxv = 0;
    const int ok =
        fscanf(f, "P6 %d %d %d", &p->w, &p->h, &maxv) == 3 && maxv == 255 && fgetc(f) != EOF;
    p->rgb = ok ? malloc((size_t)p->w * p->h * 3) : NULL;
    const int got = p->rgb && fread(p->rgb, 3, (size_t)p->w * p->h, f) == (size_t)p->w * p->h;
    fclose(f);
    return got;
}

static void image_make(xsf_picture *img, int nc, int w, int h, int depth, int sub, const photo *ph)
{
    memset(img, 0, sizeof *img);
    img->fmt.nc = nc;
    for (int c = 0; c < nc; c++) {
        const int cw = (c > 0 && sub) ? (w + 1) / 2 : w;
        img->fmt.width[c] = cw;
        img->fmt.height[c] = h;
        img->fmt.depth[c] = depth;
        img->stride[c] = ((size_t)cw + (size_t)(c & 1)) * sizeof(uint16_t);
        img->data[c] = (uint8_t *)(malloc((img->stride[c] / 2) * h * 2));
        const int maxv = (1 << depth) - 1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < cw; x++) {
                int v;
                if (ph) { /* the photograph, mirrored to fill */
                    int px = x % (2 * ph->w), py = y % (2 * ph->h);
                    px = px < ph->w ? px : 2 * ph->w - 1 - px;
                    py = py < ph->h ? py : 2 * ph->h - 1 - py;
                    v = ph->rgb[((size_t)py * ph->w + px) * 3 + (c % 3)] << (depth - 8);
                } else {
                    v = (x * 3 + y * 5) % (maxv + 1) / 2 +
                        ((x / 7 + y / 5) % 3 == 0 ? maxv / 3 : 0);
                    v += (int)(rnd() % (unsigned)(maxv / 16 + 1));
                }
                xsf_picture_row16(img, c, y)[x] = (uint16_t)(v > maxv ? maxv : v);
            }
    }
}

static void image_free(xsf_picture *img)
{
    for (int c = 0; c < img->fmt.nc; c++)
        free(img->data[c]);
}

static int same_picture(const xsf_picture *a, const xsf_picture *b)
{
    for (int c = 0; c < a->fmt.nc; c++)
        for (int y = 0; y < a->fmt.height[c]; y++)
            if (memcmp(xsf_picture_row16(a, c, y), xsf_picture_row16(b, c, y),
                       2 * (size_t)a->fmt.width[c]))
                return 0;
    return 1;
}

/* A copy of img in device memory (planes allocated with cudaMalloc). */
static int to_device(const xsf_picture *img, xsf_picture *dev)
{
    *dev = *img;
    dev->memory = XSF_MEMORY_DEVICE;
    dev->device = 0;
    for (int c = 0; c < img->fmt.nc; c++) {
        if (cudaMalloc((void **)&dev->data[c], img->stride[c] * img->fmt.height[c]) != cudaSuccess)
            return 0;
        cudaMemcpy(dev->data[c], img->data[c], img->stride[c] * img->fmt.height[c],
                   cudaMemcpyHostToDevice);
    }
    return 1;
}

static int corruptions = 24;

static void case_run(const char *name, const bpc_params *p, const xsf_picture *img)
{
    char what[160];
    snprintf(what, sizeof what, "%s: %d passes %s%s", name, (int)p->variant,
             p->filter ? "9/7" : "5/3", p->target_bytes ? " rate" : " all passes");
    const size_t cap = bpc_encode_bound(p, &img->fmt);
    uint8_t *a = malloc(cap), *b = malloc(cap);
    size_t la = 0, lb = 0;
    bpc_encoder *enc;
    bpc_encoder_create(&enc, p, NULL);
    xsf_status s = bpc_encode(enc, img, a, cap, &la);
    CHECK(s == XSF_OK, "%s: C encode: %s", what, bpc_encoder_error(enc));
    bpc_encoder_destroy(enc);
    bpc_gpu_encoder *genc = NULL;
    xsf_error made;
    xsf_error_clear(&made);
    s = bpc_gpu_encoder_create(&genc, p, &img->fmt, NULL, &made);
    CHECK(s == XSF_OK, "%s: GPU encoder: %s", what, made.msg);
    if (s == XSF_OK) {
        for (int round = 0; round < 2; round++) { /* twice: nothing left over from the last frame */
            memset(b, 0x5a, cap);
            s = bpc_gpu_encode(genc, img, b, cap, &lb);
            CHECK(s == XSF_OK, "%s: GPU encode: %s", what, bpc_gpu_encoder_error(genc));
            CHECK(lb == la && !memcmp(a, b, la),
                  "%s: GPU codestream (%zu bytes) differs from C (%zu bytes)%s", what, lb, la,
                  lb == la ? " in content" : "");
        }
        xsf_picture dev;
        if (to_device(img, &dev)) {
            s = bpc_gpu_encode(genc, &dev, b, cap, &lb);
            CHECK(s == XSF_OK && lb == la && !memcmp(a, b, la),
                  "%s: GPU codestream from device memory differs", what);
            for (int c = 0; c < dev.fmt.nc; c++)
                cudaFree(dev.data[c]);
        }
    }
    bpc_gpu_encoder_destroy(genc);
    if (p->target_bytes && la < cap)
        CHECK(la <= p->target_bytes, "%s: %zu bytes over the target %zu", what, la,
              p->target_bytes);

    /* decoders: C and GPU, host and device output */
    bpc_decoder *dec;
    bpc_gpu_decoder *gdec = NULL;
    bpc_decoder_create(&dec, NULL);
    s = bpc_gpu_decoder_create(&gdec, NULL, NULL);
    CHECK(s == XSF_OK, "%s: GPU decoder", what);
    const xsf_picture *ci, *gi;
    size_t used;
    s = bpc_decode(dec, a, la, &used, &ci);
    CHECK(s == XSF_OK, "%s: C decode: %s", what, bpc_decoder_error(dec));
    if (!s && !p->target_bytes && p->filter == BPC_FILTER_53)
        CHECK(same_picture(img, ci), "%s: not lossless", what);
    if (!s && gdec) {
        xsf_status g = bpc_gpu_decode(gdec, a, la, 0, &used, &gi);
        CHECK(g == XSF_OK && used == la, "%s: GPU decode: %s", what, bpc_gpu_decoder_error(gdec));
        if (!g)
            CHECK(same_picture(ci, gi), "%s: GPU picture differs from C", what);
        /* with the header parsed once, by bpc_parse_header */
        bpc_info info;
        xsf_error perr;
        xsf_error_clear(&perr);
        g = bpc_parse_header(a, la, &info, &perr);
        if (!g)
            g = bpc_gpu_decode_parsed(gdec, &info, a, la, 0, &used, &gi);
        CHECK(g == XSF_OK && used == la && same_picture(ci, gi), "%s: GPU decode, parsed: %s", what,
              bpc_gpu_decoder_error(gdec));
        g = bpc_gpu_decode(gdec, a, la, 1, &used, &gi);
        CHECK(g == XSF_OK, "%s: GPU decode to device: %s", what, bpc_gpu_decoder_error(gdec));
        if (!g) {
            int same = 1;
            for (int c = 0; c < gi->fmt.nc && same; c++) {
                const size_t n = (gi->stride[c] / 2) * gi->fmt.height[c];
                uint16_t *h = malloc(n * 2);
                cudaMemcpy(h, ((uint16_t *)gi->data[c]), n * 2, cudaMemcpyDeviceToHost);
                for (int y = 0; y < gi->fmt.height[c] && same; y++)
                    same = !memcmp(h + y * (gi->stride[c] / 2), xsf_picture_row16(ci, c, y),
                                   2 * (size_t)gi->fmt.width[c]);
                free(h);
            }
            CHECK(same, "%s: GPU picture in device memory differs from C", what);
        }
        /* corruptions: both decoders refuse alike, or agree on the picture */
        int agree = 1;
        const int ncorrupt = (size_t)img->fmt.width[0] * img->fmt.height[0] > 300000
                                 ? 4
                                 : corruptions; /* C decodes are slow */
        for (int i = 0; i < ncorrupt; i++) {
            memcpy(b, a, la);
            const int cuts = ncorrupt / 4;
            const size_t n =
                i < cuts ? la - 1 - (size_t)(rnd() % (la / 2)) : la; /* cuts, then flips */
            if (i >= cuts)
                b[rnd() % la] ^= (uint8_t)(1u << (rnd() % 8));
            const xsf_status sc = bpc_decode(dec, b, n, &used, &ci);
            const xsf_status sg = bpc_gpu_decode(gdec, b, n, 0, &used, &gi);
            if ((sc == XSF_OK) != (sg == XSF_OK) || (sc == XSF_OK && !same_picture(ci, gi))) {
                agree = 0;
                fprintf(stderr, "  corruption %d: C %d (%s), GPU %d (%s)\n", i, (int)sc,
                        bpc_decoder_error(dec), (int)sg, bpc_gpu_decoder_error(gdec));
            }
        }
        CHECK(agree, "%s: decoders disagree on corrupt codestreams", what);
    }
    bpc_decoder_destroy(dec);
    bpc_gpu_decoder_destroy(gdec);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    if (bpc_gpu_available() != XSF_OK) {
        printf("no usable GPU (or no CUDA kernels): skipped\n");
        return XSF_TEST_SKIP;
    }
    int quick = 0, tiny = 0;
    photo ph = {0, 0, NULL}, *php = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "quick"))
            quick = 1;
        else if (!strcmp(argv[i], "tiny"))
            quick = tiny = 1;
        else if (load_ppm(argv[i], &ph))
            php = &ph;
        else
            fprintf(stderr, "cannot read %s (a P6 PPM of 8 bits)\n", argv[i]);
    }
    struct {
        const char *name;
        int nc, w, h, depth, sub, levels;
        int photo;
    } shapes[] = {
        {"grey 333x257 8-bit", 1, 333, 257, 8, 0, 5, 0},
        {"RGB 160x90 10-bit", 3, 160, 90, 10, 0, 3, 0},
        {"4:2:2 127x66 12-bit", 3, 127, 66, 12, 1, 2, 0},
        {"4 components 64x64", 4, 64, 64, 8, 0, 6, 0},
        {"RGB 1001x600 8-bit", 3, 1001, 600, 8, 0, 5, 0},
        {"photograph 1920x1080", 3, 1920, 1080, 8, 0, 5, 1},
    };
    const int nshapes = quick ? 2 : (int)(sizeof shapes / sizeof shapes[0]);
    if (tiny)
        corruptions = 6;
    for (int i = 0; i < nshapes; i++) {
        if (shapes[i].photo && !php)
            continue;
        xsf_picture img;
        image_make(&img, shapes[i].nc, shapes[i].w, shapes[i].h, shapes[i].depth, shapes[i].sub,
                   shapes[i].photo ? php : NULL);
        for (int v = 1; v <= 3; v++)
            for (int f = 0; f < 2; f++)
                for (int r = 0; r < 2; r++) {
                    if (quick && v != 2 && (f || r))
                        continue;
                    if (tiny && (i == 0 ? (f || r) : (f != r)))
                        continue;
                    bpc_params p;
                    bpc_params_default(&p);
                    p.variant = (bpc_variant)v;
                    p.filter = f ? BPC_FILTER_97 : BPC_FILTER_53;
                    p.levels = shapes[i].levels;
                    if (r)
                        bpc_params_set_bpp(&p, 1.0 + (double)v, shapes[i].w, shapes[i].h);
                    case_run(shapes[i].name, &p, &img);
                }
        image_free(&img);
    }
    free(ph.rgb);
    return xsf_test_finish();
}
