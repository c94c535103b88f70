/* Live encoding (pl_encode.h): a picture file's frames coded on a thread of
 * the feed's own into two codestream buffers, handed out in order.
 *
 * Frame n is coded into buffer n % 2. The thread may code frame n once frame
 * n - 2 was given back (released), so while the caller holds frame n the
 * thread codes n + 1 and then waits. Counters under `mu`: coded >= handed >=
 * released, coded <= released + 2. */
#include "pl_encode.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_hist.h"
#include "xsf_clock.h"

#define BUFFERS 2

struct pl_encode_feed {
    pl_encode_config cfg;
    const xsf_encoder_ops *ops;
    imgio_reader *rd;
    void *enc;
    size_t cap, rate_bytes;
    uint8_t *buf[BUFFERS];
    size_t len[BUFFERS];
    pthread_t thread;
    int thread_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t coded, handed, released;
    int done; /* the thread has ended: end of input, max_frames or a failure */
    int quit; /* pl_encode_close asks it to end */
    xsf_status st;
    xsf_error err; /* its failure */
    pl_hist hist;  /* time in the encoder's call */
    pl_hist read;  /* time in the reader's */
    uint64_t bytes;
    xsf_format format;
};

static int is_refusal(xsf_status st)
{
    return st == XSF_ERR_ARG || st == XSF_ERR_UNSUPPORTED;
}

/* Codes picture n into its buffer and counts it. Called by open for frame 0, then by the
 * thread only (the encoder is used by one thread at a time). */
static xsf_status code_frame(pl_encode_feed *f, const xsf_picture *pic, uint64_t n, xsf_error *err)
{
    const unsigned b = (unsigned)(n % BUFFERS);
    size_t len = 0;
    xsf_error e;
    xsf_error_clear(&e);
    const uint64_t t0 = xsf_clock_mono_ns();
    const xsf_status st = f->ops->encode(f->enc, pic, f->buf[b], f->cap, &len, &e);
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

/* The next picture, its time in the reader counted. */
static xsf_status read_picture(pl_encode_feed *f, const xsf_picture **pic, xsf_error *err)
{
    const uint64_t t0 = xsf_clock_mono_ns();
    const xsf_status st = imgio_read(f->rd, pic, err);
    const uint64_t t1 = xsf_clock_mono_ns();
    pthread_mutex_lock(&f->mu);
    if (st == XSF_OK && *pic)
        pl_hist_add(&f->read, t1 - t0);
    pthread_mutex_unlock(&f->mu);
    return st;
}

/* The thread: waits for a free buffer, reads the next picture, codes it. */
static void *feed_main(void *arg)
{
    pl_encode_feed *f = arg;
    xsf_error e;
    xsf_error_clear(&e);
    xsf_status st = XSF_OK;
    for (;;) {
        pthread_mutex_lock(&f->mu);
        while (!f->quit && f->coded >= f->released + BUFFERS)
            pthread_cond_wait(&f->cv, &f->mu);
        const int quit = f->quit;
        const uint64_t n = f->coded;
        pthread_mutex_unlock(&f->mu);
        if (quit || (f->cfg.max_frames > 0 && n >= (uint64_t)f->cfg.max_frames))
            break;
        const xsf_picture *pic = NULL;
        if ((st = read_picture(f, &pic, &e)) != XSF_OK || !pic)
            break;
        if ((st = code_frame(f, pic, n, &e)) != XSF_OK)
            break;
    }
    pthread_mutex_lock(&f->mu);
    f->done = 1;
    f->st = st;
    f->err = e;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

/* The encoder for the first picture's format, its buffers and the rate's size. */
static xsf_status start_encoder(pl_encode_feed *f, const xsf_picture *pic, int *refused,
                                xsf_error *err)
{
    xsf_encode_settings s = f->cfg.settings;
    s.format = pic->fmt;
    if (f->cfg.format == IMGIO_FORMAT_PPM)
        s.rgb = 1;
    f->format = pic->fmt;
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
    const xsf_picture *pic = NULL;
    xsf_status st = imgio_reader_open(&f->rd, c->in, c->format,
                                      c->format == IMGIO_FORMAT_YUV ? &c->raw : NULL, err);
    if (st == XSF_OK)
        st = read_picture(f, &pic, err);
    if (st == XSF_OK && !pic)
        st = xsf_error_set(err, XSF_ERR_INVALID, "no frame to encode");
    if (st == XSF_OK)
        st = start_encoder(f, pic, refused, err);
    if (st == XSF_OK && (st = code_frame(f, pic, 0, err)) != XSF_OK)
        *refused = st == XSF_ERR_ARG;
    if (st == XSF_OK && c->max_frames == 1) {
        f->done = 1; /* no thread: frame 0 is all */
    } else if (st == XSF_OK) {
        if (pthread_create(&f->thread, NULL, feed_main, f))
            st = xsf_error_set(err, XSF_ERR_NOMEM, "cannot start the encoding thread");
        f->thread_started = st == XSF_OK;
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
    pl_hist_summary(&f->read, &st->read);
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
    if (f->thread_started) {
        pthread_mutex_lock(&f->mu);
        f->quit = 1;
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
        pthread_join(f->thread, NULL);
    }
    if (f->enc)
        f->ops->destroy(f->enc);
    for (unsigned b = 0; b < BUFFERS; b++)
        free(f->buf[b]);
    imgio_reader_close(f->rd);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    free(f);
}
