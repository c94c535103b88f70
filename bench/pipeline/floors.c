/* The floors that bench/pipeline/run.sh measures the commands against, in
 * the same run on the same machine:
 *   floors write BYTES FRAMES PATH   a plain write loop: FRAMES x BYTES to PATH
 *                                    (the bytes `xsflow decode` writes), then
 *                                    removed; prints GB/s and frames/s
 *   floors write-mmap BYTES FRAMES PATH THREADS
 *                                    the same bytes as the .yuv writer puts
 *                                    them: THREADS threads, each frame's space
 *                                    claimed (fallocate) and the frame copied
 *                                    into a shared mapping of its place; prints
 *                                    GB/s and frames/s
 *   floors d2h BYTES                 pinned device-to-host copies of BYTES (a
 *                                    decoded picture), 1 and 3 streams at once;
 *                                    prints GB/s and pictures/s (needs CUDA)
 * Output: one line "name value unit" per figure, for the script to read. */
#define _GNU_SOURCE /* fallocate */

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "xsf_clock.h"

#ifdef XSF_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static int write_floor(size_t bytes, long frames, const char *path)
{
    uint8_t *buf = malloc(bytes);
    if (!buf)
        return 1;
    memset(buf, 0x5a, bytes);
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        const double t0 = xsf_clock_mono_s();
        const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) {
            perror(path);
            return 1;
        }
        for (long f = 0; f < frames; f++) {
            size_t done = 0;
            while (done < bytes) {
                const ssize_t n = write(fd, buf + done, bytes - done);
                if (n <= 0) {
                    perror("write");
                    return 1;
                }
                done += (size_t)n;
            }
        }
        close(fd);
        const double t = xsf_clock_mono_s() - t0;
        unlink(path);
        if (t < best)
            best = t;
    }
    printf("write_gbs %.3f GB/s\n", (double)bytes * (double)frames / best / 1e9);
    printf("write_fps %.1f frames/s\n", (double)frames / best);
    free(buf);
    return 0;
}

typedef struct mmap_job {
    const uint8_t *frame;
    size_t bytes, page;
    long frames, next; /* frames are taken in order, as the writer's threads take them */
    int fd, failed;
    uint64_t claimed;
    pthread_mutex_t mu;
} mmap_job;

static void *mmap_thread(void *arg)
{
    mmap_job *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        const long f = j->failed ? j->frames : j->next++;
        const uint64_t offset = (uint64_t)f * j->bytes, end = offset + j->bytes;
        if (f < j->frames && end > j->claimed) {
            if (fallocate(j->fd, 0, (off_t)j->claimed, (off_t)(end - j->claimed))) {
                perror("fallocate");
                j->failed = 1;
            }
            j->claimed = end;
        }
        const int stop = f >= j->frames || j->failed;
        pthread_mutex_unlock(&j->mu);
        if (stop)
            return NULL;
        const uint64_t start = offset - offset % j->page;
        const size_t span = (size_t)(end - start);
        uint8_t *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, j->fd, (off_t)start);
        if (m == MAP_FAILED) {
            perror("mmap");
            pthread_mutex_lock(&j->mu);
            j->failed = 1;
            pthread_mutex_unlock(&j->mu);
            return NULL;
        }
        /* A page at a time, as the writer copies (pipeline/sinks.c,
         * window_sink): each copy within the page its fault has just
         * cleared, the fastest way measured. */
        for (size_t done = 0; done < j->bytes; done += j->page) {
            const size_t n = j->bytes - done < j->page ? j->bytes - done : j->page;
            memcpy(m + (offset - start) + done, j->frame + done, n);
        }
        munmap(m, span);
    }
}

static int write_mmap_floor(size_t bytes, long frames, const char *path, int threads)
{
    if (threads < 1 || threads > 64 || !bytes)
        return 2;
    uint8_t *buf = malloc(bytes);
    if (!buf)
        return 1;
    memset(buf, 0x5a, bytes);
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        const double t0 = xsf_clock_mono_s();
        mmap_job j = {.frame = buf,
                      .bytes = bytes,
                      .page = (size_t)sysconf(_SC_PAGESIZE),
                      .frames = frames,
                      .mu = PTHREAD_MUTEX_INITIALIZER};
        j.fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (j.fd < 0) {
            perror(path);
            return 1;
        }
        pthread_t th[64];
        for (int i = 0; i < threads; i++)
            pthread_create(&th[i], NULL, mmap_thread, &j);
        for (int i = 0; i < threads; i++)
            pthread_join(th[i], NULL);
        close(j.fd);
        const double t = xsf_clock_mono_s() - t0;
        unlink(path);
        if (j.failed)
            return 1;
        if (t < best)
            best = t;
    }
    printf("write_mmap_gbs %.3f GB/s\n", (double)bytes * (double)frames / best / 1e9);
    printf("write_mmap_fps %.1f frames/s\n", (double)frames / best);
    free(buf);
    return 0;
}

static int d2h_floor(size_t bytes)
{
#ifdef XSF_HAVE_CUDA
    const int nstreams = 3, reps = 60;
    void *dev, *host[3];
    cudaStream_t s[3];
    if (cudaMalloc(&dev, bytes) != cudaSuccess)
        return 1;
    cudaMemset(dev, 1, bytes);
    for (int i = 0; i < nstreams; i++) {
        if (cudaMallocHost(&host[i], bytes) != cudaSuccess ||
            cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking) != cudaSuccess)
            return 1;
    }
    for (int k = 1; k <= nstreams; k += 2) {
        cudaDeviceSynchronize();
        const double t0 = xsf_clock_mono_s();
        for (int r = 0; r < reps; r++)
            cudaMemcpyAsync(host[r % k], dev, bytes, cudaMemcpyDeviceToHost, s[r % k]);
        cudaDeviceSynchronize();
        const double t = xsf_clock_mono_s() - t0;
        printf("d2h_gbs_%dstream %.2f GB/s\n", k, (double)bytes * reps / t / 1e9);
        printf("d2h_fps_%dstream %.1f pictures/s\n", k, reps / t);
    }
    return 0;
#else
    (void)bytes;
    fprintf(stderr, "floors: built without CUDA\n");
    return 1;
#endif
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "write"))
        return write_floor(strtoull(argv[2], NULL, 10), strtol(argv[3], NULL, 10), argv[4]);
    if (argc == 6 && !strcmp(argv[1], "write-mmap"))
        return write_mmap_floor(strtoull(argv[2], NULL, 10), strtol(argv[3], NULL, 10), argv[4],
                                atoi(argv[5]));
    if (argc == 3 && !strcmp(argv[1], "d2h"))
        return d2h_floor(strtoull(argv[2], NULL, 10));
    fprintf(stderr, "usage: floors write BYTES FRAMES PATH | floors write-mmap BYTES FRAMES "
                    "PATH THREADS | floors d2h BYTES\n");
    return 2;
}
