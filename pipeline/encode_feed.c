/* Live encoding (pl_encode.h): a picture file's frames read on a thread of
 * the feed's own into a ring of two pictures, coded on a second thread into
 * two codestream buffers, handed out in order.
 *
 * Frame n is read into picture n % 2 and coded into buffer n % 2. Counters
 * under `mu`: read >= taken >= coded >= handed >= released, where `taken`
 * counts the frames the coder has started. The reader reads frame n once the
 * coder has taken frame n - 1 (read <= taken + 1: at most one frame ahead of
 * the coder, and the picture it reads into was coded from already); the coder
 * takes frame n once it is read and frame n - 2 was given back (coded <=
 * released + 2: at most one frame ahead of the one handed out). */
#include "pl_encode.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_gpu.h"
#include "pl_hist.h"
#include "xsf_clock.h"

#define BUFFERS 2  /* codestreams: the one handed out, the one coded next */
#define PICTURES 2 /* pictures: the one being coded, the one read next */

struct pl_encode_feed {
    pl_encode_config cfg;
    const xsf_encoder_ops *ops;
    imgio_reader *rd;
    void *enc;
    size_t cap, rate_bytes;
    uint8_t *buf[BUFFERS];
    size_t len[BUFFERS];
    xsf_picture pic[PICTURES]; /* views of mem[k] */
    uint8_t *mem[PICTURES];
    int pinned[PICTURES]; /* mem[k] from pl_host_alloc(..., 1) */
    pthread_t reader, coder;
    int reader_started, coder_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t read, taken, coded, handed, released;
    int read_end;       /* the reader has ended: end of input, max_frames or a failure */
    xsf_status read_st; /* its failure */
    xsf_error read_err;
    int done; /* the coder has ended: after the reader, or on a failure of its own */
    int quit; /* pl_encode_close asks both to end */
    xsf_status st;
    xsf_error err;     /* the feed's failure: the coder's or the reader's */
    pl_hist hist;      /* time in the encoder's call */
    pl_hist read_hist; /* time in the reader's */
    uint64_t bytes;
    xsf_format format;
};

static int is_refusal(xsf_status st)
{
    return st == XSF_ERR_ARG || st == XSF_ERR_UNSUPPORTED;
}

/* Codes frame n (in its picture) into its buffer and counts it. Called by open for frame 0,
 * then by the coder only (the encoder is used by one thread at a time). */
static xsf_status code_frame(pl_encode_feed *f, uint64_t n, xsf_error *err)
{
    const unsigned b = (unsigned)(n % BUFFERS);
    size_t len = 0;
    xsf_error e;
    xsf_error_clear(&e);
    const uint64_t t0 = xsf_clock_mono_ns();
    const xsf_status st =
        f->ops->encode(f->enc, &f->pic[n % PICTURES], f->buf[b], f->cap, &len, &e);
    const uint64_t t1 = xsf_clock_mono_ns();
    if (st != XSF_OK)
        return xsf_error_set(err, st, "frame %llu: %s", (unsigned long long)n, e.msg);
    pthread_mutex_lock(&f->mu);
    f->len[b] = len;
    f->coded = n + 1;
    f->bytes += len;
    pl_hist_add(&f->hist, t1 - t0);
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    return XSF_OK;
}

/* Frame n into its picture, its time in the reader counted; *got 0 at the end. */
static xsf_status read_frame(pl_encode_feed *f, uint64_t n, int *got, xsf_error *err)
{
    const uint64_t t0 = xsf_clock_mono_ns();
    const xsf_status st = imgio_read_into(f->rd, &f->pic[n % PICTURES], got, err);
    const uint64_t t1 = xsf_clock_mono_ns();
    pthread_mutex_lock(&f->mu);
    if (st == XSF_OK && *got) {
        pl_hist_add(&f->read_hist, t1 - t0);
        f->read = n + 1;
        pthread_cond_broadcast(&f->cv);
    }
    pthread_mutex_unlock(&f->mu);
    return st;
}

/* One step of a thread of the feed: *more 0 where the thread ends without a failure. */
typedef xsf_status (*feed_step)(pl_encode_feed *f, int *more, xsf_error *err);

/* A thread of the feed: `step` while there is more, then its end told to the others: *flag
 * set, its status and error kept. */
static void run_steps(pl_encode_feed *f, feed_step step, int *flag, xsf_status *st_out,
                      xsf_error *err_out)
{
    xsf_error e;
    xsf_error_clear(&e);
    xsf_status st = XSF_OK;
    for (int more = 1; more && st == XSF_OK;)
        st = step(f, &more, &e);
    pthread_mutex_lock(&f->mu);
    *flag = 1;
    *st_out = st;
    *err_out = e;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/* The reader's step: frame n once the coder has taken frame n - 1. */
static xsf_status read_step(pl_encode_feed *f, int *more, xsf_error *err)
{
    pthread_mutex_lock(&f->mu);
    while (!f->quit && !f->done && f->read > f->taken)
        pthread_cond_wait(&f->cv, &f->mu);
    const int stop = f->quit || f->done;
    const uint64_t n = f->read;
    pthread_mutex_unlock(&f->mu);
    *more = 0;
    if (stop || (f->cfg.max_frames > 0 && n >= (uint64_t)f->cfg.max_frames))
        return XSF_OK;
    return read_frame(f, n, more, err);
}

/* The coder's step: frame n once it is read and a buffer is free; after the last frame
 * read, the reader's end (its failure, if any). */
static xsf_status code_step(pl_encode_feed *f, int *more, xsf_error *err)
{
    pthread_mutex_lock(&f->mu);
    while (!f->quit && ((f->taken >= f->read && !f->read_end) || f->coded >= f->released + BUFFERS))
        pthread_cond_wait(&f->cv, &f->mu);
    if (f->quit || f->taken >= f->read) {
        xsf_status st = XSF_OK;
        if (!f->quit && f->read_st != XSF_OK) {
            st = f->read_st;
            *err = f->read_err;
        }
        pthread_mutex_unlock(&f->mu);
        *more = 0;
        return st;
    }
    const uint64_t n = f->taken++;
    pthread_cond_broadcast(&f->cv); /* the reader may read frame n + 1 */
    pthread_mutex_unlock(&f->mu);
    return code_frame(f, n, err);
}

static void *reader_main(void *arg)
{
    pl_encode_feed *f = arg;
    run_steps(f, read_step, &f->read_end, &f->read_st, &f->read_err);
    return NULL;
}

static void *coder_main(void *arg)
{
    pl_encode_feed *f = arg;
    run_steps(f, code_step, &f->done, &f->st, &f->err);
    return NULL;
}

/* The ring's pictures for frames of `fmt`: one block each, planes 64-byte aligned, rows
 * packed (imgio_read_into then reads a group of rows in one call), touched once here.
 * Pinned where the GPU encoder uploads them (its copy then runs as DMA at the bus's speed,
 * not staged by the driver through a pinned buffer of its own); pageable for the C
 * encoder, so that it never starts CUDA. */
static xsf_status ring_alloc(pl_encode_feed *f, const xsf_format *fmt, xsf_error *err)
{
    size_t off[XSF_MAX_COMPONENTS], stride[XSF_MAX_COMPONENTS], total = 0;
    for (int c = 0; c < fmt->nc; c++) {
        off[c] = total;
        stride[c] = xsf_format_row_bytes(fmt, c);
        total += (xsf_format_plane_bytes(fmt, c) + 63) / 64 * 64;
    }
    const int gpu = f->cfg.device >= 0;
    const int saved = gpu ? pl_gpu_save() : -1;
    if (gpu)
        pl_gpu_select(f->cfg.device);
    for (unsigned k = 0; k < PICTURES; k++) {
        f->pinned[k] = gpu && (f->mem[k] = pl_host_alloc(total, 1)) != NULL;
        if (!f->pinned[k] && !(f->mem[k] = pl_host_alloc(total, 0)))
            break;
        memset(f->mem[k], 0, total);
        uint8_t *data[XSF_MAX_COMPONENTS];
        for (int c = 0; c < fmt->nc; c++)
            data[c] = f->mem[k] + off[c];
        xsf_picture_wrap(&f->pic[k], fmt, data, stride,
                         f->pinned[k] ? XSF_MEMORY_PINNED : XSF_MEMORY_HOST, -1);
    }
    if (gpu)
        pl_gpu_restore(saved);
    return f->mem[PICTURES - 1]
               ? XSF_OK
               : xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the pictures");
}

/* The encoder for the pictures' format, its buffers and the rate's size. */
static xsf_status start_encoder(pl_encode_feed *f, const xsf_format *fmt, int *refused,
                                xsf_error *err)
{
    xsf_encode_settings s = f->cfg.settings;
    s.format = *fmt;
    if (f->cfg.format == IMGIO_FORMAT_PPM)
        s.rgb = 1;
    f->format = *fmt;
    xsf_status st = f->ops->create(&f->enc, &s, f->cfg.device, NULL, err);
    if (st != XSF_OK) {
        *refused = is_refusal(st);
        return st;
    }
    f->cap = f->ops->max_bytes(f->enc);
    for (unsigned b = 0; b < BUFFERS; b++)
        if (!(f->buf[b] = malloc(f->cap ? f->cap : 1)))
            return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the codestreams");
    xsf_codec_frame hdr;
    xsf_error e;
    xsf_error_clear(&e);
    if (f->ops->header && f->ops->header(&s, &hdr, &e) == XSF_OK)
        f->rate_bytes = hdr.codestream_bytes;
    return XSF_OK;
}

/* Frame 0 into picture 0, then the encoder for its format (a frame the reader refuses is
 * named before settings the encoder refuses): a .y4m or .yuv file says the format before
 * its first frame; a .ppm's first image says it (read by imgio_read, then copied). */
static xsf_status first_frame(pl_encode_feed *f, int *refused, xsf_error *err)
{
    xsf_format fmt;
    int got = 0;
    xsf_status st;
    if (imgio_reader_format(f->rd, &fmt)) {
        if ((st = ring_alloc(f, &fmt, err)) != XSF_OK ||
            (st = read_frame(f, 0, &got, err)) != XSF_OK)
            return st;
        if (!got)
            return xsf_error_set(err, XSF_ERR_INVALID, "no frame to encode");
        return start_encoder(f, &fmt, refused, err);
    }
    const xsf_picture *pic = NULL;
    const uint64_t t0 = xsf_clock_mono_ns();
    if ((st = imgio_read(f->rd, &pic, err)) != XSF_OK)
        return st;
    if (!pic)
        return xsf_error_set(err, XSF_ERR_INVALID, "no frame to encode");
    if ((st = ring_alloc(f, &pic->fmt, err)) != XSF_OK ||
        (st = xsf_picture_copy(&f->pic[0], pic, err)) != XSF_OK)
        return st;
    pl_hist_add(&f->read_hist, xsf_clock_mono_ns() - t0);
    f->read = 1;
    return start_encoder(f, &pic->fmt, refused, err);
}

xsf_status pl_encode_open(pl_encode_feed **out, const pl_encode_config *c, int *refused,
                          xsf_error *err)
{
    *out = NULL;
    *refused = 0;
    if (!c->codec || !c->codec->encoder) {
        *refused = 1;
        return xsf_error_set(err, XSF_ERR_ARG, "no encoder for this codec");
    }
    pl_encode_feed *f = calloc(1, sizeof *f);
    if (!f)
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory");
    f->cfg = *c;
    f->ops = c->codec->encoder;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    xsf_status st = imgio_reader_open(&f->rd, c->in, c->format,
                                      c->format == IMGIO_FORMAT_YUV ? &c->raw : NULL, err);
    if (st == XSF_OK)
        st = first_frame(f, refused, err);
    if (st == XSF_OK) {
        f->taken = 1;
        if ((st = code_frame(f, 0, err)) != XSF_OK)
            *refused = st == XSF_ERR_ARG;
    }
    if (st == XSF_OK && c->max_frames == 1) {
        f->done = 1; /* no threads: frame 0 is all */
    } else if (st == XSF_OK) {
        f->coder_started = !pthread_create(&f->coder, NULL, coder_main, f);
        f->reader_started = f->coder_started && !pthread_create(&f->reader, NULL, reader_main, f);
        if (!f->reader_started)
            st = xsf_error_set(err, XSF_ERR_NOMEM, "cannot start the encoding threads");
    }
    if (st != XSF_OK) {
        pl_encode_close(f);
        return st;
    }
    *out = f;
    return XSF_OK;
}

xsf_status pl_encode_next(pl_encode_feed *f, rtp_source_frame *fr, xsf_error *err)
{
    memset(fr, 0, sizeof *fr);
    xsf_status st = XSF_OK;
    pthread_mutex_lock(&f->mu);
    if (f->handed > f->released) { /* the one handed out before comes back */
        f->released = f->handed;
        pthread_cond_broadcast(&f->cv);
    }
    while (f->coded == f->handed && !f->done)
        pthread_cond_wait(&f->cv, &f->mu);
    if (f->coded > f->handed) {
        const unsigned b = (unsigned)(f->handed % BUFFERS);
        fr->cs = f->buf[b];
        fr->len = f->len[b];
        fr->index = (size_t)f->handed++;
        fr->left = RTP_FRAMES_LEFT_UNKNOWN;
    } else if (f->st != XSF_OK) {
        st = f->st;
        *err = f->err;
    }
    pthread_mutex_unlock(&f->mu);
    return st;
}

static xsf_status source_next(void *ctx, rtp_source_frame *fr, xsf_error *err)
{
    return pl_encode_next(ctx, fr, err);
}

static int source_json(void *ctx, char *out, size_t cap)
{
    return pl_encode_stats_json(ctx, out, cap);
}

void pl_encode_source(pl_encode_feed *f, rtp_frame_source *src)
{
    *src = (rtp_frame_source){
        .next = source_next, .ctx = f, .max_bytes = f->rate_bytes, .stats_json = source_json};
}

void pl_encode_stats_get(pl_encode_feed *f, pl_encode_stats *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&f->mu);
    st->frames = f->coded;
    st->bytes = f->bytes;
    pl_hist_summary(&f->hist, &st->encode);
    pl_hist_summary(&f->read_hist, &st->read);
    pthread_mutex_unlock(&f->mu);
    st->format = f->format;
    st->rate_bytes = f->rate_bytes;
    st->device = f->cfg.device;
}

int pl_encode_stats_json(pl_encode_feed *f, char *out, size_t cap)
{
    pl_encode_stats st;
    pl_encode_stats_get(f, &st);
    return snprintf(out, cap,
                    "\"encoder\": {\"engine\": \"%s\", \"frames\": %llu, \"bytes\": %llu, "
                    "\"encode_us\": {\"mean\": %.1f, \"p50\": %.1f, \"p99\": %.1f, \"max\": %.1f}, "
                    "\"read_us\": {\"mean\": %.1f, \"p99\": %.1f, \"max\": %.1f}}",
                    f->cfg.device < 0 ? "cpu" : "gpu", (unsigned long long)st.frames,
                    (unsigned long long)st.bytes, st.encode.mean_us, st.encode.p50_us,
                    st.encode.p99_us, st.encode.max_us, st.read.mean_us, st.read.p99_us,
                    st.read.max_us);
}

xsf_status pl_encode_pick_device(const xsf_codec *codec, int want, int *device, xsf_error *err)
{
    const int gpu = want != 0 && codec->encoder->gpu_available() == XSF_OK;
    *device = gpu ? 0 : -1;
    if (want == 1 && !gpu)
        return xsf_error_set(err, XSF_ERR_UNSUPPORTED,
                             "no usable GPU (or no CUDA kernels in this build)");
    return XSF_OK;
}

void pl_encode_close(pl_encode_feed *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->mu);
    f->quit = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    if (f->reader_started)
        pthread_join(f->reader, NULL);
    if (f->coder_started)
        pthread_join(f->coder, NULL);
    if (f->enc)
        f->ops->destroy(f->enc);
    for (unsigned b = 0; b < BUFFERS; b++)
        free(f->buf[b]);
    for (unsigned k = 0; k < PICTURES; k++)
        pl_host_free(f->mem[k], f->pinned[k]);
    imgio_reader_close(f->rd);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    free(f);
}
