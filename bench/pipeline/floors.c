/* The floors that bench/pipeline/run.sh measures the commands against, in
 * the same run on the same machine:
 *   floors write BYTES FRAMES PATH   a plain write loop: FRAMES x BYTES to PATH
 *                                    (the bytes `xsflow decode` writes), then
 *                                    removed; prints GB/s and frames/s
 *   floors d2h BYTES                 pinned device-to-host copies of BYTES (a
 *                                    decoded picture), 1 and 3 streams at once;
 *                                    prints GB/s and pictures/s (needs CUDA)
 * Output: one line "name value unit" per figure, for the script to read. */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef XSF_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_floor(size_t bytes, long frames, const char *path)
{
    uint8_t *buf = malloc(bytes);
    if (!buf)
        return 1;
    memset(buf, 0x5a, bytes);
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        const double t0 = now_s();
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
        const double t = now_s() - t0;
        unlink(path);
        if (t < best)
            best = t;
    }
    printf("write_gbs %.3f GB/s\n", (double)bytes * (double)frames / best / 1e9);
    printf("write_fps %.1f frames/s\n", (double)frames / best);
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
        const double t0 = now_s();
        for (int r = 0; r < reps; r++)
            cudaMemcpyAsync(host[r % k], dev, bytes, cudaMemcpyDeviceToHost, s[r % k]);
        cudaDeviceSynchronize();
        const double t = now_s() - t0;
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
    if (argc == 3 && !strcmp(argv[1], "d2h"))
        return d2h_floor(strtoull(argv[2], NULL, 10));
    fprintf(stderr, "usage: floors write BYTES FRAMES PATH | floors d2h BYTES\n");
    return 2;
}
