/* The receive service (service/include/service.h): the drops by reason from the
 * receiver's and the pipeline's counts; a .pcap of a conformance vector
 * through the whole service (CPU engine) into a .jxs file, a packet log, a
 * frame log and the JSON figures; and its refusals: a missing capture,
 * pictures in GPU memory or sub-frame decoding without the GPU engine. A
 * stream's configuration from its request (an SDP file, a capture's filter,
 * the failures and their subjects) and the outputs that names name; a
 * request's checks; the knobs of the command line; the limits the streams share (svc_recv_setup);
 * the end of a run by svc_recv_finish; a stream that fell short (fewer frames than asked, no packet
 * in the wait), its output kept or removed, a stream whose SDP contradicts it, a socket's receive
 * buffer against what was asked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../rtp/rtp_test_util.h"
#include "service.h"
#include "test.h"

static void test_drops(void)
{
    rtp_stats r;
    pl_stream_stats ps;
    memset(&r, 0, sizeof r);
    memset(&ps, 0, sizeof ps);
    r.frames_dropped = 20; /* of which: */
    r.frames_invalid = 3;
    r.frames_dropped_no_buffer = 2;
    r.frames_too_large = 4;
    r.frames_partial = 5;
    ps.dropped[PL_DROP_QUEUE] = 6;
    ps.dropped[PL_DROP_NO_FRAME] = 7;
    ps.dropped[PL_DROP_DECODE] = 8;
    ps.dropped[PL_DROP_FIELD] = 9;
    r.invalid = 1, r.truncated = 2, r.wrong_pt = 3, r.wrong_ssrc = 4, r.on_probation = 5;
    r.foreign_source = 6;
    ps.pool_bytes = 1000;
    r.memory_bytes = 234;
    ps.frames = 16;
    ps.max_frame_bytes = 1 << 20;
    rtp_depacketizer_config dc;
    memset(&dc, 0, sizeof dc);
    dc.max_frame_bytes = 1 << 20;
    dc.reorder_packets = 512;
    const svc_drops d = svc_drops_of(&r, &ps, &dc);
    CHECK(d.missing == 11, "missing %llu", (unsigned long long)d.missing);
    CHECK(d.invalid == 3 && d.too_large == 4 && d.partial == 5, "invalid/too large/partial");
    CHECK(d.behind == 6 && d.decode == 8 && d.field == 9, "pipeline drops");
    CHECK(d.no_frame == 9, "no frame %llu: the pipeline's 7 and the receiver's 2",
          (unsigned long long)d.no_frame);
    CHECK(d.total == 11 + 5 + 3 + 4 + 6 + 9 + 8 + 9, "total %llu", (unsigned long long)d.total);
    CHECK(d.refused_packets == 21, "refused %llu", (unsigned long long)d.refused_packets);
    CHECK(d.memory == 1234, "memory %llu", (unsigned long long)d.memory);
    CHECK(d.memory_bound == ((uint64_t)16 << 20) + rtp_depacketizer_memory_bound(&dc),
          "memory bound %llu", (unsigned long long)d.memory_bound);
}

/* The vector's codestreams as RTP packets in a .pcap, 20 ms apart; the frame count. */
static size_t make_pcap(const uint8_t *data, size_t len, const char *path)
{
    xsf_error err;
    xsf_error_clear(&err);
    rtp_packetizer_config pc = {.mode = RTP_JXS_CODESTREAM,
                                .packet_bytes = 1440,
                                .payload_type = 112,
                                .ssrc = 0x5eed,
                                .boxes = 1};
    rtp_packetizer *pk = NULL;
    rtp_pcap_writer *w = NULL;
    rtp_addr src, dst;
    if (rtp_packetizer_create(&pk, &pc, &err) != XSF_OK ||
        rtp_addr_parse("10.0.0.1:5000", 1, &src, &err) ||
        rtp_addr_parse("10.0.0.2:5004", 1, &dst, &err) ||
        rtp_pcap_writer_open(&w, path, &err) != XSF_OK)
        return 0;
    size_t frames = 0, off = 0;
    uint64_t t = 1700000000000000000ull;
    while (off < len) {
        const size_t n = tu_codestream_bytes(data + off, len - off);
        tu_list l = {0};
        if (!n ||
            rtp_packetize(pk, data + off, n, rtp_frame_timestamp(90000, frames, 50, 1),
                          (unsigned)frames, RTP_JXS_PROGRESSIVE, tu_collect, &l, &err) != XSF_OK)
            break;
        for (size_t i = 0; i < l.n; i++)
            rtp_pcap_write(w, &src, &dst, l.p[i].data, l.p[i].len, t + i * 1000, &err);
        tu_free(&l);
        t += 20000000u;
        off += n;
        frames++;
    }
    rtp_packetizer_destroy(pk);
    return rtp_pcap_writer_close(w, &err) == XSF_OK && off == len ? frames : 0;
}

static void stream_of_pcap(svc_stream_config *sc, const char *pcap)
{
    memset(sc, 0, sizeof *sc);
    sc->rtp.kind = PL_RTP_PCAP;
    sc->rtp.path = pcap;
    sc->rtp.copy_threads = -1;
    sc->rtp.depacketizer.payload_type = -1;
    sc->rtp.depacketizer.reorder_packets = 512;
    sc->rtp.depacketizer.reorder_ns = 20000000u;
    sc->rtp.depacketizer.max_frame_bytes = (size_t)64 << 20;
    sc->max_frame_bytes = (size_t)64 << 20;
}

/* Bytes of a file; -1 where there is none. */
static long long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) ? -1 : (long long)sb.st_size;
}

static size_t file_text(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return n;
}

/* by_finish: the end of the run by svc_recv_finish, else step by step. */
static void test_run(const uint8_t *data, size_t len, const char *dir, int by_finish)
{
    char pcap[512], out[512], packets[512], flog[512], json[512];
    snprintf(pcap, sizeof pcap, "%s/in.pcap", dir);
    snprintf(out, sizeof out, "%s/out.jxs", dir);
    snprintf(packets, sizeof packets, "%s/packets.csv", dir);
    snprintf(flog, sizeof flog, "%s/frames.csv", dir);
    snprintf(json, sizeof json, "%s/stats.json", dir);
    const size_t frames = make_pcap(data, len, pcap);
    CHECK(frames == 5, "%zu frames in the capture", frames);

    static svc_recv_config c;
    svc_recv_config_init(&c);
    c.nstreams = 1;
    c.pl.engine = PL_ENGINE_CPU;
    c.frame_log = flog;
    stream_of_pcap(&c.stream[0], pcap);
    c.stream[0].rtp.depacketizer.validate = 1;
    c.stream[0].output = SVC_OUT_JXS;
    c.stream[0].out = c.stream[0].path = out;
    c.stream[0].packets = packets;
    svc_failure f;
    svc_recv *s = NULL;
    if (svc_recv_create(&s, &c, &f) != XSF_OK) {
        CHECK(0, "create: %s: %s", f.subject, f.err.msg);
        return;
    }
    CHECK(svc_recv_open_display(s, &f) == XSF_OK, "no display asked for");
    CHECK(svc_recv_start(s, &f) == XSF_OK, "start: %s: %s", f.subject, f.err.msg);
    CHECK(svc_recv_started(s) == 1, "%d started", svc_recv_started(s));
    CHECK(!strncmp(svc_recv_label(s, 0), "recv ", 5) && !strcmp(svc_recv_label(s, 0) + 5, pcap),
          "label '%s'", svc_recv_label(s, 0));
    int loops = 0;
    while (svc_recv_wait(s, 20) && loops < 1500)
        loops++;
    CHECK(loops < 1500, "the capture never ended");
    if (by_finish) {
        static svc_recv_end e;
        CHECK(svc_recv_finish(s, json, &e) == XSF_OK, "finish");
        const svc_stream_end *se = &e.stream[0];
        CHECK(e.started == 1 && e.nstreams == 1 && !e.display && !e.gpu &&
                  se->join.status == XSF_OK && !strncmp(se->label, "recv ", 5) &&
                  !strcmp(se->label + 5, pcap),
              "finished: %d of %d started, label '%s'", e.started, e.nstreams, se->label);
        CHECK(se->fig.pl.delivered == 5 && se->fig.drops.total == 0 && se->wrote && se->frames == 5,
              "figures and writer: %llu delivered, %llu written",
              (unsigned long long)se->fig.pl.delivered, (unsigned long long)se->frames);
        CHECK(e.json.err.status == XSF_OK && se->close.err.status == XSF_OK &&
                  se->packets.err.status == XSF_OK && e.destroy.err.status == XSF_OK,
              "no failure");
        /* 5 frames: no stream rate, no steady rate of the process, only its rate per wall
         * second since it started; the start and the teardown measured. */
        CHECK(se->fig.fps_short && e.process.frames == 5 && e.process.steady_short &&
                  e.process.seconds > 0 && e.process.fps > 0 &&
                  e.process.fps * e.process.seconds > 4.99 && e.process.first_picture_s > 0 &&
                  e.process.first_picture_s <= e.process.seconds,
              "process: %llu frames in %.3f s, %.1f fps, first at %.3f s, steady short %d",
              (unsigned long long)e.process.frames, e.process.seconds, e.process.fps,
              e.process.first_picture_s, e.process.steady_short);
        CHECK(e.startup.total_ns > 0 && e.startup.first_picture_ns > 0 && e.startup.teardown_ns > 0,
              "start-up %llu ns, first picture %llu ns, teardown %llu ns",
              (unsigned long long)e.startup.total_ns,
              (unsigned long long)e.startup.first_picture_ns,
              (unsigned long long)e.startup.teardown_ns);
    } else {
        svc_recv_stop(s);
        xsf_error err;
        xsf_error_clear(&err);
        CHECK(svc_recv_join(s, 0, &err) == XSF_OK, "join: %s", err.msg);
        svc_stream_figures fig;
        svc_recv_figures(s, 0, 0, &fig);
        CHECK(fig.pl.delivered == 5, "%llu delivered", (unsigned long long)fig.pl.delivered);
        CHECK(fig.drops.total == 0 && fig.rtp.lost == 0, "drops %llu",
              (unsigned long long)fig.drops.total);
        CHECK(fig.drops.memory_bound >= fig.drops.memory, "memory within its bound");
        CHECK(svc_recv_write_json(s, json, &f) == XSF_OK, "json: %s: %s", f.subject, f.err.msg);
        int wrote = 0;
        uint64_t written = 0;
        CHECK(svc_recv_close_writer(s, 0, &wrote, &written, &f) == XSF_OK && wrote && written == 5,
              "writer: %d, %llu frames", wrote, (unsigned long long)written);
        CHECK(svc_recv_close_packets(s, 0, &f) == XSF_OK, "packet log");
        CHECK(svc_recv_destroy(s, &f) == XSF_OK, "destroy");
    }
    size_t got_len = 0;
    uint8_t *got = tu_read_file(out, &got_len);
    CHECK(got && got_len == len && !memcmp(got, data, len),
          "the codestreams written as sent (%zu of %zu bytes)", got_len, len);
    free(got);
    static char text[1 << 16];
    file_text(json, text, sizeof text);
    CHECK(strstr(text, "\"engine\": ") && strstr(text, "\"frames_whole\": 5,") &&
              strstr(text, "\"frames_dropped\": 0,") && strstr(text, "\"process_frames\": 5,") &&
              strstr(text, "\"steady_short\": true") && strstr(text, "\"fps_short\": true") &&
              strstr(text, "\"startup_ms\": {\"total\": "),
          "JSON: %.400s", text);
    CHECK(file_text(flog, text, sizeof text) &&
              !strncmp(text, PL_FRAME_LOG_HEADER "\n", strlen(PL_FRAME_LOG_HEADER) + 1),
          "frame log header");
    size_t lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    CHECK(lines == 6, "frame log: %zu lines (header and 5 frames)", lines);
    CHECK(file_text(packets, text, sizeof text) > 0, "packet log written");
}

static void test_refusals(const char *dir)
{
    char pcap[512], missing[512];
    snprintf(pcap, sizeof pcap, "%s/in.pcap", dir);
    snprintf(missing, sizeof missing, "%s/no-such.pcap", dir);
    static svc_recv_config c;
    svc_failure f;
    svc_recv *s = NULL;

    svc_recv_config_init(&c);
    c.nstreams = 1;
    c.pl.engine = PL_ENGINE_CPU;
    stream_of_pcap(&c.stream[0], missing);
    c.stream[0].output = SVC_OUT_NULL;
    CHECK(svc_recv_create(&s, &c, &f) != XSF_OK && !s && f.subject && !strcmp(f.subject, missing) &&
              !f.usage,
          "a missing capture: %s", f.err.msg);
    c.stream[0].name = "the-name";
    CHECK(svc_recv_create(&s, &c, &f) != XSF_OK && !strcmp(f.subject, "the-name"),
          "named by its name");

    stream_of_pcap(&c.stream[0], pcap);
    c.stream[0].output = SVC_OUT_NULL;
    c.slices = 1;
    CHECK(svc_recv_create(&s, &c, &f) != XSF_OK && !s && f.usage && !strcmp(f.subject, "--slices"),
          "slices on the CPU engine");
    c.slices = 0;

    c.stream[0].output = SVC_OUT_NULL_DEVICE;
    c.stream[0].out = "null:device";
    if (svc_recv_create(&s, &c, &f) != XSF_OK) {
        CHECK(0, "create: %s", f.err.msg);
        return;
    }
    CHECK(svc_recv_start(s, &f) != XSF_OK && f.usage && !strcmp(f.subject, "null:device") &&
              svc_recv_started(s) == 0,
          "device pictures on the CPU engine: %s", f.err.msg);
    svc_recv_stop(s);
    CHECK(svc_recv_destroy(s, &f) == XSF_OK, "destroy after a refused start");
}

static void test_output_names(void)
{
    svc_output k = SVC_OUT_DISPLAY;
    CHECK(svc_output_from_name("null", -1, &k) == XSF_OK && k == SVC_OUT_NULL, "null");
    CHECK(svc_output_from_name("null:device", -1, &k) == XSF_OK && k == SVC_OUT_NULL_DEVICE,
          "null:device");
    CHECK(svc_output_from_name("md5:x.txt", -1, &k) == XSF_OK && k == SVC_OUT_MD5, "md5:FILE");
    CHECK(svc_output_from_name("md5:", -1, &k) == XSF_ERR_ARG, "md5: without a file");
    CHECK(svc_output_from_name("a.jxs", -1, &k) == XSF_OK && k == SVC_OUT_JXS, ".jxs");
    CHECK(svc_output_from_name("a.yuv", -1, &k) == XSF_OK && k == SVC_OUT_YUV, ".yuv");
    CHECK(svc_output_from_name("dir/a.y4m", -1, &k) == XSF_OK && k == SVC_OUT_Y4M, ".y4m");
    CHECK(svc_output_from_name("a.png", -1, &k) == XSF_ERR_ARG, ".png refused");
    CHECK(svc_output_from_name("y4m", -1, &k) == XSF_ERR_ARG, "an extension needs its dot");
    CHECK(svc_output_from_name("a.png", SVC_OUT_YUV, &k) == XSF_OK && k == SVC_OUT_YUV, "--format");
    CHECK(svc_output_from_name("null", SVC_OUT_Y4M, &k) == XSF_OK && k == SVC_OUT_NULL,
          "null over --format");
}

/* The knobs of `xsflow recv` (svc_recv_knobs on an svc_recv_options, svc_stream_request_knobs
 * on a stream's request): each lands in its field, --gpu-sync and --ssrc say they were given,
 * --headless turns the display on, values out of bounds are refused. */
static void test_recv_knobs(void)
{
    static svc_recv_options o;
    svc_recv_options_init(&o);
    CHECK(o.cfg.pinned_mib == -1 && o.cfg.vsync && o.cfg.delay_ms == 40 && o.lim.timeout_s == 5 &&
              o.lim.reorder == 512 && !o.display && !o.stats_json,
          "the defaults of the configuration and the limits");
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(xsf_options_apply(svc_recv_knobs, &o,
                            "frames=9 cpu gpus=0,3 contexts=2 gpu-sync=block slices threads=3 "
                            "queue=8 pinned=0 copy-threads=1 ptp warmup=0.5 delay=7 no-vsync "
                            "convert=cuda colour=601,full reorder=64",
                            "recv", &err) == XSF_OK,
          "knobs: %s", err.msg);
    CHECK(o.lim.frames == 9 && o.cfg.pl.engine == PL_ENGINE_CPU && o.cfg.pl.ngpus == 2 &&
              o.cfg.pl.gpus[1] == 3 && o.cfg.pl.contexts_per_gpu == 2 &&
              o.cfg.pl.gpu_sync == PL_GPU_SYNC_BLOCK && o.lim.gpu_sync_given && o.cfg.slices &&
              o.cfg.pl.cpu_threads == 3 && o.lim.queue == 8 && o.cfg.pinned_mib == 0 &&
              o.lim.copy_threads == 1 && o.cfg.ptp && o.cfg.warmup_s == 0.5 &&
              o.cfg.delay_ms == 7 && !o.cfg.vsync && o.cfg.convert == DSP_CONVERT_CUDA &&
              o.cfg.colour.source == XSF_COLOUR_USER && o.cfg.colour.range == XSF_RANGE_FULL &&
              o.lim.reorder == 64,
          "each knob in its field");
    const struct {
        const char *name, *value;
        const char *const *field;
    } strings[] = {{"stats-json", "s.json", &o.stats_json},
                   {"frame-log", "f.csv", &o.cfg.frame_log},
                   {"headless", "h.ppm", &o.cfg.headless_ppm}};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        CHECK(xsf_option_set(xsf_option_find(svc_recv_knobs, strings[i].name), &o, strings[i].value,
                             &err) == XSF_OK &&
                  !strcmp(*strings[i].field, strings[i].value),
              "--%s", strings[i].name);
    CHECK(o.display, "--headless shows the streams (offscreen)");
    o.display = 0;
    CHECK(xsf_options_apply(svc_recv_knobs, &o, "display", "recv", &err) == XSF_OK && o.display,
          "--display");
    static const char *const refused[] = {"contexts=65", "threads=0",   "queue=1",
                                          "pinned=-1",   "warmup=-1",   "gpu-sync=fast",
                                          "gpus=x",      "dup-window=0"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        CHECK(xsf_options_apply(svc_recv_knobs, &o, refused[i], "recv", &err) == XSF_ERR_ARG,
              "%s refused", refused[i]);

    svc_stream_request r;
    memset(&r, 0, sizeof r);
    CHECK(xsf_options_apply(svc_stream_request_knobs, &r,
                            "pt=7 ssrc=0xfffffffe fps=30000:1001 pix-fmt=v210", "a stream",
                            &err) == XSF_OK,
          "stream knobs: %s", err.msg);
    CHECK(r.payload_type == 7 && r.ssrc == 0xfffffffeu && r.ssrc_given && r.fps.num == 30000 &&
              r.fps.den == 1001 && r.pix_fmt == XSF_V210,
          "each stream knob in its field");
    const char *const sval[] = {"udp", "10.0.0.1", "eth1", "p.csv"};
    const char *const sname[] = {"filter", "source", "iface", "packets"};
    for (int i = 0; i < 4; i++)
        CHECK(xsf_option_set(xsf_option_find(svc_stream_request_knobs, sname[i]), &r, sval[i],
                             &err) == XSF_OK,
              "--%s", sname[i]);
    CHECK(r.filter == sval[0] && r.source == sval[1] && r.iface == sval[2] && r.packets == sval[3],
          "the strings in their fields");
    static const char *const srefused[] = {"pt=128", "ssrc=0x100000000", "fps=0", "pix-fmt=foo"};
    for (size_t i = 0; i < sizeof srefused / sizeof srefused[0]; i++)
        CHECK(xsf_options_apply(svc_stream_request_knobs, &r, srefused[i], "a stream", &err) ==
                  XSF_ERR_ARG,
              "%s refused", srefused[i]);
}

/* svc_recv_setup: the limits every stream shares in each stream's receiver,
 * the copy threads' convention, the service's own settings; a failing
 * stream's failure. */
static void test_recv_setup(void)
{
    svc_recv_limits l;
    svc_recv_limits_init(&l);
    CHECK(l.timeout_s == 5 && l.reorder == 512 && l.reorder_ms == 20 && l.copy_threads == -1 &&
              l.frames == 0 && l.queue == 0,
          "defaults");
    l.frames = 9;
    l.reorder = 64;
    l.reorder_ms = 7;
    l.max_frame_bytes = 1 << 20;
    l.rcvbuf = 1 << 22;
    l.no_gro = 1;
    l.queue = 33;
    svc_stream_request a, b;
    memset(&a, 0, sizeof a);
    a.payload_type = -1;
    a.addr = "127.0.0.1:46002";
    a.output = SVC_OUT_NULL;
    a.out = "null";
    b = a;
    b.addr = NULL;
    b.pcap = "x.pcap";
    const svc_stream_request *req[2] = {&a, &b};
    static svc_recv_config c;
    svc_recv_config_init(&c);
    svc_failure f;
    CHECK(svc_recv_setup(&c, req, 2, &l, &f) == XSF_OK, "setup: %s", f.err.msg);
    const pl_rtp_config *r0 = &c.stream[0].rtp, *r1 = &c.stream[1].rtp;
    CHECK(c.nstreams == 2 && c.queue == 33 && c.gpu_sync_auto, "the service's settings");
    CHECK(r0->max_frames == 9 && r0->timeout_s == 5 && !r0->udp.gro &&
              r0->udp.buffer_bytes == 1 << 22 && r0->depacketizer.reorder_packets == 64 &&
              r0->depacketizer.reorder_ns == 7000000 && c.stream[0].max_frame_bytes == 1 << 20,
          "the limits in the receiver");
    CHECK(r0->copy_threads == 0 && r1->kind == PL_RTP_PCAP, "copy threads not given: 0");
    l.copy_threads = 0;
    l.gpu_sync_given = 1;
    CHECK(svc_recv_setup(&c, req, 2, &l, &f) == XSF_OK && c.stream[1].rtp.copy_threads == -1 &&
              !c.gpu_sync_auto,
          "--copy-threads 0: none (-1)");
    l.copy_threads = 3;
    CHECK(svc_recv_setup(&c, req, 2, &l, &f) == XSF_OK && c.stream[1].rtp.copy_threads == 3,
          "--copy-threads 3");
    /* The first packet: --frames waits --timeout (the source's 0), else forever (-1); a
     * --wait given is taken as it is, 0 forever. */
    CHECK(l.wait_s < 0 && r0->wait_s == 0, "with --frames: the timeout's wait (%g)", r0->wait_s);
    l.frames = 0;
    CHECK(svc_recv_setup(&c, req, 2, &l, &f) == XSF_OK && r0->wait_s < 0,
          "without --frames: forever (%g)", r0->wait_s);
    l.duration_s = 3;
    CHECK(svc_recv_setup(&c, req, 2, &l, &f) == XSF_OK && r0->wait_s < 0 && r0->duration_s == 3,
          "--duration alone bounds the wait");
    l.wait_s = 0.5;
    CHECK(svc_recv_setup(&c, req, 2, &l, &f) == XSF_OK && r0->wait_s == 0.5, "--wait 0.5");
    l.wait_s = 0;
    l.frames = 9;
    CHECK(svc_recv_setup(&c, req, 2, &l, &f) == XSF_OK && r0->wait_s < 0, "--wait 0: forever");
    b.source = "not an address";
    CHECK(svc_recv_setup(&c, req, 2, &l, &f) != XSF_OK && f.usage && !strcmp(f.subject, "--source"),
          "a stream's failure: %s: %s", f.subject, f.err.msg);
}

/* A socket's receive buffer against what was asked (net.core.rmem_max). */
static void test_rcvbuf_check(void)
{
    xsf_error w;
    xsf_error_clear(&w);
    CHECK(svc_rcvbuf_check(32 << 20, 32 << 20, 212992, &w) == XSF_OK &&
              svc_rcvbuf_check(1 << 20, 2 << 20, -1, &w) == XSF_OK,
          "granted what was asked");
    CHECK(svc_rcvbuf_check(32 << 20, 212992, 212992, &w) != XSF_OK &&
              strstr(w.msg, "is 208 KiB, not the 32 MiB asked (--rcvbuf)") &&
              strstr(w.msg, "net.core.rmem_max is 212992") &&
              strstr(w.msg, "sysctl -w net.core.rmem_max=33554432"),
          "held to rmem_max: '%s'", w.msg);
    xsf_error_clear(&w);
    CHECK(svc_rcvbuf_check((size_t)2 << 30, (size_t)1 << 30, (long long)4 << 30, &w) != XSF_OK &&
              strstr(w.msg, "1024 MiB, not the 2048 MiB asked") && !strstr(w.msg, "sysctl"),
          "less for another reason: no sysctl advice: '%s'", w.msg);
}

/* What a run's end says of a stream that fell short, and what it leaves: a capture of 5
 * frames asked for 9 (the 5 stay written), a socket nobody sends to (nothing written: the
 * empty output is removed), and a stream whose SDP contradicts it (a warning). */
static void test_shortfall(const char *dir)
{
    char pcap[512], out[512];
    snprintf(pcap, sizeof pcap, "%s/in.pcap", dir);
    snprintf(out, sizeof out, "%s/short.jxs", dir);
    static svc_recv_config c;
    static svc_recv_end e;
    svc_failure f;
    svc_recv *s = NULL;
    svc_recv_config_init(&c);
    c.nstreams = 1;
    c.pl.engine = PL_ENGINE_CPU;
    stream_of_pcap(&c.stream[0], pcap);
    c.stream[0].rtp.max_frames = 9;
    c.stream[0].output = SVC_OUT_JXS;
    c.stream[0].out = c.stream[0].path = out;
    /* An SDP of another size (the capture is 320x180 4:2:2 10 bits, 50 frames/s). */
    const char *text = "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=t\r\nc=IN IP4 10.0.0.2\r\nt=0 0\r\n"
                       "m=video 5004 RTP/AVP 112\r\na=rtpmap:112 jxsv/90000\r\na=fmtp:112 "
                       "packetmode=0;sampling=YCbCr-4:2:2;width=1920;height=1080;depth=10;"
                       "exactframerate=50\r\n";
    xsf_error err;
    xsf_error_clear(&err);
    c.stream[0].has_sdp = rtp_sdp_parse(text, strlen(text), &c.stream[0].sdp, &err) == XSF_OK;
    CHECK(c.stream[0].has_sdp, "SDP: %s", err.msg);
    if (svc_recv_create(&s, &c, &f) != XSF_OK || svc_recv_start(s, &f) != XSF_OK) {
        CHECK(0, "start: %s: %s", f.subject, f.err.msg);
        return;
    }
    for (int loops = 0; svc_recv_wait(s, 20) && loops < 1500; loops++)
        ;
    CHECK(svc_recv_finish(s, NULL, &e) == XSF_ERR_TRUNCATED, "fewer than asked is a failure");
    const svc_stream_end *se = &e.stream[0];
    CHECK(se->shortfall.err.status == XSF_ERR_TRUNCATED && se->shortfall.subject == se->label &&
              strstr(se->shortfall.err.msg, "5 of the 9 frames asked for (--frames) came"),
          "shortfall: '%s'", se->shortfall.err.msg);
    CHECK(se->wrote && se->frames == 5 && file_size(out) > 0, "the 5 frames stay written");
    CHECK(se->nwarnings == 1 && se->warning[0].subject == se->label &&
              strstr(se->warning[0].err.msg, "size 1920x1080 in the SDP, 320x180 in the stream") &&
              !strstr(se->warning[0].err.msg, "rate"),
          "the SDP's size, once: %d, '%s'", se->nwarnings, se->warning[0].err.msg);

    /* A socket nobody sends to, waiting 0.3 s for its first packet. */
    snprintf(out, sizeof out, "%s/none.yuv", dir);
    svc_recv_config_init(&c);
    c.nstreams = 1;
    c.pl.engine = PL_ENGINE_CPU;
    stream_of_pcap(&c.stream[0], NULL);
    c.stream[0].rtp.kind = PL_RTP_SOCKET;
    rtp_addr_parse("127.0.0.1:0", 1, &c.stream[0].rtp.udp.local, &err);
    c.stream[0].rtp.timeout_s = 5;
    c.stream[0].rtp.wait_s = 0.3;
    c.stream[0].output = SVC_OUT_YUV;
    c.stream[0].out = c.stream[0].path = out;
    if (svc_recv_create(&s, &c, &f) != XSF_OK || svc_recv_start(s, &f) != XSF_OK) {
        CHECK(0, "start: %s: %s", f.subject, f.err.msg);
        return;
    }
    int loops = 0;
    while (svc_recv_wait(s, 20) && loops < 250)
        loops++;
    CHECK(loops >= 10 && loops < 100, "stopped after the wait: %d turns of 20 ms", loops);
    CHECK(svc_recv_finish(s, NULL, &e) == XSF_ERR_TRUNCATED, "no frame is a failure");
    CHECK(strstr(e.stream[0].shortfall.err.msg, "no frame: no packet came in 0.3 s (--wait)"),
          "'%s'", e.stream[0].shortfall.err.msg);
    CHECK(file_size(out) < 0, "the empty output is removed");

    /* An output that cannot be written: refused before anything opens. */
    c.stream[0].out = c.stream[0].path = dir; /* a directory */
    CHECK(svc_recv_create(&s, &c, &f) == XSF_ERR_IO && !s && !strcmp(f.subject, dir) &&
              strstr(f.err.msg, "directory"),
          "an output that cannot be written: %s", f.err.msg);
}

/* svc_stream_request_check: a source, one of ADDR:PORT and an SDP, an output
 * (none with the display), its kind; refusals as usage errors with their subject. */
static void test_request_check(void)
{
    svc_stream_request r;
    memset(&r, 0, sizeof r);
    svc_failure f;
    CHECK(svc_stream_request_check(&r, 0, -1, "stream 2", &f) == XSF_ERR_ARG && f.usage &&
              !strcmp(f.subject, "stream 2") && !strncmp(f.err.msg, "no source: ", 11),
          "no source: %s", f.err.msg);
    r.addr = "239.1.1.1:5004";
    r.sdp = "a.sdp";
    CHECK(svc_stream_request_check(&r, 0, -1, "stream 2", &f) == XSF_ERR_ARG &&
              !strcmp(f.err.msg, "give ADDR:PORT or --sdp, not both"),
          "address and SDP: %s", f.err.msg);
    r.sdp = NULL;
    CHECK(svc_stream_request_check(&r, 0, -1, "stream 2", &f) == XSF_ERR_ARG &&
              !strncmp(f.err.msg, "no output: ", 11),
          "no output: %s", f.err.msg);
    r.out = "a.png";
    CHECK(svc_stream_request_check(&r, 0, -1, "stream 2", &f) == XSF_ERR_ARG &&
              !strcmp(f.subject, "a.png"),
          "unknown output: %s", f.err.msg);
    r.out = "a.y4m";
    CHECK(svc_stream_request_check(&r, 0, -1, "stream 2", &f) == XSF_OK && r.output == SVC_OUT_Y4M,
          ".y4m");
    CHECK(svc_stream_request_check(&r, 0, SVC_OUT_JXS, "stream 2", &f) == XSF_OK &&
              r.output == SVC_OUT_JXS,
          "--format");
    CHECK(svc_stream_request_check(&r, 1, -1, "stream 2", &f) == XSF_ERR_ARG &&
              strstr(f.err.msg, "give no -o"),
          "an output with the display: %s", f.err.msg);
    r.out = NULL;
    r.addr = NULL;
    r.capture = "eth0";
    CHECK(svc_stream_request_check(&r, 1, -1, "stream 2", &f) == XSF_OK &&
              r.output == SVC_OUT_DISPLAY,
          "the display");
}

/* svc_stream_setup: an SDP file, a capture's filter, the request's own address and
 * source, and the failures with their subjects. */
static void test_stream_setup(const char *dir)
{
    char sdp[512], big[512];
    snprintf(sdp, sizeof sdp, "%s/setup.sdp", dir);
    snprintf(big, sizeof big, "%s/big.sdp", dir);
    FILE *f = fopen(sdp, "w");
    if (f) {
        fputs("v=0\r\no=- 1 1 IN IP4 10.0.0.7\r\ns=x\r\nt=0 0\r\nm=video 46000 RTP/AVP 98\r\n"
              "c=IN IP4 127.0.0.1\r\na=source-filter: incl IN IP4 127.0.0.1 10.0.0.7\r\n"
              "a=rtpmap:98 jxsv/90000\r\na=fmtp:98 packetmode=0;width=320;height=360;"
              "exactframerate=50;sampling=YCbCr-4:2:2;interlace;colorimetry=BT2020;RANGE=FULL\r\n",
              f);
        fclose(f);
    }
    rtp_receiver_options ro;
    rtp_receiver_options_init(&ro);
    pl_rtp_config shared;
    memset(&shared, 0, sizeof shared);
    shared.max_frames = 7;
    shared.timeout_s = 2.5;
    shared.udp.buffer_bytes = 1 << 20;
    shared.udp.gro = 1;
    static svc_stream_config sc;
    svc_failure fl;
    svc_stream_request rq;
    memset(&rq, 0, sizeof rq);
    rq.sdp = sdp;
    rq.payload_type = -1;
    rq.output = SVC_OUT_JXS;
    rq.out = "x.jxs";
    rq.ssrc_given = 1;
    rq.ssrc = 0x1234;
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) == XSF_OK, "SDP: %s", fl.err.msg);
    CHECK(sc.rtp.kind == PL_RTP_SOCKET && sc.rtp.udp.local.port == 46000 && sc.rtp.udp.timestamps,
          "bound to the SDP's c= and port");
    CHECK(sc.rtp.udp.has_source, "the SDP's source filter");
    CHECK(sc.rtp.udp.gro && sc.rtp.udp.buffer_bytes == 1 << 20 && sc.rtp.max_frames == 7 &&
              sc.rtp.timeout_s == 2.5,
          "the shared settings");
    CHECK(sc.rtp.interlaced && sc.fps.num == 50 && sc.fps.den == 1, "interlace, rate %u/%u",
          sc.fps.num, sc.fps.den);
    CHECK(sc.rtp.depacketizer.payload_type == 98 && sc.rtp.depacketizer.validate &&
              sc.rtp.depacketizer.ssrc_given && sc.rtp.depacketizer.ssrc == 0x1234,
          "payload type, check, SSRC");
    CHECK(sc.colour.source == XSF_COLOUR_SDP && sc.colour.range == XSF_RANGE_FULL,
          "colour from the SDP");
    CHECK(sc.max_frame_bytes > 0 && sc.max_frame_bytes < ((size_t)64 << 20),
          "bound of the SDP's picture %zu", sc.max_frame_bytes);
    CHECK(sc.name == rq.sdp && !strcmp(sc.out, "x.jxs") && !strcmp(sc.path, "x.jxs"), "names");

    /* The request's rate and address win; a decoded output gets no structural check. */
    rq.fps = (xsf_rate){30, 1};
    rq.addr = NULL;
    rq.output = SVC_OUT_MD5;
    rq.out = "md5:sums.txt";
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) == XSF_OK, "SDP again");
    CHECK(sc.fps.num == 30 && !sc.rtp.depacketizer.validate && !strcmp(sc.path, "sums.txt"),
          "the request's rate, no check, the MD5 file");

    /* A capture: the filter from the address and source; or "udp"; or as given. */
    memset(&rq, 0, sizeof rq);
    rq.payload_type = -1;
    rq.pcap = "in.pcap";
    rq.addr = "239.1.2.3:5004";
    rq.source = "10.0.0.1";
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) == XSF_OK, "pcap");
    CHECK(sc.rtp.kind == PL_RTP_PCAP && !strcmp(sc.rtp.path, "in.pcap") &&
              !strcmp(sc.filter,
                      "udp and dst port 5004 and dst host 239.1.2.3 and src host 10.0.0.1"),
          "filter '%s'", sc.filter);
    rq.addr = rq.source = NULL;
    rq.pcap = NULL;
    rq.capture = "eth9";
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) == XSF_OK &&
              sc.rtp.kind == PL_RTP_CAPTURE && !strcmp(sc.filter, "udp"),
          "capture, filter '%s'", sc.filter);
    rq.filter = "udp port 9";
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) == XSF_OK &&
              !strcmp(sc.filter, "udp port 9"),
          "the given filter");

    /* Failures and their subjects. */
    memset(&rq, 0, sizeof rq);
    rq.payload_type = -1;
    rq.addr = "1.2.3";
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) != XSF_OK && fl.usage &&
              !strcmp(fl.subject, "1.2.3"),
          "a bad address");
    rq.addr = "127.0.0.1:5000";
    rq.source = "zz";
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) != XSF_OK && fl.usage &&
              !strcmp(fl.subject, "--source"),
          "a bad source");
    rq.source = NULL;
    rq.addr = NULL;
    rq.sdp = "/nonexistent/x.sdp";
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) != XSF_OK && !fl.usage &&
              !strcmp(fl.subject, rq.sdp),
          "a missing SDP file");
    f = fopen(big, "w");
    for (int i = 0; f && i < 70000; i++)
        fputc('a', f);
    if (f)
        fclose(f);
    rq.sdp = big;
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) == XSF_ERR_INVALID &&
              strstr(fl.err.msg, "64 KiB"),
          "an SDP over 64 KiB: %s", fl.err.msg);
    rq.sdp = sdp;
    ro.reorder_ms = 20000;
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) == XSF_ERR_ARG && fl.usage &&
              !strcmp(fl.subject, sdp),
          "an option out of its bounds");
}

/* The legs of a stream (SMPTE ST 2022-7): lists joined by commas, or an SDP's DUP group;
 * the reorder window raised to the skew; counts that disagree refused. */
static void test_stream_legs(const char *dir)
{
    rtp_receiver_options ro;
    rtp_receiver_options_init(&ro);
    pl_rtp_config shared;
    memset(&shared, 0, sizeof shared);
    shared.udp.buffer_bytes = 1 << 20;
    shared.legs.merge.window_ms = 80;
    static svc_stream_config sc;
    svc_failure fl;
    svc_stream_request rq;
    memset(&rq, 0, sizeof rq);
    rq.payload_type = -1;
    rq.addr = "127.0.0.1:5004,127.0.0.2:5006";
    rq.iface = "lo";
    rq.source = "10.0.0.1,10.1.0.1";
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) == XSF_OK, "legs: %s", fl.err.msg);
    CHECK(sc.rtp.kind == PL_RTP_SOCKET && sc.rtp.legs.n == 2 &&
              sc.rtp.legs.leg[1].udp.local.port == 5006 &&
              sc.rtp.legs.leg[0].udp.local.port == 5004 && sc.rtp.udp.local.port == 5004 &&
              sc.rtp.legs.leg[1].udp.has_source && !strcmp(sc.rtp.legs.leg[1].udp.iface, "lo") &&
              sc.rtp.legs.leg[1].udp.buffer_bytes == 1 << 20 &&
              !strcmp(sc.leg_name[1], "127.0.0.2:5006") && sc.rtp.legs.merge.window_ms == 80,
          "two sockets");
    CHECK(sc.rtp.depacketizer.reorder_ns >= 80000000u &&
              sc.rtp.depacketizer.reorder_packets >= RTP_MERGE_REORDER_RATE * 80 / 1000,
          "the reorder window covers the skew: %u packets", sc.rtp.depacketizer.reorder_packets);
    rq.iface = "eth0,eth1,eth2";
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) == XSF_ERR_ARG && fl.usage,
          "three interfaces for two legs");
    rq.iface = NULL;
    rq.addr = "127.0.0.1:5004,";
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) == XSF_ERR_ARG && fl.usage, "an empty leg");
    /* Two capture files, one address each. */
    memset(&rq, 0, sizeof rq);
    rq.payload_type = -1;
    rq.pcap = "a.pcap,b.pcap";
    rq.addr = "239.1.1.1:5004,239.2.1.1:5004";
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) == XSF_OK && sc.rtp.legs.n == 2 &&
              sc.rtp.kind == PL_RTP_PCAP && !strcmp(sc.leg_path[1], "b.pcap") &&
              strstr(sc.leg_filter[1], "239.2.1.1") && strstr(sc.leg_filter[0], "239.1.1.1"),
          "two files: '%s'", sc.leg_filter[1]);
    /* An SDP's DUP group. */
    char sdp[512];
    snprintf(sdp, sizeof sdp, "%s/dup.sdp", dir);
    FILE *f = fopen(sdp, "w");
    if (f) {
        fputs("v=0\r\no=- 1 1 IN IP4 10.0.0.7\r\ns=x\r\nt=0 0\r\na=group:DUP a b\r\n"
              "m=video 46000 RTP/AVP 98\r\nc=IN IP4 127.0.0.1\r\na=rtpmap:98 jxsv/90000\r\n"
              "a=fmtp:98 packetmode=0\r\na=mid:a\r\n"
              "m=video 46002 RTP/AVP 98\r\nc=IN IP4 127.0.0.2\r\na=rtpmap:98 jxsv/90000\r\n"
              "a=fmtp:98 packetmode=0\r\na=mid:b\r\n",
              f);
        fclose(f);
    }
    memset(&rq, 0, sizeof rq);
    rq.payload_type = -1;
    rq.sdp = sdp;
    CHECK(svc_stream_setup(&sc, &rq, &ro, &shared, &fl) == XSF_OK && sc.rtp.legs.n == 2 &&
              sc.rtp.legs.leg[1].udp.local.port == 46002 && sc.rtp.udp.local.port == 46000 &&
              sc.rtp.depacketizer.payload_type == 98,
          "SDP DUP: %s", fl.err.msg);
    remove(sdp);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_recv VECTOR_DIR WORK_DIR\n");
        return 2;
    }
    test_drops();
    test_output_names();
    test_request_check();
    test_recv_setup();
    test_recv_knobs();
    test_rcvbuf_check();
    test_stream_setup(argv[2]);
    test_stream_legs(argv[2]);
    char path[512];
    snprintf(path, sizeof path, "%s/seq_5f_422_10b.jxs", argv[1]);
    size_t len = 0;
    uint8_t *data = tu_read_file(path, &len);
    CHECK(data && len, "cannot read %s", path);
    if (data) {
        test_run(data, len, argv[2], 0);
        test_run(data, len, argv[2], 1);
        test_refusals(argv[2]);
        test_shortfall(argv[2]);
    }
    free(data);
    return xsf_test_finish();
}
