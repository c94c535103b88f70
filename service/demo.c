/* The demo (service.h, svc_demo_run): a clip, or pictures encoded on the way
 * (live), sent over UDP loopback to this host, received and decoded through
 * the pipeline, each picture checked against the C reference decoder's of
 * the same codestream. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md5.h"
#include "service.h"
#include "xs.h"
#include "xsf_clock.h"
#include "xsf_codecs.h"
#include "xsf_output.h"

/* 25 fps: RTP timestamps count frames of the stream from 0 in steps of 3600 ticks (90 kHz). */
#define DEMO_TICKS_PER_FRAME 3600u

/* The demo's sink: takes each picture's MD5 (compared with the reference's once the stream
 * has ended: a live reference is made while the stream runs), then hands the frame on (the
 * writer). */
typedef struct checker {
    char expected[SVC_DEMO_MAX_FRAMES][33]; /* per codestream of the clip, C reference decoder */
    unsigned clip_frames, loops;
    char (*got)[33]; /* per frame of the stream (RTP timestamp), clip_frames x loops */
    unsigned slots;
    app_md5 clip; /* the first pass through the clip (live: every picture) */
    uint64_t clip_bytes;
    atomic_uint seen;
    pl_sink next;
} checker;

static void check_deliver(void *ctx, pl_frame *f)
{
    checker *c = ctx;
    xsf_picture none; /* a frame without a host picture: no samples */
    xsf_picture_init(&none);
    const xsf_picture *pic =
        f->picture[0].memory != XSF_MEMORY_DEVICE && f->picture[0].data[0] ? &f->picture[0] : &none;
    app_md5 m;
    char hex[33];
    app_md5_init(&m);
    imgio_yuv_serialize(pic, app_md5_sink, &m);
    app_md5_final_hex(&m, hex);
    const uint64_t n = f->rtp_timestamp / DEMO_TICKS_PER_FRAME;
    if (n < c->slots)
        memcpy(c->got[n], hex, sizeof hex);
    if (n < c->clip_frames) {
        imgio_yuv_serialize(pic, app_md5_sink, &c->clip);
        c->clip_bytes += imgio_yuv_frame_bytes(pic);
    }
    atomic_fetch_add(&c->seen, 1);
    c->next.deliver(c->next.ctx, f);
}

static void check_finish(void *ctx)
{
    checker *c = ctx;
    if (c->next.finish)
        c->next.finish(c->next.ctx);
}

/* Pictures delivered equal to the reference's of their codestream. */
static unsigned matched(const checker *c)
{
    unsigned m = 0;
    for (unsigned n = 0; n < c->slots; n++)
        m += c->got[n][0] && !strcmp(c->got[n], c->expected[n % c->clip_frames]);
    return m;
}

/* One codestream through the C decoder: its picture's MD5 into hex, and into *all. */
static xsf_status reference_one(xs_decoder *dec, const uint8_t *cs, size_t len, size_t *consumed,
                                char hex[33], app_md5 *all, uint64_t *bytes, xsf_error *err)
{
    const xsf_picture *img;
    if (xs_decode(dec, cs, len, consumed, &img) != XSF_OK)
        return xsf_error_set(err, XSF_ERR_INVALID, "%s", xs_decoder_error(dec));
    app_md5 m;
    app_md5_init(&m);
    imgio_yuv_serialize(img, app_md5_sink, &m);
    app_md5_final_hex(&m, hex);
    if (all) {
        imgio_yuv_serialize(img, app_md5_sink, all);
        *bytes += imgio_yuv_frame_bytes(img);
    }
    return XSF_OK;
}

/* The reference: each codestream of the clip through the C decoder. */
static xsf_status reference(checker *c, const uint8_t *clip, size_t len, xsf_error *err)
{
    xs_decoder *dec;
    const xsf_status made = xs_decoder_create(&dec, err);
    if (made != XSF_OK)
        return made;
    size_t off = 0;
    xsf_status st = XSF_OK;
    while (st == XSF_OK && off < len && c->clip_frames < SVC_DEMO_MAX_FRAMES) {
        size_t consumed = 0;
        st = reference_one(dec, clip + off, len - off, &consumed, c->expected[c->clip_frames++],
                           NULL, NULL, err);
        off += consumed;
    }
    xs_decoder_destroy(dec);
    return st;
}

typedef struct sender {
    const svc_demo_config *cfg;
    rtp_udp *sock;
    rtp_sender_stats res;
    xsf_status st;
    xsf_error err;
    /* live: the feed's codestreams, each decoded by the C decoder before it is sent */
    rtp_frame_source feed;
    checker *chk;
    xs_decoder *dec;
    app_md5 reference;
    uint64_t reference_bytes;
} sender;

/* The live source: the feed's next codestream, its reference picture's MD5 taken first. */
static xsf_status live_next(void *ctx, rtp_source_frame *f, xsf_error *err)
{
    sender *s = ctx;
    xsf_status st = s->feed.next(s->feed.ctx, f, err);
    if (st != XSF_OK || !f->cs)
        return st;
    if (f->index >= SVC_DEMO_MAX_FRAMES)
        return xsf_error_set(err, XSF_ERR_ARG, "more than %d frames", SVC_DEMO_MAX_FRAMES);
    size_t consumed;
    xsf_error e;
    xsf_error_clear(&e);
    st = reference_one(s->dec, f->cs, f->len, &consumed, s->chk->expected[f->index], &s->reference,
                       &s->reference_bytes, &e);
    if (st != XSF_OK)
        return xsf_error_set(err, st, "frame %zu: the C decoder: %s", f->index, e.msg);
    return XSF_OK;
}

/* The clip `loops` times, or the live codestreams, each frame's packets at once at its time
 * (25 fps). */
static void *send_main(void *arg)
{
    sender *s = arg;
    xsf_error_clear(&s->err);
    rtp_sender_config sc;
    memset(&sc, 0, sizeof sc);
    sc.packetizer.payload_type = 112;
    sc.packetizer.ssrc = 0x58534644u; /* "XSFD" */
    sc.packetizer.boxes = 1;
    sc.pacing = RTP_PACING_FRAME;
    sc.rate_num = 25;
    sc.rate_den = 1;
    sc.sock = s->sock;
    rtp_sender *snd = NULL;
    if (s->cfg->encode) {
        s->st = xs_decoder_create(&s->dec, &s->err);
        if (s->st == XSF_OK)
            s->st = rtp_sender_create(&snd, &sc, &s->err);
        const rtp_frame_source live = {.next = live_next, .ctx = s};
        if (s->st == XSF_OK)
            s->st = rtp_sender_send_source(snd, &live, &s->err);
    } else {
        rtp_clip clip;
        s->st = rtp_clip_open(&clip, s->cfg->clip, s->cfg->len, &s->err);
        if (s->st == XSF_OK) {
            s->st = rtp_sender_create(&snd, &sc, &s->err);
            if (s->st == XSF_OK)
                s->st = rtp_sender_send_clip(snd, &clip, s->cfg->loops, &s->err);
            rtp_clip_free(&clip);
        }
    }
    if (snd)
        s->res = *rtp_sender_get_stats(snd);
    rtp_sender_destroy(snd);
    if (s->dec)
        xs_decoder_destroy(s->dec);
    return NULL;
}

static xsf_status failure(svc_demo_result *r, const char *subject, const xsf_error *err)
{
    if (r->nfailures < 3) {
        svc_failure *f = &r->failure[r->nfailures++];
        f->subject = subject;
        f->usage = 0;
        f->err = *err;
    }
    return err->status ? err->status : XSF_ERR_INVALID;
}

/* The receiving socket (an ephemeral loopback port) and the pipeline. */
static xsf_status open_receiver(const svc_demo_config *c, unsigned frames, pl_rtp_source **src,
                                pl_pipeline **p, xsf_error *err)
{
    pl_rtp_config rc;
    memset(&rc, 0, sizeof rc);
    rc.kind = PL_RTP_SOCKET;
    rc.max_frames = frames;
    /* Live, the sender's end stops it (an encoder may take long over a frame). */
    rc.timeout_s = c->encode ? 60 : 3;
    rc.depacketizer.payload_type = 112;
    rc.depacketizer.reorder_ns = 20000000u;
    rc.depacketizer.validate = 1;
    rc.udp.timestamps = 1;
    /* The socket first, the GPU after: packets wait in the socket's buffer meanwhile. */
    xsf_status st = rtp_addr_parse("127.0.0.1:0", 1, &rc.udp.local, err);
    if (st == XSF_OK)
        st = pl_rtp_source_open(src, &rc, err);
    if (st == XSF_OK)
        st = pl_create(p, &c->pl, err);
    return st;
}

/* Live: once the sender is done, the receiver is stopped when every frame sent has been
 * delivered, or 2 s after the last delivery. */
static void stop_when_delivered(const checker *chk, pl_rtp_source *src, uint64_t sent)
{
    unsigned last = atomic_load(&chk->seen);
    uint64_t since = xsf_clock_mono_ns();
    while (atomic_load(&chk->seen) < sent && !pl_rtp_source_done(src)) {
        const unsigned now = atomic_load(&chk->seen);
        if (now != last) {
            last = now;
            since = xsf_clock_mono_ns();
        } else if (xsf_clock_mono_ns() - since > 2 * XSF_NS_PER_S) {
            break;
        }
        xsf_clock_sleep_until_ns(xsf_clock_mono_ns() + 2 * XSF_NS_PER_MS);
    }
    pl_rtp_source_stop(src);
}

/* Sends the clip (or the feed's codestreams) from a thread of its own while the source
 * receives it. */
static void run_stream(const svc_demo_config *c, checker *chk, pl_encode_feed *feed,
                       pl_rtp_source *src, pl_pipeline *p, pl_writer *w, svc_demo_result *r,
                       xsf_error *err)
{
    int sid = -1;
    sender snd;
    memset(&snd, 0, sizeof snd);
    snd.cfg = c;
    snd.chk = chk;
    app_md5_init(&snd.reference);
    if (feed)
        pl_encode_source(feed, &snd.feed);
    chk->next = w ? pl_writer_sink(w) : pl_null_sink(PL_PICTURE_HOST);
    pl_stream_config sc = {
        .name = "demo",
        .backpressure = PL_DROP_OLDEST,
        .sink = {check_deliver, check_finish, chk, PL_PICTURE_HOST, NULL, NULL, 0}};
    xsf_status st = pl_stream_add(p, &sc, &sid, err);
    if (st == XSF_OK)
        st = pl_rtp_source_start(src, p, sid, err);
    rtp_addr to;
    if (st == XSF_OK && (st = rtp_addr_parse("127.0.0.1:0", 1, &to, err)) == XSF_OK) {
        to.port = r->port = pl_rtp_source_local_port(src);
        rtp_udp_config uc;
        memset(&uc, 0, sizeof uc);
        st = rtp_udp_open_sender(&snd.sock, &to, &uc, err);
    }
    pthread_t thread;
    int sending = 0;
    if (st == XSF_OK) {
        if (pthread_create(&thread, NULL, send_main, &snd))
            st = xsf_error_set(err, XSF_ERR_NOMEM, "cannot start the sending thread");
        else
            sending = 1;
    }
    if (st != XSF_OK)
        failure(r, "demo", err);
    if (sending) {
        pthread_join(thread, NULL);
        r->sent = snd.res;
        if (snd.st != XSF_OK)
            failure(r, "demo: sending", &snd.err);
        if (feed)
            stop_when_delivered(chk, src, snd.res.segments);
    }
    if (feed) {
        app_md5_final_hex(&snd.reference, r->reference_md5);
        r->reference_bytes = snd.reference_bytes;
        r->clip_frames = (unsigned)snd.res.segments;
    }
    if (sid >= 0) {
        xsf_error e2;
        xsf_error_clear(&e2);
        if (pl_rtp_source_join(src, &e2) != XSF_OK)
            failure(r, "demo: receiving", &e2);
        pl_stream_finish(p, sid);
        pl_rtp_source_stats(src, &r->received, NULL);
        pl_stream_stats_get(p, sid, &r->stream);
    }
    rtp_udp_close(snd.sock);
}

xsf_status svc_demo_run(const svc_demo_config *c, svc_demo_result *r)
{
    memset(r, 0, sizeof *r);
    xsf_error err;
    xsf_error_clear(&err);
    /* Before anything runs: a demo that could not write its pictures has not run. */
    if (c->out && xsf_output_check(c->out, &err) != XSF_OK)
        return failure(r, c->out, &err);
    checker *chk = calloc(1, sizeof *chk);
    if (!chk) {
        xsf_error_set(&err, XSF_ERR_NOMEM, "out of memory");
        return failure(r, "demo", &err);
    }
    chk->loops = c->encode ? 1 : c->loops;
    app_md5_init(&chk->clip);
    pl_encode_feed *feed = NULL;
    if (c->encode) { /* the first frame coded before anything listens */
        pl_encode_config ec = *c->encode;
        if (ec.max_frames <= 0 || ec.max_frames > SVC_DEMO_MAX_FRAMES)
            ec.max_frames = SVC_DEMO_MAX_FRAMES;
        chk->clip_frames = SVC_DEMO_MAX_FRAMES; /* every picture into the MD5 */
        if (pl_encode_open(&feed, &ec, &r->refused, &err) != XSF_OK) {
            free(chk);
            return failure(r, c->name, &err);
        }
    } else if (reference(chk, c->clip, c->len, &err) != XSF_OK) {
        free(chk);
        return failure(r, c->name, &err);
    }
    r->clip_frames = c->encode ? 0 : chk->clip_frames;
    chk->slots = chk->clip_frames * chk->loops;
    chk->got = calloc(chk->slots, sizeof *chk->got);
    pl_rtp_source *src = NULL;
    pl_pipeline *p = NULL;
    if (!chk->got) {
        xsf_error_set(&err, XSF_ERR_NOMEM, "out of memory");
        pl_encode_close(feed);
        free(chk);
        return failure(r, "demo", &err);
    }
    if (open_receiver(c, c->encode ? 0 : chk->clip_frames * c->loops, &src, &p, &err) != XSF_OK) {
        pl_rtp_source_destroy(src);
        pl_encode_close(feed);
        free(chk->got);
        free(chk);
        return failure(r, "demo", &err);
    }
    snprintf(r->engine, sizeof r->engine, "%s", pl_describe(p));
    pl_writer *w = NULL;
    if (pl_writer_open(&w, c->out, &c->writer, &err) != XSF_OK)
        failure(r, "demo", &err);
    else
        run_stream(c, chk, feed, src, p, w, r, &err);
    app_md5_final_hex(&chk->clip, r->clip_md5);
    r->clip_bytes = chk->clip_bytes;
    r->frames = atomic_load(&chk->seen);
    r->matched = matched(chk);
    if (feed) {
        pl_encode_stats_get(feed, &r->encoded);
        pl_encode_close(feed);
        r->all_ok = r->frames > 0 && r->frames == r->clip_frames && r->matched == r->frames &&
                    !strcmp(r->clip_md5, r->reference_md5) && r->clip_bytes == r->reference_bytes;
    } else {
        r->all_ok = r->frames == chk->clip_frames * c->loops && r->matched == r->frames &&
                    (!c->expect_md5 ||
                     (!strcmp(r->clip_md5, c->expect_md5) && r->clip_bytes == c->expect_bytes));
    }
    r->written = w ? pl_writer_bytes(w) : 0;
    xsf_error werr;
    xsf_error_clear(&werr);
    xsf_status wst = w ? pl_writer_status(w, &werr) : XSF_OK;
    if (w && (wst != XSF_OK || r->nfailures || !r->all_ok)) {
        pl_writer_discard(w); /* a failed demo leaves nothing half-written */
        r->removed = 1;
    } else if ((wst = pl_writer_close(w, &werr)) != XSF_OK) {
        r->removed = xsf_output_remove(c->out);
    }
    if (wst != XSF_OK) {
        r->write_failed = 1;
        r->write_failure = (svc_failure){.subject = c->out, .err = werr, .usage = 0};
    }
    pl_rtp_source_destroy(src);
    pl_destroy(p);
    free(chk->got);
    free(chk);
    if (r->nfailures)
        return r->failure[0].err.status ? r->failure[0].err.status : XSF_ERR_INVALID;
    return r->write_failed ? werr.status : XSF_OK;
}

/* A clip's run: what was sent (`clip` says what it is), received, decoded and matched. */
static void format_clip(FILE *f, const svc_demo_config *c, const svc_demo_result *r,
                        const char *clip)
{
    const rtp_stats *rs = &r->received;
    const pl_stream_stats *ps = &r->stream;
    fprintf(f,
            "xsflow demo: sent %s %u "
            "times\n"
            "  as ST 2110-22 (RTP, RFC 9134) over UDP loopback to port %u, and received it\n"
            "  through the pipeline, decoding on %s\n",
            clip, c->loops, r->port, r->engine);
    fprintf(f, "  sent      %llu frames in %llu packets\n", (unsigned long long)r->sent.segments,
            (unsigned long long)r->sent.packets);
    fprintf(f,
            "  received  %llu packets, %llu lost, %llu reordered; %llu frames whole, %llu "
            "dropped; jitter %.3f ms\n",
            (unsigned long long)rs->packets, (unsigned long long)rs->lost,
            (unsigned long long)rs->reordered, (unsigned long long)ps->delivered,
            (unsigned long long)(rs->frames_dropped + rs->frames_partial + ps->dropped_total),
            rs->jitter_ms);
    fprintf(f,
            "  latency   last packet to picture in host memory: p50 %.0f us, p99 %.0f us, "
            "max %.0f us\n",
            ps->latency.p50_us, ps->latency.p99_us, ps->latency.max_us);
    fprintf(f, "  frames    %u of %u decoded, %u equal to the C reference decoder's MD5\n",
            r->frames, r->clip_frames * c->loops, r->matched);
    fprintf(f, "  clip      MD5 %s over %llu bytes in .yuv layout\n", r->clip_md5,
            (unsigned long long)r->clip_bytes);
    fprintf(f, "  manifest  MD5 %s over %llu bytes (vectors/xs/MANIFEST.tsv)\n", c->expect_md5,
            (unsigned long long)c->expect_bytes);
    fprintf(f, "  match     %s\n", r->all_ok ? "yes" : "NO");
    if (!r->write_failed && !r->removed)
        fprintf(f, "  wrote     %s (%s, %llu bytes)\n", c->out,
                imgio_format_name(c->writer.image.format), (unsigned long long)r->written);
}

/* The live run's figures: raw -> encode -> RTP -> receive -> decode. */
static void format_live(FILE *f, const svc_demo_config *c, const svc_demo_result *r)
{
    const pl_encode_stats *e = &r->encoded;
    const rtp_stats *rs = &r->received;
    const pl_stream_stats *ps = &r->stream;
    fprintf(f,
            "xsflow demo: the whole link on UDP loopback: %s (%dx%d) encoded by the %s JPEG XS\n"
            "  encoder at %g bpp, sent as ST 2110-22 (RTP, RFC 9134) to port %u, received and\n"
            "  decoded through the pipeline on %s\n",
            c->name, e->format.width[0], e->format.height[0], e->device < 0 ? "C" : "GPU",
            c->encode->settings.bpp, r->port, r->engine);
    fprintf(f,
            "  encoded   %llu frames, %llu bytes; time per frame mean %.2f ms, p99 %.2f ms, max "
            "%.2f ms\n",
            (unsigned long long)e->frames, (unsigned long long)e->bytes, e->encode.mean_us / 1e3,
            e->encode.p99_us / 1e3, e->encode.max_us / 1e3);
    fprintf(f, "  sent      %llu frames in %llu packets\n", (unsigned long long)r->sent.segments,
            (unsigned long long)r->sent.packets);
    fprintf(f, "  received  %llu packets, %llu lost; %llu frames whole, %llu dropped\n",
            (unsigned long long)rs->packets, (unsigned long long)rs->lost,
            (unsigned long long)ps->delivered,
            (unsigned long long)(rs->frames_dropped + rs->frames_partial + ps->dropped_total));
    fprintf(f,
            "  frames    %u of %u decoded, %u equal to the C reference decoder's picture of the "
            "codestream sent\n",
            r->frames, r->clip_frames, r->matched);
    fprintf(f, "  decoded   MD5 %s over %llu bytes in .yuv layout\n", r->clip_md5,
            (unsigned long long)r->clip_bytes);
    fprintf(f, "  reference MD5 %s over %llu bytes (the C decoder on the codestreams sent)\n",
            r->reference_md5, (unsigned long long)r->reference_bytes);
    fprintf(f, "  match     %s\n", r->all_ok ? "yes" : "NO");
    if (!r->write_failed && !r->removed)
        fprintf(f, "  wrote     %s (%s, %llu bytes)\n", c->out,
                imgio_format_name(c->writer.image.format), (unsigned long long)r->written);
}

void svc_demo_format(FILE *f, const svc_demo_config *c, const svc_demo_result *r, const char *clip)
{
    if (c->encode)
        format_live(f, c, r);
    else
        format_clip(f, c, r, clip);
}

xsf_status svc_demo_live_config(pl_encode_config *ec, const char *raw, double bpp, int frames,
                                pl_engine engine, svc_failure *f)
{
    memset(ec, 0, sizeof *ec);
    memset(f, 0, sizeof *f);
    f->subject = raw;
    f->usage = 1;
    ec->in = raw;
    ec->format = imgio_format_from_path(raw);
    ec->codec = xsf_codec_find(RTP_JXS_CODEC);
    ec->max_frames = frames;
    xsf_encode_settings_init(&ec->settings);
    ec->settings.bpp = bpp;
    if (ec->format == IMGIO_FORMAT_NONE || ec->format == IMGIO_FORMAT_YUV)
        return xsf_error_set(&f->err, XSF_ERR_ARG,
                             "--raw takes a picture file with a header: .y4m, .ppm or .pgm");
    if (!(bpp > 0))
        return xsf_error_set(&f->err, XSF_ERR_ARG, "--raw needs the rate to encode at: --bpp B");
    const int want = engine == PL_ENGINE_CPU ? 0 : engine == PL_ENGINE_GPU ? 1 : -1;
    f->subject = "--gpu";
    f->usage = 0;
    return pl_encode_pick_device(ec->codec, want, &ec->device, &f->err);
}
