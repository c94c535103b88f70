/* bench/dwt: GPU wavelet transforms of wavelet_cuda.h on UHD and 8K pictures.
 * For each configuration, every step of the schedule (a 2D level, or the
 * horizontal-only levels done in one pass) and the whole transform: median
 * time over the repetitions, bytes it must move (each sample read once and
 * written once), GB/s, and the ratio to the device-to-device copy rate measured
 * in the same run (cudaMemcpyAsync, bytes read + written).
 *
 *   dwt_bench [REPS [ONLY]]   (default 30 repetitions after 3 warm-ups; ONLY: only
 *                             the configurations whose name contains it; --help)
 *
 * Data: photographic-like 12-bit pictures through the forward transform, so the
 * inverse runs on realistic coefficients; never zeros. Exits 77 without a GPU. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"
#include "wav_test_data.h"
#include "wavelet_cuda.h"
#include "xsf_cli.h"

#define MAX_REPS 200
#define MAX_STEPS 24

static cudaStream_t stream;

/* Before the whole transform is timed, a memset of this many bytes keeps the
 * GPU busy while the host submits the call, so that the time is the GPU's
 * (as in a pipeline, where submission overlaps earlier work), like the
 * per-step times, which are recorded behind queued work. Without it the
 * whole-call figure included 2-4 us of host submission. */
#define PAD_BYTES (64u << 20)
static void *pad;

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static float median(float *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

static double copy_rate_gbs(int reps)
{
    const size_t bytes = (size_t)512 << 20;
    void *a, *b;
    BENCH_CHECK_CUDA(cudaMalloc(&a, bytes));
    BENCH_CHECK_CUDA(cudaMalloc(&b, bytes));
    BENCH_CHECK_CUDA(cudaMemset(a, 0x5a, bytes));
    cudaEvent_t e0, e1;
    BENCH_CHECK_CUDA(cudaEventCreate(&e0));
    BENCH_CHECK_CUDA(cudaEventCreate(&e1));
    float t[MAX_REPS];
    for (int i = -3; i < reps; i++) {
        BENCH_CHECK_CUDA(cudaEventRecord(e0, stream));
        BENCH_CHECK_CUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream));
        BENCH_CHECK_CUDA(cudaEventRecord(e1, stream));
        BENCH_CHECK_CUDA(cudaEventSynchronize(e1));
        if (i >= 0)
            BENCH_CHECK_CUDA(cudaEventElapsedTime(&t[i], e0, e1));
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    return 2.0 * (double)bytes / (median(t, reps) * 1e-3) / 1e9;
}

typedef struct config {
    const char *name;
    size_t w, h, planes;
    wav_filter filter;
    int lv, lh, inverse, inplace;
    int chunk; /* 0: automatic */
} config;

/* Fills `planes` planes with the forward transform of a photographic picture
 * (for the inverse) or with the picture itself (forward). */
static void make_input(const config *c, void *d_dst, void *d_tmp, wav_cuda_plan *p)
{
    const size_t plane = c->w * c->h, n = plane * c->planes;
    int32_t *x = malloc(n * 4);
    wav_rng rng = {0x1234567ull};
    for (size_t y = 0; y < c->h; y++)
        for (size_t i = 0; i < c->w; i++) {
            int32_t v = wav_photo_sample(&rng, i, y, c->w, c->h);
            if (c->filter == WAV_FILTER_97) {
                float f = (float)v;
                memcpy(&v, &f, 4);
            }
            x[y * c->w + i] = v;
        }
    for (size_t pl = 1; pl < c->planes; pl++) /* same picture, other noise not needed */
        memcpy(x + pl * plane, x, plane * 4);
    BENCH_CHECK_CUDA(
        cudaMemcpyAsync(c->inverse ? d_tmp : d_dst, x, n * 4, cudaMemcpyHostToDevice, stream));
    if (c->inverse && wav_cuda_forward_to(p, d_tmp, d_dst, stream) != XSF_OK) {
        fprintf(stderr, "forward: %s\n", wav_cuda_plan_error(p));
        exit(1);
    }
    BENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
    free(x);
}

static void bench(const config *c, int reps, double copy_gbs)
{
    wav_plan_desc d = {c->w,
                       c->h,
                       c->w,
                       c->planes,
                       c->w * c->h,
                       c->filter,
                       c->filter == WAV_FILTER_53 ? WAV_INT32 : WAV_FLOAT32,
                       c->lv,
                       c->lh};
    wav_cuda_plan *p = NULL;
    xsf_error err = {0};
    if (wav_cuda_plan_create(&p, &d, &err) != XSF_OK) {
        fprintf(stderr, "%s: %s\n", c->name, err.msg);
        exit(1);
    }
    if (c->chunk)
        wav_cuda_plan_tune(p, c->chunk);
    const size_t bytes = c->w * c->h * c->planes * 4;
    void *src, *dst;
    BENCH_CHECK_CUDA(cudaMalloc(&src, bytes));
    BENCH_CHECK_CUDA(cudaMalloc(&dst, bytes));
    make_input(c, src, dst, p);

    const int nsteps = wav_cuda_step_count(p, c->inverse);
    cudaEvent_t ev[MAX_STEPS + 1], w0, w1;
    for (int i = 0; i <= nsteps; i++)
        BENCH_CHECK_CUDA(cudaEventCreate(&ev[i]));
    BENCH_CHECK_CUDA(cudaEventCreate(&w0));
    BENCH_CHECK_CUDA(cudaEventCreate(&w1));
    static float step_t[MAX_STEPS][MAX_REPS], whole_t[MAX_REPS];
    size_t total_bytes = 0;
    for (int r = -3; r < reps; r++) {
        /* whole transform, one call, submitted while the pad memset runs */
        BENCH_CHECK_CUDA(cudaMemsetAsync(pad, 0, PAD_BYTES, stream));
        BENCH_CHECK_CUDA(cudaEventRecord(w0, stream));
        xsf_status st;
        if (c->inplace)
            st = c->inverse ? wav_cuda_inverse(p, src, stream) : wav_cuda_forward(p, src, stream);
        else
            st = c->inverse ? wav_cuda_inverse_to(p, src, dst, stream)
                            : wav_cuda_forward_to(p, src, dst, stream);
        BENCH_CHECK_CUDA(cudaEventRecord(w1, stream));
        if (st != XSF_OK) {
            fprintf(stderr, "%s: %s\n", c->name, wav_cuda_plan_error(p));
            exit(1);
        }
        if (c->inplace) /* undo, so every repetition sees the same data */
            st = c->inverse ? wav_cuda_forward(p, src, stream) : wav_cuda_inverse(p, src, stream);
        /* step by step, out of place */
        if (!c->inplace) {
            BENCH_CHECK_CUDA(cudaEventRecord(ev[0], stream));
            for (int s = 0; s < nsteps; s++) {
                if (wav_cuda_step_run(p, c->inverse, s, src, dst, stream) != XSF_OK) {
                    fprintf(stderr, "%s: %s\n", c->name, wav_cuda_plan_error(p));
                    exit(1);
                }
                BENCH_CHECK_CUDA(cudaEventRecord(ev[s + 1], stream));
            }
        }
        BENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
        if (r < 0)
            continue;
        BENCH_CHECK_CUDA(cudaEventElapsedTime(&whole_t[r], w0, w1));
        if (!c->inplace)
            for (int s = 0; s < nsteps; s++)
                BENCH_CHECK_CUDA(cudaEventElapsedTime(&step_t[s][r], ev[s], ev[s + 1]));
    }
    for (int s = 0; s < nsteps; s++) {
        wav_cuda_step_info info;
        wav_cuda_step_get(p, c->inverse, s, &info);
        total_bytes += info.bytes;
        if (c->inplace)
            continue;
        const double t_us = median(step_t[s], reps) * 1e3;
        const double gbs = (double)info.bytes / (t_us * 1e-6) / 1e9;
        char what[48];
        if (info.first_level == info.last_level && info.two_d)
            snprintf(what, sizeof what, "2D L%d %zux%zu c%d", info.first_level, info.width,
                     info.height, info.chunk_pairs);
        else if (info.first_level == info.last_level)
            snprintf(what, sizeof what, "H L%d %zux%zu", info.first_level, info.width, info.height);
        else
            snprintf(what, sizeof what, "H L%d..%d %zux%zu", info.first_level, info.last_level,
                     info.width, info.height);
        printf("%-36s %-24s %9.1f %8.1f %8.0f %6.2f\n", c->name, what, t_us, info.bytes / 1e6, gbs,
               gbs / copy_gbs);
    }
    const double t_us = median(whole_t, reps) * 1e3;
    const double gbs = (double)total_bytes / (t_us * 1e-6) / 1e9;
    printf("%-36s %-24s %9.1f %8.1f %8.0f %6.2f\n", c->name,
           c->inplace ? "whole, in place" : "whole", t_us, total_bytes / 1e6, gbs, gbs / copy_gbs);
    fflush(stdout);
    for (int i = 0; i <= nsteps; i++)
        cudaEventDestroy(ev[i]);
    cudaEventDestroy(w0);
    cudaEventDestroy(w1);
    cudaFree(src);
    cudaFree(dst);
    wav_cuda_plan_destroy(p);
}

int main(int argc, char **argv)
{
    int reps = 30;
    const char *only = NULL;
    const cli_option args[] = {
        CLI_ARG("REPS", CLI_INT, &reps,
                "runs of each step after 3 warm-ups, the median kept\n(default 30)", .lo = 1,
                .hi = MAX_REPS),
        CLI_ARG("ONLY", CLI_STRING, &only,
                "the transforms whose name contains this text (default all)"),
        CLI_TABLE_END,
    };
    const cli_command cmd = {.about = "Timings of the GPU wavelet transforms.\n", .options = args};
    const int parsed = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (parsed >= 0)
        return parsed;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no CUDA device: nothing to measure\n");
        return 77;
    }
    BENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    BENCH_CHECK_CUDA(cudaMalloc(&pad, PAD_BYTES));
    struct cudaDeviceProp prop;
    BENCH_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    const double copy_gbs = copy_rate_gbs(reps);
    printf("device: %s, %d SMs, L2 %d MiB; copy rate %.0f GB/s (512 MiB device to device, "
           "read + write); median of %d\n",
           prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, copy_gbs, reps);
    printf("%-36s %-24s %9s %8s %8s %6s\n", "transform", "step", "time_us", "MB", "GB/s", "/copy");
    const config configs[] = {
        {"XS 5/3 inv UHD 444 v1 h5", 3840, 2160, 3, WAV_FILTER_53, 1, 5, 1, 0, 0},
        {"XS 5/3 inv UHD 1 plane v1 h5", 3840, 2160, 1, WAV_FILTER_53, 1, 5, 1, 0, 0},
        {"XS 5/3 inv 8K 444 v1 h5", 7680, 4320, 3, WAV_FILTER_53, 1, 5, 1, 0, 0},
        {"XS 5/3 inv UHD 444 v2 h5", 3840, 2160, 3, WAV_FILTER_53, 2, 5, 1, 0, 0},
        {"XS 5/3 inv UHD 444 v0 h5", 3840, 2160, 3, WAV_FILTER_53, 0, 5, 1, 0, 0},
        {"XS 5/3 fwd UHD 444 v1 h5", 3840, 2160, 3, WAV_FILTER_53, 1, 5, 0, 0, 0},
        {"XS 5/3 fwd UHD 1 plane v2 h5", 3840, 2160, 1, WAV_FILTER_53, 2, 5, 0, 0, 0},
        {"XS 5/3 fwd 1920x2160 1 plane v2 h5", 1920, 2160, 1, WAV_FILTER_53, 2, 5, 0, 0, 0},
        {"XS 5/3 inv UHD 444 v1 h5 in place", 3840, 2160, 3, WAV_FILTER_53, 1, 5, 1, 1, 0},
        {"5/3 inv UHD 444 1 level", 3840, 2160, 3, WAV_FILTER_53, 1, 1, 1, 0, 0},
        {"5/3 inv UHD 444 1 level chunk 16", 3840, 2160, 3, WAV_FILTER_53, 1, 1, 1, 0, 16},
        {"5/3 inv UHD 444 1 level chunk 32", 3840, 2160, 3, WAV_FILTER_53, 1, 1, 1, 0, 32},
        {"5/3 inv UHD 444 1 level chunk 64", 3840, 2160, 3, WAV_FILTER_53, 1, 1, 1, 0, 64},
        {"5/3 inv UHD 1 plane 1 level", 3840, 2160, 1, WAV_FILTER_53, 1, 1, 1, 0, 0},
        {"5/3 inv UHD 1 plane 1 level ch 8", 3840, 2160, 1, WAV_FILTER_53, 1, 1, 1, 0, 8},
        {"5/3 inv UHD 1 plane 1 level ch 32", 3840, 2160, 1, WAV_FILTER_53, 1, 1, 1, 0, 32},
        {"5/3 inv 8K 444 1 level", 7680, 4320, 3, WAV_FILTER_53, 1, 1, 1, 0, 0},
        {"5/3 fwd UHD 444 1 level", 3840, 2160, 3, WAV_FILTER_53, 1, 1, 0, 0, 0},
        {"5/3 fwd 8K 444 1 level", 7680, 4320, 3, WAV_FILTER_53, 1, 1, 0, 0, 0},
        {"J2K 5/3 inv UHD 444 sym 5", 3840, 2160, 3, WAV_FILTER_53, 5, 5, 1, 0, 0},
        {"J2K 9/7 inv UHD 444 sym 5", 3840, 2160, 3, WAV_FILTER_97, 5, 5, 1, 0, 0},
        {"J2K 9/7 fwd UHD 444 sym 5", 3840, 2160, 3, WAV_FILTER_97, 5, 5, 0, 0, 0},
        {"J2K 9/7 inv 8K 444 sym 5", 7680, 4320, 3, WAV_FILTER_97, 5, 5, 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
        if (!only || strstr(configs[i].name, only))
            bench(&configs[i], reps, copy_gbs);
    cudaStreamDestroy(stream);
    return 0;
}
