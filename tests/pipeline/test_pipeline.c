/* Tests of the pipeline (pipeline/): .jxs files through the decode stage to
 * the writer, equal to the C reference decoder; frames leave in order;
 * the drop-oldest policy drops and counts; decoder refusals are counted and
 * the stream goes on; several loopback RTP streams at once, byte-exact;
 * exact frame accounting under injected loss; refused frames reported to
 * the sink in order; pl_stream_flush drops what is in flight; streams
 * removed from a running pipeline while others go on; frames submitted
 * before they are whole (partial submission, aborts) decode exactly; pictures
 * in host memory, device memory or both, progressive, partial and
 * interlaced, equal the C decoder's in the layout the sinks expect; with
 * the GPU engine only the provisioner pins, and what frames used is pinned.
 *
 * usage: test_pipeline VECTOR_DIR cpu|gpu
 * With "gpu" the same checks run on the GPU engine (skipped without one). */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jxs_file.h"
#include "md5.h"
#include "pipeline.h"
#include "pl_gpu.h"
#include "test.h"
#include "xs.h"
#include "xsf_clock.h"
#ifdef XSF_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static const char *vector_dir;
static pl_engine engine;

static uint8_t *read_all(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.jxs", vector_dir, name);
    uint8_t *data;
    xsf_error err;
    xsf_error_clear(&err);
    if (imgio_read_file(path, &data, len, &err) != XSF_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return NULL;
    }
    return data;
}

/* The C reference decoder's MD5 of every codestream of a clip, in .yuv layout; and, where
 * each is not NULL, of each codestream alone (at most `cap`). */
static int reference_md5_each(const uint8_t *data, size_t len, char hex[33], unsigned *frames,
                              char (*each)[33], unsigned cap)
{
    xs_decoder *dec;
    if (xs_decoder_create(&dec, NULL) != XSF_OK)
        return -1;
    app_md5 m;
    app_md5_init(&m);
    size_t off = 0;
    *frames = 0;
    while (off < len) {
        size_t consumed;
        const xsf_picture *pic;
        if (xs_decode(dec, data + off, len - off, &consumed, &pic) != XSF_OK) {
            xs_decoder_destroy(dec);
            return -1;
        }
        imgio_yuv_serialize(pic, app_md5_sink, &m);
        if (each && *frames < cap) {
            app_md5 one;
            app_md5_init(&one);
            imgio_yuv_serialize(pic, app_md5_sink, &one);
            app_md5_final_hex(&one, each[*frames]);
        }
        off += consumed;
        (*frames)++;
    }
    app_md5_final_hex(&m, hex);
    xs_decoder_destroy(dec);
    return 0;
}

static int reference_md5(const uint8_t *data, size_t len, char hex[33], unsigned *frames)
{
    return reference_md5_each(data, len, hex, frames, NULL, 0);
}

/* A sink that keeps each delivered picture's MD5 (.yuv layout) with its RTP timestamp,
 * for comparison with the C decoder's picture of the frame the timestamp names. */
#define PICTURES_MAX 256
typedef struct picture_md5s {
    size_t n;
    uint32_t rtp_timestamp[PICTURES_MAX];
    char md5[PICTURES_MAX][33];
    int without_picture;
} picture_md5s;

static void picture_md5_deliver(void *ctx, pl_frame *f)
{
    picture_md5s *pm = ctx; /* one stream's frames come one at a time */
    const xsf_picture *pic = &f->picture[0];
    if (pic->memory == XSF_MEMORY_DEVICE || !pic->fmt.nc || !pic->data[0] ||
        pm->n == PICTURES_MAX) {
        pm->without_picture++;
    } else {
        app_md5 m;
        app_md5_init(&m);
        imgio_yuv_serialize(pic, app_md5_sink, &m);
        app_md5_final_hex(&m, pm->md5[pm->n]);
        pm->rtp_timestamp[pm->n++] = f->rtp_timestamp;
    }
    pl_frame_release(f);
}

/* Every picture of `pm` equals the C decoder's picture of its frame: frame n of a clip of
 * `frames` codestreams sent in loops at fps_num/1 from first_timestamp (rtp_sender) is
 * codestream n mod frames, its timestamp first + n x 90 kHz / fps. Frames come in order;
 * with `all`, every frame sent (n = 0, 1, ...). */
static void check_pictures(const char *name, const picture_md5s *pm, uint32_t first_timestamp,
                           unsigned fps_num, const char (*ref)[33], unsigned frames, int all)
{
    const uint32_t step = RTP_CLOCK_HZ / fps_num;
    size_t differ = 0, misplaced = 0;
    uint64_t prev = 0;
    for (size_t i = 0; i < pm->n; i++) {
        const uint32_t ticks = pm->rtp_timestamp[i] - first_timestamp;
        const uint64_t n = ticks / step;
        misplaced += ticks % step != 0 || (i && n <= prev) || (all && n != i);
        prev = n;
        if (strcmp(pm->md5[i], ref[n % frames])) {
            if (!differ++)
                fprintf(stderr,
                        "%s: picture %zu (frame %llu, codestream %llu): MD5 %s, C decoder %s\n",
                        name, i, (unsigned long long)n, (unsigned long long)(n % frames),
                        pm->md5[i], ref[n % frames]);
        }
    }
    printf("  %s: %zu pictures, %zu equal to the C decoder's of their frame\n", name, pm->n,
           pm->n - differ);
    CHECK(pm->without_picture == 0, "%s: %d frames delivered without a picture", name,
          pm->without_picture);
    CHECK(misplaced == 0, "%s: %zu pictures out of order or of no frame sent", name, misplaced);
    CHECK(differ == 0, "%s: %zu of %zu pictures differ from the C decoder's of their frame", name,
          differ, pm->n);
}

/* The GPU wait modes: each is set on the device (CUDA takes new flags on a device already
 * in use) and said in the description; without CUDA they change nothing. */
static void test_gpu_sync(void)
{
    static const char *const said[] = {"CUDA's choice", "spin", "yield", "block"};
    for (int m = PL_GPU_SYNC_AUTO; m <= PL_GPU_SYNC_BLOCK; m++) {
        pl_config c;
        memset(&c, 0, sizeof c);
        c.engine = engine;
        c.cpu_threads = 1;
        c.contexts_per_gpu = 1;
        c.gpu_sync = (pl_gpu_sync)m;
        pl_pipeline *p = NULL;
        xsf_error err;
        xsf_error_clear(&err);
        CHECK(pl_create(&p, &c, &err) == XSF_OK, "pl_create, GPU waits %d: %s", m, err.msg);
        if (!p)
            continue;
        char want[64];
        snprintf(want, sizeof want, "GPU waits: %s", said[m]);
        if (engine == PL_ENGINE_GPU)
            CHECK(strstr(pl_describe(p), want) && !strstr(pl_describe(p), "refused"),
                  "'%s' does not say '%s'", pl_describe(p), want);
        else
            CHECK(!strstr(pl_describe(p), "GPU waits"), "CPU engine: '%s'", pl_describe(p));
        pl_destroy(p);
    }
}

#ifdef XSF_HAVE_CUDA
/* The CUDA device rule (xsf_cuda_device.h): the calls that select the
 * pipeline's GPUs on the caller's thread restore its current device. The
 * pipeline runs on the last device, the caller sits on the first (the same
 * one with a single GPU). The host emulation of CUDA has one device unless
 * told otherwise: two here, while this pipeline lives (no other threads). */
static void test_caller_device(void)
{
    setenv("XSF_CUDA_EMU_DEVICES", "2", 1);
    int n = 0;
    cudaGetDeviceCount(&n);
    const int caller = 0;
    CHECK(n >= 1 && cudaSetDevice(caller) == cudaSuccess, "%d devices", n);
    pl_config c;
    memset(&c, 0, sizeof c);
    c.engine = PL_ENGINE_GPU;
    c.contexts_per_gpu = 1;
    c.ngpus = 1;
    c.gpus[0] = n - 1;
    c.pinned_reserve_bytes = 1 << 20;
    c.gpu_sync = PL_GPU_SYNC_BLOCK;
    pl_pipeline *p = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    int dev = -1;
    CHECK(pl_create(&p, &c, &err) == XSF_OK, "pl_create on GPU %d: %s", n - 1, err.msg);
    CHECK(cudaGetDevice(&dev) == cudaSuccess && dev == caller, "after pl_create: device %d", dev);
    if (p) {
        pl_writer_options wo;
        memset(&wo, 0, sizeof wo);
        wo.md5 = 1;
        pl_writer *w = NULL;
        CHECK(pl_writer_open(&w, NULL, &wo, &err) == XSF_OK, "writer: %s", err.msg);
        pl_stream_config sc = {
            .name = "device", .backpressure = PL_BLOCK, .frames = 2, .sink = pl_writer_sink(w)};
        int id = -1;
        CHECK(pl_stream_add(p, &sc, &id, &err) == XSF_OK, "stream: %s", err.msg);
        CHECK(cudaGetDevice(&dev) == cudaSuccess && dev == caller, "after pl_stream_add: device %d",
              dev);
        if (id >= 0) {
            pl_stream_finish(p, id);
            pl_stream_remove(p, id, NULL);
            CHECK(cudaGetDevice(&dev) == cudaSuccess && dev == caller,
                  "after pl_stream_remove: device %d", dev);
        }
        pl_destroy(p);
        CHECK(cudaGetDevice(&dev) == cudaSuccess && dev == caller, "after pl_destroy: device %d",
              dev);
        pl_writer_close(w, &err);
    }
    unsetenv("XSF_CUDA_EMU_DEVICES");
}
#endif

/* The CPU engine never starts CUDA: after the CPU stage's pipelines ran (test_files),
 * the driver's library is not in the process (starting it costs ~100 ms of a CPU
 * decode's start-up). Without a driver on the machine this cannot fail: said. */
static void test_cpu_engine_without_cuda(void)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    CHECK(maps != NULL, "/proc/self/maps");
    if (!maps)
        return;
    char line[512];
    int mapped = 0;
    while (fgets(line, sizeof line, maps))
        mapped |= strstr(line, "libcuda.so") != NULL;
    fclose(maps);
    CHECK(!mapped, "the CPU engine's pipelines loaded the CUDA driver (libcuda.so is mapped)");
    if (access("/dev/nvidiactl", F_OK) != 0)
        printf("note: no NVIDIA driver here: the CPU engine's check without CUDA cannot fail\n");
}

/* The tests' pipeline, with `reserve` bytes of pinned host memory taken at creation. */
static pl_pipeline *make_pipeline_reserving(size_t reserve)
{
    pl_config c;
    memset(&c, 0, sizeof c);
    c.engine = engine;
    c.cpu_threads = 3;
    c.contexts_per_gpu = 3;
    c.pinned_reserve_bytes = reserve;
    c.gpu_sync =
        PL_GPU_SYNC_BLOCK; /* as `xsflow recv` with many contexts: the tests wait blocking */
    pl_pipeline *p;
    xsf_error err;
    xsf_error_clear(&err);
    if (pl_create(&p, &c, &err) != XSF_OK) {
        fprintf(stderr, "pl_create: %s\n", err.msg);
        return NULL;
    }
    return p;
}

static pl_pipeline *make_pipeline(void)
{
    return make_pipeline_reserving(0);
}

/* A pipeline (make_pipeline) and the bytes of vector `name`: NULL, and neither, where
 * either cannot be had (checked). */
static pl_pipeline *pipeline_and_vector(const char *name, uint8_t **data, size_t *len)
{
    pl_pipeline *p = make_pipeline();
    CHECK(p != NULL, "pipeline");
    *data = p ? read_all(name, len) : NULL;
    CHECK(!p || *data != NULL, "vector %s", name);
    if (p && !*data) {
        pl_destroy(p);
        p = NULL;
    }
    return p;
}

/* 1. Files through the pipeline to the writer: equal to the C decoder. */
static void test_files(void)
{
    static const char *const names[] = {"seq_5f_422_10b", "fmt_yuv420_8b", "fmt_yuv444_12b",
                                        "fmt_rgb_8b", "slice_h16"};
    pl_pipeline *p = make_pipeline();
    CHECK(p != NULL, "pipeline");
    if (!p)
        return;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t len;
        uint8_t *data = read_all(names[i], &len);
        CHECK(data != NULL, "%s", names[i]);
        if (!data)
            continue;
        char want[33];
        unsigned frames;
        CHECK(reference_md5(data, len, want, &frames) == 0, "%s: reference", names[i]);
        pl_writer_options wo;
        memset(&wo, 0, sizeof wo);
        wo.md5 = 1;
        pl_writer *w;
        xsf_error err;
        xsf_error_clear(&err);
        CHECK(pl_writer_open(&w, NULL, &wo, &err) == XSF_OK, "writer: %s", err.msg);
        pl_stream_config sc = {
            .name = names[i], .backpressure = PL_BLOCK, .frames = 3, .sink = pl_writer_sink(w)};
        int sid;
        CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
        /* The clip three times over: more frames than the pool holds. */
        uint64_t n = 0, total = 0;
        for (int rep = 0; rep < 3; rep++) {
            CHECK(pl_jxs_source_run(p, sid, data, len, 0, 0, &n, &err) == XSF_OK, "%s: %s",
                  names[i], err.msg);
            total += n;
        }
        pl_stream_finish(p, sid);
        pl_stream_stats ss;
        pl_stream_stats_get(p, sid, &ss);
        CHECK(total == 3u * frames && ss.delivered == total && ss.dropped_total == 0,
              "%s: %llu read, %llu delivered, %llu dropped", names[i], (unsigned long long)total,
              (unsigned long long)ss.delivered, (unsigned long long)ss.dropped_total);
        char got[33];
        pl_writer_md5(w, got);
        CHECK(pl_writer_frames(w) == total, "%s: %llu written", names[i],
              (unsigned long long)pl_writer_frames(w));
        CHECK(pl_writer_close(w, &err) == XSF_OK, "%s: close: %s", names[i], err.msg);
        /* One pass alone must give the reference digest exactly. */
        CHECK(pl_writer_open(&w, NULL, &wo, &err) == XSF_OK, "writer");
        pl_stream_config sc2 = sc;
        sc2.sink = pl_writer_sink(w);
        CHECK(pl_stream_add(p, &sc2, &sid, &err) == XSF_OK, "stream 2: %s", err.msg);
        CHECK(pl_jxs_source_run(p, sid, data, len, 0, 0, &n, &err) == XSF_OK, "%s", err.msg);
        pl_stream_finish(p, sid);
        pl_writer_md5(w, got);
        CHECK(!strcmp(got, want), "%s: MD5 %s, C reference decoder %s", names[i], got, want);
        pl_writer_close(w, &err);
        free(data);
    }
    pl_destroy(p);
}

/* Where the start went (pl_startup_stats): the phases of the engine are filled, the
 * others 0, whatever they took; the first frame's set-up and the first picture once a
 * frame came; the teardown with pl_destroy_stats. On the GPU engine two GPUs (the host
 * emulation: told to have two), brought up side by side. A short file's stream
 * (expected_frames) gets no more frames than it carries. No timing is asserted. */
static void test_startup(void)
{
#ifdef XSF_HAVE_CUDA
    if (engine == PL_ENGINE_GPU)
        setenv("XSF_CUDA_EMU_DEVICES", "2", 1); /* (no other thread runs now) */
#endif
    pl_config c;
    memset(&c, 0, sizeof c);
    c.engine = engine;
    c.cpu_threads = 2;
    c.contexts_per_gpu = 2;
    c.pinned_reserve_bytes = engine == PL_ENGINE_GPU ? 1 << 20 : 0;
    pl_pipeline *p = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(pl_create(&p, &c, &err) == XSF_OK, "pl_create: %s", err.msg);
    if (!p)
        return;
    pl_startup_stats su;
    pl_startup_get(p, &su);
    CHECK(su.total_ns > 0 && !su.first_setup_ns && !su.first_picture_ns && !su.teardown_ns,
          "before any frame: total %llu, first set-up %llu, first picture %llu, teardown %llu",
          (unsigned long long)su.total_ns, (unsigned long long)su.first_setup_ns,
          (unsigned long long)su.first_picture_ns, (unsigned long long)su.teardown_ns);
    if (pl_uses_gpu(p)) {
        const int n = pl_gpu_count();
        CHECK(su.driver_ns > 0 && su.reserve_ns > 0 && !su.decoders_ns && su.ngpus == n,
              "GPU engine: driver %llu, reserve %llu, C decoders %llu, %d GPUs of %d",
              (unsigned long long)su.driver_ns, (unsigned long long)su.reserve_ns,
              (unsigned long long)su.decoders_ns, su.ngpus, n);
        for (int g = 0; g < su.ngpus; g++) {
            const pl_gpu_startup *t = &su.gpu[g];
            CHECK(t->device == g && t->context_ns > 0 && t->modules_ns > 0 && t->decoders_ns > 0 &&
                      t->ready_ns > 0 && t->ready_ns <= su.total_ns,
                  "GPU %d (device %d): context %llu, modules %llu, decoders %llu, ready %llu of "
                  "%llu",
                  g, t->device, (unsigned long long)t->context_ns,
                  (unsigned long long)t->modules_ns, (unsigned long long)t->decoders_ns,
                  (unsigned long long)t->ready_ns, (unsigned long long)su.total_ns);
        }
    } else {
        CHECK(!su.driver_ns && !su.reserve_ns && su.decoders_ns > 0 && !su.ngpus,
              "CPU engine: driver %llu, reserve %llu, C decoders %llu, %d GPUs",
              (unsigned long long)su.driver_ns, (unsigned long long)su.reserve_ns,
              (unsigned long long)su.decoders_ns, su.ngpus);
    }
    size_t len;
    uint8_t *data = read_all("seq_5f_422_10b", &len);
    CHECK(data != NULL, "seq_5f_422_10b");
    pl_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.md5 = 1;
    pl_writer *w = NULL;
    CHECK(pl_writer_open(&w, NULL, &wo, &err) == XSF_OK, "writer: %s", err.msg);
    pl_stream_config sc = {.name = "startup",
                           .backpressure = PL_BLOCK,
                           .expected_frames = 2,
                           .sink = pl_writer_sink(w)};
    int sid = -1;
    CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
    uint64_t n = 0;
    if (data && sid >= 0) {
        CHECK(pl_jxs_source_run(p, sid, data, len, 0, 2, &n, &err) == XSF_OK && n == 2, "%s",
              err.msg);
        pl_stream_finish(p, sid);
        pl_stream_stats ss;
        pl_stream_stats_get(p, sid, &ss);
        CHECK(ss.delivered == 2 && ss.frames == 2 && ss.first_picture_ns > 0,
              "2 frames expected: %llu delivered, %u in the pool, first picture %llu ns",
              (unsigned long long)ss.delivered, ss.frames, (unsigned long long)ss.first_picture_ns);
        pl_stream_remove(p, sid, NULL);
    }
    pl_writer_close(w, &err);
    free(data);
    pl_startup_get(p, &su);
    CHECK(su.first_setup_ns > 0 && su.first_setup_max_ns >= su.first_setup_ns &&
              su.first_picture_ns > 0,
          "after the frames: first set-up %llu (longest %llu), first picture %llu",
          (unsigned long long)su.first_setup_ns, (unsigned long long)su.first_setup_max_ns,
          (unsigned long long)su.first_picture_ns);
    pl_startup_stats end;
    pl_destroy_stats(p, &end);
    CHECK(end.teardown_ns > 0 && end.total_ns == su.total_ns &&
              end.first_picture_ns == su.first_picture_ns,
          "pl_destroy_stats: teardown %llu, total %llu (was %llu)",
          (unsigned long long)end.teardown_ns, (unsigned long long)end.total_ns,
          (unsigned long long)su.total_ns);
    char line[2048], last_gpu[32];
    pl_startup_format(&end, line, sizeof line);
    snprintf(last_gpu, sizeof last_gpu, "GPU %d: context", end.ngpus - 1);
    CHECK(strstr(line, "pipeline ready at") && strstr(line, "first picture at") &&
              strstr(line, "teardown") && strstr(line, end.ngpus ? last_gpu : "C decoders") != NULL,
          "pl_startup_format: '%s'", line);
#ifdef XSF_HAVE_CUDA
    if (engine == PL_ENGINE_GPU)
        unsetenv("XSF_CUDA_EMU_DEVICES");
#endif
}

/* A sink that records the order and holds frames until told. */
typedef struct holder {
    pthread_mutex_t mu;
    pl_frame *held[64];
    int nheld;
    int hold; /* keep frames instead of releasing them */
    int keep; /* with hold: keep the last `keep` only (a writer's threads at work on them) */
    uint64_t last_index;
    uint64_t delivered;
    int out_of_order;
    int with_picture;
    int refused; /* refused() calls, each with a message */
    int gate;    /* deliver() of the first frame waits while set */
    int in_gate; /* it is waiting */
    pthread_cond_t cv;
} holder;

static void holder_deliver(void *ctx, pl_frame *f)
{
    holder *h = ctx;
    pthread_mutex_lock(&h->mu);
    if (h->gate && !h->delivered) {
        h->in_gate = 1;
        pthread_cond_broadcast(&h->cv);
        while (h->gate)
            pthread_cond_wait(&h->cv, &h->mu);
    }
    if ((h->delivered || h->refused) && f->index <= h->last_index)
        h->out_of_order++;
    if (f->picture[0].fmt.nc && f->picture[0].data[0])
        h->with_picture++;
    h->last_index = f->index;
    h->delivered++;
    if (h->hold && h->keep && h->nheld == h->keep) { /* the oldest let go */
        pl_frame_release(h->held[0]);
        memmove(h->held, h->held + 1, (size_t)(h->nheld - 1) * sizeof *h->held);
        h->nheld--;
    }
    if (h->hold && h->nheld < 64) {
        h->held[h->nheld++] = f;
        f = NULL;
    }
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    if (f)
        pl_frame_release(f);
}

static void holder_refused(void *ctx, const pl_frame *f, const char *why)
{
    holder *h = ctx;
    pthread_mutex_lock(&h->mu);
    if ((h->delivered || h->refused) && f->index <= h->last_index)
        h->out_of_order++;
    h->last_index = f->index;
    if (why && why[0])
        h->refused++;
    pthread_mutex_unlock(&h->mu);
}

static void holder_init(holder *h)
{
    memset(h, 0, sizeof *h);
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
}

static void holder_release_all(holder *h)
{
    pthread_mutex_lock(&h->mu);
    h->hold = 0;
    for (int i = 0; i < h->nheld; i++)
        pl_frame_release(h->held[i]);
    h->nheld = 0;
    pthread_mutex_unlock(&h->mu);
}

/* A sink's holds (pl_sink.holds) come on top of the default pool: a sink that keeps its
 * last 24 frames (a writer's threads at work on them, as an MD5 writer lagging behind a
 * UHD stream did in the soak) takes none of the frames a live stream (PL_DROP_OLDEST)
 * needs, and every frame offered after the one before was delivered is delivered (with
 * the pool of 16 alone, the 17th was dropped for want of a frame). The MD5 writer states
 * at least its four threads and two more, and its stream's pool has them. */
static void test_sink_holds(void)
{
    size_t len;
    uint8_t *data;
    pl_pipeline *p = pipeline_and_vector("fmt_yuv422_10b", &data, &len);
    if (!p)
        return;
    enum { KEEP = 24, OFFERED = 80 };
    holder h;
    holder_init(&h);
    h.hold = 1;
    h.keep = KEEP;
    pl_stream_config sc = {
        .name = "holds",
        .backpressure = PL_DROP_OLDEST,
        .sink = {holder_deliver, NULL, &h, PL_PICTURE_HOST, holder_refused, NULL, KEEP}};
    int sid;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
    int no_frame = 0;
    for (int i = 0; i < OFFERED; i++) {
        pl_frame *f = pl_frame_acquire(p, sid, len);
        if (!f) {
            no_frame++;
            pl_count_drop(p, sid, PL_DROP_NO_FRAME);
            continue;
        }
        memcpy(f->buffer, data, len);
        f->codestream = f->buffer;
        f->codestream_bytes = len;
        pl_frame_submit(p, f);
        /* The frame delivered before the next is offered: only the sink holds frames. */
        const struct timespec until = xsf_clock_wall_deadline(10000000000ull);
        pthread_mutex_lock(&h.mu);
        while (h.delivered + (uint64_t)h.refused < (uint64_t)(i + 1 - no_frame) &&
               pthread_cond_timedwait(&h.cv, &h.mu, &until) == 0)
            ;
        pthread_mutex_unlock(&h.mu);
    }
    pl_stream_finish(p, sid);
    pl_stream_stats ss;
    pl_stream_stats_get(p, sid, &ss);
    CHECK(ss.frames >= 16 + KEEP, "a pool of %u frames for a sink that holds %d", ss.frames, KEEP);
    CHECK(no_frame == 0 && ss.delivered == OFFERED && ss.dropped_total == 0,
          "%llu of %d delivered, %llu dropped (%d for want of a frame) while the sink kept %d",
          (unsigned long long)ss.delivered, OFFERED, (unsigned long long)ss.dropped_total, no_frame,
          KEEP);
    CHECK(h.out_of_order == 0 && h.refused == 0, "%d out of order, %d refused", h.out_of_order,
          h.refused);
    holder_release_all(&h);

    pl_writer *w = NULL;
    pl_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.kind = PL_WRITE_MD5;
    CHECK(pl_writer_open(&w, NULL, &wo, &err) == XSF_OK, "MD5 writer: %s", err.msg);
    if (w) {
        pl_stream_config mc = {
            .name = "md5", .backpressure = PL_DROP_OLDEST, .sink = pl_writer_sink(w)};
        int mid;
        CHECK(mc.sink.holds >= 4 + 2,
              "the MD5 writer holds %u frames (4 threads at least, "
              "and 2 waiting)",
              mc.sink.holds);
        CHECK(pl_stream_add(p, &mc, &mid, &err) == XSF_OK, "stream: %s", err.msg);
        pl_stream_stats ms;
        pl_stream_stats_get(p, mid, &ms);
        CHECK(ms.frames == ss.frames - KEEP + mc.sink.holds,
              "the MD5 writer's stream has %u frames, want %u + its %u", ms.frames,
              ss.frames - KEEP, mc.sink.holds);
        pl_stream_finish(p, mid);
        pl_writer_close(w, &err);
    }
    pl_destroy(p);
    free(data);
}

/* 2. Drop-oldest: while the sink holds every frame, the source never blocks;
 * frames beyond the pool are dropped (oldest waiting first) and counted,
 * and those delivered leave in order. 3. A refused codestream is counted and
 * the stream goes on. */
static void test_policy_and_errors(void)
{
    size_t len;
    uint8_t *data;
    pl_pipeline *p = pipeline_and_vector("fmt_yuv422_10b", &data, &len);
    if (!p)
        return;
    holder h;
    holder_init(&h);
    h.hold = 1;
    pl_stream_config sc = {.name = "policy",
                           .backpressure = PL_DROP_OLDEST,
                           .frames = 4,
                           .sink = {holder_deliver, NULL, &h, PL_PICTURE_HOST, NULL, NULL, 0}};
    int sid;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
    const int offered = 40;
    int no_frame = 0;
    for (int i = 0; i < offered; i++) {
        pl_frame *f = pl_frame_acquire(p, sid, len);
        if (!f) {
            no_frame++; /* every frame held by the sink or decoding */
            pl_count_drop(p, sid, PL_DROP_NO_FRAME);
            continue;
        }
        memcpy(f->buffer, data, len);
        f->codestream = f->buffer;
        f->codestream_bytes = len;
        pl_frame_submit(p, f);
    }
    pl_stream_finish(p, sid);
    pl_stream_stats ss;
    pl_stream_stats_get(p, sid, &ss);
    CHECK(ss.delivered + ss.dropped_total == (uint64_t)offered,
          "%llu delivered + %llu dropped != %d offered", (unsigned long long)ss.delivered,
          (unsigned long long)ss.dropped_total, offered);
    CHECK(ss.delivered <= 4, "%llu delivered while the sink held them all (pool of 4)",
          (unsigned long long)ss.delivered);
    CHECK(ss.dropped[PL_DROP_NO_FRAME] == (uint64_t)no_frame, "no-frame count");
    CHECK(h.out_of_order == 0, "%d frames out of order", h.out_of_order);
    CHECK(h.with_picture == (int)h.delivered, "every delivered frame has its picture");
    holder_release_all(&h);

    /* Refused codestreams between good ones: counted, the good ones delivered in order. */
    int sid2;
    holder_init(&h);
    pl_stream_config sc2 = {
        .name = "errors",
        .backpressure = PL_BLOCK,
        .frames = 6,
        .sink = {holder_deliver, NULL, &h, PL_PICTURE_HOST, holder_refused, NULL, 0}};
    CHECK(pl_stream_add(p, &sc2, &sid2, &err) == XSF_OK, "stream: %s", err.msg);
    int bad = 0;
    for (int i = 0; i < 20; i++) {
        pl_frame *f = pl_frame_acquire(p, sid2, len);
        CHECK(f != NULL, "blocking acquire gives a frame");
        if (!f)
            break;
        memcpy(f->buffer, data, len);
        if (i % 5 == 2) {
            memset(f->buffer + len / 2, 0xff, len / 4); /* corrupt entropy-coded data */
            f->buffer[0] = 0x12;                        /* and no SOC: refused by every decoder */
            bad++;
        }
        f->codestream = f->buffer;
        f->codestream_bytes = len;
        pl_frame_submit(p, f);
    }
    pl_stream_finish(p, sid2);
    pl_stream_stats_get(p, sid2, &ss);
    CHECK(ss.dropped[PL_DROP_DECODE] == (uint64_t)bad && ss.delivered == (uint64_t)(20 - bad),
          "%llu refused (want %d), %llu delivered", (unsigned long long)ss.dropped[PL_DROP_DECODE],
          bad, (unsigned long long)ss.delivered);
    CHECK(ss.last_error[0] != 0, "the decoder's message is kept");
    CHECK(h.refused == bad, "refused() called %d times with a message, %d refused", h.refused, bad);
    CHECK(h.out_of_order == 0, "%d frames out of order (deliveries and refusals)", h.out_of_order);

    /* Two fields of different shapes (4:2:2, then 4:2:0) are refused with the
     * reason; two alike decode. */
    size_t len420;
    uint8_t *data420 = read_all("fmt_yuv420_10b", &len420);
    CHECK(data420 != NULL, "4:2:0 vector");
    int sid3;
    holder_init(&h);
    pl_stream_config sc3 = {
        .name = "fields",
        .backpressure = PL_BLOCK,
        .frames = 2,
        .sink = {holder_deliver, NULL, &h, PL_PICTURE_HOST, holder_refused, NULL, 0}};
    CHECK(pl_stream_add(p, &sc3, &sid3, &err) == XSF_OK, "stream: %s", err.msg);
    for (int i = 0; i < 2 && data420; i++) {
        const uint8_t *second = i ? data : data420;
        const size_t second_len = i ? len : len420;
        pl_frame *f = pl_frame_acquire(p, sid3, len + second_len);
        CHECK(f != NULL, "blocking acquire gives a frame");
        if (!f)
            break;
        memcpy(f->buffer, data, len);
        memcpy(f->buffer + len, second, second_len);
        f->codestream = f->buffer;
        f->codestream_bytes = len + second_len;
        f->fields = 2;
        f->field_bytes[0] = len;
        f->field_bytes[1] = second_len;
        pl_frame_submit(p, f);
    }
    pl_stream_finish(p, sid3);
    pl_stream_stats_get(p, sid3, &ss);
    CHECK(ss.dropped[PL_DROP_DECODE] == 1 && ss.delivered == 1 && h.refused == 1 &&
              strstr(ss.last_error, "second field"),
          "mismatched fields: %llu refused, %llu delivered (%s)",
          (unsigned long long)ss.dropped[PL_DROP_DECODE], (unsigned long long)ss.delivered,
          ss.last_error);
    free(data420);

    /* At most 1024 frames a stream. */
    pl_stream_config big = {.name = "big",
                            .backpressure = PL_BLOCK,
                            .frames = 1025,
                            .sink = {holder_deliver, NULL, &h, PL_PICTURE_HOST, NULL, NULL, 0}};
    int sid4 = -1;
    xsf_error_clear(&err);
    CHECK(pl_stream_add(p, &big, &sid4, &err) == XSF_ERR_ARG && strstr(err.msg, "1024"),
          "a stream of 1025 frames: %s", err.msg);
    free(data);
    pl_destroy(p);
}

static void *open_gate_later(void *arg)
{
    holder *h = arg;
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&h->mu);
    h->gate = 0;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

static void submit_copy(pl_pipeline *p, int sid, const uint8_t *data, size_t len)
{
    pl_frame *f = pl_frame_acquire(p, sid, len);
    CHECK(f != NULL, "acquire");
    if (!f)
        return;
    memcpy(f->buffer, data, len);
    f->codestream = f->buffer;
    f->codestream_bytes = len;
    pl_frame_submit(p, f);
}

/* 6. pl_stream_flush: while the sink sits in deliver() of the first frame
 * and the others wait or decode, a flush returns once that deliver() has
 * returned, delivers none of the others and counts no drop; every frame is
 * back in the pool and the stream goes on in order. */
static void test_flush(void)
{
    size_t len;
    uint8_t *data;
    pl_pipeline *p = pipeline_and_vector("fmt_yuv422_10b", &data, &len);
    if (!p)
        return;
    holder h;
    holder_init(&h);
    h.gate = 1;
    enum { POOL = 8 };
    pl_stream_config sc = {
        .name = "flush",
        .backpressure = PL_BLOCK,
        .frames = POOL,
        .sink = {holder_deliver, NULL, &h, PL_PICTURE_HOST, holder_refused, NULL, 0}};
    int sid;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
    for (int i = 0; i < POOL; i++)
        submit_copy(p, sid, data, len);
    pthread_mutex_lock(&h.mu);
    while (!h.in_gate)
        pthread_cond_wait(&h.cv, &h.mu);
    pthread_mutex_unlock(&h.mu);
    pthread_t opener;
    CHECK(pthread_create(&opener, NULL, open_gate_later, &h) == 0, "thread");
    pl_stream_flush(p, sid);
    pthread_join(opener, NULL);
    pl_stream_stats ss;
    pl_stream_stats_get(p, sid, &ss);
    CHECK(h.delivered == 1 && ss.delivered == 1,
          "%llu delivered after the flush (want 1: the frame in deliver())",
          (unsigned long long)h.delivered);
    CHECK(ss.submitted == POOL && ss.dropped_total == 0, "%llu submitted, %llu dropped",
          (unsigned long long)ss.submitted, (unsigned long long)ss.dropped_total);
    /* The whole pool is free again: POOL acquires in a row do not block. */
    pl_frame *all[POOL];
    for (int i = 0; i < POOL; i++)
        all[i] = pl_frame_acquire(p, sid, len);
    for (int i = 0; i < POOL; i++) {
        CHECK(all[i] != NULL, "frame %d after the flush", i);
        if (all[i])
            pl_frame_discard(p, all[i]);
    }
    for (int i = 0; i < 3; i++)
        submit_copy(p, sid, data, len);
    pl_stream_finish(p, sid);
    pl_stream_stats_get(p, sid, &ss);
    CHECK(ss.delivered == 4 && h.delivered == 4, "%llu delivered after the flush and 3 more",
          (unsigned long long)ss.delivered);
    CHECK(h.out_of_order == 0, "%d frames out of order", h.out_of_order);
    CHECK(h.with_picture == 4, "pictures");
    free(data);
    pl_destroy(p);
}

/* 4. Several loopback streams at once, each byte-exact; 5. injected loss
 * accounted exactly; both with the senders' UDP GSO and the receivers' UDP
 * GRO on and off (`gso` datagrams per GSO message, 0: none). In both, every
 * picture delivered (the clip sent 4 times over; with loss, the frames that
 * lost no packet) equals the C decoder's picture of the frame its RTP
 * timestamp names. */
typedef struct send_job {
    rtp_udp *sock;
    rtp_sender_config cfg;
    unsigned loops;
    const uint8_t *data;
    size_t len;
    rtp_sender_stats res;
    xsf_status st;
} send_job;

/* The clip `loops` times through the library's sender, each frame's packets at once at
 * its time. */
static void *send_main(void *arg)
{
    send_job *j = arg;
    xsf_error err;
    xsf_error_clear(&err);
    memset(&j->res, 0, sizeof j->res);
    rtp_clip clip;
    rtp_sender *snd = NULL;
    j->cfg.sock = j->sock;
    j->cfg.pacing = RTP_PACING_FRAME;
    j->st = rtp_clip_open(&clip, j->data, j->len, &err);
    if (j->st == XSF_OK) {
        j->st = rtp_sender_create(&snd, &j->cfg, &err);
        if (j->st == XSF_OK)
            j->st = rtp_sender_send_clip(snd, &clip, j->loops, &err);
        if (snd)
            j->res = *rtp_sender_get_stats(snd);
        rtp_sender_destroy(snd);
        rtp_clip_free(&clip);
    }
    if (j->st != XSF_OK)
        fprintf(stderr, "send: %s\n", err.msg);
    return NULL;
}

#define NSTREAMS 3

static void test_loopback_streams(size_t drop_every, unsigned gso, int gro)
{
    printf("loopback streams: drop every %zu, GSO %u, GRO %d\n", drop_every, gso, gro);
    static const char *const names[NSTREAMS] = {"seq_5f_422_10b", "fmt_yuv420_8b",
                                                "fmt_yuv444_12b"};
    pl_pipeline *p = make_pipeline();
    CHECK(p != NULL, "pipeline");
    if (!p)
        return;
    const unsigned loops = 4;
    uint8_t *data[NSTREAMS];
    size_t len[NSTREAMS];
    char want[NSTREAMS][33];
    static char ref[NSTREAMS][PICTURES_MAX][33]; /* each codestream's picture, by the C decoder */
    static picture_md5s pm[NSTREAMS];
    unsigned frames[NSTREAMS];
    pl_writer *w[NSTREAMS];
    pl_rtp_source *src[NSTREAMS];
    int sid[NSTREAMS];
    send_job job[NSTREAMS];
    pthread_t th[NSTREAMS];
    xsf_error err;
    xsf_error_clear(&err);
    memset(job, 0, sizeof job);
    for (int k = 0; k < NSTREAMS; k++) {
        data[k] = read_all(names[k], &len[k]);
        CHECK(data[k] &&
                  reference_md5_each(data[k], len[k], want[k], &frames[k], ref[k], PICTURES_MAX) ==
                      0 &&
                  frames[k] <= PICTURES_MAX,
              "%s", names[k]);
        if (!data[k])
            return;
        memset(&pm[k], 0, sizeof pm[k]);
        /* A pool that holds the whole clip: the decoders' pace (slow under the
         * sanitizers on two cores) must not drop frames here; this test is
         * about exactness and loss accounting (the drop policy has its own,
         * test_policy_and_errors). */
        const unsigned clip = frames[k] * (unsigned)loops + 4;
        pl_stream_config sc = {
            .name = names[k],
            .backpressure = PL_DROP_OLDEST,
            .frames = clip > 1024 ? 1024 : clip,
            .sink = {.deliver = picture_md5_deliver, .ctx = &pm[k], .placement = PL_PICTURE_HOST}};
        CHECK(pl_stream_add(p, &sc, &sid[k], &err) == XSF_OK, "stream: %s", err.msg);
        pl_rtp_config rc;
        memset(&rc, 0, sizeof rc);
        rc.kind = PL_RTP_SOCKET;
        rtp_addr_parse("127.0.0.1:0", 1, &rc.udp.local, &err);
        rc.udp.timestamps = 1;
        rc.udp.gro = gro;
        rc.timeout_s = 2;
        rc.max_frames = drop_every ? 0 : (uint64_t)frames[k] * loops;
        rc.depacketizer.payload_type = 112;
        rc.depacketizer.reorder_ns = 20000000u;
        rc.depacketizer.validate = 1;
        CHECK(pl_rtp_source_open(&src[k], &rc, &err) == XSF_OK &&
                  pl_rtp_source_start(src[k], p, sid[k], &err) == XSF_OK,
              "source: %s", err.msg);
        rtp_addr to;
        rtp_addr_parse("127.0.0.1:0", 1, &to, &err);
        to.port = pl_rtp_source_local_port(src[k]);
        rtp_udp_config uc;
        memset(&uc, 0, sizeof uc);
        uc.gso_segments = gso;
        CHECK(rtp_udp_open_sender(&job[k].sock, &to, &uc, &err) == XSF_OK, "sender: %s", err.msg);
        job[k].cfg.packetizer.payload_type = 112;
        job[k].cfg.packetizer.ssrc = 0x1000u + (uint32_t)k;
        job[k].cfg.packetizer.boxes = 1;
        /* Small packets: many per frame, so that loss hits most frames. */
        job[k].cfg.packetizer.packet_bytes = 600;
        job[k].cfg.rate_num = 200;
        job[k].cfg.rate_den = 1;
        job[k].loops = loops;
        job[k].cfg.first_timestamp = 0x10000000u * (uint32_t)(k + 1);
        job[k].cfg.drop_every = drop_every;
        job[k].data = data[k];
        job[k].len = len[k];
    }
    for (int k = 0; k < NSTREAMS; k++)
        pthread_create(&th[k], NULL, send_main, &job[k]);
    for (int k = 0; k < NSTREAMS; k++) {
        pthread_join(th[k], NULL);
        CHECK(job[k].st == XSF_OK, "sender %d", k);
    }
    for (int k = 0; k < NSTREAMS; k++) {
        if (drop_every) {
            /* No frame limit: the source ends after its timeout; stop it sooner. */
            struct timespec ts = {0, 300000000L};
            nanosleep(&ts, NULL);
            pl_rtp_source_stop(src[k]);
        }
        CHECK(pl_rtp_source_join(src[k], &err) == XSF_OK, "join: %s", err.msg);
        pl_stream_finish(p, sid[k]);
        rtp_stats rs;
        pl_rtp_source_stats(src[k], &rs, NULL);
        pl_stream_stats ss;
        pl_stream_stats_get(p, sid[k], &ss);
        const uint64_t sent = job[k].res.segments;
        if (!drop_every) {
            CHECK(ss.delivered == sent && rs.lost == 0 && ss.dropped_total == 0,
                  "%s: %llu of %llu frames delivered, %llu packets lost, %llu frames dropped "
                  "(%llu: decoder behind, %llu no frame)",
                  names[k], (unsigned long long)ss.delivered, (unsigned long long)sent,
                  (unsigned long long)rs.lost, (unsigned long long)ss.dropped_total,
                  (unsigned long long)ss.dropped[PL_DROP_QUEUE],
                  (unsigned long long)ss.dropped[PL_DROP_NO_FRAME]);
            CHECK(pm[k].n == sent, "%s: %zu pictures of %llu frames sent", names[k], pm[k].n,
                  (unsigned long long)sent);
        } else {
            /* Every frame sent is delivered whole or counted dropped, and the
             * lost packets are exactly those left out. */
            const uint64_t dropped = rs.frames_dropped + rs.frames_partial + ss.dropped_total;
            CHECK(ss.delivered + dropped == sent,
                  "%s: %llu delivered + %llu dropped != %llu sent (lost %llu)", names[k],
                  (unsigned long long)ss.delivered, (unsigned long long)dropped,
                  (unsigned long long)sent, (unsigned long long)rs.lost);
            CHECK(rs.lost == job[k].res.dropped, "%s: %llu lost, %llu left out", names[k],
                  (unsigned long long)rs.lost, (unsigned long long)job[k].res.dropped);
            CHECK(dropped > 0, "%s: loss dropped frames", names[k]);
            CHECK(pm[k].n == ss.delivered && ss.delivered > 0,
                  "%s: %zu pictures of %llu frames delivered (some must be)", names[k], pm[k].n,
                  (unsigned long long)ss.delivered);
        }
        check_pictures(names[k], &pm[k], job[k].cfg.first_timestamp, job[k].cfg.rate_num, ref[k],
                       frames[k], !drop_every);
        CHECK(ss.latency.count == ss.delivered, "latency measured for every frame");
        pl_rtp_source_destroy(src[k]);
        rtp_udp_close(job[k].sock);
    }
    /* Byte-exactness: one pass of each clip, alone, equals the C decoder. */
    if (!drop_every) {
        for (int k = 0; k < NSTREAMS; k++) {
            pl_writer_options wo;
            memset(&wo, 0, sizeof wo);
            wo.md5 = 1;
            CHECK(pl_writer_open(&w[k], NULL, &wo, &err) == XSF_OK, "writer");
            pl_stream_config sc = {
                .name = names[k], .backpressure = PL_DROP_OLDEST, .sink = pl_writer_sink(w[k])};
            CHECK(pl_stream_add(p, &sc, &sid[k], &err) == XSF_OK, "stream");
            pl_rtp_config rc;
            memset(&rc, 0, sizeof rc);
            rc.kind = PL_RTP_SOCKET;
            rtp_addr_parse("127.0.0.1:0", 1, &rc.udp.local, &err);
            rc.udp.gro = gro;
            rc.timeout_s = 2;
            rc.max_frames = frames[k];
            rc.depacketizer.payload_type = 112;
            rc.depacketizer.validate = 1;
            CHECK(pl_rtp_source_open(&src[k], &rc, &err) == XSF_OK &&
                      pl_rtp_source_start(src[k], p, sid[k], &err) == XSF_OK,
                  "source");
            rtp_addr to;
            rtp_addr_parse("127.0.0.1:0", 1, &to, &err);
            to.port = pl_rtp_source_local_port(src[k]);
            rtp_udp_config uc;
            memset(&uc, 0, sizeof uc);
            uc.gso_segments = gso;
            rtp_udp_open_sender(&job[k].sock, &to, &uc, &err);
            job[k].loops = 1;
            job[k].cfg.drop_every = 0;
        }
        for (int k = 0; k < NSTREAMS; k++)
            pthread_create(&th[k], NULL, send_main, &job[k]);
        for (int k = 0; k < NSTREAMS; k++) {
            pthread_join(th[k], NULL);
            pl_rtp_source_join(src[k], &err);
            pl_stream_finish(p, sid[k]);
            char got[33];
            pl_writer_md5(w[k], got);
            CHECK(!strcmp(got, want[k]), "%s over loopback: MD5 %s, C reference decoder %s",
                  names[k], got, want[k]);
            pl_rtp_source_destroy(src[k]);
            rtp_udp_close(job[k].sock);
            pl_writer_close(w[k], &err);
        }
    }
    for (int k = 0; k < NSTREAMS; k++)
        free(data[k]);
    pl_destroy(p);
}

typedef struct remover {
    pl_pipeline *p;
    int sid;
    volatile int done;
} remover;

static void *remove_main(void *arg)
{
    remover *r = arg;
    pl_stream_remove(r->p, r->sid, NULL);
    r->done = 1;
    return NULL;
}

/* 5. Streams taken out of a running pipeline (pl_stream_remove): the others
 * go on byte-exact, ids are reused (more streams over the pipeline's life
 * than PL_MAX_STREAMS), and removal waits for the frames a sink holds. */
static void test_stream_remove(void)
{
    size_t len;
    uint8_t *data;
    pl_pipeline *p = pipeline_and_vector("seq_5f_422_10b", &data, &len);
    if (!p)
        return;
    char want[33];
    unsigned frames;
    CHECK(reference_md5(data, len, want, &frames) == 0, "reference");
    xsf_error err;
    xsf_error_clear(&err);
    pl_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.md5 = 1;

    /* A kept open throughout; B added and removed around it, 3 x PL_MAX_STREAMS times. */
    pl_writer *wa;
    CHECK(pl_writer_open(&wa, NULL, &wo, &err) == XSF_OK, "writer A: %s", err.msg);
    pl_stream_config sa = {
        .name = "A", .backpressure = PL_BLOCK, .frames = 3, .sink = pl_writer_sink(wa)};
    int ida = -1;
    CHECK(pl_stream_add(p, &sa, &ida, &err) == XSF_OK, "A: %s", err.msg);
    uint64_t n = 0;
    int bad_md5 = 0, bad_id = 0, bad_add = 0, ids_seen_max = -1;
    for (int k = 0; k < 3 * PL_MAX_STREAMS; k++) {
        pl_writer *wb;
        if (pl_writer_open(&wb, NULL, &wo, &err) != XSF_OK) {
            bad_add++;
            break;
        }
        pl_stream_config sb = {
            .name = "B", .backpressure = PL_BLOCK, .frames = 2, .sink = pl_writer_sink(wb)};
        int idb = -1;
        if (pl_stream_add(p, &sb, &idb, &err) != XSF_OK) {
            bad_add++;
            pl_writer_close(wb, &err);
            break;
        }
        if (idb == ida)
            bad_id++;
        if (idb > ids_seen_max)
            ids_seen_max = idb;
        /* Every eighth round decodes a clip on B (and one frame on A). */
        if (k % 8 == 0) {
            pl_jxs_source_run(p, idb, data, len, 0, 0, &n, &err);
            pl_jxs_source_run(p, ida, data, len, 0, 1, &n, &err);
        }
        pl_stream_stats fin;
        pl_stream_remove(p, idb, &fin);
        if (k % 8 == 0) {
            if (fin.delivered != frames)
                bad_md5++;
            char got[33];
            pl_writer_md5(wb, got);
            if (strcmp(got, want))
                bad_md5++;
        }
        pl_writer_close(wb, &err);
    }
    CHECK(bad_add == 0, "adding a stream after removals failed: %s", err.msg);
    CHECK(bad_id == 0, "a second stream got the id of a stream in use");
    CHECK(ids_seen_max == 1, "ids not reused: highest id %d (want 1)", ids_seen_max);
    CHECK(bad_md5 == 0, "%d removed streams decoded wrongly (MD5 or final frame count)", bad_md5);
    /* A, untouched by all that, decodes its clip byte-exact. */
    pl_stream_remove(p, ida, NULL);
    CHECK(pl_writer_frames(wa) == (3 * PL_MAX_STREAMS + 7) / 8, "A: %llu frames written",
          (unsigned long long)pl_writer_frames(wa));
    pl_writer_close(wa, &err);

    /* Removal waits until the sink gives its frames back. */
    holder h;
    memset(&h, 0, sizeof h);
    pthread_mutex_init(&h.mu, NULL);
    h.hold = 1;
    pl_stream_config sh = {
        .name = "held",
        .backpressure = PL_BLOCK,
        .frames = 8,
        .sink = {.deliver = holder_deliver, .ctx = &h, .placement = PL_PICTURE_HOST}};
    int idh = -1;
    CHECK(pl_stream_add(p, &sh, &idh, &err) == XSF_OK, "held: %s", err.msg);
    CHECK(pl_jxs_source_run(p, idh, data, len, 0, 0, &n, &err) == XSF_OK, "%s", err.msg);
    remover r = {.p = p, .sid = idh};
    pthread_t t;
    pthread_create(&t, NULL, remove_main, &r);
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK(!r.done, "pl_stream_remove returned while the sink held %d frames", h.nheld);
    holder_release_all(&h);
    pthread_join(t, NULL);
    CHECK(r.done && h.delivered == frames, "held: %llu delivered of %u",
          (unsigned long long)h.delivered, frames);
    pthread_mutex_destroy(&h.mu);
    free(data);
    pl_destroy(p);
}

/* 6. Partial frames (pl_frame_submit_partial / progress / submit / abort):
 * frames handed over once their header is in and filled in random chunks
 * while the decode stage runs (the CPU stage waits for them whole; the GPU
 * stage decodes their slices as they come): each delivered picture equals
 * the C decoder's, in order; aborted frames are counted and never
 * delivered; whole frames in between are unaffected. The rows the GPU
 * stage tells the sink are final (pl_sink.rows) while a frame is still
 * arriving hold the C decoder's samples already and only grow; the CPU
 * stage tells none. */
typedef struct ref_frame {
    int nc;
    int width[XS_MAX_COMPONENTS], height[XS_MAX_COMPONENTS];
    uint16_t *plane[XS_MAX_COMPONENTS];
} ref_frame;

/* The codestreams of a clip (at most `max`) decoded by the C decoder: each
 * one's picture (tight rows), offset, length and header length (its picture
 * header and first slice header marker). Returns how many; *end is where
 * reading stopped (len when every codestream was read). */
static size_t load_refs(xs_decoder *dec, const uint8_t *data, size_t len, ref_frame *ref,
                        size_t *off_of, size_t *len_of, size_t *header_of, size_t max, size_t *end)
{
    size_t nref = 0, off = 0;
    memset(ref, 0, max * sizeof *ref);
    while (off < len && nref < max) {
        size_t used;
        const xsf_picture *img;
        xs_layout lay;
        xsf_error lerr;
        xsf_error_clear(&lerr);
        if (xs_decode(dec, data + off, len - off, &used, &img) != XSF_OK ||
            xs_scan_layout(data + off, used, &lay, &lerr) != XSF_OK)
            break;
        ref_frame *r = &ref[nref];
        r->nc = img->fmt.nc;
        for (int k = 0; k < img->fmt.nc; k++) {
            r->width[k] = img->fmt.width[k];
            r->height[k] = img->fmt.height[k];
            r->plane[k] = malloc((size_t)img->fmt.width[k] * img->fmt.height[k] * sizeof(uint16_t));
            for (int y = 0; r->plane[k] && y < img->fmt.height[k]; y++)
                memcpy(r->plane[k] + (size_t)y * img->fmt.width[k], xsf_picture_row16(img, k, y),
                       (size_t)img->fmt.width[k] * sizeof(uint16_t));
        }
        off_of[nref] = off;
        len_of[nref] = used;
        header_of[nref] = lay.slice_offset[0] + 2; /* the header and the first SLH marker */
        xs_layout_free(&lay);
        nref++;
        off += used;
    }
    *end = off;
    return nref;
}

typedef struct checker {
    pthread_mutex_t mu;
    const ref_frame *ref;
    size_t nref;
    uint64_t delivered, mismatched, out_of_order, last_index;
    /* pl_sink.rows */
    uint64_t rows_calls, rows_frames, rows_bad, rows_shrank, rows_index;
    int rows_last[XS_MAX_COMPONENTS];
} checker;

static void checker_rows(void *ctx, const pl_frame *f, const int rows[XSF_MAX_COMPONENTS])
{
    checker *c = ctx;
    pthread_mutex_lock(&c->mu);
    const ref_frame *r = f->user < c->nref ? &c->ref[f->user] : NULL;
    if (!c->rows_calls || f->index != c->rows_index) {
        c->rows_frames++;
        c->rows_index = f->index;
        memset(c->rows_last, 0, sizeof c->rows_last);
    }
    c->rows_calls++;
    const xsf_picture *pic = &f->picture[0];
    int same = r && pic->fmt.nc == r->nc;
    for (int k = 0; same && k < r->nc; k++) {
        same = rows[k] >= 0 && rows[k] <= r->height[k] && pic->data[k];
        c->rows_shrank += rows[k] < c->rows_last[k];
        c->rows_last[k] = rows[k];
        for (int y = 0; same && y < rows[k]; y++)
            same = !memcmp(xsf_picture_row16(pic, k, y), r->plane[k] + (size_t)y * r->width[k],
                           (size_t)r->width[k] * sizeof(uint16_t));
    }
    c->rows_bad += !same;
    pthread_mutex_unlock(&c->mu);
}

static void checker_deliver(void *ctx, pl_frame *f)
{
    checker *c = ctx;
    pthread_mutex_lock(&c->mu);
    const ref_frame *r = f->user < c->nref ? &c->ref[f->user] : NULL;
    const xsf_picture *pic = &f->picture[0];
    int same = r && pic->fmt.nc == r->nc;
    for (int k = 0; same && k < r->nc; k++) {
        same =
            pic->fmt.width[k] == r->width[k] && pic->fmt.height[k] == r->height[k] && pic->data[k];
        for (int y = 0; same && y < r->height[k]; y++)
            same = !memcmp(xsf_picture_row16(pic, k, y), r->plane[k] + (size_t)y * r->width[k],
                           (size_t)r->width[k] * sizeof(uint16_t));
    }
    c->mismatched += !same;
    if (c->delivered && f->index <= c->last_index)
        c->out_of_order++;
    c->last_index = f->index;
    c->delivered++;
    pthread_mutex_unlock(&c->mu);
    pl_frame_release(f);
}

static uint64_t prng = 0x2545f4914f6cdd1dull;
static uint32_t prand(void)
{
    prng ^= prng << 13;
    prng ^= prng >> 7;
    prng ^= prng << 17;
    return (uint32_t)prng;
}

static void pause_us(long us)
{
    struct timespec ts = {0, us * 1000L};
    nanosleep(&ts, NULL);
}

static void test_partial_frames(void)
{
    static const char *const names[] = {"slice_h16", "seq_5f_422_10b", "fmt_yuv444_12b"};
    pl_pipeline *p = make_pipeline();
    CHECK(p != NULL, "pipeline");
    if (!p)
        return;
    xs_decoder *dec = NULL;
    CHECK(xs_decoder_create(&dec, NULL) == XSF_OK, "C decoder");
    uint64_t rows_calls = 0;
    for (size_t v = 0; dec && v < sizeof names / sizeof *names; v++) {
        size_t len;
        uint8_t *data = read_all(names[v], &len);
        CHECK(data != NULL, "%s", names[v]);
        if (!data)
            continue;
        /* The codestreams of the clip and their reference pictures. */
        ref_frame ref[16];
        size_t off_of[16], len_of[16], header_of[16], off;
        const size_t nref = load_refs(dec, data, len, ref, off_of, len_of, header_of, 16, &off);
        CHECK(nref > 0 && off == len, "%s: %zu codestreams read", names[v], nref);
        checker c;
        memset(&c, 0, sizeof c);
        pthread_mutex_init(&c.mu, NULL);
        c.ref = ref;
        c.nref = nref;
        pl_stream_config sc = {
            .name = names[v],
            .backpressure = PL_BLOCK,
            .frames = 4,
            .sink = {checker_deliver, NULL, &c, PL_PICTURE_HOST, NULL, checker_rows, 0}};
        int sid;
        xsf_error err;
        xsf_error_clear(&err);
        CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
        const int offered = 24;
        int aborted = 0, whole_at_once = 0, partial = 0;
        for (int i = 0; i < offered; i++) {
            const size_t k = (size_t)i % nref;
            const uint8_t *cs = data + off_of[k];
            const size_t n = len_of[k];
            pl_frame *f = pl_frame_acquire(p, sid, n);
            CHECK(f != NULL, "blocking acquire gives a frame");
            if (!f)
                break;
            f->user = k;
            f->codestream = f->buffer;
            if (i % 6 == 5) { /* now and then a frame submitted whole */
                memcpy(f->buffer, cs, n);
                f->codestream_bytes = n;
                pl_frame_submit(p, f);
                whole_at_once++;
                continue;
            }
            memset(f->buffer, 0xa5, n); /* not yet received */
            size_t have = header_of[k];
            memcpy(f->buffer, cs, have);
            f->codestream_bytes = have;
            f->t.first_packet = pl_now_ns();
            pl_frame_submit_partial(p, f);
            partial++;
            CHECK(pl_frame_reserve(p, f, f->capacity + 1, 0, &err) != XSF_OK,
                  "a partial frame's buffer moved");
            const int abort_it = i % 4 == 3;
            const size_t stop = abort_it ? n / 2 : n;
            while (have < stop) {
                size_t chunk = 1 + prand() % 3000;
                if (chunk > stop - have)
                    chunk = stop - have;
                memcpy(f->buffer + have, cs + have, chunk);
                have += chunk;
                pl_frame_progress(p, f, have);
                if (prand() % 4 == 0)
                    pause_us(50 + prand() % 200);
            }
            if (abort_it) {
                pl_frame_abort(p, f, PL_DROP_INCOMPLETE);
                aborted++;
                continue;
            }
            f->codestream_bytes = n;
            f->t.last_packet = pl_now_ns();
            pl_frame_submit(p, f);
        }
        pl_stream_finish(p, sid);
        pl_stream_stats ss;
        pl_stream_stats_get(p, sid, &ss);
        CHECK(ss.delivered == (uint64_t)(offered - aborted) && c.delivered == ss.delivered,
              "%s: %llu delivered, want %d", names[v], (unsigned long long)ss.delivered,
              offered - aborted);
        CHECK(ss.dropped[PL_DROP_INCOMPLETE] == (uint64_t)aborted &&
                  ss.dropped_total == (uint64_t)aborted,
              "%s: %llu aborted counted (want %d), %llu dropped in all", names[v],
              (unsigned long long)ss.dropped[PL_DROP_INCOMPLETE], aborted,
              (unsigned long long)ss.dropped_total);
        CHECK(ss.partial_submitted == (uint64_t)partial, "%s: %llu partial submissions, want %d",
              names[v], (unsigned long long)ss.partial_submitted, partial);
        CHECK(c.mismatched == 0, "%s: %llu pictures differ from the C decoder's", names[v],
              (unsigned long long)c.mismatched);
        CHECK(c.out_of_order == 0, "%s: %llu frames out of order", names[v],
              (unsigned long long)c.out_of_order);
        CHECK(ss.submitted == (uint64_t)(partial + whole_at_once), "%s: %llu submitted", names[v],
              (unsigned long long)ss.submitted);
        CHECK(c.rows_bad == 0 && c.rows_shrank == 0,
              "%s: rows told final: %llu of %llu differ, %llu shrank", names[v],
              (unsigned long long)c.rows_bad, (unsigned long long)c.rows_calls,
              (unsigned long long)c.rows_shrank);
        if (!pl_uses_gpu(p))
            CHECK(c.rows_calls == 0, "%s: the CPU stage told %llu rows", names[v],
                  (unsigned long long)c.rows_calls);
        rows_calls += c.rows_calls;
        printf("%s: rows told %llu times for %llu of %d partial frames\n", names[v],
               (unsigned long long)c.rows_calls, (unsigned long long)c.rows_frames, partial);
        pthread_mutex_destroy(&c.mu);
        for (size_t k = 0; k < nref; k++)
            for (int q = 0; q < XS_MAX_COMPONENTS; q++)
                free(ref[k].plane[q]);
        free(data);
    }
    /* The frames arrive in chunks with pauses: some of their rows are out before the end. */
    if (pl_uses_gpu(p))
        CHECK(rows_calls > 0, "the GPU stage told no rows before the frames were whole");
    xs_decoder_destroy(dec);
    pl_destroy(p);
}

/* 7. The RTP source with slices on (pl_rtp_config.slices), both
 * packetization modes, packets pushed with losses: every frame is handed
 * over once its header is in; those that arrive whole are delivered equal
 * to the C decoder's picture, those with a lost packet are aborted and
 * counted once (PL_DROP_INCOMPLETE, and by the receiver). */
typedef struct packet_list {
    uint8_t *data[4096];
    size_t len[4096];
    size_t n;
} packet_list;

static int collect_packet(void *ctx, const uint8_t *pkt, size_t len, int last)
{
    (void)last;
    packet_list *l = ctx;
    if (l->n == 4096 || !(l->data[l->n] = malloc(len)))
        return 1;
    memcpy(l->data[l->n], pkt, len);
    l->len[l->n++] = len;
    return 0;
}

static void test_rtp_slices(rtp_jxs_mode mode)
{
    const char *name = "slice_h16";
    size_t len;
    uint8_t *data = read_all(name, &len);
    CHECK(data != NULL, "%s", name);
    if (!data)
        return;
    xs_decoder *dec = NULL;
    const xsf_picture *img = NULL;
    size_t used = 0;
    CHECK(xs_decoder_create(&dec, NULL) == XSF_OK &&
              xs_decode(dec, data, len, &used, &img) == XSF_OK && used == len,
          "%s: one codestream, decoded by the C decoder", name);
    ref_frame ref;
    memset(&ref, 0, sizeof ref);
    if (img) {
        ref.nc = img->fmt.nc;
        for (int k = 0; k < img->fmt.nc; k++) {
            ref.width[k] = img->fmt.width[k];
            ref.height[k] = img->fmt.height[k];
            ref.plane[k] =
                malloc((size_t)img->fmt.width[k] * img->fmt.height[k] * sizeof(uint16_t));
            for (int y = 0; ref.plane[k] && y < img->fmt.height[k]; y++)
                memcpy(ref.plane[k] + (size_t)y * img->fmt.width[k], xsf_picture_row16(img, k, y),
                       (size_t)img->fmt.width[k] * sizeof(uint16_t));
        }
    }
    /* Twelve frames of it, packetized. */
    enum { FRAMES = 12 };
    static packet_list pk;
    memset(&pk, 0, sizeof pk);
    size_t first_of[FRAMES + 1];
    rtp_packetizer_config pc;
    memset(&pc, 0, sizeof pc);
    pc.mode = mode;
    pc.payload_type = 112;
    pc.ssrc = 0x1234;
    pc.first_seq = 65530; /* wraps */
    pc.boxes = 1;
    rtp_packetizer *pz = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_packetizer_create(&pz, &pc, &err) == XSF_OK, "packetizer: %s", err.msg);
    for (unsigned i = 0; pz && i < FRAMES; i++) {
        first_of[i] = pk.n;
        CHECK(rtp_packetize(pz, data, len, 1000u * i, i, RTP_JXS_PROGRESSIVE, collect_packet, &pk,
                            &err) == XSF_OK,
              "packetize: %s", err.msg);
    }
    first_of[FRAMES] = pk.n;
    rtp_packetizer_destroy(pz);
    /* Frames 3 and 7 lose a packet in their middle, frame 10 its last. */
    const unsigned lossy[3] = {3, 7, 10};
    size_t lose[3];
    for (int k = 0; k < 3; k++) {
        const unsigned i = lossy[k];
        lose[k] = i == 10 ? first_of[i + 1] - 1 : (first_of[i] + first_of[i + 1]) / 2 + 1;
    }
    CHECK(first_of[1] - first_of[0] >= 6, "%s: %zu packets a frame", name,
          first_of[1] - first_of[0]);

    pl_pipeline *p = make_pipeline();
    CHECK(p != NULL, "pipeline");
    checker c;
    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.mu, NULL);
    c.ref = &ref;
    c.nref = 1;
    pl_stream_config sc = {.name = "rtp slices",
                           .backpressure = PL_BLOCK,
                           .frames = 6,
                           .sink = {checker_deliver, NULL, &c, PL_PICTURE_HOST, NULL, NULL, 0}};
    int sid = -1;
    if (p)
        CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
    pl_rtp_config rc;
    memset(&rc, 0, sizeof rc);
    rc.kind = PL_RTP_PUSH;
    rc.slices = 1;
    rc.depacketizer.payload_type = -1;
    rc.depacketizer.reorder_packets = 8;
    rc.depacketizer.validate = 1;
    pl_rtp_source *src = NULL;
    if (p && sid >= 0 && pl_rtp_source_open(&src, &rc, &err) == XSF_OK &&
        pl_rtp_source_start(src, p, sid, &err) == XSF_OK) {
        for (size_t i = 0; i < pk.n; i++) {
            if (i == lose[0] || i == lose[1] || i == lose[2])
                continue;
            pl_rtp_source_push(src, pk.data[i], pk.len[i], 0);
            if (prand() % 8 == 0)
                pause_us(20 + prand() % 100); /* let the decoder catch up with the frame */
        }
        pl_rtp_source_flush(src);
        pl_stream_finish(p, sid);
        rtp_stats r;
        pl_rtp_source_stats(src, &r, NULL);
        pl_stream_stats ss;
        pl_stream_stats_get(p, sid, &ss);
        const char *m = mode == RTP_JXS_SLICE ? "slice mode" : "codestream mode";
        CHECK(ss.delivered == FRAMES - 3 && c.delivered == FRAMES - 3,
              "%s: %llu delivered, want %d", m, (unsigned long long)ss.delivered, FRAMES - 3);
        CHECK(c.mismatched == 0 && c.out_of_order == 0,
              "%s: %llu pictures differ, %llu out of order", m, (unsigned long long)c.mismatched,
              (unsigned long long)c.out_of_order);
        CHECK(ss.partial_submitted == FRAMES, "%s: %llu frames handed over partially, want %d", m,
              (unsigned long long)ss.partial_submitted, FRAMES);
        CHECK(ss.dropped[PL_DROP_INCOMPLETE] == 3 && ss.dropped_total == 3,
              "%s: %llu aborted, %llu dropped", m,
              (unsigned long long)ss.dropped[PL_DROP_INCOMPLETE],
              (unsigned long long)ss.dropped_total);
        CHECK(r.frames_dropped + r.frames_partial == 3 && r.frames_complete == FRAMES - 3 &&
                  r.lost == 3,
              "%s: receiver: %llu dropped, %llu partial, %llu whole, %llu lost", m,
              (unsigned long long)r.frames_dropped, (unsigned long long)r.frames_partial,
              (unsigned long long)r.frames_complete, (unsigned long long)r.lost);
        CHECK(ss.latency_host.count == FRAMES - 3, "%s: %llu host latencies", m,
              (unsigned long long)ss.latency_host.count);
    } else {
        CHECK(0, "RTP source: %s", err.msg);
    }
    pl_rtp_source_destroy(src);
    pl_destroy(p);
    pthread_mutex_destroy(&c.mu);
    for (size_t i = 0; i < pk.n; i++)
        free(pk.data[i]);
    for (int q = 0; q < XS_MAX_COMPONENTS; q++)
        free(ref.plane[q]);
    xs_decoder_destroy(dec);
    free(data);
}

/* 8. Where the pictures go (pl_sink.placement): host, device (GPU engine,
 * CUDA built) and both, for whole, partial and interlaced frames (the two
 * fields in one buffer): every picture present where asked for and only
 * there, in tight rows one plane after the other (what the sinks and the
 * display take), and equal to the C decoder's. Vectors of odd sizes and the
 * RCT reach the output stage's sample stores and its three-plane path. */
typedef struct placement_checker {
    pthread_mutex_t mu;
    pl_placement placement;
    const ref_frame *ref;
    size_t nref;
    uint64_t delivered, fields2, bad_layout, mismatched, out_of_order, last_index;
} placement_checker;

/* 1 when `host` and `dev` hold ref's picture where `placement` asks for it. */
static int picture_as_placed(const xsf_picture *host, const xsf_picture *dev, const ref_frame *r,
                             pl_placement placement)
{
    if (!r || ((placement & PL_PICTURE_HOST) && host->fmt.nc != r->nc) ||
        ((placement & PL_PICTURE_DEVICE) && dev->fmt.nc != r->nc))
        return 0;
    for (int k = 0; k < r->nc; k++) {
        const size_t row = (size_t)r->width[k] * sizeof(uint16_t);
        const size_t n = (size_t)r->width[k] * (size_t)r->height[k];
        if ((host->data[k] != NULL) != ((placement & PL_PICTURE_HOST) != 0) ||
            (dev->data[k] != NULL) != ((placement & PL_PICTURE_DEVICE) != 0))
            return 0;
        if (host->data[k]) {
            if (host->fmt.width[k] != r->width[k] || host->fmt.height[k] != r->height[k] ||
                host->memory == XSF_MEMORY_DEVICE)
                return 0;
            if (host->stride[k] != row ||
                (k && host->data[k] !=
                          host->data[k - 1] + (size_t)r->width[k - 1] * r->height[k - 1] * 2))
                return 0;
            if (memcmp(host->data[k], r->plane[k], n * sizeof(uint16_t)))
                return 0;
        }
        if (dev->data[k]) {
            if (dev->fmt.width[k] != r->width[k] || dev->fmt.height[k] != r->height[k] ||
                dev->memory != XSF_MEMORY_DEVICE)
                return 0;
            if (dev->stride[k] != row ||
                (k &&
                 dev->data[k] != dev->data[k - 1] + (size_t)r->width[k - 1] * r->height[k - 1] * 2))
                return 0;
#ifdef XSF_HAVE_CUDA
            uint16_t *h = malloc(n ? n * sizeof(uint16_t) : 1);
            const int same = h && cudaSetDevice(dev->device) == cudaSuccess &&
                             cudaMemcpy(h, dev->data[k], n * sizeof(uint16_t),
                                        cudaMemcpyDeviceToHost) == cudaSuccess &&
                             !memcmp(h, r->plane[k], n * sizeof(uint16_t));
            free(h);
            if (!same)
                return 0;
#else
            return 0; /* no device pictures without CUDA */
#endif
        }
    }
    return 1;
}

static void placement_deliver(void *ctx, pl_frame *f)
{
    placement_checker *c = ctx;
    pthread_mutex_lock(&c->mu);
    /* user: the reference of the picture, and of the second field + 1 above bit 16. */
    const size_t r1 = (size_t)(f->user & 0xffff), r2 = (size_t)(f->user >> 16);
    int same = r1 < c->nref &&
               picture_as_placed(&f->picture[0], &f->device_picture[0], &c->ref[r1], c->placement);
    if (f->fields == 2) {
        same =
            same && r2 >= 1 && r2 - 1 < c->nref &&
            picture_as_placed(&f->picture[1], &f->device_picture[1], &c->ref[r2 - 1], c->placement);
        c->fields2++;
    }
    c->mismatched += !same;
    if (c->placement & PL_PICTURE_DEVICE)
        c->bad_layout += f->device_picture[0].device < 0;
    if (c->delivered && f->index <= c->last_index)
        c->out_of_order++;
    c->last_index = f->index;
    c->delivered++;
    pthread_mutex_unlock(&c->mu);
    pl_frame_release(f);
}

/* The rest of a partial frame's codestream, cs[have, n), in chunks of 1-4000 bytes, each
 * told to the pipeline; one chunk in `every` is followed by a pause of min_us plus up to
 * span_us (the packets of a stream, as they come). */
static void grow_partial(pl_pipeline *p, pl_frame *f, const uint8_t *cs, size_t have, size_t n,
                         unsigned every, unsigned min_us, unsigned span_us)
{
    while (have < n) {
        size_t chunk = 1 + prand() % 4000;
        if (chunk > n - have)
            chunk = n - have;
        memcpy(f->buffer + have, cs + have, chunk);
        have += chunk;
        pl_frame_progress(p, f, have);
        if (prand() % every == 0)
            pause_us(min_us + prand() % span_us);
    }
}

static void test_placements(void)
{
    static const char *const names[] = {"seq_5f_422_10b", "geom_346x199", "fmt_rgb_8b",
                                        "geom_334x78_420"};
    static const pl_placement placements[] = {PL_PICTURE_HOST, PL_PICTURE_DEVICE, PL_PICTURE_BOTH};
    static const char *const placement_name[] = {"", "host", "device", "host and device"};
    pl_pipeline *p = make_pipeline();
    CHECK(p != NULL, "pipeline");
    xs_decoder *dec = NULL;
    CHECK(xs_decoder_create(&dec, NULL) == XSF_OK, "C decoder");
    for (size_t v = 0; p && dec && v < sizeof names / sizeof *names; v++) {
        size_t len;
        uint8_t *data = read_all(names[v], &len);
        CHECK(data != NULL, "%s", names[v]);
        if (!data)
            continue;
        ref_frame ref[8];
        size_t off_of[8], len_of[8], header_of[8], off;
        const size_t nref = load_refs(dec, data, len, ref, off_of, len_of, header_of, 8, &off);
        CHECK(nref > 0 && off == len, "%s: %zu codestreams read", names[v], nref);
        for (size_t pi = 0; nref && pi < sizeof placements / sizeof *placements; pi++) {
            const pl_placement where = placements[pi];
#ifdef XSF_HAVE_CUDA
            if ((where & PL_PICTURE_DEVICE) && engine != PL_ENGINE_GPU)
                continue; /* device pictures come from the GPU stage */
#else
            if (where & PL_PICTURE_DEVICE)
                continue;
#endif
            placement_checker c;
            memset(&c, 0, sizeof c);
            pthread_mutex_init(&c.mu, NULL);
            c.placement = where;
            c.ref = ref;
            c.nref = nref;
            pl_stream_config sc = {.name = names[v],
                                   .backpressure = PL_BLOCK,
                                   .frames = 4,
                                   .sink = {placement_deliver, NULL, &c, where, NULL, NULL, 0}};
            int sid;
            xsf_error err;
            xsf_error_clear(&err);
            CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
            const int offered = 18;
            int interlaced = 0;
            for (int i = 0; i < offered; i++) {
                const size_t k = (size_t)i % nref, k2 = (size_t)(i + 1) % nref;
                const uint8_t *cs = data + off_of[k];
                const size_t n = len_of[k];
                const int kind = i % 3; /* 0 whole, 1 partial, 2 interlaced */
                pl_frame *f = pl_frame_acquire(p, sid, n + len_of[k2]);
                CHECK(f != NULL, "blocking acquire gives a frame");
                if (!f)
                    break;
                f->user = k;
                f->codestream = f->buffer;
                if (kind == 0) {
                    memcpy(f->buffer, cs, n);
                    f->codestream_bytes = n;
                    pl_frame_submit(p, f);
                } else if (kind == 2) {
                    memcpy(f->buffer, cs, n);
                    memcpy(f->buffer + n, data + off_of[k2], len_of[k2]);
                    f->fields = 2;
                    f->field_bytes[0] = n;
                    f->field_bytes[1] = len_of[k2];
                    f->codestream_bytes = n + len_of[k2];
                    f->user = k | (uint64_t)(k2 + 1) << 16;
                    pl_frame_submit(p, f);
                    interlaced++;
                } else {
                    memset(f->buffer, 0xa5, n);
                    size_t have = header_of[k];
                    memcpy(f->buffer, cs, have);
                    f->codestream_bytes = have;
                    pl_frame_submit_partial(p, f);
                    grow_partial(p, f, cs, have, n, 4, 50, 200);
                    f->codestream_bytes = n;
                    pl_frame_submit(p, f);
                }
            }
            pl_stream_finish(p, sid);
            pl_stream_stats ss;
            pl_stream_stats_get(p, sid, &ss);
            const char *pn = placement_name[where];
            CHECK(ss.delivered == (uint64_t)offered && c.delivered == (uint64_t)offered &&
                      ss.dropped_total == 0,
                  "%s (%s): %llu delivered of %d, %llu dropped (%s)", names[v], pn,
                  (unsigned long long)c.delivered, offered, (unsigned long long)ss.dropped_total,
                  ss.last_error);
            CHECK(c.fields2 == (uint64_t)interlaced, "%s (%s): %llu interlaced delivered, want %d",
                  names[v], pn, (unsigned long long)c.fields2, interlaced);
            CHECK(c.mismatched == 0 && c.bad_layout == 0,
                  "%s (%s): %llu pictures not as placed or differing from the C decoder's, %llu "
                  "without a device",
                  names[v], pn, (unsigned long long)c.mismatched, (unsigned long long)c.bad_layout);
            CHECK(c.out_of_order == 0, "%s (%s): %llu out of order", names[v], pn,
                  (unsigned long long)c.out_of_order);
            pl_stream_remove(p, sid, NULL);
            pthread_mutex_destroy(&c.mu);
        }
        for (size_t k = 0; k < nref; k++)
            for (int q = 0; q < XS_MAX_COMPONENTS; q++)
                free(ref[k].plane[q]);
        free(data);
    }
    xs_decoder_destroy(dec);
    if (p)
        pl_destroy(p);
}

/* The stream's pool once its codestream buffers are all pinned (GPU engine:
 * the provisioner works on its own thread; waited for up to 10 s), or at
 * once without a GPU. */
static pl_stream_stats pool_settled(pl_pipeline *p, int sid)
{
    pl_stream_stats ss;
    for (int i = 0; i < 1000; i++) {
        pl_stream_stats_get(p, sid, &ss);
        if (!pl_uses_gpu(p) || ss.pool_pinned_bytes == ss.pool_bytes)
            break;
        const struct timespec ms10 = {0, 10000000};
        nanosleep(&ms10, NULL);
    }
    return ss;
}

/* 9. Pinned memory with the GPU engine: a live stream's codestream buffers
 * are pinned by the provisioner once back in the pool (the first before any
 * frame, again after a frame grew); a stream that may wait pins its own at
 * once; with a reserve, frames are carved from it pinned already. Without a
 * GPU nothing is pinned. The buffers are those frames took, never more. */
static void test_provisioning(void)
{
    size_t len;
    uint8_t *data;
    pl_pipeline *p = pipeline_and_vector("fmt_yuv422_10b", &data, &len);
    if (!p)
        return;
    holder h;
    holder_init(&h);
    const unsigned frames = 6;
    const size_t first = (size_t)1 << 20;
    const int gpu = pl_uses_gpu(p);
    /* A live stream: its frames are plain mappings until the provisioner pins them. Each
     * frame is delivered before the next is taken, so that none is dropped. */
    pl_stream_config sc = {.name = "provision",
                           .backpressure = PL_DROP_OLDEST,
                           .frames = frames,
                           .sink = {holder_deliver, NULL, &h, PL_PICTURE_HOST, NULL, NULL, 0}};
    int sid;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
    pl_stream_stats ss = pool_settled(p, sid);
    CHECK(ss.pool_bytes == first && ss.pool_pinned_bytes == (gpu ? first : 0),
          "no frame yet: %zu bytes in the pool, %zu pinned (want %zu, %zu)", ss.pool_bytes,
          ss.pool_pinned_bytes, first, gpu ? first : 0);
    for (int i = 0; data && i < 8; i++) {
        submit_copy(p, sid, data, len);
        pl_stream_finish(p, sid);
    }
    ss = pool_settled(p, sid);
    CHECK(ss.delivered == 8 && ss.dropped_total == 0, "%llu of 8 frames delivered, %llu dropped",
          (unsigned long long)ss.delivered, (unsigned long long)ss.dropped_total);
    CHECK(ss.pool_bytes >= first && ss.pool_bytes <= frames * first && ss.pool_bytes % first == 0,
          "after 8 frames: %zu bytes in the pool (1 to %u frames of %zu)", ss.pool_bytes, frames,
          first);
    CHECK(ss.pool_pinned_bytes == (gpu ? ss.pool_bytes : 0),
          "after 8 frames: %zu of %zu bytes pinned", ss.pool_pinned_bytes, ss.pool_bytes);
    const size_t before = ss.pool_bytes;
    /* A frame that grows (to half as much again as asked): its buffer is replaced and the
     * new one pinned once it is back. */
    pl_frame *f = pl_frame_acquire(p, sid, 2 * first);
    CHECK(f != NULL && f->capacity == 3 * first, "grown frame: %zu bytes", f ? f->capacity : 0);
    if (f)
        pl_frame_discard(p, f);
    ss = pool_settled(p, sid);
    CHECK(ss.pool_bytes == before + 2 * first, "after growing: %zu bytes in the pool, want %zu",
          ss.pool_bytes, before + 2 * first);
    CHECK(ss.pool_pinned_bytes == (gpu ? ss.pool_bytes : 0),
          "after growing: %zu of %zu bytes pinned", ss.pool_pinned_bytes, ss.pool_bytes);
    pl_pin_stats ps;
    pl_pin_stats_get(&ps);
    CHECK(gpu ? ps.pins > 0 && ps.pinned_bytes >= ss.pool_pinned_bytes : ps.pins == 0,
          "pin statistics: %llu pins, %llu bytes pinned now", (unsigned long long)ps.pins,
          (unsigned long long)ps.pinned_bytes);
    pl_stream_remove(p, sid, NULL);

    /* A stream that may wait (a file) pins its own frames as they are taken: pinned at once,
     * before the provisioner could have come. */
    sc.backpressure = PL_BLOCK;
    CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
    pl_frame_discard(p, pl_frame_acquire(p, sid, 2 * first));
    pl_stream_stats_get(p, sid, &ss); /* not waited for */
    CHECK(ss.pool_bytes == 3 * first && ss.pool_pinned_bytes == (gpu ? ss.pool_bytes : 0),
          "a waiting stream's grown frame: %zu of %zu bytes pinned at once", ss.pool_pinned_bytes,
          ss.pool_bytes);
    pl_stream_remove(p, sid, NULL);
    holder_release_all(&h);
    pl_destroy(p);

    /* With a reserve pinned at creation the frames are pinned as they are taken: nothing
     * waits for the provisioner, and the pool is pinned at once. */
    const size_t reserve = (size_t)32 << 20;
    p = make_pipeline_reserving(reserve);
    CHECK(p != NULL, "pipeline with a reserve");
    if (!p) {
        free(data);
        return;
    }
    pl_pin_stats before_ps;
    pl_pin_stats_get(&before_ps);
    CHECK(gpu ? before_ps.reserve_bytes >= reserve : before_ps.reserve_bytes == 0,
          "reserve of %llu bytes", (unsigned long long)before_ps.reserve_bytes);
    holder_init(&h);
    CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
    for (int i = 0; data && i < 4; i++)
        submit_copy(p, sid, data, len);
    pl_stream_finish(p, sid);
    pl_stream_stats_get(p, sid, &ss); /* not waited for */
    CHECK(ss.delivered == 4 && ss.pool_pinned_bytes == (gpu ? ss.pool_bytes : 0),
          "with a reserve: %llu of 4 delivered, %zu of %zu bytes pinned",
          (unsigned long long)ss.delivered, ss.pool_pinned_bytes, ss.pool_bytes);
    pl_pin_stats_get(&ps);
    CHECK(gpu ? ps.reserve_used >= before_ps.reserve_used + ss.pool_bytes : ps.reserve_used == 0,
          "reserve in use: %llu bytes, the pool %zu", (unsigned long long)ps.reserve_used,
          ss.pool_bytes);
    pl_stream_remove(p, sid, NULL);
    holder_release_all(&h);
    pl_destroy(p);
    pl_pin_stats_get(&ps);
    CHECK(ps.reserve_used == before_ps.reserve_used,
          "reserve in use after the pipeline went: %llu bytes, "
          "%llu before",
          (unsigned long long)ps.reserve_used, (unsigned long long)before_ps.reserve_used);
    free(data);
    if (!gpu)
        return;
    /* The reserve's spans: buffers of mixed sizes until it is full, given back in another
     * order; then it is one span again (a buffer of nearly all of it fits). */
    enum { MAXB = 256 };
    void *bufs[MAXB];
    int nb = 0, from_reserve = 0;
    for (uint32_t r = 12345; nb < MAXB; nb++) {
        r = r * 1103515245u + 12345u;
        const size_t bytes = (size_t)(r >> 8) % ((size_t)3 << 20) + 1;
        bufs[nb] = pl_host_map(bytes);
        CHECK(bufs[nb] != NULL, "map %zu bytes", bytes);
        if (!bufs[nb] || !pl_host_pinned(bufs[nb]))
            break; /* the reserve is full: this one is a plain mapping */
        CHECK(!pl_host_unpin_costs(bufs[nb]), "a buffer of the reserve costs no unpin");
        memset(bufs[nb], 0xa5, bytes);
        from_reserve++;
    }
    CHECK(from_reserve >= 8, "%d buffers fitted in the reserve", from_reserve);
    for (int i = 0; i <= nb && i < MAXB; i += 2)
        pl_host_free(bufs[i], 1);
    for (int i = 1; i <= nb && i < MAXB; i += 2)
        pl_host_free(bufs[i], 1);
    pl_pin_stats_get(&ps);
    CHECK(ps.reserve_used == 0, "reserve in use after every buffer went back: %llu bytes",
          (unsigned long long)ps.reserve_used);
    void *big = pl_host_map((size_t)31 << 20);
    CHECK(big && pl_host_pinned(big),
          "a 31 MiB buffer from the 32 MiB reserve after its spans merged");
    pl_host_free(big, 1);
}

/* 10. The steady state allocates and pins nothing: a live stream's frames, handed over
 * partially as they arrive (the GPU stage decodes their slices as they come) after a
 * warm-up that took what the stream needs, then the latency reset that a receiver makes
 * after its warm-up: from there on no buffer is allocated on a frame's way
 * (pl_stream_stats.allocs) and, with a reserve, nothing pinned or unpinned (pinning
 * holds the CUDA driver's lock from every decoder); the GPU stage's steps and last steps
 * are counted there, the CPU stage's none. Pictures equal the C decoder's. */
static void feed_partial(pl_pipeline *p, int sid, const uint8_t *cs, size_t n, size_t header,
                         uint64_t user)
{
    pl_frame *f = pl_frame_acquire(p, sid, n);
    CHECK(f != NULL, "a free frame");
    if (!f)
        return;
    f->user = user;
    f->codestream = f->buffer;
    size_t have = header;
    memcpy(f->buffer, cs, have);
    f->codestream_bytes = have;
    f->t.first_packet = pl_now_ns();
    pl_frame_submit_partial(p, f);
    grow_partial(p, f, cs, have, n, 8, 20, 100);
    f->codestream_bytes = n;
    f->t.last_packet = pl_now_ns();
    pl_frame_submit(p, f);
}

static void test_steady_state(void)
{
    pl_pipeline *p = make_pipeline_reserving((size_t)64 << 20);
    CHECK(p != NULL, "pipeline with a reserve");
    xs_decoder *dec = NULL;
    CHECK(xs_decoder_create(&dec, NULL) == XSF_OK, "C decoder");
    size_t len = 0;
    uint8_t *data = p && dec ? read_all("seq_5f_422_10b", &len) : NULL;
    CHECK(data != NULL, "vector");
    ref_frame ref[8];
    size_t off_of[8], len_of[8], header_of[8], end = 0;
    const size_t nref =
        data ? load_refs(dec, data, len, ref, off_of, len_of, header_of, 8, &end) : 0;
    CHECK(!data || nref > 0, "codestreams");
    const int gpu = p && pl_uses_gpu(p);
    checker c;
    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.mu, NULL);
    c.ref = ref;
    c.nref = nref;
    pl_stream_config sc = {.name = "steady",
                           .backpressure = PL_DROP_OLDEST,
                           .sink = {checker_deliver, NULL, &c,
                                    gpu ? PL_PICTURE_BOTH : PL_PICTURE_HOST, NULL, NULL, 0}};
    int sid = -1;
    xsf_error err;
    xsf_error_clear(&err);
    if (nref)
        CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
    const int warm = 6, steady = 30;
    for (int i = 0; sid >= 0 && i < warm + steady; i++) {
        if (i == warm) { /* the warm-up is over: what follows is the steady state's */
            pool_settled(p, sid);
            pl_stream_latency_reset(p, sid);
        }
        pl_pin_stats before;
        if (i == warm)
            pl_pin_stats_get(&before);
        const size_t k = (size_t)i % nref;
        feed_partial(p, sid, data + off_of[k], len_of[k], header_of[k], k);
        pl_stream_finish(p, sid); /* one frame at a time: none dropped */
        if (i + 1 < warm + steady)
            continue;
        pl_pin_stats after;
        pl_pin_stats_get(&after);
        pl_stream_stats ss;
        pl_stream_stats_get(p, sid, &ss);
        CHECK(ss.delivered == (uint64_t)(warm + steady) && c.mismatched == 0 &&
                  c.delivered == ss.delivered,
              "%llu of %d delivered, %llu differ from the C decoder's",
              (unsigned long long)ss.delivered, warm + steady, (unsigned long long)c.mismatched);
        CHECK(ss.allocs == 0,
              "steady state: %llu buffers allocated on frames' ways (longest %.1f us)",
              (unsigned long long)ss.allocs, ss.alloc_max_us);
        CHECK(after.pins == before.pins && after.unpins == before.unpins,
              "steady state: %llu pins, %llu unpins",
              (unsigned long long)(after.pins - before.pins),
              (unsigned long long)(after.unpins - before.unpins));
        CHECK(gpu ? ss.steps > 0 && ss.step.count == ss.steps && ss.final_enqueue.count > 0 &&
                        ss.final_sync.count == ss.final_enqueue.count
                  : ss.steps == 0 && ss.final_enqueue.count == 0,
              "steady state: %llu steps, %llu last steps (%s stage)", (unsigned long long)ss.steps,
              (unsigned long long)ss.final_enqueue.count, gpu ? "GPU" : "CPU");
        printf("steady state, %d frames: %llu steps, step p99 %.0f us, last step enqueue p99 %.0f "
               "us, wait p99 %.0f us\n",
               steady, (unsigned long long)ss.steps, ss.step.p99_us, ss.final_enqueue.p99_us,
               ss.final_sync.p99_us);
    }
    if (sid >= 0)
        pl_stream_remove(p, sid, NULL);
    pthread_mutex_destroy(&c.mu);
    for (size_t k = 0; k < nref; k++)
        for (int q = 0; q < XS_MAX_COMPONENTS; q++)
            free(ref[k].plane[q]);
    free(data);
    xs_decoder_destroy(dec);
    pl_destroy(p);
}

/* The GPU start on a thread of its own (pl_config.start_on_cpu), made slow by the test hook
 * (no GPU here answers at once): pl_create returns at once; frames decode on the C decoder
 * meanwhile (each in parts on the idle threads), with the reference's pictures; after the
 * start (ready on a GPU machine: the same stream's next frames decode there, in order; here
 * it fails and the C decoder goes on) the stream's whole digest is the reference's; a
 * pipeline destroyed while its start is under way does not wait for it
 * (pl_gpu_starts_pending until the start's thread ends). */
static unsigned start_delay_ms;
static void slow_start(void)
{
    const struct timespec t = {start_delay_ms / 1000, (long)(start_delay_ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

extern void (*pl_test_gpu_start_hook)(void);

static void test_start_on_cpu(void)
{
    size_t len;
    uint8_t *data = read_all("hd_422_10b_bpp3", &len);
    CHECK(data != NULL, "hd_422_10b_bpp3");
    if (!data)
        return;
    uint8_t *twice = malloc(2 * len);
    memcpy(twice, data, len);
    memcpy(twice + len, data, len);
    char want1[33], want2[33];
    unsigned frames = 0, frames2 = 0;
    CHECK(reference_md5(data, len, want1, &frames) == 0, "reference");
    CHECK(reference_md5(twice, 2 * len, want2, &frames2) == 0, "reference, twice");
    pl_test_gpu_start_hook = slow_start;
    for (int abandon = 0; abandon <= 1; abandon++) {
        start_delay_ms = abandon ? 1500 : 400;
        pl_config c;
        memset(&c, 0, sizeof c);
        c.engine = PL_ENGINE_AUTO;
        c.start_on_cpu = 1;
        c.cpu_threads = 3;
        pl_pipeline *p;
        xsf_error err;
        xsf_error_clear(&err);
        const uint64_t t0 = xsf_clock_mono_ns();
        CHECK(pl_create(&p, &c, &err) == XSF_OK, "pl_create: %s", err.msg);
        CHECK(xsf_clock_mono_ns() - t0 < 300000000ull, "pl_create waited for the GPU's start");
        CHECK(pl_gpu_start_state(p) == PL_GPU_START_RUNNING, "the start is not under way");
        pl_writer_options wo;
        memset(&wo, 0, sizeof wo);
        wo.md5 = 1;
        pl_writer *w;
        CHECK(pl_writer_open(&w, NULL, &wo, &err) == XSF_OK, "writer: %s", err.msg);
        pl_stream_config sc = {.name = "file", .backpressure = PL_BLOCK, .sink = pl_writer_sink(w)};
        int sid;
        CHECK(pl_stream_add(p, &sc, &sid, &err) == XSF_OK, "stream: %s", err.msg);
        uint64_t n = 0;
        /* Abandoned: two passes of the file, all while the start is under way (one frame of
         * the stream at a time on the C decoder, each in parts). */
        CHECK(pl_jxs_source_run(p, sid, abandon ? twice : data, abandon ? 2 * len : len, 0, 0, &n,
                                &err) == XSF_OK,
              "%s", err.msg);
        pl_startup_stats su;
        char got[33];
        if (!abandon) {
            /* The same stream's next frames once the start is done (the digest covers the
             * stream from its first frame to pl_stream_finish). */
            const int gpu = pl_uses_gpu(p); /* waits for the start */
            const pl_gpu_start state = pl_gpu_start_state(p);
            CHECK(state == (gpu ? PL_GPU_START_READY : PL_GPU_START_FAILED), "state %d",
                  (int)state);
            CHECK(pl_jxs_source_run(p, sid, data, len, 0, 0, &n, &err) == XSF_OK, "%s", err.msg);
            pl_stream_finish(p, sid);
            pl_writer_md5(w, got);
            CHECK(!strcmp(got, want2), "across the start (%s): MD5 %s, reference %s",
                  gpu ? "GPU ready" : "no GPU", got, want2);
            pl_startup_get(p, &su);
            CHECK(gpu ? su.gpu_ready_ns > 0 && su.cpu_frames >= 1 && su.cpu_frames <= frames
                      : su.gpu_error[0] && su.cpu_frames == 2u * frames,
                  "%llu C decoder frames, ready at %llu ns, '%s'",
                  (unsigned long long)su.cpu_frames, (unsigned long long)su.gpu_ready_ns,
                  su.gpu_error);
        } else {
            pl_stream_finish(p, sid);
            pl_startup_get(p, &su);
            CHECK(su.cpu_frames == 2u * frames && su.cpu_threads == 3,
                  "%llu frames decoded on the C decoder's %u threads while the GPU started, "
                  "%u sent",
                  (unsigned long long)su.cpu_frames, su.cpu_threads, 2u * frames);
            CHECK(su.cpu_frames_at_once == 1,
                  "%u frames of the stream on the C decoder at once while the GPU started",
                  su.cpu_frames_at_once);
            pl_writer_md5(w, got);
            CHECK(!strcmp(got, want2), "while the GPU started: MD5 %s, reference %s", got, want2);
        }
        CHECK(su.cpu_parts_helped > 0, "no part of a frame went to an idle thread");
        pl_writer_close(w, &err);
        const uint64_t t1 = xsf_clock_mono_ns();
        pl_destroy_stats(p, &su);
        const uint64_t took = xsf_clock_mono_ns() - t1;
        if (abandon) {
            CHECK(took < 700000000ull, "pl_destroy waited %.0f ms for the GPU's start",
                  (double)took / 1e6);
            CHECK(su.gpu_start_abandoned && pl_gpu_starts_pending() == 1,
                  "the abandoned start is not said (%d, %d pending)", su.gpu_start_abandoned,
                  pl_gpu_starts_pending());
            char line[2048];
            CHECK(strstr(pl_startup_format(&su, line, sizeof line), "not waited for") != NULL,
                  "start-up line: %s", line);
            const struct timespec tick = {0, 10000000L};
            for (int k = 0; k < 400 && pl_gpu_starts_pending(); k++)
                nanosleep(&tick, NULL);
        }
        CHECK(pl_gpu_starts_pending() == 0, "a start's thread is still under way");
    }
    pl_test_gpu_start_hook = NULL;
    free(twice);
    free(data);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_pipeline VECTOR_DIR cpu|gpu\n");
        return 2;
    }
    vector_dir = argv[1];
    engine = strcmp(argv[2], "gpu") ? PL_ENGINE_CPU : PL_ENGINE_GPU;
    if (engine == PL_ENGINE_GPU && xs_gpu_available() != XSF_OK) {
        printf("skipped: no usable GPU (the GPU stage needs one)\n");
        return XSF_TEST_SKIP;
    }
    test_files();
    if (engine == PL_ENGINE_CPU)
        test_cpu_engine_without_cuda();
    test_policy_and_errors();
    test_sink_holds();
    test_flush();
    test_gpu_sync();
    test_startup();
#ifdef XSF_HAVE_CUDA
    if (engine == PL_ENGINE_GPU)
        test_caller_device();
#endif
    test_loopback_streams(0, 0, 0);
    /* A packet in 97 lost: frames of about 38 packets (600 bytes), so that about 60 % of
     * them come whole to be compared (every 7th lost a packet of every frame). */
    test_loopback_streams(97, 0, 0);
    test_loopback_streams(0, RTP_UDP_GSO_MAX, 1);
    test_loopback_streams(0, RTP_UDP_GSO_MAX, 0);
    test_loopback_streams(0, 0, 1);
    test_loopback_streams(97, RTP_UDP_GSO_MAX, 1);
    test_stream_remove();
    test_partial_frames();
    test_rtp_slices(RTP_JXS_CODESTREAM);
    test_rtp_slices(RTP_JXS_SLICE);
    test_placements();
    test_provisioning();
    test_steady_state();
    if (engine == PL_ENGINE_CPU)
        test_start_on_cpu(); /* last: it may start CUDA (test_cpu_engine_without_cuda) */
    return xsf_test_finish();
}
