/* The sender's impairments (rtp_impairer) against the depacketizer, with no
 * network between: for several seeds and probabilities, what the receiver
 * counts must be exactly what rtp.h says the impairer's counts imply
 * (packets, lost, duplicated, reordered; frames dropped = frames that lost a
 * packet; nothing late), and a seed must give the same decisions every time.
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

static void run(const uint8_t *file, const size_t *cs_off, const size_t *cs_len, size_t ncs,
                rtp_jxs_mode mode, double p, uint64_t seed, rtp_impair_counts *out_counts)
{
    xsf_error err;
    xsf_error_clear(&err);
    rtp_packetizer_config pc = {
        .mode = mode, .payload_type = 112, .ssrc = 0xabc, .first_seq = 65000, .boxes = 1};
    rtp_packetizer *pz = NULL;
    rtp_impair_config ic = {.loss = p, .reorder = p, .duplicate = p, .seed = seed};
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
    for (int mode = 0; mode < 2; mode++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            run(file, off, n, ncs, (rtp_jxs_mode)mode, 0.01 * (double)seed, seed, &a);
            run(file, off, n, ncs, (rtp_jxs_mode)mode, 0.01 * (double)seed, seed, &b);
            CHECK(!memcmp(&a, &b, sizeof a), "seed %llu: two runs differ",
                  (unsigned long long)seed);
        }
    run(file, off, n, ncs, RTP_JXS_CODESTREAM, 0, 9, &a);
    CHECK(a.lost == 0 && a.reordered == 0 && a.duplicated == 0 && a.datagrams == a.packets,
          "no impairment asked, some made");
    rtp_impair_config bad = {.loss = 1.5};
    rtp_impairer *m;
    xsf_error err;
    CHECK(rtp_impairer_create(&m, &bad, &err) == XSF_ERR_ARG, "a probability of 1.5 accepted");
    free(file);
    return xsf_test_finish();
}
