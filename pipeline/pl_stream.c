/* Streams and frames: adding and removing streams, taking, filling and
 * submitting frames (whole or partial), the in-order hand-over to the sinks
 * (pl_emit) and the statistics. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_gpu.h"
#include "pl_internal.h"
#include "xsf_clock.h"

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

void pl_free_slot(pl_stream *st, pl_slot *s)
{
    /* Back in the pool unpinned: the provisioner's turn. */
    if (s->pinned && s->f.buffer && !pl_host_pinned(s->f.buffer))
        pl_provision_wake_locked(s->p);
    pl_slot_pictures_release(s);
    s->queue = st->queue; /* a stream moved to its GPU (pipeline.c) borrows from there now */
    s->state = SLOT_FREE;
    s->discard = 0;
    s->partial = s->aborted = s->waiting = 0;
    s->avail = 0;
    s->free_next = st->free;
    st->free = s;
}

/* A delivered frame's times into the stream's histograms (under hist_mu, not p->mu:
 * one stream emits on one thread at a time, the others go on meanwhile). */
static void hist_frame(pl_stream *st, const pl_frame *f, uint64_t ready, pl_placement where)
{
    pthread_mutex_lock(&st->hist_mu);
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
    if (f->t.capture && ready >= f->t.capture)
        pl_hist_add(st->lat_capture, ready - f->t.capture);
    pthread_mutex_unlock(&st->hist_mu);
}

/* Hands the done frames at the head of the stream's order to its sink, one
 * thread at a time. Called and returns with p->mu held. */
void pl_emit(pl_pipeline *p, pl_stream *st)
{
    if (st->emitting)
        return;
    st->emitting = 1;
    while (st->order_head && st->order_head->state == SLOT_DONE) {
        pl_slot *s = st->order_head;
        order_unlink(st, s);
        if (s->discard) {
            pl_free_slot(st, s);
            continue;
        }
        if (s->failed) {
            if (st->sink.refused) {
                /* The slot is off the order list and not free: nobody else touches it. */
                pthread_mutex_unlock(&p->mu);
                st->sink.refused(st->sink.ctx, &s->f, s->error);
                pthread_mutex_lock(&p->mu);
            }
            pl_free_slot(st, s);
            continue;
        }
        pl_frame *f = &s->f;
        f->t.delivered = pl_now_ns();
        const pl_placement where = st->sink.placement;
        const uint64_t ready = (where & PL_PICTURE_HOST)     ? f->t.host_ready
                               : (where & PL_PICTURE_DEVICE) ? f->t.device_ready
                                                             : f->t.queued;
        if (st->capture_clock && f->has_rtp_timestamp && f->t.last_packet) {
            /* The RTP timestamp names the capture instant on TAI (ST 2110-10): read it
             * against the TAI time of the last packet's arrival. */
            const uint64_t tai = f->t.last_packet + (uint64_t)st->tai_offset;
            f->t.capture = rtp_tai_unwrap_ns(f->rtp_timestamp, tai) - (uint64_t)st->tai_offset;
            if (ready < f->t.capture)
                st->capture_after_picture++;
        }
        if (!p->startup.first_picture_ns)
            p->startup.first_picture_ns = xsf_clock_mono_ns() - p->created;
        if (!st->delivered) {
            st->first_delivered = f->t.delivered;
            const uint64_t from = st->first_acquired ? st->first_acquired : st->added;
            st->first_picture = f->t.delivered > from ? f->t.delivered - from : 1;
        } else if (f->t.delivered > st->last_delivered) {
            const uint64_t gap = f->t.delivered - st->last_delivered;
            /* A stall: the part of the gap that neither the stream's own clock (frames
             * dropped in between, a slower rate) nor the later arrival of the frame's
             * last packet (a late sender, a frame that was waiting for a packet) explains:
             * time the receiver itself lost. */
            uint64_t explained = 0;
            if (f->has_rtp_timestamp && st->last_has_rtp_ts)
                explained = (uint64_t)xsf_ticks_to_ns(
                    (uint32_t)(f->rtp_timestamp - st->last_rtp_ts), RTP_CLOCK_HZ);
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
        hist_frame(st, f, ready, where);
        if (st->frame_log) /* one stream emits on one thread at a time: its lines are in order */
            fprintf(st->frame_log,
                    "%d,%llu,%u,%zu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", f->stream,
                    (unsigned long long)f->index, f->rtp_timestamp, f->codestream_bytes,
                    (unsigned long long)f->t.first_packet, (unsigned long long)f->t.last_packet,
                    (unsigned long long)f->t.queued, (unsigned long long)f->t.decode_start,
                    (unsigned long long)f->t.device_ready, (unsigned long long)f->t.host_ready,
                    (unsigned long long)f->t.delivered, (unsigned long long)f->t.whole,
                    (unsigned long long)f->t.final_start, (unsigned long long)f->t.capture);
        st->sink.deliver(st->sink.ctx, f);
        pthread_mutex_lock(&p->mu);
    }
    st->emitting = 0;
    pthread_cond_broadcast(&p->progress);
}

void pl_stream_free(pl_stream *st)
{
    for (unsigned i = 0; i < st->nslots; i++) {
        pl_slot *s = &st->slots[i];
        pl_host_free(s->f.buffer, s->pinned);
        for (int k = 0; k < PL_MAX_FIELDS; k++) { /* (every frame is back in the pool by now) */
            if (s->host[k]) {
                pl_host_free(s->host[k]->ptr, s->pinned);
                free(s->host[k]);
            }
            if (s->dev[k]) {
                pl_gpu_free(s->dev[k]->ptr);
                free(s->dev[k]);
            }
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
    free(st->lat_capture);
    free(st->step);
    free(st->final_enqueue);
    free(st->final_sync);
    if (st->used)
        pthread_mutex_destroy(&st->hist_mu);
    memset(st, 0, sizeof *st);
}

/* ---- streams and frames ---- */

/* The frames of a live stream (PL_DROP_OLDEST) by default on the GPU: one arriving, one
 * or two decoding (a partial frame's last step beside the next frame's first), and a
 * burst's worth more (at 60 fps, 16 frames are 267 ms); the CPU engine's decoders take
 * tens of milliseconds a frame, a frame each: 2 x decoders + 4 there, at least this.
 * Not more with more GPU decoder contexts: a live
 * stream's frames queued behind late decoders are latency, better dropped (the oldest
 * first), and each frame's codestream buffer is memory that the GPU engine pins (a
 * receiver's reserve holds 16 UHD frames a stream; what does not fit was pinned while
 * the streams ran, holding the CUDA driver's lock from every decoder: with 18 decoders,
 * 40 frames a stream, 16 UHD streams with host pictures fell behind, their queues grew
 * past the reserve, and the pinning made them fall further behind). */
#define PL_LIVE_FRAMES 16u

/* Frees a stream's memory and gives its id back (stream_free zeroes it,
 * `used` included), under the lock so that pl_stream_add sees it whole. */
static void stream_release_id(pl_pipeline *p, pl_stream *st)
{
    pthread_mutex_lock(&p->mu);
    pl_stream_free(st);
    pthread_mutex_unlock(&p->mu);
}

static xsf_status stream_add(pl_pipeline *p, const pl_stream_config *sc, int *id, xsf_error *err)
{
    if (!sc->sink.deliver)
        return xsf_error_set(err, XSF_ERR_ARG, "a stream needs a sink");
    if ((unsigned)sc->pix_fmt >= XSF_CONTAINERS)
        return xsf_error_set(err, XSF_ERR_ARG, "no pixel format %d (xsf_container)",
                             (int)sc->pix_fmt);
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
    const xsf_codec *codec = sc->codec ? xsf_codec_find(sc->codec) : NULL;
    if (sc->codec && !codec) {
        pthread_mutex_unlock(&p->mu);
        return xsf_error_set(err, XSF_ERR_ARG, "no codec '%s'", sc->codec);
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
    st->capture_clock = sc->capture_clock;
    st->tai_offset = sc->capture_clock ? xsf_clock_tai_offset_ns() : 0;
    st->codec = codec;
    st->codec_params = sc->codec_params;
    st->pix_fmt = sc->pix_fmt;
    st->pix_colour = sc->pix_colour;
    st->added = pl_now_ns();
    pthread_mutex_lock(&p->mu); /* the GPUs known (their start may end meanwhile) */
    st->queue = p->use_gpu && p->ngpus ? sid % p->ngpus : 0;
    pthread_mutex_unlock(&p->mu);
    /* Enough frames to absorb a burst and keep every decoder of the stream's
     * queue busy. Picture memory is allocated by a frame's first decode and
     * frames are reused last-in first-out, so the frames a stream never needs
     * at once cost only their codestream buffer. */
    const unsigned per_queue =
        p->use_gpu && !p->ngpus ? (p->cfg.contexts_per_gpu ? (unsigned)p->cfg.contexts_per_gpu : 3)
                                : p->nworkers / (unsigned)(p->use_gpu ? p->ngpus : 1);
    if (sc->frames)
        st->nslots = sc->frames;
    else if (sc->backpressure == PL_BLOCK)
        st->nslots = 2 * per_queue + 2; /* a file source waits: enough to keep the decoders busy */
    else
        st->nslots = p->use_gpu || 2 * per_queue + 4 < PL_LIVE_FRAMES
                         ? PL_LIVE_FRAMES
                         : 2 * per_queue + 4; /* the C decoders: a frame each at once */
    /* And the frames the sink keeps after their delivery (a writer's threads at work on
     * them): those never absorb a burst or feed a decoder. Without them an MD5 writer's
     * frames took the soak's pool of 16 whenever it lagged, and frames were dropped for
     * want of one (BENCHMARKS.md). */
    st->holds = sc->sink.holds < PL_HOLDS_MAX ? sc->sink.holds : PL_HOLDS_MAX;
    if (!sc->frames)
        st->nslots += st->holds;
    st->expected_frames = sc->expected_frames;
    if (!sc->frames && sc->expected_frames && sc->expected_frames < st->nslots)
        st->nslots = sc->expected_frames; /* a short file: no frame it cannot fill */
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
    st->lat_capture = calloc(1, sizeof *st->lat_capture);
    st->step = calloc(1, sizeof *st->step);
    st->final_enqueue = calloc(1, sizeof *st->final_enqueue);
    st->final_sync = calloc(1, sizeof *st->final_sync);
    pthread_mutex_init(&st->hist_mu, NULL);
    if (!st->slots || !st->lat || !st->lat_first || !st->dec || !st->wait || !st->lat_dev ||
        !st->lat_host || !st->lat_capture || !st->step || !st->final_enqueue || !st->final_sync) {
        stream_release_id(p, st);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the stream's frames");
    }
    if (p->use_gpu && pl_gpu_ready(p))
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
            s->f.buffer = pl_codestream_buffer(p, st, s->pinned, first);
            if (!s->f.buffer) {
                stream_release_id(p, st);
                return xsf_error_set(err, XSF_ERR_NOMEM,
                                     "out of %s memory for a frame of %zu bytes",
                                     p->use_gpu ? "pinned host" : "host", first);
            }
            s->f.capacity = first;
            st->pool_bytes += first;
            if (s->pinned && pl_host_pinned(s->f.buffer))
                st->pool_pinned_bytes += first;
        }
        pl_free_slot(st, s);
    }
    pthread_mutex_lock(&p->mu);
    st->used = 1;
    pl_provision_wake_locked(p); /* the frame taken first is pinned before any packet */
    pthread_mutex_unlock(&p->mu);
    *id = sid;
    return XSF_OK;
}

void pl_queue_unlink(pl_queue *q, pl_slot *prev, pl_slot *s)
{
    if (prev)
        prev->work_next = s->work_next;
    else
        q->head = s->work_next;
    if (q->tail == s)
        q->tail = prev;
    s->work_next = NULL;
}

/* Takes a queued frame off its decoders' queue. */
static void queue_remove(pl_queue *q, pl_slot *s)
{
    pl_slot *prev = NULL;
    for (pl_slot *it = q->head; it; prev = it, it = it->work_next) {
        if (it == s) {
            pl_queue_unlink(q, prev, s);
            return;
        }
    }
    s->work_next = NULL;
}

/* The oldest frame of `st` still waiting for a decoder, taken off its queue. */
static pl_slot *take_oldest_waiting(pl_pipeline *p, pl_stream *st)
{
    pl_slot *s = st->order_head;
    while (s && (s->state != SLOT_QUEUED ||
                 s->partial)) /* a partial frame's source still writes into it */
        s = s->order_next;
    if (!s)
        return NULL;
    queue_remove(&p->queues[st->queue], s);
    order_unlink(st, s);
    return s;
}

/* Gives the frame a codestream buffer of `bytes`, keeping its first `keep` bytes. */
static xsf_status slot_resize(pl_pipeline *p, pl_frame *f, size_t bytes, size_t keep,
                              xsf_error *err)
{
    pl_slot *s = (pl_slot *)f;
    pl_stream *st = &p->streams[f->stream];
    const uint64_t t0 = xsf_clock_mono_ns();
    uint8_t *nb = pl_codestream_buffer(p, st, s->pinned, bytes);
    const uint64_t ns = xsf_clock_mono_ns() - t0 + 1;
    if (!nb)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of host memory for a %zu-byte frame", bytes);
    if (keep > f->capacity)
        keep = f->capacity;
    if (keep)
        memcpy(nb, f->buffer, keep);
    if (f->buffer && f->codestream >= f->buffer && f->codestream < f->buffer + f->capacity)
        f->codestream = nb + (f->codestream - f->buffer);
    pthread_mutex_lock(&p->mu);
    st->allocs++;
    if (ns > st->alloc_ns_max)
        st->alloc_ns_max = ns;
    st->pool_bytes += bytes - f->capacity;
    if (f->buffer && s->pinned && pl_host_pinned(f->buffer))
        st->pool_pinned_bytes -= f->capacity;
    if (s->pinned && pl_host_pinned(nb)) /* carved from the reserve */
        st->pool_pinned_bytes += bytes;
    void *old = s->pinned ? pl_give_up_locked(p, f->buffer) : f->buffer;
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
    if (s) {
        s->state = SLOT_FILLING;
        if (!st->first_acquired)
            st->first_acquired = pl_now_ns();
    }
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
    f->described = 0;
    for (int k = 0; k < PL_MAX_FIELDS; k++) {
        xsf_picture_init(&f->picture[k]);
        xsf_picture_init(&f->device_picture[k]);
    }
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
    /* A stream without a codec takes its first frame's (a codestream no codec
     * claims is refused by the decode stage, and the next frame probed again). */
    if (!st->codec && s->f.codestream)
        st->codec = xsf_codec_probe(s->f.codestream, s->f.codestream_bytes);
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
    /* Called every few kB by every stream's receiving thread: p->mu only where a decoder
     * waits for what came (pl_slot: the source is the only writer of partial and of avail
     * while the frame is partial). */
    if (!s->partial || complete_bytes <= __atomic_load_n(&s->avail, __ATOMIC_RELAXED))
        return;
    __atomic_store_n(&s->avail, complete_bytes, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&s->waiting, __ATOMIC_SEQ_CST) ||
        complete_bytes < __atomic_load_n(&s->wake_at, __ATOMIC_SEQ_CST))
        return;
    pthread_mutex_lock(&p->mu);
    if (s->waiting && s->avail >= s->wake_at)
        pthread_cond_signal(&s->cv);
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
        pl_free_slot(st, s);
    } else if (s->state == SLOT_DECODING) {
        s->aborted = 1; /* the decoder ends it and frees it in order */
        s->partial = 0;
        if (s->waiting)
            pthread_cond_signal(&s->cv);
    } else if (s->state == SLOT_FILLING) {
        pl_free_slot(st, s); /* acquired, never submitted */
    }
    pthread_cond_broadcast(&p->progress);
    pthread_mutex_unlock(&p->mu);
}

xsf_status pl_frame_set_header(pl_pipeline *p, pl_frame *f, int field, const void *parsed,
                               size_t size, xsf_error *err)
{
    if (field < 0 || field >= PL_MAX_FIELDS)
        return xsf_error_set(err, XSF_ERR_ARG, "field %d: a frame has fields 0 and 1", field);
    const xsf_codec *codec = pl_stream_codec(p, f->stream);
    if (!codec || !codec->describe)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "the stream has no codec yet to take a parsed header");
    f->described &= ~(1u << field);
    const xsf_status st = codec->describe(parsed, size, &f->desc[field], err);
    if (st == XSF_OK)
        f->described |= 1u << field;
    return st;
}

void pl_frame_set_description(pl_frame *f, int field, const xsf_codec_frame *desc)
{
    if (field < 0 || field >= PL_MAX_FIELDS)
        return;
    f->desc[field] = *desc;
    f->described |= 1u << field;
}

const xsf_codec *pl_stream_codec(pl_pipeline *p, int stream)
{
    pthread_mutex_lock(&p->mu);
    const xsf_codec *c = stream >= 0 && stream < PL_MAX_STREAMS ? p->streams[stream].codec : NULL;
    pthread_mutex_unlock(&p->mu);
    return c;
}

void pl_frame_discard(pl_pipeline *p, pl_frame *f)
{
    pl_slot *s = (pl_slot *)f;
    pthread_mutex_lock(&p->mu);
    pl_free_slot(&p->streams[f->stream], s);
    pthread_cond_broadcast(&p->progress);
    pthread_mutex_unlock(&p->mu);
}

void pl_frame_release(pl_frame *f)
{
    pl_slot *s = (pl_slot *)f;
    pl_pipeline *p = s->p;
    pthread_mutex_lock(&p->mu);
    pl_free_slot(&p->streams[f->stream], s);
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
        pl_free_slot(st, s);
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
    pl_stream_free(st); /* the pictures went back to the queue's pools with their frames */
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
    out->first_picture_ns = st->first_picture;
    out->last_delivered_ns = st->last_delivered;
    out->max_delivery_gap_ns = st->max_gap;
    out->max_stall_ns = st->max_stall;
    out->pool_bytes = st->pool_bytes;
    out->pool_pinned_bytes = st->pool_pinned_bytes;
    out->frames = st->nslots;
    out->max_frame_bytes = st->max_frame_bytes;
    if (st->delivered > 1 && st->last_delivered > st->first_delivered)
        out->fps =
            (double)(st->delivered - 1) * 1e9 / (double)(st->last_delivered - st->first_delivered);
    for (int r = 0; r < PL_DROP_REASONS; r++) {
        out->dropped[r] = st->dropped[r];
        out->dropped_total += st->dropped[r];
    }
    out->capture_after_picture = st->capture_after_picture;
    out->partial_submitted = st->partial_submitted;
    out->allocs = st->allocs;
    out->alloc_max_us = (double)st->alloc_ns_max / 1e3;
    snprintf(out->last_error, sizeof out->last_error, "%s", st->last_error);
    const int used = st->used == 1;
    pthread_mutex_unlock(&p->mu);
    if (!used) /* (an id not in use: its histograms are gone) */
        return;
    /* The summaries walk the histograms: under the stream's own lock. */
    pthread_mutex_lock(&st->hist_mu);
    pl_hist_summary(st->lat, &out->latency);
    pl_hist_summary(st->lat_first, &out->latency_first);
    pl_hist_summary(st->dec, &out->decode);
    pl_hist_summary(st->wait, &out->wait);
    pl_hist_summary(st->lat_dev, &out->latency_device);
    pl_hist_summary(st->lat_host, &out->latency_host);
    pl_hist_summary(st->lat_capture, &out->latency_capture);
    pl_hist_summary(st->step, &out->step);
    pl_hist_summary(st->final_enqueue, &out->final_enqueue);
    pl_hist_summary(st->final_sync, &out->final_sync);
    out->steps = st->steps;
    pthread_mutex_unlock(&st->hist_mu);
}

void pl_stream_latency_reset(pl_pipeline *p, int stream)
{
    pl_stream *st = &p->streams[stream];
    pthread_mutex_lock(&p->mu);
    st->allocs = st->alloc_ns_max = 0;
    const int used = st->used == 1;
    pthread_mutex_unlock(&p->mu);
    if (!used)
        return;
    pthread_mutex_lock(&st->hist_mu);
    pl_hist *h[] = {st->lat,      st->lat_first,   st->dec,  st->wait,          st->lat_dev,
                    st->lat_host, st->lat_capture, st->step, st->final_enqueue, st->final_sync};
    for (size_t i = 0; i < sizeof h / sizeof *h; i++)
        if (h[i])
            memset(h[i], 0, sizeof *h[i]);
    st->steps = 0;
    pthread_mutex_unlock(&st->hist_mu);
}

/* ---- the caller's CUDA device ----
 * These select the pipeline's GPUs on the calling thread; the caller's
 * current device is restored before they return (pipeline.h: CUDA devices). */

/* The caller's device, saved where the pipeline runs on GPUs (the CPU engine never
 * starts CUDA); -1: nothing to restore. */
static int save_device(const pl_pipeline *p)
{
    return p->use_gpu && pl_gpu_ready(p) ? pl_gpu_save() : -1;
}

xsf_status pl_stream_add(pl_pipeline *p, const pl_stream_config *sc, int *id, xsf_error *err)
{
    const int saved = save_device(p);
    const xsf_status st = stream_add(p, sc, id, err);
    pl_gpu_restore(saved);
    return st;
}

void pl_stream_remove(pl_pipeline *p, int stream, pl_stream_stats *final)
{
    const int saved = save_device(p);
    stream_remove(p, stream, final);
    pl_gpu_restore(saved);
}
