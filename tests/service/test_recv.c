/* The receive service (service/service.h): the drops by reason from the
 * receiver's and the pipeline's counts; a .pcap of a conformance vector
 * through the whole service (CPU engine) into a .jxs file, a packet log, a
 * frame log and the JSON figures; and its refusals: a missing capture,
 * pictures in GPU memory or sub-frame decoding without the GPU engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    rtp_packetizer_config pc = {.mode = RTP_JXS_CODESTREAM, .packet_bytes = 1440, .payload_type = 112,
                                .ssrc = 0x5eed, .boxes = 1};
    rtp_packetizer *pk = NULL;
    rtp_pcap_writer *w = NULL;
    rtp_addr src, dst;
    if (rtp_packetizer_create(&pk, &pc, &err) != XSF_OK || rtp_addr_parse("10.0.0.1:5000", 1, &src, &err) ||
        rtp_addr_parse("10.0.0.2:5004", 1, &dst, &err) || rtp_pcap_writer_open(&w, path, &err) != XSF_OK)
        return 0;
    size_t frames = 0, off = 0;
    uint64_t t = 1700000000000000000ull;
    while (off < len) {
        const size_t n = tu_codestream_bytes(data + off, len - off);
        tu_list l = {0};
        if (!n || rtp_packetize(pk, data + off, n, rtp_frame_timestamp(90000, frames, 50, 1), (unsigned)frames,
                                RTP_JXS_PROGRESSIVE, tu_collect, &l, &err) != XSF_OK)
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

static size_t file_text(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return n;
}

static void test_run(const uint8_t *data, size_t len, const char *dir)
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
    svc_recv_stop(s);
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(svc_recv_join(s, 0, &err) == XSF_OK, "join: %s", err.msg);
    svc_stream_figures fig;
    svc_recv_figures(s, 0, 0, &fig);
    CHECK(fig.pl.delivered == 5, "%llu delivered", (unsigned long long)fig.pl.delivered);
    CHECK(fig.drops.total == 0 && fig.rtp.lost == 0, "drops %llu", (unsigned long long)fig.drops.total);
    CHECK(fig.drops.memory_bound >= fig.drops.memory, "memory within its bound");
    CHECK(svc_recv_write_json(s, json, &f) == XSF_OK, "json: %s: %s", f.subject, f.err.msg);
    int wrote = 0;
    uint64_t written = 0;
    CHECK(svc_recv_close_writer(s, 0, &wrote, &written, &f) == XSF_OK && wrote && written == 5,
          "writer: %d, %llu frames", wrote, (unsigned long long)written);
    CHECK(svc_recv_close_packets(s, 0, &f) == XSF_OK, "packet log");
    CHECK(svc_recv_destroy(s, &f) == XSF_OK, "destroy");

    size_t got_len = 0;
    uint8_t *got = tu_read_file(out, &got_len);
    CHECK(got && got_len == len && !memcmp(got, data, len), "the codestreams written as sent (%zu of %zu bytes)",
          got_len, len);
    free(got);
    static char text[1 << 16];
    file_text(json, text, sizeof text);
    CHECK(strstr(text, "\"engine\": ") && strstr(text, "\"frames_whole\": 5,") &&
              strstr(text, "\"frames_dropped\": 0,"),
          "JSON: %.200s", text);
    CHECK(file_text(flog, text, sizeof text) && !strncmp(text, PL_FRAME_LOG_HEADER "\n", strlen(PL_FRAME_LOG_HEADER) + 1),
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
    CHECK(svc_recv_create(&s, &c, &f) != XSF_OK && !s && f.subject && !strcmp(f.subject, missing) && !f.usage,
          "a missing capture: %s", f.err.msg);
    c.stream[0].name = "the-name";
    CHECK(svc_recv_create(&s, &c, &f) != XSF_OK && !strcmp(f.subject, "the-name"), "named by its name");

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

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_recv VECTOR_DIR WORK_DIR\n");
        return 2;
    }
    test_drops();
    char path[512];
    snprintf(path, sizeof path, "%s/seq_5f_422_10b.jxs", argv[1]);
    size_t len = 0;
    uint8_t *data = tu_read_file(path, &len);
    CHECK(data && len, "cannot read %s", path);
    if (data) {
        test_run(data, len, argv[2]);
        test_refusals(argv[2]);
    }
    free(data);
    return xsf_test_finish();
}
