/* The receive service (service.h): sources, the pipeline, sinks, the run
 * loop. The figures and their JSON are in recv_stats.c. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recv_internal.h"
#include "xsf_clock.h"
#include "xsf_output.h"

/* The default pinned reserve: a UHD 4:2:2 3 bpp stream's 16 frames at 1.5 x its
 * 3.1 MB codestream take 75 MiB; five UHD 4:4:4 pictures of 16-bit samples, 250 MiB. */
#define PINNED_PER_STREAM_MIB ((size_t)96)
#define PINNED_PICTURES_MIB ((size_t)256)
/* A capture file is all its stream will carry: its codestream buffers never hold more
 * than twice the file (a buffer is 1.5 x the largest frame, and the first one 1 MiB),
 * and its pictures, of 16-bit samples, about CAPTURE_PICTURE_RATIO times its codestreams
 * at most (3 bpp 4:2:2 10-bit: 10.7 x). So a short capture pins that much up front, not
 * the live stream's 96 + 256 MiB: a 2-frame UHD capture (6.2 MB) about 110 MiB instead of 352 MiB,
 * which MAP_POPULATE zeroes and cudaHostRegister pins before the first frame. */
#define CAPTURE_SMALL ((size_t)48 << 20)
#define CAPTURE_PICTURE_RATIO ((size_t)16)

/* A file's size, 0 where it cannot be read (a FIFO, gone). */
static size_t file_bytes(const char *path)
{
    struct stat sb;
    return path && !stat(path, &sb) && S_ISREG(sb.st_mode) ? (size_t)sb.st_size : 0;
}

void svc_recv_config_init(svc_recv_config *c)
{
    *c = (svc_recv_config){.gpu_sync_auto = 1, .pinned_mib = -1, .vsync = 1, .delay_ms = 40};
}

static xsf_status fail(svc_failure *f, const char *subject, int usage, xsf_status st,
                       const char *fmt, const char *arg)
{
    f->subject = subject;
    f->usage = usage;
    xsf_error_clear(&f->err);
    return xsf_error_set(&f->err, st, fmt, arg);
}

/* What messages about stream k's source name. */
static const char *source_name(const svc_recv *s, int k)
{
    const svc_stream_config *sc = &s->cfg->stream[k];
    return sc->name ? sc->name : s->st[k].rc.path;
}

static void close_sources(svc_recv *s, int n)
{
    for (int k = 0; k < n; k++) {
        pl_rtp_source_destroy(s->st[k].src);
        s->st[k].src = NULL;
        if (s->st[k].plog)
            fclose(s->st[k].plog);
        s->st[k].plog = NULL;
    }
}

/* The decoder's settings, from the streams (service.h, svc_recv_config.pl). */
static void engine_rules(svc_recv *s)
{
    const svc_recv_config *c = s->cfg;
    pl_config *pl = &s->pl;
    int jxs_only = 1;
    for (int k = 0; k < c->nstreams; k++)
        jxs_only &= c->stream[k].output == SVC_OUT_JXS;
    /* Codestreams alone need no decoder: one thread reads their headers. */
    if (jxs_only && pl->engine == PL_ENGINE_AUTO) {
        pl->engine = PL_ENGINE_CPU;
        pl->cpu_threads = 1;
    }
    /* The first pictures from the C decoder while CUDA starts (0.2-0.35 s): a cold receiver
     * shows its first picture without waiting for the GPU (pl_config.start_on_cpu). */
    pl->start_on_cpu = pl->engine == PL_ENGINE_AUTO;
    /* A decoder holds a partial frame until it is whole: one per stream decoded by slices
     * at least, and some for whole frames and the frames' last steps. */
    int sliced = 0;
    for (int k = 0; k < c->nstreams; k++)
        sliced += s->st[k].rc.slices != 0;
    if (sliced && !pl->contexts_per_gpu)
        pl->contexts_per_gpu = (unsigned)(sliced + 2 > 3 ? sliced + 2 : 3);
    /* Decoder threads spin on the GPU while they are few: on the H100 machines spinning took
     * one stream's p99 from 1.7-4.0 ms to 1.4-3.2 ms and 16 streams' from 6.8-43 ms to
     * 4.6-30 ms, for about a core (BENCHMARKS.md, "Session 22 runs"). Many threads (--slices
     * with many streams) sleep, leaving the cores to the receiving threads. */
    if (c->gpu_sync_auto) {
        const long cores = sysconf(_SC_NPROCESSORS_ONLN);
        const unsigned contexts = pl->contexts_per_gpu ? pl->contexts_per_gpu : 3;
        pl->gpu_sync = (long)contexts * 4 <= cores ? PL_GPU_SYNC_SPIN : PL_GPU_SYNC_BLOCK;
    }
    /* Pinning memory while streams run holds the CUDA driver from the decoders (a live
     * stream then drops frames): by default enough for UHD frames and pictures is pinned
     * before the first packet (PINNED_PER_STREAM_MIB a stream, PINNED_PICTURES_MIB), in
     * well under a second. A capture file needs no more than its size allows
     * (capture_reserve). */
    if (c->pinned_mib >= 0) {
        pl->pinned_reserve_bytes = (size_t)c->pinned_mib << 20;
        return;
    }
    size_t streams = 0, captures = 0;
    int live = 0;
    for (int k = 0; k < c->nstreams; k++) {
        const pl_rtp_config *rc = &s->st[k].rc;
        const size_t file = rc->kind == PL_RTP_PCAP ? file_bytes(rc->path) : 0;
        live |= !file;
        streams += file && file < CAPTURE_SMALL ? 2 * file : PINNED_PER_STREAM_MIB << 20;
        captures += file;
    }
    const size_t pictures = PINNED_PICTURES_MIB << 20;
    pl->pinned_reserve_bytes = streams + (live || captures >= pictures / CAPTURE_PICTURE_RATIO
                                              ? pictures
                                              : captures * CAPTURE_PICTURE_RATIO);
}

/* Whether each stream's output file can be written, before anything runs (a receiver
 * that waits for its first packet would find out only then). */
static xsf_status check_outputs(const svc_recv_config *cfg, svc_failure *f)
{
    for (int k = 0; k < cfg->nstreams; k++) {
        const svc_stream_config *sc = &cfg->stream[k];
        const int file = sc->output == SVC_OUT_JXS || sc->output == SVC_OUT_YUV ||
                         sc->output == SVC_OUT_Y4M || sc->output == SVC_OUT_MD5;
        xsf_error err;
        xsf_error_clear(&err);
        if (file && sc->path && xsf_output_check(sc->path, &err) != XSF_OK)
            return fail(f, sc->out, 0, err.status, "%s", err.msg);
    }
    return XSF_OK;
}

/* A socket granted less receive buffer than it asked for: a warning for later. */
static void check_buffer(svc_stream *st)
{
    if (st->rc.kind != PL_RTP_SOCKET)
        return;
    const size_t asked = st->rc.udp.buffer_bytes ? st->rc.udp.buffer_bytes : (size_t)32 << 20;
    xsf_error_clear(&st->rcvbuf);
    st->rcvbuf_pending =
        svc_rcvbuf_warning(asked, pl_rtp_source_buffer_bytes(st->src), &st->rcvbuf) != XSF_OK;
}

xsf_status svc_recv_create(svc_recv **out, const svc_recv_config *cfg, svc_failure *f)
{
    *out = NULL;
    if (check_outputs(cfg, f) != XSF_OK)
        return f->err.status;
    svc_recv *s = calloc(1, sizeof *s);
    if (!s)
        return fail(f, "recv", 0, XSF_ERR_NOMEM, "%s", "out of memory");
    s->cfg = cfg;
    s->pl = cfg->pl;
    const uint64_t age = svc_process_age_ns();
    s->process_mono = xsf_clock_mono_ns() - age;
    s->process_wall = xsf_clock_wall_ns() - age;
    /* Sockets first: packets wait in their buffers while the GPU starts. */
    for (int k = 0; k < cfg->nstreams; k++) {
        svc_stream *st = &s->st[k];
        const svc_stream_config *sc = &cfg->stream[k];
        st->rc = sc->rtp;
        st->rc.packet_log = NULL;
        if (!st->rc.filter && sc->filter[0])
            st->rc.filter = sc->filter;
        for (unsigned i = 0; i < st->rc.legs.n; i++) {
            rtp_transport_config *leg = &st->rc.legs.leg[i];
            if (st->rc.kind != PL_RTP_SOCKET) {
                leg->path = sc->leg_path[i];
                if (!leg->filter && sc->leg_filter[i][0])
                    leg->filter = sc->leg_filter[i];
            }
        }
        if (sc->packets && !(st->rc.packet_log = st->plog = fopen(sc->packets, "w"))) {
            fail(f, sc->packets, 0, XSF_ERR_IO, "%s", "cannot create the file");
            close_sources(s, k);
            free(s);
            return XSF_ERR_IO;
        }
        /* ST 2110-21 as a receiver sees it: by the SDP's rate, else --fps; --ptp puts the
         * timestamps on this host's clock (as for capture-to-picture latency). */
        rtp_tr21_config *t21 = &st->rc.depacketizer.tr21;
        if (!t21->rate_num && sc->fps.num)
            t21->rate_num = sc->fps.num, t21->rate_den = sc->fps.den;
        t21->clock_known |= cfg->ptp;
        t21->tai_offset_ns = xsf_clock_tai_offset_ns();
        xsf_error err;
        xsf_error_clear(&err);
        if (pl_rtp_source_open(&st->src, &st->rc, &err) != XSF_OK) {
            fail(f, source_name(s, k), 0, err.status, "%s", err.msg);
            close_sources(s, k + 1);
            free(s);
            return f->err.status;
        }
        check_buffer(st);
    }
    engine_rules(s);
    xsf_error err;
    xsf_error_clear(&err);
    if (pl_create(&s->p, &s->pl, &err) != XSF_OK) {
        fail(f, "recv", 0, err.status, "%s", err.msg);
        close_sources(s, cfg->nstreams);
        free(s);
        return f->err.status;
    }
    if (cfg->slices > 0 && !pl_uses_gpu(s->p)) {
        f->subject = "--slices";
        f->usage = 1;
        xsf_error_clear(&f->err);
        xsf_error_set(&f->err, XSF_ERR_ARG,
                      "sub-frame decoding runs on the GPU engine only; the engine here is %s, "
                      "which decodes whole frames (drop --slices)",
                      pl_describe(s->p));
        pl_destroy(s->p);
        close_sources(s, cfg->nstreams);
        free(s);
        return XSF_ERR_ARG;
    }
    *out = s;
    return XSF_OK;
}

pl_pipeline *svc_recv_pipeline(const svc_recv *s)
{
    return s->p;
}

xsf_status svc_recv_open_display(svc_recv *s, svc_failure *f)
{
    const svc_recv_config *c = s->cfg;
    int display = 0;
    for (int k = 0; k < c->nstreams; k++)
        display |= c->stream[k].output == SVC_OUT_DISPLAY;
    if (!display)
        return XSF_OK;
    dsp_view_options vo;
    dsp_view_options_init(&vo);
    vo.display.tiles = c->nstreams;
    vo.display.title = "xsflow recv";
    vo.display.vsync = c->vsync;
    vo.display.convert = c->convert;
    vo.display.headless = c->headless_ppm != NULL;
    vo.headless_ppm = c->headless_ppm;
    vo.delay_ms = c->delay_ms;
    for (int k = 0; k < c->nstreams; k++) {
        snprintf(s->tile_label[k], sizeof s->tile_label[k], "%s", source_name(s, k));
        s->tile_label_ptr[k] = s->tile_label[k];
        vo.colour[k] = c->colour.source == XSF_COLOUR_USER ? c->colour : c->stream[k].colour;
    }
    vo.display.labels = s->tile_label_ptr;
    xsf_error err;
    xsf_error_clear(&err);
    if (dsp_view_start(&s->view, &vo, &err) != XSF_OK)
        return fail(f, "--display", 0, err.status, "%s", err.msg);
    return XSF_OK;
}

/* Stream k's sink: the display's tile, a null sink, or a writer. */
static xsf_status open_sink(svc_recv *s, int k, pl_sink *sink, svc_failure *f)
{
    const svc_stream_config *sc = &s->cfg->stream[k];
    svc_stream *st = &s->st[k];
    if (sc->output == SVC_OUT_DISPLAY) {
        *sink = dsp_view_sink(s->view, k, pl_uses_gpu(s->p));
    } else if (sc->output == SVC_OUT_NULL || sc->output == SVC_OUT_NULL_DEVICE) {
        *sink = pl_null_sink(sc->output == SVC_OUT_NULL ? PL_PICTURE_HOST : PL_PICTURE_DEVICE);
    } else {
        pl_writer_options wo;
        memset(&wo, 0, sizeof wo);
        wo.kind = sc->output == SVC_OUT_JXS   ? PL_WRITE_JXS
                  : sc->output == SVC_OUT_MD5 ? PL_WRITE_MD5
                                              : PL_WRITE_PICTURE;
        wo.image.format = sc->output == SVC_OUT_Y4M ? IMGIO_FORMAT_Y4M : IMGIO_FORMAT_YUV;
        wo.image.fps_num = sc->fps.num ? sc->fps.num : 25;
        wo.image.fps_den = sc->fps.num ? sc->fps.den : 1;
        xsf_error err;
        xsf_error_clear(&err);
        if (pl_writer_open(&st->w, sc->path, &wo, &err) != XSF_OK)
            return fail(f, sc->out, 0, err.status, "%s", err.msg);
        *sink = pl_writer_sink(st->w);
    }
    if (sink->placement == PL_PICTURE_DEVICE && !pl_uses_gpu(s->p))
        return fail(f, sc->out, 1, XSF_ERR_ARG, "pictures in GPU memory need the GPU engine (%s)",
                    pl_describe(s->p));
    return XSF_OK;
}

/* The colour a stream's pictures are converted with (--pix-fmt): the user's --colour,
 * else the SDP's; where neither says, each frame's own (pl_stream_config.pix_colour). */
static xsf_colour pix_colour(const svc_recv_config *c, const svc_stream_config *sc)
{
    return c->colour.source == XSF_COLOUR_USER ? c->colour : sc->colour;
}

static xsf_status start_stream(svc_recv *s, int k, svc_failure *f)
{
    svc_stream *st = &s->st[k];
    const svc_stream_config *sc = &s->cfg->stream[k];
    if (st->rc.kind != PL_RTP_SOCKET) {
        snprintf(st->label, sizeof st->label, "recv %s", st->rc.path);
    } else {
        char where[96];
        rtp_addr_format(&st->rc.udp.local, 1, where, sizeof where);
        snprintf(st->label, sizeof st->label, "recv %s", sc->addr ? sc->addr : where);
    }
    pl_sink sink;
    xsf_status r = open_sink(s, k, &sink, f);
    if (r != XSF_OK)
        return r;
    if (sc->has_sdp)
        sink = svc_check_sink(&st->check, &sc->sdp, sink);
    pl_stream_config psc = {.name = st->label,
                            .codec = RTP_JXS_CODEC,
                            .backpressure = st->rc.kind == PL_RTP_PCAP ? PL_BLOCK : PL_DROP_OLDEST,
                            .frames = s->cfg->queue,
                            .max_frame_bytes =
                                st->rc.interlaced ? 2 * sc->max_frame_bytes : sc->max_frame_bytes,
                            .sink = sink,
                            .frame_log = s->flog};
    /* The picture request: the decoder writes the pixel format (each field of an
     * interlaced frame alone; the writer weaves them). */
    psc.pix_fmt = sc->pix_fmt;
    psc.pix_colour = pix_colour(s->cfg, sc);
    /* Timestamps on PTP: their capture instants are measured against this host's clock,
     * which --ptp declares locked to the same; without it, a warning once that the figure
     * rests on that. */
    const int sdp_ptp = sc->has_sdp && rtp_sdp_refclk_is_ptp(sc->sdp.ts_refclk);
    psc.capture_clock = s->cfg->ptp || sdp_ptp;
    xsf_error_clear(&st->ptp);
    st->ptp_pending = sdp_ptp && !s->cfg->ptp;
    if (st->ptp_pending)
        xsf_error_set(&st->ptp, XSF_ERR_ARG,
                      "the SDP's timestamps are on PTP (a=ts-refclk:%.96s): capture-to-picture "
                      "latency takes this host's clock to be locked to it, which nothing says "
                      "(--ptp does, where phc2sys keeps it so)",
                      sc->sdp.ts_refclk);
    xsf_error err;
    xsf_error_clear(&err);
    if (pl_stream_add(s->p, &psc, &st->id, &err) != XSF_OK)
        return fail(f, st->label, 0, err.status, "%s", err.msg);
    if (pl_rtp_source_start(st->src, s->p, st->id, &err) != XSF_OK)
        return fail(f, source_name(s, k), 0, err.status, "%s", err.msg);
    s->started++;
    return XSF_OK;
}

xsf_status svc_recv_start(svc_recv *s, svc_failure *f)
{
    const svc_recv_config *c = s->cfg;
    xsf_status r = XSF_OK;
    if (c->frame_log) {
        if (!(s->flog = fopen(c->frame_log, "w")))
            r = fail(f, c->frame_log, 0, XSF_ERR_IO, "%s", strerror(errno));
        else
            fprintf(s->flog, "%s\n", PL_FRAME_LOG_HEADER);
    }
    for (int k = 0; k < c->nstreams && r == XSF_OK; k++)
        r = start_stream(s, k, f);
    s->last_report = xsf_clock_mono_ns();
    s->warmup_end = s->last_report + (uint64_t)(c->warmup_s * 1e9);
    s->warm = c->warmup_s <= 0;
    pl_pin_stats_get(&s->pin_warm);
    return r;
}

int svc_recv_started(const svc_recv *s)
{
    return s->started;
}

const char *svc_recv_label(const svc_recv *s, int k)
{
    return s->st[k].label;
}

/* A leg that went silent or came back since the last look: 1 and the warning. */
static int leg_event(svc_recv *s, int k, xsf_error *w)
{
    svc_stream *st = &s->st[k];
    rtp_merge_stats m;
    if (!st->rc.legs.n || !pl_rtp_source_merge_stats(st->src, &m))
        return 0;
    const svc_stream_config *sc = &s->cfg->stream[k];
    for (unsigned i = 0; i < m.legs; i++) {
        const rtp_leg_stats *l = &m.leg[i];
        xsf_error_clear(w);
        if (l->silences > st->leg_silences[i]) {
            st->leg_silences[i] = l->silences;
            int others = 0; /* legs still bringing packets */
            for (unsigned j = 0; j < m.legs; j++)
                others += j != i && !m.leg[j].silent && m.leg[j].packets_received;
            if (l->packets_received)
                xsf_error_set(w, XSF_ERR_IO,
                              "leg %u (%s) silent: no packet for %.1f s (%llu packets lost on it "
                              "so far)%s",
                              i + 1, sc->leg_name[i], l->last_packet_age_ms / 1e3,
                              (unsigned long long)l->packets_lost,
                              others ? "; the stream goes on on the other legs"
                                     : "; no leg brings packets now");
            else
                xsf_error_set(w, XSF_ERR_IO,
                              "leg %u (%s) silent: no packet since the stream started %.1f s ago",
                              i + 1, sc->leg_name[i], l->last_packet_age_ms / 1e3);
            return 1;
        }
        if (l->returns > st->leg_returns[i]) {
            st->leg_returns[i] = l->returns;
            xsf_error_set(w, XSF_ERR_IO, "leg %u (%s) back: packets again (%llu lost on it so far)",
                          i + 1, sc->leg_name[i], (unsigned long long)l->packets_lost);
            return 1;
        }
    }
    return 0;
}

int svc_recv_next_warning(svc_recv *s, svc_failure *w)
{
    for (int k = 0; k < s->started; k++) {
        if (leg_event(s, k, &w->err)) {
            w->subject = s->st[k].label;
            w->usage = 0;
            return 1;
        }
    }
    for (int k = 0; k < s->started; k++) {
        svc_stream *st = &s->st[k];
        const int buffer = st->rcvbuf_pending, ptp = !buffer && st->ptp_pending;
        if (buffer)
            w->err = st->rcvbuf;
        if (ptp)
            w->err = st->ptp;
        if (buffer || ptp || (s->cfg->stream[k].has_sdp && svc_check_take(&st->check, &w->err))) {
            st->rcvbuf_pending = 0;
            st->ptp_pending = ptp ? 0 : st->ptp_pending;
            w->subject = st->label;
            w->usage = 0;
            return 1;
        }
    }
    return 0;
}

int svc_recv_wait(svc_recv *s, int ms)
{
    int running = 0;
    for (int k = 0; k < s->started; k++)
        running += !pl_rtp_source_done(s->st[k].src);
    if (!running)
        return 0;
    xsf_clock_sleep_ns((int64_t)ms * (int64_t)XSF_NS_PER_MS);
    if (s->view && dsp_view_quit_requested(s->view))
        return 0;
    if (!s->warm && xsf_clock_mono_ns() >= s->warmup_end) {
        for (int k = 0; k < s->started; k++)
            pl_stream_latency_reset(s->p, s->st[k].id);
        pl_pin_stats_get(&s->pin_warm);
        s->warm = 1;
    }
    return 1;
}

void svc_recv_stop(svc_recv *s)
{
    for (int k = 0; k < s->started; k++)
        pl_rtp_source_stop(s->st[k].src);
}

xsf_status svc_recv_join(svc_recv *s, int k, xsf_error *err)
{
    const xsf_status r = pl_rtp_source_join(s->st[k].src, err);
    pl_stream_finish(s->p, s->st[k].id);
    return r;
}

int svc_recv_has_display(const svc_recv *s)
{
    return s->view != NULL;
}

xsf_status svc_recv_display_stop(svc_recv *s, dsp_tile_stats *stats, xsf_error *err)
{
    if (!s->view)
        return XSF_OK;
    const xsf_status r = dsp_view_stop(s->view, stats, err);
    s->view = NULL;
    return r;
}

xsf_status svc_recv_close_writer(svc_recv *s, int k, int *wrote, uint64_t *frames, svc_failure *f)
{
    svc_stream *st = &s->st[k];
    *wrote = st->w != NULL;
    *frames = 0;
    if (!st->w)
        return XSF_OK;
    *frames = pl_writer_frames(st->w);
    xsf_error err;
    xsf_error_clear(&err);
    xsf_status r = pl_writer_status(st->w, &err);
    if (r != XSF_OK || !*frames)
        pl_writer_discard(st->w); /* nothing half-written, nothing empty */
    else
        r = pl_writer_close(st->w, &err);
    st->w = NULL;
    return r == XSF_OK ? XSF_OK : fail(f, s->cfg->stream[k].out, 0, r, "%s", err.msg);
}

xsf_status svc_recv_close_packets(svc_recv *s, int k, svc_failure *f)
{
    svc_stream *st = &s->st[k];
    if (!st->plog)
        return XSF_OK;
    const int bad = fclose(st->plog);
    st->plog = NULL;
    return bad ? fail(f, s->cfg->stream[k].packets, 0, XSF_ERR_IO, "%s", "write failed") : XSF_OK;
}

xsf_status svc_recv_destroy(svc_recv *s, svc_failure *f)
{
    if (!s)
        return XSF_OK;
    if (s->view)
        dsp_view_stop(s->view, NULL, NULL);
    close_sources(s, s->cfg->nstreams);
    if (s->end_startup)
        pl_destroy_stats(s->p, s->end_startup);
    else
        pl_destroy(s->p);
    for (int k = 0; k < s->cfg->nstreams; k++)
        pl_writer_discard(s->st[k].w); /* left open: svc_recv_close_writer not called */
    xsf_status r = XSF_OK;
    if (s->flog && fclose(s->flog))
        r = fail(f, s->cfg->frame_log, 0, XSF_ERR_IO, "%s", "write failed");
    free(s);
    return r;
}

/* Keeps the first failure's status. */
static void first_failure(xsf_status *first, xsf_status st)
{
    if (*first == XSF_OK)
        *first = st;
}

/* The warnings not taken before the end, into each stream's end (the label there). */
static void take_warnings(svc_recv *s, svc_recv_end *e)
{
    for (int k = 0; k < e->started; k++) {
        svc_stream_end *se = &e->stream[k];
        svc_failure *w = se->warning;
        if (s->st[k].rcvbuf_pending)
            w[se->nwarnings++].err = s->st[k].rcvbuf;
        if (s->st[k].ptp_pending)
            w[se->nwarnings++].err = s->st[k].ptp;
        s->st[k].ptp_pending = 0;
        if (s->cfg->stream[k].has_sdp && svc_check_take(&s->st[k].check, &w[se->nwarnings].err))
            se->nwarnings++;
        s->st[k].rcvbuf_pending = 0;
        for (int i = 0; i < se->nwarnings; i++)
            w[i].subject = se->label;
    }
}

xsf_status svc_recv_finish(svc_recv *s, const char *stats_json, svc_recv_end *e)
{
    memset(e, 0, sizeof *e);
    e->started = s->started;
    e->nstreams = s->cfg->nstreams;
    xsf_status first = XSF_OK;
    int stopped[SVC_MAX_STREAMS];
    for (int k = 0; k < e->started; k++)
        stopped[k] = !pl_rtp_source_done(s->st[k].src);
    svc_recv_stop(s);
    for (int k = 0; k < e->started; k++) {
        svc_stream_end *se = &e->stream[k];
        snprintf(se->label, sizeof se->label, "%s", s->st[k].label);
        first_failure(&first, svc_recv_join(s, k, &se->join));
    }
    dsp_tile_stats tiles[SVC_MAX_STREAMS];
    if ((e->display = svc_recv_has_display(s)) != 0) {
        first_failure(&first, svc_recv_display_stop(s, tiles, &e->display_err));
        for (int k = 0; k < e->started; k++)
            e->stream[k].tile = tiles[k];
    }
    for (int k = 0; k < e->started; k++)
        svc_recv_figures(s, k, 0, &e->stream[k].fig);
    svc_recv_process_figures(s, &e->process);
    if ((e->gpu = pl_uses_gpu(s->p)) != 0)
        pl_pin_stats_get(&e->pin);
    if (stats_json && e->started == e->nstreams)
        first_failure(&first, svc_recv_write_json(s, stats_json, &e->json));
    for (int k = 0; k < e->started; k++) {
        svc_stream_end *se = &e->stream[k];
        if (svc_stream_shortfall(&s->cfg->stream[k], se, stopped[k], &se->shortfall))
            first_failure(&first, se->shortfall.err.status);
    }
    take_warnings(s, e);
    for (int k = 0; k < e->nstreams; k++) {
        svc_stream_end *se = &e->stream[k];
        first_failure(&first, svc_recv_close_writer(s, k, &se->wrote, &se->frames, &se->close));
        first_failure(&first, svc_recv_close_packets(s, k, &se->packets));
    }
    s->end_startup = &e->startup;
    first_failure(&first, svc_recv_destroy(s, &e->destroy));
    return first;
}
