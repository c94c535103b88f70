/* The sender's impairments (rtp_impairer) against the depacketizer, with no
 * network between: for several seeds and probabilities, what the receiver
 * counts must be exactly what rtp.h says the impairer's counts imply
 * (packets, lost, duplicated, reordered; frames dropped = frames that lost a
 * packet; nothing late), and a seed must give the same decisions every time;
 * also with losses in bursts and a cut (frames not sent). One leg of several:
 * packets kept are never lost, the losses and slots reported are the ones made.
 * The stream: NF copies of the codestreams of vectors/xs/seq_5f_422_10b.jxs,
 * 1440-byte packets, codestream and slice mode. */
#include <string.h>

#include "rtp.h"
#include "rtp_test_util.h"
#include "test.h"

#define NF 300

typedef struct pk_list {
    uint8_t *data;
    size_t *off, *len, n, used;
} pk_list;

static int collect(void *ctx, const uint8_t *pkt, size_t len, int last)
{
    (void)last;
    pk_list *l = ctx;
    memcpy(l->data + l->used, pkt, len);
    l->off[l->n] = l->used;
    l->len[l->n++] = len;
    l->used += len;
    return 0;
}

/* How run impairs beyond p and the seed: bursts of up to `burst` packets, frames
 * [cut_from, cut_from + cut) not sent. */
typedef struct extra {
    unsigned burst;
    uint64_t cut_from, cut;
} beyond;

static void run(const uint8_t *file, const size_t *cs_off, const size_t *cs_len, size_t ncs,
                rtp_jxs_mode mode, double p, uint64_t seed, beyond x, rtp_impair_counts *out_counts)
{
    xsf_error err;
    xsf_error_clear(&err);
    rtp_packetizer_config pc = {
        .mode = mode, .payload_type = 112, .ssrc = 0xabc, .first_seq = 65000, .boxes = 1};
    rtp_packetizer *pz = NULL;
    rtp_impair_config ic = {.loss = p,
                            .reorder = p,
                            .duplicate = p,
                            .seed = seed,
                            .burst_max = x.burst,
                            .cut_from = x.cut_from,
                            .cut_segments = x.cut};
    rtp_impairer *m = NULL;
    rtp_depacketizer_config dc;
    memset(&dc, 0, sizeof dc);
    dc.payload_type = 112;
    dc.validate = 1;
    rtp_depacketizer *d = NULL;
    if (rtp_packetizer_create(&pz, &pc, &err) != XSF_OK ||
        rtp_impairer_create(&m, &ic, &err) != XSF_OK ||
        rtp_depacketizer_create(&d, &dc, &err) != XSF_OK) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    pk_list l;
    l.data = malloc(1 << 20);
    l.off = malloc(4096 * sizeof *l.off);
    l.len = malloc(4096 * sizeof *l.len);
    const uint8_t **ptr = malloc(4096 * sizeof *ptr), **out = malloc(8200 * sizeof *out);
    size_t *out_len = malloc(8200 * sizeof *out_len);
    for (unsigned k = 0; k < NF; k++) {
        l.n = l.used = 0;
        const size_t c = k % ncs;
        CHECK(rtp_packetize(pz, file + cs_off[c], cs_len[c], 1000u + 3600u * k, k,
                            RTP_JXS_PROGRESSIVE, collect, &l, &err) == XSF_OK,
              "packetize: %s", err.msg);
        for (size_t i = 0; i < l.n; i++)
            ptr[i] = l.data + l.off[i];
        size_t n = 0;
        rtp_impair_segment(m, ptr, l.len, l.n, k == 0 || k + 1 == NF, out, out_len, &n);
        if (k + 1 == NF) {
            size_t extra;
            rtp_impair_finish(m, out + n, out_len + n, &extra);
            n += extra;
        }
        for (size_t i = 0; i < n; i++)
            rtp_depacketizer_push(d, out[i], out_len[i], 0);
    }
    rtp_depacketizer_flush(d);
    const rtp_impair_counts *c = rtp_impairer_counts(m);
    const rtp_stats *st = rtp_depacketizer_stats(d);
#define EQ(got, want, what)                                                                        \
    CHECK((got) == (want), "%s mode, p %g, seed %llu: %s %llu, expected %llu",                     \
          mode ? "slice" : "codestream", p, (unsigned long long)seed, what,                        \
          (unsigned long long)(got), (unsigned long long)(want))
    EQ(st->packets, c->datagrams, "packets");
    EQ(st->lost, c->lost, "lost");
    EQ(st->lost_edge, 0, "lost at the edges");
    EQ(st->duplicated, c->duplicated, "duplicated");
    EQ(st->reordered, c->reordered, "reordered");
    EQ(st->late, 0, "late");
    EQ(c->segments, NF, "segments offered");
    EQ(c->packets + c->duplicated - c->lost, c->datagrams, "datagrams = packets + copies - lost");
    if (mode == RTP_JXS_CODESTREAM) {
        EQ(st->frames_dropped, c->segments_with_loss, "frames dropped");
        EQ(st->frames_complete, NF - c->segments_with_loss, "frames whole");
    } else {
        /* slice mode: a frame that lost a packet is passed on partial, or dropped when its
         * header segment was hit */
        EQ(st->frames_partial + st->frames_dropped, c->segments_with_loss, "frames not whole");
        EQ(st->frames_complete, NF - c->segments_with_loss, "frames whole");
    }
    if (p > 0)
        CHECK(c->lost && c->reordered && c->duplicated, "p %g impaired nothing", p);
    EQ(c->cut_segments, x.cut, "segments cut");
    if (x.burst > 1)
        CHECK(c->lost - c->cut_packets > c->bursts && c->bursts, "bursts %llu, lost %llu",
              (unsigned long long)c->bursts, (unsigned long long)c->lost);
    else
        EQ(c->lost - c->cut_packets, c->bursts, "losses begun (one packet each)");
    *out_counts = *c;
    free(l.data);
    free(l.off);
    free(l.len);
    free(ptr);
    free(out);
    free(out_len);
    rtp_depacketizer_destroy(d);
    rtp_impairer_destroy(m);
    rtp_packetizer_destroy(pz);
}

/* One leg of several: kept packets are not lost, lost[] and the slots say what was done. */
static void test_leg(const uint8_t *cs, size_t off, size_t len)
{
    xsf_error err;
    xsf_error_clear(&err);
    rtp_packetizer_config pc = {.payload_type = 112, .ssrc = 1, .first_seq = 0, .boxes = 1};
    rtp_packetizer *pz = NULL;
    rtp_impair_config ic = {.loss = 0.3,
                            .reorder = 0.2,
                            .duplicate = 0.2,
                            .seed = 3,
                            .burst_max = 3,
                            .cut_from = 5,
                            .cut_segments = 1};
    rtp_impairer *m = NULL;
    if (rtp_packetizer_create(&pz, &pc, &err) != XSF_OK ||
        rtp_impairer_create(&m, &ic, &err) != XSF_OK) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    pk_list l;
    l.data = malloc(1 << 20);
    l.off = malloc(4096 * sizeof *l.off);
    l.len = malloc(4096 * sizeof *l.len);
    const uint8_t *ptr[4096], *out[8200];
    size_t out_len[8200], at[8200];
    uint8_t keep[4096], lost[4096];
    uint64_t lost_seen = 0, kept_lost = 0, bad_slot = 0;
    for (unsigned k = 0; k < 8; k++) {
        l.n = l.used = 0;
        CHECK(rtp_packetize(pz, cs + off, len, 3600u * k, k, RTP_JXS_PROGRESSIVE, collect, &l,
                            &err) == XSF_OK,
              "packetize: %s", err.msg);
        for (size_t i = 0; i < l.n; i++) {
            ptr[i] = l.data + l.off[i];
            keep[i] = i % 2; /* the odd packets another leg lost */
        }
        CHECK(rtp_impair_cut_next(m) == (k == 5), "frame %u: cut %d", k, rtp_impair_cut_next(m));
        size_t nout = 0;
        rtp_impair_segment_leg(m, ptr, l.len, l.n, 0, keep, lost, out, out_len, at, &nout);
        for (size_t i = 0; i < l.n; i++) {
            lost_seen += lost[i];
            kept_lost += lost[i] && keep[i];
        }
        for (size_t j = 0; j < nout; j++) {
            /* each packet goes out in its own slot or later (held back), in order of slots */
            const uint8_t *p = out[j];
            const size_t seq = (size_t)p[2] << 8 | p[3];
            const size_t first = (size_t)((const uint8_t *)ptr[0])[2] << 8 | ptr[0][3];
            bad_slot += (j && at[j] < at[j - 1]) || at[j] >= l.n ||
                        (seq >= first && seq - first < l.n && seq - first > at[j]);
        }
    }
    const rtp_impair_counts *c = rtp_impairer_counts(m);
    CHECK(kept_lost == 0 && lost_seen == c->lost && c->kept > 0 && c->cut_segments == 1 &&
              bad_slot == 0,
          "kept yet lost %llu, lost %llu (counted %llu), kept %llu, cut %llu, bad slots %llu",
          (unsigned long long)kept_lost, (unsigned long long)lost_seen, (unsigned long long)c->lost,
          (unsigned long long)c->kept, (unsigned long long)c->cut_segments,
          (unsigned long long)bad_slot);
    free(l.data);
    free(l.off);
    free(l.len);
    rtp_impairer_destroy(m);
    rtp_packetizer_destroy(pz);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_rtp_impairer seq_5f_422_10b.jxs\n");
        return 2;
    }
    size_t len;
    uint8_t *file = tu_read_file(argv[1], &len);
    if (!file)
        return 1;
    size_t off[8], n[8], ncs = 0;
    for (size_t o = 0; o < len && ncs < 8; ncs++) {
        n[ncs] = tu_codestream_bytes(file + o, len - o);
        if (!n[ncs])
            break;
        off[ncs] = o;
        o += n[ncs];
    }
    CHECK(ncs == 5, "%zu codestreams", ncs);
    rtp_impair_counts a, b;
    const beyond plain = {0, 0, 0}, bursts = {20, 100, 7};
    for (int mode = 0; mode < 2; mode++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            run(file, off, n, ncs, (rtp_jxs_mode)mode, 0.01 * (double)seed, seed, plain, &a);
            run(file, off, n, ncs, (rtp_jxs_mode)mode, 0.01 * (double)seed, seed, plain, &b);
            CHECK(!memcmp(&a, &b, sizeof a), "seed %llu: two runs differ",
                  (unsigned long long)seed);
            run(file, off, n, ncs, (rtp_jxs_mode)mode, 0.002 * (double)seed, seed, bursts, &b);
        }
    test_leg(file, off[0], n[0]);
    run(file, off, n, ncs, RTP_JXS_CODESTREAM, 0, 9, plain, &a);
    CHECK(a.lost == 0 && a.reordered == 0 && a.duplicated == 0 && a.datagrams == a.packets,
          "no impairment asked, some made");
    rtp_impair_config bad = {.loss = 1.5};
    rtp_impairer *m;
    xsf_error err;
    CHECK(rtp_impairer_create(&m, &bad, &err) == XSF_ERR_ARG, "a probability of 1.5 accepted");
    rtp_impair_config long_burst = {.loss = 0.1, .burst_max = RTP_IMPAIR_BURST_MAX + 1};
    CHECK(rtp_impairer_create(&m, &long_burst, &err) == XSF_ERR_ARG, "a burst too long accepted");
    free(file);
    return xsf_test_finish();
}
