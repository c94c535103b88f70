/* bench/xs_decode: the GPU JPEG XS decoder on whole frames.
 *
 * For each codestream given: frames per second for decode alone (codestream
 * already in device memory), upload + decode on one stream, upload + decode
 * overlapped on several streams (three-stage pipeline: host -> upload ->
 * decode), and upload + decode + download of the 16-bit planes (four-stage);
 * the time of each kernel; the single-frame latency from codestream in host
 * memory to picture in device memory; and the ratios to the floors measured
 * in the same run: PCIe (host-to-device and device-to-host copy rates of
 * pinned memory) and device memory (device-to-device copy rate), and the
 * same downloads as the four-stage pipeline's, alone. With --pix-fmt the
 * pictures are written in that pixel format (v210, nv12, ...: the output
 * kernel converts) and the downloads and their floor are of its bytes.
 *
 * Usage: xs_decode_bench [--frames N] [--streams K] [--pix-fmt F] FILE.jxs... (--help) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cuda.h"
#include "image_io.h"
#include "xs.h"
#include "xsf_cli.h"
#include "xsf_clock.h"

#define CHECK_XS(call, dec)                                                                        \
    do {                                                                                           \
        xsf_status s_ = (call);                                                                    \
        if (s_ != XSF_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                    xs_gpu_decoder_error(dec));                                                    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define MAX_STREAMS 8

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Copy rate in GB/s (bytes moved once per copy) of a 256 MiB copy. */
static double copy_rate(enum cudaMemcpyKind kind)
{
    return bench_copy_gbs(kind, (size_t)256 << 20);
}

/* The file in pinned memory (what the decoder uploads from). */
static uint8_t *read_pinned(const char *path, size_t *len)
{
    uint8_t *data = NULL, *buf = NULL;
    xsf_error err;
    if (imgio_read_file(path, &data, len, &err) != XSF_OK || !*len ||
        cudaMallocHost((void **)&buf, *len) != cudaSuccess) {
        free(data);
        return NULL;
    }
    memcpy(buf, data, *len);
    free(data);
    return buf;
}

int main(int argc, char **argv)
{
    int frames = 2000, nstreams = 3, nfiles = 0;
    const char *pix_fmt = "planar16";
    static const char *files[256];
    const cli_option options[] = {
        CLI_OPT("frames", 0, CLI_INT, &frames, "N", "frames per measurement (default 2000)",
                .lo = 1, .hi = 1e9),
        CLI_OPT("streams", 0, CLI_INT, &nstreams, "K",
                "streams of the pipelines, one decoder context each (default 3)", .lo = 1,
                .hi = MAX_STREAMS),
        CLI_OPT("pix-fmt", 0, CLI_STRING, &pix_fmt, "F",
                "pixel format of the pictures: " XSF_CONTAINER_WORDS " (default planar16)"),
        CLI_ARG("FILE.jxs", CLI_LIST, files, "codestreams, measured in turn", .max_items = 256,
                .count = &nfiles),
        CLI_TABLE_END,
    };
    const cli_command cmd = {.about = "The GPU JPEG XS decoder on whole frames, against the floors "
                                      "measured in the same run.\n",
                             .options = options};
    const int parsed = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (parsed >= 0)
        return parsed;
    xsf_container container;
    xsf_error perr;
    xsf_error_clear(&perr);
    if (xsf_container_parse(pix_fmt, &container, &perr) != XSF_OK) {
        fprintf(stderr, "xs_decode_bench: %s\n", perr.msg);
        return 2;
    }
    if (xs_gpu_available() != XSF_OK) {
        printf("no GPU: nothing to measure\n");
        return 0;
    }
    struct cudaDeviceProp prop;
    BENCH_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    const double h2d = copy_rate(cudaMemcpyHostToDevice), d2h = copy_rate(cudaMemcpyDeviceToHost);
    const double d2d = 2 * copy_rate(cudaMemcpyDeviceToDevice); /* read + write */
    printf("device: %s, %d SMs; measured: H2D %.1f GB/s, D2H %.1f GB/s, device memory (D2D copy, "
           "read+write) %.0f GB/s\n",
           prop.name, prop.multiProcessorCount, h2d, d2h, d2d);
    printf("frames per measurement: %d; pipelines use %d streams (one decoder context each); "
           "pixel format %s\n\n",
           frames, nstreams, xsf_container_name(container));

    cudaStream_t streams[MAX_STREAMS];
    xs_gpu_decoder *dec[MAX_STREAMS];
    for (int s = 0; s < nstreams; s++) {
        BENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        if (xs_gpu_decoder_create(&dec[s], 0, streams[s], NULL) != XSF_OK) {
            fprintf(stderr, "cannot create GPU decoder %d\n", s);
            return 1;
        }
        CHECK_XS(xs_gpu_set_output_format(dec[s], container, NULL, NULL, NULL), dec[s]);
    }
    printf("%-28s %9s %9s %9s %9s %9s %9s %9s %9s %8s\n", "codestream", "MB", "decode", "up+dec",
           "3-stage", "4-stage", "PCIe-up", "D2H-flr", "mem-flr", "lat(us)");
    printf("%-28s %9s %9s %9s %9s %9s %9s %9s %9s %8s\n", "", "", "fps", "fps", "fps", "fps", "fps",
           "fps", "fps", "");
    for (int a = 0; a < nfiles; a++) {
        const char *path = files[a];
        size_t len;
        uint8_t *cs = read_pinned(path, &len);
        if (!cs) {
            fprintf(stderr, "%s: cannot read\n", path);
            continue;
        }
        const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        size_t used;
        /* Warm up and learn the format. */
        for (int s = 0; s < nstreams; s++) {
            CHECK_XS(xs_gpu_decode(dec[s], cs, len, &used), dec[s]);
            CHECK_XS(xs_gpu_sync(dec[s]), dec[s]);
        }
        const xsf_picture *img = xs_gpu_decoder_picture(dec[0]);
        /* The decoded samples (what the kernels before the output read) and
         * the bytes of the pictures' planes in their pixel format. */
        size_t samples = 0;
        const xs_header *hdr = NULL;
        xs_header parsed_hdr;
        if (xs_parse_header(cs, len, &parsed_hdr, NULL) == XSF_OK)
            hdr = &parsed_hdr;
        for (int c = 0; hdr && c < hdr->nc; c++)
            samples += (size_t)(hdr->wf / hdr->sx[c]) * (hdr->hf / hdr->sy[c]);
        const size_t out_bytes = xsf_format_bytes(&img->fmt);
        const int nplanes = xsf_format_planes(&img->fmt);
        uint16_t *host_planes[MAX_STREAMS][XS_MAX_COMPONENTS] = {{0}};
        for (int s = 0; s < nstreams; s++)
            for (int c = 0; c < nplanes; c++)
                BENCH_CHECK_CUDA(cudaMallocHost((void **)&host_planes[s][c],
                                                xsf_format_plane_bytes(&img->fmt, c)));
        uint8_t *dev_cs;
        BENCH_CHECK_CUDA(cudaMalloc((void **)&dev_cs, len));
        BENCH_CHECK_CUDA(cudaMemcpy(dev_cs, cs, len, cudaMemcpyHostToDevice));

        /* Decode alone: the codestream is already on the device. */
        double t0 = xsf_clock_mono_s();
        for (int i = 0; i < frames; i++)
            CHECK_XS(xs_gpu_decode_device(dec[0], dev_cs, cs, len, &used), dec[0]);
        CHECK_XS(xs_gpu_sync(dec[0]), dec[0]);
        const double fps_decode = frames / (xsf_clock_mono_s() - t0);

        /* Upload + decode, one stream. */
        t0 = xsf_clock_mono_s();
        for (int i = 0; i < frames; i++)
            CHECK_XS(xs_gpu_decode(dec[0], cs, len, &used), dec[0]);
        CHECK_XS(xs_gpu_sync(dec[0]), dec[0]);
        const double fps_serial = frames / (xsf_clock_mono_s() - t0);

        /* Three-stage pipeline: frames round-robin over the streams, so one
         * frame's upload overlaps another's kernels. */
        t0 = xsf_clock_mono_s();
        for (int i = 0; i < frames; i++)
            CHECK_XS(xs_gpu_decode(dec[i % nstreams], cs, len, &used), dec[i % nstreams]);
        for (int s = 0; s < nstreams; s++)
            CHECK_XS(xs_gpu_sync(dec[s]), dec[s]);
        const double fps_pipe3 = frames / (xsf_clock_mono_s() - t0);

        /* Four-stage pipeline: upload, decode, download of the pictures' planes. */
        t0 = xsf_clock_mono_s();
        for (int i = 0; i < frames; i++) {
            const int s = i % nstreams;
            CHECK_XS(xs_gpu_decode(dec[s], cs, len, &used), dec[s]);
            CHECK_XS(xs_gpu_download(dec[s], host_planes[s], 0), dec[s]);
        }
        for (int s = 0; s < nstreams; s++)
            CHECK_XS(xs_gpu_sync(dec[s]), dec[s]);
        const double fps_pipe4 = frames / (xsf_clock_mono_s() - t0);

        /* The same downloads alone (same pitched planes, same pinned buffers,
         * same streams): the floor the four-stage pipeline can reach, where
         * the D2H column is that of one linear 256 MiB copy. */
        t0 = xsf_clock_mono_s();
        for (int i = 0; i < frames; i++)
            CHECK_XS(xs_gpu_download(dec[i % nstreams], host_planes[i % nstreams], 0),
                     dec[i % nstreams]);
        for (int s = 0; s < nstreams; s++)
            CHECK_XS(xs_gpu_sync(dec[s]), dec[s]);
        const double fps_download = frames / (xsf_clock_mono_s() - t0);

        /* Latency of one frame with nothing else in flight: host memory to
         * picture in device memory (header walk, upload, kernels). */
        enum { LAT = 101 };
        double lat[LAT];
        for (int i = 0; i < LAT; i++) {
            double l0 = xsf_clock_mono_s();
            CHECK_XS(xs_gpu_decode(dec[0], cs, len, &used), dec[0]);
            CHECK_XS(xs_gpu_sync(dec[0]), dec[0]);
            lat[i] = xsf_clock_mono_s() - l0;
        }
        qsort(lat, LAT, sizeof lat[0], cmp_double);

        /* Floors: the upload of the codestream over PCIe; the download of the
         * pictures' planes; device memory: codestream read, coefficients
         * written by the entropy decoder and read + written once per DWT
         * level pass at least once, the planes written. */
        const double floor_up = h2d * 1e9 / (double)len;
        const double floor_d2h = d2h * 1e9 / (double)out_bytes;
        const double mem_bytes = (double)len + samples * 4.0 * 3 + (double)out_bytes;
        const double floor_mem = d2d * 1e9 / mem_bytes;
        printf("%-28s %9.2f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %8.0f\n", name, len / 1e6,
               fps_decode, fps_serial, fps_pipe3, fps_pipe4, floor_up, floor_d2h, floor_mem,
               lat[LAT / 2] * 1e6);
        printf("%-28s ratios: 3-stage/PCIe-up %.2f, 4-stage/D2H-floor %.2f, decode/mem-floor %.2f; "
               "latency min %.0f us, "
               "p90 %.0f us\n",
               "", fps_pipe3 / floor_up, fps_pipe4 / (floor_d2h < floor_up ? floor_d2h : floor_up),
               fps_decode / floor_mem, lat[0] * 1e6, lat[LAT * 9 / 10] * 1e6);
        printf("%-28s downloads alone %.0f fps (%.1f GB/s); 4-stage/downloads alone %.2f\n", "",
               fps_download, fps_download * out_bytes / 1e9, fps_pipe4 / fps_download);

        /* Kernel breakdown of one frame. */
        xs_gpu_set_timing(dec[0], 1);
        const char *names[16];
        float ms[16], sum[16] = {0};
        int nk = 0;
        const int reps = 20;
        for (int r = 0; r < reps; r++) {
            CHECK_XS(xs_gpu_decode(dec[0], cs, len, &used), dec[0]);
            CHECK_XS(xs_gpu_sync(dec[0]), dec[0]);
            nk = xs_gpu_kernel_times(dec[0], names, ms, 16);
            for (int k = 0; k < nk; k++)
                sum[k] += ms[k];
        }
        xs_gpu_set_timing(dec[0], 0);
        printf("%-28s kernels (us, mean of %d):", "", reps);
        for (int k = 0; k < nk; k++)
            printf(" %s %.1f", names[k], sum[k] / reps * 1e3);
        printf("\n");

        for (int s = 0; s < nstreams; s++)
            for (int c = 0; c < nplanes; c++)
                cudaFreeHost(host_planes[s][c]);
        cudaFree(dev_cs);
        cudaFreeHost(cs);
    }
    for (int s = 0; s < nstreams; s++) {
        xs_gpu_decoder_destroy(dec[s]);
        cudaStreamDestroy(streams[s]);
    }
    return 0;
}
