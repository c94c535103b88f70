/* The pipeline's shared state, for its own files: pipeline.c (creation,
 * teardown), pl_pool.c (picture pools and the provisioner), pl_decode.c
 * (the decode threads), pl_stream.c (streams, frames, the in-order
 * hand-over). One mutex (pl_pipeline.mu) guards the queues, pools and
 * counters; it is never held while decoding or inside a sink. Internal to
 * pipeline/. */
#ifndef XSF_PIPELINE_PL_INTERNAL_H
#define XSF_PIPELINE_PL_INTERNAL_H

#include <pthread.h>

#include "pipeline.h"
#include "pl_hist.h"
#include "xsf_codecs.h"

enum slot_state { SLOT_FREE, SLOT_FILLING, SLOT_QUEUED, SLOT_DECODING, SLOT_DONE, SLOT_DELIVERED };

/* Picture memory, pooled per decode queue (GPU) rather than per frame: a
 * frame borrows a buffer for each picture when it is decoded and gives it
 * back when it is released or dropped, so the pictures allocated are as many
 * as are in use at once (decoders plus what sinks hold), not one per frame
 * of every stream. A buffer that is too small for a new picture size is
 * replaced (the only allocation after start). */
typedef struct pl_pool_buffer {
    struct pl_pool_buffer *next;
    uint8_t *ptr;
    size_t bytes;
    int device; /* device memory, else host (pinned with the GPU engine) */
    /* Its memory was allocated by the decoder that borrowed it (the pool had none of the
     * size): how long that took; 0 when it came from the pool. Read and cleared by
     * pl_slot_picture, which counts it against the frame's stream. */
    uint64_t alloc_ns;
} pl_pool_buffer;

typedef struct pl_slot {
    pl_frame f; /* first: a pl_frame pointer is its slot's */
    pl_pipeline *p;
    struct pl_slot *free_next;
    struct pl_slot *work_next;
    struct pl_slot *order_prev, *order_next;
    enum slot_state state;
    int failed;
    int discard; /* pl_stream_flush: back to the pool when done, not delivered */
    int pinned;
    int queue; /* the stream's decode queue, whose pools lend the pictures */
    /* The pool buffers under f.picture[k] (host) and f.device_picture[k], while decoded. */
    pl_pool_buffer *host[PL_MAX_FIELDS];
    pl_pool_buffer *dev[PL_MAX_FIELDS];
    char error[256]; /* the decoder's message when failed */
    /* A partial frame (pl_frame_submit_partial): its source still fills it. */
    int partial; /* submitted, not yet whole */
    int aborted; /* pl_frame_abort while a decoder held it */
    /* waiting, avail and wake_at are written under p->mu and read without it by
     * pl_frame_progress (atomically, sequentially consistent: the source stores avail then
     * loads waiting, the decoder stores waiting then loads avail, so one of them sees the
     * other's store and no wake-up is lost); the source takes p->mu only to wake a decoder
     * that waits for what arrived. */
    int waiting;    /* a decoder sleeps on cv for more of it */
    size_t avail;   /* the complete prefix of the codestream */
    size_t wake_at; /* the waiting decoder wants to be woken once avail reaches this */
    pthread_cond_t cv;
} pl_slot;

typedef struct pl_queue {
    pl_pipeline *p;
    unsigned index;
    pl_slot *head, *tail;
    pthread_cond_t cv;
    pl_pool_buffer *free_host, *free_dev; /* picture pools */
    unsigned partial_active;              /* decoders of the queue on a partial frame (p->mu) */
    /* Where the decoders' pictures come from (pl_pool.c): the pools above,
     * as an xsf_picture allocator. alloc() without p->mu, release() with
     * it (a frame gives its pictures back in free_slot). */
    xsf_picture_allocator alloc;
    /* What the provisioner keeps ready: pictures of the largest size a
     * decoder of the queue has asked for, as many as may be in use at once
     * (the queue's decoders and what the sinks hold), counting the buffers
     * lent out. */
    size_t host_bytes, dev_bytes;
    unsigned nhost, ndev; /* picture buffers in existence, pooled or lent */
} pl_queue;

/* Memory given up while frames were being received (a codestream buffer
 * that grew): unpinned by the provisioner, not by the receiving thread. */
typedef struct pl_grave {
    struct pl_grave *next;
    void *ptr;
} pl_grave;

typedef struct pl_stream {
    int used;
    char name[96];
    pl_sink sink;
    pl_backpressure backpressure;
    const xsf_codec *codec; /* NULL until the first frame says (p->mu) */
    const void *codec_params;
    int queue;             /* index into p->queues: the GPU, or 0 for the CPU */
    unsigned cpu_decoding; /* its frames on the C decoder while the GPU starts (p->mu) */
    pl_slot *slots;
    unsigned nslots;
    pl_slot *free;
    pl_slot *order_head, *order_tail; /* submitted, not yet delivered or dropped */
    int emitting;
    uint64_t next_index;
    uint64_t submitted, delivered, delivered_interlaced, bytes;
    uint64_t first_delivered, last_delivered;
    uint64_t added;              /* pl_now_ns at pl_stream_add */
    uint64_t first_acquired;     /* pl_now_ns of the source's first pl_frame_acquire (p->mu) */
    uint64_t first_picture;      /* pl_stream_stats.first_picture_ns, once known */
    uint64_t max_gap, max_stall; /* between consecutive deliveries (see pl_stream_stats) */
    uint32_t last_rtp_ts;
    int last_has_rtp_ts;
    uint64_t last_last_packet; /* t.last_packet of the frame delivered last */
    size_t max_frame_bytes;    /* 0: no limit */
    unsigned expected_frames;  /* pl_stream_config's (0: not known) */
    size_t slot_bytes;         /* the codestream buffer a frame gets when it is taken: the
                                  largest any of the stream's frames has needed (p->mu) */
    size_t pool_bytes;         /* codestream buffers of the stream's frames */
    size_t pool_pinned_bytes;  /* of which pinned */
    uint64_t dropped[PL_DROP_REASONS];
    uint64_t partial_submitted;
    pl_hist *lat, *lat_first, *dec, *wait, *lat_dev, *lat_host, *lat_capture;
    /* The GPU's steps of the stream's partial frames (pl_stream_stats.step and after). */
    pl_hist *step, *final_enqueue, *final_sync;
    /* The histograms above are guarded by hist_mu, not p->mu: a summary walks thousands
     * of buckets, and every stream's receiving thread and decoder waits for p->mu. */
    pthread_mutex_t hist_mu;
    uint64_t steps;                /* progressive steps launched (hist_mu) */
    uint64_t allocs, alloc_ns_max; /* since the last latency reset (p->mu): buffers
                                      allocated for its frames on their way */
    char last_error[256];
    FILE *frame_log;
    int capture_clock;
    int64_t tai_offset; /* CLOCK_TAI - CLOCK_REALTIME when the stream was added */
    uint64_t capture_after_picture;
    xsf_container pix_fmt; /* pl_stream_config's picture request */
    xsf_colour pix_colour;
    unsigned holds; /* the frames its sink keeps after delivery (pl_sink.holds, at most
                       PL_HOLDS_MAX): in its pool beyond the default, pinned ahead */
} pl_stream;

/* The most frames a sink's holds count for (pl_sink.holds). */
#define PL_HOLDS_MAX 64u

/* Marks of a partial frame's rows on a decoder's stream: events recorded
 * after the work that makes rows final, looked at while the frame arrives
 * (pl_sink.rows). */
#define PL_ROW_MARKS 8

typedef struct pl_worker {
    pl_pipeline *p;
    int queue;
    int device; /* -1: CPU */
    /* A decoder of each codec (xsf_codec_index), made on this thread by the codec's
     * first frame (the registry's first codec's at creation); NULL where it could not be. */
    void *dec[XSF_CODECS_MAX];
    int dec_tried[XSF_CODECS_MAX];
    void *cs;                      /* the CUDA stream */
    void *row_event[PL_ROW_MARKS]; /* created with the first partial frame whose sink wants rows */
    pthread_t thread;
    int started;
    int setup_seen; /* its first frame's set-up is in pl_pipeline.startup */
    xsf_parallel
        par; /* a C decoder's runner: the pipeline's idle C decoder threads (pl_decode.c) */
} pl_worker;

/* A frame's parts that a C decoder hands its runner (xsf_parallel): the decoder's own thread
 * runs them, and C decoder threads that have no frame of their own join in (pl_decode.c). */
typedef struct pl_job {
    struct pl_job *next; /* pl_pipeline.jobs (p->mu) */
    size_t n;
    xsf_pool_fn fn;
    void *ctx;
    size_t next_index; /* atomic: the next part to take */
    int threads;       /* the most workers (the caller's included) */
    int joined;        /* helpers joined so far (p->mu): worker ids 1..joined */
    int active;        /* helpers inside (p->mu) */
    pthread_cond_t done;
} pl_job;

struct pl_pipeline {
    pthread_mutex_t mu;
    pthread_cond_t progress; /* a frame freed or delivered */
    int use_gpu;
    int ngpus;
    int gpus[PL_MAX_GPUS];
    unsigned nqueues;
    pl_queue queues[PL_MAX_GPUS];
    unsigned nworkers;
    pl_worker *workers;
    int stopping;
    int nstreams;
    pl_stream streams[PL_MAX_STREAMS];
    char desc[512];
    /* The provisioner (GPU engine): a thread that pins live streams' buffers once their
     * frames are free, keeps each GPU's picture pool filled and unpins what was given up,
     * so that receiving threads never wait on the CUDA driver's lock for it (pl_pool.c). */
    pthread_t prov;
    int prov_started;
    int prov_wake;
    pthread_cond_t prov_cv;
    pl_grave *graves;
    unsigned pictures_per_queue; /* the pictures a queue keeps ready */
    int pin_refused;             /* CUDA would not pin: buffers stay as they are */
    /* Where the start went (p->mu for the first-frame and first-picture fields, which the
     * decode threads fill); created is pl_create's call (xsf_clock_mono_ns). */
    pl_startup_stats startup;
    uint64_t created;
    /* C decoders' parts under way (pl_job), for idle C decoder threads to join. */
    pl_job *jobs;
    /* The GPU engine's start on a thread of its own (PL_ENGINE_AUTO, pipeline.c): until the
     * GPUs are ready, C decoder threads (cpu_workers, on queue 0, where every stream's frames
     * go meanwhile) decode; then the streams move to their GPUs' queues and the C decoder
     * threads end. gpu_state (p->mu; read without it through pl_gpu_ready) says where it is;
     * no CUDA call is made outside the start's thread before it is PL_GPU_START_READY
     * (a second thread's call would wait for the driver's start). */
    int deferred;
    int gpu_state; /* pl_gpu_start */
    pthread_t starter;
    int starter_made;    /* the start's thread was created */
    int starter_running; /* the start's thread has not ended (p->mu) */
    int destroyed;       /* pl_destroy is done with p: the start's thread frees it (p->mu) */
    pl_config cfg;       /* the configuration, for the start's thread */
    int start_ngpus;     /* the GPUs the start brings up (its thread's until ready) */
    int start_gpus[PL_MAX_GPUS];
    char start_error[256]; /* why the start failed, "" when it did not */
    pl_worker *cpu_workers;
    unsigned ncpu_workers;
};

/* Tests: called first on the GPU start's thread (NULL: nothing), to stand for a start
 * that takes its time (no GPU here answers at once). */
extern void (*pl_test_gpu_start_hook)(void);

/* Whether CUDA may be called from any thread: a GPU engine whose start is done (always
 * where the start was not deferred). Without p->mu. */
int pl_gpu_ready(const pl_pipeline *p);

/* pipeline.c: a decoder context's first frame took `ns` to set up (pl_startup_stats). */
void pl_note_setup(pl_worker *w, uint64_t ns);

/* pl_pool.c */
void pl_pool_init(pl_pipeline *p, unsigned queue);
void pl_provision_wake_locked(pl_pipeline *p);
/* A buffer of the mapping family given up, with p->mu held: a pinned one goes to the
 * provisioner, which unpins it; anything else is returned for the caller to free
 * (outside the lock). */
void *pl_give_up_locked(pl_pipeline *p, void *ptr);
void *pl_provision_main(void *arg);
/* Lays out field `field`'s picture of format `fmt` in `memory` (XSF_MEMORY_DEVICE or the
 * host's) from the slot's queue's pools; 0, or -1 with `why` set. Without p->mu. */
int pl_slot_picture(pl_slot *s, int field, int device, const xsf_format *fmt, xsf_error *why);
/* Gives the slot's pictures back to the pools. With p->mu held. */
void pl_slot_pictures_release(pl_slot *s);
/* A codestream buffer for a frame of `st` (see pl_pool.c). */
uint8_t *pl_codestream_buffer(const pl_pipeline *p, const pl_stream *st, int pinned, size_t bytes);
/* Frees queue `queue`'s picture pools (on its GPU; the calling thread's device changes). */
void pl_pool_free(pl_pipeline *p, unsigned queue);

/* pl_decode.c */
void *pl_worker_main(void *arg);
/* The runner of a C decoder thread's parts (pl_worker.par): xsf_parallel.run. */
void pl_parallel_run(void *worker, size_t n, xsf_pool_fn fn, void *ctx);
xsf_status pl_worker_init(pl_worker *w, pl_pipeline *p, int queue, int device, xsf_error *err);
void pl_worker_free(pl_worker *w);

/* pl_stream.c */
void pl_free_slot(pl_stream *st, pl_slot *s);
/* Takes `s` off the decoders' queue `q`; `prev` is the frame before it there (NULL: s is
 * the head). With p->mu held. */
void pl_queue_unlink(pl_queue *q, pl_slot *prev, pl_slot *s);
void pl_emit(pl_pipeline *p, pl_stream *st);
void pl_stream_free(pl_stream *st);

#endif
