/* A sender's own impairments, for soak tests with exact accounting: each
 * packet is lost (alone or in a burst), held back behind the next packet sent,
 * or sent twice, as a seeded generator decides, a run of segments may be cut
 * (a cable pulled), and every decision is counted. What a receiver must then
 * count follows from the rules (rtp.h, rtp_impairer). */
#include <stdlib.h>
#include <string.h>

#include "rtp_internal.h"

#define HELD_BYTES 65536 /* the largest UDP payload */

struct rtp_impairer {
    rtp_impair_config cfg;
    uint64_t state;
    uint64_t burst_left; /* packets the loss under way still takes */
    rtp_impair_counts n;
    /* The packet held back: in the caller's packets during a call; one still held at
     * the end of a call is copied into held_copy[copy_next] (two buffers, so that the
     * one copied in the call before, sent in this one, stays valid until the caller
     * has sent this call's packets). */
    const uint8_t *held;
    size_t held_len;
    int have_held, held_twice;
    uint8_t *held_copy[2];
    int copy_next;
};

/* splitmix64: small, seedable, the same sequence on every machine. */
static uint64_t next64(rtp_impairer *m)
{
    uint64_t z = (m->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int chance(rtp_impairer *m, double p)
{
    if (p <= 0)
        return 0;
    return (double)(next64(m) >> 11) * (1.0 / 9007199254740992.0) < p;
}

xsf_status rtp_impairer_create(rtp_impairer **out, const rtp_impair_config *cfg, xsf_error *err)
{
    *out = NULL;
    if (!(cfg->loss >= 0 && cfg->loss <= 1 && cfg->reorder >= 0 && cfg->reorder <= 1 &&
          cfg->duplicate >= 0 && cfg->duplicate <= 1))
        return xsf_error_set(err, XSF_ERR_ARG,
                             "impairment probabilities must be 0 to 1 (loss %g, reorder %g, "
                             "duplicate %g)",
                             cfg->loss, cfg->reorder, cfg->duplicate);
    if (cfg->burst_max > RTP_IMPAIR_BURST_MAX)
        return xsf_error_set(err, XSF_ERR_ARG, "a loss burst of at most %u packets (not %u)",
                             RTP_IMPAIR_BURST_MAX, cfg->burst_max);
    rtp_impairer *m = calloc(1, sizeof *m);
    if (!m || !(m->held_copy[0] = malloc(HELD_BYTES)) || !(m->held_copy[1] = malloc(HELD_BYTES))) {
        rtp_impairer_destroy(m);
        return xsf_error_set(err, XSF_ERR_NOMEM, "out of memory for the impairer");
    }
    m->cfg = *cfg;
    m->state = cfg->seed;
    *out = m;
    return XSF_OK;
}

void rtp_impairer_destroy(rtp_impairer *m)
{
    if (!m)
        return;
    free(m->held_copy[0]);
    free(m->held_copy[1]);
    free(m);
}

/* Where a call's output goes: the packets, their lengths, and optionally the slot (the index
 * of the packet offered) each goes out in. */
typedef struct sink {
    const uint8_t **out;
    size_t *len, *at, *n;
    size_t slot;
} sink;

static void emit(rtp_impairer *m, const uint8_t *p, size_t len, sink *o)
{
    o->out[*o->n] = p;
    o->len[*o->n] = len;
    if (o->at)
        o->at[*o->n] = o->slot;
    (*o->n)++;
    m->n.datagrams++;
}

/* Sends the packet held back (and its duplicate), now that a later one went out;
 * `reordered`: 0 at the end of input, where it goes out in its place. */
static void emit_held(rtp_impairer *m, int reordered, sink *o)
{
    if (!m->have_held)
        return;
    emit(m, m->held, m->held_len, o);
    m->n.reordered += reordered;
    if (m->held_twice)
        emit(m, m->held, m->held_len, o);
    m->have_held = m->held_twice = 0;
}

int rtp_impair_cut_next(const rtp_impairer *m)
{
    const uint64_t k = m->n.segments;
    return m->cfg.cut_segments && k >= m->cfg.cut_from && k - m->cfg.cut_from < m->cfg.cut_segments;
}

/* Whether packet i is lost: a loss begins with probability loss (its length drawn when
 * bursts are on), goes on over the next packets, and a cut segment loses everything. */
static int lose_packet(rtp_impairer *m, int begins, int cut)
{
    if (begins && !m->burst_left) {
        m->burst_left = m->cfg.burst_max > 1 ? 1 + next64(m) % m->cfg.burst_max : 1;
        m->n.bursts++;
    }
    const int in_burst = m->burst_left > 0;
    m->burst_left -= in_burst;
    return cut || in_burst;
}

void rtp_impair_segment_leg(rtp_impairer *m, const uint8_t *const *pkts, const size_t *lens,
                            size_t n, int spare, const uint8_t *keep, uint8_t *lost,
                            const uint8_t **out, size_t *out_len, size_t *out_at, size_t *nout)
{
    *nout = 0;
    sink o = {.out = out, .len = out_len, .at = out_at, .n = nout, .slot = 0};
    int lost_any = 0;
    const int cut = !spare && rtp_impair_cut_next(m);
    if (cut) /* what was held back goes out before the cable is pulled */
        emit_held(m, 0, &o);
    for (size_t i = 0; i < n; i++) {
        o.slot = i;
        m->n.packets++;
        if (lost)
            lost[i] = 0;
        if (spare || lens[i] > HELD_BYTES) {
            emit(m, pkts[i], lens[i], &o);
            emit_held(m, 1, &o);
            continue;
        }
        /* One draw for each impairment, always, so that a seed gives one sequence of
         * decisions whatever the probabilities (and a burst's length one more). */
        const int begins = chance(m, m->cfg.loss), hold = chance(m, m->cfg.reorder),
                  twice = chance(m, m->cfg.duplicate);
        if (lose_packet(m, begins, cut)) {
            if (!keep || !keep[i]) {
                m->n.lost++;
                m->n.cut_packets += cut;
                lost_any = 1;
                if (lost)
                    lost[i] = 1;
                continue;
            }
            m->n.kept++; /* another leg lost it */
        }
        m->n.duplicated += twice;
        if (hold && !m->have_held) {
            /* Behind the next packet sent; its duplicate right after it. */
            m->held = pkts[i];
            m->held_len = lens[i];
            m->have_held = 1;
            m->held_twice = twice;
            continue;
        }
        emit(m, pkts[i], lens[i], &o);
        if (twice)
            emit(m, pkts[i], lens[i], &o);
        emit_held(m, 1, &o);
    }
    if (m->have_held && m->held != m->held_copy[0] && m->held != m->held_copy[1]) {
        memcpy(m->held_copy[m->copy_next], m->held, m->held_len);
        m->held = m->held_copy[m->copy_next];
        m->copy_next ^= 1;
    } else if (m->have_held) {
        /* Held since an earlier call (this one lost everything after it): keep it
         * where it is, and the next copy goes to the other buffer. */
        m->copy_next = m->held == m->held_copy[0];
    }
    m->n.segments++;
    m->n.segments_with_loss += lost_any;
    m->n.cut_segments += cut;
}

void rtp_impair_segment(rtp_impairer *m, const uint8_t *const *pkts, const size_t *lens, size_t n,
                        int spare, const uint8_t **out, size_t *out_len, size_t *nout)
{
    rtp_impair_segment_leg(m, pkts, lens, n, spare, NULL, NULL, out, out_len, NULL, nout);
}

void rtp_impair_finish(rtp_impairer *m, const uint8_t **out, size_t *out_len, size_t *nout)
{
    *nout = 0;
    sink o = {.out = out, .len = out_len, .at = NULL, .n = nout, .slot = 0};
    emit_held(m, 0, &o);
}

const rtp_impair_counts *rtp_impairer_counts(const rtp_impairer *m)
{
    return &m->n;
}
