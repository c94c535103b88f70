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
 * Output: one line "name value unit" per figure, for the script to read.
 * (The program is pipeline_floors; each subcommand has --help.) */
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

#include "xsf_cli.h"
#include "xsf_clock.h"

#ifdef XSF_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* One timed write of `frames` copies of frame[0, bytes) to the open file fd
 * (threads: the write-mmap floor's); 0 or 1 after printing why not. */
typedef int (*write_once)(int fd, const uint8_t *frame, size_t bytes, long frames, int threads);

/* A write floor: a frame of 0x5a bytes written `frames` times to path by
 * `once`, three times, the file removed after each; prints the best as
 * NAME_gbs and NAME_fps. */
static int write_floor_of(const char *name, write_once once, size_t bytes, long frames,
                          const char *path, int threads)
{
    uint8_t *buf = malloc(bytes);
    if (!buf)
        return 1;
    memset(buf, 0x5a, bytes);
    double best = 1e30;
    int rc = 0;
    for (int rep = 0; rep < 3 && !rc; rep++) {
        const double t0 = xsf_clock_mono_s();
        const int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) {
            perror(path);
            rc = 1;
            break;
        }
        rc = once(fd, buf, bytes, frames, threads);
        close(fd);
        const double t = xsf_clock_mono_s() - t0;
        unlink(path);
        if (t < best)
            best = t;
    }
    if (!rc) {
        printf("%s_gbs %.3f GB/s\n", name, (double)bytes * (double)frames / best / 1e9);
        printf("%s_fps %.1f frames/s\n", name, (double)frames / best);
    }
    free(buf);
    return rc;
}

/* `floors write`: a plain write loop. */
static int write_plain(int fd, const uint8_t *frame, size_t bytes, long frames, int threads)
{
    (void)threads;
    for (long f = 0; f < frames; f++) {
        size_t done = 0;
        while (done < bytes) {
            const ssize_t n = write(fd, frame + done, bytes - done);
            if (n <= 0) {
                perror("write");
                return 1;
            }
            done += (size_t)n;
        }
    }
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

/* `floors write-mmap`: the .yuv writer's way, `threads` threads. */
static int write_mmap(int fd, const uint8_t *frame, size_t bytes, long frames, int threads)
{
    mmap_job j = {.frame = frame,
                  .bytes = bytes,
                  .page = (size_t)sysconf(_SC_PAGESIZE),
                  .frames = frames,
                  .fd = fd,
                  .mu = PTHREAD_MUTEX_INITIALIZER};
    pthread_t th[64];
    for (int i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, mmap_thread, &j);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    return j.failed;
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

/* The subcommands' arguments. */
static struct {
    uint64_t bytes;
    long frames;
    const char *path;
    int threads;
} a;

static const cli_option write_args[] = {
    CLI_ARG_REQUIRED("BYTES", CLI_U64, &a.bytes, "bytes a frame (what `xsflow decode` writes)",
                     .lo = 1, .hi = 1e12),
    CLI_ARG_REQUIRED("FRAMES", CLI_LONG, &a.frames, "frames written", .lo = 1, .hi = 1e9),
    CLI_ARG_REQUIRED("PATH", CLI_STRING, &a.path, "the file (removed after)"),
    CLI_TABLE_END,
};
static const cli_option mmap_args[] = {
    CLI_ARG_REQUIRED("BYTES", CLI_U64, &a.bytes, "bytes a frame", .lo = 1, .hi = 1e12),
    CLI_ARG_REQUIRED("FRAMES", CLI_LONG, &a.frames, "frames written", .lo = 1, .hi = 1e9),
    CLI_ARG_REQUIRED("PATH", CLI_STRING, &a.path, "the file (removed after)"),
    CLI_ARG_REQUIRED("THREADS", CLI_INT, &a.threads, "threads, as the .yuv writer's", .lo = 1,
                     .hi = 64),
    CLI_TABLE_END,
};
static const cli_option d2h_args[] = {
    CLI_ARG_REQUIRED("BYTES", CLI_U64, &a.bytes, "bytes a copy (a decoded picture)", .lo = 1,
                     .hi = 1e12),
    CLI_TABLE_END,
};

enum { WRITE, WRITE_MMAP, D2H, KINDS };
static const cli_command cmds[KINDS] = {
    {.name = "write",
     .about = "A plain write loop: FRAMES x BYTES to PATH, then removed.\n",
     .options = write_args},
    {.name = "write-mmap",
     .about = "The same bytes as the .yuv writer puts them: each frame's space claimed and the\n"
              "frame copied into a shared mapping of its place, by THREADS threads.\n",
     .options = mmap_args},
    {.name = "d2h",
     .about = "Pinned device-to-host copies of BYTES, 1 and 3 streams at once (needs CUDA).\n",
     .options = d2h_args},
};

int main(int argc, char **argv)
{
    int kind = KINDS;
    for (int k = 0; k < KINDS && argc > 1; k++)
        if (!strcmp(argv[1], cmds[k].name))
            kind = k;
    if (kind == KINDS) {
        const int help = argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
        if (!help && argc > 1)
            cli_error(argv[1], "not write, write-mmap or d2h (see --help)");
        else if (!help)
            cli_error("subcommand", "write, write-mmap or d2h (see --help)");
        for (int k = 0; help && k < KINDS; k++)
            cli_usage(&cmds[k], stdout);
        return help ? 0 : 2;
    }
    const int parsed = cli_exit_status(cli_parse(&cmds[kind], argc - 1, argv + 1));
    if (parsed >= 0)
        return parsed;
    if (kind == D2H)
        return d2h_floor(a.bytes);
    return write_floor_of(kind == WRITE ? "write" : "write_mmap",
                          kind == WRITE ? write_plain : write_mmap, a.bytes, a.frames, a.path,
                          a.threads);
}
