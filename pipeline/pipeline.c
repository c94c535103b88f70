/* The pipeline's core: frame pools, the work queues, the decode threads and
 * the in-order hand-over to the sinks. One mutex guards the queues, pools
 * and counters; it is never held while decoding or inside a sink. */
#define _POSIX_C_SOURCE 200809L

#include "pipeline.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pl_gpu.h"
#include "pl_hist.h"
#include "xsf_clock.h"

enum slot_state { SLOT_FREE, SLOT_FILLING, SLOT_QUEUED, SLOT_DECODING, SLOT_DONE, SLOT_DELIVERED };

/* Picture memory, pooled per decode queue (GPU) rather than per frame: a
 * frame borrows a buffer for its picture when it is decoded and gives it
 * back when it is released or dropped, so the pictures allocated are as many
 * as are in use at once (decoders plus what sinks hold), not one per frame
 * of every stream. A buffer that is too small for a new picture size is
 * replaced (the only allocation after start). */
typedef struct pl_picbuf {
    struct pl_picbuf *next;
    uint8_t *ptr;
    size_t bytes;
} pl_picbuf;

typedef struct pl_slot {
    pl_frame f; /* first: a pl_frame pointer is its slot's */
    pl_pipeline *p;
    struct pl_slot *free_next;
    struct pl_slot *work_next;
    struct pl_slot *order_prev, *order_next;
    enum slot_state state;
    int failed;
    int discard;      /* pl_stream_flush: back to the pool when done, not delivered */
    int pinned;
    int queue;        /* the stream's decode queue, whose pools lend the pictures */
    pl_picbuf *host;  /* picture storage (both fields), while decoded */
    pl_picbuf *dev;   /* device picture storage, on the stream's GPU */
    char error[256];  /* the decoder's message when failed */
    /* A partial frame (pl_frame_submit_partial): its source still fills it. */
    int partial;      /* submitted, not yet whole */
    int aborted;      /* pl_frame_abort while a decoder held it */
    int waiting;      /* a decoder sleeps on cv for more of it */
    size_t avail;     /* the complete prefix of the codestream */
    size_t wake_at;   /* the waiting decoder wants to be woken once avail reaches this */
    pthread_cond_t cv;
} pl_slot;

typedef struct pl_queue {
    pl_slot *head, *tail;
    pthread_cond_t cv;
    pl_picbuf *free_host, *free_dev; /* picture pools */
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
    int queue; /* index into p->queues: the GPU, or 0 for the CPU */
    pl_slot *slots;
    unsigned nslots;
    pl_slot *free;
    pl_slot *order_head, *order_tail; /* submitted, not yet delivered or dropped */
    int emitting;
    uint64_t next_index;
    uint64_t submitted, delivered, delivered_interlaced, bytes;
    uint64_t first_delivered, last_delivered;
    uint64_t max_gap, max_stall; /* between consecutive deliveries (see pl_stream_stats) */
    uint32_t last_rtp_ts;
    int last_has_rtp_ts;
    uint64_t last_last_packet; /* t.last_packet of the frame delivered last */
    size_t max_frame_bytes;    /* 0: no limit */
    size_t slot_bytes;         /* the codestream buffer a frame gets when it is taken: the
                                  largest any of the stream's frames has needed (p->mu) */
    size_t pool_bytes;         /* codestream buffers of the stream's frames */
    size_t pool_pinned_bytes;  /* of which pinned */
    uint64_t dropped[PL_DROP_REASONS];
    uint64_t partial_submitted;
    pl_hist *lat, *lat_first, *dec, *wait, *lat_dev, *lat_host;
    char last_error[256];
    FILE *frame_log;
} pl_stream;

/* Marks of a partial frame's rows on a decoder's stream: events recorded
 * after the work that makes rows final, looked at while the frame arrives
 * (pl_sink.rows). */
#define PL_ROW_MARKS 8

typedef struct pl_worker {
    pl_pipeline *p;
    int queue;
    int device; /* -1: CPU */
    xs_decoder *cpu;
    xs_gpu_decoder *gpu;
    xs_cuda_stream cs;
    void *row_event[PL_ROW_MARKS]; /* created with the first partial frame whose sink wants rows */
    pthread_t thread;
    int started;
} pl_worker;

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
     * so that receiving threads never wait on the CUDA driver's lock for it (see "the
     * provisioner" below). */
    pthread_t prov;
    int prov_started;
    int prov_wake;
    pthread_cond_t prov_cv;
    pl_grave *graves;
    unsigned pictures_per_queue; /* the pictures a queue keeps ready */
    int pin_refused;             /* CUDA would not pin: buffers stay as they are */
};

uint64_t pl_now_ns(void)
{
    return xsf_clock_wall_ns();
}

const char *pl_drop_reason_name(pl_drop_reason r)
{
    switch (r) {
    case PL_DROP_QUEUE:
        return "decoder behind (oldest waiting frame dropped)";
    case PL_DROP_NO_FRAME:
        return "no free frame";
    case PL_DROP_DECODE:
        return "decoder refused the codestream";
    case PL_DROP_FIELD:
        return "field without its sibling";
    case PL_DROP_INCOMPLETE:
        return "partial frame never completed";
    default:
        return "?";
    }
}

/* ---- decoding one frame ---- */

/* A picture's size and sampling, whatever describes it. */
typedef struct pic_shape {
    int nc;
    int width[XS_MAX_COMPONENTS], height[XS_MAX_COMPONENTS], depth[XS_MAX_COMPONENTS];
} pic_shape;

/* From the header alone, before decoding: component c is Wf/sx x Hf/sy
 * samples (21122-1 A.4.4; the header reader has checked that sx and sy
 * divide the frame). */
static void shape_from_header(pic_shape *sh, const xs_header *h)
{
    memset(sh, 0, sizeof *sh);
    sh->nc = h->nc;
    for (int c = 0; c < h->nc; c++) {
        sh->width[c] = h->wf / h->sx[c];
        sh->height[c] = h->hf / h->sy[c];
        sh->depth[c] = h->depth[c];
    }
}

static void shape_from_image(pic_shape *sh, const xs_image *img)
{
    memset(sh, 0, sizeof *sh);
    sh->nc = img->nc;
    for (int c = 0; c < img->nc; c++) {
        sh->width[c] = img->width[c];
        sh->height[c] = img->height[c];
        sh->depth[c] = img->depth[c];
    }
}

/* The GPU decoder's picture has the shape its header promised (what the
 * picture buffer was laid out for before the decode). */
static int shape_matches(const pic_shape *sh, const xs_gpu_image *gi)
{
    if (!gi || gi->nc != sh->nc)
        return 0;
    for (int c = 0; c < sh->nc; c++)
        if (gi->width[c] != sh->width[c] || gi->height[c] != sh->height[c] || gi->depth[c] != sh->depth[c])
            return 0;
    return 1;
}

static size_t picture_samples(const pic_shape *sh)
{
    size_t n = 0;
    for (int c = 0; c < sh->nc; c++)
        n += (size_t)sh->width[c] * (size_t)sh->height[c];
    return n;
}

static void provision_wake_locked(pl_pipeline *p)
{
    if (p->prov_started) {
        p->prov_wake = 1;
        pthread_cond_signal(&p->prov_cv);
    }
}

static void *give_up_locked(pl_pipeline *p, void *ptr);

/* Borrows a picture buffer of at least `bytes` from the queue's pool (host
 * or device memory), and has the provisioner keep the pool at that size. */
static int borrow(pl_pipeline *p, pl_slot *s, int device, size_t bytes)
{
    pl_queue *q = &p->queues[s->queue];
    pl_picbuf **slot_buf = device ? &s->dev : &s->host;
    pl_picbuf **pool = device ? &q->free_dev : &q->free_host;
    if (!*slot_buf) {
        pthread_mutex_lock(&p->mu);
        size_t *want = device ? &q->dev_bytes : &q->host_bytes;
        if (*want < bytes) {
            *want = bytes;
            provision_wake_locked(p);
        }
        /* The first buffer large enough, else any (it will be replaced). */
        pl_picbuf **best = NULL;
        for (pl_picbuf **it = pool; *it; it = &(*it)->next) {
            best = best ? best : it;
            if ((*it)->bytes >= bytes) {
                best = it;
                break;
            }
        }
        if (best) {
            *slot_buf = *best;
            *best = (*best)->next;
            (*slot_buf)->next = NULL;
        } else if ((*slot_buf = calloc(1, sizeof **slot_buf)) != NULL) {
            (*(device ? &q->ndev : &q->nhost))++;
        }
        pthread_mutex_unlock(&p->mu);
        if (!*slot_buf)
            return -1;
    }
    pl_picbuf *b = *slot_buf;
    if (b->bytes >= bytes)
        return 0;
    if (device) {
        pl_gpu_free(b->ptr);
        b->ptr = pl_gpu_alloc(bytes);
    } else {
        /* Pinned at once with the GPU engine: a GPU's pictures are few (its decoders' and
         * what the sinks hold), and a download into pageable memory is staged and slow. */
        pthread_mutex_lock(&p->mu);
        void *old = s->pinned ? give_up_locked(p, b->ptr) : b->ptr;
        pthread_mutex_unlock(&p->mu);
        pl_host_free(old, s->pinned);
        b->ptr = pl_host_alloc(bytes, s->pinned);
    }
    b->bytes = b->ptr ? bytes : 0;
    return b->ptr ? 0 : -1;
}

static int ensure_host(pl_pipeline *p, pl_slot *s, size_t bytes)
{
    return borrow(p, s, 0, bytes);
}

static int ensure_device(pl_pipeline *p, pl_slot *s, size_t bytes)
{
    return borrow(p, s, 1, bytes);
}

static void fail(pl_slot *s, char *msg, size_t cap, const char *what)
{
    s->failed = 1;
    snprintf(msg, cap, "%s", what); /* `what` may quote the codestream: never a format */
}

/* Points pic's planes at `host` and/or `dev` (tight rows, one plane after
 * the other) for the shape sh. */
static void layout_picture(pl_picture *pic, const pic_shape *sh, uint16_t *host, uint8_t *dev, int device)
{
    memset(pic, 0, sizeof *pic);
    pic->nc = sh->nc;
    pic->device = dev ? device : -1;
    size_t at = 0;
    for (int c = 0; c < pic->nc; c++) {
        pic->width[c] = sh->width[c];
        pic->height[c] = sh->height[c];
        pic->depth[c] = sh->depth[c];
        if (host) {
            pic->plane[c] = host + at;
            pic->pitch[c] = (size_t)pic->width[c];
        }
        if (dev) {
            pic->device_plane[c] = (uint16_t *)(dev + at * sizeof(uint16_t));
            pic->device_pitch_bytes[c] = (size_t)pic->width[c] * sizeof(uint16_t);
        }
        at += (size_t)pic->width[c] * (size_t)pic->height[c];
    }
}

/* The two fields of a frame share one picture buffer, laid out by the
 * first: the second must have its size and sampling (a sender may claim
 * otherwise). */
static int same_picture_shape(const xs_header *a, const xs_header *b)
{
    if (a->wf != b->wf || a->hf != b->hf || a->nc != b->nc)
        return 0;
    for (int c = 0; c < a->nc; c++)
        if (a->sx[c] != b->sx[c] || a->sy[c] != b->sy[c] || a->depth[c] != b->depth[c])
            return 0;
    return 1;
}

static const char field_mismatch[] = "the second field's picture differs from the first's in size or sampling";

/* Lays out field `field`'s picture of shape `sh` where the sink wants it
 * (borrowing the frame's buffers for all its fields) and has the decoder
 * write into the device picture when there is one. 0, or the frame
 * failed. */
static int prepare_picture(pl_worker *w, pl_slot *s, pl_placement where, int field, const pic_shape *sh,
                           char *msg, size_t cap)
{
    pl_frame *f = &s->f;
    const size_t samples = picture_samples(sh);
    const size_t need = (size_t)f->fields * samples * sizeof(uint16_t);
    if ((where & PL_PICTURE_HOST) && ensure_host(w->p, s, need)) {
        fail(s, msg, cap, "out of pinned host memory for the picture");
        return -1;
    }
    if ((where & PL_PICTURE_DEVICE) && ensure_device(w->p, s, need)) {
        fail(s, msg, cap, "out of device memory for the picture");
        return -1;
    }
    pl_picture *pic = field ? &f->picture2 : &f->picture;
    uint16_t *host = (where & PL_PICTURE_HOST) ? (uint16_t *)s->host->ptr + (size_t)field * samples : NULL;
    uint8_t *dev =
        (where & PL_PICTURE_DEVICE) ? s->dev->ptr + (size_t)field * samples * sizeof(uint16_t) : NULL;
    layout_picture(pic, sh, host, dev, w->device);
    /* Without a device picture the decoder keeps its own planes (decode_gpu
     * resets it after every frame). */
    if (dev && xs_gpu_set_output(w->gpu, pic->device_plane, pic->device_pitch_bytes) != XSF_OK) {
        fail(s, msg, cap, xs_gpu_decoder_error(w->gpu));
        return -1;
    }
    return 0;
}

/* The fields of a frame on the GPU. Each picture is written by the
 * decoder straight into the frame's device picture buffer when the sink
 * wants one (xs_gpu_set_output: no copy on the device), else into the
 * decoder's own planes; the host picture is downloaded from where it was
 * written. The buffers are laid out from the header before the decode and
 * the decoded picture is checked against that layout after it.
 * *begun: a progressive frame whose decoding xs_gpu_decode_begin started
 * (decode_gpu_partial: its picture laid out already, the host rows
 * [0, host_rows[c]) downloaded as they became final); it ends with
 * xs_gpu_decode_end, which clears it. */
static void decode_gpu_fields(pl_worker *w, pl_slot *s, pl_placement where, char *msg, size_t cap, int *begun,
                              const int *host_rows)
{
    pl_frame *f = &s->f;
    size_t off = 0;
    xs_header first;
    for (int field = 0; field < f->fields; field++) {
        const size_t bytes = f->fields == 2 ? f->field_bytes[field] : f->codestream_bytes;
        size_t consumed;
        xsf_error err;
        xsf_error_clear(&err);
        if (xs_parse_header(f->codestream + off, bytes, &f->header, &err) != XSF_OK) {
            fail(s, msg, cap, err.msg);
            return;
        }
        if (field == 0) {
            first = f->header;
        } else if (!same_picture_shape(&first, &f->header)) {
            fail(s, msg, cap, field_mismatch);
            return;
        }
        pic_shape shape;
        shape_from_header(&shape, &f->header);
        const int incremental = *begun;
        if (!incremental && prepare_picture(w, s, where, field, &shape, msg, cap))
            return;
        pl_picture *pic = field ? &f->picture2 : &f->picture;
        const xsf_status dst = *begun ? xs_gpu_decode_end(w->gpu, f->codestream, bytes, &consumed)
                                      : xs_gpu_decode(w->gpu, f->codestream + off, bytes, &consumed);
        *begun = 0;
        if (dst != XSF_OK) {
            fail(s, msg, cap, xs_gpu_decoder_error(w->gpu));
            return;
        }
        if (!shape_matches(&shape, xs_gpu_decoder_image(w->gpu))) {
            fail(s, msg, cap, "the decoded picture differs in size or sampling from what its header says");
            return;
        }
        /* The sync reports errors the kernels found in the data. */
        if (xs_gpu_sync(w->gpu) != XSF_OK) {
            fail(s, msg, cap, xs_gpu_decoder_error(w->gpu));
            return;
        }
        f->t.device_ready = pl_now_ns();
        if (where & PL_PICTURE_HOST) {
            uint16_t *planes[XS_MAX_COMPONENTS] = {0};
            int from[XS_MAX_COMPONENTS] = {0}, to[XS_MAX_COMPONENTS] = {0};
            for (int c = 0; c < pic->nc; c++) {
                planes[c] = pic->plane[c];
                from[c] = incremental && host_rows ? host_rows[c] : 0; /* the rest of the rows */
                to[c] = pic->height[c];
            }
            if (xs_gpu_download_rows(w->gpu, planes, from, to) != XSF_OK || xs_gpu_sync(w->gpu) != XSF_OK) {
                fail(s, msg, cap, xs_gpu_decoder_error(w->gpu));
                return;
            }
            f->t.host_ready = pl_now_ns();
        }
        off += bytes;
    }
}

static void decode_gpu(pl_worker *w, pl_slot *s, pl_placement where, char *msg, size_t cap, int begun,
                       const int *host_rows)
{
    decode_gpu_fields(w, s, where, msg, cap, &begun, host_rows);
    if (begun) /* refused before its end: the frame under way ends without a picture */
        xs_gpu_decode_abort(w->gpu);
    /* The next frame starts from the decoder's own planes: this frame's
     * buffer goes back to the pool once it is released. */
    xs_gpu_set_output(w->gpu, NULL, NULL);
    /* A refused frame's buffers go back to the pool at once: nothing of it
     * may still be running into them. */
    if (s->failed)
        pl_gpu_stream_sync(w->cs);
}

/* A partial frame on the GPU: its slices are decoded as the complete prefix
 * grows (the decoder sleeps on the slot's condition variable in between),
 * the rest once it is whole. Its picture is laid out once the header is
 * in, and the rows each step makes final are downloaded into the host
 * picture as they are (so that at the end only the last rows remain) and
 * told to a sink that wants them (pl_sink.rows). Returns with the frame
 * whole, failed or aborted; never while its source may still write into it. */
/* A decoder started on a partial frame launches its newly whole slices once
 * a 24th of the codestream (by Lcod; at least 2 KiB, 160 KiB when Lcod is
 * not signalled) more is in, or the frame is whole: every launch costs a few
 * API calls, and what is left at the end is about that much entropy
 * decoding. */
#define PARTIAL_STEPS 24
#define PARTIAL_STEP_MIN_BYTES ((size_t)2 << 10)
#define PARTIAL_STEP_BYTES ((size_t)160 << 10)
/* While rows are on their way to a sink that wants them, the decoder looks
 * at their events this often between the frame's data. */
#define ROWS_POLL_NS 50000

typedef struct partial_rows {
    int nc;
    int host[XS_MAX_COMPONENTS]; /* host rows whose download is enqueued */
    int told[XS_MAX_COMPONENTS]; /* rows told to the sink */
    int mark[PL_ROW_MARKS][XS_MAX_COMPONENTS];
    unsigned head, tail; /* marks [tail, head) recorded, not yet seen done */
} partial_rows;

/* After a step: the rows it made final go to the host picture, and a mark
 * says when they are there (or in device memory) for the sink. */
static void rows_step(pl_worker *w, pl_slot *s, pl_placement where, const pl_sink *sink, partial_rows *r)
{
    int rows[XS_MAX_COMPONENTS];
    xs_gpu_decode_rows(w->gpu, rows);
    if (where & PL_PICTURE_HOST) {
        uint16_t *planes[XS_MAX_COMPONENTS] = {0};
        for (int c = 0; c < r->nc; c++)
            planes[c] = s->f.picture.plane[c];
        if (xs_gpu_download_rows(w->gpu, planes, r->host, rows) != XSF_OK)
            return; /* the end downloads them */
        memcpy(r->host, rows, sizeof r->host);
    }
    if (!sink->rows || r->head - r->tail == PL_ROW_MARKS || !memcmp(rows, r->told, sizeof r->told))
        return; /* nothing new, or the marks are all out (the next step's covers these rows) */
    void **ev = &w->row_event[r->head % PL_ROW_MARKS];
    if (!*ev)
        *ev = pl_gpu_event_create();
    if (*ev && pl_gpu_event_record(*ev, w->cs) == 0)
        memcpy(r->mark[r->head++ % PL_ROW_MARKS], rows, sizeof rows);
}

/* Tells the sink the rows of the marks that are done. */
static void rows_tell(pl_worker *w, pl_slot *s, const pl_sink *sink, partial_rows *r)
{
    int done = 0;
    while (r->tail != r->head && pl_gpu_event_done(w->row_event[r->tail % PL_ROW_MARKS])) {
        memcpy(r->told, r->mark[r->tail++ % PL_ROW_MARKS], sizeof r->told);
        done = 1;
    }
    if (done)
        sink->rows(sink->ctx, &s->f, r->told);
}

static void decode_gpu_partial(pl_worker *w, pl_slot *s, pl_placement where, char *msg, size_t cap)
{
    pl_pipeline *p = w->p;
    pl_frame *f = &s->f;
    const pl_sink *sink = &p->streams[f->stream].sink;
    size_t seen = 0, step = PARTIAL_STEP_BYTES;
    int begun = 0, bad = 0;
    partial_rows r;
    memset(&r, 0, sizeof r);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        /* Before begin, any growth may complete the header. */
        s->wake_at = bad ? SIZE_MAX : begun ? seen + step : seen + 1; /* refused: only its end matters */
        int poll = 0;
        while (s->partial && !s->aborted && s->avail < s->wake_at && !poll) {
            s->waiting = 1;
            if (r.tail != r.head) { /* rows on their way to the sink */
                const struct timespec until = xsf_clock_wall_deadline(ROWS_POLL_NS);
                poll = pthread_cond_timedwait(&s->cv, &p->mu, &until) != 0;
            } else {
                pthread_cond_wait(&s->cv, &p->mu);
            }
        }
        s->waiting = 0;
        if (s->aborted || !s->partial)
            break;
        if (s->avail < s->wake_at) { /* woken to look at the rows */
            pthread_mutex_unlock(&p->mu);
            rows_tell(w, s, sink, &r);
            pthread_mutex_lock(&p->mu);
            continue;
        }
        const size_t avail = s->avail;
        pthread_mutex_unlock(&p->mu);
        if (!bad) {
            xsf_status st = XSF_ERR_AGAIN;
            if (begun) {
                st = xs_gpu_decode_more(w->gpu, f->codestream, avail);
            } else {
                /* The picture is laid out (and the decoder's output set) before begin:
                 * its rows are written from then on. */
                xs_header h;
                xsf_error e;
                xsf_error_clear(&e);
                if (xs_parse_header(f->codestream, avail, &h, &e) == XSF_OK) {
                    pic_shape shape;
                    shape_from_header(&shape, &h);
                    r.nc = shape.nc;
                    st = prepare_picture(w, s, where, 0, &shape, msg, cap) ? XSF_ERR_INVALID
                                                                          : xs_gpu_decode_begin(w->gpu, f->codestream, avail);
                    if (st == XSF_OK && h.lcod)
                        step = h.lcod / PARTIAL_STEPS > PARTIAL_STEP_MIN_BYTES ? h.lcod / PARTIAL_STEPS
                                                                               : PARTIAL_STEP_MIN_BYTES;
                    if (st == XSF_ERR_AGAIN) /* the header parses, the first slice is not in */
                        xs_gpu_set_output(w->gpu, NULL, NULL);
                }
            }
            if (st == XSF_OK) {
                begun = 1;
                rows_step(w, s, where, sink, &r);
            } else if (st != XSF_ERR_AGAIN) { /* final: the frame is refused once whole */
                bad = 1;
                begun = 0;
                if (!s->failed)
                    fail(s, msg, cap, xs_gpu_decoder_error(w->gpu));
                xs_gpu_set_output(w->gpu, NULL, NULL);
            }
            if (sink->rows)
                rows_tell(w, s, sink, &r);
        }
        seen = avail;
        pthread_mutex_lock(&p->mu);
    }
    const int aborted = s->aborted;
    pthread_mutex_unlock(&p->mu);
    f->t.final_start = pl_now_ns();
    if (aborted || bad) {
        if (begun)
            xs_gpu_decode_abort(w->gpu);
        xs_gpu_set_output(w->gpu, NULL, NULL);
        /* Its buffers go back to the pool: nothing of it may still run into them. */
        pl_gpu_stream_sync(w->cs);
        s->failed = 1;
        return;
    }
    decode_gpu(w, s, where, msg, cap, begun, begun ? r.host : NULL);
}

static void decode_cpu(pl_worker *w, pl_slot *s, char *msg, size_t cap)
{
    pl_frame *f = &s->f;
    size_t off = 0;
    for (int field = 0; field < f->fields; field++) {
        const size_t bytes = f->fields == 2 ? f->field_bytes[field] : f->codestream_bytes;
        size_t consumed;
        const xs_image *img;
        if (xs_decode(w->cpu, f->codestream + off, bytes, &consumed, &img) != XSF_OK) {
            fail(s, msg, cap, xs_decoder_error(w->cpu));
            return;
        }
        if (field == 1 && !same_picture_shape(&f->header, xs_decoder_header(w->cpu))) {
            fail(s, msg, cap, field_mismatch);
            return;
        }
        f->header = *xs_decoder_header(w->cpu);
        pic_shape shape;
        shape_from_image(&shape, img);
        const size_t samples = picture_samples(&shape);
        if (ensure_host(w->p, s, (size_t)f->fields * samples * sizeof(uint16_t))) {
            fail(s, msg, cap, "out of host memory for the picture");
            return;
        }
        pl_picture *pic = field ? &f->picture2 : &f->picture;
        layout_picture(pic, &shape, (uint16_t *)s->host->ptr + (size_t)field * samples, NULL, -1);
        for (int c = 0; c < img->nc; c++)
            for (int y = 0; y < img->height[c]; y++)
                memcpy(pic->plane[c] + (size_t)y * pic->pitch[c],
                       img->plane[c] + (size_t)y * img->pitch[c],
                       (size_t)img->width[c] * sizeof(uint16_t));
        off += bytes;
    }
    f->t.host_ready = pl_now_ns();
}

/* ---- ordering and hand-over ---- */

static void order_unlink(pl_stream *st, pl_slot *s)
{
    if (s->order_prev)
        s->order_prev->order_next = s->order_next;
    else
        st->order_head = s->order_next;
    if (s->order_next)
        s->order_next->order_prev = s->order_prev;
    else
        st->order_tail = s->order_prev;
    s->order_prev = s->order_next = NULL;
}

static void free_slot(pl_stream *st, pl_slot *s)
{
    pl_queue *q = &s->p->queues[s->queue];
    /* Back in the pool unpinned: the provisioner's turn. */
    if (s->pinned && ((s->host && s->host->ptr && !pl_host_pinned(s->host->ptr)) ||
                      (s->f.buffer && !pl_host_pinned(s->f.buffer))))
        provision_wake_locked(s->p);
    if (s->host) {
        s->host->next = q->free_host;
        q->free_host = s->host;
        s->host = NULL;
    }
    if (s->dev) {
        s->dev->next = q->free_dev;
        q->free_dev = s->dev;
        s->dev = NULL;
    }
    s->state = SLOT_FREE;
    s->discard = 0;
    s->partial = s->aborted = s->waiting = 0;
    s->avail = 0;
    s->free_next = st->free;
    st->free = s;
}

/* Hands the done frames at the head of the stream's order to its sink, one
 * thread at a time. Called and returns with p->mu held. */
static void emit(pl_pipeline *p, pl_stream *st)
{
    if (st->emitting)
        return;
    st->emitting = 1;
    while (st->order_head && st->order_head->state == SLOT_DONE) {
        pl_slot *s = st->order_head;
        order_unlink(st, s);
        if (s->discard) {
            free_slot(st, s);
            continue;
        }
        if (s->failed) {
            if (st->sink.refused) {
                /* The slot is off the order list and not free: nobody else touches it. */
                pthread_mutex_unlock(&p->mu);
                st->sink.refused(st->sink.ctx, &s->f, s->error);
                pthread_mutex_lock(&p->mu);
            }
            free_slot(st, s);
            continue;
        }
        pl_frame *f = &s->f;
        f->t.delivered = pl_now_ns();
        const pl_placement where = st->sink.placement;
        const uint64_t ready = (where & PL_PICTURE_HOST)     ? f->t.host_ready
                               : (where & PL_PICTURE_DEVICE) ? f->t.device_ready
                                                             : f->t.queued;
        if (f->t.last_packet && ready >= f->t.last_packet)
            pl_hist_add(st->lat, ready - f->t.last_packet);
        if (f->t.first_packet && ready >= f->t.first_packet)
            pl_hist_add(st->lat_first, ready - f->t.first_packet);
        if (f->t.decode_start && ready >= f->t.decode_start && where != PL_PICTURE_NONE)
            pl_hist_add(st->dec, ready - f->t.decode_start);
        if (f->t.last_packet && f->t.decode_start >= f->t.last_packet)
            pl_hist_add(st->wait, f->t.decode_start - f->t.last_packet);
        if (f->t.last_packet && f->t.device_ready >= f->t.last_packet)
            pl_hist_add(st->lat_dev, f->t.device_ready - f->t.last_packet);
        if (f->t.last_packet && f->t.host_ready >= f->t.last_packet)
            pl_hist_add(st->lat_host, f->t.host_ready - f->t.last_packet);
        if (!st->delivered) {
            st->first_delivered = f->t.delivered;
        } else if (f->t.delivered > st->last_delivered) {
            const uint64_t gap = f->t.delivered - st->last_delivered;
            /* A stall: the part of the gap that neither the stream's own clock (frames
             * dropped in between, a slower rate) nor the later arrival of the frame's
             * last packet (a late sender, a frame that was waiting for a packet) explains:
             * time the receiver itself lost. */
            uint64_t explained = 0;
            if (f->has_rtp_timestamp && st->last_has_rtp_ts)
                explained = (uint64_t)xsf_ticks_to_ns((uint32_t)(f->rtp_timestamp - st->last_rtp_ts), RTP_CLOCK_HZ);
            if (f->t.last_packet > st->last_last_packet && st->last_last_packet &&
                f->t.last_packet - st->last_last_packet > explained)
                explained = f->t.last_packet - st->last_last_packet;
            const uint64_t stall = gap > explained ? gap - explained : 0;
            if (gap > st->max_gap)
                st->max_gap = gap;
            if (stall > st->max_stall)
                st->max_stall = stall;
        }
        st->last_delivered = f->t.delivered;
        st->last_rtp_ts = f->rtp_timestamp;
        st->last_last_packet = f->t.last_packet;
        st->last_has_rtp_ts = f->has_rtp_timestamp;
        st->delivered++;
        st->delivered_interlaced += f->fields == 2;
        st->bytes += f->codestream_bytes;
        s->state = SLOT_DELIVERED;
        pthread_mutex_unlock(&p->mu);
        if (st->frame_log) /* one stream emits on one thread at a time: its lines are in order */
            fprintf(st->frame_log, "%d,%llu,%u,%zu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", f->stream,
                    (unsigned long long)f->index, f->rtp_timestamp, f->codestream_bytes,
                    (unsigned long long)f->t.first_packet, (unsigned long long)f->t.last_packet,
                    (unsigned long long)f->t.queued, (unsigned long long)f->t.decode_start,
                    (unsigned long long)f->t.device_ready, (unsigned long long)f->t.host_ready,
                    (unsigned long long)f->t.delivered, (unsigned long long)f->t.whole,
                    (unsigned long long)f->t.final_start);
        st->sink.deliver(st->sink.ctx, f);
        pthread_mutex_lock(&p->mu);
    }
    st->emitting = 0;
    pthread_cond_broadcast(&p->progress);
}

/* The first frame of the queue this worker may take: a partial frame only
 * where it can be decoded as it arrives (the GPU, a picture wanted); the
 * others take it once it is whole (when stopping, anything). */
static pl_slot *take_work(pl_pipeline *p, pl_queue *q, const pl_worker *w)
{
    pl_slot *prev = NULL;
    for (pl_slot *it = q->head; it; prev = it, it = it->work_next) {
        const pl_stream *st = &p->streams[it->f.stream];
        if (it->partial && !p->stopping && !(w->gpu && st->sink.placement != PL_PICTURE_NONE))
            continue;
        if (prev)
            prev->work_next = it->work_next;
        else
            q->head = it->work_next;
        if (q->tail == it)
            q->tail = prev;
        it->work_next = NULL;
        return it;
    }
    return NULL;
}

static void *worker_main(void *arg)
{
    pl_worker *w = arg;
    pl_pipeline *p = w->p;
    pl_queue *q = &p->queues[w->queue];
    if (w->device >= 0)
        pl_gpu_select(w->device);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        pl_slot *s;
        while (!(s = take_work(p, q, w)) && !(p->stopping && !q->head))
            pthread_cond_wait(&q->cv, &p->mu);
        if (!s)
            break; /* stopping, nothing left */
        s->state = SLOT_DECODING;
        pl_stream *st = &p->streams[s->f.stream];
        const pl_placement where = st->sink.placement;
        /* A partial frame is decoded as it arrives on the GPU; elsewhere it
         * is waited for whole. */
        const int incremental = s->partial && w->gpu && where != PL_PICTURE_NONE && s->f.fields == 1;
        s->wake_at = SIZE_MAX; /* only when whole */
        while (s->partial && !incremental && !s->aborted) {
            s->waiting = 1;
            pthread_cond_wait(&s->cv, &p->mu);
        }
        s->waiting = 0;
        const int aborted = s->aborted;
        pthread_mutex_unlock(&p->mu);

        char *msg = s->error;
        const size_t msg_cap = sizeof s->error;
        msg[0] = 0;
        s->failed = 0;
        s->f.t.decode_start = s->f.t.final_start = pl_now_ns();
        if (aborted) {
            s->failed = 1; /* counted by pl_frame_abort */
        } else if (incremental) {
            decode_gpu_partial(w, s, where, msg, msg_cap);
        } else if (where != PL_PICTURE_NONE) {
            if (w->gpu)
                decode_gpu(w, s, where, msg, msg_cap, 0, NULL);
            else
                decode_cpu(w, s, msg, msg_cap);
        } else {
            /* Codestream only: the header still describes the frame. */
            xsf_error err;
            xsf_error_clear(&err);
            if (xs_parse_header(s->f.codestream, s->f.fields == 2 ? s->f.field_bytes[0]
                                                                  : s->f.codestream_bytes,
                                &s->f.header, &err) != XSF_OK)
                fail(s, msg, msg_cap, err.msg);
        }

        pthread_mutex_lock(&p->mu);
        s->state = SLOT_DONE;
        if (s->failed && !s->aborted) {
            st->dropped[PL_DROP_DECODE]++;
            snprintf(st->last_error, sizeof st->last_error, "frame %llu: %.200s",
                     (unsigned long long)s->f.index, msg);
        }
        emit(p, st);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ---- the provisioner ---- */

/* Pinning host memory (cudaHostRegister) and unpinning it hold the CUDA
 * driver's lock, and every other thread's CUDA call waits behind it: while
 * 16 UHD streams ran, single pins took up to 400 ms and the decoders'
 * first frames 0.4-1.6 s (2-6 ms alone), so frames were dropped; before any
 * stream runs, 1.8 GB pin in 0.1 s (BENCHMARKS.md, "Session 22 runs"). So
 * with the GPU engine:
 * - pl_config.pinned_reserve_bytes are pinned at pl_create, and frames'
 *   codestreams and pictures are carved from that reserve while it lasts
 *   (pl_host_map, pl_host_alloc), pinned already;
 * - beyond it, a live stream's receiving thread never pins: a new
 *   codestream buffer is a plain mapping (its upload is staged by the
 *   driver, a little slower), and this thread pins it once its frame is
 *   back in the pool (a source that may wait, PL_BLOCK, pins its own);
 * - a decoder pins the picture it needs at once (a GPU's pictures are few,
 *   and a download into pageable memory is slow), and this thread adds
 *   pictures of the size last asked for up to pictures_per_queue (the
 *   decoders and what the sinks hold), and device pictures likewise;
 * - pinned buffers given up (a frame or picture that grew) are unpinned here.
 * It works one buffer at a time and rests as long as each took, so the
 * others have at least half of the driver. */

/* Gives up a buffer of the mapping family: a pinned one goes to the provisioner, which
 * unpins it; anything else is returned for the caller to free (outside the lock). With
 * p->mu held. */
static void *give_up_locked(pl_pipeline *p, void *ptr)
{
    if (!ptr)
        return NULL;
    pl_grave *g = p->prov_started && pl_host_unpin_costs(ptr) ? malloc(sizeof *g) : NULL;
    if (!g)
        return ptr;
    g->ptr = ptr;
    g->next = p->graves;
    p->graves = g;
    provision_wake_locked(p);
    return NULL;
}

/* Adds a picture of the queue's wanted size to its pool: host memory, pinned, or device
 * memory. With p->mu held (released while it allocates); returns the nanoseconds it took
 * (at least 1). Where it cannot, the provisioner stops adding: the decoders allocate what
 * they need and say when they cannot. */
static uint64_t add_picture(pl_pipeline *p, unsigned qi, int device)
{
    pl_queue *q = &p->queues[qi];
    const size_t bytes = device ? q->dev_bytes : q->host_bytes;
    unsigned *count = device ? &q->ndev : &q->nhost;
    (*count)++;
    pthread_mutex_unlock(&p->mu);
    const uint64_t t0 = xsf_clock_mono_ns();
    pl_picbuf *b = calloc(1, sizeof *b);
    pl_gpu_select(p->gpus[qi]);
    if (b && (b->ptr = device ? pl_gpu_alloc(bytes) : pl_host_alloc(bytes, 1)) != NULL)
        b->bytes = bytes;
    const uint64_t ns = xsf_clock_mono_ns() - t0;
    pthread_mutex_lock(&p->mu);
    pl_picbuf **pool = device ? &q->free_dev : &q->free_host;
    if (b && b->ptr) {
        b->next = *pool;
        *pool = b;
    } else {
        free(b);
        (*count)--;
        if (device)
            q->dev_bytes = 0;
        else
            p->pin_refused = 1;
    }
    return ns ? ns : 1;
}

/* One job of the provisioner, with p->mu held (released while it works). Returns the
 * nanoseconds it spent, 0 for no job. */
static uint64_t provision_one(pl_pipeline *p)
{
    /* Pictures first: the decoders wait on them. */
    for (unsigned qi = 0; qi < p->nqueues; qi++) {
        pl_queue *q = &p->queues[qi];
        if (q->host_bytes && q->nhost < p->pictures_per_queue && !p->pin_refused)
            return add_picture(p, qi, 0);
        if (q->dev_bytes && q->ndev < p->pictures_per_queue)
            return add_picture(p, qi, 1);
    }
    /* Then the codestream buffer of a free frame that has one, not pinned. */
    for (int i = 0; i < p->nstreams && !p->pin_refused; i++) {
        pl_stream *st = &p->streams[i];
        if (st->used != 1)
            continue;
        pl_slot **it = &st->free;
        while (*it && (!(*it)->f.buffer || pl_host_pinned((*it)->f.buffer)))
            it = &(*it)->free_next;
        if (!*it)
            continue;
        pl_slot *s = *it;
        *it = s->free_next; /* out of the free list while it is pinned */
        pthread_mutex_unlock(&p->mu);
        pl_gpu_select(p->gpus[st->queue]);
        const uint64_t t0 = xsf_clock_mono_ns();
        const int refused = pl_host_pin(s->f.buffer) != 0;
        const uint64_t ns = xsf_clock_mono_ns() - t0;
        pthread_mutex_lock(&p->mu);
        p->pin_refused |= refused;
        /* (The stream cannot have gone: pl_stream_remove waits for all its frames.) */
        if (!refused)
            st->pool_pinned_bytes += s->f.capacity;
        s->free_next = st->free;
        st->free = s;
        pthread_cond_broadcast(&p->progress);
        return ns ? ns : 1;
    }
    /* Last, what was given up. */
    if (p->graves) {
        pl_grave *g = p->graves;
        p->graves = g->next;
        pthread_mutex_unlock(&p->mu);
        const uint64_t t0 = xsf_clock_mono_ns();
        pl_host_free(g->ptr, 1);
        free(g);
        const uint64_t ns = xsf_clock_mono_ns() - t0;
        pthread_mutex_lock(&p->mu);
        return ns ? ns : 1;
    }
    return 0;
}

static void *provision_main(void *arg)
{
    pl_pipeline *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stopping) {
        const uint64_t ns = provision_one(p);
        if (!ns) {
            while (!p->prov_wake && !p->stopping)
                pthread_cond_wait(&p->prov_cv, &p->mu);
            p->prov_wake = 0;
            continue;
        }
        /* Rest as long as the job held the driver (at most 50 ms): the decoders get
         * at least half of it. */
        const uint64_t rest = ns < 50000000u ? ns : 50000000u;
        const struct timespec until = xsf_clock_wall_deadline(rest);
        while (!p->stopping && pthread_cond_timedwait(&p->prov_cv, &p->mu, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ---- creation ---- */

static xsf_status add_worker(pl_pipeline *p, int queue, int device, xsf_error *err)
{
    pl_worker *w = &p->workers[p->nworkers];
    memset(w, 0, sizeof *w);
    w->p = p;
    w->queue = queue;
    w->device = device;
    if (device >= 0) {
        if (pl_gpu_select(device) || !(w->cs = pl_gpu_stream_create()))
            return xsf_error_set(err, XSF_ERR_CUDA, "cannot create a CUDA stream on GPU %d",
                                 device);
        if (xs_gpu_decoder_create(&w->gpu, device, w->cs) != XSF_OK) {
            pl_gpu_stream_destroy(w->cs);
            return xsf_error_set(err, XSF_ERR_CUDA, "cannot create a decoder on GPU %d", device);
        }
    } else if (xs_decoder_create(&w->cpu) != XSF_OK) {
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a decoder");
    }
    p->nworkers++;
    return XSF_OK;
}

static xsf_status create_pipeline(pl_pipeline **out, const pl_config *cfg, xsf_error *err)
{
    *out = NULL;
    pl_config c = *cfg;
    pl_pipeline *p = calloc(1, sizeof *p);
    if (!p)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->progress, NULL);
    pthread_cond_init(&p->prov_cv, NULL);
    for (int i = 0; i < PL_MAX_GPUS; i++)
        pthread_cond_init(&p->queues[i].cv, NULL);

    const int visible = c.engine == PL_ENGINE_CPU ? 0 : pl_gpu_count();
    const int usable = visible > 0 && xs_gpu_available() == XSF_OK;
    char why[160] = "";
    if (c.engine == PL_ENGINE_GPU && !usable) {
        pl_destroy(p);
        return xsf_error_set(err, XSF_ERR_NODEVICE,
                             "no usable GPU (CUDA %s, %d device%s visible)",
#ifdef XSF_HAVE_CUDA
                             "built",
#else
                             "not built",
#endif
                             visible, visible == 1 ? "" : "s");
    }
    if (c.engine != PL_ENGINE_CPU && !usable)
        snprintf(why, sizeof why, " (no usable GPU)");
    p->use_gpu = usable;
    if (p->use_gpu) {
        if (c.ngpus > 0) {
            if (c.ngpus > PL_MAX_GPUS) {
                pl_destroy(p);
                return xsf_error_set(err, XSF_ERR_ARG, "at most %d GPUs", PL_MAX_GPUS);
            }
            for (int i = 0; i < c.ngpus; i++) {
                if (c.gpus[i] < 0 || c.gpus[i] >= visible) {
                    pl_destroy(p);
                    return xsf_error_set(err, XSF_ERR_ARG,
                                         "GPU %d does not exist (%d visible: 0..%d)", c.gpus[i],
                                         visible, visible - 1);
                }
                p->gpus[i] = c.gpus[i];
            }
            p->ngpus = c.ngpus;
        } else {
            p->ngpus = visible < PL_MAX_GPUS ? visible : PL_MAX_GPUS;
            for (int i = 0; i < p->ngpus; i++)
                p->gpus[i] = i;
        }
        const unsigned per = c.contexts_per_gpu ? c.contexts_per_gpu : 3;
        p->nqueues = (unsigned)p->ngpus;
        p->pictures_per_queue = per + 2;
        /* Before any stream runs: pinning later holds the driver while they do. */
        int reserve_refused = 0;
        if (c.pinned_reserve_bytes) {
            pl_gpu_select(p->gpus[0]);
            reserve_refused = pl_host_reserve(c.pinned_reserve_bytes) != 0;
        }
        p->workers = calloc((size_t)p->ngpus * per, sizeof *p->workers);
        if (!p->workers) {
            pl_destroy(p);
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
        }
        /* How the decoder threads wait, set on each device before its contexts; a
         * runtime that refuses leaves CUDA's own choice, said in the description. */
        int sync_refused = 0;
        for (int g = 0; g < p->ngpus; g++)
            if (c.gpu_sync != PL_GPU_SYNC_AUTO && pl_gpu_set_sync(p->gpus[g], (int)c.gpu_sync))
                sync_refused = 1;
        for (int g = 0; g < p->ngpus; g++)
            for (unsigned k = 0; k < per; k++)
                if (add_worker(p, g, p->gpus[g], err) != XSF_OK) {
                    pl_destroy(p);
                    return err->status;
                }
        char name[128];
        pl_gpu_name(p->gpus[0], name, sizeof name);
        snprintf(p->desc, sizeof p->desc, "GPU: %d x %s (device%s", p->ngpus, name,
                 p->ngpus == 1 ? "" : "s");
        for (int g = 0; g < p->ngpus; g++)
            snprintf(p->desc + strlen(p->desc), sizeof p->desc - strlen(p->desc), " %d",
                     p->gpus[g]);
        static const char *const waits[] = {"CUDA's choice", "spin", "yield", "block"};
        snprintf(p->desc + strlen(p->desc), sizeof p->desc - strlen(p->desc),
                 "), %u decoder contexts each, GPU waits: %s%s", per,
                 waits[(unsigned)c.gpu_sync < 4 ? c.gpu_sync : 0],
                 sync_refused ? " (refused by CUDA: its own choice)" : "");
        if (c.pinned_reserve_bytes)
            snprintf(p->desc + strlen(p->desc), sizeof p->desc - strlen(p->desc),
                     ", pinned reserve %.0f MiB%s", (double)c.pinned_reserve_bytes / 1048576.0,
                     reserve_refused ? " (refused: frames are pinned as they are used)" : "");
    } else {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        const unsigned n = c.cpu_threads ? c.cpu_threads : (unsigned)(cores > 0 ? cores : 1);
        p->nqueues = 1;
        p->workers = calloc(n, sizeof *p->workers);
        if (!p->workers) {
            pl_destroy(p);
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
        }
        for (unsigned k = 0; k < n; k++)
            if (add_worker(p, 0, -1, err) != XSF_OK) {
                pl_destroy(p);
                return err->status;
            }
        snprintf(p->desc, sizeof p->desc, "CPU: %u decoder thread%s%s", n, n == 1 ? "" : "s",
                 why);
    }
    for (unsigned i = 0; i < p->nworkers; i++) {
        if (pthread_create(&p->workers[i].thread, NULL, worker_main, &p->workers[i])) {
            pl_destroy(p);
            return xsf_error_set(err, XSF_ERR_NOMEM, "cannot start a decoder thread");
        }
        p->workers[i].started = 1;
    }
    if (p->use_gpu) {
        if (pthread_create(&p->prov, NULL, provision_main, p)) {
            pl_destroy(p);
            return xsf_error_set(err, XSF_ERR_NOMEM, "cannot start the memory provisioner thread");
        }
        p->prov_started = 1;
    }
    *out = p;
    return XSF_OK;
}

const char *pl_describe(const pl_pipeline *p)
{
    return p->desc;
}

int pl_uses_gpu(const pl_pipeline *p)
{
    return p->use_gpu;
}

static void stream_free(pl_stream *st)
{
    for (unsigned i = 0; i < st->nslots; i++) {
        pl_slot *s = &st->slots[i];
        pl_host_free(s->f.buffer, s->pinned);
        if (s->host) {
            pl_host_free(s->host->ptr, s->pinned);
            free(s->host);
        }
        if (s->dev) {
            pl_gpu_free(s->dev->ptr);
            free(s->dev);
        }
    }
    for (unsigned i = 0; st->slots && i < st->nslots; i++)
        pthread_cond_destroy(&st->slots[i].cv);
    free(st->slots);
    free(st->lat);
    free(st->lat_first);
    free(st->dec);
    free(st->wait);
    free(st->lat_dev);
    free(st->lat_host);
    memset(st, 0, sizeof *st);
}

static void destroy_pipeline(pl_pipeline *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stopping = 1;
    for (unsigned q = 0; q < PL_MAX_GPUS; q++)
        pthread_cond_broadcast(&p->queues[q].cv);
    pthread_cond_signal(&p->prov_cv);
    pthread_mutex_unlock(&p->mu);
    if (p->prov_started)
        pthread_join(p->prov, NULL);
    for (pl_grave *g = p->graves, *n; g; g = n) {
        n = g->next;
        pl_host_free(g->ptr, 1);
        free(g);
    }
    for (unsigned i = 0; i < p->nworkers; i++) {
        pl_worker *w = &p->workers[i];
        if (w->started)
            pthread_join(w->thread, NULL);
        if (w->device >= 0)
            pl_gpu_select(w->device);
        xs_gpu_decoder_destroy(w->gpu);
        for (int k = 0; k < PL_ROW_MARKS; k++)
            pl_gpu_event_destroy(w->row_event[k]);
        pl_gpu_stream_destroy(w->cs);
        xs_decoder_destroy(w->cpu);
    }
    for (int i = 0; i < p->nstreams; i++) {
        if (p->use_gpu && p->ngpus > 0)
            pl_gpu_select(p->gpus[p->streams[i].queue]);
        stream_free(&p->streams[i]);
    }
    free(p->workers);
    for (int i = 0; i < PL_MAX_GPUS; i++) {
        pl_queue *q = &p->queues[i];
        if (p->use_gpu && i < p->ngpus)
            pl_gpu_select(p->gpus[i]);
        for (pl_picbuf *b = q->free_host, *n; b; b = n) {
            n = b->next;
            pl_host_free(b->ptr, p->use_gpu);
            free(b);
        }
        for (pl_picbuf *b = q->free_dev, *n; b; b = n) {
            n = b->next;
            pl_gpu_free(b->ptr);
            free(b);
        }
        pthread_cond_destroy(&q->cv);
    }
    pthread_cond_destroy(&p->progress);
    pthread_cond_destroy(&p->prov_cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* ---- streams and frames ---- */

/* A codestream buffer for a frame of `st`. With the GPU engine: from the reserve while it
 * lasts; beyond it, a live stream's is a plain mapping that the provisioner pins once the
 * frame is back in the pool (its source must not wait on the driver), and a stream that
 * may wait (files, captures) pins its own at once, so that its uploads are never staged. */
static uint8_t *codestream_buffer(const pl_stream *st, int pinned, size_t bytes)
{
    if (!pinned)
        return pl_host_alloc(bytes, 0);
    uint8_t *b = st->backpressure == PL_BLOCK ? pl_host_alloc(bytes, 1) : NULL;
    return b ? b : pl_host_map(bytes);
}


/* Frees a stream's memory and gives its id back (stream_free zeroes it,
 * `used` included), under the lock so that pl_stream_add sees it whole. */
static void stream_release_id(pl_pipeline *p, pl_stream *st)
{
    pthread_mutex_lock(&p->mu);
    stream_free(st);
    pthread_mutex_unlock(&p->mu);
}

static xsf_status stream_add(pl_pipeline *p, const pl_stream_config *sc, int *id, xsf_error *err)
{
    if (!sc->sink.deliver)
        return xsf_error_set(err, XSF_ERR_ARG, "a stream needs a sink");
    if (sc->frames > 1024)
        return xsf_error_set(err, XSF_ERR_ARG, "at most 1024 frames per stream (%u asked for)",
                             sc->frames);
    /* The first id not in use (pl_stream_remove frees ids): an unused
     * stream is all zero; `used` -1 reserves it while it is filled in. */
    pthread_mutex_lock(&p->mu);
    int sid = -1;
    for (int i = 0; i < PL_MAX_STREAMS && sid < 0; i++)
        if (!p->streams[i].used)
            sid = i;
    if (sid < 0) {
        pthread_mutex_unlock(&p->mu);
        return xsf_error_set(err, XSF_ERR_ARG, "at most %d streams at once", PL_MAX_STREAMS);
    }
    pl_stream *st = &p->streams[sid];
    st->used = -1;
    if (p->nstreams < sid + 1)
        p->nstreams = sid + 1; /* ids below nstreams are freed by pl_destroy */
    pthread_mutex_unlock(&p->mu);

    snprintf(st->name, sizeof st->name, "%s", sc->name ? sc->name : "stream");
    st->sink = sc->sink;
    st->backpressure = sc->backpressure;
    st->frame_log = sc->frame_log;
    st->queue = p->use_gpu ? sid % p->ngpus : 0;
    /* Enough frames to absorb a burst and keep every decoder of the stream's
     * queue busy. Picture memory is allocated by a frame's first decode and
     * frames are reused last-in first-out, so the frames a stream never needs
     * at once cost only their codestream buffer. */
    const unsigned per_queue = p->nworkers / (unsigned)(p->use_gpu ? p->ngpus : 1);
    if (sc->frames)
        st->nslots = sc->frames;
    else if (sc->backpressure == PL_BLOCK)
        st->nslots = 2 * per_queue + 2; /* a file source waits: enough to keep the decoders busy */
    else
        st->nslots = 2 * per_queue + 4 > 16 ? 2 * per_queue + 4 : 16; /* absorbs bursts */
    size_t first = sc->codestream_bytes ? sc->codestream_bytes : (size_t)1 << 20;
    st->max_frame_bytes = sc->max_frame_bytes;
    if (st->max_frame_bytes && first > st->max_frame_bytes)
        first = st->max_frame_bytes;
    st->slots = calloc(st->nslots, sizeof *st->slots);
    for (unsigned i = 0; st->slots && i < st->nslots; i++)
        pthread_cond_init(&st->slots[i].cv, NULL);
    st->lat = calloc(1, sizeof *st->lat);
    st->lat_first = calloc(1, sizeof *st->lat_first);
    st->dec = calloc(1, sizeof *st->dec);
    st->wait = calloc(1, sizeof *st->wait);
    st->lat_dev = calloc(1, sizeof *st->lat_dev);
    st->lat_host = calloc(1, sizeof *st->lat_host);
    if (!st->slots || !st->lat || !st->lat_first || !st->dec || !st->wait || !st->lat_dev || !st->lat_host) {
        stream_release_id(p, st);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the stream's frames");
    }
    if (p->use_gpu)
        pl_gpu_select(p->gpus[st->queue]);
    /* Codestream buffers are allocated when a frame is first taken, at the
     * size the stream's frames have needed so far: a live stream reuses a
     * few frames (last in, first out), and pinning memory is slow and holds
     * the driver's lock, so the frames it never needs are never pinned and
     * the others once, at their final size. The frame taken first gets its
     * buffer now, so that a stream that cannot have one fails here. */
    st->slot_bytes = first;
    for (unsigned i = 0; i < st->nslots; i++) {
        pl_slot *s = &st->slots[i];
        s->p = p;
        s->pinned = p->use_gpu;
        s->queue = st->queue;
        s->f.stream = sid;
        if (i + 1 == st->nslots) {
            s->f.buffer = codestream_buffer(st, s->pinned, first);
            if (!s->f.buffer) {
                stream_release_id(p, st);
                return xsf_error_set(err, XSF_ERR_NOMEM, "out of %s memory for a frame of %zu bytes",
                                     p->use_gpu ? "pinned host" : "host", first);
            }
            s->f.capacity = first;
            st->pool_bytes += first;
            if (s->pinned && pl_host_pinned(s->f.buffer))
                st->pool_pinned_bytes += first;
        }
        free_slot(st, s);
    }
    pthread_mutex_lock(&p->mu);
    st->used = 1;
    provision_wake_locked(p); /* the frame taken first is pinned before any packet */
    pthread_mutex_unlock(&p->mu);
    *id = sid;
    return XSF_OK;
}

/* Takes a queued frame off its decoders' queue. */
static void queue_remove(pl_queue *q, pl_slot *s)
{
    pl_slot *prev = NULL;
    for (pl_slot *it = q->head; it; prev = it, it = it->work_next) {
        if (it != s)
            continue;
        if (prev)
            prev->work_next = it->work_next;
        else
            q->head = it->work_next;
        if (q->tail == it)
            q->tail = prev;
        break;
    }
    s->work_next = NULL;
}

/* The oldest frame of `st` still waiting for a decoder, taken off its queue. */
static pl_slot *take_oldest_waiting(pl_pipeline *p, pl_stream *st)
{
    pl_slot *s = st->order_head;
    while (s && (s->state != SLOT_QUEUED || s->partial)) /* a partial frame's source still writes into it */
        s = s->order_next;
    if (!s)
        return NULL;
    queue_remove(&p->queues[st->queue], s);
    order_unlink(st, s);
    return s;
}

/* Gives the frame a codestream buffer of `bytes`, keeping its first `keep` bytes. */
static xsf_status slot_resize(pl_pipeline *p, pl_frame *f, size_t bytes, size_t keep, xsf_error *err)
{
    pl_slot *s = (pl_slot *)f;
    pl_stream *st = &p->streams[f->stream];
    uint8_t *nb = codestream_buffer(st, s->pinned, bytes);
    if (!nb)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of host memory for a %zu-byte frame", bytes);
    if (keep > f->capacity)
        keep = f->capacity;
    if (keep)
        memcpy(nb, f->buffer, keep);
    if (f->buffer && f->codestream >= f->buffer && f->codestream < f->buffer + f->capacity)
        f->codestream = nb + (f->codestream - f->buffer);
    pthread_mutex_lock(&p->mu);
    st->pool_bytes += bytes - f->capacity;
    if (f->buffer && s->pinned && pl_host_pinned(f->buffer))
        st->pool_pinned_bytes -= f->capacity;
    if (s->pinned && pl_host_pinned(nb)) /* carved from the reserve */
        st->pool_pinned_bytes += bytes;
    void *old = s->pinned ? give_up_locked(p, f->buffer) : f->buffer;
    pthread_mutex_unlock(&p->mu);
    pl_host_free(old, s->pinned);
    f->buffer = nb;
    f->capacity = bytes;
    return XSF_OK;
}

pl_frame *pl_frame_acquire(pl_pipeline *p, int stream, size_t min_bytes)
{
    pl_stream *st = &p->streams[stream];
    pl_slot *s = NULL;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (st->free) {
            s = st->free;
            st->free = s->free_next;
            break;
        }
        if (p->stopping)
            break;
        if (st->backpressure == PL_DROP_OLDEST) {
            s = take_oldest_waiting(p, st);
            if (s)
                st->dropped[PL_DROP_QUEUE]++;
            break;
        }
        pthread_cond_wait(&p->progress, &p->mu);
    }
    if (s)
        s->state = SLOT_FILLING;
    const size_t slot_bytes = st->slot_bytes;
    pthread_mutex_unlock(&p->mu);
    if (!s)
        return NULL;
    pl_frame *f = &s->f;
    f->codestream = NULL;
    f->codestream_bytes = 0;
    f->fields = 1;
    f->field_bytes[0] = f->field_bytes[1] = 0;
    f->has_rtp_timestamp = 0;
    f->rtp_timestamp = 0;
    f->user = 0;
    memset(&f->t, 0, sizeof f->t);
    memset(&f->picture, 0, sizeof f->picture);
    memset(&f->picture2, 0, sizeof f->picture2);
    /* One allocation at most: the stream's size, or more for this frame. */
    xsf_error err;
    const xsf_status r = f->capacity < min_bytes    ? pl_frame_reserve(p, f, min_bytes, 0, &err)
                         : f->capacity < slot_bytes ? slot_resize(p, f, slot_bytes, 0, &err)
                                                    : XSF_OK;
    if (r != XSF_OK) {
        pl_frame_discard(p, f);
        return NULL;
    }
    return f;
}

xsf_status pl_frame_reserve(pl_pipeline *p, pl_frame *f, size_t bytes, size_t keep, xsf_error *err)
{
    pl_slot *s = (pl_slot *)f;
    if (bytes <= f->capacity)
        return XSF_OK;
    if (s->partial)
        return xsf_error_set(err, XSF_ERR_ARG, "a partial frame's buffer cannot move");
    pl_stream *st = &p->streams[f->stream];
    if (st->max_frame_bytes && bytes > st->max_frame_bytes)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "a %zu-byte frame: the stream's frames hold at most %zu bytes", bytes,
                             st->max_frame_bytes);
    /* Grow by half again, so that a stream whose frames grow slowly reallocates rarely
     * (never past the stream's limit); the frames taken later get this size at once. */
    size_t want = bytes + bytes / 2;
    if (want < bytes || (st->max_frame_bytes && want > st->max_frame_bytes))
        want = st->max_frame_bytes ? st->max_frame_bytes : bytes;
    pthread_mutex_lock(&p->mu);
    if (want < st->slot_bytes) /* never below what the stream's frames get anyway */
        want = st->slot_bytes;
    pthread_mutex_unlock(&p->mu);
    const xsf_status r = slot_resize(p, f, want, keep, err);
    if (r == XSF_OK) {
        pthread_mutex_lock(&p->mu);
        if (want > st->slot_bytes)
            st->slot_bytes = want;
        pthread_mutex_unlock(&p->mu);
    }
    return r;
}

/* Gives the frame its index and its place in the stream's order and in the
 * decode queue. With p->mu held. */
static void enqueue_locked(pl_pipeline *p, pl_stream *st, pl_slot *s)
{
    s->f.index = st->next_index++;
    st->submitted++;
    s->state = SLOT_QUEUED;
    s->order_next = NULL;
    s->order_prev = st->order_tail;
    if (st->order_tail)
        st->order_tail->order_next = s;
    else
        st->order_head = s;
    st->order_tail = s;
    pl_queue *q = &p->queues[st->queue];
    s->work_next = NULL;
    if (q->tail)
        q->tail->work_next = s;
    else
        q->head = s;
    q->tail = s;
    pthread_cond_signal(&q->cv);
}

void pl_frame_submit(pl_pipeline *p, pl_frame *f)
{
    pl_slot *s = (pl_slot *)f;
    pl_stream *st = &p->streams[f->stream];
    f->t.whole = pl_now_ns();
    pthread_mutex_lock(&p->mu);
    if (s->partial) {
        /* Whole now: the decoder that holds it finishes it, or any may take it. */
        s->partial = 0;
        s->avail = f->codestream_bytes;
        if (s->waiting)
            pthread_cond_signal(&s->cv);
        if (s->state == SLOT_QUEUED)
            pthread_cond_broadcast(&p->queues[st->queue].cv);
        pthread_mutex_unlock(&p->mu);
        return;
    }
    pthread_mutex_unlock(&p->mu);
    if (f->fields != 2)
        f->fields = 1;
    f->t.queued = f->t.whole;
    pthread_mutex_lock(&p->mu);
    enqueue_locked(p, st, s);
    pthread_mutex_unlock(&p->mu);
}

void pl_frame_submit_partial(pl_pipeline *p, pl_frame *f)
{
    pl_slot *s = (pl_slot *)f;
    pl_stream *st = &p->streams[f->stream];
    f->fields = 1;
    f->t.queued = pl_now_ns();
    pthread_mutex_lock(&p->mu);
    s->partial = 1;
    s->aborted = 0;
    s->waiting = 0;
    s->avail = f->codestream_bytes;
    st->partial_submitted++;
    enqueue_locked(p, st, s);
    pthread_mutex_unlock(&p->mu);
}

void pl_frame_progress(pl_pipeline *p, pl_frame *f, size_t complete_bytes)
{
    pl_slot *s = (pl_slot *)f;
    pthread_mutex_lock(&p->mu);
    if (s->partial && complete_bytes > s->avail) {
        s->avail = complete_bytes;
        if (s->waiting && s->avail >= s->wake_at)
            pthread_cond_signal(&s->cv);
    }
    pthread_mutex_unlock(&p->mu);
}

void pl_frame_abort(pl_pipeline *p, pl_frame *f, pl_drop_reason reason)
{
    pl_slot *s = (pl_slot *)f;
    pl_stream *st = &p->streams[f->stream];
    pthread_mutex_lock(&p->mu);
    if (s->state != SLOT_FILLING && !s->partial) { /* whole already: not the source's to abort */
        pthread_mutex_unlock(&p->mu);
        return;
    }
    if (reason < PL_DROP_REASONS)
        st->dropped[reason]++;
    else if (s->state != SLOT_FILLING)
        st->submitted--; /* it goes on in another frame, which counts it */
    if (s->state == SLOT_QUEUED) {
        /* Not taken by a decoder yet: off the queue and the order (every
         * later frame of the stream is still queued behind it: the queue is
         * first in, first out, so no delivery waits on it). */
        queue_remove(&p->queues[st->queue], s);
        order_unlink(st, s);
        free_slot(st, s);
    } else if (s->state == SLOT_DECODING) {
        s->aborted = 1; /* the decoder ends it and frees it in order */
        s->partial = 0;
        if (s->waiting)
            pthread_cond_signal(&s->cv);
    } else if (s->state == SLOT_FILLING) {
        free_slot(st, s); /* acquired, never submitted */
    }
    pthread_cond_broadcast(&p->progress);
    pthread_mutex_unlock(&p->mu);
}

void pl_frame_discard(pl_pipeline *p, pl_frame *f)
{
    pl_slot *s = (pl_slot *)f;
    pthread_mutex_lock(&p->mu);
    free_slot(&p->streams[f->stream], s);
    pthread_cond_broadcast(&p->progress);
    pthread_mutex_unlock(&p->mu);
}

void pl_frame_release(pl_frame *f)
{
    pl_slot *s = (pl_slot *)f;
    pl_pipeline *p = s->p;
    pthread_mutex_lock(&p->mu);
    free_slot(&p->streams[f->stream], s);
    pthread_cond_broadcast(&p->progress);
    pthread_mutex_unlock(&p->mu);
}

void pl_count_drop(pl_pipeline *p, int stream, pl_drop_reason reason)
{
    if (reason >= PL_DROP_REASONS)
        return;
    pthread_mutex_lock(&p->mu);
    p->streams[stream].dropped[reason]++;
    pthread_mutex_unlock(&p->mu);
}

void pl_stream_finish(pl_pipeline *p, int stream)
{
    pl_stream *st = &p->streams[stream];
    pthread_mutex_lock(&p->mu);
    while (st->order_head || st->emitting)
        pthread_cond_wait(&p->progress, &p->mu);
    pthread_mutex_unlock(&p->mu);
    if (st->sink.finish)
        st->sink.finish(st->sink.ctx);
}

void pl_stream_flush(pl_pipeline *p, int stream)
{
    pl_stream *st = &p->streams[stream];
    pthread_mutex_lock(&p->mu);
    pl_slot *s;
    while ((s = take_oldest_waiting(p, st)) != NULL)
        free_slot(st, s);
    /* What is left is decoding or decoded: emit() frees it when its turn comes. */
    for (s = st->order_head; s; s = s->order_next)
        s->discard = 1;
    pthread_cond_broadcast(&p->progress);
    while (st->order_head || st->emitting)
        pthread_cond_wait(&p->progress, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

static void stream_remove(pl_pipeline *p, int stream, pl_stream_stats *final)
{
    if (final)
        memset(final, 0, sizeof *final);
    if (stream < 0 || stream >= PL_MAX_STREAMS || p->streams[stream].used != 1)
        return;
    pl_stream *st = &p->streams[stream];
    pl_stream_finish(p, stream);
    if (final)
        pl_stream_stats_get(p, stream, final);
    pthread_mutex_lock(&p->mu);
    /* Every frame back in the pool: the sink may still hold some. */
    for (;;) {
        unsigned nfree = 0;
        for (pl_slot *s = st->free; s; s = s->free_next)
            nfree++;
        if (nfree == st->nslots)
            break;
        pthread_cond_wait(&p->progress, &p->mu);
    }
    if (p->use_gpu && p->ngpus > 0)
        pl_gpu_select(p->gpus[st->queue]);
    stream_free(st); /* the pictures went back to the queue's pools with their frames */
    pthread_mutex_unlock(&p->mu);
}

void pl_stream_stats_get(pl_pipeline *p, int stream, pl_stream_stats *out)
{
    memset(out, 0, sizeof *out);
    pl_stream *st = &p->streams[stream];
    pthread_mutex_lock(&p->mu);
    out->submitted = st->submitted;
    out->delivered = st->delivered;
    out->delivered_interlaced = st->delivered_interlaced;
    out->codestream_bytes = st->bytes;
    out->first_delivered_ns = st->first_delivered;
    out->last_delivered_ns = st->last_delivered;
    out->max_delivery_gap_ns = st->max_gap;
    out->max_stall_ns = st->max_stall;
    out->pool_bytes = st->pool_bytes;
    out->pool_pinned_bytes = st->pool_pinned_bytes;
    out->frames = st->nslots;
    out->max_frame_bytes = st->max_frame_bytes;
    if (st->delivered > 1 && st->last_delivered > st->first_delivered)
        out->fps = (double)(st->delivered - 1) * 1e9 /
                   (double)(st->last_delivered - st->first_delivered);
    for (int r = 0; r < PL_DROP_REASONS; r++) {
        out->dropped[r] = st->dropped[r];
        out->dropped_total += st->dropped[r];
    }
    pl_hist_summary(st->lat, &out->latency);
    pl_hist_summary(st->lat_first, &out->latency_first);
    pl_hist_summary(st->dec, &out->decode);
    pl_hist_summary(st->wait, &out->wait);
    pl_hist_summary(st->lat_dev, &out->latency_device);
    pl_hist_summary(st->lat_host, &out->latency_host);
    out->partial_submitted = st->partial_submitted;
    snprintf(out->last_error, sizeof out->last_error, "%s", st->last_error);
    pthread_mutex_unlock(&p->mu);
}

void pl_stream_latency_reset(pl_pipeline *p, int stream)
{
    pl_stream *st = &p->streams[stream];
    pthread_mutex_lock(&p->mu);
    pl_hist *h[] = {st->lat, st->lat_first, st->dec, st->wait, st->lat_dev, st->lat_host};
    for (size_t i = 0; i < sizeof h / sizeof *h; i++)
        if (h[i])
            memset(h[i], 0, sizeof *h[i]);
    pthread_mutex_unlock(&p->mu);
}

/* ---- the caller's CUDA device ----
 * These select the pipeline's GPUs on the calling thread (contexts, pools,
 * streams); the caller's current device is restored before they return
 * (pipeline.h: CUDA devices). */

xsf_status pl_create(pl_pipeline **out, const pl_config *cfg, xsf_error *err)
{
    const int saved = pl_gpu_save();
    const xsf_status st = create_pipeline(out, cfg, err);
    pl_gpu_restore(saved);
    return st;
}

void pl_destroy(pl_pipeline *p)
{
    const int saved = pl_gpu_save();
    destroy_pipeline(p);
    pl_gpu_restore(saved);
}

xsf_status pl_stream_add(pl_pipeline *p, const pl_stream_config *sc, int *id, xsf_error *err)
{
    const int saved = pl_gpu_save();
    const xsf_status st = stream_add(p, sc, id, err);
    pl_gpu_restore(saved);
    return st;
}

void pl_stream_remove(pl_pipeline *p, int stream, pl_stream_stats *final)
{
    const int saved = pl_gpu_save();
    stream_remove(p, stream, final);
    pl_gpu_restore(saved);
}
