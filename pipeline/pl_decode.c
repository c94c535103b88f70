/* The decode stage: decoder threads, each with a decoder of each codec
 * (on a GPU with its own CUDA stream, or the C decoder), taking frames off
 * their queue and decoding them through the codec table into pictures of
 * the queue's pools; the done frames go to pl_emit in order. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pl_gpu.h"
#include "pl_internal.h"
#include "xsf_clock.h"

static void fail(pl_slot *s, char *msg, size_t cap, const char *what)
{
    s->failed = 1;
    snprintf(msg, cap, "%s", what); /* `what` may quote the codestream: never a format */
}

static const char field_mismatch[] =
    "the second field's picture differs from the first's in size or sampling";

/* The worker's decoder for `codec`, made by its first frame (on this thread, whose
 * device is the worker's); NULL where the codec has none of this kind. */
static void *decoder_of(pl_worker *w, const xsf_codec *codec, xsf_error *e)
{
    const int k = xsf_codec_index(codec);
    if (k < 0)
        return NULL;
    if (!w->dec[k] && !w->dec_tried[k]) {
        w->dec_tried[k] = 1;
        if (w->device >= 0 && codec->gpu_create)
            codec->gpu_create(&w->dec[k], w->device, w->cs, e);
        else if (w->device < 0 && codec->cpu_create && codec->cpu_create(&w->dec[k], e) == XSF_OK &&
                 codec->cpu_parallel && w->par.threads > 1)
            codec->cpu_parallel(w->dec[k], &w->par); /* each frame in parts, on idle threads */
    }
    if (!w->dec[k] && !e->msg[0])
        xsf_error_set(e, XSF_ERR_UNSUPPORTED, "no %s decoder for %s", w->device >= 0 ? "GPU" : "C",
                      codec->long_name);
    return w->dec[k];
}

xsf_status pl_worker_init(pl_worker *w, pl_pipeline *p, int queue, int device, xsf_error *err)
{
    memset(w, 0, sizeof *w);
    w->p = p;
    w->queue = queue;
    w->device = device;
    if (device < 0) { /* the C decoder threads, each frame's parts shared with the idle ones */
        const unsigned n = p->cfg.cpu_threads ? p->cfg.cpu_threads : (unsigned)xsf_cpu_count();
        w->par =
            (xsf_parallel){.run = pl_parallel_run, .self = w, .threads = n < 256 ? (int)n : 256};
    }
    if (device >= 0 && (pl_gpu_select(device) || !(w->cs = pl_gpu_stream_create())))
        return xsf_error_set(err, XSF_ERR_CUDA, "cannot create a CUDA stream on GPU %d", device);
    /* The registry's first codec (the default) has its decoders made with the pipeline;
     * the others' are made by their first frame. */
    unsigned it = 0;
    const xsf_codec *first = xsf_codec_iterate(&it);
    xsf_error e;
    xsf_error_clear(&e);
    if (first && !decoder_of(w, first, &e)) {
        pl_gpu_stream_destroy(w->cs);
        w->cs = NULL;
        if (device >= 0)
            return xsf_error_set(err, XSF_ERR_CUDA, "cannot create a decoder on GPU %d", device);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for a decoder");
    }
    return XSF_OK;
}

void pl_worker_free(pl_worker *w)
{
    if (w->device >= 0)
        pl_gpu_select(w->device);
    unsigned it = 0;
    for (const xsf_codec *c; (c = xsf_codec_iterate(&it)) != NULL;) {
        void *d = w->dec[xsf_codec_index(c)];
        if (d && w->device >= 0)
            c->gpu_destroy(d);
        else if (d)
            c->cpu_destroy(d);
    }
    for (int k = 0; k < PL_ROW_MARKS; k++)
        pl_gpu_event_destroy(w->row_event[k]);
    pl_gpu_stream_destroy(w->cs);
}

/* Field `field`'s description: the source's (pl_frame_set_header), else its header
 * parsed now, once. 0, or the frame failed. */
static int describe(pl_slot *s, const xsf_codec *codec, int field, const uint8_t *cs, size_t bytes,
                    char *msg, size_t cap)
{
    pl_frame *f = &s->f;
    if (f->described & (1u << field))
        return 0;
    xsf_error e;
    xsf_error_clear(&e);
    if (codec->parse_header(cs, bytes, &f->desc[field], &e) != XSF_OK) {
        fail(s, msg, cap, e.msg);
        return -1;
    }
    f->described |= 1u << field;
    return 0;
}

/* The decode calls of one frame: its codec, the worker's decoder of it, the stream's settings. */
typedef struct decode_ctx {
    pl_worker *w;
    pl_slot *s;
    const xsf_codec *codec;
    void *dec;
    const void *params;
    pl_placement where;
    char *msg;
    size_t cap;
    const pl_stream *st;  /* its picture request (pix_fmt, pix_colour) */
    xsf_codec_frame *req; /* room for the description a converted field's decoder takes */
} decode_ctx;

/* The colour a field's conversion takes: the stream's where it was said above the
 * codestream's (the SDP's, the user's), else the field's own. */
static xsf_colour request_colour(const pl_stream *st, const xsf_codec_frame *desc)
{
    const xsf_colour *c = &st->pix_colour;
    return c->source != XSF_COLOUR_DEFAULT && c->source >= desc->colour.source ? *c : desc->colour;
}

/* Lays out field `field`'s pictures where the sink wants them, in the stream's pixel
 * format (the picture request) of the format its description says, and gives the
 * description its decoder takes (*frame): the field's own, or for another pixel format
 * a copy (d->req) with the colour the conversion takes and, where a GPU decoder writes
 * into planes of its own (no device picture wanted), the converted format
 * (xsf_codec.gpu_decode). 0, or the frame failed (the format does not apply: why). */
static int prepare_picture(const decode_ctx *d, pl_placement where, int field,
                           const xsf_codec_frame **frame)
{
    pl_slot *s = d->s;
    const xsf_codec_frame *desc = &s->f.desc[field];
    xsf_format fmt = desc->format;
    xsf_colour colour = desc->colour;
    xsf_error e;
    xsf_error_clear(&e);
    *frame = desc;
    if (d->st->pix_fmt != XSF_PLANAR_U16) {
        const xsf_colour conv = request_colour(d->st, desc);
        if (xsf_format_convert(&desc->format, &conv, d->st->pix_fmt, &fmt, &e) != XSF_OK) {
            fail(s, d->msg, d->cap, e.msg);
            return -1;
        }
        *d->req = *desc;
        d->req->colour = conv;
        if (d->w->device >= 0 && !(where & PL_PICTURE_DEVICE))
            d->req->format = fmt;
        *frame = d->req;
        colour = xsf_colour_convert(&conv, &desc->format, d->st->pix_fmt);
    }
    if (((where & PL_PICTURE_HOST) && pl_slot_picture(s, field, 0, &fmt, &e)) ||
        ((where & PL_PICTURE_DEVICE) && pl_slot_picture(s, field, 1, &fmt, &e))) {
        fail(s, d->msg, d->cap, e.msg);
        return -1;
    }
    if (where & PL_PICTURE_HOST)
        s->f.picture[field].colour = colour;
    if (where & PL_PICTURE_DEVICE)
        s->f.device_picture[field].colour = colour;
    return 0;
}

/* The fields of a frame on the GPU. Each picture is written by the decoder
 * straight into the frame's device picture when the sink wants one (no
 * copy on the device), else into the decoder's own planes; the host picture
 * is downloaded from where it was written. The pictures are laid out from
 * the description before the decode.
 * *begun: a progressive frame whose decoding gpu_begin started
 * (decode_gpu_partial: its picture laid out already, the host rows
 * [0, host_rows[c]) downloaded as they became final); it ends with
 * gpu_end, which clears it. */
/* A host-side duration of a partial frame's decoding into its stream's histogram `h`
 * (pl_stream_stats.step, final_enqueue, final_sync). */
static void note_time(const decode_ctx *d, pl_hist *h, uint64_t t0, int step)
{
    pl_stream *st = &d->w->p->streams[d->s->f.stream];
    const uint64_t ns = xsf_clock_mono_ns() - t0;
    pthread_mutex_lock(&st->hist_mu);
    pl_hist_add(h, ns);
    st->steps += (uint64_t)step;
    pthread_mutex_unlock(&st->hist_mu);
}

static void decode_gpu_fields(const decode_ctx *d, int *begun, const int *host_rows)
{
    pl_slot *s = d->s;
    pl_frame *f = &s->f;
    const xsf_codec *codec = d->codec;
    size_t off = 0;
    for (int field = 0; field < f->fields; field++) {
        const size_t bytes = f->fields == 2 ? f->field_bytes[field] : f->codestream_bytes;
        const uint8_t *cs = f->codestream + off;
        const int incremental = *begun;
        const uint64_t setup = xsf_clock_mono_ns();
        const xsf_codec_frame *frame = NULL;
        if (!incremental) {
            if (describe(s, codec, field, cs, bytes, d->msg, d->cap))
                return;
            if (field == 1 && !xsf_format_equal(&f->desc[0].format, &f->desc[1].format)) {
                fail(s, d->msg, d->cap, field_mismatch);
                return;
            }
            if (prepare_picture(d, d->where, field, &frame))
                return;
        }
        xsf_error e;
        xsf_error_clear(&e);
        xsf_picture *out = (d->where & PL_PICTURE_DEVICE) ? &f->device_picture[field] : NULL;
        const xsf_status dst =
            incremental ? codec->gpu_end(d->dec, f->codestream, bytes, &e)
                        : codec->gpu_decode(d->dec, frame, d->params, cs, bytes, out, &e);
        if (!incremental)
            pl_note_setup(d->w, xsf_clock_mono_ns() - setup);
        const pl_stream *st = d->st;
        if (incremental) /* its last step enqueued: the host's part of it */
            note_time(d, st->final_enqueue, setup, 0);
        *begun = 0;
        /* The sync reports errors the kernels found in the data. */
        const uint64_t sync = xsf_clock_mono_ns();
        if (dst != XSF_OK || codec->gpu_sync(d->dec, &e) != XSF_OK) {
            fail(s, d->msg, d->cap, e.msg);
            return;
        }
        if (incremental) /* the GPU's part: what was enqueued for it had to run */
            note_time(d, st->final_sync, sync, 0);
        f->t.device_ready = pl_now_ns();
        if (d->where & PL_PICTURE_HOST) {
            const xsf_picture *pic = &f->picture[field];
            int from[XSF_MAX_COMPONENTS] = {0}, to[XSF_MAX_COMPONENTS] = {0};
            /* By plane (xsf_codec.gpu_download_rows): planar16's are its components. */
            for (int c = 0; c < xsf_format_planes(&pic->fmt); c++) {
                from[c] = incremental && host_rows ? host_rows[c] : 0; /* the rest of the rows */
                to[c] = xsf_format_plane_rows(&pic->fmt, c);
            }
            if (codec->gpu_download_rows(d->dec, &f->picture[field], from, to, &e) != XSF_OK ||
                codec->gpu_sync(d->dec, &e) != XSF_OK) {
                fail(s, d->msg, d->cap, e.msg);
                return;
            }
            f->t.host_ready = pl_now_ns();
        }
        off += bytes;
    }
}

static void decode_gpu(const decode_ctx *d, int begun, const int *host_rows)
{
    decode_gpu_fields(d, &begun, host_rows);
    if (begun) /* refused before its end: the frame under way ends without a picture */
        d->codec->gpu_abort(d->dec);
    /* A refused frame's buffers go back to the pool at once: nothing of it
     * may still be running into them. */
    if (d->s->failed)
        pl_gpu_stream_sync(d->w->cs);
}

/* A partial frame on the GPU: its slices are decoded as the complete prefix
 * grows (the decoder sleeps on the slot's condition variable in between),
 * the rest once it is whole. Its picture is laid out once the header is
 * in, and the rows each step makes final are downloaded into the host
 * picture as they are (so that at the end only the last rows remain) and
 * told to a sink that wants them (pl_sink.rows). Returns with the frame
 * whole, failed or aborted; never while its source may still write into it. */
/* A decoder started on a partial frame launches its newly whole slices once
 * a PARTIAL_STEPS-th of the codestream (by the size its header says; at
 * least 2 KiB, 160 KiB when it does not say) more is in, or the frame is
 * whole: every launch costs a few API calls, and what is left at the end is
 * about that much entropy decoding. With many partial frames on one GPU at
 * once the steps grow: the GPU's decoders together launch about
 * PARTIAL_STEP_BUDGET steps per frame time (at least PARTIAL_STEPS_MIN a
 * frame), so 16 UHD streams take 6 steps a frame, not 24: a step is some 20
 * API calls into the one CUDA context of the GPU (an upload, the entropy
 * kernels, the inverse DWT and output of the rows it makes final), and 16
 * streams of 24 steps were 460 000 calls a second, with a receiving and a
 * decoder thread per stream waking for each. The last step then holds a
 * sixth of the frame's entropy decoding (tens of microseconds of kernels for
 * UHD 4:2:2 3 bpp) instead of a 24th. */
#define PARTIAL_STEPS 24
#define PARTIAL_STEPS_MIN 6
#define PARTIAL_STEP_BUDGET 96
#define PARTIAL_STEP_MIN_BYTES ((size_t)2 << 10)
#define PARTIAL_STEP_BYTES ((size_t)160 << 10)

/* The bytes of one step of a frame of `total` bytes (0: not said) while `active` partial
 * frames are decoded on its GPU. */
static size_t step_bytes(size_t total, unsigned active)
{
    if (!total)
        return PARTIAL_STEP_BYTES;
    unsigned steps = PARTIAL_STEP_BUDGET / (active ? active : 1);
    steps = steps > PARTIAL_STEPS       ? PARTIAL_STEPS
            : steps < PARTIAL_STEPS_MIN ? PARTIAL_STEPS_MIN
                                        : steps;
    return total / steps > PARTIAL_STEP_MIN_BYTES ? total / steps : PARTIAL_STEP_MIN_BYTES;
}

/* While rows are on their way to a sink that wants them, the decoder looks
 * at their events this often between the frame's data. */
#define ROWS_POLL_NS 50000

typedef struct partial_rows {
    int nc;
    int host[XSF_MAX_COMPONENTS]; /* host rows whose download is enqueued */
    int told[XSF_MAX_COMPONENTS]; /* rows told to the sink */
    int mark[PL_ROW_MARKS][XSF_MAX_COMPONENTS];
    unsigned head, tail; /* marks [tail, head) recorded, not yet seen done */
} partial_rows;

/* After a step: the rows it made final go to the host picture, and a mark
 * says when they are there (or in device memory) for the sink. */
static void rows_step(const decode_ctx *d, const pl_sink *sink, partial_rows *r)
{
    pl_worker *w = d->w;
    int rows[XSF_MAX_COMPONENTS] = {0};
    d->codec->gpu_rows(d->dec, rows);
    if (d->where & PL_PICTURE_HOST) {
        xsf_error e;
        xsf_error_clear(&e);
        if (d->codec->gpu_download_rows(d->dec, &d->s->f.picture[0], r->host, rows, &e) != XSF_OK)
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

/* Starts the frame once its header is in: describes it (once), lays out its
 * picture (the decoder writes its rows from begin on) and begins; *total is
 * the codestream's size its header says (0: not said). */
static xsf_status partial_begin(const decode_ctx *d, size_t avail, size_t *total, partial_rows *r)
{
    pl_frame *f = &d->s->f;
    xsf_error e;
    xsf_error_clear(&e);
    if (!(f->described & 1u) &&
        d->codec->parse_header(f->codestream, avail, &f->desc[0], &e) == XSF_OK)
        f->described |= 1u;
    if (!(f->described & 1u))
        return XSF_ERR_AGAIN; /* the header is not whole yet (or bad: the end says) */
    r->nc = f->desc[0].format.nc;
    const uint64_t setup = xsf_clock_mono_ns();
    const xsf_codec_frame *frame;
    if (prepare_picture(d, d->where, 0, &frame))
        return XSF_ERR_INVALID;
    xsf_error_clear(&e);
    xsf_picture *out = (d->where & PL_PICTURE_DEVICE) ? &f->device_picture[0] : NULL;
    const xsf_status st = d->codec->gpu_begin(d->dec, frame, f->codestream, avail, out, &e);
    if (st == XSF_OK)
        pl_note_setup(d->w, xsf_clock_mono_ns() - setup);
    if (st == XSF_OK)
        *total = f->desc[0].codestream_bytes;
    if (st != XSF_OK && st != XSF_ERR_AGAIN && !d->s->failed)
        fail(d->s, d->msg, d->cap, e.msg);
    return st;
}

static void decode_gpu_partial(const decode_ctx *d)
{
    pl_worker *w = d->w;
    pl_pipeline *p = w->p;
    pl_queue *q = &p->queues[w->queue];
    pl_slot *s = d->s;
    pl_frame *f = &s->f;
    const pl_sink *sink = &p->streams[f->stream].sink;
    size_t seen = 0, total = 0;
    int begun = 0, bad = 0;
    partial_rows r;
    memset(&r, 0, sizeof r);
    pthread_mutex_lock(&p->mu);
    q->partial_active++;
    for (;;) {
        /* Before begin, any growth may complete the header. */
        const size_t want = bad     ? SIZE_MAX
                            : begun ? seen + step_bytes(total, q->partial_active)
                                    : seen + 1; /* refused: only its end matters */
        /* wake_at, then waiting, then avail (pl_slot: pl_frame_progress reads them
         * without p->mu, in the other order). */
        __atomic_store_n(&s->wake_at, want, __ATOMIC_SEQ_CST);
        int poll = 0;
        while (s->partial && !s->aborted && !poll) {
            __atomic_store_n(&s->waiting, 1, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(&s->avail, __ATOMIC_SEQ_CST) >= want)
                break;
            if (r.tail != r.head) { /* rows on their way to the sink */
                const struct timespec until = xsf_clock_wall_deadline(ROWS_POLL_NS);
                poll = pthread_cond_timedwait(&s->cv, &p->mu, &until) != 0;
            } else {
                pthread_cond_wait(&s->cv, &p->mu);
            }
        }
        __atomic_store_n(&s->waiting, 0, __ATOMIC_SEQ_CST);
        if (s->aborted || !s->partial)
            break;
        const size_t avail = __atomic_load_n(&s->avail, __ATOMIC_SEQ_CST);
        if (avail < want) { /* woken to look at the rows */
            pthread_mutex_unlock(&p->mu);
            rows_tell(w, s, sink, &r);
            pthread_mutex_lock(&p->mu);
            continue;
        }
        pthread_mutex_unlock(&p->mu);
        if (!bad) {
            const uint64_t t0 = xsf_clock_mono_ns();
            xsf_status st;
            if (begun) {
                xsf_error e;
                xsf_error_clear(&e);
                st = d->codec->gpu_more(d->dec, f->codestream, avail, &e);
                if (st != XSF_OK && !s->failed)
                    fail(s, d->msg, d->cap, e.msg);
            } else {
                st = partial_begin(d, avail, &total, &r);
            }
            if (st == XSF_OK) {
                begun = 1;
                rows_step(d, sink, &r);
                note_time(d, d->st->step, t0, 1);
            } else if (st != XSF_ERR_AGAIN) { /* final: the frame is refused once whole */
                bad = 1;
                begun = 0;
            }
            if (sink->rows)
                rows_tell(w, s, sink, &r);
        }
        seen = avail;
        pthread_mutex_lock(&p->mu);
    }
    q->partial_active--;
    const int aborted = s->aborted;
    pthread_mutex_unlock(&p->mu);
    f->t.final_start = pl_now_ns();
    if (aborted || bad) {
        if (begun)
            d->codec->gpu_abort(d->dec);
        /* Its buffers go back to the pool: nothing of it may still run into them. */
        pl_gpu_stream_sync(w->cs);
        s->failed = 1;
        return;
    }
    decode_gpu(d, begun, begun ? r.host : NULL);
}

static void decode_cpu(const decode_ctx *d)
{
    pl_slot *s = d->s;
    pl_frame *f = &s->f;
    size_t off = 0;
    for (int field = 0; field < f->fields; field++) {
        const size_t bytes = f->fields == 2 ? f->field_bytes[field] : f->codestream_bytes;
        const uint8_t *cs = f->codestream + off;
        if (describe(s, d->codec, field, cs, bytes, d->msg, d->cap))
            return;
        if (field == 1 && !xsf_format_equal(&f->desc[0].format, &f->desc[1].format)) {
            fail(s, d->msg, d->cap, field_mismatch);
            return;
        }
        const uint64_t setup = xsf_clock_mono_ns();
        const xsf_codec_frame *frame;
        if (prepare_picture(d, PL_PICTURE_HOST, field, &frame))
            return;
        pl_note_setup(d->w, xsf_clock_mono_ns() - setup);
        xsf_error e;
        xsf_error_clear(&e);
        if (d->codec->cpu_decode(d->dec, frame, d->params, cs, bytes, &f->picture[field], &e) !=
            XSF_OK) {
            fail(s, d->msg, d->cap, e.msg);
            return;
        }
        off += bytes;
    }
    f->t.host_ready = pl_now_ns();
}

/* ---- the C decoder's parts on idle C decoder threads (xsf_parallel) ----
 * A decoder thread that runs a frame's parts posts them (pl_pipeline.jobs) and takes
 * them itself; C decoder threads with no frame of their own join in (pl_worker_main),
 * each as a worker id of its own. */

void pl_parallel_run(void *worker, size_t n, xsf_pool_fn fn, void *ctx)
{
    pl_worker *w = worker;
    pl_pipeline *p = w->p;
    if (n < 2) {
        for (size_t i = 0; i < n; i++)
            fn(ctx, i, 0);
        return;
    }
    pl_job j = {.n = n, .fn = fn, .ctx = ctx, .threads = w->par.threads};
    pthread_cond_init(&j.done, NULL);
    pthread_mutex_lock(&p->mu);
    j.next = p->jobs;
    p->jobs = &j;
    pthread_cond_broadcast(&p->queues[w->queue].cv); /* where the C decoder threads wait */
    pthread_mutex_unlock(&p->mu);
    for (size_t i; (i = __atomic_fetch_add(&j.next_index, 1, __ATOMIC_RELAXED)) < n;)
        fn(ctx, i, 0);
    pthread_mutex_lock(&p->mu);
    for (pl_job **it = &p->jobs; *it; it = &(*it)->next)
        if (*it == &j) {
            *it = j.next;
            break;
        }
    while (j.active)
        pthread_cond_wait(&j.done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    pthread_cond_destroy(&j.done);
}

/* A job with parts left and room for a worker, or NULL. With p->mu held. */
static pl_job *open_job(pl_pipeline *p)
{
    for (pl_job *j = p->jobs; j; j = j->next)
        if (j->joined + 1 < j->threads && __atomic_load_n(&j->next_index, __ATOMIC_RELAXED) < j->n)
            return j;
    return NULL;
}

/* Takes parts of `j` until none is left. Called and returns with p->mu held. */
static void help(pl_pipeline *p, pl_job *j)
{
    const int id = ++j->joined;
    j->active++;
    pthread_mutex_unlock(&p->mu);
    uint64_t parts = 0;
    for (size_t i; (i = __atomic_fetch_add(&j->next_index, 1, __ATOMIC_RELAXED)) < j->n; parts++)
        j->fn(j->ctx, i, id);
    pthread_mutex_lock(&p->mu);
    p->startup.cpu_parts_helped += parts;
    if (--j->active == 0)
        pthread_cond_signal(&j->done);
}

/* Whether a C decoder thread of a pipeline whose GPUs start meanwhile has done its part:
 * the GPUs took over. */
static int cpu_done(const pl_pipeline *p, const pl_worker *w)
{
    return w->device < 0 && p->deferred && p->gpu_state == PL_GPU_START_READY;
}

/* Whether a worker decodes a partial frame of `st` as it arrives: a GPU
 * decoder of a codec that decodes incrementally, a picture wanted. */
static int decodes_partial(const pl_worker *w, const pl_stream *st)
{
    return w->device >= 0 && st->sink.placement != PL_PICTURE_NONE && st->codec &&
           st->codec->gpu_begin;
}

/* The frame of the queue this worker takes: the first whole one, else the
 * first partial one it can decode as it arrives (the others take a partial
 * frame once it is whole; when stopping, anything). Whole frames first: a
 * whole frame's data is all in, it holds its decoder a frame's decoding at
 * most and every millisecond it waits is latency; a partial frame holds
 * its decoder until its last packet, and taken later it loses nothing (its
 * first step decodes what came meanwhile). So when the decoders fall
 * behind, the frames whose data is in are decoded first and the ones still
 * arriving wait, instead of every decoder sitting on a frame still arriving
 * while whole frames age in the queue (pl_stream_config: the oldest whole
 * waiting frame is what PL_DROP_OLDEST drops). A stream's frames still
 * leave in order: its partial frame is its newest. */
static pl_slot *take_work(pl_pipeline *p, pl_queue *q, const pl_worker *w)
{
    pl_slot *prev = NULL, *partial = NULL, *partial_prev = NULL;
    if (cpu_done(p, w))
        return NULL;
    for (pl_slot *it = q->head; it; prev = it, it = it->work_next) {
        const pl_stream *st = &p->streams[it->f.stream];
        /* While the GPU starts, device pictures wait for it, and a stream has one frame
         * at a time on the C decoder, its parts on every idle thread: the frame comes
         * out soonest, and when the GPU takes over no backlog of frames, each on one
         * thread for several times as long, holds back the GPU's pictures behind it
         * (a stream's frames leave in order). */
        if (w->device < 0 && p->deferred && p->gpu_state == PL_GPU_START_RUNNING && !p->stopping &&
            ((st->sink.placement & PL_PICTURE_DEVICE) || st->cpu_decoding))
            continue;
        if (it->partial && !p->stopping) {
            if (!partial && decodes_partial(w, st)) {
                partial = it;
                partial_prev = prev;
            }
            continue;
        }
        pl_queue_unlink(q, prev, it);
        return it;
    }
    if (partial)
        pl_queue_unlink(q, partial_prev, partial);
    return partial;
}

/* Decodes (or describes) one taken frame; s->failed and its message say how it went. */
static void decode_frame(pl_worker *w, pl_slot *s, const pl_stream *st, const xsf_codec *codec,
                         int incremental)
{
    xsf_codec_frame req; /* a converted field's description (prepare_picture) */
    decode_ctx d = {.w = w,
                    .s = s,
                    .codec = codec,
                    .params = st->codec_params,
                    .where = st->sink.placement,
                    .msg = s->error,
                    .cap = sizeof s->error,
                    .st = st,
                    .req = &req};
    if (d.where == PL_PICTURE_NONE) { /* codestream only: the header still describes the frame */
        describe(s, codec, 0, s->f.codestream,
                 s->f.fields == 2 ? s->f.field_bytes[0] : s->f.codestream_bytes, d.msg, d.cap);
        return;
    }
    xsf_error e;
    xsf_error_clear(&e);
    if (!(d.dec = decoder_of(w, codec, &e))) {
        fail(s, d.msg, d.cap, e.msg);
        return;
    }
    if (incremental)
        decode_gpu_partial(&d);
    else if (w->device >= 0)
        decode_gpu(&d, 0, NULL);
    else if (d.where & PL_PICTURE_DEVICE)
        fail(s, d.msg, d.cap, "no usable GPU for a picture in device memory");
    else
        decode_cpu(&d);
}

void *pl_worker_main(void *arg)
{
    pl_worker *w = arg;
    pl_pipeline *p = w->p;
    pl_queue *q = &p->queues[w->queue];
    if (w->device >= 0)
        pl_gpu_select(w->device);
    unsigned it = 0;
    const xsf_codec *fallback =
        xsf_codec_iterate(&it); /* says why a codestream no codec claims is none */
    pthread_mutex_lock(&p->mu);
    for (;;) {
        pl_slot *s;
        pl_job *j = NULL;
        while (!(s = take_work(p, q, w)) && !(p->stopping && !q->head) && !cpu_done(p, w)) {
            if (w->device < 0 && (j = open_job(p)) != NULL)
                help(p, j); /* another frame's parts while this thread has none */
            else
                pthread_cond_wait(&q->cv, &p->mu);
        }
        if (!s)
            break; /* stopping, nothing left (or the GPUs took over) */
        s->state = SLOT_DECODING;
        pl_stream *st = &p->streams[s->f.stream];
        const int counted = w->device < 0 && p->deferred;
        st->cpu_decoding += counted;
        if (counted && p->gpu_state == PL_GPU_START_RUNNING &&
            st->cpu_decoding > p->startup.cpu_frames_at_once)
            p->startup.cpu_frames_at_once = st->cpu_decoding;
        const xsf_codec *codec = st->codec ? st->codec : fallback;
        /* A partial frame is decoded as it arrives on the GPU; elsewhere it
         * is waited for whole. */
        const int incremental = s->partial && decodes_partial(w, st) && s->f.fields == 1;
        __atomic_store_n(&s->wake_at, SIZE_MAX, __ATOMIC_SEQ_CST); /* only when whole */
        while (s->partial && !incremental && !s->aborted) {
            __atomic_store_n(&s->waiting, 1, __ATOMIC_SEQ_CST);
            pthread_cond_wait(&s->cv, &p->mu);
        }
        __atomic_store_n(&s->waiting, 0, __ATOMIC_SEQ_CST);
        const int aborted = s->aborted;
        pthread_mutex_unlock(&p->mu);

        s->error[0] = 0;
        s->failed = 0;
        s->f.t.decode_start = s->f.t.final_start = pl_now_ns();
        if (aborted)
            s->failed = 1; /* counted by pl_frame_abort */
        else
            decode_frame(w, s, st, codec, incremental);

        pthread_mutex_lock(&p->mu);
        if (w->device < 0 && p->deferred && !s->failed)
            p->startup.cpu_frames++;
        st->cpu_decoding -= counted;
        s->state = SLOT_DONE;
        if (s->failed && !s->aborted) {
            st->dropped[PL_DROP_DECODE]++;
            snprintf(st->last_error, sizeof st->last_error, "frame %llu: %.200s",
                     (unsigned long long)s->f.index, s->error);
        }
        pl_emit(p, st);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}
