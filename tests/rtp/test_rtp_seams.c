/* The rtp/ library's seams: the sender (the frame-rate field, the boxes and the
 * SDP of a stream, clips, pacing, interlaced timestamps, stopping), a receiver's
 * configuration from an SDP with its bounds, the receive transports' table and
 * the "pcap" transport's batches against rtp_pcap_next, and the picture header
 * the depacketizer passes on with each frame.
 *   test_rtp_seams CLIP.jxs WORKDIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rtp.h"
#include "rtp_test_util.h"
#include "test.h"

static void test_frat(void)
{
    static const struct {
        unsigned num, den;
        uint16_t want_num;
        uint8_t want_code;
    } cases[] = {
        {25, 1, 25, 1},       {50, 1, 50, 1},        {60000, 1001, 60, 2}, {30000, 1001, 30, 2},
        {24000, 1001, 24, 2}, {120000, 2002, 60, 2}, {50, 2, 25, 1},       {25, 2, 0, 0},
        {2997, 100, 0, 0},    {0, 0, 0, 0},          {70000, 1, 0, 0},     {1000, 1001, 1, 2},
        {1001, 1001, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rtp_jxs_boxes b;
        memset(&b, 0xee, sizeof b);
        rtp_jxs_frat(&b, cases[i].num, cases[i].den, (int)(i & 1));
        CHECK(b.frat_num == cases[i].want_num && b.frat_den_code == cases[i].want_code &&
                  b.frat_interlace == (i & 1),
              "frat of %u/%u: %u code %u (interlace %u), want %u code %u", cases[i].num,
              cases[i].den, b.frat_num, b.frat_den_code, b.frat_interlace, cases[i].want_num,
              cases[i].want_code);
    }
}

static void test_stream(const rtp_clip *clip)
{
    const xs_header *h = &clip->first;
    /* The boxes of xsflow send's defaults, and of the payloader's (nothing known). */
    rtp_stream_desc d = {.rate_num = 25,
                         .rate_den = 1,
                         .max_codestream_bytes = 100000,
                         .colorimetry = "BT709",
                         .tcs = "SDR",
                         .range = "NARROW"};
    rtp_jxs_boxes b;
    rtp_jxs_boxes_for_stream(&b, h, &d);
    CHECK(b.brat_mbps == 20 && b.frat_num == 25 && b.frat_den_code == 1, "brat %u frat %u/%u",
          b.brat_mbps, b.frat_num, b.frat_den_code);
    CHECK(!strcmp(rtp_jxs_sampling_name(h), "YCbCr-4:2:2"), "sampling %s",
          rtp_jxs_sampling_name(h));
    CHECK(b.schar == (0x8000 | (h->depth[0] - 1) << 4 | 0), "schar %04x", b.schar);
    CHECK(b.colr_meth == 5 && b.primaries == 1 && b.transfer == 1 && b.matrix == 1 && !b.full_range,
          "colr %u %u %u %u", b.primaries, b.transfer, b.matrix, b.full_range);
    d.max_codestream_bytes = 100001; /* rounded up */
    rtp_jxs_boxes_for_stream(&b, h, &d);
    CHECK(b.brat_mbps == 21, "brat rounded %u", b.brat_mbps);
    const rtp_stream_desc none = {.rate_num = 60000, .rate_den = 1001, .interlaced = 1};
    rtp_jxs_boxes_for_stream(&b, NULL, &none);
    CHECK(!b.brat_mbps && b.frat_num == 60 && b.frat_den_code == 2 && b.frat_interlace == 1 &&
              !b.schar && b.primaries == 2 && b.transfer == 2 && b.matrix == 2 && !b.full_range,
          "payloader's boxes");

    /* The SDP. */
    rtp_packetizer_config pc;
    memset(&pc, 0, sizeof pc);
    pc.payload_type = 98;
    pc.mode = RTP_JXS_SLICE;
    rtp_sdp_route route;
    memset(&route, 0, sizeof route);
    xsf_error err;
    xsf_error_clear(&err);
    rtp_addr_parse("239.1.2.3:5006", 1, &route.dest, &err);
    rtp_addr_parse("192.0.2.7", 0, &route.origin, &err);
    route.source_filter = 1;
    route.ttl = 32;
    d.interlaced = 1;
    d.max_codestream_bytes = 100000;
    rtp_sdp s;
    rtp_sdp_for_stream(&s, h, &d, &pc, RTP_PACING_NARROW, &route);
    CHECK(s.port == 5006 && s.payload_type == 98 && s.packetmode == 1 && s.ttl == 32 &&
              !strcmp(s.dest_addr, "239.1.2.3") && !strcmp(s.source_addr, "192.0.2.7") &&
              s.width == h->wf && s.height == 2u * h->hf && s.interlace && s.rate_num == 25 &&
              !strcmp(s.tp, "2110TPNL") && !strcmp(s.sampling, "YCbCr-4:2:2") &&
              s.max_bitrate_kbps == 40001,
          "SDP: port %u pt %u ttl %u %s %ux%u tp %s AS %llu", s.port, s.payload_type, s.ttl,
          s.dest_addr, s.width, s.height, s.tp, (unsigned long long)s.max_bitrate_kbps);
    char text[4096];
    const size_t n = rtp_sdp_write(&s, text, sizeof text);
    rtp_sdp back;
    CHECK(n < sizeof text && rtp_sdp_parse(text, n, &back, &err) == XSF_OK && back.interlace &&
              back.packetmode == 1,
          "the SDP parses: %s", err.msg);
    rtp_sdp_for_stream(&s, h, &d, &pc, RTP_PACING_FRAME, &route);
    CHECK(!s.tp[0], "no TP for frame bursts: %s", s.tp);
}

static void test_clip(const uint8_t *data, size_t len, rtp_clip *clip)
{
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_clip_open(clip, data, len, &err) == XSF_OK && clip->count == 5, "clip: %zu, %s",
          clip->count, err.msg);
    size_t at = 0, max = 0;
    for (size_t i = 0; i < clip->count; i++) {
        CHECK(clip->offset[i] == at, "codestream %zu at %zu", i, clip->offset[i]);
        at += clip->bytes[i];
        max = clip->bytes[i] > max ? clip->bytes[i] : max;
    }
    CHECK(at == len && max == clip->max_bytes && clip->first.wf > 0, "clip covers the file");
    uint8_t *bad = malloc(len + 10);
    memcpy(bad, data, len);
    memset(bad + len, 0, 10);
    rtp_clip c2;
    xsf_error_clear(&err);
    char want[64];
    snprintf(want, sizeof want, "codestream 5 (file byte %zu): ", len);
    CHECK(rtp_clip_open(&c2, bad, len + 10, &err) != XSF_OK &&
              !strncmp(err.msg, want, strlen(want)),
          "garbage after the clip: %s", err.msg);
    xsf_error_clear(&err);
    CHECK(rtp_clip_open(&c2, bad, 0, &err) == XSF_ERR_TRUNCATED && c2.count == 0, "empty clip");
    free(bad);
}

typedef struct header_check {
    size_t frames, with_header, wrong;
} header_check;

static void on_frame_header(void *ctx, const rtp_frame *f)
{
    header_check *c = ctx;
    c->frames++;
    if (!f->has_header)
        return;
    c->with_header++;
    xs_header h;
    xsf_error err;
    xsf_error_clear(&err);
    if (xs_parse_header(f->data, f->bytes, &h, &err) != XSF_OK || h.wf != f->header.wf ||
        h.hf != f->header.hf || h.nc != f->header.nc || h.header_bytes != f->header.header_bytes ||
        h.nbands != f->header.nbands || h.lcod != f->header.lcod ||
        memcmp(h.gain, f->header.gain, sizeof h.gain))
        c->wrong++;
}

/* Each frame carries the header it starts with, also when packets are so small that the
 * header spans several (the depacketizer reads it before it is whole). */
static void test_frame_header(const rtp_clip *clip)
{
    for (int mode = 0; mode < 2; mode++) {
        for (size_t pkt = 80; pkt <= 1440; pkt += 1360) {
            rtp_packetizer_config pc = {.mode = (rtp_jxs_mode)mode,
                                        .packet_bytes = pkt,
                                        .payload_type = 112,
                                        .ssrc = 5,
                                        .boxes = 1};
            rtp_packetizer *p = NULL;
            xsf_error err;
            xsf_error_clear(&err);
            tu_list pk;
            memset(&pk, 0, sizeof pk);
            CHECK(rtp_packetizer_create(&p, &pc, &err) == XSF_OK, "packetizer");
            for (size_t i = 0; p && i < clip->count; i++)
                rtp_packetize(p, clip->data + clip->offset[i], clip->bytes[i], 3600u * (uint32_t)i,
                              (unsigned)i, RTP_JXS_PROGRESSIVE, tu_collect, &pk, &err);
            rtp_packetizer_destroy(p);
            header_check hc = {0, 0, 0};
            rtp_depacketizer_config dc = {.payload_type = 112,
                                          .ssrc_given = 1,
                                          .ssrc = 5,
                                          .on_frame = on_frame_header,
                                          .ctx = &hc};
            rtp_depacketizer *d = NULL;
            CHECK(rtp_depacketizer_create(&d, &dc, &err) == XSF_OK, "depacketizer");
            for (size_t i = 0; d && i < pk.n; i++)
                rtp_depacketizer_push(d, pk.p[i].data, pk.p[i].len, 0);
            if (d)
                rtp_depacketizer_flush(d);
            rtp_depacketizer_destroy(d);
            tu_free(&pk);
            CHECK(hc.frames == clip->count && hc.with_header == clip->count && !hc.wrong,
                  "mode %d, %zu-byte packets: %zu frames, %zu with a header, %zu wrong", mode, pkt,
                  hc.frames, hc.with_header, hc.wrong);
        }
    }
}

static int stop_after_3(void *ctx)
{
    const rtp_sender *s = *(rtp_sender *const *)ctx;
    return s && rtp_sender_get_stats(s)->segments >= 3;
}

/* The sender into a .pcap file: the packets' times are the pacing's, read back through
 * the "pcap" transport; the frames come out whole; fields get their own timestamps. */
static void test_sender_pcap(const rtp_clip *clip, const char *dir, int interlaced)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/sender_%d.pcap", dir, interlaced);
    xsf_error err;
    xsf_error_clear(&err);
    rtp_pcap_writer *w = NULL;
    CHECK(rtp_pcap_writer_open(&w, path, &err) == XSF_OK, "%s: %s", path, err.msg);
    if (!w)
        return;
    rtp_sender_config sc;
    memset(&sc, 0, sizeof sc);
    sc.packetizer.payload_type = 112;
    sc.packetizer.ssrc = 0x1234;
    sc.packetizer.first_seq = 65530;
    sc.packetizer.boxes = 1;
    sc.pacing = RTP_PACING_NARROW;
    sc.rate_num = 25;
    sc.rate_den = 1;
    sc.interlaced = interlaced;
    sc.first_timestamp = 1000;
    sc.pcap = w;
    rtp_addr_parse("192.0.2.1:50000", 1, &sc.pcap_src, &err);
    rtp_addr_parse("239.0.0.1:5004", 1, &sc.pcap_dst, &err);
    const uint64_t t0 = 1700000000ull * 1000000000ull;
    sc.pcap_start_ns = t0;
    rtp_sender *s = NULL;
    CHECK(rtp_sender_create(&s, &sc, &err) == XSF_OK, "sender: %s", err.msg);
    CHECK(s && rtp_sender_send_clip(s, clip, 2, &err) == XSF_OK, "send: %s", err.msg);
    const rtp_sender_stats st = s ? *rtp_sender_get_stats(s) : (rtp_sender_stats){0};
    rtp_sender_destroy(s);
    CHECK(rtp_pcap_writer_close(w, &err) == XSF_OK, "close: %s", err.msg);
    CHECK(st.segments == 2 * clip->count && st.packets > st.segments && !st.send_calls &&
              st.first_timestamp == 1000,
          "%llu segments, %llu packets", (unsigned long long)st.segments,
          (unsigned long long)st.packets);

    /* Read back: times, timestamps, counters; then the frames. */
    rtp_transport t;
    const rtp_transport_config tc = {.path = path, .filter = NULL};
    CHECK(rtp_transport_open(&t, "pcap", &tc, &err) == XSF_OK, "pcap transport: %s", err.msg);
    if (!t.ops)
        return;
    CHECK(rtp_transport_packets_kept(&t) == 1 && t.ops->clock == RTP_ARRIVAL_RECORDED &&
              !t.ops->live,
          "a classic .pcap is mapped");
    const uint64_t segment_ns = interlaced ? 20000000u : 40000000u;
    uint64_t n = 0, bad_time = 0, bad_ts = 0, reads = 0, last_time = 0;
    uint32_t last_ts = 0;
    int64_t seg = -1;
    uint8_t first_f = 0;
    rtp_depacketizer *d = NULL;
    tu_sink sink;
    memset(&sink, 0, sizeof sink);
    rtp_depacketizer_config dc = {.payload_type = 112,
                                  .validate = 1,
                                  .on_frame = tu_on_frame,
                                  .ctx = &sink,
                                  .packets_kept = 1};
    rtp_depacketizer_create(&d, &dc, &err);
    for (;;) {
        rtp_datagram dg[RTP_UDP_BATCH];
        size_t got = 0;
        const xsf_status rs = rtp_transport_read(&t, 0, dg, RTP_UDP_BATCH, &got, &err);
        if (rs != XSF_OK) {
            CHECK(rs == XSF_ERR_TRUNCATED && !got, "read: %s", err.msg);
            break;
        }
        reads++;
        for (size_t i = 0; i < got; i++, n++) {
            rtp_header h;
            rtp_jxs_header j;
            if (rtp_header_parse(dg[i].data, dg[i].bytes, &h, &err) != XSF_OK ||
                rtp_jxs_header_parse(h.payload, h.payload_bytes, &j, &err) != XSF_OK) {
                bad_ts++;
                continue;
            }
            if (!n || h.timestamp != last_ts) { /* a new segment: at its time */
                seg++;
                const uint32_t want = 1000u + (uint32_t)seg * (interlaced ? 1800u : 3600u);
                bad_ts += h.timestamp != want;
                bad_time += dg[i].arrival_ns != t0 + (uint64_t)seg * segment_ns + 1000000u * 0;
                if (interlaced && seg % 2 == 0)
                    first_f = j.f;
                if (interlaced)
                    bad_ts += j.i != (seg % 2 ? RTP_JXS_FIELD_SECOND : RTP_JXS_FIELD_FIRST) ||
                              j.f != first_f;
            }
            bad_time += dg[i].arrival_ns < last_time ||
                        dg[i].arrival_ns >= t0 + (uint64_t)(seg + 1) * segment_ns;
            last_time = dg[i].arrival_ns;
            last_ts = h.timestamp;
            if (d)
                rtp_depacketizer_push(d, dg[i].data, dg[i].bytes, dg[i].arrival_ns);
        }
    }
    if (d)
        rtp_depacketizer_flush(d);
    rtp_transport_close(&t);
    CHECK(n == st.packets && reads < n, "%llu packets read in %llu reads, %llu sent",
          (unsigned long long)n, (unsigned long long)reads, (unsigned long long)st.packets);
    CHECK(!bad_time && !bad_ts && seg + 1 == (int64_t)st.segments,
          "%llu packets off their time, %llu with a wrong timestamp or field, %lld segments",
          (unsigned long long)bad_time, (unsigned long long)bad_ts, (long long)seg + 1);
    const rtp_stats *rs = d ? rtp_depacketizer_stats(d) : NULL;
    CHECK(rs && rs->frames_complete == st.segments && !rs->lost && sink.len == 2 * clip->len &&
              !memcmp(sink.data, clip->data, clip->len) &&
              !memcmp(sink.data + clip->len, clip->data, clip->len),
          "frames through the .pcap");
    rtp_depacketizer_destroy(d);
    free(sink.data);

    /* The "pcap" transport's batches are rtp_pcap_next's packets. */
    rtp_pcap_reader *r = NULL;
    CHECK(rtp_pcap_open_file(&r, path, "udp", &err) == XSF_OK &&
              rtp_transport_open(&t, "pcap", &tc, &err) == XSF_OK,
          "reopen");
    uint64_t same = 0, total = 0;
    for (int more = 1; r && t.ops && more;) {
        rtp_datagram dg[RTP_UDP_BATCH];
        size_t got = 0;
        more = rtp_transport_read(&t, 0, dg, RTP_UDP_BATCH, &got, &err) == XSF_OK;
        for (size_t i = 0; i < got; i++, total++) {
            rtp_pcap_packet p;
            same += rtp_pcap_next(r, &p, &err) == XSF_OK && p.bytes == dg[i].bytes &&
                    p.arrival_ns == dg[i].arrival_ns && !memcmp(p.udp_payload, dg[i].data, p.bytes);
        }
    }
    rtp_pcap_packet p;
    CHECK(same == total && total == st.packets && rtp_pcap_next(r, &p, &err) == XSF_ERR_TRUNCATED,
          "%llu of %llu packets as rtp_pcap_next reads them", (unsigned long long)same,
          (unsigned long long)total);
    rtp_pcap_close(r);
    rtp_transport_close(&t);
}

static void test_sender_stop(const rtp_clip *clip, const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/sender_stop.pcap", dir);
    xsf_error err;
    xsf_error_clear(&err);
    rtp_pcap_writer *w = NULL;
    rtp_pcap_writer_open(&w, path, &err);
    rtp_sender *s = NULL;
    rtp_sender_config sc;
    memset(&sc, 0, sizeof sc);
    sc.packetizer.payload_type = 112;
    sc.pacing = RTP_PACING_WIDE;
    sc.pcap = w;
    sc.stop = stop_after_3;
    sc.stop_ctx = &s;
    CHECK(rtp_sender_create(&s, &sc, &err) == XSF_OK &&
              rtp_sender_send_clip(s, clip, 4, &err) == XSF_OK,
          "send: %s", err.msg);
    CHECK(s && rtp_sender_get_stats(s)->stopped && rtp_sender_get_stats(s)->segments == 3,
          "stopped after 3 segments");
    rtp_sender_destroy(s);
    rtp_pcap_writer_close(w, &err);
    /* Neither a socket nor a file, or both: refused. */
    rtp_sender_config none;
    memset(&none, 0, sizeof none);
    xsf_error_clear(&err);
    CHECK(rtp_sender_create(&s, &none, &err) == XSF_ERR_ARG && !s, "a sender with no output");
}

static void test_receiver_setup(void)
{
    const char *text =
        "v=0\r\no=- 1 1 IN IP4 192.0.2.7\r\ns=x\r\nc=IN IP4 239.1.2.3/32\r\nt=0 0\r\n"
        "m=video 5006 RTP/AVP 98\r\na=source-filter: incl IN IP4 239.1.2.3 "
        "192.0.2.7\r\na=rtpmap:98 jxsv/90000\r\na=fmtp:98 packetmode=1; "
        "width=1920; height=1080; sampling=YCbCr-4:2:2; depth=10; "
        "exactframerate=30000/1001; interlace\r\n";
    rtp_sdp sdp;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_sdp_parse(text, strlen(text), &sdp, &err) == XSF_OK, "SDP: %s", err.msg);
    rtp_receiver_options o;
    rtp_receiver_options_init(&o);
    CHECK(o.payload_type == -1 && o.reorder_packets == 512 && o.reorder_ms == 20 &&
              !o.max_frame_bytes,
          "defaults");
    rtp_receiver_setup rs;
    CHECK(rtp_receiver_setup_from_sdp(&sdp, &o, &rs, &err) == XSF_OK, "setup: %s", err.msg);
    const uint64_t samples = rtp_sdp_samples(&sdp);
    CHECK(samples >= 1920ull * 1080 * 2 && rs.samples == samples &&
              rs.depacketizer.max_picture_samples == samples &&
              rs.depacketizer.max_frame_bytes == rtp_jxs_codestream_bound(samples) &&
              rs.max_frame_bytes == 2 * rtp_jxs_codestream_bound(samples),
          "the SDP's bound: %zu, frame %zu", rs.depacketizer.max_frame_bytes, rs.max_frame_bytes);
    CHECK(rs.depacketizer.payload_type == 98 && rs.depacketizer.reorder_packets == 512 &&
              rs.depacketizer.reorder_ns == 20000000u && rs.interlaced &&
              rs.mode == RTP_JXS_SLICE && rs.rate_num == 30000 && rs.rate_den == 1001,
          "payload type, reorder, interlace, mode, rate");
    CHECK(rs.has_dest && rs.dest.port == 5006 && rs.dest.addr[0] == 239 && rs.has_source &&
              rs.source.addr[3] == 7,
          "addresses");
    /* The options win. */
    o.payload_type = 100;
    o.reorder_packets = 4096;
    o.reorder_ms = 0;
    o.max_frame_bytes = 1 << 20;
    CHECK(rtp_receiver_setup_from_sdp(&sdp, &o, &rs, &err) == XSF_OK &&
              rs.depacketizer.payload_type == 100 && rs.depacketizer.reorder_packets == 4096 &&
              !rs.depacketizer.reorder_ns && rs.depacketizer.max_frame_bytes == (1u << 20) &&
              rs.max_frame_bytes == (2u << 20) && rs.depacketizer.max_picture_samples == samples,
          "options over the SDP");
    /* Without an SDP. */
    rtp_receiver_options_init(&o);
    CHECK(rtp_receiver_setup_from_sdp(NULL, &o, &rs, &err) == XSF_OK &&
              rs.depacketizer.payload_type == -1 && !rs.has_dest && !rs.interlaced &&
              rs.depacketizer.max_frame_bytes == (size_t)64 << 20 &&
              !rs.depacketizer.max_picture_samples,
          "no SDP");
    /* Bounds. */
    const rtp_receiver_options bad[] = {
        {.payload_type = 128, .reorder_packets = 512, .reorder_ms = 20},
        {.payload_type = -1, .reorder_packets = 0, .reorder_ms = 20},
        {.payload_type = -1, .reorder_packets = 65537, .reorder_ms = 20},
        {.payload_type = -1, .reorder_packets = 512, .reorder_ms = 10001},
        {.payload_type = -1, .reorder_packets = 512, .reorder_ms = 20, .max_frame_bytes = 100},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xsf_error_clear(&err);
        CHECK(rtp_receiver_setup_from_sdp(&sdp, &bad[i], &rs, &err) == XSF_ERR_ARG && err.msg[0],
              "options %zu accepted", i);
    }
    rtp_sdp broken = sdp;
    snprintf(broken.dest_addr, sizeof broken.dest_addr, "not-an-address");
    xsf_error_clear(&err);
    CHECK(rtp_receiver_setup_from_sdp(&broken, &o, &rs, &err) == XSF_ERR_INVALID &&
              !strncmp(err.msg, "c= ", 3),
          "a bad c=: %s", err.msg);
}

static void test_transport_table(void)
{
    static const char *const names[] = {"udp",     "pcap",     "capture",
                                        "dup:udp", "dup:pcap", "dup:capture"};
    for (size_t i = 0; i < 6; i++) {
        const rtp_transport_ops *ops = rtp_transport_find(names[i]);
        CHECK(ops && !strcmp(ops->name, names[i]) && ops->open && ops->read && ops->close &&
                  rtp_transport_at(i) == ops,
              "transport %s", names[i]);
    }
    CHECK(!rtp_transport_at(6) && !rtp_transport_find("nope") && !rtp_transport_find(NULL),
          "no more transports");
    CHECK(rtp_transport_find("udp")->live && rtp_transport_find("udp")->kernel_drops &&
              rtp_transport_find("udp")->clock == RTP_ARRIVAL_REALTIME &&
              !rtp_transport_find("udp")->gather && rtp_transport_find("capture")->live &&
              rtp_transport_find("capture")->clock == RTP_ARRIVAL_NONE,
          "the transports' properties");
    rtp_transport t;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_transport_open(&t, "nope", NULL, &err) == XSF_ERR_ARG && !t.ops, "unknown transport");
    /* A socket through the table: bound, and a read with nothing there is empty. */
    rtp_transport_config tc;
    memset(&tc, 0, sizeof tc);
    rtp_addr_parse("127.0.0.1:0", 1, &tc.udp.local, &err);
    if (rtp_transport_open(&t, "udp", &tc, &err) == XSF_OK) {
        rtp_datagram dg[RTP_UDP_BATCH];
        size_t n = 5;
        CHECK(rtp_transport_local_port(&t) != 0 &&
                  rtp_transport_read(&t, 1, dg, RTP_UDP_BATCH, &n, &err) == XSF_OK && n == 0 &&
                  !rtp_transport_packets_kept(&t),
              "udp: port %u, %zu datagrams", rtp_transport_local_port(&t), n);
        CHECK(rtp_transport_read(&t, 1, dg, 3, &n, &err) == XSF_ERR_ARG, "a read with little room");
        rtp_transport_close(&t);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_rtp_seams CLIP.jxs WORKDIR\n");
        return 2;
    }
    mkdir(argv[2], 0777);
    size_t len = 0;
    uint8_t *data = tu_read_file(argv[1], &len);
    CHECK(data && len, "cannot read %s", argv[1]);
    if (!data)
        return xsf_test_finish();
    test_frat();
    rtp_clip clip;
    test_clip(data, len, &clip);
    if (clip.count) {
        test_stream(&clip);
        test_frame_header(&clip);
        test_sender_pcap(&clip, argv[2], 0);
        test_sender_pcap(&clip, argv[2], 1);
        test_sender_stop(&clip, argv[2]);
    }
    test_receiver_setup();
    test_transport_table();
    rtp_clip_free(&clip);
    free(data);
    return xsf_test_finish();
}
