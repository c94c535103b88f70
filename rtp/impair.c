/* A sender's own impairments, for soak tests with exact accounting: each
 * packet is lost, held back behind the next packet sent, or sent twice, as a
 * seeded generator decides, and every decision is counted. What a receiver
 * must then count follows from the rules (rtp.h, rtp_impairer). */
#include <stdlib.h>
#include <string.h>

#include "rtp_internal.h"

#define HELD_BYTES 65536 /* the largest UDP payload */

struct rtp_impairer {
    rtp_impair_config cfg;
    uint64_t state;
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
    if (cfg->loss < 0 || cfg->loss > 1 || cfg->reorder < 0 || cfg->reorder > 1 ||
        cfg->duplicate < 0 || cfg->duplicate > 1)
        return xsf_error_set(err, XSF_ERR_ARG,
                             "impairment probabilities must be 0 to 1 (loss %g, reorder %g, "
                             "duplicate %g)",
                             cfg->loss, cfg->reorder, cfg->duplicate);
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

static void emit(rtp_impairer *m, const uint8_t *p, size_t len, const uint8_t **out,
                 size_t *out_len, size_t *nout)
{
    out[*nout] = p;
    out_len[(*nout)++] = len;
    m->n.datagrams++;
}

/* Sends the packet held back (and its duplicate), now that a later one went out;
 * `reordered`: 0 at the end of input, where it goes out in its place. */
static void emit_held(rtp_impairer *m, int reordered, const uint8_t **out, size_t *out_len,
                      size_t *nout)
{
    if (!m->have_held)
        return;
    emit(m, m->held, m->held_len, out, out_len, nout);
    m->n.reordered += reordered;
    if (m->held_twice)
        emit(m, m->held, m->held_len, out, out_len, nout);
    m->have_held = m->held_twice = 0;
}

void rtp_impair_segment(rtp_impairer *m, const uint8_t *const *pkts, const size_t *lens, size_t n,
                        int spare, const uint8_t **out, size_t *out_len, size_t *nout)
{
    *nout = 0;
    int lost_any = 0;
    for (size_t i = 0; i < n; i++) {
        m->n.packets++;
        if (spare || lens[i] > HELD_BYTES) {
            emit(m, pkts[i], lens[i], out, out_len, nout);
            emit_held(m, 1, out, out_len, nout);
            continue;
        }
        /* One draw for each impairment, always, so that a seed gives one sequence of
         * decisions whatever the probabilities. */
        const int lose = chance(m, m->cfg.loss), hold = chance(m, m->cfg.reorder),
                  twice = chance(m, m->cfg.duplicate);
        if (lose) {
            m->n.lost++;
            lost_any = 1;
            continue;
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
        emit(m, pkts[i], lens[i], out, out_len, nout);
        if (twice)
            emit(m, pkts[i], lens[i], out, out_len, nout);
        emit_held(m, 1, out, out_len, nout);
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
}

void rtp_impair_finish(rtp_impairer *m, const uint8_t **out, size_t *out_len, size_t *nout)
{
    *nout = 0;
    emit_held(m, 0, out, out_len, nout);
}

const rtp_impair_counts *rtp_impairer_counts(const rtp_impairer *m)
{
    return &m->n;
}
