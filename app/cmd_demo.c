/* xsflow demo: the main job in miniature. Sends the clip built into the
 * program as an ST 2110-22 stream over UDP loopback to itself, receives it
 * through the pipeline, decodes it (GPU where usable, else every CPU core),
 * checks every frame's MD5 against the C reference decoder and the clip's
 * against vectors/xs/MANIFEST.tsv, prints the stream's statistics and
 * writes the pictures. Needs no file and no network beyond loopback. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "demo_vector.h"
#include "image_io.h"
#include "jxs_file.h"
#include "md5.h"
#include "pipeline.h"
#include "xs.h"
#include "play.h"
#include "rtp.h"

#define DEMO_DEFAULT_OUT "xsflow-demo.y4m"
#define DEMO_LOOPS 2
#define DEMO_MAX_FRAMES 64

/* The text before the options (a buffer of 1024 bytes). */
static const char *about(char *buf, size_t cap)
{
    snprintf(buf, cap,
             "Sends the JPEG XS clip built into this program (vectors/xs/%s.jxs, %dx%d %s,\n"
             "%d bits) %d times as an ST 2110-22 stream (RTP, RFC 9134) over UDP loopback to\n"
             "itself, receives and decodes it through the pipeline (GPU where usable, else every\n"
             "CPU core), checks each frame's MD5 against the C reference decoder's and the clip's\n"
             "against vectors/xs/MANIFEST.tsv (which two independent decoders agree on), prints\n"
             "the stream's statistics and writes the pictures to OUT (default " DEMO_DEFAULT_OUT ";\n"
             ".yuv, .y4m, or .ppm/.pgm with one file per frame). Exits with 0 when every frame\n"
             "arrived and matched.\n",
             demo_vector_name, demo_vector_width, demo_vector_height, demo_vector_format, demo_vector_depth,
             DEMO_LOOPS);
    return buf;
}

/* The demo's sink: checks each frame, then hands it to the writer. */
typedef struct checker {
    char expected[DEMO_MAX_FRAMES][33]; /* per codestream of the clip, C reference decoder */
    unsigned clip_frames;
    app_md5 clip; /* the first pass through the clip, for the manifest */
    uint64_t clip_bytes;
    unsigned seen, matched;
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
    /* RTP timestamps count frames of the clip from 0 at 25 fps (3600 ticks). */
    const unsigned n = (unsigned)(f->rtp_timestamp / 3600u);
    if (n < DEMO_MAX_FRAMES * DEMO_LOOPS && !strcmp(hex, c->expected[n % c->clip_frames]))
        c->matched++;
    if (n < c->clip_frames) {
        imgio_yuv_serialize(pic, app_md5_sink, &c->clip);
        c->clip_bytes += imgio_yuv_frame_bytes(pic);
    }
    c->seen++;
    c->next.deliver(c->next.ctx, f);
}

static void check_finish(void *ctx)
{
    checker *c = ctx;
    if (c->next.finish)
        c->next.finish(c->next.ctx);
}

/* The reference: each codestream of the clip through the C decoder. */
static int reference(checker *c, xsf_error *err)
{
    xs_decoder *dec;
    if (xs_decoder_create(&dec) != XSF_OK) {
        xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the decoder");
        return -1;
    }
    size_t off = 0;
    while (off < demo_vector_size && c->clip_frames < DEMO_MAX_FRAMES) {
        size_t consumed;
        const xsf_picture *img;
        if (xs_decode(dec, demo_vector_data + off, demo_vector_size - off, &consumed, &img) !=
            XSF_OK) {
            xsf_error_set(err, XSF_ERR_INVALID, "%s", xs_decoder_error(dec));
            xs_decoder_destroy(dec);
            return -1;
        }
        app_md5 m;
        app_md5_init(&m);
        imgio_yuv_serialize(img, app_md5_sink, &m);
        app_md5_final_hex(&m, c->expected[c->clip_frames++]);
        off += consumed;
    }
    xs_decoder_destroy(dec);
    return 0;
}

typedef struct sender {
    rtp_udp *sock;
    rtp_sender_config cfg;
    rtp_sender_stats res;
    xsf_status st;
    xsf_error err;
} sender;

/* The clip DEMO_LOOPS times, each frame's packets at once at its time (25 fps). */
static void *send_main(void *arg)
{
    sender *s = arg;
    xsf_error_clear(&s->err);
    rtp_clip clip;
    rtp_sender *snd = NULL;
    s->st = rtp_clip_open(&clip, demo_vector_data, demo_vector_size, &s->err);
    if (s->st == XSF_OK) {
        s->st = rtp_sender_create(&snd, &s->cfg, &s->err);
        if (s->st == XSF_OK)
            s->st = rtp_sender_send_clip(snd, &clip, DEMO_LOOPS, &s->err);
        if (snd)
            s->res = *rtp_sender_get_stats(snd);
        rtp_sender_destroy(snd);
        rtp_clip_free(&clip);
    }
    return NULL;
}

int cmd_demo(int argc, char **argv)
{
    const char *out = NULL;
    pl_config pc;
    memset(&pc, 0, sizeof pc);
    int quiet = 0;
    char text[1024];
    const cli_option options[] = {
        CLI_OPT("output", 'o', CLI_STRING, &out, "OUT", "same as OUT"),
        CLI_OPT("cpu", 0, CLI_SET, &pc.engine, NULL, "decode on the CPU (C reference decoder, one thread per core)",
                .value = PL_ENGINE_CPU),
        CLI_OPT("gpu", 0, CLI_SET, &pc.engine, NULL, "decode on the GPU (the default where a GPU is usable)",
                .value = PL_ENGINE_GPU),
        CLI_OPT("quiet", 'q', CLI_FLAG, &quiet, NULL, "print nothing but errors (and open no window)"),
        CLI_TABLE_END};
    const cli_command cmd = {.name = "demo", .synopsis = "[OUT] [--cpu|--gpu] [-q]",
                             .about = about(text, sizeof text), .options = options,
                             .epilogue = "Where a window can open (DISPLAY or WAYLAND_DISPLAY set), the clip is then "
                                         "shown\nin a loop until q is pressed.\n",
                             .input = &out};
    const int r = cli_exit_status(cli_parse(&cmd, argc, argv));
    if (r >= 0)
        return r;
    if (!out)
        out = DEMO_DEFAULT_OUT;
    pl_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.image.format = imgio_format_from_path(out);
    wo.image.frame_files = 1; /* .ppm/.pgm: one file per frame */
    if (wo.image.format == IMGIO_FORMAT_NONE) {
        cli_error(out, "unknown output format: name it .yuv, .y4m, .ppm or .pgm");
        return 2;
    }

    char subject[64];
    snprintf(subject, sizeof subject, "built-in %s.jxs", demo_vector_name);
    xsf_error err;
    xsf_error_clear(&err);
    static checker chk;
    memset(&chk, 0, sizeof chk);
    app_md5_init(&chk.clip);
    if (reference(&chk, &err)) {
        cli_error(subject, "%s", err.msg);
        return 1;
    }

    pl_pipeline *p = NULL;
    pl_writer *w = NULL;
    pl_rtp_source *src = NULL;
    sender snd;
    memset(&snd, 0, sizeof snd);
    int sid = -1, status = 0;
    /* The receiving socket first (an ephemeral loopback port), the GPU after. */
    pl_rtp_config rc;
    memset(&rc, 0, sizeof rc);
    rc.kind = PL_RTP_SOCKET;
    rc.max_frames = (uint64_t)chk.clip_frames * DEMO_LOOPS;
    rc.timeout_s = 3;
    rc.depacketizer.payload_type = 112;
    rc.depacketizer.reorder_ns = 20000000u;
    rc.depacketizer.validate = 1;
    rc.udp.timestamps = 1;
    if (rtp_addr_parse("127.0.0.1:0", 1, &rc.udp.local, &err) != XSF_OK ||
        pl_rtp_source_open(&src, &rc, &err) != XSF_OK) {
        cli_error("demo", "%s", err.msg);
        return 1;
    }
    if (pl_create(&p, &pc, &err) != XSF_OK) {
        cli_error("demo", "%s", err.msg);
        pl_rtp_source_destroy(src);
        return 1;
    }
    xsf_status st = pl_writer_open(&w, out, &wo, &err);
    chk.next = w ? pl_writer_sink(w) : pl_null_sink(PL_PICTURE_HOST);
    pl_stream_config sc = {.name = "demo",
                           .backpressure = PL_DROP_OLDEST,
                           .sink = {check_deliver, check_finish, &chk, PL_PICTURE_HOST, NULL, NULL}};
    if (st == XSF_OK)
        st = pl_stream_add(p, &sc, &sid, &err);
    if (st == XSF_OK)
        st = pl_rtp_source_start(src, p, sid, &err);
    rtp_addr to;
    if (st == XSF_OK && (st = rtp_addr_parse("127.0.0.1:0", 1, &to, &err)) == XSF_OK) {
        to.port = pl_rtp_source_local_port(src);
        rtp_udp_config uc;
        memset(&uc, 0, sizeof uc);
        st = rtp_udp_open_sender(&snd.sock, &to, &uc, &err);
    }
    pthread_t thread;
    int sending = 0;
    if (st == XSF_OK) {
        snd.cfg.packetizer.payload_type = 112;
        snd.cfg.packetizer.ssrc = 0x58534644u; /* "XSFD" */
        snd.cfg.packetizer.boxes = 1;
        snd.cfg.pacing = RTP_PACING_FRAME;
        snd.cfg.rate_num = 25;
        snd.cfg.rate_den = 1;
        snd.cfg.sock = snd.sock;
        if (pthread_create(&thread, NULL, send_main, &snd))
            st = xsf_error_set(&err, XSF_ERR_NOMEM, "cannot start the sending thread");
        else
            sending = 1;
    }
    if (st != XSF_OK) {
        cli_error("demo", "%s", err.msg);
        status = 1;
    }
    if (sending) {
        pthread_join(thread, NULL);
        if (snd.st != XSF_OK) {
            cli_error("demo: sending", "%s", snd.err.msg);
            status = 1;
        }
    }
    if (src && sid >= 0) {
        xsf_error e2;
        xsf_error_clear(&e2);
        if (pl_rtp_source_join(src, &e2) != XSF_OK) {
            cli_error("demo: receiving", "%s", e2.msg);
            status = 1;
        }
        pl_stream_finish(p, sid);
    }
    rtp_stats rs;
    memset(&rs, 0, sizeof rs);
    pl_stream_stats ps;
    memset(&ps, 0, sizeof ps);
    if (src && sid >= 0) {
        pl_rtp_source_stats(src, &rs, NULL);
        pl_stream_stats_get(p, sid, &ps);
    }
    char clip_hex[33];
    app_md5_final_hex(&chk.clip, clip_hex);
    const uint64_t written = w ? pl_writer_bytes(w) : 0;
    xsf_error werr;
    xsf_error_clear(&werr);
    const xsf_status wst = pl_writer_close(w, &werr);
    const unsigned want = chk.clip_frames * DEMO_LOOPS;
    const int clip_ok = !strcmp(clip_hex, demo_vector_md5) &&
                        chk.clip_bytes == demo_vector_decoded_bytes;
    const int all_ok = chk.seen == want && chk.matched == want && clip_ok;
    if (!quiet && !status) {
        printf("xsflow demo: sent the built-in clip %s.jxs (%u frames, %dx%d %s, %d bits) %d "
               "times\n"
               "  as ST 2110-22 (RTP, RFC 9134) over UDP loopback to port %u, and received it\n"
               "  through the pipeline, decoding on %s\n",
               demo_vector_name, chk.clip_frames, demo_vector_width, demo_vector_height,
               demo_vector_format, demo_vector_depth, DEMO_LOOPS, to.port, pl_describe(p));
        printf("  sent      %llu frames in %llu packets\n", (unsigned long long)snd.res.segments,
               (unsigned long long)snd.res.packets);
        printf("  received  %llu packets, %llu lost, %llu reordered; %llu frames whole, %llu "
               "dropped; jitter %.3f ms\n",
               (unsigned long long)rs.packets, (unsigned long long)rs.lost,
               (unsigned long long)rs.reordered, (unsigned long long)ps.delivered,
               (unsigned long long)(rs.frames_dropped + rs.frames_partial + ps.dropped_total),
               rs.jitter_ms);
        printf("  latency   last packet to picture in host memory: p50 %.0f us, p99 %.0f us, "
               "max %.0f us\n",
               ps.latency.p50_us, ps.latency.p99_us, ps.latency.max_us);
        printf("  frames    %u of %u decoded, %u equal to the C reference decoder's MD5\n",
               chk.seen, want, chk.matched);
        printf("  clip      MD5 %s over %llu bytes in .yuv layout\n", clip_hex,
               (unsigned long long)chk.clip_bytes);
        printf("  manifest  MD5 %s over %zu bytes (vectors/xs/MANIFEST.tsv)\n", demo_vector_md5,
               demo_vector_decoded_bytes);
        printf("  match     %s\n", all_ok ? "yes" : "NO");
        if (wst == XSF_OK)
            printf("  wrote     %s (%s, %llu bytes)\n", out, imgio_format_name(wo.image.format),
                   (unsigned long long)written);
        fflush(stdout);
    }
    pl_rtp_source_destroy(src);
    rtp_udp_close(snd.sock);
    pl_destroy(p);
    if (wst != XSF_OK) {
        cli_error(out, "%s", werr.msg);
        status = 1;
    }
    /* Where a window can open, show the clip (q closes it). */
    if (!status && all_ok && !quiet && play_window_possible()) {
        play_options po;
        play_options_init(&po);
        po.loop = 1;
        po.fps = 25;
        po.title = "xsflow demo (q to close)";
        po.quiet = 1;
        printf("  showing   the clip in a window (q closes it)\n");
        fflush(stdout);
        play_jxs(subject, demo_vector_data, demo_vector_size, &po);
    }
    if (!status && !all_ok) {
        cli_error(subject,
                  "%u of %u frames arrived, %u matched the C reference decoder; clip MD5 %s, "
                  "manifest %s",
                  chk.seen, want, chk.matched, clip_hex, demo_vector_md5);
        status = 1;
    }
    return status;
}
