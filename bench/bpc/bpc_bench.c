/* bench/bpc: BPC-PaCo on the GPU. For UHD 4:4:4 (3840x2160, 3 components)
 * and 8192x8192 (one component, as the thesis' Table 4.4), 8-bit samples of
 * a photograph (mirrored to fill, --photo) or a synthetic picture: the
 * samples per second of the code-block coder alone (encoder and decoder
 * kernels, CUDA events) and the frames per second of the whole codec
 * (encode: device samples to a host codestream; decode: host codestream to
 * device samples), for the 2-, 3- and 1-pass variants, the 9/7 at several
 * rates and the 5/3 lossless. Prints next to it the thesis' TITAN X figure
 * (2 passes, 8192x8192 in 39.67 ms: 1.69 Gsamples/s) scaled to this device
 * by SM count x clock, and the 1.5x target. Also checks, once per size, that
 * the GPU codestream and picture equal the C reference's.
 *
 * usage: bpc_bench [--photo FILE.ppm] [--quick] [--reps N] (--help) */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpc.h"
#include "gpu_internal.h"
#include "xsf_cli.h"
#include "xsf_clock.h"

#define THESIS_SAMPLES_PER_S (8192.0 * 8192.0 / 39.67e-3)
#define THESIS_SMS 24           /* GTX TITAN X (Maxwell GM200) */
#define THESIS_CLOCK_MHZ 1075.0 /* its boost clock */

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n ? v[n / 2] : 0;
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

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static int make_picture(xsf_picture *img, int nc, int w, int h, const photo *ph)
{
    xsf_picture_init(img);
    img->fmt.container = XSF_PLANAR_U16;
    img->fmt.nc = nc;
    for (int c = 0; c < nc; c++) {
        img->fmt.width[c] = w;
        img->fmt.height[c] = h;
        img->fmt.depth[c] = 8;
    }
    xsf_error err;
    if (xsf_picture_alloc(img, NULL, &err) != XSF_OK)
        return 0;
    for (int c = 0; c < nc; c++) {
        for (int y = 0; y < h; y++) {
            uint16_t *row = xsf_picture_row16(img, c, y);
            for (int x = 0; x < w; x++) {
                int v;
                if (ph) {
                    int px = x % (2 * ph->w), py = y % (2 * ph->h);
                    px = px < ph->w ? px : 2 * ph->w - 1 - px;
                    py = py < ph->h ? py : 2 * ph->h - 1 - py;
                    v = ph->rgb[((size_t)py * ph->w + px) * 3 + (nc == 1 ? 1 : c)];
                } else {
                    v = (int)(128 + 90 * sin(x * 0.013 + c) * cos(y * 0.011)) + (int)(rnd() % 12) -
                        6;
                    v = v < 0 ? 0 : (v > 255 ? 255 : v);
                }
                row[x] = (uint16_t)v;
            }
        }
    }
    return 1;
}

/* A copy of the planes in device memory, rows as far apart as in `img`. */
static int to_device(const xsf_picture *img, xsf_picture *dev)
{
    uint8_t *data[XSF_MAX_COMPONENTS] = {0};
    int ok = 1;
    for (int c = 0; c < img->fmt.nc; c++) {
        const size_t n = img->stride[c] * (size_t)img->fmt.height[c];
        if (cudaMalloc((void **)&data[c], n) != cudaSuccess ||
            cudaMemcpy(data[c], img->data[c], n, cudaMemcpyHostToDevice) != cudaSuccess)
            ok = 0;
    }
    xsf_picture_wrap(dev, &img->fmt, data, img->stride, XSF_MEMORY_DEVICE, 0);
    return ok;
}

static double psnr_of(const xsf_picture *a, const xsf_picture *b)
{
    double se = 0, n = 0;
    for (int c = 0; c < a->fmt.nc; c++)
        for (int y = 0; y < a->fmt.height[c]; y++)
            for (int x = 0; x < a->fmt.width[c]; x++) {
                const double d =
                    (double)xsf_picture_row16(a, c, y)[x] - xsf_picture_row16(b, c, y)[x];
                se += d * d;
                n++;
            }
    return se == 0 ? INFINITY : 10 * log10(255.0 * 255.0 * n / se);
}

typedef struct row {
    const char *size;
    int variant;
    const char *coding;
    double bpp, psnr;
    double enc_coder_ms, enc_ms, dec_coder_ms, dec_ms;
    double samples;
} row;

static row rows[64];
static int nrows;

static int run_config(const char *size, const xsf_picture *img, const xsf_picture *dev, int variant,
                      int filter, double bpp, int reps, int check)
{
    bpc_params p;
    bpc_params_default(&p);
    p.variant = (bpc_variant)variant;
    p.filter = filter ? BPC_FILTER_97 : BPC_FILTER_53;
    if (bpp > 0)
        bpc_params_set_bpp(&p, bpp, img->fmt.width[0], img->fmt.height[0]);
    const size_t cap = bpc_encode_bound(&p, &img->fmt);
    uint8_t *cs = malloc(cap);
    bpc_gpu_encoder *enc = NULL;
    bpc_gpu_decoder *dec = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (!cs || bpc_gpu_encoder_create(&enc, &p, &img->fmt, NULL, &err) ||
        bpc_gpu_decoder_create(&dec, NULL, &err)) {
        fprintf(stderr, "%s: cannot create the GPU codec: %s\n", size, err.msg);
        free(cs);
        bpc_gpu_encoder_destroy(enc);
        return 1;
    }
    bpc_gpu_encoder_set_timing(enc, 1);
    bpc_gpu_decoder_set_timing(dec, 1);
    double coder[64], total[64], dcoder[64], dtotal[64];
    size_t len = 0;
    int status = 0;
    for (int i = 0; i < reps + 2 && !status; i++) { /* two warm-up frames */
        const double t0 = xsf_clock_mono_s();
        if (bpc_gpu_encode(enc, dev, cs, cap, &len)) {
            fprintf(stderr, "%s: encode: %s\n", size, bpc_gpu_encoder_error(enc));
            status = 1;
            break;
        }
        const double t1 = xsf_clock_mono_s();
        bpc_gpu_times t;
        bpc_gpu_encoder_times(enc, &t);
        if (i >= 2) {
            coder[i - 2] = t.ms[2];
            total[i - 2] = (t1 - t0) * 1e3;
        }
    }
    const xsf_picture *out = NULL;
    size_t used;
    for (int i = 0; i < reps + 2 && !status; i++) {
        const double t0 = xsf_clock_mono_s();
        if (bpc_gpu_decode(dec, cs, len, 1, &used, &out)) {
            fprintf(stderr, "%s: decode: %s\n", size, bpc_gpu_decoder_error(dec));
            status = 1;
            break;
        }
        const double t1 = xsf_clock_mono_s();
        bpc_gpu_times t;
        bpc_gpu_decoder_times(dec, &t);
        if (i >= 2) {
            dcoder[i - 2] = t.ms[1];
            dtotal[i - 2] = (t1 - t0) * 1e3;
        }
    }
    row r;
    memset(&r, 0, sizeof r);
    if (!status && bpc_gpu_decode(dec, cs, len, 0, &used, &out) == XSF_OK)
        r.psnr = psnr_of(img, out);
    if (!status && check) { /* the C reference gives the same codestream and picture */
        bpc_encoder *cenc;
        bpc_decoder *cdec;
        uint8_t *ref = malloc(cap);
        size_t rlen = 0;
        const xsf_picture *cimg;
        bpc_encoder_create(&cenc, &p, NULL);
        bpc_decoder_create(&cdec, NULL);
        const int same_cs =
            !bpc_encode(cenc, img, ref, cap, &rlen) && rlen == len && !memcmp(ref, cs, len);
        int same_pic = !bpc_decode(cdec, ref, rlen, &used, &cimg) && psnr_of(cimg, out) == INFINITY;
        printf("check %s %d passes %s: GPU codestream %s the C one (%zu bytes), GPU picture %s\n",
               size, variant, filter ? "9/7" : "5/3", same_cs ? "equals" : "DIFFERS FROM", len,
               same_pic ? "equal" : "DIFFERS");
        if (!same_cs || !same_pic)
            status = 1;
        bpc_encoder_destroy(cenc);
        bpc_decoder_destroy(cdec);
        free(ref);
    }
    if (!status) {
        r.size = size;
        r.variant = variant;
        r.coding = filter ? "9/7" : "5/3 lossless";
        r.bpp = 8.0 * (double)len / ((double)img->fmt.width[0] * img->fmt.height[0]);
        r.enc_coder_ms = median(coder, reps);
        r.enc_ms = median(total, reps);
        r.dec_coder_ms = median(dcoder, reps);
        r.dec_ms = median(dtotal, reps);
        for (int c = 0; c < img->fmt.nc; c++)
            r.samples += (double)img->fmt.width[c] * img->fmt.height[c];
        rows[nrows++] = r;
    }
    bpc_gpu_encoder_destroy(enc);
    bpc_gpu_decoder_destroy(dec);
    free(cs);
    return status;
}

int main(int argc, char **argv)
{
    const char *photo_path = NULL;
    int quick = 0, reps = 9;
    const cli_option options[] = {
        CLI_OPT("photo", 0, CLI_STRING, &photo_path, "FILE.ppm",
                "8-bit samples of this photograph (binary PPM, maximum 255;\n"
                "mirrored to fill) instead of a synthetic picture"),
        CLI_OPT("quick", 0, CLI_FLAG, &quick, NULL, "one rate per variant, no lossless rows"),
        CLI_OPT("reps", 0, CLI_INT, &reps, "N", "runs per figure, the median kept (default 9)",
                .lo = 1, .hi = 64),
        CLI_TABLE_END,
    };
    const cli_command cmd = {.about = "BPC-PaCo on the GPU: the code-block coder and the whole "
                                      "codec, against the thesis' figure.\n",
                             .options = options};
    const int parsed = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (parsed >= 0)
        return parsed;
    if (bpc_gpu_available() != XSF_OK) {
        printf("bpc_bench: no usable GPU (or no CUDA kernels in this build)\n");
        return 0;
    }
    int dev = 0, sms = 0, clock_khz = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, dev);
    const double scale = (double)sms * (clock_khz / 1e3) / (THESIS_SMS * THESIS_CLOCK_MHZ);
    const double scaled = THESIS_SAMPLES_PER_S * scale;
    photo ph = {0, 0, NULL};
    const int have_photo = photo_path && load_ppm(photo_path, &ph);
    printf("device: %s, %d SMs at %.0f MHz\n", prop.name, sms, clock_khz / 1e3);
    printf("content: %s\n", have_photo ? photo_path : "synthetic (no --photo)");
    printf(
        "thesis (TITAN X, 24 SMs at 1075 MHz, 2 passes, 8192x8192 in 39.67 ms): %.2f Gsamples/s; "
        "scaled by SMs x clock (x%.2f): %.2f Gsamples/s; 1.5x target: %.2f Gsamples/s\n",
        THESIS_SAMPLES_PER_S / 1e9, scale, scaled / 1e9, 1.5 * scaled / 1e9);

    struct {
        const char *name;
        int nc, w, h;
    } sizes[] = {{"UHD 4:4:4", 3, 3840, 2160}, {"8192x8192", 1, 8192, 8192}};
    const double rates[] = {1.0, 2.0, 4.0};
    int status = 0;
    for (int s = 0; s < 2 && !status; s++) {
        xsf_picture img, dimg;
        if (!make_picture(&img, sizes[s].nc, sizes[s].w, sizes[s].h, have_photo ? &ph : NULL)) {
            fprintf(stderr, "no memory for the picture\n");
            return 1;
        }
        if (!to_device(&img, &dimg)) {
            fprintf(stderr, "no device memory for the picture\n");
            return 1;
        }
        const int variants[] = {2, 3, 1};
        for (int vi = 0; vi < 3 && !status; vi++) {
            for (int r = 0; r < 3 && !status; r++) {
                if (quick && r != 1)
                    continue;
                status |= run_config(sizes[s].name, &img, &dimg, variants[vi], 1, rates[r], reps,
                                     !quick && vi == 0 && r == 1);
            }
            if (!quick)
                status |= run_config(sizes[s].name, &img, &dimg, variants[vi], 0, 0, reps, 0);
        }
        for (int c = 0; c < dimg.fmt.nc; c++)
            cudaFree(dimg.data[c]);
        xsf_picture_unref(&img);
    }
    printf("\n| picture | passes | coding | bpp | PSNR dB | coder enc Gsamples/s | coder dec "
           "Gsamples/s "
           "| encode ms (fps) | decode ms (fps) |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        printf("| %s | %d | %s | %.2f | %.2f | %.2f | %.2f | %.2f (%.0f) | %.2f (%.0f) |\n",
               r->size, r->variant, r->coding, r->bpp, r->psnr, r->samples / r->enc_coder_ms / 1e6,
               r->samples / r->dec_coder_ms / 1e6, r->enc_ms, 1e3 / r->enc_ms, r->dec_ms,
               1e3 / r->dec_ms);
    }
    printf("\nthesis 2-pass encoder scaled to this device: %.2f Gsamples/s (target 1.5x: %.2f)\n",
           scaled / 1e9, 1.5 * scaled / 1e9);
    free(ph.rgb);
    return status;
}
