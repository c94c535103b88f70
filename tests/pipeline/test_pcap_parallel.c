/* The RTP capture source's two paths give the same frames and the same
 * counts: a mapped .pcap read with its payload copies made on the copy pool
 * (pl_rtp_config.copy_threads > 0, pipeline/pl_copy.c), read with them made
 * by the receiving thread (copy_threads -1), and the same packets pushed one
 * by one (PL_RTP_PUSH: the depacketizer copies every packet itself, the
 * path every socket takes). For each capture: every frame's codestream (its
 * MD5, in order, and its fields), the receiver's statistics (rtp_stats,
 * every field) and the pipeline's (submitted, delivered, drops by reason)
 * must be equal on all three, and the frames delivered as many as the
 * capture allows: every segment that lost no packet is delivered (a frame of
 * two fields when both are whole), every one that lost a packet is not.
 *
 * Captures: every vector of vectors/xs in one clip, in codestream (K=0) and
 * slice (K=1) mode; then clips with loss, reordering (also across frame
 * boundaries), duplicates, late packets, garbage and a sequence number that
 * wraps, in both modes; interlaced fields (paired by the source), clean and
 * lossy; slice mode with T=0 (the packets of each slice in any order: every
 * frame whole, nothing counted lost or late); an SSRC
 * that changes after a silence, with a small reorder window; a frame limit.
 *
 * usage: test_pcap_parallel VECTOR_DIR WORK_DIR */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image_io.h"
#include "md5.h"
#include "pipeline.h"
#include "test.h"
#include "xs.h"

static const char *vector_dir, *work_dir;

/* ---- captures in memory ---- */

typedef struct packet {
    uint8_t *data;
    size_t len;
    uint64_t t_ns;
} packet;

typedef struct capture {
    packet *p;
    size_t n, cap;
    uint64_t now_ns;     /* the time of the next packet added */
    size_t *frame_start; /* the first packet of each segment */
    size_t nframes, frames_cap;
    unsigned char *segment_lost; /* impair(): a packet of the segment was left out */
} capture;

static int cap_add(capture *c, const uint8_t *d, size_t len, uint64_t t)
{
    if (c->n == c->cap) {
        const size_t cap = c->cap ? 2 * c->cap : 1024;
        packet *p = realloc(c->p, cap * sizeof *p);
        if (!p)
            return -1;
        c->p = p;
        c->cap = cap;
    }
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return -1;
    memcpy(copy, d, len);
    c->p[c->n++] = (packet){copy, len, t};
    return 0;
}

static void cap_free(capture *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->p[i].data);
    free(c->p);
    free(c->frame_start);
    free(c->segment_lost);
    memset(c, 0, sizeof *c);
}

static int collect(void *ctx, const uint8_t *pkt, size_t len, int last)
{
    (void)last;
    capture *c = ctx;
    c->now_ns += 2000; /* 2 us between packets */
    return cap_add(c, pkt, len, c->now_ns);
}

/* ---- clips: codestreams from the vectors ---- */

#define MAX_CS 256

typedef struct clip {
    uint8_t *file[MAX_CS];
    size_t nfiles;
    const uint8_t *cs[MAX_CS];
    size_t len[MAX_CS];
    size_t n;
} clip;

static void clip_add_file(clip *c, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.jxs", vector_dir, name);
    uint8_t *data;
    size_t len;
    xsf_error err;
    xsf_error_clear(&err);
    if (c->nfiles == MAX_CS || imgio_read_file(path, &data, &len, &err) != XSF_OK)
        return;
    c->file[c->nfiles++] = data;
    size_t off = 0;
    while (off < len && c->n < MAX_CS) {
        xs_layout l;
        memset(&l, 0, sizeof l);
        if (xs_scan_layout(data + off, len - off, &l, &err) != XSF_OK)
            break;
        c->cs[c->n] = data + off;
        c->len[c->n++] = l.codestream_bytes;
        off += l.codestream_bytes;
        xs_layout_free(&l);
    }
}

/* Every vector named in the manifest (those with data). */
static void clip_all_vectors(clip *c)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", vector_dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[4096];
    int first = 1;
    while (fgets(line, sizeof line, f)) {
        if (first) { /* the column names */
            first = 0;
            continue;
        }
        char *tab = strchr(line, '\t');
        if (tab)
            *tab = 0;
        if (line[0])
            clip_add_file(c, line);
    }
    fclose(f);
}

static void clip_free(clip *c)
{
    for (size_t i = 0; i < c->nfiles; i++)
        free(c->file[i]);
    memset(c, 0, sizeof *c);
}

/* ---- packetizing and impairing ---- */

typedef struct scenario {
    const char *name;
    rtp_jxs_mode mode;
    int interlaced; /* the codestreams are fields, two to a frame */
    int t0;         /* slice mode, T=0: the packets of each slice shuffled */
    uint16_t first_seq;
    uint32_t ssrc2; /* non-zero: the second half of the clip from this SSRC, 2 s later */
    /* per mille of packets */
    unsigned loss, dup, swap, late, garbage;
    unsigned boundary_swaps; /* the last packet of every Nth segment after the next's first */
    unsigned reorder_packets;
    uint64_t max_frames;
    /* what the capture must show (so that the comparison is not of nothing) */
    int expect_all_whole; /* every codestream delivered, equal to the clip's */
    int expect_loss, expect_reorder, expect_dup, expect_field_drop, expect_ssrc_change;
} scenario;

static uint64_t rng_state;
static unsigned rng(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng_state >> 33) % n);
}

/* The SEP counter of an RFC 9134 payload header (4.3: T K L I(2) F(5) SEP(11) P(11)). */
static unsigned sep_counter(const packet *p)
{
    const uint8_t *h = p->data + RTP_HEADER_BYTES;
    const uint32_t w = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
    return (unsigned)(w >> 11) & 0x7ff;
}

/* The segment that packet i of the unimpaired capture belongs to. */
static size_t segment_of(const capture *c, size_t i)
{
    size_t lo = 0, hi = c->nframes;
    while (hi - lo > 1) {
        const size_t mid = (lo + hi) / 2;
        if (c->frame_start[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static int packetize(const scenario *sc, const clip *cl, capture *out)
{
    xsf_error err;
    xsf_error_clear(&err);
    rtp_packetizer_config pc = {.mode = sc->mode,
                                .packet_bytes = 1440,
                                .payload_type = 112,
                                .ssrc = 0x5eed,
                                .first_seq = sc->first_seq,
                                .boxes = 1};
    rtp_packetizer *pk = NULL;
    if (rtp_packetizer_create(&pk, &pc, &err) != XSF_OK)
        return -1;
    out->now_ns = 1700000000000000000ull;
    out->frames_cap = cl->n + 1;
    out->frame_start = calloc(out->frames_cap, sizeof *out->frame_start);
    if (!out->frame_start)
        return -1;
    const size_t half = cl->n / 2;
    for (size_t i = 0; i < cl->n; i++) {
        if (sc->ssrc2 && i == half) {
            /* A new sender after a silence longer than the SSRC timeout. */
            rtp_packetizer_destroy(pk);
            pc.ssrc = sc->ssrc2;
            pc.first_seq = (uint16_t)(sc->first_seq + 20000);
            if (rtp_packetizer_create(&pk, &pc, &err) != XSF_OK)
                return -1;
            out->now_ns += 2000000000ull;
        }
        out->frame_start[out->nframes++] = out->n;
        out->now_ns += sc->interlaced ? 10000000u : 20000000u;
        const rtp_jxs_scan scan = !sc->interlaced ? RTP_JXS_PROGRESSIVE
                                  : i % 2         ? RTP_JXS_FIELD_SECOND
                                                  : RTP_JXS_FIELD_FIRST;
        const unsigned f = sc->interlaced ? (unsigned)(i / 2) : (unsigned)i;
        const uint32_t ts = rtp_frame_timestamp(90000, i, sc->interlaced ? 100 : 50, 1);
        const size_t start = out->n;
        if (rtp_packetize(pk, cl->cs[i], cl->len[i], ts, f, scan, collect, out, &err) != XSF_OK) {
            fprintf(stderr, "packetize: %s\n", err.msg);
            rtp_packetizer_destroy(pk);
            return -1;
        }
        if (sc->t0) {
            /* T=0 (RFC 9134 4.3): the T bit cleared, the packets of each packetization
             * unit (the header segment, a slice: one SEP counter) sent in any order, the
             * units in order; the marker stays on the packet that carries it. The RTP
             * sequence numbers follow the order of sending (RFC 3550 5.1: one more for
             * each packet sent), so that it is the RFC 9134 counters that are out of
             * order, not the packets on the network (which the reorder window would put
             * back in order before the T=0 assembly saw them). */
            const uint8_t *first = out->p[start].data;
            const uint16_t seq0 = (uint16_t)(first[2] << 8 | first[3]);
            for (size_t k = start; k < out->n; k++)
                out->p[k].data[RTP_HEADER_BYTES] &= 0x7f;
            for (size_t u = start; u < out->n;) {
                size_t end = u + 1;
                while (end < out->n && sep_counter(&out->p[end]) == sep_counter(&out->p[u]))
                    end++;
                for (size_t k = end - 1; k > u; k--) {
                    const size_t j = u + rng((unsigned)(k - u + 1));
                    const packet t = out->p[k];
                    out->p[k] = out->p[j];
                    out->p[j] = t;
                }
                u = end;
            }
            for (size_t k = start; k < out->n; k++) {
                const uint16_t seq = (uint16_t)(seq0 + (k - start));
                out->p[k].data[2] = (uint8_t)(seq >> 8);
                out->p[k].data[3] = (uint8_t)seq;
            }
        }
    }
    rtp_packetizer_destroy(pk);
    return 0;
}

/* Loss, duplicates, swaps, late copies and garbage, by the scenario's rates;
 * packet times stay in file order (each place keeps its time). Records which
 * segments lost a packet (segment_lost). */
static int impair(const scenario *sc, capture *c)
{
    capture o;
    memset(&o, 0, sizeof o);
    if (!(c->segment_lost = calloc(c->nframes ? c->nframes : 1, 1)))
        return -1;
    size_t next_frame = 1, boundary = 0;
    for (size_t i = 0; i < c->n; i++) {
        /* Across a boundary: this segment's last packet after the next one's first. */
        if (sc->boundary_swaps && next_frame < c->nframes && i + 1 == c->frame_start[next_frame]) {
            next_frame++;
            if (++boundary % sc->boundary_swaps == 0 && i + 1 < c->n) {
                if (cap_add(&o, c->p[i + 1].data, c->p[i + 1].len, c->p[i].t_ns) ||
                    cap_add(&o, c->p[i].data, c->p[i].len, c->p[i + 1].t_ns))
                    return -1;
                i++;
                continue;
            }
        }
        if (sc->loss && rng(1000) < sc->loss) {
            c->segment_lost[segment_of(c, i)] = 1;
            continue;
        }
        if (sc->garbage && rng(1000) < sc->garbage) {
            uint8_t junk[64];
            for (size_t k = 0; k < sizeof junk; k++)
                junk[k] = (uint8_t)rng(256);
            junk[0] &= 0x3f; /* RTP version 0: not RTP */
            if (cap_add(&o, junk, 8 + rng(56), c->p[i].t_ns))
                return -1;
        }
        /* A packet of the same segment moved forward: across a boundary the next
         * frame's packet would go out 20 ms early and the hole it leaves would be given
         * up on (reorder_ns), which is a loss, not what a swap is for (boundary_swaps
         * cross boundaries in the way a receiver must take). */
        const size_t seg = segment_of(c, i);
        const size_t seg_end = seg + 1 < c->nframes ? c->frame_start[seg + 1] : c->n;
        if (sc->swap && rng(1000) < sc->swap && i + 1 < seg_end) {
            const size_t j = i + 1 + rng(4) < seg_end ? i + 1 + rng(4) : i + 1;
            if (cap_add(&o, c->p[j].data, c->p[j].len, c->p[i].t_ns))
                return -1;
            /* the one moved forward is not sent again at its place */
            for (size_t k = i; k < j; k++)
                if (cap_add(&o, c->p[k].data, c->p[k].len, c->p[k + 1].t_ns))
                    return -1;
            i = j;
            continue;
        }
        if (cap_add(&o, c->p[i].data, c->p[i].len, c->p[i].t_ns))
            return -1;
        if (sc->dup && rng(1000) < sc->dup && cap_add(&o, c->p[i].data, c->p[i].len, c->p[i].t_ns))
            return -1;
        if (sc->late && rng(1000) < sc->late && i >= 700 &&
            cap_add(&o, c->p[i - 700].data, c->p[i - 700].len, c->p[i].t_ns))
            return -1; /* far behind the window: late, or a duplicate */
    }
    /* Each packet goes out at the time of the place it takes in the unimpaired capture (a
     * copy or junk at its original's), 1 ns after the one before at least. Not the time
     * of the place with its number in the new list: packets lost or added before the
     * silence of ssrc2 would move the new sender's first packets before it, where the old
     * sender is live and they are refused as another sender's. */
    for (size_t i = 1; i < o.n; i++)
        if (o.p[i].t_ns <= o.p[i - 1].t_ns)
            o.p[i].t_ns = o.p[i - 1].t_ns + 1;
    o.frame_start = c->frame_start;
    o.nframes = c->nframes;
    o.frames_cap = c->frames_cap;
    o.segment_lost = c->segment_lost;
    c->frame_start = NULL;
    c->segment_lost = NULL;
    cap_free(c);
    *c = o;
    return 0;
}

static int write_pcap(const capture *c, const char *path)
{
    xsf_error err;
    xsf_error_clear(&err);
    rtp_addr src, dst;
    if (rtp_addr_parse("10.0.0.1:5000", 1, &src, &err) != XSF_OK ||
        rtp_addr_parse("10.0.0.2:5004", 1, &dst, &err) != XSF_OK)
        return -1;
    rtp_pcap_writer *w;
    if (rtp_pcap_writer_open(&w, path, &err) != XSF_OK)
        return -1;
    for (size_t i = 0; i < c->n; i++)
        if (rtp_pcap_write(w, &src, &dst, c->p[i].data, c->p[i].len, c->p[i].t_ns, &err) !=
            XSF_OK) {
            (void)rtp_pcap_writer_close(w, &err);
            return -1;
        }
    return rtp_pcap_writer_close(w, &err) == XSF_OK ? 0 : -1;
}

/* ---- running a source into the pipeline ---- */

typedef struct outcome {
    rtp_stats rs;
    pl_stream_stats ps;
    size_t n, cap;
    char (*md5)[33];
    size_t *field0; /* bytes of the first field (0: progressive) */
} outcome;

static void deliver(void *ctx, pl_frame *f)
{
    outcome *o = ctx;
    if (o->n == o->cap) {
        const size_t cap = o->cap ? 2 * o->cap : 64;
        char(*m)[33] = realloc(o->md5, cap * sizeof *m);
        size_t *fb = m ? realloc(o->field0, cap * sizeof *fb) : NULL;
        if (m)
            o->md5 = m;
        if (fb)
            o->field0 = fb;
        if (!m || !fb) {
            pl_frame_release(f);
            return;
        }
        o->cap = cap;
    }
    app_md5 md;
    app_md5_init(&md);
    app_md5_update(&md, f->codestream, f->codestream_bytes);
    app_md5_final_hex(&md, o->md5[o->n]);
    o->field0[o->n] = f->fields == 2 ? f->field_bytes[0] : 0;
    o->n++;
    pl_frame_release(f);
}

/* copy_threads as pl_rtp_config's; push: the packets pushed from memory. */
static int run(const scenario *sc, const char *path, const capture *c, int push, int copy_threads,
               outcome *o)
{
    memset(o, 0, sizeof *o);
    xsf_error err;
    xsf_error_clear(&err);
    pl_config pc;
    memset(&pc, 0, sizeof pc);
    pc.engine = PL_ENGINE_CPU;
    pc.cpu_threads = 2;
    pl_rtp_config rc;
    memset(&rc, 0, sizeof rc);
    rc.kind = push ? PL_RTP_PUSH : PL_RTP_PCAP;
    rc.path = path;
    rc.copy_threads = copy_threads;
    rc.interlaced = sc->interlaced;
    rc.max_frames = sc->max_frames;
    rc.depacketizer.payload_type = -1;
    rc.depacketizer.reorder_packets = sc->reorder_packets;
    rc.depacketizer.reorder_ns = 20000000u;
    pl_pipeline *p = NULL;
    pl_rtp_source *src = NULL;
    int rcode = -1;
    if (pl_rtp_source_open(&src, &rc, &err) != XSF_OK || pl_create(&p, &pc, &err) != XSF_OK)
        goto out;
    pl_sink sink = {deliver, NULL, o, PL_PICTURE_NONE, NULL, NULL, 0};
    pl_stream_config scfg = {.name = sc->name, .backpressure = PL_BLOCK, .sink = sink};
    int stream;
    if (pl_stream_add(p, &scfg, &stream, &err) != XSF_OK ||
        pl_rtp_source_start(src, p, stream, &err) != XSF_OK)
        goto out;
    if (push) {
        for (size_t i = 0; i < c->n; i++)
            pl_rtp_source_push(src, c->p[i].data, c->p[i].len, c->p[i].t_ns);
        pl_rtp_source_flush(src);
    } else if (pl_rtp_source_join(src, &err) != XSF_OK) {
        goto out;
    }
    pl_stream_finish(p, stream);
    pl_rtp_source_stats(src, &o->rs, NULL);
    pl_stream_stats_get(p, stream, &o->ps);
    rcode = 0;
out:
    if (rcode)
        fprintf(stderr, "%s: %s\n", sc->name, err.msg);
    pl_rtp_source_destroy(src);
    pl_destroy(p);
    return rcode;
}

static void outcome_free(outcome *o)
{
    free(o->md5);
    free(o->field0);
}

#define SAME_U64(field)                                                                            \
    CHECK(a->field == b->field, "%s, %s: " #field " %llu vs %llu", name, what,                     \
          (unsigned long long)a->field, (unsigned long long)b->field)

static void compare_rtp(const char *name, const char *what, const rtp_stats *a, const rtp_stats *b)
{
    SAME_U64(packets);
    SAME_U64(bytes);
    SAME_U64(invalid);
    SAME_U64(truncated);
    SAME_U64(wrong_ssrc);
    SAME_U64(on_probation);
    SAME_U64(ssrc_changes);
    SAME_U64(wrong_pt);
    SAME_U64(lost);
    SAME_U64(lost_edge);
    SAME_U64(reordered);
    SAME_U64(duplicated);
    SAME_U64(late);
    SAME_U64(frames_complete);
    SAME_U64(frames_dropped);
    SAME_U64(frames_partial);
    SAME_U64(frames_invalid);
    SAME_U64(frames_dropped_edge);
    SAME_U64(frames_dropped_no_buffer);
    SAME_U64(first_arrival_ns);
    SAME_U64(last_arrival_ns);
    SAME_U64(ssrc);
    SAME_U64(highest_seq);
    CHECK(a->jitter_ms == b->jitter_ms && a->bitrate_bps == b->bitrate_bps,
          "%s, %s: jitter %g vs %g ms, bit rate %g vs %g", name, what, a->jitter_ms, b->jitter_ms,
          a->bitrate_bps, b->bitrate_bps);
}

static void compare(const char *name, const char *what, const outcome *a, const outcome *b)
{
    compare_rtp(name, what, &a->rs, &b->rs);
    SAME_U64(ps.submitted);
    SAME_U64(ps.delivered);
    SAME_U64(ps.delivered_interlaced);
    SAME_U64(ps.dropped_total);
    SAME_U64(ps.codestream_bytes);
    for (int r = 0; r < PL_DROP_REASONS; r++)
        CHECK(a->ps.dropped[r] == b->ps.dropped[r], "%s, %s: dropped %s %llu vs %llu", name, what,
              pl_drop_reason_name((pl_drop_reason)r), (unsigned long long)a->ps.dropped[r],
              (unsigned long long)b->ps.dropped[r]);
    SAME_U64(n);
    size_t differ = 0, first = 0;
    for (size_t i = 0; i < a->n && i < b->n; i++)
        if (strcmp(a->md5[i], b->md5[i]) || a->field0[i] != b->field0[i]) {
            if (!differ++)
                first = i;
        }
    CHECK(!differ, "%s, %s: %zu frames differ, the first is frame %zu", name, what, differ, first);
}

static void run_scenario(const scenario *sc, const clip *cl)
{
    rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)sc->first_seq;
    capture c;
    memset(&c, 0, sizeof c);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.pcap", work_dir, sc->name);
    const int made = !packetize(sc, cl, &c) && !impair(sc, &c) && !write_pcap(&c, path);
    CHECK(made, "%s: making the capture", sc->name);
    if (!made) {
        cap_free(&c);
        return;
    }
    /* The capture is mapped, and it has payload past the depacketizer's prefix: the
     * parallel path defers copies on it. */
    rtp_pcap_reader *r = NULL;
    xsf_error err;
    xsf_error_clear(&err);
    CHECK(rtp_pcap_open_file(&r, path, "udp", &err) == XSF_OK && rtp_pcap_mapped(r),
          "%s: the capture is mapped (%s)", sc->name, err.msg);
    rtp_pcap_close(r);
    size_t largest = 0;
    for (size_t i = 0; i < cl->n; i++)
        largest = cl->len[i] > largest ? cl->len[i] : largest;
    CHECK(largest > RTP_DEFER_PREFIX_BYTES, "%s: a segment of %zu bytes at most", sc->name,
          largest);

    outcome serial, parallel, one, pushed;
    const int ok = !run(sc, path, &c, 0, -1, &serial) && !run(sc, path, &c, 0, 3, &parallel) &&
                   !run(sc, path, &c, 0, 1, &one) &&
                   (sc->max_frames || !run(sc, path, &c, 1, -1, &pushed));
    CHECK(ok, "%s: runs", sc->name);
    if (ok) {
        printf("%s: %zu packets, %llu frames whole, %llu dropped, %llu partial, lost %llu, "
               "reordered %llu, duplicated %llu, late %llu, invalid %llu; %llu delivered "
               "(%llu interlaced), %llu field drops\n",
               sc->name, c.n, (unsigned long long)serial.rs.frames_complete,
               (unsigned long long)serial.rs.frames_dropped,
               (unsigned long long)serial.rs.frames_partial, (unsigned long long)serial.rs.lost,
               (unsigned long long)serial.rs.reordered, (unsigned long long)serial.rs.duplicated,
               (unsigned long long)serial.rs.late, (unsigned long long)serial.rs.invalid,
               (unsigned long long)serial.ps.delivered,
               (unsigned long long)serial.ps.delivered_interlaced,
               (unsigned long long)serial.ps.dropped[PL_DROP_FIELD]);
        compare(sc->name, "3 copy threads vs serial", &parallel, &serial);
        compare(sc->name, "1 copy thread vs serial", &one, &serial);
        if (!sc->max_frames)
            compare(sc->name, "serial vs pushed packets", &serial, &pushed);
        CHECK(serial.ps.delivered > 0, "%s: nothing delivered", sc->name);
        /* As many frames as the capture allows: those of which no packet was left out. */
        if (!sc->max_frames) {
            uint64_t want = 0;
            for (size_t i = 0; i < c.nframes; i += sc->interlaced ? 2 : 1)
                want += !c.segment_lost[i] &&
                        (!sc->interlaced || (i + 1 < c.nframes && !c.segment_lost[i + 1]));
            CHECK(serial.ps.delivered == want && serial.n == want,
                  "%s: %llu frames delivered, the capture has %llu whole (%llu dropped at the "
                  "edge)",
                  sc->name, (unsigned long long)serial.ps.delivered, (unsigned long long)want,
                  (unsigned long long)serial.rs.frames_dropped_edge);
        }
        /* Nothing left out: nothing counted lost, given up on or late. */
        if (!sc->loss)
            CHECK(serial.rs.lost == 0 && serial.rs.frames_dropped + serial.rs.frames_partial == 0,
                  "%s: no packet left out, but %llu lost, %llu frames dropped, %llu partial",
                  sc->name, (unsigned long long)serial.rs.lost,
                  (unsigned long long)serial.rs.frames_dropped,
                  (unsigned long long)serial.rs.frames_partial);
        if (!sc->late && !sc->loss)
            CHECK(serial.rs.late == 0, "%s: %llu packets late", sc->name,
                  (unsigned long long)serial.rs.late);
        if (sc->expect_all_whole) {
            CHECK(serial.n == cl->n, "%s: %zu frames of %zu", sc->name, serial.n, cl->n);
            size_t differ = 0;
            for (size_t i = 0; i < serial.n && i < cl->n; i++) {
                app_md5 md;
                char hex[33];
                app_md5_init(&md);
                app_md5_update(&md, cl->cs[i], cl->len[i]);
                app_md5_final_hex(&md, hex);
                differ += strcmp(hex, serial.md5[i]) != 0;
            }
            CHECK(!differ, "%s: %zu frames differ from the clip's codestreams", sc->name, differ);
        }
        if (sc->max_frames)
            CHECK(serial.ps.delivered == sc->max_frames, "%s: %llu frames, limit %llu", sc->name,
                  (unsigned long long)serial.ps.delivered, (unsigned long long)sc->max_frames);
        if (sc->expect_loss)
            CHECK(serial.rs.lost > 0 && serial.rs.frames_dropped + serial.rs.frames_partial > 0,
                  "%s: no loss", sc->name);
        if (sc->expect_reorder)
            CHECK(serial.rs.reordered > 0, "%s: nothing reordered", sc->name);
        if (sc->expect_dup)
            CHECK(serial.rs.duplicated > 0, "%s: no duplicate", sc->name);
        if (sc->expect_field_drop)
            CHECK(serial.ps.dropped[PL_DROP_FIELD] > 0 && serial.ps.delivered_interlaced > 0,
                  "%s: no field dropped or no frame of two fields", sc->name);
        if (sc->interlaced && !sc->expect_field_drop)
            CHECK(serial.ps.delivered_interlaced == cl->n / 2, "%s: %llu frames of two fields",
                  sc->name, (unsigned long long)serial.ps.delivered_interlaced);
        if (sc->expect_ssrc_change)
            CHECK(serial.rs.ssrc_changes == 1, "%s: %llu SSRC changes", sc->name,
                  (unsigned long long)serial.rs.ssrc_changes);
    }
    if (ok) {
        outcome_free(&serial);
        outcome_free(&parallel);
        outcome_free(&one);
        if (!sc->max_frames)
            outcome_free(&pushed);
    }
    remove(path);
    cap_free(&c);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_pcap_parallel VECTOR_DIR WORK_DIR\n");
        return 2;
    }
    vector_dir = argv[1];
    work_dir = argv[2];
    mkdir(work_dir, 0755);

    clip all, mixed, fields;
    memset(&all, 0, sizeof all);
    memset(&mixed, 0, sizeof mixed);
    memset(&fields, 0, sizeof fields);
    clip_all_vectors(&all);
    CHECK(all.n >= 50, "%zu codestreams in the vectors", all.n);
    /* Frames of many sizes, twice over: buffers grow while copies are pending. */
    const char *mixed_names[] = {"hd_422_10b_bpp3", "rate_bpp8",      "hd_444_12b_bpp6_v1",
                                 "geom_346x199",    "hd_420_8b_bpp1", "rate_bpp12"};
    for (int rep = 0; rep < 4; rep++)
        for (size_t i = 0; i < sizeof mixed_names / sizeof *mixed_names; i++)
            clip_add_file(&mixed, mixed_names[i]);
    CHECK(mixed.n == 24, "%zu codestreams in the mixed clip", mixed.n);
    /* Interlaced: the 5-frame sequence's codestreams as fields, 8 frames of two. */
    for (int rep = 0; rep < 4; rep++)
        clip_add_file(&fields, "seq_5f_422_10b");
    fields.n &= ~(size_t)1;
    CHECK(fields.n >= 16, "%zu fields", fields.n);

    const scenario scenarios[] = {
        {.name = "all_k0", .mode = RTP_JXS_CODESTREAM, .first_seq = 100, .expect_all_whole = 1},
        {.name = "all_k1", .mode = RTP_JXS_SLICE, .first_seq = 101, .expect_all_whole = 1},
        {.name = "impaired_k0",
         .mode = RTP_JXS_CODESTREAM,
         .first_seq = 64000,
         .loss = 3,
         .dup = 5,
         .swap = 10,
         .late = 2,
         .garbage = 2,
         .boundary_swaps = 3,
         .expect_loss = 1,
         .expect_reorder = 1,
         .expect_dup = 1},
        {.name = "impaired_k1",
         .mode = RTP_JXS_SLICE,
         .first_seq = 65000,
         .loss = 3,
         .dup = 5,
         .swap = 10,
         .late = 2,
         .garbage = 2,
         .boundary_swaps = 3,
         .expect_loss = 1,
         .expect_reorder = 1,
         .expect_dup = 1},
        {.name = "boundaries_k0",
         .mode = RTP_JXS_CODESTREAM,
         .first_seq = 65500,
         .boundary_swaps = 1,
         .expect_all_whole = 1,
         .expect_reorder = 1},
        {.name = "fields_k0", .mode = RTP_JXS_CODESTREAM, .interlaced = 1, .first_seq = 7},
        {.name = "fields_k1", .mode = RTP_JXS_SLICE, .interlaced = 1, .first_seq = 65530},
        {.name = "fields_lossy_k1",
         .mode = RTP_JXS_SLICE,
         .interlaced = 1,
         .first_seq = 3,
         .loss = 8,
         .swap = 10,
         .expect_loss = 1,
         .expect_field_drop = 1},
        {.name = "t0_k1",
         .mode = RTP_JXS_SLICE,
         .t0 = 1,
         .first_seq = 65000,
         .dup = 3,
         .expect_all_whole = 1,
         .expect_dup = 1},
        {.name = "ssrc_change_k0",
         .mode = RTP_JXS_CODESTREAM,
         .first_seq = 40000,
         .ssrc2 = 0xbeef,
         .swap = 20,
         .loss = 2,
         .reorder_packets = 16,
         .expect_ssrc_change = 1,
         .expect_loss = 1},
        {.name = "limit_k1", .mode = RTP_JXS_SLICE, .first_seq = 9, .max_frames = 3},
    };
    for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++) {
        const scenario *sc = &scenarios[i];
        const clip *cl = !strncmp(sc->name, "all_", 4)      ? &all
                         : !strncmp(sc->name, "fields_", 7) ? &fields
                                                            : &mixed;
        run_scenario(sc, cl);
    }
    clip_free(&all);
    clip_free(&mixed);
    clip_free(&fields);
    return xsf_test_finish();
}
