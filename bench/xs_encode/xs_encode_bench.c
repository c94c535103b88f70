/* bench/xs_encode: JPEG XS encode throughput on UHD pictures.
 *
 * For 3840x2160 4:2:2 10-bit and 4:4:4 12-bit at 1.5, 3, 6 and 10 bits per
 * pixel: frames per second of the GPU encoder with the picture already in
 * device memory (one context; and K contexts on K streams), with the upload
 * of the picture and the download of the codestream (one context, then K
 * overlapped), the time of each stage, the floors measured in the same run
 * (device memory: the samples read once and the codestream written once at
 * the device-to-device copy rate; PCIe: the samples uploaded at the pinned
 * host-to-device rate), and the C encoder's rate. The source pictures are the UHD conformance
 * vectors decoded (.vec/ or ../shared/vectors/xs-uhd), or synthetic ones. With
 * --check, every GPU codestream is compared with the C encoder's, byte for
 * byte, and decoded for its PSNR.
 *
 * Usage: xs_encode_bench [--gpu] [--cpu] [--check] [--frames N] [--streams K] [--uhd DIR] [--only
 * 422|444] (--help) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare.h"
#include "image_io.h"
#include "xs.h"
#include "xsf_cli.h"
#include "xsf_clock.h"
#if XSF_HAVE_CUDA
#include "bench_cuda.h"
#endif

#define MAX_STREAMS 8

/* A source picture: its own copy of the planes. */
typedef struct source {
    xsf_picture img; /* a view of buf */
    uint16_t *buf;
    const char *origin;
} source;

static void make_source(source *s, const char *dir, const char *vector, const char *sampling,
                        int depth)
{
    memset(s, 0, sizeof *s);
    xs_encoder_config cfg;
    xs_encoder_config_init(&cfg);
    xs_encoder_config_format(&cfg, sampling, 3840, 2160, depth);
    size_t total = 0;
    for (int c = 0; c < cfg.nc; c++)
        total += (size_t)(3840 / cfg.sx[c]) * (2160 / cfg.sy[c]);
    s->buf = malloc(total * sizeof *s->buf);
    xsf_picture_init(&s->img);
    s->img.fmt.container = XSF_PLANAR_U16;
    s->img.fmt.nc = cfg.nc;
    size_t off = 0;
    for (int c = 0; c < cfg.nc; c++) {
        s->img.fmt.width[c] = 3840 / cfg.sx[c];
        s->img.fmt.height[c] = 2160 / cfg.sy[c];
        s->img.fmt.depth[c] = depth;
        s->img.stride[c] = (size_t)s->img.fmt.width[c] * 2;
        s->img.data[c] = (uint8_t *)(s->buf + off);
        off += (size_t)s->img.fmt.width[c] * s->img.fmt.height[c];
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, vector);
    size_t n = 0, used;
    uint8_t *cs = NULL;
    xs_decoder *dec = NULL;
    const xsf_picture *img = NULL;
    xsf_error err;
    if (imgio_read_file(path, &cs, &n, &err) == XSF_OK && xs_decoder_create(&dec, NULL) == XSF_OK &&
        xs_decode(dec, cs, n, &used, &img) == XSF_OK &&
        xsf_picture_copy(&s->img, img, &err) == XSF_OK) {
        s->origin = vector;
    } else {
        /* Synthetic: shading, edges, texture and noise. */
        uint32_t r = 12345;
        for (int c = 0; c < s->img.fmt.nc; c++)
            for (int y = 0; y < s->img.fmt.height[c]; y++)
                for (int x = 0; x < s->img.fmt.width[c]; x++) {
                    const double fx = (double)x / s->img.fmt.width[c],
                                 fy = (double)y / s->img.fmt.height[c];
                    double v = 0.4 + 0.3 * fx * fy + 0.1 * sin(40 * fx + c) * cos(25 * fy);
                    if ((x / 97 + y / 61) % 7 == 0)
                        v += 0.15;
                    r = r * 1664525u + 1013904223u;
                    v += ((r >> 16) % 1000) / 1000.0 * 0.02;
                    v = v < 0 ? 0 : (v > 1 ? 1 : v);
                    xsf_picture_row16(&s->img, c, y)[x] = (uint16_t)(v * ((1 << depth) - 1));
                }
        s->origin = "synthetic";
    }
    xs_decoder_destroy(dec);
    free(cs);
}

/* The PSNR of the codestream cs[0, len) decoded by the C decoder against
 * the source (0 where it does not decode). */
static double decoded_psnr(const source *src, const uint8_t *cs, size_t len)
{
    xs_decoder *dec;
    const xsf_picture *img;
    size_t used;
    double db = 0;
    if (xs_decoder_create(&dec, NULL) == XSF_OK && xs_decode(dec, cs, len, &used, &img) == XSF_OK)
        db = cmp_psnr_all(&src->img, img);
    xs_decoder_destroy(dec);
    return db;
}

typedef struct row {
    const char *format;
    double bpp;
    size_t bytes;
    double gpu_fps, gpu_multi_fps, gpu_io_fps, gpu_io_multi_fps, floor_fps, pcie_floor_fps, cpu_fps,
        psnr;
    int match; /* 1 same bytes as C, 0 differ, -1 not checked */
    char stages[400];
} row;

#if XSF_HAVE_CUDA
/* GB/s of a 512 MiB device-to-device copy (bytes read + written) or of a
 * 256 MiB pinned host-to-device copy; the best of 5. */
static double copy_rate(enum cudaMemcpyKind kind)
{
    const int d2d = kind == cudaMemcpyDeviceToDevice;
    return (d2d ? 2.0 : 1.0) * bench_copy_gbs(kind, (size_t)(d2d ? 512 : 256) << 20);
}

static void gpu_run(row *r, const xs_encoder_config *cfg, const source *src, int frames,
                    int streams, int check, double rate_gbs, double h2d_gbs)
{
    xs_gpu_encoder *enc[MAX_STREAMS] = {0};
    cudaStream_t st[MAX_STREAMS];
    xsf_error err = {0};
    for (int k = 0; k < streams; k++) {
        BENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&st[k], cudaStreamNonBlocking));
        if (xs_gpu_encoder_create(&enc[k], cfg, 0, (xs_cuda_stream)st[k], &err) != XSF_OK) {
            fprintf(stderr, "GPU encoder: %s\n", err.msg);
            exit(1);
        }
    }
    /* The picture in device memory. */
    uint8_t *dplane[XS_MAX_COMPONENTS] = {0};
    size_t pitch[XS_MAX_COMPONENTS] = {0};
    size_t in_bytes = 0;
    for (int c = 0; c < src->img.fmt.nc; c++) {
        const size_t row_bytes = (size_t)src->img.fmt.width[c] * 2;
        BENCH_CHECK_CUDA(cudaMalloc((void **)&dplane[c], row_bytes * src->img.fmt.height[c]));
        BENCH_CHECK_CUDA(cudaMemcpy(dplane[c], src->img.data[c], row_bytes * src->img.fmt.height[c],
                                    cudaMemcpyHostToDevice));
        pitch[c] = row_bytes;
        in_bytes += row_bytes * src->img.fmt.height[c];
    }
    xsf_picture dpic;
    xsf_picture_wrap(&dpic, &src->img.fmt, dplane, pitch, XSF_MEMORY_DEVICE, 0);
    const size_t cap = xs_gpu_encoder_max_bytes(enc[0]);
    uint8_t *host_cs;
    BENCH_CHECK_CUDA(cudaMallocHost((void **)&host_cs, cap));
    size_t len = 0;
    /* Warm-up, then one context back to back. */
    for (int i = 0; i < 5; i++)
        xs_gpu_encode(enc[0], &dpic);
    if (xs_gpu_encoder_sync(enc[0]) != XSF_OK) {
        fprintf(stderr, "GPU encoder: %s\n", xs_gpu_encoder_error(enc[0]));
        exit(1);
    }
    cudaEvent_t e0, e1;
    BENCH_CHECK_CUDA(cudaEventCreate(&e0));
    BENCH_CHECK_CUDA(cudaEventCreate(&e1));
    BENCH_CHECK_CUDA(cudaEventRecord(e0, st[0]));
    for (int i = 0; i < frames; i++)
        xs_gpu_encode(enc[0], &dpic);
    BENCH_CHECK_CUDA(cudaEventRecord(e1, st[0]));
    BENCH_CHECK_CUDA(cudaEventSynchronize(e1));
    float ms;
    BENCH_CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    r->gpu_fps = frames / (ms * 1e-3);
    /* K contexts on K streams. */
    if (streams > 1) {
        for (int k = 0; k < streams; k++)
            xs_gpu_encode(enc[k], &dpic);
        BENCH_CHECK_CUDA(
            cudaDeviceSynchronize()); /* the benchmark's own barrier, outside the timed region */
        const double t0 = xsf_clock_mono_s();
        for (int i = 0; i < frames; i++)
            xs_gpu_encode(enc[i % streams], &dpic);
        for (int k = 0; k < streams; k++)
            xs_gpu_encoder_sync(enc[k]);
        r->gpu_multi_fps = frames / (xsf_clock_mono_s() - t0);
    }
    /* With the transfers: pinned host picture up, codestream down. */
    xsf_picture pinned = src->img;
    uint16_t *hbuf;
    BENCH_CHECK_CUDA(cudaMallocHost((void **)&hbuf, in_bytes));
    memcpy(hbuf, src->buf, in_bytes); /* the source's planes, packed the same way */
    for (int c = 0; c < src->img.fmt.nc; c++)
        pinned.data[c] = (uint8_t *)hbuf + (src->img.data[c] - src->img.data[0]);
    pinned.memory = XSF_MEMORY_PINNED;
    const double t0 = xsf_clock_mono_s();
    for (int i = 0; i < frames; i++) {
        xs_gpu_encode(enc[0], &pinned);
        xs_gpu_encoder_download(enc[0], host_cs, cap, &len, 0);
    }
    xs_gpu_encoder_sync(enc[0]);
    r->gpu_io_fps = frames / (xsf_clock_mono_s() - t0);
    /* The same on K contexts, frames alternating: one frame's upload
     * overlaps another's kernels and a third's download. */
    uint8_t *host_cs_k[MAX_STREAMS] = {0};
    for (int k = 0; k < streams; k++)
        BENCH_CHECK_CUDA(cudaMallocHost((void **)&host_cs_k[k], cap));
    const double t1 = xsf_clock_mono_s();
    for (int i = 0; i < frames; i++) {
        size_t lk;
        xs_gpu_encode(enc[i % streams], &pinned);
        xs_gpu_encoder_download(enc[i % streams], host_cs_k[i % streams], cap, &lk, 0);
    }
    for (int k = 0; k < streams; k++)
        xs_gpu_encoder_sync(enc[k]);
    r->gpu_io_multi_fps = frames / (xsf_clock_mono_s() - t1);
    for (int k = 0; k < streams; k++)
        cudaFreeHost(host_cs_k[k]);
    /* Stage times of one frame. */
    xs_gpu_encoder_set_timing(enc[0], 1);
    xs_gpu_encode(enc[0], &dpic);
    xs_gpu_encoder_download(enc[0], host_cs, cap, &len, 1);
    const char *names[16];
    float sms[16];
    int ns = xs_gpu_encoder_stage_times(enc[0], names, sms, 16);
    r->stages[0] = 0;
    for (int i = 0; i < ns; i++) {
        char one[64];
        snprintf(one, sizeof one, "%s%s %.3f", i ? ", " : "", names[i], sms[i]);
        strncat(r->stages, one, sizeof r->stages - strlen(r->stages) - 1);
    }
    xs_gpu_encoder_set_timing(enc[0], 0);
    r->bytes = len;
    r->floor_fps = rate_gbs * 1e9 / (double)(in_bytes + len);
    r->pcie_floor_fps = h2d_gbs * 1e9 / (double)in_bytes; /* the upload of the samples */
    r->match = -1;
    if (check) {
        xs_encoder *c = NULL;
        uint8_t *ref = malloc(cap);
        size_t rlen = 0;
        if (xs_encoder_create(&c, cfg, &err) == XSF_OK &&
            xs_encode(c, &src->img, ref, cap, &rlen) == XSF_OK)
            r->match = rlen == len && !memcmp(ref, host_cs, len);
        xs_encoder_destroy(c);
        free(ref);
        r->psnr = decoded_psnr(src, host_cs, len);
    }
    for (int c = 0; c < src->img.fmt.nc; c++)
        cudaFree(dplane[c]);
    cudaFreeHost(hbuf);
    cudaFreeHost(host_cs);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    for (int k = 0; k < streams; k++) {
        xs_gpu_encoder_destroy(enc[k]);
        cudaStreamDestroy(st[k]);
    }
}
#endif

static void cpu_run(row *r, const xs_encoder_config *cfg, const source *src, int frames)
{
    xs_encoder *enc;
    xsf_error err = {0};
    if (xs_encoder_create(&enc, cfg, &err) != XSF_OK) {
        fprintf(stderr, "C encoder: %s\n", err.msg);
        exit(1);
    }
    const size_t cap = xs_encoder_max_bytes(enc);
    uint8_t *cs = malloc(cap);
    size_t len;
    xs_encode(enc, &src->img, cs, cap, &len);
    const double t0 = xsf_clock_mono_s();
    for (int i = 0; i < frames; i++)
        xs_encode(enc, &src->img, cs, cap, &len);
    r->cpu_fps = frames / (xsf_clock_mono_s() - t0);
    if (!r->bytes)
        r->bytes = len;
    if (r->psnr == 0)
        r->psnr = decoded_psnr(src, cs, len);
    xs_encoder_destroy(enc);
    free(cs);
}

int main(int argc, char **argv)
{
    int use_gpu = -1, use_cpu = 0, check = 0, frames = 200, streams = 2, only = -1;
    const char *dir = NULL;
    const cli_option options[] = {
        CLI_OPT("gpu", 0, CLI_SET, &use_gpu, NULL, "the GPU encoder (the default without --cpu)",
                .value = 1),
        CLI_OPT("cpu", 0, CLI_FLAG, &use_cpu, NULL, "the C encoder"),
        CLI_OPT("check", 0, CLI_FLAG, &check, NULL,
                "compare each GPU codestream with the C encoder's, and decode it for its PSNR"),
        CLI_OPT("frames", 0, CLI_INT, &frames, "N", "frames per GPU measurement (default 200)",
                .lo = 1, .hi = 1e9),
        CLI_OPT("streams", 0, CLI_INT, &streams, "K", "GPU contexts on as many streams (default 2)",
                .lo = 1, .hi = MAX_STREAMS),
        CLI_OPT("uhd", 0, CLI_STRING, &dir, "DIR",
                "the UHD vectors (default: .vec, ../shared/vectors/xs-uhd or\n"
                "../../shared/vectors/xs-uhd; synthetic pictures where none is)"),
        CLI_OPT("only", 0, CLI_CHOICE, &only, "422|444", "one format only", .choices = "422|444"),
        CLI_TABLE_END,
    };
    const cli_command cmd = {.about = "JPEG XS encode throughput on UHD pictures (4:2:2 10-bit, "
                                      "4:4:4 12-bit) at 1.5, 3, 6 and 10 bpp.\n",
                             .options = options};
    const int parsed = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (parsed >= 0)
        return parsed;
    if (use_gpu < 0)
        use_gpu = !use_cpu;
    if (use_gpu && xs_gpu_available() != XSF_OK) {
        fprintf(stderr, "no usable GPU (or no CUDA in this build)\n");
        if (!use_cpu)
            return 77;
        use_gpu = 0;
    }
    static const char *const dirs[] = {".vec", "../shared/vectors/xs-uhd",
                                       "../../shared/vectors/xs-uhd"};
    if (!dir) {
        dir = dirs[0];
        for (size_t i = 0; i < 3; i++) {
            char p[512];
            snprintf(p, sizeof p, "%s/uhd_422_10b_bpp3.jxs", dirs[i]);
            FILE *f = fopen(p, "rb");
            if (f) {
                fclose(f);
                dir = dirs[i];
                break;
            }
        }
    }
    static const struct {
        const char *name, *sampling, *vector;
        int depth;
    } formats[] = {{"UHD 4:2:2 10-bit", "422", "uhd_422_10b_bpp3.jxs", 10},
                   {"UHD 4:4:4 12-bit", "444", "uhd_444_12b_bpp10_v1h5.jxs", 12}};
    static const double rates[] = {1.5, 3, 6, 10};
    row rows[8];
    int nrows = 0;
    double rate_gbs = 0, h2d_gbs = 0;
    (void)rate_gbs, (void)h2d_gbs, (void)check; /* used by the GPU rows only */
#if XSF_HAVE_CUDA
    if (use_gpu) {
        struct cudaDeviceProp prop;
        BENCH_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
        rate_gbs = copy_rate(cudaMemcpyDeviceToDevice);
        h2d_gbs = copy_rate(cudaMemcpyHostToDevice);
        printf("device: %s, %d SMs; device-to-device copy %.0f GB/s (read + write), pinned "
               "host-to-device %.1f GB/s\n",
               prop.name, prop.multiProcessorCount, rate_gbs, h2d_gbs);
    }
#endif
    for (size_t f = 0; f < 2; f++) {
        if (only >= 0 && (size_t)only != f) /* --only's choices in the order of formats[] */
            continue;
        source src;
        make_source(&src, dir, formats[f].vector, formats[f].sampling, formats[f].depth);
        printf("%s: source %s\n", formats[f].name, src.origin);
        for (size_t b = 0; b < 4; b++) {
            row *r = &rows[nrows++];
            memset(r, 0, sizeof *r);
            r->format = formats[f].name;
            r->bpp = rates[b];
            r->match = -1;
            xs_encoder_config cfg;
            xs_encoder_config_init(&cfg);
            xs_encoder_config_format(&cfg, formats[f].sampling, 3840, 2160, formats[f].depth);
            cfg.bpp = rates[b];
#if XSF_HAVE_CUDA
            if (use_gpu)
                gpu_run(r, &cfg, &src, frames, streams, check, rate_gbs, h2d_gbs);
#endif
            if (use_cpu)
                cpu_run(r, &cfg, &src, 2);
            char cpu[32] = "not run";
            if (use_cpu)
                snprintf(cpu, sizeof cpu, "%.2f fps", r->cpu_fps);
            printf("  %5.1f bpp: %zu bytes, PSNR %.2f dB; GPU %.0f fps (%d streams %.0f, with PCIe "
                   "%.0f, %d streams %.0f; floors: memory %.0f, PCIe %.0f), "
                   "C %s%s%s\n",
                   r->bpp, r->bytes, r->psnr, r->gpu_fps, streams, r->gpu_multi_fps, r->gpu_io_fps,
                   streams, r->gpu_io_multi_fps, r->floor_fps, r->pcie_floor_fps, cpu,
                   r->match < 0 ? "" : (r->match ? "; GPU == C" : "; GPU != C (MISMATCH)"),
                   r->stages[0] ? "" : "");
            if (r->stages[0])
                printf("         stages (ms): %s\n", r->stages);
            fflush(stdout);
        }
        free(src.buf);
    }
    printf("\n| format | bpp | bytes | PSNR (dB) | GPU fps | GPU fps, %d streams | with PCIe, 1 "
           "stream | with PCIe, %d streams | memory floor fps | PCIe floor fps | GPU = C | C fps "
           "|\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
           streams, streams);
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        char cpu[32] = "-";
        if (use_cpu)
            snprintf(cpu, sizeof cpu, "%.2f", r->cpu_fps);
        printf("| %s | %.1f | %zu | %.2f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %s | %s |\n",
               r->format, r->bpp, r->bytes, r->psnr, r->gpu_fps, r->gpu_multi_fps, r->gpu_io_fps,
               r->gpu_io_multi_fps, r->floor_fps, r->pcie_floor_fps,
               r->match < 0 ? "-" : (r->match ? "yes" : "NO"), cpu);
    }
    return 0;
}
