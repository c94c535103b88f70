/* What a GPU decoder context's first frame costs, and why: the start-up
 * that a receiver of many streams pays while packets queue.
 *
 * N threads, each with its own decoder context and CUDA stream (as the
 * pipeline's GPU stage), start together and decode, timing each step:
 *   first       the first frame of A (the context configures: device
 *               buffers, wavelet plans; CUDA loads the kernels it launches)
 *   second      A again (the steady state)
 *   other       the first frame of B, another format (configures again,
 *               kernels loaded)
 *   back        A again (configures back)
 * Each decode is xs_gpu_decode then xs_gpu_sync. Before the threads start,
 * the CUDA context (cudaFree(0)) and the decoder contexts are made and
 * timed. Run it with CUDA_MODULE_LOADING=EAGER to see the kernels' share.
 *
 * usage: pipeline_first_frame A.jxs B.jxs [CONTEXTS] (--help) */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "image_io.h"
#include "xs.h"
#include "xsf_cli.h"
#include "xsf_clock.h"

enum { STEPS = 4 };
static const char *const step_names[STEPS] = {"first", "second", "other", "back"};

typedef struct job {
    xs_gpu_decoder *dec;
    const uint8_t *a, *b;
    size_t alen, blen;
    pthread_barrier_t *go;
    double ms[STEPS];
    int failed;
} job;

static double decode(job *j, const uint8_t *cs, size_t len)
{
    size_t used;
    const double t0 = 1e3 * xsf_clock_mono_s();
    if (xs_gpu_decode(j->dec, cs, len, &used) != XSF_OK || xs_gpu_sync(j->dec) != XSF_OK) {
        fprintf(stderr, "decode: %s\n", xs_gpu_decoder_error(j->dec));
        j->failed = 1;
    }
    return 1e3 * xsf_clock_mono_s() - t0;
}

static void *run(void *arg)
{
    job *j = arg;
    cudaSetDevice(0);
    pthread_barrier_wait(j->go);
    j->ms[0] = decode(j, j->a, j->alen);
    j->ms[1] = decode(j, j->a, j->alen);
    j->ms[2] = decode(j, j->b, j->blen);
    j->ms[3] = decode(j, j->a, j->alen);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *a_path = NULL, *b_path = NULL;
    int n = 3;
    const cli_option args[] = {
        CLI_ARG_REQUIRED("A.jxs", CLI_STRING, &a_path, "the first format"),
        CLI_ARG_REQUIRED("B.jxs", CLI_STRING, &b_path, "another format"),
        CLI_ARG("CONTEXTS", CLI_INT, &n, "decoder contexts, a thread each (default 3)", .lo = 1,
                .hi = 64),
        CLI_TABLE_END,
    };
    const cli_command cmd = {.about = "What a GPU decoder context's first frame costs.\n",
                             .options = args};
    const int parsed = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (parsed >= 0)
        return parsed;
    size_t alen, blen;
    uint8_t *a = NULL, *b = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    if (imgio_read_file(a_path, &a, &alen, &err) != XSF_OK ||
        imgio_read_file(b_path, &b, &blen, &err) != XSF_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    /* Pinned, as the pipeline's frames once provisioned. */
    uint8_t *pa, *pb;
    double t0 = 1e3 * xsf_clock_mono_s();
    if (cudaSetDevice(0) != cudaSuccess || cudaFree(0) != cudaSuccess) {
        fprintf(stderr, "no usable GPU\n");
        return 1;
    }
    const double ctx_ms = 1e3 * xsf_clock_mono_s() - t0;
    if (cudaHostAlloc((void **)&pa, alen, 0) != cudaSuccess ||
        cudaHostAlloc((void **)&pb, blen, 0) != cudaSuccess)
        return 1;
    for (size_t i = 0; i < alen; i++)
        pa[i] = a[i];
    for (size_t i = 0; i < blen; i++)
        pb[i] = b[i];
    job *jobs = calloc((size_t)n, sizeof *jobs);
    cudaStream_t *streams = calloc((size_t)n, sizeof *streams);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, (unsigned)n);
    double create_max = 0;
    for (int i = 0; i < n; i++) {
        cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
        t0 = 1e3 * xsf_clock_mono_s();
        if (xs_gpu_decoder_create(&jobs[i].dec, 0, (xs_cuda_stream)streams[i], NULL) != XSF_OK) {
            fprintf(stderr, "cannot make a decoder context\n");
            return 1;
        }
        const double dt = 1e3 * xsf_clock_mono_s() - t0;
        create_max = dt > create_max ? dt : create_max;
        jobs[i].a = pa;
        jobs[i].b = pb;
        jobs[i].alen = alen;
        jobs[i].blen = blen;
        jobs[i].go = &go;
    }
    for (int i = 0; i < n; i++)
        pthread_create(&th[i], NULL, run, &jobs[i]);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        failed |= jobs[i].failed;
    }
    const char *loading = getenv("CUDA_MODULE_LOADING");
    printf("CUDA context %.1f ms; %d decoder contexts made, the slowest in %.1f ms (module "
           "loading: %s)\n",
           ctx_ms, n, create_max, loading ? loading : "default");
    printf("| decode | ");
    for (int i = 0; i < n; i++)
        printf("context %d ms | ", i);
    printf("\n| --- |");
    for (int i = 0; i < n; i++)
        printf(" ---: |");
    printf("\n");
    for (int s = 0; s < STEPS; s++) {
        printf("| %s | ", step_names[s]);
        for (int i = 0; i < n; i++)
            printf("%.1f | ", jobs[i].ms[s]);
        printf("\n");
    }
    for (int i = 0; i < n; i++) {
        xs_gpu_decoder_destroy(jobs[i].dec);
        cudaStreamDestroy(streams[i]);
    }
    cudaFreeHost(pa);
    cudaFreeHost(pb);
    free(a);
    free(b);
    return failed;
}
