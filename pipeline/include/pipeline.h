/* xsflow pipeline: the decoder service between rtp/ and the program.
 *
 *   source --frame--> [queue] --> decode stage --> [in order] --> sink
 *
 * A frame (pl_frame) comes from its stream's pool: a codestream buffer in
 * pinned host memory (the RTP receiver assembles packets straight into it)
 * and, once decoded, a picture (xsf_picture) in pinned host memory and/or
 * device memory, from the pools of the stream's GPU.
 *
 * Codecs: a stream's codec is named by its configuration
 * (pl_stream_config.codec) or found by probing its first frame; the
 * pipeline dispatches through the codec table (common/include/xsf_codec.h) and
 * names no codec. Each frame's header is parsed once: by a source that
 * parsed it anyway (pl_frame_set_header), else by the decode stage, and the
 * description (pl_frame.desc) travels with the frame to the decoders and
 * the sink.
 * Pools are sized when a stream is added; buffers grow only when a stream's
 * frames grow, so the steady state allocates nothing. With the GPU engine a
 * provisioner thread pins the memory ahead of need: once a stream's frame
 * size is known (pl_stream_config.codestream_bytes, or its first frame),
 * every free frame gets a codestream buffer of that size, and each GPU keeps
 * pictures for its decoders and sinks of the size they last asked for; what
 * a growing frame gives up is unpinned there too. Pinning holds the CUDA
 * driver's lock, so neither receiving threads nor decoders do it themselves
 * unless a frame is needed before the provisioner reached it.
 *
 * Decode stage: on each GPU a pool of decoder contexts, each driven by its
 * own thread on its own CUDA stream, so that the upload, decode and download
 * of different frames overlap; where no GPU is usable (or the CPU engine is
 * asked for), a pool of threads running the C decoder, one frame each.
 * Streams are spread over the GPUs (stream id modulo the GPU count).
 *
 * Backpressure, per stream (pl_backpressure):
 *   PL_DROP_OLDEST  live sources: the source never blocks. When its pool is
 *                   empty, the oldest of its frames still waiting for a
 *                   decoder is dropped (counted as PL_DROP_QUEUE) and its
 *                   buffer reused; when every frame is being decoded or is
 *                   held by the sink, pl_frame_acquire returns NULL (the
 *                   source drops the frame it was about to assemble).
 *   PL_BLOCK        files and captures read as fast as they read: the
 *                   source waits for a free frame; nothing is dropped.
 *
 * Frames leave in order per stream: the sink's deliver() is called for the
 * frames of one stream one at a time, in submission order, from a decode
 * thread (so it must be quick or hand the frame to a thread of its own). A
 * delivered frame belongs to the sink until it calls pl_frame_release().
 * Frames the decoder refuses are counted (PL_DROP_DECODE) and not
 * delivered; a sink that wants to hear of them in order (to account for the
 * frame it fed in) sets refused().
 *
 * Partial frames (sub-frame latency): a source that assembles a frame in
 * order may hand it over before it is whole, with pl_frame_submit_partial
 * once the codestream's start is in the buffer, then pl_frame_progress
 * each time the complete prefix grows (the bytes codestream[0, prefix) are
 * final and are not written again; with reordering the prefix stops at the
 * first hole), then either pl_frame_submit when it is whole (its size and
 * last_packet time set) or pl_frame_abort when it never will be (counted
 * with its reason). A partial frame has its index and its place in the
 * stream's order from pl_frame_submit_partial. A GPU decoder that takes a
 * partial frame (of a codec that decodes incrementally: xsf_codec.gpu_begin;
 * JPEG XS) decodes its slices as the prefix grows (it sleeps on a
 * condition variable between updates, no spinning; the codec's gpu_begin /
 * more / end), with the picture rows they make final (downloaded into the
 * host picture as they are, told to a sink that asks: pl_sink.rows), and
 * finishes when the frame is whole; the CPU stage, and a
 * sink that wants no picture, wait for the whole frame and decode it as
 * usual. The picture is the same either way. Backpressure: a partial frame
 * counts as waiting, but PL_DROP_OLDEST never drops one that is still being
 * filled (its source writes into it); once whole it may be dropped like any
 * waiting frame. The buffer must not move while the frame is partial
 * (pl_frame_reserve is refused then). Interlaced frames are submitted whole.
 *
 * Times: every pl_times field, the frame log and every *_delivered_ns are
 * on the packet clock (xsf_clock.h: CLOCK_REALTIME in nanoseconds, the
 * clock of the kernel's receive timestamps and of pl_now_ns), so a frame's
 * latency is read on one clock from its last packet to its picture. Only
 * differences of them mean anything here; to pace by them, convert
 * (xsf_clock_wall_to_mono). Durations measured inside the pipeline
 * (pl_pin_stats) are on the monotonic clock (xsf_clock_mono_ns).
 *
 * Thread safety: pl_frame_acquire/submit/discard for one stream from its
 * source, one call at a time for submit (frames are numbered in submission
 * order; the RTP source of a mapped capture submits from its copy threads,
 * one after the other, in frame order); pl_frame_release from any thread;
 * statistics from any thread. Nothing here prints.
 *
 * CUDA devices: the pipeline's own threads select their GPUs; pl_create,
 * pl_destroy, pl_stream_add and pl_stream_remove select GPUs on the calling
 * thread too, and restore its current device before they return; no other
 * call changes it (xsf_cuda_device.h). */
#ifndef XSF_PIPELINE_H
#define XSF_PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "image_io.h"
#include "rtp.h"
#include "xsf.h"
#include "xsf_codec.h"
#include "xsf_picture.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PL_MAX_GPUS 16
#define PL_MAX_STREAMS 64
#define PL_MAX_FIELDS 2

typedef struct pl_pipeline pl_pipeline;

typedef enum pl_engine { PL_ENGINE_AUTO = 0, PL_ENGINE_CPU, PL_ENGINE_GPU } pl_engine;

/* Where a sink wants decoded pictures. PL_PICTURE_NONE: the codestream
 * alone (nothing is decoded, e.g. .jxs output). */
typedef enum pl_placement {
    PL_PICTURE_NONE = 0,
    PL_PICTURE_HOST = 1,
    PL_PICTURE_DEVICE = 2,
    PL_PICTURE_BOTH = 3,
} pl_placement;

typedef enum pl_backpressure { PL_DROP_OLDEST = 0, PL_BLOCK = 1 } pl_backpressure;

/* Why frames of a stream did not reach its sink (beyond what the RTP
 * receiver counts itself: loss, invalid codestreams, partial frames). */
typedef enum pl_drop_reason {
    PL_DROP_QUEUE = 0,  /* the oldest waiting frame, dropped for a newer one (decoder behind) */
    PL_DROP_NO_FRAME,   /* no free frame at all (every frame decoding or held by the sink) */
    PL_DROP_DECODE,     /* the decoder refused the codestream */
    PL_DROP_FIELD,      /* interlaced: the sibling field was lost or did not match */
    PL_DROP_INCOMPLETE, /* a partial frame its source gave up on (pl_frame_abort: packets lost);
                           the RTP receiver's own counts hold it too */
    PL_DROP_REASONS
} pl_drop_reason;
const char *pl_drop_reason_name(pl_drop_reason r);

/* How a host thread waits for its GPU work (cudaStreamSynchronize and the
 * like), set on each GPU before its decoder contexts are made
 * (cudaSetDeviceFlags). AUTO leaves CUDA's heuristic, which spins while the
 * process has no more CUDA contexts than the machine has cores (one per GPU
 * here): each decoder context's thread then holds a core for as long as its
 * frame is on the GPU. SPIN: the lowest wake-up latency, a core per waiting
 * thread. YIELD: spins but yields the core between looks. BLOCK: sleeps on
 * an interrupt, no CPU while waiting, a wake-up of some microseconds more;
 * what a machine whose cores receive packets wants. */
typedef enum pl_gpu_sync {
    PL_GPU_SYNC_AUTO = 0,
    PL_GPU_SYNC_SPIN,
    PL_GPU_SYNC_YIELD,
    PL_GPU_SYNC_BLOCK,
} pl_gpu_sync;

typedef struct pl_config {
    pl_engine engine;
    int ngpus;                 /* GPUs to use; 0 = every visible GPU */
    int gpus[PL_MAX_GPUS];     /* their CUDA device ids when ngpus > 0 */
    unsigned contexts_per_gpu; /* decoder contexts (threads, CUDA streams) per GPU; 0 = 3 */
    unsigned cpu_threads;      /* CPU engine threads; 0 = one per core */
    pl_gpu_sync gpu_sync;      /* how decoder threads wait for their GPU; ignored without CUDA */
    /* GPU engine: host memory pinned at creation, before any stream runs, from which frames'
     * codestreams and pictures are carved while it lasts (pinning later holds the CUDA
     * driver's lock while streams run; see "the provisioner" in pipeline.c). 0: none; frames
     * are then pinned by the provisioner as they are used. */
    size_t pinned_reserve_bytes;
    /* PL_ENGINE_AUTO: start CUDA (its driver, the GPUs' contexts, the decoder contexts) on a
     * thread of its own and decode on the C decoder meanwhile (cpu_threads threads, each
     * frame in parts on the idle ones), so that the first pictures do not wait the 0.2-0.35 s
     * CUDA's start takes; once the GPUs are ready, the streams' next frames go to them (the
     * pictures are the same either way; frames stay in order). Where no GPU is usable the C
     * decoder goes on. A stream whose sink wants device pictures waits for the GPU (its
     * frames fail where none is usable). pl_create returns at once; pl_gpu_start_state says
     * where the start is, pl_startup_stats how many frames the CPU decoded meanwhile. A
     * pipeline destroyed before its GPU was ready does not wait for the start: see
     * pl_gpu_starts_pending. 0: pl_create waits for the GPUs (as PL_ENGINE_GPU always does). */
    int start_on_cpu;
} pl_config;

typedef struct pl_frame pl_frame;

/* Where a stream's frames go. deliver() gets each decoded frame (see the
 * ownership rule above); finish() (optional) is called by pl_stream_finish
 * once every frame of the stream has been delivered. refused() (optional)
 * is called in deliver()'s place and order, on the same thread, for a frame
 * the decoder refused, with the decoder's message; the frame goes back to
 * the pool when it returns (the sink does not release it).
 * rows() (optional) hears of a partial frame decoded on the GPU as it
 * arrives (see "Partial frames"): rows [0, rows[c]) of each component of
 * frame->picture[0] (host) and device_picture[0] are final where the sink
 * wants them (host rows
 * downloaded, device rows written), while later rows are still arriving.
 * Called on the decoder's thread, between the frame's data and at least
 * every 50 us while rows are on their way, with growing rows; not for
 * the last rows (deliver() says the picture is whole). The frame is the
 * pipeline's until deliver(): read its rows there and then, copy what is
 * needed, keep no pointer. It may come before the previous frame's
 * deliver(), and for a frame that is then dropped (its source gave up on
 * it) or refused (the decoder found bad data after those rows). */
typedef struct pl_sink {
    void (*deliver)(void *ctx, pl_frame *frame);
    void (*finish)(void *ctx);
    void *ctx;
    pl_placement placement;
    void (*refused)(void *ctx, const pl_frame *frame, const char *why);
    void (*rows)(void *ctx, const pl_frame *frame, const int rows[XSF_MAX_COMPONENTS]);
    /* Frames the sink may hold at once after their delivery (a writer's threads and its
     * queue; 0: it lets each go before the next; at most 64 count): the stream's pool gets
     * that many frames more (pl_stream_config.frames 0), so that what the sink holds is not
     * taken from the frames that absorb bursts and feed the decoders, and the GPU engine's
     * provisioner keeps that many more pinned pictures ready, so that a decoder never pins
     * one on its way to a delivery (a UHD picture is 33 MB: pinned in the middle of a run
     * it stalled the stream by 23 ms, BENCHMARKS.md). */
    unsigned holds;
} pl_sink;

typedef struct pl_stream_config {
    const char *name; /* for messages ("recv 239.1.1.1:5004") */
    pl_backpressure backpressure;
    unsigned frames;         /* frames in the pool; 0: PL_DROP_OLDEST 16 (bursts; more only queue
                                latency), with the CPU engine 2 x its threads + 4 where that is
                                more; PL_BLOCK 2 x decoders + 2; either plus the
                                sink's holds */
    size_t codestream_bytes; /* the frames' codestream size where known (every frame gets a
                                buffer of it before the first packet); 0 = 1 MiB at first,
                                then the first frame's size */
    /* The frames the stream will carry where the source knows (a file's count, at most the
     * frames asked for); 0 = not known. A stream of few frames gets no more frames in its
     * pool than that, and its GPU keeps no more pictures pinned ahead than its streams'
     * frames, when every stream of that GPU says how many: a short file pins, and unpins
     * at the end, only what it uses. */
    unsigned expected_frames;
    size_t max_frame_bytes; /* the most a codestream buffer may grow to (pl_frame_reserve
                               fails past it); 0 = no limit. The stream's pool then holds
                               at most frames x max_frame_bytes (pl_stream_stats.pool_bytes) */
    pl_sink sink;
    /* The stream's codec, by name ("jpeg-xs", "bpc-paco": xsf_codec_find); NULL: the first
     * frame's codestream says (xsf_codec_probe), and the stream keeps that codec. */
    const char *codec;
    /* Settings of the codec's decoders (xsf_codec.params_set), the caller's until the stream
     * is removed; NULL for none. */
    const void *codec_params;
    /* Optional: one CSV line per delivered frame, written before deliver() (PL_FRAME_LOG_HEADER
     * names the fields; times are pl_now_ns(), 0 where a stage did not happen). Several
     * streams may share one file. */
    FILE *frame_log;
    /* The frames' RTP timestamps are their capture instants on the plant's clock (ST
     * 2110-10: TAI, 90 kHz from the epoch) and this host's clock is locked to the same
     * (PTP): each frame's capture-to-picture latency is measured (latency_capture,
     * pl_times.capture). */
    int capture_clock;
    /* The picture request: the pixel format of the stream's pictures (xsf_picture.h;
     * XSF_PLANAR_U16, 0: as decoded). Each field's picture, host and device, is the decoded
     * one in that format (xsf_format_convert of its description's format): on the GPU the
     * decoder's last kernel writes it (no further pass over the picture), the CPU stage's
     * decoder converts its own planes with xsf_picture_convert; the picture pools hold
     * pictures of the format's bytes. A frame the format does not apply to (an R'G'B'
     * codestream asked for v210, chroma that does not resample to the format's, a codec
     * whose decoders write planar 16-bit only) is refused with the reason
     * (PL_DROP_DECODE, pl_stream_stats.last_error). Interlaced frames: each field is
     * converted alone (a 4:2:0 format's chroma from the field's own rows). */
    xsf_container pix_fmt;
    /* The colour that conversion takes (the matrix and range of the R'G'B' formats, whether
     * the source is Y'CbCr), where its source is above the codestream's (the SDP's, the
     * user's): else each frame's own (xsf_codec_frame.colour). The pictures carry
     * xsf_colour_convert's result. */
    xsf_colour pix_colour;
} pl_stream_config;

#define PL_FRAME_LOG_HEADER                                                                        \
    "stream,index,rtp_timestamp,codestream_bytes,first_packet_ns,last_packet_ns,queued_ns,"        \
    "decode_start_ns,device_ready_ns,host_ready_ns,delivered_ns,whole_ns,final_start_ns,"          \
    "capture_ns"

typedef struct pl_times {
    uint64_t first_packet; /* first packet (or byte read) of the frame */
    uint64_t last_packet;  /* last packet: the frame is whole */
    uint64_t queued;       /* submitted to the pipeline */
    uint64_t decode_start; /* taken by a decoder */
    uint64_t device_ready; /* picture in device memory (GPU engine) */
    uint64_t host_ready;   /* picture in host memory */
    uint64_t delivered;    /* handed to the sink */
    uint64_t whole;        /* the whole frame in the pipeline's hands (pl_frame_submit) */
    uint64_t final_start;  /* the decoder began its last step: the frame was whole (a partial
                              frame's last slices and rows; decode_start for the others) */
    uint64_t capture;      /* the frame's capture instant, its RTP timestamp's (streams with
                              capture_clock; set at delivery): the timestamp read on CLOCK_TAI
                              against its last packet's arrival (rtp_tai_unwrap_ns), less the
                              TAI offset; 0: not known */
} pl_times;

struct pl_frame {
    int stream;     /* id from pl_stream_add */
    uint64_t index; /* per stream, from 0, in submission order */
    /* The codestream buffer (pinned with the GPU engine): the source writes
     * into buffer[0..capacity) and points codestream into it. An interlaced
     * frame holds both fields' codestreams, one after the other. */
    uint8_t *buffer;
    size_t capacity;
    const uint8_t *codestream;
    size_t codestream_bytes;
    int fields; /* 1 progressive; 2 two fields (field_bytes[0] + field_bytes[1]) */
    size_t field_bytes[2];
    uint32_t rtp_timestamp; /* when has_rtp_timestamp */
    int has_rtp_timestamp;
    pl_times t;
    /* Each field's codestream as its codec describes it (the picture it decodes to, its
     * colour, the parsed header): desc[k] is valid once bit k of `described` is set, by the
     * source (pl_frame_set_header, before submitting) or else by the decode stage. */
    xsf_codec_frame desc[PL_MAX_FIELDS];
    unsigned described;
    /* Filled by the decode stage where the sink wants them: field k's picture in host
     * memory (pinned with the GPU engine) and in device memory (on its GPU); fmt.nc 0 where
     * not asked for. Views of the pipeline's pools (ref NULL): valid until pl_frame_release.
     * Their colour is the codestream's (desc[k].colour), props.index the frame's index. */
    xsf_picture picture[PL_MAX_FIELDS];
    xsf_picture device_picture[PL_MAX_FIELDS];
    /* Free for the source and the sink (e.g. a frame number from a file). */
    uint64_t user;
};

/* Pinned host memory of the process (the GPU engine's frames and pictures):
 * what pinning and unpinning cost, which holds the CUDA driver's lock
 * (durations on the monotonic clock). */
typedef struct pl_pin_stats {
    uint64_t pins, pin_bytes, pin_ns, pin_ns_max;
    uint64_t unpins, unpin_ns, unpin_ns_max;
    uint64_t pinned_bytes; /* now */
    /* The reserve pinned at pl_create (pl_config.pinned_reserve_bytes): its size, what
     * buffers carved from it hold now, and buffers that found no room in it. */
    uint64_t reserve_bytes, reserve_used, reserve_misses;
} pl_pin_stats;
void pl_pin_stats_get(pl_pin_stats *out);

xsf_status pl_create(pl_pipeline **p, const pl_config *cfg, xsf_error *err);
/* Waits for every submitted frame to be delivered, stops the threads and
 * frees everything. Sinks must have released their frames. */
void pl_destroy(pl_pipeline *p);

/* Where a pipeline's start went, and its end: durations on the monotonic
 * clock (xsf_clock_mono_ns), 0 where a phase did not happen (the CPU engine
 * has no CUDA phases). pl_create brings its GPUs up in parallel, one thread
 * each (its context, its kernels, its decoder contexts), so total_ns is about
 * the slowest GPU's ready_ns, not the sum. */
typedef struct pl_gpu_startup {
    int device;           /* its CUDA device id */
    uint64_t context_ns;  /* its CUDA context made (the first call that needs one) */
    uint64_t modules_ns;  /* its first decoder context: the default codec's kernels loaded (its
                             gpu_create asks for their attributes, which loads them) and that
                             context made */
    uint64_t decoders_ns; /* its other decoder contexts (CUDA streams, the codec's gpu_create) */
    uint64_t ready_ns;    /* from pl_create's call to this GPU ready */
} pl_gpu_startup;

typedef struct pl_startup_stats {
    uint64_t total_ns;    /* pl_create, from its call to its return */
    uint64_t driver_ns;   /* the CUDA driver's start: pl_create's first runtime call (the
                             caller's device saved, which runs cuInit), the device count and
                             the codec's check of the GPU; 0 with the CPU engine, which never
                             starts CUDA */
    uint64_t reserve_ns;  /* pinning the reserve (pl_config.pinned_reserve_bytes) */
    uint64_t decoders_ns; /* the CPU engine: its C decoders made */
    int ngpus;
    pl_gpu_startup gpu[PL_MAX_GPUS];
    /* The first frame a decoder context takes: its pictures laid out (pool buffers allocated,
     * pinned) and, on the GPU, the decoder's enqueue call, in which a context configures
     * itself for a new format (device buffers, plans); host time, the decode itself not
     * waited for. first_setup_ns is the pipeline's first frame's, first_setup_max_ns the
     * longest of any context's first frame's; 0 before the first frame. */
    uint64_t first_setup_ns, first_setup_max_ns;
    uint64_t first_picture_ns; /* from pl_create's call to the first frame delivered; 0 before */
    uint64_t teardown_ns;      /* pl_destroy_stats: the teardown; 0 elsewhere */
    /* pl_config.start_on_cpu: */
    int gpu_start;               /* pl_gpu_start, as it was when these were taken */
    int gpu_start_abandoned;     /* the pipeline was destroyed before its GPUs were ready */
    uint64_t gpu_ready_ns;       /* from pl_create's call to the GPUs taking over; 0 before */
    uint64_t cpu_frames;         /* frames the C decoder decoded while the GPUs started */
    unsigned cpu_threads;        /* its threads */
    uint64_t cpu_parts_helped;   /* parts of frames that idle C decoder threads took (the
                                    frame's own thread took the rest) */
    unsigned cpu_frames_at_once; /* the most frames of one stream on the C decoder at once
                                    while the GPUs started (1: a frame at a time, in parts) */
    char gpu_error[160];         /* PL_GPU_START_FAILED: why */
} pl_startup_stats;

/* Where a pipeline's GPU start is (pl_config.start_on_cpu). */
typedef enum pl_gpu_start {
    PL_GPU_START_NONE = 0, /* the CPU engine, or pl_create brought the GPUs up itself */
    PL_GPU_START_RUNNING,  /* on its thread; the C decoder decodes meanwhile */
    PL_GPU_START_READY,    /* the GPUs decode */
    PL_GPU_START_FAILED,   /* no usable GPU: the C decoder goes on (pl_startup_stats.gpu_error) */
} pl_gpu_start;
pl_gpu_start pl_gpu_start_state(pl_pipeline *p);
/* GPU starts of destroyed pipelines that are still under way in this process (pl_destroy
 * leaves a start that is not done to its thread, which frees what it made when its CUDA
 * calls return). Where this is not 0, the process should end with _exit(status) once its
 * files are flushed and closed (fflush(NULL)), not with exit() or a return from main:
 * exit() runs the CUDA runtime's teardown handlers while that thread is inside the
 * driver's start (cuInit, the context's creation), which may wait for the start to end
 * (the time the process meant to save) or free what the thread is using. _exit leaves
 * the half-made context to the kernel, as at any process end. The library never ends
 * the process itself. */
int pl_gpu_starts_pending(void);

/* The start-up figures so far (any thread). */
void pl_startup_get(pl_pipeline *p, pl_startup_stats *s);
/* The figures as one line of text, the phases that happened in milliseconds ("CUDA driver
 * 95.1 ms; GPU 0: context 120.4 ms, kernels 14.9 ms, 2 more decoder contexts 3.1 ms, ready at
 * 251.0 ms; ...; teardown 20.3 ms"), into out[cap]; returns out. */
const char *pl_startup_format(const pl_startup_stats *s, char *out, size_t cap);
/* pl_destroy, with the start-up figures and the teardown's duration in *s (NULL: none). */
void pl_destroy_stats(pl_pipeline *p, pl_startup_stats *s);
/* "GPU: 2 x NVIDIA H100 80GB HBM3, 3 contexts each" or "CPU: 16 threads (no GPU: ...)". */
const char *pl_describe(const pl_pipeline *p);
int pl_uses_gpu(const pl_pipeline *p);

xsf_status pl_stream_add(pl_pipeline *p, const pl_stream_config *sc, int *stream, xsf_error *err);
/* Blocks until every frame of the stream submitted so far has been
 * delivered or dropped, then calls the sink's finish(). */
void pl_stream_finish(pl_pipeline *p, int stream);
/* Drops what the stream has in flight (a flushing seek, a stop): frames
 * waiting for a decoder go back to the pool at once, frames being decoded
 * when they are done; neither is delivered nor counted as a drop. Blocks
 * until none is left and a deliver() or refused() under way has returned
 * (so it must not be called from inside them). Frames already delivered
 * stay the sink's. The stream then takes new frames as before. Call it
 * from the stream's source thread (not while it is between acquire and
 * submit). */
void pl_stream_flush(pl_pipeline *p, int stream);

/* A free frame of `stream` whose buffer holds at least min_bytes (NULL: see
 * the backpressure policy; with PL_BLOCK it waits). Its times, index and
 * fields are reset. */
pl_frame *pl_frame_acquire(pl_pipeline *p, int stream, size_t min_bytes);
/* Grows frame->buffer to at least `bytes`, keeping its first `keep` bytes
 * (allocates; only when a stream's frames grow). */
xsf_status pl_frame_reserve(pl_pipeline *p, pl_frame *frame, size_t bytes, size_t keep,
                            xsf_error *err);
/* Hands a filled frame (codestream, fields, times) to the decode stage; for
 * a partial frame: it is whole now (codestream_bytes, t.last_packet set). */
void pl_frame_submit(pl_pipeline *p, pl_frame *frame);
/* Hands over a frame before it is whole (see "Partial frames" above):
 * codestream points into the buffer, codestream_bytes is the complete
 * prefix so far (at least the header, for the GPU to start), t.first_packet
 * set; progressive (fields 1). */
void pl_frame_submit_partial(pl_pipeline *p, pl_frame *frame);
/* The complete prefix of a partial frame grew to `complete_bytes` (smaller
 * values are ignored). Cheap: wakes the decoder only where one waits. */
void pl_frame_progress(pl_pipeline *p, pl_frame *frame, size_t complete_bytes);
/* A partial frame that will never be whole: dropped and counted for
 * `reason` (PL_DROP_REASONS: not counted, nor in `submitted`: the source
 * goes on with the same frame in a larger buffer), its buffer back to the pool once no
 * decoder reads it. Also takes an acquired frame never submitted (then like
 * pl_frame_discard, but counted). A frame already whole is left alone. */
void pl_frame_abort(pl_pipeline *p, pl_frame *frame, pl_drop_reason reason);
/* The header hook: the source parsed field `field`'s header already, with the stream's
 * codec's own parser (`parsed`, `size` bytes: e.g. the RTP receiver's xs_header), and
 * hands it over so that nothing parses it again (xsf_codec.describe). Between acquire
 * and submit (or submit_partial). XSF_ERR_ARG where the stream has no codec yet or the
 * codec does not take that header. */
xsf_status pl_frame_set_header(pl_pipeline *p, pl_frame *frame, int field, const void *parsed,
                               size_t size, xsf_error *err);
/* The same with a description the source made itself (xsf_codec.parse_header). */
void pl_frame_set_description(pl_frame *frame, int field, const xsf_codec_frame *desc);
/* The stream's codec: the configuration's, or its first frame's; NULL until known. */
const xsf_codec *pl_stream_codec(pl_pipeline *p, int stream);
/* Gives back an acquired frame unused (not counted). */
void pl_frame_discard(pl_pipeline *p, pl_frame *frame);
/* Counts a frame that the source dropped itself for `reason`. */
void pl_count_drop(pl_pipeline *p, int stream, pl_drop_reason reason);
/* The sink is done with a delivered frame (any thread). */
void pl_frame_release(pl_frame *frame);

/* Latency in microseconds from the last packet of a frame to its picture
 * being ready where the sink wants it (the host when it wants both). */
typedef struct pl_latency {
    uint64_t count;
    double p50_us, p99_us, max_us, mean_us;
} pl_latency;

typedef struct pl_stream_stats {
    uint64_t submitted;
    uint64_t delivered;            /* frames whole, decoded, handed to the sink */
    uint64_t delivered_interlaced; /* of those, frames of two fields */
    uint64_t dropped[PL_DROP_REASONS];
    uint64_t dropped_total;
    uint64_t codestream_bytes;                      /* of the delivered frames */
    uint64_t first_delivered_ns, last_delivered_ns; /* pl_now_ns of the first and last delivery */
    uint64_t max_delivery_gap_ns; /* longest time between two consecutive deliveries */
    uint64_t max_stall_ns;        /* the receiver's longest stall: such a gap less what the
                                     two frames explain, the larger of their RTP timestamp
                                     step (frames dropped in between) and the step between
                                     their last packets' arrivals (a late sender) */
    size_t pool_bytes;            /* codestream buffers of the stream's frames, now */
    size_t pool_pinned_bytes;     /* of which pinned (GPU engine: by the provisioner) */
    unsigned frames;              /* frames in the stream's pool */
    size_t max_frame_bytes;       /* the stream's limit (0: none) */
    double fps;                   /* (delivered - 1) / (last - first delivery); 0 below 2 frames */
    uint64_t first_picture_ns;    /* the stream's first picture: from its source's first frame taken
                                     (pl_frame_acquire: an RTP source's first packet) to the
                                     first delivery (packet clock); 0 before it */
    pl_latency latency;           /* last packet -> picture ready */
    pl_latency latency_first;     /* first packet -> picture ready */
    pl_latency latency_device;    /* last packet -> picture in device memory (GPU engine) */
    pl_latency latency_host;      /* last packet -> picture in host memory */
    pl_latency latency_capture;   /* capture_clock: capture instant (the RTP timestamp's) ->
                                     picture ready (as latency) */
    uint64_t capture_after_picture; /* capture_clock: frames whose capture instant came after
                                       their picture (the clocks disagree: not counted) */
    uint64_t partial_submitted;     /* frames handed over before they were whole */
    pl_latency decode;              /* decoder taken -> picture ready */
    pl_latency wait;                /* last packet -> decoder taken (whole frames: the receiver's
                                       hand-over, the queue and the decoder thread's wake-up) */
    /* Partial frames decoded on the GPU as they arrive: the host's time of each step before
     * the last (the slices that came, their rows: enqueued), of the last step's enqueueing
     * (after the last packet), and of the wait for the GPU to run what was enqueued (the
     * last step, and any earlier step still queued). A step of milliseconds is a blocking
     * call (the CUDA driver's lock, an allocation); a long wait is the GPU's queue. */
    uint64_t steps; /* steps launched (steps / partial_submitted: a frame's) */
    pl_latency step, final_enqueue, final_sync;
    /* Buffers allocated on a frame's way (a codestream buffer grown or first given to a
     * frame by its source, a picture its decoder found no pooled buffer of the size for):
     * how many, and the longest (us). In the steady state none: the pools hold what the
     * stream needs (a GPU engine's buffers pinned, or carved from the reserve). */
    uint64_t allocs;
    double alloc_max_us;
    /* The histograms and the counts above (steps, allocs) start again with
     * pl_stream_latency_reset: after a warm-up, they are the steady state's. */
    char last_error[256]; /* the decoder's last refusal, "" when none */
} pl_stream_stats;

void pl_stream_stats_get(pl_pipeline *p, int stream, pl_stream_stats *s);
/* Empties the stream's latency histograms and its counts of steps and
 * allocations (the counts of frames stay): a measurement of the steady state
 * leaves the start-up out. */
void pl_stream_latency_reset(pl_pipeline *p, int stream);

/* Takes a stream out of a running pipeline, leaving the others alone: its
 * source must be done with it (pl_rtp_source_destroy: an RTP source's
 * depacketizer holds a frame until then; pl_jxs_source_run returned). Blocks
 * until every frame submitted has been delivered or dropped and the sink
 * has released every frame, calls the sink's finish(), frees the stream's
 * frames; its id is then free for pl_stream_add (at most PL_MAX_STREAMS
 * streams at once, any number over a pipeline's life). `final` (may be
 * NULL) gets its statistics once every frame has left; after this they are
 * gone. Unknown or removed ids are ignored. */
void pl_stream_remove(pl_pipeline *p, int stream, pl_stream_stats *final);

/* ------------------------------------------------------------------ */
/* Sinks                                                                */

/* The file writer: frames are written on a thread of its own, in order
 * (.yuv into a regular file: on four threads, each frame copied into a
 * shared mapping of its place in the file, the file's space claimed first so
 * that a full disk is an error, not a SIGBUS; into a pipe or a device: in
 * order, on one thread). .jxs output
 * takes the codestreams (both fields' of an interlaced frame) and decodes
 * nothing; the picture formats take host pictures, an interlaced frame's
 * two fields woven into one picture (Y4M: It, top field first; a pixel
 * format other than planar16 plane by plane, row by row). */
/* PL_WRITE_MD5: a text file, PL_WRITE_MD5_HEADER then one line a frame: its index, its RTP
 * timestamp (0 without one) and the MD5 of its picture in .yuv layout (two fields woven), so
 * that each delivered picture can be compared with the C decoder's of the frame it stands
 * for, at the cost of an MD5 (no picture is kept). Several frames are hashed at once (on 3/8
 * of the cores, 4 to 8 threads; the sink's holds are those and 2), so the lines come in the
 * order their MD5s are done (nearly the frames' order: sort by index). */
typedef enum pl_write_kind { PL_WRITE_PICTURE = 0, PL_WRITE_JXS, PL_WRITE_MD5 } pl_write_kind;
#define PL_WRITE_MD5_HEADER "index,rtp_timestamp,md5"
typedef struct pl_writer_options {
    pl_write_kind kind;
    /* PL_WRITE_PICTURE: format, colour, fps, frame files. A colour with source
     * XSF_COLOUR_DEFAULT is the codestream's: R'G'B' for the reversible colour
     * transform (Cpih 1), else BT.709 narrow range. */
    imgio_write_options image;
    int md5; /* keep the MD5 of what is written (.yuv layout, or the codestreams) */
    /* PL_WRITE_PICTURE: the pixel format written (xsf_picture.h). A planar
     * 16-bit picture (what the decoders give today) is converted on the
     * writer's thread by xsf_picture_convert, with the colour above (else the
     * picture's or the codestream's); a picture that comes in another
     * container is written as it is. XSF_PLANAR_U16 (0): as decoded. */
    xsf_container pix_fmt;
} pl_writer_options;
typedef struct pl_writer pl_writer;
/* path NULL: write nothing (with md5: only the digest). The file is created
 * by the first frame (pictures) or now (.jxs). */
xsf_status pl_writer_open(pl_writer **w, const char *path, const pl_writer_options *opt,
                          xsf_error *err);
pl_sink pl_writer_sink(pl_writer *w);
uint64_t pl_writer_frames(pl_writer *w);
uint64_t pl_writer_bytes(pl_writer *w);
const char *pl_writer_last_path(pl_writer *w);
/* The shape of the first frame written (as written: two fields woven), its
 * planes NULL; nc 0 before any. */
void pl_writer_shape(pl_writer *w, xsf_picture *shape);
/* XSF_OK, or the first failure (the writer then releases frames unwritten). */
xsf_status pl_writer_status(pl_writer *w, xsf_error *err);
/* After pl_stream_finish: the digest of everything written. */
void pl_writer_md5(pl_writer *w, char hex[33]);
/* Stops the thread, flushes and closes; reports the first failure. */
xsf_status pl_writer_close(pl_writer *w, xsf_error *err);
/* pl_writer_close after a failure, and the files it created removed (the output, or each
 * frame file so far; standard output, devices and FIFOs stay): nothing half-written is
 * left. NULL: nothing. */
void pl_writer_discard(pl_writer *w);

/* Releases every frame at once: pictures left where `placement` puts them. */
pl_sink pl_null_sink(pl_placement placement);

/* ------------------------------------------------------------------ */
/* Sources                                                              */

/* A file of codestreams one after the other (.jxs, .bpc): one frame each,
 * read into the stream's frames (PL_BLOCK: nothing is dropped), split by the
 * stream's codec (xsf_codec.codestream_size; a stream without one yet takes
 * the codec that probes the file's first bytes). Runs in the calling thread and
 * returns at the end of the file (or at max_frames, or at the first
 * codestream whose structure does not parse: *err says where). Each frame's
 * `user` is its number in the file. interlaced: the codestreams are fields,
 * two to a frame (a file ending after a first field is an error). */
xsf_status pl_jxs_source_run(pl_pipeline *p, int stream, const uint8_t *data, size_t len,
                             int interlaced, uint64_t max_frames, uint64_t *frames, xsf_error *err);

/* An RTP stream (ST 2110-22 / RFC 9134) into the pipeline, received on a
 * thread of its own: a UDP socket (unicast or multicast), a .pcap/.pcapng
 * file, or a live capture. The depacketizer assembles each frame straight
 * into a pipeline frame (pinned memory with the GPU engine). */
/* PL_RTP_PUSH: no socket and no thread; the caller hands packets over with
 * pl_rtp_source_push (tests, fuzzing, packets that arrive by other means). */
typedef enum pl_rtp_kind {
    PL_RTP_SOCKET = 0,
    PL_RTP_PCAP,
    PL_RTP_CAPTURE,
    PL_RTP_PUSH
} pl_rtp_kind;
typedef struct pl_rtp_config {
    pl_rtp_kind kind;
    const char *transport; /* a receive transport by name (rtp_transport_find: "udp", "pcap",
                              "capture", ...); NULL: the kind's (PL_RTP_PUSH: none) */
    rtp_udp_config udp;    /* PL_RTP_SOCKET */
    const char *path;      /* PL_RTP_PCAP: the file; PL_RTP_CAPTURE: the interface */
    const char *filter;    /* pcap/capture BPF filter (NULL: "udp") */
    rtp_depacketizer_config depacketizer; /* on_frame, ctx and the buffer calls are set here */
    uint64_t max_frames;                  /* stop after this many whole frames (0: no limit) */
    double duration_s;                    /* stop after this long (0: no limit) */
    double timeout_s; /* sockets and captures: stop after this long without a packet, once one
                         came (0: never) */
    double wait_s;    /* sockets and captures: stop after this long without a first packet
                         (0: timeout_s's value; < 0: never) */
    int interlaced;   /* pair fields into frames (PL_DROP_FIELD for a lone field) */
    FILE *packet_log; /* one CSV line of header fields per packet, or NULL */
    int slices;       /* sub-frame latency: hand frames over once their header is in and
                         report their complete prefix as packets arrive (progressive
                         frames, T=1; the GPU decodes slices as they come) */
    int copy_threads; /* PL_RTP_PCAP of a classic .pcap file: threads that copy the
                         payloads into frames while the receiving thread reads the
                         headers (0: one per core beyond two, at most 4; -1: none,
                         the receiving thread copies each frame's payloads once its
                         last packet is read) */
    /* legs.n >= 2: the stream's legs (SMPTE ST 2022-7), each a transport of the kind's
     * (its udp, path, filter; the fields above are then unused), merged before the
     * depacketizer (the "dup:" transports, rtp_merge.h) */
    rtp_legs_config legs;
} pl_rtp_config;
typedef struct pl_rtp_source pl_rtp_source;
/* Opens the socket or capture (errors here: address in use, no such file).
 * Open sockets before creating the pipeline: packets wait in the socket
 * buffer while the GPU starts. */
xsf_status pl_rtp_source_open(pl_rtp_source **s, const pl_rtp_config *cfg, xsf_error *err);
/* Starts the receiving thread, feeding `stream` of `p`. */
xsf_status pl_rtp_source_start(pl_rtp_source *s, pl_pipeline *p, int stream, xsf_error *err);
/* The local UDP port of a socket source (after binding port 0), else 0. */
uint16_t pl_rtp_source_local_port(const pl_rtp_source *s);
/* A socket source's receive buffer as the kernel granted it (which may be less than
 * udp.buffer_bytes asked: net.core.rmem_max), else 0. */
size_t pl_rtp_source_buffer_bytes(const pl_rtp_source *s);
/* PL_RTP_PUSH: one UDP payload received at arrival_ns (pl_now_ns's clock,
 * 0: now), and the end of the input (gives up on holes, finishes the frame
 * under way). From one thread. */
void pl_rtp_source_push(pl_rtp_source *s, const uint8_t *pkt, size_t len, uint64_t arrival_ns);
void pl_rtp_source_flush(pl_rtp_source *s);
/* Asks the thread to stop (any thread, also from a signal-free main loop). */
void pl_rtp_source_stop(pl_rtp_source *s);
/* Whether the thread has ended (end of file, limits, timeout, error). */
int pl_rtp_source_done(pl_rtp_source *s);
/* A consistent copy of the receiver's statistics (taken every few ms). */
void pl_rtp_source_stats(pl_rtp_source *s, rtp_stats *st, uint64_t *kernel_drops);
/* A stream of several legs: 1 and a copy of the merge's statistics (taken with the
 * receiver's); 0 for one leg. */
int pl_rtp_source_merge_stats(pl_rtp_source *s, rtp_merge_stats *st);
/* Waits for the thread, flushes the depacketizer, closes; reports a
 * receive error if there was one. */
xsf_status pl_rtp_source_join(pl_rtp_source *s, xsf_error *err);
void pl_rtp_source_destroy(pl_rtp_source *s);

/* The clock of pl_times: the packet clock (xsf_clock_wall_ns, CLOCK_REALTIME,
 * ns). For intervals and deadlines use the monotonic clock instead
 * (xsf_clock_mono_ns). */
uint64_t pl_now_ns(void);

#ifdef __cplusplus
}
#endif
#endif
