/* The RTP source: one receiving thread per stream, packets from a socket or
 * a capture into the depacketizer, which assembles each frame straight into
 * a pipeline frame (rtp_depacketizer_config.acquire): the only host copy
 * between the socket and the GPU upload is the one out of the receive
 * buffer. Interlaced streams are paired here: the second field's
 * codestream joins the first's frame.
 *
 * A classic .pcap file is mapped (rtp_pcap_mapped), and one thread reading
 * it cannot copy fast enough: profiled on a UHD capture (2185 packets of
 * 1.4 kB a frame), the copy of the payloads into the frames took more than
 * half the receiving thread's time once the file was mapped and the
 * reorder window kept pointers instead of copies, the header logic (RTP and
 * RFC 9134 headers, reorder window, assembly, statistics) well under half.
 * So the header logic stays whole on the receiving thread, the same
 * depacketizer as for every other source, deciding and counting exactly as
 * it does there, and only the copies move: the depacketizer lists them
 * (defer_copies) and the copy pool (pl_copy.c) makes them on
 * pl_rtp_config.copy_threads threads and submits the frames in order (with
 * no copy threads, the receiving thread makes them when the frame is
 * whole, which alone is faster than a copy after each packet). The
 * statistics are those of the serial path by construction: the one
 * difference is who writes the payload bytes, and when. Interlaced fields
 * are copied here before they are paired (the pairing moves their bytes);
 * pcapng files, live captures and sockets stay serial. */
#define _GNU_SOURCE /* sched_getaffinity */

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "pl_copy.h"
#include "xsf_codecs.h"

struct pl_rtp_source {
    pl_pipeline *p;
    int stream;
    pl_rtp_config cfg;
    rtp_depacketizer *dep;
    rtp_transport tr; /* the receive transport (none for PL_RTP_PUSH) */
    pthread_t thread;
    int started;
    atomic_int stop, done;
    pthread_mutex_t mu; /* guards snap, kdrops */
    rtp_stats snap;
    uint64_t kdrops;
    int merged; /* legs: merge_snap is the merge's */
    rtp_merge_stats merge_snap;
    xsf_error err;         /* set by the thread before done */
    uint64_t whole;        /* frames submitted */
    uint64_t pushed;       /* PL_RTP_PUSH: packets */
    pl_frame *first_field; /* interlaced: waiting for its second field */
    uint8_t first_f;
    /* --slices: the frame handed to the pipeline before it is whole */
    pl_frame *partial;
    size_t partial_cs_off;   /* where its codestream starts in the buffer (after the boxes) */
    size_t partial_reported; /* the prefix last reported, boxes included */
    pl_frame *orphan;        /* aborted at a stop while the depacketizer still holds its buffer */
    pl_copy_pool *copy;      /* a mapped capture: the deferred copies, the submissions */
    const xsf_codec *codec;  /* the stream's, once known (stream_codec) */
};

/* The stream's codec: asked of the pipeline (under its lock, which every stream's
 * receiving thread and the decoders share) until it is known, then kept: a stream's codec
 * is set once and never changes, so a frame's end takes no lock before it is queued. */
static const xsf_codec *stream_codec(pl_rtp_source *s)
{
    if (!s->codec)
        s->codec = pl_stream_codec(s->p, s->stream);
    return s->codec;
}

/* Codestream mode: the prefix is reported to the decoder every this many
 * bytes (slice mode: at the end of each slice). The decoder launches whole
 * slices only, so finer steps would only cost wake-ups. */
#define PROGRESS_STEP_BYTES 8192

/* Hands a whole frame to the pipeline: through the copy pool (its copies,
 * then its turn) when there is one, else with its copies made here. */
static void submit(pl_rtp_source *s, pl_frame *f, const rtp_copy *copies, size_t n)
{
    if (s->copy) {
        pl_copy_pool_submit(s->copy, f, copies, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        memcpy(f->buffer + copies[i].offset, copies[i].src, copies[i].bytes);
    pl_frame_submit(s->p, f);
}

static uint64_t now_or(uint64_t t)
{
    return t ? t : pl_now_ns();
}

/* The packets' arrival times are of now (a socket's kernel stamps): frames keep them; a
 * capture's are of another day or none, and pushed packets' are the caller's: the
 * pipeline's clock starts when the frame is whole. */
static int arrival_times(const pl_rtp_source *s)
{
    return s->tr.ops && s->tr.ops->clock == RTP_ARRIVAL_REALTIME;
}

/* At the end of the input, a frame handed over partially that the
 * depacketizer neither finished nor gave up (stopped at a frame limit, or
 * a segment it still holds after its flush): it never ends, so it is
 * aborted; its buffer comes back through release() later, as an orphan. */
static void abandon_partial(pl_rtp_source *s)
{
    if (!s->partial)
        return;
    s->orphan = s->partial;
    s->partial = NULL;
    pl_frame_abort(s->p, s->orphan, PL_DROP_INCOMPLETE);
}

static void drop_first_field(pl_rtp_source *s)
{
    if (!s->first_field)
        return;
    pl_frame_discard(s->p, s->first_field);
    s->first_field = NULL;
    pl_count_drop(s->p, s->stream, PL_DROP_FIELD);
}

/* The depacketizer's buffer source: pipeline frames. A frame is assembled
 * straight into the pinned buffer that the GPU uploads from. */
static int acquire(void *ctx, size_t min_bytes, rtp_frame_buffer *b)
{
    pl_rtp_source *s = ctx;
    pl_frame *f = pl_frame_acquire(s->p, s->stream, min_bytes);
    if (!f)
        return 1; /* counted by the receiver: frames_dropped_no_buffer */
    b->data = f->buffer;
    b->capacity = f->capacity;
    b->handle = f;
    return 0;
}

static void release(void *ctx, rtp_frame_buffer *b)
{
    pl_rtp_source *s = ctx;
    pl_frame *f = b->handle;
    if (f && f == s->partial) {
        /* The segment outgrew the frame and goes on in a larger one (which
         * may be handed over partially in turn): this one is not a loss. */
        s->partial = NULL;
        pl_frame_abort(s->p, f, PL_DROP_REASONS);
        return;
    }
    if (f && f == s->orphan) {
        s->orphan = NULL; /* pl_frame_abort gave it back already */
        return;
    }
    pl_frame_discard(s->p, f);
}

/* --slices: the frame under way, handed to the pipeline once its header is
 * in, its complete prefix reported as it grows (the GPU decodes its slices
 * meanwhile). A frame the depacketizer gives up on is aborted. */
static void on_progress(void *ctx, const rtp_progress *pr)
{
    pl_rtp_source *s = ctx;
    pl_frame *f = pr->buffer.handle;
    if (!f)
        return;
    if (pr->dropped) {
        if (f == s->partial) {
            s->partial = NULL;
            pl_frame_abort(s->p, f, PL_DROP_INCOMPLETE); /* also counted by the receiver */
        } else {
            pl_frame_discard(s->p, f); /* never handed over */
        }
        return;
    }
    if (s->partial) {
        if (f != s->partial)
            return;
        if (pr->mode == RTP_JXS_CODESTREAM && pr->bytes - s->partial_reported < PROGRESS_STEP_BYTES)
            return;
        s->partial_reported = pr->bytes;
        pl_frame_progress(s->p, f, pr->bytes - s->partial_cs_off);
        return;
    }
    if (pr->scan != RTP_JXS_PROGRESSIVE || s->cfg.interlaced)
        return; /* fields are paired whole */
    size_t cs_off;
    rtp_jxs_boxes boxes;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_jxs_boxes_parse(pr->buffer.data, pr->bytes, &cs_off, &boxes, &err) != XSF_OK)
        return;
    /* The header, parsed once here and handed over with the frame (the
     * decoder reads it from the description). */
    const xsf_codec *codec = stream_codec(s);
    if (!codec)
        codec = xsf_codec_probe(pr->buffer.data + cs_off, pr->bytes - cs_off);
    xsf_codec_frame *desc = &f->desc[0];
    if (!codec ||
        codec->parse_header(pr->buffer.data + cs_off, pr->bytes - cs_off, desc, &err) != XSF_OK)
        return; /* the header is not whole yet */
    /* The buffer must not move once handed over: where the header (Lcod) says the frame
     * will not fit, it goes whole (the depacketizer moves it to a larger one). */
    if (pr->buffer.data != f->buffer ||
        (desc->codestream_bytes && f->capacity - cs_off < desc->codestream_bytes))
        return;
    f->described = 1u;
    const int captured = !arrival_times(s);
    f->codestream = f->buffer + cs_off;
    f->codestream_bytes = pr->bytes - cs_off;
    f->fields = 1;
    f->rtp_timestamp = pr->timestamp;
    f->has_rtp_timestamp = 1;
    f->t.first_packet = captured ? pl_now_ns() : now_or(pr->first_arrival_ns);
    s->partial = f;
    s->partial_cs_off = cs_off;
    s->partial_reported = pr->bytes;
    pl_frame_submit_partial(s->p, f);
}

static void on_frame(void *ctx, const rtp_frame *rf)
{
    pl_rtp_source *s = ctx;
    pl_frame *f = rf->buffer.handle;
    if (!f)
        return;
    if (f == s->partial) {
        s->partial = NULL;
        if (!rf->complete || rf->data != f->codestream) {
            pl_frame_abort(s->p, f,
                           PL_DROP_INCOMPLETE); /* slices missing: the receiver counts it too */
            return;
        }
        f->codestream_bytes = rf->bytes;
        f->t.last_packet = !arrival_times(s) ? pl_now_ns() : now_or(rf->last_arrival_ns);
        pl_frame_submit(s->p, f);
        s->whole++;
        return;
    }
    if (!rf->complete) {
        /* Slice mode, slices missing: counted by the receiver as partial. */
        pl_frame_discard(s->p, f);
        return;
    }
    /* The depacketizer may have moved to a larger buffer than the frame's own
     * (pl_frame_reserve is how a frame grows; here the pool's buffer came
     * back through acquire, so data lies inside f->buffer). */
    f->codestream = rf->data;
    f->codestream_bytes = rf->bytes;
    /* A capture's packet times are of another day: the pipeline's clock
     * starts when the frame is whole. */
    const int captured = !arrival_times(s);
    f->fields = 1;
    f->rtp_timestamp = rf->timestamp;
    f->has_rtp_timestamp = 1;
    f->t.first_packet = captured ? pl_now_ns() : now_or(rf->first_arrival_ns);
    f->t.last_packet = captured ? f->t.first_packet : now_or(rf->last_arrival_ns);

    if (rf->scan == RTP_JXS_PROGRESSIVE && !s->cfg.interlaced) {
        /* The header the depacketizer parsed travels with the frame (else the decode
         * stage parses it: a stream whose codec is not known yet). */
        const xsf_codec *codec = rf->has_header ? stream_codec(s) : NULL;
        xsf_codec_frame desc;
        xsf_error e;
        xsf_error_clear(&e);
        if (codec && codec->describe &&
            codec->describe(&rf->header, sizeof rf->header, &desc, &e) == XSF_OK)
            pl_frame_set_description(f, 0, &desc);
        submit(s, f, rf->copies, rf->ncopies);
        s->whole++;
        return;
    }
    if (rf->scan == RTP_JXS_PROGRESSIVE) {
        /* A progressive segment in a stream said to be interlaced: pass it on. */
        drop_first_field(s);
        submit(s, f, rf->copies, rf->ncopies);
        s->whole++;
        return;
    }
    /* A field: its bytes are moved below, so they are all written first. */
    for (size_t i = 0; i < rf->ncopies; i++)
        memcpy(f->buffer + rf->copies[i].offset, rf->copies[i].src, rf->copies[i].bytes);
    if (rf->scan == RTP_JXS_FIELD_FIRST) {
        drop_first_field(s); /* its second field never came */
        if (f->codestream != f->buffer)
            memmove(f->buffer, f->codestream, f->codestream_bytes);
        f->codestream = f->buffer;
        s->first_field = f;
        s->first_f = rf->f_counter;
        return;
    }
    /* Second field: it belongs to the waiting first field when their frame
     * counters (F, RFC 9134 4.3) agree. */
    pl_frame *a = s->first_field;
    if (!a || s->first_f != rf->f_counter) {
        drop_first_field(s);
        pl_frame_discard(s->p, f);
        pl_count_drop(s->p, s->stream, PL_DROP_FIELD);
        return;
    }
    s->first_field = NULL;
    const size_t first = a->codestream_bytes;
    xsf_error err;
    xsf_error_clear(&err);
    if (pl_frame_reserve(s->p, a, first + rf->bytes, first, &err) != XSF_OK) {
        pl_frame_discard(s->p, a);
        pl_frame_discard(s->p, f);
        pl_count_drop(s->p, s->stream, PL_DROP_NO_FRAME);
        return;
    }
    memcpy(a->buffer + first, rf->data, rf->bytes);
    a->codestream = a->buffer;
    a->codestream_bytes = first + rf->bytes;
    a->fields = 2;
    a->field_bytes[0] = first;
    a->field_bytes[1] = rf->bytes;
    a->t.last_packet = f->t.last_packet;
    pl_frame_discard(s->p, f);
    submit(s, a, NULL, 0);
    s->whole++;
}

/* One CSV line of header fields per packet (the fields tshark names
 * rtp.version, rtp.padding, rtp.ext, rtp.cc, rtp.marker, rtp.p_type,
 * rtp.seq, rtp.timestamp, rtp.ssrc; then T, K, L, I, F, SEP, P of RFC 9134). */
static void log_packet(FILE *f, const uint8_t *p, size_t n)
{
    rtp_header h;
    rtp_jxs_header j;
    xsf_error err;
    xsf_error_clear(&err);
    if (rtp_header_parse(p, n, &h, &err) != XSF_OK) {
        fprintf(f, "invalid\n");
        return;
    }
    fprintf(f, "%u,%u,%u,%u,%u,%u,%u,%u,0x%08x", h.version, h.padding, h.extension, h.csrc_count,
            h.marker, h.payload_type, h.seq, h.timestamp, h.ssrc);
    if (rtp_jxs_header_parse(h.payload, h.payload_bytes, &j, &err) == XSF_OK)
        fprintf(f, ",%u,%u,%u,%u,%u,%u,%u\n", j.t, j.k, j.l, j.i, j.f, j.sep, j.p);
    else
        fprintf(f, ",invalid\n");
}

static void snapshot(pl_rtp_source *s)
{
    pthread_mutex_lock(&s->mu);
    s->snap = *rtp_depacketizer_stats(s->dep);
    s->kdrops = rtp_transport_kernel_drops(&s->tr);
    s->merged = rtp_transport_merge_stats(&s->tr, &s->merge_snap);
    pthread_mutex_unlock(&s->mu);
}

/* seq_ext: the legs' merge's number (rtp_datagram.seq_ext), 0: none. */
static void push(pl_rtp_source *s, const uint8_t *data, size_t len, int truncated, uint64_t t,
                 uint64_t seq_ext)
{
    if (s->cfg.packet_log)
        log_packet(s->cfg.packet_log, data, len);
    if (truncated)
        rtp_depacketizer_count_truncated(s->dep);
    else
        rtp_depacketizer_push_seq(s->dep, data, len, t, seq_ext);
}

/* Reads and pushes one batch of packets; XSF_ERR_TRUNCATED at the end of the input. A
 * transport that gathers (reads of one packet, a mapped file's of many) is read until a
 * batch is in, or it has none now; a socket's read is one recvmmsg batch. */
static xsf_status read_batch(pl_rtp_source *s, int *got)
{
    const pl_rtp_config *c = &s->cfg;
    const rtp_transport_ops *ops = s->tr.ops;
    rtp_datagram dg[RTP_UDP_BATCH];
    size_t total = 0, n = 0;
    xsf_status st;
    *got = 0;
    do {
        st = rtp_transport_read(&s->tr, 20, dg, RTP_UDP_BATCH, &n, &s->err);
        if (n)
            *got = 1;
        for (size_t i = 0; i < n; i++) {
            if (c->max_frames && s->whole >= c->max_frames)
                break;
            if (dg[i].foreign_source) /* not the sender given: never parsed */
                rtp_depacketizer_count_foreign_source(s->dep);
            else
                push(s, dg[i].data, dg[i].bytes, dg[i].truncated,
                     ops->clock == RTP_ARRIVAL_NONE ? pl_now_ns() : dg[i].arrival_ns,
                     dg[i].seq_ext);
        }
        total += n;
    } while (st == XSF_OK && n && ops->gather && total < RTP_UDP_BATCH &&
             !(c->max_frames && s->whole >= c->max_frames));
    if (st == XSF_OK && !n)
        rtp_depacketizer_poll(s->dep, pl_now_ns()); /* the clock of the kernel's stamps */
    return st;
}

static void *source_main(void *arg)
{
    pl_rtp_source *s = arg;
    const pl_rtp_config *c = &s->cfg;
    const uint64_t start = pl_now_ns();
    uint64_t last_packet = start, last_snap = 0;
    int limit = 0, any = 0;
    /* Before the first packet the wait, after it the timeout. */
    const double wait_s = c->wait_s ? c->wait_s : c->timeout_s;
    while (!atomic_load(&s->stop)) {
        const uint64_t now = pl_now_ns();
        if (c->max_frames && s->whole >= c->max_frames) {
            limit = 1;
            break;
        }
        if (c->duration_s > 0 && (double)(now - start) / 1e9 >= c->duration_s)
            break;
        const double silent_s = any ? c->timeout_s : wait_s;
        if (s->tr.ops->live && silent_s > 0 && (double)(now - last_packet) / 1e9 >= silent_s)
            break;
        if (now - last_snap > 5000000u) {
            snapshot(s);
            last_snap = now;
        }
        int got;
        const xsf_status st = read_batch(s, &got);
        if (got) {
            last_packet = pl_now_ns();
            any = 1;
        }
        if (st == XSF_ERR_TRUNCATED) {
            xsf_error_clear(&s->err);
            break; /* the end of the file */
        }
        if (st != XSF_OK)
            break;
    }
    if (!limit)
        rtp_depacketizer_flush(s->dep);
    abandon_partial(s);
    if (s->first_field)
        drop_first_field(s);
    if (s->copy)
        pl_copy_pool_wait(s->copy); /* every frame submitted before the source is done */
    snapshot(s);
    atomic_store(&s->done, 1);
    return NULL;
}

/* The transport of a configuration: named, or the kind's (its legs merged: "dup:KIND"). */
static const char *transport_name(const pl_rtp_config *c)
{
    if (c->transport)
        return c->transport;
    if (c->legs.n >= 2)
        return c->kind == PL_RTP_SOCKET ? "dup:udp"
               : c->kind == PL_RTP_PCAP ? "dup:pcap"
                                        : "dup:capture";
    return c->kind == PL_RTP_SOCKET ? "udp" : c->kind == PL_RTP_PCAP ? "pcap" : "capture";
}

xsf_status pl_rtp_source_open(pl_rtp_source **out, const pl_rtp_config *cfg, xsf_error *err)
{
    *out = NULL;
    pl_rtp_source *s = calloc(1, sizeof *s);
    if (!s)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    s->cfg = *cfg;
    xsf_error_clear(&s->err);
    pthread_mutex_init(&s->mu, NULL);
    xsf_status st = XSF_OK;
    if (cfg->kind != PL_RTP_PUSH) { /* else packets come through pl_rtp_source_push */
        const rtp_transport_config tc = {.udp = cfg->udp,
                                         .path = cfg->path,
                                         .filter = cfg->filter,
                                         .legs = cfg->legs.n >= 2 ? &s->cfg.legs : NULL};
        st = rtp_transport_open(&s->tr, transport_name(cfg), &tc, err);
    }
    if (st != XSF_OK) {
        pl_rtp_source_destroy(s);
        return st;
    }
    *out = s;
    return XSF_OK;
}

/* pl_rtp_config.copy_threads: 0 is one per core beyond the two that the
 * receiving thread and the decode stage's threads need, at most 4: on the
 * H100 machine (16 cores) the UHD capture's source gave 4226 frames/s with
 * 4 copy threads and 3416 with 8 (BENCHMARKS.md): more threads than a
 * frame's copies need only contend for memory bandwidth. */
static unsigned copy_threads(const pl_rtp_config *c)
{
    if (c->copy_threads < 0)
        return 0;
    if (c->copy_threads > 0)
        return c->copy_threads > 64 ? 64 : (unsigned)c->copy_threads;
    cpu_set_t set;
    int cores = 1;
    if (!sched_getaffinity(0, sizeof set, &set))
        cores = CPU_COUNT(&set);
    return cores <= 2 ? 0 : cores - 2 > 4 ? 4 : (unsigned)(cores - 2);
}

xsf_status pl_rtp_source_start(pl_rtp_source *s, pl_pipeline *p, int stream, xsf_error *err)
{
    if (s->started || s->dep)
        return xsf_error_set(err, XSF_ERR_ARG, "the source is already started");
    s->p = p;
    s->stream = stream;
    rtp_depacketizer_config dc = s->cfg.depacketizer;
    dc.on_frame = on_frame;
    dc.ctx = s;
    dc.acquire = acquire;
    dc.release = release;
    dc.buffer_ctx = s;
    dc.on_progress = s->cfg.slices ? on_progress : NULL;
    dc.packets_kept = rtp_transport_packets_kept(&s->tr);
    xsf_status st = XSF_OK;
    const unsigned copiers = copy_threads(&s->cfg);
    /* Deferred even without copy threads: a frame's copies made one after the
     * other once its last packet is read run about a fifth faster than a copy
     * after each packet's headers (measured on the UHD capture). Not with
     * --slices: the prefix reported to the decoder must be in the buffer. */
    dc.defer_copies = dc.packets_kept && !s->tr.ops->live && !s->cfg.slices;
    if (dc.defer_copies && copiers)
        st = pl_copy_pool_create(&s->copy, p, copiers, err);
    if (st == XSF_OK)
        st = rtp_depacketizer_create(&s->dep, &dc, err);
    if (st == XSF_OK && s->cfg.kind == PL_RTP_PUSH) {
        snapshot(s);
        return XSF_OK; /* no thread: the caller pushes */
    }
    if (st == XSF_OK && pthread_create(&s->thread, NULL, source_main, s))
        st = xsf_error_set(err, XSF_ERR_NOMEM, "cannot start the receiving thread");
    if (st != XSF_OK)
        return st;
    s->started = 1;
    return XSF_OK;
}

void pl_rtp_source_push(pl_rtp_source *s, const uint8_t *pkt, size_t len, uint64_t arrival_ns)
{
    if (!s->dep || atomic_load(&s->done))
        return;
    push(s, pkt, len, 0, arrival_ns ? arrival_ns : pl_now_ns(), 0);
    if (++s->pushed % 64 == 0)
        snapshot(s);
}

void pl_rtp_source_flush(pl_rtp_source *s)
{
    if (!s->dep || atomic_load(&s->done))
        return;
    rtp_depacketizer_flush(s->dep);
    abandon_partial(s);
    if (s->first_field)
        drop_first_field(s);
    snapshot(s);
    atomic_store(&s->done, 1);
}

void pl_rtp_source_stop(pl_rtp_source *s)
{
    atomic_store(&s->stop, 1);
}

int pl_rtp_source_done(pl_rtp_source *s)
{
    return (!s->started && s->cfg.kind != PL_RTP_PUSH) || atomic_load(&s->done);
}

void pl_rtp_source_stats(pl_rtp_source *s, rtp_stats *st, uint64_t *kernel_drops)
{
    if (!s->dep) {
        memset(st, 0, sizeof *st);
        if (kernel_drops)
            *kernel_drops = 0;
        return;
    }
    pthread_mutex_lock(&s->mu);
    *st = s->snap;
    if (kernel_drops)
        *kernel_drops = s->kdrops;
    pthread_mutex_unlock(&s->mu);
}

int pl_rtp_source_merge_stats(pl_rtp_source *s, rtp_merge_stats *st)
{
    pthread_mutex_lock(&s->mu);
    const int merged = s->merged;
    if (merged)
        *st = s->merge_snap;
    pthread_mutex_unlock(&s->mu);
    if (!merged)
        memset(st, 0, sizeof *st);
    return merged;
}

xsf_status pl_rtp_source_join(pl_rtp_source *s, xsf_error *err)
{
    if (s->started) {
        pthread_join(s->thread, NULL);
        s->started = 0;
    }
    if (s->err.status != XSF_OK) {
        *err = s->err;
        return s->err.status;
    }
    return XSF_OK;
}

void pl_rtp_source_destroy(pl_rtp_source *s)
{
    if (!s)
        return;
    if (s->started) {
        pl_rtp_source_stop(s);
        pthread_join(s->thread, NULL);
    }
    pl_copy_pool_destroy(s->copy);
    rtp_depacketizer_destroy(s->dep);
    rtp_transport_close(&s->tr);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

uint16_t pl_rtp_source_local_port(const pl_rtp_source *s)
{
    return rtp_transport_local_port(&s->tr);
}

size_t pl_rtp_source_buffer_bytes(const pl_rtp_source *s)
{
    return rtp_transport_buffer_bytes(&s->tr);
}
